#!/usr/bin/env bats
# The compact trace level (elect-trace(5), Compact traces): renew lines
# written for routine lease renewals, and elect-check judging a compact
# trace as the full form of the same run: fixtures, every lease fixture
# turned compact, simulated runs under faults, and real nodes.

bats_require_minimum_version 1.5.0

load helper
load checkrun
load node

teardown() {
	[ -z "$ELECT_DIR" ] || elect_teardown
}

# renewals ID N: node ID's trace shows N renewals of its leadership or
# of its grant.
renewals() {
	[ "$(grep -cE "^[^ ]+ $1 (renew|lead until|lease op=grant)" "$ELECT_DIR/$1/trace")" \
	    -ge "$2" ]
}

# verdict FILE [ARGS...]: elect-check's reports and its holds/violated
# lines, without the file name and line numbers, which differ between
# the forms.
verdict() {
	local f=$1
	shift
	elect-check "$@" "$f" 2>&1 |
	    sed -E 's/[^ :]+:[0-9]+: //; s/ \(line [0-9]+\)//' |
	    grep -Ev '^elect-check: [0-9]+ events|messages? not received|^elect-check: not judged'
}

# summary FILE [ARGS...]: its holds and violated lines only.
summary() {
	local f=$1
	shift
	elect-check "$@" "$f" 2>&1 | grep -E '^elect-check: (holds|violated):'
}

@test "compact: a correct run certified; an overlap and a lapsed quorum reported as in the full form" {
	local k
	cd "$FIXTURES/check/lease"
	for k in holds overlap expire; do
		# The fixture is what the writer makes of the full form.
		run diff <(grep -v '^#' "compact-$k.trace") \
		    <(tcompact "compact-$k-full.trace")
		assert_success
		grep -q ' renew d=' "compact-$k.trace"
		assert_equal "$(verdict "compact-$k.trace" -s lease)" \
		    "$(verdict "compact-$k-full.trace" -s lease)"
	done
	check -s lease compact-holds.trace
	assert_success
	check -s lease compact-overlap.trace
	assert_failure 1
	reports "compact-overlap.trace:33: uniqueness" \
	    "compact-overlap.trace:34: lease-quorum"
	check -s lease compact-expire.trace
	assert_failure 1
	reports "compact-expire.trace:41: lease-quorum"
	assert_output --partial "node 3 leads at 8.002300031 while at most 1 of 3"
}

@test "compact: a deadline passed among renew lines is reported at the first line past it" {
	# No node leads: the election deadline, c after the boots, falls
	# among lines that change nothing, which it must not be put off by.
	printf '%s\n' "1 1 boot inc=1 algo=lease nodes=3 level=compact" \
	    "1 2 boot inc=1 algo=lease nodes=3 level=compact" \
	    "1 3 boot inc=1 algo=lease nodes=3 level=compact" \
	    "1.5 1 renew d=500000000" "2 1 renew d=500000000" \
	    "2.5 1 renew d=500000000" "3 1 renew d=500000000" \
	    "3.5 1 renew d=500000000" "4 1 renew d=500000000" \
	    > "$BATS_TEST_TMPDIR/e.trace"
	check -s lease -c 2 "$BATS_TEST_TMPDIR/e.trace"
	assert_failure 1
	assert_output "$BATS_TEST_TMPDIR/e.trace:8: election: no leader from 1 to 3, with 3 of 3 nodes running and every link up"
}

@test "compact: a delivery waiting for its edict is judged at the first renew line past the skew" {
	printf '%s\n' "1 1 boot inc=1 algo=lease nodes=3 level=compact" \
	    "1 2 boot inc=1 algo=lease nodes=3 level=compact" \
	    "1 3 boot inc=1 algo=lease nodes=3 level=compact" \
	    "1.2 1 deliver from=3 seq=1 qt=1:1,2:1" \
	    "1.3 2 renew d=500000000" "1.5 2 renew d=500000000" \
	    "1.7 2 renew d=500000000" "1.9 2 renew d=500000000" \
	    > "$BATS_TEST_TMPDIR/d.trace"
	check -s lease --skew 0.4 "$BATS_TEST_TMPDIR/d.trace"
	assert_failure 1
	assert_output "$BATS_TEST_TMPDIR/d.trace:7: edict-order: undecided: node 1 delivered edict 3/1, which no edict line made"
}

@test "compact: every lease fixture is judged in its compact form as in its full form" {
	local f n=0
	cd "$FIXTURES/check"
	for f in lease/*.trace reboot/*.trace; do
		tcompact "$f" >"$BATS_TEST_TMPDIR/c.trace"
		grep -q ' renew d=' "$BATS_TEST_TMPDIR/c.trace" && n=$((n + 1))
		run diff <(summary "$f") <(summary "$BATS_TEST_TMPDIR/c.trace")
		assert_success
	done
	# Enough of them renew for this to say something.
	[ "$n" -ge 10 ]
}

@test "compact: elect-sim writes it, and faulty runs are judged as their full form" {
	local s n
	for s in 1 2 3 4 5 6 7 8; do
		n=$((3 + 2 * (s % 2)))
		elect-sim -a lease -n "$n" -d 20 -s "$s" -r 8 \
		    >"$BATS_TEST_TMPDIR/f.trace"
		elect-sim -a lease -n "$n" -d 20 -s "$s" -r 8 \
		    --trace-level compact >"$BATS_TEST_TMPDIR/c.trace"
		# The simulator's nodes write as the filter makes it.
		run diff "$BATS_TEST_TMPDIR/c.trace" \
		    <(tcompact "$BATS_TEST_TMPDIR/f.trace")
		assert_success
		assert_equal "$(verdict "$BATS_TEST_TMPDIR/c.trace" -s lease)" \
		    "$(verdict "$BATS_TEST_TMPDIR/f.trace" -s lease)"
		# Far fewer bytes.
		[ "$(wc -c <"$BATS_TEST_TMPDIR/c.trace")" -lt \
		    "$(($(wc -c <"$BATS_TEST_TMPDIR/f.trace") / 3))" ]
	done
	run elect-sim -a lease -n 3 --trace-level terse
	assert_failure 2
	assert_output --partial "not compact or full"
}

@test "compact: a renew line needs d= from 1 to 10^15 nanoseconds" {
	run elect-check -s lease <<<"1 1 renew d=0"
	assert_failure 2
	assert_output --partial "renew: d= must be 1 to"
	run elect-check -s lease <<<"1 1 renew"
	assert_failure 2
	assert_output --partial "missing key d="
	run elect-check -s lease <<<"1 1 renew d=1000000000000001"
	assert_failure 2
}

@test "compact: elect-trace stats and timeline follow a leadership its renew lines carry" {
	cd "$FIXTURES/check/lease"
	run elect-trace stats compact-holds.trace
	assert_success
	full=$(elect-trace stats compact-holds-full.trace | grep -v messages)
	assert_equal "$(echo "$output" | grep -v messages)" "$full"
	run elect-trace timeline compact-holds.trace
	assert_success
	assert_output --partial "renew"
}

@test "compact: elect-node writes renew lines by default, every line with --trace-level full; both certified" {
	local lvl C
	for lvl in compact full; do
		C=$(mkcluster 3 "$BATS_TEST_TMPDIR/c-$lvl.conf")
		elect_setup "$BATS_TEST_TMPDIR/e-$lvl"
		if [ "$lvl" = full ]; then
			elect_start_cluster --insecure --trace-level full "$C"
		else
			elect_start_cluster --insecure "$C"
		fi
		run elect_wait_leader 20
		assert_output 3
		wait_for 20 renewals 3 100
		wait_for 20 renewals 1 100
		elect_stop_all
		run elect_check -s lease
		assert_success
		if [ "$lvl" = compact ]; then
			grep -q "^[^ ]* 1 boot .* level=compact" "$ELECT_DIR/1/trace"
			# a round after one without a quorum is written whole,
			# and a loaded host misses some: most are renew lines
			local req ren
			req=$(grep -c "msg=Request" "$ELECT_DIR/1/trace" || true)
			ren=$(grep -c " renew " "$ELECT_DIR/1/trace")
			[ "$req" -lt "$ren" ] ||
			    fail "node 1: $req Request lines, $ren renew lines"
		else
			run grep -c " renew " "$ELECT_DIR/merged.trace"
			assert_output 0
			run grep -c "msg=Request" "$ELECT_DIR/1/trace"
			[ "$output" -ge 100 ]
		fi
	done
	run elect-node -f "$C" -i 1 --insecure --trace-level terse
	assert_failure 2
	assert_output --partial "not compact or full"
}
