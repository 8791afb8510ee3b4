/*
 * The collector's line handling: any bytes, cut anywhere, over two
 * connections.  Every line it lets through must be a valid trace line, and
 * every line it drops must be said lost, once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"

/* Lines dropped, less lines said lost. */
static long long unsaid;

static void
line(void *arg, trace_time t, const char *p, size_t len)
{
	struct trace_event ev;
	char why[160];

	(void)arg;
	if (len >= TRACE_LINE_MAX || memchr(p, '\n', len) != NULL ||
	    trace_parse_line(p, len, &ev, 0, why, sizeof(why)) != NULL ||
	    ev.t != t)
		abort();
	if (ev.type == TR_LOST)
		unsaid -= (long long)ev.n;
}

static void
bad(void *arg, unsigned long lineno, const char *why, const char *p,
    size_t len)
{
	(void)arg;
	if (lineno == 0 || why == NULL || (len > 0 && p == NULL))
		abort();
	unsaid++;
}

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct collect_conn c[2];
	struct collect_out out = { line, bad, NULL };
	struct collector *col;
	size_t off = 0, k = 0;
	uint8_t cut;

	if (size < 1 || (col = collect_new()) == NULL)
		return 0;
	cut = data[0];
	collect_conn_init(&c[0]);
	collect_conn_init(&c[1]);
	data++;
	size--;
	unsaid = 0;
	while (off < size) {
		size_t n = 1 + (size_t)((cut * (k + 7)) % 97);

		if (n > size - off)
			n = size - off;
		collect_data(col, &c[k % 2], (const char *)data + off, n, &out);
		off += n;
		k++;
	}
	collect_end(col, &c[0], CE_EOF, 5 * TRACE_NS, &out);
	collect_end(col, &c[1], cut & 1 ? CE_EOF : CE_SHUTDOWN, 6 * TRACE_NS,
	    &out);
	collect_free(col);
	if (unsaid != 0)
		abort();
	return 0;
}
