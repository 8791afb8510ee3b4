/*
 * The elect trace format, version 1: one reader and one writer for every
 * binary.  share/man/man5/elect-trace.5 is the authority on the format.
 */
#ifndef ELECT_TRACE_H
#define ELECT_TRACE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_LINE_MAX	4096	/* longest line, newline included */
#define TRACE_KV_MAX	32	/* most KEY=VALUE pairs on one line */
#define TRACE_NODE_MAX	65535
#define TRACE_QT_MAX	256	/* most ID:T pairs in a quorum timestamp */
#define TRACE_NS	INT64_C(1000000000)
/* Readers take a node's clock past its last sample to run at rate 1 within
 * this many parts per million (elect-check(1), TIME AND SKEW). */
#define TRACE_DRIFT_PPM	100
#define TRACE_RENEW_MAX	(INT64_C(1000000) * TRACE_NS)	/* renew d= */
/* Named leaderships (name=): each 1..TRACE_NAME_LEN bytes of
 * [A-Za-z0-9._-], at most TRACE_NAME_COUNT of them in one trace. */
#define TRACE_NAME_LEN	64
#define TRACE_NAME_COUNT 4096

/* Times and clock readings are nanoseconds: exact for 9 fractional digits. */
typedef int64_t trace_time;

/* The reader takes times of 0 to TRACE_SEC_MAX seconds, with up to 9
 * fractional digits.  2^63 ns is 9.22e9 s: the difference of two times
 * fits, but a time plus a span (a lease's until= less its clock=, renewals
 * added up) may not, and is held to the bound by trace_time_add. */
#define TRACE_SEC_MAX	INT64_C(9000000000)
#define TRACE_TIME_MAX	(TRACE_SEC_MAX * TRACE_NS + TRACE_NS - 1)
_Static_assert(TRACE_TIME_MAX < INT64_MAX, "trace times overflow");

/*
 * T + D for a time T (0..TRACE_TIME_MAX) and a span D of -TRACE_TIME_MAX
 * or more, held to TRACE_TIME_MAX: a lease that ends past the last time a
 * trace can hold never ends within it.  TRACE_TIME_MAX - T cannot
 * overflow, and when D is at most that, neither can T + D.
 */
static inline trace_time
trace_time_add(trace_time t, trace_time d)
{
	return d > TRACE_TIME_MAX - t ? TRACE_TIME_MAX : t + d;
}

enum trace_type {
	TR_BOOT, TR_CRASH, TR_EXIT, TR_PAUSE, TR_RESUME, TR_STATE, TR_SEND,
	TR_RECV, TR_DROP, TR_FD, TR_LEASE, TR_LEAD, TR_EDICT, TR_DELIVER,
	TR_CLOCK, TR_NET, TR_TASK, TR_LOST, TR_QUIET, TR_EPOCH, TR_MISFIT,
	TR_RENEW, TR_NTYPES
};

enum trace_status {
	ST_NORM, ST_ELEC1, ST_ELEC2, ST_WAIT, ST_ELEC, ST_REORG, ST_DOWN,
	ST_NSTATUS
};

/* op= values; which are allowed depends on the event. */
enum trace_op {
	OP_NONE, OP_START, OP_STOP, OP_DOWN, OP_PLAYDEAD, OP_PLAYALIVE,
	OP_GRANT, OP_RELEASE, OP_WEDGE, OP_LEARN
};

enum trace_link { LINK_UP, LINK_DOWN, LINK_FLAKY };

/* A slice of the current line; valid until the next trace_next(). */
struct trace_str {
	const char	*p;
	size_t		 n;
};

struct trace_kv {
	struct trace_str k, v;
};

struct trace_qt {
	unsigned	 id;
	trace_time	 t;
};

/* Bits of trace_event.have: which optional keys the line carried. */
#define HAVE_ALGO	0x0001u
#define HAVE_NODES	0x0002u
#define HAVE_ELID	0x0004u
#define HAVE_BYTES	0x0008u
#define HAVE_QT		0x0010u
#define HAVE_TOKEN	0x0020u
#define HAVE_XSTATUS	0x0040u
#define HAVE_WHY	0x0080u
#define HAVE_UNTIL	0x0100u
#define HAVE_EPOCH	0x0200u	/* Nerio 10.6: boot, lease, lead, edict,
				 * deliver (epoch: always) */
#define HAVE_BY		0x0400u
#define HAVE_QD		0x0800u
#define HAVE_KILLED	0x1000u
#define HAVE_NAME	0x2000u	/* a line of a named leadership */
/* renew name=*: a round renewing every named leadership of the node,
 * or with to= (HAVE_TO, the id in to) every named grant to that node;
 * name stays empty, since it is no one name's line. */
#define HAVE_ALLNAMES	0x4000u
#define HAVE_TO		0x8000u

/*
 * One decoded line.  The reader checks that each event carries the keys
 * elect-trace(5) gives it, with well-formed values, and decodes them into
 * the fields below; keys it does not know stay in kv[] only.  An id of 0
 * stands for "-" (none).
 */
struct trace_event {
	const char	*file;		/* name as given, "-" for stdin */
	unsigned long	 lineno;
	trace_time	 t;
	unsigned	 node;		/* 0: "-", an event about the system */
	enum trace_type	 type;
	unsigned	 have;

	uint64_t	 inc;		/* boot */
	struct trace_str algo;		/* boot */
	unsigned	 nodes;		/* boot */
	struct trace_str why;		/* exit, drop */
	enum trace_status status;	/* state */
	unsigned	 ldr;		/* state */
	struct trace_str grp;		/* state ("-" when none) */
	unsigned	 to;		/* send, lease, renew name=* */
	unsigned	 from;		/* recv, drop, deliver */
	struct trace_str msg;		/* send, recv */
	struct trace_str elid;		/* send, recv */
	uint64_t	 bytes;		/* send */
	enum trace_op	 op;		/* fd, lease, task */
	unsigned	 peer;		/* fd */
	trace_time	 until;		/* lease grant, lead */
	trace_time	 clock;		/* lease, lead, edict: clock=; clock: c= */
	struct trace_str qt;		/* lead, edict, deliver (raw) */
	uint64_t	 qd;		/* lead, edict, deliver: digest of a
					 * quorum timestamp, instead of qt= */
	uint64_t	 seq;		/* edict, deliver */
	unsigned	 a, b;		/* net */
	enum trace_link	 link;		/* net */
	uint64_t	 pid;		/* task */
	struct trace_str token;		/* task */
	struct trace_str xstatus;	/* task status= */
	trace_time	 killed;	/* task killed= */
	uint64_t	 n;		/* lost */
	uint64_t	 d;		/* renew: nanoseconds, 1..TRACE_RENEW_MAX */
	uint64_t	 epoch;		/* epoch= (0 without it) */
	unsigned	 by;		/* epoch op=learn by= */
	struct trace_str lead;		/* misfit: yes or no */
	struct trace_str peers;		/* misfit: ID:WHAT,... or - */
	struct trace_str name;		/* name=, empty without it (the
					 * default leadership) */

	size_t		 nkv;
	struct trace_kv	 kv[TRACE_KV_MAX];
	struct trace_str line;		/* the whole line, without newline */
};

#define TRACE_LENIENT	0x1	/* skip unknown events instead of failing */

struct trace_reader;

/* Files are read one after another; "-" is stdin.  No files: stdin. */
struct trace_reader *trace_open(char *const *files, int nfiles, int flags);
/* 1: an event in *ev; 0: end of input; -1: error, see trace_error(). */
int		 trace_next(struct trace_reader *, struct trace_event *ev);
/* "FILE:LINE: why" for the last error. */
const char	*trace_error(const struct trace_reader *);
/* Lines read and events returned so far; unknown events skipped. */
unsigned long	 trace_lines(const struct trace_reader *);
unsigned long	 trace_skipped(const struct trace_reader *);
uint64_t	 trace_bytes(const struct trace_reader *);
void		 trace_close(struct trace_reader *);

/*
 * Decodes one line (no newline) into *ev: NULL on success, TRACE_SKIP for
 * an unknown event under TRACE_LENIENT, else why (perhaps written in WHY).
 */
const char	*trace_parse_line(const char *line, size_t len,
		    struct trace_event *ev, int flags, char *why, size_t whylen);
extern const char trace_skip[];
#define TRACE_SKIP	trace_skip
/* For readers that cut lines themselves: whether a line (no newline) is
 * blank or a comment; what is wrong with it before decoding, or NULL. */
int		 trace_blank(const char *, size_t);
const char	*trace_raw_check(const char *, size_t);

/* Helpers for values. */
const char	*trace_type_name(enum trace_type);
const char	*trace_status_name(enum trace_status);
int		 trace_parse_time(const char *, size_t, trace_time *);
int		 trace_parse_id(const char *, size_t, unsigned *);	/* "-" -> 0 */
/* Splits a quorum timestamp "ID:T,ID:T"; returns pairs or -1. */
int		 trace_parse_qt(struct trace_str, struct trace_qt *, size_t);
/* An election id as elect-node writes it, "ID.INC.CTR" (other writers'
 * ids are opaque: -1). */
int		 trace_parse_elid(struct trace_str, unsigned *node,
		    uint64_t *inc, uint64_t *ctr);
/* A digest (qd=): exactly 16 lowercase hex digits. */
int		 trace_parse_hex64(const char *, size_t, uint64_t *);
int		 trace_str_eq(struct trace_str, const char *);
const struct trace_str *trace_get(const struct trace_event *, const char *key);
/* Whether S is a well-formed leadership name. */
int		 trace_name_ok(const char *s, size_t n);
/* Whether EV is a line of one leadership (elect-trace(5), NAMES), the
 * default one's without name=; else it is about its host. */
int		 trace_leadership_line(const struct trace_event *ev);

/*
 * The names of one trace, each given a number 1..TRACE_NAME_COUNT in
 * order of first sight (0: the default leadership), so that readers keep
 * per-name state in arrays.
 */
struct trace_names;

struct trace_names *trace_names_new(void);
void		 trace_names_free(struct trace_names *);
/* EV's name's number: 0 without name=, -1 when it would be one name too
 * many (or memory ran out: errno ENOMEM). */
long		 trace_names_id(struct trace_names *,
		    const struct trace_event *ev);
/* Name number ID (1..trace_names_count()), NUL-terminated. */
const char	*trace_names_str(const struct trace_names *, long id);
long		 trace_names_count(const struct trace_names *);

/* Writes T as seconds with 9 fractional digits, trailing zeros cut. */
int		 trace_format_time(trace_time, char *, size_t);
/* The body of a line of LEN bytes at LINE: what follows its time and its
 * node, blanks skipped; *N its length. */
const char	*trace_line_body(const char *line, size_t len, size_t *n);
/* Writes the line "TIME NODE EVENT [KEY=VALUE ...]" (NODE 0: "-"), without
 * a newline, the event and keys as printf would make them; returns as
 * vsnprintf(3) does (LEN or more: the line was cut). */
int		 trace_format_line(char *buf, size_t len, trace_time,
		    unsigned node, const char *fmt, ...)
		    __attribute__((format(printf, 5, 6)));
int		 trace_vformat_line(char *buf, size_t len, trace_time,
		    unsigned node, const char *fmt, va_list)
		    __attribute__((format(printf, 5, 0)));

/*
 * The writer.  Lines are queued and written without ever blocking the
 * caller; a line that does not fit in the queue is counted and reported
 * with a "lost n=N" line as soon as there is room again.
 *
 * A socket destination is a collector (elect-trace collect).  tw_open()
 * does not wait for it: the connection is made in the background and made
 * again, with a backoff from 50 ms doubling up to 1 s, whenever it ends
 * (a collector restart); lines queue meanwhile.  The collector acknowledges
 * the lines it took; lines sent on a connection that ended before they were
 * acknowledged are counted as lost and reported once a new connection is
 * up.  The daemon's poll loop drives all this:
 *
 *	struct pollfd pfd[N];
 *	int ms = tw_pollfd(w, &pfd[k]);	(fd -1: nothing to wait for)
 *	poll(pfd, N, min(ms, own timeout));	(-1: no limit of its own)
 *	tw_tick(w);				(after every poll, any revents)
 */
struct trace_writer;
struct pollfd;
struct sockaddr_un;
struct addrinfo;

/*
 * A collector's address, as tw_open() and elect-trace collect take it.
 * "unix:PATH" into *SUN: -1 with errno EINVAL or ENAMETOOLONG if it is
 * not one.  "tcp:HOST:PORT" resolved for a stream socket (PASSIVE: to
 * listen on) into *AI, for net_freeaddrinfo(): -1 with *WHY and errno set if
 * it is not one or does not resolve.  Names are resolved here, once.
 */
int		 trace_addr_unix(const char *addr, struct sockaddr_un *sun);
int		 trace_addr_tcp(const char *addr, int passive,
		    struct addrinfo **ai, const char **why);

/*
 * DEST: a file (appended to); "-" for DASHFD (stdout, or stderr where
 * stdout carries something else); "unix:PATH" or "tcp:HOST:PORT" (HOST a
 * name, an IPv4 address or [IPv6]; a name is resolved here, once) for a
 * collector.  NULL with errno set on a bad destination (EINVAL for a
 * malformed address).
 */
struct trace_writer *tw_open(const char *dest, int dashfd);
/* One event, stamped with the real-time clock: NODE (0 for "-"), then the
 * event and its keys as printf would make them, without a newline. */
void		 tw_event(struct trace_writer *, unsigned node,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* As tw_event, with a given time stamp. */
void		 tw_event_at(struct trace_writer *, trace_time, unsigned node,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Writes what it can of the queue (connecting first if it is time); returns
 * the fd to poll for POLLOUT, or -1.  Callers with a poll loop use
 * tw_pollfd() and tw_tick() instead. */
int		 tw_flush(struct trace_writer *);
/* Fills *PFD with what the writer waits for (fd -1 for nothing) and returns
 * the most milliseconds the caller may wait before calling tw_tick() (-1
 * for no limit). */
int		 tw_pollfd(const struct trace_writer *, struct pollfd *pfd);
/* After poll: reads acknowledgements, notices a lost connection, connects
 * again when due, writes what it can.  Never blocks. */
void		 tw_tick(struct trace_writer *);
/* A collector's writer proves NODE (0: "-") with the cluster KEY (32
 * bytes, copied) on every connection before it sends a line, answering
 * the collector's challenge (elect-trace collect -k).  It waits for the
 * collector's greeting first: one that wants no proof says so, one that
 * says nothing for 2 s is taken to want none.  Files and streams:
 * nothing. */
int		 tw_auth(struct trace_writer *, const uint8_t key[32],
		    unsigned node);
/* Whether queued lines wait for the fd to become writable. */
int		 tw_pending(const struct trace_writer *);
/* Whether the destination is reachable now (always, but for sockets). */
int		 tw_connected(const struct trace_writer *);
/* Reopens a file destination (SIGHUP, log rotation); others: nothing. */
int		 tw_reopen(struct trace_writer *);
/* Lines lost so far, reported or not. */
uint64_t	 tw_lost(const struct trace_writer *);
/* Lines lost whose "lost" line is not queued yet: 0 once lines go out
 * again. */
uint64_t	 tw_unreported(const struct trace_writer *);
/* Logs when lines begin to be lost (trace-lost) and when they go out
 * again (trace-resumed, with how many were lost between), as NODE
 * writing to DEST: the trace cannot say so while it is what fails.
 * Called after every tw_tick(). */
void		 tw_watch(struct trace_writer *, unsigned node,
		    const char *dest);
/* Flushes (and for a socket waits for the collector to have read it all),
 * waiting at most TIMEOUT_MS, and frees. */
void		 tw_close(struct trace_writer *, int timeout_ms);
/* The real-time clock, which stamps lines, in nanoseconds (waits are on
 * mono_now(), util/util.h). */
trace_time	 tw_now(void);

#endif
