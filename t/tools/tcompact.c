/*
 * tcompact [file ...]: a full trace as the compact level would have
 * written it (lib/trace/compact.c): each node's lines through a filter of
 * its own, in the order they come; lines of "-", comments and blank lines
 * as they are.  Tests compare elect-check's verdicts on both forms of the
 * same run.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/compact.h"
#include "trace/trace.h"

static struct trace_compact *tc[TRACE_NODE_MAX + 1];

int
main(int argc, char *argv[])
{
	struct trace_reader *r;
	struct trace_event ev;
	char out[2][TRACE_LINE_MAX], body[TRACE_LINE_MAX];
	const char *p;
	size_t i, n, blen;
	int rc;

	if ((r = trace_open(argv + 1, argc - 1, 0)) == NULL)
		err(2, "trace_open");
	while ((rc = trace_next(r, &ev)) == 1) {
		p = trace_line_body(ev.line.p, ev.line.n, &blen);
		snprintf(body, sizeof(body), "%.*s", (int)blen, p);
		if (ev.node == 0) {
			printf("%.*s\n", (int)ev.line.n, ev.line.p);
			continue;
		}
		if (tc[ev.node] == NULL) {
			if ((tc[ev.node] = malloc(sizeof(*tc[0]))) == NULL)
				err(2, NULL);
			tc_init(tc[ev.node], ev.node, 1);
		}
		n = tc_filter(tc[ev.node], ev.t, body, out);
		for (i = 0; i < n; i++) {
			char t[40];

			trace_format_time(ev.t, t, sizeof(t));
			printf("%s %u %s\n", t, ev.node, out[i]);
		}
	}
	if (rc == -1)
		errx(2, "%s", trace_error(r));
	trace_close(r);
	for (i = 0; i <= TRACE_NODE_MAX; i++)
		free(tc[i]);
	return 0;
}
