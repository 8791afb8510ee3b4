/*
 * guard-drive: runs the guard of --run-if-leader (lib/guard) through a
 * script of inputs read from stdin and prints every action it takes, one
 * per line, so that tests can assert when a command starts and when it is
 * signalled without processes or clocks.
 *
 *	guard-drive [-q] [-w] [-E code] [-g grace] [-t NAME=MS ...] < script
 *
 * -g is the grace in milliseconds (default 20), -w is --wait, -E the
 * status when the node does not lead; -t lease=, renew=, rtt=, drift=
 * are the daemon's timings its lease replies carry (defaults 80, 20, 5,
 * 0.001).  Script lines are "TIME INPUT ARGS", TIME in milliseconds; time
 * may go back, as a broken clock would:
 *
 *	0 reply leader=yes token=7 until=300	the daemon's answer, under
 *						lease (until in ms), or with
 *						algo=NAME under an algorithm
 *						whose leadership has no
 *						deadline
 *	1 leaving				the registration: err leaving
 *	1 refused				an ask found no daemon
 *	1 noreply				an ask closed without a reply
 *	1 stop					the registration: ok stop
 *	1 hangup				the daemon closed it
 *	1 dead					the daemon's process ended
 *	1 exited				the command's process died
 *	1 reaped exit=N | signal=N		its group is gone
 *	1 tick
 *
 * Each input is echoed as "> LINE", then its actions and the next wake:
 *
 *	register | unregister | start token=T | ask | cancel
 *	term why=W | kill why=W | exit status=N why=W [room=MS]
 *	release why=W
 *	wake at=MS | wake none			when it changed (-q: never)
 *	error refused				the input cannot come now
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
#include "script.h"

static struct guard g;
static struct algo_timing timing;
static algo_time last_wake = -1;
static int quiet;

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout, "usage: %s [-qw] [-E code] "
	    "[-g grace] [-t NAME=MS ...] < script\n", getprogname());
	exit(status);
}

static void
do_reply(char **argv, int argc, struct guard_reply *r)
{
	struct algo_timing t = timing;
	char *k, *v, kv[64];
	int i, leader = 0;

	memset(r, 0, sizeof(*r));
	r->lease = 1;
	for (i = 0; i < argc; i++) {
		split(argv[i], &k, &v);
		if (strcmp(k, "leader") == 0) {
			r->leader = strcmp(v, "yes") == 0;
			leader = 1;
		} else if (strcmp(k, "algo") == 0)
			r->lease = strcmp(v, "lease") == 0;
		else if (strcmp(k, "token") == 0)
			r->token = arg_num(v, 0, LLONG_MAX, "token");
		else if (strcmp(k, "until") == 0)
			r->until = parse_ms(v);
		else {
			snprintf(kv, sizeof(kv), "%s=%s", k, v);
			if ((strcmp(k, "lease") != 0 && strcmp(k, "renew") != 0 &&
			    strcmp(k, "rtt") != 0 && strcmp(k, "drift") != 0) ||
			    algo_timing_set(&t, kv) == -1)
				bad("bad field %s", kv);
		}
	}
	if (!leader)
		bad("reply needs leader=");
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
		printf("%s", guard_act_name(a->type));
		switch (a->type) {
		case GUARD_START:
			printf(" token=%" PRIu64, a->token);
			break;
		case GUARD_TERM:
		case GUARD_KILL:
		case GUARD_RELEASE:
			printf(" why=%s", guard_why_name(a->why));
			break;
		case GUARD_EXIT:
			printf(" status=%d why=%s", a->status,
			    guard_why_name(a->why));
			if (a->why == GUARD_WHY_BADGRACE)
				printf(" room=%s", fmt_ms(a->room, buf,
				    sizeof(buf)));
			break;
		default:
			break;
		}
		printf("\n");
	}
	if (!quiet && o->wake != last_wake) {
		if (o->wake == -1)
			printf("wake none\n");
		else
			printf("wake at=%s\n", fmt_ms(o->wake, buf, sizeof(buf)));
	}
	last_wake = o->wake;
}

static void
run_line(char *line)
{
	struct guard_input in;
	struct guard_out o;
	char *argv[32], *what, *k, *v;
	int argc;

	if ((argc = fields(line, argv, (int)nitems(argv))) == 0)
		return;
	if (argc < 2)
		bad("expected TIME INPUT");
	printf(">");
	for (int i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	memset(&in, 0, sizeof(in));
	in.now = parse_ms(argv[0]);
	what = argv[1];
	if (strcmp(what, "reply") == 0) {
		in.type = GUARD_IN_REPLY;
		do_reply(argv + 2, argc - 2, &in.reply);
	} else if (strcmp(what, "reaped") == 0) {
		in.type = GUARD_IN_REAPED;
		if (argc != 3)
			bad("reaped takes exit=N or signal=N");
		split(argv[2], &k, &v);
		if (strcmp(k, "exit") == 0)
			in.status = (int)arg_num(v, 0, 255, "exit") << 8;
		else if (strcmp(k, "signal") == 0)
			in.status = (int)arg_num(v, 1, 64, "signal");
		else
			bad("reaped takes exit=N or signal=N");
	} else {
		for (in.type = GUARD_IN_TICK; in.type <= GUARD_IN_DEAD;
		    in.type++)
			if (strcmp(guard_in_name(in.type), what) == 0)
				break;
		if (in.type > GUARD_IN_DEAD || argc != 2)
			bad("unknown input \"%s\"", what);
	}
	if (guard_step(&g, &in, &o) == -1)
		printf("error refused\n");
	print_out(&o);
}

int
main(int argc, char *argv[])
{
	struct guard_config cfg = { .grace = -1, .ecode = EXIT_NO };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ch;

	algo_timing_default(&timing);
	while ((ch = getopt(argc, argv, "E:g:hqt:w")) != -1) {
		switch (ch) {
		case 'E':
			cfg.ecode = (int)arg_num(optarg, 0, 255, "-E");
			break;
		case 'g':
			cfg.grace = arg_num(optarg, 0, GUARD_GRACE_MAX / ALGO_MS,
			    "-g") * ALGO_MS;
			break;
		case 'h':
			usage(0);
		case 'q':
			quiet = 1;
			break;
		case 't':
			if (algo_timing_set(&timing, optarg) == -1)
				errx(EXIT_USAGE, "-t %s: expected NAME=MS",
				    optarg);
			break;
		case 'w':
			cfg.wait = 1;
			break;
		default:
			usage(EXIT_USAGE);
		}
	}
	if (optind != argc)
		usage(EXIT_USAGE);
	guard_init(&g, &cfg);
	while ((len = getline(&line, &cap, stdin)) != -1) {
		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		run_line(line);
	}
	free(line);
	return 0;
}
