/*
 * elect-fd: the heartbeat failure detector as a process.  Commands on
 * stdin, DownSig on stdout, heartbeats over authenticated UDP; the
 * detector itself is the pure core in lib/fd, this is its I/O shell.
 */
#include <sys/prctl.h>
#include <sys/socket.h>

#include <ctype.h>
#include <err.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "io/loop.h"
#include "fd/fd.h"
#include "net/cluster.h"
#include "net/drops.h"
#include "net/key.h"
#include "trace/trace.h"
#include "util/util.h"

#define RECV_BATCH	16	/* datagrams read per wake-up, at most */

struct opts {
	const char	*cluster;
	unsigned	 self;
	const char	*key;
	int		 insecure;
	long long	 interval_ms;
	long long	 timeout_ms;
	double		 phi;
	enum fd_mode	 mode;
	const char	*trace;
	const char	*watch;
	int		 report_up;
	uint64_t	 incarnation;
	int		 verbosity;	/* -q -1, -v 1 */
	int		 syslog;
	const char	*digest;
};

struct shell {
	struct cluster	 c;
	struct fd	*fd;
	struct trace_writer *tw;
	const char	*trace;		/* -t, as given */
	unsigned	 self;
	int		 sock;
	int		 sigfd;		/* SIGTERM, SIGINT, SIGHUP, SIGUSR1 */
	uint64_t	 send_errors;
	char		 line[FD_CMD_LINE_MAX + 1];
	size_t		 linelen;
	int		 skipping;	/* discarding the rest of a long line */
	int		 quiet_misfits;
	const char	*keyfile;	/* NULL: insecure */
	struct drops	 drops;		/* summarised in the trace */
	unsigned long	 lineno;
	struct log_drops logdrops;	/* the log's summary */
	int64_t		 wake;		/* the detector's, of its last input */
};


static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status == 0 ? stdout : stderr,
	    "usage: elect-fd -f cluster -i id [-k keyfile | --insecure] "
	    "[--interval ms]\n"
	    "                [--timeout ms | --phi threshold] "
	    "[--mode push|ping] [-t trace]\n"
	    "                [--watch id,...] [--report-up] "
	    "[--incarnation n]\n"
	    "                [-q | -v] [--syslog] [--digest hex]\n");
	exit(status);
}

static double
arg_phi(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno != 0 || !(v >= 1 && v <= 30))
		errx(EXIT_USAGE, "--phi: \"%s\" is not a threshold (1 to 30)",
		    s);
	return v;
}

static void
parse_opts(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "cluster", required_argument, NULL, 'f' },
		{ "id", required_argument, NULL, 'i' },
		{ "key", required_argument, NULL, 'k' },
		{ "trace", required_argument, NULL, 't' },
		{ "insecure", no_argument, NULL, 'I' },
		{ "interval", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "phi", required_argument, NULL, 'P' },
		{ "mode", required_argument, NULL, 'm' },
		{ "watch", required_argument, NULL, 'w' },
		{ "report-up", no_argument, NULL, 'u' },
		{ "incarnation", required_argument, NULL, 'N' },
		{ "digest", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "syslog", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "f:hi:k:qt:vV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'f':
			o->cluster = optarg;
			break;
		case 'i':
			o->self = arg_id(optarg, "-i");
			break;
		case 'k':
			o->key = optarg;
			break;
		case 't':
			o->trace = optarg;
			break;
		case 'I':
			o->insecure = 1;
			break;
		case 'n':
			o->interval_ms = arg_num(optarg, 1, 60000, "--interval");
			break;
		case 'T':
			o->timeout_ms = arg_num(optarg, 2, 3600000, "--timeout");
			break;
		case 'P':
			o->phi = arg_phi(optarg);
			break;
		case 'm':
			if (strcmp(optarg, "push") == 0)
				o->mode = FD_PUSH;
			else if (strcmp(optarg, "ping") == 0)
				o->mode = FD_PING;
			else
				errx(EXIT_USAGE, "--mode: \"%s\" is not push or "
				    "ping", optarg);
			break;
		case 'w':
			o->watch = optarg;
			break;
		case 'u':
			o->report_up = 1;
			break;
		case 'N':
			o->incarnation = (uint64_t)arg_num(optarg, 1, LLONG_MAX,
			    "--incarnation");
			break;
		case 'v':
		case 'q':
			o->verbosity = ch == 'v' ? 1 : -1;
			break;
		case 'S':
			o->syslog = 1;
			break;
		case 'D':
			o->digest = optarg;
			break;
		case 'h':
			usage(0);
		case 'V':
			print_version();
		default:
			usage(EXIT_USAGE);
		}
	}
	if (optind != argc)
		errx(EXIT_USAGE, "unexpected argument \"%s\"", argv[optind]);
	if (o->cluster == NULL || o->self == 0)
		errx(EXIT_USAGE, "-f CLUSTER and -i ID are required");
	if ((o->key == NULL) == !o->insecure)
		errx(EXIT_USAGE, "give exactly one of -k KEYFILE and --insecure");
	if (o->timeout_ms != 0 && o->phi != 0)
		errx(EXIT_USAGE, "--timeout and --phi exclude each other");
	if (o->phi == 0 && o->timeout_ms == 0)
		o->timeout_ms = o->interval_ms * 4;
	if (o->phi == 0 && o->timeout_ms <= o->interval_ms)
		errx(EXIT_USAGE, "--timeout %lld must exceed --interval %lld",
		    o->timeout_ms, o->interval_ms);
}

/*
 * What must agree with the peers: elect-node gives its own digests
 * (--digest, 48 hex digits: algorithm, timing, membership), so that the
 * detectors of nodes that disagree do not count each other either; alone,
 * the membership.
 */
static void
set_conf(const struct opts *o, const struct cluster *c, struct sess_conf *conf)
{
	/* Push and ping detectors serve each other: the mode may differ. */
	const char *what = "elect-fd";
	size_t i;
	unsigned v;

	memset(conf, 0, sizeof(*conf));
	if (o->digest == NULL) {
		sess_digest(what, strlen(what), conf->d[0]);
		sess_cluster_digest(c, conf->d[2]);
		return;
	}
	if (strlen(o->digest) != 2 * sizeof(conf->d))
		errx(EXIT_USAGE, "--digest: %zu hex digits expected",
		    2 * sizeof(conf->d));
	for (i = 0; i < sizeof(conf->d); i++) {
		if (sscanf(o->digest + 2 * i, "%2x", &v) != 1 ||
		    !isxdigit((unsigned char)o->digest[2 * i]) ||
		    !isxdigit((unsigned char)o->digest[2 * i + 1]))
			errx(EXIT_USAGE, "--digest: \"%s\" is not hex",
			    o->digest);
		conf->d[i / SESS_DIGEST][i % SESS_DIGEST] = (uint8_t)v;
	}
}

/* --watch 2,3,5: every id must be in the cluster. */
static size_t
parse_watch(const char *list, const struct cluster *c, unsigned *ids,
    size_t max)
{
	char *copy, *s, *tok;
	size_t n = 0;

	if ((copy = s = strdup(list)) == NULL)
		err(1, "strdup");
	while ((tok = strsep(&s, ",")) != NULL) {
		if (n == max)
			errx(EXIT_USAGE, "--watch: more than %zu ids", max);
		ids[n] = arg_id(tok, "--watch");
		if (cluster_find(c, ids[n]) == NULL)
			errx(EXIT_USAGE, "--watch: node %u is not in %s",
			    ids[n], c->file);
		n++;
	}
	free(copy);
	return n;
}

static void
load(const struct opts *o, struct shell *sh, struct fd_config *cfg)
{
	const struct cluster_node *me;
	char msg[1024];
	size_t i;

	if (cluster_load(o->cluster, &sh->c, msg, sizeof(msg)) == -1)
		errx(EXIT_USAGE, "%s", msg);
	if ((me = cluster_find(&sh->c, o->self)) == NULL)
		errx(EXIT_USAGE, "-i %u: no node %u in %s", o->self, o->self,
		    o->cluster);
	for (i = 0; i < sh->c.n; i++)
		if (sh->c.nodes[i].addr.ss_family != me->addr.ss_family)
			errx(EXIT_USAGE, "%s:%u: node %u has another address "
			    "family than node %u", o->cluster,
			    sh->c.nodes[i].line, sh->c.nodes[i].id, o->self);
	memset(cfg, 0, sizeof(*cfg));
	if (o->insecure) {
		if (!cluster_loopback(&sh->c))
			errx(EXIT_USAGE, "--insecure: %s has addresses that "
			    "are not loopback; anyone on the network could "
			    "speak for a node (use -k KEYFILE)", o->cluster);
		cfg->key.insecure = 1;
		warnx("--insecure: datagrams are not authenticated");
	} else if (wire_key_load(&cfg->key, o->key, msg, sizeof(msg)) == -1)
		errx(EXIT_USAGE, "%s", msg);
}

static void
open_socket(struct shell *sh)
{
	const struct cluster_node *me = cluster_find(&sh->c, sh->self);
	char ep[CLUSTER_HOST_MAX + 16];

	cluster_endpoint(me, me->fd_port, ep, sizeof(ep));
	sh->sock = socket(me->fd_addr.ss_family,
	    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (sh->sock == -1)
		err(1, "socket");
	if (bind(sh->sock, (const struct sockaddr *)&me->fd_addr,
	    me->addrlen) == -1)
		err(1, "bind %s", ep);
}

static void
print_stats(const struct shell *sh, FILE *f)
{
	const struct fd_stats *st = fd_stats(sh->fd);
	size_t i;

	fprintf(f, "%s: sent=%llu recv=%llu dropped=%llu down=%llu up=%llu "
	    "send-errors=%llu", getprogname(), (unsigned long long)st->sent,
	    (unsigned long long)st->received,
	    (unsigned long long)st->dropped, (unsigned long long)st->down,
	    (unsigned long long)st->up,
	    (unsigned long long)sh->send_errors);
	for (i = 0; i < st->ndrops; i++)
		fprintf(f, " %s=%llu", st->drops[i].why,
		    (unsigned long long)st->drops[i].n);
	fprintf(f, "\n");
}

static void
drop_line(void *arg, unsigned from, const char *why, uint64_t n)
{
	struct shell *sh = arg;

	if (from == 0)
		tw_event(sh->tw, sh->self, "drop from=- why=%s n=%llu", why,
		    (unsigned long long)n);
	else
		tw_event(sh->tw, sh->self, "drop from=%u why=%s n=%llu", from,
		    why, (unsigned long long)n);
}

static void __attribute__((noreturn))
leave(struct shell *sh, const char *why, int status)
{
	const struct fd_stats *st = fd_stats(sh->fd);

	log_drops_tick(&sh->logdrops, sh->self,
	    mono_now() + LOG_DROPS_WINDOW);
	log_info("stop node=%u why=%s sent=%llu recv=%llu dropped=%llu",
	    sh->self, why, (unsigned long long)st->sent,
	    (unsigned long long)st->received, (unsigned long long)st->dropped);
	drops_flush(&sh->drops, mono_now(), drop_line, sh);
	tw_event(sh->tw, sh->self, "exit why=%s sent=%llu recv=%llu "
	    "dropped=%llu", why, (unsigned long long)st->sent,
	    (unsigned long long)st->received, (unsigned long long)st->dropped);
	tw_close(sh->tw, 200);
	fd_free(sh->fd);
	cluster_free(&sh->c);
	exit(status);
}

/* A signal line for the client; stdout is line-buffered. */
static void
signal_client(struct shell *sh, const char *what, unsigned id)
{
	/*
	 * A client that stops reading blocks us here, and with us our
	 * heartbeats: its peers then see this node as down, which it is.
	 */
	if (printf("%s %u\n", what, id) < 0 || fflush(stdout) == EOF) {
		if (errno == EPIPE)
			leave(sh, "stdout-closed", 0);
		warn("stdout");
		leave(sh, "error", 1);
	}
}

static void
carry_out(struct shell *sh, const struct fd_out *o)
{
	const struct cluster_node *n;
	const struct fd_act *a;
	size_t i;
	int64_t now;

	sh->wake = o->wake;
	for (i = 0, a = o->v; i < o->n; i++, a++) {
		switch (a->kind) {
		case FD_ACT_SEND:
			n = cluster_find(&sh->c, a->peer);
			if (sendto(sh->sock, a->buf, a->len, 0,
			    (const struct sockaddr *)&n->fd_addr,
			    n->addrlen) == -1)
				sh->send_errors++;
			break;
		case FD_ACT_DOWN:
			tw_event(sh->tw, sh->self, "fd op=down peer=%u",
			    a->peer);
			log_info("peer-down node=%u peer=%u", sh->self,
			    a->peer);
			signal_client(sh, "down", a->peer);
			break;
		case FD_ACT_UP:
			log_info("peer-up node=%u peer=%u", sh->self, a->peer);
			signal_client(sh, "up", a->peer);
			break;
		case FD_ACT_MISFIT:
			/* Under elect-node (--digest), the node says it. */
			if (sh->quiet_misfits)
				break;
			if (a->why == NULL)
				log_warnx("node %u: configuration agrees again; "
				    "counted", a->peer);
			else
				log_warnx("node %u: its %s differs from ours; "
				    "not counted until it agrees", a->peer,
				    a->why);
			break;
		case FD_ACT_DROP:
			now = mono_now();
			log_drops_add(&sh->logdrops, a->why, now);
			/* An id outside the cluster is noise: one line for
			 * all of them. */
			if (drops_add(&sh->drops, cluster_find(&sh->c,
			    a->peer) != NULL ? a->peer : 0, a->why, now))
				drops_flush(&sh->drops, now, drop_line, sh);
			break;
		}
	}
}

static void
command(struct shell *sh, const struct fd_cmd *c)
{
	struct fd_out o;
	const char *why;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (cluster_find(&sh->c, c->ids[i]) == NULL) {
			warnx("stdin:%lu: node %u is not in %s", sh->lineno,
			    c->ids[i], sh->c.file);
			return;
		}
	if ((why = fd_command(sh->fd, c, mono_now(), &o)) != NULL) {
		warnx("stdin:%lu: %s", sh->lineno, why);
		return;
	}
	/* alive is a hint that only delays reports: the trace format's fd
	 * lines have no op for it, and a checker needs none. */
	for (i = 0; i < c->n && c->op != FD_OP_ALIVE; i++)
		tw_event(sh->tw, sh->self, "fd op=%s peer=%u",
		    fd_op_name(c->op), c->ids[i]);
	carry_out(sh, &o);
}

static void
one_line(struct shell *sh, const char *line, size_t len)
{
	struct fd_cmd c;
	const char *why;
	int rc;

	sh->lineno++;
	if ((rc = fd_cmd_parse(line, len, &c, &why)) == -1)
		warnx("stdin:%lu: %s", sh->lineno, why);
	else if (rc == 1)
		command(sh, &c);
}

/* Whatever stdin has; complete lines are carried out. */
static void
read_commands(struct shell *sh)
{
	char *nl;
	ssize_t n;
	size_t used;

	n = read(STDIN_FILENO, sh->line + sh->linelen,
	    sizeof(sh->line) - sh->linelen);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n == -1) {
		warn("stdin");
		leave(sh, "error", 1);
	}
	if (n == 0)
		leave(sh, "eof", 0);
	sh->linelen += (size_t)n;
	while ((nl = memchr(sh->line, '\n', sh->linelen)) != NULL) {
		used = (size_t)(nl - sh->line);
		if (sh->skipping)
			sh->skipping = 0;
		else
			one_line(sh, sh->line, used);
		memmove(sh->line, nl + 1, sh->linelen - used - 1);
		sh->linelen -= used + 1;
	}
	if (sh->linelen == sizeof(sh->line)) {
		if (!sh->skipping) {
			sh->lineno++;
			warnx("stdin:%lu: line too long", sh->lineno);
		}
		sh->skipping = 1;
		sh->linelen = 0;
	}
}

/* What the socket holds, a batch per system call, RECV_BATCH at most. */
static void
read_datagrams(struct shell *sh)
{
	/* One byte more than the largest datagram, to see an oversized one. */
	static uint8_t buf[RECV_BATCH][WIRE_DGRAM_MAX + 1];
	struct mmsghdr mm[RECV_BATCH];
	struct iovec iov[RECV_BATCH];
	struct sockaddr_storage src[RECV_BATCH];
	const struct cluster_node *at;
	struct fd_out o;
	int i, n;

	memset(mm, 0, sizeof(mm));
	memset(src, 0, sizeof(src));
	for (i = 0; i < RECV_BATCH; i++) {
		iov[i].iov_base = buf[i];
		iov[i].iov_len = sizeof(buf[i]);
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
		mm[i].msg_hdr.msg_name = &src[i];
		mm[i].msg_hdr.msg_namelen = sizeof(src[i]);
	}
	if ((n = recvmmsg(sh->sock, mm, RECV_BATCH, MSG_DONTWAIT,
	    NULL)) == -1) {
		if (errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED)
			return;
		warn("recvmmsg");
		leave(sh, "error", 1);
	}
	for (i = 0; i < n; i++) {
		/* Where it came from, whatever it claims. */
		at = cluster_by_addr(&sh->c, &src[i], 1);
		fd_datagram(sh->fd, buf[i], mm[i].msg_len,
		    at != NULL ? at->id : 0, mono_now(), &o);
		carry_out(sh, &o);
	}
}

/* SIGHUP: the key file again (a rotation); a bad one changes nothing. */
static void
rekey(struct shell *sh)
{
	struct wire_key k = { 0 };
	char msg[256];

	if (sh->keyfile == NULL)
		return;
	if (wire_key_load(&k, sh->keyfile, msg, sizeof(msg)) == -1)
		log_warnx("%s; keeping the keys in force", msg);
	else
		fd_set_key(sh->fd, &k);
	sodium_memzero(&k, sizeof(k));
}

static void
take_signals(struct shell *sh)
{
	int sig;

	while ((sig = signals_next(sh->sigfd)) != 0)
		switch (sig) {
		case SIGHUP:
			if (sh->tw != NULL && tw_reopen(sh->tw) == -1)
				warn("reopening the trace");
			rekey(sh);
			break;
		case SIGUSR1:
			print_stats(sh, stderr);
			break;
		default:
			leave(sh, "signal", 0);
		}
}

/*
 * One poll for everything: commands, datagrams, the detector's next
 * deadline and the trace writer, which waits for its collector's
 * acknowledgements, its end and the time to connect again.
 */
static void
loop(struct shell *sh)
{
	struct pollfd pfd[4];
	struct loop_wait w;
	struct fd_out o;
	int64_t now, deadline;
	int ms;

	for (;;) {
		now = mono_now();
		if ((deadline = sh->wake) <= now) {
			/* A heartbeat already queued came in time: take it. */
			read_datagrams(sh);
			now = mono_now();
			fd_tick(sh->fd, now, &o);
			carry_out(sh, &o);
			deadline = sh->wake;
		}
		if (drops_deadline(&sh->drops) <= now)
			drops_flush(&sh->drops, now, drop_line, sh);
		loop_wait_init(&w);
		loop_wait_at(&w, deadline, now);
		loop_wait_at(&w, drops_deadline(&sh->drops), now);
		loop_wait_in(&w, log_drops_tick(&sh->logdrops, sh->self, now));
		if ((ms = tw_pollfd(sh->tw, &pfd[2])) != -1)
			loop_wait_in(&w, ms * FD_MS);
		pfd[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = sh->sock, .events = POLLIN };
		pfd[3] = (struct pollfd){ .fd = sh->sigfd, .events = POLLIN };
		if (loop_poll(pfd, nitems(pfd), &w) == -1) {
			warn("ppoll");
			leave(sh, "error", 1);
		}
		if (pfd[3].revents & POLLIN)
			take_signals(sh);
		if (pfd[1].revents & POLLIN)
			read_datagrams(sh);
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
			read_commands(sh);
		tw_tick(sh->tw);
		if (sh->tw != NULL)
			tw_watch(sh->tw, sh->self, sh->trace);
	}
}

/*
 * A closed standard descriptor would be taken by the socket: give it
 * /dev/null instead (a closed stdin then reads as end of file).
 */
static void
check_stdio(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) == -1 &&
		    open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			exit(1);
}

/* Follow the parent: the kernel signals us when it dies. */
static void
follow_parent(void)
{
	pid_t parent = getppid();

	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
		err(1, "prctl");
	if (getppid() != parent)	/* it died before we asked */
		exit(0);
}

int
main(int argc, char *argv[])
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1 };
	struct opts o = { .interval_ms = 50, .mode = FD_PUSH };
	struct fd_config cfg;
	struct fd_out out;
	struct shell sh;
	unsigned *ids, watch[CLUSTER_NODES_MAX];
	uint8_t *nonces;
	size_t nwatch;
	size_t i;

	check_stdio();
	follow_parent();
	parse_opts(argc, argv, &o);
	log_init("elect-fd", o.syslog, o.verbosity);
	if (sodium_init() == -1)
		errx(1, "sodium_init");
	memset(&sh, 0, sizeof(sh));
	sh.self = o.self;
	sh.quiet_misfits = o.digest != NULL;
	sh.keyfile = o.key;
	load(&o, &sh, &cfg);
	nwatch = o.watch == NULL ? 0 :
	    parse_watch(o.watch, &sh.c, watch, nitems(watch));
	if ((ids = calloc(sh.c.n, sizeof(*ids))) == NULL)
		err(1, "calloc");
	for (i = 0; i < sh.c.n; i++)
		ids[i] = sh.c.nodes[i].id;
	cfg.self = o.self;
	cfg.ids = ids;
	cfg.nids = sh.c.n;
	cfg.mode = o.mode;
	cfg.interval = o.interval_ms * FD_MS;
	cfg.timeout = o.timeout_ms * FD_MS;
	cfg.phi = o.phi;
	cfg.report_up = o.report_up;
	set_conf(&o, &sh.c, &cfg.conf);
	if ((nonces = calloc(sh.c.n, SESS_NONCE)) == NULL)
		err(1, "calloc");
	randombytes_buf(nonces, sh.c.n * SESS_NONCE);
	cfg.nonces = nonces;
	/* Without one from elect-node: microseconds of the real-time clock,
	 * which grow across restarts as long as the clock is not set back. */
	cfg.incarnation = o.incarnation != 0 ? o.incarnation :
	    (uint64_t)(tw_now() / 1000);
	if ((sh.fd = fd_new(&cfg)) == NULL)
		errx(1, "cannot set up the detector");
	free(ids);
	free(nonces);
	open_socket(&sh);
	if (o.trace != NULL &&
	    (sh.tw = tw_open(o.trace, STDERR_FILENO)) == NULL)
		err(EXIT_USAGE, "-t %s", o.trace);
	sh.trace = o.trace;
	/* a collector with the key (collect -k) takes only proved lines */
	if (sh.tw != NULL && !cfg.key.insecure)
		tw_auth(sh.tw, cfg.key.k, o.self);
	sodium_memzero(&cfg.key, sizeof(cfg.key));
	if (setvbuf(stdout, NULL, _IOLBF, 0) != 0)
		err(1, "setvbuf");
	sh.sigfd = signals_open(sigs, nitems(sigs));
	/* Heartbeats late because a real-time process (elect-node is one)
	 * holds the CPU make peers suspect this host: the detector is as
	 * urgent as the node it serves. */
	sched_realtime(RT_NODE);
	/* Before the boot line: once it shows, our peers have the news. */
	fd_hello(sh.fd, mono_now(), &out);
	carry_out(&sh, &out);
	tw_event(sh.tw, sh.self, "boot inc=%llu nodes=%zu mode=%s "
	    "interval=%.3f %s=%.*f", (unsigned long long)cfg.incarnation,
	    sh.c.n, o.mode == FD_PUSH ? "push" : "ping",
	    (double)o.interval_ms / 1000, o.phi > 0 ? "phi" : "timeout",
	    o.phi > 0 ? 1 : 3, o.phi > 0 ? o.phi :
	    (double)o.timeout_ms / 1000);
	log_info("start node=%u version=%s cluster=%s nodes=%zu inc=%llu "
	    "key=%s mode=%s interval=%lldms %s=%.*f%s", o.self, ELECT_VERSION,
	    o.cluster, sh.c.n, (unsigned long long)cfg.incarnation,
	    o.insecure ? "insecure" : o.key, o.mode == FD_PUSH ? "push" :
	    "ping", o.interval_ms, o.phi > 0 ? "phi" : "timeout",
	    o.phi > 0 ? 1 : 0, o.phi > 0 ? o.phi : (double)o.timeout_ms,
	    o.phi > 0 ? "" : "ms");
	for (i = 0; i < nwatch; i++) {
		struct fd_cmd start = { .op = FD_OP_START, .n = 1 };

		start.ids[0] = watch[i];
		command(&sh, &start);
	}
	loop(&sh);
}
