/*
 * Named leaderships on one host, a decision of the node's edge: Nerio's
 * lease (share/elect/lease.md) for every name at once, over one session
 * per pair of hosts, so that what a round costs does not grow with the
 * names.  elect-node's daemon runs it beside its default leadership's
 * core, elect-sim on every simulated host; lib/host/names (the registry)
 * inside it says which names exist, when this host bids for one, and
 * when one is forgotten.
 *
 * Sessions.  A host that holds or wants names sends a round (a Request)
 * to every member, itself included, every timing.renew, and at once when
 * it has something new to say.  Grantor q answers every round of p with
 * an Ok, and keeps one deadline for p, its session:
 *
 *	F_q(p) := max(F_q(p), C_q + (1 + rho) delta)
 *
 * as Nerio's grantor keeps F_q, but for every p at once: a session is
 * not exclusive.  What is exclusive is a name: q grants name X to one
 * host at a time, and X stays granted to p at q for as long as p's
 * session at q runs (unless p frees X, or a Dead for p's incarnation
 * comes).  A session that runs out ends; p's next round starts a new
 * one, under a new session number (sid), and everything q granted p in
 * the old one is gone.  A grantor that restarts lost its sessions: it
 * grants nothing until (1 + rho) delta after its boot, as the lease
 * core's quiet period.
 *
 * The holder's side.  p stamps each round with Start := C_p; an Ok from
 * q for it, under sid s, tells p that q's session with p runs at least
 * until Start + (1 - rho) delta in real time (Lemma 3.1).  Let G(X) be
 * the grantors that granted X to p under their current sid: p leads X
 * until E(X), the deadline a majority of G(X) guarantees, computed when
 * a round's Oks come in.  A name is acquired in two rounds, as the lease
 * core's token is established: WANT X, answered GRANT X with the
 * grantor's K_q(X) (the highest token it saw for X) or DENY X with the
 * holder it grants to (Nerio 10.4) and its session left; with a
 * majority of GRANTs p proposes T := 1 + the largest K_q(X) it saw (and
 * above the floor), sends HELD X T, each grantor raises K_q(X) to T and
 * answers ACK X T; with a majority of ACKs T is established: p leads X
 * with token T, traced, and a guarded command may start under it.  A
 * name p gives up (released here, or its deadline passed) is freed:
 * FREE X to the grantors of G(X) until each answered FREED X or its
 * session ended.  A round carries only these entries: a host that
 * holds a thousand names and acquires none sends one datagram per peer
 * per round, as it would for one.
 *
 * Why it is safe.  X is granted at q to at most one host at any time
 * (q's choice, one owner), until that host's session at q ends in real
 * time.  p leads X only before a majority of G(X) could have ended its
 * session (each Ok's Start + (1 - rho) delta, drift and delay counted
 * as Nerio counts them), so two hosts leading X at once would need two
 * majorities of grantors each granting X to a different host at once.
 * A sid that changed means the session ended: q leaves G(X) for every
 * X at p.  Requests of one round are ordered by a counter per life of p
 * (a grantor takes no round older than the newest it took from p), so
 * a late WANT never re-grants a name freed since.  Tokens are Nerio's
 * fencing token per name (share/elect/lease.md, Fencing token): K_q(X)
 * never goes down while q knows X, and the registry's floor carries it
 * across forgetting and restarts (names.h).
 *
 * Trace.  Per name, whole: `lease op=grant name=X to=P until=F clock=C'
 * and `lease op=release name=X to=P clock=C' at a grantor, `lead
 * name=X until=E clock=C token=T' at a holder.  Per round, one line
 * for every name at once (elect-trace(5), Names): `renew name=* d=NS'
 * at the holder when every named leadership it runs moves NS later,
 * else a `lead' line for each; `renew name=* to=P d=NS' at a grantor
 * for its grants to P.  A `clock' sample at least every 20 ms while
 * anything runs.  The messages of rounds are not traced: they are not
 * decisions, the lines above are.
 *
 * Pure: no system calls, no clock, no globals.  Memory is taken at init
 * for the members and conf.names.max names, and never after.
 * hnl_step() takes one input and answers actions, in order, and the
 * time of its next tick.
 */
#ifndef ELECT_HOST_NAMED_H
#define ELECT_HOST_NAMED_H

#include <stddef.h>
#include <stdint.h>

#include "algo/algo.h"
#include "host/names.h"
#include "net/wire.h"

/* A trace or log line's bytes, the most. */
#define HNL_LINE	256

/* A round's header before its entries (names.h's batch layout):
 *	off  len  field
 *	  0    1  kind	HNL_REQ or HNL_OK
 *	  1    8  ctr	the round, counted per life of its sender
 *	  9    8  REQ: delta asked; OK: sid
 * Entry kinds beyond names.h's: HNB_FREE (Request), HNB_GRANT (token:
 * K_q + 1), HNB_DENY (body: holder 2, left 8, established 1), HNB_ACK
 * (token: T), HNB_FREED, HNB_VACANT (Oks).
 *
 * Contention and waiting.  Two hosts that bid for X at once may split
 * the grantors.  A DENY says whether the holder's token was
 * acknowledged there: a bidder gives up to an established holder, or to
 * one of higher weight (names.h), and else asks again each round, so
 * that the heavier bidder wins.  A grantor remembers whom it denied X
 * and tells them, in its Ok to their next round, once X is free there
 * (HNB_VACANT): a host waits for a name at no cost per round, and bids
 * when its holder releases it, dies (its Dead) or is no longer live. */
#define HNL_REQ		1
#define HNL_OK		2
#define HNL_HDR		17

struct hnl_conf {
	unsigned	 self;
	uint64_t	 inc;		/* this life */
	const unsigned	*ids;		/* members, self among them */
	size_t		 nids;
	struct algo_timing timing;	/* lease, renew, rtt, drift */
	uint32_t	 epoch;		/* tokens above epoch << 40 */
	/* As the default core of a later epoch: it neither asks nor leads
	 * until told that the epoch before ended (HNL_IN_LEARN, rule E1 of
	 * share/elect/lease.md). */
	int		 pending;
	struct hnames_conf names;	/* names.self is self */
};

/* A member, as grantor of its rounds and as granting ours; indexed like
 * hnl.ids. */
struct hnl_peer {
	unsigned	 id;
	/* Our grantor part for it. */
	uint64_t	 inc;		/* its life we take rounds of */
	uint64_t	 ctr;		/* its newest round taken */
	uint64_t	 sid;		/* its session here, 0: none yet */
	int64_t		 f;		/* F_q(p) */
	size_t		 owned;		/* names granted to it */
	size_t		 news;		/* names to tell it are free */
	/* What it is to us as a grantor. */
	uint64_t	 tinc, tsid;	/* its life and session with us */
	int64_t		 until;		/* trusted: Start + (1 - rho) delta */
	int64_t		 sent;		/* our last round to it */
};

/* A name's lease state, indexed like the registry's pool. */
struct hnl_name {
	/* Grantor. */
	unsigned	 owner;		/* the host it is granted to, 0: none */
	uint64_t	 osid;		/* ... under that session */
	uint64_t	 k;		/* K_q(X) */
	/* Holder. */
	int		 phase;		/* HNL_IDLE .. HNL_LEAD */
	uint64_t	 tok;		/* proposed, then established */
	uint64_t	 kmax;		/* the largest K_q(X) granted */
	int64_t		 e;		/* E(X) while leading */
	uint64_t	 mv;		/* moved in settle() number mv */
	uint64_t	 since;		/* the first round of its bid */
	unsigned	 hint;		/* the holder a DENY named */
	int64_t		 left;		/* ... its session left there */
	uint64_t	*g, *ack, *fr;	/* bits by member index: granted,
					 * acknowledged T, to free at */
	/* Grantor: the members denied it (told when it is free), those
	 * to tell, and whether the owner's token was acknowledged. */
	uint64_t	*wt, *nw;
	int		 est;
};

enum { HNL_IDLE, HNL_WANT, HNL_PROPOSE, HNL_LEAD, HNL_FREE };

struct hnl_counts {
	uint64_t	 rounds, oks, grants, denies, frees, leads, lost;
};

struct hnl {
	struct hnl_conf	 c;
	unsigned	*ids;		/* members, sorted */
	size_t		 n, words;	/* members; uint64_t per bit set */
	struct hnl_peer	*p;
	struct hnames	 reg;
	struct hnl_name	*nm;		/* c.names.max */
	uint64_t	*bits;		/* backing g, ack, fr */
	int64_t		*scratch;	/* n, for deadline() */
	uint64_t	 sids;		/* sessions begun in this life */
	uint64_t	 khi;		/* written: above every K acknowledged */
	uint64_t	 gen;		/* settle()s */
	int64_t		 emin;		/* no leadership ends before, or
					 * INT64_MAX */
	int64_t		 checked;	/* the invariants' last walk */
	int64_t		 quiet;		/* grants nothing before */
	int		 wedged;	/* grants nothing more */
	int		 pending;	/* asks nothing yet (hnl_conf) */
	/* Our rounds. */
	uint64_t	 ctr;
	int64_t		 rstart;	/* the newest round's Start */
	int64_t		 next;		/* the next round due, -1: none */
	int		 urgent;	/* something new to say */
	uint64_t	*okd;		/* members that answered the newest */
	uint64_t	*live;		/* members live, as far as we know */
	size_t		 cont;		/* the round goes on from member cont
					 * in our order, 0: it is sent */
	size_t		 sendcap;	/* datagrams a round may take */
	int64_t		 sample;	/* last clock line */
	int64_t		 refresh;	/* the registry's busy, last fed */
	int64_t		 rwake;		/* the registry's wake */
	struct hnl_counts cnt;
};

enum hnl_in_type {
	HNL_IN_TICK = 1,	/* time passed */
	HNL_IN_RECV,		/* a round or an Ok from id (life inc) */
	HNL_IN_REGISTER,	/* a guarded command asks for name */
	HNL_IN_RELEASE,		/* ... and its registration ends */
	HNL_IN_DEAD,		/* id's lives below inc are dead */
	HNL_IN_MEMBERS,		/* the live members are ids */
	HNL_IN_WEDGE,		/* grant nothing more, ever */
	HNL_IN_LEARN,		/* the epoch before ended: ask, lead */
};

struct hnl_input {
	enum hnl_in_type type;
	int64_t		 now;
	unsigned	 id;		/* RECV, DEAD */
	uint64_t	 inc;		/* RECV: its life; DEAD: dead below */
	const uint8_t	*p;		/* RECV */
	size_t		 len;
	const char	*name;		/* REGISTER, RELEASE */
	size_t		 nlen;
	const unsigned	*ids;		/* MEMBERS */
	size_t		 nids;
};

enum hnl_act_type {
	HNL_SEND = 1,	/* payload[len] to id */
	HNL_TRACE,	/* a trace line's body (after time and node) */
	HNL_LOG,	/* a log line about a name */
	HNL_SAVE,	/* write floor, before what follows; read it back
			 * into names.floor at the next start */
	HNL_STATUS,	/* name's leadership here, or its holder as known
			 * here, changed: hnl_query() it */
	HNL_REFUSE,	/* a registration refused: text says why */
	HNL_DROP,	/* a datagram refused: why */
};

struct hnl_action {
	enum hnl_act_type type;
	unsigned	 id;
	const uint8_t	*payload;	/* into out.buf */
	size_t		 len;
	const char	*text;		/* into out.text */
	const char	*why;		/* static */
	uint64_t	 floor;
	char		 name[HNAMES_LEN + 1];
};

/* One step's output, sized by hnl_out_init() for the most any step of
 * its core makes: a line for every name, a round's datagrams for every
 * name to every member; a step that would make more leaves the rest to
 * the next, at once. */
struct hnl_out {
	struct hnl_action *v;
	size_t		 n, cap;
	uint8_t		(*buf)[WIRE_PAYLOAD_MAX];
	size_t		 nsent, sendcap;
	char		*text;
	size_t		 tlen, textcap;
	int64_t		 wake;		/* a tick is due then, or -1 */
};

/* What hnl_query() says of a name, as the lease core's status says it
 * of the default leadership. */
struct hnl_status {
	int		 known;		/* the registry knows the name */
	int		 leader;	/* this host leads it */
	uint64_t	 token;		/* ... with its token */
	int64_t		 until;		/* ... until then */
	unsigned	 holder;	/* who leads it as far as we know, 0 */
	int64_t		 left;		/* ... and how long a grantor said */
	unsigned	 regs;		/* registrations here */
};

/*
 * The registry's timing from the lease's, for MAX names: a grant
 * outlives its last sign by at most (1 + rho) delta and a round trip
 * (linger); a name is forgotten no sooner, nor before a minute (idle);
 * a name new here is bid for a lease later (learn), so that hosts
 * asking at about the same time leave it to the preferred one, and two
 * round trips later per rank by a host not preferred (delay: a bid
 * against a holder costs one Deny); shares 10% above an even one
 * (spread).
 */
void	hnl_names_conf(struct hnames_conf *, const struct algo_timing *,
	    size_t max);
/* 0, or -1 out of memory or a bad configuration. */
int	hnl_init(struct hnl *, const struct hnl_conf *, int64_t now);
void	hnl_free(struct hnl *);
/* 0, or -1 out of memory. */
int	hnl_out_init(struct hnl_out *, const struct hnl *);
void	hnl_out_free(struct hnl_out *);
void	hnl_step(struct hnl *, const struct hnl_input *, struct hnl_out *);
void	hnl_query(const struct hnl *, const char *name, size_t len,
	    int64_t now, struct hnl_status *);
/* Name's status as the lease core's (lib/host/lead takes it). */
void	hnl_algo_status(const struct hnl *, const char *name, size_t len,
	    int64_t now, struct algo_status *);

#endif
