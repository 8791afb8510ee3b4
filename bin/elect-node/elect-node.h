/*
 * elect-node: one binary, two rooms.  main.c parses the command line and
 * becomes either the daemon (daemon/: one node of the election, a thin
 * shell around a pure core) or one of its clients (client/: --status,
 * --edict, --follow-edicts, --run-if-leader).  The rooms share this
 * header's options and the control protocol of lib/ctl, nothing else.
 */
#ifndef ELECT_NODE_H
#define ELECT_NODE_H

#include <sys/types.h>
#include <sys/socket.h>

#include <getopt.h>
#include <limits.h>
#include <stdio.h>

#include "algo/algo.h"

/* Timing: the core's parameters and the detector's. */
struct node_timing {
	struct algo_timing a;
	algo_time	 fd_interval;
	algo_time	 fd_timeout;
};

#define TM_N	17	/* timing flags, see timing.c */

void		 timing_defaults(struct node_timing *);
void		 timing_longopts(struct option *, int first);
int		 timing_set(struct node_timing *, int k, const char *arg);
void		 timing_check(const struct node_timing *);
void		 timing_usage(FILE *);
void		 timing_format(const struct node_timing *, char *, size_t);
long long	 timing_ms(algo_time);
algo_time	 arg_duration(const char *, const char *what);
algo_time	 arg_duration_in(const char *, const char *what, algo_time bare,
		    algo_time max);

/* Default state directory for ID, in BUF. */
int		 default_statedir(unsigned id, int client, char *buf,
		    size_t len);

enum mode {
	MODE_DAEMON, MODE_STATUS, MODE_EDICT, MODE_FOLLOW, MODE_RUNIF,
	MODE_RECONF
};

#define TRACE_CLOSE_MS	500	/* for the last trace lines, at exit */

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
	int		 trace_full;	/* --trace-level full */
	char		*fd_cmd;
	int		 fd_cmd_own;
	struct node_timing timing;
	/* Clients: --edict, --run-if-leader. */
	const char	*edict;
	char		**command;
	int		 wait;
	algo_time	 grace;		/* -1: the default */
	int		 ecode;		/* -E; -1: the default */
	/* The daemon's log: -q -1, -v 1; --syslog. */
	int		 verbosity;
	int		 syslog;
	const char	*config;	/* -c */
	int		 json;		/* --status --json */
	const char	*reconf;	/* --reconfigure FILE */
	int		 force;		/* --force */
	const char	*dead;		/* --dead ID,... */
	algo_time	 wait_for;	/* --wait-for; -1: for ever */
	/* -n: the named leadership of --run-if-leader and --status, or
	 * NULL for the default one; the daemon's bound on names. */
	const char	*name;
	size_t		 names_max;
	/* The daemon: --metrics, --metrics-file. */
	const char	*metrics_file;
	int		 metrics_http;
	struct sockaddr_storage metrics_addr;
	const char	*metrics_arg;
	/* The daemon: --socket-group. */
	int		 socket_group;
	gid_t		 socket_gid;
	char		 socket_group_name[64];
	/* --operator-group: may also edict and reconfigure. */
	int		 operator_group;
	gid_t		 operator_gid;
	char		 operator_group_name[64];
};

#define GID_ARG_MAX	4294967294LL	/* (gid_t)-1 means none */
void		 arg_group(const char *, struct node_opts *);
void		 arg_operator_group(const char *, struct node_opts *);

/* --names-max: names at once, the most one may configure. */
#define NAMES_MAX_MOST	65536
#define EXIT_WAITED	124	/* --wait-for ran out without -E, as timeout(1) */
#define ALGO_S		(1000 * ALGO_MS)
/* --wait-for: seconds without a unit, as flock -w; at most 30 days. */
#define WAIT_FOR_MAX	(30LL * 86400 * ALGO_S)
#define EXIT_NOLEADER	4	/* --status: no leader known (election,
				 * no quorum) */

/* The rooms' entry points: each returns the process's exit code. */
int	daemon_main(const struct node_opts *);
int	client_status(const char *dir, int json, const char *name);
int	client_edict(const char *dir, const char *text);
int	client_follow(const char *dir);
int	client_runif(const struct node_opts *);
int	client_reconf(const char *dir, const char *file, int force,
	    const char *dead);

#endif
