/*
 * Election cores: every algorithm is a pure state machine behind one
 * interface, in the manner of etcd's raft library.
 *
 * A core makes no system calls, reads no clock, keeps no globals and draws
 * randomness only from the seed it is given.  It is driven by inputs, one
 * at a time, each carrying the current time (CLOCK_MONOTONIC, nanoseconds),
 * and it answers with actions appended to an output list which the caller
 * drains and carries out in order.  The same core runs in elect-node (real
 * sockets, elect-fd, stable storage), in t/tools/algo-drive (a script) and
 * in elect-sim (a simulated network); so a failing simulator seed
 * replays the exact run.
 *
 * Life of a node, as the caller sees it:
 *
 *	struct algo_out out;
 *	algo_out_init(&out);
 *	a = algo_boot(ops, &cfg, now, &out, err, sizeof(err));	recovery
 *	for (;;) {
 *		carry out out.v[0 .. out.n - 1] in order
 *		wait for a datagram, a DownSig, a command or out.wake
 *		(at the wake: in.timer = algo_due(a, now))
 *		rc = algo_step(a, &in, &out);
 *	}
 *	algo_free(a); algo_out_free(&out);
 *
 * The output contract, the same as every core's (README, "Where things
 * are"): a step returns its actions and the next wake-up, nothing else.
 * algo_boot() sizes OUT for the cluster once (its only allocation:
 * ALGO_ACTS() actions and ALGO_TRACES_MAX trace lines); algo_step()
 * empties it, appends this input's actions without allocating, asserts
 * that they stay within the bound, and sets out.wake to the earliest
 * deadline of the timers the core has armed (ALGO_FOREVER: none).  The
 * timer actions stay for the trace and for a caller that keeps a timer
 * per id.
 *
 * Tracing, so that the trace never lies: a datagram goes to algo_step()
 * first; ALGO_OK means the core accepted it (trace `recv from= msg=
 * elid=', then the actions), ALGO_EINVAL that it was refused and nothing
 * changed (trace `drop from= why=').  Each action says what to trace with
 * it: ALGO_SEND `send', ALGO_FD `fd', ALGO_STATE `state', a DownSig input
 * `fd op=down', ALGO_EDICT nothing (the core traces `deliver' or `drop'
 * itself).  Names come from algo_msg_name(), algo_fd_op_name(),
 * trace_status_name() and algo_elid_fmt(); the elid key is left out when
 * the elid is none.  algo_msg_fields() renders payload fields (" seq=3")
 * that a trace line may carry as extra keys.
 *
 * The failure detector (elect-fd) is Stoller's, section 2: ALGO_FD_START
 * starts or resets monitoring, and a DownSig may come only for a node that
 * was down after the latest start.  A core never sees the detector's
 * timings; their sum with the timings below is the failover time (bully-fd
 * waits for the detector twice: once for the leader, once more in stage 1
 * for every node above).
 *
 * Conventions: node ids are 1..65535 and are the priorities, a higher id
 * wins (papers that use the opposite order are mirrored inside the core);
 * id 0 means "none".  Statuses are the trace format's (enum trace_status:
 * Norm, Elec1, Elec2, Wait, Elec, Reorg, Down).
 *
 * What the caller may know of an algorithm is here and nowhere else: its
 * flags (a leadership with a deadline and a fencing token, edicts), its
 * status (struct algo_status) and its actions.  Like raft's Ready, every
 * output comes out once, in the step that made it; the core keeps no
 * queue for the caller to poll.
 *
 * Invariants.  After every step algo_step() checks the frame's and the
 * core's invariants (algo_check()) and aborts the process when one is
 * broken, as TigerBeetle does: a core that has lost track of who leads
 * must not go on acting.  The simulator and the fuzz target check them
 * too, and report which one.
 *
 * Adding an algorithm: one file lib/algo/NAME.c (or NAME-*.c) defining a
 * `const struct algo_ops algo_NAME`, and one line in lib/algo/registry.c.
 */
#ifndef ELECT_ALGO_H
#define ELECT_ALGO_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

#define ALGO_NODES_MAX		1024	/* most nodes in a cluster */
#define ALGO_PAYLOAD_MAX	1024	/* most payload bytes in a message */
#define ALGO_PERSIST_MAX	256	/* most bytes of persistent state */
#define ALGO_TIMERS_MAX		8	/* timer ids are 0 .. ALGO_TIMERS_MAX-1 */
#define ALGO_CMD_MAX		256	/* most bytes of a command's argument */
#define ALGO_ELID_STRLEN	48	/* "65535.18446744073709551615.4294967295" */
#define ALGO_EDICT_MAX		ALGO_CMD_MAX	/* most bytes of an edict's text */

#define ALGO_EPOCH_MAX		0xffffffu	/* epochs 0 .. 2^24 - 1 */

#define ALGO_MS		INT64_C(1000000)
#define ALGO_DRIFT_MAX	INT64_C(100000000)	/* rho <= 0.1 */
typedef int64_t algo_time;	/* CLOCK_MONOTONIC, nanoseconds */
#define ALGO_FOREVER	INT64_MAX	/* a deadline that never comes */

/*
 * An election or group identifier: the node that made it, that node's
 * incarnation and a counter it increments per election.  Unique across
 * restarts because the incarnation is.  node == 0 is "none" ("-").
 * Rendered NODE.INC.COUNTER, as in the trace format.
 */
struct algo_elid {
	uint16_t	 node;
	uint32_t	 ctr;
	uint64_t	 inc;
};

/*
 * A protocol message, sent or received: fixed size, no pointers, so the
 * daemon copies it into its wire envelope (lib/net/wire.h) as it is.  The
 * sender's id and incarnation, sequence numbers and MACs are the
 * envelope's business, not the core's.  type indexes the algorithm's name
 * table (1 .. nmsg-1; 0 is never sent).  The payload is bytes in network
 * order (see algo_put32() and friends) that only the core interprets.
 */
struct algo_msg {
	uint16_t	 peer;		/* send: destination; recv: sender */
	uint8_t		 type;
	uint16_t	 len;		/* payload bytes, <= ALGO_PAYLOAD_MAX */
	struct algo_elid elid;		/* election or group; node 0: none */
	uint8_t		 payload[ALGO_PAYLOAD_MAX];
};

/*
 * Timing parameters of every algorithm, in nanoseconds; each core reads
 * the ones its paper names.  algo_timing_default() fills in defaults that
 * fail over in well under a second on a LAN; elect-node exposes each as a
 * flag.  Bounds are checked by algo_boot().
 */
struct algo_timing {
	/* Garcia-Molina's T: a call not answered within T is taken as a
	 * failure of the callee (bully), or as likely one (invitation). */
	algo_time	 reply;		/* default 50 ms */
	/* Garcia-Molina's procedure Check runs every `check' (the bully
	 * coordinator polls AreYouNormal; the invitation coordinator looks
	 * for other coordinators). */
	algo_time	 check;		/* default 50 ms */
	/* Garcia-Molina's procedure Timeout runs after `timeout' without
	 * hearing from the coordinator; should exceed check + reply, or
	 * members ask a live coordinator AreYouThere needlessly.  Timeout
	 * and its call are these algorithms' failure detector: a crash is
	 * acted on within timeout + reply (invitation: elect-fd's time-out
	 * instead of timeout, if shorter). */
	algo_time	 timeout;	/* default 120 ms */
	/* Stoller's tau: a Norm leader sends Norm? every tau. */
	algo_time	 tau;		/* default 100 ms */
	/* Murshed and Allen's t_TX (mean transmission time) and alpha:
	 * tiebreaker delta_i = alpha / i + (N - (i - 1)) t_TX, their
	 * equation (1), with i the node's rank 1..N in the cluster. */
	algo_time	 t_tx;		/* default 2 ms */
	algo_time	 alpha;		/* default 1 ms */
	/* Their T_el,i = 3 t_TX + 2 t_P + delta_i and T_ok,i = 2 t_TX +
	 * t_P + delta_i: t_el and t_ok are the parts before delta_i, so
	 * that the tiebreaker still orders the nodes; 0 means the paper's
	 * 3 t_TX and 2 t_TX (processing time t_P negligible). */
	algo_time	 t_el;		/* default 0 */
	algo_time	 t_ok;		/* default 0 */
	/* Invitation: a coordinator that found a higher one waits
	 * merge_wait for each rank between them before it merges ("wait
	 * time proportional to p - i"; 0 means twice `reply', so that the
	 * higher one's Check, which may wait `reply', ends first), and
	 * waits accept_wait for Accept messages ("a reasonable time"; less
	 * once every node that may accept has). */
	algo_time	 merge_wait;	/* default 0 */
	algo_time	 accept_wait;	/* default 100 ms */
	/* modified-bully and enhanced-bully: a Normal leader repeats its
	 * coordinator this often, so that a split (two leaders, or nodes
	 * following different ones) lasts at most this long (murshed.h);
	 * 0: never, as in the papers. */
	algo_time	 announce;	/* default 1 s */
	/* Nerio (lease), section 10.1: a grant covers `lease' (delta) of
	 * real time, the leader renews every `renew' (i), and nearly every
	 * round trip takes less than `rtt' (d); renew + rtt must stay well
	 * inside lease (share/elect/lease.md).  `drift' is rho, the most a
	 * clock may gain or lose, as nanoseconds per second (1e-3 is
	 * 1000000).  `skew' > 0 selects OQwBS (section 4): clocks then
	 * differ by at most skew, and drift only bounds verification. */
	algo_time	 lease;		/* default 80 ms */
	algo_time	 renew;		/* default 20 ms */
	algo_time	 rtt;		/* default 5 ms */
	algo_time	 drift;		/* default 1000000 (1e-3) */
	algo_time	 skew;		/* default 0: bounded drift (OQwBD) */
};

/* What a node boots with (the "On recovery" input). */
struct algo_config {
	uint16_t	 self;
	const uint16_t	*ids;		/* the cluster, self included, any order */
	size_t		 nids;
	/* From stable storage; strictly greater than at any earlier boot of
	 * this node (the daemon increments it before booting the core). */
	uint64_t	 inc;
	uint64_t	 seed;		/* the core's only source of randomness */
	struct algo_timing timing;
	/* The last blob the core asked to persist (ALGO_PERSIST) before the
	 * node went down, or NULL, 0 on a first start. */
	const uint8_t	*persist;
	size_t		 persistlen;
	/* Nerio 10.6 (lease): the epoch whose members are ids, and whether
	 * the epoch before it may still be RUNNING (e > 0: not yet learned
	 * that it is TERMINATED).  0 and 0 for a cluster that never
	 * changed. */
	uint32_t	 epoch;
	int		 epoch_pending;
	/* The first life of this epoch's core on this host, as the caller
	 * recorded in stable storage before this boot: it granted nothing
	 * before, so it waits out no quiet period (e > 0, no persisted
	 * blob). */
	int		 epoch_fresh;
};

/* Commands from the operator (control socket, signals). */
enum algo_cmd_code {
	ALGO_CMD_LEAVE = 1,	/* leave on purpose (SIGTERM): a leader says
				 * so where its algorithm allows */
	ALGO_CMD_RELEASE,	/* ALGO_F_DEADLINE: give leadership up now */
	ALGO_CMD_EDICT,		/* ALGO_F_EDICTS: publish data[0 .. len-1] */
	ALGO_CMD_WEDGE,		/* ALGO_F_EPOCHS: grant nothing more, ever */
	ALGO_CMD_TERMINATED,	/* ALGO_F_EPOCHS: the epoch before ended */
};

struct algo_cmd {
	enum algo_cmd_code code;
	size_t		 len;
	uint8_t		 data[ALGO_CMD_MAX];
};

enum algo_in_type {
	ALGO_IN_RECV = 1,	/* msg: a message from msg.peer */
	ALGO_IN_DOWN,		/* down: DownSig from the failure detector */
	ALGO_IN_TIMER,		/* timer: the timer's deadline passed */
	ALGO_IN_CMD,		/* cmd */
};

struct algo_input {
	enum algo_in_type type;
	algo_time	 now;
	union {
		struct algo_msg	 msg;
		uint16_t	 down;
		unsigned	 timer;
		struct algo_cmd	 cmd;
	};
};

/* Failure-detector commands (Stoller, section 2; elect-fd's protocol). */
enum algo_fd_op {
	ALGO_FD_START = 1,	/* start or reset monitoring of peer */
	ALGO_FD_STOP,		/* stop monitoring peer */
	ALGO_FD_PLAYDEAD,	/* look crashed to peer's detector */
	ALGO_FD_PLAYALIVE,	/* stop playing dead to peer */
};

/* A node's election state, as traced: `state status= ldr= grp='. */
struct algo_state {
	enum trace_status status;
	uint16_t	 ldr;		/* 0: "-" */
	struct algo_elid grp;		/* node 0: "-" (no groups) */
};

enum algo_act_type {
	/* Hand msg to the network, to msg.peer (never self).  Delivery may
	 * fail; the cores tolerate loss.  Trace `send'. */
	ALGO_SEND = 1,
	/* Tell the failure detector fd.op about fd.peer.  Trace `fd'. */
	ALGO_FD,
	/* Deliver ALGO_IN_TIMER timer.id once the clock reaches timer.at,
	 * never before; replaces any deadline the id had. */
	ALGO_TIMER_SET,
	/* Forget timer.id's deadline, if any. */
	ALGO_TIMER_CANCEL,
	/* Write persist.data crash-safely, replacing the previous blob; it
	 * must be durable before any later action of the same list is
	 * carried out (a send may depend on it), and before the next input
	 * (an earlier send need not wait for it).  Given back at boot. */
	ALGO_PERSIST,
	/* The election state changed; emitted once per change, at the point
	 * of the change, so it is ordered with the sends.  Trace `state'. */
	ALGO_STATE,
	/* A trace line the core wants written, "EVENT KEY=VALUE ..." without
	 * time and node (algo_out_text() gives it).  E.g. lease, lead. */
	ALGO_TRACE,
	/* An edict this node delivered (in order) or refused (out of order),
	 * its own included: given once, in the step that received or made
	 * it, and kept by no one but the caller (elect-node's followers, the
	 * simulator's oracle).  Traced by the core (`deliver', `drop'). */
	ALGO_EDICT,
};

struct algo_edict {
	uint16_t	 from;		/* its creator, the leader then */
	uint64_t	 token;		/* the creator's fencing token */
	uint64_t	 seq;		/* the creator's edict counter */
	int		 delivered;	/* 0: refused, it would break the order */
	size_t		 len;
	char		 text[ALGO_EDICT_MAX + 1];	/* NUL-terminated */
};

struct algo_action {
	enum algo_act_type type;
	union {
		struct algo_msg	 msg;
		struct {
			enum algo_fd_op	 op;
			uint16_t	 peer;
		} fd;
		struct {
			unsigned	 id;
			algo_time	 at;
		} timer;
		struct {
			size_t		 len;
			uint8_t		 data[ALGO_PERSIST_MAX];
		} persist;
		struct algo_state state;
		struct {
			size_t		 off, len;	/* in algo_out's text */
		} trace;
		struct algo_edict edict;
	};
};

/*
 * Bounds of one step's output.  A core declares the most actions one of
 * its inputs (boot included) emits per node of the cluster (a broadcast, a
 * detector command to each) and besides; the frame adds its own (a
 * goodbye: every timer cancelled, the state).  Trace lines are few per
 * step whatever the cluster's size.
 */
#define ALGO_ACTS_NODE_MAX	8	/* most a core may declare per node */
#define ALGO_ACTS_FIXED_MAX	64	/* and besides */
#define ALGO_ACTS_FRAME		(ALGO_TIMERS_MAX + 1)
#define ALGO_ACTS(node, fixed, n) \
	((node) * (n) + (fixed) + ALGO_ACTS_FRAME)
#define ALGO_TRACES_MAX		32	/* ALGO_TRACE actions in one step */
#define ALGO_TEXT_MAX		(ALGO_TRACES_MAX * TRACE_LINE_MAX)

/* The output of one step.  The caller owns the structure; algo_boot()
 * sizes it for its core (growing it, never shrinking, for a caller that
 * boots several cores on one list) and every input refills it. */
struct algo_out {
	struct algo_action *v;
	size_t		 n, cap;
	char		*text;		/* ALGO_TRACE lines, NUL-separated */
	size_t		 textlen, textcap;
	size_t		 ntrace;		/* ALGO_TRACE actions in v */
	algo_time	 wake;		/* earliest armed timer; ALGO_FOREVER */
};

_Static_assert(ALGO_ACTS(ALGO_ACTS_NODE_MAX, ALGO_ACTS_FIXED_MAX,
    ALGO_NODES_MAX) <= SIZE_MAX / sizeof(struct algo_action),
    "the largest output list is addressable");

void		 algo_out_init(struct algo_out *);
/* Empties the list; algo_step() does it first. */
void		 algo_out_clear(struct algo_out *);
void		 algo_out_free(struct algo_out *);
/* The text of an ALGO_TRACE action. */
const char	*algo_out_text(const struct algo_out *,
		    const struct algo_action *);

/*
 * What the control socket's `status' reports, and what a guarded command
 * needs (elect-node --run-if-leader), for every algorithm.  Clock values
 * are on the core's clock, the `now' of its inputs.
 *
 * until is the leadership's deadline: while this node leads, the instant
 * its leadership ends unless the core extends it; 0 while it does not
 * lead.  With ALGO_F_DEADLINE no other node leads before until (lease:
 * the quorum's grants); without, until is ALGO_FOREVER while leader, and
 * leadership ends when the node stops considering itself leader.  A node
 * may lead (until > now) before it is `leader': a lease leader is once its
 * fencing token is established, a round trip later.
 *
 * token is the fencing token while this node leads, 0 otherwise: with
 * ALGO_F_DEADLINE it strictly increases from one leadership to the next,
 * across nodes and restarts, and is 0 only while the leadership's token
 * is being established.  The other algorithms have none (0): their
 * election identifiers (state.grp) are not ordered across nodes.
 */
struct algo_status {
	struct algo_state state;
	int		 leader;	/* this node considers itself leader */
	algo_time	 since;		/* when the state last changed */
	algo_time	 until;		/* the leadership's deadline, or 0 */
	uint64_t	 token;		/* fencing token while leading, or 0 */
	/* The leader as far as this node knows when state.ldr is 0 (lease:
	 * named by the last grantor that refused, Nerio 10.4), or 0. */
	uint16_t	 hint;
	char		 extra[128];	/* more "key=value ..." fields, or "" */
	/* ALGO_F_EPOCHS: the node's epoch, and whether it waits to learn
	 * that the one before ended, or is wedged (grants nothing more). */
	uint32_t	 epoch;
	int		 pending, wedged;
};

/* What an algorithm offers beyond an election (algo_flags()). */
#define ALGO_F_DEADLINE	0x1	/* leadership with a deadline and a token */
#define ALGO_F_EDICTS	0x2	/* ALGO_CMD_EDICT and ALGO_EDICT */
/* The core takes its messages in any order (its own timestamps order
 * them): the wire need not drop a datagram that another overtook. */
#define ALGO_F_ANYORDER	0x4
/* Epochs (Nerio 10.6): ALGO_CMD_WEDGE and ALGO_CMD_TERMINATED, and the
 * status's epoch fields. */
#define ALGO_F_EPOCHS	0x8

/* Results of algo_boot() (as NULL) and algo_step(). */
#define ALGO_OK		 0
#define ALGO_EINVAL	-1	/* input refused: unknown peer or timer, bad
				 * message type or payload; nothing changed
				 * (the daemon traces `drop', not `recv') */
#define ALGO_ENOTSUP	-2	/* command not supported by the algorithm */
#define ALGO_ENOTLEADER	-3	/* command needs the leader (see status) */

struct algo;
struct algo_ops;

/* Algorithms by name (lib/algo/registry.c); NULL if unknown. */
const struct algo_ops *algo_find(const char *name);
/* The I-th algorithm of the table, NULL past the end (for usage). */
const struct algo_ops *algo_nth(size_t i);

/* Fills in the documented defaults. */
void		 algo_timing_default(struct algo_timing *);
/* Sets one field from "NAME=MS" (drift: "drift=RATIO"), for the test
 * tools; -1 for an unknown name or a bad value. */
int		 algo_timing_set(struct algo_timing *, const char *nameval);
/* Whether the algorithm reads the timing NAME (its first LEN bytes). */
int		 algo_timing_reads(const struct algo_ops *, const char *name,
		    size_t len);
/* The names of the timings it reads, ", "-separated, in BUF. */
void		 algo_timing_names(const struct algo_ops *, char *buf,
		    size_t len);

/*
 * Recovery: a fresh core from CFG (copied), after the node's boot at NOW,
 * with its first actions in OUT, sized here for every later step.  NULL
 * with a reason in ERR when CFG is bad (self not among the ids, duplicate
 * ids, too many nodes, a timing out of range, a persisted blob the core
 * refuses) or memory runs out.
 */
struct algo	*algo_boot(const struct algo_ops *, const struct algo_config *,
		    algo_time now, struct algo_out *, char *err, size_t errlen);
/* One input; ALGO_OK or one of the ALGO_E codes above.  OUT: the list
 * algo_boot() sized, refilled with this input's actions and wake. */
int		 algo_step(struct algo *, const struct algo_input *,
		    struct algo_out *);
void		 algo_query(const struct algo *, algo_time now,
		    struct algo_status *);
/* The armed timer of the earliest deadline, if it has come by NOW (the
 * input to give at out.wake), or -1. */
int		 algo_due(const struct algo *, algo_time now);
void		 algo_free(struct algo *);

/* NULL when every invariant of the frame and the core holds at the time
 * of the last input, else the name of one that does not (algo_step()
 * aborts on it; the simulator and the fuzz target report it). */
const char	*algo_check(const struct algo *);

const struct algo_ops *algo_ops(const struct algo *);
const char	*algo_name(const struct algo_ops *);
unsigned	 algo_flags(const struct algo_ops *);
/* A message type's name ("Halt"), or NULL for a type the algorithm does
 * not have: a datagram with such a type is dropped. */
const char	*algo_msg_name(const struct algo_ops *, unsigned type);
/* The type named NAME, or 0. */
unsigned	 algo_msg_type(const struct algo_ops *, const char *name);
const char	*algo_timer_name(const struct algo_ops *, unsigned id);
const char	*algo_fd_op_name(enum algo_fd_op);
/* Payload fields as " key=value ..." (or "") for traces and tests. */
void		 algo_msg_fields(const struct algo_ops *,
		    const struct algo_msg *, char *buf, size_t len);
/* Sets a payload field from "key=value" text (tests); -1 if unknown. */
int		 algo_msg_set_field(const struct algo_ops *,
		    struct algo_msg *, const char *key, const char *value);
/* For the cores' msg_set_field: VALUE, a sequence number 1..2^32-1, put
 * at P in four bytes, or yes or no put as one byte; -1 if it is not. */
int		 algo_field_seq(uint8_t *p, const char *value);
int		 algo_field_yesno(uint8_t *p, const char *value);

/* "NODE.INC.COUNTER" or "-"; BUF of ALGO_ELID_STRLEN bytes suffices. */
char		*algo_elid_fmt(const struct algo_elid *, char *buf, size_t len);
int		 algo_elid_parse(const char *, struct algo_elid *);
int		 algo_elid_eq(const struct algo_elid *,
		    const struct algo_elid *);

/*
 * ---- For the cores --------------------------------------------------
 *
 * A core's state begins with a struct algo, which algo_boot() fills in
 * before calling the core's boot; the core reaches its own fields by
 * casting (struct bully *)a.
 */
struct algo {
	const struct algo_ops *ops;
	uint16_t	 self;
	size_t		 rank;		/* self == ids[rank] */
	size_t		 n;
	uint16_t	 ids[ALGO_NODES_MAX];	/* ascending */
	uint64_t	 inc;
	uint64_t	 rng;		/* algo_rand()'s state */
	struct algo_timing t;
	struct algo_state state;	/* as last emitted */
	algo_time	 since;
	algo_time	 now;		/* of the last input */
	int		 left;		/* left on purpose: deaf from now on */
	uint32_t	 epoch;		/* config epoch */
	int		 epoch_pending;	/* config epoch_pending */
	int		 epoch_fresh;	/* config epoch_fresh */
	size_t		 acts;		/* ALGO_ACTS() of core and cluster */
	/* Deadlines of the timers armed, by id (ALGO_FOREVER: not armed),
	 * as the actions of each step left them: the wake. */
	algo_time	 timer[ALGO_TIMERS_MAX];
};

struct algo_ops {
	const char	*name;
	unsigned	 flags;		/* ALGO_F_ */
	const char *const *msgnames;	/* [type]; [0] unused */
	unsigned	 nmsg;
	const char *const *timernames;	/* [id] */
	unsigned	 ntimer;
	/* The fields of struct algo_timing the core reads, by
	 * algo_timing_set()'s names, NULL-terminated: a caller refuses to
	 * set another, which would change nothing (elect-sim -t). */
	const char *const *timings;
	/* The type of the message that says "incarnation I of its sender
	 * is dead", sent on a dead daemon's behalf (elect-node(1),
	 * --run-if-leader), or 0.  Its payload is empty and its election
	 * id (sender, I, 0); it is not windowed, a copy saying nothing
	 * new. */
	unsigned	 dead;
	/* Bytes of the core's state, struct algo included. */
	size_t		 size;
	/* The most actions one input makes it emit, per node of the
	 * cluster and besides (ALGO_ACTS()). */
	size_t		 acts_node, acts_fixed;
	/* "On recovery".  A is zeroed but for its struct algo; the status
	 * is Down.  Return ALGO_EINVAL to refuse the persisted blob. */
	int		 (*boot)(struct algo *, const uint8_t *persist,
			    size_t persistlen, algo_time now, struct algo_out *);
	/* Inputs checked by algo_step(): a RECV is from another node of
	 * the cluster with a known type, a DOWN names another node, a TIMER
	 * a timer of the core.  The core checks payloads before it acts.
	 * A core without a goodbye of its own answers ALGO_CMD_LEAVE with
	 * ALGO_ENOTSUP: the frame then cancels its timers, sets its status
	 * Down and ignores every later input. */
	int		 (*step)(struct algo *, const struct algo_input *,
			    struct algo_out *);
	/* Optional; without it a node leads when its status is Norm or
	 * Reorg and ldr is itself (elect-trace(5), "Who is what"), until
	 * ALGO_FOREVER and without a token.  It starts from that. */
	void		 (*query)(const struct algo *, algo_time now,
			    struct algo_status *);
	/* Optional: NULL, or the name of a broken invariant of the core's
	 * state after its last input (at a->now). */
	const char	*(*check)(const struct algo *);
	/* Optional payload codecs for traces and tests. */
	void		 (*msg_fields)(const struct algo_msg *, char *, size_t);
	int		 (*msg_set_field)(struct algo_msg *, const char *key,
			    const char *value);
};

/* Sends a message with the given type, elid and payload. */
void		 algo_send(struct algo_out *, uint16_t to, unsigned type,
		    const struct algo_elid *, const void *payload, size_t len);
void		 algo_fd(struct algo_out *, enum algo_fd_op, uint16_t peer);
void		 algo_timer_set(struct algo_out *, unsigned id, algo_time at);
void		 algo_timer_cancel(struct algo_out *, unsigned id);
void		 algo_persist(struct algo_out *, const void *, size_t);
void		 algo_trace(struct algo_out *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
/* An edict delivered or refused: TEXT of LEN <= ALGO_EDICT_MAX bytes. */
void		 algo_edict(struct algo_out *, uint16_t from, uint64_t token,
		    uint64_t seq, int delivered, const void *text, size_t len);
/* An invariant the core relies on right here: aborts when COND is false,
 * in every build (the caller must not act on a core that broke one). */
#define ALGO_ASSERT(cond) do {						\
	if (!(cond))							\
		algo_panic(__FILE__, __LINE__, #cond);			\
} while (0)
void		 algo_panic(const char *file, int line, const char *what)
		    __attribute__((noreturn));
/* A new identifier <self, inc, *CTR>; *CTR is then incremented. */
struct algo_elid algo_new_elid(const struct algo *, uint32_t *ctr);
/* Records the state and emits ALGO_STATE if it differs from the last. */
void		 algo_set_state(struct algo *, struct algo_out *, algo_time now,
		    enum trace_status, uint16_t ldr, const struct algo_elid *grp);
/* The rank (index in ids[]) of ID, or -1 if not in the cluster. */
long		 algo_rank(const struct algo *, uint16_t id);
/* Uniform 64 bits from the seeded generator. */
uint64_t	 algo_rand(struct algo *);
/* The generator itself (splitmix64), for harnesses that replay a seed. */
uint64_t	 algo_splitmix(uint64_t *state);

/* A set of nodes, by rank. */
struct algo_set {
	uint64_t	 w[ALGO_NODES_MAX / 64];
};

static inline void
algo_set_clear(struct algo_set *s)
{
	for (size_t i = 0; i < ALGO_NODES_MAX / 64; i++)
		s->w[i] = 0;
}

static inline void
algo_set_add(struct algo_set *s, size_t r)
{
	s->w[r / 64] |= UINT64_C(1) << (r % 64);
}

static inline void
algo_set_del(struct algo_set *s, size_t r)
{
	s->w[r / 64] &= ~(UINT64_C(1) << (r % 64));
}

static inline int
algo_set_has(const struct algo_set *s, size_t r)
{
	return (s->w[r / 64] >> (r % 64)) & 1;
}

/* Big-endian payload fields. */
static inline void
algo_put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline uint32_t
algo_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static inline void
algo_put64(uint8_t *p, uint64_t v)
{
	algo_put32(p, v >> 32);
	algo_put32(p + 4, (uint32_t)v);
}

static inline uint64_t
algo_get64(const uint8_t *p)
{
	return (uint64_t)algo_get32(p) << 32 | algo_get32(p + 4);
}

#endif
