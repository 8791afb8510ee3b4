/*
 * What the transcript drivers (algo-drive, guard-drive) share: the line
 * being read, a bad line's error, and times in milliseconds.  Each driver
 * is one program of one file, so these are static, for it alone.
 */
#ifndef ELECT_T_SCRIPT_H
#define ELECT_T_SCRIPT_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"
#include "trace/trace.h"
#include "util/util.h"

static unsigned long lineno;	/* of the script, for errors */

static void __attribute__((noreturn, format(printf, 1, 2)))
bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: line %lu: ", getprogname(), lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

/* Milliseconds, up to 6 decimals, without trailing zeros. */
static const char *
fmt_ms(algo_time t, char *buf, size_t len)
{
	char *p;

	snprintf(buf, len, "%s%" PRId64 ".%06" PRId64, t < 0 ? "-" : "",
	    (t < 0 ? -(t / ALGO_MS) : t / ALGO_MS), (t < 0 ? -t : t) % ALGO_MS);
	p = buf + strlen(buf) - 1;
	while (*p == '0')
		*p-- = '\0';
	if (*p == '.')
		*p = '\0';
	return buf;
}

/* A time in milliseconds, up to 6 decimals, not negative. */
static algo_time
parse_ms(const char *s)
{
	trace_time t;

	/* trace_parse_time reads seconds; a millisecond has 6 digits. */
	if (trace_parse_time(s, strlen(s), &t) == -1 || t < 0 ||
	    t > INT64_MAX / 1000)
		bad("bad time \"%s\"", s);
	return t / 1000;
}

/* The blank-separated fields of LINE, cut in place, at most MAX of
 * them: how many, 0 for a blank line or a comment. */
static int
fields(char *line, char **argv, int max)
{
	char *p;
	int argc = 0;

	while ((p = strsep(&line, " \t")) != NULL) {
		if (*p == '\0')
			continue;
		if (argc == max)
			bad("too many fields");
		argv[argc++] = p;
	}
	if (argc > 0 && argv[0][0] == '#')
		return 0;
	return argc;
}

/* KEY=VALUE, cut in two in place. */
static void
split(char *kv, char **key, char **value)
{
	char *eq;

	if ((eq = strchr(kv, '=')) == NULL)
		bad("\"%s\" is not key=value", kv);
	*eq = '\0';
	*key = kv;
	*value = eq + 1;
}

#endif
