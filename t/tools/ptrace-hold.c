/*
 * ptrace-hold: attaches to a process as its tracer and never waits for
 * it, so that once it dies its parent cannot reap it: a process group
 * that stays found, dead, for as long as the test wants.  (A traced
 * process's death is the tracer's to take first.)  Ends, and lets the
 * parent reap it, when killed or at end of input.
 *
 * usage: ptrace-hold PID
 * Prints "held" once attached; exits 2 if it cannot attach.
 */
#include <sys/ptrace.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/util.h"

int
main(int argc, char *argv[])
{
	const char *errstr;
	char c;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: ptrace-hold pid\n");
		return EXIT_USAGE;
	}
	pid = (pid_t)strtonum(argv[1], 1, INT32_MAX, &errstr);
	if (errstr != NULL)
		errx(EXIT_USAGE, "pid %s: %s", argv[1], errstr);
	/* Seized, not stopped: it runs on as before. */
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) == -1)
		err(EXIT_USAGE, "ptrace %d", (int)pid);
	printf("held\n");
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) > 0)
		;
	return 0;
}
