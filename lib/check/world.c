/*
 * The world as the trace shows it.  A node is up from its boot to its
 * next crash or exit, and down before its first boot; a paused node is
 * still up; after a boot its status is Down until its first state line.
 * Every pair of nodes is connected unless net lines say otherwise.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/world.h"

struct world *
world_new(unsigned nodes)
{
	struct world *w;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	idmap_init(&w->ids);
	w->size = w->size_opt = nodes;
	w->cur = -1;
	msgs_init(&w->msgs, 0);
	return w;
}

void
world_free(struct world *w)
{
	unsigned i;

	if (w == NULL)
		return;
	for (i = 0; i < w->n; i++)
		free(w->node[i].grp);
	free(w->node);
	idmap_free(&w->ids);
	free(w->cut);
	free(w->flaky);
	msgs_free(&w->msgs);
	free(w);
}

int
world_find(const struct world *w, unsigned id)
{
	return (int)idmap_find(&w->ids, id);
}

int
world_up(const struct world *w, unsigned id)
{
	int i = world_find(w, id);

	return i >= 0 && w->node[i].up;
}

int
world_linked(const struct world *w, int i, int j)
{
	if (!w->node[i].up || !w->node[j].up)
		return 0;
	if (i == j || w->cut == NULL)
		return 1;
	return !BIT_ISSET(w->cut + (size_t)i * w->words, (unsigned)j);
}

const char *
world_id(unsigned id, char *buf)
{
	if (id == 0)
		return "-";
	snprintf(buf, 8, "%u", id & 0xffff);	/* ids are at most 65535 */
	return buf;
}

int
world_grp_eq(const struct wnode *a, const struct wnode *b)
{
	return a->grplen == b->grplen && memcmp(a->grp, b->grp, a->grplen) == 0;
}

int
world_unstable(const struct world *w)
{
	unsigned i, j;

	if (w->npaused > 0)
		return 1;
	if (w->flaky == NULL)
		return 0;
	for (i = 0; i < w->n; i++) {
		const uint64_t *row = w->flaky + (size_t)i * w->words;

		if (!w->node[i].up)
			continue;
		for (j = i + 1; j < w->n; j++)
			if (BIT_ISSET(row, j) && w->node[j].up)
				return 1;
	}
	return 0;
}

int
world_flaky_to_up(const struct world *w, unsigned id)
{
	int i = world_find(w, id);
	const uint64_t *row;
	unsigned j;

	if (i < 0 || w->flaky == NULL)
		return 0;
	row = w->flaky + (size_t)i * w->words;
	for (j = 0; j < w->n; j++)
		if ((int)j != i && BIT_ISSET(row, j) && w->node[j].up)
			return 1;
	return 0;
}

void *
world_grow(void *arr, unsigned *have, const struct world *w, size_t size)
{
	unsigned n;
	char *p;

	if (*have >= w->n)
		return arr;
	n = w->cap;
	if ((p = reallocarray(arr, n, size)) == NULL)
		err(2, NULL);
	memset(p + (size_t)*have * size, 0, (size_t)(n - *have) * size);
	*have = n;
	return p;
}

/* Widens a link matrix to CAP nodes. */
static void
grow_matrix(uint64_t **m, size_t owords, unsigned on, size_t nwords,
    unsigned cap)
{
	uint64_t *nm;
	unsigned i;

	if (*m == NULL)
		return;
	if ((nm = calloc((size_t)cap * nwords, sizeof(*nm))) == NULL)
		err(2, NULL);
	for (i = 0; i < on; i++)
		memcpy(nm + (size_t)i * nwords, *m + (size_t)i * owords,
		    owords * sizeof(*nm));
	free(*m);
	*m = nm;
}

static int
add_node(struct world *w, unsigned id)
{
	struct wnode *nd;
	int i;

	if ((i = world_find(w, id)) != -1)
		return i;
	if (w->n == WORLD_MAX_NODES)
		return -1;
	if (w->n == w->cap) {
		unsigned cap = w->cap ? w->cap * 2 : 16;
		size_t words = (cap + 63) / 64;
		struct wnode *p;

		if ((p = reallocarray(w->node, cap, sizeof(*p))) == NULL)
			err(2, NULL);
		w->node = p;
		grow_matrix(&w->cut, w->words, w->n, words, cap);
		grow_matrix(&w->flaky, w->words, w->n, words, cap);
		w->cap = cap;
		w->words = words;
	}
	nd = &w->node[w->n];
	memset(nd, 0, sizeof(*nd));
	nd->id = id;
	nd->status = ST_DOWN;
	if ((nd->grp = malloc(16)) == NULL)
		err(2, NULL);
	nd->grpcap = 16;
	nd->grp[0] = '-';
	nd->grplen = 1;
	nd->last = INT64_MIN;
	if (idmap_new(&w->ids, id) == -1)
		err(2, NULL);
	w->n++;
	if (w->size != 0 && w->n > w->size && !w->epochs)
		w->anomaly |= WA_SIZE;
	return (int)w->n - 1;
}

static void
set_grp(struct wnode *nd, struct trace_str g)
{
	if (g.n > nd->grpcap) {
		char *p;

		if ((p = realloc(nd->grp, g.n)) == NULL)
			err(2, NULL);
		nd->grp = p;
		nd->grpcap = g.n;
	}
	memmove(nd->grp, g.p, g.n);
	nd->grplen = g.n;
}

static int
is_norm(enum trace_status s)
{
	return s == ST_NORM;
}

static int
is_act(enum trace_status s)
{
	return s == ST_NORM || s == ST_REORG;
}

/* Sets node ND's election state, noting what changed when. */
static void
set_state(struct world *w, struct wnode *nd, enum trace_status st,
    unsigned ldr, struct trace_str grp, trace_time t)
{
	if (is_norm(nd->status) != is_norm(st))
		nd->t_norm = t;
	if (is_act(nd->status) != is_act(st))
		nd->t_act = t;
	if (nd->ldr != ldr)
		nd->t_ldr = t;
	if (nd->status != st)
		w->diff |= D_STATUS;
	if (nd->ldr != ldr)
		w->diff |= D_LDR;
	if (nd->grplen != grp.n || memcmp(nd->grp, grp.p, grp.n) != 0) {
		nd->t_grp = t;
		w->diff |= D_GRP;
		set_grp(nd, grp);
	}
	nd->status = st;
	nd->ldr = ldr;
	if (w->diff != 0 && nd->up)
		w->changed |= W_STATE;
}

static const struct trace_str none = { "-", 1 };

static int
boot(struct world *w, struct wnode *nd, const struct trace_event *ev)
{
	if (nd->up)
		w->anomaly |= WA_REBOOT;
	if (nd->booted && ev->inc <= nd->inc)
		w->anomaly |= WA_INC;
	if (nd->paused)
		w->npaused--;
	if (!nd->up)
		w->nup++;
	nd->up = 1;
	nd->paused = 0;
	nd->vetoed = 0;
	nd->booted = 1;
	nd->inc = ev->inc;
	nd->t_up = ev->t;
	w->changed |= W_UP;
	/* With epochs (Nerio 10.6) nodes= is the size of the node's epoch:
	 * the hosts of all epochs may be more. */
	if (ev->have & HAVE_EPOCH)
		w->epochs = 1;
	if ((ev->have & HAVE_NODES) && ev->nodes > w->size &&
	    w->size_opt == 0) {
		w->size = ev->nodes;
		if (w->n > w->size && !w->epochs)
			w->anomaly |= WA_SIZE;
	}
	set_state(w, nd, ST_DOWN, 0, none, ev->t);
	return 0;
}

static int
stop(struct world *w, struct wnode *nd, const struct trace_event *ev)
{
	if (!nd->up)
		return 0;	/* told twice, by harness and collector */
	if (nd->paused)
		w->npaused--;
	nd->up = 0;
	nd->paused = 0;
	nd->t_up = ev->t;
	w->nup--;
	w->changed |= W_UP;
	nd->status = ST_DOWN;
	return 0;
}

/* Whether the link between nodes A and B (indices, -1: never seen) is L. */
static int
link_is(const struct world *w, int a, int b, enum trace_link l)
{
	int cut = 0, flaky = 0;

	if (a >= 0 && b >= 0 && w->cut != NULL) {
		cut = BIT_ISSET(w->cut + (size_t)a * w->words, (unsigned)b);
		flaky = BIT_ISSET(w->flaky + (size_t)a * w->words,
		    (unsigned)b);
	}
	return cut == (l != LINK_UP) && flaky == (l == LINK_FLAKY);
}

static void
set_link(struct world *w, int a, int b, enum trace_link l)
{
	uint64_t *ca = w->cut + (size_t)a * w->words;
	uint64_t *cb = w->cut + (size_t)b * w->words;
	uint64_t *fa = w->flaky + (size_t)a * w->words;
	uint64_t *fb = w->flaky + (size_t)b * w->words;
	int cut = l != LINK_UP, flaky = l == LINK_FLAKY;

	if (link_is(w, a, b, l))
		return;
	w->changed |= W_NET;
	if (cut) {
		BIT_SET(ca, (unsigned)b);
		BIT_SET(cb, (unsigned)a);
	} else {
		BIT_CLR(ca, (unsigned)b);
		BIT_CLR(cb, (unsigned)a);
	}
	if (flaky) {
		BIT_SET(fa, (unsigned)b);
		BIT_SET(fb, (unsigned)a);
	} else {
		BIT_CLR(fa, (unsigned)b);
		BIT_CLR(fb, (unsigned)a);
	}
}

static int
net(struct world *w, const struct trace_event *ev)
{
	int a, b;

	if ((a = add_node(w, ev->a)) == -1 || (b = add_node(w, ev->b)) == -1)
		return -1;
	if (w->cut == NULL) {
		w->cut = calloc((size_t)w->cap * w->words, sizeof(*w->cut));
		w->flaky = calloc((size_t)w->cap * w->words,
		    sizeof(*w->flaky));
		if (w->cut == NULL || w->flaky == NULL)
			err(2, NULL);
	}
	set_link(w, a, b, ev->link);
	return 0;
}

unsigned
world_would(const struct world *w, const struct trace_event *ev)
{
	int i = ev->node != 0 ? world_find(w, ev->node) : -1;
	const struct wnode *nd = i >= 0 ? &w->node[i] : NULL;
	int up = nd != NULL && nd->up;

	switch (ev->type) {
	case TR_NET:
		return link_is(w, world_find(w, ev->a), world_find(w, ev->b),
		    ev->link) ? 0 : W_NET;
	case TR_BOOT:
		return W_UP;
	case TR_CRASH:
	case TR_EXIT:
		return up ? W_UP : 0;
	case TR_PAUSE:
	case TR_RESUME:
		return up && nd->paused != (ev->type == TR_PAUSE) ? W_PAUSE : 0;
	default:
		return ev->node != 0 && !up ? W_UP : 0;
	}
}

int
world_apply(struct world *w, const struct trace_event *ev)
{
	struct wnode *nd;
	int i;

	w->changed = w->anomaly = w->diff = 0;
	w->cur = -1;
	if (w->events++ == 0)
		w->first = w->now = ev->t;
	/* Lines of different nodes misordered by more than the skew: the
	 * trace no longer says what happened in which order. */
	w->order_t = w->now;
	if (ev->t < w->now - w->skew)
		w->anomaly |= WA_ORDER;
	if (ev->t > w->now)
		w->now = ev->t;
	if (ev->node == 0) {
		if (ev->t < w->sys_last)
			w->anomaly |= WA_BACKWARDS;
		w->prev_t = w->sys_last;
		w->sys_last = ev->t;
		return ev->type == TR_NET ? net(w, ev) : 0;
	}
	if ((i = world_find(w, ev->node)) == -1 &&
	    (i = add_node(w, ev->node)) == -1)
		return -1;
	/* The peer a detector watches is a node of the trace, as the ends
	 * of a link are: what the checkers keep per pair stays bounded by
	 * the nodes, not by the lines. */
	if (ev->type == TR_FD && add_node(w, ev->peer) == -1)
		return -1;
	w->cur = i;
	nd = &w->node[i];
	/*
	 * A harness or a collector may stamp a node's crash, pause or resume
	 * on a clock of its own: within the skew, that is no step back.
	 */
	if (nd->last != INT64_MIN && ev->t < nd->last - ((ev->type == TR_CRASH ||
	    ev->type == TR_PAUSE || ev->type == TR_RESUME) ? w->skew : 0))
		w->anomaly |= WA_BACKWARDS;
	w->prev_t = nd->last;
	w->prev_inc = nd->inc;
	w->prev_status = nd->status;
	w->prev_ldr = nd->ldr;
	nd->last = ev->t;
	switch (ev->type) {
	case TR_BOOT:
		return boot(w, nd, ev);
	case TR_CRASH:
	case TR_EXIT:
		return stop(w, nd, ev);
	case TR_PAUSE:
	case TR_RESUME:
		if (nd->up && nd->paused != (ev->type == TR_PAUSE)) {
			nd->paused = ev->type == TR_PAUSE;
			w->npaused += nd->paused ? 1 : -1;
			w->changed |= W_PAUSE;
		}
		return 0;
	default:
		break;
	}
	if (!nd->up && CHECK_SHOWS_UP(ev)) {
		/* Its boot is missing, but a node that writes is running. */
		w->anomaly |= WA_DOWN;
		nd->up = 1;
		nd->t_up = ev->t;
		w->nup++;
		w->changed |= W_UP;
	}
	/* A node's state is its default leadership's. */
	if (ev->type == TR_STATE && !(ev->have & HAVE_NAME))
		set_state(w, nd, ev->status, ev->ldr, ev->grp, ev->t);
	if (ev->type == TR_MISFIT && nd->vetoed != (ev->lead.p[0] == 'n')) {
		nd->vetoed = ev->lead.p[0] == 'n';
		w->diff |= D_STATUS;
		w->changed |= W_STATE;
	}
	return 0;
}
