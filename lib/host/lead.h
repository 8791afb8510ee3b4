/*
 * The leadership as this host acts on it, a decision of the node's edge:
 * what the core's status is worth once lib/host/fit has had its say,
 * which guarded command may start under it and with which token, when
 * the registered commands must be told to stop, and the counters behind
 * the status and the metrics.  elect-node's daemon runs it on its control
 * socket's registrations (`lease', `task', `killed', a hang-up),
 * elect-sim on every host's guard, so that a simulated run proves the
 * decisions a host makes.
 *
 * The status a host acts on is the core's, but nothing while fit vetoes
 * it (lead_status()): no leader, token, deadline or hint.  A guarded
 * command registers (`task', `task wait') and is answered with the lease
 * reply once it may be: at once while this node leads with its token;
 * while it leads until a deadline without its token yet, or with `wait'
 * while it does not lead, the answer waits; otherwise it is answered
 * that this node does not lead, and runs nothing.  None is answered while
 * the core's epoch ends (its commands stop before it wedges) or once the
 * node leaves: a registration then hears that it leaves.  With try_for
 * (a named leadership, whose first registration on any host starts a
 * bid), a `task' without wait that finds no holder known waits for the
 * outcome, for try_for at the most: it runs if this node wins, and is
 * answered as without wait once another holds it or the time is out, so
 * that the same cron line on every host runs its job on one of them.  Commands whose
 * answer let them run are told to stop (`ok stop') when a veto begins,
 * when the node leaves (it leaves once they are gone, or two leases
 * later), and when the caller's epoch change asks.
 *
 * Pure: no I/O, no clock, no globals; lead_step() takes one input with
 * the core's status at its time and answers actions, in order, and the
 * time it may act next by itself.
 */
#ifndef ELECT_HOST_LEAD_H
#define ELECT_HOST_LEAD_H

#include <stddef.h>
#include <stdint.h>

#include "algo/algo.h"
#include "guard/guard.h"

#define LEAD_SLOTS	16	/* registrations at once, the most */
#define LEAD_ACTS_MAX	(LEAD_SLOTS + 3)	/* one input's actions, the most */

/* Why a command is told to stop, or was killed. */
enum lead_why {
	LEAD_WHY_NONE, LEAD_WHY_MISMATCH, LEAD_WHY_LEAVING, LEAD_WHY_EPOCH,
	LEAD_WHY_DEADLINE, LEAD_WHY_GRACE
};

struct lead_conf {
	unsigned	 self;
	int		 deadline;	/* the leadership has one (lease) */
	struct algo_timing timing;	/* as this host runs it */
	size_t		 slots;		/* 1 .. LEAD_SLOTS */
	algo_time	 try_for;	/* a try's wait for a holder; 0: none */
};

enum lead_slot_state {
	LEAD_FREE,	/* no registration */
	LEAD_WAITING,	/* registered, not answered yet */
	LEAD_ANSWERED,	/* answered: runs if started, until it hangs up */
};

struct lead_slot {
	enum lead_slot_state state;
	int		 wait;		/* `task wait': until this node leads */
	int		 started;	/* its command may run */
	int		 killed;	/* its group got SIGKILL: runs no more */
	algo_time	 try_by;	/* a try waits for a holder until then */
};

/* The counters behind the status and the metrics. */
struct lead_counts {
	unsigned	 running;	/* started, not killed, not gone */
	unsigned	 waiting;	/* registered, not answered */
	uint64_t	 started, ended, told_stop, killed;
	int		 vetoed;	/* fit's verdict */
	unsigned	 mismatch;	/* peers that disagree, live */
};

struct lead {
	struct lead_conf conf;
	int		 vetoed;
	int		 leaving;	/* asked to leave, its commands stop */
	int		 left;		/* LEAD_LEAVE given */
	algo_time	 leave_by;	/* ... and it leaves then at the latest */
	struct lead_slot slot[LEAD_SLOTS];
	struct lead_counts n;
};

enum lead_in_type {
	LEAD_IN_TICK = 1,	/* time passed, or the core stepped */
	LEAD_IN_VERDICT,	/* fit's verdict: vetoed, live, changed */
	LEAD_IN_LEASE,		/* `lease' (slot: -1 for any client) */
	LEAD_IN_TASK,		/* slot registers (`task', wait) */
	LEAD_IN_KILLED,		/* slot's group got SIGKILL (why) */
	LEAD_IN_GONE,		/* slot's connection closed */
	LEAD_IN_LEAVE,		/* the node is asked to leave */
	LEAD_IN_STOP,		/* the caller's epoch change: stop (why) */
	LEAD_IN_BYE,		/* the node exits: waiting ones hear it */
};

struct lead_input {
	enum lead_in_type type;
	algo_time	 now;
	struct algo_status st;	/* the core's at NOW (algo_query()) */
	int		 ending;	/* the core's epoch ends */
	int		 slot;
	int		 wait;		/* TASK */
	enum lead_why	 why;		/* KILLED, STOP */
	int		 vetoed;	/* VERDICT */
	unsigned	 live;
	int		 changed;
};

enum lead_act_type {
	LEAD_REPLY = 1,	/* slot (or -1): the lease reply, r */
	LEAD_ANSWER,	/* slot: its registration's answer, r; it may start
			 * if r.g.leader */
	LEAD_REFUSE,	/* slot: the node leaves; the registration ends */
	LEAD_STOPPING,	/* commands are told to stop: why, count (the log) */
	LEAD_STOP,	/* slot: "ok stop" */
	LEAD_KILLED,	/* slot: a started command was SIGKILLed, why */
	LEAD_LEAVE,	/* the node may leave now; late: commands still run */
};

/* What a guard reads: lib/guard's reply, and who leads as far as this
 * node knows. */
struct lead_reply {
	struct guard_reply g;
	unsigned	 ldr;
	algo_time	 now;
};

struct lead_action {
	enum lead_act_type type;
	int		 slot;
	enum lead_why	 why;
	unsigned	 count;		/* STOPPING: commands running; LEAVE:
					 * late, those still running */
	struct lead_reply r;
};

struct lead_out {
	struct lead_action v[LEAD_ACTS_MAX];
	size_t		 n;
	algo_time	 wake;	/* a TICK is due then by itself, or -1 */
};

void	lead_init(struct lead *, const struct lead_conf *);
void	lead_step(struct lead *, const struct lead_input *, struct lead_out *);
/* The core's status ST as this node acts on it: nothing of a leadership
 * while fit vetoes it. */
void	lead_status(const struct lead *, struct algo_status *st);
/* The role the status names for ST, the core's: "leader", "follower"
 * (in Norm under another, and allowed to lead), or "none". */
const char *lead_role(const struct lead *, const struct algo_status *st);
/* The lease reply to ST at NOW (ST as the core gave it). */
void	lead_reply(const struct lead *, const struct algo_status *st,
	    algo_time now, struct lead_reply *);
const char *lead_why_name(enum lead_why);

#endif
