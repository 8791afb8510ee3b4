/* Fuzz target: a status reply's fields rendered as JSON, the core's
 * extra fields with their deadlines as seconds left, and --metrics'
 * address. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl.h"
#include "metrics/metrics.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_storage ss;
	struct ctl_str f = { (const char *)data, size };
	char out[4 * 1024], small[16], *s;
	size_t n;

	if (ctl_status_json(f, out, sizeof(out)) == 0) {
		n = strlen(out);
		if (n < 2 || out[0] != '{' || out[n - 1] != '}')
			__builtin_trap();
	}
	(void)ctl_status_json(f, small, sizeof(small));
	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (ctl_status_extra(s, 123456789, out, sizeof(out)) == 0 &&
	    strlen(out) >= sizeof(out))
		__builtin_trap();
	(void)ctl_status_extra(s, 0, small, sizeof(small));
	if (metrics_parse_addr(s, &ss) == NULL && ss.ss_family != AF_INET &&
	    ss.ss_family != AF_INET6)
		__builtin_trap();
	free(s);
	return 0;
}
