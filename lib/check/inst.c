/* Time formatting for the checkers. */
#include <stdlib.h>
#include <string.h>

#include "check/inst.h"

const char *
time_str(char *buf, trace_time t)
{
	if (t == TIME_MAX)
		return "never";
	if (t == TIME_MIN)
		return "the start";
	if (t < 0) {
		buf[0] = '-';
		trace_format_time(-t, buf + 1, TIME_BUFLEN - 1);
		return buf;
	}
	trace_format_time(t, buf, TIME_BUFLEN);
	return buf;
}
