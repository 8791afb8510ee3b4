/*
 * A k-way merge with a binary heap keyed by (time, input number).  Each
 * input has a buffer of its own; the line at its head is only cut and its
 * time read until it reaches the top of the heap, where it is decoded in
 * full.
 */
#include <sys/resource.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merge/merge.h"

#define BUDGET		(32 * 1024 * 1024)	/* all input buffers */
#define BLOCK_MIN	(16 * 1024)
#define BLOCK_MAX	(256 * 1024)
#define OUT_BLOCK	(256 * 1024)

struct input {
	const char	*name;
	int		 fd;
	int		 own;		/* fd is ours to close */
	unsigned	 order;		/* rank among the inputs: ties */
	char		*buf;
	size_t		 cap, start, end;
	int		 eof;
	unsigned long	 lineno;
	const char	*line;		/* the head line, no newline */
	size_t		 len;
	trace_time	 t;
};

/* What the lines so far say of a node, for reboots without a crash. */
struct mnode {
	unsigned	 up;		/* booted, and no crash or exit since */
	unsigned	 src;		/* input of its last line, + 1 */
};

struct merge {
	struct input	*in;
	size_t		 nin;
	struct input	**heap;
	size_t		 nheap;
	struct input	*cur;		/* returned last, to advance next */
	int		 flags;
	int		 failed;
	struct mnode	*node;		/* by id, made at the first line */
	char		 ltime[32];	/* time of the line returned last */
	size_t		 ltlen;
	char		 synth[64];	/* a crash line made by the merge */
	char		 why[160];
	char		 err[512];
};

static int
fail(struct merge *m, const struct input *in, const char *why)
{
	m->failed = 1;
	if (in != NULL)
		snprintf(m->err, sizeof(m->err), "%s:%lu: %s", in->name,
		    in->lineno, why);
	else
		strlcpy(m->err, why, sizeof(m->err));
	return -1;
}

const char *
merge_error(const struct merge *m)
{
	return m->err;
}

static int
before(const struct input *a, const struct input *b)
{
	return a->t < b->t || (a->t == b->t && a->order < b->order);
}

static void
sift_down(struct merge *m, size_t i)
{
	struct input *x = m->heap[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= m->nheap)
			break;
		if (c + 1 < m->nheap && before(m->heap[c + 1], m->heap[c]))
			c++;
		if (!before(m->heap[c], x))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = x;
}

/* Cuts the next line of IN; 1: a line, 0: the end, -1: an error. */
static int
next_line(struct merge *m, struct input *in)
{
	char *p, *nl;
	ssize_t n;

	for (;;) {
		p = in->buf + in->start;
		if ((nl = memchr(p, '\n', in->end - in->start)) != NULL)
			break;
		if (in->eof) {
			if (in->end == in->start)
				return 0;
			in->lineno++;
			return fail(m, in,
			    "last line has no newline (truncated?)");
		}
		if (in->end - in->start >= TRACE_LINE_MAX) {
			in->lineno++;
			return fail(m, in, "line too long");
		}
		if (in->start > 0) {
			memmove(in->buf, p, in->end - in->start);
			in->end -= in->start;
			in->start = 0;
		}
		n = read(in->fd, in->buf + in->end, in->cap - in->end);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return fail(m, in, strerror(errno));
		}
		if (n == 0)
			in->eof = 1;
		in->end += (size_t)n;
	}
	in->line = p;
	in->len = (size_t)(nl - p);
	in->start += in->len + 1;
	in->lineno++;
	return 1;
}

/* Moves IN to its next event line and reads its time. */
static int
advance(struct merge *m, struct input *in)
{
	const char *p;
	trace_time t;
	size_t w;
	int rc;

	for (;;) {
		if ((rc = next_line(m, in)) != 1)
			return rc;
		if (in->len >= TRACE_LINE_MAX)
			return fail(m, in, "line too long");
		if (!trace_blank(in->line, in->len))
			break;
	}
	p = in->line;
	while (*p == ' ' || *p == '\t')
		p++;
	for (w = 0; p + w < in->line + in->len && p[w] != ' ' &&
	    p[w] != '\t'; w++)
		;
	if (trace_parse_time(p, w, &t) == -1)
		return fail(m, in, "bad time");
	if (t < in->t) {
		char a[32], b[32];

		trace_format_time(t, a, sizeof(a));
		trace_format_time(in->t, b, sizeof(b));
		snprintf(m->why, sizeof(m->why),
		    "out of order: time %s after %s", a, b);
		return fail(m, in, m->why);
	}
	in->t = t;
	return 1;
}

static int
fanin(void)
{
	struct rlimit rl;
	rlim_t want = MERGE_FANIN + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return 64;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur < 16 + 2)
		return 2;
	if (rl.rlim_cur - 16 < MERGE_FANIN)
		return (int)(rl.rlim_cur - 16);
	return MERGE_FANIN;
}

/* The merge of N inputs to open (NAMES) or already open (FDS, closed with
 * the merge if OWN). */
static struct merge *
open_inputs(char *const *names, const int *fds, size_t n, int own, int flags)
{
	struct merge *m;
	size_t i, block;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	m->flags = flags;
	if ((m->in = calloc(n, sizeof(*m->in))) == NULL ||
	    (m->heap = calloc(n, sizeof(*m->heap))) == NULL) {
		merge_close(m);
		return NULL;
	}
	block = BUDGET / (n ? n : 1);
	if (block < BLOCK_MIN)
		block = BLOCK_MIN;
	if (block > BLOCK_MAX)
		block = BLOCK_MAX;
	m->nin = n;
	for (i = 0; i < n; i++) {
		m->in[i].name = fds ? "(temporary file)" : names[i];
		m->in[i].fd = fds ? fds[i] : -1;
		m->in[i].own = fds ? own : 0;
		m->in[i].order = (unsigned)i;
		m->in[i].t = INT64_MIN;
		m->in[i].cap = block + TRACE_LINE_MAX;
	}
	for (i = 0; i < n; i++) {
		struct input *in = &m->in[i];

		if ((in->buf = malloc(in->cap)) == NULL) {
			merge_close(m);
			return NULL;
		}
		if (fds != NULL)
			continue;
		if (strcmp(names[i], "-") == 0)
			in->fd = STDIN_FILENO;
		else if ((in->fd = open(names[i], O_RDONLY | O_CLOEXEC)) == -1) {
			snprintf(m->err, sizeof(m->err), "%s: %s", names[i],
			    strerror(errno));
			m->failed = 1;
			return m;
		} else
			in->own = 1;
	}
	for (i = 0; i < n; i++) {
		int rc = advance(m, &m->in[i]);

		if (rc == -1)
			return m;
		if (rc == 1)
			m->heap[m->nheap++] = &m->in[i];
	}
	for (i = m->nheap / 2; i-- > 0; )
		sift_down(m, i);
	return m;
}

/* Merges N inputs into an unlinked temporary file; its fd or -1. */
static int
to_temp(char *const *names, const int *fds, size_t n, struct merge *top)
{
	struct merge *m;
	const char *dir = getenv("TMPDIR");
	char path[1024];
	int fd;

	snprintf(path, sizeof(path), "%s/elect-merge.XXXXXXXXXX",
	    dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(path)) == -1) {
		snprintf(top->err, sizeof(top->err), "temporary file: %s",
		    strerror(errno));
		return -1;
	}
	unlink(path);
	if ((m = open_inputs(names, fds, n, 0, MERGE_LINES)) == NULL) {
		strlcpy(top->err, strerror(ENOMEM), sizeof(top->err));
		close(fd);
		return -1;
	}
	if (merge_write(m, fd) == -1 || lseek(fd, 0, SEEK_SET) == -1) {
		if (m->err[0] == '\0')
			snprintf(m->err, sizeof(m->err), "temporary file: %s",
			    strerror(errno));
		strlcpy(top->err, m->err, sizeof(top->err));
		merge_close(m);
		close(fd);
		return -1;
	}
	merge_close(m);
	return fd;
}

static void
close_all(int *fds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
}

static char *const stdin_only[] = { "-" };

struct merge *
merge_open(char *const *files, int nfiles, int flags)
{
	struct merge *m, failed = { 0 };
	int *fds = NULL, *nfds, k = fanin();
	size_t n = (size_t)nfiles, i, ngroups;

	if (nfiles == 0) {
		files = stdin_only;
		n = 1;
	}
	/* Passes: groups of K inputs into temporary files, until K or fewer. */
	while (n > (size_t)k) {
		ngroups = (n + (size_t)k - 1) / (size_t)k;
		if ((nfds = calloc(ngroups, sizeof(*nfds))) == NULL) {
			strlcpy(failed.err, strerror(errno), sizeof(failed.err));
			goto fail;
		}
		for (i = 0; i < ngroups; i++) {
			size_t off = i * (size_t)k, cnt = n - off;

			if (cnt > (size_t)k)
				cnt = (size_t)k;
			nfds[i] = to_temp(fds ? NULL : files + off,
			    fds ? fds + off : NULL, cnt, &failed);
			if (nfds[i] == -1) {
				close_all(nfds, i);
				goto fail;
			}
		}
		if (fds != NULL)
			close_all(fds, n);
		fds = nfds;
		n = ngroups;
	}
	if (fds == NULL)
		return open_inputs(files, NULL, n, 0, flags);
	if ((m = open_inputs(NULL, fds, n, 1, flags)) == NULL)
		close_all(fds, n);
	else
		free(fds);
	return m;
fail:
	if (fds != NULL)
		close_all(fds, n);
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	m->failed = 1;
	strlcpy(m->err, failed.err, sizeof(m->err));
	return m;
}

static int
event_type(const char *w, size_t n)
{
	static size_t len[TR_NTYPES];
	int i;

	if (len[0] == 0)
		for (i = 0; i < TR_NTYPES; i++)
			len[i] = strlen(trace_type_name((enum trace_type)i));
	for (i = 0; i < TR_NTYPES; i++)
		if (len[i] == n && memcmp(trace_type_name((enum trace_type)i),
		    w, n) == 0)
			return i;
	return -1;
}

/*
 * The form of a line, without what each event requires of its keys: what
 * merging needs, several times faster than decoding every line.
 */
static const char *
shape(const struct input *in, struct trace_event *ev)
{
	const unsigned char *p = (const unsigned char *)in->line;
	const unsigned char *end = p + in->len, *s, *w[3];
	size_t wn[3], nw = 0;
	int i, eq;

	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			break;
		s = p;
		eq = 0;
		/* one pass per field: its end, and whether it has KEY= */
		for (; p < end && *p != ' ' && *p != '\t'; p++)
			if (*p == '=' && eq == 0)
				eq = p == s ? -1 : 1;
		if (nw < 3) {
			w[nw] = s;
			wn[nw] = (size_t)(p - s);
		} else if (eq != 1)
			return "expected KEY=VALUE";
		else if (nw >= TRACE_KV_MAX + 3)
			return "too many fields";
		nw++;
	}
	if (nw < 3)
		return "expected TIME NODE EVENT";
	if (trace_parse_id((const char *)w[1], wn[1], &ev->node) == -1)
		return "bad node id";
	if ((i = event_type((const char *)w[2], wn[2])) == -1)
		return "unknown event";
	ev->type = (enum trace_type)i;
	ev->t = in->t;
	ev->have = 0;
	ev->nkv = 0;
	ev->line.p = in->line;
	ev->line.n = in->len;
	return NULL;
}

/*
 * A node's input goes on with a boot while the lines so far have it up,
 * and its last line came from this input: the process that wrote them was
 * killed without a word (SIGKILL).  A higher incarnation proves it ended;
 * its crash is written just after its last line, at that line's time, the
 * earliest it can have happened (elect-trace(5)).  1: the crash in *EV.
 */
static int
reboot_crash(struct merge *m, struct input *in, struct trace_event *ev)
{
	struct trace_event head;
	struct mnode *n;
	int len;

	if (m->node == NULL || shape(in, &head) != NULL ||
	    head.type != TR_BOOT || head.node == 0)
		return 0;
	n = &m->node[head.node];
	if (!n->up || n->src != in->order + 1)
		return 0;
	n->up = 0;
	len = snprintf(m->synth, sizeof(m->synth), "%.*s %u crash by=merge",
	    (int)m->ltlen, m->ltime, head.node);
	if (trace_parse_line(m->synth, (size_t)len, ev, 0, m->why,
	    sizeof(m->why)) != NULL)
		return 0;
	ev->file = in->name;
	ev->lineno = in->lineno;
	return 1;
}

/* Notes what the line returned says of its node, and its time. */
static void
took(struct merge *m, const struct input *in, const struct trace_event *ev)
{
	struct mnode *n;
	size_t w;

	for (w = 0; w < in->len && (in->line[w] == ' ' ||
	    in->line[w] == '\t'); w++)
		;
	m->ltlen = 0;
	while (w < in->len && in->line[w] != ' ' && in->line[w] != '\t' &&
	    m->ltlen < sizeof(m->ltime))
		m->ltime[m->ltlen++] = in->line[w++];
	if (ev->node == 0)
		return;
	if (m->node == NULL &&
	    (m->node = calloc(TRACE_NODE_MAX + 1, sizeof(*m->node))) == NULL)
		return;		/* without memory, no crash is inferred */
	n = &m->node[ev->node];
	n->src = in->order + 1;
	if (ev->type == TR_BOOT)
		n->up = 1;
	else if (ev->type == TR_CRASH || ev->type == TR_EXIT)
		n->up = 0;
}

int
merge_next(struct merge *m, struct trace_event *ev)
{
	struct input *in;
	const char *why;
	int rc;

	if (m->failed)
		return -1;
	if ((in = m->cur) != NULL) {
		m->cur = NULL;
		if ((rc = advance(m, in)) == -1)
			return -1;
		if (rc == 0)
			m->heap[0] = m->heap[--m->nheap];
		if (m->nheap > 0)
			sift_down(m, 0);
		if (rc == 1 && reboot_crash(m, in, ev))
			return 1;
	}
	if (m->nheap == 0)
		return 0;
	in = m->heap[0];
	if ((why = trace_raw_check(in->line, in->len)) != NULL)
		return fail(m, in, why);
	if (m->flags & MERGE_LINES)
		why = shape(in, ev);
	else
		why = trace_parse_line(in->line, in->len, ev, 0, m->why,
		    sizeof(m->why));
	if (why != NULL)
		return fail(m, in, why);
	ev->file = in->name;
	ev->lineno = in->lineno;
	m->cur = in;
	took(m, in, ev);
	return 1;
}

static int
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int
merge_write(struct merge *m, int fd)
{
	struct trace_event ev;
	char *out;
	size_t len = 0;
	int rc;

	if ((out = malloc(OUT_BLOCK)) == NULL)
		return fail(m, NULL, strerror(errno));
	while ((rc = merge_next(m, &ev)) == 1) {
		if (OUT_BLOCK - len < ev.line.n + 1) {
			if (write_all(fd, out, len) == -1)
				goto werr;
			len = 0;
		}
		memcpy(out + len, ev.line.p, ev.line.n);
		out[len + ev.line.n] = '\n';
		len += ev.line.n + 1;
	}
	if (rc == 0 && write_all(fd, out, len) == -1)
		goto werr;
	free(out);
	return rc;
werr:
	m->err[0] = '\0';
	free(out);
	return -1;
}

void
merge_close(struct merge *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nin; i++) {
		if (m->in[i].own && m->in[i].fd != -1)
			close(m->in[i].fd);
		free(m->in[i].buf);
	}
	free(m->in);
	free(m->heap);
	free(m->node);
	free(m);
}
