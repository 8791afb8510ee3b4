/*
 * elect-node: the command line.  It is parsed here, strictly, and then
 * this process becomes the daemon (daemon/) or one of its clients
 * (client/); see elect-node.h.
 */
#include <assert.h>
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/conf.h"
#include "elect-node.h"
#include "guard/guard.h"
#include "host/names.h"
#include "metrics/metrics.h"
#include "net/key.h"
#include "util/util.h"

enum {
	OPT_FD_CMD = 256, OPT_INSECURE, OPT_STATUS, OPT_VERSION, OPT_DRIFT,
	OPT_EDICT, OPT_FOLLOW, OPT_RUNIF, OPT_WAIT, OPT_GRACE, OPT_SYSLOG,
	OPT_TIMING
};

/* Past the timing flags (OPT_TIMING + TM_N). */
enum {
	OPT_WAIT_FOR = 512, OPT_GEN_KEY, OPT_SOCKET_GROUP, OPT_OPERATOR_GROUP,
	OPT_METRICS, OPT_METRICS_FILE,
	OPT_JSON, OPT_RECONF, OPT_FORCE, OPT_DEAD, OPT_TRACE_LEVEL,
	OPT_NAMES_MAX
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
	{ "drift",	required_argument,	NULL,	OPT_DRIFT },
	{ "edict",	required_argument,	NULL,	OPT_EDICT },
	{ "follow-edicts", no_argument,		NULL,	OPT_FOLLOW },
	{ "run-if-leader", no_argument,		NULL,	OPT_RUNIF },
	{ "wait",	no_argument,		NULL,	OPT_WAIT },
	{ "grace",	required_argument,	NULL,	OPT_GRACE },
	{ "verbose",	no_argument,		NULL,	'v' },
	{ "quiet",	no_argument,		NULL,	'q' },
	{ "syslog",	no_argument,		NULL,	OPT_SYSLOG },
	{ "config",	required_argument,	NULL,	'c' },
	{ "wait-for",	required_argument,	NULL,	OPT_WAIT_FOR },
	{ "gen-key",	required_argument,	NULL,	OPT_GEN_KEY },
	{ "socket-group", required_argument,	NULL,	OPT_SOCKET_GROUP },
	{ "operator-group", required_argument,	NULL,	OPT_OPERATOR_GROUP },
	{ "metrics",	required_argument,	NULL,	OPT_METRICS },
	{ "metrics-file", required_argument,	NULL,	OPT_METRICS_FILE },
	{ "json",	no_argument,		NULL,	OPT_JSON },
	{ "reconfigure", required_argument,	NULL,	OPT_RECONF },
	{ "force",	no_argument,		NULL,	OPT_FORCE },
	{ "dead",	required_argument,	NULL,	OPT_DEAD },
	{ "trace-level", required_argument,	NULL,	OPT_TRACE_LEVEL },
	{ "name",	required_argument,	NULL,	'n' },
	{ "names-max",	required_argument,	NULL,	OPT_NAMES_MAX },
};

static struct option longopts[nitems(fixed_opts) + TM_N + 1];

static const char *const mode_flag[] = {
	[MODE_DAEMON] = "the daemon",
	[MODE_STATUS] = "--status", [MODE_EDICT] = "--edict",
	[MODE_FOLLOW] = "--follow-edicts", [MODE_RUNIF] = "--run-if-leader",
	[MODE_RECONF] = "--reconfigure",
};

#define M(m)		(1u << (m))
#define M_ALL		(M(MODE_DAEMON) | M(MODE_STATUS) | M(MODE_EDICT) | \
			    M(MODE_FOLLOW) | M(MODE_RUNIF) | M(MODE_RECONF))

/* The modes that use option CH; a flag a mode does not use is refused,
 * so that nobody believes it took effect. */
static unsigned
option_modes(int ch)
{
	switch (ch) {
	case 'i': case 's': case 'h': case OPT_VERSION: case 'c':
	case OPT_STATUS: case OPT_EDICT: case OPT_FOLLOW: case OPT_RUNIF:
	case OPT_RECONF:
		return M_ALL;
	case OPT_FORCE: case OPT_DEAD:
		return M(MODE_RECONF);
	case 't': case 'k':
		return M(MODE_DAEMON) | M(MODE_RUNIF);
	case OPT_WAIT: case OPT_GRACE: case 'E': case OPT_WAIT_FOR:
		return M(MODE_RUNIF);
	case OPT_JSON:
		return M(MODE_STATUS);
	case 'n':
		return M(MODE_RUNIF) | M(MODE_STATUS);
	default:	/* -a -f -q -v --insecure --fd-cmd --drift
			 * --syslog, timing */
		return M(MODE_DAEMON);
	}
}

/* The options given, each once, as first spelt: for the check against
 * the mode.  There are fewer kinds than slots. */
struct given {
	int		 ch;
	char		 name[32];
};

#define GIVEN_MAX	(nitems(fixed_opts) + TM_N + 1)

/* The best algorithm this build has: the first of these it knows. */
static const struct algo_ops *
algo_default(void)
{
	static const char *const best[] = { "lease", "bully-fd" };
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
"                  [-s statedir] [-t trace] [--trace-level compact|full]\n"
"                  [--fd-cmd path] [--drift rho]\n"
"                  [--socket-group group] [--operator-group group]\n"
"                  [--metrics addr:port]\n"
"                  [--metrics-file path] [-q | -v] [--syslog] [-c file]\n"
"                  [--names-max n] [timing]\n"
"       elect-node (-i id | -s statedir) --status [-n name] [--json]\n"
"       elect-node (-i id | -s statedir) --edict text | --follow-edicts\n"
"       elect-node (-i id | -s statedir) --reconfigure cluster\n"
"                  [--force --dead id,...]\n"
"       elect-node --gen-key file\n"
"       elect-node (-i id | -s statedir) --run-if-leader [-n name]\n"
"                  [--wait] [--wait-for duration] [--grace duration]\n"
"                  [-E code] [-t trace [-k keyfile]] -- command [arg ...]\n"
"-n, --name: a named leadership, 1 to 64 bytes of [A-Za-z0-9._-], held\n"
"            apart from the default one and from every other name\n"
"--drift: the most a clock gains or loses per second (lease; default "
"0.001)\n"
"timing (a number, then ns, us, ms, s, m or h; ms if none):\n");
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

/* Sets the mode FLAG selects; two different modes exclude each other. */
static void
set_mode(struct node_opts *o, enum mode m)
{
	if (o->mode != MODE_DAEMON && o->mode != m)
		errx(EXIT_USAGE, "%s and %s exclude each other",
		    mode_flag[o->mode], mode_flag[m]);
	o->mode = m;
}

static void
check_modes(const struct node_opts *o, const struct given *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (option_modes(g[i].ch) & M(o->mode))
			continue;
		if (option_modes(g[i].ch) == M(MODE_RUNIF))
			errx(EXIT_USAGE, "%s goes with --run-if-leader",
			    g[i].name);
		if (option_modes(g[i].ch) == (M(MODE_RUNIF) | M(MODE_STATUS)))
			errx(EXIT_USAGE, "%s goes with --run-if-leader or "
			    "--status", g[i].name);
		if (option_modes(g[i].ch) == M(MODE_STATUS))
			errx(EXIT_USAGE, "%s goes with --status", g[i].name);
		if (option_modes(g[i].ch) == M(MODE_RECONF))
			errx(EXIT_USAGE, "%s goes with --reconfigure",
			    g[i].name);
		if (o->mode == MODE_DAEMON)
			errx(EXIT_USAGE, "%s is not used by the daemon",
			    g[i].name);
		errx(EXIT_USAGE, "%s does not use %s%s", mode_flag[o->mode],
		    g[i].name, option_modes(g[i].ch) == M(MODE_DAEMON) ?
		    " (a flag of the daemon)" : "");
	}
}

/* The flags of ARGV, each option's first spelling added to GIVEN: the
 * command line's, and each setting of a configuration file's. */
static void
parse_flags(int argc, char *argv[], struct node_opts *o, struct given *given,
    size_t *ngivenp)
{
	char why_name[HNAMES_WHY_MAX];
	const char *why;
	size_t i, ngiven = *ngivenp;
	int ch, idx;

	optind = 0;	/* GNU getopt: from the start, anew */
	for (;;) {
		idx = -1;
		if ((ch = getopt_long(argc, argv, "+a:c:E:f:hi:k:n:qs:t:v", longopts,
		    &idx)) == -1)
			break;
		for (i = 0; i < ngiven && given[i].ch != ch; i++)
			continue;
		if (ch != '?' && i == ngiven) {
			assert(ngiven < GIVEN_MAX);
			given[ngiven].ch = ch;
			if (idx >= 0)
				snprintf(given[ngiven].name,
				    sizeof(given[ngiven].name), "--%s",
				    longopts[idx].name);
			else
				snprintf(given[ngiven].name,
				    sizeof(given[ngiven].name), "-%c", ch);
			ngiven++;
		}
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
			set_mode(o, MODE_STATUS);
			break;
		case OPT_EDICT:
			set_mode(o, MODE_EDICT);
			o->edict = optarg;
			break;
		case OPT_FOLLOW:
			set_mode(o, MODE_FOLLOW);
			break;
		case OPT_RUNIF:
			set_mode(o, MODE_RUNIF);
			break;
		case OPT_WAIT:
			o->wait = 1;
			break;
		case OPT_WAIT_FOR:
			/* As flock -w: a bounded --wait, in seconds. */
			o->wait = 1;
			o->wait_for = arg_duration_in(optarg, "--wait-for",
			    ALGO_S, WAIT_FOR_MAX);
			break;
		case OPT_SOCKET_GROUP:
			arg_group(optarg, o);
			break;
		case OPT_OPERATOR_GROUP:
			arg_operator_group(optarg, o);
			break;
		case OPT_METRICS:
			if ((why = metrics_parse_addr(optarg,
			    &o->metrics_addr)) != NULL)
				errx(EXIT_USAGE, "--metrics: \"%s\": %s", optarg,
				    why);
			o->metrics_http = 1;
			o->metrics_arg = optarg;
			break;
		case OPT_JSON:
			o->json = 1;
			break;
		case 'n':
			/* Refused before anything connects. */
			if (hnames_check(optarg, strlen(optarg), why_name,
			    sizeof(why_name)) == -1)
				errx(EXIT_USAGE, "%s: bad leadership name "
				    "\"%s\": %s", idx >= 0 ? "--name" : "-n",
				    optarg, why_name);
			o->name = optarg;
			break;
		case OPT_NAMES_MAX:
			o->names_max = (size_t)arg_num(optarg, 1,
			    NAMES_MAX_MOST, "--names-max");
			break;
		case OPT_RECONF:
			set_mode(o, MODE_RECONF);
			o->reconf = optarg;
			break;
		case OPT_FORCE:
			o->force = 1;
			break;
		case OPT_DEAD:
			o->dead = optarg;
			break;
		case OPT_TRACE_LEVEL:
			if (strcmp(optarg, "full") != 0 &&
			    strcmp(optarg, "compact") != 0)
				errx(EXIT_USAGE, "--trace-level: \"%s\" is "
				    "not compact or full", optarg);
			o->trace_full = strcmp(optarg, "full") == 0;
			break;
		case OPT_METRICS_FILE:
			if (optarg[0] == '\0')
				errx(EXIT_USAGE, "--metrics-file: an empty path");
			o->metrics_file = optarg;
			break;
		case OPT_GRACE:
			o->grace = arg_duration(optarg, "--grace");
			if (o->grace > GUARD_GRACE_MAX)
				errx(EXIT_USAGE, "--grace: %s is above an hour",
				    optarg);
			break;
		case 'E':
			o->ecode = (int)arg_num(optarg, 0, 255, "-E");
			break;
		case OPT_DRIFT:
			/* A ratio: seconds gained or lost per second. */
			o->timing.a.drift = arg_seconds(optarg, "--drift");
			if (o->timing.a.drift > ALGO_DRIFT_MAX)
				errx(EXIT_USAGE, "--drift: %s is above 0.1",
				    optarg);
			break;
		case 'v':
		case 'q':
			o->verbosity = ch == 'v' ? 1 : -1;
			break;
		case OPT_SYSLOG:
			o->syslog = 1;
			break;
		case 'c':
			o->config = optarg;
			break;
		case OPT_VERSION:
			print_version();
			break;
		case OPT_GEN_KEY:
			errx(EXIT_USAGE, "--gen-key goes alone: elect-node "
			    "--gen-key FILE");
		default:
			if (ch >= OPT_TIMING &&
			    timing_set(&o->timing, ch - OPT_TIMING, optarg))
				break;
			usage(stderr, EXIT_USAGE);
		}
	}
	*ngivenp = ngiven;
}

/*
 * Configuration files (elect.conf(5)): a setting is its flag's long name
 * and value, and applies unless the command line (or, for the cluster
 * file's shared settings, the configuration file) gave that flag.  Each
 * goes through the same parsing as the flag, as "--KEY=VALUE", with
 * FILE:LINE in front of its errors.  Settings of flags the mode does not
 * use are skipped: one file serves the daemon and its clients.
 */
#ifndef ELECT_CONF
#define ELECT_CONF	"/etc/elect/elect.conf"
#endif
#define CONF_FILE_MAX	(64 * 1024)

struct conf_ctx {
	struct node_opts *o;
	struct given	*given;
	size_t		*ngiven;
	const char	*file;
	int		 shared;	/* the cluster file's: algo, timing */
};

/* What a file may set: not the modes, nor what prints and exits. */
static int
settable(int ch)
{
	switch (ch) {
	case 'c': case 'h': case OPT_VERSION: case OPT_STATUS: case OPT_EDICT:
	case OPT_FOLLOW: case OPT_RUNIF: case OPT_RECONF: case OPT_FORCE:
	case OPT_DEAD:
		return 0;
	default:
		return 1;
	}
}

/* The flag that excludes CH, or replaces it: given, it overrides CH's
 * setting as CH itself would. */
static int
rival(int ch)
{
	switch (ch) {
	case 'q':
		return 'v';
	case 'v':
		return 'q';
	case 'k':
		return OPT_INSECURE;
	case OPT_INSECURE:
		return 'k';
	default:
		return -1;
	}
}

static const char *
conf_setting(void *arg, const struct conf_item *it)
{
	static char *kept[2 * CONF_ITEMS_MAX];
	static size_t nkept;
	static char why[128];
	struct conf_ctx *x = arg;
	struct node_opts scratch, *o;
	struct given sgiven[1], *g;
	size_t nsgiven, *ng;
	const struct option *lo;
	char flag[CONF_LINE_MAX + CONF_KEY_MAX + 4], where[PATH_MAX + 64];
	char *argv[3], *name;
	size_t i;

	for (lo = longopts; lo->name != NULL; lo++)
		if (strcmp(lo->name, it->key) == 0)
			break;
	if (lo->name == NULL || !settable(lo->val))
		return snprintf(why, sizeof(why), "unknown key \"%s\"",
		    it->key), why;
	if (x->shared && lo->val != 'a' && lo->val != OPT_DRIFT &&
	    lo->val < OPT_TIMING)
		return snprintf(why, sizeof(why), "%s: not a shared setting "
		    "(algo, drift and the timings are)", it->key), why;
	if (lo->has_arg == no_argument) {
		if (strcmp(it->value, "no") != 0 &&
		    strcmp(it->value, "yes") != 0)
			return snprintf(why, sizeof(why), "%s: \"%s\" is not "
			    "yes or no", it->key, it->value), why;
		snprintf(flag, sizeof(flag), "--%s", it->key);
	} else
		snprintf(flag, sizeof(flag), "--%s=%s", it->key, it->value);
	/* The options keep pointers into their arguments, as into argv. */
	assert(nkept < nitems(kept));
	if ((kept[nkept] = strdup(flag)) == NULL)
		err(1, NULL);
	argv[0] = (char *)getprogname();
	argv[1] = kept[nkept++];
	argv[2] = NULL;
	/* A setting overridden, unused here or "no" is still checked, on a
	 * copy of the options. */
	o = x->o;
	g = x->given;
	ng = x->ngiven;
	for (i = 0; i < *x->ngiven; i++)
		if (x->given[i].ch == lo->val ||
		    x->given[i].ch == rival(lo->val))
			break;
	if (i < *x->ngiven || !(option_modes(lo->val) & M(x->o->mode)) ||
	    strcmp(it->value, "no") == 0) {
		scratch = *x->o;
		o = &scratch;
		g = sgiven;
		nsgiven = 0;
		ng = &nsgiven;
	}
	/* err(3) names the program: here the file and line too. */
	name = program_invocation_short_name;
	snprintf(where, sizeof(where), "%s: %s:%u", name, x->file, it->line);
	program_invocation_short_name = where;
	parse_flags(2, argv, o, g, ng);
	program_invocation_short_name = name;
	return NULL;
}

static void
conf_file(struct node_opts *o, const char *file, int how,
    struct given *given, size_t *ngiven)
{
	struct conf_ctx x = { o, given, ngiven, file, how == CONF_CLUSTER };
	char err[PATH_MAX + 256], *text;
	size_t len;
	int rc;

	if ((text = file_read(file, CONF_FILE_MAX, &len, err,
	    sizeof(err))) == NULL)
		errx(EXIT_USAGE, "%s", err);
	rc = conf_parse(text, len, file, how, conf_setting, &x, err,
	    sizeof(err));
	free(text);
	if (rc == -1)
		errx(EXIT_USAGE, "%s", err);
}

/* -c FILE, or the default file if there is one; then the cluster file's
 * shared settings. */
static void
config_load(struct node_opts *o, struct given *given, size_t *ngiven)
{
	if (o->config != NULL)
		conf_file(o, o->config, CONF_PLAIN, given, ngiven);
	else if (access(ELECT_CONF, F_OK) == 0)
		conf_file(o, ELECT_CONF, CONF_PLAIN, given, ngiven);
	if (o->mode == MODE_DAEMON && o->cluster != NULL)
		conf_file(o, o->cluster, CONF_CLUSTER, given, ngiven);
}

static int
given_has(const struct given *given, size_t n, int ch)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (given[i].ch == ch)
			return 1;
	return 0;
}

static void
parse_args(int argc, char *argv[], struct node_opts *o)
{
	struct given given[GIVEN_MAX];
	size_t ngiven = 0;
	int kflag;

	memcpy(longopts, fixed_opts, sizeof(fixed_opts));
	timing_longopts(longopts + nitems(fixed_opts), OPT_TIMING);
	parse_flags(argc, argv, o, given, &ngiven);
	/* A flag of --run-if-leader without it, and a command: the flag
	 * says what is missing better than the command would. */
	if (o->mode != MODE_RUNIF && optind != argc) {
		check_modes(o, given, ngiven);
		errx(EXIT_USAGE, "unexpected argument \"%s\"%s", argv[optind],
		    o->mode == MODE_DAEMON || o->mode == MODE_STATUS ?
		    " (a command to run goes after --run-if-leader --)" : "");
	}
	if (o->mode == MODE_RUNIF) {
		if (optind == argc)
			errx(EXIT_USAGE, "--run-if-leader needs a command, "
			    "after --");
		o->command = argv + optind;
	} else if (optind != argc)
		errx(EXIT_USAGE, "unexpected argument \"%s\"", argv[optind]);
	check_modes(o, given, ngiven);
	/* A key from a configuration file may serve a daemon only. */
	kflag = given_has(given, ngiven, 'k');
	config_load(o, given, &ngiven);
	if (o->mode == MODE_RUNIF && o->trace == NULL && kflag)
		errx(EXIT_USAGE, "--run-if-leader uses -k only to prove its "
		    "trace (-t) to a collector");
	if (o->mode != MODE_DAEMON) {
		if (o->statedir == NULL && o->id == 0)
			errx(EXIT_USAGE, "%s needs -s statedir or -i id",
			    mode_flag[o->mode]);
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
		if (default_statedir(o->id, o->mode != MODE_DAEMON,
		    o->statedir_buf,
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

	/* A new cluster key, as consul keygen makes one. */
	if (argc >= 2 && strcmp(argv[1], "--gen-key") == 0) {
		char id[KEY_ID_LEN + 1], msg[PATH_MAX + 64];

		if (argc != 3 || argv[2][0] == '\0' || argv[2][0] == '-')
			errx(EXIT_USAGE, "usage: elect-node --gen-key FILE");
		if (key_generate(argv[2], id, msg, sizeof(msg)) == -1)
			errx(strstr(msg, "never overwritten") != NULL ?
			    EXIT_USAGE : 1, "%s", msg);
		printf("%s key_id=%s\n", argv[2], id);
		return 0;
	}
	memset(&o, 0, sizeof(o));
	o.algo = algo_default();
	o.grace = o.ecode = -1;
	o.wait_for = -1;
	timing_defaults(&o.timing);
	parse_args(argc, argv, &o);
	switch (o.mode) {
	case MODE_STATUS:
		return client_status(o.statedir, o.json, o.name);
	case MODE_EDICT:
		return client_edict(o.statedir, o.edict);
	case MODE_FOLLOW:
		return client_follow(o.statedir);
	case MODE_RUNIF:
		return client_runif(&o);
	case MODE_RECONF:
		return client_reconf(o.statedir, o.reconf, o.force, o.dead);
	case MODE_DAEMON:
		break;
	}
	find_fd_cmd(&o);
	rc = daemon_main(&o);
	if (o.fd_cmd_own)
		free(o.fd_cmd);
	return rc;
}
