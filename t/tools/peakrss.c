/*
 * peakrss: runs a command and prints, on stderr, its CPU seconds and peak
 * resident memory, for benchmarks.  (GNU time does this too, but is not
 * on every machine; a small parent also keeps its own size out of the
 * child's peak, which a fork from a large interpreter would not.)
 *
 * usage: peakrss COMMAND [ARG ...]
 * Prints "CPU_SECONDS PEAK_KB EXIT" and exits with the command's status.
 */
#include <sys/resource.h>
#include <sys/wait.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/util.h"

int
main(int argc, char *argv[])
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: peakrss command [arg ...]\n");
		return EXIT_USAGE;
	}
	if ((pid = fork()) == -1)
		err(EXIT_USAGE, "fork");
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		err(127, "%s", argv[1]);
	}
	if (wait4(pid, &status, 0, &ru) == -1)
		err(EXIT_USAGE, "wait4");
	fprintf(stderr, "%.3f %ld %d\n", ru.ru_utime.tv_sec +
	    ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) /
	    1e6, ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128 +
	    WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
