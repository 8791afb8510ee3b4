/*
 * bully: Garcia-Molina's Bully Election Algorithm ("Elections in a
 * Distributed Computing System", 1982, Appendix I), with time-outs T and
 * no failure detector, for synchronous systems (his Assumptions 8 and 9).
 *
 * The paper writes remote procedure calls, each answered within T or
 * taken as proof that the callee is down.  Here a call is a request
 * message carrying a call number and an Ack carrying it back; the caller
 * arms the `call' timer for T and a late Ack no longer matches.  Each of
 * the paper's procedures (Election, Check, Timeout) is a "process" that
 * makes one call at a time; a node runs one process at a time: Election
 * supersedes the others, as the CALL STOP in it or in Halt would.
 *
 * Node ids are priorities and higher wins, as in the paper.  The Ready
 * message's task description S(i).d is the coordinator's election id; the
 * algorithm has no groups (grp is "-").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"

enum {
	MSG_AREYOUTHERE = 1, MSG_AREYOUNORMAL, MSG_HALT, MSG_NEWCOORDINATOR,
	MSG_READY, MSG_ACK, NMSG
};

static const char *const msgnames[NMSG] = {
	[MSG_AREYOUTHERE] = "AreYouThere",
	[MSG_AREYOUNORMAL] = "AreYouNormal",
	[MSG_HALT] = "Halt",
	[MSG_NEWCOORDINATOR] = "NewCoordinator",
	[MSG_READY] = "Ready",
	[MSG_ACK] = "Ack",
};

enum { T_CALL, T_CHECK, T_TIMEOUT, NTIMER };

static const char *const timernames[NTIMER] = {
	[T_CALL] = "call",
	[T_CHECK] = "check",
	[T_TIMEOUT] = "timeout",
};

/* Garcia-Molina's T, and the periods of procedures Check and Timeout. */
static const char *const timings[] = { "reply", "check", "timeout", NULL };

/* Payloads: a request is its call number; an Ack, the number and an
 * answer (AreYouNormal's; 1 for the others). */
#define REQ_LEN	4
#define ACK_LEN	5

/* The process running at the node, and where it is. */
enum proc {
	P_NONE,
	P_PROBE,	/* Election: AreYouThere to higher nodes */
	P_HALT,		/* Election: Halt to lower nodes */
	P_NEWCOORD,	/* Election: NewCoordinator to S(i).Up */
	P_READY,	/* Election: Ready to S(i).Up */
	P_CHECK,	/* Check: AreYouNormal to everyone */
	P_TIMEOUT,	/* Timeout: AreYouThere to the coordinator */
};

struct bully {
	struct algo	 a;
	enum trace_status s;	/* S(i).s: Down, Elec, Reorg or Norm */
	uint16_t	 c;	/* S(i).c, the coordinator */
	uint16_t	 h;	/* S(i).h, who halted us last */
	struct algo_set	 up;	/* S(i).Up, by rank */
	struct algo_elid d;	/* S(i).d, the task description */
	struct algo_elid elid;	/* of our election, in its messages */
	uint32_t	 nextel;
	enum proc	 proc;
	size_t		 cur;	/* rank of the callee */
	long		 gone;	/* rank Election need not call, or -1 */
	uint32_t	 seq;	/* number of the pending call, 0: none */
	uint32_t	 nextseq;
	int		 waiting; /* the timeout timer is armed */
};

static void
show(struct bully *b, algo_time now, struct algo_out *o)
{
	algo_set_state(&b->a, o, now, b->s, b->c, NULL);
}

static int
coordinator(const struct bully *b)
{
	return (b->s == ST_NORM || b->s == ST_REORG) && b->c == b->a.self;
}

/* Restarts the wait of procedure Timeout; a coordinator waits for
 * nobody (its Timeout would ask itself whether it is there). */
static void
rearm_timeout(struct bully *b, algo_time now, struct algo_out *o)
{
	if (!coordinator(b)) {
		algo_timer_set(o, T_TIMEOUT, now + b->a.t.timeout);
		b->waiting = 1;
	} else if (b->waiting) {
		algo_timer_cancel(o, T_TIMEOUT);
		b->waiting = 0;
	}
}

/* CALL proc(ids[rank]), ONTIMEOUT(T): the pending call of process P. */
static void
call(struct bully *b, enum proc p, size_t rank, unsigned type,
    algo_time now, struct algo_out *o)
{
	uint8_t req[REQ_LEN];

	b->proc = p;
	b->cur = rank;
	b->seq = ++b->nextseq;
	algo_put32(req, b->seq);
	algo_send(o, b->a.ids[rank], type, p == P_CHECK || p == P_TIMEOUT ?
	    NULL : &b->elid, req, sizeof(req));
	algo_timer_set(o, T_CALL, now + b->a.t.reply);
}

/* The process ends (RETURN). */
static void
finish(struct bully *b, algo_time now, struct algo_out *o)
{
	if (b->seq != 0)
		algo_timer_cancel(o, T_CALL);
	b->proc = P_NONE;
	b->seq = 0;
	rearm_timeout(b, now, o);
}

/* The rank of the next member of S(i).Up below rank R, or -1. */
static long
next_up(const struct bully *b, size_t r)
{
	while (r-- > 0)
		if (algo_set_has(&b->up, r))
			return (long)r;
	return -1;
}

/* Election, second loop: halt the next lower node, or reach the
 * election point and tell S(i).Up of the new coordinator. */
static void
halt_next(struct bully *b, algo_time now, struct algo_out *o)
{
	long r;

	if (b->cur > 0) {
		call(b, P_HALT, b->cur - 1, MSG_HALT, now, o);
		return;
	}
	b->c = b->a.self;
	b->s = ST_REORG;
	show(b, now, o);
	if ((r = next_up(b, b->a.n)) != -1) {
		call(b, P_NEWCOORD, (size_t)r, MSG_NEWCOORDINATOR, now, o);
		return;
	}
	b->d = b->elid;
	b->s = ST_NORM;
	show(b, now, o);
	finish(b, now, o);
}

/* Election, first loop: ask the next higher node; past the highest,
 * halt every lower node, starting with this one. */
static void
probe_next(struct bully *b, algo_time now, struct algo_out *o)
{
	size_t r = b->cur + 1;

	if ((long)r == b->gone)
		r++;
	if (r < b->a.n) {
		call(b, P_PROBE, r, MSG_AREYOUTHERE, now, o);
		return;
	}
	/* [[CALL STOP; S(i).s := Election; S(i).h := i; S(i).Up := {}]] */
	b->s = ST_ELEC;
	b->h = b->a.self;
	algo_set_clear(&b->up);
	show(b, now, o);
	b->cur = b->a.rank;
	halt_next(b, now, o);
}

/* PROCEDURE Election(i); GONE: the rank of a node known down just now,
 * or -1. */
static void
election(struct bully *b, long gone, algo_time now, struct algo_out *o)
{
	b->elid = algo_new_elid(&b->a, &b->nextel);
	b->gone = gone;
	b->cur = b->a.rank;
	probe_next(b, now, o);
}

/* Check, loop: ask the next node but us whether it is normal. */
static void
check_next(struct bully *b, size_t from, algo_time now, struct algo_out *o)
{
	if (from == b->a.rank)
		from++;
	if (from < b->a.n)
		call(b, P_CHECK, from, MSG_AREYOUNORMAL, now, o);
	else
		finish(b, now, o);
}

/* The pending call was answered (ANS: AreYouNormal's answer). */
static void
answered(struct bully *b, int ans, algo_time now, struct algo_out *o)
{
	long r;

	/* Every branch makes the next call or ends the process. */
	switch (b->proc) {
	case P_PROBE:		/* a higher node is up: RETURN */
	case P_TIMEOUT:		/* the coordinator is up */
		finish(b, now, o);
		break;
	case P_HALT:
		algo_set_add(&b->up, b->cur);
		halt_next(b, now, o);
		break;
	case P_NEWCOORD:
		if ((r = next_up(b, b->cur)) != -1) {
			call(b, P_NEWCOORD, (size_t)r, MSG_NEWCOORDINATOR,
			    now, o);
			break;
		}
		/* Reorganization: S(i).d is computed here. */
		b->d = b->elid;
		if ((r = next_up(b, b->a.n)) != -1)
			call(b, P_READY, (size_t)r, MSG_READY, now, o);
		break;
	case P_READY:
		if ((r = next_up(b, b->cur)) != -1) {
			call(b, P_READY, (size_t)r, MSG_READY, now, o);
			break;
		}
		b->s = ST_NORM;
		show(b, now, o);
		finish(b, now, o);
		break;
	case P_CHECK:
		if (!ans)
			election(b, -1, now, o);
		else
			check_next(b, b->cur + 1, now, o);
		break;
	case P_NONE:
		break;
	}
}

/* The pending call timed out: the callee is down (Assumption 8). */
static void
timed_out(struct bully *b, algo_time now, struct algo_out *o)
{
	b->seq = 0;
	switch (b->proc) {
	case P_PROBE:
		probe_next(b, now, o);
		break;
	case P_HALT:
		halt_next(b, now, o);
		break;
	case P_NEWCOORD:	/* a member failed: restart */
	case P_READY:
		election(b, -1, now, o);
		break;
	case P_TIMEOUT:
		/* The coordinator is down (Assumption 8): Election need not
		 * call it and wait T again.  Its failure is as fresh as any
		 * of Election's own calls, and should it recover, its
		 * Recovery halts us, as the proof of Theorem A1 expects. */
		election(b, (long)b->cur, now, o);
		break;
	case P_CHECK:
		check_next(b, b->cur + 1, now, o);
		break;
	case P_NONE:
		break;
	}
}

/* PROCEDURE Check(i), every `check'. */
static void
check(struct bully *b, algo_time now, struct algo_out *o)
{
	algo_timer_set(o, T_CHECK, now + b->a.t.check);
	if (b->proc == P_NONE && b->s == ST_NORM && b->c == b->a.self)
		check_next(b, 0, now, o);
}

/* PROCEDURE Timeout(i): nothing heard from the coordinator for a while. */
static void
timeout(struct bully *b, algo_time now, struct algo_out *o)
{
	b->waiting = 0;
	if (b->proc != P_NONE || coordinator(b)) {
		rearm_timeout(b, now, o);
		return;
	}
	if (b->s == ST_NORM || b->s == ST_REORG)
		call(b, P_TIMEOUT, (size_t)algo_rank(&b->a, b->c),
		    MSG_AREYOUTHERE, now, o);
	else
		election(b, -1, now, o);
}

static void
ack(struct bully *b, const struct algo_msg *m, int ans, struct algo_out *o)
{
	uint8_t p[ACK_LEN];

	memcpy(p, m->payload, REQ_LEN);
	p[REQ_LEN] = ans;
	algo_send(o, m->peer, MSG_ACK, &m->elid, p, sizeof(p));
}

static int
on_recv(struct bully *b, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	uint16_t j = m->peer;

	/* A call carries its caller's election id or none; an Ack echoes
	 * the call's. */
	if (m->len != (m->type == MSG_ACK ? ACK_LEN : REQ_LEN) ||
	    algo_get32(m->payload) == 0 ||
	    (m->type == MSG_ACK && m->payload[REQ_LEN] > 1) ||
	    (m->elid.node != 0 && m->elid.node !=
	    (m->type == MSG_ACK ? b->a.self : j)))
		return ALGO_EINVAL;
	/* "Hearing from the coordinator" postpones Timeout. */
	if (((b->s == ST_NORM || b->s == ST_REORG) && j == b->c) ||
	    (b->s == ST_ELEC && j == b->h))
		rearm_timeout(b, now, o);
	switch (m->type) {
	case MSG_AREYOUTHERE:
		ack(b, m, 1, o);
		break;
	case MSG_AREYOUNORMAL:
		ack(b, m, b->s == ST_NORM, o);
		break;
	case MSG_HALT:
		/* [[S(i).s := Election; S(i).h := j; CALL STOP]] */
		if (b->seq != 0)
			algo_timer_cancel(o, T_CALL);
		b->proc = P_NONE;
		b->seq = 0;
		b->s = ST_ELEC;
		b->h = j;
		show(b, now, o);
		rearm_timeout(b, now, o);
		ack(b, m, 1, o);
		break;
	case MSG_NEWCOORDINATOR:
		if (b->h == j && b->s == ST_ELEC) {
			b->c = j;
			b->s = ST_REORG;
			show(b, now, o);
		}
		ack(b, m, 1, o);
		break;
	case MSG_READY:
		if (b->c == j && b->s == ST_REORG) {
			b->d = m->elid;
			b->s = ST_NORM;
			show(b, now, o);
		}
		ack(b, m, 1, o);
		break;
	case MSG_ACK:
		if (b->seq == algo_get32(m->payload) &&
		    j == b->a.ids[b->cur])
			answered(b, m->payload[REQ_LEN], now, o);
		break;
	}
	return ALGO_OK;
}

static int
step(struct algo *a, const struct algo_input *in, struct algo_out *o)
{
	struct bully *b = (struct bully *)a;

	switch (in->type) {
	case ALGO_IN_RECV:
		return on_recv(b, &in->msg, in->now, o);
	case ALGO_IN_TIMER:
		if (in->timer == T_CALL && b->seq != 0)
			timed_out(b, in->now, o);
		else if (in->timer == T_CHECK)
			check(b, in->now, o);
		else if (in->timer == T_TIMEOUT)
			timeout(b, in->now, o);
		return ALGO_OK;
	case ALGO_IN_DOWN:	/* no failure detector: nothing to say */
		return ALGO_OK;
	default:
		return ALGO_ENOTSUP;
	}
}

/* PROCEDURE Recovery(i). */
static int
boot(struct algo *a, const uint8_t *persist, size_t len, algo_time now,
    struct algo_out *o)
{
	struct bully *b = (struct bully *)a;

	b->s = ST_DOWN;
	b->h = 0;		/* UNDEFINED */
	algo_timer_set(o, T_CHECK, now + a->t.check);
	election(b, -1, now, o);
	return ALGO_OK;
}

static void
msg_fields(const struct algo_msg *m, char *buf, size_t len)
{
	if (m->len < REQ_LEN)
		return;
	if (m->type == MSG_ACK && m->len == ACK_LEN)
		snprintf(buf, len, " seq=%u ans=%s", algo_get32(m->payload),
		    m->payload[REQ_LEN] ? "yes" : "no");
	else
		snprintf(buf, len, " seq=%u", algo_get32(m->payload));
}

static int
msg_set_field(struct algo_msg *m, const char *key, const char *value)
{
	if (strcmp(key, "seq") == 0) {
		if (algo_field_seq(m->payload, value) == -1)
			return -1;
		if (m->len < REQ_LEN)
			m->len = REQ_LEN;
		return 0;
	}
	if (strcmp(key, "ans") == 0) {
		if (algo_field_yesno(m->payload + REQ_LEN, value) == -1)
			return -1;
		m->len = ACK_LEN;
		return 0;
	}
	return -1;
}

const struct algo_ops algo_bully = {
	.name = "bully",
	.msgnames = msgnames,
	.nmsg = NMSG,
	.timernames = timernames,
	.ntimer = NTIMER,
	.timings = timings,
	.size = sizeof(struct bully),
	/* one peer at a time: Halt, NewCoordinator, Ready in turn */
	.acts_node = 1,
	.acts_fixed = 16,
	.boot = boot,
	.step = step,
	.msg_fields = msg_fields,
	.msg_set_field = msg_set_field,
};
