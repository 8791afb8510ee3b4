/*
 * elect-trace: collects, merges, counts and draws elect traces.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"
#include "util/util.h"

#include "elect-trace.h"

static const struct cmd {
	const char	*name;
	int		 (*run)(int, char *[]);
	const char	*usage;
} cmds[] = {
	{ "collect", cmd_collect,
	    "collect -l address [-d seconds] [-o file] [-w seconds]\n"
	    "                            [-k keyfile | --insecure] [-q | -v] [--syslog]" },
	{ "merge", cmd_merge, "merge [-o file] [file ...]" },
	{ "stats", cmd_stats,
	    "stats [--json] [-x type,...] [file ...]" },
	{ "timeline", cmd_timeline,
	    "timeline [--format text|svg|mermaid] [--from time]\n"
	    "                            [--to time] [--nodes list] "
	    "[-x type,...]\n"
	    "                            [file ...]" },
};

void
input_error(struct merge *m)
{
	char why[512];

	strlcpy(why, merge_error(m), sizeof(why));
	merge_close(m);
	errx(EXIT_USAGE, "%s", why);
}

void
usage(const char *sub, int status)
{
	FILE *f = status == 0 ? stdout : stderr;
	size_t i;

	for (i = 0; i < nitems(cmds); i++)
		if (sub == NULL || strcmp(sub, cmds[i].name) == 0)
			fprintf(f, "%s %s\n", i == 0 || sub != NULL ?
			    "usage: elect-trace" : "       elect-trace",
			    cmds[i].usage);
	exit(status);
}

int
main(int argc, char *argv[])
{
	char name[64];
	size_t i;

	if (argc < 2)
		usage(NULL, EXIT_USAGE);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		usage(NULL, 0);
	if (strcmp(argv[1], "--version") == 0)
		print_version();
	for (i = 0; i < nitems(cmds); i++)
		if (strcmp(argv[1], cmds[i].name) == 0) {
			/* getopt's messages name the subcommand */
			snprintf(name, sizeof(name), "%s %s", getprogname(),
			    cmds[i].name);
			argv[1] = name;
			return cmds[i].run(argc - 1, argv + 1);
		}
	warnx("unknown subcommand: %s", argv[1]);
	usage(NULL, EXIT_USAGE);
}
