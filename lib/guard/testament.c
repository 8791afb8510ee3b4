/*
 * The testament's text (testament.h): strict, pure parsing and the
 * writer's one line.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "guard/testament.h"

#define WORDS_MAX	8

/* The space-separated words of a line, none empty: their number, or -1. */
static int
words(char *s, char *w[WORDS_MAX])
{
	int n = 0;

	for (;;) {
		if (n == WORDS_MAX || *s == ' ' || *s == '\0')
			return -1;
		w[n++] = s;
		if ((s = strchr(s, ' ')) == NULL)
			return n;
		*s++ = '\0';
	}
}

static int
num(const char *s, long long lo, long long hi, long long *v)
{
	const char *errstr;

	/* strtonum takes signs and spaces; the file has digits only. */
	if (s[0] == '\0' || strspn(s, "0123456789") != strlen(s) ||
	    (s[0] == '0' && s[1] != '\0'))
		return -1;
	*v = strtonum(s, lo, hi, &errstr);
	return errstr == NULL ? 0 : -1;
}

/* A 64-bit incarnation: strtonum stops at LLONG_MAX. */
static int
num64(const char *s, uint64_t *v)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 20 || strspn(s, "0123456789") != n ||
	    (s[0] == '0' && n != 1))
		return -1;
	*v = 0;
	for (i = 0; i < n; i++) {
		if (*v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	}
	return 0;
}

static int
host(const char *s, char *out)
{
	size_t n = strlen(s);

	if (n == 0 || n >= TESTAMENT_HOST_MAX || strspn(s,
	    "0123456789abcdefABCDEF.:%_-"
	    "ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ") != n)
		return -1;
	memcpy(out, s, n + 1);
	return 0;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int
hex(const char *s, uint8_t *out, size_t *len)
{
	size_t i, n = strlen(s);
	int hi, lo;

	if (n == 0 || n % 2 != 0 || n / 2 > TESTAMENT_DGRAM_MAX)
		return -1;
	for (i = 0; i < n / 2; i++) {
		if ((hi = hexval(s[2 * i])) == -1 ||
		    (lo = hexval(s[2 * i + 1])) == -1)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return 0;
}

static int
fail(struct testament *t, char *err, size_t errlen, size_t line,
    const char *fmt, ...)
{
	char why[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "line %zu: %s", line, why);
	testament_free(t);
	return -1;
}

int
testament_parse(const char *text, size_t len, struct testament *t,
    char *err, size_t errlen)
{
	char buf[3 + 6 + TESTAMENT_HOST_MAX + 6 + 2 * TESTAMENT_DGRAM_MAX + 2];
	char *w[WORDS_MAX];
	const char *p = text, *end = text + len, *nl;
	struct testament_to *to;
	long long v;
	size_t line = 0, i, n;
	int nw;

	memset(t, 0, sizeof(*t));
	if (len > TESTAMENT_FILE_MAX)
		return fail(t, err, errlen, 0, "longer than %d bytes",
		    TESTAMENT_FILE_MAX);
	while (p < end) {
		line++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			return fail(t, err, errlen, line, "no newline");
		n = (size_t)(nl - p);
		if (n >= sizeof(buf) || memchr(p, '\0', n) != NULL)
			return fail(t, err, errlen, line, "not a line of it");
		memcpy(buf, p, n);
		buf[n] = '\0';
		p = nl + 1;
		nw = words(buf, w);
		if (line == 1) {
			if (nw != 2 || strcmp(w[0], "elect-testament") != 0)
				return fail(t, err, errlen, line,
				    "not a testament");
			if (num(w[1], 1, INT_MAX, &v) == -1 ||
			    v != TESTAMENT_VERSION)
				return fail(t, err, errlen, line,
				    "version %s unknown", w[1]);
		} else if (line == 2) {
			if (nw != 6 || strcmp(w[0], "node") != 0 ||
			    strcmp(w[2], "pid") != 0 ||
			    strcmp(w[4], "inc") != 0)
				return fail(t, err, errlen, line,
				    "expected node ID pid PID inc INC");
			if (num(w[1], 1, UINT16_MAX, &v) == -1)
				return fail(t, err, errlen, line, "bad node");
			t->node = (unsigned)v;
			if (num(w[3], 1, INT_MAX, &t->pid) == -1)
				return fail(t, err, errlen, line, "bad pid");
			if (num64(w[5], &t->inc) == -1)
				return fail(t, err, errlen, line, "bad inc");
		} else if (line == 3) {
			if (nw != 3 || strcmp(w[0], "from") != 0)
				return fail(t, err, errlen, line,
				    "expected from HOST PORT");
			if (host(w[1], t->host) == -1)
				return fail(t, err, errlen, line, "bad host");
			if (num(w[2], 1, UINT16_MAX, &v) == -1)
				return fail(t, err, errlen, line, "bad port");
			t->port = (unsigned)v;
		} else {
			if (nw != 5 || strcmp(w[0], "to") != 0)
				return fail(t, err, errlen, line,
				    "expected to ID HOST PORT HEX");
			if (t->n == TESTAMENT_PEERS_MAX)
				return fail(t, err, errlen, line,
				    "more than %d peers", TESTAMENT_PEERS_MAX);
			if ((to = reallocarray(t->to, t->n + 1,
			    sizeof(*to))) == NULL)
				return fail(t, err, errlen, line,
				    "out of memory");
			t->to = to;
			to = &t->to[t->n];
			memset(to, 0, sizeof(*to));
			if (num(w[1], 1, UINT16_MAX, &v) == -1 ||
			    (unsigned)v == t->node)
				return fail(t, err, errlen, line, "bad peer");
			to->id = (unsigned)v;
			for (i = 0; i < t->n; i++)
				if (t->to[i].id == to->id)
					return fail(t, err, errlen, line,
					    "peer %u twice", to->id);
			if (host(w[2], to->host) == -1)
				return fail(t, err, errlen, line, "bad host");
			if (num(w[3], 1, UINT16_MAX, &v) == -1)
				return fail(t, err, errlen, line, "bad port");
			to->port = (unsigned)v;
			if (hex(w[4], to->dgram, &to->len) == -1)
				return fail(t, err, errlen, line,
				    "bad datagram");
			t->n++;
		}
	}
	if (line < 3)
		return fail(t, err, errlen, line + 1, "truncated");
	return 0;
}

void
testament_free(struct testament *t)
{
	free(t->to);
	memset(t, 0, sizeof(*t));
}

size_t
testament_line(unsigned id, const char *h, unsigned port,
    const uint8_t *dgram, size_t len, char *buf, size_t buflen)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[TESTAMENT_HOST_MAX];
	size_t i, n;
	int k;

	if (id == 0 || id > UINT16_MAX || port == 0 || port > UINT16_MAX ||
	    len == 0 || len > TESTAMENT_DGRAM_MAX || host(h, tmp) == -1)
		return 0;
	k = snprintf(buf, buflen, "to %u %s %u ", id, h, port);
	if (k < 0 || (size_t)k + 2 * len + 2 > buflen)
		return 0;
	n = (size_t)k;
	for (i = 0; i < len; i++) {
		buf[n++] = digits[dgram[i] >> 4];
		buf[n++] = digits[dgram[i] & 0xf];
	}
	buf[n++] = '\n';
	buf[n] = '\0';
	return n;
}

size_t
testament_seal(const struct wire_key *k, const struct wire_proto *p,
    uint8_t dead, unsigned self, unsigned to, uint64_t inc, uint8_t *buf)
{
	struct wire_msg w;

	memset(&w, 0, sizeof(w));
	w.type = dead;
	w.from = (uint16_t)self;
	w.to = (uint16_t)to;
	w.inc = inc;
	w.seq = 1;
	w.grp.node = (uint16_t)self;
	w.grp.inc = inc;
	return wire_encode(k, p, &w, buf, WIRE_DGRAM_MAX);
}
