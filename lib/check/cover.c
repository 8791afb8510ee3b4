/*
 * Minimum clique covers, for ALE2 and Assertion 4'.  Covering a graph G
 * with k cliques is colouring its complement H with k colours (a colour
 * class of H is a clique of G).  Deciding it is NP-complete, so this is
 * an exact branch and bound (DSATUR order, one new colour at a time to
 * break symmetry) with a budget of search steps; bounds from a greedy
 * independent set of G and a greedy colouring of H settle most graphs
 * before any search.  No library on Debian does exact colouring in C.
 */
#include <err.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "check/world.h"

#define COVER_MAX_SEARCH 512	/* vertices beyond which only bounds run */

struct colouring {
	unsigned	 n, k;
	size_t		 words;
	const uint64_t	*h;		/* rows of the complement */
	unsigned	*col;		/* colour, or UINT_MAX */
	uint16_t	*cnt;		/* cnt[v * k + c]: neighbours coloured c */
	unsigned	*sat;		/* distinct colours among neighbours */
	unsigned	*deg;
	unsigned long	 budget;
	int		 spent;
};

static void
paint(struct colouring *c, unsigned v, unsigned colour, int add)
{
	const uint64_t *row = c->h + (size_t)v * c->words;
	unsigned u;

	c->col[v] = add ? colour : UINT_MAX;
	for (u = 0; u < c->n; u++) {
		uint16_t *p;

		if (!BIT_ISSET(row, u) || c->col[u] != UINT_MAX)
			continue;
		p = &c->cnt[(size_t)u * c->k + colour];
		if (add && (*p)++ == 0)
			c->sat[u]++;
		else if (!add && --(*p) == 0)
			c->sat[u]--;
	}
}

/* The uncoloured vertex with most colours around it, then most edges. */
static unsigned
pick(const struct colouring *c)
{
	unsigned v, best = UINT_MAX;

	for (v = 0; v < c->n; v++) {
		if (c->col[v] != UINT_MAX)
			continue;
		if (best == UINT_MAX || c->sat[v] > c->sat[best] ||
		    (c->sat[v] == c->sat[best] && c->deg[v] > c->deg[best]))
			best = v;
	}
	return best;
}

static int
search(struct colouring *c, unsigned done, unsigned used)
{
	unsigned v, colour, lim;

	if (done == c->n)
		return 1;
	if (c->budget == 0) {
		c->spent = 1;
		return 0;
	}
	c->budget--;
	v = pick(c);
	lim = used < c->k ? used + 1 : c->k;
	for (colour = 0; colour < lim; colour++) {
		if (c->cnt[(size_t)v * c->k + colour] != 0)
			continue;
		paint(c, v, colour, 1);
		if (search(c, done + 1, colour + 1 > used ? colour + 1 : used))
			return 1;
		paint(c, v, colour, 0);
		if (c->spent)
			return 0;
	}
	return 0;
}

/* Colours H with at most K colours: 1, 0, or -1 (budget spent). */
static int
colour(const uint64_t *h, unsigned n, size_t words, unsigned k,
    unsigned *part, unsigned long *budget)
{
	struct colouring c;
	unsigned v, u;
	int r;

	memset(&c, 0, sizeof(c));
	c.n = n;
	c.k = k;
	c.words = words;
	c.h = h;
	c.budget = *budget;
	c.col = calloc(n, sizeof(*c.col));
	c.cnt = calloc((size_t)n * k, sizeof(*c.cnt));
	c.sat = calloc(n, sizeof(*c.sat));
	c.deg = calloc(n, sizeof(*c.deg));
	if (c.col == NULL || c.cnt == NULL || c.sat == NULL || c.deg == NULL)
		err(2, NULL);
	for (v = 0; v < n; v++) {
		c.col[v] = UINT_MAX;
		for (u = 0; u < n; u++)
			c.deg[v] += BIT_ISSET(h + (size_t)v * words, u);
	}
	r = search(&c, 0, 0);
	if (r == 1)
		memcpy(part, c.col, n * sizeof(*part));
	else if (c.spent)
		r = -1;
	*budget = c.budget;
	free(c.col);
	free(c.cnt);
	free(c.sat);
	free(c.deg);
	return r;
}

/* Size of a greedy independent set of G: a lower bound on any cover. */
static unsigned
independent(const uint64_t *adj, unsigned n, size_t words)
{
	uint64_t *cand;
	unsigned v, size = 0;

	if ((cand = calloc(words, sizeof(*cand))) == NULL)
		err(2, NULL);
	for (v = 0; v < n; v++)
		BIT_SET(cand, v);
	for (;;) {
		unsigned best = UINT_MAX, bestdeg = UINT_MAX;

		/* The candidate with fewest candidate neighbours. */
		for (v = 0; v < n; v++) {
			const uint64_t *row = adj + (size_t)v * words;
			unsigned d = 0;
			size_t i;

			if (!BIT_ISSET(cand, v))
				continue;
			for (i = 0; i < words; i++)
				d += (unsigned)__builtin_popcountll(row[i] &
				    cand[i]);
			if (d < bestdeg) {
				best = v;
				bestdeg = d;
			}
		}
		if (best == UINT_MAX)
			break;
		size++;
		BIT_CLR(cand, best);
		for (v = 0; v < words; v++)
			cand[v] &= ~adj[(size_t)best * words + v];
	}
	free(cand);
	return size;
}

int
cover_within(unsigned n, const uint64_t *adj, size_t words, unsigned k,
    unsigned *part, unsigned long budget)
{
	uint64_t *h;
	unsigned v, u;
	int r;

	if (n == 0)
		return 1;
	if (k == 0 || independent(adj, n, words) > k)
		return 0;
	if (k >= n) {
		for (v = 0; v < n; v++)
			part[v] = v;
		return 1;
	}
	if (n > COVER_MAX_SEARCH)
		return -1;
	if ((h = calloc((size_t)n * words, sizeof(*h))) == NULL)
		err(2, NULL);
	for (v = 0; v < n; v++)
		for (u = 0; u < n; u++)
			if (u != v && !BIT_ISSET(adj + (size_t)v * words, u))
				BIT_SET(h + (size_t)v * words, u);
	r = colour(h, n, words, k, part, &budget);
	free(h);
	return r;
}
