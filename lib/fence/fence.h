/*
 * elect-fence's fence file: one "NAME TOKEN" line per leadership, each
 * name once, read strictly.  Pure: the caller reads and writes the file.
 */
#ifndef ELECT_FENCE_H
#define ELECT_FENCE_H

#include <stddef.h>

#define FENCE_NAME_MAX	64		/* bytes of a leadership's name */
#define FENCE_TEXT_MAX	(1 << 20)	/* bytes of the fence file */

/* A leadership's name: 1 to FENCE_NAME_MAX of [A-Za-z0-9._:@-]. */
int	fence_name_ok(const char *);
/*
 * TEXT, LEN bytes followed by a NUL, as the fence file: 0 if every line
 * is "NAME TOKEN" (a token of decimal digits, at most LLONG_MAX) and no
 * name is there twice, with NAME's token in *TOKEN (-1: none); -1 if
 * not.  TEXT is written to while it is read, and left as it was.
 */
int	fence_parse(char *text, size_t len, const char *name,
	    long long *token);

#endif
