/*
 * This host's part of an epoch change (Nerio 10.6; share/elect/lease.md,
 * elect-node's part), as lib/host/epoch decides it: this file feeds it
 * the change learned (the operator's request, a CHANGE, the state
 * directory at start), the messages of the change, the core's status
 * and the time, and carries its actions out: the change written to the
 * state directory (EPOCH_CHANGE_FILE) before anything else, the messages
 * sent, the guarded commands stopped, the core wedged, told that E ended,
 * or swapped for a fresh core of E+1 in a new incarnation with its
 * detector restarted, the net tables' memberships changed.
 */
#include <sys/wait.h>

#include <assert.h>
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "daemon.h"
#include "host/epoch.h"
#include "net/session.h"
#include "store/store.h"
#include "util/util.h"

#define STAGE_MAX	CLUSTER_FILE_MAX
#define SPREAD_IDLE	TRACE_NS	/* the change, once a part is done */
#define SPREAD_RETRY	(2 * ALGO_MS)	/* asks to a peer not confirmed */
#define FD_TRIES	5		/* a swap's detector, if it fails */
#define FD_AGAIN	(100 * ALGO_MS)	/* at once, and after this */
#define TICKS_MAX	3		/* a wedge, a swap, the new core's asks */

static algo_time
period(const struct node *nd)
{
	return nd->opts->timing.a.renew > 0 ? nd->opts->timing.a.renew :
	    20 * ALGO_MS;
}

/* The core and the guarded commands now, as the change's core sees them. */
static void
status(const struct node *nd, struct hep_status *hs)
{
	struct algo_status st;

	memset(hs, 0, sizeof(*hs));
	hs->tasks = tasks_running(nd);
	if (nd->algo == NULL)
		return;
	algo_query(nd->algo, mono_now(), &st);
	hs->booted = 1;
	hs->wedged = st.wedged;
	hs->pending = st.pending;
}

const struct cluster *
reconf_other(const struct node *nd)
{
	return hep_other(&nd->rc.h);
}

void
reconf_stepped(struct node *nd)
{
	struct hep_status st;

	status(nd, &st);
	if (hep_stepped(&nd->rc.h, &st))
		net_peers(nd, 0);
}

int
reconf_ending(const struct node *nd)
{
	struct hep_status st;

	status(nd, &st);
	return hep_ending(&nd->rc.h, &st);
}

int
reconf_done(const struct node *nd)
{
	struct hep_status st;

	status(nd, &st);
	return hep_done(&nd->rc.h, &st);
}

void
reconf_free(struct node *nd)
{
	hep_free(&nd->rc.h);
	free(nd->rc.out);
	free(nd->rc.stage);
	memset(&nd->rc, 0, sizeof(nd->rc));
}

/* Resolves the addresses of C's two memberships: 0, or -1 with ERR. */
static int
resolve_change(struct epoch_change *c, char *why, size_t whylen)
{
	struct cluster n, p;

	if (cluster_copy(&n, &c->next) == -1 ||
	    cluster_copy(&p, &c->prev) == -1)
		err(1, NULL);
	if (cluster_resolve(&n, why, whylen) == -1) {
		cluster_free(&p);
		return -1;
	}
	if (cluster_resolve(&p, why, whylen) == -1) {
		cluster_free(&n);
		return -1;
	}
	cluster_free(&c->next);
	cluster_free(&c->prev);
	c->next = n;
	c->prev = p;
	return 0;
}

/* ---- carrying the actions out ---- */

/* Whether ID is not yet confirmed: what goes to it waits a retry. */
static int
unconfirmed(const struct node *nd, unsigned id)
{
	long i = hnet_index(&nd->net, id);

	return i != -1 && !nd->net.sess[i].confirmed;
}

/* The change in parts of EPOCH_PART_MAX to TO. */
static void
send_change(struct node *nd, unsigned to)
{
	struct epoch_msg m;
	size_t k;

	for (k = 0; hep_change_part(&nd->rc.h, k, &m); k++)
		if (!net_send_epoch(nd, to, &m))
			return;
}

/*
 * This host's core of E is wedged and it is a member of E+1: that core
 * ends, the record of E+1 is written, and a fresh core of E+1 boots in
 * a new incarnation, its detector restarted on its members.
 */
static void
swap(struct node *nd)
{
	struct reconf *r = &nd->rc;
	struct cluster next;

	node_trace(nd, "exit why=epoch");
	core_free(nd);
	nd->armed = 0;
	if (cluster_copy(&next, &r->h.chg.next) == -1)
		err(1, NULL);
	cluster_free(&nd->cluster);
	nd->cluster = next;
	nd->self = cluster_find(&nd->cluster, nd->opts->id);
	if (epoch_save(nd->dirfd, &nd->cluster) == -1) {
		log_warnx("%s/%s: %s", nd->opts->statedir, EPOCH_RECORD,
		    strerror(errno));
		nd->quit = QUIT_ERROR;
		return;
	}
	node_bump_incarnation(nd);
	net_conf(nd);
	net_peers(nd, 1);
	fdc_stop(&nd->fdc, FDC_STOP_MS);
	node_detector_start(nd);
	r->fd_tries = FD_TRIES;
	r->fd_since = mono_now();
	nd->fresh = 1;
	core_boot(nd);
	core_boot_line(nd);
	core_start(nd);
	named_swap(nd);
	log_info("epoch-moved node=%u epoch=%u inc=%llu", nd->self->id,
	    nd->cluster.epoch, (unsigned long long)nd->inc);
}

/* The actions of the change's core, in order: 0, or -1 when the host
 * stops (the state directory refused the change, or the swap failed). */
static int
carry_out(struct node *nd)
{
	struct reconf *r = &nd->rc;
	struct hep_out *o = r->out;
	const struct hep_action *a;
	struct hep_status st;
	char why[512];
	size_t k;
	int ok;

again:
	for (k = 0; k < o->n; k++) {
		a = &o->v[k];
		switch (a->type) {
		case HEP_SAVE:
			if (epoch_change_save(nd->dirfd, &r->h.chg) == -1) {
				log_warnx("%s/%s: %s", nd->opts->statedir,
				    EPOCH_CHANGE_FILE, strerror(errno));
				nd->quit = QUIT_ERROR;
				return -1;
			}
			break;
		case HEP_LOG:
			if (a->warn)
				log_warnx("%s", a->line);
			else
				log_info("%s", a->line);
			break;
		case HEP_PEERS:
			net_peers(nd, 0);
			break;
		case HEP_SEND:
			net_send_epoch(nd, a->peer, &a->msg);
			if (a->msg.type == WIRE_TYPE_WEDGE &&
			    unconfirmed(nd, a->peer)) {
				status(nd, &st);
				hep_retry(&r->h, &st, mono_now());
			}
			break;
		case HEP_SEND_CHANGE:
			send_change(nd, a->peer);
			break;
		case HEP_STOP_TASKS:
			tasks_stop(nd, "epoch");
			break;
		case HEP_WEDGE:
			core_cmd(nd, ALGO_CMD_WEDGE, NULL, 0);
			named_wedge(nd);
			break;
		case HEP_SWAP:
			swap(nd);
			if (nd->quit)
				return -1;
			break;
		case HEP_TERMINATED:
			core_cmd(nd, ALGO_CMD_TERMINATED, NULL, 0);
			break;
		case HEP_DROP:
			net_drop(nd, a->peer, a->why);
			break;
		case HEP_RESOLVE:
			/* The last of its input's actions. */
			assert(k + 1 == o->n);
			ok = resolve_change(hep_incoming(&r->h), why,
			    sizeof(why)) == 0;
			status(nd, &st);
			hep_resolved(&r->h, a->peer, ok, &st, mono_now(), o);
			goto again;
		}
	}
	return 0;
}

/* C, learned from the operator or the state directory, held: 0, or -1
 * when it is not this host's business or the host stops. */
static int
hold(struct node *nd, struct epoch_change *c)
{
	struct hep_status st;

	status(nd, &st);
	if (hep_hold(&nd->rc.h, &nd->cluster, c, &st, mono_now(),
	    nd->rc.out) == -1)
		return -1;
	return carry_out(nd);
}

/* ---- start: which epoch, from the file and the state directory ---- */

static void
take_cluster(struct node *nd, struct cluster *c)
{
	memset(&nd->cluster, 0, sizeof(nd->cluster));
	nd->cluster = *c;
	memset(c, 0, sizeof(*c));
}

void
reconf_setup(struct node *nd, struct cluster *file)
{
	const struct node_opts *o = nd->opts;
	struct hep_conf hc = {
		.self = o->id, .period = period(nd), .idle = SPREAD_IDLE,
		.retry = SPREAD_RETRY, .text_max = CLUSTER_FILE_MAX,
		.stop_wait = 2 * o->timing.a.lease + TRACE_NS,
	};
	struct cluster rec;
	struct epoch_change c, saved;
	enum epoch_plan plan;
	char why[512], savedname[PATH_MAX];
	int rc, src, resume;

	if (hep_init(&nd->rc.h, &hc) == -1 ||
	    (nd->rc.out = malloc(sizeof(*nd->rc.out))) == NULL)
		err(1, NULL);
	memset(&nd->cluster, 0, sizeof(nd->cluster));
	if ((rc = epoch_load(nd->dirfd, o->statedir, &rec, why,
	    sizeof(why))) == -1)
		errx(EXIT_USAGE, "%s", why);
	if ((src = epoch_change_load(nd->dirfd, &saved, why,
	    sizeof(why))) == -1)
		errx(EXIT_USAGE, "%s/%s", o->statedir, why);
	snprintf(savedname, sizeof(savedname), "%s/%s", o->statedir,
	    EPOCH_CHANGE_FILE);
	if (hep_start(file, rc == 0 ? &rec : NULL, src == 0 ? &saved : NULL,
	    savedname, o->id, &plan, &c, &resume, why, sizeof(why)) == -1)
		errx(EXIT_USAGE, "%s", why);
	log_debug("epoch plan=%s file=%u record=%d", epoch_plan_name(plan),
	    file->epoch, rc == 0 ? (int)rec.epoch : -1);
	switch (plan) {
	case EPOCH_RUN:
		if (rc == 0 && !(file->epoch == 0 && rec.epoch == 0)) {
			if (cluster_resolve(&rec, why, sizeof(why)) == -1)
				errx(EXIT_USAGE, "%s", why);
			take_cluster(nd, &rec);
			cluster_free(file);
		} else {
			if (rc == 0)
				cluster_free(&rec);
			take_cluster(nd, file);
			if (epoch_save(nd->dirfd, &nd->cluster) == -1)
				err(EXIT_USAGE, "%s/%s", o->statedir,
				    EPOCH_RECORD);
		}
		break;
	case EPOCH_JOIN:
		if (rc == 0)
			cluster_free(&rec);
		take_cluster(nd, file);
		/* Written before the core's first boot: fresh (E7). */
		if (epoch_save(nd->dirfd, &nd->cluster) == -1)
			err(EXIT_USAGE, "%s/%s", o->statedir, EPOCH_RECORD);
		nd->fresh = 1;
		break;
	case EPOCH_CHANGE:
	case EPOCH_LEFT:
		/* The file names the next epoch: the change to it, from the
		 * record's, unless another was agreed to. */
		if (cluster_resolve(&rec, why, sizeof(why)) == -1)
			errx(EXIT_USAGE, "%s", why);
		take_cluster(nd, &rec);
		cluster_free(file);
		if (resume) {
			c = saved;
			src = 1;
			if (resolve_change(&c, why, sizeof(why)) == -1)
				errx(EXIT_USAGE, "%s/%s", o->statedir, why);
		} else if (cluster_resolve(&c.prev, why, sizeof(why)) == -1)
			errx(EXIT_USAGE, "%s", why);
		nd->self = cluster_find(&nd->cluster, o->id);
		hold(nd, &c);
		break;
	}
	nd->self = cluster_find(&nd->cluster, o->id);
	/* A change this host agreed to, resumed where the core stands. */
	if (src == 0 && nd->rc.h.held)
		epoch_change_free(&saved);
	else if (src == 0) {
		if (epoch_change_role(&nd->cluster, &saved) == -1 ||
		    resolve_change(&saved, why, sizeof(why)) == -1)
			epoch_change_free(&saved);
		else
			hold(nd, &saved);
	}
}

/* ---- the periodic part ---- */

int
reconf_detector_gone(struct node *nd, int status)
{
	struct reconf *r = &nd->rc;
	algo_time now = mono_now();

	if (r->fd_tries == 0 || now - r->fd_since > 2 * TRACE_NS ||
	    !WIFEXITED(status) || WEXITSTATUS(status) == 0)
		return 0;
	r->fd_tries--;
	r->fd_again = now + FD_AGAIN;
	log_warnx("%s exited with status %d after the epoch change; "
	    "starting it again", nd->opts->fd_cmd, WEXITSTATUS(status));
	return 1;
}

algo_time
reconf_tick(struct node *nd, algo_time now)
{
	struct reconf *r = &nd->rc;
	struct hep_status st;
	algo_time next = -1;
	size_t i;
	int t;

	if (r->fd_again != 0 && now >= r->fd_again && !nd->quit) {
		r->fd_again = 0;
		r->fd_since = now;
		node_detector_start(nd);
		for (i = 0; i < nd->net.peers.n; i++) {
			char line[32];

			if (!nd->net.p[i].monitored)
				continue;
			snprintf(line, sizeof(line), "start %u",
			    nd->net.peers.nodes[i].id);
			if (fdc_send(&nd->fdc, line) == -1)
				node_detector_failed(nd);
		}
	}
	if (!r->h.held || nd->quit)
		return r->fd_again != 0 ? r->fd_again - now : -1;
	/* Again at once after a wedge or a swap: the core changed. */
	for (t = 0; t < TICKS_MAX; t++) {
		status(nd, &st);
		hep_tick(&r->h, &st, now, r->out);
		if (carry_out(nd) == -1)
			return -1;
		if (r->out->wake == -1 || r->out->wake > now)
			break;
	}
	if (r->out->wake != -1)
		next = r->out->wake > now ? r->out->wake - now : 0;
	if (r->fd_again != 0 && (next == -1 || r->fd_again - now < next))
		next = r->fd_again - now;
	return next;
}

/* ---- receiving ---- */

void
reconf_recv(struct node *nd, unsigned from, const struct wire_msg *w)
{
	struct hep_status st;
	struct epoch_msg m;
	const char *why;

	if ((why = epoch_msg_parse(w->type, w->payload, w->len, &m)) != NULL) {
		net_drop(nd, from, why);
		return;
	}
	status(nd, &st);
	hep_recv(&nd->rc.h, &nd->cluster, from, &m, &st, mono_now(),
	    nd->rc.out);
	carry_out(nd);
}

/* ---- the control requests ---- */

/*
 * reconfigure-part OFF HEX: the next part of a cluster file, from offset
 * OFF (0 starts anew); this client's until it sends another at 0.
 */
void
cmd_reconfigure_part(struct node *nd, struct control_client *c,
    const struct ctl_req *req)
{
	struct reconf *r = &nd->rc;
	char num[16];
	const char *errstr;
	size_t len;
	long long off;

	if (req->argc != 2 || req->argv[0].n >= sizeof(num)) {
		control_reply(c, "err reconfigure-part takes OFF HEX");
		return;
	}
	memcpy(num, req->argv[0].p, req->argv[0].n);
	num[req->argv[0].n] = '\0';
	off = strtonum(num, 0, STAGE_MAX, &errstr);
	if (errstr != NULL || (off > 0 && (r->stager != c ||
	    r->stager_pid != c->pid || (size_t)off != r->stagelen))) {
		control_reply(c, "err reconfigure-part: offset %s is not "
		    "where this request stands", num);
		return;
	}
	if (off == 0) {
		if (r->stage == NULL && (r->stage = malloc(STAGE_MAX)) == NULL)
			err(1, NULL);
		r->stager = c;
		r->stager_pid = c->pid;
		r->stagelen = 0;
	}
	if (sodium_hex2bin((unsigned char *)r->stage + r->stagelen,
	    STAGE_MAX - r->stagelen, req->argv[1].p, req->argv[1].n, NULL,
	    &len, NULL) != 0) {
		r->stager = NULL;
		control_reply(c, "err reconfigure-part: bad hex, or above %d "
		    "bytes", STAGE_MAX);
		return;
	}
	r->stagelen += len;
	control_reply(c, "ok got=%zu", r->stagelen);
}

/*
 * reconfigure LEN [force dead=ID,...]: the LEN bytes sent in parts are
 * the cluster file of the next epoch; this node, a member of the running
 * one with no change under way, starts the change to it.
 */
void
cmd_reconfigure(struct node *nd, struct control_client *c,
    const struct ctl_req *req)
{
	struct reconf *r = &nd->rc;
	struct epoch_change ch;
	struct hep_status st;
	struct ctl_str dead = { NULL, 0 };
	char num[16], why[512];
	const char *errstr;
	long long len;
	int i, force = 0;

	if (req->argc < 1 || req->argv[0].n >= sizeof(num)) {
		control_reply(c, "err reconfigure takes LEN [force dead=IDS]");
		return;
	}
	memcpy(num, req->argv[0].p, req->argv[0].n);
	num[req->argv[0].n] = '\0';
	len = strtonum(num, 1, STAGE_MAX, &errstr);
	for (i = 1; i < req->argc; i++) {
		if (ctl_str_eq(req->argv[i], "force"))
			force = 1;
		else if (req->argv[i].n > 5 &&
		    strncmp(req->argv[i].p, "dead=", 5) == 0) {
			dead.p = req->argv[i].p + 5;
			dead.n = req->argv[i].n - 5;
		} else {
			control_reply(c, "err reconfigure: unknown %.*s",
			    (int)req->argv[i].n, req->argv[i].p);
			return;
		}
	}
	if (errstr != NULL || r->stager != c || r->stager_pid != c->pid ||
	    (size_t)len != r->stagelen) {
		control_reply(c, "err reconfigure: %s bytes were not sent",
		    num);
		return;
	}
	r->stager = NULL;
	if (!(algo_flags(nd->opts->algo) & ALGO_F_EPOCHS)) {
		control_reply(c, "err reconfigure: only -a lease changes "
		    "epochs");
		return;
	}
	if (force != (dead.n > 0)) {
		control_reply(c, "err reconfigure: force goes with dead=IDS, "
		    "the members of the running epoch that are dead");
		return;
	}
	memset(&ch, 0, sizeof(ch));
	if (cluster_parse(r->stage, r->stagelen, "reconfigure", &ch.next, why,
	    sizeof(why)) == -1)
		goto refuse;
	status(nd, &st);
	switch (hep_request(&r->h, &nd->cluster, &st, force, dead.p, dead.n,
	    &ch, why, sizeof(why))) {
	case HEP_REQ_FORCE:
		/* Its dead, written, then counted (elect-node(1), --force). */
		if (epoch_change_save(nd->dirfd, &ch) == -1) {
			snprintf(why, sizeof(why), "%s: %s", EPOCH_CHANGE_FILE,
			    strerror(errno));
			goto refuse;
		}
		hep_force(&r->h, &ch, dead.p, dead.n, &st, mono_now(), r->out);
		carry_out(nd);
		control_reply(c, "ok epoch=%u members=%zu from=%u forced=%zu",
		    r->h.chg.next.epoch, r->h.chg.next.n, r->h.chg.prev.epoch,
		    r->h.chg.ndead);
		return;
	case HEP_REQ_TAKE:
		break;
	default:
		goto refuse;
	}
	if (cluster_resolve(&ch.next, why, sizeof(why)) == -1)
		goto refuse;
	if (hold(nd, &ch) == -1) {
		control_reply(c, "err reconfigure: the state directory "
		    "refused the change");
		return;
	}
	control_reply(c, "ok epoch=%u members=%zu from=%u", r->h.chg.next.epoch,
	    r->h.chg.next.n, r->h.chg.prev.epoch);
	return;
refuse:
	epoch_change_free(&ch);
	control_reply(c, "err reconfigure: %s", why);
}
