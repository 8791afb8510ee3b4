/* The configuration-file parser on arbitrary text, plain and as a cluster
 * file: every setting it hands on is well formed, in order, and every
 * error names the file and line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static unsigned last;

static const char *
each(void *arg, const struct conf_item *it)
{
	const char *v;

	if (it->line <= last || strlen(it->key) == 0 ||
	    strlen(it->key) > CONF_KEY_MAX || it->value[0] == '\0' ||
	    strspn(it->key, "abcdefghijklmnopqrstuvwxyz0123456789-") !=
	    strlen(it->key))
		abort();
	for (v = it->value; *v != '\0'; v++)
		if ((unsigned char)*v <= ' ' || *v == 0x7f || *v == '#')
			abort();
	last = it->line;
	return it->key[0] == 'x' ? "refused" : NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	int how;

	for (how = CONF_PLAIN; how <= CONF_CLUSTER; how++) {
		last = 0;
		if (conf_parse((const char *)data, size, "fuzz", how, each,
		    NULL, err, sizeof(err)) == -1 &&
		    (strncmp(err, "fuzz:", 5) != 0 ||
		    memchr(err, '\0', sizeof(err)) == NULL))
			abort();
	}
	return 0;
}
