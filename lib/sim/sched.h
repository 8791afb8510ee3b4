/*
 * A simulated run's schedule: the events elect-sim(1) takes with -e
 * ('SECONDS EVENT ARGS') and writes back when it prints a command that
 * replays a run.  Parsing is strict and bounded: the strings come from
 * the command line, and a shrunk schedule must read back as it was.
 */
#ifndef ELECT_SIM_SCHED_H
#define ELECT_SIM_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "algo/algo.h"

#define SCHED_LINE_MAX	(ALGO_NODES_MAX * 6 + ALGO_CMD_MAX + 64)

enum sched_op {
	S_CRASH, S_BOOT, S_LEAVE, S_PAUSE, S_RESUME, S_CUT, S_MEND,
	S_PARTITION, S_ONEWAY, S_HEAL, S_RELEASE, S_EDICT, S_RECONFIGURE,
	S_KILL,		/* the daemon dies, its host and guard run on */
	S_MISCONF,	/* the host restarts under another configuration
			 * (b: what differs, a sess_misfit,
			 * SCHED_MISCONF_ADDR or SCHED_STALE; SESS_OK: the
			 * cluster's own again) */
	S_NOPS
};

/* misconf's host has one peer's address wrong in its cluster file. */
#define SCHED_MISCONF_ADDR	5
/* misconf's host restarts with the cluster file of an older epoch than
 * its record's. */
#define SCHED_STALE		16

/* Partition sides, a byte per node index ("L/R/B"): nodes on side L
 * and side R cannot reach each other (oneway: what L sends to R is lost,
 * not the answers); the nodes of B reach both, which makes the partition
 * non-transitive.  Nodes not named are on side R. */

#define SIDE_R		0
#define SIDE_L		1
#define SIDE_B		2

struct sched {
	algo_time	 at;
	enum sched_op	 op;
	size_t		 a, b;		/* node indices */
	uint8_t		*side;		/* partition: a byte per node index;
					 * reconfigure: 1 for a member */
	char		 text[ALGO_CMD_MAX + 1];	/* edict */
};

/* Reads S (LEN bytes, no NUL needed) against the cluster IDS[0..N-1]
 * into *OUT: 0, or -1 with why in WHY.  *OUT owns side on success. */
int		 sched_parse(const char *s, size_t len, const uint16_t *ids,
		    size_t n, struct sched *out, char *why, size_t whylen);
/* "ID,ID,...", at least one, each once, into a byte per node index, 1
 * for those named: 0, or -1 with why in WHY. */
int		 sched_members(const char *s, size_t len, const uint16_t *ids,
		    size_t n, uint8_t **out, char *why, size_t whylen);
/* Writes S as -e takes it; returns as snprintf(3) does. */
int		 sched_format(const struct sched *, const uint16_t *ids,
		    size_t n, char *buf, size_t len);
const char	*sched_op_name(enum sched_op);
/* What a misconf event's host differs in ("ok", "algo", ...). */
const char	*sched_misconf_name(size_t what);
/* Whether S names node index I (a crash of it, a side it is on). */
int		 sched_names(const struct sched *, size_t i);
void		 sched_free(struct sched *);

#endif
