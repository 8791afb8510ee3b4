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
 * (but 0) with another membership; FILE of an epoch > 0 without SELF
 * and no record; FILE older than REC (this host agreed to REC's epoch
 * since: ERR says to start with a file of it, naming REC's file, which
 * is one).  FILE and REC of epoch 0 run FILE, whose membership the
 * caller records (a cluster that never changed follows its file, as
 * before epochs).  A FILE more than one epoch ahead of REC
 * is joined (EPOCH_JOIN; EPOCH_LEFT without SELF): an epoch ran in
 * between, so REC's ended.  Pure.
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
 * The record of the state directory DIRFD, whose name is DIR: epoch_load()
 * fills *C (free with cluster_free()), whose file is DIR/EPOCH_RECORD in
 * messages, and returns 0, 1 when there is none, -1 with why in ERR;
 * epoch_save() replaces it by C durably: 0, or -1 with errno.
 */
int	 epoch_load(int dirfd, const char *dir, struct cluster *c, char *err,
	    size_t errlen);
int	 epoch_save(int dirfd, const struct cluster *c);

/*
 * The messages of a change between hosts, elect-node's envelopes (net/
 * wire.h) of the epoch types, authenticated and windowed as any other;
 * integers big-endian, digests the first 8 bytes of BLAKE2b ones.
 *
 *	WEDGE	the paper's grant request of infinite delta: wedge your
 *		core of epoch E (net/cluster of E+1 named by its digest)
 *		  0  4  epoch E
 *		  4  8  digest of E+1's record (sess_digest() of its
 *		        cluster_format()): the change it asks for
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

/*
 * A change from epoch E to E+1 as the hosts pass it on (CHANGE) and keep
 * it (the state directory's EPOCH_CHANGE_FILE, written before a host
 * acts on it): E+1's record, then E's members, for the hosts that will
 * ask them to wedge, then, for a forced change, the members of E the
 * operator declared dead:
 *
 *	epoch E+1
 *	node ...		(cluster_format())
 *	epoch E
 *	node ...
 *	dead ID,ID,...		(only when forced)
 *
 * Rules (epoch_change_parse(), and epoch_change_valid() for one made
 * from a request): E+1 = E + 1; an id in both epochs keeps its
 * endpoints, as its host keeps its socket; at least one member of E is
 * a member of E+1, through which the new members learn E; the two
 * memberships together are at most CLUSTER_NODES_MAX; the dead are
 * distinct members of E.
 */
#define EPOCH_CHANGE_FILE	"epoch.change"

struct epoch_change {
	struct cluster	 next, prev;
	unsigned	*dead;		/* members of prev declared dead */
	size_t		 ndead;
	uint8_t		 dnext[EPOCH_DIGEST];	/* WEDGE's: next's record */
	uint8_t		 dprev[EPOCH_DIGEST];	/* WEDGED's: prev's ids */
	uint8_t		 dtext[EPOCH_DIGEST];	/* CHANGE's: the text's */
};

/* C as text; its length, or 0 when LEN is short. */
size_t	 epoch_change_format(const struct epoch_change *c, char *buf,
	    size_t len);
/* Fills *C from the LEN bytes of TEXT (0), or says why not in ERR (-1,
 * *C empty).  NAME is used in messages.  Pure. */
int	 epoch_change_parse(const char *text, size_t len, const char *name,
	    struct epoch_change *c, char *err, size_t errlen);
/* The LEN bytes of S, "ID,ID,...", as C's dead (members of C's prev,
 * distinct): 0, or -1 with ERR. */
int	 epoch_change_dead(const char *s, size_t len, struct epoch_change *c,
	    char *err, size_t errlen);
/* The rules above for C, whose digests it sets; 0, or -1 with ERR. */
int	 epoch_change_valid(struct epoch_change *c, char *err, size_t errlen);
void	 epoch_change_free(struct epoch_change *);
/* The state directory's change: 0, 1 for none, -1 with ERR; and its
 * durable replacement: 0, or -1 with errno. */
int	 epoch_change_load(int dirfd, struct epoch_change *c, char *err,
	    size_t errlen);
int	 epoch_change_save(int dirfd, const struct epoch_change *c);

/*
 * Whether node SELF, whose core runs the epoch of RUN (PENDING: it has
 * not learned that the epoch before ended; WEDGED: it is wedged) and
 * which already takes part in a change (HELD), may start the valid
 * change C, asked by an operator: C must lead from RUN's epoch and
 * membership to the next; a node of a pending or ended epoch, or with
 * a change under way, refuses, as does a node declared dead.  0, or -1
 * with why in ERR.  Pure.
 */
int	 epoch_change_take(const struct cluster *run, int pending, int wedged,
	    int held, unsigned self, const struct epoch_change *c, char *err,
	    size_t errlen);

/*
 * Where a host whose core runs RUN stands in the valid change C:
 * EPOCH_ROLE_OLD, RUN is C's epoch E (it wedges, and moves on if it is
 * in E+1); EPOCH_ROLE_NEW, RUN is E+1 (it asks E to wedge); or -1, C is
 * none of its business (another epoch, or another membership).
 */
enum { EPOCH_ROLE_OLD, EPOCH_ROLE_NEW };
int	 epoch_change_role(const struct cluster *run,
	    const struct epoch_change *c);

/*
 * The answers a pending member of E+1 collects (rule E3): a WEDGED
 * counts once per member of E, only for E, its size and its members'
 * digest; the members declared dead count as wedged (--force).  Done at
 * a majority of E.
 */
struct epoch_votes {
	uint8_t		*wedged;	/* per member of prev */
	size_t		 n, nwedged, need;
};

int	 epoch_votes_init(struct epoch_votes *, const struct epoch_change *);
/* The same into BUF, a byte per member of C's prev, the caller's. */
void	 epoch_votes_start(struct epoch_votes *, const struct epoch_change *,
	    uint8_t *buf);
/* A WEDGED M from FROM: 1 when it completes a majority, 0 when counted
 * or already counted, -1 when it is no answer to C (*WHY). */
int	 epoch_votes_add(struct epoch_votes *, const struct epoch_change *c,
	    unsigned from, const struct epoch_msg *m, const char **why);
/* The answer of a member of prev that knows itself wedged. */
int	 epoch_votes_self(struct epoch_votes *, const struct epoch_change *c,
	    unsigned self);
int	 epoch_votes_done(const struct epoch_votes *);
void	 epoch_votes_free(struct epoch_votes *);

/*
 * When a member of E that holds a change gives its core ALGO_CMD_WEDGE,
 * which makes a leader resign and lets the next epoch lead soon after:
 * only once its guarded commands are dead.  TASKS are running, TOLD says
 * whether they were told to stop, BY is when waiting for them ends (two
 * leases after they were told: a command that outlives its own deadline
 * is dead or its --run-if-leader stuck).  EPOCH_WEDGE_STOP: tell them
 * (and wait until NOW + WAIT); EPOCH_WEDGE_WAIT: wait; EPOCH_WEDGE_NOW:
 * wedge; EPOCH_WEDGE_LATE: wedge, saying so.  Pure.
 */
enum epoch_wedge_step {
	EPOCH_WEDGE_NOW, EPOCH_WEDGE_STOP, EPOCH_WEDGE_WAIT, EPOCH_WEDGE_LATE
};

enum epoch_wedge_step epoch_wedge_when(int tasks, int told, int64_t now,
	    int64_t by);

/*
 * Whether a WEDGE M asks for the change C this host agreed to (1), or
 * not (0, *WHY: "other-change" names another E+1 for the same E, which
 * this host never answers, so that two changes cannot both end E).
 */
int	 epoch_wedge_for(const struct epoch_change *c,
	    const struct epoch_msg *m, const char **why);

#endif
