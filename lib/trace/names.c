/*
 * The leadership names of one trace, numbered in order of first sight:
 * a tree to find a name, an array to give it back.
 */
#include <sys/tree.h>

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

struct tname {
	RB_ENTRY(tname)	 entry;
	long		 id;
	size_t		 n;
	char		 s[TRACE_NAME_LEN + 1];
};

static int
tname_cmp(const struct tname *a, const struct tname *b)
{
	int c = memcmp(a->s, b->s, a->n < b->n ? a->n : b->n);

	if (c != 0)
		return c;
	return a->n < b->n ? -1 : a->n > b->n;
}

RB_HEAD(tnames, tname);
RB_PROTOTYPE(tnames, tname, entry, tname_cmp)
RB_GENERATE(tnames, tname, entry, tname_cmp)

struct trace_names {
	struct tnames	 tree;
	struct tname	**by_id;	/* by_id[id - 1] */
	long		 n;
	/* The last name found: a trace's lines of one name come in runs. */
	struct tname	*last;
};

struct trace_names *
trace_names_new(void)
{
	struct trace_names *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	RB_INIT(&t->tree);
	return t;
}

void
trace_names_free(struct trace_names *t)
{
	long i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++)
		free(t->by_id[i]);
	free(t->by_id);
	free(t);
}

long
trace_names_id(struct trace_names *t, const struct trace_event *ev)
{
	struct tname key, *x;

	if (!(ev->have & HAVE_NAME))
		return 0;
	/* The parser let only well-formed names through. */
	assert(ev->name.n > 0 && ev->name.n <= TRACE_NAME_LEN);
	if (t->last != NULL && t->last->n == ev->name.n &&
	    memcmp(t->last->s, ev->name.p, ev->name.n) == 0)
		return t->last->id;
	key.n = ev->name.n;
	memcpy(key.s, ev->name.p, key.n);
	if ((x = RB_FIND(tnames, &t->tree, &key)) != NULL)
		return (t->last = x)->id;
	if (t->n == TRACE_NAME_COUNT) {
		errno = 0;
		return -1;
	}
	if (t->n % 64 == 0) {
		struct tname **p = reallocarray(t->by_id, (size_t)t->n + 64,
		    sizeof(*p));

		if (p == NULL)
			return -1;
		t->by_id = p;
	}
	if ((x = malloc(sizeof(*x))) == NULL)
		return -1;
	*x = key;
	x->s[x->n] = '\0';
	x->id = ++t->n;
	t->by_id[x->id - 1] = x;
	RB_INSERT(tnames, &t->tree, x);
	return (t->last = x)->id;
}

const char *
trace_names_str(const struct trace_names *t, long id)
{
	assert(id >= 1 && id <= t->n);
	return t->by_id[id - 1]->s;
}

long
trace_names_count(const struct trace_names *t)
{
	return t->n;
}

int
trace_leadership_line(const struct trace_event *ev)
{
	if (ev->have & HAVE_NAME)
		return 1;
	switch (ev->type) {
	case TR_STATE:
	case TR_LEASE:
	case TR_LEAD:
	case TR_EDICT:
	case TR_DELIVER:
	case TR_TASK:
	case TR_RENEW:
	case TR_DROP:
		return 1;
	case TR_SEND:
	case TR_RECV:
		/* A Dead ends every leadership of its daemon at once. */
		return !trace_str_eq(ev->msg, "Dead");
	default:
		return 0;
	}
}
