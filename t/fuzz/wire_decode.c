/*
 * The datagram decoder and the replay window on arbitrary bytes, keyed
 * and insecure.  A datagram that decodes must encode back to itself.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "net/wire.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const struct wire_proto proto = { WIRE_MAGIC_FD, 5, 0, 0 };

static void
one(const struct wire_key *key, const uint8_t *data, size_t size,
    struct wire_window *w)
{
	uint8_t again[WIRE_DGRAM_MAX];
	struct wire_msg m;
	size_t n;

	if (wire_decode(key, &proto, 1, data, size, &m) != NULL)
		return;
	(void)wire_window_check(w, m.inc, m.seq);
	n = wire_encode(key, &proto, &m, again, sizeof(again));
	if (n != size || memcmp(again, data, size) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wire_key keyed, insecure = { .insecure = 1 };
	static struct wire_window w;

	if (sodium_init() == -1)
		abort();
	memset(keyed.k, 0x5a, sizeof(keyed.k));
	one(&keyed, data, size, &w);
	one(&insecure, data, size, &w);
	return 0;
}
