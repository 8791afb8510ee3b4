/*
 * The daemon's commands for guarded commands and edicts (the clients
 * that use them are in client/):
 *
 *	lease		ok id=ID algo=lease leader=yes|no token=T until=NS
 *			    now=NS lease=NS renew=NS rtt=NS drift=PPB ldr=ID
 *			(ok id=ID algo=NAME leader=yes|no ldr=ID now=NS under the
 *			other algorithms); NS on this host's CLOCK_MONOTONIC,
 *			the clock --run-if-leader keeps its deadline on
 *	edict HEX	ok seq=N token=T, or err not leader leader=ID
 *	follow-edicts	ok, then one line per edict delivered or refused:
 *			ok from=ID token=T seq=N delivered=yes|no text=HEX
 *	task		as lease, then "ok stop" when the node is asked to leave;
 *			the caller runs a guarded command and keeps the
 *			connection open until the command is dead, and the
 *			node releases its lease only after (node.c, leave())
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
#include "algo/lease.h"
#include "util/util.h"

#define HEX_MAX		(2 * LEASE_TEXT_MAX + 1)

/* Who leads, as far as this node knows: itself, its grantee, or the
 * grantee of the last node that refused it (Nerio, 10.4). */
static unsigned
known_leader(const struct node *nd, algo_time now)
{
	struct algo_status st;
	struct lease_info li;

	algo_query(nd->algo, now, &st);
	if (st.state.ldr != 0)
		return st.state.ldr;
	if (lease_info(nd->algo, now, &li) == 0)
		return li.hint;
	return 0;
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
	struct lease_info li;
	algo_time now = mono_now();
	char ldr[8];

	algo_query(nd->algo, now, &st);
	id_str(known_leader(nd, now), ldr, sizeof(ldr));
	if (lease_info(nd->algo, now, &li) == -1) {
		control_reply(c, "ok id=%u algo=%s leader=%s ldr=%s now=%lld",
		    nd->self->id, algo_name(nd->opts->algo),
		    st.leader ? "yes" : "no", ldr, (long long)now);
		return;
	}
	control_reply(c, "ok id=%u algo=lease leader=%s token=%llu until=%lld "
	    "now=%lld lease=%lld renew=%lld rtt=%lld drift=%lld ldr=%s",
	    nd->self->id, st.leader ? "yes" : "no", (unsigned long long)li.token,
	    (long long)li.until, (long long)now, (long long)t->lease,
	    (long long)t->renew, (long long)t->rtt, (long long)t->drift, ldr);
}

void
cmd_edict(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	struct lease_edict e;
	uint8_t text[LEASE_TEXT_MAX];
	char hex[HEX_MAX], ldr[8];
	size_t len;
	int rc;

	if (req->argc != 1 || req->argv[0].n >= sizeof(hex)) {
		control_reply(c, "err edict takes the text in hex, at most %d "
		    "bytes", LEASE_TEXT_MAX);
		return;
	}
	memcpy(hex, req->argv[0].p, req->argv[0].n);
	hex[req->argv[0].n] = '\0';
	if (sodium_hex2bin(text, sizeof(text), hex, req->argv[0].n, NULL, &len,
	    NULL) != 0 || len * 2 != req->argv[0].n) {
		control_reply(c, "err edict: bad hex");
		return;
	}
	switch (rc = core_cmd(nd, ALGO_CMD_EDICT, text, len)) {
	case ALGO_OK:
		if (lease_edict(nd->algo, lease_edicts(nd->algo) - 1, &e) == 0)
			control_reply(c, "ok seq=%llu token=%llu",
			    (unsigned long long)e.seq,
			    (unsigned long long)e.token);
		else
			control_reply(c, "ok");
		break;
	case ALGO_ENOTLEADER:
		control_reply(c, "err not leader leader=%s",
		    id_str(known_leader(nd, mono_now()), ldr, sizeof(ldr)));
		break;
	case ALGO_ENOTSUP:
		control_reply(c, "err edicts need -a lease");
		break;
	default:
		control_reply(c, "err edict refused: 1 to %d printable bytes, and "
		    "small enough for the cluster's datagrams", LEASE_TEXT_MAX);
		break;
	}
}

void
cmd_follow_edicts(struct node *nd, struct control_client *c,
    const struct ctl_req *req)
{
	if (nd->algo == NULL || algo_ops(nd->algo) != &algo_lease) {
		control_reply(c, "err edicts need -a lease");
		return;
	}
	control_reply(c, "ok");
	c->waiting = WAIT_EDICTS;
	c->edicts = lease_edicts(nd->algo);
}

/*
 * task [wait]: the caller runs a guarded command, and stays connected
 * until it is dead.  "ok stop" tells it to stop it.  The answer waits
 * while this node leads without its token yet (a round trip away), and
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
	task_wake(nd, c, mono_now());
}

int
task_wake(struct node *nd, struct control_client *c, algo_time now)
{
	struct algo_status st;
	struct lease_info li;

	if (nd->leaving) {
		control_reply(c, "err leaving");
		c->waiting = WAIT_NONE;
		c->closing = 1;
		return 1;
	}
	algo_query(nd->algo, now, &st);
	if (st.leader && lease_info(nd->algo, now, &li) == 0 && li.token == 0)
		return 0;
	if (!st.leader && c->taskwait)
		return 0;
	reply_lease(nd, c);
	c->waiting = WAIT_TASK;
	return 1;
}

static int
clients_in(const struct node *nd, int waiting)
{
	int i, n = 0;

	for (i = 0; i < CONTROL_CLIENTS_MAX; i++)
		n += nd->control.clients[i].fd != -1 &&
		    nd->control.clients[i].waiting == waiting;
	return n;
}

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
tasks_stop(struct node *nd)
{
	tasks_tell(nd, WAIT_TASK, "ok stop", WAIT_TASK);
}

/* Those waiting to start hear that the node leaves, not just a close. */
void
tasks_leaving(struct node *nd)
{
	tasks_tell(nd, WAIT_START, "err leaving", WAIT_NONE);
}

void
edicts_publish(struct node *nd)
{
	struct control_client *c;
	struct lease_edict e;
	char hex[HEX_MAX];
	uint64_t n;
	int i;

	if (nd->algo == NULL || (n = lease_edicts(nd->algo)) == 0)
		return;
	for (i = 0; i < CONTROL_CLIENTS_MAX; i++) {
		c = &nd->control.clients[i];
		if (c->fd == -1 || c->waiting != WAIT_EDICTS)
			continue;
		for (; c->edicts < n && !c->closing; c->edicts++) {
			if (lease_edict(nd->algo, c->edicts, &e) == -1) {
				control_reply(c, "ok lost=1");
				continue;
			}
			sodium_bin2hex(hex, sizeof(hex),
			    (const unsigned char *)e.text, e.len);
			control_reply(c, "ok from=%u token=%llu seq=%llu "
			    "delivered=%s text=%s", e.from,
			    (unsigned long long)e.token,
			    (unsigned long long)e.seq, e.delivered ? "yes" : "no",
			    hex);
		}
		control_flush(c);
	}
}
