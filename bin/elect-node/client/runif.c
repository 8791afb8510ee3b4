/*
 * elect-node --run-if-leader: runs a command only while this node leads,
 * and, under the lease algorithm, makes sure that it is dead before any
 * other node can lead.
 *
 * The processes.  This process (R) forks a guard (G) that leads a new
 * process group and forks the command into it.  R is a child subreaper,
 * so that every process of the group, orphaned or not, is reaped by R.
 * G's parent-death signal tells it that R died, however (SIGKILL too),
 * and G then kills the whole group: the command never outlives R.  G
 * hands the command's exit status to R through a pipe.
 *
 * The deadline.  Under lease, R keeps it itself, on CLOCK_MONOTONIC, the
 * clock of the daemon's core on this host: E, the end of the leadership
 * as last heard from the daemon (until=).  The group gets SIGTERM at
 * E - margin - grace and SIGKILL at E - margin, and is reaped before E.
 * By Lemma 3.1 of the paper no grantor's grant to this node ends before E
 * in real time, and no other node leads, nor runs a guarded command,
 * until a majority of those grants has ended.  R asks the daemon again
 * every poll, on the registration's own connection: it needs no slot of
 * the control socket, which other clients may fill.  A daemon that stops
 * answering (killed, paused, cut off) only stops E from moving.  When the daemon says that this node no longer
 * leads, or leads with another token (a new leadership), R stops the
 * command at once: SIGTERM, and SIGKILL after the grace.
 *
 * Under the other algorithms there is no lease to count on: R stops the
 * command as soon as the daemon says it does not lead or stops answering;
 * elect-node(1) says what that does not guarantee.
 *
 * Handing over.  A leader that leaves on purpose releases its lease, so
 * that the next node need not wait for it to run out: R registers the
 * command with the daemon (`task') before starting it and keeps that
 * connection open until the group is dead, and the daemon, asked to
 * leave, tells R to stop (`ok stop') and releases the lease only once the
 * connection closes, or R says that the group was sent SIGKILL (after
 * which it runs no instruction, however late it is reaped).
 *
 * A daemon that dies.  R watches the daemon's process (a pidfd, taken
 * while the registration shows it alive), not only the connection: once
 * the process has ended, R stops the command at once, and once the group
 * was sent SIGKILL it sends the daemon's testament (guard/testament.h),
 * the Dead that releases its lease, so that another node leads within a
 * round trip rather than at the lease's end.  The testament goes only
 * when no guarded command of the node runs: each R holds the node's task
 * lock, which the daemon passes it with its registration's first answer,
 * shared, from before the command may start, and sends under it
 * exclusively, from the node's host address.  An R that may not read the testament (another user than
 * the daemon's) leaves the lease to run out.
 *
 * Scheduling.  The deadline holds only if R runs when it is due: on a
 * loaded host a process may wait for the CPU longer than the margin.  R
 * and G take the lowest real-time priority when they may (root,
 * CAP_SYS_NICE), from before the wait for the leadership, with
 * SCHED_RESET_ON_FORK so that the command does not; they sleep nearly all
 * the time, so that costs the host nothing.
 *
 * SIGINT, SIGTERM and SIGHUP sent to R are forwarded to the group.
 *
 * The decisions (when to start, when to signal, what a reply or a silence
 * means) are the guard's, lib/guard, a pure core; this file carries out
 * its actions and feeds it what the daemon, the clock and the group say.
 */
#include <sys/file.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "io/loop.h"
#include "client.h"
#include "guard/guard.h"
#include "guard/testament.h"
#include "net/wire.h"
#include "util/util.h"

#define TOKEN_WAIT	(2000 * ALGO_MS)	/* for a new leader's token */

struct runif {
	const struct node_opts *o;
	const char	*dir;
	struct trace_writer *tw;
	unsigned	 id;
	struct guard	 guard;
	struct guard_reply reply;	/* the last one fed */
	algo_time	 wake;		/* the guard's next tick, or -1 */
	int		 registering, refused;
	algo_time	 wait_until;	/* --wait-for's end, or -1 */
	int		 done, rc;
	/* The registration (task), what it said of a line not yet whole,
	 * the asks sent on it not yet answered, and whether the last is
	 * still wanted; the ask in flight on a connection of its own (once
	 * the registration is closed). */
	int		 tfd;
	char		 tbuf[2 * CTL_LINE_MAX];
	size_t		 tlen;
	int		 tasked, twanted;
	int		 qfd;
	char		 qbuf[CTL_LINE_MAX];
	size_t		 qlen;
	/* The group. */
	pid_t		 g;
	int		 spipe;		/* G writes the command's status */
	int		 gdead, gone;
	int		 told;		/* the group was sent SIGTERM */
	trace_time	 gone_at;	/* real time, for the task line */
	trace_time	 killed_at;	/* real time the group got SIGKILL, or 0 */
	int		 status, have_status;
	int		 gstatus;
	int		 sigfd;
	/* The daemon's death: its task lock (shared, or -1), its process,
	 * and its testament, or why there is none. */
	int		 lockfd;
	int		 pidfd;
	pid_t		 dpid;
	struct testament will;
	int		 has_will;
	char		 nowill[PATH_MAX + 192];
	/* -k: the key that proves the trace to a collector (collect -k). */
	struct wire_key	 key;
	int		 keyed;
};

static void	act(struct runif *, const struct guard_action *);

/* Request CMD for this command's leadership: " name=NAME" after it with
 * -n, else as it is (the default leadership's, unchanged). */
static const char *
request(const struct runif *r, const char *cmd, char *buf, size_t len)
{
	if (r->o->name == NULL)
		return cmd;
	snprintf(buf, len, "%s name=%s", cmd, r->o->name);
	return buf;
}

/* One input to the guard, and its actions carried out in order. */
static void
feed(struct runif *r, enum guard_in_type type, const struct guard_reply *rp,
    int status)
{
	struct guard_input in;
	struct guard_out out;
	size_t i;

	memset(&in, 0, sizeof(in));
	in.type = type;
	in.now = mono_now();
	in.status = status;
	if (rp != NULL) {
		in.reply = *rp;
		r->reply = *rp;
		if (rp->id != 0)
			r->id = rp->id;
	}
	if (guard_step(&r->guard, &in, &out) == -1)
		errx(1, "guard: %s out of turn", guard_in_name(type));
	r->wake = out.wake;
	for (i = 0; i < out.n; i++)
		act(r, &out.v[i]);
	if (r->refused) {
		r->refused = 0;
		feed(r, GUARD_IN_REFUSED, NULL, 0);
	}
}

/* Asks the daemon synchronously (before the command runs). */
static void
ask_lease(struct runif *r)
{
	char reply[CTL_LINE_MAX], req[CTL_LINE_MAX];
	struct guard_reply rp;
	const char *why;

	if (client_ask(r->dir, request(r, "lease", req, sizeof(req)), reply,
	    sizeof(reply), CLIENT_WAIT_MS, &why) == -1)
		errx(EXIT_NODAEMON, "%s/control: %s", r->dir, why);
	if (guard_reply_parse(reply, strlen(reply), &rp) == -1)
		errx(EXIT_NODAEMON, "%s/control: bad reply to lease: %s",
		    r->dir, reply);
	feed(r, GUARD_IN_REPLY, &rp, 0);
}

/* ---- the guard ---- */

static void __attribute__((noreturn))
exec_command(struct runif *r, uint64_t token)
{
	char num[32];
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	snprintf(num, sizeof(num), "%u", r->id);
	setenv("ELECT_NODE", num, 1);
	setenv("ELECT_LEADER", num, 1);
	if (r->guard.lease) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)token);
		setenv("ELECT_TOKEN", num, 1);
	} else
		unsetenv("ELECT_TOKEN");
	if (r->o->name != NULL)
		setenv("ELECT_NAME", r->o->name, 1);
	else
		unsetenv("ELECT_NAME");
	execvp(r->o->command[0], r->o->command);
	warn("%s", r->o->command[0]);
	_exit(errno == ENOENT ? 127 : 126);
}

/* G: leads the group, runs the command, dies with the group if R dies. */
static void __attribute__((noreturn))
guard(struct runif *r, uint64_t token, pid_t rpid, int spipe)
{
	siginfo_t si;
	sigset_t set;
	pid_t c;
	int st;

	setpgid(0, 0);
	/* The task lock is R's: G's copy would hold it past R's unlock. */
	if (r->lockfd != -1)
		close(r->lockfd);
	if (r->pidfd != -1)
		close(r->pidfd);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGUSR2) == -1 || getppid() != rpid) {
		kill(0, SIGKILL);
		_exit(1);
	}
	sched_realtime(RT_GUARD);
	if ((c = fork()) == -1) {
		warn("fork");
		_exit(126);
	}
	if (c == 0) {
		close(spipe);
		exec_command(r, token);
	}
	for (;;) {
		if (sigwaitinfo(&set, &si) == -1)
			continue;
		if (si.si_signo == SIGUSR2 && getppid() != rpid) {
			kill(0, SIGKILL);	/* R is gone: so is the job */
			_exit(1);
		}
		if (si.si_signo == SIGCHLD && waitpid(c, &st, WNOHANG) == c) {
			if (write(spipe, &st, sizeof(st)) != sizeof(st))
				_exit(1);
			_exit(0);
		}
	}
}

static trace_time
real_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (trace_time)ts.tv_sec * TRACE_NS + ts.tv_nsec;
}

/* Forks the guard.  The task line is stamped before the fork, so that
 * nothing of the command can have run before its time. */
static void
start(struct runif *r, uint64_t token)
{
	int p[2];
	pid_t rpid = getpid();
	trace_time t0;

	if (r->o->trace != NULL && (r->tw = tw_open(r->o->trace,
	    STDERR_FILENO)) == NULL)
		err(EXIT_USAGE, "-t %s", r->o->trace);
	/* A keyed collector takes only proved lines, as from the daemon. */
	if (r->tw != NULL && r->keyed)
		tw_auth(r->tw, r->key.k, r->id);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		err(1, "prctl");
	t0 = real_now();
	if (pipe2(p, O_CLOEXEC) == -1)
		err(1, "pipe");
	if ((r->g = fork()) == -1)
		err(1, "fork");
	if (r->g == 0) {
		close(p[0]);
		guard(r, token, rpid, p[1]);
	}
	close(p[1]);
	r->spipe = p[0];
	setpgid(r->g, r->g);	/* either side may be first */
	if (r->tw == NULL)
		return;
	if (r->guard.lease)
		tw_event_at(r->tw, t0, r->id,
		    "task op=start pid=%d token=%llu%s%s", (int)r->g,
		    (unsigned long long)token, r->o->name != NULL ? " name=" :
		    "", r->o->name != NULL ? r->o->name : "");
	else
		tw_event_at(r->tw, t0, r->id, "task op=start pid=%d",
		    (int)r->g);
	tw_flush(r->tw);
}

/* ---- the daemon's death ---- */

/*
 * The node's task lock, shared, before the command may start: held until
 * it is dead.  Only a lease daemon has one, passed with the first answer
 * to the registration, and holds it shared as long as it lives, so that
 * it is held exclusively only by a guard of a dead daemon, sending its
 * testament, for as long as a few datagrams take: never waited for past
 * TOKEN_WAIT, nor past --wait-for.  Locked after the answer, the daemon
 * may have died in between and its testament gone: a registration that
 * has ended by then starts nothing.
 */
static void
lock_tasks(struct runif *r)
{
	struct timespec ms = { 0, 1000000 };
	struct pollfd pfd = { r->tfd, POLLRDHUP, 0 };
	algo_time by = mono_now() + TOKEN_WAIT;

	if (r->wait_until >= 0 && r->wait_until < by)
		by = r->wait_until;
	while (flock(r->lockfd, LOCK_SH | LOCK_NB) == -1) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			err(EXIT_NODAEMON, "%s/%s", r->dir, TESTAMENT_LOCK);
		if (mono_now() >= by) {
			if (r->wait_until >= 0 && by == r->wait_until)
				errx(EXIT_WAITED, "%s/%s: held by another; node "
				    "%u did not come to lead within --wait-for",
				    r->dir, TESTAMENT_LOCK, r->id);
			errx(EXIT_NODAEMON, "%s/%s: held exclusively by "
			    "another: no daemon runs there", r->dir,
			    TESTAMENT_LOCK);
		}
		nanosleep(&ms, NULL);
	}
	if (poll(&pfd, 1, 0) == -1 || (pfd.revents & (POLLRDHUP | POLLHUP |
	    POLLERR)))
		errx(EXIT_NODAEMON, "%s/control: the daemon went away before "
		    "the command could start", r->dir);
}

/* Reads the registration's answer; a descriptor that comes with it is
 * the task lock, under lease (one only). */
static ssize_t
read_answer(struct runif *r, char *buf, size_t len)
{
	union {
		struct cmsghdr	 h;
		char		 buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = { buf, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = cm.buf, .msg_controllen = sizeof(cm.buf) };
	struct cmsghdr *h;
	ssize_t n;
	int fd;

	if ((n = recvmsg(r->tfd, &m, MSG_CMSG_CLOEXEC)) <= 0)
		return n;
	for (h = CMSG_FIRSTHDR(&m); h != NULL; h = CMSG_NXTHDR(&m, h)) {
		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS ||
		    h->cmsg_len != CMSG_LEN(sizeof(int)))
			continue;
		memcpy(&fd, CMSG_DATA(h), sizeof(fd));
		if (r->lockfd == -1 && r->guard.lease)
			r->lockfd = fd;
		else
			close(fd);
	}
	return n;
}

/*
 * As the command starts: the daemon's process, and its testament.  The
 * pidfd is the daemon's only if the registration is still open once it
 * is taken (a process's sockets close before its pid can be reused).
 */
static void
watch_daemon(struct runif *r)
{
	char path[PATH_MAX], why[128], *text;
	struct ucred uc;
	socklen_t ulen = sizeof(uc);
	ssize_t n;
	size_t got = 0;
	int fd;
	char c;

	if (!r->guard.lease || r->lockfd == -1 || r->tfd == -1)
		return;
	if (getsockopt(r->tfd, SOL_SOCKET, SO_PEERCRED, &uc, &ulen) == -1 ||
	    (r->pidfd = pidfd_open(uc.pid, 0)) == -1) {
		snprintf(r->nowill, sizeof(r->nowill), "its process cannot "
		    "be watched: %s", strerror(errno));
		r->pidfd = -1;
		return;
	}
	if (recv(r->tfd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0) {
		close(r->pidfd);
		r->pidfd = -1;
		return;
	}
	r->dpid = uc.pid;
	snprintf(path, sizeof(path), "%s/%s", r->dir, TESTAMENT_NAME);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		snprintf(r->nowill, sizeof(r->nowill), "%s: %s", path,
		    strerror(errno));
		return;
	}
	if ((text = malloc(TESTAMENT_FILE_MAX + 1)) == NULL)
		err(1, NULL);
	while (got <= TESTAMENT_FILE_MAX && (n = read(fd, text + got,
	    TESTAMENT_FILE_MAX + 1 - got)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (testament_parse(text, got, &r->will, why, sizeof(why)) == -1) {
		snprintf(r->nowill, sizeof(r->nowill), "%s: %s", path, why);
		warnx("%s", r->nowill);
	} else if (r->will.node != r->id || r->will.pid != (long long)r->dpid) {
		snprintf(r->nowill, sizeof(r->nowill), "%s: node %u pid %lld "
		    "is not node %u's daemon, pid %d", path, r->will.node,
		    r->will.pid, r->id, (int)r->dpid);
		warnx("%s", r->nowill);
		testament_free(&r->will);
	} else
		r->has_will = 1;
	free(text);
}

static int
udp_addr(const char *host, unsigned port, struct addrinfo **ai)
{
	struct addrinfo hints;
	char serv[8];

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_DGRAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(serv, sizeof(serv), "%u", port);
	return getaddrinfo(host, serv, &hints, ai) == 0 ? 0 : -1;
}

/*
 * The daemon is dead and this command's group killed: once no other
 * guarded command of the node runs (the task lock, exclusive), the
 * testament goes to every peer, from the node's host address; not from
 * its port, which a daemon restarted meanwhile may need.  Waiting past
 * the deadline is pointless: the lease has gone by itself.
 */
static void
send_will(struct runif *r)
{
	struct timespec ms = { 0, 1000000 };
	struct addrinfo *from, *to;
	size_t i, sent = 0;
	int s;

	if (!r->has_will) {
		warnx("the daemon died; its lease runs out before another "
		    "node leads (%s)", r->nowill[0] != '\0' ? r->nowill :
		    "no testament");
		return;
	}
	(void)flock(r->lockfd, LOCK_UN);
	while (flock(r->lockfd, LOCK_EX | LOCK_NB) == -1) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			warn("%s/%s", r->dir, TESTAMENT_LOCK);
			return;
		}
		if (mono_now() >= r->guard.until) {
			warnx("the daemon died; another guarded command of "
			    "node %u still runs, so its lease runs out", r->id);
			return;
		}
		nanosleep(&ms, NULL);
	}
	if (udp_addr(r->will.host, 0, &from) == -1) {
		warnx("%s/%s: cannot use %s", r->dir, TESTAMENT_NAME,
		    r->will.host);
		return;
	}
	s = socket(from->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s == -1 || bind(s, from->ai_addr, from->ai_addrlen) == -1) {
		warn("the daemon died; its lease runs out (%s)",
		    r->will.host);
		if (s != -1)
			close(s);
		freeaddrinfo(from);
		return;
	}
	freeaddrinfo(from);
	for (i = 0; i < r->will.n; i++) {
		const struct testament_to *t = &r->will.to[i];

		if (udp_addr(t->host, t->port, &to) == -1)
			continue;
		if (sendto(s, t->dgram, t->len, 0, to->ai_addr,
		    to->ai_addrlen) == (ssize_t)t->len)
			sent++;
		freeaddrinfo(to);
	}
	close(s);
	(void)flock(r->lockfd, LOCK_UN);
	warnx("the daemon (pid %d) died; node %u's lease released on its "
	    "behalf to %zu of %zu peers", (int)r->dpid, r->id, sent,
	    r->will.n);
}

/* ---- carrying out ---- */

static void
signal_group(struct runif *r, int sig)
{
	if (r->gone)
		return;
	/*
	 * A killed process dies only once it is scheduled.  On a busy host
	 * a job at its own (or a lower) priority may wait a second for that,
	 * past the deadline: the whole group is first raised to nice -20
	 * (where allowed: root or CAP_SYS_NICE), in one call.  So it is
	 * before SIGTERM: a stop holds up a handover until the group is
	 * dead, and its grace ends at the deadline too.
	 */
	if (sig == SIGKILL || sig == SIGTERM)
		(void)setpriority(PRIO_PGRP, (id_t)r->g, -20);
	if (kill(-r->g, sig) == -1 && errno != ESRCH)
		warn("kill %d", -(int)r->g);
	/* Read after kill() returns: no instruction of the group runs
	 * later, however long it takes the kernel to reap it. */
	else if (sig == SIGKILL && r->killed_at == 0)
		r->killed_at = real_now();
}

/* Tells the daemon, on the registration, that the command had to be
 * killed (its metrics and log count it) and runs no more, so that a
 * leaving node releases its lease at once; a daemon gone or paused,
 * which is often why, just does not hear it. */
static void
report_kill(struct runif *r, enum guard_why why)
{
	char line[64];
	int n;

	if (r->tfd == -1)
		return;
	n = snprintf(line, sizeof(line), "elect %d killed %s\n", CTL_VERSION,
	    why == GUARD_WHY_DEADLINE ? "deadline" : "grace");
	(void)send(r->tfd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void
query_start(struct runif *r)
{
	char req[CTL_LINE_MAX], line[CTL_LINE_MAX];
	const char *why;
	int n;

	n = snprintf(line, sizeof(line), "elect %d %s\n", CTL_VERSION,
	    request(r, "lease", req, sizeof(req)));
	if (r->tfd != -1) {
		if (send(r->tfd, line, (size_t)n, MSG_NOSIGNAL |
		    MSG_DONTWAIT) != (ssize_t)n) {
			r->refused = 1;
			return;
		}
		r->tasked++;
		r->twanted = 1;
		return;
	}
	r->qlen = 0;
	if ((r->qfd = client_connect(r->dir, request(r, "lease", req,
	    sizeof(req)), 1, &why)) == -1)
		r->refused = 1;
}

static void
query_end(struct runif *r)
{
	if (r->qfd != -1)
		close(r->qfd);
	r->qfd = -1;
	/* An answer still to come on the registration is not wanted. */
	r->twanted = 0;
}

static void
unregister(struct runif *r)
{
	if (r->tfd != -1)
		close(r->tfd);
	r->tfd = -1;
	r->tlen = 0;
	/* An ask in flight there gets no answer: the guard's poll says
	 * so, as of any silence. */
	r->tasked = r->twanted = 0;
}

static void
act(struct runif *r, const struct guard_action *a)
{
	const char *text;
	algo_time room;

	switch (a->type) {
	case GUARD_REGISTER:
		r->registering = 1;
		break;
	case GUARD_UNREGISTER:
		unregister(r);
		break;
	case GUARD_START:
		watch_daemon(r);
		start(r, a->token);
		break;
	case GUARD_ASK:
		query_start(r);
		break;
	case GUARD_CANCEL:
		query_end(r);
		break;
	case GUARD_TERM:
		if ((text = guard_why_text(a->why)) != NULL)
			warnx("%s; stopping %s", text, r->o->command[0]);
		r->told = 1;
		signal_group(r, SIGTERM);
		break;
	case GUARD_KILL:
		/* Past the deadline with no stop begun: this process did not
		 * run in time (a loaded host, a clock jump), and the command
		 * gets no grace.  Its own status may be lost with the group. */
		if (!r->gone && !r->told && a->why == GUARD_WHY_DEADLINE)
			warnx("the leadership's deadline has passed; killing %s",
			    r->o->command[0]);
		signal_group(r, SIGKILL);
		/* Only once kill() has returned: the daemon may then release
		 * the lease without waiting for the group's reaping. */
		if (r->killed_at != 0 && (a->why == GUARD_WHY_DEADLINE ||
		    a->why == GUARD_WHY_GRACE))
			report_kill(r, a->why);
		break;
	case GUARD_EXIT:
		room = a->room;
		if (a->why == GUARD_WHY_BADGRACE)
			errx(a->status, "--grace %lld: the daemon's lease "
			    "(%lld ms, renewed every %lld ms) leaves room for "
			    "%lld ms of grace; lengthen its --lease",
			    (long long)(r->guard.cfg.grace / ALGO_MS),
			    (long long)(r->reply.tlease / ALGO_MS),
			    (long long)(r->reply.renew / ALGO_MS),
			    (long long)(room > 0 ? room / ALGO_MS : 0));
		if (a->why == GUARD_WHY_LEFT)
			errx(a->status, "%s/control: the node left during the "
			    "wait", r->dir);
		r->done = 1;
		r->rc = a->status;
		break;
	case GUARD_RELEASE:
		send_will(r);
		break;
	}
}

/* ---- reaping ---- */

/*
 * Reaps what died; once G is dead, nothing of the group may stay.  G's
 * pid, the group's id, stays ours until G is reaped, so the group is
 * killed first: each child is looked at before it is reaped, lest G die
 * and be reaped unnoticed between a look at G and a wait for any child.
 */
static void
reap(struct runif *r)
{
	siginfo_t si;
	int st, none = 0;

	if (r->gone)
		return;
	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == -1) {
			none = errno == ECHILD;
			break;
		}
		if (si.si_pid == 0)
			break;
		if (si.si_pid == r->g && !r->gdead) {
			r->gdead = 1;
			if (read(r->spipe, &r->status, sizeof(r->status)) ==
			    sizeof(r->status))
				r->have_status = 1;
			feed(r, GUARD_IN_EXITED, NULL, 0);
		}
		if (waitpid(si.si_pid, &st, 0) != si.si_pid)
			break;
		if (si.si_pid == r->g)
			r->gstatus = st;
	}
	if (r->gdead && (none || kill(-r->g, 0) == -1)) {
		r->gone = 1;
		r->gone_at = real_now();
		feed(r, GUARD_IN_REAPED, NULL,
		    r->have_status ? r->status : r->gstatus);
	}
}

/* ---- the daemon ---- */

static void
query_read(struct runif *r)
{
	struct guard_reply rp;
	char *nl;
	ssize_t n;

	n = read(r->qfd, r->qbuf + r->qlen, sizeof(r->qbuf) - 1 - r->qlen);
	if (n == -1 && errno == EAGAIN)
		return;
	if (n > 0) {
		r->qlen += (size_t)n;
		r->qbuf[r->qlen] = '\0';
		if ((nl = strchr(r->qbuf, '\n')) == NULL &&
		    r->qlen < sizeof(r->qbuf) - 1)
			return;
		if (nl != NULL) {
			*nl = '\0';
			query_end(r);
			if (guard_reply_parse(r->qbuf, strlen(r->qbuf), &rp) ==
			    0) {
				feed(r, GUARD_IN_REPLY, &rp, 0);
				return;
			}
		}
	}
	query_end(r);
	feed(r, GUARD_IN_NOREPLY, NULL, 0);
}

/* A signal that ends a wait for the leadership: exits as killed by it. */
static void
wait_signal(struct runif *r)
{
	int sig;

	while ((sig = signals_next(r->sigfd)) != 0)
		if (sig != SIGCHLD) {
			sigset_t set;

			sigemptyset(&set);
			sigaddset(&set, sig);
			signal(sig, SIG_DFL);
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			raise(sig);
			exit(128 + sig);
		}
}

/* How long the registration may wait for its answer, for poll(). */
static int
wait_ms(const struct runif *r)
{
	algo_time left;

	if (!r->o->wait)
		return TOKEN_WAIT / ALGO_MS;
	if (r->wait_until < 0)
		return -1;
	left = r->wait_until - mono_now();
	if (left <= 0)
		return 0;
	return left / ALGO_MS >= INT_MAX ? INT_MAX :
	    (int)((left + ALGO_MS - 1) / ALGO_MS);
}

/*
 * Registers the command with the daemon (`task', `task wait' with
 * --wait), which answers as to `lease' once it may start, or at once
 * that this node does not lead, or that it is leaving.
 */
static void
task_register(struct runif *r)
{
	char line[CTL_LINE_MAX], req[CTL_LINE_MAX];
	struct guard_reply rp;
	const char *why;
	ssize_t n;
	size_t got = 0;
	struct pollfd pfd[2];

	/* A registration again before the start may reach another daemon,
	 * of another lock: the last one's is let go. */
	if (r->lockfd != -1 && r->g == 0) {
		close(r->lockfd);
		r->lockfd = -1;
	}
	if ((r->tfd = client_connect(r->dir, request(r, r->o->wait ?
	    "task wait" : "task", req, sizeof(req)), 0, &why)) == -1)
		errx(EXIT_NODAEMON, "%s/control: %s", r->dir, why);
	pfd[0].fd = r->tfd;
	pfd[0].events = POLLIN;
	pfd[1].fd = r->sigfd;
	pfd[1].events = POLLIN;
	while (got < sizeof(line) - 1 && memchr(line, '\n', got) == NULL) {
		/* A new leader's token is a round trip away; past TOKEN_WAIT
		 * something is wrong. */
		n = poll(pfd, 2, wait_ms(r));
		if (n == -1 && errno == EINTR)
			continue;
		if (n > 0 && pfd[1].revents)
			wait_signal(r);
		/* As flock -w: the conflict's code (-E) if given. */
		if (n == 0 && r->wait_until >= 0)
			errx(r->o->ecode >= 0 ? r->o->ecode : EXIT_WAITED,
			    "%s/control: node %u did not come to lead within "
			    "--wait-for", r->dir, r->id);
		if (n <= 0 || !pfd[0].revents ||
		    (n = read_answer(r, line + got, sizeof(line) - 1 - got)) <=
		    0)
			errx(EXIT_NODAEMON, "%s/control: no reply to task",
			    r->dir);
		got += (size_t)n;
	}
	line[got] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (guard_reply_parse(line, strlen(line), &rp) == 0) {
		if (r->lockfd != -1)
			lock_tasks(r);
		feed(r, GUARD_IN_REPLY, &rp, 0);
	}
	else if (strcmp(line, "err leaving") == 0)
		feed(r, GUARD_IN_LEAVING, NULL, 0);
	/* The name is refused (beyond --names-max): bad input. */
	else if (strncmp(line, "err name ", 9) == 0)
		errx(EXIT_USAGE, "%s/control: %s", r->dir, line + 4);
	else
		errx(EXIT_NODAEMON, "%s/control: %s", r->dir, line);
}

/* One line of the daemon on the registration: stop, the answer to the
 * last ask (earlier ones are stale), or "ok" to a kill's report. */
static void
task_line(struct runif *r, const char *line)
{
	struct guard_reply rp;
	int last;

	if (strcmp(line, "ok stop") == 0) {
		feed(r, GUARD_IN_STOP, NULL, 0);
		return;
	}
	if (strcmp(line, "ok") == 0 || r->tasked == 0)
		return;
	last = --r->tasked == 0 && r->twanted;
	if (!last)
		return;
	r->twanted = 0;
	if (guard_reply_parse(line, strlen(line), &rp) == 0)
		feed(r, GUARD_IN_REPLY, &rp, 0);
	else
		feed(r, GUARD_IN_NOREPLY, NULL, 0);
}

/* The daemon about the registered command: leave, answers, or gone. */
static void
task_read(struct runif *r)
{
	char *nl;
	ssize_t n;
	size_t len;

	n = read(r->tfd, r->tbuf + r->tlen, sizeof(r->tbuf) - 1 - r->tlen);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0) {
		r->tlen += (size_t)n;
		while (r->tfd != -1 && !r->done &&
		    (nl = memchr(r->tbuf, '\n', r->tlen)) != NULL) {
			char line[sizeof(r->tbuf)];

			len = (size_t)(nl - r->tbuf);
			memcpy(line, r->tbuf, len);
			line[len] = '\0';
			r->tlen -= len + 1;
			memmove(r->tbuf, nl + 1, r->tlen);
			task_line(r, line);
		}
		/* A line longer than any the daemon writes: not its. */
		if (r->tlen < sizeof(r->tbuf) - 1)
			return;
	}
	unregister(r);
	feed(r, GUARD_IN_HANGUP, NULL, 0);
}

/* ---- the loop ---- */

static void
read_signals(struct runif *r)
{
	int sig;

	while ((sig = signals_next(r->sigfd)) != 0) {
		if (sig == SIGCHLD)
			reap(r);
		else
			signal_group(r, sig);
	}
}

/* Runs until the whole group is dead and reaped. */
static void
watch(struct runif *r)
{
	struct pollfd pfd[5];
	struct loop_wait w;
	int n, ms;

	while (!r->done) {
		feed(r, GUARD_IN_TICK, NULL, 0);
		if (r->done)
			break;
		loop_wait_init(&w);
		loop_wait_at(&w, r->wake, mono_now());
		pfd[0].fd = r->sigfd;
		pfd[0].events = POLLIN;
		pfd[1].fd = r->qfd;
		pfd[1].events = POLLIN;
		pfd[2].fd = r->tfd;
		pfd[2].events = POLLIN;
		pfd[3].fd = r->pidfd;
		pfd[3].events = POLLIN;
		/* The trace too: its start line goes out (after the proof a
		 * keyed collector wants) while the command runs, not at its
		 * end, when a collector in time order can no longer take it. */
		if ((ms = tw_pollfd(r->tw, &pfd[4])) >= 0)
			loop_wait_in(&w, (algo_time)ms * ALGO_MS);
		if ((n = loop_poll(pfd, 5, &w)) == -1)
			err(1, "poll");
		tw_tick(r->tw);
		if (n > 0 && pfd[0].revents)
			read_signals(r);
		/* A group reaped by the signals above ends the guard: the
		 * daemon's hang-up in the same wake-up (it was killed) is
		 * no input any more. */
		if (n > 0 && !r->done && r->qfd != -1 && pfd[1].revents)
			query_read(r);
		if (n > 0 && !r->done && r->tfd != -1 && pfd[2].revents)
			task_read(r);
		if (n > 0 && !r->done && r->pidfd != -1 && pfd[3].revents) {
			close(r->pidfd);
			r->pidfd = -1;
			feed(r, GUARD_IN_DEAD, NULL, 0);
		}
		/* The last of the group is dying. */
		if (r->gdead)
			reap(r);
	}
}

int
client_runif(const struct node_opts *o)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };
	struct guard_config cfg;
	struct runif r;

	memset(&r, 0, sizeof(r));
	r.o = o;
	if (o->keyfile != NULL && o->trace != NULL) {
		char msg[256];

		if (sodium_init() == -1)
			errx(1, "sodium_init failed");
		if (wire_key_load(&r.key, o->keyfile, msg, sizeof(msg)) == -1)
			errx(EXIT_USAGE, "%s", msg);
		r.keyed = 1;
	}
	r.dir = o->statedir;
	r.id = o->id;
	r.qfd = r.tfd = r.spipe = r.lockfd = r.pidfd = -1;
	r.wait_until = o->wait_for >= 0 ? mono_now() + o->wait_for : -1;
	memset(&cfg, 0, sizeof(cfg));
	cfg.grace = o->grace;		/* -1: the guard's default */
	cfg.wait = o->wait;
	cfg.ecode = o->ecode >= 0 ? o->ecode : EXIT_NO;
	guard_init(&r.guard, &cfg);
	r.sigfd = signals_open(sigs, nitems(sigs));
	/* Before the wait, so as to wake without delay when it ends. */
	sched_realtime(RT_GUARD);
	ask_lease(&r);
	/* Until this node may start the command (--wait), or the answer
	 * no.  The registration waits in the daemon, which answers when
	 * this node leads with its token: no polling, no time lost. */
	while (r.registering && !r.done) {
		r.registering = 0;
		task_register(&r);
	}
	if (r.done)
		return r.rc;
	watch(&r);
	if (r.tw != NULL) {
		char killed[48] = "";

		if (r.killed_at != 0) {
			memcpy(killed, " killed=", 8);
			trace_format_time(r.killed_at, killed + 8,
			    sizeof(killed) - 8);
		}
		/* Stamped when the group was found gone, not later. */
		tw_event_at(r.tw, r.gone_at, r.id,
		    "task op=stop pid=%d status=%d%s%s%s", (int)r.g, r.rc,
		    killed, r.o->name != NULL ? " name=" : "",
		    r.o->name != NULL ? r.o->name : "");
		tw_close(r.tw, TRACE_CLOSE_MS);
	}
	sodium_memzero(&r.key, sizeof(r.key));
	testament_free(&r.will);
	return r.rc;
}
