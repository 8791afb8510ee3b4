#!/usr/bin/env bats
# The bully-fd core (Stoller 1997, Figure 1, mirrored: a higher id wins),
# run in elect-sim.
# Its transcripts, the core driven input by input, are
# t/testdata/algo/bully-fd.txt (t/transcripts.bats).

load helper
load elect-sim

# The crash of the leader, lowest id first to notice: only node N-1 sees
# every higher node down, so one election: N-2 Halts, Acks and Ldrs.
@test "bully-fd: a leader crash costs 3(N-2) messages (N = 5, 10, 20)" {
	for n in 5 10 20; do
		out=$(after_crash -a bully-fd -n $n -d 3 -L -S -e "1.05 crash $n")
		k=$((n - 2))
		[[ $out == "agreed ldr=$((n - 1)) "*" msgs=$((3 * k)) Halt=$k Ack=$k Ldr=$k" ]] ||
		    fail "N=$n: $out"
	done
}

@test "bully-fd: 100 seeded runs with crashes and recoveries satisfy the sync and detector assertions" {
	need_check
	sim_sweep sync 100 -a bully-fd -d 12 -r 6 -m 0.1:5
	elect-sim -a bully-fd -n 7 -s 1 -d 12 -r 6 >"$BATS_TEST_TMPDIR/t"
	run elect-check -s fd --fd-latency 0.05 "$BATS_TEST_TMPDIR/t"
	assert_success
}

@test "bully-fd: a paused leader breaks SLE1 (Theorem 2), and elect-check says so" {
	need_check
	elect-sim -a bully-fd -n 3 -d 4 -e '1 pause 3' -e '2 resume 3' \
	    >"$BATS_TEST_TMPDIR/t"
	run elect-check -s sync -c 1 "$BATS_TEST_TMPDIR/t"
	assert_failure 1
	assert_output --partial "sle1: "
}
