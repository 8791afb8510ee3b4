/*
 * What the transcript drivers share: a bad line's error, times in
 * milliseconds, fields and KEY=VALUE.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"
#include "util/util.h"
#include "drive.h"

unsigned long drive_lineno;
jmp_buf *drive_catch;
char drive_caught[256];
int drive_echo;

void
drive_bad(const char *fmt, ...)
{
	va_list ap;

	if (drive_catch != NULL) {
		va_start(ap, fmt);
		vsnprintf(drive_caught, sizeof(drive_caught), fmt, ap);
		va_end(ap);
		longjmp(*drive_catch, 1);
	}
	fflush(stdout);
	fprintf(stderr, "%s: line %lu: ", getprogname(), drive_lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

long long
drive_num(const char *s, long long min, long long max, const char *what)
{
	char err[256];
	long long v;

	if (arg_try_num(s, min, max, what, &v, err, sizeof(err)) == -1)
		drive_bad("%s", err);
	return v;
}

unsigned
drive_id(const char *s, const char *what)
{
	return (unsigned)drive_num(s, 1, TRACE_NODE_MAX, what);
}

const char *
drive_fmt_ms(algo_time t, char *buf, size_t len)
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

algo_time
drive_parse_ms(const char *s)
{
	trace_time t;

	/* trace_parse_time reads seconds; a millisecond has 6 digits. */
	if (trace_parse_time(s, strlen(s), &t) == -1 || t < 0 ||
	    t > INT64_MAX / 1000)
		drive_bad("bad time \"%s\"", s);
	return t / 1000;
}

int
drive_fields(char *line, char **argv, int max)
{
	char *p;
	int argc = 0;

	while ((p = strsep(&line, " \t")) != NULL) {
		if (*p == '\0')
			continue;
		if (argc == max)
			drive_bad("too many fields");
		argv[argc++] = p;
	}
	if (argc > 0 && argv[0][0] == '#')
		return 0;
	return argc;
}

int
drive_input(char *line, char **argv, int max, FILE *out)
{
	int argc, i;

	if ((argc = drive_fields(line, argv, max)) == 0)
		return 0;
	if (argc < 2)
		drive_bad("expected TIME INPUT");
	if (drive_echo) {
		fprintf(out, ">");
		for (i = 0; i < argc; i++)
			fprintf(out, " %s", argv[i]);
		fprintf(out, "\n");
	}
	return argc;
}

void
drive_stdin(void (*line)(char *, FILE *))
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&buf, &cap, stdin)) != -1) {
		drive_lineno++;
		if (len > 0 && buf[len - 1] == '\n')
			buf[len - 1] = '\0';
		line(buf, stdout);
	}
	free(buf);
}

void
drive_split(char *kv, char **key, char **value)
{
	char *eq;

	if ((eq = strchr(kv, '=')) == NULL)
		drive_bad("\"%s\" is not key=value", kv);
	*eq = '\0';
	*key = kv;
	*value = eq + 1;
}
