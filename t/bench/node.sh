#!/bin/bash
# elect-node failover: for each algorithm and cluster size on this host,
# the time from SIGKILL of the leader to every live node agreeing on the
# new one (median and 99th percentile, from the nodes' own trace stamps),
# and the messages each election costs (elect-trace stats), in the usual
# case (every node notices the crash at about the same time) and the
# papers' worst case (the lowest id notices, the others' detectors being
# much slower).  The target is the failure detector's time-out plus 5 ms
# (see detector below); a median over it is named, and the exit status
# is 1.
#
# Environment: ELECT_BUILD (the build), RUNS (kills per size, default 20),
# WORST_RUNS (default 5), SIZES (default "5 10 20"), ALGOS (default: all
# this build has).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${ELECT_BUILD:=$here/../../build/plain}"
PATH=$ELECT_BUILD/bin:$ELECT_BUILD/t:$PATH
. "$here/../../share/elect/elect.bash"

RUNS=${RUNS:-20}
WORST_RUNS=${WORST_RUNS:-5}
SIZES=${SIZES:-5 10 20}
ALGOS=${ALGOS:-$(elect-node --help | sed -n 's/^algorithms (-a)://p' |
    sed 's/ (default)//')}
FD_TIMEOUT=100	# ms: elect-node's default
FD_SLOW=3000	# ms: the detectors of all but the lowest id, worst case

top=$(mktemp -d "${TMPDIR:-/tmp}/elect-bench.XXXXXX") || exit 1
trap 'elect_teardown; rm -rf "$top"' EXIT
trap 'exit 130' INT TERM

# Messages that are not part of an election: the leaders' periodic checks.
periodic() {
	case $1 in
	bully) echo AreYouNormal ;;
	bully-fd | async-bully) echo 'Norm?' ;;
	invitation) echo AreYouCoordinator,AreYouThere,Answer ;;
	*) echo none ;;
	esac
}

# An elect-node timing default in ms, from its --help.
default_ms() {
	elect-node --help | sed -n "s/^  --$1 .*(\([0-9]*\)ms)\$/\1/p"
}
REPLY_MS=$(default_ms reply)
TIMEOUT_MS=$(default_ms timeout)

# The failure detector's time-out: the longest a node goes without hearing
# from its leader before it acts.  bully and invitation have procedure
# Timeout for a detector: the silence before it (invitation: elect-fd's,
# if shorter), then its AreYouThere's T.
detector() {
	case $1 in
	bully) echo $((TIMEOUT_MS + REPLY_MS)) ;;
	invitation) echo $(((FD_TIMEOUT < TIMEOUT_MS ? FD_TIMEOUT :
	    TIMEOUT_MS) + REPLY_MS)) ;;
	*) echo "$FD_TIMEOUT" ;;
	esac
}

# What the papers say a leader's crash costs in the worst case.
analysis() {
	local algo=$1 n=$2
	case $algo in
	bully) echo "9N-17 = $((9 * n - 17)): Appendix I stops at the first" \
	    "higher node that answers (M&A's N(N-1) = $((n * (n - 1))) is" \
	    "the textbook variant's)" ;;
	modified-bully) echo "O(N); 3N-4 = $((3 * n - 4)) in M&A's tables" ;;
	bully-fd) echo "3(N-2) = $((3 * (n - 2)))" ;;
	async-bully) echo "N^2+O(N): N^2 = $((n * n))" ;;
	enhanced-bully) echo "<= 2N-1 = $((2 * n - 1))" ;;
	invitation) echo "2N^2+O(N): 2N^2 = $((2 * n * n))" ;;
	*) echo "-" ;;
	esac
}

cluster() {
	local n=$1 f=$2 p i
	p=$(freeport -n 1 -w $((2 * n))) || return 1
	for ((i = 1; i <= n; i++)); do
		echo "node $i 127.0.0.1:$((p + 2 * (i - 1)))"
	done >"$f"
}

# Seconds from T0 to the last state change of the nodes that are up.
settle_time() {
	local t0=$1 id files=()
	for id in $(elect_up); do
		files+=("$ELECT_DIR/$id/trace")
	done
	awk -v t0="$t0" '$3 == "state" && $1 > t0 && $1 > last { last = $1 }
	    END { if (last) printf "%.6f\n", last - t0; else print "nan" }' \
	    "${files[@]}"
}

# median and p99 (nearest rank) of numbers on stdin, in milliseconds.
quantiles() {
	sort -g | awk '{ v[NR] = $1 * 1000 }
	    END {
		if (NR == 0) { print "- -"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		r = int(0.99 * NR); if (r < 0.99 * NR) r++
		printf "%.1f %.1f\n", m, v[r]
	    }'
}

# Messages per election caused by a crash of the leader (median, max).
crash_messages() {
	local algo=$1
	elect_merge "$ELECT_DIR/merged.trace"
	elect-trace stats --json -x "$(periodic "$algo")" \
	    "$ELECT_DIR/merged.trace" | awk '
	    /"cause":"crash"/ && /"done":true/ {
		match($0, /"messages":[0-9]+/)
		print substr($0, RSTART + 11, RLENGTH - 11)
	    }' | sort -n | awk '{ v[NR] = $1 }
	    END {
		if (NR == 0) { print "- -"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m, v[NR]
	    }'
}

# run ALGO N KILLS WORST: a cluster of N; KILLS times, kill the leader,
# wait for agreement, bring it back.  With WORST, only node 1's detector
# has the usual time-out.  Prints the failover times.
run() {
	local algo=$1 n=$2 kills=$3 worst=$4 k ldr t0 fails=0 others
	others=$FD_TIMEOUT
	[ "$worst" = 1 ] && others=$FD_SLOW
	elect_setup "$top/$algo-$n-$worst"
	cluster "$n" "$top/$algo-$n.conf" || return 1
	elect_start_cluster --insecure -a "$algo" --fd-timeout "$others" \
	    "$top/$algo-$n.conf" -- $(seq 2 "$n") >&2 || return 1
	elect_start 1 --fd-timeout "$FD_TIMEOUT" >&2 || return 1
	ldr=$(elect_wait_leader 30) || return 1
	for ((k = 0; k < kills; k++)); do
		t0=$(date +%s.%N)
		elect_kill "$ldr"
		if ! elect_wait_leader 30 >/dev/null; then
			fails=$((fails + 1))
			break
		fi
		settle_time "$t0"
		elect_start "$ldr" >&2 || return 1
		ldr=$(elect_wait_leader 30) || return 1
	done
	elect_stop_all
	return $fails
}

printf '%-15s %3s %5s %10s %10s %8s %11s %11s  %s\n' algorithm N kills \
    "median ms" "p99 ms" "target" "msgs usual" "msgs worst" \
    "worst-case analysis"
missed=0
for algo in $ALGOS; do
	for n in $SIZES; do
		run "$algo" "$n" "$RUNS" 0 >"$top/times" || {
			echo "$algo N=$n: no agreement; see $top" >&2
			trap - EXIT
			exit 1
		}
		read -r med p99 <<<"$(quantiles <"$top/times")"
		read -r usual _ <<<"$(crash_messages "$algo")"
		elect_teardown
		run "$algo" "$n" "$WORST_RUNS" 1 >/dev/null || {
			echo "$algo N=$n (worst): no agreement; see $top" >&2
			trap - EXIT
			exit 1
		}
		read -r _ worst <<<"$(crash_messages "$algo")"
		elect_teardown
		target=$(($(detector "$algo") + 5))
		printf '%-15s %3d %5d %10s %10s %8s %11s %11s  %s\n' "$algo" \
		    "$n" "$RUNS" "$med" "$p99" "$target" "$usual" \
		    "$worst" "$(analysis "$algo" "$n")"
		if awk -v m="$med" -v t="$target" 'BEGIN { exit !(m > t) }'
		then
			echo "  $algo N=$n: median over target"
			missed=1
		fi
	done
done
exit $missed
