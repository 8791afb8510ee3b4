#!/usr/bin/env bats
# The bully-fd core (Stoller 1997, Figure 1, mirrored: a higher id wins),
# driven without sockets by algo-drive, and run in elect-sim.

load helper
load elect-sim

@test "bully-fd: the highest node skips stage 1 and halts the lower nodes one by one" {
	run algo-drive -a bully-fd -i 3 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=2 msg=Ack elid=3.1.0
	2 down 1
	2 query
	102 timer tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	state status=Elec1 ldr=- grp=-
	state status=Elec2 ldr=- grp=-
	fd start 2
	send to=2 msg=Halt elid=3.1.0
	timer set resend at=100
	> 1 recv from=2 msg=Ack elid=3.1.0
	fd start 1
	send to=1 msg=Halt elid=3.1.0
	timer set resend at=101
	> 2 down 1
	timer cancel resend
	state status=Norm ldr=3 grp=-
	send to=2 msg=Ldr elid=3.1.0
	timer set tick at=102
	> 2 query
	status status=Norm ldr=3 grp=- leader=yes since=2
	> 102 timer tick
	send to=2 msg=Norm? elid=3.1.0
	send to=1 msg=Norm? elid=3.1.0
	timer set tick at=202
	EOF
}

@test "bully-fd: stage 1 waits for DownSig from every higher node" {
	run algo-drive -a bully-fd -i 2 -n 4 <<-EOF
	0 boot inc=4
	10 down 4
	20 down 3
	30 recv from=1 msg=Ack elid=2.4.0
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=4
	state status=Elec1 ldr=- grp=-
	fd start 3
	fd start 4
	> 10 down 4
	> 20 down 3
	state status=Elec2 ldr=- grp=-
	fd start 1
	send to=1 msg=Halt elid=2.4.0
	timer set resend at=120
	> 30 recv from=1 msg=Ack elid=2.4.0
	timer cancel resend
	state status=Norm ldr=2 grp=-
	send to=1 msg=Ldr elid=2.4.0
	timer set tick at=130
	EOF
}

@test "bully-fd: a halted node waits, takes Ldr only with its elid, and restarts when the halter dies" {
	run algo-drive -a bully-fd -i 2 -n 4 <<-EOF
	0 boot inc=1
	5 recv from=4 msg=Halt elid=4.1.0
	6 recv from=4 msg=Ldr elid=4.1.7
	7 recv from=4 msg=Ldr elid=4.1.0
	7 query
	50 down 4
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	state status=Elec1 ldr=- grp=-
	fd start 3
	fd start 4
	> 5 recv from=4 msg=Halt elid=4.1.0
	fd start 4
	state status=Wait ldr=- grp=-
	send to=4 msg=Ack elid=4.1.0
	> 6 recv from=4 msg=Ldr elid=4.1.7
	> 7 recv from=4 msg=Ldr elid=4.1.0
	state status=Norm ldr=4 grp=-
	fd stop 1
	fd stop 3
	fd stop 4
	fd start 4
	> 7 query
	status status=Norm ldr=4 grp=- leader=no since=7
	> 50 down 4
	state status=Elec1 ldr=4 grp=-
	fd start 3
	fd start 4
	EOF
}

@test "bully-fd: NotNorm with the leader's elid makes it hold a new election; a stale one does not" {
	run algo-drive -q -a bully-fd -i 3 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=2 msg=Ack elid=3.1.0
	2 down 1
	102 timer tick
	103 recv from=1 msg=NotNorm elid=3.1.9
	104 recv from=1 msg=NotNorm elid=3.1.0
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 102 timer tick
	send to=2 msg=Norm? elid=3.1.0
	send to=1 msg=Norm? elid=3.1.0
	> 103 recv from=1 msg=NotNorm elid=3.1.9
	> 104 recv from=1 msg=NotNorm elid=3.1.0
	state status=Elec1 ldr=3 grp=-
	state status=Elec2 ldr=3 grp=-
	fd start 2
	send to=2 msg=Halt elid=3.1.1
	EOF
}

@test "bully-fd: Norm? draws NotNorm only from a node not in Norm" {
	run algo-drive -q -a bully-fd -i 1 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=3 msg=Norm? elid=3.1.0
	2 recv from=3 msg=Halt elid=3.1.1
	3 recv from=3 msg=Ldr elid=3.1.1
	4 recv from=3 msg=Norm? elid=3.1.1
	5 down 2
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	state status=Elec1 ldr=- grp=-
	fd start 2
	fd start 3
	> 1 recv from=3 msg=Norm? elid=3.1.0
	send to=3 msg=NotNorm elid=3.1.0
	> 2 recv from=3 msg=Halt elid=3.1.1
	fd start 3
	state status=Wait ldr=- grp=-
	send to=3 msg=Ack elid=3.1.1
	> 3 recv from=3 msg=Ldr elid=3.1.1
	state status=Norm ldr=3 grp=-
	fd stop 2
	fd stop 3
	fd start 3
	> 4 recv from=3 msg=Norm? elid=3.1.1
	> 5 down 2
	EOF
}

# A Halt can be lost (its target was down when it arrived and came back
# before the detector noticed): it is said again every tau until answered.
@test "bully-fd: an unanswered Halt is repeated every tau; a late duplicate Ack changes nothing" {
	run algo-drive -a bully-fd -i 3 -n 3 <<-EOF
	0 boot inc=1
	100 timer resend
	200 timer resend
	201 recv from=2 msg=Ack elid=3.1.0
	202 recv from=2 msg=Ack elid=3.1.0
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	state status=Elec1 ldr=- grp=-
	state status=Elec2 ldr=- grp=-
	fd start 2
	send to=2 msg=Halt elid=3.1.0
	timer set resend at=100
	> 100 timer resend
	send to=2 msg=Halt elid=3.1.0
	timer set resend at=200
	> 200 timer resend
	send to=2 msg=Halt elid=3.1.0
	timer set resend at=300
	> 201 recv from=2 msg=Ack elid=3.1.0
	fd start 1
	send to=1 msg=Halt elid=3.1.0
	timer set resend at=301
	> 202 recv from=2 msg=Ack elid=3.1.0
	EOF
}

@test "bully-fd: messages without an elid, or with another's, are refused; Figure 1 has no Rej" {
	run algo-drive -q -a bully-fd -i 1 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=3 msg=Halt
	2 recv from=3 msg=Halt elid=2.1.0
	3 recv from=2 msg=Ack elid=2.1.0
	3 query
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 1 recv from=3 msg=Halt
	error refused
	> 2 recv from=3 msg=Halt elid=2.1.0
	error refused
	> 3 recv from=2 msg=Ack elid=2.1.0
	error refused
	> 3 query
	status status=Elec1 ldr=- grp=- leader=no since=0
	EOF
	run algo-drive -q -a bully-fd -i 1 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=3 msg=Rej elid=3.1.0
	EOF
	assert_failure 2
	assert_output --partial "line 2: bully-fd has no message Rej"
}

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
