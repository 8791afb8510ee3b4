/* The cluster file: a strict, pure parser and a loader that resolves. */
#include <sys/stat.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "net/cluster.h"
#include "net/resolve.h"
#include "util/util.h"

#define BLANKS	" \t"

struct parser {
	const char	*file;
	unsigned	 line;
	char		*err;
	size_t		 errlen;
	struct cluster	*c;
	size_t		 cap;	/* of c->nodes */
};

static int
fail(struct parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(p->err, p->errlen, "%s:%u: ", p->file, p->line);
	if (n < 0 || (size_t)n >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* A decimal number in [min, max]: digits only, no sign, no blanks. */
static int
parse_num(const char *s, unsigned long min, unsigned long max,
    unsigned long *v)
{
	unsigned long n = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		n = n * 10 + (unsigned long)(*s - '0');
		if (n > max)
			return -1;
	}
	if (n < min)
		return -1;
	*v = n;
	return 0;
}

static int
parse_port(struct parser *p, const char *s, const char *what, uint16_t *port)
{
	unsigned long v;

	if (parse_num(s, 1, 65535, &v) == -1)
		return fail(p, "%s \"%s\" is not a port (1 to 65535)", what, s);
	*port = (uint16_t)v;
	return 0;
}

/* Host names: labels of letters, digits, '-' and '_', split by dots. */
static int
valid_name(const char *h)
{
	size_t label = 0;

	for (; *h != '\0'; h++) {
		if (*h == '.') {
			if (label == 0)
				return 0;
			label = 0;
			continue;
		}
		if (!(*h >= 'a' && *h <= 'z') && !(*h >= 'A' && *h <= 'Z') &&
		    !(*h >= '0' && *h <= '9') && *h != '-' && *h != '_')
			return 0;
		if (*h == '-' && (label == 0 || h[1] == '.' || h[1] == '\0'))
			return 0;
		if (++label > 63)
			return 0;
	}
	return 1;
}

/* Numeric IPv6, perhaps with a zone: hex digits, ':', '.', then "%zone". */
static int
valid_ipv6(const char *h)
{
	const char *zone;

	if (strchr(h, ':') == NULL)
		return 0;
	if ((zone = strchr(h, '%')) != NULL && !valid_name(zone + 1))
		return 0;
	for (; *h != '\0' && *h != '%'; h++)
		if (strchr("0123456789abcdefABCDEF:.", *h) == NULL)
			return 0;
	return zone == NULL || zone[1] != '\0';
}

/* HOST:PORT or [V6]:PORT into the node. */
static int
parse_endpoint(struct parser *p, char *s, struct cluster_node *n)
{
	char *host, *port;

	if (*s == '[') {
		host = s + 1;
		if ((port = strchr(host, ']')) == NULL || port[1] != ':')
			return fail(p, "\"%s\": expected [IPV6]:PORT", s);
		*port = '\0';
		port += 2;
		if (!valid_ipv6(host))
			return fail(p, "\"%s\" is not a numeric IPv6 address",
			    host);
	} else {
		host = s;
		if ((port = strrchr(s, ':')) == NULL)
			return fail(p, "\"%s\": expected HOST:PORT", s);
		*port++ = '\0';
		if (strchr(host, ':') != NULL)
			return fail(p, "\"%s\": an IPv6 address goes in "
			    "brackets, as [%s]:%s", host, host, port);
		if (*host == '\0' || !valid_name(host))
			return fail(p, "\"%s\" is not a host name or address",
			    host);
	}
	if (strlen(host) > CLUSTER_HOST_MAX)
		return fail(p, "host name longer than %d bytes",
		    CLUSTER_HOST_MAX);
	strlcpy(n->host, host, sizeof(n->host));
	return parse_port(p, port, "port", &n->port);
}

/* The keywords after HOST:PORT. */
static int
parse_options(struct parser *p, char *s, struct cluster_node *n)
{
	char *tok, *last;
	int have_fd = 0;

	for (tok = strtok_r(s, BLANKS, &last); tok != NULL;
	    tok = strtok_r(NULL, BLANKS, &last)) {
		if (strncmp(tok, "fd=", 3) != 0)
			return fail(p, "unknown keyword \"%s\"", tok);
		if (have_fd)
			return fail(p, "fd= given twice");
		if (parse_port(p, tok + 3, "fd port", &n->fd_port) == -1)
			return -1;
		have_fd = 1;
	}
	if (!have_fd) {
		if (n->port == 65535)
			return fail(p, "port 65535 leaves no port for the "
			    "failure detector; give fd=PORT");
		n->fd_port = n->port + 1;
	}
	if (n->fd_port == n->port)
		return fail(p, "fd port %u is the node's own port", n->port);
	return 0;
}

static int
same_endpoint(const struct cluster_node *a, uint16_t ap,
    const struct cluster_node *b, uint16_t bp)
{
	return ap == bp && strcasecmp(a->host, b->host) == 0;
}

/* A new node must not reuse an id or an endpoint of an earlier one. */
static int
check_unique(struct parser *p, const struct cluster_node *n)
{
	const struct cluster_node *o;
	char ep[CLUSTER_HOST_MAX + 16];
	size_t i;

	for (i = 0; i < p->c->n; i++) {
		o = &p->c->nodes[i];
		if (o->id == n->id)
			return fail(p, "node %u already defined on line %u",
			    n->id, o->line);
		if (same_endpoint(n, n->port, o, o->port) ||
		    same_endpoint(n, n->port, o, o->fd_port)) {
			cluster_endpoint(n, n->port, ep, sizeof(ep));
			return fail(p, "%s already used by node %u (line %u)",
			    ep, o->id, o->line);
		}
		if (same_endpoint(n, n->fd_port, o, o->port) ||
		    same_endpoint(n, n->fd_port, o, o->fd_port)) {
			cluster_endpoint(n, n->fd_port, ep, sizeof(ep));
			return fail(p, "fd port %s already used by node %u "
			    "(line %u)", ep, o->id, o->line);
		}
	}
	return 0;
}

static int
grow(struct parser *p)
{
	size_t cap = p->cap == 0 ? 8 : p->cap * 2;
	struct cluster_node *nodes;

	if ((nodes = reallocarray(p->c->nodes, cap, sizeof(*nodes))) == NULL)
		return fail(p, "out of memory");
	p->c->nodes = nodes;
	p->cap = cap;
	return 0;
}

/* "epoch N": once, alone on its line. */
static int
parse_epoch(struct parser *p, char *s)
{
	unsigned long v;
	char *num;

	if (p->c->epoch_line != 0)
		return fail(p, "epoch already given on line %u",
		    p->c->epoch_line);
	if (s != NULL)
		s += strspn(s, BLANKS);
	if (s == NULL || *(num = strsep(&s, BLANKS)) == '\0')
		return fail(p, "epoch: missing N");
	if (parse_num(num, 0, CLUSTER_EPOCH_MAX, &v) == -1)
		return fail(p, "epoch \"%s\" is not 0 to %u", num,
		    CLUSTER_EPOCH_MAX);
	if (s != NULL && s[strspn(s, BLANKS)] != '\0')
		return fail(p, "epoch %lu: unexpected \"%s\"", v,
		    s + strspn(s, BLANKS));
	p->c->epoch = (uint32_t)v;
	p->c->epoch_line = p->line;
	return 0;
}

/* One line, NUL-terminated and without its newline; S may be changed. */
static int
parse_line(struct parser *p, char *s)
{
	struct cluster_node n;
	char *kw, *id, *ep, *rest, *hash;
	unsigned long v;

	if ((hash = strchr(s, '#')) != NULL)
		*hash = '\0';
	s += strspn(s, BLANKS);
	if (*s == '\0')
		return 0;
	memset(&n, 0, sizeof(n));
	n.line = p->line;
	kw = strsep(&s, BLANKS);
	/* A setting shared by every node (lib/conf, elect.conf(5)). */
	if (strcmp(kw, "set") == 0)
		return 0;
	if (strcmp(kw, "epoch") == 0)
		return parse_epoch(p, s);
	if (strcmp(kw, "node") != 0)
		return fail(p, "unknown keyword \"%s\" (expected \"node ID "
		    "HOST:PORT [fd=PORT]\")", kw);
	if (s != NULL)
		s += strspn(s, BLANKS);
	if (s == NULL || *(id = strsep(&s, BLANKS)) == '\0')
		return fail(p, "node: missing ID");
	if (parse_num(id, 1, CLUSTER_ID_MAX, &v) == -1)
		return fail(p, "node id \"%s\" is not 1 to %d", id,
		    CLUSTER_ID_MAX);
	n.id = (unsigned)v;
	if (s != NULL)
		s += strspn(s, BLANKS);
	if (s == NULL || *(ep = strsep(&s, BLANKS)) == '\0')
		return fail(p, "node %u: missing HOST:PORT", n.id);
	rest = s == NULL ? ep + strlen(ep) : s;
	if (parse_endpoint(p, ep, &n) == -1 ||
	    parse_options(p, rest, &n) == -1 || check_unique(p, &n) == -1)
		return -1;
	if (p->c->n == CLUSTER_NODES_MAX)
		return fail(p, "more than %d nodes", CLUSTER_NODES_MAX);
	if (p->c->n == p->cap && grow(p) == -1)
		return -1;
	p->c->nodes[p->c->n++] = n;
	return 0;
}

static int
cmp_id(const void *a, const void *b)
{
	const struct cluster_node *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

int
cluster_parse(const char *text, size_t len, const char *filename,
    struct cluster *c, char *err, size_t errlen)
{
	struct parser p = { filename, 0, err, errlen, c, 0 };
	char line[CLUSTER_LINE_MAX + 1];
	size_t start, end;

	memset(c, 0, sizeof(*c));
	if ((c->file = strdup(filename)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", filename);
		goto fail;
	}
	for (start = 0; start < len; start = end + 1) {
		p.line++;
		for (end = start; end < len && text[end] != '\n'; end++)
			;
		if (end - start > CLUSTER_LINE_MAX) {
			fail(&p, "line longer than %d bytes", CLUSTER_LINE_MAX);
			goto fail;
		}
		memcpy(line, text + start, end - start);
		line[end - start] = '\0';
		if (memchr(text + start, '\0', end - start) != NULL) {
			fail(&p, "NUL byte");
			goto fail;
		}
		if (strchr(line, '\r') != NULL) {
			fail(&p, "carriage return (use Unix line endings)");
			goto fail;
		}
		if (parse_line(&p, line) == -1)
			goto fail;
	}
	if (c->n == 0) {
		snprintf(err, errlen, "%s: no nodes", filename);
		goto fail;
	}
	qsort(c->nodes, c->n, sizeof(*c->nodes), cmp_id);
	return 0;
fail:
	cluster_free(c);
	return -1;
}

const struct cluster_node *
cluster_find(const struct cluster *c, unsigned id)
{
	struct cluster_node key = { .id = id };

	if (c->n == 0)
		return NULL;
	return bsearch(&key, c->nodes, c->n, sizeof(*c->nodes), cmp_id);
}

void
cluster_endpoint(const struct cluster_node *n, uint16_t port, char *buf,
    size_t len)
{
	if (strchr(n->host, ':') != NULL)
		snprintf(buf, len, "[%s]:%u", n->host, port);
	else
		snprintf(buf, len, "%s:%u", n->host, port);
}

void
cluster_free(struct cluster *c)
{
	free(c->file);
	free(c->nodes);
	memset(c, 0, sizeof(*c));
}

static void
set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static int
resolve(struct cluster_node *n, const char *file, char *err, size_t errlen)
{
	struct addrinfo hints, *res;
	int e;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = strchr(n->host, ':') != NULL ? AF_INET6 : AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	if (hints.ai_family == AF_INET6)
		hints.ai_flags = AI_NUMERICHOST;
	if ((e = net_getaddrinfo(n->host, NULL, &hints, &res)) != 0) {
		snprintf(err, errlen, "%s:%u: %s: %s", file, n->line, n->host,
		    gai_strerror(e));
		return -1;
	}
	memcpy(&n->addr, res->ai_addr, res->ai_addrlen);
	memcpy(&n->fd_addr, res->ai_addr, res->ai_addrlen);
	n->addrlen = res->ai_addrlen;
	net_freeaddrinfo(res);
	set_port(&n->addr, n->port);
	set_port(&n->fd_addr, n->fd_port);
	return 0;
}

/* Same family, address and port (the port is in the same place). */
int
cluster_same_addr(const struct sockaddr_storage *a,
    const struct sockaddr_storage *b)
{
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;

	if (!cluster_same_host(a, b))
		return 0;
	return a->ss_family == AF_INET ? a4->sin_port == b4->sin_port :
	    a6->sin6_port == b6->sin6_port;
}

int
cluster_same_host(const struct sockaddr_storage *a,
    const struct sockaddr_storage *b)
{
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return memcmp(&a6->sin6_addr, &b6->sin6_addr,
	    sizeof(a6->sin6_addr)) == 0;
}

/* Names that differ as written may still resolve to one address. */
static int
check_resolved(const struct cluster *c, char *err, size_t errlen)
{
	const struct cluster_node *a, *b;
	size_t i, j;

	for (i = 0; i < c->n; i++) {
		a = &c->nodes[i];
		for (j = 0; j < c->n; j++) {
			b = &c->nodes[j];
			if (i == j || !(cluster_same_addr(&a->addr, &b->addr) ||
			    cluster_same_addr(&a->addr, &b->fd_addr) ||
			    cluster_same_addr(&a->fd_addr, &b->addr) ||
			    cluster_same_addr(&a->fd_addr, &b->fd_addr)))
				continue;
			snprintf(err, errlen, "%s:%u: node %u shares an address "
			    "and port with node %u (line %u)", c->file,
			    a->line > b->line ? a->line : b->line,
			    a->line > b->line ? a->id : b->id,
			    a->line > b->line ? b->id : a->id,
			    a->line > b->line ? b->line : a->line);
			return -1;
		}
	}
	return 0;
}

int
cluster_load(const char *path, struct cluster *c, char *err, size_t errlen)
{
	char *text;
	size_t len;
	int rc;

	memset(c, 0, sizeof(*c));
	if ((text = file_read(path, CLUSTER_FILE_MAX, &len, err, errlen)) == NULL)
		return -1;
	rc = cluster_parse(text, len, path, c, err, errlen);
	free(text);
	if (rc == -1)
		return -1;
	return cluster_resolve(c, err, errlen);
}

int
cluster_resolve(struct cluster *c, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (resolve(&c->nodes[i], c->file, err, errlen) == -1)
			goto fail;
	if (check_resolved(c, err, errlen) == -1)
		goto fail;
	return 0;
fail:
	cluster_free(c);
	return -1;
}

int
cluster_copy(struct cluster *dst, const struct cluster *src)
{
	*dst = *src;
	dst->file = strdup(src->file != NULL ? src->file : "");
	dst->nodes = reallocarray(NULL, src->n > 0 ? src->n : 1,
	    sizeof(*dst->nodes));
	if (dst->file == NULL || dst->nodes == NULL) {
		free(dst->file);
		free(dst->nodes);
		memset(dst, 0, sizeof(*dst));
		return -1;
	}
	memcpy(dst->nodes, src->nodes, src->n * sizeof(*dst->nodes));
	return 0;
}

const struct cluster_node *
cluster_by_addr(const struct cluster *c, const struct sockaddr_storage *ss,
    int fd)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (cluster_same_addr(fd ? &c->nodes[i].fd_addr :
		    &c->nodes[i].addr, ss))
			return &c->nodes[i];
	return NULL;
}

int
cluster_loopback(const struct cluster *c)
{
	const struct sockaddr_in *a4;
	const struct sockaddr_in6 *a6;
	size_t i;

	for (i = 0; i < c->n; i++) {
		a4 = (const void *)&c->nodes[i].addr;
		a6 = (const void *)&c->nodes[i].addr;
		if (a4->sin_family == AF_INET ?
		    (ntohl(a4->sin_addr.s_addr) >> 24) != 127 :
		    a6->sin6_family != AF_INET6 ||
		    !IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr))
			return 0;
	}
	return 1;
}

int
cluster_union(struct cluster *u, const struct cluster *a,
    const struct cluster *b)
{
	struct cluster_node *nodes;
	size_t i, j, k;

	if (cluster_copy(u, a) == -1)
		return -1;
	if (b == NULL)
		return 0;
	if ((nodes = reallocarray(u->nodes, a->n + b->n + 1,
	    sizeof(*u->nodes))) == NULL) {
		cluster_free(u);
		return -1;
	}
	u->nodes = nodes;
	for (i = a->n, j = 0; j < b->n; j++)
		if (cluster_find(a, b->nodes[j].id) == NULL)
			u->nodes[i++] = b->nodes[j];
	u->n = i;
	/* Insertion: few, near sorted. */
	for (i = a->n; i < u->n; i++)
		for (k = i; k > 0 && u->nodes[k - 1].id > u->nodes[k].id;
		    k--) {
			struct cluster_node t = u->nodes[k];

			u->nodes[k] = u->nodes[k - 1];
			u->nodes[k - 1] = t;
		}
	return 0;
}
