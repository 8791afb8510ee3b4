/* elect-trace: one entry point per subcommand. */
#ifndef ELECT_TRACE_CMD_H
#define ELECT_TRACE_CMD_H

int	cmd_collect(int, char *[]);
int	cmd_merge(int, char *[]);
int	cmd_stats(int, char *[]);
int	cmd_timeline(int, char *[]);

struct merge;

/* Exits 2 with the error of M ("FILE:LINE: why"), M freed first. */
void	input_error(struct merge *m) __attribute__((noreturn));
/* Prints the usage of SUB (NULL: all) on stdout or stderr and exits. */
void	usage(const char *sub, int status) __attribute__((noreturn));

#endif
