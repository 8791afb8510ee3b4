/* Named leaderships on one host: see named.h. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/named.h"
#include "trace/trace.h"

#define NS		INT64_C(1000000000)
#define DELTA_MAX	(INT64_C(3600) * NS)	/* as the lease core's */
#define EPOCH_SHIFT	40			/* as the lease core's */
#define TOKEN_STRIDE	1024			/* as the lease core's */
/* A clock sample at least this often while anything runs, a round's
 * time: a named grant's renew is no sample (its length differs by
 * name), and a reader places a deadline on a clock drifting 1000 ppm
 * within the margin a lease leaves (2 rho delta and a round trip) only
 * from samples this close. */
#define SAMPLE_EVERY	(NS / 50)
/* The invariants' walk of every name, each step while names are few (as
 * the simulator and the fuzz target run them), at most this often with
 * more: a thousand names walked each step were a host's most work. */
#define CHECK_NAMES	64
#define CHECK_EVERY	(NS / 10)
/* The registry hears of names a grantor keeps this often. */
#define DENY_BODY	11

/* The longest entry: a name whole, a token, a Deny's body. */
#define ENTRY_MAX	(HNB_ENTRY_MIN - 1 + HNAMES_LEN + 8 + DENY_BODY)
#define ROOM		(WIRE_PAYLOAD_MAX - HNL_HDR - HNB_HDR)
_Static_assert(ENTRY_MAX <= ROOM, "an entry fits a round");
/* The trace's lines of a name fit a line. */
_Static_assert(HNL_LINE >= 64 + HNAMES_LEN + 3 * 24, "a line fits");

/* ---- bits by member index ---- */

static int
bit(const uint64_t *w, size_t i)
{
	return (int)(w[i / 64] >> (i % 64) & 1);
}

static void
bit_put(uint64_t *w, size_t i, int on)
{
	if (on)
		w[i / 64] |= UINT64_C(1) << (i % 64);
	else
		w[i / 64] &= ~(UINT64_C(1) << (i % 64));
}

static size_t
bits_count(const uint64_t *w, const uint64_t *mask, size_t words)
{
	size_t i, n = 0;

	for (i = 0; i < words; i++)
		n += (size_t)__builtin_popcountll(mask != NULL ?
		    w[i] & mask[i] : w[i]);
	return n;
}

static int
bits_any(const uint64_t *w, size_t words)
{
	size_t i;

	for (i = 0; i < words; i++)
		if (w[i] != 0)
			return 1;
	return 0;
}

/* ---- clock arithmetic (share/elect/lease.md, Clock) ---- */

static int64_t
fast(const struct hnl *l, int64_t x)
{
	return x + (int64_t)(((__int128)x * l->c.timing.drift + NS - 1) / NS);
}

static int64_t
slow(const struct hnl *l, int64_t x)
{
	return x - (int64_t)(((__int128)x * l->c.timing.drift + NS - 1) / NS);
}

static size_t
quorum(const struct hnl *l)
{
	return l->n / 2 + 1;
}

/* Id's index among the members, or -1. */
static long
rank(const struct hnl *l, unsigned id)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->ids[mid] == id)
			return (long)mid;
		if (l->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static size_t
idx(const struct hnl *l, const struct hname *h)
{
	return (size_t)(h - l->reg.pool);
}

static struct hname *
find(struct hnl *l, const char *s, size_t len)
{
	return (struct hname *)hnames_find(&l->reg, s, len);
}

/* ---- output ---- */

static struct hnl_action *
act(struct hnl_out *o, enum hnl_act_type type)
{
	struct hnl_action *a;

	assert(o->n < o->cap);
	a = &o->v[o->n++];
	memset(a, 0, sizeof(*a));
	a->type = type;
	return a;
}

static const char *
text(struct hnl_out *o, const char *fmt, va_list ap)
{
	char *s = o->text + o->tlen;
	size_t room = o->textcap - o->tlen;
	int w;

	assert(room >= HNL_LINE);
	w = vsnprintf(s, room, fmt, ap);
	assert(w >= 0 && (size_t)w < room);
	o->tlen += (size_t)w + 1;
	return s;
}

static void __attribute__((format(printf, 3, 4)))
say(struct hnl_out *o, enum hnl_act_type type, const char *fmt, ...)
{
	struct hnl_action *a = act(o, type);
	va_list ap;

	va_start(ap, fmt);
	a->text = text(o, fmt, ap);
	va_end(ap);
}

static const char *
tfmt(int64_t t, char *buf, size_t len)
{
	trace_format_time(t, buf, len);
	return buf;
}

static const char *
ekey(const struct hnl *l, char *buf, size_t len)
{
	if (l->c.epoch == 0)
		buf[0] = '\0';
	else
		snprintf(buf, len, " epoch=%u", (unsigned)l->c.epoch);
	return buf;
}

static void
status(struct hnl_out *o, const struct hname *h)
{
	struct hnl_action *a = act(o, HNL_STATUS);

	memcpy(a->name, h->s, h->len + 1);
}

/* A leadership's line: begins, moves, or ends (until <= clock). */
static void
trace_lead(struct hnl *l, const struct hname *h, int64_t until,
    int64_t now, struct hnl_out *o)
{
	const struct hnl_name *x = &l->nm[idx(l, h)];
	char c1[32], c2[32], ek[24], tk[32];

	tk[0] = '\0';
	if (x->phase == HNL_LEAD && until > now)
		snprintf(tk, sizeof(tk), " token=%llu",
		    (unsigned long long)x->tok);
	say(o, HNL_TRACE, "lead name=%s until=%s clock=%s%s%s", h->s,
	    tfmt(until, c1, sizeof(c1)), tfmt(now, c2, sizeof(c2)), tk,
	    ekey(l, ek, sizeof(ek)));
}

static void
sample(struct hnl *l, int64_t now, struct hnl_out *o)
{
	char c[32];

	say(o, HNL_TRACE, "clock c=%s", tfmt(now, c, sizeof(c)));
	l->sample = now;
}

/* The floor written (HNL_SAVE): above every K of a name this host
 * forgot (the registry's) and every token it acknowledged (khi), so
 * that a name made anew, in this life or the next, takes its K from
 * there. */
static void
save(struct hnl *l, struct hnl_out *o)
{
	uint64_t f = l->reg.floor > l->khi ? l->reg.floor : l->khi;

	act(o, HNL_SAVE)->floor = f;
}

/* ---- the registry ---- */

/* What the registry knows of H from us. */
static void
reg_core(struct hnl *l, struct hname *h, int64_t now, int64_t busy,
    struct hnl_out *o);

static void
reg_acts(struct hnl *l, const struct hnames_out *ro, int64_t now,
    struct hnl_out *o);

static void
reg_step(struct hnl *l, const struct hnames_input *in, struct hnl_out *o)
{
	struct hnames_out ro;

	size_t nfree = l->reg.nfree, k, j;

	hnames_step(&l->reg, in, &ro);
	/* The slots of the names it forgot: their news are void. */
	for (k = nfree; k < l->reg.nfree; k++) {
		struct hnl_name *x = &l->nm[l->reg.free[k]];

		for (j = 0; j < l->n; j++)
			if (bit(x->nw, j)) {
				assert(l->p[j].news > 0);
				l->p[j].news--;
			}
		memset(x->nw, 0, l->words * sizeof(*x->nw));
		memset(x->wt, 0, l->words * sizeof(*x->wt));
	}
	if (ro.wake != -1 && (l->rwake == -1 || ro.wake < l->rwake))
		l->rwake = ro.wake;
	reg_acts(l, &ro, in->now, o);
}

static void
reg_core(struct hnl *l, struct hname *h, int64_t now, int64_t busy,
    struct hnl_out *o)
{
	const struct hnl_name *x = &l->nm[idx(l, h)];
	struct hnames_input in;

	memset(&in, 0, sizeof(in));
	in.type = HNAMES_IN_CORE;
	in.now = now;
	in.name = h->s;
	in.len = h->len;
	in.holder = x->phase == HNL_LEAD ? l->c.self : x->hint;
	in.token = x->phase == HNL_LEAD ? x->tok : 0;
	in.k = x->k;
	in.busy = busy;
	reg_step(l, &in, o);
}

/* Whether H is granted here, and to whom. */
static unsigned
owner(const struct hnl *l, const struct hnl_name *x, int64_t now)
{
	long r;

	if (x->owner == 0 || (r = rank(l, x->owner)) == -1)
		return 0;
	if (l->p[r].sid != x->osid || l->p[r].f <= now)
		return 0;
	return x->owner;
}

static void
want(struct hnl *l, struct hname *h, struct hnl_name *x)
{
	memset(x->g, 0, l->words * sizeof(*x->g));
	memset(x->ack, 0, l->words * sizeof(*x->ack));
	x->phase = HNL_WANT;
	/* Grants to rounds before this one were for an earlier bid. */
	x->since = l->cont != 0 ? l->ctr : l->ctr + 1;
	x->tok = 0;
	x->kmax = 0;
	x->e = 0;
	(void)h;
	l->urgent = 1;
}

/* H given up here: its grants freed, its leadership over. */
static void
give_up(struct hnl *l, struct hname *h, int64_t now, struct hnl_out *o)
{
	struct hnl_name *x = &l->nm[idx(l, h)];
	size_t i;

	if (x->phase == HNL_LEAD) {
		if (x->e > now)
			trace_lead(l, h, now, now, o);
		status(o, h);
		l->cnt.lost++;
	}
	for (i = 0; i < l->words; i++)
		x->fr[i] |= x->g[i];
	memset(x->g, 0, l->words * sizeof(*x->g));
	memset(x->ack, 0, l->words * sizeof(*x->ack));
	x->phase = bits_any(x->fr, l->words) ? HNL_FREE : HNL_IDLE;
	x->tok = 0;
	x->e = 0;
	if (x->phase == HNL_FREE)
		l->urgent = 1;
}

static void
reg_acts(struct hnl *l, const struct hnames_out *ro, int64_t now,
    struct hnl_out *o)
{
	size_t i;

	for (i = 0; i < ro->n; i++) {
		const struct hnames_action *a = &ro->v[i];
		struct hname *h = a->type == HNAMES_REFUSE ||
		    a->type == HNAMES_SAVE || a->type == HNAMES_FORGET ? NULL :
		    find(l, a->name, a->len);
		struct hnl_name *x = h != NULL ? &l->nm[idx(l, h)] : NULL;

		switch (a->type) {
		case HNAMES_REFUSE:
			say(o, HNL_REFUSE, "%s", ro->why);
			break;
		case HNAMES_CREATE:
			assert(x != NULL);
			memset(x->g, 0, l->words * sizeof(*x->g));
			memset(x->ack, 0, l->words * sizeof(*x->ack));
			memset(x->fr, 0, l->words * sizeof(*x->fr));
			x->owner = 0;
			x->osid = 0;
			x->k = a->floor;
			x->phase = HNL_IDLE;
			x->tok = x->kmax = 0;
			x->e = 0;
			x->hint = 0;
			x->left = 0;
			break;
		case HNAMES_BID:
			assert(x != NULL);
			if (x->phase == HNL_IDLE || x->phase == HNL_FREE) {
				/* Frees still owed go out before the Want. */
				want(l, h, x);
				say(o, HNL_LOG, "name %s: bidding (rank %zu)",
				    h->s, a->rank);
			}
			break;
		case HNAMES_RESIGN:
			assert(x != NULL);
			if (x->phase != HNL_IDLE && x->phase != HNL_FREE) {
				say(o, HNL_LOG, "name %s: %s", h->s,
				    x->phase == HNL_LEAD ? "released" :
				    "bid withdrawn");
				give_up(l, h, now, o);
			}
			break;
		case HNAMES_SAVE:
			save(l, o);
			break;
		case HNAMES_FORGET:
			/* Gone from the registry already; its slot's state
			 * is made anew when the slot is used again. */
			break;
		}
	}
}

/* ---- the grantor ---- */

/* X is free here: those it was denied to hear it in their next Ok. */
static void
vacant(struct hnl *l, struct hnl_name *x)
{
	size_t i;

	x->owner = 0;
	x->est = 0;
	if (!bits_any(x->wt, l->words))
		return;
	for (i = 0; i < l->n; i++)
		if (bit(x->wt, i) && !bit(x->nw, i)) {
			bit_put(x->nw, i, 1);
			l->p[i].news++;
		}
	memset(x->wt, 0, l->words * sizeof(*x->wt));
}

/* P's session here ended (ran out, a new life, a Dead): its names are
 * free; END is when, for the registry's linger. */
static void
end_session(struct hnl *l, size_t r, int64_t now, int64_t end, int told,
    struct hnl_out *o)
{
	struct hnl_peer *p = &l->p[r];
	struct hname *h;
	char c[32], ek[24];

	if (p->owned > 0) {
		for (h = (struct hname *)hnames_next(&l->reg, NULL);
		    h != NULL; h = (struct hname *)hnames_next(&l->reg, h)) {
			struct hnl_name *x = &l->nm[idx(l, h)];

			if (x->owner != p->id || x->osid != p->sid)
				continue;
			vacant(l, x);
			if (told)
				say(o, HNL_TRACE, "lease op=release name=%s "
				    "to=%u clock=%s%s", h->s, p->id,
				    tfmt(now, c, sizeof(c)),
				    ekey(l, ek, sizeof(ek)));
			reg_core(l, h, now, end, o);
		}
	}
	p->owned = 0;
	if (told && p->f > now)
		p->f = now;
	p->sid = 0;
}

struct answer {
	struct hnl_out	*o;
	unsigned	 to;
	uint64_t	 ctr, sid;
	struct hnb_writer w;
	uint8_t		*buf;
	int		 local;		/* to self: answered in place */
	uint8_t		 lbuf[WIRE_PAYLOAD_MAX];
	size_t		 llen;
};

static void hnl_check(const struct hnl *, int64_t);
static size_t member_max(const struct hnl *);
static void hold_ok(struct hnl *, size_t r, uint64_t inc,
    const uint8_t *p, size_t len, int64_t now, struct hnl_out *);

static void
put_hdr(uint8_t *b, int kind, uint64_t ctr, uint64_t v)
{
	int i;

	b[0] = (uint8_t)kind;
	for (i = 0; i < 8; i++) {
		b[1 + i] = (uint8_t)(ctr >> (56 - 8 * i));
		b[9 + i] = (uint8_t)(v >> (56 - 8 * i));
	}
}

static uint64_t
get64(const uint8_t *b)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static void
ans_open(struct answer *an)
{
	if (an->local)
		an->buf = an->lbuf;
	else {
		assert(an->o->nsent < an->o->sendcap);
		an->buf = an->o->buf[an->o->nsent];
	}
	put_hdr(an->buf, HNL_OK, an->ctr, an->sid);
	hnb_start(&an->w, an->buf + HNL_HDR, WIRE_PAYLOAD_MAX - HNL_HDR);
}

/* The Ok so far goes out; NEXT: another follows. */
static void
ans_close(struct hnl *l, struct answer *an, int64_t now, int next)
{
	size_t len = HNL_HDR + hnb_end(&an->w);
	struct hnl_action *a;

	if (len == HNL_HDR)
		len = HNL_HDR;	/* an Ok of the session alone */
	if (an->local) {
		/* Our own grant answers our own round in place. */
		hold_ok(l, (size_t)rank(l, l->c.self), l->c.inc, an->buf, len,
		    now, an->o);
	} else {
		a = act(an->o, HNL_SEND);
		a->id = an->to;
		a->payload = an->buf;
		a->len = len;
		an->o->nsent++;
	}
	if (next)
		ans_open(an);
}

static void
ans_put(struct hnl *l, struct answer *an, const struct hnb_entry *e,
    int64_t now)
{
	if (hnb_put(&an->w, e) == 0)
		return;
	ans_close(l, an, now, 1);
	if (hnb_put(&an->w, e) != 0)
		assert(!"an entry fits an empty Ok");
}

/* A Deny's body: the holder, its session left here, and whether its
 * token was acknowledged here. */
static void
deny_body(const struct hnl *l, const struct hnl_name *x, unsigned own,
    int64_t now, uint8_t *body)
{
	int64_t left = own != 0 ? l->p[rank(l, own)].f - now : 0;
	int i;

	body[0] = (uint8_t)(own >> 8);
	body[1] = (uint8_t)own;
	for (i = 0; i < 8; i++)
		body[2 + i] = (uint8_t)((uint64_t)left >> (56 - 8 * i));
	body[10] = (uint8_t)(own != 0 && x->est);
}

static void
answer_entry(struct hnl *l, size_t r, const struct hnb_entry *in,
    struct answer *an, int64_t now)
{
	struct hnl_peer *p = &l->p[r];
	struct hnl_out *o = an->o;
	struct hnames_input ri;
	struct hnb_entry e;
	struct hname *h;
	struct hnl_name *x;
	unsigned own;
	char c1[32], c2[32], ek[24];
	uint8_t body[DENY_BODY];

	memset(&e, 0, sizeof(e));
	memcpy(e.name, in->name, in->len);
	e.len = in->len;
	/* A name a peer asks about exists here while it does. */
	memset(&ri, 0, sizeof(ri));
	ri.type = HNAMES_IN_HEARD;
	ri.now = now;
	ri.name = in->name;
	ri.len = in->len;
	reg_step(l, &ri, o);
	if ((h = find(l, in->name, in->len)) == NULL) {
		/* Beyond the bound here: not granted. */
		e.kind = in->kind == HNB_FREE ? HNB_FREED : HNB_DENY;
		if (e.kind == HNB_DENY) {
			memset(body, 0, sizeof(body));
			e.body = body;
			e.blen = sizeof(body);
		}
		ans_put(l, an, &e, now);
		return;
	}
	x = &l->nm[idx(l, h)];
	own = owner(l, x, now);
	switch (in->kind) {
	case HNB_WANT:
	case HNB_HELD:
		if (own == 0 && in->kind == HNB_WANT) {
			x->owner = p->id;
			x->osid = p->sid;
			x->est = 0;
			bit_put(x->wt, r, 0);
			p->owned++;
			own = p->id;
			l->cnt.grants++;
			say(o, HNL_TRACE, "lease op=grant name=%s to=%u "
			    "until=%s clock=%s%s", h->s, p->id,
			    tfmt(p->f, c1, sizeof(c1)),
			    tfmt(now, c2, sizeof(c2)),
			    ekey(l, ek, sizeof(ek)));
			reg_core(l, h, now, p->f, o);
		}
		if (own != p->id) {
			e.kind = HNB_DENY;
			deny_body(l, x, own, now, body);
			e.body = body;
			e.blen = sizeof(body);
			bit_put(x->wt, r, 1);
			l->cnt.denies++;
		} else if (in->kind == HNB_WANT) {
			e.kind = HNB_GRANT;
			/* K_q never 0 on the wire: the token above it is. */
			e.token = x->k + 1;
		} else {
			/* Written down before it is acknowledged: a K_q
			 * above every token this host acknowledged, in any
			 * life (share/elect/lease.md, Fencing token), in
			 * strides, so that a new token costs a write once
			 * in TOKEN_STRIDE. */
			if (in->token > l->khi) {
				l->khi = in->token + TOKEN_STRIDE;
				save(l, o);
			}
			if (in->token > x->k)
				x->k = in->token;
			x->est = 1;
			e.kind = HNB_ACK;
			e.token = in->token;
		}
		break;
	case HNB_FREE:
		if (own == p->id) {
			vacant(l, x);
			p->owned--;
			l->cnt.frees++;
			say(o, HNL_TRACE, "lease op=release name=%s to=%u "
			    "clock=%s%s", h->s, p->id,
			    tfmt(now, c1, sizeof(c1)),
			    ekey(l, ek, sizeof(ek)));
			reg_core(l, h, now, now, o);
		}
		e.kind = HNB_FREED;
		break;
	default:
		assert(!"a Request's kind");
	}
	ans_put(l, an, &e, now);
}

/* The names free here since R was denied them, in an Ok of their own
 * (in order, after the round's answers). */
static void
tell_vacant(struct hnl *l, size_t r, struct answer *an, int64_t now)
{
	struct hname *h;
	struct hnb_entry e;
	uint8_t body[DENY_BODY];
	unsigned own;

	if (an->w.count > 0)
		ans_close(l, an, now, 1);
	for (h = (struct hname *)hnames_next(&l->reg, NULL); h != NULL &&
	    l->p[r].news > 0; h = (struct hname *)hnames_next(&l->reg, h)) {
		struct hnl_name *x = &l->nm[idx(l, h)];

		if (!bit(x->nw, r))
			continue;
		bit_put(x->nw, r, 0);
		l->p[r].news--;
		memset(&e, 0, sizeof(e));
		memcpy(e.name, h->s, h->len);
		e.len = h->len;
		e.kind = HNB_VACANT;
		if ((own = owner(l, x, now)) == l->p[r].id)
			continue;
		if (own != 0) {
			/* Taken again since: the news is its holder. */
			deny_body(l, x, own, now, body);
			e.kind = HNB_DENY;
			e.body = body;
			e.blen = sizeof(body);
			bit_put(x->wt, r, 1);
		}
		ans_put(l, an, &e, now);
	}
	assert(l->p[r].news == 0);
}

/* A round's (REQ) or an Ok's entries after its header, into V: their
 * count, or -1 with the datagram dropped. */
static int
entries(const uint8_t *b, size_t len, struct hnb_entry *v, int req,
    struct hnl_out *o)
{
	const char *why = NULL;
	int n = 0, k, kind;

	if (len > HNL_HDR &&
	    (n = hnb_parse(b + HNL_HDR, len - HNL_HDR, v, &why)) == -1) {
		act(o, HNL_DROP)->why = why;
		return -1;
	}
	for (k = 0; k < n; k++) {
		kind = v[k].kind;
		if (req ? kind != HNB_WANT && kind != HNB_HELD &&
		    kind != HNB_FREE : kind < HNB_GRANT || kind > HNB_VACANT ||
		    (kind == HNB_DENY && v[k].blen != DENY_BODY)) {
			act(o, HNL_DROP)->why = req ?
			    "names: bad kind in a round" :
			    "names: bad kind in an Ok";
			return -1;
		}
	}
	return n;
}

/* A round of the member at R: its session renewed, its entries
 * answered in one Ok or more. */
static void
grant_round(struct hnl *l, size_t r, uint64_t inc, const uint8_t *b,
    size_t len, int64_t now, struct hnl_out *o)
{
	struct hnl_peer *p = &l->p[r];
	struct hnb_entry v[HNB_ENTRIES_MAX];
	struct answer an;
	uint64_t ctr = get64(b + 1);
	int64_t delta = (int64_t)get64(b + 9), f, d;
	int n = 0, k;
	char ek[24];

	if (delta <= 0 || delta > DELTA_MAX) {
		act(o, HNL_DROP)->why = "names: bad delta";
		return;
	}
	if ((n = entries(b, len, v, 1, o)) == -1)
		return;
	if (inc < p->inc || (inc == p->inc && ctr < p->ctr)) {
		act(o, HNL_DROP)->why = "names: late round";
		return;
	}
	if (inc > p->inc) {
		/* A new life: the old one's session is over. */
		end_session(l, r, now, p->f, 1, o);
		p->inc = inc;
	}
	p->ctr = ctr;
	/* Quiet after a restart, or wedged: no session, no answer. */
	if (now < l->quiet || l->wedged)
		return;
	if (p->sid == 0 || p->f <= now) {
		end_session(l, r, now, p->f, 0, o);
		p->sid = ++l->sids;
	}
	f = now + fast(l, delta);
	if (f > p->f) {
		d = f - p->f;
		if (p->owned > 0 && p->f > now)
			say(o, HNL_TRACE, "renew name=* to=%u d=%lld%s", p->id,
			    (long long)d, ekey(l, ek, sizeof(ek)));
		p->f = f;
	}
	memset(&an, 0, sizeof(an));
	an.o = o;
	an.to = p->id;
	an.ctr = ctr;
	an.sid = p->sid;
	an.local = p->id == l->c.self;
	ans_open(&an);
	for (k = 0; k < n; k++)
		answer_entry(l, r, &v[k], &an, now);
	if (p->news > 0)
		tell_vacant(l, r, &an, now);
	ans_close(l, &an, now, 0);
}

/* ---- the holder ---- */

/* E(X) from the grantors of X that acknowledged its token: the deadline
 * a majority of them keeps, each one's as its Oks under its session
 * showed it.  A grant without the acknowledgment backs no leadership,
 * nor an acknowledgment under a session that ran out unseen: the
 * grantor may have granted X to another since, who led it under a
 * higher token. */
static int64_t
deadline(const struct hnl *l, const struct hnl_name *x)
{
	size_t q = quorum(l), nb = 0, i, j;
	int64_t *u = l->scratch, t;

	for (i = 0; i < l->words; i++)
		nb += (size_t)__builtin_popcountll(x->g[i] & x->ack[i] &
		    l->okd[i]);
	if (nb >= q)
		return l->rstart + slow(l, l->c.timing.lease);
	/* Rarely: grantors of several rounds; the q-th latest. */
	for (nb = 0, i = 0; i < l->n; i++) {
		if (!bit(x->g, i) || !bit(x->ack, i) || l->p[i].until == 0)
			continue;
		t = l->p[i].until;
		for (j = nb++; j > 0 && u[j - 1] < t; j--)
			u[j] = u[j - 1];
		u[j] = t;
	}
	return nb >= q ? u[q - 1] : 0;
}

/* The names of a round looked at once a quorum answered: leaderships
 * moved (first, so that a line for them all moves no newcomer), then
 * tokens proposed and established. */
static void
settle(struct hnl *l, int64_t now, struct hnl_out *o)
{
	struct hname *h;
	size_t q = quorum(l), moved = 0, leading = 0, rising = 0;
	int64_t olde = -1, newe = -1, e, emin = INT64_MAX;
	uint64_t t;
	char ek[24];
	int uniform = 1;

	l->gen++;
	for (h = (struct hname *)hnames_any(&l->reg, NULL); h != NULL;
	    h = (struct hname *)hnames_any(&l->reg, h)) {
		struct hnl_name *x = &l->nm[idx(l, h)];

		if (x->phase == HNL_WANT || x->phase == HNL_PROPOSE)
			rising++;
		if (x->phase != HNL_LEAD)
			continue;
		leading++;
		if ((e = deadline(l, x)) <= x->e) {
			uniform = 0;
			if (x->e < emin)
				emin = x->e;
			continue;
		}
		if (e < emin)
			emin = e;
		x->mv = l->gen;
		if (moved == 0) {
			olde = x->e;
			newe = e;
		} else if (x->e != olde || e != newe)
			uniform = 0;
		moved++;
		x->e = e;
	}
	if (moved > 0 && uniform && moved == leading)
		say(o, HNL_TRACE, "renew name=* d=%lld%s",
		    (long long)(newe - olde), ekey(l, ek, sizeof(ek)));
	else if (moved > 0)
		for (h = (struct hname *)hnames_next(&l->reg, NULL);
		    h != NULL;
		    h = (struct hname *)hnames_next(&l->reg, h)) {
			struct hnl_name *x = &l->nm[idx(l, h)];

			if (x->phase == HNL_LEAD && x->mv == l->gen)
				trace_lead(l, h, x->e, now, o);
		}
	/* In order, as they are traced. */
	for (h = rising == 0 ? NULL : (struct hname *)hnames_next(&l->reg,
	    NULL); h != NULL; h = (struct hname *)hnames_next(&l->reg, h)) {
		struct hnl_name *x = &l->nm[idx(l, h)];

		if (x->phase == HNL_WANT &&
		    bits_count(x->g, NULL, l->words) >= q) {
			/* Above every K of the majority, the floor, and the
			 * epochs before (share/elect/lease.md, E4). */
			t = x->kmax;
			if (t <= h->floor)
				t = h->floor + 1;
			if (t <= (uint64_t)l->c.epoch << EPOCH_SHIFT)
				t = ((uint64_t)l->c.epoch << EPOCH_SHIFT) + 1;
			x->tok = t;
			x->phase = HNL_PROPOSE;
			memset(x->ack, 0, l->words * sizeof(*x->ack));
			l->urgent = 1;
		} else if (x->phase == HNL_PROPOSE &&
		    bits_count(x->ack, x->g, l->words) >= q &&
		    (e = deadline(l, x)) > now) {
			x->phase = HNL_LEAD;
			x->e = e;
			if (e < emin)
				emin = e;
			x->hint = 0;
			if (x->tok > x->k)
				x->k = x->tok;
			l->cnt.leads++;
			trace_lead(l, h, e, now, o);
			say(o, HNL_LOG, "name %s: leading, token %llu", h->s,
			    (unsigned long long)x->tok);
			reg_core(l, h, now, e, o);
			status(o, h);
		}
	}
	l->emin = emin;
}

/* An Ok of the grantor at R (life inc) to one of our rounds. */
static void
hold_ok(struct hnl *l, size_t r, uint64_t inc, const uint8_t *b, size_t len,
    int64_t now, struct hnl_out *o)
{
	struct hnl_peer *p = &l->p[r];
	struct hnb_entry v[HNB_ENTRIES_MAX];
	uint64_t ctr = get64(b + 1), sid = get64(b + 9);
	int n = 0, k, current = l->ctr != 0 && ctr == l->ctr;
	struct hname *h;
	size_t i;

	if (sid == 0) {
		act(o, HNL_DROP)->why = "names: an Ok without a session";
		return;
	}
	if ((n = entries(b, len, v, 0, o)) == -1)
		return;
	if (inc < p->tinc || (inc == p->tinc && sid < p->tsid)) {
		act(o, HNL_DROP)->why = "names: an Ok of a session before";
		return;
	}
	if (inc != p->tinc || sid != p->tsid) {
		/* A session of its own since: what it granted us before is
		 * gone, what we owed it too, and a name it denied us may be
		 * free now. */
		for (h = (struct hname *)hnames_next(&l->reg, NULL);
		    h != NULL; h = (struct hname *)hnames_next(&l->reg, h)) {
			struct hnl_name *x = &l->nm[idx(l, h)];

			bit_put(x->g, r, 0);
			bit_put(x->ack, r, 0);
			bit_put(x->fr, r, 0);
			if (x->phase == HNL_FREE && !bits_any(x->fr, l->words))
				x->phase = HNL_IDLE;
		}
		p->tinc = inc;
		p->tsid = sid;
		p->until = 0;
	}
	if (current) {
		int64_t u = l->rstart + slow(l, l->c.timing.lease);

		bit_put(l->okd, r, 1);
		if (u > p->until)
			p->until = u;
		l->cnt.oks++;
	}
	for (k = 0; k < n; k++) {
		const struct hnb_entry *e = &v[k];
		struct hnl_name *x;
		unsigned holder;
		int est;

		if ((h = find(l, e->name, e->len)) == NULL)
			continue;
		x = &l->nm[idx(l, h)];
		if (e->kind == HNB_GRANT && !current && ctr < x->since &&
		    x->phase != HNL_IDLE && x->phase != HNL_FREE)
			continue;	/* asked again: granted again */
		if (e->kind == HNB_GRANT &&
		    (x->phase == HNL_IDLE || x->phase == HNL_FREE)) {
			/* Granted what we no longer ask for: freed. */
			bit_put(x->fr, r, 1);
			if (x->phase == HNL_IDLE)
				x->phase = HNL_FREE;
			l->urgent = 1;
			continue;
		}
		if (!current && e->kind == HNB_DENY)
			continue;
		switch (e->kind) {
		case HNB_GRANT:
			bit_put(x->g, r, 1);
			if (e->token > x->kmax)
				x->kmax = e->token;
			/* A grant above the token proposed: another's was
			 * established since; proposed anew, above it. */
			if (x->phase == HNL_PROPOSE && e->token > x->tok) {
				x->phase = HNL_WANT;
				x->tok = 0;
				memset(x->ack, 0, l->words * sizeof(*x->ack));
				l->urgent = 1;
			}
			break;
		case HNB_DENY:
			holder = (unsigned)e->body[0] << 8 | e->body[1];
			est = e->body[10] != 0;
			bit_put(x->g, r, 0);
			bit_put(x->ack, r, 0);
			if (holder == 0 || holder == l->c.self)
				break;
			if (x->hint != holder)
				status(o, h);	/* its holder is known */
			x->hint = holder;
			x->left = 0;
			for (i = 2; i < 10; i++)
				x->left = (int64_t)((uint64_t)x->left << 8 |
				    e->body[i]);
			/* To a live holder only: the registry bids again
			 * for a name whose holder is not. */
			if ((x->phase == HNL_WANT || x->phase == HNL_PROPOSE) &&
			    rank(l, holder) != -1 &&
			    bit(l->live, (size_t)rank(l, holder)) &&
			    (est || hnames_weight(h->s, h->len, holder) >
			    hnames_weight(h->s, h->len, l->c.self))) {
				say(o, HNL_LOG, "name %s: held by %u", h->s,
				    holder);
				give_up(l, h, now, o);
			}
			reg_core(l, h, now, 0, o);
			break;
		case HNB_ACK:
			if ((x->phase == HNL_PROPOSE ||
			    x->phase == HNL_LEAD) && e->token == x->tok)
				bit_put(x->ack, r, 1);
			break;
		case HNB_FREED:
			bit_put(x->fr, r, 0);
			if (x->phase == HNL_FREE && !bits_any(x->fr, l->words))
				x->phase = HNL_IDLE;
			break;
		case HNB_VACANT:
			if (x->hint != 0) {
				x->hint = 0;
				reg_core(l, h, now, 0, o);
				status(o, h);
			}
			break;
		}
	}
	if (current && (n > 0 || bits_count(l->okd, NULL, l->words) >=
	    quorum(l)))
		settle(l, now, o);
}

/* Whether we have anything to say to grantors: a round is due.  None
 * while pending: a round asks. */
static int
rounds_needed(struct hnl *l)
{
	struct hname *h;

	if (l->pending)
		return 0;
	for (h = (struct hname *)hnames_next(&l->reg, NULL); h != NULL;
	    h = (struct hname *)hnames_next(&l->reg, h)) {
		const struct hnl_name *x = &l->nm[idx(l, h)];

		/* A name wanted here, held elsewhere: our session keeps
		 * its grantors' word that they will tell us it is free. */
		if (x->phase != HNL_IDLE || h->regs > 0)
			return 1;
	}
	return 0;
}

/* The datagrams a member's part of a round may take, the most. */
static size_t
member_max(const struct hnl *l)
{
	return (l->c.names.max * ENTRY_MAX + ROOM - 1) / ROOM + 1;
}

/* What our round tells member I of name X: HNB_FREE, HNB_WANT, HNB_HELD
 * (with X's token), or 0: nothing. */
static int
says(const struct hnl_name *x, size_t i)
{
	if (bit(x->fr, i))
		return HNB_FREE;
	if (x->phase != HNL_WANT && x->phase != HNL_PROPOSE &&
	    x->phase != HNL_LEAD)
		return 0;
	if (!bit(x->g, i))
		return HNB_WANT;
	return x->phase != HNL_WANT && !bit(x->ack, i) ? HNB_HELD : 0;
}

/* Which members our round tells of any name, in TALK (l->n), or member
 * ONLY's alone if it is not -1: one walk in the pool's order, as a round
 * of a host that holds its names says nothing, and a name every member
 * granted and acknowledged, that frees nothing, says nothing. */
static void
talks(const struct hnl *l, long only, uint8_t *talk)
{
	const struct hname *h;
	size_t i, left = only == -1 ? l->n : 1;

	memset(talk, 0, l->n);
	for (h = hnames_any(&l->reg, NULL); h != NULL && left > 0;
	    h = hnames_any(&l->reg, h)) {
		const struct hnl_name *x = &l->nm[idx(l, h)];

		if (!bits_any(x->fr, l->words) && (x->phase == HNL_IDLE ||
		    x->phase == HNL_FREE || (x->phase == HNL_LEAD &&
		    bits_count(x->g, NULL, l->words) == l->n &&
		    bits_count(x->ack, NULL, l->words) == l->n)))
			continue;
		for (i = 0; i < l->n; i++)
			if (!talk[i] && (only == -1 || i == (size_t)only) &&
			    says(x, i) != 0) {
				talk[i] = 1;
				left--;
			}
	}
}

/* Our round to member I, in as many datagrams as its entries take; TALK:
 * it has any (talks()). */
static void
round_to(struct hnl *l, size_t i, int talk, int64_t now, struct hnl_out *o)
{
	int self = l->ids[i] == l->c.self;
	struct hnb_writer w;
	struct hnb_entry e;
	struct hname *h;
	uint8_t *buf, lbuf[WIRE_PAYLOAD_MAX];
	size_t len;

	buf = self ? lbuf : o->buf[o->nsent];
	put_hdr(buf, HNL_REQ, l->ctr, (uint64_t)l->c.timing.lease);
	hnb_start(&w, buf + HNL_HDR, WIRE_PAYLOAD_MAX - HNL_HDR);
	h = talk ? (struct hname *)hnames_next(&l->reg, NULL) : NULL;
	for (; ; h = (struct hname *)hnames_next(&l->reg, h)) {
		if (h != NULL) {
			struct hnl_name *x = &l->nm[idx(l, h)];

			memset(&e, 0, sizeof(e));
			if ((e.kind = says(x, i)) == 0)
				continue;
			if (e.kind == HNB_HELD)
				e.token = x->tok;
			memcpy(e.name, h->s, h->len);
			e.len = h->len;
			if (hnb_put(&w, &e) == 0)
				continue;
		}
		len = HNL_HDR + hnb_end(&w);
		if (self)
			grant_round(l, i, l->c.inc, buf, len, now, o);
		else {
			struct hnl_action *a = act(o, HNL_SEND);

			a->id = l->ids[i];
			a->payload = buf;
			a->len = len;
			o->nsent++;
		}
		if (h == NULL)
			break;
		/* The rest in another datagram of the same round. */
		buf = self ? lbuf : o->buf[o->nsent];
		put_hdr(buf, HNL_REQ, l->ctr, (uint64_t)l->c.timing.lease);
		hnb_start(&w, buf + HNL_HDR, WIRE_PAYLOAD_MAX - HNL_HDR);
		if (hnb_put(&w, &e) != 0)
			assert(!"an entry fits an empty round");
	}
	l->p[i].sent = now;
}

/* Our round: to every member, ourselves first (answered in place, so
 * that our own grant is in before anyone's Ok), the others in order.
 * A member is begun only when its part fits the output: the round goes
 * on from it in the next step, at once, under the same number. */
static void
round_send(struct hnl *l, int64_t now, struct hnl_out *o)
{
	size_t self = (size_t)rank(l, l->c.self), k, i;
	uint8_t talk[CLUSTER_NODES_MAX];
	int known = 0;

	if (l->cont == 0) {
		l->ctr++;
		l->rstart = now;
		memset(l->okd, 0, l->words * sizeof(*l->okd));
		l->cnt.rounds++;
	}
	l->urgent = 0;
	for (k = l->cont; k < l->n; k++) {
		i = k == 0 ? self : (k <= self ? k - 1 : k);
		if (o->nsent + member_max(l) > o->sendcap ||
		    o->n + 8 * l->c.names.max + 64 > o->cap) {
			l->cont = k;
			l->urgent = 1;
			return;
		}
		/* Our own part first: answered in place, it may move
		 * names, and what we tell the others with them. */
		if (!known || i == self) {
			talks(l, i == self ? (long)i : -1, talk);
			known = i != self;
		}
		round_to(l, i, talk[i], now, o);
	}
	l->cont = 0;
	l->next = l->rstart + l->c.timing.renew;
}

/* ---- time ---- */

static void
wake_at(int64_t *wake, int64_t t)
{
	if (t != -1 && (*wake == -1 || t < *wake))
		*wake = t;
}

/* Leaderships whose deadline passed end; sessions that ran out free
 * their names; the registry's keepers are told how busy names are. */
static void
expire(struct hnl *l, int64_t now, struct hnl_out *o)
{
	struct hname *h;
	size_t r;
	int refresh = now - l->refresh >= l->c.names.idle / 2;

	for (r = 0; r < l->n; r++)
		if (l->p[r].owned > 0 && l->p[r].f <= now)
			end_session(l, r, now, l->p[r].f, 0, o);
	/* Every name looked at only when a leadership may have run out,
	 * or the registry is due its news. */
	if (now < l->emin && !refresh)
		return;
	l->emin = INT64_MAX;
	for (h = (struct hname *)hnames_next(&l->reg, NULL); h != NULL;
	    h = (struct hname *)hnames_next(&l->reg, h)) {
		struct hnl_name *x = &l->nm[idx(l, h)];
		unsigned own;

		if (x->phase == HNL_LEAD && x->e > now && x->e < l->emin)
			l->emin = x->e;
		if (x->phase == HNL_LEAD && x->e <= now) {
			trace_lead(l, h, x->e, now, o);
			say(o, HNL_LOG, "name %s: lease ran out", h->s);
			/* trace_lead wrote the end; give_up adds nothing. */
			x->e = now;
			give_up(l, h, now, o);
			reg_core(l, h, now, now, o);
		} else if (refresh && (own = owner(l, x, now)) != 0)
			reg_core(l, h, now, l->p[rank(l, own)].f, o);
		else if (refresh && x->phase == HNL_FREE)
			reg_core(l, h, now, now, o);
	}
	if (refresh)
		l->refresh = now;
}

/* Anything of ours runs: our rounds, or a session with names here. */
static int
running(const struct hnl *l)
{
	size_t r;

	if (l->next != -1)
		return 1;
	for (r = 0; r < l->n; r++)
		if (l->p[r].owned > 0)
			return 1;
	return 0;
}

static int64_t
next_wake(struct hnl *l, int64_t now)
{
	int64_t wake = -1;
	size_t r;

	wake_at(&wake, l->rwake);
	wake_at(&wake, l->next);
	if (l->urgent)
		wake_at(&wake, now);
	for (r = 0; r < l->n; r++)
		if (l->p[r].owned > 0)
			wake_at(&wake, l->p[r].f);
	if (l->emin != INT64_MAX)
		wake_at(&wake, l->emin);
	wake_at(&wake, l->refresh + l->c.names.idle / 2);
	if (running(l))
		wake_at(&wake, l->sample + SAMPLE_EVERY);
	return wake;
}

static void
members(struct hnl *l, int64_t now, struct hnl_out *o)
{
	struct hnames_input in;
	unsigned v[CLUSTER_NODES_MAX];
	size_t i, n = 0;

	for (i = 0; i < l->n && n < CLUSTER_NODES_MAX; i++)
		if (bit(l->live, i))
			v[n++] = l->ids[i];
	memset(&in, 0, sizeof(in));
	in.type = HNAMES_IN_MEMBERS;
	in.now = now;
	in.ids = v;
	in.nids = n;
	reg_step(l, &in, o);
}

/* ID's lives below INC are dead: its sessions here end and its names
 * are free, as a Dead of the default leadership ends its grant. */
static void
dead(struct hnl *l, unsigned id, uint64_t inc, int64_t now,
    struct hnl_out *o)
{
	long r = rank(l, id);
	struct hname *h;

	if (r == -1 || id == l->c.self)
		return;
	if (l->p[r].inc < inc && l->p[r].sid != 0)
		end_session(l, (size_t)r, now, now, 1, o);
	if (l->p[r].inc < inc) {
		/* Its next life counts its rounds from the start. */
		l->p[r].inc = inc;
		l->p[r].ctr = 0;
	}
	for (h = (struct hname *)hnames_next(&l->reg, NULL); h != NULL;
	    h = (struct hname *)hnames_next(&l->reg, h)) {
		struct hnl_name *x = &l->nm[idx(l, h)];

		if (x->hint == id) {
			x->hint = 0;
			reg_core(l, h, now, 0, o);
			status(o, h);
		}
	}
	if (bit(l->live, (size_t)r)) {
		bit_put(l->live, (size_t)r, 0);
		members(l, now, o);
	}
}

/* ---- the step ---- */

void
hnl_step(struct hnl *l, const struct hnl_input *in, struct hnl_out *o)
{
	struct hnames_input ri;
	int64_t now = in->now;
	long r;
	size_t i;

	o->n = 0;
	o->nsent = 0;
	o->tlen = 0;
	o->wake = -1;
	memset(&ri, 0, sizeof(ri));
	ri.now = now;
	switch (in->type) {
	case HNL_IN_TICK:
		break;
	case HNL_IN_RECV:
		if ((r = rank(l, in->id)) == -1 || in->id == l->c.self) {
			act(o, HNL_DROP)->why = "names: not a member";
			break;
		}
		if (in->len < HNL_HDR || in->len > WIRE_PAYLOAD_MAX ||
		    (in->p[0] != HNL_REQ && in->p[0] != HNL_OK)) {
			act(o, HNL_DROP)->why = "names: bad header";
			break;
		}
		if (in->p[0] == HNL_REQ) {
			if (!bit(l->live, (size_t)r)) {
				bit_put(l->live, (size_t)r, 1);
				members(l, now, o);
			}
			grant_round(l, (size_t)r, in->inc, in->p, in->len,
			    now, o);
		} else
			hold_ok(l, (size_t)r, in->inc, in->p, in->len, now,
			    o);
		break;
	case HNL_IN_REGISTER:
	case HNL_IN_RELEASE:
		ri.type = in->type == HNL_IN_REGISTER ? HNAMES_IN_REGISTER :
		    HNAMES_IN_RELEASE;
		ri.name = in->name;
		ri.len = in->nlen;
		reg_step(l, &ri, o);
		if (in->type == HNL_IN_REGISTER && l->next == -1)
			l->urgent = 1;
		break;
	case HNL_IN_DEAD:
		dead(l, in->id, in->inc, now, o);
		break;
	case HNL_IN_MEMBERS:
		memset(l->live, 0, l->words * sizeof(*l->live));
		for (i = 0; i < in->nids; i++)
			if ((r = rank(l, in->ids[i])) != -1)
				bit_put(l->live, (size_t)r, 1);
		bit_put(l->live, (size_t)rank(l, l->c.self), 1);
		members(l, now, o);
		break;
	case HNL_IN_WEDGE:
		l->wedged = 1;
		break;
	case HNL_IN_LEARN:
		if (l->pending)
			l->urgent = 1;
		l->pending = 0;
		break;
	}
	expire(l, now, o);
	if (l->rwake != -1 && l->rwake <= now) {
		l->rwake = -1;
		ri.type = HNAMES_IN_TICK;
		reg_step(l, &ri, o);
	}
	/* A round when one is due or something new is to be said, once a
	 * step. */
	if (l->cont != 0)
		round_send(l, now, o);
	else if (l->urgent || (l->next != -1 && l->next <= now)) {
		l->urgent = 0;
		if (rounds_needed(l))
			round_send(l, now, o);
		else
			l->next = -1;
	}
	if (running(l) && (l->sample == -1 ||
	    now - l->sample >= SAMPLE_EVERY))
		sample(l, now, o);
	o->wake = next_wake(l, now);
	if (l->reg.top <= CHECK_NAMES || now - l->checked >= CHECK_EVERY ||
	    now < l->checked) {
		l->checked = now;
		hnl_check(l, now);
	}
}

/* ---- queries ---- */

void
hnl_query(const struct hnl *l, const char *name, size_t len, int64_t now,
    struct hnl_status *st)
{
	const struct hname *h = hnames_find(&l->reg, name, len);
	const struct hnl_name *x;

	memset(st, 0, sizeof(*st));
	if (h == NULL)
		return;
	x = &l->nm[h - l->reg.pool];
	st->known = 1;
	st->regs = h->regs;
	if (x->phase == HNL_LEAD && x->e > now) {
		st->leader = 1;
		st->token = x->tok;
		st->until = x->e;
		st->holder = l->c.self;
	} else if (x->hint != 0) {
		st->holder = x->hint;
		st->left = x->left;
	}
}

void
hnl_algo_status(const struct hnl *l, const char *name, size_t len,
    int64_t now, struct algo_status *a)
{
	struct hnl_status st;

	hnl_query(l, name, len, now, &st);
	memset(a, 0, sizeof(*a));
	a->leader = st.leader;
	a->until = st.until;
	a->token = st.token;
	a->hint = (uint16_t)st.holder;
	a->state.ldr = (uint16_t)st.holder;
	a->epoch = l->c.epoch;
	a->wedged = l->wedged;
}

/* ---- invariants ---- */

static void
hnl_check(const struct hnl *l, int64_t now)
{
	size_t r, owned[CLUSTER_NODES_MAX];
	const struct hname *h;

	(void)now;
	assert(l->n <= CLUSTER_NODES_MAX);
	memset(owned, 0, l->n * sizeof(*owned));
	for (h = hnames_any(&l->reg, NULL); h != NULL;
	    h = hnames_any(&l->reg, h)) {
		const struct hnl_name *x = &l->nm[h - l->reg.pool];
		long o;

		/* A token only while it is proposed or leads, above the
		 * floor the name started from. */
		assert((x->phase == HNL_PROPOSE || x->phase == HNL_LEAD) ==
		    (x->tok != 0));
		assert(x->tok == 0 || x->tok > h->floor);
		/* Leading: a majority of its grantors acknowledged it. */
		assert(x->phase != HNL_LEAD || x->e != 0);
		if (x->owner != 0 && (o = rank(l, x->owner)) != -1 &&
		    x->osid == l->p[o].sid && l->p[o].sid != 0)
			owned[o]++;
	}
	for (r = 0; r < l->n; r++)
		assert(l->p[r].sid == 0 || owned[r] <= l->p[r].owned);
}

/* ---- life ---- */

#define NAMES_IDLE	(60 * NS)

void
hnl_names_conf(struct hnames_conf *c, const struct algo_timing *t,
    size_t max)
{
	memset(c, 0, sizeof(*c));
	c->max = max;
	c->linger = t->lease + (int64_t)(((__int128)t->lease * t->drift +
	    NS - 1) / NS) + 1 + t->rtt;
	c->idle = c->linger > NAMES_IDLE ? c->linger : NAMES_IDLE;
	/* A name new here waits a lease for the others that ask for it at
	 * about the same time (hosts starting their jobs together), so
	 * that the preferred one takes it and names spread; a bid against
	 * a holder costs a Deny and no more (named.h, Contention and
	 * waiting), so a host not preferred waits only for the preferred
	 * one's round to arrive first. */
	c->learn = t->lease;
	c->delay = 2 * t->rtt;
	c->spread = 10;
}

static int
cmp_id(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

int
hnl_init(struct hnl *l, const struct hnl_conf *c, int64_t now)
{
	struct hnames_conf nc;
	struct hnames_input ri;
	struct hnames_out ro;
	size_t i, j, nw;

	memset(l, 0, sizeof(*l));
	if (c->nids == 0 || c->nids > CLUSTER_NODES_MAX ||
	    c->timing.lease <= 0 || c->timing.renew <= 0 ||
	    c->timing.renew >= c->timing.lease || c->names.max == 0)
		return -1;
	l->c = *c;
	l->pending = c->pending;
	if ((l->ids = calloc(c->nids, sizeof(*l->ids))) == NULL)
		return -1;
	memcpy(l->ids, c->ids, c->nids * sizeof(*l->ids));
	qsort(l->ids, c->nids, sizeof(*l->ids), cmp_id);
	for (i = j = 0; i < c->nids; i++)
		if (l->ids[i] != 0 && (j == 0 || l->ids[j - 1] != l->ids[i]))
			l->ids[j++] = l->ids[i];
	l->n = j;
	l->c.ids = l->ids;
	l->c.nids = l->n;
	if (rank(l, c->self) == -1)
		goto fail;
	l->words = (l->n + 63) / 64;
	nw = l->words;
	nc = c->names;
	nc.self = c->self;
	if ((l->p = calloc(l->n, sizeof(*l->p))) == NULL ||
	    (l->scratch = calloc(l->n, sizeof(*l->scratch))) == NULL ||
	    (l->okd = calloc(nw, sizeof(*l->okd))) == NULL ||
	    (l->live = calloc(nw, sizeof(*l->live))) == NULL ||
	    (l->nm = calloc(nc.max, sizeof(*l->nm))) == NULL ||
	    (l->bits = calloc(nc.max * 5 * nw, sizeof(*l->bits))) == NULL ||
	    hnames_init(&l->reg, &nc) == -1)
		goto fail;
	for (i = 0; i < l->n; i++) {
		l->p[i].id = l->ids[i];
		bit_put(l->live, i, 1);
	}
	for (i = 0; i < nc.max; i++) {
		uint64_t *b = l->bits + i * 5 * nw;

		l->nm[i].g = b;
		l->nm[i].ack = b + nw;
		l->nm[i].fr = b + 2 * nw;
		l->nm[i].wt = b + 3 * nw;
		l->nm[i].nw = b + 4 * nw;
	}
	l->c.names = nc;
	/* Every token acknowledged in a life before is below the floor. */
	l->khi = nc.floor;
	memset(&ri, 0, sizeof(ri));
	ri.type = HNAMES_IN_MEMBERS;
	ri.now = now;
	ri.ids = l->ids;
	ri.nids = l->n;
	hnames_step(&l->reg, &ri, &ro);
	/* Every session it kept died with its last life. */
	l->quiet = now + fast(l, c->timing.lease);
	l->next = -1;
	l->rwake = -1;
	l->sample = -1;
	l->emin = INT64_MAX;
	l->refresh = now;
	return 0;
fail:
	hnl_free(l);
	return -1;
}

void
hnl_free(struct hnl *l)
{
	if (l->nm != NULL)
		hnames_free(&l->reg);
	free(l->ids);
	free(l->p);
	free(l->scratch);
	free(l->okd);
	free(l->live);
	free(l->nm);
	free(l->bits);
	memset(l, 0, sizeof(*l));
}

int
hnl_out_init(struct hnl_out *o, const struct hnl *l)
{
	memset(o, 0, sizeof(*o));
	/* A round's part for one member and the Oks of one datagram's
	 * answers, twice over; lines: a few for every name, and one
	 * datagram's entries. */
	o->sendcap = 2 * member_max(l) + 2 * (HNB_ENTRIES_MAX / 8 + 2);
	o->cap = 8 * l->c.names.max + 4 * l->n + 4 * HNB_ENTRIES_MAX +
	    o->sendcap + 64;
	o->textcap = o->cap * HNL_LINE;
	if ((o->v = malloc(o->cap * sizeof(*o->v))) == NULL ||
	    (o->buf = malloc(o->sendcap * sizeof(*o->buf))) == NULL ||
	    (o->text = malloc(o->textcap)) == NULL) {
		hnl_out_free(o);
		return -1;
	}
	return 0;
}

void
hnl_out_free(struct hnl_out *o)
{
	free(o->v);
	free(o->buf);
	free(o->text);
	memset(o, 0, sizeof(*o));
}
