/*
 * The client room of elect-node: processes that ask a running daemon
 * through its control socket (lib/ctl) and never touch its state:
 * --status (status.c), --edict and --follow-edicts (edict.c), and
 * --run-if-leader (runif.c), which guards a command by the daemon's word.
 */
#ifndef ELECT_NODE_CLIENT_H
#define ELECT_NODE_CLIENT_H

#include <stddef.h>

#include "../elect-node.h"
#include "ctl/ctl.h"

#define CLIENT_WAIT_MS	2000	/* how long a request waits for its reply */
#define EXIT_NODAEMON	3	/* no daemon answered, or it went away */
#define EXIT_DENIED	5	/* the socket or its directory refused us */
#define EXIT_BUSY	6	/* the daemon runs, but had no slot */

/* Why client_ask() failed when the daemon answered only busy. */
extern const char client_busy[];

/* Connects to the daemon of DIR and sends REQ (without "elect 1 " and
 * newline): the socket, or -1 with *WHY said.  NONBLOCK: the socket does
 * not block. */
int	client_connect(const char *dir, const char *req, int nonblock,
	    const char **why);
/* Sends REQ and reads one reply line into REPLY, waiting at most
 * WAIT_MS: 0, or -1 when no daemon answers, with *WHY said. */
int	client_ask(const char *dir, const char *req, char *reply, size_t len,
	    int wait_ms, const char **why);
/* Whether REPLY, a line without its newline, is the daemon's busy: every
 * slot taken (err busy), or too many clients wait (err busy (N ...)). */
int	client_busy_line(const char *reply);

#endif
