/*
 * testament-drive: reads a daemon's testament (guard/testament.h) on
 * stdin and prints what the parser makes of it, for edge-case tests:
 *
 *	node=ID pid=PID inc=INC from=HOST:PORT peers=N
 *	to ID HOST:PORT BYTES		one per peer
 *
 * or "error: WHY" (exit 1).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "guard/testament.h"

int
main(void)
{
	struct testament t;
	char *buf, why[256];
	size_t len = 0;
	ssize_t n;
	size_t i;

	if ((buf = malloc(TESTAMENT_FILE_MAX + 2)) == NULL)
		err(1, NULL);
	while (len <= TESTAMENT_FILE_MAX && (n = read(0, buf + len,
	    TESTAMENT_FILE_MAX + 2 - len)) > 0)
		len += (size_t)n;
	if (testament_parse(buf, len, &t, why, sizeof(why)) == -1) {
		printf("error: %s\n", why);
		free(buf);
		return 1;
	}
	printf("node=%u pid=%lld inc=%llu from=%s:%u peers=%zu\n", t.node,
	    t.pid, (unsigned long long)t.inc, t.host, t.port, t.n);
	for (i = 0; i < t.n; i++)
		printf("to %u %s:%u %zu\n", t.to[i].id, t.to[i].host,
		    t.to[i].port, t.to[i].len);
	testament_free(&t);
	free(buf);
	return 0;
}
