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

#endif
