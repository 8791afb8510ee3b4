/*
 * Shrinking a failing run: its schedule is written out as events, then
 * made smaller step by step (a fault and its repair taken out, a run-long
 * fault turned off, the highest node taken out, the run cut short), each
 * step kept only if the run still fails an assertion it failed before,
 * until no step helps.  As in QuickCheck and TigerBeetle's VOPR, the
 * result is a local minimum, not the smallest run of all.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elect-sim.h"
#include "net/session.h"
#include "trace/trace.h"
#include "util/util.h"

#define TRIES_MAX	2000	/* runs one shrinking may take */

void
sim_conf_free(struct sim_conf *c)
{
	size_t i;

	for (i = 0; i < c->nev; i++)
		sched_free(&c->ev[i]);
	c->nev = 0;
}

void
sim_conf_copy(struct sim_conf *to, const struct sim_conf *from)
{
	size_t i;

	*to = *from;
	for (i = 0; i < to->nev; i++)
		if (from->ev[i].side != NULL) {
			if ((to->ev[i].side = malloc(from->n)) == NULL)
				err(1, NULL);
			memcpy(to->ev[i].side, from->ev[i].side, from->n);
		}
}

struct shrink {
	struct sim_verdict want;
	unsigned long	 tries;
};

/* Whether C fails an assertion that the original run failed. */
static int
fails(struct shrink *sh, const struct sim_conf *c)
{
	struct sim_verdict v;
	size_t i, j;

	if (sh->tries >= TRIES_MAX)
		return 0;
	sh->tries++;
	sim_check(c, NULL, NULL, &v, NULL);
	for (i = 0; i < v.n; i++)
		for (j = 0; j < sh->want.n; j++)
			if (v.kind[i] == sh->want.kind[j] &&
			    strcmp(v.name[i], sh->want.name[j]) == 0)
				return 1;
	return 0;
}

/* Takes CAND as the current run when it still fails; else frees it. */
static int
try(struct shrink *sh, struct sim_conf *cur, struct sim_conf *cand)
{
	if (!fails(sh, cand)) {
		sim_conf_free(cand);
		return 0;
	}
	sim_conf_free(cur);
	*cur = *cand;
	return 1;
}

static void
drop_event(struct sim_conf *c, size_t i)
{
	sched_free(&c->ev[i]);
	memmove(&c->ev[i], &c->ev[i + 1], (c->nev - i - 1) *
	    sizeof(c->ev[0]));
	c->nev--;
}

/* The event after I that repairs what I broke, or SIZE_MAX. */
static size_t
repair_of(const struct sim_conf *c, size_t i)
{
	const struct sched *s = &c->ev[i], *r;
	size_t j;

	for (j = i + 1; j < c->nev; j++) {
		r = &c->ev[j];
		switch (s->op) {
		case S_CRASH:
		case S_KILL:
		case S_LEAVE:
			if (r->op == S_BOOT && r->a == s->a)
				return j;
			break;
		case S_PAUSE:
			if (r->op == S_RESUME && r->a == s->a)
				return j;
			break;
		case S_MISCONF:
			if (r->op == S_MISCONF && r->a == s->a &&
			    r->b == SESS_OK)
				return j;
			break;
		case S_CUT:
			if (r->op == S_MEND && ((r->a == s->a && r->b == s->b) ||
			    (r->a == s->b && r->b == s->a)))
				return j;
			/* FALLTHROUGH */
		case S_PARTITION:
		case S_ONEWAY:
			if (r->op == S_HEAL)
				return j;
			break;
		default:
			return SIZE_MAX;
		}
	}
	return SIZE_MAX;
}

static int
is_fault(const struct sched *s)
{
	return s->op == S_CRASH || s->op == S_KILL || s->op == S_LEAVE ||
	    s->op == S_PAUSE || s->op == S_CUT || s->op == S_PARTITION ||
	    s->op == S_ONEWAY || s->op == S_RECONFIGURE ||
	    (s->op == S_MISCONF && s->b != SESS_OK);
}

static int
shrink_events(struct shrink *sh, struct sim_conf *cur)
{
	struct sim_conf cand;
	size_t i, j;
	int any = 0;

	for (i = cur->nev; i-- > 0;) {
		if (i >= cur->nev)
			continue;
		sim_conf_copy(&cand, cur);
		j = is_fault(&cand.ev[i]) ? repair_of(&cand, i) : SIZE_MAX;
		if (j != SIZE_MAX)
			drop_event(&cand, j);
		drop_event(&cand, i);
		any |= try(sh, cur, &cand);
	}
	return any;
}

/* The run-long faults, one at a time. */
static int
shrink_run(struct shrink *sh, struct sim_conf *cur)
{
	struct sim_conf cand;
	int k, any = 0;

	for (k = 0; k < 7; k++) {
		sim_conf_copy(&cand, cur);
		switch (k) {
		case 0: if (!cand.loss) goto skip; cand.loss = 0; break;
		case 1: if (!cand.dup) goto skip; cand.dup = 0; break;
		case 2: if (!cand.delay) goto skip; cand.delay = 0; break;
		case 3: if (!cand.reorder) goto skip; cand.reorder = 0; break;
		case 4: if (!cand.rho) goto skip; cand.rho = 0; break;
		case 5: if (!cand.offmax) goto skip; cand.offmax = 0; break;
		case 6: if (!cand.bootspread) goto skip; cand.bootspread = 0;
			break;
		}
		any |= try(sh, cur, &cand);
		continue;
skip:
		sim_conf_free(&cand);
	}
	return any;
}

/* Without node index X: its events go, later indices move down, and
 * partitions and epochs lose it (a partition goes when a side is left
 * empty, a change when no member is left). */
static void
drop_node(struct sim_conf *c, size_t x)
{
	struct sched *s;
	size_t i, k, l, r;

	for (i = c->nev; i-- > 0;) {
		s = &c->ev[i];
		if (s->op == S_PARTITION || s->op == S_ONEWAY) {
			memmove(s->side + x, s->side + x + 1, c->n - x - 1);
			for (k = l = r = 0; k < c->n - 1; k++) {
				l += s->side[k] == SIDE_L;
				r += s->side[k] == SIDE_R;
			}
			if (l == 0 || r == 0)
				drop_event(c, i);
		} else if (s->op == S_RECONFIGURE) {
			memmove(s->side + x, s->side + x + 1, c->n - x - 1);
			if (memchr(s->side, 1, c->n - 1) == NULL)
				drop_event(c, i);
		} else if (s->op != S_HEAL && sched_names(s, x))
			drop_event(c, i);
		else {
			s->a -= s->a > x;
			s->b -= s->b > x;
		}
	}
	memmove(c->ids + x, c->ids + x + 1, (c->n - x - 1) * sizeof(c->ids[0]));
	memmove(c->members0 + x, c->members0 + x + 1, c->n - x - 1);
	c->n--;
	if (c->epoch0 && memchr(c->members0, 1, c->n) == NULL)
		c->epoch0 = 0;		/* every host, as without -E */
}

static int
shrink_nodes(struct shrink *sh, struct sim_conf *cur)
{
	struct sim_conf cand;
	size_t x;
	int any = 0;

	/* Halving first, from the top: a failure of 500 nodes is often
	 * one of 5. */
	while (cur->n > 8) {
		sim_conf_copy(&cand, cur);
		while (cand.n > cur->n / 2)
			drop_node(&cand, cand.n - 1);
		if (!try(sh, cur, &cand))
			break;
		any = 1;
	}
	for (x = cur->n; x-- > 0;) {
		if (cur->n <= 1 || x >= cur->n)
			continue;
		sim_conf_copy(&cand, cur);
		drop_node(&cand, x);
		any |= try(sh, cur, &cand);
	}
	return any;
}

/* The shortest run that fails, to the tenth of a second. */
static int
shrink_time(struct shrink *sh, struct sim_conf *cur)
{
	struct sim_conf cand;
	algo_time lo = 0, hi = cur->dur, mid;
	size_t i;
	int any = 0;

	while (hi - lo > 100 * ALGO_MS) {
		mid = (lo + hi) / 2 / (100 * ALGO_MS) * (100 * ALGO_MS);
		if (mid <= lo)
			mid = lo + 100 * ALGO_MS;
		sim_conf_copy(&cand, cur);
		cand.dur = mid;
		for (i = cand.nev; i-- > 0;)
			if (cand.ev[i].at > mid)
				drop_event(&cand, i);
		if (try(sh, cur, &cand)) {
			hi = mid;
			any = 1;
		} else
			lo = mid;
	}
	return any;
}

static size_t
nfaults(const struct sim_conf *c)
{
	size_t i, k = 0;

	for (i = 0; i < c->nev; i++)
		k += is_fault(&c->ev[i]);
	return k;
}

int
sim_shrink(const struct sim_conf *c, struct sim_conf *out, int alone)
{
	static struct sim_conf cur;
	struct shrink sh;
	struct sim_result res;
	char t[32], names[512];
	size_t i, f0, n0;
	int round;

	memset(&sh, 0, sizeof(sh));
	memset(&res, 0, sizeof(res));
	res.quiet = 1;
	sim_check(c, NULL, NULL, &sh.want, &res);
	if (!sh.want.failed) {
		sim_result_free(&res);
		if (alone)
			fprintf(stderr, "%s: the run fails no assertion: "
			    "nothing to shrink\n", getprogname());
		return -1;
	}
	sim_verdict_names(&sh.want, names, sizeof(names));
	/* The schedule as events: the same run, with the same seed, as
	 * the random schedule draws from a generator of its own. */
	cur = *c;
	cur.count = 0;
	cur.faults = 0;
	if (res.nsched > SIM_EVENTS_MAX)
		errx(1, "schedule too long");
	for (i = 0; i < res.nsched; i++)
		cur.ev[i] = res.sched[i];
	cur.nev = res.nsched;
	free(res.sched);
	f0 = nfaults(&cur), n0 = cur.n;
	if (!fails(&sh, &cur)) {
		sim_conf_free(&cur);
		sim_conf_copy(&cur, c);
	}
	for (round = 0; round < 4; round++) {
		int any = 0;

		any |= shrink_events(&sh, &cur);
		any |= shrink_run(&sh, &cur);
		any |= shrink_nodes(&sh, &cur);
		any |= shrink_time(&sh, &cur);
		if (!any || sh.tries >= TRIES_MAX)
			break;
	}
	trace_format_time(cur.dur, t, sizeof(t));
	if (alone) {
		sim_command(&cur, stdout);
		printf(" --check\n");
		fprintf(stderr, "%s: %s: shrunk from %zu faults and %zu nodes "
		    "to %zu faults, %zu nodes, %s s in %lu runs\n",
		    getprogname(), names, f0, n0, nfaults(&cur), cur.n, t,
		    sh.tries);
	} else {
		printf("  shrunk to %zu faults, %zu nodes, %s s (%lu runs): ",
		    nfaults(&cur), cur.n, t, sh.tries);
		sim_command(&cur, stdout);
		printf(" --check\n");
	}
	*out = cur;
	return 0;
}
