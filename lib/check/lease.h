/*
 * The lease world: what the lease assertions (Nerio) need to know about a
 * trace, built line by line.  The lease checkers share one (check_model):
 * it takes each line in before they see it, and they read it and the
 * changes the line made.
 *
 * Local clocks.  Every node's `clock c=` samples and the clock= values of
 * its lease, lead and edict lines map its local clock to trace time:
 * between two samples linearly, past the last one at rate 1 within a drift
 * of LW_DRIFT_PPM, so that the trace time at which a clock reaches a value
 * is known exactly once a later sample has passed it, and otherwise lies
 * between a lower and an upper bound.  A clock that goes back starts a
 * new mapping.
 *
 * Spans.  A node's leadership (its last `lead` with until= above its
 * clock) and its grant (Nerio's A_q and F_q: one grantee at a time) are
 * spans on its clock.  A span holds from just after the line that starts
 * it until the clock reaches until=, or until a line ends it: a lead with
 * until<=clock, a release, a grant to another node; a leader also stops
 * leading when it crashes, exits or boots again.  A grant outlives a crash
 * of its grantor (Nerio's processes keep their variables, and a restarted
 * node grants nothing until its old grants have surely expired), so only
 * its clock or a line of the grantor ends it.  A renewal before the end
 * extends the same span.  A span stays `on` until a line of its node
 * shows it over (a sample at or past until= ends it at the interpolated
 * instant): a later sample, not the drift bound, says when a clock got
 * there.  Meanwhile lw_end() bounds its end by the drift bound, and
 * checkers that need to decide before the next sample use those bounds.
 * Once ended, the end is an interval of instants [lo, hi]; lo == hi when
 * it is exact.
 *
 * Renewals.  A `renew d=NS' line (the compact level) moves every running
 * span of its node NS later, as the lead and lease lines it stands for
 * would have; for a grant to another node it is also a sample: the clock
 * then read the new until= less the grant's length on its last full line.
 * A `renew name=* d=NS' (a round of the named leaderships) moves the
 * node's leadership in each named leadership's world, and with to=ID its
 * grant there if it is to ID; it is no sample.
 * A node of the compact level (its boot says level=compact, or it wrote a
 * renew) leaves lines out, so that its last line is no proof of how long
 * it ran: its leadership is taken to last as long as its clock allows,
 * up to the instant its death is known, never only to its last line.
 *
 * Up and down.  A node is up from its boot to its crash or exit.  A node
 * whose first line is not a boot, or that writes lines after a crash
 * without a boot, is taken to be up from that line.  Boot, crash, exit,
 * pause, resume, net lines and such implicit starts are failures for the
 * liveness assertions; the start of the trace counts as one too, since
 * nothing is known about what came before it; so does a message overdue,
 * at the instant that became certain.
 *
 * The cluster's size is --nodes when given, else the largest nodes= of
 * the boots seen so far, else the number of distinct node ids seen so far
 * on lines; quorums are majorities of it.
 *
 * Epochs (Nerio 10.6).  A boot's epoch= says which epoch the node runs
 * from there on, and its nodes= that epoch's size; spans carry the epoch
 * they belong to.  A leadership's quorum is a majority of its own epoch
 * (lw_quorum_of); the cluster's size, for liveness, is the newest
 * epoch's.
 */
#ifndef ELECT_CHECK_LEASE_H
#define ELECT_CHECK_LEASE_H

#include <sys/tree.h>

#include "check/check.h"
#include "check/inst.h"

#define LW_DRIFT_PPM	TRACE_DRIFT_PPM	/* clock drift bound past the last sample */
#define LW_NFAIL	32	/* failure times remembered */

enum lw_why {
	LW_RELEASE = 1,		/* given up: lead until<=clock, release */
	LW_LAPSE,		/* the clock reached until= */
	LW_DOWN,		/* the leader crashed, exited or rebooted */
	LW_REPLACED,		/* the grantor granted to another node */
	LW_CLOCK		/* the node's clock went back */
};

struct lw_span {
	int		 on;		/* still running */
	unsigned	 to;		/* grants: the grantee */
	uint64_t	 gen;		/* spans of this kind so far at the node */
	struct inst	 a;		/* the line that started it */
	trace_time	 until;		/* on the node's clock */
	trace_time	 elo, ehi, enom; /* when the clock gets there, while on */
	struct inst	 lo, hi;	/* its end, once !on */
	trace_time	 nominal;	/* its end at clock rate 1, once !on */
	enum lw_why	 why;		/* why it ended */
	uint64_t	 epoch;		/* of its node when it started */
	trace_time	 ext;		/* until - clock of its last full line */
};

struct lw_clock {
	int		 have;
	trace_time	 t, c;		/* the last sample: trace time, clock */
	struct inst	 at;		/* its line */
};

struct lw_node {
	unsigned	 id;
	int		 up, paused;
	int		 seen;		/* wrote a line */
	int		 live;		/* in lw.live */
	struct inst	 last;		/* its last line */
	struct inst	 alive;		/* its last line that shows it up */
	struct lw_clock	 clk;
	struct lw_span	 lead, grant;
	uint64_t	 epoch;		/* of its last boot */
	/* Its latest misfit line of this process says lead=no: its daemon
	 * acts on no leadership its core begins meanwhile. */
	int		 vetoed;
	int		 compact;	/* its lines are of the compact level */
};

struct lw_esize {
	uint64_t	 epoch;
	unsigned	 n;		/* the largest nodes= of its boots */
};

/* What a line changed, for the checkers to react to. */
enum lw_what {
	LW_LEAD_START, LW_LEAD_RENEW, LW_LEAD_END,
	LW_GRANT_START, LW_GRANT_RENEW, LW_GRANT_END,
	LW_SAMPLE, LW_FAIL
};

#define LW_NONE	((size_t)-1)	/* a change not about one node */

struct lw_change {
	enum lw_what	 what;
	size_t		 node;		/* index in lw.node, or LW_NONE */
	struct lw_span	 span;		/* as changed (not for LW_SAMPLE, LW_FAIL) */
};

struct lw_link {
	RB_ENTRY(lw_link) entry;
	unsigned	 a, b;		/* a < b */
	enum trace_link	 link;
};
RB_HEAD(lw_links, lw_link);

struct lw {
	trace_time	 skew;
	unsigned	 opt_nodes, boot_nodes, seen;
	struct idmap	 ids;
	struct lw_node	*node;
	size_t		 nalloc;
	size_t		*live;		/* nodes with a running span */
	size_t		 nlive, livecap;
	uint64_t	 lines;
	struct inst	 now;		/* the current line */
	int		 started;
	trace_time	 fail[LW_NFAIL];	/* ring of failure times, in order */
	size_t		 nfail;
	/* Evidence of messages not arriving in time (check/msgs.h): the
	 * world that has it, the latest taken as a failure, and whether the
	 * current line brought one. */
	const struct world *world;
	trace_time	 msg_fail;
	int		 msg_new;
	unsigned	 running;	/* up and not paused */
	struct lw_links	 links;
	unsigned	 badlinks;	/* links down or flaky */
	struct lw_change *ch;		/* the current line's changes */
	size_t		 nch, chcap;
	/* The current line changed nothing and time stood still: what was
	 * decided at the line before stands. */
	int		 quiet;
	int		 nomem;
	/* Epochs: their sizes, and a count of changes to them. */
	struct lw_esize	*esz;
	size_t		 nesz, escap;
	uint64_t	 newest;
	unsigned	 esz_gen;
};

/*
 * The model the lease checkers name: check_opts.model is its struct lw,
 * which has taken the line being fed in; its changes are in
 * w->ch[0..w->nch).
 */
extern const struct check_model lw_model;

/* At the end: says that a checker of W is undecided if memory ran out. */
void		 lw_finish(const struct lw *, const struct trace_event *last,
		    struct check_out *);
struct lw_node	*lw_node(struct lw *, unsigned id);	/* NULL: unknown */
unsigned	 lw_size(const struct lw *);
unsigned	 lw_quorum(const struct lw *);
/* Epoch E's size and quorum: lw_size() for a trace without epochs or
 * an epoch whose boots said none. */
unsigned	 lw_size_of(const struct lw *, uint64_t e);
unsigned	 lw_quorum_of(const struct lw *, uint64_t e);
/* Bounds on the end of a span; for a running span as known now. */
void		 lw_end(const struct lw *, const struct lw_node *,
		    const struct lw_span *, struct inst *lo, struct inst *hi);
/* Its end at clock rate 1 (for messages). */
trace_time	 lw_nominal(const struct lw_node *, const struct lw_span *);
/* The last failure before time X: 1 and *F, or 0 when forgotten. */
int		 lw_fail_before(const struct lw *, trace_time x, trace_time *f);
trace_time	 lw_last_fail(const struct lw *);
/* Whether the cluster could elect: a quorum up and running, every link up. */
int		 lw_can_elect(const struct lw *);

#endif
