/*
 * The guard's decisions (see guard.h): a pure state machine.  Invariants
 * are checked where they are established, and a broken one aborts: a
 * guard that could let a command outlive its lease must not go on.
 */
#include <sys/wait.h>

#include <stdlib.h>
#include <string.h>

#include "guard/guard.h"
#include "util/util.h"

#define GUARD_EXIT_NODAEMON	3	/* elect-node(1): no node answered */

#define INVARIANT(c)	do { if (!(c)) abort(); } while (0)

/* Times are the caller's and the daemon's: sums saturate. */
static algo_time
clamp(__int128 t)
{
	return t > INT64_MAX ? INT64_MAX : t < INT64_MIN ? INT64_MIN :
	    (algo_time)t;
}

static algo_time
add(algo_time a, algo_time b)
{
	return clamp((__int128)a + b);
}

static void
push(struct guard_out *o, enum guard_act_type type, enum guard_why why)
{
	struct guard_action *a;

	INVARIANT(o->n < GUARD_ACTS_MAX);
	a = &o->v[o->n++];
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->why = why;
}

static void
finish(struct guard *g, struct guard_out *o, int status, enum guard_why why)
{
	push(o, GUARD_EXIT, why);
	o->v[o->n - 1].status = status;
	g->phase = GUARD_DONE;
}

algo_time
guard_margin(algo_time tlease)
{
	/* The margin covers the killed processes' exit, which waits for a
	 * CPU like anything else: tens of milliseconds on a busy host. */
	return tlease / 4 > GUARD_MARGIN_MIN ? tlease / 4 : GUARD_MARGIN_MIN;
}

static algo_time
lease_poll(algo_time renew)
{
	return renew / 4 > ALGO_MS ? renew / 4 : ALGO_MS;
}

algo_time
guard_room(const struct guard_reply *r)
{
	__int128 trusted;

	/* (1 - rho) lease: what the leader trusts of each run. */
	trusted = (__int128)r->tlease - (__int128)r->tlease * r->drift /
	    TRACE_NS - 1;
	return clamp(trusted - r->renew - r->rtt - lease_poll(r->renew) -
	    guard_margin(r->tlease));
}

/* The deadline of a grant that ends at UNTIL. */
static void
set_deadline(struct guard *g, algo_time until)
{
	g->until = until;
	g->kill_at = add(until, -g->margin);
	g->term_at = add(g->kill_at, -g->cfg.grace);
}

void
guard_init(struct guard *g, const struct guard_config *cfg)
{
	memset(g, 0, sizeof(*g));
	g->cfg = *cfg;
	if ((g->dgrace = g->cfg.grace < 0))
		g->cfg.grace = GUARD_GRACE_DEFAULT;
	INVARIANT(g->cfg.grace <= GUARD_GRACE_MAX);
	g->phase = GUARD_ASKING;
	g->now = INT64_MIN;
}

/* What the daemon's timings make of the guard, before it starts; 0, or
 * -1 when the grace does not fit. */
static int
configure(struct guard *g, const struct guard_reply *r)
{
	g->lease = r->lease;
	if (!r->lease) {
		g->poll = GUARD_POLL_OTHER;
		return 0;
	}
	g->margin = guard_margin(r->tlease);
	g->poll = lease_poll(r->renew);
	/* The default fits a short lease too: half of what it leaves. */
	if (g->dgrace)
		g->cfg.grace = GUARD_GRACE_DEFAULT < guard_room(r) ?
		    GUARD_GRACE_DEFAULT : guard_room(r) / 2;
	return g->cfg.grace >= guard_room(r) ? -1 : 0;
}

static void	kill_group(struct guard *, struct guard_out *, enum guard_why);

static void
cancel_ask(struct guard *g, struct guard_out *o)
{
	if (!g->asking)
		return;
	g->asking = 0;
	push(o, GUARD_CANCEL, GUARD_WHY_NONE);
}

/* Stop the command: SIGTERM now, SIGKILL after the grace, never later
 * than the lease allows.  A stop is never taken back. */
static void
stop(struct guard *g, struct guard_out *o, enum guard_why why)
{
	if (g->termed || g->phase != GUARD_RUNNING)
		return;
	g->termed = 1;
	cancel_ask(g, o);
	push(o, GUARD_TERM, why);
	g->stop_kill = add(g->now, g->cfg.grace);
	if (g->lease && g->stop_kill > g->kill_at)
		g->stop_kill = g->kill_at;
	if (g->now >= g->stop_kill)
		kill_group(g, o, GUARD_WHY_GRACE);
}

static void
kill_group(struct guard *g, struct guard_out *o, enum guard_why why)
{
	g->termed = g->killed = 1;
	cancel_ask(g, o);
	push(o, GUARD_KILL, why);
}

/* The deadlines, before and after every input. */
static void
enforce(struct guard *g, struct guard_out *o)
{
	if (g->phase != GUARD_RUNNING || g->killed)
		return;
	if (g->lease && g->now >= g->kill_at)
		kill_group(g, o, GUARD_WHY_DEADLINE);
	else if (g->lease && !g->termed && g->now >= g->term_at)
		stop(g, o, GUARD_WHY_DEADLINE);
	if (g->termed && !g->killed && g->now >= g->stop_kill)
		kill_group(g, o, GUARD_WHY_GRACE);
}

/* Asks the daemon every poll while the command runs unstopped; an ask
 * unanswered in a poll is given up. */
static void
poll_daemon(struct guard *g, struct guard_out *o)
{
	if (g->phase != GUARD_RUNNING || g->termed)
		return;
	if (g->asking && g->now >= add(g->asked_at, g->poll)) {
		cancel_ask(g, o);
		if (!g->lease)
			stop(g, o, GUARD_WHY_SILENT);
	}
	if (!g->asking && !g->termed && g->now >= g->next_ask) {
		g->asking = 1;
		g->asked_at = g->now;
		g->next_ask = add(g->now, g->poll);
		push(o, GUARD_ASK, GUARD_WHY_NONE);
	}
}

static void
min_at(algo_time *next, algo_time at)
{
	if (*next == -1 || at < *next)
		*next = at;
}

static algo_time
wake_at(const struct guard *g)
{
	algo_time next = -1;

	if (g->phase == GUARD_DYING)
		return add(g->now, GUARD_DYING_POLL);
	if (g->phase != GUARD_RUNNING)
		return -1;
	if (g->lease && !g->killed) {
		min_at(&next, g->kill_at);
		if (!g->termed)
			min_at(&next, g->term_at);
	}
	if (g->termed && !g->killed)
		min_at(&next, g->stop_kill);
	if (!g->termed)
		min_at(&next, g->asking ? add(g->asked_at, g->poll) :
		    g->next_ask);
	return next;
}

/*
 * The daemon is dead and every process of the command was sent SIGKILL
 * (by a stop, the deadline, or when the command exited): none of them
 * runs another instruction, so the lease may go before E (Nerio's
 * section 6: a leader may release its lease once it no longer acts as
 * leader).  Past E it has gone by itself.  Given once.
 */
static void
release(struct guard *g, struct guard_out *o)
{
	if (!g->dead || !g->lease || g->released || g->token == 0 ||
	    g->now >= g->until)
		return;
	if (g->phase == GUARD_RUNNING ? !g->killed :
	    g->phase != GUARD_DYING)
		return;
	g->released = 1;
	push(o, GUARD_RELEASE, GUARD_WHY_DEAD);
}

/* Whether the reply lets the command start now. */
static int
may_start(const struct guard *g, const struct guard_reply *r)
{
	if (!r->leader)
		return 0;
	if (!g->lease)
		return 1;
	return r->token != 0 &&
	    g->now < add(add(r->until, -g->margin), -g->cfg.grace);
}

static int
registered(struct guard *g, const struct guard_reply *r, struct guard_out *o)
{
	/* Every answer before the start configures: a daemon restarted
	 * meanwhile may run with other timings. */
	if (configure(g, r) == -1) {
		finish(g, o, EXIT_USAGE, GUARD_WHY_BADGRACE);
		o->v[o->n - 1].room = guard_room(r);
		return 0;
	}
	if (!may_start(g, r)) {
		push(o, GUARD_UNREGISTER, GUARD_WHY_NOTLEADER);
		if (g->cfg.wait)
			push(o, GUARD_REGISTER, GUARD_WHY_NONE);
		else
			finish(g, o, g->cfg.ecode, GUARD_WHY_NOTLEADER);
		return 0;
	}
	g->phase = GUARD_RUNNING;
	g->token = g->lease ? r->token : 0;
	if (g->lease)
		set_deadline(g, r->until);
	g->next_ask = add(g->now, g->poll);
	push(o, GUARD_START, GUARD_WHY_NONE);
	o->v[o->n - 1].token = g->token;
	/* Started only under a grant that outlasts the grace. */
	INVARIANT(!g->lease || (g->token != 0 && g->now < g->term_at));
	return 0;
}

/* An answer to an ask, while the command runs.  A daemon restarted
 * under another algorithm leads, if it does, in a new leadership. */
static void
answered(struct guard *g, const struct guard_reply *r, struct guard_out *o)
{
	if (!r->leader)
		stop(g, o, GUARD_WHY_NOTLEADER);
	else if (r->lease != g->lease || (g->lease && r->token != g->token))
		stop(g, o, GUARD_WHY_NEWLEADER);
	else if (g->lease && !g->termed)
		set_deadline(g, r->until);
}

static int
exited_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}

/* Whether the input may come in the guard's phase. */
static int
expected(const struct guard *g, enum guard_in_type t)
{
	switch (t) {
	case GUARD_IN_TICK:
		return g->phase != GUARD_DONE;
	case GUARD_IN_REPLY:
		return g->phase == GUARD_ASKING ||
		    g->phase == GUARD_REGISTERING ||
		    (g->phase == GUARD_RUNNING && g->asking);
	case GUARD_IN_LEAVING:
		return g->phase == GUARD_REGISTERING;
	case GUARD_IN_REFUSED:
	case GUARD_IN_NOREPLY:
		return g->phase == GUARD_RUNNING && g->asking;
	case GUARD_IN_STOP:
	case GUARD_IN_HANGUP:
	case GUARD_IN_DEAD:
		return g->phase == GUARD_RUNNING || g->phase == GUARD_DYING;
	case GUARD_IN_EXITED:
		return g->phase == GUARD_RUNNING;
	case GUARD_IN_REAPED:
		return g->phase == GUARD_DYING;
	}
	return 0;
}

int
guard_step(struct guard *g, const struct guard_input *in,
    struct guard_out *o)
{
	algo_time kill_at = g->kill_at;
	int was_killed = g->killed;

	o->n = 0;
	o->wake = -1;
	if (!expected(g, in->type)) {
		o->wake = wake_at(g);
		return -1;
	}
	/* A clock that goes back moves nothing. */
	if (in->now > g->now)
		g->now = in->now;
	/* The ask is answered, whatever comes of it. */
	if (g->phase == GUARD_RUNNING && (in->type == GUARD_IN_REPLY ||
	    in->type == GUARD_IN_REFUSED || in->type == GUARD_IN_NOREPLY))
		g->asking = 0;
	/* The deadline first: a reply that comes after it is too late. */
	enforce(g, o);
	switch (in->type) {
	case GUARD_IN_TICK:
		break;
	case GUARD_IN_REPLY:
		if (g->phase == GUARD_ASKING) {
			if (configure(g, &in->reply) == -1) {
				finish(g, o, EXIT_USAGE, GUARD_WHY_BADGRACE);
				o->v[o->n - 1].room = guard_room(&in->reply);
				break;
			}
			g->phase = GUARD_REGISTERING;
			push(o, GUARD_REGISTER, GUARD_WHY_NONE);
		} else if (g->phase == GUARD_REGISTERING)
			registered(g, &in->reply, o);
		else
			answered(g, &in->reply, o);
		break;
	case GUARD_IN_LEAVING:
		/* Leaving, the node will not lead: nothing left to wait on. */
		push(o, GUARD_UNREGISTER, GUARD_WHY_LEFT);
		if (g->cfg.wait)
			finish(g, o, GUARD_EXIT_NODAEMON, GUARD_WHY_LEFT);
		else
			finish(g, o, g->cfg.ecode, GUARD_WHY_NOTLEADER);
		break;
	case GUARD_IN_REFUSED:
		if (!g->lease)
			stop(g, o, GUARD_WHY_SILENT);
		break;
	case GUARD_IN_NOREPLY:
		break;
	case GUARD_IN_STOP:
		stop(g, o, GUARD_WHY_LEAVING);
		break;
	case GUARD_IN_HANGUP:
		/* The daemon is gone: the deadline holds without it. */
		g->hungup = 1;
		break;
	case GUARD_IN_DEAD:
		/* Nothing renews the lease any more, and the command stops at
		 * once: the sooner it is dead, the sooner another node may
		 * lead (GUARD_RELEASE below). */
		g->dead = 1;
		stop(g, o, GUARD_WHY_DEAD);
		break;
	case GUARD_IN_EXITED:
		/* Nothing of the group may outlive the command's guard. */
		cancel_ask(g, o);
		push(o, GUARD_KILL, GUARD_WHY_EXITED);
		g->phase = GUARD_DYING;
		break;
	case GUARD_IN_REAPED:
		finish(g, o, exited_status(in->status), GUARD_WHY_DONE);
		break;
	}
	enforce(g, o);
	poll_daemon(g, o);
	release(g, o);
	o->wake = wake_at(g);

	/* Once killed, always killed; the deadline never moves later once
	 * the group is killed; a live command wakes the guard by its
	 * deadline and is never past it. */
	INVARIANT(!was_killed || g->killed);
	/* After SIGKILL, nothing but the rest of the group's, the release
	 * and the exit. */
	for (size_t i = 0; was_killed && i < o->n; i++)
		INVARIANT(o->v[i].type == GUARD_EXIT ||
		    o->v[i].type == GUARD_RELEASE ||
		    (o->v[i].type == GUARD_KILL &&
		    o->v[i].why == GUARD_WHY_EXITED));
	/* A release only for a dead daemon's lease, its group killed. */
	for (size_t i = 0; i < o->n; i++)
		INVARIANT(o->v[i].type != GUARD_RELEASE || (g->dead &&
		    g->lease && g->token != 0 &&
		    (g->killed || g->phase != GUARD_RUNNING)));
	INVARIANT(!g->killed || g->termed);
	INVARIANT(!was_killed || g->kill_at <= kill_at);
	if (g->phase == GUARD_RUNNING && g->lease) {
		INVARIANT(g->kill_at == add(g->until, -g->margin));
		INVARIANT(g->term_at == add(g->kill_at, -g->cfg.grace));
		INVARIANT(!g->termed || g->killed || g->stop_kill <= g->kill_at);
		INVARIANT(g->killed ||
		    (g->now < g->kill_at && o->wake <= g->kill_at));
	}
	INVARIANT(g->phase != GUARD_RUNNING || g->killed || o->wake != -1 ||
	    !g->lease);
	return 0;
}

const char *
guard_in_name(enum guard_in_type t)
{
	static const char *const names[] = {
		[GUARD_IN_TICK] = "tick", [GUARD_IN_REPLY] = "reply",
		[GUARD_IN_LEAVING] = "leaving", [GUARD_IN_REFUSED] = "refused",
		[GUARD_IN_NOREPLY] = "noreply", [GUARD_IN_STOP] = "stop",
		[GUARD_IN_HANGUP] = "hangup", [GUARD_IN_EXITED] = "exited",
		[GUARD_IN_REAPED] = "reaped", [GUARD_IN_DEAD] = "dead",
	};

	return (size_t)t < nitems(names) && names[t] ? names[t] : NULL;
}

const char *
guard_act_name(enum guard_act_type t)
{
	static const char *const names[] = {
		[GUARD_REGISTER] = "register", [GUARD_UNREGISTER] = "unregister",
		[GUARD_START] = "start", [GUARD_ASK] = "ask",
		[GUARD_CANCEL] = "cancel", [GUARD_TERM] = "term",
		[GUARD_KILL] = "kill", [GUARD_EXIT] = "exit",
		[GUARD_RELEASE] = "release",
	};

	return (size_t)t < nitems(names) && names[t] ? names[t] : "?";
}

const char *
guard_why_name(enum guard_why w)
{
	static const char *const names[] = {
		[GUARD_WHY_NONE] = "-", [GUARD_WHY_DEADLINE] = "deadline",
		[GUARD_WHY_GRACE] = "grace", [GUARD_WHY_NOTLEADER] = "notleader",
		[GUARD_WHY_NEWLEADER] = "newleader",
		[GUARD_WHY_SILENT] = "silent", [GUARD_WHY_LEAVING] = "leaving",
		[GUARD_WHY_EXITED] = "exited", [GUARD_WHY_LEFT] = "left",
		[GUARD_WHY_BADGRACE] = "badgrace", [GUARD_WHY_DONE] = "done",
		[GUARD_WHY_DEAD] = "dead",
	};

	return (size_t)w < nitems(names) && names[w] ? names[w] : "?";
}

const char *
guard_why_text(enum guard_why w)
{
	switch (w) {
	case GUARD_WHY_DEADLINE:
		return "the leadership's deadline is near";
	case GUARD_WHY_NOTLEADER:
		return "this node no longer leads";
	case GUARD_WHY_NEWLEADER:
		return "a new leadership began";
	case GUARD_WHY_SILENT:
		return "the daemon does not answer";
	case GUARD_WHY_LEAVING:
		return "the node is leaving";
	case GUARD_WHY_DEAD:
		return "the node's daemon died";
	default:
		return NULL;
	}
}
