#!/usr/bin/env bats
# The bully core (Garcia-Molina 1982, Appendix I), run in elect-sim.
# Its transcripts, the core driven input by input, are
# t/testdata/algo/bully.txt (t/transcripts.bats).

load helper
load elect-sim

# Garcia-Molina's Election stops at the first higher node that answers,
# and AreYouThere starts nothing at the callee: when the coordinator
# crashes, every node asks it once in Timeout (N-1), nodes 1..N-2 probe
# the next node up (2(N-2)), node N-1, knowing N down, halts, names and
# readies the N-2 others with their Acks (6(N-2)): 9N-17 messages, linear.
@test "bully: a coordinator crash costs 9N-17 messages (N = 5, 10, 20)" {
	for n in 5 10 20; do
		out=$(after_crash -a bully -n $n -d 2 -S -e "1.05 crash $n")
		[[ $out == "agreed ldr=$((n - 1)) "*" msgs=$((9 * n - 17)) "* ]] ||
		    fail "N=$n: $out"
	done
}

@test "bully: 100 seeded runs with crashes and recoveries satisfy the sync assertions" {
	need_check
	sim_sweep sync 100 -a bully -d 12 -r 6 -m 0.1:5
}

# Garcia-Molina's Theorem 2: once a node may pause, no protocol satisfies
# Assertions 1 and 2.  The coordinator sleeps through its succession and
# wakes up still Norm and its own leader: elect-check must see it.
@test "bully: a paused coordinator breaks SLE1 (Theorem 2), and elect-check says so" {
	need_check
	elect-sim -a bully -n 3 -d 4 -e '1 pause 3' -e '2 resume 3' \
	    >"$BATS_TEST_TMPDIR/t"
	run elect-check -s sync -c 1 "$BATS_TEST_TMPDIR/t"
	assert_failure 1
	assert_output --partial "sle1: "
	elect-sim -a bully -n 3 -d 4 -e '1 crash 3' -e '2 boot 3' \
	    >"$BATS_TEST_TMPDIR/t"
	run elect-check -s sync -c 1 "$BATS_TEST_TMPDIR/t"
	assert_success
}
