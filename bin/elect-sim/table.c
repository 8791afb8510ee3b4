/*
 * The papers' tables, measured: Murshed & Allen's Tables 1-3 (messages
 * to elect a new leader in four cases, for the bully algorithm, Mamun's
 * modified bully [9] and their enhanced bully), each case run on the
 * cores and printed beside the paper's numbers.
 *
 * The cases, for N nodes whose leader N crashes at 1 s: best, the
 * highest survivor alone detects it; worst, node 1 alone; SEC, the key
 * nodes at once; NRC, the key node revives (it crashes at 1 s and boots
 * at 2 s).  "Alone" means the other detectors report nothing within the
 * run.  Messages are counted from the fault until every node agrees.
 * The bully column is Garcia-Molina's Appendix I as elect-node runs it,
 * whose nodes find a dead coordinator by their own checks, not by a
 * detector; the paper counts a textbook bully.
 *
 * With --svg, each is drawn instead: the messages table as lines on
 * logarithmic axes, measured (solid) beside the papers' counts (dashed);
 * Murshed & Allen's as bars, the paper's three counts beside the three
 * cores'.  Written by hand: a few dozen elements, no library needed.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elect-sim.h"
#include "util/util.h"

#define KEYS_MAX	3

struct tcase {
	const char	*name;
	uint16_t	 keys[KEYS_MAX];	/* 0 ends */
	unsigned	 paper[3];		/* [2], [9], theirs */
	int		 revive;		/* NRC */
};

static const struct table {
	const char	*name;
	size_t		 n;
	struct tcase	 c[4];
} tables[] = {
	{ "murshed-allen-1", 5, {
		{ "best", { 4 }, { 4, 4, 4 }, 0 },
		{ "worst", { 1 }, { 20, 11, 9 }, 0 },
		{ "SEC", { 1, 3 }, { 20, 18, 11 }, 0 },
		{ "NRC", { 2 }, { 13, 5, 5 }, 1 } } },
	{ "murshed-allen-2", 10, {
		{ "best", { 9 }, { 9, 9, 9 }, 0 },
		{ "worst", { 1 }, { 90, 26, 18 }, 0 },
		{ "SEC", { 2, 5, 7 }, { 73, 56, 26 }, 0 },
		{ "NRC", { 3 }, { 58, 13, 9 }, 1 } } },
	{ "murshed-allen-3", 20, {
		{ "best", { 19 }, { 19, 19, 19 }, 0 },
		{ "worst", { 1 }, { 380, 56, 38 }, 0 },
		{ "SEC", { 4, 5, 16 }, { 275, 124, 52 }, 0 },
		{ "NRC", { 20 }, { 19, 19, 13 }, 1 } } },
};

static const char *const algos[3] = {
	"bully", "modified-bully", "enhanced-bully"
};

#define SVG_W		720
#define SVG_H		480
#define SVG_L		70	/* margins: left, right, top, bottom */
#define SVG_R		170
#define SVG_T		40
#define SVG_B		50

static const char *const palette[] = {
	"#1b6ca8", "#d1495b", "#2e933c", "#edae49", "#66a182", "#8d6a9f",
	"#00798c", "#6b4226",
};

static void
svg_head(const char *title)
{
	printf("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	    "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
	    "font-size=\"12\">\n", SVG_W, SVG_H, SVG_W, SVG_H);
	printf("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
	    SVG_W, SVG_H);
	printf("<text x=\"%d\" y=\"24\" font-size=\"15\">%s</text>\n",
	    SVG_L, title);
	printf("<path d=\"M%d %dV%dH%d\" stroke=\"black\" fill=\"none\"/>\n",
	    SVG_L, SVG_T, SVG_H - SVG_B, SVG_W - SVG_R);
}

static void
svg_tail(void)
{
	printf("</svg>\n");
	if (fflush(stdout) != 0 || ferror(stdout))
		err(1, "stdout");
}

/* A legend entry, the Ith, at the right. */
static void
svg_key(size_t i, const char *color, int dashed, const char *name)
{
	int y = SVG_T + 10 + (int)i * 18;

	printf("<path d=\"M%d %dh24\" stroke=\"%s\" stroke-width=\"3\"%s/>"
	    "<text x=\"%d\" y=\"%d\">%s</text>\n", SVG_W - SVG_R + 14, y,
	    color, dashed ? " stroke-dasharray=\"5 3\"" : "",
	    SVG_W - SVG_R + 44, y + 4, name);
}

static void
no_line(void *arg, const char *line, size_t len)
{
}

/* Messages of case TC of a cluster of N nodes under ALGO; 0 when the
 * nodes did not agree. */
static unsigned long
measure(const char *algo, size_t n, const struct tcase *tc)
{
	static struct sim_conf c;
	struct sim_result res;
	algo_time lat[SIM_NODES];
	size_t i, k;

	sim_conf_default(&c);
	if ((c.ops = algo_find(algo)) == NULL)
		errx(1, "no algorithm %s", algo);
	c.n = n;
	for (i = 0; i < n; i++)
		c.ids[i] = (uint16_t)(i + 1);
	c.seed = 1;
	c.papers_net = 1;
	c.dur = 5000 * ALGO_MS;
	/* The paper's network: 200 us a message. */
	c.dmin = c.dmax = ALGO_MS / 5;
	c.stats = 2;
	/* The papers have no periodic announcements. */
	if (algo_timing_set(&c.timing, "announce=0") == -1)
		errx(1, "announce=0");
	/* Only the key nodes detect, 20 ms after the fault. */
	for (i = 0; i < n; i++) {
		lat[i] = 100000 * ALGO_MS;
		for (k = 0; k < KEYS_MAX && tc->keys[k] != 0; k++)
			if (tc->keys[k] == i + 1 || tc->revive)
				lat[i] = 20 * ALGO_MS;
	}
	c.fdlat = lat;
	c.ev[0].at = 1000 * ALGO_MS;
	c.ev[0].op = S_CRASH;
	c.ev[0].a = tc->revive ? (size_t)tc->keys[0] - 1 : n - 1;
	c.nev = 1;
	if (tc->revive) {
		c.ev[1] = c.ev[0];
		c.ev[1].at = 2000 * ALGO_MS;
		c.ev[1].op = S_BOOT;
		c.nev = 2;
	}
	memset(&res, 0, sizeof(res));
	res.quiet = 1;
	sim_run(&c, no_line, NULL, &res);
	sim_result_free(&res);
	return res.agreed ? res.agreed_msgs : 0;
}

/*
 * Messages per election against N, every algorithm beside its paper's
 * analysis (t/bench/scale.sh, in process): the leader, N, crashes once in
 * a stable cluster; the papers' scenarios where they count one (the
 * lowest id detecting first, detections 20 ms apart per rank).
 */
static const struct row {
	const char	*name, *algo;
	int		 lowest;	/* -L */
	int		 spread;	/* -l 20:20N */
	algo_time	 crash;
	algo_time	 dur, per;	/* the run: dur + N * per */
} rows[] = {
	{ "bully", "bully", 0, 0, 1050, 2000, 50 },
	{ "bully-fd", "bully-fd", 1, 0, 1050, 3000, 0 },
	{ "modified-bully", "modified-bully", 1, 1, 1000, 2000, 20 },
	{ "enhanced-bully", "enhanced-bully", 1, 1, 1000, 2000, 20 },
	{ "async-bully", "async-bully", 0, 0, 1050, 3000, 5 },
	{ "async-bully-worst", "async-bully", 1, 1, 1050, 3000, 20 },
	{ "invitation", "invitation", 1, 0, 2000, 3000, 0 },
	{ "lease", "lease", 0, 0, 2000, 3000, 10 },
};

/* The papers' counts for N (Garcia-Molina, Stoller, Murshed & Allen,
 * Nerio), as text. */
static void
paper(const char *name, long n, char *buf, size_t len)
{
	if (strcmp(name, "bully") == 0)
		snprintf(buf, len, "%ld", 9 * n - 17);
	else if (strcmp(name, "bully-fd") == 0)
		snprintf(buf, len, "%ld", 3 * (n - 2));
	else if (strcmp(name, "async-bully") == 0)
		snprintf(buf, len, "~%ld", n * n / 2);
	else if (strcmp(name, "async-bully-worst") == 0)
		snprintf(buf, len, "%ld+O(N)", n * n);
	else if (strcmp(name, "invitation") == 0)
		snprintf(buf, len, "%ld..%ld", n * n, 2 * n * n);
	else if (strcmp(name, "modified-bully") == 0)
		snprintf(buf, len, "%ld", 3 * n - 4);
	else if (strcmp(name, "enhanced-bully") == 0)
		snprintf(buf, len, "<=%ld", 2 * n - 1);
	else
		snprintf(buf, len, "~%ld", 3 * n);
}

/* The papers' counts for N as numbers (the lower end of a range). */
static double
paper_value(const char *name, double n)
{
	if (strcmp(name, "bully") == 0)
		return 9 * n - 17;
	if (strcmp(name, "bully-fd") == 0)
		return 3 * (n - 2);
	if (strcmp(name, "async-bully") == 0)
		return n * n / 2;
	if (strcmp(name, "async-bully-worst") == 0 ||
	    strcmp(name, "invitation") == 0)
		return n * n;
	if (strcmp(name, "modified-bully") == 0)
		return 3 * n - 4;
	if (strcmp(name, "enhanced-bully") == 0)
		return 2 * n - 1;
	return 3 * n;
}

#define NS_MAX	5

/* The messages table, drawn: log N against log messages. */
static void
messages_svg(const size_t *ns, size_t nn, unsigned long m[][NS_MAX])
{
	double x0 = log10((double)ns[0]), x1 = log10((double)ns[nn - 1]);
	double y1 = 1, x, y, v;
	size_t i, k;
	int px, py, first;

	for (i = 0; i < nitems(rows); i++)
		for (k = 0; k < nn; k++) {
			if ((double)m[i][k] > y1)
				y1 = (double)m[i][k];
			if ((v = paper_value(rows[i].name, (double)ns[k])) > y1)
				y1 = v;
		}
	y1 = ceil(log10(y1));
#define PX(lx)	(SVG_L + (int)(((lx) - x0) / (x1 - x0) * \
	    (SVG_W - SVG_L - SVG_R)))
#define PY(ly)	(SVG_H - SVG_B - (int)((ly) / y1 * (SVG_H - SVG_T - SVG_B)))
	svg_head("Messages per election against N: measured (solid), "
	    "the papers (dashed)");
	for (k = 0; k < nn; k++)
		printf("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%zu"
		    "</text>\n", PX(log10((double)ns[k])), SVG_H - SVG_B + 18,
		    ns[k]);
	for (y = 0; y <= y1; y++)
		printf("<path d=\"M%d %dh-5\" stroke=\"black\"/><text x=\"%d\" "
		    "y=\"%d\" text-anchor=\"end\">%.0f</text>\n", SVG_L,
		    PY(y), SVG_L - 8, PY(y) + 4, pow(10, y));
	printf("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">N</text>\n",
	    (SVG_L + SVG_W - SVG_R) / 2, SVG_H - 12);
	for (i = 0; i < nitems(rows); i++) {
		const char *color = palette[i % nitems(palette)];

		printf("<path class=\"measured\" stroke=\"%s\" stroke-width="
		    "\"2\" fill=\"none\" d=\"", color);
		for (k = 0, first = 1; k < nn; k++) {
			if (m[i][k] == 0)
				continue;
			x = log10((double)ns[k]);
			y = log10((double)m[i][k]);
			printf("%s%d %d", first ? "M" : "L", PX(x), PY(y));
			first = 0;
		}
		printf("\"/>\n<path class=\"paper\" stroke=\"%s\" "
		    "stroke-dasharray=\"5 3\" fill=\"none\" d=\"", color);
		for (k = 0, first = 1; k < nn; k++) {
			v = paper_value(rows[i].name, (double)ns[k]);
			if (v < 1)
				continue;
			px = PX(log10((double)ns[k]));
			py = PY(log10(v));
			printf("%s%d %d", first ? "M" : "L", px, py);
			first = 0;
		}
		printf("\"/>\n");
		svg_key(i, color, 0, rows[i].name);
	}
#undef PX
#undef PY
	svg_tail();
}

static int
messages(int svg)
{
	static const size_t ns[NS_MAX] = { 5, 10, 20, 50, 100 };
	static unsigned long m[nitems(rows)][NS_MAX];
	static struct sim_conf c;
	struct sim_result res;
	const struct row *r;
	char p[32];
	size_t i, k, n;

	if (!svg)
		printf("%-18s %5s %9s %12s %10s\n", "algorithm", "N", "msgs",
		    "paper", "failover");
	for (i = 0; i < nitems(rows); i++)
		for (k = 0; k < nitems(ns); k++) {
			r = &rows[i], n = ns[k];
			sim_conf_default(&c);
			c.ops = algo_find(r->algo);
			c.n = n;
			c.papers_net = 1;
			for (size_t j = 0; j < n; j++)
				c.ids[j] = (uint16_t)(j + 1);
			c.dur = (r->dur + (algo_time)n * r->per) * ALGO_MS;
			c.lowest_first = r->lowest;
			if (r->spread)
				c.lmax = 20 * (algo_time)n * ALGO_MS;
			c.stats = 2;
			if (algo_timing_set(&c.timing, "announce=0") == -1)
				errx(1, "announce=0");
			c.ev[0].at = r->crash * ALGO_MS;
			c.ev[0].op = S_CRASH;
			c.ev[0].a = n - 1;
			c.nev = 1;
			memset(&res, 0, sizeof(res));
			res.quiet = 1;
			sim_run(&c, no_line, NULL, &res);
			sim_result_free(&res);
			paper(r->name, (long)n, p, sizeof(p));
			m[i][k] = res.agreed ? res.agreed_msgs : 0;
			if (svg)
				continue;
			if (res.agreed)
				printf("%-18s %5zu %9lu %12s %8.3f ms\n",
				    r->name, n, res.agreed_msgs, p,
				    (double)res.agreed_after / ALGO_MS);
			else
				printf("%-18s %5zu %9s %12s %8s ms\n",
				    r->name, n, "-", p, "-");
		}
	if (svg) {
		messages_svg(ns, nitems(ns), m);
		return 0;
	}
	printf("The leader crashes once; messages from the crash until every "
	    "node agrees,\ndetection included; the papers' counts beside.\n");
	if (fflush(stdout) != 0 || ferror(stdout))
		err(1, "stdout");
	return 0;
}

/* One of Murshed & Allen's tables, drawn: per case, the paper's three
 * counts (light) beside the three cores' (solid). */
static void
murshed_svg(const struct table *t, unsigned long got[4][3])
{
	static const char *const paper_names[3] = {
		"[2] textbook bully", "[9] modified bully", "enhanced bully"
	};
	char title[128];
	double top = 1, v;
	size_t i, a;
	int gw = (SVG_W - SVG_L - SVG_R) / 4, bw = gw / 8, x, h;

	for (i = 0; i < 4; i++)
		for (a = 0; a < 3; a++) {
			if (t->c[i].paper[a] > top)
				top = t->c[i].paper[a];
			if (got[i][a] > top)
				top = (double)got[i][a];
		}
	snprintf(title, sizeof(title), "Murshed &amp; Allen, Table %c: N = %zu, "
	    "messages to elect a new leader", t->name[strlen(t->name) - 1],
	    t->n);
	svg_head(title);
	for (i = 0; i < 4; i++) {
		printf("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s"
		    "</text>\n", SVG_L + (int)i * gw + gw / 2,
		    SVG_H - SVG_B + 18, t->c[i].name);
		for (a = 0; a < 6; a++) {
			v = a < 3 ? t->c[i].paper[a] : (double)got[i][a - 3];
			h = (int)(v / top * (SVG_H - SVG_T - SVG_B - 20));
			x = SVG_L + (int)i * gw + bw / 2 + (int)a * bw +
			    (a >= 3 ? bw / 2 : 0);
			printf("<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" "
			    "height=\"%d\" fill=\"%s\"%s><title>%.0f</title>"
			    "</rect>\n", a < 3 ? "paper" : "measured", x,
			    SVG_H - SVG_B - h, bw - 2, h, palette[a % 3],
			    a < 3 ? " fill-opacity=\"0.45\"" : "", v);
			printf("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
			    "font-size=\"9\">%.0f</text>\n", x + bw / 2 - 1,
			    SVG_H - SVG_B - h - 3, v);
		}
	}
	for (a = 0; a < 3; a++) {
		svg_key(a, palette[a], 1, paper_names[a]);
		svg_key(a + 3, palette[a], 0, algos[a]);
	}
	svg_tail();
}

int
sim_table(const char *name, int svg)
{
	const struct table *t = NULL;
	const struct tcase *tc;
	char keys[32], num[16];
	size_t i, k, a;

	unsigned long got[4][3];

	if (strcmp(name, "messages") == 0)
		return messages(svg);
	for (i = 0; i < nitems(tables); i++)
		if (strcmp(tables[i].name, name) == 0)
			t = &tables[i];
	if (t == NULL) {
		fprintf(stderr, "%s: unknown table %s; tables:", getprogname(),
		    name);
		for (i = 0; i < nitems(tables); i++)
			fprintf(stderr, " %s", tables[i].name);
		fprintf(stderr, " messages\n");
		return EXIT_USAGE;
	}
	if (svg) {
		for (i = 0; i < nitems(t->c); i++)
			for (a = 0; a < nitems(algos); a++)
				got[i][a] = measure(algos[a], t->n, &t->c[i]);
		murshed_svg(t, got);
		return 0;
	}
	printf("Murshed & Allen 2012, Table %c: N = %zu, messages to elect "
	    "a new leader\n", t->name[strlen(t->name) - 1], t->n);
	printf("%-6s %-10s %6s %6s %6s   %14s %14s %14s\n", "case", "key nodes",
	    "[2]", "[9]", "theirs", "bully", "modified-bully",
	    "enhanced-bully");
	for (i = 0; i < nitems(t->c); i++) {
		tc = &t->c[i];
		keys[0] = '\0';
		for (k = 0; k < KEYS_MAX && tc->keys[k] != 0; k++) {
			snprintf(num, sizeof(num), "%s%u", k ? "," : "",
			    tc->keys[k]);
			strlcat(keys, num, sizeof(keys));
		}
		printf("%-6s %-10s %6u %6u %6u  ", tc->name, keys,
		    tc->paper[0], tc->paper[1], tc->paper[2]);
		for (a = 0; a < nitems(algos); a++) {
			unsigned long m = measure(algos[a], t->n, tc);

			if (m == 0)
				printf(" %14s", "-");
			else
				printf(" %14lu", m);
		}
		printf("\n");
	}
	printf("[2], [9], theirs: the paper's counts for the textbook bully, "
	    "Mamun's modified\nbully and the enhanced bully; then the cores "
	    "measured.  The bully column is\nGarcia-Molina's Appendix I, "
	    "whose nodes find a dead leader by their own\nchecks, the same "
	    "in every case.\n");
	if (fflush(stdout) != 0 || ferror(stdout))
		err(1, "stdout");
	return 0;
}
