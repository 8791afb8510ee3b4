/*
 * epochs: the rules of Nerio's section 10.6 that a trace can show
 * (share/elect/lease.md, Epochs).
 *
 * No grant from a wedged node: once a node wrote `epoch op=wedge
 * epoch=E', it grants nothing more in E, not after a restart either
 * (its wedge is persisted).
 *
 * No lease in E before E-1 is TERMINATED: a `lead' that starts or renews
 * a leadership of epoch E > 0 comes after a majority of E-1 (its size the
 * largest nodes= of the boots of E-1) wrote `epoch op=wedge epoch=E-1',
 * allowing for the skew between the lines of different hosts: it is
 * judged, and a violation reported, at the first line later than the
 * lead by more than the skew, or at the end.  Where no boot of E-1 is in
 * the trace, its size is unknown and the lead is not judged.
 */
#include <assert.h>
#include <stdlib.h>

#include "check/check.h"
#include "check/inst.h"

struct enode {
	unsigned	 id;
	uint64_t	 epoch;		/* of its last boot */
	int		 wedged;	/* in wedged_epoch */
	uint64_t	 wedged_epoch;
};

struct eepoch {
	uint64_t	 epoch;
	unsigned	 size;		/* largest nodes= of its boots, or 0 */
	unsigned	 nwedged;
	trace_time	 majority;	/* when a majority was wedged */
	int		 terminated;
};

/* A lead still to be judged. */
struct elead {
	unsigned	 id;
	uint64_t	 epoch;
	trace_time	 t;
	unsigned long	 lineno;
};

struct epochs {
	trace_time	 skew;
	struct elead	*l;
	size_t		 nl, lcap;
	struct enode	*n;		/* by index of ids */
	size_t		 nn, ncap;
	struct idmap	 ids;
	struct eepoch	*e;
	size_t		 ne, ecap;
	unsigned long	 wedges;	/* wedge lines: none, no renew to judge */
};

static void *
epochs_init(const struct check_opts *o)
{
	struct epochs *x;

	if ((x = calloc(1, sizeof(*x))) != NULL) {
		x->skew = o->skew;
		idmap_init(&x->ids);
	}
	return x;
}

static void
epochs_free(void *arg)
{
	struct epochs *x = arg;

	free(x->n);
	idmap_free(&x->ids);
	free(x->e);
	free(x->l);
	free(x);
}

static struct enode *
node(struct epochs *x, unsigned id)
{
	long i;

	/* Looked up, not searched: a hundred nodes' grants made a walk
	 * through them a tenth of a full trace's checking. */
	if ((i = idmap_find(&x->ids, id)) >= 0)
		return &x->n[i];
	if (x->nn == x->ncap) {
		struct enode *p = array_grow(x->n, &x->ncap, sizeof(*p));

		if (p == NULL)
			return NULL;
		x->n = p;
	}
	if (idmap_new(&x->ids, id) == -1)
		return NULL;
	assert(x->ids.n == x->nn + 1);
	x->n[x->nn] = (struct enode){ .id = id };
	return &x->n[x->nn++];
}

static struct eepoch *
epoch(struct epochs *x, uint64_t e)
{
	size_t i;

	for (i = 0; i < x->ne; i++)
		if (x->e[i].epoch == e)
			return &x->e[i];
	if (x->ne == x->ecap) {
		struct eepoch *p = array_grow(x->e, &x->ecap, sizeof(*p));

		if (p == NULL)
			return NULL;
		x->e = p;
	}
	x->e[x->ne] = (struct eepoch){ .epoch = e };
	return &x->e[x->ne++];
}

static void
terminate(struct eepoch *p, trace_time t)
{
	if (!p->terminated && p->size > 0 && p->nwedged >= p->size / 2 + 1) {
		p->terminated = 1;
		p->majority = t;
	}
}

/* The leads no line still to come can justify, or all at the end. */
static void
judge(struct epochs *x, const struct trace_event *ev, int end,
    struct check_out *out)
{
	struct eepoch *p;
	struct elead *l;
	char b[TIME_BUFLEN];
	size_t i;

	for (i = 0; i < x->nl; ) {
		l = &x->l[i];
		if (!end && ev->t <= time_add(l->t, x->skew)) {
			i++;
			continue;
		}
		p = epoch(x, l->epoch - 1);
		if (p != NULL && (!p->terminated ||
		    time_add(p->majority, -x->skew) > l->t))
			check_violation(out, ev, "node %u leads in epoch %llu "
			    "at %s (line %lu) while %u of %u nodes of epoch "
			    "%llu are wedged, %u needed", l->id,
			    (unsigned long long)l->epoch, time_str(b, l->t),
			    l->lineno, p->nwedged, p->size,
			    (unsigned long long)l->epoch - 1, p->size / 2 + 1);
		x->l[i] = x->l[--x->nl];
	}
}

static void
epochs_take(struct epochs *x, const struct trace_event *ev,
    struct check_out *out)
{
	struct enode *n;
	struct eepoch *p;
	uint64_t e;

	if (x->nl > 0)
		judge(x, ev, 0, out);
	/* Every line may end a wait (above); only these change anything. */
	if (ev->type != TR_BOOT && ev->type != TR_EPOCH &&
	    ev->type != TR_LEASE && ev->type != TR_LEAD &&
	    (ev->type != TR_RENEW || x->wedges == 0))
		return;
	if (ev->node == 0 || (n = node(x, ev->node)) == NULL)
		return;
	e = (ev->have & HAVE_EPOCH) ? ev->epoch : n->epoch;
	switch (ev->type) {
	case TR_BOOT:
		n->epoch = e;
		if ((ev->have & HAVE_NODES) && (p = epoch(x, e)) != NULL &&
		    ev->nodes > p->size) {
			p->size = ev->nodes;
			terminate(p, ev->t);
		}
		break;
	case TR_EPOCH:
		if (ev->op != OP_WEDGE || (n->wedged && n->wedged_epoch == e))
			break;
		n->wedged = 1;
		n->wedged_epoch = e;
		x->wedges++;
		if ((p = epoch(x, e)) != NULL) {
			p->nwedged++;
			terminate(p, ev->t);
		}
		break;
	case TR_LEASE:
		if (ev->op == OP_GRANT && n->wedged && n->wedged_epoch == e)
			check_violation(out, ev, "node %u grants a lease to %u "
			    "in epoch %llu after it wedged", n->id, ev->to,
			    (unsigned long long)e);
		break;
	case TR_RENEW:
		/* Every renewal moves a grant (elect-trace(5)) but a round
		 * of named leaderships without to=; what it renews of a
		 * leadership began at a lead line judged here. */
		if ((ev->have & HAVE_ALLNAMES) && !(ev->have & HAVE_TO))
			break;
		if (n->wedged && n->wedged_epoch == e)
			check_violation(out, ev, "node %u renews a lease in "
			    "epoch %llu after it wedged", n->id,
			    (unsigned long long)e);
		break;
	case TR_LEAD:
		if (ev->until <= ev->clock || e == 0 ||
		    (p = epoch(x, e - 1)) == NULL || p->size == 0)
			break;
		if (p->terminated && time_add(p->majority, -x->skew) <= ev->t)
			break;
		if (x->nl == x->lcap) {
			struct elead *q = array_grow(x->l, &x->lcap,
			    sizeof(*q));

			if (q == NULL)
				break;
			x->l = q;
		}
		x->l[x->nl++] = (struct elead){ n->id, e, ev->t, ev->lineno };
		judge(x, ev, x->skew == 0, out);
		break;
	default:
		break;
	}
}

static void
epochs_event(void *arg, const struct trace_event *ev, struct check_out *out)
{
	struct epochs *x = arg;

	epochs_take(x, ev, out);
	/* No lead waiting and no wedge: a renew line changes nothing. */
	check_calm(out, x->nl == 0 && x->wedges == 0 ? TIME_MAX : TIME_MIN);
}

static void
epochs_finish(void *arg, const struct trace_event *last,
    struct check_out *out)
{
	judge(arg, last, 1, out);
}

const struct check_ops check_epochs = {
	.name = "epochs",
	.init = epochs_init,
	.event = epochs_event,
	.finish = epochs_finish,
	.free = epochs_free,
	.events = 0,	/* every line may end a skew's wait */
	.hosts = 1,
};
