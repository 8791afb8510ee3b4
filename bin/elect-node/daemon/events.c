/*
 * The daemon's log: one line per event an operator acts on, each a word
 * and key=value pairs with the node's id, so that `grep became-leader'
 * or `journalctl -g node=3' finds them.  The trace has every step; the
 * log has only the changes: leadership, the leader seen, peers, drops
 * (a summary per window), guarded commands, start and stop.  Lines are
 * made here from the core's status, after each input, never in a core.
 */
#include <stdio.h>
#include <string.h>

#include "daemon.h"

void
events_start(struct node *nd)
{
	const struct node_opts *o = nd->opts;
	char ep[CLUSTER_HOST_MAX + 16], tm[512];

	cluster_endpoint(nd->self, nd->self->port, ep, sizeof(ep));
	timing_format(&o->timing, tm, sizeof(tm));
	log_info("start node=%u version=%s algo=%s cluster=%s nodes=%zu "
	    "addr=%s inc=%llu key=%s%s%s%s%s state=%s trace=%s drift=%g%s", o->id,
	    ELECT_VERSION, algo_name(o->algo), o->cluster, nd->cluster.n, ep,
	    (unsigned long long)nd->inc, o->insecure ? "insecure" : o->keyfile,
	    o->insecure ? "" : " key_id=", o->insecure ? "" : nd->key.id,
	    nd->key.has_old ? " accept=" : "", nd->key.has_old ?
	    nd->key.old_id : "",
	    o->statedir, o->trace != NULL ? o->trace : "-",
	    (double)o->timing.a.drift / TRACE_NS,
	    tm);
}

/* The leader as logged, or the last one if none is known now. */
static int
was_leader(const struct node *nd, unsigned peer)
{
	const struct events *ev = &nd->events;

	return peer != nd->self->id &&
	    (peer == ev->ldr || (ev->ldr == 0 && peer == ev->prev));
}

/* A peer's guard says that the peer's daemon died (net.c). */
void
events_dead(struct node *nd, unsigned peer, uint64_t inc)
{
	log_info("peer-dead node=%u peer=%u inc=%llu", nd->self->id, peer,
	    (unsigned long long)inc);
	if (was_leader(nd, peer)) {
		nd->events.gone = peer;
		nd->events.gone_why = "leader-dead";
	}
}

/* A peer released its grants (core.c): the leader's release is its
 * handover, as on SIGTERM. */
void
events_release(struct node *nd, unsigned peer)
{
	if (was_leader(nd, peer) && !(nd->events.gone == peer &&
	    nd->events.gone_why != NULL)) {
		nd->events.gone = peer;
		nd->events.gone_why = "handover";
	}
}

static int
peer_downed(const struct node *nd, unsigned id)
{
	long i = hnet_index(&nd->net, id);

	return i != -1 && nd->net.p[i].downed;
}

/*
 * Why this node leads now: the first leader it knows of; the last one
 * handed over (released its lease), died (a Dead from its guard), was
 * reported down by the detector (a crash), left in a change of the
 * cluster, or let its lease run out; or, without leases, this node won
 * an election against a live one.
 */
static const char *
lead_why(const struct node *nd, unsigned prev)
{
	const struct events *ev = &nd->events;

	if (prev == 0)
		return "no-leader";
	if (ev->gone == prev && ev->gone_why != NULL)
		return ev->gone_why;
	if (peer_downed(nd, prev))
		return "leader-down";
	if (ev->prev_epoch != nd->cluster.epoch)
		return "epoch";
	if (algo_flags(nd->opts->algo) & ALGO_F_DEADLINE)
		return "lease-expired";
	return "elected";
}

/* Why it no longer does. */
static const char *
unlead_why(const struct node *nd, const struct algo_status *st,
    algo_time now)
{
	if (nd->exiting || nd->quit != QUIT_NO || nd->leaving != QUIT_NO)
		return "leaving";
	/* Asked to wedge for a change of the cluster: it resigns. */
	if ((nd->rc.h.role == HEP_OLD && nd->rc.h.wedge_given) ||
	    nd->events.epoch != nd->cluster.epoch)
		return "epoch";
	if (nd->lead.vetoed)
		return "mismatch";
	if (nd->events.until != 0 && now >= nd->events.until)
		return "lease-expired";
	if (st->state.ldr != 0 && st->state.ldr != nd->self->id)
		return "other-leader";
	return "election";
}

static void
log_token(char *buf, size_t len, uint64_t token)
{
	if (token == 0)
		strlcpy(buf, "-", len);
	else
		snprintf(buf, len, "%llu", (unsigned long long)token);
}

static void
leadership(struct node *nd, algo_time now)
{
	struct events *ev = &nd->events;
	struct algo_status st;
	unsigned self = nd->self->id;
	char a[8], b[8], tok[24];
	algo_time end;
	int leading;

	node_query(nd, now, &st);
	if (st.state.ldr != ev->ldr) {
		log_info("leader-changed node=%u leader=%s prev=%s", self,
		    id_str(st.state.ldr, a, sizeof(a)),
		    id_str(ev->ldr, b, sizeof(b)));
		if (ev->ldr != 0 && ev->ldr != self)
			ev->prev = ev->ldr;
		if (st.state.ldr != 0 && st.state.ldr != self)
			ev->prev_epoch = nd->cluster.epoch;
		ev->ldr = st.state.ldr;
	}
	/* Under an algorithm with fencing tokens a leadership starts, for
	 * the log as for a guarded command, once its token is known. */
	leading = st.leader && (st.token != 0 ||
	    !(algo_flags(nd->opts->algo) & ALGO_F_DEADLINE));
	if (leading && (!ev->leading || st.token != ev->token)) {
		if (ev->leading)
			log_info("stopped-leading node=%u token=%llu "
			    "why=new-token held=%.3fs", self,
			    (unsigned long long)ev->token,
			    (double)(now - ev->since) / TRACE_NS);
		log_token(tok, sizeof(tok), st.token);
		log_info("became-leader node=%u token=%s prev=%s why=%s "
		    "epoch=%u", self, tok, id_str(ev->prev, a, sizeof(a)),
		    lead_why(nd, ev->prev), (unsigned)nd->cluster.epoch);
		ev->gone = 0;
		ev->gone_why = NULL;
		ev->since = now;
		ev->epoch = nd->cluster.epoch;
	} else if (!leading && ev->leading) {
		log_token(tok, sizeof(tok), ev->token);
		/* A leadership with a deadline ended there, however late
		 * the process (stopped, starved) came to see it. */
		end = ev->until != 0 && ev->until < now ? ev->until : now;
		log_info("stopped-leading node=%u token=%s why=%s leader=%s "
		    "held=%.3fs", self, tok, unlead_why(nd, &st, now),
		    id_str(st.state.ldr == self ? 0 : st.state.ldr, a,
		    sizeof(a)), (double)(end - ev->since) / TRACE_NS);
	}
	ev->leading = leading;
	ev->token = leading ? st.token : 0;
	ev->until = leading ? st.until : 0;
}

static void
tasks(struct node *nd)
{
	struct events *ev = &nd->events;
	char tok[24];
	/* The default leadership's; a name's are logged by task.c. */
	int n = (int)nd->lead.n.running;

	if (n > ev->tasks) {
		log_token(tok, sizeof(tok), ev->token);
		log_info("task-start node=%u token=%s tasks=%d", nd->self->id,
		    tok, n);
	} else if (n < ev->tasks)
		log_info("task-end node=%u tasks=%d", nd->self->id, n);
	ev->tasks = n;
}

algo_time
events_tick(struct node *nd, algo_time now)
{
	leadership(nd, now);
	tasks(nd);
	return log_drops_tick(&nd->events.drops, nd->self->id, now);
}

void
events_peer(struct node *nd, unsigned id, int up)
{
	log_info("peer-%s node=%u peer=%u", up ? "up" : "down", nd->self->id,
	    id);
}

void
events_drop(struct node *nd, const char *why)
{
	log_drops_add(&nd->events.drops, why, mono_now());
}

void
events_stop(struct node *nd, const char *why)
{
	algo_time now = mono_now();

	leadership(nd, now);
	log_drops_tick(&nd->events.drops, nd->self->id,
	    now + LOG_DROPS_WINDOW);
	log_info("stop node=%u why=%s released=%s", nd->self->id, why,
	    (nd->quit == QUIT_TERM || nd->quit == QUIT_INT) &&
	    !nd->norelease ? "yes" : "no");
}
