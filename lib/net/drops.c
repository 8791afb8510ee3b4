/* Dropped datagrams, summarised: see drops.h. */
#include <assert.h>
#include <string.h>

#include "net/drops.h"

int
drops_add(struct drops *d, unsigned from, const char *why, int64_t now)
{
	size_t i;

	d->total++;
	for (i = 0; i < d->n; i++)
		if (d->s[i].from == from && strcmp(d->s[i].why, why) == 0)
			break;
	if (i == d->n) {
		/* A full table was reported, and summarised, at once. */
		assert(d->n < DROPS_SLOTS);
		d->s[i].from = from;
		d->s[i].why = why;
		d->s[i].n = 0;
		d->n++;
	}
	d->s[i].n++;
	return d->n == DROPS_SLOTS || d->last == 0 ||
	    now - d->last >= DROPS_EVERY;
}

int64_t
drops_deadline(const struct drops *d)
{
	return d->n == 0 ? INT64_MAX : d->last + DROPS_EVERY;
}

void
drops_flush(struct drops *d, int64_t now,
    void (*line)(void *, unsigned, const char *, uint64_t), void *arg)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		line(arg, d->s[i].from, d->s[i].why, d->s[i].n);
	d->n = 0;
	if (i > 0)
		d->last = now;
}
