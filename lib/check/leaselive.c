/*
 * Nerio's liveness: Leader Stability (4) and Eventual Election (5).
 *
 * Both hold after an unknown global stabilisation time GST; elect-check
 * takes GST to be at most c (-c) after the last failure: a boot, crash,
 * exit, pause, resume, net line, a node seen up without a boot, or the
 * start of the trace.  A failure on another host may be up to the skew
 * bound later than its time says.
 *
 * stability: a leadership that ends more than c after the last failure
 * before it violates (4), unless it ends because its node went down.  A
 * leader that gives its lease up (lead until<=clock) is excused when it
 * exits, crashes or reboots within c afterwards: that is how a node hands
 * over on purpose.  The end of a leadership counts at its earliest; it is
 * known from a line of its node (a sample past until=, a late renewal),
 * or, for a leader that falls silent, at the end of the trace from the
 * drift bound.
 *
 * election: while a quorum of the cluster is up and running (not paused)
 * and every link is up, a node must lead within c of the last failure or
 * of the end of the last leadership, whichever is later.
 *
 * For both, a message overdue (check/msgs.h) is a failure at the instant
 * that became certain: Nerio's properties hold only after GST, once
 * latencies are bounded by d.
 */
#include <stdlib.h>
#include <string.h>

#include "check/lease.h"

struct sloss {
	size_t		 node;
	struct lw_span	 span;		/* the leadership that ended */
	trace_time	 due;		/* decided once the trace passes it */
};

struct stab {
	struct lw	*w;
	trace_time	 c;
	struct sloss	*loss;
	size_t		 nloss, cap;
	uint64_t	*seen;		/* per node: the last leadership lost */
	size_t		 seencap;
};

static void *
stab_init(const struct check_opts *o)
{
	struct stab *s;

	if ((s = calloc(1, sizeof(*s))) != NULL) {
		s->w = o->model;
		s->c = o->c;
	}
	return s;
}

static void
stab_free(void *arg)
{
	struct stab *s = arg;

	free(s->loss);
	free(s->seen);
	free(s);
}

/* Leadership SPAN of node I has ended (once). */
static void
stab_lost(struct stab *s, size_t i, const struct lw_span *span)
{
	struct sloss *l;

	while (s->seencap < s->w->ids.n) {
		uint64_t *p = array_grow(s->seen, &s->seencap, sizeof(*p));

		if (p == NULL) {
			s->w->nomem = 1;
			return;
		}
		s->seen = p;
	}
	if (s->seen[i] == span->gen)
		return;
	s->seen[i] = span->gen;
	if (span->why != LW_LAPSE && span->why != LW_RELEASE)
		return;
	if (s->nloss == s->cap) {
		if ((l = array_grow(s->loss, &s->cap, sizeof(*l))) == NULL) {
			s->w->nomem = 1;
			return;
		}
		s->loss = l;
	}
	l = &s->loss[s->nloss++];
	l->node = i;
	l->span = *span;
	/* A lapse waits for failures stamped up to a skew later; a release
	 * for the exit that would excuse it. */
	if (span->why == LW_LAPSE)
		l->due = time_add(span->hi.t, s->w->skew);
	else
		l->due = time_add(span->lo.t, s->c);
}

/* At the end of the trace: leaderships whose clock has surely run out,
 * drift and all, though no line of their node said so.  (Before the end,
 * a later sample may still show a slow clock, and it is the one to say.) */
static void
stab_lapsed(struct stab *s)
{
	struct lw_span span;
	size_t j;

	for (j = 0; j < s->w->nlive; j++) {
		size_t i = s->w->live[j];
		const struct lw_node *n = &s->w->node[i];

		if (!n->lead.on)
			continue;
		span = n->lead;
		lw_end(s->w, n, &n->lead, &span.lo, &span.hi);
		if (span.hi.t >= s->w->now.t)
			continue;
		span.on = 0;
		span.nominal = lw_nominal(n, &n->lead);
		span.why = LW_LAPSE;
		stab_lost(s, i, &span);
	}
}

/* 1: a violation; 0: none; -1: not known yet. */
static int
stab_decide(struct stab *s, const struct sloss *l, trace_time *fail)
{
	trace_time now = s->w->now.t;

	if (l->span.why == LW_LAPSE ? now < l->due : now <= l->due)
		return -1;
	if (!lw_fail_before(s->w, time_add(l->span.hi.t, s->w->skew), fail))
		return 0;
	return l->span.lo.t > time_add(time_add(*fail, s->w->skew), s->c);
}

static void
stab_judge(struct stab *s, const struct trace_event *ev, struct check_out *out)
{
	char b[2][TIME_BUFLEN];
	trace_time fail;
	size_t j;

	for (j = 0; j < s->nloss; ) {
		struct sloss *l = &s->loss[j];
		int r = -1;

		if (l->span.why == LW_RELEASE && ev->node ==
		    s->w->node[l->node].id && (ev->type == TR_EXIT ||
		    ev->type == TR_CRASH || ev->type == TR_BOOT))
			r = 0;
		else if ((r = stab_decide(s, l, &fail)) == 1)
			check_violation(out, ev, "node %u stopped leading at "
			    "%s (%s) with no failure since %s",
			    s->w->node[l->node].id, time_str(b[0],
			    l->span.nominal), l->span.why == LW_LAPSE ?
			    "its lease ran out" : "it gave its lease up",
			    time_str(b[1], fail));
		if (r >= 0)
			*l = s->loss[--s->nloss];
		else
			j++;
	}
}

static void
stab_event(void *arg, const struct trace_event *ev, struct check_out *out)
{
	struct stab *s = arg;
	size_t c;

	if (s->w->quiet)
		return;
	for (c = 0; c < s->w->nch; c++)
		if (s->w->ch[c].what == LW_LEAD_END)
			stab_lost(s, s->w->ch[c].node, &s->w->ch[c].span);
	stab_judge(s, ev, out);
	/* Without a loss to decide, a calm line has nothing to judge. */
	check_calm(out, s->nloss == 0 ? TIME_MAX : TIME_MIN);
}

static void
stab_finish(void *arg, const struct trace_event *last, struct check_out *out)
{
	struct stab *s = arg;

	stab_lapsed(s);
	stab_judge(s, last, out);
	lw_finish(s->w, last, out);
}

const struct check_ops check_stability = {
	.name = "stability",
	.init = stab_init,
	.event = stab_event,
	.finish = stab_finish,
	.free = stab_free,
	.model = &lw_model,
};

struct elect {
	struct lw	*w;
	trace_time	 c;
	trace_time	 ended;		/* the last leadership ended by then */
	int		 said;		/* reported since the last change */
	/* As the lines so far leave it: no leader is overdue until the
	 * trace passes `at' (TIME_MAX: none is due), and if it does, none
	 * led from `from' to `due' while `running' of `size' nodes ran. */
	trace_time	 at, from, due;
	unsigned	 running, size;
	size_t		*leading;	/* nodes whose leadership runs */
	size_t		 nleading, leadcap;
};

static void *
elect_init(const struct check_opts *o)
{
	struct elect *e;

	if ((e = calloc(1, sizeof(*e))) != NULL) {
		e->w = o->model;
		e->c = o->c;
		e->ended = TIME_MIN;
		e->at = TIME_MAX;
	}
	return e;
}

/* When, for every ordering within the skew bound, the cluster as the
 * lines so far leave it will have been without a leader for too long.
 * Only a line can change that: it is worked out again after each line
 * that changed the lease world. */
static void
elect_due(struct elect *e, trace_time upto)
{
	const struct lw *w = e->w;
	trace_time from, fail;
	struct inst lo, hi;
	size_t j;

	e->at = TIME_MAX;
	if (!w->started || e->said || !lw_can_elect(w))
		return;
	if (!lw_fail_before(w, upto, &fail))
		fail = lw_last_fail(w);
	from = e->ended > fail ? e->ended : fail;
	for (j = 0; j < e->nleading; j++) {
		const struct lw_node *n = &w->node[e->leading[j]];

		lw_end(w, n, &n->lead, &lo, &hi);
		if (hi.t > from)
			from = hi.t;
	}
	e->from = time_add(from, w->skew);
	e->due = time_add(e->from, e->c);
	e->at = time_add(e->due, w->skew);
	e->running = w->running;
	e->size = lw_size(w);
}

/* Node I's leadership begins (ON) or ends. */
static void
elect_leading(struct elect *e, size_t i, int on)
{
	size_t j;

	for (j = 0; j < e->nleading && e->leading[j] != i; j++)
		;
	if (!on) {
		if (j < e->nleading)
			e->leading[j] = e->leading[--e->nleading];
		return;
	}
	if (j < e->nleading)
		return;
	if (e->nleading == e->leadcap) {
		size_t *l = array_grow(e->leading, &e->leadcap, sizeof(*l));

		if (l == NULL) {
			e->w->nomem = 1;
			return;
		}
		e->leading = l;
	}
	e->leading[e->nleading++] = i;
}

static void
elect_event(void *arg, const struct trace_event *ev, struct check_out *out)
{
	struct elect *e = arg;
	char b[2][TIME_BUFLEN];
	int again = 0;
	size_t c;

	/* A message found overdue at this line failed before it: the
	 * deadline is worked out again with it, and the failures before. */
	if (e->w->msg_new && e->at != TIME_MAX &&
	    e->w->msg_fail <= time_add(e->due, e->w->skew))
		elect_due(e, e->w->now.t);
	/* Judged on the world before this line, which only moved time on. */
	if (e->w->now.t > e->at) {
		check_violation(out, ev, "no leader from %s to %s, with %u of "
		    "%u node%s running and every link up", time_str(b[0],
		    e->from), time_str(b[1], e->due), e->running, e->size,
		    PLURAL(e->size));
		e->said = 1;
		again = 1;
	}
	for (c = 0; c < e->w->nch; c++) {
		const struct lw_change *ch = &e->w->ch[c];

		if (ch->what == LW_LEAD_END && ch->span.hi.t > e->ended)
			e->ended = ch->span.hi.t;
		if (ch->what == LW_LEAD_START || ch->what == LW_FAIL)
			e->said = 0;
		if (ch->what == LW_LEAD_START || ch->what == LW_LEAD_END)
			elect_leading(e, ch->node, ch->what == LW_LEAD_START);
		/* A sample matters when it bounds the end of a leadership. */
		if (ch->what != LW_SAMPLE || e->w->node[ch->node].lead.on)
			again = 1;
	}
	if (again)
		elect_due(e, TIME_MAX);
	/* A calm line only moves time on: nothing until it passes at. */
	check_calm(out, e->at == TIME_MAX ? TIME_MAX : e->at + 1);
}

static void
elect_finish(void *arg, const struct trace_event *last, struct check_out *out)
{
	struct elect *e = arg;

	lw_finish(e->w, last, out);
}

static void
elect_free(void *arg)
{
	struct elect *e = arg;

	free(e->leading);
	free(e);
}

const struct check_ops check_election = {
	.name = "election",
	.init = elect_init,
	.event = elect_event,
	.finish = elect_finish,
	.free = elect_free,
	.model = &lw_model,
};
