/*
 * The failure detector as a child process, spoken to over two pipes in
 * elect-fd's line protocol: commands go to its stdin, "down ID" lines come
 * from its stdout.  Neither side ever blocks on the other.
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"

int
fdc_start(struct fdc *c, char *const argv[])
{
	sigset_t none;
	int in[2], out[2];
	pid_t parent = getpid();

	memset(c, 0, sizeof(*c));
	c->in = c->out = -1;
	if (pipe2(in, O_CLOEXEC) == -1)
		return -1;
	if (pipe2(out, O_CLOEXEC) == -1) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	switch (c->pid = fork()) {
	case -1:
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		return -1;
	case 0:
		/* The node blocks signals for its signalfd; the child not. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		/* If the node dies, the detector follows. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 ||
		    getppid() != parent)
			_exit(127);
		if (dup2(in[0], STDIN_FILENO) == -1 ||
		    dup2(out[1], STDOUT_FILENO) == -1)
			_exit(127);
		closefrom(STDERR_FILENO + 1);
		execv(argv[0], argv);
		warn("%s", argv[0]);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = out[0];
	if (fcntl(c->in, F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(c->out, F_SETFL, O_NONBLOCK) == -1)
		return -1;
	return 0;
}

/* Writes what the pipe takes now; -1 when the detector is gone. */
int
fdc_flush(struct fdc *c)
{
	while (c->olen > 0) {
		ssize_t n = write(c->in, c->obuf, c->olen);

		if (n == -1) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -1;
		}
		memmove(c->obuf, c->obuf + n, c->olen - (size_t)n);
		c->olen -= (size_t)n;
	}
	return 0;
}

/*
 * Queues one command line.  A detector that leaves FDC_OUT_MAX bytes of
 * commands unread is stuck: -1, and the node stops.
 */
int
fdc_send(struct fdc *c, const char *line)
{
	size_t n = strlen(line);

	if (n + 1 > sizeof(c->obuf) - c->olen) {
		errno = ENOBUFS;
		return -1;
	}
	memcpy(c->obuf + c->olen, line, n);
	c->obuf[c->olen + n] = '\n';
	c->olen += n + 1;
	return fdc_flush(c);
}

static int
parse_down(const char *line, unsigned *id)
{
	const char *errstr;

	if (strncmp(line, "down ", 5) != 0)
		return -1;
	*id = (unsigned)strtonum(line + 5, 1, 65535, &errstr);
	return errstr == NULL ? 0 : -1;
}

/*
 * Reads what the detector wrote and calls DOWN for each "down ID".  Other
 * lines are reported and ignored.  Returns -1 at end of file.
 */
int
fdc_read(struct fdc *c, void (*down)(void *, unsigned), void *arg)
{
	ssize_t n;
	char *nl;
	unsigned id;

	n = read(c->out, c->ibuf + c->ilen, sizeof(c->ibuf) - 1 - c->ilen);
	if (n == -1)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n == 0)
		return -1;
	c->ilen += (size_t)n;
	c->ibuf[c->ilen] = '\0';
	while ((nl = strchr(c->ibuf, '\n')) != NULL) {
		*nl = '\0';
		if (parse_down(c->ibuf, &id) == 0)
			down(arg, id);
		else
			warnx("elect-fd: unexpected line \"%s\"", c->ibuf);
		c->ilen -= (size_t)(nl + 1 - c->ibuf);
		memmove(c->ibuf, nl + 1, c->ilen + 1);
	}
	if (c->ilen == sizeof(c->ibuf) - 1) {
		warnx("elect-fd: overlong line ignored");
		c->ilen = 0;
	}
	return 0;
}

/*
 * Ends the detector: end of file on its stdin makes it leave at once; it
 * is killed if it has not after WAIT_MS.  Returns its wait status.
 */
int
fdc_stop(struct fdc *c, int wait_ms)
{
	int status = 0, i;

	if (c->in != -1)
		close(c->in);
	if (c->out != -1)
		close(c->out);
	c->in = c->out = -1;
	if (c->pid <= 0)
		return 0;
	for (i = 0; i < wait_ms; i++) {
		if (waitpid(c->pid, &status, WNOHANG) == c->pid)
			goto done;
		usleep(1000);
	}
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &status, 0);
done:
	c->pid = 0;
	return status;
}

/* The detector's own end, if it came: 1 and its wait status in *STATUS. */
int
fdc_reaped(struct fdc *c, int *status)
{
	if (c->pid <= 0 || waitpid(c->pid, status, WNOHANG) != c->pid)
		return 0;
	c->pid = 0;
	return 1;
}
