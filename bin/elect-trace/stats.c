/*
 * elect-trace stats: one row per election, then a summary per algorithm,
 * as a table or as JSON lines.
 */
#include <err.h>
#include <errno.h>
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

/* A leadership's instance of the counts: the default one (NAME NULL)
 * or a named one. */
struct lane {
	struct stats	*st;
	const char	*name;
};

static void
row_json(const struct lane *l, const struct election *e)
{
	const struct stats *st = l->st;
	char a[32], b[32];
	size_t i;
	int first = 1;

	printf("{\"election\":%lu,", e->number);
	if (l->name != NULL) {
		printf("\"name\":");
		json_str(l->name);
		putchar(',');
	}
	printf("\"start\":%s,\"done\":%s",
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

static int header_done;

static void
row_text(const struct lane *l, const struct election *e)
{
	const struct stats *st = l->st;
	char a[32], ldr[16];
	size_t i;

	if (!header_done++)
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
	if (l->name != NULL)
		printf(" name=%s", l->name);
	putchar('\n');
}

/* The periods of nodes cut off from a leader that kept its lease: not
 * elections of the cluster, so apart from them. */
static int cutoff_header;

static void
cutoffs(const struct lane *l, int json)
{
	const struct stats_cutoff *c;
	char a[32], b[32];
	size_t i;

	for (i = 0; (c = stats_cutoff(l->st, i)) != NULL; i++) {
		if (json) {
			printf("{\"cut_off\":%u,", c->node);
			if (l->name != NULL) {
				printf("\"name\":");
				json_str(l->name);
				putchar(',');
			}
			printf("\"leader\":%u,\"start\":%s,"
			    "\"done\":%s", c->leader,
			    secs(c->start, a, sizeof(a)), c->done ? "true" :
			    "false");
			if (c->done)
				printf(",\"duration\":%s", secs(c->end -
				    c->start, b, sizeof(b)));
			printf(",\"changes\":%lu,\"messages\":%llu}\n",
			    c->changes, (unsigned long long)c->messages);
			continue;
		}
		if (!cutoff_header++)
			printf("\nnodes out of touch while the leader kept its "
			    "lease (not elections of the cluster):\n"
			    "%-7s %-6s %-20s %-10s %7s %6s\n", "cut off",
			    "leader", "start", "duration", "changes", "msgs");
		printf("%-7u %-6u %-20s %-10s %7lu %6llu", c->node,
		    c->leader, micros(c->start, a, sizeof(a)), c->done ?
		    micros(c->end - c->start, b, sizeof(b)) : "-",
		    c->changes, (unsigned long long)c->messages);
		printf(l->name != NULL ? " name=%s\n" : "\n", l->name);
	}
}

static int summary_header;

static void
summary(const struct lane *l, int json)
{
	const struct stats_summary *s;
	char a[32], b[32];
	size_t i;

	for (i = 0; (s = stats_summary(l->st, i)) != NULL; i++) {
		if (json) {
			printf("{\"summary\":");
			json_str(s->algo);
			if (l->name != NULL) {
				printf(",\"name\":");
				json_str(l->name);
			}
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
		if (!summary_header++)
			printf("\n%-14s %9s %5s %12s %12s %9s %9s\n", "algo",
			    "elections", "done", "median time", "max time",
			    "median", "max msgs");
		printf("%-14s %9lu %5lu ", s->algo, s->elections, s->done);
		if (s->done > 0)
			printf("%12s %12s %9g %9llu",
			    micros(s->median_duration, a, sizeof(a)),
			    micros(s->max_duration, b, sizeof(b)),
			    s->median_messages,
			    (unsigned long long)s->max_messages);
		else
			printf("%12s %12s %9s %9s", "-", "-", "-", "-");
		printf(l->name != NULL ? " name=%s\n" : "\n", l->name);
	}
}

/* One row per leadership, for a trace with named ones. */
static void
leaderships(const struct lane *l, size_t n, int json)
{
	const struct stats_leadership *x;
	char a[32];
	size_t i;

	for (i = 0; i < n; i++) {
		const char *name = l[i].name != NULL ? l[i].name : "-";

		x = stats_leadership(l[i].st);
		if (json) {
			printf("{\"leadership\":");
			json_str(name);
			printf(",\"leaders\":%lu,\"led\":%s,\"tasks\":%llu}\n",
			    x->leaders, secs(x->led, a, sizeof(a)),
			    (unsigned long long)x->tasks);
			continue;
		}
		if (i == 0)
			printf("\n%-20s %7s %14s %6s\n", "leadership",
			    "leaders", "time led", "tasks");
		printf("%-20s %7lu %14s %6llu\n", name, x->leaders,
		    micros(x->led, a, sizeof(a)),
		    (unsigned long long)x->tasks);
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

static void
lanes_free(struct lane *lane, size_t n, struct trace_names *names)
{
	size_t i;

	for (i = 0; i < n; i++)
		stats_free(lane[i].st);
	free(lane);
	trace_names_free(names);
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
	struct trace_names *names;
	struct lane *lane;	/* [0]: the default leadership; [id]: name id */
	size_t nlane = 1, i;
	struct merge *m;
	const char *why;
	char *excluded = NULL;
	int ch, json = 0, rc;
	long id;

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
	if ((lane = calloc(TRACE_NAME_COUNT + 1, sizeof(*lane))) == NULL ||
	    (names = trace_names_new()) == NULL || (lane[0].st = stats_new()) ==
	    NULL)
		err(1, NULL);
	if (excluded != NULL && exclude(lane[0].st, excluded, &why) == -1) {
		lanes_free(lane, nlane, names);
		errx(EXIT_USAGE, "-x: %s", why);
	}
	if ((m = merge_open(argv + optind, argc - optind, 0)) == NULL)
		err(1, NULL);
	while ((rc = merge_next(m, &ev)) == 1) {
		if ((id = trace_names_id(names, &ev)) == -1) {
			if (errno != 0)
				err(1, NULL);
			warnx("%s:%lu: more than %d names", ev.file, ev.lineno,
			    TRACE_NAME_COUNT);
			merge_close(m);
			lanes_free(lane, nlane, names);
			exit(EXIT_USAGE);
		}
		if (id > 0 && lane[id].st == NULL) {
			if ((lane[id].st = stats_new()) == NULL ||
			    stats_hosts(lane[id].st, lane[0].st) == -1)
				err(1, NULL);
			lane[id].name = trace_names_str(names, id);
			if (excluded != NULL)
				(void)exclude(lane[id].st, excluded, &why);
			nlane = (size_t)id + 1;
		}
		/* A host line counts for every leadership, a renew name=*
		 * for every named one. */
		for (i = 0; i < nlane; i++)
			if (((ev.have & HAVE_ALLNAMES) ? i > 0 : i ==
			    (size_t)id || !trace_leadership_line(&ev)) &&
			    (e = stats_event(lane[i].st, &ev)) != NULL)
				(json ? row_json : row_text)(&lane[i], e);
	}
	if (rc == -1) {
		lanes_free(lane, nlane, names);
		input_error(m);
	}
	for (i = 0; i < nlane; i++)
		if ((e = stats_end(lane[i].st)) != NULL)
			(json ? row_json : row_text)(&lane[i], e);
	for (i = 0; i < nlane; i++)
		cutoffs(&lane[i], json);
	for (i = 0; i < nlane; i++)
		summary(&lane[i], json);
	if (nlane > 1)
		leaderships(lane, nlane, json);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "stdout");
	merge_close(m);
	lanes_free(lane, nlane, names);
	return 0;
}
