/* The parts the modified and the enhanced bully share; see murshed.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/murshed.h"

const char *const mb_msgnames[MB_NMSG] = {
	[MB_ELECTION] = "Election",
	[MB_OK] = "Ok",
	[MB_COORDINATOR] = "Coordinator",
	[MB_QUERY] = "Query",
	[MB_ANSWER] = "Answer",
};

const char *const mb_timernames[MB_NTIMER] = {
	[MB_T_WAIT] = "wait",
	[MB_T_OK] = "ok",
	[MB_T_HOLD] = "hold",
	[MB_T_ANNOUNCE] = "announce",
};

/* Payloads, big-endian: node ids of two bytes, each followed by the
 * incarnation it was known by, eight bytes (0: unknown). */
static const size_t paylen[MB_NMSG] = {
	[MB_ELECTION] = 10,	/* the failed leader */
	[MB_OK] = 8,		/* the sender's incarnation */
	[MB_COORDINATOR] = 20,	/* the new leader, the one it replaces */
	[MB_QUERY] = 0,
	[MB_ANSWER] = 10,	/* the answerer's leader, 0 if none */
};

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The incarnation we know ID by, 0 if none. */
static uint64_t
inc_of(const struct mbully *m, uint16_t id)
{
	if (id == 0)
		return 0;
	if (id == m->a.self)
		return m->a.inc;
	if (id == m->ldr && m->linc != 0)
		return m->linc;
	if (id == m->failed && m->finc != 0)
		return m->finc;
	if (id == m->best)
		return m->best_inc;
	return 0;
}

/* An id and its incarnation. */
static void
put_id(uint8_t *p, uint16_t id, uint64_t inc)
{
	put16(p, id);
	algo_put64(p + 2, id == 0 ? 0 : inc);
}

int
mb_is_ldr(const struct mbully *m, uint16_t failed, uint64_t finc)
{
	return failed != 0 && failed == m->ldr &&
	    (finc == 0 || m->linc == 0 || finc == m->linc);
}

static int
normal(const struct mbully *m)
{
	return m->ldr != 0 && !m->hold && !m->electing && !m->querying &&
	    !m->okwait;
}

void
mb_show(struct mbully *m, algo_time now, struct algo_out *o)
{
	enum trace_status s;

	if (m->electing)
		s = ST_ELEC;
	else if (m->hold || m->querying || m->okwait)
		s = ST_WAIT;
	else if (m->ldr != 0)
		s = ST_NORM;
	else
		s = ST_DOWN;
	algo_set_state(&m->a, o, now, s, m->ldr, NULL);
}

/* Our detector monitors J (0: nobody); only a follower watches. */
static void
watch(struct mbully *m, uint16_t j, struct algo_out *o)
{
	if (j == m->a.self)
		j = 0;
	if (j == m->watch)
		return;
	if (m->watch != 0)
		algo_fd(o, ALGO_FD_STOP, m->watch);
	if (j != 0)
		algo_fd(o, ALGO_FD_START, j);
	m->watch = j;
}

/* Ends our election or query, and the timer of its wait. */
static void
end_wait(struct mbully *m, struct algo_out *o)
{
	if (m->waiting)
		algo_timer_cancel(o, MB_T_WAIT);
	m->electing = m->querying = m->waiting = 0;
}

static void
set_wait(struct mbully *m, algo_time at, struct algo_out *o)
{
	algo_timer_set(o, MB_T_WAIT, at);
	m->waiting = 1;
}

/* Ranks [lo, hi) but ours into asked; sends TYPE to each. */
static void
multicast(struct mbully *m, size_t lo, size_t hi, unsigned type,
    const uint8_t *p, size_t len, struct algo_out *o)
{
	size_t r;

	algo_set_clear(&m->asked);
	algo_set_clear(&m->heard);
	m->best = 0;
	m->best_inc = 0;
	for (r = lo; r < hi && r < m->a.n; r++) {
		if (r == m->a.rank)
			continue;
		algo_set_add(&m->asked, r);
		algo_send(o, m->a.ids[r], type, &m->el, p, len);
	}
}

/* Whether every node asked but the failed leader answered. */
static int
all_heard(const struct mbully *m)
{
	size_t r;

	for (r = 0; r < m->a.n; r++)
		if (algo_set_has(&m->asked, r) && !algo_set_has(&m->heard, r) &&
		    m->a.ids[r] != m->failed)
			return 0;
	return 1;
}

int
mb_heard_any(const struct mbully *m, size_t lo, size_t hi)
{
	size_t r;

	for (r = lo; r < hi && r < m->a.n; r++)
		if (r != m->a.rank && algo_set_has(&m->heard, r))
			return 1;
	return 0;
}

static void
finish(struct mbully *m, algo_time now, struct algo_out *o)
{
	/* The policy starts the next step, which ends this one. */
	if (m->electing)
		m->p->elected(m, now, o);
	else if (m->querying)
		m->p->queried(m, now, o);
}

/* Our election (naming FAILED) or query: TYPE to the ranks [lo, hi) but
 * ours, answers awaited for WAIT. */
static void
ask(struct mbully *m, unsigned type, size_t lo, size_t hi, uint16_t failed,
    algo_time wait, int phase, algo_time now, struct algo_out *o)
{
	uint8_t p[10];
	uint64_t finc = inc_of(m, failed);

	end_wait(m, o);
	m->el = algo_new_elid(&m->a, &m->nextel);
	m->electing = type == MB_ELECTION;
	m->querying = type == MB_QUERY;
	m->phase = phase;
	m->failed = failed;
	m->finc = finc;
	mb_show(m, now, o);
	put_id(p, failed, finc);
	multicast(m, lo, hi, type, p, paylen[type], o);
	set_wait(m, now + wait, o);
	if (all_heard(m))
		finish(m, now, o);
}

void
mb_elect(struct mbully *m, size_t lo, size_t hi, uint16_t failed,
    algo_time wait, int phase, algo_time now, struct algo_out *o)
{
	ask(m, MB_ELECTION, lo, hi, failed, wait, phase, now, o);
}

void
mb_query(struct mbully *m, size_t lo, size_t hi, algo_time wait, int phase,
    algo_time now, struct algo_out *o)
{
	ask(m, MB_QUERY, lo, hi, 0, wait, phase, now, o);
}

void
mb_await(struct mbully *m, algo_time wait, algo_time now, struct algo_out *o)
{
	end_wait(m, o);
	m->querying = 1;
	m->phase = MB_AWAIT;
	algo_set_clear(&m->asked);
	mb_show(m, now, o);
	set_wait(m, now + wait, o);
}

void
mb_adopt(struct mbully *m, uint16_t j, uint64_t jinc, algo_time now,
    struct algo_out *o)
{
	end_wait(m, o);
	if (m->okwait)
		algo_timer_cancel(o, MB_T_OK);
	if (m->announcing)
		algo_timer_cancel(o, MB_T_ANNOUNCE);
	m->okwait = m->announcing = 0;
	m->ldr = j;
	m->linc = jinc;
	m->failed = 0;
	m->finc = 0;
	m->hold = 1;
	watch(m, j, o);
	mb_show(m, now, o);
	/* Normal once every live node surely has the news: murshed.h. */
	algo_timer_set(o, MB_T_HOLD, now + m->a.t.t_tx);
}

/* Coordinator(J, replacing FAILED) to every other node. */
static void
announce(struct mbully *m, uint16_t j, uint16_t failed, struct algo_out *o)
{
	uint8_t p[20];
	size_t r;

	if (failed == j)
		failed = 0;
	put_id(p, j, inc_of(m, j));
	put_id(p + 10, failed, inc_of(m, failed));
	for (r = 0; r < m->a.n; r++)
		if (r != m->a.rank)
			algo_send(o, m->a.ids[r], MB_COORDINATOR, &m->el, p,
			    sizeof(p));
}

/* Broadcast(coordinator, J) to every other node, the failed leader too,
 * as the papers count it; then Update(ldr, J). */
void
mb_name(struct mbully *m, uint16_t j, uint16_t failed, algo_time now,
    struct algo_out *o)
{
	if (!m->electing && !m->querying)
		m->el = algo_new_elid(&m->a, &m->nextel);
	announce(m, j, failed, o);
	mb_adopt(m, j, inc_of(m, j), now, o);
}

void
mb_conclude(struct mbully *m, algo_time wait, algo_time now,
    struct algo_out *o)
{
	uint16_t self = m->a.self;

	if (m->best > self)
		mb_adopt(m, m->best, m->best_inc, now, o);
	else if (m->best != 0)
		mb_name(m, self, m->best == self ? 0 : m->best, now, o);
	else if (m->phase == MB_AWAIT)
		m->p->start(m, now, o);
	else if (mb_heard_any(m, 0, m->a.n))
		mb_await(m, wait, now, o);
	else
		mb_name(m, self, 0, now, o);
}

void
mb_ok(struct mbully *m, const struct algo_msg *e, uint16_t failed,
    uint64_t finc, algo_time wait, algo_time now, struct algo_out *o)
{
	uint8_t p[8];

	algo_put64(p, m->a.inc);
	algo_send(o, e->peer, MB_OK, &e->elid, p, sizeof(p));
	m->ok_at = now;
	if (wait <= 0)
		return;
	m->okwait = 1;
	m->failed = failed;
	m->finc = finc;
	algo_timer_set(o, MB_T_OK, now + wait);
	mb_show(m, now, o);
}

/* A coordinator message: J of incarnation JINC leads, replacing F of
 * incarnation FINC ("if any coordinator message received ... stating J
 * is new leader then Update(ldr, J)", Algorithms 3-5). */
static void
on_coordinator(struct mbully *m, uint16_t j, uint64_t jinc, uint16_t f,
    uint64_t finc, algo_time now, struct algo_out *o)
{
	uint16_t p = m->ldr;

	/*
	 * A revived node gathers what it hears until its query ends: a
	 * coordinator sent before it came up never reaches it, and the
	 * node named in a later one may since have given way to that
	 * leader, whose answer names it.
	 */
	if (m->querying) {
		if (j > m->best) {
			m->best = j;
			m->best_inc = jinc;
		}
		if (m->phase == MB_AWAIT)
			finish(m, now, o);
		return;
	}
	if (j == p) {
		/* A repeated announcement (--announce) of the leader we
		 * know failed, sent before it crashed: only a new
		 * incarnation of it may end our election. */
		if (mb_is_ldr(m, m->failed, m->finc) && m->linc != 0 &&
		    jinc != 0 && jinc <= m->linc)
			return;
		/* A new incarnation of our leader is a new leader: Update
		 * waits t_TX again, as for any other, so that we are not
		 * Normal while a coordinator sent meanwhile may still
		 * reach others. */
		if (m->linc != 0 && jinc > m->linc) {
			mb_adopt(m, j, jinc, now, o);
			return;
		}
		if (jinc > m->linc)
			m->linc = jinc;
		if (!m->hold && !normal(m))
			mb_adopt(m, j, m->linc, now, o);
		return;
	}
	/* A stale announcement, or one racing ours: we keep a higher
	 * leader that nobody said has failed, in the incarnation we
	 * follow (murshed.h). */
	if (!(j > p || p == 0 || mb_is_ldr(m, f, finc) ||
	    mb_is_ldr(m, m->failed, m->finc)))
		return;
	/*
	 * The papers never name a leader below a live node that answered;
	 * one that does missed us (we were reviving), and we take over as
	 * a revived node higher than the leader does (NRC).
	 */
	if (j < m->a.self) {
		m->failed = f;
		m->finc = finc;
		mb_name(m, m->a.self, f, now, o);
	} else
		mb_adopt(m, j, jinc, now, o);
}

/* "Electioneer waits time T_el,i for all ok messages" (Algorithms 3, 4);
 * the highest sender is the highest live node it asked. */
static void
on_ok(struct mbully *m, const struct algo_msg *msg, algo_time now,
    struct algo_out *o)
{
	size_t r = (size_t)algo_rank(&m->a, msg->peer);

	if (!m->electing || !algo_elid_eq(&msg->elid, &m->el) ||
	    !algo_set_has(&m->asked, r))
		return;
	algo_set_add(&m->heard, r);
	if (msg->peer > m->best) {
		m->best = msg->peer;
		m->best_inc = msg->len != 0 ? algo_get64(msg->payload) : 0;
	}
	if (all_heard(m))
		finish(m, now, o);
}

/* "Node I will wait for answer messages" (Algorithm 6): each names the
 * answerer's leader. */
static void
on_answer(struct mbully *m, const struct algo_msg *msg, uint16_t j,
    uint64_t jinc, algo_time now, struct algo_out *o)
{
	size_t r = (size_t)algo_rank(&m->a, msg->peer);

	if (!m->querying || !algo_elid_eq(&msg->elid, &m->el) ||
	    !algo_set_has(&m->asked, r))
		return;
	algo_set_add(&m->heard, r);
	if (j > m->best) {
		m->best = j;
		m->best_inc = jinc;
	}
	if (all_heard(m))
		finish(m, now, o);
}

/* Checks a payload's length, the node ids it names, and that the elid
 * is the sender's own (election, coordinator, query) or ours echoed. */
static int
valid(const struct mbully *m, const struct algo_msg *msg)
{
	uint16_t j;

	/* An Ok may leave its sender's incarnation out (unknown). */
	if (msg->type == MB_OK && msg->len == 0)
		return msg->elid.node == m->a.self;
	if (msg->len != paylen[msg->type] || msg->elid.node !=
	    (msg->type == MB_OK || msg->type == MB_ANSWER ? m->a.self :
	    msg->peer))
		return 0;
	switch (msg->type) {
	case MB_ELECTION:
		j = get16(msg->payload);
		return j != 0 && algo_rank(&m->a, j) != -1;
	case MB_COORDINATOR:
		j = get16(msg->payload + 10);
		return algo_rank(&m->a, get16(msg->payload)) != -1 &&
		    (j == 0 || algo_rank(&m->a, j) != -1);
	case MB_ANSWER:
		j = get16(msg->payload);
		return j == 0 || algo_rank(&m->a, j) != -1;
	}
	return 1;
}

static int
on_recv(struct mbully *m, const struct algo_msg *msg, algo_time now,
    struct algo_out *o)
{
	const uint8_t *q = msg->payload;
	uint8_t p[10];
	uint16_t l;

	if (!valid(m, msg))
		return ALGO_EINVAL;
	switch (msg->type) {
	case MB_ELECTION:
		/* Elections go up the ids; one from above is no concern
		 * of ours. */
		if (msg->peer < m->a.self)
			m->p->election(m, msg, get16(q), algo_get64(q + 2),
			    now, o);
		break;
	case MB_OK:
		on_ok(m, msg, now, o);
		break;
	case MB_COORDINATOR:
		on_coordinator(m, get16(q), algo_get64(q + 2), get16(q + 10),
		    algo_get64(q + 12), now, o);
		break;
	case MB_QUERY:
		/* "The nodes which received query messages will reply with
		 * answer messages" (NRC): the leader we follow or take. */
		l = m->electing || m->querying || m->okwait ? 0 : m->ldr;
		put_id(p, l, m->linc);
		algo_send(o, msg->peer, MB_ANSWER, &msg->elid, p, sizeof(p));
		break;
	case MB_ANSWER:
		on_answer(m, msg, get16(q), algo_get64(q + 2), now, o);
		break;
	}
	return ALGO_OK;
}

/* A Normal leader repeats its coordinator every `announce' (murshed.h). */
static void
announce_again(struct mbully *m, algo_time now, struct algo_out *o)
{
	if (m->ldr != m->a.self || !normal(m) || m->a.t.announce <= 0)
		return;
	algo_timer_set(o, MB_T_ANNOUNCE, now + m->a.t.announce);
	m->announcing = 1;
}

static void
on_timer(struct mbully *m, unsigned id, algo_time now, struct algo_out *o)
{
	switch (id) {
	case MB_T_WAIT:
		m->waiting = 0;
		finish(m, now, o);
		break;
	case MB_T_OK:
		if (m->okwait) {
			m->okwait = 0;
			m->p->ok_expired(m, now, o);
		}
		break;
	case MB_T_HOLD:
		m->hold = 0;
		mb_show(m, now, o);
		announce_again(m, now, o);
		break;
	case MB_T_ANNOUNCE:
		m->announcing = 0;
		if (m->ldr != m->a.self || !normal(m))
			break;
		/* The elid must be our own (valid()). */
		if (m->el.node != m->a.self)
			m->el = algo_new_elid(&m->a, &m->nextel);
		announce(m, m->a.self, 0, o);
		announce_again(m, now, o);
		break;
	}
}

int
mb_step(struct algo *a, const struct algo_input *in, struct algo_out *o)
{
	struct mbully *m = (struct mbully *)a;

	switch (in->type) {
	case ALGO_IN_RECV:
		return on_recv(m, &in->msg, in->now, o);
	case ALGO_IN_DOWN:
		/* "Node I recognises that leader node has crashed"
		 * (Algorithm 1): an election, unless we are in one. */
		if (in->down == m->watch && in->down == m->ldr &&
		    !m->electing && !m->okwait)
			m->p->electn(m, in->down, in->now, o);
		return ALGO_OK;
	case ALGO_IN_TIMER:
		on_timer(m, in->timer, in->now, o);
		return ALGO_OK;
	default:
		return ALGO_ENOTSUP;
	}
}

int
mb_boot(struct algo *a, const struct mb_policy *p, algo_time now,
    struct algo_out *o)
{
	struct mbully *m = (struct mbully *)a;

	m->p = p;
	m->ok_at = -1;
	p->start(m, now, o);
	return ALGO_OK;
}

/* An incarnation, left out when unknown. */
static void
fmt_inc(char *buf, size_t len, const char *key, uint64_t inc)
{
	size_t l = strlen(buf);

	if (inc != 0)
		snprintf(buf + l, len - l, " %s=%llu", key,
		    (unsigned long long)inc);
}

/* KEY=ID and, if known, its incarnation: "ldr=3 linc=2". */
static void
fmt_id(char *buf, size_t len, const char *key, const char *ikey,
    const uint8_t *p)
{
	size_t l = strlen(buf);
	uint16_t id = get16(p);

	if (id == 0) {
		snprintf(buf + l, len - l, " %s=-", key);
		return;
	}
	snprintf(buf + l, len - l, " %s=%u", key, id);
	fmt_inc(buf, len, ikey, algo_get64(p + 2));
}

void
mb_msg_fields(const struct algo_msg *m, char *buf, size_t len)
{
	if (m->type >= MB_NMSG || m->len != paylen[m->type])
		return;	/* an Ok without incarnation too */
	if (m->type == MB_ELECTION)
		fmt_id(buf, len, "failed", "finc", m->payload);
	else if (m->type == MB_COORDINATOR) {
		fmt_id(buf, len, "ldr", "linc", m->payload);
		fmt_id(buf, len, "failed", "finc", m->payload + 10);
	} else if (m->type == MB_ANSWER)
		fmt_id(buf, len, "ldr", "linc", m->payload);
	else if (m->type == MB_OK)
		fmt_inc(buf, len, "inc", algo_get64(m->payload));
}

/* Which payload offset KEY sets in a message of TYPE, and whether it is
 * an incarnation; -1 if none. */
static int
field_at(unsigned type, const char *key, int *inc)
{
	static const struct {
		unsigned	 type;
		const char	*key;
		int		 off, inc;
	} f[] = {
		{ MB_ELECTION, "failed", 0, 0 },
		{ MB_ELECTION, "finc", 2, 1 },
		{ MB_OK, "inc", 0, 1 },
		{ MB_COORDINATOR, "ldr", 0, 0 },
		{ MB_COORDINATOR, "linc", 2, 1 },
		{ MB_COORDINATOR, "failed", 10, 0 },
		{ MB_COORDINATOR, "finc", 12, 1 },
		{ MB_ANSWER, "ldr", 0, 0 },
		{ MB_ANSWER, "linc", 2, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].type == type && strcmp(f[i].key, key) == 0) {
			*inc = f[i].inc;
			return f[i].off;
		}
	return -1;
}

int
mb_msg_set_field(struct algo_msg *m, const char *key, const char *value)
{
	const char *errstr;
	long long v = 0;
	int off, inc;

	if (m->type >= MB_NMSG || (off = field_at(m->type, key, &inc)) < 0)
		return -1;
	if (m->len != paylen[m->type]) {
		memset(m->payload, 0, paylen[m->type]);
		m->len = paylen[m->type];
	}
	if (inc) {
		v = strtonum(value, 1, LLONG_MAX, &errstr);
		if (errstr != NULL)
			return -1;
		algo_put64(m->payload + off, (uint64_t)v);
	} else {
		if (strcmp(value, "-") != 0) {
			v = strtonum(value, 1, UINT16_MAX, &errstr);
			if (errstr != NULL)
				return -1;
		}
		put16(m->payload + off, (uint16_t)v);
	}
	return 0;
}
