#!/usr/bin/env bats
# The bully core (Garcia-Molina 1982, Appendix I), driven without sockets
# by algo-drive, and run in elect-sim.

load helper
load elect-sim

@test "bully: the highest node halts, names and readies every lower node" {
	run algo-drive -t check=100 -t timeout=300 -a bully -i 3 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=2 msg=Ack elid=3.1.0 seq=1 ans=yes
	2 recv from=1 msg=Ack elid=3.1.0 seq=2 ans=yes
	3 recv from=2 msg=Ack elid=3.1.0 seq=3 ans=yes
	4 recv from=1 msg=Ack elid=3.1.0 seq=4 ans=yes
	5 recv from=2 msg=Ack elid=3.1.0 seq=5 ans=yes
	6 recv from=1 msg=Ack elid=3.1.0 seq=6 ans=yes
	6 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	timer set check at=100
	state status=Elec ldr=- grp=-
	send to=2 msg=Halt elid=3.1.0 seq=1
	timer set call at=50
	> 1 recv from=2 msg=Ack elid=3.1.0 seq=1 ans=yes
	send to=1 msg=Halt elid=3.1.0 seq=2
	timer set call at=51
	> 2 recv from=1 msg=Ack elid=3.1.0 seq=2 ans=yes
	state status=Reorg ldr=3 grp=-
	send to=2 msg=NewCoordinator elid=3.1.0 seq=3
	timer set call at=52
	> 3 recv from=2 msg=Ack elid=3.1.0 seq=3 ans=yes
	send to=1 msg=NewCoordinator elid=3.1.0 seq=4
	timer set call at=53
	> 4 recv from=1 msg=Ack elid=3.1.0 seq=4 ans=yes
	send to=2 msg=Ready elid=3.1.0 seq=5
	timer set call at=54
	> 5 recv from=2 msg=Ack elid=3.1.0 seq=5 ans=yes
	send to=1 msg=Ready elid=3.1.0 seq=6
	timer set call at=55
	> 6 recv from=1 msg=Ack elid=3.1.0 seq=6 ans=yes
	state status=Norm ldr=3 grp=-
	timer cancel call
	> 6 query
	status status=Norm ldr=3 grp=- leader=yes since=6
	EOF
}

@test "bully: a node gives up its bid when a higher node answers, and asks again after Timeout" {
	run algo-drive -t check=100 -t timeout=300 -a bully -i 3 -n 5 <<-EOF
	0 boot inc=2
	1 recv from=4 msg=Ack elid=3.2.0 seq=1 ans=yes
	301 timer timeout
	302 recv from=4 msg=Ack elid=3.2.1 seq=2 ans=yes
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=2
	timer set check at=100
	send to=4 msg=AreYouThere elid=3.2.0 seq=1
	timer set call at=50
	> 1 recv from=4 msg=Ack elid=3.2.0 seq=1 ans=yes
	timer cancel call
	timer set timeout at=301
	> 301 timer timeout
	send to=4 msg=AreYouThere elid=3.2.1 seq=2
	timer set call at=351
	> 302 recv from=4 msg=Ack elid=3.2.1 seq=2 ans=yes
	timer cancel call
	timer set timeout at=602
	EOF
}

# A member that fails to acknowledge Ready makes the coordinator restart
# its election; it stays in Reorg while it asks the higher nodes again.
@test "bully: higher nodes silent for T each are down, so the node halts the lower ones" {
	run algo-drive -q -a bully -i 3 -n 5 <<-EOF
	0 boot inc=1
	50 timer call
	100 timer call
	101 recv from=2 msg=Ack elid=3.1.0 seq=3 ans=yes
	151 timer call
	152 recv from=2 msg=Ack elid=3.1.0 seq=5 ans=yes
	202 timer call
	202 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	send to=4 msg=AreYouThere elid=3.1.0 seq=1
	> 50 timer call
	send to=5 msg=AreYouThere elid=3.1.0 seq=2
	> 100 timer call
	state status=Elec ldr=- grp=-
	send to=2 msg=Halt elid=3.1.0 seq=3
	> 101 recv from=2 msg=Ack elid=3.1.0 seq=3 ans=yes
	send to=1 msg=Halt elid=3.1.0 seq=4
	> 151 timer call
	state status=Reorg ldr=3 grp=-
	send to=2 msg=NewCoordinator elid=3.1.0 seq=5
	> 152 recv from=2 msg=Ack elid=3.1.0 seq=5 ans=yes
	send to=2 msg=Ready elid=3.1.0 seq=6
	> 202 timer call
	send to=4 msg=AreYouThere elid=3.1.1 seq=7
	> 202 query
	status status=Reorg ldr=3 grp=- leader=yes since=151
	EOF
}

@test "bully: Halt stops the node's own election; only the halter's NewCoordinator and Ready count" {
	run algo-drive -q -a bully -i 2 -n 5 <<-EOF
	0 boot inc=1
	10 recv from=5 msg=Halt elid=5.1.0 seq=7
	11 recv from=4 msg=NewCoordinator elid=4.1.0 seq=3
	12 recv from=5 msg=Ready elid=5.1.0 seq=9
	13 recv from=5 msg=NewCoordinator elid=5.1.0 seq=8
	14 recv from=4 msg=Ready elid=4.1.0 seq=4
	15 recv from=5 msg=Ready elid=5.1.0 seq=9
	15 query
	20 recv from=5 msg=AreYouNormal seq=10
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	send to=3 msg=AreYouThere elid=2.1.0 seq=1
	> 10 recv from=5 msg=Halt elid=5.1.0 seq=7
	state status=Elec ldr=- grp=-
	send to=5 msg=Ack elid=5.1.0 seq=7 ans=yes
	> 11 recv from=4 msg=NewCoordinator elid=4.1.0 seq=3
	send to=4 msg=Ack elid=4.1.0 seq=3 ans=yes
	> 12 recv from=5 msg=Ready elid=5.1.0 seq=9
	send to=5 msg=Ack elid=5.1.0 seq=9 ans=yes
	> 13 recv from=5 msg=NewCoordinator elid=5.1.0 seq=8
	state status=Reorg ldr=5 grp=-
	send to=5 msg=Ack elid=5.1.0 seq=8 ans=yes
	> 14 recv from=4 msg=Ready elid=4.1.0 seq=4
	send to=4 msg=Ack elid=4.1.0 seq=4 ans=yes
	> 15 recv from=5 msg=Ready elid=5.1.0 seq=9
	state status=Norm ldr=5 grp=-
	send to=5 msg=Ack elid=5.1.0 seq=9 ans=yes
	> 15 query
	status status=Norm ldr=5 grp=- leader=no since=15
	> 20 recv from=5 msg=AreYouNormal seq=10
	send to=5 msg=Ack elid=- seq=10 ans=yes
	EOF
}

# Timeout's call went unanswered for T: the coordinator is down, so
# Election goes straight to halting the lower nodes, T sooner.
@test "bully: Timeout finds the coordinator gone and the node takes over without asking it again" {
	run algo-drive -q -a bully -i 2 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=3 msg=Halt elid=3.1.0 seq=1
	2 recv from=3 msg=NewCoordinator elid=3.1.0 seq=3
	3 recv from=3 msg=Ready elid=3.1.0 seq=5
	303 timer timeout
	353 timer call
	354 recv from=1 msg=Ack elid=2.1.1 seq=3 ans=yes
	355 recv from=1 msg=Ack elid=2.1.1 seq=4 ans=yes
	356 recv from=1 msg=Ack elid=2.1.1 seq=5 ans=yes
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	send to=3 msg=AreYouThere elid=2.1.0 seq=1
	> 1 recv from=3 msg=Halt elid=3.1.0 seq=1
	state status=Elec ldr=- grp=-
	send to=3 msg=Ack elid=3.1.0 seq=1 ans=yes
	> 2 recv from=3 msg=NewCoordinator elid=3.1.0 seq=3
	state status=Reorg ldr=3 grp=-
	send to=3 msg=Ack elid=3.1.0 seq=3 ans=yes
	> 3 recv from=3 msg=Ready elid=3.1.0 seq=5
	state status=Norm ldr=3 grp=-
	send to=3 msg=Ack elid=3.1.0 seq=5 ans=yes
	> 303 timer timeout
	send to=3 msg=AreYouThere elid=- seq=2
	> 353 timer call
	state status=Elec ldr=3 grp=-
	send to=1 msg=Halt elid=2.1.1 seq=3
	> 354 recv from=1 msg=Ack elid=2.1.1 seq=3 ans=yes
	state status=Reorg ldr=2 grp=-
	send to=1 msg=NewCoordinator elid=2.1.1 seq=4
	> 355 recv from=1 msg=Ack elid=2.1.1 seq=4 ans=yes
	send to=1 msg=Ready elid=2.1.1 seq=5
	> 356 recv from=1 msg=Ack elid=2.1.1 seq=5 ans=yes
	state status=Norm ldr=2 grp=-
	EOF
}

# Only the coordinator that failed Timeout's call is known down: Election
# still asks every other higher node, for T each.
@test "bully: after Timeout the node still asks the higher nodes below the coordinator" {
	run algo-drive -q -a bully -i 1 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=3 msg=Halt elid=3.1.0 seq=1
	2 recv from=3 msg=NewCoordinator elid=3.1.0 seq=2
	3 recv from=3 msg=Ready elid=3.1.0 seq=3
	303 timer timeout
	353 timer call
	403 timer call
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 303 timer timeout
	send to=3 msg=AreYouThere elid=- seq=2
	> 353 timer call
	send to=2 msg=AreYouThere elid=1.1.1 seq=3
	> 403 timer call
	state status=Elec ldr=3 grp=-
	state status=Reorg ldr=1 grp=-
	state status=Norm ldr=1 grp=-
	EOF
	assert_equal "${lines[-1]}" "state status=Norm ldr=1 grp=-"
}

@test "bully: Check finds a node not normal and calls an election; a late answer is ignored" {
	run algo-drive -q -a bully -i 3 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=2 msg=Ack elid=3.1.0 seq=1 ans=yes
	2 recv from=1 msg=Ack elid=3.1.0 seq=2 ans=yes
	3 recv from=2 msg=Ack elid=3.1.0 seq=3 ans=yes
	4 recv from=1 msg=Ack elid=3.1.0 seq=4 ans=yes
	5 recv from=2 msg=Ack elid=3.1.0 seq=5 ans=yes
	6 recv from=1 msg=Ack elid=3.1.0 seq=6 ans=yes
	100 timer check
	101 recv from=1 msg=Ack seq=7 ans=yes
	102 recv from=2 msg=Ack seq=8 ans=no
	103 recv from=1 msg=Ack seq=7 ans=yes
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 100 timer check
	send to=1 msg=AreYouNormal elid=- seq=7
	> 101 recv from=1 msg=Ack seq=7 ans=yes
	send to=2 msg=AreYouNormal elid=- seq=8
	> 102 recv from=2 msg=Ack seq=8 ans=no
	state status=Elec ldr=3 grp=-
	send to=2 msg=Halt elid=3.1.1 seq=9
	> 103 recv from=1 msg=Ack seq=7 ans=yes
	EOF
	assert_equal "${lines[-1]}" "> 103 recv from=1 msg=Ack seq=7 ans=yes"
}

@test "bully: malformed payloads are refused and change nothing" {
	run algo-drive -q -a bully -i 2 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=3 msg=Halt elid=3.1.0
	2 recv from=3 msg=Ack elid=2.1.0 seq=1
	3 recv from=3 msg=Halt elid=1.1.0 seq=5
	4 recv from=3 msg=Ack elid=3.1.0 seq=1 ans=yes
	4 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	send to=3 msg=AreYouThere elid=2.1.0 seq=1
	> 1 recv from=3 msg=Halt elid=3.1.0
	error refused
	> 2 recv from=3 msg=Ack elid=2.1.0 seq=1
	error refused
	> 3 recv from=3 msg=Halt elid=1.1.0 seq=5
	error refused
	> 4 recv from=3 msg=Ack elid=3.1.0 seq=1 ans=yes
	error refused
	> 4 query
	status status=Down ldr=- grp=- leader=no since=0
	EOF
}

@test "bully: a node that leaves goes Down, stops its timers and hears nothing more" {
	run algo-drive -t check=100 -t timeout=300 -a bully -i 2 -n 3 <<-EOF
	0 boot inc=1
	5 cmd leave
	6 recv from=3 msg=Halt elid=3.1.0 seq=4
	6 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	timer set check at=100
	send to=3 msg=AreYouThere elid=2.1.0 seq=1
	timer set call at=50
	> 5 cmd leave
	timer cancel call
	timer cancel check
	timer cancel timeout
	> 6 recv from=3 msg=Halt elid=3.1.0 seq=4
	> 6 query
	status status=Down ldr=- grp=- leader=no since=0
	EOF
}

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

# The common status of an algorithm without leases: a leader leads until
# it stops considering itself leader (until=forever), without a fencing
# token; a node that does not lead has no deadline.
@test "bully: the leadership in the common status has no deadline and no token" {
	run algo-drive -q -t check=100 -t timeout=300 -a bully -i 3 -n 3 <<-EOF
	0 boot inc=1
	0 leadership
	1 recv from=2 msg=Ack elid=3.1.0 seq=1 ans=yes
	2 recv from=1 msg=Ack elid=3.1.0 seq=2 ans=yes
	3 recv from=2 msg=Ack elid=3.1.0 seq=3 ans=yes
	4 recv from=1 msg=Ack elid=3.1.0 seq=4 ans=yes
	5 recv from=2 msg=Ack elid=3.1.0 seq=5 ans=yes
	6 recv from=1 msg=Ack elid=3.1.0 seq=6 ans=yes
	6 leadership
	EOF
	assert_success
	run grep '^leadership' <<<"$output"
	assert_output - <<-EOF
	leadership leader=no until=- token=0 hint=-
	leadership leader=yes until=forever token=0 hint=-
	EOF
}
