/*
 * invitation: Garcia-Molina's Invitation Election Algorithm ("Elections
 * in a Distributed Computing System", 1982, Appendix II), for
 * asynchronous systems: messages may be lost or late, nodes may pause,
 * the network may split.
 *
 * Nodes form groups, each with a coordinator and a unique number (here
 * NODE.INC.COUNTER: the incarnation makes it unique across restarts
 * without storing the counter).  A recovering node forms a group of its
 * own.  Every `check' a coordinator asks all others AreYouCoordinator;
 * if some are, it waits merge_wait per rank between it and the highest of
 * them ("wait time proportional to p - i", so that the highest merges
 * first) and then merges: a new group, an Invitation to those
 * coordinators and to its old members, accept_wait for Accepts ("a
 * reasonable time"), Reorganization, Ready to every member, Normal.  A
 * coordinator invited while Normal forwards the invitation to its
 * members and accepts.  A member that hears nothing from its coordinator
 * for `timeout', or whose failure detector reports it down, asks
 * AreYouThere; a No or no answer within T sends it into a group of its
 * own (Recovery).  Higher ids are higher priorities, as in the paper.
 *
 * Check is called more often than every `check', which the paper allows
 * (it only asks for "periodically"), so that a crash costs one detection
 * and one round of calls rather than a further period: at once after a
 * Recovery that follows a lost coordinator, and by a coordinator that a
 * lower coordinator asks AreYouCoordinator (it would otherwise merge that
 * one only at its next period, or be merged by it after the priority
 * wait).  Check's T ends early once every node has answered or is gone:
 * reported down by our detector, or silent to a call for T, and not
 * heard from since.
 *
 * The paper's calls are remote procedure calls answered within T or given
 * up.  Here each is a message and its answer (Answer, AcceptAnswer,
 * ReadyAnswer) matched by a call number or the group; a node runs one
 * call at a time (proc), and a CALL STOP cancels it.  The calls of a loop
 * (Check's AreYouCoordinator, Merge's Invitation and Ready) go out at
 * once rather than one after another; each is still answered within T
 * or counted as failed, which is all the loops rely on.  Every request
 * carries the sender's group, as the paper's calls do.  The task
 * description S(i).d is out of scope (elect publishes none; the lease
 * algorithm's edicts take its place): Ready carries none.
 *
 * Loss.  The paper takes a call unanswered within T as a failure, and
 * a failed AreYouThere, Accept or Ready means Recovery: a new group, and
 * merges after it.  A datagram lost now and then is no failure of the
 * callee, so a call is said again every T / INV_TRIES to whoever has not
 * answered, INV_TRIES times in all, and fails only when T ends without
 * an answer, as before: a loss of a few percent costs a few percent
 * more messages, not a Recovery, and a crash is acted on no later.
 * (Not an AreYouThere that follows a DownSig, which only confirms it.)
 * Every repeated request is answered as the first was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"

enum {
	M_AREYOUCOORDINATOR = 1, M_AREYOUTHERE, M_ANSWER, M_INVITATION,
	M_ACCEPT, M_ACCEPTANSWER, M_READY, M_READYANSWER, NMSG
};

static const char *const msgnames[NMSG] = {
	[M_AREYOUCOORDINATOR] = "AreYouCoordinator",
	[M_AREYOUTHERE] = "AreYouThere",
	[M_ANSWER] = "Answer",
	[M_INVITATION] = "Invitation",
	[M_ACCEPT] = "Accept",
	[M_ACCEPTANSWER] = "AcceptAnswer",
	[M_READY] = "Ready",
	[M_READYANSWER] = "ReadyAnswer",
};

/* Payloads: a call number (4 bytes) and an answer (1 byte: yes, no). */
static const size_t paylen[NMSG] = {
	[M_AREYOUCOORDINATOR] = 4,
	[M_AREYOUTHERE] = 4,
	[M_ANSWER] = 5,
	[M_ACCEPTANSWER] = 1,
};

enum { T_CHECK, T_TIMEOUT, T_CALL, T_MERGE, T_RETRY, NTIMER };

#define INV_TRIES	3	/* a call is said this often within T */

static const char *const timernames[NTIMER] = {
	[T_CHECK] = "check",		/* procedure Check, periodically */
	[T_TIMEOUT] = "timeout",	/* procedure Timeout */
	[T_CALL] = "call",		/* T for the pending call */
	[T_MERGE] = "merge",		/* Check's wait, Merge's accept wait */
	[T_RETRY] = "retry",		/* the pending call, said again */
};

/* The call or wait in progress. */
enum proc {
	P_NONE,
	P_CHECK,	/* Check: AreYouCoordinator answers */
	P_PRIO,		/* Check: the wait before Merge */
	P_ACCEPT,	/* Merge: Accepts */
	P_READY,	/* Merge: Ready answers */
	P_THERE,	/* Timeout: AreYouThere's answer */
	P_JOIN,		/* Invitation: AcceptAnswer */
};

struct inv {
	struct algo	 a;
	enum trace_status s;	/* S(i).s: Norm, Elec or Reorg */
	uint16_t	 c;	/* S(i).c, the coordinator */
	struct algo_elid g;	/* S(i).g, the group */
	uint32_t	 counter;	/* S(i).counter */
	struct algo_set	 up;	/* S(i).Up, by rank */
	struct algo_set	 temp;	/* Check's TempSet: coordinators */
	struct algo_set	 heard;	/* who answered the pending calls */
	struct algo_set	 core;	/* Merge: coordinators invited, old members */
	struct algo_set	 gone;	/* reported down or silent, not heard since */
	enum proc	 proc;
	uint32_t	 seq, nextseq;	/* call number of the pending call */
	uint16_t	 watch;	/* the node our detector monitors */
	int		 timing;	/* the Timeout timer is armed */
	int		 suspect;	/* AreYouThere follows a DownSig */
	int		 fresh;		/* Check follows our Recovery */
	int		 asked;		/* a lower coordinator looks for others */
	int		 graced;	/* Merge: the core has accepted */
	algo_time	 mstart;	/* Merge: when the invitations went out */
	unsigned	 armed;		/* T_CALL, T_MERGE, T_RETRY: bits */
	unsigned	 tries;		/* the pending call's, so far */
};

static void
show(struct inv *v, algo_time now, struct algo_out *o)
{
	algo_set_state(&v->a, o, now, v->s, v->c, &v->g);
}

static int
coordinator(const struct inv *v)
{
	return v->s == ST_NORM && v->c == v->a.self;
}

/* A member in Reorganization or Normal: it has a coordinator to watch. */
static int
member(const struct inv *v)
{
	return v->c != v->a.self && (v->s == ST_NORM || v->s == ST_REORG);
}

static void	check(struct inv *, algo_time, struct algo_out *);

/*
 * After every input: the detector watches a member's coordinator, and
 * Timeout is armed while a member has no call of its own in progress.
 */
static void
settle(struct inv *v, algo_time now, struct algo_out *o)
{
	uint16_t w;
	int t;

	if (v->asked && coordinator(v) && v->proc == P_NONE) {
		v->asked = 0;
		check(v, now, o);
	}
	w = member(v) ? v->c : 0;
	t = member(v) && v->proc == P_NONE;
	if (w != v->watch) {
		if (v->watch != 0)
			algo_fd(o, ALGO_FD_STOP, v->watch);
		if (w != 0)
			algo_fd(o, ALGO_FD_START, w);
		v->watch = w;
	}
	if (t && !v->timing)
		algo_timer_set(o, T_TIMEOUT, now + v->a.t.timeout);
	else if (!t && v->timing)
		algo_timer_cancel(o, T_TIMEOUT);
	v->timing = t;
}

static void
arm(struct inv *v, unsigned id, algo_time at, struct algo_out *o)
{
	algo_timer_set(o, id, at);
	v->armed |= 1U << id;
}

/* The pending call's requests are out: T for its answers, and a retry
 * within T (see Loss above). */
static void
call(struct inv *v, algo_time now, struct algo_out *o)
{
	arm(v, T_CALL, now + v->a.t.reply, o);
	arm(v, T_RETRY, now + v->a.t.reply / INV_TRIES, o);
	v->tries = 1;
}

/* CALL STOP: the call or wait in progress ends. */
static void
stop(struct inv *v, struct algo_out *o)
{
	if (v->armed & 1U << T_CALL)
		algo_timer_cancel(o, T_CALL);
	if (v->armed & 1U << T_MERGE)
		algo_timer_cancel(o, T_MERGE);
	if (v->armed & 1U << T_RETRY)
		algo_timer_cancel(o, T_RETRY);
	v->armed &= ~(1U << T_CALL | 1U << T_MERGE | 1U << T_RETRY);
	v->proc = P_NONE;
	v->seq = 0;
	v->suspect = 0;
	v->fresh = 0;
}

/* S(i).counter := S(i).counter + 1; S(i).g := i CONCATENATED counter. */
static void
new_group(struct inv *v)
{
	v->g.node = v->a.self;
	v->g.inc = v->a.inc;
	v->g.ctr = ++v->counter;
	v->c = v->a.self;
	algo_set_clear(&v->up);
}

/* PROCEDURE Recovery: a group of our own, at once Normal (the paper's
 * Election and Reorganization here fall in one critical region). */
static void
recovery(struct inv *v, algo_time now, struct algo_out *o)
{
	stop(v, o);
	new_group(v);
	v->s = ST_NORM;
	show(v, now, o);
}

/* Recovery after losing our group: look for the others now. */
static void
regroup(struct inv *v, algo_time now, struct algo_out *o)
{
	recovery(v, now, o);
	check(v, now, o);
	v->fresh = v->proc == P_CHECK;
}

static void
send_call(struct inv *v, uint16_t to, unsigned type, const struct algo_elid *g,
    struct algo_out *o)
{
	uint8_t p[4];

	algo_put32(p, v->seq);
	algo_send(o, to, type, g, p, sizeof(p));
}

static void
answer(const struct algo_msg *m, unsigned type, int yes, struct algo_out *o)
{
	uint8_t p[5];
	size_t len = 0;

	if (type == M_ANSWER) {
		memcpy(p, m->payload, 4);
		len = 4;
	}
	if (type != M_READYANSWER)
		p[len++] = yes != 0;
	algo_send(o, m->peer, type, &m->elid, p, len);
}

/* PROCEDURE Check, every `check': look for other coordinators. */
static void
check(struct inv *v, algo_time now, struct algo_out *o)
{
	size_t r;

	algo_timer_set(o, T_CHECK, now + v->a.t.check);
	if (!coordinator(v) || v->proc != P_NONE || v->a.n == 1)
		return;
	v->proc = P_CHECK;
	v->seq = ++v->nextseq;
	algo_set_clear(&v->temp);
	algo_set_clear(&v->heard);
	for (r = 0; r < v->a.n; r++)
		if (r != v->a.rank)
			send_call(v, v->a.ids[r], M_AREYOUCOORDINATOR, &v->g, o);
	call(v, now, o);
}

/* PROCEDURE Merge(i, TempSet). */
static void
merge(struct inv *v, algo_time now, struct algo_out *o)
{
	struct algo_set old = v->up;
	size_t r;

	stop(v, o);
	v->s = ST_ELEC;
	new_group(v);
	show(v, now, o);
	v->core = old;
	for (r = 0; r < v->a.n; r++)
		if (algo_set_has(&v->temp, r))
			algo_set_add(&v->core, r);
	v->mstart = now;
	v->graced = 0;
	for (r = 0; r < v->a.n; r++)
		if (algo_set_has(&v->temp, r))
			algo_send(o, v->a.ids[r], M_INVITATION, &v->g, NULL, 0);
	for (r = 0; r < v->a.n; r++)
		if (algo_set_has(&old, r) && !algo_set_has(&v->temp, r))
			algo_send(o, v->a.ids[r], M_INVITATION, &v->g, NULL, 0);
	v->proc = P_ACCEPT;
	arm(v, T_MERGE, now + v->a.t.accept_wait, o);
}

/* merge_wait, or twice T: longer than the higher coordinator's Check. */
static algo_time
prio_wait(const struct inv *v)
{
	return v->a.t.merge_wait ? v->a.t.merge_wait : 2 * v->a.t.reply;
}

/* Check's answers are in (or T passed): merge now, or after the wait
 * that gives a higher coordinator the first chance. */
static void
check_done(struct inv *v, algo_time now, struct algo_out *o)
{
	size_t r, p = 0;
	int any = 0, fresh = v->fresh;

	stop(v, o);
	for (r = 0; r < v->a.n; r++)
		if (algo_set_has(&v->temp, r)) {
			p = r;
			any = 1;
		}
	if (!any)
		return;
	/* Live nodes above us that lost the same coordinator are about to
	 * recover too: the highest of them merges first. */
	for (r = p + 1; fresh && r < v->a.n; r++)
		if (algo_set_has(&v->heard, r))
			p = r;
	if (p < v->a.rank) {
		merge(v, now, o);
		return;
	}
	v->proc = P_PRIO;
	arm(v, T_MERGE, now + prio_wait(v) * (algo_time)(p - v->a.rank), o);
}

/* Merge, after the accept wait: Reorganization, then Ready to S(i).Up. */
static void
reorganize(struct inv *v, algo_time now, struct algo_out *o)
{
	size_t r;
	int any = 0;

	v->proc = P_NONE;
	v->s = ST_REORG;
	show(v, now, o);
	algo_set_clear(&v->heard);
	for (r = 0; r < v->a.n; r++)
		if (algo_set_has(&v->up, r)) {
			algo_send(o, v->a.ids[r], M_READY, &v->g, NULL, 0);
			any = 1;
		}
	if (!any) {
		v->s = ST_NORM;
		show(v, now, o);
		return;
	}
	v->proc = P_READY;
	call(v, now, o);
}

/* Whether every node of SET is in HAVE. */
static int
subset(const struct inv *v, const struct algo_set *set,
    const struct algo_set *have)
{
	size_t r;

	for (r = 0; r < v->a.n; r++)
		if (algo_set_has(set, r) && !algo_set_has(have, r))
			return 0;
	return 1;
}

/*
 * Merge's "reasonable time" for Accepts ends once every node that may
 * accept has: all that answered Check (the coordinators invited, members
 * of any group, invited through their coordinators) and our old members.
 * Of those that answered as members, only the members of the coordinators
 * invited will accept, a forwarding later than their coordinators: once
 * the coordinators and our old members are in, the wait lasts at most as
 * long again as that took.  Any other node's Accept is refused, and that
 * node recovers at once.
 */
static void
accepted(struct inv *v, algo_time now, struct algo_out *o)
{
	algo_time end = v->mstart + v->a.t.accept_wait;

	if (v->proc != P_ACCEPT)
		return;
	if (subset(v, &v->core, &v->up) && subset(v, &v->heard, &v->up)) {
		stop(v, o);
		reorganize(v, now, o);
	} else if (!v->graced && subset(v, &v->core, &v->up)) {
		v->graced = 1;
		if (now + (now - v->mstart) < end)
			arm(v, T_MERGE, now + (now - v->mstart), o);
	}
}

/* PROCEDURE Timeout: no word from our coordinator, or our detector
 * (SUSPECT) reported it down. */
static void
timeout(struct inv *v, int suspect, algo_time now, struct algo_out *o)
{
	if (!member(v) || v->proc != P_NONE)
		return;
	v->proc = P_THERE;
	v->suspect = suspect;
	v->seq = ++v->nextseq;
	send_call(v, v->c, M_AREYOUTHERE, &v->g, o);
	call(v, now, o);
}

/* PROCEDURE Invitation(i, j, gn): j = gn's node invites us. */
static void
invitation(struct inv *v, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	struct algo_set old = v->up;
	uint16_t was = v->c;
	size_t r;

	/* Decline unless Normal; our own group's invitation, forwarded
	 * back to us, is no news, nor is one to the group we are in (an
	 * old coordinator forwards it to members that joined already). */
	if (v->s != ST_NORM || m->elid.node == v->a.self ||
	    algo_elid_eq(&m->elid, &v->g))
		return;
	stop(v, o);
	v->asked = 0;
	v->s = ST_ELEC;
	v->c = m->elid.node;
	v->g = m->elid;
	algo_set_clear(&v->up);
	show(v, now, o);
	if (was == v->a.self)	/* forward it to my old members */
		for (r = 0; r < v->a.n; r++)
			if (algo_set_has(&old, r))
				algo_send(o, v->a.ids[r], M_INVITATION, &v->g,
				    NULL, 0);
	algo_send(o, v->c, M_ACCEPT, &v->g, NULL, 0);
	v->proc = P_JOIN;
	call(v, now, o);
}

static void
on_answer(struct inv *v, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	size_t r = (size_t)algo_rank(&v->a, m->peer);
	int yes = m->payload[4];

	if (v->seq == 0 || algo_get32(m->payload) != v->seq)
		return;
	if (v->proc == P_CHECK) {
		algo_set_add(&v->heard, r);
		if (yes)
			algo_set_add(&v->temp, r);
		for (r = 0; r < v->a.n; r++)
			if (r != v->a.rank && !algo_set_has(&v->heard, r) &&
			    !algo_set_has(&v->gone, r))
				return;
		check_done(v, now, o);
	} else if (v->proc == P_THERE && m->peer == v->c) {
		/* The detector reports a node once: watch it anew. */
		if (yes && v->suspect)
			algo_fd(o, ALGO_FD_START, v->c);
		stop(v, o);
		if (!yes)
			regroup(v, now, o);
	}
}

static void
on_recv(struct inv *v, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	size_t r = (size_t)algo_rank(&v->a, m->peer);

	switch (m->type) {
	case M_AREYOUCOORDINATOR:
		answer(m, M_ANSWER, coordinator(v), o);
		/* A lower coordinator looks for others: be first to merge
		 * it (settle() checks once we are an idle coordinator). */
		if (m->elid.node == m->peer && r < v->a.rank &&
		    v->c == v->a.self)
			v->asked = 1;
		break;
	case M_AREYOUTHERE:
		/* Am I the coordinator of gn, with j a member? */
		answer(m, M_ANSWER, algo_elid_eq(&m->elid, &v->g) &&
		    v->c == v->a.self && algo_set_has(&v->up, r), o);
		break;
	case M_ANSWER:
		on_answer(v, m, now, o);
		break;
	case M_INVITATION:
		invitation(v, m, now, o);
		break;
	case M_ACCEPT:
		/* PROCEDURE Accept: j joins, while we still gather.  The
		 * answer says whether we took j, so that one we did not
		 * take recovers now rather than after its Timeout. */
		if (v->s == ST_ELEC && v->c == v->a.self &&
		    algo_elid_eq(&m->elid, &v->g)) {
			algo_set_add(&v->up, r);
			answer(m, M_ACCEPTANSWER, 1, o);
			accepted(v, now, o);
		} else
			/* A repeated Accept of a member we took: yes
			 * again, its first answer may be lost. */
			answer(m, M_ACCEPTANSWER, v->c == v->a.self &&
			    algo_elid_eq(&m->elid, &v->g) &&
			    algo_set_has(&v->up, r), o);
		break;
	case M_ACCEPTANSWER:
		if (v->proc != P_JOIN || m->peer != v->c ||
		    !algo_elid_eq(&m->elid, &v->g))
			break;
		stop(v, o);
		if (!m->payload[0]) {
			regroup(v, now, o);
			break;
		}
		v->s = ST_REORG;
		show(v, now, o);
		break;
	case M_READY:
		/*
		 * PROCEDURE Ready: the coordinator of gn is done.  The
		 * answer says the Ready was applied, and nothing else:
		 * answered regardless, a Ready that overtook our
		 * AcceptAnswer let the coordinator go Normal while we
		 * stayed in Reorganization for good.  A Ready of our
		 * group from its coordinator also says we were accepted
		 * (it goes to S(i).Up only), so it ends our wait for the
		 * AcceptAnswer; a repeated one is answered again.
		 */
		if (!algo_elid_eq(&m->elid, &v->g) || m->peer != v->c)
			break;
		if (v->s == ST_ELEC && v->proc == P_JOIN)
			stop(v, o);
		else if (v->s != ST_REORG && v->s != ST_NORM)
			break;
		if (v->s != ST_NORM) {
			v->s = ST_NORM;
			show(v, now, o);
		}
		answer(m, M_READYANSWER, 1, o);
		break;
	case M_READYANSWER:
		if (v->proc != P_READY || !algo_elid_eq(&m->elid, &v->g))
			break;
		algo_set_add(&v->heard, r);
		if (subset(v, &v->up, &v->heard)) {
			stop(v, o);
			v->s = ST_NORM;
			show(v, now, o);
		}
		break;
	}
}

/*
 * Checks a payload's length, and the group: made by a node of the
 * cluster, and where it can only be one, a group we made (Accept,
 * ReadyAnswer) or the sender made (AcceptAnswer, Ready).  The others
 * carry a group of any node: the sender's (its coordinator's), a
 * forwarded invitation's, ours echoed.
 */
static int
valid(const struct inv *v, const struct algo_msg *m)
{
	if (m->len != paylen[m->type] || algo_rank(&v->a, m->elid.node) == -1)
		return 0;
	if ((m->type == M_ACCEPT || m->type == M_READYANSWER) &&
	    m->elid.node != v->a.self)
		return 0;
	if ((m->type == M_ACCEPTANSWER || m->type == M_READY) &&
	    m->elid.node != m->peer)
		return 0;
	if (m->type == M_ANSWER)
		return m->payload[4] <= 1;
	if (m->type == M_ACCEPTANSWER)
		return m->payload[0] <= 1;
	return 1;
}

/* The pending call, said again to whoever has not answered (Loss). */
static void
retry(struct inv *v, algo_time now, struct algo_out *o)
{
	size_t r;

	switch (v->proc) {
	case P_CHECK:
		for (r = 0; r < v->a.n; r++)
			if (r != v->a.rank && !algo_set_has(&v->heard, r) &&
			    !algo_set_has(&v->gone, r))
				send_call(v, v->a.ids[r], M_AREYOUCOORDINATOR,
				    &v->g, o);
		break;
	case P_READY:
		for (r = 0; r < v->a.n; r++)
			if (algo_set_has(&v->up, r) &&
			    !algo_set_has(&v->heard, r))
				algo_send(o, v->a.ids[r], M_READY, &v->g,
				    NULL, 0);
		break;
	case P_THERE:
		/* Not when our detector reported the coordinator down:
		 * the call only confirms it, and a crash costs no more
		 * messages than the paper counts. */
		if (v->suspect)
			return;
		send_call(v, v->c, M_AREYOUTHERE, &v->g, o);
		break;
	case P_JOIN:
		algo_send(o, v->c, M_ACCEPT, &v->g, NULL, 0);
		break;
	default:
		return;
	}
	if (++v->tries < INV_TRIES)
		arm(v, T_RETRY, now + v->a.t.reply / INV_TRIES, o);
}

static void
on_timer(struct inv *v, unsigned id, algo_time now, struct algo_out *o)
{
	size_t r;

	v->armed &= ~(1U << id);
	switch (id) {
	case T_CHECK:
		check(v, now, o);
		break;
	case T_TIMEOUT:
		v->timing = 0;
		timeout(v, 0, now, o);
		break;
	case T_CALL:
		if (v->proc == P_CHECK) {
			for (r = 0; r < v->a.n; r++)
				if (r != v->a.rank &&
				    !algo_set_has(&v->heard, r))
					algo_set_add(&v->gone, r);
			check_done(v, now, o);
		} else if (v->proc != P_NONE) {	/* ONTIMEOUT(T): Recovery */
			if (v->proc == P_THERE)
				algo_set_add(&v->gone,
				    (size_t)algo_rank(&v->a, v->c));
			regroup(v, now, o);
		}
		break;
	case T_MERGE:
		if (v->proc == P_PRIO && coordinator(v))
			merge(v, now, o);
		else if (v->proc == P_ACCEPT)
			reorganize(v, now, o);
		break;
	case T_RETRY:
		retry(v, now, o);
		break;
	}
}

static int
step(struct algo *a, const struct algo_input *in, struct algo_out *o)
{
	struct inv *v = (struct inv *)a;
	const struct algo_msg *m = &in->msg;
	struct algo_elid g;
	uint16_t c;

	switch (in->type) {
	case ALGO_IN_RECV:
		if (!valid(v, m))
			return ALGO_EINVAL;
		algo_set_del(&v->gone, (size_t)algo_rank(a, m->peer));
		c = v->c;
		g = v->g;
		on_recv(v, m, in->now, o);
		/* Word from our coordinator, in our group, postpones
		 * Timeout. */
		if (m->peer == c && c == v->c && algo_elid_eq(&m->elid, &g) &&
		    algo_elid_eq(&g, &v->g) && v->timing)
			algo_timer_set(o, T_TIMEOUT, in->now + a->t.timeout);
		break;
	case ALGO_IN_DOWN:
		algo_set_add(&v->gone, (size_t)algo_rank(a, in->down));
		if (in->down == v->c)
			timeout(v, 1, in->now, o);
		break;
	case ALGO_IN_TIMER:
		on_timer(v, in->timer, in->now, o);
		break;
	default:
		return ALGO_ENOTSUP;
	}
	settle(v, in->now, o);
	return ALGO_OK;
}

/* On recovery from a crash: PROCEDURE Recovery, and Check from now on. */
static int
boot(struct algo *a, const uint8_t *persist, size_t len, algo_time now,
    struct algo_out *o)
{
	struct inv *v = (struct inv *)a;

	recovery(v, now, o);
	algo_timer_set(o, T_CHECK, now + a->t.check);
	return ALGO_OK;
}

static void
msg_fields(const struct algo_msg *m, char *buf, size_t len)
{
	if (m->type >= NMSG || m->len != paylen[m->type])
		return;
	switch (m->type) {
	case M_AREYOUCOORDINATOR:
	case M_AREYOUTHERE:
		snprintf(buf, len, " seq=%u", algo_get32(m->payload));
		break;
	case M_ANSWER:
		snprintf(buf, len, " seq=%u ans=%s", algo_get32(m->payload),
		    m->payload[4] ? "yes" : "no");
		break;
	case M_ACCEPTANSWER:
		snprintf(buf, len, " ans=%s", m->payload[0] ? "yes" : "no");
		break;
	}
}

static int
msg_set_field(struct algo_msg *m, const char *key, const char *value)
{
	size_t ans = m->type == M_ANSWER ? 4 : 0;

	if (m->type >= NMSG || paylen[m->type] == 0)
		return -1;
	if (strcmp(key, "seq") == 0 && m->type != M_ACCEPTANSWER) {
		if (algo_field_seq(m->payload, value) == -1)
			return -1;
	} else if (strcmp(key, "ans") == 0 && (m->type == M_ANSWER ||
	    m->type == M_ACCEPTANSWER)) {
		if (algo_field_yesno(m->payload + ans, value) == -1)
			return -1;
	} else
		return -1;
	m->len = paylen[m->type];
	return 0;
}

/* Garcia-Molina's T, the periods of Check and Timeout, and the waits
 * before Merge and for Accepts. */
static const char *const timings[] = {
	"reply", "check", "timeout", "merge_wait", "accept_wait", NULL
};

const struct algo_ops algo_invitation = {
	.name = "invitation",
	.timings = timings,
	.msgnames = msgnames,
	.nmsg = NMSG,
	.timernames = timernames,
	.ntimer = NTIMER,
	.size = sizeof(struct inv),
	/* a merge invites every member and may make it Ready */
	.acts_node = 3,
	.acts_fixed = 16,
	.boot = boot,
	.step = step,
	.msg_fields = msg_fields,
	.msg_set_field = msg_set_field,
};
