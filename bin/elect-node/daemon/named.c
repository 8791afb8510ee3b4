/*
 * Named leaderships: lib/host/named decides every name at once, beside
 * the default leadership's core; this file feeds it what the network,
 * the detector and the control socket say, and carries its actions out.
 * Its rounds travel as WIRE_TYPE_NAMES (its rounds to this host it
 * answers itself).  The guarded commands
 * of a name are lib/host/lead's decisions, fed the name's status
 * (task.c).
 */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "store/store.h"
#include "util/util.h"

#define FLOOR_NAME	"names.floor"	/* the registry's floor, decimal */
#define FLOOR_MAX	24
/* Forgotten once idle this long, at the least (names.h, idle). */

static void	feed(struct node *, struct hnl_input *);

static void
save_floor(struct node *nd, uint64_t floor)
{
	char buf[FLOOR_MAX];
	int n;

	n = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)floor);
	if (store_write(nd->dirfd, FLOOR_NAME, buf, (size_t)n) == -1) {
		log_warnx("%s/%s: %s", nd->opts->statedir, FLOOR_NAME,
		    strerror(errno));
		nd->quit = QUIT_ERROR;
	}
}

/* The floor written, or 0 when none was. */
static uint64_t
read_floor(const struct node *nd)
{
	char buf[FLOOR_MAX + 1];
	const char *why;
	long long v;
	size_t len;
	int rc;

	rc = store_read(nd->dirfd, FLOOR_NAME, buf, sizeof(buf) - 1, &len);
	if (rc == -1)
		err(EXIT_USAGE, "%s/%s", nd->opts->statedir, FLOOR_NAME);
	if (rc == 1)
		return 0;
	buf[len] = '\0';
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	v = strtonum(buf, 0, LLONG_MAX, &why);
	if (why != NULL)
		errx(EXIT_USAGE, "%s/%s: %s", nd->opts->statedir, FLOOR_NAME,
		    why);
	return (uint64_t)v;
}

/* The registry's timing from the lease's (hnl_names_conf()), its bound
 * and the floor written. */
static void
names_conf(const struct node *nd, struct hnames_conf *c)
{
	hnl_names_conf(c, &nd->opts->timing.a, nd->opts->names_max > 0 ?
	    nd->opts->names_max : HNAMES_DEFAULT);
	c->self = nd->self->id;
	c->floor = read_floor(nd);
}

/* The live members: the core's, but those the detector reported down
 * and not heard from since; self among them. */
void
named_members(struct node *nd)
{
	struct hnl_input in = { .type = HNL_IN_MEMBERS };
	unsigned ids[CLUSTER_NODES_MAX];
	size_t i, n = 0;
	long k;

	if (!nd->names.on)
		return;
	for (i = 0; i < nd->cluster.n && n < nitems(ids); i++) {
		k = hnet_index(&nd->net, nd->cluster.nodes[i].id);
		if (nd->cluster.nodes[i].id == nd->self->id || k == -1 ||
		    !nd->net.p[k].downed)
			ids[n++] = nd->cluster.nodes[i].id;
	}
	in.ids = ids;
	in.nids = n;
	feed(nd, &in);
}

void
named_open(struct node *nd)
{
	struct named *nm = &nd->names;
	struct hnl_conf c;
	unsigned *ids;
	size_t i;
	int wedged;

	if ((ids = calloc(nd->cluster.n, sizeof(*ids))) == NULL)
		err(1, NULL);
	for (i = 0; i < nd->cluster.n; i++)
		ids[i] = nd->cluster.nodes[i].id;
	memset(&c, 0, sizeof(c));
	c.self = nd->self->id;
	c.inc = nd->inc;
	c.ids = ids;
	c.nids = nd->cluster.n;
	c.timing = nd->opts->timing.a;
	c.epoch = nd->cluster.epoch;
	core_epoch(nd, &c.pending, &wedged);
	names_conf(nd, &c.names);
	if (hnl_init(&nm->h, &c, mono_now()) == -1)
		errx(1, "named leaderships: %zu names: out of memory, or a "
		    "timing they cannot run under", c.names.max);
	if (hnl_out_init(&nm->out, &nm->h) == -1)
		err(1, NULL);
	free(ids);
	nm->on = 1;
	nm->wake = -1;
	named_members(nd);
	/* A core wedged in an earlier life (its state says so): names
	 * grant nothing more in its epoch either. */
	if (wedged)
		named_wedge(nd);
}

/*
 * A new epoch's core (reconf.c): named leaderships anew over its
 * members, in this life, every name still asked for here registered
 * again.  Dropping the old names' tokens is safe: tokens of a later
 * epoch lie above every token of an earlier one (hnl_conf.epoch).
 */
void
named_swap(struct node *nd)
{
	const struct control_client *c;
	const struct nlead *nl;
	int i;

	named_close(nd);
	nd->names.wedged = 0;
	named_open(nd);
	for (i = 0; i < nd->control.nclients; i++)
		if ((c = nd->control.clients[i]) != NULL &&
		    (nl = c->nl) != NULL) {
			if (named_register(nd, nl->name, nl->len) == -1)
				log_warnx("name %s: %s", nl->name,
				    nd->names.refused);
		}
}

/* The node leaves, releasing what it holds: every name still registered
 * here is freed at its grantors now, as the default core's Release
 * (its commands are dead or SIGKILLed, lib/host/lead). */
void
named_leave(struct node *nd)
{
	const struct control_client *c;
	int i;

	for (i = 0; i < nd->control.nclients; i++)
		if ((c = nd->control.clients[i]) != NULL && c->nl != NULL)
			named_release(nd, c->nl->name, c->nl->len);
}

void
named_close(struct node *nd)
{
	if (!nd->names.on)
		return;
	hnl_out_free(&nd->names.out);
	hnl_free(&nd->names.h);
	nd->names.on = 0;
}

/* What the core decided, in order; a save that fails stops the rest. */
static void
carry(struct node *nd)
{
	struct named *nm = &nd->names;
	const struct hnl_action *a;
	size_t i;

	for (i = 0; i < nm->out.n && nd->quit != QUIT_ERROR; i++) {
		a = &nm->out.v[i];
		switch (a->type) {
		case HNL_SEND:
			/* UDP may lose it; the core expects that. */
			net_send_wire(nd, a->id, WIRE_TYPE_NAMES, a->payload,
			    a->len);
			break;
		case HNL_TRACE:
			node_trace(nd, "%s", a->text);
			break;
		case HNL_LOG:
			log_info("%s", a->text);
			break;
		case HNL_SAVE:
			save_floor(nd, a->floor);
			break;
		case HNL_STATUS:
			task_named(nd, a->name, strlen(a->name));
			break;
		case HNL_REFUSE:
			strlcpy(nm->refused, a->text != NULL ? a->text :
			    "refused", sizeof(nm->refused));
			break;
		case HNL_DROP:
			net_drop(nd, a->id, a->why);
			break;
		}
	}
	nm->wake = nm->out.wake;
}

/* Input IN now, its actions carried out. */
static void
feed(struct node *nd, struct hnl_input *in)
{
	struct named *nm = &nd->names;

	if (!nm->on)
		return;
	in->now = node_input(nd);
	hnl_step(&nm->h, in, &nm->out);
	carry(nd);
	node_input_done(nd);
}

void
named_recv(struct node *nd, unsigned id, uint64_t inc, const uint8_t *p,
    size_t len)
{
	struct hnl_input in = { .type = HNL_IN_RECV, .id = id, .inc = inc,
	    .p = p, .len = len };

	feed(nd, &in);
}

/* A Dead for ID's incarnation INC (its guard's testament): every life
 * up to it is over, every name it held with it. */
void
named_dead(struct node *nd, unsigned id, uint64_t inc)
{
	struct hnl_input in = { .type = HNL_IN_DEAD, .id = id,
	    .inc = inc + 1 };

	feed(nd, &in);
}

/* The default core of a new epoch learned that the one before ended:
 * named leaderships may ask and lead in it too (rule E1). */
void
named_learn(struct node *nd)
{
	struct hnl_input in = { .type = HNL_IN_LEARN };
	int pending, wedged;

	if (!nd->names.on || !nd->names.h.pending)
		return;
	core_epoch(nd, &pending, &wedged);
	if (!pending)
		feed(nd, &in);
}

/* The default core wedges (an epoch change): named leaderships grant
 * nothing more in this epoch either. */
void
named_wedge(struct node *nd)
{
	struct hnl_input in = { .type = HNL_IN_WEDGE };

	if (nd->names.wedged)
		return;
	nd->names.wedged = 1;
	feed(nd, &in);
}

int
named_register(struct node *nd, const char *name, size_t len)
{
	struct hnl_input in = { .type = HNL_IN_REGISTER, .name = name,
	    .nlen = len };

	nd->names.refused[0] = '\0';
	feed(nd, &in);
	return nd->names.refused[0] == '\0' ? 0 : -1;
}

void
named_release(struct node *nd, const char *name, size_t len)
{
	struct hnl_input in = { .type = HNL_IN_RELEASE, .name = name,
	    .nlen = len };

	feed(nd, &in);
}

algo_time
named_tick(struct node *nd, algo_time now)
{
	struct hnl_input in = { .type = HNL_IN_TICK };
	struct named *nm = &nd->names;

	if (!nm->on)
		return -1;
	if (nm->wake != -1 && now >= nm->wake)
		feed(nd, &in);
	if (nm->wake == -1)
		return -1;
	return nm->wake > now ? nm->wake - now : 0;
}

void
named_status(const struct node *nd, const char *name, size_t len,
    algo_time now, struct algo_status *st)
{
	memset(st, 0, sizeof(*st));
	if (nd->names.on)
		hnl_algo_status(&nd->names.h, name, len, now, st);
}
