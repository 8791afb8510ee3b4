/*
 * The text diagram: one column per node, one row per event, time flowing
 * down; each lane shows its node's state between events.  A column per
 * named leadership follows, showing the node that holds it.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline/model.h"

#define WIDTH		80
#define TIME_W		10	/* seconds since the start, 6 decimals */
#define LANE_MIN	4
#define LANE_MAX	12

static char
lane_char(const struct lane_state *s, unsigned node, trace_time t)
{
	if (!s->up)
		return ' ';
	if (s->paused)
		return 'z';
	if (tl_leading(s, node, t))
		return '#';
	if (s->status == NO_STATUS)
		return '.';
	return s->status == ST_NORM ? '|' : ':';
}

int
tl_text(struct timeline *tl, FILE *f)
{
	struct lane_state *st;
	struct name_state *ns;
	/* The widest row: every lane LANE_MIN wide, the last lane's label
	 * a 5-digit id. */
	char row[TIME_W + 1 + LANE_MIN * TL_TEXT_LANES_MAX + sizeof("65535")],
	    lbl[64], ts[32], head[32];
	size_t i, k, w, nodes = tl->nlanes, lanes = tl->nlanes + tl->nnames;

	_Static_assert(WIDTH - TIME_W - 1 <= LANE_MIN * TL_TEXT_LANES_MAX,
	    "lanes wider than LANE_MIN only while they fit in WIDTH");
	_Static_assert(TRACE_NODE_MAX <= 65535, "a lane's label");
	/* A row, at most sizeof(row), is then bounded by the trace line it
	 * draws times a constant. */
	assert(lanes <= TL_TEXT_LANES_MAX);
	tl_finish(tl);
	if ((st = tl_replay(tl)) == NULL)
		return -1;
	if ((ns = tl_replay_names(tl)) == NULL) {
		free(st);
		return -1;
	}
	w = lanes > 0 ? (WIDTH - TIME_W - 1) / lanes : LANE_MAX;
	if (w < LANE_MIN)
		w = LANE_MIN;
	if (w > LANE_MAX)
		w = LANE_MAX;
	assert(lanes * w <= LANE_MIN * TL_TEXT_LANES_MAX);
	trace_format_time(tl->t0, head, sizeof(head));
	fprintf(f, "# time 0 is %s\n"
	    "# lanes: | up, # leader, : electing, . no state yet, z paused\n",
	    head);
	if (tl->nnames > 0)
		fprintf(f, "# a lane per name after the nodes': the node that "
		    "holds it by a lease\n");
	memset(row, ' ', sizeof(row));
	memcpy(row + TIME_W - 4, "time", 4);
	for (k = 0; k < lanes; k++) {
		int n = k < nodes ? snprintf(lbl, sizeof(lbl), "%u",
		    tl->lanes[k]) : snprintf(lbl, w, "%s", tl_name(tl,
		    k - nodes));

		if ((size_t)n >= sizeof(lbl) || (k >= nodes && (size_t)n >= w))
			n = (int)strlen(lbl);
		memcpy(row + TIME_W + 1 + k * w, lbl, (size_t)n);
	}
	fprintf(f, "%.*s\n", (int)(TIME_W + 1 + (lanes ? (lanes - 1) * w +
	    strlen(lbl) : 0)), row);
	for (i = 0; i < tl->nitems; i++) {
		const struct tl_item *it = &tl->items[i];
		size_t end = 0, n;
		int lane;

		if (it->node != 0)
			tl_apply(&st[it->node], it);
		tl_apply_names(ns, tl->nnames, it);
		tl_offset(tl, it->t, ts, sizeof(ts));
		n = (size_t)snprintf(row, sizeof(row), "%*s ", TIME_W, ts);
		if (it->node == 0) {
			tl_label(tl, it, lbl, sizeof(lbl), 0);
			fprintf(f, "%s ~ %s\n", row, lbl);
			continue;
		}
		lane = tl->lane_of[it->node];
		for (k = 0; k < lanes; k++) {
			unsigned node = k < nodes ? tl->lanes[k] : 0, h;
			char *cell = row + n + k * w;

			memset(cell, ' ', w);
			if (k >= nodes) {
				if ((h = tl_holder(&ns[k - nodes], it->t)) != 0) {
					int m = snprintf(lbl, w, "%u", h);

					m = (size_t)m >= w ? (int)w - 1 : m;
					memcpy(cell, lbl, (size_t)m);
					end = n + k * w + (size_t)m;
				}
			} else if ((int)k == lane) {
				size_t len = (size_t)tl_label(tl, it, lbl, w, 0);

				memcpy(cell, lbl, len);
				end = n + k * w + len;
			} else if ((cell[0] = lane_char(&st[node], node,
			    it->t)) != ' ')
				end = n + k * w + 1;
		}
		fprintf(f, "%.*s\n", (int)end, row);
	}
	free(st);
	free(ns);
	return ferror(f) ? -1 : 0;
}
