/* Node indexes and time formatting for the checkers. */
#include <stdlib.h>
#include <string.h>

#include "check/inst.h"

int
idmap_init(struct idmap *m)
{
	m->n = 0;
	m->slot = calloc(TRACE_NODE_MAX + 1, sizeof(*m->slot));
	return m->slot == NULL ? -1 : 0;
}

void
idmap_free(struct idmap *m)
{
	free(m->slot);
	m->slot = NULL;
}

long
idmap_find(const struct idmap *m, unsigned id)
{
	if (id == 0 || id > TRACE_NODE_MAX || m->slot[id] == 0)
		return -1;
	return (long)m->slot[id] - 1;
}

long
idmap_new(struct idmap *m, unsigned id)
{
	m->slot[id] = (uint32_t)++m->n;
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

const char *
time_str(char *buf, trace_time t)
{
	if (t == TIME_MAX)
		return "never";
	if (t == TIME_MIN)
		return "the start";
	if (t < 0) {
		buf[0] = '-';
		trace_format_time(-t, buf + 1, TIME_BUFLEN - 1);
		return buf;
	}
	trace_format_time(t, buf, TIME_BUFLEN);
	return buf;
}
