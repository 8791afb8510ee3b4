/*
 * Stoller's failure detector, section 2: completeness (1) and accuracy (2).
 *
 * A client I monitors a peer J from its `fd op=start peer=J` until its
 * `op=stop peer=J` or until I itself goes down (crash, exit, reboot: its
 * detector goes with it); a new start resets the monitoring.  `op=down`
 * is the DownSig.
 *
 * "Operational" is taken as taking steps towards I: J is down for I while
 * it is crashed (or not booted yet), paused, or playing dead towards I
 * (`fd op=playdead peer=I` at J until `op=playalive peer=I`).  A paused
 * process takes no steps, and Stoller relies on DownSigs for nodes that
 * play dead (appendix B), so a detector that reports them is right and
 * one that does not is incomplete.  A network that loses messages (a net
 * link down or flaky between I and J) breaks the reliable communication
 * that accuracy assumes: a DownSig for J is then no fault of the detector,
 * but neither does a link failure alone oblige it to report.
 *
 * fd-complete: once J is down for I, with I monitoring J, up and running,
 * and no DownSig for J since the latest start, I receives a DownSig for J
 * within the latency (--fd-latency) of the later of the start, J going
 * down and I resuming, unless in that time J comes back or I starts,
 * stops or goes down.  The trace ends the run: a DownSig due before its
 * last line is missing, one due at it or later could still come.  Having
 * reported J once, the detector need not report it again before the next
 * start (Stoller's own example); a DownSig while J has been up for I
 * since the start reports nothing.
 *
 * fd-accurate: I receives a DownSig for J only while monitoring J, and
 * only if J was down for I, or cut off from it, at some moment since the
 * latest start.
 *
 * With a skew bound S, J's own moments (its crashes, pauses, playdead)
 * may lie S either side of what I's lines say: a report is made only when
 * it holds for every placement.
 */
#include <sys/queue.h>
#include <sys/tree.h>

#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/inst.h"

#define PEND_MAX	1024	/* DownSigs waiting for the skew to pass */

struct fnode {
	int		 up, paused;
	uint64_t	 gen;		/* processes seen (boots) */
	struct inst	 since;		/* running since (boot, resume) */
	struct inst	 down;		/* stopped running at */
};

/* What goes on between two nodes: A monitored at client B, A playing dead
 * towards B; for a < b, the link between them. */
struct fpair {
	RB_ENTRY(fpair)	 tree;
	TAILQ_ENTRY(fpair) armed;
	unsigned	 a, b;
	int		 mon;		/* B monitors A */
	int		 stopped;	/* B stopped monitoring A */
	uint64_t	 mgen;		/* B's process that started it */
	struct inst	 start, stop;
	int		 told;		/* a DownSig since the start */
	int		 late;		/* it came after the latency */
	int		 isarmed;
	trace_time	 by;		/* a DownSig must have come by then */
	trace_time	 due;		/* by, and J's lines a skew later */
	struct inst	 from;		/* the obligation runs from */
	int		 dead;		/* A plays dead towards B */
	uint64_t	 dgen;		/* A's process that does */
	struct inst	 deadat, alive;	/* playdead, last playalive */
	enum trace_link	 link;
	struct inst	 linked;	/* the link last changed */
};
RB_HEAD(fpairs, fpair);
TAILQ_HEAD(farmed, fpair);

/* A DownSig that is inaccurate unless J turns out to have been down in
 * the skew bound after it. */
struct fpend {
	unsigned	 client, peer;
	struct inst	 clean;		/* J clean for I since */
	struct inst	 start;
	trace_time	 t;
};

struct fd {
	int		 complete;	/* fd-complete, else fd-accurate */
	trace_time	 skew, latency;
	struct idmap	 ids;
	struct fnode	*n;
	size_t		 cap;
	struct fpairs	 pairs;
	struct farmed	 armed;
	trace_time	 next_due;
	struct fpend	 pend[PEND_MAX];	/* a ring */
	size_t		 phead, npend;
	uint64_t	 lines;
	struct inst	 now;
	int		 nomem;
	int		 overflow;	/* a DownSig could not wait */
};

static int
fpair_cmp(const struct fpair *x, const struct fpair *y)
{
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return 0;
}

RB_PROTOTYPE(fpairs, fpair, tree, fpair_cmp)
RB_GENERATE(fpairs, fpair, tree, fpair_cmp)

static struct fd *
fd_new(const struct check_opts *o, int complete)
{
	struct fd *f;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	if (idmap_init(&f->ids) == -1) {
		free(f);
		return NULL;
	}
	f->complete = complete;
	f->skew = o->skew;
	f->latency = o->fd_latency;
	f->next_due = TIME_MAX;
	RB_INIT(&f->pairs);
	TAILQ_INIT(&f->armed);
	return f;
}

static void *
complete_init(const struct check_opts *o)
{
	return fd_new(o, 1);
}

static void *
accurate_init(const struct check_opts *o)
{
	return fd_new(o, 0);
}

static void
fd_free(void *arg)
{
	struct fd *f = arg;
	struct fpair *p, *next;

	RB_FOREACH_SAFE(p, fpairs, &f->pairs, next) {
		RB_REMOVE(fpairs, &f->pairs, p);
		free(p);
	}
	idmap_free(&f->ids);
	free(f->n);
	free(f);
}

/* The node with id ID; NULL when never seen (down: not booted yet). */
static struct fnode *
fnode(const struct fd *f, unsigned id)
{
	long i = idmap_find(&f->ids, id);

	return i == -1 ? NULL : &f->n[i];
}

static struct fnode *
fnode_add(struct fd *f, unsigned id)
{
	long i = idmap_find(&f->ids, id);

	if (i != -1)
		return &f->n[i];
	if (f->ids.n == f->cap) {
		struct fnode *n = array_grow(f->n, &f->cap, sizeof(*n));

		if (n == NULL)
			return NULL;
		f->n = n;
	}
	if ((i = idmap_new(&f->ids, id)) == -1)
		return NULL;
	f->n[i].down = inst_make(TIME_MIN, 0);
	return &f->n[i];
}

static struct fpair *
fpair(struct fd *f, unsigned a, unsigned b, int create)
{
	struct fpair key, *p;

	key.a = a;
	key.b = b;
	if ((p = RB_FIND(fpairs, &f->pairs, &key)) != NULL || !create)
		return p;
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		f->nomem = 1;
		return NULL;
	}
	p->a = a;
	p->b = b;
	p->link = LINK_UP;
	RB_INSERT(fpairs, &f->pairs, p);
	return p;
}

static int
running(const struct fnode *n)
{
	return n != NULL && n->up && !n->paused;
}

static int
playing_dead(const struct fnode *j, const struct fpair *p)
{
	return p != NULL && p->dead && running(j) && p->dgen == j->gen;
}

static const struct fpair *
link_of(struct fd *f, unsigned i, unsigned j)
{
	return fpair(f, i < j ? i : j, i < j ? j : i, 0);
}

/* Whether J, monitored by I (pair P), is surely down for I; since when.
 * A process that played dead towards I and then stopped has been down
 * for I since the playdead: the pause or crash restarts no clock. */
static int
down_for(const struct fnode *j, const struct fpair *p, struct inst *since)
{
	if (!running(j)) {
		*since = j == NULL ? inst_make(TIME_MIN, 0) : j->down;
		if (j != NULL && p != NULL && p->dead && p->dgen == j->gen &&
		    inst_lt(p->deadat, *since))
			*since = p->deadat;
		return 1;
	}
	if (playing_dead(j, p)) {
		*since = p->deadat;
		return 1;
	}
	return 0;
}

/* Whether J has been up for I and linked to it; since when. */
static int
clean_for(struct fd *f, unsigned i, unsigned jid, struct inst *since)
{
	const struct fnode *j = fnode(f, jid);
	const struct fpair *p = fpair(f, jid, i, 0), *l = link_of(f, i, jid);

	if (!running(j) || playing_dead(j, p) || (l != NULL &&
	    l->link != LINK_UP))
		return 0;
	*since = j->since;
	if (p != NULL && p->dgen == j->gen)
		*since = inst_max(*since, p->alive);
	if (l != NULL)
		*since = inst_max(*since, l->linked);
	return 1;
}

/*
 * Whether a DownSig for J at I now may report J down: not when J has been
 * up for I, and linked to it, since before the start, for it then reports
 * nothing and leaves the obligation standing.  With a skew J's lines to
 * come may still show it down in time, so any DownSig may.
 */
static int
may_report(struct fd *f, const struct fpair *p, unsigned i, unsigned j)
{
	struct inst clean;

	return f->skew > 0 || !clean_for(f, i, j, &clean) ||
	    !inst_lt(clean, p->start);
}

static void
disarm(struct fd *f, struct fpair *p)
{
	if (p->isarmed) {
		TAILQ_REMOVE(&f->armed, p, armed);
		p->isarmed = 0;
	}
}

/* Sets the completeness obligation of client B towards peer A. */
static void
arm(struct fd *f, struct fpair *p)
{
	const struct fnode *i = fnode(f, p->b), *j = fnode(f, p->a);
	struct inst jdown;

	if (!f->complete || !p->mon || (p->told && !p->late) ||
	    !running(i) || p->mgen != i->gen || !down_for(j, p, &jdown)) {
		disarm(f, p);
		return;
	}
	p->from = inst_max(inst_max(p->start, i->since), jdown);
	p->by = time_add(inst_max(inst_max(p->start, i->since),
	    inst_late(jdown, f->skew)).t, f->latency);
	p->due = time_add(p->by, f->skew);
	if (!p->isarmed) {
		TAILQ_INSERT_TAIL(&f->armed, p, armed);
		p->isarmed = 1;
	}
	if (p->due < f->next_due)
		f->next_due = p->due;
}

/* Every pair whose obligation depends on node ID. */
static void
rearm(struct fd *f, unsigned id)
{
	struct fpair *p;

	if (!f->complete)
		return;
	RB_FOREACH(p, fpairs, &f->pairs)
		if (p->a == id || p->b == id)
			arm(f, p);
}

/*
 * Before a line at time NOW: obligations that ran out, with J's lines a
 * skew later seen.  At the end of the trace (AT_END) nothing can come
 * after it: a DownSig due before NOW is missing, and one due at NOW or
 * later could still come.
 */
static void
overdue(struct fd *f, trace_time now, int at_end,
    const struct trace_event *ev, struct check_out *out)
{
	struct fpair *p, *next;
	char b[3][TIME_BUFLEN];

	if (now <= f->next_due && !at_end)
		return;
	f->next_due = TIME_MAX;
	TAILQ_FOREACH_SAFE(p, &f->armed, armed, next) {
		if (now <= (at_end ? p->by : p->due)) {
			if (p->due < f->next_due)
				f->next_due = p->due;
			continue;
		}
		check_violation(out, ev, "node %u was not told that %u is down:"
		    " down for it from %s, monitored since %s, no DownSig by "
		    "%s", p->b, p->a, time_str(b[0], p->from.t), time_str(b[1],
		    p->start.t), time_str(b[2], p->by));
		p->told = 1;
		p->late = 0;
		disarm(f, p);
	}
}

static void
accuracy(struct fd *f, const struct trace_event *ev, struct check_out *out)
{
	const struct fnode *i = fnode(f, ev->node);
	struct fpair *p = fpair(f, ev->peer, ev->node, 0);
	struct fpend *q;
	struct inst clean;
	char b[2][TIME_BUFLEN];

	if (p == NULL || !p->mon || i == NULL || p->mgen != i->gen) {
		if (p != NULL && p->stopped && !p->mon)
			check_violation(out, ev, "node %u got a DownSig for %u"
			    ", which it stopped monitoring at %s", ev->node,
			    ev->peer, time_str(b[0], p->stop.t));
		else if (p != NULL && p->mon)
			check_violation(out, ev, "node %u got a DownSig for %u"
			    ", which it last monitored before it restarted",
			    ev->node, ev->peer);
		else
			check_violation(out, ev, "node %u got a DownSig for %u"
			    ", which it does not monitor", ev->node, ev->peer);
		return;
	}
	if (!clean_for(f, ev->node, ev->peer, &clean))
		return;
	if (f->skew == 0) {
		if (inst_lt(clean, p->start))
			check_violation(out, ev, "node %u got a DownSig for %u"
			    ", up for it since %s and monitored since %s",
			    ev->node, ev->peer, time_str(b[0], clean.t),
			    time_str(b[1], p->start.t));
		return;
	}
	if (time_add(clean.t, f->skew) >= p->start.t)
		return;
	if (f->npend == PEND_MAX) {
		f->phead = (f->phead + 1) % PEND_MAX;
		f->npend--;
		f->overflow = 1;
	}
	q = &f->pend[(f->phead + f->npend++) % PEND_MAX];
	q->client = ev->node;
	q->peer = ev->peer;
	q->clean = clean;
	q->start = p->start;
	q->t = ev->t;
}

/* DownSigs whose skew bound has passed with J still clean. */
static void
accuracy_due(struct fd *f, trace_time now, const struct trace_event *ev,
    struct check_out *out)
{
	char b[3][TIME_BUFLEN];

	while (f->npend > 0) {
		struct fpend *q = &f->pend[f->phead];
		struct inst clean;

		if (now <= time_add(q->t, f->skew))
			break;
		if (clean_for(f, q->client, q->peer, &clean) &&
		    inst_cmp(clean, q->clean) == 0)
			check_violation(out, ev, "node %u got a DownSig for %u"
			    " at %s, up for it since %s and monitored since %s",
			    q->client, q->peer, time_str(b[0], q->t),
			    time_str(b[1], clean.t), time_str(b[2],
			    q->start.t));
		f->phead = (f->phead + 1) % PEND_MAX;
		f->npend--;
	}
}

/* A line of node X about itself: boots, crashes, pauses. */
static void
life(struct fd *f, const struct trace_event *ev)
{
	struct fnode *x;

	if ((x = fnode_add(f, ev->node)) == NULL) {
		f->nomem = 1;
		return;
	}
	switch (ev->type) {
	case TR_BOOT:
		x->gen++;
		x->up = 1;
		x->paused = 0;
		x->since = f->now;
		break;
	case TR_CRASH:
	case TR_EXIT:
		if (running(x))
			x->down = f->now;
		x->up = x->paused = 0;
		break;
	case TR_PAUSE:
		if (running(x))
			x->down = f->now;
		x->paused = 1;
		break;
	case TR_RESUME:
		x->paused = 0;
		x->since = f->now;
		break;
	default:
		/* A line it wrote itself: it is up. */
		if (x->up || !CHECK_SHOWS_UP(ev))
			return;
		x->gen++;
		x->up = 1;
		x->since = f->now;
		break;
	}
	rearm(f, ev->node);
}

static void
fd_line(struct fd *f, const struct trace_event *ev, struct check_out *out)
{
	struct fpair *p;

	switch (ev->op) {
	case OP_START:
	case OP_STOP:
	case OP_DOWN:
		if ((p = fpair(f, ev->peer, ev->node, 1)) == NULL)
			return;
		if (ev->op == OP_DOWN) {
			if (!f->complete)
				accuracy(f, ev, out);
			else if (!may_report(f, p, ev->node, ev->peer))
				break;
			/* Too late, unless J's lines, a skew later, show it
			 * back in time. */
			if (p->isarmed && !p->told && f->now.t > p->by)
				p->late = 1;
			p->told = 1;
		} else if ((p->mon = ev->op == OP_START)) {
			p->mgen = fnode(f, ev->node)->gen;
			p->start = f->now;
			p->told = p->late = 0;
		} else {
			p->stopped = 1;
			p->stop = f->now;
		}
		arm(f, p);
		break;
	case OP_PLAYDEAD:
	case OP_PLAYALIVE:
		if ((p = fpair(f, ev->node, ev->peer, 1)) == NULL)
			return;
		if ((p->dead = ev->op == OP_PLAYDEAD)) {
			p->dgen = fnode(f, ev->node)->gen;
			p->deadat = f->now;
		} else
			p->alive = f->now;
		arm(f, p);
		break;
	default:
		break;
	}
}

static void
net(struct fd *f, const struct trace_event *ev)
{
	unsigned a = ev->a < ev->b ? ev->a : ev->b;
	unsigned b = ev->a < ev->b ? ev->b : ev->a;
	struct fpair *p;

	if ((p = fpair(f, a, b, 1)) == NULL)
		return;
	/* Only a change counts: a link=up for a link never cut, or said up
	 * twice, restores nothing and so excuses nothing. */
	if (p->link == ev->link)
		return;
	p->link = ev->link;
	p->linked = f->now;
}

static void
fd_event(void *arg, const struct trace_event *ev, struct check_out *out)
{
	struct fd *f = arg;
	trace_time now = ev->t > f->now.t ? ev->t : f->now.t;

	if (f->complete)
		overdue(f, now, 0, ev, out);
	else
		accuracy_due(f, now, ev, out);
	f->now = inst_line(now, ++f->lines);
	if (ev->type == TR_NET)
		net(f, ev);
	if (ev->node == 0)
		return;
	life(f, ev);
	if (ev->type == TR_FD && !f->nomem)
		fd_line(f, ev, out);
}

static void
fd_finish(void *arg, const struct trace_event *last, struct check_out *out)
{
	struct fd *f = arg;

	if (f->complete && !f->nomem)
		overdue(f, f->now.t, 1, last, out);
	if (f->nomem)
		check_undecided(out, last, "out of memory");
	else if (f->overflow)
		check_undecided(out, last, "more than %d DownSigs waited on "
		    "the skew at once", PEND_MAX);
}

const struct check_ops check_fd_complete = {
	.name = "fd-complete",
	.init = complete_init,
	.event = fd_event,
	.finish = fd_finish,
	.free = fd_free,
	.hosts = 1,
};

const struct check_ops check_fd_accurate = {
	.name = "fd-accurate",
	.init = accurate_init,
	.event = fd_event,
	.finish = fd_finish,
	.free = fd_free,
	.hosts = 1,
};
