/* A run's configuration: defaults, faults by name, and the command line
 * that gives it back. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "elect-sim.h"
#include "trace/trace.h"
#include "util/util.h"

static const char *const fault_names[F_NKINDS] = {
	"crash", "recovery", "pause", "partition", "bridge", "oneway",
	"loss", "duplication", "reordering", "delay", "drift", "offset",
	"reconfigure", "kill", "misconf"
};

void
sim_conf_default(struct sim_conf *c)
{
	memset(c, 0, sizeof(*c));
	algo_timing_default(&c->timing);
	c->dur = 5000 * ALGO_MS;
	c->dmin = ALGO_MS / 10;
	c->dmax = ALGO_MS;
	c->lmin = 20 * ALGO_MS;
	c->lmax = 50 * ALGO_MS;
}

/*
 * The synchronous algorithms' model (Garcia-Molina's assumptions) admits
 * crashes and recoveries only, with every message in time; the wire drops
 * a duplicate before the core sees it, so duplication stays inside every
 * model.  The asynchronous ones admit any failure of the environment, and
 * lease a drift and an offset of the clocks within its bound too.
 */
unsigned
sim_admissible(const struct algo_ops *o)
{
	const char *name = algo_name(o), *set;
	unsigned f = F_CRASH | F_RECOVERY | F_DUP;

	set = check_algo_set(name, strlen(name));
	if (set == NULL || strcmp(set, "sync") == 0)
		return f;
	f |= F_PAUSE | F_PARTITION | F_BRIDGE | F_ONEWAY | F_LOSS |
	    F_REORDER | F_DELAY;
	if (strcmp(set, "lease") == 0)
		f |= F_DRIFT | F_OFFSET;
	/* A killed daemon's guard speaks for it only where the algorithm
	 * has a word for that. */
	if (o->dead != 0)
		f |= F_KILL;
	/* A host started with another configuration, which must not lead
	 * beside the cluster's leader: judged where the oracle judges
	 * leaders (ALGO_F_DEADLINE) and elect-check its trace. */
	if (algo_flags(o) & ALGO_F_DEADLINE)
		f |= F_MISCONF;
	return f;
}

int
sim_faults_parse(const char *s, unsigned *out, char *bad, size_t badlen)
{
	size_t len, k;
	unsigned f = 0;

	for (;;) {
		len = strcspn(s, ",");
		for (k = 0; k < F_NKINDS; k++)
			if (strlen(fault_names[k]) == len &&
			    strncmp(fault_names[k], s, len) == 0)
				break;
		if (k == F_NKINDS) {
			snprintf(bad, badlen, "%.*s", (int)(len > 40 ? 40 :
			    len), s);
			return -1;
		}
		f |= 1u << k;
		if (s[len] == '\0')
			break;
		s += len + 1;
	}
	*out = f;
	return 0;
}

void
sim_faults_format(unsigned f, char *buf, size_t len)
{
	size_t k;

	if (len > 0)
		buf[0] = '\0';
	for (k = 0; k < F_NKINDS; k++)
		if (f & 1u << k) {
			if (buf[0] != '\0')
				strlcat(buf, ",", len);
			strlcat(buf, fault_names[k], len);
		}
}

/* The faults that hold for the whole run, at their documented rates
 * unless the options gave one. */
void
sim_faults_apply(struct sim_conf *c)
{
	if ((c->faults & F_LOSS) && c->loss == 0)
		c->loss = 2;
	if ((c->faults & F_DUP) && c->dup == 0)
		c->dup = 2;
	if (c->faults & F_REORDER)
		c->reorder = 1;
	if ((c->faults & F_DELAY) && c->delay == 0)
		c->delay = 2;
	if ((c->faults & F_DRIFT) && c->rho == 0)
		c->rho = c->timing.drift;
	if ((c->faults & F_OFFSET) && c->offmax == 0)
		c->offmax = 3000 * ALGO_MS;
	c->faults &= F_SCHEDULED | F_RECOVERY;
}

int
sim_epochs(const struct sim_conf *c)
{
	size_t i;

	if (c->epoch0 || (c->count > 0 && (c->faults & F_RECONFIGURE)))
		return 1;
	for (i = 0; i < c->nev; i++)
		if (c->ev[i].op == S_RECONFIGURE)
			return 1;
	return 0;
}

/* Milliseconds as the options take them. */
static const char *
ms(algo_time t, char *buf, size_t len)
{
	trace_format_time(t * 1000, buf, len);
	return buf;
}

static void
quoted(FILE *fp, const char *s)
{
	if (strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789.,:=/_-+") == strlen(s)) {
		fputs(s, fp);
		return;
	}
	putc('\'', fp);
	for (; *s != '\0'; s++)
		if (*s == '\'')
			fputs("'\\''", fp);
		else
			putc(*s, fp);
	putc('\'', fp);
}

void
sim_command(const struct sim_conf *c, FILE *fp)
{
	struct sim_conf d;
	char a[64], b[64], line[SCHED_LINE_MAX + 64];
	size_t i;
	int plain = 1, sep = 0;

	sim_conf_default(&d);
	fprintf(fp, "elect-sim -a %s", algo_name(c->ops));
	for (i = 0; i < c->n; i++)
		plain &= c->ids[i] == i + 1;
	if (plain)
		fprintf(fp, " -n %zu", c->n);
	else
		for (i = 0; i < c->n; i++)
			fprintf(fp, "%s%u", i ? "," : " -c ", c->ids[i]);
	trace_format_time(c->dur, a, sizeof(a));
	fprintf(fp, " -s %llu -d %s", (unsigned long long)c->seed, a);
	if (c->dmin != d.dmin || c->dmax != d.dmax)
		fprintf(fp, " -m %s:%s", ms(c->dmin, a, sizeof(a)),
		    ms(c->dmax, b, sizeof(b)));
	if (c->lmin != d.lmin || c->lmax != d.lmax)
		fprintf(fp, " -l %s:%s", ms(c->lmin, a, sizeof(a)),
		    ms(c->lmax, b, sizeof(b)));
	if (c->lowest_first)
		fputs(" -L", fp);
	if (c->bootspread > 0)
		fprintf(fp, " -b %s", ms(c->bootspread, a, sizeof(a)));
	for (i = 0; i < c->ntset; i++)
		fprintf(fp, " -t %s", c->tset[i]);
	if (c->rho > 0) {
		trace_format_time(c->rho, a, sizeof(a));
		fprintf(fp, " -D %s", a);
	}
	if (c->offmax > 0)
		fprintf(fp, " -o %s", ms(c->offmax, a, sizeof(a)));
	if (c->reorder)
		fputs(" -R", fp);
	if (c->loss > 0)
		fprintf(fp, " -x %u", c->loss);
	if (c->dup > 0)
		fprintf(fp, " --dup %u", c->dup);
	if (c->delay > 0)
		fprintf(fp, " --delay %u", c->delay);
	if (c->oracle)
		fputs(" -O", fp);
	if (c->papers_net)
		fputs(" --papers-net", fp);
	if (c->names > 0)
		fprintf(fp, " --names %u", c->names);
	for (i = 0; c->epoch0 && i < c->n; i++)
		if (c->members0[i]) {
			fprintf(fp, "%s%u", sep ? "," : " -E ", c->ids[i]);
			sep = 1;
		}
	if (c->count > 0 && (c->faults & F_SCHEDULED)) {
		sim_faults_format(c->faults, a, sizeof(a));
		fprintf(fp, " --faults %s -r %u", a, c->count);
	}
	for (i = 0; i < c->nev; i++) {
		sched_format(&c->ev[i], c->ids, c->n, line, sizeof(line));
		fputs(" -e ", fp);
		quoted(fp, line);
	}
}
