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
# suspicion, or a message slower than t_TX, would be a real violation
# under the synchronous algorithms.  With both cores busy and the suite
# running in parallel, a process may wait half a second for a processor:
# the detector's time-out is well above that.
TIMING=(--fd-interval 50 --fd-timeout 800 --reply 500 --check 600
	--timeout 2400 --tau 300 --ttx 100)

# The bound c of the liveness assertions for N nodes: Stoller's (5) with
# the detector's latency (time-out and an interval) for tau_FD and 100 ms
# for delta, plus Garcia-Molina's Timeout for the algorithms that wait for
# it, and half a second to spare.
c_bound() {
	awk -v n="$1" 'BEGIN { fd = 0.85; printf "%.2f\n", n * fd + 3.0 }'
}

# Sleeps until SECS seconds after time T0.
sleep_until() {
	local s
	s=$(awk -v t0="$1" -v d="$2" -v now="$(date +%s.%N)" \
	    'BEGIN { s = t0 + d - now; printf "%.3f\n", (s > 0 ? s : 0) }')
	sleep "$s"
}

has_algo() {
	elect-node --help | grep -q "^algorithms (-a):.* $1\( \|$\)"
}

# states_since ID T: the state lines of node ID after trace time T.
states_since() {
	awk -v t="$2" '$1 > t && $3 == "state"' "$ELECT_DIR/$1/trace"
}

# settled LEADER: every node up is Norm under LEADER, in one group.  The
# nodes agree on a leader (elect_wait_leader) before some reach their
# last state: on a loaded host, group changes can still be under way.
settled() {
	local id
	for id in $(elect_up); do
		elect_status "$id" 2>/dev/null || true
	done | awk -v l="$1" '{ n++ } $3 == "status=Norm" && $4 == "leader=" l {
		g[$5]++ } END { for (k in g) if (g[k] == n) exit 0; exit 1 }'
}

# scenario ALGO N: the whole life of one cluster.
scenario() {
	local algo=$1 n=$2 ldr t0 id
	has_algo "$algo" || skip "no $algo in this build"
	# Seven nodes run the code three do, for longer: the sanitizer pass
	# of make check (ELECT_SHORT) leaves them to the plain one.
	[ "$n" -le 3 ] || [ -z "${ELECT_SHORT:-}" ] ||
	    skip "$n nodes: in the plain pass only (ELECT_SHORT)"
	C=$(mkcluster "$n")
	elect_start_cluster --insecure -a "$algo" "${TIMING[@]}" "$C"

	ldr=$(elect_wait_leader -l "$n" 20)
	assert_equal "$ldr" "$n"
	wait_for 20 settled "$n"

	# A follower dies: the leader stays, no one changes state (for
	# longer than the detector needs to notice, twice).
	t0=$(date +%s.%N)
	elect_kill 1
	sleep 1.7
	for id in $(elect_up); do
		run states_since "$id" "$t0"
		assert_output ""
	done
	assert_equal "$(elect_wait_leader 1)" "$n"

	# The leader dies: the next highest is agreed on.
	elect_kill "$n"
	ldr=$(elect_wait_leader -l $((n - 1)) 20)
	assert_equal "$ldr" $((n - 1))

	# The old leader comes back: the bullies let the highest lead again;
	# under invitation it may also join the group it is invited to.
	elect_start "$n"
	elect_start 1
	t0=$(date +%s.%N)
	if [ "$algo" = invitation ]; then
		ldr=$(elect_wait_leader 20)
		[ "$ldr" = "$n" ] || [ "$ldr" = $((n - 1)) ]
	else
		ldr=$(elect_wait_leader -l "$n" 20)
	fi

	# A stable period longer than c, so that the liveness assertions
	# (sle2, ale2) have something to bite on; judged while the cluster
	# still runs, before the goodbyes end the stable period.  On three
	# nodes only: the bound grows with N, and so would the suite.
	if [ "$n" -le 3 ]; then
		c=$(c_bound "$n")
		sleep_until "$t0" "$(awk -v c="$c" 'BEGIN { print c + 0.3 }')"
		run elect_check -c "$c"
		assert_success
		assert_output --regexp "holds:.* (sle2|ale2)"
	fi

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
@test "invitation, 3 nodes" { scenario invitation 3; }
@test "invitation, 7 nodes" { scenario invitation 7; }
@test "modified-bully, 3 nodes" { scenario modified-bully 3; }
@test "modified-bully, 7 nodes" { scenario modified-bully 7; }
@test "enhanced-bully, 3 nodes" { scenario enhanced-bully 3; }
@test "enhanced-bully, 7 nodes" { scenario enhanced-bully 7; }
