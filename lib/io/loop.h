/*
 * The event loop every process of elect runs (elect-node's daemon and its
 * --run-if-leader guard, elect-fd, elect-trace collect): each part of a
 * process says when it must run again, the loop takes the earliest, and
 * one ppoll(2) waits until then or until a descriptor is ready.
 *
 * Times are nanoseconds of CLOCK_MONOTONIC, as the cores' are.
 */
#ifndef ELECT_IO_LOOP_H
#define ELECT_IO_LOOP_H

#include <poll.h>
#include <stdint.h>

/* A wait being gathered: ns < 0 waits for ever. */
struct loop_wait {
	int64_t		 ns;
};

void	loop_wait_init(struct loop_wait *);
/* A part runs again within NS nanoseconds (NS < 0: it asks nothing). */
void	loop_wait_in(struct loop_wait *, int64_t ns);
/* ... or at DEADLINE (INT64_MAX or < 0: nothing), NOW being now. */
void	loop_wait_at(struct loop_wait *, int64_t deadline, int64_t now);

/*
 * Waits on the N descriptors of PFD as W says: the number ready (0 when
 * the wait ran out or a signal came: every revents then 0), or -1 with
 * errno set.
 */
int	loop_poll(struct pollfd *pfd, nfds_t n, const struct loop_wait *w);

#endif
