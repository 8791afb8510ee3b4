/*
 * The control protocol of elect-node: lines over a unix socket.  A client
 * sends "elect VERSION COMMAND [ARG ...]" and gets one line back for each
 * request, "ok [KEY=VALUE ...]" or "err WHY".  elect-node(1) documents the
 * commands; new ones are added to the daemon's table, never by changing
 * the shape of a line.
 */
#ifndef ELECT_CTL_H
#define ELECT_CTL_H

#include <sys/socket.h>
#include <sys/un.h>

#include <stddef.h>

#define CTL_VERSION	1	/* the version this build speaks */
#define CTL_LINE_MAX	1024	/* longest line, newline included */
#define CTL_ARGS_MAX	16	/* most arguments after the command */
#define CTL_CMD_MAX	24	/* longest command word */
#define CTL_NAME	"control"	/* the socket, in the state directory */

/* A slice of a line. */
struct ctl_str {
	const char	*p;
	size_t		 n;
};

struct ctl_req {
	unsigned	 version;
	struct ctl_str	 cmd;
	int		 argc;
	struct ctl_str	 argv[CTL_ARGS_MAX];
	struct ctl_str	 rest;		/* everything after the command */
};

/*
 * Parses one request line of LEN bytes (without its newline): NULL on
 * success, else why it was refused.  Slices point into LINE.
 */
const char	*ctl_parse_req(const char *line, size_t len, struct ctl_req *);

/*
 * Parses one reply line: NULL on success with *OK set and *REST the text
 * after "ok" or "err" (fields or the reason), else why it was refused.
 */
const char	*ctl_parse_reply(const char *line, size_t len, int *ok,
		    struct ctl_str *rest);

/* The value of KEY among the KEY=VALUE fields of FIELDS; 0 if absent. */
int		 ctl_field(struct ctl_str fields, const char *key,
		    struct ctl_str *val);

int		 ctl_str_eq(struct ctl_str, const char *);

/* The next field of LINE (LEN bytes) from *POS, fields separated by runs
 * of spaces or tabs; an empty slice at the end. */
struct ctl_str	 ctl_next_field(const char *line, size_t len, size_t *pos);

/* The address of the control socket of state directory DIR; -1 with
 * errno ENAMETOOLONG if it does not fit. */
int		 ctl_socket_path(struct sockaddr_un *, const char *dir);

/*
 * The core's status fields EXTRA with every KEY_until=SECONDS, a time on
 * CLOCK_MONOTONIC, as KEY_left=SECONDS left at NOW (ns), and without
 * token= (a field of the status of its own): 0, or -1 if OUT is short.
 */
int		 ctl_status_extra(const char *extra, long long now, char *out,
		    size_t len);

/*
 * The fields of a status reply as one JSON object: the same keys, numbers
 * as numbers, "-" as null, peers=ID/AGE/DETECTOR/MISMATCH,... and
 * names=NAME/HOLDER/TOKEN/LEFT/REGISTRATIONS,... as arrays of objects.  0, or -1 if a field is malformed or OUT is short.
 */
int		 ctl_status_json(struct ctl_str fields, char *out, size_t len);

#endif
