#!/bin/bash
# Membership changes (Nerio 10.6) on real processes: elect-node -a lease
# at its default timings on 127.0.0.1 to 127.0.0.5, CHANGES changes (100
# by default) alternating between {1,2,3,4,5} and {2,3,4,5}: host 1 leaves
# (and is stopped once the new epoch leads), then joins again (started
# with the next file before the change).  Node 5 leads every epoch, and
# runs a guarded job (--run-if-leader --wait, again after each stop).
#
# Prints the time from `elect-node --reconfigure' to the first leader of
# the new epoch with its token (the leader's own trace stamp), median
# and 99th percentile, and how long the guarded job was stopped by each
# change (from its end line to the next one's start line): the leader's
# host stays, but its leadership ends with its epoch.  Every trace is
# certified by elect-check -s lease, and the job's runs must not overlap.
#
# Environment: ELECT_BUILD (the build), CHANGES (default 100).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${ELECT_BUILD:=$here/../../build/plain}"
PATH=$ELECT_BUILD/bin:$ELECT_BUILD/t:$PATH
. "$here/../../share/elect/elect.bash"
CHANGES=${CHANGES:-100}

top=$(mktemp -d "${TMPDIR:-/tmp}/elect-bench.XXXXXX") || exit 1
GUARD=
cleanup() {
	[ -n "$GUARD" ] && kill -KILL -- "-$GUARD" 2>/dev/null
	elect_teardown
	[ -n "${KEEP:-}" ] && echo "kept: $top" || rm -rf "$top"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

elect_setup "$top/run"
p=$(freeport -n 1 -w 10) || exit 1
at() { echo "node $1 127.0.0.$1:$((p + 2 * ($1 - 1)))"; }
# conf E: the file of epoch E: all five hosts in even epochs, not host 1
# in odd ones.
conf() {
	local f=$top/e$1.conf i
	{
		echo "epoch $1"
		for i in 1 2 3 4 5; do
			[ $(($1 % 2)) = 1 ] && [ $i = 1 ] && continue
			at $i
		done
	} >"$f"
	echo "$f"
}
export LOG=$top/job.log
: >"$LOG"
export JOB='trap "echo \"\$ELECT_TOKEN end \$EPOCHREALTIME\" >>\"\$LOG\"; exit 0" TERM
echo "$ELECT_TOKEN start $EPOCHREALTIME" >>"$LOG"
while :; do sleep 0.01; done'

elect_start_cluster --insecure "$(conf 0)" || exit 1
[ "$(elect_wait_leader 20)" = 5 ] || { echo "no leader 5"; exit 1; }
setsid bash -c 'while :; do
	elect-node -s "$1" --run-if-leader --wait -- bash -c "$JOB"
	sleep 0.01
done' _ "$ELECT_DIR/5/state" </dev/null >/dev/null 2>&1 &
GUARD=$!
disown $GUARD
for ((i = 0; i < 1000; i++)); do
	[ -s "$LOG" ] && break
	sleep 0.01
done

# lead_after FILE E: the stamp of node's first lead with its token in
# epoch E, from its trace FILE; nothing yet if none.
lead_after() {
	awk -v e="epoch=$2" '$3 == "boot" { on = $NF == e }
	on && $3 == "lead" && / token=/ { print $1; exit }' "$1"
}

: >"$top/d"
for ((e = 1; e <= CHANGES; e++)); do
	f=$(conf $e)
	if [ $((e % 2)) = 0 ]; then	# host 1 joins again
		ELECT_CLUSTER_OF[1]=$f
		elect_start 1 || exit 1
	fi
	t0=$(date +%s.%N)
	elect-node -s "$ELECT_DIR/2/state" --reconfigure "$f" >/dev/null ||
	    exit 1
	for ((i = 0; i < 1000; i++)); do
		t1=$(lead_after "$ELECT_DIR/5/trace" $e)
		[ -n "$t1" ] && break
		sleep 0.01
	done
	[ -n "$t1" ] || { echo "epoch $e: no leader"; exit 1; }
	echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' \
	    >>"$top/d"
	# The job runs again before the next change.
	for ((i = 0; i < 1000; i++)); do
		[ "$(awk 'END { print $2 }' "$LOG")" = start ] &&
		    [ "$(awk 'END { print $1 }' "$LOG")" -ge $((e << 40)) ] &&
		    break
		sleep 0.01
	done
	if [ $((e % 2)) = 1 ]; then	# host 1 left: stopped
		elect_stop 1
	fi
done
kill -KILL -- "-$GUARD" 2>/dev/null
GUARD=
ELECT_IDS=(1 2 3 4 5)
elect_stop_all
elect_check -s lease >"$top/check" 2>&1 ||
    { cat "$top/check"; echo "epoch-node: the trace is not certified"; exit 1; }
# The job: its runs in token order must not overlap; the gaps.
awk '{ if ($2 == "start") s[$1] = $3; else e[$1] = $3 }
END { for (t in s) print t, s[t], (t in e) ? e[t] : "-" }' "$LOG" |
    sort -n -k1,1 | awk '
NR > 1 && $2 <= end { print "overlap: token " $1; bad = 1 }
NR > 1 { printf "%.3f\n", ($2 - end) * 1000 > "'"$top/g"'" }
{ end = $3 }
END { exit bad }' || { echo "epoch-node: guarded jobs overlap"; exit 1; }
stat() {
	sort -n "$1" | awk -v what="$2" '{ v[n++] = $1 }
	END { printf "epoch-node: %s (%d): median %.1f ms, p99 %.1f ms, " \
	    "max %.1f ms\n", what, n, v[int(n / 2)], v[int(n * 0.99)], v[n - 1] }'
}
stat "$top/d" "--reconfigure to the first leader of the new epoch"
stat "$top/g" "guarded job stopped by a change, leader's host staying"
