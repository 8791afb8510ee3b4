/*
 * One host's edge toward its peers, a decision of the node's edge: the
 * handshake with every peer (lib/net/session), its HELLOs and the core's
 * messages that wait for it, which datagrams count (lib/host/accept),
 * whether peers that answer but disagree stop this node leading
 * (lib/host/fit), which peers the detector reported down and were heard
 * from since, which incarnations a Dead ended, drops summarised, and what
 * an operator is told of all that.  elect-node's daemon runs it on its
 * UDP socket, elect-sim on its simulated links, so that a simulated run
 * proves the code a host runs.
 *
 * Every call takes the time (the node's monotonic clock) and appends its
 * actions, in order, to a struct hnet_out the caller carries out and
 * clears; a call with more to send than one out holds says so by its
 * wake-up (now).  Pure: no I/O, no clock, no globals; the tables are
 * sized when the membership is set (hnet_peers()), never per datagram.
 */
#ifndef ELECT_HOST_NET_H
#define ELECT_HOST_NET_H

#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>

#include "algo/algo.h"
#include "host/accept.h"
#include "host/fit.h"
#include "net/cluster.h"
#include "net/drops.h"
#include "net/key.h"
#include "net/session.h"
#include "net/wire.h"

#define HNET_HOLD	8	/* core messages kept for a peer until the
				 * handshake with it is done */
#define HNET_POOL	64	/* ... for all peers: a handshake waits at
				 * a boot, never for long */
#define HNET_RESCAN	(100 * ALGO_MS)	/* the longest between two looks
					 * at every peer's handshake */
#define HNET_LOG_WINDOW	(10000 * ALGO_MS)	/* a peer's agreement said once
					 * per state in it */
/* A core starts once the handshake with every peer is done, so that its
 * first messages are not held for it (a synchronous algorithm's bound on
 * messages knows nothing of a handshake), or after this, when some peer
 * does not answer: a HELLO lost, and the next. */
#define HNET_START_WAIT	(2 * SESS_RETRY + SESS_GAP)
#define HNET_EARLY	32	/* peers' messages kept for a core not yet
				 * started, the oldest lost past them */
#define HNET_SENDS	64	/* datagrams one call seals, at most */
#define HNET_TEXT_LINE	512
#define HNET_ACTS	(HNET_SENDS + DROPS_SLOTS + 32)
#define HNET_TEXT	(HNET_ACTS * 128)

/* Serving one peer takes its HELLO and its held messages. */
_Static_assert(HNET_SENDS >= HNET_HOLD + 1, "a peer's sends fit a call");
/* Every core's message fits a datagram. */
_Static_assert(WIRE_HDR_LEN + ALGO_PAYLOAD_MAX + WIRE_MAC_LEN <=
    WIRE_DGRAM_MAX, "a core's message fits the wire");

/* What the edge is configured with; pointed-to tables outlive it. */
struct hnet_conf {
	unsigned	 self;
	const struct algo_ops *ops;
	const struct wire_key *key;	/* may change (a rotation) */
	const struct wire_proto *proto;
	const struct sess_conf *conf;	/* may change (an epoch) */
	uint64_t	 inc;
	const char	*cluster;	/* the file, as logs name it */
};

/* A core's message held for a peer's handshake. */
struct hnet_held {
	struct algo_msg	 m;
	int64_t		 at;		/* when the core sent it */
};

/* One peer, indexed like hnet.peers. */
struct hnet_peer {
	size_t		 nheld;		/* its messages in hnet.pool */
	uint8_t		 monitored;	/* the detector watches it */
	uint8_t		 downed;	/* reported down, not heard since */
	uint64_t	 dead;		/* 1 + the newest incarnation said dead */
	int64_t		 heard;		/* its last message counted, 0: never */
	int64_t		 asked;		/* a lease Request unanswered since */
	char		 key_id[KEY_ID_LEN + 1];	/* its MAC's, or "" */
	enum sess_misfit fit_seen;	/* what the verdict last read of it */
	uint8_t		 ready;		/* confirmed, nothing owed */
	/* Its agreement said when it changes, once per state in a window,
	 * its other changes counted for a summary: a forger's bad MACs
	 * from its address may flip it at every datagram. */
	int64_t		 log_start;	/* of the window, 0: none */
	unsigned	 log_said;	/* bit 1 << misfit: said in it */
	uint64_t	 log_n;
};

struct hnet {
	struct hnet_conf c;
	struct cluster	 peers;		/* self among them, by id */
	/* For lib/host/accept, indexed like peers. */
	struct sess	*sess;
	uint64_t	*seq;
	uint8_t		*misaddressed;
	struct hnet_peer *p;
	struct fit_peer	*fitp;		/* for fit_step() */
	/* The core started (hnet_start()); before, its peers' messages
	 * wait for it in EARLY, a ring. */
	int		 started;
	struct algo_msg	*early;
	size_t		 early_first, nearly;
	/* The messages held for handshakes, oldest first (HNET_POOL). */
	struct hnet_held *pool;
	size_t		 npool;
	struct fit	 fit;
	struct drops	 dropsum;
	uint64_t	 drops;
	/* When every peer is looked at again: a datagram that may have
	 * changed a handshake, or a deadline.  Not at every call, whose
	 * count grows with the peers at a leader. */
	int64_t		 due, fit_due;
	size_t		 nready;	/* peers ready (hnet_ready()) */
	int64_t		 start_by;	/* the core's start, at the latest */
};

enum hnet_act_type {
	HNET_SEND,	/* dgram[len] to peer i */
	HNET_CORE,	/* msg for the started core (a Dead too); rtt: the
			 * round trip of a lease Request it answers, or -1 */
	HNET_EPOCH,	/* a change's message (net/epoch.h) from id: w */
	HNET_NAMES,	/* a named leaderships' round (host/named.h) from id,
			 * its life inc: w */
	HNET_DROP,	/* a datagram refused: id (0: unknown), why */
	HNET_PEER,	/* peer id heard from after its DownSig (up), or
			 * reported down (!up) */
	HNET_DEAD,	/* peer id's incarnation inc ended, said once */
	HNET_FD,	/* a line for the detector */
	HNET_TRACE,	/* a trace line's body */
	HNET_LOG,	/* a log line; warn: a warning */
	HNET_VERDICT	/* fit's verdict looked at; changed */
};

struct hnet_action {
	enum hnet_act_type type;
	long		 i;		/* a peer's index, or -1 */
	unsigned	 id;
	int		 up, warn, changed;
	int		 hello;		/* HNET_SEND: a HELLO */
	uint64_t	 inc;
	int64_t		 rtt;
	const char	*why;		/* static */
	const char	*text;		/* into out.text */
	const uint8_t	*dgram;		/* into out.dgram */
	size_t		 len;
	const struct algo_msg *msg;	/* into out.d */
	const struct wire_msg *w;	/* into out.d; payload: the caller's */
};

struct hnet_out {
	struct hnet_action v[HNET_ACTS];
	size_t		 n;
	char		 text[HNET_TEXT];
	size_t		 tlen;
	uint8_t		 dgram[HNET_SENDS][WIRE_DGRAM_MAX];
	size_t		 nsent;
	struct host_datagram d;		/* the datagram read */
};

/* Before the first call: the tables empty until hnet_peers(). */
void	hnet_init(struct hnet *, const struct hnet_conf *);
void	hnet_free(struct hnet *);

/*
 * The peers anew (the members of both epochs of a change, self among
 * them): what each peer kept carries over by id, unless FRESH (a new
 * incarnation, which its peers confirm afresh); NONCES: SESS_NONCE
 * random bytes per node of U, for the handshakes begun.  -1: no memory.
 */
int	hnet_peers(struct hnet *, const struct cluster *u, int fresh,
	    const uint8_t *nonces);

/* A handshake or the key may have changed: every peer looked at anew. */
void	hnet_touch(struct hnet *);

/* Datagram BUF of LEN bytes from SRC. */
void	hnet_recv(struct hnet *, const uint8_t *buf, size_t len,
	    const struct sockaddr_storage *src, int64_t now,
	    struct hnet_out *);

/*
 * The core's message M, sealed now, or held until the handshake with its
 * peer is done (the oldest lost if more come, as UDP may lose it).  A
 * message the wire refuses is logged and lost.
 */
void	hnet_send(struct hnet *, const struct algo_msg *m, int64_t now,
	    struct hnet_out *);

/* A change's message W to peer ID, if the handshake with it is done: 1
 * sent, 0 not.  W's from, to, inc and seq are set here. */
int	hnet_send_wire(struct hnet *, unsigned id, struct wire_msg *w,
	    struct hnet_out *);

/* HELLOs owed, messages released, summaries due; the next wake-up
 * (INT64_MAX: none). */
int64_t	hnet_tick(struct hnet *, int64_t now, struct hnet_out *);

/* lib/host/fit's verdict anew (after a burst of datagrams, and when due):
 * traced and logged when it changes; the next wake-up. */
int64_t	hnet_fit(struct hnet *, int64_t now, struct hnet_out *);

/* A message refused past acceptance (by the core, or a change's): counted
 * and summarised as a datagram's drop.  WHY: a static string. */
void	hnet_drop(struct hnet *, unsigned from, const char *why, int64_t now,
	    struct hnet_out *);

/* The last summaries, at exit. */
void	hnet_flush(struct hnet *, int64_t now, struct hnet_out *);

/* The detector was asked to watch ID (ON) or not. */
void	hnet_monitor(struct hnet *, unsigned id, int on);

/* The detector reported ID down: 0, or -1 when ID is not watched (the
 * report crossed our stop in the pipe: Stop_FD promises no DownSig). */
int	hnet_down(struct hnet *, unsigned id, struct hnet_out *);

/* Whether the handshake with every peer is done, its answer sent: what
 * the core sends then goes at once. */
int	hnet_ready(const struct hnet *);

/* The host is up at NOW: its core may start once ready, or at the latest
 * HNET_START_WAIT later. */
void	hnet_boot(struct hnet *, int64_t now);

/* Whether the core may start at NOW; *AT: when it may at the latest. */
int	hnet_may_start(const struct hnet *, int64_t now, int64_t *at);

/* The core started: the peers' messages that came before wait for it
 * (hnet_early()); those after are HNET_CORE actions. */
void	hnet_start(struct hnet *);

/* The next of the peers' messages that came before the core started,
 * into *M, in the order they came: 1, or 0 when none is left. */
int	hnet_early(struct hnet *, struct algo_msg *m);

/* Peer ID's index in peers, or -1. */
long	hnet_index(const struct hnet *, unsigned id);

/* "mismatch=3:algo,5:key" for a status line (with its leading space),
 * or "". */
const char *hnet_misfits(const struct hnet *, char *buf, size_t len);

/* Peers other than self, and those of them not reported down. */
void	hnet_counts(const struct hnet *, unsigned *peers, unsigned *up);

void	hnet_out_clear(struct hnet_out *);

#endif
