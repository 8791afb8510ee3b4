/*
 * elect-node --status: the daemon's status line (or, with --json, one
 * JSON object of its fields), and who leads: 0 this node, 1 another
 * (this node follows it), EXIT_NOLEADER none known.  With -n NAME the
 * same of named leadership NAME.
 */
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "util/util.h"

#define JSON_MAX	(4 * CTL_LINE_MAX)	/* escapes and brackets */

int
client_status(const char *dir, int json, const char *name)
{
	char reply[CTL_LINE_MAX], out[JSON_MAX], req[CTL_LINE_MAX];
	struct ctl_str rest, role, ldr;
	const char *why;
	int ok;

	if (name != NULL)
		snprintf(req, sizeof(req), "status name=%s", name);
	else
		strlcpy(req, "status", sizeof(req));
	if (client_ask(dir, req, reply, sizeof(reply), CLIENT_WAIT_MS,
	    &why) == -1) {
		warnx("%s/" CTL_NAME ": %s", dir, why);
		return why == client_busy ? EXIT_BUSY : EXIT_NODAEMON;
	}
	if ((why = ctl_parse_reply(reply, strlen(reply), &ok, &rest)) != NULL) {
		warnx("%s/" CTL_NAME ": bad reply (%s)", dir, why);
		return EXIT_NODAEMON;
	}
	if (!ok) {
		warnx("%s/" CTL_NAME ": %.*s", dir, (int)rest.n, rest.p);
		return EXIT_NODAEMON;
	}
	if (!json)
		printf("%.*s\n", (int)rest.n, rest.p);
	else if (ctl_status_json(rest, out, sizeof(out)) == 0)
		printf("%s\n", out);
	else {
		warnx("%s/" CTL_NAME ": a status --json cannot render: %.*s",
		    dir, (int)rest.n, rest.p);
		return EXIT_NODAEMON;
	}
	if (!ctl_field(rest, "role", &role))
		return EXIT_NOLEADER;
	if (ctl_str_eq(role, "leader"))
		return 0;
	if (ctl_str_eq(role, "follower") && ctl_field(rest, "leader", &ldr) &&
	    !ctl_str_eq(ldr, "-"))
		return EXIT_NO;
	return EXIT_NOLEADER;
}
