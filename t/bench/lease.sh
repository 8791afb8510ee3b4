#!/bin/bash
# lease and --run-if-leader, on this host, at the default timing:
#
#  1. failover: SIGKILL of the leader's daemon, until a guarded command
#     runs on another node (the new --run-if-leader's task op=start line),
#     median and 99th percentile; and the same after SIGTERM (handover);
#  2. the same measure for etcdctl lock against a three-member etcd
#     cluster on 127.0.0.1 with the smallest lease TTL etcd accepts (1 s,
#     with heartbeats of 10 ms), when etcd and etcdctl are installed;
#  3. overlap: leader changes by SIGKILL, SIGSTOP past the lease and
#     partitions (network namespaces, root only), every guarded command
#     appending its start and end to one file: the number of overlaps,
#     from the commands' own lines and from the task lines.
#
# Environment: ELECT_BUILD (the build), RUNS (failovers of each kind,
# default 100; 0 leaves parts 1 and 2 out), CHANGES (leader changes for
# the overlap count, default 1000; 0 leaves part 3 out), ETCD=no (leaves
# part 2 out), KEEP=yes (keeps the data, and says where).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${ELECT_BUILD:=$here/../../build/plain}"
PATH=$ELECT_BUILD/bin:$ELECT_BUILD/t:$PATH
. "$here/../../share/elect/elect.bash"

RUNS=${RUNS:-100}
CHANGES=${CHANGES:-1000}
GRACE=25	# ms: fits the default lease (80 ms, renewed every 20)

top=$(mktemp -d "${TMPDIR:-/tmp}/elect-bench.XXXXXX") || exit 1
LOOPS=() ETCDS=()
cleanup() {
	local p
	for p in "${LOOPS[@]}"; do
		kill -KILL -- "-$p" 2>/dev/null
	done
	for p in "${ETCDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	[ -f "$top/etcdjobs" ] && pkill_jobs "$top/etcdjobs"
	elect_teardown
	if [ "${KEEP:-no}" = yes ]; then
		echo "data kept in $top" >&2
	else
		rm -rf "$top"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cluster() {
	local n=$1 f=$2 p i
	p=$(freeport -n 1 -w $((2 * n))) || return 1
	for ((i = 1; i <= n; i++)); do
		echo "node $i 127.0.0.1:$((p + 2 * (i - 1)))"
	done >"$f"
}

# median and p99 (nearest rank) of seconds on stdin, in milliseconds.
quantiles() {
	sort -g | awk '{ v[NR] = $1 * 1000 }
	    END {
		if (NR == 0) { print "- -"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		r = int(0.99 * NR); if (r < 0.99 * NR) r++
		printf "%.1f %.1f\n", m, v[r]
	    }'
}

now() { echo "$EPOCHREALTIME"; }

# The guarded job: appends its start and end to the log $1.
cat >"$top/job.sh" <<'EOF'
trap 'echo "$ELECT_NODE $ELECT_TOKEN end $(date +%s.%N)" >>"$1"; exit 0' TERM
echo "$ELECT_NODE $ELECT_TOKEN start $(date +%s.%N)" >>"$1"
while :; do sleep 1 & wait; done
EOF
# A job that stops at once on SIGTERM, for the failover figures.
cat >"$top/quick.sh" <<'EOF'
exec sleep 100000
EOF
# --run-if-leader --wait, again and again, on the node of directory $1,
# running the job $3.
cat >"$top/loop.sh" <<EOF
while :; do
	elect-node -s "\$1/state" --run-if-leader --wait --grace $GRACE \\
	    -t "\$1/task.trace" -- sh "\$3" "\$2" 2>/dev/null
	[ \$? = 3 ] && sleep 0.05	# no daemon yet
done
EOF

# guard_loop ID JOB: the loop for node ID, in a session of its own.
guard_loop() {
	setsid bash "$top/loop.sh" "$ELECT_DIR/$1" "$JOBLOG" "$2" </dev/null \
	    >/dev/null 2>&1 &
	LOOPS+=($!)
}

# The node whose guarded command runs now (a task op=start without a
# stop after it), and since when; waits up to 20 s.
running() {
	local i out
	for ((i = 0; i < 2000; i++)); do
		out=$(cat "$ELECT_DIR"/*/task.trace 2>/dev/null | awk '$3 == "task" {
			if ($4 == "op=start") { on[$2 " " $5] = $1 }
			else delete on[$2 " " $5] }
			END { for (k in on) { split(k, a, " "); print a[1], on[k] } }')
		if [ "$(echo "$out" | grep -c .)" = 1 ]; then
			echo "$out"
			return 0
		fi
		sleep 0.01
	done
	return 1
}

# The first task op=start after T0 on a node other than OLD: its time.
# The line carries it; polled slowly, so as not to load the machine it
# measures.
next_start() {
	local t0=$1 old=$2 i t
	for ((i = 0; i < 1000; i++)); do
		t=$(cat "$ELECT_DIR"/*/task.trace 2>/dev/null | awk -v t0="$t0" \
		    -v old="$old" '$3 == "task" && $4 == "op=start" &&
		    $2 != old && $1 > t0 { if (!m || $1 < m) m = $1 }
		    END { if (m) print m }')
		[ -n "$t" ] && { echo "$t"; return 0; }
		sleep 0.02
	done
	return 1
}

failover() {
	local how=$1 r ldr t0 t1 since
	for ((r = 0; r < RUNS; r++)); do
		read -r ldr since < <(running) || { echo "no job runs" >&2; return 1; }
		t0=$(now)
		if [ "$how" = kill ]; then elect_kill "$ldr"; else elect_stop "$ldr"; fi
		t1=$(next_start "$t0" "$ldr") || { echo "no new job" >&2; return 1; }
		echo "$t1 - $t0" | bc -l >>"$top/$how"
		elect_start "$ldr" >/dev/null
		sleep 0.4	# its quiet period, then it grants again
	done
	read -r med p99 < <(quantiles <"$top/$how")
	printf "elect %-9s %4d runs  median %7.1f ms  p99 %7.1f ms\n" "$how" \
	    "$RUNS" "$med" "$p99"
	eval "ELECT_${how^^}_MED=$med"
}

part1() {
	echo "-- failover to a running guarded command (lease, defaults;" \
	    "load $(cut -d ' ' -f 1-3 /proc/loadavg))"
	elect_setup "$top/e1"
	JOBLOG=$top/jobs1
	cluster 3 "$top/c1"
	elect_start_cluster --insecure "$top/c1" >/dev/null || return 1
	elect_wait_leader 20 >/dev/null || return 1
	for id in 1 2 3; do guard_loop "$id" "$top/quick.sh"; done
	failover kill && failover term
	for p in "${LOOPS[@]}"; do kill -KILL -- "-$p" 2>/dev/null; done
	LOOPS=()
	elect_teardown
}

# ---- etcd ----

part2() {
	local i c p eps="" init="" r t0 t1 pids=() holders=() h
	echo "-- the same for etcdctl lock (etcd $(etcd --version 2>/dev/null |
	    sed -n 's/^etcd Version: //p'))"
	if ! command -v etcd >/dev/null || ! command -v etcdctl >/dev/null; then
		echo "etcd or etcdctl missing (Debian: etcd-server etcd-client): skipped"
		return 0
	fi
	p=$(freeport -n 1 -w 6) || return 1
	for i in 1 2 3; do
		init="$init${init:+,}m$i=http://127.0.0.1:$((p + 2 * i - 1))"
		eps="$eps${eps:+,}http://127.0.0.1:$((p + 2 * i - 2))"
	done
	for i in 1 2 3; do
		etcd --name m$i --data-dir "$top/etcd$i" \
		    --listen-client-urls http://127.0.0.1:$((p + 2 * i - 2)) \
		    --advertise-client-urls http://127.0.0.1:$((p + 2 * i - 2)) \
		    --listen-peer-urls http://127.0.0.1:$((p + 2 * i - 1)) \
		    --initial-advertise-peer-urls http://127.0.0.1:$((p + 2 * i - 1)) \
		    --initial-cluster "$init" --initial-cluster-state new \
		    --heartbeat-interval 10 --election-timeout 50 \
		    >"$top/etcd$i.log" 2>&1 &
		pids+=($!)
		ETCDS+=($!)
	done
	for ((i = 0; i < 200; i++)); do
		ETCDCTL_API=3 etcdctl --endpoints="$eps" endpoint health \
		    >/dev/null 2>&1 && break
		sleep 0.1
	done
	: >"$top/etcdjobs"
	# Three waiting lockers, each a "host"; the holder's command logs
	# its start.  etcdctl leaves its command running when it is killed,
	# so the benchmark kills the command itself, after the measure.
	for h in 1 2 3; do
		setsid bash -c 'while :; do
			ETCDCTL_API=3 etcdctl --endpoints="$1" lock --ttl 1 bench -- \
			    sh -c "echo $2 \$\$ \$(date +%s.%N) >>$3; exec sleep 100000"
		done' locker "$eps" "$h" "$top/etcdjobs" </dev/null \
		    >/dev/null 2>&1 &
		holders[$h]=$!
		LOOPS+=($!)
	done
	sleep 2
	: >"$top/etcd"
	for ((r = 0; r < RUNS; r++)); do
		local n0 line who cmd lk
		n0=$(wc -l <"$top/etcdjobs")
		[ "$n0" -gt 0 ] || { sleep 0.1; r=$((r - 1)); continue; }
		line=$(tail -n 1 "$top/etcdjobs")
		read -r who cmd _ <<<"$line"
		# The etcdctl holding the lock: the parent of the command.
		lk=$(awk '{ print $4 }' "/proc/$cmd/stat" 2>/dev/null)
		t0=$(now)
		kill -KILL "$lk" 2>/dev/null
		for ((i = 0; i < 1000; i++)); do
			[ "$(wc -l <"$top/etcdjobs")" -gt "$n0" ] && break
			sleep 0.005
		done
		t1=$(tail -n 1 "$top/etcdjobs" | awk '{ print $3 }')
		kill -KILL "$cmd" 2>/dev/null	# etcdctl's orphan
		echo "$t1 - $t0" | bc -l >>"$top/etcd"
	done
	read -r med p99 < <(quantiles <"$top/etcd")
	printf "etcd  %-9s %4d runs  median %7.1f ms  p99 %7.1f ms  (TTL 1 s)\n" \
	    kill "$RUNS" "$med" "$p99"
	ETCD_MED=$med
	for h in 1 2 3; do kill -KILL -- "-${holders[$h]}" 2>/dev/null; done
	for i in "${pids[@]}"; do kill -KILL "$i" 2>/dev/null; done
	pkill_jobs "$top/etcdjobs"
	wait 2>/dev/null
}

# The commands etcdctl left behind, by pid.
pkill_jobs() {
	local cmd
	for cmd in $(awk '{ print $2 }' "$1"); do
		kill -KILL "$cmd" 2>/dev/null
	done
}

# ---- overlap ----

# Overlaps among intervals "START END WHAT" on stdin (sorted here); the
# pairs go to $top/overlaps.
overlaps() {
	sort -g | awk -v out="$top/overlaps" '
	    NR > 1 && $1 < end { n++; print prev " overlaps " $0 >>out }
	    { if ($2 > end) { end = $2; prev = $0 } }
	    END { print n + 0 }'
}

part3() {
	local c=0 ldr since kind t0 netns= nk=2
	echo "-- overlap: $CHANGES leader changes, guarded commands logging"
	elect_setup "$top/e3"
	JOBLOG=$top/jobs3
	: >"$JOBLOG"
	cluster 5 "$top/c3"
	[ "$(id -u)" = 0 ] && netns=--netns nk=3
	elect_start_cluster $netns --insecure "$top/c3" >/dev/null || return 1
	elect_wait_leader 20 >/dev/null || return 1
	for id in 1 2 3 4 5; do guard_loop "$id" "$top/job.sh"; done
	declare -A kinds=()
	while [ $c -lt "$CHANGES" ]; do
		read -r ldr since < <(running) || { echo "no job runs" >&2; return 1; }
		case $((RANDOM % nk)) in
		0) kind=kill ;;
		1) kind=pause ;;
		2) kind=partition ;;
		esac
		t0=$(now)
		case $kind in
		kill) elect_kill "$ldr" ;;
		pause) elect_pause "$ldr" ;;
		partition) elect_partition "$ldr" \
		    "$(echo 1 2 3 4 5 | tr ' ' '\n' | grep -vx "$ldr" | tr '\n' ' ')" ;;
		esac
		next_start "$t0" "$ldr" >/dev/null ||
		    { echo "no new leader after $kind" >&2; return 1; }
		case $kind in
		kill) elect_start "$ldr" >/dev/null ;;
		pause) elect_resume "$ldr" ;;
		partition) elect_heal ;;
		esac
		kinds[$kind]=$((${kinds[$kind]:-0} + 1))
		c=$((c + 1))
		sleep 0.2
	done
	for p in "${LOOPS[@]}"; do kill -KILL -- "-$p" 2>/dev/null; done
	LOOPS=()
	sleep 0.5
	elect_stop_all
	local own tasks
	# A job stopped while it took its start time logs none: left out.
	own=$(awk 'NF == 4 && $3 == "start" { s[$1 " " $2] = $4 }
	    NF == 4 && $3 == "end" { e[$1 " " $2] = $4 } END { for (k in s) if (k in e)
		print s[k], e[k], "job", k }' "$JOBLOG" | overlaps)
	tasks=$(cat "$ELECT_DIR"/*/task.trace | awk '$3 == "task" {
		if ($4 == "op=start") s[$2 " " $5] = $1; else if ($2 " " $5 in s)
		print s[$2 " " $5], $1, "task", $2, $5 }' | overlaps)
	printf "changes %d (kill %d, pause %d, partition %d): overlaps %d by the commands' lines (%d ended with SIGTERM), %d by the task lines\n" \
	    "$c" "${kinds[kill]:-0}" "${kinds[pause]:-0}" "${kinds[partition]:-0}" \
	    "$own" "$(grep -c ' end ' "$JOBLOG")" "$tasks"
	local verdict=0
	elect-trace merge "$ELECT_DIR/harness.trace" "$ELECT_DIR"/*/trace \
	    "$ELECT_DIR"/*/task.trace >"$ELECT_DIR/merged.trace" &&
	    elect-check -s lease "$ELECT_DIR/merged.trace" \
	    >"$top/verdict" 2>&1 || verdict=1
	tail -n 1 "$top/verdict"
	if [ "$own" != 0 ] || [ "$tasks" != 0 ] || [ "$verdict" != 0 ]; then
		cp -r "$top" "${TMPDIR:-/tmp}/elect-bench-overlaps.$$"
		echo "kept in ${TMPDIR:-/tmp}/elect-bench-overlaps.$$"
	fi
}

if [ "$RUNS" -gt 0 ]; then
	part1 || exit 1
	[ "${ETCD:-yes}" = no ] || part2 || exit 1
fi
if [ -n "${ELECT_KILL_MED:-}" ] && [ -n "${ETCD_MED:-}" ]; then
	echo "ratio etcd/elect after SIGKILL (medians): $(echo "$ETCD_MED / $ELECT_KILL_MED" | bc -l | xargs printf '%.1f')"
fi
[ "$CHANGES" -gt 0 ] || exit 0
part3 || exit 1
