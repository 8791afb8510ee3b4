/*
 * The network edge: the cores' messages in lib/net/wire's authenticated
 * envelope over UDP, from a peer's own address, after the handshake of
 * lib/net/session.  Every datagram refused is counted and summarised in
 * the trace as `drop' with its reason; only what passes every check
 * reaches the core.
 */
#include <sys/socket.h>

#include <netdb.h>

#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "net/key.h"
#include "net/drops.h"
#include "net/session.h"
#include "host/accept.h"
#include "daemon.h"
#include "util/util.h"

#define RECV_BURST	64	/* datagrams read before looking elsewhere */
/* The longest net_tick() goes without looking at every peer. */
#define NET_RESCAN	(100 * ALGO_MS)

void
net_key(struct node *nd)
{
	const struct node_opts *o = nd->opts;
	char msg[256];

	if (sodium_init() == -1)
		errx(1, "sodium_init failed");
	if (o->insecure) {
		if (!cluster_loopback(&nd->cluster))
			errx(EXIT_USAGE, "--insecure: %s has addresses that "
			    "are not loopback; anyone on the network could "
			    "speak for a node (use -k KEYFILE)", o->cluster);
		nd->key.insecure = 1;
		warnx("warning: --insecure: datagrams are not authenticated");
		return;
	}
	if (wire_key_load(&nd->key, o->keyfile, msg, sizeof(msg)) == -1)
		errx(EXIT_USAGE, "%s", msg);
}

/*
 * SIGHUP: the key file again, for a rotation without a restart (elect-
 * node(1), KEYS); the detector is told too.  A file that will not do
 * leaves the keys in force.
 */
/* A handshake or a fit may have changed: net_tick() and net_fit() look
 * at every peer at their next call. */
void
net_touch(struct node *nd)
{
	nd->net_due = nd->fit_due = 0;
}

void
net_rekey(struct node *nd)
{
	struct wire_key k = { 0 };
	char msg[256];
	int n;

	if (nd->opts->insecure)
		return;
	if ((n = wire_key_load(&k, nd->opts->keyfile, msg, sizeof(msg))) == -1) {
		log_warnx("%s; keeping the keys in force", msg);
		return;
	}
	nd->key = k;
	sodium_memzero(&k, sizeof(k));
	net_touch(nd);
	log_info("%s: %d key%s loaded%s key_id=%s%s%s", nd->opts->keyfile, n,
	    n == 2 ? "s" : "", n == 2 ? " (sending under the first)" : "",
	    nd->key.id, n == 2 ? " accept=" : "", n == 2 ? nd->key.old_id : "");
	if (nd->fdc.pid > 0)
		kill(nd->fdc.pid, SIGHUP);
}

/*
 * What must agree between nodes, as the handshake's digests: the
 * algorithm, every timing (the detector's too) and the membership.
 */
void
net_conf(struct node *nd)
{
	const algo_time *t = (const algo_time *)&nd->opts->timing;
	char text[sizeof(struct node_timing) / sizeof(algo_time) * 24];
	size_t i, len = 0;

	_Static_assert(sizeof(struct node_timing) % sizeof(algo_time) == 0,
	    "timings are algo_time only");
	sess_digest(algo_name(nd->opts->algo), strlen(algo_name(nd->opts->algo)),
	    nd->conf.d[0]);
	for (i = 0; i < sizeof(struct node_timing) / sizeof(algo_time) &&
	    len < sizeof(text) - 24; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
		    "%lld ", (long long)t[i]);
	sess_digest(text, len, nd->conf.d[1]);
	sess_cluster_digest(&nd->cluster, nd->conf.d[2]);
	nd->conf.epoch = nd->cluster.epoch;
}

/* U: the nodes of A, then those of B (if any) not in A, by id. */
static void
cluster_union(struct cluster *u, const struct cluster *a,
    const struct cluster *b)
{
	size_t i, j, k;

	if (cluster_copy(u, a) == -1)
		err(1, NULL);
	if (b == NULL)
		return;
	if ((u->nodes = reallocarray(u->nodes, a->n + b->n,
	    sizeof(*u->nodes))) == NULL)
		err(1, NULL);
	/* Both sorted by id: merge. */
	for (i = a->n, j = 0; j < b->n; j++)
		if (cluster_find(a, b->nodes[j].id) == NULL)
			u->nodes[i++] = b->nodes[j];
	u->n = i;
	for (i = a->n; i < u->n; i++)	/* insertion: few, near sorted */
		for (k = i; k > 0 && u->nodes[k - 1].id > u->nodes[k].id;
		    k--) {
			struct cluster_node t = u->nodes[k];

			u->nodes[k] = u->nodes[k - 1];
			u->nodes[k - 1] = t;
		}
}

/*
 * The net tables for the peers of both epochs of a change: what each
 * peer kept carries over by id, unless FRESH (a new incarnation of
 * this node, which its peers confirm afresh).
 */
void
net_peers(struct node *nd, int fresh)
{
	struct cluster u, old = nd->peers;
	uint8_t nonce[SESS_NONCE];
	uint64_t *seq;
	struct sess *sess;
	struct net_held *held;
	uint8_t *mon, *down, *misaddr;
	uint64_t *dead;
	algo_time heard[ALGO_NODES_MAX], asked[ALGO_NODES_MAX];
	static char pkey[ALGO_NODES_MAX][KEY_ID_LEN + 1];
	const struct cluster_node *p;
	size_t i, j, n;

	cluster_union(&u, &nd->cluster, reconf_other(nd));
	if ((n = u.n) > ALGO_NODES_MAX)
		errx(1, "%zu peers, above %d", n, ALGO_NODES_MAX);
	if ((seq = calloc(n, sizeof(*seq))) == NULL ||
	    (sess = calloc(n, sizeof(*sess))) == NULL ||
	    (held = calloc(n, sizeof(*held))) == NULL ||
	    (mon = calloc(n, sizeof(*mon))) == NULL ||
	    (down = calloc(n, sizeof(*down))) == NULL ||
	    (dead = calloc(n, sizeof(*dead))) == NULL ||
	    (misaddr = calloc(n, sizeof(*misaddr))) == NULL)
		err(1, NULL);
	memset(heard, 0, sizeof(heard));
	memset(asked, 0, sizeof(asked));
	memset(pkey, 0, sizeof(pkey));
	for (i = 0; i < n; i++) {
		p = fresh ? NULL : cluster_find(&old, u.nodes[i].id);
		if (p == NULL) {
			randombytes_buf(nonce, sizeof(nonce));
			sess_init(&sess[i], nonce);
			continue;
		}
		j = (size_t)(p - old.nodes);
		seq[i] = nd->seq[j];
		sess[i] = nd->sess[j];
		held[i] = nd->held[j];
		mon[i] = nd->monitored[j];
		down[i] = nd->downed[j];
		dead[i] = nd->dead[j];
		misaddr[i] = nd->misaddressed[j];
		heard[i] = nd->heard[j];
		asked[i] = nd->asked[j];
		memcpy(pkey[i], nd->peer_key[j], sizeof(pkey[i]));
	}
	free(nd->seq);
	free(nd->sess);
	free(nd->held);
	free(nd->monitored);
	free(nd->downed);
	free(nd->dead);
	free(nd->misaddressed);
	cluster_free(&old);
	nd->seq = seq;
	nd->sess = sess;
	nd->held = held;
	nd->monitored = mon;
	nd->downed = down;
	nd->dead = dead;
	nd->misaddressed = misaddr;
	memcpy(nd->heard, heard, sizeof(heard));
	memcpy(nd->asked, asked, sizeof(asked));
	memcpy(nd->peer_key, pkey, sizeof(pkey));
	nd->peers = u;
	net_touch(nd);
	testament_write(nd);
}

/*
 * Our own elect-fd binds the node's detector port, and a port in use is
 * the node's bad usage, said before it starts, as its own port is: the
 * detector would exit 1 after the start.  A detector of the user's own
 * (--fd-cmd) may listen where it likes.
 */
static void
probe_fd_port(const struct node *nd)
{
	const struct cluster_node *me = nd->self;
	char where[CLUSTER_HOST_MAX + 16];
	int s;

	if (!nd->opts->fd_cmd_own)
		return;
	if ((s = socket(me->fd_addr.ss_family, SOCK_DGRAM | SOCK_CLOEXEC,
	    0)) == -1)
		err(1, "socket");
	if (bind(s, (const struct sockaddr *)&me->fd_addr, me->addrlen) == -1) {
		cluster_endpoint(me, me->fd_port, where, sizeof(where));
		err(EXIT_USAGE, "%s: node %u's detector at %s",
		    nd->opts->cluster, me->id, where);
	}
	close(s);
}

void
net_open(struct node *nd)
{
	const struct cluster_node *me = nd->self;
	char where[CLUSTER_HOST_MAX + 16];

	nd->proto.magic = WIRE_MAGIC_NODE;
	nd->proto.maxtype = (uint8_t)(nd->opts->algo->nmsg - 1);
	nd->proto.epochs = (algo_flags(nd->opts->algo) & ALGO_F_EPOCHS) != 0;
	/* Lease leads by quorums of grants (lib/host/fit.h). */
	fit_init(&nd->fit, (algo_flags(nd->opts->algo) & ALGO_F_DEADLINE) != 0);
	net_conf(nd);
	net_peers(nd, 1);
	cluster_endpoint(me, me->port, where, sizeof(where));
	nd->udp = socket(me->addr.ss_family,
	    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (nd->udp == -1)
		err(1, "socket");
	if (bind(nd->udp, (const struct sockaddr *)&me->addr,
	    me->addrlen) == -1)
		err(EXIT_USAGE, "%s: node %u at %s", nd->opts->cluster,
		    me->id, where);
	probe_fd_port(nd);
}

void
net_close(struct node *nd)
{
	if (nd->udp != -1)
		close(nd->udp);
	free(nd->seq);
	free(nd->sess);
	free(nd->held);
	free(nd->monitored);
	free(nd->downed);
	free(nd->dead);
	free(nd->misaddressed);
	cluster_free(&nd->peers);
	sodium_memzero(&nd->key, sizeof(nd->key));
}

/* The node's tables as lib/host sees them: refreshed at each use, as a
 * change of the cluster replaces them (net_peers()). */
static struct host_edge
edge(struct node *nd)
{
	struct host_edge e = {
		.self = nd->self->id, .ops = nd->opts->algo, .key = &nd->key,
		.proto = &nd->proto, .conf = &nd->conf, .peers = &nd->peers,
		.sess = nd->sess, .seq = nd->seq,
		.misaddressed = nd->misaddressed,
	};

	return e;
}

static long
peer_index(const struct node *nd, unsigned id)
{
	const struct cluster_node *p = cluster_find(&nd->peers, id);

	return p == NULL ? -1 : p - nd->peers.nodes;
}

/* We asked the detector to start (ON) or stop monitoring ID. */
void
net_monitor(struct node *nd, unsigned id, int on)
{
	long i;

	if ((i = peer_index(nd, id)) != -1)
		nd->monitored[i] = (uint8_t)on;
}

/*
 * The detector reported ID down: 0, or -1 when we no longer monitor ID.
 * The report then crossed our stop in the pipe; Stop_FD promises no
 * DownSig after it, and the detector could not know.
 */
int
net_down(struct node *nd, unsigned id)
{
	long i;

	if ((i = peer_index(nd, id)) == -1)
		return 0;
	if (!nd->monitored[i])
		return -1;
	if (!nd->downed[i])
		events_peer(nd, id, 0);
	nd->downed[i] = 1;
	return 0;
}

/*
 * A message from ID, authenticated and fresh, is evidence that ID is up:
 * the first since its DownSig tells the detector, before the core can
 * restart monitoring ID, so that ID is not reported again at once
 * (elect-fd(1), alive).  A detector that ignores the line is only slower.
 */
static void
heard_from(struct node *nd, unsigned id)
{
	char line[32];
	long i;

	if ((i = peer_index(nd, id)) == -1 || !nd->downed[i])
		return;
	nd->downed[i] = 0;
	events_peer(nd, id, 1);
	snprintf(line, sizeof(line), "alive %u", id);
	if (fdc_send(&nd->fdc, line) == -1)
		node_detector_failed(nd);
}

/* Seals W for peer I and sends it; the length, or 0 when the wire
 * refuses it. */
static size_t
emit(struct node *nd, long i, struct wire_msg *w)
{
	const struct cluster_node *to = &nd->peers.nodes[i];
	struct host_edge e = edge(nd);
	uint8_t buf[WIRE_DGRAM_MAX];
	size_t len;

	if ((len = host_seal(&e, i, nd->inc, w, buf)) == 0)
		return 0;
	/* UDP may lose it; the cores expect that.  Nothing to retry. */
	(void)sendto(nd->udp, buf, len, 0,
	    (const struct sockaddr *)&to->addr, to->addrlen);
	return len;
}

/*
 * The peer would drop it, unconfirmed: it waits for the handshake (a few
 * milliseconds), the oldest lost first if many come, as UDP may lose it.
 */
static void
hold(struct net_held *h, const struct algo_msg *m, algo_time now)
{
	if (h->n == NET_HOLD) {
		h->first = (h->first + 1) % NET_HOLD;
		h->n--;
	}
	h->m[(h->first + h->n) % NET_HOLD] = *m;
	h->at[(h->first + h->n) % NET_HOLD] = now;
	h->n++;
}

static void	send_msg(struct node *, long, const struct algo_msg *);

int
net_send_epoch(struct node *nd, unsigned id, const struct epoch_msg *m)
{
	uint8_t pl[WIRE_PAYLOAD_MAX];
	struct wire_msg w;
	long i;

	if ((i = peer_index(nd, id)) == -1 || id == nd->self->id ||
	    !nd->sess[i].confirmed)
		return 0;
	memset(&w, 0, sizeof(w));
	w.type = m->type;
	w.payload = pl;
	if ((w.len = epoch_msg_put(m, pl, sizeof(pl))) == 0)
		return 0;
	return emit(nd, i, &w) > 0;
}

/* The handshake with peer I is done: what waited goes now. */
static void
release(struct node *nd, long i, algo_time now)
{
	struct net_held *h = &nd->held[i];

	for (; h->n > 0; h->n--) {
		/* Older than a retry: a peer that was away; lost, as the
		 * network would have lost it, rather than late. */
		if (now - h->at[h->first] <= SESS_RETRY)
			send_msg(nd, i, &h->m[h->first]);
		h->first = (h->first + 1) % NET_HOLD;
	}
}

/* M to peer I, sealed now. */
static void
send_msg(struct node *nd, long i, const struct algo_msg *m)
{
	struct wire_msg w;

	host_wire_of(m, &w);
	mx_sent(nd, m);
	emit(nd, i, &w);
}

void
net_send(struct node *nd, const struct algo_msg *m)
{
	char elid[ALGO_ELID_STRLEN + 8], fields[256];
	size_t len;
	long i;

	if ((i = peer_index(nd, m->peer)) == -1 || m->peer == nd->self->id) {
		log_warnx("core sent to %u, not a peer", m->peer);
		return;
	}
	if ((len = WIRE_HDR_LEN + m->len + WIRE_MAC_LEN) > WIRE_DGRAM_MAX ||
	    m->type == 0 || m->type > nd->proto.maxtype) {
		log_warnx("core sent a message the wire refuses (type %u)",
		    m->type);
		return;
	}
	/* Traced before it leaves: a reply may come before the line. */
	node_trace(nd, "send to=%u msg=%s%s bytes=%zu%s", m->peer,
	    algo_msg_name(nd->opts->algo, m->type),
	    elid_key(&m->elid, elid, sizeof(elid)), len,
	    msg_fields(nd, m, fields, sizeof(fields)));
	if (!nd->sess[i].confirmed || nd->sess[i].owed) {
		hold(&nd->held[i], m, mono_now());
		net_touch(nd);
	} else
		send_msg(nd, i, m);
}

static void
drop_line(void *arg, unsigned from, const char *why, uint64_t n)
{
	struct node *nd = arg;
	char id[8];

	node_trace(nd, "drop from=%s why=%s n=%llu",
	    id_str(from, id, sizeof(id)), why, (unsigned long long)n);
}

void
net_drop(struct node *nd, unsigned from, const char *why)
{
	algo_time now = mono_now();

	nd->drops++;
	events_drop(nd, why);
	metrics_drop(&nd->metrics, why);
	/* An id outside the cluster is noise: one line for all of them. */
	if (peer_index(nd, from) == -1)
		from = 0;
	if (drops_add(&nd->dropsum, from, why, now))
		drops_flush(&nd->dropsum, now, drop_line, nd);
}

/* What a peer's agreement is now, for a summary's end. */
static const char *
misfit_now(const struct node *nd, unsigned id)
{
	long i = peer_index(nd, id);
	enum sess_misfit f = i == -1 ? SESS_OK : nd->sess[i].misfit;

	return f == SESS_OK ? "agrees" : f == SESS_KEY ? "fails the MAC" :
	    sess_misfit_name(f);
}

/* The changes counted since the last line, if their window is over (or
 * at exit: ALL); when the next is due, INT64_MAX for none. */
static algo_time
misfit_summary(struct node *nd, algo_time now, int all)
{
	algo_time next = INT64_MAX;
	size_t i;

	for (i = 0; i < nitems(nd->misfit_log); i++) {
		struct misfit_log *ml = &nd->misfit_log[i];

		if (ml->n == 0)
			continue;
		if (!all && now - ml->start < LOG_DROPS_WINDOW) {
			if (ml->start + LOG_DROPS_WINDOW < next)
				next = ml->start + LOG_DROPS_WINDOW;
			continue;
		}
		log_warnx("node %u: its agreement changed again n=%llu in "
		    "%lld s (datagrams failing the MAC from its address, "
		    "a forger's?); now %s", ml->id,
		    (unsigned long long)ml->n,
		    (long long)((now - ml->start + 999999999) / 1000000000),
		    misfit_now(nd, ml->id));
		/* Still counting: a flood goes on with one line a window. */
		ml->start = now;
		ml->n = 0;
	}
	return next;
}

/* A peer's configuration differs, or agrees again: said once, then
 * counted for a summary while it keeps changing. */
static void
misfit_changed(struct node *nd, long i)
{
	const struct sess *s = &nd->sess[i];
	unsigned id = nd->peers.nodes[i].id;
	algo_time now = mono_now();
	struct misfit_log *ml = &nd->misfit_log[i];

	/* Another peer at this index since a change of the cluster: what
	 * was counted for the last is said first. */
	misfit_summary(nd, now, ml->id != id);
	if (ml->id != id) {
		memset(ml, 0, sizeof(*ml));
		ml->id = id;
	}
	if (ml->start == 0 || now - ml->start >= LOG_DROPS_WINDOW) {
		ml->start = now;
		ml->said = 0;
	}
	if (ml->said & 1u << s->misfit) {
		ml->n++;
		return;
	}
	ml->said |= 1u << s->misfit;
	if (s->misfit == SESS_OK)
		log_warnx("node %u: configuration agrees again; counted",
		    id);
	else if (s->misfit == SESS_KEY)
		log_warnx("node %u: its datagrams fail the MAC: another key? "
		    "not counted", id);
	else
		log_warnx("node %u: its %s differs from ours (%s); not "
		    "counted until it agrees", id,
		    sess_misfit_name(s->misfit), s->misfit == SESS_ALGO ?
		    "-a" : s->misfit == SESS_TIMING ? "timing flags" :
		    nd->opts->cluster);
}

/* "mismatch=3:algo,5:key" for the status line, or "". */
const char *
net_misfits(const struct node *nd, char *buf, size_t len)
{
	const char *sep = " mismatch=";
	size_t i;
	int n;

	buf[0] = '\0';
	for (i = 0; i < nd->peers.n; i++) {
		if (nd->sess[i].misfit == SESS_OK)
			continue;
		n = (int)strlen(buf);
		snprintf(buf + n, len - (size_t)n, "%s%u:%s", sep,
		    nd->peers.nodes[i].id,
		    sess_misfit_name(nd->sess[i].misfit));
		sep = ",";
	}
	return buf;
}

algo_time
net_fit(struct node *nd, algo_time now)
{
	struct fit_peer p[ALGO_NODES_MAX];
	char line[FIT_TEXT_MAX + 32];
	size_t i, n = 0;
	int64_t wake;
	int was = nd->fit.vetoed, changed;

	if (now < nd->fit_due)
		return nd->fit_due == INT64_MAX ? -1 : nd->fit_due - now;
	for (i = 0; i < nd->peers.n && n < nitems(p); i++) {
		if (nd->peers.nodes[i].id == nd->self->id)
			continue;
		p[n].id = nd->peers.nodes[i].id;
		p[n].misfit = fit_misfit_of(&nd->sess[i]);
		p[n].odd_at = nd->sess[i].odd_at;
		n++;
	}
	if ((changed = fit_step(&nd->fit, p, n, now, &wake))) {
		node_trace(nd, "%s", fit_line(&nd->fit, line, sizeof(line)));
		if (nd->fit.vetoed && !was)
			log_warnx("mismatch-veto node=%u peers=%s",
			    nd->self->id, nd->fit.odd);
		else if (!nd->fit.vetoed && was)
			log_warnx("mismatch-veto-over node=%u peers=%s",
			    nd->self->id, nd->fit.odd);
	}
	task_verdict(nd, changed);
	nd->fit_due = wake;
	return wake == INT64_MAX ? -1 : wake > now ? wake - now : 0;
}

/* HELLOs owed, and drop summaries due; nanoseconds until the next. */
algo_time
net_tick(struct node *nd, algo_time now)
{
	struct sess_hello h;
	uint8_t pl[SESS_PAYLOAD_MAX];
	struct wire_msg w;
	algo_time next = INT64_MAX, d;
	size_t i;

	if (now < nd->net_due)
		next = nd->net_due;
	for (i = 0; now >= nd->net_due && i < nd->peers.n; i++) {
		if (nd->peers.nodes[i].id == nd->self->id)
			continue;
		if (sess_due(&nd->sess[i], now)) {
			sess_hello(&nd->sess[i], &nd->conf, now, &h);
			memset(&w, 0, sizeof(w));
			w.type = WIRE_TYPE_HELLO;
			w.payload = pl;
			w.len = sess_hello_put(&h, pl);
			emit(nd, (long)i, &w);
		}
		/* After our answer, which confirms us to the peer. */
		if (nd->sess[i].confirmed && !nd->sess[i].owed)
			release(nd, (long)i, now);
		if ((d = sess_deadline(&nd->sess[i])) < next)
			next = d;
	}
	if (now >= nd->net_due)
		nd->net_due = next < now + NET_RESCAN ? next : now + NET_RESCAN;
	if (drops_deadline(&nd->dropsum) <= now)
		drops_flush(&nd->dropsum, now, drop_line, nd);
	if ((d = drops_deadline(&nd->dropsum)) < next)
		next = d;
	if ((d = misfit_summary(nd, now, 0)) < next)
		next = d;
	return next == INT64_MAX ? -1 : next > now ? next - now : 0;
}

/* The last summaries, at exit. */
void
net_flush(struct node *nd)
{
	algo_time now = mono_now();

	drops_flush(&nd->dropsum, now, drop_line, nd);
	misfit_summary(nd, now, 1);
}

/* The log says it once per incarnation, whoever sends the copies. */
static void
said_dead(struct node *nd, unsigned id, uint64_t inc)
{
	long i;

	if ((i = peer_index(nd, id)) == -1 || nd->dead[i] > inc)
		return;
	nd->dead[i] = inc + 1;
	events_dead(nd, id, inc);
}

/*
 * An authenticated datagram of peer I from SRC, not the peer's address in
 * our cluster file: said once per peer (lib/host/accept decides when), as
 * one of the two files is wrong and every datagram would say it again.
 */
static void
misaddressed(struct node *nd, long i, const struct sockaddr_storage *src)
{
	const struct cluster_node *p = &nd->peers.nodes[i];
	char host[NI_MAXHOST], port[NI_MAXSERV], want[CLUSTER_HOST_MAX + 16];

	if (getnameinfo((const struct sockaddr *)src, sizeof(*src), host,
	    sizeof(host), port, sizeof(port),
	    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
		strlcpy(host, "?", sizeof(host));
		strlcpy(port, "?", sizeof(port));
	}
	cluster_endpoint(p, p->port, want, sizeof(want));
	log_warnx("node %u: its datagrams come from %s%s%s:%s, not %s as %s "
	    "says; not counted (a wrong address in one of the cluster "
	    "files?)", p->id, src->ss_family == AF_INET6 ? "[" : "", host,
	    src->ss_family == AF_INET6 ? "]" : "", port, want,
	    nd->opts->cluster);
}

/*
 * The key peer I's datagrams came under (its MAC's, SLOT of ours): a
 * change is logged, so that a rotation's progress shows host by host.
 */
static void
peer_keyed(struct node *nd, long i, int slot)
{
	const char *id;

	if (nd->key.insecure || i < 0 || slot < 0)
		return;
	id = slot == 0 ? nd->key.id : nd->key.old_id;
	if (strcmp(nd->peer_key[i], id) == 0)
		return;
	log_info("peer-key node=%u peer=%u key=%s prev=%s", nd->self->id,
	    nd->peers.nodes[i].id, id, nd->peer_key[i][0] != '\0' ?
	    nd->peer_key[i] : "-");
	strlcpy(nd->peer_key[i], id, sizeof(nd->peer_key[i]));
}

void
net_read(struct node *nd)
{
	uint8_t buf[WIRE_DGRAM_MAX + 1];
	struct sockaddr_storage src;
	struct host_datagram d;
	struct host_edge e;
	socklen_t srclen;
	ssize_t n;
	int i;

	for (i = 0; i < RECV_BURST && !nd->quit; i++) {
		srclen = sizeof(src);
		memset(&src, 0, sizeof(src));
		n = recvfrom(nd->udp, buf, sizeof(buf), MSG_TRUNC,
		    (struct sockaddr *)&src, &srclen);
		if (n == -1) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNREFUSED)
				log_warnx("recv: %s", strerror(errno));
			break;
		}
		e = edge(nd);
		host_accept(&e, buf, (size_t)n, &src, mono_now(), &d);
		/* Only a confirmed peer's message leaves its handshake and
		 * its fit as they were. */
		if (d.take != HOST_CORE || d.misfit || d.misaddressed ||
		    d.stranger)
			net_touch(nd);
		if (d.misfit)
			misfit_changed(nd, d.peer);
		if (d.misaddressed)
			misaddressed(nd, d.peer, &src);
		if (d.stranger && fit_stranger(&nd->fit, d.from, mono_now()))
			log_warnx("node %u: not in %s, but its HELLO of epoch %u "
			    "names this node: its cluster file differs; not "
			    "counted", d.from, nd->opts->cluster,
			    nd->conf.epoch);
		if (d.take != HOST_DROP)
			peer_keyed(nd, d.peer, d.w.keyslot);
		switch (d.take) {
		case HOST_DROP:
			net_drop(nd, d.from, d.why);
			continue;
		case HOST_HELLO:
			/* The handshake went on: answer at once. */
			net_tick(nd, mono_now());
			continue;
		case HOST_EPOCH:
			reconf_recv(nd, d.from, &d.w);
			continue;
		case HOST_DEAD:
			/* A dead incarnation's last word is no sign of life. */
			said_dead(nd, d.m.peer, d.w.inc);
			break;
		case HOST_CORE:
			heard_from(nd, d.m.peer);
			mx_heard(nd, &d.m);
			break;
		}
		if (!nd->quit)
			core_recv(nd, &d.m);
	}
	/* Before any request that comes next is answered. */
	net_fit(nd, mono_now());
}
