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
int	 cluster_same_members(const struct cluster *, const struct cluster *);

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

#endif
