/*
 * Drives lib/host/names with arbitrary operations and checks against a
 * model of its own: a name exists once at most and in order, no more
 * than the bound, created only for a good name registered or named by
 * a peer, and forgotten only with nobody registered, idle long enough
 * since its last sign (created, released, named by a peer, its core's
 * deadline); a re-created name's core starts at or above every K it
 * ever reached here (tokens monotonic per name across forgetting), the
 * floor written before the names that raise it are forgotten; no bid
 * goes against a live holder; the counters are the model's; every
 * batch parses back to the names held or wanted, in order.  The input
 * is first parsed as a batch payload: what the parser takes, the
 * writer writes alike.
 *
 * Input: conf bytes, then records of [op] [args...].
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/names.h"

#include "feed.h"

#define CHECK(c)	do { if (!(c)) abort(); } while (0)
#define MS		INT64_C(1000000)
#define NAMES		160

struct mname {
	char		 s[HNAMES_LEN + 2];
	size_t		 len;
	int		 known;
	unsigned	 regs;
	uint64_t	 maxk;		/* ever, across forgetting */
	uint64_t	 corek;		/* its core's K while known */
	unsigned	 holder;	/* as its core said last */
	int64_t		 quiet;		/* its last sign: created, released,
					 * heard, its core's deadline */
};

static struct mname mn[NAMES];
static size_t nmn;
/* The live members as told, this host always among them. */
static uint8_t mlive[8];
static unsigned mself;

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Whatever hnb_parse() takes is what hnb_put() lays out. */
static void
parse_raw(const uint8_t *data, size_t size)
{
	static struct hnb_entry v[HNB_ENTRIES_MAX];
	static uint8_t buf[WIRE_PAYLOAD_MAX];
	struct hnb_writer w;
	const char *why;
	int n, i;

	if ((n = hnb_parse(data, size, v, &why)) < 0)
		return;
	CHECK(n >= 1 && (size_t)n <= HNB_ENTRIES_MAX);
	hnb_start(&w, buf, sizeof(buf));
	for (i = 0; i < n; i++)
		CHECK(hnb_put(&w, &v[i]) == 0);
	CHECK(hnb_end(&w) == size && memcmp(buf, data, size) == 0);
}

static struct mname *
model(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < nmn; i++)
		if (mn[i].len == len && memcmp(mn[i].s, s, len) == 0)
			return &mn[i];
	if (nmn == NAMES)
		return NULL;
	memset(&mn[nmn], 0, sizeof(mn[nmn]));
	memcpy(mn[nmn].s, s, len);
	mn[nmn].len = len;
	return &mn[nmn++];
}

/* A name: mostly short ones of a few bytes, so that they meet again;
 * now and then a bad byte, 64 or 65 bytes. */
static void
pick(struct feed *f, char *s, size_t *len)
{
	static const char abc[] = "ab.-";
	uint8_t b = byte(f);
	size_t i;

	if (b % 32 == 1 || b % 32 == 2) {
		*len = b % 32 == 1 ? HNAMES_LEN : HNAMES_LEN + 1;
		memset(s, 'z', *len);
		return;
	}
	*len = 1 + b % 3;
	for (i = 0; i < *len; i++)
		s[i] = abc[byte(f) % 4];
	if (b % 32 == 3)
		s[0] = '/';
	if (b % 32 == 4)
		*len = 0;
}

static void
quiet(struct mname *m, int64_t t)
{
	if (t > m->quiet)
		m->quiet = t;
}

static void
check_acts(const struct hnames *r, const struct hnames_out *o,
    uint64_t floor0, int64_t now)
{
	const struct hnames_action *a;
	struct mname *m;
	uint64_t floor = floor0;
	size_t i;
	int saved = 0;

	for (i = 0; i < o->n; i++) {
		a = &o->v[i];
		switch (a->type) {
		case HNAMES_REFUSE:
			CHECK(o->why[0] != '\0');
			break;
		case HNAMES_CREATE:
			m = model(a->name, a->len);
			CHECK(m != NULL && !m->known);
			/* Above every K the name ever reached here. */
			CHECK(a->floor >= m->maxk && a->floor == floor);
			m->known = 1;
			m->corek = a->floor;
			m->holder = 0;
			m->quiet = now;
			break;
		case HNAMES_SAVE:
			CHECK(!saved && a->floor > floor);
			floor = a->floor;
			saved = 1;
			break;
		case HNAMES_FORGET:
			m = model(a->name, a->len);
			CHECK(m != NULL && m->known && m->regs == 0);
			/* The floor written covers it, and it was idle
			 * long enough. */
			CHECK(m->maxk <= floor);
			CHECK(now >= m->quiet + r->conf.idle);
			m->known = 0;
			m->holder = 0;
			break;
		case HNAMES_BID:
			m = model(a->name, a->len);
			CHECK(m != NULL && m->known && m->regs > 0);
			/* Never against a live holder, nor its own. */
			CHECK(m->holder == 0 || (m->holder != mself &&
			    !mlive[m->holder]));
			break;
		case HNAMES_RESIGN:
			m = model(a->name, a->len);
			CHECK(m != NULL && m->known);
			break;
		}
	}
	CHECK(r->floor == floor);
}

/* The registry against the model: in order, each once, its counters. */
static void
check_all(const struct hnames *r)
{
	const struct hname *h, *prev = NULL;
	struct mname *m;
	size_t known = 0, held = 0, waiting = 0, i;

	for (h = hnames_next(r, NULL); h != NULL; h = hnames_next(r, h)) {
		if (prev != NULL) {
			i = prev->len < h->len ? prev->len : h->len;
			CHECK(memcmp(prev->s, h->s, i) < 0 ||
			    (memcmp(prev->s, h->s, i) == 0 &&
			    prev->len < h->len));
		}
		m = model(h->s, h->len);
		CHECK(m != NULL && m->known && m->regs == h->regs);
		CHECK(hnames_find(r, h->s, h->len) == h);
		CHECK(h->k == m->corek && h->k >= h->floor);
		known++;
		held += h->holder == r->conf.self;
		waiting += h->regs > 0 && h->holder != r->conf.self;
		prev = h;
	}
	for (i = 0; i < nmn; i++)
		known -= mn[i].known;
	CHECK(known == 0);
	CHECK(r->n.known <= r->conf.max && r->n.held == held &&
	    r->n.waiting == waiting);
}

/* The batches of R parse back to its names held or wanted, in order. */
static void
check_batch(const struct hnames *r)
{
	static struct hnb_entry v[HNB_ENTRIES_MAX];
	static uint8_t buf[WIRE_PAYLOAD_MAX];
	const struct hname *after = NULL, *h = NULL;
	struct hnb_writer w;
	struct hnb_entry e;
	const char *why;
	size_t len;
	int done = 0, n, i;

	while (!done) {
		hnb_start(&w, buf, sizeof(buf));
		after = hnames_batch(r, after, &w, &done);
		if ((len = hnb_end(&w)) == 0) {
			CHECK(done);
			break;
		}
		CHECK(len <= WIRE_PAYLOAD_MAX);
		n = hnb_parse(buf, len, v, &why);
		CHECK(n > 0);
		for (i = 0; i < n; i++) {
			do
				h = hnames_next(r, h);
			while (h != NULL && hnames_entry(r, h, &e) == -1);
			CHECK(h != NULL && e.len == v[i].len &&
			    memcmp(e.name, v[i].name, e.len) == 0 &&
			    e.kind == v[i].kind && e.token == v[i].token);
		}
	}
	do
		h = hnames_next(r, h);
	while (h != NULL && hnames_entry(r, h, &e) == -1);
	CHECK(h == NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f = { data, size };
	struct hnames_conf c;
	struct hnames r;
	struct hnames_input in;
	struct hnames_out o;
	struct mname *m;
	char s[HNAMES_LEN + 2];
	unsigned ids[8];
	int64_t now = MS;
	uint64_t floor0;
	size_t i, len, before;
	int valid, was;
	uint8_t b;

	parse_raw(data, size);
	memset(&c, 0, sizeof(c));
	c.self = 1 + byte(&f) % 4;
	c.max = 1 + byte(&f) % 8;
	c.linger = 3 * MS;
	c.idle = c.linger + (int64_t)(byte(&f) % 8) * MS;
	c.learn = (int64_t)(byte(&f) % 4) * MS;
	c.delay = (int64_t)(byte(&f) % 4) * MS;
	c.spread = byte(&f) % 200;
	c.floor = byte(&f) % 4;
	if (hnames_init(&r, &c) == -1)
		return 0;
	nmn = 0;
	memset(mlive, 0, sizeof(mlive));
	mself = c.self;
	mlive[mself] = 1;
	while (f.n > 0) {
		memset(&in, 0, sizeof(in));
		b = byte(&f);
		in.type = (enum hnames_in_type)(1 + b % 6);
		now += (int64_t)(byte(&f) % 4) * MS;
		in.now = now;
		m = NULL;
		valid = 0;
		if (in.type != HNAMES_IN_TICK && in.type != HNAMES_IN_MEMBERS) {
			pick(&f, s, &len);
			in.name = s;
			in.len = len;
			valid = len >= 1 && len <= HNAMES_LEN && s[0] != '/';
			if (valid && (m = model(s, len)) == NULL)
				continue;
		}
		if (in.type == HNAMES_IN_CORE && m != NULL && m->known) {
			/* As a core booted at the floor: K only grows, a
			 * token of its own above it. */
			in.holder = byte(&f) % 5;
			in.k = m->corek + byte(&f) % 3;
			if (in.holder == c.self)
				in.token = in.k + 1;
			in.busy = now + (int64_t)(byte(&f) % 4) * MS;
			m->corek = in.token > in.k ? in.token : in.k;
			m->holder = in.holder;
			quiet(m, in.busy);
			if (m->corek > m->maxk)
				m->maxk = m->corek;
		}
		if (in.type == HNAMES_IN_MEMBERS) {
			in.nids = byte(&f) % 6;
			memset(mlive, 0, sizeof(mlive));
			mlive[mself] = 1;
			for (i = 0; i < in.nids; i++)
				mlive[ids[i] = byte(&f) % 6] = 1;
			in.ids = ids;
		}
		before = r.n.known;
		was = m != NULL && m->known;
		floor0 = r.floor;
		hnames_step(&r, &in, &o);
		check_acts(&r, &o, floor0, now);
		if (in.type == HNAMES_IN_HEARD && m != NULL && m->known)
			quiet(m, now);
		if (in.type == HNAMES_IN_REGISTER && m != NULL &&
		    hnames_find(&r, s, len) != NULL)
			m->regs++;
		if (in.type == HNAMES_IN_REGISTER ||
		    in.type == HNAMES_IN_HEARD)
			/* Refused: malformed, or new beyond the bound. */
			CHECK((o.n > 0 && o.v[0].type == HNAMES_REFUSE) ==
			    (!valid || (before == c.max && !was)));
		if (in.type == HNAMES_IN_RELEASE && m != NULL && m->known &&
		    m->regs > 0 && --m->regs == 0) {
			quiet(m, now);
			if (m->holder == mself)
				m->holder = 0;
		}
		check_all(&r);
		if (b % 8 == 0)
			check_batch(&r);
	}
	hnames_free(&r);
	return 0;
}
