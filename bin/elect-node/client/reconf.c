/*
 * elect-node --reconfigure FILE [--force --dead ID,...]: asks the daemon
 * of a member of the running epoch to change the cluster to FILE's
 * membership, the next epoch (share/elect/lease.md, elect-node's part).
 * FILE is checked here first, then sent in hex parts over one
 * connection (reconfigure-part), and the daemon decides (reconfigure).
 */
#include <sys/socket.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "client.h"
#include "net/cluster.h"
#include "util/util.h"

#define PART	400	/* bytes a request line carries, hex-encoded */

/* One reply line on FD into REPLY: 0, or -1. */
static int
read_reply(int fd, char *reply, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < len - 1 && memchr(reply, '\n', got) == NULL) {
		if (poll(&pfd, 1, CLIENT_WAIT_MS) <= 0)
			return -1;
		if ((n = read(fd, reply + got, len - 1 - got)) <= 0)
			return -1;
		got += (size_t)n;
	}
	reply[got] = '\0';
	if (strchr(reply, '\n') == NULL)
		return -1;
	*strchr(reply, '\n') = '\0';
	return 0;
}

/* The next request on FD (the first one went with the connection). */
static int
send_req(int fd, const char *req)
{
	char line[CTL_LINE_MAX];
	int n;

	n = snprintf(line, sizeof(line), "elect %d %s\n", CTL_VERSION, req);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -1;
	return send(fd, line, (size_t)n, MSG_NOSIGNAL) == n ? 0 : -1;
}

int
client_reconf(const char *dir, const char *file, int force, const char *dead)
{
	struct cluster c;
	char why[512], req[CTL_LINE_MAX], reply[CTL_LINE_MAX];
	const char *w;
	struct ctl_str rest;
	size_t len, off, n;
	char *text;
	int fd, ok;

	if (force != (dead != NULL))
		errx(EXIT_USAGE, "--force goes with --dead ID,...: the members "
		    "of the running epoch that are dead, named");
	if ((text = file_read(file, CLUSTER_FILE_MAX, &len, why,
	    sizeof(why))) == NULL)
		errx(EXIT_USAGE, "%s", why);
	if (cluster_parse(text, len, file, &c, why, sizeof(why)) == -1)
		errx(EXIT_USAGE, "%s", why);
	if (c.epoch == 0)
		errx(EXIT_USAGE, "%s: no epoch line: the next epoch's file "
		    "says \"epoch N\" (N the running epoch + 1)", file);
	cluster_free(&c);
	fd = -1;
	for (off = 0; off < len; off += n) {
		n = len - off < PART ? len - off : PART;
		snprintf(req, sizeof(req), "reconfigure-part %zu ", off);
		sodium_bin2hex(req + strlen(req), sizeof(req) - strlen(req),
		    (const unsigned char *)text + off, n);
		if (fd == -1) {
			if ((fd = client_connect(dir, req, 0, &w)) == -1) {
				warnx("%s/control: %s", dir, w);
				free(text);
				return EXIT_NODAEMON;
			}
		} else if (send_req(fd, req) == -1)
			goto gone;
		if (read_reply(fd, reply, sizeof(reply)) == -1)
			goto gone;
		if (ctl_parse_reply(reply, strlen(reply), &ok, &rest) != NULL)
			goto gone;
		if (!ok)
			goto refused;
	}
	free(text);
	text = NULL;
	if (force)
		snprintf(req, sizeof(req), "reconfigure %zu force dead=%s",
		    len, dead);
	else
		snprintf(req, sizeof(req), "reconfigure %zu", len);
	if (send_req(fd, req) == -1 || read_reply(fd, reply,
	    sizeof(reply)) == -1 || ctl_parse_reply(reply, strlen(reply), &ok,
	    &rest) != NULL)
		goto gone;
	close(fd);
	if (!ok) {
		warnx("%.*s", (int)rest.n, rest.p);
		return EXIT_NO;
	}
	printf("%.*s\n", (int)rest.n, rest.p);
	return 0;
refused:
	free(text);
	close(fd);
	if (client_busy_line(reply)) {	/* the node never saw the change */
		warnx("%s/control: %.*s", dir, (int)rest.n, rest.p);
		return EXIT_BUSY;
	}
	warnx("%.*s", (int)rest.n, rest.p);
	return EXIT_NO;
gone:
	free(text);
	if (fd != -1)
		close(fd);
	warnx("%s/control: no reply", dir);
	return EXIT_NODAEMON;
}
