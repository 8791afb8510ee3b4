/*
 * The assertion checkers of elect-check.  Each assertion is a module that
 * is fed every event of the trace in order and reports violations; the
 * modules keep their own state, bounded by the number of nodes and of live
 * leases or edicts, never by the length of the trace.
 */
#ifndef ELECT_CHECK_H
#define ELECT_CHECK_H

#include "trace/trace.h"

struct check_opts {
	trace_time	 c;		/* -c: bound of the liveness assertions */
	trace_time	 fd_latency;	/* --fd-latency */
	trace_time	 skew;		/* --skew: 0 when all on one host */
	unsigned	 nodes;		/* --nodes: 0 when not given */
};

struct check_out;

/* Reports a violation at the line of EV (where it became certain). */
void	check_violation(struct check_out *, const struct trace_event *ev,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Says that the assertion could not be decided (for example a clique cover
 * too large to compute in time): the trace is then not certified. */
void	check_undecided(struct check_out *, const struct trace_event *ev,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

struct check_ops {
	const char	*name;		/* as in trace-format.md */
	void		*(*init)(const struct check_opts *);
	void		 (*event)(void *, const struct trace_event *,
			    struct check_out *);
	/* End of the trace; LAST is its last event. */
	void		 (*finish)(void *, const struct trace_event *last,
			    struct check_out *);
	void		 (*free)(void *);
};

#endif
