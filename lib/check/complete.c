/*
 * The trace assertion: a trace is certified only when it is complete and
 * consistent in itself (elect-trace(5)): no lost lines, no node whose
 * times go backwards, incarnations that increase from boot to boot, no
 * line from a node that is down, no boot of a node that never stopped,
 * no more nodes than the cluster has, no line earlier than one before it
 * by more than the skew.
 */
#include <err.h>
#include <stdlib.h>

#include "check/check.h"
#include "check/inst.h"
#include "check/world.h"

struct complete {
	const struct world *w;
	int		 disorder;	/* said already */
};

static void *
complete_init(const struct check_opts *o)
{
	struct complete *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		err(2, NULL);
	c->w = o->world;
	return c;
}

static void
complete_event(void *st, const struct trace_event *ev, struct check_out *out)
{
	struct complete *c = st;
	const struct world *w = c->w;
	char t[32], p[32], o[32];

	/* A renew line without an anomaly: nothing to say. */
	check_calm(out, TIME_MAX);
	if (ev->type == TR_LOST && ev->n > 0) {
		if (ev->node != 0)
			check_violation(out, ev, "node %u lost %llu line%s",
			    ev->node, (unsigned long long)ev->n,
			    PLURAL(ev->n));
		else
			check_violation(out, ev, "%llu line%s lost",
			    (unsigned long long)ev->n,
			    ev->n == 1 ? " was" : "s were");
	}
	if (w->anomaly == 0)
		return;
	trace_format_time(ev->t, t, sizeof(t));
	trace_format_time(w->prev_t, p, sizeof(p));
	if ((w->anomaly & WA_ORDER) && !c->disorder) {
		c->disorder = 1;
		trace_format_time(w->order_t, o, sizeof(o));
		check_violation(out, ev, "line out of time order: %s after a "
		    "line of %s%s; the assertions of the protocol are not "
		    "judged from here on", t, o, w->skew > 0 ?
		    ", more than the skew" : "");
	}
	if ((w->anomaly & WA_BACKWARDS) && ev->node != 0)
		check_violation(out, ev, "time goes backwards at node %u: %s "
		    "after %s", ev->node, t, p);
	else if (w->anomaly & WA_BACKWARDS)
		check_violation(out, ev, "time goes backwards in the lines "
		    "of \"-\": %s after %s", t, p);
	if (w->anomaly & WA_REBOOT)
		check_violation(out, ev, "node %u boots while up: the crash "
		    "or exit before it is missing", ev->node);
	if (w->anomaly & WA_INC)
		check_violation(out, ev, "node %u boots with inc=%llu, not "
		    "above its last incarnation %llu", ev->node,
		    (unsigned long long)ev->inc,
		    (unsigned long long)w->prev_inc);
	if (w->anomaly & WA_DOWN)
		check_violation(out, ev, "node %u writes %s while down: its "
		    "boot is missing (taken as up from here)", ev->node,
		    trace_type_name(ev->type));
	if (w->anomaly & WA_SIZE)
		check_violation(out, ev, "%u nodes, more than the cluster's "
		    "size %u", w->n, w->size);
}

static void
complete_finish(void *st, const struct trace_event *last,
    struct check_out *out)
{
}

const struct check_ops check_trace = {
	"trace", complete_init, complete_event, complete_finish, free, NULL, 0,
	NULL, 0, 1
};
