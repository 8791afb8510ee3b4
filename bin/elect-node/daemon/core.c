/*
 * The core's edge: every input goes through algo_step() and every action
 * it returns is carried out here, in order, and traced.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "store/store.h"
#include "util/util.h"

#define TICK_MAX	64	/* timers fired in one go, against a loop */

/* The core's blob, one file per algorithm so a switch never misreads,
 * and per epoch after 0, so that a record of E+1 never meets a blob of
 * E (rule E6 would refuse it). */
static void
persist_name(const struct node *nd, char *buf, size_t len)
{
	if (nd->cluster.epoch == 0)
		snprintf(buf, len, "persist.%s", algo_name(nd->opts->algo));
	else
		snprintf(buf, len, "persist.%s.%u", algo_name(nd->opts->algo),
		    nd->cluster.epoch);
}

/* An id as the trace writes it: "-" for none. */
const char *
id_str(unsigned id, char *buf, size_t len)
{
	if (id == 0)
		strlcpy(buf, "-", len);
	else
		snprintf(buf, len, "%u", id);
	return buf;
}

/* " elid=G" for a message, or "" when it has none. */
const char *
elid_key(const struct algo_elid *e, char *buf, size_t len)
{
	char g[ALGO_ELID_STRLEN];

	if (e->node == 0)
		buf[0] = '\0';
	else
		snprintf(buf, len, " elid=%s", algo_elid_fmt(e, g, sizeof(g)));
	return buf;
}

/* The payload's fields as extra keys (" key=value ..."), or "". */
const char *
msg_fields(const struct node *nd, const struct algo_msg *m, char *buf,
    size_t len)
{
	algo_msg_fields(nd->opts->algo, m, buf, len);
	return buf;
}

static void
trace_state(struct node *nd, const struct algo_state *st)
{
	char grp[ALGO_ELID_STRLEN], ldr[8];

	node_trace(nd, "state status=%s ldr=%s grp=%s",
	    trace_status_name(st->status), id_str(st->ldr, ldr, sizeof(ldr)),
	    algo_elid_fmt(&st->grp, grp, sizeof(grp)));
}

static void
do_fd(struct node *nd, enum algo_fd_op op, unsigned peer)
{
	char line[32];

	if (op == ALGO_FD_START || op == ALGO_FD_STOP)
		net_monitor(nd, peer, op == ALGO_FD_START);
	node_trace(nd, "fd op=%s peer=%u", algo_fd_op_name(op), peer);
	snprintf(line, sizeof(line), "%s %u", algo_fd_op_name(op), peer);
	if (fdc_send(&nd->fdc, line) == -1)
		node_detector_failed(nd);
}

static void
do_persist(struct node *nd, const uint8_t *data, size_t len)
{
	char name[64];

	persist_name(nd, name, sizeof(name));
	if (store_write(nd->dirfd, name, data, len) == -1) {
		log_warnx("%s/%s: %s", nd->opts->statedir, name,
		    strerror(errno));
		nd->quit = QUIT_ERROR;
	}
}

/* Carries out the actions the core returned, in order. */
static void
run(struct node *nd)
{
	struct algo_action *a;
	size_t i;

	for (i = 0; i < nd->out.n && nd->quit != QUIT_ERROR; i++) {
		a = &nd->out.v[i];
		switch (a->type) {
		case ALGO_SEND:
			net_send(nd, &a->msg);
			break;
		case ALGO_FD:
			do_fd(nd, a->fd.op, a->fd.peer);
			break;
		case ALGO_TIMER_SET:
			if (a->timer.id < ALGO_TIMERS_MAX) {
				nd->timer[a->timer.id] = a->timer.at;
				nd->armed |= 1u << a->timer.id;
			}
			break;
		case ALGO_TIMER_CANCEL:
			if (a->timer.id < ALGO_TIMERS_MAX)
				nd->armed &= ~(1u << a->timer.id);
			break;
		case ALGO_PERSIST:
			do_persist(nd, a->persist.data, a->persist.len);
			break;
		case ALGO_STATE:
			/* A node that leaves on purpose traces its exit, the
			 * end of its up time (elect-trace(5)), not a Down
			 * status it would seem to stay in. */
			if (!nd->exiting || a->state.status != ST_DOWN)
				trace_state(nd, &a->state);
			break;
		case ALGO_TRACE:
			node_trace(nd, "%s", algo_out_text(&nd->out, a));
			break;
		case ALGO_EDICT:
			edict_out(nd, &a->edict);
			break;
		}
	}
	algo_out_clear(&nd->out);
	reconf_stepped(nd);
}

static int
step(struct node *nd, const struct algo_input *in)
{
	int rc;

	rc = algo_step(nd->algo, in, &nd->out);
	mx_step(nd, in->now);
	if (nd->names.h.pending)
		named_learn(nd);
	return rc;
}

/* The core's part in an epoch: whether it waits to learn that the one
 * before ended (*PENDING), whether it is wedged, granting nothing more
 * (*WEDGED); both 0 for an algorithm without epochs. */
void
core_epoch(struct node *nd, int *pending, int *wedged)
{
	struct algo_status st;

	*pending = *wedged = 0;
	if (!(algo_flags(nd->opts->algo) & ALGO_F_EPOCHS))
		return;
	algo_query(nd->algo, mono_now(), &st);
	*pending = st.pending;
	*wedged = st.wedged;
}

/* Recovery: the core from the cluster, the incarnation and its blob.  Its
 * first actions wait for core_start(), once the handshakes with its peers
 * are done (net_ready()). */
void
core_boot(struct node *nd)
{
	const struct node_opts *o = nd->opts;
	struct algo_config cfg;
	uint8_t blob[ALGO_PERSIST_MAX];
	uint16_t *ids;
	char name[64], why[256];
	size_t i, len;
	int rc;

	if ((ids = calloc(nd->cluster.n, sizeof(*ids))) == NULL)
		err(1, NULL);
	for (i = 0; i < nd->cluster.n; i++)
		ids[i] = (uint16_t)nd->cluster.nodes[i].id;
	memset(&cfg, 0, sizeof(cfg));
	cfg.self = (uint16_t)o->id;
	cfg.ids = ids;
	cfg.nids = nd->cluster.n;
	cfg.inc = nd->inc;
	cfg.seed = (uint64_t)arc4random() << 32 | arc4random();
	cfg.timing = o->timing.a;
	persist_name(nd, name, sizeof(name));
	rc = store_read(nd->dirfd, name, blob, sizeof(blob), &len);
	if (rc == -1)
		err(EXIT_USAGE, "%s/%s", o->statedir, name);
	if (rc == 0) {
		cfg.persist = blob;
		cfg.persistlen = len;
	}
	/* Rules E1 and E7 (share/elect/lease.md, Epochs): a core of E > 0
	 * waits to learn that E-1 ended; fresh only in its first life here,
	 * which the record written before this boot says, and never with a
	 * blob of its own. */
	cfg.epoch = nd->cluster.epoch;
	cfg.epoch_pending = nd->cluster.epoch > 0;
	cfg.epoch_fresh = nd->fresh && nd->cluster.epoch > 0 && rc != 0;
	algo_out_init(&nd->out);
	/* A handover's message, for the log's reasons (0: none). */
	nd->release_type = (uint8_t)algo_msg_type(o->algo, "Release");
	nd->algo = algo_boot(o->algo, &cfg, node_input(nd), &nd->out, why,
	    sizeof(why));
	free(ids);
	if (nd->algo == NULL)
		errx(EXIT_USAGE, "%s", why);
}

/* The trace's boot line: the host is up, before anything else of it. */
void
core_boot_line(struct node *nd)
{
	char ep[24] = "";

	/* Every boot of a core with epochs says its epoch, so that a
	 * checker knows from the first line that a host may join later. */
	if (algo_flags(nd->opts->algo) & ALGO_F_EPOCHS)
		snprintf(ep, sizeof(ep), " epoch=%u", nd->cluster.epoch);
	node_trace(nd, "boot inc=%llu algo=%s nodes=%zu%s",
	    (unsigned long long)nd->inc, algo_name(nd->opts->algo),
	    nd->cluster.n, ep);
}

void
core_start(struct node *nd)
{
	struct algo_msg m;

	/* Booted anew now: its first actions' timers count from its start,
	 * not from the wait for the handshakes (a synchronous algorithm's
	 * wait for a coordinator's delivery would be over before it was
	 * sent).  The state directory has not changed since. */
	if (!nd->started) {
		core_free(nd);
		core_boot(nd);
	}
	nd->fresh = 0;
	nd->started = 1;
	run(nd);
	node_input_done(nd);
	/* What its peers sent before, as it came. */
	hnet_start(&nd->net);
	while (!nd->quit && hnet_early(&nd->net, &m))
		core_recv(nd, &m);
}

void
core_recv(struct node *nd, const struct algo_msg *m)
{
	struct algo_input in = { .type = ALGO_IN_RECV, .now = node_input(nd) };
	char elid[ALGO_ELID_STRLEN + 8], fields[256];

	in.msg = *m;
	if (step(nd, &in) == ALGO_EINVAL)
		net_drop(nd, m->peer, "bad-payload");
	else {
		node_trace(nd, "recv from=%u msg=%s%s%s", m->peer,
		    algo_msg_name(nd->opts->algo, m->type),
		    elid_key(&m->elid, elid, sizeof(elid)),
		    msg_fields(nd, m, fields, sizeof(fields)));
		if (m->type == nd->release_type)
			events_release(nd, m->peer);
		run(nd);
	}
	node_input_done(nd);
}

void
core_down(struct node *nd, unsigned id)
{
	struct algo_input in = { .type = ALGO_IN_DOWN };

	if (net_down(nd, id) == -1)
		return;
	in.now = node_input(nd);
	node_trace(nd, "fd op=down peer=%u", id);
	in.down = (uint16_t)id;
	if (step(nd, &in) == ALGO_EINVAL)
		log_warnx("%s: down %u: not a peer", nd->opts->fd_cmd, id);
	run(nd);
	node_input_done(nd);
}

/* The armed timer with the earliest deadline, or -1. */
static int
earliest(const struct node *nd)
{
	int id, first = -1;

	for (id = 0; id < ALGO_TIMERS_MAX; id++)
		if ((nd->armed & (1u << id)) &&
		    (first == -1 || nd->timer[id] < nd->timer[first]))
			first = id;
	return first;
}

algo_time
core_tick(struct node *nd, algo_time now)
{
	struct algo_input in = { .type = ALGO_IN_TIMER, .now = now };
	int fired, id;

	/* Due timers in the order of their deadlines; a bound against a
	 * core that keeps setting timers in the past. */
	for (fired = 0; fired < TICK_MAX && !nd->quit; fired++) {
		if ((id = earliest(nd)) == -1 || nd->timer[id] > now)
			break;
		nd->armed &= ~(1u << id);
		in.timer = (unsigned)id;
		step(nd, &in);
		run(nd);
	}
	if (nd->quit || (id = earliest(nd)) == -1)
		return -1;
	return nd->timer[id] > now ? nd->timer[id] - now : 0;
}

/* A command for the core (leave, and those of the control socket): its
 * ALGO_ result, the actions carried out. */
int
core_cmd(struct node *nd, enum algo_cmd_code code, const void *data,
    size_t len)
{
	struct algo_input in = { .type = ALGO_IN_CMD };
	int rc;

	if (len > sizeof(in.cmd.data))
		return ALGO_EINVAL;
	/* A command does not wait for the handshakes (net_ready()): the
	 * operator's, a change's, a leave. */
	if (!nd->started)
		core_start(nd);
	in.now = node_input(nd);
	in.cmd.code = code;
	in.cmd.len = len;
	if (len > 0)
		memcpy(in.cmd.data, data, len);
	if ((rc = step(nd, &in)) == ALGO_OK)
		run(nd);
	algo_out_clear(&nd->out);
	node_input_done(nd);
	return rc;
}

void
core_leave(struct node *nd)
{
	nd->exiting = 1;
	core_cmd(nd, ALGO_CMD_LEAVE, NULL, 0);
}

void
node_query(const struct node *nd, algo_time now, struct algo_status *st)
{
	algo_query(nd->algo, now, st);
	lead_status(&nd->lead, st);
}

void
core_free(struct node *nd)
{
	algo_free(nd->algo);
	algo_out_free(&nd->out);
	nd->algo = NULL;
}
