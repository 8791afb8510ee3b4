#!/usr/bin/env bats
# elect-check's asynchronous assertions (Garcia-Molina's Assertions 3 and
# 4, Stoller's ALE1, ALE2, ALE2' and Assertion 4') on hand-written traces,
# the papers' own scenarios among them.

load helper
bats_require_minimum_version 1.5.0

setup() {
	cd "$FIXTURES/check"
}

@test "an Invitation run with a crash and a merge satisfies the async set" {
	run --separate-stderr elect-check async-ok.trace
	assert_success
	assert_output ''
	[[ $stderr == *"checked as async"* ]]
	[[ $stderr == *"holds: trace gm3 gm4s ale1 ale2w ale2"* ]]
	run elect-check -A gm4 async-ok.trace
	assert_success
}

@test "Stoller's Figure 2: gm4 fails, gm4s and ale2 hold" {
	run --separate-stderr elect-check -A gm4,gm4s,ale2,ale2w figure2.trace
	assert_failure 1
	assert_output 'figure2.trace:23: gm4: a maximal pairwise-connected set without one coordinator from 10 to 20 (c), with the system stable: nodes 3 and 2, connected, follow 3 and 2'
	[[ $stderr == *"holds: trace gm4s ale2w ale2"* ]]
}

@test "Stoller's six nodes: ale2 fails, ale2w holds" {
	run --separate-stderr elect-check six.trace
	assert_failure 1
	assert_output - <<-'EOF'
	six.trace:37: gm4s: not settled by 20, c after the system became stable at 10: 4 groups, but 3 cliques cover the connectivity graph: {1,4} {2,5} {3,6}
	six.trace:37: ale2: not settled by 20, c after the system became stable at 10: 4 groups, but 3 cliques cover the connectivity graph: {1,4} {2,5} {3,6}
	EOF
	[[ $stderr == *"holds: trace gm3 ale1 ale2w"* ]]
}

@test "Stoller's Appendix A: the Invitation run breaks Assertion 4 only" {
	run elect-check appendix-a.trace
	assert_success
	run --separate-stderr elect-check -A gm4 appendix-a.trace
	assert_failure 1
	assert_output 'appendix-a.trace:47: gm4: a maximal pairwise-connected set without one coordinator from 25 to 35 (c), with the system stable: nodes 1 and 2, connected, follow 1 and 3'
}

@test "gm3 counts Reorg, ale1 only Norm; both look only within a group" {
	run --separate-stderr elect-check -s async same-group.trace
	assert_failure 1
	assert_output - <<-'EOF'
	same-group.trace:9: gm3: nodes 2 (Norm, ldr=3) and 1 (Reorg, ldr=1) are in the same group but disagree on the coordinator (group 3.1.2) at 10.3
	same-group.trace:10: ale1: nodes 2 (Norm, ldr=3) and 1 (Norm, ldr=1) are both Norm in the same group but follow different leaders (group 3.1.2) at 10.4
	EOF
	run elect-check -s async figure2.trace
	assert_success
}

@test "a node left waiting for good fails ale2w, ale2 and gm4s" {
	run --separate-stderr elect-check wait.trace
	assert_failure 1
	assert_output - <<-'EOF'
	wait.trace:15: gm4s: not settled by 20, c after the system became stable at 10: node 1 is Wait
	wait.trace:15: ale2w: not settled by 20, c after the system became stable at 10: node 1 is Wait
	wait.trace:15: ale2: not settled by 20, c after the system became stable at 10: node 1 is Wait
	EOF
}

@test "gm4s: a leader that cannot be reached, though ale2 holds" {
	run --separate-stderr elect-check unreachable.trace
	assert_failure 1
	assert_output "unreachable.trace:16: gm4s: not settled by 21, c after the system became stable at 11: node 1's leader 4 cannot be reached from it"
	[[ $stderr == *"holds: trace gm3 ale1 ale2w ale2"* ]]
}

@test "a paused leader and the groups formed meanwhile: the async set holds" {
	run elect-check async-pause.trace
	assert_success
	# Without groups to tell them apart, the same run has two leaders.
	run elect-check -s sync async-pause.trace
	assert_failure 1
}

@test "a change of a link restarts the period; a flaky link holds it off" {
	run elect-check -s async - <<-'EOF'
	10 1 boot inc=1 algo=invitation
	10 2 boot inc=1 algo=invitation
	10.1 1 state status=Norm ldr=1 grp=1.1.1
	10.1 2 state status=Norm ldr=2 grp=2.1.1
	15 - net a=1 b=2 link=flaky
	40 - net a=1 b=2 link=down
	45 1 send to=2 msg=AreYouCoordinator
	EOF
	assert_success
	run --separate-stderr elect-check -s async - <<-'EOF'
	10 1 boot inc=1 algo=invitation
	10 2 boot inc=1 algo=invitation
	10.1 1 state status=Norm ldr=1 grp=1.1.1
	10.1 2 state status=Norm ldr=2 grp=2.1.1
	15 - net a=1 b=2 link=flaky
	40 - net a=1 b=2 link=up
	50.5 1 send to=2 msg=AreYouCoordinator
	EOF
	assert_failure 1
	assert_output - <<-'EOF'
	-:7: gm4s: not settled by 50, c after the system became stable at 40: 2 groups, but 1 clique covers the connectivity graph: {1,2}
	-:7: ale2: not settled by 50, c after the system became stable at 40: 2 groups, but 1 clique covers the connectivity graph: {1,2}
	EOF
}

@test "down nodes are in no group and not in the connectivity graph" {
	run elect-check -s async - <<-'EOF'
	10 1 boot inc=1 algo=invitation
	10 2 boot inc=1 algo=invitation
	10 3 boot inc=1 algo=invitation
	10.1 1 state status=Norm ldr=1 grp=1.1.1
	10.1 2 state status=Norm ldr=2 grp=2.1.1
	10.1 3 state status=Norm ldr=3 grp=3.1.1
	10.2 - net a=1 b=2 link=down
	10.2 - net a=1 b=3 link=down
	11 3 crash
	30 1 send to=2 msg=AreYouCoordinator
	EOF
	assert_success
}

@test "--skew: ale2w judges a state only once it held longer than the skew" {
	run elect-check -A ale2w --skew 0.5 - <<-'EOF'
	10 1 boot inc=1 algo=async-bully
	10 2 boot inc=1 algo=async-bully
	10.1 2 state status=Norm ldr=2 grp=2.1.1
	10.1 1 state status=Wait ldr=- grp=2.1.1
	20.3 1 state status=Norm ldr=2 grp=2.1.1
	30 2 send to=1 msg=Norm?
	EOF
	assert_success
	run --separate-stderr elect-check -A ale2w --skew 0.2 - <<-'EOF'
	10 1 boot inc=1 algo=async-bully
	10 2 boot inc=1 algo=async-bully
	10.1 2 state status=Norm ldr=2 grp=2.1.1
	10.1 1 state status=Wait ldr=- grp=2.1.1
	20.3 1 state status=Norm ldr=2 grp=2.1.1
	30 2 send to=1 msg=Norm?
	EOF
	assert_failure 1
	assert_output '-:5: ale2w: not settled by 20, c after the system became stable at 10: node 1 is Wait'
}

@test "the clique cover of a ring of nine is found exactly" {
	# C9: the cover needs five cliques (edges), so five groups pass and
	# six do not, though a greedy cover could find more than five.
	{
		for i in 1 2 3 4 5 6 7 8 9; do
			echo "10 $i boot inc=1 algo=invitation"
		done
		for i in 1 2 3 4 5 6 7 8 9; do
			for j in 1 2 3 4 5 6 7 8 9; do
				d=$(( (j - i + 9) % 9 ))
				[ "$i" -lt "$j" ] && [ "$d" != 1 ] && [ "$d" != 8 ] &&
				    echo "10 - net a=$i b=$j link=down"
			done
		done
		echo "10.1 1 state status=Norm ldr=2 grp=g1"
		echo "10.1 2 state status=Norm ldr=2 grp=g1"
		echo "10.1 3 state status=Norm ldr=4 grp=g2"
		echo "10.1 4 state status=Norm ldr=4 grp=g2"
		echo "10.1 5 state status=Norm ldr=6 grp=g3"
		echo "10.1 6 state status=Norm ldr=6 grp=g3"
		echo "10.1 7 state status=Norm ldr=8 grp=g4"
		echo "10.1 8 state status=Norm ldr=8 grp=g4"
		echo "10.1 9 state status=Norm ldr=9 grp=g5"
		echo "30 1 send to=2 msg=x"
	} > "$BATS_TEST_TMPDIR/c9.trace"
	run elect-check -A ale2 "$BATS_TEST_TMPDIR/c9.trace"
	assert_success
	sed 's/^10.1 8 state status=Norm ldr=8 grp=g4/10.1 8 state status=Norm ldr=8 grp=g6/; s/^10.1 7 state.*/10.1 7 state status=Norm ldr=7 grp=g7/' \
	    "$BATS_TEST_TMPDIR/c9.trace" > "$BATS_TEST_TMPDIR/c9b.trace"
	run --separate-stderr elect-check -A ale2 "$BATS_TEST_TMPDIR/c9b.trace"
	assert_failure 1
	assert_output --partial '6 groups, but 5 cliques cover the connectivity graph'
}

@test "a cover it cannot decide in its budget is undecided, never holds" {
	{
		for i in 1 2 3 4 5 6 7 8 9; do
			echo "10 $i boot inc=1 algo=invitation"
		done
		for i in 1 2 3 4 5 6 7 8 9; do
			for j in 1 2 3 4 5 6 7 8 9; do
				d=$(( (j - i + 9) % 9 ))
				[ "$i" -lt "$j" ] && [ "$d" != 1 ] && [ "$d" != 8 ] &&
				    echo "10 - net a=$i b=$j link=down"
			done
		done
		for i in 1 2 3 4 5 6 7 8 9; do
			echo "10.1 $i state status=Norm ldr=$(( (i + 1) / 2 * 2 > 9 ? 9 : (i + 1) / 2 * 2 )) grp=g$(( (i + 1) / 2 ))"
		done
		echo "30 1 send to=2 msg=x"
	} > "$BATS_TEST_TMPDIR/c9.trace"
	ELECT_CHECK_BUDGET=1 run --separate-stderr elect-check -A ale2 \
	    "$BATS_TEST_TMPDIR/c9.trace"
	assert_failure 1
	assert_output "$BATS_TEST_TMPDIR/c9.trace:46: ale2: undecided: 5 groups among 9 up nodes: could not decide in bounded time whether fewer cliques cover the connectivity graph"
	[[ $stderr == *"undecided: ale2 (1)"* ]]
	run elect-check -A ale2 "$BATS_TEST_TMPDIR/c9.trace"
	assert_success
}

@test "a cover of 64 nodes is decided" {
	# Two cliques of 32 joined by one edge: two groups are enough.
	{
		for i in $(seq 64); do echo "10 $i boot inc=1 algo=invitation"; done
		for i in $(seq 32); do for j in $(seq 33 64); do
			[ "$i.$j" = "32.33" ] || echo "10 - net a=$i b=$j link=down"
		done; done
		for i in $(seq 32); do echo "10.1 $i state status=Norm ldr=32 grp=a"; done
		for i in $(seq 33 64); do echo "10.1 $i state status=Norm ldr=64 grp=b"; done
		echo "30 1 send to=2 msg=x"
	} > "$BATS_TEST_TMPDIR/k64.trace"
	run elect-check -s async "$BATS_TEST_TMPDIR/k64.trace"
	assert_success
}
