/*
 * One host's part of an epoch change (Nerio 10.6; share/elect/lease.md,
 * Epochs), a decision of the node's edge.  elect-node's daemon runs it
 * over its sockets and state directory, elect-sim over its simulated
 * links, so that a simulated run proves the code a host runs.
 *
 *	a member of E (HEP_OLD) that holds the change stops its guarded
 *	commands, then wedges its core (HEP_WEDGE), answers WEDGE with
 *	WEDGED once that core is wedged, and, if it is a member of E+1
 *	too, ends that core and boots a fresh core of E+1 (HEP_SWAP);
 *
 *	a member of E+1 (HEP_NEW) whose core is pending asks each member
 *	of E by WEDGE once per period until it answers, and tells its core
 *	ALGO_CMD_TERMINATED at a majority of E (HEP_TERMINATED);
 *
 *	every holder sends the change (CHANGE) to each host of both epochs
 *	it has not heard from in this change, once per period while its
 *	own part is under way, once per idle period after.
 *
 * A change is written (HEP_SAVE) before anything is done for it, so that
 * a restart resumes it; a host answers WEDGE only for the change it
 * wrote, so that two changes from one epoch cannot both end it.
 *
 * Each input returns its actions in order, into the caller's hep_out,
 * and the time of the next tick (the wake).  Pure: no system calls, no
 * clock, no globals; buffers are sized at init, and memory is taken
 * only when a change is learned (its memberships).  The change's
 * addresses are the caller's to resolve: a change learned from CHANGE
 * is handed out (HEP_RESOLVE) and taken back by hep_resolved().
 */
#ifndef ELECT_HOST_EPOCH_H
#define ELECT_HOST_EPOCH_H

#include <stddef.h>
#include <stdint.h>

#include "net/epoch.h"

#define HEP_IDS		(CLUSTER_ID_MAX + 1)
#define HEP_LINE_MAX	256		/* a log line */
#define HEP_LINES	4		/* log lines of one input */
/* One tick: WEDGE to each member of E, CHANGE to each host of both
 * epochs, WEDGED to each that asked, and a few more. */
#define HEP_ACTS_MAX	(3 * CLUSTER_NODES_MAX + 16)

struct hep_conf {
	unsigned	 self;
	int64_t		 period;	/* asks and CHANGE while under way */
	int64_t		 idle;		/* CHANGE once this part is done */
	int64_t		 retry;		/* an ask to a peer not confirmed */
	int64_t		 stop_wait;	/* guarded commands, before a wedge */
	size_t		 text_max;	/* a change's text, at most */
};

/* This host's core as algo_query() tells it, and its guarded commands. */
struct hep_status {
	int		 booted;	/* 0: no core yet (at start) */
	int		 wedged, pending;
	int		 tasks;		/* guarded commands running */
};

enum hep_act_type {
	HEP_SAVE,	/* write the change (EPOCH_CHANGE_FILE) before the
			 * rest: a failure stops the host */
	HEP_LOG,	/* line, warn or info */
	HEP_PEERS,	/* the tables' memberships changed (hep_other()) */
	HEP_SEND,	/* msg (WEDGE, WEDGED) to peer */
	HEP_SEND_CHANGE,/* the change's text to peer, in parts */
	HEP_STOP_TASKS,	/* stop the guarded commands (why: epoch) */
	HEP_WEDGE,	/* ALGO_CMD_WEDGE to the core of E */
	HEP_SWAP,	/* end the core of E (exit why=epoch), write E+1's
			 * record, boot a fresh core of E+1 in a new
			 * incarnation */
	HEP_TERMINATED,	/* ALGO_CMD_TERMINATED to the core of E+1 */
	HEP_DROP,	/* a message from peer refused, for why */
	HEP_RESOLVE	/* resolve hep_incoming()'s addresses, then call
			 * hep_resolved() */
};

struct hep_action {
	enum hep_act_type type;
	unsigned	 peer;
	int		 warn;		/* HEP_LOG */
	const char	*why;		/* HEP_DROP */
	const char	*line;		/* HEP_LOG: into the hep_out */
	struct epoch_msg msg;		/* HEP_SEND */
};

struct hep_out {
	struct hep_action v[HEP_ACTS_MAX];
	size_t		 n;
	char		 lines[HEP_LINES][HEP_LINE_MAX];
	size_t		 nlines;
	int64_t		 wake;		/* next tick, or -1: none */
};

enum { HEP_OLD = EPOCH_ROLE_OLD, HEP_NEW = EPOCH_ROLE_NEW };

struct hep {
	struct hep_conf	 conf;
	int		 held;		/* chg is the change agreed to */
	int		 over;		/* new: E ended; its peers are out */
	int		 role;		/* HEP_OLD, HEP_NEW */
	struct epoch_change chg;
	uint8_t		*votebuf;	/* CLUSTER_NODES_MAX, for votes */
	struct epoch_votes votes;	/* new: who of E answered wedged */
	int		 told_terminated;
	int		 wedge_given;	/* old: HEP_WEDGE given */
	int		 stopping;	/* old: guarded commands told */
	int64_t		 wedge_by;	/* ... and wedged then at the latest */
	int64_t		 next_send;
	uint8_t		 heard[HEP_IDS / 8];	/* said they hold it */
	uint8_t		 askers[HEP_IDS / 8];	/* asked before the wedge */
	char		*text;		/* the change's, to send */
	size_t		 textlen;
	/* A CHANGE being received: its parts, by index. */
	char		*in;
	uint8_t		*ingotpart;
	size_t		 intotal, inparts, ingot;
	uint8_t		 indigest[EPOCH_DIGEST];
	/* A change learned from CHANGE, its addresses to resolve. */
	struct epoch_change incoming;
	int		 inrole;
};

/* 0, or -1 out of memory. */
int	hep_init(struct hep *, const struct hep_conf *);
void	hep_free(struct hep *);

/*
 * The valid change *C (moved in) learned from the operator's request, or
 * the state directory at start: this host's, where RUN, the membership
 * its core runs, stands in it.  0, or -1 when C is not RUN's business
 * (C is freed).
 */
int	hep_hold(struct hep *, const struct cluster *run,
	    struct epoch_change *c, const struct hep_status *, int64_t now,
	    struct hep_out *);

/* Message M from peer FROM, its payload parsed (net/epoch.h). */
void	hep_recv(struct hep *, const struct cluster *run, unsigned from,
	    const struct epoch_msg *m, const struct hep_status *, int64_t now,
	    struct hep_out *);
/* The change of HEP_RESOLVE, its addresses resolved (OK) or not. */
void	hep_resolved(struct hep *, unsigned from, int ok,
	    const struct hep_status *, int64_t now, struct hep_out *);
struct epoch_change *hep_incoming(struct hep *);

/* The time passed, or the core or the commands changed: a tick. */
void	hep_tick(struct hep *, const struct hep_status *, int64_t now,
	    struct hep_out *);
/* After every step of the core: a new member's part ends once its core
 * learned that E ended; 1 when the tables' memberships change then. */
int	hep_stepped(struct hep *, const struct hep_status *);
/* An ask went to a peer whose handshake is not done: again sooner. */
void	hep_retry(struct hep *, const struct hep_status *, int64_t now);

/*
 * An operator's request for the change to NEXT (*CH's next, parsed; its
 * prev filled here from RUN), forced with the members DEAD (DEADLEN
 * bytes, "ID,ID,..."; FORCE without them is refused):
 * HEP_REQ_TAKE, *CH is a valid change to hold (after resolving its
 * addresses); HEP_REQ_FORCE, *CH's dead apply to the change held here
 * (hep_force()); -1 with why in ERR.  Pure.
 */
enum { HEP_REQ_TAKE, HEP_REQ_FORCE };
int	hep_request(const struct hep *, const struct cluster *run,
	    const struct hep_status *, int force, const char *dead,
	    size_t deadlen, struct epoch_change *ch, char *err, size_t errlen);
/* The change held with *CH's dead (CH from hep_request()), written by
 * the caller first: counted as wedged.  *CH is freed. */
void	hep_force(struct hep *, struct epoch_change *ch, const char *dead,
	    size_t deadlen, const struct hep_status *, int64_t now,
	    struct hep_out *);

/* The other epoch's members, which the tables hold beside the core's
 * while this part lasts, or NULL. */
const struct cluster *hep_other(const struct hep *);
/* Whether no change is under way here (a new one may be asked for). */
int	hep_done(const struct hep *, const struct hep_status *);
/* Whether the core of E ends: no guarded command starts on it. */
int	hep_ending(const struct hep *, const struct hep_status *);
/* The change held as its K-th CHANGE message of EPOCH_PART_MAX bytes at
 * most, in *M (its part points into the core); 0 past the last. */
int	hep_change_part(const struct hep *, size_t k, struct epoch_msg *m);

/*
 * Where a host of id SELF starts, given its cluster file FILE, the
 * record REC of its state directory (NULL: none) and the change SAVED
 * it agreed to (NULL: none; SAVEDNAME in messages): *PLAN as
 * epoch_plan() says, and for EPOCH_CHANGE and EPOCH_LEFT the change to
 * hold in *C: SAVED's (*RESUME set, *C untouched) or the one from REC
 * to FILE.  Refused, with why in ERR (-1): those of epoch_plan(), among
 * them a FILE of an epoch older than REC's (a host restarted with an
 * old cluster file); a FILE of epoch 0 whose members differ from REC's
 * while a change from epoch 0 is saved; a change from REC to FILE that
 * breaks the rules, or differs from the one to that epoch saved.  Pure.
 */
int	hep_start(const struct cluster *file, const struct cluster *rec,
	    const struct epoch_change *saved, const char *savedname,
	    unsigned self, enum epoch_plan *plan, struct epoch_change *c,
	    int *resume, char *err, size_t errlen);

#endif
