/*
 * What a reader checks of a raw line before decoding it: the trace reader's
 * and those that cut lines themselves (the merge, the collector).
 */
#include <string.h>

#include "trace/trace.h"

int
trace_blank(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '#')
			return 1;
		if (p[i] != ' ' && p[i] != '\t')
			return 0;
	}
	return 1;
}

const char *
trace_raw_check(const char *line, size_t len)
{
	if (len >= TRACE_LINE_MAX)
		return "line too long";
	if (memchr(line, '\0', len) != NULL)
		return "NUL byte in line";
	if (len > 0 && line[len - 1] == '\r')
		return "carriage return in line";
	return NULL;
}
