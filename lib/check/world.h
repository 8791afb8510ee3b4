/*
 * The world as the trace shows it, shared by the assertion modules: which
 * nodes are up or paused, each node's election state, the links between
 * nodes, the cluster's size.  elect-trace(5) defines each of these.
 */
#ifndef ELECT_CHECK_WORLD_H
#define ELECT_CHECK_WORLD_H

#include <stdint.h>

#include "check/msgs.h"
#include "trace/trace.h"
#include "util/idmap.h"

#define WORLD_MAX_NODES	4096	/* distinct nodes in one trace */

/* What the event being taken in changed (world.changed). */
#define W_UP		0x01	/* a node booted, crashed or exited */
#define W_STATE		0x02	/* status, ldr or grp of an up node */
#define W_NET		0x04	/* a link */
#define W_PAUSE		0x08	/* a node paused or resumed */

/* Which parts of the node's state the event changed (world.diff). */
#define D_STATUS	0x01
#define D_LDR		0x02
#define D_GRP		0x04

/* What made the trace incomplete (world.anomaly), for the trace assertion. */
#define WA_BACKWARDS	0x01	/* time went backwards within the node */
#define WA_REBOOT	0x02	/* boot of a node that is up */
#define WA_INC		0x04	/* incarnation not larger than the last */
#define WA_DOWN		0x08	/* a line from a node that is down */
#define WA_SIZE		0x10	/* more nodes than the cluster's size */
#define WA_ORDER	0x20	/* earlier than a line before, past the skew */

struct wnode {
	unsigned	 id;
	unsigned char	 up, paused, booted;
	/* Its latest misfit line of this incarnation says lead=no: its
	 * daemon leads nothing and follows no one, whatever its core's
	 * state (elect-node(1), THE WIRE). */
	unsigned char	 vetoed;
	enum trace_status status;	/* ST_DOWN while down */
	unsigned	 ldr;		/* 0: none */
	char		*grp;		/* "-" when none */
	size_t		 grplen, grpcap;
	uint64_t	 inc;		/* of its last boot */
	trace_time	 last;		/* time of its last line */
	/* When each part of its state last changed. */
	trace_time	 t_up, t_norm, t_act, t_ldr, t_grp;
};

struct world {
	struct wnode	*node;		/* dense, in order of appearance */
	unsigned	 n, cap;
	struct idmap	 ids;		/* id -> index in node[] */
	uint64_t	*cut;		/* bit matrix: link down or flaky */
	uint64_t	*flaky;		/* bit matrix: link flaky */
	size_t		 words;		/* per row of the matrices */
	unsigned	 size;		/* the cluster's size, 0 until known */
	unsigned	 size_opt;	/* --nodes */
	int		 epochs;		/* boots say their epoch (Nerio 10.6) */
	trace_time	 skew;		/* --skew */
	unsigned	 nup, npaused;
	trace_time	 first, now;	/* first and latest time seen */
	trace_time	 sys_last;	/* time of the last line of "-" */
	unsigned long	 events;

	/* The event just taken in. */
	int		 cur;		/* its node's index, -1 for "-" */
	unsigned	 changed;	/* W_ bits */
	unsigned	 diff;		/* D_ bits, for the event's node */
	unsigned	 anomaly;	/* WA_ bits */
	trace_time	 prev_t;	/* the node's time before this line */
	trace_time	 order_t;	/* the latest time of any line before */
	uint64_t	 prev_inc;	/* the node's incarnation before */
	enum trace_status prev_status;
	unsigned	 prev_ldr;

	/* Messages in flight and late (check/msgs.h), fed by the checker. */
	struct msgs	 msgs;
};

struct world	*world_new(unsigned nodes);
void		 world_free(struct world *);
/* Takes EV in; -1 when the trace has more than WORLD_MAX_NODES nodes. */
int		 world_apply(struct world *, const struct trace_event *);

/* What taking EV in would change, of W_UP, W_NET and W_PAUSE. */
unsigned	 world_would(const struct world *, const struct trace_event *);

/* Index of node ID, or -1 if it never appeared. */
int		 world_find(const struct world *, unsigned id);
/* Whether node ID is up (0 for none and for unknown ids). */
int		 world_up(const struct world *, unsigned id);
/* Whether nodes I and J (indices) are connected: link up, both up. */
int		 world_linked(const struct world *, int i, int j);
int		 world_grp_eq(const struct wnode *, const struct wnode *);
/* ID as a trace writes it: "-" for none.  BUF holds 8 bytes. */
const char	*world_id(unsigned id, char *buf);
/* Whether the system is unstable now: a paused node or a flaky link
 * between two up nodes (Stoller's stability, section 5). */
int		 world_unstable(const struct world *);
/* Whether node ID has a flaky link to another node that is up. */
int		 world_flaky_to_up(const struct world *, unsigned id);

/* Grows an array of N elements of SIZE to hold the world's nodes,
 * zeroing the new ones; *HAVE is updated.  NULL when out of memory. */
void		*world_grow(void *arr, unsigned *have, const struct world *,
		    size_t size);

/*
 * Clique covers of the connectivity graph (cover.c).  The graph is given
 * as N vertices with adjacency rows of WORDS 64-bit words.  Decides
 * whether K cliques can cover it: 1 (and PART[v] is v's clique, 0..K-1),
 * 0, or -1 when BUDGET search steps did not suffice.
 */
int		 cover_within(unsigned n, const uint64_t *adj, size_t words,
		    unsigned k, unsigned *part, unsigned long budget);
#define COVER_BUDGET	4000000UL	/* about 5 s on 64 nodes */

#define BIT_SET(m, i)	((m)[(i) / 64] |= UINT64_C(1) << ((i) % 64))
#define BIT_CLR(m, i)	((m)[(i) / 64] &= ~(UINT64_C(1) << ((i) % 64)))
#define BIT_ISSET(m, i)	(((m)[(i) / 64] >> ((i) % 64)) & 1)

#endif
