/*
 * The authenticated datagram envelope of elect-fd and elect-node.
 *
 * Every datagram between hosts is one envelope: a fixed header, a bounded
 * payload and a MAC.  Integers are big-endian.
 *
 *	off  len  field
 *	  0    4  magic     "ELFD" (elect-fd) or "ELND" (elect-node), so a
 *	                    datagram sent to the wrong port is refused
 *	  4    1  version   WIRE_VERSION
 *	  5    1  type      1 .. the protocol's maxtype, or WIRE_TYPE_HELLO
 *	                    (255): the handshake of net/session.h
 *	  6    2  length    payload bytes, 0 .. WIRE_PAYLOAD_MAX
 *	  8    2  from      sender id, 1..65535
 *	 10    2  to        receiver id: a datagram is good for one receiver
 *	 12    2  grp.node  election or group identifier (node, incarnation,
 *	 14    2  zero        counter); all zero when the message has none
 *	 16    8  inc       sender incarnation: grows with every restart
 *	 24    8  seq       sequence number, counted from 1 per receiver
 *	                    within one incarnation of the sender
 *	 32    8  grp.inc
 *	 40    8  grp.ctr
 *	 48    N  payload
 *	48+N  32  mac       keyed BLAKE2b-256 (libsodium crypto_generichash,
 *	                    the cluster key as its key) of bytes 0 .. 48+N-1
 *
 * In insecure mode (no key: elect-fd and elect-node --insecure) the MAC
 * field is still there and holds zeros; an insecure receiver accepts only
 * zeros and a keyed receiver only a true MAC, so a cluster that mixes the
 * two modes drops every datagram as "bad-mac" instead of half-working.
 *
 * The largest datagram, WIRE_DGRAM_MAX = 1232 bytes, fits the IPv6 minimum
 * MTU (1280) with IPv6 and UDP headers, so it never needs fragmenting.
 *
 * Everything here is pure (no I/O, no clock, no globals).  Call
 * sodium_init() once before using a key.
 */
#ifndef ELECT_WIRE_H
#define ELECT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "net/key.h"

#define WIRE_MAGIC_FD		0x454c4644u	/* "ELFD" */
#define WIRE_MAGIC_NODE		0x454c4e44u	/* "ELND" */
#define WIRE_VERSION		2	/* 2: the handshake */
#define WIRE_TYPE_HELLO		255
/* Epoch changes (net/epoch.h), elect-node's only: */
#define WIRE_TYPE_WEDGE		254	/* wedge your core of epoch e */
#define WIRE_TYPE_WEDGED	253	/* mine is wedged */
#define WIRE_TYPE_CHANGE	252	/* a part of the next membership */
#define WIRE_TYPE_EPOCH_MIN	252
/* Named leaderships' rounds (host/named.h), elect-node's only: */
#define WIRE_TYPE_NAMES		251
#define WIRE_HDR_LEN		48
#define WIRE_MAC_LEN		32
#define WIRE_PAYLOAD_MAX	1152
#define WIRE_DGRAM_MAX		(WIRE_HDR_LEN + WIRE_PAYLOAD_MAX + WIRE_MAC_LEN)

/* One protocol on the wire: its magic and its message types 1..maxtype,
 * and whether it takes the epoch types, and the names' type, too. */
struct wire_proto {
	uint32_t	 magic;
	uint8_t		 maxtype;
	int		 epochs;
	int		 names;
};

/* The cluster key, or none (insecure); during a rotation a second key
 * whose MACs are accepted too (datagrams are sent under k). */
struct wire_key {
	int		 insecure;
	uint8_t		 k[KEY_BYTES];
	int		 has_old;
	uint8_t		 old[KEY_BYTES];
	char		 id[KEY_ID_LEN + 1], old_id[KEY_ID_LEN + 1];
};

/* Stoller's election identifier: (node, incarnation, counter). */
struct wire_grp {
	uint16_t	 node;		/* 0: no identifier */
	uint64_t	 inc;
	uint64_t	 ctr;
};

/* A decoded envelope; payload points into the datagram it came from. */
struct wire_msg {
	uint8_t		 type;
	uint16_t	 from;
	uint16_t	 to;
	uint64_t	 inc;
	uint64_t	 seq;
	struct wire_grp	 grp;
	const uint8_t	*payload;
	size_t		 len;
	int		 keyslot;	/* its MAC's key: 0 k, 1 old */
};

/*
 * Builds the datagram for M in BUF and returns its length, or 0 when M
 * breaks a rule (type out of range, payload too long, from/to/seq zero,
 * BUF shorter than WIRE_HDR_LEN + len + WIRE_MAC_LEN).
 */
size_t		 wire_encode(const struct wire_key *, const struct wire_proto *,
		    const struct wire_msg *m, uint8_t *buf, size_t buflen);

/*
 * Checks and decodes the LEN bytes of BUF, received by node SELF.  Returns
 * NULL and fills *M, or the reason for refusing it, one of
 *
 *	truncated	shorter than a header and a MAC, or than its length says
 *	oversized	longer than WIRE_DGRAM_MAX, or length > WIRE_PAYLOAD_MAX
 *	bad-magic	another protocol (or not ours at all)
 *	bad-version	a version this build does not speak
 *	bad-length	bytes after the MAC
 *	bad-mac		the MAC does not verify (forged, corrupted, other key)
 *	bad-type	type 0 or past the protocol's maxtype, and not HELLO
 *			(nor an epoch type, for a protocol with epochs, nor
 *			WIRE_TYPE_NAMES, for one with names)
 *	bad-header	reserved bytes not zero, or seq 0
 *	bad-sender	from 0, or from SELF
 *	misdirected	to another node
 *
 * Cheap structural checks come first, the MAC (constant-time) next, and
 * nothing after them trusts a field the MAC has not covered.  Even on
 * refusal, M->from holds the claimed sender when the header was long
 * enough to read it (0 otherwise): for the "drop from=" of a trace only.
 * The caller then checks that from is a known peer ("unknown-peer") and
 * the replay window ("replay", "old-incarnation").
 */
const char	*wire_decode(const struct wire_key *, const struct wire_proto *,
		    unsigned self, const uint8_t *buf, size_t len,
		    struct wire_msg *m);

/*
 * The anti-replay window of one peer, as in IPsec (RFC 4303, 3.4.3): the
 * highest sequence number seen and a 64-bit bitmap of the 64 numbers at
 * and below it.  A datagram is fresh when its incarnation is newer than the
 * window's (which resets it), or equal with a sequence number above the
 * top or inside the window and not yet seen.  Zero-initialise.
 */
struct wire_window {
	int		 valid;		/* seen anything yet */
	uint64_t	 inc;
	uint64_t	 top;
	uint64_t	 bits;		/* bit i: top - i seen */
};

#define WIRE_WINDOW	64

/*
 * Checks INC/SEQ of an authenticated datagram against W and records it.
 * Returns NULL when fresh, "old-incarnation" when the sender has restarted
 * since, "replay" when seen before or older than the window.
 */
const char	*wire_window_check(struct wire_window *w, uint64_t inc,
		    uint64_t seq);

/*
 * Loads the key file PATH into K (a second key is accepted too): the
 * number of keys, or -1 with why in MSG.  See net/key.h.
 */
int		 wire_key_load(struct wire_key *k, const char *path, char *msg,
		    size_t msglen);

/* Big-endian fields for payloads. */
static inline void
wire_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
wire_put32(uint8_t *p, uint32_t v)
{
	wire_put16(p, (uint16_t)(v >> 16));
	wire_put16(p + 2, (uint16_t)v);
}

static inline void
wire_put64(uint8_t *p, uint64_t v)
{
	wire_put32(p, (uint32_t)(v >> 32));
	wire_put32(p + 4, (uint32_t)v);
}

static inline uint16_t
wire_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
wire_get32(const uint8_t *p)
{
	return (uint32_t)wire_get16(p) << 16 | wire_get16(p + 2);
}

static inline uint64_t
wire_get64(const uint8_t *p)
{
	return (uint64_t)wire_get32(p) << 32 | wire_get32(p + 4);
}

#endif
