/*
 * Elections, found in a stream of events.  State is per node (up, status,
 * leader) and per election; memory grows with the number of nodes and of
 * elections, never with the length of the trace.
 */
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "trace/dead.h"

#define ALGOS_MAX	64
#define OTHER		"(other)"

struct node {
	unsigned char	 up;
	unsigned char	 norm;		/* last state had status=Norm */
	unsigned	 ldr;
	unsigned long	 seen;		/* number of the election it was in */
	size_t		 cutoff;	/* 1 + its open cut-off period, or 0 */
};

/* Names met in the trace, each kept once. */
struct names {
	char		*name[STATS_TYPES_MAX + 1];
	size_t		 n, max;
};

struct per_algo {
	unsigned long	 elections;
	trace_time	*durations;	/* of those done */
	uint64_t	*messages;
	size_t		 done, cap;
	struct stats_summary sum;
};

struct stats {
	struct trace_dead dead;		/* Dead lines read as crashes */
	struct node	*node;
	unsigned	 maxid;		/* node[0..maxid] allocated */
	unsigned	 nup;
	unsigned	 unsettled;	/* up nodes not in Norm */
	unsigned	 leader;	/* agreed after the last election */
	int		 lease;		/* a lease trace: lead lines end them */
	trace_time	 lease_end;	/* the lease leader's, in trace time */
	int		 algo;		/* index in algos, -1: none named */
	struct names	 types, algos, excluded;
	struct per_algo	 per[ALGOS_MAX + 2];	/* [ALGOS_MAX + 1]: none */
	int		 open;
	struct election	 cur;
	int		 cur_algo;	/* its index in per[] */
	uint64_t	 by_type[STATS_TYPES_MAX + 1];
	size_t		 capnodes;
	unsigned long	 number;
	struct stats_cutoff *cut;
	size_t		 ncut, capcut;
	/* Time led: since when the last leader holds it, if one does. */
	struct stats_leadership lsh;
	unsigned	 prev_leader;
	int		 led_on;
	trace_time	 led_since, last_t;
};

static const char *const causes[] = {
	"boot", "crash", "exit", "down", "state", "follow", "release",
	"expire", "lead"
};

const char *
stats_cause_name(enum stats_cause c)
{
	return (size_t)c < sizeof(causes) / sizeof(causes[0]) ? causes[c] :
	    "?";
}

struct stats *
stats_new(void)
{
	struct stats *st;

	if ((st = calloc(1, sizeof(*st))) == NULL)
		return NULL;
	st->types.max = STATS_TYPES_MAX;
	st->algos.max = ALGOS_MAX;
	st->excluded.max = STATS_TYPES_MAX;
	st->algo = -1;
	trace_dead_init(&st->dead);
	return st;
}

static void
names_free(struct names *nm)
{
	size_t i;

	for (i = 0; i < nm->n; i++)
		free(nm->name[i]);
}

void
stats_free(struct stats *st)
{
	size_t i;

	if (st == NULL)
		return;
	trace_dead_free(&st->dead);
	for (i = 0; i < sizeof(st->per) / sizeof(st->per[0]); i++) {
		free(st->per[i].durations);
		free(st->per[i].messages);
	}
	names_free(&st->types);
	names_free(&st->algos);
	names_free(&st->excluded);
	free(st->node);
	free(st->cur.nodes);
	free(st->cut);
	free(st);
}

/* The index of S among NM's names, added if new and there is room; -1 if
 * not there and not added. */
static int
name_index(struct names *nm, struct trace_str s, int add)
{
	size_t i;

	for (i = 0; i < nm->n; i++)
		if (trace_str_eq(s, nm->name[i]))
			return (int)i;
	if (!add || nm->n == nm->max || s.n > STATS_NAME_MAX ||
	    (nm->name[nm->n] = strndup(s.p, s.n)) == NULL)
		return -1;
	return (int)nm->n++;
}

int
stats_exclude(struct stats *st, const char *type)
{
	struct trace_str s = { type, strlen(type) };

	return name_index(&st->excluded, s, 1) == -1 ? -1 : 0;
}

const char *
stats_type(const struct stats *st, size_t i)
{
	return i < st->types.n ? st->types.name[i] : OTHER;
}

static struct node *
node(struct stats *st, unsigned id)
{
	size_t old = st->node != NULL ? (size_t)st->maxid + 1 : 0, cap;
	struct node *nn;

	if (id < old)
		return &st->node[id];
	cap = id < 64 ? 64 : (size_t)id * 2;
	if (cap > TRACE_NODE_MAX + 1)
		cap = TRACE_NODE_MAX + 1;
	if ((nn = reallocarray(st->node, cap, sizeof(*nn))) == NULL)
		return NULL;
	memset(nn + old, 0, (cap - old) * sizeof(*nn));
	st->node = nn;
	st->maxid = (unsigned)cap - 1;
	return &nn[id];
}

/* Sets N's life and status, keeping the counts of up and unsettled. */
static void
set(struct stats *st, struct node *n, int up, int norm)
{
	st->nup -= n->up;
	st->unsettled -= n->up && !n->norm;
	n->up = (unsigned char)up;
	n->norm = (unsigned char)norm;
	st->nup += n->up;
	st->unsettled += n->up && !n->norm;
}

static int
push(unsigned **v, size_t *n, size_t *cap, unsigned x)
{
	unsigned *nv;

	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;

		if ((nv = reallocarray(*v, c, sizeof(*nv))) == NULL)
			return -1;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static int
cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

static int
algo_slot(const struct stats *st)
{
	return st->algo >= 0 ? st->algo : ALGOS_MAX + 1;
}

static void	 cut_end_at(struct stats *, struct node *, trace_time);

/* The leader's time ends at T.  In time order the periods are apart and
 * add up to less than the last time; out of order they are held to it. */
static void
led_until(struct stats *st, trace_time t)
{
	if (st->led_on && t > st->led_since)
		st->lsh.led = trace_time_add(st->lsh.led, t - st->led_since);
	st->led_on = 0;
}

static void
open_election(struct stats *st, const struct trace_event *ev, trace_time t,
    enum stats_cause cause, unsigned who)
{
	struct election *e = &st->cur;
	unsigned i;

	led_until(st, t);
	/* the leader is lost: those cut off from it are in the election */
	for (i = 1; st->ncut > 0 && st->node != NULL && i <= st->maxid; i++)
		cut_end_at(st, &st->node[i], t);

	st->open = 1;
	e->number = ++st->number;
	e->start = t;
	e->end = 0;
	e->done = 0;
	e->cause = cause;
	e->cause_node = who;
	e->file = ev->file;
	e->lineno = ev->lineno;
	e->leader = 0;
	e->nnodes = 0;
	e->messages = 0;
	e->by_type = st->by_type;
	e->ntypes = 0;
	memset(st->by_type, 0, sizeof(st->by_type));
	e->algo = st->algo >= 0 ? st->algos.name[st->algo] : "-";
	st->cur_algo = algo_slot(st);
	st->per[st->cur_algo].elections++;
	st->per[st->cur_algo].sum.algo = e->algo;
}

static const struct election *
close_election(struct stats *st, trace_time t)
{
	struct election *e = &st->cur;
	struct per_algo *pa = &st->per[st->cur_algo];

	st->open = 0;
	st->lease_end = 0;
	e->done = 1;
	e->end = t;
	if (e->nnodes > 0)
		qsort(e->nodes, e->nnodes, sizeof(*e->nodes), cmp_unsigned);
	st->leader = e->leader;
	if (e->leader != 0) {
		st->led_on = 1;
		st->led_since = t;
		if (e->leader != st->prev_leader)
			st->lsh.leaders++;
		st->prev_leader = e->leader;
	}
	if (pa->done == pa->cap) {
		size_t c = pa->cap ? pa->cap * 2 : 16;
		trace_time *d;
		uint64_t *m;

		if ((d = reallocarray(pa->durations, c, sizeof(*d))) == NULL)
			return e;
		pa->durations = d;
		if ((m = reallocarray(pa->messages, c, sizeof(*m))) == NULL)
			return e;
		pa->messages = m;
		pa->cap = c;
	}
	pa->durations[pa->done] = e->end - e->start;
	pa->messages[pa->done++] = e->messages;
	return e;
}

/*
 * The leader that every up node in Norm follows, itself up, in Norm and
 * following itself; 0 if there is none.
 */
static unsigned
settled(const struct stats *st)
{
	unsigned i, ldr = 0;
	const struct node *l;

	if (st->unsettled > 0 || st->nup == 0)
		return 0;
	for (i = 1; i <= st->maxid; i++) {
		const struct node *n = &st->node[i];

		if (!n->up)
			continue;
		if (n->ldr == 0 || (ldr != 0 && n->ldr != ldr))
			return 0;
		ldr = n->ldr;
	}
	if (ldr > st->maxid)
		return 0;
	l = &st->node[ldr];
	return l->up && l->norm && l->ldr == ldr ? ldr : 0;
}

static void
count_send(struct stats *st, const struct trace_event *ev)
{
	int i;

	if (st->excluded.n > 0 && name_index(&st->excluded, ev->msg, 0) >= 0)
		return;
	if ((i = name_index(&st->types, ev->msg, 1)) == -1)
		i = STATS_TYPES_MAX;
	st->by_type[i]++;
	if ((size_t)i >= st->cur.ntypes)
		st->cur.ntypes = (size_t)i + 1;
	st->cur.messages++;
}

/* A lease leader's new period: it is the leader until the lease ends. */
static void
lead(struct stats *st, const struct trace_event *ev)
{
	st->leader = ev->node;
	st->lease_end = trace_time_add(ev->t, ev->until - ev->clock);
}

/*
 * A lease node left Norm while the leader's lease ran: N's cut-off period
 * goes on, or begins.  0, or -1 without memory (then it counts as an
 * election, as before).
 */
static int
cut_off(struct stats *st, const struct trace_event *ev, struct node *n)
{
	struct stats_cutoff *c;

	if (n->cutoff == 0) {
		if (st->ncut == st->capcut) {
			size_t cap = st->capcut ? st->capcut * 2 : 16;

			if ((c = reallocarray(st->cut, cap, sizeof(*c))) ==
			    NULL)
				return -1;
			st->cut = c;
			st->capcut = cap;
		}
		c = &st->cut[st->ncut++];
		memset(c, 0, sizeof(*c));
		c->node = ev->node;
		c->leader = st->leader;
		c->start = ev->t;
		n->cutoff = st->ncut;
	}
	st->cut[n->cutoff - 1].changes++;
	return 0;
}

/* N is back with the leader, or gone: its cut-off period, if any, ends
 * at T. */
static void
cut_end_at(struct stats *st, struct node *n, trace_time t)
{
	if (n->cutoff == 0)
		return;
	st->cut[n->cutoff - 1].done = 1;
	st->cut[n->cutoff - 1].end = t;
	n->cutoff = 0;
}

static void
cut_end(struct stats *st, const struct trace_event *ev, struct node *n)
{
	cut_end_at(st, n, ev->t);
}

int
stats_hosts(struct stats *dst, const struct stats *src)
{
	struct node *n;
	unsigned id;

	if (src->algo >= 0) {
		struct trace_str a = { src->algos.name[src->algo],
		    strlen(src->algos.name[src->algo]) };

		dst->algo = name_index(&dst->algos, a, 1);
	}
	dst->lease = src->lease;
	for (id = 1; src->node != NULL && id <= src->maxid; id++) {
		if (!src->node[id].up)
			continue;
		if ((n = node(dst, id)) == NULL)
			return -1;
		set(dst, n, 1, 0);
	}
	return 0;
}

const struct stats_leadership *
stats_leadership(const struct stats *st)
{
	return &st->lsh;
}

const struct stats_cutoff *
stats_cutoff(const struct stats *st, size_t i)
{
	return i < st->ncut ? &st->cut[i] : NULL;
}

/* What EV says of N; a reason to start an election, or -1. */
static int
update(struct stats *st, const struct trace_event *ev, struct node *n,
    unsigned *who)
{
	switch (ev->type) {
	case TR_BOOT:
		cut_end(st, ev, n);
		set(st, n, 1, 0);
		n->ldr = 0;
		if (ev->have & HAVE_ALGO) {
			st->algo = name_index(&st->algos, ev->algo, 1);
			if (trace_str_eq(ev->algo, "lease"))
				st->lease = 1;
		}
		return SC_BOOT;
	case TR_CRASH:
	case TR_EXIT:
		cut_end(st, ev, n);
		set(st, n, 0, 0);
		if (ev->node != st->leader)
			return -1;
		return ev->type == TR_CRASH ? SC_CRASH : SC_EXIT;
	case TR_FD:
		*who = ev->peer;
		return ev->op == OP_DOWN && ev->peer == st->leader ? SC_DOWN :
		    -1;
	case TR_STATE:
		set(st, n, 1, ev->status == ST_NORM);
		n->ldr = ev->ldr;
		if (st->lease && ev->status == ST_NORM &&
		    ev->ldr == st->leader)
			cut_end(st, ev, n);	/* back with the leader */
		if (st->lease && !st->open && st->leader != 0 &&
		    ev->node != st->leader && ev->t < st->lease_end &&
		    (n->cutoff != 0 || ev->status != ST_NORM) &&
		    cut_off(st, ev, n) == 0)
			return -1;	/* the cluster has its leader */
		if (st->lease)
			return ev->status == ST_NORM ? -1 : SC_STATE;
		if (ev->status != ST_NORM)
			return SC_STATE;
		*who = ev->ldr;
		if (st->leader == 0 && !st->open) {
			/* met in mid-run: no election seen, none to count */
			st->leader = settled(st);
			return -1;
		}
		return ev->ldr == st->leader ? -1 : SC_FOLLOW;
	case TR_LEAD:
		st->lease = 1;
		if (ev->until > ev->clock)
			return ev->node == st->leader ? -1 : SC_LEAD;
		if (ev->node != st->leader)
			return -1;
		st->leader = 0;
		return SC_RELEASE;
	case TR_SEND:
		if (st->open)
			count_send(st, ev);
		else if (n->cutoff != 0 && (st->excluded.n == 0 ||
		    name_index(&st->excluded, ev->msg, 0) < 0))
			st->cut[n->cutoff - 1].messages++;
		return -1;
	default:
		return -1;
	}
}

const struct election *
stats_event(struct stats *st, const struct trace_event *ev)
{
	struct election *e = &st->cur;
	struct node *n = NULL;
	unsigned who = ev->node;
	int cause, opened = 0;
	struct trace_event crash;

	/* A Dead is its node's crash, just before it, as elect-check
	 * reads it: a killed leader leads no more from there. */
	if (trace_dead_feed(&st->dead, ev, &crash))
		(void)stats_event(st, &crash);
	if (ev->t > st->last_t)
		st->last_t = ev->t;
	if (ev->type == TR_TASK && ev->op == OP_START)
		st->lsh.tasks++;
	if (ev->node != 0 && (n = node(st, ev->node)) == NULL)
		return NULL;	/* out of memory: the node is not followed */
	if (st->lease && !st->open && st->leader != 0 && st->lease_end != 0 &&
	    ev->t > st->lease_end) {
		/* the lease ran out: from then on there was no leader */
		open_election(st, ev, st->lease_end, SC_EXPIRE, st->leader);
		st->leader = 0;
	}
	cause = n != NULL ? update(st, ev, n, &who) : -1;
	if (!st->open && cause != -1) {
		open_election(st, ev, ev->t, (enum stats_cause)cause, who);
		opened = cause != SC_LEAD;
	}
	if (!st->open)
		goto leader;
	if (n != NULL && n->seen != e->number) {
		n->seen = e->number;
		push(&e->nodes, &e->nnodes, &st->capnodes, ev->node);
	}
	if (st->lease) {
		if (ev->type != TR_LEAD || ev->until <= ev->clock)
			return NULL;
		e->leader = ev->node;
		close_election(st, ev->t);
		lead(st, ev);
		return e;
	}
	/* not at the sign itself: a DownSig leaves everyone agreeing */
	if (!opened && (e->leader = settled(st)) != 0)
		return close_election(st, ev->t);
	return NULL;
leader:
	if (ev->type == TR_LEAD && ev->until > ev->clock)
		lead(st, ev);	/* a renewal */
	else if (ev->type == TR_RENEW && ev->node == st->leader &&
	    st->lease_end != 0 && !(ev->have & HAVE_TO))
		st->lease_end = trace_time_add(st->lease_end,
		    (trace_time)ev->d);	/* compact, or a named round */
	return NULL;
}

const struct election *
stats_end(struct stats *st)
{
	trace_time end = st->last_t;

	/* A lease runs out by itself; else the leader led to the end. */
	if (st->led_on && st->lease && st->lease_end != 0 &&
	    st->lease_end < end)
		end = st->lease_end;
	led_until(st, end);
	if (!st->open)
		return NULL;
	st->open = 0;
	if (st->cur.nnodes > 0)
		qsort(st->cur.nodes, st->cur.nnodes, sizeof(*st->cur.nodes),
		    cmp_unsigned);
	return &st->cur;
}

static int
cmp_time(const void *a, const void *b)
{
	trace_time x = *(const trace_time *)a, y = *(const trace_time *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Halfway from A to B, A <= B, two durations of up to TRACE_TIME_MAX: their
 * sum may overflow, B - A as unsigned cannot, and its half fits.
 */
static trace_time
midpoint(trace_time a, trace_time b)
{
	return a + (trace_time)(((uint64_t)b - (uint64_t)a) / 2);
}

const struct stats_summary *
stats_summary(struct stats *st, size_t i)
{
	struct per_algo *pa;
	size_t k, n;

	for (k = 0; k < sizeof(st->per) / sizeof(st->per[0]); k++) {
		if (st->per[k].elections == 0 || i-- > 0)
			continue;
		pa = &st->per[k];
		n = pa->done;
		pa->sum.elections = pa->elections;
		pa->sum.done = n;
		if (n > 0) {
			qsort(pa->durations, n, sizeof(*pa->durations),
			    cmp_time);
			qsort(pa->messages, n, sizeof(*pa->messages), cmp_u64);
			pa->sum.median_duration = midpoint(
			    pa->durations[(n - 1) / 2], pa->durations[n / 2]);
			pa->sum.max_duration = pa->durations[n - 1];
			pa->sum.median_messages = (double)(pa->messages[(n - 1) /
			    2] + pa->messages[n / 2]) / 2;
			pa->sum.max_messages = pa->messages[n - 1];
		}
		return &pa->sum;
	}
	return NULL;
}
