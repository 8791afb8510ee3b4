# Helpers for the elect-node tests: cluster files on free ports, and the
# bats helper users get (share/elect/elect.bash), so it is exercised by
# every run.
load "$BATS_TEST_DIRNAME/../share/elect/elect.bash"

STUB=$FIXTURES/node

# mkcluster N [FILE]: a cluster of N nodes on 127.0.0.1, ids 1..N, on free
# ports (each node's fd port is its port + 1); prints the file's name.
mkcluster() {
	local n=$1 f=${2:-$BATS_TEST_TMPDIR/cluster.conf} p i
	p=$(freeport -n 1 -w $((2 * n)))
	: >"$f"
	for ((i = 1; i <= n; i++)); do
		echo "node $i 127.0.0.1:$((p + 2 * (i - 1)))" >>"$f"
	done
	echo "$f"
}

# mkkey FILE: a new cluster key in FILE, mode 0600; prints FILE.
mkkey() {
	(umask 077; head -c 32 /dev/urandom >"$1")
	echo "$1"
}

# port ID [FILE]: the protocol port of node ID.
port() {
	awk -v id="$1" '$1 == "node" && $2 == id {
		n = split($3, hp, ":"); print hp[n] }' \
	    "${2:-$BATS_TEST_TMPDIR/cluster.conf}"
}

# trace_has FILE PATTERN: FILE has a line matching the extended regex.
trace_has() {
	grep -Eq -- "$2" "$1"
}

# mkrelayed N: a cluster of N nodes in $BATS_TEST_TMPDIR/cluster.conf, as
# mkcluster makes it, and for each node ID a file of its own, cluster.conf.ID
# (in ELECT_CLUSTER_OF, so call it after elect_setup), in which every peer
# is at a relay port of its own: what node I sends to node J's protocol
# port goes through 127.0.0.1:RELAY (their detectors talk directly).
# $BATS_TEST_TMPDIR/routes gets "I J RELAY:PORT/BACK" for each pair, the
# last field a route for udpmix: it sends from BACK, the relay of J to I,
# which is where node J's file has node I (the source address it checks).
mkrelayed() {
	local n=$1 f=$BATS_TEST_TMPDIR/cluster.conf p r i j
	p=$(freeport -n 1 -w $((2 * n + n * (n - 1))))
	r=$((p + 2 * n))
	# relay I J: the relay port of what I sends to J.
	relay() {
		echo $((p + 2 * n + ($1 - 1) * (n - 1) + ($2 < $1 ? $2 - 1 : $2 - 2)))
	}
	: >"$BATS_TEST_TMPDIR/routes"
	for ((i = 1; i <= n; i++)); do
		echo "node $i 127.0.0.1:$((p + 2 * (i - 1)))"
	done >"$f"
	for ((i = 1; i <= n; i++)); do
		for ((j = 1; j <= n; j++)); do
			if [ "$i" = "$j" ]; then
				echo "node $i 127.0.0.1:$((p + 2 * (i - 1)))"
				continue
			fi
			echo "node $j 127.0.0.1:$r fd=$((p + 2 * (j - 1) + 1))"
			[ "$r" = "$(relay "$i" "$j")" ]
			echo "$i $j $r:$((p + 2 * (j - 1)))/$(relay "$j" "$i")" \
			    >>"$BATS_TEST_TMPDIR/routes"
			r=$((r + 1))
		done >"$f.$i"
		ELECT_CLUSTER_OF[$i]=$f.$i
	done
}

# A guarded job: appends "NODE TOKEN start|tick|end TIME" to $LOG, every
# 10 ms while it runs.  bash's clock, not date's: the end line must be
# written within the grace on a loaded host, with no process to start.
JOB='trap "echo \"\$ELECT_NODE \$ELECT_TOKEN end \$EPOCHREALTIME\" >>\"\$LOG\"; exit 0" TERM
echo "$ELECT_NODE $ELECT_TOKEN start $EPOCHREALTIME" >>"$LOG"
while :; do
	echo "$ELECT_NODE $ELECT_TOKEN tick $EPOCHREALTIME" >>"$LOG"
	sleep 0.01
done'

# Lease timings for guarded jobs, generous for a loaded machine and AddressSanitizer: a late renewal
# costs liveness here, never safety.  With both cores busy and the suite
# running in parallel, a process may wait half a second for a processor:
# a node that boots that late must not be taken for dead (the highest
# would not lead), nor a leader's renewals come too late to keep it.
FD=(--fd-interval 50 --fd-timeout 1000)
TIMING=(--lease 1s --renew 200 --rtt 50 "${FD[@]}")
# Time for a job to write its end line after SIGTERM on a loaded host;
# the 1 s lease leaves room for about 450 ms.
GRACE=300

# guard IDS...: on each node, --run-if-leader --wait runs the job, in a
# session of its own (killed by teardown).
guard() {
	local id
	for id; do
		setsid elect-node -s "$ELECT_DIR/$id/state" --run-if-leader \
		    --wait --grace $GRACE -t "$ELECT_DIR/$id/task.trace" -- \
		    bash -c "$JOB" </dev/null >>"$ELECT_DIR/$id/job.out" \
		    2>>"$ELECT_DIR/$id/job.err" 3>&- &
		GUARDS+=($!)
		disown $!
	done
}

# jobs_setup, jobs_teardown: a cluster directory and an empty $LOG for
# guarded jobs; at the end every job's session (GUARDS) and every other
# process started in the background (PIDS) is killed and reaped.
jobs_setup() {
	elect_setup
	GUARDS=() PIDS=()
	export JOB LOG=$BATS_TEST_TMPDIR/job.log
	: >"$LOG"
}

jobs_teardown() {
	local p
	for p in "${GUARDS[@]}"; do
		kill_own KILL "-$p"
	done
	kill_own KILL "${PIDS[@]}"
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	elect_teardown
}

# no_overlap: the jobs' lines, grouped by token, span disjoint intervals
# of time, in the order of their tokens.
no_overlap() {
	# A job stopped while $(date) runs writes a line without its time:
	# the signal reaches date too.  Such a line says nothing of when.
	awk 'NF < 4 { next }
	{ if (!($2 in lo) || $4 < lo[$2]) lo[$2] = $4
		if (!($2 in hi) || $4 > hi[$2]) hi[$2] = $4 }
	END { for (t in lo) printf "%s %.6f %.6f\n", t, lo[t], hi[t] }' \
	    "$LOG" | sort -n -k1,1 | awk '
	NR > 1 && $2 <= end { printf "token %s from %s, token %s until %s\n",
		$1, $2, tok, end; bad = 1 }
	{ tok = $1; end = $3 }
	END { exit bad }'
}

# epochs: the cluster files of three epochs, host ID at 127.0.0.ID on a
# port of its own: e0 {1,2,3}; e1 {1..5}, a grow; e2 {2,4,6}, a shrink
# without e1's leader (5), with a new host.
epochs() {
	local p i
	p=$(freeport -n 1 -w 12)
	at() { echo "node $1 127.0.0.$1:$((p + 2 * ($1 - 1)))"; }
	for i in 1 2 3; do at $i; done >"$BATS_TEST_TMPDIR/e0.conf"
	{ echo "epoch 1"; for i in 1 2 3 4 5; do at $i; done; } \
	    >"$BATS_TEST_TMPDIR/e1.conf"
	{ echo "epoch 2"; for i in 2 4 6; do at $i; done; } \
	    >"$BATS_TEST_TMPDIR/e2.conf"
	E0=$BATS_TEST_TMPDIR/e0.conf E1=$BATS_TEST_TMPDIR/e1.conf
	E2=$BATS_TEST_TMPDIR/e2.conf
}

# join FILE IDS...: starts the new members IDS with FILE.
join() {
	local f=$1 id
	shift
	for id; do
		ELECT_CLUSTER_OF[$id]=$f
		ELECT_IDS+=("$id")
		elect_start "$id"
	done
}
