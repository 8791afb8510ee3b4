/*
 * Running assertions over a trace: every module is fed every event in
 * order, after the shared world has taken it in, and reports through its
 * own check_out; a model that modules share takes the event in between.
 * Without a chosen set, all the specifications run until
 * the first boot that names its algorithm decides which one counts;
 * reports of the others are held back until then and dropped.
 */
#include <assert.h>
#include <err.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/inst.h"
#include "check/world.h"
#include "trace/dead.h"

#define HELD_MAX	1024	/* reports held before the set is known */
#define FOREIGN_SAID	8	/* boots of another set named in the summary */

struct check_out {
	struct check_said	 said;	/* first: check_calm() writes it */
	const struct check_ops	*ops;
	void			*st;
	struct checker		*ck;
	unsigned long		 violations, undecided, notjudged;
	int			 on;	/* 0: dropped, 1: chosen, 2: pending */
	trace_time		 wake;
	/* An instance judging a named leadership: its name, and the
	 * checker's module of the same assertion, which counts and
	 * reports for it (NULL for the checker's own). */
	const char		*lname;
	struct check_out	*top;
};
_Static_assert(offsetof(struct check_out, said) == 0,
    "check_calm() writes the start of a check_out");

/*
 * A named leadership: an instance of every per-name module, with a model
 * of its own, fed its lines and every line about the hosts.  The
 * checker's own modules judge the default leadership.
 */
struct lane {
	struct check_opts	 o;		/* o.model: its model */
	const struct check_model *model;
	struct check_out	*m;
	size_t			 nm;
};

struct held {
	struct check_out	*out;
	char			*line;
};

/* Node P's incarnation INC ended by BY on its own clock, as a Dead
 * received at BY less the skew showed. */
struct doom {
	unsigned		 node;
	uint64_t		 inc;
	trace_time		 by;
};

/* A module's event() as the driver calls it. */
struct call {
	void			(*event)(void *, const struct trace_event *,
				    struct check_out *);
	void			*st;
	struct check_out	*out;
	/* It judges the default leadership (check_ops.hosts): no named
	 * line. */
	int			 dflt;
};

struct checker {
	struct check_opts	 o;
	struct world		*w;
	FILE			*fp;
	int			 json;
	struct check_out	*m;	/* in the order of check_all */
	size_t			 nm, nall;
	/* For each event type, the modules that take it, in order: most
	 * lines concern few modules, and every test skipped counts. */
	struct call		*plan;	/* nall per type */
	size_t			 nplan[TR_NTYPES];
	const struct check_model *model;	/* shared by some modules */
	size_t			 modelusers;
	int			 chosen;	/* assertions named by the user */
	int			 autoset;
	const char		*set;	/* chosen from algo=, or NULL */
	struct held		*held;
	size_t			 nheld;
	unsigned long		 lost;	/* held reports that did not fit */
	trace_time		 wake;	/* no module wakes before */
	struct trace_event	 last;
	unsigned long		 events;
	/* Nodes a Dead proved gone, whose crash waits for the lines their
	 * own clock may still stamp within the skew (dead_doom()). */
	struct doom		*doom;
	size_t			 ndoom, doomcap;
	/* The first line out of time order: from there on only the trace
	 * assertion is judged. */
	int			 disorder;
	char			 disorder_at[300];
	/* The set the boots are judged by, and the nodes whose latest boot
	 * named an algorithm of another (a host misconfigured among the
	 * others): only the assertions every set shares judge their lines. */
	unsigned		 judge;		/* of set_bit() */
	char			 judged_as[40];	/* "lease", "sync or async" */
	uint8_t			 foreign[(TRACE_NODE_MAX + 1) / 8];
	/* The named leaderships, by number less one (trace_names). */
	struct trace_names	*names;
	struct lane		**lane;
	size_t			 nlane, lanecap;
	struct {
		unsigned	 node;
		char		 algo[24];
		char		 at[280];
	}			 odd[FOREIGN_SAID];
	unsigned long		 nodd;
	char			 why[256];
};

/* Whether OPS judges the lines of every algorithm: the completeness of the
 * trace, and the guarded commands, which no host may run beside another
 * whatever it was started as. */
static int
shared(const struct check_ops *ops)
{
	return ops == &check_trace || ops == &check_task_overlap ||
	    ops == &check_task_lease || ops == &check_task_token;
}

enum verdict { V_VIOLATED, V_UNDECIDED, V_NOTJUDGED };

static void
json_str(FILE *fp, const char *s)
{
	putc('"', fp);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\u%04x", c);
		else
			putc(c, fp);
	}
	putc('"', fp);
}

static void
emit(struct checker *ck, const char *line)
{
	fputs(line, ck->fp);
}

static void
report(struct check_out *out, const struct trace_event *ev, enum verdict v,
    const char *fmt, va_list ap)
{
	struct checker *ck = out->ck;
	char what[1024], *line = NULL;
	const char *file = ev != NULL ? ev->file : "-";
	unsigned long lineno = ev != NULL ? ev->lineno : 0;
	size_t len;
	FILE *fp;

	static const char *const vname[] = { "violated", "undecided",
	    "not judged" };
	static const char *const vpre[] = { "", "undecided: ",
	    "not judged: " };
	char named[TRACE_NAME_LEN + 8] = "";

	if (out->lname != NULL)
		snprintf(named, sizeof(named), "name=%s: ", out->lname);
	if (out->top != NULL)
		out = out->top;
	if (out->on == 0)
		return;

	if (v == V_UNDECIDED)
		out->undecided++;
	else if (v == V_NOTJUDGED)
		out->notjudged++;
	else
		out->violations++;
	len = strlen(named);
	memcpy(what, named, len + 1);
	vsnprintf(what + len, sizeof(what) - len, fmt, ap);
	if ((fp = open_memstream(&line, &len)) == NULL)
		err(2, NULL);
	if (ck->json) {
		fputs("{\"file\":", fp);
		json_str(fp, file);
		fprintf(fp, ",\"line\":%lu,\"name\":", lineno);
		json_str(fp, out->ops->name);
		fprintf(fp, ",\"verdict\":\"%s\",\"what\":", vname[v]);
		json_str(fp, what);
		fputs("}\n", fp);
	} else
		fprintf(fp, "%s:%lu: %s: %s%s\n", file, lineno, out->ops->name,
		    vpre[v], what);
	if (fclose(fp) != 0)
		err(2, NULL);
	if (out->on == 1) {
		emit(ck, line);
		free(line);
		return;
	}
	if (ck->nheld == HELD_MAX) {
		ck->lost++;
		free(line);
		return;
	}
	ck->held[ck->nheld].out = out;
	ck->held[ck->nheld++].line = line;
}

/* The three verdicts a module can give, one function each. */
#define VERDICT(fn, v)							\
void									\
fn(struct check_out *out, const struct trace_event *ev, const char *fmt,	\
    ...)								\
{									\
	va_list ap;							\
									\
	va_start(ap, fmt);						\
	report(out, ev, v, fmt, ap);					\
	va_end(ap);							\
}
VERDICT(check_violation, V_VIOLATED)
VERDICT(check_undecided, V_UNDECIDED)
VERDICT(check_notjudged, V_NOTJUDGED)
#undef VERDICT

/* The message bound of a set (elect-check(1), MESSAGES). */
static trace_time
set_bound(const char *set)
{
	if (strcmp(set, "sync") == 0)
		return CHECK_BOUND_SYNC;
	if (strcmp(set, "async") == 0)
		return CHECK_BOUND_ASYNC;
	if (strcmp(set, "lease") == 0)
		return CHECK_BOUND_LEASE;
	return -1;
}

/* A set is known: messages are watched with its bound, the least of the
 * sets named, unless --msg-bound said. */
static void
use_set(struct checker *ck, const char *set)
{
	trace_time b = set_bound(set);

	if (ck->o.msg_bound >= 0 || b < 0)
		return;
	if (ck->w->msgs.bound < 0 || b < ck->w->msgs.bound)
		ck->w->msgs.bound = b;
}

static int	add(struct checker *, const struct check_ops *, int);
static void	judge(struct checker *, const char *);
static void	lanes_sync(struct checker *);

/* Whether OUT is still judged: after a line out of time order, only the
 * trace assertion is, since the order of events is no longer known. */
static int
judged(const struct checker *ck, const struct check_out *out)
{
	return !ck->disorder || out->ops == &check_trace;
}

/* Works the plan out again: after a module came, went or stopped being
 * judged. */
static void
replan(struct checker *ck)
{
	const struct check_out *out;
	struct call *c;
	unsigned t;

	for (t = 0; t < TR_NTYPES; t++) {
		c = ck->plan + t * ck->nall;
		for (out = ck->m; out < ck->m + ck->nm; out++)
			if (out->on && judged(ck, out) && (out->ops->events ==
			    0 || (out->ops->events & 1u << t)))
				*c++ = (struct call){ out->ops->event, out->st,
				    (struct check_out *)out, !out->ops->hosts };
		ck->nplan[t] = (size_t)(c - (ck->plan + t * ck->nall));
	}
	lanes_sync(ck);
}

/* The lanes' instances answer to the checker's modules as they now are:
 * those of an assertion dropped go. */
static void
lanes_sync(struct checker *ck)
{
	struct lane *l;
	size_t i, j, k;

	for (i = 0; i < ck->nlane; i++) {
		if ((l = ck->lane[i]) == NULL)
			continue;
		for (j = k = 0; j < l->nm; j++) {
			struct check_out *out = &l->m[j], *top = NULL;
			size_t x;

			for (x = 0; x < ck->nm && top == NULL; x++)
				if (ck->m[x].ops == out->ops && ck->m[x].on)
					top = &ck->m[x];
			if (top == NULL) {
				out->ops->free(out->st);
				continue;
			}
			out->top = top;
			l->m[k++] = *out;
		}
		l->nm = k;
	}
}

/* The lane of leadership number ID, made at its first line. */
static struct lane *
lane_get(struct checker *ck, long id)
{
	struct lane *l;
	size_t i;

	assert(id >= 1 && id <= TRACE_NAME_COUNT);
	while ((size_t)id > ck->lanecap) {
		struct lane **p = array_grow(ck->lane, &ck->lanecap,
		    sizeof(*p));

		if (p == NULL)
			err(2, NULL);
		ck->lane = p;
	}
	if ((l = ck->lane[id - 1]) != NULL)
		return l;
	if ((l = calloc(1, sizeof(*l))) == NULL ||
	    (l->m = calloc(ck->nall, sizeof(*l->m))) == NULL)
		err(2, NULL);
	l->o = ck->o;
	l->o.model = NULL;
	for (i = 0; i < ck->nm; i++) {
		const struct check_ops *ops = ck->m[i].ops;
		struct check_out *out;

		if (!ck->m[i].on || !ops->per_name)
			continue;
		if (ops->model != NULL && l->model == NULL) {
			if ((l->o.model = ops->model->init(&l->o)) == NULL ||
			    (ops->model == ck->model &&
			    ops->model->hosts != NULL &&
			    ops->model->hosts(l->o.model, ck->o.model) == -1))
				err(2, "%s", ops->name);
			l->model = ops->model;
		}
		out = &l->m[l->nm++];
		out->ops = ops;
		out->ck = ck;
		out->on = 1;
		out->wake = INT64_MIN;
		out->lname = trace_names_str(ck->names, id);
		out->top = &ck->m[i];
		if ((out->st = ops->init(&l->o)) == NULL)
			err(2, "%s", ops->name);
	}
	ck->lane[id - 1] = l;
	if ((size_t)id > ck->nlane)
		ck->nlane = (size_t)id;
	return l;
}

static void
lane_feed(struct checker *ck, struct lane *l, const struct trace_event *ev,
    int odd)
{
	struct check_out *out;

	if (l->model != NULL && !ck->disorder && !odd)
		l->model->event(l->o.model, ev);
	for (out = l->m; out < l->m + l->nm; out++)
		if (out->top->on && judged(ck, out->top) &&
		    (out->ops->events == 0 || (out->ops->events &
		    1u << ev->type)) && (!odd || shared(out->ops)))
			out->ops->event(out->st, ev, out);
}

static void
lane_free(struct lane *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->nm; i++)
		l->m[i].ops->free(l->m[i].st);
	if (l->model != NULL)
		l->model->free(l->o.model);
	free(l->m);
	free(l);
}

void
check_wake(struct check_out *out, trace_time t)
{
	out->wake = t;
	if (t < out->ck->wake)
		out->ck->wake = t;
}

struct checker *
checker_new(const struct check_opts *o, FILE *fp, int json)
{
	struct checker *ck;
	size_t n;

	if ((ck = calloc(1, sizeof(*ck))) == NULL)
		err(2, NULL);
	for (n = 0; check_all[n] != NULL; n++)
		;
	ck->nall = n;
	if ((ck->m = calloc(n, sizeof(*ck->m))) == NULL ||
	    (ck->plan = calloc(n * TR_NTYPES, sizeof(*ck->plan))) == NULL ||
	    (ck->held = calloc(HELD_MAX, sizeof(*ck->held))) == NULL ||
	    (ck->w = world_new(o->nodes)) == NULL)
		err(2, NULL);
	ck->o = *o;
	ck->o.world = ck->w;
	ck->w->skew = o->skew;
	ck->w->msgs.c = o->c;
	ck->w->msgs.bound = o->msg_bound;
	ck->fp = fp;
	ck->json = json;
	ck->wake = INT64_MIN;
	add(ck, &check_trace, 1);
	return ck;
}

static int
add(struct checker *ck, const struct check_ops *ops, int on)
{
	size_t i, at;

	for (at = 0; check_all[at] != NULL && check_all[at] != ops; at++)
		;
	for (i = 0; i < ck->nm; i++) {
		if (ck->m[i].ops == ops) {
			if (on == 1)
				ck->m[i].on = 1;
			return 0;
		}
	}
	/* Keep the order of check_all. */
	for (i = ck->nm; i > 0; i--) {
		size_t j;

		for (j = 0; check_all[j] != ck->m[i - 1].ops; j++)
			;
		if (j < at)
			break;
		ck->m[i] = ck->m[i - 1];
	}
	memset(&ck->m[i], 0, sizeof(ck->m[i]));
	ck->m[i].ops = ops;
	ck->m[i].ck = ck;
	ck->m[i].on = on;
	ck->m[i].wake = INT64_MIN;
	if (ops->model != NULL) {
		if (ck->model == NULL) {
			if ((ck->o.model = ops->model->init(&ck->o)) == NULL)
				err(2, "%s", ops->name);
			ck->model = ops->model;
		} else if (ck->model != ops->model)
			errx(2, "%s: one shared model per checker", ops->name);
		ck->modelusers++;
	}
	if ((ck->m[i].st = ops->init(&ck->o)) == NULL)
		err(2, "%s", ops->name);
	ck->nm++;
	replan(ck);
	return 0;
}

int
checker_add(struct checker *ck, const char *name)
{
	const struct check_ops *ops;

	if ((ops = check_find(name)) == NULL)
		return -1;
	ck->chosen = 1;
	return add(ck, ops, 1);
}

int
checker_add_set(struct checker *ck, const char *set)
{
	const struct check_ops *const *m;

	if ((m = check_set(set)) == NULL)
		return -1;
	ck->chosen = 1;
	for (; *m != NULL; m++)
		add(ck, *m, 1);
	use_set(ck, set);
	judge(ck, set);
	return 0;
}

/* No set given: run every specification an algorithm can name. */
static void
start_auto(struct checker *ck)
{
	static const char *const sets[] = { "sync", "async", "lease" };
	const struct check_ops *const *m;
	size_t i;

	ck->autoset = 1;
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		for (m = check_set(sets[i]); *m != NULL; m++)
			add(ck, *m, 2);
}

static void
model_free(struct checker *ck)
{
	if (ck->model != NULL)
		ck->model->free(ck->o.model);
	ck->model = NULL;
	ck->o.model = NULL;
	ck->modelusers = 0;
}

static void
drop(struct check_out *out)
{
	out->ops->free(out->st);
	out->st = NULL;
	out->on = 0;
	if (out->ops->model != NULL && --out->ck->modelusers == 0)
		model_free(out->ck);
}

/* The first algo= decides; the held reports of that set come out. */
static const char *
choose(struct checker *ck, const struct trace_event *ev)
{
	const struct check_ops *const *m;
	const char *set;
	size_t i, j;

	if ((set = check_algo_set(ev->algo.p, ev->algo.n)) == NULL) {
		snprintf(ck->why, sizeof(ck->why), "%s:%lu: unknown algorithm "
		    "\"%.*s\": pass -s to choose the assertions", ev->file,
		    ev->lineno, (int)(ev->algo.n > 40 ? 40 : ev->algo.n),
		    ev->algo.p);
		return ck->why;
	}
	if (ck->set != NULL)
		return NULL;
	ck->set = set;
	judge(ck, set);
	use_set(ck, set);
	for (i = 0; i < ck->nm; i++) {
		if (ck->m[i].on != 2)
			continue;
		for (m = check_set(set); *m != NULL; m++)
			if (*m == ck->m[i].ops)
				break;
		if (*m != NULL)
			ck->m[i].on = 1;
		else
			drop(&ck->m[i]);
	}
	for (i = 0; i < ck->nheld; i++) {
		if (ck->held[i].out->on == 1)
			emit(ck, ck->held[i].line);
		free(ck->held[i].line);
	}
	ck->nheld = 0;
	/* Only the chosen run from now on: every event visits them all. */
	for (i = j = 0; i < ck->nm; i++)
		if (ck->m[i].on)
			ck->m[j++] = ck->m[i];
	ck->nm = j;
	replan(ck);
	return NULL;
}

/*
 * A lease `recv msg=Dead elid=P.I.C': P's --run-if-leader client saw the
 * process of incarnation I of P end and told the peers so, while P's own
 * lines just stop (SIGKILL).  The line proves that process gone by its
 * time, so it stands for P's crash, unless P is down already (a crash
 * line came first) or booted an incarnation newer than I since: a Dead
 * proves only the end of the incarnation it names.  Returns P's index,
 * or -1 when the line implies no crash.
 */
static int
dead_of(const struct world *w, const struct trace_event *ev, uint64_t *incp)
{
	unsigned p;
	uint64_t inc;
	int i;

	if (!trace_dead_of(ev, &p, &inc) || (i = world_find(w, p)) < 0 ||
	    !w->node[i].up || w->node[i].inc != inc)
		return -1;
	*incp = inc;
	return i;
}

/*
 * A Dead for an incarnation of P beyond the one P's boot line shows: no
 * guard of P can have sent it, since it names a process that never ran.
 * A forgery (or a node whose lines are lost) that took leases away from
 * a live leader: reported under uniqueness, which it undermines, and no
 * crash is inferred from it.
 */
static void
dead_forged(struct checker *ck, const struct trace_event *ev)
{
	struct check_out *out;
	unsigned p;
	uint64_t inc;
	int i;

	if (!trace_dead_of(ev, &p, &inc) || (i = world_find(ck->w, p)) < 0 ||
	    ck->w->node[i].inc == 0 || ck->w->node[i].inc >= inc)
		return;
	for (out = ck->m; out < ck->m + ck->nm; out++)
		if (out->ops == &check_uniqueness && out->on && judged(ck, out))
			check_violation(out, ev, "node %u received a Dead for "
			    "incarnation %llu of node %u, whose trace shows "
			    "incarnation %llu at most: no guard of it sent "
			    "that, and a lease it ended may still be held",
			    ev->node, (unsigned long long)inc, p,
			    (unsigned long long)ck->w->node[i].inc);
}

/* The crash of node P at T, which the checker infers (CHECK_HAVE_DEAD),
 * at the line of EV. */
static void
crash_at(struct trace_event *crash, const struct trace_event *ev,
    unsigned p, trace_time t)
{
	memset(crash, 0, sizeof(*crash));
	crash->file = ev->file;
	crash->lineno = ev->lineno;
	crash->line = ev->line;
	crash->t = t;
	crash->node = p;
	crash->type = TR_CRASH;
	crash->have = CHECK_HAVE_DEAD;
}

static const char	*feed(struct checker *, const struct trace_event *,
			    int);

/*
 * The crashes that the Dead lines read so far prove, and that EV (NULL:
 * the end of the trace) can no longer precede: EV is stamped later than
 * the end they prove, or is a line of the node that only a process
 * started since can write (a boot), or its crash or exit, which says it
 * instead.
 */
static const char *
dead_due(struct checker *ck, const struct trace_event *ev)
{
	struct trace_event crash;
	const char *why;
	size_t k;

	for (k = 0; k < ck->ndoom; ) {
		struct doom d = ck->doom[k];
		int i = world_find(ck->w, d.node);

		if (i < 0 || !ck->w->node[i].up || ck->w->node[i].inc > d.inc ||
		    (ev != NULL && ev->node == d.node &&
		    (ev->type == TR_CRASH || ev->type == TR_EXIT))) {
			ck->doom[k] = ck->doom[--ck->ndoom];
			continue;
		}
		if (ev != NULL && ev->t <= d.by && !(ev->node == d.node &&
		    ev->type == TR_BOOT)) {
			k++;
			continue;
		}
		ck->doom[k] = ck->doom[--ck->ndoom];
		crash_at(&crash, ev != NULL ? ev : &ck->last, d.node,
		    ev != NULL && ev->t < d.by ? ev->t : ck->w->now < d.by ?
		    ck->w->now : d.by);
		if ((why = feed(ck, &crash, 0)) != NULL)
			return why;
		k = 0;
	}
	return NULL;
}

/*
 * A Dead received at T proves its node's process gone by T on the
 * receiver's clock: by T plus the skew on the node's own, whose last
 * lines may therefore come after the Dead.  With a skew, the crash waits
 * until no line of that process can come any more (dead_due()); without
 * one, it is just before the Dead.  0, or -1 when memory ran out.
 */
static int
dead_doom(struct checker *ck, const struct trace_event *ev,
    struct trace_event *crash)
{
	uint64_t inc;
	trace_time by;
	size_t k;
	int i;

	if ((i = dead_of(ck->w, ev, &inc)) < 0)
		return 0;
	if (ck->o.skew == 0) {
		/* One clock: the Dead's line is where the crash is known. */
		crash_at(crash, ev, ck->w->node[i].id, ev->t);
		crash->have = 0;
		return 1;
	}
	by = time_add(ev->t, ck->o.skew);
	for (k = 0; k < ck->ndoom; k++)
		if (ck->doom[k].node == ck->w->node[i].id) {
			if (by < ck->doom[k].by)
				ck->doom[k].by = by;
			return 0;
		}
	if (ck->ndoom == ck->doomcap) {
		struct doom *d = array_grow(ck->doom, &ck->doomcap,
		    sizeof(*d));

		if (d == NULL)
			err(2, NULL);
		ck->doom = d;
	}
	ck->doom[ck->ndoom++] = (struct doom){ ck->w->node[i].id,
	    ck->w->node[i].inc, by };
	return 0;
}

static unsigned
set_bit(const char *set)
{
	static const char *const names[] = { "sync", "async", "lease" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(set, names[i]) == 0)
			return 1u << i;
	return 0;
}

/* SET is judged: the boots of its algorithms are not foreign. */
static void
judge(struct checker *ck, const char *set)
{
	unsigned bit = set_bit(set);

	if (bit == 0 || (ck->judge & bit))
		return;
	if (ck->judge != 0)
		strlcat(ck->judged_as, " or ", sizeof(ck->judged_as));
	strlcat(ck->judged_as, set, sizeof(ck->judged_as));
	ck->judge |= bit;
}

/* A boot under an algorithm of another set than the one judged makes
 * its node foreign until it boots under one of that set again. */
static void
boot_set(struct checker *ck, const struct trace_event *ev)
{
	const char *set;
	unsigned id = ev->node;

	if (ck->judge == 0 || id > TRACE_NODE_MAX)
		return;
	set = check_algo_set(ev->algo.p, ev->algo.n);
	if (set == NULL || (set_bit(set) & ck->judge)) {
		ck->foreign[id / 8] &= (uint8_t)~(1u << (id % 8));
		return;
	}
	ck->foreign[id / 8] |= (uint8_t)(1u << (id % 8));
	if (ck->nodd < FOREIGN_SAID) {
		ck->odd[ck->nodd].node = id;
		snprintf(ck->odd[ck->nodd].algo, sizeof(ck->odd[0].algo),
		    "%.*s", (int)ev->algo.n, ev->algo.p);
		snprintf(ck->odd[ck->nodd].at, sizeof(ck->odd[0].at), "%s:%lu",
		    ev->file, ev->lineno);
	}
	ck->nodd++;
}

static int
foreign(const struct checker *ck, unsigned id)
{
	return ck->nodd > 0 && id <= TRACE_NODE_MAX &&
	    ((ck->foreign[id / 8] >> (id % 8)) & 1);
}

const char *
checker_event(struct checker *ck, const struct trace_event *ev)
{
	struct trace_event crash;
	const char *why;

	if (ck->ndoom > 0 && (why = dead_due(ck, ev)) != NULL)
		return why;
	if (ev->type != TR_RECV)	/* no Dead: most lines */
		return feed(ck, ev, 1);
	dead_forged(ck, ev);
	/* Fed as a crash line would be, so that every assertion, the
	 * world and the lease world take it alike. */
	if (dead_doom(ck, ev, &crash) && (why = feed(ck, &crash, 0)) != NULL)
		return why;
	return feed(ck, ev, 1);
}

/* Feeds one event; LINE: it is a line of the trace, not one inferred. */
static const char *
feed(struct checker *ck, const struct trace_event *ev, int line)
{
	struct check_out *out;
	const struct call *c, *end;
	const char *why, *set;
	/* A renew name=* is every named leadership's line, none's alone,
	 * and no line of the default one. */
	int odd, calm, all = (ev->have & HAVE_ALLNAMES) != 0;
	int named = all || (ev->have & HAVE_NAME) != 0;
	long id = 0;
	size_t i;

	if (named && !all) {
		if (ck->names == NULL && (ck->names = trace_names_new()) ==
		    NULL)
			err(2, NULL);
		if ((id = trace_names_id(ck->names, ev)) == -1) {
			if (errno != 0)
				err(2, NULL);
			snprintf(ck->why, sizeof(ck->why), "%s:%lu: more than "
			    "%d names", ev->file, ev->lineno,
			    TRACE_NAME_COUNT);
			return ck->why;
		}
	}
	if (ck->events == 0 && !ck->chosen)
		start_auto(ck);
	if (ck->autoset && ev->type == TR_BOOT && (ev->have & HAVE_ALGO) &&
	    (why = choose(ck, ev)) != NULL)
		return why;
	if (ev->type == TR_BOOT && (ev->have & HAVE_ALGO))
		boot_set(ck, ev);
	/* Its boot still ends the incarnation before it, for every one. */
	odd = ev->type != TR_BOOT && foreign(ck, ev->node);
	/* Assertions named alone: the messages' bound follows the algo=. */
	if (ev->type == TR_BOOT && (ev->have & HAVE_ALGO) &&
	    ck->w->msgs.bound < 0 && (set = check_algo_set(ev->algo.p,
	    ev->algo.n)) != NULL)
		use_set(ck, set);
	if (ck->events > 0 && !ck->disorder &&
	    !msgs_due_idle(&ck->w->msgs, ck->w->n))
		msgs_due(&ck->w->msgs, ck->w, ev->t);
	if (ck->events > 0 && ev->t >= ck->w->now && ev->t >= ck->wake) {
		ck->wake = INT64_MAX;
		for (out = ck->m; out < ck->m + ck->nm; out++) {
			if (!judged(ck, out))
				continue;
			if (out->on && out->ops->advance != NULL &&
			    ((ev->t > ck->w->now && ev->t > out->wake) ||
			    ev->t == out->wake))
				out->ops->advance(out->st, ev, out);
			if (out->on && out->ops->advance != NULL &&
			    out->wake < ck->wake)
				ck->wake = out->wake;
		}
	}
	if (world_apply(ck->w, ev) == -1) {
		snprintf(ck->why, sizeof(ck->why), "%s:%lu: more than %d "
		    "nodes", ev->file, ev->lineno, WORLD_MAX_NODES);
		return ck->why;
	}
	if ((ck->w->anomaly & WA_ORDER) && !ck->disorder) {
		ck->disorder = 1;
		snprintf(ck->disorder_at, sizeof(ck->disorder_at), "%s:%lu",
		    ev->file, ev->lineno);
		replan(ck);
	}
	if (!ck->disorder && !odd &&
	    !msgs_event_idle(&ck->w->msgs, ck->w->n, ev))
		msgs_event(&ck->w->msgs, ck->w, ev);
	if (ck->model != NULL && !ck->disorder && !odd && !named)
		ck->model->event(ck->o.model, ev);
	/* The modules that said such a line is nothing to them are not
	 * called (check_calm). */
	calm = ev->type == TR_RENEW && ck->model != NULL && !ck->disorder &&
	    !odd && !named && ck->w->anomaly == 0 && ck->model->calm != NULL &&
	    ck->model->calm(ck->o.model);
	assert(ev->type < TR_NTYPES);
	c = ck->plan + ev->type * ck->nall;
	for (end = c + ck->nplan[ev->type]; c < end; c++)
		if ((!odd || shared(c->out->ops)) && !(named && c->dflt) &&
		    !(calm && ck->w->now < c->out->said.calm))
			c->event(c->st, ev, c->out);
	if (named && !all)
		lane_feed(ck, lane_get(ck, id), ev, odd);
	else if (ck->nlane > 0 && (all || !trace_leadership_line(ev)))
		for (i = 0; i < ck->nlane; i++)
			if (ck->lane[i] != NULL)
				lane_feed(ck, ck->lane[i], ev, odd);
	ck->events += line;
	/* Only what finish may use: a whole copy would cost more than the
	 * rest of the work on most lines. */
	ck->last.file = ev->file;
	ck->last.lineno = ev->lineno;
	ck->last.t = ev->t;
	ck->last.node = ev->node;
	ck->last.type = ev->type;
	return NULL;
}

const char *
checker_finish(struct checker *ck)
{
	struct check_out *out;
	const struct trace_event *last = &ck->last;
	const char *why;
	size_t i, j;

	if (ck->events == 0)
		return "empty trace: no events";
	if (ck->ndoom > 0 && (why = dead_due(ck, NULL)) != NULL)
		return why;
	if (ck->autoset && ck->set == NULL) {
		snprintf(ck->why, sizeof(ck->why), "%s: no boot line names "
		    "its algorithm (algo=): pass -s or -A to choose the "
		    "assertions", last->file);
		return ck->why;
	}
	for (out = ck->m; out < ck->m + ck->nm; out++)
		if (out->on && judged(ck, out))
			out->ops->finish(out->st, last, out);
	for (i = 0; i < ck->nlane; i++) {
		struct lane *l = ck->lane[i];

		for (j = 0; l != NULL && j < l->nm; j++)
			if (l->m[j].top->on && judged(ck, l->m[j].top))
				l->m[j].ops->finish(l->m[j].st, last,
				    &l->m[j]);
	}
	return NULL;
}

static void
list(const struct checker *ck, FILE *fp, const char *what, int which)
{
	const struct check_out *out;
	int any = 0;

	for (out = ck->m; out < ck->m + ck->nm; out++) {
		unsigned long n;
		int kind;

		if (out->on != 1)
			continue;
		n = out->violations ? out->violations : out->undecided ?
		    out->undecided : out->notjudged;
		kind = out->violations ? 1 : out->undecided ? 2 :
		    out->notjudged ? 3 : !judged(ck, out) ? 4 : 0;
		if (kind != which)
			continue;
		fprintf(fp, any ? " %s" : "%s: %s: %s", any ? out->ops->name :
		    getprogname(), what, out->ops->name);
		if (n > 0)
			fprintf(fp, " (%lu)", n);
		any = 1;
	}
	if (any)
		putc('\n', fp);
}

/* Which messages were late, and which periods they excused. */
static void
evidence_summary(const struct checker *ck, FILE *fp)
{
	const struct msgs *m = &ck->w->msgs;
	char b[32], f[32], e[32], x[32], r[96];
	size_t i;

	if (m->bound < 0)
		return;
	trace_format_time(m->bound, b, sizeof(b));
	for (i = 0; i < m->nep; i++) {
		const struct mepisode *ep = &m->ep[i];

		trace_format_time(ep->from, f, sizeof(f));
		trace_format_time(ep->to, e, sizeof(e));
		trace_format_time(ep->to + ck->o.c, x, sizeof(x));
		fprintf(fp, "%s: %lu message%s not received within %s s, "
		    "from %s to %s (first: %s): liveness excused from %s to "
		    "%s\n", getprogname(), ep->n, PLURAL(ep->n), b, f, e,
		    msgs_str(&ep->first, r, sizeof(r)), f, x);
	}
	if (m->more > 0)
		fprintf(fp, "%s: and %lu more such episode%s\n",
		    getprogname(), m->more, PLURAL(m->more));
	if (m->dropped > 0)
		fprintf(fp, "%s: %lu message%s in flight let go, beyond %d at "
		    "once\n", getprogname(), m->dropped, PLURAL(m->dropped),
		    MSGS_MAX);
}

void
checker_summary(const struct checker *ck, FILE *fp)
{
	const struct world *w = ck->w;
	char c[32], fd[32], skew[32], span[32], mb[40] = "", nn[32] = "";
	unsigned long i;

	trace_format_time(ck->o.c, c, sizeof(c));
	trace_format_time(ck->o.fd_latency, fd, sizeof(fd));
	trace_format_time(ck->o.skew, skew, sizeof(skew));
	trace_format_time(w->now - w->first, span, sizeof(span));
	if (w->msgs.bound >= 0) {
		strlcpy(mb, " msg-bound=", sizeof(mb));
		trace_format_time(w->msgs.bound, mb + strlen(mb),
		    sizeof(mb) - strlen(mb));
	}
	if (ck->names != NULL)
		snprintf(nn, sizeof(nn), ", %ld name%s",
		    trace_names_count(ck->names),
		    PLURAL(trace_names_count(ck->names)));
	fprintf(fp, "%s: %lu event%s, %u node%s%s, %s s of trace%s%s; "
	    "c=%s fd-latency=%s skew=%s%s\n", getprogname(), ck->events,
	    PLURAL(ck->events), w->n, PLURAL(w->n), nn, span,
	    ck->set ? ", checked as " : "", ck->set ? ck->set : "", c, fd,
	    skew, mb);
	list(ck, fp, "holds", 0);
	list(ck, fp, "violated", 1);
	list(ck, fp, "undecided", 2);
	list(ck, fp, "not judged where the run left the model", 3);
	if (ck->disorder) {
		char what[400];

		snprintf(what, sizeof(what), "not judged from %s on, where "
		    "lines come out of time order", ck->disorder_at);
		list(ck, fp, what, 4);
	}
	evidence_summary(ck, fp);
	for (i = 0; i < ck->nodd && i < FOREIGN_SAID; i++)
		fprintf(fp, "%s: %s: node %u booted as %s, not a %s "
		    "algorithm: only trace and the task assertions judge its "
		    "lines until it boots as one\n", getprogname(),
		    ck->odd[i].at, ck->odd[i].node, ck->odd[i].algo,
		    ck->judged_as);
	if (ck->nodd > FOREIGN_SAID)
		fprintf(fp, "%s: %lu more boots as another set's algorithm\n",
		    getprogname(), ck->nodd - FOREIGN_SAID);
	if (ck->lost > 0)
		fprintf(fp, "%s: %lu report%s before the first algo= %s not "
		    "kept\n", getprogname(), ck->lost, PLURAL(ck->lost),
		    ck->lost == 1 ? "was" : "were");
}

int
checker_tally(const struct checker *ck, size_t i, const char **name,
    unsigned long counts[3])
{
	size_t k;

	for (k = 0; k < ck->nm; k++)
		if (ck->m[k].on == 1 && i-- == 0) {
			*name = ck->m[k].ops->name;
			counts[0] = ck->m[k].violations;
			counts[1] = ck->m[k].undecided;
			counts[2] = ck->m[k].notjudged;
			return 1;
		}
	return 0;
}

int
checker_verdict(const struct checker *ck)
{
	size_t i;

	for (i = 0; i < ck->nm; i++)
		if (ck->m[i].on == 1 &&
		    (ck->m[i].violations > 0 || ck->m[i].undecided > 0 ||
		    ck->m[i].notjudged > 0 || !judged(ck, &ck->m[i])))
			return 1;
	return 0;
}

void
checker_free(struct checker *ck)
{
	size_t i;

	if (ck == NULL)
		return;
	for (i = 0; i < ck->nm; i++)
		if (ck->m[i].st != NULL)
			ck->m[i].ops->free(ck->m[i].st);
	model_free(ck);
	for (i = 0; i < ck->nlane; i++)
		lane_free(ck->lane[i]);
	free(ck->lane);
	trace_names_free(ck->names);
	for (i = 0; i < ck->nheld; i++)
		free(ck->held[i].line);
	free(ck->held);
	free(ck->doom);
	free(ck->plan);
	free(ck->m);
	world_free(ck->w);
	free(ck);
}
