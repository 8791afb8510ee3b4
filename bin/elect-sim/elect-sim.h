/* elect-sim: the deterministic simulator, its campaigns and shrinking. */
#ifndef ELECT_SIM_H
#define ELECT_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "algo/algo.h"
#include "sim/sched.h"

#define SIM_NODES	ALGO_NODES_MAX
#define SIM_EVENTS_MAX	1024

/* Faults by name (--faults); the first ones are scheduled (-r), the
 * others hold for the whole run. */
enum {
	F_CRASH = 1 << 0, F_RECOVERY = 1 << 1, F_PAUSE = 1 << 2,
	F_PARTITION = 1 << 3, F_BRIDGE = 1 << 4, F_ONEWAY = 1 << 5,
	F_LOSS = 1 << 6, F_DUP = 1 << 7, F_REORDER = 1 << 8,
	F_DELAY = 1 << 9, F_DRIFT = 1 << 10, F_OFFSET = 1 << 11,
	F_RECONFIGURE = 1 << 12, F_KILL = 1 << 13, F_MISCONF = 1 << 14,
	F_NKINDS = 15
};
#define F_SCHEDULED	(F_CRASH | F_PAUSE | F_PARTITION | F_BRIDGE | \
			    F_ONEWAY | F_RECONFIGURE | F_KILL | F_MISCONF)

/* One run, as the command line gives it. */
struct sim_conf {
	const struct algo_ops *ops;
	struct algo_timing timing;
	const char	*tset[32];		/* -t NAME=MS, as given */
	size_t		 ntset;
	uint16_t	 ids[SIM_NODES];
	size_t		 n;
	uint64_t	 seed;
	algo_time	 dur;
	algo_time	 dmin, dmax;		/* -m */
	algo_time	 lmin, lmax;		/* -l */
	algo_time	 bootspread;		/* -b */
	algo_time	 rho;			/* -D, in ppb */
	algo_time	 offmax;		/* -o */
	int		 lowest_first;		/* -L */
	int		 reorder;		/* -R */
	unsigned	 loss;			/* -x, percent */
	unsigned	 dup;			/* duplication, percent */
	unsigned	 delay;			/* delay, percent of messages */
	unsigned	 faults;		/* F_ kinds -r draws from */
	unsigned	 count;			/* -r */
	int		 oracle;		/* -O */
	int		 papers_net;		/* --table: the papers' network,
						 * without elect-node's edge */
	int		 compact;		/* --trace-level compact */
	unsigned	 names;			/* --names: named leaderships,
						 * each host asking for some */
	int		 stats;			/* -S; 2: agreement noted, not
						 * printed (struct sim_result) */
	const algo_time	*fdlat;			/* detector latency by monitor
						 * index, or NULL */
	struct sched	 ev[SIM_EVENTS_MAX];	/* -e, in order */
	size_t		 nev;
	int		 epoch0;		/* -E given */
	uint8_t		 members0[SIM_NODES];	/* -E: epoch 0's, a byte
						 * per node index */
};

/* What a run found. */
struct sim_result {
	unsigned long	 violations;		/* of the oracle */
	char		 first[256];		/* the first of them */
	unsigned long	 events, msgs;
	size_t		 edicts;		/* made, under -O */
	/* stats: the last agreement after the last fault, its leader, the
	 * messages sent since that fault and how long it took. */
	int		 agreed;
	uint16_t	 agreed_ldr;
	unsigned long	 agreed_msgs;
	algo_time	 agreed_after;
	uint64_t	 maxtok;		/* the largest token, under -O */
	int		 quiet;			/* set by the caller: no oracle lines */
	struct sched	*sched;			/* -e and -r, in order */
	size_t		 nsched;
};

/* Each trace line (no newline) as it is made. */
typedef void	(*sim_sink)(void *arg, const char *line, size_t len);

void		 sim_conf_default(struct sim_conf *);
/* Runs C; RES, if not NULL, gets the schedule too (sim_result_free). */
void		 sim_run(const struct sim_conf *c, sim_sink, void *arg,
		    struct sim_result *res);
void		 sim_result_free(struct sim_result *);
/* The faults an algorithm's model admits (elect-sim(1), FAULTS). */
unsigned	 sim_admissible(const struct algo_ops *);
/* "crash,pause" into F_ bits; -1 with the unknown name in *BAD. */
int		 sim_faults_parse(const char *, unsigned *, char *bad,
		    size_t badlen);
void		 sim_faults_format(unsigned, char *, size_t);
/* Applies the run-long faults of C->faults to C's settings. */
void		 sim_faults_apply(struct sim_conf *);

/* Whether C changes epochs (-E, a reconfigure event or fault). */
int		 sim_epochs(const struct sim_conf *);

/* The command line that replays C, quoted for sh. */
void		 sim_command(const struct sim_conf *, FILE *);

#endif

/* A run checked in-process by elect-check's assertions for its
 * algorithm (as elect-check -s SET -c C) and, for an algorithm whose
 * leadership has a deadline, the oracle. */
#define VERDICT_MAX	24

struct sim_verdict {
	int		 failed;
	/* The assertions that did not hold ("oracle" for the oracle),
	 * with their counts; notjudged: where the run left the model. */
	const char	*name[VERDICT_MAX];
	unsigned long	 count[VERDICT_MAX];
	int		 kind[VERDICT_MAX];	/* 0 violated, 1 undecided,
						 * 2 not judged */
	size_t		 n;
	char		 why[256];		/* a trace it could not read */
	double		 simsec;
};

/* The set and the bound -c the assertions use for C's algorithm. */
const char	*sim_check_set(const struct sim_conf *);
algo_time	 sim_check_c(const struct sim_conf *);
/* Runs C, checking it; violations go to OUT (NULL: nowhere), and the
 * trace to TRACE too unless NULL. */
void		 sim_check(const struct sim_conf *c, FILE *out, FILE *trace,
		    struct sim_verdict *v, struct sim_result *res);
/* "gm1,sle1": the names of V, for a line. */
void		 sim_verdict_names(const struct sim_verdict *, char *, size_t);

int		 sim_campaign(const struct sim_conf *base, unsigned given,
		    uint64_t first, unsigned long runs, int shrink);
/* Shrinks failing C into *OUT and prints its command; -1 if C does not
 * fail. */
int		 sim_shrink(const struct sim_conf *c, struct sim_conf *out,
		    int verbose);
void		 sim_conf_free(struct sim_conf *);
void		 sim_conf_copy(struct sim_conf *, const struct sim_conf *);

/* Options given on the command line, which a campaign leaves alone. */
#define G_N	0x01
#define G_DUR	0x02
#define G_M	0x04
#define G_T	0x08
#define G_E	0x10
#define G_R	0x20
#define G_F	0x40
#define G_B	0x80

/* Prints a paper's table, measured (--table NAME); the exit status. */
int		 sim_table(const char *name, int svg);
