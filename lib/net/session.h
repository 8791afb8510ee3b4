/*
 * The per-boot handshake of elect-node and elect-fd: no datagram of a peer
 * counts until the peer has answered, under the key, a challenge this
 * process made after it started, and only peers that run the same
 * configuration are counted.
 *
 * Each process draws a random 16-byte nonce per peer when it starts.  The
 * handshake is one message type, HELLO (WIRE_TYPE_HELLO in either
 * protocol), whose payload is
 *
 *	off  len  field
 *	  0   16  nonce    the sender's challenge to the receiver
 *	 16   16  echo     the receiver's latest challenge, or zeros
 *	 32    8  algo     } the first 8 bytes of BLAKE2b digests of
 *	 40    8  timing   } the sender's configuration: they must equal the
 *	 48    8  cluster  } receiver's for the peer to count
 *	 56    1  flags    bit 0: the sender has confirmed the receiver,
 *	                   which then owes it no answer; bit 1: the epoch
 *	                   follows; others zero
 *	 57    4  epoch    the sender's epoch (Nerio 10.6), 1 .. 2^24 - 1;
 *	                   only with bit 1, absent in epoch 0
 *
 * Epochs: a HELLO of epoch 0 is the one of a cluster that never changed.
 * Nodes of the same epoch must agree on all three digests; nodes of two
 * epochs (during a change, share/elect/lease.md, Epochs) on the algo and
 * timing only, as each epoch has its own membership: they confirm each
 * other, and the peer's epoch is kept (struct sess, epoch) for the
 * caller, which passes a core's message only between nodes of one
 * epoch.  A node that moves to another epoch does so in a new
 * incarnation, which its peers confirm afresh.
 *
 * A HELLO whose echo is the receiver's own nonce for that peer, whose
 * digests agree and whose (inc, seq) is fresh confirms the peer: its
 * replay window restarts at that (inc, seq), unless that incarnation is
 * confirmed already (a late answer must not reopen the window).  The three messages
 * A->B HELLO(nA, 0), B->A HELLO(nB, nA), A->B HELLO(nA, nB, confirmed)
 * confirm both ways; a HELLO with a new nonce or without the flag is
 * answered, so the exchange ends.  A captured datagram cannot answer a nonce drawn after it was
 * sent, so a restarted receiver never takes the past for the present.
 *
 * Until a peer is confirmed its other messages are dropped ("unconfirmed")
 * and a HELLO goes to it every SESS_RETRY.  A message of a newer
 * incarnation, or one whose sequence number leaps more than SESS_JUMP
 * ahead, is dropped too and asks for a new confirmation: no single
 * datagram moves the window by an unbounded jump.  The HELLOs themselves
 * pass a window of their own, so that old HELLOs replayed cannot replace
 * the peer's current nonce once its newer ones have been seen.
 *
 * Pure: no I/O, no clock, no randomness (the caller draws the nonces).
 */
#ifndef ELECT_SESSION_H
#define ELECT_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "net/cluster.h"
#include "net/wire.h"

#define SESS_NONCE	16
#define SESS_DIGESTS	3
#define SESS_DIGEST	8
#define SESS_PAYLOAD	(2 * SESS_NONCE + SESS_DIGESTS * SESS_DIGEST + 1)
#define SESS_PAYLOAD_MAX (SESS_PAYLOAD + 4)	/* with an epoch */
#define SESS_F_CONFIRMED 0x1
#define SESS_F_EPOCH	0x2
#define SESS_EPOCH_MAX	0xffffffu
#define SESS_JUMP	(UINT64_C(1) << 20)	/* seq leap taken unasked */
#define SESS_RETRY	(200 * INT64_C(1000000))	/* ns between HELLOs */
#define SESS_RETRY_ODD	(1000 * INT64_C(1000000))	/* ... to a misfit */
#define SESS_GAP	(10 * INT64_C(1000000))	/* ns between any two */
#define SESS_BADMAC	3	/* bad MACs in a row that name the key */

/* What may differ between two nodes: the digests, then the key. */
enum sess_misfit {
	SESS_OK, SESS_ALGO, SESS_TIMING, SESS_CLUSTER, SESS_KEY
};

/* This process's configuration, as digests (sess_digest()). */
struct sess_conf {
	uint8_t		 d[SESS_DIGESTS][SESS_DIGEST];
	uint32_t	 epoch;		/* 0 .. SESS_EPOCH_MAX */
};

/* A HELLO's payload. */
struct sess_hello {
	uint8_t		 nonce[SESS_NONCE];
	uint8_t		 echo[SESS_NONCE];
	struct sess_conf conf;
	int		 confirmed;	/* flags bit 0 */
};

/* One peer, as seen by this process.  sess_init() before use. */
struct sess {
	uint8_t		 mine[SESS_NONCE];	/* our challenge, this boot */
	uint8_t		 theirs[SESS_NONCE];	/* its latest, to echo */
	int		 confirmed;
	struct wire_window win;		/* its messages, once confirmed */
	struct wire_window hwin;	/* its HELLOs */
	enum sess_misfit misfit;	/* what differs, as last seen */
	uint32_t	 epoch;		/* the peer's, as the HELLO that
					 * confirmed it said */
	int64_t		 odd_at;	/* when a misfit was last seen, 0:
					 * never (lib/host/fit.h) */
	unsigned	 badmacs;	/* in a row from its address */
	int		 verify;	/* the next HELLO asks for an answer:
					 * a MAC failed from its address */
	int64_t		 verify_at;	/* when that was last asked, 0: never */
	int		 owed;		/* a HELLO is due at once */
	int64_t		 next;		/* time of the next HELLO */
	int64_t		 last;		/* of the last: answers wait SESS_GAP */
};

void		 sess_init(struct sess *, const uint8_t nonce[SESS_NONCE]);

/* The digest of LEN bytes of TEXT, one of a configuration's three. */
void		 sess_digest(const char *text, size_t len,
		    uint8_t out[SESS_DIGEST]);

/* The digest of the membership of C: its ids.  Addresses may differ
 * from host to host (names, NAT, relays); each host checks the sources
 * against its own file. */
void		 sess_cluster_digest(const struct cluster *c,
		    uint8_t out[SESS_DIGEST]);

/* Strict: exactly SESS_PAYLOAD bytes, or SESS_PAYLOAD + 4 with the
 * epoch flag and an epoch of 1 .. SESS_EPOCH_MAX; a nonce not all zero,
 * no unknown flag. */
const char	*sess_hello_parse(const uint8_t *p, size_t len,
		    struct sess_hello *);
/* Writes the payload into P (SESS_PAYLOAD_MAX bytes); its length. */
size_t		 sess_hello_put(const struct sess_hello *, uint8_t *p);

/* The HELLO to send to the peer of S now (fills *H); clears what is owed
 * and sets the time of the next one. */
void		 sess_hello(struct sess *s, const struct sess_conf *,
		    int64_t now, struct sess_hello *h);

/* Whether a HELLO to the peer of S is due at NOW; when one will be. */
int		 sess_due(const struct sess *s, int64_t now);
int64_t		 sess_deadline(const struct sess *s);

/* What became of a datagram in the handshake. */
enum sess_take {
	SESS_COUNTS,	/* its message counts (never a HELLO) */
	SESS_HELLO,	/* a HELLO taken: the handshake went on */
	SESS_REFUSED	/* dropped, for the reason why */
};

/*
 * An authenticated datagram M from the peer of S, from the peer's own
 * address.  SESS_REFUSED sets *WHY: "unconfirmed", "old-incarnation",
 * "replay", "seq-jump", "bad-payload" or "mismatch".  *CHANGED is set
 * when S->misfit changed, for the caller to say so once.
 */
enum sess_take	 sess_recv(struct sess *s, const struct sess_conf *,
		    const struct wire_msg *m, int64_t now, int *changed,
		    const char **why);

/* A datagram from the peer's address that failed its MAC at NOW (1: the
 * misfit changed to SESS_KEY), or that passed it (1: it changed back).
 * A failure asks the peer, by a HELLO that wants an answer (at most one
 * per SESS_RETRY_ODD), to prove it holds the key: its answer clears the
 * failures, a peer of another key fails again. */
int		 sess_badmac(struct sess *s, int64_t now);
int		 sess_goodmac(struct sess *s);

/* "algo", "timing", "cluster", "key", or NULL for SESS_OK. */
const char	*sess_misfit_name(enum sess_misfit);

#endif
