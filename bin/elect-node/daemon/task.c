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
 * `lease' and `task' take name=NAME last, for a named leadership (lib/
 * host/named): its reply is a lease's, with name=NAME at its end.
 *
 * Edict texts travel hex-encoded, as one argument of a control line.
 * When a `task' is answered, what a `lease' says and when commands are
 * told to stop are lib/host/lead's decisions, which elect-sim runs too;
 * this file carries them out.
 */
#include <assert.h>
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

/* The registrations of the default leadership (NL NULL) or of name NL's
 * here, by their slots in its lead. */
static struct control_client **
regs_of(struct node *nd, struct nlead *nl)
{
	return nl != NULL ? nl->by : nd->lead_by;
}

static void
reply_lease(struct node *nd, struct control_client *c,
    const struct lead_reply *r, const struct nlead *nl)
{
	char ldr[8];

	id_str(r->ldr, ldr, sizeof(ldr));
	if (!r->g.lease) {
		control_reply(c, "ok id=%u algo=%s leader=%s ldr=%s now=%lld",
		    r->g.id, algo_name(nd->opts->algo),
		    r->g.leader ? "yes" : "no", ldr, (long long)r->now);
		return;
	}
	/* A named leadership is a lease whatever the default's algorithm
	 * (lib/host/named). */
	control_reply(c, "ok id=%u algo=%s leader=%s token=%llu until=%lld "
	    "now=%lld lease=%lld renew=%lld rtt=%lld drift=%lld ldr=%s%s%s",
	    r->g.id, nl != NULL ? "lease" : algo_name(nd->opts->algo),
	    r->g.leader ? "yes" : "no",
	    (unsigned long long)r->g.token, (long long)r->g.until,
	    (long long)r->now, (long long)r->g.tlease, (long long)r->g.renew,
	    (long long)r->g.rtt, (long long)r->g.drift, ldr,
	    nl != NULL ? " name=" : "", nl != NULL ? nl->name : "");
}

/* Whether every leadership's commands let the node leave: the default
 * one's and every name's registered here. */
static int
all_left(const struct node *nd)
{
	size_t k;

	if (!nd->lead.left)
		return 0;
	for (k = 0; k < nd->names.nlead; k++)
		if (nd->names.lead[k] != NULL && !nd->names.lead[k]->lead.left)
			return 0;
	return 1;
}

/* Carries out what lib/host/lead decided for the default leadership (NL
 * NULL) or name NL's, in order; a lease's reply goes to ASKER. */
static void
lead_run(struct node *nd, struct nlead *nl, const struct lead_out *o,
    struct control_client *asker)
{
	struct control_client **by = regs_of(nd, nl);
	const struct lead_action *a;
	struct control_client *c;
	const char *nk = nl != NULL ? " name=" : "";
	const char *nv = nl != NULL ? nl->name : "";
	size_t i;

	for (i = 0; i < o->n; i++) {
		a = &o->v[i];
		c = a->type == LEAD_REPLY ? asker : a->slot >= 0 &&
		    a->slot < LEAD_SLOTS ? by[a->slot] : NULL;
		assert(c != NULL || a->type == LEAD_STOPPING ||
		    a->type == LEAD_KILLED || a->type == LEAD_LEAVE);
		switch (a->type) {
		case LEAD_REPLY:
			reply_lease(nd, c, &a->r, nl);
			break;
		case LEAD_ANSWER:
			reply_lease(nd, c, &a->r, nl);
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
			log_info("task-stop node=%u why=%s tasks=%u%s%s",
			    nd->self->id, lead_why_name(a->why), a->count,
			    nk, nv);
			break;
		case LEAD_STOP:
			control_reply(c, "ok stop");
			control_flush(c);
			break;
		case LEAD_KILLED:
			log_warnx("task-killed node=%u why=%s%s%s",
			    nd->self->id, lead_why_name(a->why), nk, nv);
			break;
		case LEAD_LEAVE:
			if (a->why == LEAD_WHY_DEADLINE)
				log_warnx("task-stop-late node=%u tasks=%u%s%s: "
				    "leaving without releasing the lease",
				    nd->self->id, a->count, nk, nv);
			nd->norelease |= a->why != LEAD_WHY_NONE;
			if (all_left(nd))
				nd->quit = nd->leaving;
			break;
		}
	}
	mx_lead(nd);
}

/* Input IN of the default leadership's lib/host/lead (NL NULL) or name
 * NL's at NOW, with the leadership's status then, and its actions
 * carried out (a lease's reply to ASKER): when it is due again (ns from
 * NOW), or -1. */
static void	nlead_free(struct node *, struct nlead *);

static algo_time
lead_ask(struct node *nd, struct nlead *nl, struct lead_input *in,
    algo_time now, struct control_client *asker)
{
	struct lead *l = nl != NULL ? &nl->lead : &nd->lead;
	unsigned r0 = l->n.running, w0 = l->n.waiting;
	struct lead_out o;

	in->now = now;
	if (nl == NULL)
		algo_query(nd->algo, now, &in->st);
	else
		named_status(nd, nl->name, nl->len, now, &in->st);
	in->ending = reconf_ending(nd);
	lead_step(l, in, &o);
	/* A lease's reply (cmd_lease()'s lead of the moment too) changes
	 * no count. */
	if (nl != NULL) {
		nd->names.running += l->n.running - r0;
		nd->names.waiting += l->n.waiting - w0;
	}
	/* A registration that ends in its actions frees NL only after. */
	if (nl != NULL)
		nl->busy++;
	lead_run(nd, nl, &o, asker);
	/* A name's commands in the log as the default one's (events.c). */
	if (nl != NULL && l->n.running > nl->logged)
		log_info("task-start node=%u token=%llu tasks=%u name=%s",
		    nd->self->id, (unsigned long long)in->st.token,
		    l->n.running, nl->name);
	else if (nl != NULL && l->n.running < nl->logged)
		log_info("task-end node=%u tasks=%u name=%s", nd->self->id,
		    l->n.running, nl->name);
	if (nl != NULL) {
		nl->logged = l->n.running;
		nl->due = o.wake;
		if (o.wake != -1 && (nd->names.due == -1 ||
		    o.wake < nd->names.due))
			nd->names.due = o.wake;
	}
	if (nl != NULL && --nl->busy == 0 && nl->dead)
		nlead_free(nd, nl);
	return o.wake == -1 ? -1 : o.wake > now ? o.wake - now : 0;
}

static algo_time
lead_feed(struct node *nd, struct nlead *nl, struct lead_input *in,
    algo_time now)
{
	return lead_ask(nd, nl, in, now, NULL);
}

static algo_time
earliest(algo_time a, algo_time b)
{
	return a == -1 ? b : b == -1 || a < b ? a : b;
}

/* IN to every leadership's lead, the default one's first. */
static algo_time
lead_feed_all(struct node *nd, const struct lead_input *in, algo_time now)
{
	struct lead_input one = *in;
	struct nlead *nl;
	algo_time next;
	size_t k;

	next = lead_feed(nd, NULL, &one, now);
	/* A lead's actions may free another's (a registration that ends):
	 * the slot is looked at again each time.  Time alone moves a name's
	 * lead only at its wake, its name's news comes as task_named():
	 * with a thousand names the loop's every turn would otherwise step
	 * them all, or look at them all. */
	if (in->type == LEAD_IN_TICK && (nd->names.due == -1 ||
	    nd->names.due > now))
		return earliest(next, nd->names.due == -1 ? -1 :
		    nd->names.due - now);
	nd->names.due = -1;
	for (k = 0; k < nd->names.nlead; k++) {
		nl = nd->names.lead[k];
		if (nl == NULL)
			continue;
		if (in->type == LEAD_IN_TICK && (nl->due == -1 ||
		    nl->due > now)) {
			if (nl->due != -1) {
				next = earliest(next, nl->due - now);
				nd->names.due = earliest(nd->names.due,
				    nl->due);
			}
			continue;
		}
		one = *in;
		next = earliest(next, lead_feed(nd, nl, &one, now));
	}
	return next;
}

static struct nlead *
nlead_find(struct node *nd, const char *name, size_t len)
{
	struct nlead *nl;
	size_t k;

	for (k = 0; k < nd->names.nlead; k++) {
		nl = nd->names.lead[k];
		if (nl != NULL && nl->len == len && memcmp(nl->name, name,
		    len) == 0)
			return nl;
	}
	return NULL;
}

static void
nlead_conf(const struct node *nd, struct lead_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->self = nd->self->id;
	c->deadline = 1;
	c->timing = nd->opts->timing.a;
	c->slots = LEAD_SLOTS;
	/* A name's bid, at the most (lib/host/named: two leases, and a
	 * round trip per node as the less preferred wait their turn). */
	c->try_for = 2 * c->timing.lease +
	    2 * c->timing.rtt * (algo_time)nd->cluster.n;
}

/* Name's lead, made for its first registration here: fit's verdict as
 * the default one's; NULL if out of memory. */
static struct nlead *
nlead_get(struct node *nd, const char *name, size_t len)
{
	struct lead_input in = { .type = LEAD_IN_VERDICT, .slot = -1 };
	struct lead_conf c;
	struct nlead *nl, **p;
	size_t k, n;

	if ((nl = nlead_find(nd, name, len)) != NULL)
		return nl;
	for (k = 0; k < nd->names.nlead && nd->names.lead[k] != NULL; k++)
		;
	if (k == nd->names.nlead) {
		n = k == 0 ? 16 : 2 * k;
		if ((p = reallocarray(nd->names.lead, n, sizeof(*p))) == NULL)
			return NULL;
		memset(p + k, 0, (n - k) * sizeof(*p));
		nd->names.lead = p;
		nd->names.nlead = n;
	}
	if ((nl = calloc(1, sizeof(*nl))) == NULL)
		return NULL;
	nd->names.lead[k] = nl;
	nlead_conf(nd, &c);
	lead_init(&nl->lead, &c);
	memcpy(nl->name, name, len);
	nl->name[len] = '\0';
	nl->len = len;
	in.vetoed = nd->lead.vetoed;
	in.live = nd->lead.n.mismatch;
	lead_feed(nd, nl, &in, mono_now());
	return nl;
}

/* Name NL's lead, once no registration is left and none of its actions
 * is being carried out. */
static void
nlead_free(struct node *nd, struct nlead *nl)
{
	size_t k;

	for (k = 0; k < LEAD_SLOTS; k++)
		if (nl->by[k] != NULL)
			return;
	if (nl->busy > 0) {
		nl->dead = 1;
		return;
	}
	for (k = 0; k < nd->names.nlead && nd->names.lead[k] != nl; k++)
		;
	assert(k < nd->names.nlead);
	nd->names.lead[k] = NULL;
	free(nl);
}

/* Client C's end: its registration ended, its name released here, and
 * the name's lead let go once no registration is left. */
static void
lead_gone(void *arg, struct control_client *c)
{
	struct lead_input in = { .type = LEAD_IN_GONE, .slot = c->lslot };
	struct node *nd = arg;
	struct nlead *nl = c->nl;

	if (c->lslot < 0)
		return;
	lead_feed(nd, nl, &in, mono_now());
	regs_of(nd, nl)[c->lslot] = NULL;
	c->lslot = -1;
	c->nl = NULL;
	if (nl == NULL)
		return;
	named_release(nd, nl->name, nl->len);
	nlead_free(nd, nl);
	if (nd->leaving && !nd->quit && all_left(nd))
		nd->quit = nd->leaving;
}

void
task_open(struct node *nd)
{
	const struct lead_conf c = {
		.self = nd->self->id,
		.deadline = (algo_flags(nd->opts->algo) & ALGO_F_DEADLINE) != 0,
		.timing = nd->opts->timing.a,
		.slots = LEAD_SLOTS,
	};

	_Static_assert(CONTROL_WAITERS_MAX <= LEAD_SLOTS,
	    "a registration per waiting client");
	lead_init(&nd->lead, &c);
	nd->control.gone = lead_gone;
	nd->control.gone_arg = nd;
}

algo_time
task_tick(struct node *nd, algo_time now)
{
	struct lead_input in = { .type = LEAD_IN_TICK, .slot = -1 };

	return lead_feed_all(nd, &in, now);
}

/* Name's status changed (lib/host/named): its commands' decisions
 * again. */
void
task_named(struct node *nd, const char *name, size_t len)
{
	struct lead_input in = { .type = LEAD_IN_TICK, .slot = -1 };
	struct nlead *nl;

	if ((nl = nlead_find(nd, name, len)) != NULL) {
		lead_feed(nd, nl, &in, mono_now());
	}
}

void
task_verdict(struct node *nd, int changed)
{
	struct lead_input in = { .type = LEAD_IN_VERDICT, .slot = -1,
	    .vetoed = nd->net.fit.vetoed, .live = nd->net.fit.live,
	    .changed = changed };

	lead_feed_all(nd, &in, mono_now());
}

/* ARG as name=NAME into NAME (HNAMES_LEN + 1 bytes) and *LEN: 1; 0 when
 * ARG is no name=; -1 for a bad name, answered. */
int
cmd_arg_name(struct control_client *c, struct ctl_str arg, char *name,
    size_t *len)
{
	char why[HNAMES_WHY_MAX];

	if (arg.n < 5 || memcmp(arg.p, "name=", 5) != 0)
		return 0;
	if (hnames_check(arg.p + 5, arg.n - 5, why, sizeof(why)) == -1) {
		control_reply(c, "err bad name: %s", why);
		return -1;
	}
	memcpy(name, arg.p + 5, arg.n - 5);
	name[arg.n - 5] = '\0';
	*len = arg.n - 5;
	return 1;
}

/*
 * lease [name=NAME]: the default leadership's, or name's: by its lead
 * here, or as one without registrations would answer.
 */
void
cmd_lease(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	struct lead_input in = { .type = LEAD_IN_LEASE, .slot = -1 };
	struct nlead *nl, one;
	struct lead_conf lc;
	char name[HNAMES_LEN + 1];
	size_t len;
	int rc;

	if (req->argc == 0) {
		lead_ask(nd, NULL, &in, mono_now(), c);
		return;
	}
	if ((rc = cmd_arg_name(c, req->argv[0], name, &len)) <= 0) {
		if (rc == 0)
			control_reply(c, "err lease takes no argument but "
			    "name=NAME");
		return;
	}
	if ((nl = nlead_find(nd, name, len)) == NULL) {
		memset(&one, 0, sizeof(one));
		nlead_conf(nd, &lc);
		lead_init(&one.lead, &lc);
		one.lead.vetoed = nd->lead.vetoed;
		memcpy(one.name, name, len + 1);
		one.len = len;
		nl = &one;
	}
	lead_ask(nd, nl, &in, mono_now(), c);
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
 * task [wait] [name=NAME]: the caller runs a guarded command, and stays
 * connected until it is dead.  "ok stop" tells it to stop it.  When it
 * is answered is lib/host/lead's decision, of the default leadership or
 * of name's: the daemon tells the caller the moment it may start, and
 * no one polls.
 */
void
cmd_task(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	struct lead_input in = { .type = LEAD_IN_TASK, .slot = -1 };
	struct control_client **by;
	struct nlead *nl = NULL;
	char name[HNAMES_LEN + 1];
	size_t len = 0;
	int i = 0, rc = 0;

	if (i < req->argc && ctl_str_eq(req->argv[i], "wait")) {
		in.wait = 1;
		i++;
	}
	if (i < req->argc && (rc = cmd_arg_name(c, req->argv[i], name,
	    &len)) == 1)
		i++;
	if (rc == -1)
		return;
	if (i < req->argc) {
		control_reply(c, "err task takes no argument but wait and "
		    "name=NAME");
		return;
	}
	if (rc == 1) {
		/* A name's first registration on a node that leaves would
		 * start what is to stop. */
		if (nd->leaving) {
			control_reply(c, "err leaving");
			c->closing = 1;
			return;
		}
		if (named_register(nd, name, len) == -1) {
			control_reply(c, "err name %s refused: %s", name,
			    nd->names.refused);
			return;
		}
		if ((nl = nlead_get(nd, name, len)) == NULL) {
			named_release(nd, name, len);
			control_reply(c, "err name %s refused: out of memory",
			    name);
			return;
		}
	}
	by = regs_of(nd, nl);
	for (in.slot = 0; in.slot < LEAD_SLOTS && by[in.slot] != NULL;
	    in.slot++)
		;
	if (in.slot == LEAD_SLOTS) {
		if (nl != NULL) {
			named_release(nd, name, len);
			nlead_free(nd, nl);
		}
		control_reply(c, "err busy (%d registrations here)",
		    LEAD_SLOTS);
		return;
	}
	by[in.slot] = c;
	c->nl = nl;
	c->lslot = in.slot;
	c->waiting = WAIT_START;
	/* With its first answer (testament.c). */
	if (c->passfd == -1)
		c->passfd = testament_lock_fd(nd);
	lead_feed(nd, nl, &in, mono_now());
}

void
cmd_killed(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	struct lead_input in = { .type = LEAD_IN_KILLED, .slot = c->lslot };

	if (req->argc == 1 && ctl_str_eq(req->argv[0], "deadline"))
		in.why = LEAD_WHY_DEADLINE;
	else if (req->argc == 1 && ctl_str_eq(req->argv[0], "grace"))
		in.why = LEAD_WHY_GRACE;
	else {
		control_reply(c, "err killed takes deadline or grace");
		return;
	}
	lead_feed(nd, c->nl, &in, mono_now());
	control_reply(c, "ok");
}

/* Every leadership's guarded commands: running (answered that they may
 * start, not SIGKILLed, still connected) and waiting (registered, not
 * yet answered). */
static void
counts(const struct node *nd, unsigned *running, unsigned *waiting)
{
	*running = nd->lead.n.running + nd->names.running;
	*waiting = nd->lead.n.waiting + nd->names.waiting;
}

int
tasks_running(const struct node *nd)
{
	unsigned r, w;

	counts(nd, &r, &w);
	return (int)r;
}

int
tasks_waiting(const struct node *nd)
{
	unsigned r, w;

	counts(nd, &r, &w);
	return (int)w;
}

/* Running commands: stop (their clients wait on until they are gone). */
void
tasks_stop(struct node *nd, const char *why)
{
	struct lead_input in = { .type = LEAD_IN_STOP, .slot = -1,
	    .why = strcmp(why, "epoch") == 0 ? LEAD_WHY_EPOCH :
	    LEAD_WHY_LEAVING };

	lead_feed_all(nd, &in, mono_now());
}

/* The node is asked to leave (WHY): its commands stop first, so that the
 * leases are released only once they are dead (lib/host/lead). */
void
tasks_leave(struct node *nd, enum quit why)
{
	struct lead_input in = { .type = LEAD_IN_LEAVE, .slot = -1 };

	nd->leaving = why;
	lead_feed_all(nd, &in, mono_now());
}

/* Those waiting to start hear that the node leaves, not just a close. */
void
tasks_leaving(struct node *nd)
{
	struct lead_input in = { .type = LEAD_IN_BYE, .slot = -1 };

	lead_feed_all(nd, &in, mono_now());
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
	for (i = 0; i < nd->control.nclients; i++) {
		c = nd->control.clients[i];
		if (c == NULL || c->waiting != WAIT_EDICTS || c->closing)
			continue;
		control_reply(c, "ok from=%u token=%llu seq=%llu delivered=%s "
		    "text=%s", e->from, (unsigned long long)e->token,
		    (unsigned long long)e->seq, e->delivered ? "yes" : "no", hex);
		control_flush(c);
	}
}
