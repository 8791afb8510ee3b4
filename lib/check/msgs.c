/*
 * Messages in flight and the evidence that some did not arrive in time.
 * Records are kept in the order of their send lines, which is the order
 * of their times; `chk' is the first not yet looked at for lateness.
 * What is received, lost or moot (its receiver went down) is done, and
 * the head moves over done records, so memory follows the messages in
 * flight, at most MSGS_MAX of them (the oldest are let go, counted).
 * Each record is linked to the next of its way (sender, receiver), so
 * that a recv finds its send among its way's, not among all in flight.
 */
#include <assert.h>
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/inst.h"
#include "check/msgs.h"
#include "check/world.h"

enum { MR_WAIT, MR_LATE, MR_DONE };

void
msgs_init(struct msgs *m, trace_time c)
{
	memset(m, 0, sizeof(*m));
	m->bound = -1;
	m->c = c;
	m->fail = TIME_MIN;
}

void
msgs_free(struct msgs *m)
{
	free(m->r);
	free(m->way);
	free(m->od_now);
	free(m->od_last);
	free(m->od_rec);
}

/*
 * Eight bytes a step, each a multiply: a byte a step (FNV) made hashing
 * msg= and elid= most of the cost of a send or a receipt.  Each step is
 * a bijection of the state, the length is mixed in first, so strings of
 * up to eight bytes never collide.
 */
static uint64_t
hash(uint64_t h, struct trace_str s)
{
	const uint64_t m = UINT64_C(0x9e3779b97f4a7c15);
	uint64_t v;
	size_t i, k;

	h = (h ^ s.n) * m;
	for (i = 0; i + 8 <= s.n; i += 8) {
		memcpy(&v, s.p + i, 8);
		h = (h ^ v) * m;
		h ^= h >> 29;
	}
	for (v = 0, k = 0; i + k < s.n; k++)
		v |= (uint64_t)(unsigned char)s.p[i + k] << 8 * k;
	h = (h ^ v) * m;
	return h ^ h >> 32;
}

static uint64_t
key(const struct trace_event *ev)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	h = hash(h, ev->msg);
	return (ev->have & HAVE_ELID) ? hash(h, ev->elid) : h;
}

/* The way from FROM to TO, made if ADD; NULL if not there. */
static struct mway *
way(struct msgs *m, unsigned from, unsigned to, int add)
{
	struct mway *w, *old;
	size_t i, n, mask;

	if (m->capway == 0 || (add && 2 * (m->nway + 1) > m->capway)) {
		if (!add)
			return NULL;
		old = m->way;
		n = m->capway;
		m->capway = n ? 2 * n : 1024;
		if ((m->way = calloc(m->capway, sizeof(*m->way))) == NULL)
			err(2, NULL);
		m->nway = 0;
		for (i = 0; i < n; i++)
			if (old[i].from != 0)
				*way(m, old[i].from, old[i].to, 1) = old[i];
		free(old);
	}
	/*
	 * Fibonacci hashing, the product's high bits: ids are small and
	 * dense, and a hash linear in them packs the ways of one sender
	 * into a run that every probe, above all a miss, walks through.
	 */
	mask = m->capway - 1;
	for (i = (size_t)(((uint64_t)from << 16 | to) *
	    UINT64_C(0x9e3779b97f4a7c15) >> (64 - __builtin_ctzll(m->capway)));;
	    i = (i + 1) & mask) {
		w = &m->way[i];
		if (w->from == from && w->to == to)
			return w;
		if (w->from == 0)
			break;
	}
	if (!add)
		return NULL;
	w->from = from;
	w->to = to;
	w->first = w->last = MSGS_NONE;
	m->nway++;
	return w;
}

/* The record numbered S, or NULL if it left the window. */
static struct mrec *
rec(struct msgs *m, uint64_t s)
{
	if (s == MSGS_NONE || s < m->base + m->head || s >= m->base + m->tail)
		return NULL;
	return &m->r[s - m->base];
}

/* The oldest record leaves the window: its way starts at the next. */
static void
leave(struct msgs *m)
{
	struct mrec *r = &m->r[m->head];
	struct mway *w;

	if ((w = way(m, r->from, r->to, 0)) != NULL &&
	    w->first == m->base + m->head) {
		w->first = r->next;
		if (w->first == MSGS_NONE)
			w->last = MSGS_NONE;
	}
	m->head++;
}

/* The first record of W not done, dropping the done ones before it. */
static uint64_t
way_first(struct msgs *m, struct mway *w)
{
	struct mrec *r;

	while ((r = rec(m, w->first)) != NULL && r->state == MR_DONE)
		w->first = r->next;
	if (r == NULL)
		w->first = w->last = MSGS_NONE;
	return w->first;
}

const char *
msgs_str(const struct mrec *r, char *buf, size_t len)
{
	char t[TIME_BUFLEN];

	snprintf(buf, len, "%u to %u %s sent at %s", r->from, r->to, r->msg,
	    time_str(t, r->s));
	return buf;
}

/* Per-node arrays as long as the world's nodes. */
static void
grow_to(struct msgs *m, const struct world *w)
{
	unsigned have = m->nod, h2 = m->nod, h3 = m->nod;

	m->od_now = world_grow(m->od_now, &have, w, sizeof(*m->od_now));
	m->od_last = world_grow(m->od_last, &h2, w, sizeof(*m->od_last));
	m->od_rec = world_grow(m->od_rec, &h3, w, sizeof(*m->od_rec));
	for (; m->nod < have; m->nod++)
		m->od_last[m->nod] = TIME_MIN;
}

/* Asked at every line: the call only when the world has grown. */
static inline void
grow(struct msgs *m, const struct world *w)
{
	if (m->nod < w->n)
		grow_to(m, w);
}

/* Record R, not done, is about to be. */
static void
waiting_done(struct msgs *m, const struct mrec *r)
{
	assert(m->waiting[r->to % MSGS_TO] > 0);
	m->waiting[r->to % MSGS_TO]--;
}

/* Record R is done at T; if it was overdue, it no longer is in flight. */
static void
done(struct msgs *m, const struct world *w, struct mrec *r, trace_time t)
{
	int i;

	if (r->state == MR_LATE && (i = world_find(w, r->to)) >= 0 &&
	    (unsigned)i < m->nod) {
		if (m->od_now[i] > 0)
			m->od_now[i]--;
		if (t > m->od_last[i])
			m->od_last[i] = t;
	}
	if (r->state != MR_DONE)
		waiting_done(m, r);
	r->state = MR_DONE;
}

static void
evidence(struct msgs *m, const struct mrec *r)
{
	trace_time f = time_add(r->s, m->bound);
	struct mepisode *e = m->nep > 0 ? &m->ep[m->nep - 1] : NULL;

	if (f > m->fail)
		m->fail = f;
	m->last = *r;
	m->nevid++;
	if (e != NULL && f <= time_add(e->to, m->c)) {
		if (f > e->to)
			e->to = f;
		e->n++;
		return;
	}
	if (m->nep == MSGS_EPISODES) {
		m->more++;
		return;
	}
	e = &m->ep[m->nep++];
	e->from = e->to = f;
	e->n = 1;
	e->first = *r;
}

void
msgs_due(struct msgs *m, const struct world *w, trace_time t)
{
	if (m->bound < 0)
		return;
	grow(m, w);
	for (; m->chk < m->tail; m->chk++) {
		struct mrec *r = &m->r[m->chk];
		int i;

		if (time_add(time_add(r->s, m->bound), w->skew) >= t)
			break;
		if (r->state != MR_WAIT)
			continue;
		i = world_find(w, r->to);
		/* A receiver down, paused or restarted since: no message
		 * could be asked of it, and that failure counts already. */
		if (i < 0 || !w->node[i].up || w->node[i].paused ||
		    w->node[i].t_up > r->s) {
			waiting_done(m, r);
			r->state = MR_DONE;
			continue;
		}
		r->state = MR_LATE;
		m->od_now[i]++;
		m->od_rec[i] = *r;
		evidence(m, r);
	}
	while (m->head < m->chk && m->r[m->head].state == MR_DONE)
		leave(m);
}

static void
add(struct msgs *m, const struct world *w, const struct trace_event *ev)
{
	struct mrec *r, *prev;
	struct mway *wy;
	int i = world_find(w, ev->node), j = world_find(w, ev->to);
	size_t n;

	/* Over a link the trace says is down or flaky, a message lost is
	 * no news: the net line is the failure. */
	if (i >= 0 && j >= 0 && w->cut != NULL &&
	    BIT_ISSET(w->cut + (size_t)i * w->words, (unsigned)j))
		return;

	while (m->head < m->chk && m->r[m->head].state == MR_DONE)
		leave(m);
	if (m->tail - m->head == MSGS_MAX) {
		/* Let the oldest go: it can no longer be evidence. */
		done(m, w, &m->r[m->head], ev->t);
		leave(m);
		if (m->chk < m->head)
			m->chk = m->head;
		m->dropped++;
	}
	if (m->tail == m->cap) {
		/* Moved down only when that frees half the array: else it
		 * grows, so that a window stuck behind an old record costs
		 * no copy of itself per message. */
		if (m->head > 0 && m->head >= m->tail - m->head) {
			memmove(m->r, m->r + m->head,
			    (m->tail - m->head) * sizeof(*m->r));
			m->base += m->head;
			m->tail -= m->head;
			m->chk -= m->head;
			m->head = 0;
		}
		if (m->tail == m->cap && (m->r = array_grow(m->r, &m->cap,
		    sizeof(*m->r))) == NULL)
			err(2, NULL);
	}
	r = &m->r[m->tail++];
	memset(r, 0, sizeof(*r));
	r->s = ev->t;
	r->key = key(ev);
	r->from = ev->node;
	r->to = ev->to;
	r->state = MR_WAIT;
	r->next = MSGS_NONE;
	m->waiting[r->to % MSGS_TO]++;
	/* As snprintf would cut it, without its cost at every send. */
	n = ev->msg.n < sizeof(r->msg) - 1 ? ev->msg.n : sizeof(r->msg) - 1;
	memcpy(r->msg, ev->msg.p, n);
	r->msg[n] = '\0';
	wy = way(m, r->from, r->to, 1);
	if ((prev = rec(m, wy->last)) != NULL && rec(m, wy->first) != NULL)
		prev->next = m->base + m->tail - 1;
	else
		wy->first = m->base + m->tail - 1;
	wy->last = m->base + m->tail - 1;
}

static void
on_recv(struct msgs *m, const struct world *w, const struct trace_event *ev)
{
	uint64_t k, s, at;
	struct mway *wy;
	struct mrec *r;
	int i;

	/* Looked up and hashed only when a send may wait: most receipts
	 * of a compact trace answer sends it does not show. */
	if (m->waiting[ev->node % MSGS_TO] == 0 ||
	    (wy = way(m, ev->from, ev->node, 0)) == NULL ||
	    (s = way_first(m, wy)) == MSGS_NONE)
		return;		/* sent before the trace, or let go */
	k = key(ev);
	for (; (r = rec(m, s)) != NULL; s = r->next)
		if (r->state != MR_DONE && r->key == k)
			break;
	if (r == NULL)
		return;
	at = s;
	done(m, w, r, ev->t);
	/* Overdue messages sent before it on the same way are lost (none
	 * when none to this node is overdue). */
	if ((i = world_find(w, ev->node)) >= 0 && (unsigned)i < m->nod &&
	    m->od_now[i] == 0)
		return;
	for (s = wy->first; s < at && (r = rec(m, s)) != NULL; s = r->next)
		if (r->state == MR_LATE)
			done(m, w, r, ev->t);
}

/* Node ID went down or came up: what was in flight to it is moot, and
 * what it sent that is overdue is lost for good (its crash counts). */
static void
moot(struct msgs *m, const struct world *w, unsigned id, trace_time t)
{
	size_t j;

	for (j = m->head; j < m->tail; j++) {
		struct mrec *r = &m->r[j];

		if (r->state != MR_DONE && (r->to == id ||
		    (r->from == id && r->state == MR_LATE)))
			done(m, w, r, t);
	}
}

void
msgs_event(struct msgs *m, const struct world *w, const struct trace_event *ev)
{
	if (m->bound < 0 || ev->node == 0)
		return;
	grow(m, w);
	switch (ev->type) {
	case TR_SEND:
		if (ev->to != 0 && ev->to != ev->node)
			add(m, w, ev);
		break;
	case TR_RECV:
		on_recv(m, w, ev);
		break;
	case TR_BOOT:
	case TR_CRASH:
	case TR_EXIT:
		moot(m, w, ev->node, ev->t);
		break;
	default:
		break;
	}
}

int
msgs_late_since(const struct msgs *m, int i, trace_time t,
    const struct mrec **why)
{
	if (i < 0 || (unsigned)i >= m->nod)
		return 0;
	if (m->od_now[i] == 0 && m->od_last[i] < t)
		return 0;
	*why = &m->od_rec[i];
	return 1;
}
