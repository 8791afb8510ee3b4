/* One host's edge toward its peers: see net.h. */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <assert.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "host/net.h"

/* A message as far as its payload goes. */
#define MSG_SIZE(m)	(offsetof(struct algo_msg, payload) + (m)->len)

static void	unpool(struct hnet *, size_t);

static struct hnet_action *
act(struct hnet_out *o, enum hnet_act_type t)
{
	struct hnet_action *a;

	/* Every call bounds what it adds (net.h): more is a bug here. */
	assert(o->n < HNET_ACTS);
	a = &o->v[o->n++];
	memset(a, 0, sizeof(*a));
	a->type = t;
	a->i = -1;
	return a;
}

/* Room for one more line and one more datagram. */
static int
room(const struct hnet_out *o)
{
	return o->n + 2 < HNET_ACTS && o->tlen + HNET_TEXT_LINE <= HNET_TEXT &&
	    o->nsent < HNET_SENDS;
}

static void __attribute__((format(printf, 3, 4)))
text(struct hnet_out *o, struct hnet_action *a, const char *fmt, ...)
{
	va_list ap;
	size_t left = sizeof(o->text) - o->tlen;
	int n;

	if (left > HNET_TEXT_LINE)
		left = HNET_TEXT_LINE;
	va_start(ap, fmt);
	n = vsnprintf(o->text + o->tlen, left, fmt, ap);
	va_end(ap);
	a->text = o->text + o->tlen;
	o->tlen += n < 0 ? 1 : (size_t)n >= left ? left : (size_t)n + 1;
}

#define TRACE(o, ...)	text((o), act((o), HNET_TRACE), __VA_ARGS__)

static void __attribute__((format(printf, 3, 4)))
say(struct hnet_out *o, int warn, const char *fmt, ...)
{
	struct hnet_action *a = act(o, HNET_LOG);
	char line[HNET_TEXT_LINE];
	va_list ap;

	a->warn = warn;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	text(o, a, "%s", line);
}

void
hnet_out_clear(struct hnet_out *o)
{
	o->n = o->tlen = o->nsent = 0;
}

static struct host_edge
edge(struct hnet *h)
{
	struct host_edge e = {
		.self = h->c.self, .ops = h->c.ops, .key = h->c.key,
		.proto = h->c.proto, .conf = h->c.conf, .peers = &h->peers,
		.sess = h->sess, .seq = h->seq,
		.misaddressed = h->misaddressed,
	};

	return e;
}

/* Whether peer I is ready, as its handshake now says. */
static void
mark(struct hnet *h, long i)
{
	uint8_t r = h->peers.nodes[i].id != h->c.self &&
	    h->sess[i].confirmed && !h->sess[i].owed;

	if (r == h->p[i].ready)
		return;
	h->p[i].ready = r;
	if (r)
		h->nready++;
	else
		h->nready--;
}

void
hnet_init(struct hnet *h, const struct hnet_conf *c)
{
	memset(h, 0, sizeof(*h));
	h->c = *c;
	/* Lease leads by quorums of grants (host/fit.h). */
	fit_init(&h->fit, (algo_flags(c->ops) & ALGO_F_DEADLINE) != 0);
}

static void
tables_free(struct hnet *h)
{
	free(h->sess);
	free(h->seq);
	free(h->misaddressed);
	free(h->p);
	free(h->fitp);
	h->fitp = NULL;
	h->sess = NULL;
	h->seq = NULL;
	h->misaddressed = NULL;
	h->p = NULL;
}

void
hnet_free(struct hnet *h)
{
	free(h->early);
	free(h->pool);
	h->early = NULL;
	h->pool = NULL;
	tables_free(h);
	cluster_free(&h->peers);
}

long
hnet_index(const struct hnet *h, unsigned id)
{
	const struct cluster_node *p = cluster_find(&h->peers, id);

	return p == NULL ? -1 : p - h->peers.nodes;
}

int
hnet_peers(struct hnet *h, const struct cluster *u, int fresh,
    const uint8_t *nonces)
{
	struct hnet old = *h;
	struct cluster c;
	size_t i, n = u->n;
	long j;

	assert(n <= ALGO_NODES_MAX);
	if ((h->early == NULL && (h->early = calloc(HNET_EARLY,
	    sizeof(*h->early))) == NULL) || (h->pool == NULL &&
	    (h->pool = calloc(HNET_POOL, sizeof(*h->pool))) == NULL))
		return -1;
	old.early = h->early;
	old.pool = h->pool;
	if (cluster_copy(&c, u) == -1)
		return -1;
	h->sess = calloc(n, sizeof(*h->sess));
	h->seq = calloc(n, sizeof(*h->seq));
	h->misaddressed = calloc(n, sizeof(*h->misaddressed));
	h->p = calloc(n, sizeof(*h->p));
	h->fitp = calloc(n + 1, sizeof(*h->fitp));
	if (h->sess == NULL || h->seq == NULL || h->misaddressed == NULL ||
	    h->p == NULL || h->fitp == NULL) {
		tables_free(h);
		*h = old;
		cluster_free(&c);
		return -1;
	}
	for (i = 0; i < n; i++) {
		j = fresh ? -1 : hnet_index(&old, c.nodes[i].id);
		if (j == -1) {
			sess_init(&h->sess[i], nonces + i * SESS_NONCE);
			continue;
		}
		h->sess[i] = old.sess[j];
		h->seq[i] = old.seq[j];
		h->misaddressed[i] = old.misaddressed[j];
		h->p[i] = old.p[j];
	}
	tables_free(&old);
	cluster_free(&old.peers);
	h->peers = c;
	h->nready = 0;
	for (i = 0; i < n; i++) {
		h->p[i].ready = 0;
		mark(h, (long)i);
	}
	/* What waited for a handshake begun anew, or for a peer gone, is
	 * lost. */
	for (i = 0; i < h->npool; )
		if (fresh || hnet_index(h, h->pool[i].m.peer) == -1)
			unpool(h, i);
		else
			i++;
	hnet_touch(h);
	return 0;
}

void
hnet_touch(struct hnet *h)
{
	h->due = h->fit_due = 0;
}

/* Seals W for peer I into the next datagram of O: 1, or 0 when the wire
 * refuses it. */
static int
seal(struct hnet *h, long i, struct wire_msg *w, uint64_t inc,
    struct hnet_out *o)
{
	int hello = w->type == WIRE_TYPE_HELLO;
	struct host_edge e = edge(h);
	struct hnet_action *a;
	size_t len;

	assert(o->nsent < HNET_SENDS);
	if ((len = host_seal(&e, i, inc, w, o->dgram[o->nsent])) == 0)
		return 0;
	a = act(o, HNET_SEND);
	a->i = i;
	a->id = h->peers.nodes[i].id;
	a->dgram = o->dgram[o->nsent++];
	a->len = len;
	a->hello = hello;
	return 1;
}

static int
is_request(const struct hnet *h, uint8_t type)
{
	const char *name = algo_msg_name(h->c.ops, type);

	return name != NULL && strcmp(name, "Request") == 0;
}

static int
is_answer(const struct hnet *h, uint8_t type)
{
	const char *name = algo_msg_name(h->c.ops, type);

	return name != NULL && (strcmp(name, "Ok") == 0 ||
	    strcmp(name, "Refuse") == 0);
}

static void
send_now(struct hnet *h, long i, const struct algo_msg *m, int64_t now,
    struct hnet_out *o)
{
	struct wire_msg w;

	host_wire_of(m, &w);
	/* A guard's Dead goes as the incarnation it names. */
	if (!seal(h, i, &w, h->c.ops->dead != 0 && m->type == h->c.ops->dead ?
	    m->elid.inc : h->c.inc, o))
		return;
	/* A lease renewal's round trip, for the metrics. */
	if (is_request(h, m->type))
		h->p[i].asked = now;
}

/* Pool entry K out, the others kept in order. */
static void
unpool(struct hnet *h, size_t k)
{
	long i = hnet_index(h, h->pool[k].m.peer);

	if (i != -1 && h->p[i].nheld > 0)
		h->p[i].nheld--;
	memmove(&h->pool[k], &h->pool[k + 1],
	    (h->npool - k - 1) * sizeof(*h->pool));
	h->npool--;
}

/* M for peer I, held: the oldest of its own lost past HNET_HOLD, the
 * oldest of all past HNET_POOL, as UDP may lose them. */
static void
hold(struct hnet *h, long i, const struct algo_msg *m, int64_t now)
{
	size_t k;

	if (h->p[i].nheld == HNET_HOLD) {
		for (k = 0; h->pool[k].m.peer != m->peer; k++)
			assert(k + 1 < h->npool);
		unpool(h, k);
	} else if (h->npool == HNET_POOL)
		unpool(h, 0);
	h->pool[h->npool].m = *m;
	h->pool[h->npool++].at = now;
	h->p[i].nheld++;
}

void
hnet_send(struct hnet *h, const struct algo_msg *m, int64_t now,
    struct hnet_out *o)
{
	long i;

	if ((i = hnet_index(h, m->peer)) == -1 || m->peer == h->c.self) {
		say(o, 1, "core sent to %u, not a peer", m->peer);
		return;
	}
	if (m->len > ALGO_PAYLOAD_MAX || m->type == 0 ||
	    m->type > h->c.proto->maxtype) {
		say(o, 1, "core sent a message the wire refuses (type %u)",
		    m->type);
		return;
	}
	if (!h->sess[i].confirmed || h->sess[i].owed) {
		hold(h, i, m, now);
		hnet_touch(h);
	} else
		send_now(h, i, m, now, o);
}

int
hnet_send_wire(struct hnet *h, unsigned id, struct wire_msg *w,
    struct hnet_out *o)
{
	long i;

	if ((i = hnet_index(h, id)) == -1 || id == h->c.self ||
	    !h->sess[i].confirmed)
		return 0;
	return seal(h, i, w, h->c.inc, o);
}

/* Peer I's HELLO if owed, then what waited for its handshake. */
static void
serve(struct hnet *h, long i, int64_t now, struct hnet_out *o)
{
	struct hnet_held held;
	uint8_t pl[SESS_PAYLOAD_MAX];
	struct sess_hello hello;
	struct wire_msg w;
	size_t k;

	if (sess_due(&h->sess[i], now)) {
		sess_hello(&h->sess[i], h->c.conf, now, &hello);
		memset(&w, 0, sizeof(w));
		w.type = WIRE_TYPE_HELLO;
		w.payload = pl;
		w.len = sess_hello_put(&hello, pl);
		seal(h, i, &w, h->c.inc, o);
	}
	mark(h, i);
	/* After our answer, which confirms us to the peer. */
	if (!h->sess[i].confirmed || h->sess[i].owed)
		return;
	for (k = 0; h->p[i].nheld > 0 && k < h->npool; ) {
		if (h->pool[k].m.peer != h->peers.nodes[i].id) {
			k++;
			continue;
		}
		held = h->pool[k];
		unpool(h, k);
		/* Older than a retry: a peer that was away; lost, as the
		 * network would have lost it, rather than late. */
		if (now - held.at <= SESS_RETRY)
			send_now(h, i, &held.m, now, o);
	}
}

static void
drop_line(void *arg, unsigned from, const char *why, uint64_t n)
{
	struct hnet_out *o = arg;
	char id[12];

	if (from == 0)
		strlcpy(id, "-", sizeof(id));
	else
		snprintf(id, sizeof(id), "%u", from);
	TRACE(o, "drop from=%s why=%s n=%llu", id, why, (unsigned long long)n);
}

static void
drop_lines(struct hnet *h, int64_t now, struct hnet_out *o)
{
	drops_flush(&h->dropsum, now, drop_line, o);
}

/* What a peer's agreement is now, for a summary's end. */
static const char *
misfit_now(const struct hnet *h, long i)
{
	enum sess_misfit f = h->sess[i].misfit;

	return f == SESS_OK ? "agrees" : f == SESS_KEY ? "fails the MAC" :
	    sess_misfit_name(f);
}

/* The changes counted since the last line, if their window is over (or
 * ALL); when the next is due, INT64_MAX for none. */
static int64_t
misfit_summary(struct hnet *h, int64_t now, int all, struct hnet_out *o)
{
	int64_t next = INT64_MAX;
	size_t i;

	for (i = 0; i < h->peers.n; i++) {
		struct hnet_peer *p = &h->p[i];

		if (p->log_n == 0)
			continue;
		if ((!all && now - p->log_start < HNET_LOG_WINDOW) ||
		    !room(o)) {
			if (p->log_start + HNET_LOG_WINDOW < next)
				next = p->log_start + HNET_LOG_WINDOW;
			continue;
		}
		say(o, 1, "node %u: its agreement changed again n=%llu in "
		    "%lld s (datagrams failing the MAC from its address, "
		    "a forger's?); now %s", h->peers.nodes[i].id,
		    (unsigned long long)p->log_n,
		    (long long)((now - p->log_start + 999999999) / 1000000000),
		    misfit_now(h, (long)i));
		/* Still counting: a flood goes on with one line a window. */
		p->log_start = now;
		p->log_n = 0;
	}
	return next;
}

/* Peer I's configuration differs, or agrees again: said once per state
 * in a window, then counted for a summary while it keeps changing. */
static void
misfit_changed(struct hnet *h, long i, int64_t now, struct hnet_out *o)
{
	const struct sess *s = &h->sess[i];
	struct hnet_peer *p = &h->p[i];
	unsigned id = h->peers.nodes[i].id;

	/* A window over says its count first, and goes on counting. */
	misfit_summary(h, now, 0, o);
	if (p->log_start == 0 || now - p->log_start >= HNET_LOG_WINDOW) {
		p->log_start = now;
		p->log_said = 0;
	}
	if (p->log_said & 1u << s->misfit) {
		p->log_n++;
		return;
	}
	p->log_said |= 1u << s->misfit;
	if (s->misfit == SESS_OK)
		say(o, 1, "node %u: configuration agrees again; counted", id);
	else if (s->misfit == SESS_KEY)
		say(o, 1, "node %u: its datagrams fail the MAC: another key? "
		    "not counted", id);
	else
		say(o, 1, "node %u: its %s differs from ours (%s); not "
		    "counted until it agrees", id, sess_misfit_name(s->misfit),
		    s->misfit == SESS_ALGO ? "-a" : s->misfit == SESS_TIMING ?
		    "timing flags" : h->c.cluster);
}

/*
 * An authenticated datagram of peer I from SRC, not the peer's address in
 * our cluster file: said once per peer (host_accept() decides when), as
 * one of the two files is wrong and every datagram would say it again.
 */
static void
misaddressed(struct hnet *h, long i, const struct sockaddr_storage *src,
    struct hnet_out *o)
{
	const struct cluster_node *p = &h->peers.nodes[i];
	char host[INET6_ADDRSTRLEN], want[CLUSTER_HOST_MAX + 16];
	const void *a;
	unsigned port;
	int v6 = src->ss_family == AF_INET6;

	if (v6) {
		const struct sockaddr_in6 *s6 = (const void *)src;

		a = &s6->sin6_addr;
		port = ntohs(s6->sin6_port);
	} else {
		const struct sockaddr_in *s4 = (const void *)src;

		a = &s4->sin_addr;
		port = ntohs(s4->sin_port);
	}
	if (inet_ntop(src->ss_family, a, host, sizeof(host)) == NULL)
		strlcpy(host, "?", sizeof(host));
	cluster_endpoint(p, p->port, want, sizeof(want));
	say(o, 1, "node %u: its datagrams come from %s%s%s:%u, not %s as %s "
	    "says; not counted (a wrong address in one of the cluster "
	    "files?)", p->id, v6 ? "[" : "", host, v6 ? "]" : "", port, want,
	    h->c.cluster);
}

/* The key peer I's datagrams came under (its MAC's, SLOT of ours): a
 * change is logged, so that a rotation's progress shows host by host. */
static void
peer_keyed(struct hnet *h, long i, int slot, struct hnet_out *o)
{
	struct hnet_peer *p;
	const char *id;

	if (h->c.key->insecure || i < 0 || slot < 0)
		return;
	p = &h->p[i];
	id = slot == 0 ? h->c.key->id : h->c.key->old_id;
	if (strcmp(p->key_id, id) == 0)
		return;
	say(o, 0, "peer-key node=%u peer=%u key=%s prev=%s", h->c.self,
	    h->peers.nodes[i].id, id, p->key_id[0] != '\0' ? p->key_id : "-");
	strlcpy(p->key_id, id, sizeof(p->key_id));
}

void
hnet_drop(struct hnet *h, unsigned from, const char *why, int64_t now,
    struct hnet_out *o)
{
	struct hnet_action *a = act(o, HNET_DROP);

	a->id = from;
	a->why = why;
	h->drops++;
	/* An id outside the cluster is noise: one line for all of them. */
	if (hnet_index(h, from) == -1)
		from = 0;
	if (drops_add(&h->dropsum, from, why, now))
		drop_lines(h, now, o);
}

/* The log says it once per incarnation, whoever sends the copies. */
static void
said_dead(struct hnet *h, long i, uint64_t inc, struct hnet_out *o)
{
	struct hnet_action *a;

	if (h->p[i].dead > inc)
		return;
	h->p[i].dead = inc + 1;
	a = act(o, HNET_DEAD);
	a->i = i;
	a->id = h->peers.nodes[i].id;
	a->inc = inc;
}

/*
 * A message from peer I, authenticated and fresh, is evidence that it is
 * up: the first since its DownSig tells the detector, before the core
 * can restart monitoring it, so that it is not reported again at once
 * (elect-fd(1), alive).  A detector that ignores the line is only slower.
 */
static void
heard_from(struct hnet *h, long i, struct hnet_out *o)
{
	struct hnet_action *a;

	if (!h->p[i].downed)
		return;
	h->p[i].downed = 0;
	a = act(o, HNET_PEER);
	a->i = i;
	a->id = h->peers.nodes[i].id;
	a->up = 1;
	text(o, act(o, HNET_FD), "alive %u", a->id);
}

/* M for a core not yet started: kept, the oldest lost past HNET_EARLY
 * (counted as a drop, as the network would have lost it). */
static void
keep(struct hnet *h, const struct algo_msg *m, int64_t now,
    struct hnet_out *o)
{
	if (h->nearly == HNET_EARLY) {
		hnet_drop(h, h->early[h->early_first].peer, "booting", now, o);
		h->early_first = (h->early_first + 1) % HNET_EARLY;
		h->nearly--;
	}
	memcpy(&h->early[(h->early_first + h->nearly) % HNET_EARLY], m,
	    MSG_SIZE(m));
	h->nearly++;
}

void
hnet_start(struct hnet *h)
{
	h->started = 1;
}

int
hnet_early(struct hnet *h, struct algo_msg *m)
{
	if (h->nearly == 0)
		return 0;
	memcpy(m, &h->early[h->early_first],
	    MSG_SIZE(&h->early[h->early_first]));
	h->early_first = (h->early_first + 1) % HNET_EARLY;
	h->nearly--;
	return 1;
}

void
hnet_recv(struct hnet *h, const uint8_t *buf, size_t len,
    const struct sockaddr_storage *src, int64_t now, struct hnet_out *o)
{
	struct host_edge e = edge(h);
	struct host_datagram *d = &o->d;
	struct hnet_action *a = NULL;

	/* Room for what one datagram may add: a drop summary, a peer's
	 * service, a few lines. */
	assert(o->n + DROPS_SLOTS + HNET_HOLD + 12 <= HNET_ACTS &&
	    o->nsent + HNET_HOLD + 1 <= HNET_SENDS);
	host_accept(&e, buf, len, src, now, d);
	if (d->peer != -1)
		mark(h, d->peer);
	/* Only a confirmed peer's message leaves its handshake as it was;
	 * the verdict is looked at again only when what it reads of a peer
	 * changed (a peer's odd_at moving on changes only when the verdict
	 * may change by itself, which its wake-up sees then). */
	if ((d->take != HOST_CORE && d->take != HOST_NAMES) || d->misfit ||
	    d->misaddressed || d->stranger)
		h->due = 0;
	if (d->misfit || d->stranger || (d->peer != -1 &&
	    fit_misfit_of(&h->sess[d->peer]) != h->p[d->peer].fit_seen))
		h->fit_due = 0;
	if (d->misfit)
		misfit_changed(h, d->peer, now, o);
	if (d->misaddressed)
		misaddressed(h, d->peer, src, o);
	if (d->stranger && fit_stranger(&h->fit, d->from, now))
		say(o, 1, "node %u: not in %s, but its HELLO of epoch %u names "
		    "this node: its cluster file differs; not counted",
		    d->from, h->c.cluster, h->c.conf->epoch);
	if (d->take != HOST_DROP)
		peer_keyed(h, d->peer, d->w.keyslot, o);
	switch (d->take) {
	case HOST_DROP:
		hnet_drop(h, d->from, d->why, now, o);
		/* A peer that differs, or fails the MAC, is owed our HELLO
		 * (its answer, or the proof of our key): at once. */
		if (d->peer != -1 && h->sess[d->peer].owed)
			serve(h, d->peer, now, o);
		return;
	case HOST_HELLO:
		/* The handshake went on: answer at once. */
		serve(h, d->peer, now, o);
		return;
	case HOST_EPOCH:
		a = act(o, HNET_EPOCH);
		a->i = d->peer;
		a->id = d->from;
		a->w = &d->w;
		return;
	case HOST_NAMES:
		heard_from(h, d->peer, o);
		h->p[d->peer].heard = now;
		a = act(o, HNET_NAMES);
		a->i = d->peer;
		a->id = d->from;
		a->inc = d->w.inc;
		a->w = &d->w;
		return;
	case HOST_DEAD:
		/* A dead incarnation's last word is no sign of life. */
		said_dead(h, d->peer, d->w.inc, o);
		if (!h->started) {
			keep(h, &d->m, now, o);
			return;
		}
		a = act(o, HNET_CORE);
		a->rtt = -1;
		break;
	case HOST_CORE:
		heard_from(h, d->peer, o);
		h->p[d->peer].heard = now;
		if (!h->started) {
			keep(h, &d->m, now, o);
			return;
		}
		a = act(o, HNET_CORE);
		a->rtt = -1;
		if (h->p[d->peer].asked != 0 && is_answer(h, d->m.type)) {
			a->rtt = now - h->p[d->peer].asked;
			h->p[d->peer].asked = 0;
		}
		break;
	}
	assert(a != NULL);
	a->i = d->peer;
	a->id = d->m.peer;
	a->msg = &d->m;
}

int64_t
hnet_tick(struct hnet *h, int64_t now, struct hnet_out *o)
{
	int64_t next = INT64_MAX, d;
	size_t i;

	if (now < h->due)
		next = h->due;
	for (i = 0; now >= h->due && i < h->peers.n; i++) {
		if (h->peers.nodes[i].id == h->c.self)
			continue;
		/* A full out: the rest at once, in the next call. */
		if (o->nsent + HNET_HOLD + 1 > HNET_SENDS ||
		    o->n + HNET_HOLD + 2 + DROPS_SLOTS + 2 > HNET_ACTS) {
			next = now;
			break;
		}
		serve(h, (long)i, now, o);
		if ((d = sess_deadline(&h->sess[i])) < next)
			next = d;
	}
	if (now >= h->due && next != now)
		h->due = next < now + HNET_RESCAN ? next : now + HNET_RESCAN;
	if (drops_deadline(&h->dropsum) <= now)
		drop_lines(h, now, o);
	if ((d = drops_deadline(&h->dropsum)) < next)
		next = d;
	if ((d = misfit_summary(h, now, 0, o)) < next)
		next = d;
	return next;
}

int64_t
hnet_fit(struct hnet *h, int64_t now, struct hnet_out *o)
{
	struct fit_peer *p = h->fitp;
	struct hnet_action *a;
	size_t i, n = 0;
	int64_t wake;
	int was = h->fit.vetoed, changed;

	if (now < h->fit_due)
		return h->fit_due;
	for (i = 0; i < h->peers.n; i++) {
		if (h->peers.nodes[i].id == h->c.self)
			continue;
		p[n].id = h->peers.nodes[i].id;
		p[n].misfit = h->p[i].fit_seen = fit_misfit_of(&h->sess[i]);
		p[n].odd_at = h->sess[i].odd_at;
		n++;
	}
	changed = fit_step(&h->fit, p, n, now, &wake);
	if (changed) {
		char line[FIT_TEXT_MAX + 32];

		TRACE(o, "%s", fit_line(&h->fit, line, sizeof(line)));
		if (h->fit.vetoed && !was)
			say(o, 1, "mismatch-veto node=%u peers=%s", h->c.self,
			    h->fit.odd);
		else if (!h->fit.vetoed && was)
			say(o, 1, "mismatch-veto-over node=%u peers=%s",
			    h->c.self, h->fit.odd);
	}
	a = act(o, HNET_VERDICT);
	a->changed = changed;
	h->fit_due = wake;
	return wake;
}

void
hnet_flush(struct hnet *h, int64_t now, struct hnet_out *o)
{
	drop_lines(h, now, o);
	misfit_summary(h, now, 1, o);
}

void
hnet_monitor(struct hnet *h, unsigned id, int on)
{
	long i;

	if ((i = hnet_index(h, id)) != -1)
		h->p[i].monitored = (uint8_t)on;
}

int
hnet_down(struct hnet *h, unsigned id, struct hnet_out *o)
{
	struct hnet_action *a;
	long i;

	if ((i = hnet_index(h, id)) == -1)
		return 0;
	if (!h->p[i].monitored)
		return -1;
	if (!h->p[i].downed) {
		a = act(o, HNET_PEER);
		a->i = i;
		a->id = id;
		a->up = 0;
	}
	h->p[i].downed = 1;
	return 0;
}

void
hnet_boot(struct hnet *h, int64_t now)
{
	h->start_by = now + HNET_START_WAIT;
}

int
hnet_may_start(const struct hnet *h, int64_t now, int64_t *at)
{
	*at = h->start_by;
	return hnet_ready(h) || now >= h->start_by;
}

int
hnet_ready(const struct hnet *h)
{
	/* Counted as each peer changes (mark()): a booting host asks
	 * after every datagram. */
	return h->peers.n == 0 || h->nready + 1 >= h->peers.n;
}

const char *
hnet_misfits(const struct hnet *h, char *buf, size_t len)
{
	const char *sep = " mismatch=";
	size_t i;
	int n;

	buf[0] = '\0';
	for (i = 0; i < h->peers.n; i++) {
		if (h->sess[i].misfit == SESS_OK)
			continue;
		n = (int)strlen(buf);
		snprintf(buf + n, len - (size_t)n, "%s%u:%s", sep,
		    h->peers.nodes[i].id, sess_misfit_name(h->sess[i].misfit));
		sep = ",";
	}
	return buf;
}

void
hnet_counts(const struct hnet *h, unsigned *peers, unsigned *up)
{
	size_t i;

	*peers = *up = 0;
	for (i = 0; i < h->peers.n; i++) {
		if (h->peers.nodes[i].id == h->c.self)
			continue;
		(*peers)++;
		*up += !h->p[i].downed;
	}
}
