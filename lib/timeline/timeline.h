/*
 * Space-time diagrams of a trace.  The events of a time window are kept
 * (the whole trace is read, so that each node's state at the start of the
 * window is known), messages are matched from send to recv, and the
 * result is drawn as text (time down), SVG (time across) or a Mermaid
 * sequence diagram.
 */
#ifndef ELECT_TIMELINE_H
#define ELECT_TIMELINE_H

#include <stdio.h>

#include "trace/trace.h"

struct tl_opts {
	trace_time	 from, to;	/* the window, both ends included */
	int		 from_rel;	/* from is after the first event */
	int		 to_rel;
	int		 has_from, has_to;
	const unsigned char *nodes;	/* bitmap of the nodes drawn; NULL: all */
	char *const	*excluded;	/* message types left out (-x) */
	size_t		 nexcluded;
};

struct timeline;

struct timeline	*tl_new(const struct tl_opts *);
void		 tl_free(struct timeline *);
/* The next event of the trace, in order; -1 without memory, -2 when it
 * names one leadership more than TRACE_NAME_COUNT. */
int		 tl_event(struct timeline *, const struct trace_event *);
/* Whether events after EV can no longer change the drawing. */
int		 tl_past(const struct timeline *, const struct trace_event *);
/* Nodes to draw, one lane each, of the events given so far. */
size_t		 tl_nodes(const struct timeline *);
/* Named leaderships, one row (text: a lane) each after the nodes', in
 * order of first sight; the name of the K-th (from 0). */
size_t		 tl_names(const struct timeline *);
const char	*tl_name(const struct timeline *, size_t k);
/*
 * Draw what was given; -1 on a write error.  Every row of the text
 * diagram has a cell per lane: past TL_TEXT_LANES_MAX lanes it would grow
 * as events times nodes, not as the trace, so tl_text() must not be
 * given more.
 */
#define TL_TEXT_LANES_MAX	100	/* nodes and names */
int		 tl_text(struct timeline *, FILE *);
int		 tl_svg(struct timeline *, FILE *);
int		 tl_mermaid(struct timeline *, FILE *);

#endif
