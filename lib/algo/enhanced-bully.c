/*
 * enhanced-bully: Murshed and Allen's enhanced bully algorithm ("Enhanced
 * Bully Algorithm for Leader Node Election in Synchronous Distributed
 * Systems", 2012, section 4 and Algorithms 1-6 of the Appendix).
 *
 * The nodes fall in two fixed sets: Candidate, the ceil(N/2) highest ids,
 * and Ordinary, the rest.  A node of Ordinary that detects the leader's
 * failure sends election to Candidate only; a candidate sends it to the
 * candidates above it; the next id below the failed leader declares
 * itself at once.  Each node i has a tiebreaker time, their equation (1),
 *
 *	delta_i = alpha / i + (N - (i - 1)) t_TX	(i: rank 1..N)
 *
 * smaller for higher ids, and from it its waits
 *
 *	T_el,i = 3 t_TX + delta_i	an electioneer's wait for ok
 *	T_ok,i = 2 t_TX + delta_i	an ok sender's wait for coordinator
 *
 * (the t_el and t_ok timings replace 3 t_TX and 2 t_TX, for a processing
 * time t_P that is not small).  The cases of section 4.2: IC (the ideal
 * case above), CFC (no candidate answers: the election moves to the
 * Ordinary nodes above), EFC (the electioneer fails after its election:
 * the ok senders' T_ok runs out, the highest first, and it declares
 * itself), SEC (simultaneous elections: a node sends at most one ok per
 * T_ok, and the highest electioneer finishes first) and NRC (a revived
 * node queries Candidate, then Ordinary, and learns the leader from the
 * answers).  See murshed.h for Update and the messages.
 */
#include <stdio.h>

#include "algo/murshed.h"

static int
candidate(const struct mbully *m)
{
	return m->a.rank >= m->a.n - m->ncand;
}

/* Their equation (1): delta_i = alpha / i + (N - (i - 1)) t_TX. */
static algo_time
delta(const struct mbully *m)
{
	algo_time i = (algo_time)m->a.rank + 1, n = (algo_time)m->a.n;

	return m->a.t.alpha / i + (n - (i - 1)) * m->a.t.t_tx;
}

static algo_time
t_el(const struct mbully *m)
{
	const struct algo_timing *t = &m->a.t;

	return (t->t_el != 0 ? t->t_el : 3 * t->t_tx) + delta(m);
}

static algo_time
t_ok(const struct mbully *m)
{
	const struct algo_timing *t = &m->a.t;

	return (t->t_ok != 0 ? t->t_ok : 2 * t->t_tx) + delta(m);
}

/* Algorithms 1, 3 and 4 (Electn, ElectnCand, ElectnOrd). */
static void
electn(struct mbully *m, uint16_t failed, algo_time now, struct algo_out *o)
{
	size_t lo = m->a.n - m->ncand;

	if (!candidate(m))
		mb_elect(m, lo, m->a.n, failed, t_el(m), 1, now, o);
	else if ((long)m->a.rank + 1 == algo_rank(&m->a, failed))
		mb_name(m, m->a.self, failed, now, o);
	else
		mb_elect(m, m->a.rank + 1, m->a.n, failed, t_el(m), 1, now, o);
}

/*
 * Algorithm 5 (ElectnEFC): ok, unless we sent one within the last T_ok or
 * the failed node is not our leader.  The paper answers "the detector
 * with highest id" of elections that arrive together; we answer the
 * first, since waiting to compare would delay every election, and the
 * highest electioneer's shorter T_el still lets it finish first (SEC).
 */
static void
election(struct mbully *m, const struct algo_msg *e, uint16_t failed,
    uint64_t finc, algo_time now, struct algo_out *o)
{
	if (!mb_is_ldr(m, failed, finc) || m->hold ||
	    (m->ok_at >= 0 && now - m->ok_at < t_ok(m)))
		return;
	mb_ok(m, e, failed, finc, t_ok(m), now, o);
}

/* The electioneer's T_el ran out, or every live node asked answered. */
static void
elected(struct mbully *m, algo_time now, struct algo_out *o)
{
	size_t top = m->a.n - m->ncand;		/* Ordinary: ranks < top */

	if (m->best != 0)
		mb_name(m, m->best, m->failed, now, o);
	else if (candidate(m) || m->phase == 2 || m->a.rank + 1 == top)
		mb_name(m, m->a.self, m->failed, now, o);
	else	/* CFC: every candidate is down */
		mb_elect(m, m->a.rank + 1, top, m->failed, t_el(m), 2, now, o);
}

/* Algorithm 6 (ElectnNRC): a revived node. */
static void
start(struct mbully *m, algo_time now, struct algo_out *o)
{
	if (m->a.rank == m->a.n - 1)
		mb_name(m, m->a.self, 0, now, o);
	else if (candidate(m))
		mb_query(m, m->a.rank + 1, m->a.n, t_ok(m), 1, now, o);
	else
		mb_query(m, m->a.n - m->ncand, m->a.n, t_ok(m), 1, now, o);
}

static void
queried(struct mbully *m, algo_time now, struct algo_out *o)
{
	size_t top = m->a.n - m->ncand;

	/* Every candidate is down: ask Ordinary. */
	if (m->phase == 1 && !candidate(m) && m->best == 0 &&
	    !mb_heard_any(m, top, m->a.n))
		mb_query(m, 0, top, t_ok(m), 2, now, o);
	else
		mb_conclude(m, t_el(m), now, o);
}

/* EFC: no coordinator within T_ok; the highest ok sender gets here
 * first, and its coordinator reaches the others within their T_ok. */
static void
ok_expired(struct mbully *m, algo_time now, struct algo_out *o)
{
	mb_name(m, m->a.self, m->failed, now, o);
}

/* The status shows the node's set and its tiebreaker (seconds). */
static void
query(const struct algo *a, algo_time now, struct algo_status *st)
{
	const struct mbully *m = (const struct mbully *)a;
	char d[32];

	trace_format_time(delta(m), d, sizeof(d));
	snprintf(st->extra, sizeof(st->extra), "set=%s delta=%s",
	    candidate(m) ? "candidate" : "ordinary", d);
}

static const struct mb_policy policy = {
	.start = start,
	.electn = electn,
	.election = election,
	.elected = elected,
	.queried = queried,
	.ok_expired = ok_expired,
};

static int
boot(struct algo *a, const uint8_t *persist, size_t len, algo_time now,
    struct algo_out *o)
{
	struct mbully *m = (struct mbully *)a;

	m->ncand = (a->n + 1) / 2;
	return mb_boot(a, &policy, now, o);
}

/* T_el and T_ok from t_TX, alpha and delta_i, t_TX for the hold after
 * a coordinator, and the repeated coordinator (murshed.c). */
static const char *const timings[] = {
	"t_tx", "alpha", "t_el", "t_ok", "announce", NULL
};

const struct algo_ops algo_enhanced_bully = {
	.name = "enhanced-bully",
	.timings = timings,
	.boot = boot,
	.query = query,
	MB_OPS
};
