/*
 * bullygen [-d dir] [-l lines] [-n nodes]: writes a synthetic trace of a
 * bully cluster of NODES nodes, about LINES lines: heartbeats, then the
 * leader crashes, the lowest node notices and the highest one left is
 * elected, and the old leader comes back and takes over, over and over.
 * Times only go forward.  With -d, one file per node (DIR/ID.trace), as
 * elect-node -t writes them; else one trace on stdout.  The elect-trace
 * benchmark and tests use it.
 */
#include <err.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/util.h"

static FILE	*out[TRACE_NODE_MAX + 1];
static FILE	*one;
static long long left;
static trace_time now = INT64_C(1700000000) * TRACE_NS;
static unsigned	 nodes = 10;

static void
line(unsigned node, const char *fmt, ...)
{
	char l[TRACE_LINE_MAX];
	FILE *f = one ? one : out[node];
	va_list ap;

	now += 1000 + (trace_time)arc4random_uniform(200000);
	va_start(ap, fmt);
	trace_vformat_line(l, sizeof(l), now, node, fmt, ap);
	va_end(ap);
	fprintf(f, "%s\n", l);
	left--;
}

static void
message(unsigned from, unsigned to, const char *msg, unsigned long elid)
{
	line(from, "send to=%u msg=%s elid=%u.%lu", to, msg, from, elid);
	line(to, "recv from=%u msg=%s elid=%u.%lu", from, msg, from, elid);
}

static void
coordinate(unsigned ldr, const unsigned char *up, unsigned long elid)
{
	unsigned i;

	line(ldr, "state status=Norm ldr=%u grp=-", ldr);
	for (i = 1; i <= nodes; i++)
		if (i != ldr && up[i]) {
			message(ldr, i, "Coordinator", elid);
			line(i, "state status=Norm ldr=%u grp=-", ldr);
		}
}

int
main(int argc, char *argv[])
{
	unsigned char up[TRACE_NODE_MAX + 1] = { 0 };
	unsigned long long inc[TRACE_NODE_MAX + 1] = { 0 };
	const char *dir = NULL;
	unsigned long elid = 0;
	unsigned i, j, ldr;
	int ch;

	left = 1000000;
	while ((ch = getopt(argc, argv, "d:l:n:")) != -1) {
		switch (ch) {
		case 'd':
			dir = optarg;
			break;
		case 'l':
			left = arg_num(optarg, 1, 1000000000, "-l");
			break;
		case 'n':
			nodes = (unsigned)arg_num(optarg, 2, 1000, "-n");
			break;
		default:
			fprintf(stderr, "usage: bullygen [-d dir] [-l lines] "
			    "[-n nodes]\n");
			return 2;
		}
	}
	if (dir == NULL)
		one = stdout;
	for (i = 1; dir != NULL && i <= nodes; i++) {
		char path[1024];

		snprintf(path, sizeof(path), "%s/%u.trace", dir, i);
		if ((out[i] = fopen(path, "w")) == NULL)
			err(1, "%s", path);
	}
	for (i = 1; i <= nodes; i++) {
		up[i] = 1;
		line(i, "boot inc=%llu algo=bully nodes=%u", ++inc[i], nodes);
	}
	ldr = nodes;
	coordinate(ldr, up, ++elid);
	while (left > 0) {
		unsigned d, h;

		/* quiet times: everyone checks on the leader */
		for (j = 0; j < 20; j++)
			for (i = 1; i < nodes; i++) {
				message(i, ldr, "AreYouThere", elid);
				message(ldr, i, "Yes", elid);
			}
		/* the leader crashes; the lowest node notices first */
		line(ldr, "crash");
		up[ldr] = 0;
		d = 1;
		line(d, "fd op=down peer=%u", ldr);
		line(d, "state status=Elec ldr=- grp=-");
		elid++;
		for (h = nodes; h > 0 && !up[h]; h--)
			;
		for (i = d + 1; i <= nodes; i++) {
			line(d, "send to=%u msg=Election elid=%u.%lu", i, d,
			    elid);
			if (!up[i])
				continue;
			line(i, "recv from=%u msg=Election elid=%u.%lu", d, d,
			    elid);
			message(i, d, "Ok", elid);
			if (i != h)
				line(i, "state status=Elec ldr=- grp=-");
		}
		coordinate(h, up, elid);
		/* the old leader comes back and bullies its way in */
		up[ldr] = 1;
		line(ldr, "boot inc=%llu algo=bully nodes=%u", ++inc[ldr],
		    nodes);
		coordinate(ldr, up, ++elid);
	}
	for (i = 1; i <= nodes; i++)
		if ((one ? one : out[i]) != NULL &&
		    fflush(one ? one : out[i]) == EOF)
			err(1, "write");
	return 0;
}
