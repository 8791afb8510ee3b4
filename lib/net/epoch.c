/* Epochs as a host keeps them: the record, and where a node starts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/epoch.h"
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
	if (file->epoch < rec->epoch) {
		*plan = EPOCH_RUN;
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

int
epoch_load(int dirfd, struct cluster *c, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int rc;

	memset(c, 0, sizeof(*c));
	if ((buf = malloc(RECORD_MAX)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", EPOCH_RECORD);
		return -1;
	}
	rc = store_read(dirfd, EPOCH_RECORD, buf, RECORD_MAX, &len);
	if (rc == -1)
		snprintf(err, errlen, "%s: %s", EPOCH_RECORD, strerror(errno));
	else if (rc == 0 && cluster_parse(buf, len, EPOCH_RECORD, c, err,
	    errlen) == -1)
		rc = -1;
	free(buf);
	return rc;
}

int
epoch_save(int dirfd, const struct cluster *c)
{
	char *buf;
	size_t len;
	int rc = -1;

	if ((buf = malloc(RECORD_MAX)) == NULL)
		return -1;
	if ((len = cluster_format(c, buf, RECORD_MAX)) == 0)
		errno = EFBIG;
	else
		rc = store_write(dirfd, EPOCH_RECORD, buf, len);
	free(buf);
	return rc;
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
