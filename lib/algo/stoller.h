/*
 * What Stoller's two algorithms share (Figures 1 and 3 of "Leader
 * Election in Distributed Systems with Crash Failures", 1997): stage 2 of
 * an election, Ack, Ldr and the leader's periodic Norm?.  bully-fd.c and
 * async-bully.c hold the rest, each as its figure has it.
 *
 * Stoller ranks priorities "as in UNIX": a lower id wins.  elect gives the
 * win to the higher id (elect-node(1)), so both files mirror the figures:
 * Stoller's lesser(i), the nodes of higher priority, are the nodes above
 * us here, and greater(i) the nodes below; "pendack < N" walks down to the
 * lowest id; "j < ldr" reads "j > ldr".
 */
#ifndef ELECT_STOLLER_H
#define ELECT_STOLLER_H

#include "algo/algo.h"

enum stoller_msg {
	SM_HALT = 1, SM_ACK, SM_LDR, SM_NORMQ, SM_NOTNORM, SM_REJ, SM_NMSG
};

/*
 * SM_TICK is the figures' Periodically(tau).  SM_RESEND repeats the Halt
 * of stage 2 every tau until Ack, Rej or DownSig: Stoller's channels are
 * reliable between connected nodes, but a datagram can be lost, and a
 * Halt lost before its target rebooted (or before a cut link healed
 * within the detector's latency) would leave the figures waiting forever.
 * A repeated Halt is answered as the first was (Halting is idempotent);
 * an answer to a Halt no longer pending is ignored.
 */
enum stoller_timer { SM_TICK, SM_RESEND, SM_ASK, SM_NTIMER };

/*
 * SM_ASK (Figure 3 only) runs Periodically(tau) faster, for a while, for
 * the nodes that rejected our Halt: a Rej says the node has or awaits a
 * leader above us, usually one our detector has just found down and its
 * own will find down a moment later; it then leads a group of its own,
 * and our Norm? is what merges it (its NotNorm starts our next election).
 * Asked every tau / STOLLER_ASKS for one tau, it is merged within
 * milliseconds of changing its mind rather than a whole tau later.  The
 * messages and the rules are the figure's; only the period is shorter,
 * for those nodes, for one tau: at most STOLLER_ASKS Norm? each.
 */
#define STOLLER_ASKS	20

/* Figure 3 repeats an unanswered Halt every tau / STOLLER_RESENDS. */
#define STOLLER_RESENDS	5

struct stoller;

typedef void stoller_recv_fn(struct stoller *, const struct algo_msg *,
	    algo_time, struct algo_out *);
typedef void stoller_down_fn(struct stoller *, uint16_t, algo_time,
	    struct algo_out *);
typedef void stoller_elect_fn(struct stoller *, algo_time, struct algo_out *);

/* What each figure does its own way; stoller.c calls these. */
struct stoller_figure {
	/* Halt, Norm? and Rej (Ack, Ldr and NotNorm are alike in both). */
	stoller_recv_fn	*recv;
	/* On <DownSig, j>. */
	stoller_down_fn	*down;
	/* The election the figure starts on recovery, and when a leader's
	 * Norm? draws NotNorm: StartStage1 (Figure 1), StartStage2 (3). */
	stoller_elect_fn *elect;
	int		 async;		/* Figure 3: elid is also grp */
};

struct stoller {
	struct algo	 a;
	const struct stoller_figure *fig;
	enum trace_status status;	/* Norm, Elec1, Elec2, Wait */
	uint16_t	 ldr;
	struct algo_elid elid;
	struct algo_set	 down;		/* Figure 1: lesser(i) found down */
	struct algo_set	 acks;
	struct algo_set	 rejs;		/* Figure 3: Rej to our election */
	unsigned	 asks;		/* SM_ASK rounds left */
	uint32_t	 nextel;
	size_t		 pendack;	/* rank of the node we wait for */
	int		 ticking;	/* the Norm? timer is armed */
	int		 resending;	/* the Halt timer is armed */
	int		 asking;	/* the SM_ASK timer is armed */
};

extern const char *const stoller_msgnames[SM_NMSG];
extern const char *const stoller_timernames[SM_NTIMER];

/* Traces the state if it changed. */
void	stoller_show(struct stoller *, algo_time, struct algo_out *);
void	stoller_start_fd(struct stoller *, enum algo_fd_op, int above,
	    struct algo_out *);
void	stoller_start_stage2(struct stoller *, algo_time, struct algo_out *);
void	stoller_contin_stage2(struct stoller *, algo_time, struct algo_out *);
void	stoller_halting(struct stoller *, const struct algo_msg *, algo_time,
	    struct algo_out *);
/* On <Ldr, t>: a node in Wait for t follows its sender. */
void	stoller_ldr(struct stoller *, const struct algo_msg *, algo_time,
	    struct algo_out *);

/* On recovery (the daemon has incremented incarn): FIG's election. */
int	stoller_boot(struct algo *, const struct stoller_figure *, algo_time,
	    struct algo_out *);
/* One input: what both figures do alike (Ack, Ldr, NotNorm, the tick)
 * here, the rest through the figure. */
int	stoller_step(struct algo *, const struct algo_input *,
	    struct algo_out *);

/* The algo_ops fields of both figures: all but name, nmsg and boot. */
#define STOLLER_OPS					\
	.msgnames = stoller_msgnames,			\
	.timernames = stoller_timernames,		\
	.ntimer = SM_NTIMER,				\
	.size = sizeof(struct stoller),			\
	/* a detector command to each node, Ldr or Norm? to each */ \
	.acts_node = 3,					\
	.acts_fixed = 16,				\
	.step = stoller_step

#endif
