/*
 * The lease candidate and leader: Nerio's steps 1 to 3 and 7 to 9 (OQwBD,
 * section 3; OQwBS, section 4), giving up and stepping down (section 6,
 * 10.2), renewal (10.1) and the fencing token (share/elect/lease.md,
 * Timing and Fencing token).
 */
#include <stdio.h>

#include "algo/lease-internal.h"

static void	complete(struct lease *, algo_time, struct algo_out *);

/* X / (1 + rho), rounded down: real time at least left of X local. */
static algo_time
real_left(const struct lease *l, algo_time x)
{
	return (algo_time)((__int128)x * NS / (NS + l->a.t.drift));
}

/* X on another clock, rounded up to ours: X (1 + rho) / (1 - rho). */
static algo_time
other_clock(const struct lease *l, algo_time x)
{
	__int128 d = NS - l->a.t.drift;

	return (algo_time)(((__int128)x * (NS + l->a.t.drift) + d - 1) / d);
}

/* Release every grant of ours (section 6), but not at the nodes in SKIP. */
static void
release_all(struct lease *l, int why, const struct algo_set *skip,
    algo_time now, struct algo_out *o)
{
	struct algo_elid e = { l->a.self, l->ctr, l->a.inc };
	uint8_t b[REL_LEN] = { (uint8_t)why };
	size_t r;

	lease_ungrant(l, l->a.self, now, o);
	for (r = 0; r < l->a.n; r++)
		if (r != l->a.rank && (skip == NULL || !algo_set_has(skip, r)))
			algo_send(o, l->a.ids[r], M_RELEASE, &e, b, sizeof(b));
}

/* Start a run: a renewal while we lead, else a bid (section 9). */
void
lease_start_run(struct lease *l, algo_time now, struct algo_out *o)
{
	struct run *u = &l->run;
	uint8_t b[REQ_KLEN];
	algo_time delta = l->a.t.lease, rest = 0, left;
	uint64_t kseen;
	size_t r;
	int lead = lease_leading(l, now);

	if (lead)
		rest = real_left(l, l->expire - now);
	u->on = 1;
	u->elid.node = l->a.self;
	u->elid.inc = l->a.inc;
	u->elid.ctr = ++l->ctr;
	u->start = now;
	u->delta = delta;
	u->end = now + lease_trusted(l, delta);
	u->tok = lead ? (l->tok != 0 ? l->tok : l->ptok) : 0;
	u->stale = 0;
	algo_set_clear(&u->ok);
	algo_set_clear(&u->ref);
	u->nok = u->nref = 0;
	u->maxk = lease_kq(l);
	lease_sample(o, now);
	/* The requests first: our own grant may persist K (a disk flush),
	 * which the requests need not wait for.  It is still written before
	 * any answer is counted, as the edge carries out a step's actions
	 * before it takes the next input. */
	algo_put64(b, (uint64_t)delta);
	algo_put64(b + 8, (uint64_t)now);
	algo_put64(b + 16, u->tok);
	algo_put64(b + 40, (uint64_t)rest);
	/* Every grantor's bound ahead of the next leader's token: see
	 * Fencing token. */
	kseen = l->kseen > u->maxk ? l->kseen : u->maxk;
	if (u->tok > kseen)
		kseen = u->tok;
	algo_put64(b + REQ_LEN, kseen);
	for (r = 0; r < l->a.n; r++) {
		if (r == l->a.rank)
			continue;
		algo_put64(b + 24, (uint64_t)l->peer[r].echo);
		algo_put64(b + 32, l->peer[r].echoinc);
		algo_send(o, l->a.ids[r], M_REQUEST, &u->elid, b, sizeof(b));
	}
	if (lease_grant(l, l->a.self, &u->elid, delta, now, u->tok, now, o,
	    &left) == 0) {
		algo_set_add(&u->ok, l->a.rank);
		u->nok++;
		u->t[l->a.rank] = now;
		if (lease_kq(l) > u->maxk)
			u->maxk = lease_kq(l);
	} else {
		algo_set_add(&u->ref, l->a.rank);
		u->nref++;
		u->free[l->a.rank] = now + left;
	}
	lease_reach(l, kseen, o);
	algo_timer_set(o, T_ABORT, u->end);
	if (lead)
		algo_timer_set(o, T_TRY, now + l->a.t.renew);
	lease_show(l, now, o);
	if (u->nok >= lease_quorum(l))
		complete(l, now, o);
	else if (lease_hopes(l) < lease_quorum(l))
		lease_fail(l, now, o);
}

/* Step 8: a majority granted in time. */
static void
complete(struct lease *l, algo_time now, struct algo_out *o)
{
	struct run *u = &l->run;
	char c1[32], c2[32], tk[32], qs[LEASE_QT_STRLEN], ek[LEASE_EKEY];
	int cont = lease_leading(l, now);
	size_t r;

	/* Step 8 holds only with a majority's grants, in time. */
	ALGO_ASSERT(u->on && u->nok >= lease_quorum(l) && now < u->end);
	u->on = 0;
	algo_timer_cancel(o, T_ABORT);
	l->expire = u->end;
	l->lstart = u->start;
	l->ldelta = u->delta;
	l->lself = algo_set_has(&u->ok, l->a.rank);
	l->nqt = 0;
	for (r = 0; r < l->a.n && l->nqt < lease_quorum(l); r++)
		if (algo_set_has(&u->ok, r)) {
			l->qt[l->nqt].id = l->a.ids[r];
			l->qt[l->nqt++].t = u->t[r];
		}
	l->qd = l->nqt > LEASE_QT_WIRE ? lease_qt_digest(l->qt, l->nqt) : 0;
	/* The fencing token: share/elect/lease.md, Fencing token. */
	if (cont && l->tok != 0 && u->tok == l->tok)
		;
	else if (cont && l->ptok != 0 && u->tok == l->ptok) {
		l->tok = l->ptok;
		l->ptok = 0;
	} else {
		l->tok = 0;
		l->ptok = lease_epoch_token(l, (u->maxk > lease_kq(l) ?
		    u->maxk : lease_kq(l)) + 1);
	}
	lease_qt_key(l->qt, lease_qt_carried(l), l->qd, qs, sizeof(qs));
	tk[0] = '\0';
	if (l->tok != 0)
		snprintf(tk, sizeof(tk), " token=%llu",
		    (unsigned long long)l->tok);
	algo_trace(o, "lead until=%s clock=%s %s%s%s",
	    lease_fmt_time(l->expire, c1, sizeof(c1)), lease_fmt_time(now, c2, sizeof(c2)),
	    qs, tk, lease_epoch_key(l, ek, sizeof(ek)));
	algo_timer_set(o, T_LEAD, l->expire);
	lease_show(l, now, o);
	if (l->ptok != 0)
		lease_start_run(l, now, o);	/* establish the token */
}

/* Nodes that may still grant this run: Oks, and the unanswered that we
 * consider correct. */
size_t
lease_hopes(const struct lease *l)
{
	const struct run *u = &l->run;
	size_t r, h = u->nok;

	for (r = 0; r < l->a.n; r++)
		if (!algo_set_has(&u->ok, r) && !algo_set_has(&u->ref, r) &&
		    l->peer[r].up)
			h++;
	return h;
}

/* Step 9, or a majority out of reach. */
void
lease_fail(struct lease *l, algo_time now, struct algo_out *o)
{
	struct run *u = &l->run;
	algo_time when[LEASE_NODES_MAX], t, retry;
	size_t r, k = 0, need, i, j, avail;

	u->on = 0;
	algo_timer_cancel(o, T_ABORT);
	if (lease_leading(l, now)) {
		/* A renewal: the next one comes at T_TRY. */
		if (u->stale)
			l->tok = l->ptok = 0;
		lease_show(l, now, o);
		return;
	}
	/* A bid: give back what we got (section 6), come back when enough
	 * refusers will be free, or after a renewal period. */
	release_all(l, L_ABORT, &u->ref, now, o);
	avail = 0;
	for (r = 0; r < l->a.n; r++)
		if (algo_set_has(&u->ref, r))
			when[k++] = u->free[r];
		else if (r == l->a.rank || l->peer[r].up)
			avail++;
	need = lease_quorum(l) > avail ? lease_quorum(l) - avail : 0;
	retry = now + l->a.t.renew;
	if (need > 0 && need <= k) {
		for (i = 1; i < k; i++)		/* k is small: insertion */
			for (j = i; j > 0 && when[j - 1] > when[j]; j--) {
				t = when[j];
				when[j] = when[j - 1];
				when[j - 1] = t;
			}
		retry = when[need - 1];
	}
	if (retry < now)
		retry = now;
	if (retry != NEVER)
		retry += (algo_time)(algo_rand(&l->a) %
		    (uint64_t)(l->a.t.rtt / 2 + 1));
	else
		retry = now + l->a.t.lease;
	algo_timer_set(o, T_TRY, retry);
	lease_show(l, now, o);
}

void
lease_maybe_run(struct lease *l, algo_time now, struct algo_out *o)
{
	if (!lease_epoch_may_run(l))
		return;
	if (l->a.left || l->run.on || lease_leading(l, now) || now < l->quiet ||
	    now < l->backoff || l->mon != NONE || lease_granting(l, now))
		return;
	lease_start_run(l, now, o);
}

int
lease_on_ok(struct lease *l, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	struct run *u = &l->run;
	struct peer *pr;
	algo_time t;
	uint64_t k;
	size_t r;

	if (m->len != OK_LEN || m->elid.node != l->a.self ||
	    (t = lease_get_time(m->payload)) < 0)
		return ALGO_EINVAL;
	k = algo_get64(m->payload + 16);
	if (!lease_epoch_k_ok(l, k))
		return ALGO_EINVAL;
	lease_heard(l, m->peer, o);
	if (k > l->kseen)
		l->kseen = k;
	r = lease_rank(l, m->peer);
	pr = &l->peer[r];
	pr->echo = t;
	pr->echoinc = algo_get64(m->payload + 8);
	if (!u->on || !algo_elid_eq(&m->elid, &u->elid) ||
	    algo_set_has(&u->ok, r) || algo_set_has(&u->ref, r))
		return ALGO_OK;		/* an aborted run, or twice */
	algo_set_add(&u->ok, r);
	u->nok++;
	u->t[r] = t;
	if (k > u->maxk)
		u->maxk = k;
	if (u->nok >= lease_quorum(l) && now < u->end)
		complete(l, now, o);
	return ALGO_OK;
}

int
lease_on_refuse(struct lease *l, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	struct run *u = &l->run;
	algo_time left, f;
	uint64_t k;
	uint16_t g;
	size_t r;
	int why;

	if (m->len != REF_LEN || m->elid.node != l->a.self)
		return ALGO_EINVAL;
	why = m->payload[0];
	g = (uint16_t)(m->payload[1] << 8 | m->payload[2]);
	left = lease_get_time(m->payload + 3);
	k = algo_get64(m->payload + 11);
	if (why < R_BUSY || why >= R_NWHY || left < 0 || left > DELTA_MAX ||
	    !lease_epoch_k_ok(l, k) ||
	    (g != 0 && algo_rank(&l->a, g) == -1) || (why == R_BUSY) != (g != 0))
		return ALGO_EINVAL;
	lease_heard(l, m->peer, o);
	if (k > l->kseen)
		l->kseen = k;
	if (g != 0 && g != l->a.self)
		l->hint = g;		/* 10.4: where the leader is */
	r = lease_rank(l, m->peer);
	if (!u->on || !algo_elid_eq(&m->elid, &u->elid) ||
	    algo_set_has(&u->ok, r) || algo_set_has(&u->ref, r))
		return ALGO_OK;
	algo_set_add(&u->ref, r);
	u->nref++;
	if (k > u->maxk)
		u->maxk = k;
	if (why == R_STALE || why == R_LATE || why == R_WEDGED) {
		u->stale |= why == R_STALE;
		f = NEVER;
	} else
		f = now + other_clock(l, left);
	/* A grantee that left has its Release on the way: ask again soon,
	 * once. */
	if (why == R_BUSY && l->peer[lease_rank(l, g)].gone &&
	    f > now + l->a.t.rtt / 2) {
		f = now + l->a.t.rtt / 2;
		l->peer[lease_rank(l, g)].gone = 0;
	}
	u->free[r] = f;
	if (lease_hopes(l) < lease_quorum(l))
		lease_fail(l, now, o);
	return ALGO_OK;
}

/* Give leadership up and withdraw (RELEASE, LEAVE): section 6. */
void
lease_resign(struct lease *l, int why, algo_time now, struct algo_out *o)
{
	char c[32], ek[LEASE_EKEY];

	if (l->run.on) {
		l->run.on = 0;
		algo_timer_cancel(o, T_ABORT);
	}
	if (lease_leading(l, now)) {
		l->expire = now;
		lease_fmt_time(now, c, sizeof(c));
		algo_trace(o, "lead until=%s clock=%s%s", c, c,
		    lease_epoch_key(l, ek, sizeof(ek)));
		algo_timer_cancel(o, T_LEAD);
	}
	l->tok = l->ptok = 0;
	release_all(l, why, NULL, now, o);
}
