#!/usr/bin/env bats
# Pauses and partitions.  The synchronous algorithms break under a paused
# leader exactly as Garcia-Molina's Theorem 2 says, and elect-check must
# see it; the asynchronous ones keep their own assertions.

load helper
load node

setup() {
	elect_setup
}

teardown() {
	elect_teardown
}

TIMING=(--fd-interval 25 --fd-timeout 400 --reply 250 --check 300
	--timeout 1200 --tau 150 --ttx 50)

has_algo() {
	elect-node --help | grep -q "^algorithms (-a):.* $1\( \|$\)"
}

# pause_leader ALGO N: the leader N of a fresh cluster is paused until the
# others have chosen another, then resumed.
pause_leader() {
	local algo=$1 n=$2
	has_algo "$algo" || skip "no $algo in this build"
	C=$(mkcluster "$n")
	elect_start_cluster --insecure -a "$algo" "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader -l "$n" 20)" "$n"
	elect_pause "$n"
	assert_equal "$(elect_wait_leader -l $((n - 1)) 20)" $((n - 1))
	elect_resume "$n"
}

# The paused leader wakes up still Norm and leading, beside the new one.
sync_pause_breaks_sle1() {
	pause_leader "$1" 3
	wait_for 10 eval 'elect_status 3 | grep -q "status=Norm leader=3"'
	elect_stop_all
	run elect_check
	assert_failure 1
	assert_output --regexp "merged.trace:[0-9]+: sle1: "
	assert_output --regexp "merged.trace:[0-9]+: gm1: "
}

@test "bully: a paused leader breaks sle1, and elect-check says so" {
	sync_pause_breaks_sle1 bully
}

@test "bully-fd: a paused leader breaks sle1, and elect-check says so" {
	sync_pause_breaks_sle1 bully-fd
}

# After the pause the cluster settles; every assertion of -s async holds.
async_pause() {
	pause_leader "$1" 5
	elect_wait_leader 20 >/dev/null
	elect_stop_all
	run elect_check -s async
	assert_success
}

@test "async-bully: a paused leader resumes; the trace passes -s async" {
	async_pause async-bully
}

@test "invitation: a paused leader resumes; the trace passes -s async" {
	async_pause invitation
}

# A partition splits the cluster; each side settles on its own leader;
# healed, it becomes one group again.
async_partition() {
	local algo=$1
	has_algo "$algo" || skip "no $algo in this build"
	[ "$(id -u)" = 0 ] ||
	    skip "partitions need root (a network namespace and nftables)"
	C=$(mkcluster 5)
	elect_start_cluster --netns --insecure -a "$algo" "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader -l 5 20)" 5
	elect_partition "1 2 3" "4 5"
	assert_equal "$(elect_wait_leader -l 3 20 1 2 3)" 3
	assert_equal "$(elect_wait_leader -l 5 20 4 5)" 5
	elect_heal
	assert_equal "$(elect_wait_leader -l 5 20)" 5
	elect_stop_all
	run elect_check -s async
	assert_success
}

@test "async-bully: a partition and its healing pass -s async" {
	async_partition async-bully
}

@test "invitation: a partition and its healing pass -s async" {
	async_partition invitation
}
