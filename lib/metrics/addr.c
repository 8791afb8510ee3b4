/*
 * --metrics ADDR:PORT, strictly: an IPv4 address in dotted quads or an
 * IPv6 one in brackets, a colon, and a port of 1 to 65535 in plain
 * digits.  Names are refused: what a name resolves to can change, and a
 * metrics port should not open on an address nobody chose.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <string.h>

#include "metrics/metrics.h"

#define HOST_MAX	INET6_ADDRSTRLEN

static int
port_of(const char *s, uint16_t *port)
{
	unsigned long v = 0;
	size_t i, n = strlen(s);

	if (n == 0 || n > 5 || s[0] == '0')
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

const char *
metrics_parse_addr(const char *s, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char host[HOST_MAX];
	const char *colon, *h = s;
	size_t hn;
	uint16_t port;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		if ((colon = strstr(s, "]:")) == NULL)
			return "an IPv6 address goes in brackets: [ADDR]:PORT";
		h = s + 1;
		hn = (size_t)(colon - h);
		colon++;
	} else {
		if ((colon = strrchr(s, ':')) == NULL)
			return "not ADDR:PORT";
		hn = (size_t)(colon - s);
	}
	if (hn == 0 || hn >= sizeof(host))
		return "no address before the port";
	memcpy(host, h, hn);
	host[hn] = '\0';
	if (port_of(colon + 1, &port) == -1)
		return "the port is not 1 to 65535";
	if (s[0] == '[') {
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return "not an IPv6 address";
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		return NULL;
	}
	if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
		return "not an IPv4 address (a name is not taken; IPv6 in "
		    "brackets)";
	in->sin_family = AF_INET;
	in->sin_port = htons(port);
	return NULL;
}
