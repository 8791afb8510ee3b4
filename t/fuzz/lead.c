/*
 * Drives lib/host/lead with arbitrary inputs in any order, under core
 * statuses of any kind, and checks against a model of its own: a command
 * starts only under a leadership that counts (no veto, the epoch going
 * on, the node staying), with a token where leaderships have one; no
 * reply carries a token without leading nor a deadline beyond the
 * core's; stops go to answered registrations only; the node leaves once;
 * the counters are the model's.  The core's own asserts abort too.
 *
 * Input: slots, then records of [kind] [slot] [status...].
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/lead.h"

#include "feed.h"

#define CHECK(c)	do { if (!(c)) abort(); } while (0)
#define MS		INT64_C(1000000)

/* What each registration is, kept apart from the core's state. */
struct model {
	int		 state[LEAD_SLOTS];	/* 0 free, 1 waits, 2 answered */
	int		 started[LEAD_SLOTS], killed[LEAD_SLOTS];
	algo_time	 try_by[LEAD_SLOTS];	/* a try waits until then */
	int		 vetoed, leaving, left;
	uint64_t	 nstarted, nended, nkilled;
};

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f = { data, size };
	struct lead_conf c = { .self = 2, .deadline = 1 };
	struct lead l;
	struct lead_input in;
	struct lead_out o;
	struct model m;
	const struct lead_action *a;
	algo_time now = MS;
	unsigned running;
	size_t i, k;
	uint8_t b;

	c.slots = 1 + byte(&f) % LEAD_SLOTS;
	b = byte(&f);
	c.deadline = b & 1;
	c.try_for = b & 2 ? (algo_time)(1 + byte(&f)) * 10 * MS : 0;
	c.timing.lease = 1000 * MS;
	c.timing.renew = 500 * MS;
	lead_init(&l, &c);
	memset(&m, 0, sizeof(m));
	while (f.n > 0) {
		memset(&in, 0, sizeof(in));
		b = byte(&f);
		in.type = (enum lead_in_type)(1 + b % 9);
		in.slot = (int)(byte(&f) % c.slots);
		now += (algo_time)byte(&f) * MS;
		in.now = now;
		b = byte(&f);
		if (c.deadline) {
			in.st.token = b & 1 ? 1 + byte(&f) : 0;
			in.st.leader = in.st.token != 0;
			in.st.until = b & 2 ? now + (algo_time)byte(&f) * MS : 0;
		} else {
			in.st.leader = b & 1;
			in.st.until = in.st.leader ? ALGO_FOREVER : 0;
		}
		in.st.state.ldr = b & 4 ? 2 : b & 8 ? 3 : 0;
		in.st.hint = b & 16 ? 5 : 0;
		in.ending = (b & 32) != 0;
		in.wait = (b & 64) != 0;
		in.why = b & 128 ? LEAD_WHY_GRACE : LEAD_WHY_DEADLINE;
		in.vetoed = (byte(&f) & 3) == 0;
		in.live = in.vetoed;
		in.changed = 1;
		/* A slot's inputs come only as a connection's life allows. */
		if ((in.type == LEAD_IN_KILLED && m.state[in.slot] != 2) ||
		    (in.type == LEAD_IN_TASK && m.state[in.slot] != 0))
			continue;
		if (in.type == LEAD_IN_LEASE && byte(&f) & 1)
			in.slot = -1;
		if (in.type == LEAD_IN_VERDICT)
			m.vetoed = in.vetoed;
		if (in.type == LEAD_IN_LEAVE || in.type == LEAD_IN_BYE)
			m.leaving = 1;
		if (in.type == LEAD_IN_TASK) {
			m.state[in.slot] = 1;
			m.try_by[in.slot] = in.wait ? 0 : c.try_for > 0 ?
			    now + c.try_for : 0;
		}
		if (in.type == LEAD_IN_KILLED) {
			m.nkilled += m.started[in.slot] && !m.killed[in.slot];
			m.killed[in.slot] = 1;
		}
		if (in.type == LEAD_IN_GONE) {
			m.nended += m.state[in.slot] == 2 && m.started[in.slot];
			m.state[in.slot] = m.started[in.slot] =
			    m.killed[in.slot] = 0;
		}
		lead_step(&l, &in, &o);
		CHECK(o.n <= LEAD_ACTS_MAX);
		for (k = 0; k < o.n; k++) {
			a = &o.v[k];
			switch (a->type) {
			case LEAD_REPLY:
			case LEAD_ANSWER:
				CHECK(a->r.g.token == 0 || a->r.g.leader);
				CHECK(a->r.g.until <= in.st.until);
				CHECK(!m.vetoed || (!a->r.g.leader &&
				    a->r.g.token == 0 && a->r.g.until == 0));
				if (a->type == LEAD_REPLY)
					break;
				/* None while the epoch ends or the node
				 * leaves; a start under a token. */
				CHECK(m.state[a->slot] == 1 && !in.ending &&
				    !m.leaving);
				CHECK(!a->r.g.leader || !c.deadline ||
				    a->r.g.token != 0);
				/* A try told no while no holder is known
				 * only once its time is out. */
				CHECK(a->r.g.leader || now >= m.try_by[a->slot] ||
				    (in.st.hint != 0 && !m.vetoed));
				m.state[a->slot] = 2;
				m.started[a->slot] = a->r.g.leader;
				m.nstarted += (uint64_t)a->r.g.leader;
				break;
			case LEAD_REFUSE:
				CHECK(m.state[a->slot] == 1);
				m.state[a->slot] = 0;
				break;
			case LEAD_STOP:
				CHECK(m.state[a->slot] == 2);
				break;
			case LEAD_LEAVE:
				CHECK(m.leaving && !m.left);
				m.left = 1;
				break;
			case LEAD_STOPPING:
			case LEAD_KILLED:
				break;
			}
		}
		for (i = 0, running = 0; i < c.slots; i++)
			running += m.state[i] == 2 && m.started[i] &&
			    !m.killed[i];
		CHECK(l.n.running == running);
		CHECK(l.n.started == m.nstarted && l.n.ended == m.nended &&
		    l.n.killed == m.nkilled);
	}
	return 0;
}
