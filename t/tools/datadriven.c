/*
 * datadriven: runs the transcript files of a pure core, as etcd's raft
 * tests run theirs.  A file under t/testdata/CORE/ holds cases, each
 *
 *	COMMAND [KEY=VALUE ...]		one input, as many lines as it takes
 *	----
 *	OUTPUT				what the core answered, exactly
 *					(a blank line ends the case)
 *
 * and lines starting with # between cases.  Cases run in order on one
 * core, so a file is a story.  The core is named by the file's directory.
 *
 *	datadriven [-r] FILE...
 *
 * Exit 0 when every output is as written, 1 when one differs (each named
 * FILE:LINE, with what was expected and what came), 2 for a file that
 * cannot be read.  -r rewrites the files with the outputs that came, for
 * a person to review with `git diff' before committing them.
 *
 * Cores: host (lib/host: the agreement of configurations, fit.h, and
 * datagram acceptance, accept.h, between nodes of one cluster file);
 * algo, guard and fd, whose lines are those of the scripts of algo-drive,
 * guard-drive and fd-sim (t/tools/drive, the same drivers), one input a
 * case, after a line naming the tool with its options that starts a core
 * anew (its output empty), and no "> LINE" echo; testament, whose
 * command "parse TEXT" gives the parser the file TEXT (\n a newline, \t
 * a tab, \\ a backslash).  A script line the driver refuses answers
 * "error: WHY".
 */
#include <err.h>
#include <inttypes.h>
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <sodium.h>

#include "host/accept.h"
#include "host/fit.h"
#include "util/util.h"
#include "drive/drive.h"

#define OUT_MAX		65536
#define ARGS_MAX	16
#define MS		INT64_C(1000000)

struct kv {
	char	*k, *v;
};

/* One core's adapter: resets its state, then runs one input. */
struct core {
	const char	*name;
	void		(*reset)(void);
	/* Appends its answer to OUT; returns 0, or -1 with the error
	 * written there instead. */
	int		(*run)(const char *cmd, struct kv *a, int n, char *out,
			    size_t len);
	/* Instead of run: the line as it is, its answer on FP. */
	void		(*line)(char *line, FILE *fp);
};

static const char *
arg(struct kv *a, int n, const char *k)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(a[i].k, k) == 0)
			return a[i].v;
	return NULL;
}

static int
num(const char *s, long long lo, long long hi, long long *v)
{
	const char *errstr;

	if (s == NULL)
		return -1;
	*v = strtonum(s, lo, hi, &errstr);
	return errstr == NULL ? 0 : -1;
}

static void
say(char *out, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
say(char *out, size_t len, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out + n, len - n, fmt, ap);
	va_end(ap);
}

/* host: fit.h over a table of peers.
 *
 *	init quorum=0|1			a fresh verdict
 *	peer id=N misfit=ok|algo|timing|cluster|key [at=MS]
 *					the handshake's view of peer N
 *	stranger id=N at=MS		an authenticated HELLO of this
 *					epoch from N, not in the file
 *	step now=MS			the verdict at NOW
 */
static struct fit host_fit;
static struct fit_peer host_peers[64];
static size_t host_npeers;

/*
 * Acceptance: nodes 1..N of a cluster file at 127.0.0.1, port 5000 + id,
 * each with its edge (lib/host/accept), and datagrams between them.
 *
 *	cluster n=N [algo=NAME]		N nodes, every edge anew
 *	odd id=N [algo=NAME] [key=other|same] [timing=other]
 *					node N's configuration differs
 *	hello from=A to=B now=MS	A's HELLO to B, if one is due
 *	send from=A to=B msg=TYPE [inc=I]
 *					a core's message of A (Dead: the
 *					incarnation inc names, empty)
 *	deliver [prev=1] [port=P] now=MS
 *					the last datagram (the one before,
 *					with prev=) at its receiver (again:
 *					a copy),
 *					from the sender's address (port P of
 *					its host instead, with port=)
 */
#define ACC_NODES	8

struct acc_node {
	unsigned	 id;
	const struct algo_ops *ops;
	struct wire_key	 key;
	struct wire_proto proto;
	struct sess_conf conf;
	struct sess	 sess[ACC_NODES];
	uint64_t	 seq[ACC_NODES];
	uint64_t	 inc;
};

static struct cluster acc_file;
static struct cluster_node acc_nodes[ACC_NODES];
static struct acc_node accn[ACC_NODES];
static size_t acc_n;
/* The last two datagrams sealed: [1] the one before. */
static uint8_t acc_dg[2][WIRE_DGRAM_MAX];
static size_t acc_len[2];
static size_t acc_from[2], acc_to[2];

static void
acc_conf(struct acc_node *a, int odd_timing)
{
	memset(&a->conf, 0, sizeof(a->conf));
	sess_digest(a->ops->name, strlen(a->ops->name), a->conf.d[0]);
	sess_digest(odd_timing ? "other" : "timing", odd_timing ? 5 : 6,
	    a->conf.d[1]);
	sess_cluster_digest(&acc_file, a->conf.d[2]);
	a->proto.magic = WIRE_MAGIC_NODE;
	a->proto.maxtype = (uint8_t)(a->ops->nmsg - 1);
}

static struct host_edge
acc_edge(size_t i)
{
	struct acc_node *a = &accn[i];
	struct host_edge e = {
		.self = a->id, .ops = a->ops, .key = &a->key,
		.proto = &a->proto, .conf = &a->conf, .peers = &acc_file,
		.sess = a->sess, .seq = a->seq,
	};

	return e;
}

static int
acc_node(struct kv *a, int n, const char *k, size_t *out)
{
	long long id;

	if (num(arg(a, n, k), 1, (long long)acc_n, &id) == -1)
		return -1;
	*out = (size_t)id - 1;
	return 0;
}

static const char *
acc_take(enum host_take t)
{
	static const char *const names[] = {
		[HOST_CORE] = "core", [HOST_DEAD] = "dead",
		[HOST_HELLO] = "hello", [HOST_EPOCH] = "epoch",
		[HOST_DROP] = "drop",
	};

	return names[t];
}

static int
acc_run(const char *cmd, struct kv *a, int n, char *out, size_t len)
{
	const struct algo_ops *ops;
	struct sockaddr_in *sin;
	struct sockaddr_storage src;
	struct host_datagram *d;
	struct host_edge e;
	struct sess_hello h;
	struct algo_msg m;
	struct wire_msg w;
	uint8_t pl[SESS_PAYLOAD_MAX], nonce[SESS_NONCE];
	long long v, now, port;
	uint64_t inc;
	size_t i, j, k;
	unsigned t;

	if (strcmp(cmd, "cluster") == 0) {
		if (num(arg(a, n, "n"), 1, ACC_NODES, &v) == -1 ||
		    (ops = algo_find(arg(a, n, "algo") != NULL ?
		    arg(a, n, "algo") : "lease")) == NULL)
			return -2;
		acc_n = (size_t)v;
		memset(acc_nodes, 0, sizeof(acc_nodes));
		acc_file.n = acc_n;
		acc_file.nodes = acc_nodes;
		for (i = 0; i < acc_n; i++) {
			acc_nodes[i].id = (unsigned)i + 1;
			acc_nodes[i].port = (uint16_t)(5001 + i);
			sin = (struct sockaddr_in *)&acc_nodes[i].addr;
			sin->sin_family = AF_INET;
			sin->sin_port = htons(acc_nodes[i].port);
			sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			acc_nodes[i].addrlen = sizeof(*sin);
			strlcpy(acc_nodes[i].host, "127.0.0.1",
			    sizeof(acc_nodes[i].host));
		}
		for (i = 0; i < acc_n; i++) {
			memset(&accn[i], 0, sizeof(accn[i]));
			accn[i].id = (unsigned)i + 1;
			accn[i].ops = ops;
			accn[i].inc = 1;
			memset(accn[i].key.k, 7, sizeof(accn[i].key.k));
			acc_conf(&accn[i], 0);
			for (j = 0; j < acc_n; j++) {
				memset(nonce, (int)(16 * i + j + 1),
				    sizeof(nonce));
				sess_init(&accn[i].sess[j], nonce);
			}
		}
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "odd") == 0) {
		if (acc_node(a, n, "id", &i) == -1)
			return -2;
		if (arg(a, n, "algo") != NULL &&
		    (accn[i].ops = algo_find(arg(a, n, "algo"))) == NULL)
			return -2;
		if (arg(a, n, "key") != NULL)
			memset(accn[i].key.k, strcmp(arg(a, n, "key"),
			    "same") == 0 ? 7 : 9, sizeof(accn[i].key.k));
		acc_conf(&accn[i], arg(a, n, "timing") != NULL);
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "hello") == 0 || strcmp(cmd, "send") == 0) {
		if (acc_node(a, n, "from", &i) == -1 ||
		    acc_node(a, n, "to", &j) == -1 || i == j)
			return -2;
		e = acc_edge(i);
		inc = accn[i].inc;
		if (strcmp(cmd, "hello") == 0) {
			if (num(arg(a, n, "now"), 0, INT64_MAX / MS, &now) ==
			    -1)
				return -2;
			if (!sess_due(&accn[i].sess[j], now * MS)) {
				say(out, len, "none due\n");
				return 0;
			}
			sess_hello(&accn[i].sess[j], &accn[i].conf, now * MS,
			    &h);
			memset(&w, 0, sizeof(w));
			w.type = WIRE_TYPE_HELLO;
			w.payload = pl;
			w.len = sess_hello_put(&h, pl);
		} else {
			if (arg(a, n, "msg") == NULL || (t = algo_msg_type(
			    accn[i].ops, arg(a, n, "msg"))) == 0)
				return -2;
			memset(&m, 0, sizeof(m));
			m.type = (uint8_t)t;
			if (t == accn[i].ops->dead) {
				if (num(arg(a, n, "inc"), 1, INT32_MAX, &v) == -1)
					return -2;
				m.elid.node = (uint16_t)accn[i].id;
				m.elid.inc = inc = (uint64_t)v;
			} else if (arg(a, n, "inc") != NULL) {
				if (num(arg(a, n, "inc"), 1, INT32_MAX, &v) == -1)
					return -2;
				accn[i].inc = inc = (uint64_t)v;
			}
			host_wire_of(&m, &w);
		}
		memcpy(acc_dg[1], acc_dg[0], acc_len[0]);
		acc_len[1] = acc_len[0];
		acc_from[1] = acc_from[0], acc_to[1] = acc_to[0];
		acc_len[0] = host_seal(&e, (long)j, inc, &w, acc_dg[0]);
		acc_from[0] = i, acc_to[0] = j;
		say(out, len, "sealed %zu bytes seq=%llu\n", acc_len[0],
		    (unsigned long long)accn[i].seq[j]);
		return 0;
	}
	if (strcmp(cmd, "deliver") == 0) {
		k = arg(a, n, "prev") != NULL;
		if (num(arg(a, n, "now"), 0, INT64_MAX / MS, &now) == -1 ||
		    acc_len[k] == 0)
			return -2;
		src = acc_nodes[acc_from[k]].addr;
		if (arg(a, n, "port") != NULL) {
			if (num(arg(a, n, "port"), 1, 65535, &port) == -1)
				return -2;
			((struct sockaddr_in *)&src)->sin_port =
			    htons((uint16_t)port);
		}
		if ((d = malloc(sizeof(*d))) == NULL)
			err(2, NULL);
		e = acc_edge(acc_to[k]);
		host_accept(&e, acc_dg[k], acc_len[k], &src, now * MS, d);
		j = acc_to[k];
		say(out, len, "%s", acc_take(d->take));
		if (d->take == HOST_DROP)
			say(out, len, " why=%s", d->why);
		if (d->take == HOST_CORE || d->take == HOST_DEAD)
			say(out, len, " from=%u msg=%s", d->m.peer,
			    algo_msg_name(accn[j].ops, d->m.type));
		if (d->misfit)
			say(out, len, " misfit=%s", accn[j].sess[
			    d->peer].misfit == SESS_OK ? "ok" :
			    sess_misfit_name(accn[j].sess[d->peer].misfit));
		if (d->misaddressed)
			say(out, len, " misaddressed");
		if (d->stranger)
			say(out, len, " stranger");
		if (d->peer != -1 && accn[j].sess[d->peer].owed)
			say(out, len, " owed");
		say(out, len, "\n");
		free(d);
		return 0;
	}
	return -1;
}

static void
host_reset(void)
{
	fit_init(&host_fit, 0);
	host_npeers = 0;
	acc_n = 0;
	acc_len[0] = acc_len[1] = 0;
}

static int
host_misfit(const char *s, enum sess_misfit *m)
{
	enum sess_misfit f;

	if (s != NULL && strcmp(s, "ok") == 0) {
		*m = SESS_OK;
		return 0;
	}
	for (f = SESS_ALGO; f <= SESS_KEY; f++)
		if (s != NULL && strcmp(s, sess_misfit_name(f)) == 0) {
			*m = f;
			return 0;
		}
	return -1;
}

static int
host_run(const char *cmd, struct kv *a, int n, char *out, size_t len)
{
	long long id, at = 0, now, q;
	enum sess_misfit m;
	int64_t wake;
	size_t i;
	int changed;

	switch (acc_run(cmd, a, n, out, len)) {
	case 0:
		return 0;
	case -2:
		say(out, len, "error: bad arguments to %s\n", cmd);
		return -1;
	}
	if (strcmp(cmd, "init") == 0) {
		if (num(arg(a, n, "quorum"), 0, 1, &q) == -1)
			goto usage;
		fit_init(&host_fit, (int)q);
		host_npeers = 0;
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "peer") == 0) {
		if (num(arg(a, n, "id"), 1, 65535, &id) == -1 ||
		    host_misfit(arg(a, n, "misfit"), &m) == -1 ||
		    (arg(a, n, "at") != NULL &&
		    num(arg(a, n, "at"), 0, INT64_MAX / MS, &at) == -1))
			goto usage;
		for (i = 0; i < host_npeers; i++)
			if (host_peers[i].id == id)
				break;
		if (i == nitems(host_peers)) {
			say(out, len, "error: too many peers\n");
			return -1;
		}
		if (i == host_npeers)
			host_npeers++;
		host_peers[i].id = (unsigned)id;
		host_peers[i].misfit = m;
		host_peers[i].odd_at = at * MS;
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "stranger") == 0) {
		if (num(arg(a, n, "id"), 1, 65535, &id) == -1 ||
		    num(arg(a, n, "at"), 0, INT64_MAX / MS, &at) == -1)
			goto usage;
		say(out, len, "%s\n", fit_stranger(&host_fit, (unsigned)id,
		    at * MS) ? "new" : "again");
		return 0;
	}
	if (strcmp(cmd, "step") == 0) {
		if (num(arg(a, n, "now"), 0, INT64_MAX / MS, &now) == -1)
			goto usage;
		changed = fit_step(&host_fit, host_peers, host_npeers,
		    now * MS, &wake);
		say(out, len, "changed=%s lead=%s live=%u peers=%s wake=",
		    changed ? "yes" : "no", host_fit.vetoed ? "no" : "yes",
		    host_fit.live, host_fit.odd);
		if (wake == INT64_MAX)
			say(out, len, "-\n");
		else
			say(out, len, "%" PRId64 "\n", wake / MS);
		return 0;
	}
usage:
	say(out, len, "error: unknown command %s\n", cmd);
	return -1;
}

/*
 * The drive tools' cores.  A line naming the tool starts its driver with
 * the options that follow; every other line is a script line.
 */
static int drive_started;

static void
drive_reset(void)
{
	algo_drive_end();
	fd_drive_end();
	drive_started = 0;
}

static void
drive_do(const char *tool, void (*start)(int, char **),
    void (*line)(char *, FILE *), char *text, FILE *fp)
{
	char *argv[64], *p = text;
	size_t n = strlen(tool);
	int argc = 0;

	if (strncmp(text, tool, n) == 0 &&
	    (text[n] == ' ' || text[n] == '\0')) {
		while ((argv[argc] = strsep(&p, " \t")) != NULL)
			if (*argv[argc] != '\0' && ++argc == (int)nitems(argv))
				drive_bad("too many options");
		drive_started = 0;
		start(argc, argv);
		drive_started = 1;
	} else if (!drive_started)
		drive_bad("no %s line before", tool);
	else
		line(text, fp);
}

/* A line the driver refuses answers its error. */
static void
drive_run(const char *tool, void (*start)(int, char **),
    void (*line)(char *, FILE *), char *text, FILE *fp)
{
	jmp_buf jb;

	if (setjmp(jb) != 0)
		fprintf(fp, "error: %s\n", drive_caught);
	else {
		drive_catch = &jb;
		drive_do(tool, start, line, text, fp);
	}
	drive_catch = NULL;
}

static void
algo_line(char *text, FILE *fp)
{
	drive_run("algo-drive", algo_drive_start, algo_drive_line, text, fp);
}

static void
guard_line(char *text, FILE *fp)
{
	drive_run("guard-drive", guard_drive_start, guard_drive_line, text,
	    fp);
}

static void
fd_line(char *text, FILE *fp)
{
	drive_run("fd-sim", fd_drive_start, fd_drive_line, text, fp);
}

/* parse TEXT: TEXT unescaped, as a testament file. */
static void
testament_line(char *text, FILE *fp)
{
	char *p, *q;

	if (strncmp(text, "parse", 5) != 0 ||
	    (text[5] != ' ' && text[5] != '\0')) {
		fprintf(fp, "error: expected parse TEXT\n");
		return;
	}
	for (p = q = text + (text[5] == ' ' ? 6 : 5); *p != '\0'; p++, q++) {
		if (*p != '\\')
			*q = *p;
		else if (p[1] == 'n' || p[1] == 't' || p[1] == '\\')
			*q = *++p == 'n' ? '\n' : *p == 't' ? '\t' : '\\';
		else {
			fprintf(fp, "error: bad escape\n");
			return;
		}
	}
	*q = '\0';
	text += text[5] == ' ' ? 6 : 5;
	testament_drive(text, (size_t)(q - text), fp);
}

static void
no_reset(void)
{
}

static const struct core cores[] = {
	{ "host", host_reset, host_run, NULL },
	{ "algo", drive_reset, NULL, algo_line },
	{ "guard", drive_reset, NULL, guard_line },
	{ "fd", drive_reset, NULL, fd_line },
	{ "testament", no_reset, NULL, testament_line },
};

/* A raw line through CORE, its answer appended to OUT. */
static void
run_line(const struct core *core, char *text, char *out, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp;

	if ((fp = open_memstream(&buf, &n)) == NULL)
		err(2, NULL);
	core->line(text, fp);
	if (fclose(fp) == EOF)
		err(2, NULL);
	if (strlcat(out, buf, len) >= len)
		errx(2, "line %lu: the output is too long", drive_lineno);
	free(buf);
}

/* A file's lines, to rewrite it. */
struct text {
	char	*buf;
	size_t	 len, cap;
};

static void
put(struct text *t, const char *s)
{
	size_t n = strlen(s);

	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		if ((t->buf = realloc(t->buf, t->cap)) == NULL)
			err(2, NULL);
	}
	memcpy(t->buf + t->len, s, n + 1);
	t->len += n;
}

/* Runs FILE; with REWRITE writes it back with the outputs that came.
 * Returns the number of cases whose output differed. */
static int
run_file(const char *file, int rewrite)
{
	const struct core *core = NULL;
	struct text txt = { 0 };
	char *line = NULL, *copy, *dir, *p, *words[ARGS_MAX + 1];
	char got[OUT_MAX], want[OUT_MAX], cmdline[OUT_MAX];
	struct kv kv[ARGS_MAX];
	size_t cap = 0, i;
	ssize_t len;
	unsigned long lineno = 0, at = 0;
	int bad = 0, state = 0, nw, nkv;
	FILE *fp;

	if ((copy = strdup(file)) == NULL)
		err(2, NULL);
	dir = basename(dirname(copy));
	for (i = 0; i < nitems(cores); i++)
		if (strcmp(cores[i].name, dir) == 0)
			core = &cores[i];
	if (core == NULL)
		errx(2, "%s: no core named %s", file, dir);
	free(copy);
	if ((fp = fopen(file, "r")) == NULL)
		err(2, "%s", file);
	core->reset();
	got[0] = want[0] = cmdline[0] = '\0';
	/* state 0: between cases; 1: reading commands; 2: reading output. */
	for (;;) {
		len = getline(&line, &cap, fp);
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		lineno++;
		if (len == -1 || (state == 2 && len == 0)) {
			if (state == 2 && strcmp(got, want) != 0) {
				bad++;
				fprintf(stderr, "%s:%lu: expected:\n%sgot:\n%s",
				    file, at, want, got);
			}
			if (state == 2) {
				put(&txt, got);
				if (len == 0)
					put(&txt, "\n");
			}
			if (len == -1)
				break;
			state = 0;
			got[0] = want[0] = '\0';
			continue;
		}
		if (state == 2) {
			say(want, sizeof(want), "%s\n", line);
			continue;
		}
		put(&txt, line);
		put(&txt, "\n");
		if (strcmp(line, "----") == 0) {
			if (state != 1)
				errx(2, "%s:%lu: ---- without a command",
				    file, lineno);
			state = 2;
			continue;
		}
		if (state == 0 && (len == 0 || line[0] == '#'))
			continue;
		if (state == 0)
			at = lineno;
		state = 1;
		if (strlcpy(cmdline, line, sizeof(cmdline)) >= sizeof(cmdline))
			errx(2, "%s:%lu: line too long", file, lineno);
		if (core->line != NULL) {
			drive_lineno = lineno;
			run_line(core, cmdline, got, sizeof(got));
			continue;
		}
		nw = 0;
		for (p = cmdline; (words[nw] = strsep(&p, " \t")) != NULL;)
			if (*words[nw] != '\0' && ++nw > ARGS_MAX)
				errx(2, "%s:%lu: too many words", file, lineno);
		for (nkv = 0; nkv < nw - 1; nkv++) {
			kv[nkv].k = words[nkv + 1];
			if ((p = strchr(kv[nkv].k, '=')) == NULL)
				errx(2, "%s:%lu: \"%s\" is not KEY=VALUE", file,
				    lineno, kv[nkv].k);
			*p = '\0';
			kv[nkv].v = p + 1;
		}
		if (nw > 0)
			core->run(words[0], kv, nkv, got, sizeof(got));
	}
	if (state == 1)
		errx(2, "%s:%lu: a command without ---- and its output", file,
		    lineno);
	fclose(fp);
	free(line);
	core->reset();
	if (rewrite) {
		if ((fp = fopen(file, "w")) == NULL ||
		    fputs(txt.buf != NULL ? txt.buf : "", fp) == EOF ||
		    fclose(fp) == EOF)
			err(2, "%s", file);
	}
	free(txt.buf);
	return bad;
}

int
main(int argc, char *argv[])
{
	int ch, rewrite = 0, bad = 0;

	while ((ch = getopt(argc, argv, "r")) != -1) {
		switch (ch) {
		case 'r':
			rewrite = 1;
			break;
		default:
			fprintf(stderr, "usage: datadriven [-r] file ...\n");
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		fprintf(stderr, "usage: datadriven [-r] file ...\n");
		return 2;
	}
	if (sodium_init() == -1)
		errx(2, "sodium_init failed");
	for (; argc > 0; argc--, argv++)
		bad += run_file(*argv, rewrite);
	return bad > 0 && !rewrite ? 1 : 0;
}
