/*
 * What the lease core (lib/algo/lease.c) tells its daemon beyond struct
 * algo_status: the leadership and its fencing token, the grant this node
 * holds out (Nerio's "finding the leader", 10.4), the leader it verified
 * (10.5), and the edicts it delivered or refused.  Every clock value is on
 * the core's clock, the `now' of its inputs.
 */
#ifndef ELECT_LEASE_H
#define ELECT_LEASE_H

#include "algo/algo.h"

#define LEASE_NODES_MAX	255		/* the largest cluster */
#define LEASE_QT_MAX	(LEASE_NODES_MAX / 2 + 1)
#define LEASE_LOG	32		/* edicts remembered for the daemon */
#define LEASE_TEXT_MAX	ALGO_CMD_MAX	/* bytes of an edict's text */
/* "ID:T,ID:T..." for a whole quorum, NUL included. */
#define LEASE_QT_STRLEN	(LEASE_QT_MAX * 27 + 1)

extern const struct algo_ops algo_lease;

struct lease_info {
	int		 leading;	/* now < E */
	algo_time	 until;		/* E, when leading */
	uint64_t	 token;		/* fencing token, 0 until established */
	uint16_t	 grantee;	/* A, while it holds a grant; 0: none */
	algo_time	 grant_until;	/* F */
	algo_time	 verified_until; /* the grantee surely leads until */
	algo_time	 quiet_until;	/* after a boot: grants nothing before */
	uint16_t	 hint;		/* leader named by the last refusal */
};

/* -1 unless A runs the lease algorithm. */
int		 lease_info(const struct algo *, algo_time now,
		    struct lease_info *);

struct lease_edict {
	uint16_t	 from;		/* its creator, the leader then */
	uint64_t	 token;		/* the creator's fencing token */
	uint64_t	 seq;		/* the creator's edict counter */
	int		 delivered;	/* 0: refused, it would break the order */
	size_t		 len;
	char		 text[LEASE_TEXT_MAX + 1];	/* NUL-terminated */
};

/* Edicts delivered or refused since boot (the creator's own included). */
uint64_t	 lease_edicts(const struct algo *);
/* The I-th of them (0-based): 0, or -1 when it is no longer (or not yet)
 * kept; the last LEASE_LOG are. */
int		 lease_edict(const struct algo *, uint64_t i,
		    struct lease_edict *);

#endif
