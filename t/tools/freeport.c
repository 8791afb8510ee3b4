/*
 * freeport [-n COUNT] [-w WIDTH]: prints COUNT port numbers P on 127.0.0.1
 * such that P .. P+WIDTH-1 are all free for both UDP and TCP right now.
 * Tests use it to pick ports for the clusters they start.
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/util.h"

static int
free_port(int type, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int s, ok;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)port);
	if ((s = socket(AF_INET, type, 0)) == -1)
		err(1, "socket");
	ok = bind(s, (struct sockaddr *)&sin, sizeof(sin)) == 0;
	close(s);
	return ok;
}

int
main(int argc, char *argv[])
{
	int ch, count = 1, width = 1, found = 0, port, i, tries;

	while ((ch = getopt(argc, argv, "n:w:")) != -1) {
		switch (ch) {
		case 'n':
			count = (int)arg_num(optarg, 1, 1000, "-n");
			break;
		case 'w':
			width = (int)arg_num(optarg, 1, 100, "-w");
			break;
		default:
			fprintf(stderr, "usage: freeport [-n count] [-w width]\n");
			return 2;
		}
	}
	for (tries = 0; found < count && tries < 100000; tries++) {
		port = 20000 + (int)arc4random_uniform(40000 - (uint32_t)width);
		for (i = 0; i < width; i++)
			if (!free_port(SOCK_DGRAM, port + i) ||
			    !free_port(SOCK_STREAM, port + i))
				break;
		if (i < width)
			continue;
		printf("%d\n", port);
		found++;
	}
	return found == count ? 0 : 1;
}
