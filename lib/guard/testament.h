/*
 * A daemon's testament: the datagrams that say, on an elect-node daemon's
 * behalf, that its incarnation is dead (the lease algorithm's Dead, whose
 * type algo_ops names), one per peer, with the addresses they go from and
 * to.  The daemon writes it into its state directory, owner only, before
 * it answers its control socket and whenever its incarnation or its peers
 * change; --run-if-leader, which may read it when it runs as the daemon's
 * user or root, reads it while the daemon lives and sends it once the
 * daemon's process has ended and every guarded command of the node is
 * dead (guard.h, GUARD_RELEASE; elect-node(1), FILES).
 *
 * The file is text, every line ending in a newline:
 *
 *	elect-testament 1
 *	node ID pid PID inc INC
 *	from HOST PORT
 *	to ID HOST PORT HEX		one per peer, 0 .. TESTAMENT_PEERS_MAX
 *
 * HOST is a numeric address (IPv4, or IPv6 with an optional %scope), HEX
 * the datagram in lowercase hexadecimal.  The datagrams go from the
 * node's host address (from), on any port: peers take a Dead from the
 * node's host, as the daemon's own port may be held again by a daemon
 * restarted meanwhile.  The peers' ids are distinct and
 * not the node's.  Parsing is strict and pure.
 *
 * The guarded commands of a node hold TESTAMENT_LOCK, a file of the state
 * directory, shared, from before they register until they are dead; the
 * testament is sent only under it exclusively, so only once none runs.
 */
#ifndef ELECT_TESTAMENT_H
#define ELECT_TESTAMENT_H

#include <stddef.h>
#include <stdint.h>

#include "algo/algo.h"
#include "net/wire.h"

#define TESTAMENT_NAME		"testament"
#define TESTAMENT_LOCK		"tasks.lock"
#define TESTAMENT_VERSION	1
#define TESTAMENT_PEERS_MAX	(ALGO_NODES_MAX - 1)
#define TESTAMENT_HOST_MAX	64	/* with its NUL */
#define TESTAMENT_DGRAM_MAX	128	/* bytes of one datagram */
/* The longest file: a header and the longest line for every peer. */
#define TESTAMENT_FILE_MAX	(256 + TESTAMENT_PEERS_MAX * \
	(3 + 6 + TESTAMENT_HOST_MAX + 6 + 2 * TESTAMENT_DGRAM_MAX + 1))

struct testament_to {
	unsigned	 id;
	char		 host[TESTAMENT_HOST_MAX];
	unsigned	 port;
	uint8_t		 dgram[TESTAMENT_DGRAM_MAX];
	size_t		 len;
};

struct testament {
	unsigned	 node;
	long long	 pid;
	uint64_t	 inc;
	char		 host[TESTAMENT_HOST_MAX];	/* from */
	unsigned	 port;
	struct testament_to *to;	/* n of them, allocated */
	size_t		 n;
};

/* Fills *T from the LEN bytes of TEXT: 0, or -1 with "line N: why" in
 * ERR and *T empty.  Free with testament_free(). */
int	 testament_parse(const char *text, size_t len, struct testament *t,
	    char *err, size_t errlen);
void	 testament_free(struct testament *);

/* One "to" line for a datagram of LEN bytes (at most
 * TESTAMENT_DGRAM_MAX) into BUF: its length, or 0 when it does not fit
 * or breaks a rule of the parser. */
size_t	 testament_line(unsigned id, const char *host, unsigned port,
	    const uint8_t *dgram, size_t len, char *buf, size_t buflen);

/* The Dead of incarnation INC of node SELF to peer TO, of the algorithm's
 * type DEAD, sealed under K into BUF (WIRE_DGRAM_MAX bytes): its length,
 * or 0.  Sealed ahead, with sequence number 1: a Dead skips the window
 * (host/accept.h), and a guard sends it after the daemon is gone. */
size_t	 testament_seal(const struct wire_key *k, const struct wire_proto *p,
	    uint8_t dead, unsigned self, unsigned to, uint64_t inc,
	    uint8_t *buf);

#endif
