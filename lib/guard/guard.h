/*
 * The guard of elect-node --run-if-leader: when a guarded command may
 * start, and when it must be stopped, as a pure state machine with the
 * contract of the election cores (algo/algo.h): no system calls, no clock
 * reads, no globals.  The caller (bin/elect-node/runif.c, t/tools/
 * guard-drive, t/fuzz/guard.c) feeds it inputs, each with the time on
 * CLOCK_MONOTONIC, and carries out the actions it answers with, in order;
 * then it waits for the next input, or until out.wake.
 *
 * Life of a guard, as the caller sees it:
 *
 *	guard_init(&g, &cfg);
 *	ask the daemon `lease', feed its reply		-> register or exit
 *	register (`task'), feed its answer		-> start, or exit, or
 *							   unregister, register
 *	while running: feed replies to the asks, the daemon's `ok stop' or
 *	hang-up, ticks, the command's exit and its group's end -> ask,
 *	cancel, term, kill, exit
 *
 * The guarantee, where the leadership has a deadline (lease): E is the
 * end of the leadership as last granted (a reply's until=, on this
 * host's CLOCK_MONOTONIC).  The group gets SIGTERM at E - margin -
 * grace and SIGKILL at E - margin; the margin is for the killed
 * processes to die.
 * A reply with this leadership's token moves E, later or earlier, until
 * the stop begins; after that nothing moves it.  A reply that comes
 * when the deadline has passed is too late: the deadline is enforced
 * first.  A daemon that dies or goes silent only stops E from moving.  A
 * reply that says this node does not lead, or leads with another token,
 * stops the command at once: SIGTERM, and SIGKILL after the grace, never
 * later than E - margin.  So does the daemon's death, seen as its
 * process's end (not a mere hang-up): once the group has been sent
 * SIGKILL, and while E is ahead, the guard releases the lease on the
 * dead daemon's behalf (GUARD_RELEASE), so that the next leader need not
 * wait for E.  Time that goes back (an input older than the
 * last) is taken as the last time seen: nothing is ever extended by it.
 *
 * Under algorithms whose leadership has no deadline (replies without
 * until=) there is no E: the command is stopped when the daemon says
 * this node does not lead, or does not answer an ask within a poll.
 */
#ifndef ELECT_GUARD_H
#define ELECT_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "algo/algo.h"

#define GUARD_GRACE_DEFAULT	(20 * ALGO_MS)
#define GUARD_GRACE_MAX		(3600000 * ALGO_MS)
#define GUARD_MARGIN_MIN	(5 * ALGO_MS)	/* to kill and reap, at least */
#define GUARD_POLL_OTHER	(20 * ALGO_MS)	/* asking a non-lease daemon */
#define GUARD_DYING_POLL	ALGO_MS		/* looking for the group's end */
#define GUARD_ACTS_MAX		8	/* most actions one input yields */

/* What the daemon says in answer to `lease' or `task'. */
struct guard_reply {
	unsigned	 id;		/* this node; 0 if not said */
	int		 leader;
	int		 lease;		/* the leadership has a deadline */
	uint64_t	 token;		/* (until=): the rest is set */
	algo_time	 until;		/* E */
	algo_time	 tlease, renew, rtt, drift;
};

/* A reply line, without its newline, all or nothing: 0, or -1 if it is
 * not an answer to `lease' (an error, a field missing or malformed). */
int		 guard_reply_parse(const char *line, size_t len,
		    struct guard_reply *);

struct guard_config {
	algo_time	 grace;		/* between SIGTERM and SIGKILL */
	int		 wait;		/* --wait: until this node leads */
	int		 ecode;		/* the status when it does not lead */
};

enum guard_in_type {
	GUARD_IN_TICK = 1,	/* time passed */
	GUARD_IN_REPLY,		/* reply: the answer to `lease' (the first
				 * input), to the registration, or to an ask */
	GUARD_IN_LEAVING,	/* the registration was answered err leaving */
	GUARD_IN_REFUSED,	/* an ask found no daemon to connect to */
	GUARD_IN_NOREPLY,	/* an ask's connection closed without a
				 * usable reply */
	GUARD_IN_STOP,		/* the registration heard "ok stop" */
	GUARD_IN_HANGUP,	/* the daemon closed the registration */
	GUARD_IN_EXITED,	/* the command's process (G) is dead */
	GUARD_IN_REAPED,	/* the whole group is dead and reaped: status */
	GUARD_IN_DEAD,		/* the daemon's process has ended */
};

struct guard_input {
	enum guard_in_type type;
	algo_time	 now;
	struct guard_reply reply;
	int		 status;	/* REAPED: a wait(2) status */
};

/* Why an action is taken. */
enum guard_why {
	GUARD_WHY_NONE = 0,
	GUARD_WHY_DEADLINE,	/* term, kill: the lease's deadline */
	GUARD_WHY_GRACE,	/* kill: the grace of a stop is over */
	GUARD_WHY_NOTLEADER,	/* term; exit: this node does not lead */
	GUARD_WHY_NEWLEADER,	/* term: a new leadership began */
	GUARD_WHY_SILENT,	/* term: the daemon does not answer */
	GUARD_WHY_LEAVING,	/* term: the node is leaving */
	GUARD_WHY_EXITED,	/* kill: what the command left in its group */
	GUARD_WHY_LEFT,		/* exit: the node left during the wait */
	GUARD_WHY_BADGRACE,	/* exit: the grace does not fit the lease */
	GUARD_WHY_DONE,		/* exit: with the command's status */
	GUARD_WHY_DEAD,		/* term; release: the daemon died */
};

enum guard_act_type {
	GUARD_REGISTER = 1,	/* send `task' (`task wait'), feed the answer */
	GUARD_UNREGISTER,	/* close the registration */
	GUARD_START,		/* start the command, with token */
	GUARD_ASK,		/* open an ask (`lease'), feed what comes */
	GUARD_CANCEL,		/* close the ask in flight; nothing more of it */
	GUARD_TERM,		/* SIGTERM to the group */
	GUARD_KILL,		/* SIGKILL to the group */
	GUARD_EXIT,		/* exit with status; nothing follows */
	GUARD_RELEASE,		/* the daemon is dead and the group killed:
				 * release its lease on its behalf, once no
				 * other guarded command of the node runs */
};

struct guard_action {
	enum guard_act_type type;
	enum guard_why	 why;
	uint64_t	 token;		/* START: the leadership's, or 0 */
	int		 status;	/* EXIT */
	algo_time	 room;		/* EXIT BADGRACE: the most grace that fits */
};

/* One input's actions, and when to feed a tick if nothing comes first. */
struct guard_out {
	struct guard_action v[GUARD_ACTS_MAX];
	size_t		 n;
	algo_time	 wake;		/* -1: only inputs wake the guard */
};

enum guard_phase {
	GUARD_ASKING = 1,	/* for the first `lease' reply */
	GUARD_REGISTERING,	/* for the registration's answer */
	GUARD_RUNNING,		/* the command runs, or is being stopped */
	GUARD_DYING,		/* G is dead, its group killed: until reaped */
	GUARD_DONE,		/* exited */
};

/* The state; the caller reads it, only the guard writes it. */
struct guard {
	struct guard_config cfg;
	enum guard_phase phase;
	algo_time	 now;		/* the latest time seen */
	int		 lease;
	algo_time	 margin, poll;
	uint64_t	 token;		/* the leadership the command runs in */
	algo_time	 until;		/* E, as last granted */
	algo_time	 term_at, kill_at;
	int		 termed, killed;
	algo_time	 stop_kill;	/* SIGKILL of a stop begun */
	int		 asking;	/* an ask is in flight */
	algo_time	 asked_at, next_ask;
	int		 hungup;	/* the daemon closed the registration */
	int		 dead;		/* the daemon's process ended */
	int		 released;	/* GUARD_RELEASE was given */
	int		 dgrace;	/* no --grace: it follows the lease */
};

void		 guard_init(struct guard *, const struct guard_config *);
/* 0, or -1 if the input cannot come in this phase (an ask's answer with
 * no ask in flight, anything after exit...): nothing changed. */
int		 guard_step(struct guard *, const struct guard_input *,
		    struct guard_out *);

/* The grace left by the daemon's lease timings: the lease must hold a
 * renewal, a round trip, a poll, the margin and the grace. */
algo_time	 guard_room(const struct guard_reply *);
algo_time	 guard_margin(algo_time tlease);

const char	*guard_in_name(enum guard_in_type);
const char	*guard_act_name(enum guard_act_type);
const char	*guard_why_name(enum guard_why);
/* The diagnostic of a stop, "this node no longer leads", or NULL. */
const char	*guard_why_text(enum guard_why);

#endif
