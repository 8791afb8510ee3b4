/*
 * elect-fd's stdin: arbitrary bytes, split into lines, through the command
 * parser and, when they parse, into a detector core whose clock moves on by
 * a few milliseconds per line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fd/fd.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const unsigned ids[] = { 1, 2, 3, 7, 65535 };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fd_cmd c;
	struct fd_config cfg = {
		.self = 1, .ids = ids, .nids = 5, .mode = FD_PUSH,
		.interval = 10 * FD_MS, .timeout = 40 * FD_MS,
		.incarnation = 1, .key = { .insecure = 1 }, .report_up = 1,
	};
	const char *line = (const char *)data, *end, *why;
	struct fd_out o = { .wake = INT64_MAX };
	int64_t now = 0;
	uint8_t nonces[5 * SESS_NONCE] = { 0 };
	struct fd *fd;
	size_t n;
	int rc;

	if (size > 0 && (data[0] & 1))
		cfg.mode = FD_PING;
	cfg.nonces = nonces;
	if ((fd = fd_new(&cfg)) == NULL)
		abort();
	fd_hello(fd, now, &o);
	while (line < (const char *)data + size) {
		end = memchr(line, '\n', (size_t)((const char *)data + size -
		    line));
		n = end == NULL ? (size_t)((const char *)data + size - line) :
		    (size_t)(end - line);
		rc = fd_cmd_parse(line, n, &c, &why);
		if (rc == -1 && (why == NULL || *why == '\0'))
			abort();
		if (rc == 1 && (c.n > FD_CMD_IDS_MAX ||
		    ((c.op == FD_OP_START || c.op == FD_OP_STOP) && c.n != 1)))
			abort();
		if (rc == 1)
			(void)fd_command(fd, &c, now, &o);
		now += (int64_t)(n % 50) * FD_MS;
		if (o.wake <= now)
			fd_tick(fd, now, &o);
		if (end == NULL)
			break;
		line = end + 1;
	}
	fd_free(fd);
	return 0;
}
