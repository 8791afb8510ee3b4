/*
 * An epoch change's text (CHANGE, and the state directory's file) on
 * arbitrary bytes: what the parser takes obeys the rules of a change,
 * and reads back, once written, to the same text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/epoch.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[CLUSTER_FILE_MAX], again[CLUSTER_FILE_MAX];
	struct epoch_change c, d;
	char err[512];
	size_t len, len2, i;

	if (size > 64 * 1024)
		return 0;
	if (epoch_change_parse((const char *)data, size, "fuzz", &c, err,
	    sizeof(err)) == -1)
		return 0;
	if (c.next.epoch != c.prev.epoch + 1 || c.next.n == 0 ||
	    c.ndead >= c.prev.n)
		abort();
	for (i = 0; i < c.ndead; i++)
		if (cluster_find(&c.prev, c.dead[i]) == NULL)
			abort();
	if ((len = epoch_change_format(&c, text, sizeof(text))) == 0 ||
	    epoch_change_parse(text, len, "fuzz", &d, err, sizeof(err)) == -1)
		abort();
	len2 = epoch_change_format(&d, again, sizeof(again));
	if (len2 != len || memcmp(text, again, len) != 0 ||
	    memcmp(c.dtext, d.dtext, EPOCH_DIGEST) != 0)
		abort();
	epoch_change_free(&c);
	epoch_change_free(&d);
	return 0;
}
