/*
 * bully-fd: Stoller's Bully_FD algorithm (1997, Figure 1), Garcia-Molina's
 * bully rewritten over a failure detector, for synchronous systems.
 *
 * Stage 1 (Elec1) watches every node of higher priority at once through
 * the detector; when all are reported down, stage 2 (Elec2) halts the
 * lower nodes one by one (Halt, answered by Ack or a DownSig), then the
 * node leads (Norm) and sends Ldr to those that acknowledged.  A halted
 * node waits (Wait) for Ldr, or for DownSig of its halter.  The leader
 * sends Norm? every tau; a node not in Norm answers NotNorm, and the
 * leader holds a new election to take it in.
 *
 * Mirrored to "higher id wins": see stoller.h.
 */
#include "algo/stoller.h"

/* StartStage1(). */
static void
start_stage1(struct stoller *s, algo_time now, struct algo_out *o)
{
	s->status = ST_ELEC1;
	s->elid = algo_new_elid(&s->a, &s->nextel);
	algo_set_clear(&s->down);
	stoller_show(s, now, o);
	if (s->a.rank == s->a.n - 1)	/* "if i = 1": nobody above */
		stoller_start_stage2(s, now, o);
	else
		stoller_start_fd(s, ALGO_FD_START, 1, o);
}

/* Whether down contains lesser(i), every node above us. */
static int
all_above_down(const struct stoller *s)
{
	size_t r;

	for (r = s->a.rank + 1; r < s->a.n; r++)
		if (!algo_set_has(&s->down, r))
			return 0;
	return 1;
}

/* On <DownSig, j>. */
static void
on_down(struct stoller *s, uint16_t j, algo_time now, struct algo_out *o)
{
	size_t r = (size_t)algo_rank(&s->a, j);

	if (r > s->a.rank) {		/* j in lesser(i) */
		algo_set_add(&s->down, r);
		if ((s->status == ST_NORM && j == s->ldr) ||
		    (s->status == ST_WAIT && j == s->elid.node))
			start_stage1(s, now, o);
		else if (s->status == ST_ELEC1 && all_above_down(s))
			stoller_start_stage2(s, now, o);
	} else {			/* j in greater(i) */
		if (s->status == ST_ELEC2 && r == s->pendack)
			stoller_contin_stage2(s, now, o);
	}
}

static void
on_recv(struct stoller *s, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	switch (m->type) {
	case SM_HALT:
		/* Halting(t, j). */
		algo_set_del(&s->down, (size_t)algo_rank(&s->a, m->peer));
		stoller_halting(s, m, now, o);
		break;
	case SM_NORMQ:
		if (s->status != ST_NORM)
			algo_send(o, m->peer, SM_NOTNORM, &m->elid, NULL, 0);
		break;
	}
}

static const struct stoller_figure figure = {
	.recv = on_recv,
	.down = on_down,
	.elect = start_stage1,
};

static int
boot(struct algo *a, const uint8_t *persist, size_t len, algo_time now,
    struct algo_out *o)
{
	return stoller_boot(a, &figure, now, o);
}

/* tau, the period of Norm? (stoller.c); the detector's are elect-fd's. */
static const char *const timings[] = {
	"tau", NULL
};

const struct algo_ops algo_bully_fd = {
	.name = "bully-fd",
	.timings = timings,
	.nmsg = SM_REJ,			/* Figure 1 has no Rej */
	.boot = boot,
	STOLLER_OPS
};
