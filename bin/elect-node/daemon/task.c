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
 *			node releases its lease only after (node.c, leave())
 *	killed WHY	on that connection: the command's group was sent
 *			SIGKILL, at its deadline or past its grace, and runs
 *			no more: the node need not wait for its end; ok
 *
 * Edict texts travel hex-encoded, as one argument of a control line.
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

	node_query(nd, now, &st);
	return st.state.ldr != 0 ? st.state.ldr : st.hint;
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

static void	reply_lease(struct node *, struct control_client *);

void
cmd_lease(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	reply_lease(nd, c);
}

static void
reply_lease(struct node *nd, struct control_client *c)
{
	const struct algo_timing *t = &nd->opts->timing.a;
	struct algo_status st;
	algo_time now = mono_now();
	char ldr[8];

	node_query(nd, now, &st);
	id_str(known_leader(nd, now), ldr, sizeof(ldr));
	if (!(algo_flags(nd->opts->algo) & ALGO_F_DEADLINE)) {
		control_reply(c, "ok id=%u algo=%s leader=%s ldr=%s now=%lld",
		    nd->self->id, algo_name(nd->opts->algo),
		    st.leader ? "yes" : "no", ldr, (long long)now);
		return;
	}
	control_reply(c, "ok id=%u algo=%s leader=%s token=%llu until=%lld "
	    "now=%lld lease=%lld renew=%lld rtt=%lld drift=%lld ldr=%s",
	    nd->self->id, algo_name(nd->opts->algo), st.leader ? "yes" : "no",
	    (unsigned long long)st.token, (long long)st.until, (long long)now,
	    (long long)t->lease,
	    (long long)t->renew, (long long)t->rtt, (long long)t->drift, ldr);
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
	rc = nd->fit.vetoed ? ALGO_ENOTLEADER :
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
 * until it is dead.  "ok stop" tells it to stop it.  The answer waits
 * while this node leads without its token yet (a round trip away: it
 * leads until a deadline, but is not leader yet), and
 * with `wait' until it leads: the daemon tells the caller the moment it
 * may start, and no one polls.
 */
void
cmd_task(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	if (req->argc == 1 && !ctl_str_eq(req->argv[0], "wait")) {
		control_reply(c, "err task takes no argument but wait");
		return;
	}
	c->waiting = WAIT_START;
	c->taskwait = req->argc == 1;
	/* With its first answer (testament.c). */
	if (c->passfd == -1)
		c->passfd = testament_lock_fd(nd);
	task_wake(nd, c, mono_now());
}

void
cmd_killed(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	const char *why = NULL;

	if (req->argc == 1 && ctl_str_eq(req->argv[0], "deadline"))
		why = "deadline";
	else if (req->argc == 1 && ctl_str_eq(req->argv[0], "grace"))
		why = "grace";
	if (why == NULL) {
		control_reply(c, "err killed takes deadline or grace");
		return;
	}
	if (c->started) {
		nd->metrics.tasks_killed++;
		log_warnx("task-killed node=%u why=%s", nd->self->id, why);
	}
	/* Said once the SIGKILL is sent: the group runs no more, however
	 * long its reaping takes, so a leaving node need not wait for it. */
	c->killed = 1;
	control_reply(c, "ok");
}

int
task_wake(struct node *nd, struct control_client *c, algo_time now)
{
	struct algo_status st;

	if (nd->leaving) {
		control_reply(c, "err leaving");
		c->waiting = WAIT_NONE;
		c->closing = 1;
		return 1;
	}
	/* The core of an epoch that ends: its commands stop before it
	 * wedges (and resigns), and none starts meanwhile. */
	if (reconf_ending(nd))
		return 0;
	node_query(nd, now, &st);
	if (!st.leader && st.until > now)
		return 0;
	if (!st.leader && c->taskwait)
		return 0;
	reply_lease(nd, c);
	c->waiting = WAIT_TASK;
	if ((c->started = st.leader))
		nd->metrics.tasks_started++;
	return 1;
}

/* Clients in state WAITING, but for guarded commands already SIGKILLed
 * (they run no more) and those told they may not start (not the
 * leader: they exit without running anything). */
static int
clients_in(const struct node *nd, int waiting)
{
	const struct control_client *c;
	int i, n = 0;

	for (i = 0; i < CONTROL_CLIENTS_MAX; i++) {
		c = &nd->control.clients[i];
		n += c->fd != -1 && c->waiting == waiting && !c->killed &&
		    (waiting != WAIT_TASK || c->started);
	}
	return n;
}

/* Guarded commands that may still run: registered, not SIGKILLed. */
int
tasks_running(const struct node *nd)
{
	return clients_in(nd, WAIT_TASK);
}

/* Guarded commands registered, not yet started (--wait: not leading). */
int
tasks_waiting(const struct node *nd)
{
	return clients_in(nd, WAIT_START);
}

/* Tells every client in state WAITING the line LINE; NEXT is its state
 * after. */
static void
tasks_tell(struct node *nd, int waiting, const char *line, int next)
{
	struct control_client *c;
	int i;

	for (i = 0; i < CONTROL_CLIENTS_MAX; i++) {
		c = &nd->control.clients[i];
		if (c->fd != -1 && c->waiting == waiting) {
			control_reply(c, "%s", line);
			c->waiting = next;
			control_flush(c);
		}
	}
}

/* Running commands: stop (their clients wait on until they are gone). */
void
tasks_stop(struct node *nd, const char *why)
{
	log_info("task-stop node=%u why=%s tasks=%d", nd->self->id, why,
	    tasks_running(nd));
	nd->metrics.tasks_told_stop += (uint64_t)tasks_running(nd);
	tasks_tell(nd, WAIT_TASK, "ok stop", WAIT_TASK);
}

/* Those waiting to start hear that the node leaves, not just a close. */
void
tasks_leaving(struct node *nd)
{
	tasks_tell(nd, WAIT_START, "err leaving", WAIT_NONE);
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
