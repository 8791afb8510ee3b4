/* The leadership as this host acts on it: see lead.h. */
#include <assert.h>
#include <string.h>

#include "host/lead.h"

/* One input's most: a reply, the stop's log line, one action per slot
 * (a stop, an answer or a refusal: a slot is answered or waits) and a
 * leave. */
_Static_assert(LEAD_ACTS_MAX >= LEAD_SLOTS + 3, "one input's actions fit");

const char *
lead_why_name(enum lead_why w)
{
	static const char *const names[] = {
		[LEAD_WHY_NONE] = "none", [LEAD_WHY_MISMATCH] = "mismatch",
		[LEAD_WHY_LEAVING] = "leaving", [LEAD_WHY_EPOCH] = "epoch",
		[LEAD_WHY_DEADLINE] = "deadline", [LEAD_WHY_GRACE] = "grace",
	};

	return (size_t)w < sizeof(names) / sizeof(names[0]) ? names[w] : "?";
}

void
lead_init(struct lead *l, const struct lead_conf *c)
{
	assert(c->slots >= 1 && c->slots <= LEAD_SLOTS);
	memset(l, 0, sizeof(*l));
	l->conf = *c;
}

void
lead_status(const struct lead *l, struct algo_status *st)
{
	if (!l->vetoed)
		return;
	st->leader = 0;
	st->token = 0;
	st->until = 0;
	st->state.ldr = 0;
	st->hint = 0;
}

const char *
lead_role(const struct lead *l, const struct algo_status *core)
{
	struct algo_status st = *core;

	lead_status(l, &st);
	return st.leader ? "leader" : st.state.status == ST_NORM &&
	    !l->vetoed ? "follower" : "none";
}

void
lead_reply(const struct lead *l, const struct algo_status *core,
    algo_time now, struct lead_reply *r)
{
	struct algo_status st = *core;
	const struct algo_timing *t = &l->conf.timing;

	lead_status(l, &st);
	memset(r, 0, sizeof(*r));
	r->g.id = l->conf.self;
	r->g.leader = st.leader;
	r->g.lease = l->conf.deadline;
	r->g.token = st.token;
	r->g.until = st.until;
	r->g.tlease = t->lease;
	r->g.renew = t->renew;
	r->g.rtt = t->rtt;
	r->g.drift = t->drift;
	r->ldr = st.state.ldr != 0 ? st.state.ldr : st.hint;
	r->now = now;
	/* A token only while leading, a deadline never beyond the core's,
	 * nothing of a leadership under a veto. */
	assert(r->g.token == 0 || r->g.leader);
	assert(r->g.until <= core->until);
	assert(!l->vetoed || (!r->g.leader && r->g.until == 0));
}

static struct lead_action *
act(struct lead_out *o, enum lead_act_type type, int slot)
{
	struct lead_action *a;

	assert(o->n < LEAD_ACTS_MAX);
	a = &o->v[o->n++];
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->slot = slot;
	return a;
}

static unsigned
running(const struct lead *l)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < l->conf.slots; i++)
		n += l->slot[i].state == LEAD_ANSWERED && l->slot[i].started &&
		    !l->slot[i].killed;
	return n;
}

/* Every answered registration hears "ok stop", said once for the log. */
static void
stop(struct lead *l, enum lead_why why, struct lead_out *o)
{
	struct lead_action *a;
	size_t i;

	a = act(o, LEAD_STOPPING, -1);
	a->why = why;
	a->count = running(l);
	l->n.told_stop += a->count;
	for (i = 0; i < l->conf.slots; i++)
		if (l->slot[i].state == LEAD_ANSWERED)
			act(o, LEAD_STOP, (int)i)->why = why;
}

/* Registration I answered if it may be: at once while this node leads
 * (with its token, where leaderships have one), or that it does not lead
 * unless it waits for that, or the core leads until a deadline without
 * its token yet, or it tries while no holder is known; never while the
 * epoch ends or the node leaves. */
static void
answer(struct lead *l, const struct lead_input *in, size_t i,
    struct lead_out *o, algo_time *wake)
{
	struct lead_slot *s = &l->slot[i];
	struct algo_status st = in->st;
	struct lead_action *a;

	if (s->state != LEAD_WAITING)
		return;
	if (l->leaving) {
		act(o, LEAD_REFUSE, (int)i);
		memset(s, 0, sizeof(*s));
		return;
	}
	if (in->ending)
		return;
	lead_status(l, &st);
	if (!st.leader && st.until > in->now) {
		if (*wake == -1 || st.until < *wake)
			*wake = st.until;
		return;
	}
	if (!st.leader && s->wait)
		return;
	if (!st.leader && st.hint == 0 && in->now < s->try_by) {
		if (*wake == -1 || s->try_by < *wake)
			*wake = s->try_by;
		return;
	}
	a = act(o, LEAD_ANSWER, (int)i);
	lead_reply(l, &in->st, in->now, &a->r);
	s->state = LEAD_ANSWERED;
	s->started = a->r.g.leader;
	l->n.started += (uint64_t)s->started;
	/* Started only by a leadership that counts, in an epoch that goes
	 * on, on a node that stays. */
	assert(!s->started || (!l->vetoed && !in->ending && !l->leaving));
}

/* The leave asked: now, once the commands are gone, or at leave_by. */
static void
leave(struct lead *l, algo_time now, struct lead_out *o)
{
	struct lead_action *a;
	unsigned n = running(l);

	if (!l->leaving || l->left || (n > 0 && now < l->leave_by))
		return;
	a = act(o, LEAD_LEAVE, -1);
	a->count = n;
	a->why = n > 0 ? LEAD_WHY_DEADLINE : LEAD_WHY_NONE;
	l->left = 1;
}

void
lead_step(struct lead *l, const struct lead_input *in, struct lead_out *o)
{
	struct lead_slot *s = NULL;
	struct lead_action *a;
	algo_time wake = -1;
	size_t i;

	o->n = 0;
	if (in->slot >= 0 && (size_t)in->slot < l->conf.slots)
		s = &l->slot[in->slot];
	switch (in->type) {
	case LEAD_IN_TICK:
		break;
	case LEAD_IN_VERDICT:
		l->vetoed = in->vetoed;
		l->n.vetoed = in->vetoed;
		l->n.mismatch = in->live;
		/* At once, not at the guards' next poll. */
		if (in->changed && l->vetoed && running(l) > 0)
			stop(l, LEAD_WHY_MISMATCH, o);
		break;
	case LEAD_IN_LEASE:
		a = act(o, LEAD_REPLY, in->slot);
		lead_reply(l, &in->st, in->now, &a->r);
		break;
	case LEAD_IN_TASK:
		assert(s != NULL);
		memset(s, 0, sizeof(*s));
		s->state = LEAD_WAITING;
		s->wait = in->wait;
		if (!in->wait && l->conf.try_for > 0)
			s->try_by = in->now + l->conf.try_for;
		break;
	case LEAD_IN_KILLED:
		assert(s != NULL);
		if (s->state == LEAD_ANSWERED && s->started && !s->killed) {
			l->n.killed++;
			act(o, LEAD_KILLED, in->slot)->why = in->why;
		}
		/* Said once the SIGKILL is sent: the group runs no more,
		 * however long its reaping takes. */
		s->killed = 1;
		break;
	case LEAD_IN_GONE:
		assert(s != NULL);
		if (s->state == LEAD_ANSWERED && s->started)
			l->n.ended++;
		memset(s, 0, sizeof(*s));
		break;
	case LEAD_IN_LEAVE:
		if (l->left)
			break;
		/* Asked again, or nothing to wait for: it leaves now,
		 * releasing its lease only the first time. */
		if (l->leaving || running(l) == 0) {
			a = act(o, LEAD_LEAVE, -1);
			a->count = l->leaving ? running(l) : 0;
			a->why = l->leaving ? LEAD_WHY_LEAVING : LEAD_WHY_NONE;
			l->leaving = l->left = 1;
			break;
		}
		l->leaving = 1;
		l->leave_by = in->now + 2 * l->conf.timing.lease;
		stop(l, LEAD_WHY_LEAVING, o);
		break;
	case LEAD_IN_STOP:
		stop(l, in->why, o);
		break;
	case LEAD_IN_BYE:
		l->leaving = l->left = 1;
		break;
	}
	/* Every slot, the one that registers too: the wake is that of
	 * every slot waiting. */
	for (i = 0; i < l->conf.slots; i++)
		answer(l, in, i, o, &wake);
	leave(l, in->now, o);
	if (l->leaving && !l->left && (wake == -1 || l->leave_by < wake))
		wake = l->leave_by;
	o->wake = wake;
	l->n.running = running(l);
	l->n.waiting = 0;
	for (i = 0; i < l->conf.slots; i++)
		l->n.waiting += l->slot[i].state == LEAD_WAITING;
	assert(l->n.running <= l->conf.slots);
}
