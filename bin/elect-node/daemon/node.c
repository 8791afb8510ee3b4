/*
 * The node's life: set up the edge (state directory, pid file, cluster,
 * socket, detector, control socket, trace), then one poll loop that feeds
 * the core and carries out what it asks, until a signal or the detector's
 * death ends it.
 */
#include <sys/wait.h>

#include <assert.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <libutil.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "io/loop.h"
#include "store/store.h"
#include "util/util.h"

#define PID_NAME	"pid"
#define INC_NAME	"incarnation"
#define PAIR_TRIES	4
#define PAIR_GAP	(20 * 1000)	/* ns between the real-time reads */

static trace_time
ns(const struct timespec *ts)
{
	return (trace_time)ts->tv_sec * TRACE_NS + ts->tv_nsec;
}

/*
 * The time of an input: the monotonic clock for the core, and the real
 * time of that same instant, which stamps every line the input makes
 * until node_input_done().  elect-check maps each clock= to its line's
 * time; a stamp taken when the line is written, after a slow fsync or a
 * wait for the CPU, would shift that map.  A read preempted between the
 * real-time ones is taken again.  An input within another (a message
 * the network's tick delivers while the loop's own input runs) is of
 * the same instant: read anew, the outer input's later lines would bear
 * the time they are written, not that of their clock=, and the map
 * would put the host's clock back (elect-check found a grant short).
 */
algo_time
node_input(struct node *nd)
{
	struct timespec r0, m, r1;
	int i;

	if (nd->in_depth++ > 0)
		return nd->in_now;
	for (i = 0; i < PAIR_TRIES; i++) {
		clock_gettime(CLOCK_REALTIME, &r0);
		clock_gettime(CLOCK_MONOTONIC, &m);
		clock_gettime(CLOCK_REALTIME, &r1);
		if (ns(&r1) - ns(&r0) <= PAIR_GAP)
			break;
	}
	nd->stamp = ns(&r0) + (ns(&r1) - ns(&r0)) / 2;
	nd->in_now = ns(&m);
	return nd->in_now;
}

void
node_input_done(struct node *nd)
{
	assert(nd->in_depth > 0);
	if (--nd->in_depth == 0)
		nd->stamp = 0;
}

void
node_trace(struct node *nd, const char *fmt, ...)
{
	char line[TRACE_LINE_MAX], out[2][TRACE_LINE_MAX];
	trace_time t;
	va_list ap;
	size_t i, n;

	if (nd->tw == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	t = nd->stamp != 0 ? nd->stamp : tw_now();
	n = tc_filter(&nd->tc, t, line, out);
	for (i = 0; i < n; i++)
		if (nd->stamp != 0)
			tw_event_at(nd->tw, t, nd->self->id, "%s", out[i]);
		else
			tw_event(nd->tw, nd->self->id, "%s", out[i]);
}

/* Whether -t names a file, which SIGHUP opens again. */
static int
trace_is_file(const char *dest)
{
	return strcmp(dest, "-") != 0 && strncmp(dest, "unix:", 5) != 0 &&
	    strncmp(dest, "tcp:", 4) != 0;
}

/* Who may write in a directory above a file of ours may put a link to
 * another file in its place, or the file of its choice. */
static void
strict_parents(const char *flag, const char *path)
{
	char why[PATH_MAX + 128];

	if (file_parents_strict(path, geteuid(), why, sizeof(why)) == -1)
		errx(EXIT_USAGE, "%s %s: %s", flag, path, why);
}

static void
open_state(struct node *nd)
{
	const struct node_opts *o = nd->opts;
	char path[PATH_MAX];
	pid_t other;

	if ((nd->dirfd = store_open(o->statedir)) == -1)
		err(EXIT_USAGE, "%s", o->statedir);
	strict_parents("-s", o->statedir);
	if (o->trace != NULL && trace_is_file(o->trace))
		strict_parents("-t", o->trace);
	if (o->metrics_file != NULL)
		strict_parents("--metrics-file", o->metrics_file);
	snprintf(path, sizeof(path), "%s/%s", o->statedir, PID_NAME);
	if ((nd->pidfh = pidfile_open(path, 0600, &other)) == NULL) {
		if (errno == EEXIST)
			errx(EXIT_USAGE, "%s: node %u already runs here "
			    "(pid %d)", o->statedir, o->id, (int)other);
		err(EXIT_USAGE, "%s", path);
	}
	if (pidfile_write(nd->pidfh) == -1)
		err(1, "%s", path);
}

/* Recovery begins: a new incarnation, in stable storage before use. */
void
node_bump_incarnation(struct node *nd)
{
	if (store_bump(nd->dirfd, INC_NAME, &nd->inc) == -1)
		err(EXIT_USAGE, "%s/%s", nd->opts->statedir, INC_NAME);
	nd->net.c.inc = nd->inc;
	testament_write(nd);
}

static void
open_trace(struct node *nd)
{
	if (nd->opts->trace == NULL)
		return;
	if ((nd->tw = tw_open(nd->opts->trace, STDOUT_FILENO)) == NULL)
		err(EXIT_USAGE, "-t %s", nd->opts->trace);
	tc_init(&nd->tc, nd->self->id, !nd->opts->trace_full);
	/* a collector with the key (collect -k) takes only proved lines */
	if (!nd->key.insecure)
		tw_auth(nd->tw, nd->key.k, nd->self->id);
}

/* The detector watches the core's members: the file's in epoch 0, the
 * record's (net/epoch.h) after. */
void
node_detector_start(struct node *nd)
{
	const struct node_opts *o = nd->opts;
	char id[16], inc[24], interval[24], timeout[24], rec[PATH_MAX];
	char digest[2 * sizeof(nd->conf.d) + 1];
	char *argv[20];
	size_t i;
	int n = 0;

	snprintf(id, sizeof(id), "%u", o->id);
	snprintf(inc, sizeof(inc), "%llu", (unsigned long long)nd->inc);
	snprintf(interval, sizeof(interval), "%lld",
	    timing_ms(o->timing.fd_interval));
	snprintf(timeout, sizeof(timeout), "%lld",
	    timing_ms(o->timing.fd_timeout));
	argv[n++] = o->fd_cmd;
	argv[n++] = "-f";
	snprintf(rec, sizeof(rec), "%s/%s", o->statedir, EPOCH_RECORD);
	argv[n++] = nd->cluster.epoch == 0 ? (char *)o->cluster : rec;
	argv[n++] = "-i";
	argv[n++] = id;
	if (o->keyfile != NULL) {
		argv[n++] = "-k";
		argv[n++] = (char *)o->keyfile;
	} else
		argv[n++] = "--insecure";
	argv[n++] = "--interval";
	argv[n++] = interval;
	argv[n++] = "--timeout";
	argv[n++] = timeout;
	argv[n++] = "--incarnation";
	argv[n++] = inc;
	/* Its info lines would repeat ours: warnings only, unless -v. */
	argv[n++] = o->verbosity > 0 ? "-v" : "-q";
	if (o->syslog)
		argv[n++] = "--syslog";
	for (i = 0; i < sizeof(nd->conf.d); i++)
		snprintf(digest + 2 * i, 3, "%02x",
		    nd->conf.d[i / SESS_DIGEST][i % SESS_DIGEST]);
	argv[n++] = "--digest";
	argv[n++] = digest;
	argv[n] = NULL;
	if (access(o->fd_cmd, X_OK) == -1)
		err(EXIT_USAGE, "%s (the failure detector; see --fd-cmd)",
		    o->fd_cmd);
	if (fdc_start(&nd->fdc, argv) == -1)
		err(1, "starting %s", o->fd_cmd);
}

static void
setup(struct node *nd)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGCHLD };
	struct cluster file;
	char why[256];

	if (cluster_load(nd->opts->cluster, &file, why, sizeof(why)) == -1)
		errx(EXIT_USAGE, "%s", why);
	if (file.epoch != 0 &&
	    !(algo_flags(nd->opts->algo) & ALGO_F_EPOCHS))
		errx(EXIT_USAGE, "%s:%u: epoch %u: only -a lease changes "
		    "epochs", nd->opts->cluster, file.epoch_line, file.epoch);
	/* Not in the file: a host that left an epoch, if its state
	 * directory says so; none is made for an id of no cluster. */
	if (cluster_find(&file, nd->opts->id) == NULL &&
	    access(nd->opts->statedir, F_OK) == -1)
		errx(EXIT_USAGE, "%s: no node %u in this cluster",
		    nd->opts->cluster, nd->opts->id);
	nd->cluster = file;	/* for the key's check */
	net_key(nd);
	open_state(nd);
	/* The epoch this host runs (net/epoch.h, epoch_plan()). */
	reconf_setup(nd, &file);
	if ((nd->self = cluster_find(&nd->cluster, nd->opts->id)) == NULL)
		errx(EXIT_USAGE, "%s: no node %u in this cluster",
		    nd->opts->cluster, nd->opts->id);
	net_open(nd);
	node_bump_incarnation(nd);
	core_boot(nd);
	open_trace(nd);
	if (control_listen(&nd->control, nd->dirfd, nd->opts) == -1)
		err(EXIT_USAGE, "%s: control socket", nd->opts->statedir);
	mx_open(nd);
	task_open(nd);
	nd->names.due = -1;
	named_open(nd);
	nd->sigfd = signals_open(sigs, nitems(sigs));
	node_detector_start(nd);
}

/* Says how the detector ended, for the operator and the trace. */
static void
detector_gone(struct node *nd, int status)
{
	/* Leaving already: a Ctrl-C reaches the detector too, say. */
	if (nd->quit != QUIT_NO || reconf_detector_gone(nd, status))
		return;
	if (WIFEXITED(status))
		log_warnx("%s exited with status %d; stopping",
		    nd->opts->fd_cmd, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		log_warnx("%s killed by signal %d; stopping",
		    nd->opts->fd_cmd, WTERMSIG(status));
	/* Its port taken, its file refused: the node's usage, as its own
	 * port would be (elect-node(1), EXIT STATUS). */
	nd->fd_usage = WIFEXITED(status) && WEXITSTATUS(status) == EXIT_USAGE;
	nd->quit = QUIT_FD;
}

/*
 * A leader that leaves releases its lease (share/elect/lease.md), and
 * the next node leads at once: guarded commands must be dead before.
 * They are told to stop, and the node leaves when the last is gone; if
 * they take longer than two leases, or a second signal comes, it leaves
 * without releasing anything, and the lease runs out.
 */
static void
leave(struct node *nd, enum quit why)
{
	tasks_leave(nd, why);
}

static void
read_signals(struct node *nd)
{
	int sig, status;

	while ((sig = signals_next(nd->sigfd)) != 0) {
		switch (sig) {
		case SIGTERM:
		case SIGINT:
			leave(nd, sig == SIGTERM ? QUIT_TERM : QUIT_INT);
			break;
		case SIGHUP:
			if (nd->tw != NULL && tw_reopen(nd->tw) == -1)
				log_warnx("-t %s: reopening: %s",
				    nd->opts->trace, strerror(errno));
			else if (nd->tw != NULL &&
			    trace_is_file(nd->opts->trace))
				log_info("trace-reopened node=%u trace=%s",
				    nd->self->id, nd->opts->trace);
			net_rekey(nd);
			break;
		case SIGCHLD:
			if (fdc_reaped(&nd->fdc, &status))
				detector_gone(nd, status);
			break;
		}
	}
}

static void
on_down(void *arg, unsigned id)
{
	core_down(arg, id);
}

/* The pipes to the detector broke: it is gone, or stuck; stop. */
void
node_detector_failed(struct node *nd)
{
	/* Between two tries of a swap's detector: what it is to watch is
	 * given again once it runs. */
	if (nd->rc.fd_again != 0)
		return;
	if (errno == ENOBUFS)
		log_warnx("%s: not reading its commands; stopping",
		    nd->opts->fd_cmd);
	detector_gone(nd, fdc_stop(&nd->fdc, FDC_STOP_MS));
}

/* The control clients are behind one epoll descriptor (P_CLIENTS), so
 * that a thousand registrations do not cost a thousand polls a turn. */
enum { P_SIG, P_UDP, P_FDOUT, P_FDIN, P_CTL, P_TRACE, P_METRICS, P_CLIENTS,
	P_DOOR };

static void
loop(struct node *nd)
{
	struct pollfd pfd[P_DOOR + CONTROL_DOOR_MAX];
	struct loop_wait w;
	algo_time now, wait;
	int i, ms;

	while (!nd->quit) {
		/* Every input of the last turn done. */
		assert(nd->in_depth == 0);
		now = node_input(nd);
		/* A leave asked: once its commands are gone, or late. */
		task_tick(nd, now);
		if (nd->quit)
			break;
		loop_wait_init(&w);
		if (!nd->started) {
			if (net_ready(nd, now, &wait))
				core_start(nd);
			loop_wait_in(&w, wait);
		}
		loop_wait_in(&w, core_tick(nd, now));
		loop_wait_in(&w, reconf_tick(nd, now));
		loop_wait_in(&w, net_tick(nd, now));
		loop_wait_in(&w, net_fit(nd, now));
		node_input_done(nd);
		loop_wait_in(&w, named_tick(nd, now));
		loop_wait_in(&w, node_wake(nd, now));
		loop_wait_in(&w, notify_tick(nd, now));
		loop_wait_in(&w, events_tick(nd, now));
		loop_wait_in(&w, control_tick(&nd->control, now));
		loop_wait_in(&w, mx_tick(nd, now));
		pfd[P_METRICS].fd = nd->mx_fd;
		pfd[P_METRICS].events = POLLIN;
		pfd[P_TRACE].fd = -1;
		if (nd->tw != NULL && (ms = tw_pollfd(nd->tw,
		    &pfd[P_TRACE])) >= 0)
			loop_wait_in(&w, ms * ALGO_MS);
		pfd[P_SIG].fd = nd->sigfd;
		pfd[P_SIG].events = POLLIN;
		pfd[P_UDP].fd = nd->udp;
		pfd[P_UDP].events = POLLIN;
		pfd[P_FDOUT].fd = nd->fdc.out;
		pfd[P_FDOUT].events = POLLIN;
		pfd[P_FDIN].fd = nd->fdc.olen > 0 ? nd->fdc.in : -1;
		pfd[P_FDIN].events = POLLOUT;
		pfd[P_CTL].fd = nd->control.fd;
		pfd[P_CTL].events = POLLIN;
		control_want(&nd->control);
		pfd[P_CLIENTS].fd = nd->control.epfd;
		pfd[P_CLIENTS].events = POLLIN;
		for (i = 0; i < CONTROL_DOOR_MAX; i++) {
			pfd[P_DOOR + i].fd = nd->control.door[i].fd;
			pfd[P_DOOR + i].events = POLLIN;
		}
		if (loop_poll(pfd, nitems(pfd), &w) == -1)
			err(1, "poll");
		if (nd->tw != NULL) {
			tw_tick(nd->tw);
			tw_watch(nd->tw, nd->self->id, nd->opts->trace);
		}
		if (pfd[P_SIG].revents)
			read_signals(nd);
		if (pfd[P_UDP].revents)
			net_read(nd);
		if ((pfd[P_FDOUT].revents && !nd->quit &&
		    fdc_read(&nd->fdc, on_down, nd) == -1) ||
		    (pfd[P_FDIN].revents && fdc_flush(&nd->fdc) == -1))
			node_detector_failed(nd);
		/* Clients first: replies owed are written, and those that
		 * hung up free their slots, before new ones are taken. */
		if (pfd[P_CLIENTS].revents)
			control_ready(&nd->control, nd);
		for (i = 0; i < CONTROL_DOOR_MAX; i++)
			if (pfd[P_DOOR + i].revents)
				control_door(&nd->control, i, nd);
		if (pfd[P_CTL].revents)
			control_accept(&nd->control, nd);
		mx_io(nd);
	}
}

static const char *
quit_why(int quit)
{
	switch (quit) {
	case QUIT_TERM:
		return "sigterm";
	case QUIT_INT:
		return "sigint";
	case QUIT_FD:
		return "fd";
	default:
		return "error";
	}
}

static void
teardown(struct node *nd)
{
	notify_stopping(nd);
	if ((nd->quit == QUIT_TERM || nd->quit == QUIT_INT) && !nd->norelease) {
		core_leave(nd);
		named_leave(nd);
	}
	/* Nothing of the names after the exit line, whatever ends late. */
	named_close(nd);
	net_flush(nd);
	events_stop(nd, quit_why(nd->quit));
	node_trace(nd, "exit why=%s", quit_why(nd->quit));
	fdc_stop(&nd->fdc, FDC_STOP_MS);
	tasks_leaving(nd);
	control_close(&nd->control);
	/* The names' leads went with their registrations. */
	free(nd->names.lead);
	mx_close(nd);
	core_free(nd);
	net_close(nd);
	close(nd->sigfd);
	pidfile_remove(nd->pidfh);
	close(nd->dirfd);
	tw_close(nd->tw, TRACE_CLOSE_MS);
	reconf_free(nd);
	cluster_free(&nd->cluster);
}

int
daemon_main(const struct node_opts *o)
{
	struct node nd;

	memset(&nd, 0, sizeof(nd));
	nd.opts = o;
	nd.udp = nd.sigfd = nd.dirfd = nd.tasklock = -1;
	log_init("elect-node", o->syslog, o->verbosity);
	setup(&nd);
	events_start(&nd);
	sched_realtime(RT_NODE);
	/* The core starts in the loop, once the handshakes are done. */
	core_boot_line(&nd);
	node_input_done(&nd);
	hnet_boot(&nd.net, mono_now());
	notify_init(&nd, mono_now());
	loop(&nd);
	teardown(&nd);
	if (nd.quit == QUIT_TERM || nd.quit == QUIT_INT)
		return 0;
	return nd.quit == QUIT_FD && nd.fd_usage ? EXIT_USAGE : 1;
}
