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
#define FD_TIMEOUT_DEF	(100 * ALGO_MS)
/*
 * The lease's, for a daemon on a LAN (Nerio 10.1; elect-node(1), --lease):
 * a crashed leader is replaced when its grants lapse, some lease - renew/2
 * later, and a lease of 30 ms survives two lost or late renewals of 8 ms
 * plus a round trip of 4 ms.  The detector no longer adds to that (a
 * lapse is taken for a failure, lease-watch.c), so its time-out stays
 * long, where a false report of a live peer is rare.
 */
#define LEASE_DEF	(30 * ALGO_MS)
#define RENEW_DEF	(8 * ALGO_MS)
#define RTT_DEF		(4 * ALGO_MS)
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
	{ "ttx", A(t_tx), "t_TX: mean transmission time between nodes" },
	{ "alpha", A(alpha), "alpha of the tiebreaker time delta_i" },
	{ "tel", A(t_el), "T_el (0: 3 t_TX + delta_i)" },
	{ "tok", A(t_ok), "T_ok (0: 2 t_TX + delta_i)" },
	{ "merge-wait", A(merge_wait), "wait per rank before Merge (0: twice --reply)" },
	{ "accept-wait", A(accept_wait), "wait for Accept messages" },
	{ "lease", A(lease), "lease: delta, the real time a grant covers" },
	{ "renew", A(renew), "lease: a leader renews this often" },
	{ "rtt", A(rtt), "lease: d, a round trip nearly always takes less" },
	{ "skew", A(skew), "lease: clocks agree within this (OQwBS; 0: off)" },
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
	t->a.lease = LEASE_DEF;
	t->a.renew = RENEW_DEF;
	t->a.rtt = RTT_DEF;
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
 * A duration: a whole number and an optional unit, ns, us, ms or s;
 * milliseconds without one.
 */
algo_time
arg_duration(const char *s, const char *what)
{
	static const struct {
		const char	*unit;
		algo_time	 ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", ALGO_MS },
		{ "s", 1000 * ALGO_MS }, { "", ALGO_MS },
	};
	char num[32];
	size_t n, i;

	n = strspn(s, "0123456789");
	for (i = 0; i < nitems(units); i++)
		if (strcmp(s + n, units[i].unit) == 0)
			break;
	if (i == nitems(units) || n == 0 || n >= sizeof(num))
		errx(EXIT_USAGE, "%s: \"%s\" is not a duration (a whole "
		    "number, then ns, us, ms or s)", what, s);
	memcpy(num, s, n);
	num[n] = '\0';
	return arg_num(num, 0, DURATION_MAX / units[i].ns, what) *
	    units[i].ns;
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
