/* The per-boot handshake: see session.h. */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "net/session.h"

void
sess_init(struct sess *s, const uint8_t nonce[SESS_NONCE])
{
	memset(s, 0, sizeof(*s));
	memcpy(s->mine, nonce, SESS_NONCE);
	s->owed = 1;
}

void
sess_digest(const char *text, size_t len, uint8_t out[SESS_DIGEST])
{
	uint8_t h[crypto_generichash_BYTES];

	crypto_generichash(h, sizeof(h), (const uint8_t *)text, len, NULL, 0);
	memcpy(out, h, SESS_DIGEST);
}

const char *
sess_hello_parse(const uint8_t *p, size_t len, struct sess_hello *h)
{
	static const uint8_t zero[SESS_NONCE];
	size_t i;

	if (len != SESS_PAYLOAD && len != SESS_PAYLOAD_MAX)
		return "bad-payload";
	memcpy(h->nonce, p, SESS_NONCE);
	memcpy(h->echo, p + SESS_NONCE, SESS_NONCE);
	for (i = 0; i < SESS_DIGESTS; i++)
		memcpy(h->conf.d[i], p + 2 * SESS_NONCE + i * SESS_DIGEST,
		    SESS_DIGEST);
	h->confirmed = p[SESS_PAYLOAD - 1] & SESS_F_CONFIRMED;
	h->conf.epoch = 0;
	if (len == SESS_PAYLOAD_MAX)
		h->conf.epoch = wire_get32(p + SESS_PAYLOAD);
	if (memcmp(h->nonce, zero, SESS_NONCE) == 0 ||
	    (p[SESS_PAYLOAD - 1] & ~(SESS_F_CONFIRMED | SESS_F_EPOCH)) != 0 ||
	    ((p[SESS_PAYLOAD - 1] & SESS_F_EPOCH) != 0) !=
	    (len == SESS_PAYLOAD_MAX) ||
	    (len == SESS_PAYLOAD_MAX && (h->conf.epoch == 0 ||
	    h->conf.epoch > SESS_EPOCH_MAX)))
		return "bad-payload";
	return NULL;
}

size_t
sess_hello_put(const struct sess_hello *h, uint8_t *p)
{
	uint32_t e = h->conf.epoch;
	size_t i;

	memcpy(p, h->nonce, SESS_NONCE);
	memcpy(p + SESS_NONCE, h->echo, SESS_NONCE);
	for (i = 0; i < SESS_DIGESTS; i++)
		memcpy(p + 2 * SESS_NONCE + i * SESS_DIGEST, h->conf.d[i],
		    SESS_DIGEST);
	p[SESS_PAYLOAD - 1] = h->confirmed ? SESS_F_CONFIRMED : 0;
	if (e == 0)
		return SESS_PAYLOAD;
	p[SESS_PAYLOAD - 1] |= SESS_F_EPOCH;
	wire_put32(p + SESS_PAYLOAD, e);
	return SESS_PAYLOAD_MAX;
}

static int64_t
retry(const struct sess *s)
{
	return s->misfit != SESS_OK ? SESS_RETRY_ODD : SESS_RETRY;
}

void
sess_hello(struct sess *s, const struct sess_conf *conf, int64_t now,
    struct sess_hello *h)
{
	memcpy(h->nonce, s->mine, SESS_NONCE);
	memcpy(h->echo, s->theirs, SESS_NONCE);
	h->conf = *conf;
	h->confirmed = s->confirmed && !s->verify;
	s->verify = 0;
	s->owed = 0;
	s->last = now;
	s->next = now + retry(s);
}

/* Answers are owed at once, but never more than one per SESS_GAP: no
 * exchange of HELLOs, however it goes, runs faster. */
int
sess_due(const struct sess *s, int64_t now)
{
	if (s->last != 0 && now - s->last < SESS_GAP)
		return 0;
	return s->owed || (!s->confirmed && now >= s->next);
}

int64_t
sess_deadline(const struct sess *s)
{
	int64_t d = s->owed ? 0 : s->confirmed ? INT64_MAX : s->next;

	return s->last != 0 && d < s->last + SESS_GAP ? s->last + SESS_GAP : d;
}

static void
set_misfit(struct sess *s, enum sess_misfit f, int *changed)
{
	if (s->misfit != f)
		*changed = 1;
	s->misfit = f;
}

/* Ask again: at once, unless a HELLO went out less than a retry ago. */
static void
reconfirm(struct sess *s, int64_t now)
{
	s->confirmed = 0;
	if (now >= s->next)
		s->owed = 1;
}

static enum sess_take
refuse(const char **why, const char *reason)
{
	*why = reason;
	return SESS_REFUSED;
}

static enum sess_take
on_hello(struct sess *s, const struct sess_conf *conf,
    const struct wire_msg *m, int64_t now, int *changed, const char **out)
{
	struct sess_hello h;
	const char *why;
	size_t i;

	if ((why = sess_hello_parse(m->payload, m->len, &h)) != NULL ||
	    (why = wire_window_check(&s->hwin, m->inc, m->seq)) != NULL)
		return refuse(out, why);
	/* Each epoch has its own membership: the cluster's digest is
	 * compared within one epoch only. */
	for (i = 0; i < SESS_DIGESTS; i++)
		if (memcmp(h.conf.d[i], conf->d[i], SESS_DIGEST) != 0 &&
		    (SESS_ALGO + i != SESS_CLUSTER ||
		    h.conf.epoch == conf->epoch))
			break;
	/* A challenge not answered yet, or a peer still waiting (but a
	 * misfit, never confirmed, only hears us every SESS_RETRY_ODD). */
	if (sodium_memcmp(h.nonce, s->theirs, SESS_NONCE) != 0 ||
	    (!h.confirmed && i == SESS_DIGESTS))
		s->owed = 1;
	memcpy(s->theirs, h.nonce, SESS_NONCE);
	if (i < SESS_DIGESTS) {
		set_misfit(s, (enum sess_misfit)(SESS_ALGO + i), changed);
		s->odd_at = now;
		s->confirmed = 0;
		return refuse(out, "mismatch");
	}
	set_misfit(s, SESS_OK, changed);
	if (sodium_memcmp(h.echo, s->mine, SESS_NONCE) != 0) {
		/* Not an answer to us: the peer may have restarted. */
		if (!s->confirmed || m->inc != s->win.inc)
			reconfirm(s, now);
		return SESS_HELLO;
	}
	/* An answer again, from the incarnation already confirmed: its
	 * window stays.  Reset, it would take a late HELLO's seq for the
	 * top and let the datagrams after it in a second time. */
	if (s->confirmed && s->win.valid && m->inc == s->win.inc)
		return SESS_HELLO;
	s->confirmed = 1;
	s->epoch = h.conf.epoch;	/* of this incarnation, for good */
	s->win.valid = 1;
	s->win.inc = m->inc;
	s->win.top = m->seq;
	s->win.bits = 1;
	return SESS_HELLO;
}

enum sess_take
sess_recv(struct sess *s, const struct sess_conf *conf,
    const struct wire_msg *m, int64_t now, int *changed, const char **why)
{
	*why = NULL;
	*changed = sess_goodmac(s);
	if (m->type == WIRE_TYPE_HELLO)
		return on_hello(s, conf, m, now, changed, why);
	if (s->misfit != SESS_OK)
		return refuse(why, "mismatch");
	if (!s->confirmed) {
		if (now >= s->next)
			s->owed = 1;
		return refuse(why, "unconfirmed");
	}
	if (m->inc < s->win.inc)
		return refuse(why, "old-incarnation");
	if (m->inc > s->win.inc) {
		reconfirm(s, now);
		return refuse(why, "unconfirmed");
	}
	if (m->seq > s->win.top && m->seq - s->win.top > SESS_JUMP) {
		reconfirm(s, now);
		return refuse(why, "seq-jump");
	}
	if ((*why = wire_window_check(&s->win, m->inc, m->seq)) != NULL)
		return SESS_REFUSED;
	return SESS_COUNTS;
}

int
sess_badmac(struct sess *s, int64_t now)
{
	s->odd_at = now;
	if (s->verify_at == 0 || now - s->verify_at >= SESS_RETRY_ODD) {
		s->verify_at = now;
		s->verify = 1;
		s->owed = 1;
	}
	if (s->badmacs < SESS_BADMAC && ++s->badmacs == SESS_BADMAC &&
	    s->misfit != SESS_KEY) {
		s->misfit = SESS_KEY;
		return 1;
	}
	return 0;
}

int
sess_goodmac(struct sess *s)
{
	s->badmacs = 0;
	if (s->misfit == SESS_KEY) {
		s->misfit = SESS_OK;
		return 1;
	}
	return 0;
}

const char *
sess_misfit_name(enum sess_misfit f)
{
	static const char *const names[] = {
		[SESS_ALGO] = "algo", [SESS_TIMING] = "timing",
		[SESS_CLUSTER] = "cluster", [SESS_KEY] = "key",
	};

	return f == SESS_OK || f > SESS_KEY ? NULL : names[f];
}

void
sess_cluster_digest(const struct cluster *c, uint8_t out[SESS_DIGEST])
{
	crypto_generichash_state st;
	uint8_t h[crypto_generichash_BYTES];
	char line[32];
	size_t i;
	int n;

	crypto_generichash_init(&st, NULL, 0, sizeof(h));
	for (i = 0; i < c->n; i++) {
		n = snprintf(line, sizeof(line), "node %u\n",
		    c->nodes[i].id);
		crypto_generichash_update(&st, (const uint8_t *)line,
		    (size_t)n);
	}
	crypto_generichash_final(&st, h, sizeof(h));
	memcpy(out, h, SESS_DIGEST);
}
