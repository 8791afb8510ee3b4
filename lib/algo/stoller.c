/* The parts Stoller's Figures 1 and 3 share; see stoller.h. */
#include "algo/stoller.h"

const char *const stoller_msgnames[SM_NMSG] = {
	[SM_HALT] = "Halt",
	[SM_ACK] = "Ack",
	[SM_LDR] = "Ldr",
	[SM_NORMQ] = "Norm?",
	[SM_NOTNORM] = "NotNorm",
	[SM_REJ] = "Rej",
};

const char *const stoller_timernames[SM_NTIMER] = {
	[SM_TICK] = "tick",
	[SM_RESEND] = "resend",
	[SM_ASK] = "ask",
};

void
stoller_show(struct stoller *s, algo_time now, struct algo_out *o)
{
	algo_set_state(&s->a, o, now, s->status, s->ldr,
	    s->fig->async ? &s->elid : NULL);
}

/* OP on every node above us (lesser(i)) or below us (greater(i)). */
void
stoller_start_fd(struct stoller *s, enum algo_fd_op op, int above,
    struct algo_out *o)
{
	size_t r;

	if (above) {
		for (r = s->a.rank + 1; r < s->a.n; r++)
			algo_fd(o, op, s->a.ids[r]);
	} else {
		for (r = s->a.rank; r-- > 0;)
			algo_fd(o, op, s->a.ids[r]);
	}
}

/* How long a Halt waits for its answer before it is said again (see
 * SM_RESEND): tau, or under Figure 3, where a lost datagram is an
 * ordinary event, tau / STOLLER_RESENDS, so that a lost Halt or Ack costs
 * a few milliseconds rather than a whole tau. */
static algo_time
resend_period(const struct stoller *s)
{
	return s->fig->async ? s->a.t.tau / STOLLER_RESENDS : s->a.t.tau;
}

/* StartStage2, from "status := Elec2" on. */
void
stoller_start_stage2(struct stoller *s, algo_time now, struct algo_out *o)
{
	s->status = ST_ELEC2;
	algo_set_clear(&s->acks);
	algo_set_clear(&s->rejs);
	s->asks = 0;
	s->pendack = s->a.rank;
	stoller_show(s, now, o);
	stoller_contin_stage2(s, now, o);
}

/* ContinStage2: halt the next node below, one at a time; past the
 * lowest id, we lead. */
void
stoller_contin_stage2(struct stoller *s, algo_time now, struct algo_out *o)
{
	size_t r;

	if (s->pendack > 0) {
		s->pendack--;
		algo_fd(o, ALGO_FD_START, s->a.ids[s->pendack]);
		algo_send(o, s->a.ids[s->pendack], SM_HALT, &s->elid, NULL, 0);
		algo_timer_set(o, SM_RESEND, now + resend_period(s));
		s->resending = 1;
		return;
	}
	if (s->resending)
		algo_timer_cancel(o, SM_RESEND);
	s->resending = 0;
	s->ldr = s->a.self;
	s->status = ST_NORM;
	stoller_show(s, now, o);
	for (r = s->a.rank; r-- > 0;)
		if (algo_set_has(&s->acks, r))
			algo_send(o, s->a.ids[r], SM_LDR, &s->elid, NULL, 0);
	if (!s->ticking) {
		algo_timer_set(o, SM_TICK, now + s->a.t.tau);
		s->ticking = 1;
	}
	for (r = s->a.rank; r-- > 0;)
		if (algo_set_has(&s->rejs, r))
			s->asks = STOLLER_ASKS;
	if (s->asks > 0 && !s->asking) {
		algo_timer_set(o, SM_ASK, now + s->a.t.tau / STOLLER_ASKS);
		s->asking = 1;
	}
}

/* Halting(t, j), from "Start_FD(j)" on. */
void
stoller_halting(struct stoller *s, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	algo_fd(o, ALGO_FD_START, m->peer);
	s->elid = m->elid;
	s->status = ST_WAIT;
	stoller_show(s, now, o);
	algo_send(o, m->peer, SM_ACK, &m->elid, NULL, 0);
}

/* On <Ack, t> from j. */
static void
on_ack(struct stoller *s, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	if (s->status == ST_ELEC2 && algo_elid_eq(&m->elid, &s->elid) &&
	    m->peer == s->a.ids[s->pendack]) {
		algo_set_add(&s->acks, s->pendack);
		stoller_contin_stage2(s, now, o);
	}
}

/* On <Ldr, t> from j. */
void
stoller_ldr(struct stoller *s, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	size_t r;

	if (s->status != ST_WAIT || !algo_elid_eq(&m->elid, &s->elid))
		return;
	s->ldr = m->peer;
	s->status = ST_NORM;
	stoller_show(s, now, o);
	for (r = 0; r < s->a.n; r++)
		if (r != s->a.rank)
			algo_fd(o, ALGO_FD_STOP, s->a.ids[r]);
	algo_fd(o, ALGO_FD_START, s->ldr);
}

/* On <NotNorm, t> from j: a node below is not with us; take it in. */
static void
on_notnorm(struct stoller *s, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	if (s->status == ST_NORM && s->ldr == s->a.self &&
	    algo_elid_eq(&m->elid, &s->elid))
		s->fig->elect(s, now, o);
}

/* Periodically(tau): the leader sends Norm? to greater(i). */
static void
on_tick(struct stoller *s, algo_time now, struct algo_out *o)
{
	size_t r;

	if (s->status != ST_NORM || s->ldr != s->a.self) {
		s->ticking = 0;
		return;
	}
	for (r = s->a.rank; r-- > 0;)
		algo_send(o, s->a.ids[r], SM_NORMQ, &s->elid, NULL, 0);
	algo_timer_set(o, SM_TICK, now + s->a.t.tau);
}

/* Norm? again, sooner, to the nodes that rejected our Halt: see SM_ASK. */
static void
on_ask(struct stoller *s, algo_time now, struct algo_out *o)
{
	size_t r;

	s->asking = 0;
	if (s->status != ST_NORM || s->ldr != s->a.self || s->asks == 0)
		return;
	for (r = s->a.rank; r-- > 0;)
		if (algo_set_has(&s->rejs, r))
			algo_send(o, s->a.ids[r], SM_NORMQ, &s->elid, NULL, 0);
	if (--s->asks > 0) {
		algo_timer_set(o, SM_ASK, now + s->a.t.tau / STOLLER_ASKS);
		s->asking = 1;
	}
}

/* The Halt of stage 2 is still unanswered: say it again. */
static void
on_resend(struct stoller *s, algo_time now, struct algo_out *o)
{
	s->resending = 0;
	if (s->status != ST_ELEC2)
		return;
	algo_send(o, s->a.ids[s->pendack], SM_HALT, &s->elid, NULL, 0);
	algo_timer_set(o, SM_RESEND, now + resend_period(s));
	s->resending = 1;
}

int
stoller_step(struct algo *a, const struct algo_input *in, struct algo_out *o)
{
	struct stoller *s = (struct stoller *)a;

	switch (in->type) {
	case ALGO_IN_RECV:
		/* Every message of both figures is an elid, nothing more:
		 * the sender's own for Halt, Ldr and Norm?, ours echoed for
		 * the answers. */
		if (in->msg.len != 0 || in->msg.elid.node !=
		    (in->msg.type == SM_HALT || in->msg.type == SM_LDR ||
		    in->msg.type == SM_NORMQ ? in->msg.peer : s->a.self))
			return ALGO_EINVAL;
		if (in->msg.type == SM_ACK)
			on_ack(s, &in->msg, in->now, o);
		else if (in->msg.type == SM_LDR)
			stoller_ldr(s, &in->msg, in->now, o);
		else if (in->msg.type == SM_NOTNORM)
			on_notnorm(s, &in->msg, in->now, o);
		else
			s->fig->recv(s, &in->msg, in->now, o);
		return ALGO_OK;
	case ALGO_IN_DOWN:
		s->fig->down(s, in->down, in->now, o);
		return ALGO_OK;
	case ALGO_IN_TIMER:
		if (in->timer == SM_TICK)
			on_tick(s, in->now, o);
		else if (in->timer == SM_ASK)
			on_ask(s, in->now, o);
		else
			on_resend(s, in->now, o);
		return ALGO_OK;
	default:
		return ALGO_ENOTSUP;
	}
}

int
stoller_boot(struct algo *a, const struct stoller_figure *fig, algo_time now,
    struct algo_out *o)
{
	struct stoller *s = (struct stoller *)a;

	s->fig = fig;
	fig->elect(s, now, o);
	return ALGO_OK;
}
