/*
 * Between the trace reader and the parser, not for other callers: what a
 * reader keeps from line to line to decode the next one faster.
 */
#ifndef ELECT_TRACE_MEMO_H
#define ELECT_TRACE_MEMO_H

#include "trace/trace.h"

#define TRACE_MEMO_QT	256

/* The last quorum timestamp found well formed: the one a leader holds
 * comes again on its lead line, its edicts and every delivery of them. */
struct trace_memo {
	size_t		 qtn;		/* 0: none */
	char		 qt[TRACE_MEMO_QT];
	/* The whole seconds of the last time read, as written with their
	 * point: lines come in time order, and most share them with the
	 * line before. */
	size_t		 sn;		/* 0: none */
	char		 sw[16];
	trace_time	 sec;		/* in ns */
};

/* Bytes after the end of a line that trace_parse_memo() may read (not
 * use) when told that they are there. */
#define TRACE_SLACK	64

/*
 * trace_parse_line() with MEMO (NULL for none) and, if SLACK, the promise
 * that TRACE_SLACK bytes after LINE + LEN may be read.
 */
const char	*trace_parse_memo(const char *line, size_t len,
		    struct trace_event *ev, int flags, char *why, size_t whylen,
		    struct trace_memo *memo, int slack);

/*
 * trace_parse_memo() of the line at BUF that ends at the first newline
 * within AVAIL bytes (TRACE_SLACK more may be read), found in the same
 * pass: *LEN is its length.  NULL, TRACE_SKIP or an error, as
 * trace_parse_memo(); an error also when there is no newline (*LEN is 0).
 */
const char	*trace_parse_scan(const char *buf, size_t avail, size_t *len,
		    struct trace_event *ev, int flags, char *why,
		    size_t whylen, struct trace_memo *memo);

#endif
