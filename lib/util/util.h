/* Small helpers every binary uses: strict argument parsing, versions. */
#ifndef ELECT_UTIL_H
#define ELECT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

#ifndef nitems
#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* Exit codes shared by every binary (see each manual page). */
#define EXIT_NO		1	/* a negative answer: violation, not leader */
#define EXIT_USAGE	2	/* bad usage or bad input */

/* A whole number in [min, max], or exit 2 naming WHAT. */
long long	 arg_num(const char *s, long long min, long long max,
		    const char *what);
/* The same without exiting: 0 with *V, or -1 with arg_num's message in
 * ERR. */
int		 arg_try_num(const char *s, long long min, long long max,
		    const char *what, long long *v, char *err, size_t errlen);
/* Decimal seconds (up to 9 fractional digits), or exit 2 naming WHAT. */
trace_time	 arg_seconds(const char *s, const char *what);
/* A node id 1..65535, or exit 2 naming WHAT. */
unsigned	 arg_id(const char *s, const char *what);
/* CLOCK_MONOTONIC in nanoseconds: the clock of timeouts and leases. */
int64_t		 mono_now(void);
/*
 * Blocks the N signals of SIGS and returns a non-blocking, close-on-exec
 * signalfd that reads them; also ignores SIGPIPE.  Exits on failure.  A
 * child that execs must unblock them: the mask is inherited.
 */
int		 signals_open(const int *sigs, size_t n);
/* The next signal pending on a signals_open() descriptor, or 0. */
int		 signals_next(int fd);
/* Real-time priorities, when allowed, for this process only: the nodes
 * and their detectors keep liveness; the guard of --run-if-leader keeps
 * the safety deadline and preempts them. */
#define RT_NODE		1
#define RT_GUARD	2
void		 sched_realtime(int prio);
/*
 * A daemon's log: TAG names it on stderr and in syslog; VERBOSITY is -1
 * (-q: warnings only), 0, or 1 (-v: debug lines too).  Without log_init
 * lines go to stderr tagged "elect".
 */
void		 log_init(const char *tag, int use_syslog, int verbosity);
void		 log_warnx(const char *fmt, ...)
		    __attribute__((format(printf, 1, 2)));
void		 log_info(const char *fmt, ...)
		    __attribute__((format(printf, 1, 2)));
void		 log_debug(const char *fmt, ...)
		    __attribute__((format(printf, 1, 2)));
/*
 * Drops summed over a window: one warning line per window in which at
 * least LOG_DROPS_MIN datagrams were dropped, never one per datagram.
 * WHY must be a string that lives as long as the process (the shells'
 * reasons are literals).  Times are CLOCK_MONOTONIC nanoseconds.
 */
#define LOG_DROPS_WINDOW	(10 * 1000000000LL)
#define LOG_DROPS_MIN		10
#define LOG_DROPS_WHYS		8
struct log_drops {
	int64_t		 start;		/* of the window, or 0: none open */
	uint64_t	 n;
	size_t		 nwhy;
	struct {
		const char	*why;
		uint64_t	 n;
	}		 why[LOG_DROPS_WHYS];
};
void		 log_drops_add(struct log_drops *, const char *why,
		    int64_t now);
/* Logs the window once it is over; nanoseconds until then, or -1. */
int64_t		 log_drops_tick(struct log_drops *, unsigned node,
		    int64_t now);
/* The regular file PATH whole, at most MAX bytes (*LEN), in a buffer to
 * free(); NULL with "PATH: why" in ERR. */
char		*file_read(const char *path, size_t max, size_t *len, char *err,
		    size_t errlen);
/* Prints "NAME VERSION" and exits 0. */
void		 print_version(void) __attribute__((noreturn));

/* A fixed buffer of LEN bytes at P, N used; CUT once something did not
 * fit (sbuf.c). */
struct sbuf {
	char		*p;
	size_t		 len, n;
	int		 cut;
};
void		 sbuf_put(struct sbuf *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));

#endif
