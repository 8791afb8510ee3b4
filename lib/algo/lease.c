/*
 * lease: Nerio (van Renesse, Schneider and Gehrke, "Nerio: Leader Election
 * and Edict Ordering"): a node leads while a majority of the cluster
 * grants it a lease, so that at most one node leads at any time, under
 * partitions, pauses and message loss, given a bound on clock drift.
 *
 * This file takes the inputs and hands them to the roles (see
 * lease-internal.h), boots, answers the status, checks the invariants and
 * codes payloads for traces and tests.  The design, the proofs and the
 * decisions the paper leaves open are in share/elect/lease.md.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/lease-internal.h"

static const char *const msgnames[NMSG] = {
	[M_REQUEST] = "Request",
	[M_OK] = "Ok",
	[M_REFUSE] = "Refuse",
	[M_RELEASE] = "Release",
	[M_EDICT] = "Edict",
	[M_DEAD] = "Dead",
};

static const char *const timernames[NTIMER] = {
	[T_TRY] = "try",
	[T_ABORT] = "abort",
	[T_LEAD] = "lead",
	[T_GRANT] = "grant",
	[T_QUIET] = "quiet",
};

static const char *const whynames[R_NWHY] = {
	[R_BUSY] = "busy", [R_QUIET] = "quiet", [R_STALE] = "stale",
	[R_LATE] = "late", [R_WEDGED] = "wedged",
};

static const char *const relnames[L_NWHY] = {
	[L_ABORT] = "abort", [L_RESIGN] = "resign", [L_LEAVE] = "leave",
};

algo_time
lease_get_time(const uint8_t *p)
{
	uint64_t v = algo_get64(p);

	return v > INT64_MAX ? -1 : (algo_time)v;
}

const char *
lease_fmt_time(algo_time t, char *buf, size_t len)
{
	trace_format_time(t, buf, len);
	return buf;
}

void
lease_show(struct lease *l, algo_time now, struct algo_out *o)
{
	if (lease_leading(l, now))
		algo_set_state(&l->a, o, now, ST_NORM, l->a.self, NULL);
	else if (lease_granting(l, now))
		algo_set_state(&l->a, o, now, ST_NORM, l->grantee, NULL);
	else if (l->run.on)
		algo_set_state(&l->a, o, now, ST_ELEC, 0, NULL);
	else
		algo_set_state(&l->a, o, now, ST_WAIT, 0, NULL);
}

void
lease_sample(struct algo_out *o, algo_time now)
{
	char c[32];

	algo_trace(o, "clock c=%s", lease_fmt_time(now, c, sizeof(c)));
}

/*
 * A quorum timestamp's digest: FNV-1a over its pairs as an edict carries
 * them.  It names the timestamp in traces and matches an edict to its
 * deliveries; it guards nothing (datagrams carry a MAC), so a short
 * hash written here serves, and keeps the core free of any library that
 * must be set up first.
 */
uint64_t
lease_qt_digest(const struct qt *qt, size_t n)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	uint8_t b[QT_PAIR];
	size_t i, j;

	for (i = 0; i < n; i++) {
		b[0] = qt[i].id >> 8;
		b[1] = qt[i].id & 0xff;
		algo_put64(b + 2, (uint64_t)qt[i].t);
		for (j = 0; j < QT_PAIR; j++)
			h = (h ^ b[j]) * UINT64_C(0x100000001b3);
	}
	return h;
}

/* A quorum timestamp as traced: "qt=" and its N pairs, or, with none,
 * "qd=" and the digest QD. */
void
lease_qt_key(const struct qt *qt, size_t n, uint64_t qd, char *buf,
    size_t len)
{
	char t[32];
	size_t i, off;
	int w;

	if (n == 0) {
		snprintf(buf, len, "qd=%016llx", (unsigned long long)qd);
		return;
	}
	off = (size_t)snprintf(buf, len, "qt=");
	for (i = 0; i < n && off < len; i++) {
		w = snprintf(buf + off, len - off, "%s%u:%s", i ? "," : "",
		    qt[i].id, lease_fmt_time(qt[i].t, t, sizeof(t)));
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/* ---- inputs ---- */

static int
on_timer(struct lease *l, unsigned id, algo_time now, struct algo_out *o)
{
	switch (id) {
	case T_TRY:
		if (lease_leading(l, now))
			lease_start_run(l, now, o);
		else
			lease_maybe_run(l, now, o);
		break;
	case T_ABORT:
		if (l->run.on && now >= l->run.end)
			lease_fail(l, now, o);
		break;
	case T_LEAD:
		if (l->expire > 0 && now >= l->expire) {
			lease_sample(o, now);	/* the lease ran out: map the end */
			l->tok = l->ptok = 0;
			lease_show(l, now, o);
			lease_maybe_run(l, now, o);
		}
		break;
	case T_GRANT:
		if (now >= l->finish) {
			lease_sample(o, now);
			lease_lapsed(l, now, o);
			lease_show(l, now, o);
			lease_maybe_run(l, now, o);
		}
		break;
	case T_QUIET:
		lease_show(l, now, o);
		lease_maybe_run(l, now, o);
		break;
	}
	return ALGO_OK;
}

static int
on_cmd(struct lease *l, const struct algo_cmd *c, algo_time now,
    struct algo_out *o)
{
	unsigned id;

	switch (c->code) {
	case ALGO_CMD_EDICT:
		return lease_make_edict(l, c, now, o);
	case ALGO_CMD_WEDGE:
	case ALGO_CMD_TERMINATED:
		return lease_epoch_cmd(l, c, now, o);
	case ALGO_CMD_RELEASE:
		if (!lease_leading(l, now) && !l->run.on)
			return ALGO_ENOTLEADER;
		lease_resign(l, L_RESIGN, now, o);
		/* Let the next node take over before we bid again. */
		l->backoff = now + l->a.t.lease;
		algo_timer_set(o, T_TRY, l->backoff);
		lease_show(l, now, o);
		return ALGO_OK;
	case ALGO_CMD_LEAVE:
		lease_resign(l, L_LEAVE, now, o);
		lease_tighten(l, o);	/* after the Releases: off the handover */
		if (l->mon != NONE)
			algo_fd(o, ALGO_FD_STOP, l->a.ids[l->mon]);
		for (id = 0; id < NTIMER; id++)
			algo_timer_cancel(o, id);
		algo_set_state(&l->a, o, now, ST_DOWN, 0, NULL);
		l->a.left = 1;
		return ALGO_OK;
	}
	return ALGO_ENOTSUP;
}

static int
step(struct algo *a, const struct algo_input *in, struct algo_out *o)
{
	struct lease *l = (struct lease *)a;

	/* A lapsed leadership's tokens are never used again (the lead timer
	 * may not have fired yet): forget them, so that a token exists only
	 * while leading. */
	if (!lease_leading(l, in->now))
		l->tok = l->ptok = 0;
	/* A lapse the grant timer has not reported yet (another input came
	 * first): before that input, unless it is the grantee's. */
	if ((in->type != ALGO_IN_RECV || in->msg.peer != l->grantee) &&
	    (in->type != ALGO_IN_TIMER || in->timer != T_GRANT))
		lease_lapsed(l, in->now, o);
	lease_epoch_settle(l, in->now, o);
	switch (in->type) {
	case ALGO_IN_RECV:
		switch (in->msg.type) {
		case M_REQUEST:
			return lease_on_request(l, &in->msg, in->now, o);
		case M_OK:
			return lease_on_ok(l, &in->msg, in->now, o);
		case M_REFUSE:
			return lease_on_refuse(l, &in->msg, in->now, o);
		case M_RELEASE:
			return lease_on_release(l, &in->msg, in->now, o);
		case M_EDICT:
			return lease_on_edict(l, &in->msg, o);
		case M_DEAD:
			return lease_on_dead(l, &in->msg, in->now, o);
		}
		return ALGO_EINVAL;
	case ALGO_IN_DOWN:
		lease_lost(l, in->down, in->now, o);
		lease_show(l, in->now, o);
		return ALGO_OK;
	case ALGO_IN_TIMER:
		return on_timer(l, in->timer, in->now, o);
	case ALGO_IN_CMD:
		return on_cmd(l, &in->cmd, in->now, o);
	}
	return ALGO_EINVAL;
}

static int
boot(struct algo *a, const uint8_t *persist, size_t len, algo_time now,
    struct algo_out *o)
{
	struct lease *l = (struct lease *)a;
	size_t r;

	if (a->n > LEASE_NODES_MAX ||
	    lease_boot_grantor(l, persist, len, now) != ALGO_OK ||
	    lease_epoch_boot(l, persist, len, now) != ALGO_OK)
		return ALGO_EINVAL;
	for (r = 0; r < a->n; r++)
		l->peer[r].up = 1;
	lease_sample(o, now);
	algo_timer_set(o, T_QUIET, l->quiet);
	lease_watch_from(l, a->rank + 1, o);
	lease_show(l, now, o);
	return ALGO_OK;
}

/*
 * The common status: the leadership's deadline and token while leading,
 * the leader named by the last refusal; and in extra, the grant this
 * node holds out (10.4), the leader it verified (10.5) and its quiet
 * period.
 */
static void
query(const struct algo *a, algo_time now, struct algo_status *st)
{
	const struct lease *l = (const struct lease *)a;
	char c1[32], c2[32];
	size_t off = 0;
	int w;

	st->until = 0;
	st->hint = l->hint;
	if (lease_leading(l, now)) {
		st->until = l->expire;
		st->token = l->tok;
	}
	/* A leader is of use (edicts, guarded commands) once its token is. */
	st->leader = st->token != 0;
	if (st->until != 0) {
		if (st->token != 0)
			snprintf(c2, sizeof(c2), "%llu",
			    (unsigned long long)st->token);
		else
			snprintf(c2, sizeof(c2), "-");
		snprintf(st->extra, sizeof(st->extra), "lease_until=%s token=%s",
		    lease_fmt_time(st->until, c1, sizeof(c1)), c2);
		lease_epoch_query(l, st);
		return;
	}
	if (lease_granting(l, now)) {
		w = snprintf(st->extra, sizeof(st->extra),
		    "grants_to=%u grant_until=%s", l->grantee,
		    lease_fmt_time(l->finish, c1, sizeof(c1)));
		off = w > 0 ? (size_t)w : 0;
		if (l->vnode == l->grantee && l->vuntil > now &&
		    off < sizeof(st->extra))
			snprintf(st->extra + off, sizeof(st->extra) - off,
			    " verified_until=%s",
			    lease_fmt_time(l->vuntil, c1, sizeof(c1)));
	} else if (l->hint != 0)
		snprintf(st->extra, sizeof(st->extra), "hint=%u", l->hint);
	if (now < l->quiet) {
		off = strlen(st->extra);
		snprintf(st->extra + off, sizeof(st->extra) - off,
		    "%squiet_until=%s", off ? " " : "",
		    lease_fmt_time(l->quiet, c1, sizeof(c1)));
	}
	lease_epoch_query(l, st);
}

/*
 * The invariants of share/elect/lease.md, at the time of the last input:
 * what the guarantees rest on, checked after every step.
 */
static const char *
check(const struct algo *a)
{
	const struct lease *l = (const struct lease *)a;
	const struct run *u = &l->run;
	algo_time now = a->now;

	if (l->tok != 0 && l->ptok != 0)
		return "lease: one token at a time";
	if ((l->tok != 0 || l->ptok != 0) && !lease_leading(l, now))
		return "lease: a fencing token only while leading";
	if (lease_leading(l, now) &&
	    (l->expire > l->lstart + lease_trusted(l, l->ldelta) ||
	    l->nqt != lease_quorum(l)))
		return "lease: the deadline within the quorum's grants";
	if (lease_leading(l, now) && l->lself &&
	    (l->grantee != a->self || l->finish < l->expire))
		return "lease: the leader's own grant outlasts its leadership";
	if (l->grantee != 0 && now < l->finish && now < l->quiet)
		return "lease: no grant while quiet";
	if (a->t.skew == 0 && l->finish > now + lease_fast(l, l->dmax))
		return "lease: no grant beyond the longest delta persisted";
	if (l->k > l->khi || l->kboot > l->khi)
		return "lease: K within its persisted bound";
	if (u->on && ((u->nok >= lease_quorum(l) && now < u->end) ||
	    u->nok + u->nref > a->n))
		return "lease: a run with a majority in time has completed";
	if (l->mon != NONE && (l->mon <= a->rank || l->mon >= a->n ||
	    !l->peer[l->mon].up))
		return "lease: the watched node is above and correct";
	return lease_epoch_check(l);
}

/* ---- payload fields, for traces and test scripts ---- */

static void
msg_fields(const struct algo_msg *m, char *buf, size_t len)
{
	char c1[32], c2[32], c3[32], c4[32];
	const uint8_t *p = m->payload;
	int w;

	switch (m->type) {
	case M_REQUEST:
		if (m->len != REQ_LEN && m->len != REQ_KLEN)
			return;
		w = snprintf(buf, len, " delta=%s start=%s token=%llu echo=%s "
		    "einc=%llu rem=%s", lease_fmt_time(lease_get_time(p), c1, sizeof(c1)),
		    lease_fmt_time(lease_get_time(p + 8), c2, sizeof(c2)),
		    (unsigned long long)algo_get64(p + 16),
		    lease_fmt_time(lease_get_time(p + 24), c3, sizeof(c3)),
		    (unsigned long long)algo_get64(p + 32),
		    lease_fmt_time(lease_get_time(p + 40), c4, sizeof(c4)));
		if (m->len == REQ_KLEN && w > 0 && (size_t)w < len)
			snprintf(buf + w, len - (size_t)w, " kseen=%llu",
			    (unsigned long long)algo_get64(p + REQ_LEN));
		break;
	case M_OK:
		if (m->len != OK_LEN)
			return;
		snprintf(buf, len, " t=%s inc=%llu k=%llu",
		    lease_fmt_time(lease_get_time(p), c1, sizeof(c1)),
		    (unsigned long long)algo_get64(p + 8),
		    (unsigned long long)algo_get64(p + 16));
		break;
	case M_REFUSE:
		if (m->len != REF_LEN || p[0] == 0 || p[0] >= R_NWHY)
			return;
		snprintf(buf, len, " why=%s ldr=%u left=%s k=%llu",
		    whynames[p[0]], p[1] << 8 | p[2],
		    lease_fmt_time(lease_get_time(p + 3), c1, sizeof(c1)),
		    (unsigned long long)algo_get64(p + 11));
		break;
	case M_RELEASE:
		if (m->len != REL_LEN || p[0] >= L_NWHY)
			return;
		snprintf(buf, len, " why=%s", relnames[p[0]]);
		break;
	case M_EDICT:
		if (m->len < EDICT_HDR)
			return;
		snprintf(buf, len, " token=%llu seq=%llu len=%u",
		    (unsigned long long)algo_get64(p),
		    (unsigned long long)algo_get64(p + 8), m->len);
		break;
	}
}

static int
name_index(const char *const *names, int n, const char *v)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] != NULL && strcmp(names[i], v) == 0)
			return i;
	return -1;
}

/* An edict's "qt=ID:T,..." (before its text=). */
static int
set_qt(struct algo_msg *m, const char *v)
{
	struct trace_qt qt[LEASE_QT_RECV];
	struct trace_str s = { v, strlen(v) };
	int n, i;

	if ((n = trace_parse_qt(s, qt, LEASE_QT_RECV)) <= 0)
		return -1;
	m->payload[16] = (uint8_t)(n >> 8);
	m->payload[17] = (uint8_t)n;
	for (i = 0; i < n; i++) {
		m->payload[EDICT_HDR + i * QT_PAIR] = qt[i].id >> 8;
		m->payload[EDICT_HDR + i * QT_PAIR + 1] = qt[i].id & 0xff;
		algo_put64(m->payload + EDICT_HDR + i * QT_PAIR + 2,
		    (uint64_t)qt[i].t);
	}
	m->len = EDICT_HDR + n * QT_PAIR;
	return 0;
}

/* An edict's "qd=" digest (before its text=): 16 hex digits. */
static int
set_qd(struct algo_msg *m, const char *v)
{
	uint64_t d;

	if (trace_parse_hex64(v, strlen(v), &d) == -1)
		return -1;
	m->payload[16] = 0;
	m->payload[17] = 0;
	algo_put64(m->payload + EDICT_HDR, d);
	m->len = EDICT_HDR + QD_LEN;
	return 0;
}

static int
msg_set_field(struct algo_msg *m, const char *key, const char *value)
{
	static const struct {
		int		 type;
		const char	*key;
		int		 off;	/* of a 64-bit field */
		int		 time;	/* seconds, else a count */
	} f[] = {
		{ M_REQUEST, "delta", 0, 1 }, { M_REQUEST, "start", 8, 1 },
		{ M_REQUEST, "token", 16, 0 }, { M_REQUEST, "echo", 24, 1 },
		{ M_REQUEST, "einc", 32, 0 }, { M_REQUEST, "rem", 40, 1 },
		{ M_REQUEST, "kseen", REQ_LEN, 0 },
		{ M_OK, "t", 0, 1 }, { M_OK, "inc", 8, 0 }, { M_OK, "k", 16, 0 },
		{ M_REFUSE, "left", 3, 1 }, { M_REFUSE, "k", 11, 0 },
		{ M_EDICT, "token", 0, 0 }, { M_EDICT, "seq", 8, 0 },
	};
	static const uint16_t lens[NMSG] = {
		[M_REQUEST] = REQ_LEN, [M_OK] = OK_LEN, [M_REFUSE] = REF_LEN,
		[M_RELEASE] = REL_LEN, [M_EDICT] = EDICT_HDR,
		[M_DEAD] = DEAD_LEN,
	};
	const char *errstr;
	trace_time t;
	uint64_t v;
	size_t i, n;
	int w;

	if (m->type == 0 || m->type >= NMSG)
		return -1;
	if (m->len < lens[m->type])
		m->len = lens[m->type];
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (f[i].type != m->type || strcmp(f[i].key, key) != 0)
			continue;
		if (f[i].time) {
			if (trace_parse_time(value, strlen(value), &t) == -1)
				return -1;
			v = (uint64_t)t;
		} else {
			v = (uint64_t)strtonum(value, 0, LLONG_MAX, &errstr);
			if (errstr != NULL)
				return -1;
		}
		algo_put64(m->payload + f[i].off, v);
		/* The 56-byte Request only when its K seen is given. */
		if (m->len < f[i].off + 8)
			m->len = (uint16_t)(f[i].off + 8);
		return 0;
	}
	if (m->type == M_REFUSE && strcmp(key, "why") == 0) {
		if ((w = name_index(whynames, R_NWHY, value)) == -1)
			return -1;
		m->payload[0] = (uint8_t)w;
		return 0;
	}
	if (m->type == M_REFUSE && strcmp(key, "ldr") == 0) {
		v = (uint64_t)strtonum(value, 0, UINT16_MAX, &errstr);
		if (errstr != NULL)
			return -1;
		m->payload[1] = (uint8_t)(v >> 8);
		m->payload[2] = (uint8_t)v;
		return 0;
	}
	if (m->type == M_RELEASE && strcmp(key, "why") == 0) {
		if ((w = name_index(relnames, L_NWHY, value)) == -1)
			return -1;
		m->payload[0] = (uint8_t)w;
		return 0;
	}
	if (m->type == M_EDICT && strcmp(key, "qt") == 0)
		return set_qt(m, value);
	if (m->type == M_EDICT && strcmp(key, "qd") == 0)
		return set_qd(m, value);
	if (m->type == M_EDICT && strcmp(key, "text") == 0) {
		n = strlen(value);
		if (m->len + n > ALGO_PAYLOAD_MAX)
			return -1;
		memcpy(m->payload + m->len, value, n);
		m->len += n;
		return 0;
	}
	return -1;
}

/* Nerio's delta, i, d and rho (10.1), and the skew of OQwBS (4). */
static const char *const timings[] = {
	"lease", "renew", "rtt", "drift", "skew", NULL
};

const struct algo_ops algo_lease = {
	.name = "lease",
	.timings = timings,
	.flags = ALGO_F_DEADLINE | ALGO_F_EDICTS | ALGO_F_ANYORDER |
	    ALGO_F_EPOCHS,
	.msgnames = msgnames,
	.nmsg = NMSG,
	.dead = M_DEAD,
	.timernames = timernames,
	.ntimer = NTIMER,
	.size = sizeof(struct lease),
	/* One input may start a bid and give it up at once (Request and
	 * Release to every grantor) once for each lease_maybe_run() on its
	 * path: a lapse, a release or a Dead, and the end of the epoch
	 * before; besides a detector start or an edict to each. */
	.acts_node = 8,
	.acts_fixed = 48,
	.boot = boot,
	.step = step,
	.query = query,
	.check = check,
	.msg_fields = msg_fields,
	.msg_set_field = msg_set_field,
};
