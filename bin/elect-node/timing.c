/*
 * Timing flags: one table gives each its name, meaning and place, so that
 * --help, parsing and the manual agree.  The defaults (the detector's
 * below, the cores' from algo_timing_default()) fail over well under a
 * second on a LAN.
 */
#include <err.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "elect-node.h"
#include "util/util.h"

#define FD_INTERVAL_DEF	(20 * ALGO_MS)
/* Murshed and Allen's t_TX bounds delivery (their waits and our Update
 * rely on it): a busy host may keep a runnable process waiting some
 * 12 ms, and 2 ms, the cores' LAN figure, was seen broken at boot. */
#define T_TX_DEF	(15 * ALGO_MS)
#define FD_TIMEOUT_DEF	(100 * ALGO_MS)
#define DURATION_MAX	(3600 * 1000 * ALGO_MS)

#define A(f)	offsetof(struct node_timing, a.f)
#define N(f)	offsetof(struct node_timing, f)

static const struct {
	const char	*name;
	size_t		 off;
	const char	*help;
} defs[TM_N] = {
	{ "fd-interval", N(fd_interval),
	    "heartbeat interval of the failure detector" },
	{ "fd-timeout", N(fd_timeout),
	    "silence after which the detector reports a peer down" },
	{ "reply", A(reply), "T: an unanswered call fails after this" },
	{ "check", A(check), "period of procedure Check" },
	{ "timeout", A(timeout), "silence from the coordinator before Timeout" },
	{ "tau", A(tau), "tau: a Norm leader sends Norm? this often" },
	{ "ttx", A(t_tx), "t_TX: the most a message takes between nodes" },
	{ "alpha", A(alpha), "alpha of the tiebreaker time delta_i" },
	{ "tel", A(t_el), "T_el (0: 3 t_TX + delta_i)" },
	{ "tok", A(t_ok), "T_ok (0: 2 t_TX + delta_i)" },
	{ "merge-wait", A(merge_wait), "wait per rank before Merge (0: twice --reply)" },
	{ "accept-wait", A(accept_wait), "wait for Accept messages" },
	{ "lease", A(lease), "lease: delta, the real time a grant covers" },
	{ "renew", A(renew), "lease: a leader renews this often" },
	{ "rtt", A(rtt), "lease: d, a round trip nearly always takes less" },
	{ "skew", A(skew), "lease: clocks agree within this (OQwBS; 0: off)" },
	{ "announce", A(announce), "a Murshed leader repeats its coordinator (0: never)" },
};

static algo_time *
field(struct node_timing *t, int k)
{
	return (algo_time *)((char *)t + defs[k].off);
}

void
timing_defaults(struct node_timing *t)
{
	algo_timing_default(&t->a);
	t->a.t_tx = T_TX_DEF;
	t->fd_interval = FD_INTERVAL_DEF;
	t->fd_timeout = FD_TIMEOUT_DEF;
}

void
timing_longopts(struct option *lo, int first)
{
	int k;

	for (k = 0; k < TM_N; k++) {
		lo[k].name = defs[k].name;
		lo[k].has_arg = required_argument;
		lo[k].flag = NULL;
		lo[k].val = first + k;
	}
}

/*
 * A duration: a number, whole or with a fraction, and an optional unit:
 * ns, us, ms, s, m or h; BARE (ALGO_MS or ALGO_S) without one.  At most
 * MAX, named in seconds in the error.
 */
algo_time
arg_duration_in(const char *s, const char *what, algo_time bare,
    algo_time max)
{
	static const struct {
		const char	*unit;
		algo_time	 ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", ALGO_MS },
		{ "s", ALGO_S }, { "m", 60 * ALGO_S }, { "h", 3600 * ALGO_S },
	};
	algo_time unit = bare, whole = 0, frac = 0, scale = 1, v;
	size_t n, f = 0, i;

	n = strspn(s, "0123456789");
	if (s[n] == '.') {
		f = strspn(s + n + 1, "0123456789");
		if (f == 0)
			n = 0;		/* "1." is refused */
	}
	if (s[n + (f ? f + 1 : 0)] != '\0') {
		for (i = 0; i < nitems(units); i++)
			if (strcmp(s + n + (f ? f + 1 : 0), units[i].unit) ==
			    0)
				break;
		unit = i < nitems(units) ? units[i].ns : 0;
	}
	if (n == 0 || unit == 0 || n > 18 || f > 9)
		errx(EXIT_USAGE, "%s: \"%s\" is not a duration (a number, "
		    "then ns, us, ms, s, m or h; %s if none)", what, s,
		    bare == ALGO_S ? "seconds" : "milliseconds");
	for (i = 0; i < n; i++)
		whole = whole * 10 + (s[i] - '0');
	for (i = 0; i < f; i++) {
		frac = frac * 10 + (s[n + 1 + i] - '0');
		scale *= 10;
	}
	if (whole > max / unit)
		goto big;
	v = whole * unit + frac * (unit / scale) +
	    frac * (unit % scale) / scale;
	if (v > max)
		goto big;
	return v;
big:
	errx(EXIT_USAGE, "%s: \"%s\" is too long (at most %llds)", what, s,
	    (long long)(max / ALGO_S));
}

/* A timing or --grace: milliseconds without a unit. */
algo_time
arg_duration(const char *s, const char *what)
{
	return arg_duration_in(s, what, ALGO_MS, DURATION_MAX);
}

int
timing_set(struct node_timing *t, int k, const char *arg)
{
	char what[32];

	if (k < 0 || k >= TM_N)
		return 0;
	snprintf(what, sizeof(what), "--%s", defs[k].name);
	*field(t, k) = arg_duration(arg, what);
	return 1;
}

void
timing_check(const struct node_timing *t)
{
	if (t->fd_interval == 0 || t->fd_timeout <= t->fd_interval)
		errx(EXIT_USAGE, "--fd-timeout must exceed --fd-interval, "
		    "which must not be 0");
}

/* Milliseconds for elect-fd's flags, which take whole milliseconds. */
long long
timing_ms(algo_time t)
{
	return (t + ALGO_MS - 1) / ALGO_MS;
}

static void
print_duration(FILE *f, algo_time t)
{
	if (t % ALGO_MS == 0)
		fprintf(f, "%lldms", (long long)(t / ALGO_MS));
	else
		fprintf(f, "%lldus", (long long)(t / 1000));
}

/* " name=DURATION" for every timing, for the start line of the log. */
void
timing_format(const struct node_timing *t, char *buf, size_t len)
{
	size_t off = 0;
	algo_time v;
	int k;

	buf[0] = '\0';
	for (k = 0; k < TM_N && off < len; k++) {
		v = *field((struct node_timing *)t, k);
		off += (size_t)snprintf(buf + off, len - off, v % ALGO_MS == 0 ?
		    " %s=%lldms" : " %s=%lldus", defs[k].name, (long long)(v %
		    ALGO_MS == 0 ? v / ALGO_MS : v / 1000));
	}
}

void
timing_usage(FILE *f)
{
	struct node_timing t;
	int k;

	timing_defaults(&t);
	for (k = 0; k < TM_N; k++) {
		fprintf(f, "  --%-12s %s (", defs[k].name, defs[k].help);
		print_duration(f, *field(&t, k));
		fprintf(f, ")\n");
	}
}
