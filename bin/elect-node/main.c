/*
 * elect-node: runs one node of a leader election among the hosts of a
 * cluster file.  The algorithm is a pure core from lib/algo; this program
 * is its edge: the UDP socket, the failure-detector child, stable storage,
 * the control socket, the trace and the signals.
 */
#include <sys/signalfd.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <libutil.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "node.h"
#include "store/store.h"
#include "util/util.h"

enum {
	OPT_FD_CMD = 256, OPT_INSECURE, OPT_STATUS, OPT_VERSION, OPT_TIMING
};

static const struct option fixed_opts[] = {
	{ "algo",	required_argument,	NULL,	'a' },
	{ "cluster",	required_argument,	NULL,	'f' },
	{ "id",		required_argument,	NULL,	'i' },
	{ "key",	required_argument,	NULL,	'k' },
	{ "state",	required_argument,	NULL,	's' },
	{ "trace",	required_argument,	NULL,	't' },
	{ "help",	no_argument,		NULL,	'h' },
	{ "insecure",	no_argument,		NULL,	OPT_INSECURE },
	{ "fd-cmd",	required_argument,	NULL,	OPT_FD_CMD },
	{ "status",	no_argument,		NULL,	OPT_STATUS },
	{ "version",	no_argument,		NULL,	OPT_VERSION },
};

static struct option longopts[nitems(fixed_opts) + TM_N + 1];

/* The best algorithm this build has: the first of these it knows. */
static const struct algo_ops *
algo_default(void)
{
	static const char *const best[] = { "bully-fd", "async-bully" };
	const struct algo_ops *a;
	size_t i;

	for (i = 0; i < nitems(best); i++)
		if ((a = algo_find(best[i])) != NULL)
			return a;
	return algo_nth(0);
}

static void __attribute__((noreturn))
usage(FILE *f, int code)
{
	const struct algo_ops *a;
	size_t i;

	fprintf(f,
"usage: elect-node -f cluster -i id [-a algo] [-k keyfile | --insecure]\n"
"                  [-s statedir] [-t trace] [--fd-cmd path] [timing]\n"
"       elect-node (-i id | -s statedir) --status\n"
"timing (a whole number, then ns, us, ms or s; ms if none):\n");
	timing_usage(f);
	fprintf(f, "algorithms (-a):");
	for (i = 0; (a = algo_nth(i)) != NULL; i++)
		fprintf(f, " %s%s", algo_name(a), a == algo_default() ?
		    " (default)" : "");
	fprintf(f, "\n");
	exit(code);
}

/*
 * The detector sits next to this program unless --fd-cmd says otherwise.
 */
static void
find_fd_cmd(struct node_opts *o)
{
	char self[PATH_MAX], *slash;
	ssize_t n;

	if (o->fd_cmd != NULL)
		return;
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) == -1)
		err(EXIT_USAGE, "/proc/self/exe (give --fd-cmd)");
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) == NULL)
		errx(EXIT_USAGE, "%s: not a path (give --fd-cmd)", self);
	slash[1] = '\0';
	if (asprintf(&o->fd_cmd, "%select-fd", self) == -1)
		err(1, "asprintf");
	o->fd_cmd_own = 1;
}

static void
parse_args(int argc, char *argv[], struct node_opts *o)
{
	int ch, idx;

	memcpy(longopts, fixed_opts, sizeof(fixed_opts));
	timing_longopts(longopts + nitems(fixed_opts), OPT_TIMING);
	while ((ch = getopt_long(argc, argv, "a:f:hi:k:s:t:", longopts,
	    &idx)) != -1) {
		switch (ch) {
		case 'a':
			if ((o->algo = algo_find(optarg)) == NULL)
				errx(EXIT_USAGE, "-a: unknown algorithm \"%s\" "
				    "(see --help)", optarg);
			break;
		case 'f':
			o->cluster = optarg;
			break;
		case 'i':
			o->id = arg_id(optarg, "-i");
			break;
		case 'k':
			o->keyfile = optarg;
			break;
		case 's':
			o->statedir = optarg;
			break;
		case 't':
			o->trace = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case OPT_INSECURE:
			o->insecure = 1;
			break;
		case OPT_FD_CMD:
			o->fd_cmd = optarg;
			break;
		case OPT_STATUS:
			o->status = 1;
			break;
		case OPT_VERSION:
			print_version();
			break;
		default:
			if (ch >= OPT_TIMING &&
			    timing_set(&o->timing, ch - OPT_TIMING, optarg))
				break;
			usage(stderr, EXIT_USAGE);
		}
	}
	if (optind != argc)
		errx(EXIT_USAGE, "unexpected argument \"%s\"", argv[optind]);
	if (o->status) {
		if (o->statedir == NULL && o->id == 0)
			errx(EXIT_USAGE, "--status needs -s statedir or -i id");
	} else {
		if (o->cluster == NULL || o->id == 0)
			errx(EXIT_USAGE, "-f cluster and -i id are required");
		if (o->keyfile != NULL && o->insecure)
			errx(EXIT_USAGE, "-k and --insecure exclude each other");
		if (o->keyfile == NULL && !o->insecure)
			errx(EXIT_USAGE, "give -k keyfile, or --insecure to run "
			    "without authentication");
		timing_check(&o->timing);
	}
	if (o->statedir == NULL) {
		if (default_statedir(o->id, o->statedir_buf,
		    sizeof(o->statedir_buf)) == -1)
			errx(EXIT_USAGE, "no default state directory for this "
			    "user (give -s statedir)");
		o->statedir = o->statedir_buf;
	}
}

int
main(int argc, char *argv[])
{
	struct node_opts o;
	int rc;

	memset(&o, 0, sizeof(o));
	o.algo = algo_default();
	timing_defaults(&o.timing);
	parse_args(argc, argv, &o);
	if (o.status)
		return ctl_status(o.statedir);
	find_fd_cmd(&o);
	rc = node_run(&o);
	if (o.fd_cmd_own)
		free(o.fd_cmd);
	return rc;
}
