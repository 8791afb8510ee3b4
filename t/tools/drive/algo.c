/*
 * algo-drive's driver: one election core through script lines (see
 * t/tools/algo-drive.c for the script and what is printed).
 */
#include <err.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"
#include "util/util.h"
#include "drive.h"

static FILE *fp;			/* where the actions go */
static const struct algo_ops *ops;
static struct algo_config cfg;
static uint16_t ids[ALGO_NODES_MAX];
static struct algo *core;
static struct algo_out out;
static algo_time deadline[ALGO_TIMERS_MAX];	/* -1: not set */
static uint8_t persisted[ALGO_PERSIST_MAX];
static size_t npersisted;
static int quiet;

static void
print_msg(const struct algo_msg *m, const char *dir)
{
	char e[ALGO_ELID_STRLEN], f[512];

	algo_msg_fields(ops, m, f, sizeof(f));
	fprintf(fp, "%s=%u msg=%s elid=%s%s\n", dir, m->peer,
	    algo_msg_name(ops, m->type), algo_elid_fmt(&m->elid, e, sizeof(e)),
	    f);
}

static void
print_actions(void)
{
	const struct algo_action *a;
	char buf[64], e[ALGO_ELID_STRLEN];
	size_t i, k;

	for (i = 0; i < out.n; i++) {
		a = &out.v[i];
		switch (a->type) {
		case ALGO_SEND:
			fprintf(fp, "send ");
			print_msg(&a->msg, "to");
			break;
		case ALGO_FD:
			fprintf(fp, "fd %s %u\n", algo_fd_op_name(a->fd.op),
			    a->fd.peer);
			break;
		case ALGO_TIMER_SET:
			deadline[a->timer.id] = a->timer.at;
			if (!quiet)
				fprintf(fp, "timer set %s at=%s\n",
				    algo_timer_name(ops, a->timer.id),
				    drive_fmt_ms(a->timer.at, buf, sizeof(buf)));
			break;
		case ALGO_TIMER_CANCEL:
			deadline[a->timer.id] = -1;
			if (!quiet)
				fprintf(fp, "timer cancel %s\n",
				    algo_timer_name(ops, a->timer.id));
			break;
		case ALGO_PERSIST:
			memcpy(persisted, a->persist.data, a->persist.len);
			npersisted = a->persist.len;
			fprintf(fp, "persist ");
			for (k = 0; k < a->persist.len; k++)
				fprintf(fp, "%02x", a->persist.data[k]);
			fprintf(fp, "\n");
			break;
		case ALGO_STATE:
			fprintf(fp, "state status=%s ldr=",
			    trace_status_name(a->state.status));
			if (a->state.ldr == 0)
				fprintf(fp, "-");
			else
				fprintf(fp, "%u", a->state.ldr);
			fprintf(fp, " grp=%s\n",
			    algo_elid_fmt(&a->state.grp, e, sizeof(e)));
			break;
		case ALGO_TRACE:
			fprintf(fp, "trace %s\n", algo_out_text(&out, a));
			break;
		case ALGO_EDICT:
			fprintf(fp, "edict from=%u token=%llu seq=%llu "
			    "delivered=%s text=%s\n", a->edict.from,
			    (unsigned long long)a->edict.token,
			    (unsigned long long)a->edict.seq,
			    a->edict.delivered ? "yes" : "no", a->edict.text);
			break;
		}
	}
	algo_out_clear(&out);
}

static void
print_rc(int rc)
{
	switch (rc) {
	case ALGO_OK:
		break;
	case ALGO_EINVAL:
		fprintf(fp, "error refused\n");
		break;
	case ALGO_ENOTSUP:
		fprintf(fp, "error not supported\n");
		break;
	case ALGO_ENOTLEADER:
		fprintf(fp, "error not leader\n");
		break;
	default:
		fprintf(fp, "error %d\n", rc);
		break;
	}
}

static void
do_boot(char **argv, int argc, algo_time now)
{
	char err[128], *k, *v;
	int i;

	if (argc < 1 || argc > 2)
		drive_bad("boot takes inc=K [epoch=E]");
	drive_split(argv[0], &k, &v);
	if (strcmp(k, "inc") != 0)
		drive_bad("boot takes inc=K [epoch=E]");
	cfg.inc = drive_num(v, 0, LLONG_MAX, "inc");
	if (argc == 2) {	/* a restart in another epoch's state */
		drive_split(argv[1], &k, &v);
		if (strcmp(k, "epoch") != 0)
			drive_bad("boot takes inc=K [epoch=E]");
		cfg.epoch = drive_num(v, 0, ALGO_EPOCH_MAX, "epoch");
	}
	if (core != NULL) {
		algo_free(core);
		cfg.epoch_fresh = 0;	/* a restart */
	}
	for (i = 0; i < ALGO_TIMERS_MAX; i++)
		deadline[i] = -1;
	cfg.persist = npersisted > 0 ? persisted : NULL;
	cfg.persistlen = npersisted;
	if ((core = algo_boot(ops, &cfg, now, &out, err, sizeof(err))) == NULL)
		drive_bad("boot: %s", err);
	print_actions();
}

static void
do_recv(char **argv, int argc, struct algo_input *in)
{
	struct algo_msg *m = &in->msg;
	char *k, *v;
	int i, from = 0;

	in->type = ALGO_IN_RECV;
	for (i = 0; i < argc; i++) {
		drive_split(argv[i], &k, &v);
		if (strcmp(k, "from") == 0) {
			m->peer = drive_id(v, "from");
			from = 1;
		} else if (strcmp(k, "msg") == 0) {
			if ((m->type = algo_msg_type(ops, v)) == 0)
				drive_bad("%s has no message %s", ops->name, v);
		} else if (strcmp(k, "elid") == 0) {
			if (algo_elid_parse(v, &m->elid) == -1)
				drive_bad("bad elid \"%s\"", v);
		} else if (algo_msg_set_field(ops, m, k, v) == -1)
			drive_bad("bad field %s=%s", k, v);
	}
	if (!from || m->type == 0)
		drive_bad("recv needs from= and msg=");
}

static void
do_cmd(char **argv, int argc, struct algo_input *in)
{
	struct algo_cmd *c = &in->cmd;

	in->type = ALGO_IN_CMD;
	if (argc < 1)
		drive_bad("cmd needs a command");
	if (strcmp(argv[0], "leave") == 0)
		c->code = ALGO_CMD_LEAVE;
	else if (strcmp(argv[0], "release") == 0)
		c->code = ALGO_CMD_RELEASE;
	else if (strcmp(argv[0], "edict") == 0)
		c->code = ALGO_CMD_EDICT;
	else if (strcmp(argv[0], "wedge") == 0)
		c->code = ALGO_CMD_WEDGE;
	else if (strcmp(argv[0], "terminated") == 0)
		c->code = ALGO_CMD_TERMINATED;
	else
		drive_bad("unknown command %s", argv[0]);
	if (argc > 1) {
		if ((c->len = strlen(argv[1])) > ALGO_CMD_MAX)
			drive_bad("command argument too long");
		memcpy(c->data, argv[1], c->len);
	}
}

static void
do_query(algo_time now)
{
	struct algo_status st;
	char e[ALGO_ELID_STRLEN], t[64];

	algo_query(core, now, &st);
	fprintf(fp, "status status=%s ldr=",
	    trace_status_name(st.state.status));
	if (st.state.ldr == 0)
		fprintf(fp, "-");
	else
		fprintf(fp, "%u", st.state.ldr);
	fprintf(fp, " grp=%s leader=%s since=%s%s%s\n",
	    algo_elid_fmt(&st.state.grp, e, sizeof(e)),
	    st.leader ? "yes" : "no", drive_fmt_ms(st.since, t, sizeof(t)),
	    st.extra[0] ? " " : "", st.extra);
}

/* The common status's leadership: until (ms, "forever" or "-"), token,
 * hint. */
static void
do_leadership(algo_time now)
{
	struct algo_status st;
	char t[64];

	algo_query(core, now, &st);
	if (st.until == ALGO_FOREVER)
		strlcpy(t, "forever", sizeof(t));
	else if (st.until == 0)
		strlcpy(t, "-", sizeof(t));
	else
		drive_fmt_ms(st.until, t, sizeof(t));
	fprintf(fp, "leadership leader=%s until=%s token=%llu hint=",
	    st.leader ? "yes" : "no", t, (unsigned long long)st.token);
	if (st.hint == 0)
		fprintf(fp, "-\n");
	else
		fprintf(fp, "%u\n", st.hint);
}

static unsigned
timer_id(const char *s)
{
	unsigned id;

	for (id = 0; id < ops->ntimer; id++)
		if (strcmp(algo_timer_name(ops, id), s) == 0)
			return id;
	drive_bad("%s has no timer %s", ops->name, s);
}

void
algo_drive_line(char *line, FILE *to)
{
	struct algo_input in;
	char *argv[64], *what;
	algo_time now;
	int argc;

	fp = to;
	if ((argc = drive_input(line, argv, (int)nitems(argv), fp)) == 0)
		return;
	now = drive_parse_ms(argv[0]);
	what = argv[1];
	if (strcmp(what, "boot") == 0) {
		do_boot(argv + 2, argc - 2, now);
		return;
	}
	if (core == NULL)
		drive_bad("the first input must be boot");
	memset(&in, 0, sizeof(in));
	in.now = now;
	if (strcmp(what, "recv") == 0)
		do_recv(argv + 2, argc - 2, &in);
	else if (strcmp(what, "down") == 0 && argc == 3) {
		in.type = ALGO_IN_DOWN;
		in.down = drive_id(argv[2], "down");
	} else if (strcmp(what, "timer") == 0 && argc == 3) {
		in.type = ALGO_IN_TIMER;
		in.timer = timer_id(argv[2]);
		if (deadline[in.timer] < 0)
			drive_bad("timer %s is not set", argv[2]);
		if (now < deadline[in.timer])
			drive_bad("timer %s fired before its deadline", argv[2]);
		deadline[in.timer] = -1;
	} else if (strcmp(what, "cmd") == 0)
		do_cmd(argv + 2, argc - 2, &in);
	else if (strcmp(what, "query") == 0 && argc == 2) {
		do_query(now);
		return;
	} else if (strcmp(what, "leadership") == 0 && argc == 2) {
		do_leadership(now);
		return;
	} else
		drive_bad("unknown input \"%s\"", what);
	print_rc(algo_step(core, &in, &out));
	print_actions();
}

/* "1,3,7" into ids[]. */
static size_t
parse_ids(char *s)
{
	char *p;
	size_t n = 0;

	while ((p = strsep(&s, ",")) != NULL) {
		if (n == ALGO_NODES_MAX)
			drive_bad("too many ids");
		ids[n++] = drive_id(p, "-c");
	}
	return n;
}

void
algo_drive_start(int argc, char *argv[])
{
	size_t i;
	int ch;

	algo_drive_end();
	memset(&cfg, 0, sizeof(cfg));
	ops = NULL;
	npersisted = 0;
	quiet = 0;
	algo_timing_default(&cfg.timing);
	optind = 0;
	while ((ch = getopt(argc, argv, "a:c:e:Fi:n:pqs:t:")) != -1) {
		switch (ch) {
		case 'a':
			if ((ops = algo_find(optarg)) == NULL)
				drive_bad("unknown algorithm %s", optarg);
			break;
		case 'c':
			cfg.nids = parse_ids(optarg);
			break;
		case 'e':
			cfg.epoch = drive_num(optarg, 0, ALGO_EPOCH_MAX, "-e");
			break;
		case 'i':
			cfg.self = drive_id(optarg, "-i");
			break;
		case 'n':
			cfg.nids = drive_num(optarg, 1, ALGO_NODES_MAX, "-n");
			for (i = 0; i < cfg.nids; i++)
				ids[i] = i + 1;
			break;
		case 'p':
			cfg.epoch_pending = 1;
			break;
		case 'F':
			cfg.epoch_fresh = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 's':
			cfg.seed = drive_num(optarg, 0, LLONG_MAX, "-s");
			break;
		case 't':
			if (algo_timing_set(&cfg.timing, optarg) == -1)
				drive_bad("-t %s: expected NAME=MS", optarg);
			break;
		default:
			drive_bad("usage: -a ALGO -i ID (-n N | -c ID,...) [-q] "
			    "[-s SEED] [-t NAME=MS ...] [-e EPOCH [-p] [-F]]");
		}
	}
	if (optind != argc || ops == NULL || cfg.self == 0 || cfg.nids == 0)
		drive_bad("usage: -a ALGO -i ID (-n N | -c ID,...) [-q] "
		    "[-s SEED] [-t NAME=MS ...] [-e EPOCH [-p] [-F]]");
	cfg.ids = ids;
	algo_out_init(&out);
}

void
algo_drive_end(void)
{
	if (core != NULL)
		algo_free(core);
	core = NULL;
	algo_out_free(&out);
}
