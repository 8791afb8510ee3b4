/*
 * testament-drive's driver: what the testament parser makes of a file.
 */
#include <stdio.h>

#include "guard/testament.h"
#include "drive.h"

int
testament_drive(const char *buf, size_t len, FILE *out)
{
	struct testament t;
	char why[256];
	size_t i;

	if (testament_parse(buf, len, &t, why, sizeof(why)) == -1) {
		fprintf(out, "error: %s\n", why);
		return 1;
	}
	fprintf(out, "node=%u pid=%lld inc=%llu from=%s:%u peers=%zu\n", t.node,
	    t.pid, (unsigned long long)t.inc, t.host, t.port, t.n);
	for (i = 0; i < t.n; i++)
		fprintf(out, "to %u %s:%u %zu\n", t.to[i].id, t.to[i].host,
		    t.to[i].port, t.to[i].len);
	testament_free(&t);
	return 0;
}
