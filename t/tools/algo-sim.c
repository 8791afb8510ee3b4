/*
 * algo-sim: the simulator's old name, for tests written before it became
 * elect-sim(1).  It runs the elect-sim next to it (../bin/elect-sim) with
 * the old meaning of -k: its crashes recover (-k crash is now
 * crash,recovery), and -r alone draws crashes only, not the algorithm's
 * admissible set.
 */
#include <err.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

int
main(int argc, char *argv[])
{
	char self[PATH_MAX], sim[PATH_MAX + 32], *p, **av, *k;
	ssize_t len;
	int i, n = 0, haver = 0, havek = 0;

	if ((len = readlink("/proc/self/exe", self, sizeof(self) - 1)) == -1)
		err(1, "/proc/self/exe");
	self[len] = '\0';
	if ((p = strrchr(self, '/')) != NULL)
		*p = '\0';
	snprintf(sim, sizeof(sim), "%s/../bin/elect-sim", self);
	if ((av = calloc(argc + 3, sizeof(*av))) == NULL)
		err(1, NULL);
	av[n++] = "elect-sim";
	for (i = 1; i < argc; i++) {
		av[n++] = argv[i];
		if (strcmp(argv[i], "-r") == 0)
			haver = 1;
		if (strcmp(argv[i], "-k") == 0 && i + 1 < argc) {
			havek = 1;
			k = argv[++i];
			if (strstr(k, "crash") != NULL &&
			    strstr(k, "recovery") == NULL) {
				if (asprintf(&k, "%s,recovery", k) == -1)
					err(1, NULL);
			}
			av[n++] = k;
		}
	}
	if (haver && !havek) {
		av[n++] = "-k";
		av[n++] = "crash,recovery";
	}
	av[n] = NULL;
	execv(sim, av);
	err(EXIT_USAGE, "%s", sim);
}
