/*
 * The safety assertions: at no instant may two up nodes that each consider
 * the election over disagree on the leader.
 *
 *   sle1  Stoller's SLE1: up nodes with status Norm agree on ldr.
 *   gm1   Garcia-Molina's Assertion 1 (a): nodes in Reorg or Norm agree on
 *         the coordinator (a crashed node's status is Down).
 *   ale1  Stoller's ALE1: up Norm nodes with the same grp agree on ldr.
 *   gm3   Garcia-Molina's Assertion 3 (a): nodes in Reorg or Norm with the
 *         same group agree on the coordinator.
 *
 * A node holds a role from the line that gives it to the line that ends
 * it.  A node its daemon vetoes (misfit lead=no: live peers disagree with
 * its configuration) holds none, whatever its core's state: it leads
 * nothing and follows no one.  With --skew S, lines of two nodes may be misordered by up to S, so
 * roles [s1, e1) and [s2, e2) of two nodes surely overlap only when
 * e2 - s1 > S and e1 - s2 > S; such a pair waits until that is known.
 * One violation is reported per episode: until no conflict is left.
 * For sle1 and gm1, made in the synchronous model, a conflict that meets
 * a message later than the bound (check/msgs.h) is reported not judged.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/world.h"
#include "util/idmap.h"

#define PEND_MAX	4096	/* pairs waiting for the skew at once */
#define ONGOING		INT64_MAX

enum kind { SLE1, GM1, ALE1, GM3 };

struct role {
	int		 active;
	unsigned	 ldr;
	trace_time	 since;
};

struct pend {
	int		 i, j;		/* node indices; i started last */
	trace_time	 si, sj, ei, ej;
	enum trace_status sti, stj;
	unsigned	 li, lj;
};

struct safety {
	enum kind	 kind;
	const struct world *w;
	trace_time	 skew;
	struct role	*r;
	unsigned	 nr;
	int		 episode;	/* a reported conflict still holds */
	struct pend	*p;		/* grown as pairs wait, to PEND_MAX */
	size_t		 np, pcap;
	int		 overflow;	/* a pair could not wait: undecided */
};

static int
grouped(const struct safety *s)
{
	return s->kind == ALE1 || s->kind == GM3;
}

static int
active(const struct safety *s, const struct wnode *nd)
{
	if (!nd->up || nd->vetoed)
		return 0;
	if (s->kind == GM1 || s->kind == GM3)
		return nd->status == ST_NORM || nd->status == ST_REORG;
	return nd->status == ST_NORM;
}

/* Whether nodes I and J, as the world has them now, conflict. */
static int
conflict(const struct safety *s, int i, int j)
{
	const struct wnode *a = &s->w->node[i], *b = &s->w->node[j];

	return i != j && s->r[i].active && s->r[j].active &&
	    a->ldr != b->ldr && (!grouped(s) || world_grp_eq(a, b));
}

static int
any_conflict(const struct safety *s)
{
	unsigned i, j;

	for (i = 0; i < s->w->n; i++)
		for (j = i + 1; j < s->w->n; j++)
			if (conflict(s, (int)i, (int)j))
				return 1;
	return 0;
}

static const char *
what(const struct safety *s)
{
	switch (s->kind) {
	case SLE1:
		return "are both Norm but follow different leaders";
	case ALE1:
		return "are both Norm in the same group but follow different "
		    "leaders";
	case GM1:
		return "disagree on the coordinator";
	default:
		return "are in the same group but disagree on the coordinator";
	}
}

static void
report(struct safety *s, const struct trace_event *ev, const struct pend *p,
    struct check_out *out)
{
	const struct world *w = s->w;
	char since[32], grp[64] = "", li[8], lj[8];

	trace_time start = p->si > p->sj ? p->si : p->sj;
	const struct mrec *late = NULL;
	char lr[96];

	if (s->episode)
		return;
	s->episode = 1;
	trace_format_time(start, since, sizeof(since));
	if (grouped(s) && p->ei == ONGOING && p->ej == ONGOING)
		snprintf(grp, sizeof(grp), " (group %.*s)",
		    (int)(w->node[p->i].grplen > 40 ? 40 :
		    w->node[p->i].grplen), w->node[p->i].grp);
	/*
	 * The synchronous model bounds every message's delay: a conflict
	 * while a message to one of the two was later than that lies outside
	 * it, and the assertion is not judged there (never holds).
	 */
	if ((s->kind == SLE1 || s->kind == GM1) &&
	    (msgs_late_since(&w->msgs, p->i, start, &late) ||
	    msgs_late_since(&w->msgs, p->j, start, &late))) {
		check_notjudged(out, ev, "nodes %u (%s, ldr=%s) and %u (%s, "
		    "ldr=%s) %s at %s, while a message to node %u (%s) was "
		    "later than the bound of the synchronous model",
		    w->node[p->j].id, trace_status_name(p->stj),
		    world_id(p->lj, lj), w->node[p->i].id,
		    trace_status_name(p->sti), world_id(p->li, li), what(s),
		    since, late->to, msgs_str(late, lr, sizeof(lr)));
		return;
	}
	check_violation(out, ev, "nodes %u (%s, ldr=%s) and %u (%s, ldr=%s) "
	    "%s%s at %s", w->node[p->j].id, trace_status_name(p->stj),
	    world_id(p->lj, lj), w->node[p->i].id, trace_status_name(p->sti),
	    world_id(p->li, li), what(s), grp, since);
}

static void
pend_del(struct safety *s, size_t k)
{
	s->p[k] = s->p[--s->np];
}

/* Time has come to T: pairs still together for longer than the skew. */
static void
settle(struct safety *s, const struct trace_event *ev, trace_time t,
    struct check_out *out)
{
	size_t k = 0;

	while (k < s->np) {
		struct pend *p = &s->p[k];
		trace_time start;

		if (p->ei == ONGOING && p->ej == ONGOING)
			start = p->si > p->sj ? p->si : p->sj;
		else
			start = p->ei == ONGOING ? p->sj : p->si;
		if (t - start > s->skew) {
			report(s, ev, p, out);
			pend_del(s, k);
		} else
			k++;
	}
}

/* Node I's role ended at T: its pairs either become certain or never. */
static void
ended(struct safety *s, int i, trace_time t, const struct trace_event *ev,
    struct check_out *out)
{
	size_t k = 0;

	while (k < s->np) {
		struct pend *p = &s->p[k];
		trace_time *e, *oe, os, ms;

		if (p->i == i && p->ei == ONGOING) {
			e = &p->ei, oe = &p->ej, os = p->sj, ms = p->si;
		} else if (p->j == i && p->ej == ONGOING) {
			e = &p->ej, oe = &p->ei, os = p->si, ms = p->sj;
		} else {
			k++;
			continue;
		}
		*e = t;
		if (t - os <= s->skew) {
			pend_del(s, k);		/* may not have overlapped */
			continue;
		}
		if (*oe != ONGOING) {
			if (*oe - ms > s->skew)
				report(s, ev, p, out);
			pend_del(s, k);
			continue;
		}
		k++;
	}
}

static void
started(struct safety *s, int i, trace_time t, const struct trace_event *ev,
    struct check_out *out)
{
	const struct world *w = s->w;
	unsigned j;

	for (j = 0; j < w->n; j++) {
		struct pend p;

		if (!conflict(s, i, (int)j))
			continue;
		memset(&p, 0, sizeof(p));
		p.i = i;
		p.j = (int)j;
		p.si = t;
		p.sj = s->r[j].since;
		p.ei = p.ej = ONGOING;
		p.sti = w->node[i].status;
		p.stj = w->node[j].status;
		p.li = w->node[i].ldr;
		p.lj = w->node[j].ldr;
		if (s->skew == 0) {
			report(s, ev, &p, out);
			return;
		}
		if (s->np == PEND_MAX) {
			s->overflow = 1;
			continue;
		}
		if (s->np == s->pcap) {
			struct pend *np = array_grow(s->p, &s->pcap, sizeof(*np));

			if (np == NULL)
				err(2, NULL);
			s->p = np;
		}
		s->p[s->np++] = p;
	}
}

/* The first time a waiting pair can become certain. */
static void
rewake(const struct safety *s, struct check_out *out)
{
	trace_time t = INT64_MAX;
	size_t k;

	for (k = 0; k < s->np; k++) {
		const struct pend *p = &s->p[k];
		trace_time start;

		if (p->ei == ONGOING && p->ej == ONGOING)
			start = p->si > p->sj ? p->si : p->sj;
		else
			start = p->ei == ONGOING ? p->sj : p->si;
		if (start + s->skew < t)
			t = start + s->skew;
	}
	check_wake(out, t);
}

static void
safety_event(void *st, const struct trace_event *ev, struct check_out *out)
{
	struct safety *s = st;
	const struct world *w = s->w;
	const struct wnode *nd;
	struct role *r, nr;
	unsigned keys = D_LDR | (grouped(s) ? D_GRP : 0);

	if (w->cur < 0 || !(w->changed & (W_UP | W_STATE)))
		return;
	if ((s->r = world_grow(s->r, &s->nr, w, sizeof(*s->r))) == NULL)
		err(2, NULL);
	nd = &w->node[w->cur];
	r = &s->r[w->cur];
	nr.active = active(s, nd);
	nr.ldr = nd->ldr;
	nr.since = ev->t;
	if (nr.active == r->active && (!nr.active || !(w->diff & keys)))
		return;
	if (r->active && s->skew > 0)
		ended(s, w->cur, ev->t, ev, out);
	*r = nr;
	if (s->episode && !any_conflict(s))
		s->episode = 0;
	if (r->active)
		started(s, w->cur, ev->t, ev, out);
	rewake(s, out);
}

static void
safety_advance(void *st, const struct trace_event *ev, struct check_out *out)
{
	struct safety *s = st;

	if (s->np > 0)
		settle(s, ev, ev->t, out);
	rewake(s, out);
}

static void
safety_finish(void *st, const struct trace_event *last, struct check_out *out)
{
	struct safety *s = st;

	/* Pairs still waiting overlap by less than the skew: not certain.
	 * A pair let go might have been certain. */
	if (s->overflow)
		check_undecided(out, last, "more than %d pairs of nodes in "
		    "conflict waited on the skew at once", PEND_MAX);
}

static void
safety_free(void *st)
{
	struct safety *s = st;

	free(s->r);
	free(s->p);
	free(s);
}

static void *
init(const struct check_opts *o, enum kind kind)
{
	struct safety *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		err(2, NULL);
	s->kind = kind;
	s->w = o->world;
	s->skew = o->skew;
	return s;
}

static void *
sle1_init(const struct check_opts *o)
{
	return init(o, SLE1);
}

static void *
gm1_init(const struct check_opts *o)
{
	return init(o, GM1);
}

static void *
ale1_init(const struct check_opts *o)
{
	return init(o, ALE1);
}

static void *
gm3_init(const struct check_opts *o)
{
	return init(o, GM3);
}

#define SAFETY(name, init) { name, init, safety_event, safety_finish, \
	safety_free, safety_advance, \
	1u << TR_BOOT | 1u << TR_CRASH | 1u << TR_EXIT | 1u << TR_STATE | \
	1u << TR_MISFIT, NULL, 0, 0 }
const struct check_ops check_sle1 = SAFETY("sle1", sle1_init);
const struct check_ops check_gm1 = SAFETY("gm1", gm1_init);
const struct check_ops check_ale1 = SAFETY("ale1", ale1_init);
const struct check_ops check_gm3 = SAFETY("gm3", gm3_init);
