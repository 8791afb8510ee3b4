/*
 * Messages in flight, as the trace shows them: every `send' waits for the
 * `recv' that matches it (same sender, receiver, msg= and elid=, oldest
 * first).  A message its receiver has not accepted within the bound B
 * (--msg-bound) of its send, while the receiver stayed up, not paused and
 * not rebooted, is overdue: evidence that messages did not arrive in time,
 * a communication failure in Garcia-Molina's model, whether it arrives
 * later or never.  elect-check(1), MESSAGES, gives the rules.
 */
#ifndef ELECT_CHECK_MSGS_H
#define ELECT_CHECK_MSGS_H

#include <stdint.h>

#include "trace/trace.h"

#define MSGS_MAX	65536	/* messages in flight tracked at once */
#define MSGS_TO		1024	/* receivers' buckets of msgs.waiting */
#define MSGS_EPISODES	16	/* episodes of evidence kept for the summary */

struct mrec {
	trace_time	 s;		/* sent */
	uint64_t	 key;		/* hash of msg= and elid= */
	unsigned	 from, to;	/* ids */
	unsigned char	 state;		/* MR_ */
	char		 msg[24];	/* msg=, cut, for messages */
	uint64_t	 next;		/* the next record of its way, by
					 * number (MSGS_NONE: none) */
};

#define MSGS_NONE	UINT64_MAX

/* A way (sender, receiver): its records in flight, oldest first, by
 * number (a record's number is base + its index). */
struct mway {
	unsigned	 from, to;	/* 0: a free slot */
	uint64_t	 first, last;
};

struct mepisode {
	trace_time	 from, to;	/* first and last evidence */
	unsigned long	 n;
	struct mrec	 first;
};

struct msgs {
	trace_time	 bound;		/* B; < 0: no evidence is taken */
	trace_time	 c;		/* episodes closer than c are one */
	struct mrec	*r;		/* in the order of the send lines */
	size_t		 head, chk, tail, cap;
	uint64_t	 base;		/* the number of r[0] */
	struct mway	*way;		/* open addressing on (from, to) */
	size_t		 nway, capway;
	/* Records not done, by receiver id modulo MSGS_TO: a recv whose
	 * bucket is empty waits for no send (most of a compact trace's). */
	unsigned	 waiting[MSGS_TO];
	/* Per node index: overdue messages to it still in flight, when one
	 * was last in flight overdue, and the last that was. */
	unsigned	*od_now;
	trace_time	*od_last;
	struct mrec	*od_rec;
	unsigned	 nod;
	/* The latest evidence: its time (s + B; TIME_MIN: none), the
	 * message, and whether the event being fed brought new evidence. */
	trace_time	 fail;
	struct mrec	 last;
	unsigned long	 nevid, dropped;
	struct mepisode	 ep[MSGS_EPISODES];
	size_t		 nep;
	unsigned long	 more;		/* episodes past MSGS_EPISODES */
};

struct world;

void	msgs_init(struct msgs *, trace_time c);
void	msgs_free(struct msgs *);
/* Time has come to T (before the world takes in a line of time T): the
 * messages overdue by then become evidence. */
void	msgs_due(struct msgs *, const struct world *, trace_time t);
/* Takes in EV after the world did. */
void	msgs_event(struct msgs *, const struct world *,
	    const struct trace_event *);
/* Whether msgs_due() and msgs_event() of EV would do nothing, for a
 * world of N nodes: most lines carry no message and find none due, and
 * the checker saves the calls. */
static inline int
msgs_due_idle(const struct msgs *m, unsigned n)
{
	return m->bound < 0 || (m->nod >= n && m->chk == m->tail &&
	    m->head == m->chk);
}

static inline int
msgs_event_idle(const struct msgs *m, unsigned n,
    const struct trace_event *ev)
{
	return m->bound < 0 || ev->node == 0 || (m->nod >= n &&
	    ev->type != TR_SEND && ev->type != TR_RECV &&
	    ev->type != TR_BOOT && ev->type != TR_CRASH &&
	    ev->type != TR_EXIT);
}

/* Whether node index I has had a message overdue since T, or has one in
 * flight overdue now; *WHY gets the message. */
int	msgs_late_since(const struct msgs *, int i, trace_time t,
	    const struct mrec **why);
/* "3 to 1 Renew sent at 12.3" in BUF (64 bytes at least). */
const char *msgs_str(const struct mrec *, char *buf, size_t len);

#endif
