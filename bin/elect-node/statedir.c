/*
 * The state directory: where a node's stable storage, pid file and
 * control socket live.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "elect-node.h"

#ifndef ELECT_STATE_ROOT
#define ELECT_STATE_ROOT	"/var/lib/elect"
#endif

/* Whether DIR has a control socket, or (DENIED) one this user may not
 * see. */
static int
has_socket(const char *dir, int denied)
{
	char path[PATH_MAX];
	struct stat st;
	int n;

	n = snprintf(path, sizeof(path), "%s/control", dir);
	if (n < 0 || (size_t)n >= sizeof(path))
		return 0;
	return stat(path, &st) == 0 ? S_ISSOCK(st.st_mode) :
	    denied && errno == EACCES;
}

/*
 * root: /var/lib/elect/ID; others: $XDG_STATE_HOME/elect/ID, else
 * $HOME/.local/state/elect/ID.  Never a directory that is emptied at
 * boot: the incarnation number must survive reboots, or peers would take
 * the node's new messages for replays of its old ones.
 *
 * A client (CLIENT) of another user takes the system's directory when its
 * own has no socket and the system's has one, or one it may not see: a
 * --socket-group member reaches the packaged daemon with -i ID alone,
 * and hears "permission denied" there rather than "no daemon".
 */
int
default_statedir(unsigned id, int client, char *buf, size_t len)
{
	char sys[PATH_MAX];
	const char *base;
	int n;

	n = snprintf(sys, sizeof(sys), "%s/%u", ELECT_STATE_ROOT, id);
	if (n < 0 || (size_t)n >= sizeof(sys))
		return -1;
	if (geteuid() == 0)
		n = snprintf(buf, len, "%s", sys);
	else if ((base = getenv("XDG_STATE_HOME")) != NULL && base[0] == '/')
		n = snprintf(buf, len, "%s/elect/%u", base, id);
	else if ((base = getenv("HOME")) != NULL && base[0] == '/')
		n = snprintf(buf, len, "%s/.local/state/elect/%u", base, id);
	else
		n = -1;
	if (client && (n == -1 || ((size_t)n < len && !has_socket(buf, 0))) &&
	    has_socket(sys, 1))
		n = snprintf(buf, len, "%s", sys);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}
