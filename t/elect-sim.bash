# Loaded by the algorithm tests: runs elect-sim over many seeds and checks
# every trace with elect-check; reads what elect-sim says.

# Skips when elect-check cannot check assertion sets yet.
need_check() {
	elect-check --help 2>/dev/null | grep -q '^sets:' ||
	    skip "elect-check has no assertion sets"
}

# sim_sweep SET SEEDS ALGO-SIM-ARGS...: for seeds 1..SEEDS, a cluster of
# 3 to 7 nodes; every trace must satisfy elect-check -s SET.
sim_sweep() {
	local set=$1 seeds=$2 s n
	shift 2
	for s in $(seq 1 "$seeds"); do
		n=$((3 + s % 5))
		elect-sim -n $n -s $s "$@" >"$BATS_TEST_TMPDIR/trace" ||
		    fail "elect-sim -n $n -s $s $* failed"
		run elect-check -s "$set" -c 1.5 "$BATS_TEST_TMPDIR/trace"
		[ "$status" -eq 0 ] || fail "elect-sim -n $n -s $s $*: $output"
	done
}

# after_crash ALGO-SIM-ARGS...: elect-sim's count (-S) of the election
# after a crash.
after_crash() {
	elect-sim "$@" 2>&1 >/dev/null | grep 'after crash'
}

# final_states TRACE: the last state line of each node in TRACE, as
# "NODE STATUS LDR GRP".
final_states() {
	awk '$3 == "state" { s[$2] = $2 " " $4 " " $5 " " $6 }
	    END { for (n in s) print s[n] }' "$1" | sort -n
}

# loss_cost ALGO SEED: "MSGS MAXCTR AGREED" of a faulted run at N = 17
# under 3% loss, then the same without loss, one line each: the
# algorithm's cost, on the papers' network (HELLOs lost would delay a
# restarted core's start, which is not the algorithm's doing).
loss_cost() {
	local x
	for x in 3 0; do
		elect-sim -a "$1" -n 17 -s "$2" -d 12 -r 6 --papers-net \
		    -k crash,recovery,pause,partition -m 0.1:10 -x $x -S \
		    2>"$BATS_TEST_TMPDIR/st" >"$BATS_TEST_TMPDIR/tr"
		echo "$(tail -1 "$BATS_TEST_TMPDIR/st" | sed 's/.*msgs=\([0-9]*\).*/\1/')" \
		    "$(grep -o 'grp=[0-9]*\.[0-9]*\.[0-9]*' "$BATS_TEST_TMPDIR/tr" |
		    awk -F. '$3 > m { m = $3 } END { print m + 0 }')" \
		    "$(grep -c '^agreed' "$BATS_TEST_TMPDIR/st")"
	done
}

# The tests modified-bully and enhanced-bully share (murshed.h).

# mb_incarnation ALGO: the leader (3) reboots while node 1 elects its
# replacement, and node 1's Coordinator(2, failed=3) reaches node 2 after
# 3 announced itself again; it names incarnation 1 of node 3, node 2
# follows incarnation 2 and keeps it.
mb_incarnation() {
	need_check
	elect-sim -a "$1" -n 3 -s 5 -d 4 -m 0.1:5 -t t_tx=5 -t announce=0 \
	    -e '1 crash 3' -e '1.045 boot 3' -e '3.9 crash 1' \
	    >"$BATS_TEST_TMPDIR/t"
	run grep -c ' 2 recv from=1 msg=Coordinator elid=1.1.1 ldr=2 .*failed=3 finc=1' \
	    "$BATS_TEST_TMPDIR/t"
	assert_output 1
	run elect-check -s sync -c 1.5 "$BATS_TEST_TMPDIR/t"
	assert_success
}

# mb_announce ALGO: node 2 took over by a stale coordinator; as a Normal
# leader it repeats its coordinator, and gives way to node 3's.
mb_announce() {
	run algo-drive -a "$1" -i 2 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=3 msg=Answer elid=2.1.0 ldr=-
	1 recv from=3 msg=Coordinator elid=3.1.0 ldr=3 linc=1 failed=-
	4 timer hold
	5 recv from=1 msg=Coordinator elid=1.1.1 ldr=2 failed=3
	8 timer hold
	1008 timer announce
	1010 recv from=3 msg=Coordinator elid=3.1.0 ldr=3 linc=1 failed=-
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 1008 timer announce
	send to=1 msg=Coordinator elid=2.1.0 ldr=2 linc=1 failed=-
	send to=3 msg=Coordinator elid=2.1.0 ldr=2 linc=1 failed=-
	timer set announce at=2008
	> 1010 recv from=3 msg=Coordinator elid=3.1.0 ldr=3 linc=1 failed=-
	timer cancel announce
	fd start 3
	state status=Wait ldr=3 grp=-
	EOF
}

# mb_busy_host ALGO: runs with a busy host's delays (up to 12 ms) under
# elect-node's default t_TX.
mb_busy_host() {
	need_check
	local ttx
	ttx=$(elect-node --help 2>&1 | sed -n 's/^  --ttx .*(\([0-9]*\)ms)$/\1/p')
	[ -n "$ttx" ] || fail "no default --ttx in elect-node --help"
	sim_sweep sync 12 -a "$1" -d 12 -r 6 -m 0.1:12 -t t_tx=$ttx
}

# loss_cheap ALGO: at 3% loss, over eight seeds, at most 10% more
# messages, group counters at most 5 higher each, and nine settlings in
# ten of the lossless runs (a seed alone may settle once less or more).
loss_cheap() {
	local s lossy clean m0=0 m1=0 a0=0 a1=0
	for s in $(seq 41 48); do
		{ read -r -a lossy; read -r -a clean; } < <(loss_cost "$1" $s)
		[ "${lossy[1]}" -le $((clean[1] + 5)) ] ||
		    fail "seed $s: group counter ${lossy[1]} at 3% loss, ${clean[1]} without"
		m1=$((m1 + lossy[0])) m0=$((m0 + clean[0]))
		a1=$((a1 + lossy[2])) a0=$((a0 + clean[2]))
	done
	[ "$m1" -le $((m0 * 11 / 10)) ] ||
	    fail "$m1 messages at 3% loss, $m0 without"
	[ $((a1 * 10)) -ge $((a0 * 9)) ] ||
	    fail "settled $a1 times at 3% loss, $a0 without"
}

# mb_stale_announce ALGO: node 1 follows 3 (incarnation 1) and elects on
# its DownSig; 3's announcement sent before it crashed arrives late and
# must not end the election (the detector reports a node once), while a
# new incarnation's does.
mb_stale_announce() {
	run algo-drive -a "$1" -i 1 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=2 msg=Answer elid=1.1.0 ldr=3 linc=1
	1 recv from=3 msg=Answer elid=1.1.0 ldr=3 linc=1
	20 timer hold
	30 down 3
	31 recv from=3 msg=Coordinator elid=3.1.0 ldr=3 linc=1 failed=-
	32 recv from=3 msg=Coordinator elid=3.2.0 ldr=3 linc=2 failed=-
	EOF
	assert_success
	assert_output --partial - <<-EOF
	> 31 recv from=3 msg=Coordinator elid=3.1.0 ldr=3 linc=1 failed=-
	> 32 recv from=3 msg=Coordinator elid=3.2.0 ldr=3 linc=2 failed=-
	timer cancel wait
	state status=Wait ldr=3 grp=-
	EOF
}
