/*
 * datadriven: runs the transcript files of a pure core, as etcd's raft
 * tests run theirs.  A file under t/testdata/CORE/ holds cases, each
 *
 *	COMMAND [KEY=VALUE ...]		one input, as many lines as it takes
 *	----
 *	OUTPUT				what the core answered, exactly
 *					(a blank line ends the case)
 *
 * and lines starting with # between cases.  Cases run in order on one
 * core, so a file is a story.  The core is named by the file's directory.
 *
 *	datadriven [-r] FILE...
 *
 * Exit 0 when every output is as written, 1 when one differs (each named
 * FILE:LINE, with what was expected and what came), 2 for a file that
 * cannot be read.  -r rewrites the files with the outputs that came, for
 * a person to review with `git diff' before committing them.
 *
 * Cores: host (lib/host: the agreement of configurations, fit.h,
 * datagram acceptance, accept.h, between nodes of one cluster file,
 * a host's edge toward its peers, net.h, one host's part of an epoch
 * change, epoch.h, the leadership as a host acts on it, lead.h, and
 * the registry of names on one host, names.h); algo, guard and fd,
 * whose lines are those
 * of the scripts of algo-drive, guard-drive and fd-sim (t/tools/drive,
 * the same drivers), one input a case, after a line naming the tool with
 * its options that starts a core anew (its output empty), and no "> LINE"
 * echo; testament, whose command "parse TEXT" gives the parser the file
 * TEXT (\n a newline, \t a tab, \\ a backslash).  A script line the
 * driver refuses answers "error: WHY".
 */
#include <err.h>
#include <inttypes.h>
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <sodium.h>

#include "host/accept.h"
#include "host/epoch.h"
#include "host/fit.h"
#include "host/lead.h"
#include "host/named.h"
#include "host/names.h"
#include "host/net.h"
#include "util/util.h"
#include "drive/drive.h"

#define OUT_MAX		65536
#define ARGS_MAX	16
#define MS		INT64_C(1000000)

struct kv {
	char	*k, *v;
};

/* One core's adapter: resets its state, then runs one input. */
struct core {
	const char	*name;
	void		(*reset)(void);
	/* Appends its answer to OUT; returns 0, or -1 with the error
	 * written there instead. */
	int		(*run)(const char *cmd, struct kv *a, int n, char *out,
			    size_t len);
	/* Instead of run: the line as it is, its answer on FP. */
	void		(*line)(char *line, FILE *fp);
};

static const char *
arg(struct kv *a, int n, const char *k)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(a[i].k, k) == 0)
			return a[i].v;
	return NULL;
}

static int
num(const char *s, long long lo, long long hi, long long *v)
{
	const char *errstr;

	if (s == NULL)
		return -1;
	*v = strtonum(s, lo, hi, &errstr);
	return errstr == NULL ? 0 : -1;
}

static void
say(char *out, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
say(char *out, size_t len, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out + n, len - n, fmt, ap);
	va_end(ap);
}

/* host: fit.h over a table of peers.
 *
 *	init quorum=0|1			a fresh verdict
 *	peer id=N misfit=ok|algo|timing|cluster|key [at=MS]
 *					the handshake's view of peer N
 *	stranger id=N at=MS		an authenticated HELLO of this
 *					epoch from N, not in the file
 *	step now=MS			the verdict at NOW
 */
static struct fit host_fit;
static struct fit_peer host_peers[64];
static size_t host_npeers;

/* F: nodes 1..N at 127.0.0.1, port 5000 + id, in NODES. */
static void
loopback_file(struct cluster *f, struct cluster_node *nodes, size_t n)
{
	struct sockaddr_in *sin;
	size_t i;

	memset(nodes, 0, n * sizeof(*nodes));
	f->n = n;
	f->nodes = nodes;
	for (i = 0; i < n; i++) {
		nodes[i].id = (unsigned)i + 1;
		nodes[i].port = (uint16_t)(5001 + i);
		sin = (struct sockaddr_in *)&nodes[i].addr;
		sin->sin_family = AF_INET;
		sin->sin_port = htons(nodes[i].port);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		nodes[i].addrlen = sizeof(*sin);
		strlcpy(nodes[i].host, "127.0.0.1", sizeof(nodes[i].host));
	}
}

/*
 * Acceptance: nodes 1..N of a cluster file at 127.0.0.1, port 5000 + id,
 * each with its edge (lib/host/accept), and datagrams between them.
 *
 *	cluster n=N [algo=NAME]		N nodes, every edge anew
 *	odd id=N [algo=NAME] [key=other|same] [timing=other]
 *					node N's configuration differs
 *	hello from=A to=B now=MS	A's HELLO to B, if one is due
 *	send from=A to=B msg=TYPE [inc=I]
 *					a core's message of A (Dead: the
 *					incarnation inc names, empty)
 *	deliver [prev=1] [port=P] now=MS
 *					the last datagram (the one before,
 *					with prev=) at its receiver (again:
 *					a copy),
 *					from the sender's address (port P of
 *					its host instead, with port=)
 */
#define ACC_NODES	8

struct acc_node {
	unsigned	 id;
	const struct algo_ops *ops;
	struct wire_key	 key;
	struct wire_proto proto;
	struct sess_conf conf;
	struct sess	 sess[ACC_NODES];
	uint64_t	 seq[ACC_NODES];
	uint8_t		 misaddressed[ACC_NODES];
	uint64_t	 inc;
};

static struct cluster acc_file;
static struct cluster_node acc_nodes[ACC_NODES];
static struct acc_node accn[ACC_NODES];
static size_t acc_n;
/* The last two datagrams sealed: [1] the one before. */
static uint8_t acc_dg[2][WIRE_DGRAM_MAX];
static size_t acc_len[2];
static size_t acc_from[2], acc_to[2];

static void
acc_conf(struct acc_node *a, int odd_timing)
{
	memset(&a->conf, 0, sizeof(a->conf));
	sess_digest(a->ops->name, strlen(a->ops->name), a->conf.d[0]);
	sess_digest(odd_timing ? "other" : "timing", odd_timing ? 5 : 6,
	    a->conf.d[1]);
	sess_cluster_digest(&acc_file, a->conf.d[2]);
	a->proto.magic = WIRE_MAGIC_NODE;
	a->proto.maxtype = (uint8_t)(a->ops->nmsg - 1);
}

static struct host_edge
acc_edge(size_t i)
{
	struct acc_node *a = &accn[i];
	struct host_edge e = {
		.self = a->id, .ops = a->ops, .key = &a->key,
		.proto = &a->proto, .conf = &a->conf, .peers = &acc_file,
		.sess = a->sess, .seq = a->seq,
		.misaddressed = a->misaddressed,
	};

	return e;
}

static int
acc_node(struct kv *a, int n, const char *k, size_t *out)
{
	long long id;

	if (num(arg(a, n, k), 1, (long long)acc_n, &id) == -1)
		return -1;
	*out = (size_t)id - 1;
	return 0;
}

static const char *
acc_take(enum host_take t)
{
	static const char *const names[] = {
		[HOST_CORE] = "core", [HOST_DEAD] = "dead",
		[HOST_HELLO] = "hello", [HOST_EPOCH] = "epoch",
		[HOST_DROP] = "drop",
	};

	return names[t];
}

static int
acc_run(const char *cmd, struct kv *a, int n, char *out, size_t len)
{
	const struct algo_ops *ops;
	struct sockaddr_storage src;
	struct host_datagram *d;
	struct host_edge e;
	struct sess_hello h;
	struct algo_msg m;
	struct wire_msg w;
	uint8_t pl[SESS_PAYLOAD_MAX], nonce[SESS_NONCE];
	long long v, now, port;
	uint64_t inc;
	size_t i, j, k;
	unsigned t;

	if (strcmp(cmd, "cluster") == 0) {
		if (num(arg(a, n, "n"), 1, ACC_NODES, &v) == -1 ||
		    (ops = algo_find(arg(a, n, "algo") != NULL ?
		    arg(a, n, "algo") : "lease")) == NULL)
			return -2;
		acc_n = (size_t)v;
		loopback_file(&acc_file, acc_nodes, acc_n);
		for (i = 0; i < acc_n; i++) {
			memset(&accn[i], 0, sizeof(accn[i]));
			accn[i].id = (unsigned)i + 1;
			accn[i].ops = ops;
			accn[i].inc = 1;
			memset(accn[i].key.k, 7, sizeof(accn[i].key.k));
			acc_conf(&accn[i], 0);
			for (j = 0; j < acc_n; j++) {
				memset(nonce, (int)(16 * i + j + 1),
				    sizeof(nonce));
				sess_init(&accn[i].sess[j], nonce);
			}
		}
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "odd") == 0) {
		if (acc_node(a, n, "id", &i) == -1)
			return -2;
		if (arg(a, n, "algo") != NULL &&
		    (accn[i].ops = algo_find(arg(a, n, "algo"))) == NULL)
			return -2;
		if (arg(a, n, "key") != NULL)
			memset(accn[i].key.k, strcmp(arg(a, n, "key"),
			    "same") == 0 ? 7 : 9, sizeof(accn[i].key.k));
		acc_conf(&accn[i], arg(a, n, "timing") != NULL);
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "hello") == 0 || strcmp(cmd, "send") == 0) {
		if (acc_node(a, n, "from", &i) == -1 ||
		    acc_node(a, n, "to", &j) == -1 || i == j)
			return -2;
		e = acc_edge(i);
		inc = accn[i].inc;
		if (strcmp(cmd, "hello") == 0) {
			if (num(arg(a, n, "now"), 0, INT64_MAX / MS, &now) ==
			    -1)
				return -2;
			if (!sess_due(&accn[i].sess[j], now * MS)) {
				say(out, len, "none due\n");
				return 0;
			}
			sess_hello(&accn[i].sess[j], &accn[i].conf, now * MS,
			    &h);
			memset(&w, 0, sizeof(w));
			w.type = WIRE_TYPE_HELLO;
			w.payload = pl;
			w.len = sess_hello_put(&h, pl);
		} else {
			if (arg(a, n, "msg") == NULL || (t = algo_msg_type(
			    accn[i].ops, arg(a, n, "msg"))) == 0)
				return -2;
			memset(&m, 0, sizeof(m));
			m.type = (uint8_t)t;
			if (t == accn[i].ops->dead) {
				if (num(arg(a, n, "inc"), 1, INT32_MAX, &v) == -1)
					return -2;
				m.elid.node = (uint16_t)accn[i].id;
				m.elid.inc = inc = (uint64_t)v;
			} else if (arg(a, n, "inc") != NULL) {
				if (num(arg(a, n, "inc"), 1, INT32_MAX, &v) == -1)
					return -2;
				accn[i].inc = inc = (uint64_t)v;
			}
			host_wire_of(&m, &w);
		}
		memcpy(acc_dg[1], acc_dg[0], acc_len[0]);
		acc_len[1] = acc_len[0];
		acc_from[1] = acc_from[0], acc_to[1] = acc_to[0];
		acc_len[0] = host_seal(&e, (long)j, inc, &w, acc_dg[0]);
		acc_from[0] = i, acc_to[0] = j;
		say(out, len, "sealed %zu bytes seq=%llu\n", acc_len[0],
		    (unsigned long long)accn[i].seq[j]);
		return 0;
	}
	if (strcmp(cmd, "deliver") == 0) {
		k = arg(a, n, "prev") != NULL;
		if (num(arg(a, n, "now"), 0, INT64_MAX / MS, &now) == -1 ||
		    acc_len[k] == 0)
			return -2;
		src = acc_nodes[acc_from[k]].addr;
		if (arg(a, n, "port") != NULL) {
			if (num(arg(a, n, "port"), 1, 65535, &port) == -1)
				return -2;
			((struct sockaddr_in *)&src)->sin_port =
			    htons((uint16_t)port);
		}
		if ((d = malloc(sizeof(*d))) == NULL)
			err(2, NULL);
		e = acc_edge(acc_to[k]);
		host_accept(&e, acc_dg[k], acc_len[k], &src, now * MS, d);
		j = acc_to[k];
		say(out, len, "%s", acc_take(d->take));
		if (d->take == HOST_DROP)
			say(out, len, " why=%s", d->why);
		if (d->take == HOST_CORE || d->take == HOST_DEAD)
			say(out, len, " from=%u msg=%s", d->m.peer,
			    algo_msg_name(accn[j].ops, d->m.type));
		if (d->misfit)
			say(out, len, " misfit=%s", accn[j].sess[
			    d->peer].misfit == SESS_OK ? "ok" :
			    sess_misfit_name(accn[j].sess[d->peer].misfit));
		if (d->misaddressed)
			say(out, len, " misaddressed");
		if (d->stranger)
			say(out, len, " stranger");
		if (d->peer != -1 && accn[j].sess[d->peer].owed)
			say(out, len, " owed");
		say(out, len, "\n");
		free(d);
		return 0;
	}
	return -1;
}

/*
 * Epoch changes (lib/host/epoch.h): hosts 1..8, each with its core of the
 * change, played as elect-node plays it (a wedge asked wedges the core at
 * once; a swap boots a pending core of E+1; TERMINATED ends its pending),
 * and a queue of the messages between them, as their payloads.
 *
 *	epoch e=SLOT [as=E] ids=ID,... [long=1]
 *					epoch E's members (E: SLOT unless
 *					as= names another of the same
 *					epoch): ID at 127.0.0.1 (with long=,
 *					a long host name of its own), port
 *					5000 + ID, fd= 6000 + ID
 *	host id=N run=SLOT [pending=1]	host N anew, its core running SLOT
 *	core id=N [wedged=B] [pending=B] [tasks=K]
 *					what host N's core now says
 *	request id=N to=SLOT [force=1] [dead=IDS]
 *					the operator asks host N for SLOT
 *	tick id=N now=MS		host N's tick
 *	deliver now=MS [lose=K,...]	the messages queued, in order (the
 *					K-th, from 1, lost)
 *	restart id=N now=MS		host N restarted: its change read
 *					back from its state directory
 *	start id=N file=E [record=E] [saved=1]
 *					where host N starts (hep_start())
 *
 * Each host's actions print as "N: ACTION", then "N: wake=MS".
 */
#define EP_HOSTS	8
#define EP_EPOCHS	8
#define EP_QUEUE	512

struct ep_host {
	unsigned	 id;
	struct hep	 h;
	struct hep_status st;
	uint32_t	 run;
	char		*saved;		/* its state directory's change */
	size_t		 savedlen;
};

struct ep_msg {
	unsigned	 from, to;
	uint8_t		 type;
	uint8_t		 p[WIRE_PAYLOAD_MAX];
	size_t		 len;
};

static struct cluster ep_cl[EP_EPOCHS];
static struct ep_host ep_h[EP_HOSTS];
static struct ep_msg *ep_q;
static size_t ep_nq;
static struct hep_out *ep_out;

static void
ep_reset(void)
{
	size_t i;

	for (i = 0; i < EP_EPOCHS; i++)
		cluster_free(&ep_cl[i]);
	for (i = 0; i < EP_HOSTS; i++) {
		if (ep_h[i].id != 0)
			hep_free(&ep_h[i].h);
		free(ep_h[i].saved);
		memset(&ep_h[i], 0, sizeof(ep_h[i]));
	}
	ep_nq = 0;
}

static struct ep_host *
ep_host(struct kv *a, int n)
{
	long long id;
	size_t i;

	if (num(arg(a, n, "id"), 1, 65535, &id) == -1)
		return NULL;
	for (i = 0; i < EP_HOSTS; i++)
		if (ep_h[i].id == id)
			return &ep_h[i];
	return NULL;
}

static void
ep_node(struct cluster_node *p, unsigned id, int islong)
{
	memset(p, 0, sizeof(*p));
	p->id = id;
	if (islong)
		snprintf(p->host, sizeof(p->host), "node%u.%.60s.%.60s.%.60s",
		    id, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
		    "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc");
	else
		strlcpy(p->host, "127.0.0.1", sizeof(p->host));
	p->port = (uint16_t)(5000 + id);
	p->fd_port = (uint16_t)(6000 + id);
}

static void
ep_queue(unsigned from, unsigned to, const struct epoch_msg *m)
{
	struct ep_msg *q;

	if (ep_nq == EP_QUEUE)
		errx(2, "epoch: the queue is full");
	q = &ep_q[ep_nq++];
	q->from = from;
	q->to = to;
	q->type = m->type;
	if ((q->len = epoch_msg_put(m, q->p, sizeof(q->p))) == 0)
		errx(2, "epoch: a message the wire refuses");
}

static const char *
ep_type(uint8_t t)
{
	return t == WIRE_TYPE_WEDGE ? "wedge" : t == WIRE_TYPE_WEDGED ?
	    "wedged" : "change";
}

/* Host E's actions in ep_out, carried out as elect-node does, printed. */
static void
ep_carry(struct ep_host *e, int64_t now, char *out, size_t len)
{
	const struct hep_action *a;
	const struct hep *h = &e->h;
	struct epoch_msg m;
	size_t k;
	int parts;

again:
	for (k = 0; k < ep_out->n; k++) {
		a = &ep_out->v[k];
		say(out, len, "%u: ", e->id);
		switch (a->type) {
		case HEP_SAVE:
			free(e->saved);
			if ((e->saved = malloc(CLUSTER_FILE_MAX)) == NULL)
				err(2, NULL);
			e->savedlen = epoch_change_format(&h->chg, e->saved,
			    CLUSTER_FILE_MAX);
			say(out, len, "save epoch=%u\n", h->chg.next.epoch);
			break;
		case HEP_LOG:
			say(out, len, "%s %s\n", a->warn ? "warn" : "log",
			    a->line);
			break;
		case HEP_PEERS:
			say(out, len, "peers other=");
			if (hep_other(h) == NULL)
				say(out, len, "-\n");
			else
				say(out, len, "%u\n", hep_other(h)->epoch);
			break;
		case HEP_SEND:
			say(out, len, "send %s to=%u epoch=%u\n",
			    ep_type(a->msg.type), a->peer, a->msg.epoch);
			ep_queue(e->id, a->peer, &a->msg);
			break;
		case HEP_SEND_CHANGE:
			for (parts = 0; hep_change_part(h, (size_t)parts, &m);
			    parts++)
				ep_queue(e->id, a->peer, &m);
			say(out, len, "send change to=%u epoch=%u parts=%d\n",
			    a->peer, m.epoch, parts);
			break;
		case HEP_STOP_TASKS:
			say(out, len, "stop-tasks\n");
			break;
		case HEP_WEDGE:
			say(out, len, "wedge\n");
			e->st.wedged = 1;
			break;
		case HEP_SWAP:
			say(out, len, "swap to=%u\n", h->chg.next.epoch);
			for (e->run = 0; e->run < EP_EPOCHS - 1 &&
			    (ep_cl[e->run].epoch != h->chg.next.epoch ||
			    !cluster_same_members(&ep_cl[e->run],
			    &h->chg.next)); e->run++)
				continue;
			e->st.wedged = 0;
			e->st.pending = 1;
			break;
		case HEP_TERMINATED:
			say(out, len, "terminated\n");
			e->st.pending = 0;
			if (hep_stepped(&e->h, &e->st))
				say(out, len, "%u: over\n", e->id);
			break;
		case HEP_DROP:
			say(out, len, "drop from=%u why=%s\n", a->peer, a->why);
			break;
		case HEP_RESOLVE:
			say(out, len, "resolve from=%u\n", a->peer);
			hep_resolved(&e->h, a->peer, 1, &e->st, now, ep_out);
			goto again;
		}
	}
	if (ep_out->wake == -1)
		say(out, len, "%u: wake=-\n", e->id);
	else
		say(out, len, "%u: wake=%" PRId64 "\n", e->id,
		    ep_out->wake / MS);
}

static void
ep_tick(struct ep_host *e, int64_t now, char *out, size_t len)
{
	int t;

	/* Again at once after a wedge or a swap, as elect-node ticks. */
	for (t = 0; t < 3; t++) {
		hep_tick(&e->h, &e->st, now, ep_out);
		ep_carry(e, now, out, len);
		if (ep_out->wake == -1 || ep_out->wake > now)
			break;
	}
}

static int
ep_new(struct ep_host *e, unsigned id)
{
	struct hep_conf c = {
		.self = id, .period = 20 * MS, .idle = 1000 * MS,
		.retry = 2 * MS, .stop_wait = 2500 * MS,
		.text_max = CLUSTER_FILE_MAX,
	};

	e->id = id;
	return hep_init(&e->h, &c);
}

static int
ep_run(const char *cmd, struct kv *a, int n, char *out, size_t len)
{
	struct ep_host *e;
	struct epoch_change ch, saved, *sp;
	struct epoch_msg m;
	enum epoch_plan plan;
	const char *s, *why, *dead;
	char buf[512], *p, *tok;
	long long v = 0, now, to;
	uint8_t lost[EP_QUEUE];
	size_t i, nq;
	int rc, resume;

	if (ep_q == NULL && ((ep_q = calloc(EP_QUEUE, sizeof(*ep_q))) == NULL ||
	    (ep_out = malloc(sizeof(*ep_out))) == NULL))
		err(2, NULL);
	if (strcmp(cmd, "epoch") == 0) {
		if (num(arg(a, n, "e"), 0, EP_EPOCHS - 1, &v) == -1 ||
		    (s = arg(a, n, "ids")) == NULL ||
		    strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
			return -2;
		cluster_free(&ep_cl[v]);
		if ((ep_cl[v].nodes = calloc(EP_HOSTS,
		    sizeof(*ep_cl[v].nodes))) == NULL ||
		    (ep_cl[v].file = strdup("epoch")) == NULL)
			err(2, NULL);
		ep_cl[v].epoch = (uint32_t)v;
		if (arg(a, n, "as") != NULL) {
			if (num(arg(a, n, "as"), 0, EP_EPOCHS - 1, &to) == -1)
				return -2;
			ep_cl[v].epoch = (uint32_t)to;
		}
		for (p = buf; (tok = strsep(&p, ",")) != NULL;) {
			if (num(tok, 1, 65535, &to) == -1 ||
			    ep_cl[v].n == EP_HOSTS)
				return -2;
			ep_node(&ep_cl[v].nodes[ep_cl[v].n++], (unsigned)to,
			    arg(a, n, "long") != NULL);
		}
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "host") == 0) {
		if (num(arg(a, n, "id"), 1, 65535, &v) == -1 ||
		    num(arg(a, n, "run"), 0, EP_EPOCHS - 1, &to) == -1)
			return -2;
		if ((e = ep_host(a, n)) == NULL)
			for (i = 0, e = NULL; i < EP_HOSTS && e == NULL; i++)
				if (ep_h[i].id == 0)
					e = &ep_h[i];
		if (e == NULL)
			return -2;
		if (e->id != 0)
			hep_free(&e->h);
		free(e->saved);
		memset(e, 0, sizeof(*e));
		if (ep_new(e, (unsigned)v) == -1)
			err(2, NULL);
		e->run = (uint32_t)to;
		e->st.booted = 1;
		e->st.pending = arg(a, n, "pending") != NULL;
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "core") == 0) {
		if ((e = ep_host(a, n)) == NULL)
			return -2;
		if (arg(a, n, "wedged") != NULL &&
		    num(arg(a, n, "wedged"), 0, 1, &v) == 0)
			e->st.wedged = (int)v;
		if (arg(a, n, "pending") != NULL &&
		    num(arg(a, n, "pending"), 0, 1, &v) == 0)
			e->st.pending = (int)v;
		if (arg(a, n, "tasks") != NULL &&
		    num(arg(a, n, "tasks"), 0, 100, &v) == 0)
			e->st.tasks = (int)v;
		say(out, len, "%s\n", hep_stepped(&e->h, &e->st) ? "over" :
		    "ok");
		return 0;
	}
	if (strcmp(cmd, "request") == 0) {
		if ((e = ep_host(a, n)) == NULL ||
		    num(arg(a, n, "to"), 0, EP_EPOCHS - 1, &to) == -1)
			return -2;
		memset(&ch, 0, sizeof(ch));
		if (cluster_copy(&ch.next, &ep_cl[to]) == -1)
			err(2, NULL);
		dead = arg(a, n, "dead") != NULL ? arg(a, n, "dead") : "";
		rc = hep_request(&e->h, &ep_cl[e->run], &e->st,
		    arg(a, n, "force") != NULL, dead, strlen(dead), &ch, buf,
		    sizeof(buf));
		if (rc == HEP_REQ_FORCE) {
			hep_force(&e->h, &ch, dead, strlen(dead), &e->st, 0,
			    ep_out);
			ep_carry(e, 0, out, len);
		} else if (rc == HEP_REQ_TAKE) {
			if (hep_hold(&e->h, &ep_cl[e->run], &ch, &e->st, 0,
			    ep_out) == -1)
				say(out, len, "not held\n");
			else
				ep_carry(e, 0, out, len);
		} else {
			epoch_change_free(&ch);
			say(out, len, "refused: %s\n", buf);
		}
		return 0;
	}
	if (strcmp(cmd, "tick") == 0) {
		if ((e = ep_host(a, n)) == NULL ||
		    num(arg(a, n, "now"), 0, INT64_MAX / MS, &now) == -1)
			return -2;
		ep_tick(e, now * MS, out, len);
		return 0;
	}
	if (strcmp(cmd, "deliver") == 0 && arg(a, n, "id") == NULL &&
	    acc_n == 0) {
		if (num(arg(a, n, "now"), 0, INT64_MAX / MS, &now) == -1)
			return -2;
		memset(lost, 0, sizeof(lost));
		s = arg(a, n, "lose") != NULL ? arg(a, n, "lose") : "";
		if (strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
			return -2;
		for (p = buf; *s != '\0' && (tok = strsep(&p, ",")) != NULL;) {
			if (num(tok, 1, EP_QUEUE, &v) == -1)
				return -2;
			lost[v - 1] = 1;
		}
		nq = ep_nq;
		for (i = 0; i < nq; i++) {
			struct ep_msg q = ep_q[i];

			if (lost[i]) {
				say(out, len, "lost %s from=%u to=%u\n",
				    ep_type(q.type), q.from, q.to);
				continue;
			}
			for (e = NULL, v = 0; v < EP_HOSTS; v++)
				if (ep_h[v].id == q.to)
					e = &ep_h[v];
			if (e == NULL) {
				say(out, len, "%u: nobody\n", q.to);
				continue;
			}
			if ((why = epoch_msg_parse(q.type, q.p, q.len, &m)) !=
			    NULL)
				errx(2, "epoch: %s", why);
			hep_recv(&e->h, &ep_cl[e->run], q.from, &m, &e->st,
			    now * MS, ep_out);
			if (ep_out->n > 0)
				ep_carry(e, now * MS, out, len);
		}
		memmove(ep_q, ep_q + nq, (ep_nq - nq) * sizeof(*ep_q));
		ep_nq -= nq;
		if (nq == 0)
			say(out, len, "none\n");
		return 0;
	}
	if (strcmp(cmd, "restart") == 0) {
		if ((e = ep_host(a, n)) == NULL ||
		    num(arg(a, n, "now"), 0, INT64_MAX / MS, &now) == -1)
			return -2;
		hep_free(&e->h);
		if (ep_new(e, e->id) == -1)
			err(2, NULL);
		e->st.wedged = 0;
		if (e->saved == NULL) {
			say(out, len, "no change\n");
			return 0;
		}
		if (epoch_change_parse(e->saved, e->savedlen, "saved", &ch,
		    buf, sizeof(buf)) == -1)
			errx(2, "epoch: %s", buf);
		if (hep_hold(&e->h, &ep_cl[e->run], &ch, &e->st, now * MS,
		    ep_out) == -1)
			say(out, len, "not held\n");
		else
			ep_carry(e, now * MS, out, len);
		return 0;
	}
	if (strcmp(cmd, "start") == 0) {
		if ((e = ep_host(a, n)) == NULL ||
		    num(arg(a, n, "file"), 0, EP_EPOCHS - 1, &to) == -1 ||
		    (arg(a, n, "record") != NULL &&
		    num(arg(a, n, "record"), 0, EP_EPOCHS - 1, &v) == -1))
			return -2;
		sp = NULL;
		if (arg(a, n, "saved") != NULL) {
			if (e->saved == NULL || epoch_change_parse(e->saved,
			    e->savedlen, "saved", &saved, buf,
			    sizeof(buf)) == -1)
				return -2;
			sp = &saved;
		}
		rc = hep_start(&ep_cl[to], arg(a, n, "record") != NULL ?
		    &ep_cl[v] : NULL, sp, "state/epoch.change", e->id, &plan,
		    &ch, &resume, buf, sizeof(buf));
		if (rc == -1)
			say(out, len, "refused: %s\n", buf);
		else
			say(out, len, "plan=%s resume=%s\n",
			    epoch_plan_name(plan), resume ? "yes" : "no");
		epoch_change_free(&ch);
		if (sp != NULL)
			epoch_change_free(sp);
		return 0;
	}
	return -1;
}

/* A core's inputs by their command's name. */
struct in_name {
	const char	*name;
	int		 t;
};

/* CMD's input type in V (N of them), or -1. */
static int
in_type(const char *cmd, const struct in_name *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(cmd, v[i].name) == 0)
			return v[i].t;
	return -1;
}

/*
 * The leadership as a host acts on it (lead.h), times in ms:
 *
 *	lead-init [self=N] [deadline=0|1] [slots=N] [lease=MS] [renew=MS]
 *	    [try=MS]			a fresh core, with its host's timing
 *					and a try's wait (a name's)
 *	lead-core [leader=0|1] [token=T] [until=MS] [ldr=ID] [hint=ID]
 *	    [ending=0|1]		the core's status the inputs carry
 *	lead-tick now=MS, lead-leave now=MS, lead-bye now=MS
 *	lead-verdict now=MS vetoed=0|1 live=N changed=0|1
 *	lead-lease now=MS [slot=S], lead-task now=MS slot=S [wait=1]
 *	lead-killed now=MS slot=S why=deadline|grace
 *	lead-gone now=MS slot=S, lead-stop now=MS why=epoch
 *	lead-role [elec=1]		the status's role, leader and token
 *					(the core in Norm, or electing)
 *
 * Each input answers its actions, a line each, then the counters.
 */
static struct lead host_lead;
static struct algo_status lead_st;
static int lead_ending;

static void
lead_reply_say(char *out, size_t len, const struct lead_reply *r)
{
	say(out, len, " leader=%s token=%llu until=%lld ldr=%u lease=%lld "
	    "renew=%lld\n", r->g.leader ? "yes" : "no",
	    (unsigned long long)r->g.token, (long long)(r->g.until / MS),
	    r->ldr, (long long)(r->g.tlease / MS),
	    (long long)(r->g.renew / MS));
}

static int
lead_run(const char *cmd, struct kv *a, int n, char *out, size_t len)
{
	static const struct in_name ins[] = {
		{ "lead-tick", LEAD_IN_TICK }, { "lead-verdict", LEAD_IN_VERDICT },
		{ "lead-lease", LEAD_IN_LEASE }, { "lead-task", LEAD_IN_TASK },
		{ "lead-killed", LEAD_IN_KILLED }, { "lead-gone", LEAD_IN_GONE },
		{ "lead-leave", LEAD_IN_LEAVE }, { "lead-stop", LEAD_IN_STOP },
		{ "lead-bye", LEAD_IN_BYE },
	};
	struct lead_conf c = { .self = 1, .deadline = 1, .slots = 4 };
	struct lead_input in;
	struct lead_out o;
	struct algo_status st, raw;
	const struct lead_action *act;
	long long v;
	const char *w;
	int t;
	size_t i;

	if (strcmp(cmd, "lead-init") == 0) {
		c.timing.lease = 1000 * MS;
		c.timing.renew = 500 * MS;
		for (i = 0; i < (size_t)n; i++) {
			if (num(a[i].v, 0, 3600000, &v) == -1)
				return -2;
			if (strcmp(a[i].k, "self") == 0 && v >= 1 && v <= 65535)
				c.self = (unsigned)v;
			else if (strcmp(a[i].k, "deadline") == 0 && v <= 1)
				c.deadline = (int)v;
			else if (strcmp(a[i].k, "slots") == 0 && v >= 1 &&
			    v <= LEAD_SLOTS)
				c.slots = (size_t)v;
			else if (strcmp(a[i].k, "lease") == 0)
				c.timing.lease = v * MS;
			else if (strcmp(a[i].k, "renew") == 0)
				c.timing.renew = v * MS;
			else if (strcmp(a[i].k, "try") == 0)
				c.try_for = v * MS;
			else
				return -2;
		}
		lead_init(&host_lead, &c);
		memset(&lead_st, 0, sizeof(lead_st));
		lead_ending = 0;
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "lead-core") == 0) {
		memset(&lead_st, 0, sizeof(lead_st));
		lead_ending = 0;
		for (i = 0; i < (size_t)n; i++) {
			if (num(a[i].v, 0, INT32_MAX, &v) == -1)
				return -2;
			if (strcmp(a[i].k, "leader") == 0)
				lead_st.leader = (int)v;
			else if (strcmp(a[i].k, "token") == 0)
				lead_st.token = (uint64_t)v;
			else if (strcmp(a[i].k, "until") == 0)
				lead_st.until = v * MS;
			else if (strcmp(a[i].k, "ldr") == 0)
				lead_st.state.ldr = (uint16_t)v;
			else if (strcmp(a[i].k, "hint") == 0)
				lead_st.hint = (uint16_t)v;
			else if (strcmp(a[i].k, "ending") == 0)
				lead_ending = (int)v;
			else
				return -2;
		}
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "lead-role") == 0) {
		raw = lead_st;
		if (arg(a, n, "elec") != NULL)
			raw.state.status = ST_ELEC;
		st = raw;
		lead_status(&host_lead, &st);
		say(out, len, "role=%s ldr=%u token=%llu\n",
		    lead_role(&host_lead, &raw), st.state.ldr,
		    (unsigned long long)st.token);
		return 0;
	}
	if ((t = in_type(cmd, ins, nitems(ins))) == -1)
		return -1;
	memset(&in, 0, sizeof(in));
	in.type = (enum lead_in_type)t;
	in.st = lead_st;
	in.ending = lead_ending;
	in.slot = -1;
	if (num(arg(a, n, "now"), 0, INT64_MAX / MS, &v) == -1)
		return -2;
	in.now = v * MS;
	if (arg(a, n, "slot") != NULL) {
		if (num(arg(a, n, "slot"), 0, (long long)host_lead.conf.slots -
		    1, &v) == -1)
			return -2;
		in.slot = (int)v;
	} else if (in.type == LEAD_IN_TASK || in.type == LEAD_IN_KILLED ||
	    in.type == LEAD_IN_GONE)
		return -2;
	in.wait = arg(a, n, "wait") != NULL;
	if ((w = arg(a, n, "why")) != NULL)
		in.why = strcmp(w, "deadline") == 0 ? LEAD_WHY_DEADLINE :
		    strcmp(w, "grace") == 0 ? LEAD_WHY_GRACE :
		    strcmp(w, "epoch") == 0 ? LEAD_WHY_EPOCH : LEAD_WHY_NONE;
	if (in.type == LEAD_IN_VERDICT) {
		if (num(arg(a, n, "vetoed"), 0, 1, &v) == -1)
			return -2;
		in.vetoed = (int)v;
		if (num(arg(a, n, "live"), 0, 65535, &v) == -1)
			return -2;
		in.live = (unsigned)v;
		in.changed = arg(a, n, "changed") != NULL &&
		    strcmp(arg(a, n, "changed"), "1") == 0;
	}
	lead_step(&host_lead, &in, &o);
	for (i = 0; i < o.n; i++) {
		act = &o.v[i];
		switch (act->type) {
		case LEAD_REPLY:
			say(out, len, "reply slot=%d", act->slot);
			lead_reply_say(out, len, &act->r);
			break;
		case LEAD_ANSWER:
			say(out, len, "answer slot=%d", act->slot);
			lead_reply_say(out, len, &act->r);
			break;
		case LEAD_REFUSE:
			say(out, len, "refuse slot=%d\n", act->slot);
			break;
		case LEAD_STOPPING:
			say(out, len, "stopping why=%s tasks=%u\n",
			    lead_why_name(act->why), act->count);
			break;
		case LEAD_STOP:
			say(out, len, "stop slot=%d why=%s\n", act->slot,
			    lead_why_name(act->why));
			break;
		case LEAD_KILLED:
			say(out, len, "killed slot=%d why=%s\n", act->slot,
			    lead_why_name(act->why));
			break;
		case LEAD_LEAVE:
			say(out, len, "leave why=%s tasks=%u\n",
			    lead_why_name(act->why), act->count);
			break;
		}
	}
	say(out, len, "running=%u waiting=%u started=%llu ended=%llu "
	    "told=%llu killed=%llu veto=%s wake=", host_lead.n.running,
	    host_lead.n.waiting, (unsigned long long)host_lead.n.started,
	    (unsigned long long)host_lead.n.ended,
	    (unsigned long long)host_lead.n.told_stop,
	    (unsigned long long)host_lead.n.killed,
	    host_lead.n.vetoed ? "yes" : "no");
	if (o.wake == -1)
		say(out, len, "-\n");
	else
		say(out, len, "%lld\n", (long long)(o.wake / MS));
	return 0;
}

static void	net_reset(void);
static void	names_free(void);
static void	nm_free(void);

static void
host_reset(void)
{
	fit_init(&host_fit, 0);
	host_npeers = 0;
	lead_init(&host_lead, &(struct lead_conf){ .self = 1, .slots = 1 });
	memset(&lead_st, 0, sizeof(lead_st));
	lead_ending = 0;
	acc_n = 0;
	acc_len[0] = acc_len[1] = 0;
	ep_reset();
	net_reset();
	names_free();
	nm_free();
}

static int
host_misfit(const char *s, enum sess_misfit *m)
{
	enum sess_misfit f;

	if (s != NULL && strcmp(s, "ok") == 0) {
		*m = SESS_OK;
		return 0;
	}
	for (f = SESS_ALGO; f <= SESS_KEY; f++)
		if (s != NULL && strcmp(s, sess_misfit_name(f)) == 0) {
			*m = f;
			return 0;
		}
	return -1;
}

/*
 * A host's edge toward its peers (lib/host/net.h): hosts 1..N of one
 * cluster file at 127.0.0.1, port 5000 + id, each with its edge, and the
 * datagrams they send queued in order.
 *
 *	net n=N [algo=NAME] [odd=ID] [key=other]
 *					N hosts, every handshake anew (host
 *					ID under another key, with odd=)
 *	net-send from=A to=B msg=TYPE now=MS
 *					A's core sends B a message
 *	net-tick id=A now=MS		A's HELLOs, releases and summaries
 *	net-fit id=A now=MS		A's verdict anew
 *	net-deliver now=MS [lose=K,...]	the datagrams queued, in order, at
 *					their receivers (the K-th lost)
 *	net-down id=A peer=B [watched=1]
 *					A's detector reports B down (watched
 *					since a start, with watched=)
 *	net-ready id=A			whether A's core may start
 *	net-start id=A			A's core started: what came before
 *	net-names from=A to=B bytes=K	A sends B a named leaderships'
 *					round of K bytes (hnet_send_wire())
 *
 * Each host's actions print as "A: ACTION"; a call's wake as "A: wake=MS".
 */
#define NET_HOSTS	8
#define NET_QUEUE	256

struct net_host {
	struct hnet	 h;
	struct wire_key	 key;
	struct wire_proto proto;
	struct sess_conf conf;
};

static struct net_host net_h[NET_HOSTS];
static size_t net_n;
static struct hnet_out *net_out;
static struct cluster net_file;
static struct cluster_node net_nodes[NET_HOSTS];
static struct {
	size_t		 from, to;
	uint8_t		 dg[WIRE_DGRAM_MAX];
	size_t		 len;
}		*net_q;
static size_t net_nq;

static void
net_reset(void)
{
	size_t i;

	for (i = 0; i < net_n; i++)
		hnet_free(&net_h[i].h);
	net_n = 0;
	net_nq = 0;
}

/* Host I's actions printed, its datagrams queued. */
static void
net_print(size_t i, char *out, size_t len)
{
	const struct hnet_action *a;
	const char *names[] = {
		[HNET_SEND] = "send", [HNET_CORE] = "core",
		[HNET_EPOCH] = "epoch", [HNET_NAMES] = "names",
		[HNET_DROP] = "drop",
		[HNET_PEER] = "peer", [HNET_DEAD] = "dead", [HNET_FD] = "fd",
		[HNET_TRACE] = "trace", [HNET_LOG] = "log",
		[HNET_VERDICT] = "verdict",
	};
	size_t k;

	for (k = 0; k < net_out->n; k++) {
		a = &net_out->v[k];
		say(out, len, "%zu: %s", i + 1, names[a->type]);
		switch (a->type) {
		case HNET_SEND:
			say(out, len, " to=%u%s bytes=%zu\n", a->id,
			    a->hello ? " hello" : "", a->len);
			if (net_nq < NET_QUEUE) {
				net_q[net_nq].from = i;
				net_q[net_nq].to = (size_t)a->id - 1;
				memcpy(net_q[net_nq].dg, a->dgram, a->len);
				net_q[net_nq++].len = a->len;
			}
			break;
		case HNET_CORE:
			say(out, len, " from=%u msg=%s rtt=%s\n", a->id,
			    algo_msg_name(net_h[i].h.c.ops, a->msg->type),
			    a->rtt >= 0 ? "yes" : "-");
			break;
		case HNET_EPOCH:
			say(out, len, " from=%u\n", a->id);
			break;
		case HNET_NAMES:
			say(out, len, " from=%u inc=%" PRIu64 " bytes=%zu\n",
			    a->id, a->inc, a->w->len);
			break;
		case HNET_DROP:
			say(out, len, " from=%u why=%s\n", a->id, a->why);
			break;
		case HNET_PEER:
			say(out, len, " %u %s\n", a->id, a->up ? "up" : "down");
			break;
		case HNET_DEAD:
			say(out, len, " %u inc=%" PRIu64 "\n", a->id, a->inc);
			break;
		case HNET_FD:
		case HNET_TRACE:
			say(out, len, " %s\n", a->text);
			break;
		case HNET_LOG:
			say(out, len, "%s %s\n", a->warn ? " warning:" : "",
			    a->text);
			break;
		case HNET_VERDICT:
			say(out, len, " changed=%s lead=%s\n",
			    a->changed ? "yes" : "no",
			    net_h[i].h.fit.vetoed ? "no" : "yes");
			break;
		}
	}
	hnet_out_clear(net_out);
}

static void
net_wake(size_t i, int64_t wake, char *out, size_t len)
{
	if (wake == INT64_MAX)
		say(out, len, "%zu: wake=-\n", i + 1);
	else
		say(out, len, "%zu: wake=%" PRId64 "\n", i + 1, wake / MS);
}

static int
net_host(struct kv *a, int n, const char *k, size_t *out)
{
	long long id;

	if (num(arg(a, n, k), 1, (long long)net_n, &id) == -1)
		return -1;
	*out = (size_t)id - 1;
	return 0;
}

static int
net_run(const char *cmd, struct kv *a, int n, char *out, size_t len)
{
	const struct algo_ops *ops;
	struct algo_msg m;
	uint8_t nonces[NET_HOSTS * SESS_NONCE];
	long long v, now, odd = 0;
	size_t i, j, k;
	unsigned t;
	char *lose, *p;

	if (strncmp(cmd, "net", 3) != 0)
		return -1;
	if (net_out == NULL && ((net_out = malloc(sizeof(*net_out))) == NULL ||
	    (net_q = calloc(NET_QUEUE, sizeof(*net_q))) == NULL))
		err(2, NULL);
	if (strcmp(cmd, "net") == 0) {
		if (num(arg(a, n, "n"), 1, NET_HOSTS, &v) == -1 ||
		    (ops = algo_find(arg(a, n, "algo") != NULL ?
		    arg(a, n, "algo") : "lease")) == NULL ||
		    (arg(a, n, "odd") != NULL &&
		    num(arg(a, n, "odd"), 1, v, &odd) == -1))
			return -2;
		net_reset();
		hnet_out_clear(net_out);
		net_n = (size_t)v;
		loopback_file(&net_file, net_nodes, net_n);
		for (i = 0; i < net_n; i++) {
			struct net_host *nh = &net_h[i];
			struct hnet_conf hc = {
				.self = (unsigned)i + 1, .ops = ops,
				.key = &nh->key, .proto = &nh->proto,
				.conf = &nh->conf, .inc = 1,
				.cluster = "cluster.conf",
			};

			memset(nh, 0, sizeof(*nh));
			memset(nh->key.k, odd == (long long)i + 1 &&
			    arg(a, n, "key") != NULL ? 9 : 7,
			    sizeof(nh->key.k));
			memcpy(nh->key.id, "0707", 5);
			nh->proto.magic = WIRE_MAGIC_NODE;
			nh->proto.maxtype = (uint8_t)(ops->nmsg - 1);
			nh->proto.names = 1;
			sess_digest(ops->name, strlen(ops->name),
			    nh->conf.d[0]);
			sess_digest("timing", 6, nh->conf.d[1]);
			sess_cluster_digest(&net_file, nh->conf.d[2]);
			for (k = 0; k < sizeof(nonces); k++)
				nonces[k] = (uint8_t)(16 * i + k / SESS_NONCE +
				    1);
			hnet_init(&nh->h, &hc);
			if (hnet_peers(&nh->h, &net_file, 1, nonces) == -1)
				err(2, NULL);
		}
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "net-send") == 0) {
		if (net_host(a, n, "from", &i) == -1 ||
		    net_host(a, n, "to", &j) == -1 || i == j ||
		    num(arg(a, n, "now"), 0, INT64_MAX / MS, &now) == -1 ||
		    arg(a, n, "msg") == NULL || (t = algo_msg_type(
		    net_h[i].h.c.ops, arg(a, n, "msg"))) == 0)
			return -2;
		memset(&m, 0, sizeof(m));
		m.type = (uint8_t)t;
		m.peer = (uint16_t)(j + 1);
		hnet_send(&net_h[i].h, &m, now * MS, net_out);
		net_print(i, out, len);
		say(out, len, "%zu: held=%zu\n", i + 1, net_h[i].h.p[j].nheld);
		return 0;
	}
	if (strcmp(cmd, "net-tick") == 0 || strcmp(cmd, "net-fit") == 0) {
		if (net_host(a, n, "id", &i) == -1 ||
		    num(arg(a, n, "now"), 0, INT64_MAX / MS, &now) == -1)
			return -2;
		if (strcmp(cmd, "net-tick") == 0)
			v = hnet_tick(&net_h[i].h, now * MS, net_out);
		else
			v = hnet_fit(&net_h[i].h, now * MS, net_out);
		net_print(i, out, len);
		net_wake(i, v, out, len);
		return 0;
	}
	if (strcmp(cmd, "net-deliver") == 0) {
		if (num(arg(a, n, "now"), 0, INT64_MAX / MS, &now) == -1)
			return -2;
		lose = arg(a, n, "lose") != NULL ? strdup(arg(a, n, "lose")) :
		    NULL;
		for (k = 0; k < net_nq; k++) {
			int lost = 0;

			for (p = lose; p != NULL && *p != '\0'; ) {
				if (strtoul(p, &p, 10) == k + 1)
					lost = 1;
				if (*p == ',')
					p++;
				else
					break;
			}
			if (lost) {
				say(out, len, "%zu: lost from=%zu\n",
				    net_q[k].to + 1, net_q[k].from + 1);
				continue;
			}
			i = net_q[k].to;
			hnet_recv(&net_h[i].h, net_q[k].dg, net_q[k].len,
			    &net_nodes[net_q[k].from].addr, now * MS,
			    net_out);
			/* What it sends is queued after the rest. */
			net_print(i, out, len);
		}
		free(lose);
		/* Delivered: what came of them waits for the next. */
		memmove(net_q, net_q + k, (net_nq - k) * sizeof(*net_q));
		net_nq -= k;
		return 0;
	}
	if (strcmp(cmd, "net-down") == 0) {
		if (net_host(a, n, "id", &i) == -1 ||
		    net_host(a, n, "peer", &j) == -1)
			return -2;
		if (arg(a, n, "watched") != NULL)
			hnet_monitor(&net_h[i].h, (unsigned)j + 1, 1);
		say(out, len, "%zu: %s\n", i + 1, hnet_down(&net_h[i].h,
		    (unsigned)j + 1, net_out) == 0 ? "taken" : "not watched");
		net_print(i, out, len);
		return 0;
	}
	if (strcmp(cmd, "net-start") == 0) {
		if (net_host(a, n, "id", &i) == -1)
			return -2;
		hnet_start(&net_h[i].h);
		while (hnet_early(&net_h[i].h, &m))
			say(out, len, "%zu: early from=%u msg=%s\n", i + 1,
			    m.peer, algo_msg_name(net_h[i].h.c.ops, m.type));
		say(out, len, "%zu: started\n", i + 1);
		return 0;
	}
	if (strcmp(cmd, "net-names") == 0) {
		static uint8_t pl[WIRE_PAYLOAD_MAX];
		struct wire_msg w;

		if (net_host(a, n, "from", &i) == -1 ||
		    net_host(a, n, "to", &j) == -1 ||
		    num(arg(a, n, "bytes"), 0, WIRE_PAYLOAD_MAX, &v) == -1)
			return -2;
		memset(&w, 0, sizeof(w));
		w.type = WIRE_TYPE_NAMES;
		w.payload = pl;
		w.len = (size_t)v;
		say(out, len, "%zu: names %s\n", i + 1, hnet_send_wire(
		    &net_h[i].h, (unsigned)j + 1, &w, net_out) ? "sent" :
		    "not sent");
		net_print(i, out, len);
		return 0;
	}
	if (strcmp(cmd, "net-ready") == 0) {
		if (net_host(a, n, "id", &i) == -1)
			return -2;
		say(out, len, "%zu: %s\n", i + 1, hnet_ready(&net_h[i].h) ?
		    "ready" : "not ready");
		return 0;
	}
	return -1;
}

/*
 * The registry of names on one host (names.h), times in ms:
 *
 *	names-init [self=N] [max=N] [idle=MS] [linger=MS] [learn=MS]
 *	    [delay=MS] [floor=K] [spread=PCT]
 *					a fresh registry (idle 60000, linger
 *					3000, learn 1500, delay 500, spread
 *					10)
 *	names-register now=MS name=S, names-release now=MS name=S
 *	names-fill now=MS n=N [prefix=P]	N names P0000.. registered
 *	names-core now=MS name=S [holder=ID] [token=T] [k=K] [busy=MS]
 *	names-members now=MS ids=ID,...	the live members
 *	names-heard now=MS name=S	a peer's batch names S
 *	names-tick now=MS
 *	names-query name=S		what the registry knows of S
 *	names-prefer name=S ids=ID,... [self=ID]
 *	names-spread n=N ids=ID,... [prefix=P]
 *					each member's share of N names
 *	names-batch [body=B]		the registry's names laid out in
 *					payloads, each with B bytes of body,
 *					and parsed back
 *	names-parse hex=XX... | payload=K [cut=N] [set=OFF:XX]
 *					a payload parsed: given, or the K-th
 *					of the last batch (its first N bytes,
 *					byte OFF set to XX)
 *
 * Each input answers its actions, a line each, then the counters.
 *
 * A cluster of registries, one per host, each wanting the same names,
 * with an oracle for their leaderships (a bid wins a name nobody live
 * holds, its token above every one before; each host's core hears the
 * holder at once):
 *
 *	names-hosts n=N names=K [prefix=P] [spread=PCT]
 *	names-down id=ID now=MS, names-up id=ID now=MS
 *	names-run until=MS		ticks every 100 ms, bids resolved
 *
 * each answers every host's share and the leaderships that moved.
 */
static struct hnames host_names;
static int names_inited;
static uint8_t names_pl[64][WIRE_PAYLOAD_MAX];
static size_t names_pllen[64], names_npl;

#define NH_HOSTS	8
#define NH_NAMES	512

struct nh_name {
	char		 s[HNAMES_LEN + 1];
	unsigned	 holder;
	uint64_t	 token;
};

static struct hnames nh[NH_HOSTS];
static int nh_up[NH_HOSTS];
static size_t nh_n, nh_k;
static struct nh_name nh_name[NH_NAMES];
static int64_t nh_now;
static uint64_t nh_bids[NH_HOSTS];
static unsigned nh_spread;

static void
names_free(void)
{
	size_t i;

	if (names_inited)
		hnames_free(&host_names);
	names_inited = 0;
	for (i = 0; i < nh_n; i++)
		hnames_free(&nh[i]);
	nh_n = 0;
}

static int
names_conf(struct kv *a, int n, struct hnames_conf *c)
{
	long long v;
	int i;

	memset(c, 0, sizeof(*c));
	c->self = 1;
	c->max = HNAMES_DEFAULT;
	c->idle = 60000 * MS;
	c->linger = 3000 * MS;
	c->learn = 1500 * MS;
	c->delay = 500 * MS;
	c->spread = 10;
	for (i = 0; i < n; i++) {
		if (num(a[i].v, 0, INT32_MAX, &v) == -1)
			return -2;
		if (strcmp(a[i].k, "self") == 0 && v >= 1 && v <= 65535)
			c->self = (unsigned)v;
		else if (strcmp(a[i].k, "max") == 0 && v >= 1)
			c->max = (size_t)v;
		else if (strcmp(a[i].k, "idle") == 0)
			c->idle = v * MS;
		else if (strcmp(a[i].k, "linger") == 0)
			c->linger = v * MS;
		else if (strcmp(a[i].k, "learn") == 0)
			c->learn = v * MS;
		else if (strcmp(a[i].k, "delay") == 0)
			c->delay = v * MS;
		else if (strcmp(a[i].k, "floor") == 0)
			c->floor = (uint64_t)v;
		else if (strcmp(a[i].k, "spread") == 0 && v <= 1000)
			c->spread = (unsigned)v;
		else
			return -2;
	}
	return c->idle >= c->linger ? 0 : -2;
}

/* IDS "1,2,3" into V (at most MAX), their count in *N. */
static int
names_ids(const char *s, unsigned *v, size_t max, size_t *n)
{
	char buf[512], *p, *w;
	long long id;

	if (s == NULL || strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
		return -1;
	*n = 0;
	for (p = buf; (w = strsep(&p, ",")) != NULL;) {
		if (*n == max || num(w, 1, 65535, &id) == -1)
			return -1;
		v[(*n)++] = (unsigned)id;
	}
	return 0;
}

static void
names_acts(const struct hnames_out *o, const char *pfx, char *out, size_t len)
{
	static const char *const t[] = {
		[HNAMES_REFUSE] = "refuse", [HNAMES_CREATE] = "create",
		[HNAMES_BID] = "bid", [HNAMES_RESIGN] = "resign",
		[HNAMES_SAVE] = "save", [HNAMES_FORGET] = "forget",
	};
	const struct hnames_action *a;
	size_t i;

	for (i = 0; i < o->n; i++) {
		a = &o->v[i];
		say(out, len, "%s%s", pfx, t[a->type]);
		if (a->type == HNAMES_REFUSE)
			say(out, len, ": %s", o->why);
		if (a->len > 0)
			say(out, len, " %s", a->name);
		if (a->type == HNAMES_CREATE || a->type == HNAMES_SAVE)
			say(out, len, " floor=%llu",
			    (unsigned long long)a->floor);
		if (a->type == HNAMES_BID)
			say(out, len, " rank=%zu", a->rank);
		say(out, len, "\n");
	}
}

static void
names_counts(const struct hnames *r, int64_t wake, char *out, size_t len)
{
	say(out, len, "known=%zu held=%zu waiting=%zu created=%llu "
	    "forgotten=%llu refused=%llu floor=%llu wake=", r->n.known,
	    r->n.held, r->n.waiting, (unsigned long long)r->n.created,
	    (unsigned long long)r->n.forgotten,
	    (unsigned long long)r->n.refused, (unsigned long long)r->floor);
	if (wake == -1)
		say(out, len, "-\n");
	else
		say(out, len, "%lld\n", (long long)(wake / MS));
}

static void
names_entry(const struct hnb_entry *e, char *out, size_t len)
{
	say(out, len, " %s", e->name);
	if (e->kind == HNB_HELD)
		say(out, len, "=%llu", (unsigned long long)e->token);
	if (e->blen > 0)
		say(out, len, "+%zu", e->blen);
}

/* The shares of the hosts: each one's count, and the largest against
 * an even share of the hosts up. */
static void
nh_shares(char *out, size_t len)
{
	size_t count[NH_HOSTS] = { 0 }, i, up = 0, most = 0, none = 0;

	for (i = 0; i < nh_k; i++) {
		if (nh_name[i].holder == 0)
			none++;
		else
			count[nh_name[i].holder - 1]++;
	}
	say(out, len, "shares");
	for (i = 0; i < nh_n; i++) {
		say(out, len, " %zu:%zu%s", i + 1, count[i], nh_up[i] ? "" :
		    "(down)");
		up += nh_up[i];
		if (count[i] > most)
			most = count[i];
	}
	say(out, len, " none:%zu largest/even=%.2f\n", none,
	    up > 0 ? (double)most * (double)up / (double)nh_k : 0.0);
}

static void
nh_members(size_t i, int64_t now)
{
	struct hnames_input in = { .type = HNAMES_IN_MEMBERS, .now = now };
	struct hnames_out o;
	unsigned ids[NH_HOSTS];
	size_t j, n = 0;

	for (j = 0; j < nh_n; j++)
		if (nh_up[j])
			ids[n++] = (unsigned)j + 1;
	in.ids = ids;
	in.nids = n;
	hnames_step(&nh[i], &in, &o);
}

/* Host I's core for name K hears who holds it. */
static void
nh_core(size_t i, size_t k, int64_t now)
{
	struct hnames_input in = { .type = HNAMES_IN_CORE, .now = now };
	struct hnames_out o;

	in.name = nh_name[k].s;
	in.len = strlen(nh_name[k].s);
	in.holder = nh_name[k].holder;
	in.token = nh_name[k].holder == i + 1 ? nh_name[k].token : 0;
	in.k = nh_name[k].token;
	in.busy = nh_name[k].holder != 0 ? now + 3000 * MS : 0;
	hnames_step(&nh[i], &in, &o);
}

/* Host I anew, wanting every name, hearing the holders. */
static void
nh_boot(size_t i, int64_t now)
{
	struct hnames_conf c;
	struct hnames_input in = { .type = HNAMES_IN_REGISTER, .now = now };
	struct hnames_out o;
	size_t k;

	names_conf(NULL, 0, &c);
	c.self = (unsigned)i + 1;
	c.spread = nh_spread;
	c.max = NH_NAMES;
	if (hnames_init(&nh[i], &c) == -1)
		err(2, NULL);
	nh_up[i] = 1;
	for (k = 0; k < nh_k; k++) {
		in.name = nh_name[k].s;
		in.len = strlen(in.name);
		hnames_step(&nh[i], &in, &o);
		nh_core(i, k, now);
	}
}

/* Ticks every 100 ms until UNTIL: a bid wins a name nobody live holds,
 * and every host up hears it. */
static void
nh_run(int64_t until)
{
	struct hnames_input in = { .type = HNAMES_IN_TICK };
	struct hnames_out o;
	size_t i, j, k, m;
	unsigned h;

	for (; nh_now <= until; nh_now += 100 * MS)
		for (i = 0; i < nh_n; i++) {
			if (!nh_up[i])
				continue;
			in.now = nh_now;
			hnames_step(&nh[i], &in, &o);
			for (j = 0; j < o.n; j++) {
				if (o.v[j].type != HNAMES_BID)
					continue;
				nh_bids[i]++;
				for (k = 0; k < nh_k; k++)
					if (strcmp(nh_name[k].s,
					    o.v[j].name) == 0)
						break;
				h = nh_name[k].holder;
				if (h != 0 && nh_up[h - 1])
					continue;
				nh_name[k].holder = (unsigned)i + 1;
				nh_name[k].token++;
				for (m = 0; m < nh_n; m++)
					if (nh_up[m])
						nh_core(m, k, nh_now);
			}
		}
}

static int
nh_run_cmd(const char *cmd, struct kv *a, int n, char *out, size_t len)
{
	unsigned before[NH_NAMES];
	const char *pfx;
	long long v, now;
	size_t i, k, moved = 0, back = 0;
	uint64_t bids[NH_HOSTS];

	if (strcmp(cmd, "names-hosts") == 0) {
		names_free();
		if (num(arg(a, n, "n"), 1, NH_HOSTS, &v) == -1)
			return -2;
		nh_n = (size_t)v;
		if (num(arg(a, n, "names"), 1, NH_NAMES, &v) == -1)
			return -2;
		nh_k = (size_t)v;
		pfx = arg(a, n, "prefix") != NULL ? arg(a, n, "prefix") : "job-";
		if (strlen(pfx) > HNAMES_LEN - 4)
			return -2;
		v = 10;
		if (arg(a, n, "spread") != NULL && num(arg(a, n, "spread"), 0,
		    1000, &v) == -1)
			return -2;
		nh_spread = (unsigned)v;
		nh_now = 0;
		memset(nh_name, 0, sizeof(nh_name));
		memset(nh_bids, 0, sizeof(nh_bids));
		for (k = 0; k < nh_k; k++)
			snprintf(nh_name[k].s, sizeof(nh_name[k].s), "%s%04zu",
			    pfx, k);
		for (i = 0; i < nh_n; i++)
			nh_boot(i, 0);
		for (i = 0; i < nh_n; i++)
			nh_members(i, 0);
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "names-down") != 0 && strcmp(cmd, "names-up") != 0 &&
	    strcmp(cmd, "names-run") != 0)
		return -1;
	if (nh_n == 0)
		return -2;
	for (k = 0; k < nh_k; k++)
		before[k] = nh_name[k].holder;
	memcpy(bids, nh_bids, sizeof(bids));
	if (strcmp(cmd, "names-run") == 0) {
		if (num(arg(a, n, "until"), 0, INT32_MAX, &now) == -1)
			return -2;
	} else {
		if (num(arg(a, n, "id"), 1, (long long)nh_n, &v) == -1 ||
		    num(arg(a, n, "now"), 0, INT32_MAX, &now) == -1 ||
		    now * MS < nh_now)
			return -2;
		nh_now = now * MS;
		i = (size_t)v - 1;
		if (strcmp(cmd, "names-down") == 0) {
			if (!nh_up[i])
				return -2;
			nh_up[i] = 0;
			hnames_free(&nh[i]);
		} else {
			if (nh_up[i])
				return -2;
			nh_boot(i, nh_now);
		}
		for (k = 0; k < nh_n; k++)
			if (nh_up[k])
				nh_members(k, nh_now);
		/* The leases of a host down have run out when the run
		 * goes on: every core hears no holder. */
		for (k = 0; k < nh_k; k++)
			if (nh_name[k].holder == i + 1 && !nh_up[i]) {
				nh_name[k].holder = 0;
				for (v = 0; v < (long long)nh_n; v++)
					if (nh_up[v])
						nh_core((size_t)v, k, nh_now);
			}
		now = now + 5000;
	}
	nh_run(now * MS);
	for (k = 0; k < nh_k; k++) {
		moved += nh_name[k].holder != before[k] && before[k] != 0;
		back += before[k] != 0 && nh_up[before[k] - 1] &&
		    nh_name[k].holder != before[k];
	}
	nh_shares(out, len);
	say(out, len, "moved=%zu from-live=%zu bids", moved, back);
	for (i = 0; i < nh_n; i++)
		say(out, len, " %zu:%llu", i + 1,
		    (unsigned long long)(nh_bids[i] - bids[i]));
	say(out, len, "\n");
	return 0;
}

static int
names_run(const char *cmd, struct kv *a, int n, char *out, size_t len)
{
	static const struct in_name ins[] = {
		{ "names-tick", HNAMES_IN_TICK },
		{ "names-register", HNAMES_IN_REGISTER },
		{ "names-release", HNAMES_IN_RELEASE },
		{ "names-core", HNAMES_IN_CORE },
		{ "names-members", HNAMES_IN_MEMBERS },
		{ "names-heard", HNAMES_IN_HEARD },
	};
	struct hnames_conf c;
	struct hnames_input in;
	struct hnames_out o;
	struct hnb_writer w;
	struct hnb_entry *v;
	const struct hname *h, *after;
	unsigned ids[64], pick, count[64] = { 0 };
	char name[HNAMES_LEN + 8], *hex;
	const char *s, *why;
	long long x, now;
	size_t i, k, nids, rank, most, total;
	uint8_t body[HNB_BODY_MAX], pl[WIRE_PAYLOAD_MAX];
	int done, rc, t;

	if ((rc = nh_run_cmd(cmd, a, n, out, len)) != -1)
		return rc;
	if (strcmp(cmd, "names-init") == 0) {
		if (names_conf(a, n, &c) == -2)
			return -2;
		names_free();
		if (hnames_init(&host_names, &c) == -1)
			err(2, NULL);
		names_inited = 1;
		names_npl = 0;
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "names-prefer") == 0 ||
	    strcmp(cmd, "names-spread") == 0) {
		if (names_ids(arg(a, n, "ids"), ids, nitems(ids), &nids) == -1)
			return -2;
		if (strcmp(cmd, "names-prefer") == 0) {
			if ((s = arg(a, n, "name")) == NULL ||
			    strlen(s) > HNAMES_LEN || num(arg(a, n, "self") !=
			    NULL ? arg(a, n, "self") : "1", 1, 65535, &x) == -1)
				return -2;
			pick = hnames_prefer(s, strlen(s), ids, nids,
			    (unsigned)x, &rank);
			say(out, len, "preferred=%u rank=%zu\n", pick, rank);
			return 0;
		}
		if (num(arg(a, n, "n"), 1, 100000, &x) == -1)
			return -2;
		s = arg(a, n, "prefix") != NULL ? arg(a, n, "prefix") : "job-";
		for (k = 0; k < (size_t)x; k++) {
			snprintf(name, sizeof(name), "%s%04zu", s, k);
			if (strlen(name) > HNAMES_LEN)
				return -2;
			pick = hnames_prefer(name, strlen(name), ids, nids, 0,
			    &rank);
			for (i = 0; i < nids && ids[i] != pick; i++)
				;
			count[i]++;
		}
		say(out, len, "shares");
		for (i = most = 0; i < nids; i++) {
			say(out, len, " %u:%u", ids[i], count[i]);
			if (count[i] > most)
				most = count[i];
		}
		say(out, len, " largest/even=%.2f\n", (double)most *
		    (double)nids / (double)x);
		return 0;
	}
	if (strncmp(cmd, "names-", 6) != 0)
		return -1;
	if (strcmp(cmd, "names-parse") == 0) {
		if ((hex = (char *)arg(a, n, "hex")) != NULL) {
			for (k = 0; hex[2 * k] != '\0' && hex[2 * k + 1] !=
			    '\0' && k < sizeof(pl); k++)
				if (sscanf(hex + 2 * k, "%2hhx", &pl[k]) != 1)
					return -2;
			total = k;
		} else {
			if (num(arg(a, n, "payload"), 0,
			    (long long)names_npl - 1, &x) == -1)
				return -2;
			total = names_pllen[x];
			memcpy(pl, names_pl[x], total);
			if (arg(a, n, "cut") != NULL) {
				if (num(arg(a, n, "cut"), 0, (long long)total,
				    &now) == -1)
					return -2;
				total = (size_t)now;
			}
			if ((s = arg(a, n, "set")) != NULL) {
				unsigned off, val;

				if (sscanf(s, "%u:%x", &off, &val) != 2 ||
				    off >= total || val > 255)
					return -2;
				pl[off] = (uint8_t)val;
			}
		}
		if ((v = calloc(HNB_ENTRIES_MAX, sizeof(*v))) == NULL)
			err(2, NULL);
		if ((rc = hnb_parse(pl, total, v, &why)) < 0)
			say(out, len, "refused: %s\n", why);
		else {
			say(out, len, "%d names:", rc);
			for (i = 0; i < (size_t)rc; i++)
				names_entry(&v[i], out, len);
			say(out, len, "\n");
		}
		free(v);
		return 0;
	}
	if (!names_inited)
		return -2;
	if (strcmp(cmd, "names-query") == 0) {
		if ((s = arg(a, n, "name")) == NULL)
			return -2;
		if ((h = hnames_find(&host_names, s, strlen(s))) == NULL)
			say(out, len, "unknown\n");
		else
			say(out, len, "%s regs=%u holder=%u token=%llu k=%llu "
			    "floor=%llu\n", h->s, h->regs, h->holder,
			    (unsigned long long)h->token,
			    (unsigned long long)h->k,
			    (unsigned long long)h->floor);
		names_counts(&host_names, -1, out, len);
		return 0;
	}
	if (strcmp(cmd, "names-fill") == 0) {
		if (num(arg(a, n, "now"), 0, INT32_MAX, &now) == -1 ||
		    num(arg(a, n, "n"), 1, 100000, &x) == -1)
			return -2;
		s = arg(a, n, "prefix") != NULL ? arg(a, n, "prefix") : "job-";
		memset(&in, 0, sizeof(in));
		in.type = HNAMES_IN_REGISTER;
		in.now = now * MS;
		for (k = total = 0; k < (size_t)x; k++) {
			snprintf(name, sizeof(name), "%s%04zu", s, k);
			in.name = name;
			in.len = strlen(name);
			hnames_step(&host_names, &in, &o);
			/* The first refusal said, the rest counted. */
			if (o.n > 0 && o.v[0].type == HNAMES_REFUSE &&
			    total++ == 0)
				say(out, len, "%s: %s\n", name, o.why);
		}
		names_counts(&host_names, -1, out, len);
		return 0;
	}
	if (strcmp(cmd, "names-batch") == 0) {
		x = 0;
		if (arg(a, n, "body") != NULL && num(arg(a, n, "body"), 0,
		    HNB_BODY_MAX, &x) == -1)
			return -2;
		memset(body, 0xb0, sizeof(body));
		if ((v = calloc(HNB_ENTRIES_MAX, sizeof(*v))) == NULL)
			err(2, NULL);
		after = NULL;
		names_npl = total = 0;
		for (done = 0; !done;) {
			if (names_npl == nitems(names_pl))
				return -2;
			hnb_start(&w, names_pl[names_npl], WIRE_PAYLOAD_MAX);
			h = after;
			if (x == 0)
				after = hnames_batch(&host_names, after, &w,
				    &done);
			else {
				/* Each name with a body, as a lease core's
				 * part would be. */
				struct hnb_entry e;

				for (h = hnames_next(&host_names, after); h !=
				    NULL; h = hnames_next(&host_names, h)) {
					if (hnames_entry(&host_names, h, &e) ==
					    -1)
						continue;
					e.body = body;
					e.blen = (size_t)x;
					if (hnb_put(&w, &e) == -1)
						break;
					after = h;
				}
				done = h == NULL;
			}
			if ((names_pllen[names_npl] = hnb_end(&w)) == 0)
				break;
			rc = hnb_parse(names_pl[names_npl],
			    names_pllen[names_npl], v, &why);
			say(out, len, "payload %zu: %u names, %zu bytes",
			    names_npl, w.count, names_pllen[names_npl]);
			if (rc < 0)
				say(out, len, ", parsed: %s\n", why);
			else
				say(out, len, ", parsed: %d, %s .. %s\n", rc,
				    v[0].name, v[rc - 1].name);
			total += rc > 0 ? (size_t)rc : 0;
			names_npl++;
		}
		free(v);
		say(out, len, "%zu payloads, %zu names\n", names_npl, total);
		return 0;
	}
	if ((t = in_type(cmd, ins, nitems(ins))) == -1)
		return -1;
	memset(&in, 0, sizeof(in));
	in.type = (enum hnames_in_type)t;
	if (num(arg(a, n, "now"), 0, INT32_MAX, &now) == -1)
		return -2;
	in.now = now * MS;
	if (in.type != HNAMES_IN_TICK && in.type != HNAMES_IN_MEMBERS) {
		if ((in.name = arg(a, n, "name")) == NULL)
			return -2;
		in.len = strlen(in.name);
	}
	if (in.type == HNAMES_IN_CORE) {
		if ((s = arg(a, n, "holder")) != NULL) {
			if (num(s, 0, 65535, &x) == -1)
				return -2;
			in.holder = (unsigned)x;
		}
		if ((s = arg(a, n, "token")) != NULL) {
			if (num(s, 0, INT64_MAX, &x) == -1)
				return -2;
			in.token = (uint64_t)x;
		}
		if ((s = arg(a, n, "k")) != NULL) {
			if (num(s, 0, INT64_MAX, &x) == -1)
				return -2;
			in.k = (uint64_t)x;
		}
		if ((s = arg(a, n, "busy")) != NULL) {
			if (num(s, 0, INT32_MAX, &x) == -1)
				return -2;
			in.busy = x * MS;
		}
	}
	if (in.type == HNAMES_IN_MEMBERS) {
		if (names_ids(arg(a, n, "ids"), ids, nitems(ids), &nids) == -1)
			return -2;
		in.ids = ids;
		in.nids = nids;
	}
	hnames_step(&host_names, &in, &o);
	names_acts(&o, "", out, len);
	names_counts(&host_names, o.wake, out, len);
	return 0;
}


/*
 * Named leaderships (lib/host/named.h) on hosts 1..N of one cluster,
 * over links of one latency, every host's clock the same:
 *	named n=N [max=K] [lat=MS] [learn=MS] [delay=MS]
 *	named-register host=H name=X	named-release host=H name=X
 *	named-run until=MS		named-kill host=H [dead=1]
 *	named-restart host=H		named-link a=A b=B up=0|1
 *	named-status
 * A run prints every trace line but the renewals (counted) and every
 * log line, with its time in ms and host, and ends with what it
 * checked: no name led by two hosts at once, tokens increasing.
 */
#define NM_HOSTS	9
#define NM_MSGS		65536

struct nm_msg {
	int64_t		 at;
	unsigned	 from, to;
	uint64_t	 inc;
	size_t		 len;
	uint8_t		 p[WIRE_PAYLOAD_MAX];
};

static struct hnl nm[NM_HOSTS];
static struct hnl_out nm_o;
static int nm_up[NM_HOSTS], nm_cut[NM_HOSTS][NM_HOSTS];
static uint64_t nm_inc[NM_HOSTS], nm_floor[NM_HOSTS];
static int64_t nm_wake[NM_HOSTS], nm_now, nm_lat;
static struct hnames_conf nm_nc;
static size_t nm_n, nm_nmsg, nm_renews, nm_sends;
static struct nm_msg *nm_q;
static int nm_bad;

static void
nm_free(void)
{
	size_t i;

	for (i = 0; i < nm_n; i++)
		if (nm_up[i])
			hnl_free(&nm[i]);
	if (nm_o.v != NULL)
		hnl_out_free(&nm_o);
	free(nm_q);
	nm_q = NULL;
	nm_n = nm_nmsg = 0;
}

static void nm_step(size_t i, struct hnl_input *in, char *out, size_t len);

static void
nm_boot(size_t i, int64_t now)
{
	struct hnl_conf c;
	unsigned ids[NM_HOSTS];
	size_t j;

	for (j = 0; j < nm_n; j++)
		ids[j] = (unsigned)j + 1;
	memset(&c, 0, sizeof(c));
	c.self = (unsigned)i + 1;
	c.inc = ++nm_inc[i];
	c.ids = ids;
	c.nids = nm_n;
	algo_timing_default(&c.timing);
	c.names = nm_nc;
	c.names.floor = nm_floor[i];	/* as its state directory kept it */
	if (hnl_init(&nm[i], &c, now) == -1)
		errx(2, "hnl_init");
	if (nm_o.v == NULL && hnl_out_init(&nm_o, &nm[i]) == -1)
		err(2, NULL);
	nm_up[i] = 1;
	nm_wake[i] = now;
}

/* No name led by two hosts at once. */
static void
nm_check(char *out, size_t len)
{
	const struct hname *h;
	struct hnl_status st;
	size_t i, j, leaders;

	for (i = 0; i < nm_n; i++) {
		if (!nm_up[i])
			continue;
		for (h = hnames_next(&nm[i].reg, NULL); h != NULL;
		    h = hnames_next(&nm[i].reg, h)) {
			hnl_query(&nm[i], h->s, h->len, nm_now, &st);
			if (!st.leader)
				continue;
			leaders = 1;
			for (j = 0; j < nm_n; j++) {
				struct hnl_status o;

				if (j == i || !nm_up[j])
					continue;
				hnl_query(&nm[j], h->s, h->len, nm_now, &o);
				leaders += o.leader;
			}
			if (leaders > 1 && !nm_bad) {
				say(out, len, "%" PRId64 " VIOLATION: %s led "
				    "by %zu hosts\n", nm_now / MS, h->s,
				    leaders);
				nm_bad = 1;
			}
		}
	}
}

static void
nm_acts(size_t i, char *out, size_t len)
{
	size_t k;

	for (k = 0; k < nm_o.n; k++) {
		const struct hnl_action *a = &nm_o.v[k];

		switch (a->type) {
		case HNL_SEND:
			if (nm_nmsg == NM_MSGS)
				errx(2, "named: too many messages");
			nm_q[nm_nmsg].at = nm_now + nm_lat;
			nm_q[nm_nmsg].from = (unsigned)i + 1;
			nm_q[nm_nmsg].to = a->id;
			nm_q[nm_nmsg].inc = nm_inc[i];
			nm_q[nm_nmsg].len = a->len;
			memcpy(nm_q[nm_nmsg].p, a->payload, a->len);
			nm_nmsg++;
			nm_sends++;
			break;
		case HNL_TRACE:
			if (strncmp(a->text, "renew ", 6) == 0 ||
			    strncmp(a->text, "clock ", 6) == 0) {
				nm_renews++;
				break;
			}
			say(out, len, "%" PRId64 " %zu %s\n", nm_now / MS, i + 1,
			    a->text);
			break;
		case HNL_LOG:
		case HNL_REFUSE:
			say(out, len, "%" PRId64 " %zu %s: %s\n", nm_now / MS,
			    i + 1, a->type == HNL_LOG ? "log" : "refuse",
			    a->text);
			break;
		case HNL_DROP:
			say(out, len, "%" PRId64 " %zu drop: %s\n", nm_now / MS,
			    i + 1, a->why);
			break;
		case HNL_SAVE:
			say(out, len, "%" PRId64 " %zu save floor=%" PRIu64 "\n",
			    nm_now / MS, i + 1, a->floor);
			nm_floor[i] = a->floor;
			break;
		case HNL_STATUS:
			break;
		}
	}
	nm_wake[i] = nm_o.wake;
}

static void
nm_step(size_t i, struct hnl_input *in, char *out, size_t len)
{
	in->now = nm_now;
	hnl_step(&nm[i], in, &nm_o);
	nm_acts(i, out, len);
}

static void
nm_run(int64_t until, char *out, size_t len)
{
	struct hnl_input in;
	struct nm_msg m;
	size_t i, k, best;
	int64_t t;

	for (;;) {
		t = INT64_MAX;
		best = SIZE_MAX;
		for (k = 0; k < nm_nmsg; k++)
			if (nm_q[k].at < t) {
				t = nm_q[k].at;
				best = k;
			}
		for (i = 0; i < nm_n; i++)
			if (nm_up[i] && nm_wake[i] != -1 && nm_wake[i] < t) {
				t = nm_wake[i];
				best = SIZE_MAX - 1 - i;
			}
		if (t > until || best == SIZE_MAX)
			break;
		if (t > nm_now)
			nm_now = t;
		memset(&in, 0, sizeof(in));
		if (best < nm_nmsg) {
			m = nm_q[best];
			memmove(&nm_q[best], &nm_q[best + 1],
			    (nm_nmsg - best - 1) * sizeof(*nm_q));
			nm_nmsg--;
			i = m.to - 1;
			if (!nm_up[i] || nm_cut[m.from - 1][i] ||
			    m.inc != nm_inc[m.from - 1])
				continue;
			in.type = HNL_IN_RECV;
			in.id = m.from;
			in.inc = m.inc;
			in.p = m.p;
			in.len = m.len;
		} else {
			i = SIZE_MAX - 1 - best;
			in.type = HNL_IN_TICK;
		}
		nm_step(i, &in, out, len);
		nm_check(out, len);
	}
	nm_now = until;
}

static void
nm_status(char *out, size_t len)
{
	const struct hname *h;
	struct hnl_status st;
	size_t i;

	for (i = 0; i < nm_n; i++) {
		if (!nm_up[i]) {
			say(out, len, "host %zu: down\n", i + 1);
			continue;
		}
		say(out, len, "host %zu:", i + 1);
		for (h = hnames_next(&nm[i].reg, NULL); h != NULL;
		    h = hnames_next(&nm[i].reg, h)) {
			hnl_query(&nm[i], h->s, h->len, nm_now, &st);
			if (st.leader)
				say(out, len, " %s=leads,token=%" PRIu64, h->s,
				    st.token);
			else if (st.holder != 0)
				say(out, len, " %s=%u", h->s, st.holder);
			else
				say(out, len, " %s=-", h->s);
		}
		say(out, len, "\n");
	}
}

static int
named_run(const char *cmd, struct kv *a, int n, char *out, size_t len)
{
	struct hnl_input in;
	long long v, h = 0;
	size_t i;

	if (strncmp(cmd, "named", 5) != 0)
		return -1;
	if (strcmp(cmd, "named") == 0) {
		nm_free();
		if (num(arg(a, n, "n"), 1, NM_HOSTS, &v) == -1)
			return -2;
		nm_n = (size_t)v;
		memset(&nm_nc, 0, sizeof(nm_nc));
		nm_nc.max = 64;
		nm_nc.idle = 60000 * MS;
		nm_nc.linger = 3000 * MS;
		nm_nc.learn = 0;
		nm_nc.delay = 5 * MS;
		nm_nc.spread = 10;
		nm_lat = 1 * MS;
		if (arg(a, n, "max") != NULL) {
			if (num(arg(a, n, "max"), 1, HNAMES_DEFAULT, &v) == -1)
				return -2;
			nm_nc.max = (size_t)v;
		}
		if (arg(a, n, "lat") != NULL) {
			if (num(arg(a, n, "lat"), 0, 1000, &v) == -1)
				return -2;
			nm_lat = v * MS;
		}
		if (arg(a, n, "learn") != NULL) {
			if (num(arg(a, n, "learn"), 0, 100000, &v) == -1)
				return -2;
			nm_nc.learn = v * MS;
		}
		if (arg(a, n, "delay") != NULL) {
			if (num(arg(a, n, "delay"), 0, 100000, &v) == -1)
				return -2;
			nm_nc.delay = v * MS;
		}
		if ((nm_q = calloc(NM_MSGS, sizeof(*nm_q))) == NULL)
			err(2, NULL);
		memset(nm_inc, 0, sizeof(nm_inc));
		memset(nm_floor, 0, sizeof(nm_floor));
		memset(nm_cut, 0, sizeof(nm_cut));
		nm_now = 0;
		nm_bad = 0;
		for (i = 0; i < nm_n; i++)
			nm_boot(i, 0);
		say(out, len, "ok\n");
		return 0;
	}
	if (nm_n == 0)
		return -2;
	if (arg(a, n, "host") != NULL &&
	    num(arg(a, n, "host"), 1, (long long)nm_n, &h) == -1)
		return -2;
	memset(&in, 0, sizeof(in));
	nm_renews = nm_sends = 0;
	if (strcmp(cmd, "named-register") == 0 ||
	    strcmp(cmd, "named-release") == 0) {
		if (h == 0 || arg(a, n, "name") == NULL || !nm_up[h - 1])
			return -2;
		in.type = cmd[6] == 'r' && cmd[8] == 'g' ? HNL_IN_REGISTER :
		    HNL_IN_RELEASE;
		in.name = arg(a, n, "name");
		in.nlen = strlen(in.name);
		nm_step((size_t)h - 1, &in, out, len);
		return 0;
	}
	if (strcmp(cmd, "named-run") == 0) {
		if (num(arg(a, n, "until"), 0, INT32_MAX, &v) == -1 ||
		    v * MS < nm_now)
			return -2;
		nm_run(v * MS, out, len);
		say(out, len, "%" PRId64 ": %zu datagrams, %zu renew and "
		    "clock lines%s\n", nm_now / MS, nm_sends, nm_renews,
		    nm_bad ? "" : ", no name led twice");
		return 0;
	}
	if (strcmp(cmd, "named-kill") == 0) {
		if (h == 0 || !nm_up[h - 1])
			return -2;
		hnl_free(&nm[h - 1]);
		nm_up[h - 1] = 0;
		if (arg(a, n, "dead") != NULL && strcmp(arg(a, n, "dead"),
		    "1") == 0)
			for (i = 0; i < nm_n; i++) {
				if (!nm_up[i])
					continue;
				memset(&in, 0, sizeof(in));
				in.type = HNL_IN_DEAD;
				in.id = (unsigned)h;
				in.inc = nm_inc[h - 1] + 1;
				nm_step(i, &in, out, len);
			}
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "named-restart") == 0) {
		if (h == 0 || nm_up[h - 1])
			return -2;
		nm_boot((size_t)h - 1, nm_now);
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "named-link") == 0) {
		long long x, y;

		if (num(arg(a, n, "a"), 1, (long long)nm_n, &x) == -1 ||
		    num(arg(a, n, "b"), 1, (long long)nm_n, &y) == -1 ||
		    num(arg(a, n, "up"), 0, 1, &v) == -1)
			return -2;
		nm_cut[x - 1][y - 1] = nm_cut[y - 1][x - 1] = !v;
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "named-status") == 0) {
		nm_status(out, len);
		return 0;
	}
	return -2;
}

static int
host_run(const char *cmd, struct kv *a, int n, char *out, size_t len)
{
	/* The host's cores, each its own commands; fit.h's follow. */
	static int (*const runs[])(const char *, struct kv *, int, char *,
	    size_t) = { ep_run, net_run, acc_run, lead_run, names_run,
	    named_run };
	long long id, at = 0, now, q;
	enum sess_misfit m;
	int64_t wake;
	size_t i;
	int changed;

	for (i = 0; i < nitems(runs); i++)
		switch (runs[i](cmd, a, n, out, len)) {
		case 0:
			return 0;
		case -2:
			say(out, len, "error: bad arguments to %s\n", cmd);
			return -1;
		}
	if (strcmp(cmd, "init") == 0) {
		if (num(arg(a, n, "quorum"), 0, 1, &q) == -1)
			goto usage;
		fit_init(&host_fit, (int)q);
		host_npeers = 0;
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "peer") == 0) {
		if (num(arg(a, n, "id"), 1, 65535, &id) == -1 ||
		    host_misfit(arg(a, n, "misfit"), &m) == -1 ||
		    (arg(a, n, "at") != NULL &&
		    num(arg(a, n, "at"), 0, INT64_MAX / MS, &at) == -1))
			goto usage;
		for (i = 0; i < host_npeers; i++)
			if (host_peers[i].id == id)
				break;
		if (i == nitems(host_peers)) {
			say(out, len, "error: too many peers\n");
			return -1;
		}
		if (i == host_npeers)
			host_npeers++;
		host_peers[i].id = (unsigned)id;
		host_peers[i].misfit = m;
		host_peers[i].odd_at = at * MS;
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "stranger") == 0) {
		if (num(arg(a, n, "id"), 1, 65535, &id) == -1 ||
		    num(arg(a, n, "at"), 0, INT64_MAX / MS, &at) == -1)
			goto usage;
		say(out, len, "%s\n", fit_stranger(&host_fit, (unsigned)id,
		    at * MS) ? "new" : "again");
		return 0;
	}
	if (strcmp(cmd, "step") == 0) {
		if (num(arg(a, n, "now"), 0, INT64_MAX / MS, &now) == -1)
			goto usage;
		changed = fit_step(&host_fit, host_peers, host_npeers,
		    now * MS, &wake);
		say(out, len, "changed=%s lead=%s live=%u peers=%s wake=",
		    changed ? "yes" : "no", host_fit.vetoed ? "no" : "yes",
		    host_fit.live, host_fit.odd);
		if (wake == INT64_MAX)
			say(out, len, "-\n");
		else
			say(out, len, "%" PRId64 "\n", wake / MS);
		return 0;
	}
usage:
	say(out, len, "error: unknown command %s\n", cmd);
	return -1;
}

/*
 * The drive tools' cores.  A line naming the tool starts its driver with
 * the options that follow; every other line is a script line.
 */
static int drive_started;

static void
drive_reset(void)
{
	algo_drive_end();
	fd_drive_end();
	drive_started = 0;
}

static void
drive_do(const char *tool, void (*start)(int, char **),
    void (*line)(char *, FILE *), char *text, FILE *fp)
{
	char *argv[64], *p = text;
	size_t n = strlen(tool);
	int argc = 0;

	if (strncmp(text, tool, n) == 0 &&
	    (text[n] == ' ' || text[n] == '\0')) {
		while ((argv[argc] = strsep(&p, " \t")) != NULL)
			if (*argv[argc] != '\0' && ++argc == (int)nitems(argv))
				drive_bad("too many options");
		drive_started = 0;
		start(argc, argv);
		drive_started = 1;
	} else if (!drive_started)
		drive_bad("no %s line before", tool);
	else
		line(text, fp);
}

/* A line the driver refuses answers its error. */
static void
drive_run(const char *tool, void (*start)(int, char **),
    void (*line)(char *, FILE *), char *text, FILE *fp)
{
	jmp_buf jb;

	if (setjmp(jb) != 0)
		fprintf(fp, "error: %s\n", drive_caught);
	else {
		drive_catch = &jb;
		drive_do(tool, start, line, text, fp);
	}
	drive_catch = NULL;
}

static void
algo_line(char *text, FILE *fp)
{
	drive_run("algo-drive", algo_drive_start, algo_drive_line, text, fp);
}

static void
guard_line(char *text, FILE *fp)
{
	drive_run("guard-drive", guard_drive_start, guard_drive_line, text,
	    fp);
}

static void
fd_line(char *text, FILE *fp)
{
	drive_run("fd-sim", fd_drive_start, fd_drive_line, text, fp);
}

/* parse TEXT: TEXT unescaped, as a testament file. */
static void
testament_line(char *text, FILE *fp)
{
	char *p, *q;

	if (strncmp(text, "parse", 5) != 0 ||
	    (text[5] != ' ' && text[5] != '\0')) {
		fprintf(fp, "error: expected parse TEXT\n");
		return;
	}
	for (p = q = text + (text[5] == ' ' ? 6 : 5); *p != '\0'; p++, q++) {
		if (*p != '\\')
			*q = *p;
		else if (p[1] == 'n' || p[1] == 't' || p[1] == '\\')
			*q = *++p == 'n' ? '\n' : *p == 't' ? '\t' : '\\';
		else {
			fprintf(fp, "error: bad escape\n");
			return;
		}
	}
	*q = '\0';
	text += text[5] == ' ' ? 6 : 5;
	testament_drive(text, (size_t)(q - text), fp);
}

static void
no_reset(void)
{
}

static const struct core cores[] = {
	{ "host", host_reset, host_run, NULL },
	{ "algo", drive_reset, NULL, algo_line },
	{ "guard", drive_reset, NULL, guard_line },
	{ "fd", drive_reset, NULL, fd_line },
	{ "testament", no_reset, NULL, testament_line },
};

/* A raw line through CORE, its answer appended to OUT. */
static void
run_line(const struct core *core, char *text, char *out, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp;

	if ((fp = open_memstream(&buf, &n)) == NULL)
		err(2, NULL);
	core->line(text, fp);
	if (fclose(fp) == EOF)
		err(2, NULL);
	if (strlcat(out, buf, len) >= len)
		errx(2, "line %lu: the output is too long", drive_lineno);
	free(buf);
}

/* A file's lines, to rewrite it. */
struct text {
	char	*buf;
	size_t	 len, cap;
};

static void
put(struct text *t, const char *s)
{
	size_t n = strlen(s);

	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		if ((t->buf = realloc(t->buf, t->cap)) == NULL)
			err(2, NULL);
	}
	memcpy(t->buf + t->len, s, n + 1);
	t->len += n;
}

/* Runs FILE; with REWRITE writes it back with the outputs that came.
 * Returns the number of cases whose output differed. */
static int
run_file(const char *file, int rewrite)
{
	const struct core *core = NULL;
	struct text txt = { 0 };
	char *line = NULL, *copy, *dir, *p, *words[ARGS_MAX + 1];
	char got[OUT_MAX], want[OUT_MAX], cmdline[OUT_MAX];
	struct kv kv[ARGS_MAX];
	size_t cap = 0, i;
	ssize_t len;
	unsigned long lineno = 0, at = 0;
	int bad = 0, state = 0, nw, nkv;
	FILE *fp;

	if ((copy = strdup(file)) == NULL)
		err(2, NULL);
	dir = basename(dirname(copy));
	for (i = 0; i < nitems(cores); i++)
		if (strcmp(cores[i].name, dir) == 0)
			core = &cores[i];
	if (core == NULL)
		errx(2, "%s: no core named %s", file, dir);
	free(copy);
	if ((fp = fopen(file, "r")) == NULL)
		err(2, "%s", file);
	core->reset();
	got[0] = want[0] = cmdline[0] = '\0';
	/* state 0: between cases; 1: reading commands; 2: reading output. */
	for (;;) {
		len = getline(&line, &cap, fp);
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		lineno++;
		if (len == -1 || (state == 2 && len == 0)) {
			if (state == 2 && strcmp(got, want) != 0) {
				bad++;
				fprintf(stderr, "%s:%lu: expected:\n%sgot:\n%s",
				    file, at, want, got);
			}
			if (state == 2) {
				put(&txt, got);
				if (len == 0)
					put(&txt, "\n");
			}
			if (len == -1)
				break;
			state = 0;
			got[0] = want[0] = '\0';
			continue;
		}
		if (state == 2) {
			say(want, sizeof(want), "%s\n", line);
			continue;
		}
		put(&txt, line);
		put(&txt, "\n");
		if (strcmp(line, "----") == 0) {
			if (state != 1)
				errx(2, "%s:%lu: ---- without a command",
				    file, lineno);
			state = 2;
			continue;
		}
		if (state == 0 && (len == 0 || line[0] == '#'))
			continue;
		if (state == 0)
			at = lineno;
		state = 1;
		if (strlcpy(cmdline, line, sizeof(cmdline)) >= sizeof(cmdline))
			errx(2, "%s:%lu: line too long", file, lineno);
		if (core->line != NULL) {
			drive_lineno = lineno;
			run_line(core, cmdline, got, sizeof(got));
			continue;
		}
		nw = 0;
		for (p = cmdline; (words[nw] = strsep(&p, " \t")) != NULL;)
			if (*words[nw] != '\0' && ++nw > ARGS_MAX)
				errx(2, "%s:%lu: too many words", file, lineno);
		for (nkv = 0; nkv < nw - 1; nkv++) {
			kv[nkv].k = words[nkv + 1];
			if ((p = strchr(kv[nkv].k, '=')) == NULL)
				errx(2, "%s:%lu: \"%s\" is not KEY=VALUE", file,
				    lineno, kv[nkv].k);
			*p = '\0';
			kv[nkv].v = p + 1;
		}
		if (nw > 0)
			core->run(words[0], kv, nkv, got, sizeof(got));
	}
	if (state == 1)
		errx(2, "%s:%lu: a command without ---- and its output", file,
		    lineno);
	fclose(fp);
	free(line);
	core->reset();
	if (rewrite) {
		if ((fp = fopen(file, "w")) == NULL ||
		    fputs(txt.buf != NULL ? txt.buf : "", fp) == EOF ||
		    fclose(fp) == EOF)
			err(2, "%s", file);
	}
	free(txt.buf);
	return bad;
}

int
main(int argc, char *argv[])
{
	int ch, rewrite = 0, bad = 0;

	while ((ch = getopt(argc, argv, "r")) != -1) {
		switch (ch) {
		case 'r':
			rewrite = 1;
			break;
		default:
			fprintf(stderr, "usage: datadriven [-r] file ...\n");
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		fprintf(stderr, "usage: datadriven [-r] file ...\n");
		return 2;
	}
	if (sodium_init() == -1)
		errx(2, "sodium_init failed");
	for (; argc > 0; argc--, argv++)
		bad += run_file(*argv, rewrite);
	return bad > 0 && !rewrite ? 1 : 0;
}
