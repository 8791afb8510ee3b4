/*
 * Merging traces: events of several files in time order, stable (for equal
 * times, the earlier file first, then the order within the file), each file
 * checked to be in order itself.  Streaming, in memory bounded whatever the
 * number of files: at most MERGE_FANIN files are read at once (the file
 * limit raised to fit), and more are merged in passes through temporary
 * files.
 */
#ifndef ELECT_MERGE_H
#define ELECT_MERGE_H

#include "trace/trace.h"

#define MERGE_FANIN	1024

/*
 * Flags.  MERGE_LINES checks only the form of each line (TIME NODE EVENT
 * KEY=VALUE ..., a known event) and fills in t, node, type, line, file and
 * lineno of the events; without it every line is decoded and checked in
 * full, as trace_next() does.
 */
#define MERGE_LINES	0x1

struct merge;

/* FILES: names, "-" for stdin; none: stdin.  NULL only without memory;
 * an error opening a file is reported by merge_next(). */
struct merge	*merge_open(char *const *files, int nfiles, int flags);
/* 1: the next event in *EV (valid until the next call); 0: the end;
 * -1: an error, see merge_error(). */
int		 merge_next(struct merge *, struct trace_event *ev);
/* Writes the rest of the merge to FD, one line per event; 0 or -1 (errno
 * set and merge_error() empty on a write error). */
int		 merge_write(struct merge *, int fd);
/* "FILE:LINE: why" for the last error. */
const char	*merge_error(const struct merge *);
void		 merge_close(struct merge *);

#endif
