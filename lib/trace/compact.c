/*
 * The compact trace level; see compact.h and elect-trace(5), Compact
 * traces, for what each rule keeps and why a reader judges the same.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "trace/compact.h"

#define NO_EPOCH	UINT64_MAX

void
tc_init(struct trace_compact *c, unsigned self, int on)
{
	memset(c, 0, sizeof(*c));
	c->on = on;
	c->self = self;
}

static uint64_t
hash(struct trace_str s)
{
	uint64_t h = UINT64_C(14695981039346656037);
	size_t i;

	for (i = 0; i < s.n; i++)
		h = (h ^ (unsigned char)s.p[i]) * UINT64_C(1099511628211);
	return h;
}

static int
nonzero(const struct trace_event *ev, const char *key)
{
	const struct trace_str *v = trace_get(ev, key);

	return v != NULL && !trace_str_eq(*v, "0");
}

/* A renewal Request, as sender and receiver both see it: of a leadership
 * with a token, to a grantor that answered before. */
static int
renewal_request(const struct trace_event *ev)
{
	return trace_str_eq(ev->msg, "Request") && (ev->have & HAVE_ELID) &&
	    nonzero(ev, "token") && nonzero(ev, "echo") && nonzero(ev, "rem");
}

static uint64_t
epoch_of(const struct trace_event *ev)
{
	return (ev->have & HAVE_EPOCH) ? ev->epoch : NO_EPOCH;
}

/* A lead line's keys but until=, clock= and its quorum (qt=, qd=), which
 * no reader judges on a lead line: what a routine renewal keeps (its
 * token, its epoch).  0 if it does not fit. */
static int
signature(const struct trace_event *ev, char *sig, size_t len)
{
	size_t i, o = 0;

	sig[0] = '\0';
	for (i = 0; i < ev->nkv; i++) {
		const struct trace_kv *kv = &ev->kv[i];

		if (trace_str_eq(kv->k, "until") || trace_str_eq(kv->k,
		    "clock") || trace_str_eq(kv->k, "qt") ||
		    trace_str_eq(kv->k, "qd"))
			continue;
		o += (size_t)snprintf(sig + o, len - o, " %.*s=%.*s",
		    (int)kv->k.n, kv->k.p, (int)kv->v.n, kv->v.p);
		if (o >= len)
			return 0;
	}
	return 1;
}

/* A line of clock C is written: spans whose deadline it reaches are over
 * for a reader, and a clock that goes back ends them all. */
static void
sampled(struct trace_compact *c, trace_time t, trace_time clk)
{
	int back = c->have_clock && clk < c->clock;

	if (back || (c->lead_on && c->lead_until <= clk))
		c->lead_on = 0;
	if (back || (c->grant_on && c->grant_until <= clk))
		c->grant_on = 0;
	c->have_clock = 1;
	c->clock = clk;
	c->sampled = t;
}

/*
 * Whether a reader, from the last sample written, places clock CLK at
 * time T well within its drift bound (half of it), and the sample is less
 * than TC_SAMPLE old: a sample of CLK would tell it nothing.  A clock that
 * strays (a fast host, a slewed real-time clock) is sampled at every line
 * that shows it, as at the full level.
 */
static int
predicted(const struct trace_compact *c, trace_time t, trace_time clk)
{
	trace_time el = t - c->sampled, dev = (clk - c->clock) - el;

	if (!c->have_clock || clk < c->clock || el < 0 || el >= TC_SAMPLE)
		return 0;
	if (dev < 0)
		dev = -dev;
	return dev <= el / 1000000 * TRACE_DRIFT_PPM / 2;
}

static size_t
renew(char out[2][TRACE_LINE_MAX], size_t n, trace_time d)
{
	assert(d > 0);
	snprintf(out[n], TRACE_LINE_MAX, "renew d=%lld", (long long)d);
	return n + 1;
}

static size_t
lead(struct trace_compact *c, trace_time t, const struct trace_event *ev,
    const char *body, char out[2][TRACE_LINE_MAX])
{
	char sig[TC_SIG_MAX], u[40], k[40];
	int same = signature(ev, sig, sizeof(sig)) && strcmp(sig, c->sig) == 0;
	trace_time d = ev->until - c->lead_until;
	size_t n = 0;

	/* Routine: the same leadership (token, epoch) renewed before its
	 * deadline, and its grant to itself of this round moved by as much,
	 * so that one d says both. */
	if (same && c->lead_on && c->lead_until > ev->clock && d > 0 &&
	    c->pend && c->grant_on && c->grant_to == c->self &&
	    c->grant_until > ev->clock && c->pend_until - c->grant_until == d &&
	    c->pend_epoch == c->grant_epoch) {
		c->lead_until = ev->until;
		c->grant_until = c->pend_until;
		c->pend = 0;
		if (!predicted(c, t, ev->clock)) {
			trace_format_time(ev->clock, k, sizeof(k));
			snprintf(out[n++], TRACE_LINE_MAX, "clock c=%s", k);
			sampled(c, t, ev->clock);
		}
		return renew(out, n, d);
	}
	/* Otherwise the grant held back is true still at this clock. */
	if (c->pend && c->pend_until > ev->clock) {
		trace_format_time(c->pend_until, u, sizeof(u));
		trace_format_time(ev->clock, k, sizeof(k));
		if (c->pend_epoch != NO_EPOCH)
			snprintf(out[n++], TRACE_LINE_MAX, "lease op=grant "
			    "to=%u until=%s clock=%s epoch=%llu", c->self, u,
			    k, (unsigned long long)c->pend_epoch);
		else
			snprintf(out[n++], TRACE_LINE_MAX, "lease op=grant "
			    "to=%u until=%s clock=%s", c->self, u, k);
		c->grant_ext = c->pend_until - ev->clock;
		c->grant_on = 1;
		c->grant_to = c->self;
		c->grant_until = c->pend_until;
		c->grant_epoch = c->pend_epoch;
	}
	c->pend = 0;
	sampled(c, t, ev->clock);
	c->lead_on = ev->until > ev->clock;
	c->lead_until = ev->until;
	if (!signature(ev, c->sig, sizeof(c->sig)))
		c->sig[0] = '\0', c->lead_on = 0;
	strlcpy(out[n++], body, TRACE_LINE_MAX);
	return n;
}

static size_t
lease(struct trace_compact *c, trace_time t, const struct trace_event *ev,
    const char *body, char out[2][TRACE_LINE_MAX])
{
	int grant = ev->op == OP_GRANT && (ev->have & HAVE_UNTIL);
	trace_time d = grant ? ev->until - c->grant_until : 0;
	uint64_t e = epoch_of(ev);
	int on = grant && c->grant_on && c->grant_to == ev->to &&
	    c->grant_until > ev->clock && c->grant_epoch == e && d > 0;

	/* A leader's renewal of its grant to itself waits for its quorum:
	 * the lead line that ends the round says both.  Once a round went
	 * without one, the next is written whole, as the full level has it,
	 * until a renewal is routine again. */
	if (on && ev->to == c->self && c->lead_on &&
	    c->lead_until > ev->clock && !c->pend) {
		c->pend = 1;
		c->pend_until = ev->until;
		c->pend_epoch = e;
		return 0;
	}
	c->pend = 0;
	/* A grantor's renewal to the same holder by the same length: its
	 * clock is the new deadline less that length, a sample. */
	if (on && ev->to != c->self && ev->until - ev->clock == c->grant_ext &&
	    !(c->lead_on && c->lead_until > ev->clock)) {
		c->grant_until = ev->until;
		sampled(c, t, ev->clock);
		return renew(out, 0, d);
	}
	sampled(c, t, ev->clock);
	if (grant) {
		c->grant_on = ev->until > ev->clock;
		c->grant_to = ev->to;
		c->grant_until = ev->until;
		c->grant_ext = ev->until - ev->clock;
		c->grant_epoch = e;
	} else if (c->grant_to == ev->to)
		c->grant_on = 0;
	strlcpy(out[0], body, TRACE_LINE_MAX);
	return 1;
}

static struct tc_req *
sent_slot(struct trace_compact *c, unsigned peer)
{
	return &c->sent[peer % TC_PEERS];
}

/* Request and Ok lines of renewals: left out on both sides alike, or
 * written on both, so that no send waits for a recv a reader never sees;
 * but for the Requests of a round after one without a quorum, which the
 * sender writes whatever the receiver does. */
static int
message(struct trace_compact *c, const struct trace_event *ev)
{
	struct tc_req *r;
	uint64_t h;

	if (!(ev->have & HAVE_ELID))
		return 0;
	h = hash(ev->elid);
	/* A leader whose last round went without a quorum writes its
	 * Requests: a reader takes those that never arrive for evidence of
	 * the failure that may end its leadership. */
	if (ev->type == TR_SEND && renewal_request(ev) && !c->pend) {
		*sent_slot(c, ev->to) = (struct tc_req){ ev->to, h };
		return 1;
	}
	if (ev->type == TR_RECV && renewal_request(ev)) {
		c->got = (struct tc_req){ ev->from, h };
		return 1;
	}
	if (!trace_str_eq(ev->msg, "Ok"))
		return 0;
	if (ev->type == TR_SEND)
		return c->got.peer == ev->to && c->got.elid == h;
	r = sent_slot(c, ev->from);
	return r->peer == ev->from && r->elid == h;
}

static size_t
filter(struct trace_compact *c, trace_time t, const char *body,
    char out[2][TRACE_LINE_MAX])
{
	char line[TRACE_LINE_MAX], why[128];
	struct trace_event ev;
	int len;

	if (!c->on)
		goto pass;
	len = trace_format_line(line, sizeof(line), t, c->self, "%s", body);
	if (len < 0 || (size_t)len >= sizeof(line) || trace_parse_line(line,
	    (size_t)len, &ev, 0, why, sizeof(why)) != NULL)
		goto pass;
	/* The view is the default leadership's, as a reader's: a named
	 * one's lines, and a round's renewal of them all, are no part of
	 * it, and go whole. */
	if (ev.have & (HAVE_NAME | HAVE_ALLNAMES))
		goto pass;
	switch (ev.type) {
	case TR_BOOT:
		/* Readers are told: its last line is no proof of its end. */
		tc_init(c, c->self, 1);
		if (trace_get(&ev, "level") == NULL && ev.nkv < TRACE_KV_MAX &&
		    (size_t)len + sizeof(" level=compact") < TRACE_LINE_MAX) {
			snprintf(out[0], TRACE_LINE_MAX, "%s level=compact",
			    body);
			return 1;
		}
		break;
	case TR_LEAD:
		return lead(c, t, &ev, body, out);
	case TR_LEASE:
		return lease(c, t, &ev, body, out);
	case TR_CLOCK:
		/* A leader's round starts with one: kept while the last round
		 * went without a quorum, when the leadership may lapse. */
		if (predicted(c, t, ev.clock) && !c->pend)
			return 0;
		sampled(c, t, ev.clock);
		break;
	case TR_EDICT:
	case TR_EPOCH:
		sampled(c, t, ev.clock);
		break;
	case TR_MISFIT:
		/* A reader starts no leadership while the node is vetoed, and
		 * may start one once it no longer is: the next lead line is
		 * written whole. */
		c->lead_on = 0;
		c->pend = 0;
		break;
	case TR_SEND:
	case TR_RECV:
		if (message(c, &ev))
			return 0;
		break;
	default:
		break;
	}
pass:
	strlcpy(out[0], body, TRACE_LINE_MAX);
	return 1;
}

size_t
tc_filter(struct trace_compact *c, trace_time t, const char *body,
    char out[2][TRACE_LINE_MAX])
{
	size_t n = filter(c, t, body, out);

	/* A span the view holds running is one no sample written has
	 * reached, as a reader has it: a renew line moves only such. */
	assert(!c->lead_on || !c->have_clock || c->lead_until > c->clock);
	assert(!c->grant_on || !c->have_clock || c->grant_until > c->clock);
	assert(n <= 2);
	return n;
}
