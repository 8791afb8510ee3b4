/* Datagram acceptance: see accept.h. */
#include <string.h>

#include "host/accept.h"

static int
epoch_type(uint8_t t)
{
	return t == WIRE_TYPE_WEDGE || t == WIRE_TYPE_WEDGED ||
	    t == WIRE_TYPE_CHANGE;
}

/* Types that carry their own order, not the core's (Assumption 7). */
static int
edge_type(uint8_t t)
{
	return t == WIRE_TYPE_HELLO || epoch_type(t) || t == WIRE_TYPE_NAMES;
}

static long
index_of(const struct host_edge *e, unsigned id)
{
	const struct cluster_node *p = cluster_find(e->peers, id);

	return p == NULL ? -1 : p - e->peers->nodes;
}

static void
drop(struct host_datagram *d, const char *why)
{
	d->take = HOST_DROP;
	d->why = why;
}

/* The order and freshness of a datagram of peer I: 0 when it may go on,
 * else -1 with D's verdict set (a drop, or the handshake's HELLO). */
static int
windowed(struct host_edge *e, long i, int64_t now, struct host_datagram *d)
{
	struct sess *s = &e->sess[i];
	const struct wire_msg *w = &d->w;
	const char *why;

	if (!edge_type(w->type) &&
	    !(algo_flags(e->ops) & ALGO_F_ANYORDER) && s->win.valid &&
	    w->inc == s->win.inc && w->seq < s->win.top) {
		drop(d, "late");
		return -1;
	}
	switch (sess_recv(s, e->conf, w, now, &d->misfit, &why)) {
	case SESS_COUNTS:
		return 0;
	case SESS_HELLO:
		d->take = HOST_HELLO;
		return -1;
	case SESS_REFUSED:
		break;
	}
	drop(d, why);
	return -1;
}

void
host_accept(struct host_edge *e, const uint8_t *buf, size_t len,
    const struct sockaddr_storage *src, int64_t now, struct host_datagram *d)
{
	const struct cluster_node *at;
	struct wire_msg *w = &d->w;
	struct sess_hello h;
	const char *why;
	long i;
	int dead;

	memset(d, 0, sizeof(*d));
	d->peer = -1;
	if (len > WIRE_DGRAM_MAX) {
		drop(d, "oversized");
		return;
	}
	why = wire_decode(e->key, e->proto, e->self, buf, len, w);
	d->from = w->from;
	/* The peer it claims to be, at its own address: by id, not by a
	 * scan of every address (a file's addresses are unique). */
	at = cluster_find(e->peers, w->from);
	if (at != NULL && !cluster_same_addr(&at->addr, src))
		at = NULL;
	/* A MAC that fails from a peer's own address names the key. */
	if (why != NULL && strcmp(why, "bad-mac") == 0 && at != NULL &&
	    at->id != e->self) {
		d->peer = at - e->peers->nodes;
		d->misfit = sess_badmac(&e->sess[d->peer], now);
	}
	if (why != NULL) {
		drop(d, why);
		return;
	}
	if ((i = index_of(e, w->from)) == -1) {
		d->stranger = w->type == WIRE_TYPE_HELLO &&
		    sess_hello_parse(w->payload, w->len, &h) == NULL &&
		    h.conf.epoch == e->conf->epoch;
		drop(d, "unknown-peer");
		return;
	}
	d->peer = i;
	dead = e->ops->dead != 0 && w->type == e->ops->dead;
	if (dead ? !cluster_same_host(&e->peers->nodes[i].addr, src) :
	    at == NULL) {
		if (!dead && !e->misaddressed[i])
			d->misaddressed = e->misaddressed[i] = 1;
		drop(d, "bad-address");
		return;
	}
	if (!edge_type(w->type) && algo_msg_name(e->ops, w->type) == NULL) {
		drop(d, "bad-type");
		return;
	}
	if ((w->type != WIRE_TYPE_NAMES && w->len > ALGO_PAYLOAD_MAX) || w->grp.ctr > UINT32_MAX ||
	    (dead && (w->len != 0 || w->grp.node != w->from ||
	    w->grp.inc != w->inc || w->grp.ctr != 0))) {
		drop(d, "bad-payload");
		return;
	}
	if (!dead && windowed(e, i, now, d) == -1)
		return;
	/* A Dead releases a lease at once.  Without a key anyone on the
	 * host could forge one, so none counts; with it, only for an
	 * incarnation the handshake has shown, not one still to come. */
	if (dead && e->key->insecure) {
		drop(d, "dead-insecure");
		return;
	}
	if (dead && (!e->sess[i].win.valid || w->inc > e->sess[i].win.inc)) {
		drop(d, "dead-unseen");
		return;
	}
	/* A change's messages cross between epochs. */
	if (epoch_type(w->type)) {
		d->take = HOST_EPOCH;
		return;
	}
	/* A peer of another epoch confirms (session.h), but a core only
	 * hears the cores of its own epoch. */
	if (e->sess[i].epoch != e->conf->epoch) {
		drop(d, "epoch");
		return;
	}
	if (w->type == WIRE_TYPE_NAMES) {
		d->take = HOST_NAMES;
		return;
	}
	d->take = dead ? HOST_DEAD : HOST_CORE;
	d->m.peer = w->from;
	d->m.type = w->type;
	d->m.len = (uint16_t)w->len;
	d->m.elid.node = w->grp.node;
	d->m.elid.inc = w->grp.inc;
	d->m.elid.ctr = (uint32_t)w->grp.ctr;
	memcpy(d->m.payload, w->payload, w->len);
}

void
host_wire_of(const struct algo_msg *m, struct wire_msg *w)
{
	memset(w, 0, sizeof(*w));
	w->type = m->type;
	w->grp.node = m->elid.node;
	w->grp.inc = m->elid.inc;
	w->grp.ctr = m->elid.ctr;
	w->payload = m->payload;
	w->len = m->len;
}

size_t
host_seal(struct host_edge *e, long i, uint64_t inc, struct wire_msg *w,
    uint8_t *buf)
{
	size_t len;

	w->from = (uint16_t)e->self;
	w->to = (uint16_t)e->peers->nodes[i].id;
	w->inc = inc;
	w->seq = e->seq[i] + 1;
	if ((len = wire_encode(e->key, e->proto, w, buf,
	    WIRE_DGRAM_MAX)) == 0)
		return 0;
	e->seq[i]++;
	return len;
}
