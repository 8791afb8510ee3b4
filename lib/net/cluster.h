/*
 * The cluster file: which nodes exist and where they listen.
 *
 *	# comment (a '#' starts a comment anywhere on a line)
 *	node ID HOST:PORT [fd=PORT]
 *	epoch N
 *
 * "epoch N" (at most once; 0 when absent, so that every older file stays
 * valid) names the epoch whose membership the nodes are (Nerio 10.6,
 * share/elect/lease.md, Epochs): 0 .. CLUSTER_EPOCH_MAX.
 *
 * ID is 1..65535 (a higher id wins elections).  HOST is a host name, a
 * numeric IPv4 address, or a numeric IPv6 address in brackets
 * ("[::1]:7000").  PORT is 1..65535; the node's failure detector (elect-fd)
 * listens on fd=PORT, by default PORT+1.  Fields are separated by blanks.
 *
 * Parsing is strict: unknown keywords, duplicate ids, two endpoints on the
 * same HOST:PORT (protocol or fd ports, compared as written and again after
 * resolution), over-long lines, NUL bytes and more than CLUSTER_NODES_MAX
 * nodes are errors, reported as "FILE:LINE: why".
 */
#ifndef ELECT_CLUSTER_H
#define ELECT_CLUSTER_H

#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>

#define CLUSTER_NODES_MAX	1024
#define CLUSTER_LINE_MAX	512	/* bytes on one line, without newline */
#define CLUSTER_HOST_MAX	253	/* longest DNS name */
#define CLUSTER_FILE_MAX	(1024 * 1024)	/* cluster_load() reads no more */
#define CLUSTER_ID_MAX		65535
#define CLUSTER_EPOCH_MAX	0xffffffu	/* ALGO_EPOCH_MAX */

struct cluster_node {
	unsigned	 id;
	char		 host[CLUSTER_HOST_MAX + 1];	/* without brackets */
	uint16_t	 port;		/* protocol port (elect-node) */
	uint16_t	 fd_port;	/* failure-detector port (elect-fd) */
	unsigned	 line;		/* where the file defines it */

	/* Filled by cluster_load() only; zero after cluster_parse(). */
	struct sockaddr_storage addr;		/* HOST:port */
	struct sockaddr_storage fd_addr;	/* HOST:fd_port */
	socklen_t	 addrlen;		/* of both */
};

struct cluster {
	char			*file;	/* name used in messages */
	size_t			 n;
	struct cluster_node	*nodes;	/* sorted by id */
	uint32_t		 epoch;	/* "epoch N", or 0 */
	unsigned		 epoch_line;	/* where, or 0: none */
};

/*
 * Parses the LEN bytes of TEXT (need not be NUL-terminated).  FILENAME is
 * only used in messages.  Pure: no I/O, no name resolution.  On success
 * fills *C (free with cluster_free()) and returns 0; on error writes
 * "FILENAME:LINE: why" into ERR and returns -1, leaving *C empty.
 */
int	 cluster_parse(const char *text, size_t len, const char *filename,
	    struct cluster *c, char *err, size_t errlen);

/*
 * Reads PATH (at most CLUSTER_FILE_MAX bytes), parses it and resolves
 * every host with net_getaddrinfo() (numeric addresses, and names from
 * /etc/hosts or DNS; the first answer is used).  Returns 0, or -1 with "PATH[:LINE]: why" in ERR.
 */
int	 cluster_load(const char *path, struct cluster *c, char *err,
	    size_t errlen);

/* Resolves every host of C as cluster_load() does (C from
 * cluster_parse()): 0, or -1 with why in ERR and C freed. */
int	 cluster_resolve(struct cluster *c, char *err, size_t errlen);
/* DST a copy of SRC (free both): 0, or -1 out of memory. */
int	 cluster_copy(struct cluster *dst, const struct cluster *src);
/* U: the nodes of A, then those of B (NULL: none) not in A, sorted by id
 * as A and B are: 0, or -1 with errno (U empty). */
int	 cluster_union(struct cluster *u, const struct cluster *a,
	    const struct cluster *b);

/* The node with id ID, or NULL. */
const struct cluster_node *cluster_find(const struct cluster *, unsigned id);

/* Formats HOST:PORT as the cluster file writes it ("[::1]:7000"). */
void	 cluster_endpoint(const struct cluster_node *, uint16_t port,
	    char *buf, size_t len);

void	 cluster_free(struct cluster *);

/* Same family, address and port; same family and address. */
int	 cluster_same_addr(const struct sockaddr_storage *,
	    const struct sockaddr_storage *);
int	 cluster_same_host(const struct sockaddr_storage *,
	    const struct sockaddr_storage *);
/* The node whose protocol address (FD: detector address) is SS, or NULL:
 * where a datagram really came from, whatever it claims. */
const struct cluster_node *cluster_by_addr(const struct cluster *,
	    const struct sockaddr_storage *ss, int fd);
/* 1 when every node's address is a loopback one (127.0.0.0/8, ::1). */
int	 cluster_loopback(const struct cluster *);

#endif
