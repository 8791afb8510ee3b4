/*
 * The status reply, for people and scripts.  The daemon turns the core's
 * deadlines (CLOCK_MONOTONIC seconds, which mean nothing outside this
 * host's boot) into seconds left; --status --json renders the fields of
 * the reply as one JSON object.  Both are pure: the daemon passes the
 * time, the client the line it read.
 */
#include <stdio.h>
#include <string.h>

#include "ctl/ctl.h"
#include "trace/trace.h"
#include "util/util.h"

#define UNTIL		"_until"
#define LEFT		"_left"
#define NS		1000000000LL

int
ctl_status_extra(const char *extra, long long now, char *out, size_t len)
{
	struct sbuf b = { out, len, 0, 0 };
	struct ctl_str f;
	trace_time t;
	long long left;
	const char *eq;
	size_t pos = 0, k, ul = strlen(UNTIL);

	if (len == 0)
		return -1;
	out[0] = '\0';
	while ((f = ctl_next_field(extra, strlen(extra), &pos)).n > 0) {
		eq = memchr(f.p, '=', f.n);
		k = eq != NULL ? (size_t)(eq - f.p) : f.n;
		/* The token is a field of its own (token=). */
		if (k == 5 && memcmp(f.p, "token", 5) == 0)
			continue;
		if (eq != NULL && k > ul && memcmp(eq - ul, UNTIL, ul) == 0 &&
		    trace_parse_time(eq + 1, f.n - k - 1, &t) == 0) {
			left = t - now < 0 ? 0 : t - now;
			sbuf_put(&b, "%s%.*s" LEFT "=%lld.%03lld",
			    b.n ? " " : "", (int)(k - ul), f.p, left / NS,
			    left % NS / 1000000);
			continue;
		}
		sbuf_put(&b, "%s%.*s", b.n ? " " : "", (int)f.n, f.p);
	}
	return b.cut ? -1 : 0;
}

/* A JSON number as the line writes them: digits, one optional fraction. */
static int
number(struct ctl_str v)
{
	size_t i = 0, d;

	if (v.n == 0 || v.n > 20)
		return 0;
	for (d = 0; i < v.n && v.p[i] >= '0' && v.p[i] <= '9'; i++)
		d++;
	if (d == 0 || (d > 1 && v.p[0] == '0'))
		return 0;
	if (i == v.n)
		return 1;
	if (v.p[i++] != '.')
		return 0;
	for (d = 0; i < v.n && v.p[i] >= '0' && v.p[i] <= '9'; i++)
		d++;
	return d > 0 && i == v.n;
}

static void
string(struct sbuf *b, struct ctl_str v)
{
	size_t i;

	sbuf_put(b, "\"");
	for (i = 0; i < v.n; i++) {
		unsigned char c = (unsigned char)v.p[i];

		if (c == '"' || c == '\\')
			sbuf_put(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			sbuf_put(b, "\\u%04x", c);
		else
			sbuf_put(b, "%c", c);
	}
	sbuf_put(b, "\"");
}

/* A value: a number, null for "-", else a string. */
static void
value(struct sbuf *b, struct ctl_str v)
{
	if (number(v))
		sbuf_put(b, "%.*s", (int)v.n, v.p);
	else if (v.n == 1 && v.p[0] == '-')
		sbuf_put(b, "null");
	else
		string(b, v);
}

/* Splits S at the first SEP into *HEAD and S. */
static struct ctl_str
take(struct ctl_str *s, char sep)
{
	struct ctl_str h = *s;
	const char *e = memchr(s->p, sep, s->n);

	if (e == NULL) {
		s->p += s->n;
		s->n = 0;
		return h;
	}
	h.n = (size_t)(e - s->p);
	s->n -= h.n + 1;
	s->p = e + 1;
	return h;
}

/* A list A/B/C,... as an array of objects of NKEYS KEYS each ("-": an
 * empty one), the first a number if NUMBERED. */
static int
objects(struct sbuf *b, struct ctl_str v, const char *const *keys,
    size_t nkeys, int numbered)
{
	struct ctl_str p, part;
	size_t i;
	int first = 1;

	sbuf_put(b, "[");
	if (v.n == 1 && v.p[0] == '-')
		v.n = 0;
	if (v.n > 0 && v.p[v.n - 1] == ',')
		return -1;
	while (v.n > 0) {
		p = take(&v, ',');
		sbuf_put(b, "%s{", first ? "" : ",");
		first = 0;
		for (i = 0; i < nkeys; i++) {
			if (p.n == 0 && i > 0)
				return -1;
			part = take(&p, '/');
			if (i == 0 && (numbered ? !number(part) : part.n == 0))
				return -1;
			sbuf_put(b, "%s\"%s\":", i ? "," : "", keys[i]);
			value(b, part);
		}
		if (p.n > 0)
			return -1;
		sbuf_put(b, "}");
	}
	sbuf_put(b, "]");
	return 0;
}

/* peers=ID/AGE/UP/MISMATCH,... and names=NAME/HOLDER/TOKEN/LEFT/REGS,...:
 * arrays of objects. */
static const char *const peer_keys[] = { "id", "heard_ago", "detector",
    "mismatch" };
static const char *const name_keys[] = { "name", "holder", "token",
    "left", "registrations" };

int
ctl_status_json(struct ctl_str fields, char *out, size_t len)
{
	struct sbuf b = { out, len, 0, 0 };
	struct ctl_str f, k, v;
	size_t pos = 0;
	int first = 1;

	if (len == 0)
		return -1;
	sbuf_put(&b, "{");
	while ((f = ctl_next_field(fields.p, fields.n, &pos)).n > 0) {
		v = f;
		k = take(&v, '=');
		if (k.n == 0 || k.n == f.n)
			return -1;
		sbuf_put(&b, "%s", first ? "" : ",");
		first = 0;
		string(&b, k);
		sbuf_put(&b, ":");
		if (ctl_str_eq(k, "peers")) {
			if (objects(&b, v, peer_keys, nitems(peer_keys),
			    1) == -1)
				return -1;
		} else if (ctl_str_eq(k, "names")) {
			if (objects(&b, v, name_keys, nitems(name_keys),
			    0) == -1)
				return -1;
		} else
			value(&b, v);
	}
	sbuf_put(&b, "}");
	return b.cut ? -1 : 0;
}
