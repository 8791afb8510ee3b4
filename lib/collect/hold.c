/*
 * The reorder buffer: a binary heap keyed by (time, arrival).
 */
#include <stdlib.h>
#include <string.h>

#include "collect/hold.h"

struct hold {
	size_t		   max, bytes;
	struct hold_line **heap;
	size_t		   n, cap;
	uint64_t	   seq;
};

static int
before(const struct hold_line *a, const struct hold_line *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

struct hold *
hold_new(size_t max_bytes)
{
	struct hold *h;

	if ((h = calloc(1, sizeof(*h))) == NULL)
		return NULL;
	h->max = max_bytes;
	return h;
}

void
hold_free(struct hold *h)
{
	size_t i;

	if (h == NULL)
		return;
	for (i = 0; i < h->n; i++)
		free(h->heap[i]);
	free(h->heap);
	free(h);
}

int
hold_put(struct hold *h, trace_time t, const char *line, size_t len,
    void *tag)
{
	struct hold_line *l, **nh;
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 256;

		if ((nh = reallocarray(h->heap, cap, sizeof(*nh))) == NULL)
			return -1;
		h->heap = nh;
		h->cap = cap;
	}
	if ((l = malloc(sizeof(*l) + len)) == NULL)
		return -1;
	l->t = t;
	l->seq = h->seq++;
	l->tag = tag;
	l->len = len;
	memcpy(l->line, line, len);
	for (i = h->n++; i > 0 && before(l, h->heap[(i - 1) / 2]);
	    i = (i - 1) / 2)
		h->heap[i] = h->heap[(i - 1) / 2];
	h->heap[i] = l;
	h->bytes += sizeof(*l) + len;
	return 0;
}

const struct hold_line *
hold_top(const struct hold *h)
{
	return h->n == 0 ? NULL : h->heap[0];
}

struct hold_line *
hold_pop(struct hold *h)
{
	struct hold_line *top, *x;
	size_t i = 0;

	if (h->n == 0)
		return NULL;
	top = h->heap[0];
	x = h->heap[--h->n];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(h->heap[c + 1], h->heap[c]))
			c++;
		if (!before(h->heap[c], x))
			break;
		h->heap[i] = h->heap[c];
		i = c;
	}
	if (h->n > 0)
		h->heap[i] = x;
	h->bytes -= sizeof(*top) + top->len;
	return top;
}

int
hold_full(const struct hold *h)
{
	return h->bytes > h->max;
}
