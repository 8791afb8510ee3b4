/*
 * The lease core's private header: Nerio (van Renesse, Schneider and
 * Gehrke, "Nerio: Leader Election and Edict Ordering") in four roles, a
 * file each, over one state:
 *
 *	lease-grant.c	the grantor (steps 4 to 6, release, restarts)
 *	lease-lead.c	the candidate and leader (steps 1 to 3 and 7 to 9,
 *			the fencing token)
 *	lease-watch.c	the weak leader's watch (section 9, mirrored)
 *	lease-edict.c	edicts, made and received (section 7)
 *	lease-epoch.c	epochs: pending, learning, the wedge (10.6)
 *	lease.c		inputs, boot, status, invariants, payload codecs
 *
 * Why it is safe, and the decisions the paper leaves open (restarts,
 * fencing tokens, the drift bound, timing), are in share/elect/lease.md;
 * comments below cite its sections by name.  Every clock value is on the
 * core's clock, the `now' of its inputs (the paper's C_p).
 */
#ifndef ELECT_LEASE_INTERNAL_H
#define ELECT_LEASE_INTERNAL_H

#include "algo/algo.h"

#define LEASE_NODES_MAX	ALGO_NODES_MAX	/* the largest cluster */
#define LEASE_QT_MAX	(LEASE_NODES_MAX / 2 + 1)
#define LEASE_TEXT_MAX	ALGO_EDICT_MAX	/* bytes of an edict's text */

enum {
	M_REQUEST = 1, M_OK, M_REFUSE, M_RELEASE, M_EDICT, M_DEAD, NMSG
};

enum { T_TRY, T_ABORT, T_LEAD, T_GRANT, T_QUIET, NTIMER };

/* Why a grantor refuses. */
enum { R_BUSY = 1, R_QUIET, R_STALE, R_LATE, R_WEDGED, R_NWHY };

/* What a Release says of its sender. */
enum { L_ABORT, L_RESIGN, L_LEAVE, L_NWHY };

/*
 * Payloads, big-endian:
 *	Request	delta 8, start 8, token 8, echo 8, echo inc 8, remainder 8,
 *		K seen 8 (absent from the 48-byte form, read as none)
 *	Ok	T_q 8, incarnation 8, K_q 8
 *	Refuse	why 1, grantee 2, left 8, K_q 8
 *	Release	why 1
 *	Dead	nothing: the election id (node, incarnation, 0) names the
 *		incarnation of its sender that is dead
 *	Edict	token 8, seq 8, pairs 2, (id 2, T 8) * pairs, text
 *		or, for a quorum of more than LEASE_QT_WIRE:
 *		token 8, seq 8, 0 2, digest 8, text
 */
#define REQ_LEN		48
#define REQ_KLEN	56
#define OK_LEN		24
#define REF_LEN		19
#define REL_LEN		1
#define DEAD_LEN	0
#define EDICT_HDR	18
#define QT_PAIR		10
#define QD_LEN		8
/* The largest quorum timestamp an edict carries whole, with the longest
 * text, in one message; a larger one is carried and traced by its digest
 * (share/elect/lease.md, Edicts): clusters of up to 149 nodes. */
#define LEASE_QT_WIRE	((ALGO_PAYLOAD_MAX - EDICT_HDR - LEASE_TEXT_MAX) / \
			    QT_PAIR)
/* The most pairs an edict can carry (with one byte of text). */
#define LEASE_QT_RECV	((ALGO_PAYLOAD_MAX - EDICT_HDR - 1) / QT_PAIR)
/* "qt=ID:T,ID:T..." for as many, NUL included. */
#define LEASE_QT_STRLEN	(3 + LEASE_QT_RECV * 27 + 1)

#define NS		INT64_C(1000000000)
#define DELTA_MAX	(INT64_C(3600) * NS)	/* longest grant asked */
#define NEVER		INT64_MAX
#define NONE		SIZE_MAX

/* Stable storage: version 1, a bound on K (8), the longest delta granted
 * (8).  K is persisted in strides, so that a new token costs a write to
 * disk once in TOKEN_STRIDE leaderships, not on every handover. */
#define PERSIST_V1	1
#define PERSIST_LEN	17
/* Version 2 (epochs, share/elect/lease.md E6): version 1's fields, the
 * epoch (4) and flags (1). */
#define PERSIST_V2	2
#define PERSIST_V2_LEN	22
#define EP_WEDGED	0x1
#define EP_LEARNED	0x2
/* Tokens of epoch e lie in (e 2^EPOCH_SHIFT, (e+1) 2^EPOCH_SHIFT). */
#define EPOCH_SHIFT	40
#define TOKEN_STRIDE	1024

struct qt {
	uint16_t	 id;
	algo_time	 t;
};

struct peer {
	struct algo_elid last;		/* FIFO: newest request or release */
	int		 lastrel;	/* ... and it was a release */
	int		 up;		/* considered correct (section 9) */
	int		 gone;		/* left or stepped down: releases */
	uint64_t	 dead;		/* its incarnations below are dead */
	algo_time	 echo;		/* its T_q in its last Ok to us */
	uint64_t	 echoinc;
};

/* One run of OQwBD (OQwBS). */
struct run {
	int		 on;
	struct algo_elid elid;
	algo_time	 start, delta;
	algo_time	 end;		/* completes only before this */
	uint64_t	 tok;		/* token carried: 0 when acquiring */
	int		 stale;		/* a grantor has a newer token */
	struct algo_set	 ok, ref;
	size_t		 nok, nref;
	uint64_t	 maxk;
	algo_time	 t[LEASE_NODES_MAX];	/* Ok: T_q, by rank */
	algo_time	 free[LEASE_NODES_MAX];	/* Refuse: free from */
};

struct lease {
	struct algo	 a;
	/* Grantor: A_q, F_q, and the request granted. */
	uint16_t	 grantee;
	algo_time	 finish;
	struct algo_elid granted;
	int		 told;		/* the grant's end was released or
					 * seen (lease_lapsed) */
	uint64_t	 k;		/* highest token seen in this life */
	uint64_t	 kboot;		/* persisted bound of earlier lives */
	uint64_t	 khi;		/* persisted bound: k <= khi */
	algo_time	 dmax;		/* longest delta granted, persisted */
	algo_time	 quiet;		/* no grant before */
	/* Leader. */
	algo_time	 expire;	/* E_p */
	uint64_t	 tok;		/* established token, or 0 */
	uint64_t	 ptok;		/* proposed token, or 0 */
	struct qt	 qt[LEASE_QT_MAX];
	size_t		 nqt;
	uint64_t	 qd;		/* digest of qt[], above LEASE_QT_WIRE */
	/* The run that set E_p: its Start and delta, and whether our own
	 * grant was among the majority's (for the invariants). */
	algo_time	 lstart, ldelta;
	int		 lself;
	uint64_t	 ec;		/* edict counter */
	uint64_t	 kseen;		/* highest K in any Ok or Refuse */
	struct run	 run;
	uint32_t	 ctr;
	algo_time	 backoff;	/* stepped down: no run before */
	/* Weak leader: the rank watched, NONE when we are it. */
	size_t		 mon;
	/* Verification and finding the leader. */
	uint16_t	 vnode;
	algo_time	 vuntil;
	uint16_t	 hint;
	/* Edicts received: the last delivered. */
	uint64_t	 dtok, dseq;
	struct peer	 peer[LEASE_NODES_MAX];
	/* Epochs (10.6): ours is a.epoch. */
	int		 pending;	/* the epoch before not known ended */
	int		 wedging;	/* asked to wedge: grants nothing */
	int		 wedged;	/* A = bot, F = infinity */
};

/* ---- arithmetic on the clock (share/elect/lease.md, Clock) ---- */

/* X (1 + rho), rounded up: what a grantor holds for X of real time. */
static inline algo_time
lease_fast(const struct lease *l, algo_time x)
{
	return x + (algo_time)(((__int128)x * l->a.t.drift + NS - 1) / NS);
}

/* X (1 - rho), rounded down: what a leader trusts of X. */
static inline algo_time
lease_slow(const struct lease *l, algo_time x)
{
	return x - (algo_time)(((__int128)x * l->a.t.drift + NS - 1) / NS);
}

/* What a leader trusts of a run of DELTA: OQwBD or OQwBS (section 4). */
static inline algo_time
lease_trusted(const struct lease *l, algo_time delta)
{
	return l->a.t.skew > 0 ? delta : lease_slow(l, delta);
}

static inline int
lease_leading(const struct lease *l, algo_time now)
{
	return now < l->expire;
}

/* Granting a node other than ourselves. */
static inline int
lease_granting(const struct lease *l, algo_time now)
{
	return l->grantee != 0 && l->grantee != l->a.self && now < l->finish;
}

/* K_q as reported in Oks: at least every token this node ever took. */
static inline uint64_t
lease_kq(const struct lease *l)
{
	return l->k > l->kboot ? l->k : l->kboot;
}

static inline size_t
lease_quorum(const struct lease *l)
{
	return l->a.n / 2 + 1;
}

/* The pairs of our quorum timestamp that edicts carry: none, above
 * LEASE_QT_WIRE, where its digest stands for them. */
static inline size_t
lease_qt_carried(const struct lease *l)
{
	return l->nqt > LEASE_QT_WIRE ? 0 : l->nqt;
}

static inline size_t
lease_rank(const struct lease *l, uint16_t id)
{
	return (size_t)algo_rank(&l->a, id);
}

/* lease.c */
algo_time	 lease_get_time(const uint8_t *);
const char	*lease_fmt_time(algo_time, char *, size_t);
void		 lease_show(struct lease *, algo_time, struct algo_out *);
void		 lease_sample(struct algo_out *, algo_time);
uint64_t	 lease_qt_digest(const struct qt *, size_t);
void		 lease_qt_key(const struct qt *, size_t, uint64_t,
		    char *, size_t);

/* lease-grant.c */
int		 lease_grant(struct lease *, uint16_t p,
		    const struct algo_elid *, algo_time delta, algo_time start,
		    uint64_t tok, algo_time now, struct algo_out *,
		    algo_time *left);
void		 lease_ungrant(struct lease *, uint16_t p, algo_time,
		    struct algo_out *);
int		 lease_on_request(struct lease *, const struct algo_msg *,
		    algo_time, struct algo_out *);
int		 lease_on_dead(struct lease *, const struct algo_msg *,
		    algo_time, struct algo_out *);
int		 lease_on_release(struct lease *, const struct algo_msg *,
		    algo_time, struct algo_out *);
int		 lease_boot_grantor(struct lease *, const uint8_t *persist,
		    size_t len, algo_time now);
void		 lease_reach(struct lease *, uint64_t kseen,
		    struct algo_out *);
void		 lease_tighten(struct lease *, struct algo_out *);

/* lease-lead.c */
void		 lease_start_run(struct lease *, algo_time, struct algo_out *);
void		 lease_fail(struct lease *, algo_time, struct algo_out *);
void		 lease_maybe_run(struct lease *, algo_time, struct algo_out *);
size_t		 lease_hopes(const struct lease *);
void		 lease_resign(struct lease *, int why, algo_time,
		    struct algo_out *);
int		 lease_on_ok(struct lease *, const struct algo_msg *,
		    algo_time, struct algo_out *);
int		 lease_on_refuse(struct lease *, const struct algo_msg *,
		    algo_time, struct algo_out *);

/* lease-watch.c */
void		 lease_watch_from(struct lease *, size_t rank,
		    struct algo_out *);
void		 lease_heard(struct lease *, uint16_t, struct algo_out *);
void		 lease_lost(struct lease *, uint16_t, algo_time,
		    struct algo_out *);
void		 lease_lapsed(struct lease *, algo_time, struct algo_out *);

/* lease-epoch.c */
int		 lease_epoch_boot(struct lease *, const uint8_t *persist,
		    size_t len, algo_time now);
size_t		 lease_epoch_persist(const struct lease *, uint8_t *, size_t);
uint64_t	 lease_epoch_token(const struct lease *, uint64_t);
int		 lease_epoch_may_run(const struct lease *);
const char	*lease_epoch_key(const struct lease *, char *, size_t);
#define LEASE_EKEY	24	/* " epoch=16777215", NUL included */
int		 lease_epoch_k_ok(const struct lease *, uint64_t);
void		 lease_epoch_learn(struct lease *, uint16_t by, algo_time,
		    struct algo_out *);
void		 lease_epoch_settle(struct lease *, algo_time,
		    struct algo_out *);
int		 lease_epoch_cmd(struct lease *, const struct algo_cmd *,
		    algo_time, struct algo_out *);
void		 lease_epoch_query(const struct lease *, struct algo_status *);
const char	*lease_epoch_check(const struct lease *);

/* lease-grant.c */
void		 lease_save(const struct lease *, struct algo_out *);

/* lease-edict.c */
int		 lease_make_edict(struct lease *, const struct algo_cmd *,
		    algo_time, struct algo_out *);
int		 lease_on_edict(struct lease *, const struct algo_msg *,
		    struct algo_out *);

#endif
