/*
 * What elect-trace makes of a trace: any sequence of valid lines, in any
 * order of events, through the election counter and the three drawings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "timeline/timeline.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tl_opts o = { 0 };
	struct trace_event ev;
	struct timeline *tl;
	struct stats *st;
	size_t i;
	const char *p = (const char *)data, *end = p + size, *nl;
	char why[160];
	FILE *null;
	int kind;

	if (size < 1)
		return 0;
	kind = data[0] % 3;
	o.has_to = data[0] & 4;
	o.to = 3 * TRACE_NS;
	o.to_rel = 1;
	if ((st = stats_new()) == NULL || (tl = tl_new(&o)) == NULL ||
	    (null = fopen("/dev/null", "w")) == NULL)
		abort();
	stats_exclude(st, "Yes");
	for (p++; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (trace_parse_line(p, (size_t)(nl - p), &ev, 0, why,
		    sizeof(why)) != NULL)
			continue;
		ev.file = "fuzz";
		ev.lineno = 1;
		stats_event(st, &ev);
		/* -2: a name past the bound, which no input of this size
		 * reaches */
		if (!tl_past(tl, &ev) && tl_event(tl, &ev) < 0)
			abort();
	}
	stats_end(st);
	for (i = 0; stats_summary(st, i) != NULL; i++)
		;
	(void)stats_leadership(st);
	if (kind == 0 && tl_nodes(tl) + tl_names(tl) <= TL_TEXT_LANES_MAX)
		tl_text(tl, null);
	else if (kind == 1)
		tl_svg(tl, null);
	else
		tl_mermaid(tl, null);
	fclose(null);
	tl_free(tl);
	stats_free(st);
	return 0;
}
