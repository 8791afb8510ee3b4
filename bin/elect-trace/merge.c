/*
 * elect-trace merge: per-node traces into one, ordered by time.
 */
#include <err.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "merge/merge.h"
#include "util/util.h"

#include "elect-trace.h"

int
cmd_merge(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct merge *m;
	const char *path = NULL;
	int ch, fd = STDOUT_FILENO;

	while ((ch = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			path = optarg;
			break;
		case 'h':
			usage("merge", 0);
		default:
			usage("merge", EXIT_USAGE);
		}
	}
	if ((m = merge_open(argv + optind, argc - optind,
	    MERGE_LINES)) == NULL)
		err(1, NULL);
	if (path != NULL && (fd = open(path, O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0644)) == -1)
		err(EXIT_USAGE, "%s", path);
	if (merge_write(m, fd) == -1) {
		if (merge_error(m)[0] != '\0')
			input_error(m);
		err(1, "%s", path ? path : "stdout");
	}
	if (path != NULL && close(fd) == -1)
		err(1, "%s", path);
	merge_close(m);
	return 0;
}
