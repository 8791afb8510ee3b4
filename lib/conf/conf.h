/*
 * Configuration files (elect.conf(5)): one "KEY VALUE" a line, '#' to the
 * end of a line a comment, blank lines ignored.  In a cluster file the
 * settings are "set KEY VALUE" lines among the "node" lines, which are
 * left to cluster_parse().  Pure: no I/O; the caller reads the file and
 * decides what each key means.
 */
#ifndef ELECT_CONF_H
#define ELECT_CONF_H

#include <stddef.h>

#define CONF_LINE_MAX	1024	/* bytes a line, without its newline */
#define CONF_KEY_MAX	32
#define CONF_ITEMS_MAX	64	/* settings a file, at most */

struct conf_item {
	const char	*key;		/* [a-z][a-z0-9-]* */
	const char	*value;		/* one word: printable, no blanks */
	unsigned	 line;
};

/* What EACH returns: NULL to take the item, or why it is refused. */
typedef const char *(*conf_each)(void *arg, const struct conf_item *);

#define CONF_PLAIN	0	/* every line a setting */
#define CONF_CLUSTER	1	/* "set" lines only; "node" lines skipped */

/*
 * Parses the LEN bytes of TEXT (need not be NUL-terminated) and calls
 * EACH for every setting, in order.  Returns 0, or -1 with
 * "FILE:LINE: why" in ERR (FILE only names it) at the first error: a bad
 * line, a key given twice, or a refusal by EACH.
 */
int	 conf_parse(const char *text, size_t len, const char *file, int how,
	    conf_each each, void *arg, char *err, size_t errlen);

#endif
