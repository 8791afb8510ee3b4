/*
 * The handshake on arbitrary datagrams (insecure, so that the fuzzer can
 * make good ones), and the HELLO parser on arbitrary payloads.  Checked as
 * it goes: a parsed HELLO formats back to itself; no data message counts
 * from an unconfirmed peer, nor after a leap of the sequence number past
 * SESS_JUMP; a confirmed window never goes back to an older incarnation.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "net/session.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const struct wire_proto proto = { WIRE_MAGIC_NODE, 20, 1, 0 };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct wire_key insecure = { .insecure = 1 };
	struct sess_hello h;
	struct sess_conf conf;
	struct wire_msg m;
	struct sess s;
	uint8_t nonce[SESS_NONCE], back[SESS_PAYLOAD_MAX];
	uint64_t inc, top;
	size_t i = 0, n;
	int64_t now = 1;
	int changed, confirmed;
	enum sess_take take;
	const char *why;

	if (sodium_init() == -1)
		abort();
	if (sess_hello_parse(data, size, &h) == NULL) {
		if (sess_hello_put(&h, back) != size ||
		    memcmp(back, data, size) != 0)
			abort();
	}
	/* Nonces the fuzzer can echo: 0x11 repeated; digests of zeros. */
	memset(nonce, 0x11, sizeof(nonce));
	memset(&conf, 0, sizeof(conf));
	sess_init(&s, nonce);
	/* Records: a length byte, then a datagram to node 1 from node 2. */
	while (i < size) {
		n = data[i++];
		if (n > size - i)
			n = size - i;
		now += 1000000;
		if (wire_decode(&insecure, &proto, 1, data + i, n, &m) == NULL &&
		    m.from == 2) {
			confirmed = s.confirmed;
			inc = s.win.inc;
			top = s.win.top;
			take = sess_recv(&s, &conf, &m, now, &changed, &why);
			if (take == SESS_COUNTS && (!confirmed || m.inc != inc ||
			    (m.seq > top && m.seq - top > SESS_JUMP)))
				abort();
			if (confirmed && s.confirmed && s.win.inc < inc)
				abort();
		}
		if (sess_due(&s, now))
			sess_hello(&s, &conf, now, &h);
		i += n;
	}
	return 0;
}
