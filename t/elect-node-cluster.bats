#!/usr/bin/env bats
# Real clusters on 127.0.0.1, for every algorithm this build has: the
# highest live id leads; a follower's death changes nothing; the leader's
# death elects the next; the old leader's return; and every run's merged
# trace passes elect-check with the algorithm's own assertions.

load helper
load node

setup() {
	elect_setup
}

teardown() {
	elect_teardown
}

# Timings with a margin for a loaded machine and AddressSanitizer: a false
# suspicion would be a real violation under the synchronous algorithms.
TIMING=(--fd-interval 25 --fd-timeout 250 --reply 100 --check 150
	--timeout 600 --tau 100)

has_algo() {
	elect-node --help | grep -q "^algorithms (-a):.* $1\( \|$\)"
}

# states_since ID T: the state lines of node ID after trace time T.
states_since() {
	awk -v t="$2" '$1 > t && $3 == "state"' "$ELECT_DIR/$1/trace"
}

# scenario ALGO N: the whole life of one cluster.
scenario() {
	local algo=$1 n=$2 ldr t0 id
	has_algo "$algo" || skip "no $algo in this build"
	C=$(mkcluster "$n")
	elect_start_cluster --insecure -a "$algo" "${TIMING[@]}" "$C"

	ldr=$(elect_wait_leader 20)
	assert_equal "$ldr" "$n"

	# A follower dies: the leader stays, no one changes state.
	t0=$(date +%s.%N)
	elect_kill 1
	sleep 1
	for id in $(elect_up); do
		run states_since "$id" "$t0"
		assert_output ""
	done
	assert_equal "$(elect_wait_leader 1)" "$n"

	# The leader dies: the next highest is agreed on.
	elect_kill "$n"
	ldr=$(elect_wait_leader 20)
	assert_equal "$ldr" $((n - 1))

	# The old leader comes back and, being the highest, leads again.
	elect_start "$n"
	elect_start 1
	ldr=$(elect_wait_leader 20)
	assert_equal "$ldr" "$n"

	# A stable period longer than c, so that the liveness assertions
	# (sle2, ale2) have something to bite on; judged while the cluster
	# still runs, before the goodbyes end the stable period.
	sleep 2.2
	run elect_check -c 2
	assert_success
	assert_output --regexp "holds:.* (sle2|ale2)"

	elect_stop_all
	run elect_check
	assert_success
}

@test "bully, 3 nodes" { scenario bully 3; }
@test "bully, 7 nodes" { scenario bully 7; }
@test "bully-fd, 3 nodes" { scenario bully-fd 3; }
@test "bully-fd, 7 nodes" { scenario bully-fd 7; }
@test "async-bully, 3 nodes" { scenario async-bully 3; }
@test "async-bully, 7 nodes" { scenario async-bully 7; }
