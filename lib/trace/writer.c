/*
 * Writing traces without blocking the protocol: lines wait in a bounded
 * queue and go out when the destination can take them.  What does not fit
 * is counted and reported with a "lost" line, so a reader knows.
 *
 * A socket destination (unix:PATH, tcp:HOST:PORT) is a collector that may
 * go away and come back.  The writer connects without blocking, retries
 * with a bounded backoff, and keeps queueing meanwhile.  The collector
 * acknowledges the lines it has taken ("ack N"); when a connection ends,
 * the lines sent on it but never acknowledged may be gone with it, so they
 * are counted as lost, and reported once the next connection is up.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <netdb.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "collect/auth.h"
#include "net/resolve.h"
#include "trace/trace.h"
#include "util/util.h"

#define QUEUE_MAX	(256 * 1024)
#define BACKOFF_MIN	(TRACE_NS / 20)		/* 50 ms */
#define BACKOFF_MAX	TRACE_NS		/* 1 s */
#define CONNECT_MAX	(2 * TRACE_NS)		/* give up a pending connect */

enum dest { D_FILE, D_STREAM, D_SOCKET };
enum link { L_IDLE, L_CONNECTING, L_UP };

struct trace_writer {
	enum dest	 dest;
	char		*path;		/* D_FILE */
	int		 fd;
	int		 own;		/* fd is ours to close */
	char		*q;
	size_t		 qlen;
	uint64_t	 lost;		/* not yet reported */
	uint64_t	 lost_total;
	/* "lost" lines in the queue, and the lines they report: dropped,
	 * they are not lines lost but a report to make again. */
	uint64_t	 qreports, qreported;
	unsigned	 node;		/* of the last event: lost lines name it */
	trace_time	 last;		/* its time */
	int		 given;		/* ... given by the caller (tw_event_at) */

	/* D_SOCKET */
	struct addrinfo	*ai;		/* addresses to try, in turn */
	struct addrinfo	*next_ai;
	struct sockaddr_un sun;
	enum link	 link;
	int64_t		 deadline;	/* monotonic: retry, or connect gives up */
	int64_t		 backoff;
	size_t		 part;		/* bytes sent of the first queued line */
	uint64_t	 sent;		/* whole lines sent on this connection */
	uint64_t	 acked;		/* lines the collector acknowledged */
	char		 ack[AUTH_LINE_MAX];	/* a line from the collector */
	size_t		 acklen;
	int		 keyed;		/* tw_auth(): prove node before lines */
	uint8_t		 key[AUTH_KEY];
	unsigned	 auth_node;
	int		 proved;	/* on this connection */

	/* tw_watch(): lines being lost (said), the count when that began,
	 * and the count at the last call. */
	int		 losing;
	uint64_t	 watch_from, watch_seen;
};

static void	report_lost(struct trace_writer *);

trace_time
tw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (trace_time)ts.tv_sec * TRACE_NS + ts.tv_nsec;
}

/*
 * A pipe on a standard stream gets an open file description of its own,
 * so that O_NONBLOCK does not leak to the processes sharing the pipe.
 */
static int
private_fd(int fd, int *own)
{
	struct stat st;
	char p[64];
	int nfd;

	*own = 0;
	if (fstat(fd, &st) == -1)
		return -1;
	if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
		return fd;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	if ((nfd = open(p, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return fd;	/* blocking, but still correct */
	*own = 1;
	return nfd;
}

/*
 * A new trace is the owner's alone (0600): it shows the cluster's
 * addresses, timing and traffic.  In a set-group-id directory, where new
 * files take the directory's group, that group may read it too (0640).
 */
static mode_t
trace_mode(const char *path)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	if (strlcpy(dir, path, sizeof(dir)) >= sizeof(dir))
		return 0600;
	if ((slash = strrchr(dir, '/')) == NULL)
		strlcpy(dir, ".", sizeof(dir));
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return stat(dir, &st) == 0 && (st.st_mode & S_ISGID) ? 0640 : 0600;
}

static int
open_file(struct trace_writer *w)
{
	int fd;

	/* Never through a link: in a directory another user may write,
	 * it could point at any file of ours. */
	fd = open(w->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NONBLOCK | O_NOFOLLOW, trace_mode(w->path));
	if (fd == -1)
		return -1;
	w->fd = fd;
	w->own = 1;
	return 0;
}

static int
parse_socket(struct trace_writer *w, const char *dest)
{
	const char *why;

	if (strncmp(dest, "unix:", 5) == 0)
		return trace_addr_unix(dest, &w->sun);
	if (trace_addr_tcp(dest, 0, &w->ai, &why) == -1)
		return -1;
	w->next_ai = w->ai;
	return 0;
}

struct trace_writer *
tw_open(const char *dest, int dashfd)
{
	struct trace_writer *w;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	w->fd = -1;
	if ((w->q = malloc(QUEUE_MAX)) == NULL)
		goto fail;
	if (strcmp(dest, "-") == 0) {
		w->dest = D_STREAM;
		if ((w->fd = private_fd(dashfd, &w->own)) == -1)
			goto fail;
		return w;
	}
	if (strncmp(dest, "unix:", 5) == 0 || strncmp(dest, "tcp:", 4) == 0) {
		w->dest = D_SOCKET;
		if (parse_socket(w, dest) == -1)
			goto fail;
		w->backoff = BACKOFF_MIN;
		tw_flush(w);	/* first attempt now */
		return w;
	}
	w->dest = D_FILE;
	if ((w->path = strdup(dest)) == NULL || open_file(w) == -1)
		goto fail;
	return w;
fail:
	if (w->ai != NULL)
		net_freeaddrinfo(w->ai);
	free(w->path);
	free(w->q);
	free(w);
	return NULL;
}

int
tw_reopen(struct trace_writer *w)
{
	int ofd = w->fd;

	if (w->dest != D_FILE)
		return 0;
	tw_flush(w);
	if (open_file(w) == -1) {
		w->fd = ofd;
		return -1;
	}
	close(ofd);
	return 0;
}

/*
 * A challenge from the collector: the answer goes out at once, before any
 * queued line (a fresh connection's buffer takes it whole).  -1 if it
 * cannot.
 */
static int
answer(struct trace_writer *w, const uint8_t nonce[AUTH_NONCE])
{
	char buf[AUTH_LINE_MAX];
	size_t n;

	if (!w->keyed || w->proved)
		return 0;
	n = auth_answer(w->key, nonce, w->auth_node, buf);
	if (send(w->fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)n)
		return -1;
	w->proved = 1;
	return 0;
}

/* Takes in what the collector wrote back: "ack N" lines, and with a key
 * its challenge.  -1 at EOF, or when the challenge cannot be answered. */
static int
read_acks(struct trace_writer *w)
{
	uint8_t nonce[AUTH_NONCE];
	char buf[512];
	ssize_t n;
	int rounds;

	for (rounds = 0; rounds < 64; rounds++) {
		ssize_t i;

		if ((n = recv(w->fd, buf, sizeof(buf), MSG_DONTWAIT)) == -1) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -1;
		}
		if (n == 0)
			return -1;
		for (i = 0; i < n; i++) {
			const char *errstr;
			long long v;

			if (buf[i] != '\n') {
				if (w->acklen < sizeof(w->ack) - 1)
					w->ack[w->acklen++] = buf[i];
				continue;
			}
			w->ack[w->acklen] = '\0';
			switch (auth_parse_challenge(w->ack, w->acklen, nonce)) {
			case 0:
				if (answer(w, nonce) == -1)
					return -1;
				break;
			case 1:
				w->proved = 1;	/* no proof wanted */
				break;
			}
			w->acklen = 0;
			if (strncmp(w->ack, "ack ", 4) != 0)
				continue;
			v = strtonum(w->ack + 4, 0, LLONG_MAX, &errstr);
			if (errstr == NULL && (uint64_t)v <= w->sent &&
			    (uint64_t)v > w->acked)
				w->acked = (uint64_t)v;
		}
	}
	return 0;
}

/*
 * The connection ended.  Lines sent but not acknowledged, and the line cut
 * in the middle, may be gone: count them.  Then wait a while, doubling the
 * wait each time up to BACKOFF_MAX, with some jitter so that a cluster
 * does not knock all at once.
 */
static void
disconnect(struct trace_writer *w)
{
	uint64_t gone;
	int64_t wait;
	char *nl;

	if (w->link == L_UP)
		read_acks(w);
	gone = w->sent - w->acked;
	if (w->part > 0) {
		nl = memchr(w->q, '\n', w->qlen);
		w->qlen -= (size_t)(nl - w->q) + 1;
		memmove(w->q, nl + 1, w->qlen);
		w->part = 0;
		gone++;
	}
	w->lost += gone;
	w->lost_total += gone;
	close(w->fd);
	w->fd = -1;
	w->link = L_IDLE;
	w->sent = w->acked = 0;
	w->acklen = 0;
	w->proved = 0;
	wait = w->backoff / 4 * 3 +
	    (int64_t)arc4random_uniform((uint32_t)(w->backoff / 2 / 1000)) *
	    1000;
	w->deadline = mono_now() + wait;
	if ((w->backoff *= 2) > BACKOFF_MAX)
		w->backoff = BACKOFF_MAX;
}

static void
connected(struct trace_writer *w)
{
	w->link = L_UP;
	w->backoff = BACKOFF_MIN;
	w->deadline = mono_now() + CONNECT_MAX;	/* for the challenge */
	if (w->lost > 0)
		report_lost(w);
}

static void
start_connect(struct trace_writer *w)
{
	const struct sockaddr *sa = (struct sockaddr *)&w->sun;
	socklen_t salen = sizeof(w->sun);
	int family = AF_UNIX, rc;

	if (w->ai != NULL) {
		if (w->next_ai == NULL)
			w->next_ai = w->ai;
		sa = w->next_ai->ai_addr;
		salen = w->next_ai->ai_addrlen;
		family = w->next_ai->ai_family;
		w->next_ai = w->next_ai->ai_next;
	}
	w->fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (w->fd == -1) {
		w->deadline = mono_now() + w->backoff;
		return;
	}
	w->link = L_CONNECTING;
	w->deadline = mono_now() + CONNECT_MAX;
	while ((rc = connect(w->fd, sa, salen)) == -1 && errno == EINTR)
		;
	if (rc == 0)
		connected(w);
	else if (errno != EINPROGRESS)
		disconnect(w);
}

/* Whether a pending connect finished; -1 if it failed. */
static int
check_connect(struct trace_writer *w)
{
	struct pollfd pfd = { .fd = w->fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int e = 0;

	if (poll(&pfd, 1, 0) <= 0)
		return mono_now() >= w->deadline ? -1 : 0;
	if (getsockopt(w->fd, SOL_SOCKET, SO_ERROR, &e, &len) == -1 || e != 0)
		return -1;
	connected(w);
	return 1;
}

static ssize_t
put(struct trace_writer *w)
{
	if (w->dest == D_SOCKET)
		return send(w->fd, w->q, w->qlen, MSG_NOSIGNAL | MSG_DONTWAIT);
	return write(w->fd, w->q, w->qlen);
}

/* Counts the lines completed by sending the first N queued bytes. */
static void
count_sent(struct trace_writer *w, size_t n)
{
	const char *p = w->q, *end = w->q + n, *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		w->sent++;
		w->part = 0;
		p = nl + 1;
	}
	w->part += (size_t)(end - p);
}

static void
drop_queue(struct trace_writer *w)
{
	const char *p = w->q, *end = w->q + w->qlen, *nl;
	uint64_t n = 0;

	while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p = nl + 1;
	}
	n -= n < w->qreports ? n : w->qreports;
	w->lost += n + w->qreported;
	w->lost_total += n;
	w->qreports = w->qreported = 0;
	w->qlen = 0;
}

int
tw_flush(struct trace_writer *w)
{
	if (w->dest == D_SOCKET) {
		if (w->link == L_IDLE && mono_now() >= w->deadline)
			start_connect(w);
		if (w->link == L_CONNECTING && check_connect(w) == -1)
			disconnect(w);
		/* A challenge that came while nobody read the socket is
		 * answered first; only a collector that sent none in time is
		 * taken for one older than challenges, that wants no proof. */
		if (w->link == L_UP && w->keyed && !w->proved &&
		    read_acks(w) == -1) {
			disconnect(w);
			return -1;
		}
		if (w->link == L_UP && w->keyed && !w->proved &&
		    mono_now() >= w->deadline)
			w->proved = 1;
		if (w->link != L_UP || (w->keyed && !w->proved))
			return -1;
	}
	while (w->qlen > 0) {
		ssize_t n = put(w);

		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;		/* wait for POLLOUT */
			if (w->dest == D_SOCKET) {
				disconnect(w);
				return -1;
			}
			/* Any other error (a full disk): what is queued is
			 * lost, and the report waits for the next line, so
			 * that a file that takes nothing is not retried in a
			 * loop. */
			drop_queue(w);
			return -1;
		}
		if (w->dest == D_SOCKET)
			count_sent(w, (size_t)n);
		memmove(w->q, w->q + n, w->qlen - (size_t)n);
		w->qlen -= (size_t)n;
		if (w->qlen == 0)
			w->qreports = w->qreported = 0;
	}
	if (w->lost > 0)
		report_lost(w);
	return w->qlen > 0 ? w->fd : -1;
}

static int
ms_until(int64_t t)
{
	int64_t d = t - mono_now();

	if (d <= 0)
		return 0;
	return (int)((d + 999999) / 1000000);
}

int
tw_pollfd(const struct trace_writer *w, struct pollfd *pfd)
{
	pfd->fd = -1;
	pfd->events = 0;
	pfd->revents = 0;
	if (w == NULL)
		return -1;
	if (w->dest != D_SOCKET) {
		if (w->qlen > 0) {
			pfd->fd = w->fd;
			pfd->events = POLLOUT;
		}
		return -1;
	}
	switch (w->link) {
	case L_IDLE:
		return ms_until(w->deadline);
	case L_CONNECTING:
		pfd->fd = w->fd;
		pfd->events = POLLOUT;
		return ms_until(w->deadline);
	case L_UP:
		pfd->fd = w->fd;
		if (w->keyed && !w->proved) {
			pfd->events = POLLIN;	/* the challenge first */
			return ms_until(w->deadline);
		}
		pfd->events = POLLIN | (w->qlen > 0 ? POLLOUT : 0);
		break;
	}
	return -1;
}

void
tw_tick(struct trace_writer *w)
{
	if (w == NULL)
		return;
	if (w->dest == D_SOCKET && w->link == L_UP && read_acks(w) == -1)
		disconnect(w);
	tw_flush(w);
}

int
tw_auth(struct trace_writer *w, const uint8_t key[32], unsigned node)
{
	if (w->dest != D_SOCKET)
		return 0;
	memcpy(w->key, key, AUTH_KEY);
	w->auth_node = node;
	w->keyed = 1;
	return 0;
}

int
tw_pending(const struct trace_writer *w)
{
	return w->qlen > 0;
}

int
tw_connected(const struct trace_writer *w)
{
	return w->dest != D_SOCKET || w->link == L_UP;
}

uint64_t
tw_lost(const struct trace_writer *w)
{
	return w->lost_total;
}

uint64_t
tw_unreported(const struct trace_writer *w)
{
	return w->lost;
}

/* Resumed only once a call finds no more lost than the one before and
 * everything queued, the lost line included, out on a live destination. */
void
tw_watch(struct trace_writer *w, unsigned node, const char *dest)
{
	uint64_t seen = w->watch_seen;

	w->watch_seen = w->lost_total;
	if (!w->losing) {
		if (w->lost_total == w->watch_from)
			return;
		w->losing = 1;
		log_warnx("trace-lost node=%u trace=%s", node, dest);
		return;
	}
	if (w->lost_total != seen || w->lost > 0 || tw_pending(w) ||
	    !tw_connected(w))
		return;
	log_warnx("trace-resumed node=%u trace=%s lost=%llu", node, dest,
	    (unsigned long long)(w->lost_total - w->watch_from));
	w->losing = 0;
	w->watch_from = w->lost_total;
}

static int
queue_line(struct trace_writer *w, const char *line, size_t len)
{
	if (len > QUEUE_MAX - w->qlen)
		return -1;
	memcpy(w->q + w->qlen, line, len);
	w->qlen += len;
	return 0;
}

/*
 * Queues the "lost n=N" line if there is room for it.  Its time is never
 * before the node's last line, and when the caller stamps its own lines
 * (tw_event_at, perhaps not with the real-time clock) it is that line's.
 */
static void
report_lost(struct trace_writer *w)
{
	char line[128];
	trace_time t = w->last;
	int n;

	if (!w->given && tw_now() > t)
		t = tw_now();
	n = trace_format_line(line, sizeof(line), t, w->node, "lost n=%llu\n",
	    (unsigned long long)w->lost);
	if (queue_line(w, line, (size_t)n) == 0) {
		w->qreports++;
		w->qreported += w->lost;
		w->lost = 0;
	}
}

static void
vevent(struct trace_writer *w, trace_time t, int given, unsigned node,
    const char *fmt, va_list ap)
{
	char line[TRACE_LINE_MAX];
	int n;

	if (w == NULL)
		return;
	w->node = node;
	w->last = t;
	w->given = given;
	if (w->lost > 0)
		report_lost(w);
	/* One byte is kept for the newline. */
	n = trace_vformat_line(line, sizeof(line) - 1, t, node, fmt, ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 1 || w->lost > 0) {
		w->lost++;
		w->lost_total++;
	} else {
		line[n++] = '\n';
		if (queue_line(w, line, (size_t)n) == -1) {
			w->lost++;
			w->lost_total++;
		}
	}
	tw_flush(w);
}

void
tw_event(struct trace_writer *w, unsigned node, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vevent(w, tw_now(), 0, node, fmt, ap);
	va_end(ap);
}

void
tw_event_at(struct trace_writer *w, trace_time t, unsigned node,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vevent(w, t, 1, node, fmt, ap);
	va_end(ap);
}

/*
 * A socket is closed gracefully: the collector is told there is no more
 * (shutdown) and its end awaited, so that it reads every line and does not
 * take the exit line's absence for a crash.
 */
void
tw_close(struct trace_writer *w, int timeout_ms)
{
	struct pollfd pfd;
	int64_t end, left;
	int wait;

	if (w == NULL)
		return;
	end = mono_now() + (int64_t)timeout_ms * 1000000;
	while (tw_flush(w) != -1 || (w->dest == D_SOCKET && w->qlen > 0)) {
		if ((left = end - mono_now()) <= 0)
			break;
		wait = tw_pollfd(w, &pfd);
		if (wait == -1 || wait > left / 1000000)
			wait = (int)(left / 1000000) + 1;
		poll(&pfd, 1, wait);
		tw_tick(w);
	}
	if (w->dest == D_SOCKET && w->link == L_UP && w->qlen == 0 &&
	    shutdown(w->fd, SHUT_WR) == 0) {
		pfd.fd = w->fd;
		pfd.events = POLLIN;
		while ((left = end - mono_now()) > 0 &&
		    poll(&pfd, 1, (int)(left / 1000000) + 1) >= 0 &&
		    read_acks(w) == 0)
			;
	}
	if (w->fd != -1 && (w->own || w->dest == D_SOCKET))
		close(w->fd);
	if (w->ai != NULL)
		net_freeaddrinfo(w->ai);
	free(w->path);
	free(w->q);
	free(w);
}
