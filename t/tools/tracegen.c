/*
 * tracegen: writes a valid trace of a Bully cluster with many elections,
 * for benchmarks and tests.
 *
 * usage: tracegen [-l lines] [-n nodes] [-s seed]
 *
 * Every node boots; the highest live node leads and probes the others
 * every 100 ms; now and then the leader crashes, the others run an
 * election (Elec, then Reorg and Norm under the highest live node), and
 * the crashed node comes back and takes over again.  The trace satisfies
 * every assertion of the sync set for -c 10.
 */
#include <err.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace/trace.h"
#include "util/util.h"

#define MAXN	64

static trace_time now = 1700000000 * TRACE_NS;
static unsigned long lines, limit = 1000000;
static unsigned nodes = 5;
static int up[MAXN + 1];
static unsigned inc[MAXN + 1], elid;
static unsigned long seed = 1;

static unsigned
rnd(unsigned n)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((seed >> 33) % n);
}

static void __attribute__((format(printf, 2, 3)))
line(unsigned node, const char *fmt, ...)
{
	char l[TRACE_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	trace_vformat_line(l, sizeof(l), now, node, fmt, ap);
	va_end(ap);
	puts(l);
	lines++;
	now += 50000 + rnd(200000);	/* 50 to 250 us */
}

static void
msg(unsigned from, unsigned to, const char *m)
{
	line(from, "send to=%u msg=%s elid=%u.%u.%u bytes=48", to, m, from,
	    inc[from], elid);
	line(to, "recv from=%u msg=%s elid=%u.%u.%u", from, m, from,
	    inc[from], elid);
}

static unsigned
highest(void)
{
	unsigned i;

	for (i = nodes; i > 0; i--)
		if (up[i])
			return i;
	return 0;
}

/* The highest live node halts the others and becomes coordinator. */
static void
elect(void)
{
	unsigned h = highest(), i;

	elid++;
	for (i = 1; i <= nodes; i++)
		if (up[i])
			line(i, "state status=Elec ldr=- grp=-");
	for (i = 1; i < h; i++)
		if (up[i])
			msg(h, i, "Halt");
	line(h, "state status=Reorg ldr=%u grp=-", h);
	for (i = 1; i < h; i++)
		if (up[i]) {
			msg(h, i, "NewCoordinator");
			line(i, "state status=Reorg ldr=%u grp=-", h);
		}
	line(h, "state status=Norm ldr=%u grp=-", h);
	for (i = 1; i < h; i++)
		if (up[i]) {
			msg(h, i, "Ready");
			line(i, "state status=Norm ldr=%u grp=-", h);
		}
}

static void
boot(unsigned i)
{
	up[i] = 1;
	inc[i]++;
	line(i, "boot inc=%u algo=bully nodes=%u", inc[i], nodes);
}

static void
probe(void)
{
	unsigned h = highest(), i;

	for (i = 1; i <= nodes && lines < limit; i++)
		if (up[i] && i != h)
			msg(h, i, "AreYouThere");
	now += 100 * 1000000;
}

int
main(int argc, char *argv[])
{
	unsigned i, down = 0;
	int ch;

	while ((ch = getopt(argc, argv, "l:n:s:")) != -1) {
		switch (ch) {
		case 'l':
			limit = (unsigned long)arg_num(optarg, 1, 1LL << 40,
			    "-l");
			break;
		case 'n':
			nodes = (unsigned)arg_num(optarg, 2, MAXN, "-n");
			break;
		case 's':
			seed = (unsigned long)arg_num(optarg, 0, 1LL << 40,
			    "-s");
			break;
		default:
			fprintf(stderr, "usage: tracegen [-l lines] "
			    "[-n nodes] [-s seed]\n");
			return 2;
		}
	}
	for (i = 1; i <= nodes; i++)
		boot(i);
	elect();
	while (lines < limit) {
		unsigned rounds = 20 + rnd(40);

		while (rounds-- > 0 && lines < limit)
			probe();
		if (lines >= limit)
			break;
		if (down == 0) {
			down = highest();
			up[down] = 0;
			line(down, "crash");
			for (i = 1; i <= nodes; i++)
				if (up[i])
					line(i, "fd op=down peer=%u", down);
			elect();
		} else {
			boot(down);
			down = 0;
			elect();
		}
	}
	if (fflush(stdout) != 0)
		err(1, "stdout");
	return 0;
}
