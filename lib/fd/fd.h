/*
 * The heartbeat failure detector of Stoller's section 2, as a pure state
 * machine: elect-fd feeds it commands, datagrams and ticks with the time
 * of CLOCK_MONOTONIC, and carries out what it asks (datagrams to send,
 * signals to write, drops to trace).  No system calls, no clock, no
 * globals, no randomness.
 *
 * Semantics (Stoller, section 2, properties (1) and (2)):
 *  - start ID (re)starts monitoring ID and forgets what was reported: ID is
 *    reported down once it has been silent for the limit since the latest
 *    start or since its latest heartbeat, whichever is later;
 *  - but a peer reported down, monitored without a break since (so asked
 *    for heartbeats every interval) and not heard from (no heartbeat, no
 *    HELLO, no alive) is reported again once it stays silent for one
 *    interval after the start, in which the request sent at the start is
 *    answered by a detector that runs: a client that restarts monitoring
 *    of a crashed node (Bully_FD's StartStage1 does) learns it without a
 *    second limit, and a node that came back just before the start, not
 *    heard yet, is not reported (Stoller owes a report only if it is down
 *    after the start);
 *  - alive ID: the client has its own evidence that ID is up (it heard
 *    from it): ID is no longer taken for down, and its silence counts from
 *    now.  It only ever delays a report;
 *  - down ID is written at most once per start, and only when ID was silent
 *    after that start; with report_up, hearing ID again writes up ID and
 *    re-arms the report;
 *  - stop ID ends monitoring: nothing more is written about ID;
 *  - playdead S makes this node look crashed to the detectors of S: it no
 *    longer sends them heartbeats or ping replies (its own monitoring of S
 *    goes on), until playalive S.
 *
 * Wire protocol (magic "ELFD", see net/wire.h for the envelope):
 *	MONITOR	  push mode: "send me ALIVE every interval until the lease
 *		  runs out"; payload u32 interval (microseconds), u32 lease
 *		  (milliseconds), three times the period of the requests:
 *		  FD_REFRESH intervals or a second, whichever is longer.
 *		  While the peer is silent, repeated every interval, so a
 *		  restarted peer picks the request up again.
 *	UNMONITOR push mode: stop sending ALIVE to me; no payload.
 *	ALIVE	  "I'm alive"; no payload.
 *	PING	  ping mode: "are you alive?"; no payload.
 *	PONG	  the reply; payload u64: the seq of the PING it answers.
 *	HELLO	  (no longer sent: the handshake's confirmation of a new
 *		  process does what it did, and a HELLO sent before the
 *		  handshake would be dropped) a detector that starts says
 *		  so to every peer, once: a peer
 *		  that took it for down knows it is back (its new process
 *		  plays dead to nobody) and asks it for heartbeats at once,
 *		  since the new process knows no subscribers; no payload.
 *	WIRE_TYPE_HELLO  the handshake of net/session.h: no other message
 *		  of a peer counts until it has answered this process's
 *		  challenge under the key with the same configuration.
 * Only ALIVE and PONG count as heartbeats, so that playdead works while
 * the node still sends its own MONITOR and PING requests.  A detector
 * that does not know HELLO drops it (bad-type) and loses only speed.
 */
#ifndef ELECT_FD_H
#define ELECT_FD_H

#include <stddef.h>
#include <stdint.h>

#include "net/session.h"
#include "net/wire.h"

enum fd_msg {
	FD_MSG_MONITOR = 1,
	FD_MSG_UNMONITOR,
	FD_MSG_ALIVE,
	FD_MSG_PING,
	FD_MSG_PONG,
	FD_MSG_HELLO,
	FD_MSG_MAX = FD_MSG_HELLO
};

extern const struct wire_proto fd_wire;

#define FD_PAYLOAD_MAX	SESS_PAYLOAD
#define FD_DGRAM_MAX	(WIRE_HDR_LEN + FD_PAYLOAD_MAX + WIRE_MAC_LEN)

#define FD_MS		INT64_C(1000000)	/* nanoseconds */
#define FD_INTERVAL_MIN	(1 * FD_MS)
#define FD_INTERVAL_MAX	(60000 * FD_MS)
#define FD_LEASE_MAX	(3600000 * FD_MS)
#define FD_REFRESH	10		/* intervals between MONITORs, or 1 s */
#define FD_PHI_WINDOW	100		/* inter-arrival times kept per peer */
#define FD_PHI_MIN	4		/* samples before they are trusted */

enum fd_mode { FD_PUSH, FD_PING };

struct fd_config {
	unsigned	 self;
	const unsigned	*ids;		/* every node of the cluster */
	size_t		 nids;
	enum fd_mode	 mode;
	int64_t		 interval;	/* ns between heartbeats */
	int64_t		 timeout;	/* ns of silence; 0 with phi */
	double		 phi;		/* > 0: phi accrual threshold */
	int		 report_up;
	uint64_t	 incarnation;
	struct wire_key	 key;
	struct sess_conf conf;		/* what must agree with the peers */
	const uint8_t	*nonces;	/* SESS_NONCE random bytes per id */
};

/* Commands, as read from stdin by fd_cmd_parse(). */
enum fd_op {
	FD_OP_START, FD_OP_STOP, FD_OP_PLAYDEAD, FD_OP_PLAYALIVE, FD_OP_ALIVE
};

#define FD_CMD_IDS_MAX	1024
#define FD_CMD_LINE_MAX	8192

struct fd_cmd {
	enum fd_op	 op;
	size_t		 n;
	unsigned	 ids[FD_CMD_IDS_MAX];
};

/*
 * One line of the command protocol (without its newline):
 *	start ID | stop ID | playdead [ID ...] | playalive [ID ...] |
 *	alive ID
 * Returns 1 with a command in *C, 0 for a blank line, -1 with the reason
 * in *WHY.
 */
int		 fd_cmd_parse(const char *line, size_t len, struct fd_cmd *c,
		    const char **why);
const char	*fd_op_name(enum fd_op);

/* What the detector asks of its shell. */
enum fd_act_kind {
	FD_ACT_SEND,	/* send buf[0..len) to peer's fd address */
	FD_ACT_DOWN,	/* write "down ID" (DownSig) */
	FD_ACT_UP,	/* write "up ID" */
	FD_ACT_DROP,	/* a datagram refused: trace "drop from=peer why=" */
	FD_ACT_MISFIT	/* what differs from peer changed: why, or NULL */
};

struct fd_act {
	enum fd_act_kind kind;
	unsigned	 peer;		/* DROP: claimed sender, 0 if unknown */
	const char	*why;		/* DROP, MISFIT */
	size_t		 len;		/* SEND */
	uint8_t		 buf[FD_DGRAM_MAX];
};

/*
 * The output contract, the same as every core's (README, "Where things
 * are"): each input returns its actions and the next wake-up in a struct
 * fd_out, nothing else.  The actions are the core's own list, sized by
 * fd_new() for the cluster (FD_ACTS(), at most FD_CMD_IDS_MAX nodes) and
 * valid until the next input; an input never allocates, and asserts that
 * it stays within the list.  wake is when fd_tick() must run next
 * (INT64_MAX: only on input).
 */
#define FD_ACTS_PEER	6	/* a start's probe; HELLO, ALIVE, probe, down */
#define FD_ACTS_FIXED	8	/* a datagram's drop, misfit, up and replies */
#define FD_ACTS(n)	(FD_ACTS_PEER * (n) + FD_ACTS_FIXED)
_Static_assert(FD_ACTS(FD_CMD_IDS_MAX) <= SIZE_MAX / FD_DGRAM_MAX,
    "the largest list is addressable");

struct fd_out {
	const struct fd_act *v;
	size_t		 n;
	int64_t		 wake;
};

struct fd_stats {
	uint64_t	 sent;
	uint64_t	 received;	/* accepted datagrams */
	uint64_t	 dropped;
	uint64_t	 down, up;
	struct {
		const char	*why;
		uint64_t	 n;
	}		 drops[16];	/* by reason, in order first seen */
	size_t		 ndrops;
};

struct fd;

/* NULL when the configuration is inconsistent or memory runs out: all
 * the memory the detector uses is taken here. */
struct fd	*fd_new(const struct fd_config *);
void		 fd_free(struct fd *);

/*
 * The inputs, each with its output in OUT.  fd_command returns NULL, or
 * why the command was refused (unknown node): then nothing changed and
 * OUT holds no action.  SRC is the node at whose detector address the
 * datagram came from (0: none): it must be the sender it claims to be.
 */
const char	*fd_command(struct fd *, const struct fd_cmd *, int64_t now,
		    struct fd_out *);
void		 fd_datagram(struct fd *, const uint8_t *buf, size_t len,
		    unsigned src, int64_t now, struct fd_out *);
void		 fd_tick(struct fd *, int64_t now, struct fd_out *);
/* The detector has just started: the handshake's HELLO to every peer. */
void		 fd_hello(struct fd *, int64_t now, struct fd_out *);

/* A key rotation: datagrams are sent and checked under K from now on. */
void		 fd_set_key(struct fd *, const struct wire_key *k);

const struct fd_stats *fd_stats(const struct fd *);
/* The silence after which ID is reported (phi: the current estimate). */
int64_t		 fd_limit(const struct fd *, unsigned id);

/*
 * Phi accrual (Hayashibara et al.): with inter-arrival times of mean m and
 * standard deviation s, phi(t) = -log10(1 - F(t)) for the normal F.  Phi
 * grows with silence, so phi >= threshold exactly when the silence reaches
 * m + s * fd_phi_score(threshold).
 */
double		 fd_phi_score(double threshold);

#endif
