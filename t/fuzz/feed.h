/*
 * The fuzzer's input read as a stream of choices: each byte picks the
 * next input, peer or delay, and an exhausted input reads as zeros.
 */
#ifndef ELECT_T_FEED_H
#define ELECT_T_FEED_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "net/cluster.h"

struct feed {
	const uint8_t	*p;
	size_t		 n;
};

static inline uint8_t
byte(struct feed *f)
{
	if (f->n == 0)
		return 0;
	f->n--;
	return *f->p++;
}

/* SS: IPv4 address IP (host order), port PORT. */
static inline void
addr(struct sockaddr_storage *ss, uint32_t ip, uint16_t port)
{
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	a->sin_addr.s_addr = htonl(ip);
}

/* NODES: ids 1..N at 127.0.0.I, port 7000 + I - 1. */
static inline void
loopback_nodes(struct cluster_node *nodes, size_t n)
{
	size_t i;

	memset(nodes, 0, n * sizeof(*nodes));
	for (i = 0; i < n; i++) {
		nodes[i].id = (unsigned)i + 1;
		nodes[i].port = (uint16_t)(7000 + i);
		addr(&nodes[i].addr, 0x7f000001u + (uint32_t)i, nodes[i].port);
		nodes[i].addrlen = sizeof(struct sockaddr_in);
	}
}

#endif
