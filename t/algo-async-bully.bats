#!/usr/bin/env bats
# The async-bully core (Stoller 1997, Figure 3, mirrored: a higher id
# wins), driven without sockets by algo-drive, and run in elect-sim.

load helper
load elect-sim

@test "async-bully: the lowest node leads its own group at once" {
	run algo-drive -a async-bully -i 1 -n 3 <<-EOF
	0 boot inc=1
	0 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	state status=Elec2 ldr=- grp=1.1.0
	state status=Norm ldr=1 grp=1.1.0
	timer set tick at=100
	> 0 query
	status status=Norm ldr=1 grp=1.1.0 leader=yes since=0
	EOF
}

@test "async-bully: no stage 1; a Rej or a DownSig moves stage 2 on, and Ldr goes to those who acked" {
	run algo-drive -a async-bully -i 3 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=2 msg=Rej elid=3.1.0
	2 down 1
	2 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	fd playalive 2
	fd playalive 1
	state status=Elec2 ldr=- grp=3.1.0
	fd start 2
	send to=2 msg=Halt elid=3.1.0
	timer set resend at=20
	> 1 recv from=2 msg=Rej elid=3.1.0
	fd start 1
	send to=1 msg=Halt elid=3.1.0
	timer set resend at=21
	> 2 down 1
	timer cancel resend
	state status=Norm ldr=3 grp=3.1.0
	timer set tick at=102
	timer set ask at=7
	> 2 query
	status status=Norm ldr=3 grp=3.1.0 leader=yes since=2
	EOF
}

@test "async-bully: who rejected our Halt is asked Norm? every tau/20 for one tau" {
	# Node 2 rejects (its leader, 4, is still up for it); once it finds 4
	# down and leads a group of its own, it answers NotNorm.
	asks=$(for t in 5 10 15 20 25 30 35 40 45 50 55 60 65 70 75 80 85 90 95 100; do
		echo "$t timer ask"; done)
	run algo-drive -a async-bully -i 3 -n 4 <<-EOF
	0 boot inc=1
	0 recv from=2 msg=Rej elid=3.1.0
	0 recv from=1 msg=Ack elid=3.1.0
	$asks
	EOF
	assert_success
	assert_equal "$(grep -c 'send to=2 msg=Norm? elid=3.1.0' <<< "$output")" 20
	refute_output --partial 'send to=1 msg=Norm?'
	refute_output --partial 'timer set ask at=105'
	# A NotNorm at the third asking starts the next election; the asking
	# stops with it.
	run algo-drive -a async-bully -i 3 -n 4 <<-EOF
	0 boot inc=1
	0 recv from=2 msg=Rej elid=3.1.0
	0 recv from=1 msg=Ack elid=3.1.0
	5 timer ask
	10 timer ask
	15 timer ask
	16 recv from=2 msg=NotNorm elid=3.1.0
	20 timer ask
	EOF
	assert_success
	assert_equal "$(grep -c 'msg=Norm?' <<< "$output")" 3
	assert_output --partial 'send to=2 msg=Halt elid=3.1.1'
}

@test "async-bully: Rej and Ack count only from the pending node and for the current elid" {
	run algo-drive -q -a async-bully -i 3 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=2 msg=Rej elid=3.1.9
	2 recv from=1 msg=Ack elid=3.1.0
	3 recv from=2 msg=Rej elid=3.1.0
	4 recv from=1 msg=Ack elid=3.1.5
	5 recv from=1 msg=Ack elid=3.1.0
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	fd playalive 2
	fd playalive 1
	state status=Elec2 ldr=- grp=3.1.0
	fd start 2
	send to=2 msg=Halt elid=3.1.0
	> 1 recv from=2 msg=Rej elid=3.1.9
	> 2 recv from=1 msg=Ack elid=3.1.0
	> 3 recv from=2 msg=Rej elid=3.1.0
	fd start 1
	send to=1 msg=Halt elid=3.1.0
	> 4 recv from=1 msg=Ack elid=3.1.5
	> 5 recv from=1 msg=Ack elid=3.1.0
	state status=Norm ldr=3 grp=3.1.0
	send to=1 msg=Ldr elid=3.1.0
	EOF
}

@test "async-bully: a Halt that would lower the leader is rejected; a higher one is taken, playing dead below" {
	run algo-drive -q -a async-bully -i 2 -n 5 <<-EOF
	0 boot inc=1
	1 recv from=4 msg=Halt elid=4.1.0
	2 recv from=3 msg=Halt elid=3.1.0
	3 recv from=4 msg=Ldr elid=4.1.0
	4 recv from=3 msg=Halt elid=3.1.1
	5 recv from=5 msg=Halt elid=5.1.0
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	fd playalive 1
	state status=Elec2 ldr=- grp=2.1.0
	fd start 1
	send to=1 msg=Halt elid=2.1.0
	> 1 recv from=4 msg=Halt elid=4.1.0
	fd playdead 1
	fd start 4
	state status=Wait ldr=- grp=4.1.0
	send to=4 msg=Ack elid=4.1.0
	> 2 recv from=3 msg=Halt elid=3.1.0
	send to=3 msg=Rej elid=3.1.0
	> 3 recv from=4 msg=Ldr elid=4.1.0
	state status=Norm ldr=4 grp=4.1.0
	fd stop 1
	fd stop 3
	fd stop 4
	fd stop 5
	fd start 4
	> 4 recv from=3 msg=Halt elid=3.1.1
	send to=3 msg=Rej elid=3.1.1
	> 5 recv from=5 msg=Halt elid=5.1.0
	fd playdead 1
	fd start 5
	state status=Wait ldr=4 grp=5.1.0
	send to=5 msg=Ack elid=5.1.0
	EOF
}

@test "async-bully: racing elections: the highest halter wins, stale Ack and Ldr are ignored" {
	run algo-drive -q -a async-bully -i 3 -n 5 <<-EOF
	0 boot inc=1
	1 recv from=4 msg=Halt elid=4.1.0
	2 recv from=2 msg=Ack elid=3.1.0
	3 recv from=5 msg=Halt elid=5.1.0
	4 recv from=4 msg=Ldr elid=4.1.0
	5 recv from=5 msg=Ldr elid=5.1.0
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	fd playalive 2
	fd playalive 1
	state status=Elec2 ldr=- grp=3.1.0
	fd start 2
	send to=2 msg=Halt elid=3.1.0
	> 1 recv from=4 msg=Halt elid=4.1.0
	fd playdead 2
	fd playdead 1
	fd start 4
	state status=Wait ldr=- grp=4.1.0
	send to=4 msg=Ack elid=4.1.0
	> 2 recv from=2 msg=Ack elid=3.1.0
	> 3 recv from=5 msg=Halt elid=5.1.0
	fd playdead 2
	fd playdead 1
	fd start 5
	state status=Wait ldr=- grp=5.1.0
	send to=5 msg=Ack elid=5.1.0
	> 4 recv from=4 msg=Ldr elid=4.1.0
	> 5 recv from=5 msg=Ldr elid=5.1.0
	state status=Norm ldr=5 grp=5.1.0
	fd stop 1
	fd stop 2
	fd stop 4
	fd stop 5
	fd start 5
	EOF
}

@test "async-bully: Norm? draws NotNorm only from a node that would rather follow the sender" {
	run algo-drive -q -a async-bully -i 2 -n 5 <<-EOF
	0 boot inc=1
	1 recv from=4 msg=Halt elid=4.1.0
	2 recv from=3 msg=Norm? elid=3.1.0
	3 recv from=5 msg=Norm? elid=5.1.0
	4 recv from=4 msg=Ldr elid=4.1.0
	5 recv from=3 msg=Norm? elid=3.1.2
	6 recv from=4 msg=Norm? elid=4.1.0
	7 recv from=5 msg=Norm? elid=5.1.1
	8 down 3
	9 down 4
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 2 recv from=3 msg=Norm? elid=3.1.0
	> 3 recv from=5 msg=Norm? elid=5.1.0
	send to=5 msg=NotNorm elid=5.1.0
	> 4 recv from=4 msg=Ldr elid=4.1.0
	EOF
	assert_output --partial - <<-EOF
	> 5 recv from=3 msg=Norm? elid=3.1.2
	> 6 recv from=4 msg=Norm? elid=4.1.0
	> 7 recv from=5 msg=Norm? elid=5.1.1
	send to=5 msg=NotNorm elid=5.1.1
	> 8 down 3
	> 9 down 4
	fd playalive 1
	state status=Elec2 ldr=4 grp=2.1.1
	fd start 1
	send to=1 msg=Halt elid=2.1.1
	EOF
}

# Figure 3 would leave a node whose Ldr was lost waiting for ever.  Its
# halter's Norm? for the group it awaits says what the Ldr said, so it
# follows (a lost Ldr costs at most a tau, not an election); a Norm? for
# another group of its halter draws NotNorm, and the halter elects again.
@test "async-bully: a node still waiting for its halter takes its Norm? as the lost Ldr" {
	run algo-drive -q -a async-bully -i 2 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=3 msg=Halt elid=3.1.0
	101 recv from=3 msg=Norm? elid=3.1.0
	102 recv from=3 msg=Halt elid=3.1.1
	201 recv from=3 msg=Norm? elid=3.1.2
	202 recv from=3 msg=Halt elid=3.1.3
	203 recv from=3 msg=Ldr elid=3.1.3
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 101 recv from=3 msg=Norm? elid=3.1.0
	state status=Norm ldr=3 grp=3.1.0
	fd stop 1
	fd stop 3
	fd start 3
	> 102 recv from=3 msg=Halt elid=3.1.1
	fd playdead 1
	fd start 3
	state status=Wait ldr=3 grp=3.1.1
	send to=3 msg=Ack elid=3.1.1
	> 201 recv from=3 msg=Norm? elid=3.1.2
	send to=3 msg=NotNorm elid=3.1.2
	> 202 recv from=3 msg=Halt elid=3.1.3
	fd playdead 1
	fd start 3
	state status=Wait ldr=3 grp=3.1.3
	send to=3 msg=Ack elid=3.1.3
	> 203 recv from=3 msg=Ldr elid=3.1.3
	state status=Norm ldr=3 grp=3.1.3
	EOF
}

@test "async-bully: NotNorm for the leader's elid starts a new election, playing alive again" {
	run algo-drive -q -a async-bully -i 3 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=2 msg=Ack elid=3.1.0
	2 recv from=1 msg=Ack elid=3.1.0
	102 timer tick
	103 recv from=2 msg=NotNorm elid=3.1.7
	104 recv from=2 msg=NotNorm elid=3.1.0
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 102 timer tick
	send to=2 msg=Norm? elid=3.1.0
	send to=1 msg=Norm? elid=3.1.0
	> 103 recv from=2 msg=NotNorm elid=3.1.7
	> 104 recv from=2 msg=NotNorm elid=3.1.0
	fd playalive 2
	fd playalive 1
	state status=Elec2 ldr=3 grp=3.1.1
	fd start 2
	send to=2 msg=Halt elid=3.1.1
	EOF
}

# Stoller's worst case, lowest id first to notice (section 7): each node k
# in turn leads and halts the k-1 below it before node k+1 notices: Halt,
# Ack and Ldr (N-1)(N-2)/2 times each, N^2 + O(N) Halts and answers.
@test "async-bully: the worst case costs (N-1)(N-2)/2 Halts, Acks and Ldrs (N = 5, 10, 20)" {
	for n in 5 10 20; do
		out=$(after_crash -a async-bully -n $n -d 3 -L -l 20:1000 -S \
		    -e "1.05 crash $n")
		k=$(((n - 1) * (n - 2) / 2))
		[[ $out == "agreed ldr=$((n - 1)) "*" Halt=$k Ack=$k Ldr=$k"* ]] ||
		    fail "N=$n: $out"
	done
}

@test "async-bully: 100 seeded runs with crashes, pauses and partitions satisfy the async assertions" {
	need_check
	sim_sweep async 100 -a async-bully -d 12 -r 6 \
	    -k crash,recovery,pause,partition -m 0.1:10
}

# What breaks the synchronous bullies is only a split into groups here:
# the woken leader's Norm? draws NotNorm and it takes everyone back.
@test "async-bully: a paused leader splits the group for a while and ALE1 holds" {
	need_check
	elect-sim -a async-bully -n 3 -d 4 -e '1 pause 3' -e '2 resume 3' \
	    >"$BATS_TEST_TMPDIR/t"
	run elect-check -s async -c 1 "$BATS_TEST_TMPDIR/t"
	assert_success
	run final_states "$BATS_TEST_TMPDIR/t"
	assert_output - <<-EOF
	1 status=Norm ldr=3 grp=3.1.1
	2 status=Norm ldr=3 grp=3.1.1
	3 status=Norm ldr=3 grp=3.1.1
	EOF
}

@test "async-bully: a lasting partition leaves one group led from inside each side" {
	need_check
	elect-sim -a async-bully -n 5 -d 4 -e '1 partition 1,2/3,4,5' \
	    >"$BATS_TEST_TMPDIR/t"
	run elect-check -s async -c 1 "$BATS_TEST_TMPDIR/t"
	assert_success
	final_states "$BATS_TEST_TMPDIR/t" >"$BATS_TEST_TMPDIR/s"
	run cut -d' ' -f1-3 "$BATS_TEST_TMPDIR/s"
	assert_output - <<-EOF
	1 status=Norm ldr=2
	2 status=Norm ldr=2
	3 status=Norm ldr=5
	4 status=Norm ldr=5
	5 status=Norm ldr=5
	EOF
}

# A correction to Figure 3.  Node 3's Halt of its new election is lost in a
# 38 ms cut: its detector reports node 2, node 2's does not report it, and
# node 2 stays Norm with ldr=3 in the old group 3.1.0.  The figure answers
# Norm? in Norm only from a node above the leader, so node 3's Norm?(3.1.1)
# never merged it: t/fixtures/algo/async-bully-figure3.trace is that run
# under the figure as it is, which elect-check rejects.  Answering our own
# leader when it names another group merges it.
@test "async-bully: a member left in its leader's old group answers Norm? (the figure as it is fails)" {
	need_check
	run elect-check -s async -c 1.5 "$BATS_TEST_DIRNAME/fixtures/algo/async-bully-figure3.trace"
	assert_failure 1
	assert_output --partial "gm4s: not settled by 2.741, c after the system became stable at 1.241: node 2 is in group 3.1.0, its leader 3 in 3.1.1"
	elect-sim -a async-bully -n 3 -s 1 -d 4 -e '1 crash 1' -e '1.2 boot 1' \
	    -e '1.2031 cut 2 3' -e '1.241 mend 2 3' >"$BATS_TEST_TMPDIR/t"
	run grep -c '^1\.30[0-9]* 2 send to=3 msg=NotNorm elid=3\.1\.1$' "$BATS_TEST_TMPDIR/t"
	assert_output 1
	run elect-check -s async -c 1.5 "$BATS_TEST_TMPDIR/t"
	assert_success
	run algo-drive -a async-bully -i 2 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=3 msg=Halt elid=3.1.0
	2 recv from=3 msg=Ldr elid=3.1.0
	3 recv from=3 msg=Norm? elid=3.1.0
	4 recv from=3 msg=Norm? elid=3.1.1
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 3 recv from=3 msg=Norm? elid=3.1.0
	> 4 recv from=3 msg=Norm? elid=3.1.1
	send to=3 msg=NotNorm elid=3.1.1
	EOF
}

# A few percent of datagrams lost costs a few percent more messages, not
# elections: a call is said again within its wait before it fails.  (Before,
# invitation at 3% reached group counter 81 with twice the messages, and
# async-bully re-elected on each lost Ldr and settled fewer times.)
@test "async-bully: 3% message loss costs at most 10% more messages and hardly a settling" {
	loss_cheap async-bully
}
