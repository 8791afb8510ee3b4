/*
 * The commands of the control socket.  A command answers "ok KEY=VALUE
 * ..." or "err WHY" on one line; adding one is one function and one line
 * in the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "util/util.h"

#define WAIT_MS_MAX	(24 * 3600 * 1000)

typedef void cmd_fn(struct node *, struct control_client *,
    const struct ctl_req *);
static cmd_fn cmd_help, cmd_status, cmd_wait_leader, cmd_names;

#define C_WAITS	0x1	/* may keep the client waiting */
#define C_GROUP	0x2	/* runs a guarded command: members only */
#define C_TASK	0x4	/* from a guarded command's own connection only */
#define C_BOTH	0x8	/* from any connection, a guarded command's too */
#define C_OPER	0x10	/* changes what the node does: root, the daemon's
			 * user, --operator-group */
#define C_NOW	0x20	/* answered at once from what the node has, also to
			 * a connection that found no slot */

static const struct {
	const char	*name;
	int		 maxargs;
	cmd_fn		*fn;
	int		 flags;
} cmds[] = {
	{ "help",	0,	cmd_help,		C_NOW },
	{ "status",	1,	cmd_status,		C_NOW },
	{ "names",	1,	cmd_names,		C_NOW },
	{ "wait-leader", 1,	cmd_wait_leader,	C_WAITS },
	{ "lease",	1,	cmd_lease,		C_BOTH },
	{ "edict",	1,	cmd_edict,		C_OPER },
	{ "follow-edicts", 0,	cmd_follow_edicts,	C_WAITS },
	{ "task",	2,	cmd_task,		C_WAITS | C_GROUP },
	{ "killed",	1,	cmd_killed,		C_TASK },
	{ "reconfigure-part", 2, cmd_reconfigure_part,	C_OPER },
	{ "reconfigure", 3,	cmd_reconfigure,	C_OPER },
};

static void
cmd_help(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	char list[256] = "";
	size_t i;

	for (i = 0; i < nitems(cmds); i++) {
		if (i > 0)
			strlcat(list, ",", sizeof(list));
		strlcat(list, cmds[i].name, sizeof(list));
	}
	control_reply(c, "ok version=%d commands=%s", CTL_VERSION, list);
}

/* What a peer's configuration differs in (the handshake's digest), or
 * "-". */
static const char *
peer_mismatch(const struct node *nd, size_t i)
{
	return nd->net.sess[i].misfit == SESS_OK ? "-" :
	    sess_misfit_name(nd->net.sess[i].misfit);
}

/*
 * peers=ID/AGE/DETECTOR/MISMATCH,...: seconds since a datagram of the peer
 * was last accepted ("-": never), what the failure detector says (up,
 * down, "-": not monitored), and the configuration it differs in; as
 * many as fit in PEERS_ROOM, and peers_cut=N for the rest.
 */
#define PEERS_ROOM	400

static void
peers_field(const struct node *nd, algo_time now, char *buf, size_t len)
{
	char one[64], age[24];
	size_t i, n = 0, cut = 0;
	int w;

	strlcpy(buf, "peers=", len);
	for (i = 0; i < nd->net.peers.n; i++) {
		if (nd->net.peers.nodes[i].id == nd->self->id)
			continue;
		if (nd->net.p[i].heard == 0)
			strlcpy(age, "-", sizeof(age));
		else
			snprintf(age, sizeof(age), "%.3f",
			    (double)(now - nd->net.p[i].heard) / 1e9);
		w = snprintf(one, sizeof(one), "%s%u/%s/%s/%s", n ? "," : "",
		    nd->net.peers.nodes[i].id, age, nd->net.p[i].downed ?
		    "down" : nd->net.p[i].monitored ? "up" : "-", peer_mismatch(nd, i));
		if (cut > 0 || w < 0 || strlen(buf) + (size_t)w >= PEERS_ROOM) {
			cut++;
			continue;
		}
		strlcat(buf, one, len);
		n++;
	}
	if (n == 0)
		strlcat(buf, "-", len);
	if (cut > 0) {
		snprintf(one, sizeof(one), " peers_cut=%zu", cut);
		strlcat(buf, one, len);
	}
}

/*
 * key=ID: the key this node sends under ("-": --insecure), accept=ID the
 * second it accepts during a rotation; peer_keys=PEER:ID,...: the key
 * each peer's datagrams last came under ("-": none yet), as many as
 * fit.
 */
static void
keys_field(const struct node *nd, char *buf, size_t len)
{
	char one[32];
	size_t i, n = 0;

	if (nd->key.insecure) {
		strlcpy(buf, " key=-", len);
		return;
	}
	snprintf(buf, len, " key=%s%s%s peer_keys=", nd->key.id,
	    nd->key.has_old ? " accept=" : "", nd->key.has_old ?
	    nd->key.old_id : "");
	for (i = 0; i < nd->net.peers.n; i++) {
		if (nd->net.peers.nodes[i].id == nd->self->id)
			continue;
		snprintf(one, sizeof(one), "%s%u:%s", n++ ? "," : "",
		    nd->net.peers.nodes[i].id, nd->net.p[i].key_id[0] != '\0' ?
		    nd->net.p[i].key_id : "-");
		if (strlen(buf) + strlen(one) >= len - 1)
			break;
		strlcat(buf, one, len);
	}
	if (n == 0)
		strlcat(buf, "-", len);
}

/* A name as the status shows it: its holder as far as this node knows
 * (this node while it holds it, none under a veto), its token and the
 * seconds left while held here ("-" otherwise), its registrations. */
struct named_view {
	int		 leader;
	char		 ldr[8], tok[24], left[24];
	unsigned	 regs;
};

static void
named_view(const struct node *nd, const char *name, size_t len,
    algo_time now, struct named_view *v)
{
	struct algo_status st;
	struct hnl_status q;

	memset(&q, 0, sizeof(q));
	if (nd->names.on)
		hnl_query(&nd->names.h, name, len, now, &q);
	named_status(nd, name, len, now, &st);
	lead_status(&nd->lead, &st);
	v->leader = st.leader;
	id_str(st.leader ? nd->self->id : nd->lead.vetoed ? 0 : q.holder,
	    v->ldr, sizeof(v->ldr));
	snprintf(v->tok, sizeof(v->tok), st.leader && st.token ? "%llu" :
	    "-", (unsigned long long)st.token);
	if (st.leader && st.until > now)
		snprintf(v->left, sizeof(v->left), "%.3f",
		    (double)(st.until - now) / 1e9);
	else
		strlcpy(v->left, "-", sizeof(v->left));
	v->regs = q.regs;
}

/*
 * names=NAME/HOLDER/TOKEN/LEFT/REGISTRATIONS,...: the names known here
 * after AFTER (AFTER_LEN bytes; all with 0), in order, as named_view()
 * shows them; as many as fit in ROOM bytes of BUF (LEN bytes, more than
 * ROOM).  Returns the names left out; nothing while none is known.
 */
#define NAMES_ROOM	320
#define NAMES_PAGE	(CTL_LINE_MAX - HNAMES_LEN - 64)

static size_t
names_list(const struct node *nd, algo_time now, const char *after,
    size_t after_len, char *buf, size_t len, size_t room)
{
	const struct hname *h = NULL;
	struct named_view v;
	char one[HNAMES_LEN + 64];
	size_t n = 0, cut = 0, m;
	int w, c;

	buf[0] = '\0';
	if (!nd->names.on || nd->names.h.reg.n.known == 0)
		return 0;
	strlcpy(buf, " names=", len);
	while ((h = hnames_next(&nd->names.h.reg, h)) != NULL) {
		/* In the order of lib/host/names: bytes, then length. */
		m = h->len < after_len ? h->len : after_len;
		c = memcmp(h->s, after, m);
		if (after_len > 0 && (c < 0 || (c == 0 && h->len <= after_len)))
			continue;
		named_view(nd, h->s, h->len, now, &v);
		w = snprintf(one, sizeof(one), "%s%s/%s/%s/%s/%u", n ? "," :
		    "", h->s, v.ldr, v.tok, v.left, v.regs);
		if (cut > 0 || w < 0 || strlen(buf) + (size_t)w >= room) {
			cut++;
			continue;
		}
		strlcat(buf, one, len);
		n++;
	}
	return cut;
}

/* The status's names: as many as fit in NAMES_ROOM, names_cut=N for the
 * rest (`names' lists them all). */
static void
names_field(const struct node *nd, algo_time now, char *buf, size_t len)
{
	char one[32];
	size_t cut;

	if ((cut = names_list(nd, now, "", 0, buf, len, NAMES_ROOM)) > 0) {
		snprintf(one, sizeof(one), " names_cut=%zu", cut);
		strlcat(buf, one, len);
	}
}

/*
 * names [after=NAME]: "ok names=..." as the status's, the names after
 * NAME in their order, as many as fit in one line, then "more=yes" when
 * names are left for a next request after the last one listed; "ok" alone
 * while no name is known.
 */
static void
cmd_names(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	char buf[NAMES_PAGE + HNAMES_LEN + 64];
	const struct ctl_str *a = &req->argv[0];
	size_t cut;

	if (req->argc == 1 && (a->n < 6 || memcmp(a->p, "after=", 6) != 0 ||
	    a->n - 6 > HNAMES_LEN)) {
		control_reply(c, "err names takes no argument but after=NAME");
		return;
	}
	cut = names_list(nd, mono_now(), req->argc == 1 ? a->p + 6 : "",
	    req->argc == 1 ? a->n - 6 : 0, buf, sizeof(buf), NAMES_PAGE);
	control_reply(c, "ok%s%s", buf, cut > 0 ? " more=yes" : "");
}

/*
 * status name=NAME: "ok id=ID name=NAME leader=ID|- role=ROLE token=T|-
 * left=SECONDS|- registrations=N", as named_view() shows it, the role
 * as the default status says it.
 */
static void
reply_named_status(struct node *nd, struct control_client *c,
    const char *name, size_t len, algo_time now)
{
	struct named_view v;

	named_view(nd, name, len, now, &v);
	control_reply(c, "ok id=%u name=%s leader=%s role=%s token=%s "
	    "left=%s registrations=%u", nd->self->id, name, v.ldr,
	    v.leader ? "leader" : strcmp(v.ldr, "-") != 0 ? "follower" :
	    "none", v.tok, v.left, v.regs);
}

/* "ok" and the status fields; returns whether this node leads. */
static int
reply_status(struct node *nd, struct control_client *c, algo_time now)
{
	struct algo_status st, core;
	char grp[ALGO_ELID_STRLEN], ldr[8], tok[24], extra[160];
	char odd[256], ep[96];
	char peers[PEERS_ROOM + 32], keys[200], names[NAMES_ROOM + 32];

	algo_query(nd->algo, now, &core);
	st = core;
	lead_status(&nd->lead, &st);
	if (st.token != 0)
		snprintf(tok, sizeof(tok), "%llu",
		    (unsigned long long)st.token);
	else
		strlcpy(tok, "-", sizeof(tok));
	if (ctl_status_extra(st.extra, now, extra, sizeof(extra)) == -1)
		extra[0] = '\0';
	peers_field(nd, now, peers, sizeof(peers));
	keys_field(nd, keys, sizeof(keys));
	names_field(nd, now, names, sizeof(names));
	/* Epochs: where this node stands, once its cluster changed. */
	ep[0] = '\0';
	if (nd->cluster.epoch > 0 || nd->rc.h.held)
		snprintf(ep, sizeof(ep), " change=%s", !nd->rc.h.held ? "-" :
		    nd->rc.h.role == HEP_OLD ? "leaving" : st.pending ?
		    "joining" : "done");
	control_reply(c, "ok id=%u algo=%s status=%s leader=%s group=%s "
	    "incarnation=%llu secs=%.3f role=%s drops=%llu lost=%llu "
	    "tasks=%d waiting=%d token=%s %s%s%s%s%s%s%s%s",
	    nd->self->id, algo_name(nd->opts->algo),
	    trace_status_name(st.state.status),
	    id_str(st.state.ldr, ldr, sizeof(ldr)),
	    algo_elid_fmt(&st.state.grp, grp, sizeof(grp)),
	    (unsigned long long)nd->inc, (double)(now - st.since) / 1e9,
	    lead_role(&nd->lead, &core),
	    (unsigned long long)nd->net.drops,
	    (unsigned long long)(nd->tw != NULL ? tw_lost(nd->tw) : 0),
	    tasks_running(nd), tasks_waiting(nd), tok, peers, keys,
	    extra[0] != '\0' ? " " : "", extra,
	    nd->lead.vetoed ? " veto=mismatch" : "",
	    net_misfits(nd, odd, sizeof(odd)), ep, names);
	return st.leader;
}

/* status [name=NAME] */
static void
cmd_status(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	char name[HNAMES_LEN + 1];
	size_t len;
	int rc;

	if (req->argc == 0) {
		reply_status(nd, c, mono_now());
		return;
	}
	if ((rc = cmd_arg_name(c, req->argv[0], name, &len)) == 1)
		reply_named_status(nd, c, name, len, mono_now());
	else if (rc == 0)
		control_reply(c, "err status takes no argument but name=NAME");
}

static int
leads(const struct node *nd, algo_time now)
{
	struct algo_status st;

	node_query(nd, now, &st);
	return st.leader;
}

/* wait-leader [MS]: the status, once this node leads; err timeout after
 * MS milliseconds if given. */
static void
cmd_wait_leader(struct node *nd, struct control_client *c,
    const struct ctl_req *req)
{
	char ms[16];
	const char *errstr;
	long long v = 0;
	algo_time now = mono_now();

	if (req->argc == 1) {
		if (req->argv[0].n >= sizeof(ms)) {
			control_reply(c, "err bad wait");
			return;
		}
		memcpy(ms, req->argv[0].p, req->argv[0].n);
		ms[req->argv[0].n] = '\0';
		v = strtonum(ms, 1, WAIT_MS_MAX, &errstr);
		if (errstr != NULL) {
			control_reply(c, "err wait is %s (1 to %d ms)", errstr,
			    WAIT_MS_MAX);
			return;
		}
	}
	if (leads(nd, now)) {
		reply_status(nd, c, now);
		return;
	}
	c->waiting = WAIT_LEADER;
	nd->control.leader_waits++;
	c->deadline = v > 0 ? now + v * ALGO_MS : 0;
}

algo_time
node_wake(struct node *nd, algo_time now)
{
	struct control_client *c;
	algo_time next;
	int i;

	/* Guarded commands first: their answers are lib/host/lead's. */
	next = task_tick(nd, now);
	if (nd->control.leader_waits == 0)
		return next;
	nd->control.leader_waits = 0;
	for (i = 0; i < nd->control.nclients; i++) {
		c = nd->control.clients[i];
		if (c == NULL || c->waiting != WAIT_LEADER)
			continue;
		if (leads(nd, now))
			reply_status(nd, c, now);
		else if (c->deadline != 0 && now >= c->deadline)
			control_reply(c, "err timeout");
		else {
			if (c->deadline != 0 &&
			    (next == -1 || c->deadline - now < next))
				next = c->deadline - now;
			nd->control.leader_waits++;
			continue;
		}
		/* Answered: on to the requests that came after. */
		c->waiting = WAIT_NONE;
		control_lines(c, nd);
		control_flush(c);
	}
	return next;
}

int
cmd_now(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	size_t i;

	for (i = 0; i < nitems(cmds); i++)
		if (ctl_str_eq(req->cmd, cmds[i].name)) {
			if (!(cmds[i].flags & C_NOW) ||
			    req->argc > cmds[i].maxargs)
				return 0;
			cmds[i].fn(nd, c, req);
			return 1;
		}
	return 0;
}

/* Whether REQ registers for a name (task ... name=NAME): those are
 * bounded by --names-max, not CONTROL_WAITERS_MAX. */
static int
names_one(const struct ctl_req *req)
{
	return req->argc > 0 && req->argv[req->argc - 1].n > 5 &&
	    memcmp(req->argv[req->argc - 1].p, "name=", 5) == 0;
}

void
cmd_dispatch(struct node *nd, struct control_client *c, const struct ctl_req *req)
{
	size_t i;

	for (i = 0; i < nitems(cmds); i++) {
		if (!ctl_str_eq(req->cmd, cmds[i].name))
			continue;
		/* A guarded command's connection says only how it ended,
		 * and asks for its lease, so that its guard never needs
		 * a slot; no other may say how it ended. */
		if (!(cmds[i].flags & C_BOTH) &&
		    ((cmds[i].flags & C_TASK) != 0) !=
		    (c->waiting == WAIT_TASK))
			control_reply(c, "err %s %s", cmds[i].name,
			    c->waiting == WAIT_TASK ? "while a guarded command "
			    "runs" : "is for a guarded command's connection");
		else if (req->argc > cmds[i].maxargs)
			control_reply(c, "err %s takes %d argument%s",
			    cmds[i].name, cmds[i].maxargs,
			    cmds[i].maxargs == 1 ? "" : "s");
		else if ((cmds[i].flags & (C_GROUP | C_OPER)) &&
		    !control_allowed(&nd->control, c, cmds[i].name,
		    (cmds[i].flags & C_OPER) != 0))
			control_reply(c, "err %s: not allowed to uid %u",
			    cmds[i].name, (unsigned)c->uid);
		else if ((cmds[i].flags & C_WAITS) && !names_one(req) &&
		    control_waiters(&nd->control) >= CONTROL_WAITERS_MAX)
			control_reply(c, "err busy (%d clients wait)",
			    CONTROL_WAITERS_MAX);
		else
			cmds[i].fn(nd, c, req);
		return;
	}
	control_reply(c, "err unknown command %.*s", (int)req->cmd.n, req->cmd.p);
}
