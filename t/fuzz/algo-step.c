/*
 * Feeds every election core arbitrary inputs, as a hostile network and a
 * confused detector would, and checks that whatever it answers stays
 * within the interface: messages to other nodes of the cluster with known
 * types and bounded payloads, detector commands about other nodes, timers
 * of its own, statuses of the trace format, edicts of cluster nodes in
 * (token, seq) order; and that the core's invariants hold after every
 * input (algo_check(), which algo_step() also asserts), and its status
 * agrees with them at any later time; that the output's wake is the
 * earliest timer its actions armed.
 *
 * Input: algorithm, cluster size, own rank, then records of
 * [delay ms] [kind] ...: kind 0 a message (peer, type, elid, payload),
 * 1 a DownSig, 2 the earliest armed timer, 3 a command (with up to 15
 * bytes of argument).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"

#include "feed.h"

/* The last edict delivered: (token, seq) only grow. */
static uint64_t dtok, dseq;

static int
in_cluster(uint16_t id, const uint16_t *ids, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (ids[k] == id)
			return 1;
	return 0;
}

static void
check_actions(const struct algo *a, const struct algo_out *o,
    algo_time *deadline, uint16_t self, const uint16_t *ids, size_t n)
{
	const struct algo_ops *ops = algo_ops(a);
	const struct algo_action *act;
	algo_time wake;
	size_t i, k;
	int found;

	if (algo_check(a) != NULL)
		abort();

	for (i = 0; i < o->n; i++) {
		act = &o->v[i];
		switch (act->type) {
		case ALGO_SEND:
		case ALGO_FD: {
			uint16_t peer = act->type == ALGO_SEND ?
			    act->msg.peer : act->fd.peer;

			for (found = 0, k = 0; k < n; k++)
				found |= ids[k] == peer;
			if (!found || peer == self)
				abort();
			if (act->type == ALGO_SEND &&
			    (algo_msg_name(ops, act->msg.type) == NULL ||
			    act->msg.len > ALGO_PAYLOAD_MAX))
				abort();
			break;
		}
		case ALGO_TIMER_SET:
			if (act->timer.id >= ALGO_TIMERS_MAX ||
			    algo_timer_name(ops, act->timer.id) == NULL)
				abort();
			deadline[act->timer.id] = act->timer.at;
			break;
		case ALGO_TIMER_CANCEL:
			if (act->timer.id >= ALGO_TIMERS_MAX)
				abort();
			deadline[act->timer.id] = -1;
			break;
		case ALGO_STATE:
			if (act->state.status >= ST_NSTATUS)
				abort();
			break;
		case ALGO_EDICT:
			if (!(algo_flags(ops) & ALGO_F_EDICTS) ||
			    !in_cluster(act->edict.from, ids, n) ||
			    act->edict.len == 0 ||
			    act->edict.len > ALGO_EDICT_MAX ||
			    strlen(act->edict.text) != act->edict.len)
				abort();
			if (act->edict.delivered) {
				if (act->edict.token < dtok ||
				    (act->edict.token == dtok &&
				    act->edict.seq <= dseq))
					abort();
				dtok = act->edict.token;
				dseq = act->edict.seq;
			}
			break;
		case ALGO_PERSIST:
		case ALGO_TRACE:
			break;
		default:
			abort();
		}
	}
	/* The wake is the earliest deadline the timer actions left. */
	for (wake = ALGO_FOREVER, k = 0; k < ALGO_TIMERS_MAX; k++)
		if (deadline[k] >= 0 && deadline[k] < wake)
			wake = deadline[k];
	if (o->wake != wake)
		abort();
}

/* The status at a later time NOW agrees with itself: a token and the
 * leader flag only while leading, a deadline only where there is one. */
static void
check_status(const struct algo *a, algo_time now)
{
	struct algo_status st;

	algo_query(a, now, &st);
	if ((st.leader || st.token != 0) && st.until <= now)
		abort();
	if (st.until != 0 && st.until <= now)
		abort();
	if (!(algo_flags(algo_ops(a)) & ALGO_F_DEADLINE) &&
	    (st.token != 0 || st.until != (st.leader ? ALGO_FOREVER : 0)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f = { data, size };
	const struct algo_ops *ops;
	struct algo_config cfg;
	struct algo_input in;
	struct algo_out o;
	struct algo *a;
	algo_time now = 0, deadline[ALGO_TIMERS_MAX];
	uint16_t ids[8];
	size_t n, i, nalgo;
	unsigned t, best;
	char err[128];

	for (nalgo = 0; algo_nth(nalgo) != NULL; nalgo++)
		;
	ops = algo_nth(byte(&f) % nalgo);
	n = 2 + byte(&f) % 7;
	for (i = 0; i < n; i++)
		ids[i] = 1 + i * 3;
	memset(&cfg, 0, sizeof(cfg));
	cfg.ids = ids;
	cfg.nids = n;
	cfg.self = ids[byte(&f) % n];
	cfg.inc = 1;
	if (algo_flags(ops) & ALGO_F_EPOCHS) {	/* Nerio 10.6 */
		cfg.epoch = byte(&f) % 3;
		cfg.epoch_pending = cfg.epoch != 0 && byte(&f) % 2;
		cfg.epoch_fresh = cfg.epoch != 0 && byte(&f) % 2;
	}
	algo_timing_default(&cfg.timing);
	for (t = 0; t < ALGO_TIMERS_MAX; t++)
		deadline[t] = -1;
	dtok = dseq = 0;
	algo_out_init(&o);
	if ((a = algo_boot(ops, &cfg, now, &o, err, sizeof(err))) == NULL)
		abort();
	check_actions(a, &o, deadline, cfg.self, ids, n);
	while (f.n > 0) {
		algo_out_clear(&o);
		now += byte(&f) * ALGO_MS;
		memset(&in, 0, sizeof(in));
		in.now = now;
		switch (byte(&f) % 4) {
		case 0:
			in.type = ALGO_IN_RECV;
			in.msg.peer = byte(&f) % 24;
			in.msg.type = byte(&f) % 10;
			in.msg.elid.node = byte(&f) % 24;
			in.msg.elid.inc = byte(&f) % 3;
			in.msg.elid.ctr = byte(&f) % 3;
			in.msg.len = byte(&f) % 64;	/* the lease's are 1 to 48 */
			for (i = 0; i < in.msg.len; i++)
				in.msg.payload[i] = byte(&f);
			break;
		case 1:
			in.type = ALGO_IN_DOWN;
			in.down = byte(&f) % 24;
			break;
		case 2:
			/* Timers fire in deadline order, never early. */
			for (best = ALGO_TIMERS_MAX, t = 0; t < ALGO_TIMERS_MAX;
			    t++)
				if (deadline[t] >= 0 && (best == ALGO_TIMERS_MAX ||
				    deadline[t] < deadline[best]))
					best = t;
			if (best == ALGO_TIMERS_MAX)
				continue;
			if (now < deadline[best])
				now = in.now = deadline[best];
			if (algo_due(a, now) != (int)best)
				abort();
			deadline[best] = -1;
			in.type = ALGO_IN_TIMER;
			in.timer = best;
			break;
		case 3:
			in.type = ALGO_IN_CMD;
			in.cmd.code = 1 + byte(&f) % 5;
			in.cmd.len = byte(&f) % 16;
			for (i = 0; i < in.cmd.len; i++)
				in.cmd.data[i] = byte(&f);
			break;
		}
		algo_step(a, &in, &o);
		check_actions(a, &o, deadline, cfg.self, ids, n);
		check_status(a, now + byte(&f) * ALGO_MS);
	}
	algo_free(a);
	algo_out_free(&o);
	return 0;
}
