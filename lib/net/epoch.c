/* Epochs as a host keeps them: the record, and where a node starts. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/epoch.h"
#include "net/session.h"
#include "store/store.h"

/* The record is a cluster file: no larger than one. */
#define RECORD_MAX	CLUSTER_FILE_MAX

int
cluster_same_members(const struct cluster *a, const struct cluster *b)
{
	const struct cluster_node *x, *y;
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {	/* both sorted by id */
		x = &a->nodes[i];
		y = &b->nodes[i];
		if (x->id != y->id || x->port != y->port ||
		    x->fd_port != y->fd_port ||
		    strcasecmp(x->host, y->host) != 0)
			return 0;
	}
	return 1;
}

int
epoch_plan(const struct cluster *file, const struct cluster *rec,
    unsigned self, enum epoch_plan *plan, char *err, size_t errlen)
{
	int in_file = cluster_find(file, self) != NULL;

	if (rec == NULL) {
		if (!in_file) {
			snprintf(err, errlen, "%s: no node %u in epoch %u",
			    file->file, self, file->epoch);
			return -1;
		}
		*plan = file->epoch == 0 ? EPOCH_RUN : EPOCH_JOIN;
		return 0;
	}
	if (cluster_find(rec, self) == NULL) {
		snprintf(err, errlen, "the state directory's epoch %u has no "
		    "node %u", rec->epoch, self);
		return -1;
	}
	/* This host agreed to a later epoch since: the file no longer
	 * says who runs, and every start must name the epoch it runs. */
	if (file->epoch < rec->epoch) {
		snprintf(err, errlen, "%s: epoch %u, older than the state "
		    "directory's epoch %u: start with the cluster file of "
		    "epoch %u, such as the state directory's record %s",
		    file->file, file->epoch, rec->epoch, rec->epoch,
		    rec->file);
		return -1;
	}
	/* Epoch 0 never changed: its record follows the file, as every
	 * cluster file did before epochs (all nodes restarted with it). */
	if (file->epoch == 0 && rec->epoch == 0) {
		*plan = EPOCH_RUN;
		return 0;
	}
	/* Epoch rec+1 ran, so rec's ended: this host never ran file's
	 * core (the record would say so), and joins it fresh. */
	if (file->epoch > rec->epoch + 1) {
		*plan = in_file ? EPOCH_JOIN : EPOCH_LEFT;
		return 0;
	}
	if (file->epoch == rec->epoch) {
		if (!cluster_same_members(file, rec)) {
			snprintf(err, errlen, "%s: epoch %u, whose members in "
			    "the state directory differ", file->file,
			    file->epoch);
			return -1;
		}
		*plan = EPOCH_RUN;
		return 0;
	}
	*plan = in_file ? EPOCH_CHANGE : EPOCH_LEFT;
	return 0;
}

const char *
epoch_plan_name(enum epoch_plan p)
{
	static const char *const names[] = {
		[EPOCH_RUN] = "run", [EPOCH_JOIN] = "join",
		[EPOCH_CHANGE] = "change", [EPOCH_LEFT] = "left",
	};

	return p <= EPOCH_LEFT ? names[p] : "?";
}

size_t
cluster_format(const struct cluster *c, char *buf, size_t len)
{
	char ep[CLUSTER_HOST_MAX + 16];
	size_t i, off;
	int n;

	n = snprintf(buf, len, "epoch %u\n", c->epoch);
	if (n < 0 || (size_t)n >= len)
		return 0;
	off = (size_t)n;
	for (i = 0; i < c->n; i++) {
		cluster_endpoint(&c->nodes[i], c->nodes[i].port, ep,
		    sizeof(ep));
		n = snprintf(buf + off, len - off, "node %u %s fd=%u\n",
		    c->nodes[i].id, ep, c->nodes[i].fd_port);
		if (n < 0 || (size_t)n >= len - off)
			return 0;
		off += (size_t)n;
	}
	return off;
}

/* The state directory's file NAME, parsed by PARSE into ARG: 0, 1 when
 * there is none, -1 with why in ERR.  LABEL names it in messages. */
static int
record_load(int dirfd, const char *name, const char *label,
    int (*parse)(const char *, size_t, const char *, void *, char *, size_t),
    void *arg, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int rc;

	if ((buf = malloc(RECORD_MAX)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", label);
		return -1;
	}
	rc = store_read(dirfd, name, buf, RECORD_MAX, &len);
	if (rc == -1)
		snprintf(err, errlen, "%s: %s", label, strerror(errno));
	else if (rc == 0 && parse(buf, len, label, arg, err, errlen) == -1)
		rc = -1;
	free(buf);
	return rc;
}

/* The state directory's file NAME replaced durably by what FORMAT
 * writes of ARG: 0, or -1 with errno. */
static int
record_save(int dirfd, const char *name, size_t (*format)(const void *,
    char *, size_t), const void *arg)
{
	char *buf;
	size_t len;
	int rc = -1;

	if ((buf = malloc(RECORD_MAX)) == NULL)
		return -1;
	if ((len = format(arg, buf, RECORD_MAX)) == 0)
		errno = EFBIG;
	else
		rc = store_write(dirfd, name, buf, len);
	free(buf);
	return rc;
}

static int
parse_cluster(const char *t, size_t len, const char *name, void *c,
    char *err, size_t errlen)
{
	return cluster_parse(t, len, name, c, err, errlen);
}

static size_t
format_cluster(const void *c, char *buf, size_t len)
{
	return cluster_format(c, buf, len);
}

int
epoch_load(int dirfd, const char *dir, struct cluster *c, char *err,
    size_t errlen)
{
	char path[PATH_MAX];

	memset(c, 0, sizeof(*c));
	if (snprintf(path, sizeof(path), "%s/%s", dir, EPOCH_RECORD) >=
	    (int)sizeof(path)) {
		snprintf(err, errlen, "%s: the state directory's name is too "
		    "long", dir);
		return -1;
	}
	return record_load(dirfd, EPOCH_RECORD, path, parse_cluster, c, err,
	    errlen);
}

int
epoch_save(int dirfd, const struct cluster *c)
{
	return record_save(dirfd, EPOCH_RECORD, format_cluster, c);
}

/* The rules of a message, shared by the parser and the writer. */
static int
msg_ok(const struct epoch_msg *m)
{
	if (m->epoch > CLUSTER_EPOCH_MAX)
		return 0;
	switch (m->type) {
	case WIRE_TYPE_WEDGE:
		return 1;
	case WIRE_TYPE_WEDGED:
		return m->members >= 1 && m->members <= CLUSTER_NODES_MAX;
	case WIRE_TYPE_CHANGE:
		return m->epoch >= 1 && m->total >= 1 &&
		    m->total <= CLUSTER_FILE_MAX && m->len >= 1 &&
		    m->len <= EPOCH_PART_MAX && m->off < m->total &&
		    m->len <= m->total - m->off;
	default:
		return 0;
	}
}

const char *
epoch_msg_parse(uint8_t type, const uint8_t *p, size_t len,
    struct epoch_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	if (len < 4 + EPOCH_DIGEST)
		return "bad-payload";
	m->epoch = wire_get32(p);
	switch (type) {
	case WIRE_TYPE_WEDGE:
		if (len != EPOCH_WEDGE_LEN)
			return "bad-payload";
		memcpy(m->digest, p + 4, EPOCH_DIGEST);
		break;
	case WIRE_TYPE_WEDGED:
		if (len != EPOCH_WEDGED_LEN)
			return "bad-payload";
		m->members = wire_get16(p + 4);
		memcpy(m->digest, p + 6, EPOCH_DIGEST);
		break;
	case WIRE_TYPE_CHANGE:
		if (len <= EPOCH_CHANGE_HDR)
			return "bad-payload";
		m->total = wire_get32(p + 4);
		m->off = wire_get32(p + 8);
		memcpy(m->digest, p + 12, EPOCH_DIGEST);
		m->part = p + EPOCH_CHANGE_HDR;
		m->len = len - EPOCH_CHANGE_HDR;
		break;
	default:
		return "bad-payload";
	}
	return msg_ok(m) ? NULL : "bad-payload";
}

size_t
epoch_msg_put(const struct epoch_msg *m, uint8_t *p, size_t cap)
{
	size_t n;

	if (!msg_ok(m))
		return 0;
	n = m->type == WIRE_TYPE_WEDGE ? EPOCH_WEDGE_LEN :
	    m->type == WIRE_TYPE_WEDGED ? EPOCH_WEDGED_LEN :
	    EPOCH_CHANGE_HDR + m->len;
	if (n > cap)
		return 0;
	wire_put32(p, m->epoch);
	switch (m->type) {
	case WIRE_TYPE_WEDGE:
		memcpy(p + 4, m->digest, EPOCH_DIGEST);
		break;
	case WIRE_TYPE_WEDGED:
		wire_put16(p + 4, m->members);
		memcpy(p + 6, m->digest, EPOCH_DIGEST);
		break;
	default:
		wire_put32(p + 4, m->total);
		wire_put32(p + 8, m->off);
		memcpy(p + 12, m->digest, EPOCH_DIGEST);
		memcpy(p + EPOCH_CHANGE_HDR, m->part, m->len);
		break;
	}
	return n;
}

/* ---- changes ---- */

void
epoch_change_free(struct epoch_change *c)
{
	cluster_free(&c->next);
	cluster_free(&c->prev);
	free(c->dead);
	memset(c, 0, sizeof(*c));
}

size_t
epoch_change_format(const struct epoch_change *c, char *buf, size_t len)
{
	size_t off, n, i;
	int w;

	if ((off = cluster_format(&c->next, buf, len)) == 0 ||
	    (n = cluster_format(&c->prev, buf + off, len - off)) == 0)
		return 0;
	off += n;
	for (i = 0; i < c->ndead; i++) {
		w = snprintf(buf + off, len - off, "%s%u", i == 0 ? "dead " :
		    ",", c->dead[i]);
		if (w < 0 || (size_t)w >= len - off)
			return 0;
		off += (size_t)w;
	}
	if (c->ndead > 0) {
		if (off + 1 >= len)
			return 0;
		buf[off++] = '\n';
		buf[off] = '\0';
	}
	return off;
}

/* Where the line starting with WORD (at the start of a line) begins in
 * the LEN bytes of TEXT from FROM, or LEN. */
static size_t
line_at(const char *text, size_t len, size_t from, const char *word)
{
	size_t i, wl = strlen(word);

	for (i = from; i < len; i++)
		if ((i == 0 || text[i - 1] == '\n') && len - i >= wl &&
		    memcmp(text + i, word, wl) == 0)
			return i;
	return len;
}

int
epoch_change_dead(const char *s, size_t len, struct epoch_change *c,
    char *err, size_t errlen)
{
	char buf[32];
	size_t i = 0, j, k;
	unsigned long v;
	char *end;

	if ((c->dead = calloc(c->prev.n, sizeof(*c->dead))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while (i < len) {
		for (j = i; j < len && s[j] != ','; j++)
			continue;
		if (j - i == 0 || j - i >= sizeof(buf))
			goto bad;
		memcpy(buf, s + i, j - i);
		buf[j - i] = '\0';
		if (buf[0] < '0' || buf[0] > '9')
			goto bad;
		errno = 0;
		v = strtoul(buf, &end, 10);
		if (errno != 0 || *end != '\0' || v < 1 || v > CLUSTER_ID_MAX ||
		    cluster_find(&c->prev, (unsigned)v) == NULL) {
			snprintf(err, errlen, "dead: %s is not a member of "
			    "epoch %u", buf, c->prev.epoch);
			return -1;
		}
		for (k = 0; k < c->ndead; k++)
			if (c->dead[k] == v) {
				snprintf(err, errlen, "dead: %lu twice", v);
				return -1;
			}
		if (c->ndead == c->prev.n)
			goto bad;
		c->dead[c->ndead++] = (unsigned)v;
		i = j + 1;
		if (j + 1 == len)	/* a trailing comma */
			goto bad;
	}
	if (c->ndead > 0)
		return 0;
bad:
	snprintf(err, errlen, "dead: not a list of ids");
	return -1;
}

int
epoch_change_parse(const char *text, size_t len, const char *name,
    struct epoch_change *c, char *err, size_t errlen)
{
	size_t p, d, e;
	char why[256];

	memset(c, 0, sizeof(*c));
	p = line_at(text, len, 1, "epoch ");
	d = line_at(text, len, p, "dead ");
	if (p == len || line_at(text, len, 0, "epoch ") != 0) {
		snprintf(err, errlen, "%s: not two epochs' members", name);
		return -1;
	}
	if (cluster_parse(text, p, name, &c->next, why, sizeof(why)) == -1 ||
	    cluster_parse(text + p, d - p, name, &c->prev, why,
	    sizeof(why)) == -1) {
		snprintf(err, errlen, "%s", why);
		goto fail;
	}
	if (d < len) {
		for (e = d; e < len && text[e] != '\n'; e++)
			continue;
		if (e + 1 < len) {
			snprintf(err, errlen, "%s: text after dead", name);
			goto fail;
		}
		if (epoch_change_dead(text + d + 5, e - d - 5, c, err, errlen) == -1)
			goto fail;
	}
	if (epoch_change_valid(c, err, errlen) == -1)
		goto fail;
	return 0;
fail:
	epoch_change_free(c);
	return -1;
}

int
epoch_change_valid(struct epoch_change *c, char *err, size_t errlen)
{
	const struct cluster_node *a, *b;
	size_t i, kept = 0, both;
	char *text;
	size_t len;

	if (c->next.epoch != c->prev.epoch + 1 || c->next.epoch == 0) {
		snprintf(err, errlen, "epoch %u: the epoch after %u is %u",
		    c->next.epoch, c->prev.epoch, c->prev.epoch + 1);
		return -1;
	}
	if (c->next.n == 0) {
		snprintf(err, errlen, "epoch %u has no members", c->next.epoch);
		return -1;
	}
	for (i = 0; i < c->next.n; i++) {
		a = &c->next.nodes[i];
		if ((b = cluster_find(&c->prev, a->id)) == NULL)
			continue;
		kept++;
		if (a->port != b->port || a->fd_port != b->fd_port ||
		    strcasecmp(a->host, b->host) != 0) {
			snprintf(err, errlen, "node %u moves (a node kept keeps "
			    "its endpoints; give a new host a new id)", a->id);
			return -1;
		}
	}
	if (kept == 0) {
		snprintf(err, errlen, "epoch %u keeps no member of epoch %u "
		    "(change them in two steps)", c->next.epoch, c->prev.epoch);
		return -1;
	}
	both = c->next.n + c->prev.n - kept;
	if (both > CLUSTER_NODES_MAX) {
		snprintf(err, errlen, "%zu nodes in the two epochs, above %d",
		    both, CLUSTER_NODES_MAX);
		return -1;
	}
	if (c->ndead >= c->prev.n) {
		snprintf(err, errlen, "every member of epoch %u dead",
		    c->prev.epoch);
		return -1;
	}
	sess_cluster_digest(&c->prev, c->dprev);
	if ((text = malloc(2 * CLUSTER_FILE_MAX + 64)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	len = cluster_format(&c->next, text, 2 * CLUSTER_FILE_MAX + 64);
	sess_digest(text, len, c->dnext);
	len = epoch_change_format(c, text, 2 * CLUSTER_FILE_MAX + 64);
	sess_digest(text, len, c->dtext);
	free(text);
	if (len == 0 || len > CLUSTER_FILE_MAX) {
		snprintf(err, errlen, "the change is above %d bytes",
		    CLUSTER_FILE_MAX);
		return -1;
	}
	return 0;
}

static int
parse_change(const char *t, size_t len, const char *name, void *c,
    char *err, size_t errlen)
{
	return epoch_change_parse(t, len, name, c, err, errlen);
}

static size_t
format_change(const void *c, char *buf, size_t len)
{
	return epoch_change_format(c, buf, len);
}

int
epoch_change_load(int dirfd, struct epoch_change *c, char *err,
    size_t errlen)
{
	memset(c, 0, sizeof(*c));
	return record_load(dirfd, EPOCH_CHANGE_FILE, EPOCH_CHANGE_FILE,
	    parse_change, c, err, errlen);
}

int
epoch_change_save(int dirfd, const struct epoch_change *c)
{
	return record_save(dirfd, EPOCH_CHANGE_FILE, format_change, c);
}

int
epoch_change_role(const struct cluster *run, const struct epoch_change *c)
{
	if (run->epoch == c->prev.epoch && cluster_same_members(run, &c->prev))
		return EPOCH_ROLE_OLD;
	if (run->epoch == c->next.epoch && cluster_same_members(run, &c->next))
		return EPOCH_ROLE_NEW;
	return -1;
}

int
epoch_change_take(const struct cluster *run, int pending, int wedged,
    int held, unsigned self, const struct epoch_change *c, char *err,
    size_t errlen)
{
	size_t i;

	if (c->prev.epoch != run->epoch) {
		snprintf(err, errlen, "epoch %u: this node runs epoch %u, "
		    "whose next is %u", c->next.epoch, run->epoch,
		    run->epoch + 1);
		return -1;
	}
	if (epoch_change_role(run, c) != EPOCH_ROLE_OLD) {
		snprintf(err, errlen, "the members of epoch %u differ from "
		    "this node's", run->epoch);
		return -1;
	}
	if (held) {
		snprintf(err, errlen, "a change to epoch %u is pending",
		    run->epoch + 1);
		return -1;
	}
	if (pending) {
		snprintf(err, errlen, "epoch %u is pending: it has not "
		    "learned that epoch %u ended", run->epoch,
		    run->epoch - 1);
		return -1;
	}
	if (wedged) {
		snprintf(err, errlen, "epoch %u has ended here (wedged)",
		    run->epoch);
		return -1;
	}
	for (i = 0; i < c->ndead; i++)
		if (c->dead[i] == self) {
			snprintf(err, errlen, "node %u, asked, is not dead",
			    self);
			return -1;
		}
	return 0;
}

/* The index of ID among C's members, or -1. */
static long
member(const struct cluster *c, unsigned id)
{
	const struct cluster_node *p = cluster_find(c, id);

	return p == NULL ? -1 : p - c->nodes;
}

void
epoch_votes_start(struct epoch_votes *v, const struct epoch_change *c,
    uint8_t *buf)
{
	size_t i;

	memset(v, 0, sizeof(*v));
	v->n = c->prev.n;
	v->need = v->n / 2 + 1;
	v->wedged = buf;
	memset(buf, 0, v->n);
	for (i = 0; i < c->ndead; i++) {
		v->wedged[member(&c->prev, c->dead[i])] = 1;
		v->nwedged++;
	}
}

int
epoch_votes_init(struct epoch_votes *v, const struct epoch_change *c)
{
	uint8_t *buf;

	if ((buf = malloc(c->prev.n)) == NULL)
		return -1;
	epoch_votes_start(v, c, buf);
	return 0;
}

static int
vote(struct epoch_votes *v, long i)
{
	if (v->wedged[i])
		return 0;
	v->wedged[i] = 1;
	return ++v->nwedged == v->need;
}

int
epoch_votes_add(struct epoch_votes *v, const struct epoch_change *c,
    unsigned from, const struct epoch_msg *m, const char **why)
{
	long i;

	*why = NULL;
	if (m->type != WIRE_TYPE_WEDGED || m->epoch != c->prev.epoch)
		*why = "other-epoch";
	else if (m->members != c->prev.n ||
	    memcmp(m->digest, c->dprev, EPOCH_DIGEST) != 0)
		*why = "other-members";
	else if ((i = member(&c->prev, from)) == -1)
		*why = "not-a-member";
	else
		return vote(v, i);
	return -1;
}

int
epoch_votes_self(struct epoch_votes *v, const struct epoch_change *c,
    unsigned self)
{
	long i;

	return (i = member(&c->prev, self)) == -1 ? 0 : vote(v, i);
}

int
epoch_votes_done(const struct epoch_votes *v)
{
	return v->wedged != NULL && v->nwedged >= v->need;
}

void
epoch_votes_free(struct epoch_votes *v)
{
	free(v->wedged);
	memset(v, 0, sizeof(*v));
}

enum epoch_wedge_step
epoch_wedge_when(int tasks, int told, int64_t now, int64_t by)
{
	if (tasks == 0)
		return EPOCH_WEDGE_NOW;
	if (!told)
		return EPOCH_WEDGE_STOP;
	return now < by ? EPOCH_WEDGE_WAIT : EPOCH_WEDGE_LATE;
}

int
epoch_wedge_for(const struct epoch_change *c, const struct epoch_msg *m,
    const char **why)
{
	*why = NULL;
	if (m->type != WIRE_TYPE_WEDGE || m->epoch != c->prev.epoch)
		*why = "other-epoch";
	else if (memcmp(m->digest, c->dnext, EPOCH_DIGEST) != 0)
		*why = "other-change";
	return *why == NULL;
}
