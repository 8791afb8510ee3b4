/*
 * The node's metrics (lib/metrics): the hooks that count, and the two
 * ways out, both off by default: --metrics ADDR:PORT serves them over
 * HTTP (libmicrohttpd, driven from the node's poll loop: no thread, no
 * lock; loaded only then, see mhd_load), --metrics-file PATH writes them every second for the node
 * exporter's textfile collector, atomically (a temporary file renamed
 * over the old).
 */
#include <sys/socket.h>

#include <dlfcn.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "daemon.h"
#include "util/util.h"

#define FILE_EVERY	(1000 * ALGO_MS)	/* --metrics-file */
#define HTTP_TIMEOUT_S	5
/* A whole request, from the connection or the last answer on it, within
 * this: the idle timeout alone lets a client that sends a byte now and
 * then (slowloris) keep its connection for ever. */
#define HTTP_DEADLINE	(3000 * ALGO_MS)
#define CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"
#define MX_NAMES_MAX	(8 * 1024)	/* named leaderships' series */
#define MX_TEXT_MAX	(METRICS_TEXT_MAX + MX_NAMES_MAX)

/*
 * libmicrohttpd, loaded when --metrics asks for HTTP and not linked:
 * it brings gnutls and what gnutls needs (p11-kit, nettle, gmp, idn2,
 * unistring, tasn1), some 2.5 MB resident in every node, a third of
 * one's memory, that most nodes would carry for nothing.
 */
#define MHD_SONAME	"libmicrohttpd.so.12"
static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_run) *run;
	__typeof__(MHD_get_timeout) *get_timeout;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_get_connection_info) *get_connection_info;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
} mhd;

static void
mhd_load(const char *arg)
{
	void *h;

	if ((h = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL)) == NULL)
		errx(1, "--metrics %s: %s", arg, dlerror());
#define MHD_SYM(f) \
	if ((*(void **)&mhd.f = dlsym(h, "MHD_" #f)) == NULL) \
		errx(1, "--metrics %s: %s: no MHD_%s", arg, MHD_SONAME, #f)
	MHD_SYM(start_daemon);
	MHD_SYM(stop_daemon);
	MHD_SYM(run);
	MHD_SYM(get_timeout);
	MHD_SYM(get_daemon_info);
	MHD_SYM(get_connection_info);
	MHD_SYM(create_response_from_buffer);
	MHD_SYM(add_response_header);
	MHD_SYM(queue_response);
	MHD_SYM(destroy_response);
#undef MHD_SYM
}

void
mx_step(struct node *nd, algo_time now)
{
	struct algo_status st;

	node_query(nd, now, &st);
	metrics_status(&nd->metrics, &st, now);
}

/* The guarded commands' counters and the veto, as lib/host/lead keeps
 * them. */
void
mx_lead(struct node *nd)
{
	const struct lead_counts *n = &nd->lead.n;

	nd->metrics.tasks_started = n->started;
	nd->metrics.tasks_ended = n->ended;
	nd->metrics.tasks_told_stop = n->told_stop;
	nd->metrics.tasks_killed = n->killed;
	nd->metrics.peers_mismatch = n->mismatch;
	nd->metrics.mismatch_veto = n->vetoed;
}

static void
peers_now(struct node *nd)
{
	unsigned n, up;

	hnet_counts(&nd->net, &n, &up);
	nd->metrics.peers = n;
	nd->metrics.peers_up = up;
}

static void
counter(struct sbuf *o, const char *name, const char *help, uint64_t v)
{
	sbuf_put(o, "# HELP elect_%s %s\n# TYPE elect_%s %s\nelect_%s %llu\n",
	    name, help, name, strstr(name, "_total") != NULL ? "counter" :
	    "gauge", name, (unsigned long long)v);
}

/*
 * Named leaderships: the registry's and the core's counts, and for each
 * name held or registered here whether this node holds it and its token
 * (label name), as many as fit; elect_names_unlisted counts the rest.
 */
static void
names_render(const struct node *nd, algo_time now, struct sbuf *o)
{
	const struct hnames_counts *r = &nd->names.h.reg.n;
	const struct hnl_counts *c = &nd->names.h.cnt;
	const struct hname *h = NULL;
	struct hnl_status q;
	size_t n, start = o->n, unlisted = 0;

	counter(o, "names", "Named leaderships this node knows.", r->known);
	counter(o, "names_held", "Named leaderships this node holds.",
	    r->held);
	counter(o, "names_waiting", "Named leaderships wanted here, held "
	    "elsewhere or by none.", r->waiting);
	counter(o, "names_created_total", "Names created here.", r->created);
	counter(o, "names_forgotten_total", "Names forgotten, idle.",
	    r->forgotten);
	counter(o, "names_refused_total", "Names refused (malformed, or "
	    "beyond --names-max).", r->refused);
	counter(o, "names_rounds_total", "Rounds sent for every name at "
	    "once.", c->rounds);
	counter(o, "names_oks_total", "Answers to this node's rounds.",
	    c->oks);
	counter(o, "names_grants_total", "Names granted by this node.",
	    c->grants);
	counter(o, "names_denies_total", "Names denied by this node.",
	    c->denies);
	counter(o, "names_frees_total", "Names freed at this node.", c->frees);
	counter(o, "names_leads_total", "Named leaderships this node came "
	    "to hold.", c->leads);
	counter(o, "names_lost_total", "Named leaderships this node lost "
	    "before releasing them.", c->lost);
	sbuf_put(o, "# HELP elect_name_leader 1 while this node holds the "
	    "named leadership.\n# TYPE elect_name_leader gauge\n"
	    "# HELP elect_name_token Its fencing token while held here.\n"
	    "# TYPE elect_name_token gauge\n");
	while ((h = hnames_next(&nd->names.h.reg, h)) != NULL) {
		hnl_query(&nd->names.h, h->s, h->len, now, &q);
		if (!q.leader && q.regs == 0)
			continue;
		n = o->n;
		sbuf_put(o, "elect_name_leader{name=\"%s\"} %d\n"
		    "elect_name_token{name=\"%s\"} %llu\n", h->s, q.leader,
		    h->s, (unsigned long long)(q.leader ? q.token : 0));
		/* Room kept for the last counter. */
		if (o->cut || o->n - start > MX_NAMES_MAX - 256) {
			/* Back to the last whole name. */
			o->n = n;
			o->cut = 0;
			o->p[n] = '\0';
			unlisted++;
		}
	}
	counter(o, "names_unlisted", "Names held or registered here left "
	    "out of elect_name_leader for room.", unlisted);
}

static int
render(struct node *nd, char *buf, size_t len)
{
	algo_time now = mono_now();
	struct sbuf o;
	int n;

	peers_now(nd);
	nd->metrics.trace_lost = nd->tw != NULL ? tw_lost(nd->tw) : 0;
	if ((n = metrics_render(&nd->metrics, now, buf, len)) < 0 ||
	    !nd->names.on)
		return n;
	o = (struct sbuf){ buf, len, (size_t)n, 0 };
	names_render(nd, now, &o);
	return o.cut ? -1 : (int)o.n;
}

static void
write_file(struct node *nd)
{
	const char *path = nd->opts->metrics_file;
	char buf[MX_TEXT_MAX], tmp[PATH_MAX];
	int fd, n, ok = 0;

	if ((n = render(nd, buf, sizeof(buf))) < 0)
		return;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return;
	/* The collector reads *.prom only: the .tmp is never half read. */
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0644)) != -1) {
		ok = write(fd, buf, (size_t)n) == n;
		ok = close(fd) == 0 && ok;
		ok = ok && rename(tmp, path) == 0;
	}
	if (!ok) {
		/* Once, not every second. */
		if (!nd->mx_file_failed)
			log_warnx("--metrics-file %s: %s", path,
			    strerror(errno));
		nd->mx_file_failed = 1;
		unlink(tmp);
		return;
	}
	nd->mx_file_failed = 0;
}

static struct mx_conn *
conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = mhd.get_connection_info(conn,
	    MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci == NULL ? NULL : ci->socket_context;
}

/* MHD closes it once it reads the end: its descriptor stays MHD's. */
static void
cut(struct mx_conn *c)
{
	shutdown(c->fd, SHUT_RDWR);
	c->cut = 1;
}

/*
 * A connection started or closed.  Past HTTP_CONNS, the newcomer closes
 * the connection whose start or last answer is oldest: a scrape always
 * gets in, and, asking at once, is answered before many newer ones come.
 */
static void
notified(void *arg, struct MHD_Connection *conn, void **ctx,
    enum MHD_ConnectionNotificationCode toe)
{
	struct node *nd = arg;
	struct mx_conn *c, *oldest = NULL;
	const union MHD_ConnectionInfo *ci;
	size_t i, live = 0;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if ((c = *ctx) != NULL)
			c->fd = -1;
		return;
	}
	for (i = 0, c = NULL; i < MX_CONNS_MAX; i++) {
		struct mx_conn *k = &nd->mx_conns[i];

		if (k->fd == -1) {
			c = c != NULL ? c : k;
			continue;
		}
		if (k->cut)
			continue;
		live++;
		if (oldest == NULL || k->since < oldest->since)
			oldest = k;
	}
	*ctx = NULL;
	if ((ci = mhd.get_connection_info(conn,
	    MHD_CONNECTION_INFO_CONNECTION_FD)) == NULL)
		return;
	/* MHD's limit is MX_CONNS_MAX, so an entry is free; were none,
	 * the newcomer would not be kept. */
	if (c == NULL) {
		shutdown(ci->connect_fd, SHUT_RDWR);
		return;
	}
	if (live >= HTTP_CONNS)
		cut(oldest);
	c->fd = ci->connect_fd;
	c->since = mono_now();
	c->cut = 0;
	*ctx = c;
}

static enum MHD_Result
answer(void *arg, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_len, void **state)
{
	static const char notfound[] = "metrics are at /metrics\n";
	struct node *nd = arg;
	struct MHD_Response *r;
	struct mx_conn *c;
	char buf[MX_TEXT_MAX];
	enum MHD_Result rc;
	int n, code = MHD_HTTP_OK;

	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return MHD_NO;
	if ((c = conn_of(conn)) != NULL)
		c->since = mono_now();
	if (strcmp(url, "/metrics") != 0) {
		code = MHD_HTTP_NOT_FOUND;
		r = mhd.create_response_from_buffer(sizeof(notfound) - 1,
		    (void *)notfound, MHD_RESPMEM_PERSISTENT);
	} else {
		if ((n = render(nd, buf, sizeof(buf))) < 0)
			return MHD_NO;
		r = mhd.create_response_from_buffer((size_t)n, buf,
		    MHD_RESPMEM_MUST_COPY);
	}
	if (r == NULL)
		return MHD_NO;
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    code == MHD_HTTP_OK ? CONTENT_TYPE : "text/plain");
	rc = mhd.queue_response(conn, (unsigned)code, r);
	mhd.destroy_response(r);
	return rc;
}

void
mx_open(struct node *nd)
{
	const struct node_opts *o = nd->opts;
	const union MHD_DaemonInfo *info;
	size_t i;

	for (i = 0; i < MX_CONNS_MAX; i++)
		nd->mx_conns[i].fd = -1;
	metrics_init(&nd->metrics, o->id, algo_name(o->algo));
	nd->control.metrics = &nd->metrics;
	nd->mx_fd = -1;
	if (o->metrics_file != NULL)
		write_file(nd);
	if (!o->metrics_http)
		return;
	mhd_load(o->metrics_arg);
	nd->mhd = mhd.start_daemon(MHD_USE_EPOLL |
	    MHD_USE_SUPPRESS_DATE_NO_CLOCK, 0, NULL, NULL, answer, nd,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&o->metrics_addr,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)MX_CONNS_MAX,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_TIMEOUT_S,
	    MHD_OPTION_NOTIFY_CONNECTION, notified, nd,
	    MHD_OPTION_END);
	if (nd->mhd == NULL)
		errx(EXIT_USAGE, "--metrics %s: cannot listen there (in use?)",
		    o->metrics_arg);
	if ((info = mhd.get_daemon_info(nd->mhd,
	    MHD_DAEMON_INFO_EPOLL_FD)) == NULL)
		errx(1, "--metrics: no epoll descriptor");
	nd->mx_fd = info->epoll_fd;
}

algo_time
mx_tick(struct node *nd, algo_time now)
{
	MHD_UNSIGNED_LONG_LONG ms;
	algo_time next = -1, left;
	size_t i;

	if (nd->opts->metrics_file != NULL) {
		if (now >= nd->mx_file_next) {
			write_file(nd);
			nd->mx_file_next = now + FILE_EVERY;
		}
		next = nd->mx_file_next - now;
	}
	for (i = 0; nd->mhd != NULL && i < MX_CONNS_MAX; i++) {
		struct mx_conn *c = &nd->mx_conns[i];

		if (c->fd == -1 || c->cut)
			continue;
		if ((left = c->since + HTTP_DEADLINE - now) <= 0)
			cut(c);
		else if (next < 0 || left < next)
			next = left;
	}
	if (nd->mhd != NULL && mhd.get_timeout(nd->mhd, &ms) == MHD_YES &&
	    (next < 0 || (algo_time)ms * ALGO_MS < next))
		next = (algo_time)ms * ALGO_MS;
	return next;
}

void
mx_io(struct node *nd)
{
	if (nd->mhd != NULL)
		mhd.run(nd->mhd);
}

void
mx_close(struct node *nd)
{
	if (nd->opts->metrics_file != NULL)
		write_file(nd);
	if (nd->mhd != NULL)
		mhd.stop_daemon(nd->mhd);
	nd->mhd = NULL;
}
