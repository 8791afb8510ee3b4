/*
 * Reading traces: files one after another, in large blocks, a line at a
 * time.  Memory stays the same whatever the length of the trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/memo.h"
#include "trace/trace.h"

#define READ_BLOCK	(256 * 1024)

struct trace_reader {
	char *const	*files;
	int		 nfiles;
	int		 next;		/* index of the next file to open */
	int		 flags;
	int		 fd;		/* -1: between files */
	const char	*name;
	unsigned long	 lineno;
	unsigned long	 lines;
	unsigned long	 skipped;
	uint64_t	 bytes;
	char		*buf;
	size_t		 start, end;	/* unread bytes: buf[start..end) */
	int		 eof;
	char		 err[TRACE_LINE_MAX / 8 + 256];
	char		 why[160];
	struct trace_memo memo;
	struct trace_names *names;	/* made at the first name= */
};

static char *const stdin_only[] = { "-" };

struct trace_reader *
trace_open(char *const *files, int nfiles, int flags)
{
	struct trace_reader *r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	/* The parser may read TRACE_SLACK bytes past a line's end. */
	if ((r->buf = calloc(1, READ_BLOCK + TRACE_LINE_MAX +
	    TRACE_SLACK)) == NULL) {
		free(r);
		return NULL;
	}
	if (nfiles == 0) {
		files = stdin_only;
		nfiles = 1;
	}
	r->files = files;
	r->nfiles = nfiles;
	r->flags = flags;
	r->fd = -1;
	return r;
}

void
trace_close(struct trace_reader *r)
{
	if (r == NULL)
		return;
	if (r->fd > 0)
		close(r->fd);
	free(r->buf);
	trace_names_free(r->names);
	free(r);
}

const char *
trace_error(const struct trace_reader *r)
{
	return r->err;
}

unsigned long
trace_lines(const struct trace_reader *r)
{
	return r->lines;
}

unsigned long
trace_skipped(const struct trace_reader *r)
{
	return r->skipped;
}

uint64_t
trace_bytes(const struct trace_reader *r)
{
	return r->bytes;
}

static int
fail(struct trace_reader *r, const char *why)
{
	if (r->lineno == 0)	/* before any line: the file itself */
		snprintf(r->err, sizeof(r->err), "%s: %s", r->name, why);
	else
		snprintf(r->err, sizeof(r->err), "%s:%lu: %s", r->name,
		    r->lineno, why);
	return -1;
}

static int
open_next(struct trace_reader *r)
{
	const char *f = r->files[r->next++];

	r->name = f;
	r->lineno = 0;
	r->start = r->end = 0;
	r->eof = 0;
	if (strcmp(f, "-") == 0) {
		r->name = "-";
		r->fd = STDIN_FILENO;
		return 0;
	}
	if ((r->fd = open(f, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(r->err, sizeof(r->err), "%s: %s", f, strerror(errno));
		return -1;
	}
	return 0;
}

/* Makes sure a whole line, or the end of the file, is in the buffer. */
static int
fill(struct trace_reader *r, char **nl)
{
	for (;;) {
		ssize_t n;

		*nl = memchr(r->buf + r->start, '\n', r->end - r->start);
		if (*nl != NULL || r->eof)
			return 0;
		if (r->end - r->start >= TRACE_LINE_MAX) {
			r->lineno++;
			return fail(r, "line too long");
		}
		if (r->start > 0) {
			memmove(r->buf, r->buf + r->start, r->end - r->start);
			r->end -= r->start;
			r->start = 0;
		}
		n = read(r->fd, r->buf + r->end, READ_BLOCK + TRACE_LINE_MAX -
		    r->end);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return fail(r, strerror(errno));
		}
		if (n == 0)
			r->eof = 1;
		r->end += (size_t)n;
		r->bytes += (uint64_t)n;
	}
}

/* A trace names at most TRACE_NAME_COUNT leaderships. */
static int
count_name(struct trace_reader *r, const struct trace_event *ev)
{
	char why[80];

	if (!(ev->have & HAVE_NAME))
		return 0;
	if (r->names == NULL && (r->names = trace_names_new()) == NULL)
		return fail(r, strerror(errno));
	if (trace_names_id(r->names, ev) != -1)
		return 0;
	if (errno != 0)
		return fail(r, strerror(errno));
	snprintf(why, sizeof(why), "more than %d names in the trace",
	    TRACE_NAME_COUNT);
	return fail(r, why);
}

int
trace_next(struct trace_reader *r, struct trace_event *ev)
{
	for (;;) {
		const char *why;
		char *line, *nl;
		size_t len;

		if (r->fd == -1) {
			if (r->next == r->nfiles)
				return 0;
			if (open_next(r) == -1)
				return -1;
		}
		/*
		 * A whole line is surely in the buffer: its end is found while
		 * it is split, in one pass.  Whatever that does not take (an
		 * error, a blank or a comment, a carriage return) goes the
		 * long way, which says what is wrong.
		 */
		line = r->buf + r->start;
		if (r->end - r->start >= TRACE_LINE_MAX ||
		    (r->eof && r->end > r->start)) {
			why = trace_parse_scan(line, r->end - r->start <
			    TRACE_LINE_MAX ? r->end - r->start : TRACE_LINE_MAX,
			    &len, ev, r->flags, r->why, sizeof(r->why), &r->memo);
			if ((why == NULL || why == TRACE_SKIP) && len > 0 &&
			    line[len - 1] != '\r') {
				r->start += len + 1;
				r->lineno++;
				r->lines++;
				if (why == TRACE_SKIP) {
					r->skipped++;
					continue;
				}
				ev->file = r->name;
				ev->lineno = r->lineno;
				return count_name(r, ev) == -1 ? -1 : 1;
			}
		}
		if (fill(r, &nl) == -1)
			return -1;
		line = r->buf + r->start;
		if (nl == NULL) {
			if (r->end == r->start) {
				if (r->fd != STDIN_FILENO)
					close(r->fd);
				r->fd = -1;
				continue;
			}
			r->lineno++;
			return fail(r, "last line has no newline (truncated?)");
		}
		len = (size_t)(nl - line);
		r->start += len + 1;
		r->lineno++;
		r->lines++;
		if (len >= TRACE_LINE_MAX)
			return fail(r, "line too long");
		if (len > 0 && line[len - 1] == '\r')
			return fail(r, "carriage return in line");
		if (trace_blank(line, len)) {
			/* The parser finds NUL bytes in other lines. */
			if (memchr(line, '\0', len) != NULL)
				return fail(r, "NUL byte in line");
			continue;
		}
		why = trace_parse_memo(line, len, ev, r->flags, r->why,
		    sizeof(r->why), &r->memo, 1);
		if (why == TRACE_SKIP) {
			r->skipped++;
			continue;
		}
		if (why != NULL)
			return fail(r, why);
		ev->file = r->name;
		ev->lineno = r->lineno;
		return count_name(r, ev) == -1 ? -1 : 1;
	}
}
