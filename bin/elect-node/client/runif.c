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
 * every poll: a daemon that stops answering (killed, paused, cut off)
 * only stops E from moving.  When the daemon says that this node no longer
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
 * connection closes.  A daemon that dies releases nothing.
 *
 * Scheduling.  The deadline holds only if R runs when it is due: on a
 * loaded host a process may wait for the CPU longer than the margin.  R
 * and G take the lowest real-time priority when they may (root,
 * CAP_SYS_NICE), from before the wait for the leadership, with
 * SCHED_RESET_ON_FORK so that the command does not; they sleep nearly all
 * the time, so that costs the host nothing.
 *
 * SIGINT, SIGTERM and SIGHUP sent to R are forwarded to the group.
 */
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "util/util.h"

#define GRACE_DEFAULT	(20 * ALGO_MS)
#define MARGIN_MIN	(5 * ALGO_MS)	/* to kill and reap, at least */
#define POLL_OTHER	(20 * ALGO_MS)	/* asking a non-lease daemon */
#define TOKEN_WAIT	(2000 * ALGO_MS)	/* for a new leader's token */

struct runif {
	const struct node_opts *o;
	const char	*dir;
	struct trace_writer *tw;
	unsigned	 id;
	/* What the daemon said last. */
	int		 lease;		/* its leadership has a deadline */
	int		 leader;
	uint64_t	 token;
	algo_time	 until;		/* E */
	algo_time	 tlease, renew, rtt, drift;
	char		 ldr[8];
	/* Timing. */
	algo_time	 grace, margin, poll;
	algo_time	 term_at, kill_at;	/* the lease's deadline */
	algo_time	 stop_kill;	/* SIGKILL of a stop begun */
	int		 termed, killed;
	/* The registration (task), and the query in flight. */
	int		 tfd;
	int		 qfd;
	algo_time	 qsent, next_query;
	char		 qbuf[CTL_LINE_MAX];
	size_t		 qlen;
	/* The group. */
	pid_t		 g;
	int		 spipe;		/* G writes the command's status */
	int		 gdead, gone;
	trace_time	 gone_at;	/* real time, for the task line */
	int		 status, have_status;
	int		 gstatus;
	int		 sigfd;
};


/* Reads the fields of a `lease' reply into R; -1 if it is not one. */
static int
take_reply(struct runif *r, const char *reply)
{
	struct ctl_str rest, v;
	const char *why;
	char num[32];
	int ok;

	if ((why = ctl_parse_reply(reply, strlen(reply), &ok, &rest)) != NULL ||
	    !ok || !ctl_field(rest, "leader", &v))
		return -1;
	r->leader = ctl_str_eq(v, "yes");
	/* A leadership with a deadline: the reply says until when. */
	r->lease = ctl_field(rest, "until", &v);
	if (ctl_field(rest, "ldr", &v) && v.n < sizeof(r->ldr)) {
		memcpy(r->ldr, v.p, v.n);
		r->ldr[v.n] = '\0';
	}
	if (ctl_field(rest, "id", &v) && v.n < sizeof(num)) {
		memcpy(num, v.p, v.n);
		num[v.n] = '\0';
		r->id = (unsigned)strtonum(num, 1, TRACE_NODE_MAX, &why);
	}
	if (!r->lease)
		return 0;
#define NUM(key, dst) do {						\
	if (!ctl_field(rest, key, &v) || v.n >= sizeof(num))		\
		return -1;						\
	memcpy(num, v.p, v.n);						\
	num[v.n] = '\0';						\
	dst = strtonum(num, 0, LLONG_MAX, &why);			\
	if (why != NULL)						\
		return -1;						\
} while (0)
	NUM("token", r->token);
	NUM("until", r->until);
	NUM("lease", r->tlease);
	NUM("renew", r->renew);
	NUM("rtt", r->rtt);
	NUM("drift", r->drift);
#undef NUM
	return 0;
}

/* Asks the daemon synchronously (before the command runs). */
static void
ask(struct runif *r, const char *req, int wait_ms)
{
	char reply[CTL_LINE_MAX];
	const char *why;

	if (client_ask(r->dir, req, reply, sizeof(reply), wait_ms, &why) == -1)
		errx(EXIT_NODAEMON, "%s/control: %s", r->dir, why);
	if (strcmp(req, "lease") == 0 && take_reply(r, reply) == -1)
		errx(EXIT_NODAEMON, "%s/control: bad reply to lease: %s",
		    r->dir, reply);
}

/*
 * The lease must hold a renewal, a poll, the grace and the margin:
 * otherwise the command would be stopped while its leader is well.
 */
static void
check_grace(struct runif *r)
{
	algo_time room, trusted;

	/* The margin covers the killed processes' exit, which waits for a
	 * CPU like anything else: tens of milliseconds on a busy host. */
	r->margin = r->tlease / 4 > MARGIN_MIN ? r->tlease / 4 : MARGIN_MIN;
	r->poll = r->renew / 4 > ALGO_MS ? r->renew / 4 : ALGO_MS;
	/* (1 - rho) lease: what the leader trusts of each run. */
	trusted = r->tlease - (algo_time)((__int128)r->tlease * r->drift /
	    TRACE_NS) - 1;
	room = trusted - r->renew - r->rtt - r->poll - r->margin;
	if (r->grace >= room)
		errx(EXIT_USAGE, "--grace %lld: the daemon's lease (%lld ms, "
		    "renewed every %lld ms) leaves room for %lld ms of grace; "
		    "lengthen its --lease", (long long)(r->grace / ALGO_MS),
		    (long long)(r->tlease / ALGO_MS),
		    (long long)(r->renew / ALGO_MS),
		    (long long)(room > 0 ? room / ALGO_MS : 0));
}

static void
set_deadline(struct runif *r)
{
	r->kill_at = r->until - r->margin;
	r->term_at = r->kill_at - r->grace;
}

/* Whether the leadership is there and long enough to start. */
static int
can_start(struct runif *r)
{
	if (!r->leader)
		return 0;
	if (!r->lease)
		return 1;
	set_deadline(r);
	return r->token != 0 && mono_now() < r->term_at;
}

static int	task_register(struct runif *);

/* Until this node may start the command (--wait), or the answer no.  The
 * registration waits in the daemon, which answers when this node leads
 * with its token: no polling, and no time lost between the two. */
static int
await_leadership(struct runif *r)
{
	ask(r, "lease", CLIENT_WAIT_MS);
	if (r->lease)
		check_grace(r);
	else
		r->poll = POLL_OTHER;
	for (;;) {
		/* Leaving, the node will not lead: nothing left to wait on. */
		if (task_register(r) == -1) {
			if (r->o->wait)
				errx(EXIT_NODAEMON, "%s/control: the node left "
				    "during the wait", r->dir);
			return 0;
		}
		if (can_start(r))
			return 1;
		close(r->tfd);
		r->tfd = -1;
		if (!r->o->wait)
			return 0;
	}
}

/* ---- the guard ---- */

static void __attribute__((noreturn))
exec_command(struct runif *r)
{
	char num[32];
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	snprintf(num, sizeof(num), "%u", r->id);
	setenv("ELECT_NODE", num, 1);
	setenv("ELECT_LEADER", num, 1);
	if (r->lease) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)r->token);
		setenv("ELECT_TOKEN", num, 1);
	} else
		unsetenv("ELECT_TOKEN");
	execvp(r->o->command[0], r->o->command);
	warn("%s", r->o->command[0]);
	_exit(errno == ENOENT ? 127 : 126);
}

/* G: leads the group, runs the command, dies with the group if R dies. */
static void __attribute__((noreturn))
guard(struct runif *r, pid_t rpid, int spipe)
{
	siginfo_t si;
	sigset_t set;
	pid_t c;
	int st;

	setpgid(0, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGUSR2) == -1 || getppid() != rpid) {
		kill(0, SIGKILL);
		_exit(1);
	}
	sched_realtime();
	if ((c = fork()) == -1) {
		warn("fork");
		_exit(126);
	}
	if (c == 0) {
		close(spipe);
		exec_command(r);
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

static trace_time	real_now(void);

/* Forks the guard.  The task line is stamped before the fork, so that
 * nothing of the command can have run before its time. */
static void
start(struct runif *r)
{
	int p[2];
	pid_t rpid = getpid();
	trace_time t0 = real_now();

	if (pipe2(p, O_CLOEXEC) == -1)
		err(1, "pipe");
	if ((r->g = fork()) == -1)
		err(1, "fork");
	if (r->g == 0) {
		close(p[0]);
		guard(r, rpid, p[1]);
	}
	close(p[1]);
	r->spipe = p[0];
	setpgid(r->g, r->g);	/* either side may be first */
	if (r->tw == NULL)
		return;
	if (r->lease)
		tw_event_at(r->tw, t0, r->id, "task op=start pid=%d token=%llu",
		    (int)r->g, (unsigned long long)r->token);
	else
		tw_event_at(r->tw, t0, r->id, "task op=start pid=%d",
		    (int)r->g);
	tw_flush(r->tw);
}

/* ---- stopping and reaping ---- */

static trace_time
real_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (trace_time)ts.tv_sec * TRACE_NS + ts.tv_nsec;
}

static void
signal_group(struct runif *r, int sig)
{
	if (!r->gone && kill(-r->g, sig) == -1 && errno != ESRCH)
		warn("kill %d", -(int)r->g);
}

/* Stop the command: SIGTERM now, SIGKILL after the grace, never later
 * than the lease allows. */
static void
stop(struct runif *r, algo_time now, const char *why)
{
	if (r->termed || r->gdead)
		return;
	if (why != NULL)
		warnx("%s; stopping %s", why, r->o->command[0]);
	r->termed = 1;
	signal_group(r, SIGTERM);
	r->stop_kill = now + r->grace;
	if (r->lease && r->stop_kill > r->kill_at)
		r->stop_kill = r->kill_at;
}

static void
kill_group(struct runif *r)
{
	r->termed = r->killed = 1;
	signal_group(r, SIGKILL);
}

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
			kill(-r->g, SIGKILL);
		}
		if (waitpid(si.si_pid, &st, 0) != si.si_pid)
			break;
		if (si.si_pid == r->g)
			r->gstatus = st;
	}
	if (r->gdead && (none || kill(-r->g, 0) == -1)) {
		r->gone = 1;
		r->gone_at = real_now();
	}
}

/* ---- the daemon, asked while the command runs ---- */

static void
query_start(struct runif *r, algo_time now)
{
	const char *why;

	r->qlen = 0;
	r->qsent = now;
	r->next_query = now + r->poll;
	if ((r->qfd = client_connect(r->dir, "lease", 1, &why)) == -1 &&
	    !r->lease)
		stop(r, now, "the daemon does not answer");
}

static void
query_end(struct runif *r)
{
	if (r->qfd != -1)
		close(r->qfd);
	r->qfd = -1;
}

static void
query_read(struct runif *r, algo_time now)
{
	uint64_t token = r->token;
	char *nl;
	ssize_t n;

	n = read(r->qfd, r->qbuf + r->qlen, sizeof(r->qbuf) - 1 - r->qlen);
	if (n == -1 && errno == EAGAIN)
		return;
	if (n <= 0) {
		query_end(r);
		return;
	}
	r->qlen += (size_t)n;
	r->qbuf[r->qlen] = '\0';
	if ((nl = strchr(r->qbuf, '\n')) == NULL) {
		if (r->qlen == sizeof(r->qbuf) - 1)
			query_end(r);
		return;
	}
	*nl = '\0';
	query_end(r);
	if (take_reply(r, r->qbuf) == -1)
		return;
	if (!r->leader)
		stop(r, now, "this node no longer leads");
	else if (r->lease && r->token != token)
		stop(r, now, "a new leadership began");
	else if (r->lease && !r->termed)
		set_deadline(r);
}

/* A daemon that does not answer in a poll: under lease, E stays put; a
 * leader without lease is taken to be gone. */
static void
query_lost(struct runif *r, algo_time now)
{
	query_end(r);
	if (!r->lease)
		stop(r, now, "the daemon does not answer");
}

/* A signal that ends a wait for the leadership: exits as killed by it. */
static void
wait_signal(struct runif *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGCHLD) {
			sigset_t set;

			sigemptyset(&set);
			sigaddset(&set, (int)si.ssi_signo);
			signal((int)si.ssi_signo, SIG_DFL);
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			raise((int)si.ssi_signo);
			exit(128 + (int)si.ssi_signo);
		}
}

/*
 * Registers the command with the daemon (`task', `task wait' with
 * --wait), which answers as to `lease' once it may start, or at once
 * that this node does not lead; 0, or -1 when the node is leaving.
 */
static int
task_register(struct runif *r)
{
	char line[CTL_LINE_MAX];
	const char *why;
	ssize_t n;
	size_t got = 0;
	struct pollfd pfd[2];

	if ((r->tfd = client_connect(r->dir, r->o->wait ? "task wait" : "task",
	    0, &why)) == -1)
		errx(EXIT_NODAEMON, "%s/control: %s", r->dir, why);
	pfd[0].fd = r->tfd;
	pfd[0].events = POLLIN;
	pfd[1].fd = r->sigfd;
	pfd[1].events = POLLIN;
	while (got < sizeof(line) - 1 && memchr(line, '\n', got) == NULL) {
		/* A new leader's token is a round trip away; past TOKEN_WAIT
		 * something is wrong. */
		n = poll(pfd, 2, r->o->wait ? -1 : TOKEN_WAIT / ALGO_MS);
		if (n == -1 && errno == EINTR)
			continue;
		if (n > 0 && pfd[1].revents)
			wait_signal(r);
		if (n <= 0 || !pfd[0].revents ||
		    (n = read(r->tfd, line + got, sizeof(line) - 1 - got)) <= 0)
			errx(EXIT_NODAEMON, "%s/control: no reply to task",
			    r->dir);
		got += (size_t)n;
	}
	line[got] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (take_reply(r, line) == 0)
		return 0;
	if (strcmp(line, "err leaving") != 0)
		errx(EXIT_NODAEMON, "%s/control: %s", r->dir, line);
	close(r->tfd);
	r->tfd = -1;
	return -1;
}

/* The daemon about the registered command: leave, or gone. */
static void
task_read(struct runif *r, algo_time now)
{
	char buf[64];
	ssize_t n;

	n = read(r->tfd, buf, sizeof(buf) - 1);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0) {
		buf[n] = '\0';
		if (strstr(buf, "ok stop") != NULL)
			stop(r, now, "the node is leaving");
		return;
	}
	/* The daemon is gone: the deadline holds without it. */
	close(r->tfd);
	r->tfd = -1;
}

/* ---- the loop ---- */

static void
read_signals(struct runif *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			reap(r);
		else
			signal_group(r, (int)si.ssi_signo);
	}
}

static void
min_at(algo_time *next, algo_time at)
{
	if (*next == -1 || at < *next)
		*next = at;
}

/* Runs until the whole group is dead and reaped. */
static void
watch(struct runif *r)
{
	struct pollfd pfd[3];
	struct timespec ts;
	algo_time now, next;
	int n;

	while (!r->gone) {
		now = mono_now();
		if (r->lease && !r->killed && now >= r->kill_at)
			kill_group(r);
		else if (r->lease && !r->termed && now >= r->term_at)
			stop(r, now, NULL);
		if (r->termed && !r->killed && now >= r->stop_kill)
			kill_group(r);
		if (r->qfd != -1 && now >= r->qsent + r->poll)
			query_lost(r, now);
		if (r->qfd == -1 && !r->termed && now >= r->next_query)
			query_start(r, now);
		next = -1;
		if (r->lease && !r->killed) {
			min_at(&next, r->kill_at);
			if (!r->termed)
				min_at(&next, r->term_at);
		}
		if (r->termed && !r->killed)
			min_at(&next, r->stop_kill);
		if (!r->termed)
			min_at(&next, r->qfd != -1 ? r->qsent + r->poll :
			    r->next_query);
		if (r->gdead)		/* the last of the group is dying */
			min_at(&next, now + ALGO_MS);
		pfd[0].fd = r->sigfd;
		pfd[0].events = POLLIN;
		pfd[1].fd = r->qfd;
		pfd[1].events = POLLIN;
		pfd[2].fd = r->tfd;
		pfd[2].events = POLLIN;
		ts.tv_sec = next > now ? (next - now) / TRACE_NS : 0;
		ts.tv_nsec = next > now ? (next - now) % TRACE_NS : 0;
		n = ppoll(pfd, 3, next == -1 ? NULL : &ts, NULL);
		if (n == -1 && errno != EINTR)
			err(1, "poll");
		if (n > 0 && pfd[0].revents)
			read_signals(r);
		if (n > 0 && r->qfd != -1 && pfd[1].revents)
			query_read(r, mono_now());
		if (n > 0 && r->tfd != -1 && pfd[2].revents)
			task_read(r, mono_now());
		if (r->gdead)
			reap(r);
	}
}

/* The command's status as a shell gives it. */
static int
exit_code(const struct runif *r)
{
	int st = r->have_status ? r->status : r->gstatus;

	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}

static int
open_signals(void)
{
	sigset_t set;
	int fd;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1 ||
	    (fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) == -1)
		err(1, "signalfd");
	return fd;
}

int
client_runif(const struct node_opts *o)
{
	struct runif r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.dir = o->statedir;
	r.id = o->id;
	r.qfd = r.tfd = r.spipe = -1;
	r.grace = o->grace >= 0 ? o->grace : GRACE_DEFAULT;
	r.sigfd = open_signals();
	/* Before the wait, so as to wake without delay when it ends. */
	sched_realtime();
	if (!await_leadership(&r))
		return o->ecode >= 0 ? o->ecode : EXIT_NO;
	if (o->trace != NULL && (r.tw = tw_open(o->trace, STDERR_FILENO)) ==
	    NULL)
		err(EXIT_USAGE, "-t %s", o->trace);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		err(1, "prctl");
	r.next_query = mono_now() + r.poll;
	start(&r);
	watch(&r);
	rc = exit_code(&r);
	if (r.tw != NULL) {
		/* Stamped when the group was found gone, not later. */
		tw_event_at(r.tw, r.gone_at, r.id,
		    "task op=stop pid=%d status=%d", (int)r.g, rc);
		tw_close(r.tw, TRACE_CLOSE_MS);
	}
	return rc;
}
