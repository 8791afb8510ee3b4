/*
 * The Mermaid sequence diagram, for documentation: one participant per
 * node, messages as arrows (crossed when never received), the rest as
 * notes.
 */
#include <stdio.h>

#include "timeline/model.h"

/* Characters Mermaid reads as syntax go as entity codes. */
static void
esc(FILE *f, const char *s)
{
	for (; *s != '\0'; s++)
		if (*s == '<' || *s == '>' || *s == '#' || *s == ';' ||
		    *s == '&' || *s == '"' || *s == '%')
			fprintf(f, "#%d;", (unsigned char)*s);
		else
			putc(*s, f);
}

static void
message(const struct timeline *tl, const struct tl_item *it, FILE *f,
    unsigned from, unsigned to, const char *arrow)
{
	const char *s;
	size_t n, i;

	s = tl_str(tl, it, &n);
	fprintf(f, "    n%u%sn%u: ", from, arrow, to);
	for (i = 0; i < n && i < 40; i++) {
		char c[2] = { s[i] > 0x20 && s[i] < 0x7f ? s[i] : '?', 0 };

		esc(f, c);
	}
	putc('\n', f);
}

int
tl_mermaid(struct timeline *tl, FILE *f)
{
	char lbl[96];
	size_t i;

	tl_finish(tl);
	fprintf(f, "sequenceDiagram\n");
	for (i = 0; i < tl->nlanes; i++)
		fprintf(f, "    participant n%u as %u\n", tl->lanes[i],
		    tl->lanes[i]);
	for (i = 0; i < tl->nitems; i++) {
		const struct tl_item *it = &tl->items[i];
		int peer = tl_lane(tl, it->peer);

		if (it->type == TR_SEND && peer != -1) {
			message(tl, it, f, it->node, it->peer,
			    it->t2 ? "->>" : "-x");
			continue;
		}
		if (it->type == TR_RECV && peer != -1) {
			if (it->t2 == 0 || it->t2 < tl->t0)	/* sent before */
				message(tl, it, f, it->peer, it->node, "->>");
			continue;
		}
		if (it->type == TR_CLOCK)
			continue;
		tl_label(tl, it, lbl, sizeof(lbl), 1);
		if (it->type == TR_NET) {
			int a = tl_lane(tl, it->peer), b = tl_lane(tl, it->b);

			if (a == -1 && b == -1)
				continue;
			fprintf(f, "    Note over n%u,n%u: ",
			    a != -1 ? it->peer : it->b, b != -1 ? it->b :
			    it->peer);
		} else if (it->node == 0)
			continue;
		else
			fprintf(f, "    Note over n%u: ", it->node);
		esc(f, lbl);
		putc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}
