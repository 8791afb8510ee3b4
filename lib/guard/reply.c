/* The daemon's answer to `lease' and `task' (elect-node(1), CONTROL). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl.h"
#include "guard/guard.h"

/* The number of FIELD, 0 .. LLONG_MAX, into *DST; -1 if missing or bad. */
static int
num(struct ctl_str rest, const char *field, long long max, long long *dst)
{
	struct ctl_str v;
	const char *why;
	char buf[32];

	if (!ctl_field(rest, field, &v) || v.n >= sizeof(buf))
		return -1;
	memcpy(buf, v.p, v.n);
	buf[v.n] = '\0';
	*dst = strtonum(buf, 0, max, &why);
	return why == NULL ? 0 : -1;
}

int
guard_reply_parse(const char *line, size_t len, struct guard_reply *out)
{
	struct guard_reply r;
	struct ctl_str rest, v;
	long long n;
	int ok;

	memset(&r, 0, sizeof(r));
	if (ctl_parse_reply(line, len, &ok, &rest) != NULL || !ok ||
	    !ctl_field(rest, "leader", &v))
		return -1;
	r.leader = ctl_str_eq(v, "yes");
	/* A leadership with a deadline: the reply says until when. */
	r.lease = ctl_field(rest, "until", &v);
	/* The id only names the node to the command: not required. */
	if (num(rest, "id", TRACE_NODE_MAX, &n) == 0 && n >= 1)
		r.id = (unsigned)n;
	if (r.lease) {
#define NUM(key, dst) do {						\
	if (num(rest, key, LLONG_MAX, &n) == -1)			\
		return -1;						\
	dst = n;							\
} while (0)
		NUM("token", r.token);
		NUM("until", r.until);
		NUM("lease", r.tlease);
		NUM("renew", r.renew);
		NUM("rtt", r.rtt);
		NUM("drift", r.drift);
#undef NUM
	}
	*out = r;
	return 0;
}
