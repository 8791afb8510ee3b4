/*
 * Drives the guard of --run-if-leader (lib/guard) with arbitrary inputs,
 * in any order, at times that may jump either way, and checks against a
 * model of its own the guarantee: the command never runs past the
 * deadline its last grant allows (E - margin), nor past the grace of a
 * stop; it starts only under a grant that outlasts the grace; after
 * SIGKILL nothing follows but the exit; an input the guard refuses
 * changes nothing.  Some replies come as text, through the parser.
 *
 * Input: grace, flags, then records of [kind] [delay] [fields...].
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guard/guard.h"

#include "feed.h"

/* What the guard must have done, kept apart from its own state. */
struct model {
	algo_time	 now;		/* the latest time fed */
	algo_time	 grace;
	int		 started, alive, stopped, killed, exited;
	int		 lease;
	int		 dead, released;	/* the daemon; GUARD_RELEASE */
	uint64_t	 token;
	algo_time	 margin;
	algo_time	 allowed;	/* E - margin of the last grant */
	algo_time	 stop_by;	/* SIGKILL due, once stopped */
};

#define CHECK(c)	do { if (!(c)) abort(); } while (0)

static algo_time
add(algo_time a, algo_time b)
{
	__int128 t = (__int128)a + b;

	return t > INT64_MAX ? INT64_MAX : t < INT64_MIN ? INT64_MIN :
	    (algo_time)t;
}

static void
random_reply(struct feed *f, algo_time now, struct guard_reply *r)
{
	uint8_t b = byte(f);

	memset(r, 0, sizeof(*r));
	r->leader = b & 1;
	r->lease = (b & 6) != 6;
	if (!r->lease)
		return;
	r->token = byte(f) % 4;
	/* Mostly near now, at times far off either way. */
	r->until = add(now, (int8_t)byte(f) * ALGO_MS * ((b & 8) ? 10 : 1));
	if (r->until < 0)
		r->until = 0;
	r->tlease = (algo_time)(20 + byte(f)) * ALGO_MS;
	r->renew = (algo_time)(byte(f) % 64) * ALGO_MS;
	r->rtt = (algo_time)(byte(f) % 16) * ALGO_MS;
	r->drift = (b & 16) ? ALGO_DRIFT_MAX / (1 + byte(f)) : 1000000;
}

/* A reply as the daemon's text, whatever the input makes of it. */
static int
text_reply(struct feed *f, struct guard_reply *r)
{
	char line[256];
	size_t len = byte(f);

	if (len > f->n)
		len = f->n;
	if (len >= sizeof(line))
		len = sizeof(line) - 1;
	memcpy(line, f->p, len);
	line[len] = '\0';
	f->p += len;
	f->n -= len;
	return guard_reply_parse(line, len, r);
}

static void
check_step(struct model *m, const struct guard *g,
    const struct guard_input *in, const struct guard_out *o)
{
	const struct guard_action *a;
	algo_time before = m->allowed;
	size_t i;
	int ended = 0;

	if (in->type == GUARD_IN_DEAD)
		m->dead = 1;
	/* A grant is judged against the deadline it would replace: one
	 * that comes when the stop is due by that deadline is too late. */
	if (in->type == GUARD_IN_REPLY && m->alive && !m->stopped) {
		const struct guard_reply *r = &in->reply;

		if (m->lease && m->now >= add(before, -m->grace))
			;	/* the stop below is due */
		else if (!r->leader || r->lease != m->lease ||
		    (m->lease && r->token != m->token))
			m->stop_by = m->lease && before < add(m->now, m->grace) ?
			    before : add(m->now, m->grace);
		else if (m->lease)
			m->allowed = add(r->until, -m->margin);
	}
	for (i = 0; i < o->n; i++) {
		a = &o->v[i];
		CHECK(!m->exited);
		/* After SIGKILL: only the rest of the group's, and the exit. */
		if (m->killed)
			CHECK((a->type == GUARD_KILL &&
			    a->why == GUARD_WHY_EXITED) || a->type == GUARD_EXIT ||
			    a->type == GUARD_RELEASE);
		switch (a->type) {
		case GUARD_START: {
			const struct guard_reply *r = &in->reply;

			CHECK(!m->started && in->type == GUARD_IN_REPLY &&
			    r->leader);
			m->started = m->alive = 1;
			m->lease = r->lease;
			/* The default grace follows the lease (configure()). */
			m->grace = g->cfg.grace;
			m->token = a->token;
			if (r->lease) {
				m->margin = guard_margin(r->tlease);
				m->allowed = add(r->until, -m->margin);
				CHECK(a->token == r->token && a->token != 0);
				CHECK(m->now < add(m->allowed, -m->grace));
				CHECK(m->grace < guard_room(r));
			} else
				CHECK(a->token == 0);
			break;
		}
		case GUARD_TERM:
			CHECK(m->alive && !m->stopped);
			if (!m->stop_by || m->stop_by > add(m->now, m->grace))
				m->stop_by = add(m->now, m->grace);
			if (m->lease && m->stop_by > m->allowed)
				m->stop_by = m->allowed;
			m->stopped = 1;
			break;
		case GUARD_KILL:
			CHECK(m->started);
			if (a->why != GUARD_WHY_EXITED) {
				CHECK(m->alive);
				m->alive = 0;
			}
			m->killed = 1;
			break;
		case GUARD_ASK:
			CHECK(m->alive && !m->stopped);
			break;
		case GUARD_EXIT:
			ended = 1;
			break;
		case GUARD_RELEASE:
			/* Only a dead daemon's lease, before its deadline, with
			 * nothing of the command left to run, once. */
			CHECK(m->dead && m->lease && m->started && m->killed &&
			    (!m->alive || in->type == GUARD_IN_EXITED) &&
			    !m->released &&
			    m->now < add(m->allowed, m->margin));
			m->released = 1;
			break;
		case GUARD_REGISTER:
		case GUARD_UNREGISTER:
			CHECK(!m->started);
			break;
		case GUARD_CANCEL:
			CHECK(m->started);
			break;
		default:
			abort();
		}
	}
	if (in->type == GUARD_IN_EXITED) {
		/* The command is dead, its group killed. */
		CHECK(m->alive || m->killed);
		m->alive = 0;
	}
	/* A dead daemon's command is stopped at once. */
	if (in->type == GUARD_IN_DEAD && m->alive)
		CHECK(m->stopped);
	if (ended) {
		CHECK(g->phase == GUARD_DONE);
		CHECK(!m->started || in->type == GUARD_IN_REAPED);
		m->exited = 1;
	}
	/* The guarantee: a live command is within its deadline and its
	 * grace, and the guard will wake by them. */
	if (m->alive && m->lease)
		CHECK(m->now < m->allowed && o->wake != -1 &&
		    o->wake <= m->allowed);
	if (m->alive && m->lease && !m->stopped)
		CHECK(m->now < add(m->allowed, -m->grace) &&
		    o->wake <= add(m->allowed, -m->grace));
	if (m->alive && m->stopped)
		CHECK(m->now < m->stop_by && o->wake != -1 &&
		    o->wake <= m->stop_by);
	CHECK(o->wake == -1 || o->wake >= m->now);
}

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f = { data, size };
	struct guard_config cfg;
	struct guard g, saved;
	struct guard_input in;
	struct guard_out o;
	struct model m;
	algo_time t = 1000 * ALGO_MS, wake = -1;
	uint8_t flags;
	int steps = 0;

	memset(&cfg, 0, sizeof(cfg));
	cfg.grace = (algo_time)(byte(&f) % 64) * ALGO_MS;
	flags = byte(&f);
	cfg.wait = flags & 1;
	cfg.ecode = flags >> 1;
	if (flags & 0x80)
		cfg.grace = -1;		/* the default */
	guard_init(&g, &cfg);
	memset(&m, 0, sizeof(m));
	m.now = INT64_MIN;
	m.grace = g.cfg.grace;
	while (f.n > 0 && steps++ < 4096) {
		uint8_t kind = byte(&f), d = byte(&f);

		memset(&in, 0, sizeof(in));
		/* Time: mostly forward in small steps, at times to the
		 * guard's wake, at times far either way. */
		if (kind >= 0xf0 && wake != -1)
			t = wake;
		else if (d == 0xff)
			t -= (algo_time)byte(&f) * ALGO_MS;
		else if (d >= 0xf0)
			t += (algo_time)byte(&f) * 10 * ALGO_MS;
		else
			t += (algo_time)d * ALGO_MS / 10;
		in.now = t;
		switch (kind % 12) {
		case 0:
			in.type = GUARD_IN_TICK;
			break;
		case 1:
		case 2:
			in.type = GUARD_IN_REPLY;
			random_reply(&f, t, &in.reply);
			break;
		case 3:
			in.type = GUARD_IN_REPLY;
			if (text_reply(&f, &in.reply) == -1)
				continue;
			break;
		case 4:
			in.type = GUARD_IN_LEAVING;
			break;
		case 5:
			in.type = GUARD_IN_REFUSED;
			break;
		case 6:
			in.type = GUARD_IN_NOREPLY;
			break;
		case 7:
			in.type = GUARD_IN_STOP;
			break;
		case 8:
			in.type = GUARD_IN_HANGUP;
			break;
		case 9:
			in.type = GUARD_IN_EXITED;
			break;
		case 10:
			in.type = GUARD_IN_REAPED;
			in.status = byte(&f) | byte(&f) << 8;
			break;
		case 11:
			in.type = GUARD_IN_DEAD;
			break;
		}
		saved = g;
		if (guard_step(&g, &in, &o) == -1) {
			CHECK(o.n == 0 && memcmp(&saved, &g, sizeof(g)) == 0);
			continue;
		}
		if (in.now > m.now)
			m.now = in.now;
		check_step(&m, &g, &in, &o);
		wake = o.wake;
	}
	return 0;
}
