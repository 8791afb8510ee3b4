#!/usr/bin/env bats
# elect-node for operators: --wait-for, --socket-group and the callers'
# credentials, --status --json and its exit codes, metrics, and a control
# socket that idle or slow clients cannot lock up.

bats_require_minimum_version 1.5.0

load helper
load node

FD=(--fd-interval 50 --fd-timeout 1000)
TIMING=(--lease 1s --renew 200 --rtt 50 "${FD[@]}")

setup() {
	elect_setup
	PIDS=()
	export LOG=$BATS_TEST_TMPDIR/job.log
	: >"$LOG"
}

teardown() {
	local p
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	elect_teardown
}

@test "--wait-for: strict durations, only with --run-if-leader" {
	run -2 elect-node -i 3 --run-if-leader --wait-for x -- true
	assert_output --partial '--wait-for: "x" is not a duration'
	run -2 elect-node -i 3 --run-if-leader --wait-for 5m -- true
	assert_output --partial '--wait-for: "5m" is not a duration'
	run -2 elect-node -i 3 --run-if-leader --wait-for -1s -- true
	run -2 elect-node -i 3 --run-if-leader --wait-for 3601s -- true
	assert_output --partial '--wait-for: "3601" is too large (0 to 3600)'
	run -2 elect-node -i 3 --status --wait-for 1s
	assert_output --partial "--wait-for goes with --run-if-leader"
	run -2 elect-node -i 3 --run-if-leader --wait-for '' -- true
}

@test "--wait-for: a follower gives up with 124, the leader runs at once" {
	local t0 t1
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	t0=$EPOCHREALTIME
	run -124 elect-node -s "$ELECT_DIR/1/state" --run-if-leader \
	    --wait-for 700ms -- sh -c 'echo ran >>"$LOG"'
	t1=$EPOCHREALTIME
	assert_output --partial "did not come to lead within --wait-for"
	# It waited, and not much longer than asked.
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 0.7 && b - a < 5) }'
	run cat "$LOG"
	assert_output ""
	# Nothing stays registered with the daemon.
	run elect_status 1
	assert_output --partial " waiting=0"
	# -E does not change it: the wait ran out, the node did not say no.
	run -124 elect-node -s "$ELECT_DIR/1/state" --run-if-leader -E 9 \
	    --wait-for 1ms -- true
	run elect-node -s "$ELECT_DIR/3/state" --run-if-leader --wait \
	    --wait-for 10s -- sh -c 'echo "$ELECT_TOKEN"'
	assert_success
	assert_output --regexp "^[0-9]+$"
}
