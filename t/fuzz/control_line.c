/* Fuzz target: control lines, both as requests and as replies. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ctl/ctl.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctl_req req;
	struct ctl_str rest, val;
	const char *line = (const char *)data;
	int ok, i;

	if (ctl_parse_req(line, size, &req) == NULL) {
		if (req.cmd.n == 0 || req.cmd.n > CTL_CMD_MAX ||
		    req.argc > CTL_ARGS_MAX || req.version == 0)
			__builtin_trap();
		for (i = 0; i < req.argc; i++)
			if (req.argv[i].p < line ||
			    req.argv[i].p + req.argv[i].n > line + size)
				__builtin_trap();
	}
	if (ctl_parse_reply(line, size, &ok, &rest) == NULL && ok &&
	    ctl_field(rest, "leader", &val))
		if (val.p < line || val.p + val.n > line + size)
			__builtin_trap();
	return 0;
}
