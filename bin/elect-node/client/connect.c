/*
 * The client side of the control socket: connect to the daemon of a
 * state directory, send one request, read one reply.
 */
#include <sys/socket.h>
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

int
client_connect(const char *dir, const char *req, int nonblock, const char **why)
{
	struct sockaddr_un sun;
	char line[CTL_LINE_MAX];
	int fd, ll;

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
		close(fd);
		return -1;
	}
	/* A unix socket takes a short line at once, or not at all; a
	 * daemon that hung up is an error, not a SIGPIPE. */
	if (send(fd, line, (size_t)ll, MSG_NOSIGNAL) != ll) {
		int e = errno;

		*why = strerror(e);
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* One request and its reply line, until DEADLINE. */
static int
ask_once(const char *dir, const char *req, char *reply, size_t len,
    int64_t deadline, const char **why)
{
	struct pollfd pfd;
	size_t got = 0;
	ssize_t n;
	int fd;

	if ((fd = client_connect(dir, req, 0, why)) == -1)
		return errno == EPIPE || errno == ECONNRESET ? -2 : -1;
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (got < len - 1 && memchr(reply, '\n', got) == NULL) {
		if (poll(&pfd, 1, ms_left(deadline)) <= 0) {
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

const char client_busy[] = "busy: every slot of the control socket this "
    "user may take is taken";

/* Every slot taken (err busy, or hung up before the request was sent):
 * the daemon drops idle clients within a second, so a slot comes free
 * while the request may still wait; if none does, why is client_busy. */
int
client_ask(const char *dir, const char *req, char *reply, size_t len,
    int wait_ms, const char **why)
{
	const struct timespec pause = { 0, BUSY_PAUSE_MS * 1000000L };
	int64_t deadline = mono_now() + (int64_t)wait_ms * 1000000;
	int rc;

	while (((rc = ask_once(dir, req, reply, len, deadline, why)) == -2 ||
	    (rc == 0 && strcmp(reply, "err busy") == 0)) &&
	    ms_left(deadline) > BUSY_PAUSE_MS)
		nanosleep(&pause, NULL);
	if (rc == -2 || (rc == 0 && strcmp(reply, "err busy") == 0)) {
		*why = client_busy;
		return -1;
	}
	return rc < 0 ? -1 : 0;
}
