/*
 * The lease grantor: Nerio's steps 4 to 6 (OQwBD, section 3; OQwBS,
 * section 4), release (section 6), FIFO from each source (10.2), and
 * the quiet period after a boot (share/elect/lease.md, Restarts).
 */
#include <string.h>

#include "algo/lease-internal.h"

void
lease_save(const struct lease *l, struct algo_out *o)
{
	uint8_t b[PERSIST_V2_LEN];

	b[0] = PERSIST_V1;
	algo_put64(b + 1, l->khi);
	algo_put64(b + 9, (uint64_t)l->dmax);
	algo_persist(o, b, lease_epoch_persist(l, b, sizeof(b)));
}

/* Raise the persisted bound above token T, when T exceeds it. */
static int
raise_bound(struct lease *l, uint64_t t)
{
	if (t <= l->khi)
		return 0;
	l->khi = t > UINT64_MAX - TOKEN_STRIDE ? UINT64_MAX : t + TOKEN_STRIDE;
	return 1;
}

/*
 * A requester has seen K up to KSEEN in Oks and Refuses, so the next
 * leader may take KSEEN + 1: persist a bound above it now, after this
 * step's answer, rather than before an Ok on a handover (Fencing token).
 */
void
lease_reach(struct lease *l, uint64_t kseen, struct algo_out *o)
{
	/* At the top of the epoch's range there is no next token. */
	if (kseen != 0 && lease_epoch_k_ok(l, kseen) &&
	    raise_bound(l, lease_epoch_token(l, kseen + 1)))
		lease_save(l, o);
}

/*
 * Leaving: nothing more is acknowledged in this life, so K_q itself bounds
 * what was, and a restart reports no stride above the tokens in use
 * (Fencing token).
 */
void
lease_tighten(struct lease *l, struct algo_out *o)
{
	if (lease_kq(l) < l->khi) {
		l->khi = lease_kq(l);
		lease_save(l, o);
	}
}

/* Grant P's request, or say why not (and *LEFT, how long the obstacle
 * lasts).  K and the longest delta are persisted before the Ok. */
int
lease_grant(struct lease *l, uint16_t p, const struct algo_elid *elid,
    algo_time delta, algo_time start, uint64_t tok, algo_time now,
    struct algo_out *o, algo_time *left)
{
	char c1[32], c2[32], ek[LEASE_EKEY];
	algo_time f;
	int dirty;

	*left = 0;
	if (l->wedging)
		return R_WEDGED;
	if (now < l->quiet) {
		*left = l->quiet - now;
		return R_QUIET;
	}
	if (tok != 0 && tok < l->k)
		return R_STALE;
	if (l->grantee != p && now < l->finish) {
		*left = l->finish - now;
		return R_BUSY;
	}
	if (l->a.t.skew > 0) {
		if (start > NEVER - delta - l->a.t.skew)
			return R_LATE;
		f = start + delta + l->a.t.skew;
		if (f <= now)
			return R_LATE;
	} else
		f = now + lease_fast(l, delta);
	if (tok > l->k)
		l->k = tok;
	dirty = raise_bound(l, l->k);
	if (delta > l->dmax) {
		l->dmax = delta;
		dirty = 1;
	}
	if (dirty)
		lease_save(l, o);
	/* A new grantee's predecessor has lapsed: F <= now < f. */
	if (f > l->finish)
		l->finish = f;
	l->grantee = p;
	l->told = 0;
	l->granted = *elid;
	algo_trace(o, "lease op=grant to=%u until=%s clock=%s%s", p,
	    lease_fmt_time(l->finish, c1, sizeof(c1)),
	    lease_fmt_time(now, c2, sizeof(c2)),
	    lease_epoch_key(l, ek, sizeof(ek)));
	algo_timer_set(o, T_GRANT, l->finish);
	return 0;
}

/* Our grant to P ends now (release, section 6). */
void
lease_ungrant(struct lease *l, uint16_t p, algo_time now, struct algo_out *o)
{
	char c[32], ek[LEASE_EKEY];

	if (l->grantee != p || now >= l->finish)
		return;
	l->finish = now;
	l->told = 1;
	algo_trace(o, "lease op=release to=%u clock=%s%s", p,
	    lease_fmt_time(now, c, sizeof(c)),
	    lease_epoch_key(l, ek, sizeof(ek)));
	algo_timer_cancel(o, T_GRANT);
}

/* (inc, ctr) order of two election ids of one node; counters compare
 * as serial numbers (RFC 1982), as they wrap after 2^32 runs. */
static int
elid_cmp(const struct algo_elid *x, const struct algo_elid *y)
{
	int32_t d;

	if (x->inc != y->inc)
		return x->inc < y->inc ? -1 : 1;
	d = (int32_t)(x->ctr - y->ctr);
	return (d > 0) - (d < 0);
}

/* FIFO from P (10.2): a request or release older than one already heard
 * from P, or of an incarnation known dead, is refused. */
static int
in_order(struct lease *l, uint16_t p, const struct algo_elid *e, int rel)
{
	struct peer *pr = &l->peer[lease_rank(l, p)];
	int c = elid_cmp(e, &pr->last);

	if (e->inc < pr->dead || c < 0 || (c == 0 && (pr->lastrel || !rel)))
		return 0;
	pr->last = *e;
	pr->lastrel = rel;
	return 1;
}

int
lease_on_request(struct lease *l, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	uint8_t b[REF_LEN];
	algo_time delta, start, echo, rem, left, v;
	uint64_t tok, echoinc, kseen = 0;
	uint16_t p = m->peer;
	int why;

	if ((m->len != REQ_LEN && m->len != REQ_KLEN) || m->elid.node != p)
		return ALGO_EINVAL;
	delta = lease_get_time(m->payload);
	start = lease_get_time(m->payload + 8);
	tok = algo_get64(m->payload + 16);
	echo = lease_get_time(m->payload + 24);
	echoinc = algo_get64(m->payload + 32);
	rem = lease_get_time(m->payload + 40);
	if (m->len == REQ_KLEN)
		kseen = algo_get64(m->payload + REQ_LEN);
	if (delta <= 0 || delta > DELTA_MAX || start < 0 || echo < 0 ||
	    rem < 0 || !lease_epoch_k_ok(l, tok) || !lease_epoch_k_ok(l, kseen))
		return ALGO_EINVAL;
	if (!in_order(l, p, &m->elid, 0))
		return ALGO_EINVAL;
	lease_heard(l, p, o);
	lease_epoch_learn(l, p, now, o);
	/* 10.5: P led at least REM real time after we sampled ECHO. */
	if (rem > 0 && echoinc == l->a.inc && echo <= now) {
		v = echo + lease_slow(l, rem);
		if (v > now && (l->vnode != p || v > l->vuntil)) {
			l->vnode = p;
			l->vuntil = v;
		}
	}
	why = lease_grant(l, p, &m->elid, delta, start, tok, now, o, &left);
	if (why == 0) {
		uint8_t ok[OK_LEN];

		algo_put64(ok, (uint64_t)now);
		algo_put64(ok + 8, l->a.inc);
		algo_put64(ok + 16, lease_kq(l));
		algo_send(o, p, M_OK, &m->elid, ok, sizeof(ok));
	} else {
		b[0] = why;
		b[1] = (why == R_BUSY ? l->grantee : 0) >> 8;
		b[2] = (why == R_BUSY ? l->grantee : 0) & 0xff;
		algo_put64(b + 3, (uint64_t)left);
		algo_put64(b + 11, lease_kq(l));
		algo_send(o, p, M_REFUSE, &m->elid, b, sizeof(b));
	}
	lease_reach(l, kseen, o);
	lease_show(l, now, o);
	return ALGO_OK;
}

int
lease_on_release(struct lease *l, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	uint16_t p = m->peer;

	if (m->len != REL_LEN || m->elid.node != p || m->payload[0] >= L_NWHY)
		return ALGO_EINVAL;
	if (!in_order(l, p, &m->elid, 1))
		return ALGO_EINVAL;
	if (l->grantee == p && elid_cmp(&l->granted, &m->elid) <= 0) {
		lease_ungrant(l, p, now, o);
		lease_epoch_settle(l, now, o);
	}
	if (m->payload[0] == L_ABORT)
		lease_heard(l, p, o);
	else {
		lease_lost(l, p, now, o);
		l->peer[lease_rank(l, p)].gone = 1;
	}
	lease_show(l, now, o);
	lease_maybe_run(l, now, o);
	return ALGO_OK;
}

/*
 * P's incarnation INC is dead: its guard, which saw the process end and
 * killed the commands it guarded, says so on its behalf (share/elect/
 * lease.md, A dead leader).  That is a Release of every run of INC and
 * of those before, however late its own messages still come: they are
 * refused from now on.  A copy says nothing new, so Dead is not windowed
 * (the daemon's net layer lets a replay through); it ends nothing of a
 * later incarnation, and says nothing of P's liveness if P has spoken
 * in one.
 */
int
lease_on_dead(struct lease *l, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	uint16_t p = m->peer;
	struct peer *pr;

	if (m->len != DEAD_LEN || m->elid.node != p || m->elid.ctr != 0 ||
	    m->elid.inc == UINT64_MAX)
		return ALGO_EINVAL;
	pr = &l->peer[lease_rank(l, p)];
	if (m->elid.inc + 1 > pr->dead)
		pr->dead = m->elid.inc + 1;
	if (l->grantee == p && l->granted.inc <= m->elid.inc) {
		lease_ungrant(l, p, now, o);
		lease_epoch_settle(l, now, o);
	}
	if (pr->last.inc <= m->elid.inc) {
		lease_lost(l, p, now, o);
		pr->gone = 1;
	}
	lease_show(l, now, o);
	lease_maybe_run(l, now, o);
	return ALGO_OK;
}

/* The grantor's part of "On recovery": the persisted bounds, and no
 * grant until every grant of an earlier life has lapsed (Restarts). */
int
lease_boot_grantor(struct lease *l, const uint8_t *persist, size_t len,
    algo_time now)
{
	algo_time base;

	if (len != 0) {
		if ((len != PERSIST_LEN || persist[0] != PERSIST_V1) &&
		    (len != PERSIST_V2_LEN || persist[0] != PERSIST_V2))
			return ALGO_EINVAL;
		if (algo_get64(persist + 9) > (uint64_t)DELTA_MAX)
			return ALGO_EINVAL;
		/* Every token acknowledged before is at most the bound;
		 * the stale check starts afresh (tokens still in use may be
		 * below it). */
		l->kboot = l->khi = algo_get64(persist + 1);
		l->dmax = (algo_time)algo_get64(persist + 9);
	}
	base = l->dmax > l->a.t.lease ? l->dmax : l->a.t.lease;
	l->quiet = now + (l->a.t.skew > 0 ? base + 2 * l->a.t.skew :
	    lease_fast(l, base));
	return ALGO_OK;
}
