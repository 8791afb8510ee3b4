/*
 * The key file parser on arbitrary bytes: one key or two, nothing else,
 * and the keys are the file's bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/key.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t keys[KEY_MAX][KEY_BYTES];
	char msg[256];
	int n;

	n = key_parse(data, size, keys, msg, sizeof(msg));
	if (n == -1)
		return 0;
	if ((size_t)n * KEY_BYTES != size ||
	    memcmp(keys, data, size) != 0)
		abort();
	return 0;
}
