/*
 * datadriven: runs the transcript files of a pure core, as etcd's raft
 * tests run theirs.  A file under t/testdata/CORE/ holds cases, each
 *
 *	COMMAND [KEY=VALUE ...]		one input, as many lines as it takes
 *	----
 *	OUTPUT				what the core answered, exactly
 *					(a blank line ends the case)
 *
 * and lines starting with # between cases.  Cases run in order on one
 * core, so a file is a story.  The core is named by the file's directory.
 *
 *	datadriven [-r] FILE...
 *
 * Exit 0 when every output is as written, 1 when one differs (each named
 * FILE:LINE, with what was expected and what came), 2 for a file that
 * cannot be read.  -r rewrites the files with the outputs that came, for
 * a person to review with `git diff' before committing them.
 *
 * Cores: host (lib/host: the agreement of configurations, fit.h).
 */
#include <err.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/fit.h"
#include "util/util.h"

#define OUT_MAX		4096
#define ARGS_MAX	16
#define MS		INT64_C(1000000)

struct kv {
	char	*k, *v;
};

/* One core's adapter: resets its state, then runs one input. */
struct core {
	const char	*name;
	void		(*reset)(void);
	/* Appends its answer to OUT; returns 0, or -1 with the error
	 * written there instead. */
	int		(*run)(const char *cmd, struct kv *a, int n, char *out,
			    size_t len);
};

static const char *
arg(struct kv *a, int n, const char *k)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(a[i].k, k) == 0)
			return a[i].v;
	return NULL;
}

static int
num(const char *s, long long lo, long long hi, long long *v)
{
	const char *errstr;

	if (s == NULL)
		return -1;
	*v = strtonum(s, lo, hi, &errstr);
	return errstr == NULL ? 0 : -1;
}

static void
say(char *out, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
say(char *out, size_t len, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out + n, len - n, fmt, ap);
	va_end(ap);
}

/* host: fit.h over a table of peers.
 *
 *	init quorum=0|1			a fresh verdict
 *	peer id=N misfit=ok|algo|timing|cluster|key [at=MS]
 *					the handshake's view of peer N
 *	step now=MS			the verdict at NOW
 */
static struct fit host_fit;
static struct fit_peer host_peers[64];
static size_t host_npeers;

static void
host_reset(void)
{
	fit_init(&host_fit, 0);
	host_npeers = 0;
}

static int
host_misfit(const char *s, enum sess_misfit *m)
{
	enum sess_misfit f;

	if (s != NULL && strcmp(s, "ok") == 0) {
		*m = SESS_OK;
		return 0;
	}
	for (f = SESS_ALGO; f <= SESS_KEY; f++)
		if (s != NULL && strcmp(s, sess_misfit_name(f)) == 0) {
			*m = f;
			return 0;
		}
	return -1;
}

static int
host_run(const char *cmd, struct kv *a, int n, char *out, size_t len)
{
	long long id, at = 0, now, q;
	enum sess_misfit m;
	int64_t wake;
	size_t i;
	int changed;

	if (strcmp(cmd, "init") == 0) {
		if (num(arg(a, n, "quorum"), 0, 1, &q) == -1)
			goto usage;
		fit_init(&host_fit, (int)q);
		host_npeers = 0;
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "peer") == 0) {
		if (num(arg(a, n, "id"), 1, 65535, &id) == -1 ||
		    host_misfit(arg(a, n, "misfit"), &m) == -1 ||
		    (arg(a, n, "at") != NULL &&
		    num(arg(a, n, "at"), 0, INT64_MAX / MS, &at) == -1))
			goto usage;
		for (i = 0; i < host_npeers; i++)
			if (host_peers[i].id == id)
				break;
		if (i == nitems(host_peers)) {
			say(out, len, "error: too many peers\n");
			return -1;
		}
		if (i == host_npeers)
			host_npeers++;
		host_peers[i].id = (unsigned)id;
		host_peers[i].misfit = m;
		host_peers[i].odd_at = at * MS;
		say(out, len, "ok\n");
		return 0;
	}
	if (strcmp(cmd, "step") == 0) {
		if (num(arg(a, n, "now"), 0, INT64_MAX / MS, &now) == -1)
			goto usage;
		changed = fit_step(&host_fit, host_peers, host_npeers,
		    now * MS, &wake);
		say(out, len, "changed=%s lead=%s live=%u peers=%s wake=",
		    changed ? "yes" : "no", host_fit.vetoed ? "no" : "yes",
		    host_fit.live, host_fit.odd);
		if (wake == INT64_MAX)
			say(out, len, "-\n");
		else
			say(out, len, "%" PRId64 "\n", wake / MS);
		return 0;
	}
usage:
	say(out, len, "error: usage: init quorum=0|1 | peer id=N "
	    "misfit=ok|algo|timing|cluster|key [at=MS] | step now=MS\n");
	return -1;
}

static const struct core cores[] = {
	{ "host", host_reset, host_run },
};

/* A file's lines, to rewrite it. */
struct text {
	char	*buf;
	size_t	 len, cap;
};

static void
put(struct text *t, const char *s)
{
	size_t n = strlen(s);

	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		if ((t->buf = realloc(t->buf, t->cap)) == NULL)
			err(2, NULL);
	}
	memcpy(t->buf + t->len, s, n + 1);
	t->len += n;
}

/* Runs FILE; with REWRITE writes it back with the outputs that came.
 * Returns the number of cases whose output differed. */
static int
run_file(const char *file, int rewrite)
{
	const struct core *core = NULL;
	struct text txt = { 0 };
	char *line = NULL, *copy, *dir, *p, *words[ARGS_MAX + 1];
	char got[OUT_MAX], want[OUT_MAX], cmdline[OUT_MAX];
	struct kv kv[ARGS_MAX];
	size_t cap = 0, i;
	ssize_t len;
	unsigned long lineno = 0, at = 0;
	int bad = 0, state = 0, nw, nkv;
	FILE *fp;

	if ((copy = strdup(file)) == NULL)
		err(2, NULL);
	dir = basename(dirname(copy));
	for (i = 0; i < nitems(cores); i++)
		if (strcmp(cores[i].name, dir) == 0)
			core = &cores[i];
	if (core == NULL)
		errx(2, "%s: no core named %s", file, dir);
	free(copy);
	if ((fp = fopen(file, "r")) == NULL)
		err(2, "%s", file);
	core->reset();
	got[0] = want[0] = cmdline[0] = '\0';
	/* state 0: between cases; 1: reading commands; 2: reading output. */
	for (;;) {
		len = getline(&line, &cap, fp);
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		lineno++;
		if (len == -1 || (state == 2 && len == 0)) {
			if (state == 2 && strcmp(got, want) != 0) {
				bad++;
				fprintf(stderr, "%s:%lu: expected:\n%sgot:\n%s",
				    file, at, want, got);
			}
			if (state == 2) {
				put(&txt, got);
				if (len == 0)
					put(&txt, "\n");
			}
			if (len == -1)
				break;
			state = 0;
			got[0] = want[0] = '\0';
			continue;
		}
		if (state == 2) {
			say(want, sizeof(want), "%s\n", line);
			continue;
		}
		put(&txt, line);
		put(&txt, "\n");
		if (strcmp(line, "----") == 0) {
			if (state != 1)
				errx(2, "%s:%lu: ---- without a command",
				    file, lineno);
			state = 2;
			continue;
		}
		if (state == 0 && (len == 0 || line[0] == '#'))
			continue;
		if (state == 0)
			at = lineno;
		state = 1;
		if (strlcpy(cmdline, line, sizeof(cmdline)) >= sizeof(cmdline))
			errx(2, "%s:%lu: line too long", file, lineno);
		nw = 0;
		for (p = cmdline; (words[nw] = strsep(&p, " \t")) != NULL;)
			if (*words[nw] != '\0' && ++nw > ARGS_MAX)
				errx(2, "%s:%lu: too many words", file, lineno);
		for (nkv = 0; nkv < nw - 1; nkv++) {
			kv[nkv].k = words[nkv + 1];
			if ((p = strchr(kv[nkv].k, '=')) == NULL)
				errx(2, "%s:%lu: \"%s\" is not KEY=VALUE", file,
				    lineno, kv[nkv].k);
			*p = '\0';
			kv[nkv].v = p + 1;
		}
		if (nw > 0)
			core->run(words[0], kv, nkv, got, sizeof(got));
	}
	if (state == 1)
		errx(2, "%s:%lu: a command without ---- and its output", file,
		    lineno);
	fclose(fp);
	free(line);
	if (rewrite) {
		if ((fp = fopen(file, "w")) == NULL ||
		    fputs(txt.buf != NULL ? txt.buf : "", fp) == EOF ||
		    fclose(fp) == EOF)
			err(2, "%s", file);
	}
	free(txt.buf);
	return bad;
}

int
main(int argc, char *argv[])
{
	int ch, rewrite = 0, bad = 0;

	while ((ch = getopt(argc, argv, "r")) != -1) {
		switch (ch) {
		case 'r':
			rewrite = 1;
			break;
		default:
			fprintf(stderr, "usage: datadriven [-r] file ...\n");
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		fprintf(stderr, "usage: datadriven [-r] file ...\n");
		return 2;
	}
	for (; argc > 0; argc--, argv++)
		bad += run_file(*argv, rewrite);
	return bad > 0 && !rewrite ? 1 : 0;
}
