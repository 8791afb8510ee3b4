/*
 * Epochs of a cluster (Nerio 10.6; share/elect/lease.md, Epochs) as a
 * host keeps them: the membership of the newest epoch it belongs to, in
 * its state directory, and which epoch a node starting with a cluster
 * file of some epoch comes back into.
 *
 * The record is a cluster file (net/cluster.h) with its epoch line,
 * written as cluster_format() writes it, in the state directory's file
 * EPOCH_RECORD: the same crash-safe replacement as every record there
 * (store/store.h), so a crash leaves the old epoch or the new one.  A
 * cluster that never changed has none: a node without a record and
 * with a file of epoch 0 is as it always was.
 */
#ifndef ELECT_EPOCH_H
#define ELECT_EPOCH_H

#include <stddef.h>

#include "net/cluster.h"
#include "net/wire.h"

#define EPOCH_RECORD	"epoch"

/*
 * What a node of id SELF starting with the cluster file FILE does, given
 * the record REC of its state directory (NULL: none).
 *
 *	EPOCH_RUN	run REC's epoch (FILE's when there is no record or
 *			FILE is of the same epoch with the same membership):
 *			a restart, whose core is not fresh
 *	EPOCH_JOIN	write FILE as the record, then run its epoch with a
 *			fresh core (E7): this host never ran a core of it
 *	EPOCH_CHANGE	REC's epoch first, until its core is wedged, then
 *			as EPOCH_JOIN: a host in both epochs
 *	EPOCH_LEFT	REC's epoch, wedged: FILE's epoch has no SELF
 *
 * Refused, with why in ERR (-1): SELF in neither; FILE of REC's epoch
 * with another membership; FILE of an epoch > 0 without SELF and no
 * record.  A FILE older than REC runs REC (the record is what this host
 * last agreed to).  Pure.
 */
enum epoch_plan { EPOCH_RUN, EPOCH_JOIN, EPOCH_CHANGE, EPOCH_LEFT };

int	 epoch_plan(const struct cluster *file, const struct cluster *rec,
	    unsigned self, enum epoch_plan *, char *err, size_t errlen);
const char *epoch_plan_name(enum epoch_plan);

/* Same ids at the same endpoints (as written), whatever the epochs. */
int	 cluster_same_members(const struct cluster *,
	    const struct cluster *);

/*
 * C as a cluster file: its epoch line, then one canonical node line per
 * node (fd= always given).  Returns the length, or 0 when LEN is short.
 * cluster_parse() reads it back to an equal cluster.
 */
size_t	 cluster_format(const struct cluster *c, char *buf, size_t len);

/*
 * The record of the state directory DIRFD: epoch_load() fills *C (free
 * with cluster_free()) and returns 0, 1 when there is none, -1 with why
 * in ERR; epoch_save() replaces it by C durably: 0, or -1 with errno.
 */
int	 epoch_load(int dirfd, struct cluster *c, char *err, size_t errlen);
int	 epoch_save(int dirfd, const struct cluster *c);

/*
 * The messages of a change between hosts, elect-node's envelopes (net/
 * wire.h) of the epoch types, authenticated and windowed as any other;
 * integers big-endian, digests the first 8 bytes of BLAKE2b ones.
 *
 *	WEDGE	the paper's grant request of infinite delta: wedge your
 *		core of epoch E (net/cluster of E+1 named by its digest)
 *		  0  4  epoch E
 *		  4  8  digest of E+1's members (sess_cluster_digest())
 *	WEDGED	the answer: my core of E is wedged, for good
 *		  0  4  epoch E
 *		  4  2  members of E, 1 .. CLUSTER_NODES_MAX (a majority of
 *		        them ends E, rule E3)
 *		  6  8  digest of E's members
 *	CHANGE	a part of E's record (cluster_format()), for a host that
 *		was not given the file
 *		  0  4  epoch E, 1 .. 2^24 - 1
 *		  4  4  the record's length, 1 .. CLUSTER_FILE_MAX
 *		  8  4  this part's offset; it ends within the record
 *		 12  8  digest of the whole record (sess_digest())
 *		 20  N  the part, 1 .. EPOCH_PART_MAX bytes
 *
 * Parsing is strict: exact lengths, epochs and counts in range.
 */
#define EPOCH_WEDGE_LEN		12
#define EPOCH_WEDGED_LEN	14
#define EPOCH_CHANGE_HDR	20
#define EPOCH_PART_MAX		(WIRE_PAYLOAD_MAX - EPOCH_CHANGE_HDR)
#define EPOCH_DIGEST		8

struct epoch_msg {
	uint8_t		 type;		/* WIRE_TYPE_WEDGE, ... */
	uint32_t	 epoch;
	uint16_t	 members;	/* WEDGED */
	uint8_t		 digest[EPOCH_DIGEST];
	uint32_t	 total, off;	/* CHANGE */
	const uint8_t	*part;		/* CHANGE: into the payload */
	size_t		 len;
};

/* NULL and *M filled, or "bad-payload". */
const char *epoch_msg_parse(uint8_t type, const uint8_t *p, size_t len,
	    struct epoch_msg *m);
/* M's payload into P (CAP bytes): its length, or 0 when M breaks a rule
 * of the parser or CAP is short. */
size_t	 epoch_msg_put(const struct epoch_msg *m, uint8_t *p, size_t cap);

#endif
