/*
 * --socket-group GROUP: the group that may use the control socket, by
 * name, or by number if no group has that name; --operator-group GROUP,
 * the group that may also change what the node does (edicts,
 * reconfigure).  Either must exist: a typo must not leave the socket to
 * a group nobody meant.
 */
#include <sys/types.h>

#include <err.h>
#include <grp.h>
#include <string.h>

#include "elect-node.h"
#include "util/util.h"

#define GROUP_NAME_MAX	64

static const struct group *
find_group(const char *s, const char *flag)
{
	struct group *gr;
	long long v;
	size_t n = strlen(s);

	if (n == 0 || n >= GROUP_NAME_MAX)
		errx(EXIT_USAGE, "%s: \"%s\" is not a group name", flag, s);
	if ((gr = getgrnam(s)) == NULL && strspn(s, "0123456789") == n) {
		v = arg_num(s, 0, GID_ARG_MAX, flag);
		gr = getgrgid((gid_t)v);
	}
	if (gr == NULL)
		errx(EXIT_USAGE, "%s: no group \"%s\"", flag, s);
	return gr;
}

void
arg_group(const char *s, struct node_opts *o)
{
	const struct group *gr = find_group(s, "--socket-group");

	o->socket_gid = gr->gr_gid;
	o->socket_group = 1;
	strlcpy(o->socket_group_name, gr->gr_name,
	    sizeof(o->socket_group_name));
}

void
arg_operator_group(const char *s, struct node_opts *o)
{
	const struct group *gr = find_group(s, "--operator-group");

	o->operator_gid = gr->gr_gid;
	o->operator_group = 1;
	strlcpy(o->operator_group_name, gr->gr_name,
	    sizeof(o->operator_group_name));
}
