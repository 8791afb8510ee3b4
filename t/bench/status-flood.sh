#!/bin/bash
# How long elect-node --status takes while root's own clients flood the
# control socket on a host with both cores busy (elect-node(1), CONTROL
# PROTOCOL).  A cluster of three lease nodes at the tests' timings, the
# leader running a guarded command; on the leader's socket CLIENTS clients
# of t/tools/ctl-flood.py mix (connect again as fast as they can: hang up at
# once, hold on idle, or ask every 0.4 s); two shell loops keep both cores
# busy; then TRIES --status in a row, each timed.  Prints how many exited
# with each code (0: leader; 3: no daemon; 6: busy), and the median, 90th
# percentile and slowest time.
#
# Environment: ELECT_BUILD (default build/plain), TRIES (50), CLIENTS (40).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${ELECT_BUILD:=$here/../../build/plain}"
PATH=$ELECT_BUILD/bin:$ELECT_BUILD/t:$PATH
. "$here/../../share/elect/elect.bash"
TRIES=${TRIES:-50} CLIENTS=${CLIENTS:-40}

top=$(mktemp -d "${TMPDIR:-/tmp}/elect-bench.XXXXXX") || exit 1
pids=() guard=
cleanup() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
	[ -n "$guard" ] && kill -- "-$guard" 2>/dev/null
	wait 2>/dev/null
	elect_teardown
	rm -rf "$top"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

elect_setup "$top/run"
p=$(freeport -n 1 -w 6) || exit 1
for i in 1 2 3; do
	echo "node $i 127.0.0.1:$((p + 2 * (i - 1)))"
done >"$top/cluster.conf"
elect_start_cluster --insecure --lease 1s --renew 200 --rtt 50 \
    --fd-interval 50 --fd-timeout 1000 "$top/cluster.conf" || exit 1
[ "$(elect_wait_leader 20)" = 3 ] || { echo "no leader 3" >&2; exit 1; }
d=$ELECT_DIR/3/state
setsid elect-node -s "$d" --run-if-leader -- sh -c \
    'while :; do sleep 0.05; done' 2>"$top/job.err" &
guard=$!
sh -c 'while :; do :; done' &
pids+=($!)
sh -c 'while :; do :; done' &
pids+=($!)
python3 "$here/../tools/ctl-flood.py" "$d/control" "$CLIENTS" 120 \
    "$top/ready" mix >"$top/flood" &
pids+=($!)
for i in $(seq 100); do
	[ -e "$top/ready" ] && break
	sleep 0.1
done
for i in $(seq "$TRIES"); do
	rc=0
	t0=$EPOCHREALTIME
	elect-node -s "$d" --status >/dev/null 2>&1 || rc=$?
	t1=$EPOCHREALTIME
	echo "$rc $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
done >"$top/tries"
awk '{ n[$1]++ } END { for (c in n) printf "exit %s: %d\n", c, n[c] }' \
    "$top/tries" | sort
sort -n -k2,2 "$top/tries" | awk '{ t[NR] = $2 } END {
	printf "tries %d: median %.3f s, p90 %.3f s, slowest %.3f s\n", NR,
	    t[int((NR + 1) / 2)], t[int(NR * 0.9)], t[NR] }'
if grep -q . "$top/job.err"; then
	echo "guarded command:"
	cat "$top/job.err"
fi
