/*
 * The compact trace level (elect-trace(5), Compact traces): a node's lines
 * as the full form has them go in, what to write comes out.  A routine
 * lease renewal becomes one short `renew d=NS' line, the Request and Ok
 * lines of renewals are left out, and `clock' samples are written once a
 * second; every other line passes as it is.
 *
 * The filter keeps the view a reader builds of the node's leadership and
 * grant from the lines written, not the node's own state, so that a renew
 * line means, for elect-check, exactly the lines it stands for.  A pure
 * module: no clock of its own, the time of each line is given.
 */
#ifndef ELECT_TRACE_COMPACT_H
#define ELECT_TRACE_COMPACT_H

#include "trace/trace.h"

#define TC_SIG_MAX	128	/* a lead line's keys but its times */
#define TC_PEERS	64	/* Requests left out, remembered by peer */
#define TC_SAMPLE	TRACE_NS	/* a clock sample this often at least */

struct tc_req {
	unsigned	 peer;		/* 0: none */
	uint64_t	 elid;		/* hash of its elid= */
};

struct trace_compact {
	int		 on;		/* compact; else every line passes */
	unsigned	 self;
	/* The view written so far: the latest clock its lines show, and
	 * when the last sample was written. */
	int		 have_clock;
	trace_time	 clock, sampled;
	int		 lead_on;
	trace_time	 lead_until;
	char		 sig[TC_SIG_MAX];	/* its token and epoch */
	int		 grant_on;
	unsigned	 grant_to;
	trace_time	 grant_until, grant_ext;	/* ext: until - clock */
	uint64_t	 grant_epoch;
	/* A leader's grant to itself for the round under way, not written:
	 * the renewal of its leadership carries it. */
	int		 pend;
	trace_time	 pend_until;
	uint64_t	 pend_epoch;
	struct tc_req	 sent[TC_PEERS];	/* by peer % TC_PEERS */
	struct tc_req	 got;		/* the last Request taken in */
};

/* SELF is the node's id; ON selects the compact level. */
void	tc_init(struct trace_compact *, unsigned self, int on);
/*
 * BODY is a line of the node, its event and keys, at time T.  Fills OUT
 * with the bodies to write instead, in order, and returns how many (0, 1
 * or 2); each is at most TRACE_LINE_MAX bytes with its NUL.
 */
size_t	tc_filter(struct trace_compact *, trace_time t, const char *body,
	    char out[2][TRACE_LINE_MAX]);

#endif
