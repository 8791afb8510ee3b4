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
#include "host/net.h"
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
	hnet_touch(&nd->net);
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

/* SESS_NONCE random bytes per node of U, for the handshakes begun. */
static uint8_t *
nonces(const struct cluster *u)
{
	uint8_t *b;

	if ((b = calloc(u->n + 1, SESS_NONCE)) == NULL)
		err(1, NULL);
	randombytes_buf(b, u->n * SESS_NONCE);
	return b;
}

/*
 * The net tables for the peers of both epochs of a change: what each
 * peer kept carries over by id, unless FRESH (a new incarnation of
 * this node, which its peers confirm afresh).
 */
void
net_peers(struct node *nd, int fresh)
{
	struct cluster u;
	uint8_t *nb;

	if (cluster_union(&u, &nd->cluster, reconf_other(nd)) == -1)
		err(1, NULL);
	if (u.n > ALGO_NODES_MAX)
		errx(1, "%zu peers, above %d", u.n, ALGO_NODES_MAX);
	nb = nonces(&u);
	if (hnet_peers(&nd->net, &u, fresh, nb) == -1)
		err(1, NULL);
	free(nb);
	cluster_free(&u);
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

	struct hnet_conf hc = {
		.self = me->id, .ops = nd->opts->algo, .key = &nd->key,
		.proto = &nd->proto, .conf = &nd->conf, .inc = nd->inc,
		.cluster = nd->opts->cluster,
	};

	nd->proto.magic = WIRE_MAGIC_NODE;
	nd->proto.maxtype = (uint8_t)(nd->opts->algo->nmsg - 1);
	nd->proto.epochs = (algo_flags(nd->opts->algo) & ALGO_F_EPOCHS) != 0;
	nd->proto.names = 1;
	if ((nd->nin = malloc(sizeof(*nd->nin))) == NULL ||
	    (nd->nsend = malloc(sizeof(*nd->nsend))) == NULL)
		err(1, NULL);
	hnet_out_clear(nd->nin);
	hnet_out_clear(nd->nsend);
	hnet_init(&nd->net, &hc);
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
	hnet_free(&nd->net);
	free(nd->nin);
	free(nd->nsend);
	nd->nin = nd->nsend = NULL;
	sodium_memzero(&nd->key, sizeof(nd->key));
}

/*
 * What lib/host/net decided, carried out in order.  Two outs: what a
 * datagram, a tick or the verdict brings (NIN) may make the core send,
 * into NSEND, carried out at once, within.
 */
static void
carry(struct node *nd, struct hnet_out *o)
{
	const struct cluster_node *to;
	const struct hnet_action *a;
	long i;
	size_t k;

	for (k = 0; k < o->n; k++) {
		a = &o->v[k];
		switch (a->type) {
		case HNET_SEND:
			/* By id: the core may have changed the peers. */
			if ((i = hnet_index(&nd->net, a->id)) == -1)
				break;
			to = &nd->net.peers.nodes[i];
			/* UDP may lose it; the cores expect that. */
			if (sendto(nd->udp, a->dgram, a->len, 0,
			    (const struct sockaddr *)&to->addr,
			    to->addrlen) != -1)
				nd->metrics.dgrams_sent++;
			break;
		case HNET_CORE:
			if (a->rtt >= 0)
				metrics_hist_add(&nd->metrics.rtt,
				    metrics_rtt_le, a->rtt);
			if (!nd->quit)
				core_recv(nd, a->msg);
			break;
		case HNET_EPOCH:
			reconf_recv(nd, a->id, a->w);
			break;
		case HNET_NAMES:
			if (!nd->quit)
				named_recv(nd, a->id, a->inc, a->w->payload,
				    a->w->len);
			break;
		case HNET_DROP:
			events_drop(nd, a->why);
			metrics_drop(&nd->metrics, a->why);
			break;
		case HNET_PEER:
			events_peer(nd, a->id, a->up);
			named_members(nd);
			break;
		case HNET_DEAD:
			events_dead(nd, a->id, a->inc);
			named_dead(nd, a->id, a->inc);
			break;
		case HNET_FD:
			if (fdc_send(&nd->fdc, a->text) == -1)
				node_detector_failed(nd);
			break;
		case HNET_TRACE:
			node_trace(nd, "%s", a->text);
			break;
		case HNET_LOG:
			if (a->warn)
				log_warnx("%s", a->text);
			else
				log_info("%s", a->text);
			break;
		case HNET_VERDICT:
			task_verdict(nd, a->changed);
			break;
		}
	}
	hnet_out_clear(o);
}

int
net_ready(struct node *nd, algo_time now, algo_time *wait)
{
	algo_time at;

	*wait = -1;
	if (hnet_may_start(&nd->net, now, &at))
		return 1;
	*wait = at - now;
	return 0;
}

/* We asked the detector to start (ON) or stop monitoring ID. */
void
net_monitor(struct node *nd, unsigned id, int on)
{
	hnet_monitor(&nd->net, id, on);
}

/* The detector reported ID down: 0, or -1 when we no longer monitor ID. */
int
net_down(struct node *nd, unsigned id)
{
	int rc = hnet_down(&nd->net, id, nd->nsend);

	carry(nd, nd->nsend);
	return rc;
}

int
net_send_wire(struct node *nd, unsigned id, uint8_t type, const uint8_t *p,
    size_t len)
{
	struct wire_msg w;
	int sent;

	memset(&w, 0, sizeof(w));
	w.type = type;
	w.payload = p;
	w.len = len;
	sent = hnet_send_wire(&nd->net, id, &w, nd->nsend);
	carry(nd, nd->nsend);
	return sent;
}

int
net_send_epoch(struct node *nd, unsigned id, const struct epoch_msg *m)
{
	uint8_t pl[WIRE_PAYLOAD_MAX];
	size_t len;

	if ((len = epoch_msg_put(m, pl, sizeof(pl))) == 0)
		return 0;
	return net_send_wire(nd, id, m->type, pl, len);
}

void
net_send(struct node *nd, const struct algo_msg *m)
{
	char elid[ALGO_ELID_STRLEN + 8], fields[256];

	/* Traced before it leaves: a reply may come before the line. */
	if (hnet_index(&nd->net, m->peer) != -1 && m->type != 0 &&
	    m->type <= nd->proto.maxtype && m->len <= ALGO_PAYLOAD_MAX)
		node_trace(nd, "send to=%u msg=%s%s bytes=%zu%s", m->peer,
		    algo_msg_name(nd->opts->algo, m->type),
		    elid_key(&m->elid, elid, sizeof(elid)),
		    (size_t)(WIRE_HDR_LEN + m->len + WIRE_MAC_LEN),
		    msg_fields(nd, m, fields, sizeof(fields)));
	hnet_send(&nd->net, m, mono_now(), nd->nsend);
	carry(nd, nd->nsend);
}

void
net_drop(struct node *nd, unsigned from, const char *why)
{
	hnet_drop(&nd->net, from, why, mono_now(), nd->nsend);
	carry(nd, nd->nsend);
}

const char *
net_misfits(const struct node *nd, char *buf, size_t len)
{
	return hnet_misfits(&nd->net, buf, len);
}

static algo_time
rel(algo_time at, algo_time now)
{
	return at == INT64_MAX ? -1 : at > now ? at - now : 0;
}

algo_time
net_fit(struct node *nd, algo_time now)
{
	algo_time at = hnet_fit(&nd->net, now, nd->nin);

	carry(nd, nd->nin);
	return rel(at, now);
}

/* HELLOs owed, and summaries due; nanoseconds until the next. */
algo_time
net_tick(struct node *nd, algo_time now)
{
	algo_time at = hnet_tick(&nd->net, now, nd->nin);

	carry(nd, nd->nin);
	return rel(at, now);
}

/* The last summaries, at exit. */
void
net_flush(struct node *nd)
{
	hnet_flush(&nd->net, mono_now(), nd->nin);
	carry(nd, nd->nin);
}

void
net_read(struct node *nd)
{
	uint8_t buf[WIRE_DGRAM_MAX + 1];
	struct sockaddr_storage src;
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
		nd->metrics.dgrams_received++;
		hnet_recv(&nd->net, buf, (size_t)n, &src, mono_now(), nd->nin);
		carry(nd, nd->nin);
	}
	/* Before any request that comes next is answered. */
	net_fit(nd, mono_now());
}
