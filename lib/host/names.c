/* The registry of named leaderships on one host: see names.h. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "host/names.h"
#include "trace/trace.h"

/* The names a trace holds are the names a host knows. */
_Static_assert(HNAMES_LEN == TRACE_NAME_LEN, "a name is the trace's");
_Static_assert(HNAMES_DEFAULT <= TRACE_NAME_COUNT, "a trace holds them");
_Static_assert(HNAMES_LEN <= UINT8_MAX, "a length is one byte");
/* A payload's count is one byte, and the shortest entry is the least a
 * name that follows another can take: its rest is never empty. */
_Static_assert(HNB_ENTRIES_MAX <= UINT8_MAX, "a count is one byte");
_Static_assert(HNB_HDR + HNB_ENTRY_MIN + HNAMES_LEN + 8 + HNB_BODY_MAX <=
    WIRE_PAYLOAD_MAX, "any one entry fits a payload");
/* A tick's save, then one forget or one bid per name. */
_Static_assert(HNAMES_ACTS_MAX >= 1 + 2 * HNAMES_TICK_MAX,
    "a tick's actions fit");

static int
cmp(const struct hname *a, const struct hname *b)
{
	int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);

	return c != 0 ? c : (int)a->len - (int)b->len;
}

RB_PROTOTYPE(hname_tree, hname, e, cmp)
RB_GENERATE(hname_tree, hname, e, cmp)

int
hnames_check(const char *s, size_t len, char *why, size_t whylen)
{
	size_t i;

	if (len == 0) {
		snprintf(why, whylen, "empty name");
		return -1;
	}
	if (len > HNAMES_LEN) {
		snprintf(why, whylen, "name of %zu bytes: %d at most", len,
		    HNAMES_LEN);
		return -1;
	}
	for (i = 0; i < len; i++)
		if (!trace_name_ok(s + i, 1)) {
			snprintf(why, whylen, "name with byte 0x%02x at %zu: "
			    "only A-Z a-z 0-9 . _ -", (unsigned char)s[i], i);
			return -1;
		}
	return 0;
}

int
hnames_init(struct hnames *r, const struct hnames_conf *c)
{
	size_t i;

	assert(c->max >= 1 && c->self >= 1 && c->self <= CLUSTER_ID_MAX);
	assert(c->idle >= c->linger && c->linger >= 0 && c->learn >= 0 &&
	    c->delay >= 0 && c->spread <= 1000);
	memset(r, 0, sizeof(*r));
	r->conf = *c;
	r->floor = c->floor;
	RB_INIT(&r->tree);
	r->pool = calloc(c->max, sizeof(*r->pool));
	r->free = calloc(c->max, sizeof(*r->free));
	if (r->pool == NULL || r->free == NULL) {
		hnames_free(r);
		return -1;
	}
	for (i = 0; i < c->max; i++)
		r->free[i] = c->max - 1 - i;
	r->nfree = c->max;
	r->live[0] = c->self;
	r->nlive = 1;
	return 0;
}

void
hnames_free(struct hnames *r)
{
	free(r->pool);
	free(r->free);
	r->pool = NULL;
	r->free = NULL;
}

uint64_t
hnames_weight(const char *name, size_t len, unsigned id)
{
	/* Any key, the same on every host: weights only spread names. */
	static const uint8_t key[crypto_shorthash_KEYBYTES] = "elect names 1";
	uint8_t in[HNAMES_LEN + 2], h[crypto_shorthash_BYTES];
	uint64_t w = 0;
	size_t i;

	assert(len <= HNAMES_LEN && id <= CLUSTER_ID_MAX);
	in[0] = (uint8_t)(id >> 8);
	in[1] = (uint8_t)id;
	memcpy(in + 2, name, len);
	crypto_shorthash(h, in, len + 2, key);
	for (i = 0; i < sizeof(h); i++)
		w = w << 8 | h[i];
	return w;
}

unsigned
hnames_prefer(const char *name, size_t len, const unsigned *ids, size_t n,
    unsigned self, size_t *rank)
{
	uint64_t w, best = 0, mine = hnames_weight(name, len, self);
	unsigned pick = 0;
	size_t i, above = 0;
	int in = 0;

	/* One hash per member: ties, improbable, go to the higher id, as
	 * elections do. */
	for (i = 0; i < n; i++) {
		w = hnames_weight(name, len, ids[i]);
		if (pick == 0 || w > best || (w == best && ids[i] > pick)) {
			best = w;
			pick = ids[i];
		}
		in |= ids[i] == self;
		above += w > mine || (w == mine && ids[i] > self);
	}
	*rank = in ? above : n;
	assert(!in || (*rank == 0) == (pick == self));
	return pick;
}

static struct hname *
find(const struct hnames *r, const char *s, size_t len)
{
	struct hname key;

	if (len == 0 || len > HNAMES_LEN)
		return NULL;
	memcpy(key.s, s, len);
	key.len = (uint8_t)len;
	return RB_FIND(hname_tree, (struct hname_tree *)&r->tree, &key);
}

const struct hname *
hnames_find(const struct hnames *r, const char *s, size_t len)
{
	return find(r, s, len);
}

const struct hname *
hnames_next(const struct hnames *r, const struct hname *after)
{
	if (after == NULL)
		return RB_MIN(hname_tree, (struct hname_tree *)&r->tree);
	return RB_NEXT(hname_tree, (struct hname_tree *)&r->tree,
	    (struct hname *)after);
}

const struct hname *
hnames_any(const struct hnames *r, const struct hname *after)
{
	const struct hname *h = after == NULL ? r->pool : after + 1;

	for (; h < r->pool + r->top; h++)
		if (h->len > 0)
			return h;
	return NULL;
}

static struct hnames_action *
act(struct hnames_out *o, enum hnames_act_type type, const struct hname *h)
{
	struct hnames_action *a;

	assert(o->n < HNAMES_ACTS_MAX);
	a = &o->v[o->n++];
	memset(a, 0, sizeof(*a));
	a->type = type;
	if (h != NULL) {
		memcpy(a->name, h->s, h->len + 1);
		a->len = h->len;
	}
	return a;
}

static int
live(const struct hnames *r, unsigned id)
{
	size_t i;

	for (i = 0; i < r->nlive; i++)
		if (r->live[i] == id)
			return 1;
	return 0;
}

/* When this host may bid for H: never while a live member holds it or
 * nobody here wants it, not before it has had time to hear a holder,
 * and later by its rank among the live, counted from when it became
 * vacant, so that a core stepping often does not put the bid off. */
static void
plan(struct hnames *r, struct hname *h, int64_t now)
{
	int64_t from;
	size_t turns;

	if (h->regs == 0 || h->bidding || h->holder == r->conf.self ||
	    (h->holder != 0 && live(r, h->holder))) {
		h->bid_at = h->vacant = -1;
		h->deferred = 0;
		return;
	}
	if (h->vacant == -1)
		h->vacant = now;
	hnames_prefer(h->s, h->len, r->live, r->nlive, r->conf.self,
	    &h->rank);
	from = h->created + r->conf.learn;
	if (from < h->vacant)
		from = h->vacant;
	turns = h->rank + (h->deferred ? r->nlive : 0);
	h->bid_at = from + (int64_t)turns * r->conf.delay;
}

static int64_t
idle_at(const struct hnames *r, const struct hname *h)
{
	int64_t t = h->last > h->busy ? h->last : h->busy;

	if (h->heard > t)
		t = h->heard;

	if (h->regs > 0 || h->holder == r->conf.self || h->bidding)
		return -1;
	return t + r->conf.idle;
}

/* The most names this host holds or bids for before it lets the others
 * bid first: an even share of the names known here among the live,
 * conf.spread percent more, rounded up.  The live hold n times that,
 * more than every name: each finds a host. */
static size_t
cap(const struct hnames *r)
{
	size_t known = r->conf.max - r->nfree;

	return (known * (100 + r->conf.spread) + 100 * r->nlive - 1) /
	    (100 * r->nlive);
}

static void
wake_at(int64_t *wake, int64_t t)
{
	if (t != -1 && (*wake == -1 || t < *wake))
		*wake = t;
}

/* The name asked for, H if it was known: created if not, unless it is
 * malformed or beyond the bound (NULL then). */
static struct hname *
create(struct hnames *r, const struct hnames_input *in, struct hname *h,
    struct hnames_out *o)
{
	struct hnames_action *a;

	if (hnames_check(in->name, in->len, o->why, sizeof(o->why)) == -1) {
		act(o, HNAMES_REFUSE, NULL);
		r->n.refused++;
		return NULL;
	}
	if (h == NULL) {
		if (r->nfree == 0) {
			snprintf(o->why, sizeof(o->why), "too many names: "
			    "%zu at most", r->conf.max);
			act(o, HNAMES_REFUSE, NULL);
			r->n.refused++;
			return NULL;
		}
		h = &r->pool[r->free[--r->nfree]];
		if ((size_t)(h - r->pool) >= r->top)
			r->top = (size_t)(h - r->pool) + 1;
		memset(h, 0, sizeof(*h));
		memcpy(h->s, in->name, in->len);
		h->len = (uint8_t)in->len;
		h->floor = h->k = r->floor;
		h->created = h->last = in->now;
		h->bid_at = h->vacant = -1;
		RB_INSERT(hname_tree, &r->tree, h);
		r->n.created++;
		a = act(o, HNAMES_CREATE, h);
		a->floor = h->floor;
	}
	return h;
}

static struct hname *
registers(struct hnames *r, const struct hnames_input *in, struct hname *h,
    struct hnames_out *o)
{
	if ((h = create(r, in, h, o)) != NULL && ++h->regs == 1)
		plan(r, h, in->now);
	return h;
}

/* A peer's batch named it: its core grants for it, and keeps it. */
static struct hname *
heard(struct hnames *r, const struct hnames_input *in, struct hname *h,
    struct hnames_out *o)
{
	if ((h = create(r, in, h, o)) != NULL && in->now > h->heard)
		h->heard = in->now;
	return h;
}

static void
releases(struct hnames *r, const struct hnames_input *in, struct hname *h,
    struct hnames_out *o)
{
	if (h == NULL || h->regs == 0)
		return;
	if (--h->regs > 0)
		return;
	h->last = in->now;
	if (h->holder == r->conf.self || h->bidding)
		act(o, HNAMES_RESIGN, h);
	h->bidding = 0;
	if (h->holder == r->conf.self) {
		h->holder = 0;
		h->token = 0;
	}
	plan(r, h, in->now);
}

static void
core(struct hnames *r, const struct hnames_input *in, struct hname *h)
{
	if (h == NULL)
		return;
	if (in->k > h->k)
		h->k = in->k;
	if (in->token > h->k)
		h->k = in->token;
	if (in->busy > h->busy)
		h->busy = in->busy;
	h->holder = in->holder;
	h->token = in->holder == r->conf.self ? in->token : 0;
	/* A holder known ends the bid, won or lost. */
	if (h->holder != 0)
		h->bidding = 0;
	plan(r, h, in->now);
}

static void
members(struct hnames *r, const struct hnames_input *in,
    struct hnames_out *o)
{
	struct hname *h;
	size_t i, j, n = 0;
	unsigned id, *v = r->live;
	int self = 0;

	for (i = 0; i < in->nids && n < CLUSTER_NODES_MAX - 1; i++) {
		id = in->ids[i];
		if (id == 0 || id > CLUSTER_ID_MAX)
			continue;
		for (j = 0; j < n && v[j] != id; j++)
			;
		if (j < n)
			continue;
		v[n++] = id;
		self |= id == r->conf.self;
	}
	if (!self)
		v[n++] = r->conf.self;
	r->nlive = n;
	RB_FOREACH(h, hname_tree, &r->tree) {
		plan(r, h, in->now);
		wake_at(&o->wake, h->bid_at);
	}
}

/* Idle names forgotten, the floor written first if they raise it, and
 * the bids due, HNAMES_TICK_MAX of each at most: the rest at once in
 * the next tick. */
static void
tick(struct hnames *r, int64_t now, struct hnames_out *o)
{
	struct hname *h, *nx, *gone[HNAMES_TICK_MAX];
	struct hnames_action *a;
	uint64_t floor = r->floor;
	size_t i, ngone = 0, nbid = 0;
	int64_t t;

	RB_FOREACH(h, hname_tree, &r->tree) {
		t = idle_at(r, h);
		if (t != -1 && t <= now) {
			if (ngone == HNAMES_TICK_MAX) {
				wake_at(&o->wake, now);
				continue;
			}
			gone[ngone++] = h;
			if (h->k > floor)
				floor = h->k;
			continue;
		}
		wake_at(&o->wake, t);
		if (h->bid_at == -1)
			continue;
		if (h->bid_at > now || nbid == HNAMES_TICK_MAX) {
			wake_at(&o->wake, h->bid_at > now ? h->bid_at : now);
			continue;
		}
		/* Loaded: after every live member's turn, once. */
		if (!h->deferred && r->n.held + r->nbid >= cap(r)) {
			h->deferred = 1;
			h->bid_at += (int64_t)r->nlive * r->conf.delay;
			if (h->bid_at > now) {
				wake_at(&o->wake, h->bid_at);
				continue;
			}
		}
		nbid++;
		r->nbid++;
		a = act(o, HNAMES_BID, h);
		a->rank = h->rank;
		h->bidding = 1;
		plan(r, h, now);
	}
	if (floor > r->floor) {
		r->floor = floor;
		act(o, HNAMES_SAVE, NULL)->floor = floor;
	}
	for (i = 0; i < ngone; i++) {
		h = gone[i];
		/* The floor kept is above every K the name reached. */
		assert(h->k <= r->floor && h->regs == 0);
		act(o, HNAMES_FORGET, h);
		nx = RB_REMOVE(hname_tree, &r->tree, h);
		assert(nx == h);
		h->len = 0;	/* free, for hnames_any() */
		r->free[r->nfree++] = (size_t)(h - r->pool);
		r->n.forgotten++;
	}
}

/* H's part in the counters, taken out before it changes and put back
 * after, so that no input walks every name for them. */
static void
tally(struct hnames *r, const struct hname *h, int sign)
{
	size_t held = h->holder == r->conf.self;
	size_t waiting = h->regs > 0 && !held;
	size_t bid = (size_t)h->bidding;

	if (sign > 0) {
		r->n.held += held;
		r->n.waiting += waiting;
		r->nbid += bid;
	} else {
		assert(r->n.held >= held && r->n.waiting >= waiting &&
		    r->nbid >= bid);
		r->n.held -= held;
		r->n.waiting -= waiting;
		r->nbid -= bid;
	}
	/* A name held here carries its token, above its floor. */
	assert(!held || h->token == 0 || h->token > h->floor);
}

void
hnames_step(struct hnames *r, const struct hnames_input *in,
    struct hnames_out *o)
{
	struct hname *h = NULL;

	o->n = 0;
	o->why[0] = '\0';
	o->wake = -1;
	if (in->type == HNAMES_IN_REGISTER || in->type == HNAMES_IN_RELEASE ||
	    in->type == HNAMES_IN_CORE || in->type == HNAMES_IN_HEARD)
		h = find(r, in->name, in->len);
	if (h != NULL)
		tally(r, h, -1);
	switch (in->type) {
	case HNAMES_IN_TICK:
		tick(r, in->now, o);
		break;
	case HNAMES_IN_REGISTER:
		h = registers(r, in, h, o);
		break;
	case HNAMES_IN_RELEASE:
		releases(r, in, h, o);
		break;
	case HNAMES_IN_CORE:
		core(r, in, h);
		break;
	case HNAMES_IN_MEMBERS:
		members(r, in, o);
		break;
	case HNAMES_IN_HEARD:
		h = heard(r, in, h, o);
		break;
	}
	if (h != NULL) {
		tally(r, h, 1);
		wake_at(&o->wake, idle_at(r, h));
		wake_at(&o->wake, h->bid_at);
	}
	r->n.known = r->conf.max - r->nfree;
	assert(r->n.held <= r->n.known && r->n.waiting <= r->n.known &&
	    r->nbid <= r->n.waiting);
}

void
hnb_start(struct hnb_writer *w, uint8_t *buf, size_t cap)
{
	assert(cap >= HNB_HDR);
	memset(w, 0, sizeof(*w));
	w->buf = buf;
	w->cap = cap > WIRE_PAYLOAD_MAX ? WIRE_PAYLOAD_MAX : cap;
	w->len = HNB_HDR;
}

int
hnb_put(struct hnb_writer *w, const struct hnb_entry *e)
{
	size_t shared = 0, rest, need, i;
	uint8_t *p;

	assert(e->len >= 1 && e->len <= HNAMES_LEN);
	assert(e->kind >= HNB_HELD && e->kind < HNB_KINDS);
	assert(e->blen <= HNB_BODY_MAX && (!HNB_TOKEN(e->kind) ||
	    e->token != 0));
	if (w->count > 0) {
		while (shared < w->prevlen && shared < e->len &&
		    w->prev[shared] == e->name[shared])
			shared++;
		/* In order, and each once. */
		assert(shared < e->len && (shared == w->prevlen ||
		    (uint8_t)w->prev[shared] < (uint8_t)e->name[shared]));
	}
	rest = e->len - shared;
	need = 3 + rest + (HNB_TOKEN(e->kind) ? 8 : 0) + 1 + e->blen;
	if (w->count == HNB_ENTRIES_MAX || w->len + need > w->cap)
		return -1;
	p = w->buf + w->len;
	*p++ = (uint8_t)shared;
	*p++ = (uint8_t)rest;
	memcpy(p, e->name + shared, rest);
	p += rest;
	*p++ = (uint8_t)e->kind;
	if (HNB_TOKEN(e->kind))
		for (i = 0; i < 8; i++)
			*p++ = (uint8_t)(e->token >> (56 - 8 * i));
	*p++ = (uint8_t)e->blen;
	if (e->blen > 0)
		memcpy(p, e->body, e->blen);
	p += e->blen;
	assert((size_t)(p - w->buf) == w->len + need);
	w->len += need;
	w->count++;
	memcpy(w->prev, e->name, e->len);
	w->prevlen = e->len;
	return 0;
}

size_t
hnb_end(struct hnb_writer *w)
{
	if (w->count == 0)
		return 0;
	w->buf[0] = HNB_VERSION;
	w->buf[1] = (uint8_t)w->count;
	return w->len;
}

int
hnb_parse(const uint8_t *p, size_t len, struct hnb_entry *v,
    const char **why)
{
	size_t off = HNB_HDR, count, k, shared, rest, i, prevlen = 0;
	const char *prev = NULL;
	struct hnb_entry *e;
	char tmp[HNAMES_WHY_MAX];

	if (len < HNB_HDR || len > WIRE_PAYLOAD_MAX)
		return *why = "names: bad length", -1;
	if (p[0] != HNB_VERSION)
		return *why = "names: unknown version", -1;
	count = p[1];
	if (count == 0 || count > HNB_ENTRIES_MAX)
		return *why = "names: bad count", -1;
	for (k = 0; k < count; k++) {
		e = &v[k];
		memset(e, 0, sizeof(*e));
		if (len - off < 2)
			return *why = "names: short", -1;
		shared = p[off];
		rest = p[off + 1];
		off += 2;
		if (shared > prevlen || rest == 0 ||
		    shared + rest > HNAMES_LEN)
			return *why = "names: bad name length", -1;
		if (len - off < rest + 2)
			return *why = "names: short", -1;
		if (shared > 0)
			memcpy(e->name, prev, shared);
		memcpy(e->name + shared, p + off, rest);
		e->len = shared + rest;
		off += rest;
		if (hnames_check(e->name, e->len, tmp, sizeof(tmp)) == -1)
			return *why = "names: bad name", -1;
		/* Strictly increasing: after the shared bytes, a greater
		 * byte, or the one before ended there. */
		if (k > 0 && shared < prevlen &&
		    (uint8_t)e->name[shared] <= (uint8_t)prev[shared])
			return *why = "names: out of order", -1;
		e->kind = p[off++];
		if (e->kind < HNB_HELD || e->kind >= HNB_KINDS)
			return *why = "names: bad kind", -1;
		if (HNB_TOKEN(e->kind)) {
			if (len - off < 9)
				return *why = "names: short", -1;
			for (i = 0; i < 8; i++)
				e->token = e->token << 8 | p[off + i];
			off += 8;
			if (e->token == 0)
				return *why = "names: a token of 0", -1;
		}
		e->blen = p[off++];
		if (len - off < e->blen)
			return *why = "names: short", -1;
		e->body = p + off;
		off += e->blen;
		prev = e->name;
		prevlen = e->len;
	}
	if (off != len)
		return *why = "names: trailing bytes", -1;
	return (int)count;
}

int
hnames_entry(const struct hnames *r, const struct hname *h,
    struct hnb_entry *e)
{
	int held = h->holder == r->conf.self && h->token != 0;

	if (!held && h->regs == 0)
		return -1;
	memset(e, 0, sizeof(*e));
	memcpy(e->name, h->s, h->len);
	e->len = h->len;
	e->kind = held ? HNB_HELD : HNB_WANT;
	e->token = held ? h->token : 0;
	return 0;
}

const struct hname *
hnames_batch(const struct hnames *r, const struct hname *after,
    struct hnb_writer *w, int *done)
{
	const struct hname *h;
	struct hnb_entry e;

	*done = 0;
	for (h = hnames_next(r, after); h != NULL; h = hnames_next(r, h)) {
		if (hnames_entry(r, h, &e) == -1)
			continue;
		if (hnb_put(w, &e) == -1)
			return after;
		after = h;
	}
	*done = 1;
	return after;
}
