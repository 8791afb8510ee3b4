/*
 * From events to what is drawn: items of the window, lanes, and sends
 * matched with their receipts (first unmatched send with the same sender,
 * receiver, type and election id: datagrams may be lost, rarely reordered).
 * A send pending when its receiver boots, crashes or exits was lost: a
 * later incarnation never receives it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "timeline/model.h"

#define AFTER_WINDOW	TRACE_NS	/* receipts still matched after it */

struct pending {
	uint32_t	 key;		/* from << 16 | to; 0: free slot */
	size_t		*v;		/* send items, oldest first */
	size_t		 head, n, cap;
};

struct timeline *
tl_new(const struct tl_opts *o)
{
	struct timeline *tl;

	if ((tl = calloc(1, sizeof(*tl))) == NULL)
		return NULL;
	tl->o = *o;
	trace_dead_init(&tl->dead);
	return tl;
}

static const struct lane_state down = { .status = NO_STATUS };

/* Room for node ID in the tables indexed by node. */
static int
grow(struct timeline *tl, unsigned id)
{
	struct lane_state *ns;
	size_t old = tl->state != NULL ? (size_t)tl->maxid + 1 : 0, cap, i;
	int *nl;

	if (id < old)
		return 0;
	cap = id < 64 ? 64 : (size_t)id * 2;
	if (cap > TRACE_NODE_MAX + 1)
		cap = TRACE_NODE_MAX + 1;
	if ((ns = reallocarray(tl->state, cap, sizeof(*ns))) == NULL)
		return -1;
	tl->state = ns;
	if ((nl = reallocarray(tl->lane_of, cap, sizeof(*nl))) == NULL)
		return -1;
	tl->lane_of = nl;
	for (i = old; i < cap; i++) {
		tl->state[i] = down;
		tl->lane_of[i] = -1;
	}
	tl->maxid = (unsigned)cap - 1;
	return 0;
}

int
tl_lane(const struct timeline *tl, unsigned id)
{
	return tl->state != NULL && id <= tl->maxid ? tl->lane_of[id] : -1;
}

void
tl_free(struct timeline *tl)
{
	size_t i;

	if (tl == NULL)
		return;
	trace_dead_free(&tl->dead);
	for (i = 0; i < tl->cappend; i++)
		free(tl->pend[i].v);
	free(tl->pend);
	free(tl->state);
	free(tl->snap);
	free(tl->lanes);
	free(tl->lane_of);
	free(tl->items);
	free(tl->arena);
	free(tl->nstate);
	free(tl->nstate0);
	trace_names_free(tl->names);
	free(tl);
}

static int
drawn(const struct timeline *tl, unsigned node)
{
	return tl->o.nodes == NULL ||
	    (tl->o.nodes[node / 8] & (1u << (node % 8))) != 0;
}

static uint32_t
keep(struct timeline *tl, struct trace_str s)
{
	char *na;
	size_t cap;
	uint32_t off;

	if (s.n == 0)
		return 0;	/* nothing to keep: tl_str reads no arena */
	if (tl->arenalen + s.n > tl->arenacap) {
		cap = tl->arenacap ? tl->arenacap * 2 : 4096;
		while (cap < tl->arenalen + s.n)
			cap *= 2;
		if (cap > UINT32_MAX || (na = realloc(tl->arena, cap)) == NULL)
			return UINT32_MAX;
		tl->arena = na;
		tl->arenacap = cap;
	}
	memcpy(tl->arena + tl->arenalen, s.p, s.n);
	off = (uint32_t)tl->arenalen;
	tl->arenalen += s.n;
	return off;
}

const char *
tl_str(const struct timeline *tl, const struct tl_item *it, size_t *len)
{
	*len = it->labellen;
	return it->labellen ? tl->arena + it->label : "";
}

/* The slot of KEY in the table of pending sends, added if ADD. */
static struct pending *
pending(struct timeline *tl, uint32_t key, int add)
{
	struct pending *np;
	size_t i, cap;

	if (add && (tl->npend + 1) * 2 > tl->cappend) {
		cap = tl->cappend ? tl->cappend * 2 : 64;
		if ((np = calloc(cap, sizeof(*np))) == NULL)
			return NULL;
		for (i = 0; i < tl->cappend; i++) {
			size_t j = tl->pend[i].key * 2654435761u & (cap - 1);

			if (tl->pend[i].key == 0)
				continue;
			while (np[j].key != 0)
				j = (j + 1) & (cap - 1);
			np[j] = tl->pend[i];
		}
		free(tl->pend);
		tl->pend = np;
		tl->cappend = cap;
	}
	if (tl->cappend == 0)
		return NULL;
	for (i = key * 2654435761u & (tl->cappend - 1); tl->pend[i].key != 0;
	    i = (i + 1) & (tl->cappend - 1))
		if (tl->pend[i].key == key)
			return &tl->pend[i];
	if (!add)
		return NULL;
	tl->pend[i].key = key;
	tl->npend++;
	return &tl->pend[i];
}

static int
add_pending(struct timeline *tl, unsigned from, unsigned to, size_t item)
{
	struct pending *p;
	size_t *nv;

	if ((p = pending(tl, (uint32_t)from << 16 | to, 1)) == NULL)
		return -1;
	if (p->head > 0 && p->head == p->n)
		p->head = p->n = 0;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;

		if ((nv = reallocarray(p->v, cap, sizeof(*nv))) == NULL)
			return -1;
		p->v = nv;
		p->cap = cap;
	}
	p->v[p->n++] = item;
	tl->unmatched++;
	return 0;
}

/* Sends to NODE not received yet will never be: they stay unmatched. */
static void
forget_pending(struct timeline *tl, unsigned node)
{
	size_t i, k;

	for (i = 0; i < tl->cappend; i++) {
		struct pending *p = &tl->pend[i];

		if (p->key == 0 || (p->key & 0xffff) != node)
			continue;
		for (k = p->head; k < p->n; k++)
			if (p->v[k] != SIZE_MAX)
				tl->unmatched--;
		p->head = p->n = 0;
	}
}

/* Whether messages of type S are left out. */
static int
excluded(const struct timeline *tl, struct trace_str s)
{
	size_t i;

	for (i = 0; i < tl->o.nexcluded; i++)
		if (strlen(tl->o.excluded[i]) == s.n &&
		    memcmp(tl->o.excluded[i], s.p, s.n) == 0)
			return 1;
	return 0;
}

static int
same(const struct timeline *tl, const struct tl_item *it, struct trace_str s)
{
	return it->labellen == s.n &&
	    memcmp(tl->arena + it->label, s.p, s.n) == 0;
}

/* The send that EV (a recv) receives, marked as received; or NULL. */
static struct tl_item *
match(struct timeline *tl, const struct trace_event *ev)
{
	struct pending *p;
	size_t k;

	if ((p = pending(tl, (uint32_t)ev->from << 16 | ev->node, 0)) == NULL)
		return NULL;
	for (k = p->head; k < p->n; k++) {
		struct tl_item *s;

		if (p->v[k] == SIZE_MAX)
			continue;
		s = &tl->items[p->v[k]];
		if (!same(tl, s, ev->msg))
			continue;
		p->v[k] = SIZE_MAX;
		while (p->head < p->n && p->v[p->head] == SIZE_MAX)
			p->head++;
		tl->unmatched--;
		return s;
	}
	return NULL;
}

void
tl_apply(struct lane_state *s, const struct tl_item *it)
{
	/* A node's lane shows its default leadership; a named one's lines
	 * are drawn on it, its state in a row of its own. */
	if (it->name != 0 && it->type != TR_BOOT && it->type != TR_CRASH &&
	    it->type != TR_EXIT)
		return;
	switch (it->type) {
	case TR_BOOT:
		s->up = 1;
		s->status = NO_STATUS;
		s->ldr = 0;
		s->paused = 0;
		s->lease_end = 0;
		break;
	case TR_CRASH:
	case TR_EXIT:
		s->up = 0;
		s->status = NO_STATUS;
		s->paused = 0;
		s->lease_end = 0;
		break;
	case TR_PAUSE:
		s->paused = 1;
		break;
	case TR_RESUME:
		s->paused = 0;
		break;
	case TR_STATE:
		s->up = 1;
		s->status = it->status;
		s->ldr = it->ldr;
		break;
	case TR_LEAD:
		s->lease_end = it->t2;
		break;
	case TR_RENEW:	/* a compact renewal: of a running lease only */
		if (s->lease_end > it->t)
			s->lease_end = trace_time_add(s->lease_end, it->t2);
		break;
	default:
		break;
	}
}

/* A renewal by IT's node of X, if it holds X still. */
static void
renew_name(struct name_state *x, const struct tl_item *it)
{
	if (x->holder == it->node && x->end > it->t)
		x->end = trace_time_add(x->end, it->t2);
}

void
tl_apply_names(struct name_state *ns, size_t n, const struct tl_item *it)
{
	struct name_state *x;
	size_t k;

	if (it->name == 0) {
		if (it->type != TR_BOOT && it->type != TR_CRASH &&
		    it->type != TR_EXIT)
			return;
		for (k = 0; k < n; k++)
			if (ns[k].holder == it->node)
				ns[k].holder = 0;
		return;
	}
	if (it->name == TL_ALLNAMES) {
		/* A holder's round moves all it holds; a grantor's (to=)
		 * moves grants, which no row shows. */
		for (k = 0; it->type == TR_RENEW && it->peer == 0 && k < n;
		    k++)
			renew_name(&ns[k], it);
		return;
	}
	if ((size_t)it->name > n)
		return;
	x = &ns[it->name - 1];
	switch (it->type) {
	case TR_LEAD:
		if (it->t2 != 0) {
			x->holder = it->node;
			x->end = it->t2;
		} else if (x->holder == it->node)
			x->holder = 0;
		break;
	case TR_RENEW:
		renew_name(x, it);
		break;
	default:
		break;
	}
}

unsigned
tl_holder(const struct name_state *x, trace_time t)
{
	return x->holder != 0 && x->end > t ? x->holder : 0;
}

size_t
tl_names(const struct timeline *tl)
{
	return tl->nnames;
}

const char *
tl_name(const struct timeline *tl, size_t k)
{
	return trace_names_str(tl->names, (long)k + 1);
}

struct name_state *
tl_replay_names(const struct timeline *tl)
{
	struct name_state *ns;
	size_t i;

	if ((ns = calloc(tl->nnames ? tl->nnames : 1, sizeof(*ns))) == NULL)
		return NULL;
	for (i = 0; i < tl->nnames && i < tl->nnames0; i++)
		ns[i] = tl->nstate0[i];
	return ns;
}

/* The number of EV's leadership, with room for its state; -1 without
 * memory, -2 past TRACE_NAME_COUNT. */
static long
name_of(struct timeline *tl, const struct trace_event *ev)
{
	struct name_state *ns;
	long id;

	if (ev->have & HAVE_ALLNAMES)
		return TL_ALLNAMES;
	if (!(ev->have & HAVE_NAME))
		return 0;
	if (tl->names == NULL && (tl->names = trace_names_new()) == NULL)
		return -1;
	if ((id = trace_names_id(tl->names, ev)) == -1)
		return errno != 0 ? -1 : -2;
	if ((size_t)id > tl->nnames) {
		if ((ns = reallocarray(tl->nstate, (size_t)id,
		    sizeof(*ns))) == NULL)
			return -1;
		memset(ns + tl->nnames, 0, ((size_t)id - tl->nnames) *
		    sizeof(*ns));
		tl->nstate = ns;
		tl->nnames = (size_t)id;
	}
	return id;
}

int
tl_leading(const struct lane_state *s, unsigned node, trace_time t)
{
	if (!s->up)
		return 0;
	if (s->lease_end > t)
		return 1;
	return (s->status == ST_NORM || s->status == ST_REORG) &&
	    s->ldr == node;
}

/* Whether the window has begun at time T; sets it up if so. */
static int
window(struct timeline *tl, trace_time t)
{
	size_t i;

	if (!tl->started) {
		tl->started = 1;
		tl->first = t;
		if (tl->o.from_rel)
			tl->o.from = trace_time_add(t, tl->o.from);
		if (tl->o.to_rel)
			tl->o.to = trace_time_add(t, tl->o.to);
		tl->t0 = tl->o.has_from ? tl->o.from : t;
	}
	if (tl->in)
		return 1;
	if (tl->o.has_from && t < tl->o.from)
		return 0;
	tl->nsnap = tl->state != NULL ? (size_t)tl->maxid + 1 : 0;
	if ((tl->snap = reallocarray(NULL, tl->nsnap ? tl->nsnap : 1,
	    sizeof(*tl->snap))) == NULL)
		return -1;
	for (i = 0; i < tl->nsnap; i++)
		tl->snap[i] = tl->state[i];
	if (tl->nnames > 0) {
		if ((tl->nstate0 = reallocarray(NULL, tl->nnames,
		    sizeof(*tl->nstate0))) == NULL)
			return -1;
		memcpy(tl->nstate0, tl->nstate, tl->nnames *
		    sizeof(*tl->nstate0));
		tl->nnames0 = tl->nnames;
	}
	tl->in = 1;
	return 1;
}

static int
add_lane(struct timeline *tl, unsigned node)
{
	unsigned *nl;

	if (node == 0 || tl->lane_of[node] != -1 || !drawn(tl, node))
		return 0;	/* grown for NODE already */
	if ((nl = reallocarray(tl->lanes, tl->nlanes + 1,
	    sizeof(*nl))) == NULL)
		return -1;
	tl->lanes = nl;
	tl->lanes[tl->nlanes] = node;
	tl->lane_of[node] = (int)tl->nlanes++;
	return 0;
}

static void
fill(struct tl_item *it, const struct trace_event *ev)
{
	memset(it, 0, sizeof(*it));
	it->t = ev->t;
	it->node = ev->node;
	it->type = (unsigned char)ev->type;
	it->status = NO_STATUS;
	switch (ev->type) {
	case TR_BOOT:
		it->num = ev->inc;
		break;
	case TR_STATE:
		it->status = (unsigned char)ev->status;
		it->ldr = ev->ldr;
		break;
	case TR_SEND:
		it->peer = ev->to;
		break;
	case TR_RECV:
	case TR_DROP:
	case TR_DELIVER:
		it->peer = ev->from;
		it->num = ev->seq;
		break;
	case TR_FD:
		it->peer = ev->peer;
		it->op = (unsigned char)ev->op;
		break;
	case TR_LEASE:
		it->peer = ev->to;
		it->op = (unsigned char)ev->op;
		if (ev->op == OP_GRANT)
			it->t2 = trace_time_add(ev->t, ev->until - ev->clock);
		break;
	case TR_LEAD:
		it->t2 = ev->until > ev->clock ? trace_time_add(ev->t,
		    ev->until - ev->clock) : 0;
		break;
	case TR_RENEW:
		it->t2 = (trace_time)ev->d;
		it->peer = (ev->have & HAVE_TO) ? ev->to : 0;
		break;
	case TR_EDICT:
		it->num = ev->seq;
		break;
	case TR_NET:
		it->peer = ev->a;
		it->b = ev->b;
		it->op = (unsigned char)ev->link;
		break;
	case TR_TASK:
		it->op = (unsigned char)ev->op;
		it->num = ev->pid;
		break;
	case TR_LOST:
		it->num = ev->n;
		break;
	default:
		break;
	}
}

/* The item's text: message type, or reason. */
static void
label(struct timeline *tl, struct tl_item *it, const struct trace_event *ev)
{
	struct trace_str s;

	if (ev->type == TR_SEND || ev->type == TR_RECV)
		s = ev->msg;
	else if (ev->type == TR_EXIT || ev->type == TR_DROP)
		s = ev->why;
	else
		return;
	if ((it->label = keep(tl, s)) != UINT32_MAX)
		it->labellen = (uint32_t)s.n;
}

int
tl_past(const struct timeline *tl, const struct trace_event *ev)
{
	if (!tl->started || !tl->o.has_to || ev->t <= tl->o.to)
		return 0;
	return tl->unmatched == 0 || ev->t > tl->o.to + AFTER_WINDOW;
}

int
tl_event(struct timeline *tl, const struct trace_event *ev)
{
	struct tl_item it, *s;
	struct trace_event crash;
	long name;
	int rc;

	/* A Dead is its node's crash, just before it, as elect-check
	 * reads it: a killed leader is not drawn leading past it. */
	if (trace_dead_feed(&tl->dead, ev, &crash) &&
	    tl_event(tl, &crash) == -1)
		return -1;
	if (ev->type == TR_CLOCK || ev->type == TR_QUIET)
		return 0;	/* samples, the collector's: nothing to draw */
	if ((ev->type == TR_SEND || ev->type == TR_RECV) &&
	    excluded(tl, ev->msg))
		return 0;
	if (ev->node != 0 && (ev->type == TR_BOOT || ev->type == TR_CRASH ||
	    ev->type == TR_EXIT))
		forget_pending(tl, ev->node);
	if ((name = name_of(tl, ev)) < 0)
		return (int)name;
	if ((rc = window(tl, ev->t)) == -1 || grow(tl, ev->node) == -1 ||
	    add_lane(tl, ev->node) == -1)
		return -1;
	if (tl->o.has_to && ev->t > tl->o.to) {
		/* past the window: only receipts of its messages matter */
		if (ev->type == TR_RECV && (s = match(tl, ev)) != NULL)
			s->t2 = ev->t;
		return 0;
	}
	fill(&it, ev);
	it.name = (uint16_t)name;
	if (ev->node != 0)
		tl_apply(&tl->state[ev->node], &it);
	tl_apply_names(tl->nstate, tl->nnames, &it);
	if (rc == 0)
		return 0;
	if (ev->node != 0 ? !drawn(tl, ev->node) :
	    ev->type == TR_NET && !drawn(tl, ev->a) && !drawn(tl, ev->b))
		return 0;
	label(tl, &it, ev);
	if (ev->type == TR_RECV && (s = match(tl, ev)) != NULL) {
		s->t2 = ev->t;
		it.t2 = s->t;
	}
	if (tl->nitems == tl->capitems) {
		size_t cap = tl->capitems ? tl->capitems * 2 : 1024;
		struct tl_item *ni;

		if ((ni = reallocarray(tl->items, cap, sizeof(*ni))) == NULL)
			return -1;
		tl->items = ni;
		tl->capitems = cap;
	}
	tl->items[tl->nitems] = it;
	if (ev->type == TR_SEND && drawn(tl, ev->to) &&
	    add_pending(tl, ev->node, ev->to, tl->nitems) == -1)
		return -1;
	tl->nitems++;
	return 0;
}

static int
cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

size_t
tl_nodes(const struct timeline *tl)
{
	return tl->nlanes;
}

void
tl_finish(struct timeline *tl)
{
	size_t i;

	if (tl->nlanes > 0)
		qsort(tl->lanes, tl->nlanes, sizeof(*tl->lanes), cmp_unsigned);
	for (i = 0; i < tl->nlanes; i++)
		tl->lane_of[tl->lanes[i]] = (int)i;
	if (!tl->in && tl->state != NULL) {
		/* nothing in the window: the state at its start is the last */
		free(tl->snap);
		tl->nsnap = (size_t)tl->maxid + 1;
		if ((tl->snap = reallocarray(NULL, tl->nsnap,
		    sizeof(*tl->snap))) != NULL)
			memcpy(tl->snap, tl->state, tl->nsnap *
			    sizeof(*tl->snap));
		else
			tl->nsnap = 0;
		free(tl->nstate0);
		tl->nnames0 = 0;
		if (tl->nnames > 0 && (tl->nstate0 = reallocarray(NULL,
		    tl->nnames, sizeof(*tl->nstate))) != NULL) {
			memcpy(tl->nstate0, tl->nstate, tl->nnames *
			    sizeof(*tl->nstate));
			tl->nnames0 = tl->nnames;
		}
	}
	tl->t1 = tl->o.has_to ? tl->o.to :
	    tl->nitems > 0 ? tl->items[tl->nitems - 1].t : tl->t0;
	if (tl->t1 < tl->t0)
		tl->t1 = tl->t0;
}

static const char *
fd_op(unsigned op)
{
	switch (op) {
	case OP_START:
		return "watch";
	case OP_STOP:
		return "unwatch";
	case OP_DOWN:
		return "down";
	case OP_PLAYDEAD:
		return "pdead";
	case OP_PLAYALIVE:
		return "palive";
	default:
		return "?";
	}
}

/* The long label, for notes and tooltips. */
static int
words(const struct tl_item *it, const char *s, size_t n, char *buf,
    size_t len)
{
	static const char *const links[] = { "up", "down", "flaky" };
	static const char *const fd[] = { "", "starts watching",
	    "stops watching", "DownSig for", "plays dead to", "plays alive to" };
	unsigned long long num = it->num;
	const char *status = trace_status_name(it->status);

	switch (it->type) {
	case TR_BOOT:
		return snprintf(buf, len, "boot, incarnation %llu", num);
	case TR_EXIT:
		return snprintf(buf, len, "exit (%.*s)", (int)n, s);
	case TR_PAUSE:
		return snprintf(buf, len, "paused");
	case TR_RESUME:
		return snprintf(buf, len, "resumed");
	case TR_STATE:
		if (it->ldr == 0)
			return snprintf(buf, len, "status %s", status);
		return snprintf(buf, len, "status %s, leader %u", status,
		    it->ldr);
	case TR_SEND:
		return snprintf(buf, len, "sends %.*s to %u", (int)n, s,
		    it->peer);
	case TR_RECV:
		return snprintf(buf, len, "receives %.*s from %u", (int)n, s,
		    it->peer);
	case TR_DROP:
		return snprintf(buf, len, "drops a datagram from %u (%.*s)",
		    it->peer, (int)n, s);
	case TR_FD:
		return snprintf(buf, len, "%s %u", it->op < 6 ? fd[it->op] :
		    "?", it->peer);
	case TR_LEASE:
		return snprintf(buf, len, "%s %u", it->op == OP_GRANT ?
		    "grants a lease to" : "ends its lease to", it->peer);
	case TR_LEAD:
		return snprintf(buf, len, "%s", it->t2 ? "leads (lease)" :
		    "gives up leading");
	case TR_EDICT:
		return snprintf(buf, len, "edict %llu", num);
	case TR_DELIVER:
		return snprintf(buf, len, "delivers edict %llu from %u", num,
		    it->peer);
	case TR_NET:
		return snprintf(buf, len, "link %u-%u %s", it->peer, it->b,
		    links[it->op < 3 ? it->op : 0]);
	case TR_TASK:
		return snprintf(buf, len, "task %s (pid %llu)",
		    it->op == OP_START ? "started" : "stopped", num);
	case TR_LOST:
		return snprintf(buf, len, "lost %llu lines", num);
	default:
		return snprintf(buf, len, "%s",
		    trace_type_name((enum trace_type)it->type));
	}
}

int
tl_label(const struct timeline *tl, const struct tl_item *it, char *buf,
    size_t len, int verbose)
{
	static const char *const links[] = { "up", "down", "flaky" };
	char tail[16];
	const char *s;
	size_t n, i;
	int r;

	s = tl_str(tl, it, &n);
	if (n > 40)
		n = 40;
	switch (verbose ? TR_NTYPES : it->type) {
	case TR_NTYPES:
		r = words(it, s, n, buf, len);
		break;
	case TR_CRASH:
		r = snprintf(buf, len, "CRASH");
		break;
	case TR_STATE:
		if (it->ldr != 0)
			r = snprintf(buf, len, "%s(%u)",
			    trace_status_name(it->status), it->ldr);
		else
			r = snprintf(buf, len, "%s",
			    trace_status_name(it->status));
		break;
	case TR_SEND:
	case TR_RECV:
		/* the peer is kept whole; the type is cut to fit LEN */
		r = snprintf(tail, sizeof(tail), "%c%u", it->type == TR_SEND ?
		    '>' : '<', it->peer);
		if (n + (size_t)r >= len)
			n = len > (size_t)r + 1 ? len - (size_t)r - 1 : 0;
		r = snprintf(buf, len, "%.*s%s", (int)n, s, tail);
		break;
	case TR_DROP:
		r = snprintf(buf, len, "drop<%u", it->peer);
		break;
	case TR_FD:
		r = snprintf(buf, len, "%s(%u)", fd_op(it->op), it->peer);
		break;
	case TR_LEASE:
		r = snprintf(buf, len, "%s>%u", it->op == OP_GRANT ? "grant" :
		    "free", it->peer);
		break;
	case TR_LEAD:
		r = snprintf(buf, len, "%s", it->t2 ? "LEAD" : "unlead");
		break;
	case TR_EDICT:
		r = snprintf(buf, len, "edict#%llu",
		    (unsigned long long)it->num);
		break;
	case TR_DELIVER:
		r = snprintf(buf, len, "got#%llu<%u",
		    (unsigned long long)it->num, it->peer);
		break;
	case TR_NET:
		r = snprintf(buf, len, "link %u-%u %s", it->peer, it->b,
		    links[it->op < 3 ? it->op : 0]);
		break;
	case TR_TASK:
		r = snprintf(buf, len, "task%s", it->op == OP_START ? "+" : "-");
		break;
	case TR_LOST:
		r = snprintf(buf, len, "LOST(%llu)",
		    (unsigned long long)it->num);
		break;
	default:
		r = snprintf(buf, len, "%s",
		    trace_type_name((enum trace_type)it->type));
		break;
	}
	/* Values come from outside: nothing but printable ASCII is shown. */
	for (i = 0; i < len && buf[i] != '\0'; i++)
		if (buf[i] < 0x21 || buf[i] > 0x7e)
			buf[i] = buf[i] == ' ' ? ' ' : '?';
	return r < 0 ? 0 : (size_t)r >= len ? (int)len - 1 : r;
}

void
tl_offset(const struct timeline *tl, trace_time t, char *buf, size_t len)
{
	trace_time d = t - tl->t0;
	const char *sign = d < 0 ? "-" : "";

	if (d < 0)
		d = -d;
	snprintf(buf, len, "%s%lld.%06lld", sign, (long long)(d / TRACE_NS),
	    (long long)(d % TRACE_NS / 1000));
}

struct lane_state *
tl_replay(const struct timeline *tl)
{
	struct lane_state *st;
	size_t n = tl->state != NULL ? (size_t)tl->maxid + 1 : 1, i;

	if ((st = reallocarray(NULL, n, sizeof(*st))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		st[i] = i < tl->nsnap ? tl->snap[i] : down;
	return st;
}
