/*
 * hold-names [-r] STATEDIR PREFIX N: N registrations of named guarded
 * commands at the elect-node daemon of STATEDIR, one control connection
 * each, as --run-if-leader -n PREFIX-K --wait registers (`task wait
 * name=PREFIX-K', K = 1..N), without N processes and without their
 * commands or their polls of the lease: benches measure the daemon alone
 * with it.  One line per event on stdout, until SIGTERM or SIGINT:
 *
 *	MONO REAL name=NAME token=T start	told it may start
 *	MONO REAL name=NAME token=T stop	told to stop ("ok stop")
 *	MONO REAL name=NAME token=T|- closed	the daemon hung up
 *	MONO REAL name=NAME token=- err WHY	refused
 *
 * MONO is CLOCK_MONOTONIC and REAL CLOCK_REALTIME, in seconds with nine
 * digits.  A command told to stop is taken as dead at once: its
 * connection is closed.  With -r a registration that ended (stop, err,
 * closed) is made again 100 ms later, until a daemon answers.  When the
 * daemon dies, its testament (the Dead of its incarnation to every peer)
 * is sent once, as a guard of a dead daemon sends it, and like the
 * guards under their task lock only once every registration told to
 * start has closed, so that its names run elsewhere within a round trip.
 */
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "guard/guard.h"
#include "guard/testament.h"
#include "util/util.h"

#define RETRY_NS	(100 * ALGO_MS)
#define WILL_WAIT_MS	1000	/* for the daemon's end, once it hung up */
#define NAMES_MOST	65536

struct reg {
	int		 fd;		/* -1: not registered */
	char		 name[80];
	char		 in[CTL_LINE_MAX];
	size_t		 inlen;
	unsigned long long token;	/* the last start's, 0 for none */
	int64_t		 retry;		/* register again then, 0: never */
};

static const char *statedir;
static int again;

static void
usage(void)
{
	fprintf(stderr, "usage: hold-names [-r] statedir prefix count\n");
	exit(EXIT_USAGE);
}

static void
say(const struct reg *r, const char *what)
{
	struct timespec m, t;
	char tok[24] = "-";

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &t);
	if (r->token != 0)
		snprintf(tok, sizeof(tok), "%llu", r->token);
	printf("%lld.%09ld %lld.%09ld name=%s token=%s %s\n",
	    (long long)m.tv_sec, m.tv_nsec, (long long)t.tv_sec, t.tv_nsec,
	    r->name, tok, what);
}

/* Registers R: 0, or -1 while no daemon answers. */
static int
reg_open(struct reg *r)
{
	struct sockaddr_un sun;
	char line[CTL_LINE_MAX];
	int fd, n;

	if (ctl_socket_path(&sun, statedir) == -1)
		errx(EXIT_USAGE, "%s: path too long", statedir);
	n = snprintf(line, sizeof(line), "elect %d task wait name=%s\n",
	    CTL_VERSION, r->name);
	if (n < 0 || (size_t)n >= sizeof(line))
		errx(EXIT_USAGE, "%s: name too long", r->name);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(1, "socket");
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    send(fd, line, (size_t)n, MSG_NOSIGNAL) != n ||
	    fcntl(fd, F_SETFL, O_NONBLOCK) == -1) {
		close(fd);
		return -1;
	}
	r->fd = fd;
	r->inlen = 0;
	r->token = 0;
	r->retry = 0;
	return 0;
}

static void
reg_end(struct reg *r, const char *what)
{
	say(r, what);
	close(r->fd);
	r->fd = -1;
	r->token = 0;
	r->retry = again ? mono_now() + RETRY_NS : 0;
}

/* ---- the daemon's testament ---- */

static struct testament will;
static int has_will, will_sent, will_pidfd = -1;
static int hung_up;	/* the daemon closed a registration since */

/* The testament of the daemon that answered, read once per daemon. */
static void
will_read(void)
{
	char path[PATH_MAX], why[128], *text;
	ssize_t n;
	size_t got = 0;
	int fd;

	if (has_will && !will_sent)
		return;
	snprintf(path, sizeof(path), "%s/%s", statedir, TESTAMENT_NAME);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	if ((text = malloc(TESTAMENT_FILE_MAX + 1)) == NULL)
		err(1, NULL);
	while (got <= TESTAMENT_FILE_MAX && (n = read(fd, text + got,
	    TESTAMENT_FILE_MAX + 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	if (has_will)
		testament_free(&will);
	has_will = testament_parse(text, got, &will, why, sizeof(why)) == 0;
	if (!has_will)
		warnx("%s: %s", path, why);
	will_sent = 0;
	/* Its end is seen on a pidfd taken while it lives, as a guard's. */
	if (will_pidfd != -1)
		close(will_pidfd);
	will_pidfd = has_will ? (int)syscall(SYS_pidfd_open, (pid_t)will.pid,
	    0) : -1;
	free(text);
}

/* Once the daemon's process is gone: its Dead to every peer, from the
 * node's host address, as guard/testament.h says. */
static void
will_send(void)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM,
	    .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV }, *from, *to;
	struct pollfd pfd = { will_pidfd, POLLIN, 0 };
	char serv[8];
	size_t i;
	int s;

	/* A connection closes as the process ends, or just before. */
	if (!has_will || will_sent || will_pidfd == -1 ||
	    poll(&pfd, 1, WILL_WAIT_MS) != 1)
		return;
	will_sent = 1;
	if (getaddrinfo(will.host, "0", &hints, &from) != 0)
		return;
	s = socket(from->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s == -1 || bind(s, from->ai_addr, from->ai_addrlen) == -1)
		err(1, "testament from %s", will.host);
	freeaddrinfo(from);
	for (i = 0; i < will.n; i++) {
		snprintf(serv, sizeof(serv), "%u", will.to[i].port);
		if (getaddrinfo(will.to[i].host, serv, &hints, &to) != 0)
			continue;
		if (sendto(s, will.to[i].dgram, will.to[i].len, 0,
		    to->ai_addr, to->ai_addrlen) == -1)
			warn("testament to %s", will.to[i].host);
		freeaddrinfo(to);
	}
	close(s);
}

/* ---- the daemon's lines ---- */

static void
reg_line(struct reg *r, const char *line)
{
	struct guard_reply rp;

	if (strcmp(line, "ok stop") == 0) {
		reg_end(r, "stop");
		return;
	}
	if (guard_reply_parse(line, strlen(line), &rp) == 0) {
		if (rp.leader && r->token == 0) {
			r->token = rp.token;
			say(r, "start");
			will_read();
		}
		return;
	}
	if (strncmp(line, "err ", 4) == 0) {
		char what[CTL_LINE_MAX + 8];

		snprintf(what, sizeof(what), "err %s", line + 4);
		reg_end(r, what);
	}
}

static void
reg_read(struct reg *r)
{
	char *nl;
	ssize_t n;

	n = read(r->fd, r->in + r->inlen, sizeof(r->in) - 1 - r->inlen);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		reg_end(r, "closed");
		hung_up = 1;
		return;
	}
	r->inlen += (size_t)n;
	while (r->fd != -1 && (nl = memchr(r->in, '\n', r->inlen)) != NULL) {
		*nl = '\0';
		reg_line(r, r->in);
		r->inlen -= (size_t)(nl + 1 - r->in);
		memmove(r->in, nl + 1, r->inlen);
	}
	if (r->fd != -1 && r->inlen == sizeof(r->in) - 1)
		reg_end(r, "err line too long");
}

int
main(int argc, char *argv[])
{
	static const int sigs[] = { SIGTERM, SIGINT };
	struct pollfd *pfd;
	struct reg *regs;
	int64_t now, next;
	size_t i, n;
	int ch, sfd, ms;

	while ((ch = getopt(argc, argv, "r")) != -1) {
		switch (ch) {
		case 'r':
			again = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 3)
		usage();
	statedir = argv[0];
	n = (size_t)arg_num(argv[2], 1, NAMES_MOST, "count");
	if ((regs = calloc(n, sizeof(*regs))) == NULL ||
	    (pfd = calloc(n + 1, sizeof(*pfd))) == NULL)
		err(1, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	sfd = signals_open(sigs, 2);
	for (i = 0; i < n; i++) {
		if ((size_t)snprintf(regs[i].name, sizeof(regs[i].name),
		    "%s-%zu", argv[1], i + 1) >= sizeof(regs[i].name))
			errx(EXIT_USAGE, "%s: prefix too long", argv[1]);
		regs[i].fd = -1;
		if (reg_open(&regs[i]) == -1) {
			if (!again)
				errx(1, "%s: no daemon answers", statedir);
			regs[i].retry = mono_now() + RETRY_NS;
		}
	}
	for (;;) {
		now = mono_now();
		next = -1;
		for (i = 0; i < n; i++) {
			if (regs[i].fd == -1 && regs[i].retry != 0 &&
			    now >= regs[i].retry && reg_open(&regs[i]) == -1)
				regs[i].retry = now + RETRY_NS;
			if (regs[i].fd == -1 && regs[i].retry != 0 &&
			    (next == -1 || regs[i].retry < next))
				next = regs[i].retry;
			pfd[i].fd = regs[i].fd;
			pfd[i].events = POLLIN;
		}
		pfd[n].fd = sfd;
		pfd[n].events = POLLIN;
		ms = next == -1 ? -1 : (int)((next - now) / ALGO_MS) + 1;
		if (poll(pfd, n + 1, ms) == -1) {
			if (errno == EINTR)
				continue;
			err(1, "poll");
		}
		if (pfd[n].revents && signals_next(sfd) != 0)
			break;
		for (i = 0; i < n; i++)
			if (regs[i].fd != -1 && pfd[i].revents)
				reg_read(&regs[i]);
		/* As the guards' task lock: the testament goes once no
		 * command that was told to start runs. */
		for (i = 0; i < n && (regs[i].fd == -1 || regs[i].token == 0);
		    i++)
			;
		if (i == n && hung_up && has_will && !will_sent)
			will_send();
		hung_up = 0;
	}
	for (i = 0; i < n; i++)
		if (regs[i].fd != -1)
			close(regs[i].fd);
	if (has_will)
		testament_free(&will);
	free(regs);
	free(pfd);
	return 0;
}
