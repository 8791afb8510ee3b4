/*
 * elect-trace collect: one trace from many nodes.  A single poll loop
 * serves every connection, reading at most one block from each per round,
 * so that no sender can hold up the others; the output is written and the
 * senders' lines acknowledged after each block.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <netdb.h>
#include <netinet/in.h>

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

#include "collect/collect.h"
#include "util/util.h"

#include "elect-trace.h"

#define BLOCK		(64 * 1024)
#define REPORT_MAX	10	/* bad lines reported per connection */
#define DRAIN_MAX	(1024 * 1024)	/* read from each at the end, at most */

struct conn {
	int		 fd;
	char		 peer[96];
	unsigned long	 acked;
	struct collect_conn c;
};

struct out {
	const char	*path;		/* NULL: stdout */
	int		 fd;
	char		*buf;
	size_t		 len, cap;
};

static volatile sig_atomic_t quit, hup;

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		hup = 1;
	else
		quit = 1;
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

/* What the callbacks of the collector core are given. */
struct ctx {
	struct out	*out;
	struct conn	*conn;
};

static void
emit(void *arg, const char *line, size_t len)
{
	out_line(((struct ctx *)arg)->out, line, len);
}

/* Says who sent a bad line, escaped so that it cannot play the terminal. */
static void
report(void *arg, unsigned long lineno, const char *why, const char *line,
    size_t len)
{
	struct conn *cn = ((struct ctx *)arg)->conn;
	char shown[4 * 48 + 1];

	if (cn->c.bad > REPORT_MAX)
		return;
	if (cn->c.bad == REPORT_MAX) {
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

	if (cn->acked == cn->c.lines)
		return;
	n = snprintf(a, sizeof(a), "ack %lu\n", cn->c.lines);
	/* A full buffer means the sender reads no acks: skip, never wait. */
	if (send(cn->fd, a, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) == n)
		cn->acked = cn->c.lines;
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

/* Binds ADDR (unix:PATH or tcp:HOST:PORT); a stale unix socket is taken
 * over, a live one is an error. */
static int
listen_on(const char *addr, char **unlink_path)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
	    .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *ai;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char host[256];
	const char *h, *port;
	size_t n;
	int s, one = 1, rc;

	if (strncmp(addr, "unix:", 5) == 0) {
		if (addr[5] == '\0' || strlcpy(sun.sun_path, addr + 5,
		    sizeof(sun.sun_path)) >= sizeof(sun.sun_path))
			errx(EXIT_USAGE, "-l %s: bad socket path", addr);
		if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
			err(1, "socket");
		if (connect(s, (struct sockaddr *)&sun, sizeof(sun)) == 0)
			errx(1, "%s: a collector is already listening", addr);
		if (errno == ECONNREFUSED)
			unlink(sun.sun_path);	/* left by a dead collector */
		if (bind(s, (struct sockaddr *)&sun, sizeof(sun)) == -1)
			err(1, "%s", addr);
		*unlink_path = strdup(sun.sun_path);
	} else if (strncmp(addr, "tcp:", 4) == 0) {
		h = addr + 4;
		if ((port = strrchr(h, ':')) == NULL || port == h ||
		    port[1] == '\0' || (n = (size_t)(port - h)) >= sizeof(host))
			errx(EXIT_USAGE, "-l %s: expected tcp:HOST:PORT", addr);
		if (h[0] == '[' && h[n - 1] == ']') {
			h++;
			n -= 2;
		}
		memcpy(host, h, n);
		host[n] = '\0';
		if ((rc = getaddrinfo(host, port + 1, &hints, &ai)) != 0)
			errx(EXIT_USAGE, "-l %s: %s", addr, gai_strerror(rc));
		s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (s == -1)
			err(1, "socket");
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(s, ai->ai_addr, ai->ai_addrlen) == -1)
			err(1, "%s", addr);
		freeaddrinfo(ai);
	} else
		errx(EXIT_USAGE, "-l %s: expected unix:PATH or tcp:HOST:PORT",
		    addr);
	if (listen(s, 128) == -1)
		err(1, "listen");
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

struct state {
	struct collector *col;
	struct out	  out;
	struct conn	**conns;
	size_t		  nconns, capconns;
	char		 *block;
};

static void
accept_one(struct state *st, int ls, int *paused)
{
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);
	struct conn *cn, **nc;
	int fd;

	fd = accept4(ls, (struct sockaddr *)&ss, &sslen, SOCK_NONBLOCK |
	    SOCK_CLOEXEC);
	if (fd == -1) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOMEM ||
		    errno == ENOBUFS)
			*paused = 1;	/* let connections end first */
		return;
	}
	if (st->nconns == st->capconns) {
		size_t cap = st->capconns ? st->capconns * 2 : 16;

		if ((nc = reallocarray(st->conns, cap, sizeof(*nc))) == NULL) {
			close(fd);
			*paused = 1;
			return;
		}
		st->conns = nc;
		st->capconns = cap;
	}
	if ((cn = malloc(sizeof(*cn))) == NULL) {
		close(fd);
		*paused = 1;
		return;
	}
	cn->fd = fd;
	cn->acked = 0;
	collect_conn_init(&cn->c);
	peer_name(fd, &ss, cn->peer, sizeof(cn->peer));
	st->conns[st->nconns++] = cn;
}

static void
end_conn(struct state *st, size_t i, enum collect_end how)
{
	struct conn *cn = st->conns[i];
	struct ctx ctx = { &st->out, cn };
	struct collect_out co = { emit, report, &ctx };

	collect_end(st->col, &cn->c, how, tw_now(), &co);
	out_flush(&st->out);
	send_ack(cn);
	if (cn->c.bad > REPORT_MAX)
		warnx("%s: %lu bad lines in all", cn->peer, cn->c.bad);
	close(cn->fd);
	free(cn);
	st->conns[i] = st->conns[--st->nconns];
}

/* One block from connection I; 0 if it stays open. */
static int
read_conn(struct state *st, size_t i)
{
	struct conn *cn = st->conns[i];
	struct ctx ctx = { &st->out, cn };
	struct collect_out co = { emit, report, &ctx };
	ssize_t n;

	while ((n = read(cn->fd, st->block, BLOCK)) == -1 && errno == EINTR)
		;
	if (n == -1 && errno == EAGAIN)
		return 0;
	if (n <= 0)
		return -1;
	collect_data(st->col, &cn->c, st->block, (size_t)n, &co);
	out_flush(&st->out);
	send_ack(cn);
	return 0;
}

/* Leaving: what the senders already sent is read and written, but nobody
 * is said to have crashed. */
static void
shut_down(struct state *st)
{
	while (st->nconns > 0) {
		size_t i = st->nconns - 1, got = 0;
		struct conn *cn = st->conns[i];
		struct ctx ctx = { &st->out, cn };
		struct collect_out co = { emit, report, &ctx };
		ssize_t n;

		while (got < DRAIN_MAX &&
		    (n = read(cn->fd, st->block, BLOCK)) > 0) {
			collect_data(st->col, &cn->c, st->block, (size_t)n,
			    &co);
			got += (size_t)n;
		}
		end_conn(st, i, CE_SHUTDOWN);
	}
}

static void
serve(struct state *st, int ls)
{
	struct pollfd *pfd = NULL;
	size_t cap = 0, i, n;
	sigset_t block, old;
	int paused = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (!quit) {
		struct timespec pause_ts = { 0, 100 * 1000 * 1000 };

		if (hup) {
			hup = 0;
			out_reopen(&st->out);
		}
		if (cap < st->nconns + 1) {
			cap = (st->nconns + 1) * 2;
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
		if (ppoll(pfd, n + 1, paused ? &pause_ts : NULL, &old) == -1) {
			if (errno == EINTR)
				continue;
			err(1, "poll");
		}
		paused = 0;
		/* Backwards: end_conn() moves the last connection to i. */
		for (i = n; i > 0; i--)
			if (pfd[i].revents != 0 && read_conn(st, i - 1) == -1)
				end_conn(st, i - 1, CE_EOF);
		if (pfd[0].revents & POLLIN)
			accept_one(st, ls, &paused);
	}
	free(pfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int
cmd_collect(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct state st = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	const char *addr = NULL;
	char *unlink_path = NULL;
	int ch, ls;

	while ((ch = getopt_long(argc, argv, "hl:o:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'l':
			addr = optarg;
			break;
		case 'o':
			st.out.path = optarg;
			break;
		case 'h':
			usage("collect", 0);
		default:
			usage("collect", EXIT_USAGE);
		}
	}
	if (addr == NULL || optind != argc)
		usage("collect", EXIT_USAGE);
	if ((st.out.fd = out_open(&st.out)) == -1)
		err(EXIT_USAGE, "%s", st.out.path);
	st.out.cap = BLOCK + TRACE_LINE_MAX;
	if ((st.out.buf = malloc(st.out.cap)) == NULL ||
	    (st.block = malloc(BLOCK)) == NULL ||
	    (st.col = collect_new()) == NULL)
		err(1, NULL);
	raise_nofile();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	ls = listen_on(addr, &unlink_path);
	serve(&st, ls);
	close(ls);
	if (unlink_path != NULL)
		unlink(unlink_path);
	shut_down(&st);
	out_flush(&st.out);
	free(unlink_path);
	free(st.conns);
	free(st.block);
	free(st.out.buf);
	collect_free(st.col);
	return 0;
}
