/*
 * The lease world (see lease.h): local clocks mapped to trace time, the
 * leaderships and grants they time, who is up, and the failures.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "check/lease.h"
#include "check/world.h"

#define PPM	INT64_C(1000000)

static int
link_cmp(const struct lw_link *x, const struct lw_link *y)
{
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return 0;
}

RB_PROTOTYPE(lw_links, lw_link, entry, link_cmp)
RB_GENERATE(lw_links, lw_link, entry, link_cmp)

static int
lw_init(struct lw *w, const struct check_opts *o)
{
	memset(w, 0, sizeof(*w));
	w->skew = o->skew;
	w->opt_nodes = o->nodes;
	w->world = o->world;
	w->msg_fail = TIME_MIN;
	RB_INIT(&w->links);
	return idmap_init(&w->ids);
}

static void
lw_free(struct lw *w)
{
	struct lw_link *l, *next;

	RB_FOREACH_SAFE(l, lw_links, &w->links, next) {
		RB_REMOVE(lw_links, &w->links, l);
		free(l);
	}
	idmap_free(&w->ids);
	free(w->node);
	free(w->live);
	free(w->ch);
	free(w->esz);
}

static void *
model_init(const struct check_opts *o)
{
	struct lw *w;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	if (lw_init(w, o) == -1) {
		free(w);
		return NULL;
	}
	return w;
}

static void	lw_event(struct lw *, const struct trace_event *);

static void
model_event(void *w, const struct trace_event *ev)
{
	lw_event(w, ev);
}

static void
model_free(void *w)
{
	lw_free(w);
	free(w);
}

static int	model_hosts(void *, const void *);

static int
model_calm(const void *arg)
{
	const struct lw *w = arg;
	size_t c;

	if (w->msg_new)
		return 0;
	for (c = 0; c < w->nch; c++)
		if (w->ch[c].what != LW_SAMPLE || w->ch[c].node == LW_NONE ||
		    w->node[w->ch[c].node].lead.on)
			return 0;
	return 1;
}

const struct check_model lw_model = { model_init, model_event, model_free,
    model_hosts, model_calm };

void
lw_finish(const struct lw *w, const struct trace_event *last,
    struct check_out *out)
{
	if (w->nomem)
		check_undecided(out, last, "out of memory");
}

struct lw_node *
lw_node(struct lw *w, unsigned id)
{
	long i = idmap_find(&w->ids, id);

	return i == -1 ? NULL : &w->node[i];
}

unsigned
lw_size_of(const struct lw *w, uint64_t e)
{
	size_t k;

	if (w->opt_nodes == 0)
		for (k = 0; k < w->nesz; k++)
			if (w->esz[k].epoch == e)
				return w->esz[k].n;
	return lw_size(w);
}

unsigned
lw_quorum_of(const struct lw *w, uint64_t e)
{
	return lw_size_of(w, e) / 2 + 1;
}

/* Epoch E has at least N nodes. */
static void
epoch_size(struct lw *w, uint64_t e, unsigned n)
{
	size_t k;

	for (k = 0; k < w->nesz && w->esz[k].epoch != e; k++)
		;
	if (k == w->nesz) {
		if (w->nesz == w->escap) {
			struct lw_esize *p = array_grow(w->esz, &w->escap,
			    sizeof(*p));

			if (p == NULL) {
				w->nomem = 1;
				return;
			}
			w->esz = p;
		}
		w->esz[w->nesz].epoch = e;
		w->esz[w->nesz++].n = 0;
	}
	if (n > w->esz[k].n) {
		w->esz[k].n = n;
		w->esz_gen++;
	}
	if (e > w->newest)
		w->newest = e;
}

unsigned
lw_size(const struct lw *w)
{
	size_t k;

	if (w->opt_nodes > 0)
		return w->opt_nodes;
	for (k = 0; k < w->nesz; k++)	/* with epochs: the newest */
		if (w->esz[k].epoch == w->newest && w->esz[k].n > 0)
			return w->esz[k].n;
	if (w->boot_nodes > 0)
		return w->boot_nodes;
	return w->seen;
}

unsigned
lw_quorum(const struct lw *w)
{
	return lw_size(w) / 2 + 1;
}

int
lw_can_elect(const struct lw *w)
{
	return w->running >= lw_quorum(w) && w->badlinks == 0;
}

static trace_time
clamp(__int128 x)
{
	if (x > TIME_MAX)
		return TIME_MAX;
	if (x < TIME_MIN)
		return TIME_MIN;
	return (trace_time)x;
}

/*
 * When the clock of K reaches UNTIL, past its last sample: between rate
 * 1 + drift (*lo) and 1 - drift (*hi); *nom at rate 1.  Clock values are
 * not negative, so D fits; 128 bits only past two and a half hours.
 */
static void
expiry(const struct lw_clock *k, trace_time until, trace_time *lo,
    trace_time *hi, trace_time *nom)
{
	int64_t d = until - k->c;

	if (d <= 0) {
		*lo = *hi = *nom = k->t;
		return;
	}
	if (d < (INT64_MAX - PPM) / PPM) {
		*lo = time_add(k->t, d * PPM / (PPM + LW_DRIFT_PPM));
		*hi = time_add(k->t, (d * PPM + PPM - LW_DRIFT_PPM - 1) /
		    (PPM - LW_DRIFT_PPM));
	} else {
		*lo = clamp(k->t + (__int128)d * PPM / (PPM + LW_DRIFT_PPM));
		*hi = clamp(k->t + ((__int128)d * PPM + PPM - LW_DRIFT_PPM -
		    1) / (PPM - LW_DRIFT_PPM));
	}
	*nom = time_add(k->t, d);
}

/* When the clock reached UNTIL between the last sample and (T2, C2). */
static trace_time
interpolate(const struct lw_clock *k, trace_time t2, trace_time c2,
    trace_time until)
{
	if (t2 <= k->t || c2 <= k->c)
		return t2;
	return clamp(k->t + ((__int128)until - k->c) * (t2 - k->t) /
	    ((__int128)c2 - k->c));
}

void
lw_end(const struct lw *w, const struct lw_node *n, const struct lw_span *s,
    struct inst *lo, struct inst *hi)
{
	if (!s->on) {
		*lo = s->lo;
		*hi = s->hi;
		return;
	}
	/* Only a later line or the clock can end it. */
	*lo = inst_min(inst_make(w->now.t, w->now.s + 2), inst_make(s->elo, 0));
	*hi = inst_make(s->ehi, 0);
}

trace_time
lw_nominal(const struct lw_node *n, const struct lw_span *s)
{
	return s->on ? s->enom : s->nominal;
}

int
lw_fail_before(const struct lw *w, trace_time x, trace_time *f)
{
	size_t k, kept = w->nfail < LW_NFAIL ? w->nfail : LW_NFAIL;

	for (k = 1; k <= kept; k++) {
		trace_time t = w->fail[(w->nfail - k) % LW_NFAIL];

		if (t < x) {
			*f = t;
			return 1;
		}
	}
	if (w->nfail > LW_NFAIL)
		return 0;
	*f = TIME_MIN;
	return 1;
}

trace_time
lw_last_fail(const struct lw *w)
{
	return w->nfail == 0 ? TIME_MIN : w->fail[(w->nfail - 1) % LW_NFAIL];
}

static void
change(struct lw *w, enum lw_what what, size_t node, const struct lw_span *s)
{
	struct lw_change *c;

	if (w->nch == w->chcap) {
		if ((c = array_grow(w->ch, &w->chcap, sizeof(*c))) == NULL) {
			w->nomem = 1;
			return;
		}
		w->ch = c;
	}
	c = &w->ch[w->nch++];
	c->what = what;
	c->node = node;
	if (s != NULL)	/* samples and failures have no span to give */
		c->span = *s;
}

/* A failure at T, at most the current time: the ring stays in order. */
static void
failure_at(struct lw *w, size_t node, trace_time t)
{
	size_t k, kept;

	w->fail[w->nfail % LW_NFAIL] = t;
	w->nfail++;
	kept = w->nfail < LW_NFAIL ? w->nfail : LW_NFAIL;
	for (k = 1; k < kept; k++) {
		trace_time *a = &w->fail[(w->nfail - k) % LW_NFAIL];
		trace_time *b = &w->fail[(w->nfail - k - 1) % LW_NFAIL];
		trace_time x;

		if (*b <= *a)
			break;
		x = *a, *a = *b, *b = x;
	}
	change(w, LW_FAIL, node, NULL);
}

static void
failure(struct lw *w, size_t node)
{
	failure_at(w, node, w->now.t);
}

/* Bounds the ends of node I's running spans by its clock, and keeps it
 * in the list of nodes with a running span. */
static void
track(struct lw *w, size_t i)
{
	struct lw_node *n = &w->node[i];
	struct lw_span *s[2] = { &n->lead, &n->grant };
	size_t k;

	for (k = 0; k < 2; k++)
		if (s[k]->on)
			expiry(&n->clk, s[k]->until, &s[k]->elo, &s[k]->ehi,
			    &s[k]->enom);
	if (n->live)
		return;
	if (w->nlive == w->livecap) {
		size_t *l = array_grow(w->live, &w->livecap, sizeof(*l));

		if (l == NULL) {
			w->nomem = 1;
			return;
		}
		w->live = l;
	}
	w->live[w->nlive++] = i;
	n->live = 1;
}

static void
untrack(struct lw *w, size_t i)
{
	struct lw_node *n = &w->node[i];
	size_t j;

	if (!n->live || n->lead.on || n->grant.on)
		return;
	for (j = 0; w->live[j] != i; j++)
		;
	w->live[j] = w->live[--w->nlive];
	n->live = 0;
}

static struct lw_span *
span_of(struct lw *w, size_t i, int grant)
{
	return grant ? &w->node[i].grant : &w->node[i].lead;
}

static void
end_span(struct lw *w, size_t i, int grant, struct inst lo, struct inst hi,
    trace_time nominal, enum lw_why why)
{
	struct lw_span *s = span_of(w, i, grant);

	s->on = 0;
	s->lo = lo;
	s->hi = inst_max(lo, hi);
	s->nominal = nominal;
	s->why = why;
	change(w, grant ? LW_GRANT_END : LW_LEAD_END, i, s);
	untrack(w, i);
}

/* A line ends the span, which held at least until FROM and at most
 * through the line, unless the clock ended it before. */
static void
end_by_line(struct lw *w, size_t i, int grant, struct inst from,
    enum lw_why why)
{
	struct lw_span *s = span_of(w, i, grant);

	if (s->ehi <= from.t)
		why = LW_LAPSE;		/* the clock ran out before */
	/* Its nominal end is the earliest the line allows: after a boot
	 * without a crash, the old process's last line, not the boot. */
	end_span(w, i, grant, inst_min(from, inst_make(s->elo, 0)),
	    inst_min(inst_after(w->now), inst_make(s->ehi, 0)),
	    s->enom < from.t ? s->enom : from.t, why);
}

/* Node I's clock read C now.  BOUND: the ends of its running spans are
 * bounded by it here (renew() does that itself, once it moved them). */
static void
sample(struct lw *w, size_t i, trace_time c, int bound)
{
	struct lw_node *n = &w->node[i];
	size_t k;

	for (k = 0; n->clk.have && k < 2; k++) {
		struct lw_span *s = span_of(w, i, (int)k);
		trace_time x;

		if (!s->on)
			continue;
		if (c < n->clk.c)
			end_by_line(w, i, (int)k, inst_after(n->last),
			    LW_CLOCK);
		else if (s->until <= c && n->clk.t < w->now.t) {
			x = interpolate(&n->clk, w->now.t, c, s->until);
			end_span(w, i, (int)k, inst_make(x, 0),
			    inst_make(x, 0), x, LW_LAPSE);
		} else if (s->until <= c)	/* two samples of one time */
			end_span(w, i, (int)k, inst_after(n->clk.at), w->now,
			    w->now.t, LW_LAPSE);
	}
	n->clk.have = 1;
	n->clk.t = w->now.t;
	n->clk.c = c;
	n->clk.at = w->now;
	if (bound && n->live)
		track(w, i);
	change(w, LW_SAMPLE, i, NULL);
}

static void
start_span(struct lw *w, size_t i, int grant, const struct trace_event *ev)
{
	struct lw_span *s = span_of(w, i, grant);

	s->on = 1;
	s->gen++;
	s->a = w->now;
	s->until = ev->until;
	s->to = grant ? ev->to : 0;
	s->ext = ev->until - ev->clock;
	s->epoch = (ev->have & HAVE_EPOCH) ? ev->epoch : w->node[i].epoch;
	change(w, grant ? LW_GRANT_START : LW_LEAD_START, i, s);
	track(w, i);
}

static void
renew_span(struct lw *w, size_t i, int grant, const struct trace_event *ev)
{
	struct lw_span *s = span_of(w, i, grant);

	s->until = ev->until;
	s->ext = ev->until - ev->clock;
	change(w, grant ? LW_GRANT_RENEW : LW_LEAD_RENEW, i, s);
	track(w, i);
}

/* A renew line: the routine renewals it stands for moved every running
 * span of the node D later; a grant to another node's says the clock.
 * No checker acts on a renewal itself (a deadline that moves later ends
 * nothing), so none is recorded as a change. */
static void
renew(struct lw *w, size_t i, const struct trace_event *ev)
{
	struct lw_node *n = &w->node[i];
	trace_time d = (trace_time)ev->d;
	size_t k;

	if (n->grant.on && n->grant.to != n->id)
		sample(w, i, time_add(time_add(n->grant.until, d),
		    -n->grant.ext), 0);
	for (k = 0; k < 2; k++) {
		struct lw_span *s = span_of(w, i, (int)k);

		if (!s->on)
			continue;
		s->until = time_add(s->until, d);
	}
	if (n->lead.on || n->grant.on)
		track(w, i);
}

/* A renew name=* line, in a named leadership's world (the default one's
 * takes none): the round renewed the node's leadership, or with to= its
 * grant if to that node, D later.  No sample: the named grants a round
 * moves were set at different times, each with a length of its own. */
static void
renew_names(struct lw *w, size_t i, const struct trace_event *ev)
{
	struct lw_node *n = &w->node[i];
	struct lw_span *s = (ev->have & HAVE_TO) ? &n->grant : &n->lead;

	if (!s->on || ((ev->have & HAVE_TO) && s->to != ev->to))
		return;
	s->until = time_add(s->until, (trace_time)ev->d);
	track(w, i);
}

static void
release(struct lw *w, size_t i, int grant)
{
	end_span(w, i, grant, w->now, w->now, w->now.t, LW_RELEASE);
}

static void
lead(struct lw *w, size_t i, const struct trace_event *ev)
{
	int leads = ev->until > ev->clock;

	/* A leadership begun while vetoed is not one (elect-trace(5),
	 * misfit); one that runs goes on to its end as the core has it. */
	if (w->node[i].vetoed && !w->node[i].lead.on)
		return;
	if (w->node[i].lead.on) {
		if (leads)
			renew_span(w, i, 0, ev);
		else
			release(w, i, 0);
	} else if (leads)
		start_span(w, i, 0, ev);
}

static void
grant(struct lw *w, size_t i, const struct trace_event *ev)
{
	struct lw_span *s = &w->node[i].grant;
	int grants = ev->op == OP_GRANT && ev->until > ev->clock;

	if (s->on && s->to == ev->to) {
		if (grants)
			renew_span(w, i, 1, ev);
		else
			release(w, i, 1);
		return;
	}
	if (ev->op != OP_GRANT)
		return;		/* a release of what it does not grant */
	if (s->on)
		end_span(w, i, 1, w->now, w->now, w->now.t, LW_REPLACED);
	if (grants)
		start_span(w, i, 1, ev);
}

static void
set_up(struct lw *w, size_t i, int up, int paused)
{
	struct lw_node *n = &w->node[i];

	if (n->up && !n->paused)
		w->running--;
	n->up = up;
	n->paused = paused;
	if (n->up && !n->paused)
		w->running++;
}

static void
net(struct lw *w, const struct trace_event *ev)
{
	struct lw_link key, *l;

	key.a = ev->a < ev->b ? ev->a : ev->b;
	key.b = ev->a < ev->b ? ev->b : ev->a;
	if ((l = RB_FIND(lw_links, &w->links, &key)) == NULL) {
		if ((l = calloc(1, sizeof(*l))) == NULL) {
			w->nomem = 1;
			return;
		}
		*l = key;
		l->link = LINK_UP;
		RB_INSERT(lw_links, &w->links, l);
	}
	if (l->link != LINK_UP)
		w->badlinks--;
	l->link = ev->link;
	if (l->link != LINK_UP)
		w->badlinks++;
	failure(w, LW_NONE);
}

static long
node_index(struct lw *w, unsigned id)
{
	long i = idmap_find(&w->ids, id);

	if (i != -1)
		return i;
	if (w->ids.n == w->nalloc) {
		struct lw_node *p;

		if ((p = array_grow(w->node, &w->nalloc, sizeof(*p))) == NULL) {
			w->nomem = 1;
			return -1;
		}
		w->node = p;
	}
	if ((i = idmap_new(&w->ids, id)) == -1) {
		w->nomem = 1;
		return -1;
	}
	w->node[i].id = id;
	return i;
}

static int
level_compact(const struct trace_event *ev)
{
	const struct trace_str *v = trace_get(ev, "level");

	return v != NULL && trace_str_eq(*v, "compact");
}

/* Boots, crashes, pauses: who is up, and the leaders that stop. */
static void
life(struct lw *w, size_t i, const struct trace_event *ev)
{
	struct lw_node *n = &w->node[i];

	switch (ev->type) {
	case TR_BOOT:
		/* A boot without a crash: the old process died unseen, after
		 * its last line (a compact node's, perhaps much after). */
		if (n->lead.on)
			end_by_line(w, i, 0, n->compact ? w->now :
			    inst_after(n->last), LW_DOWN);
		n->compact = level_compact(ev);
		if ((ev->have & HAVE_NODES) && ev->nodes > w->boot_nodes)
			w->boot_nodes = ev->nodes;
		n->epoch = ev->epoch;
		n->vetoed = 0;
		if ((ev->have & HAVE_EPOCH) && (ev->have & HAVE_NODES))
			epoch_size(w, ev->epoch, ev->nodes);
		set_up(w, i, 1, 0);
		break;
	case TR_CRASH:
	case TR_EXIT:
		/* A crash a Dead proves: by its time, and perhaps just
		 * after the node's last line that showed it running. */
		if (n->lead.on)
			end_by_line(w, i, 0, (ev->have & CHECK_HAVE_DEAD) &&
			    !n->compact ? inst_after(n->alive) : w->now,
			    LW_DOWN);
		set_up(w, i, 0, 0);
		break;
	case TR_PAUSE:
	case TR_RESUME:
		set_up(w, i, n->up, ev->type == TR_PAUSE);
		break;
	default:
		/* A line the node wrote itself: it is up. */
		if (n->up || !CHECK_SHOWS_UP(ev))
			return;
		set_up(w, i, 1, 0);
		break;
	}
	failure(w, i);
}

static void
take(struct lw *w, const struct trace_event *ev)
{
	long i;

	w->nch = 0;
	w->lines++;
	w->now = inst_line(ev->t > w->now.t ? ev->t : w->now.t, w->lines);
	if (!w->started) {
		w->started = 1;
		failure(w, LW_NONE);
	}
	w->msg_new = 0;
	if (w->world != NULL && w->world->msgs.fail > w->msg_fail &&
	    w->started) {
		w->msg_fail = w->world->msgs.fail;
		w->msg_new = 1;
		failure_at(w, LW_NONE, w->msg_fail);
	}
	if (ev->node == 0) {
		if (ev->type == TR_NET)
			net(w, ev);
		return;
	}
	if ((i = node_index(w, ev->node)) == -1)
		return;
	if (!w->node[i].seen) {
		w->node[i].seen = 1;
		w->seen++;
	}
	life(w, (size_t)i, ev);
	switch (ev->type) {
	case TR_CLOCK:
	case TR_EDICT:
	case TR_EPOCH:
		sample(w, (size_t)i, ev->clock, 1);
		break;
	case TR_LEAD:
		sample(w, (size_t)i, ev->clock, 1);
		lead(w, (size_t)i, ev);
		break;
	case TR_LEASE:
		sample(w, (size_t)i, ev->clock, 1);
		grant(w, (size_t)i, ev);
		break;
	case TR_RENEW:
		w->node[i].compact = 1;
		if (ev->have & HAVE_ALLNAMES)
			renew_names(w, (size_t)i, ev);
		else
			renew(w, (size_t)i, ev);
		break;
	case TR_MISFIT:
		w->node[i].vetoed = ev->lead.p[0] == 'n';
		break;
	default:
		break;
	}
	w->node[i].last = w->now;
	if (CHECK_SHOWS_UP(ev) && ev->type != TR_CRASH && ev->type != TR_EXIT)
		w->node[i].alive = w->now;
}

/*
 * W, made for a leadership first named now, takes from SRC what the host
 * lines said: who is up or paused, the clocks, epochs, sizes, vetoes and
 * levels, the links and the failures; not a span, which a leadership's
 * own lines start.  Its instants go on from SRC's, so that those it
 * takes compare with its own.
 */
static int
model_hosts(void *dst, const void *from)
{
	struct lw *w = dst;
	const struct lw *src = from;
	struct lw_link *l;
	struct lw_link *c;
	size_t i;
	long k;

	assert(w->ids.n == 0 && w->lines == 0);
	for (i = 0; i < src->ids.n; i++) {
		const struct lw_node *sn = &src->node[i];
		struct lw_node *n;

		if ((k = node_index(w, sn->id)) == -1)
			return -1;
		n = &w->node[k];
		set_up(w, (size_t)k, sn->up, sn->paused);
		n->seen = sn->seen;
		n->last = sn->last;
		n->alive = sn->alive;
		n->clk = sn->clk;
		n->epoch = sn->epoch;
		n->vetoed = sn->vetoed;
		n->compact = sn->compact;
	}
	w->seen = src->seen;
	w->boot_nodes = src->boot_nodes;
	for (i = 0; i < src->nesz; i++)
		epoch_size(w, src->esz[i].epoch, src->esz[i].n);
	RB_FOREACH(l, lw_links, (struct lw_links *)&src->links) {
		if ((c = calloc(1, sizeof(*c))) == NULL)
			return -1;
		c->a = l->a;
		c->b = l->b;
		c->link = l->link;
		RB_INSERT(lw_links, &w->links, c);
	}
	w->badlinks = src->badlinks;
	memcpy(w->fail, src->fail, sizeof(w->fail));
	w->nfail = src->nfail;
	w->msg_fail = src->msg_fail;
	w->started = src->started;
	w->lines = src->lines;
	w->now = src->now;
	return w->nomem ? -1 : 0;
}

/* Applies one line. */
static void
lw_event(struct lw *w, const struct trace_event *ev)
{
	int moved = ev->t > w->now.t;

	take(w, ev);
	w->quiet = !moved && w->nch == 0;
}
