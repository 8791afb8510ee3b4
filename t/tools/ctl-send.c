/*
 * ctl-send SOCKET: sends stdin, byte for byte, to the unix stream socket
 * SOCKET, closes its side for writing, then prints what comes back until
 * the daemon closes the connection (or is silent for two seconds).  Tests use it to speak the control
 * protocol, and to speak it badly.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <err.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define QUIET_MS	2000

int
main(int argc, char *argv[])
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct pollfd pfd;
	char buf[4096];
	ssize_t n;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: ctl-send socket < lines\n");
		return 2;
	}
	if (strlcpy(sun.sun_path, argv[1], sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path))
		errx(2, "%s: path too long", argv[1]);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		err(1, "socket");
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		err(1, "%s", argv[1]);
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			err(1, "write");
	shutdown(fd, SHUT_WR);
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, QUIET_MS) == 1) {
		if ((n = read(fd, buf, sizeof(buf))) <= 0)
			break;
		fwrite(buf, 1, (size_t)n, stdout);
	}
	close(fd);
	return 0;
}
