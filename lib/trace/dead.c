/*
 * Dead lines read as crashes: who is up in which incarnation, as far as
 * boot, crash and exit lines say (a line of a node that is down makes it
 * up again, as elect-trace(5) says readers take it).
 */
#include <stdlib.h>
#include <string.h>

#include "trace/dead.h"

int
trace_dead_of(const struct trace_event *ev, unsigned *who, uint64_t *inc)
{
	uint64_t ctr;

	return ev->type == TR_RECV && trace_str_eq(ev->msg, "Dead") &&
	    (ev->have & HAVE_ELID) &&
	    trace_parse_elid(ev->elid, who, inc, &ctr) == 0 &&
	    *who == ev->from;
}

void
trace_dead_init(struct trace_dead *d)
{
	memset(d, 0, sizeof(*d));
	idmap_init(&d->ids);
}

void
trace_dead_free(struct trace_dead *d)
{
	idmap_free(&d->ids);
	free(d->n);
	memset(d, 0, sizeof(*d));
}

/* NODE's state, made at first sight; NULL without memory. */
static struct trace_dead_node *
get(struct trace_dead *d, unsigned node)
{
	struct trace_dead_node *p;
	long i;

	if ((i = idmap_find(&d->ids, node)) != -1)
		return &d->n[i];
	if (d->ids.n == d->cap) {
		if ((p = array_grow(d->n, &d->cap, sizeof(*p))) == NULL)
			return NULL;
		d->n = p;
	}
	if ((i = idmap_new(&d->ids, node)) == -1)
		return NULL;
	memset(&d->n[i], 0, sizeof(d->n[i]));
	return &d->n[i];
}

int
trace_dead_feed(struct trace_dead *d, const struct trace_event *ev,
    struct trace_event *crash)
{
	struct trace_dead_node *n, *p;
	unsigned who;
	uint64_t inc;

	if (ev->node == 0 || (n = get(d, ev->node)) == NULL)
		return 0;
	switch (ev->type) {
	case TR_BOOT:
		n->up = 1;
		n->inc = ev->inc;
		return 0;
	case TR_CRASH:
	case TR_EXIT:
		n->up = 0;
		return 0;
	case TR_TASK:
		return 0;	/* the guarded command's, not the node's */
	default:
		n->up = 1;
		break;
	}
	/* As elect-check: the incarnation it names, and none other (a
	 * later one's is forged, an earlier one's says nothing new). */
	if (!trace_dead_of(ev, &who, &inc) || who == ev->node ||
	    (p = get(d, who)) == NULL || !p->up || p->inc != inc)
		return 0;
	p->up = 0;
	memset(crash, 0, sizeof(*crash));
	crash->file = ev->file;
	crash->lineno = ev->lineno;
	crash->line = ev->line;
	crash->t = ev->t;
	crash->node = who;
	crash->type = TR_CRASH;
	return 1;
}
