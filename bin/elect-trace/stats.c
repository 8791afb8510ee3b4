/*
 * elect-trace stats: one row per election, then a summary per algorithm,
 * as a table or as JSON lines.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"
#include "stats/stats.h"
#include "util/util.h"

#include "elect-trace.h"

static void
json_str(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void
json_ids(const char *key, const unsigned *v, size_t n)
{
	size_t i;

	printf(",\"%s\":[", key);
	for (i = 0; i < n; i++)
		printf("%s%u", i ? "," : "", v[i]);
	putchar(']');
}

static const char *
secs(trace_time t, char *buf, size_t len)
{
	trace_format_time(t, buf, len);
	return buf;
}

/* T as seconds with 6 decimals, exactly (a double would round). */
static const char *
micros(trace_time t, char *buf, size_t len)
{
	const char *sign = t < 0 ? "-" : "";

	if (t < 0)
		t = -t;
	snprintf(buf, len, "%s%lld.%06lld", sign, (long long)(t / TRACE_NS),
	    (long long)(t % TRACE_NS / 1000));
	return buf;
}

static void
row_json(const struct stats *st, const struct election *e)
{
	char a[32], b[32];
	size_t i;
	int first = 1;

	printf("{\"election\":%lu,\"start\":%s,\"done\":%s", e->number,
	    secs(e->start, a, sizeof(a)), e->done ? "true" : "false");
	if (e->done)
		printf(",\"duration\":%s", secs(e->end - e->start, b,
		    sizeof(b)));
	printf(",\"algo\":");
	json_str(e->algo);
	printf(",\"cause\":\"%s\",\"cause_node\":%u,\"file\":",
	    stats_cause_name(e->cause), e->cause_node);
	json_str(e->file);
	printf(",\"lineno\":%lu", e->lineno);
	if (e->done)
		printf(",\"leader\":%u", e->leader);
	else
		printf(",\"leader\":null");
	json_ids("nodes", e->nodes, e->nnodes);
	printf(",\"messages\":%llu,\"by_type\":{",
	    (unsigned long long)e->messages);
	for (i = 0; i < e->ntypes; i++) {
		if (e->by_type[i] == 0)
			continue;
		if (!first)
			putchar(',');
		first = 0;
		json_str(stats_type(st, i));
		printf(":%llu", (unsigned long long)e->by_type[i]);
	}
	printf("}}\n");
}

static void
row_text(const struct stats *st, const struct election *e)
{
	char a[32], ldr[16];
	size_t i;

	if (e->number == 1)
		printf("%-5s %-20s %-10s %-14s %-12s %-6s %5s %6s  %s\n",
		    "elect", "start", "duration", "algo", "cause", "leader",
		    "nodes", "msgs", "by type");
	if (e->done)
		snprintf(ldr, sizeof(ldr), "%u", e->leader);
	else
		strlcpy(ldr, "-", sizeof(ldr));
	printf("%-5lu %-20s ", e->number, micros(e->start, a, sizeof(a)));
	if (e->done)
		printf("%-10s ", micros(e->end - e->start, a, sizeof(a)));
	else
		printf("%-10s ", "-");
	snprintf(a, sizeof(a), "%s:%u", stats_cause_name(e->cause),
	    e->cause_node);
	printf("%-14s %-12s %-6s %5zu %6llu ", e->algo, a, ldr, e->nnodes,
	    (unsigned long long)e->messages);
	for (i = 0; i < e->ntypes; i++)
		if (e->by_type[i] != 0)
			printf(" %s=%llu", stats_type(st, i),
			    (unsigned long long)e->by_type[i]);
	putchar('\n');
}

/* The periods of nodes cut off from a leader that kept its lease: not
 * elections of the cluster, so apart from them. */
static void
cutoffs(const struct stats *st, int json)
{
	const struct stats_cutoff *c;
	char a[32], b[32];
	size_t i;

	for (i = 0; (c = stats_cutoff(st, i)) != NULL; i++) {
		if (json) {
			printf("{\"cut_off\":%u,\"leader\":%u,\"start\":%s,"
			    "\"done\":%s", c->node, c->leader,
			    secs(c->start, a, sizeof(a)), c->done ? "true" :
			    "false");
			if (c->done)
				printf(",\"duration\":%s", secs(c->end -
				    c->start, b, sizeof(b)));
			printf(",\"changes\":%lu,\"messages\":%llu}\n",
			    c->changes, (unsigned long long)c->messages);
			continue;
		}
		if (i == 0)
			printf("\nnodes out of touch while the leader kept its "
			    "lease (not elections of the cluster):\n"
			    "%-7s %-6s %-20s %-10s %7s %6s\n", "cut off",
			    "leader", "start", "duration", "changes", "msgs");
		printf("%-7u %-6u %-20s %-10s %7lu %6llu\n", c->node,
		    c->leader, micros(c->start, a, sizeof(a)), c->done ?
		    micros(c->end - c->start, b, sizeof(b)) : "-",
		    c->changes, (unsigned long long)c->messages);
	}
}

static void
summary(struct stats *st, int json)
{
	const struct stats_summary *s;
	char a[32], b[32];
	size_t i;

	for (i = 0; (s = stats_summary(st, i)) != NULL; i++) {
		if (json) {
			printf("{\"summary\":");
			json_str(s->algo);
			printf(",\"elections\":%lu,\"done\":%lu", s->elections,
			    s->done);
			if (s->done > 0)
				printf(",\"median_duration\":%s,"
				    "\"max_duration\":%s,\"median_messages\":%g,"
				    "\"max_messages\":%llu",
				    secs(s->median_duration, a, sizeof(a)),
				    secs(s->max_duration, b, sizeof(b)),
				    s->median_messages,
				    (unsigned long long)s->max_messages);
			printf("}\n");
			continue;
		}
		if (i == 0)
			printf("\n%-14s %9s %5s %12s %12s %9s %9s\n", "algo",
			    "elections", "done", "median time", "max time",
			    "median", "max msgs");
		printf("%-14s %9lu %5lu ", s->algo, s->elections, s->done);
		if (s->done > 0)
			printf("%12s %12s %9g %9llu\n",
			    micros(s->median_duration, a, sizeof(a)),
			    micros(s->max_duration, b, sizeof(b)),
			    s->median_messages,
			    (unsigned long long)s->max_messages);
		else
			printf("%12s %12s %9s %9s\n", "-", "-", "-", "-");
	}
}

/* Leaves out the types of LIST ("a,b"); 0 or -1 with *WHY set. */
static int
exclude(struct stats *st, char *list, const char **why)
{
	char *t;

	while ((t = strsep(&list, ",")) != NULL) {
		if (*t == '\0') {
			*why = "empty message type";
			return -1;
		}
		if (stats_exclude(st, t) == -1) {
			*why = "too many message types";
			return -1;
		}
	}
	return 0;
}

int
cmd_stats(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const struct election *e;
	struct trace_event ev;
	struct stats *st;
	struct merge *m;
	const char *why;
	char *excluded = NULL;
	int ch, json = 0, rc;

	while ((ch = getopt_long(argc, argv, "hjx:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			json = 1;
			break;
		case 'x':
			excluded = optarg;
			break;
		case 'h':
			usage("stats", 0);
		default:
			usage("stats", EXIT_USAGE);
		}
	}
	if ((st = stats_new()) == NULL)
		err(1, NULL);
	if (excluded != NULL && exclude(st, excluded, &why) == -1) {
		stats_free(st);
		errx(EXIT_USAGE, "-x: %s", why);
	}
	if ((m = merge_open(argv + optind, argc - optind, 0)) == NULL)
		err(1, NULL);
	while ((rc = merge_next(m, &ev)) == 1)
		if ((e = stats_event(st, &ev)) != NULL)
			(json ? row_json : row_text)(st, e);
	if (rc == -1) {
		stats_free(st);
		input_error(m);
	}
	if ((e = stats_end(st)) != NULL)
		(json ? row_json : row_text)(st, e);
	cutoffs(st, json);
	summary(st, json);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "stdout");
	merge_close(m);
	stats_free(st);
	return 0;
}
