/*
 * Fuzz target: the trace reader and parser, and every assertion of
 * elect-check behind them.  The input is a trace; it goes through the
 * reader (from a memory file, so that blocks, long lines and a missing
 * last newline are exercised), strictly and leniently, and what parses is
 * checked with and without a skew.  Each node's lines also go through the
 * compact level's filter (lib/trace/compact.c), whose every line must
 * parse.
 */
#include <sys/mman.h>

#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check.h"
#include "trace/compact.h"
#include "trace/memo.h"
#include "trace/trace.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/*
 * The reader's one pass (trace_parse_scan) against the line cut first
 * and parsed (trace_parse_memo): the same length, verdict and event for
 * the first line of the input.
 */
static void
same_scan(const uint8_t *data, size_t size)
{
	static char buf[TRACE_LINE_MAX + TRACE_SLACK];
	struct trace_event e1, e2;
	char why1[160], why2[160];
	const char *r1, *r2, *nl;
	size_t avail = size < TRACE_LINE_MAX ? size : TRACE_LINE_MAX, len;

	memset(buf, '\n', sizeof(buf));	/* past AVAIL: read, never used */
	memcpy(buf, data, avail);
	r1 = trace_parse_scan(buf, avail, &len, &e1, 0, why1, sizeof(why1),
	    NULL);
	if ((nl = memchr(buf, '\n', avail)) == NULL) {
		if (r1 == NULL || r1 == TRACE_SKIP)
			abort();
		return;
	}
	if (r1 != NULL && r1 != TRACE_SKIP)
		return;		/* the reader goes the long way */
	if (len != (size_t)(nl - buf))
		abort();
	r2 = trace_parse_memo(buf, len, &e2, 0, why2, sizeof(why2), NULL, 1);
	if (r2 != r1 || (r1 == NULL && (e1.t != e2.t || e1.node != e2.node ||
	    e1.type != e2.type || e1.nkv != e2.nkv || e1.have != e2.have)))
		abort();
}

/* The reader's event against its line parsed alone, without what the
 * reader keeps from the lines before (trace_memo): the same event. */
static void
same_alone(const struct trace_event *ev)
{
	static char why[160];
	struct trace_event e;

	if (trace_parse_line(ev->line.p, ev->line.n, &e, 0, why,
	    sizeof(why)) != NULL || e.t != ev->t || e.node != ev->node ||
	    e.type != ev->type || e.nkv != ev->nkv || e.have != ev->have)
		abort();
}

#define COMPACT_NODES	8	/* filters, by node id modulo */

/* The compact filter's lines for EV, which the reader took: each parses. */
static void
compact(struct trace_compact *tc, const struct trace_event *ev)
{
	static char out[2][TRACE_LINE_MAX], body[TRACE_LINE_MAX],
	    line[TRACE_LINE_MAX], why[160];
	struct trace_compact *c = &tc[ev->node % COMPACT_NODES];
	struct trace_event e;
	const char *p;
	size_t i, n, blen;
	int len;

	if (ev->node == 0)
		return;
	if (c->self != ev->node)
		tc_init(c, ev->node, 1);
	p = trace_line_body(ev->line.p, ev->line.n, &blen);
	snprintf(body, sizeof(body), "%.*s", (int)blen, p);
	n = tc_filter(c, ev->t, body, out);
	for (i = 0; i < n; i++) {
		len = trace_format_line(line, sizeof(line), ev->t, ev->node,
		    "%s", out[i]);
		if (len < 0 || (size_t)len >= sizeof(line))
			continue;	/* a boot line cut by level= */
		if (trace_parse_line(line, (size_t)len, &e, 0, why,
		    sizeof(why)) != NULL) {
			fprintf(stderr, "compact wrote \"%s\": %s\n", line,
			    why);
			abort();
		}
	}
}

static void
run(int fd, int flags, trace_time skew, FILE *out)
{
	struct check_opts o = { 5 * TRACE_NS, TRACE_NS, skew, 0, NULL, 1000,
	    NULL, 2 * TRACE_NS / 1000 };
	const struct check_ops *const *m;
	char path[64], *files[1] = { path };
	struct trace_reader *r;
	struct trace_event ev;
	struct checker *ck;
	static struct trace_compact tc[COMPACT_NODES];

	memset(tc, 0, sizeof(tc));
	if (lseek(fd, 0, SEEK_SET) == -1)
		err(1, "lseek");
	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	if ((r = trace_open(files, 1, flags)) == NULL)
		err(1, "trace_open");
	ck = checker_new(&o, out, skew > 0);
	for (m = check_all; *m != NULL; m++)
		checker_add(ck, (*m)->name);
	while (trace_next(r, &ev) == 1) {
		if (flags == 0) {
			same_alone(&ev);
			compact(tc, &ev);
		}
		if (checker_event(ck, &ev) != NULL)
			break;
	}
	checker_finish(ck);
	checker_summary(ck, out);
	checker_free(ck);
	trace_close(r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *out;
	int fd;

	if (out == NULL && (out = fopen("/dev/null", "w")) == NULL)
		err(1, "/dev/null");
	if ((fd = memfd_create("trace", MFD_CLOEXEC)) == -1)
		err(1, "memfd_create");
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		err(1, "write");
	run(fd, 0, 0, out);
	run(fd, TRACE_LENIENT, TRACE_NS / 10, out);
	close(fd);
	same_scan(data, size);
	return 0;
}
