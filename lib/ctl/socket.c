/*
 * Where a node's control socket lives: "control" in its state directory.
 * The daemon binds it, the clients connect to it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl/ctl.h"

int
ctl_socket_path(struct sockaddr_un *sun, const char *dir)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if ((size_t)snprintf(sun->sun_path, sizeof(sun->sun_path), "%s/%s",
	    dir, CTL_NAME) >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}
