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
 * creator, seq= and qt= (the same pairs in any order) or its digest qd=;
 * a receiver keeps, for each creator, the latest creation it delivered.  Creations by
 * two nodes compare only when they are more than the skew bound apart.
 * A delivery waits for its edict line as long as that line could still
 * come (its time plus the skew); an edict that never comes cannot be
 * ordered and leaves the assertion undecided.  Edicts are remembered up
 * to EDICT_MAX, the oldest forgotten first.
 */
#include <sys/queue.h>

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "check/lease.h"

#define EDICT_MAX	(1u << 16)	/* edicts remembered */
#define EDICT_RECENT	8		/* the latest, looked at first */
#define PEND_MAX	1024		/* deliveries waiting, per receiver */
#define QT_KEPT		4		/* quorum timestamps kept hashed */
#define QT_KEPT_LEN	256		/* longer ones are hashed each time */

struct valid {
	struct lw	*w;
};

static void *
valid_init(const struct check_opts *o)
{
	struct valid *v;

	if ((v = calloc(1, sizeof(*v))) != NULL)
		v->w = o->model;
	return v;
}

static void
valid_finish(void *arg, const struct trace_event *last,
    struct check_out *out)
{
	struct valid *v = arg;

	lw_finish(v->w, last, out);
}

static void
valid_event(void *arg, const struct trace_event *ev, struct check_out *out)
{
	struct valid *v = arg;
	const struct lw_node *n;
	char b[2][TIME_BUFLEN];

	if (ev->type != TR_EDICT || (n = lw_node(v->w, ev->node)) == NULL ||
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
	.finish = valid_finish,
	.free = free,
	.events = 1u << TR_EDICT,
	.model = &lw_model,
	.per_name = 1,
};

/*
 * An edict: who made it, which, and when.  The edicts remembered are
 * kept oldest first in a ring that grows up to EDICT_MAX, indexed by
 * (creator, seq, qt) in a table with linear probing: a tree and an
 * allocation per edict cost more than all the other work on its line.
 */
struct edict {
	unsigned	 from;
	uint32_t	 hash;		/* edict_hash() of the three */
	uint64_t	 seq;
	uint64_t	 qt;		/* hash of the sorted quorum timestamp */
	struct inst	 made;
};

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
	struct edict	*ring;		/* the edicts, from ring[head] on */
	size_t		 ringcap, head, nedicts;
	struct eslot {
		uint32_t	 at;	/* ring position + 1; 0: empty */
		uint32_t	 hash;
	}		*slot;		/* the index */
	size_t		 nslot;		/* twice ringcap, a power of two */
	int		 forgot;
	struct edict	 last;		/* the last edict line's, if fresh */
	int		 fresh;
	size_t		*waiting;	/* receivers with deliveries waiting */
	size_t		 nwaiting, waitcap;
	trace_time	 now;
	uint64_t	 lines;
	int		 undecided, nomem;
	unsigned char	 key[crypto_shorthash_KEYBYTES];
	struct trace_qt	 qt[TRACE_QT_MAX];
	unsigned char	 qtbuf[TRACE_QT_MAX * 12];
	/* The last quorum timestamps hashed, as written: an edict's comes
	 * again on every delivery of it. */
	struct {
		size_t		 n;
		uint64_t	 hash;
		char		 s[QT_KEPT_LEN];
	}		 qtkept[QT_KEPT];
	unsigned	 qtnext, qtlast;
};

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
	arc4random_buf(d->key, sizeof(d->key));
	return d;
}

static void
order_free(void *arg)
{
	struct order *d = arg;
	size_t i;

	free(d->ring);
	free(d->slot);
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
qt_hash_new(struct order *d, struct trace_str s)
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

static uint64_t
qt_hash(struct order *d, struct trace_str s)
{
	size_t j, k;

	/* The one seen last first: deliveries of an edict follow it. */
	for (j = 0; j < QT_KEPT; j++) {
		k = (d->qtlast + j) % QT_KEPT;
		if (d->qtkept[k].n == s.n && memcmp(d->qtkept[k].s, s.p,
		    s.n) == 0) {
			d->qtlast = k;
			return d->qtkept[k].hash;
		}
	}
	if (s.n > QT_KEPT_LEN)
		return qt_hash_new(d, s);
	d->qtlast = k = d->qtnext++ % QT_KEPT;
	memcpy(d->qtkept[k].s, s.p, s.n);
	d->qtkept[k].n = s.n;
	d->qtkept[k].hash = qt_hash_new(d, s);
	return d->qtkept[k].hash;
}

/* The quorum timestamp of an edict or delivery line, by its pairs or by
 * the digest a writer gave instead (no pair has id 0: the two cannot
 * name the same). */
static uint64_t
stamp_hash(struct order *d, const struct trace_event *ev)
{
	unsigned char b[12] = { 0 }, h[crypto_shorthash_BYTES];
	uint64_t v;

	if (!(ev->have & HAVE_QD))
		return qt_hash(d, ev->qt);
	memcpy(b + 4, &ev->qd, 8);
	crypto_shorthash(h, b, sizeof(b), d->key);
	memcpy(&v, h, sizeof(v));
	return v;
}

static uint32_t
edict_hash(unsigned from, uint64_t seq, uint64_t qt)
{
	uint64_t h = qt ^ (seq + from * UINT64_C(0x9e3779b97f4a7c15)) *
	    UINT64_C(0xbf58476d1ce4e5b9);

	return (uint32_t)(h ^ h >> 32);
}

/* The slot of the edict, or of the empty place where it would go; the
 * ring is only looked at when the hashes agree. */
static size_t
edict_slot(const struct order *d, unsigned from, uint64_t seq, uint64_t qt,
    uint32_t h)
{
	size_t i = h & (d->nslot - 1);

	for (; d->slot[i].at != 0; i = (i + 1) & (d->nslot - 1)) {
		const struct edict *e = &d->ring[d->slot[i].at - 1];

		if (d->slot[i].hash == h && e->from == from && e->seq == seq &&
		    e->qt == qt)
			break;
	}
	return i;
}

static const struct edict *
edict_find(const struct order *d, unsigned from, uint64_t seq, uint64_t qt)
{
	size_t i, k;

	/* Most deliveries are of the latest edicts: look there first, in
	 * memory that is at hand, before a probe anywhere in the table. */
	for (k = 1; k <= EDICT_RECENT && k <= d->nedicts; k++) {
		const struct edict *e = &d->ring[(d->head + d->nedicts - k) %
		    d->ringcap];

		if (e->from == from && e->seq == seq && e->qt == qt)
			return e;
	}
	if (d->nedicts <= EDICT_RECENT)
		return NULL;
	i = edict_slot(d, from, seq, qt, edict_hash(from, seq, qt));
	return d->slot[i].at == 0 ? NULL : &d->ring[d->slot[i].at - 1];
}

/* Forgets the oldest edict; later ones in its run of slots move up. */
static void
edict_forget(struct order *d)
{
	const struct edict *e = &d->ring[d->head];
	size_t i, j, home, mask = d->nslot - 1;

	i = e->hash & mask;
	while (d->slot[i].at != d->head + 1)
		i = (i + 1) & mask;
	for (j = (i + 1) & mask; d->slot[j].at != 0; j = (j + 1) & mask) {
		home = d->slot[j].hash & mask;
		/* Movable when its home is not cyclically within (i, j]. */
		if (i <= j ? home <= i || home > j : home <= i && home > j) {
			d->slot[i] = d->slot[j];
			i = j;
		}
	}
	d->slot[i].at = 0;
	d->head = (d->head + 1) % d->ringcap;
	d->nedicts--;
	d->forgot = 1;
}

/* Puts the edict at ring position K in the index. */
static void
edict_index(struct order *d, size_t k)
{
	struct edict *e = &d->ring[k];
	size_t i;

	e->hash = edict_hash(e->from, e->seq, e->qt);
	i = edict_slot(d, e->from, e->seq, e->qt, e->hash);
	d->slot[i].at = (uint32_t)k + 1;
	d->slot[i].hash = e->hash;
}

/* Doubles the ring, oldest first from 0, and indexes it again. */
static int
edict_grow(struct order *d)
{
	size_t cap = d->ringcap == 0 ? 64 : d->ringcap * 2, i;
	struct edict *ring;
	struct eslot *slot;

	if (cap > EDICT_MAX)
		cap = EDICT_MAX;
	if ((ring = reallocarray(NULL, cap, sizeof(*ring))) == NULL ||
	    (slot = calloc(cap * 2, sizeof(*slot))) == NULL) {
		free(ring);
		return -1;
	}
	for (i = 0; i < d->nedicts; i++)
		ring[i] = d->ring[(d->head + i) % d->ringcap];
	free(d->ring);
	free(d->slot);
	d->ring = ring;
	d->slot = slot;
	d->ringcap = cap;
	d->nslot = cap * 2;
	d->head = 0;
	for (i = 0; i < d->nedicts; i++)
		edict_index(d, i);
	return 0;
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
		if ((i = idmap_new(&d->ids, id)) == -1) {
			free(d->r[d->ids.n]);
			return NULL;
		}
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
		const struct edict *e;

		if ((e = edict_find(d, p->from, p->seq, p->qt)) != NULL)
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

/* Remembers the edict made last, unless it was made twice (the first one
 * counts). */
static void
order_settle(struct order *d)
{
	size_t k;

	if (!d->fresh)
		return;
	d->fresh = 0;
	if (edict_find(d, d->last.from, d->last.seq, d->last.qt) != NULL)
		return;
	if (d->nedicts == d->ringcap && d->ringcap < EDICT_MAX &&
	    edict_grow(d) == -1) {
		d->nomem = 1;
		return;
	}
	if (d->nedicts == EDICT_MAX)
		edict_forget(d);
	k = (d->head + d->nedicts++) % d->ringcap;
	d->ring[k] = d->last;
	edict_index(d, k);
	/* The next to forget: its place in the index is far from any other
	 * that the lines until then touch. */
	if (d->nedicts == EDICT_MAX)
		__builtin_prefetch(&d->slot[d->ring[d->head].hash &
		    (d->nslot - 1)]);
}

/*
 * An edict line.  Its place in the index is anywhere in a table larger
 * than the caches: it is fetched now and the edict put there at the next
 * line, unless deliveries wait for it now.
 */
static void
order_edict(struct order *d, const struct trace_event *ev, uint64_t line)
{
	struct edict *e = &d->last;

	e->from = ev->node;
	e->seq = ev->seq;
	e->qt = stamp_hash(d, ev);
	e->made = inst_line(ev->t, line);
	e->hash = edict_hash(e->from, e->seq, e->qt);
	d->fresh = 1;
	if (d->nslot > 0)
		__builtin_prefetch(&d->slot[e->hash & (d->nslot - 1)]);
	if (d->nwaiting > 0)
		order_settle(d);
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
	qt = stamp_hash(d, ev);
	if (r->qn == 0) {
		const struct edict *e;

		if ((e = edict_find(d, ev->from, ev->seq, qt)) != NULL) {
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

	order_settle(d);
	d->lines++;
	if (ev->t > d->now)
		d->now = ev->t;
	if (ev->type == TR_EDICT)
		order_edict(d, ev, d->lines);
	else if (ev->type == TR_DELIVER)
		order_wait(d, ev, out);
	if (d->nwaiting > 0)
		order_drain_all(d, ev, out);
	/*
	 * Nothing to settle or drain: a calm line left out moves only the
	 * count of lines, whose order it keeps, and the time, which decides
	 * nothing until a delivery waits; by then every line left out is
	 * within the skew of the delivery's time, or the trace is out of
	 * order and no longer judged here.
	 */
	check_calm(out, !d->fresh && d->nwaiting == 0 ? TIME_MAX : TIME_MIN);
}

static void
order_finish(void *arg, const struct trace_event *last, struct check_out *out)
{
	struct order *d = arg;

	order_settle(d);
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
	.per_name = 1,
};
