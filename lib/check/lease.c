/*
 * Nerio's safety of leaderships: Leader Uniqueness (1) and invariant (14).
 *
 * uniqueness: at no time do two nodes lead.  With a skew bound S a
 * leadership of one node is compared with another's shifted anywhere in
 * [-S, S], and an overlap is reported only when it survives every shift:
 * q's start plus S before p's end, and p's start plus S before q's.  Ends
 * are taken at their earliest (lw_end's lo: the drift bound past the last
 * sample, or a crash that a line still to come might show), so an overlap
 * is reported at the line from which no ordering, drift within the bound
 * or line still to come can undo it.  A leadership's end is only ruled
 * out by a line of its node, since a later sample may show a slow clock.
 *
 * lease-quorum: while a node leads, a majority of the cluster grants it a
 * lease (A_q = p and C_q < F_q), on the grantors' clocks.  Grants count
 * as long as they could last (lw_end's hi) and, for other nodes than the
 * leader, widened by S on both sides; a lack of quorum is reported once
 * no line still to come could fill it in: one stamped later than S after
 * it, since a grant stamped with the leadership it supports counts from
 * before that leadership.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "check/lease.h"

/* Leaderships compared for an overlap not yet certain nor ruled out. */
struct uside {
	size_t		 node;
	uint64_t	 gen;
	struct inst	 a;
	int		 ended;
	struct inst	 lo, hi;
	trace_time	 nominal;
};

struct upair {
	struct uside	 s[2];		/* s[1] started later */
};

struct uniq {
	struct lw	*w;
	struct upair	*pair;
	size_t		 npair, cap;
};

static void *
uniq_init(const struct check_opts *o)
{
	struct uniq *u;

	if ((u = calloc(1, sizeof(*u))) != NULL)
		u->w = o->model;
	return u;
}

static void
uniq_free(void *arg)
{
	struct uniq *u = arg;

	free(u->pair);
	free(u);
}

static void
uniq_finish(void *arg, const struct trace_event *last, struct check_out *out)
{
	struct uniq *u = arg;

	lw_finish(u->w, last, out);
}

/* Bounds on the end of a side; a running one is not ruled out before a
 * line of its node ends it, whatever the drift bound says. */
static void
side_end(const struct uniq *u, const struct uside *s, struct inst *lo,
    struct inst *hi)
{
	const struct lw_node *n = &u->w->node[s->node];

	if (s->ended) {
		*lo = s->lo;
		*hi = s->hi;
		return;
	}
	lw_end(u->w, n, &n->lead, lo, hi);
	*hi = inst_make(TIME_MAX, INST_LAST);
}

static trace_time
side_nominal(const struct uniq *u, const struct uside *s)
{
	const struct lw_node *n = &u->w->node[s->node];

	return s->ended ? s->nominal : lw_nominal(n, &n->lead);
}

/* 1: the overlap is certain; -1: it cannot become so; 0: not yet known. */
static int
overlap(const struct uniq *u, const struct upair *p)
{
	struct inst lo0, hi0, lo1, hi1, a0, a1;

	side_end(u, &p->s[0], &lo0, &hi0);
	side_end(u, &p->s[1], &lo1, &hi1);
	a0 = inst_late(p->s[0].a, u->w->skew);
	a1 = inst_late(p->s[1].a, u->w->skew);
	if (inst_lt(a1, lo0) && inst_lt(a0, lo1))
		return 1;
	/* The earliest end of a side that is over stays where it is; no
	 * overlap can be certain past the latest end of either. */
	if ((p->s[0].ended && !inst_lt(a1, lo0)) ||
	    (p->s[1].ended && !inst_lt(a0, lo1)) || !inst_lt(a1, hi0) ||
	    !inst_lt(a0, hi1))
		return -1;
	return 0;
}

/* A pair for the leaderships of P and of Q, which has just begun. */
static void
uniq_pair(struct uniq *u, size_t p, size_t q)
{
	struct upair *x;

	if (u->npair == u->cap) {
		if ((x = array_grow(u->pair, &u->cap, sizeof(*x))) == NULL) {
			u->w->nomem = 1;
			return;
		}
		u->pair = x;
	}
	x = &u->pair[u->npair++];
	memset(x, 0, sizeof(*x));
	x->s[0].node = p;
	x->s[0].gen = u->w->node[p].lead.gen;
	x->s[0].a = u->w->node[p].lead.a;
	x->s[1].node = q;
	x->s[1].gen = u->w->node[q].lead.gen;
	x->s[1].a = u->w->node[q].lead.a;
}

static void
uniq_report(struct uniq *u, const struct upair *p,
    const struct trace_event *ev, struct check_out *out)
{
	char b[4][TIME_BUFLEN];

	check_violation(out, ev, "nodes %u and %u both lead: %u from %s "
	    "until %s, %u from %s until %s", u->w->node[p->s[0].node].id,
	    u->w->node[p->s[1].node].id, u->w->node[p->s[0].node].id,
	    time_str(b[0], p->s[0].a.t), time_str(b[1], side_nominal(u,
	    &p->s[0])), u->w->node[p->s[1].node].id, time_str(b[2],
	    p->s[1].a.t), time_str(b[3], side_nominal(u, &p->s[1])));
}

static void
uniq_event(void *arg, const struct trace_event *ev, struct check_out *out)
{
	struct uniq *u = arg;
	size_t c, j, k;

	if (u->w->quiet)
		return;
	for (c = 0; c < u->w->nch; c++) {
		const struct lw_change *ch = &u->w->ch[c];

		if (ch->what == LW_LEAD_END) {
			for (j = 0; j < u->npair; j++)
				for (k = 0; k < 2; k++) {
					struct uside *s = &u->pair[j].s[k];

					if (s->node != ch->node ||
					    s->gen != ch->span.gen)
						continue;
					s->ended = 1;
					s->lo = ch->span.lo;
					s->hi = ch->span.hi;
					s->nominal = ch->span.nominal;
				}
		} else if (ch->what == LW_LEAD_START) {
			for (j = 0; j < u->w->nlive; j++) {
				size_t p = u->w->live[j];

				if (p != ch->node && u->w->node[p].lead.on)
					uniq_pair(u, p, ch->node);
			}
		}
	}
	for (j = 0; j < u->npair; ) {
		int r = overlap(u, &u->pair[j]);

		if (r == 1)
			uniq_report(u, &u->pair[j], ev, out);
		if (r != 0)
			u->pair[j] = u->pair[--u->npair];
		else
			j++;
	}
	/* Without a pair, a calm line has nothing to judge. */
	check_calm(out, u->npair == 0 ? TIME_MAX : TIME_MIN);
}

const struct check_ops check_uniqueness = {
	.name = "uniqueness",
	.init = uniq_init,
	.event = uniq_event,
	.finish = uniq_finish,
	.free = uniq_free,
	.model = &lw_model,
	.per_name = 1,
};

/*
 * lease-quorum.  For each leadership, the instants up to chk are known to
 * have had a quorum of grants; no instant before d lacks one, as far as
 * the grants seen so far say.  A grant stamped at the same time as the
 * leadership it supports is taken to come first (causally it does), so
 * the instants of the current time are only judged once a later time is
 * seen, or at the end; a grant to a leadership begun earlier holds from
 * just after its line.  A grantor's ended grants are kept for as long as
 * a leadership may still be checked against them (a skew bound's worth
 * of time): a few of them, the older ones merged into one that counts
 * for every grantee, which can only hide a lack.
 */
#define QRUNS	4

struct qrun {
	unsigned	 to;		/* 0: any grantee */
	struct inst	 g, h;		/* the grant's line, its latest end */
	uint64_t	 epoch;		/* QANY: any epoch */
};

#define QANY	UINT64_MAX

struct qregion {
	int		 on;
	uint64_t	 gen;
	struct inst	 a;		/* its lead line */
	int		 ended;
	struct inst	 end;		/* earliest end, once ended */
	struct inst	 chk;
	int		 dvalid;
	struct inst	 d;		/* no lack before it */
	uint64_t	 epoch;		/* grants of this epoch count */
};

struct qnode {
	struct qrun	 old[QRUNS];
	size_t		 nold;
	int		 wild;
	struct qrun	 any;		/* older grants, merged */
	struct qregion	*r;		/* its leaderships to check, oldest first */
	size_t		 nr, rcap;
	int		 listed;	/* in quorum.act */
};

struct quorum {
	struct lw	*w;
	struct qnode	*n;
	size_t		 cap;
	struct inst	*ends;
	size_t		 endcap;
	size_t		*act;		/* leaders with regions to check */
	size_t		 nact, actcap;
	unsigned	 need;		/* the quorum the d were found for */
	struct inst	 next;		/* no leadership lacks a quorum before */
};

static void *
quorum_init(const struct check_opts *o)
{
	struct quorum *q;

	if ((q = calloc(1, sizeof(*q))) != NULL) {
		q->w = o->model;
		q->next = inst_make(TIME_MIN, 0);
	}
	return q;
}

static void
quorum_free(void *arg)
{
	struct quorum *q = arg;
	size_t i;

	for (i = 0; i < q->cap; i++)
		free(q->n[i].r);
	free(q->n);
	free(q->ends);
	free(q->act);
	free(q);
}

/* Whether grant run R of grantor J covers T for the leadership of P that
 * began at A; *U its end. */
static int
run_covers(const struct quorum *q, const struct qrun *r, size_t j, size_t p,
    struct inst a, uint64_t e, struct inst t, struct inst *u)
{
	trace_time skew = j == p ? 0 : q->w->skew;
	struct inst from, to;

	if (r->to != 0 && r->to != q->w->node[p].id)
		return 0;
	if (r->epoch != QANY && r->epoch != e)	/* another epoch's grant */
		return 0;
	if (skew != 0)
		from = inst_early(r->g, skew);
	else if (a.t < r->g.t)
		from = inst_after(r->g);
	else
		from = inst_make(r->g.t, 0);	/* it came first */
	to = inst_late(r->h, skew);
	if (inst_lt(t, from) || !inst_lt(t, to))
		return 0;
	*u = inst_max(*u, to);
	return 1;
}

/* Whether J grants to P's leadership of epoch E begun at A at T, and
 * until when at least (*U). */
static int
grants(const struct quorum *q, size_t j, size_t p, struct inst a,
    uint64_t e, struct inst t, struct inst *u)
{
	const struct lw_node *n = &q->w->node[j];
	const struct qnode *x = &q->n[j];
	struct qrun r;
	struct inst lo;
	int yes = 0;
	size_t k;

	*u = t;
	if (n->grant.gen > 0) {
		r.to = n->grant.to;
		r.g = n->grant.a;
		r.epoch = n->grant.epoch;
		lw_end(q->w, n, &n->grant, &lo, &r.h);
		yes |= run_covers(q, &r, j, p, a, e, t, u);
	}
	for (k = 0; k < x->nold; k++)
		yes |= run_covers(q, &x->old[k], j, p, a, e, t, u);
	if (x->wild)
		yes |= run_covers(q, &x->any, j, p, a, e, t, u);
	return yes;
}

/*
 * The K-th latest (from 0) of the N instants in A, which it reorders:
 * Hoare's selection (Wirth's form), linear on average.  A quorum of a
 * hundred nodes made sorting them by insertion most of the checker's time.
 */
static struct inst
kth_latest(struct inst *a, size_t n, size_t k)
{
	long l = 0, r = (long)n - 1, i, j, kk = (long)k;

	assert(k < n);
	while (l < r) {
		struct inst x = a[kk], y;

		i = l;
		j = r;
		do {
			while (inst_lt(x, a[i]))
				i++;
			while (inst_lt(a[j], x))
				j--;
			if (i <= j) {
				y = a[i];
				a[i++] = a[j];
				a[j--] = y;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			r = j;
	}
	return a[k];
}

/* The earliest instant from FROM on at which fewer than a quorum grant to
 * P's leadership begun at A, as far as is known; *COUNT how many grant
 * then. */
static struct inst
deficit(struct quorum *q, size_t p, struct inst a, uint64_t e,
    struct inst from, unsigned *count)
{
	unsigned need = lw_quorum_of(q->w, e);
	struct inst t = from, u;
	size_t j, iter, nn = q->w->ids.n;

	if (q->endcap < nn) {
		struct inst *ends = reallocarray(q->ends, nn, sizeof(*ends));

		if (ends == NULL) {
			q->w->nomem = 1;
			*count = need;
			return inst_make(TIME_MAX, INST_LAST);
		}
		q->ends = ends;
		q->endcap = nn;
	}
	for (iter = 0; iter <= nn * (QRUNS + 3); iter++) {
		size_t c = 0;

		for (j = 0; j < nn; j++)
			if (grants(q, j, p, a, e, t, &u))
				q->ends[c++] = u;
		if (c < need) {
			*count = (unsigned)c;
			return t;
		}
		/* The quorum holds until all but need-1 of them have ended. */
		u = kth_latest(q->ends, c, need - 1);
		if (!inst_lt(t, u))
			break;
		t = u;
	}
	*count = need;
	return inst_make(TIME_MAX, INST_LAST);
}

static int
quorum_grow(struct quorum *q)
{
	while (q->cap < q->w->ids.n) {
		struct qnode *n = array_grow(q->n, &q->cap, sizeof(*n));

		if (n == NULL) {
			q->w->nomem = 1;
			return -1;
		}
		q->n = n;
	}
	return 0;
}

/*
 * Grantor J's grant to TO (0: any leader) now ends at the latest at H.
 * Where that is before a leader's earliest lack of quorum, the lack may
 * come earlier, but not before H: d stays a bound below it, which
 * quorum_check() makes exact before it reports.  (Grants that start or
 * last longer can only put a lack off.)  A sample may show that a grant
 * counted for as long as the drift bound allowed ended before the time
 * judged so far: that time is judged again from H on.
 */
static void
shortened(struct quorum *q, size_t j, unsigned to, struct inst h)
{
	size_t k, i, p;

	for (k = 0; k < q->nact; k++) {
		struct qnode *x = &q->n[p = q->act[k]];
		struct inst end = p == j ? h : inst_late(h, q->w->skew);

		if (to != 0 && q->w->node[p].id != to)
			continue;
		for (i = 0; i < x->nr; i++) {
			struct qregion *r = &x->r[i];

			if (r->dvalid && inst_lt(end, r->d))
				r->d = end;
			if (inst_lt(end, r->chk))
				r->chk = inst_max(end, inst_after(r->a));
		}
		q->next = inst_min(q->next, end);
	}
}

static void
keep_run(struct quorum *q, const struct lw_change *ch)
{
	struct qnode *x = &q->n[ch->node];
	struct qrun r = { ch->span.to, ch->span.a, ch->span.hi,
	    ch->span.epoch };

	if (x->nold == QRUNS) {
		struct qrun *o = &x->old[0];

		if (!x->wild)
			x->any = *o;
		x->any.to = 0;
		if (x->any.epoch != o->epoch)
			x->any.epoch = QANY;
		x->any.g = inst_min(x->any.g, o->g);
		x->any.h = inst_max(x->any.h, o->h);
		x->wild = 1;
		memmove(x->old, x->old + 1, (QRUNS - 1) * sizeof(*x->old));
		x->nold--;
	}
	x->old[x->nold++] = r;
}

static void
quorum_change(struct quorum *q, const struct lw_change *ch)
{
	struct qnode *x;
	const struct lw_node *n;
	size_t j;

	if (ch->node == LW_NONE)
		return;
	x = &q->n[ch->node];
	n = &q->w->node[ch->node];
	switch (ch->what) {
	case LW_LEAD_START:
		if (x->nr == x->rcap) {
			struct qregion *r = array_grow(x->r, &x->rcap,
			    sizeof(*r));

			if (r == NULL) {
				q->w->nomem = 1;
				break;
			}
			x->r = r;
		}
		memset(&x->r[x->nr], 0, sizeof(x->r[x->nr]));
		q->next = inst_make(TIME_MIN, 0);
		x->r[x->nr].on = 1;
		x->r[x->nr].gen = ch->span.gen;
		x->r[x->nr].epoch = ch->span.epoch;
		x->r[x->nr].a = ch->span.a;
		x->r[x->nr++].chk = inst_after(ch->span.a);
		if (x->listed)
			break;
		if (q->nact == q->actcap) {
			size_t *a = array_grow(q->act, &q->actcap,
			    sizeof(*a));

			if (a == NULL) {
				q->w->nomem = 1;
				break;
			}
			q->act = a;
		}
		q->act[q->nact++] = ch->node;
		x->listed = 1;
		break;
	case LW_LEAD_END:
		for (j = 0; j < x->nr; j++)
			if (x->r[j].gen == ch->span.gen) {
				x->r[j].ended = 1;
				x->r[j].end = ch->span.lo;
			}
		break;
	case LW_GRANT_END:
		keep_run(q, ch);
		shortened(q, ch->node, ch->span.to, ch->span.hi);
		break;
	case LW_SAMPLE:
		/* The grant it gives may end at another time now. */
		if (n->grant.on)
			shortened(q, ch->node, n->grant.to,
			    inst_make(n->grant.ehi, 0));
		break;
	default:
		break;
	}
}

static void
quorum_check(struct quorum *q, size_t p, struct qregion *r, struct inst h,
    const struct trace_event *ev, struct check_out *out)
{
	const struct lw_node *n = &q->w->node[p];
	struct inst limit, hi;
	unsigned count;
	char b[TIME_BUFLEN];

	if (r->ended)
		limit = r->end;
	else
		lw_end(q->w, n, &n->lead, &limit, &hi);
	limit = inst_min(limit, h);
	if (!inst_lt(r->chk, limit))
		goto out;
	/* Grants may have been renewed since d was found, or d may be a
	 * bound below a lack: look again before saying so. */
	if (!r->dvalid || inst_lt(r->d, limit)) {
		r->d = deficit(q, p, r->a, r->epoch, r->chk, &count);
		r->dvalid = 1;
	}
	if (inst_lt(r->d, limit)) {
		check_violation(out, ev, "node %u leads at %s while at most %u "
		    "of %u node%s grant it a lease, %u needed", n->id,
		    time_str(b, r->d.t), count, lw_size_of(q->w, r->epoch),
		    PLURAL(lw_size_of(q->w, r->epoch)),
		    lw_quorum_of(q->w, r->epoch));
		r->on = 0;
		return;
	}
	r->chk = limit;
out:
	if (r->ended && !inst_lt(r->chk, r->end))
		r->on = 0;
}

/* Checks every leadership up to H, what no line still to come can change;
 * leaders whose leaderships are all judged leave the list.  Until H
 * reaches the earliest lack any of them may have, there is nothing to do. */
static void
quorum_judge(struct quorum *q, struct inst h, const struct trace_event *ev,
    struct check_out *out)
{
	size_t i, j, k;

	q->next = inst_make(TIME_MAX, INST_LAST);
	for (j = 0; j < q->nact; ) {
		struct qnode *x = &q->n[q->act[j]];

		/* The latest first; those judged leave, the others keep
		 * their order. */
		for (i = x->nr; i-- > 0; )
			quorum_check(q, q->act[j], &x->r[i], h, ev, out);
		for (i = k = 0; i < x->nr; i++) {
			if (!x->r[i].on)
				continue;
			q->next = inst_min(q->next, x->r[i].dvalid ?
			    x->r[i].d : inst_make(TIME_MIN, 0));
			if (k++ != i)
				x->r[k - 1] = x->r[i];
		}
		x->nr = k;
		if (x->nr == 0) {
			x->listed = 0;
			q->act[j] = q->act[--q->nact];
		} else
			j++;
	}
}

static void
quorum_event(void *arg, const struct trace_event *ev, struct check_out *out)
{
	struct quorum *q = arg;
	struct inst h;
	size_t c, i, j;

	if (q->w->quiet || quorum_grow(q) == -1)
		return;
	for (c = 0; c < q->w->nch; c++)
		quorum_change(q, &q->w->ch[c]);
	/* A larger cluster needs a larger quorum: every lack is to be
	 * found again. */
	if (q->need != lw_quorum(q->w) + q->w->esz_gen) {
		q->need = lw_quorum(q->w) + q->w->esz_gen;
		q->next = inst_make(TIME_MIN, 0);
		for (j = 0; j < q->nact; j++)
			for (i = 0; i < q->n[q->act[j]].nr; i++)
				q->n[q->act[j]].r[i].dvalid = 0;
	}
	/* A grant line still to come covers from its time on, less the
	 * skew: the time before is settled. */
	h = inst_make(time_add(q->w->now.t, -q->w->skew), 0);
	if (!inst_lt(h, q->next))
		quorum_judge(q, h, ev, out);
}

static void
quorum_finish(void *arg, const struct trace_event *last,
    struct check_out *out)
{
	struct quorum *q = arg;

	/* No line is to come: all up to the end of the trace is settled. */
	quorum_judge(q, inst_make(q->w->now.t, q->w->now.s + 2), last, out);
	lw_finish(q->w, last, out);
}

const struct check_ops check_lease_quorum = {
	.name = "lease-quorum",
	.init = quorum_init,
	.event = quorum_event,
	.finish = quorum_finish,
	.free = quorum_free,
	.model = &lw_model,
	.per_name = 1,
};
