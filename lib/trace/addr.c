/*
 * The addresses of a collector, "unix:PATH" and "tcp:HOST:PORT", parsed
 * alike by the writer, which connects to them, and by elect-trace collect,
 * which listens on them.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <netdb.h>

#include <errno.h>
#include <string.h>

#include "net/resolve.h"
#include "trace/trace.h"

int
trace_addr_unix(const char *addr, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strncmp(addr, "unix:", 5) != 0 || addr[5] == '\0') {
		errno = EINVAL;
		return -1;
	}
	if (strlcpy(sun->sun_path, addr + 5, sizeof(sun->sun_path)) >=
	    sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
trace_addr_tcp(const char *addr, int passive, struct addrinfo **ai,
    const char **why)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
	    .ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0) };
	char host[256];
	const char *h = addr + 4, *port;
	size_t n;
	int rc;

	if (strncmp(addr, "tcp:", 4) != 0 ||
	    (port = strrchr(h, ':')) == NULL || port == h ||
	    port[1] == '\0' || (n = (size_t)(port - h)) >= sizeof(host)) {
		*why = "expected tcp:HOST:PORT";
		errno = EINVAL;
		return -1;
	}
	if (h[0] == '[' && h[n - 1] == ']') {
		h++;
		n -= 2;
	}
	memcpy(host, h, n);
	host[n] = '\0';
	if ((rc = net_getaddrinfo(host, port + 1, &hints, ai)) != 0) {
		*why = gai_strerror(rc);
		if (rc != EAI_SYSTEM)
			errno = EHOSTUNREACH;
		return -1;
	}
	return 0;
}
