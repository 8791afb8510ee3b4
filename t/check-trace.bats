#!/usr/bin/env bats
# elect-check's trace assertion: a trace is certified only when complete.

load helper
bats_require_minimum_version 1.5.0

@test "a complete trace holds" {
	run --separate-stderr elect-check -A trace "$FIXTURES/check/sync-ok.trace"
	assert_success
	assert_output ''
}

@test "lost lines are never certified" {
	run --separate-stderr elect-check -A trace - <<-'EOF'
	1 1 boot inc=1 algo=bully
	2 1 lost n=3
	3 - lost n=2
	4 1 lost n=0
	EOF
	assert_failure 1
	assert_output - <<-'EOF'
	-:2: trace: node 1 lost 3 lines
	-:3: trace: 2 lines were lost
	EOF
}

@test "time going backwards within a node" {
	run --separate-stderr elect-check -A trace - <<-'EOF'
	1 1 boot inc=1 algo=bully
	1 2 boot inc=1 algo=bully
	5 1 send to=2 msg=x
	4.5 2 recv from=1 msg=x
	4 1 send to=2 msg=y
	3 - net a=1 b=2 link=down
	2 - net a=1 b=2 link=up
	EOF
	assert_failure 1
	assert_output - <<-'EOF'
	-:4: trace: line out of time order: 4.5 after a line of 5; the assertions of the protocol are not judged from here on
	-:5: trace: time goes backwards at node 1: 4 after 5
	-:7: trace: time goes backwards in the lines of "-": 2 after 3
	EOF
}

@test "with --skew, a harness may stamp a crash or pause a little early" {
	run --separate-stderr elect-check -A trace --skew 0.1 - <<-'EOF'
	1 1 boot inc=1 algo=bully
	2 1 send to=2 msg=x
	1.95 1 pause
	2.1 1 resume
	2.2 1 send to=2 msg=y
	2.15 1 crash
	EOF
	assert_success
	run --separate-stderr elect-check -A trace --skew 0.1 - <<-'EOF'
	1 1 boot inc=1 algo=bully
	2 1 send to=2 msg=x
	1.95 1 send to=2 msg=y
	1.8 1 crash
	EOF
	assert_failure 1
	assert_output - <<-'EOF'
	-:3: trace: time goes backwards at node 1: 1.95 after 2
	-:4: trace: line out of time order: 1.8 after a line of 2, more than the skew; the assertions of the protocol are not judged from here on
	-:4: trace: time goes backwards at node 1: 1.8 after 1.95
	EOF
}

@test "incarnations must increase from boot to boot" {
	run --separate-stderr elect-check -A trace - <<-'EOF'
	1 1 boot inc=4 algo=bully
	2 1 crash
	3 1 boot inc=4 algo=bully
	4 1 exit why=signal
	5 1 boot inc=5 algo=bully
	EOF
	assert_failure 1
	assert_output '-:3: trace: node 1 boots with inc=4, not above its last incarnation 4'
}

@test "a boot of a node that never stopped" {
	run --separate-stderr elect-check -A trace - <<-'EOF'
	1 1 boot inc=1 algo=bully
	2 1 boot inc=2 algo=bully
	EOF
	assert_failure 1
	assert_output '-:2: trace: node 1 boots while up: the crash or exit before it is missing'
}

@test "lines of a node that is down" {
	run --separate-stderr elect-check -A trace - <<-'EOF'
	1 2 state status=Norm ldr=2 grp=-
	1.5 2 send to=1 msg=x
	1.5 3 crash
	2 1 boot inc=1 algo=bully
	3 1 crash
	3 1 crash
	4 1 state status=Norm ldr=1 grp=-
	EOF
	assert_failure 1
	assert_output - <<-'EOF'
	-:1: trace: node 2 writes state while down: its boot is missing (taken as up from here)
	-:7: trace: node 1 writes state while down: its boot is missing (taken as up from here)
	EOF
}

@test "a node whose boot is missing still counts as up" {
	run --separate-stderr elect-check -A sle1 - <<-'EOF'
	1 1 boot inc=1 algo=bully
	1 1 state status=Norm ldr=1 grp=-
	1 2 state status=Norm ldr=2 grp=-
	EOF
	assert_failure 1
	assert_output - <<-'EOF'
	-:3: trace: node 2 writes state while down: its boot is missing (taken as up from here)
	-:3: sle1: nodes 1 (Norm, ldr=1) and 2 (Norm, ldr=2) are both Norm but follow different leaders at 1
	EOF
}

@test "more nodes than the cluster has" {
	run --separate-stderr elect-check -A trace - <<-'EOF'
	1 1 boot inc=1 algo=bully nodes=2
	1 2 boot inc=1 algo=bully nodes=2
	1 3 boot inc=1 algo=bully nodes=2
	EOF
	assert_failure 1
	assert_output '-:3: trace: 3 nodes, more than the cluster'"'"'s size 2'
	run elect-check -A trace --nodes 3 - <<-'EOF'
	1 1 boot inc=1 algo=bully nodes=2
	1 2 boot inc=1 algo=bully nodes=2
	1 3 boot inc=1 algo=bully nodes=2
	EOF
	assert_success
}

@test "a line out of time order is reported there, and the protocol is not blamed for what follows" {
	run --separate-stderr elect-check -s sync "$FIXTURES/check/disorder.trace"
	assert_failure 1
	assert_output "$FIXTURES/check/disorder.trace:8: trace: line out of time order: 1.1 after a line of 1.2; the assertions of the protocol are not judged from here on"
	assert_regex "$stderr" "not judged from .*disorder.trace:8 on, where lines come out of time order: gm1 gm2 sle1 sle2"
	# in order, the same lines show the split brain
	run --separate-stderr sh -c "sort -s -n -k1,1 '$FIXTURES/check/disorder.trace' | elect-check -s sync"
	assert_failure 1
	assert_output --partial "sle1: nodes"
	refute_output --partial "trace:"
	# within the skew, lines of different nodes may come in either order
	run --separate-stderr elect-check -A trace --skew 0.2 "$FIXTURES/check/disorder.trace"
	assert_success
}

@test "the trace assertion always runs" {
	run --separate-stderr elect-check -A sle1 - <<-'EOF'
	1 1 boot inc=1 algo=bully
	2 1 lost n=1
	EOF
	assert_failure 1
	assert_output '-:2: trace: node 1 lost 1 line'
}
