/*
 * Dropped datagrams, summarised: one trace line per sender and reason per
 * interval ("drop from=ID why=W n=N") instead of one per datagram, so that
 * a flood costs a few lines a second.  The counts are exact: every drop
 * is in exactly one summary.  Pure: the caller gives the time.
 */
#ifndef ELECT_DROPS_H
#define ELECT_DROPS_H

#include <stddef.h>
#include <stdint.h>

#define DROPS_SLOTS	32
#define DROPS_EVERY	(1000 * INT64_C(1000000))	/* ns between summaries */

struct drops {
	struct {
		unsigned	 from;	/* 0: unknown */
		const char	*why;	/* a static string */
		uint64_t	 n;
	}		 s[DROPS_SLOTS];
	size_t		 n;
	int64_t		 last;	/* time of the last summary; 0: none yet */
	uint64_t	 total;
};

/* Counts one drop.  Returns 1 when a summary is due now: the interval
 * has passed since the last one, or the table is full. */
int		 drops_add(struct drops *, unsigned from, const char *why,
		    int64_t now);
/* When the next summary is due (INT64_MAX: nothing to say). */
int64_t		 drops_deadline(const struct drops *);
/* Calls LINE for each sender and reason counted since the last summary,
 * then forgets them; NOW is the time of this summary. */
void		 drops_flush(struct drops *, int64_t now,
		    void (*line)(void *, unsigned from, const char *why,
		    uint64_t n), void *arg);

#endif
