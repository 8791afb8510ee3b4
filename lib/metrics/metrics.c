/*
 * Counting and rendering; see metrics.h.  Names follow Prometheus'
 * conventions: elect_ prefix, _total for counters, base units
 * (seconds), one HELP and TYPE line each.
 */
#include <stdio.h>
#include <string.h>

#include "metrics/metrics.h"
#include "util/util.h"

#define MS	((algo_time)1000000)
#define S	(1000 * MS)

/* From 1 ms: a failover under the default timings takes 1 to 80 ms. */
const algo_time metrics_failover_le[METRICS_FAILOVER_BUCKETS] = {
	1 * MS, 2 * MS + MS / 2, 5 * MS, 10 * MS, 25 * MS, 50 * MS, 100 * MS,
	250 * MS, 500 * MS, 1 * S, 2 * S, 5 * S, 10 * S, 30 * S, 60 * S,
};

const algo_time metrics_rtt_le[METRICS_RTT_BUCKETS] = {
	MS / 4, MS / 2, 1 * MS, 2 * MS, 5 * MS, 10 * MS, 25 * MS, 50 * MS,
	100 * MS, 250 * MS, 500 * MS, 1 * S,
};

void
metrics_init(struct metrics *m, unsigned id, const char *algo)
{
	memset(m, 0, sizeof(*m));
	m->id = id;
	snprintf(m->algo, sizeof(m->algo), "%s", algo);
}

void
metrics_hist_add(struct metrics_hist *h, const algo_time *le, algo_time v)
{
	size_t i, n = le == metrics_failover_le ? METRICS_FAILOVER_BUCKETS :
	    METRICS_RTT_BUCKETS;

	if (v < 0)
		v = 0;
	h->count++;
	h->sum += v;
	for (i = 0; i < n; i++)
		if (v <= le[i])
			h->le[i]++;
}

void
metrics_status(struct metrics *m, const struct algo_status *st,
    algo_time now)
{
	unsigned ldr = st->state.ldr;
	int elec = st->state.status != ST_NORM && st->state.status != ST_DOWN;

	if (st->leader && !m->leading) {
		m->leaderships++;
		m->lead_since = now;
	} else if (!st->leader && m->leading)
		m->lead_ns += now - m->lead_since;
	m->leading = st->leader;
	if (st->leader)
		m->token = st->token;
	if (m->seen && elec && m->status != st->state.status &&
	    (m->status == ST_NORM || m->status == ST_DOWN))
		m->elections++;
	if (ldr != m->ldr) {
		if (ldr != 0 && (m->ldr != 0 || m->lost_at != 0))
			m->leader_changes++;
		/* A leader lost: the failover lasts until the next is known. */
		if (ldr == 0 && m->ldr != 0)
			m->lost_at = now;
		else if (ldr != 0 && m->lost_at != 0) {
			m->failovers++;
			metrics_hist_add(&m->failover, metrics_failover_le,
			    now - m->lost_at);
			m->lost_at = 0;
		} else if (ldr != 0 && m->ldr != 0) {
			m->failovers++;
			metrics_hist_add(&m->failover, metrics_failover_le, 0);
		}
		m->ldr = ldr;
	}
	m->status = st->state.status;
	m->seen = 1;
}

void
metrics_drop(struct metrics *m, const char *why)
{
	size_t i;

	for (i = 0; i < m->nreasons; i++)
		if (strcmp(m->reason[i], why) == 0)
			break;
	if (i == m->nreasons) {
		if (m->nreasons == METRICS_REASONS_MAX ||
		    strlen(why) >= METRICS_REASON_LEN) {
			m->drops[METRICS_REASONS_MAX]++;
			return;
		}
		strlcpy(m->reason[i], why, METRICS_REASON_LEN);
		m->nreasons++;
	}
	m->drops[i]++;
}

static void
head(struct sbuf *o, const char *name, const char *type, const char *help)
{
	sbuf_put(o, "# HELP elect_%s %s\n# TYPE elect_%s %s\n", name, help,
	    name, type);
}

/* Seconds with nanosecond digits, as Prometheus reads floats; SHORT:
 * trailing zeros cut, for bucket labels ("0.25", "1"). */
static void
secs_as(struct sbuf *o, algo_time t, int short_)
{
	char frac[16];
	int n;

	n = snprintf(frac, sizeof(frac), "%09lld", (long long)(t % S));
	while (short_ && n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	sbuf_put(o, "%lld%s%s", (long long)(t / S), n > 0 ? "." : "", frac);
}

static void
secs(struct sbuf *o, algo_time t)
{
	secs_as(o, t, 0);
}

static void
one(struct sbuf *o, const char *name, const char *type, const char *help,
    unsigned long long v)
{
	head(o, name, type, help);
	sbuf_put(o, "elect_%s %llu\n", name, v);
}

static void
hist(struct sbuf *o, const char *name, const char *help,
    const struct metrics_hist *h, const algo_time *le, size_t n)
{
	size_t i;

	head(o, name, "histogram", help);
	for (i = 0; i < n; i++) {
		sbuf_put(o, "elect_%s_bucket{le=\"", name);
		secs_as(o, le[i], 1);
		sbuf_put(o, "\"} %llu\n", (unsigned long long)h->le[i]);
	}
	sbuf_put(o, "elect_%s_bucket{le=\"+Inf\"} %llu\n", name,
	    (unsigned long long)h->count);
	sbuf_put(o, "elect_%s_sum ", name);
	secs(o, h->sum);
	sbuf_put(o, "\nelect_%s_count %llu\n", name,
	    (unsigned long long)h->count);
}

int
metrics_render(const struct metrics *m, algo_time now, char *out, size_t len)
{
	struct sbuf o = { out, len, 0, 0 };
	algo_time led = m->lead_ns + (m->leading ? now - m->lead_since : 0);
	size_t i;

	if (len == 0)
		return -1;
	out[0] = '\0';
	head(&o, "node_info", "gauge", "The node: its id and algorithm.");
	sbuf_put(&o, "elect_node_info{id=\"%u\",algo=\"%s\"} 1\n", m->id,
	    m->algo);
	one(&o, "leader", "gauge", "1 while this node considers itself "
	    "leader.", (unsigned)m->leading);
	one(&o, "known_leader", "gauge", "The leader this node knows of, 0 "
	    "for none.", m->ldr);
	one(&o, "fencing_token", "gauge", "The fencing token of this node's "
	    "last leadership, 0 for none.", (unsigned long long)m->token);
	one(&o, "elections_total", "counter", "Times this node went into "
	    "an election.", (unsigned long long)m->elections);
	one(&o, "leader_changes_total", "counter", "Times the leader this "
	    "node knows of became another node.",
	    (unsigned long long)m->leader_changes);
	one(&o, "leaderships_total", "counter", "Times this node came to "
	    "lead.", (unsigned long long)m->leaderships);
	head(&o, "leader_seconds_total", "counter", "Time this node led.");
	sbuf_put(&o, "elect_leader_seconds_total ");
	secs(&o, led);
	sbuf_put(&o, "\n");
	one(&o, "failovers_total", "counter", "Leaders lost and the next "
	    "known.", (unsigned long long)m->failovers);
	hist(&o, "failover_seconds", "From losing a leader to knowing the "
	    "next.", &m->failover, metrics_failover_le,
	    METRICS_FAILOVER_BUCKETS);
	head(&o, "drops_total", "counter", "Datagrams refused, by reason.");
	for (i = 0; i < m->nreasons; i++)
		sbuf_put(&o, "elect_drops_total{reason=\"%s\"} %llu\n",
		    m->reason[i], (unsigned long long)m->drops[i]);
	sbuf_put(&o, "elect_drops_total{reason=\"other\"} %llu\n",
	    (unsigned long long)m->drops[METRICS_REASONS_MAX]);
	one(&o, "peers", "gauge", "Other nodes in the cluster.", m->peers);
	one(&o, "peers_up", "gauge", "Other nodes the failure detector does "
	    "not report down.", m->peers_up);
	one(&o, "peers_mismatch", "gauge", "Other nodes that answer but "
	    "run another configuration (algorithm, timing, membership, key).",
	    m->peers_mismatch);
	one(&o, "mismatch_veto", "gauge", "1 while such a node stops this "
	    "one from leading and running guarded commands.",
	    m->mismatch_veto);
	one(&o, "tasks_started_total", "counter", "Guarded commands told "
	    "to start.", (unsigned long long)m->tasks_started);
	one(&o, "tasks_ended_total", "counter", "Guarded commands ended "
	    "(their connection closed).", (unsigned long long)m->tasks_ended);
	one(&o, "tasks_told_stop_total", "counter", "Guarded commands told "
	    "to stop as the node left.",
	    (unsigned long long)m->tasks_told_stop);
	one(&o, "tasks_killed_total", "counter", "Guarded commands SIGKILLed "
	    "by their --run-if-leader, at the deadline or past the grace.",
	    (unsigned long long)m->tasks_killed);
	hist(&o, "lease_renew_rtt_seconds", "Lease renewals: a Request to "
	    "its answer from the same peer.", &m->rtt, metrics_rtt_le,
	    METRICS_RTT_BUCKETS);
	one(&o, "control_idle_drops_total", "counter", "Control clients "
	    "dropped for sending nothing.",
	    (unsigned long long)m->ctl_idle_drops);
	one(&o, "trace_lost_total", "counter", "Trace lines that could not "
	    "be written (a full pipe, a collector gone).",
	    (unsigned long long)m->trace_lost);
	one(&o, "control_busy_total", "counter", "Control clients refused "
	    "a slot: all taken, or their user's share.",
	    (unsigned long long)m->ctl_busy);
	one(&o, "datagrams_sent_total", "counter", "Datagrams this node "
	    "sent to its peers (its detector's apart).",
	    (unsigned long long)m->dgrams_sent);
	one(&o, "datagrams_received_total", "counter", "Datagrams this "
	    "node received, refused ones too (its detector's apart).",
	    (unsigned long long)m->dgrams_received);
	return o.cut ? -1 : (int)o.n;
}
