/*
 * A node's counters, and their rendering in Prometheus' text exposition
 * format (version 0.0.4).  The daemon counts with small hooks where
 * things happen and renders on demand; metrics_render() is a pure
 * function of the counters and the time, so the same struct gives the
 * same text, in a test as in the daemon.
 *
 * Times are nanoseconds on the caller's monotonic clock (algo_time).
 */
#ifndef ELECT_METRICS_H
#define ELECT_METRICS_H

#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>

#include "algo/algo.h"

#define METRICS_REASONS_MAX	24	/* drop reasons, then "other" */
#define METRICS_REASON_LEN	24
#define METRICS_FAILOVER_BUCKETS 15
#define METRICS_RTT_BUCKETS	12
#define METRICS_TEXT_MAX	(16 * 1024)	/* the rendering fits */

struct metrics_hist {
	uint64_t	 count;
	algo_time	 sum;
	uint64_t	 le[METRICS_RTT_BUCKETS];	/* cumulative */
};

struct metrics {
	unsigned	 id;
	char		 algo[24];
	/* Leadership, as the status of the core says after every step. */
	int		 seen;		/* a first status was taken */
	int		 leading;
	algo_time	 lead_since;
	algo_time	 lead_ns;	/* past leaderships, summed */
	uint64_t	 leaderships;	/* this node came to lead */
	unsigned	 ldr;		/* the leader known, 0 for none */
	unsigned	 status;	/* trace_status */
	uint64_t	 elections;	/* into an election state */
	uint64_t	 leader_changes;	/* the known leader changed */
	uint64_t	 token;
	/* Failovers: from losing a leader to knowing the next. */
	algo_time	 lost_at;	/* 0: not leaderless after a leader */
	uint64_t	 failovers;
	struct metrics_hist failover;
	/* Datagrams refused, by reason. */
	size_t		 nreasons;
	char		 reason[METRICS_REASONS_MAX][METRICS_REASON_LEN];
	uint64_t	 drops[METRICS_REASONS_MAX + 1];	/* +1: other */
	/* Peers, set by the caller before rendering. */
	unsigned	 peers, peers_up;
	/* Peers that answer but disagree (lib/host/fit.h), and whether that
	 * stops this node from leading. */
	unsigned	 peers_mismatch;
	int		 mismatch_veto;
	/* Guarded commands. */
	uint64_t	 tasks_started, tasks_ended, tasks_told_stop;
	uint64_t	 tasks_killed;	/* SIGKILLed by their guard */
	/* Lease renewals: a Request to an Ok or Refuse from the same peer. */
	struct metrics_hist rtt;
	/* Control clients dropped for idling. */
	uint64_t	 ctl_idle_drops;
	/* Trace lines lost, set by the caller before rendering. */
	uint64_t	 trace_lost;
	/* Control clients refused a slot (err busy). */
	uint64_t	 ctl_busy;
	/* Datagrams of the node's own socket (not its detector's). */
	uint64_t	 dgrams_sent, dgrams_received;
};

void	metrics_init(struct metrics *, unsigned id, const char *algo);
/* After every step of the core, with its status then. */
void	metrics_status(struct metrics *, const struct algo_status *,
	    algo_time now);
void	metrics_drop(struct metrics *, const char *why);
void	metrics_hist_add(struct metrics_hist *, const algo_time *bounds,
	    algo_time v);
extern const algo_time metrics_failover_le[METRICS_FAILOVER_BUCKETS];
extern const algo_time metrics_rtt_le[METRICS_RTT_BUCKETS];
/* The text at NOW into OUT: its length, or -1 if it does not fit. */
int	metrics_render(const struct metrics *, algo_time now, char *out,
	    size_t len);

/* --metrics ADDR:PORT into *SS: NULL, or why it is refused. */
const char *metrics_parse_addr(const char *, struct sockaddr_storage *);

#endif
