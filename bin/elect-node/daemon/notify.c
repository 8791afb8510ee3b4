/*
 * The service manager's edge (sd_notify(3)): READY=1 once the first
 * election round is over, STATUS= with who leads, WATCHDOG=1 from the
 * event loop, STOPPING=1 on the way out.  Outside systemd (no
 * NOTIFY_SOCKET) every call is a no-op.
 *
 * The first round is over when this node knows a leader, itself or
 * another, or when one could have been elected had the peers answered:
 * twice the longest a round takes (the detector's time-out, the core's
 * time-out and reply wait, a lease).  A node without a quorum is still
 * ready then, and says so in its status, or a cluster whose hosts start
 * one by one would never come up under Type=notify.
 */
#include <stdio.h>

#include <systemd/sd-daemon.h>

#include "daemon.h"

void
notify_init(struct node *nd, algo_time now)
{
	const struct node_timing *t = &nd->opts->timing;
	uint64_t usec;

	nd->notify.ready_by = now + 2 * (t->fd_timeout + t->a.timeout +
	    t->a.reply + t->a.lease);
	nd->notify.wd_every = 0;
	/* Twice per period, as sd_watchdog_enabled(3) advises. */
	if (sd_watchdog_enabled(0, &usec) > 0 && usec >= 2)
		nd->notify.wd_every = (algo_time)(usec / 2) * 1000;
	nd->notify.wd_next = now;
}

/* Whom this node follows, for STATUS=: a change is told at once. */
static void
tell_status(struct node *nd, const struct algo_status *st)
{
	char ldr[8];

	if (nd->notify.told && st->state.ldr == nd->notify.ldr &&
	    st->leader == nd->notify.leader)
		return;
	nd->notify.ldr = st->state.ldr;
	nd->notify.leader = st->leader;
	if (st->leader)
		sd_notifyf(0, "STATUS=leader (node %u, token %llu)",
		    nd->self->id, (unsigned long long)st->token);
	else if (st->state.ldr != 0)
		sd_notifyf(0, "STATUS=follower of node %s",
		    id_str(st->state.ldr, ldr, sizeof(ldr)));
	else
		sd_notifyf(0, "STATUS=no leader known%s",
		    nd->notify.ready ? "" : " yet");
}

algo_time
notify_tick(struct node *nd, algo_time now)
{
	struct algo_status st;
	algo_time next = -1;

	node_query(nd, now, &st);
	if (!nd->notify.ready) {
		if (st.state.ldr != 0 || now >= nd->notify.ready_by) {
			nd->notify.ready = 1;
			nd->notify.told = 0;
			sd_notify(0, "READY=1");
		} else
			next = nd->notify.ready_by - now;
	}
	tell_status(nd, &st);
	nd->notify.told = 1;
	if (nd->notify.wd_every > 0) {
		if (now >= nd->notify.wd_next) {
			sd_notify(0, "WATCHDOG=1");
			nd->notify.wd_next = now + nd->notify.wd_every;
		}
		if (next == -1 || nd->notify.wd_next - now < next)
			next = nd->notify.wd_next - now;
	}
	return next;
}

void
notify_stopping(struct node *nd)
{
	sd_notify(0, "STOPPING=1");
}
