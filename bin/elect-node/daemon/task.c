/*
 * The daemon's commands for guarded commands and edicts (the clients
 * that use them are in client/):
 *
 *	lease		ok id=ID algo=NAME leader=yes|no token=T until=NS
 *			    now=NS lease=NS renew=NS rtt=NS drift=PPB ldr=ID
 *			where the leadership has a deadline (ALGO_F_DEADLINE),
 *			else ok id=ID algo=NAME leader=yes|no ldr=ID now=NS;
 *			NS on this host's CLOCK_MONOTONIC, the clock
 *			--run-if-leader keeps its deadline on
 *	edict HEX	ok seq=N token=T, or err not leader leader=ID
 *	follow-edicts	ok, then one line per edict delivered or refused:
 *			ok from=ID token=T seq=N delivered=yes|no text=HEX,
 *			written as the core gives it out (ALGO_EDICT), so
 *			none is skipped; a follower that leaves
 *			CONTROL_OUT_MAX unread is let go instead
 *	task		as lease, then "ok stop" when the node is asked to leave;
 *			the caller runs a guarded command and keeps the
 *			connection open until the command is dead, and the
 *			node releases its lease only after (lib/host/lead)
 *	killed WHY	on that connection: the command's group was sent
 *			SIGKILL, at its deadline or past its grace, and runs
 *			no more: the node need not wait for its end; ok
 *
 * Edict texts travel hex-encoded, as one argument of a control line.
 * When a `task' is answered, what a `lease' says and when commands are
 * told to stop are lib/host/lead's decisions, which elect-sim runs too;
 * this file carries them out.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "daemon.h"
#include "util/util.h"

#define HEX_MAX		(2 * ALGO_EDICT_MAX + 1)

/* Who leads, as far as this node knows: the one it follows, or the one
 * the core was told of (lease: the grantee of the last node that refused
 * it, Nerio 10.4). */
static unsigned
known_leader(const struct node *nd, algo_time now)
{
	struct algo_status st;
	struct lead_reply r;

	algo_query(nd->algo, now, &st);
	lead_reply(&nd->lead, &st, now, &r);
	return r.ldr;
}

/* "err edicts need -a NAME[|NAME...]": the algorithms that have them. */
static void
reply_no_edicts(struct control_client *c)
{
	const struct algo_ops *ops;
	char names[128] = "";
	size_t i;

	for (i = 0; (ops = algo_nth(i)) != NULL; i++)
		if (algo_flags(ops) & ALGO_F_EDICTS) {
			if (names[0] != '\0')
				strlcat(names, "|", sizeof(names));
			strlcat(names, algo_name(ops), sizeof(names));
		}
	control_reply(c, "err edicts need -a %s", names);
}

/* Client C's slot, as lib/host/lead numbers registrations. */
static int
slot_of(const struct node *nd, const struct control_client *c)
{
	return (int)(c - nd->control.clients);
}

static void
reply_lease(struct node *nd, struct control_client *c,
    const struct lead_reply *r)
{
	char ldr[8];

	id_str(r->ldr, ldr, sizeof(ldr));
	if (!r->g.lease) {
		control_reply(c, "ok id=%u algo=%s leader=%s ldr=%s now=%lld",
		    r->g.id, algo_name(nd->opts->algo),
		    r->g.leader ? "yes" : "no", ldr, (long long)r->now);
		return;
	}
	control_reply(c, "ok id=%u algo=%s leader=%s token=%llu until=%lld "
	    "now=%lld lease=%lld renew=%lld rtt=%lld drift=%lld ldr=%s",
	    r->g.id, algo_name(nd->opts->algo), r->g.leader ? "yes" : "no",
	    (unsigned long long)r->g.token, (long long)r->g.until,
	    (long long)r->now, (long long)r->g.tlease, (long long)r->g.renew,
	    (long long)r->g.rtt, (long long)r->g.drift, ldr);
}

/* Carries out what lib/host/lead decided, in order. */
static void
lead_run(struct node *nd, const struct lead_out *o)
{
	const struct lead_action *a;
	struct control_client *c;
	size_t i;

	for (i = 0; i < o->n; i++) {
		a = &o->v[i];
		c = a->slot >= 0 ? &nd->control.clients[a->slot] : NULL;
		switch (a->type) {
		case LEAD_REPLY:
			reply_lease(nd, c, &a->r);
			break;
		case LEAD_ANSWER:
			reply_lease(nd, c, &a->r);
			c->waiting = WAIT_TASK;
			control_flush(c);
			break;
		case LEAD_REFUSE:
			control_reply(c, "err leaving");
			c->waiting = WAIT_NONE;
			c->closing = 1;
			control_flush(c);
			break;
		case LEAD_STOPPING:
			log_info("task-stop node=%u why=%s tasks=%u",
			    nd->self->id, lead_why_name(a->why), a->count);
			break;
		case LEAD_STOP:
			control_reply(c, "ok stop");
			control_flush(c);
			break;
		case LEAD_KILLED:
			log_warnx("task-killed node=%u why=%s", nd->self->id,
			    lead_why_name(a->why));
			break;
		case LEAD_LEAVE:
			if (a->why == LEAD_WHY_DEADLINE)
				log_warnx("task-stop-late node=%u tasks=%u: "
				    "leaving without releasing the lease",
				    nd->self->id, a->count);
			nd->norelease = a->why != LEAD_WHY_NONE;
			nd->quit = nd->leaving;
			break;
		}
	}
	mx_lead(nd);
}

/* Input IN of lib/host/lead at NOW, with the core's status then, and its
 * actions carried out: when it is due again (ns from NOW), or -1. */
static algo_time
lead_feed(struct node *nd, struct lead_input *in, algo_time now)
{
	struct lead_out o;

	in->now = now;
	algo_query(nd->algo, now, &in->st);
	in->ending = reconf_ending(nd);
	lead_step(&nd->lead, in, &o);
	lead_run(nd, &o);
	return o.wake == -1 ? -1 : o.wake > now ? o.wake - now : 0;
}

static void
lead_gone(void *arg, int slot)
{
	struct lead_input in = { .type = LEAD_IN_GONE, .slot = slot };

	lead_feed(arg, &in, mono_now());
}

void
task_open(struct node *nd)
{
	const struct lead_conf c = {
		.self = nd->self->id,
		.deadline = (algo_flags(nd->opts->algo) & ALGO_F_DEADLINE) != 0,
		.timing = nd->opts->timing.a,
		.slots = CONTROL_CLIENTS_MAX,
	};

	_Static_assert(CONTROL_CLIENTS_MAX <= LEAD_SLOTS,
	    "a registration per control client");
	lead_init(&nd->lead, &c);
	nd->control.gone = lead_gone;
	nd->control.gone_arg = nd;
}

algo_time
task_tick(struct node *nd, algo_time now)
{
	struct lead_input in = { .type = LEAD_IN_TICK, .slot = -1 };

	return lead_feed(nd, &in, now);
}

void
task_verdict(struct node *nd, int changed)
{
	struct lead_input in = { .type = LEAD_IN_VERDICT, .slot = -1,
	    .vetoed = nd->net.fit.vetoed, .live = nd->net.fit.live,
	    .changed = changed };

	lead_feed(nd, &in, mono_now());
}

void
cmd_lease(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	struct lead_input in = { .type = LEAD_IN_LEASE,
	    .slot = slot_of(nd, c) };

	lead_feed(nd, &in, mono_now());
}

void
cmd_edict(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	uint8_t text[ALGO_EDICT_MAX];
	char hex[HEX_MAX], ldr[8];
	size_t len;
	int rc;

	if (req->argc != 1 || req->argv[0].n >= sizeof(hex)) {
		control_reply(c, "err edict takes the text in hex, at most %d "
		    "bytes", ALGO_EDICT_MAX);
		return;
	}
	memcpy(hex, req->argv[0].p, req->argv[0].n);
	hex[req->argv[0].n] = '\0';
	if (sodium_hex2bin(text, sizeof(text), hex, req->argv[0].n, NULL, &len,
	    NULL) != 0 || len * 2 != req->argv[0].n) {
		control_reply(c, "err edict: bad hex");
		return;
	}
	nd->made = 0;
	/* A node that may not lead publishes nothing (net_fit()). */
	rc = nd->lead.vetoed ? ALGO_ENOTLEADER :
	    core_cmd(nd, ALGO_CMD_EDICT, text, len);
	switch (rc) {
	case ALGO_OK:
		/* The step gave our edict out (edict_out()). */
		if (nd->made)
			control_reply(c, "ok seq=%llu token=%llu",
			    (unsigned long long)nd->made_seq,
			    (unsigned long long)nd->made_token);
		else
			control_reply(c, "ok");
		break;
	case ALGO_ENOTLEADER:
		control_reply(c, "err not leader leader=%s",
		    id_str(known_leader(nd, mono_now()), ldr, sizeof(ldr)));
		break;
	case ALGO_ENOTSUP:
		reply_no_edicts(c);
		break;
	default:
		control_reply(c, "err edict refused: 1 to %d printable bytes, and "
		    "small enough for the cluster's datagrams", ALGO_EDICT_MAX);
		break;
	}
}

void
cmd_follow_edicts(struct node *nd, struct control_client *c,
    const struct ctl_req *req)
{
	if (!(algo_flags(nd->opts->algo) & ALGO_F_EDICTS)) {
		reply_no_edicts(c);
		return;
	}
	control_reply(c, "ok");
	c->waiting = WAIT_EDICTS;
}

/*
 * task [wait]: the caller runs a guarded command, and stays connected
 * until it is dead.  "ok stop" tells it to stop it.  When it is answered
 * is lib/host/lead's decision: the daemon tells the caller the moment it
 * may start, and no one polls.
 */
void
cmd_task(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	struct lead_input in = { .type = LEAD_IN_TASK,
	    .slot = slot_of(nd, c), .wait = req->argc == 1 };

	if (req->argc == 1 && !ctl_str_eq(req->argv[0], "wait")) {
		control_reply(c, "err task takes no argument but wait");
		return;
	}
	c->waiting = WAIT_START;
	/* With its first answer (testament.c). */
	if (c->passfd == -1)
		c->passfd = testament_lock_fd(nd);
	lead_feed(nd, &in, mono_now());
}

void
cmd_killed(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	struct lead_input in = { .type = LEAD_IN_KILLED,
	    .slot = slot_of(nd, c) };

	if (req->argc == 1 && ctl_str_eq(req->argv[0], "deadline"))
		in.why = LEAD_WHY_DEADLINE;
	else if (req->argc == 1 && ctl_str_eq(req->argv[0], "grace"))
		in.why = LEAD_WHY_GRACE;
	else {
		control_reply(c, "err killed takes deadline or grace");
		return;
	}
	lead_feed(nd, &in, mono_now());
	control_reply(c, "ok");
}

/* Guarded commands that may still run: answered that they may start,
 * not SIGKILLed, still connected. */
int
tasks_running(const struct node *nd)
{
	return (int)nd->lead.n.running;
}

/* Guarded commands registered, not yet answered (--wait: not leading). */
int
tasks_waiting(const struct node *nd)
{
	return (int)nd->lead.n.waiting;
}

/* Running commands: stop (their clients wait on until they are gone). */
void
tasks_stop(struct node *nd, const char *why)
{
	struct lead_input in = { .type = LEAD_IN_STOP, .slot = -1,
	    .why = strcmp(why, "epoch") == 0 ? LEAD_WHY_EPOCH :
	    LEAD_WHY_LEAVING };

	lead_feed(nd, &in, mono_now());
}

/* The node is asked to leave (WHY): its commands stop first, so that the
 * lease is released only once they are dead (lib/host/lead). */
void
tasks_leave(struct node *nd, enum quit why)
{
	struct lead_input in = { .type = LEAD_IN_LEAVE, .slot = -1 };

	nd->leaving = why;
	lead_feed(nd, &in, mono_now());
}

/* Those waiting to start hear that the node leaves, not just a close. */
void
tasks_leaving(struct node *nd)
{
	struct lead_input in = { .type = LEAD_IN_BYE, .slot = -1 };

	lead_feed(nd, &in, mono_now());
}

/*
 * An edict the core delivered or refused (ALGO_EDICT), once, in the step
 * that did: to every follower now, so that none is skipped; a follower
 * that does not read is let go (control_reply()), never fed a gap.  Our
 * own edict is kept for the `edict' reply.
 */
void
edict_out(struct node *nd, const struct algo_edict *e)
{
	struct control_client *c;
	char hex[HEX_MAX];
	int i;

	if (e->from == nd->self->id && e->delivered) {
		nd->made = 1;
		nd->made_seq = e->seq;
		nd->made_token = e->token;
	}
	sodium_bin2hex(hex, sizeof(hex), (const unsigned char *)e->text,
	    e->len);
	for (i = 0; i < CONTROL_CLIENTS_MAX; i++) {
		c = &nd->control.clients[i];
		if (c->fd == -1 || c->waiting != WAIT_EDICTS || c->closing)
			continue;
		control_reply(c, "ok from=%u token=%llu seq=%llu delivered=%s "
		    "text=%s", e->from, (unsigned long long)e->token,
		    (unsigned long long)e->seq, e->delivered ? "yes" : "no", hex);
		control_flush(c);
	}
}
