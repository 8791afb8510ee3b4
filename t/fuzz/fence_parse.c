/*
 * elect-fence's fence file parser on arbitrary bytes, against a second,
 * plain reading of the format: both take or refuse the same files, agree
 * on the token of the name asked for, and the text is left as it was.
 * The first byte picks the name.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fence/fence.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const char *const names[] = { "-", "backup", "a", "9" };

/* Whether S..E is a token: digits only, at most LLONG_MAX. */
static int
token_of(const char *s, const char *e, long long *v)
{
	unsigned long long t = 0;

	if (s == e)
		return 0;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9' ||
		    t > (LLONG_MAX - (unsigned)(*s - '0')) / 10)
			return 0;
		t = t * 10 + (unsigned)(*s - '0');
	}
	*v = (long long)t;
	return 1;
}

static int
plain(const char *text, size_t len, const char *name, long long *token)
{
	const char *p = text, *end = text + len, *nl, *sp;
	char n[FENCE_NAME_MAX + 1];
	long long v;

	*token = -1;
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL ||
		    (sp = memchr(p, ' ', (size_t)(nl - p))) == NULL ||
		    sp - p > FENCE_NAME_MAX || memchr(p, '\0', (size_t)(nl - p)))
			return -1;
		memcpy(n, p, (size_t)(sp - p));
		n[sp - p] = '\0';
		if (!fence_name_ok(n) || !token_of(sp + 1, nl, &v))
			return -1;
		if (strcmp(n, name) == 0) {
			if (*token != -1)
				return -1;
			*token = v;
		}
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *name;
	char *text;
	long long t1, t2;
	int r1, r2;

	if (size == 0 || size > FENCE_TEXT_MAX)
		return 0;
	name = names[data[0] % (sizeof(names) / sizeof(names[0]))];
	data++;
	size--;
	if ((text = malloc(size + 1)) == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	r1 = fence_parse(text, size, name, &t1);
	if (memcmp(text, data, size) != 0 || text[size] != '\0')
		abort();
	r2 = plain(text, size, name, &t2);
	if (r1 != r2 || (r1 == 0 && t1 != t2))
		abort();
	free(text);
	return 0;
}
