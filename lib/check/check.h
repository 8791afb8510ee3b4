/*
 * The assertion checkers of elect-check.  Each assertion is a module that
 * is fed every event of the trace (that it asks for) in order and reports
 * violations; the
 * modules keep their own state, bounded by the number of nodes and of live
 * leases or edicts, never by the length of the trace.
 */
#ifndef ELECT_CHECK_H
#define ELECT_CHECK_H

#include <stdio.h>

#include "trace/trace.h"

#define CHECK_C_DEFAULT		(10 * TRACE_NS)	/* -c */
#define CHECK_FD_LATENCY_DEFAULT (3 * TRACE_NS)	/* --fd-latency */
/* --msg-bound by set: elect-node's defaults for t_TX, half of --reply
 * (Stoller's delta), and --rtt (Nerio's d). */
#define CHECK_BOUND_SYNC	(15 * TRACE_NS / 1000)
#define CHECK_BOUND_ASYNC	(25 * TRACE_NS / 1000)
#define CHECK_BOUND_LEASE	(5 * TRACE_NS / 1000)

struct world;

struct check_opts {
	trace_time	 c;		/* -c: bound of the liveness assertions */
	trace_time	 fd_latency;	/* --fd-latency */
	trace_time	 skew;		/* --skew: 0 when all on one host */
	unsigned	 nodes;		/* --nodes: 0 when not given */
	/*
	 * The world every module shares (check/world.h): who is up, paused,
	 * in which state, and the links, as of the event being fed (already
	 * taken in).  Modules may ignore it.
	 */
	const struct world *world;
	/* Search steps for one minimum clique cover; 0: the default. */
	unsigned long	 cover_budget;
	/* The state of the module's shared model (check_ops.model) as it
	 * stands after the event being fed; NULL for modules without one. */
	void		*model;
	trace_time	 msg_bound;	/* --msg-bound; < 0: by the set */
};

/*
 * A model of the trace that several modules share, so that each event is
 * taken in once however many of them read it (the lease world of
 * check/lease.h).  The checker makes it with the first module that names
 * it, feeds it every event after the world and before the modules, and
 * frees it with the last of them.
 */
struct check_model {
	void		*(*init)(const struct check_opts *);
	void		 (*event)(void *, const struct trace_event *);
	void		 (*free)(void *);
	/* Optional: a model just made for a leadership first named in the
	 * middle of the trace takes what the hosts' lines taken so far by
	 * another (the default leadership's) said of the hosts; 0, or -1
	 * when memory ran out. */
	int		 (*hosts)(void *, const void *);
	/* Optional: whether the line just taken was calm: it started or
	 * ended nothing and brought no failure, its only changes samples of
	 * clocks of nodes that do not lead. */
	int		 (*calm)(const void *);
};

struct check_out;

/* Reports a violation at the line of EV (where it became certain). */
void	check_violation(struct check_out *, const struct trace_event *ev,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Says that a violation lies where the run left the model the assertion
 * is made in (a synchronous algorithm's message later than its bound):
 * the trace is not certified, but the protocol is not blamed. */
void	check_notjudged(struct check_out *, const struct trace_event *ev,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Says that the assertion could not be decided (for example a clique cover
 * too large to compute in time): the trace is then not certified. */
void	check_undecided(struct check_out *, const struct trace_event *ev,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

struct check_ops {
	const char	*name;		/* as in elect-check(1) */
	void		*(*init)(const struct check_opts *);
	void		 (*event)(void *, const struct trace_event *,
			    struct check_out *);
	/* End of the trace; LAST is its last event (its time, node, type,
	 * file and line; its strings are no longer valid). */
	void		 (*finish)(void *, const struct trace_event *last,
			    struct check_out *);
	void		 (*free)(void *);
	/*
	 * Optional: called before the world takes EV in, when EV's time is
	 * later than any before it (and than the time given to check_wake),
	 * so that what fell due in between is judged on the world as it was;
	 * also for every event at exactly the time given to check_wake, so
	 * that a deadline met by a line of its own time is judged before it.
	 */
	void		 (*advance)(void *, const struct trace_event *,
			    struct check_out *);
	/* The events event() wants, as bits 1u << TR_...; 0: all of them. */
	unsigned	 events;
	/* Optional: the model it reads (one per checker). */
	const struct check_model *model;
	/* It judges each leadership alone: the lines of a named one
	 * (name=) go to an instance of its own, with a model of its own,
	 * which also takes every line about the hosts (run.c). */
	int		 per_name;
	/* It judges the hosts, not a leadership: it takes every line,
	 * whatever its name.  The others but the per-name ones judge the
	 * default leadership alone. */
	int		 hosts;
};

/* What a module says at every line: the start of its check_out, written
 * in place, not by a call. */
struct check_said {
	trace_time	 calm;		/* check_calm(); 0 until said */
};

/*
 * Says that, as things stand, event() does nothing with a calm renew line
 * (check_model.calm, and no anomaly of the world) of a time before T, so
 * that the checker may leave the call out: most lines of a compact trace
 * are such lines, and the calls were a good part of their cost.  Until a
 * module says so, every line goes to it.
 */
static inline void
check_calm(struct check_out *out, trace_time t)
{
	((struct check_said *)(void *)out)->calm = t;
}

/* Asks for advance() only at the events at T and the first event later
 * (INT64_MAX: nothing due).  Until a module asks, advance() comes at every
 * later time. */
void	check_wake(struct check_out *, trace_time t);

/* The assertions (elect-check(1), THE ASSERTIONS, gives their names). */
extern const struct check_ops check_trace;
extern const struct check_ops check_gm1, check_gm2, check_gm3, check_gm4,
	    check_gm4s;
extern const struct check_ops check_sle1, check_sle2;
extern const struct check_ops check_ale1, check_ale2w, check_ale2;
extern const struct check_ops check_fd_complete, check_fd_accurate;
extern const struct check_ops check_uniqueness, check_lease_quorum,
	    check_edict_validity, check_edict_order, check_stability,
	    check_election, check_epochs;
extern const struct check_ops check_task_overlap, check_task_lease,
	    check_task_token;

/*
 * Whether a line shows its node's process running.  A task line does not:
 * --run-if-leader outlives its daemon until its deadline, and writes its
 * stop line after the node's crash as well.  Nor does a send of Dead,
 * which that client makes on behalf of its dead daemon.
 */
#define CHECK_SHOWS_UP(ev)	((ev)->type != TR_TASK &&		\
	    ((ev)->type != TR_SEND || !trace_str_eq((ev)->msg, "Dead")))

/*
 * Set in trace_event.have on a crash the checker infers from a lease
 * `recv msg=Dead' (run.c), which no reader sets: the node's process is
 * known gone by the crash's time, and may have ended just after its own
 * last line.
 */
#define CHECK_HAVE_DEAD	0x80000000u

/* "s" for a count other than 1, for messages. */
#define PLURAL(n)	((n) == 1 ? "" : "s")

/* Every assertion, NULL-terminated, in the order they are reported. */
extern const struct check_ops *const check_all[];
const struct check_ops *check_find(const char *name);
/* The members of a set (sync, async, fd, lease), NULL-terminated. */
const struct check_ops *const *check_set(const char *name);
/* The set an algorithm's traces are checked against, or NULL. */
const char	*check_algo_set(const char *algo, size_t len);

/*
 * Running assertions over a trace: elect-check and the fuzz target.
 * Violations go to OUT as "FILE:LINE: NAME: what" or JSON lines.
 */
struct checker;

struct checker	*checker_new(const struct check_opts *, FILE *out, int json);
/* Adds one assertion or a set; -1 if the name is unknown. */
int		 checker_add(struct checker *, const char *name);
int		 checker_add_set(struct checker *, const char *set);
/* Without assertions added: the set follows from the boots' algo=. */
/* Feeds one event; NULL, or why the trace cannot be checked (exit 2). */
const char	*checker_event(struct checker *, const struct trace_event *);
/* Ends the trace; NULL, or why it could not be checked. */
const char	*checker_finish(struct checker *);
/* One line per assertion: what was checked and its verdict. */
void		 checker_summary(const struct checker *, FILE *);
/* The I-th assertion judged: its name and its counts of violations,
 * undecided and not judged; 0 past the last. */
int		 checker_tally(const struct checker *, size_t i,
		    const char **name, unsigned long counts[3]);
/* 0: every assertion holds; 1: some violated or undecided. */
int		 checker_verdict(const struct checker *);
void		 checker_free(struct checker *);

#endif
