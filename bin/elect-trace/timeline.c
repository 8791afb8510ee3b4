/*
 * elect-trace timeline: a space-time diagram of a trace.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"
#include "timeline/timeline.h"
#include "util/util.h"

#include "elect-trace.h"

/* "T" (trace time) or "+T" (seconds after the first event). */
static trace_time
when(const char *s, const char *what, int *rel)
{
	*rel = s[0] == '+';
	return arg_seconds(s + *rel, what);
}

/* "1,3,5-7" into a bitmap of node ids. */
static unsigned char *
node_list(char *list)
{
	unsigned char *set;
	const char *errstr = NULL;
	char *t = NULL, *dash = NULL;
	long long a, b = 0, i;

	if ((set = calloc((TRACE_NODE_MAX + 8) / 8, 1)) == NULL)
		err(1, NULL);
	while (errstr == NULL && (t = strsep(&list, ",")) != NULL) {
		if ((dash = strchr(t, '-')) != NULL)
			*dash++ = '\0';
		a = strtonum(t, 1, TRACE_NODE_MAX, &errstr);
		if (errstr == NULL && dash != NULL)
			b = strtonum(dash, 1, TRACE_NODE_MAX, &errstr);
		else
			b = a;
		if (errstr == NULL && b < a)
			errstr = "backwards";
		for (i = a; errstr == NULL && i <= b; i++)
			set[i / 8] |= (unsigned char)(1u << (i % 8));
	}
	if (errstr != NULL) {
		free(set);
		errx(EXIT_USAGE, "--nodes: \"%s%s%s\" is %s (ids 1 to %d)", t,
		    dash ? "-" : "", dash ? dash : "", errstr, TRACE_NODE_MAX);
	}
	return set;
}

/* "a,b" into the message types left out, added to *V. */
static void
type_list(char *list, char ***v, size_t *n)
{
	char *t;

	while ((t = strsep(&list, ",")) != NULL) {
		if (*t == '\0')
			errx(EXIT_USAGE, "-x: empty message type");
		if ((*v = reallocarray(*v, *n + 1, sizeof(**v))) == NULL)
			err(1, NULL);
		(*v)[(*n)++] = t;
	}
}

int
cmd_timeline(int argc, char *argv[])
{
	enum { FROM = 256, TO, NODES };
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "from", required_argument, NULL, FROM },
		{ "to", required_argument, NULL, TO },
		{ "nodes", required_argument, NULL, NODES },
		{ "exclude", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const struct {
		const char *name;
		int (*draw)(struct timeline *, FILE *);
	} formats[] = {
		{ "text", tl_text }, { "svg", tl_svg }, { "mermaid", tl_mermaid },
	};
	struct tl_opts o = { 0 };
	struct trace_event ev;
	struct timeline *tl;
	struct merge *m;
	unsigned char *nodes = NULL;
	char **excl = NULL;
	size_t fmt = 0, nexcl = 0, lanes;
	int ch, rc;

	while ((ch = getopt_long(argc, argv, "f:hx:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			for (fmt = 0; fmt < nitems(formats); fmt++)
				if (strcmp(optarg, formats[fmt].name) == 0)
					break;
			if (fmt == nitems(formats))
				errx(EXIT_USAGE, "--format: \"%s\" is not text, "
				    "svg or mermaid", optarg);
			break;
		case FROM:
			o.from = when(optarg, "--from", &o.from_rel);
			o.has_from = 1;
			break;
		case TO:
			o.to = when(optarg, "--to", &o.to_rel);
			o.has_to = 1;
			break;
		case NODES:
			free(nodes);
			nodes = node_list(optarg);
			break;
		case 'x':
			type_list(optarg, &excl, &nexcl);
			break;
		case 'h':
			usage("timeline", 0);
		default:
			usage("timeline", EXIT_USAGE);
		}
	}
	if (o.has_from && o.has_to && o.from_rel == o.to_rel && o.to < o.from)
		errx(EXIT_USAGE, "--to is before --from");
	o.nodes = nodes;
	o.excluded = excl;
	o.nexcluded = nexcl;
	if ((tl = tl_new(&o)) == NULL ||
	    (m = merge_open(argv + optind, argc - optind, 0)) == NULL)
		err(1, NULL);
	while ((rc = merge_next(m, &ev)) == 1 && !tl_past(tl, &ev))
		if ((ch = tl_event(tl, &ev)) == -2) {
			warnx("%s:%lu: more than %d names", ev.file, ev.lineno,
			    TRACE_NAME_COUNT);
			merge_close(m);
			tl_free(tl);
			free(nodes);
			free(excl);
			exit(EXIT_USAGE);
		} else if (ch == -1)
			err(1, NULL);
	if (rc == -1) {
		tl_free(tl);
		free(nodes);
		free(excl);
		input_error(m);
	}
	/* Refused rather than cut: a diagram that leaves nodes out must
	 * say which, and --nodes does. */
	if (formats[fmt].draw == tl_text &&
	    (lanes = tl_nodes(tl) + tl_names(tl)) > TL_TEXT_LANES_MAX) {
		const char *what = tl_names(tl) > 0 ? " and names" : "";

		merge_close(m);
		tl_free(tl);
		free(nodes);
		free(excl);
		errx(EXIT_USAGE, "--format text draws at most %d nodes%s, and "
		    "there are %zu to draw: choose some with --nodes, or "
		    "--format svg", TL_TEXT_LANES_MAX, what, lanes);
	}
	if (formats[fmt].draw(tl, stdout) == -1 || fflush(stdout) == EOF)
		err(1, "stdout");
	merge_close(m);
	tl_free(tl);
	free(nodes);
	free(excl);
	return 0;
}
