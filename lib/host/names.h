/*
 * The registry of named leaderships on one host, a decision of the
 * node's edge: which names exist here, when one is forgotten, which
 * token floor a re-created name starts from, when this host bids for a
 * name, and how the names a host holds or wants travel together to a
 * peer.  elect-node's daemon will run it over its control socket's
 * registrations, elect-sim over every simulated host, each name's
 * leadership being a lease core of its own beside it.
 *
 * Names.  1 to HNAMES_LEN bytes of [A-Za-z0-9._-], the trace's own
 * (elect-trace(5), Names), at most conf.max at once (default
 * HNAMES_DEFAULT); hnames_check() says in one line why a name is
 * refused.  A name exists while someone asks for it: a registration of
 * a guarded command here creates it, and so does a peer's batch naming
 * it (the peer holds or wants it, and this host is one of its grantors);
 * a status query does not.  It is forgotten once idle for conf.idle: no
 * registration here, no peer's batch naming it, not held here, and its
 * core neither leads nor grants (the latest deadline its core knows,
 * busy, is past).
 *
 * Token floor.  A name's tokens come from its grantors: a new leader
 * takes 1 + the largest K_q of the majority that answered it, and each
 * grantor's K_q never goes down, across restarts too (share/elect/
 * lease.md, Fencing token).  Forgetting a name drops its grantor's K_q
 * here, so the registry keeps one number per host, the floor: the
 * highest K (the name's core's K_q or its persisted bound) of any name
 * this host forgot.  It is written (HNAMES_SAVE) before the names that
 * raise it are forgotten (HNAMES_FORGET), and a name created here
 * (HNAMES_CREATE) boots its core with the floor as its persisted bound,
 * so its K_q starts there.  A restart forgets every name at once: the
 * registry starts (conf.floor) from the floor written, raised to the
 * persisted bound of every name whose state the caller then drops.  Why
 * it is safe: a name's K_q at each grantor is then monotone for the
 * life of the state directory, whatever is forgotten in between, which
 * is all the proof of Fencing token asks of a grantor; the grants this
 * host gave for the name ended before it was forgotten (idle >= linger,
 * the longest a grant outlives its last sign, drift included), so the
 * re-created core starts with nothing outstanding.  One floor for all
 * names costs a jump in a re-created name's tokens, never a repeat, and
 * one word of storage whatever the number of names forgotten; a floor
 * per name would have to be kept as long as the name could come back,
 * that is forever.  Tokens of later epochs lie above every floor of
 * earlier ones (E4), so the floor crosses epochs as it is.
 *
 * Spread and stickiness.  The preferred holder of a name among the live
 * members is the one of highest weight w(name, id), a keyed SipHash of
 * both (rendezvous, or highest-random-weight hashing): every host
 * computes it alone from the name and the members it sees, names
 * spread evenly over the members, and when a member leaves or comes
 * back only the names it is preferred for change their preference.  A
 * host wanting a name (a registration waits for it) bids (HNAMES_BID)
 * only while no live member holds it, and not before conf.learn after
 * the name was created here (long enough to hear a holder's renewal),
 * then at once if it is the preferred one among the live members, else
 * rank * conf.delay later, rank being its place in the order of weights:
 * if the preferred host does not want the name, the next takes it one
 * delay later.  A host that already holds or bids for its share (the
 * names known here over the live members, conf.spread percent more,
 * rounded up) waits once more, one delay per live member, so that the
 * others take the name first: weights alone spread names as a random
 * draw does (300 names over 5 hosts, the largest share 1.22 of an even
 * one in the transcript), the share bounds it (1.10), as consistent
 * hashing with bounded loads does; the live can hold more than every
 * name, so each finds a host.  A held name never moves while its
 * holder lives: a host that comes back, preferred or not, finds its
 * names held and bids for none of them; it takes names again as they
 * are released, forgotten or lose their holder, the spread being
 * uneven until then (the price of no churn).  A per-name preference
 * list in the configuration would say the same with more to write and
 * keep: every name written out (and names are created on demand, so
 * they are not known in advance), an edit on every host for each member
 * added, and a spread as good as the person writing it.  Rendezvous
 * needs nothing configured, moves the fewest preferences on a change of
 * members, and is one hash per member and name.  The transcript
 * t/testdata/host/names.txt shows 300 names over 3 and 5 hosts.
 *
 * Batches.  The names this host holds or wants, in the order of their
 * bytes, are laid out in payloads of at most WIRE_PAYLOAD_MAX bytes, so
 * that one datagram per peer carries them as long as they fit, and a
 * few more when they do not.  The names travel themselves, front-coded
 * (each as the length it shares with the one before and the rest):
 * every payload stands alone, no index has to be agreed or kept per
 * peer or epoch while names come and go, and a lost datagram costs only
 * its own names.
 *
 *	off  len  field
 *	  0    1  version   HNB_VERSION
 *	  1    1  count     entries, 1 .. HNB_ENTRIES_MAX
 *	then count entries, names strictly increasing:
 *	       1  shared    bytes in common with the name before (0 first)
 *	       1  rest      bytes that follow, >= 1
 *	    rest  bytes     of the name, [A-Za-z0-9._-], shared + rest
 *	                    <= HNAMES_LEN
 *	       1  kind      HNB_HELD, HNB_WANT, or a kind of named.h
 *	       8  token     HNB_TOKEN(kind) only: > 0
 *	       1  body      bytes of the name's own part that follow
 *	    body  bytes     (the lease core's, opaque here)
 *
 * Pure: no system calls, no clock, no globals.  Memory is taken at init
 * for conf.max names, and never after.  hnames_step() takes one input
 * and answers actions, in order, and the time of its next tick.
 */
#ifndef ELECT_HOST_NAMES_H
#define ELECT_HOST_NAMES_H

#include <sys/tree.h>

#include <stddef.h>
#include <stdint.h>

#include "net/cluster.h"
#include "net/wire.h"

#define HNAMES_LEN	64	/* bytes of a name, the most */
#define HNAMES_DEFAULT	4096	/* names at once, unless configured */
#define HNAMES_WHY_MAX	128	/* a refusal's reason */
#define HNAMES_TICK_MAX	64	/* names one tick forgets, or bids for */
/* One input's actions: a tick's save, forgets and bids; a registration
 * or a member's change answers less. */
#define HNAMES_ACTS_MAX	(1 + 2 * HNAMES_TICK_MAX)

struct hnames_conf {
	unsigned	 self;
	size_t		 max;		/* names at once, >= 1 */
	int64_t		 idle;		/* forgotten this long idle */
	int64_t		 linger;	/* a grant's longest life after its
					 * last sign; idle >= linger */
	int64_t		 learn;		/* new here: no bid before this */
	int64_t		 delay;		/* a bid's wait per rank */
	unsigned	 spread;	/* percent above an even share a host
					 * takes before the others, 0..1000 */
	uint64_t	 floor;		/* read back at start */
};

struct hname {
	RB_ENTRY(hname)	 e;
	char		 s[HNAMES_LEN + 1];
	uint8_t		 len;
	unsigned	 regs;		/* registrations here */
	unsigned	 holder;	/* as its core knows, 0: none */
	int		 bidding;	/* HNAMES_BID given, no holder since */
	int		 deferred;	/* loaded: its bid after the others' */
	uint64_t	 token;		/* while this host holds it */
	uint64_t	 k;		/* the highest K its core reported */
	uint64_t	 floor;		/* its core's start */
	int64_t		 created;
	int64_t		 last;		/* created, or a registration ended */
	int64_t		 busy;		/* its core's latest deadline */
	int64_t		 heard;		/* a peer's batch named it last */
	int64_t		 vacant;	/* wanted here, no live holder since,
					 * or -1 */
	int64_t		 bid_at;	/* -1: no bid due */
	size_t		 rank;		/* among the live, when bid_at set */
};

RB_HEAD(hname_tree, hname);

/* The counters behind the status and the metrics. */
struct hnames_counts {
	size_t		 known;		/* names now */
	size_t		 held;		/* ... this host holds */
	size_t		 waiting;	/* ... wanted here, held elsewhere
					 * or by none */
	uint64_t	 created, forgotten, refused;
};

struct hnames {
	struct hnames_conf conf;
	struct hname_tree tree;		/* by name, bytes then length */
	struct hname	*pool;		/* conf.max */
	size_t		*free;		/* conf.max indices into pool */
	size_t		 nfree;
	size_t		 top;		/* pool[top..] never used */
	unsigned	 live[CLUSTER_NODES_MAX];	/* sorted, self too */
	size_t		 nlive;
	size_t		 nbid;		/* names bidding */
	uint64_t	 floor;
	struct hnames_counts n;
};

enum hnames_in_type {
	HNAMES_IN_TICK = 1,	/* time passed */
	HNAMES_IN_REGISTER,	/* a guarded command asks for name */
	HNAMES_IN_RELEASE,	/* ... and its registration ends */
	HNAMES_IN_CORE,		/* name's core stepped: holder, token, k,
				 * busy */
	HNAMES_IN_MEMBERS,	/* the live members are ids (self or not) */
	HNAMES_IN_HEARD,	/* a peer's batch names name */
};

struct hnames_input {
	enum hnames_in_type type;
	int64_t		 now;
	const char	*name;
	size_t		 len;
	unsigned	 holder;	/* CORE: the leader it knows, or 0 */
	uint64_t	 token;		/* CORE: this host's, while it leads */
	uint64_t	 k;		/* CORE: its K_q, or persisted bound */
	int64_t		 busy;		/* CORE: its latest lease or grant */
	const unsigned	*ids;		/* MEMBERS */
	size_t		 nids;
};

enum hnames_act_type {
	HNAMES_REFUSE = 1,	/* the name is refused (a registration, or
				 * a peer's entry, dropped): why */
	HNAMES_CREATE,		/* boot name's core, its bound floor */
	HNAMES_BID,		/* name's core campaigns */
	HNAMES_RESIGN,		/* name's core releases, or stops its bid:
				 * nobody here wants it */
	HNAMES_SAVE,		/* write floor, before what follows */
	HNAMES_FORGET,		/* end name's core, drop its state */
};

struct hnames_action {
	enum hnames_act_type type;
	char		 name[HNAMES_LEN + 1];
	size_t		 len;
	uint64_t	 floor;		/* CREATE, SAVE */
	size_t		 rank;		/* BID */
};

struct hnames_out {
	struct hnames_action v[HNAMES_ACTS_MAX];
	size_t		 n;
	char		 why[HNAMES_WHY_MAX];	/* REFUSE */
	/* A tick is due then, or -1: a tick's for every name; another
	 * input's for what it changed, the caller keeping the earliest
	 * wake since its last tick (an early tick costs nothing). */
	int64_t		 wake;
};

/* 0, or -1 out of memory. */
int	hnames_init(struct hnames *, const struct hnames_conf *);
void	hnames_free(struct hnames *);
void	hnames_step(struct hnames *, const struct hnames_input *,
	    struct hnames_out *);

/* 0 when NAME (LEN bytes) is well formed, else -1 with why in WHY. */
int	hnames_check(const char *name, size_t len, char *why, size_t whylen);
/* Name's entry, or NULL: a query creates nothing. */
const struct hname *hnames_find(const struct hnames *, const char *name,
	    size_t len);
/* The names in order: the first after AFTER (NULL: the first), or NULL. */
const struct hname *hnames_next(const struct hnames *,
	    const struct hname *after);
/* The name after AFTER (NULL: the first) in the pool's order, which is
 * no order of names: where none is needed, a walk cheaper than the
 * tree's, which a host holding a thousand names makes every round. */
const struct hname *hnames_any(const struct hnames *,
	    const struct hname *after);

/* Name's weight for member ID: the same on every host. */
uint64_t hnames_weight(const char *name, size_t len, unsigned id);
/*
 * The preferred holder of NAME among the N distinct members IDS (0 when
 * N is 0), and in *RANK SELF's place among them by weight (0: the
 * preferred; N when SELF is not among them).
 */
unsigned hnames_prefer(const char *name, size_t len, const unsigned *ids,
	    size_t n, unsigned self, size_t *rank);

/* Batches: see the layout above. */
#define HNB_VERSION	1
#define HNB_HDR		2
#define HNB_HELD	1	/* token: the holder's */
#define HNB_WANT	2
/* The kinds of named leaderships' rounds (host/named.h). */
#define HNB_FREE	3
#define HNB_GRANT	4	/* token: the grantor's K for the name */
#define HNB_DENY	5
#define HNB_ACK		6	/* token: the one acknowledged */
#define HNB_FREED	7
#define HNB_VACANT	8
#define HNB_KINDS	9
/* The kinds that carry a token, never 0. */
#define HNB_TOKEN(k)	((k) == HNB_HELD || (k) == HNB_GRANT || (k) == HNB_ACK)
#define HNB_BODY_MAX	255
/* An entry's fewest bytes: shared, rest, one byte, kind, body. */
#define HNB_ENTRY_MIN	5
#define HNB_ENTRIES_MAX	((WIRE_PAYLOAD_MAX - HNB_HDR) / HNB_ENTRY_MIN)

struct hnb_entry {
	char		 name[HNAMES_LEN + 1];
	size_t		 len;
	int		 kind;
	uint64_t	 token;		/* HNB_TOKEN(kind) */
	const uint8_t	*body;		/* parsed: into the payload */
	size_t		 blen;
};

/* A payload being laid out into buf (cap bytes, HNB_HDR at least). */
struct hnb_writer {
	uint8_t		*buf;
	size_t		 cap, len;
	unsigned	 count;
	char		 prev[HNAMES_LEN + 1];
	size_t		 prevlen;
};

void	hnb_start(struct hnb_writer *, uint8_t *buf, size_t cap);
/* Appends E, whose name follows the one before: 0, or -1 when it does
 * not fit (the payload is as before). */
int	hnb_put(struct hnb_writer *, const struct hnb_entry *e);
/* The payload's length: 0 when it holds no entry. */
size_t	hnb_end(struct hnb_writer *);
/* Payload P (LEN bytes) into V (HNB_ENTRIES_MAX): the count, or -1 with
 * why in WHY; bodies point into P. */
int	hnb_parse(const uint8_t *p, size_t len, struct hnb_entry *v,
	    const char **why);

/* H as a batch's entry, without a body: 0, or -1 when this host
 * neither holds it with a token nor wants it. */
int	hnames_entry(const struct hnames *, const struct hname *h,
	    struct hnb_entry *e);
/*
 * The names this host holds (with their token) or wants, after AFTER
 * (NULL: from the first), laid out into W as far as they fit, without
 * bodies: the last name laid, or AFTER when none was, to go on from in
 * the next payload, within the same turn (no step between); *DONE once
 * none is left.
 */
const struct hname *hnames_batch(const struct hnames *,
	    const struct hname *after, struct hnb_writer *w, int *done);

#endif
