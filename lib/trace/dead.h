/*
 * A lease peer's `recv msg=Dead elid=P.I.C' read as elect-check reads it
 * (elect-trace(5), recv): P's crash just before the line, when P is up in
 * incarnation I.  For the readers that draw and count
 * a trace (elect-trace stats, timeline), so that a killed leader whose
 * lines just stop is not drawn leading until its lease's end.
 */
#ifndef ELECT_TRACE_DEAD_H
#define ELECT_TRACE_DEAD_H

#include "trace/trace.h"
#include "util/idmap.h"

struct trace_dead {
	struct idmap	 ids;
	struct trace_dead_node {
		int		 up;
		uint64_t	 inc;
	}		*n;
	size_t		 cap;
};

/* Whether EV is a Dead as its node's guard sends it, `recv msg=Dead
 * elid=P.I.C' from P itself: 1 and P, I in *WHO, *INC; else 0. */
int	trace_dead_of(const struct trace_event *ev, unsigned *who,
	    uint64_t *inc);

void	trace_dead_init(struct trace_dead *);
void	trace_dead_free(struct trace_dead *);
/* Takes EV, every line in order; when it is a Dead that stands for a
 * crash, fills *CRASH with that crash line (P, at EV's time) and returns
 * 1; else 0. */
int	trace_dead_feed(struct trace_dead *, const struct trace_event *ev,
	    struct trace_event *crash);

#endif
