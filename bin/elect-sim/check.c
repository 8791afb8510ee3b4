/* A run checked in-process: each trace line goes through elect-check's
 * own reader and assertions as it is made, with no pipe, no process. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "elect-sim.h"
#include "trace/trace.h"
#include "util/util.h"

struct feed {
	struct checker	*ck;
	FILE		*trace;
	unsigned long	 lineno;
	const char	*why;
	char		 buf[256];
};

const char *
sim_check_set(const struct sim_conf *c)
{
	const char *name = algo_name(c->ops);
	const char *set = check_algo_set(name, strlen(name));

	return set != NULL ? set : "async";
}

/* Elections of up to 17 nodes settle within a second and a half in the
 * simulator, larger ones take some 30 ms more per node (bully asks the
 * nodes above it one after another); lease gets elect-check's own bound,
 * as its quorums wait out leases. */
algo_time
sim_check_c(const struct sim_conf *c)
{
	if (strcmp(sim_check_set(c), "lease") == 0)
		return CHECK_C_DEFAULT;
	return 1500 * ALGO_MS + (c->n > 17 ? (algo_time)(c->n - 17) *
	    30 * ALGO_MS : 0);
}

static void
feed_line(void *arg, const char *line, size_t len)
{
	struct feed *f = arg;
	struct trace_event ev;
	const char *why;

	if (f->trace != NULL) {
		fwrite(line, 1, len, f->trace);
		putc('\n', f->trace);
	}
	f->lineno++;
	if (f->why != NULL)
		return;
	if ((why = trace_parse_line(line, len, &ev, 0, f->buf,
	    sizeof(f->buf))) != NULL) {
		snprintf(f->buf, sizeof(f->buf), "-:%lu: %s", f->lineno, why);
		f->why = f->buf;
		return;
	}
	ev.file = "-";
	ev.lineno = f->lineno;
	if ((why = checker_event(f->ck, &ev)) != NULL) {
		strlcpy(f->buf, why, sizeof(f->buf));
		f->why = f->buf;
	}
}

static void
add(struct sim_verdict *v, const char *name, unsigned long count, int kind)
{
	if (v->n == VERDICT_MAX)
		return;
	v->name[v->n] = name;
	v->count[v->n] = count;
	v->kind[v->n++] = kind;
	v->failed = 1;
}

void
sim_check(const struct sim_conf *c, FILE *out, FILE *trace,
    struct sim_verdict *v, struct sim_result *res)
{
	static FILE *null;
	struct check_opts o = { CHECK_C_DEFAULT, CHECK_FD_LATENCY_DEFAULT, 0,
	    0, NULL, 0, NULL, -1 };
	struct sim_result local;
	struct feed f;
	const char *name, *why;
	unsigned long k[3];
	size_t i;
	int j;

	if (out == NULL && null == NULL && (null = fopen("/dev/null",
	    "w")) == NULL)
		err(1, "/dev/null");
	memset(v, 0, sizeof(*v));
	memset(&f, 0, sizeof(f));
	o.c = sim_check_c(c);
	f.trace = trace;
	f.ck = checker_new(&o, out != NULL ? out : null, 0);
	if (checker_add_set(f.ck, sim_check_set(c)) == -1)
		errx(1, "no assertion set %s", sim_check_set(c));
	if (res == NULL) {
		memset(&local, 0, sizeof(local));
		local.quiet = 1;
		res = &local;
	}
	sim_run(c, feed_line, &f, res);
	if (f.why == NULL && (why = checker_finish(f.ck)) != NULL)
		f.why = why;
	if (f.why != NULL) {
		strlcpy(v->why, f.why, sizeof(v->why));
		add(v, "unreadable", 1, 0);
	} else
		for (i = 0; checker_tally(f.ck, i, &name, k); i++)
			for (j = 0; j < 3; j++)
				if (k[j] > 0) {
					add(v, name, k[j], j);
					break;
				}
	if (res->violations > 0)
		add(v, "oracle", res->violations, 0);
	v->simsec = (double)c->dur / 1e9;
	checker_free(f.ck);
	if (res == &local)
		sim_result_free(&local);
}

void
sim_verdict_names(const struct sim_verdict *v, char *buf, size_t len)
{
	static const char *const pre[3] = { "", "undecided:", "notjudged:" };
	size_t i;

	if (len > 0)
		buf[0] = '\0';
	for (i = 0; i < v->n; i++) {
		if (i > 0)
			strlcat(buf, ",", len);
		strlcat(buf, pre[v->kind[i]], len);
		strlcat(buf, v->name[i], len);
	}
}
