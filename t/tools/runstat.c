/*
 * runstat: runs a command and prints, on stderr, its wall-clock time, user
 * and system time in seconds and its peak resident memory in KiB, for the
 * benchmarks: getrusage of the child, without depending on time(1).
 *
 * usage: runstat [-o file] command [arg ...]
 *
 * The command's stdout and stderr go to FILE (default /dev/null); runstat
 * exits with the command's exit status.
 */
#include <sys/resource.h>
#include <sys/wait.h>

#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/util.h"

static double
tv(struct timeval t)
{
	return (double)t.tv_sec + t.tv_usec / 1e6;
}

int
main(int argc, char *argv[])
{
	const char *outfile = "/dev/null";
	int64_t a, b;
	struct rusage ru;
	int ch, status, fd;
	pid_t pid;

	while ((ch = getopt(argc, argv, "+o:")) != -1) {
		switch (ch) {
		case 'o':
			outfile = optarg;
			break;
		default:
			fprintf(stderr, "usage: runstat [-o file] command "
			    "[arg ...]\n");
			return 2;
		}
	}
	argv += optind;
	if (*argv == NULL)
		errx(2, "no command");
	a = mono_now();
	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		if ((fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC, 0644)) ==
		    -1)
			err(127, "%s", outfile);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execvp(argv[0], argv);
		err(127, "%s", argv[0]);
	}
	if (wait4(pid, &status, 0, &ru) == -1)
		err(2, "wait4");
	b = mono_now();
	fprintf(stderr, "%.3f %.3f %.3f %ld\n", (double)(b - a) / 1e9,
	    tv(ru.ru_utime), tv(ru.ru_stime), ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
