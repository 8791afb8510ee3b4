/* elect-check: verifies a trace against the assertions of the papers. */
#include <err.h>
#include <limits.h>
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
#define NAMES_MAX	64		/* -s and -A options */
#define BOUND_MAX	(1000000 * TRACE_NS)	/* -c and the like, in ns */

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code == 0 ? stdout : stderr;

	fprintf(fp, "usage: %s [-s set] [-A name,...] [-c seconds] "
	    "[--fd-latency seconds]\n"
	    "       %*s [--skew seconds] [--msg-bound seconds] [--nodes n]\n"
	    "       %*s [--json] [--lenient] [file ...]\n", getprogname(),
	    (int)strlen(getprogname()), "", (int)strlen(getprogname()), "");
	if (code == 0)
		printf("sets: sync async fd lease; assertions: trace gm1 gm2 "
		    "gm3 gm4 gm4s sle1 sle2\n"
		    "  ale1 ale2w ale2 fd-complete fd-accurate uniqueness "
		    "lease-quorum\n"
		    "  edict-validity edict-order stability election epochs\n"
		    "  task-overlap task-lease task-token\n");
	exit(code);
}

/* "NAME,NAME": each is added to CK, or, without CK, checked (exit 2). */
static void
add_names(struct checker *ck, const char *arg, int sets)
{
	const char *p = arg;

	while (*p != '\0') {
		size_t n = strcspn(p, ",");
		char name[64];

		if (n > 0 && n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			if (ck != NULL && sets)
				checker_add_set(ck, name);
			else if (ck != NULL)
				checker_add(ck, name);
			else if (sets ? check_set(name) == NULL :
			    check_find(name) == NULL)
				n = sizeof(name);
		}
		if (n >= sizeof(name))
			errx(EXIT_USAGE, "unknown %s: %.*s (try --help)",
			    sets ? "set" : "assertion", (int)strcspn(p, ","),
			    p);
		p += n + (p[n] == ',');
	}
}

/* Feeds the whole trace; NULL, or why it cannot be checked. */
static const char *
feed(struct checker *ck, struct trace_reader *r, unsigned long *n)
{
	struct trace_event ev;
	int64_t start = mono_now(), now, shown_at = 0;
	int progress = isatty(STDERR_FILENO), shown = 0, rc;
	const char *why = NULL;

	while ((rc = trace_next(r, &ev)) == 1) {
		if ((why = checker_event(ck, &ev)) != NULL)
			break;
		if (++*n % PROGRESS_EVERY == 0 && progress &&
		    (now = mono_now()) - start > TRACE_NS &&
		    now - shown_at > TRACE_NS / 4) {
			shown_at = now;
			fprintf(stderr, "\r%s: %s:%lu, %llu MB", getprogname(),
			    ev.file, ev.lineno,
			    (unsigned long long)(trace_bytes(r) >> 20));
			shown = 1;
		}
	}
	if (shown)
		fprintf(stderr, "\r\033[K");
	if (rc == -1)
		why = trace_error(r);
	return why;
}

int
main(int argc, char *argv[])
{
	enum { O_FD = 256, O_SKEW, O_NODES, O_JSON, O_LENIENT, O_HELP,
	    O_VERSION, O_MSG };
	static const struct option longopts[] = {
		{ "fd-latency", required_argument, NULL, O_FD },
		{ "skew", required_argument, NULL, O_SKEW },
		{ "msg-bound", required_argument, NULL, O_MSG },
		{ "nodes", required_argument, NULL, O_NODES },
		{ "json", no_argument, NULL, O_JSON },
		{ "lenient", no_argument, NULL, O_LENIENT },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct check_opts o = { CHECK_C_DEFAULT, CHECK_FD_LATENCY_DEFAULT, 0, 0,
	    NULL, 0, NULL, -1 };
	const char *sets[NAMES_MAX], *names[NAMES_MAX];
	int nsets = 0, nnames = 0, i;
	struct trace_reader *r;
	struct checker *ck;
	const char *why, *env;
	char empty[PATH_MAX + 64];
	int ch, json = 0, flags = 0, rc;
	unsigned long n = 0;

	while ((ch = getopt_long(argc, argv, "s:A:c:h", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 's':
		case 'A':
			add_names(NULL, optarg, ch == 's');
			if (nsets + nnames == NAMES_MAX)
				errx(EXIT_USAGE, "more than %d -s and -A",
				    NAMES_MAX);
			if (ch == 's')
				sets[nsets++] = optarg;
			else
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
		case O_MSG:
			o.msg_bound = arg_seconds(optarg, "--msg-bound");
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
	if ((env = getenv("ELECT_CHECK_BUDGET")) != NULL)
		o.cover_budget = (unsigned long)arg_num(env, 1, LLONG_MAX,
		    "ELECT_CHECK_BUDGET");
	if (o.c == 0)
		errx(EXIT_USAGE, "-c: the bound must be above 0");
	if (o.c > BOUND_MAX || o.fd_latency > BOUND_MAX || o.skew > BOUND_MAX ||
	    o.msg_bound > BOUND_MAX)
		errx(EXIT_USAGE, "-c, --fd-latency, --skew and --msg-bound go "
		    "up to %lld "
		    "seconds", (long long)(BOUND_MAX / TRACE_NS));

	if ((r = trace_open(argv, argc, flags)) == NULL)
		err(EXIT_USAGE, NULL);
	ck = checker_new(&o, stdout, json);
	for (i = 0; i < nsets; i++)
		add_names(ck, sets[i], 1);
	for (i = 0; i < nnames; i++)
		add_names(ck, names[i], 0);
	if ((why = feed(ck, r, &n)) == NULL && n == 0) {
		snprintf(empty, sizeof(empty), "%s: no events in the trace",
		    argc > 0 ? argv[argc - 1] : "-");
		why = empty;
	}
	if (why == NULL)
		why = checker_finish(ck);
	if (why != NULL) {
		warnx("%s", why);
		rc = EXIT_USAGE;
	} else if (fflush(stdout) != 0 || ferror(stdout)) {
		warn("stdout");
		rc = EXIT_USAGE;
	} else {
		checker_summary(ck, stderr);
		if (trace_skipped(r) > 0)
			fprintf(stderr, "%s: %lu line%s with unknown events "
			    "skipped\n", getprogname(), trace_skipped(r),
			    trace_skipped(r) > 1 ? "s" : "");
		rc = checker_verdict(ck);
	}
	checker_free(ck);
	trace_close(r);
	return rc;
}
