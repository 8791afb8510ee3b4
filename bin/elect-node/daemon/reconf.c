/*
 * This host's part of an epoch change (Nerio 10.6; share/elect/lease.md,
 * elect-node's part): what elect-sim's hosts do for their cores, over the
 * network.  The decisions are net/epoch's (which epoch runs, whether a
 * change may be taken, whose answer counts, which request is answered);
 * the core's are the core's (rules E1 to E7).  This file moves messages
 * and calls:
 *
 *	a member of E (EPOCH_ROLE_OLD) that holds the change stops its
 *	guarded commands, then wedges its core (ALGO_CMD_WEDGE), answers
 *	WEDGE with WEDGED once that core is wedged, and, if it is a member
 *	of E+1 too, ends that core (`exit why=epoch'), writes the record
 *	of E+1 and boots a fresh core of E+1 in a new incarnation;
 *
 *	a member of E+1 (EPOCH_ROLE_NEW) whose core is pending asks each
 *	member of E by WEDGE once per renewal period until it answers,
 *	and tells its core ALGO_CMD_TERMINATED at a majority of E;
 *
 *	every holder sends the change (CHANGE) to each host of both epochs
 *	it has not heard from in this change, once per renewal period,
 *	while its own part is not done.
 *
 * The change is written to the state directory (EPOCH_CHANGE_FILE)
 * before a host acts on it, so that a restart resumes it, and a host
 * answers WEDGE only for the change it wrote: two changes from the same
 * epoch cannot both end it.
 */
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "daemon.h"
#include "net/session.h"
#include "store/store.h"
#include "util/util.h"

#define IS(a, id)	(((a)[(id) / 8] >> ((id) % 8)) & 1)
#define SET(a, id)	((a)[(id) / 8] |= (uint8_t)(1u << ((id) % 8)))
#define STAGE_MAX	CLUSTER_FILE_MAX
#define SPREAD_IDLE	TRACE_NS	/* the change, once a part is done */
#define SPREAD_RETRY	(2 * ALGO_MS)	/* asks to a peer not confirmed */
#define FD_TRIES	5		/* a swap's detector, if it fails */
#define FD_AGAIN	(100 * ALGO_MS)	/* at once, and after this */

static algo_time
period(const struct node *nd)
{
	return nd->opts->timing.a.renew > 0 ? nd->opts->timing.a.renew :
	    20 * ALGO_MS;
}

/*
 * The other epoch's members, which the net tables hold beside the core's
 * while this host's part of the change lasts: E+1's for a member of E,
 * E's for a member of E+1 until its core learned that E ended.  Then
 * its part is over (reconf_done()): a member of E that is not one of
 * E+1 has nothing more to say to it, nor it to them.
 */
const struct cluster *
reconf_other(const struct node *nd)
{
	if (!nd->rc.held || nd->rc.over)
		return NULL;
	return nd->rc.role == EPOCH_ROLE_OLD ? &nd->rc.chg.next :
	    &nd->rc.chg.prev;
}

/* Whether the core of E+1 learned that E ended; none booted yet: no. */
static int
learned(const struct node *nd)
{
	struct algo_status st;

	if (nd->rc.role != EPOCH_ROLE_NEW || nd->algo == NULL)
		return 0;
	algo_query(nd->algo, mono_now(), &st);
	return !st.pending;
}

void
reconf_stepped(struct node *nd)
{
	struct reconf *r = &nd->rc;

	if (!r->held || r->over || !learned(nd))
		return;
	/* The core of E+1 watches its members only: the detector was
	 * never told of those of E that left. */
	r->over = 1;
	net_peers(nd, 0);
}

int
reconf_ending(const struct node *nd)
{
	struct algo_status st;

	if (!nd->rc.held || nd->rc.role != EPOCH_ROLE_OLD)
		return 0;
	algo_query(nd->algo, mono_now(), &st);
	return !st.wedged;
}

static void
drop_change(struct reconf *r)
{
	epoch_change_free(&r->chg);
	epoch_votes_free(&r->votes);
	r->held = r->over = r->wedge_given = r->stopping =
	    r->told_terminated = 0;
	memset(r->heard, 0, sizeof(r->heard));
	memset(r->askers, 0, sizeof(r->askers));
}

void
reconf_free(struct node *nd)
{
	drop_change(&nd->rc);
	free(nd->rc.in);
	free(nd->rc.ingotpart);
	free(nd->rc.stage);
	memset(&nd->rc, 0, sizeof(nd->rc));
}

/*
 * Takes the valid change C (moved into the node) as this host's: written
 * to the state directory first, then acted on.  ROLE is where the core
 * stands in it.
 */
static void
hold(struct node *nd, struct epoch_change *c, int role)
{
	struct reconf *r = &nd->rc;

	if (epoch_change_save(nd->dirfd, c) == -1) {
		log_warnx("%s/%s: %s", nd->opts->statedir, EPOCH_CHANGE_FILE,
		    strerror(errno));
		nd->quit = QUIT_ERROR;
		epoch_change_free(c);
		return;
	}
	drop_change(r);
	r->chg = *c;
	memset(c, 0, sizeof(*c));
	r->held = 1;
	r->role = role;
	r->over = learned(nd);
	r->next_send = 0;
	if (role == EPOCH_ROLE_NEW && epoch_votes_init(&r->votes,
	    &r->chg) == -1)
		err(1, NULL);
	log_info("epoch-change node=%u epoch=%u to=%u members=%zu role=%s%s",
	    nd->self->id, r->chg.prev.epoch, r->chg.next.epoch,
	    r->chg.next.n, role == EPOCH_ROLE_OLD ?
	    (cluster_find(&r->chg.next, nd->self->id) ? "moving" : "leaving") :
	    "joining", r->chg.ndead > 0 ? " forced" : "");
	net_peers(nd, 0);
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
	struct cluster rec;
	struct epoch_change c, saved;
	enum epoch_plan plan;
	char why[512];
	int rc, src, role;

	memset(&nd->cluster, 0, sizeof(nd->cluster));
	if ((rc = epoch_load(nd->dirfd, o->statedir, &rec, why,
	    sizeof(why))) == -1)
		errx(EXIT_USAGE, "%s", why);
	if (epoch_plan(file, rc == 0 ? &rec : NULL, o->id, &plan, why,
	    sizeof(why)) == -1)
		errx(EXIT_USAGE, "%s", why);
	if ((src = epoch_change_load(nd->dirfd, &saved, why,
	    sizeof(why))) == -1)
		errx(EXIT_USAGE, "%s/%s", o->statedir, why);
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
			/* Epoch 0: the record follows the file, unless a
			 * change from it was agreed to. */
			if (rc == 0 && src == 0 && saved.prev.epoch == 0 &&
			    !cluster_same_members(file, &rec))
				errx(EXIT_USAGE, "%s: a change from epoch 0 is "
				    "under way (%s/%s), from other members",
				    o->cluster, o->statedir, EPOCH_CHANGE_FILE);
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
		memset(&c, 0, sizeof(c));
		if (cluster_copy(&c.prev, &rec) == -1)
			err(1, NULL);
		c.next = *file;
		memset(file, 0, sizeof(*file));
		take_cluster(nd, &rec);
		if (epoch_change_valid(&c, why, sizeof(why)) == -1)
			errx(EXIT_USAGE, "%s: %s", o->cluster, why);
		if (src == 0 && saved.next.epoch == c.next.epoch &&
		    memcmp(saved.dtext, c.dtext, EPOCH_DIGEST) != 0 &&
		    memcmp(saved.dnext, c.dnext, EPOCH_DIGEST) != 0)
			errx(EXIT_USAGE, "%s: epoch %u differs from the change "
			    "to it this node agreed to (%s/%s)", o->cluster,
			    c.next.epoch, o->statedir, EPOCH_CHANGE_FILE);
		if (src == 0 && saved.next.epoch == c.next.epoch) {
			epoch_change_free(&c);
			c = saved;
			src = 1;
			if (resolve_change(&c, why, sizeof(why)) == -1)
				errx(EXIT_USAGE, "%s/%s", o->statedir, why);
		}
		nd->self = cluster_find(&nd->cluster, o->id);
		hold(nd, &c, EPOCH_ROLE_OLD);
		break;
	}
	nd->self = cluster_find(&nd->cluster, o->id);
	/* A change this host agreed to, resumed where the core stands. */
	if (src == 0 && nd->rc.held)
		epoch_change_free(&saved);
	else if (src == 0) {
		if ((role = epoch_change_role(&nd->cluster, &saved)) == -1 ||
		    resolve_change(&saved, why, sizeof(why)) == -1)
			epoch_change_free(&saved);
		else {
			hold(nd, &saved, role);
			if (role == EPOCH_ROLE_NEW)
				epoch_votes_self(&nd->rc.votes, &nd->rc.chg,
				    o->id);
		}
	}
}

/* ---- sending ---- */

/* Whether ID is not yet confirmed: what goes to it waits a retry. */
static int
unconfirmed(const struct node *nd, unsigned id)
{
	const struct cluster_node *p = cluster_find(&nd->peers, id);

	return p != NULL && !nd->sess[p - nd->peers.nodes].confirmed;
}

static void
send_wedged(struct node *nd, unsigned to)
{
	struct epoch_msg m = { .type = WIRE_TYPE_WEDGED };

	m.epoch = nd->rc.chg.prev.epoch;
	m.members = (uint16_t)nd->rc.chg.prev.n;
	memcpy(m.digest, nd->rc.chg.dprev, EPOCH_DIGEST);
	net_send_epoch(nd, to, &m);
}

static void
send_wedge(struct node *nd, unsigned to)
{
	struct epoch_msg m = { .type = WIRE_TYPE_WEDGE };

	m.epoch = nd->rc.chg.prev.epoch;
	memcpy(m.digest, nd->rc.chg.dnext, EPOCH_DIGEST);
	net_send_epoch(nd, to, &m);
}

/* The change in parts of EPOCH_PART_MAX to TO. */
static void
send_change(struct node *nd, unsigned to, const char *text, size_t len)
{
	struct epoch_msg m = { .type = WIRE_TYPE_CHANGE };
	size_t off;

	m.epoch = nd->rc.chg.next.epoch;
	m.total = (uint32_t)len;
	memcpy(m.digest, nd->rc.chg.dtext, EPOCH_DIGEST);
	for (off = 0; off < len; off += m.len) {
		m.off = (uint32_t)off;
		m.part = (const uint8_t *)text + off;
		m.len = len - off < EPOCH_PART_MAX ? len - off :
		    EPOCH_PART_MAX;
		if (!net_send_epoch(nd, to, &m))
			return;
	}
}

/* ---- the core swap ---- */

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
	if (cluster_copy(&next, &r->chg.next) == -1)
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
	r->role = EPOCH_ROLE_NEW;
	r->told_terminated = 0;
	if (epoch_votes_init(&r->votes, &r->chg) == -1)
		err(1, NULL);
	epoch_votes_self(&r->votes, &r->chg, nd->self->id);
	net_conf(nd);
	net_peers(nd, 1);
	fdc_stop(&nd->fdc, FDC_STOP_MS);
	node_detector_start(nd);
	r->fd_tries = FD_TRIES;
	r->fd_since = mono_now();
	nd->fresh = 1;
	core_boot(nd);
	core_start(nd);
	log_info("epoch-moved node=%u epoch=%u inc=%llu", nd->self->id,
	    nd->cluster.epoch, (unsigned long long)nd->inc);
	r->next_send = 0;
}

/*
 * The asks of a pending core, and the change to whoever has not shown
 * it holds it: every renewal period while this host's part is under
 * way, every SPREAD_IDLE after (a host that left may be the only one
 * that holds it, and a peer may be down a while).
 */
static void
spread(struct node *nd, const struct algo_status *st, algo_time now)
{
	struct reconf *r = &nd->rc;
	char *text;
	size_t i, len;
	unsigned id;
	int busy;

	busy = (r->role == EPOCH_ROLE_OLD && !st->wedged) ||
	    (r->role == EPOCH_ROLE_NEW && st->pending);
	r->next_send = now + (busy ? period(nd) : SPREAD_IDLE);
	if (r->role == EPOCH_ROLE_NEW && st->pending && !r->told_terminated)
		for (i = 0; i < r->chg.prev.n; i++) {
			id = r->chg.prev.nodes[i].id;
			if (id == nd->self->id || r->votes.wedged[i])
				continue;
			send_wedge(nd, id);
			/* A new incarnation's handshake takes a round trip:
			 * the ask goes again once it is done, not a period
			 * later. */
			if (unconfirmed(nd, id) && busy)
				r->next_send = now + SPREAD_RETRY;
		}
	if ((text = malloc(STAGE_MAX)) == NULL)
		err(1, NULL);
	len = epoch_change_format(&r->chg, text, STAGE_MAX);
	for (i = 0; i < nd->peers.n; i++) {
		id = nd->peers.nodes[i].id;
		if (id != nd->self->id && !IS(r->heard, id))
			send_change(nd, id, text, len);
	}
	free(text);
}

/* ---- the periodic part ---- */

/* Whether this host's core of E is wedged: the core's word, or it
 * moved on (it moves only once wedged). */
static int
prev_wedged(const struct node *nd, const struct algo_status *st)
{
	const struct reconf *r = &nd->rc;

	if (r->role == EPOCH_ROLE_OLD)
		return st->wedged;
	return cluster_find(&r->chg.prev, nd->self->id) != NULL;
}

static void
terminated(struct node *nd)
{
	struct reconf *r = &nd->rc;

	if (r->told_terminated || r->role != EPOCH_ROLE_NEW ||
	    !epoch_votes_done(&r->votes))
		return;
	r->told_terminated = 1;
	log_info("epoch-terminated node=%u epoch=%u wedged=%zu of %zu%s",
	    nd->self->id, r->chg.prev.epoch, r->votes.nwedged, r->votes.n,
	    r->chg.ndead > 0 ? " forced" : "");
	core_cmd(nd, ALGO_CMD_TERMINATED, NULL, 0);
}

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
	struct algo_status st;
	algo_time next;
	unsigned id;
	size_t i;

	if (r->fd_again != 0 && now >= r->fd_again && !nd->quit) {
		r->fd_again = 0;
		r->fd_since = now;
		node_detector_start(nd);
		for (i = 0; i < nd->peers.n; i++) {
			char line[32];

			if (!nd->monitored[i])
				continue;
			snprintf(line, sizeof(line), "start %u",
			    nd->peers.nodes[i].id);
			if (fdc_send(&nd->fdc, line) == -1)
				node_detector_failed(nd);
		}
	}
	if (!r->held || nd->quit)
		return r->fd_again != 0 ? r->fd_again - now : -1;
	algo_query(nd->algo, now, &st);
	if (now >= r->next_send)
		spread(nd, &st, now);
	next = r->next_send - now;
	if (r->role == EPOCH_ROLE_OLD && !st.wedged && !r->wedge_given) {
		/* Guarded commands stop first (epoch_wedge_when()). */
		switch (epoch_wedge_when(tasks_running(nd), r->stopping, now,
		    r->wedge_by)) {
		case EPOCH_WEDGE_STOP:
			r->stopping = 1;
			r->wedge_by = now + 2 * nd->opts->timing.a.lease +
			    TRACE_NS;
			tasks_stop(nd, "epoch");
			/* FALLTHROUGH */
		case EPOCH_WEDGE_WAIT:
			return r->wedge_by - now < next ? r->wedge_by - now :
			    next;
		case EPOCH_WEDGE_LATE:
			log_warnx("task-stop-late node=%u tasks=%d: wedging "
			    "anyway", nd->self->id, tasks_running(nd));
			break;
		case EPOCH_WEDGE_NOW:
			break;
		}
		r->wedge_given = 1;
		core_cmd(nd, ALGO_CMD_WEDGE, NULL, 0);
		algo_query(nd->algo, now, &st);
	}
	if (prev_wedged(nd, &st))
		for (i = 0; i < nd->peers.n; i++) {
			id = nd->peers.nodes[i].id;
			if (IS(r->askers, id)) {
				send_wedged(nd, id);
				r->askers[id / 8] &= (uint8_t)~(1u << (id % 8));
			}
		}
	if (r->role == EPOCH_ROLE_OLD && st.wedged &&
	    cluster_find(&r->chg.next, nd->self->id) != NULL) {
		swap(nd);
		if (nd->quit)
			return -1;
		next = 0;	/* the new core's asks go at once */
	}
	terminated(nd);
	if (r->fd_again != 0 && r->fd_again - now < next)
		next = r->fd_again - now;
	return next;
}

/* ---- receiving ---- */

/* A part of a CHANGE; the whole text once every part came, or NULL. */
static char *
reassemble(struct reconf *r, const struct epoch_msg *m, size_t *len)
{
	size_t idx;
	char *t;

	if (m->off % EPOCH_PART_MAX != 0)
		return NULL;
	if (r->in == NULL || r->intotal != m->total ||
	    memcmp(r->indigest, m->digest, EPOCH_DIGEST) != 0) {
		free(r->in);
		free(r->ingotpart);
		r->intotal = m->total;
		r->inparts = (m->total + EPOCH_PART_MAX - 1) / EPOCH_PART_MAX;
		r->ingot = 0;
		memcpy(r->indigest, m->digest, EPOCH_DIGEST);
		if ((r->in = malloc(r->intotal)) == NULL ||
		    (r->ingotpart = calloc(r->inparts, 1)) == NULL)
			err(1, NULL);
	}
	idx = m->off / EPOCH_PART_MAX;
	if (!r->ingotpart[idx]) {
		r->ingotpart[idx] = 1;
		r->ingot++;
		memcpy(r->in + m->off, m->part, m->len);
	}
	if (r->ingot < r->inparts)
		return NULL;
	t = r->in;
	*len = r->intotal;
	r->in = NULL;
	free(r->ingotpart);
	r->ingotpart = NULL;
	return t;
}

static void
recv_change(struct node *nd, unsigned from, const struct epoch_msg *m)
{
	struct reconf *r = &nd->rc;
	struct epoch_change c;
	uint8_t d[SESS_DIGEST];
	char why[512], *text;
	size_t len;
	int role;

	if (r->held && memcmp(m->digest, r->chg.dtext, EPOCH_DIGEST) == 0) {
		SET(r->heard, from);
		return;
	}
	/* A later change supersedes one done; one under way is kept. */
	if (r->held && (r->role == EPOCH_ROLE_OLD ||
	    m->epoch <= r->chg.next.epoch || !reconf_done(nd))) {
		net_drop(nd, from, "other-change");
		return;
	}
	if ((text = reassemble(r, m, &len)) == NULL)
		return;
	sess_digest(text, len, d);
	if (memcmp(d, m->digest, EPOCH_DIGEST) != 0 ||
	    epoch_change_parse(text, len, "change", &c, why,
	    sizeof(why)) == -1) {
		free(text);
		net_drop(nd, from, "bad-payload");
		return;
	}
	free(text);
	if ((role = epoch_change_role(&nd->cluster, &c)) == -1 ||
	    resolve_change(&c, why, sizeof(why)) == -1) {
		epoch_change_free(&c);
		net_drop(nd, from, "other-epoch");
		return;
	}
	hold(nd, &c, role);
	SET(r->heard, from);
}

void
reconf_recv(struct node *nd, unsigned from, const struct wire_msg *w)
{
	struct reconf *r = &nd->rc;
	struct algo_status st;
	struct epoch_msg m;
	const char *why;
	int rc;

	if ((why = epoch_msg_parse(w->type, w->payload, w->len, &m)) != NULL) {
		net_drop(nd, from, why);
		return;
	}
	if (m.type == WIRE_TYPE_CHANGE) {
		recv_change(nd, from, &m);
		return;
	}
	if (!r->held) {
		net_drop(nd, from, "no-change");
		return;
	}
	if (m.type == WIRE_TYPE_WEDGE) {
		if (!epoch_wedge_for(&r->chg, &m, &why)) {
			net_drop(nd, from, why);
			return;
		}
		SET(r->heard, from);
		algo_query(nd->algo, mono_now(), &st);
		if (prev_wedged(nd, &st))
			send_wedged(nd, from);
		else if (r->role == EPOCH_ROLE_OLD)
			SET(r->askers, from);
		return;
	}
	/* WEDGED: an answer, to a new member's ask. */
	if (r->role != EPOCH_ROLE_NEW) {
		SET(r->heard, from);
		return;
	}
	if ((rc = epoch_votes_add(&r->votes, &r->chg, from, &m,
	    &why)) == -1) {
		net_drop(nd, from, why);
		return;
	}
	SET(r->heard, from);
	terminated(nd);
}

/* ---- the control requests ---- */

int
reconf_done(const struct node *nd)
{
	struct algo_status st;

	if (!nd->rc.held)
		return 1;
	if (nd->rc.role == EPOCH_ROLE_OLD)
		return 0;
	algo_query(nd->algo, mono_now(), &st);
	return !st.pending;
}

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

/* --force on the change pending here: its dead, written, then counted. */
static void
force_held(struct node *nd, struct control_client *c, struct ctl_str dead)
{
	struct reconf *r = &nd->rc;
	struct epoch_change ch;
	char why[512];
	size_t i;

	memset(&ch, 0, sizeof(ch));
	if (cluster_copy(&ch.next, &r->chg.next) == -1 ||
	    cluster_copy(&ch.prev, &r->chg.prev) == -1)
		err(1, NULL);
	if (epoch_change_dead(dead.p, dead.n, &ch, why, sizeof(why)) == -1 ||
	    epoch_change_valid(&ch, why, sizeof(why)) == -1)
		goto refuse;
	for (i = 0; i < ch.ndead; i++)
		if (ch.dead[i] == nd->self->id) {
			snprintf(why, sizeof(why), "node %u, asked, is not "
			    "dead", nd->self->id);
			goto refuse;
		}
	if (epoch_change_save(nd->dirfd, &ch) == -1) {
		snprintf(why, sizeof(why), "%s: %s", EPOCH_CHANGE_FILE,
		    strerror(errno));
		goto refuse;
	}
	log_warnx("epoch-forced node=%u epoch=%u dead=%.*s: counted as "
	    "wedged", nd->self->id, r->chg.prev.epoch, (int)dead.n, dead.p);
	for (i = 0; i < ch.ndead; i++)
		epoch_votes_self(&r->votes, &r->chg, ch.dead[i]);
	free(r->chg.dead);
	r->chg.dead = ch.dead;
	r->chg.ndead = ch.ndead;
	ch.dead = NULL;
	epoch_change_free(&ch);
	if (epoch_change_valid(&r->chg, why, sizeof(why)) == -1)
		errx(1, "%s", why);	/* checked above on a copy */
	terminated(nd);
	control_reply(c, "ok epoch=%u members=%zu from=%u forced=%zu",
	    r->chg.next.epoch, r->chg.next.n, r->chg.prev.epoch,
	    r->chg.ndead);
	return;
refuse:
	epoch_change_free(&ch);
	control_reply(c, "err reconfigure: %s", why);
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
	struct algo_status st;
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
	/* The paper's manual intervention, on the change pending here: the
	 * members named dead count as wedged (elect-node(1), --force). */
	if (force && !reconf_done(nd) && r->role == EPOCH_ROLE_NEW) {
		if (!cluster_same_members(&ch.next, &r->chg.next) ||
		    ch.next.epoch != r->chg.next.epoch) {
			snprintf(why, sizeof(why), "a change to epoch %u is "
			    "pending: --force applies to it only",
			    r->chg.next.epoch);
			goto refuse;
		}
		epoch_change_free(&ch);
		force_held(nd, c, dead);
		return;
	}
	if (!reconf_done(nd) && r->role == EPOCH_ROLE_OLD &&
	    cluster_find(&r->chg.next, nd->self->id) == NULL) {
		snprintf(why, sizeof(why), "this node left: epoch %u runs "
		    "without it (ask one of its members)", r->chg.next.epoch);
		goto refuse;
	}
	if (!reconf_done(nd)) {
		snprintf(why, sizeof(why), "a change to epoch %u is pending",
		    r->chg.next.epoch);
		goto refuse;
	}
	if (
	    cluster_copy(&ch.prev, &nd->cluster) == -1 ||
	    (force && epoch_change_dead(dead.p, dead.n, &ch, why,
	    sizeof(why)) == -1) ||
	    epoch_change_valid(&ch, why, sizeof(why)) == -1 ||
	    cluster_resolve(&ch.next, why, sizeof(why)) == -1)
		goto refuse;
	algo_query(nd->algo, mono_now(), &st);
	if (epoch_change_take(&nd->cluster, st.pending, st.wedged,
	    !reconf_done(nd), nd->self->id, &ch, why, sizeof(why)) == -1)
		goto refuse;
	hold(nd, &ch, EPOCH_ROLE_OLD);
	if (!r->held) {
		control_reply(c, "err reconfigure: the state directory "
		    "refused the change");
		return;
	}
	control_reply(c, "ok epoch=%u members=%zu from=%u", r->chg.next.epoch,
	    r->chg.next.n, r->chg.prev.epoch);
	return;
refuse:
	epoch_change_free(&ch);
	control_reply(c, "err reconfigure: %s", why);
}
