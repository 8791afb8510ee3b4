/*
 * fd-forge: sends elect-fd hostile or hand-made datagrams, for the tests.
 *
 *	fd-forge -f CLUSTER -d TO [-k KEYFILE] [-i FROM] [-I INC] [-q SEQ]
 *	    [-n COUNT] [-g GAP_MS] [-S] KIND
 *
 * With -S it sends from node FROM's own fd address (which must be free:
 * FROM not running), as a datagram captured from FROM and replayed, or
 * an impostor on FROM's host, would come.
 * Sends COUNT copies of the same datagram (so every copy after the first
 * is a replay) to the fd port of node TO, GAP_MS apart.  Without -k the
 * datagram is insecure (a MAC of zeros).  KIND:
 *	alive		a good ALIVE from FROM (an impostor with the key)
 *	forged		an ALIVE whose MAC is made with another, random key
 *	truncated	a good ALIVE cut short
 *	oversized	a good header followed by too many bytes
 *	bad-magic	an elect-node datagram sent to the fd port
 *	bad-version	a version after this build's
 *	bad-type	message type 200
 *	bad-payload	a MONITOR with a 3-byte payload
 *	misdirected	a good ALIVE for another node (TO + 1)
 *	garbage		random bytes
 */
#include <sys/socket.h>

#include <err.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "fd/fd.h"
#include "net/cluster.h"
#include "net/key.h"
#include "net/wire.h"
#include "util/util.h"

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: fd-forge -f cluster -d to [-k keyfile] "
	    "[-i from] [-I inc] [-q seq]\n"
	    "                [-n count] [-g gap_ms] [-S] kind\n");
	exit(EXIT_USAGE);
}

static size_t
forge(const char *kind, struct wire_key *key, struct wire_msg *m,
    uint8_t *buf, size_t buflen)
{
	struct wire_proto proto = fd_wire;
	uint8_t pl[WIRE_PAYLOAD_MAX];
	size_t len;

	memset(pl, 0, sizeof(pl));
	m->type = FD_MSG_ALIVE;
	m->payload = pl;
	if (strcmp(kind, "forged") == 0) {
		randombytes_buf(key->k, sizeof(key->k));
		key->insecure = 0;
	} else if (strcmp(kind, "bad-magic") == 0)
		proto.magic = WIRE_MAGIC_NODE;
	else if (strcmp(kind, "bad-type") == 0)
		m->type = 200;
	else if (strcmp(kind, "bad-payload") == 0) {
		m->type = FD_MSG_MONITOR;
		m->len = 3;
	} else if (strcmp(kind, "misdirected") == 0)
		m->to++;
	else if (strcmp(kind, "oversized") == 0)
		m->len = WIRE_PAYLOAD_MAX;
	else if (strcmp(kind, "garbage") == 0) {
		randombytes_buf(buf, 100);
		return 100;
	} else if (strcmp(kind, "alive") != 0 &&
	    strcmp(kind, "truncated") != 0 &&
	    strcmp(kind, "bad-version") != 0)
		errx(EXIT_USAGE, "unknown kind %s", kind);
	proto.maxtype = 255;
	if ((len = wire_encode(key, &proto, m, buf, buflen)) == 0)
		errx(1, "wire_encode refused");
	if (strcmp(kind, "truncated") == 0)
		len -= 10;
	else if (strcmp(kind, "oversized") == 0)
		len += 64;	/* buf is large enough */
	else if (strcmp(kind, "bad-version") == 0)
		buf[4] = WIRE_VERSION + 1;
	return len;
}

int
main(int argc, char *argv[])
{
	struct wire_key key = { .insecure = 1 };
	struct wire_msg m = { .from = 2, .inc = 1, .seq = 1 };
	uint8_t buf[2 * WIRE_DGRAM_MAX];
	const struct cluster_node *to;
	struct cluster c;
	struct timespec gap = { 0, 0 };
	const char *cluster = NULL;
	char msg[512];
	long long count = 1, i;
	size_t len;
	int ch, s, spoof = 0;
	const struct cluster_node *from;

	if (sodium_init() == -1)
		errx(1, "sodium_init");
	while ((ch = getopt(argc, argv, "d:f:g:I:i:k:n:q:S")) != -1) {
		switch (ch) {
		case 'S':
			spoof = 1;
			break;
		case 'd':
			m.to = (uint16_t)arg_id(optarg, "-d");
			break;
		case 'f':
			cluster = optarg;
			break;
		case 'g':
			gap.tv_nsec = (long)arg_num(optarg, 0, 999, "-g") *
			    1000000;
			break;
		case 'I':
			m.inc = (uint64_t)arg_num(optarg, 0, LLONG_MAX, "-I");
			break;
		case 'i':
			m.from = (uint16_t)arg_id(optarg, "-i");
			break;
		case 'k':
			if (wire_key_load(&key, optarg, msg, sizeof(msg)) == -1)
				errx(EXIT_USAGE, "%s", msg);
			break;
		case 'n':
			count = arg_num(optarg, 1, 100000, "-n");
			break;
		case 'q':
			m.seq = (uint64_t)arg_num(optarg, 1, LLONG_MAX, "-q");
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 1 || cluster == NULL || m.to == 0)
		usage();
	if (cluster_load(cluster, &c, msg, sizeof(msg)) == -1)
		errx(EXIT_USAGE, "%s", msg);
	if ((to = cluster_find(&c, m.to)) == NULL)
		errx(EXIT_USAGE, "no node %u", m.to);
	len = forge(argv[optind], &key, &m, buf, sizeof(buf));
	if ((s = socket(to->fd_addr.ss_family, SOCK_DGRAM, 0)) == -1)
		err(1, "socket");
	if (spoof && ((from = cluster_find(&c, m.from)) == NULL ||
	    bind(s, (const struct sockaddr *)&from->fd_addr,
	    from->addrlen) == -1))
		err(1, "-S: node %u's fd address", m.from);
	for (i = 0; i < count; i++) {
		if (i > 0)
			nanosleep(&gap, NULL);
		if (sendto(s, buf, len, 0, (const struct sockaddr *)&to->fd_addr,
		    to->addrlen) == -1)
			err(1, "sendto");
	}
	close(s);
	cluster_free(&c);
	return 0;
}
