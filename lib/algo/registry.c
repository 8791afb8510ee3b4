/* The election algorithms, by name: one line per algorithm. */
#include <string.h>

#include "algo/algo.h"

extern const struct algo_ops algo_bully, algo_bully_fd, algo_async_bully;
extern const struct algo_ops algo_invitation, algo_modified_bully,
    algo_enhanced_bully;
extern const struct algo_ops algo_lease;

static const struct algo_ops *const table[] = {
	&algo_bully,
	&algo_bully_fd,
	&algo_async_bully,
	&algo_invitation,
	&algo_modified_bully,
	&algo_enhanced_bully,
	&algo_lease,
};

const struct algo_ops *
algo_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i]->name, name) == 0)
			return table[i];
	return NULL;
}

const struct algo_ops *
algo_nth(size_t i)
{
	if (i >= sizeof(table) / sizeof(table[0]))
		return NULL;
	return table[i];
}
