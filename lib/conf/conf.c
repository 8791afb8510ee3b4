/*
 * The configuration file parser: strict, bounded, and pure, so that the
 * fuzzer drives it as the daemon does.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "conf/conf.h"

#define BLANKS	" \t"

struct parser {
	const char	*file;
	unsigned	 line;
	char		*err;
	size_t		 errlen;
	char		 keys[CONF_ITEMS_MAX][CONF_KEY_MAX + 1];
	unsigned	 lines[CONF_ITEMS_MAX];
	size_t		 nkeys;
};

static int __attribute__((format(printf, 2, 3)))
fail(struct parser *p, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "%s:%u: %s", p->file, p->line, why);
	return -1;
}

static int
valid_key(const char *k)
{
	size_t i;

	if (k[0] < 'a' || k[0] > 'z')
		return 0;
	for (i = 1; k[i] != '\0'; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') ||
		    (k[i] >= '0' && k[i] <= '9') || k[i] == '-'))
			return 0;
	return i <= CONF_KEY_MAX;
}

/* A setting in S, "KEY VALUE"; S may be changed. */
static int
setting(struct parser *p, char *s, conf_each each, void *arg)
{
	struct conf_item it;
	const char *why;
	char *key, *value;
	size_t i;

	key = strsep(&s, BLANKS);
	if (!valid_key(key))
		return fail(p, "\"%.40s\" is not a key (lower-case letters, "
		    "digits and '-', at most %d)", key, CONF_KEY_MAX);
	if (s != NULL)
		s += strspn(s, BLANKS);
	if (s == NULL || *s == '\0')
		return fail(p, "%s: missing value", key);
	value = strsep(&s, BLANKS);
	if (s != NULL && s[strspn(s, BLANKS)] != '\0')
		return fail(p, "%s takes one value, not \"%s %.40s\"", key,
		    value, s + strspn(s, BLANKS));
	for (i = 0; i < p->nkeys; i++)
		if (strcmp(p->keys[i], key) == 0)
			return fail(p, "%s already set on line %u", key,
			    p->lines[i]);
	if (p->nkeys == CONF_ITEMS_MAX)
		return fail(p, "more than %d settings", CONF_ITEMS_MAX);
	strcpy(p->keys[p->nkeys], key);		/* valid_key() bounds it */
	p->lines[p->nkeys++] = p->line;
	it.key = key;
	it.value = value;
	it.line = p->line;
	if ((why = each(arg, &it)) != NULL)
		return fail(p, "%s", why);
	return 0;
}

static int
parse_line(struct parser *p, char *s, int how, conf_each each, void *arg)
{
	char *hash, *kw;
	size_t n;

	if ((hash = strchr(s, '#')) != NULL)
		*hash = '\0';
	s += strspn(s, BLANKS);
	n = strlen(s);
	while (n > 0 && strchr(BLANKS, s[n - 1]) != NULL)
		s[--n] = '\0';
	if (*s == '\0')
		return 0;
	if (how == CONF_CLUSTER) {
		kw = strsep(&s, BLANKS);
		if (strcmp(kw, "set") != 0)
			return 0;	/* cluster_parse() judges the rest */
		if (s != NULL)
			s += strspn(s, BLANKS);
		if (s == NULL || *s == '\0')
			return fail(p, "set: missing KEY VALUE");
	}
	return setting(p, s, each, arg);
}

int
conf_parse(const char *text, size_t len, const char *file, int how,
    conf_each each, void *arg, char *err, size_t errlen)
{
	struct parser p;
	char line[CONF_LINE_MAX + 1];
	size_t start, end, i;

	memset(&p, 0, sizeof(p));
	p.file = file;
	p.err = err;
	p.errlen = errlen;
	for (start = 0; start < len; start = end + 1) {
		p.line++;
		for (end = start; end < len && text[end] != '\n'; end++)
			;
		if (end - start > CONF_LINE_MAX)
			return fail(&p, "line longer than %d bytes",
			    CONF_LINE_MAX);
		for (i = start; i < end; i++) {
			if (text[i] == '\0')
				return fail(&p, "NUL byte");
			if (text[i] == '\r')
				return fail(&p, "carriage return (use Unix "
				    "line endings)");
			if (text[i] != '\t' && ((unsigned char)text[i] < 0x20 ||
			    text[i] == 0x7f))
				return fail(&p, "control character");
		}
		memcpy(line, text + start, end - start);
		line[end - start] = '\0';
		if (parse_line(&p, line, how, each, arg) == -1)
			return -1;
	}
	return 0;
}
