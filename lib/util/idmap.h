/*
 * Node ids to dense indexes 0, 1, ... in order of first sight, so that
 * per-node state is an array as long as the nodes seen.  The map itself
 * is pages of 256 ids, made at their first id: a trace of a few nodes
 * costs a few kilobytes, not a table of every possible id.
 */
#ifndef ELECT_IDMAP_H
#define ELECT_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

#define IDMAP_PAGE	256

struct idmap {
	uint32_t	*page[(TRACE_NODE_MAX + IDMAP_PAGE) / IDMAP_PAGE];
	size_t		 n;		/* ids seen */
};

/* An empty map; 0 (it allocates nothing). */
int	 idmap_init(struct idmap *);
void	 idmap_free(struct idmap *);
/* The index of ID, or -1.  Inline: every line of a trace asks. */
static inline long
idmap_find(const struct idmap *m, unsigned id)
{
	const uint32_t *p;

	if (id == 0 || id > TRACE_NODE_MAX ||
	    (p = m->page[id / IDMAP_PAGE]) == NULL || p[id % IDMAP_PAGE] == 0)
		return -1;
	return (long)p[id % IDMAP_PAGE] - 1;
}
/* Gives ID (1..TRACE_NODE_MAX, not seen yet) the next index; -1 when out
 * of memory. */
long	 idmap_new(struct idmap *, unsigned id);
/* A doubled copy of array A of *CAP elements of SIZE bytes, the new ones
 * zeroed; NULL (A untouched) when out of memory. */
void	*array_grow(void *a, size_t *cap, size_t size);

#endif
