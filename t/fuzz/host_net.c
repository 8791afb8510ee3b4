/*
 * A host's edge toward its peers (lib/host/net) on arbitrary inputs:
 * node 1 of a lease cluster of three, insecure so that the fuzzer can make
 * good datagrams, fed datagrams from the peers' addresses or a stranger's,
 * ticks, verdicts, its core's messages, named leaderships' rounds,
 * detector reports and its core's start, in any order.  Checked as it
 * goes: every bound of net.h (its asserts), a core's message only once
 * the core started and only from a confirmed peer, a names round only
 * from a confirmed peer and to one, whole, a datagram sealed within the wire's size and only to a
 * peer, held and early messages within their bounds, ready only once
 * every peer is confirmed and answered, a wake never in the past but for
 * a full out.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "host/net.h"
#include "feed.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define NODES	3
#define MS	INT64_C(1000000)

static void
check(const struct hnet *h, const struct hnet_out *o)
{
	const struct hnet_action *a;
	size_t k, i;

	if (o->n > HNET_ACTS || o->nsent > HNET_SENDS)
		abort();
	for (k = 0; k < o->n; k++) {
		a = &o->v[k];
		if (a->type == HNET_SEND && (a->len == 0 ||
		    a->len > WIRE_DGRAM_MAX || a->id < 2 || a->id > NODES))
			abort();
		if (a->type == HNET_CORE && (!h->started || a->i < 1 ||
		    !h->sess[a->i].confirmed || a->msg->len > ALGO_PAYLOAD_MAX))
			abort();
		if (a->type == HNET_NAMES && (a->i < 1 ||
		    !h->sess[a->i].confirmed || a->id != (unsigned)a->i + 1 ||
		    a->w->type != WIRE_TYPE_NAMES ||
		    a->w->len > WIRE_PAYLOAD_MAX))
			abort();
	}
	for (i = 0; i < NODES; i++)
		if (h->p[i].nheld > HNET_HOLD)
			abort();
	if (h->nearly > HNET_EARLY || h->npool > HNET_POOL)
		abort();
	if (hnet_ready(h))
		for (i = 1; i < NODES; i++)
			if (!h->sess[i].confirmed || h->sess[i].owed)
				abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct wire_key insecure = { .insecure = 1 };
	static struct hnet_out o;
	struct wire_proto proto = { WIRE_MAGIC_NODE, 0, 1, 1 };
	struct cluster_node nodes[NODES];
	struct cluster file = { .n = NODES, .nodes = nodes };
	struct sess_conf conf;
	struct sockaddr_storage src;
	struct hnet h;
	struct hnet_conf hc;
	struct algo_msg m;
	struct wire_msg w;
	struct feed f = { data, size };
	uint8_t nonces[NODES * SESS_NONCE], dg[WIRE_DGRAM_MAX + 1];
	const struct algo_ops *ops = algo_find("lease");
	int64_t now = MS, wake;
	size_t i, n;
	uint8_t op;

	if (sodium_init() == -1)
		abort();
	loopback_nodes(nodes, NODES);
	memset(&conf, 0, sizeof(conf));
	memset(nonces, 0x11, sizeof(nonces));
	proto.maxtype = (uint8_t)(ops->nmsg - 1);
	hc = (struct hnet_conf){ .self = 1, .ops = ops, .key = &insecure,
	    .proto = &proto, .conf = &conf, .inc = 1, .cluster = "fuzz" };
	hnet_init(&h, &hc);
	if (hnet_peers(&h, &file, 1, nonces) == -1)
		abort();
	while (f.n > 0) {
		op = byte(&f);
		now += (op >> 4) * MS;
		hnet_out_clear(&o);
		switch (op & 7) {
		case 0:
		case 1:		/* a datagram from a peer, or a stranger */
			n = byte(&f) * 5;
			if (n > f.n)
				n = f.n;
			if (n > sizeof(dg))
				n = sizeof(dg);
			memcpy(dg, f.p, n);
			f.p += n, f.n -= n;
			i = byte(&f) % (NODES + 1);
			addr(&src, 0x7f000001u + (uint32_t)i, (uint16_t)(7000 +
			    i));
			hnet_recv(&h, dg, n, &src, now, &o);
			break;
		case 2:
			if ((wake = hnet_tick(&h, now, &o)) < now)
				abort();
			break;
		case 3:
			if ((wake = hnet_fit(&h, now, &o)) < now)
				abort();
			break;
		case 4:		/* the core sends */
			memset(&m, 0, sizeof(m));
			m.type = byte(&f);
			m.peer = (uint16_t)(byte(&f) % (NODES + 1));
			m.len = (uint16_t)(byte(&f) * 8);
			hnet_send(&h, &m, now, &o);
			break;
		case 5:
			if (!(op & 8)) {
				hnet_monitor(&h, byte(&f) % (NODES + 1),
				    byte(&f) & 1);
				break;
			}
			/* A names round, sent only to a confirmed peer. */
			memset(&w, 0, sizeof(w));
			w.type = WIRE_TYPE_NAMES;
			w.payload = dg;
			w.len = byte(&f) * 5;
			i = byte(&f) % (NODES + 1);
			if (hnet_send_wire(&h, (unsigned)i, &w, &o) &&
			    (i < 2 || !h.sess[i - 1].confirmed))
				abort();
			break;
		case 6:
			hnet_down(&h, byte(&f) % (NODES + 1), &o);
			break;
		case 7:
			hnet_start(&h);
			while (hnet_early(&h, &m))
				if (m.len > ALGO_PAYLOAD_MAX)
					abort();
			break;
		}
		check(&h, &o);
	}
	hnet_out_clear(&o);
	hnet_flush(&h, now, &o);
	check(&h, &o);
	hnet_free(&h);
	return 0;
}
