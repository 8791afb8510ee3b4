#!/bin/bash
# The trace a lease cluster writes at the defaults, per node and day:
# three nodes on 127.0.0.1, .2 and .3 with a cluster key, each with a
# --run-if-leader guard whose command runs on the leader, left alone for
# VOLUME_SECONDS (default 300) at each trace level (elect-node(1),
# --trace-level); the bytes each trace file grew by in that time, as MB a
# day, for the leader and its followers, and whether elect-check
# certifies the merged trace.  Target: under 200 MB a day per node at the
# compact level, the default.
set -u
: "${ELECT_BUILD:?set ELECT_BUILD to a build directory}"
PATH=$ELECT_BUILD/bin:$ELECT_BUILD/t:$PATH
secs=${VOLUME_SECONDS:-300}
top=$(mktemp -d "${TMPDIR:-/tmp}/elect-volume.XXXXXX") || exit 1
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -KILL -- "-$p" 2>/dev/null
	done
	rm -rf "$top"
}
trap cleanup EXIT INT TERM

size() { stat -c %s "$1" 2>/dev/null || echo 0; }

# run LEVEL: one sitting at that level; prints "LEVEL ROLE MB/day" lines.
run() {
	local lvl=$1 d=$top/$1 p i k t0 t1 ldr rc=0
	local -A b0=()
	mkdir -p "$d"
	p=$(freeport -n 1 -w 6) || return 1
	for i in 1 2 3; do
		echo "node $i 127.0.0.$i:$((p + 2 * (i - 1)))"
	done >"$d/cluster"
	elect-node --gen-key "$d/key" >/dev/null || return 1
	for i in 1 2 3; do
		mkdir -p "$d/$i"
		setsid elect-node -f "$d/cluster" -i "$i" -k "$d/key" \
		    -s "$d/$i/state" -t "$d/$i/trace" --trace-level "$lvl" \
		    </dev/null >"$d/$i/out" 2>&1 &
		PIDS+=($!)
	done
	for i in 1 2 3; do
		for ((k = 0; k < 500; k++)); do
			[ -S "$d/$i/state/control" ] && break
			sleep 0.02
		done
		setsid elect-node -s "$d/$i/state" -k "$d/key" --run-if-leader \
		    --wait -t "$d/$i/task.trace" -- sleep 100000 \
		    </dev/null >/dev/null 2>&1 &
		PIDS+=($!)
	done
	# Past the election: the steady state is what is measured.
	sleep 2
	for i in 1 2 3; do
		b0[$i]=$(size "$d/$i/trace")
	done
	t0=$(date +%s.%N)
	sleep "$secs"
	t1=$(date +%s.%N)
	ldr=$(elect-node -s "$d/1/state" --status 2>/dev/null |
	    sed -n 's/.* leader=\([0-9]*\) .*/\1/p')
	for i in 1 2 3; do
		awk -v b="$(( $(size "$d/$i/trace") - ${b0[$i]} ))" \
		    -v t="$(echo "$t1 - $t0" | bc)" -v lvl="$lvl" \
		    -v role="$([ "$i" = "$ldr" ] && echo leader || echo follower)" \
		    -v id="$i" 'BEGIN { printf "%-8s node %s %-9s %9.1f MB/day\n",
			lvl, id, role, b / t * 86400 / 1e6 }'
	done
	for p in "${PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		for ((k = 0; k < 250; k++)); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.02
		done
	done
	PIDS=()
	elect-trace merge "$d"/*/trace "$d"/*/task.trace >"$d/merged" &&
	    elect-check -s lease "$d/merged" >/dev/null 2>&1 || rc=$?
	echo "$lvl elect-check exit $rc"
}

run full
run compact
