#!/usr/bin/env bats
# The modified bully of Mamun et al., as Murshed and Allen (2012, section
# 3) describe it, run in elect-sim.
# Its transcripts, the core driven input by input, are
# t/testdata/algo/modified-bully.txt (t/transcripts.bats).

load helper
load elect-sim

# Worst case (Murshed and Allen, section 6): the lowest id detects the
# failure first.  Their Tables 1-3 count 11, 26 and 56 messages for [9].
@test "modified-bully: the lowest id detecting costs 3N-4 messages (N = 5, 10, 20)" {
	for n in 5 10 20; do
		out=$(after_crash -a modified-bully -n $n -d 2 -L -S \
		    -e "1 crash $n")
		[[ $out == "agreed ldr=$((n - 1)) "*" msgs=$((3 * n - 4)) Election=$((n - 1)) Ok=$((n - 2)) Coordinator=$((n - 1))" ]] ||
		    fail "N=$n: $out"
	done
}

# Section 6: "N - 1 messages are required if the recovered node is a
# former leader and 2(N - 1) messages if the recovered node has the
# lowest id".
@test "modified-bully: a revival costs 2(N-1) messages for the lowest id, N-1 for the highest" {
	for n in 5 10 20; do
		out=$(elect-sim -a modified-bully -n $n -d 3 -S -e '1 crash 1' \
		    -e '1.5 boot 1' -e "2 crash $n" -e "2.5 boot $n" 2>&1 \
		    >/dev/null)
		[[ $out == *"after boot at 1.5 "*" msgs=$((2 * n - 2)) Query=$((n - 1)) Answer=$((n - 1))"* ]] ||
		    fail "N=$n, node 1: $out"
		[[ $out == *"agreed ldr=$n "*"after boot at 2.5 "*" msgs=$((n - 1)) Coordinator=$((n - 1))"* ]] ||
		    fail "N=$n, node $n: $out"
	done
}

# The papers' Update makes every node Normal with the new leader at once;
# a broadcast cannot, so a node waits t_TX, the delivery bound, first.
# With messages slower than t_TX the synchronous assumption fails, and
# elect-check catches the two leaders of a one-phase announcement.
@test "modified-bully: Update waits out the delivery bound, or SLE1 breaks" {
	need_check
	elect-sim -a modified-bully -n 7 -s 3 -d 12 -r 6 -m 0.1:5 \
	    -t t_tx=5 >"$BATS_TEST_TMPDIR/t"
	run elect-check -s sync -c 1.5 "$BATS_TEST_TMPDIR/t"
	assert_success
	elect-sim -a modified-bully -n 7 -s 3 -d 12 -r 6 -m 0.1:5 \
	    -t t_tx=1 >"$BATS_TEST_TMPDIR/t"
	run elect-check -s sync -c 1.5 "$BATS_TEST_TMPDIR/t"
	assert_failure 1
	assert_output --partial "violated: gm1"
	assert_output --partial "sle1"
}

@test "modified-bully: crashes and recoveries over 100 seeds pass elect-check -s sync" {
	need_check
	sim_sweep sync 100 -a modified-bully -d 12 -r 6 -m 0.1:5 -t t_tx=5
}

# The leader (3) reboots while node 1 elects its replacement: node 1's
# Coordinator(2, failed=3) reaches node 2 after 3 announced itself again.
# By id alone node 2 took 2, and nothing ever repaired it (murshed.h).
@test "modified-bully: a coordinator replaces only the incarnation it names" {
	mb_incarnation modified-bully
}

# Two leaders, whatever made them: each repeats its coordinator every
# announce period, and the lower one gives way.
@test "modified-bully: a Normal leader repeats its coordinator, and a split heals" {
	mb_announce modified-bully
}

# A busy host delays a message by up to some 12 ms (a real cluster: a
# coordinator received 4.1 ms after it was sent); elect-node's default
# t_TX must bound that, as the paper's model assumes.
@test "modified-bully: elect-node's default t_TX holds under a busy host's delays" {
	mb_busy_host modified-bully
}

# A late repeated announcement of the failed leader does not end the
# election; a new incarnation's does.
@test "modified-bully: a stale announcement of the failed leader leaves the election on" {
	mb_stale_announce modified-bully
}
