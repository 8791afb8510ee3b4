/* elect-node: one node of an election, a thin shell around a pure core. */
#ifndef ELECT_NODE_H
#define ELECT_NODE_H

#include <sys/types.h>

#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "algo/algo.h"
#include "ctl/ctl.h"
#include "net/cluster.h"
#include "net/wire.h"
#include "trace/trace.h"

#define FDC_OUT_MAX	(64 * 1024)	/* commands the detector has not read */
#define FDC_LINE_MAX	128
#define CTL_CLIENTS_MAX	16
#define CTL_OUT_MAX	(16 * 1024)	/* replies a client has not read */
#define CTL_WAIT_MS	2000		/* how long --status waits for a reply */
#define EXIT_NODAEMON	3		/* --status: no daemon answered */
#define FDC_STOP_MS	500		/* for the detector to leave */
#define TRACE_CLOSE_MS	500		/* for the last trace lines */

/* The failure-detector child. */
struct fdc {
	pid_t		 pid;
	int		 in;		/* its stdin: we write commands */
	int		 out;		/* its stdout: we read "down ID" */
	char		 obuf[FDC_OUT_MAX];
	size_t		 olen;
	char		 ibuf[FDC_LINE_MAX];
	size_t		 ilen;
};

int	fdc_start(struct fdc *, char *const argv[]);
int	fdc_send(struct fdc *, const char *line);
int	fdc_flush(struct fdc *);
int	fdc_read(struct fdc *, void (*down)(void *, unsigned), void *);
int	fdc_stop(struct fdc *, int wait_ms);
int	fdc_reaped(struct fdc *, int *status);

/* One client of the control socket. */
struct ctl_client {
	int		 fd;
	char		 in[CTL_LINE_MAX];
	size_t		 inlen;
	char		 out[CTL_OUT_MAX];
	size_t		 outlen;
	int		 closing;	/* close once out is written */
	int		 waiting;	/* a request answers later: WAIT_ */
	algo_time	 deadline;	/* for it, or 0 for none */
	uint64_t	 edicts;	/* WAIT_EDICTS: the next one to send */
	int		 taskwait;	/* WAIT_START: until this node leads */
};

/* What a waiting client waits for: the leadership, edicts, the moment a
 * guarded command may start, or nothing (a guarded command, registered
 * until its connection closes). */
enum { WAIT_NONE, WAIT_LEADER, WAIT_EDICTS, WAIT_START, WAIT_TASK };

struct ctl_server {
	int		 fd;		/* the listening socket */
	char		 path[108];
	struct ctl_client clients[CTL_CLIENTS_MAX];
};

struct node;
struct node_opts;

int	ctl_listen(struct ctl_server *, int dirfd, const char *dir);
void	ctl_accept(struct ctl_server *);
void	ctl_io(struct ctl_server *, struct ctl_client *, short revents,
	    struct node *);
void	ctl_reply(struct ctl_client *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	ctl_lines(struct ctl_client *, struct node *);
void	ctl_flush(struct ctl_client *);
void	ctl_close(struct ctl_server *);
int	ctl_ask(const char *dir, const char *req, char *reply, size_t len,
	    int wait_ms, const char **why);
/* Connects to the daemon of DIR and sends REQ: the socket, or -1 with
 * *WHY said.  NONBLOCK: the socket does not block. */
int	ctl_connect(const char *dir, const char *req, int nonblock,
	    const char **why);
/* The --status client: the exit code of elect-node --status. */
int	ctl_status(const char *dir);

/* Answers one request; the daemon's table of commands lives in cmd.c. */
void	node_command(struct node *, struct ctl_client *,
	    const struct ctl_req *);
/* Lease commands (leasecmd.c): what the guarded command needs to know,
 * edicts, and the stream of edicts delivered. */
void	cmd_lease(struct node *, struct ctl_client *, const struct ctl_req *);
void	cmd_edict(struct node *, struct ctl_client *, const struct ctl_req *);
void	cmd_follow_edicts(struct node *, struct ctl_client *,
	    const struct ctl_req *);
void	cmd_task(struct node *, struct ctl_client *, const struct ctl_req *);
/* Answers a task request once it can be (WAIT_START): 1 if it did. */
int	task_wake(struct node *, struct ctl_client *, algo_time now);
/* Guarded commands registered; tells them all to stop. */
int	tasks_running(const struct node *);
int	tasks_waiting(const struct node *);
void	tasks_stop(struct node *);
void	tasks_leaving(struct node *);
/* Sends followers the edicts delivered or refused since the last call. */
void	edicts_publish(struct node *);
/* The clients --edict, --follow-edicts and --run-if-leader: exit codes. */
int	ctl_edict(const char *dir, const char *text);
int	ctl_follow(const char *dir);
int	run_if_leader(const struct node_opts *);
/* Answers waiting requests whose time has come: after every change of
 * state, and when a deadline passes.  Returns nanoseconds until the next
 * deadline, or -1. */
algo_time node_wake(struct node *, algo_time now);

/* Default state directory for ID, in BUF. */
int	default_statedir(unsigned id, char *buf, size_t len);

/* Timing: the core's parameters and the detector's. */
struct node_timing {
	struct algo_timing a;
	algo_time	 fd_interval;
	algo_time	 fd_timeout;
};

#define TM_N	16	/* timing flags, see timing.c */

void		 timing_defaults(struct node_timing *);
void		 timing_longopts(struct option *, int first);
int		 timing_set(struct node_timing *, int k, const char *arg);
void		 timing_check(const struct node_timing *);
void		 timing_usage(FILE *);
long long	 timing_ms(algo_time);
algo_time	 arg_duration(const char *, const char *what);

enum mode {
	MODE_DAEMON, MODE_STATUS, MODE_EDICT, MODE_FOLLOW, MODE_RUNIF
};

#define GRACE_MAX_MS	(3600 * 1000)

struct node_opts {
	enum mode	 mode;
	const struct algo_ops *algo;
	const char	*cluster;
	unsigned	 id;
	const char	*keyfile;
	int		 insecure;
	const char	*statedir;
	char		 statedir_buf[PATH_MAX];
	const char	*trace;
	char		*fd_cmd;
	int		 fd_cmd_own;
	struct node_timing timing;
	/* Clients: --edict, --run-if-leader. */
	const char	*edict;
	char		**command;
	int		 wait;
	algo_time	 grace;		/* -1: the default */
	int		 ecode;		/* -E; -1: the default */
};

enum quit {
	QUIT_NO, QUIT_TERM, QUIT_INT, QUIT_FD, QUIT_ERROR
};

struct node {
	const struct node_opts *opts;
	struct cluster	 cluster;
	const struct cluster_node *self;
	uint64_t	 inc;
	int		 dirfd;
	struct pidfh	*pidfh;
	int		 sigfd;
	struct trace_writer *tw;
	struct fdc	 fdc;
	struct ctl_server ctl;
	enum quit	 quit;
	/* Asked to leave while guarded commands run: they stop first, so
	 * that the lease is released only once they are dead. */
	enum quit	 leaving;
	algo_time	 leave_by;
	int		 norelease;
	int		 exiting;	/* the core says goodbye */
	trace_time	 stamp;		/* of the input being handled, or 0 */

	/* Network: the socket, the key, a sequence number per receiver and
	 * a replay window per sender, both indexed like cluster.nodes. */
	int		 udp;
	struct wire_key	 key;
	struct wire_proto proto;
	uint64_t	*seq;
	struct wire_window *win;
	uint64_t	 drops;
	/* What we asked the detector to monitor (start, not stopped since);
	 * what it reported down, not heard from since. */
	uint8_t		*monitored;
	uint8_t		*downed;

	/* The core, its pending actions and its timers. */
	struct algo	*algo;
	struct algo_out	 out;
	algo_time	 timer[ALGO_TIMERS_MAX];
	unsigned	 armed;		/* bit i: timer[i] is set */
};

int	node_run(const struct node_opts *);
void	node_detector_failed(struct node *);
algo_time mono_now(void);
algo_time node_input(struct node *);
void	node_input_done(struct node *);
void	node_realtime(void);
const char *id_str(unsigned, char *, size_t);
const char *elid_key(const struct algo_elid *, char *, size_t);
const char *msg_fields(const struct node *, const struct algo_msg *, char *,
	    size_t);
void	node_trace(struct node *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* The network edge (net.c). */
void	net_key(struct node *);
void	net_open(struct node *);
void	net_read(struct node *);
void	net_send(struct node *, const struct algo_msg *);
void	net_drop(struct node *, unsigned from, const char *why);
int	net_down(struct node *, unsigned id);
void	net_monitor(struct node *, unsigned id, int on);
void	net_close(struct node *);

/* The core's edge (core.c). */
void	core_boot(struct node *);
void	core_start(struct node *);
void	core_recv(struct node *, const struct algo_msg *);
void	core_down(struct node *, unsigned id);
/* Fires due timers; returns nanoseconds until the next one, or -1. */
algo_time core_tick(struct node *, algo_time now);
int	core_cmd(struct node *, enum algo_cmd_code, const void *, size_t);
void	core_leave(struct node *);
void	core_free(struct node *);

#endif
