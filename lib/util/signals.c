/*
 * Signals as one more descriptor in an event loop: blocked, so that none
 * arrives between a check and the wait, and read from a signalfd.
 */
#include <sys/signalfd.h>

#include <err.h>
#include <signal.h>
#include <unistd.h>

#include "util/util.h"

int
signals_open(const int *sigs, size_t n)
{
	sigset_t set;
	size_t i;
	int fd;

	/* A write to a peer that left fails with EPIPE instead. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	for (i = 0; i < n; i++)
		sigaddset(&set, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1 ||
	    (fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) == -1)
		err(1, "signalfd");
	return fd;
}

int
signals_next(int fd)
{
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return 0;
	return (int)si.ssi_signo;
}
