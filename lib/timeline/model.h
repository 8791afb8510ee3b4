/*
 * What the three renderers share: the events of the window as compact
 * items, the lanes, and each lane's state replayed item by item.
 */
#ifndef ELECT_TIMELINE_MODEL_H
#define ELECT_TIMELINE_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "timeline/timeline.h"
#include "trace/dead.h"

#define NO_STATUS	0xff

struct tl_item {
	trace_time	 t;
	trace_time	 t2;		/* lead, lease grant: end in trace time */
	unsigned	 node;		/* 0: about the system */
	unsigned	 peer;		/* to, from, peer, net a */
	unsigned	 b;		/* net b */
	unsigned	 ldr;		/* state */
	unsigned char	 type;		/* enum trace_type */
	unsigned char	 status;	/* state */
	unsigned char	 op;		/* fd, lease, task; net: link */
	uint32_t	 label, labellen;	/* msg, why: in the string arena */
	uint64_t	 num;		/* inc, n, seq, pid */
	size_t		 match;		/* send <-> recv; SIZE_MAX: none */
	uint16_t	 name;		/* its leadership: 0 the default,
					 * else the number of its name=, or
					 * TL_ALLNAMES */
};

/* A renew name=*: every named leadership's line (peer: its to=, 0 for
 * none). */
#define TL_ALLNAMES	UINT16_MAX
_Static_assert(TRACE_NAME_COUNT < TL_ALLNAMES, "tl_item.name");

/* A named leadership: the node that holds it by a lease (0: none), and
 * until when in trace time. */
struct name_state {
	unsigned	 holder;
	trace_time	 end;
};

struct lane_state {
	unsigned char	 up, status, paused;
	unsigned	 ldr;
	trace_time	 lease_end;	/* while leader by lease, else 0 */
};

struct timeline {
	struct tl_opts	 o;
	struct trace_dead dead;		/* Dead lines read as crashes */
	int		 started;	/* the first event was seen */
	trace_time	 first;		/* its time */
	trace_time	 t0, t1;	/* the window drawn */
	int		 in;		/* inside the window yet */
	unsigned	 maxid;		/* tables by node: [0..maxid] */
	struct lane_state *state;	/* live */
	struct lane_state *snap;	/* at the start of the window */
	size_t		 nsnap;
	unsigned	*lanes;		/* node ids drawn, ascending */
	size_t		 nlanes;
	int		*lane_of;	/* node id -> lane, or -1 */
	struct tl_item	*items;
	size_t		 nitems, capitems;
	char		*arena;
	size_t		 arenalen, arenacap;
	struct pending	*pend;		/* unmatched sends, by (from, to) */
	size_t		 npend, cappend;
	size_t		 unmatched;
	/* Named leaderships, a row each, by number less one: live, and at
	 * the start of the window. */
	struct trace_names *names;
	struct name_state *nstate, *nstate0;
	size_t		 nnames, nnames0;
};

/* The lane of node ID, or -1. */
int		 tl_lane(const struct timeline *, unsigned id);
/* Lanes in order of node id, the end of the window: before drawing. */
void		 tl_finish(struct timeline *);
/* A copy of the states at the start of the window, to replay the items
 * on; to be freed. */
struct lane_state *tl_replay(const struct timeline *);
/* The lane state after ITEM. */
void		 tl_apply(struct lane_state *, const struct tl_item *);
/* The named leaderships' state after ITEM (N of them): a line of one
 * changes it, a boot, crash or exit of its holder ends it. */
void		 tl_apply_names(struct name_state *, size_t n,
		    const struct tl_item *);
/* A copy of the named leaderships' states at the start of the window,
 * to replay the items on; to be freed. */
struct name_state *tl_replay_names(const struct timeline *);
/* The holder of a named leadership at time T, or 0. */
unsigned	 tl_holder(const struct name_state *, trace_time t);
/* Leader at time T by its last state or by a lease. */
int		 tl_leading(const struct lane_state *, unsigned node,
		    trace_time t);
/* A label for ITEM, printable ASCII: short for the text diagram, cut to
 * fit LEN (of a message, the type, so that the peer stays); or in words
 * (VERBOSE), for notes and tooltips. */
int		 tl_label(const struct timeline *, const struct tl_item *,
		    char *, size_t, int verbose);
const char	*tl_str(const struct timeline *, const struct tl_item *,
		    size_t *len);
/* Seconds since the start of the window, 6 decimals. */
void		 tl_offset(const struct timeline *, trace_time, char *, size_t);

#endif
