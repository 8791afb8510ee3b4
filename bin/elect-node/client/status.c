/*
 * elect-node --status: the daemon's status line (or, with --json, one
 * JSON object of its fields), and who leads: 0 this node, 1 another
 * (this node follows it), EXIT_NOLEADER none known.  With -n NAME the
 * same of named leadership NAME.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "util/util.h"

/* JSON of LEN bytes of fields, at most: escapes and brackets. */
#define JSON_MAX(len)	(4 * (len) + 64)

/*
 * Every name the daemon knows, page by page (`names after=NAME'): the
 * value of a names= field, allocated; NULL if a page did not come.
 */
static char *
all_names(const char *dir)
{
	/* A name is at most 64 bytes (lib/host/names.h, HNAMES_LEN). */
	char reply[CTL_LINE_MAX], req[CTL_LINE_MAX], after[128] = "";
	struct ctl_str rest, v, more;
	const char *why, *last;
	char *all = NULL, *p;
	size_t len = 0, n;
	int ok;

	for (;;) {
		snprintf(req, sizeof(req), "names%s%s", after[0] != '\0' ?
		    " after=" : "", after);
		if (client_ask(dir, req, reply, sizeof(reply), CLIENT_WAIT_MS,
		    &why) == -1 || ctl_parse_reply(reply, strlen(reply), &ok,
		    &rest) != NULL || !ok) {
			free(all);
			return NULL;
		}
		if (!ctl_field(rest, "names", &v) || v.n == 0)
			break;
		if ((p = realloc(all, len + v.n + 2)) == NULL)
			err(1, NULL);
		all = p;
		if (len > 0)
			all[len++] = ',';
		memcpy(all + len, v.p, v.n);
		len += v.n;
		all[len] = '\0';
		if (!ctl_field(rest, "more", &more))
			break;
		/* The next page starts after the last name of this one. */
		for (last = v.p + v.n; last > v.p && last[-1] != ','; last--)
			;
		n = strcspn(last, "/");
		if (n == 0 || n >= sizeof(after) || last + n > v.p + v.n) {
			free(all);
			return NULL;
		}
		memcpy(after, last, n);
		after[n] = '\0';
	}
	return all;
}

/*
 * The status's fields REST with every name the daemon knows, when they
 * did not fit in its line (names_cut=): allocated into *BUF, or REST as
 * it is if the names could not be had.
 */
static struct ctl_str
with_names(const char *dir, struct ctl_str rest, char **buf)
{
	struct ctl_str f, cut;
	size_t pos = 0, len = 0, room;
	char *names;

	*buf = NULL;
	if (!ctl_field(rest, "names_cut", &cut) ||
	    (names = all_names(dir)) == NULL)
		return rest;
	room = rest.n + strlen(names) + 16;
	if ((*buf = malloc(room)) == NULL)
		err(1, NULL);
	while ((f = ctl_next_field(rest.p, rest.n, &pos)).n > 0) {
		if ((f.n > 6 && memcmp(f.p, "names=", 6) == 0) ||
		    (f.n > 10 && memcmp(f.p, "names_cut=", 10) == 0))
			continue;
		len += (size_t)snprintf(*buf + len, room - len, "%s%.*s",
		    len > 0 ? " " : "", (int)f.n, f.p);
	}
	len += (size_t)snprintf(*buf + len, room - len, " names=%s", names);
	free(names);
	return (struct ctl_str){ *buf, len };
}

int
client_status(const char *dir, int json, const char *name)
{
	char reply[CTL_LINE_MAX], req[CTL_LINE_MAX], *out, *buf = NULL;
	struct ctl_str rest, role, ldr;
	const char *why;
	int ok, rc;

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
	if (name == NULL)
		rest = with_names(dir, rest, &buf);
	if ((out = malloc(JSON_MAX(rest.n))) == NULL)
		err(1, NULL);
	rc = EXIT_NOLEADER;
	if (!json)
		printf("%.*s\n", (int)rest.n, rest.p);
	else if (ctl_status_json(rest, out, JSON_MAX(rest.n)) == 0)
		printf("%s\n", out);
	else {
		warnx("%s/" CTL_NAME ": a status --json cannot render: %.*s",
		    dir, (int)rest.n, rest.p);
		rc = EXIT_NODAEMON;
	}
	if (rc == EXIT_NODAEMON || !ctl_field(rest, "role", &role))
		;
	else if (ctl_str_eq(role, "leader"))
		rc = 0;
	else if (ctl_str_eq(role, "follower") &&
	    ctl_field(rest, "leader", &ldr) && !ctl_str_eq(ldr, "-"))
		rc = EXIT_NO;
	free(out);
	free(buf);
	return rc;
}
