#!/usr/bin/env bats
# The lease core (Nerio: van Renesse, Schneider and Gehrke), run in
# elect-sim over many seeds with the simulator's own real-time oracle (-O)
# and elect-check -s lease. The transcripts pin lease 150 ms and renew 50
# ms (rtt 5 ms and drift 1e-3 are the defaults), so a boot's quiet period
# is 150.15 ms and a grant holds 150.15 ms; the simulated runs use the
# defaults.
# Its transcripts, the core driven input by input, are
# t/testdata/algo/lease.txt (t/transcripts.bats).

load helper
load elect-sim

# lease_sweep SEEDS ARGS...: clusters of 3 to 7 nodes; the simulator's
# oracle (-O: at most one leader at any real instant, tokens growing from
# one leadership to the next, edicts delivered in the order they were
# made) and elect-check -s lease must both pass every run.
lease_sweep() {
	local seeds=$1 s n
	shift
	for s in $(seq 1 "$seeds"); do
		n=$((3 + s % 5))
		elect-sim -a lease -n $n -s $s -O -e "3.3 edict $n a" \
		    -e "3.31 edict $n b" -e "6 edict 2 c" -e "6 edict 3 d" \
		    "$@" >"$BATS_TEST_TMPDIR/trace" 2>"$BATS_TEST_TMPDIR/err" ||
		    fail "elect-sim -n $n -s $s $*: $(cat "$BATS_TEST_TMPDIR/err")"
		run elect-check -s lease "$BATS_TEST_TMPDIR/trace"
		[ "$status" -eq 0 ] || fail "elect-sim -n $n -s $s $*: $output"
	done
}

@test "lease: simulated crashes, pauses and partitions never give two leaders, stale tokens or misordered edicts" {
	lease_sweep 40 -d 12 -r 6 -k crash,recovery,pause,partition
}

@test "lease: so do clocks drifting within the bound, message loss and reordering" {
	lease_sweep 40 -d 12 -r 6 -k crash,recovery,pause,partition -D 0.001 \
	    -o 3000 -x 3 -R -m 0.1:3
}

@test "lease: OQwBS keeps the promises under a skew bound" {
	lease_sweep 20 -d 12 -r 6 -k crash,recovery,pause,partition -t skew=5 -o 5
}

# The oracle and the checker must be able to fail: clocks that drift 9%
# under a core told they drift not at all break Lemma 3.1.
@test "lease: the oracle and elect-check both catch clocks drifting beyond the bound" {
	local s caught=0
	for s in $(seq 1 20); do
		elect-sim -a lease -n 3 -s $s -d 12 -r 8 -k crash,recovery,pause,partition \
		    -D 0.09 -t drift=0 -O >"$BATS_TEST_TMPDIR/trace" \
		    2>"$BATS_TEST_TMPDIR/err" && continue
		grep -q 'leaders, among them' "$BATS_TEST_TMPDIR/err" ||
		    fail "$(cat "$BATS_TEST_TMPDIR/err")"
		run elect-check -s lease "$BATS_TEST_TMPDIR/trace"
		[ "$status" -eq 1 ] && caught=$((caught + 1))
	done
	[ "$caught" -ge 2 ] || fail "caught $caught times"
}

# Node 3 leads, crashes; node 2 leads, crashes; node 3 comes back with the
# bound on K it persisted (1025) and must still go above node 2's token,
# which it learns from node 1's Ok.  Then every node of five restarts in turn,
# twice, and the leader with it whenever it is hit: a crashed node reports
# its bound, which the renewals then carry, so each restart moves every
# bound (and the next token) about a stride up.
@test "lease: fencing tokens grow across every change of leader and every restart" {
	local t=1 i r ev=()
	run elect-sim -a lease -n 3 -s 1 -d 4 -O -e '1 crash 3' -e '2 crash 2' \
	    -e '3 boot 3'
	assert_success
	run awk '$3 == "lead" && /token=/ { t = $NF; sub(/token=/, "", t)
		if (t != last) printf "%s:%s ", $2, t; last = t }' <<<"$output"
	assert_output "3:1 2:2 3:1026 "
	for r in 1 2; do
		for i in 5 4 3 2 1; do
			ev+=(-e "$t.0 crash $i" -e "$t.4 boot $i")
			t=$((t + 1))
		done
	done
	run elect-sim -a lease -n 5 -s 1 -d 12 -O "${ev[@]}"
	assert_success
	run awk '$3 == "lead" && /token=/ { t = $NF; sub(/token=/, "", t)
		if (t != last) printf "%s:%s ", $2, t; last = t }' <<<"$output"
	assert_output "5:1 4:2 5:1026 4:4101 5:6151 "
	# The same with nodes that leave (SIGTERM): each persisted K itself,
	# so tokens grow by one a leadership.
	ev=()
	t=1
	for r in 1 2; do
		for i in 5 4 3 2 1; do
			ev+=(-e "$t.0 leave $i" -e "$t.4 boot $i")
			t=$((t + 1))
		done
	done
	run elect-sim -a lease -n 5 -s 1 -d 12 -O "${ev[@]}"
	assert_success
	run awk '$3 == "lead" && /token=/ { t = $NF; sub(/token=/, "", t)
		if (t != last) printf "%s:%s ", $2, t; last = t }' <<<"$output"
	assert_output "5:1 4:2 5:3 4:4 5:5 "
}

# Failover: the grants to a crashed leader run out within the lease
# (150 ms, renewed every 50); a departing leader releases them at once.
@test "lease: a crashed leader is replaced within the lease, a departing one within milliseconds" {
	local s ms
	for s in $(seq 1 20); do
		ms=$(elect-sim -a lease -n 5 -s $s -d 3 -S -O \
		    -e "2.0$((s % 50)) crash 5" 2>&1 >/dev/null |
		    sed -n 's/.*after crash.*(+\([0-9]*\)\..*/\1/p')
		[[ -n $ms && $ms -le 160 ]] || fail "seed $s: crash, $ms ms"
		ms=$(elect-sim -a lease -n 5 -s $s -d 3 -S -O \
		    -e "2.0$((s % 50)) leave 5" 2>&1 >/dev/null |
		    sed -n 's/.*after leave.*(+\([0-9]*\)\..*/\1/p')
		[[ -n $ms && $ms -lt 10 ]] || fail "seed $s: leave, $ms ms"
	done
}

@test "lease: a leader paused past its lease is replaced, and does not lead again when it resumes" {
	elect-sim -a lease -n 5 -s 3 -d 4 -O -e '1 pause 5' -e '2 resume 5' \
	    >"$BATS_TEST_TMPDIR/trace"
	run awk '$3 == "lead" && $1 > 1 && $1 < 2 { print $2 }' \
	    "$BATS_TEST_TMPDIR/trace"
	assert_line 4
	refute_line 5
	run awk '$3 == "lead" && $1 >= 2 { print $2 }' "$BATS_TEST_TMPDIR/trace"
	assert_line 4
	refute_line 5
	run elect-check -s lease "$BATS_TEST_TMPDIR/trace"
	assert_success
}

@test "lease: a leader cut off in a minority stops leading; the majority elects another" {
	elect-sim -a lease -n 5 -s 2 -d 4 -O -e '1 partition 4,5/1,2,3' \
	    -e '3 heal' >"$BATS_TEST_TMPDIR/trace"
	run awk '$3 == "lead" && $1 > 1.2 && $1 < 3 { print $2 }' \
	    "$BATS_TEST_TMPDIR/trace"
	assert_line 3
	refute_line 5
	refute_line 4
	run elect-check -s lease "$BATS_TEST_TMPDIR/trace"
	assert_success
}

# Edicts 1 ms apart over links that delay by up to 30 ms and reorder:
# every node delivers in the order of making and refuses the late ones.
@test "lease: edicts arrive in order despite reordering; late ones are refused" {
	local i ev=()
	for i in $(seq 0 9); do
		ev+=(-e "2.00$i edict 5 e$i")
	done
	elect-sim -a lease -n 5 -s 4 -d 3 -R -m 0.1:30 -t lease=400 \
	    -t renew=100 -t rtt=60 -O "${ev[@]}" >"$BATS_TEST_TMPDIR/trace"
	run grep -c ' edict seq=' "$BATS_TEST_TMPDIR/trace"
	assert_output 10
	run grep -c 'why=edict-order' "$BATS_TEST_TMPDIR/trace"
	[ "$output" -ge 1 ] || fail "no edict arrived late"
	run awk '$3 == "deliver" { split($5, a, "="); if (a[2] + 0 <= last[$2])
		print "out of order: " $0; last[$2] = a[2] + 0; n++ }
		END { print n " deliveries" }' "$BATS_TEST_TMPDIR/trace"
	refute_output --partial "out of order"
	run elect-check -s lease "$BATS_TEST_TMPDIR/trace"
	assert_success
}

@test "lease: the timing must leave a lease room for two renewals" {
	run elect-sim -a lease -n 3 -t renew=100
	assert_failure
	assert_output --partial "timing lease must be at least 2 renew + rtt"
	run elect-sim -a lease -n 3 -t rtt=60
	assert_failure
	assert_output --partial "timing rtt must not exceed renew"
	run elect-sim -a lease -n 3 -t drift=0.2
	assert_failure
	assert_output --partial "timing drift out of range"
}

@test "lease: the same seed gives the same trace, with drifting clocks too" {
	elect-sim -a lease -n 5 -s 9 -d 6 -r 3 -k crash,recovery,pause,partition \
	    -D 0.001 -o 100 -x 5 -R >"$BATS_TEST_TMPDIR/a"
	elect-sim -a lease -n 5 -s 9 -d 6 -r 3 -k crash,recovery,pause,partition \
	    -D 0.001 -o 100 -x 5 -R >"$BATS_TEST_TMPDIR/b"
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
}
