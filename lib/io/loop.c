/* The shared event loop: see loop.h. */
#include <errno.h>
#include <time.h>

#include "io/loop.h"

#define NS	INT64_C(1000000000)

void
loop_wait_init(struct loop_wait *w)
{
	w->ns = -1;
}

void
loop_wait_in(struct loop_wait *w, int64_t ns)
{
	if (ns >= 0 && (w->ns < 0 || ns < w->ns))
		w->ns = ns;
}

void
loop_wait_at(struct loop_wait *w, int64_t deadline, int64_t now)
{
	if (deadline < 0 || deadline == INT64_MAX)
		return;
	loop_wait_in(w, deadline > now ? deadline - now : 0);
}

int
loop_poll(struct pollfd *pfd, nfds_t n, const struct loop_wait *w)
{
	struct timespec ts;
	nfds_t i;
	int r;

	/* Nothing is ready after an interruption, whatever came before. */
	for (i = 0; i < n; i++)
		pfd[i].revents = 0;
	ts.tv_sec = (time_t)(w->ns / NS);
	ts.tv_nsec = (long)(w->ns % NS);
	r = ppoll(pfd, n, w->ns < 0 ? NULL : &ts, NULL);
	if (r == -1 && errno == EINTR)
		return 0;
	return r;
}
