/*
 * The collector's handshake: its parsers on any bytes, and a connection
 * that must prove its nodes fed any lines.  A parsed answer must carry a
 * node id in range; a line of an unproved node must never come out; a
 * connection refused takes nothing more.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/auth.h"
#include "collect/collect.h"

static const uint8_t key[AUTH_KEY] = { 1, 2, 3 };
static const uint8_t nonce[AUTH_NONCE] = { 4, 5, 6 };
static struct collect_conn conn;

static void
line(void *arg, trace_time t, const char *p, size_t len)
{
	struct trace_event ev;
	char why[160];

	(void)arg;
	(void)t;
	if (trace_parse_line(p, len, &ev, 0, why, sizeof(why)) != NULL)
		abort();
	/* the collector's own lines name nodes proved, or none */
	if (ev.node != 0 && !((conn.proved[ev.node / 8] >> (ev.node % 8)) & 1))
		abort();
}

static void
bad(void *arg, unsigned long lineno, const char *why, const char *p,
    size_t len)
{
	(void)arg;
	(void)lineno;
	(void)p;
	(void)len;
	if (why == NULL)
		abort();
}

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collect_out out = { line, bad, NULL, NULL };
	struct collector *col;
	uint8_t mac[AUTH_MAC], got[AUTH_NONCE];
	char ans[AUTH_LINE_MAX];
	unsigned node;
	size_t n;

	if (auth_parse_answer((const char *)data, size, &node, mac) == 0 &&
	    node > TRACE_NODE_MAX)
		abort();
	auth_parse_challenge((const char *)data, size, got);
	if ((col = collect_new()) == NULL)
		return 0;
	collect_conn_init(&conn);
	if (collect_conn_auth(&conn, key, nonce) == -1) {
		collect_free(col);
		return 0;
	}
	/* one node proved the right way, then the input */
	n = auth_answer(key, nonce, 7, ans);
	collect_data(col, &conn, ans, n, &out);
	if (conn.refused)
		abort();
	collect_data(col, &conn, (const char *)data, size, &out);
	collect_end(col, &conn, CE_EOF, 1, &out);
	collect_free(col);
	return 0;
}
