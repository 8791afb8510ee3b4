/* The cluster-file parser on arbitrary text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/cluster.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cluster c;
	char err[256];
	size_t i;

	if (cluster_parse((const char *)data, size, "fuzz", &c, err,
	    sizeof(err)) == -1) {
		if (strncmp(err, "fuzz", 4) != 0 || memchr(err, '\0',
		    sizeof(err)) == NULL)
			abort();
		return 0;
	}
	for (i = 0; i < c.n; i++) {
		if (c.nodes[i].id == 0 || c.nodes[i].port == 0 ||
		    c.nodes[i].fd_port == c.nodes[i].port ||
		    (i > 0 && c.nodes[i - 1].id >= c.nodes[i].id))
			abort();
	}
	cluster_free(&c);
	return 0;
}
