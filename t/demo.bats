#!/usr/bin/env bats
# make demo (share/elect/demo.sh): what a newcomer sees first is the
# default algorithm and a guarded job that survives its leader's kill.

load helper

@test "demo: lease, a guarded job goes on at the next leader with a greater token" {
	run timeout 120 bash "$BATS_TEST_DIRNAME/../share/elect/demo.sh" \
	    "$ELECT_BUILD/bin"
	assert_success
	assert_output --partial "(the default algorithm, lease)"
	assert_output --partial "elect-node --run-if-leader --wait -- JOB"
	refute_output --partial "bully"
	# Two leaderships of the job, the second with the greater token.
	local runs
	runs=$(sed -nE 's/^  [0-9]+ lines: node ([0-9]+), token ([0-9]+)$/\1 \2/p' <<<"$output")
	[ "$(wc -l <<<"$runs")" = 2 ]
	read -r n1 t1 n2 t2 <<<"$(tr '\n' ' ' <<<"$runs")"
	[ "$n1" != "$n2" ]
	[ "$t2" -gt "$t1" ]
	assert_output --partial "verdict: every assertion holds"
}
