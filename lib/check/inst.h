/*
 * Instants and node indexes for the lease and failure-detector checkers.
 *
 * An instant is a trace time and a place in the order of the lines: lines
 * with equal TIME keep their order of appearance, and a state that a line
 * sets holds from just after that line.  Line k (counted from 1) is at
 * (TIME, 2k), just after it is (TIME, 2k+1); a clock reaching a value
 * between lines is at (TIME, 0), before every line of that time.
 *
 * With a skew bound S, two nodes' times may be S apart: an instant of one
 * node lies somewhere in [t - S, t + S] for another.  inst_late() and
 * inst_early() give the two ends, with the place in the order dropped,
 * since the order of lines of two hosts says nothing.
 */
#ifndef ELECT_CHECK_INST_H
#define ELECT_CHECK_INST_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"
#include "util/idmap.h"

#define INST_LAST	UINT64_MAX
#define TIME_MAX	INT64_MAX
#define TIME_MIN	INT64_MIN

struct inst {
	trace_time	 t;
	uint64_t	 s;
};

static inline trace_time
time_add(trace_time a, trace_time b)
{
	trace_time r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? TIME_MAX : TIME_MIN;
	return r;
}

static inline struct inst
inst_make(trace_time t, uint64_t s)
{
	struct inst i = { t, s };

	return i;
}

/* Line number LINE (from 1) at time T, and just after it. */
static inline struct inst
inst_line(trace_time t, uint64_t line)
{
	return inst_make(t, 2 * line);
}

static inline struct inst
inst_after(struct inst i)
{
	return inst_make(i.t, i.s == INST_LAST ? INST_LAST : i.s | 1);
}

static inline int
inst_cmp(struct inst a, struct inst b)
{
	if (a.t != b.t)
		return a.t < b.t ? -1 : 1;
	if (a.s != b.s)
		return a.s < b.s ? -1 : 1;
	return 0;
}

static inline int
inst_lt(struct inst a, struct inst b)
{
	return inst_cmp(a, b) < 0;
}

static inline struct inst
inst_min(struct inst a, struct inst b)
{
	return inst_lt(b, a) ? b : a;
}

static inline struct inst
inst_max(struct inst a, struct inst b)
{
	return inst_lt(a, b) ? b : a;
}

/* The latest and earliest I can be on another node's clock. */
static inline struct inst
inst_late(struct inst i, trace_time skew)
{
	return skew == 0 ? i : inst_make(time_add(i.t, skew), INST_LAST);
}

static inline struct inst
inst_early(struct inst i, trace_time skew)
{
	return skew == 0 ? i : inst_make(time_add(i.t, -skew), 0);
}


/* T as seconds, in BUF of at least TIME_BUFLEN bytes. */
#define TIME_BUFLEN	32
const char	*time_str(char *buf, trace_time t);

#endif
