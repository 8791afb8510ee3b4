/*
 * What the modified bully of Mamun et al. and the enhanced bully of
 * Murshed and Allen share ("Enhanced Bully Algorithm for Leader Node
 * Election in Synchronous Distributed Systems", 2012: section 3 describes
 * the former, section 4 and the Appendix the latter).  Both speak the
 * same five messages: election (naming the failed leader), ok, coordinator
 * (naming the new leader), query and answer (naming the current leader).
 * modified-bully.c and enhanced-bully.c decide whom to ask and what to do
 * when a wait ends; this file carries the messages, the waits and the
 * Update procedure.
 *
 * Update.  The papers' Update(ldr, J) sets ldr and state normal at every
 * node at once, and a coordinator message is its only carrier; but nodes
 * receive it at different instants, and a node that got it first would
 * follow J while one that has not yet would still follow the old leader,
 * against SLE1.  So a node that learns of a new leader waits t_TX, the
 * one-way delivery bound of the synchronous system, before it is Normal
 * with it (status Wait meanwhile): by then every live node has received
 * the broadcast and left Normal with the old leader.  No messages are
 * added, so the papers' counts hold; the election takes t_TX longer.
 *
 * A coordinator message also names the leader it replaces (the papers'
 * election message names the failed leader; we do the same for
 * coordinator), so that a node can tell a stale announcement from one
 * meant for it: it takes a new leader J when J is above the one it has,
 * when it has none, or when its own is the one replaced or known failed.
 *
 * An id cannot tell a leader from its next incarnation: a leader that
 * reboots while its replacement is being elected announces itself again,
 * and the electioneer's coordinator "replacing F" may reach a node after
 * that announcement, which would then follow the replacement while others
 * follow F, for good.  So every message that names a node also names the
 * incarnation it was known by (0: unknown; a revived node learns it from
 * the answers): a coordinator replaces F only at nodes whose leader is
 * that incarnation of F.  Ok carries its sender's incarnation, for the
 * electioneer to name it.  A new incarnation of our leader is a new
 * leader: Update waits t_TX for it too.
 *
 * Both papers' leaders are silent once stable, so a split that arose
 * anyway (a message later than t_TX, outside the model) would last.  A
 * Normal leader therefore repeats its coordinator every `announce' (1 s;
 * in the manner of Garcia-Molina's procedure Check): a node that follows
 * a lower leader, or leads below it, takes it, and a node above it that
 * leads takes over (NRC), so a split lasts at most one period.  N - 1
 * messages per period; the election counts are unchanged.
 */
#ifndef ELECT_MURSHED_H
#define ELECT_MURSHED_H

#include "algo/algo.h"

enum mb_msg {
	MB_ELECTION = 1, MB_OK, MB_COORDINATOR, MB_QUERY, MB_ANSWER, MB_NMSG
};

enum mb_timer {
	MB_T_WAIT,	/* the electioneer's or querier's wait */
	MB_T_OK,	/* an ok sender's wait for the coordinator */
	MB_T_HOLD,	/* t_TX between learning a leader and Normal */
	MB_T_ANNOUNCE,	/* a Normal leader repeats its coordinator */
	MB_NTIMER
};

struct mbully;

/* What each algorithm decides; murshed.c calls these. */
struct mb_policy {
	/* On recovery (NRC). */
	void	(*start)(struct mbully *, algo_time, struct algo_out *);
	/* Our leader failed (DownSig, or an ok wait ran out). */
	void	(*electn)(struct mbully *, uint16_t failed, algo_time,
		    struct algo_out *);
	/* An election from a lower node, naming FAILED. */
	void	(*election)(struct mbully *, const struct algo_msg *,
		    uint16_t failed, uint64_t finc, algo_time, struct algo_out *);
	/* Our election's wait ended: time ran out or all but the failed
	 * leader answered. */
	void	(*elected)(struct mbully *, algo_time, struct algo_out *);
	/* Our query's wait ended likewise. */
	void	(*queried)(struct mbully *, algo_time, struct algo_out *);
	/* No coordinator came within our ok wait. */
	void	(*ok_expired)(struct mbully *, algo_time, struct algo_out *);
};

struct mbully {
	struct algo	 a;
	const struct mb_policy *p;
	uint16_t	 ldr;		/* our leader, or the one we take next */
	uint64_t	 linc;		/* ldr's incarnation, 0: unknown */
	uint16_t	 failed;	/* the leader we know failed, or 0 */
	uint64_t	 finc;		/* failed's incarnation, 0: unknown */
	int		 announcing;	/* MB_T_ANNOUNCE is armed */
	uint16_t	 watch;		/* the node our detector monitors */
	int		 hold;		/* ldr is taken, Normal after t_TX */
	int		 electing;	/* we are the electioneer */
	int		 querying;	/* we revived and ask for the leader */
	int		 okwait;	/* we sent ok and await the coordinator */
	int		 waiting;	/* MB_T_WAIT is armed */
	int		 phase;		/* of our election or query: 1, 2 */
	struct algo_elid el;		/* of our election or query */
	uint32_t	 nextel;
	struct algo_set	 asked, heard;	/* by rank */
	uint16_t	 best;		/* highest ok, or highest leader heard */
	uint64_t	 best_inc;	/* best's incarnation, 0: unknown */
	algo_time	 ok_at;		/* when we last sent ok; -1: never */
	size_t		 ncand;		/* enhanced: the top ncand ranks */
};

/* Multicast election (naming FAILED) or query to the ranks [lo, hi) but
 * ours, and wait WAIT for the answers. */
void	mb_elect(struct mbully *, size_t lo, size_t hi, uint16_t failed,
	    algo_time wait, int phase, algo_time, struct algo_out *);
void	mb_query(struct mbully *, size_t lo, size_t hi, algo_time wait,
	    int phase, algo_time, struct algo_out *);
/* Nodes above us answered but know no leader yet: they are electing, and
 * their coordinator will reach us too.  Wait WAIT for it, then the policy
 * is asked again (queried, phase MB_AWAIT). */
#define MB_AWAIT	3
void	mb_await(struct mbully *, algo_time wait, algo_time,
	    struct algo_out *);
/* Broadcast(coordinator, J) replacing FAILED, then Update(ldr, J). */
void	mb_name(struct mbully *, uint16_t j, uint16_t failed, algo_time,
	    struct algo_out *);
/* Update(ldr, J) at this node only: J, of incarnation JINC (0: unknown),
 * was learned from others. */
void	mb_adopt(struct mbully *, uint16_t j, uint64_t jinc, algo_time,
	    struct algo_out *);
/* Whether FAILED of incarnation FINC is our leader (an unknown
 * incarnation matches any). */
int	mb_is_ldr(const struct mbully *, uint16_t failed, uint64_t finc);
/* The end of a query (NRC): the highest leader heard of, if above us, is
 * taken; one below us, or none when nobody answered, gives way to us (we
 * broadcast coordinator); answers without a leader make us await
 * (mb_await, for WAIT), and an await without news asks again (start). */
void	mb_conclude(struct mbully *, algo_time wait, algo_time,
	    struct algo_out *);
/* Send ok for election M (naming FAILED of incarnation FINC) and await
 * the coordinator for WAIT. */
void	mb_ok(struct mbully *, const struct algo_msg *, uint16_t failed,
	    uint64_t finc, algo_time wait, algo_time, struct algo_out *);
/* Whether any rank in [lo, hi) but ours answered. */
int	mb_heard_any(const struct mbully *, size_t lo, size_t hi);
/* Traces the state if it changed. */
void	mb_show(struct mbully *, algo_time, struct algo_out *);

int	mb_boot(struct algo *, const struct mb_policy *, algo_time,
	    struct algo_out *);
int	mb_step(struct algo *, const struct algo_input *, struct algo_out *);

extern const char *const mb_msgnames[MB_NMSG];
extern const char *const mb_timernames[MB_NTIMER];
void	mb_msg_fields(const struct algo_msg *, char *, size_t);
int	mb_msg_set_field(struct algo_msg *, const char *, const char *);

/* The algo_ops fields of both algorithms: all but name, boot and query. */
#define MB_OPS						\
	.msgnames = mb_msgnames,			\
	.nmsg = MB_NMSG,				\
	.timernames = mb_timernames,			\
	.ntimer = MB_NTIMER,				\
	.size = sizeof(struct mbully),			\
	/* an election or a coordinator to every node */	\
	.acts_node = 3,					\
	.acts_fixed = 16,				\
	.step = mb_step,				\
	.msg_fields = mb_msg_fields,			\
	.msg_set_field = mb_msg_set_field

#endif
