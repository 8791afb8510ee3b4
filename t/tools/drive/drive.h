/*
 * The transcript drivers of the cores: what the one-core tools
 * (algo-drive, guard-drive, fd-sim, testament-drive) and datadriven's
 * adapters share, so that a script line means the same to both.  Each
 * driver reads its tool's options once (start, with getopt over ARGV; a
 * new start forgets the core before), then script lines one at a time,
 * and writes what its core did to OUT.  A bad option or line stops the
 * process (exit 2), naming drive_lineno; with drive_catch set it jumps
 * there instead, its message in drive_caught.
 */
#ifndef ELECT_T_DRIVE_H
#define ELECT_T_DRIVE_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>

#include "algo/algo.h"

extern unsigned long drive_lineno;	/* of the script, for errors */
extern jmp_buf	*drive_catch;
extern char	 drive_caught[256];
/* Whether each input is echoed as "> LINE" before its output (the
 * one-core tools; datadriven has the input above its output). */
extern int	 drive_echo;

void		 drive_bad(const char *fmt, ...)
		    __attribute__((noreturn, format(printf, 1, 2)));
/* Milliseconds, up to 6 decimals, without trailing zeros. */
const char	*drive_fmt_ms(algo_time, char *buf, size_t len);
/* A whole number of MIN to MAX, or a node id; WHAT names it in errors. */
long long	 drive_num(const char *s, long long min, long long max,
		    const char *what);
unsigned	 drive_id(const char *s, const char *what);
/* A time in milliseconds, up to 6 decimals, not negative. */
algo_time	 drive_parse_ms(const char *);
/* The blank-separated fields of LINE, cut in place, at most MAX of
 * them: how many, 0 for a blank line or a comment. */
int		 drive_fields(char *line, char **argv, int max);
/* LINE's "TIME INPUT ARGS" fields, at most MAX, echoed on OUT when
 * drive_echo is set: how many, 0 for nothing to do. */
int		 drive_input(char *line, char **argv, int max, FILE *out);
/* Each line of stdin through LINE, its output on stdout. */
void		 drive_stdin(void (*line)(char *, FILE *));
/* KEY=VALUE, cut in two in place. */
void		 drive_split(char *kv, char **key, char **value);

/* algo-drive: an election core (lib/algo). */
void		 algo_drive_start(int argc, char **argv);
void		 algo_drive_line(char *line, FILE *out);
void		 algo_drive_end(void);

/* guard-drive: the guard of --run-if-leader (lib/guard). */
void		 guard_drive_start(int argc, char **argv);
void		 guard_drive_line(char *line, FILE *out);

/* fd-sim: the failure detector (lib/fd) on a clock of its own. */
void		 fd_drive_start(int argc, char **argv);
void		 fd_drive_line(char *line, FILE *out);
void		 fd_drive_end(void);

/* testament-drive: what the parser makes of BUF; 0, or 1 for an error
 * (said on OUT). */
int		 testament_drive(const char *buf, size_t len, FILE *out);

#endif
