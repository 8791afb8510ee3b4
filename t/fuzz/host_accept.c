/*
 * Datagram acceptance (lib/host/accept) on arbitrary datagrams, insecure
 * so that the fuzzer can make good ones, from any of four sources: the
 * addresses of nodes 1..3 of a lease cluster and a stranger's, and the
 * port of node 2's host that a guard's Dead comes from.  Checked as it
 * goes: a core's message or a Dead only from a confirmed peer of the
 * file, at its own address (a Dead: its host), within the payload bound;
 * a stranger only for a node not in the file; the verdict as the fit
 * core (lib/host/fit) takes it never leans on a peer that is not live.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "host/accept.h"
#include "host/fit.h"
#include "feed.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define NODES	3
#define MS	INT64_C(1000000)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct wire_key insecure = { .insecure = 1 };
	static const struct wire_proto proto = { WIRE_MAGIC_NODE, 20, 1, 1 };
	struct cluster_node nodes[NODES];
	struct cluster file = { .n = NODES, .nodes = nodes };
	struct sess sess[NODES];
	struct sess_conf conf;
	struct sockaddr_storage src;
	struct host_datagram d;
	struct host_edge e;
	struct fit_peer fp[NODES - 1];
	struct fit fit;
	struct feed f = { data, size };
	uint8_t nonce[SESS_NONCE], dg[WIRE_DGRAM_MAX + 1];
	uint64_t seq[NODES] = { 0 };
	uint8_t misaddressed[NODES] = { 0 };
	int64_t now = MS, wake;
	size_t i, n, k;
	uint8_t s;

	if (sodium_init() == -1)
		abort();
	loopback_nodes(nodes, NODES);
	for (i = 0; i < NODES; i++) {
		memset(nonce, 0x11 + (int)i, sizeof(nonce));
		sess_init(&sess[i], nonce);
	}
	memset(&conf, 0, sizeof(conf));
	e = (struct host_edge){ .self = 1, .ops = algo_find("lease"),
	    .key = &insecure, .proto = &proto, .conf = &conf, .peers = &file,
	    .sess = sess, .seq = seq, .misaddressed = misaddressed };
	fit_init(&fit, 1);
	/* Records: a source byte, a length byte, a datagram. */
	while (f.n > 0) {
		s = byte(&f);
		n = byte(&f) * 5;	/* past WIRE_DGRAM_MAX too: oversized */
		if (n > f.n)
			n = f.n;
		if (n > sizeof(dg))
			n = sizeof(dg);
		memcpy(dg, f.p, n);
		f.p += n, f.n -= n;
		now += (s >> 3) * MS;
		switch (s & 3) {
		case 0:
		case 1:
		case 2:		/* node 1..3's address; 2: another port too */
			addr(&src, 0x7f000001u + (s & 3),
			    (s & 4) ? 40000 : (uint16_t)(7000 + (s & 3)));
			break;
		default:	/* a host of no node */
			addr(&src, 0x7f000009u, 7000);
			break;
		}
		host_accept(&e, dg, n, &src, now, &d);
		if (d.take == HOST_CORE || d.take == HOST_DEAD) {
			if (d.peer < 1 || d.peer >= NODES ||
			    !sess[d.peer].confirmed ||
			    d.m.len > ALGO_PAYLOAD_MAX ||
			    d.m.peer != nodes[d.peer].id)
				abort();
			/* A core's message from its node's own address. */
			if (d.take == HOST_CORE && ((long)(s & 3) != d.peer ||
			    (s & 4)))
				abort();
		}
		if (d.stranger && (d.take != HOST_DROP || d.from == 0 ||
		    cluster_find(&file, d.from) != NULL))
			abort();
		if (d.stranger)
			fit_stranger(&fit, d.from, now);
		for (k = 0, i = 1; i < NODES; i++, k++) {
			fp[k].id = nodes[i].id;
			fp[k].misfit = fit_misfit_of(&sess[i]);
			fp[k].odd_at = sess[i].odd_at;
		}
		fit_step(&fit, fp, k, now, &wake);
		if (fit.vetoed && (fit.live == 0 || wake <= now))
			abort();
	}
	return 0;
}
