/*
 * Lease edicts (Nerio, section 7): the leader stamps each with its quorum
 * timestamp, fencing token and counter; every node delivers them in
 * (token, seq) order and refuses the rest (share/elect/lease.md, Edicts).
 * Each one delivered or refused leaves the core once, as an ALGO_EDICT
 * action of the step that made or received it; the core keeps none.
 */
#include <string.h>

#include "algo/lease-internal.h"

static int
text_ok(const uint8_t *p, size_t len)
{
	size_t i;

	if (len == 0 || len > LEASE_TEXT_MAX)
		return 0;
	for (i = 0; i < len; i++)
		if (p[i] < 0x20 || p[i] == 0x7f)
			return 0;
	return 1;
}

/* Deliver an edict in (token, seq) order, or refuse it. */
static void
deliver(struct lease *l, uint16_t from, uint64_t tok, uint64_t seq,
    const char *qs, const uint8_t *text, size_t len, struct algo_out *o)
{
	int in = tok > l->dtok || (tok == l->dtok && seq > l->dseq);
	char ek[LEASE_EKEY];

	if (!in)
		algo_trace(o, "drop from=%u why=edict-order", from);
	else {
		l->dtok = tok;
		l->dseq = seq;
		algo_trace(o, "deliver from=%u seq=%llu %s%s", from,
		    (unsigned long long)seq, qs,
		    lease_epoch_key(l, ek, sizeof(ek)));
	}
	algo_edict(o, from, tok, seq, in, text, len);
}

int
lease_make_edict(struct lease *l, const struct algo_cmd *c, algo_time now,
    struct algo_out *o)
{
	uint8_t b[ALGO_PAYLOAD_MAX];
	char t[32], qs[LEASE_QT_STRLEN], ek[LEASE_EKEY];
	size_t len, i, n = lease_qt_carried(l);

	if (!lease_leading(l, now) || l->tok == 0)
		return ALGO_ENOTLEADER;
	if (!text_ok(c->data, c->len))
		return ALGO_EINVAL;
	/* Edict Validity: only a leader, with a quorum timestamp. */
	ALGO_ASSERT(l->nqt == lease_quorum(l));
	len = EDICT_HDR + (n > 0 ? n * QT_PAIR : QD_LEN);
	/* LEASE_QT_WIRE leaves room for the longest text. */
	ALGO_ASSERT(len + c->len <= ALGO_PAYLOAD_MAX);
	l->ec++;
	algo_put64(b, l->tok);
	algo_put64(b + 8, l->ec);
	b[16] = (uint8_t)(n >> 8);
	b[17] = (uint8_t)n;
	for (i = 0; i < n; i++) {
		b[EDICT_HDR + i * QT_PAIR] = l->qt[i].id >> 8;
		b[EDICT_HDR + i * QT_PAIR + 1] = l->qt[i].id & 0xff;
		algo_put64(b + EDICT_HDR + i * QT_PAIR + 2,
		    (uint64_t)l->qt[i].t);
	}
	if (n == 0)
		algo_put64(b + EDICT_HDR, l->qd);
	memcpy(b + len, c->data, c->len);
	len += c->len;
	lease_qt_key(l->qt, n, l->qd, qs, sizeof(qs));
	algo_trace(o, "edict seq=%llu %s clock=%s%s",
	    (unsigned long long)l->ec, qs, lease_fmt_time(now, t, sizeof(t)),
	    lease_epoch_key(l, ek, sizeof(ek)));
	deliver(l, l->a.self, l->tok, l->ec, qs, c->data, c->len, o);
	for (i = 0; i < l->a.n; i++)
		if (i != l->a.rank)
			algo_send(o, l->a.ids[i], M_EDICT, NULL, b, len);
	return ALGO_OK;
}

/*
 * An edict's quorum timestamp as traced into QS, and where its text
 * starts; 0 if malformed.  It carries the pairs, or (pairs 0) their
 * digest.
 */
static size_t
edict_qt(const struct lease *l, const struct algo_msg *m, char *qs,
    size_t qslen)
{
	struct qt qt[LEASE_QT_RECV];
	const uint8_t *p;
	size_t n, i;

	if (m->len < EDICT_HDR)
		return 0;
	n = (size_t)m->payload[16] << 8 | m->payload[17];
	if (n == 0) {
		if (EDICT_HDR + QD_LEN >= m->len)
			return 0;
		lease_qt_key(NULL, 0, algo_get64(m->payload + EDICT_HDR), qs,
		    qslen);
		return EDICT_HDR + QD_LEN;
	}
	if (n > LEASE_QT_RECV || n > l->a.n || EDICT_HDR + n * QT_PAIR >= m->len)
		return 0;
	for (i = 0; i < n; i++) {
		p = m->payload + EDICT_HDR + i * QT_PAIR;
		qt[i].id = (uint16_t)(p[0] << 8 | p[1]);
		qt[i].t = lease_get_time(p + 2);
		if (algo_rank(&l->a, qt[i].id) == -1 || qt[i].t < 0)
			return 0;
	}
	lease_qt_key(qt, n, 0, qs, qslen);
	return EDICT_HDR + n * QT_PAIR;
}

int
lease_on_edict(struct lease *l, const struct algo_msg *m, struct algo_out *o)
{
	char qs[LEASE_QT_STRLEN];
	const uint8_t *text;
	uint64_t tok, seq;
	size_t off, len;

	if ((off = edict_qt(l, m, qs, sizeof(qs))) == 0)
		return ALGO_EINVAL;
	tok = algo_get64(m->payload);
	seq = algo_get64(m->payload + 8);
	text = m->payload + off;
	len = m->len - off;
	if (tok == 0 || seq == 0 || !text_ok(text, len) ||
	    !lease_epoch_k_ok(l, tok))
		return ALGO_EINVAL;
	lease_heard(l, m->peer, o);
	deliver(l, m->peer, tok, seq, qs, text, len, o);
	return ALGO_OK;
}
