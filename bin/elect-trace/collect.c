/*
 * elect-trace collect: one trace from many nodes.  A single poll loop
 * serves every connection, reading at most one block from each per round,
 * so that no sender can hold up the others.  Lines are written as they
 * come, or with -d or -w in time order: held in a reorder buffer until
 * every live connection has sent a line at least as late (a low
 * watermark), and with -d until they are that old.  A connection silent
 * for longer than -w is said quiet and waited for no more; its lines that
 * come too late for the order are dropped and said lost.  A sender's
 * lines are acknowledged once written.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <netdb.h>
#include <netinet/in.h>

#include <assert.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIBBSD_OPENBSD_VIS
#include <vis.h>

#include <sodium.h>

#include "io/loop.h"
#include "collect/collect.h"
#include "collect/hold.h"
#include "net/key.h"
#include "net/resolve.h"
#include "util/util.h"

#include "elect-trace.h"

#define BLOCK		(64 * 1024)
#define PEER_MAX	96
#define REPORT_MAX	10	/* bad lines reported per connection */
#define DRAIN_MAX	(1024 * 1024)	/* read from each at the end, at most */
#define HOLD_MAX	(64 * 1024 * 1024)	/* bytes in the reorder buffer */
#define WAIT_DEFAULT	TRACE_NS	/* -w */
#define ACCEPT_MAX	64	/* connections taken per round */
#define CONN_MAX	4096	/* at once */
#define SOURCE_MAX	64	/* at once from one source */
/* With -k, connections that have proved no node yet: */
#define STRANGER_SOURCE_MAX 8	/* at once from one source */
#define STRANGER_MAX	256	/* at once in all */
#define PROVE_WAIT	(5 * TRACE_NS)	/* to prove one, from the accept */
#define STRANGER_LOG	(10 * TRACE_NS)	/* strangers summed up once in */
#define SOURCE_LEN	48

struct conn {
	int		 fd;		/* -1: ended, lines still held */
	char		 peer[PEER_MAX];
	unsigned long	 acked;
	unsigned long	 held;		/* lines in the reorder buffer */
	trace_time	 mark;		/* its latest line's time */
	int64_t		 heard;		/* mono_now() of its latest line */
	int		 quiet;		/* waited for no more */
	char		 src[SOURCE_LEN];	/* its source: address, uid */
	int64_t		 born;		/* mono_now() at the accept */
	struct collect_conn c;
};

struct out {
	const char	*path;		/* NULL: stdout */
	int		 fd;
	char		*buf;
	size_t		 len, cap;
};

static char *unlink_path;	/* our unix socket, removed on the way out */

static void
remove_socket(void)
{
	if (unlink_path != NULL)
		unlink(unlink_path);
	free(unlink_path);
	unlink_path = NULL;
}

static void
out_flush(struct out *o)
{
	size_t off = 0;

	while (off < o->len) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);

		if (n == -1) {
			struct pollfd pfd = { .fd = o->fd, .events = POLLOUT };

			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				poll(&pfd, 1, -1);
				continue;
			}
			err(1, "%s", o->path ? o->path : "stdout");
		}
		off += (size_t)n;
	}
	o->len = 0;
}

static void
out_line(void *arg, const char *line, size_t len)
{
	struct out *o = arg;

	if (o->cap - o->len < len + 1)
		out_flush(o);
	memcpy(o->buf + o->len, line, len);
	o->buf[o->len + len] = '\n';
	o->len += len + 1;
}

static int
out_open(struct out *o)
{
	int fd;

	if (o->path == NULL)
		return STDOUT_FILENO;
	fd = open(o->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd == -1)
		return -1;
	return fd;
}

static void
out_reopen(struct out *o)
{
	int fd;

	if (o->path == NULL)
		return;
	if ((fd = out_open(o)) == -1) {
		warn("%s", o->path);	/* keep writing where we were */
		return;
	}
	close(o->fd);
	o->fd = fd;
}

struct state {
	struct collector *col;
	struct out	  out;
	struct conn	**conns;
	size_t		  nconns, capconns;
	char		 *block;
	struct hold	 *hold;		/* NULL without -d or -w */
	trace_time	  delay;	/* -d: a line held until this old */
	int64_t		  wait;		/* -w: a connection waited for */
	int		  sigfd;	/* SIGINT, SIGTERM, SIGHUP */
	trace_time	  last;		/* latest time written from it */
	unsigned long	  quiets;
	const uint8_t	 *key;		/* -k: writers prove their nodes */
	/* Connections that proved nothing, since STRANGER_LOG began: lines
	 * of theirs reported and not, connections refused (over a cap),
	 * and closed for want of a proof in time. */
	int64_t		  slog;
	unsigned long	  shown, hidden, refused, unproved;
};

/* Whether CN's lines may be the cluster's (it proved a node, or no proof
 * is wanted). */
static int
trusted(const struct state *st, const struct conn *cn)
{
	return st->key == NULL || cn->c.anyproved;
}

/* What the callbacks of the collector core are given. */
struct ctx {
	struct state	*st;
	struct conn	*conn;
	int		 own;		/* lines are the collector's (crash) */
};

/* The peer as a log value without blanks: "pid:N", "fd:N" or HOST:PORT. */
static const char *
log_peer(const char *peer, char *buf, size_t len)
{
	const char *p = strstr(peer, "peer ");
	char *c;

	strlcpy(buf, p != NULL ? p + 5 : peer, len);
	for (c = buf; *c != '\0'; c++)
		if (*c == ' ')
			*c = ':';
	return buf;
}

static void
emit(void *arg, trace_time t, const char *line, size_t len)
{
	struct ctx *ctx = arg;
	const char *node, *end;
	char who[PEER_MAX];

	/* "TIME NODE crash": the collector's own line says a node's stream
	 * ended without its exit. */
	if (ctx->own && (node = memchr(line, ' ', len)) != NULL &&
	    (end = memchr(node + 1, ' ', len - (size_t)(node + 1 - line))) !=
	    NULL)
		log_warnx("crash node=%.*s peer=%s", (int)(end - node - 1),
		    node + 1, log_peer(ctx->conn->peer, who, sizeof(who)));
	if (ctx->st->hold == NULL) {
		out_line(&ctx->st->out, line, len);
		return;
	}
	if (hold_put(ctx->st->hold, t, line, len, ctx->own ? NULL :
	    ctx->conn) == -1)
		err(1, NULL);
	if (!ctx->own) {
		ctx->conn->held++;
		if (t > ctx->conn->mark)
			ctx->conn->mark = t;
		ctx->conn->heard = mono_now();
		ctx->conn->quiet = 0;	/* back in time: waited for again */
	}
}

/* In time order, nothing earlier than what was written may come. */
static trace_time
floor_of(void *arg)
{
	struct ctx *ctx = arg;

	return ctx->st->hold != NULL ? ctx->st->last : INT64_MIN;
}

/* Says who sent a bad line, escaped so that it cannot play the terminal. */
static void
report(void *arg, unsigned long lineno, const char *why, const char *line,
    size_t len)
{
	struct ctx *ctx = arg;
	struct conn *cn = ctx->conn;
	char shown[4 * 48 + 1];

	/* Strangers open connections by the thousand: REPORT_MAX of their
	 * lines are reported per STRANGER_LOG in all, the rest summed up. */
	if (!trusted(ctx->st, cn)) {
		if (ctx->st->shown >= REPORT_MAX) {
			ctx->st->hidden++;
			return;
		}
		ctx->st->shown++;
	} else if (cn->c.bad > REPORT_MAX + 1)
		return;
	else if (cn->c.bad == REPORT_MAX + 1) {
		warnx("%s: more bad lines; not reported", cn->peer);
		return;
	}
	strvisx(shown, line, len > 48 ? 48 : len, VIS_CSTYLE | VIS_TAB |
	    VIS_NL | VIS_OCTAL);
	warnx("%s: line %lu: %s: \"%s%s\"", cn->peer, lineno, why, shown,
	    len > 48 ? "..." : "");
}

static void
send_ack(struct conn *cn)
{
	char a[32];
	int n;

	unsigned long done = cn->c.lines - cn->held;

	if (cn->fd == -1 || cn->acked == done)
		return;
	n = snprintf(a, sizeof(a), "ack %lu\n", done);
	/* A full buffer means the sender reads no acks: skip, never wait. */
	if (send(cn->fd, a, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) == n)
		cn->acked = done;
}

static void
peer_name(int fd, const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN], serv[8];
	struct ucred uc;
	socklen_t ulen = sizeof(uc);

	if (ss->ss_family == AF_UNIX) {
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ulen) == 0)
			snprintf(buf, len, "unix peer pid %ld", (long)uc.pid);
		else
			snprintf(buf, len, "unix peer fd %d", fd);
		return;
	}
	if (getnameinfo((const struct sockaddr *)ss, sizeof(*ss), host,
	    sizeof(host), serv, sizeof(serv), NI_NUMERICHOST |
	    NI_NUMERICSERV) != 0)
		snprintf(buf, len, "tcp peer fd %d", fd);
	else if (ss->ss_family == AF_INET6)
		snprintf(buf, len, "tcp peer [%s]:%s", host, serv);
	else
		snprintf(buf, len, "tcp peer %s:%s", host, serv);
}

/*
 * The source of a connection, the unit of the caps: a unix peer's user,
 * an IPv4 address, an IPv6 address's /64 (what one host is given).
 */
static void
source_name(int fd, const struct sockaddr_storage *ss, char *buf, size_t len)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	struct ucred uc;
	socklen_t ulen = sizeof(uc);
	const uint8_t *a;

	if (ss->ss_family == AF_UNIX) {
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ulen) == 0)
			snprintf(buf, len, "uid:%lu", (unsigned long)uc.uid);
		else
			strlcpy(buf, "uid:?", len);
	} else if (ss->ss_family == AF_INET) {
		a = (const uint8_t *)&sin->sin_addr;
		snprintf(buf, len, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
	} else if (ss->ss_family == AF_INET6) {
		a = sin6->sin6_addr.s6_addr;
		snprintf(buf, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x::/64",
		    a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
	} else
		strlcpy(buf, "?", len);
}

/*
 * Listens on unix:PATH.  The socket is bound to a name of its own and
 * renamed into place once it listens, so that no client ever finds a
 * socket that refuses it; a stale one, left by a dead collector, is
 * replaced, a live one is an error.
 */
static int
listen_unix(const char *addr)
{
	struct sockaddr_un sun, tmp = { .sun_family = AF_UNIX };
	const char *path = addr + 5;
	struct stat sb;
	int s;

	if (trace_addr_unix(addr, &sun) == -1 ||
	    (size_t)snprintf(tmp.sun_path, sizeof(tmp.sun_path), "%s.%ld",
	    path, (long)getpid()) >= sizeof(tmp.sun_path))
		errx(EXIT_USAGE, "-l %s: bad or too long socket path", addr);
	if (lstat(path, &sb) == 0) {
		if (!S_ISSOCK(sb.st_mode))
			errx(1, "%s: exists and is not a socket", path);
		if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
			err(1, "socket");
		if (connect(s, (struct sockaddr *)&sun, sizeof(sun)) == 0)
			errx(1, "%s: a collector is already listening", addr);
		close(s);
	}
	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(1, "socket");
	unlink(tmp.sun_path);
	if (bind(s, (struct sockaddr *)&tmp, sizeof(tmp)) == -1 ||
	    listen(s, 128) == -1)
		err(1, "%s", tmp.sun_path);
	if (rename(tmp.sun_path, path) == -1) {
		unlink(tmp.sun_path);
		err(1, "%s", path);
	}
	if ((unlink_path = strdup(path)) == NULL)
		err(1, NULL);
	atexit(remove_socket);
	return s;
}

/* Whether SA is a loopback address. */
static int
loopback(const struct sockaddr *sa)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;

	if (sa->sa_family == AF_INET)
		return (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
	return sa->sa_family == AF_INET6 &&
	    IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr);
}

/*
 * Listens on tcp:HOST:PORT.  Without -k anyone who can connect can write
 * lines for any node, so only loopback, unless TRUSTED (-k or
 * --insecure).
 */
static int
listen_tcp(const char *addr, int trusted)
{
	struct addrinfo *ai;
	const char *why;
	int s, one = 1;

	if (trace_addr_tcp(addr, 1, &ai, &why) == -1)
		errx(EXIT_USAGE, "-l %s: %s", addr, why);
	if (!trusted && !loopback(ai->ai_addr))
		errx(EXIT_USAGE, "-l %s: not a loopback address: -k to make "
		    "writers prove their nodes, or --insecure to trust the "
		    "network", addr);
	s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
	if (s == -1)
		err(1, "socket");
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, ai->ai_addr, ai->ai_addrlen) == -1 || listen(s, 128) == -1)
		err(1, "%s", addr);
	net_freeaddrinfo(ai);
	return s;
}

static int
listen_on(const char *addr, int insecure)
{
	int s;

	if (strncmp(addr, "unix:", 5) == 0)
		s = listen_unix(addr);
	else if (strncmp(addr, "tcp:", 4) == 0)
		s = listen_tcp(addr, insecure);
	else
		errx(EXIT_USAGE, "-l %s: expected unix:PATH or tcp:HOST:PORT",
		    addr);
	if (fcntl(s, F_SETFL, O_NONBLOCK) == -1)
		err(1, "fcntl");
	return s;
}

static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void	end_conn(struct state *, size_t, enum collect_end);
static void	strangers_said(struct state *, int64_t);

/*
 * Whether CN, just accepted, may stay: no more than SOURCE_MAX
 * connections of one source at once, and with -k no more than
 * STRANGER_SOURCE_MAX of them that have proved nothing yet.  Past
 * CONN_MAX in all, or STRANGER_MAX strangers, the oldest stranger makes
 * room (it had its chance), else CN is refused: new connections are
 * taken at once or closed, never left in the backlog, so that idle ones
 * cannot keep a node out.
 */
static int
make_room(struct state *st, const struct conn *cn)
{
	size_t i, same = 0, strange = 0, strangers = 0, oldest = SIZE_MAX;

	for (i = 0; i < st->nconns; i++) {
		const struct conn *o = st->conns[i];
		int s = !trusted(st, o);

		if (strcmp(o->src, cn->src) == 0) {
			same++;
			strange += (size_t)s;
		}
		if (s) {
			strangers++;
			if (oldest == SIZE_MAX ||
			    o->born < st->conns[oldest]->born)
				oldest = i;
		}
	}
	if (same >= SOURCE_MAX ||
	    (st->key != NULL && strange >= STRANGER_SOURCE_MAX))
		return 0;
	if (st->nconns < CONN_MAX &&
	    (st->key == NULL || strangers < STRANGER_MAX))
		return 1;
	if (oldest == SIZE_MAX)
		return 0;
	st->unproved++;
	end_conn(st, oldest, CE_SHUTDOWN);
	return 1;
}

/* One new connection; -1 when there is none to take now. */
static int
accept_one(struct state *st, int ls, int *paused)
{
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);
	struct conn *cn, **nc;
	uint8_t nonce[AUTH_NONCE];
	char ch[AUTH_LINE_MAX];
	size_t n;
	char who[PEER_MAX];
	int fd;

	fd = accept4(ls, (struct sockaddr *)&ss, &sslen, SOCK_NONBLOCK |
	    SOCK_CLOEXEC);
	if (fd == -1) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOMEM ||
		    errno == ENOBUFS)
			*paused = 1;	/* let connections end first */
		return -1;
	}
	if (st->nconns == st->capconns) {
		size_t cap = st->capconns ? st->capconns * 2 : 16;

		if ((nc = reallocarray(st->conns, cap, sizeof(*nc))) == NULL) {
			close(fd);
			*paused = 1;
			return -1;
		}
		st->conns = nc;
		st->capconns = cap;
	}
	if ((cn = malloc(sizeof(*cn))) == NULL) {
		close(fd);
		*paused = 1;
		return -1;
	}
	cn->fd = fd;
	cn->acked = cn->held = 0;
	cn->mark = INT64_MIN;
	cn->heard = cn->born = mono_now();
	cn->quiet = 0;
	collect_conn_init(&cn->c);
	peer_name(fd, &ss, cn->peer, sizeof(cn->peer));
	source_name(fd, &ss, cn->src, sizeof(cn->src));
	if (!make_room(st, cn)) {
		st->refused++;
		free(cn);
		close(fd);
		return 0;
	}
	/* the greeting: a challenge with -k, else that none is wanted (a
	 * writer with a key waits for it); a fresh socket's buffer takes it
	 * whole, or the peer is gone.  Without -k a writer gone already may
	 * still have left lines to read: they are kept. */
	randombytes_buf(nonce, sizeof(nonce));
	n = auth_challenge(st->key != NULL ? nonce : NULL, ch);
	if (st->key == NULL)
		(void)send(fd, ch, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	else if (collect_conn_auth(&cn->c, st->key, nonce) == -1 ||
	    send(fd, ch, n, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)n) {
		free(cn->c.proved);
		free(cn);
		close(fd);
		return 0;
	}
	st->conns[st->nconns++] = cn;
	log_debug("stream-open peer=%s", log_peer(cn->peer, who,
	    sizeof(who)));
	return 0;
}

/* The connection that holds a line of time T back (the live one, not
 * quiet, not over, whose latest line is earliest and earlier than T), or
 * NULL. */
static struct conn *
holder(struct state *st, trace_time t)
{
	struct conn *low = NULL;
	size_t i;

	for (i = 0; i < st->nconns; i++) {
		struct conn *cn = st->conns[i];

		if (!cn->quiet && cn->mark < t && trusted(st, cn) &&
		    !collect_conn_over(st->col, &cn->c) &&
		    (low == NULL || cn->mark < low->mark))
			low = cn;
	}
	return low;
}

/*
 * CN is waited for no more: says so in the trace, at T (that of the line
 * about to be written), under the node last heard on it.
 */
static void
say_quiet(struct state *st, struct conn *cn, trace_time t, int64_t now)
{
	char line[96], since[32];
	unsigned node = 0;
	int n;

	if (cn->c.nnodes > 0)
		node = cn->c.nodes[cn->c.lastnode];
	if (cn->mark == INT64_MIN)
		strlcpy(since, "-", sizeof(since));
	else
		trace_format_time(cn->mark, since, sizeof(since));
	n = trace_format_line(line, sizeof(line), t, node,
	    "quiet since=%s for=%.3f", since,
	    (double)(now - cn->heard) / TRACE_NS);
	out_line(&st->out, line, (size_t)n);
	cn->quiet = 1;
	if (++st->quiets <= REPORT_MAX)
		warnx("%s: silent %.3f s; lines written without waiting for "
		    "it", cn->peer, (double)(now - cn->heard) / TRACE_NS);
}

/*
 * Whether the earliest held line L may be written now: it is -d old, and
 * every live connection has sent a line at least as late, but for those
 * silent for -w (or all of them when the buffer is full), which are said
 * quiet.  *WAKE gets how long until that may change.
 */
static int
due(struct state *st, const struct hold_line *l, trace_time now,
    int64_t mono, int64_t *wake)
{
	struct conn *cn;

	if (l->t > now - st->delay) {
		*wake = l->t + st->delay - now;
		return 0;
	}
	while ((cn = holder(st, l->t)) != NULL) {
		if (!hold_full(st->hold) && mono - cn->heard < st->wait) {
			*wake = cn->heard + st->wait - mono;
			return 0;
		}
		say_quiet(st, cn, l->t, mono);
	}
	return 1;
}

/*
 * Writes the held lines that are due (all of them if ALL), then
 * acknowledges what was written.  *WAKE, if given, gets how long until
 * the next one may be due (-1: not before a line comes).
 */
static void
release(struct state *st, int all, int64_t *wake)
{
	const struct hold_line *top;
	struct hold_line *l;
	trace_time now = tw_now();
	int64_t mono = mono_now(), w = -1;
	size_t i;

	if (st->hold == NULL)
		return;
	while ((top = hold_top(st->hold)) != NULL &&
	    (all || due(st, top, now, mono, &w))) {
		struct conn *cn;

		l = hold_pop(st->hold);
		cn = l->tag;
		/* floor_of() kept every line from coming in too late */
		assert(l->t >= st->last);
		st->last = l->t;
		out_line(&st->out, l->line, l->len);
		if (cn != NULL && --cn->held == 0 && cn->fd == -1)
			free(cn);
		free(l);
	}
	out_flush(&st->out);
	for (i = 0; i < st->nconns; i++)
		send_ack(st->conns[i]);
	if (wake != NULL)
		*wake = w;
}

static void
end_conn(struct state *st, size_t i, enum collect_end how)
{
	struct conn *cn = st->conns[i];
	struct ctx ctx = { st, cn, 1 };
	struct collect_out co = { emit, report, &ctx, floor_of };
	char who[PEER_MAX];

	collect_end(st->col, &cn->c, how, tw_now(), &co);
	if (st->hold == NULL)
		out_flush(&st->out);
	send_ack(cn);
	if (cn->c.bad > REPORT_MAX && trusted(st, cn))
		warnx("%s: %lu bad lines in all", cn->peer, cn->c.bad);
	log_debug("stream-end peer=%s lines=%lu bad=%lu", log_peer(cn->peer,
	    who, sizeof(who)), cn->c.lines, cn->c.bad);
	close(cn->fd);
	cn->fd = -1;
	st->conns[i] = st->conns[--st->nconns];
	if (cn->held == 0)
		free(cn);	/* else when its last line is written */
}

/* One block from connection I; -1 at its end, -2 if it must be closed
 * (a false proof). */
static int
read_conn(struct state *st, size_t i)
{
	struct conn *cn = st->conns[i];
	struct ctx ctx = { st, cn, 0 };
	struct collect_out co = { emit, report, &ctx, floor_of };
	ssize_t n;

	while ((n = read(cn->fd, st->block, BLOCK)) == -1 && errno == EINTR)
		;
	if (n == -1 && errno == EAGAIN)
		return 0;
	if (n <= 0)
		return -1;
	collect_data(st->col, &cn->c, st->block, (size_t)n, &co);
	if (st->hold == NULL) {
		out_flush(&st->out);
		send_ack(cn);
	}
	return cn->c.refused ? -2 : 0;
}

/* Leaving: what the senders already sent is read and written, but nobody
 * is said to have crashed. */
static void
shut_down(struct state *st)
{
	size_t i;

	for (i = 0; i < st->nconns; i++) {
		struct conn *cn = st->conns[i];
		struct ctx ctx = { st, cn, 0 };
		struct collect_out co = { emit, report, &ctx, floor_of };
		size_t got = 0;
		ssize_t n;

		while (got < DRAIN_MAX &&
		    (n = read(cn->fd, st->block, BLOCK)) > 0) {
			collect_data(st->col, &cn->c, st->block, (size_t)n,
			    &co);
			got += (size_t)n;
		}
	}
	release(st, 1, NULL);
	out_flush(&st->out);
	while (st->nconns > 0)
		end_conn(st, st->nconns - 1, CE_SHUTDOWN);
	if (st->quiets > REPORT_MAX)
		warnx("%lu times a connection was waited for no more",
		    st->quiets);
	strangers_said(st, mono_now());
}

/* Sums up in one line what strangers did since the last such line. */
static void
strangers_said(struct state *st, int64_t mono)
{
	if (st->hidden > 0 || st->refused > 0 || st->unproved > 0)
		log_warnx("strangers lines=%lu refused=%lu unproved=%lu",
		    st->shown + st->hidden, st->refused, st->unproved);
	st->slog = mono;
	st->shown = st->hidden = st->refused = st->unproved = 0;
}

/*
 * With -k: closes the connections that have proved no node PROVE_WAIT
 * after they came, and sums up what strangers did once in STRANGER_LOG.
 * Returns how long until either is due again (-1: not before something
 * comes).
 */
static int64_t
strangers(struct state *st)
{
	int64_t mono = mono_now(), wake = -1, w;
	size_t i;

	if (st->key == NULL)
		return -1;
	for (i = st->nconns; i > 0; i--) {
		struct conn *cn = st->conns[i - 1];

		if (trusted(st, cn))
			continue;
		if (mono - cn->born >= PROVE_WAIT) {
			st->unproved++;
			end_conn(st, i - 1, CE_SHUTDOWN);
		} else if (wake == -1 || (w = cn->born + PROVE_WAIT - mono) <
		    wake)
			wake = cn->born + PROVE_WAIT - mono;
	}
	if (mono - st->slog >= STRANGER_LOG)
		strangers_said(st, mono);
	if (st->hidden > 0 || st->refused > 0 || st->unproved > 0) {
		w = st->slog + STRANGER_LOG - mono;
		if (wake == -1 || w < wake)
			wake = w;
	}
	return wake;
}

static void
serve(struct state *st, int ls)
{
	struct pollfd *pfd = NULL;
	size_t cap = 0, i, n;
	int paused = 0, quit = 0, sig;
	int64_t wake = -1, sw;

	st->slog = mono_now();
	while (!quit) {
		struct loop_wait w;

		/* before the table: it may close connections */
		if ((sw = strangers(st)) >= 0 && (wake == -1 || sw < wake))
			wake = sw;
		if (cap < st->nconns + 2) {
			cap = (st->nconns + 2) * 2;
			if ((pfd = reallocarray(pfd, cap, sizeof(*pfd))) == NULL)
				err(1, NULL);
		}
		pfd[0].fd = paused ? -1 : ls;
		pfd[0].events = POLLIN;
		for (i = 0; i < st->nconns; i++) {
			pfd[i + 1].fd = st->conns[i]->fd;
			pfd[i + 1].events = POLLIN;
		}
		n = st->nconns;
		pfd[n + 1].fd = st->sigfd;
		pfd[n + 1].events = POLLIN;
		/* Until the next held line may be due; paused (out of
		 * descriptors), a tenth of a second. */
		loop_wait_init(&w);
		loop_wait_in(&w, wake);
		if (paused)
			loop_wait_in(&w, TRACE_NS / 10);
		if (loop_poll(pfd, n + 2, &w) == -1)
			err(1, "poll");
		paused = 0;
		while (pfd[n + 1].revents != 0 &&
		    (sig = signals_next(st->sigfd)) != 0) {
			if (sig == SIGHUP)
				out_reopen(&st->out);
			else
				quit = 1;
		}
		/* Backwards: end_conn() moves the last connection to i. */
		for (i = n; i > 0; i--) {
			int rc = pfd[i].revents != 0 ? read_conn(st, i - 1) : 0;

			/* a writer that lied: no crash said for its nodes */
			if (rc < 0)
				end_conn(st, i - 1, rc == -1 ? CE_EOF :
				    CE_SHUTDOWN);
		}
		for (i = 0; i < ACCEPT_MAX && !paused &&
		    (pfd[0].revents & POLLIN); i++)
			if (accept_one(st, ls, &paused) == -1)
				break;
		release(st, 0, &wake);
	}
	free(pfd);
}

int
cmd_collect(int argc, char *argv[])
{
	enum { INSECURE = 256 };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "insecure", no_argument, NULL, INSECURE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "syslog", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	struct state st = { 0 };
	int verbosity = 0, use_syslog = 0;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	const char *addr = NULL;
	int ch, ls, ordered = 0, insecure = 0;
	const char *keyfile = NULL;
	uint8_t keys[KEY_MAX][KEY_BYTES];
	char msg[256];

	st.wait = WAIT_DEFAULT;
	while ((ch = getopt_long(argc, argv, "d:hk:l:o:qvw:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'd':
			st.delay = arg_seconds(optarg, "-d");
			ordered = 1;
			break;
		case 'w':
			st.wait = arg_seconds(optarg, "-w");
			ordered = 1;
			break;
		case 'k':
			keyfile = optarg;
			break;
		case 'l':
			addr = optarg;
			break;
		case 'o':
			st.out.path = optarg;
			break;
		case INSECURE:
			insecure = 1;
			break;
		case 'v':
		case 'q':
			verbosity = ch == 'v' ? 1 : -1;
			break;
		case 'S':
			use_syslog = 1;
			break;
		case 'h':
			usage("collect", 0);
		default:
			usage("collect", EXIT_USAGE);
		}
	}
	if (addr == NULL || optind != argc)
		usage("collect", EXIT_USAGE);
	if (keyfile != NULL) {
		/* Writers prove themselves under the key they send with:
		 * the first of the file's (see elect-node(1), KEY ROTATION). */
		if (key_load(keyfile, keys, msg, sizeof(msg)) == -1)
			errx(EXIT_USAGE, "%s", msg);
		st.key = keys[0];
	}
	if (sodium_init() == -1)
		errx(1, "libsodium cannot start");
	if ((st.out.fd = out_open(&st.out)) == -1)
		err(EXIT_USAGE, "%s", st.out.path);
	st.out.cap = BLOCK + TRACE_LINE_MAX;
	if ((st.out.buf = malloc(st.out.cap)) == NULL ||
	    (st.block = malloc(BLOCK)) == NULL ||
	    (st.col = collect_new()) == NULL ||
	    (ordered && (st.hold = hold_new(HOLD_MAX)) == NULL))
		err(1, NULL);
	raise_nofile();
	st.sigfd = signals_open(sigs, nitems(sigs));
	ls = listen_on(addr, insecure || st.key != NULL);
	log_init("elect-trace", use_syslog, verbosity);
	log_info("start listen=%s out=%s delay=%.3fs", addr,
	    st.out.path != NULL ? st.out.path : "-",
	    (double)st.delay / TRACE_NS);
	serve(&st, ls);
	close(st.sigfd);
	close(ls);
	remove_socket();
	shut_down(&st);
	log_info("stop listen=%s", addr);
	free(st.conns);
	free(st.block);
	free(st.out.buf);
	collect_free(st.col);
	hold_free(st.hold);
	return 0;
}
