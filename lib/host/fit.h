/*
 * Agreement of configurations, a decision of the node's edge: whether
 * this node may lead while peers answer but disagree with it (another
 * algorithm, timing, membership or key, as the handshake's digests and
 * MACs tell; lib/net/session.h).
 *
 * A peer that disagrees is up but cannot be heard: its datagrams are
 * dropped, and the detector, given the same digests, counts it as down.
 * An algorithm without quorums (every one but lease) would then elect as
 * if it were down and could lead beside it.  So a node of such an
 * algorithm leads nothing, and runs no guarded command, while any peer
 * that disagrees is live: one whose disagreement was seen (a HELLO with
 * other digests, a MAC failure from its address) within FIT_LIVE.  Each
 * peer that disagrees sends a HELLO at least every SESS_RETRY_ODD, so a
 * live one is seen well within that; one that left stops counting
 * FIT_LIVE after it was last seen.
 *
 * Under lease a peer that disagrees grants nothing: a leader needs a
 * quorum of grants from peers that agree with it on the membership, and
 * two quorums of one membership meet.  A membership that differs within
 * one epoch breaks that, so a live peer that disagrees on the cluster
 * (SESS_CLUSTER) stops a lease node too; one that disagrees on the
 * algorithm, the timing or the key does not.
 *
 * A node that is not in this node's cluster file but sends it an
 * authenticated HELLO of the same epoch lists it in a membership that
 * differs: a stranger, which counts as a peer that disagrees on the
 * cluster (a host whose file lists only itself leads alone otherwise).
 *
 * Pure: no I/O, no clock; fit_step() is called after every input with
 * the time, as every core's step is.
 */
#ifndef ELECT_HOST_FIT_H
#define ELECT_HOST_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "net/session.h"

#define FIT_LIVE	(3 * SESS_RETRY_ODD)	/* ns a disagreement counts */
#define FIT_TEXT_MAX	256			/* "2:algo,3:key" */
#define FIT_STRANGERS	8		/* strangers remembered, the latest */

/* One peer as the handshake left it. */
struct fit_peer {
	unsigned	 id;
	enum sess_misfit misfit;	/* as last seen */
	int64_t		 odd_at;	/* when it was last seen, 0: never */
};

struct fit {
	int		 quorum;	/* the algorithm leads by quorums */
	int		 vetoed;	/* may not lead now */
	unsigned	 live;		/* peers that disagree, live */
	char		 odd[FIT_TEXT_MAX];	/* them: "2:algo,3:key", or "-" */
	struct fit_peer	 stranger[FIT_STRANGERS];
	size_t		 nstrangers;
};

void	fit_init(struct fit *, int quorum);

/*
 * The verdict at NOW over the N peers P: 1 when it or the peers named
 * changed (for the caller to say so once), 0 otherwise.  *WAKE is set to
 * the time it may change next without an input, or INT64_MAX.
 */
int	fit_step(struct fit *, const struct fit_peer *p, size_t n,
	    int64_t now, int64_t *wake);

/* What the handshake S says a peer differs in, for the verdict: its
 * digests, or its key: three MAC failures in a row from its address
 * (session.h), or one from a peer this node has not confirmed (a host
 * just started must not lead before its peers' key is known; one forged
 * datagram stops no confirmed peer's leadership). */
enum sess_misfit fit_misfit_of(const struct sess *s);

/* An authenticated HELLO of this node's epoch at NOW from ID, a node not
 * in its file: 1 the first time ID is seen, for the caller to say so. */
int	fit_stranger(struct fit *, unsigned id, int64_t now);

/* The trace line of the verdict (elect-trace(5), misfit), into BUF. */
const char *fit_line(const struct fit *, char *buf, size_t len);

#endif
