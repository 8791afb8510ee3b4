/*
 * Host names to addresses from the two sources a cluster names its hosts
 * by, /etc/hosts and DNS, and never through NSS modules: getaddrinfo(3) in
 * a statically linked program (elect-fd, see the Makefile) loads those
 * modules at run time, and they work only with the very glibc it was
 * linked with.  Every binary resolves this way, so that elect-node, its
 * elect-fd and the test tools always agree on an address.
 */
#ifndef ELECT_RESOLVE_H
#define ELECT_RESOLVE_H

#include <sys/socket.h>

#include <netdb.h>

#define RESOLVE_MAX	16	/* addresses kept for one name */

/*
 * Like getaddrinfo(3) for a HOST (not NULL) and a numeric PORT (or NULL),
 * heeding HINTS' ai_family, ai_socktype and AI_NUMERICHOST: a numeric
 * address; else the addresses /etc/hosts gives HOST, in its order; else
 * those DNS gives (IPv4 first, the search domains of resolv.conf(5)
 * applied).  Returns 0, or an EAI_* code for gai_strerror(3).  Free *RES
 * with net_freeaddrinfo().
 */
int	 net_getaddrinfo(const char *host, const char *port,
	    const struct addrinfo *hints, struct addrinfo **res);
void	 net_freeaddrinfo(struct addrinfo *);

#endif
