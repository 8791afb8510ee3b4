#!/usr/bin/env bats
# The modified bully of Mamun et al., as Murshed and Allen (2012, section 3)
# describe it, driven without sockets by algo-drive, and run in elect-sim.

load helper
load elect-sim

# Node 1 of 5 revives: it queries the nodes above it and, when T (50 ms)
# is over, takes the highest leader it heard of.  Then it detects the
# failure of leader 5: election to every node above it, ok from the live
# ones, and as soon as all but the failed leader answered, coordinator
# naming the highest to all: 4 + 3 + 4 = 3N - 4 messages, Murshed and
# Allen's count for [9] (Table 1, 11).  Update waits t_TX (2 ms) before
# Normal.
@test "modified-bully: the lowest node elects the highest live one with 3N-4 messages" {
	run algo-drive -a modified-bully -i 1 -n 5 <<-EOF
	0 boot inc=1
	1 recv from=5 msg=Answer elid=1.1.0 ldr=5
	1 recv from=3 msg=Coordinator elid=3.1.0 ldr=3 failed=-
	2 recv from=4 msg=Answer elid=1.1.0 ldr=-
	50 timer wait
	52 timer hold
	60 down 5
	61 recv from=2 msg=Ok elid=1.1.1
	62 recv from=4 msg=Ok elid=1.1.1
	63 recv from=3 msg=Ok elid=1.1.1
	65 timer hold
	65 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	state status=Wait ldr=- grp=-
	send to=2 msg=Query elid=1.1.0
	send to=3 msg=Query elid=1.1.0
	send to=4 msg=Query elid=1.1.0
	send to=5 msg=Query elid=1.1.0
	timer set wait at=50
	> 1 recv from=5 msg=Answer elid=1.1.0 ldr=5
	> 1 recv from=3 msg=Coordinator elid=3.1.0 ldr=3 failed=-
	> 2 recv from=4 msg=Answer elid=1.1.0 ldr=-
	> 50 timer wait
	fd start 5
	state status=Wait ldr=5 grp=-
	timer set hold at=52
	> 52 timer hold
	state status=Norm ldr=5 grp=-
	> 60 down 5
	state status=Elec ldr=5 grp=-
	send to=2 msg=Election elid=1.1.1 failed=5
	send to=3 msg=Election elid=1.1.1 failed=5
	send to=4 msg=Election elid=1.1.1 failed=5
	send to=5 msg=Election elid=1.1.1 failed=5
	timer set wait at=110
	> 61 recv from=2 msg=Ok elid=1.1.1
	> 62 recv from=4 msg=Ok elid=1.1.1
	> 63 recv from=3 msg=Ok elid=1.1.1
	send to=2 msg=Coordinator elid=1.1.1 ldr=4 failed=5
	send to=3 msg=Coordinator elid=1.1.1 ldr=4 failed=5
	send to=4 msg=Coordinator elid=1.1.1 ldr=4 failed=5
	send to=5 msg=Coordinator elid=1.1.1 ldr=4 failed=5
	timer cancel wait
	fd stop 5
	fd start 4
	state status=Wait ldr=4 grp=-
	timer set hold at=65
	> 65 timer hold
	state status=Norm ldr=4 grp=-
	> 65 query
	status status=Norm ldr=4 grp=- leader=no since=65
	EOF
}

@test "modified-bully: without every ok, the electioneer names the highest that answered within T" {
	run algo-drive -q -a modified-bully -i 2 -n 6 <<-EOF
	0 boot inc=1
	1 recv from=6 msg=Coordinator elid=6.1.0 ldr=6 failed=-
	50 timer wait
	52 timer hold
	60 down 6
	61 recv from=3 msg=Ok elid=2.1.1
	61 recv from=4 msg=Ok elid=2.1.1
	110 timer wait
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 110 timer wait
	send to=1 msg=Coordinator elid=2.1.1 ldr=4 failed=6
	send to=3 msg=Coordinator elid=2.1.1 ldr=4 failed=6
	send to=4 msg=Coordinator elid=2.1.1 ldr=4 failed=6
	send to=5 msg=Coordinator elid=2.1.1 ldr=4 failed=6
	send to=6 msg=Coordinator elid=2.1.1 ldr=4 failed=6
	fd stop 6
	fd start 4
	state status=Wait ldr=4 grp=-
	EOF
}

# An ok sender waits `timeout' (300 ms) for the coordinator; if the
# electioneer fails as well (drawback (c) of [9]: no remedy in the
# paper), it holds its own election, here as the next id below the failed
# leader, which declares itself without asking.
@test "modified-bully: an ok sender awaits the coordinator, and elects anew if none comes" {
	run algo-drive -t timeout=300 -a modified-bully -i 3 -n 5 <<-EOF
	0 boot inc=1
	1 recv from=4 msg=Answer elid=3.1.0 ldr=5
	1 recv from=5 msg=Answer elid=3.1.0 ldr=5
	3 timer hold
	10 recv from=1 msg=Election elid=1.1.1 failed=5
	11 recv from=1 msg=Coordinator elid=1.1.1 ldr=4 failed=5
	13 timer hold
	20 recv from=2 msg=Election elid=2.1.4 failed=4
	320 timer ok
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	state status=Wait ldr=- grp=-
	send to=4 msg=Query elid=3.1.0
	send to=5 msg=Query elid=3.1.0
	timer set wait at=50
	> 1 recv from=4 msg=Answer elid=3.1.0 ldr=5
	> 1 recv from=5 msg=Answer elid=3.1.0 ldr=5
	timer cancel wait
	fd start 5
	state status=Wait ldr=5 grp=-
	timer set hold at=3
	> 3 timer hold
	state status=Norm ldr=5 grp=-
	> 10 recv from=1 msg=Election elid=1.1.1 failed=5
	send to=1 msg=Ok elid=1.1.1 inc=1
	timer set ok at=310
	state status=Wait ldr=5 grp=-
	> 11 recv from=1 msg=Coordinator elid=1.1.1 ldr=4 failed=5
	timer cancel ok
	fd stop 5
	fd start 4
	state status=Wait ldr=4 grp=-
	timer set hold at=13
	> 13 timer hold
	state status=Norm ldr=4 grp=-
	> 20 recv from=2 msg=Election elid=2.1.4 failed=4
	send to=2 msg=Ok elid=2.1.4 inc=1
	timer set ok at=320
	state status=Wait ldr=4 grp=-
	> 320 timer ok
	send to=1 msg=Coordinator elid=3.1.1 ldr=3 linc=1 failed=4
	send to=2 msg=Coordinator elid=3.1.1 ldr=3 linc=1 failed=4
	send to=4 msg=Coordinator elid=3.1.1 ldr=3 linc=1 failed=4
	send to=5 msg=Coordinator elid=3.1.1 ldr=3 linc=1 failed=4
	fd stop 4
	state status=Wait ldr=3 grp=-
	timer set hold at=322
	EOF
}

@test "modified-bully: an electioneer answers ok and carries on; a stale election gets ok only" {
	run algo-drive -q -a modified-bully -i 3 -n 5 <<-EOF
	0 boot inc=1
	1 recv from=4 msg=Answer elid=3.1.0 ldr=5
	1 recv from=5 msg=Answer elid=3.1.0 ldr=5
	3 timer hold
	10 down 5
	10.5 recv from=1 msg=Election elid=1.1.1 failed=5
	11 recv from=4 msg=Ok elid=3.1.1
	13 timer hold
	20 recv from=2 msg=Election elid=2.1.1 failed=5
	20 query
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 10.5 recv from=1 msg=Election elid=1.1.1 failed=5
	send to=1 msg=Ok elid=1.1.1 inc=1
	> 11 recv from=4 msg=Ok elid=3.1.1
	send to=1 msg=Coordinator elid=3.1.1 ldr=4 failed=5
	send to=2 msg=Coordinator elid=3.1.1 ldr=4 failed=5
	send to=4 msg=Coordinator elid=3.1.1 ldr=4 failed=5
	send to=5 msg=Coordinator elid=3.1.1 ldr=4 failed=5
	fd stop 5
	fd start 4
	state status=Wait ldr=4 grp=-
	> 13 timer hold
	state status=Norm ldr=4 grp=-
	> 20 recv from=2 msg=Election elid=2.1.1 failed=5
	send to=2 msg=Ok elid=2.1.1 inc=1
	> 20 query
	status status=Norm ldr=4 grp=- leader=no since=13
	EOF
}

@test "modified-bully: the next id below the failed leader declares itself (N-1 messages)" {
	run algo-drive -q -a modified-bully -i 4 -n 5 <<-EOF
	0 boot inc=1
	1 recv from=5 msg=Answer elid=4.1.0 ldr=5
	3 timer hold
	10 down 5
	12 timer hold
	12 query
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 10 down 5
	send to=1 msg=Coordinator elid=4.1.1 ldr=4 linc=1 failed=5
	send to=2 msg=Coordinator elid=4.1.1 ldr=4 linc=1 failed=5
	send to=3 msg=Coordinator elid=4.1.1 ldr=4 linc=1 failed=5
	send to=5 msg=Coordinator elid=4.1.1 ldr=4 linc=1 failed=5
	fd stop 5
	state status=Wait ldr=4 grp=-
	> 12 timer hold
	state status=Norm ldr=4 grp=-
	> 12 query
	status status=Norm ldr=4 grp=- leader=yes since=12
	EOF
}

# Query on revival: the highest id announces itself at once (a former
# leader, N-1 messages); the others ask the nodes above and take the
# leader named, or announce themselves when nobody above answers, or
# when the leader named is below them.
@test "modified-bully: a revived node queries the nodes above it, or announces itself" {
	run algo-drive -q -a modified-bully -i 5 -n 5 <<-EOF
	0 boot inc=2
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=2
	send to=1 msg=Coordinator elid=5.2.0 ldr=5 linc=2 failed=-
	send to=2 msg=Coordinator elid=5.2.0 ldr=5 linc=2 failed=-
	send to=3 msg=Coordinator elid=5.2.0 ldr=5 linc=2 failed=-
	send to=4 msg=Coordinator elid=5.2.0 ldr=5 linc=2 failed=-
	state status=Wait ldr=5 grp=-
	EOF
	run algo-drive -q -a modified-bully -i 3 -n 5 <<-EOF
	0 boot inc=1
	50 timer wait
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	state status=Wait ldr=- grp=-
	send to=4 msg=Query elid=3.1.0
	send to=5 msg=Query elid=3.1.0
	> 50 timer wait
	send to=1 msg=Coordinator elid=3.1.0 ldr=3 linc=1 failed=-
	send to=2 msg=Coordinator elid=3.1.0 ldr=3 linc=1 failed=-
	send to=4 msg=Coordinator elid=3.1.0 ldr=3 linc=1 failed=-
	send to=5 msg=Coordinator elid=3.1.0 ldr=3 linc=1 failed=-
	state status=Wait ldr=3 grp=-
	EOF
	run algo-drive -q -a modified-bully -i 3 -n 5 <<-EOF
	0 boot inc=1
	1 recv from=4 msg=Answer elid=3.1.0 ldr=2
	50 timer wait
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 50 timer wait
	send to=1 msg=Coordinator elid=3.1.0 ldr=3 linc=1 failed=2
	EOF
}

# Nodes above us that answer without a leader are electing; their
# coordinator will reach us too, so we wait `timeout' for it, then ask
# again.
@test "modified-bully: answers without a leader make the revived node wait and ask again" {
	run algo-drive -q -t timeout=300 -a modified-bully -i 2 -n 4 <<-EOF
	0 boot inc=1
	1 recv from=3 msg=Answer elid=2.1.0 ldr=-
	1 recv from=4 msg=Answer elid=2.1.0 ldr=-
	301 timer wait
	302 recv from=4 msg=Answer elid=2.1.1 ldr=4
	302 recv from=3 msg=Answer elid=2.1.1 ldr=4
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	state status=Wait ldr=- grp=-
	send to=3 msg=Query elid=2.1.0
	send to=4 msg=Query elid=2.1.0
	> 1 recv from=3 msg=Answer elid=2.1.0 ldr=-
	> 1 recv from=4 msg=Answer elid=2.1.0 ldr=-
	> 301 timer wait
	send to=3 msg=Query elid=2.1.1
	send to=4 msg=Query elid=2.1.1
	> 302 recv from=4 msg=Answer elid=2.1.1 ldr=4
	> 302 recv from=3 msg=Answer elid=2.1.1 ldr=4
	fd start 4
	state status=Wait ldr=4 grp=-
	EOF
	run algo-drive -t timeout=300 -a modified-bully -i 2 -n 4 <<-EOF
	0 boot inc=1
	1 recv from=3 msg=Answer elid=2.1.0 ldr=-
	1 recv from=4 msg=Answer elid=2.1.0 ldr=-
	20 recv from=4 msg=Coordinator elid=4.1.0 ldr=4 failed=-
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 1 recv from=4 msg=Answer elid=2.1.0 ldr=-
	timer cancel wait
	timer set wait at=301
	> 20 recv from=4 msg=Coordinator elid=4.1.0 ldr=4 failed=-
	timer cancel wait
	fd start 4
	state status=Wait ldr=4 grp=-
	timer set hold at=22
	EOF
}

# A node takes a leader J when J is above its own, when it has none, or
# when its own is the one replaced; a coordinator naming a node below us
# means the electioneer missed us, and we take over.
@test "modified-bully: stale announcements are ignored; one naming a lower node makes us take over" {
	run algo-drive -q -a modified-bully -i 3 -n 5 <<-EOF
	0 boot inc=1
	1 recv from=4 msg=Answer elid=3.1.0 ldr=5
	1 recv from=5 msg=Answer elid=3.1.0 ldr=5
	3 timer hold
	5 recv from=1 msg=Coordinator elid=1.1.3 ldr=4 failed=2
	6 recv from=1 msg=Coordinator elid=1.1.4 ldr=2 failed=5
	8 timer hold
	9 recv from=4 msg=Coordinator elid=4.1.0 ldr=3 failed=2
	10 recv from=4 msg=Query elid=4.1.7
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	state status=Wait ldr=- grp=-
	send to=4 msg=Query elid=3.1.0
	send to=5 msg=Query elid=3.1.0
	> 1 recv from=4 msg=Answer elid=3.1.0 ldr=5
	> 1 recv from=5 msg=Answer elid=3.1.0 ldr=5
	fd start 5
	state status=Wait ldr=5 grp=-
	> 3 timer hold
	state status=Norm ldr=5 grp=-
	> 5 recv from=1 msg=Coordinator elid=1.1.3 ldr=4 failed=2
	> 6 recv from=1 msg=Coordinator elid=1.1.4 ldr=2 failed=5
	send to=1 msg=Coordinator elid=3.1.1 ldr=3 linc=1 failed=5
	send to=2 msg=Coordinator elid=3.1.1 ldr=3 linc=1 failed=5
	send to=4 msg=Coordinator elid=3.1.1 ldr=3 linc=1 failed=5
	send to=5 msg=Coordinator elid=3.1.1 ldr=3 linc=1 failed=5
	fd stop 5
	state status=Wait ldr=3 grp=-
	> 8 timer hold
	state status=Norm ldr=3 grp=-
	> 9 recv from=4 msg=Coordinator elid=4.1.0 ldr=3 failed=2
	> 10 recv from=4 msg=Query elid=4.1.7
	send to=4 msg=Answer elid=4.1.7 ldr=3 linc=1
	EOF
}

@test "modified-bully: malformed messages are refused and change nothing" {
	run algo-drive -q -a modified-bully -i 3 -n 5 <<-EOF
	0 boot inc=1
	1 recv from=2 msg=Election elid=2.1.0
	2 recv from=2 msg=Election elid=1.1.0 failed=5
	3 recv from=2 msg=Ok elid=2.1.0
	4 recv from=4 msg=Answer elid=3.1.0 ldr=9
	5 recv from=4 msg=Query elid=3.1.0
	6 recv from=4 msg=Coordinator elid=4.1.0 ldr=- failed=-
	6 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	state status=Wait ldr=- grp=-
	send to=4 msg=Query elid=3.1.0
	send to=5 msg=Query elid=3.1.0
	> 1 recv from=2 msg=Election elid=2.1.0
	error refused
	> 2 recv from=2 msg=Election elid=1.1.0 failed=5
	error refused
	> 3 recv from=2 msg=Ok elid=2.1.0
	error refused
	> 4 recv from=4 msg=Answer elid=3.1.0 ldr=9
	error refused
	> 5 recv from=4 msg=Query elid=3.1.0
	error refused
	> 6 recv from=4 msg=Coordinator elid=4.1.0 ldr=- failed=-
	error refused
	> 6 query
	status status=Wait ldr=- grp=- leader=no since=0
	EOF
}

@test "modified-bully: a node that leaves goes Down and hears nothing more" {
	run algo-drive -q -a modified-bully -i 5 -n 5 <<-EOF
	0 boot inc=1
	2 timer hold
	5 cmd leave
	6 recv from=1 msg=Query elid=1.1.0
	6 query
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 5 cmd leave
	state status=Down ldr=- grp=-
	> 6 recv from=1 msg=Query elid=1.1.0
	> 6 query
	status status=Down ldr=- grp=- leader=no since=5
	EOF
}

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
