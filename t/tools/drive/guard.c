/*
 * guard-drive's driver: the guard through script lines (see
 * t/tools/guard-drive.c for the script and what is printed).
 */
#include <err.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard/guard.h"
#include "util/util.h"
#include "drive.h"

static FILE *fp;			/* where the actions go */
static struct guard g;
static struct algo_timing timing;
static algo_time last_wake = -1;
static int quiet;

static void
do_reply(char **argv, int argc, struct guard_reply *r)
{
	struct algo_timing t = timing;
	char *k, *v, kv[64];
	int i, leader = 0;

	memset(r, 0, sizeof(*r));
	r->lease = 1;
	for (i = 0; i < argc; i++) {
		drive_split(argv[i], &k, &v);
		if (strcmp(k, "leader") == 0) {
			r->leader = strcmp(v, "yes") == 0;
			leader = 1;
		} else if (strcmp(k, "algo") == 0)
			r->lease = strcmp(v, "lease") == 0;
		else if (strcmp(k, "token") == 0)
			r->token = drive_num(v, 0, LLONG_MAX, "token");
		else if (strcmp(k, "until") == 0)
			r->until = drive_parse_ms(v);
		else {
			snprintf(kv, sizeof(kv), "%s=%s", k, v);
			if ((strcmp(k, "lease") != 0 && strcmp(k, "renew") != 0 &&
			    strcmp(k, "rtt") != 0 && strcmp(k, "drift") != 0) ||
			    algo_timing_set(&t, kv) == -1)
				drive_bad("bad field %s", kv);
		}
	}
	if (!leader)
		drive_bad("reply needs leader=");
	if (r->lease) {
		r->tlease = t.lease;
		r->renew = t.renew;
		r->rtt = t.rtt;
		r->drift = t.drift;
	}
}

static void
print_out(const struct guard_out *o)
{
	const struct guard_action *a;
	char buf[64];
	size_t i;

	for (i = 0; i < o->n; i++) {
		a = &o->v[i];
		fprintf(fp, "%s", guard_act_name(a->type));
		switch (a->type) {
		case GUARD_START:
			fprintf(fp, " token=%" PRIu64, a->token);
			break;
		case GUARD_TERM:
		case GUARD_KILL:
		case GUARD_RELEASE:
			fprintf(fp, " why=%s", guard_why_name(a->why));
			break;
		case GUARD_EXIT:
			fprintf(fp, " status=%d why=%s", a->status,
			    guard_why_name(a->why));
			if (a->why == GUARD_WHY_BADGRACE)
				fprintf(fp, " room=%s", drive_fmt_ms(a->room, buf,
				    sizeof(buf)));
			break;
		default:
			break;
		}
		fprintf(fp, "\n");
	}
	if (!quiet && o->wake != last_wake) {
		if (o->wake == -1)
			fprintf(fp, "wake none\n");
		else
			fprintf(fp, "wake at=%s\n", drive_fmt_ms(o->wake, buf, sizeof(buf)));
	}
	last_wake = o->wake;
}

void
guard_drive_line(char *line, FILE *to)
{
	struct guard_input in;
	struct guard_out o;
	char *argv[32], *what, *k, *v;
	int argc;

	fp = to;
	if ((argc = drive_input(line, argv, (int)nitems(argv), fp)) == 0)
		return;
	memset(&in, 0, sizeof(in));
	in.now = drive_parse_ms(argv[0]);
	what = argv[1];
	if (strcmp(what, "reply") == 0) {
		in.type = GUARD_IN_REPLY;
		do_reply(argv + 2, argc - 2, &in.reply);
	} else if (strcmp(what, "reaped") == 0) {
		in.type = GUARD_IN_REAPED;
		if (argc != 3)
			drive_bad("reaped takes exit=N or signal=N");
		drive_split(argv[2], &k, &v);
		if (strcmp(k, "exit") == 0)
			in.status = (int)drive_num(v, 0, 255, "exit") << 8;
		else if (strcmp(k, "signal") == 0)
			in.status = (int)drive_num(v, 1, 64, "signal");
		else
			drive_bad("reaped takes exit=N or signal=N");
	} else {
		for (in.type = GUARD_IN_TICK; in.type <= GUARD_IN_DEAD;
		    in.type++)
			if (strcmp(guard_in_name(in.type), what) == 0)
				break;
		if (in.type > GUARD_IN_DEAD || argc != 2)
			drive_bad("unknown input \"%s\"", what);
	}
	if (guard_step(&g, &in, &o) == -1)
		fprintf(fp, "error refused\n");
	print_out(&o);
}

void
guard_drive_start(int argc, char *argv[])
{
	struct guard_config cfg = { .grace = -1, .ecode = EXIT_NO };
	int ch;

	algo_timing_default(&timing);
	last_wake = -1;
	quiet = 0;
	optind = 0;
	while ((ch = getopt(argc, argv, "E:g:qt:w")) != -1) {
		switch (ch) {
		case 'E':
			cfg.ecode = (int)drive_num(optarg, 0, 255, "-E");
			break;
		case 'g':
			cfg.grace = drive_num(optarg, 0, GUARD_GRACE_MAX / ALGO_MS,
			    "-g") * ALGO_MS;
			break;
		case 'q':
			quiet = 1;
			break;
		case 't':
			if (algo_timing_set(&timing, optarg) == -1)
				drive_bad("-t %s: expected NAME=MS",
				    optarg);
			break;
		case 'w':
			cfg.wait = 1;
			break;
		default:
			drive_bad("usage: [-qw] [-E code] [-g grace] "
			    "[-t NAME=MS ...]");
		}
	}
	if (optind != argc)
		drive_bad("usage: [-qw] [-E code] [-g grace] [-t NAME=MS ...]");
	guard_init(&g, &cfg);
}
