/*
 * Lease epochs (Nerio, section 10.6; share/elect/lease.md, Epochs): a
 * core serves one epoch, a.epoch.  Pending, it neither asks nor leads
 * until it learns that the epoch before is TERMINATED (rule E1); asked to
 * wedge, it grants nothing more and, once no grant of its own is
 * outstanding, is wedged for good (E2); its tokens lie in its epoch's
 * range (E4); its stable storage says all this (E6).
 */
#include <stdio.h>
#include <string.h>

#include "algo/lease-internal.h"

/* The epoch's part of a persisted blob: version 2 when it has one.  A
 * fresh core granted nothing in an earlier life: no quiet period (E7). */
int
lease_epoch_boot(struct lease *l, const uint8_t *persist, size_t len,
    algo_time now)
{
	uint8_t f;

	l->pending = l->a.epoch_pending;
	if (l->a.epoch_fresh)
		l->quiet = now;
	if (len == 0)
		return ALGO_OK;
	if (len != PERSIST_V2_LEN)	/* version 1: epoch 0, unwedged */
		return l->a.epoch == 0 ? ALGO_OK : ALGO_EINVAL;
	f = persist[21];
	if (algo_get32(persist + 17) != l->a.epoch ||
	    (f & ~(EP_WEDGED | EP_LEARNED)) != 0)
		return ALGO_EINVAL;
	if (f & EP_WEDGED)
		l->wedging = l->wedged = 1;
	if (f & EP_LEARNED)
		l->pending = 0;
	return ALGO_OK;
}

/* Turns the version 1 blob B (PERSIST_LEN bytes) into version 2 when
 * the epoch needs it; its length. */
size_t
lease_epoch_persist(const struct lease *l, uint8_t *b, size_t cap)
{
	uint8_t f = 0;

	ALGO_ASSERT(cap >= PERSIST_V2_LEN);
	if (l->wedged)
		f |= EP_WEDGED;
	if (l->a.epoch != 0 && !l->pending)
		f |= EP_LEARNED;
	if (l->a.epoch == 0 && f == 0)
		return PERSIST_LEN;
	b[0] = PERSIST_V2;
	algo_put32(b + 17, l->a.epoch);
	b[21] = f;
	return PERSIST_V2_LEN;
}

/* A new leader's token from V, 1 + the largest K it knows: above every
 * token of earlier epochs (E4). */
uint64_t
lease_epoch_token(const struct lease *l, uint64_t v)
{
	uint64_t base = (uint64_t)l->a.epoch << EPOCH_SHIFT;

	if (v <= base)
		v = base + 1;
	ALGO_ASSERT(v >> EPOCH_SHIFT == l->a.epoch);
	return v;
}

/* A token or K from a message: none of a later epoch, and room for a
 * next one in ours (E4); any other is refused as malformed. */
int
lease_epoch_k_ok(const struct lease *l, uint64_t k)
{
	uint64_t top = (uint64_t)l->a.epoch << EPOCH_SHIFT |
	    ((UINT64_C(1) << EPOCH_SHIFT) - 1);

	return k < top;
}

/* " epoch=E" for the trace lines of a later epoch than 0, else "": the
 * lines of a cluster that never changed stay as they were. */
const char *
lease_epoch_key(const struct lease *l, char *buf, size_t len)
{
	buf[0] = '\0';
	if (l->a.epoch != 0)
		snprintf(buf, len, " epoch=%u", l->a.epoch);
	return buf;
}

int
lease_epoch_may_run(const struct lease *l)
{
	return !l->pending && !l->wedging;
}

/* The epoch before is TERMINATED: said by the caller (BY 0) or shown by
 * a Request of BY, a member of ours, who asks only once it knows. */
void
lease_epoch_learn(struct lease *l, uint16_t by, algo_time now,
    struct algo_out *o)
{
	char c[32];

	if (!l->pending || l->wedging)	/* a wedged core never leads */
		return;
	l->pending = 0;
	lease_save(l, o);
	if (by != 0)
		algo_trace(o, "epoch op=learn epoch=%u by=%u clock=%s",
		    l->a.epoch, by, lease_fmt_time(now, c, sizeof(c)));
	else
		algo_trace(o, "epoch op=learn epoch=%u clock=%s", l->a.epoch,
		    lease_fmt_time(now, c, sizeof(c)));
}

/* Wedge once no grant to another node is outstanding: A = bot, F =
 * infinity, persisted before it is traced and reported (E2). */
void
lease_epoch_settle(struct lease *l, algo_time now, struct algo_out *o)
{
	char c[32];

	if (!l->wedging || l->wedged || lease_granting(l, now))
		return;
	ALGO_ASSERT(!lease_leading(l, now) && !l->run.on);
	l->grantee = 0;
	l->wedged = 1;
	algo_timer_cancel(o, T_GRANT);
	lease_save(l, o);
	algo_trace(o, "epoch op=wedge epoch=%u clock=%s", l->a.epoch,
	    lease_fmt_time(now, c, sizeof(c)));
	lease_show(l, now, o);
}

int
lease_epoch_cmd(struct lease *l, const struct algo_cmd *c, algo_time now,
    struct algo_out *o)
{
	if (c->len != 0)
		return ALGO_EINVAL;
	if (c->code == ALGO_CMD_TERMINATED) {
		lease_epoch_learn(l, 0, now, o);
		lease_maybe_run(l, now, o);
		return ALGO_OK;
	}
	if (!l->wedging) {
		l->wedging = 1;
		/* Our grantors' grants end now, not at their F. */
		if (lease_leading(l, now) || l->run.on)
			lease_resign(l, L_RESIGN, now, o);
		algo_timer_cancel(o, T_TRY);
	}
	lease_epoch_settle(l, now, o);
	lease_show(l, now, o);
	return ALGO_OK;
}

void
lease_epoch_query(const struct lease *l, struct algo_status *st)
{
	size_t off = strlen(st->extra);

	st->epoch = l->a.epoch;
	st->pending = l->pending;
	st->wedged = l->wedged;
	if (l->a.epoch == 0 && !l->wedging)
		return;
	snprintf(st->extra + off, sizeof(st->extra) - off, "%sepoch=%u%s",
	    off ? " " : "", l->a.epoch, l->wedged ? " wedged=yes" :
	    l->wedging ? " wedging=yes" : l->pending ? " pending=yes" : "");
}

const char *
lease_epoch_check(const struct lease *l)
{
	algo_time now = l->a.now;

	if (l->wedged && (!l->wedging || l->grantee != 0))
		return "lease: a wedged node grants nothing";
	if ((l->pending || l->wedging) && (lease_leading(l, now) ||
	    l->run.on))
		return "lease: no lease while pending or wedging";
	if ((l->tok | l->ptok) >> EPOCH_SHIFT != l->a.epoch &&
	    (l->tok | l->ptok) != 0)
		return "lease: a token within its epoch's range";
	return NULL;
}
