/*
 * elect-sim: runs the election cores of lib/algo in a deterministic
 * simulation, under faults by name; writes the trace, checks it in
 * process, runs seeded campaigns and shrinks a failing run to a short
 * command that replays it.  elect-sim(1).
 */
#include <err.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elect-sim.h"
#include "host/names.h"
#include "trace/trace.h"
#include "util/util.h"

static void __attribute__((noreturn))
usage(int status)
{
	FILE *fp = status ? stderr : stdout;
	const struct algo_ops *o;
	char names[256];
	size_t i;

	fprintf(fp, "usage: %s -a ALGO (-n N | -c ID,...) [-s SEED] "
	    "[-d SECONDS] [--faults KIND,...]\n"
	    "\t[-r COUNT] [-e 'SECONDS EVENT ARGS' ...] [-m MIN:MAX] "
	    "[-l MIN:MAX] [-L] [-b MS]\n"
	    "\t[-t NAME=MS ...] [-D RHO] [-o MS] [-R] [-x PERCENT] "
	    "[--dup PERCENT]\n"
	    "\t[--delay PERCENT] [--epoch0 ID,...] [-O] [-S] "
	    "[--trace-level compact|full]\n"
	    "\t[--papers-net] [--names K]\n"
	    "\t[--check | --shrink | --campaign RUNS [--first SEED]]\n"
	    "       %s --table murshed-allen-1|2|3|messages [--svg]\n", getprogname(),
	    getprogname());
	if (status == 0) {
		fputs("algorithms (-a):", fp);
		for (i = 0; (o = algo_nth(i)) != NULL; i++)
			fprintf(fp, " %s", algo_name(o));
		fputs("\nfaults: crash recovery pause partition bridge oneway "
		    "loss duplication\n  reordering delay drift offset "
		    "reconfigure kill misconf\n"
		    "events: crash ID, boot ID, leave ID, pause ID, resume ID, "
		    "cut A B, mend A B,\n  partition L/R[/B], oneway L/R[/B], "
		    "heal, release ID, edict ID TEXT,\n  reconfigure ID,..., "
		    "kill ID, misconf ID ok|algo|timing|cluster|key|addr|stale\n",
		    fp);
		fputs("timings (-t), by algorithm:\n", fp);
		for (i = 0; (o = algo_nth(i)) != NULL; i++) {
			algo_timing_names(o, names, sizeof(names));
			fprintf(fp, "  %-15s %s\n", algo_name(o), names);
		}
	}
	exit(status);
}

static void
range_arg(char *s, algo_time *lo, algo_time *hi, const char *what)
{
	char *p;

	if ((p = strchr(s, ':')) == NULL)
		errx(EXIT_USAGE, "%s: expected MIN:MAX", what);
	*p++ = '\0';
	/* Milliseconds: arg_seconds reads seconds, so scale down. */
	*lo = arg_seconds(s, what) / 1000;
	*hi = arg_seconds(p, what) / 1000;
	if (*lo > *hi)
		errx(EXIT_USAGE, "%s: MIN above MAX", what);
}

static void
parse_ids(struct sim_conf *c, char *s)
{
	char *p;
	size_t i;

	c->n = 0;
	while ((p = strsep(&s, ",")) != NULL) {
		if (c->n == SIM_NODES)
			errx(EXIT_USAGE, "-c: at most %d nodes", SIM_NODES);
		c->ids[c->n] = (uint16_t)arg_id(p, "-c");
		for (i = 0; i < c->n; i++)
			if (c->ids[i] == c->ids[c->n])
				errx(EXIT_USAGE, "-c: node %u named twice",
				    c->ids[i]);
		c->n++;
	}
}

/* One line of trace on stdout. */
static void
put_line(void *arg, const char *line, size_t len)
{
	fwrite(line, 1, len, stdout);
	putchar('\n');
}

int
main(int argc, char *argv[])
{
	enum { O_FAULTS = 256, O_DUP, O_DELAY, O_CHECK, O_SHRINK, O_CAMPAIGN,
	    O_FIRST, O_TABLE, O_HELP, O_VERSION, O_LEVEL, O_PAPERS, O_NAMES };
	static const struct option longopts[] = {
		{ "faults", required_argument, NULL, O_FAULTS },
		{ "epoch0", required_argument, NULL, 'E' },
		{ "dup", required_argument, NULL, O_DUP },
		{ "delay", required_argument, NULL, O_DELAY },
		{ "check", no_argument, NULL, O_CHECK },
		{ "shrink", no_argument, NULL, O_SHRINK },
		{ "campaign", required_argument, NULL, O_CAMPAIGN },
		{ "first", required_argument, NULL, O_FIRST },
		{ "table", required_argument, NULL, O_TABLE },
		{ "trace-level", required_argument, NULL, O_LEVEL },
		{ "papers-net", no_argument, NULL, O_PAPERS },
		{ "names", required_argument, NULL, O_NAMES },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	static struct sim_conf c;
	struct sim_conf small;
	struct sim_result res;
	struct sim_verdict v;
	static char **evargs;	/* static: reachable at any exit */
	char why[256], names[512], *members0 = NULL;
	unsigned given = 0;
	unsigned long runs = 0;
	uint64_t first = 1;
	uint8_t *side;
	size_t i, len, nev = 0;
	int ch, check = 0, shrink = 0, rc;

	sim_conf_default(&c);
	if ((evargs = calloc(argc, sizeof(*evargs))) == NULL)
		err(1, NULL);
	while ((ch = getopt_long(argc, argv,
	    "a:b:c:D:d:E:e:hk:Ll:m:n:Oo:Rr:s:St:x:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			if ((c.ops = algo_find(optarg)) == NULL)
				errx(EXIT_USAGE, "unknown algorithm %s (try "
				    "--help)", optarg);
			break;
		case 'b':
			c.bootspread = arg_seconds(optarg, "-b") / 1000;
			given |= G_B;
			break;
		case 'c':
			parse_ids(&c, optarg);
			given |= G_N;
			break;
		case 'D':
			c.rho = arg_seconds(optarg, "-D");
			if (c.rho >= TRACE_NS / 10)
				errx(EXIT_USAGE, "-D: at most 0.1");
			break;
		case 'd':
			c.dur = arg_seconds(optarg, "-d");
			if (c.dur > 1000000 * TRACE_NS)
				errx(EXIT_USAGE, "-d: at most 1000000 seconds");
			given |= G_DUR;
			break;
		case 'E':
			members0 = optarg;
			break;
		case 'e':
			evargs[nev++] = optarg;
			given |= G_E;
			break;
		case 'k':
		case O_FAULTS:
			if (sim_faults_parse(optarg, &c.faults, why,
			    sizeof(why)) == -1)
				errx(EXIT_USAGE, "--faults: unknown fault %s "
				    "(try --help)", why);
			given |= G_F;
			break;
		case 'L':
			c.lowest_first = 1;
			break;
		case 'l':
			range_arg(optarg, &c.lmin, &c.lmax, "-l");
			break;
		case 'm':
			range_arg(optarg, &c.dmin, &c.dmax, "-m");
			given |= G_M;
			break;
		case 'n':
			c.n = (size_t)arg_num(optarg, 1, SIM_NODES, "-n");
			for (i = 0; i < c.n; i++)
				c.ids[i] = (uint16_t)(i + 1);
			given |= G_N;
			break;
		case 'O':
			c.oracle = 1;
			break;
		case 'o':
			c.offmax = arg_seconds(optarg, "-o") / 1000;
			break;
		case 'R':
			c.reorder = 1;
			break;
		case 'x':
			c.loss = (unsigned)arg_num(optarg, 0, 100, "-x");
			break;
		case O_DUP:
			c.dup = (unsigned)arg_num(optarg, 0, 100, "--dup");
			break;
		case O_DELAY:
			c.delay = (unsigned)arg_num(optarg, 0, 100, "--delay");
			break;
		case O_LEVEL:
			if (strcmp(optarg, "full") != 0 &&
			    strcmp(optarg, "compact") != 0)
				errx(EXIT_USAGE, "--trace-level: \"%s\" is "
				    "not compact or full", optarg);
			c.compact = strcmp(optarg, "compact") == 0;
			break;
		case 'r':
			c.count = (unsigned)arg_num(optarg, 1,
			    SIM_EVENTS_MAX / 2, "-r");
			given |= G_R;
			break;
		case 's':
			c.seed = (uint64_t)arg_num(optarg, 0, LLONG_MAX, "-s");
			break;
		case 'S':
			c.stats = 1;
			break;
		case 't':
			if (c.ntset == nitems(c.tset))
				errx(EXIT_USAGE, "-t: at most %zu",
				    nitems(c.tset));
			if (algo_timing_set(&c.timing, optarg) == -1)
				errx(EXIT_USAGE, "-t %s: expected NAME=MS with "
				    "a timing of struct algo_timing "
				    "(drift=RATIO)", optarg);
			c.tset[c.ntset++] = optarg;
			given |= G_T;
			break;
		case O_CHECK:
			check = 1;
			break;
		case O_SHRINK:
			shrink = 1;
			break;
		case O_CAMPAIGN:
			runs = (unsigned long)arg_num(optarg, 1, 1000000000,
			    "--campaign");
			break;
		case O_FIRST:
			first = (uint64_t)arg_num(optarg, 0, LLONG_MAX / 2,
			    "--first");
			break;
		case O_PAPERS:
			c.papers_net = 1;
			break;
		case O_NAMES:
			c.names = (unsigned)arg_num(optarg, 0, HNAMES_DEFAULT,
			    "--names");
			break;
		case O_TABLE:
			if (strncmp(argv[1], "--table", 7) != 0 ||
			    (optind != argc && (optind + 1 != argc ||
			    strcmp(argv[optind], "--svg") != 0)))
				errx(EXIT_USAGE, "--table takes no other "
				    "option but --svg");
			return sim_table(optarg, optind != argc);
		case 'h':
		case O_HELP:
			usage(0);
		case O_VERSION:
			print_version();
		default:
			usage(EXIT_USAGE);
		}
	}
	if (optind != argc)
		errx(EXIT_USAGE, "unexpected argument %s (try --help)",
		    argv[optind]);
	if (c.ops == NULL)
		errx(EXIT_USAGE, "no algorithm: -a ALGO (try --help)");
	/* A timing the core never reads would change nothing: say so. */
	for (i = 0; i < c.ntset; i++) {
		len = strcspn(c.tset[i], "=");
		if (!algo_timing_reads(c.ops, c.tset[i], len)) {
			algo_timing_names(c.ops, names, sizeof(names));
			errx(EXIT_USAGE, "-t %.*s: %s does not read it; its "
			    "timings: %s", (int)len, c.tset[i],
			    algo_name(c.ops), names);
		}
	}
	if (c.n == 0 && runs == 0)
		errx(EXIT_USAGE, "no cluster: -n N or -c ID,...");
	if (c.oracle && !(algo_flags(c.ops) & ALGO_F_DEADLINE))
		errx(EXIT_USAGE, "-O checks algorithms whose leadership has a "
		    "deadline only");
	if (runs > 0 && (check || shrink || (given & G_E) || members0))
		errx(EXIT_USAGE, "--campaign takes neither --check, --shrink, "
		    "-e nor -E: each run is checked, and a failure shrunk");
	if (runs > 0 && (c.faults & F_RECONFIGURE) &&
	    !(algo_flags(c.ops) & ALGO_F_EPOCHS))
		errx(EXIT_USAGE, "%s has no epochs (-E, reconfigure)",
		    algo_name(c.ops));
	if (c.names > 0 && (c.papers_net ||
	    !(algo_flags(c.ops) & ALGO_F_DEADLINE)))
		errx(EXIT_USAGE, "--names: named leaderships are leases, over "
		    "elect-node's edge: -a lease, without --papers-net");
	if (c.papers_net && (given & G_F) && (c.faults & F_MISCONF))
		errx(EXIT_USAGE, "--papers-net: misconf needs elect-node's "
		    "edge");
	if (runs > 0) {
		free(evargs);
		return sim_campaign(&c, given, first, runs, 1);
	}
	for (i = 0; i < nev; i++) {
		if (c.nev == SIM_EVENTS_MAX)
			errx(EXIT_USAGE, "-e: at most %d events",
			    SIM_EVENTS_MAX);
		if (sched_parse(evargs[i], strlen(evargs[i]), c.ids, c.n,
		    &c.ev[c.nev], why, sizeof(why)) == -1)
			errx(EXIT_USAGE, "-e '%s': %s", evargs[i], why);
		if (c.papers_net && c.ev[c.nev].op == S_MISCONF)
			errx(EXIT_USAGE, "-e '%s': --papers-net: misconf "
			    "needs elect-node's edge", evargs[i]);
		c.nev++;
	}
	free(evargs);
	if (members0 != NULL) {
		if (sched_members(members0, strlen(members0), c.ids, c.n,
		    &side, why, sizeof(why)) == -1)
			errx(EXIT_USAGE, "-E %s: %s", members0, why);
		memcpy(c.members0, side, c.n);
		free(side);
		c.epoch0 = 1;
	}
	/* Faults named but not counted: three of them; -r alone: the
	 * algorithm's admissible set. */
	if ((given & G_F) && !(given & G_R) && (c.faults & F_SCHEDULED))
		c.count = 3;
	if ((given & G_R) && !(given & G_F))
		c.faults = sim_admissible(c.ops);
	sim_faults_apply(&c);
	if (sim_epochs(&c) && !(algo_flags(c.ops) & ALGO_F_EPOCHS))
		errx(EXIT_USAGE, "%s has no epochs (-E, reconfigure)",
		    algo_name(c.ops));
	if (c.count > 0 && c.dur < 4000 * ALGO_MS)
		errx(EXIT_USAGE, "faults need a duration (-d) of at least 4 "
		    "seconds");

	memset(&res, 0, sizeof(res));
	if (shrink) {
		rc = sim_shrink(&c, &small, 1);
		if (rc == 0)
			sim_conf_free(&small);
		sim_conf_free(&c);
		return rc == 0 ? 1 : 0;
	}
	if (check) {
		sim_check(&c, stderr, stdout, &v, &res);
		sim_verdict_names(&v, names, sizeof(names));
		if (v.why[0] != '\0')
			warnx("%s", v.why);
		fprintf(stderr, "%s: %s\n", getprogname(), v.failed ?
		    names : "every assertion holds");
		rc = v.failed;
	} else {
		sim_run(&c, put_line, NULL, &res);
		rc = res.violations > 0;
	}
	if (c.oracle)
		fprintf(stderr, "%s: oracle: %lu violations, %zu edicts, "
		    "largest token %llu\n", getprogname(), res.violations,
		    res.edicts, (unsigned long long)res.maxtok);
	sim_result_free(&res);
	sim_conf_free(&c);
	if (fflush(stdout) != 0 || ferror(stdout))
		err(1, "stdout");
	return rc;
}
