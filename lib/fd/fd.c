/* The failure-detector core: see fd.h for what it promises. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "fd/fd.h"

const struct wire_proto fd_wire = { WIRE_MAGIC_FD, FD_MSG_MAX, 0, 0 };

/* Inter-arrival times of one peer's heartbeats, for phi accrual. */
struct phi {
	size_t		 n, next;
	int64_t		 s[FD_PHI_WINDOW];
};

struct peer {
	unsigned	 id;
	struct sess	 sess;		/* the handshake, what it sent us */
	uint64_t	 tx_seq;	/* last seq we sent it */

	/* Our monitoring of it. */
	int		 monitored;
	int		 reported;	/* down written since the latest start */
	int		 gone;		/* reported, monitored and silent since */
	int		 beat;		/* last_heard is a heartbeat, not a start */
	int64_t		 last_heard;
	int64_t		 limit;		/* silence that makes it down */
	int64_t		 last_probe;	/* push: MONITOR; ping: PING */
	uint64_t	 start_seq;	/* ping: PONGs answer later PINGs only */
	struct phi	*phi;

	/* Its monitoring of us (push), and our pretence towards it. */
	int		 subscribed;
	int64_t		 sub_interval;
	int64_t		 sub_until;
	int64_t		 next_alive;
	int		 dead_to;
};

struct fd {
	struct fd_config cfg;
	double		 score;		/* phi: standard score of the threshold */
	struct peer	*peers;		/* sorted by id */
	size_t		 npeers;
	struct fd_act	*out;		/* FD_ACTS(npeers) */
	size_t		 nout, capout;
	struct fd_stats	 stats;
	int64_t		 last_now;	/* the latest time given, or 0 */
};

static int64_t
min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t
max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

double
fd_phi_score(double threshold)
{
	double lo = -10, hi = 40, mid;
	int i;

	/* -log10(1 - F(y)) grows with y: bisect for the threshold. */
	for (i = 0; i < 200; i++) {
		mid = (lo + hi) / 2;
		if (-log10(0.5 * erfc(mid / sqrt(2))) < threshold)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

static int
cmp_peer(const void *a, const void *b)
{
	const struct peer *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static struct peer *
peer(const struct fd *fd, unsigned id)
{
	struct peer key = { .id = id };

	return bsearch(&key, fd->peers, fd->npeers, sizeof(key), cmp_peer);
}

/*
 * Phi's limit from the window, or from the configured interval while the
 * window is short.  The deviation is kept at half an interval or more, so
 * that a quiet network does not make the detector twitchy: with the
 * default threshold of 8 the limit is then about 3.8 intervals.
 */
static int64_t
phi_limit(const struct fd *fd, const struct phi *ph)
{
	double mean = (double)fd->cfg.interval, var = 0, sd, d;
	size_t i;

	if (ph->n >= FD_PHI_MIN) {
		for (mean = 0, i = 0; i < ph->n; i++)
			mean += (double)ph->s[i];
		mean /= (double)ph->n;
		for (i = 0; i < ph->n; i++) {
			d = (double)ph->s[i] - mean;
			var += d * d;
		}
		var /= (double)(ph->n - 1);
	}
	sd = fmax(sqrt(var), (double)fd->cfg.interval / 2);
	return (int64_t)fmin(mean + sd * fd->score, (double)FD_LEASE_MAX);
}

static void
set_limit(const struct fd *fd, struct peer *p)
{
	p->limit = p->phi != NULL ? phi_limit(fd, p->phi) : fd->cfg.timeout;
}

struct fd *
fd_new(const struct fd_config *cfg)
{
	struct fd *fd;
	size_t i;

	if (cfg->interval < FD_INTERVAL_MIN || cfg->interval > FD_INTERVAL_MAX ||
	    (cfg->phi <= 0 && cfg->timeout <= cfg->interval) ||
	    cfg->nids == 0 || cfg->self == 0 || cfg->nonces == NULL)
		return NULL;
	if ((fd = calloc(1, sizeof(*fd))) == NULL)
		return NULL;
	fd->cfg = *cfg;
	fd->cfg.ids = NULL;
	fd->cfg.nonces = NULL;
	if (cfg->phi > 0)
		fd->score = fd_phi_score(cfg->phi);
	if (cfg->nids > FD_CMD_IDS_MAX ||
	    (fd->peers = calloc(cfg->nids, sizeof(*fd->peers))) == NULL ||
	    (fd->out = reallocarray(NULL, FD_ACTS(cfg->nids),
	    sizeof(*fd->out))) == NULL)
		goto fail;
	fd->capout = FD_ACTS(cfg->nids);
	fd->npeers = cfg->nids;
	for (i = 0; i < fd->npeers; i++) {
		fd->peers[i].id = cfg->ids[i];
		sess_init(&fd->peers[i].sess, cfg->nonces + i * SESS_NONCE);
		if (cfg->phi > 0 && (fd->peers[i].phi =
		    calloc(1, sizeof(struct phi))) == NULL)
			goto fail;
		set_limit(fd, &fd->peers[i]);
	}
	qsort(fd->peers, fd->npeers, sizeof(*fd->peers), cmp_peer);
	return fd;
fail:
	fd_free(fd);
	return NULL;
}

void
fd_free(struct fd *fd)
{
	size_t i;

	if (fd == NULL)
		return;
	for (i = 0; fd->peers != NULL && i < fd->npeers; i++)
		free(fd->peers[i].phi);
	free(fd->peers);
	free(fd->out);
	sodium_memzero(&fd->cfg.key, sizeof(fd->cfg.key));
	free(fd);
}

/* A new action, within the room fd_new() made for one input. */
static struct fd_act *
act(struct fd *fd, enum fd_act_kind kind, unsigned id)
{
	struct fd_act *a;

	assert(fd->nout < fd->capout);
	a = &fd->out[fd->nout++];
	a->kind = kind;
	a->peer = id;
	a->why = NULL;
	a->len = 0;
	return a;
}

static void
send_msg(struct fd *fd, struct peer *p, uint8_t type,
    const uint8_t *payload, size_t len)
{
	struct wire_msg m = {
		.type = type,
		.from = (uint16_t)fd->cfg.self,
		.to = (uint16_t)p->id,
		.inc = fd->cfg.incarnation,
		.seq = p->tx_seq + 1,
		.payload = payload,
		.len = len,
	};
	struct fd_act *a;

	a = act(fd, FD_ACT_SEND, p->id);
	if ((a->len = wire_encode(&fd->cfg.key, &fd_wire, &m, a->buf,
	    sizeof(a->buf))) == 0) {
		fd->nout--;
		return;
	}
	p->tx_seq++;
	fd->stats.sent++;
}

/* The period of MONITOR requests while a peer is heard. */
static int64_t
refresh(const struct fd *fd)
{
	return max64(FD_REFRESH * fd->cfg.interval, 1000 * FD_MS);
}

static void
send_monitor(struct fd *fd, struct peer *p)
{
	int64_t lease = 3 * refresh(fd);
	uint8_t pl[8];

	wire_put32(pl, (uint32_t)(fd->cfg.interval / 1000));
	wire_put32(pl + 4, (uint32_t)(min64(lease, FD_LEASE_MAX) / FD_MS));
	send_msg(fd, p, FD_MSG_MONITOR, pl, sizeof(pl));
}

static void
drop(struct fd *fd, unsigned from, const char *why)
{
	struct fd_act *a;
	size_t i;

	fd->stats.dropped++;
	for (i = 0; i < fd->stats.ndrops; i++)
		if (strcmp(fd->stats.drops[i].why, why) == 0)
			break;
	if (i == fd->stats.ndrops && i < sizeof(fd->stats.drops) / sizeof(fd->stats.drops[0]))
		fd->stats.drops[fd->stats.ndrops++].why = why;
	if (i < fd->stats.ndrops)
		fd->stats.drops[i].n++;
	a = act(fd, FD_ACT_DROP, from);
	a->why = why;
}

/* Ask P for a sign of life now: MONITOR (push) or PING. */
static void
probe(struct fd *fd, struct peer *p, int64_t now)
{
	if (fd->cfg.mode == FD_PUSH)
		send_monitor(fd, p);
	else
		send_msg(fd, p, FD_MSG_PING, NULL, 0);
	p->last_probe = now;
}

static void
report(struct fd *fd, struct peer *p)
{
	p->reported = 1;
	p->gone = 1;
	fd->stats.down++;
	act(fd, FD_ACT_DOWN, p->id);
}

static void
start(struct fd *fd, struct peer *p, int64_t now)
{
	p->monitored = 1;
	p->reported = 0;
	p->beat = 0;
	p->last_heard = now;
	p->start_seq = p->tx_seq;
	set_limit(fd, p);
	/* Ask at once: the first heartbeat comes one round trip later. */
	probe(fd, p, now);
	/*
	 * Reported, monitored without a break and silent since: it is taken
	 * for still down after one interval more, not the whole limit.  Not
	 * at once: it may have come back just now, unheard yet, and a report
	 * is owed only if it is down after the start (Stoller, section 2);
	 * the request just sent is answered within the interval by any
	 * detector that runs.
	 */
	if (p->gone && p->limit > fd->cfg.interval)
		p->last_heard = now - p->limit + fd->cfg.interval;
}

/* The client heard from P: it is up, and its silence starts now. */
static void
alive(struct peer *p, int64_t now)
{
	p->gone = 0;
	if (p->monitored && !p->reported && now > p->last_heard) {
		p->beat = 0;		/* no heartbeat gap for phi */
		p->last_heard = now;
	}
}

static void
stop(struct fd *fd, struct peer *p)
{
	if (p->monitored && fd->cfg.mode == FD_PUSH)
		send_msg(fd, p, FD_MSG_UNMONITOR, NULL, 0);
	p->monitored = 0;
	p->reported = 0;
	/* Unmonitored, it is no longer asked for signs of life. */
	p->gone = 0;
}

static void	due(struct fd *, int64_t);
static void	done(const struct fd *, struct fd_out *);

const char *
fd_command(struct fd *fd, const struct fd_cmd *c, int64_t now,
    struct fd_out *out)
{
	struct peer *p;
	size_t i;

	fd->nout = 0;
	for (i = 0; i < c->n; i++)
		if (peer(fd, c->ids[i]) == NULL) {
			done(fd, out);
			return "unknown node";
		}
	for (i = 0; i < c->n; i++) {
		p = peer(fd, c->ids[i]);
		if (p->id == fd->cfg.self)
			continue;	/* up as long as we run */
		switch (c->op) {
		case FD_OP_START:
			start(fd, p, now);
			break;
		case FD_OP_STOP:
			stop(fd, p);
			break;
		case FD_OP_PLAYDEAD:
			p->dead_to = 1;
			break;
		case FD_OP_PLAYALIVE:
			/* A subscriber hears from us at once. */
			if (p->dead_to && p->subscribed)
				p->next_alive = now;
			p->dead_to = 0;
			break;
		case FD_OP_ALIVE:
			alive(p, now);
			break;
		}
	}
	due(fd, now);
	done(fd, out);
	return NULL;
}

static void
phi_sample(struct phi *ph, int64_t gap)
{
	ph->s[ph->next] = gap;
	ph->next = (ph->next + 1) % FD_PHI_WINDOW;
	if (ph->n < FD_PHI_WINDOW)
		ph->n++;
}

/* A sign of life from P. */
static void
heard(struct fd *fd, struct peer *p, int64_t now)
{
	p->gone = 0;
	if (!p->monitored)
		return;
	/* A gap that ended a report is an outage, not an inter-arrival. */
	if (p->phi != NULL && p->beat && !p->reported) {
		phi_sample(p->phi, now - p->last_heard);
		set_limit(fd, p);
	}
	p->beat = 1;
	p->last_heard = now;
	if (p->reported && fd->cfg.report_up) {
		p->reported = 0;
		fd->stats.up++;
		act(fd, FD_ACT_UP, p->id);
	}
}

static const char *
on_monitor(struct fd *fd, struct peer *p, const struct wire_msg *m,
    int64_t now)
{
	int64_t interval, lease;

	if (m->len != 8)
		return "bad-payload";
	interval = (int64_t)wire_get32(m->payload) * 1000;
	lease = (int64_t)wire_get32(m->payload + 4) * FD_MS;
	if (interval < FD_INTERVAL_MIN || interval > FD_INTERVAL_MAX ||
	    lease < interval || lease > FD_LEASE_MAX)
		return "bad-payload";
	if (!p->subscribed)
		p->next_alive = now;
	p->subscribed = 1;
	p->sub_interval = interval;
	p->sub_until = now + lease;
	return NULL;
}

static const char *
on_pong(struct fd *fd, struct peer *p, const struct wire_msg *m, int64_t now)
{
	uint64_t echo;

	if (m->len != 8)
		return "bad-payload";
	echo = wire_get64(m->payload);
	/* Only an answer to a PING sent since the latest start counts. */
	if (echo > p->start_seq && echo <= p->tx_seq)
		heard(fd, p, now);
	return NULL;
}

static void
misfit(struct fd *fd, struct peer *p)
{
	struct fd_act *a;

	a = act(fd, FD_ACT_MISFIT, p->id);
	a->why = sess_misfit_name(p->sess.misfit);
}

/* A new process: up now, and ask it now for heartbeats. */
static void
on_hello(struct fd *fd, struct peer *p, int64_t now)
{
	alive(p, now);
	if (p->monitored)
		probe(fd, p, now);
}

static const char *
on_message(struct fd *fd, struct peer *p, const struct wire_msg *m,
    int64_t now)
{
	uint8_t pl[8];

	switch (m->type) {
	case FD_MSG_MONITOR:
		return on_monitor(fd, p, m, now);
	case FD_MSG_PONG:
		return on_pong(fd, p, m, now);
	}
	if (m->len != 0)
		return "bad-payload";
	switch (m->type) {
	case FD_MSG_UNMONITOR:
		p->subscribed = 0;
		break;
	case FD_MSG_ALIVE:
		heard(fd, p, now);
		break;
	case FD_MSG_PING:
		if (!p->dead_to) {
			wire_put64(pl, m->seq);
			send_msg(fd, p, FD_MSG_PONG, pl, sizeof(pl));
		}
		break;
	case FD_MSG_HELLO:
		on_hello(fd, p, now);
		break;
	}
	return NULL;
}

void
fd_datagram(struct fd *fd, const uint8_t *buf, size_t len, unsigned src,
    int64_t now, struct fd_out *o)
{
	struct wire_msg m;
	struct peer *p;
	const char *why;
	uint64_t hinc;
	int changed = 0;
	enum sess_take take;

	fd->nout = 0;
	if ((why = wire_decode(&fd->cfg.key, &fd_wire, fd->cfg.self, buf, len,
	    &m)) != NULL) {
		if (strcmp(why, "bad-mac") == 0 && src == m.from &&
		    src != fd->cfg.self && (p = peer(fd, src)) != NULL &&
		    sess_badmac(&p->sess, now))
			misfit(fd, p);
		drop(fd, m.from, why);
		goto out;
	}
	if ((p = peer(fd, m.from)) == NULL) {
		drop(fd, m.from, "unknown-peer");
		goto out;
	}
	if (src != m.from) {
		drop(fd, m.from, "bad-address");
		goto out;
	}
	hinc = p->sess.hwin.valid ? p->sess.hwin.inc : 0;
	take = sess_recv(&p->sess, &fd->cfg.conf, &m, now, &changed, &why);
	if (changed)
		misfit(fd, p);
	if (take == SESS_HELLO) {
		/*
		 * The first HELLO of a newer incarnation: a new process, as
		 * FD_MSG_HELLO said.  Like alive, it only delays a report;
		 * its heartbeats count once it has answered our challenge.
		 */
		if (p->sess.hwin.inc > hinc)
			on_hello(fd, p, now);
		goto took;
	}
	if (why != NULL || (why = on_message(fd, p, &m, now)) != NULL) {
		drop(fd, m.from, why);
		goto out;
	}
took:
	fd->stats.received++;
out:
	due(fd, now);
	done(fd, o);
}

/*
 * When P is owed its next PING, or its next MONITOR: once a period while
 * heard, once an interval while silent for two, since a silent peer may
 * have restarted and forgotten the request.
 */
static int64_t
probe_due(const struct fd *fd, const struct peer *p)
{
	int64_t i = fd->cfg.interval;

	if (fd->cfg.mode == FD_PING)
		return p->last_probe + i;
	return min64(p->last_probe + refresh(fd),
	    max64(p->last_probe + i, p->last_heard + 2 * i));
}

/* Heartbeats owed to subscribers, requests owed to monitored peers. */
static void
due_peer(struct fd *fd, struct peer *p, int64_t now)
{
	struct sess_hello h;
	uint8_t pl[SESS_PAYLOAD_MAX];

	if (sess_due(&p->sess, now)) {
		sess_hello(&p->sess, &fd->cfg.conf, now, &h);
		send_msg(fd, p, WIRE_TYPE_HELLO, pl, sess_hello_put(&h, pl));
	}
	if (p->subscribed && now >= p->sub_until)
		p->subscribed = 0;
	/*
	 * Early by up to a quarter interval: it only shortens the gap the
	 * monitor sees, and lets heartbeats to many peers share one wake-up.
	 */
	if (p->subscribed && now >= p->next_alive - p->sub_interval / 4) {
		if (!p->dead_to)
			send_msg(fd, p, FD_MSG_ALIVE, NULL, 0);
		/* Keep the cadence through late wake-ups, without a burst. */
		p->next_alive = max64(p->next_alive + p->sub_interval,
		    now + p->sub_interval / 2);
	}
	if (!p->monitored)
		return;
	if (now >= probe_due(fd, p) - fd->cfg.interval / 4)
		probe(fd, p, now);
	if (!p->reported && now - p->last_heard >= p->limit)
		report(fd, p);
}

/*
 * While it monitors anyone the core is given the time at least every two
 * intervals (heartbeats, probes of the silent).  A gap of more than three
 * says that this process stood still (paused, starved, or on a host that
 * froze), and on a host that froze every peer's detector stood still
 * too, and wakes in its turn: their silence over the gap says nothing.
 * Heartbeats queued meanwhile were read before (the caller reads
 * datagrams before it ticks).  So silence counts only while this
 * detector runs: the gap is taken off each silent peer's, and each gets
 * at least two intervals from now to be heard.
 */
static void
resumed(struct fd *fd, int64_t now)
{
	int64_t gap = now - fd->last_now, grace = 2 * fd->cfg.interval;
	struct peer *p;
	size_t i;

	if (fd->last_now != 0 && gap > 3 * fd->cfg.interval)
		for (i = 0; i < fd->npeers; i++) {
			p = &fd->peers[i];
			if (p->monitored && !p->reported)
				p->last_heard = max64(min64(p->last_heard +
				    gap, now), now - p->limit + grace);
		}
	if (now > fd->last_now)
		fd->last_now = now;
}

static void
due(struct fd *fd, int64_t now)
{
	size_t i;

	resumed(fd, now);
	for (i = 0; i < fd->npeers; i++)
		if (fd->peers[i].id != fd->cfg.self)
			due_peer(fd, &fd->peers[i], now);
}

void
fd_tick(struct fd *fd, int64_t now, struct fd_out *out)
{
	fd->nout = 0;
	due(fd, now);
	done(fd, out);
}

/* The handshake's first HELLOs, owed from the start, say it now. */
void
fd_hello(struct fd *fd, int64_t now, struct fd_out *out)
{
	fd_tick(fd, now, out);
}

/* When due() must run next. */
static int64_t
deadline(const struct fd *fd)
{
	const struct peer *p;
	int64_t d = INT64_MAX;
	size_t i;

	for (i = 0; i < fd->npeers; i++) {
		p = &fd->peers[i];
		if (p->id == fd->cfg.self)
			continue;
		d = min64(d, sess_deadline(&p->sess));
		/* Exact times; due_peer() also takes what is nearly due. */
		if (p->subscribed)
			d = min64(d, min64(p->sub_until, p->next_alive));
		if (!p->monitored)
			continue;
		d = min64(d, probe_due(fd, p));
		if (!p->reported)
			d = min64(d, p->last_heard + p->limit);
	}
	return d;
}

/* An input's output: its actions and the next wake. */
static void
done(const struct fd *fd, struct fd_out *out)
{
	assert(fd->nout <= fd->capout);
	out->v = fd->out;
	out->n = fd->nout;
	out->wake = deadline(fd);
}

const struct fd_stats *
fd_stats(const struct fd *fd)
{
	return &fd->stats;
}

int64_t
fd_limit(const struct fd *fd, unsigned id)
{
	const struct peer *p = peer(fd, id);

	return p == NULL ? 0 : p->limit;
}

void
fd_set_key(struct fd *fd, const struct wire_key *k)
{
	fd->cfg.key = *k;
}
