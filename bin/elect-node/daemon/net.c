/*
 * The network edge: the cores' messages in lib/net/wire's authenticated
 * envelope over UDP.  Every datagram refused is counted and traced as
 * `drop' with its reason; only what passes every check reaches the core.
 */
#include <sys/socket.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "net/key.h"
#include "daemon.h"
#include "util/util.h"

#define RECV_BURST	64	/* datagrams read before looking elsewhere */

void
net_key(struct node *nd)
{
	const struct node_opts *o = nd->opts;
	char msg[256];

	if (sodium_init() == -1)
		errx(1, "sodium_init failed");
	if (o->insecure) {
		nd->key.insecure = 1;
		warnx("warning: --insecure: datagrams are not authenticated");
		return;
	}
	switch (key_load(o->keyfile, nd->key.k, msg, sizeof(msg))) {
	case -1:
		errx(EXIT_USAGE, "%s", msg);
	case 1:
		warnx("warning: %s", msg);
		break;
	}
}

void
net_open(struct node *nd)
{
	const struct cluster_node *me = nd->self;
	char where[CLUSTER_HOST_MAX + 16];
	size_t n = nd->cluster.n;

	nd->proto.magic = WIRE_MAGIC_NODE;
	nd->proto.maxtype = (uint8_t)(nd->opts->algo->nmsg - 1);
	if ((nd->seq = calloc(n, sizeof(*nd->seq))) == NULL ||
	    (nd->win = calloc(n, sizeof(*nd->win))) == NULL ||
	    (nd->monitored = calloc(n, sizeof(*nd->monitored))) == NULL ||
	    (nd->downed = calloc(n, sizeof(*nd->downed))) == NULL)
		err(1, NULL);
	cluster_endpoint(me, me->port, where, sizeof(where));
	nd->udp = socket(me->addr.ss_family,
	    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (nd->udp == -1)
		err(1, "socket");
	if (bind(nd->udp, (const struct sockaddr *)&me->addr,
	    me->addrlen) == -1)
		err(EXIT_USAGE, "%s: node %u at %s", nd->opts->cluster,
		    me->id, where);
}

void
net_close(struct node *nd)
{
	if (nd->udp != -1)
		close(nd->udp);
	free(nd->seq);
	free(nd->win);
	free(nd->monitored);
	free(nd->downed);
	sodium_memzero(&nd->key, sizeof(nd->key));
}

static long
peer_index(const struct node *nd, unsigned id)
{
	const struct cluster_node *p = cluster_find(&nd->cluster, id);

	return p == NULL ? -1 : p - nd->cluster.nodes;
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
	snprintf(line, sizeof(line), "alive %u", id);
	if (fdc_send(&nd->fdc, line) == -1)
		node_detector_failed(nd);
}

void
net_send(struct node *nd, const struct algo_msg *m)
{
	uint8_t buf[WIRE_DGRAM_MAX];
	struct wire_msg w;
	const struct cluster_node *to;
	char elid[ALGO_ELID_STRLEN + 8], fields[256];
	size_t len;
	long i;

	if ((i = peer_index(nd, m->peer)) == -1 || m->peer == nd->self->id) {
		warnx("core sent to %u, not a peer", m->peer);
		return;
	}
	to = &nd->cluster.nodes[i];
	memset(&w, 0, sizeof(w));
	w.type = m->type;
	w.from = (uint16_t)nd->self->id;
	w.to = m->peer;
	w.inc = nd->inc;
	w.seq = ++nd->seq[i];
	w.grp.node = m->elid.node;
	w.grp.inc = m->elid.inc;
	w.grp.ctr = m->elid.ctr;
	w.payload = m->payload;
	w.len = m->len;
	if ((len = wire_encode(&nd->key, &nd->proto, &w, buf,
	    sizeof(buf))) == 0) {
		warnx("core sent a message the wire refuses (type %u)",
		    m->type);
		return;
	}
	node_trace(nd, "send to=%u msg=%s%s bytes=%zu%s", m->peer,
	    algo_msg_name(nd->opts->algo, m->type),
	    elid_key(&m->elid, elid, sizeof(elid)), len,
	    msg_fields(nd, m, fields, sizeof(fields)));
	/* UDP may lose it; the cores expect that.  Nothing to retry. */
	(void)sendto(nd->udp, buf, len, 0,
	    (const struct sockaddr *)&to->addr, to->addrlen);
}

void
net_drop(struct node *nd, unsigned from, const char *why)
{
	char id[8];

	nd->drops++;
	node_trace(nd, "drop from=%s why=%s", id_str(from, id, sizeof(id)),
	    why);
}

/* Checks one datagram; NULL and the core's message in *M when good. */
static const char *
check(struct node *nd, const uint8_t *buf, size_t len, struct wire_msg *w,
    struct algo_msg *m)
{
	const char *why;
	long i;

	if ((why = wire_decode(&nd->key, &nd->proto, nd->self->id, buf, len,
	    w)) != NULL)
		return why;
	if ((i = peer_index(nd, w->from)) == -1)
		return "unknown-peer";
	if (algo_msg_name(nd->opts->algo, w->type) == NULL)
		return "bad-type";
	if (w->len > ALGO_PAYLOAD_MAX || w->grp.ctr > UINT32_MAX)
		return "bad-payload";
	/* Per-peer FIFO, which every algorithm's paper assumes: a datagram
	 * older than one already taken from the same incarnation is dropped,
	 * as lost (Garcia-Molina's Assumption 7 allows exactly that). */
	if (nd->win[i].valid && w->inc == nd->win[i].inc &&
	    w->seq < nd->win[i].top)
		return "late";
	if ((why = wire_window_check(&nd->win[i], w->inc, w->seq)) != NULL)
		return why;
	memset(m, 0, sizeof(*m));
	m->peer = w->from;
	m->type = w->type;
	m->len = (uint16_t)w->len;
	m->elid.node = w->grp.node;
	m->elid.inc = w->grp.inc;
	m->elid.ctr = (uint32_t)w->grp.ctr;
	memcpy(m->payload, w->payload, w->len);
	return NULL;
}

void
net_read(struct node *nd)
{
	uint8_t buf[WIRE_DGRAM_MAX + 1];
	struct wire_msg w;
	struct algo_msg m;
	const char *why;
	ssize_t n;
	int i;

	for (i = 0; i < RECV_BURST && !nd->quit; i++) {
		n = recv(nd->udp, buf, sizeof(buf), MSG_TRUNC);
		if (n == -1) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNREFUSED)
				warn("recv");
			return;
		}
		memset(&w, 0, sizeof(w));
		if ((size_t)n > sizeof(buf))
			why = "oversized";
		else
			why = check(nd, buf, (size_t)n, &w, &m);
		if (why != NULL) {
			net_drop(nd, w.from, why);
			continue;
		}
		heard_from(nd, m.peer);
		if (!nd->quit)
			core_recv(nd, &m);
	}
}
