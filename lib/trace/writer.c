/*
 * Writing traces without blocking the protocol: lines wait in a bounded
 * queue and go out when the destination can take them.  What does not fit
 * is counted and reported with a "lost" line, so a reader knows.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trace/trace.h"

#define QUEUE_MAX	(256 * 1024)

struct trace_writer {
	char		*path;		/* NULL: a standard stream */
	int		 fd;
	int		 own;		/* fd is ours to close */
	char		*q;
	size_t		 qlen;
	uint64_t	 lost;		/* not yet reported */
	uint64_t	 lost_total;
};

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

static int
open_file(struct trace_writer *w)
{
	int fd;

	fd = open(w->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NONBLOCK, 0644);
	if (fd == -1)
		return -1;
	w->fd = fd;
	w->own = 1;
	return 0;
}

struct trace_writer *
tw_open(const char *dest, int dashfd)
{
	struct trace_writer *w;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	if ((w->q = malloc(QUEUE_MAX)) == NULL)
		goto fail;
	if (strcmp(dest, "-") == 0) {
		if ((w->fd = private_fd(dashfd, &w->own)) == -1)
			goto fail;
		return w;
	}
	if ((w->path = strdup(dest)) == NULL || open_file(w) == -1)
		goto fail;
	return w;
fail:
	free(w->path);
	free(w->q);
	free(w);
	return NULL;
}

int
tw_reopen(struct trace_writer *w)
{
	int ofd = w->fd;

	if (w->path == NULL)
		return 0;
	tw_flush(w);
	if (open_file(w) == -1) {
		w->fd = ofd;
		return -1;
	}
	close(ofd);
	return 0;
}

int
tw_flush(struct trace_writer *w)
{
	while (w->qlen > 0) {
		ssize_t n = write(w->fd, w->q, w->qlen);

		if (n == -1) {
			if (errno == EINTR)
				continue;
			/* EAGAIN waits for POLLOUT; any other error drops. */
			if (errno != EAGAIN)
				w->qlen = 0;
			break;
		}
		memmove(w->q, w->q + n, w->qlen - (size_t)n);
		w->qlen -= (size_t)n;
	}
	return w->qlen > 0 ? w->fd : -1;
}

int
tw_pending(const struct trace_writer *w)
{
	return w->qlen > 0;
}

uint64_t
tw_lost(const struct trace_writer *w)
{
	return w->lost_total;
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

static void
vevent(struct trace_writer *w, trace_time t, unsigned node, const char *fmt,
    va_list ap)
{
	char line[TRACE_LINE_MAX], ts[32], id[16];
	int n, m;

	if (w == NULL)
		return;
	trace_format_time(t, ts, sizeof(ts));
	if (node == 0)
		strlcpy(id, "-", sizeof(id));
	else
		snprintf(id, sizeof(id), "%u", node);
	if (w->lost > 0) {
		n = snprintf(line, sizeof(line), "%s %s lost n=%llu\n", ts, id,
		    (unsigned long long)w->lost);
		if (queue_line(w, line, (size_t)n) == 0)
			w->lost = 0;
	}
	n = snprintf(line, sizeof(line), "%s %s ", ts, id);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	if (m < 0 || (size_t)(n + m) >= sizeof(line) - 1 || w->lost > 0 ||
	    queue_line(w, line, (size_t)(n + m)) == -1 ||
	    queue_line(w, "\n", 1) == -1) {
		w->lost++;
		w->lost_total++;
	}
	tw_flush(w);
}

void
tw_event(struct trace_writer *w, unsigned node, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vevent(w, tw_now(), node, fmt, ap);
	va_end(ap);
}

void
tw_event_at(struct trace_writer *w, trace_time t, unsigned node,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vevent(w, t, node, fmt, ap);
	va_end(ap);
}

void
tw_close(struct trace_writer *w, int timeout_ms)
{
	struct timespec start, now;

	if (w == NULL)
		return;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (tw_flush(w) != -1) {
		struct pollfd pfd = { .fd = w->fd, .events = POLLOUT };
		long spent;

		clock_gettime(CLOCK_MONOTONIC, &now);
		spent = (now.tv_sec - start.tv_sec) * 1000 +
		    (now.tv_nsec - start.tv_nsec) / 1000000;
		if (spent >= timeout_ms)
			break;
		poll(&pfd, 1, (int)(timeout_ms - spent));
	}
	if (w->own)
		close(w->fd);
	free(w->path);
	free(w->q);
	free(w);
}
