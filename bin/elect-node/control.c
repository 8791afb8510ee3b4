/*
 * The control socket: a unix stream socket in the state directory, owner
 * only, answering lines of the control protocol (lib/ctl) without ever
 * blocking the node.  Also the client side, for --status and friends.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "node.h"
#include "util/util.h"

#define CTL_NAME	"control"
#define CTL_BACKLOG	8

static int
socket_path(struct sockaddr_un *sun, const char *dir)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if ((size_t)snprintf(sun->sun_path, sizeof(sun->sun_path), "%s/%s",
	    dir, CTL_NAME) >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
ctl_listen(struct ctl_server *s, int dirfd, const char *dir)
{
	struct sockaddr_un sun;
	mode_t old;
	int i, rc;

	for (i = 0; i < CTL_CLIENTS_MAX; i++)
		s->clients[i].fd = -1;
	if (socket_path(&sun, dir) == -1)
		return -1;
	strlcpy(s->path, sun.sun_path, sizeof(s->path));
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd == -1)
		return -1;
	/* The pid file is ours, so a socket left here is a dead daemon's. */
	if (unlinkat(dirfd, CTL_NAME, 0) == -1 && errno != ENOENT)
		return -1;
	old = umask(0177);
	rc = bind(s->fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (rc == -1 || listen(s->fd, CTL_BACKLOG) == -1)
		return -1;
	return 0;
}

static void
drop_client(struct ctl_client *c)
{
	close(c->fd);
	c->fd = -1;
	c->inlen = c->outlen = 0;
	c->closing = c->waiting = 0;
}

void
ctl_accept(struct ctl_server *s)
{
	static const char busy[] = "err busy\n";
	int fd, i;

	while ((fd = accept4(s->fd, NULL, NULL,
	    SOCK_NONBLOCK | SOCK_CLOEXEC)) != -1) {
		for (i = 0; i < CTL_CLIENTS_MAX; i++)
			if (s->clients[i].fd == -1)
				break;
		if (i == CTL_CLIENTS_MAX) {
			/* A best effort: the client learns why, or not. */
			if (write(fd, busy, sizeof(busy) - 1) == -1)
				errno = 0;
			close(fd);
			continue;
		}
		s->clients[i].fd = fd;
	}
}

void
ctl_reply(struct ctl_client *c, const char *fmt, ...)
{
	va_list ap;
	size_t room = sizeof(c->out) - c->outlen;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(c->out + c->outlen, room, fmt, ap);
	va_end(ap);
	/* A client that does not read its replies is let go. */
	if (n < 0 || (size_t)n + 1 >= room || (size_t)n + 1 > CTL_LINE_MAX) {
		c->closing = 1;
		c->outlen = 0;
		return;
	}
	c->out[c->outlen + (size_t)n] = '\n';
	c->outlen += (size_t)n + 1;
}

static void
handle_line(struct ctl_client *c, const char *line, size_t len,
    struct node *nd)
{
	struct ctl_req req;
	const char *why;

	if ((why = ctl_parse_req(line, len, &req)) != NULL) {
		ctl_reply(c, "err %s", why);
		return;
	}
	if (req.version != CTL_VERSION) {
		ctl_reply(c, "err version %u not spoken, only %d", req.version,
		    CTL_VERSION);
		return;
	}
	node_command(nd, c, &req);
}

/* Answers the complete lines read, in order, until one has to wait. */
void
ctl_lines(struct ctl_client *c, struct node *nd)
{
	char line[CTL_LINE_MAX], *nl;
	size_t len;

	while (!c->closing && !c->waiting &&
	    (nl = memchr(c->in, '\n', c->inlen)) != NULL) {
		len = (size_t)(nl - c->in);
		memcpy(line, c->in, len);
		c->inlen -= len + 1;
		memmove(c->in, nl + 1, c->inlen);
		handle_line(c, line, len, nd);
	}
}

static void
read_lines(struct ctl_client *c, struct node *nd)
{
	ssize_t n;

	n = read(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == 0) {
		/* The client is done asking: answer what it asked, then go. */
		if (c->inlen > 0)
			ctl_reply(c, "err line without a newline");
		c->closing = 1;
		return;
	}
	if (n == -1) {
		c->closing = 1;
		c->outlen = 0;
		return;
	}
	c->inlen += (size_t)n;
	ctl_lines(c, nd);
	if (c->inlen == sizeof(c->in)) {
		ctl_reply(c, "err line too long");
		c->closing = 1;
	}
}

static void
write_out(struct ctl_client *c)
{
	ssize_t n;

	while (c->outlen > 0) {
		n = write(c->fd, c->out, c->outlen);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				c->closing = 1, c->outlen = 0;
			return;
		}
		memmove(c->out, c->out + n, c->outlen - (size_t)n);
		c->outlen -= (size_t)n;
	}
}

void
ctl_io(struct ctl_server *s, struct ctl_client *c, short revents,
    struct node *nd)
{
	/* Gone altogether: no one is left to answer. */
	if (revents & (POLLHUP | POLLERR)) {
		drop_client(c);
		return;
	}
	if (!c->closing && !c->waiting && (revents & POLLIN))
		read_lines(c, nd);
	ctl_flush(c);
}

/* Writes what the client takes; lets it go once all is said. */
void
ctl_flush(struct ctl_client *c)
{
	if (c->fd == -1)
		return;
	write_out(c);
	if (c->closing && !c->waiting && c->outlen == 0)
		drop_client(c);
}

void
ctl_close(struct ctl_server *s)
{
	int i;

	for (i = 0; i < CTL_CLIENTS_MAX; i++)
		if (s->clients[i].fd != -1)
			drop_client(&s->clients[i]);
	if (s->fd != -1) {
		close(s->fd);
		unlink(s->path);
	}
	s->fd = -1;
}

/* Milliseconds left until DEADLINE on the monotonic clock. */
static int
ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000 +
	    (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : (int)ms;
}

/*
 * Sends REQ (without "elect 1 " and newline) to the daemon of state
 * directory DIR and reads one reply line into REPLY, waiting at most
 * WAIT_MS.  0 on success; -1 when no daemon answers, with *WHY said.
 */
int
ctl_ask(const char *dir, const char *req, char *reply, size_t len,
    int wait_ms, const char **why)
{
	struct sockaddr_un sun;
	struct timespec deadline;
	struct pollfd pfd;
	char line[CTL_LINE_MAX];
	size_t got = 0;
	ssize_t n;
	int fd, ll;

	*why = "no daemon answers";
	if (socket_path(&sun, dir) == -1)
		return -1;
	ll = snprintf(line, sizeof(line), "elect %d %s\n", CTL_VERSION, req);
	if (ll < 0 || (size_t)ll >= sizeof(line)) {
		*why = "request too long";
		return -1;
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    write(fd, line, (size_t)ll) != ll) {
		*why = strerror(errno);
		close(fd);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += wait_ms / 1000;
	deadline.tv_nsec += (long)(wait_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (got < len - 1 && memchr(reply, '\n', got) == NULL) {
		if (poll(&pfd, 1, ms_left(&deadline)) <= 0) {
			*why = "no reply in time";
			break;
		}
		if ((n = read(fd, reply + got, len - 1 - got)) <= 0) {
			*why = "connection closed without a reply";
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	reply[got] = '\0';
	if (strchr(reply, '\n') == NULL)
		return -1;
	*strchr(reply, '\n') = '\0';
	return 0;
}

int
ctl_status(const char *dir)
{
	char reply[CTL_LINE_MAX];
	struct ctl_str rest, role;
	const char *why;
	int ok;

	if (ctl_ask(dir, "status", reply, sizeof(reply), CTL_WAIT_MS,
	    &why) == -1) {
		warnx("%s/%s: %s", dir, CTL_NAME, why);
		return EXIT_NODAEMON;
	}
	if ((why = ctl_parse_reply(reply, strlen(reply), &ok, &rest)) != NULL) {
		warnx("%s/%s: bad reply (%s)", dir, CTL_NAME, why);
		return EXIT_NODAEMON;
	}
	if (!ok) {
		warnx("%s/%s: %.*s", dir, CTL_NAME, (int)rest.n, rest.p);
		return EXIT_NODAEMON;
	}
	printf("%.*s\n", (int)rest.n, rest.p);
	if (ctl_field(rest, "role", &role) && ctl_str_eq(role, "leader"))
		return 0;
	return EXIT_NO;
}
