/*
 * The liveness assertions, bounded by c (-c).
 *
 * Settling (Stoller's form): if the system is stable for a period of at
 * least c, then at the end of the period the state satisfies P, and it
 * remains in that state while the system stays stable.  "Remains in that
 * state" is read literally: after the end of the period no up node's
 * status or ldr (and grp, for the asynchronous ones) may change.
 *
 *   sle2   SLE2: P = ldrElected: every up node is Norm and its ldr is up.
 *   ale2w  ALE2': P = ldrsElected: also grp of the leader = grp.
 *   ale2   ALE2: ldrsElected, and no more groups than a minimum clique
 *          cover of the connectivity graph.
 *   gm4s   Assertion 4': as ALE2, and each node's leader is reachable
 *          from it in the connectivity graph.
 *
 * Eventually (Garcia-Molina's form, no "remains"): every interval of
 * length c without disturbance has an instant satisfying P.
 *
 *   gm2    Assertion 2: P = some up node i is Norm with ldr i and every
 *          other up node is Norm with ldr i.
 *   gm4    Assertion 4: P = for every maximal set R of up, pairwise
 *          connected nodes, some i in R is Norm with ldr i and every other
 *          node of R is Norm with ldr i and i's grp.
 *
 * Disturbances: a crash or exit; a boot (except for gm2, whose hypothesis
 * is only "no failures"); a change of a link; a paused node or a flaky
 * link between up nodes make the system unstable until they end (a pause
 * is a failure under Garcia-Molina's Assumption 9, and partial
 * connectivity under Stoller's stability); a message overdue
 * (check/msgs.h), at its send plus the bound.  Only up nodes count: a
 * down node is in no group and follows no one.
 *
 * With --skew S every judgement allows for lines of two nodes misordered
 * by up to S (elect-check(1) gives the rules).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/inst.h"
#include "check/world.h"

enum kind { SLE2, ALE2W, ALE2, GM4S, GM2, GM4 };

/* The events the modules are fed. */
#define EVENTS	(1u << TR_BOOT | 1u << TR_CRASH | 1u << TR_EXIT | \
	1u << TR_PAUSE | 1u << TR_RESUME | 1u << TR_STATE | 1u << TR_NET)

struct live {
	enum kind	 kind;
	const struct world *w;
	trace_time	 c, skew;
	unsigned long	 budget;
	trace_time	 d;		/* start of the stable period */
	int		 begun;
	int		 stable;
	int		 d_msg;		/* the period began at evidence: */
	struct mrec	 d_rec;		/* this message was overdue */
	int		 reported;	/* in this period or stretch */

	/* Settling. */
	trace_time	 q;		/* last change of the state */
	int		 judged;	/* P held on the state since q */
	int		 pend;		/* a change after the period, waiting */
	trace_time	 pend_t;
	char		 pend_what[512];

	/* Eventually: a stretch [b, cov) surely without P. */
	int		 bad;
	trace_time	 b, cov;
	char		 why[512];	/* what the earliest witness says */

	/* Scratch for graphs of the up nodes. */
	int		*up;		/* world index of each up node */
	uint64_t	*adj;
	unsigned	*part, *comp;
	unsigned	 nscratch;
};

static int
settling(const struct live *l)
{
	return l->kind != GM2 && l->kind != GM4;
}

static int
grouped(const struct live *l)
{
	return l->kind != SLE2 && l->kind != GM2;
}

static trace_time
max2(trace_time a, trace_time b)
{
	return a > b ? a : b;
}

static const char *
fmt_time(trace_time t, char *buf)
{
	trace_format_time(t, buf, 32);
	return buf;
}

/* The up nodes and their connectivity graph, in l->up and l->adj. */
static unsigned
graph(struct live *l, size_t *words)
{
	const struct world *w = l->w;
	unsigned n = 0, i, j;

	if (l->nscratch < w->cap) {
		free(l->up);
		free(l->adj);
		free(l->part);
		free(l->comp);
		l->nscratch = w->cap;
		l->up = calloc(w->cap, sizeof(*l->up));
		l->part = calloc(w->cap, sizeof(*l->part));
		l->comp = calloc(w->cap, sizeof(*l->comp));
		l->adj = calloc((size_t)w->cap * ((w->cap + 63) / 64),
		    sizeof(*l->adj));
		if (l->up == NULL || l->part == NULL || l->comp == NULL ||
		    l->adj == NULL)
			err(2, NULL);
	}
	for (i = 0; i < w->n; i++)
		if (w->node[i].up)
			l->up[n++] = (int)i;
	*words = (n + 63) / 64;
	if (l->kind == SLE2 || l->kind == ALE2W || l->kind == GM2)
		return n;	/* no use for the links */
	memset(l->adj, 0, (size_t)n * *words * sizeof(*l->adj));
	if (w->cut == NULL) {	/* no net line yet: all up nodes linked */
		for (i = 0; i < n; i++) {
			uint64_t *row = l->adj + (size_t)i * *words;

			memset(row, 0xff, n / 64 * sizeof(*row));
			if (n % 64 != 0)
				row[n / 64] = (UINT64_C(1) << n % 64) - 1;
			row[i / 64] &= ~(UINT64_C(1) << i % 64);
		}
		return n;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (i != j && world_linked(w, l->up[i], l->up[j]))
				BIT_SET(l->adj + (size_t)i * *words, j);
	return n;
}

/* Connected components of the graph: comp[i] for the i-th up node. */
static void
components(struct live *l, unsigned n, size_t words)
{
	unsigned i, j, next = 0, top, *stack = l->part;

	for (i = 0; i < n; i++)
		l->comp[i] = UINT32_MAX;
	for (i = 0; i < n; i++) {
		if (l->comp[i] != UINT32_MAX)
			continue;
		l->comp[i] = next;
		stack[0] = i;
		top = 1;
		while (top > 0) {
			unsigned v = stack[--top];

			for (j = 0; j < n; j++)
				if (l->comp[j] == UINT32_MAX &&
				    BIT_ISSET(l->adj + (size_t)v * words, j)) {
					l->comp[j] = next;
					stack[top++] = j;
				}
		}
		next++;
	}
}

static int
upos(const struct live *l, unsigned n, int idx)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (l->up[i] == idx)
			return (int)i;
	return -1;
}

/* Prints the cover PART of N up nodes with K cliques into BUF. */
static void
print_cover(const struct live *l, unsigned n, unsigned k, const unsigned *part,
    char *buf, size_t len)
{
	size_t at = 0;
	unsigned c, i;

	buf[0] = '\0';
	for (c = 0; c < k && at + 16 < len; c++) {
		int first = 1;

		for (i = 0; i < n && at + 16 < len; i++) {
			if (part[i] != c)
				continue;
			at += (size_t)snprintf(buf + at, len - at, "%s%u",
			    first ? (c ? " {" : "{") : ",",
			    l->w->node[l->up[i]].id);
			first = 0;
		}
		if (!first && at + 2 < len)
			at += (size_t)snprintf(buf + at, len - at, "}");
	}
	if (at + 16 >= len)
		strlcpy(buf + len - 5, "...", 5);
}

/*
 * Judges the settling predicate on the world as it is.  1: holds; 0: not,
 * with why in WHY; -1: undecided (the clique cover), why in WHY.
 */
static int
judge(struct live *l, char *why, size_t len)
{
	const struct world *w = l->w;
	unsigned n, i, ngroups = 0, k;
	size_t words = 0;
	int r;

	n = graph(l, &words);
	if (l->kind == GM4S)
		components(l, n, words);
	for (i = 0; i < n; i++) {
		const struct wnode *nd = &w->node[l->up[i]];
		int li = world_find(w, nd->ldr), j;

		if (nd->status != ST_NORM) {
			snprintf(why, len, "node %u is %s", nd->id,
			    trace_status_name(nd->status));
			return 0;
		}
		if (nd->ldr == 0) {
			snprintf(why, len, "node %u has no leader", nd->id);
			return 0;
		}
		if (li < 0 || !w->node[li].up) {
			snprintf(why, len, "node %u follows %u, which is down",
			    nd->id, nd->ldr);
			return 0;
		}
		if (!grouped(l))
			continue;
		if (!world_grp_eq(nd, &w->node[li])) {
			snprintf(why, len, "node %u is in group %.*s, its "
			    "leader %u in %.*s", nd->id,
			    (int)(nd->grplen > 40 ? 40 : nd->grplen), nd->grp,
			    nd->ldr, (int)(w->node[li].grplen > 40 ? 40 :
			    w->node[li].grplen), w->node[li].grp);
			return 0;
		}
		if (l->kind == GM4S && (j = upos(l, n, li)) >= 0 &&
		    l->comp[j] != l->comp[i]) {
			snprintf(why, len, "node %u's leader %u cannot be "
			    "reached from it", nd->id, nd->ldr);
			return 0;
		}
	}
	if (l->kind == ALE2W || l->kind == SLE2)
		return 1;
	/* Count the groups: a node counts if no earlier node shares its. */
	for (i = 0; i < n; i++) {
		unsigned j;

		for (j = 0; j < i; j++)
			if (world_grp_eq(&w->node[l->up[i]],
			    &w->node[l->up[j]]))
				break;
		ngroups += j == i;
	}
	if (ngroups <= 1)
		return 1;
	k = ngroups - 1;
	r = cover_within(n, l->adj, words, k, l->part, l->budget);
	if (r == 0)
		return 1;
	if (r == -1) {
		snprintf(why, len, "%u groups among %u up nodes: could not "
		    "decide in bounded time whether fewer cliques cover the "
		    "connectivity graph", ngroups, n);
		return -1;
	}
	{
		char cover[256];
		unsigned used = 0;

		for (i = 0; i < n; i++)
			if (l->part[i] + 1 > used)
				used = l->part[i] + 1;
		print_cover(l, n, used, l->part, cover, sizeof(cover));
		snprintf(why, len, "%u groups, but %u clique%s cover%s the "
		    "connectivity graph: %s", ngroups, used, used > 1 ? "s" : "",
		    used > 1 ? "" : "s", cover);
	}
	return 0;
}

/* What started the period, for messages. */
static const char *
since_what(const struct live *l)
{
	static char buf[160];
	char r[96];

	if (l->d_msg) {
		snprintf(buf, sizeof(buf), "a message overdue (%s)",
		    msgs_str(&l->d_rec, r, sizeof(r)));
		return buf;
	}
	return l->kind == SLE2 ? "the last failure or recovery" :
	    "the system became stable";
}

static void
judge_now(struct live *l, const struct trace_event *ev, struct check_out *out)
{
	char why[400], d[32], e[32];
	int r;

	r = judge(l, why, sizeof(why));
	if (r == 1) {
		l->judged = 1;
		return;
	}
	l->reported = 1;
	fmt_time(l->d, d);
	fmt_time(l->d + l->c, e);
	if (r == -1)
		check_undecided(out, ev, "%s", why);
	else
		check_violation(out, ev, "%s by %s, c after %s at %s: %s",
		    l->kind == SLE2 ? "no leader elected" : "not settled", e,
		    since_what(l), d, why);
}

/* A change of state after the end of the period. */
static void
changed(struct live *l, const struct trace_event *ev, struct check_out *out)
{
	const struct world *w = l->w;
	const struct wnode *nd = &w->node[w->cur];
	char t[32], d[32], e[32], a[8], b[8];

	fmt_time(ev->t, t);
	fmt_time(l->d, d);
	fmt_time(l->d + l->c, e);
	snprintf(l->pend_what, sizeof(l->pend_what), "node %u left its "
	    "state at %s (%s ldr=%s to %s ldr=%s%s%.*s), which had to hold "
	    "from %s, c after %s at %s", nd->id, t,
	    trace_status_name(w->prev_status), world_id(w->prev_ldr, a),
	    trace_status_name(nd->status), world_id(nd->ldr, b),
	    grouped(l) ? " grp=" : "",
	    grouped(l) ? (int)(nd->grplen > 40 ? 40 : nd->grplen) : 0,
	    nd->grp, e, since_what(l), d);
	l->pend = 1;
	l->pend_t = ev->t;
	if (l->skew == 0) {
		check_violation(out, ev, "%s", l->pend_what);
		l->reported = 1;
		l->pend = 0;
	}
}

/*
 * Whether EV, which changes CHANGED (W_ bits), disturbs the period, for
 * each assertion.  A boot is no failure for gm2, but one that brings up a
 * flaky link starts a failure of the environment.
 */
static int
disturbing(const struct live *l, unsigned changed,
    const struct trace_event *ev)
{
	if (changed & (W_NET | W_PAUSE))
		return 1;
	if (!(changed & W_UP))
		return 0;
	return l->kind != GM2 || ev->type != TR_BOOT ||
	    world_flaky_to_up(l->w, ev->node);
}

static int
disturbs(const struct live *l, const struct trace_event *ev)
{
	return disturbing(l, l->w->changed, ev);
}

/*
 * Whether EV, not yet taken in, will end the period at its own time.
 * Without skew the lines are in the order of events, so a period that
 * ends exactly c after it began lasted c: what the lines before EV left
 * is the state at its end.
 */
static int
ends_at(const struct live *l, const struct trace_event *ev)
{
	if (l->skew > 0 || !(EVENTS & 1u << ev->type))
		return 0;
	return disturbing(l, world_would(l->w, ev), ev);
}

/* For the pairs of witness(): when U's state alone became what it is,
 * and whether U and V are in the same class (agree). */
static trace_time
pair_key(const struct live *l, const struct wnode *u)
{
	trace_time s = max2(max2(u->t_up, u->t_norm), u->t_ldr);

	return l->kind == GM4 ? max2(s, u->t_grp) : s;
}

static int
pair_agree(const struct live *l, const struct wnode *u, const struct wnode *v)
{
	return u->ldr == v->ldr && (l->kind == GM2 || world_grp_eq(u, v));
}

/*
 * Where every two Norm nodes count (gm2, or gm4 with every link up): the
 * pair of witness() in linear time, not by trying every pair.  The least
 * max(key u, key v) over two that disagree is the key of the first node,
 * by key, that disagrees with a node of the least key; the pair reported
 * is the first, in the order of l->up, that reaches it.  Returns whether
 * there is one, in *I and *J.
 */
static int
pair_fast(struct live *l, unsigned n, unsigned *pi, unsigned *pj)
{
	const struct world *w = l->w;
	const struct wnode *a = NULL, *u;
	trace_time m = 0;
	unsigned i, j, last = UINT32_MAX, *next = l->part;
	int have = 0, mixed = 0;

	for (i = 0; i < n; i++) {
		u = &w->node[l->up[i]];
		if (u->status == ST_NORM && (a == NULL ||
		    pair_key(l, u) < pair_key(l, a)))
			a = u;
	}
	for (i = 0; i < n && a != NULL; i++) {
		u = &w->node[l->up[i]];
		if (u->status == ST_NORM && !pair_agree(l, u, a) &&
		    (!have || pair_key(l, u) < m)) {
			m = pair_key(l, u);
			have = 1;
		}
	}
	if (!have)
		return 0;
	/* The first node with a later one of key m at most that disagrees
	 * with it: from the end, whether what follows is all alike. */
	for (i = n; i-- > 0;) {
		u = &w->node[l->up[i]];
		next[i] = 0;
		if (u->status != ST_NORM || pair_key(l, u) > m)
			continue;
		if (last != UINT32_MAX) {
			if (!mixed && !pair_agree(l, u, &w->node[l->up[last]]))
				mixed = 1;
			next[i] = (unsigned)mixed;
		}
		last = i;
	}
	for (i = 0; i < n && next[i] != 1; i++)
		;
	u = &w->node[l->up[i]];
	for (j = i + 1; j < n; j++) {
		const struct wnode *v = &w->node[l->up[j]];

		if (v->status == ST_NORM && pair_key(l, v) <= m &&
		    !pair_agree(l, u, v))
			break;
	}
	*pi = i;
	*pj = j;
	return 1;
}

/*
 * Eventually: the earliest witness that P is false, if any.  A witness
 * is a node (or two) whose state alone falsifies P; it holds since the
 * latest change among the parts of their state it rests on.  Returns
 * whether P is false; *SINCE is the earliest witness's start, and WHY
 * (unless NULL) says what it is.
 */
static int
witness(struct live *l, trace_time *since, char *why, size_t len)
{
	const struct world *w = l->w;
	unsigned n, i, j;
	size_t words = 0;
	int found = 0;

#define FOUND(t, ...) do {						\
		if (!found || (t) < *since) {				\
			*since = (t);					\
			if (why != NULL)				\
				snprintf(why, len, __VA_ARGS__);	\
		}							\
		found = 1;						\
	} while (0)

	n = graph(l, &words);
	for (i = 0; i < n; i++) {
		const struct wnode *u = &w->node[l->up[i]];
		int li = world_find(w, u->ldr);
		trace_time s = max2(u->t_up, u->t_norm);

		if (u->status != ST_NORM) {
			FOUND(s, "node %u is %s", u->id,
			    trace_status_name(u->status));
			continue;
		}
		s = max2(s, u->t_ldr);
		if (u->ldr == 0)
			FOUND(s, "node %u has no leader", u->id);
		else if (li < 0 || !w->node[li].up)
			FOUND(max2(s, li < 0 ? 0 : w->node[li].t_up),
			    "node %u follows %u, which is down", u->id, u->ldr);
		else if (l->kind == GM4 && u->ldr != u->id &&
		    !world_linked(w, l->up[i], li))
			FOUND(s, "node %u follows %u, which it is not "
			    "connected to", u->id, u->ldr);
	}
	/* Two Norm nodes that disagree: any two for gm2, linked for gm4. */
	if ((l->kind == GM2 || w->cut == NULL) && pair_fast(l, n, &i, &j)) {
		const struct wnode *u = &w->node[l->up[i]];
		const struct wnode *v = &w->node[l->up[j]];

		if (u->ldr != v->ldr)
			FOUND(max2(pair_key(l, u), pair_key(l, v)),
			    "nodes %u and %u%s follow %u and %u", u->id, v->id,
			    l->kind == GM4 ? ", connected," : "", u->ldr,
			    v->ldr);
		else
			FOUND(max2(pair_key(l, u), pair_key(l, v)),
			    "nodes %u and %u, connected, follow %u in "
			    "different groups", u->id, v->id, u->ldr);
	}
	for (i = 0; (l->kind == GM4 && w->cut != NULL) && i < n; i++) {
		const struct wnode *u = &w->node[l->up[i]];

		if (u->status != ST_NORM)
			continue;
		for (j = i + 1; j < n; j++) {
			const struct wnode *v = &w->node[l->up[j]];
			trace_time s;

			if (v->status != ST_NORM)
				continue;
			if (l->kind == GM4 &&
			    !BIT_ISSET(l->adj + (size_t)i * words, j))
				continue;
			if (u->ldr == v->ldr &&
			    (l->kind == GM2 || world_grp_eq(u, v)))
				continue;
			s = max2(max2(max2(u->t_up, u->t_norm), u->t_ldr),
			    max2(max2(v->t_up, v->t_norm), v->t_ldr));
			if (l->kind == GM4)
				s = max2(s, max2(u->t_grp, v->t_grp));
			if (u->ldr != v->ldr)
				FOUND(s, "nodes %u and %u%s follow %u and %u",
				    u->id, v->id, l->kind == GM4 ?
				    ", connected," : "", u->ldr, v->ldr);
			else
				FOUND(s, "nodes %u and %u, connected, follow "
				    "%u in different groups", u->id, v->id,
				    u->ldr);
		}
	}
#undef FOUND
	return found;
}

/*
 * The witnesses changed.  The stretch goes on if one of them reaches back
 * to where the stretch is surely covered; else a new one starts.  Either
 * way some witness holds from cov on, so cov follows time (less the skew).
 */
static void
restretch(struct live *l, trace_time t, int reset)
{
	trace_time since = 0;

	if (l->bad)
		l->cov = max2(l->cov, t - l->skew);	/* advance may not have */

	if (!witness(l, &since, NULL, 0)) {
		l->bad = 0;
		l->reported = 0;
		return;
	}
	if (!reset && l->bad && since <= l->cov)
		return;
	l->bad = 1;
	l->b = max2(l->d, since);
	l->cov = l->b;
	l->reported = 0;
}

static void
stretch_report(struct live *l, const struct trace_event *ev,
    struct check_out *out)
{
	char b[32], e[32];
	trace_time since;

	/* Nothing changed since the last restretch: the same witnesses. */
	witness(l, &since, l->why, sizeof(l->why));
	l->reported = 1;
	check_violation(out, ev, "%s from %s to %s (c), %s: %s",
	    l->kind == GM2 ? "no coordinator" :
	    "a maximal pairwise-connected set without one coordinator",
	    fmt_time(l->b, b), fmt_time(l->b + l->c, e),
	    l->kind == GM2 ? "with no failure" : "with the system stable",
	    l->why);
}

static void
take(struct live *l, const struct trace_event *ev, struct check_out *out)
{
	const struct world *w = l->w;
	unsigned keys = D_STATUS | D_LDR | (grouped(l) ? D_GRP : 0);

	if (!l->begun || disturbs(l, ev)) {
		l->d = l->q = l->begun ? ev->t : w->first;
		l->begun = 1;
		l->d_msg = 0;
		l->stable = !world_unstable(w);
		l->reported = l->pend = l->judged = 0;
		if (!settling(l) && l->stable)
			restretch(l, ev->t, 1);
		else
			l->bad = 0;
		return;
	}
	if (!l->stable || !(w->changed & (W_UP | W_STATE)))
		return;
	if (!settling(l)) {
		restretch(l, ev->t, 0);
		return;
	}
	if (!(w->diff & keys))
		return;
	l->q = ev->t;
	l->judged = 0;
	if (!l->reported && !l->pend && ev->t > l->d + l->c + l->skew)
		changed(l, ev, out);
}

static void	rewake(const struct live *, struct check_out *);

static void	evidence_in(struct live *, const struct trace_event *,
		    struct check_out *);

static void
live_event(void *st, const struct trace_event *ev, struct check_out *out)
{
	evidence_in(st, ev, out);
	take(st, ev, out);
	rewake(st, out);
}

/* When the next thing falls due, so that advance comes no earlier. */
static void
rewake(const struct live *l, struct check_out *out)
{
	trace_time t = INT64_MAX;

	if (l->stable && !l->reported) {
		if (!settling(l)) {
			if (l->bad)
				t = l->b + l->c + l->skew;
		} else if (l->pend)
			t = l->pend_t + l->skew;
		else if (!l->judged)
			t = max2(l->q, l->d + l->c) + l->skew;
	}
	check_wake(out, t);
}

/*
 * Time has come to EV's: judge what fell due.  Before a line, a deadline
 * has passed only if the line is later, or if the line ends the period
 * at the deadline itself; at the end of the trace (AT_END) the last
 * line's time itself counts, and a change that waited out the skew is
 * certain, since nothing came after it.
 */
static void
due(struct live *l, const struct trace_event *ev, trace_time t, int closing,
    int at_end, struct check_out *out)
{
	trace_time by;

	if (!l->stable || l->reported)
		return;
	if (!settling(l)) {
		if (!l->bad)
			return;
		l->cov = max2(l->cov, t - l->skew);
		by = l->b + l->c;
		if (l->cov > by || (closing && l->cov == by))
			stretch_report(l, ev, out);
		return;
	}
	if (l->pend) {
		if (at_end || t - l->pend_t > l->skew) {
			check_violation(out, ev, "%s", l->pend_what);
			l->reported = 1;
			l->pend = 0;
		}
		return;
	}
	by = max2(l->q, l->d + l->c) + l->skew;
	if (!l->judged && (t > by || (closing && t == by)))
		judge_now(l, ev, out);
}

/*
 * Evidence that a message did not arrive in time (check/msgs.h) is a
 * failure of the environment at the instant it became certain, its send
 * plus the bound: what fell due before it is judged first, then a new
 * period begins there.
 */
static void
evidence_in(struct live *l, const struct trace_event *ev,
    struct check_out *out)
{
	const struct msgs *m = &l->w->msgs;
	trace_time f = m->fail;

	if (!l->begun || f == TIME_MIN || f <= l->d)
		return;
	due(l, ev, f, 0, 0, out);
	l->d = f;
	l->q = max2(l->q, f);
	l->d_msg = 1;
	l->d_rec = m->last;
	l->stable = !world_unstable(l->w);
	l->reported = l->pend = l->judged = 0;
	if (!settling(l) && l->stable)
		restretch(l, f, 1);
	else
		l->bad = 0;
}

static void
live_advance(void *st, const struct trace_event *ev, struct check_out *out)
{
	struct live *l = st;

	evidence_in(l, ev, out);
	due(l, ev, ev->t, ends_at(l, ev), 0, out);	/* T itself counts */
	rewake(l, out);
}

static void
live_finish(void *st, const struct trace_event *last, struct check_out *out)
{
	struct live *l = st;

	evidence_in(l, last, out);
	due(l, last, last->t, 1, 1, out);
}

static void
live_free(void *st)
{
	struct live *l = st;

	free(l->up);
	free(l->adj);
	free(l->part);
	free(l->comp);
	free(l);
}

static void *
init(const struct check_opts *o, enum kind kind)
{
	struct live *l;

	if ((l = calloc(1, sizeof(*l))) == NULL)
		err(2, NULL);
	l->kind = kind;
	l->w = o->world;
	l->c = o->c;
	l->skew = o->skew;
	l->budget = o->cover_budget ? o->cover_budget : COVER_BUDGET;
	return l;
}

#define INIT(fn, kind) static void *fn(const struct check_opts *o) \
	{ return init(o, kind); }
INIT(sle2_init, SLE2)
INIT(ale2w_init, ALE2W)
INIT(ale2_init, ALE2)
INIT(gm4s_init, GM4S)
INIT(gm2_init, GM2)
INIT(gm4_init, GM4)

#define LIVE(name, init) { name, init, live_event, live_finish, live_free, \
	live_advance, EVENTS, NULL, 0, 0 }
const struct check_ops check_sle2 = LIVE("sle2", sle2_init);
const struct check_ops check_ale2w = LIVE("ale2w", ale2w_init);
const struct check_ops check_ale2 = LIVE("ale2", ale2_init);
const struct check_ops check_gm4s = LIVE("gm4s", gm4s_init);
const struct check_ops check_gm2 = LIVE("gm2", gm2_init);
const struct check_ops check_gm4 = LIVE("gm4", gm4_init);
