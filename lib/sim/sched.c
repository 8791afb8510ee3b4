/* The events of a simulated run's schedule: parsed strictly, written
 * back the same way. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/session.h"
#include "sim/sched.h"
#include "util/util.h"
#include "trace/trace.h"

static const struct {
	const char	*name;
	int		 nargs;
} opv[S_NOPS] = {
	[S_CRASH] = { "crash", 1 }, [S_BOOT] = { "boot", 1 },
	[S_LEAVE] = { "leave", 1 }, [S_PAUSE] = { "pause", 1 },
	[S_RESUME] = { "resume", 1 }, [S_CUT] = { "cut", 2 },
	[S_MEND] = { "mend", 2 }, [S_PARTITION] = { "partition", 1 },
	[S_ONEWAY] = { "oneway", 1 }, [S_HEAL] = { "heal", 0 },
	[S_RELEASE] = { "release", 1 }, [S_EDICT] = { "edict", 2 },
	[S_RECONFIGURE] = { "reconfigure", 1 }, [S_KILL] = { "kill", 1 },
	[S_MISCONF] = { "misconf", 2 },
};

const char *
sched_op_name(enum sched_op op)
{
	return op < S_NOPS ? opv[op].name : "?";
}

static int __attribute__((format(printf, 3, 4)))
fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* misconf's second argument: what differs, or ok. */
static int
misfit_of(const char *p, size_t len, size_t *out, char *why, size_t whylen)
{
	enum sess_misfit f;

	_Static_assert(SCHED_MISCONF_ADDR > SESS_KEY, "apart from misfits");
	if (len == 2 && memcmp(p, "ok", 2) == 0) {
		*out = SESS_OK;
		return 0;
	}
	if (len == 5 && memcmp(p, "stale", 5) == 0) {
		*out = SCHED_STALE;
		return 0;
	}
	if (len == 4 && memcmp(p, "addr", 4) == 0) {
		*out = SCHED_MISCONF_ADDR;
		return 0;
	}
	for (f = SESS_ALGO; f <= SESS_KEY; f++)
		if (strlen(sess_misfit_name(f)) == len &&
		    memcmp(sess_misfit_name(f), p, len) == 0) {
			*out = f;
			return 0;
		}
	return fail(why, whylen, "misconf: expected ok, algo, timing, cluster, "
	    "key, addr or stale, not \"%.*s\"", (int)(len > 20 ? 20 : len), p);
}

const char *
sched_misconf_name(size_t what)
{
	if (what == SCHED_STALE)
		return "stale";
	return what == SESS_OK ? "ok" : what == SCHED_MISCONF_ADDR ? "addr" :
	    sess_misfit_name((enum sess_misfit)what);
}

/* A node id of the cluster, as its index; -1 if it is not one. */
static int
node_index(const char *p, size_t len, const uint16_t *ids, size_t n,
    size_t *out, char *why, size_t whylen)
{
	unsigned id;
	size_t i;

	if (trace_parse_id(p, len, &id) == -1 || id == 0)
		return fail(why, whylen, "bad node id \"%.*s\"",
		    (int)(len > 20 ? 20 : len), p);
	for (i = 0; i < n; i++)
		if (ids[i] == id) {
			*out = i;
			return 0;
		}
	return fail(why, whylen, "node %u is not in the cluster", id);
}

/* "L/R" or "L/R/B", comma lists of ids, into a byte per node index. */
static int
sides(const char *p, size_t len, const uint16_t *ids, size_t n,
    uint8_t **out, char *why, size_t whylen)
{
	static const uint8_t which[3] = { SIDE_L, SIDE_R, SIDE_B };
	uint8_t *side, seen[3] = { 0, 0, 0 };
	size_t k = 0, w, i, nl = 0, nr = 0;

	if ((side = calloc(n, 1)) == NULL)
		return fail(why, whylen, "out of memory");
	/* Who is named where: a second byte per node would double the
	 * memory, so a node named twice is caught by a first pass. */
	uint8_t *named = calloc(n, 1);
	if (named == NULL) {
		free(side);
		return fail(why, whylen, "out of memory");
	}
	while (k <= len) {
		for (w = 0; k + w < len && p[k + w] != ',' &&
		    p[k + w] != '/'; w++)
			;
		if (w == 0)
			goto bad;
		if (node_index(p + k, w, ids, n, &i, why, whylen) == -1)
			goto out;
		if (named[i]) {
			fail(why, whylen, "partition: node %u named twice",
			    ids[i]);
			goto out;
		}
		named[i] = 1;
		side[i] = which[nl];
		seen[nl] = 1;
		k += w;
		if (k == len)
			break;
		if (p[k] == '/' && ++nl == 3)
			goto bad;
		k++;
	}
	if (nl == 0 || !seen[0])
		goto bad;
	for (i = 0; i < n; i++)
		nr += side[i] == SIDE_R;
	if (nr == 0) {
		fail(why, whylen, "partition: side R is empty");
		goto out;
	}
	free(named);
	*out = side;
	return 0;
bad:
	fail(why, whylen, "partition: expected L,.../R,...[/B,...]");
out:
	free(named);
	free(side);
	return -1;
}

int
sched_members(const char *p, size_t len, const uint16_t *ids, size_t n,
    uint8_t **out, char *why, size_t whylen)
{
	uint8_t *in;
	size_t k = 0, w, i;

	if ((in = calloc(n, 1)) == NULL)
		return fail(why, whylen, "out of memory");
	for (;;) {
		for (w = 0; k + w < len && p[k + w] != ','; w++)
			;
		if (w == 0) {
			fail(why, whylen, "expected ID,ID,...");
			goto bad;
		}
		if (node_index(p + k, w, ids, n, &i, why, whylen) == -1)
			goto bad;
		if (in[i]) {
			fail(why, whylen, "node %u named twice", ids[i]);
			goto bad;
		}
		in[i] = 1;
		k += w;
		if (k == len)
			break;
		k++;
	}
	*out = in;
	return 0;
bad:
	free(in);
	return -1;
}

int
sched_parse(const char *s, size_t len, const uint16_t *ids, size_t n,
    struct sched *out, char *why, size_t whylen)
{
	const char *f[4];
	size_t fl[4], nf = 0, k = 0, w;
	struct sched sc;
	unsigned op;

	memset(&sc, 0, sizeof(sc));
	if (len > SCHED_LINE_MAX)
		return fail(why, whylen, "event longer than %d bytes",
		    SCHED_LINE_MAX);
	if (memchr(s, '\0', len) != NULL)
		return fail(why, whylen, "NUL in event");
	while (k < len) {
		if (s[k] == ' ' || s[k] == '\t') {
			k++;
			continue;
		}
		if (nf == nitems(f))
			return fail(why, whylen, "too many fields");
		for (w = 0; k + w < len && s[k + w] != ' ' &&
		    s[k + w] != '\t'; w++)
			;
		f[nf] = s + k;
		fl[nf++] = w;
		k += w;
	}
	if (nf < 2)
		return fail(why, whylen, "expected 'SECONDS EVENT ARGS'");
	if (trace_parse_time(f[0], fl[0], &sc.at) == -1 || sc.at < 0)
		return fail(why, whylen, "bad time \"%.*s\"",
		    (int)(fl[0] > 20 ? 20 : fl[0]), f[0]);
	for (op = 0; op < S_NOPS; op++)
		if (strlen(opv[op].name) == fl[1] &&
		    memcmp(opv[op].name, f[1], fl[1]) == 0)
			break;
	if (op == S_NOPS)
		return fail(why, whylen, "unknown event %.*s",
		    (int)(fl[1] > 20 ? 20 : fl[1]), f[1]);
	if ((int)nf - 2 != opv[op].nargs)
		return fail(why, whylen, "%s takes %d argument%s",
		    opv[op].name, opv[op].nargs, opv[op].nargs == 1 ? "" : "s");
	sc.op = op;
	switch (sc.op) {
	case S_PARTITION:
	case S_ONEWAY:
		if (sides(f[2], fl[2], ids, n, &sc.side, why, whylen) == -1)
			return -1;
		break;
	case S_RECONFIGURE:
		if (sched_members(f[2], fl[2], ids, n, &sc.side, why,
		    whylen) == -1)
			return -1;
		break;
	case S_EDICT:
		if (node_index(f[2], fl[2], ids, n, &sc.a, why, whylen) == -1)
			return -1;
		if (fl[3] >= sizeof(sc.text))
			return fail(why, whylen, "edict text longer than %d "
			    "bytes", ALGO_CMD_MAX);
		memcpy(sc.text, f[3], fl[3]);
		break;
	case S_MISCONF:
		if (misfit_of(f[3], fl[3], &sc.b, why, whylen) == -1)
			return -1;
		if (node_index(f[2], fl[2], ids, n, &sc.a, why, whylen) == -1)
			return -1;
		break;
	case S_CUT:
	case S_MEND:
		if (node_index(f[3], fl[3], ids, n, &sc.b, why, whylen) == -1)
			return -1;
		/* FALLTHROUGH */
	default:
		if (nf > 2 && node_index(f[2], fl[2], ids, n, &sc.a, why,
		    whylen) == -1)
			return -1;
		break;
	}
	*out = sc;
	return 0;
}

/* Appends to BUF as snprintf would, keeping the total. */
static void __attribute__((format(printf, 4, 5)))
put(char *buf, size_t len, int *tot, const char *fmt, ...)
{
	size_t at = *tot < 0 ? len : (size_t)*tot;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
	    fmt, ap);
	va_end(ap);
	*tot = r < 0 ? -1 : *tot + r;
}

int
sched_format(const struct sched *s, const uint16_t *ids, size_t n,
    char *buf, size_t len)
{
	static const uint8_t order[3] = { SIDE_L, SIDE_R, SIDE_B };
	char t[32];
	size_t i, g;
	int tot = 0, any, sep;

	if (len > 0)
		buf[0] = '\0';
	trace_format_time(s->at, t, sizeof(t));
	put(buf, len, &tot, "%s %s", t, sched_op_name(s->op));
	switch (s->op) {
	case S_PARTITION:
	case S_ONEWAY:
		put(buf, len, &tot, " ");
		for (g = 0; g < 3; g++) {
			for (i = any = 0; i < n; i++)
				any |= s->side[i] == order[g];
			if (g == 2 && !any)
				break;
			if (g > 0)
				put(buf, len, &tot, "/");
			for (i = sep = 0; i < n; i++)
				if (s->side[i] == order[g]) {
					put(buf, len, &tot, "%s%u",
					    sep ? "," : "", ids[i]);
					sep = 1;
				}
		}
		break;
	case S_RECONFIGURE:
		for (i = sep = 0; i < n; i++)
			if (s->side[i]) {
				put(buf, len, &tot, "%c%u", sep ? ',' : ' ',
				    ids[i]);
				sep = 1;
			}
		break;
	case S_EDICT:
		put(buf, len, &tot, " %u %s", ids[s->a], s->text);
		break;
	case S_CUT:
	case S_MEND:
		put(buf, len, &tot, " %u %u", ids[s->a], ids[s->b]);
		break;
	case S_HEAL:
		break;
	case S_MISCONF:
		put(buf, len, &tot, " %u %s", ids[s->a],
		    sched_misconf_name(s->b));
		break;
	default:
		put(buf, len, &tot, " %u", ids[s->a]);
		break;
	}
	return tot;
}

int
sched_names(const struct sched *s, size_t i)
{
	switch (s->op) {
	case S_PARTITION:
	case S_ONEWAY:
		return s->side[i] != SIDE_R;
	case S_RECONFIGURE:
		return s->side[i] != 0;
	case S_HEAL:
		return 0;
	case S_CUT:
	case S_MEND:
		return s->a == i || s->b == i;
	default:
		return s->a == i;
	}
}

void
sched_free(struct sched *s)
{
	free(s->side);
	s->side = NULL;
}
