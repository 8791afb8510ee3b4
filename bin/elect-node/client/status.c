/*
 * elect-node --status: the daemon's status line, and whether it leads.
 */
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "util/util.h"

int
client_status(const char *dir)
{
	char reply[CTL_LINE_MAX];
	struct ctl_str rest, role;
	const char *why;
	int ok;

	if (client_ask(dir, "status", reply, sizeof(reply), CLIENT_WAIT_MS,
	    &why) == -1) {
		warnx("%s/" CTL_NAME ": %s", dir, why);
		return EXIT_NODAEMON;
	}
	if ((why = ctl_parse_reply(reply, strlen(reply), &ok, &rest)) != NULL) {
		warnx("%s/" CTL_NAME ": bad reply (%s)", dir, why);
		return EXIT_NODAEMON;
	}
	if (!ok) {
		warnx("%s/" CTL_NAME ": %.*s", dir, (int)rest.n, rest.p);
		return EXIT_NODAEMON;
	}
	printf("%.*s\n", (int)rest.n, rest.p);
	if (ctl_field(rest, "role", &role) && ctl_str_eq(role, "leader"))
		return 0;
	return EXIT_NO;
}
