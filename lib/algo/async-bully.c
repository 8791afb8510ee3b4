/*
 * async-bully: Stoller's Asynchronous Bully Algorithm (1997, Figure 3),
 * for systems where the failure detector may raise false alarms.
 *
 * No stage 1: a node that loses its leader starts halting the nodes below
 * it at once (Elec2).  The election identifier is the group (grp), so two
 * leaders may coexist in different groups, never in one (ALE1).  A node
 * rejects (Rej) a Halt that would give it a leader of lower priority than
 * the one it has or awaits; a halted node plays dead to the nodes below
 * it, so that whoever followed it notices and moves on; a leader's Norm?
 * draws NotNorm from a node that would rather have it as leader, which
 * merges groups once the network heals; and, correcting the figure, from
 * a member of its own that is still in an older group of it.
 *
 * Mirrored to "higher id wins": see stoller.h.
 */
#include "algo/stoller.h"

/* StartStage2(). */
static void
start_stage2(struct stoller *s, algo_time now, struct algo_out *o)
{
	stoller_start_fd(s, ALGO_FD_PLAYALIVE, 0, o);
	s->elid = algo_new_elid(&s->a, &s->nextel);
	stoller_start_stage2(s, now, o);
}

/* On <DownSig, j>. */
static void
on_down(struct stoller *s, uint16_t j, algo_time now, struct algo_out *o)
{
	if ((s->status == ST_NORM && j == s->ldr) ||
	    (s->status == ST_WAIT && j == s->elid.node))
		start_stage2(s, now, o);
	else if (s->status == ST_ELEC2 && j == s->a.ids[s->pendack])
		stoller_contin_stage2(s, now, o);
}

static void
on_recv(struct stoller *s, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	uint16_t j = m->peer;

	switch (m->type) {
	case SM_HALT:
		/* Refuse a leader below the one we have or await. */
		if ((s->status == ST_NORM && s->ldr > j) ||
		    (s->status == ST_WAIT && s->elid.node > j)) {
			algo_send(o, j, SM_REJ, &m->elid, NULL, 0);
			break;
		}
		/* Halting(t, j). */
		stoller_start_fd(s, ALGO_FD_PLAYDEAD, 0, o);
		stoller_halting(s, m, now, o);
		break;
	case SM_REJ:
		/*
		 * The figure tests only "j = pendack"; we also require the
		 * current elid, as for Ack (section 4): a Rej left over from
		 * an election that gave up on j must not count for the next
		 * Halt to j, whose Ack would then be ignored and leave j
		 * waiting for a Ldr that never comes.
		 */
		if (s->status == ST_ELEC2 && j == s->a.ids[s->pendack] &&
		    algo_elid_eq(&m->elid, &s->elid)) {
			algo_set_add(&s->rejs, s->pendack);
			stoller_contin_stage2(s, now, o);
		}
		break;
	case SM_NORMQ:
		/*
		 * Our halter's Norm? for the group we await says what its
		 * Ldr said: it leads that group.  So a lost Ldr costs a
		 * tau at most, not the election our NotNorm would start
		 * (a datagram loss is outside the figure's model).
		 */
		if (s->status == ST_WAIT && j == s->elid.node &&
		    algo_elid_eq(&m->elid, &s->elid)) {
			stoller_ldr(s, m, now, o);
			break;
		}
		/*
		 * Figure 3 answers a node not in Norm only if j is above its
		 * election's initiator.  We answer our halter too: its Norm?
		 * means it leads, so our Ldr was lost (or we were skipped on
		 * a false DownSig), and without NotNorm we would wait for it
		 * forever.  The halter's new election is one we accept.
		 *
		 * A correction to the figure (and to the proof of its
		 * Appendix B, which misses the case): in Norm it answers
		 * only a node above its leader.  If our leader's Halt of its
		 * next election was lost (a cut shorter than our detector's
		 * latency but not its), the leader runs on in a new group
		 * and we in the old one, and its Norm? would never merge
		 * us.  So we answer our own leader too when it names a
		 * group that is not ours.
		 */
		if ((s->status != ST_NORM && (j > s->elid.node ||
		    (s->status == ST_WAIT && j == s->elid.node))) ||
		    (s->status == ST_NORM && (j > s->ldr || (j == s->ldr &&
		    !algo_elid_eq(&m->elid, &s->elid)))))
			algo_send(o, j, SM_NOTNORM, &m->elid, NULL, 0);
		break;
	}
}

static const struct stoller_figure figure = {
	.recv = on_recv,
	.down = on_down,
	.elect = start_stage2,
	.async = 1,
};

static int
boot(struct algo *a, const uint8_t *persist, size_t len, algo_time now,
    struct algo_out *o)
{
	return stoller_boot(a, &figure, now, o);
}

/* tau, the period of Norm? and its resends (stoller.c); the detector's
 * are elect-fd's. */
static const char *const timings[] = {
	"tau", NULL
};

const struct algo_ops algo_async_bully = {
	.name = "async-bully",
	.timings = timings,
	.nmsg = SM_NMSG,
	.boot = boot,
	STOLLER_OPS
};
