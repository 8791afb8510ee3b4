/* The testament's parser on arbitrary text: what it takes, the writer's
 * lines give back unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard/testament.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct testament t;
	char err[256], line[512];
	size_t i;

	if (testament_parse((const char *)data, size, &t, err,
	    sizeof(err)) == -1) {
		if (strncmp(err, "line ", 5) != 0 || t.n != 0 || t.to != NULL)
			abort();
		return 0;
	}
	if (t.node == 0 || t.port == 0 || t.n > TESTAMENT_PEERS_MAX)
		abort();
	for (i = 0; i < t.n; i++) {
		const struct testament_to *p = &t.to[i];
		size_t n = testament_line(p->id, p->host, p->port, p->dgram,
		    p->len, line, sizeof(line));

		if (p->id == t.node || n == 0 || n > size ||
		    memmem(data, size, line, n) == NULL)
			abort();
	}
	testament_free(&t);
	return 0;
}
