/*
 * fd-sim's driver: the detector core through script lines, on a clock of
 * its own (see t/tools/fd-sim.c for the script and what is printed).
 */
#include <err.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd/fd.h"
#include "util/util.h"
#include "drive.h"

static const char *const types[] = { "?", "monitor", "unmonitor", "alive",
	"ping", "pong", "hello" };
static const unsigned ids[] = { 1, 2, 3 };
static const struct wire_key insecure = { .insecure = 1 };

static FILE *fp;			/* where the actions go */
static struct fd *fd;
static int64_t now, wake;
static uint64_t seq[4];
static uint8_t last[FD_DGRAM_MAX];
static size_t lastlen;

static double
ms(int64_t t)
{
	return (double)t / FD_MS;
}

/* An input's output at NOW: its actions, and the wake kept. */
static void
print(const struct fd_out *o)
{
	const struct fd_act *a;
	struct wire_msg m;
	size_t i;

	wake = o->wake;
	for (i = 0, a = o->v; i < o->n; i++, a++) {
		switch (a->kind) {
		case FD_ACT_SEND:
			if (wire_decode(&insecure, &fd_wire, a->peer, a->buf,
			    a->len, &m) != NULL)
				drive_bad("the core sent a bad datagram");
			fprintf(fp, "%g send %u %s", ms(now), a->peer,
			    types[m.type]);
			if (m.type == FD_MSG_MONITOR)
				fprintf(fp, " %u %u", wire_get32(m.payload),
				    wire_get32(m.payload + 4));
			fprintf(fp, " seq=%llu\n", (unsigned long long)m.seq);
			break;
		case FD_ACT_DOWN:
			fprintf(fp, "%g down %u\n", ms(now), a->peer);
			break;
		case FD_ACT_UP:
			fprintf(fp, "%g up %u\n", ms(now), a->peer);
			break;
		case FD_ACT_DROP:
			fprintf(fp, "%g drop %u %s\n", ms(now), a->peer, a->why);
			break;
		case FD_ACT_MISFIT:
			fprintf(fp, "%g misfit %u %s\n", ms(now), a->peer,
			    a->why != NULL ? a->why : "none");
			break;
		}
	}
}

/* Runs the clock to T, ticking at every wake on the way. */
static void
run_to(int64_t t)
{
	struct fd_out o;

	while (wake <= t) {
		now = wake > now ? wake : now;
		fd_tick(fd, now, &o);
		print(&o);
	}
	now = t;
}

/*
 * The handshake with peers 2 and 3, before the script's time 0 and not
 * printed: the core's HELLOs and its answers take seq 1 and 2 to each
 * peer, the peers' HELLOs seq 1.  Nonces: the core's for peer P is P
 * repeated, peer P's own is 16 * P repeated.
 */
static void
handshake(const struct fd_config *cfg)
{
	struct fd_out o;
	struct sess_hello h;
	uint8_t pl[SESS_PAYLOAD_MAX], buf[FD_DGRAM_MAX];
	struct wire_msg m = { .type = WIRE_TYPE_HELLO, .to = 1, .inc = 1,
	    .payload = pl };
	size_t len;
	unsigned p;

	fd_tick(fd, -2 * SESS_GAP, &o);
	for (p = 2; p <= 3; p++) {
		memset(h.nonce, (int)(16 * p), sizeof(h.nonce));
		memset(h.echo, (int)p, sizeof(h.echo));
		h.conf = cfg->conf;
		h.confirmed = 1;
		m.len = sess_hello_put(&h, pl);
		m.from = (uint16_t)p;
		m.seq = ++seq[p];
		len = wire_encode(&insecure, &fd_wire, &m, buf, sizeof(buf));
		fd_datagram(fd, buf, len, p, -2 * SESS_GAP, &o);
	}
	fd_tick(fd, -SESS_GAP, &o);
	wake = o.wake;
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
		drive_bad("from: ID TYPE");
	m.from = (uint16_t)drive_num(id, 1, 3, "from");
	for (t = 1; t < nitems(types); t++)
		if (strcmp(type, types[t]) == 0)
			break;
	if (t == nitems(types))
		drive_bad("unknown type %s", type);
	m.type = (uint8_t)t;
	if (t == FD_MSG_MONITOR) {
		if (a == NULL || b == NULL)
			drive_bad("monitor INTERVAL_US LEASE_MS");
		wire_put32(pl, (uint32_t)drive_num(a, 0, UINT32_MAX, "us"));
		wire_put32(pl + 4, (uint32_t)drive_num(b, 0, UINT32_MAX, "ms"));
		m.len = 8;
	} else if (t == FD_MSG_PONG) {
		if (a == NULL)
			drive_bad("pong SEQ");
		wire_put64(pl, (uint64_t)drive_num(a, 0, LLONG_MAX, "seq"));
		m.len = 8;
	}
	m.seq = ++seq[m.from];
	return wire_encode(&insecure, &fd_wire, &m, buf, buflen);
}

void
fd_drive_start(int argc, char *argv[])
{
	static uint8_t nonces[3 * SESS_NONCE];
	struct fd_config cfg = { .self = 1, .ids = ids, .nids = 3,
	    .mode = FD_PUSH, .interval = 50 * FD_MS, .incarnation = 1,
	    .key = { .insecure = 1 } };
	long long timeout = 200;
	size_t i;
	int ch;

	fd_drive_end();
	optind = 0;
	while ((ch = getopt(argc, argv, "i:m:p:T:u")) != -1) {
		switch (ch) {
		case 'i':
			cfg.interval = drive_num(optarg, 1, 60000, "-i") * FD_MS;
			break;
		case 'm':
			cfg.mode = strcmp(optarg, "ping") == 0 ? FD_PING :
			    FD_PUSH;
			break;
		case 'p':
			cfg.phi = (double)drive_num(optarg, 1, 30, "-p");
			break;
		case 'T':
			timeout = drive_num(optarg, 2, 3600000, "-T");
			break;
		case 'u':
			cfg.report_up = 1;
			break;
		default:
			drive_bad("usage: [-m push|ping] [-p phi] [-u] [-i ms] "
			    "[-T ms]");
		}
	}
	if (optind != argc)
		drive_bad("usage: [-m push|ping] [-p phi] [-u] [-i ms] [-T ms]");
	if (cfg.phi == 0)
		cfg.timeout = timeout * FD_MS;
	for (i = 0; i < sizeof(nonces); i++)
		nonces[i] = (uint8_t)(i / SESS_NONCE + 1);
	cfg.nonces = nonces;
	if ((fd = fd_new(&cfg)) == NULL)
		drive_bad("fd_new refused the configuration");
	memset(seq, 0, sizeof(seq));
	lastlen = 0;
	now = 0;
	handshake(&cfg);
}

void
fd_drive_line(char *line, FILE *to)
{
	struct fd_out o;
	struct fd_cmd c;
	const char *why;
	char *rest, *word;
	int64_t t;

	fp = to;
	/* Scripts in the tests are indented. */
	rest = line + strspn(line, " \t");
	if (rest[0] == '#' || rest[0] == '\0')
		return;
	word = strsep(&rest, " ");
	t = drive_num(word, 0, 86400000, "time") * FD_MS;
	if (t < now)
		drive_bad("time goes back: %s", word);
	if (rest != NULL && strcmp(rest, "stall") == 0) {
		now = t;
		fd_tick(fd, now, &o);
		print(&o);
		return;
	}
	run_to(t);
	word = strsep(&rest, " ");
	if (word == NULL || strcmp(word, "end") == 0)
		return;
	if (strcmp(word, "cmd") == 0) {
		if (rest == NULL ||
		    fd_cmd_parse(rest, strlen(rest), &c, &why) != 1)
			drive_bad("bad command: %s", rest != NULL ? rest : "");
		if ((why = fd_command(fd, &c, now, &o)) != NULL)
			fprintf(fp, "%g refused %s\n", ms(now), why);
	} else if (strcmp(word, "from") == 0) {
		lastlen = datagram(rest, last, sizeof(last));
		fd_datagram(fd, last, lastlen, last[9], now, &o);
	} else if (strcmp(word, "replay") == 0) {
		fd_datagram(fd, last, lastlen, last[9], now, &o);
	} else if (strcmp(word, "limit") == 0) {
		fprintf(fp, "%g limit %.3f\n", ms(now),
		    ms(fd_limit(fd, (unsigned)drive_num(rest, 1, 3, "limit"))));
		return;
	} else
		drive_bad("unknown event: %s", word);
	print(&o);
}

void
fd_drive_end(void)
{
	fd_free(fd);
	fd = NULL;
}
