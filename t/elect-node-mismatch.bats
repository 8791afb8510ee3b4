#!/usr/bin/env bats
# Peers that answer but run another configuration (elect-node(1), THE
# WIRE): a host started with another algorithm, timing or membership
# must not lead beside the cluster's leader, nor run a guarded command;
# it says so in its status (exit 4, mismatch=, veto=mismatch), its log,
# its metrics and its trace.  Real processes on 127.0.0.1.

bats_require_minimum_version 1.5.0

load helper
load node

setup() {
	jobs_setup
}

teardown() {
	jobs_teardown
}

# status_is ID CODE: node ID's --status exits CODE.
status_is() {
	local rc=0
	elect_status "$1" >/dev/null 2>&1 || rc=$?
	[ "$rc" = "$2" ]
}

@test "a host restarted under another algorithm leads nothing beside the lease leader, and runs no guarded command" {
	local C K L
	C=$(mkcluster 3)
	K=$(mkkey "$BATS_TEST_TMPDIR/key")
	# The leader one of 2 and 3, which lease keeps while it lives.
	elect_start_cluster -k "$K" "${TIMING[@]}" "$C" -- 2 3
	L=$(elect_wait_leader 15 2 3)
	elect_start 1
	elect_wait_leader -l "$L" 15 >/dev/null
	for id in 1 2 3; do guard "$id"; done
	wait_for 15 grep -q "^$L .* tick " "$LOG"

	# Node 1 again, under bully-fd: it takes the others for down (its
	# detector does not count them) and its core elects itself.
	elect_stop 1
	elect_start 1 -a bully-fd
	guard 1
	wait_for 20 trace_has "$ELECT_DIR/1/trace" \
	    ' state status=Norm ldr=1 '
	wait_for 10 status_is 1 4
	run -4 elect_status 1
	assert_output --regexp ' role=none '
	assert_output --regexp ' leader=- '
	assert_output --regexp ' mismatch=2:algo,3:algo'
	assert_output --regexp ' veto=mismatch'
	trace_has "$ELECT_DIR/1/trace" ' misfit lead=no peers=2:algo,3:algo$'
	# Said once, naming the peers heard to disagree by then.
	run grep -Ec 'mismatch-veto node=1 peers=(2:algo|3:algo|2:algo,3:algo)$' \
	    "$ELECT_DIR/1/stderr"
	assert_output 1

	# The lease leader (2 or 3: a loaded host may move it between them)
	# leads on; node 1's job never started, and its guard still waits.
	L=$(elect_wait_leader 15 2 3)
	run -0 elect_status "$L"
	assert_output --regexp ' mismatch=1:algo'
	refute_output --regexp ' veto='
	refute grep -q '^1 ' "$LOG"

	# It agrees again: restarted under lease, it follows, unvetoed.
	elect_stop 1
	elect_start 1
	wait_for 15 status_is 1 1
	run -1 elect_status 1
	refute_output --regexp ' veto='
	no_overlap

	# The whole run, guarded commands included, certified as lease, the
	# odd boot named.
	elect_stop_all
	run --separate-stderr sh -c 'cd "$1" && elect-trace merge */trace */task.trace | elect-check -' - "$ELECT_DIR"
	assert_success
	[[ $stderr == *"checked as lease"* ]]
	[[ $stderr == *"node 1 booted as bully-fd, not a lease algorithm"* ]]
	[[ $stderr == *" task-overlap task-lease task-token"* ]]
}

# Without quorums, a peer of another key must be told apart before the
# detector takes it for down: a MAC that fails from a peer's address asks
# the peer to prove its key at once, and one failure counts.
@test "bully-fd: a host restarted with another key leads nothing, the lowest nor the highest" {
	local C K mark n
	C=$(mkcluster 3)
	K=$(mkkey "$BATS_TEST_TMPDIR/key")
	mkkey "$BATS_TEST_TMPDIR/key2" >/dev/null
	elect_start_cluster -a bully-fd -k "$K" "${FD[@]}" "$C"
	assert_equal "$(elect_wait_leader 15)" 3
	for id in 1 2 3; do guard "$id"; done
	wait_for 15 grep -q "^3 .* tick " "$LOG"
	# The lowest: its detector would take 2 and 3 for down.
	elect_stop 1
	elect_start 1 -k "$BATS_TEST_TMPDIR/key2"
	guard 1
	wait_for 20 eval 'elect_status 1 | grep -q " waiting=1 .*veto=mismatch mismatch=.*key"'
	wait_for 20 trace_has "$ELECT_DIR/1/trace" ' state status=Norm ldr=1 '
	run -4 elect_status 1
	assert_output --regexp ' waiting=1 '
	refute grep -q '^1 ' "$LOG"
	# The highest: its core leads (the others are down to its detector),
	# its edge lets no command start; the others stop leading too.
	elect_stop 1
	elect_start 1
	elect_stop 3
	mark=$(wc -l <"$LOG")
	elect_start 3 -k "$BATS_TEST_TMPDIR/key2"
	guard 3
	for id in 1 2 3; do
		wait_for 20 eval 'elect_status '"$id"' | grep -q " veto=mismatch mismatch=.*key"'
	done
	wait_for 20 eval 'elect_status 3 | grep -q " waiting=1 "'
	wait_for 20 trace_has "$ELECT_DIR/3/trace" ' state status=Norm ldr=3 '
	# A while of its core's leading: its Norm? rounds to the others.
	n=$(grep -c ' send ' "$ELECT_DIR/3/trace")
	wait_for 20 eval '[ "$(grep -c " send " "$ELECT_DIR/3/trace")" -ge $((n + 10)) ]'
	run -4 elect_status 3
	assert_output --regexp ' waiting=1 '
	run bash -c "tail -n +$((mark + 1)) '$LOG' | grep -c '^3 '"
	assert_output 0
	refute grep -q '^1 .* start ' <(tail -n +$((mark + 1)) "$LOG")
	no_overlap

	# The whole run certified as sync: a vetoed node's core leading is
	# no second leader.
	elect_stop_all
	run --separate-stderr sh -c 'cd "$1" && elect-trace merge */trace | elect-check -' - "$ELECT_DIR"
	assert_success
	[[ $stderr == *"holds: trace gm1 gm2 sle1 sle2"* ]]
}

# A host whose file lists only itself hears of the others only by their
# HELLOs, which name it in the same epoch: strangers, counted as peers
# of another membership.
@test "lease: a host started with a cluster file of itself alone leads nothing beside the others" {
	local C
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C" -- 2 3
	elect_wait_leader 15 2 3 >/dev/null
	grep '^node 1 ' "$C" >"$BATS_TEST_TMPDIR/alone"
	ELECT_CLUSTER_OF[1]=$BATS_TEST_TMPDIR/alone
	elect_start 1
	wait_for 15 eval 'elect_status 1 | grep -q " veto=mismatch"'
	run -4 elect_status 1
	grep -Eq 'node [23]: not in .*alone, but its HELLO of epoch 0 names this node' \
	    "$ELECT_DIR/1/stderr"
	trace_has "$ELECT_DIR/1/trace" ' misfit lead=no peers=[23]:cluster'
	refute grep -q 'became-leader node=1 ' "$ELECT_DIR/1/stderr"
	# Its core, a quorum of one, leads: vetoed, that is no second leader
	# to elect-check either.
	wait_for 20 trace_has "$ELECT_DIR/1/trace" ' lead until=.* token='
	run -4 elect_status 1
	elect_stop_all
	run --separate-stderr sh -c 'cd "$1" && elect-trace merge */trace | elect-check -' - "$ELECT_DIR"
	assert_success
	[[ $stderr == *" uniqueness lease-quorum "* ]]
}
