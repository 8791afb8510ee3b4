/* placeholder until the module lands */
#include <stdlib.h>

#include "check/check.h"

static void *
lease_init(const struct check_opts *o)
{
	return calloc(1, 1);
}

static void
lease_event(void *st, const struct trace_event *ev, struct check_out *out)
{
}

static void
lease_finish(void *st, const struct trace_event *last, struct check_out *out)
{
}

#define LEASE_MODULE(n) { n, lease_init, lease_event, lease_finish, free, NULL }
const struct check_ops check_uniqueness = LEASE_MODULE("uniqueness");
const struct check_ops check_lease_quorum = LEASE_MODULE("lease-quorum");
const struct check_ops check_edict_validity = LEASE_MODULE("edict-validity");
const struct check_ops check_edict_order = LEASE_MODULE("edict-order");
const struct check_ops check_stability = LEASE_MODULE("stability");
const struct check_ops check_election = LEASE_MODULE("election");
