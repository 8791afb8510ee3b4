/*
 * The state directory: where a node's stable storage, pid file and
 * control socket live.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "elect-node.h"

/*
 * root: /var/lib/elect/ID; others: $XDG_STATE_HOME/elect/ID, else
 * $HOME/.local/state/elect/ID.  Never a directory that is emptied at
 * boot: the incarnation number must survive reboots, or peers would take
 * the node's new messages for replays of its old ones.
 */
int
default_statedir(unsigned id, char *buf, size_t len)
{
	const char *base;
	int n;

	if (geteuid() == 0)
		n = snprintf(buf, len, "/var/lib/elect/%u", id);
	else if ((base = getenv("XDG_STATE_HOME")) != NULL && base[0] == '/')
		n = snprintf(buf, len, "%s/elect/%u", base, id);
	else if ((base = getenv("HOME")) != NULL && base[0] == '/')
		n = snprintf(buf, len, "%s/.local/state/elect/%u", base, id);
	else
		return -1;
	return n < 0 || (size_t)n >= len ? -1 : 0;
}
