/*
 * The messages of an epoch change on arbitrary bytes (the first is the
 * type): what the parser takes, the writer writes back byte for byte,
 * and a change's part lies within its record.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/epoch.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t back[WIRE_PAYLOAD_MAX];
	struct epoch_msg m;

	if (size == 0 || size - 1 > WIRE_PAYLOAD_MAX)
		return 0;
	if (epoch_msg_parse(data[0], data + 1, size - 1, &m) != NULL)
		return 0;
	if (m.epoch > CLUSTER_EPOCH_MAX || (m.type == WIRE_TYPE_CHANGE &&
	    (m.off >= m.total || m.len > m.total - m.off ||
	    m.part != data + 1 + EPOCH_CHANGE_HDR)))
		abort();
	if (epoch_msg_put(&m, back, sizeof(back)) != size - 1 ||
	    memcmp(back, data + 1, size - 1) != 0)
		abort();
	return 0;
}
