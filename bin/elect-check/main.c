/* elect-check: verifies a trace against the assertions of the papers. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace/trace.h"
#include "util/util.h"

int
main(int argc, char *argv[])
{
	struct trace_reader *r;
	struct trace_event ev;
	unsigned long n = 0;
	int rc;

	if ((r = trace_open(argv + 1, argc - 1, 0)) == NULL)
		err(EXIT_USAGE, "trace_open");
	while ((rc = trace_next(r, &ev)) == 1)
		n++;
	if (rc == -1)
		errx(EXIT_USAGE, "%s", trace_error(r));
	printf("%lu events\n", n);
	trace_close(r);
	return 0;
}
