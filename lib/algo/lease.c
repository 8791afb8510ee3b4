/*
 * lease: Nerio (van Renesse, Schneider and Gehrke, "Nerio: Leader Election
 * and Edict Ordering"): a node leads while a majority of the cluster
 * grants it a lease, so that at most one node leads at any time, under
 * partitions, pauses and message loss, given a bound on clock drift.
 *
 * Clock.  C is the `now' of the inputs (CLOCK_MONOTONIC in elect-node);
 * every value below is on the local clock, as the paper's C_p.  rho is
 * timing.drift (nanoseconds per second).  Rounding always errs on the safe
 * side: lengths a grantor holds are rounded up, lengths a leader trusts
 * are rounded down.
 *
 * OQwBD (section 3).  The candidate p samples Start := C, picks delta and
 * sends Request<Start, delta> to every node, itself included (its own
 * grantor state answers without a message).  A grantor q with
 * A_q != p and C_q < F_q refuses; otherwise it sets A_q := p and
 * F_q := max(F_q, C_q + (1 + rho) delta) and answers Ok<T_q>.  With Oks
 * from a majority before C_p reaches Start + (1 - rho) delta, p leads
 * until E_p := Start + (1 - rho) delta, which by Lemma 3.1 is before
 * every grant of that majority ends in real time.  Requests are named by
 * an election id (p, incarnation, counter) rather than by Start, so that
 * answers to an aborted run, or to a run of an earlier incarnation, are
 * told apart.  With timing.skew = Delta > 0 the core runs OQwBS (section
 * 4) instead: F_q := max(F_q, Start + delta + Delta), E_p := Start +
 * delta; the clocks of all nodes must then agree within Delta.
 *
 * Refusal and revocation (10.2).  A grantor that will not grant answers
 * Refuse, naming its grantee (a forwarding address: 10.4) and how long its
 * grant still runs; a candidate that can no longer reach a majority gives
 * up at once and comes back when enough of those grants will have ended.
 * A candidate that gives up, and a leader that steps down, sends Release
 * (section 6): q drops its grant to p (F_q := C_q) if it granted one of
 * p's requests up to the released one.  Revocation needs grant and
 * release requests from one source in FIFO order; datagrams are not, so
 * each grantor keeps the newest (incarnation, counter, kind) heard from
 * each node and refuses anything older: late messages count as lost.
 *
 * Timing (10.1).  delta = timing.lease, renewed every timing.renew (i):
 * the leader starts OQwBD again every i, each run aborting the last, so
 * that a lease survives a lost round or two ((lease - rtt) / renew - 1).
 * 10.1 asks that a renewal's delta exceed d + (1 + rho)(E - C), d =
 * timing.rtt, so that it never shortens the lease: with a fixed delta
 * renewed i after the last start, E - C = (1 - rho) delta - i, and the
 * rule holds whenever (1 + rho) i >= d, which the timing checks (algo.c)
 * ensure along with 2 i + d <= delta.  (The run that establishes a new
 * token comes right after the first and only ever extends the lease.)
 * The defaults (80, 20, 5 ms) fail a crashed leader over within about
 * 80 ms, ten times as fast as etcd's shortest lease (t/bench/lease.sh).
 *
 * Drift bound.  rho = 1e-3 by default.  Crystal oscillators drift 1e-7 to
 * 1e-5 (section 5), kernels calibrate them within tens of ppm, and ntpd or
 * systemd-timesyncd slew CLOCK_MONOTONIC by at most 500 ppm; 1e-3 covers
 * all of them at a cost of 0.2% of the lease.  chronyd may slew faster
 * (its maxslewrate defaults to 83333 ppm): cap it, or raise --drift.
 *
 * Weak leader (section 9), mirrored: the paper elects the lowest correct
 * process on a ring; elect's convention is that the higher id wins, so a
 * node watches the closest node above it that it considers correct
 * (failure detector Start; on DownSig, the next one up) and is the weak
 * leader when there is none.  Any message from a node makes it correct
 * again (Stoller, section 2).  Only the weak leader asks for grants, and
 * only while it grants nobody else: a node granting the leader's renewals
 * never competes, and the expiry of its grant is what starts it.  A
 * leader keeps renewing after a higher node comes back: leadership is
 * sticky (Leader Stability), the higher node takes over only when the
 * leader fails or steps down.  A node that leaves or steps down says so
 * in its Release, and the others take it for failed at once, so the next
 * node asks without waiting for the detector: a handover takes a round
 * trip or two.
 *
 * Restarts.  The paper's crashed processes keep A_q and F_q; a restarted
 * node has forgotten them, so after every boot it grants nothing (Refuse,
 * quiet) until any lease it granted before has surely lapsed.  A grant
 * made at real time t_g backs a leadership that ends by t_g + delta
 * (Lemma 3.1: c_p(E_p) <= t_p + delta <= t_q + delta), and t_g comes
 * before the crash, which comes before the boot; so no leadership rests
 * on an old grant once delta real time has passed since the boot, which
 * the new clock measures as (1 + rho) delta at most (OQwBS: the grant
 * ran to at most C_q + delta + 2 Delta, and a synchronised clock does not
 * go back, so delta + 2 Delta).  delta is the largest the node ever
 * granted (persisted, a duration, before the first Ok that exceeds it) or
 * its own lease, whichever is larger.  The wait is measured from the
 * boot, never from a persisted clock value, because CLOCK_MONOTONIC
 * starts again when the host does.  The assumption: the node's clock
 * runs, within rho, from the instant it boots, and the process is not
 * running before boot (a crashed node is down, not slow).  A leader that
 * restarts has lost its leadership (E is volatile); its guarded command
 * keeps its own deadline (elect-node --run-if-leader).
 *
 * Fencing token.  Each grantor keeps K_q, the highest token it has seen
 * (before any Ok that raises K_q above the persisted bound, a new bound
 * K_q + TOKEN_STRIDE is persisted, and after a restart K_q is at least
 * that bound: never below what was acknowledged), answers every Ok with
 * K_q, and refuses (stale) a request whose token is below the highest it
 * has seen in this life (exactly known, unlike the bound).  A node that
 * becomes leader (not leading when the run that made it leader was
 * started, or its lease lapsed in between) proposes t := 1 + the largest
 * K in the Oks of that run (and its own K) and renews at once carrying t;
 * t is established, and handed out, when a majority has answered a run
 * carrying t while the node led without a gap.  Proof that tokens grow
 * with real time: let X be a leadership with established token t and X'
 * a later leadership of any node, whose first run was answered by the
 * majority Q2 at times T2_q, and let Q1 be the majority that answered the
 * run establishing t, at T1_q, after which X still led (it completed).
 * Take q in Q1 and Q2.  If T1_q < T2_q, q had K_q >= t (monotone,
 * persisted) when it answered X', so t' >= t + 1.  Otherwise T2_q < T1_q:
 * q granted X''s owner at T2_q, and that owner led at the completion c' of
 * its first run, after the end of X, after T1_q; by Lemma 3.1 q's grant
 * lasted from T2_q to beyond c', so q could not grant X's owner at T1_q
 * (nor after a restart in between: its quiet wait outlasts every
 * leadership resting on its earlier grants).  Contradiction.  So tokens
 * strictly increase from one leadership to the next, across nodes and
 * restarts, as long as state directories survive.
 *
 * Edicts (section 7).  The leader stamps each edict with the quorum
 * timestamp of its last completed run, (q, T_q) for the majority that
 * answered, its fencing token and its edict counter (seq, counted since
 * boot), and sends it to every node, delivering it itself.  Receivers
 * deliver in the order (token, seq) and refuse, report and trace as a
 * `drop' any edict not above the last they delivered.  The paper orders
 * by quorum timestamp, then counter; the quorum timestamp is carried and
 * traced, but the token order is the one compared, because it is
 * consistent with real time by the proof above (edicts are made only with
 * an established token) and, unlike grantors' clock readings, it survives
 * a host's reboot.  Within one incarnation of every grantor the two
 * orders agree (Lemma 7.1).
 *
 * Leader verification (10.5), without extra messages: every Ok carries
 * the grantor's sample T_q (and incarnation), and the leader's next
 * Request to q echoes it with its remaining leadership (E - C)/(1 + rho)
 * at sending; q then knows the leader leads until its clock reads
 * T_q + (1 - rho) remainder.
 *
 * State lines: Norm with ldr = self while leading, ldr = A while granting
 * another node, Elec while asking, Wait otherwise; grp is "-".  The
 * status says leader once the leadership's token is established, a round
 * trip after the `lead' line that starts it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/lease.h"

enum {
	M_REQUEST = 1, M_OK, M_REFUSE, M_RELEASE, M_EDICT, NMSG
};

static const char *const msgnames[NMSG] = {
	[M_REQUEST] = "Request",
	[M_OK] = "Ok",
	[M_REFUSE] = "Refuse",
	[M_RELEASE] = "Release",
	[M_EDICT] = "Edict",
};

enum { T_TRY, T_ABORT, T_LEAD, T_GRANT, T_QUIET, NTIMER };

static const char *const timernames[NTIMER] = {
	[T_TRY] = "try",
	[T_ABORT] = "abort",
	[T_LEAD] = "lead",
	[T_GRANT] = "grant",
	[T_QUIET] = "quiet",
};

/* Why a grantor refuses. */
enum { R_BUSY = 1, R_QUIET, R_STALE, R_LATE, R_NWHY };

static const char *const whynames[R_NWHY] = {
	[R_BUSY] = "busy", [R_QUIET] = "quiet", [R_STALE] = "stale",
	[R_LATE] = "late",
};

/* What a Release says of its sender. */
enum { L_ABORT, L_RESIGN, L_LEAVE, L_NWHY };

static const char *const relnames[L_NWHY] = {
	[L_ABORT] = "abort", [L_RESIGN] = "resign", [L_LEAVE] = "leave",
};

/*
 * Payloads, big-endian:
 *	Request	delta 8, start 8, token 8, echo 8, echo inc 8, remainder 8
 *	Ok	T_q 8, incarnation 8, K_q 8
 *	Refuse	why 1, grantee 2, left 8, K_q 8
 *	Release	why 1
 *	Edict	token 8, seq 8, pairs 2, (id 2, T 8) * pairs, text
 */
#define REQ_LEN		48
#define OK_LEN		24
#define REF_LEN		19
#define REL_LEN		1
#define EDICT_HDR	18
#define QT_PAIR		10

#define NS		INT64_C(1000000000)
#define DELTA_MAX	(INT64_C(3600) * NS)	/* longest grant asked */
#define NEVER		INT64_MAX
#define NONE		SIZE_MAX

/* Stable storage: version 1, a bound on K (8), the longest delta granted
 * (8).  K is persisted in strides, so that a new token costs a write to
 * disk once in TOKEN_STRIDE leaderships, not on every handover. */
#define PERSIST_V1	1
#define PERSIST_LEN	17
#define TOKEN_STRIDE	1024

struct qt {
	uint16_t	 id;
	algo_time	 t;
};

struct peer {
	struct algo_elid last;		/* FIFO: newest request or release */
	int		 lastrel;	/* ... and it was a release */
	int		 up;		/* considered correct (section 9) */
	int		 gone;		/* left or stepped down: releases */
	algo_time	 echo;		/* its T_q in its last Ok to us */
	uint64_t	 echoinc;
};

/* One run of OQwBD (OQwBS). */
struct run {
	int		 on;
	struct algo_elid elid;
	algo_time	 start, delta;
	algo_time	 end;		/* completes only before this */
	uint64_t	 tok;		/* token carried: 0 when acquiring */
	int		 stale;		/* a grantor has a newer token */
	struct algo_set	 ok, ref;
	size_t		 nok, nref;
	uint64_t	 maxk;
	algo_time	 t[LEASE_NODES_MAX];	/* Ok: T_q, by rank */
	algo_time	 free[LEASE_NODES_MAX];	/* Refuse: free from */
};

struct lease {
	struct algo	 a;
	/* Grantor: A_q, F_q, and the request granted. */
	uint16_t	 grantee;
	algo_time	 finish;
	struct algo_elid granted;
	uint64_t	 k;		/* highest token seen in this life */
	uint64_t	 kboot;		/* persisted bound of earlier lives */
	uint64_t	 khi;		/* persisted bound: k <= khi */
	algo_time	 dmax;		/* longest delta granted, persisted */
	algo_time	 quiet;		/* no grant before */
	/* Leader. */
	algo_time	 expire;	/* E_p */
	uint64_t	 tok;		/* established token, or 0 */
	uint64_t	 ptok;		/* proposed token, or 0 */
	struct qt	 qt[LEASE_QT_MAX];
	size_t		 nqt;
	uint64_t	 ec;		/* edict counter */
	struct run	 run;
	uint32_t	 ctr;
	algo_time	 backoff;	/* stepped down: no run before */
	/* Weak leader: the rank watched, NONE when we are it. */
	size_t		 mon;
	/* Verification and finding the leader. */
	uint16_t	 vnode;
	algo_time	 vuntil;
	uint16_t	 hint;
	/* Edicts received: the last delivered, and the log. */
	uint64_t	 dtok, dseq;
	uint64_t	 nlog;
	struct lease_edict log[LEASE_LOG];
	struct peer	 peer[LEASE_NODES_MAX];
};

static void	start_run(struct lease *, algo_time, struct algo_out *);
static void	complete(struct lease *, algo_time, struct algo_out *);
static void	fail(struct lease *, algo_time, struct algo_out *);

/* ---- arithmetic on the clock ---- */

/* X (1 + rho), rounded up: what a grantor holds for X of real time. */
static algo_time
fast(const struct lease *l, algo_time x)
{
	return x + (algo_time)(((__int128)x * l->a.t.drift + NS - 1) / NS);
}

/* X (1 - rho), rounded down: what a leader trusts of X. */
static algo_time
slow(const struct lease *l, algo_time x)
{
	return x - (algo_time)(((__int128)x * l->a.t.drift + NS - 1) / NS);
}

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

static algo_time
get_time(const uint8_t *p)
{
	uint64_t v = algo_get64(p);

	return v > INT64_MAX ? -1 : (algo_time)v;
}

static const char *
fmt_time(algo_time t, char *buf, size_t len)
{
	trace_format_time(t, buf, len);
	return buf;
}

/* ---- who is what ---- */

static int
leading(const struct lease *l, algo_time now)
{
	return now < l->expire;
}

/* Granting a node other than ourselves. */
static int
granting(const struct lease *l, algo_time now)
{
	return l->grantee != 0 && l->grantee != l->a.self && now < l->finish;
}

/* K_q as reported in Oks: at least every token this node ever took. */
static uint64_t
kq(const struct lease *l)
{
	return l->k > l->kboot ? l->k : l->kboot;
}

static size_t
quorum(const struct lease *l)
{
	return l->a.n / 2 + 1;
}

static size_t
rank_of(const struct lease *l, uint16_t id)
{
	return (size_t)algo_rank(&l->a, id);
}

static void
show(struct lease *l, algo_time now, struct algo_out *o)
{
	if (leading(l, now))
		algo_set_state(&l->a, o, now, ST_NORM, l->a.self, NULL);
	else if (granting(l, now))
		algo_set_state(&l->a, o, now, ST_NORM, l->grantee, NULL);
	else if (l->run.on)
		algo_set_state(&l->a, o, now, ST_ELEC, 0, NULL);
	else
		algo_set_state(&l->a, o, now, ST_WAIT, 0, NULL);
}

static void
sample(struct algo_out *o, algo_time now)
{
	char c[32];

	algo_trace(o, "clock c=%s", fmt_time(now, c, sizeof(c)));
}

static void
qt_fmt(const struct qt *qt, size_t n, char *buf, size_t len)
{
	char t[32];
	size_t i, off = 0;
	int w;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		w = snprintf(buf + off, len - off, "%s%u:%s", i ? "," : "",
		    qt[i].id, fmt_time(qt[i].t, t, sizeof(t)));
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

static void
save(const struct lease *l, struct algo_out *o)
{
	uint8_t b[PERSIST_LEN];

	b[0] = PERSIST_V1;
	algo_put64(b + 1, l->khi);
	algo_put64(b + 9, (uint64_t)l->dmax);
	algo_persist(o, b, sizeof(b));
}

/* ---- the weak leader (section 9, mirrored) ---- */

/* Watch the closest correct node above us from rank R up, or be weak
 * leader. */
static void
watch_from(struct lease *l, size_t r, struct algo_out *o)
{
	for (; r < l->a.n; r++)
		if (l->peer[r].up)
			break;
	l->mon = r < l->a.n ? r : NONE;
	if (l->mon != NONE)
		algo_fd(o, ALGO_FD_START, l->a.ids[r]);
}

/* A message from ID: it is correct, and perhaps the one to watch. */
static void
heard(struct lease *l, uint16_t id, struct algo_out *o)
{
	size_t r = rank_of(l, id);

	l->peer[r].gone = 0;
	if (l->peer[r].up)
		return;
	l->peer[r].up = 1;
	if (r > l->a.rank && (l->mon == NONE || r < l->mon)) {
		if (l->mon != NONE)
			algo_fd(o, ALGO_FD_STOP, l->a.ids[l->mon]);
		l->mon = r;
		algo_fd(o, ALGO_FD_START, id);
	}
}

static void	maybe_run(struct lease *, algo_time, struct algo_out *);
static size_t	hopes(const struct lease *);

/* ID failed (DownSig) or went away on purpose. */
static void
lost(struct lease *l, uint16_t id, algo_time now, struct algo_out *o)
{
	size_t r = rank_of(l, id);

	l->peer[r].up = 0;
	if (l->run.on && hopes(l) < quorum(l))
		fail(l, now, o);
	if (r != l->mon)
		return;
	algo_fd(o, ALGO_FD_STOP, id);
	watch_from(l, r + 1, o);
	maybe_run(l, now, o);
}

/* ---- the grantor: steps 4 to 6 ---- */

/* Grant P's request, or say why not (and *LEFT, how long the obstacle
 * lasts).  K and the longest delta are persisted before the Ok. */
static int
grant(struct lease *l, uint16_t p, const struct algo_elid *elid,
    algo_time delta, algo_time start, uint64_t tok, algo_time now,
    struct algo_out *o, algo_time *left)
{
	char c1[32], c2[32];
	algo_time f;
	int dirty = 0;

	*left = 0;
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
		f = now + fast(l, delta);
	if (tok > l->k)
		l->k = tok;
	if (l->k > l->khi) {
		l->khi = l->k > UINT64_MAX - TOKEN_STRIDE ? UINT64_MAX :
		    l->k + TOKEN_STRIDE;
		dirty = 1;
	}
	if (delta > l->dmax) {
		l->dmax = delta;
		dirty = 1;
	}
	if (dirty)
		save(l, o);
	/* A new grantee's predecessor has lapsed: F <= now < f. */
	if (f > l->finish)
		l->finish = f;
	l->grantee = p;
	l->granted = *elid;
	algo_trace(o, "lease op=grant to=%u until=%s clock=%s", p,
	    fmt_time(l->finish, c1, sizeof(c1)), fmt_time(now, c2, sizeof(c2)));
	algo_timer_set(o, T_GRANT, l->finish);
	return 0;
}

/* Our grant to P ends now (release, section 6). */
static void
ungrant(struct lease *l, uint16_t p, algo_time now, struct algo_out *o)
{
	char c[32];

	if (l->grantee != p || now >= l->finish)
		return;
	l->finish = now;
	algo_trace(o, "lease op=release to=%u clock=%s", p,
	    fmt_time(now, c, sizeof(c)));
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
 * from P is refused. */
static int
in_order(struct lease *l, uint16_t p, const struct algo_elid *e, int rel)
{
	struct peer *pr = &l->peer[rank_of(l, p)];
	int c = elid_cmp(e, &pr->last);

	if (c < 0 || (c == 0 && (pr->lastrel || !rel)))
		return 0;
	pr->last = *e;
	pr->lastrel = rel;
	return 1;
}

static int
on_request(struct lease *l, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	uint8_t b[REF_LEN];
	algo_time delta, start, echo, rem, left, v;
	uint64_t tok, echoinc;
	uint16_t p = m->peer;
	int why;

	if (m->len != REQ_LEN || m->elid.node != p)
		return ALGO_EINVAL;
	delta = get_time(m->payload);
	start = get_time(m->payload + 8);
	tok = algo_get64(m->payload + 16);
	echo = get_time(m->payload + 24);
	echoinc = algo_get64(m->payload + 32);
	rem = get_time(m->payload + 40);
	if (delta <= 0 || delta > DELTA_MAX || start < 0 || echo < 0 ||
	    rem < 0)
		return ALGO_EINVAL;
	if (!in_order(l, p, &m->elid, 0))
		return ALGO_EINVAL;
	heard(l, p, o);
	/* 10.5: P led at least REM real time after we sampled ECHO. */
	if (rem > 0 && echoinc == l->a.inc && echo <= now) {
		v = echo + slow(l, rem);
		if (v > now && (l->vnode != p || v > l->vuntil)) {
			l->vnode = p;
			l->vuntil = v;
		}
	}
	why = grant(l, p, &m->elid, delta, start, tok, now, o, &left);
	if (why == 0) {
		uint8_t ok[OK_LEN];

		algo_put64(ok, (uint64_t)now);
		algo_put64(ok + 8, l->a.inc);
		algo_put64(ok + 16, kq(l));
		algo_send(o, p, M_OK, &m->elid, ok, sizeof(ok));
	} else {
		b[0] = why;
		b[1] = (why == R_BUSY ? l->grantee : 0) >> 8;
		b[2] = (why == R_BUSY ? l->grantee : 0) & 0xff;
		algo_put64(b + 3, (uint64_t)left);
		algo_put64(b + 11, kq(l));
		algo_send(o, p, M_REFUSE, &m->elid, b, sizeof(b));
	}
	show(l, now, o);
	return ALGO_OK;
}

static int
on_release(struct lease *l, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	uint16_t p = m->peer;

	if (m->len != REL_LEN || m->elid.node != p || m->payload[0] >= L_NWHY)
		return ALGO_EINVAL;
	if (!in_order(l, p, &m->elid, 1))
		return ALGO_EINVAL;
	if (l->grantee == p && elid_cmp(&l->granted, &m->elid) <= 0)
		ungrant(l, p, now, o);
	if (m->payload[0] == L_ABORT)
		heard(l, p, o);
	else {
		lost(l, p, now, o);
		l->peer[rank_of(l, p)].gone = 1;
	}
	show(l, now, o);
	maybe_run(l, now, o);
	return ALGO_OK;
}

/* ---- the candidate and leader: steps 1 to 3 and 7 to 9 ---- */

/* Release every grant of ours (section 6), but not at the nodes in SKIP. */
static void
release_all(struct lease *l, int why, const struct algo_set *skip,
    algo_time now, struct algo_out *o)
{
	struct algo_elid e = { l->a.self, l->ctr, l->a.inc };
	uint8_t b[REL_LEN] = { (uint8_t)why };
	size_t r;

	ungrant(l, l->a.self, now, o);
	for (r = 0; r < l->a.n; r++)
		if (r != l->a.rank && (skip == NULL || !algo_set_has(skip, r)))
			algo_send(o, l->a.ids[r], M_RELEASE, &e, b, sizeof(b));
}

/* Start a run: a renewal while we lead, else a bid (section 9). */
static void
start_run(struct lease *l, algo_time now, struct algo_out *o)
{
	struct run *u = &l->run;
	uint8_t b[REQ_LEN];
	algo_time delta = l->a.t.lease, rest = 0, left;
	size_t r;
	int lead = leading(l, now);

	if (lead)
		rest = real_left(l, l->expire - now);
	u->on = 1;
	u->elid.node = l->a.self;
	u->elid.inc = l->a.inc;
	u->elid.ctr = ++l->ctr;
	u->start = now;
	u->delta = delta;
	u->end = now + (l->a.t.skew > 0 ? delta : slow(l, delta));
	u->tok = lead ? (l->tok != 0 ? l->tok : l->ptok) : 0;
	u->stale = 0;
	algo_set_clear(&u->ok);
	algo_set_clear(&u->ref);
	u->nok = u->nref = 0;
	u->maxk = kq(l);
	sample(o, now);
	/* The requests first: our own grant may persist K (a disk flush),
	 * which the requests need not wait for.  It is still written before
	 * any answer is counted, as the edge carries out a step's actions
	 * before it takes the next input. */
	algo_put64(b, (uint64_t)delta);
	algo_put64(b + 8, (uint64_t)now);
	algo_put64(b + 16, u->tok);
	algo_put64(b + 40, (uint64_t)rest);
	for (r = 0; r < l->a.n; r++) {
		if (r == l->a.rank)
			continue;
		algo_put64(b + 24, (uint64_t)l->peer[r].echo);
		algo_put64(b + 32, l->peer[r].echoinc);
		algo_send(o, l->a.ids[r], M_REQUEST, &u->elid, b, sizeof(b));
	}
	if (grant(l, l->a.self, &u->elid, delta, now, u->tok, now, o,
	    &left) == 0) {
		algo_set_add(&u->ok, l->a.rank);
		u->nok++;
		u->t[l->a.rank] = now;
		if (kq(l) > u->maxk)
			u->maxk = kq(l);
	} else {
		algo_set_add(&u->ref, l->a.rank);
		u->nref++;
		u->free[l->a.rank] = now + left;
	}
	algo_timer_set(o, T_ABORT, u->end);
	if (lead)
		algo_timer_set(o, T_TRY, now + l->a.t.renew);
	show(l, now, o);
	if (u->nok >= quorum(l))
		complete(l, now, o);
	else if (hopes(l) < quorum(l))
		fail(l, now, o);
}

/* Step 8: a majority granted in time. */
static void
complete(struct lease *l, algo_time now, struct algo_out *o)
{
	struct run *u = &l->run;
	char c1[32], c2[32], tk[32], qs[LEASE_QT_STRLEN];
	int cont = leading(l, now);
	size_t r;

	u->on = 0;
	algo_timer_cancel(o, T_ABORT);
	l->expire = u->end;
	l->nqt = 0;
	for (r = 0; r < l->a.n && l->nqt < quorum(l); r++)
		if (algo_set_has(&u->ok, r)) {
			l->qt[l->nqt].id = l->a.ids[r];
			l->qt[l->nqt++].t = u->t[r];
		}
	/* The fencing token: see the proof above. */
	if (cont && l->tok != 0 && u->tok == l->tok)
		;
	else if (cont && l->ptok != 0 && u->tok == l->ptok) {
		l->tok = l->ptok;
		l->ptok = 0;
	} else {
		l->tok = 0;
		l->ptok = (u->maxk > kq(l) ? u->maxk : kq(l)) + 1;
	}
	qt_fmt(l->qt, l->nqt, qs, sizeof(qs));
	tk[0] = '\0';
	if (l->tok != 0)
		snprintf(tk, sizeof(tk), " token=%llu",
		    (unsigned long long)l->tok);
	algo_trace(o, "lead until=%s clock=%s qt=%s%s",
	    fmt_time(l->expire, c1, sizeof(c1)), fmt_time(now, c2, sizeof(c2)),
	    qs, tk);
	algo_timer_set(o, T_LEAD, l->expire);
	show(l, now, o);
	if (l->ptok != 0)
		start_run(l, now, o);	/* establish the token */
}

/* Nodes that may still grant this run: Oks, and the unanswered that we
 * consider correct. */
static size_t
hopes(const struct lease *l)
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
static void
fail(struct lease *l, algo_time now, struct algo_out *o)
{
	struct run *u = &l->run;
	algo_time when[LEASE_NODES_MAX], t, retry;
	size_t r, k = 0, need, i, j, avail;

	u->on = 0;
	algo_timer_cancel(o, T_ABORT);
	if (leading(l, now)) {
		/* A renewal: the next one comes at T_TRY. */
		if (u->stale)
			l->tok = l->ptok = 0;
		show(l, now, o);
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
	need = quorum(l) > avail ? quorum(l) - avail : 0;
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
	show(l, now, o);
}

static void
maybe_run(struct lease *l, algo_time now, struct algo_out *o)
{
	if (l->a.left || l->run.on || leading(l, now) || now < l->quiet ||
	    now < l->backoff || l->mon != NONE || granting(l, now))
		return;
	start_run(l, now, o);
}

static int
on_ok(struct lease *l, const struct algo_msg *m, algo_time now,
    struct algo_out *o)
{
	struct run *u = &l->run;
	struct peer *pr;
	algo_time t;
	uint64_t k;
	size_t r;

	if (m->len != OK_LEN || m->elid.node != l->a.self ||
	    (t = get_time(m->payload)) < 0)
		return ALGO_EINVAL;
	k = algo_get64(m->payload + 16);
	heard(l, m->peer, o);
	r = rank_of(l, m->peer);
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
	if (u->nok >= quorum(l) && now < u->end)
		complete(l, now, o);
	return ALGO_OK;
}

static int
on_refuse(struct lease *l, const struct algo_msg *m, algo_time now,
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
	left = get_time(m->payload + 3);
	k = algo_get64(m->payload + 11);
	if (why < R_BUSY || why >= R_NWHY || left < 0 || left > DELTA_MAX ||
	    (g != 0 && algo_rank(&l->a, g) == -1) || (why == R_BUSY) != (g != 0))
		return ALGO_EINVAL;
	heard(l, m->peer, o);
	if (g != 0 && g != l->a.self)
		l->hint = g;		/* 10.4: where the leader is */
	r = rank_of(l, m->peer);
	if (!u->on || !algo_elid_eq(&m->elid, &u->elid) ||
	    algo_set_has(&u->ok, r) || algo_set_has(&u->ref, r))
		return ALGO_OK;
	algo_set_add(&u->ref, r);
	u->nref++;
	if (k > u->maxk)
		u->maxk = k;
	if (why == R_STALE || why == R_LATE) {
		u->stale |= why == R_STALE;
		f = NEVER;
	} else
		f = now + other_clock(l, left);
	/* A grantee that left has its Release on the way: ask again soon,
	 * once. */
	if (why == R_BUSY && l->peer[rank_of(l, g)].gone &&
	    f > now + l->a.t.rtt / 2) {
		f = now + l->a.t.rtt / 2;
		l->peer[rank_of(l, g)].gone = 0;
	}
	u->free[r] = f;
	if (hopes(l) < quorum(l))
		fail(l, now, o);
	return ALGO_OK;
}

/* Give leadership up and withdraw (RELEASE, LEAVE): section 6. */
static void
resign(struct lease *l, int why, algo_time now, struct algo_out *o)
{
	char c[32];

	if (l->run.on) {
		l->run.on = 0;
		algo_timer_cancel(o, T_ABORT);
	}
	if (leading(l, now)) {
		l->expire = now;
		fmt_time(now, c, sizeof(c));
		algo_trace(o, "lead until=%s clock=%s", c, c);
		algo_timer_cancel(o, T_LEAD);
	}
	l->tok = l->ptok = 0;
	release_all(l, why, NULL, now, o);
}

/* ---- edicts (section 7) ---- */

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

static void
log_edict(struct lease *l, uint16_t from, uint64_t tok, uint64_t seq,
    int delivered, const uint8_t *text, size_t len)
{
	struct lease_edict *e = &l->log[l->nlog++ % LEASE_LOG];

	e->from = from;
	e->token = tok;
	e->seq = seq;
	e->delivered = delivered;
	e->len = len;
	memcpy(e->text, text, len);
	e->text[len] = '\0';
}

/* Deliver an edict in (token, seq) order, or refuse it. */
static void
deliver(struct lease *l, uint16_t from, uint64_t tok, uint64_t seq,
    const char *qs, const uint8_t *text, size_t len, struct algo_out *o)
{
	int in = tok > l->dtok || (tok == l->dtok && seq > l->dseq);

	log_edict(l, from, tok, seq, in, text, len);
	if (!in) {
		algo_trace(o, "drop from=%u why=edict-order", from);
		return;
	}
	l->dtok = tok;
	l->dseq = seq;
	algo_trace(o, "deliver from=%u seq=%llu qt=%s", from,
	    (unsigned long long)seq, qs);
}

static int
make_edict(struct lease *l, const struct algo_cmd *c, algo_time now,
    struct algo_out *o)
{
	uint8_t b[ALGO_PAYLOAD_MAX];
	char t[32], qs[LEASE_QT_STRLEN];
	size_t len, i;

	if (!leading(l, now) || l->tok == 0)
		return ALGO_ENOTLEADER;
	len = EDICT_HDR + l->nqt * QT_PAIR + c->len;
	if (!text_ok(c->data, c->len) || len > ALGO_PAYLOAD_MAX)
		return ALGO_EINVAL;
	l->ec++;
	algo_put64(b, l->tok);
	algo_put64(b + 8, l->ec);
	b[16] = l->nqt >> 8;
	b[17] = l->nqt & 0xff;
	for (i = 0; i < l->nqt; i++) {
		b[EDICT_HDR + i * QT_PAIR] = l->qt[i].id >> 8;
		b[EDICT_HDR + i * QT_PAIR + 1] = l->qt[i].id & 0xff;
		algo_put64(b + EDICT_HDR + i * QT_PAIR + 2,
		    (uint64_t)l->qt[i].t);
	}
	memcpy(b + EDICT_HDR + l->nqt * QT_PAIR, c->data, c->len);
	qt_fmt(l->qt, l->nqt, qs, sizeof(qs));
	algo_trace(o, "edict seq=%llu qt=%s clock=%s",
	    (unsigned long long)l->ec, qs, fmt_time(now, t, sizeof(t)));
	deliver(l, l->a.self, l->tok, l->ec, qs, c->data, c->len, o);
	for (i = 0; i < l->a.n; i++)
		if (i != l->a.rank)
			algo_send(o, l->a.ids[i], M_EDICT, NULL, b, len);
	return ALGO_OK;
}

/* An edict's quorum timestamp into QT: its pairs, or 0 if malformed. */
static size_t
edict_qt(const struct lease *l, const struct algo_msg *m, struct qt *qt)
{
	const uint8_t *p;
	size_t n, i;

	if (m->len < EDICT_HDR)
		return 0;
	n = (size_t)m->payload[16] << 8 | m->payload[17];
	if (n == 0 || n > LEASE_QT_MAX || n > l->a.n ||
	    EDICT_HDR + n * QT_PAIR >= m->len)
		return 0;
	for (i = 0; i < n; i++) {
		p = m->payload + EDICT_HDR + i * QT_PAIR;
		qt[i].id = (uint16_t)(p[0] << 8 | p[1]);
		qt[i].t = get_time(p + 2);
		if (algo_rank(&l->a, qt[i].id) == -1 || qt[i].t < 0)
			return 0;
	}
	return n;
}

static int
on_edict(struct lease *l, const struct algo_msg *m, struct algo_out *o)
{
	struct qt qt[LEASE_QT_MAX];
	char qs[LEASE_QT_STRLEN];
	const uint8_t *text;
	uint64_t tok, seq;
	size_t nqt, off, len;

	if ((nqt = edict_qt(l, m, qt)) == 0)
		return ALGO_EINVAL;
	tok = algo_get64(m->payload);
	seq = algo_get64(m->payload + 8);
	off = EDICT_HDR + nqt * QT_PAIR;
	text = m->payload + off;
	len = m->len - off;
	if (tok == 0 || seq == 0 || !text_ok(text, len))
		return ALGO_EINVAL;
	heard(l, m->peer, o);
	qt_fmt(qt, nqt, qs, sizeof(qs));
	deliver(l, m->peer, tok, seq, qs, text, len, o);
	return ALGO_OK;
}

/* ---- inputs ---- */

static int
on_timer(struct lease *l, unsigned id, algo_time now, struct algo_out *o)
{
	switch (id) {
	case T_TRY:
		if (leading(l, now))
			start_run(l, now, o);
		else
			maybe_run(l, now, o);
		break;
	case T_ABORT:
		if (l->run.on && now >= l->run.end)
			fail(l, now, o);
		break;
	case T_LEAD:
		if (l->expire > 0 && now >= l->expire) {
			sample(o, now);	/* the lease ran out: map the end */
			l->tok = l->ptok = 0;
			show(l, now, o);
			maybe_run(l, now, o);
		}
		break;
	case T_GRANT:
		if (now >= l->finish) {
			sample(o, now);
			show(l, now, o);
			maybe_run(l, now, o);
		}
		break;
	case T_QUIET:
		show(l, now, o);
		maybe_run(l, now, o);
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
		return make_edict(l, c, now, o);
	case ALGO_CMD_RELEASE:
		if (!leading(l, now) && !l->run.on)
			return ALGO_ENOTLEADER;
		resign(l, L_RESIGN, now, o);
		/* Let the next node take over before we bid again. */
		l->backoff = now + l->a.t.lease;
		algo_timer_set(o, T_TRY, l->backoff);
		show(l, now, o);
		return ALGO_OK;
	case ALGO_CMD_LEAVE:
		resign(l, L_LEAVE, now, o);
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

	switch (in->type) {
	case ALGO_IN_RECV:
		switch (in->msg.type) {
		case M_REQUEST:
			return on_request(l, &in->msg, in->now, o);
		case M_OK:
			return on_ok(l, &in->msg, in->now, o);
		case M_REFUSE:
			return on_refuse(l, &in->msg, in->now, o);
		case M_RELEASE:
			return on_release(l, &in->msg, in->now, o);
		case M_EDICT:
			return on_edict(l, &in->msg, o);
		}
		return ALGO_EINVAL;
	case ALGO_IN_DOWN:
		lost(l, in->down, in->now, o);
		show(l, in->now, o);
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
	algo_time base;
	size_t r;

	if (a->n > LEASE_NODES_MAX)
		return ALGO_EINVAL;
	if (len != 0) {
		if (len != PERSIST_LEN || persist[0] != PERSIST_V1 ||
		    algo_get64(persist + 9) > (uint64_t)DELTA_MAX)
			return ALGO_EINVAL;
		/* Every token acknowledged before is at most the bound;
		 * the stale check starts afresh (tokens still in use may be
		 * below it). */
		l->kboot = l->khi = algo_get64(persist + 1);
		l->dmax = (algo_time)algo_get64(persist + 9);
	}
	/* Grant nothing until every grant of an earlier life has lapsed:
	 * see "Restarts" above. */
	base = l->dmax > a->t.lease ? l->dmax : a->t.lease;
	l->quiet = now + (a->t.skew > 0 ? base + 2 * a->t.skew :
	    fast(l, base));
	for (r = 0; r < a->n; r++)
		l->peer[r].up = 1;
	sample(o, now);
	algo_timer_set(o, T_QUIET, l->quiet);
	watch_from(l, a->rank + 1, o);
	show(l, now, o);
	return ALGO_OK;
}

static void
query(const struct algo *a, algo_time now, struct algo_status *st)
{
	struct lease_info li;
	char c1[32], c2[32];
	size_t off = 0;
	int w;

	lease_info(a, now, &li);
	/* A leader is of use (edicts, guarded commands) once its token is. */
	st->leader = li.leading && li.token != 0;
	if (li.leading) {
		if (li.token != 0)
			snprintf(c2, sizeof(c2), "%llu",
			    (unsigned long long)li.token);
		else
			snprintf(c2, sizeof(c2), "-");
		snprintf(st->extra, sizeof(st->extra), "lease_until=%s token=%s",
		    fmt_time(li.until, c1, sizeof(c1)), c2);
		return;
	}
	if (li.grantee != 0) {
		w = snprintf(st->extra, sizeof(st->extra),
		    "grants_to=%u grant_until=%s", li.grantee,
		    fmt_time(li.grant_until, c1, sizeof(c1)));
		off = w > 0 ? (size_t)w : 0;
		if (li.verified_until > now && off < sizeof(st->extra))
			snprintf(st->extra + off, sizeof(st->extra) - off,
			    " verified_until=%s",
			    fmt_time(li.verified_until, c1, sizeof(c1)));
	} else if (li.hint != 0)
		snprintf(st->extra, sizeof(st->extra), "hint=%u", li.hint);
	if (li.quiet_until > now) {
		off = strlen(st->extra);
		snprintf(st->extra + off, sizeof(st->extra) - off,
		    "%squiet_until=%s", off ? " " : "",
		    fmt_time(li.quiet_until, c1, sizeof(c1)));
	}
}

int
lease_info(const struct algo *a, algo_time now, struct lease_info *li)
{
	const struct lease *l = (const struct lease *)a;

	memset(li, 0, sizeof(*li));
	if (a->ops != &algo_lease)
		return -1;
	li->leading = leading(l, now);
	if (li->leading) {
		li->until = l->expire;
		li->token = l->tok;
	}
	if (granting(l, now)) {
		li->grantee = l->grantee;
		li->grant_until = l->finish;
		if (l->vnode == l->grantee && l->vuntil > now)
			li->verified_until = l->vuntil;
	}
	if (now < l->quiet)
		li->quiet_until = l->quiet;
	li->hint = l->hint;
	return 0;
}

uint64_t
lease_edicts(const struct algo *a)
{
	if (a->ops != &algo_lease)
		return 0;
	return ((const struct lease *)a)->nlog;
}

int
lease_edict(const struct algo *a, uint64_t i, struct lease_edict *e)
{
	const struct lease *l = (const struct lease *)a;

	if (a->ops != &algo_lease || i >= l->nlog || l->nlog - i > LEASE_LOG)
		return -1;
	*e = l->log[i % LEASE_LOG];
	return 0;
}

/* ---- payload fields, for traces and test scripts ---- */

static void
msg_fields(const struct algo_msg *m, char *buf, size_t len)
{
	char c1[32], c2[32], c3[32], c4[32];
	const uint8_t *p = m->payload;

	switch (m->type) {
	case M_REQUEST:
		if (m->len != REQ_LEN)
			return;
		snprintf(buf, len, " delta=%s start=%s token=%llu echo=%s "
		    "einc=%llu rem=%s", fmt_time(get_time(p), c1, sizeof(c1)),
		    fmt_time(get_time(p + 8), c2, sizeof(c2)),
		    (unsigned long long)algo_get64(p + 16),
		    fmt_time(get_time(p + 24), c3, sizeof(c3)),
		    (unsigned long long)algo_get64(p + 32),
		    fmt_time(get_time(p + 40), c4, sizeof(c4)));
		break;
	case M_OK:
		if (m->len != OK_LEN)
			return;
		snprintf(buf, len, " t=%s inc=%llu k=%llu",
		    fmt_time(get_time(p), c1, sizeof(c1)),
		    (unsigned long long)algo_get64(p + 8),
		    (unsigned long long)algo_get64(p + 16));
		break;
	case M_REFUSE:
		if (m->len != REF_LEN || p[0] == 0 || p[0] >= R_NWHY)
			return;
		snprintf(buf, len, " why=%s ldr=%u left=%s k=%llu",
		    whynames[p[0]], p[1] << 8 | p[2],
		    fmt_time(get_time(p + 3), c1, sizeof(c1)),
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
	struct trace_qt qt[LEASE_QT_MAX];
	struct trace_str s = { v, strlen(v) };
	int n, i;

	if ((n = trace_parse_qt(s, qt, LEASE_QT_MAX)) <= 0)
		return -1;
	m->payload[16] = 0;
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
		{ M_OK, "t", 0, 1 }, { M_OK, "inc", 8, 0 }, { M_OK, "k", 16, 0 },
		{ M_REFUSE, "left", 3, 1 }, { M_REFUSE, "k", 11, 0 },
		{ M_EDICT, "token", 0, 0 }, { M_EDICT, "seq", 8, 0 },
	};
	static const uint16_t lens[NMSG] = {
		[M_REQUEST] = REQ_LEN, [M_OK] = OK_LEN, [M_REFUSE] = REF_LEN,
		[M_RELEASE] = REL_LEN, [M_EDICT] = EDICT_HDR,
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

const struct algo_ops algo_lease = {
	.name = "lease",
	.msgnames = msgnames,
	.nmsg = NMSG,
	.timernames = timernames,
	.ntimer = NTIMER,
	.size = sizeof(struct lease),
	.boot = boot,
	.step = step,
	.query = query,
	.msg_fields = msg_fields,
	.msg_set_field = msg_set_field,
};
