#!/usr/bin/env bats
# elect-check's synchronous assertions (Garcia-Molina's Assertions 1 and 2,
# Stoller's SLE1 and SLE2) on hand-written traces.

load helper
load checkrun
bats_require_minimum_version 1.5.0

setup() {
	cd "$FIXTURES/check"
}

@test "a Bully run with a crash and a recovery satisfies the sync set" {
	run --separate-stderr elect-check sync-ok.trace
	assert_success
	assert_output ''
	[[ $stderr == *"checked as sync"* ]]
	[[ $stderr == *"holds: trace gm1 gm2 sle1 sle2"* ]]
}

@test "Theorem 2: a paused coordinator breaks Assertion 1 and SLE1" {
	run --separate-stderr elect-check theorem2.trace
	assert_failure 1
	assert_output - <<-'EOF'
	theorem2.trace:16: gm1: nodes 3 (Norm, ldr=3) and 2 (Reorg, ldr=2) disagree on the coordinator at 22.2
	theorem2.trace:18: sle1: nodes 3 (Norm, ldr=3) and 2 (Norm, ldr=2) are both Norm but follow different leaders at 22.3
	EOF
}

# Issue: a host restarted with another key takes its live peers for down
# and its core names itself leader; its daemon vetoes it.
@test "a node its daemon vetoes (misfit lead=no) holds no role, whatever its core's state" {
	run --separate-stderr elect-check vetoed.trace
	assert_success
	assert_output ''
	[[ $stderr == *"holds: trace gm1 gm2 sle1 sle2"* ]]
	# without the veto its core's Norm is a second leader
	run --separate-stderr elect-check - < <(grep -v ' misfit ' vetoed.trace)
	assert_failure 1
	assert_output - <<-'EOF'
	-:26: gm1: nodes 2 (Norm, ldr=3) and 1 (Reorg, ldr=1) disagree on the coordinator at 21
	-:27: sle1: nodes 2 (Norm, ldr=3) and 1 (Norm, ldr=1) are both Norm but follow different leaders at 21.1
	EOF
	# node 1's veto alone keeps the others' Norm unopposed
	sed 's/^20.52 \([23]\) misfit lead=no /20.52 \1 misfit lead=yes /' \
	    vetoed.trace >"$BATS_TEST_TMPDIR/one.trace"
	run --separate-stderr elect-check "$BATS_TEST_TMPDIR/one.trace"
	assert_success
	# lead=yes gives a role back: its Norm then counts again
	sed 's/^20.51 1 misfit lead=no /20.51 1 misfit lead=yes /' \
	    "$BATS_TEST_TMPDIR/one.trace" >"$BATS_TEST_TMPDIR/none.trace"
	run --separate-stderr elect-check "$BATS_TEST_TMPDIR/none.trace"
	assert_failure 1
	assert_output --partial ': gm1: nodes 2 (Norm, ldr=3) and 1 (Reorg, ldr=1) disagree'
}

@test "a crashed leader whose last state names itself is no violation" {
	run elect-check -s sync crashed-leader.trace
	assert_success
	run elect-check -s async crashed-leader.trace
	assert_success
}

@test "gm1 counts Reorg, sle1 only Norm" {
	run --separate-stderr elect-check gm1-reorg.trace
	assert_failure 1
	assert_output 'gm1-reorg.trace:11: gm1: nodes 3 (Norm, ldr=3) and 2 (Reorg, ldr=2) disagree on the coordinator at 11.1'
	run elect-check -A sle1 gm1-reorg.trace
	assert_success
}

@test "one report per episode of disagreement" {
	# Node 1 joins the disagreement at 22.21 and 22.31: still the same one.
	run --separate-stderr elect-check -A gm1,sle1 theorem2.trace
	assert_equal "${#lines[@]}" 2
}

@test "split brain: sle1 and gm2 fail, SLE2's ldrElected holds" {
	run --separate-stderr elect-check split-brain.trace
	assert_failure 1
	assert_output - <<-'EOF'
	split-brain.trace:6: gm1: nodes 1 (Norm, ldr=1) and 2 (Norm, ldr=2) disagree on the coordinator at 10.5
	split-brain.trace:6: sle1: nodes 1 (Norm, ldr=1) and 2 (Norm, ldr=2) are both Norm but follow different leaders at 10.5
	split-brain.trace:7: gm2: no coordinator from 10 to 20 (c), with no failure: nodes 1 and 2 follow 1 and 2
	EOF
	run elect-check -A sle2 split-brain.trace
	assert_success
}

@test "sle2: a state that leaves its settled state without a failure" {
	run --separate-stderr elect-check unsettled.trace
	assert_failure 1
	assert_output 'unsettled.trace:11: sle2: node 1 left its state at 30 (Norm ldr=3 to Elec ldr=-), which had to hold from 20, c after the last failure or recovery at 10'
}

@test "gm2 asks only that a coordinator comes back" {
	run elect-check -A gm2 unsettled.trace
	assert_success
}

@test "an election that never ends fails gm2 and sle2 at the first line past c" {
	run --separate-stderr elect-check stuck.trace
	assert_failure 1
	assert_output - <<-'EOF'
	stuck.trace:10: gm2: no coordinator from 10 to 20 (c), with no failure: node 1 is Elec
	stuck.trace:10: sle2: no leader elected by 20, c after the last failure or recovery at 10: node 1 is Elec
	EOF
}

@test "-c moves the bound of the liveness assertions" {
	run elect-check -c 12 stuck.trace
	assert_success
	run elect-check -c 10.999 -A sle2 stuck.trace
	assert_failure 1
	# The trace ends exactly at c: the last state is judged.
	run --separate-stderr elect-check -c 11 -A sle2 stuck.trace
	assert_failure 1
	assert_output 'stuck.trace:11: sle2: no leader elected by 21, c after the last failure or recovery at 10: node 1 is Elec'
}

@test "a failure restarts the period of SLE2 and Assertion 2" {
	run elect-check - <<-'EOF'
	10 1 boot inc=1 algo=bully
	10 2 boot inc=1 algo=bully
	10.1 2 state status=Norm ldr=2 grp=-
	10.1 1 state status=Elec ldr=- grp=-
	19 2 crash
	20 2 boot inc=2 algo=bully
	25 1 send to=2 msg=AreYouThere
	EOF
	assert_success
}

@test "a recovery restarts SLE2's period, not Assertion 2's" {
	run --separate-stderr elect-check - <<-'EOF'
	10 1 boot inc=1 algo=bully
	10 2 boot inc=1 algo=bully
	10.1 2 state status=Norm ldr=2 grp=-
	10.1 1 state status=Elec ldr=- grp=-
	15 3 boot inc=1 algo=bully
	15.1 3 state status=Elec ldr=- grp=-
	15.2 2 state status=Elec ldr=- grp=-
	15.3 3 state status=Norm ldr=3 grp=-
	15.3 2 state status=Norm ldr=3 grp=-
	21 1 state status=Norm ldr=3 grp=-
	30 3 send to=1 msg=AreYouThere
	EOF
	assert_failure 1
	assert_output '-:10: gm2: no coordinator from 10 to 20 (c), with no failure: node 1 is Elec'
}

@test "a pause is a failure for the liveness assertions, from pause to resume" {
	run elect-check - <<-'EOF'
	10 1 boot inc=1 algo=bully
	10 2 boot inc=1 algo=bully
	10.1 2 state status=Norm ldr=2 grp=-
	10.1 1 state status=Norm ldr=2 grp=-
	12 2 pause
	12.5 1 state status=Elec ldr=- grp=-
	40 2 resume
	40.1 1 state status=Norm ldr=2 grp=-
	55 2 send to=1 msg=AreYouThere
	EOF
	assert_success
}

@test "--skew: a disagreement shorter than the skew is not certain" {
	run --separate-stderr elect-check -A sle1 skew.trace
	assert_failure 1
	assert_output 'skew.trace:7: sle1: nodes 2 (Norm, ldr=2) and 1 (Norm, ldr=1) are both Norm but follow different leaders at 12'
	# Certain once node 2's role is seen to end more than the skew later.
	run --separate-stderr elect-check -A sle1 --skew 0.1 skew.trace
	assert_failure 1
	assert_output 'skew.trace:8: sle1: nodes 2 (Norm, ldr=2) and 1 (Norm, ldr=1) are both Norm but follow different leaders at 12'
	run elect-check -A sle1 --skew 0.2 skew.trace
	assert_success
}

@test "--skew: a disagreement still going is certain once it outlasts the skew" {
	run --separate-stderr elect-check -A sle1 --skew 1 - <<-'EOF'
	10 1 boot inc=1 algo=bully
	10 2 boot inc=1 algo=bully
	10.1 2 state status=Norm ldr=2 grp=-
	12 1 state status=Norm ldr=1 grp=-
	12.5 1 send to=2 msg=x
	13.5 1 send to=2 msg=x
	EOF
	assert_failure 1
	assert_output '-:6: sle1: nodes 2 (Norm, ldr=2) and 1 (Norm, ldr=1) are both Norm but follow different leaders at 12'
}

@test "--skew: a change near the end of SLE2's period is not certain to follow it" {
	run elect-check -A sle2 --skew 0.5 - <<-'EOF'
	10 1 boot inc=1 algo=bully
	10 2 boot inc=1 algo=bully
	10.1 2 state status=Norm ldr=2 grp=-
	10.1 1 state status=Norm ldr=2 grp=-
	20.4 1 state status=Elec ldr=- grp=-
	20.41 1 state status=Norm ldr=2 grp=-
	30 2 send to=1 msg=x
	EOF
	assert_success
	run elect-check -A sle2 --skew 0.3 - <<-'EOF'
	10 1 boot inc=1 algo=bully
	10 2 boot inc=1 algo=bully
	10.1 2 state status=Norm ldr=2 grp=-
	10.1 1 state status=Norm ldr=2 grp=-
	20.4 1 state status=Elec ldr=- grp=-
	20.41 1 state status=Norm ldr=2 grp=-
	30 2 send to=1 msg=x
	EOF
	assert_failure 1
}

@test "a period exactly c long is long enough: the line that ends it is named" {
	run --separate-stderr elect-check exactly-c.trace
	assert_failure 1
	assert_output - <<-'EOF2'
	exactly-c.trace:10: gm2: no coordinator from 10 to 20 (c), with no failure: node 1 is Elec
	exactly-c.trace:10: sle2: no leader elected by 20, c after the last failure or recovery at 10: node 1 is Elec
	EOF2
	run --separate-stderr elect-check -s async -A gm4 exactly-c.trace
	assert_failure 1
	assert_output - <<-'EOF2'
	exactly-c.trace:10: gm4: a maximal pairwise-connected set without one coordinator from 10 to 20 (c), with the system stable: node 1 is Elec
	exactly-c.trace:10: gm4s: not settled by 20, c after the system became stable at 10: node 1 is Elec
	exactly-c.trace:10: ale2w: not settled by 20, c after the system became stable at 10: node 1 is Elec
	exactly-c.trace:10: ale2: not settled by 20, c after the system became stable at 10: node 1 is Elec
	EOF2
	# A shade longer than the period, c is not reached.
	run elect-check -c 10.000000001 exactly-c.trace
	assert_success
	# Reached at the end instant, before the crash: it holds.
	run elect-check - <<-'EOF2'
	10 1 boot inc=1 algo=bully nodes=3
	10 2 boot inc=1 algo=bully nodes=3
	10 3 boot inc=1 algo=bully nodes=3
	10.1 3 state status=Norm ldr=3 grp=-
	10.1 2 state status=Norm ldr=3 grp=-
	10.1 1 state status=Elec ldr=- grp=-
	20 1 state status=Norm ldr=3 grp=-
	20 2 crash
	40 3 send to=1 msg=AreYouThere
	EOF2
	assert_success
}

@test "--skew: conflicts too many to wait on at once leave sle1 undecided" {
	# 64 nodes follow 1, then 64 follow 2: 4096 pairs wait on the skew.
	# Node 129 follows 3 from 2.01 to the end, a conflict certain in every
	# ordering, but its pairs find no room; the first 64 go back to an
	# election within the skew, so none of the pairs kept is certain.
	{
		for i in $(seq 129); do echo "0 $i boot inc=1 algo=bully"; done
		for i in $(seq 64); do echo "1 $i state status=Norm ldr=1 grp=-"; done
		for i in $(seq 65 128); do echo "2 $i state status=Norm ldr=2 grp=-"; done
		echo "2.01 129 state status=Norm ldr=3 grp=-"
		for i in $(seq 64); do echo "2.05 $i state status=Elec ldr=- grp=-"; done
		echo "30 129 send to=1 msg=AreYouThere"
	} > "$BATS_TEST_TMPDIR/many.trace"
	run --separate-stderr elect-check -A sle1 --skew 0.1 "$BATS_TEST_TMPDIR/many.trace"
	assert_failure 1
	assert_output "$BATS_TEST_TMPDIR/many.trace:323: sle1: undecided: more than 4096 pairs of nodes in conflict waited on the skew at once"
}

@test "a recovery is no failure for gm2, but one that brings up a flaky link is" {
	# With the link flaky, node 2's boot starts a failure of the
	# environment; with it down, node 2 is left out for good.
	for link in flaky down; do
		printf '%s\n' "0 1 boot inc=1 algo=bully nodes=2" \
		    "0.5 1 state status=Norm ldr=1 grp=-" \
		    "1 - net a=1 b=2 link=$link" \
		    "2 2 boot inc=1 algo=bully nodes=2" \
		    "30 1 send to=2 msg=AreYouThere" > "$BATS_TEST_TMPDIR/$link.trace"
	done
	run elect-check -A gm2 "$BATS_TEST_TMPDIR/flaky.trace"
	assert_success
	run --separate-stderr elect-check -A gm2 "$BATS_TEST_TMPDIR/down.trace"
	assert_failure 1
	assert_output "$BATS_TEST_TMPDIR/down.trace:5: gm2: no coordinator from 2 to 12 (c), with no failure: node 2 is Down"
}

@test "messages never received excuse gm2 and sle2, and the summary says which period" {
	# the fixture's nodes ran with t_TX = 2 ms
	run --separate-stderr elect-check --msg-bound 0.002 stuck-lost.trace
	assert_success
	assert_output ''
	assert_regex "$stderr" "1 message not received within 0.002 s, from 15.002 to 15.002 \(first: 3 to 1 AreYouThere sent at 15\): liveness excused from 15.002 to 25.002"
	# with a bound past the end of the trace, nothing is overdue
	run --separate-stderr elect-check --msg-bound 100 stuck-lost.trace
	assert_failure 1
	reports "stuck-lost.trace:12: gm2" "stuck-lost.trace:12: sle2"
}

@test "a receipt matches a send by its whole msg= and elid=, and a long msg= is cut in the summary" {
	# Differing past the eighth byte, or msg= and elid= cut elsewhere:
	# another message, and both sends stay overdue.
	printf '%s\n' "0 1 boot inc=1 algo=bully nodes=2" \
	    "0 2 boot inc=1 algo=bully nodes=2" \
	    "1 1 send to=2 msg=AreYouThereAgainAndAgainAndAgain elid=1.1.1" \
	    "1 1 send to=2 msg=AreYouThereAgain elid=1.1.2" \
	    "1 1 send to=2 msg=Ab elid=c" \
	    "1 1 send to=2 msg=Halt" \
	    "1.001 2 recv from=1 msg=AreYouThereAgainAndAgainAndAgaiN elid=1.1.1" \
	    "1.001 2 recv from=1 msg=AreYouThereAgain elid=1.1.2" \
	    "1.001 2 recv from=1 msg=A elid=bc" \
	    "1.001 2 recv from=1 msg=Halt" \
	    "2 1 state status=Norm ldr=2 grp=-" > "$BATS_TEST_TMPDIR/m.trace"
	run --separate-stderr elect-check -A trace --msg-bound 0.002 "$BATS_TEST_TMPDIR/m.trace"
	assert_success
	assert_regex "$stderr" "2 messages not received within 0.002 s, from 1.002 to 1.002 \(first: 1 to 2 AreYouThereAgainAndAgai sent at 1\)"
}

@test "a conflict while a message is later than t_TX is not judged, and never certified" {
	run --separate-stderr elect-check --msg-bound 0.002 late.trace
	assert_failure 1
	reports "late.trace:11: gm1" "late.trace:11: sle1"
	assert_output --partial "gm1: not judged: nodes 2 (Norm, ldr=2) and 3 (Norm, ldr=3) disagree on the coordinator at 1.6039, while a message to node 2 (3 to 2 Coordinator sent at 1.6) was later than the bound of the synchronous model"
	assert_regex "$stderr" "not judged where the run left the model: gm1 \(1\) sle1 \(1\)"
	run --separate-stderr elect-check --msg-bound 0.002 --json -A sle1 \
	    late.trace
	assert_output --partial '"verdict":"not judged"'
	# the message in time: the same lines break both
	run --separate-stderr elect-check --msg-bound 0.005 late.trace
	assert_failure 1
	assert_output - <<-'EOF'
	late.trace:11: gm1: nodes 2 (Norm, ldr=2) and 3 (Norm, ldr=3) disagree on the coordinator at 1.6039
	late.trace:11: sle1: nodes 2 (Norm, ldr=2) and 3 (Norm, ldr=3) are both Norm but follow different leaders at 1.6039
	EOF
}
