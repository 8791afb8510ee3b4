/*
 * The weak leader's watch (Nerio, section 9, mirrored: elect's higher id
 * wins, so a node watches the closest correct node above it, and is the
 * weak leader when there is none; share/elect/lease.md, Weak leader).
 * Only the weak leader bids for grants (lease-lead.c, lease_maybe_run).
 */
#include "algo/lease-internal.h"

/* Watch the closest correct node above us from rank R up, or be weak
 * leader. */
void
lease_watch_from(struct lease *l, size_t r, struct algo_out *o)
{
	for (; r < l->a.n; r++)
		if (l->peer[r].up)
			break;
	l->mon = r < l->a.n ? r : NONE;
	if (l->mon != NONE)
		algo_fd(o, ALGO_FD_START, l->a.ids[r]);
}

/* A message from ID: it is correct (Stoller, section 2), and perhaps the
 * one to watch. */
void
lease_heard(struct lease *l, uint16_t id, struct algo_out *o)
{
	size_t r = lease_rank(l, id);

	l->peer[r].gone = 0;
	if (l->peer[r].up)
		return;
	l->peer[r].up = 1;
	if (r > l->a.rank && (l->mon == NONE || r < l->mon)) {
		if (l->mon != NONE)
			algo_fd(o, ALGO_FD_STOP, l->a.ids[l->mon]);
		l->mon = r;
		algo_fd(o, ALGO_FD_START, id);
	}
}

/* ID failed (DownSig) or went away on purpose. */
void
lease_lost(struct lease *l, uint16_t id, algo_time now, struct algo_out *o)
{
	size_t r = lease_rank(l, id);

	l->peer[r].up = 0;
	if (l->run.on && lease_hopes(l) < lease_quorum(l))
		lease_fail(l, now, o);
	if (r != l->mon)
		return;
	algo_fd(o, ALGO_FD_STOP, id);
	lease_watch_from(l, r + 1, o);
	lease_maybe_run(l, now, o);
}

/*
 * Our grant to a node other than us ran out without a renewal: it has
 * not asked us for a whole lease, so it leads no more by now (Lemma 3.1:
 * a leadership resting on our grant ends before the grant does; resting
 * on others', the grantee would have renewed with us too, every renew).
 * Take it for failed at once rather than after the detector's time-out,
 * so that the detector's wait does not stack on the lease: this is the
 * moment the next weak leader may ask (share/elect/lease.md, Timing).
 * Any message from it makes it correct again.  Only liveness rests on
 * this: uniqueness needs no detector.  A timer that fires more than a
 * round trip late says that this node stalled, not the grantee: its
 * renewals may be waiting to be read, and the detector decides.
 */
void
lease_lapsed(struct lease *l, algo_time now, struct algo_out *o)
{
	uint16_t g = l->grantee;

	if (g == 0 || g == l->a.self || l->told || now < l->finish)
		return;
	l->told = 1;
	if (!l->peer[lease_rank(l, g)].up || now - l->finish > l->a.t.rtt)
		return;
	lease_lost(l, g, now, o);
}
