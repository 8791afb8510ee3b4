/*
 * Nerio's edicts: Edict Validity (2) and Edict Ordering (3).
 *
 * edict-validity: an `edict` line samples its creator's clock at the
 * moment of creation (section 7), so the creator must lead at that very
 * clock value: its leadership (lease.h) is still running once the sample
 * has been applied.
 *
 * edict-order: a `deliver` line says that its node ordered the edict
 * after every edict it delivered before, which must be the order of their
 * real creation times.  Deliveries are matched to `edict` lines by
 * creator, seq= and qt= (the same pairs in any order); a receiver keeps,
 * for each creator, the latest creation it has delivered.  Creations by
 * two nodes compare only when they are more than the skew bound apart.
 * A delivery waits for its edict line as long as that line could still
 * come (its time plus the skew); an edict that never comes cannot be
 * ordered and leaves the assertion undecided.  Edicts are remembered up
 * to EDICT_MAX, the oldest forgotten first.
 */
#include <sys/queue.h>
#include <sys/tree.h>

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "check/lease.h"

#define EDICT_MAX	(1u << 16)	/* edicts remembered */
#define PEND_MAX	1024		/* deliveries waiting, per receiver */

struct valid {
	struct lw	 w;
};

static void *
valid_init(const struct check_opts *o)
{
	return lw_new(sizeof(struct valid), o);
}

static void
valid_event(void *arg, const struct trace_event *ev, struct check_out *out)
{
	struct valid *v = arg;
	const struct lw_node *n;
	char b[2][TIME_BUFLEN];

	lw_event(&v->w, ev);
	if (ev->type != TR_EDICT || (n = lw_node(&v->w, ev->node)) == NULL ||
	    n->lead.on)
		return;
	if (n->lead.gen == 0)
		check_violation(out, ev, "node %u created edict %llu at clock "
		    "%s but never led", n->id, (unsigned long long)ev->seq,
		    time_str(b[0], ev->clock));
	else if (n->lead.why == LW_DOWN)
		check_violation(out, ev, "node %u created edict %llu at clock "
		    "%s but stopped leading when it went down at %s", n->id,
		    (unsigned long long)ev->seq, time_str(b[0], ev->clock),
		    time_str(b[1], n->lead.nominal));
	else if (n->lead.why == LW_CLOCK)
		check_violation(out, ev, "node %u created edict %llu at clock "
		    "%s after its clock went back", n->id,
		    (unsigned long long)ev->seq, time_str(b[0], ev->clock));
	else if (n->lead.why == LW_LAPSE)
		check_violation(out, ev, "node %u created edict %llu at clock "
		    "%s but its lease ran out at clock %s", n->id,
		    (unsigned long long)ev->seq, time_str(b[0], ev->clock),
		    time_str(b[1], n->lead.until));
	else
		check_violation(out, ev, "node %u created edict %llu at clock "
		    "%s but gave its leadership up at %s", n->id,
		    (unsigned long long)ev->seq, time_str(b[0], ev->clock),
		    time_str(b[1], n->lead.nominal));
}

const struct check_ops check_edict_validity = {
	.name = "edict-validity",
	.init = valid_init,
	.event = valid_event,
	.finish = lw_finish,
	.free = lw_delete,
};

/* An edict: who made it, which, and when. */
struct edict {
	RB_ENTRY(edict)	 tree;
	TAILQ_ENTRY(edict) fifo;
	unsigned	 from;
	uint64_t	 seq;
	uint64_t	 qt;		/* hash of the sorted quorum timestamp */
	struct inst	 made;
};
RB_HEAD(edicts, edict);
TAILQ_HEAD(edictq, edict);

/* The latest creation a receiver delivered from one creator. */
struct latest {
	unsigned	 from;
	uint64_t	 seq;
	struct inst	 made;
};

struct pending {
	TAILQ_ENTRY(pending) q;
	unsigned	 from;
	uint64_t	 seq, qt;
	trace_time	 t;
};

struct receiver {
	unsigned	 id;
	struct latest	*latest;
	size_t		 nlatest, latestcap;
	TAILQ_HEAD(, pending) q;
	size_t		 qn;
	int		 listed;	/* in order.waiting */
};

struct order {
	trace_time	 skew;
	struct idmap	 ids;
	struct receiver	**r;
	size_t		 cap;
	struct edicts	 edicts;
	struct edictq	 fifo;
	size_t		 nedicts;
	int		 forgot;
	size_t		*waiting;	/* receivers with deliveries waiting */
	size_t		 nwaiting, waitcap;
	trace_time	 now;
	uint64_t	 lines;
	int		 undecided, nomem;
	unsigned char	 key[crypto_shorthash_KEYBYTES];
	struct trace_qt	 qt[TRACE_QT_MAX];
	unsigned char	 qtbuf[TRACE_QT_MAX * 12];
};

static int
edict_cmp(const struct edict *x, const struct edict *y)
{
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->qt != y->qt)
		return x->qt < y->qt ? -1 : 1;
	return 0;
}

RB_PROTOTYPE(edicts, edict, tree, edict_cmp)
RB_GENERATE(edicts, edict, tree, edict_cmp)

static void *
order_init(const struct check_opts *o)
{
	struct order *d;

	if (sodium_init() == -1 || (d = calloc(1, sizeof(*d))) == NULL)
		return NULL;
	if (idmap_init(&d->ids) == -1) {
		free(d);
		return NULL;
	}
	d->skew = o->skew;
	RB_INIT(&d->edicts);
	TAILQ_INIT(&d->fifo);
	return d;
}

static void
order_free(void *arg)
{
	struct order *d = arg;
	struct edict *e;
	size_t i;

	while ((e = TAILQ_FIRST(&d->fifo)) != NULL) {
		TAILQ_REMOVE(&d->fifo, e, fifo);
		free(e);
	}
	for (i = 0; i < d->ids.n; i++) {
		struct pending *p;

		while ((p = TAILQ_FIRST(&d->r[i]->q)) != NULL) {
			TAILQ_REMOVE(&d->r[i]->q, p, q);
			free(p);
		}
		free(d->r[i]->latest);
		free(d->r[i]);
	}
	free(d->r);
	free(d->waiting);
	idmap_free(&d->ids);
	free(d);
}

/* A quorum timestamp is a set: hash its pairs in order of id. */
static uint64_t
qt_hash(struct order *d, struct trace_str s)
{
	unsigned char h[crypto_shorthash_BYTES];
	uint64_t v;
	int i, n;

	if ((n = trace_parse_qt(s, d->qt, TRACE_QT_MAX)) <= 0)
		return 0;
	/* By id, then time; writers usually give them in order already. */
	for (i = 1; i < n; i++) {
		struct trace_qt x = d->qt[i];
		int j;

		for (j = i; j > 0 && (d->qt[j - 1].id > x.id ||
		    (d->qt[j - 1].id == x.id && d->qt[j - 1].t > x.t)); j--)
			d->qt[j] = d->qt[j - 1];
		d->qt[j] = x;
	}
	for (i = 0; i < n; i++) {
		uint32_t id = d->qt[i].id;
		uint64_t t = (uint64_t)d->qt[i].t;

		memcpy(d->qtbuf + 12 * i, &id, 4);
		memcpy(d->qtbuf + 12 * i + 4, &t, 8);
	}
	crypto_shorthash(h, d->qtbuf, (unsigned long long)n * 12, d->key);
	memcpy(&v, h, sizeof(v));
	return v;
}

static struct receiver *
receiver(struct order *d, unsigned id, size_t *idx)
{
	long i = idmap_find(&d->ids, id);

	if (i == -1) {
		struct receiver **r;

		if (d->ids.n == d->cap) {
			if ((r = array_grow(d->r, &d->cap, sizeof(*r))) == NULL)
				return NULL;
			d->r = r;
		}
		if ((d->r[d->ids.n] = calloc(1, sizeof(**r))) == NULL)
			return NULL;
		i = idmap_new(&d->ids, id);
		d->r[i]->id = id;
		TAILQ_INIT(&d->r[i]->q);
	}
	*idx = (size_t)i;
	return d->r[i];
}

static void
order_unknown(struct order *d, const struct receiver *r,
    const struct pending *p, const struct trace_event *ev,
    struct check_out *out)
{
	if (d->undecided++ > 0)
		return;
	check_undecided(out, ev, "node %u delivered edict %u/%llu, %s", r->id,
	    p->from, (unsigned long long)p->seq, d->forgot ?
	    "which was made too long before to be remembered, or never" :
	    "which no edict line made");
}

/* Receiver R delivers edict E after those it delivered before. */
static void
order_deliver(struct order *d, struct receiver *r, const struct edict *e,
    const struct trace_event *ev, struct check_out *out)
{
	struct latest *l, *mine = NULL, *after = NULL;
	char b[2][TIME_BUFLEN];
	size_t i;

	for (i = 0; i < r->nlatest; i++) {
		struct inst made = e->made;

		l = &r->latest[i];
		if (l->from == e->from)
			mine = l;
		else
			made = inst_late(made, d->skew);
		if (inst_lt(made, l->made) &&
		    (after == NULL || inst_lt(after->made, l->made)))
			after = l;
	}
	if (after != NULL)
		check_violation(out, ev, "node %u delivered edict %u/%llu "
		    "(made at %s) after edict %u/%llu (made at %s)", r->id,
		    e->from, (unsigned long long)e->seq, time_str(b[0],
		    e->made.t), after->from, (unsigned long long)after->seq,
		    time_str(b[1], after->made.t));
	if (mine == NULL) {
		if (r->nlatest == r->latestcap) {
			l = array_grow(r->latest, &r->latestcap, sizeof(*l));
			if (l == NULL) {
				d->nomem = 1;
				return;
			}
			r->latest = l;
		}
		mine = &r->latest[r->nlatest++];
		*mine = (struct latest){ e->from, e->seq, e->made };
	} else if (inst_lt(mine->made, e->made)) {
		mine->made = e->made;
		mine->seq = e->seq;
	}
}

static void
order_pop(struct receiver *r, struct pending *p)
{
	TAILQ_REMOVE(&r->q, p, q);
	r->qn--;
	free(p);
}

/* Deliveries of R whose edict is known, or can no longer come. */
static void
order_drain(struct order *d, struct receiver *r, const struct trace_event *ev,
    struct check_out *out)
{
	struct pending *p;

	while ((p = TAILQ_FIRST(&r->q)) != NULL) {
		struct edict key, *e;

		key.from = p->from;
		key.seq = p->seq;
		key.qt = p->qt;
		if ((e = RB_FIND(edicts, &d->edicts, &key)) != NULL)
			order_deliver(d, r, e, ev, out);
		else if (d->now > time_add(p->t, d->skew))
			order_unknown(d, r, p, ev, out);
		else
			break;
		order_pop(r, p);
	}
}

static void
order_drain_all(struct order *d, const struct trace_event *ev,
    struct check_out *out)
{
	size_t j = 0;

	while (j < d->nwaiting) {
		struct receiver *r = d->r[d->waiting[j]];

		order_drain(d, r, ev, out);
		if (r->qn == 0) {
			r->listed = 0;
			d->waiting[j] = d->waiting[--d->nwaiting];
		} else
			j++;
	}
}

static void
order_edict(struct order *d, const struct trace_event *ev, uint64_t line)
{
	struct edict *e, *old;

	if ((e = calloc(1, sizeof(*e))) == NULL) {
		d->nomem = 1;
		return;
	}
	e->from = ev->node;
	e->seq = ev->seq;
	e->qt = qt_hash(d, ev->qt);
	e->made = inst_line(ev->t, line);
	if (RB_INSERT(edicts, &d->edicts, e) != NULL) {
		free(e);	/* made twice: the first one counts */
		return;
	}
	TAILQ_INSERT_TAIL(&d->fifo, e, fifo);
	if (++d->nedicts > EDICT_MAX) {
		old = TAILQ_FIRST(&d->fifo);
		TAILQ_REMOVE(&d->fifo, old, fifo);
		RB_REMOVE(edicts, &d->edicts, old);
		free(old);
		d->nedicts--;
		d->forgot = 1;
	}
}

static void
order_wait(struct order *d, const struct trace_event *ev,
    struct check_out *out)
{
	struct receiver *r;
	struct pending *p;
	uint64_t qt;
	size_t i;

	if ((r = receiver(d, ev->node, &i)) == NULL) {
		d->nomem = 1;
		return;
	}
	qt = qt_hash(d, ev->qt);
	if (r->qn == 0) {
		struct edict key, *e;

		key.from = ev->from;
		key.seq = ev->seq;
		key.qt = qt;
		if ((e = RB_FIND(edicts, &d->edicts, &key)) != NULL) {
			order_deliver(d, r, e, ev, out);
			return;
		}
	}
	if (r->qn == PEND_MAX) {
		order_unknown(d, r, TAILQ_FIRST(&r->q), ev, out);
		order_pop(r, TAILQ_FIRST(&r->q));
	}
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		d->nomem = 1;
		return;
	}
	TAILQ_INSERT_TAIL(&r->q, p, q);
	r->qn++;
	p->from = ev->from;
	p->seq = ev->seq;
	p->qt = qt;
	p->t = ev->t;
	if (!r->listed) {
		size_t *w;

		if (d->nwaiting == d->waitcap) {
			w = array_grow(d->waiting, &d->waitcap, sizeof(*w));
			if (w == NULL) {
				d->nomem = 1;
				return;
			}
			d->waiting = w;
		}
		d->waiting[d->nwaiting++] = i;
		r->listed = 1;
	}
}

static void
order_event(void *arg, const struct trace_event *ev, struct check_out *out)
{
	struct order *d = arg;

	d->lines++;
	if (ev->t > d->now)
		d->now = ev->t;
	if (ev->type == TR_EDICT)
		order_edict(d, ev, d->lines);
	else if (ev->type == TR_DELIVER)
		order_wait(d, ev, out);
	if (d->nwaiting > 0)
		order_drain_all(d, ev, out);
}

static void
order_finish(void *arg, const struct trace_event *last, struct check_out *out)
{
	struct order *d = arg;

	d->now = TIME_MAX;
	if (d->nwaiting > 0)
		order_drain_all(d, last, out);
	if (d->nomem)
		check_undecided(out, last, "out of memory");
}

const struct check_ops check_edict_order = {
	.name = "edict-order",
	.init = order_init,
	.event = order_event,
	.finish = order_finish,
	.free = order_free,
};
