#!/usr/bin/env bats
# Epochs in the lease core (Nerio 10.6; share/elect/lease.md, Epochs,
# rules E1 to E6), driven by algo-drive: -e boots a core in an epoch, -p
# pending (not yet told that the epoch before ended); `cmd wedge' is the
# paper's grant request of infinite delta, `cmd terminated' the news that
# a majority of the epoch before is wedged.  Scripts pin lease 150 ms and
# renew 50 ms, as in algo-lease.bats.

load helper

@test "epochs: a grantor asked to wedge refuses even its grantee's renewal, wedges when the grant lapses, persists it and stays wedged after a restart (E2, E6)" {
	run algo-drive -t lease=150 -t renew=50 -a lease -i 1 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.2 delta=0.15 start=7.1 token=0 echo=0 einc=0 rem=0
	170 cmd wedge
	170 query
	180 recv from=3 msg=Request elid=3.1.3 delta=0.15 start=7.2 token=4 echo=0 einc=0 rem=0
	310.15 timer grant
	311 query
	320 recv from=2 msg=Request elid=2.1.1 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0
	400 boot inc=2
	401 query
	560 recv from=2 msg=Request elid=2.2.1 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	timer set quiet at=150.15
	fd start 2
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.1.2 delta=0.15 start=7.1 token=0 echo=0 einc=0 rem=0
	persist 0100000000000000000000000008f0d180
	trace lease op=grant to=3 until=0.31015 clock=0.16
	timer set grant at=310.15
	send to=3 msg=Ok elid=3.1.2 t=0.16 inc=1 k=0
	state status=Norm ldr=3 grp=-
	> 170 cmd wedge
	timer cancel try
	> 170 query
	status status=Norm ldr=3 grp=- leader=no since=160 grants_to=3 grant_until=0.31015 epoch=0 wedging=yes
	> 180 recv from=3 msg=Request elid=3.1.3 delta=0.15 start=7.2 token=4 echo=0 einc=0 rem=0
	send to=3 msg=Refuse elid=3.1.3 why=wedged ldr=0 left=0 k=0
	> 310.15 timer grant
	timer cancel grant
	persist 0200000000000000000000000008f0d1800000000001
	trace epoch op=wedge epoch=0 clock=0.31015
	state status=Wait ldr=- grp=-
	trace clock c=0.31015
	> 311 query
	status status=Wait ldr=- grp=- leader=no since=310.15 epoch=0 wedged=yes
	> 320 recv from=2 msg=Request elid=2.1.1 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0
	send to=2 msg=Refuse elid=2.1.1 why=wedged ldr=0 left=0 k=0
	> 400 boot inc=2
	trace clock c=0.4
	timer set quiet at=550.15
	fd start 2
	state status=Wait ldr=- grp=-
	> 401 query
	status status=Wait ldr=- grp=- leader=no since=400 quiet_until=0.55015 epoch=0 wedged=yes
	> 560 recv from=2 msg=Request elid=2.2.1 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0
	send to=2 msg=Refuse elid=2.2.1 why=wedged ldr=0 left=0 k=0
	EOF
}

@test "epochs: a leader asked to wedge resigns at once, releasing its grantors, and is wedged at once (E2)" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 3 -n 3 <<-EOF
	0 boot inc=1
	150.15 timer quiet
	151 recv from=1 msg=Ok elid=3.1.1 t=0.2 inc=1 k=7
	152 recv from=1 msg=Ok elid=3.1.2 t=0.21 inc=1 k=7
	152 query
	160 cmd wedge
	160 query
	161 recv from=1 msg=Ok elid=3.1.2 t=0.21 inc=1 k=7
	170 cmd edict late
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	state status=Wait ldr=- grp=-
	> 150.15 timer quiet
	trace clock c=0.15015
	send to=1 msg=Request elid=3.1.1 delta=0.15 start=0.15015 token=0 echo=0 einc=0 rem=0 kseen=0
	send to=2 msg=Request elid=3.1.1 delta=0.15 start=0.15015 token=0 echo=0 einc=0 rem=0 kseen=0
	persist 0100000000000000000000000008f0d180
	trace lease op=grant to=3 until=0.3003 clock=0.15015
	state status=Elec ldr=- grp=-
	> 151 recv from=1 msg=Ok elid=3.1.1 t=0.2 inc=1 k=7
	trace lead until=0.3 clock=0.151 qt=1:0.2,3:0.15015
	state status=Norm ldr=3 grp=-
	trace clock c=0.151
	send to=1 msg=Request elid=3.1.2 delta=0.15 start=0.151 token=8 echo=0.2 einc=1 rem=0.148851148 kseen=8
	send to=2 msg=Request elid=3.1.2 delta=0.15 start=0.151 token=8 echo=0 einc=0 rem=0.148851148 kseen=8
	persist 0100000000000004080000000008f0d180
	trace lease op=grant to=3 until=0.30115 clock=0.151
	> 152 recv from=1 msg=Ok elid=3.1.2 t=0.21 inc=1 k=7
	trace lead until=0.30085 clock=0.152 qt=1:0.21,3:0.151 token=8
	> 152 query
	status status=Norm ldr=3 grp=- leader=yes since=151 lease_until=0.30085 token=8
	> 160 cmd wedge
	trace lead until=0.16 clock=0.16
	trace lease op=release to=3 clock=0.16
	send to=1 msg=Release elid=3.1.2 why=resign
	send to=2 msg=Release elid=3.1.2 why=resign
	persist 0200000000000004080000000008f0d1800000000001
	trace epoch op=wedge epoch=0 clock=0.16
	state status=Wait ldr=- grp=-
	> 160 query
	status status=Wait ldr=- grp=- leader=no since=160 epoch=0 wedged=yes
	> 161 recv from=1 msg=Ok elid=3.1.2 t=0.21 inc=1 k=7
	> 170 cmd edict late
	error not leader
	EOF
}

@test "epochs: a grantor asked to wedge is wedged as soon as its grantee releases (E2)" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 1 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.1 delta=0.15 start=7.1 token=0 echo=0 einc=0 rem=0
	165 cmd wedge
	170 recv from=3 msg=Release elid=3.1.1 why=resign
	170 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 2
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.1.1 delta=0.15 start=7.1 token=0 echo=0 einc=0 rem=0
	persist 0100000000000000000000000008f0d180
	trace lease op=grant to=3 until=0.31015 clock=0.16
	send to=3 msg=Ok elid=3.1.1 t=0.16 inc=1 k=0
	state status=Norm ldr=3 grp=-
	> 165 cmd wedge
	> 170 recv from=3 msg=Release elid=3.1.1 why=resign
	trace lease op=release to=3 clock=0.17
	persist 0200000000000000000000000008f0d1800000000001
	trace epoch op=wedge epoch=0 clock=0.17
	state status=Wait ldr=- grp=-
	> 170 query
	status status=Wait ldr=- grp=- leader=no since=170 epoch=0 wedged=yes
	EOF
}

@test "epochs: a pending node asks for nothing until told that the epoch before ended; its first token lies above every token of earlier epochs; what it learned survives a restart (E1, E4)" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 3 -n 3 -e 2 -p <<-EOF
	0 boot inc=1
	150.15 timer quiet
	150.15 query
	160 cmd terminated
	161 recv from=1 msg=Ok elid=3.1.1 t=0.2 inc=1 k=7
	162 recv from=2 msg=Ok elid=3.1.2 t=0.21 inc=1 k=7
	162 query
	170 boot inc=2
	320.15 timer quiet
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	state status=Wait ldr=- grp=-
	> 150.15 timer quiet
	> 150.15 query
	status status=Wait ldr=- grp=- leader=no since=0 epoch=2 pending=yes
	> 160 cmd terminated
	persist 02000000000000000000000000000000000000000202
	trace epoch op=learn epoch=2 clock=0.16
	trace clock c=0.16
	send to=1 msg=Request elid=3.1.1 delta=0.15 start=0.16 token=0 echo=0 einc=0 rem=0 kseen=0
	send to=2 msg=Request elid=3.1.1 delta=0.15 start=0.16 token=0 echo=0 einc=0 rem=0 kseen=0
	persist 0200000000000000000000000008f0d1800000000202
	trace lease op=grant to=3 until=0.31015 clock=0.16 epoch=2
	state status=Elec ldr=- grp=-
	> 161 recv from=1 msg=Ok elid=3.1.1 t=0.2 inc=1 k=7
	trace lead until=0.30985 clock=0.161 qt=1:0.2,3:0.16 epoch=2
	state status=Norm ldr=3 grp=-
	trace clock c=0.161
	send to=1 msg=Request elid=3.1.2 delta=0.15 start=0.161 token=2199023255553 echo=0.2 einc=1 rem=0.148701298 kseen=2199023255553
	send to=2 msg=Request elid=3.1.2 delta=0.15 start=0.161 token=2199023255553 echo=0 einc=0 rem=0.148701298 kseen=2199023255553
	persist 0200000200000004010000000008f0d1800000000202
	trace lease op=grant to=3 until=0.31115 clock=0.161 epoch=2
	> 162 recv from=2 msg=Ok elid=3.1.2 t=0.21 inc=1 k=7
	trace lead until=0.31085 clock=0.162 qt=2:0.21,3:0.161 token=2199023255553 epoch=2
	> 162 query
	status status=Norm ldr=3 grp=- leader=yes since=161 lease_until=0.31085 token=2199023255553 epoch=2
	> 170 boot inc=2
	trace clock c=0.17
	state status=Wait ldr=- grp=-
	> 320.15 timer quiet
	trace clock c=0.32015
	send to=1 msg=Request elid=3.2.1 delta=0.15 start=0.32015 token=0 echo=0 einc=0 rem=0 kseen=2199023256577
	send to=2 msg=Request elid=3.2.1 delta=0.15 start=0.32015 token=0 echo=0 einc=0 rem=0 kseen=2199023256577
	trace lease op=grant to=3 until=0.4703 clock=0.32015 epoch=2
	persist 0200000200000008020000000008f0d1800000000202
	state status=Elec ldr=- grp=-
	EOF
}

@test "epochs: a Request of a member tells a pending node that the epoch before ended (E1)" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 1 -n 3 -e 1 -p <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.1 delta=0.15 start=7.1 token=0 echo=0 einc=0 rem=0
	160 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 2
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.1.1 delta=0.15 start=7.1 token=0 echo=0 einc=0 rem=0
	persist 02000000000000000000000000000000000000000102
	trace epoch op=learn epoch=1 by=3 clock=0.16
	persist 0200000000000000000000000008f0d1800000000102
	trace lease op=grant to=3 until=0.31015 clock=0.16 epoch=1
	send to=3 msg=Ok elid=3.1.1 t=0.16 inc=1 k=0
	state status=Norm ldr=3 grp=-
	> 160 query
	status status=Norm ldr=3 grp=- leader=no since=160 grants_to=3 grant_until=0.31015 epoch=1
	EOF
}

@test "epochs: a bidder refused by wedged grantors does not come back before a lease has passed (E2)" {
	run algo-drive -t lease=150 -t renew=50 -a lease -i 3 -n 3 -e 1 <<-EOF
	0 boot inc=1
	150.15 timer quiet
	151 recv from=1 msg=Refuse elid=3.1.1 why=wedged ldr=0 left=0 k=0
	152 recv from=2 msg=Refuse elid=3.1.1 why=wedged ldr=0 left=0 k=0
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	timer set quiet at=150.15
	state status=Wait ldr=- grp=-
	> 150.15 timer quiet
	trace clock c=0.15015
	send to=1 msg=Request elid=3.1.1 delta=0.15 start=0.15015 token=0 echo=0 einc=0 rem=0 kseen=0
	send to=2 msg=Request elid=3.1.1 delta=0.15 start=0.15015 token=0 echo=0 einc=0 rem=0 kseen=0
	persist 0200000000000000000000000008f0d1800000000102
	trace lease op=grant to=3 until=0.3003 clock=0.15015 epoch=1
	timer set grant at=300.3
	timer set abort at=300
	state status=Elec ldr=- grp=-
	> 151 recv from=1 msg=Refuse elid=3.1.1 why=wedged ldr=0 left=0 k=0
	> 152 recv from=2 msg=Refuse elid=3.1.1 why=wedged ldr=0 left=0 k=0
	timer cancel abort
	trace lease op=release to=3 clock=0.152 epoch=1
	timer cancel grant
	timer set try at=302
	state status=Wait ldr=- grp=-
	EOF
}

@test "epochs: a pending node may be wedged (a change superseded); it then never learns nor asks (E1, E2)" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 3 -n 3 -e 1 -p <<-EOF
	0 boot inc=1
	10 cmd wedge
	20 cmd terminated
	150.15 timer quiet
	150.15 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	state status=Wait ldr=- grp=-
	> 10 cmd wedge
	persist 02000000000000000000000000000000000000000101
	trace epoch op=wedge epoch=1 clock=0.01
	> 20 cmd terminated
	> 150.15 timer quiet
	> 150.15 query
	status status=Wait ldr=- grp=- leader=no since=0 epoch=1 wedged=yes
	EOF
}

@test "epochs: a state of another epoch is refused (E6); only lease has epochs, and epoch 0 is never pending" {
	run algo-drive -q -a lease -i 1 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.1 delta=0.15 start=7.1 token=0 echo=0 einc=0 rem=0
	200 boot inc=2 epoch=1
	EOF
	assert_failure 2
	assert_line --partial "line 3: boot: lease refuses the cluster or its persisted state"
	run algo-drive -q -a bully -i 1 -n 3 -e 1 <<<"0 boot inc=1"
	assert_failure 2
	assert_line --partial "bully has no epochs"
	run algo-drive -q -a lease -i 1 -n 3 -p <<<"0 boot inc=1"
	assert_failure 2
	assert_line --partial "epoch 0: 0 (running) to 16777215 allowed"
	run algo-drive -q -a lease -i 1 -n 3 -e 16777216 <<<"0 boot inc=1"
	assert_failure 2
}

@test "epochs: a token or K of a later epoch, or one that leaves no room in ours, is refused as malformed (E4)" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 3 -n 3 -e 1 <<-EOF
	0 boot inc=1
	150.15 timer quiet
	151 recv from=1 msg=Ok elid=3.1.1 t=0.2 inc=1 k=2199023255551
	151 recv from=2 msg=Refuse elid=3.1.1 why=stale ldr=0 left=0 k=2199023255552
	152 recv from=1 msg=Request elid=1.1.1 delta=0.15 start=7 token=2199023255553 echo=0 einc=0 rem=0
	153 recv from=1 msg=Edict token=2199023255553 seq=1 qt=1:7,2:7 text=x
	154 recv from=1 msg=Ok elid=3.1.1 t=0.2 inc=1 k=2199023255550
	EOF
	assert_success
	assert_line --index 10 "> 151 recv from=1 msg=Ok elid=3.1.1 t=0.2 inc=1 k=2199023255551"
	assert_line --index 11 "error refused"
	assert_line --index 13 "error refused"
	assert_line --index 15 "error refused"
	assert_line --index 17 "error refused"
	assert_line --index 19 "trace lead until=0.3 clock=0.154 qt=1:0.2,3:0.15015 epoch=1"
	# the top of epoch 1's range: 2 * 2^40 - 1
	assert_line --partial "token=2199023255551 echo=0.2"
}


@test "epochs: a fresh core (its first life) asks at once once it learns, without a quiet period; restarted, it waits as any restart (E7)" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 3 -n 3 -e 1 -p -F <<-EOF
	0 boot inc=1
	0 query
	1 cmd terminated
	2 recv from=1 msg=Ok elid=3.1.1 t=0.2 inc=1 k=0
	3 boot inc=2
	3 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	state status=Wait ldr=- grp=-
	> 0 query
	status status=Wait ldr=- grp=- leader=no since=0 epoch=1 pending=yes
	> 1 cmd terminated
	persist 02000000000000000000000000000000000000000102
	trace epoch op=learn epoch=1 clock=0.001
	trace clock c=0.001
	send to=1 msg=Request elid=3.1.1 delta=0.15 start=0.001 token=0 echo=0 einc=0 rem=0 kseen=0
	send to=2 msg=Request elid=3.1.1 delta=0.15 start=0.001 token=0 echo=0 einc=0 rem=0 kseen=0
	persist 0200000000000000000000000008f0d1800000000102
	trace lease op=grant to=3 until=0.15115 clock=0.001 epoch=1
	state status=Elec ldr=- grp=-
	> 2 recv from=1 msg=Ok elid=3.1.1 t=0.2 inc=1 k=0
	trace lead until=0.15085 clock=0.002 qt=1:0.2,3:0.001 epoch=1
	state status=Norm ldr=3 grp=-
	trace clock c=0.002
	send to=1 msg=Request elid=3.1.2 delta=0.15 start=0.002 token=1099511627777 echo=0.2 einc=1 rem=0.148701298 kseen=1099511627777
	send to=2 msg=Request elid=3.1.2 delta=0.15 start=0.002 token=1099511627777 echo=0 einc=0 rem=0.148701298 kseen=1099511627777
	persist 0200000100000004010000000008f0d1800000000102
	trace lease op=grant to=3 until=0.15215 clock=0.002 epoch=1
	> 3 boot inc=2
	trace clock c=0.003
	state status=Wait ldr=- grp=-
	> 3 query
	status status=Wait ldr=- grp=- leader=no since=3 quiet_until=0.15315 epoch=1
	EOF
	run algo-drive -q -a lease -i 3 -n 3 -F <<<"0 boot inc=1"
	assert_failure 2
	assert_line --partial "a fresh core is of an epoch above 0 and has no persisted state"
}

# epoch_sim ARGS...: elect-sim -a lease with its oracle (-O) and the trace
# certified by elect-check -s lease; the trace is left in $T.
epoch_sim() {
	T=$BATS_TEST_TMPDIR/trace
	elect-sim -a lease -O "$@" >"$T" 2>"$BATS_TEST_TMPDIR/err" ||
	    fail "elect-sim $*: $(cat "$BATS_TEST_TMPDIR/err")"
	run elect-check -s lease "$T"
	[ "$status" -eq 0 ] || fail "elect-sim $*: $output"
}

# The last epoch's leader, and that its token lies in epoch E's range.
new_leader() {
	local e=$1 tok
	tok=$(awk -v e="epoch=$e" '$3 == "lead" && $NF == e && /token=/ {
	    sub(/.*token=/, ""); print $1; exit }' "$T")
	[ -n "$tok" ] || fail "no leader of epoch $e"
	[ "$((tok >> 40))" -eq "$e" ] || fail "epoch $e token $tok"
}

@test "epochs in the simulator: grow 3 to 5, shrink 5 to 3, replace a node, a majority one at a time, all at once; under crashes, pauses and partitions" {
	local s
	for s in 1 2 3; do
		epoch_sim -n 6 -E 1,2,3 -s $s -d 4 -e '0.5 reconfigure 1,2,3,4,5' \
		    -e '1 reconfigure 3,4,5' -e '1.5 reconfigure 3,4,6' \
		    -e '2 reconfigure 1,4,6' -e '2.5 reconfigure 1,2,6' \
		    -e '3 reconfigure 3,4,5'
		new_leader 6
		[ "$(grep -c 'exit why=epoch' "$T")" -ge 10 ]
		# the leader of epoch 0 is the highest id, 3; once it leaves
		# (epoch 4), no line of it comes before it joins again
		epoch_sim -n 6 -E 1,2,3 -s $s -d 5 -e '0.5 reconfigure 1,2,3,4,5' \
		    -e '0.51 crash 5' -e '0.7 boot 5' \
		    -e '1.5 pause 5' -e '1.52 reconfigure 2,3,4' -e '1.7 resume 5' \
		    -e '2.5 partition 1,2/3,4,5,6' -e '2.5 reconfigure 4,5,6' \
		    -e '3 heal' -e '3.5 crash 6' -e '3.5 reconfigure 6' \
		    -e '3.6 boot 6'
		new_leader 4
	done
	# a change waits for the one before: cut off from epoch 0, epoch 1
	# cannot start, and the second change is skipped
	epoch_sim -n 6 -E 1,2,3 -d 4 -S -e '0.9 partition 1,2,3/4,5,6' \
	    -e '1 reconfigure 4,5,6' -e '1.5 reconfigure 4,5' -e '2 heal'
	assert_regex "$(cat "$BATS_TEST_TMPDIR/err")" "reconfigure skipped: epoch 1 has not started"
	new_leader 1
	run grep -c "epoch=2" "$T"
	assert_output 0
}

@test "epochs in the simulator: 1000 random runs (200 under the sanitizers) mixing changes with crashes, pauses and partitions" {
	# Each seed: the simulator with its oracle, piped into elect-check;
	# -S counts the changes after which the new epoch agreed on a leader.
	run_seeds() {
		local s n ev i
		set -o pipefail
		for s; do
			n=$((3 + s % 4))
			ev=()
			for i in $(seq 1 $n); do
				ev+=(-e "1.5 edict $i a$s" -e "2.5 edict $i b$s")
			done
			elect-sim -a lease -O -S -n $n -s $s -d 5 -r 4 \
			    --faults crash,recovery,pause,partition,reconfigure \
			    "${ev[@]}" \
			    2>"$dir/$s.err" | elect-check -s lease - \
			    >"$dir/$s.out" 2>&1 ||
			    { echo "seed $s: $(cat "$dir/$s.err" "$dir/$s.out")"
			    exit 255; }
			grep -c 'after reconfigure' "$dir/$s.err" >>"$dir/changes" ||
			    :
			rm -f "$dir/$s.err" "$dir/$s.out"
		done
	}
	export -f run_seeds
	export dir=$BATS_TEST_TMPDIR
	# The sanitizer pass (ELECT_SHORT) runs the same code on fewer seeds.
	local seeds=1000
	[ -z "${ELECT_SHORT:-}" ] || seeds=200
	run bash -c "seq 1 $seeds | xargs -P $(nproc) -n 50 bash -c 'run_seeds \"\$@\"' _"
	assert_success
	# the schedules did change the cluster, hundreds of times
	[ "$(awk '{ s += $1 } END { print s }' "$dir/changes")" -ge $((seeds / 2)) ]
}
