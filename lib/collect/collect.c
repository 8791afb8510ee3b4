/*
 * Cutting a byte stream into trace lines and deciding who crashed.  A line
 * is written only when whole and valid; anything else is reported and
 * dropped, so the trace out never holds a half line or garbage, and is
 * said lost, so the trace out never looks complete when it is not.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"
#include "util/idmap.h"

enum life { UNKNOWN, UP, DOWN };

struct cnode {
	enum life	 life;
	unsigned	 conns;		/* open ones */
	trace_time	 last;		/* latest line's time */
};

/* The nodes heard from, only: a few, of the 65535 a trace may name. */
struct collector {
	struct idmap	 ids;
	struct cnode	*node;		/* by index of ids */
	size_t		 cap;
};

struct collector *
collect_new(void)
{
	struct collector *col;

	if ((col = calloc(1, sizeof(*col))) != NULL)
		idmap_init(&col->ids);
	return col;
}

void
collect_free(struct collector *col)
{
	if (col == NULL)
		return;
	idmap_free(&col->ids);
	free(col->node);
	free(col);
}

/* NODE's state, made at first sight when MAKE; NULL: out of memory. */
static struct cnode *
cnode(struct collector *col, unsigned node, int make)
{
	struct cnode *p;
	long i;

	if ((i = idmap_find(&col->ids, node)) != -1)
		return &col->node[i];
	if (!make)
		return NULL;
	if (col->ids.n == col->cap) {
		if ((p = array_grow(col->node, &col->cap, sizeof(*p))) == NULL)
			return NULL;
		col->node = p;
	}
	if ((i = idmap_new(&col->ids, node)) == -1)
		return NULL;
	return &col->node[i];
}

void
collect_conn_init(struct collect_conn *c)
{
	memset(c, 0, sizeof(*c));
}

int
collect_conn_auth(struct collect_conn *c, const uint8_t *key,
    const uint8_t nonce[AUTH_NONCE])
{
	if ((c->proved = calloc(TRACE_NODE_MAX / 8 + 1, 1)) == NULL)
		return -1;
	c->key = key;
	memcpy(c->nonce, nonce, AUTH_NONCE);
	return 0;
}

static int
proved(const struct collect_conn *c, unsigned node)
{
	return (c->proved[node / 8] >> (node % 8)) & 1;
}

/*
 * An "auth" line: the node it proves may write on C.  A false or
 * malformed one closes C; it is reported, but no line of the trace is
 * said lost for it: it was not the cluster's.
 */
static void
auth(struct collect_conn *c, const char *line, size_t len,
    const struct collect_out *out)
{
	uint8_t mac[AUTH_MAC];
	unsigned node;

	if (auth_parse_answer(line, len, &node, mac) == -1) {
		out->bad(out->arg, c->lines + 1, "malformed auth line", line,
		    len);
		c->refused = 1;
	} else if (!auth_check(c->key, c->nonce, node, mac)) {
		out->bad(out->arg, c->lines + 1, "false proof: not the "
		    "cluster key, or not this connection's challenge", line,
		    len);
		c->refused = 1;
	} else {
		c->proved[node / 8] |= (uint8_t)(1u << (node % 8));
		c->anyproved = 1;
	}
}

/* Remembers that NODE speaks on C; its state, or NULL (out of memory:
 * no crash line for it, at worst). */
static struct cnode *
carry(struct collector *col, struct collect_conn *c, unsigned node)
{
	struct cnode *n;
	unsigned *nn;
	size_t i;

	if ((n = cnode(col, node, 1)) == NULL)
		return NULL;
	if (c->nnodes > 0 && c->nodes[c->lastnode] == node)
		return n;
	for (i = 0; i < c->nnodes; i++)
		if (c->nodes[i] == node) {
			c->lastnode = (unsigned)i;
			return n;
		}
	if (c->nnodes == c->nodecap) {
		size_t cap = c->nodecap ? c->nodecap * 2 : 4;

		if ((nn = reallocarray(c->nodes, cap, sizeof(*nn))) == NULL)
			return n;
		c->nodes = nn;
		c->nodecap = cap;
	}
	c->lastnode = (unsigned)c->nnodes;
	c->nodes[c->nnodes++] = node;
	n->conns++;
	return n;
}

/* Whether NODE has spoken on C before. */
static int
carries(const struct collect_conn *c, unsigned node)
{
	size_t i;

	for (i = 0; i < c->nnodes; i++)
		if (c->nodes[i] == node)
			return 1;
	return 0;
}

/* T, or the earliest time OUT still takes if later. */
static trace_time
not_before(trace_time t, const struct collect_out *out)
{
	trace_time f;

	if (out->floor != NULL && (f = out->floor(out->arg)) > t)
		return f;
	return t;
}

/*
 * NODE's incarnation ended unseen: its connections closed without an
 * exit, or a boot of it came on another connection.  It ended after its
 * last line, the time the line bears (or the earliest OUT still takes),
 * and before anything a new incarnation writes.
 */
static void
crash_line(struct cnode *cn, unsigned node, trace_time t,
    const struct collect_out *out)
{
	char line[64];
	int n;

	cn->life = DOWN;
	t = not_before(t, out);
	n = trace_format_line(line, sizeof(line), t, node, "crash");
	out->line(out->arg, t, line, (size_t)n);
}

/* Whether C's lines may be the cluster's: without a key any may, with
 * one only those of a connection that proved a node. */
static int
trusted(const struct collect_conn *c)
{
	return c->key == NULL || c->anyproved;
}

/* A line dropped: said lost, unless C never proved itself (a stranger's
 * garbage is no gap in the cluster's trace). */
static void
bad(struct collect_conn *c, unsigned long lineno, const char *why,
    const char *line, size_t len, const struct collect_out *out)
{
	c->bad++;
	if (trusted(c))
		c->lost++;
	else
		c->refused = 1;
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
	struct cnode *cn = NULL;
	int n;

	if (c->nnodes > 0) {
		node = c->nodes[c->lastnode];
		cn = cnode(col, node, 0);
		assert(cn != NULL);	/* carry() made it */
		if (cn->last > t)
			t = cn->last;
	}
	t = not_before(t, out);
	if (cn != NULL)
		cn->last = t;
	n = trace_format_line(line, sizeof(line), t, node, "lost n=%lu",
	    c->lost);
	c->lost = 0;
	out->line(out->arg, t, line, (size_t)n);
}

/*
 * Why LINE may not be shown on a terminal, or NULL: it must be UTF-8
 * (shortest forms, no surrogates, at most U+10FFFF) without control
 * characters (C0 but the tab, DEL, C1), so that no escape sequence can
 * move a reader's cursor or retitle the window.
 */
static const char *
unprintable(const char *line, size_t len)
{
	const unsigned char *p = (const unsigned char *)line;
	const unsigned char *end = p + len;

	while (p < end) {
		unsigned c = *p, n, i;
		uint32_t cp;

		if (c < 0x80) {
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return "control character in line";
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			cp = c & 0x07;
		} else
			return "invalid UTF-8 in line";
		if ((size_t)(end - p) <= n)
			return "invalid UTF-8 in line";
		for (i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return "invalid UTF-8 in line";
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return "invalid UTF-8 in line";
		if (cp >= 0x80 && cp <= 0x9f)
			return "control character in line";
		p += n + 1;
	}
	return NULL;
}

/* One whole line, without its newline. */
static void
take(struct collector *col, struct collect_conn *c, const char *line,
    size_t len, const struct collect_out *out)
{
	struct trace_event ev;
	struct cnode *cn;
	const char *why;
	char whybuf[160];

	if (c->key != NULL && len >= 5 && memcmp(line, "auth ", 5) == 0) {
		auth(c, line, len, out);	/* not a trace line: not counted */
		return;
	}
	c->lines++;
	/* A writer with the key proves its node before its first line: a
	 * line first is a stranger's, or a writer's without the key.  It is
	 * reported, nothing is said lost, and the connection is closed, so
	 * that garbage costs one line's work. */
	if (!trusted(c)) {
		c->bad++;
		c->refused = 1;
		if (!trace_blank(line, len))
			out->bad(out->arg, c->lines, "node not proved on this "
			    "connection", line, len);
		return;
	}
	if ((why = trace_raw_check(line, len)) != NULL ||
	    (why = unprintable(line, len)) != NULL) {
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
	if (c->key != NULL && !proved(c, ev.node)) {
		bad(c, c->lines, "node not proved on this connection", line,
		    len, out);
		return;
	}
	if (not_before(ev.t, out) != ev.t) {
		bad(c, c->lines, "earlier than lines already written", line,
		    len, out);
		return;
	}
	if (c->lost > 0)
		say_lost(col, c, ev.t, out);
	if (ev.node != 0 && ev.type == TR_BOOT && !carries(c, ev.node) &&
	    (cn = cnode(col, ev.node, 0)) != NULL && cn->life == UP)
		crash_line(cn, ev.node, cn->last < ev.t ? cn->last : ev.t, out);
	/* A task line is the guarded command's (--run-if-leader), not the
	 * node's: its connection's end says nothing of the node's life. */
	if (ev.node != 0 && ev.type != TR_TASK &&
	    (cn = carry(col, c, ev.node)) != NULL) {
		if (ev.type == TR_BOOT)
			cn->life = UP;
		else if (ev.type == TR_EXIT || ev.type == TR_CRASH)
			cn->life = DOWN;
		else if (cn->life == UNKNOWN)
			cn->life = UP;	/* met in mid-life */
		if (ev.t > cn->last)
			cn->last = ev.t;
	}
	out->line(out->arg, ev.t, line, len);
}

void
collect_data(struct collector *col, struct collect_conn *c, const char *p,
    size_t n, const struct collect_out *out)
{
	const char *nl;
	size_t k;

	while (n > 0 && !c->refused) {
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

int
collect_conn_over(const struct collector *col, const struct collect_conn *c)
{
	size_t i;
	long k;

	if (c->nnodes == 0)
		return 0;
	for (i = 0; i < c->nnodes; i++)
		if ((k = idmap_find(&col->ids, c->nodes[i])) == -1 ||
		    col->node[k].life != DOWN)
			return 0;
	return 1;
}

void
collect_end(struct collector *col, struct collect_conn *c,
    enum collect_end how, trace_time now, const struct collect_out *out)
{
	size_t i;

	if (how == CE_EOF && c->len > 0 && !c->skip)
		bad(c, c->lines + 1, "connection ended inside a line", c->buf,
		    c->len, out);
	c->len = 0;
	if (c->lost > 0)
		say_lost(col, c, now, out);
	for (i = 0; i < c->nnodes; i++) {
		unsigned node = c->nodes[i];
		struct cnode *cn = cnode(col, node, 0);

		assert(cn != NULL);
		if (--cn->conns > 0 || how != CE_EOF || cn->life != UP)
			continue;
		crash_line(cn, node, cn->last, out);
	}
	free(c->nodes);
	c->nodes = NULL;
	c->nnodes = c->nodecap = 0;
	free(c->proved);
	c->proved = NULL;
}
