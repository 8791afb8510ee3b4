/*
 * The frame around every election core: boot and input checks, the output
 * list, and the small helpers the cores share.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"

#define HOUR	(INT64_C(3600) * 1000 * ALGO_MS)

void
algo_timing_default(struct algo_timing *t)
{
	memset(t, 0, sizeof(*t));
	t->reply = 50 * ALGO_MS;
	t->check = 50 * ALGO_MS;
	t->timeout = 120 * ALGO_MS;
	t->tau = 100 * ALGO_MS;
	t->t_tx = 2 * ALGO_MS;
	t->alpha = 1 * ALGO_MS;
	t->accept_wait = 100 * ALGO_MS;
	t->announce = 1000 * ALGO_MS;
	t->lease = 80 * ALGO_MS;
	t->renew = 20 * ALGO_MS;
	t->rtt = 5 * ALGO_MS;
	t->drift = 1000000;		/* 1e-3: share/elect/lease.md */
	t->skew = 0;
}

int
algo_timing_set(struct algo_timing *t, const char *nameval)
{
	static const struct {
		const char	*name;
		size_t		 off;
	} f[] = {
		{ "reply", offsetof(struct algo_timing, reply) },
		{ "check", offsetof(struct algo_timing, check) },
		{ "timeout", offsetof(struct algo_timing, timeout) },
		{ "tau", offsetof(struct algo_timing, tau) },
		{ "t_tx", offsetof(struct algo_timing, t_tx) },
		{ "alpha", offsetof(struct algo_timing, alpha) },
		{ "t_el", offsetof(struct algo_timing, t_el) },
		{ "t_ok", offsetof(struct algo_timing, t_ok) },
		{ "merge_wait", offsetof(struct algo_timing, merge_wait) },
		{ "accept_wait", offsetof(struct algo_timing, accept_wait) },
		{ "announce", offsetof(struct algo_timing, announce) },
		{ "lease", offsetof(struct algo_timing, lease) },
		{ "renew", offsetof(struct algo_timing, renew) },
		{ "rtt", offsetof(struct algo_timing, rtt) },
		{ "skew", offsetof(struct algo_timing, skew) },
	};
	const char *eq;
	trace_time v;
	size_t k, n;

	if ((eq = strchr(nameval, '=')) == NULL ||
	    trace_parse_time(eq + 1, strlen(eq + 1), &v) == -1)
		return -1;
	n = (size_t)(eq - nameval);
	/* drift is a ratio, seconds per second: nanoseconds per second */
	if (n == 5 && strncmp(nameval, "drift", 5) == 0) {
		t->drift = v;
		return 0;
	}
	for (k = 0; k < sizeof(f) / sizeof(f[0]); k++)
		if (strlen(f[k].name) == n && strncmp(nameval, f[k].name,
		    n) == 0) {
			*(algo_time *)((char *)t + f[k].off) = v / 1000;
			return 0;
		}
	return -1;
}

int
algo_timing_reads(const struct algo_ops *ops, const char *name, size_t len)
{
	const char *const *p;

	for (p = ops->timings; p != NULL && *p != NULL; p++)
		if (strlen(*p) == len && strncmp(*p, name, len) == 0)
			return 1;
	return 0;
}

void
algo_timing_names(const struct algo_ops *ops, char *buf, size_t len)
{
	const char *const *p;

	if (len > 0)
		buf[0] = '\0';
	for (p = ops->timings; p != NULL && *p != NULL; p++) {
		if (p != ops->timings)
			strlcat(buf, ", ", len);
		strlcat(buf, *p, len);
	}
}

void
algo_out_init(struct algo_out *o)
{
	memset(o, 0, sizeof(*o));
	o->wake = ALGO_FOREVER;
}

void
algo_out_clear(struct algo_out *o)
{
	o->n = 0;
	o->textlen = 0;
	o->ntrace = 0;
}

/* Room for ACTS actions and a step's trace lines: the only allocation of
 * the output, at boot.  -1 when memory runs out. */
static int
out_size(struct algo_out *o, size_t acts)
{
	struct algo_action *v;
	char *text;

	if (o->cap < acts) {
		if ((v = reallocarray(o->v, acts, sizeof(*v))) == NULL)
			return -1;
		o->v = v;
		o->cap = acts;
	}
	if (o->textcap < ALGO_TEXT_MAX) {
		if ((text = realloc(o->text, ALGO_TEXT_MAX)) == NULL)
			return -1;
		o->text = text;
		o->textcap = ALGO_TEXT_MAX;
	}
	return 0;
}

void
algo_out_free(struct algo_out *o)
{
	free(o->v);
	free(o->text);
	algo_out_init(o);
}

const char *
algo_out_text(const struct algo_out *o, const struct algo_action *a)
{
	return o->text + a->trace.off;
}

/* A new action at the end of O, within the room algo_boot() made: a core
 * that emits more than it declared is broken. */
static struct algo_action *
push(struct algo_out *o, enum algo_act_type type)
{
	struct algo_action *v;

	ALGO_ASSERT(o->n < o->cap);
	v = &o->v[o->n++];
	memset(v, 0, sizeof(*v));
	v->type = type;
	return v;
}

void
algo_send(struct algo_out *o, uint16_t to, unsigned type,
    const struct algo_elid *elid, const void *payload, size_t len)
{
	struct algo_action *a;

	if (len > ALGO_PAYLOAD_MAX)
		abort();	/* a bug in the core */
	a = push(o, ALGO_SEND);
	a->msg.peer = to;
	a->msg.type = type;
	a->msg.len = len;
	if (elid != NULL)
		a->msg.elid = *elid;
	if (len > 0)
		memcpy(a->msg.payload, payload, len);
}

void
algo_fd(struct algo_out *o, enum algo_fd_op op, uint16_t peer)
{
	struct algo_action *a;

	a = push(o, ALGO_FD);
	a->fd.op = op;
	a->fd.peer = peer;
}

void
algo_timer_set(struct algo_out *o, unsigned id, algo_time at)
{
	struct algo_action *a;

	a = push(o, ALGO_TIMER_SET);
	a->timer.id = id;
	a->timer.at = at;
}

void
algo_timer_cancel(struct algo_out *o, unsigned id)
{
	struct algo_action *a;

	a = push(o, ALGO_TIMER_CANCEL);
	a->timer.id = id;
}

void
algo_persist(struct algo_out *o, const void *data, size_t len)
{
	struct algo_action *a;

	if (len > ALGO_PERSIST_MAX)
		abort();	/* a bug in the core */
	a = push(o, ALGO_PERSIST);
	a->persist.len = len;
	memcpy(a->persist.data, data, len);
}

void
algo_trace(struct algo_out *o, const char *fmt, ...)
{
	struct algo_action *a;
	va_list ap;
	int len;

	ALGO_ASSERT(o->ntrace < ALGO_TRACES_MAX);
	va_start(ap, fmt);
	len = vsnprintf(o->text + o->textlen, o->textcap - o->textlen, fmt, ap);
	va_end(ap);
	/* ALGO_TEXT_MAX holds ALGO_TRACES_MAX lines of TRACE_LINE_MAX. */
	ALGO_ASSERT(len >= 0 && len < TRACE_LINE_MAX);
	a = push(o, ALGO_TRACE);
	a->trace.off = o->textlen;
	a->trace.len = (size_t)len;
	o->textlen += (size_t)len + 1;
	o->ntrace++;
}

int
algo_elid_eq(const struct algo_elid *a, const struct algo_elid *b)
{
	return a->node == b->node && a->inc == b->inc && a->ctr == b->ctr;
}

struct algo_elid
algo_new_elid(const struct algo *a, uint32_t *ctr)
{
	struct algo_elid e = { .node = a->self, .inc = a->inc, .ctr = *ctr };

	(*ctr)++;
	return e;
}

void
algo_edict(struct algo_out *o, uint16_t from, uint64_t token, uint64_t seq,
    int delivered, const void *text, size_t len)
{
	struct algo_action *a;

	ALGO_ASSERT(len <= ALGO_EDICT_MAX);
	a = push(o, ALGO_EDICT);
	a->edict.from = from;
	a->edict.token = token;
	a->edict.seq = seq;
	a->edict.delivered = delivered;
	a->edict.len = len;
	memcpy(a->edict.text, text, len);
	a->edict.text[len] = '\0';
}

void
algo_panic(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
	abort();
}

static int
state_eq(const struct algo_state *a, const struct algo_state *b)
{
	return a->status == b->status && a->ldr == b->ldr &&
	    algo_elid_eq(&a->grp, &b->grp);
}

void
algo_set_state(struct algo *a, struct algo_out *o, algo_time now,
    enum trace_status status, uint16_t ldr, const struct algo_elid *grp)
{
	struct algo_state s;
	struct algo_action *act;

	memset(&s, 0, sizeof(s));
	s.status = status;
	s.ldr = ldr;
	if (grp != NULL)
		s.grp = *grp;
	if (state_eq(&s, &a->state))
		return;
	a->state = s;
	a->since = now;
	act = push(o, ALGO_STATE);
	act->state = s;
}

long
algo_rank(const struct algo *a, uint16_t id)
{
	size_t lo = 0, hi = a->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (a->ids[mid] == id)
			return (long)mid;
		if (a->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * splitmix64: the cores need a generator that replays from a seed, which
 * arc4random(3) deliberately is not; this one is small and well studied.
 */
uint64_t
algo_splitmix(uint64_t *state)
{
	uint64_t z;

	z = (*state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint64_t
algo_rand(struct algo *a)
{
	return algo_splitmix(&a->rng);
}

static int
cmp_id(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	return (x > y) - (x < y);
}

/* 0, or -1 with the reason in ERR. */
static int
check_timing(const struct algo_timing *t, char *err, size_t errlen)
{
	const struct {
		const char	*name;
		algo_time	 v;
		algo_time	 min, max;
	} f[] = {
		{ "reply", t->reply, 1, HOUR },
		{ "check", t->check, 1, HOUR },
		{ "timeout", t->timeout, 1, HOUR },
		{ "tau", t->tau, 1, HOUR },
		{ "t_tx", t->t_tx, 1, HOUR },
		{ "alpha", t->alpha, 0, HOUR },
		{ "t_el", t->t_el, 0, HOUR },
		{ "t_ok", t->t_ok, 0, HOUR },
		{ "merge_wait", t->merge_wait, 0, HOUR },
		{ "accept_wait", t->accept_wait, 0, HOUR },
		{ "announce", t->announce, 0, HOUR },
		{ "lease", t->lease, 1, HOUR },
		{ "renew", t->renew, 1, HOUR },
		{ "rtt", t->rtt, 1, HOUR },
		{ "drift", t->drift, 0, ALGO_DRIFT_MAX },
		{ "skew", t->skew, 0, HOUR },
	};
	const char *why = NULL;
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].v < f[i].min || f[i].v > f[i].max) {
			snprintf(err, errlen, "timing %s out of range",
			    f[i].name);
			return -1;
		}
	/* Nerio, 10.1: a renewal must fit in the lease, with time to spare
	 * for at least one retry. */
	if (t->rtt > t->renew)
		why = "timing rtt must not exceed renew";
	else if (2 * t->renew + t->rtt > t->lease)
		why = "timing lease must be at least 2 renew + rtt";
	if (why != NULL) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	return 0;
}

/* After a step: its actions within the core's bound, the timers as they
 * left them, and the wake. */
static void
stepped(struct algo *a, struct algo_out *o)
{
	const struct algo_action *act;
	size_t i;

	ALGO_ASSERT(o->n <= a->acts);
	for (i = 0; i < o->n; i++) {
		act = &o->v[i];
		if (act->type == ALGO_TIMER_SET || act->type ==
		    ALGO_TIMER_CANCEL)
			ALGO_ASSERT(act->timer.id < a->ops->ntimer);
		if (act->type == ALGO_TIMER_SET)
			a->timer[act->timer.id] = act->timer.at;
		else if (act->type == ALGO_TIMER_CANCEL)
			a->timer[act->timer.id] = ALGO_FOREVER;
	}
	o->wake = ALGO_FOREVER;
	for (i = 0; i < a->ops->ntimer; i++)
		if (a->timer[i] < o->wake)
			o->wake = a->timer[i];
}

struct algo *
algo_boot(const struct algo_ops *ops, const struct algo_config *cfg,
    algo_time now, struct algo_out *o, char *err, size_t errlen)
{
	struct algo *a;
	const char *why;
	long r;
	size_t i;

	if (cfg->nids == 0 || cfg->nids > ALGO_NODES_MAX) {
		snprintf(err, errlen, "%zu nodes: 1 to %d allowed", cfg->nids,
		    ALGO_NODES_MAX);
		return NULL;
	}
	if (check_timing(&cfg->timing, err, errlen) == -1)
		return NULL;
	if ((cfg->epoch != 0 || cfg->epoch_pending || cfg->epoch_fresh) &&
	    !(ops->flags & ALGO_F_EPOCHS)) {
		snprintf(err, errlen, "%s has no epochs", ops->name);
		return NULL;
	}
	if (cfg->epoch > ALGO_EPOCH_MAX || (cfg->epoch == 0 &&
	    cfg->epoch_pending)) {
		snprintf(err, errlen, "epoch %u: 0 (running) to %u allowed",
		    cfg->epoch, ALGO_EPOCH_MAX);
		return NULL;
	}
	if (cfg->epoch_fresh && (cfg->epoch == 0 || cfg->persistlen != 0)) {
		snprintf(err, errlen, "a fresh core is of an epoch above 0 and "
		    "has no persisted state");
		return NULL;
	}
	if (cfg->persistlen > ALGO_PERSIST_MAX) {
		snprintf(err, errlen, "persisted state too long");
		return NULL;
	}
	ALGO_ASSERT(ops->acts_node <= ALGO_ACTS_NODE_MAX &&
	    ops->acts_fixed <= ALGO_ACTS_FIXED_MAX);
	ALGO_ASSERT(ops->ntimer <= ALGO_TIMERS_MAX);
	if ((a = calloc(1, ops->size)) == NULL ||
	    out_size(o, ALGO_ACTS(ops->acts_node, ops->acts_fixed,
	    cfg->nids)) == -1) {
		free(a);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	a->ops = ops;
	a->acts = ALGO_ACTS(ops->acts_node, ops->acts_fixed, cfg->nids);
	for (i = 0; i < ALGO_TIMERS_MAX; i++)
		a->timer[i] = ALGO_FOREVER;
	a->self = cfg->self;
	a->n = cfg->nids;
	memcpy(a->ids, cfg->ids, cfg->nids * sizeof(a->ids[0]));
	qsort(a->ids, a->n, sizeof(a->ids[0]), cmp_id);
	for (i = 0; i < a->n; i++) {
		if (a->ids[i] == 0) {
			snprintf(err, errlen, "node id 0 is not allowed");
			goto bad;
		}
		if (i > 0 && a->ids[i] == a->ids[i - 1]) {
			snprintf(err, errlen, "node %u is listed twice",
			    a->ids[i]);
			goto bad;
		}
	}
	if ((r = algo_rank(a, cfg->self)) == -1) {
		snprintf(err, errlen, "node %u is not in the cluster",
		    cfg->self);
		goto bad;
	}
	a->rank = (size_t)r;
	a->inc = cfg->inc;
	a->rng = cfg->seed;
	a->t = cfg->timing;
	a->epoch = cfg->epoch;
	a->epoch_pending = cfg->epoch_pending;
	a->epoch_fresh = cfg->epoch_fresh;
	a->state.status = ST_DOWN;
	a->since = now;
	a->now = now;
	algo_out_clear(o);
	if (ops->boot(a, cfg->persist, cfg->persistlen, now, o) != ALGO_OK) {
		snprintf(err, errlen, "%s refuses the cluster or its "
		    "persisted state",
		    ops->name);
		goto bad;
	}
	stepped(a, o);
	if ((why = algo_check(a)) != NULL)
		algo_panic(__FILE__, __LINE__, why);
	return a;
bad:
	free(a);
	return NULL;
}

/* The goodbye of a core that has none of its own. */
static int
leave(struct algo *a, algo_time now, struct algo_out *o)
{
	unsigned id;

	for (id = 0; id < a->ops->ntimer; id++)
		algo_timer_cancel(o, id);
	algo_set_state(a, o, now, ST_DOWN, 0, NULL);
	a->left = 1;
	return ALGO_OK;
}

int
algo_step(struct algo *a, const struct algo_input *in, struct algo_out *o)
{
	const char *why;
	int rc;

	/* A refused input leaves no actions and the wake as it was. */
	algo_out_clear(o);
	stepped(a, o);
	switch (in->type) {
	case ALGO_IN_RECV:
		if (in->msg.peer == a->self || algo_rank(a, in->msg.peer) == -1 ||
		    algo_msg_name(a->ops, in->msg.type) == NULL ||
		    in->msg.len > ALGO_PAYLOAD_MAX)
			return ALGO_EINVAL;
		break;
	case ALGO_IN_DOWN:
		if (in->down == a->self || algo_rank(a, in->down) == -1)
			return ALGO_EINVAL;
		break;
	case ALGO_IN_TIMER:
		if (in->timer >= a->ops->ntimer)
			return ALGO_EINVAL;
		break;
	case ALGO_IN_CMD:
		if (in->cmd.len > ALGO_CMD_MAX)
			return ALGO_EINVAL;
		break;
	default:
		return ALGO_EINVAL;
	}
	if (a->left)
		return ALGO_OK;
	a->now = in->now;
	/* A timer delivered is no longer armed, unless the core sets it
	 * again. */
	if (in->type == ALGO_IN_TIMER)
		a->timer[in->timer] = ALGO_FOREVER;
	rc = a->ops->step(a, in, o);
	if (rc == ALGO_ENOTSUP && in->type == ALGO_IN_CMD &&
	    in->cmd.code == ALGO_CMD_LEAVE)
		rc = leave(a, in->now, o);
	stepped(a, o);
	if ((why = algo_check(a)) != NULL)
		algo_panic(__FILE__, __LINE__, why);
	return rc;
}

/*
 * The frame's invariants, then the core's: the status is one of the
 * trace format's and names a node of the cluster; a node that left is
 * Down; the leadership's deadline, token and leader flag agree (a token
 * only while leading, a leader only while leading, a deadline only where
 * the algorithm has one).
 */
const char *
algo_check(const struct algo *a)
{
	struct algo_status st;

	if (a->state.status >= ST_NSTATUS)
		return "status of the trace format";
	if (a->state.ldr != 0 && algo_rank(a, a->state.ldr) == -1)
		return "ldr in the cluster";
	if (a->left && a->state.status != ST_DOWN)
		return "a node that left is Down";
	algo_query(a, a->now, &st);
	if (st.leader && st.until <= a->now)
		return "a leader leads until a deadline to come";
	if (st.token != 0 && st.until <= a->now)
		return "a fencing token only while leading";
	if (st.until != 0 && st.until <= a->now)
		return "no deadline while not leading";
	if (!(a->ops->flags & ALGO_F_DEADLINE) &&
	    st.until != (st.leader ? ALGO_FOREVER : 0))
		return "no deadline without ALGO_F_DEADLINE";
	if (!(a->ops->flags & ALGO_F_DEADLINE) && st.token != 0)
		return "no token without ALGO_F_DEADLINE";
	if (st.hint != 0 && algo_rank(a, st.hint) == -1)
		return "hint in the cluster";
	return a->ops->check != NULL ? a->ops->check(a) : NULL;
}

void
algo_query(const struct algo *a, algo_time now, struct algo_status *st)
{
	memset(st, 0, sizeof(*st));
	st->state = a->state;
	st->since = a->since;
	st->leader = (a->state.status == ST_NORM ||
	    a->state.status == ST_REORG) && a->state.ldr == a->self;
	st->until = st->leader ? ALGO_FOREVER : 0;
	if (a->ops->query != NULL)
		a->ops->query(a, now, st);
}

int
algo_due(const struct algo *a, algo_time now)
{
	int best = -1;
	unsigned i;

	for (i = 0; i < a->ops->ntimer; i++)
		if (a->timer[i] <= now && (best == -1 ||
		    a->timer[i] < a->timer[best]))
			best = (int)i;
	return best;
}

void
algo_free(struct algo *a)
{
	free(a);
}

const struct algo_ops *
algo_ops(const struct algo *a)
{
	return a->ops;
}

const char *
algo_name(const struct algo_ops *ops)
{
	return ops->name;
}

unsigned
algo_flags(const struct algo_ops *ops)
{
	return ops->flags;
}

const char *
algo_msg_name(const struct algo_ops *ops, unsigned type)
{
	if (type == 0 || type >= ops->nmsg)
		return NULL;
	return ops->msgnames[type];
}

unsigned
algo_msg_type(const struct algo_ops *ops, const char *name)
{
	unsigned t;

	for (t = 1; t < ops->nmsg; t++)
		if (strcmp(ops->msgnames[t], name) == 0)
			return t;
	return 0;
}

const char *
algo_timer_name(const struct algo_ops *ops, unsigned id)
{
	if (id >= ops->ntimer)
		return NULL;
	return ops->timernames[id];
}

const char *
algo_fd_op_name(enum algo_fd_op op)
{
	switch (op) {
	case ALGO_FD_START:
		return "start";
	case ALGO_FD_STOP:
		return "stop";
	case ALGO_FD_PLAYDEAD:
		return "playdead";
	case ALGO_FD_PLAYALIVE:
		return "playalive";
	}
	return "?";
}

void
algo_msg_fields(const struct algo_ops *ops, const struct algo_msg *m,
    char *buf, size_t len)
{
	if (len > 0)
		buf[0] = '\0';
	if (ops->msg_fields != NULL)
		ops->msg_fields(m, buf, len);
}

int
algo_msg_set_field(const struct algo_ops *ops, struct algo_msg *m,
    const char *key, const char *value)
{
	if (ops->msg_set_field == NULL)
		return -1;
	return ops->msg_set_field(m, key, value);
}

int
algo_field_seq(uint8_t *p, const char *value)
{
	const char *errstr;
	long long v;

	v = strtonum(value, 1, UINT32_MAX, &errstr);
	if (errstr != NULL)
		return -1;
	algo_put32(p, (uint32_t)v);
	return 0;
}

int
algo_field_yesno(uint8_t *p, const char *value)
{
	if (strcmp(value, "yes") != 0 && strcmp(value, "no") != 0)
		return -1;
	*p = strcmp(value, "yes") == 0;
	return 0;
}

char *
algo_elid_fmt(const struct algo_elid *e, char *buf, size_t len)
{
	if (e->node == 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%u.%" PRIu64 ".%" PRIu32, e->node, e->inc,
		    e->ctr);
	return buf;
}

/* Parses a decimal number of at most MAX from *S, advancing *S. */
static int
parse_dec(const char **s, uint64_t max, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (max - (*p - '0')) / 10)
			return -1;
		x = x * 10 + (*p - '0');
	}
	*s = p;
	*v = x;
	return 0;
}

int
algo_elid_parse(const char *s, struct algo_elid *e)
{
	uint64_t node, inc, ctr;

	memset(e, 0, sizeof(*e));
	if (strcmp(s, "-") == 0)
		return 0;
	if (parse_dec(&s, UINT16_MAX, &node) == -1 || node == 0 ||
	    *s++ != '.' || parse_dec(&s, UINT64_MAX, &inc) == -1 ||
	    *s++ != '.' || parse_dec(&s, UINT32_MAX, &ctr) == -1 || *s != '\0')
		return -1;
	e->node = node;
	e->inc = inc;
	e->ctr = ctr;
	return 0;
}
