/*
 * The control socket: a unix stream socket in the state directory, owner
 * only, answering lines of the control protocol (lib/ctl) without ever
 * blocking the node.
 *
 * Slots are allocated when a client connects and freed when it goes,
 * CONTROL_CLIENTS_MAX of them besides one per name that --names-max
 * allows, for the registrations that hold names (task name=NAME).  Slots
 * are few all the same, so no client keeps one for nothing: one that has not
 * sent a whole line within CONTROL_IDLE_MS of connecting or of its last
 * line is dropped, unless it waits on purpose (a wait-leader, a follower
 * of edicts, a guarded command); and those take at most
 * CONTROL_WAITERS_MAX slots, so that a --status always finds one within
 * a second however many idle or slow clients connect.  One that finds
 * every slot taken all the same, by root's own clients say, waits at
 * the door for its first line, and is answered there if it asks what
 * the node answers at once (--status), or told busy.
 */
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <assert.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "util/util.h"

#define CTL_BACKLOG	8
/*
 * Connections taken in one turn of the loop: as many as the backlog
 * holds (Linux keeps one past listen()'s number), those that were there
 * when poll() woke.  Clients that reconnect as fast as they are let go
 * would otherwise refill it while the loop takes them, and keep the
 * datagrams, the detector and the replies owed waiting as long as they
 * last; a connection in the backlog is taken within two turns.
 */
#define ACCEPT_MAX	(CTL_BACKLOG + 1)
/* A connection at the door gives its place to a newcomer only after
 * three turns of newcomers at least: time to send the line a client
 * sends as soon as it is connected. */
_Static_assert(CONTROL_DOOR_MAX >= 3 * ACCEPT_MAX, "door too small");
#define IDLE		((algo_time)CONTROL_IDLE_MS * ALGO_MS)

/*
 * --socket-group: warns if a directory above the state directory keeps
 * the group out, as /var/lib/elect made 0700 would: its members would
 * find no socket, however open the socket itself is.
 */
static void
group_reach(const struct node_opts *o)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	if (realpath(o->statedir, dir) == NULL)
		return;
	while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (stat(dir, &st) == -1)
			return;
		if ((st.st_mode & S_IXOTH) ||
		    (st.st_gid == o->socket_gid && (st.st_mode & S_IXGRP)))
			continue;
		log_warnx("socket-group node=%u group=%s cannot reach %s/%s: "
		    "%s is mode %04o (chmod o+x %s, or give it the group and "
		    "g+x)", o->id, o->socket_group_name, o->statedir, CTL_NAME,
		    dir, (unsigned)(st.st_mode & 07777), dir);
		return;
	}
}

/* Gives NAME of DIRFD ("": DIRFD itself) the group GID, unless it has it. */
static int
set_group(int dirfd, const char *name, gid_t gid)
{
	struct stat st;
	int flags = name[0] == '\0' ? AT_EMPTY_PATH : AT_SYMLINK_NOFOLLOW;

	if (fstatat(dirfd, name, &st, flags) == -1)
		return -1;
	if (st.st_gid == gid)
		return 0;
	return fchownat(dirfd, name, (uid_t)-1, gid, flags);
}

/* Descriptors for every slot and the door: the soft limit raised
 * towards them, as far as the hard one allows. */
static void
nofile_raise(const struct control *s)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)s->max + CONTROL_DOOR_MAX + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ?
	    want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur < want)
		log_warnx("control: %llu descriptors at most, not %llu: "
		    "fewer registrations of names than --names-max may be "
		    "held", (unsigned long long)rl.rlim_cur,
		    (unsigned long long)want);
}

int
control_listen(struct control *s, int dirfd, const struct node_opts *o)
{
	struct sockaddr_un sun;
	mode_t old;
	int i, rc;

	_Static_assert(NAMES_MAX_MOST <= INT_MAX - CONTROL_CLIENTS_MAX,
	    "slots counted in an int");
	s->opts = o;
	s->clients = NULL;
	s->nclients = s->used = 0;
	TAILQ_INIT(&s->touched);
	s->idle_min = -1;
	if ((s->epfd = epoll_create1(EPOLL_CLOEXEC)) == -1)
		return -1;
	s->max = CONTROL_CLIENTS_MAX + (int)(o->names_max > 0 ?
	    o->names_max : HNAMES_DEFAULT);
	nofile_raise(s);
	for (i = 0; i < CONTROL_DOOR_MAX; i++)
		s->door[i].fd = -1;
	s->doorman.fd = s->doorman.passfd = -1;
	s->doorman.owner = s;
	if (ctl_socket_path(&sun, o->statedir) == -1)
		return -1;
	strlcpy(s->path, sun.sun_path, sizeof(s->path));
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd == -1)
		return -1;
	/* The pid file is ours, so a socket left here is a dead daemon's. */
	if (unlinkat(dirfd, CTL_NAME, 0) == -1 && errno != ENOENT)
		return -1;
	old = umask(0177);
	rc = bind(s->fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (rc == -1)
		return -1;
	/* --socket-group: the group may connect, and pass through the
	 * state directory, but not list or read it.  A group the files
	 * have already (the daemon's own, as the packaged unit runs it) is
	 * not given again: the unit's system call filter refuses chown. */
	if (o->socket_group && (set_group(dirfd, CTL_NAME, o->socket_gid) ==
	    -1 || fchmodat(dirfd, CTL_NAME, 0660, 0) == -1 ||
	    set_group(dirfd, "", o->socket_gid) == -1 ||
	    fchmod(dirfd, 0710) == -1))
		return -1;
	if (o->socket_group)
		group_reach(o);
	return listen(s->fd, CTL_BACKLOG);
}

/* Whether the peer of C is root, this daemon's user, or in group GID
 * (if HAVE). */
static int
peer_in(struct control_client *c, int have, gid_t gid)
{
	gid_t fixed[256], *gids = fixed;
	socklen_t len = sizeof(fixed);
	size_t i, n;
	int in = 0;

	if (c->uid == 0 || c->uid == geteuid())
		return 1;
	if (!have)
		return 0;
	if (c->gid == gid)
		return 1;
	/* The supplementary groups the peer had when it connected. */
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERGROUPS, gids, &len) == -1) {
		if (errno != ERANGE || (gids = malloc(len)) == NULL)
			return 0;
		if (getsockopt(c->fd, SOL_SOCKET, SO_PEERGROUPS, gids,
		    &len) == -1) {
			free(gids);
			return 0;
		}
	}
	n = len / sizeof(gid_t);
	for (i = 0; i < n && !in; i++)
		in = gids[i] == gid;
	if (gids != fixed)
		free(gids);
	return in;
}

/* Who connected, from the kernel; unknown callers get nothing more than
 * the questions. */
static void
peer_creds(struct control *s, struct control_client *c)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	c->member = c->oper = 0;
	c->uid = (uid_t)-1;
	c->gid = (gid_t)-1;
	c->pid = 0;
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) == -1 ||
	    len != sizeof(uc))
		return;
	c->uid = uc.uid;
	c->gid = uc.gid;
	c->pid = uc.pid;
	c->member = peer_in(c, s->opts->socket_group, s->opts->socket_gid);
	c->oper = peer_in(c, s->opts->operator_group, s->opts->operator_gid);
}

/* Root and the daemon's own user, whom no cap holds back. */
static int
privileged(const struct control_client *c)
{
	return c->uid == 0 || c->uid == geteuid();
}

/*
 * Whether a new client C may take a slot: the last CONTROL_RESERVED free
 * slots are root's and the daemon user's, and any other user has at most
 * CONTROL_PER_UID slots (as ZooKeeper's maxClientCnxns), so that no user's connections, however many or slow,
 * keep another's --status out, nor the daemon's own user's.
 */
static int
slot_allowed(const struct control *s, const struct control_client *c)
{
	int i, mine = 0;

	if (privileged(c))
		return 1;
	for (i = 0; i < s->nclients; i++) {
		const struct control_client *o = s->clients[i];

		if (o != NULL && o->fd != -1 && o != c && o->uid == c->uid)
			mine++;
	}
	/* C's own slot is taken already. */
	return s->max - s->used >= CONTROL_RESERVED && mine < CONTROL_PER_UID;
}

int
control_allowed(const struct control *s, const struct control_client *c,
    const char *cmd, int oper)
{
	if (oper ? c->oper : c->member) {
		log_info("control: %s from uid %u pid %d", cmd,
		    (unsigned)c->uid, (int)c->pid);
		return 1;
	}
	if (oper)
		log_warnx("control: %s refused to uid %u pid %d: not root, "
		    "not uid %u, not in group %s", cmd, (unsigned)c->uid,
		    (int)c->pid, (unsigned)geteuid(), s->opts->operator_group ?
		    s->opts->operator_group_name : "(no --operator-group)");
	else
		log_warnx("control: %s refused to uid %u pid %d: not root, "
		    "not uid %u, not in group %s", cmd, (unsigned)c->uid,
		    (int)c->pid, (unsigned)geteuid(), s->opts->socket_group ?
		    s->opts->socket_group_name : "(no --socket-group)");
	return 0;
}

static void
out_free(struct control_client *c)
{
	free(c->out);
	c->out = NULL;
	c->outcap = c->outlen = 0;
}

/* C's state (what it waits for, closing, its replies owed) may change
 * this turn: control_want() looks at it, and at no other. */
static void
touch(struct control_client *c)
{
	struct control *s = c->owner;

	if (c->touched || c == &s->doorman)
		return;
	c->touched = 1;
	TAILQ_INSERT_TAIL(&s->touched, c, touch);
}

static void
untouch(struct control_client *c)
{
	if (!c->touched)
		return;
	TAILQ_REMOVE(&c->owner->touched, c, touch);
	c->touched = 0;
}

/* C dropped unless it has a whole line by T. */
static void
idle_at(struct control_client *c, algo_time t)
{
	struct control *s = c->owner;

	c->idle_by = t;
	if (c != &s->doorman && (s->idle_min == -1 || t < s->idle_min))
		s->idle_min = t;
}

/*
 * Closes C; its memory and slot are freed by reap(), at the top of the
 * loop, as callers up the stack may still hold C (a reply that ends a
 * registration, say).
 */
static void
drop_client(struct control_client *c)
{
	struct control *s = c->owner;

	close(c->fd);
	c->fd = -1;
	s->dropped++;
	if (c->passfd != -1)
		close(c->passfd);
	c->passfd = -1;
	free(c->in);
	c->in = NULL;
	c->inlen = 0;
	c->closing = c->waiting = 0;
	if (s->gone != NULL)
		s->gone(s->gone_arg, c);
	out_free(c);
}

/* Frees the clients dropped since the last time. */
static void
reap(struct control *s)
{
	int i;

	if (s->dropped == 0)
		return;
	s->dropped = 0;
	for (i = 0; i < s->nclients; i++)
		if (s->clients[i] != NULL && s->clients[i]->fd == -1) {
			untouch(s->clients[i]);
			free(s->clients[i]);
			s->clients[i] = NULL;
			s->used--;
			assert(s->used >= 0);
		}
}

static void
say_busy(struct control *s, int fd)
{
	static const char busy[] = "err busy\n";

	if (s->metrics != NULL)
		s->metrics->ctl_busy++;
	/* A best effort: the client learns why, or not. */
	if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) ==
	    -1)
		errno = 0;
}

static void
door_close(struct control *s, int k, int busy)
{
	if (busy)
		say_busy(s, s->door[k].fd);
	close(s->door[k].fd);
	s->door[k].fd = -1;
}

int
control_waiters(const struct control *s)
{
	int i, n = 0;

	/* Registrations that hold names are bounded by --names-max. */
	for (i = 0; i < s->nclients; i++)
		n += s->clients[i] != NULL && s->clients[i]->fd != -1 &&
		    s->clients[i]->waiting && s->clients[i]->nl == NULL;
	return n;
}

/* C's idle clock as its wait is: stopped while it waits, started anew
 * once its wait is answered. */
static void
idle_turn(struct control_client *c, algo_time now)
{
	if (c->fd == -1)
		return;
	if (c->waiting)
		c->idle_by = 0;
	else if (c->idle_by == 0)
		idle_at(c, now + IDLE);
}

algo_time
control_tick(struct control *s, algo_time now)
{
	struct control_client *c;
	algo_time next = -1;
	int i;

	reap(s);
	/* The clients whose wait began or ended this turn; the others'
	 * times are as they were, and none is due before idle_min. */
	TAILQ_FOREACH(c, &s->touched, touch)
		idle_turn(c, now);
	if (s->idle_min == -1 || now < s->idle_min)
		i = s->nclients;
	else {
		s->idle_min = -1;
		i = 0;
	}
	for (; i < s->nclients; i++) {
		if ((c = s->clients[i]) == NULL || c->fd == -1 || c->waiting)
			continue;
		if (now >= c->idle_by) {
			log_debug("control: client idle for %d ms, dropped",
			    CONTROL_IDLE_MS);
			if (s->metrics != NULL)
				s->metrics->ctl_idle_drops++;
			drop_client(c);
			continue;
		}
		if (s->idle_min == -1 || c->idle_by < s->idle_min)
			s->idle_min = c->idle_by;
	}
	if (s->idle_min != -1)
		next = s->idle_min - now;
	for (i = 0; i < CONTROL_DOOR_MAX; i++) {
		if (s->door[i].fd == -1)
			continue;
		if (now >= s->door[i].by) {
			door_close(s, i, 1);
			continue;
		}
		if (next == -1 || s->door[i].by - now < next)
			next = s->door[i].by - now;
	}
	return next;
}

void
control_reply(struct control_client *c, const char *fmt, ...)
{
	char line[CTL_LINE_MAX];
	va_list ap;
	size_t need, cap;
	char *p;
	int n;

	touch(c);
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	need = c->outlen + (size_t)n + 1;
	/* A client that does not read its replies is let go. */
	if (n < 0 || (size_t)n + 1 > CTL_LINE_MAX || need > CONTROL_OUT_MAX) {
		c->closing = 1;
		out_free(c);
		return;
	}
	/* Most clients are owed one short line: the buffer grows only as
	 * far as they leave unread. */
	if (need > c->outcap) {
		for (cap = c->outcap ? c->outcap : CONTROL_OUT_MIN; cap < need;
		    cap *= 2)
			;
		if (cap > CONTROL_OUT_MAX)
			cap = CONTROL_OUT_MAX;
		if ((p = realloc(c->out, cap)) == NULL) {
			c->closing = 1;
			out_free(c);
			return;
		}
		c->out = p;
		c->outcap = cap;
	}
	memcpy(c->out + c->outlen, line, (size_t)n);
	c->out[c->outlen + (size_t)n] = '\n';
	c->outlen = need;
}

static void
handle_line(struct control_client *c, const char *line, size_t len,
    struct node *nd)
{
	struct ctl_req req;
	const char *why;

	if ((why = ctl_parse_req(line, len, &req)) != NULL) {
		control_reply(c, "err %s", why);
		return;
	}
	if (req.version != CTL_VERSION) {
		control_reply(c, "err version %u not spoken, only %d", req.version,
		    CTL_VERSION);
		return;
	}
	cmd_dispatch(nd, c, &req);
}

int
control_reads(const struct control_client *c)
{
	return !c->closing && (c->waiting == WAIT_NONE ||
	    c->waiting == WAIT_TASK);
}

/* Answers the complete lines read, in order, until one has to wait. */
void
control_lines(struct control_client *c, struct node *nd)
{
	char line[CTL_LINE_MAX], *nl;
	size_t len;

	touch(c);
	while (control_reads(c) && c->inlen > 0 &&
	    (nl = memchr(c->in, '\n', c->inlen)) != NULL) {
		len = (size_t)(nl - c->in);
		memcpy(line, c->in, len);
		c->inlen -= len + 1;
		memmove(c->in, nl + 1, c->inlen);
		idle_at(c, mono_now() + IDLE);
		handle_line(c, line, len, nd);
	}
}

static void
read_lines(struct control_client *c, struct node *nd)
{
	ssize_t n;

	/* Most clients send one line and then wait: the buffer is theirs
	 * only while a line is partly read or unanswered. */
	if (c->in == NULL && (c->in = malloc(CTL_LINE_MAX)) == NULL) {
		c->closing = 1;
		out_free(c);
		return;
	}
	n = read(c->fd, c->in + c->inlen, CTL_LINE_MAX - c->inlen);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == 0) {
		/* The client is done asking: answer what it asked, then go. */
		if (c->inlen > 0)
			control_reply(c, "err line without a newline");
		c->closing = 1;
		return;
	}
	if (n == -1) {
		c->closing = 1;
		out_free(c);
		return;
	}
	c->inlen += (size_t)n;
	control_lines(c, nd);
	if (c->fd == -1)
		return;
	if (c->inlen == CTL_LINE_MAX) {
		control_reply(c, "err line too long");
		c->closing = 1;
	}
	if (c->inlen == 0) {
		free(c->in);
		c->in = NULL;
	}
}

/* The bytes, and with the first of them the descriptor to pass. */
static ssize_t
send_some(struct control_client *c)
{
	union {
		struct cmsghdr	 h;
		char		 buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = { c->out, c->outlen };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (c->passfd == -1)
		return send(c->fd, c->out, c->outlen, MSG_NOSIGNAL |
		    MSG_DONTWAIT);
	memset(&cm, 0, sizeof(cm));
	m.msg_control = cm.buf;
	m.msg_controllen = sizeof(cm.buf);
	cm.h.cmsg_level = SOL_SOCKET;
	cm.h.cmsg_type = SCM_RIGHTS;
	cm.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&cm.h), &c->passfd, sizeof(int));
	if ((n = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT)) > 0) {
		close(c->passfd);
		c->passfd = -1;
	}
	return n;
}

static void
write_out(struct control_client *c)
{
	ssize_t n;

	touch(c);
	while (c->outlen > 0) {
		n = send_some(c);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN) {
				c->closing = 1;
				out_free(c);
			}
			return;
		}
		memmove(c->out, c->out + n, c->outlen - (size_t)n);
		c->outlen -= (size_t)n;
	}
	out_free(c);
}

void
control_io(struct control *s, struct control_client *c, short revents,
    struct node *nd)
{
	/* Gone altogether: no one is left to answer, but a guarded
	 * command's last word is still heard. */
	if (revents & (POLLHUP | POLLERR)) {
		if ((revents & POLLIN) && c->waiting == WAIT_TASK)
			read_lines(c, nd);
		drop_client(c);
		return;
	}
	touch(c);
	if (control_reads(c) && (revents & POLLIN))
		read_lines(c, nd);
	control_flush(c);
}

/* Writes what the client takes; lets it go once all is said. */
void
control_flush(struct control_client *c)
{
	if (c->fd == -1)
		return;
	write_out(c);
	if (c->closing && !c->waiting && c->outlen == 0)
		drop_client(c);
}

/*
 * What came from connection K at the door: if it is one request the node
 * answers at once from what it has (status, help), the answer, else err
 * busy; then the connection is closed.  Nothing yet: it waits.
 */
void
control_door(struct control *s, int k, struct node *nd)
{
	struct control_client *c = &s->doorman;
	char in[CTL_LINE_MAX];
	struct ctl_req req;
	ssize_t n;
	int answered;

	n = read(s->door[k].fd, in, sizeof(in));
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	c->fd = s->door[k].fd;
	out_free(c);
	c->closing = 0;
	answered = n > 0 && memchr(in, '\n', (size_t)n) == in + n - 1 &&
	    ctl_parse_req(in, (size_t)n - 1, &req) == NULL &&
	    req.version == CTL_VERSION && cmd_now(nd, c, &req);
	/* One line: a fresh socket's buffer takes it at once. */
	if (answered)
		write_out(c);
	c->fd = -1;
	out_free(c);
	/* One that hung up hears nothing, and is not counted busy. */
	door_close(s, k, !answered && n != 0);
}

/* A connection that found no slot waits at the door for its request,
 * in the place of the one that came first if the door is full. */
static void
door_take(struct control *s, int fd, algo_time now, struct node *nd)
{
	int k, old = 0;

	for (k = 0; k < CONTROL_DOOR_MAX && s->door[k].fd != -1; k++)
		if (s->door[k].by < s->door[old].by)
			old = k;
	if (k == CONTROL_DOOR_MAX) {
		door_close(s, old, 1);
		k = old;
	}
	s->door[k].fd = fd;
	s->door[k].by = now + IDLE;
	control_door(s, k, nd);
}

/* A free slot in the table, grown if all are taken and it may; -1 if
 * none. */
static int
slot_free(struct control *s)
{
	struct control_client **p;
	int i, n;

	if (s->used == s->max)
		return -1;
	for (i = 0; i < s->nclients; i++)
		if (s->clients[i] == NULL)
			return i;
	n = s->nclients == 0 ? CONTROL_CLIENTS_MAX : s->nclients * 2;
	if (n > s->max)
		n = s->max;
	if ((p = reallocarray(s->clients, (size_t)n, sizeof(*p))) == NULL)
		return -1;
	for (i = s->nclients; i < n; i++)
		p[i] = NULL;
	s->clients = p;
	i = s->nclients;
	s->nclients = n;
	return i;
}

/* A client for FD in slot I, or NULL. */
static struct control_client *
client_new(struct control *s, int i, int fd, algo_time now)
{
	struct control_client *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->fd = fd;
	c->passfd = -1;
	c->lslot = -1;
	c->owner = s;
	idle_at(c, now + IDLE);
	c->ev = EPOLLIN;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &(struct epoll_event){
	    .events = c->ev, .data.ptr = c }) == -1) {
		free(c);
		return NULL;
	}
	s->clients[i] = c;
	s->used++;
	return c;
}

void
control_accept(struct control *s, struct node *nd)
{
	struct control_client *c;
	algo_time now = mono_now();
	int fd, i, n;

	reap(s);
	for (n = 0; n < ACCEPT_MAX && (fd = accept4(s->fd, NULL, NULL,
	    SOCK_NONBLOCK | SOCK_CLOEXEC)) != -1; n++) {
		if ((i = slot_free(s)) != -1 &&
		    (c = client_new(s, i, fd, now)) != NULL) {
			peer_creds(s, c);
			/* Its request is most often there already. */
			if (slot_allowed(s, c)) {
				control_io(s, c, POLLIN, nd);
				continue;
			}
			/* At the door instead: epoll no longer reports it
			 * to the client freed. */
			(void)epoll_ctl(s->epfd, EPOLL_CTL_DEL, fd, NULL);
			s->clients[i] = NULL;
			s->used--;
			untouch(c);
			free(c);
		}
		door_take(s, fd, now, nd);
	}
}

void
control_want(struct control *s)
{
	struct control_client *c;
	uint32_t want;
	algo_time now = mono_now();

	while ((c = TAILQ_FIRST(&s->touched)) != NULL) {
		untouch(c);
		if (c->fd == -1)
			continue;
		idle_turn(c, now);
		want = (control_reads(c) ? EPOLLIN : 0) |
		    (c->outlen > 0 ? EPOLLOUT : 0);
		if (want == c->ev)
			continue;
		/* Hung up and errors are told whatever is asked. */
		if (epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &(struct
		    epoll_event){ .events = want, .data.ptr = c }) == -1)
			err(1, "epoll_ctl");
		c->ev = want;
	}
}

void
control_ready(struct control *s, struct node *nd)
{
	struct epoll_event ev[64];
	struct control_client *c;
	int i, n;

	_Static_assert(EPOLLIN == POLLIN && EPOLLOUT == POLLOUT &&
	    EPOLLHUP == POLLHUP && EPOLLERR == POLLERR, "poll's bits");
	if ((n = epoll_wait(s->epfd, ev, (int)nitems(ev), 0)) == -1)
		return;
	/* A client's end may end another's registration: one dropped
	 * meanwhile is skipped (freed only at the next turn, reap()). */
	for (i = 0; i < n; i++)
		if ((c = ev[i].data.ptr)->fd != -1)
			control_io(s, c, (short)(ev[i].events & (EPOLLIN |
			    EPOLLOUT | EPOLLHUP | EPOLLERR)), nd);
}

void
control_close(struct control *s)
{
	int i;

	for (i = 0; i < s->nclients; i++)
		if (s->clients[i] != NULL && s->clients[i]->fd != -1)
			drop_client(s->clients[i]);
	reap(s);
	if (s->epfd != -1)
		close(s->epfd);
	s->epfd = -1;
	free(s->clients);
	s->clients = NULL;
	s->nclients = 0;
	out_free(&s->doorman);
	for (i = 0; i < CONTROL_DOOR_MAX; i++)
		if (s->door[i].fd != -1)
			door_close(s, i, 0);
	if (s->fd != -1) {
		close(s->fd);
		unlink(s->path);
	}
	s->fd = -1;
}
