#!/usr/bin/env bats
# elect-trace stats: elections found and counted on hand-made traces.

load helper

setup() {
	dir=$(mktemp -d "${BATS_TMPDIR:-/tmp}/stats.XXXXXX")
	T=$FIXTURES/trace
}

teardown() {
	rm -rf "$dir"
}

# field NAME of election N in the JSON lines on stdin
field() {
	python3 -c 'import json, sys
rows = [json.loads(l) for l in sys.stdin]
v = rows[int(sys.argv[1])][sys.argv[2]]
print(json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else
    str(v).lower() if isinstance(v, bool) else v)' "$@"
}

# assert_field N NAME VALUE: election N of "elect-trace stats --json" in
# $dir/j has NAME equal to VALUE.
assert_field() {
	assert_equal "$(field "$1" "$2" < "$dir/j")" "$3"
}

@test "stats: boot and crash elections of a bully trace" {
	run elect-trace stats "$T/bully3.trace"
	assert_success
	assert_line --index 1 --regexp '^1 +1\.000000 +0\.004000 +bully +boot:1 +3 +3 +2 +Coordinator=2$'
	assert_line --index 2 --regexp '^2 +3\.000000 +0\.504000 +bully +crash:3 +2 +3 +3 +Coordinator=1 Election=1 Ok=1$'
	assert_line --regexp '^bully +2 +2 +0\.254000 +0\.504000 +2\.5 +3$'
}

@test "stats: --json, the same figures" {
	run sh -c "elect-trace stats --json '$T/bully3.trace' > '$dir/j'"
	assert_success
	[ "$(wc -l < "$dir/j")" -eq 3 ]
	assert_field 1 cause crash
	assert_field 1 cause_node 3
	assert_field 1 start 3
	assert_field 1 duration 0.504
	assert_field 1 leader 2
	assert_field 1 nodes "[1, 2, 3]"
	assert_field 1 messages 3
	assert_field 1 by_type '{"Coordinator": 1, "Election": 1, "Ok": 1}'
	assert_field 1 lineno 16
	assert_field 2 summary bully
	assert_field 2 median_messages 2.5
	assert_field 2 max_duration 0.504
}

@test "stats: Murshed and Allen's best case, N = 5: four messages" {
	run sh -c "elect-trace stats --json '$T/best5.trace' > '$dir/j'"
	assert_success
	# one election, from the crash of 5 to everyone following 4; the
	# heartbeats before and after are no part of it
	[ "$(wc -l < "$dir/j")" -eq 2 ]
	assert_field 0 messages 4
	assert_field 0 by_type '{"coordinator": 4}'
	assert_field 0 leader 4
	assert_field 0 duration 0.0008
}

@test "stats: -x leaves a message type out" {
	run elect-trace stats -x Ok,Election "$T/bully3.trace"
	assert_line --index 2 --regexp 'crash:3 +2 +3 +1 +Coordinator=1$'
}

@test "stats: a lease trace: an election per new lead, one when a lease runs out" {
	run sh -c "elect-trace stats --json '$T/lease3.trace' > '$dir/j'"
	assert_success
	assert_field 0 cause boot
	assert_field 0 leader 3
	assert_field 0 duration 0.2
	# 3's lease, from 1.2 by its clock, ends at 11.1; 2 leads at 12.1
	assert_field 1 cause expire
	assert_field 1 start 11.1
	assert_field 1 leader 2
	assert_field 1 duration 1
}

@test "stats: what starts an election and what does not" {
	cat > "$dir/t" <<-EOF
	1 1 state status=Norm ldr=3 grp=-
	1 2 state status=Norm ldr=3 grp=-
	1 3 state status=Norm ldr=3 grp=-
	2 1 crash
	3 1 boot inc=2
	3.5 1 state status=Norm ldr=3 grp=-
	4 1 send to=3 msg=AreYouThere
	5 2 fd op=down peer=3
	5.1 2 state status=Norm ldr=2 grp=-
	5.2 1 state status=Norm ldr=2 grp=-
	6 2 state status=Norm ldr=2 grp=-
	EOF
	run sh -c "elect-trace stats --json '$dir/t' > '$dir/j'"
	assert_success
	# a follower's crash is not one; its boot is, until it follows 3
	assert_field 0 cause boot
	assert_field 0 duration 0.5
	assert_field 0 messages 0
	# a DownSig for the leader is one, though 3 never crashed: it ends
	# only when 3 too follows 2; here it never does
	assert_field 1 cause down
	assert_field 1 done false
	assert_field 1 leader None
	assert_field 2 elections 2
	assert_field 2 done 1
}

@test "stats: several files are merged first" {
	grep ' 1 ' "$T/bully3.trace" > "$dir/1"
	grep ' 2 ' "$T/bully3.trace" > "$dir/2"
	grep ' 3 ' "$T/bully3.trace" > "$dir/3"
	run elect-trace stats "$dir/3" "$dir/1" "$dir/2"
	assert_success
	assert_line --regexp '^bully +2 +2 +0\.254000 +0\.504000 +2\.5 +3$'
}

@test "stats: an empty trace, bad input, usage" {
	run elect-trace stats < /dev/null
	assert_success
	assert_output ""
	printf '1 1 boot inc=1\n2 1 state status=Sleeping ldr=1 grp=-\n' > "$dir/bad"
	run elect-trace stats "$dir/bad"
	assert_failure 2
	assert_output --partial "$dir/bad:2: bad value for status"
	printf '2 1 boot inc=1\n1 1 exit why=x\n' > "$dir/bad"
	run elect-trace stats - < "$dir/bad"
	assert_failure 2
	assert_output --partial "-:2: out of order"
	run elect-trace stats -x ""
	assert_failure 2
	run elect-trace stats --bogus
	assert_failure 2
	assert_output --partial "usage: elect-trace stats"
}

@test "stats: times at the reader's bound (9000000000 s): a lease that ends past it, renewed, and an election as long" {
	# 1's lease runs 9e9 s by its clock from the last time a trace holds
	printf '%s\n' '1 1 boot inc=1 algo=lease nodes=1' \
	    '9000000000 1 lead until=9000000000 clock=1' > "$dir/far"
	run elect-trace stats "$dir/far"
	assert_success
	assert_line --index 1 --regexp '^1 +1\.000000 +8999999999\.000000 +lease +boot:1 +1 '
	# a lease to 9.223e18 ns, then renewed by the longest d=
	printf '%s\n' '1 1 boot inc=1 algo=lease nodes=1' \
	    '9000000000 1 lead until=223000001 clock=1' \
	    '9000000000 1 renew d=1000000000000000' > "$dir/renew"
	run elect-trace stats "$dir/renew"
	assert_success
	assert_line --index 1 --regexp '^1 +1\.000000 +8999999999\.000000 +lease '
	refute_output --partial expire
	# one election from 0 to the bound: its median is its length
	printf '%s\n' '0 1 boot inc=1 algo=lease nodes=1' \
	    '9000000000 1 lead until=2 clock=1' > "$dir/long"
	run elect-trace stats "$dir/long"
	assert_success
	assert_line --regexp '^lease +1 +1 +9000000000\.000000 +9000000000\.000000 +0 +0$'
}

@test "stats: nodes cut off in a minority churn apart, not as elections of the cluster" {
	# 5 keeps its lease with 3 and 4 all along; 1 and 2 churn from 2 to 4
	run elect-trace stats "$T/lease-minority.trace"
	assert_success
	assert_line --regexp '^lease +2 +1 '
	refute_output --partial 'state:1'
	refute_output --partial 'state:2'
	assert_line --partial 'not elections of the cluster'
	assert_line --regexp '^1 +5 +2\.000000 +2\.020000 +101 +101$'
	assert_line --regexp '^2 +5 +2\.000000 +2\.020000 +101 +101$'
	run sh -c "elect-trace stats --json '$T/lease-minority.trace' > '$dir/j'"
	assert_success
	assert_field 2 cut_off 1
	assert_field 2 leader 5
	assert_field 2 changes 101
	assert_field 2 duration 2.02
	assert_field 3 cut_off 2
	assert_field 4 elections 2
}

# Issue: a leader killed with SIGKILL writes no line; its peers' Dead
# says it is gone (elect-trace(5), recv), and elect-check reads it as the
# crash.  stats and timeline drew it leading until its lease's end.
@test "stats and timeline: a Dead is its node's crash, as elect-check reads it" {
	local f=$BATS_TEST_TMPDIR/dead.trace
	cat > "$f" <<-'EOT'
	100.0 1 boot inc=1 algo=lease nodes=3
	100.0 2 boot inc=1 algo=lease nodes=3
	100.0 3 boot inc=1 algo=lease nodes=3
	100.1 3 lead until=110 clock=100.1
	101.0 1 recv from=3 msg=Dead elid=3.1.1
	101.0 2 recv from=3 msg=Dead elid=3.1.1
	101.5 2 lead until=111.5 clock=101.5
	EOT
	run elect-trace stats "$f"
	assert_success
	assert_line --regexp '^2 +101\.000000 +0\.500000 +lease +crash:3 +2 '
	run elect-trace timeline "$f"
	assert_success
	assert_line --regexp '^ +1\.000000 +\. +\. +CRASH$'
	# a Dead of an older incarnation than the node's is no crash
	sed -i 's/^100.0 3 boot inc=1/100.0 3 boot inc=2/' "$f"
	run elect-trace stats "$f"
	refute_output --partial 'crash:3'
}
