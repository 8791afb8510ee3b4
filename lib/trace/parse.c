/*
 * Decoding one trace line.  Every value is checked against the format so
 * that the checkers can trust what they are given.  And the way back:
 * times and lines as every writer writes them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "trace/memo.h"
#include "trace/trace.h"

/* Eight bytes each, NUL-padded: same8() reads them whole. */
static const char type_names[TR_NTYPES][8] = {
	"boot", "crash", "exit", "pause", "resume", "state", "send", "recv",
	"drop", "fd", "lease", "lead", "edict", "deliver", "clock", "net",
	"task", "lost", "quiet", "epoch", "misfit", "renew"
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

/* Words and keys are short: a loop beats a call to memcmp. */
static int
same(const char *a, const char *b, size_t n)
{
	while (n-- > 0)
		if (*a++ != *b++)
			return 0;
	return 1;
}

/*
 * The same, for N below 8, where 8 bytes may be read at both A and B:
 * one load and compare each instead of a loop that mispredicts its end.
 */
static int
same8(const char *a, const char *b, size_t n)
{
	uint64_t x, y;

	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);	/* the first byte lowest */
	y = __builtin_bswap64(y);
#endif
	return ((x ^ y) & ((UINT64_C(1) << 8 * n) - 1)) == 0;
}

/* The same, for N up to 16, where 16 bytes may be read at both. */
static int
same16(const char *a, const char *b, size_t n)
{
	uint64_t x[2], y[2];

	memcpy(x, a, 16);
	memcpy(y, b, 16);
	if (n <= 8)
		return n == 8 ? x[0] == y[0] : same8(a, b, n);
	return x[0] == y[0] && (n == 16 ? x[1] == y[1] : same8(a + 8, b + 8,
	    n - 8));
}

int
trace_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > TRACE_NAME_LEN)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		    c == '-'))
			return 0;
	}
	return 1;
}

int
trace_str_eq(struct trace_str s, const char *c)
{
	size_t i;

	for (i = 0; i < s.n; i++)
		if (c[i] != s.p[i])	/* also stops at c's NUL */
			return 0;
	return c[i] == '\0';
}

#define ONES	UINT64_C(0x0101010101010101)
#define HIGH	UINT64_C(0x8080808080808080)

/* Eight bytes at S, the first lowest. */
static inline uint64_t
load8(const char *s)
{
	uint64_t v;

	memcpy(&v, s, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* Eight digits in V (load8), the first most significant (SWAR), or -1. */
static inline int64_t
digits8v(uint64_t v)
{
	const uint64_t hi = UINT64_C(0xF0F0F0F0F0F0F0F0);

	/* Every byte 0x30 to 0x39: high nibble 3, and 3 after adding 6. */
	if (((v & hi) | (((v + ONES * 6) & hi) >> 4)) != ONES * 0x33)
		return -1;
	v -= ONES * '0';
	v = v * 10 + (v >> 8);		/* pairs of digits */
	v = ((v & UINT64_C(0x000000FF000000FF)) *
	    (100 + (UINT64_C(1000000) << 32)) +
	    ((v >> 16) & UINT64_C(0x000000FF000000FF)) *
	    (1 + (UINT64_C(10000) << 32))) >> 32;
	return (int64_t)v;
}

/* Eight digits at S, the first most significant, or -1. */
static inline int64_t
digits8(const char *s)
{
	return digits8v(load8(s));
}

/*
 * Seconds (1 to 10 digits, at most 9000000000: bounds added to the largest
 * time stay far from overflow) with up to 9 fractional digits, to ns.  By
 * hand, not strtoll(3)/strtod(3): those need a NUL-ended copy of the
 * slice, accept signs and blanks, and cost several times as much; a double
 * loses nanoseconds past 2^53.  One pass over the whole part, eight
 * fractional digits at a time.
 */
/* Up to 9 fractional digits (NF) at S, to ns. */
static inline __attribute__((always_inline)) int
parse_frac(const char *s, size_t nf, int64_t *out)
{
	static const int64_t scale[10] = { 1000000000, 100000000, 10000000,
	    1000000, 100000, 10000, 1000, 100, 10, 1 };
	int64_t frac = 0;
	size_t i;

	if (nf == 0 || nf > 9)
		return -1;
	if (nf >= 8) {
		if ((frac = digits8(s)) == -1)
			return -1;
		s += 8;
	}
	for (i = nf & ~(size_t)7; i < nf; i++, s++) {
		unsigned d = (unsigned)((unsigned char)*s - '0');

		if (d > 9)
			return -1;
		frac = frac * 10 + d;
	}
	*out = frac * scale[nf];
	return 0;
}

static inline __attribute__((always_inline)) int
parse_time(const char *s, size_t n, trace_time *out)
{
	int64_t sec = 0, frac = 0;
	size_t i;

	if (n > 10 && s[10] == '.') {	/* seconds since 2001, to 2255 */
		unsigned d8 = (unsigned)((unsigned char)s[8] - '0');
		unsigned d9 = (unsigned)((unsigned char)s[9] - '0');

		if ((sec = digits8(s)) == -1 || d8 > 9 || d9 > 9)
			return -1;
		sec = sec * 100 + d8 * 10 + d9;
		i = 10;
	} else
		for (i = 0; i < n && i <= 10; i++) {
			unsigned d = (unsigned)((unsigned char)s[i] - '0');

			if (d > 9)
				break;
			sec = sec * 10 + d;
		}
	if (i == 0 || i > 10 || sec > TRACE_SEC_MAX)
		return -1;
	if (i < n && (s[i] != '.' || parse_frac(s + i + 1, n - i - 1,
	    &frac) == -1))
		return -1;
	*out = sec * TRACE_NS + frac;
	return 0;
}

int
trace_parse_time(const char *s, size_t n, trace_time *out)
{
	return parse_time(s, n, out);
}

/* Decimal digits of V at P, returning their count; P has room for 20. */
static size_t
put_u64(char *p, uint64_t v)
{
	char d[20];
	size_t n = 0, i;

	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	for (i = 0; i < n; i++)
		p[i] = d[n - 1 - i];
	return n;
}

/* Digits by hand, not printf: every trace line has a time, and at a
 * simulator's pace printf's format parsing was most of the cost. */
int
trace_format_time(trace_time t, char *buf, size_t len)
{
	char tmp[32];
	uint64_t f;
	size_t n, full, i;

	if (t < 0)
		return snprintf(buf, len, "0");
	n = put_u64(tmp, (uint64_t)(t / TRACE_NS));
	tmp[n++] = '.';
	f = (uint64_t)(t % TRACE_NS);
	for (i = 9; i-- > 0; f /= 10)
		tmp[n + i] = (char)('0' + f % 10);
	full = n += 9;
	/* As snprintf: cut to fit, and the length it would have had. */
	if (full >= len) {
		if (len > 0) {
			memcpy(buf, tmp, len - 1);
			buf[len - 1] = '\0';
		}
		return (int)full;
	}
	while (tmp[n - 1] == '0')
		n--;
	if (tmp[n - 1] == '.')
		n--;
	memcpy(buf, tmp, n);
	buf[n] = '\0';
	return (int)n;
}

int
trace_vformat_line(char *buf, size_t len, trace_time t, unsigned node,
    const char *fmt, va_list ap)
{
	char pre[64];
	size_t n;
	int m;

	n = (size_t)trace_format_time(t, pre, sizeof(pre));
	pre[n++] = ' ';
	if (node == 0)
		pre[n++] = '-';
	else
		n += put_u64(pre + n, node);
	pre[n++] = ' ';
	pre[n] = '\0';
	if (n >= len) {
		if (len > 0) {
			memcpy(buf, pre, len - 1);
			buf[len - 1] = '\0';
		}
		return (int)n;
	}
	memcpy(buf, pre, n + 1);
	if ((m = vsnprintf(buf + n, len - n, fmt, ap)) < 0)
		return m;
	return (int)n + m;
}

const char *
trace_line_body(const char *line, size_t len, size_t *n)
{
	const char *p = line, *end = line + len;
	int k;

	for (k = 0; k < 2; k++) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
	}
	*n = (size_t)(end - p);
	return p;
}

int
trace_format_line(char *buf, size_t len, trace_time t, unsigned node,
    const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = trace_vformat_line(buf, len, t, node, fmt, ap);
	va_end(ap);
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
		unsigned d = (unsigned)((unsigned char)s[i] - '0');

		if (d > 9)
			return -1;
		/* Up to 19 digits cannot overflow: check only the 20th. */
		if (i == 19 && v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/* parse_u64() without a bound, where 8 bytes may be read at S: up to 8
 * digits (sequence numbers, incarnations) in one SWAR step. */
static int
parse_u64_slack(const char *s, size_t n, uint64_t *out)
{
	uint64_t pad;
	int64_t v;

	if (n == 0 || n > 8)
		return parse_u64(s, n, UINT64_MAX, out);
	if (n > 1 && s[0] == '0')
		return -1;
	pad = n == 8 ? 0 : (UINT64_C(1) << 8 * (8 - n)) - 1;
	if ((v = digits8v(load8(s) << 8 * (8 - n) | (ONES * '0' & pad))) == -1)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static inline __attribute__((always_inline)) int
parse_id(const char *s, size_t n, unsigned *out)
{
	unsigned v = 0, d;
	size_t i;

	if (n == 1 && s[0] == '-') {
		*out = 0;
		return 0;
	}
	/* At most 5 digits, no leading zero: no overflow, and no 0. */
	if (n == 0 || n > 5 || s[0] == '0')
		return -1;
	for (i = 0; i < n; i++) {
		if ((d = (unsigned)((unsigned char)s[i] - '0')) > 9)
			return -1;
		v = v * 10 + d;
	}
	if (v > TRACE_NODE_MAX)
		return -1;
	*out = v;
	return 0;
}

int
trace_parse_id(const char *s, size_t n, unsigned *out)
{
	return parse_id(s, n, out);
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

int
trace_parse_elid(struct trace_str s, unsigned *node, uint64_t *inc,
    uint64_t *ctr)
{
	const char *d1, *d2, *end = s.p + s.n;

	if (s.n == 0 || (d1 = memchr(s.p, '.', s.n)) == NULL ||
	    (d2 = memchr(d1 + 1, '.', (size_t)(end - d1 - 1))) == NULL ||
	    trace_parse_id(s.p, (size_t)(d1 - s.p), node) == -1 ||
	    *node == 0 ||
	    parse_u64(d1 + 1, (size_t)(d2 - d1 - 1), UINT64_MAX, inc) == -1 ||
	    parse_u64(d2 + 1, (size_t)(end - d2 - 1), UINT32_MAX, ctr) == -1)
		return -1;
	return 0;
}

/* Gathers the eight 0x80 bits of a word into one byte. */
#define GATHER(x)	((((x) >> 7) * UINT64_C(0x0102040810204080)) >> 56)

/* Bit i set: byte i of the 64 at P is not a digit. */
static uint64_t
nondigits64(const char *p)
{
	uint64_t m = 0;
	int k;
#ifdef __SSE2__
	const __m128i below = _mm_set1_epi8('0' - 1);
	const __m128i above = _mm_set1_epi8('9' + 1);

	/* Signed compares: bytes from 0x80 on are below '0'. */
	for (k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));

		m |= (uint64_t)(~(unsigned)_mm_movemask_epi8(_mm_and_si128(
		    _mm_cmpgt_epi8(v, below), _mm_cmplt_epi8(v, above))) &
		    0xffff) << 16 * k;
	}
#else
	for (k = 0; k < 8; k++) {
		uint64_t v;

		memcpy(&v, p + 8 * k, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		v = __builtin_bswap64(v);	/* the first byte lowest */
#endif
		/* Digits become 0 to 9; 0x80 marks the bytes above 9,
		 * without a carry from one byte to the next. */
		v ^= ONES * '0';
		m |= GATHER((((v & ~HIGH) + ONES * 0x76) | v) & HIGH) << 8 * k;
	}
#endif
	return m;
}

/*
 * Checks a quorum timestamp as trace_parse_qt() would read it, in one
 * pass over a mask of its non-digits and without converting: the number
 * of pairs, or -1.  Most lines of a lease trace carry one, and reading
 * them cost more than the rest.  The D digits before each non-digit C
 * (-1 at the end) are an id (1 to 65535, no leading zero), the seconds
 * of a time (at most 9000000000) or its fraction (at most 9 digits).
 */
static int
qt_check(const char *s, size_t n, int slack)
{
	enum { ID, SEC, FRAC } part = ID;
	size_t base, start = 0, pos, d;
	int pairs = 0, c;

	for (base = 0; base <= n; base += 64) {
		char pad[64];
		uint64_t m;

		if (n - base >= 64)
			m = nondigits64(s + base);
		else if (slack)
			m = (nondigits64(s + base) & ((UINT64_C(1) <<
			    (n - base)) - 1)) | UINT64_C(1) << (n - base);
		else {
			memset(pad, ',', sizeof(pad));
			memcpy(pad, s + base, n - base);
			m = (nondigits64(pad) & ((UINT64_C(1) << (n - base)) -
			    1)) | UINT64_C(1) << (n - base);
		}
		for (; m != 0; m &= m - 1) {
			pos = base + (size_t)__builtin_ctzll(m);
			d = pos - start;
			c = pos < n ? (unsigned char)s[pos] : -1;
			if (d == 0)
				return -1;
			switch (part) {
			case ID:
				if (d > 5 || s[start] == '0' || c != ':' ||
				    (d == 5 && memcmp(s + start, "65535", 5) > 0))
					return -1;
				part = SEC;
				break;
			case SEC:
				if (d > 10 || (d == 10 && memcmp(s + start,
				    "9000000000", 10) > 0))
					return -1;
				part = c == '.' ? FRAC : ID;
				break;
			case FRAC:
				if (d > 9)
					return -1;
				part = ID;
				break;
			}
			if (part == ID) {
				if (++pairs > TRACE_QT_MAX || (c != ',' &&
				    c != -1))
					return -1;
				if (c == -1)
					return pairs;
			}
			start = pos + 1;
		}
	}
	return -1;
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

enum kind { K_ID, K_ID0, K_U64, K_TIME, K_STR, K_STATUS, K_OP, K_LINK, K_QT,
    K_HEX64, K_NAME };

#define OPS_FD	 (1u << OP_START | 1u << OP_STOP | 1u << OP_DOWN | \
		  1u << OP_PLAYDEAD | 1u << OP_PLAYALIVE)
#define OPS_LEASE (1u << OP_GRANT | 1u << OP_RELEASE)
#define OPS_TASK (1u << OP_START | 1u << OP_STOP)
#define OPS_EPOCH (1u << OP_WEDGE | 1u << OP_LEARN)
#define F(f)	offsetof(struct trace_event, f)
#define K(s)	s, sizeof(s) - 1
/* The lines of one leadership may name it (elect-trace(5), NAMES). */
#define NAME_KEY	{ K("name"), K_NAME, 0, F(name), HAVE_NAME, 0 }

/* The keys of each event: the format page's table, as data. */
struct keyspec {
	char		 key[8];	/* NUL-padded, for same8() */
	size_t		 klen;
	enum kind	 kind;
	int		 required;
	size_t		 off;
	unsigned	 have;	/* HAVE_ bit for optional keys */
	unsigned	 ops;	/* allowed op= values */
};

static const struct keyspec boot_keys[] = {
	{ K("inc"), K_U64, 1, F(inc), 0, 0 },
	{ K("algo"), K_STR, 0, F(algo), HAVE_ALGO, 0 },
	{ K("nodes"), K_ID, 0, F(nodes), HAVE_NODES, 0 },
	{ K("epoch"), K_U64, 0, F(epoch), HAVE_EPOCH, 0 },
};
static const struct keyspec exit_keys[] = {
	{ K("why"), K_STR, 1, F(why), HAVE_WHY, 0 },
};
static const struct keyspec state_keys[] = {
	{ K("status"), K_STATUS, 1, F(status), 0, 0 },
	{ K("ldr"), K_ID0, 1, F(ldr), 0, 0 },
	{ K("grp"), K_STR, 1, F(grp), 0, 0 },
	NAME_KEY,
};
static const struct keyspec send_keys[] = {
	{ K("to"), K_ID, 1, F(to), 0, 0 },
	{ K("msg"), K_STR, 1, F(msg), 0, 0 },
	{ K("elid"), K_STR, 0, F(elid), HAVE_ELID, 0 },
	{ K("bytes"), K_U64, 0, F(bytes), HAVE_BYTES, 0 },
	NAME_KEY,
};
static const struct keyspec recv_keys[] = {
	{ K("from"), K_ID, 1, F(from), 0, 0 },
	{ K("msg"), K_STR, 1, F(msg), 0, 0 },
	{ K("elid"), K_STR, 0, F(elid), HAVE_ELID, 0 },
	NAME_KEY,
};
static const struct keyspec drop_keys[] = {
	{ K("from"), K_ID0, 1, F(from), 0, 0 },
	{ K("why"), K_STR, 1, F(why), HAVE_WHY, 0 },
	NAME_KEY,
};
static const struct keyspec fd_keys[] = {
	{ K("op"), K_OP, 1, F(op), 0, OPS_FD },
	{ K("peer"), K_ID, 1, F(peer), 0, 0 },
};
static const struct keyspec lease_keys[] = {
	{ K("op"), K_OP, 1, F(op), 0, OPS_LEASE },
	{ K("to"), K_ID, 1, F(to), 0, 0 },
	{ K("until"), K_TIME, 0, F(until), HAVE_UNTIL, 0 },
	{ K("clock"), K_TIME, 1, F(clock), 0, 0 },
	{ K("epoch"), K_U64, 0, F(epoch), HAVE_EPOCH, 0 },
	NAME_KEY,
};
static const struct keyspec lead_keys[] = {
	{ K("until"), K_TIME, 1, F(until), HAVE_UNTIL, 0 },
	{ K("clock"), K_TIME, 1, F(clock), 0, 0 },
	{ K("qt"), K_QT, 0, F(qt), HAVE_QT, 0 },
	{ K("epoch"), K_U64, 0, F(epoch), HAVE_EPOCH, 0 },
	{ K("qd"), K_HEX64, 0, F(qd), HAVE_QD, 0 },
	NAME_KEY,
};
/* Edicts and deliveries carry qt= or qd=, one of them (below). */
static const struct keyspec edict_keys[] = {
	{ K("seq"), K_U64, 1, F(seq), 0, 0 },
	{ K("qt"), K_QT, 0, F(qt), HAVE_QT, 0 },
	{ K("clock"), K_TIME, 1, F(clock), 0, 0 },
	{ K("epoch"), K_U64, 0, F(epoch), HAVE_EPOCH, 0 },
	{ K("qd"), K_HEX64, 0, F(qd), HAVE_QD, 0 },
	NAME_KEY,
};
static const struct keyspec deliver_keys[] = {
	{ K("from"), K_ID, 1, F(from), 0, 0 },
	{ K("seq"), K_U64, 1, F(seq), 0, 0 },
	{ K("qt"), K_QT, 0, F(qt), HAVE_QT, 0 },
	{ K("epoch"), K_U64, 0, F(epoch), HAVE_EPOCH, 0 },
	{ K("qd"), K_HEX64, 0, F(qd), HAVE_QD, 0 },
	NAME_KEY,
};
static const struct keyspec clock_keys[] = {
	{ K("c"), K_TIME, 1, F(clock), 0, 0 },
};
static const struct keyspec net_keys[] = {
	{ K("a"), K_ID, 1, F(a), 0, 0 },
	{ K("b"), K_ID, 1, F(b), 0, 0 },
	{ K("link"), K_LINK, 1, F(link), 0, 0 },
};
static const struct keyspec task_keys[] = {
	{ K("op"), K_OP, 1, F(op), 0, OPS_TASK },
	{ K("pid"), K_U64, 1, F(pid), 0, 0 },
	{ K("token"), K_STR, 0, F(token), HAVE_TOKEN, 0 },
	{ K("status"), K_STR, 0, F(xstatus), HAVE_XSTATUS, 0 },
	{ K("killed"), K_TIME, 0, F(killed), HAVE_KILLED, 0 },
	NAME_KEY,
};
static const struct keyspec lost_keys[] = {
	{ K("n"), K_U64, 1, F(n), 0, 0 },
};
static const struct keyspec misfit_keys[] = {
	{ K("lead"), K_STR, 1, F(lead), 0, 0 },
	{ K("peers"), K_STR, 1, F(peers), 0, 0 },
};
static const struct keyspec renew_keys[] = {
	{ K("d"), K_U64, 1, F(d), 0, 0 },
	NAME_KEY,
};
static const struct keyspec epoch_keys[] = {
	{ K("op"), K_OP, 1, F(op), 0, OPS_EPOCH },
	{ K("epoch"), K_U64, 1, F(epoch), HAVE_EPOCH, 0 },
	{ K("by"), K_ID, 0, F(by), HAVE_BY, 0 },
	{ K("clock"), K_TIME, 1, F(clock), 0, 0 },
};

#define KEYS(t, a)	[t] = { a, sizeof(a) / sizeof(a[0]) }
static const struct {
	const struct keyspec	*k;
	size_t			 n;
} keys_of[TR_NTYPES] = {
	KEYS(TR_BOOT, boot_keys),
	KEYS(TR_EXIT, exit_keys),
	KEYS(TR_STATE, state_keys),
	KEYS(TR_SEND, send_keys),
	KEYS(TR_RECV, recv_keys),
	KEYS(TR_DROP, drop_keys),
	KEYS(TR_FD, fd_keys),
	KEYS(TR_LEASE, lease_keys),
	KEYS(TR_LEAD, lead_keys),
	KEYS(TR_EDICT, edict_keys),
	KEYS(TR_DELIVER, deliver_keys),
	KEYS(TR_CLOCK, clock_keys),
	KEYS(TR_NET, net_keys),
	KEYS(TR_TASK, task_keys),
	KEYS(TR_LOST, lost_keys),
	KEYS(TR_EPOCH, epoch_keys),
	KEYS(TR_MISFIT, misfit_keys),
	KEYS(TR_RENEW, renew_keys),
};

static int
lookup(struct trace_str w, const char *const *names, int n)
{
	int i;

	if (w.n == 0)
		return -1;
	for (i = 0; i < n; i++)
		if (trace_str_eq(w, names[i]))
			return i;
	return -1;
}

int
trace_parse_hex64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n != 16)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			v = v << 4 | (uint64_t)(s[i] - '0');
		else if (s[i] >= 'a' && s[i] <= 'f')
			v = v << 4 | (uint64_t)(s[i] - 'a' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* Whether V is a well-formed quorum timestamp, asking MEMO first. */
static int
qt_valid(struct trace_str v, struct trace_memo *memo, int slack)
{
	if (memo == NULL)
		return qt_check(v.p, v.n, slack) != -1;
	if (v.n > 0 && memo->qtn == v.n && memcmp(memo->qt, v.p, v.n) == 0)
		return 1;
	if (qt_check(v.p, v.n, slack) == -1)
		return 0;
	if (v.n <= sizeof(memo->qt)) {
		memcpy(memo->qt, v.p, v.n);
		memo->qtn = v.n;
	}
	return 1;
}

static const char *
decode(const struct keyspec *ks, struct trace_str v, struct trace_event *ev,
    struct trace_memo *memo, int slack, char *why, size_t whylen)
{
	static const char *const ops[] = { "", "start", "stop", "down",
	    "playdead", "playalive", "grant", "release", "wedge", "learn" };
	static const char *const links[] = { "up", "down", "flaky" };
	void *f = (char *)ev + ks->off;
	int i;

	switch (ks->kind) {
	case K_ID:
	case K_ID0:
		if (parse_id(v.p, v.n, f) == -1 ||
		    (ks->kind == K_ID && *(unsigned *)f == 0))
			goto bad;
		break;
	case K_U64:
		if ((slack ? parse_u64_slack(v.p, v.n, f) :
		    parse_u64(v.p, v.n, UINT64_MAX, f)) == -1)
			goto bad;
		break;
	case K_TIME:
		if (trace_parse_time(v.p, v.n, f) == -1)
			goto bad;
		break;
	case K_QT:
		if (!qt_valid(v, memo, slack))
			goto bad;
		/* FALLTHROUGH */
	case K_STR:
		*(struct trace_str *)f = v;
		break;
	case K_HEX64:
		if (trace_parse_hex64(v.p, v.n, f) == -1)
			goto bad;
		break;
	case K_NAME:
		/* A round's renewal of every name at once (elect-trace(5),
		 * Names): no name of its own. */
		if (v.n == 1 && v.p[0] == '*') {
			if (ev->type != TR_RENEW) {
				snprintf(why, whylen, "%s: name=* only goes "
				    "with renew", type_names[ev->type]);
				return why;
			}
			ev->have |= HAVE_ALLNAMES;
			return NULL;
		}
		if (!trace_name_ok(v.p, v.n)) {
			snprintf(why, whylen, "bad name \"%.*s\": 1 to %d "
			    "bytes of A-Z a-z 0-9 . _ -", (int)(v.n > 80 ? 80 :
			    v.n), v.p, TRACE_NAME_LEN);
			return why;
		}
		*(struct trace_str *)f = v;
		break;
	case K_STATUS:
		if ((i = lookup(v, status_names, ST_NSTATUS)) == -1)
			goto bad;
		*(enum trace_status *)f = (enum trace_status)i;
		break;
	case K_OP:
		if ((i = lookup(v, ops, 10)) <= 0 || !(ks->ops & 1u << i))
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

#ifndef __SSE2__
/* 0x80 in each byte of X that is zero, 0 in the others (no carries). */
static uint64_t
zero_bytes(uint64_t x)
{
	return ~(((x & ~HIGH) + ~HIGH) | x | ~HIGH);
}
#endif

/*
 * Bit i set: byte i of the 64 at P is a blank (space or tab); in *NUL,
 * the same for NUL bytes, and in *NL (unless NULL) for newlines.
 */
static inline __attribute__((always_inline)) uint64_t
blanks64(const char *p, uint64_t *nul, uint64_t *nl)
{
	uint64_t m = 0, z = 0, e = 0;
	int k;
#ifdef __SSE2__
	const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
	const __m128i zero = _mm_setzero_si128(), lf = _mm_set1_epi8('\n');

	for (k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));

		m |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab))) << 16 * k;
		z |= (uint64_t)(unsigned)_mm_movemask_epi8(
		    _mm_cmpeq_epi8(v, zero)) << 16 * k;
		if (nl != NULL)
			e |= (uint64_t)(unsigned)_mm_movemask_epi8(
			    _mm_cmpeq_epi8(v, lf)) << 16 * k;
	}
#else
	for (k = 0; k < 8; k++) {
		uint64_t v;

		memcpy(&v, p + 8 * k, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		v = __builtin_bswap64(v);	/* the first byte lowest */
#endif
		m |= GATHER(zero_bytes(v ^ (ONES * ' ')) |
		    zero_bytes(v ^ (ONES * '\t'))) << 8 * k;
		z |= GATHER(zero_bytes(v)) << 8 * k;
		if (nl != NULL)
			e |= GATHER(zero_bytes(v ^ (ONES * '\n'))) << 8 * k;
	}
#endif
	*nul = z;
	if (nl != NULL)
		*nl = e;
	return m;
}

/* The word of LINE from *START to END, if not empty, into W; the next
 * starts after END.  -1: one word too many. */
static inline __attribute__((always_inline)) int
word(const char *line, size_t *start, size_t end, struct trace_str *w,
    size_t *n)
{
	if (end > *start) {
		if (*n == TRACE_KV_MAX + 3)
			return -1;
		w[*n].p = line + *start;
		w[(*n)++].n = end - *start;
	}
	*start = end + 1;
	return 0;
}

/*
 * Splits the line into words; TIME NODE EVENT come first.  The blanks of
 * 64 bytes at a time become one mask, walked a blank at a time: a loop
 * over bytes would stumble at the end of every word.
 */
static const char *
split(const char *line, size_t len, int slack, struct trace_str *w,
    size_t *nw)
{
	size_t base, start = 0, n = 0;

	for (base = 0; base < len; base += 64) {
		char pad[64];
		uint64_t m, nul;

		if (len - base >= 64)
			m = blanks64(line + base, &nul, NULL);
		else if (slack) {
			m = blanks64(line + base, &nul, NULL) &
			    ((UINT64_C(1) << (len - base)) - 1);
			nul &= (UINT64_C(1) << (len - base)) - 1;
		} else {
			memset(pad, ' ', sizeof(pad));
			memcpy(pad, line + base, len - base);
			m = blanks64(pad, &nul, NULL) &
			    ((UINT64_C(1) << (len - base)) - 1);
		}
		if (nul != 0)
			return "NUL byte in line";
		for (; m != 0; m &= m - 1)
			if (word(line, &start, base + (size_t)__builtin_ctzll(m),
			    w, &n) == -1)
				return "too many fields";
	}
	if (word(line, &start, len, w, &n) == -1)
		return "too many fields";
	*nw = n;
	return NULL;
}

/*
 * Bit i set: byte i of the 64 at P is a space or below (a blank, a
 * newline, a NUL or another control byte): one test a byte, where
 * telling them apart here would take three.
 */
static inline __attribute__((always_inline)) uint64_t
controls64(const char *p)
{
#ifdef __SSE2__
	const __m128i sp = _mm_set1_epi8(' ');
	__m128i a = _mm_loadu_si128((const __m128i *)p);
	__m128i b = _mm_loadu_si128((const __m128i *)(p + 16));
	__m128i c = _mm_loadu_si128((const __m128i *)(p + 32));
	__m128i d = _mm_loadu_si128((const __m128i *)(p + 48));

	/* min(v, ' ') == v: v is ' ' or below, unsigned. */
	return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
	    _mm_min_epu8(a, sp), a)) |
	    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
	    _mm_min_epu8(b, sp), b)) << 16 |
	    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
	    _mm_min_epu8(c, sp), c)) << 32 |
	    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
	    _mm_min_epu8(d, sp), d)) << 48;
#else
	uint64_t nul, nl, m = blanks64(p, &nul, &nl);

	return m | nul | nl;
#endif
}

/*
 * split() of the line at LINE that ends at the first newline within AVAIL
 * bytes, found in the same pass: *LEN is its length.  TRACE_SLACK bytes
 * past AVAIL may be read.  An error, or "no newline" (*LEN is 0 then).
 * Control bytes other than blanks, newlines and NULs are word bytes.
 */
static const char *
split_scan(const char *line, size_t avail, struct trace_str *w, size_t *nw,
    size_t *len)
{
	size_t base, pos, start = 0, n = 0;
	uint64_t m;

	*len = 0;
	for (base = 0; base < avail; base += 64) {
		m = controls64(line + base);
		if (avail - base < 64)
			m &= (UINT64_C(1) << (avail - base)) - 1;
		for (; m != 0; m &= m - 1) {
			pos = base + (size_t)__builtin_ctzll(m);
			switch (line[pos]) {
			case ' ':
			case '\t':
				if (word(line, &start, pos, w, &n) == -1)
					return "too many fields";
				break;
			case '\n':
				if (word(line, &start, pos, w, &n) == -1)
					return "too many fields";
				*nw = n;
				*len = pos;
				return NULL;
			case '\0':
				return "NUL byte in line";
			default:
				break;
			}
		}
	}
	return "no newline";
}

const char trace_skip[] = "unknown event skipped";

/* Whether word W is KS's key and '='; with SLACK, 8 bytes may be read at
 * W.P. */
static inline __attribute__((always_inline)) int
key_at(const struct keyspec *ks, struct trace_str w, int slack)
{
	if (ks->klen >= w.n || w.p[ks->klen] != '=')
		return 0;
	if (slack || w.n >= 8)
		return same8(ks->key, w.p, ks->klen);
	return same(ks->key, w.p, ks->klen);
}

static const char *
dup(const char *key, size_t n, char *why, size_t whylen)
{
	snprintf(why, whylen, "key %.*s given twice", (int)(n > 40 ? 40 : n),
	    key);
	return why;
}

/* The event's word: only the names with its first letter are tried, the
 * most frequent in traces first. */
static int
event_type(struct trace_str w, int slack)
{
#define T(t)	((t) + 1)	/* 0 ends a row */
	static const unsigned char by_letter[26][4] = {
		['b' - 'a'] = { T(TR_BOOT) },
		['c' - 'a'] = { T(TR_CRASH), T(TR_CLOCK) },
		['d' - 'a'] = { T(TR_DROP), T(TR_DELIVER) },
		['e' - 'a'] = { T(TR_EXIT), T(TR_EDICT), T(TR_EPOCH) },
		['f' - 'a'] = { T(TR_FD) },
		['l' - 'a'] = { T(TR_LEASE), T(TR_LEAD), T(TR_LOST) },
		['m' - 'a'] = { T(TR_MISFIT) },
		['n' - 'a'] = { T(TR_NET) },
		['p' - 'a'] = { T(TR_PAUSE) },
		['q' - 'a'] = { T(TR_QUIET) },
		['r' - 'a'] = { T(TR_RENEW), T(TR_RECV), T(TR_RESUME) },
		['s' - 'a'] = { T(TR_SEND), T(TR_STATE) },
		['t' - 'a'] = { T(TR_TASK) },
	};
#undef T
	/* The lengths of type_names[]. */
	static const unsigned char len[TR_NTYPES] = { 4, 5, 4, 5, 6, 5, 4, 4,
	    4, 2, 5, 4, 5, 7, 5, 3, 4, 4, 5, 5, 6, 5 };
	const unsigned char *c;

	if (w.p[0] < 'a' || w.p[0] > 'z')
		return -1;
	for (c = by_letter[w.p[0] - 'a']; *c != 0; c++)
		if (w.n == len[*c - 1] && (slack ?
		    same8(w.p, type_names[*c - 1], w.n) :
		    same(w.p, type_names[*c - 1], w.n)))
			return *c - 1;
	return -1;
}

const char *
trace_parse_line(const char *line, size_t len, struct trace_event *ev,
    int flags, char *why, size_t whylen)
{
	return trace_parse_memo(line, len, ev, flags, why, whylen, NULL, 0);
}

/*
 * The to= of a renew name=*, a grantor's: a node id, taken strictly.  Not
 * a key of renew's table: on any other renew line it stays a key readers
 * do not know, as it was before name=* existed.
 */
static const char *
renew_to(struct trace_event *ev, char *why, size_t whylen)
{
	const struct trace_str *v = trace_get(ev, "to");

	if (v == NULL)
		return NULL;
	if (parse_id(v->p, v->n, &ev->to) == -1 || ev->to == 0) {
		snprintf(why, whylen, "bad value for to: \"%.*s\"",
		    (int)(v->n > 40 ? 40 : v->n), v->p);
		return why;
	}
	ev->have |= HAVE_TO;
	return NULL;
}

/* The event of LINE, split into the words W. */
static const char *
parse_words(const char *line, size_t len, const struct trace_str *w,
    size_t nw, struct trace_event *ev, int flags, char *why, size_t whylen,
    struct trace_memo *memo, int slack)
{
	const struct keyspec *ks, *specs;
	const char *err, *dot;
	int64_t frac;
	size_t i, nspecs;
	uint64_t others = 0, bit;
	unsigned seen = 0;
	int t;

	ev->have = 0;
	ev->epoch = 0;
	ev->name.n = 0;
	ev->nkv = 0;
	ev->line.p = line;
	ev->line.n = len;
	if (nw < 3)
		return "expected TIME NODE EVENT";
	if (memo != NULL && slack && memo->sn > 0 && w[0].n > memo->sn &&
	    same16(w[0].p, memo->sw, memo->sn)) {
		if (parse_frac(w[0].p + memo->sn, w[0].n - memo->sn, &frac) ==
		    -1)
			return "bad time";
		ev->t = memo->sec + frac;
	} else if (parse_time(w[0].p, w[0].n, &ev->t) == -1)
		return "bad time";
	else if (memo != NULL && slack && (dot = memchr(w[0].p, '.',
	    w[0].n < 11 ? w[0].n : 11)) != NULL) {
		memcpy(memo->sw, w[0].p, sizeof(memo->sw));
		memo->sn = (size_t)(dot - w[0].p) + 1;
		memo->sec = ev->t - ev->t % TRACE_NS;
	}
	if (parse_id(w[1].p, w[1].n, &ev->node) == -1)
		return "bad node id";
	if ((t = event_type(w[2], slack)) == -1) {
		snprintf(why, whylen, "unknown event \"%.*s\"",
		    (int)(w[2].n > 40 ? 40 : w[2].n), w[2].p);
		return (flags & TRACE_LENIENT) ? TRACE_SKIP : why;
	}
	ev->type = (enum trace_type)t;
	if (ev->node == 0 && ev->type != TR_NET && ev->type != TR_LOST &&
	    ev->type != TR_CLOCK && ev->type != TR_QUIET)
		return "node \"-\" only goes with net, clock, lost or quiet";
	if (ev->type == TR_NET && ev->node != 0)
		return "net lines belong to node \"-\"";
	specs = keys_of[ev->type].k;
	nspecs = keys_of[ev->type].n;
	for (i = 3; i < nw; i++) {
		struct trace_kv *kv = &ev->kv[ev->nkv++];
		const char *p = w[i].p, *eq = p, *end = p + w[i].n;
		size_t j;

		/*
		 * A key of the event: its '=' is where its length says.
		 * Writers mostly keep the table's order: try that first.
		 */
		j = i - 3;
		if (j >= nspecs || !key_at(&specs[j], w[i], slack))
			for (j = 0; j < nspecs && !key_at(&specs[j], w[i],
			    slack); j++)
				;
		if (j < nspecs) {
			ks = &specs[j];
			if (seen & 1u << j)
				return dup(ks->key, ks->klen, why, whylen);
			seen |= 1u << j;
			kv->k.p = p;
			kv->k.n = ks->klen;
			kv->v.p = p + ks->klen + 1;
			kv->v.n = w[i].n - ks->klen - 1;
			if ((err = decode(ks, kv->v, ev, memo, slack, why,
			    whylen)) != NULL)
				return err;
			continue;
		}
		while (eq < end && *eq != '=')
			eq++;
		if (eq == end || eq == p)
			return "expected KEY=VALUE";
		kv->k.p = p;
		kv->k.n = (size_t)(eq - p);
		kv->v.p = eq + 1;
		kv->v.n = (size_t)(end - eq - 1);
		if (kv->k.n == 4 && same(p, "name", 4)) {
			snprintf(why, whylen, "%s: name= only goes with the "
			    "lines of a leadership", type_names[ev->type]);
			return why;
		}
		/* Only the event's keys are in SEEN: the others are told
		 * apart by a bit of their first byte and length first. */
		bit = UINT64_C(1) << ((unsigned char)p[0] * 7 + kv->k.n) % 64;
		if (others & bit) {
			for (j = 0; j + 1 < ev->nkv; j++)
				if (ev->kv[j].k.n == kv->k.n &&
				    same(ev->kv[j].k.p, kv->k.p, kv->k.n))
					return dup(kv->k.p, kv->k.n, why,
					    whylen);
		}
		others |= bit;
	}
	for (i = 0; i < nspecs; i++) {
		if (specs[i].required && !(seen & 1u << i)) {
			snprintf(why, whylen, "%s: missing key %s=",
			    type_names[ev->type], specs[i].key);
			return why;
		}
	}
	if (ev->type == TR_LEASE && ev->op == OP_GRANT &&
	    !(ev->have & HAVE_UNTIL))
		return "lease: missing key until= for op=grant";
	if ((ev->have & HAVE_QT) && (ev->have & HAVE_QD)) {
		snprintf(why, whylen, "%s: qt= and qd= together",
		    type_names[ev->type]);
		return why;
	}
	if ((ev->type == TR_EDICT || ev->type == TR_DELIVER) &&
	    !(ev->have & (HAVE_QT | HAVE_QD))) {
		snprintf(why, whylen, "%s: missing key qt= (or qd=)",
		    type_names[ev->type]);
		return why;
	}
	if (ev->type == TR_RENEW && (ev->d == 0 ||
	    ev->d > (uint64_t)TRACE_RENEW_MAX))
		return "renew: d= must be 1 to 1000000000000000";
	if ((ev->have & HAVE_ALLNAMES) && (err = renew_to(ev, why, whylen)) !=
	    NULL)
		return err;
	if (ev->type == TR_NET && ev->a == ev->b)
		return "net: a and b are the same node";
	if (ev->type == TR_MISFIT && !(ev->lead.n == 3 &&
	    memcmp(ev->lead.p, "yes", 3) == 0) && !(ev->lead.n == 2 &&
	    memcmp(ev->lead.p, "no", 2) == 0))
		return "misfit: lead= must be yes or no";
	return NULL;
}

const char *
trace_parse_memo(const char *line, size_t len, struct trace_event *ev,
    int flags, char *why, size_t whylen, struct trace_memo *memo, int slack)
{
	struct trace_str w[TRACE_KV_MAX + 3];
	const char *err;
	size_t nw;

	ev->have = 0;
	ev->nkv = 0;
	ev->line.p = line;
	ev->line.n = len;
	if ((err = split(line, len, slack, w, &nw)) != NULL)
		return err;
	return parse_words(line, len, w, nw, ev, flags, why, whylen, memo,
	    slack);
}

const char *
trace_parse_scan(const char *buf, size_t avail, size_t *len,
    struct trace_event *ev, int flags, char *why, size_t whylen,
    struct trace_memo *memo)
{
	struct trace_str w[TRACE_KV_MAX + 3];
	const char *err;
	size_t nw;

	if ((err = split_scan(buf, avail, w, &nw, len)) != NULL)
		return err;
	return parse_words(buf, *len, w, nw, ev, flags, why, whylen, memo, 1);
}
