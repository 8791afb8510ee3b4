/*
 * A reorder buffer: lines held until they are DELAY old (by their trace
 * time against the clock given), then given back in time order, equal
 * times in order of arrival.  Bounded in bytes: past the bound the oldest
 * lines go out early.
 */
#ifndef ELECT_HOLD_H
#define ELECT_HOLD_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

struct hold_line {
	trace_time	 t;
	uint64_t	 seq;
	void		*tag;		/* the caller's */
	size_t		 len;
	char		 line[];	/* no newline */
};

struct hold;

struct hold	*hold_new(trace_time delay, size_t max_bytes);
/* Frees the lines still held. */
void		 hold_free(struct hold *);
/* -1 without memory. */
int		 hold_put(struct hold *, trace_time t, const char *line,
		    size_t len, void *tag);
/* The next line due at NOW (any next line if ALL), to free(); or NULL. */
struct hold_line *hold_take(struct hold *, trace_time now, int all);
/* When the next line is due; INT64_MAX when none is held. */
trace_time	 hold_due(const struct hold *);

#endif
