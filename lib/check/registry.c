/* The assertions by name, the sets of -s, and the set of each algorithm. */
#include <string.h>

#include "check/check.h"

const struct check_ops *const check_all[] = {
	&check_trace,
	&check_gm1, &check_gm2, &check_gm3, &check_gm4, &check_gm4s,
	&check_sle1, &check_sle2,
	&check_ale1, &check_ale2w, &check_ale2,
	&check_fd_complete, &check_fd_accurate,
	&check_uniqueness, &check_lease_quorum, &check_edict_validity,
	&check_edict_order, &check_stability, &check_election,
	&check_epochs, &check_task_overlap, &check_task_lease,
	&check_task_token, NULL
};

static const struct check_ops *const set_sync[] = {
	&check_gm1, &check_gm2, &check_sle1, &check_sle2, NULL
};
static const struct check_ops *const set_async[] = {
	&check_gm3, &check_gm4s, &check_ale1, &check_ale2w, &check_ale2, NULL
};
static const struct check_ops *const set_fd[] = {
	&check_fd_complete, &check_fd_accurate, NULL
};
static const struct check_ops *const set_lease[] = {
	&check_uniqueness, &check_lease_quorum, &check_edict_validity,
	&check_edict_order, &check_stability, &check_election,
	&check_epochs, &check_task_overlap, &check_task_lease,
	&check_task_token, NULL
};

static const struct {
	const char			 *name;
	const struct check_ops *const	 *members;
} sets[] = {
	{ "sync", set_sync },
	{ "async", set_async },
	{ "fd", set_fd },
	{ "lease", set_lease },
};

/* The algorithms (elect-node(1) -a) and the specification each must meet
 * (elect-check(1) -s). */
static const struct {
	const char	*algo;
	const char	*set;
} algos[] = {
	{ "bully", "sync" },
	{ "bully-fd", "sync" },
	{ "modified-bully", "sync" },
	{ "enhanced-bully", "sync" },
	{ "async-bully", "async" },
	{ "invitation", "async" },
	{ "lease", "lease" },
};

const struct check_ops *
check_find(const char *name)
{
	size_t i;

	for (i = 0; check_all[i] != NULL; i++)
		if (strcmp(check_all[i]->name, name) == 0)
			return check_all[i];
	return NULL;
}

const struct check_ops *const *
check_set(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		if (strcmp(sets[i].name, name) == 0)
			return sets[i].members;
	return NULL;
}

const char *
check_algo_set(const char *algo, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		if (strlen(algos[i].algo) == len &&
		    memcmp(algos[i].algo, algo, len) == 0)
			return algos[i].set;
	return NULL;
}
