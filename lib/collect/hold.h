/*
 * A reorder buffer: lines held and given back in time order, equal times
 * in order of arrival.  When a line may go is the caller's decision (see
 * elect-trace collect); the buffer says when it holds more bytes than its
 * bound.
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

struct hold	*hold_new(size_t max_bytes);
/* Frees the lines still held. */
void		 hold_free(struct hold *);
/* -1 without memory. */
int		 hold_put(struct hold *, trace_time t, const char *line,
		    size_t len, void *tag);
/* The earliest line, left in place; NULL when none is held. */
const struct hold_line *hold_top(const struct hold *);
/* The earliest line taken out, to free(); NULL when none is held. */
struct hold_line *hold_pop(struct hold *);
/* Whether more bytes are held than the bound. */
int		 hold_full(const struct hold *);

#endif
