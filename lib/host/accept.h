/*
 * Datagram acceptance, a decision of the node's edge: which datagrams of
 * elect-node's wire count, and for what.  elect-node's daemon runs it on
 * what its socket reads, elect-sim on what its simulated links carry, so
 * that a simulated run proves the code a host runs.
 *
 * A datagram must open under the key (lib/net/wire), name this node and
 * a peer of its tables, come from that peer's address (a Dead, from its
 * guard: from the peer's host, on any port), carry a type and payload
 * the node's protocol has, and pass the handshake and the replay window
 * (lib/net/session); a core hears only the cores of its own epoch, and
 * named leaderships (WIRE_TYPE_NAMES, in an order of their own) only
 * the hosts of it.
 * Under an algorithm that keeps per-peer order (every one but those with
 * ALGO_F_ANYORDER) a datagram older than one taken from the same
 * incarnation counts as lost (Garcia-Molina's Assumption 7).
 *
 * A Dead, sent by a dead incarnation's guard, skips the handshake's
 * window, which may have moved on to a restarted daemon: it names its
 * incarnation, and a copy of it says nothing new.  It counts only for an
 * incarnation no newer than the one the handshake last confirmed of its
 * peer, and never without a key (--insecure): anyone on the host could
 * forge it.
 *
 * Pure: no I/O, no clock, no globals; it changes only the sessions it is
 * given.
 */
#ifndef ELECT_HOST_ACCEPT_H
#define ELECT_HOST_ACCEPT_H

#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>

#include "algo/algo.h"
#include "net/cluster.h"
#include "net/session.h"
#include "net/wire.h"

/* What one node's edge reads and changes: its tables, indexed alike. */
struct host_edge {
	unsigned	 self;
	const struct algo_ops *ops;
	const struct wire_key *key;
	const struct wire_proto *proto;
	const struct sess_conf *conf;
	const struct cluster *peers;	/* self among them */
	struct sess	*sess;		/* a handshake per peer */
	uint64_t	*seq;		/* sequence numbers sent per peer */
	uint8_t		*misaddressed;	/* per peer: one of its datagrams
					 * came from a wrong address (said
					 * once, host_datagram) */
};

/* What became of one datagram. */
enum host_take {
	HOST_CORE,	/* a core's message, in m */
	HOST_DEAD,	/* a dead incarnation's Dead, in m (for the core) */
	HOST_HELLO,	/* the handshake went on: answer now if owed */
	HOST_EPOCH,	/* a change's message (net/epoch.h), in w */
	HOST_NAMES,	/* named leaderships' round (host/named.h), in w */
	HOST_DROP	/* refused, for the reason why */
};

struct host_datagram {
	enum host_take	 take;
	const char	*why;		/* HOST_DROP: the trace's drop reason */
	long		 peer;		/* index of the peer it names (a MAC
					 * failure: from its address), or -1 */
	unsigned	 from;		/* the id it claims, 0 if unreadable */
	int		 misfit;	/* the peer's misfit changed: say so */
	int		 misaddressed;	/* the first from a wrong address */
	int		 stranger;	/* unknown-peer: its HELLO, of this
					 * node's epoch, lists this node in
					 * another membership (host/fit.h) */
	struct wire_msg	 w;		/* payload: into the caller's buffer */
	struct algo_msg	 m;
};

/*
 * Datagram BUF of LEN bytes from SRC at NOW (the node's monotonic clock)
 * into *D.  W's payload points into BUF.
 */
void	host_accept(struct host_edge *, const uint8_t *buf, size_t len,
	    const struct sockaddr_storage *src, int64_t now,
	    struct host_datagram *d);

/*
 * Seals W for peer I into BUF (WIRE_DGRAM_MAX bytes), with this node's
 * incarnation INC and the peer's next sequence number: the length, or 0
 * when the wire refuses it.
 */
size_t	host_seal(struct host_edge *, long i, uint64_t inc,
	    struct wire_msg *w, uint8_t *buf);

/* An algo message as the wire carries it (W's payload points into M). */
void	host_wire_of(const struct algo_msg *m, struct wire_msg *w);

#endif
