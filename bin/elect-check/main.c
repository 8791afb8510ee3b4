/* elect-check: verifies a trace against the assertions of the papers. */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check/check.h"
#include "trace/trace.h"
#include "util/util.h"

#define PROGRESS_EVERY	(1UL << 18)	/* events between looks at the clock */

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code == 0 ? stdout : stderr;

	fprintf(fp, "usage: %s [-s set] [-A name,...] [-c seconds] "
	    "[--fd-latency seconds]\n"
	    "       %*s [--skew seconds] [--nodes n] [--json] [--lenient] "
	    "[file ...]\n", getprogname(), (int)strlen(getprogname()), "");
	if (code == 0)
		printf("sets: sync async fd lease; assertions: trace gm1 gm2 "
		    "gm3 gm4 gm4s sle1 sle2\n"
		    "  ale1 ale2w ale2 fd-complete fd-accurate uniqueness "
		    "lease-quorum\n"
		    "  edict-validity edict-order stability election\n");
	exit(code);
}

/* "NAME,NAME": each is added, or exit 2. */
static void
add_names(struct checker *ck, char *arg, int sets)
{
	char *name;

	while ((name = strsep(&arg, ",")) != NULL) {
		if (*name == '\0')
			continue;
		if ((sets ? checker_add_set(ck, name) :
		    checker_add(ck, name)) == -1)
			errx(EXIT_USAGE, "unknown %s: %s (try --help)",
			    sets ? "set" : "assertion", name);
	}
}

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char *argv[])
{
	enum { O_FD = 256, O_SKEW, O_NODES, O_JSON, O_LENIENT, O_HELP,
	    O_VERSION };
	static const struct option longopts[] = {
		{ "fd-latency", required_argument, NULL, O_FD },
		{ "skew", required_argument, NULL, O_SKEW },
		{ "nodes", required_argument, NULL, O_NODES },
		{ "json", no_argument, NULL, O_JSON },
		{ "lenient", no_argument, NULL, O_LENIENT },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct check_opts o = { CHECK_C_DEFAULT, CHECK_FD_LATENCY_DEFAULT, 0, 0,
	    NULL };
	char **sets, **names;
	int nsets = 0, nnames = 0, i;
	struct trace_reader *r;
	struct trace_event ev;
	struct checker *ck;
	const char *why;
	int ch, json = 0, flags = 0, rc, progress, shown = 0;
	unsigned long n = 0;
	double start;

	if ((sets = calloc((size_t)argc, sizeof(*sets))) == NULL ||
	    (names = calloc((size_t)argc, sizeof(*names))) == NULL)
		err(EXIT_USAGE, NULL);
	while ((ch = getopt_long(argc, argv, "s:A:c:h", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 's':
			sets[nsets++] = optarg;
			break;
		case 'A':
			names[nnames++] = optarg;
			break;
		case 'c':
			o.c = arg_seconds(optarg, "-c");
			break;
		case O_FD:
			o.fd_latency = arg_seconds(optarg, "--fd-latency");
			break;
		case O_SKEW:
			o.skew = arg_seconds(optarg, "--skew");
			break;
		case O_NODES:
			o.nodes = (unsigned)arg_num(optarg, 1, TRACE_NODE_MAX,
			    "--nodes");
			break;
		case O_JSON:
			json = 1;
			break;
		case O_LENIENT:
			flags |= TRACE_LENIENT;
			break;
		case 'h':
		case O_HELP:
			usage(0);
		case O_VERSION:
			print_version();
		default:
			usage(EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (o.c == 0)
		errx(EXIT_USAGE, "-c: the bound must be above 0");

	ck = checker_new(&o, stdout, json);
	for (i = 0; i < nsets; i++)
		add_names(ck, sets[i], 1);
	for (i = 0; i < nnames; i++)
		add_names(ck, names[i], 0);
	free(sets);
	free(names);
	if ((r = trace_open(argv, argc, flags)) == NULL)
		err(EXIT_USAGE, NULL);
	progress = isatty(STDERR_FILENO);
	start = seconds();
	while ((rc = trace_next(r, &ev)) == 1) {
		if ((why = checker_event(ck, &ev)) != NULL)
			errx(EXIT_USAGE, "%s", why);
		if (++n % PROGRESS_EVERY == 0 && progress &&
		    seconds() - start > 1) {
			fprintf(stderr, "\r%s: %s:%lu, %llu MB", getprogname(),
			    ev.file, ev.lineno,
			    (unsigned long long)(trace_bytes(r) >> 20));
			shown = 1;
		}
	}
	if (shown)
		fprintf(stderr, "\r\033[K");
	if (rc == -1)
		errx(EXIT_USAGE, "%s", trace_error(r));
	if (n == 0)
		errx(EXIT_USAGE, "%s: no events in the trace",
		    argc > 0 ? argv[argc - 1] : "-");
	if ((why = checker_finish(ck)) != NULL)
		errx(EXIT_USAGE, "%s", why);
	if (fflush(stdout) != 0 || ferror(stdout))
		err(EXIT_USAGE, "stdout");
	checker_summary(ck, stderr);
	rc = checker_verdict(ck);
	checker_free(ck);
	trace_close(r);
	return rc;
}
