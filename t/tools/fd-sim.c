/*
 * fd-sim: drives the detector core (lib/fd) through a script, on a clock
 * of its own: no sockets, no waiting, the same output every run.
 *
 *	fd-sim [-m push|ping] [-p phi] [-u] [-i interval_ms] [-T timeout_ms]
 *
 * Node 1 runs the core in a cluster of nodes 1, 2 and 3.  Script lines on
 * stdin, in time order:
 *	MS cmd LINE		a command line on the core's stdin
 *	MS from ID alive|ping|unmonitor|hello
 *	MS from ID monitor INTERVAL_US LEASE_MS
 *	MS from ID pong SEQ	a datagram from node ID (good, insecure)
 *	MS replay		the last datagram again
 *	MS limit ID		print the silence after which ID is reported
 *	MS stall		the process stood still until MS: the clock
 *				jumps there, and the core is ticked late
 *	MS end			run the clock to MS
 * Before each line the clock runs to MS, ticking the core at each of its
 * deadlines.  Output, one line per action: "MS send ID TYPE [SEQ]",
 * "MS down ID", "MS up ID", "MS drop ID WHY".
 */
#include <err.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd/fd.h"
#include "util/util.h"

static const char *const types[] = { "?", "monitor", "unmonitor", "alive",
	"ping", "pong", "hello" };
static const unsigned ids[] = { 1, 2, 3 };
static const struct wire_key insecure = { .insecure = 1 };

static double
ms(int64_t t)
{
	return (double)t / FD_MS;
}

static void
print(const struct fd *fd, int64_t now)
{
	const struct fd_act *a;
	struct wire_msg m;
	size_t i, n;

	a = fd_actions(fd, &n);
	for (i = 0; i < n; i++, a++) {
		switch (a->kind) {
		case FD_ACT_SEND:
			if (wire_decode(&insecure, &fd_wire, a->peer, a->buf,
			    a->len, &m) != NULL)
				errx(1, "the core sent a bad datagram");
			printf("%g send %u %s", ms(now), a->peer,
			    types[m.type]);
			if (m.type == FD_MSG_MONITOR)
				printf(" %u %u", wire_get32(m.payload),
				    wire_get32(m.payload + 4));
			printf(" seq=%llu\n", (unsigned long long)m.seq);
			break;
		case FD_ACT_DOWN:
			printf("%g down %u\n", ms(now), a->peer);
			break;
		case FD_ACT_UP:
			printf("%g up %u\n", ms(now), a->peer);
			break;
		case FD_ACT_DROP:
			printf("%g drop %u %s\n", ms(now), a->peer, a->why);
			break;
		case FD_ACT_MISFIT:
			printf("%g misfit %u %s\n", ms(now), a->peer,
			    a->why != NULL ? a->why : "none");
			break;
		}
	}
}

/* Runs the clock to T, ticking at every deadline on the way. */
static void
run_to(struct fd *fd, int64_t *now, int64_t t)
{
	int64_t d;

	while ((d = fd_deadline(fd)) <= t) {
		*now = d > *now ? d : *now;
		fd_tick(fd, *now);
		print(fd, *now);
	}
	*now = t;
}

static uint64_t seq[4];

/*
 * The handshake with peers 2 and 3, before the script's time 0 and not
 * printed: the core's HELLOs and its answers take seq 1 and 2 to each
 * peer, the peers' HELLOs seq 1.  Nonces: the core's for peer P is P
 * repeated, peer P's own is 16 * P repeated.
 */
static void
handshake(struct fd *fd, const struct fd_config *cfg)
{
	struct sess_hello h;
	uint8_t pl[SESS_PAYLOAD_MAX], buf[FD_DGRAM_MAX];
	struct wire_msg m = { .type = WIRE_TYPE_HELLO, .to = 1, .inc = 1,
	    .payload = pl };
	size_t len;
	unsigned p;

	fd_tick(fd, -2 * SESS_GAP);
	for (p = 2; p <= 3; p++) {
		memset(h.nonce, (int)(16 * p), sizeof(h.nonce));
		memset(h.echo, (int)p, sizeof(h.echo));
		h.conf = cfg->conf;
		h.confirmed = 1;
		m.len = sess_hello_put(&h, pl);
		m.from = (uint16_t)p;
		m.seq = ++seq[p];
		len = wire_encode(&insecure, &fd_wire, &m, buf, sizeof(buf));
		fd_datagram(fd, buf, len, p, -2 * SESS_GAP);
	}
	fd_tick(fd, -SESS_GAP);
}

static size_t
datagram(char *args, uint8_t *buf, size_t buflen)
{
	uint8_t pl[8];
	struct wire_msg m = { .to = 1, .inc = 1, .payload = pl };
	char *id, *type, *a, *b;
	size_t t;

	id = strsep(&args, " ");
	type = strsep(&args, " ");
	a = strsep(&args, " ");
	b = strsep(&args, " ");
	if (id == NULL || type == NULL)
		errx(EXIT_USAGE, "from: ID TYPE");
	m.from = (uint16_t)arg_num(id, 1, 3, "from");
	for (t = 1; t < nitems(types); t++)
		if (strcmp(type, types[t]) == 0)
			break;
	if (t == nitems(types))
		errx(EXIT_USAGE, "unknown type %s", type);
	m.type = (uint8_t)t;
	if (t == FD_MSG_MONITOR) {
		if (a == NULL || b == NULL)
			errx(EXIT_USAGE, "monitor INTERVAL_US LEASE_MS");
		wire_put32(pl, (uint32_t)arg_num(a, 0, UINT32_MAX, "us"));
		wire_put32(pl + 4, (uint32_t)arg_num(b, 0, UINT32_MAX, "ms"));
		m.len = 8;
	} else if (t == FD_MSG_PONG) {
		if (a == NULL)
			errx(EXIT_USAGE, "pong SEQ");
		wire_put64(pl, (uint64_t)arg_num(a, 0, LLONG_MAX, "seq"));
		m.len = 8;
	}
	m.seq = ++seq[m.from];
	return wire_encode(&insecure, &fd_wire, &m, buf, buflen);
}

int
main(int argc, char *argv[])
{
	struct fd_config cfg = { .self = 1, .ids = ids, .nids = 3,
	    .mode = FD_PUSH, .interval = 50 * FD_MS, .incarnation = 1,
	    .key = { .insecure = 1 } };
	uint8_t last[FD_DGRAM_MAX];
	char line[512], *rest, *word;
	struct fd_cmd c;
	const char *why;
	size_t lastlen = 0;
	int64_t now = 0, t;
	long long timeout = 200;
	uint8_t nonces[3 * SESS_NONCE];
	size_t i;
	struct fd *fd;
	int ch;

	while ((ch = getopt(argc, argv, "i:m:p:T:u")) != -1) {
		switch (ch) {
		case 'i':
			cfg.interval = arg_num(optarg, 1, 60000, "-i") * FD_MS;
			break;
		case 'm':
			cfg.mode = strcmp(optarg, "ping") == 0 ? FD_PING :
			    FD_PUSH;
			break;
		case 'p':
			cfg.phi = (double)arg_num(optarg, 1, 30, "-p");
			break;
		case 'T':
			timeout = arg_num(optarg, 2, 3600000, "-T");
			break;
		case 'u':
			cfg.report_up = 1;
			break;
		default:
			fprintf(stderr, "usage: fd-sim [-m push|ping] [-p phi] "
			    "[-u] [-i ms] [-T ms]\n");
			return EXIT_USAGE;
		}
	}
	if (cfg.phi == 0)
		cfg.timeout = timeout * FD_MS;
	for (i = 0; i < sizeof(nonces); i++)
		nonces[i] = (uint8_t)(i / SESS_NONCE + 1);
	cfg.nonces = nonces;
	if ((fd = fd_new(&cfg)) == NULL)
		errx(EXIT_USAGE, "fd_new refused the configuration");
	handshake(fd, &cfg);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		/* Scripts in the tests are indented. */
		rest = line + strspn(line, " \t");
		if (rest[0] == '#' || rest[0] == '\0')
			continue;
		word = strsep(&rest, " ");
		t = arg_num(word, 0, 86400000, "time") * FD_MS;
		if (t < now)
			errx(EXIT_USAGE, "time goes back: %s", line);
		if (rest != NULL && strcmp(rest, "stall") == 0) {
			now = t;
			fd_tick(fd, now);
			print(fd, now);
			continue;
		}
		run_to(fd, &now, t);
		word = strsep(&rest, " ");
		if (word == NULL || strcmp(word, "end") == 0)
			continue;
		if (strcmp(word, "cmd") == 0) {
			if (rest == NULL ||
			    fd_cmd_parse(rest, strlen(rest), &c, &why) != 1)
				errx(EXIT_USAGE, "bad command: %s", line);
			if ((why = fd_command(fd, &c, now)) != NULL)
				printf("%g refused %s\n", ms(now), why);
		} else if (strcmp(word, "from") == 0) {
			lastlen = datagram(rest, last, sizeof(last));
			fd_datagram(fd, last, lastlen, last[9], now);
		} else if (strcmp(word, "replay") == 0) {
			fd_datagram(fd, last, lastlen, last[9], now);
		} else if (strcmp(word, "limit") == 0) {
			printf("%g limit %.3f\n", ms(now),
			    ms(fd_limit(fd, (unsigned)arg_num(rest, 1, 3,
			    "limit"))));
			continue;
		} else
			errx(EXIT_USAGE, "unknown event: %s", line);
		print(fd, now);
	}
	fd_free(fd);
	return 0;
}
