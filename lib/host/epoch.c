/* One host's part of an epoch change: decisions only, no I/O. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/epoch.h"
#include "net/session.h"

#define IS(a, id)	(((a)[(id) / 8] >> ((id) % 8)) & 1)
#define SET(a, id)	((a)[(id) / 8] |= (uint8_t)(1u << ((id) % 8)))
#define CLR(a, id)	((a)[(id) / 8] &= (uint8_t)~(1u << ((id) % 8)))

_Static_assert(HEP_ACTS_MAX >= 3 * CLUSTER_NODES_MAX + 4,
    "a tick's sends, a log line, a wedge, a swap and a terminated");
_Static_assert(CLUSTER_ID_MAX < HEP_IDS, "an id indexes the bitmaps");

int
hep_init(struct hep *h, const struct hep_conf *conf)
{
	memset(h, 0, sizeof(*h));
	h->conf = *conf;
	assert(conf->text_max >= EPOCH_PART_MAX);
	if ((h->text = malloc(conf->text_max)) == NULL ||
	    (h->in = malloc(conf->text_max)) == NULL ||
	    (h->ingotpart = calloc(conf->text_max / EPOCH_PART_MAX + 1,
	    1)) == NULL ||
	    (h->votebuf = calloc(CLUSTER_NODES_MAX, 1)) == NULL) {
		hep_free(h);
		return -1;
	}
	return 0;
}

static void
drop_change(struct hep *h)
{
	epoch_change_free(&h->chg);
	h->held = h->over = h->wedge_given = h->stopping =
	    h->told_terminated = 0;
	memset(&h->votes, 0, sizeof(h->votes));
	memset(h->heard, 0, sizeof(h->heard));
	memset(h->askers, 0, sizeof(h->askers));
}

void
hep_free(struct hep *h)
{
	drop_change(h);
	epoch_change_free(&h->incoming);
	free(h->text);
	free(h->in);
	free(h->ingotpart);
	free(h->votebuf);
	memset(h, 0, sizeof(*h));
}

/* ---- actions ---- */

static struct hep_action *
act(struct hep_out *o, enum hep_act_type type, unsigned peer)
{
	struct hep_action *a;

	assert(o->n < HEP_ACTS_MAX);
	a = &o->v[o->n++];
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->peer = peer;
	return a;
}

static void
say(struct hep_out *o, int warn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
say(struct hep_out *o, int warn, const char *fmt, ...)
{
	struct hep_action *a;
	va_list ap;

	assert(o->nlines < HEP_LINES);
	va_start(ap, fmt);
	vsnprintf(o->lines[o->nlines], HEP_LINE_MAX, fmt, ap);
	va_end(ap);
	a = act(o, HEP_LOG, 0);
	a->warn = warn;
	a->line = o->lines[o->nlines++];
}

static void
drop(struct hep_out *o, unsigned from, const char *why)
{
	act(o, HEP_DROP, from)->why = why;
}

static void
begin(struct hep_out *o)
{
	o->n = o->nlines = 0;
	o->wake = -1;
}

/* The next tick: the next sends, or the end of a wait for commands. */
static void
end(const struct hep *h, struct hep_out *o)
{
	o->wake = -1;
	if (!h->held)
		return;
	o->wake = h->next_send;
	if (h->role == HEP_OLD && h->stopping && !h->wedge_given &&
	    h->wedge_by < o->wake)
		o->wake = h->wedge_by;
}

/* ---- the answers of E, counted by a new member ---- */

static void
votes_init(struct hep *h)
{
	assert(h->chg.prev.n <= CLUSTER_NODES_MAX);
	epoch_votes_start(&h->votes, &h->chg, h->votebuf);
	epoch_votes_self(&h->votes, &h->chg, h->conf.self);
}

static void
terminated(struct hep *h, struct hep_out *o)
{
	if (h->told_terminated || h->role != HEP_NEW ||
	    !epoch_votes_done(&h->votes))
		return;
	/* TERMINATED only at a majority of E, counting E's members only. */
	assert(h->votes.n == h->chg.prev.n &&
	    h->votes.nwedged <= h->votes.n &&
	    h->votes.nwedged > h->chg.prev.n / 2);
	h->told_terminated = 1;
	say(o, 0, "epoch-terminated node=%u epoch=%u wedged=%zu of %zu%s",
	    h->conf.self, h->chg.prev.epoch, h->votes.nwedged, h->votes.n,
	    h->chg.ndead > 0 ? " forced" : "");
	act(o, HEP_TERMINATED, 0);
}

/* ---- holding a change ---- */

static void
hold(struct hep *h, struct epoch_change *c, int role,
    const struct hep_status *st, struct hep_out *o)
{
	drop_change(h);
	h->chg = *c;
	memset(c, 0, sizeof(*c));
	h->held = 1;
	h->role = role;
	h->over = role == HEP_NEW && st->booted && !st->pending;
	h->next_send = 0;
	h->textlen = epoch_change_format(&h->chg, h->text, h->conf.text_max);
	assert(h->textlen > 0);
	if (role == HEP_NEW)
		votes_init(h);
	act(o, HEP_SAVE, 0);
	say(o, 0, "epoch-change node=%u epoch=%u to=%u members=%zu role=%s%s",
	    h->conf.self, h->chg.prev.epoch, h->chg.next.epoch,
	    h->chg.next.n, role == HEP_OLD ?
	    (cluster_find(&h->chg.next, h->conf.self) ? "moving" : "leaving") :
	    "joining", h->chg.ndead > 0 ? " forced" : "");
	act(o, HEP_PEERS, 0);
}

int
hep_hold(struct hep *h, const struct cluster *run, struct epoch_change *c,
    const struct hep_status *st, int64_t now, struct hep_out *o)
{
	int role;

	begin(o);
	if ((role = epoch_change_role(run, c)) == -1) {
		epoch_change_free(c);
		end(h, o);
		return -1;
	}
	hold(h, c, role, st, o);
	(void)now;
	end(h, o);
	return 0;
}

/* ---- what the tables hold, and where the change stands ---- */

const struct cluster *
hep_other(const struct hep *h)
{
	if (!h->held || h->over)
		return NULL;
	return h->role == HEP_OLD ? &h->chg.next : &h->chg.prev;
}

int
hep_done(const struct hep *h, const struct hep_status *st)
{
	if (!h->held)
		return 1;
	if (h->role == HEP_OLD)
		return 0;
	return !st->pending;
}

int
hep_ending(const struct hep *h, const struct hep_status *st)
{
	return h->held && h->role == HEP_OLD && !st->wedged;
}

int
hep_change_part(const struct hep *h, size_t k, struct epoch_msg *m)
{
	size_t off = k * EPOCH_PART_MAX;

	if (off >= h->textlen)
		return 0;
	memset(m, 0, sizeof(*m));
	m->type = WIRE_TYPE_CHANGE;
	m->epoch = h->chg.next.epoch;
	m->total = (uint32_t)h->textlen;
	memcpy(m->digest, h->chg.dtext, EPOCH_DIGEST);
	m->off = (uint32_t)off;
	m->part = (const uint8_t *)h->text + off;
	m->len = h->textlen - off < EPOCH_PART_MAX ? h->textlen - off :
	    EPOCH_PART_MAX;
	return 1;
}

/* The hosts the change goes to: E+1's, then E's not in E+1 (once this
 * part is over, E+1's alone).  Returns the id at K, or 0 past the end. */
static unsigned
peer_at(const struct hep *h, size_t k)
{
	size_t i;

	if (k < h->chg.next.n)
		return h->chg.next.nodes[k].id;
	if (h->over)
		return 0;
	for (i = 0, k -= h->chg.next.n; i < h->chg.prev.n; i++) {
		if (cluster_find(&h->chg.next, h->chg.prev.nodes[i].id) != NULL)
			continue;
		if (k-- == 0)
			return h->chg.prev.nodes[i].id;
	}
	return 0;
}

/* Whether this host's core of E is wedged: the core's word, or it moved
 * on (it moves only once wedged). */
static int
prev_wedged(const struct hep *h, const struct hep_status *st)
{
	if (h->role == HEP_OLD)
		return st->wedged;
	return cluster_find(&h->chg.prev, h->conf.self) != NULL;
}

static int
busy(const struct hep *h, const struct hep_status *st)
{
	return (h->role == HEP_OLD && !st->wedged) ||
	    (h->role == HEP_NEW && st->pending);
}

static void
send_wedged(struct hep *h, unsigned to, struct hep_out *o)
{
	struct hep_action *a;

	/* Answered only for the change written. */
	assert(h->held);
	a = act(o, HEP_SEND, to);
	a->msg.type = WIRE_TYPE_WEDGED;
	a->msg.epoch = h->chg.prev.epoch;
	a->msg.members = (uint16_t)h->chg.prev.n;
	memcpy(a->msg.digest, h->chg.dprev, EPOCH_DIGEST);
}

/*
 * The asks of a pending core, and the change to whoever has not shown
 * it holds it: every period while this host's part is under way, every
 * idle period after (a host that left may be the only one that holds
 * it, and a peer may be down a while).
 */
static void
spread(struct hep *h, const struct hep_status *st, int64_t now,
    struct hep_out *o)
{
	struct hep_action *a;
	unsigned id;
	size_t i;

	h->next_send = now + (busy(h, st) ? h->conf.period : h->conf.idle);
	if (h->role == HEP_NEW && st->pending && !h->told_terminated)
		for (i = 0; i < h->chg.prev.n; i++) {
			id = h->chg.prev.nodes[i].id;
			if (id == h->conf.self || h->votes.wedged[i])
				continue;
			a = act(o, HEP_SEND, id);
			a->msg.type = WIRE_TYPE_WEDGE;
			a->msg.epoch = h->chg.prev.epoch;
			memcpy(a->msg.digest, h->chg.dnext, EPOCH_DIGEST);
		}
	for (i = 0; (id = peer_at(h, i)) != 0; i++)
		if (id != h->conf.self && !IS(h->heard, id))
			act(o, HEP_SEND_CHANGE, id);
}

void
hep_retry(struct hep *h, const struct hep_status *st, int64_t now)
{
	/* A new incarnation's handshake takes a round trip: the ask goes
	 * again once it is done, not a period later. */
	if (h->held && busy(h, st) && now + h->conf.retry < h->next_send)
		h->next_send = now + h->conf.retry;
}

/* This host's core of E is wedged and it is a member of E+1: that core
 * ends and a fresh core of E+1 boots. */
static void
swap(struct hep *h, const struct hep_status *st, int64_t now,
    struct hep_out *o)
{
	/* Never a swap before the core of E is wedged. */
	assert(h->role == HEP_OLD && st->wedged);
	act(o, HEP_SWAP, 0);
	h->role = HEP_NEW;
	h->told_terminated = 0;
	votes_init(h);
	h->next_send = now;	/* the new core's asks go at once */
}

void
hep_tick(struct hep *h, const struct hep_status *st, int64_t now,
    struct hep_out *o)
{
	unsigned id;
	size_t i;

	begin(o);
	if (!h->held)
		return;
	if (now >= h->next_send)
		spread(h, st, now, o);
	if (h->role == HEP_OLD && !st->wedged && !h->wedge_given) {
		/* Guarded commands stop first (epoch_wedge_when()). */
		switch (epoch_wedge_when(st->tasks, h->stopping, now,
		    h->wedge_by)) {
		case EPOCH_WEDGE_STOP:
			h->stopping = 1;
			h->wedge_by = now + h->conf.stop_wait;
			act(o, HEP_STOP_TASKS, 0);
			end(h, o);
			return;
		case EPOCH_WEDGE_WAIT:
			end(h, o);
			return;
		case EPOCH_WEDGE_LATE:
			say(o, 1, "task-stop-late node=%u tasks=%d: wedging "
			    "anyway", h->conf.self, st->tasks);
			break;
		case EPOCH_WEDGE_NOW:
			break;
		}
		h->wedge_given = 1;
		act(o, HEP_WEDGE, 0);
		/* The rest once the core says it is wedged: at once. */
		end(h, o);
		o->wake = now;
		return;
	}
	if (prev_wedged(h, st))
		for (i = 0; (id = peer_at(h, i)) != 0; i++)
			if (IS(h->askers, id)) {
				send_wedged(h, id, o);
				CLR(h->askers, id);
			}
	if (h->role == HEP_OLD && st->wedged &&
	    cluster_find(&h->chg.next, h->conf.self) != NULL)
		swap(h, st, now, o);
	terminated(h, o);
	end(h, o);
}

int
hep_stepped(struct hep *h, const struct hep_status *st)
{
	/* The core of E+1 watches its members only. */
	if (h->held && !h->over && h->role == HEP_NEW && st->booted &&
	    !st->pending) {
		h->over = 1;
		return 1;
	}
	return 0;
}

/* ---- receiving ---- */

/* A part of a CHANGE: 1 once every part came (the text in h->in). */
static int
reassemble(struct hep *h, const struct epoch_msg *m)
{
	size_t idx;

	if (m->off % EPOCH_PART_MAX != 0 || m->total > h->conf.text_max)
		return 0;
	if (h->inparts == 0 || h->intotal != m->total ||
	    memcmp(h->indigest, m->digest, EPOCH_DIGEST) != 0) {
		h->intotal = m->total;
		h->inparts = (m->total + EPOCH_PART_MAX - 1) / EPOCH_PART_MAX;
		h->ingot = 0;
		memcpy(h->indigest, m->digest, EPOCH_DIGEST);
		memset(h->ingotpart, 0, h->inparts);
	}
	idx = m->off / EPOCH_PART_MAX;
	assert(idx < h->inparts);
	if (!h->ingotpart[idx]) {
		h->ingotpart[idx] = 1;
		h->ingot++;
		memcpy(h->in + m->off, m->part, m->len);
	}
	if (h->ingot < h->inparts)
		return 0;
	h->inparts = 0;
	return 1;
}

static void
recv_change(struct hep *h, const struct cluster *run, unsigned from,
    const struct epoch_msg *m, const struct hep_status *st,
    struct hep_out *o)
{
	struct epoch_change c;
	uint8_t d[SESS_DIGEST];
	char why[512];
	int role;

	if (h->held && memcmp(m->digest, h->chg.dtext, EPOCH_DIGEST) == 0) {
		SET(h->heard, from);
		return;
	}
	/* A later change supersedes one done; one under way is kept. */
	if (h->held && (h->role == HEP_OLD ||
	    m->epoch <= h->chg.next.epoch || !hep_done(h, st))) {
		drop(o, from, "other-change");
		return;
	}
	if (!reassemble(h, m))
		return;
	sess_digest(h->in, h->intotal, d);
	if (memcmp(d, m->digest, EPOCH_DIGEST) != 0 ||
	    epoch_change_parse(h->in, h->intotal, "change", &c, why,
	    sizeof(why)) == -1) {
		drop(o, from, "bad-payload");
		return;
	}
	if ((role = epoch_change_role(run, &c)) == -1) {
		epoch_change_free(&c);
		drop(o, from, "other-epoch");
		return;
	}
	epoch_change_free(&h->incoming);
	h->incoming = c;
	h->inrole = role;
	act(o, HEP_RESOLVE, from);
}

struct epoch_change *
hep_incoming(struct hep *h)
{
	return &h->incoming;
}

void
hep_resolved(struct hep *h, unsigned from, int ok,
    const struct hep_status *st, int64_t now, struct hep_out *o)
{
	begin(o);
	(void)now;
	if (!ok) {
		epoch_change_free(&h->incoming);
		drop(o, from, "other-epoch");
	} else {
		hold(h, &h->incoming, h->inrole, st, o);
		SET(h->heard, from);
	}
	end(h, o);
}

void
hep_recv(struct hep *h, const struct cluster *run, unsigned from,
    const struct epoch_msg *m, const struct hep_status *st, int64_t now,
    struct hep_out *o)
{
	const char *why;

	begin(o);
	(void)now;
	assert(from <= CLUSTER_ID_MAX);
	if (m->type == WIRE_TYPE_CHANGE) {
		recv_change(h, run, from, m, st, o);
		goto out;
	}
	if (!h->held) {
		drop(o, from, "no-change");
		goto out;
	}
	if (m->type == WIRE_TYPE_WEDGE) {
		if (!epoch_wedge_for(&h->chg, m, &why)) {
			drop(o, from, why);
			goto out;
		}
		SET(h->heard, from);
		if (prev_wedged(h, st))
			send_wedged(h, from, o);
		else if (h->role == HEP_OLD)
			SET(h->askers, from);
		goto out;
	}
	/* WEDGED: an answer, to a new member's ask. */
	if (h->role != HEP_NEW) {
		SET(h->heard, from);
		goto out;
	}
	if (epoch_votes_add(&h->votes, &h->chg, from, m, &why) == -1) {
		drop(o, from, why);
		goto out;
	}
	SET(h->heard, from);
	terminated(h, o);
out:
	end(h, o);
}

/* ---- the operator's request ---- */

static int
fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int
hep_request(const struct hep *h, const struct cluster *run,
    const struct hep_status *st, int force, const char *dead,
    size_t deadlen, struct epoch_change *ch, char *err, size_t errlen)
{
	const struct epoch_change *c = &h->chg;
	size_t i;

	/* The paper's manual intervention, on the change pending here: the
	 * members named dead count as wedged. */
	if (force && !hep_done(h, st) && h->role == HEP_NEW) {
		if (!cluster_same_members(&ch->next, &c->next) ||
		    ch->next.epoch != c->next.epoch)
			return fail(err, errlen, "a change to epoch %u is "
			    "pending: --force applies to it only",
			    c->next.epoch);
		epoch_change_free(ch);
		if (cluster_copy(&ch->next, &c->next) == -1 ||
		    cluster_copy(&ch->prev, &c->prev) == -1)
			return fail(err, errlen, "out of memory");
		if (epoch_change_dead(dead, deadlen, ch, err, errlen) == -1 ||
		    epoch_change_valid(ch, err, errlen) == -1)
			return -1;
		for (i = 0; i < ch->ndead; i++)
			if (ch->dead[i] == h->conf.self)
				return fail(err, errlen, "node %u, asked, is "
				    "not dead", h->conf.self);
		return HEP_REQ_FORCE;
	}
	if (!hep_done(h, st) && h->role == HEP_OLD &&
	    cluster_find(&c->next, h->conf.self) == NULL)
		return fail(err, errlen, "this node left: epoch %u runs "
		    "without it (ask one of its members)", c->next.epoch);
	if (!hep_done(h, st))
		return fail(err, errlen, "a change to epoch %u is pending",
		    c->next.epoch);
	if (cluster_copy(&ch->prev, run) == -1)
		return fail(err, errlen, "out of memory");
	if ((force && epoch_change_dead(dead, deadlen, ch, err,
	    errlen) == -1) || epoch_change_valid(ch, err, errlen) == -1 ||
	    epoch_change_take(run, st->pending, st->wedged, 0, h->conf.self,
	    ch, err, errlen) == -1)
		return -1;
	return HEP_REQ_TAKE;
}

void
hep_force(struct hep *h, struct epoch_change *ch, const char *dead,
    size_t deadlen, const struct hep_status *st, int64_t now,
    struct hep_out *o)
{
	char why[256];
	size_t i;

	begin(o);
	(void)st, (void)now;
	assert(h->held && h->role == HEP_NEW && ch->ndead > 0);
	say(o, 1, "epoch-forced node=%u epoch=%u dead=%.*s: counted as "
	    "wedged", h->conf.self, h->chg.prev.epoch, (int)deadlen, dead);
	for (i = 0; i < ch->ndead; i++)
		epoch_votes_self(&h->votes, &h->chg, ch->dead[i]);
	free(h->chg.dead);
	h->chg.dead = ch->dead;
	h->chg.ndead = ch->ndead;
	ch->dead = NULL;
	epoch_change_free(ch);
	/* Checked by hep_request() on a copy. */
	if (epoch_change_valid(&h->chg, why, sizeof(why)) == -1)
		assert(!"a forced change valid on a copy");
	h->textlen = epoch_change_format(&h->chg, h->text, h->conf.text_max);
	assert(h->textlen > 0);
	terminated(h, o);
	end(h, o);
}

/* ---- where a host starts ---- */

int
hep_start(const struct cluster *file, const struct cluster *rec,
    const struct epoch_change *saved, const char *savedname, unsigned self,
    enum epoch_plan *plan, struct epoch_change *c, int *resume, char *err,
    size_t errlen)
{
	*resume = 0;
	memset(c, 0, sizeof(*c));
	if (epoch_plan(file, rec, self, plan, err, errlen) == -1)
		return -1;
	switch (*plan) {
	case EPOCH_RUN:
		/* Epoch 0: the record follows the file, unless a change
		 * from it was agreed to. */
		if (rec != NULL && file->epoch == 0 && rec->epoch == 0 &&
		    saved != NULL && saved->prev.epoch == 0 &&
		    !cluster_same_members(file, rec))
			return fail(err, errlen, "%s: a change from epoch 0 "
			    "is under way (%s), from other members",
			    file->file, savedname);
		return 0;
	case EPOCH_JOIN:
		return 0;
	case EPOCH_CHANGE:
	case EPOCH_LEFT:
		break;
	}
	/* The file names the next epoch: the change to it, from the
	 * record's, unless another was agreed to. */
	if (cluster_copy(&c->prev, rec) == -1 ||
	    cluster_copy(&c->next, file) == -1) {
		epoch_change_free(c);
		return fail(err, errlen, "out of memory");
	}
	if (epoch_change_valid(c, err, errlen) == -1) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		epoch_change_free(c);
		return fail(err, errlen, "%s: %s", file->file, why);
	}
	if (saved != NULL && saved->next.epoch == c->next.epoch) {
		if (memcmp(saved->dtext, c->dtext, EPOCH_DIGEST) != 0 &&
		    memcmp(saved->dnext, c->dnext, EPOCH_DIGEST) != 0) {
			epoch_change_free(c);
			return fail(err, errlen, "%s: epoch %u differs from the "
			    "change to it this node agreed to (%s)",
			    file->file, file->epoch, savedname);
		}
		epoch_change_free(c);
		*resume = 1;
	}
	return 0;
}
