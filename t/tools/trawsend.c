/*
 * trawsend [-h] [-p] address: sends its standard input, byte for byte, to
 * a collector (unix:PATH or tcp:HOST:PORT), then closes the connection;
 * with -h it holds the connection open until killed, with -p it then
 * prints what the collector wrote back.  Tests use it to play the peers
 * that misbehave: garbage, a line cut in the middle, a stuck sender.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <netdb.h>

#include <err.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/resolve.h"

static int
dial(const char *addr)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	char host[256], *port;
	int s;

	if (strncmp(addr, "unix:", 5) == 0) {
		strlcpy(sun.sun_path, addr + 5, sizeof(sun.sun_path));
		if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
		    connect(s, (struct sockaddr *)&sun, sizeof(sun)) == -1)
			err(1, "%s", addr);
		return s;
	}
	if (strncmp(addr, "tcp:", 4) != 0 ||
	    strlcpy(host, addr + 4, sizeof(host)) >= sizeof(host) ||
	    (port = strrchr(host, ':')) == NULL)
		errx(2, "%s: expected unix:PATH or tcp:HOST:PORT", addr);
	*port++ = '\0';
	if (net_getaddrinfo(host, port, &hints, &ai) != 0)
		errx(1, "%s: cannot resolve", addr);
	if ((s = socket(ai->ai_family, SOCK_STREAM, 0)) == -1 ||
	    connect(s, ai->ai_addr, ai->ai_addrlen) == -1)
		err(1, "%s", addr);
	net_freeaddrinfo(ai);
	return s;
}

static volatile sig_atomic_t done;

static void
on_term(int sig)
{
	done = 1;
}

int
main(int argc, char *argv[])
{
	struct sigaction sa = { .sa_handler = on_term };
	char buf[8192];
	ssize_t n;
	int ch, hold = 0, print = 0, s;

	while ((ch = getopt(argc, argv, "hp")) != -1) {
		switch (ch) {
		case 'h':
			hold = 1;
			break;
		case 'p':
			print = 1;
			break;
		default:
			fprintf(stderr, "usage: trawsend [-hp] address\n");
			return 2;
		}
	}
	if (optind + 1 != argc)
		errx(2, "one address expected");
	signal(SIGPIPE, SIG_IGN);
	s = dial(argv[optind]);
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
		if (write(s, buf, (size_t)n) != n)
			err(1, "write");
	sigaction(SIGTERM, &sa, NULL);
	if (hold) {
		printf("holding\n");
		fflush(stdout);
		while (!done)
			pause();
	}
	shutdown(s, SHUT_WR);
	while ((n = read(s, buf, sizeof(buf))) > 0)
		if (print)
			fwrite(buf, 1, (size_t)n, stdout);
	close(s);
	return 0;
}
