/* Node ids to dense indexes, in pages made on demand, and the arrays
 * they index. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/idmap.h"

int
idmap_init(struct idmap *m)
{
	memset(m, 0, sizeof(*m));
	return 0;
}

void
idmap_free(struct idmap *m)
{
	size_t i;

	for (i = 0; i < sizeof(m->page) / sizeof(m->page[0]); i++) {
		free(m->page[i]);
		m->page[i] = NULL;
	}
	m->n = 0;
}

long
idmap_new(struct idmap *m, unsigned id)
{
	uint32_t **p;

	assert(id > 0 && id <= TRACE_NODE_MAX && idmap_find(m, id) == -1);
	p = &m->page[id / IDMAP_PAGE];
	if (*p == NULL && (*p = calloc(IDMAP_PAGE, sizeof(**p))) == NULL)
		return -1;
	(*p)[id % IDMAP_PAGE] = (uint32_t)++m->n;
	return (long)m->n - 1;
}

void *
array_grow(void *a, size_t *cap, size_t size)
{
	size_t ncap = *cap == 0 ? 8 : *cap * 2;
	char *p;

	if ((p = reallocarray(a, ncap, size)) == NULL)
		return NULL;
	memset(p + *cap * size, 0, (ncap - *cap) * size);
	*cap = ncap;
	return p;
}
