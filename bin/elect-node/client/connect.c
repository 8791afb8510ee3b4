/*
 * The client side of the control socket: connect to the daemon of a
 * state directory, send one request, read one reply.
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "util/util.h"

#define BUSY_PAUSE_MS	50	/* between tries when every slot is taken */

/* Milliseconds left until DEADLINE on the monotonic clock. */
static int
ms_left(int64_t deadline)
{
	int64_t left = deadline - mono_now();

	return left < 0 ? 0 : (int)(left / 1000000);
}

/* Whether FD, which the daemon closed, holds its "err busy" line. */
static int
said_busy(int fd)
{
	char buf[64];
	ssize_t n;

	if ((n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT)) <= 0)
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return client_busy_line(buf);
}

/* client_connect(), but a blocking connect waits for room in a full
 * backlog until DEADLINE at most (0: as long as it takes). */
static int
dial(const char *dir, const char *req, int nonblock, int64_t deadline,
    const char **why)
{
	struct sockaddr_un sun;
	struct timeval tv;
	char line[CTL_LINE_MAX];
	int fd, ll, ms, e;

	*why = "no daemon answers";
	if (ctl_socket_path(&sun, dir) == -1)
		return -1;
	ll = snprintf(line, sizeof(line), "elect %d %s\n", CTL_VERSION, req);
	if (ll < 0 || (size_t)ll >= sizeof(line)) {
		*why = "request too long";
		return -1;
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
	    (nonblock ? SOCK_NONBLOCK : 0), 0)) == -1)
		return -1;
	if (deadline != 0) {
		ms = ms_left(deadline);
		tv.tv_sec = ms / 1000;
		/* (0 would be no bound at all) */
		tv.tv_usec = ms % 1000 * 1000 + (ms == 0);
		if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv,
		    sizeof(tv)) == -1) {
			close(fd);
			return -1;
		}
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		if (errno == ENOENT)
			*why = "no daemon answers (no control socket)";
		else if (errno == ECONNREFUSED)
			*why = "no daemon answers (connection refused)";
		else if (errno == EACCES || errno == EPERM)
			/* Not "no daemon": one may well run. */
			errx(EXIT_DENIED, "%s/%s: permission denied (root and "
			    "the daemon's --socket-group may connect)", dir,
			    CTL_NAME);
		else
			*why = strerror(errno);
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	/* A unix socket takes a short line at once, or not at all; a
	 * daemon that hung up is an error, not a SIGPIPE. */
	if (send(fd, line, (size_t)ll, MSG_NOSIGNAL) != ll) {
		e = errno;
		*why = strerror(e);
		/* What it said before it hung up: busy (EAGAIN), or nothing
		 * (a daemon that hangs up unasked is no daemon to ask). */
		if ((e == EPIPE || e == ECONNRESET) && said_busy(fd))
			e = EAGAIN;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int
client_connect(const char *dir, const char *req, int nonblock, const char **why)
{
	return dial(dir, req, nonblock, 0, why);
}

/* One request and its reply line, until DEADLINE: 0; ASK_BUSY when
 * the daemon took no request (err busy, before it was sent too, a
 * backlog full until DEADLINE); ASK_LATE when it took the connection but
 * did not answer in time; -1 when no daemon answers. */
#define ASK_BUSY	(-2)
#define ASK_LATE	(-3)

static int
ask_once(const char *dir, const char *req, char *reply, size_t len,
    int64_t deadline, const char **why)
{
	struct pollfd pfd;
	size_t got = 0;
	ssize_t n;
	int fd, rc = 0;

	if ((fd = dial(dir, req, 0, deadline, why)) == -1)
		return errno == EAGAIN ? ASK_BUSY : -1;
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (got < len - 1 && memchr(reply, '\n', got) == NULL) {
		if (poll(&pfd, 1, ms_left(deadline)) <= 0) {
			*why = "no reply in time";
			rc = ASK_LATE;
			break;
		}
		if ((n = read(fd, reply + got, len - 1 - got)) <= 0) {
			*why = "connection closed without a reply";
			rc = -1;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	reply[got] = '\0';
	if (strchr(reply, '\n') == NULL)
		return rc != 0 ? rc : -1;
	*strchr(reply, '\n') = '\0';
	return client_busy_line(reply) ? ASK_BUSY : 0;
}

int
client_busy_line(const char *reply)
{
	return strcmp(reply, "err busy") == 0 ||
	    strncmp(reply, "err busy (", 10) == 0;
}

const char client_busy[] = "busy: every slot of the control socket this "
    "user may take is taken";

/* Every slot taken: the daemon drops idle clients within a second, so a
 * slot comes free while the request may still wait; if none does, why
 * is client_busy.  A daemon that said busy and then let the last try
 * run out of time is busy still, not gone. */
int
client_ask(const char *dir, const char *req, char *reply, size_t len,
    int wait_ms, const char **why)
{
	const struct timespec pause = { 0, BUSY_PAUSE_MS * 1000000L };
	int64_t deadline = mono_now() + (int64_t)wait_ms * 1000000;
	int rc, busy = 0;

	while ((rc = ask_once(dir, req, reply, len, deadline, why)) ==
	    ASK_BUSY && ms_left(deadline) > BUSY_PAUSE_MS) {
		busy = 1;
		nanosleep(&pause, NULL);
	}
	if (rc == ASK_BUSY || (rc == ASK_LATE && busy)) {
		*why = client_busy;
		return -1;
	}
	return rc < 0 ? -1 : 0;
}
