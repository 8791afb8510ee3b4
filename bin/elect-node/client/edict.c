/*
 * elect-node --edict and --follow-edicts: publish an edict through the
 * leader's daemon, and print the edicts this node's daemon delivers.
 * Edict texts travel hex-encoded, as one argument of a control line.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "client.h"
#include "algo/algo.h"
#include "util/util.h"

#define HEX_MAX		(2 * ALGO_EDICT_MAX + 1)

/* "ok" or "err", the fields or the reason; -1 on a reply that is neither. */
static int
parse_reply(const char *dir, const char *reply, struct ctl_str *rest)
{
	const char *why;
	int ok;

	if ((why = ctl_parse_reply(reply, strlen(reply), &ok, rest)) != NULL) {
		warnx("%s/control: bad reply (%s)", dir, why);
		return -1;
	}
	return ok;
}

int
client_edict(const char *dir, const char *text)
{
	char req[sizeof("edict ") + HEX_MAX], reply[CTL_LINE_MAX];
	struct ctl_str rest, ldr;
	const char *why;
	size_t len = strlen(text);

	if (len == 0 || len > ALGO_EDICT_MAX)
		errx(EXIT_USAGE, "--edict: 1 to %d bytes of text", ALGO_EDICT_MAX);
	memcpy(req, "edict ", 6);
	sodium_bin2hex(req + 6, HEX_MAX, (const unsigned char *)text, len);
	if (client_ask(dir, req, reply, sizeof(reply), CLIENT_WAIT_MS, &why) == -1) {
		warnx("%s/control: %s", dir, why);
		return why == client_busy ? EXIT_BUSY : EXIT_NODAEMON;
	}
	switch (parse_reply(dir, reply, &rest)) {
	case 1:
		printf("%.*s\n", (int)rest.n, rest.p);
		return 0;
	case 0:
		if (ctl_field(rest, "leader", &ldr)) {
			warnx("not the leader; the leader is %s%.*s",
			    ctl_str_eq(ldr, "-") ? "unknown" : "node ",
			    ctl_str_eq(ldr, "-") ? 0 : (int)ldr.n, ldr.p);
			return EXIT_NO;
		}
		warnx("%.*s", (int)rest.n, rest.p);
		return EXIT_USAGE;
	}
	return EXIT_NODAEMON;
}

/* One line of the stream: an edict to print, or one refused to report. */
static void
follow_line(const char *dir, const char *line)
{
	struct ctl_str rest, from, tok, seq, del, hex;
	char text[ALGO_EDICT_MAX + 1];
	size_t len;

	if (parse_reply(dir, line, &rest) != 1)
		return;
	if (!ctl_field(rest, "from", &from) || !ctl_field(rest, "token", &tok) ||
	    !ctl_field(rest, "seq", &seq) || !ctl_field(rest, "delivered", &del) ||
	    !ctl_field(rest, "text", &hex) ||
	    sodium_hex2bin((unsigned char *)text, sizeof(text) - 1, hex.p,
	    hex.n, NULL, &len, NULL) != 0)
		return;
	text[len] = '\0';
	if (ctl_str_eq(del, "yes")) {
		printf("%.*s %.*s %.*s %s\n", (int)from.n, from.p, (int)tok.n,
		    tok.p, (int)seq.n, seq.p, text);
		fflush(stdout);
	} else
		warnx("refused edict %.*s of node %.*s (token %.*s): older "
		    "than one delivered", (int)seq.n, seq.p, (int)from.n,
		    from.p, (int)tok.n, tok.p);
}

int
client_follow(const char *dir)
{
	char buf[CTL_LINE_MAX * 4], *nl;
	size_t len = 0;
	ssize_t n;
	const char *why;
	struct ctl_str rest;
	int fd, rc, first = 1;

	if ((fd = client_connect(dir, "follow-edicts", 0, &why)) == -1) {
		warnx("%s/control: %s", dir, why);
		return EXIT_NODAEMON;
	}
	for (;;) {
		n = read(fd, buf + len, sizeof(buf) - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		while ((nl = memchr(buf, '\n', len)) != NULL) {
			*nl = '\0';
			if (first) {
				first = 0;
				if ((rc = parse_reply(dir, buf, &rest)) != 1) {
					if (rc == 0)
						warnx("%s/control: %.*s", dir,
						    (int)rest.n, rest.p);
					close(fd);
					return rc == -1 ? EXIT_NODAEMON :
					    client_busy_line(buf) ? EXIT_BUSY :
					    EXIT_USAGE;
				}
			} else
				follow_line(dir, buf);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
		}
		if (len == sizeof(buf))
			len = 0;	/* a line beyond the protocol's */
	}
	close(fd);
	warnx("%s/control: the daemon went away", dir);
	return EXIT_NODAEMON;
}
