/* Strict parsing of command-line values: a bad value stops with exit 2. */
#include <ctype.h>
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

int
arg_try_num(const char *s, long long min, long long max, const char *what,
    long long *v, char *err, size_t errlen)
{
	const char *errstr;

	/* strtonum() would take leading blanks and a plus sign. */
	if (!isdigit((unsigned char)s[0]) &&
	    !(s[0] == '-' && min < 0 && isdigit((unsigned char)s[1]))) {
		snprintf(err, errlen, "%s: \"%s\" is not a whole number (%lld "
		    "to %lld)", what, s, min, max);
		return -1;
	}
	*v = strtonum(s, min, max, &errstr);
	if (errstr != NULL) {
		snprintf(err, errlen, "%s: \"%s\" is %s (%lld to %lld)", what,
		    s, errstr, min, max);
		return -1;
	}
	return 0;
}

long long
arg_num(const char *s, long long min, long long max, const char *what)
{
	char err[256];
	long long v;

	if (arg_try_num(s, min, max, what, &v, err, sizeof(err)) == -1)
		errx(EXIT_USAGE, "%s", err);
	return v;
}

trace_time
arg_seconds(const char *s, const char *what)
{
	trace_time t;

	if (trace_parse_time(s, strlen(s), &t) == -1)
		errx(EXIT_USAGE, "%s: \"%s\" is not a number of seconds", what,
		    s);
	return t;
}

unsigned
arg_id(const char *s, const char *what)
{
	return (unsigned)arg_num(s, 1, TRACE_NODE_MAX, what);
}

void
print_version(void)
{
	printf("%s %s\n", getprogname(), ELECT_VERSION);
	exit(0);
}
