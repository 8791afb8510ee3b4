/*
 * The daemon room of elect-node: one node of an election, a thin shell
 * around a pure core (lib/algo).  Everything declared here runs in the
 * daemon process: the event loop (node.c), the core's edge (core.c), the
 * network (net.c), the failure-detector child (fdc.c), the control
 * socket (control.c) and its commands (cmd.c, task.c).
 */
#ifndef ELECT_NODE_DAEMON_H
#define ELECT_NODE_DAEMON_H

#include <sys/queue.h>
#include <sys/types.h>

#include <stdint.h>

#include "../elect-node.h"
#include "algo/algo.h"
#include "ctl/ctl.h"
#include "host/epoch.h"
#include "host/fit.h"
#include "host/net.h"
#include "host/lead.h"
#include "host/named.h"
#include "metrics/metrics.h"
#include "net/cluster.h"
#include "net/drops.h"
#include "net/epoch.h"
#include "net/session.h"
#include "net/wire.h"
#include "trace/compact.h"
#include "trace/trace.h"
#include "util/util.h"

#define FDC_OUT_MAX	(64 * 1024)	/* commands the detector has not read */
#define FDC_LINE_MAX	128
/* Control clients besides named leaderships' registrations: the table
 * grows on demand up to this plus --names-max (control.c). */
#define CONTROL_CLIENTS_MAX	16
/* Clients that wait on purpose (wait-leader, follow-edicts, task without
 * a name) take at most this many slots: the rest turn over within
 * CONTROL_IDLE_MS, so that --status always gets one. */
#define CONTROL_WAITERS_MAX	(CONTROL_CLIENTS_MAX - 4)
/* Slots kept for root and the daemon's user, and the most that any other
 * user's clients take (control.c, slot_allowed()). */
#define CONTROL_RESERVED	4
#define CONTROL_PER_UID		6
#define CONTROL_IDLE_MS		1000	/* for a whole line, when not waiting */
/* Connections that found every slot taken wait here for their first
 * line, at most this many: past that the first to come is told busy
 * (control.c, ACCEPT_MAX). */
#define CONTROL_DOOR_MAX	32
#define CONTROL_OUT_MAX	(16 * 1024)	/* replies a client has not read */
#define CONTROL_OUT_MIN	256		/* a reply buffer's first size */
#define FDC_STOP_MS	500		/* for the detector to leave */

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

struct control;
struct nlead;

/* One client of the control socket (control.c), allocated when it
 * connects and freed when it goes. */
struct control_client {
	int		 fd;
	char		*in;		/* CTL_LINE_MAX bytes while a line is
					 * partly read or unanswered, or NULL */
	size_t		 inlen;
	char		*out;		/* allocated while replies are owed,
					 * outcap bytes, CONTROL_OUT_MAX at
					 * most */
	size_t		 outcap;
	size_t		 outlen;
	int		 closing;	/* close once out is written */
	int		 waiting;	/* a request answers later: WAIT_ */
	algo_time	 deadline;	/* for it, or 0 for none */
	algo_time	 idle_by;	/* dropped then without a whole line;
					 * 0 while it waits */
	/* Who connected (SO_PEERCRED), and whether it may use the commands
	 * that change what the node does: root, the daemon's own user, or a
	 * member of --socket-group. */
	uid_t		 uid;
	gid_t		 gid;
	pid_t		 pid;
	int		 member;
	int		 oper;		/* root, the daemon's user, or a member
					 * of --operator-group: may edict and
					 * reconfigure */
	uint32_t	 ev;		/* the events epoll watches for it */
	int		 passfd;	/* sent with the next bytes (tasks.lock
					 * to a guard), then closed; or -1 */
	/* A registration (task): its name's lead, or NULL for the default
	 * leadership's, and its slot there (task.c); -1 for none. */
	struct nlead	*nl;
	int		 lslot;
	struct control	*owner;
	/* In owner's touched list: its state may have changed this turn. */
	int		 touched;
	TAILQ_ENTRY(control_client) touch;
};

/* What a waiting client waits for: the leadership, edicts, the moment a
 * guarded command may start, or nothing (a guarded command, registered
 * until its connection closes). */
enum { WAIT_NONE, WAIT_LEADER, WAIT_EDICTS, WAIT_START, WAIT_TASK };

struct control {
	const struct node_opts *opts;
	struct metrics	*metrics;
	/* Told of every client's end, before it is freed (lib/host/lead). */
	void		(*gone)(void *, struct control_client *);
	void		*gone_arg;
	int		 fd;		/* the listening socket */
	char		 path[108];
	/* The clients, NULL for a free slot: nclients slots, grown on
	 * demand up to max (CONTROL_CLIENTS_MAX and --names-max). */
	struct control_client **clients;
	int		 epfd;		/* every client's descriptor */
	int		 nclients;
	int		 used;
	int		 max;
	/* Looked at each turn only when some may be: with a thousand
	 * registrations, a scan of every client is most of a turn. */
	int		 dropped;	/* closed, not freed yet (reap()) */
	int		 leader_waits;	/* WAIT_LEADER, or were (node_wake()) */
	/* The clients whose state may have changed this turn (touch()):
	 * control_want() looks at them alone.  No client is idle before
	 * idle_min (-1: none may be), when control_tick() looks at all. */
	TAILQ_HEAD(, control_client) touched;
	algo_time	 idle_min;
	/* Connections that found no slot, until their first line or
	 * CONTROL_IDLE_MS; doorman answers them. */
	struct {
		int		 fd;
		algo_time	 by;
	} door[CONTROL_DOOR_MAX];
	struct control_client doorman;
};

struct node;
struct MHD_Daemon;

/* A named leadership's guarded commands here: lib/host/lead's decisions
 * for them, fed the name's status (task.c). */
struct nlead {
	char		 name[HNAMES_LEN + 1];
	size_t		 len;
	struct lead	 lead;
	unsigned	 logged;	/* commands running, as last logged */
	struct control_client *by[LEAD_SLOTS];	/* a slot's registration */
	algo_time	 due;		/* its lead's wake, or -1: time alone
					 * changes nothing before */
	int		 busy;		/* its actions being carried out */
	int		 dead;		/* no registration left: freed once
					 * not busy */
};

/* Named leaderships (named.c): lib/host/named's core and the leads of
 * the names registered here, allocated with a name's first registration
 * and freed with its last. */
struct named {
	struct hnl	 h;
	struct hnl_out	 out;
	int		 on;
	algo_time	 wake;		/* a tick is due then, or -1 */
	int		 wedged;
	/* A registration's refusal, said by the core in its step. */
	char		 refused[HNAMES_WHY_MAX];
	struct nlead	**lead;		/* nlead slots, NULL when free */
	size_t		 nlead;
	/* No lead is due before (their dues' least, or earlier), -1:
	 * none: a turn of the loop looks at them only then. */
	algo_time	 due;
	/* Their commands running and waiting, summed as their leads step:
	 * asked at every step (reconf.c), not counted afresh. */
	unsigned	 running, waiting;
};

int	control_listen(struct control *, int dirfd, const struct node_opts *);
void	control_accept(struct control *, struct node *);
/* The events each client waits for, told to epoll where they changed. */
void	control_want(struct control *);
/* Serves the clients epoll says are ready, a batch of them. */
void	control_ready(struct control *, struct node *);
/* Answers connection K at the door once its line came (control.c). */
void	control_door(struct control *, int k, struct node *);
void	control_io(struct control *, struct control_client *, short revents,
	    struct node *);
void	control_reply(struct control_client *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	control_lines(struct control_client *, struct node *);
/* Whether the daemon reads C's lines now: a client waiting for an
 * answer sends nothing, but a guarded command's may say it was killed. */
int	control_reads(const struct control_client *);
void	control_flush(struct control_client *);
void	control_close(struct control *);
/* Drops the clients idle past their time; returns nanoseconds until the
 * next one is due, or -1. */
algo_time control_tick(struct control *, algo_time now);
int	control_waiters(const struct control *);
/* Whether client C may run command CMD, which changes what the node
 * does; logs who asked, and who was refused. */
int	control_allowed(const struct control *, const struct control_client *,
	    const char *cmd, int oper);

/* Answers one request; the daemon's table of commands lives in cmd.c. */
void	cmd_dispatch(struct node *, struct control_client *,
	    const struct ctl_req *);
/* Answers REQ if the node answers it at once from what it has (status,
 * help): 1, or 0 for a request that needs a slot. */
int	cmd_now(struct node *, struct control_client *, const struct ctl_req *);
/* Commands of guarded commands and edicts (task.c): what the guarded command needs to know,
 * edicts, and the stream of edicts delivered. */
void	cmd_lease(struct node *, struct control_client *, const struct ctl_req *);
void	cmd_edict(struct node *, struct control_client *, const struct ctl_req *);
void	cmd_follow_edicts(struct node *, struct control_client *,
	    const struct ctl_req *);
void	cmd_task(struct node *, struct control_client *, const struct ctl_req *);
void	cmd_killed(struct node *, struct control_client *,
	    const struct ctl_req *);
/* ARG as name=NAME into NAME (HNAMES_LEN + 1 bytes) and *LEN: 1; 0 when
 * ARG is no name=; -1 for a bad name, answered. */
int	cmd_arg_name(struct control_client *, struct ctl_str arg, char *name,
	    size_t *len);
/* The guarded commands' decisions (lib/host/lead), carried out: set up
 * once; after every change of state (task_tick() returns nanoseconds
 * until it is due again, or -1); fit's verdict anew. */
void	task_open(struct node *);
algo_time task_tick(struct node *, algo_time now);
/* Registrations without wait of a name being bid for, answered by their
 * deadline (ns from NOW until the next, or -1). */
void	task_verdict(struct node *, int changed);
/* Guarded commands registered; tells them all to stop. */
int	tasks_running(const struct node *);
int	tasks_waiting(const struct node *);
void	tasks_stop(struct node *, const char *why);
void	tasks_leaving(struct node *);
/* Sends followers an edict the core delivered or refused (ALGO_EDICT). */
void	edict_out(struct node *, const struct algo_edict *);
/* Answers waiting requests whose time has come: after every change of
 * state, and when a deadline passes.  Returns nanoseconds until the next
 * deadline, or -1. */
algo_time node_wake(struct node *, algo_time now);

enum quit {
	QUIT_NO, QUIT_TERM, QUIT_INT, QUIT_FD, QUIT_ERROR
};
/* The node is asked to leave: its guarded commands stop first. */
void	tasks_leave(struct node *, enum quit);

/* What the service manager was told (notify.c). */
struct notify {
	int		 ready;		/* READY=1 sent */
	algo_time	 ready_by;	/* the first round is surely over */
	algo_time	 wd_every, wd_next;	/* WATCHDOG=1; 0: none asked */
	int		 told;		/* a STATUS= sent */
	unsigned	 ldr;		/* as told */
	int		 leader;
};

/* What the log last said (events.c): a line is written on a change. */
struct events {
	int		 leading;	/* logged became-leader */
	uint64_t	 token;
	uint32_t	 epoch;		/* of the leadership logged */
	algo_time	 since, until;
	unsigned	 ldr;		/* as logged; 0: none */
	unsigned	 prev;		/* the last other leader, or 0 */
	/* How the last other leader's leadership ended, when this node
	 * saw it: "handover" (it released its grants), "leader-dead"
	 * (a Dead for it); GONE is that leader. */
	unsigned	 gone;
	const char	*gone_why;
	uint32_t	 prev_epoch;	/* the epoch PREV was seen leading in */
	int		 tasks;		/* guarded commands running */
	struct log_drops drops;
};

/*
 * This host's part of an epoch change: the decisions are lib/host/epoch's
 * (struct hep); reconf.c carries its actions out and keeps what touches
 * the system.
 */
struct reconf {
	struct hep	 h;
	struct hep_out	*out;
	/* The detector restarted by a swap: tried again if its port is
	 * still taken (a process may hold it a moment). */
	int		 fd_tries;
	algo_time	 fd_since, fd_again;
	/* A request being sent by a control client, in parts. */
	const struct control_client *stager;
	pid_t		 stager_pid;	/* a slot taken again is another's */
	char		*stage;
	size_t		 stagelen;
};

/* --metrics: at most HTTP_CONNS connections kept; MHD takes one more at
 * a time than that, for a newcomer to close the oldest (metrics.c). */
#define HTTP_CONNS	8
#define MX_CONNS_MAX	(2 * HTTP_CONNS)

struct mx_conn {
	int		 fd;		/* MHD's, or -1: a free entry */
	int		 cut;		/* shut down, not yet closed by MHD */
	algo_time	 since;		/* its start or its last answer */
};

struct node {
	const struct node_opts *opts;
	/* The members of the core's epoch (the net tables' peers are these
	 * and those of the other epoch of a change: net.peers). */
	struct cluster	 cluster;
	int		 fresh;		/* the core's first life here (E7) */
	/* The core booted, its first actions run once lib/host/net says it
	 * may start (hnet_may_start()). */
	int		 started;
	struct reconf	 rc;
	const struct cluster_node *self;
	uint64_t	 inc;
	int		 dirfd;
	int		 tasklock;	/* tasks.lock, held shared, or -1 */
	struct pidfh	*pidfh;
	int		 sigfd;
	struct trace_writer *tw;
	struct trace_compact tc;	/* --trace-level */
	struct fdc	 fdc;
	struct control	 control;
	struct notify	 notify;
	struct events	 events;
	enum quit	 quit;
	int		 fd_usage;	/* the detector exited on bad usage */
	uint8_t		 release_type;	/* the algorithm's Release, or 0 */
	/* Asked to leave while guarded commands run: they stop first, so
	 * that the lease is released only once they are dead. */
	enum quit	 leaving;
	int		 norelease;
	int		 exiting;	/* the core says goodbye */
	trace_time	 stamp;		/* of the input being handled, or 0 */
	algo_time	 in_now;	/* ... its monotonic time */
	int		 in_depth;	/* inputs within it, it too */

	/* Network: the socket, the key, what must agree with the peers; the
	 * edge toward them (lib/host/net) and its actions, those of a
	 * datagram, a tick or the verdict (nin) and those of a send
	 * within them (nsend). */
	int		 udp;
	struct wire_key	 key;
	struct wire_proto proto;
	struct sess_conf conf;
	struct hnet	 net;
	struct hnet_out	*nin, *nsend;
	/* What the peers' disagreement and the leadership are worth to
	 * guarded commands. */
	struct lead	 lead;
	struct control_client *lead_by[LEAD_SLOTS];	/* its registrations */
	/* Named leaderships. */
	struct named	 names;

	/* The core, its pending actions and its timers. */
	struct algo	*algo;
	struct algo_out	 out;
	algo_time	 timer[ALGO_TIMERS_MAX];
	unsigned	 armed;		/* bit i: timer[i] is set */
	/* The edict this node made in the last step, for `edict'. */
	int		 made;
	uint64_t	 made_seq, made_token;

	struct metrics	 metrics;
	struct MHD_Daemon *mhd;
	int		 mx_fd;		/* its epoll descriptor, or -1 */
	struct mx_conn	 mx_conns[MX_CONNS_MAX];
	algo_time	 mx_file_next;
	int		 mx_file_failed;
};

/* The metrics' hooks and ways out (metrics.c). */
void	mx_open(struct node *);
void	mx_step(struct node *, algo_time now);
void	mx_lead(struct node *);
algo_time mx_tick(struct node *, algo_time now);
void	mx_io(struct node *);
void	mx_close(struct node *);

void	node_detector_failed(struct node *);
void	node_detector_start(struct node *);
void	node_bump_incarnation(struct node *);
algo_time node_input(struct node *);
void	node_input_done(struct node *);
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
void	net_conf(struct node *);
void	net_rekey(struct node *);
algo_time net_tick(struct node *, algo_time now);
void	net_touch(struct node *);
void	net_flush(struct node *);
const char *net_misfits(const struct node *, char *, size_t);
int	net_down(struct node *, unsigned id);
/* The verdict of lib/host/fit anew, said once when it changes; returns
 * nanoseconds until it may change by itself, or -1. */
algo_time net_fit(struct node *, algo_time now);
void	net_monitor(struct node *, unsigned id, int on);
/* Whether the core may start: the handshakes done, or START_BY past;
 * nanoseconds until START_BY, or -1. */
int	net_ready(struct node *, algo_time now, algo_time *wait);
void	net_close(struct node *);
/* The peers anew: the core's members and those of the change's other
 * epoch; FRESH: a new incarnation, every handshake anew. */
void	net_peers(struct node *, int fresh);
/* testament.c */
void	testament_write(struct node *);
int	testament_lock_fd(struct node *);
void	events_dead(struct node *, unsigned peer, uint64_t inc);
void	events_release(struct node *, unsigned peer);
/* An epoch message (net/epoch.h) to ID, if confirmed: 1 sent, 0 not. */
int	net_send_epoch(struct node *, unsigned id, const struct epoch_msg *);
/* A message of TYPE with payload P (LEN bytes) to ID, if confirmed. */
int	net_send_wire(struct node *, unsigned id, uint8_t type,
	    const uint8_t *p, size_t len);

/* Named leaderships (named.c): the core set up from the cluster and the
 * floor written; its inputs; its tick (nanoseconds until the next, or
 * -1). */
void	named_open(struct node *);
void	named_close(struct node *);
void	named_swap(struct node *);
void	named_leave(struct node *);
void	named_recv(struct node *, unsigned id, uint64_t inc,
	    const uint8_t *p, size_t len);
void	named_dead(struct node *, unsigned id, uint64_t inc);
void	named_members(struct node *);
void	named_learn(struct node *);
void	named_wedge(struct node *);
/* A registration of NAME here: 0, or -1 with the core's refusal in
 * names.refused. */
int	named_register(struct node *, const char *name, size_t len);
void	named_release(struct node *, const char *name, size_t len);
algo_time named_tick(struct node *, algo_time now);
/* Name's status as the default leadership's (for lib/host/lead). */
void	named_status(const struct node *, const char *name, size_t len,
	    algo_time now, struct algo_status *);
/* The name's guarded commands' decisions again (task.c). */
void	task_named(struct node *, const char *name, size_t len);

/* The change (reconf.c). */
void	reconf_setup(struct node *, struct cluster *file);
algo_time reconf_tick(struct node *, algo_time now);
void	reconf_recv(struct node *, unsigned from, const struct wire_msg *);
/* The other epoch's members while this host's part of the change
 * lasts, or NULL. */
const struct cluster *reconf_other(const struct node *);
/* After every step of the core: once its core of E+1 learned that E
 * ended, the members of E that left leave the net tables. */
void	reconf_stepped(struct node *);
/* Whether this host's core of E ends: no guarded command starts. */
int	reconf_ending(const struct node *);
/* No change under way here: none held, or this host's part is over
 * (its core of E+1 learned that E ended). */
int	reconf_done(const struct node *);
void	reconf_free(struct node *);
/* The detector ended: 1 when a swap's restart of it is tried again. */
int	reconf_detector_gone(struct node *, int status);
void	cmd_reconfigure_part(struct node *, struct control_client *,
	    const struct ctl_req *);
void	cmd_reconfigure(struct node *, struct control_client *,
	    const struct ctl_req *);

/* The service manager's edge (notify.c).  notify_tick() returns
 * nanoseconds until it is due again, or -1. */
void	notify_init(struct node *, algo_time now);
algo_time notify_tick(struct node *, algo_time now);
void	notify_stopping(struct node *);

/* The log (events.c): one line per event, see elect-node(1), LOGGING.
 * events_tick() returns nanoseconds until it is due again, or -1. */
void	events_start(struct node *);
algo_time events_tick(struct node *, algo_time now);
void	events_peer(struct node *, unsigned id, int up);
void	events_drop(struct node *, const char *why);
void	events_stop(struct node *, const char *why);

/* The core's edge (core.c). */
/* The core booted from the state directory; the trace's boot line, the
 * host up; its first actions run, once the handshakes are done. */
void	core_boot(struct node *);
void	core_boot_line(struct node *);
void	core_start(struct node *);
void	core_recv(struct node *, const struct algo_msg *);
void	core_down(struct node *, unsigned id);
/* Fires due timers; returns nanoseconds until the next one, or -1. */
algo_time core_tick(struct node *, algo_time now);
int	core_cmd(struct node *, enum algo_cmd_code, const void *, size_t);
void	core_epoch(struct node *, int *pending, int *wedged);
void	core_leave(struct node *);
void	core_free(struct node *);
/* The core's status as this node acts on it: no leadership while peers
 * that disagree stop it (net_fit()).  Every leadership the daemon answers
 * for, logs, counts or lets a guarded command start under is this one. */
void	node_query(const struct node *, algo_time now, struct algo_status *);

#endif
