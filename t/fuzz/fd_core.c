/*
 * The detector core on arbitrary inputs.  The bytes are records: a tag
 * byte, a length byte, then that many bytes: tag 0 a command line, tag 1 a
 * datagram (the core runs insecure, so the fuzzer can make good ones),
 * anything else a step of the clock by LENGTH milliseconds.  The core's
 * promises are checked as it goes: no down for an unmonitored node, at
 * most one down per start without up, sends only to known nodes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fd/fd.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const unsigned ids[] = { 1, 2, 3 };

struct model {
	int	monitored[4];
	int	reported[4];
	int64_t	wake;		/* the core's, from its last output */
};

static void
check(const struct fd_out *o, struct model *m)
{
	const struct fd_act *a;
	size_t i;

	m->wake = o->wake;
	for (i = 0, a = o->v; i < o->n; i++, a++) {
		if (a->peer > 3 && a->kind != FD_ACT_DROP &&
		    a->kind != FD_ACT_MISFIT)
			abort();
		if (a->kind == FD_ACT_SEND && (a->peer < 2 ||
		    a->len > FD_DGRAM_MAX))
			abort();
		if (a->kind == FD_ACT_DOWN) {
			if (!m->monitored[a->peer] || m->reported[a->peer])
				abort();
			m->reported[a->peer] = 1;
		}
		if (a->kind == FD_ACT_UP) {
			if (!m->reported[a->peer])
				abort();
			m->reported[a->peer] = 0;
		}
	}
}

static void
command(struct fd *fd, struct model *m, const uint8_t *p, size_t n,
    int64_t now)
{
	static struct fd_cmd c;
	struct fd_out o;
	const char *why;
	size_t i;

	if (fd_cmd_parse((const char *)p, n, &c, &why) != 1)
		return;
	if (fd_command(fd, &c, now, &o) != NULL) {
		if (o.n != 0)
			abort();
		return;
	}
	for (i = 0; i < c.n; i++) {
		if (c.ids[i] == 1)
			continue;
		if (c.op == FD_OP_START || c.op == FD_OP_STOP) {
			m->monitored[c.ids[i]] = c.op == FD_OP_START;
			m->reported[c.ids[i]] = 0;
		}
	}
	check(&o, m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fd_config cfg = {
		.self = 1, .ids = ids, .nids = 3, .mode = FD_PUSH,
		.interval = 10 * FD_MS, .timeout = 40 * FD_MS,
		.incarnation = 1, .key = { .insecure = 1 }, .report_up = 1,
	};
	struct model m = { { 0 }, { 0 }, INT64_MAX };
	struct fd_out o;
	int64_t now = 0;
	uint8_t nonces[3 * SESS_NONCE];
	struct fd *fd;
	size_t i = 1, n;

	if (size == 0)
		return 0;
	cfg.mode = data[0] & 1 ? FD_PING : FD_PUSH;
	if (data[0] & 2)
		cfg.phi = 1 + (data[0] >> 2) % 20;
	/* Nonces a fuzzer can echo: 1, 2, 3 repeated, one per node. */
	for (n = 0; n < sizeof(nonces); n++)
		nonces[n] = (uint8_t)(n / SESS_NONCE + 1);
	cfg.nonces = nonces;
	if ((fd = fd_new(&cfg)) == NULL)
		abort();
	while (i + 2 <= size) {
		n = data[i + 1];
		if (n > size - i - 2)
			n = size - i - 2;
		if (data[i] == 0)
			command(fd, &m, data + i + 2, n, now);
		else if (data[i] == 1) {
			/* The source is who it claims to be, mostly. */
			fd_datagram(fd, data + i + 2, n,
			    n >= 10 ? data[i + 2 + 9] : 0, now, &o);
			check(&o, &m);
		} else {
			now += (int64_t)n * FD_MS;
			while (m.wake <= now) {
				fd_tick(fd, m.wake, &o);
				check(&o, &m);
			}
		}
		i += 2 + n;
	}
	fd_free(fd);
	return 0;
}
