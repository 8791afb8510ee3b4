/*
 * Text appended to a fixed buffer: what does not fit cuts the text, and
 * the caller learns it once at the end, never from a half-written line.
 */
#include <stdarg.h>
#include <stdio.h>

#include "util/util.h"

void
sbuf_put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (b->cut)
		return;
	va_start(ap, fmt);
	w = vsnprintf(b->p + b->n, b->len - b->n, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= b->len - b->n)
		b->cut = 1;
	else
		b->n += (size_t)w;
}
