/*
 * Campaigns: RUNS seeded runs, each one configured from its seed (the
 * cluster size, the number of faults, which run-long faults hold) unless
 * the command line fixed it, checked in process, and tallied.  A failure
 * is listed with the command that replays it, and the first ones shrunk.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elect-sim.h"
#include "util/util.h"

#define FAILS_SHOWN	20	/* failures listed */
#define FAILS_SHRUNK	3	/* of which shrunk */
#define TALLY_MAX	64

/* RUN's configuration from BASE and SEED, as the manual's CAMPAIGNS says. */
static void
campaign_conf(const struct sim_conf *base, unsigned given, uint64_t seed,
    struct sim_conf *c)
{
	const char *set, *name = algo_name(base->ops);
	uint64_t h = seed ^ UINT64_C(0xfa17fa17fa17fa17);
	unsigned k, run;
	size_t i;

	*c = *base;
	c->nev = 0;
	c->seed = seed;
	if (!(given & G_N)) {
		c->n = 3 + seed % 15;
		for (i = 0; i < c->n; i++)
			c->ids[i] = (uint16_t)(i + 1);
	}
	if (!(given & G_DUR))
		c->dur = 12000 * ALGO_MS;
	if (!(given & G_R))
		c->count = 2 + seed % 11;
	if (!(given & G_F))
		c->faults = sim_admissible(c->ops);
	/* --names K: each run between 1 and K names. */
	if (base->names > 0) {
		uint64_t hn = seed ^ UINT64_C(0x4a3e54a3e54a3e54);

		c->names = 1 + (unsigned)(algo_splitmix(&hn) % base->names);
	}
	set = sim_check_set(c);
	/* Delays up to a third of each model's bound on messages. */
	if (!(given & G_M)) {
		c->dmin = ALGO_MS / 10;
		c->dmax = strcmp(set, "sync") == 0 ? 5 * ALGO_MS :
		    strcmp(set, "lease") == 0 ? 3 * ALGO_MS : 10 * ALGO_MS;
	}
	/* Murshed & Allen's T covers those delays. */
	if (!(given & G_T) && (strcmp(name, "modified-bully") == 0 ||
	    strcmp(name, "enhanced-bully") == 0)) {
		c->tset[0] = "t_tx=5";
		c->ntset = 1;
		algo_timing_set(&c->timing, c->tset[0]);
	}
	if (algo_flags(c->ops) & ALGO_F_DEADLINE)
		c->oracle = 1;
	if ((algo_flags(c->ops) & ALGO_F_EDICTS) && c->dur > 6000 * ALGO_MS) {
		memset(&c->ev[0], 0, 2 * sizeof(c->ev[0]));
		c->ev[0].at = 3300 * ALGO_MS, c->ev[0].op = S_EDICT;
		c->ev[0].a = c->n - 1;
		strlcpy(c->ev[0].text, "a", sizeof(c->ev[0].text));
		c->ev[1].at = 6000 * ALGO_MS, c->ev[1].op = S_EDICT;
		c->ev[1].a = c->n > 1 ? 1 : 0;
		strlcpy(c->ev[1].text, "c", sizeof(c->ev[1].text));
		c->nev = 2;
	}
	/* Each run-long fault holds in half of the runs. */
	h = algo_splitmix(&h);
	run = c->faults & ~(F_SCHEDULED | F_RECOVERY);
	for (k = 0; k < F_NKINDS; k++)
		if ((run & 1u << k) && !(h >> k & 1))
			c->faults &= ~(1u << k);
	if (!(given & G_B) && seed % 5 == 0)
		c->bootspread = 50 * ALGO_MS;
	if (c->dur < 4000 * ALGO_MS)
		c->count = 0;
	sim_faults_apply(c);
}

struct tally {
	const char	*name;
	int		 kind;
	unsigned long	 runs;
};

static void
count(struct tally *t, size_t *nt, const struct sim_verdict *v)
{
	size_t i, k;

	for (i = 0; i < v->n; i++) {
		for (k = 0; k < *nt; k++)
			if (strcmp(t[k].name, v->name[i]) == 0 &&
			    t[k].kind == v->kind[i])
				break;
		if (k == *nt) {
			if (*nt == TALLY_MAX)
				continue;
			t[k].name = v->name[i];
			t[k].kind = v->kind[i];
			t[k].runs = 0;
			(*nt)++;
		}
		t[k].runs++;
	}
}

int
sim_campaign(const struct sim_conf *base, unsigned given, uint64_t first,
    unsigned long runs, int shrink)
{
	static const char *const pre[3] = { "", "undecided:", "notjudged:" };
	static struct sim_conf c, small;
	struct sim_verdict v;
	struct tally t[TALLY_MAX];
	uint64_t fails[FAILS_SHOWN], s;
	char names[512];
	size_t nt = 0, nfail = 0, i;
	unsigned long failed = 0, done = 0;
	int64_t start = mono_now(), shown = start, now;
	double simsec = 0, wall;
	int tty = isatty(STDERR_FILENO);

	for (s = first; s < first + runs; s++) {
		campaign_conf(base, given, s, &c);
		sim_check(&c, NULL, NULL, &v, NULL);
		simsec += v.simsec;
		done++;
		if (v.failed) {
			failed++;
			count(t, &nt, &v);
			if (nfail < FAILS_SHOWN)
				fails[nfail++] = s;
		}
		if (tty && (now = mono_now()) - shown > TRACE_NS) {
			shown = now;
			fprintf(stderr, "\r%s: %lu runs, %lu failed", getprogname(),
			    done, failed);
		}
	}
	if (tty)
		fprintf(stderr, "\r\033[K");
	wall = (double)(mono_now() - start) / 1e9;
	printf("%-15s %8s %9s %6s %8s %8s %12s  %s\n", "algorithm", "runs",
	    "sim-hours", "failed", "wall-s", "runs/s", "sim-s/wall-s",
	    "violations by assertion (runs)");
	printf("%-15s %8lu %9.2f %6lu %8.1f %8.1f %12.1f  ",
	    algo_name(base->ops), done, simsec / 3600, failed, wall,
	    wall > 0 ? done / wall : 0, wall > 0 ? simsec / wall : 0);
	if (nt == 0)
		printf("none");
	for (i = 0; i < nt; i++)
		printf("%s%s%s=%lu", i ? " " : "", pre[t[i].kind], t[i].name,
		    t[i].runs);
	printf("\n");
	for (i = 0; i < nfail; i++) {
		campaign_conf(base, given, fails[i], &c);
		sim_check(&c, NULL, NULL, &v, NULL);
		sim_verdict_names(&v, names, sizeof(names));
		printf("failed: seed %llu: %s: ", (unsigned long long)fails[i],
		    names);
		sim_command(&c, stdout);
		printf(" --check\n");
		if (shrink && i < FAILS_SHRUNK) {
			fflush(stdout);
			if (sim_shrink(&c, &small, 0) == 0)
				sim_conf_free(&small);
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		err(1, "stdout");
	return failed > 0;
}
