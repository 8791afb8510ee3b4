/*
 * elect-sim's event parser (-e) on arbitrary bytes: it refuses or reads
 * an event that, written back, reads again as the same event.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sched.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t ids[] = { 1, 2, 3, 7, 100, 65535 };
	const size_t n = sizeof(ids) / sizeof(ids[0]);
	struct sched a, b;
	char why[256], line[SCHED_LINE_MAX + 64];
	int len;

	if (sched_parse((const char *)data, size, ids, n, &a, why,
	    sizeof(why)) == -1) {
		if (why[0] == '\0')
			abort();
		return 0;
	}
	len = sched_format(&a, ids, n, line, sizeof(line));
	if (len < 0 || (size_t)len >= sizeof(line))
		abort();
	if (sched_parse(line, (size_t)len, ids, n, &b, why,
	    sizeof(why)) == -1)
		abort();
	if (a.at != b.at || a.op != b.op || strcmp(a.text, b.text) != 0 ||
	    (a.side == NULL) != (b.side == NULL) ||
	    (a.side != NULL && memcmp(a.side, b.side, n) != 0) ||
	    (a.side == NULL && a.op != S_HEAL && a.a != b.a) ||
	    ((a.op == S_CUT || a.op == S_MEND || a.op == S_MISCONF) &&
	    a.b != b.b))
		abort();
	sched_free(&a);
	sched_free(&b);
	return 0;
}
