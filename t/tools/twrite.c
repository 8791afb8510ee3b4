/*
 * twrite [-c count] [-k keyfile] [-n node] [-r rate] [-w seconds] dest:
 * writes COUNT
 * trace lines "send to=1 msg=Seq elid=I" (I from 1) for NODE through the
 * shared trace writer (tw_open(DEST)), RATE lines a second, driving it
 * from a poll loop as the daemons do; then writes "exit why=done" and
 * closes the writer, waiting up to
 * SECONDS for the collector, and prints the lines it counted as lost.
 * Tests use it to restart a collector under a writer.  With -k it proves
 * NODE to the collector with the key in KEYFILE.
 */
#include <err.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "net/key.h"
#include "util/util.h"

int
main(int argc, char *argv[])
{
	struct trace_writer *w;
	long long count = 100, rate = 100, i = 0;
	unsigned node = 1;
	int ch, wait_s = 5;
	const char *keyfile = NULL;
	uint8_t key[KEY_MAX][KEY_BYTES];
	char msg[256];
	int64_t start;

	while ((ch = getopt(argc, argv, "c:k:n:r:w:")) != -1) {
		switch (ch) {
		case 'c':
			count = arg_num(optarg, 0, 100000000, "-c");
			break;
		case 'k':
			keyfile = optarg;
			break;
		case 'n':
			node = arg_id(optarg, "-n");
			break;
		case 'r':
			rate = arg_num(optarg, 1, 10000000, "-r");
			break;
		case 'w':
			wait_s = (int)arg_num(optarg, 0, 3600, "-w");
			break;
		default:
			fprintf(stderr, "usage: twrite [-c count] [-k keyfile] "
			    "[-n node] [-r rate] [-w seconds] dest\n");
			return 2;
		}
	}
	if (optind + 1 != argc)
		errx(2, "one destination expected");
	if ((w = tw_open(argv[optind], STDOUT_FILENO)) == NULL)
		err(2, "%s", argv[optind]);
	if (keyfile != NULL) {
		if (key_load(keyfile, key, msg, sizeof(msg)) == -1)
			errx(2, "%s", msg);
		tw_auth(w, key[0], node);
	}
	start = mono_now();
	while (i < count) {
		struct pollfd pfd;
		long long due = (mono_now() - start) / (1000000000 / rate) + 1;
		int ms = tw_pollfd(w, &pfd);

		while (i < due && i < count) {
			i++;
			tw_event(w, node, "send to=1 msg=Seq elid=%lld", i);
		}
		if (ms == -1 || ms > 1)
			ms = 1;
		poll(&pfd, 1, ms);
		tw_tick(w);
	}
	tw_event(w, node, "exit why=done");
	printf("%llu\n", (unsigned long long)tw_lost(w));
	fflush(stdout);
	tw_close(w, wait_s * 1000);
	return 0;
}
