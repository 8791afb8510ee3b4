/*
 * The collector's line handling, without sockets: bytes received on each
 * connection are cut into lines, every line is checked against the trace
 * format, lines dropped are said lost ("lost n=N", under the node last
 * heard on the connection), and a node whose last connection ends without
 * an exit line gets a crash line.  elect-trace collect does the I/O around
 * it; the fuzz target drives it directly.
 */
#ifndef ELECT_COLLECT_H
#define ELECT_COLLECT_H

#include <stddef.h>

#include "collect/auth.h"
#include "trace/trace.h"

/* Nodes as far as the lines received tell. */
struct collector;

/* One connection.  Memory stays within TRACE_LINE_MAX plus its node list. */
struct collect_conn {
	char		 buf[TRACE_LINE_MAX];	/* a line cut between reads */
	size_t		 len;
	int		 skip;		/* inside a line already found too long */
	unsigned long	 lines;		/* whole lines received (acknowledged) */
	unsigned long	 bad;		/* of which dropped */
	unsigned long	 lost;		/* dropped, not yet said lost */
	unsigned	*nodes;		/* nodes whose lines came this way */
	size_t		 nnodes, nodecap;
	unsigned	 lastnode;	/* index into nodes[] of the last one */

	/* With a key (collect_conn_auth): the nodes it proved, by id bit. */
	const uint8_t	*key;
	uint8_t		 nonce[AUTH_NONCE];
	uint8_t		*proved;	/* bitmap of 0..TRACE_NODE_MAX */
	int		 anyproved;	/* a node at least */
	int		 refused;	/* a false proof, or a line before any
					 * proof: to be closed */
};

/* Where lines go: LINE gets each line to write (no newline) and its time;
 * BAD each line dropped, numbered from 1 on its connection, with why.
 * FLOOR, when set, gives the earliest time a line may still have: a line
 * earlier than that is dropped (it cannot be put in time order any more),
 * and the lines the core makes itself are never stamped earlier. */
struct collect_out {
	void	(*line)(void *arg, trace_time t, const char *line,
		    size_t len);
	void	(*bad)(void *arg, unsigned long lineno, const char *why,
		    const char *line, size_t len);
	void	 *arg;
	trace_time (*floor)(void *arg);
};

enum collect_end {
	CE_EOF,		/* the peer closed or failed: it may have crashed */
	CE_SHUTDOWN	/* the collector is leaving: nobody crashed */
};

struct collector *collect_new(void);
void		 collect_free(struct collector *);
void		 collect_conn_init(struct collect_conn *);
/* C's writer must prove, with KEY (kept, not copied) and the challenge
 * NONCE it was sent, each node it writes lines for; -1 without memory. */
int		 collect_conn_auth(struct collect_conn *, const uint8_t *key,
		    const uint8_t nonce[AUTH_NONCE]);
/* Takes N more bytes from C. */
void		 collect_data(struct collector *, struct collect_conn *,
		    const char *p, size_t n, const struct collect_out *);
/* C ended at time NOW.  After CE_EOF a cut last line is bad; lines
 * dropped since the last good one are said lost; after CE_EOF every node
 * it carried that is still up and has no other connection gets a crash
 * line.  C may then be freed. */
/* Whether every node C carried has exited or crashed: C has nothing
 * more to say for them (a writer that waits for its last acknowledgements
 * need not be waited for). */
int		 collect_conn_over(const struct collector *,
		    const struct collect_conn *);
void		 collect_end(struct collector *, struct collect_conn *,
		    enum collect_end, trace_time now,
		    const struct collect_out *);

#endif
