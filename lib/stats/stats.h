/*
 * Dividing a trace into elections and counting what each cost.  Pure: it
 * is fed the events of a trace in order and hands back each election as it
 * ends.  elect-trace(1) states the rules; in short, an election starts at
 * the first sign of a lost or missing leader (a boot; a crash, exit or
 * DownSig of the leader; a node leaving Norm or following another leader;
 * a lease leader giving up or its lease running out) and ends when every
 * up node is in Norm following one leader, up and following itself, or, in
 * a lease trace, at the next lead line.  A lease node that leaves Norm
 * while the leader's lease runs is cut off, not electing: its periods are
 * kept apart (stats_cutoff).
 */
#ifndef ELECT_STATS_H
#define ELECT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

#define STATS_TYPES_MAX	256	/* message types told apart; then "other" */
#define STATS_NAME_MAX	64	/* longest type or algorithm name kept */

enum stats_cause {
	SC_BOOT, SC_CRASH, SC_EXIT, SC_DOWN, SC_STATE, SC_FOLLOW, SC_RELEASE,
	SC_EXPIRE, SC_LEAD
};

struct election {
	unsigned long	 number;	/* from 1 */
	trace_time	 start, end;	/* end valid when done */
	int		 done;
	const char	*algo;		/* "-" when no boot named it */
	enum stats_cause cause;
	unsigned	 cause_node;
	const char	*file;		/* where it started */
	unsigned long	 lineno;
	unsigned	 leader;	/* when done: the new leader */
	unsigned	*nodes;		/* nodes with a line in it, ascending */
	size_t		 nnodes;
	uint64_t	 messages;	/* send lines, but excluded types */
	const uint64_t	*by_type;	/* [i]: messages of stats_type(i) */
	size_t		 ntypes;
};

struct stats_summary {
	const char	*algo;
	unsigned long	 elections;	/* all */
	unsigned long	 done;		/* ended: the figures below are theirs */
	trace_time	 median_duration, max_duration;
	double		 median_messages;	/* medians: of an even count, the */
	uint64_t	 max_messages;		/* mean of the middle two */
};

/*
 * A node out of touch with a leader that still held its lease (cut off in
 * a minority, or missing renewals): it left Norm, perhaps many times,
 * while the cluster had its leader.  Not an election of the cluster; one
 * row from its first such state line until it is back in Norm.
 */
struct stats_cutoff {
	unsigned	 node;
	unsigned	 leader;	/* whose lease was running */
	trace_time	 start, end;	/* end: when back in Norm, if done */
	int		 done;
	unsigned long	 changes;	/* its state lines not Norm */
	uint64_t	 messages;	/* it sent meanwhile, but excluded */
};

/* A leadership's figures over the whole trace (the default one, or a
 * named one when fed only its lines and the hosts'). */
struct stats_leadership {
	unsigned long	 leaders;	/* takeovers by another node */
	trace_time	 led;		/* time with a leader */
	uint64_t	 tasks;		/* guarded commands started */
};

struct stats;

struct stats	*stats_new(void);
void		 stats_free(struct stats *);
/* Messages of TYPE are not counted (heartbeats, say); before any event. */
int		 stats_exclude(struct stats *, const char *type);
/* The next event.  An election that ended with it, or NULL; valid until
 * the next call. */
const struct election *stats_event(struct stats *,
		    const struct trace_event *);
/* The end of the trace: the election still open, not done, or NULL. */
const struct election *stats_end(struct stats *);
const char	*stats_type(const struct stats *, size_t);
const char	*stats_cause_name(enum stats_cause);
/* After stats_end(): the cut-off periods in order of start; NULL past the
 * last. */
const struct stats_cutoff *stats_cutoff(const struct stats *, size_t i);
/* DST, a leadership met in mid-trace, starts from what the hosts' lines
 * fed to SRC said: which nodes are up, the algorithm.  -1: out of
 * memory. */
int		 stats_hosts(struct stats *dst, const struct stats *src);
/* After stats_end(): the leadership's figures. */
const struct stats_leadership *stats_leadership(const struct stats *);
/* After stats_end(): one summary per algorithm, in order of appearance;
 * NULL past the last. */
const struct stats_summary *stats_summary(struct stats *, size_t i);

#endif
