/* The command protocol of elect-fd: one strict, pure line parser. */
#include <string.h>

#include "fd/fd.h"
#include "trace/trace.h"

static const char *const op_names[] = {
	[FD_OP_START] = "start",
	[FD_OP_STOP] = "stop",
	[FD_OP_PLAYDEAD] = "playdead",
	[FD_OP_PLAYALIVE] = "playalive",
	[FD_OP_ALIVE] = "alive",
};

const char *
fd_op_name(enum fd_op op)
{
	return op_names[op];
}

static int
blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* The next word of LINE from *I, skipping blanks; 0 at the end. */
static size_t
word(const char *line, size_t len, size_t *i, const char **w)
{
	size_t n;

	while (*i < len && blank(line[*i]))
		(*i)++;
	*w = line + *i;
	for (n = 0; *i < len && !blank(line[*i]); n++)
		(*i)++;
	return n;
}

int
fd_cmd_parse(const char *line, size_t len, struct fd_cmd *c, const char **why)
{
	const char *w;
	size_t i = 0, n, op;

	if (len > FD_CMD_LINE_MAX) {
		*why = "line too long";
		return -1;
	}
	for (n = 0; n < len; n++)
		if ((unsigned char)line[n] < 0x20 && !blank(line[n])) {
			*why = "control character";
			return -1;
		}
	if ((n = word(line, len, &i, &w)) == 0)
		return 0;
	for (op = 0; op < sizeof(op_names) / sizeof(op_names[0]); op++)
		if (strlen(op_names[op]) == n && memcmp(w, op_names[op], n) == 0)
			break;
	if (op == sizeof(op_names) / sizeof(op_names[0])) {
		*why = "unknown command (start, stop, playdead, playalive, alive)";
		return -1;
	}
	c->op = (enum fd_op)op;
	for (c->n = 0; (n = word(line, len, &i, &w)) > 0; c->n++) {
		if (c->n == FD_CMD_IDS_MAX) {
			*why = "too many ids";
			return -1;
		}
		if (trace_parse_id(w, n, &c->ids[c->n]) == -1 ||
		    c->ids[c->n] == 0) {
			*why = "not a node id (1 to 65535)";
			return -1;
		}
	}
	if ((c->op == FD_OP_START || c->op == FD_OP_STOP ||
	    c->op == FD_OP_ALIVE) && c->n != 1) {
		*why = c->n == 0 ? "missing node id" : "one node id only";
		return -1;
	}
	return 1;
}
