/*
 * Decoding one trace line.  Every value is checked against the format so
 * that the checkers can trust what they are given.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "trace/trace.h"

static const char *const type_names[TR_NTYPES] = {
	"boot", "crash", "exit", "pause", "resume", "state", "send", "recv",
	"drop", "fd", "lease", "lead", "edict", "deliver", "clock", "net",
	"task", "lost"
};

static const char *const status_names[ST_NSTATUS] = {
	"Norm", "Elec1", "Elec2", "Wait", "Elec", "Reorg", "Down"
};

const char *
trace_type_name(enum trace_type t)
{
	return t < TR_NTYPES ? type_names[t] : "?";
}

const char *
trace_status_name(enum trace_status s)
{
	return s < ST_NSTATUS ? status_names[s] : "?";
}

int
trace_str_eq(struct trace_str s, const char *c)
{
	size_t n = strlen(c);

	return s.n == n && memcmp(s.p, c, n) == 0;
}

/* Seconds with up to 9 fractional digits, to nanoseconds. */
int
trace_parse_time(const char *s, size_t n, trace_time *out)
{
	int64_t sec = 0, frac = 0;
	size_t i = 0, digits = 0, fd = 0;

	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		if (digits >= 10)
			return -1;
		sec = sec * 10 + (s[i] - '0');
	}
	if (digits == 0 || sec > INT64_C(9000000000))
		return -1;
	if (i < n) {
		if (s[i++] != '.' || i == n)
			return -1;
		for (; i < n; i++, fd++) {
			if (fd >= 9 || s[i] < '0' || s[i] > '9')
				return -1;
			frac = frac * 10 + (s[i] - '0');
		}
		for (; fd < 9; fd++)
			frac *= 10;
	}
	*out = sec * TRACE_NS + frac;
	return 0;
}

int
trace_format_time(trace_time t, char *buf, size_t len)
{
	int n;

	if (t < 0)
		return snprintf(buf, len, "0");
	n = snprintf(buf, len, "%lld.%09lld", (long long)(t / TRACE_NS),
	    (long long)(t % TRACE_NS));
	if (n <= 0 || (size_t)n >= len)
		return n;
	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[--n] = '\0';
	return n;
}

static int
parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 20 || (n > 1 && s[0] == '0'))
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (max - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

int
trace_parse_id(const char *s, size_t n, unsigned *out)
{
	uint64_t v;

	if (n == 1 && s[0] == '-') {
		*out = 0;
		return 0;
	}
	if (parse_u64(s, n, TRACE_NODE_MAX, &v) == -1 || v == 0)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int
trace_parse_qt(struct trace_str s, struct trace_qt *qt, size_t max)
{
	size_t i = 0, n = 0;

	if (s.n == 0)
		return -1;
	while (i < s.n) {
		const char *p = s.p + i, *colon, *end;

		end = memchr(p, ',', s.n - i);
		if (end == NULL)
			end = s.p + s.n;
		colon = memchr(p, ':', (size_t)(end - p));
		if (colon == NULL || n >= max ||
		    trace_parse_id(p, (size_t)(colon - p), &qt[n].id) == -1 ||
		    qt[n].id == 0 ||
		    trace_parse_time(colon + 1, (size_t)(end - colon - 1),
		    &qt[n].t) == -1)
			return -1;
		n++;
		i = (size_t)(end - s.p) + 1;
		if (end < s.p + s.n && i == s.n)
			return -1;	/* trailing comma */
	}
	return (int)n;
}

const struct trace_str *
trace_get(const struct trace_event *ev, const char *key)
{
	size_t i;

	for (i = 0; i < ev->nkv; i++)
		if (trace_str_eq(ev->kv[i].k, key))
			return &ev->kv[i].v;
	return NULL;
}

enum kind { K_ID, K_ID0, K_U64, K_TIME, K_STR, K_STATUS, K_OP, K_LINK, K_QT };

#define OPS_FD	 (1u << OP_START | 1u << OP_STOP | 1u << OP_DOWN | \
		  1u << OP_PLAYDEAD | 1u << OP_PLAYALIVE)
#define OPS_LEASE (1u << OP_GRANT | 1u << OP_RELEASE)
#define OPS_TASK (1u << OP_START | 1u << OP_STOP)
#define F(f)	offsetof(struct trace_event, f)

/* The keys of each event: the format page's table, as data. */
static const struct keyspec {
	enum trace_type	 type;
	const char	*key;
	enum kind	 kind;
	int		 required;
	size_t		 off;
	unsigned	 have;	/* HAVE_ bit for optional keys */
	unsigned	 ops;	/* allowed op= values */
} keyspecs[] = {
	{ TR_BOOT, "inc", K_U64, 1, F(inc), 0, 0 },
	{ TR_BOOT, "algo", K_STR, 0, F(algo), HAVE_ALGO, 0 },
	{ TR_BOOT, "nodes", K_ID, 0, F(nodes), HAVE_NODES, 0 },
	{ TR_EXIT, "why", K_STR, 1, F(why), HAVE_WHY, 0 },
	{ TR_STATE, "status", K_STATUS, 1, F(status), 0, 0 },
	{ TR_STATE, "ldr", K_ID0, 1, F(ldr), 0, 0 },
	{ TR_STATE, "grp", K_STR, 1, F(grp), 0, 0 },
	{ TR_SEND, "to", K_ID, 1, F(to), 0, 0 },
	{ TR_SEND, "msg", K_STR, 1, F(msg), 0, 0 },
	{ TR_SEND, "elid", K_STR, 0, F(elid), HAVE_ELID, 0 },
	{ TR_SEND, "bytes", K_U64, 0, F(bytes), HAVE_BYTES, 0 },
	{ TR_RECV, "from", K_ID, 1, F(from), 0, 0 },
	{ TR_RECV, "msg", K_STR, 1, F(msg), 0, 0 },
	{ TR_RECV, "elid", K_STR, 0, F(elid), HAVE_ELID, 0 },
	{ TR_DROP, "from", K_ID0, 1, F(from), 0, 0 },
	{ TR_DROP, "why", K_STR, 1, F(why), HAVE_WHY, 0 },
	{ TR_FD, "op", K_OP, 1, F(op), 0, OPS_FD },
	{ TR_FD, "peer", K_ID, 1, F(peer), 0, 0 },
	{ TR_LEASE, "op", K_OP, 1, F(op), 0, OPS_LEASE },
	{ TR_LEASE, "to", K_ID, 1, F(to), 0, 0 },
	{ TR_LEASE, "until", K_TIME, 0, F(until), HAVE_UNTIL, 0 },
	{ TR_LEASE, "clock", K_TIME, 1, F(clock), 0, 0 },
	{ TR_LEAD, "until", K_TIME, 1, F(until), HAVE_UNTIL, 0 },
	{ TR_LEAD, "clock", K_TIME, 1, F(clock), 0, 0 },
	{ TR_LEAD, "qt", K_QT, 0, F(qt), HAVE_QT, 0 },
	{ TR_EDICT, "seq", K_U64, 1, F(seq), 0, 0 },
	{ TR_EDICT, "qt", K_QT, 1, F(qt), HAVE_QT, 0 },
	{ TR_EDICT, "clock", K_TIME, 1, F(clock), 0, 0 },
	{ TR_DELIVER, "from", K_ID, 1, F(from), 0, 0 },
	{ TR_DELIVER, "seq", K_U64, 1, F(seq), 0, 0 },
	{ TR_DELIVER, "qt", K_QT, 1, F(qt), HAVE_QT, 0 },
	{ TR_CLOCK, "c", K_TIME, 1, F(clock), 0, 0 },
	{ TR_NET, "a", K_ID, 1, F(a), 0, 0 },
	{ TR_NET, "b", K_ID, 1, F(b), 0, 0 },
	{ TR_NET, "link", K_LINK, 1, F(link), 0, 0 },
	{ TR_TASK, "op", K_OP, 1, F(op), 0, OPS_TASK },
	{ TR_TASK, "pid", K_U64, 1, F(pid), 0, 0 },
	{ TR_TASK, "token", K_STR, 0, F(token), HAVE_TOKEN, 0 },
	{ TR_TASK, "status", K_STR, 0, F(xstatus), HAVE_XSTATUS, 0 },
	{ TR_LOST, "n", K_U64, 1, F(n), 0, 0 },
};

static int
lookup(struct trace_str w, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (trace_str_eq(w, names[i]))
			return i;
	return -1;
}

static const char *
decode(const struct keyspec *ks, struct trace_str v, struct trace_event *ev,
    char *why, size_t whylen)
{
	static const char *const ops[] = { "", "start", "stop", "down",
	    "playdead", "playalive", "grant", "release" };
	static const char *const links[] = { "up", "down", "flaky" };
	struct trace_qt qt[TRACE_QT_MAX];
	void *f = (char *)ev + ks->off;
	int i;

	switch (ks->kind) {
	case K_ID:
	case K_ID0:
		if (trace_parse_id(v.p, v.n, f) == -1 ||
		    (ks->kind == K_ID && *(unsigned *)f == 0))
			goto bad;
		break;
	case K_U64:
		if (parse_u64(v.p, v.n, UINT64_MAX, f) == -1)
			goto bad;
		break;
	case K_TIME:
		if (trace_parse_time(v.p, v.n, f) == -1)
			goto bad;
		break;
	case K_QT:
		if (trace_parse_qt(v, qt, TRACE_QT_MAX) == -1)
			goto bad;
		/* FALLTHROUGH */
	case K_STR:
		*(struct trace_str *)f = v;
		break;
	case K_STATUS:
		if ((i = lookup(v, status_names, ST_NSTATUS)) == -1)
			goto bad;
		*(enum trace_status *)f = (enum trace_status)i;
		break;
	case K_OP:
		if ((i = lookup(v, ops, 8)) <= 0 || !(ks->ops & 1u << i))
			goto bad;
		*(enum trace_op *)f = (enum trace_op)i;
		break;
	case K_LINK:
		if ((i = lookup(v, links, 3)) == -1)
			goto bad;
		*(enum trace_link *)f = (enum trace_link)i;
		break;
	}
	ev->have |= ks->have;
	return NULL;
bad:
	snprintf(why, whylen, "bad value for %s: \"%.*s\"", ks->key,
	    (int)(v.n > 40 ? 40 : v.n), v.p);
	return why;
}

/* Splits the line into words; TIME NODE EVENT come first. */
static const char *
split(const char *line, size_t len, struct trace_str *w, size_t *nw)
{
	size_t i = 0, n = 0;

	while (i < len) {
		size_t s;

		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len)
			break;
		s = i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		if (n == TRACE_KV_MAX + 3)
			return "too many fields";
		w[n].p = line + s;
		w[n].n = i - s;
		n++;
	}
	*nw = n;
	return NULL;
}

const char trace_skip[] = "unknown event skipped";

const char *
trace_parse_line(const char *line, size_t len, struct trace_event *ev,
    int flags, char *why, size_t whylen)
{
	struct trace_str w[TRACE_KV_MAX + 3];
	const struct keyspec *ks;
	const char *err;
	size_t nw, i;
	int t;

	ev->have = 0;
	ev->nkv = 0;
	ev->line.p = line;
	ev->line.n = len;
	if ((err = split(line, len, w, &nw)) != NULL)
		return err;
	if (nw < 3)
		return "expected TIME NODE EVENT";
	if (trace_parse_time(w[0].p, w[0].n, &ev->t) == -1)
		return "bad time";
	if (trace_parse_id(w[1].p, w[1].n, &ev->node) == -1)
		return "bad node id";
	if ((t = lookup(w[2], type_names, TR_NTYPES)) == -1) {
		snprintf(why, whylen, "unknown event \"%.*s\"",
		    (int)(w[2].n > 40 ? 40 : w[2].n), w[2].p);
		return (flags & TRACE_LENIENT) ? TRACE_SKIP : why;
	}
	ev->type = (enum trace_type)t;
	if (ev->node == 0 && ev->type != TR_NET && ev->type != TR_LOST &&
	    ev->type != TR_CLOCK)
		return "node \"-\" only goes with net, clock or lost";
	if (ev->type == TR_NET && ev->node != 0)
		return "net lines belong to node \"-\"";
	for (i = 3; i < nw; i++) {
		const char *eq = memchr(w[i].p, '=', w[i].n);
		size_t j;

		if (eq == NULL || eq == w[i].p)
			return "expected KEY=VALUE";
		ev->kv[ev->nkv].k.p = w[i].p;
		ev->kv[ev->nkv].k.n = (size_t)(eq - w[i].p);
		ev->kv[ev->nkv].v.p = eq + 1;
		ev->kv[ev->nkv].v.n = w[i].n - ev->kv[ev->nkv].k.n - 1;
		for (j = 0; j < ev->nkv; j++)
			if (ev->kv[j].k.n == ev->kv[ev->nkv].k.n &&
			    memcmp(ev->kv[j].k.p, w[i].p, ev->kv[j].k.n) == 0) {
				snprintf(why, whylen, "key %.*s given twice",
				    (int)(ev->kv[j].k.n > 40 ? 40 :
				    ev->kv[j].k.n), w[i].p);
				return why;
			}
		ev->nkv++;
	}
	for (ks = keyspecs; ks < keyspecs + sizeof(keyspecs) / sizeof(keyspecs[0]); ks++) {
		const struct trace_str *v;

		if (ks->type != ev->type)
			continue;
		if ((v = trace_get(ev, ks->key)) == NULL) {
			if (!ks->required)
				continue;
			snprintf(why, whylen, "%s: missing key %s=",
			    type_names[ev->type], ks->key);
			return why;
		}
		if ((err = decode(ks, *v, ev, why, whylen)) != NULL)
			return err;
	}
	if (ev->type == TR_LEASE && ev->op == OP_GRANT &&
	    !(ev->have & HAVE_UNTIL))
		return "lease: missing key until= for op=grant";
	if (ev->type == TR_NET && ev->a == ev->b)
		return "net: a and b are the same node";
	return NULL;
}

