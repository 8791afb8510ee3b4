/*
 * leasegen: writes a valid trace of a Nerio lease cluster with many
 * leaders, for benchmarks and tests.
 *
 * usage: leasegen [-l lines] [-n nodes] [-s seed]
 *
 * Every node boots and monitors the others through its failure detector.
 * The highest live node leads: once a second every live node grants it a
 * lease of delta = 3 s (until its clock + (1 + rho) delta) and it leads
 * until its own clock + (1 - rho) delta (OQwBD, rho = 50 ppm).  It makes
 * an edict every 200 ms, which the others deliver 20 ms later.  Clocks
 * drift by up to 20 ppm and are sampled every 500 ms.  Every 20 to 40 s
 * the leader crashes: the others report it down within 500 ms, and once
 * every grant to it has surely run out the next highest node takes over;
 * the crashed node boots again 5 s after its crash.  The trace satisfies
 * every assertion of the lease and fd sets for -c 10 and --fd-latency 1.
 */
#include <err.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"
#include "util/util.h"

#define MAXN	64
#define MS	(TRACE_NS / 1000)
#define DELTA	(3 * TRACE_NS)
#define RHO_PPM	50
#define QUEUE	256

static const trace_time start = INT64_C(1700000000) * TRACE_NS;
static trace_time now;
static unsigned long lines, limit = 1000000;
static unsigned nodes = 5;
static unsigned long seed = 1;

static struct {
	int		 up;
	unsigned	 inc;
	trace_time	 off;		/* its clock at the start */
	long		 ppm;		/* its drift */
	trace_time	 sample;	/* next clock sample */
} n[MAXN + 1];

static unsigned leader;
static uint64_t seq;
static char qt[MAXN * 40];
static trace_time renew, edict, crash, takeover, reboot, downs;
static unsigned dead;		/* the crashed node, until it reboots */

/* Edicts on their way: delivered to every live node but their maker. */
static struct {
	trace_time	 at;
	unsigned	 from;
	uint64_t	 seq;
	char		 qt[MAXN * 40];
} q[QUEUE];
static size_t qhead, qn;

static unsigned
rnd(unsigned m)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((seed >> 33) % m);
}

static trace_time
clk(unsigned i)
{
	trace_time d = now - start;

	return n[i].off + d + d / 1000000 * n[i].ppm;
}

static void __attribute__((format(printf, 2, 3)))
line(unsigned node, const char *fmt, ...)
{
	char l[TRACE_LINE_MAX];
	va_list ap;

	if (lines == limit)
		exit(0);
	va_start(ap, fmt);
	trace_vformat_line(l, sizeof(l), now, node, fmt, ap);
	va_end(ap);
	puts(l);
	lines++;
}

static const char *
ts(char *buf, trace_time t)
{
	trace_format_time(t, buf, 32);
	return buf;
}

static unsigned
highest(void)
{
	unsigned i;

	for (i = nodes; i > 0; i--)
		if (n[i].up)
			return i;
	return 0;
}

/* OQwBD: every live node grants, the leader leads. */
static void
obtain(unsigned l)
{
	char a[32], b[32];
	size_t len = 0;
	unsigned i;

	for (i = 1; i <= nodes; i++) {
		trace_time c = clk(i);

		if (!n[i].up)
			continue;
		line(i, "lease op=grant to=%u until=%s clock=%s", l, ts(a, c +
		    DELTA + DELTA / 1000000 * RHO_PPM), ts(b, c));
		len += (size_t)snprintf(qt + len, sizeof(qt) - len, "%s%u:%s",
		    len ? "," : "", i, ts(a, c));
	}
	now += 2 * MS;
	line(l, "lead until=%s clock=%s qt=%s", ts(a, clk(l) - 2 * MS + DELTA -
	    DELTA / 1000000 * RHO_PPM), ts(b, clk(l)), qt);
}

static void
make_edict(void)
{
	char a[32];

	line(leader, "edict seq=%llu qt=%s clock=%s",
	    (unsigned long long)++seq, qt, ts(a, clk(leader)));
	if (qn == QUEUE)
		return;
	q[(qhead + qn) % QUEUE].at = now + 20 * MS;
	q[(qhead + qn) % QUEUE].from = leader;
	q[(qhead + qn) % QUEUE].seq = seq;
	strlcpy(q[(qhead + qn) % QUEUE].qt, qt, sizeof(q[0].qt));
	qn++;
}

static void
deliver(void)
{
	unsigned i;

	while (qn > 0 && q[qhead].at <= now) {
		for (i = 1; i <= nodes; i++)
			if (n[i].up && i != q[qhead].from)
				line(i, "deliver from=%u seq=%llu qt=%s",
				    q[qhead].from,
				    (unsigned long long)q[qhead].seq,
				    q[qhead].qt);
		qhead = (qhead + 1) % QUEUE;
		qn--;
	}
}

/* Node I boots and monitors the other live nodes. */
static void
boot(unsigned i)
{
	unsigned j;

	n[i].up = 1;
	line(i, "boot inc=%u algo=lease nodes=%u", ++n[i].inc, nodes);
	now += MS;
	for (j = 1; j <= nodes; j++)
		if (j != i && n[j].up)
			line(i, "fd op=start peer=%u", j);
}

static void
tick(void)
{
	char a[32];
	unsigned i;

	for (i = 1; i <= nodes; i++)
		if (n[i].up && now >= n[i].sample) {
			line(i, "clock c=%s", ts(a, clk(i)));
			n[i].sample = now + 500 * MS;
		}
	deliver();
	if (leader != 0 && now >= renew) {
		obtain(leader);
		renew = now + TRACE_NS;
	}
	if (leader != 0 && now >= edict) {
		make_edict();
		edict = now + 200 * MS;
	}
	if (leader != 0 && now >= crash) {
		dead = leader;
		n[dead].up = 0;
		line(dead, "crash");
		leader = 0;
		downs = now + 100 * MS + rnd(400) * MS;
		/* Every grant to it has run out by then, drift and all. */
		takeover = now + DELTA + DELTA / 1000 + 10 * MS;
		reboot = now + 5 * TRACE_NS;
	}
	if (dead != 0 && now >= downs && downs != 0) {
		for (i = 1; i <= nodes; i++)
			if (n[i].up)
				line(i, "fd op=down peer=%u", dead);
		downs = 0;
	}
	if (leader == 0 && now >= takeover) {
		leader = highest();
		obtain(leader);
		renew = now + TRACE_NS;
		edict = now + 100 * MS;
		crash = now + (20 + rnd(20)) * TRACE_NS;
	}
	if (dead != 0 && now >= reboot) {
		boot(dead);
		now += 100 * MS;
		for (i = 1; i <= nodes; i++)
			if (n[i].up && i != dead)
				line(i, "fd op=start peer=%u", dead);
		dead = 0;
	}
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: leasegen [-l lines] [-n nodes] [-s seed]\n");
	exit(EXIT_USAGE);
}

int
main(int argc, char *argv[])
{
	unsigned i;
	int ch;

	while ((ch = getopt(argc, argv, "l:n:s:")) != -1) {
		switch (ch) {
		case 'l':
			limit = (unsigned long)arg_num(optarg, 1, 1000000000,
			    "-l");
			break;
		case 'n':
			nodes = (unsigned)arg_num(optarg, 3, MAXN, "-n");
			break;
		case 's':
			seed = (unsigned long)arg_num(optarg, 0, INT32_MAX,
			    "-s");
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	now = start;
	for (i = 1; i <= nodes; i++) {
		n[i].off = (trace_time)(1000 + 100 * i) * TRACE_NS;
		n[i].ppm = (long)rnd(41) - 20;
		n[i].sample = now + i * 50 * MS;
	}
	for (i = 1; i <= nodes; i++)
		n[i].up = 1;
	for (i = 1; i <= nodes; i++)
		boot(i);
	takeover = now + 500 * MS;
	for (;;) {
		tick();
		now += 10 * MS;
	}
}
