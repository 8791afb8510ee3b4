/*
 * The SVG diagram: time across, one lane per node coloured by its status,
 * leadership as a dark bar above it, messages as arrows from send to
 * receipt, and marks for boots, crashes, exits, pauses, link changes,
 * leases, tasks and edicts.  Past DENSE messages per pixel a person can no
 * longer follow arrows: each lane then gets a band of the messages its
 * node sent per column of COL_W pixels, those never received in red.
 * Self-contained: no script, no external style or font.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline/model.h"

#define W		1200.0
#define LEFT		70.0
#define RIGHT		30.0
#define TOP		46.0
#define LANE_H		36.0
#define LANE_H_DENSE	60.0	/* room for the traffic band */
#define LEGEND_H	84.0
#define NAME_H		22.0	/* the row of a named leadership */
#define DENSE		0.25	/* messages per pixel of the plot */
#define COL_MIN		2	/* pixels a band's column covers, at least */
#define COL_MAX		12	/* and at most */
#define COL_FILL	16	/* messages a column should hold: fewer
				   make periodic traffic beat into stripes */
#define BAND_DY		16.0	/* the band, below the lane's centre */
#define BAND_H		12.0

enum band { B_NONE, B_BOOT, B_NORM, B_ELEC, B_REORG };

static const char *const band_class[] = { "", "boot", "norm", "elec",
	"reorg" };

struct open_lane {
	enum band	 band;
	trace_time	 band_t;
	int		 leading;	/* by state */
	trace_time	 lead_t;
	int		 paused;
	trace_time	 pause_t;
	int		 lease;		/* a lease bar is open */
	trace_time	 lease_t, lease_end;
	int		 grant;		/* a grant line is open */
	trace_time	 grant_t, grant_end;
	unsigned	 grant_to, grant_node;
};

struct svg {
	const struct timeline *tl;
	FILE		*f;
	double		 scale;		/* px per ns */
	double		 lane_h;
	int		 dense;		/* traffic as bands */
};

static double
x_of(const struct svg *g, trace_time t)
{
	if (t < g->tl->t0)
		t = g->tl->t0;
	if (t > g->tl->t1)
		t = g->tl->t1;
	return LEFT + (double)(t - g->tl->t0) * g->scale;
}

static double
y_of(const struct svg *g, unsigned node)
{
	return TOP + g->tl->lane_of[node] * g->lane_h + g->lane_h / 2;
}

static void
esc(FILE *f, const char *s)
{
	for (; *s != '\0'; s++)
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			putc(*s, f);
		}
}

static enum band
band(const struct lane_state *s)
{
	if (!s->up)
		return B_NONE;
	if (s->status == NO_STATUS)
		return B_BOOT;
	if (s->status == ST_NORM)
		return B_NORM;
	return s->status == ST_REORG ? B_REORG : B_ELEC;
}

static int
state_leading(const struct lane_state *s, unsigned node)
{
	return s->up && (s->status == ST_NORM || s->status == ST_REORG) &&
	    s->ldr == node;
}

static void
rect(struct svg *g, const char *cls, unsigned node, trace_time a,
    trace_time b, double dy, double h)
{
	double x = x_of(g, a), x2 = x_of(g, b);

	fprintf(g->f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" "
	    "width=\"%.1f\" height=\"%.1f\"/>\n", cls, x,
	    y_of(g, node) + dy, x2 - x < 0.5 ? 0.5 : x2 - x, h);
}

/* Closes what changed in lane NODE at time T, and opens what began. */
static void
segments(struct svg *g, struct open_lane *o, const struct lane_state *s,
    unsigned node, trace_time t, int end)
{
	enum band b = end ? B_NONE : band(s);
	int lead = end ? 0 : state_leading(s, node);
	int paused = end ? 0 : s->up && s->paused;

	if (b != o->band) {
		if (o->band != B_NONE)
			rect(g, band_class[o->band], node, o->band_t, t, -5,
			    10);
		o->band = b;
		o->band_t = t;
	}
	if (lead != o->leading) {
		if (o->leading)
			rect(g, "leader", node, o->lead_t, t, -13, 5);
		o->leading = lead;
		o->lead_t = t;
	}
	if (paused != o->paused) {
		if (o->paused)
			rect(g, "paused", node, o->pause_t, t, -7, 14);
		o->paused = paused;
		o->pause_t = t;
	}
	if (o->lease && (end || !s->up || s->lease_end <= t ||
	    t >= o->lease_end)) {
		trace_time e = o->lease_end < t ? o->lease_end : t;

		rect(g, "leader", node, o->lease_t, e, -13, 5);
		o->lease = 0;
	} else if (o->lease)
		o->lease_end = s->lease_end;	/* renewed */
	if (!o->lease && !end && s->up && s->lease_end > t) {
		o->lease = 1;
		o->lease_t = t;
		o->lease_end = s->lease_end;
	}
}

/*
 * Grants renewed every few milliseconds would be hundreds of lines: a
 * grant to the same peer that begins before the last one ends extends
 * it.  IT NULL: the end, what is open is drawn.
 */
static void
grant(struct svg *g, struct open_lane *o, const struct tl_item *it)
{
	if (o->grant && (it == NULL || it->peer != o->grant_to ||
	    it->t > o->grant_end)) {
		double y = y_of(g, o->grant_node) + 9;

		fprintf(g->f, "<line class=\"grant\" x1=\"%.1f\" "
		    "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>lease "
		    "to %u</title></line>\n", x_of(g, o->grant_t), y,
		    x_of(g, o->grant_end), y, o->grant_to);
		o->grant = 0;
	}
	if (it == NULL)
		return;
	if (!o->grant) {
		o->grant = 1;
		o->grant_t = it->t;
		o->grant_end = it->t2;
		o->grant_to = it->peer;
		o->grant_node = it->node;
	} else if (it->t2 > o->grant_end)
		o->grant_end = it->t2;
}

static void
lanes(struct svg *g, struct lane_state *st)
{
	const struct timeline *tl = g->tl;
	struct open_lane *o;
	size_t i, k;

	if ((o = calloc(tl->nlanes ? tl->nlanes : 1, sizeof(*o))) == NULL)
		return;
	for (k = 0; k < tl->nlanes; k++) {
		unsigned node = tl->lanes[k];
		double y = y_of(g, node);

		fprintf(g->f, "<g class=\"lane\" data-node=\"%u\">"
		    "<text x=\"%.1f\" y=\"%.1f\" class=\"id\">%u</text>"
		    "<line class=\"base\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\"/></g>\n", node, LEFT - 10, y + 4, node, LEFT,
		    y, W - RIGHT, y);
		segments(g, &o[k], &st[node], node, tl->t0, 0);
	}
	for (i = 0; i < tl->nitems; i++) {
		const struct tl_item *it = &tl->items[i];

		if (it->node == 0)
			continue;
		tl_apply(&st[it->node], it);
		segments(g, &o[tl->lane_of[it->node]], &st[it->node],
		    it->node, it->t, 0);
		if (it->type == TR_LEASE && it->op == OP_GRANT)
			grant(g, &o[tl->lane_of[it->node]], it);
	}
	for (k = 0; k < tl->nlanes; k++) {
		segments(g, &o[k], &st[tl->lanes[k]], tl->lanes[k], tl->t1, 1);
		grant(g, &o[k], NULL);
	}
	free(o);
}

/* A named leadership's holder while it lasts. */
struct open_name {
	unsigned	 h;		/* 0: none */
	trace_time	 a, e;
};

static double
name_y(const struct svg *g, size_t k)
{
	return TOP + g->tl->nlanes * g->lane_h + (double)k * NAME_H +
	    NAME_H / 2;
}

static void
held(struct svg *g, size_t k, const struct open_name *o, trace_time b)
{
	trace_time e = o->e < b ? o->e : b;
	double x = x_of(g, o->a), x2 = x_of(g, e);

	fprintf(g->f, "<rect class=\"held\" x=\"%.1f\" y=\"%.1f\" "
	    "width=\"%.1f\" height=\"10\"><title>", x, name_y(g, k) - 5,
	    x2 - x < 0.5 ? 0.5 : x2 - x);
	esc(g->f, tl_name(g->tl, k));
	fprintf(g->f, ": node %u</title></rect>\n", o->h);
	if (x2 - x >= 16)
		fprintf(g->f, "<text class=\"holder\" x=\"%.1f\" y=\"%.1f\">"
		    "%u</text>\n", x + 3, name_y(g, k) + 4, o->h);
}

/* Named leadership K's state changed at T (or may have). */
static void
name_at(struct svg *g, struct open_name *o, const struct name_state *x,
    size_t k, trace_time t)
{
	if (o->h != 0 && (o->h != x->holder || o->e <= t)) {
		held(g, k, o, t);
		o->h = 0;
	}
	if (x->holder != 0 && x->end > t) {
		if (o->h == 0) {
			o->h = x->holder;
			o->a = t;
		}
		o->e = x->end;
	}
}

/* A row per named leadership below the lanes: who holds it, when. */
static void
name_rows(struct svg *g)
{
	const struct timeline *tl = g->tl;
	struct name_state *ns;
	struct open_name *o;
	size_t i, k;

	if (tl->nnames == 0)
		return;
	if ((ns = tl_replay_names(tl)) == NULL)
		return;
	if ((o = calloc(tl->nnames, sizeof(*o))) == NULL) {
		free(ns);
		return;
	}
	for (k = 0; k < tl->nnames; k++) {
		double y = name_y(g, k);

		fprintf(g->f, "<g class=\"name\"><text x=\"4\" y=\"%.1f\" "
		    "class=\"name\" textLength=\"%.0f\" "
		    "lengthAdjust=\"spacingAndGlyphs\">", y + 4,
		    strlen(tl_name(tl, k)) > 10 ? LEFT - 10 : 6.0 *
		    (double)strlen(tl_name(tl, k)));
		esc(g->f, tl_name(tl, k));
		fprintf(g->f, "</text><line class=\"base\" x1=\"%.1f\" "
		    "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/></g>\n", LEFT, y,
		    W - RIGHT, y);
		name_at(g, &o[k], &ns[k], k, tl->t0);
	}
	for (i = 0; i < tl->nitems; i++) {
		const struct tl_item *it = &tl->items[i];

		tl_apply_names(ns, tl->nnames, it);
		if (it->name != 0 && it->name != TL_ALLNAMES)
			name_at(g, &o[it->name - 1], &ns[it->name - 1],
			    (size_t)it->name - 1, it->t);
		else if (it->name == TL_ALLNAMES || it->type == TR_BOOT ||
		    it->type == TR_CRASH || it->type == TR_EXIT)
			for (k = 0; k < tl->nnames; k++)
				name_at(g, &o[k], &ns[k], k, it->t);
	}
	for (k = 0; k < tl->nnames; k++)
		if (o[k].h != 0)
			held(g, k, &o[k], tl->t1);
	free(o);
	free(ns);
}

/* Whether IT is a message drawn: both ends have lanes. */
static int
message(const struct timeline *tl, const struct tl_item *it)
{
	return (it->type == TR_SEND || it->type == TR_RECV) &&
	    tl_lane(tl, it->peer) != -1;
}

static int
cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* The count a full bar stands for: the 95th percentile of the columns
 * that hold any, so that one burst does not flatten the rest. */
static unsigned
full_bar(const unsigned *sent, size_t n)
{
	unsigned *v, full = 1;
	size_t i, k = 0;

	if ((v = reallocarray(NULL, n ? n : 1, sizeof(*v))) == NULL)
		return 1;
	for (i = 0; i < n; i++)
		if (sent[i] > 0)
			v[k++] = sent[i];
	if (k > 0) {
		qsort(v, k, sizeof(*v), cmp_unsigned);
		full = v[(k - 1) * 95 / 100];
	}
	free(v);
	return full;
}

/*
 * The messages each node sent, per column: a bar whose height grows with
 * the count (square root, so that a trickle stays visible beside a
 * leader's renewals), red for the share never received.  Columns are
 * wide enough to hold COL_FILL messages of the busiest node.
 */
static void
bands(struct svg *g)
{
	const struct timeline *tl = g->tl;
	unsigned *sent, *lost, max, busiest = 1;
	unsigned long tsent, tlost;
	size_t ncol, i, k, c;
	int col_w;

	if ((sent = calloc(tl->nlanes + 1, sizeof(*sent))) == NULL)
		return;
	for (i = 0; i < tl->nitems; i++)
		if (tl->items[i].type == TR_SEND && message(tl, &tl->items[i]) &&
		    ++sent[tl->lane_of[tl->items[i].node]] > busiest)
			busiest = sent[tl->lane_of[tl->items[i].node]];
	free(sent);
	col_w = (int)ceil(COL_FILL * (W - LEFT - RIGHT) / busiest);
	col_w = col_w < COL_MIN ? COL_MIN : col_w > COL_MAX ? COL_MAX : col_w;
	ncol = (size_t)((W - LEFT - RIGHT) / col_w) + 1;
	if ((sent = calloc(tl->nlanes * ncol + 1, sizeof(*sent))) == NULL ||
	    (lost = calloc(tl->nlanes * ncol + 1, sizeof(*lost))) == NULL) {
		free(sent);
		return;
	}
	for (i = 0; i < tl->nitems; i++) {
		const struct tl_item *it = &tl->items[i];

		if (it->type != TR_SEND || !message(tl, it))
			continue;
		c = (size_t)((x_of(g, it->t) - LEFT) / col_w);
		k = (size_t)tl->lane_of[it->node] * ncol + (c < ncol ? c :
		    ncol - 1);
		sent[k]++;
		if (it->t2 == 0)
			lost[k]++;
	}
	max = full_bar(sent, tl->nlanes * ncol);
	for (k = 0; k < tl->nlanes; k++) {
		double y = y_of(g, tl->lanes[k]) + BAND_DY;

		tsent = tlost = 0;
		for (c = 0; c < ncol; c++) {
			tsent += sent[k * ncol + c];
			tlost += lost[k * ncol + c];
		}
		fprintf(g->f, "<g class=\"traffic\" data-node=\"%u\" "
		    "data-sent=\"%lu\" data-lost=\"%lu\"><title>%u sent %lu "
		    "messages, %lu never received</title>\n<rect class=\"bandbg\" "
		    "x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
		    tl->lanes[k], tsent, tlost, tl->lanes[k], tsent, tlost,
		    LEFT, y, W - LEFT - RIGHT, BAND_H);
		for (c = 0; c < ncol; c++) {
			unsigned n = sent[k * ncol + c], l = lost[k * ncol + c];
			double h, hl;
			int w;

			if (n == 0)
				continue;
			if (LEFT + (double)(c + 1) * col_w > W - RIGHT)
				w = (int)(W - RIGHT - LEFT) - (int)c * col_w;
			else
				w = col_w;
			h = n >= max ? BAND_H : BAND_H * sqrt((double)n /
			    max);
			if (h < 1.5)
				h = 1.5;
			fprintf(g->f, "<rect class=\"sent\" x=\"%.1f\" "
			    "y=\"%.1f\" width=\"%d\" height=\"%.1f\"/>", LEFT +
			    (double)c * col_w, y + BAND_H - h, w, h);
			if (l > 0) {
				hl = h * l / n < 2 ? 2 : h * l / n;
				fprintf(g->f, "<rect class=\"unrecv\" "
				    "x=\"%.1f\" y=\"%.1f\" width=\"%d\" "
				    "height=\"%.1f\"/>", LEFT + (double)c *
				    col_w, y + BAND_H - hl, w, hl);
			}
		}
		fprintf(g->f, "</g>\n");
	}
	free(sent);
	free(lost);
}

static void
arrows(struct svg *g)
{
	const struct timeline *tl = g->tl;
	char lbl[96], ts[32];
	size_t i;

	for (i = 0; i < tl->nitems; i++) {
		const struct tl_item *it = &tl->items[i];
		double x1, y1, x2, y2;

		if (!message(tl, it))
			continue;
		tl_label(tl, it, lbl, sizeof(lbl), 1);
		tl_offset(tl, it->t, ts, sizeof(ts));
		if (it->type == TR_RECV) {
			if (it->t2 != 0 && it->t2 >= tl->t0)
				continue;	/* drawn with its send */
			/* sent before the window */
			x2 = x_of(g, it->t);
			y2 = y_of(g, it->node);
			y1 = y_of(g, it->peer);
			fprintf(g->f, "<line class=\"orphan\" x1=\"%.1f\" "
			    "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>",
			    x2 - 12, y2 + (y1 - y2) * 0.3, x2, y2);
			esc(g->f, lbl);
			fprintf(g->f, " at %s</title></line>\n", ts);
			continue;
		}
		x1 = x_of(g, it->t);
		y1 = y_of(g, it->node);
		y2 = y_of(g, it->peer);
		if (it->t2 != 0) {
			x2 = x_of(g, it->t2);
			fprintf(g->f, "<line class=\"msg\" ");
		} else {
			x2 = x1 + 8;
			y2 = y1 + (y2 - y1) * 0.4;
			fprintf(g->f, "<line class=\"msg lost\" ");
		}
		fprintf(g->f, "x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">"
		    "<title>%u: ", x1, y1, x2, y2, it->node);
		esc(g->f, lbl);
		fprintf(g->f, " at %s%s</title></line>\n", ts,
		    it->t2 ? "" : ", never received");
	}
}

static void
marks(struct svg *g)
{
	const struct timeline *tl = g->tl;
	char lbl[96], ts[32];
	size_t i;

	for (i = 0; i < tl->nitems; i++) {
		const struct tl_item *it = &tl->items[i];
		double x = x_of(g, it->t), y, y2;
		const char *shape;

		if (it->type == TR_NET) {
			int a = tl_lane(tl, it->peer), b = tl_lane(tl, it->b);

			y = a == -1 ? TOP : y_of(g, it->peer);
			y2 = b == -1 ? TOP + tl->nlanes * g->lane_h :
			    y_of(g, it->b);
			tl_label(tl, it, lbl, sizeof(lbl), 1);
			fprintf(g->f, "<line class=\"net %s\" x1=\"%.1f\" "
			    "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>%s"
			    "</title></line>\n", it->op == LINK_UP ? "up" :
			    it->op == LINK_DOWN ? "down" : "flaky", x, y, x, y2,
			    lbl);
			continue;
		}
		if (it->node == 0)
			continue;
		y = y_of(g, it->node);
		switch (it->type) {
		case TR_CRASH:
			shape = "<path class=\"crash\" d=\"M%.1f %.1fl10 10m0 "
			    "-10l-10 10\">";
			x -= 5;
			y -= 5;
			break;
		case TR_BOOT:
			shape = "<path class=\"bootm\" d=\"M%.1f %.1fl8 6l-8 "
			    "6z\">";
			y -= 6;
			break;
		case TR_EXIT:
			shape = "<path class=\"exit\" d=\"M%.1f %.1fh8v8h-8z\">";
			x -= 4;
			y -= 4;
			break;
		case TR_FD:
			if (it->op != OP_DOWN)
				continue;
			shape = "<path class=\"down\" d=\"M%.1f %.1fl4 4l-4 "
			    "4l-4 -4z\">";
			y += 6;
			break;
		case TR_DROP:
		case TR_LOST:
			shape = "<path class=\"loss\" d=\"M%.1f %.1fl5 9h-10z\">";
			y -= 16;
			break;
		case TR_TASK:
			shape = "<path class=\"task\" d=\"M%.1f %.1fh6v6h-6z\">";
			y += 8;
			break;
		case TR_EDICT:
		case TR_DELIVER:
			shape = "<path class=\"edict\" d=\"M%.1f %.1fl3 -6l3 "
			    "6z\">";
			y += 14;
			break;
		default:
			continue;
		}
		tl_label(tl, it, lbl, sizeof(lbl), 1);
		tl_offset(tl, it->t, ts, sizeof(ts));
		fprintf(g->f, shape, x, y);
		fprintf(g->f, "<title>%u: ", it->node);
		esc(g->f, lbl);
		fprintf(g->f, " at %s</title></path>\n", ts);
	}
}

/* Ticks at 1, 2 or 5 times a power of ten, about ten across. */
static void
axis(struct svg *g)
{
	const struct timeline *tl = g->tl;
	double span = (double)(tl->t1 - tl->t0) / TRACE_NS, step, p, t;
	char head[32];
	int decimals;

	trace_format_time(tl->t0, head, sizeof(head));
	fprintf(g->f, "<text class=\"title\" x=\"%.1f\" y=\"16\">seconds "
	    "after %s</text>\n", LEFT, head);
	if (span <= 0)
		return;
	p = pow(10, floor(log10(span / 10)));
	step = span / 10 / p < 2 ? p : span / 10 / p < 5 ? 2 * p : 5 * p;
	decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
	for (t = 0; t <= span * (1 + 1e-9); t += step) {
		double x = LEFT + t * TRACE_NS * g->scale;

		fprintf(g->f, "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" "
		    "x2=\"%.1f\" y2=\"%.1f\"/><text class=\"tick\" x=\"%.1f\" "
		    "y=\"%.1f\">%.*f</text>\n", x, TOP - 10, x,
		    TOP + tl->nlanes * g->lane_h + (double)tl->nnames * NAME_H,
		    x, TOP - 14, decimals, t);
	}
}

static void
legend(struct svg *g)
{
	static const struct {
		const char *cls, *what;
		int line;
	} key[] = {
		{ "norm", "Norm", 0 }, { "elec", "electing", 0 },
		{ "reorg", "Reorg", 0 }, { "boot", "no status", 0 },
		{ "paused", "paused", 0 }, { "leader", "leader", 0 },
		{ "msg", "message", 1 }, { "msg lost", "not received", 1 },
		{ "grant", "lease granted", 1 }, { "net down", "link change", 1 },
		{ "sent", "messages sent", 0 }, { "unrecv", "never received", 0 },
	};
	static const struct {
		const char *d, *what;
		double dy;
	} mark[] = {
		{ "l8 6l-8 6z", "boot", 0 },
		{ "l10 10m0 -10l-10 10", "crash", 0 },
		{ "h8v8h-8z", "exit", 0 }, { "l4 4l-4 4l-4 -4z", "DownSig", 0 },
		{ "l5 9h-10z", "drop, lost lines", 0 },
		{ "h6v6h-6z", "task", 2 }, { "l3 -6l3 6z", "edict", 8 },
	};
	static const char *const mark_cls[] = { "bootm", "crash", "exit",
	    "down", "loss", "task", "edict" };
	double y0 = TOP + g->tl->nlanes * g->lane_h +
	    (double)g->tl->nnames * NAME_H + 24, x, y;
	size_t i;

	fprintf(g->f, "<g class=\"legend\">\n");
	for (i = 0; i < sizeof(key) / sizeof(key[0]); i++) {
		if (!g->dense && (strcmp(key[i].cls, "sent") == 0 ||
		    strcmp(key[i].cls, "unrecv") == 0))
			continue;	/* no bands drawn */
		x = LEFT + (double)(i % 5) * 120;
		y = y0 + (double)(i / 5) * 20;
		if (key[i].line)
			fprintf(g->f, "<line class=\"key %s\" x1=\"%.1f\" "
			    "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", key[i].cls,
			    x, y, x + 18, y);
		else
			fprintf(g->f, "<rect class=\"key %s\" x=\"%.1f\" "
			    "y=\"%.1f\" width=\"18\" height=\"10\"/>",
			    key[i].cls, x, y - 5);
		fprintf(g->f, "<text class=\"key\" x=\"%.1f\" y=\"%.1f\">%s"
		    "</text>\n", x + 24, y + 4, key[i].what);
	}
	y = y0 + 60;
	for (i = 0; i < sizeof(mark) / sizeof(mark[0]); i++) {
		x = LEFT + (double)i * 120;
		fprintf(g->f, "<path class=\"key %s\" d=\"M%.1f %.1f%s\"/>"
		    "<text class=\"key\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
		    mark_cls[i], x + 4, y - 5 + mark[i].dy, mark[i].d, x + 24,
		    y + 4,
		    mark[i].what);
	}
	fprintf(g->f, "</g>\n");
}

static const char style[] =
    "<style>\n"
    "text{font:11px sans-serif;fill:#222}\n"
    ".id{text-anchor:end;font-weight:bold}\n"
    ".tick{stroke:#ddd;text-anchor:middle;fill:#666}\n"
    "text.tick{stroke:none}\n"
    ".base{stroke:#bbb;stroke-width:1}\n"
    ".norm{fill:#8fd694}.elec{fill:#f6c344}.reorg{fill:#8ecae6}"
    ".boot{fill:#c9c9c9}\n"
    ".leader{fill:#1d3557}\n"
    ".paused{fill:url(#hatch);stroke:#555;stroke-width:0.5}\n"
    ".msg{stroke:#555;stroke-width:1;marker-end:url(#arrow)}\n"
    ".lost{stroke:#c1121f;stroke-dasharray:3 2}\n"
    ".orphan{stroke:#999;stroke-width:1;marker-end:url(#arrow)}\n"
    ".grant{stroke:#e76f51;stroke-width:2}\n"
    ".net{stroke-width:2;stroke-dasharray:6 3}.net.up{stroke:#2a9d8f}"
    ".net.down{stroke:#c1121f}.net.flaky{stroke:#f4a261}\n"
    ".crash{stroke:#c1121f;stroke-width:2.5;fill:none}"
    ".bootm{fill:#2a9d8f}.exit{fill:#222}.down{fill:#7b2cbf}"
    ".loss{fill:#f77f00}.task{fill:#6a4c93}.edict{fill:#457b9d}\n"
    ".bandbg{fill:#f4f4f4}.sent{fill:#6c757d}.unrecv{fill:#c1121f}\n"
    ".held{fill:#1d3557}.holder{fill:#fff;font-size:9px}\n"
    "</style>\n"
    "<defs>\n"
    "<marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
    "markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\">"
    "<path d=\"M0 0L10 5L0 10z\" fill=\"#555\"/></marker>\n"
    "<pattern id=\"hatch\" width=\"6\" height=\"6\" "
    "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
    "<rect width=\"6\" height=\"6\" fill=\"#eee\"/>"
    "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#555\" "
    "stroke-width=\"2\"/></pattern>\n"
    "</defs>\n";

int
tl_svg(struct timeline *tl, FILE *f)
{
	struct svg g = { tl, f, 0, LANE_H, 0 };
	struct lane_state *st;
	size_t i, nmsg = 0;
	double h;

	tl_finish(tl);
	if ((st = tl_replay(tl)) == NULL)
		return -1;
	g.scale = (W - LEFT - RIGHT) / (double)(tl->t1 > tl->t0 ?
	    tl->t1 - tl->t0 : TRACE_NS);
	for (i = 0; i < tl->nitems; i++)
		if (tl->items[i].type == TR_SEND && message(tl, &tl->items[i]))
			nmsg++;
	if (nmsg > DENSE * (W - LEFT - RIGHT)) {
		g.dense = 1;
		g.lane_h = LANE_H_DENSE;
	}
	h = TOP + tl->nlanes * g.lane_h + (double)tl->nnames * NAME_H +
	    LEGEND_H + 40;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
	    "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
	    "<title>elect trace: %zu nodes, %zu events</title>\n%s"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
	    W, h, W, h, tl->nlanes, tl->nitems, style);
	axis(&g);
	lanes(&g, st);
	name_rows(&g);
	if (g.dense)
		bands(&g);
	else
		arrows(&g);
	marks(&g);
	legend(&g);
	fprintf(f, "</svg>\n");
	free(st);
	return ferror(f) ? -1 : 0;
}
