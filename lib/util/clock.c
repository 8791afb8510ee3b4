/*
 * The monotonic clock, and the scheduling class of processes that keep
 * deadlines on it.  Not for the protocol cores, which are given the time.
 */
#include <errno.h>
#include <err.h>
#include <sched.h>
#include <time.h>

#include "util/util.h"

int64_t
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * TRACE_NS + ts.tv_nsec;
}

/*
 * A low real-time priority when allowed (root, CAP_SYS_NICE), for this
 * process alone (not its children): it sleeps nearly all the time, and
 * when it wakes, a deadline is waiting on it.  Best effort.
 */
void
sched_realtime(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == -1 &&
	    errno != EPERM)
		warn("sched_setscheduler");
}
