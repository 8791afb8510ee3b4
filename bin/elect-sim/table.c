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
 */
#include <err.h>
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

static int
messages(void)
{
	static const size_t ns[] = { 5, 10, 20, 50, 100 };
	static struct sim_conf c;
	struct sim_result res;
	const struct row *r;
	char p[32];
	size_t i, k, n;

	printf("%-18s %5s %9s %12s %10s\n", "algorithm", "N", "msgs",
	    "paper", "failover");
	for (i = 0; i < nitems(rows); i++)
		for (k = 0; k < nitems(ns); k++) {
			r = &rows[i], n = ns[k];
			sim_conf_default(&c);
			c.ops = algo_find(r->algo);
			c.n = n;
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
			if (res.agreed)
				printf("%-18s %5zu %9lu %12s %8.3f ms\n",
				    r->name, n, res.agreed_msgs, p,
				    (double)res.agreed_after / ALGO_MS);
			else
				printf("%-18s %5zu %9s %12s %8s ms\n",
				    r->name, n, "-", p, "-");
		}
	printf("The leader crashes once; messages from the crash until every "
	    "node agrees,\ndetection included; the papers' counts beside.\n");
	if (fflush(stdout) != 0 || ferror(stdout))
		err(1, "stdout");
	return 0;
}

int
sim_table(const char *name)
{
	const struct table *t = NULL;
	const struct tcase *tc;
	char keys[32], num[16];
	size_t i, k, a;

	if (strcmp(name, "messages") == 0)
		return messages();
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
