/*
 * The promise made about guarded commands (elect-node --run-if-leader),
 * judged on their task lines (elect-trace(5)).
 *
 * A command runs from its op=start line to the killed= time of its stop
 * line when it has one (none of its processes ran an instruction after
 * it), else to its stop line.  A stop line is matched to the latest start
 * of the same node and pid= that has none yet.  Commands of one node with
 * the same token= were started under one leadership of that node: they
 * are one leader's, and may run together.  A command without a stop line
 * ends at the end of the trace for all that is known, unless a Dead of
 * its node's incarnation proves it dead by the Dead's time: the guard
 * sends it once every guarded command of the node is dead.
 *
 * task-overlap: two commands of different leaderships never run at the
 * same time.  With a skew bound S, commands of two nodes overlap surely
 * when each ends more than S after the other starts.
 *
 * task-lease: a command is dead by the end of the leadership it started
 * under (lease.h), at every clock rate within the drift bound; a
 * leadership its node's crash or exit ended lasts until its lease runs
 * out, or until a Dead of that node says the commands are dead.
 *
 * task-token: a command's token is above the tokens of every command
 * started surely before it, except those of its own leadership.
 *
 * Memory: the commands running, those ended within two skews of the
 * latest line, and the pairs of them not yet judged.
 */
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/lease.h"
#include "check/world.h"

#define TASK_MAX	4096	/* commands followed at once */

struct cmd {
	unsigned	 node;
	uint64_t	 pid, inc;	/* inc: its node's, at the start */
	int		 tok;		/* it has a token */
	uint64_t	 token;
	trace_time	 s;		/* start */
	uint64_t	 sline;		/* the start's place among the lines */
	int		 ended;
	trace_time	 e;		/* end, once ended */
	int		 dead;		/* a Dead of its node came */
	unsigned	 dnode;		/* its receiver */
	trace_time	 dt;		/* and time */
	uint64_t	 dline;
	uint64_t	 id;		/* for pairs */
	/* task-lease: the leadership it started under */
	int		 led;		/* its node led at the start */
	uint64_t	 gen;		/* of that leadership */
	int		 lend;		/* that leadership ended */
	trace_time	 lhi;		/* its latest end, once ended */
};

struct tpair {
	uint64_t	 a, b;		/* ids, a started first */
};

enum task_kind { TK_OVERLAP, TK_LEASE, TK_TOKEN };

struct task {
	enum task_kind	 kind;
	const struct world *world;
	struct lw	*lw;
	trace_time	 skew;
	struct cmd	*c;
	size_t		 n, cap;
	uint64_t	 next, lines;
	struct tpair	*p;
	size_t		 np, pcap;
	/* task-token: the largest token of the commands let go, and the
	 * node of the leadership that had it (0: several) */
	int		 have_max;
	uint64_t	 max;
	unsigned	 max_node;
	struct cmd	 maxc;		/* a command that had it */
	int		 full, badtoken;
};

static void *
task_init(const struct check_opts *o, enum task_kind kind)
{
	struct task *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->kind = kind;
	t->world = o->world;
	t->lw = o->model;
	t->skew = o->skew;
	return t;
}

static void *
overlap_init(const struct check_opts *o)
{
	return task_init(o, TK_OVERLAP);
}

static void *
lease_init(const struct check_opts *o)
{
	return task_init(o, TK_LEASE);
}

static void *
token_init(const struct check_opts *o)
{
	return task_init(o, TK_TOKEN);
}

static void
task_free(void *arg)
{
	struct task *t = arg;

	free(t->c);
	free(t->p);
	free(t);
}

static struct cmd *
find_id(struct task *t, uint64_t id)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->c[i].id == id)
			return &t->c[i];
	return NULL;
}

/* The skew between the clocks of A and B. */
static trace_time
skew_of(const struct task *t, const struct cmd *a, const struct cmd *b)
{
	return a->node == b->node ? 0 : t->skew;
}

static int
same_leadership(const struct cmd *a, const struct cmd *b)
{
	return a->node == b->node && a->tok && b->tok && a->token == b->token;
}

/* The earliest A can have ended, as known now. */
static trace_time
end_lo(const struct cmd *a)
{
	return a->ended ? a->e : a->s;
}

/* 1: A and B surely ran at the same time; -1: they surely did not;
 * 0: not yet known. */
static int
overlaps(const struct task *t, const struct cmd *a, const struct cmd *b)
{
	trace_time s = skew_of(t, a, b);

	if (end_lo(a) - b->s > s && end_lo(b) - a->s > s)
		return 1;
	if ((a->ended && a->e - b->s <= s) || (b->ended && b->e - a->s <= s))
		return -1;
	return 0;
}

static void
overlap_report(struct task *t, const struct cmd *a, const struct cmd *b,
    const struct trace_event *ev, struct check_out *out)
{
	char x[4][TIME_BUFLEN];

	check_violation(out, ev, "guarded commands of nodes %u (pid %llu, "
	    "from %s to %s) and %u (pid %llu, from %s to %s) run at once",
	    a->node, (unsigned long long)a->pid, time_str(x[0], a->s),
	    a->ended ? time_str(x[1], a->e) : "now", b->node,
	    (unsigned long long)b->pid, time_str(x[2], b->s), b->ended ?
	    time_str(x[3], b->e) : "now");
}

/* Judges the pairs that can be; at the end (EV NULL), the others cannot
 * be judged. */
static void
overlap_judge(struct task *t, const struct trace_event *ev,
    const struct trace_event *last, struct check_out *out)
{
	size_t k;

	for (k = 0; k < t->np; ) {
		struct cmd *a = find_id(t, t->p[k].a);
		struct cmd *b = find_id(t, t->p[k].b);
		int r = a != NULL && b != NULL ? overlaps(t, a, b) : -1;

		if (r == 0 && ev == NULL) {
			/* No stop line: dead by a Dead before the other
			 * started, or not to be judged. */
			struct cmd *o = !a->ended ? a : b, *x = o == a ? b : a;

			if (o->dead && (o->dnode == x->node ? o->dline <
			    x->sline : x->s - o->dt > t->skew))
				r = -1;
			else {
				char y[TIME_BUFLEN];

				check_undecided(out, last, "node %u's guarded "
				    "command (pid %llu, from %s) has no stop "
				    "line: whether it ran at once with node "
				    "%u's (pid %llu) cannot be judged",
				    o->node, (unsigned long long)o->pid,
				    time_str(y, o->s), x->node,
				    (unsigned long long)x->pid);
				r = -1;
			}
		}
		if (r == 1)
			overlap_report(t, a, b, ev != NULL ? ev : last, out);
		if (r != 0)
			t->p[k] = t->p[--t->np];
		else
			k++;
	}
}

static int
pair_with(struct task *t, const struct cmd *a, const struct cmd *b)
{
	if (t->np == t->pcap) {
		struct tpair *p = array_grow(t->p, &t->pcap, sizeof(*p));

		if (p == NULL)
			return -1;
		t->p = p;
	}
	t->p[t->np].a = a->id;
	t->p[t->np++].b = b->id;
	return 0;
}

/* Whether A may still matter at NOW: for task-overlap, running, in a
 * pair, or ended late enough to meet a start still to come; for
 * task-token, started late enough that a start to come may not be surely
 * later; for task-lease, running or its leadership's end still to come. */
static int
needed(const struct task *t, const struct cmd *a, trace_time now)
{
	trace_time past = time_add(now, -2 * t->skew);
	size_t k;

	switch (t->kind) {
	case TK_TOKEN:
		return t->skew > 0 && a->s > past;
	case TK_LEASE:
		return !a->ended || (a->led && !a->lend);
	case TK_OVERLAP:
		break;
	}
	if (!a->ended || a->e > past)
		return 1;
	for (k = 0; k < t->np; k++)
		if (t->p[k].a == a->id || t->p[k].b == a->id)
			return 1;
	return 0;
}

/* task-token: A's token goes into the largest of those let go. */
static void
fold(struct task *t, const struct cmd *a)
{
	if (t->kind != TK_TOKEN || !a->tok)
		return;
	if (!t->have_max || a->token > t->max) {
		t->have_max = 1;
		t->max = a->token;
		t->max_node = a->node;
		t->maxc = *a;
	} else if (a->token == t->max && a->node != t->max_node)
		t->max_node = 0;
}

static void
sweep(struct task *t, trace_time now)
{
	size_t i;

	for (i = 0; i < t->n; ) {
		if (needed(t, &t->c[i], now)) {
			i++;
			continue;
		}
		fold(t, &t->c[i]);
		t->c[i] = t->c[--t->n];
	}
}

static void
token_check(struct task *t, const struct cmd *c, const struct trace_event *ev,
    struct check_out *out)
{
	char x[2][TIME_BUFLEN];
	size_t i;

	if (!c->tok)
		return;
	if (t->have_max && (c->token < t->max || (c->token == t->max &&
	    t->max_node != c->node))) {
		check_violation(out, ev, "node %u's guarded command (pid %llu, "
		    "at %s) has token %llu, not above token %llu of node %u's "
		    "(pid %llu, at %s)", c->node, (unsigned long long)c->pid,
		    time_str(x[0], c->s), (unsigned long long)c->token,
		    (unsigned long long)t->max, t->maxc.node,
		    (unsigned long long)t->maxc.pid, time_str(x[1], t->maxc.s));
		return;
	}
	for (i = 0; i < t->n; i++) {
		const struct cmd *a = &t->c[i];

		if (a == c || !a->tok || same_leadership(a, c) ||
		    a->token < c->token)
			continue;
		/* Surely earlier: of the same host, or more than the skew
		 * before. */
		if (a->node == c->node ? a->sline < c->sline :
		    c->s - a->s > t->skew) {
			check_violation(out, ev, "node %u's guarded command "
			    "(pid %llu, at %s) has token %llu, not above "
			    "token %llu of node %u's (pid %llu, at %s)",
			    c->node, (unsigned long long)c->pid,
			    time_str(x[0], c->s), (unsigned long long)c->token,
			    (unsigned long long)a->token, a->node,
			    (unsigned long long)a->pid, time_str(x[1], a->s));
			return;
		}
	}
}

/* task-lease: C ran past the end of its leadership. */
static void
lease_judge(struct task *t, struct cmd *c, const struct trace_event *ev,
    struct check_out *out)
{
	char x[3][TIME_BUFLEN];

	if (!c->ended || !c->led)
		return;
	if (c->dead && c->e - c->dt > t->skew) {
		check_violation(out, ev, "node %u's guarded command (pid %llu) "
		    "ran until %s, after its node was said dead at %s",
		    c->node, (unsigned long long)c->pid, time_str(x[0], c->e),
		    time_str(x[1], c->dt));
		c->led = 0;
		return;
	}
	if (c->lend && c->e > c->lhi) {
		check_violation(out, ev, "node %u's guarded command (pid %llu, "
		    "from %s) ran until %s, after the leadership it started "
		    "under had ended, at %s at the latest", c->node,
		    (unsigned long long)c->pid, time_str(x[0], c->s),
		    time_str(x[1], c->e), time_str(x[2], c->lhi));
		c->led = 0;
		return;
	}
	/* Ended before the leadership could have: nothing more to see. */
	if (!c->lend && t->lw != NULL) {
		const struct lw_node *n = lw_node(t->lw, c->node);
		struct inst lo, hi;

		if (n != NULL && n->lead.on && n->lead.gen == c->gen) {
			lw_end(t->lw, n, &n->lead, &lo, &hi);
			if (c->e <= lo.t)
				c->led = 0;
		}
	}
}

static void
start(struct task *t, const struct trace_event *ev, struct check_out *out)
{
	struct cmd *c;
	size_t i;
	int w;

	if (t->n == TASK_MAX) {
		if (!t->full)
			check_undecided(out, ev, "more than %d guarded "
			    "commands to follow at once", TASK_MAX);
		t->full = 1;
		return;
	}
	if (t->n == t->cap) {
		if ((c = array_grow(t->c, &t->cap, sizeof(*c))) == NULL) {
			t->full = 1;
			return;
		}
		t->c = c;
	}
	c = &t->c[t->n++];
	memset(c, 0, sizeof(*c));
	c->node = ev->node;
	c->pid = ev->pid;
	c->s = ev->t;
	c->sline = t->lines;
	c->id = ++t->next;
	w = t->world != NULL ? world_find(t->world, ev->node) : -1;
	c->inc = w >= 0 ? t->world->node[w].inc : 0;
	if (ev->have & HAVE_TOKEN) {
		char buf[24], *end;

		if (ev->token.n > 0 && ev->token.n < sizeof(buf) &&
		    ev->token.p[0] >= '0' && ev->token.p[0] <= '9') {
			memcpy(buf, ev->token.p, ev->token.n);
			buf[ev->token.n] = '\0';
			c->token = strtoull(buf, &end, 10);
			c->tok = *end == '\0' && (buf[0] != '0' ||
			    buf[1] == '\0');
		}
		if (!c->tok && t->kind == TK_TOKEN && !t->badtoken) {
			check_undecided(out, ev, "token=%.*s is not a whole "
			    "number: tokens cannot be compared",
			    (int)(ev->token.n > 40 ? 40 : ev->token.n),
			    ev->token.p);
			t->badtoken = 1;
		}
	}
	switch (t->kind) {
	case TK_OVERLAP:
		for (i = 0; i + 1 < t->n; i++)
			if (!same_leadership(&t->c[i], c) &&
			    pair_with(t, &t->c[i], c) == -1)
				t->full = 1;
		break;
	case TK_TOKEN:
		token_check(t, c, ev, out);
		break;
	case TK_LEASE:
		if (t->lw != NULL) {
			const struct lw_node *n = lw_node(t->lw, ev->node);

			if (n != NULL && n->lead.on) {
				c->led = 1;
				c->gen = n->lead.gen;
			} else {
				char x[TIME_BUFLEN];

				check_violation(out, ev, "node %u starts a "
				    "guarded command (pid %llu) at %s while "
				    "it does not lead", ev->node,
				    (unsigned long long)ev->pid,
				    time_str(x, ev->t));
			}
		}
		break;
	}
}

static void
stop(struct task *t, const struct trace_event *ev, struct check_out *out)
{
	struct cmd *c = NULL;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!t->c[i].ended && t->c[i].node == ev->node &&
		    t->c[i].pid == ev->pid && (c == NULL ||
		    t->c[i].sline > c->sline))
			c = &t->c[i];
	if (c == NULL)
		return;		/* its start came before the trace */
	c->ended = 1;
	c->e = (ev->have & HAVE_KILLED) && ev->killed < ev->t ? ev->killed :
	    ev->t;
	if (t->kind == TK_LEASE)
		lease_judge(t, c, ev, out);
	else if (t->kind == TK_OVERLAP)
		overlap_judge(t, ev, ev, out);
}

/* A Dead for incarnation INC of node P: its guards killed its commands. */
static void
dead(struct task *t, const struct trace_event *ev)
{
	unsigned p;
	uint64_t inc, ctr;
	size_t i;

	if (!trace_str_eq(ev->msg, "Dead") || !(ev->have & HAVE_ELID) ||
	    trace_parse_elid(ev->elid, &p, &inc, &ctr) == -1 || p != ev->from)
		return;
	for (i = 0; i < t->n; i++) {
		struct cmd *c = &t->c[i];

		if (c->node != p || c->inc > inc || c->dead)
			continue;
		c->dead = 1;
		c->dnode = ev->node;
		c->dt = ev->t;
		c->dline = t->lines;
	}
}

/* task-lease: the leaderships that ended with the line. */
static void
lead_ends(struct task *t, const struct trace_event *ev,
    struct check_out *out)
{
	size_t k, i;

	if (t->lw == NULL)
		return;
	for (k = 0; k < t->lw->nch; k++) {
		const struct lw_change *ch = &t->lw->ch[k];

		if (ch->what != LW_LEAD_END || ch->node == LW_NONE)
			continue;
		for (i = 0; i < t->n; i++) {
			struct cmd *c = &t->c[i];

			if (c->node != t->lw->node[ch->node].id || !c->led ||
			    c->lend || c->gen != ch->span.gen)
				continue;
			c->lend = 1;
			/* A crash or an exit leaves the lease to run out. */
			c->lhi = ch->span.why == LW_DOWN ? ch->span.ehi :
			    ch->span.hi.t;
			lease_judge(t, c, ev, out);
		}
	}
}

static void
task_event(void *arg, const struct trace_event *ev, struct check_out *out)
{
	struct task *t = arg;

	/* A calm line ends no leadership, and is no task line: only the
	 * order of the lines counted matters, which it does not change. */
	check_calm(out, TIME_MAX);
	t->lines++;
	if (t->kind == TK_LEASE && t->lw != NULL && !t->lw->quiet)
		lead_ends(t, ev, out);
	if (ev->type == TR_RECV) {
		dead(t, ev);
		return;
	}
	if (ev->type == TR_TASK && ev->op == OP_START)
		start(t, ev, out);
	else if (ev->type == TR_TASK && ev->op == OP_STOP)
		stop(t, ev, out);
	if (ev->type == TR_TASK)
		sweep(t, ev->t);
}

static void
task_finish(void *arg, const struct trace_event *last, struct check_out *out)
{
	struct task *t = arg;
	size_t i;

	if (t->kind == TK_OVERLAP)
		overlap_judge(t, NULL, last, out);
	if (t->kind == TK_LEASE) {
		for (i = 0; i < t->n; i++) {
			struct cmd *c = &t->c[i];
			char x[2][TIME_BUFLEN];

			/* A leadership over and a command with no stop line,
			 * not proved dead by its end. */
			if (c->ended || !c->led || !c->lend || (c->dead &&
			    time_add(c->dt, t->skew) <= c->lhi))
				continue;
			check_undecided(out, last, "node %u's guarded command "
			    "(pid %llu, from %s) has no stop line: whether it "
			    "outlived its leadership, over by %s, cannot be "
			    "judged", c->node, (unsigned long long)c->pid,
			    time_str(x[0], c->s), time_str(x[1], c->lhi));
		}
		if (t->lw != NULL)
			lw_finish(t->lw, last, out);
	}
	if (t->full)
		check_undecided(out, last, "out of memory");
}

#define TASK_EVENTS	(1u << TR_TASK | 1u << TR_RECV)

const struct check_ops check_task_overlap = {
	.name = "task-overlap",
	.init = overlap_init,
	.event = task_event,
	.finish = task_finish,
	.free = task_free,
	.events = TASK_EVENTS,
	.per_name = 1,
};

const struct check_ops check_task_lease = {
	.name = "task-lease",
	.init = lease_init,
	.event = task_event,
	.finish = task_finish,
	.free = task_free,
	.events = 0,		/* every line: the leaderships' ends */
	.model = &lw_model,
	.per_name = 1,
};

const struct check_ops check_task_token = {
	.name = "task-token",
	.init = token_init,
	.event = task_event,
	.finish = task_finish,
	.free = task_free,
	.events = TASK_EVENTS,
	.per_name = 1,
};
