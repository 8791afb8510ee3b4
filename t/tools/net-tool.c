/*
 * net-tool: drives lib/net from the shell for t/net.bats.
 *
 *	net-tool cluster FILE		parse (pure), print the nodes
 *	net-tool format FILE		parse, print as an epoch record
 *	net-tool record DIR FILE	save FILE as DIR's epoch record
 *	net-tool plan ID FILE [DIR]	where node ID starting with FILE
 *					goes, given DIR's record (if any)
 *	net-tool change FILE [RUN SELF PENDING WEDGED HELD]
 *					parse a change (FILE, "-": read
 *					stdin), print it again, with its
 *					role for RUN; with SELF...: whether
 *					node SELF running RUN takes it
 *	net-tool votes FILE		"wedged FROM EPOCH MEMBERS [bad]"
 *					and "wedge EPOCH [bad]" lines (bad:
 *					another digest) against the change
 *					FILE: what each counts for
 *	net-tool wedge-when TASKS TOLD NOW BY
 *					when a member of an ending epoch
 *					wedges its core
 *	net-tool epoch-msg TYPE HEX	parse the payload HEX of an epoch
 *					message, print it, write it again
 *	net-tool resolve FILE		load and resolve, print the addresses
 *	net-tool key FILE		load a key file
 *	net-tool wire [options]		encode a datagram, damage it, decode it
 *	net-tool window			"INC SEQ" lines through a replay window
 *	net-tool session		lines through one peer's handshake state:
 *		"hello INC SEQ answer|other|none [confirmed] [e=EPOCH]
 *		[c=CHAR]" (a HELLO whose echo is our nonce, another one, or
 *		zeros; of the peer's EPOCH, with a cluster digest of CHAR
 *		bytes), "data INC SEQ", "epoch N" (ours, which starts at 0);
 *		prints why each does not count ("ok" when it does), whether
 *		the peer is confirmed and, once an epoch was named, the
 *		peer's as its session keeps it
 *
 * wire options: -k KEYFILE (default: insecure), -K KEYFILE (decode with
 * another key; "-": insecure), -p fd|node|epochs (encode), -P (decode; epochs:
 * elect-node's with the epoch types), -t TYPE,
 * -f FROM, -d TO, -s SELF (decoder), -i INC, -q SEQ, -n PAYLOAD-BYTES,
 * -x OFF (flip a byte), -c LEN (cut to LEN bytes), -a N (append N bytes),
 * -r (print the datagram in hex instead of decoding it).
 */
#include <sys/socket.h>

#include <netdb.h>

#include <err.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "fd/fd.h"
#include "store/store.h"
#include "net/cluster.h"
#include "net/epoch.h"
#include "net/key.h"
#include "net/session.h"
#include "net/wire.h"
#include "util/util.h"

/* elect-node's types are its own business: any count will do here. */
static const struct wire_proto node_proto = { WIRE_MAGIC_NODE, 20, 0, 0 };
static const struct wire_proto epochs_proto = { WIRE_MAGIC_NODE, 20, 1, 0 };

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: net-tool cluster|resolve|key|format FILE\n"
	    "       net-tool record DIR FILE\n"
	    "       net-tool plan ID FILE [DIR]\n"
	    "       net-tool epoch-msg TYPE HEX\n"
	    "       net-tool window|session\n"
	    "       net-tool wire [-r] [-k key] [-K key] [-p proto] [-P proto]"
	    " [-t type]\n"
	    "                [-f from] [-d to] [-s self] [-i inc] [-q seq]"
	    " [-n len]\n"
	    "                [-x off] [-c len] [-a n]\n"
	    "       net-tool window\n");
	exit(EXIT_USAGE);
}

/* PATH's first CLUSTER_FILE_MAX + 1 bytes, in a buffer of its own. */
static const char *
read_text(const char *path, size_t *len)
{
	static char text[CLUSTER_FILE_MAX + 1];
	FILE *f;

	if ((f = fopen(path, "r")) == NULL)
		err(EXIT_USAGE, "%s", path);
	*len = fread(text, 1, sizeof(text), f);
	fclose(f);
	return text;
}

static void
parse_file(const char *path, struct cluster *c)
{
	const char *text;
	char ebuf[512];
	size_t len;

	text = read_text(path, &len);
	if (cluster_parse(text, len, path, c, ebuf, sizeof(ebuf)) == -1)
		errx(EXIT_USAGE, "%s", ebuf);
}

static int
cmd_format(const char *path)
{
	static char buf[CLUSTER_FILE_MAX];
	struct cluster c;
	size_t len;

	parse_file(path, &c);
	if ((len = cluster_format(&c, buf, sizeof(buf))) == 0)
		errx(1, "%s: too large", path);
	fwrite(buf, 1, len, stdout);
	cluster_free(&c);
	return 0;
}

static int
cmd_record(const char *dir, const char *path)
{
	struct cluster c;
	int dirfd;

	parse_file(path, &c);
	if ((dirfd = store_open(dir)) == -1 || epoch_save(dirfd, &c) == -1)
		err(1, "%s", dir);
	cluster_free(&c);
	close(dirfd);
	return 0;
}

static int
cmd_plan(const char *id, const char *path, const char *dir)
{
	struct cluster c, r;
	enum epoch_plan plan;
	char ebuf[512];
	int dirfd, rc = 1;

	parse_file(path, &c);
	if (dir != NULL) {
		if ((dirfd = store_open(dir)) == -1)
			err(1, "%s", dir);
		if ((rc = epoch_load(dirfd, dir, &r, ebuf, sizeof(ebuf))) == -1)
			errx(EXIT_USAGE, "%s", ebuf);
		close(dirfd);
	}
	if (epoch_plan(&c, rc == 0 ? &r : NULL, (unsigned)atoi(id), &plan,
	    ebuf, sizeof(ebuf)) == -1)
		errx(EXIT_USAGE, "%s", ebuf);
	printf("%s\n", epoch_plan_name(plan));
	cluster_free(&c);
	if (rc == 0)
		cluster_free(&r);
	return 0;
}

static int
cmd_epoch_msg(const char *type, const char *hex)
{
	static uint8_t p[WIRE_PAYLOAD_MAX + 1], back[WIRE_PAYLOAD_MAX + 1];
	struct epoch_msg m;
	const char *why;
	size_t len, i;

	if (sodium_hex2bin(p, sizeof(p), hex, strlen(hex), NULL, &len,
	    NULL) != 0)
		errx(EXIT_USAGE, "bad hex");
	if ((why = epoch_msg_parse((uint8_t)arg_num(type, 0, 255, "TYPE"),
	    p, len, &m)) != NULL) {
		printf("%s\n", why);
		return EXIT_NO;
	}
	printf("epoch=%u", m.epoch);
	if (m.type == WIRE_TYPE_WEDGED)
		printf(" members=%u", m.members);
	if (m.type == WIRE_TYPE_CHANGE)
		printf(" total=%u off=%u len=%zu", m.total, m.off, m.len);
	printf(" digest=");
	for (i = 0; i < sizeof(m.digest); i++)
		printf("%02x", m.digest[i]);
	printf("\n");
	if (epoch_msg_put(&m, back, sizeof(back)) != len ||
	    memcmp(back, p, len) != 0)
		errx(1, "written back otherwise");
	return 0;
}

static int
cmd_cluster(const char *path)
{
	struct cluster c;
	size_t i;

	parse_file(path, &c);
	for (i = 0; i < c.n; i++)
		printf("%u %s %u fd=%u line=%u\n", c.nodes[i].id,
		    c.nodes[i].host, c.nodes[i].port, c.nodes[i].fd_port,
		    c.nodes[i].line);
	if (c.epoch_line != 0)
		printf("epoch %u line=%u\n", c.epoch, c.epoch_line);
	cluster_free(&c);
	return 0;
}

static void
numeric(const struct sockaddr_storage *ss, socklen_t len, char *buf,
    size_t n)
{
	char host[NI_MAXHOST], port[NI_MAXSERV];

	if (getnameinfo((const struct sockaddr *)ss, len, host, sizeof(host),
	    port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		errx(1, "getnameinfo");
	snprintf(buf, n, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
}

static int
cmd_resolve(const char *path)
{
	struct cluster c;
	char ebuf[512], a[128], b[128];
	size_t i;

	if (cluster_load(path, &c, ebuf, sizeof(ebuf)) == -1)
		errx(EXIT_USAGE, "%s", ebuf);
	for (i = 0; i < c.n; i++) {
		numeric(&c.nodes[i].addr, c.nodes[i].addrlen, a, sizeof(a));
		numeric(&c.nodes[i].fd_addr, c.nodes[i].addrlen, b, sizeof(b));
		printf("%u %s fd=%s\n", c.nodes[i].id, a, b);
	}
	cluster_free(&c);
	return 0;
}

static void
load_key(const char *path, struct wire_key *k)
{
	char msg[512];

	if (wire_key_load(k, path, msg, sizeof(msg)) == -1)
		errx(EXIT_USAGE, "%s", msg);
}

static int
cmd_key(const char *path)
{
	struct wire_key k;

	load_key(path, &k);
	printf(k.has_old ? "ok 2 keys\n" : "ok\n");
	return 0;
}

static const struct wire_proto *
proto(const char *s)
{
	if (strcmp(s, "fd") == 0)
		return &fd_wire;
	if (strcmp(s, "node") == 0)
		return &node_proto;
	if (strcmp(s, "epochs") == 0)
		return &epochs_proto;
	errx(EXIT_USAGE, "unknown protocol %s", s);
}

static int
cmd_wire(int argc, char *argv[])
{
	struct wire_key ek = { .insecure = 1 }, dk = { .insecure = 1 };
	const struct wire_proto *ep = &fd_wire, *dp = NULL;
	struct wire_proto anytype;
	struct wire_msg m = { .type = 1, .from = 2, .to = 1, .inc = 1,
	    .seq = 1, .grp = { 2, 7, 3 } };
	uint8_t payload[WIRE_PAYLOAD_MAX + 64], buf[WIRE_DGRAM_MAX + 256];
	long long flip = -1, cut = -1, append = 0;
	unsigned self = 1;
	const char *why;
	int ch, raw = 0, other = 0;
	size_t len, i;

	while ((ch = getopt(argc, argv, "a:c:d:f:i:K:k:n:P:p:q:rs:t:x:")) != -1) {
		switch (ch) {
		case 'a':
			append = arg_num(optarg, 0, 256, "-a");
			break;
		case 'c':
			cut = arg_num(optarg, 0, WIRE_DGRAM_MAX, "-c");
			break;
		case 'd':
			m.to = (uint16_t)arg_num(optarg, 0, 65535, "-d");
			break;
		case 'f':
			m.from = (uint16_t)arg_num(optarg, 0, 65535, "-f");
			break;
		case 'i':
			m.inc = (uint64_t)arg_num(optarg, 0, LLONG_MAX, "-i");
			break;
		case 'K':
			if (strcmp(optarg, "-") != 0)
				load_key(optarg, &dk);
			other = 1;
			break;
		case 'k':
			load_key(optarg, &ek);
			break;
		case 'n':
			m.len = (size_t)arg_num(optarg, 0, sizeof(payload), "-n");
			break;
		case 'P':
			dp = proto(optarg);
			break;
		case 'p':
			ep = proto(optarg);
			break;
		case 'q':
			m.seq = (uint64_t)arg_num(optarg, 0, LLONG_MAX, "-q");
			break;
		case 'r':
			raw = 1;
			break;
		case 's':
			self = (unsigned)arg_num(optarg, 0, 65535, "-s");
			break;
		case 't':
			m.type = (uint8_t)arg_num(optarg, 0, 255, "-t");
			break;
		case 'x':
			flip = arg_num(optarg, 0, WIRE_DGRAM_MAX, "-x");
			break;
		default:
			usage();
		}
	}
	if (!other)
		dk = ek;
	if (dp == NULL)
		dp = ep;
	for (i = 0; i < m.len; i++)
		payload[i] = (uint8_t)i;
	m.payload = payload;
	/* The encoder lets any type out, for the decoder to refuse. */
	anytype = *ep;
	anytype.maxtype = 255;
	if ((len = wire_encode(&ek, &anytype, &m, buf, sizeof(buf))) == 0) {
		printf("encode refused\n");
		return EXIT_NO;
	}
	if (flip >= 0 && (size_t)flip < len)
		buf[flip] ^= 0x01;
	if (cut >= 0 && (size_t)cut < len)
		len = (size_t)cut;
	for (i = 0; i < (size_t)append; i++)
		buf[len++] = 0;
	if (raw) {
		for (i = 0; i < len; i++)
			printf("%02x", buf[i]);
		printf("\n");
		return 0;
	}
	if ((why = wire_decode(&dk, dp, self, buf, len, &m)) != NULL) {
		printf("%s from=%u\n", why, m.from);
		return EXIT_NO;
	}
	printf("ok type=%u from=%u to=%u inc=%llu seq=%llu grp=%u.%llu.%llu "
	    "len=%zu bytes=%zu\n", m.type, m.from, m.to,
	    (unsigned long long)m.inc, (unsigned long long)m.seq, m.grp.node,
	    (unsigned long long)m.grp.inc, (unsigned long long)m.grp.ctr,
	    m.len, len);
	for (i = 0; i < m.len; i++)
		if (m.payload[i] != (uint8_t)i)
			errx(1, "payload byte %zu changed", i);
	return 0;
}

static int
cmd_window(void)
{
	struct wire_window w = { 0 };
	unsigned long long inc, seq;
	const char *why;
	char line[128];

	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (sscanf(line, "%llu %llu", &inc, &seq) != 2)
			errx(EXIT_USAGE, "expected INC SEQ: %s", line);
		why = wire_window_check(&w, inc, seq);
		printf("%s\n", why == NULL ? "ok" : why);
	}
	return 0;
}

static int
cmd_session(void)
{
	struct sess s;
	struct sess_conf conf = { 0 };
	struct sess_hello h = { 0 };
	struct wire_msg m = { 0 };
	uint8_t mine[SESS_NONCE], payload[SESS_PAYLOAD_MAX];
	unsigned long long inc, seq;
	char line[128], what[16], echo[16], flag[3][16];
	const char *why;
	int64_t now = 0;
	int changed, n, i, epochs = 0;
	enum sess_take take;
	unsigned e;

	memset(mine, 'm', sizeof(mine));
	sess_init(&s, mine);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (sscanf(line, "epoch %u", &e) == 1) {
			conf.epoch = e;
			epochs = 1;
			continue;
		}
		memset(flag, 0, sizeof(flag));
		n = sscanf(line, "%15s %llu %llu %15s %15s %15s %15s", what,
		    &inc, &seq, echo, flag[0], flag[1], flag[2]);
		h.confirmed = 0;
		h.conf = conf;
		for (i = 0; i < 3; i++) {
			if (strcmp(flag[i], "confirmed") == 0)
				h.confirmed = 1;
			else if (sscanf(flag[i], "e=%u", &e) == 1)
				h.conf.epoch = e, epochs = 1;
			else if (flag[i][0] == 'c' && flag[i][1] == '=')
				memset(h.conf.d[2], flag[i][2],
				    sizeof(h.conf.d[2]));
			else if (flag[i][0] != '\0')
				errx(EXIT_USAGE, "bad flag: %s", line);
		}
		now += SESS_RETRY;
		m.inc = inc;
		m.seq = seq;
		if (n >= 4 && strcmp(what, "hello") == 0) {
			memset(h.nonce, 'p', sizeof(h.nonce));
			if (strcmp(echo, "answer") == 0)
				memcpy(h.echo, mine, sizeof(h.echo));
			else if (strcmp(echo, "other") == 0)
				memset(h.echo, 'o', sizeof(h.echo));
			else if (strcmp(echo, "none") == 0)
				memset(h.echo, 0, sizeof(h.echo));
			else
				errx(EXIT_USAGE, "bad echo: %s", line);
			m.type = WIRE_TYPE_HELLO;
			m.payload = payload;
			m.len = sess_hello_put(&h, payload);
		} else if (n == 3 && strcmp(what, "data") == 0) {
			m.type = 1;
			m.payload = NULL;
			m.len = 0;
		} else
			errx(EXIT_USAGE, "expected hello or data: %s", line);
		take = sess_recv(&s, &conf, &m, now, &changed, &why);
		printf("%s confirmed=%d", take == SESS_COUNTS ? "ok" :
		    take == SESS_HELLO ? "hello" : why, s.confirmed);
		if (epochs)
			printf(" epoch=%u", s.epoch);
		printf("\n");
	}
	return 0;
}

static void
load_change(const char *path, struct epoch_change *c)
{
	const char *text;
	char ebuf[512];
	size_t len;

	text = read_text(path, &len);
	if (epoch_change_parse(text, len, path, c, ebuf, sizeof(ebuf)) == -1)
		errx(EXIT_USAGE, "%s", ebuf);
}

static int
cmd_change(int argc, char *argv[])
{
	static char buf[CLUSTER_FILE_MAX];
	struct epoch_change c;
	struct cluster run;
	char ebuf[512];
	int role;

	load_change(argv[0], &c);
	fwrite(buf, 1, epoch_change_format(&c, buf, sizeof(buf)), stdout);
	if (argc == 1) {
		epoch_change_free(&c);
		return 0;
	}
	parse_file(argv[1], &run);
	role = epoch_change_role(&run, &c);
	printf("role=%s\n", role == EPOCH_ROLE_OLD ? "old" :
	    role == EPOCH_ROLE_NEW ? "new" : "none");
	if (argc == 6) {
		if (epoch_change_take(&run, atoi(argv[3]), atoi(argv[4]),
		    atoi(argv[5]), (unsigned)atoi(argv[2]), &c, ebuf,
		    sizeof(ebuf)) == -1) {
			printf("refused: %s\n", ebuf);
			cluster_free(&run);
			epoch_change_free(&c);
			return 1;
		}
		printf("taken\n");
	}
	cluster_free(&run);
	epoch_change_free(&c);
	return 0;
}

static int
cmd_votes(const char *path)
{
	struct epoch_change c;
	struct epoch_votes v;
	struct epoch_msg m;
	char line[256], bad[8];
	const char *why;
	unsigned from, e, n;
	int rc;

	load_change(path, &c);
	if (epoch_votes_init(&v, &c) == -1)
		err(1, NULL);
	printf("need=%zu wedged=%zu\n", v.need, v.nwedged);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		memset(&m, 0, sizeof(m));
		bad[0] = '\0';
		if (sscanf(line, "wedged %u %u %u %7s", &from, &e, &n, bad) >= 3) {
			m.type = WIRE_TYPE_WEDGED;
			m.epoch = e;
			m.members = (uint16_t)n;
			memcpy(m.digest, c.dprev, EPOCH_DIGEST);
			if (strcmp(bad, "bad") == 0)
				m.digest[0] ^= 1;
			rc = epoch_votes_add(&v, &c, from, &m, &why);
			printf("%d%s%s done=%d\n", rc, why ? " " : "",
			    why ? why : "", epoch_votes_done(&v));
		} else if (sscanf(line, "wedge %u %7s", &e, bad) >= 1) {
			m.type = WIRE_TYPE_WEDGE;
			m.epoch = e;
			memcpy(m.digest, c.dnext, EPOCH_DIGEST);
			if (strcmp(bad, "bad") == 0)
				m.digest[0] ^= 1;
			rc = epoch_wedge_for(&c, &m, &why);
			printf("%s\n", rc ? "answer" : why);
		} else
			errx(EXIT_USAGE, "bad line: %s", line);
	}
	epoch_votes_free(&v);
	epoch_change_free(&c);
	return 0;
}

int
main(int argc, char *argv[])
{
	if (sodium_init() == -1)
		errx(1, "sodium_init");
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "wire") == 0)
		return cmd_wire(argc - 1, argv + 1);
	if (strcmp(argv[1], "window") == 0 && argc == 2)
		return cmd_window();
	if (strcmp(argv[1], "session") == 0 && argc == 2)
		return cmd_session();
	if (strcmp(argv[1], "record") == 0 && argc == 4)
		return cmd_record(argv[2], argv[3]);
	if (strcmp(argv[1], "change") == 0 && (argc == 3 || argc == 4 ||
	    argc == 8))
		return cmd_change(argc - 2, argv + 2);
	if (strcmp(argv[1], "wedge-when") == 0 && argc == 6) {
		static const char *const step[] = { "now", "stop", "wait",
		    "late" };

		printf("%s\n", step[epoch_wedge_when(atoi(argv[2]),
		    atoi(argv[3]), atoll(argv[4]), atoll(argv[5]))]);
		return 0;
	}
	if (strcmp(argv[1], "votes") == 0 && argc == 3)
		return cmd_votes(argv[2]);
	if (strcmp(argv[1], "epoch-msg") == 0 && argc == 4)
		return cmd_epoch_msg(argv[2], argv[3]);
	if (strcmp(argv[1], "plan") == 0 && (argc == 4 || argc == 5))
		return cmd_plan(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	if (argc != 3)
		usage();
	if (strcmp(argv[1], "cluster") == 0)
		return cmd_cluster(argv[2]);
	if (strcmp(argv[1], "resolve") == 0)
		return cmd_resolve(argv[2]);
	if (strcmp(argv[1], "key") == 0)
		return cmd_key(argv[2]);
	if (strcmp(argv[1], "format") == 0)
		return cmd_format(argv[2]);
	usage();
}
