/*
 * The simulator: N copies of one core run over a simulated network
 * (per-message delays drawn from a seeded generator, FIFO per pair of
 * nodes, as the papers assume) and a simulated failure detector with a
 * latency, through a schedule of crashes, recoveries, pauses and
 * partitions.  Every trace line goes to a sink as it is made, up to the
 * end of the run, where every running node writes a clock sample; the
 * same configuration gives the same lines, byte for byte.
 *
 * Clocks: each node's clock reads OFFSET + t (1 + r) at real time t, with
 * r drawn in [-RHO, RHO] and OFFSET in [0, offmax]; the cores see their
 * own clock, the trace is stamped with real time.  A crashed node keeps
 * its clock and its persisted state (ALGO_PERSIST) for its next boot.
 *
 * The network plays elect-node's wire too: a duplicated datagram is
 * dropped as a replay (`drop why=replay'), or, with elect-node's edge
 * (misconf), judged by it.  Loss, a one-way cut and a
 * mended cut under loss make the link flaky in the trace, as it is.
 *
 * The oracle (-O) checks, in real time, what an algorithm whose
 * leadership has a deadline promises (ALGO_F_DEADLINE, lib/algo/algo.h):
 * at most one node leads, fencing tokens grow from one leadership to the
 * next, every node delivers edicts in the order they were made, and every
 * core's invariants hold (algo_check()).  (algo_step() itself aborts on a
 * broken invariant, so that a run never goes on past one.)
 *
 * Epochs (Nerio 10.6, lease; share/elect/lease.md, Epochs): the cluster
 * names every host a run may use, -E the members of epoch 0 (default:
 * all); the others stay down until an epoch takes them in.  Every host
 * runs elect-node's part of a change, lib/host/epoch, over the simulated
 * links: a reconfigure is the operator's request to the first member of
 * the newest epoch that takes it (none: it is skipped, and -S says so),
 * which writes the change and sends it (CHANGE) to every host of both
 * epochs; a member of e that holds it stops its guarded command, wedges
 * its core, answers WEDGE with WEDGED, and, if it stays, ends that core
 * (`exit why=epoch') and boots its core of e+1 (`boot ... epoch=E'),
 * pending and fresh; a pending member of e+1 asks the members of e by
 * WEDGE every renewal period and tells its core ALGO_CMD_TERMINATED at
 * a majority of them.  A host that joins is started with the new file:
 * it boots at once, and learns the change from CHANGE.  A host keeps its
 * record and the change it wrote across crashes, as its state directory
 * does.  These messages go through the hosts' edges, as the daemon's
 * reconf.c sends them, and are not traced; a host's edge takes the other
 * epoch's members in while its part lasts.  The oracle also
 * checks that no node of e+1 leads before a majority of e is wedged.
 * `misconf ID stale' restarts a host with the cluster file of the epoch
 * before its record's: it refuses to start (hep_start()) and stays down.
 *
 * Under an algorithm with a Dead (algo_ops.dead), every host runs a
 * guarded command as elect-node --run-if-leader --wait runs it: the
 * guard is lib/guard's core, fed the daemon's answers (lib/host/lead's,
 * as elect-node's daemon gives them), ticks and the command's end; the oracle checks that two commands never run at once.
 * A kill is a crash of the daemon alone: the guard stops the command and
 * releases the dead incarnation's lease with its Dead, over the simulated
 * links, when the guard says so (only a leader's guard, whose command
 * ran, has a lease to release).
 *
 * A paused node is a frozen host: it handles nothing and its detector
 * sends nothing, so that the other detectors report it; on resume it
 * handles what queued up meanwhile, in order.
 *
 * Every host runs elect-node's edge (lib/host/net), as its daemon runs
 * it on its socket: each message is sealed with the host's key and
 * sequence numbers, held for the handshake, and goes through the
 * receiver's acceptance (MAC, address, type, the handshake of
 * lib/net/session and its window), HELLOs included; lib/host/fit's
 * verdict stops a node from leading.  Hosts sit at 127.0.0.1, a port
 * each.  The HELLOs and nonces draw from a stream of their own.  Not on
 * the papers' network (--table, --papers-net), where a core's message
 * reaching a host in another epoch is dropped (`drop why=epoch') and a
 * copy is a replay.  A misconf restarts a host under another
 * configuration (another algorithm, timing, membership or key) and
 * back; the oracle counts a host of another algorithm as leading while
 * its core leads and its edge lets it.
 *
 * The state of a run is static: one run at a time, each started afresh by
 * sim_run() and freed at its end.
 */
#include <assert.h>
#include <err.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elect-sim.h"
#include "guard/guard.h"
#include "guard/testament.h"
#include "host/accept.h"
#include "host/epoch.h"
#include "host/fit.h"
#include "host/lead.h"
#include "host/named.h"
#include "host/net.h"
#include "net/session.h"
#include "net/wire.h"
#include "trace/compact.h"
#include "trace/trace.h"
#include "util/util.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <sodium.h>

enum ev_type { EV_DELIVER, EV_TIMER, EV_FDCHECK, EV_SCHED, EV_EPOCH,
	EV_EPTICK, EV_GUARD, EV_HELLO, EV_FIT, EV_START, EV_NAMES };

struct event {
	algo_time	 at;
	uint64_t	 seq;		/* ties: order of scheduling */
	enum ev_type	 type;
	int		 dup;		/* a copy the wire drops */
	size_t		 node;		/* receiver, owner, monitor */
	size_t		 peer;		/* sender, monitored node */
	unsigned	 timer;
	uint64_t	 gen, epoch;	/* dead: the incarnation, the host's
					 * life */
	uint32_t	 ep;		/* deliver: the sender's epoch */
	uint8_t		*dgram;		/* deliver, with handshakes: the
					 * datagram as elect-node seals it;
					 * epoch: the message's payload */
	size_t		 dglen;
	const struct sched *s;
	struct event	*next;		/* in a backlog */
	/* Allocated only as far as its payload: with N^2 messages in
	 * flight at N = 1000, full-sized messages took GBs. */
	struct algo_msg	*msg;
};

#define MSG_SIZE(m)	(offsetof(struct algo_msg, payload) + (m)->len)

struct monitor {
	int		 active, reported;
	uint64_t	 gen;		/* bumped by start and stop */
	uint64_t	 epoch;		/* bumped when the peer's look changes */
	int		 looks_down;
};

struct node {
	uint16_t	 id;
	struct trace_compact tc;	/* --trace-level */
	int		 up, paused;
	uint64_t	 inc;
	struct algo	*core;
	uint64_t	 tgen[ALGO_TIMERS_MAX];
	struct event	*backlog, **backtail;
	struct monitor	*mon;		/* our detector, per peer */
	uint8_t		*playdead;	/* we look dead to peer */
	algo_time	*lastdel;	/* FIFO to peer */
	algo_time	 off;		/* its clock: off + t (1 + ppb/1e9) */
	int64_t		 ppb;
	uint8_t		 persist[ALGO_PERSIST_MAX];
	size_t		 persistlen;
	/* -O: its leadership (on its clock) and token, the leadership
	 * of its last life and that life's incarnation. */
	algo_time	 until, ghost;
	uint64_t	 tok, ghostinc;
	uint64_t	 life;		/* bumped when the host crashes */
	algo_time	 lastmade;	/* of the last edict it delivered */
	/* Epochs: its core's (its state directory's record), the change
	 * it wrote there (the epoch it leads to, 0: none), and its part of
	 * a change: lib/host/epoch, as elect-node runs it. */
	uint32_t	 ep;
	uint32_t	 saved;
	int		 crashed;	/* down until a scheduled boot */
	int		 stale;		/* refused to start: down for good */
	int		 fresh;		/* its next boot is its core's first */
	struct hep	*hep;
	uint64_t	 egen;		/* EV_EPTICK */
	/* misconf: what its configuration differs in (SESS_OK: none), the
	 * algorithm its core runs, and with handshakes, elect-node's edge:
	 * its key, protocol, digests and cluster file (the run's, or its
	 * own under a membership that differs), the handshake with each
	 * peer of that file and the sequence numbers it sent each (indexed
	 * like it), and its verdict on leading. */
	int		 odd;
	const struct algo_ops *ops;
	struct wire_key	 key;
	struct wire_proto proto;
	struct sess_conf sconf;
	const struct cluster *cl;
	struct cluster	 own;
	struct hnet	 net;		/* lib/host/net */
	struct lead	 lead;		/* its daemon's, for its guard */
	uint64_t	 hgen, fgen;	/* EV_HELLO, EV_FIT */
	algo_time	 hnext;		/* EV_HELLO's time, on its clock;
					 * INT64_MAX: none */
	/* Up, its core not yet started: it waits for the handshakes, as
	 * elect-node's daemon (hnet_may_start()), by EV_START. */
	int		 starting;
	uint64_t	 sgen;
	int		 oddlead;	/* -O: its core leads, without deadline */
	/* Its --run-if-leader --wait (lib/guard), while one runs a
	 * command, and the command; the daemon incarnation it guards. */
	struct guard	*guard;
	int		 cmd;		/* the command runs */
	uint64_t	 ginc;
	uint64_t	 ggen, gid, grq;	/* EV_GUARD: a tick (ggen), G's
					 * exit (gid: which guard's), an
					 * answer (grq: the request's) */
	uint32_t	 gep;
	int		 greg;		/* the request in flight registers */
	int		 ganswered;	/* a waiting registration's answer, */
	struct guard_reply greply;	/* ... given when it could start */
	/* --names: its named leaderships (lib/host/named), as elect-node's
	 * daemon runs them, its wake (EV_NAMES), and under -O, by name,
	 * whether it leads and with which token. */
	struct hnl	*hnl;
	uint64_t	 ngen;
	uint64_t	 nfloor;	/* written by its last life */
	uint64_t	*ntok;
	algo_time	*nuntil;
};

/* An epoch's members, a byte per node index, as a cluster file, and the
 * change to it from the one before; for the oracle, how many of them
 * were seen wedged. */
struct epoch {
	uint8_t		*in, *wedged;
	uint16_t	*ids;
	size_t		 n, nwedged;
	struct cluster	 cl;
	struct epoch_change chg;
};

#define NS	INT64_C(1000000000)

/* The run's configuration, and what it reads often. */
static const struct sim_conf *C;
static const struct algo_ops *ops;
static sim_sink sink;
static void *sinkarg;
static struct sim_result *res;

static struct node *nodes;
static const uint16_t *ids;
static size_t n;
static uint16_t *idx;		/* node id to index + 1 */
static uint8_t *cuts;		/* n * n: the link from a to b is down */
static size_t ncut;		/* directed links down */
#define cut(a, b)	cuts[(a) * n + (b)]
static uint64_t rng;		/* the network, clocks, boots */
static uint64_t srng;		/* the random schedule, apart, so that it
				 * replays the same as -e events */
static uint64_t erng;		/* the edge's nonces and HELLOs, apart, so
				 * that the cores' messages draw as they
				 * would without it */
static struct algo_out out;

static struct event **heap;
static size_t nheap, capheap;
static uint64_t nextseq;

static struct sched *scheds;
static size_t nscheds;

/* -S: messages by type since the last fault, and agreement. */
static unsigned long sent[256], sent_total[256];
static algo_time fault_at;
static const char *fault_what;
static int agreed;

static int epochs_used;
/* --names: their names, one output for every host's steps, their own
 * random stream (which names a host asks for), so that the cores'
 * messages draw as they would without them, and under -O the largest
 * token of each. */
static char (*nnames)[16];
static struct hnl_out hnlout;
static uint64_t nrng;
static uint64_t *nmaxtok;
static int handshakes;		/* a misconf is scheduled */
static struct hnet_out *hout_net;	/* a host's edge's actions, carried out
				 * one call at a time: a datagram's, a
				 * tick's, a verdict's; */
static struct hnet_out *hout_send;	/* ... a send's, within them (the
					 * daemon's nin and nsend) */
static uint16_t *oddids;	/* a membership that differs */
static struct cluster simc;	/* the hosts' file: 127.0.0.1, a port each */
static struct sockaddr_storage *addr;	/* by node index */
static struct epoch *epochs;	/* one per reconfigure, and epoch 0 */
static struct hep_out *hout;	/* the actions of a change's core */
static uint32_t cur;		/* the newest epoch */
static size_t nepochs;		/* room in epochs */

/* -O: the oracle, and the edicts made so far with their real times. */
static unsigned long violations;
static uint64_t maxtok;
struct made {
	uint16_t	 from;
	uint64_t	 tok, seq;
	algo_time	 at;
};
static struct made *made;
static size_t nmade, capmade;

static uint64_t
rnd(void)
{
	return algo_splitmix(&rng);
}

/* Uniform in [lo, hi], drawn from generator G. */
static algo_time
uniform_in(uint64_t *g, algo_time lo, algo_time hi)
{
	if (hi <= lo)
		return lo;
	return lo + (algo_time)(algo_splitmix(g) % (uint64_t)(hi - lo + 1));
}

#define uniform(lo, hi)		uniform_in(&rng, (lo), (hi))
#define suniform(lo, hi)	uniform_in(&srng, (lo), (hi))

/* ---- the nodes' clocks ---- */

/* ND's clock at real time T. */
static algo_time
clock_at(const struct node *nd, algo_time t)
{
	return nd->off + t + (algo_time)((__int128)t * nd->ppb / NS);
}

/* The first real time at which ND's clock reads AT. */
static algo_time
real_at(const struct node *nd, algo_time at)
{
	algo_time t;

	if (at <= nd->off)
		return 0;
	t = (algo_time)((__int128)(at - nd->off) * NS / (NS + nd->ppb));
	while (clock_at(nd, t) < at)
		t++;
	while (t > 0 && clock_at(nd, t - 1) >= at)
		t--;
	return t;
}

/* ---- the event queue: a binary heap on (at, seq) ---- */

static int
before(const struct event *a, const struct event *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static struct event *
new_event(enum ev_type type, algo_time at)
{
	struct event *e;

	if ((e = calloc(1, sizeof(*e))) == NULL)
		err(1, NULL);
	e->type = type;
	e->at = at;
	e->seq = nextseq++;
	return e;
}

static void
free_event(struct event *e)
{
	free(e->msg);
	free(e->dgram);
	free(e);
}

static void
push(struct event *e)
{
	struct event *t;
	size_t i, p;

	if (nheap == capheap) {
		capheap = capheap ? capheap * 2 : 256;
		if ((heap = reallocarray(heap, capheap, sizeof(*heap))) == NULL)
			err(1, NULL);
	}
	i = nheap++;
	heap[i] = e;
	while (i > 0 && before(heap[i], heap[p = (i - 1) / 2])) {
		t = heap[i], heap[i] = heap[p], heap[p] = t;
		i = p;
	}
}

static struct event *
pop(void)
{
	struct event *top, *t;
	size_t i = 0, c;

	top = heap[0];
	heap[0] = heap[--nheap];
	for (;;) {
		c = 2 * i + 1;
		if (c >= nheap)
			break;
		if (c + 1 < nheap && before(heap[c + 1], heap[c]))
			c++;
		if (!before(heap[c], heap[i]))
			break;
		t = heap[i], heap[i] = heap[c], heap[c] = t;
		i = c;
	}
	return top;
}

/* ---- the trace ---- */

static void
trace(algo_time t, size_t node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
trace(algo_time t, size_t node, const char *fmt, ...)
{
	char l[TRACE_LINE_MAX], body[TRACE_LINE_MAX], out2[2][TRACE_LINE_MAX];
	va_list ap;
	size_t i, nout = 1;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(body))
		errx(1, "trace line too long");
	/* A node's lines at the level asked for, as elect-node writes them. */
	if (node != SIZE_MAX)
		nout = tc_filter(&nodes[node].tc, t, body, out2);
	else
		strlcpy(out2[0], body, sizeof(out2[0]));
	for (i = 0; i < nout; i++) {
		len = trace_format_line(l, sizeof(l), t, node == SIZE_MAX ? 0 :
		    nodes[node].id, "%s", out2[i]);
		if (len < 0 || (size_t)len >= sizeof(l))
			errx(1, "trace line too long");
		if (res != NULL)
			res->events++;
		sink(sinkarg, l, (size_t)len);
	}
}

static void
trace_msg(algo_time t, size_t node, const char *dir, const struct algo_msg *m)
{
	char e[ALGO_ELID_STRLEN], f[512];

	const struct algo_ops *o = nodes[node].ops;

	algo_msg_fields(o, m, f, sizeof(f));
	if (m->elid.node == 0)
		trace(t, node, "%s=%u msg=%s%s", dir, m->peer,
		    algo_msg_name(o, m->type), f);
	else
		trace(t, node, "%s=%u msg=%s elid=%s%s", dir, m->peer,
		    algo_msg_name(o, m->type),
		    algo_elid_fmt(&m->elid, e, sizeof(e)), f);
}

/* ---- the failure detector ---- */

static size_t
index_of(uint16_t id)
{
	if (idx[id] == 0)
		errx(1, "core named unknown node %u", id);
	return idx[id] - 1;
}

/* Whether J looks down to I's detector. */
static int	differs(size_t, size_t);
static int	misaddressed(size_t, size_t);

/* Whether J looks down to I's detector (whose handshake, given the same
 * digests as elect-node's, does not count a peer that disagrees). */
static int
looks_down(size_t i, size_t j)
{
	return !nodes[j].up || nodes[j].paused || cut(j, i) ||
	    nodes[j].playdead[i] || (handshakes && (differs(i, j) ||
	    misaddressed(i, j) || misaddressed(j, i)));
}

static algo_time
latency(size_t monitor)
{
	if (C->fdlat != NULL)
		return C->fdlat[monitor];
	if (C->lowest_first)
		return C->lmin + (C->lmax - C->lmin) * (algo_time)monitor /
		    (algo_time)(n > 1 ? n - 1 : 1);
	return uniform(C->lmin, C->lmax);
}

static void
fd_schedule(size_t i, size_t j, algo_time now)
{
	struct monitor *m = &nodes[i].mon[j];
	struct event *e;

	if (!m->active || m->reported || !m->looks_down)
		return;
	e = new_event(EV_FDCHECK, now + latency(i));
	e->node = i;
	e->peer = j;
	e->gen = m->gen;
	e->epoch = m->epoch;
	push(e);
}

/* J's look to I's detector may have changed: note it. */
static void
fd_note(size_t i, size_t j, algo_time now)
{
	struct monitor *m = &nodes[i].mon[j];
	int d;

	if (i == j || (d = looks_down(i, j)) == m->looks_down)
		return;
	m->looks_down = d;
	m->epoch++;
	fd_schedule(i, j, now);
}

/* Node J went up, down, paused or resumed: every detector notes it, so
 * that the cost is the N monitors of J, not all N^2 pairs. */
static void
fd_update_node(size_t j, algo_time now)
{
	size_t i;

	for (i = 0; i < n; i++)
		fd_note(i, j, now);
}

/* Links changed (partition, heal): every pair. */
static void
fd_update(algo_time now)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			fd_note(i, j, now);
}

static void	handle(struct event *);
static void	guard_note(size_t, algo_time);
static void	guard_feed(size_t, enum guard_in_type, algo_time);
static void	oracle_note(size_t, algo_time);
static void	note_edict(size_t, const struct algo_edict *, algo_time);
static void	epoch_after(size_t, algo_time);
static void	epoch_tick_at(size_t, algo_time);
static void	ep_status(size_t, algo_time, struct hep_status *);
static int	lead_feed(size_t, struct lead_input *, algo_time,
		    struct guard_reply *);
static void	lead_boot(size_t, const struct algo_timing *);

/* ---- carrying out a core's actions ---- */

static void
deliver_at(size_t from, size_t to, const struct algo_msg *m, uint32_t ep,
    algo_time at, int dup, const uint8_t *dg, size_t dglen)
{
	struct event *e;

	e = new_event(EV_DELIVER, at);
	if (dglen > 0) {
		if ((e->dgram = malloc(dglen)) == NULL)
			err(1, NULL);
		memcpy(e->dgram, dg, dglen);
		e->dglen = dglen;
	}
	e->node = to;
	e->peer = from;
	e->dup = dup;
	e->ep = ep;
	if (m != NULL) {
		if ((e->msg = malloc(MSG_SIZE(m))) == NULL)
			err(1, NULL);
		memcpy(e->msg, m, MSG_SIZE(m));
		e->msg->peer = nodes[from].id;
	}
	push(e);
}

/* A message M, or with elect-node's edge its datagram DG of DGLEN bytes,
 * from host FROM to TO of epoch EP over the simulated links: cut, lost,
 * late, reordered or copied. */
static void
link_carry(size_t from, size_t to, const struct algo_msg *m,
    const uint8_t *dg, size_t dglen, uint32_t ep, uint64_t *g, algo_time now)
{
	algo_time at;

	/* To an address the peer is not at, it is lost. */
	if (dglen > 0 && misaddressed(from, to))
		return;
	if (cut(from, to))
		return;
	if (C->loss > 0 && algo_splitmix(g) % 100 < C->loss)
		return;
	at = now + uniform_in(g, C->dmin, C->dmax);
	/* A late datagram: up to ten times the longest delay more. */
	if (C->delay > 0 && algo_splitmix(g) % 100 < C->delay)
		at += uniform_in(g, 0, 10 * C->dmax);
	if (!C->reorder && at < nodes[from].lastdel[to])
		at = nodes[from].lastdel[to];
	nodes[from].lastdel[to] = at;
	deliver_at(from, to, m, ep, at, 0, dg, dglen);
	/* A Dead skips the wire's window (elect-node(1)): its copy too
	 * reaches the core. */
	if (C->dup > 0 && algo_splitmix(g) % 100 < C->dup)
		deliver_at(from, to, m, ep, at + uniform_in(g, C->dmin,
		    C->dmax), m == NULL || m->type != nodes[from].ops->dead,
		    dg, dglen);
}

static void	names_step(size_t, struct hnl_input *, algo_time);
static void	names_members(size_t, algo_time);
static void	violation(algo_time, const char *, ...)
    __attribute__((format(printf, 2, 3)));
static void	net_carry(size_t, struct hnet_out *, algo_time, struct algo_msg *,
		    int *);
static void	core_start(size_t, algo_time);
static void	core_early(size_t, algo_time);
static void	epoch_recv(size_t, size_t, uint8_t, const uint8_t *, size_t,
		    algo_time);

/*
 * M from host FROM to TO: with elect-node's edge, through FROM's
 * (lib/host/net: sealed now, or held for the handshake), as its daemon
 * sends it; a guard's Dead as its testament has it sealed.
 */
static void
link_send(size_t from, size_t to, const struct algo_msg *m, uint32_t ep,
    algo_time now)
{
	struct node *nd = &nodes[from];
	uint8_t dg[WIRE_DGRAM_MAX];
	size_t len;
	int take = 0;

	if (!handshakes) {
		link_carry(from, to, m, NULL, 0, ep, &rng, now);
		return;
	}
	if (nd->ops->dead != 0 && m->type == nd->ops->dead) {
		if (cluster_find(nd->cl, ids[to]) != NULL && (len =
		    testament_seal(&nd->key, &nd->proto, m->type, nd->id,
		    ids[to], m->elid.inc, dg)) > 0)
			link_carry(from, to, NULL, dg, len, ep, &rng, now);
		return;
	}
	hnet_send(&nd->net, m, clock_at(nd, now), hout_send);
	net_carry(from, hout_send, now, NULL, &take);
}

/* A core's message, counted. */
static void
wire(size_t from, const struct algo_msg *m, uint32_t ep, algo_time now)
{
	if (nodes[from].ops == ops) {
		sent[m->type]++;
		sent_total[m->type]++;
	}
	if (res != NULL)
		res->msgs++;
	link_send(from, index_of(m->peer), m, ep, now);
}

static void
send_msg(size_t from, const struct algo_msg *m, algo_time now)
{
	trace_msg(now, from, "send to", m);
	wire(from, m, nodes[from].ep, now);
}

static void
do_fd(size_t i, enum algo_fd_op op, uint16_t peer, algo_time now)
{
	struct monitor *m;
	size_t j;

	trace(now, i, "fd op=%s peer=%u", algo_fd_op_name(op), peer);
	j = index_of(peer);
	m = &nodes[i].mon[j];
	switch (op) {
	case ALGO_FD_START:
		m->active = 1;
		if (m->reported) {
			m->reported = 0;
			names_members(i, now);
		}
		m->gen++;
		fd_schedule(i, j, now);
		break;
	case ALGO_FD_STOP:
		m->active = 0;
		m->gen++;
		break;
	case ALGO_FD_PLAYDEAD:
	case ALGO_FD_PLAYALIVE:
		nodes[i].playdead[j] = op == ALGO_FD_PLAYDEAD;
		fd_note(j, i, now);
		break;
	}
}

static void
carry_out(size_t i, algo_time now)
{
	const struct algo_action *a;
	struct event *e;
	char e1[ALGO_ELID_STRLEN];
	size_t k;

	for (k = 0; k < out.n; k++) {
		a = &out.v[k];
		switch (a->type) {
		case ALGO_SEND:
			send_msg(i, &a->msg, now);
			break;
		case ALGO_FD:
			do_fd(i, a->fd.op, a->fd.peer, now);
			break;
		case ALGO_TIMER_SET:
			e = new_event(EV_TIMER, real_at(&nodes[i],
			    a->timer.at));
			if (e->at < now)
				e->at = now;
			e->node = i;
			e->timer = a->timer.id;
			e->gen = ++nodes[i].tgen[a->timer.id];
			push(e);
			break;
		case ALGO_TIMER_CANCEL:
			nodes[i].tgen[a->timer.id]++;
			break;
		case ALGO_PERSIST:	/* the simulated disk never fails */
			/* A core of another configuration keeps its own
			 * (elect-node: a file per algorithm), thrown away. */
			if (nodes[i].odd != SESS_OK &&
			    nodes[i].odd != SCHED_MISCONF_ADDR)
				break;
			memcpy(nodes[i].persist, a->persist.data,
			    a->persist.len);
			nodes[i].persistlen = a->persist.len;
			break;
		case ALGO_STATE:
			if (a->state.ldr == 0)
				trace(now, i, "state status=%s ldr=- grp=%s",
				    trace_status_name(a->state.status),
				    algo_elid_fmt(&a->state.grp, e1,
				    sizeof(e1)));
			else
				trace(now, i, "state status=%s ldr=%u grp=%s",
				    trace_status_name(a->state.status),
				    a->state.ldr, algo_elid_fmt(&a->state.grp,
				    e1, sizeof(e1)));
			break;
		case ALGO_TRACE:
			trace(now, i, "%s", algo_out_text(&out, a));
			break;
		case ALGO_EDICT:
			if (C->oracle)
				note_edict(i, &a->edict, now);
			break;
		}
	}
	algo_out_clear(&out);
	if (C->oracle && nodes[i].core != NULL)
		oracle_note(i, now);
	guard_note(i, now);
}

/* Input IN at real time NOW: the core sees its own clock. */
static void
step(size_t i, struct algo_input *in, algo_time now)
{
	int rc;

	/* A command does not wait for the handshakes, as the daemon's
	 * core_cmd() does not; else a core not yet started takes no input
	 * (its detector watches no peer yet). */
	if (nodes[i].core == NULL && nodes[i].starting &&
	    in->type == ALGO_IN_CMD)
		core_start(i, now);
	if (nodes[i].core == NULL)
		return;
	in->now = clock_at(&nodes[i], now);
	rc = algo_step(nodes[i].core, in, &out);
	if (rc == ALGO_EINVAL && in->type == ALGO_IN_RECV)
		trace(now, i, "drop from=%u why=refused", in->msg.peer);
	else if (rc != ALGO_OK && rc != ALGO_ENOTSUP &&
	    !(rc == ALGO_ENOTLEADER && in->type == ALGO_IN_CMD))
		errx(1, "node %u: input refused (%d)", nodes[i].id, rc);
	carry_out(i, now);
	epoch_after(i, now);
}

static void
command(size_t i, enum algo_cmd_code code, algo_time now)
{
	struct algo_input in;

	memset(&in, 0, sizeof(in));
	in.type = ALGO_IN_CMD;
	in.cmd.code = code;
	step(i, &in, now);
}

/* ---- misconf: elect-node's edge on every host ---- */

/* The algorithm of a host under misconf: one without quorums, which
 * would lead beside the cluster's leader if its edge let it. */
static const struct algo_ops *
odd_ops(void)
{
	return algo_find(strcmp(ops->name, "bully-fd") == 0 ? "bully" :
	    "bully-fd");
}

/* Another timing: every period twice as long, within every bound. */
static void
odd_timing(struct algo_timing *t)
{
	t->reply *= 2, t->check *= 2, t->timeout *= 2, t->tau *= 2;
	t->lease *= 2, t->renew *= 2;
}

static int
by_id(const void *a, const void *b)
{
	const struct cluster_node *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The hosts' cluster file, as each reads it unless misconf gives it its
 * own: every node at 127.0.0.1 on a port of its own (1024 + its index),
 * which is where its datagrams come from. */
static void
hosts_file(void)
{
	struct sockaddr_in *a;
	size_t i;

	if (sodium_init() == -1)
		errx(1, "sodium_init failed");
	if ((simc.nodes = calloc(n, sizeof(*simc.nodes))) == NULL ||
	    (addr = calloc(n, sizeof(*addr))) == NULL)
		err(1, NULL);
	simc.n = n;
	for (i = 0; i < n; i++) {
		a = (struct sockaddr_in *)&addr[i];
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)(1024 + i));
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		simc.nodes[i].id = ids[i];
		strlcpy(simc.nodes[i].host, "127.0.0.1",
		    sizeof(simc.nodes[i].host));
		simc.nodes[i].port = (uint16_t)(1024 + i);
		simc.nodes[i].addr = addr[i];
		simc.nodes[i].addrlen = sizeof(*a);
	}
	qsort(simc.nodes, n, sizeof(*simc.nodes), by_id);
}

/* The run's cluster key, from its seed; under misconf a host's own. */
static void
node_key(size_t i)
{
	struct wire_key *k = &nodes[i].key;
	uint64_t g = C->seed ^ UINT64_C(0x6b65796b65796b65), r;
	size_t b;

	memset(k, 0, sizeof(*k));
	for (b = 0; b < sizeof(k->k); b += 8) {
		r = algo_splitmix(&g);
		memcpy(k->k + b, &r, 8);
	}
	if (nodes[i].odd == SESS_KEY) {
		k->k[0] ^= (uint8_t)(i + 1);
		k->k[1] ^= (uint8_t)((i + 1) >> 8);
	}
}

/* The peer host I's file gets wrong under misconf cluster or addr. */
static size_t
odd_peer(size_t i)
{
	return i == n - 1 ? 0 : n - 1;
}

/* Whether host I's file has J at an address J does not send from. */
static int
misaddressed(size_t i, size_t j)
{
	return nodes[i].odd == SCHED_MISCONF_ADDR && n >= 2 &&
	    j == odd_peer(i);
}

/* The membership of host I, *NM nodes: the cluster's, or under misconf
 * one without one of I's peers (an old file, before that host came). */
static const uint16_t *
members(size_t i, size_t *nm)
{
	size_t k, drop = odd_peer(i);

	*nm = n;
	if (nodes[i].odd != SESS_CLUSTER || n < 2)
		return ids;
	for (k = 0, *nm = 0; k < n; k++)
		if (k != drop)
			oddids[(*nm)++] = ids[k];
	return oddids;
}

static int
in_ids(const uint16_t *m, size_t nm, unsigned id)
{
	size_t k;

	for (k = 0; k < nm; k++)
		if (m[k] == id)
			return 1;
	return 0;
}

/* Host I's cluster file: the run's, or under a membership that differs
 * the run's without the peer members() leaves out. */
static void
node_file(size_t i)
{
	struct node *nd = &nodes[i];
	const uint16_t *m;
	size_t k, nm;

	cluster_free(&nd->own);
	nd->cl = &simc;
	/* Its epoch's members and, while its part of a change lasts, the
	 * other epoch's, as net_peers() takes them. */
	if (epochs_used) {
		if (cluster_union(&nd->own, &epochs[nd->ep].cl,
		    hep_other(nd->hep)) == -1)
			err(1, NULL);
		nd->cl = &nd->own;
		return;
	}
	if (nd->odd == SCHED_MISCONF_ADDR && n >= 2) {
		/* Every peer, but one on a port no host uses. */
		if ((nd->own.nodes = calloc(n, sizeof(*nd->own.nodes))) ==
		    NULL)
			err(1, NULL);
		memcpy(nd->own.nodes, simc.nodes, n * sizeof(*simc.nodes));
		nd->own.n = n;
		for (k = 0; k < n; k++)
			if (nd->own.nodes[k].id == ids[odd_peer(i)]) {
				nd->own.nodes[k].port = (uint16_t)(1024 + n);
				((struct sockaddr_in *)&nd->own.nodes[k].addr)->
				    sin_port = htons(nd->own.nodes[k].port);
			}
		nd->cl = &nd->own;
		return;
	}
	if (nd->odd != SESS_CLUSTER || n < 2)
		return;
	m = members(i, &nm);
	if ((nd->own.nodes = calloc(nm, sizeof(*nd->own.nodes))) == NULL)
		err(1, NULL);
	for (k = 0; k < simc.n; k++)
		if (in_ids(m, nm, simc.nodes[k].id))
			nd->own.nodes[nd->own.n++] = simc.nodes[k];
	nd->cl = &nd->own;
}

/* Host I's configuration, as elect-node's digests say it (net_conf()):
 * its algorithm, its timing and its membership. */
static void
node_conf(size_t i)
{
	struct node *nd = &nodes[i];
	struct algo_timing t = C->timing;

	nd->ops = nd->odd == SESS_ALGO ? odd_ops() : ops;
	node_key(i);
	nd->proto.magic = WIRE_MAGIC_NODE;
	nd->proto.maxtype = (uint8_t)(nd->ops->nmsg - 1);
	nd->proto.epochs = (algo_flags(nd->ops) & ALGO_F_EPOCHS) != 0;
	/* Named leaderships' rounds, as elect-node's. */
	nd->proto.names = 1;
	node_file(i);
	memset(&nd->sconf, 0, sizeof(nd->sconf));
	sess_digest(nd->ops->name, strlen(nd->ops->name), nd->sconf.d[0]);
	if (nd->odd == SESS_TIMING)
		odd_timing(&t);
	_Static_assert(sizeof(t) % sizeof(algo_time) == 0,
	    "timings are algo_time only");
	sess_digest((const char *)&t, sizeof(t), nd->sconf.d[1]);
	/* The core's membership, and its epoch. */
	sess_cluster_digest(epochs_used ? &epochs[nd->ep].cl : nd->cl,
	    nd->sconf.d[2]);
	if (epochs_used)
		nd->sconf.epoch = nd->ep;
}

/* Whether I and J run configurations that differ. */
static int
differs(size_t i, size_t j)
{
	return memcmp(nodes[i].key.k, nodes[j].key.k, sizeof(nodes[i].key.k)) ||
	    memcmp(&nodes[i].sconf, &nodes[j].sconf, sizeof(nodes[i].sconf));
}

/* Host I's next HELLO round at AT, on its clock. */
static void
hello_at(size_t i, algo_time at)
{
	struct event *e;

	e = new_event(EV_HELLO, real_at(&nodes[i], at));
	e->node = i;
	e->gen = ++nodes[i].hgen;
	nodes[i].hnext = at;
	push(e);
}

/* ... by AT at the latest (NOW if it is past), the round already due
 * before kept. */
static void
hello_by(size_t i, algo_time at, algo_time now)
{
	if (at < now)
		at = now;
	if (at < nodes[i].hnext)
		hello_at(i, at);
}

/* What host I's edge (lib/host/net) decided at NOW, carried out as
 * elect-node's daemon carries it out (net.c), over the simulated links;
 * the core's message of a datagram into *M, with *TAKE set. */
static void
net_carry(size_t i, struct hnet_out *o, algo_time now, struct algo_msg *m,
    int *take)
{
	struct node *nd = &nodes[i];
	const struct hnet_action *a;
	struct lead_input in;
	struct hnl_input nin;
	algo_time at;
	size_t k;

	for (k = 0; k < o->n; k++) {
		a = &o->v[k];
		switch (a->type) {
		case HNET_SEND:
			link_carry(i, index_of(a->id), NULL, a->dgram, a->len,
			    nd->ep, a->hello ? &erng : &rng, now);
			break;
		case HNET_CORE:
			assert(m != NULL);	/* only a datagram's */
			memcpy(m, a->msg, MSG_SIZE(a->msg));
			*take = 1;
			break;
		case HNET_TRACE:
			trace(now, i, "%s", a->text);
			break;
		case HNET_VERDICT:
			/* The verdict to the daemon's lib/host/lead, as
			 * task_verdict() gives it: a veto tells its
			 * guarded command to stop at once. */
			memset(&in, 0, sizeof(in));
			in.type = LEAD_IN_VERDICT;
			in.vetoed = nd->net.fit.vetoed;
			in.live = nd->net.fit.live;
			in.changed = a->changed;
			lead_feed(i, &in, now, NULL);
			if (C->oracle && nd->core != NULL)
				oracle_note(i, now);
			break;
		case HNET_EPOCH:
			epoch_recv(i, index_of((uint16_t)a->id), a->w->type,
			    a->w->payload, a->w->len, now);
			break;
		case HNET_NAMES:
			memset(&nin, 0, sizeof(nin));
			nin.type = HNL_IN_RECV;
			nin.id = a->id;
			nin.inc = a->inc;
			nin.p = a->w->payload;
			nin.len = a->w->len;
			names_step(i, &nin, now);
			break;
		case HNET_DEAD:
			/* As the daemon's named_dead(): that life and those
			 * before are over. */
			memset(&nin, 0, sizeof(nin));
			nin.type = HNL_IN_DEAD;
			nin.id = a->id;
			nin.inc = a->inc + 1;
			names_step(i, &nin, now);
			break;
		case HNET_DROP:		/* summarised in HNET_TRACE */
		case HNET_PEER:		/* the log's, and the detector's: */
		case HNET_FD:
		case HNET_LOG:
			break;
		}
	}
	hnet_out_clear(o);
	/* The handshakes done: its core starts, as the daemon's does. */
	if (nd->starting && hnet_may_start(&nd->net, clock_at(nd, now), &at))
		core_start(i, now);
}

/* The HELLOs host I owes and the summaries due, as net_tick(). */
static void
hello_tick(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	algo_time c = clock_at(nd, now), next;
	int take = 0;

	nd->hnext = INT64_MAX;
	next = hnet_tick(&nd->net, c, hout_net);
	net_carry(i, hout_net, now, NULL, &take);
	if (next != INT64_MAX)
		hello_at(i, next > c ? next : c);
}

/* The verdict of lib/host/fit anew, as net_fit(): looked at again when it
 * may change by itself. */
static void
fit_tick(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct event *e;
	int64_t wake;
	int take = 0;

	wake = hnet_fit(&nd->net, clock_at(nd, now), hout_net);
	net_carry(i, hout_net, now, NULL, &take);
	if (wake == INT64_MAX)
		return;
	e = new_event(EV_FIT, real_at(nd, wake));
	if (e->at < now)
		e->at = now;
	e->node = i;
	e->gen = ++nd->fgen;
	push(e);
}

/* Host I's edge's tables for its file, every handshake anew (FRESH) or
 * kept by peer, as net_peers(). */
static void
edge_peers(size_t i, int fresh)
{
	struct node *nd = &nodes[i];
	uint8_t *nonces;
	uint64_t r;
	size_t k;

	if ((nonces = malloc(nd->cl->n * SESS_NONCE + 8)) == NULL)
		err(1, NULL);
	for (k = 0; k < nd->cl->n * SESS_NONCE; k += 8) {
		r = algo_splitmix(&erng);
		memcpy(nonces + k, &r, 8);
	}
	if (hnet_peers(&nd->net, nd->cl, fresh, nonces) == -1)
		err(1, NULL);
	free(nonces);
}

/* A new incarnation's edge: every handshake anew, as net_open(). */
static void
edge_boot(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct hnet_conf hc = {
		.self = nd->id, .ops = nd->ops, .key = &nd->key,
		.proto = &nd->proto, .conf = &nd->sconf, .inc = nd->inc,
		.cluster = "cluster",
	};

	hnet_free(&nd->net);
	hnet_init(&nd->net, &hc);
	edge_peers(i, 1);
	hello_at(i, clock_at(nd, now));
}

/* The other epoch of host I's change joins or leaves its edge's tables,
 * as the daemon's net_peers(nd, 0) at HEP_PEERS and after a step. */
static void
edge_retable(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];

	if (!handshakes || !nd->up)
		return;		/* its boot takes the file as it is then */
	node_file(i);
	edge_peers(i, 0);
	hello_at(i, clock_at(nd, now));
}

/*
 * Datagram E through host E->node's edge, the code elect-node's runs
 * (lib/host/net): 1 and the core's message in *M when the core takes it;
 * else it was a HELLO, a change's message or a drop.
 */
static int
edge_accept(struct event *e, struct algo_msg *m)
{
	struct node *nd = &nodes[e->node];
	algo_time c = clock_at(nd, e->at);
	int take = 0;

	hnet_recv(&nd->net, e->dgram, e->dglen, &addr[e->peer], c, hout_net);
	net_carry(e->node, hout_net, e->at, m, &take);
	/* A handshake may have changed: looked at at once, as the daemon's
	 * next loop does (net_tick()). */
	if (nd->up && nd->net.sess != NULL && nd->net.due <= c)
		hello_by(e->node, c, c);
	if (nd->net.fit_due <= c)
		fit_tick(e->node, e->at);
	return take;
}

/*
 * --names: host I's named leaderships, lib/host/named as elect-node's
 * daemon runs them beside the core: booted with each life, their rounds
 * sealed and carried by the host's edge (WIRE_TYPE_NAMES), Deads and
 * the detector's word fed as the daemon feeds them, every name asked
 * for by some of the hosts.
 */
static void
names_wake(size_t i, int64_t wake, algo_time now)
{
	struct node *nd = &nodes[i];
	struct event *e;

	nd->ngen++;
	if (wake == -1)
		return;
	e = new_event(EV_NAMES, real_at(nd, wake));
	if (e->at < now)
		e->at = now;
	e->node = i;
	e->gen = nd->ngen;
	push(e);
}

/* Under -O: no name led by two hosts at once, tokens growing by name. */
static void
names_oracle(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct hnl_status st;
	size_t k, j;

	for (k = 0; k < C->names; k++) {
		hnl_query(nd->hnl, nnames[k], strlen(nnames[k]),
		    clock_at(nd, now), &st);
		nd->nuntil[k] = st.leader ? st.until : 0;
		if (st.leader && st.token != nd->ntok[k]) {
			if (st.token <= nmaxtok[k])
				violation(now, "node %u leads %s with token "
				    "%llu, not above %llu", nd->id, nnames[k],
				    (unsigned long long)st.token,
				    (unsigned long long)nmaxtok[k]);
			nmaxtok[k] = st.token > nmaxtok[k] ? st.token :
			    nmaxtok[k];
		}
		nd->ntok[k] = st.leader ? st.token : 0;
		if (!st.leader)
			continue;
		for (j = 0; j < n; j++)
			if (j != i && nodes[j].nuntil != NULL &&
			    clock_at(&nodes[j], now) < nodes[j].nuntil[k])
				violation(now, "%s led by %u and %u at once",
				    nnames[k], nodes[j].id, nd->id);
	}
}

static void
names_carry(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	const struct hnl_action *a;
	struct wire_msg w;
	size_t k;
	int take = 0;

	for (k = 0; k < hnlout.n; k++) {
		a = &hnlout.v[k];
		switch (a->type) {
		case HNL_SEND:
			memset(&w, 0, sizeof(w));
			w.type = WIRE_TYPE_NAMES;
			w.payload = a->payload;
			w.len = a->len;
			(void)hnet_send_wire(&nd->net, a->id, &w, hout_send);
			net_carry(i, hout_send, now, NULL, &take);
			break;
		case HNL_TRACE:
			trace(now, i, "%s", a->text);
			break;
		case HNL_SAVE:		/* its state directory's */
			nd->nfloor = a->floor;
			break;
		case HNL_DROP:		/* the daemon's log's */
		case HNL_LOG:
		case HNL_STATUS:
		case HNL_REFUSE:
			break;
		}
	}
	names_wake(i, hnlout.wake, now);
	if (C->oracle)
		names_oracle(i, now);
}

static void
names_step(size_t i, struct hnl_input *in, algo_time now)
{
	struct node *nd = &nodes[i];

	if (nd->hnl == NULL || !nd->up)
		return;
	in->now = clock_at(nd, now);
	hnl_step(nd->hnl, in, &hnlout);
	names_carry(i, now);
}

/* The members host I takes for live: those its detector has not
 * reported down, as the daemon's named_members(). */
static void
names_members(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct hnl_input in;
	unsigned v[SIM_NODES];
	size_t j, m = 0;

	if (nd->hnl == NULL)
		return;
	for (j = 0; j < n; j++)
		if (j == i || !nd->mon[j].reported)
			v[m++] = ids[j];
	memset(&in, 0, sizeof(in));
	in.type = HNL_IN_MEMBERS;
	in.ids = v;
	in.nids = m;
	names_step(i, &in, now);
}

static void
names_stop(size_t i)
{
	struct node *nd = &nodes[i];

	if (nd->hnl != NULL) {
		hnl_free(nd->hnl);
		free(nd->hnl);
		nd->hnl = NULL;
	}
	nd->ngen++;
	if (nd->nuntil != NULL)
		memset(nd->nuntil, 0, C->names * sizeof(*nd->nuntil));
}

/* A new life of host I: its named leaderships anew, asking for each
 * name with odds of three in four. */
static void
names_boot(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct hnl_conf c;
	struct hnl_input in;
	unsigned v[SIM_NODES];
	size_t j, k;

	if (C->names == 0)
		return;
	names_stop(i);
	memset(&c, 0, sizeof(c));
	c.self = nd->id;
	c.inc = nd->inc;
	/* Over its epoch's members, as elect-node's named_open(): a new
	 * epoch's tokens lie above every token of the ones before. */
	if (epochs_used) {
		for (j = 0; j < epochs[nd->ep].n; j++)
			v[j] = epochs[nd->ep].ids[j];
		c.nids = epochs[nd->ep].n;
		c.epoch = nd->ep;
		c.pending = nd->ep > 0;
	} else {
		for (j = 0; j < n; j++)
			v[j] = ids[j];
		c.nids = n;
	}
	c.ids = v;
	c.timing = C->timing;
	hnl_names_conf(&c.names, &c.timing, C->names);
	c.names.floor = nd->nfloor;
	if ((nd->hnl = malloc(sizeof(*nd->hnl))) == NULL ||
	    hnl_init(nd->hnl, &c, clock_at(nd, now)) == -1)
		errx(1, "node %u: named leaderships cannot run", nd->id);
	if (hnlout.v == NULL && hnl_out_init(&hnlout, nd->hnl) == -1)
		err(1, NULL);
	/* Wedged in an earlier life, as its core's state says: its names
	 * grant nothing more in this epoch (elect-node's named_open()). */
	if (epochs_used && epochs[nd->ep].wedged[i]) {
		memset(&in, 0, sizeof(in));
		in.type = HNL_IN_WEDGE;
		names_step(i, &in, now);
	}
	for (k = 0; k < C->names; k++) {
		if (algo_splitmix(&nrng) % 4 == 0)
			continue;
		memset(&in, 0, sizeof(in));
		in.type = HNL_IN_REGISTER;
		in.name = nnames[k];
		in.nlen = strlen(nnames[k]);
		names_step(i, &in, now);
	}
}

/* ---- the schedule ---- */

static void
boot(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct event *e;
	algo_time at;
	size_t j;

	nd->up = 1;
	nd->paused = 0;
	nd->inc++;
	memset(nd->mon, 0, n * sizeof(*nd->mon));
	memset(nd->playdead, 0, n * sizeof(*nd->playdead));
	for (j = 0; j < n; j++)
		nd->mon[j].looks_down = looks_down(i, j);
	fd_update_node(i, now);
	if (handshakes) {
		/* As elect-node: up and said so, its guarded commands'
		 * decisions anew, its core started once its handshakes
		 * are done. */
		struct algo_timing t = C->timing;
		size_t nids;

		if (epochs_used) {
			node_conf(i);
			trace(now, i, "boot inc=%" PRIu64 " algo=%s nodes=%zu "
			    "epoch=%" PRIu32, nd->inc, ops->name,
			    epochs[nd->ep].n, nd->ep);
		} else {
			(void)members(i, &nids);
			trace(now, i, "boot inc=%" PRIu64 " algo=%s nodes=%zu",
			    nd->inc, nd->ops->name, nids);
		}
		if (nd->odd == SESS_TIMING)
			odd_timing(&t);
		lead_boot(i, &t);
		edge_boot(i, now);
		names_boot(i, now);
		nd->starting = 1;
		hnet_boot(&nd->net, clock_at(nd, now));
		(void)hnet_may_start(&nd->net, clock_at(nd, now), &at);
		e = new_event(EV_START, real_at(nd, at));
		e->node = i;
		e->gen = ++nd->sgen;
		push(e);
		return;
	}
	core_start(i, now);
}

/* Host I's core boots and its first actions run: at once without
 * elect-node's edge, else once its handshakes are done. */
static void
core_start(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct algo_config cfg;
	char err[128];
	int said = nd->starting;	/* its boot, by boot() */

	nd->starting = 0;
	nd->sgen++;
	memset(&cfg, 0, sizeof(cfg));
	cfg.self = nd->id;
	cfg.timing = C->timing;
	if (epochs_used) {
		if (!said)
			trace(now, i, "boot inc=%" PRIu64 " algo=%s nodes=%zu "
			    "epoch=%" PRIu32, nd->inc, ops->name,
			    epochs[nd->ep].n, nd->ep);
		cfg.ids = epochs[nd->ep].ids;
		cfg.nids = epochs[nd->ep].n;
		cfg.epoch = nd->ep;
		cfg.epoch_pending = nd->ep > 0;
		cfg.epoch_fresh = nd->fresh && nd->ep > 0 &&
		    nd->persistlen == 0;
		nd->fresh = 0;
		nd->crashed = 0;
	} else {
		cfg.ids = members(i, &cfg.nids);
		if (!said)
			trace(now, i, "boot inc=%" PRIu64 " algo=%s nodes=%zu",
			    nd->inc, nd->ops->name, cfg.nids);
		if (nd->odd == SESS_TIMING)
			odd_timing(&cfg.timing);
	}
	cfg.inc = nd->inc;
	cfg.seed = rnd();
	if (!said)
		lead_boot(i, &cfg.timing);
	/* A wrong address in its file leaves the core its own. */
	if (nd->odd == SESS_OK || nd->odd == SCHED_MISCONF_ADDR) {
		cfg.persist = nd->persistlen > 0 ? nd->persist : NULL;
		cfg.persistlen = nd->persistlen;
	}
	if ((nd->core = algo_boot(nd->ops, &cfg, clock_at(nd, now), &out, err,
	    sizeof(err))) == NULL)
		errx(EXIT_USAGE, "node %u: %s", nd->id, err);
	carry_out(i, now);
	epoch_after(i, now);
	if (handshakes)
		core_early(i, now);
}

/* What host I's peers sent before its core started, as it came, as the
 * daemon's core_start() gives it. */
static void
core_early(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct algo_input *in;

	hnet_start(&nd->net);
	if ((in = malloc(sizeof(*in))) == NULL)
		err(1, NULL);
	memset(in, 0, sizeof(*in));
	in->type = ALGO_IN_RECV;
	while (nd->up && nd->core != NULL && hnet_early(&nd->net, &in->msg)) {
		trace_msg(now, i, "recv from", &in->msg);
		step(i, in, now);
	}
	free(in);
}

static void
stop(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct event *e;
	size_t t;

	algo_free(nd->core);
	nd->core = NULL;
	names_stop(i);
	nd->up = 0;
	nd->paused = 0;
	nd->oddlead = 0;
	nd->hgen++;
	nd->hnext = INT64_MAX;
	nd->fgen++;
	nd->starting = 0;
	nd->sgen++;
	nd->ghost = nd->until;
	nd->ghostinc = nd->inc;
	nd->until = 0;
	nd->tok = 0;
	for (t = 0; t < ALGO_TIMERS_MAX; t++)
		nd->tgen[t]++;
	while ((e = nd->backlog) != NULL) {
		nd->backlog = e->next;
		free_event(e);
	}
	fd_update_node(i, now);
}

/*
 * The guarded command of every host (elect-node --run-if-leader --wait,
 * as elect-chaos runs it), under algorithms with a Dead: the guard is
 * lib/guard's core, as elect-node's guard runs it.  It registers once the
 * host's daemon leads with a token (its answers come at once, over the
 * local socket), asks the daemon its leadership at every poll, stops the
 * command when the answer or the deadline says, and, when the daemon is
 * killed, stops it and releases the dead incarnation's lease with a Dead
 * (a host crash ends the guard too).  The command ends on SIGTERM within
 * the rtt (a few ms, well within the grace); SIGKILL ends it at once.
 */
#define GUARD_LOCAL_RTT	(ALGO_MS / 10)	/* a request over the socket */

static void	guard_feed(size_t, enum guard_in_type, algo_time);

/* Whether host I's core is of an epoch that ends at NOW, as elect-node's
 * reconf_ending() says: it holds a change out of its epoch, not wedged
 * yet. */
static int
ending(size_t i, algo_time now)
{
	struct hep_status st;

	if (!epochs_used || nodes[i].hep == NULL)
		return 0;
	ep_status(i, now, &st);
	return hep_ending(nodes[i].hep, &st);
}

/* Whether host I's guard registered with the daemon that runs now. */
static int
guard_daemon(size_t i)
{
	const struct node *nd = &nodes[i];

	return nd->up && nd->core != NULL && nd->inc == nd->ginc;
}

/*
 * Input IN of host I's daemon's lib/host/lead at NOW, with its core's
 * status then, as elect-node's task.c feeds it; its one registration is
 * the guard's (slot 0).  The answer to the guard's request goes into *R
 * (when R): 1 if one came.  A stop goes to the guard at once.
 */
static int
lead_feed(size_t i, struct lead_input *in, algo_time now,
    struct guard_reply *r)
{
	struct node *nd = &nodes[i];
	struct lead_out o;
	size_t k;
	int got = 0;

	in->now = clock_at(nd, now);
	/* A core not yet started leads nothing (the daemon's answers
	 * then). */
	if (nd->core != NULL)
		algo_query(nd->core, in->now, &in->st);
	else
		memset(&in->st, 0, sizeof(in->st));
	in->ending = ending(i, now);
	lead_step(&nd->lead, in, &o);
	for (k = 0; k < o.n; k++)
		switch (o.v[k].type) {
		case LEAD_REPLY:
		case LEAD_ANSWER:
			if (r != NULL)
				*r = o.v[k].r.g;
			got = r != NULL;
			break;
		case LEAD_STOP:
			if (nd->guard != NULL && !nd->guard->termed)
				guard_feed(i, GUARD_IN_STOP, now);
			break;
		case LEAD_REFUSE:
		case LEAD_STOPPING:
		case LEAD_KILLED:
		case LEAD_LEAVE:
			break;
		}
	return got;
}

/* Host I's daemon starts: its lib/host/lead anew, with its timing. */
static void
lead_boot(size_t i, const struct algo_timing *t)
{
	struct node *nd = &nodes[i];
	const struct lead_conf c = {
		.self = nd->id,
		.deadline = (algo_flags(nd->ops) & ALGO_F_DEADLINE) != 0,
		.timing = *t, .slots = 1,
	};

	lead_init(&nd->lead, &c);
}

/* Host I's guard tells its daemon (slot 0) input TYPE, if that daemon
 * runs still. */
static void
guard_tells(size_t i, enum lead_in_type type, enum lead_why why,
    algo_time now)
{
	struct lead_input in = { .type = type, .slot = 0, .why = why };

	if (guard_daemon(i))
		lead_feed(i, &in, now, NULL);
}

/* The daemon's answer to the guard's request in flight (`task wait' or
 * `lease'), or one it gave a waiting registration: 0 while it waits. */
static int
guard_answer(size_t i, algo_time now, struct guard_reply *r)
{
	struct node *nd = &nodes[i];
	struct lead_input in = { .slot = 0, .wait = 1 };

	if (nd->ganswered) {
		nd->ganswered = 0;
		*r = nd->greply;
		return 1;
	}
	in.type = nd->greg ? LEAD_IN_TASK : LEAD_IN_LEASE;
	nd->greg = 0;
	return lead_feed(i, &in, now, r);
}

/* A guard's own event at AT: a tick (WHAT 0), G's exit (1), or the
 * daemon's answer to the request in flight (2). */
static void
guard_at(size_t i, algo_time at, unsigned what)
{
	struct event *e;

	e = new_event(EV_GUARD, at);
	e->node = i;
	e->timer = what;
	e->gen = what == 0 ? ++nodes[i].ggen : what == 1 ? nodes[i].gid :
	    ++nodes[i].grq;
	e->epoch = nodes[i].life;
	push(e);
}

/* Whether EV, a guard's event, is still due. */
static int
guard_due(const struct event *ev)
{
	const struct node *nd = &nodes[ev->node];

	return ev->epoch == nd->life && nd->guard != NULL && ev->gen ==
	    (ev->timer == 0 ? nd->ggen : ev->timer == 1 ? nd->gid : nd->grq);
}

/* The dead incarnation's Dead to every peer of its epoch, through the
 * links as they are, even if the host has booted a newer one since; the
 * command was killed first: the oracle no longer counts that
 * incarnation's leadership. */
static void
guard_release(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct algo_msg m;
	size_t j;

	if (nd->ghostinc == nd->ginc)
		nd->ghost = 0;
	memset(&m, 0, sizeof(m));
	m.type = (uint8_t)ops->dead;
	m.elid.node = nd->id;
	m.elid.inc = nd->ginc;
	for (j = 0; j < n; j++)
		if (j != i && (!epochs_used || epochs[nd->gep].in[j])) {
			m.peer = ids[j];
			wire(i, &m, nd->gep, now);
		}
}

static void
guard_end(size_t i, algo_time now)
{
	guard_tells(i, LEAD_IN_GONE, LEAD_WHY_NONE, now);
	nodes[i].greg = nodes[i].ganswered = 0;
	free(nodes[i].guard);
	nodes[i].guard = NULL;
	nodes[i].cmd = 0;
	nodes[i].ggen++;
}

/* Input T of host I's guard at NOW, and what it leads to, in order. */
static void
guard_feed(size_t i, enum guard_in_type t, algo_time now)
{
	struct node *nd = &nodes[i];
	enum guard_in_type queue[4 * GUARD_ACTS_MAX];
	struct guard_input in;
	struct guard_out o;
	size_t head = 0, tail = 0, k;

	queue[tail++] = t;
	while (head < tail && nd->guard != NULL) {
		memset(&in, 0, sizeof(in));
		in.type = queue[head++];
		in.now = clock_at(nd, now);
		/* An answer comes from a running daemon, of the incarnation
		 * the guard registered with; none else answers. */
		if (in.type == GUARD_IN_REPLY && (!nd->up || nd->core == NULL ||
		    nd->inc != nd->ginc))
			in.type = GUARD_IN_REFUSED;
		if (in.type == GUARD_IN_REPLY &&
		    !guard_answer(i, now, &in.reply))
			continue;
		if (guard_step(nd->guard, &in, &o) == -1)
			continue;
		for (k = 0; k < o.n && nd->guard != NULL; k++) {
			/* Room for what one input may queue. */
			assert(tail + 2 <= nitems(queue));
			switch (o.v[k].type) {
			case GUARD_REGISTER:
			case GUARD_ASK:
				/* Over the local socket: a round trip. */
				nd->greg = o.v[k].type == GUARD_REGISTER;
				guard_at(i, now + GUARD_LOCAL_RTT, 2);
				break;
			case GUARD_START:
				nd->cmd = 1;
				break;
			case GUARD_TERM:
				guard_at(i, now + C->timing.rtt, 1);
				break;
			case GUARD_KILL:
				if (o.v[k].why == GUARD_WHY_DEADLINE ||
				    o.v[k].why == GUARD_WHY_GRACE)
					guard_tells(i, LEAD_IN_KILLED,
					    o.v[k].why == GUARD_WHY_DEADLINE ?
					    LEAD_WHY_DEADLINE : LEAD_WHY_GRACE,
					    now);
				nd->cmd = 0;
				if (nd->guard->phase == GUARD_RUNNING)
					queue[tail++] = GUARD_IN_EXITED;
				queue[tail++] = GUARD_IN_REAPED;
				break;
			case GUARD_RELEASE:
				guard_release(i, now);
				break;
			case GUARD_EXIT:
				guard_end(i, now);
				break;
			case GUARD_CANCEL:
				nd->grq++;
				break;
			case GUARD_UNREGISTER:
				guard_tells(i, LEAD_IN_GONE, LEAD_WHY_NONE, now);
				break;
			}
		}
		if (nd->guard != NULL && o.wake >= 0)
			guard_at(i, real_at(nd, o.wake) > now ?
			    real_at(nd, o.wake) : now, 0);
	}
}

/* After every step of host I: a guard registers once its daemon leads
 * with a token, as a waiting --run-if-leader is answered then. */
static void
guard_note(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct guard_config cfg = { .grace = -1, .wait = 1, .ecode = 1 };
	struct lead_input in = { .type = LEAD_IN_TICK, .slot = -1 };
	struct guard_reply r;

	/* A registration waiting is answered once it may start. */
	if (nd->guard != NULL && guard_daemon(i) &&
	    nd->lead.slot[0].state == LEAD_WAITING) {
		if (lead_feed(i, &in, now, &nd->greply)) {
			nd->ganswered = 1;
			guard_feed(i, GUARD_IN_REPLY, now);
		}
		return;
	}
	/* None starts on a core whose epoch ends: lib/host/lead answers no
	 * registration then, so none is made. */
	if (nd->guard != NULL || ops->dead == 0 || nd->ops != ops ||
	    nd->core == NULL || ending(i, now))
		return;
	in.type = LEAD_IN_LEASE;
	if (!lead_feed(i, &in, now, &r) || !r.leader || r.token == 0)
		return;
	if ((nd->guard = malloc(sizeof(*nd->guard))) == NULL)
		err(1, NULL);
	guard_init(nd->guard, &cfg);
	nd->gid++;
	nd->ginc = nd->inc;
	nd->gep = nd->ep;
	guard_feed(i, GUARD_IN_REPLY, now);
}

static void
resume(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct event *e;

	nd->paused = 0;
	trace(now, i, "resume");
	fd_update_node(i, now);
	/* What queued up while the host was frozen, in order. */
	while ((e = nd->backlog) != NULL && !nd->paused && nd->up) {
		nd->backlog = e->next;
		e->at = now;
		handle(e);
	}
	epoch_after(i, now);
}

/* The pair's link as the trace names it: down both ways, flaky one way
 * or under loss, else up. */
static const char *
link_name(size_t a, size_t b)
{
	if (cut(a, b) && cut(b, a))
		return "down";
	return cut(a, b) || cut(b, a) || C->loss > 0 ? "flaky" : "up";
}

/* The links from A to B (and from B to A unless ONEWAY). */
static void
set_link(size_t a, size_t b, int down, int oneway, algo_time now)
{
	const char *was;

	if (a == b)
		return;
	was = link_name(a, b);
	if (cut(a, b) != down)
		ncut = down ? ncut + 1 : ncut - 1;
	cut(a, b) = down;
	if (!oneway) {
		if (cut(b, a) != down)
			ncut = down ? ncut + 1 : ncut - 1;
		cut(b, a) = down;
	}
	if (strcmp(was, link_name(a, b)) != 0)
		trace(now, SIZE_MAX, "net a=%u b=%u link=%s", ids[a < b ? a : b],
		    ids[a < b ? b : a], link_name(a, b));
}

/* ---- epochs (Nerio 10.6): lib/host/epoch on every host ---- */

static size_t
majority(uint32_t e)
{
	return epochs[e].n / 2 + 1;
}

/* Host I's core and guarded command, as the change's core sees them. */
static void
ep_status(size_t i, algo_time now, struct hep_status *st)
{
	struct node *nd = &nodes[i];
	struct algo_status as;

	memset(st, 0, sizeof(*st));
	st->tasks = nd->cmd;
	if (nd->core == NULL)
		return;
	algo_query(nd->core, clock_at(nd, now), &as);
	st->booted = 1;
	st->wedged = as.wedged;
	st->pending = as.pending;
}

/* Host I's part of a change anew, as elect-node starts it. */
static void
ep_init(size_t i)
{
	struct hep_conf hc = {
		.self = ids[i], .idle = NS, .retry = 2 * ALGO_MS,
		.period = C->timing.renew > 0 ? C->timing.renew : 20 * ALGO_MS,
		.stop_wait = 2 * C->timing.lease + NS,
		/* Two memberships of N lines at most, and the epoch lines. */
		.text_max = (2 * n + 4) * 48 + EPOCH_PART_MAX,
	};

	if (nodes[i].hep != NULL)
		hep_free(nodes[i].hep);
	else if ((nodes[i].hep = calloc(1, sizeof(*nodes[i].hep))) == NULL)
		err(1, NULL);
	if (hep_init(nodes[i].hep, &hc) == -1)
		err(1, NULL);
}

/* A message of a change from host FROM to TO over the simulated links:
 * through FROM's edge, as net_send_epoch() sends it (1: sent; 0: the
 * handshake with TO is not done), or on the papers' network as its
 * payload. */
static int
ep_send(size_t from, unsigned to, const struct epoch_msg *m, algo_time now)
{
	uint8_t p[WIRE_PAYLOAD_MAX];
	struct wire_msg w;
	struct event *e;
	size_t j = index_of((uint16_t)to), len;
	int ok, take = 0;

	if ((len = epoch_msg_put(m, p, sizeof(p))) == 0)
		errx(1, "node %u: an epoch message the wire refuses",
		    nodes[from].id);
	if (handshakes) {
		memset(&w, 0, sizeof(w));
		w.type = m->type;
		w.payload = p;
		w.len = len;
		ok = hnet_send_wire(&nodes[from].net, to, &w, hout_send);
		net_carry(from, hout_send, now, NULL, &take);
		return ok;
	}
	if (cut(from, j) || (C->loss > 0 && rnd() % 100 < C->loss))
		return 1;
	e = new_event(EV_EPOCH, now + uniform(C->dmin, C->dmax));
	if ((e->dgram = malloc(len)) == NULL)
		err(1, NULL);
	memcpy(e->dgram, p, len);
	e->dglen = len;
	e->timer = m->type;
	e->node = j;
	e->peer = from;
	push(e);
	return 1;
}

/* Host I's core of E is wedged and it is a member of E+1: that core
 * ends, and a fresh core of E+1 boots. */
static void
ep_swap(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];

	trace(now, i, "exit why=epoch");
	nd->until = 0;		/* wedged: it resigned */
	stop(i, now);
	nd->ep = nd->hep->chg.next.epoch;
	nd->persistlen = 0;	/* a new core, a new state */
	nd->fresh = 1;
	boot(i, now);
	/* Its edge anew, but its core of e+1 starts at once, as the
	 * daemon's swap() starts it: a pending core waits for the end of
	 * e, not for handshakes. */
	if (nd->starting)
		core_start(i, now);
}

/* The addresses of a change's hosts, as resolve_change() finds them in
 * the daemon: each at 127.0.0.1, its own port. */
static void
resolve(struct epoch_change *c)
{
	struct cluster *cl[2] = { &c->next, &c->prev };
	size_t k, j;

	for (k = 0; k < 2; k++)
		for (j = 0; j < cl[k]->n; j++) {
			cl[k]->nodes[j].addr =
			    addr[index_of((uint16_t)cl[k]->nodes[j].id)];
			cl[k]->nodes[j].addrlen = sizeof(struct sockaddr_in);
		}
}

/* The actions of host I's change core, carried out as elect-node's
 * reconf.c carries them out; its log lines and tables are not the
 * simulator's. */
static void
ep_carry(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct hep *h = nd->hep;
	const struct hep_action *a;
	struct hep_status st;
	struct epoch_msg m;
	size_t k, part;

again:
	for (k = 0; k < hout->n; k++) {
		a = &hout->v[k];
		switch (a->type) {
		case HEP_SAVE:	/* the simulated disk never fails */
			nd->saved = h->chg.next.epoch;
			break;
		case HEP_LOG:
			break;
		case HEP_PEERS:
			edge_retable(i, now);
			break;
		case HEP_DROP:
			if (handshakes) {
				int take = 0;

				hnet_drop(&nd->net, a->peer, a->why,
				    clock_at(nd, now), hout_send);
				net_carry(i, hout_send, now, NULL, &take);
			}
			break;
		case HEP_SEND:
			/* A WEDGE to a peer not yet confirmed is asked again
			 * at once once it is, as reconf.c asks. */
			if (!ep_send(i, a->peer, &a->msg, now) &&
			    a->msg.type == WIRE_TYPE_WEDGE) {
				ep_status(i, now, &st);
				hep_retry(h, &st, clock_at(nd, now));
			}
			break;
		case HEP_SEND_CHANGE:
			for (part = 0; hep_change_part(h, part, &m) &&
			    ep_send(i, a->peer, &m, now); part++)
				;
			break;
		case HEP_STOP_TASKS:
			if (nd->cmd && !nd->guard->termed)
				guard_feed(i, GUARD_IN_STOP, now);
			break;
		case HEP_WEDGE:
			command(i, ALGO_CMD_WEDGE, now);
			/* Named leaderships grant nothing more in this epoch
			 * either (elect-node's named_wedge()). */
			if (nd->hnl != NULL) {
				struct hnl_input nin = { .type = HNL_IN_WEDGE };

				names_step(i, &nin, now);
			}
			break;
		case HEP_SWAP:
			ep_swap(i, now);
			break;
		case HEP_TERMINATED:
			command(i, ALGO_CMD_TERMINATED, now);
			break;
		case HEP_RESOLVE:	/* the simulated hosts' addresses */
			if (handshakes)
				resolve(hep_incoming(h));
			ep_status(i, now, &st);
			hep_resolved(h, a->peer, 1, &st, clock_at(nd, now),
			    hout);
			goto again;
		}
	}
}

/* Host I's change core ticks at AT: the last tick asked for counts. */
static void
epoch_tick_at(size_t i, algo_time at)
{
	struct event *e = new_event(EV_EPTICK, at);

	e->node = i;
	e->gen = ++nodes[i].egen;
	push(e);
}

/* Its tick, again at once after a wedge or a swap, as reconf_tick(). */
static void
ep_tick(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct hep_status st;
	algo_time c = clock_at(nd, now);
	int t;

	for (t = 0; t < 3; t++) {
		ep_status(i, now, &st);
		hep_tick(nd->hep, &st, c, hout);
		ep_carry(i, now);
		if (hout->wake == -1 || hout->wake > c)
			break;
	}
	if (nd->up && hout->wake != -1)
		epoch_tick_at(i, hout->wake > c ? real_at(nd, hout->wake) :
		    now);
}

/* After every step, boot and resume of host I: the oracle notes a core
 * wedged, the change's core hears that its core stepped, and ticks. */
static void
epoch_after(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct hep_status st;

	if (!epochs_used || !nd->up || nd->paused || nd->core == NULL)
		return;
	ep_status(i, now, &st);
	/* Its named leaderships ask and lead once its core learned that
	 * the epoch before ended (elect-node's named_learn()). */
	if (nd->hnl != NULL && nd->hnl->pending && !st.pending) {
		struct hnl_input nin = { .type = HNL_IN_LEARN };

		names_step(i, &nin, now);
	}
	if (st.wedged && !epochs[nd->ep].wedged[i]) {
		epochs[nd->ep].wedged[i] = 1;
		epochs[nd->ep].nwedged++;
	}
	if (hep_stepped(nd->hep, &st))
		edge_retable(i, now);
	/* A member of E waits on its core (a wedge, then a swap); a member
	 * of E+1 only on messages and time, whose ticks are due anyway. */
	if (nd->hep->held && nd->hep->role == HEP_OLD)
		epoch_tick_at(i, now);
}

/* A message of a change, of type TYPE and payload P of LEN bytes, from
 * host FROM at host I. */
static void
epoch_recv(size_t i, size_t from, uint8_t type, const uint8_t *p,
    size_t len, algo_time at)
{
	struct node *nd = &nodes[i];
	struct hep_status st;
	struct epoch_msg m;
	const char *why;

	if ((why = epoch_msg_parse(type, p, len, &m)) != NULL)
		errx(1, "node %u: epoch message: %s", nd->id, why);
	ep_status(i, at, &st);
	hep_recv(nd->hep, &epochs[nd->ep].cl, ids[from], &m, &st,
	    clock_at(nd, at), hout);
	ep_carry(i, at);
	if (nd->up && nd->hep->held)
		epoch_tick_at(i, at);
}

/* One on the papers' network, as its event. */
static void
on_epoch(struct event *ev)
{
	epoch_recv(ev->node, ev->peer, (uint8_t)ev->timer, ev->dgram,
	    ev->dglen, ev->at);
}

/*
 * Host I starts, as elect-node does from its state directory: the core
 * of its record's epoch, and the change it wrote, resumed; or, a member
 * of the newest epoch whose record is older than the one before, given
 * the newest cluster file by the operator: a fresh core of it (EPOCH_JOIN).
 */
static void
ep_start(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct epoch_change c;
	struct hep_status st;

	if (epochs[cur].in[i] && (nd->ep + 1 < cur ||
	    !epochs[nd->ep].in[i])) {
		nd->ep = cur;
		nd->persistlen = 0;
		nd->fresh = 1;
		nd->saved = 0;
	}
	ep_init(i);
	if (nd->saved > 0) {
		memset(&c, 0, sizeof(c));
		if (cluster_copy(&c.next, &epochs[nd->saved].chg.next) == -1 ||
		    cluster_copy(&c.prev, &epochs[nd->saved].chg.prev) == -1)
			err(1, NULL);
		memcpy(c.dnext, epochs[nd->saved].chg.dnext, EPOCH_DIGEST);
		memcpy(c.dprev, epochs[nd->saved].chg.dprev, EPOCH_DIGEST);
		memcpy(c.dtext, epochs[nd->saved].chg.dtext, EPOCH_DIGEST);
		memset(&st, 0, sizeof(st));
		if (hep_hold(nd->hep, &epochs[nd->ep].cl, &c, &st,
		    clock_at(nd, now), hout) == 0)
			ep_carry(i, now);
	}
	boot(i, now);
}

static void
epoch_free(uint32_t e)
{
	free(epochs[e].in);
	free(epochs[e].wedged);
	free(epochs[e].ids);
	cluster_free(&epochs[e].cl);
	epoch_change_free(&epochs[e].chg);
	memset(&epochs[e], 0, sizeof(epochs[e]));
}

/* A byte per node index: epoch E's members, as a cluster file of hosts
 * at 127.0.0.1 (a port each), and the change to it from E - 1: 0, or -1
 * with why in ERR when that change breaks elect-node's rules. */
static int
epoch_new(uint32_t e, const uint8_t *in, char *why, size_t whylen)
{
	struct epoch *ep = &epochs[e];
	struct cluster_node *p;
	char name[32];
	size_t i;

	if ((ep->in = malloc(n)) == NULL ||
	    (ep->wedged = calloc(n, 1)) == NULL ||
	    (ep->ids = calloc(n, sizeof(*ep->ids))) == NULL ||
	    (ep->cl.nodes = calloc(n, sizeof(*ep->cl.nodes))) == NULL)
		err(1, NULL);
	snprintf(name, sizeof(name), "epoch-%" PRIu32 ".conf", e);
	if ((ep->cl.file = strdup(name)) == NULL)
		err(1, NULL);
	ep->cl.epoch = e;
	memcpy(ep->in, in, n);
	for (i = 0; i < n; i++) {
		if (!in[i])
			continue;
		ep->ids[ep->n++] = ids[i];
		p = &ep->cl.nodes[ep->cl.n++];
		p->id = ids[i];
		strlcpy(p->host, "127.0.0.1", sizeof(p->host));
		p->port = (uint16_t)(1024 + i);
		p->fd_port = (uint16_t)(20000 + i);
		if (handshakes) {
			p->addr = addr[i];
			p->addrlen = sizeof(struct sockaddr_in);
		}
	}
	qsort(ep->cl.nodes, ep->cl.n, sizeof(*ep->cl.nodes), by_id);
	if (e == 0)
		return 0;
	if (cluster_copy(&ep->chg.next, &ep->cl) == -1 ||
	    cluster_copy(&ep->chg.prev, &epochs[e - 1].cl) == -1)
		err(1, NULL);
	return epoch_change_valid(&ep->chg, why, whylen);
}

/* The operator asks a member of the newest epoch, the first that takes
 * it, for the change to the next; it starts the hosts that join. */
static void
reconfigure(const struct sched *s, algo_time now)
{
	struct epoch_change ch;
	struct hep_status st;
	char why[256];
	size_t i;
	int rc = -1;

	if (cur + 1 == nepochs)
		return;
	if (epoch_new(cur + 1, s->side, why, sizeof(why)) == -1) {
		if (C->stats == 1)
			fprintf(stderr, "reconfigure skipped: %s\n", why);
		epoch_free(cur + 1);
		return;
	}
	for (i = 0; i < n && rc != HEP_REQ_TAKE; i++) {
		if (!epochs[cur].in[i] || !nodes[i].up || nodes[i].paused ||
		    nodes[i].core == NULL || nodes[i].ep != cur)
			continue;
		memset(&ch, 0, sizeof(ch));
		if (cluster_copy(&ch.next, &epochs[cur + 1].cl) == -1)
			err(1, NULL);
		ep_status(i, now, &st);
		if ((rc = hep_request(nodes[i].hep, &epochs[cur].cl, &st, 0,
		    "", 0, &ch, why, sizeof(why))) != HEP_REQ_TAKE)
			epoch_change_free(&ch);
	}
	if (rc != HEP_REQ_TAKE) {
		if (C->stats == 1)
			fprintf(stderr, "reconfigure skipped: epoch %" PRIu32
			    " has not started\n", cur);
		epoch_free(cur + 1);
		return;
	}
	cur++;
	i--;
	ep_status(i, now, &st);
	if (hep_hold(nodes[i].hep, &epochs[nodes[i].ep].cl, &ch, &st,
	    clock_at(&nodes[i], now), hout) == -1)
		errx(1, "node %u: the change it took is not its", nodes[i].id);
	ep_carry(i, now);
	epoch_tick_at(i, now);
	/* The hosts that join, started with the new cluster file (one
	 * still up in an older epoch, restarted with it). */
	for (i = 0; i < n; i++) {
		if (!epochs[cur].in[i] || nodes[i].stale)
			continue;
		if (nodes[i].up && !nodes[i].paused &&
		    nodes[i].ep + 1 < cur) {
			trace(now, i, "exit why=epoch");
			stop(i, now);
			ep_start(i, now);
		} else if (!nodes[i].up && !nodes[i].crashed)
			ep_start(i, now);
	}
}

/* Host I restarted with the cluster file of an epoch before its record's:
 * elect-node refuses to start (hep_start()), and it stays down. */
static void
stale(size_t i, algo_time now)
{
	struct node *nd = &nodes[i];
	struct epoch_change c;
	enum epoch_plan plan;
	char why[512];
	int resume;

	if (!epochs_used || !nd->up || nd->paused || nd->ep == 0)
		return;
	trace(now, i, "crash");
	nd->life++;
	guard_end(i, now);
	stop(i, now);
	nd->crashed = 1;
	if (hep_start(&epochs[nd->ep - 1].cl, &epochs[nd->ep].cl, NULL,
	    "epoch.change", nd->id, &plan, &c, &resume, why,
	    sizeof(why)) != -1)
		errx(1, "node %u: an older cluster file taken", nd->id);
	nd->stale = 1;
}

static void
run_sched(const struct sched *s, algo_time now)
{
	struct algo_input in;
	size_t a, b;

	/* -S counts from here. */
	fault_at = now;
	fault_what = sched_op_name(s->op);
	memset(sent, 0, sizeof(sent));
	agreed = 0;
	if (res != NULL)
		res->agreed = 0;
	switch (s->op) {
	case S_CRASH:
	case S_KILL:
		if (!nodes[s->a].up)
			return;
		trace(now, s->a, "crash");
		/* A frozen host's guard is frozen too: a crash. */
		if (s->op == S_KILL && !nodes[s->a].paused) {
			stop(s->a, now);
			if (nodes[s->a].guard != NULL)
				guard_feed(s->a, GUARD_IN_DEAD, now);
		} else {
			nodes[s->a].life++;
			guard_end(s->a, now);
			stop(s->a, now);
		}
		nodes[s->a].crashed = 1;
		break;
	case S_LEAVE:
		if (!nodes[s->a].up || nodes[s->a].paused)
			return;
		memset(&in, 0, sizeof(in));
		in.type = ALGO_IN_CMD;
		in.cmd.code = ALGO_CMD_LEAVE;
		step(s->a, &in, now);
		trace(now, s->a, "exit why=leave");
		/* Its commands were told to stop and are gone first. */
		guard_end(s->a, now);
		stop(s->a, now);
		nodes[s->a].crashed = 1;
		break;
	case S_RELEASE:
	case S_EDICT:
		if (!nodes[s->a].up || nodes[s->a].paused)
			return;
		memset(&in, 0, sizeof(in));
		in.type = ALGO_IN_CMD;
		in.cmd.code = s->op == S_EDICT ? ALGO_CMD_EDICT :
		    ALGO_CMD_RELEASE;
		in.cmd.len = strlen(s->text);
		memcpy(in.cmd.data, s->text, in.cmd.len);
		step(s->a, &in, now);
		break;
	case S_BOOT:
		if (nodes[s->a].up || nodes[s->a].stale)
			return;
		if (!epochs_used)
			boot(s->a, now);
		else if (epochs[nodes[s->a].ep].in[s->a] ||
		    epochs[cur].in[s->a])
			ep_start(s->a, now);
		break;
	case S_PAUSE:
		if (!nodes[s->a].up || nodes[s->a].paused)
			return;
		nodes[s->a].paused = 1;
		trace(now, s->a, "pause");
		fd_update_node(s->a, now);
		break;
	case S_RESUME:
		if (!nodes[s->a].up || !nodes[s->a].paused)
			return;
		resume(s->a, now);
		break;
	case S_CUT:
	case S_MEND:
		set_link(s->a, s->b, s->op == S_CUT, 0, now);
		a = s->a < s->b ? s->a : s->b;
		b = s->a < s->b ? s->b : s->a;
		fd_note(a, b, now);
		fd_note(b, a, now);
		break;
	case S_PARTITION:
	case S_ONEWAY:
		for (a = 0; a < n; a++)
			for (b = 0; b < n; b++)
				if (s->side[a] == SIDE_L &&
				    s->side[b] == SIDE_R)
					set_link(a, b, 1, s->op == S_ONEWAY,
					    now);
		fd_update(now);
		break;
	case S_HEAL:
		for (a = 0; a < n && ncut > 0; a++)
			for (b = a + 1; b < n; b++)
				set_link(a, b, 0, 0, now);
		fd_update(now);
		break;
	case S_RECONFIGURE:
		reconfigure(s, now);
		break;
	case S_MISCONF:
		if (s->b == SCHED_STALE) {
			stale(s->a, now);
			return;
		}
		/* The host restarted under the configuration named; a host
		 * of a changing cluster is not (its files are the change's). */
		if (!handshakes || epochs_used || !nodes[s->a].up ||
		    nodes[s->a].paused || nodes[s->a].odd == (int)s->b)
			return;
		trace(now, s->a, "crash");
		nodes[s->a].life++;
		guard_end(s->a, now);
		stop(s->a, now);
		nodes[s->a].odd = (int)s->b;
		node_conf(s->a);
		boot(s->a, now);
		fd_update_node(s->a, now);
		break;
	case S_NOPS:
		break;
	}
}

/* ---- the main loop ---- */

static void
defer(struct node *nd, struct event *e)
{
	e->next = NULL;
	if (nd->backlog == NULL)
		nd->backtail = &nd->backlog;
	*nd->backtail = e;
	nd->backtail = &e->next;
}

static void
handle(struct event *e)
{
	struct node *nd = &nodes[e->node];
	struct monitor *m;
	struct algo_input in;
	algo_time at;

	if (e->type == EV_SCHED || (e->type == EV_GUARD && !nd->paused)) {
		if (e->type == EV_SCHED)
			run_sched(e->s, e->at);
		else if (guard_due(e)) {
			guard_feed(e->node, e->timer == 0 ? GUARD_IN_TICK :
			    e->timer == 1 ? GUARD_IN_EXITED : GUARD_IN_REPLY,
			    e->at);
			/* A change may wait for its command. */
			if (epochs_used && nd->up && nd->hep->held)
				epoch_tick_at(e->node, e->at);
		}
		free_event(e);
		return;
	}
	if (!nd->up) {			/* lost with the node */
		free_event(e);
		return;
	}
	if (nd->paused) {
		defer(nd, e);
		return;
	}
	memset(&in, 0, sizeof(in));
	switch (e->type) {
	case EV_DELIVER:
		if (cut(e->peer, e->node))
			break;
		/* Without elect-node's edge the wire is modelled: a core
		 * hears only the cores of its own epoch, and a copy is a
		 * replay.  With it, the receiver's acceptance judges. */
		if (e->ep != nd->ep && !handshakes) {
			trace(e->at, e->node, "drop from=%u why=epoch",
			    ids[e->peer]);
			break;
		}
		if (e->dup && !handshakes) {
			trace(e->at, e->node, "drop from=%u why=replay",
			    ids[e->peer]);
			break;
		}
		in.type = ALGO_IN_RECV;
		if (handshakes) {
			if (!edge_accept(e, &in.msg))
				break;
		} else
			memcpy(&in.msg, e->msg, MSG_SIZE(e->msg));
		trace_msg(e->at, e->node, "recv from", &in.msg);
		step(e->node, &in, e->at);
		break;
	case EV_TIMER:
		if (e->gen != nd->tgen[e->timer])
			break;
		in.type = ALGO_IN_TIMER;
		in.timer = e->timer;
		step(e->node, &in, e->at);
		break;
	case EV_FDCHECK:
		m = &nd->mon[e->peer];
		if (!m->active || m->reported || m->gen != e->gen ||
		    m->epoch != e->epoch || !m->looks_down)
			break;
		m->reported = 1;
		trace(e->at, e->node, "fd op=down peer=%u", ids[e->peer]);
		in.type = ALGO_IN_DOWN;
		in.down = ids[e->peer];
		step(e->node, &in, e->at);
		names_members(e->node, e->at);
		break;
	case EV_EPOCH:
		if (!cut(e->peer, e->node))
			on_epoch(e);
		break;
	case EV_EPTICK:
		if (e->gen == nd->egen)
			ep_tick(e->node, e->at);
		break;
	case EV_HELLO:
		if (e->gen == nd->hgen)
			hello_tick(e->node, e->at);
		break;
	case EV_FIT:
		if (e->gen == nd->fgen)
			fit_tick(e->node, e->at);
		break;
	case EV_START:
		if (e->gen == nd->sgen && nd->starting &&
		    hnet_may_start(&nd->net, clock_at(nd, e->at), &at))
			core_start(e->node, e->at);
		break;
	case EV_NAMES:
		if (e->gen == nd->ngen) {
			struct hnl_input nin;

			memset(&nin, 0, sizeof(nin));
			nin.type = HNL_IN_TICK;
			names_step(e->node, &nin, e->at);
		}
		break;
	case EV_SCHED:
	case EV_GUARD:
		break;
	}
	free_event(e);
}

/* Every up node Norm, following a leader that is up, reachable, Norm and
 * leads itself in the same group; one leader unless links are cut. */
static int
all_agree(algo_time now)
{
	struct algo_status st, ls;
	uint16_t ldr = 0;
	size_t i, l;
	int split = ncut > 0;

	for (i = 0; i < n; i++) {
		if (!nodes[i].up || (epochs_used && !epochs[cur].in[i]))
			continue;
		if (nodes[i].paused || nodes[i].ep != cur ||
		    nodes[i].core == NULL)
			return 0;
		algo_query(nodes[i].core, clock_at(&nodes[i], now), &st);
		if (st.state.status != ST_NORM || st.state.ldr == 0)
			return 0;
		l = index_of(st.state.ldr);
		if (!nodes[l].up || nodes[l].paused || cut(i, l) ||
		    nodes[l].core == NULL)
			return 0;
		algo_query(nodes[l].core, clock_at(&nodes[l], now), &ls);
		if (ls.state.status != ST_NORM || ls.state.ldr != ids[l] ||
		    !algo_elid_eq(&ls.state.grp, &st.state.grp))
			return 0;
		if (!split && ldr != 0 && ldr != st.state.ldr)
			return 0;
		ldr = st.state.ldr;
	}
	return ldr != 0;
}

static void
print_counts(const unsigned long *c)
{
	unsigned long total = 0;
	unsigned t;

	for (t = 1; t < ops->nmsg; t++)
		total += c[t];
	fprintf(stderr, " msgs=%lu", total);
	for (t = 1; t < ops->nmsg; t++)
		if (c[t] > 0)
			fprintf(stderr, " %s=%lu", algo_msg_name(ops, t), c[t]);
	fprintf(stderr, "\n");
}

static void
note_agreement(algo_time now)
{
	char t0[64], t1[64];
	struct algo_status st;
	size_t i;

	unsigned long total = 0;
	unsigned t;

	if (agreed || !all_agree(now))
		return;
	agreed = 1;
	for (i = 0; i < n && (!nodes[i].up || (epochs_used &&
	    !epochs[cur].in[i])); i++)
		;
	algo_query(nodes[i].core, clock_at(&nodes[i], now), &st);
	for (t = 1; t < ops->nmsg; t++)
		total += sent[t];
	if (res != NULL) {
		res->agreed = 1;
		res->agreed_ldr = st.state.ldr;
		res->agreed_msgs = total;
		res->agreed_after = now - (fault_at < 0 ? 0 : fault_at);
	}
	if (C->stats != 1)
		return;
	trace_format_time(fault_at < 0 ? 0 : fault_at, t0, sizeof(t0));
	trace_format_time(now, t1, sizeof(t1));
	fprintf(stderr, "agreed ldr=%u at %s after %s at %s (+%.3f ms)",
	    st.state.ldr, t1, fault_what, t0,
	    (double)(now - (fault_at < 0 ? 0 : fault_at)) / ALGO_MS);
	print_counts(sent);
}

/* ---- -O: the oracle ---- */

static void __attribute__((format(printf, 2, 3)))
violation(algo_time now, const char *fmt, ...)
{
	char t[64];
	va_list ap;

	trace_format_time(now, t, sizeof(t));
	if (violations++ == 0 && res != NULL) {
		va_start(ap, fmt);
		vsnprintf(res->first, sizeof(res->first), fmt, ap);
		va_end(ap);
	}
	if (res != NULL)
		res->violations = violations;
	if (res == NULL || !res->quiet) {
		fprintf(stderr, "%s: at %s: ", getprogname(), t);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
}

static struct made *
find_made(uint16_t from, uint64_t tok, uint64_t seq)
{
	size_t k;

	for (k = 0; k < nmade; k++)
		if (made[k].from == from && made[k].tok == tok &&
		    made[k].seq == seq)
			return &made[k];
	return NULL;
}

/* An edict node I delivered or refused, as the step gave it out. */
static void
note_edict(size_t i, const struct algo_edict *e, algo_time now)
{
	struct node *nd = &nodes[i];
	struct made *m;

	if (e->from == nd->id && e->delivered) {
		if (nmade == capmade) {
			capmade = capmade ? capmade * 2 : 64;
			if ((made = reallocarray(made, capmade,
			    sizeof(*made))) == NULL)
				err(1, NULL);
		}
		made[nmade].from = e->from;
		made[nmade].tok = e->token;
		made[nmade].seq = e->seq;
		made[nmade++].at = now;
	}
	if (!e->delivered)
		return;
	if ((m = find_made(e->from, e->token, e->seq)) == NULL) {
		violation(now, "node %u delivered an edict nobody made", nd->id);
		return;
	}
	if (m->at < nd->lastmade)
		violation(now, "node %u delivered edict %u/%llu out of order",
		    nd->id, e->from, (unsigned long long)e->seq);
	nd->lastmade = m->at;
}

/*
 * After every event: leaderships start only at events, so two that
 * overlap overlap at the start of the later one.  A crashed node's last
 * leadership runs on with its clock (Nerio's crashed processes keep their
 * variables; elect-node --run-if-leader keeps its deadline), a killed
 * one's until its guard sends the Dead, having killed the command.
 */
static void
check_leaders(algo_time now)
{
	struct node *nd;
	size_t i, lead[2], nlead = 0;

	for (i = 0; i < n; i++) {
		nd = &nodes[i];
		if (clock_at(nd, now) < nd->until ||
		    clock_at(nd, now) < nd->ghost || nd->oddlead) {
			if (nlead < 2)
				lead[nlead] = i;
			nlead++;
		}
	}
	if (nlead > 1)
		violation(now, "%zu leaders, among them %u and %u", nlead,
		    nodes[lead[0]].id, nodes[lead[1]].id);
	/* The promise of --run-if-leader: one guarded command at a time (a
	 * frozen host's runs no instruction). */
	for (i = 0, nlead = 0; i < n; i++)
		if (nodes[i].cmd && !nodes[i].paused) {
			if (nlead < 2)
				lead[nlead] = i;
			nlead++;
		}
	if (nlead > 1)
		violation(now, "%zu guarded commands run, among them %u's and "
		    "%u's", nlead, nodes[lead[0]].id, nodes[lead[1]].id);
}

/* After each step of node I: its invariants, its leadership and its
 * token (a core's status changes only when it steps). */
static void
oracle_note(size_t i, algo_time now)
{
	struct algo_status st;
	struct node *nd = &nodes[i];
	const char *why;

	if ((why = algo_check(nd->core)) != NULL)
		violation(now, "node %u: invariant broken: %s", nd->id, why);
	/* What the node acts on (lib/host/lead, as elect-node's
	 * node_query()): under a veto nothing, while its core may go on,
	 * token and all, once the edge lets it again; a core of another
	 * algorithm leads with no deadline, for as long as it says so. */
	algo_query(nd->core, clock_at(nd, now), &st);
	lead_status(&nd->lead, &st);
	if (nd->lead.vetoed) {
		nd->oddlead = 0;
		nd->until = 0;
		return;
	}
	nd->oddlead = !(algo_flags(nd->ops) & ALGO_F_DEADLINE) && st.leader;
	nd->until = st.until;
	if (st.token != 0 && st.token != nd->tok) {
		if (st.token <= maxtok)
			violation(now, "node %u leads with token %llu, not "
			    "above %llu", nd->id, (unsigned long long)st.token,
			    (unsigned long long)maxtok);
		maxtok = st.token > maxtok ? st.token : maxtok;
	}
	nd->tok = st.token;
	if (st.until != 0 && nd->ep > 0 &&
	    epochs[nd->ep - 1].nwedged < majority(nd->ep - 1))
		violation(now, "node %u leads in epoch %" PRIu32 " before a "
		    "majority of epoch %" PRIu32 " is wedged", nd->id, nd->ep,
		    nd->ep - 1);
}

/* ---- the random schedule ---- */

static uint64_t
srnd(void)
{
	return algo_splitmix(&srng);
}

static void
add_sched(const struct sched *s)
{
	if (nscheds == SIM_EVENTS_MAX)
		errx(EXIT_USAGE, "more than %d events", SIM_EVENTS_MAX);
	scheds[nscheds++] = *s;
}

/* Random sides of a partition, L and R neither empty, and with THREE a
 * node or more on B, reaching both. */
static uint8_t *
random_side(int three)
{
	uint8_t *side;
	size_t i, cnt[3];

	if ((side = calloc(n, 1)) == NULL)
		err(1, NULL);
	do {
		cnt[0] = cnt[1] = cnt[2] = 0;
		for (i = 0; i < n; i++) {
			side[i] = (uint8_t)(srnd() % (three ? 3 : 2));
			cnt[side[i]]++;
		}
	} while (cnt[SIDE_L] == 0 || cnt[SIDE_R] == 0 ||
	    (three && cnt[SIDE_B] == 0));
	return side;
}

/* The node a random fault hits: half the time the highest one up (most
 * likely the leader), else any; SIZE_MAX when none may be hit. */
static size_t
victim(const uint8_t *up, size_t keep)
{
	size_t i, nc = 0, last = SIZE_MAX, k;

	for (i = 0; i < n; i++)
		if (up[i]) {
			nc++;
			last = i;
		}
	if (nc <= keep)
		return SIZE_MAX;
	if (srnd() % 2)
		return last;
	k = srnd() % nc;
	for (i = 0; i < n; i++)
		if (up[i] && k-- == 0)
			break;
	return i;
}

/*
 * COUNT faults of the kinds KINDS, one per slot of the time between the
 * first second and the last three, each repaired within its slot (a crash
 * or a kill only with recovery; without, a majority stays up), so that
 * the run ends with a stable period the liveness assertions can judge.
 */
static void
random_schedule(unsigned count, unsigned kinds, algo_time dur)
{
	algo_time start = 1000 * ALGO_MS, slot, t0, t1;
	unsigned kind[F_NKINDS], nk = 0, k, c;
	struct sched s;
	uint8_t *up;
	size_t v, i, j;

	for (k = 0; k < F_NKINDS; k++)
		if (kinds & F_SCHEDULED & 1u << k)
			kind[nk++] = 1u << k;
	if (count == 0 || nk == 0)
		return;
	if (dur < start + 3000 * ALGO_MS)
		errx(EXIT_USAGE, "-r needs a duration of at least 4 seconds");
	if ((up = malloc(n)) == NULL)
		err(1, NULL);
	memset(up, 1, n);
	slot = (dur - start - 3000 * ALGO_MS) / count;
	for (c = 0; c < count; c++) {
		t0 = start + c * slot + suniform(0, slot / 4);
		t1 = t0 + suniform(slot / 8, slot / 2);
		memset(&s, 0, sizeof(s));
		switch ((k = kind[srnd() % nk])) {
		case F_CRASH:
		case F_KILL:
			if ((v = victim(up, (kinds & F_RECOVERY) ? 0 :
			    n / 2 + 1)) == SIZE_MAX)
				continue;
			s.a = v;
			s.op = k == F_KILL ? S_KILL : S_CRASH;
			s.at = t0, add_sched(&s);
			if (kinds & F_RECOVERY)
				s.at = t1, s.op = S_BOOT, add_sched(&s);
			else
				up[v] = 0;
			break;
		case F_PAUSE:
			if ((v = victim(up, 0)) == SIZE_MAX)
				continue;
			s.a = v;
			s.at = t0, s.op = S_PAUSE, add_sched(&s);
			s.at = t1, s.op = S_RESUME, add_sched(&s);
			break;
		case F_MISCONF:
			if ((v = victim(up, 0)) == SIZE_MAX)
				continue;
			s.a = v;
			s.op = S_MISCONF;
			s.b = SESS_ALGO + srnd() % (SCHED_MISCONF_ADDR -
			    SESS_ALGO + 1);
			s.at = t0, add_sched(&s);
			s.b = SESS_OK;
			s.at = t1, add_sched(&s);
			break;
		case F_PARTITION:
		case F_BRIDGE:
		case F_ONEWAY:
			if (n < 2 || (k == F_BRIDGE && n < 3))
				continue;
			s.side = random_side(k == F_BRIDGE);
			s.op = k == F_ONEWAY ? S_ONEWAY : S_PARTITION;
			s.at = t0, add_sched(&s);
			s.side = NULL;
			s.at = t1, s.op = S_HEAL, add_sched(&s);
			break;
		case F_RECONFIGURE:	/* grow, shrink, replace: any hosts
					 * not crashed for good, but none */
			if ((s.side = calloc(n, 1)) == NULL)
				err(1, NULL);
			do
				for (i = j = 0; i < n; i++)
					j += s.side[i] = up[i] && srnd() % 2;
			while (j == 0);
			s.at = t0, s.op = S_RECONFIGURE, add_sched(&s);
			break;
		}
	}
	free(up);
}

/* ---- a run ---- */

static void
run_free(void)
{
	struct event *e;
	size_t i;

	for (i = 0; i < n; i++) {
		algo_free(nodes[i].core);
		while ((e = nodes[i].backlog) != NULL) {
			nodes[i].backlog = e->next;
			free_event(e);
		}
		free(nodes[i].mon);
		free(nodes[i].playdead);
		free(nodes[i].lastdel);
		if (nodes[i].hep != NULL)
			hep_free(nodes[i].hep);
		free(nodes[i].hep);
		hnet_free(&nodes[i].net);
		free(nodes[i].guard);
		cluster_free(&nodes[i].own);
		names_stop(i);
		free(nodes[i].ntok);
		free(nodes[i].nuntil);
	}
	hnl_out_free(&hnlout);
	free(nnames);
	free(nmaxtok);
	nnames = NULL;
	nmaxtok = NULL;
	free(hout_net);
	free(hout_send);
	free(oddids);
	free(simc.nodes);
	free(addr);
	hout_net = hout_send = NULL, oddids = NULL, simc.nodes = NULL, addr = NULL;
	simc.n = 0;
	for (i = 0; epochs_used && i <= cur; i++)
		epoch_free((uint32_t)i);
	free(epochs);
	free(hout);
	epochs = NULL;
	hout = NULL;
	free(nodes);
	free(cuts);
	free(idx);
	while (nheap > 0)
		free_event(pop());
	free(heap);
	free(made);
	algo_out_free(&out);
	nodes = NULL, cuts = NULL, idx = NULL, heap = NULL, made = NULL;
	nheap = capheap = nmade = capmade = 0;
}

void
sim_run(const struct sim_conf *c, sim_sink fn, void *arg,
    struct sim_result *r)
{
	struct sched *boots;
	struct event *e;
	algo_time now;
	size_t i, j;
	char t[32];

	C = c, ops = c->ops, sink = fn, sinkarg = arg, res = r;
	n = c->n, ids = c->ids;
	rng = c->seed;
	srng = c->seed ^ UINT64_C(0x5ced5ced5ced5ced);
	erng = c->seed ^ UINT64_C(0xed9eed9eed9eed9e);
	nrng = c->seed ^ UINT64_C(0x4a3e54a3e54a3e54);
	ncut = 0, nextseq = 0, violations = 0, maxtok = 0, agreed = 0;
	fault_at = -1, fault_what = "boot";
	memset(sent, 0, sizeof(sent));
	memset(sent_total, 0, sizeof(sent_total));
	if (r != NULL) {
		int quiet = r->quiet;

		memset(r, 0, sizeof(*r));
		r->quiet = quiet;
	}
	/* Per-pair state grows as N^2: 1024 nodes take some 45 MB. */
	if ((nodes = calloc(n, sizeof(*nodes))) == NULL ||
	    (cuts = calloc(n, n)) == NULL ||
	    (idx = calloc(UINT16_MAX + 1, sizeof(*idx))) == NULL ||
	    (scheds = calloc(SIM_EVENTS_MAX, sizeof(*scheds))) == NULL ||
	    (boots = calloc(n, sizeof(*boots))) == NULL)
		err(1, NULL);
	for (i = 0; i < n; i++) {
		if ((nodes[i].mon = calloc(n, sizeof(*nodes[i].mon))) == NULL ||
		    (nodes[i].playdead = calloc(n, 1)) == NULL ||
		    (nodes[i].lastdel = calloc(n,
		    sizeof(*nodes[i].lastdel))) == NULL)
			err(1, NULL);
		nodes[i].id = ids[i];
		if (c->names > 0 && ((nodes[i].ntok = calloc(c->names,
		    sizeof(*nodes[i].ntok))) == NULL || (nodes[i].nuntil =
		    calloc(c->names, sizeof(*nodes[i].nuntil))) == NULL))
			err(1, NULL);
		tc_init(&nodes[i].tc, ids[i], C->compact);
		idx[ids[i]] = (uint16_t)(i + 1);
	}
	if (c->names > 0) {
		if ((nnames = calloc(c->names, sizeof(*nnames))) == NULL ||
		    (nmaxtok = calloc(c->names, sizeof(*nmaxtok))) == NULL)
			err(1, NULL);
		for (i = 0; i < c->names; i++)
			snprintf(nnames[i], sizeof(nnames[i]), "job-%04zu", i);
	}
	/* Clocks first, and only when asked: other runs replay as before. */
	for (i = 0; i < n; i++) {
		if (c->rho > 0)
			nodes[i].ppb = (int64_t)uniform(0, 2 * c->rho) - c->rho;
		if (c->offmax > 0)
			nodes[i].off = uniform(0, c->offmax);
	}
	nscheds = 0;
	for (i = 0; i < c->nev; i++) {
		add_sched(&c->ev[i]);
		if (c->ev[i].side != NULL) {
			if ((scheds[i].side = malloc(n)) == NULL)
				err(1, NULL);
			memcpy(scheds[i].side, c->ev[i].side, n);
		}
	}
	random_schedule(c->count, c->faults, c->dur);
	/* Elect-node's edge on every host, but on the papers' network
	 * (--table, --papers-net), which has no handshake to count. */
	handshakes = !c->papers_net;
	if (handshakes)
		hosts_file();
	/* Epoch 0: -E, or every host; room for one more per change. */
	cur = 0;
	nepochs = 1;
	for (i = 0; i < nscheds; i++)
		nepochs += scheds[i].op == S_RECONFIGURE;
	if ((epochs_used = sim_epochs(c))) {
		char why[256];

		if ((epochs = calloc(nepochs, sizeof(*epochs))) == NULL ||
		    (hout = malloc(sizeof(*hout))) == NULL)
			err(1, NULL);
		if (!c->epoch0) {
			uint8_t *all;

			if ((all = malloc(n)) == NULL)
				err(1, NULL);
			memset(all, 1, n);
			epoch_new(0, all, why, sizeof(why));
			free(all);
		} else
			epoch_new(0, c->members0, why, sizeof(why));
		for (i = 0; i < n; i++)
			ep_init(i);
	}
	if ((oddids = calloc(n, sizeof(*oddids))) == NULL ||
	    (hout_net = calloc(1, sizeof(*hout_net))) == NULL ||
	    (hout_send = calloc(1, sizeof(*hout_send))) == NULL)
		err(1, NULL);
	for (i = 0; i < n; i++) {
		nodes[i].ops = ops;
		if (!handshakes)
			continue;
		node_conf(i);
	}
	algo_out_init(&out);
	/* Loss makes every link flaky (trace format), and says so. */
	for (i = 0; c->loss > 0 && i < n; i++)
		for (j = i + 1; j < n; j++)
			trace(0, SIZE_MAX, "net a=%u b=%u link=flaky", ids[i],
			    ids[j]);
	for (i = 0; i < n; i++) {
		if (epochs_used && !epochs[0].in[i])
			continue;
		boots[i].a = i;
		boots[i].op = S_BOOT;
		boots[i].at = uniform(0, c->bootspread);
		e = new_event(EV_SCHED, boots[i].at);
		e->s = &boots[i];
		push(e);
	}
	for (i = 0; i < nscheds; i++) {
		e = new_event(EV_SCHED, scheds[i].at);
		e->s = &scheds[i];
		push(e);
	}
	while (nheap > 0 && heap[0]->at <= c->dur) {
		e = pop();
		now = e->at;
		handle(e);
		if (c->stats)
			note_agreement(now);
		if (c->oracle)
			check_leaders(now);
	}
	/* The trace ends at -d, not at the last event: a clock sample of
	 * every running node, so that the final stable period is judged. */
	for (i = 0; i < n; i++)
		if (nodes[i].up && !nodes[i].paused) {
			trace_format_time(clock_at(&nodes[i], c->dur), t,
			    sizeof(t));
			trace(c->dur, i, "clock c=%s", t);
		}
	if (c->stats == 1) {
		fprintf(stderr, "total");
		print_counts(sent_total);
	}
	if (r != NULL) {
		r->edicts = nmade;
		r->maxtok = maxtok;
		r->sched = scheds;
		r->nsched = nscheds;
	} else {
		for (i = 0; i < nscheds; i++)
			sched_free(&scheds[i]);
		free(scheds);
	}
	scheds = NULL;
	run_free();
	free(boots);
}

void
sim_result_free(struct sim_result *r)
{
	size_t i;

	for (i = 0; i < r->nsched; i++)
		sched_free(&r->sched[i]);
	free(r->sched);
	r->sched = NULL;
	r->nsched = 0;
}
