/*
 * modified-bully: the modified bully algorithm of Mamun, Masum and Mustafa
 * (2004), as Murshed and Allen describe it (2012, section 3), for
 * synchronous systems.
 *
 * A node whose leader fails (DownSig) multicasts election to every node
 * above it; each answers ok, and the electioneer, knowing from the oks the
 * highest live node, broadcasts coordinator naming it.  So one election
 * replaces the chain of elections of Garcia-Molina's bully.  A revived
 * node queries the nodes above it and learns the leader from their
 * answers; the highest node announces itself at once.
 *
 * Waits, which the summary leaves open, use Garcia-Molina's T (`reply')
 * for the oks and answers of a round trip, and `timeout' for an ok
 * sender's wait for the coordinator, after which it holds its own
 * election (the paper gives no other remedy for an electioneer that
 * fails, drawback (c)).  See murshed.h for Update and the messages.
 */
#include "algo/murshed.h"

/* A node detects the failure of the leader and announces an election. */
static void
electn(struct mbully *m, uint16_t failed, algo_time now, struct algo_out *o)
{
	/* The next id below the failed leader needs nobody's ok (best
	 * case: N - 1 messages). */
	if ((long)m->a.rank + 1 == algo_rank(&m->a, failed))
		mb_name(m, m->a.self, failed, now, o);
	else
		mb_elect(m, m->a.rank + 1, m->a.n, failed, m->a.t.reply, 1,
		    now, o);
}

/*
 * "All recipient nodes send back ok."  A node whose own leader is the
 * failed one then waits for the coordinator; an electioneer carries on
 * with its own election, as in the paper's drawback (a).
 */
static void
election(struct mbully *m, const struct algo_msg *e, uint16_t failed,
    uint64_t finc, algo_time now, struct algo_out *o)
{
	if (!m->electing && !m->hold && mb_is_ldr(m, failed, finc))
		mb_ok(m, e, failed, finc, m->a.t.timeout, now, o);
	else
		mb_ok(m, e, failed, finc, 0, now, o);
}

/* "Upon receipt of all ok messages, the electioneer knows the highest
 * id of all live nodes"; no ok: nobody above lives. */
static void
elected(struct mbully *m, algo_time now, struct algo_out *o)
{
	mb_name(m, m->best != 0 ? m->best : m->a.self, m->failed, now, o);
}

/* The answers to our query name the leader. */
static void
queried(struct mbully *m, algo_time now, struct algo_out *o)
{
	mb_conclude(m, m->a.t.timeout, now, o);
}

/* No coordinator came: the electioneer failed too; elect anew. */
static void
ok_expired(struct mbully *m, algo_time now, struct algo_out *o)
{
	electn(m, m->failed, now, o);
}

/* On revival: "if the former leader wakes up, it just announces itself
 * as leader"; we cannot tell from our own memory whether a higher node
 * was elected meanwhile (the paper's drawback (b)), so only the highest
 * id does that, and every other node queries the nodes above it. */
static void
start(struct mbully *m, algo_time now, struct algo_out *o)
{
	if (m->a.rank == m->a.n - 1)
		mb_name(m, m->a.self, 0, now, o);
	else
		mb_query(m, m->a.rank + 1, m->a.n, m->a.t.reply, 1, now, o);
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
	return mb_boot(a, &policy, now, o);
}

/* The waits for answers and for the electioneer, t_TX for the hold
 * after a coordinator, and the repeated coordinator (murshed.c). */
static const char *const timings[] = {
	"reply", "timeout", "t_tx", "announce", NULL
};

const struct algo_ops algo_modified_bully = {
	.name = "modified-bully",
	.timings = timings,
	.boot = boot,
	MB_OPS
};
