/*
 * Cutting a byte stream into trace lines and deciding who crashed.  A line
 * is written only when whole and valid; anything else is reported and
 * dropped, so the trace out never holds a half line or garbage, and is
 * said lost, so the trace out never looks complete when it is not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"

enum life { UNKNOWN, UP, DOWN };

struct collector {
	unsigned char	 life[TRACE_NODE_MAX + 1];
	unsigned	 conns[TRACE_NODE_MAX + 1];	/* open ones per node */
	trace_time	 last[TRACE_NODE_MAX + 1];	/* latest line's time */
};

struct collector *
collect_new(void)
{
	return calloc(1, sizeof(struct collector));
}

void
collect_free(struct collector *col)
{
	free(col);
}

void
collect_conn_init(struct collect_conn *c)
{
	memset(c, 0, sizeof(*c));
}

/* Remembers that NODE speaks on C. */
static void
carry(struct collector *col, struct collect_conn *c, unsigned node)
{
	unsigned *nn;
	size_t i;

	if (c->nnodes > 0 && c->nodes[c->lastnode] == node)
		return;
	for (i = 0; i < c->nnodes; i++)
		if (c->nodes[i] == node) {
			c->lastnode = (unsigned)i;
			return;
		}
	if (c->nnodes == c->nodecap) {
		size_t cap = c->nodecap ? c->nodecap * 2 : 4;

		if ((nn = reallocarray(c->nodes, cap, sizeof(*nn))) == NULL)
			return;		/* no crash line for it, at worst */
		c->nodes = nn;
		c->nodecap = cap;
	}
	c->lastnode = (unsigned)c->nnodes;
	c->nodes[c->nnodes++] = node;
	col->conns[node]++;
}

static void
bad(struct collect_conn *c, unsigned long lineno, const char *why,
    const char *line, size_t len, const struct collect_out *out)
{
	c->bad++;
	c->lost++;
	out->bad(out->arg, lineno, why, line, len);
}

/*
 * Writes "lost n=N" for the lines dropped on C since its last good line:
 * under the node last heard on C, at T but never before that node's latest
 * line; under "-" when no node has spoken on C yet.
 */
static void
say_lost(struct collector *col, struct collect_conn *c, trace_time t,
    const struct collect_out *out)
{
	char line[96];
	unsigned node = 0;
	int n;

	if (c->nnodes > 0) {
		node = c->nodes[c->lastnode];
		if (col->last[node] > t)
			t = col->last[node];
		col->last[node] = t;
	}
	n = trace_format_line(line, sizeof(line), t, node, "lost n=%lu",
	    c->lost);
	c->lost = 0;
	out->line(out->arg, t, line, (size_t)n);
}

/* One whole line, without its newline. */
static void
take(struct collector *col, struct collect_conn *c, const char *line,
    size_t len, const struct collect_out *out)
{
	struct trace_event ev;
	const char *why;
	char whybuf[160];

	c->lines++;
	if ((why = trace_raw_check(line, len)) != NULL) {
		bad(c, c->lines, why, line, len, out);
		return;
	}
	if (trace_blank(line, len))
		return;
	why = trace_parse_line(line, len, &ev, 0, whybuf, sizeof(whybuf));
	if (why != NULL) {
		bad(c, c->lines, why, line, len, out);
		return;
	}
	if (c->lost > 0)
		say_lost(col, c, ev.t, out);
	if (ev.node != 0) {
		carry(col, c, ev.node);
		if (ev.type == TR_BOOT)
			col->life[ev.node] = UP;
		else if (ev.type == TR_EXIT || ev.type == TR_CRASH)
			col->life[ev.node] = DOWN;
		else if (col->life[ev.node] == UNKNOWN)
			col->life[ev.node] = UP;	/* met in mid-life */
		if (ev.t > col->last[ev.node])
			col->last[ev.node] = ev.t;
	}
	out->line(out->arg, ev.t, line, len);
}

void
collect_data(struct collector *col, struct collect_conn *c, const char *p,
    size_t n, const struct collect_out *out)
{
	const char *nl;
	size_t k;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		k = nl != NULL ? (size_t)(nl - p) : n;
		if (c->skip) {
			/* the rest of a line already reported too long */
		} else if (c->len == 0 && nl != NULL) {
			take(col, c, p, k, out);	/* no copy */
		} else if (k <= sizeof(c->buf) - c->len) {
			memcpy(c->buf + c->len, p, k);
			c->len += k;
			if (nl != NULL) {
				take(col, c, c->buf, c->len, out);
				c->len = 0;
			} else if (c->len == sizeof(c->buf)) {
				bad(c, c->lines + 1, "line too long", c->buf,
				    c->len, out);
				c->skip = 1;
			}
		} else {
			bad(c, c->lines + 1, "line too long",
			    c->len > 0 ? c->buf : p, c->len > 0 ? c->len : k,
			    out);
			c->skip = 1;
		}
		if (nl == NULL)
			break;
		if (c->skip) {
			c->lines++;
			c->skip = 0;
			c->len = 0;
		}
		p = nl + 1;
		n -= k + 1;
	}
}

void
collect_end(struct collector *col, struct collect_conn *c,
    enum collect_end how, trace_time now, const struct collect_out *out)
{
	char line[64];
	trace_time t;
	size_t i;
	int n;

	if (how == CE_EOF && c->len > 0 && !c->skip)
		bad(c, c->lines + 1, "connection ended inside a line", c->buf,
		    c->len, out);
	c->len = 0;
	if (c->lost > 0)
		say_lost(col, c, now, out);
	for (i = 0; i < c->nnodes; i++) {
		unsigned node = c->nodes[i];

		if (--col->conns[node] > 0 || how != CE_EOF ||
		    col->life[node] != UP)
			continue;
		col->life[node] = DOWN;
		t = now > col->last[node] ? now : col->last[node];
		n = trace_format_line(line, sizeof(line), t, node, "crash");
		out->line(out->arg, t, line, (size_t)n);
	}
	free(c->nodes);
	c->nodes = NULL;
	c->nnodes = c->nodecap = 0;
}
