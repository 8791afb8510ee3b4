#!/usr/bin/env bats
# elect-chaos: a short round of the nemesis on real nodes in network
# namespaces, and checks that can fail.

load helper

CHAOS="$BATS_TEST_DIRNAME/../share/elect/elect-chaos"

need_root() {
	[ "$(id -u)" = 0 ] || skip "elect-chaos needs root (network namespaces)"
}

OPEN=

teardown() {
	[ -z "$OPEN" ] || rm -rf "$OPEN"
}

# field NAME: the value of a line of the summary in $output.
field() {
	echo "$output" | sed -n "s/^$1  *//p"
}

# round SECS SEED FLAGS...: a run of the nemesis for SECS seconds (8
# under ELECT_SHORT) from SEED, kept in $D, its summary in $output.
round() {
	local secs=$1 seed=$2
	shift 2
	[ -n "${ELECT_SHORT:-}" ] && secs=8
	D=$BATS_TEST_TMPDIR/run
	run "$CHAOS" -B "$ELECT_BUILD/bin" -s "$seed" -d "$secs" -i 200 -k \
	    -o "$D" "$@"
	echo "$output"
}

# forge_overlap HISTORY: a forged job of host 99 starts, with a higher
# token, while the job with the most writes still runs.
forge_overlap() {
	local job
	job=$(awk '$4 == "write" { w[$2 " " $3]++ }
	    END { for (k in w) if (w[k] > m) { m = w[k]; j = k }; print j }' "$1")
	awk -v j="$job" '{ print }
	    $2 " " $3 == j && $4 == "start" {
		split($5, a, "="); print $1, 99, 1, "start token=" a[2] + 1 }' \
	    "$1" >"$1.new"
	mv "$1.new" "$1"
}

@test "a fault outside the algorithm's model is refused" {
	run "$CHAOS" -a bully -F pause
	assert_failure 2
	assert_output --partial "pause: not a fault that bully admits (kill,term)"
	run "$CHAOS" -a nosuch
	assert_failure 2
	run "$CHAOS" -n 1
	assert_failure 2
}

@test "lease under every fault: no overlap, no stale write, the trace certified" {
	need_root
	round 12 16 -F kill,term,pause,partition,loss,drift
	# The history is the jobs' own record: no job ran while another did.
	# The task lines may show more on a loaded host, where a command
	# SIGKILLed in time may take long to die (its stop line is stamped
	# once it is dead; elect-node(1) says the margin must cover that): the
	# run's verdict counts them, this test does not.
	assert_equal "$(field overlaps | cut -d, -f1)" "0 by the history"
	assert_equal "$(field 'stale writes' | cut -d' ' -f1)" 0
	assert_equal "$(field elect-check)" "0 violations (exit 0)"
	assert_equal "$(field 'tokens increase')" yes
	[ "$(field 'leader changes')" -ge 2 ]
	[ "$(field faults | cut -d: -f1)" -ge 3 ]
	[ "$(field jobs | cut -d' ' -f1)" -ge 2 ]
	# The harness's own lines are in the trace elect-check certified.
	grep -q ' net a=' "$D/merged.trace" || grep -q ' pause$' "$D/merged.trace"

	# An overlap, and that job's later writes accepted are stale.
	forge_overlap "$D/store/history"
	run "$CHAOS" -B "$ELECT_BUILD/bin" -c "$D"
	assert_failure 1
	assert_equal "$(field overlaps | cut -d' ' -f1)" 1
	[ "$(field 'stale writes' | cut -d' ' -f1)" -ge 1 ]
	assert_equal "$(field verdict)" "FAIL (kept in $D)"
}

@test "bully-fd under crashes: the trace certified" {
	need_root
	[ -n "${ELECT_SHORT:-}" ] && skip "the lease round covers the same code"
	run "$CHAOS" -B "$ELECT_BUILD/bin" -a bully-fd -s 16 -d 5 -i 200 -k \
	    -o "$BATS_TEST_TMPDIR/run"
	echo "$output"
	assert_success
	assert_equal "$(field elect-check)" "0 violations (exit 0)"
	[ "$(field 'leader changes')" -ge 2 ]
	assert_equal "$(field verdict)" pass
	# The detector was judged too (Bully_FD assumes it perfect).
	grep -q '^elect-check: holds: .*fd-complete fd-accurate' \
	    "$BATS_TEST_TMPDIR/run/check.err"
}

@test "lease with the PostgreSQL store: the fence of elect-fencing(7) refuses a late write, and the store's rows are checked" {
	need_root
	# The user postgres runs the store's server in the run's directory:
	# one of the test's own that others may pass through, not bats's.
	OPEN=$(mktemp -d "${TMPDIR:-/tmp}/elect-chaos.XXXXXX")
	chmod 711 "$OPEN"
	D=$OPEN/run
	run "$CHAOS" -B "$ELECT_BUILD/bin" -s 16 -d 5 -i 200 -k -o "$D" \
	    --store postgres -F kill,pause
	echo "$output"
	assert_success
	assert_equal "$(field 'stale writes')" "0 accepted, 1 refused"
	assert_output --regexp $'\nstore +postgres: [1-9][0-9]* rows \\([0-9]+ writes recorded ok\\), 0 with a token older than one before; the late write of token=[0-9]+: refused\n'
	assert_equal "$(field verdict)" pass
	# A row of an older token written after a newer one: the store took
	# a stale write.
	echo "999999|9|1" >>"$D/store/pg.rows"
	run "$CHAOS" -B "$ELECT_BUILD/bin" -c "$D"
	assert_failure 1
	assert_output --partial ", 1 with a token older than one before"
	assert_equal "$(field verdict)" "FAIL (kept in $D)"
	run "$CHAOS" --store nosuch
	assert_failure 2
}

@test "--names: 0 to 16 names, no other" {
	for bad in 17 08 -1 x; do
		run "$CHAOS" --names "$bad"
		assert_failure 2
		assert_output "elect-chaos: --names: 0 to 16"
	done
}

# name_field NAME KEY: the value of KEY= on NAME's line of the summary.
name_field() {
	field "name $1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

@test "lease with --names 3: every name's jobs one at a time, under growing tokens, the trace certified per name" {
	need_root
	# Three guards a host, fifteen on a loaded test host's two cores:
	# at the default lease its margin (a quarter of it, 20 ms) is short
	# of their wake-ups now and then (a guard that says "the
	# leadership's deadline has passed", elect-check's task-lease); a
	# longer lease, as elect-node(1) says for such a host.
	round 10 7 --names 3 -F kill,pause,partition,loss -- --lease 200ms
	# As in the round above, the history is what the test holds to.
	for nm in job-1 job-2 job-3; do
		[ "$(name_field $nm jobs)" -ge 2 ] || fail "$nm: too few jobs"
		assert_equal "$(name_field $nm overlaps | cut -d, -f1)" 0
		assert_equal "$(name_field $nm tokens)" yes
		assert_equal "$(name_field $nm stale)" 0
		# Its jobs wrote to its own store, under its own tokens: each
		# job's host and token those of a guarded command of the name.
		awk -v nm="$nm" 'FILENAME ~ /task/ {
			if ($4 == "op=start" && $NF == "name=" nm) t[$2 " " $6] = 1
			next }
		    $4 == "start" && !($2 " " $5 in t) { print "not " nm "'"'"'s: " $0; bad = 1 }
		    END { exit bad }' "$D"/*/task.$nm.trace "$D/store/$nm/history"
	done
	assert_equal "$(field 'tokens increase')" yes
	assert_equal "$(field elect-check)" "0 violations (exit 0)"
	grep -q '^elect-check: .* 5 nodes, 3 names, ' "$D/check.err"
	# Fifteen workers slow a loaded host's restarts (a node killed is
	# started again and waited for): under the sanitizers one may be all
	# that fits.
	[ "$(field faults | cut -d: -f1)" -ge 1 ]

	# An overlap in job-2's history: job-2 fails, alone.
	forge_overlap "$D/store/job-2/history"
	run "$CHAOS" -B "$ELECT_BUILD/bin" -c "$D"
	assert_failure 1
	assert_equal "$(name_field job-2 overlaps | cut -d, -f1)" 1
	[ "$(name_field job-2 stale)" -ge 1 ]
	assert_equal "$(field 'name job-2' | awk '{ print $NF }')" FAIL
	assert_equal "$(field 'name job-1' | awk '{ print $NF }')" pass
	assert_equal "$(field 'name job-3' | awk '{ print $NF }')" pass
	assert_equal "$(field overlaps | cut -d' ' -f1)" 1
	assert_equal "$(field verdict)" "FAIL (kept in $D)"
}
