/* elect-fence's fence file: see fence.h. */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fence/fence.h"

int
fence_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > FENCE_NAME_MAX)
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._:@-") == n;
}

int
fence_parse(char *text, size_t len, const char *name, long long *token)
{
	char *p, *end = text + len, *nl, *sp = NULL;
	const char *errstr;
	long long v;

	*token = -1;
	for (p = text; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL ||
		    memchr(p, '\0', (size_t)(nl - p)) != NULL)
			return -1;
		*nl = '\0';
		if ((sp = strchr(p, ' ')) == NULL)
			goto out;
		*sp = '\0';
		if (!fence_name_ok(p) || !isdigit((unsigned char)sp[1]))
			goto out;
		v = strtonum(sp + 1, 0, LLONG_MAX, &errstr);
		if (errstr != NULL)
			goto out;
		if (strcmp(p, name) == 0) {
			if (*token != -1)
				goto out;
			*token = v;
		}
		*sp = ' ';
		*nl = '\n';
	}
	return 0;
out:
	/* The line as it was. */
	if (sp != NULL && *sp == '\0')
		*sp = ' ';
	*nl = '\n';
	return -1;
}
