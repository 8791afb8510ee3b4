#!/usr/bin/env bats
# Named leaderships in traces (name=, elect-trace(5) Names): the reader
# refuses a malformed name and more than 4096 of them, elect-check judges
# each leadership alone, elect-trace stats counts each apart.  The
# fixtures in check/names are a real lease run made into two leaderships;
# each says how in its comment.

load helper
load checkrun
bats_require_minimum_version 1.5.0

setup() {
	cd "$FIXTURES/check/names"
}

@test "two names, each with its own leader and guarded command at the same time: certified" {
	check two.trace
	assert_success
	assert_output ""
	assert_regex "$stderr" "329 events, 3 nodes, 2 names, .*checked as lease"
	assert_regex "$stderr" "holds: trace uniqueness lease-quorum edict-validity edict-order stability election epochs task-overlap task-lease task-token"
	check --skew 0.05 two.trace
	assert_success
	# without its names the same lines are two leaders of one leadership
	sed 's/ name=[^ ]*//' two.trace >"$BATS_TEST_TMPDIR/unnamed.trace"
	check -A uniqueness,task-overlap "$BATS_TEST_TMPDIR/unnamed.trace"
	assert_failure 1
	reports "$BATS_TEST_TMPDIR/unnamed.trace:45: uniqueness" \
	    "$BATS_TEST_TMPDIR/unnamed.trace:331: task-overlap"
}

@test "one name with two leaders at once: uniqueness and lease-quorum name it" {
	check same.trace
	assert_failure 1
	reports "same.trace:44: uniqueness" "same.trace:49: lease-quorum" \
	    "same.trace:49: lease-quorum"
	assert_line --index 0 "same.trace:44: uniqueness: name=backup: nodes 3 and 2 both lead: 3 from 0.080613373 until 0.16, 2 from 0.080613373 until 0.16"
	assert_line --index 1 "same.trace:49: lease-quorum: name=backup: node 3 leads at 0.080613373 while at most 1 of 3 nodes grant it a lease, 2 needed"
	assert_regex "$stderr" ", 1 name, "
	check --json -A uniqueness same.trace
	assert_failure 1
	assert_output '{"file":"same.trace","line":44,"name":"uniqueness","verdict":"violated","what":"name=backup: nodes 3 and 2 both lead: 3 from 0.080613373 until 0.16, 2 from 0.080613373 until 0.16"}'
}

@test "two guarded commands of one name at once are refused; of two names they are not" {
	check -s lease task.trace
	assert_failure 1
	reports "task.trace:50: task-lease" "task.trace:50: task-token" \
	    "task.trace:330: task-overlap"
	assert_line --index 2 "task.trace:330: task-overlap: name=backup: guarded commands of nodes 3 (pid 100, from 0.0807 to 0.29) and 2 (pid 200, from 0.0807 to 0.29) run at once"
	assert_line --index 0 "task.trace:50: task-lease: name=backup: node 2 starts a guarded command (pid 200) at 0.0807 while it does not lead"
}

@test "a trace without names keeps its verdict" {
	# the run the fixtures were made from, as elect-sim wrote it
	grep -v -e '^#' -e 'name=report' two.trace | sed 's/ name=backup//' >"$BATS_TEST_TMPDIR/run.trace"
	check "$BATS_TEST_TMPDIR/run.trace"
	assert_success
	assert_regex "$stderr" "^elect-check: 176 events, 3 nodes, 0.3 s of trace"
	cd "$FIXTURES/check/lease"
	check -A uniqueness overlap.trace
	assert_failure 1
	assert_output "overlap.trace:9: uniqueness: nodes 1 and 2 both lead: 1 from 10 until 20, 2 from 15 until 25"
}

@test "a leadership's lines take name=; a host's do not; a malformed name is refused" {
	printf '1 1 boot inc=1 algo=lease nodes=3\n2 1 lead until=3 clock=2 name=back/up\n' >"$BATS_TEST_TMPDIR/bad.trace"
	check "$BATS_TEST_TMPDIR/bad.trace"
	assert_failure 2
	assert_equal "$stderr" "elect-check: $BATS_TEST_TMPDIR/bad.trace:2: bad name \"back/up\": 1 to 64 bytes of A-Z a-z 0-9 . _ -"
	name65=$(printf 'a%.0s' $(seq 65))
	printf '1 1 boot inc=1 algo=lease nodes=3\n2 1 task op=start pid=7 name=%s\n' "$name65" >"$BATS_TEST_TMPDIR/long.trace"
	check "$BATS_TEST_TMPDIR/long.trace"
	assert_failure 2
	assert_regex "$stderr" "long.trace:2: bad name \"a{65}\""
	printf '1 1 boot inc=1 algo=lease nodes=3\n2 1 lead until=3 clock=2 name=\n' >"$BATS_TEST_TMPDIR/empty.trace"
	check "$BATS_TEST_TMPDIR/empty.trace"
	assert_failure 2
	assert_regex "$stderr" "empty.trace:2: bad name \"\""
	printf '1 1 boot inc=1 algo=lease nodes=3 name=backup\n' >"$BATS_TEST_TMPDIR/host.trace"
	check "$BATS_TEST_TMPDIR/host.trace"
	assert_failure 2
	assert_equal "$stderr" "elect-check: $BATS_TEST_TMPDIR/host.trace:1: boot: name= only goes with the lines of a leadership"
	run -2 elect-trace stats "$BATS_TEST_TMPDIR/bad.trace"
	assert_output --partial "bad.trace:2: bad name \"back/up\""
	# 64 bytes of every kind allowed
	name64="Az09._-$(printf 'x%.0s' $(seq 57))"
	printf '1 1 boot inc=1 algo=lease nodes=1\n2 1 lead until=3 clock=2 name=%s\n' "$name64" >"$BATS_TEST_TMPDIR/ok.trace"
	check -A uniqueness "$BATS_TEST_TMPDIR/ok.trace"
	assert_success
}

@test "at most 4096 names in a trace" {
	awk -v n=4096 'BEGIN { print "1 1 boot inc=1 algo=lease nodes=1"
	    for (i = 1; i <= n; i++) printf "2 1 task op=start pid=%d name=n%d\n", i, i }' >"$BATS_TEST_TMPDIR/4096.trace"
	check -A task-overlap "$BATS_TEST_TMPDIR/4096.trace"
	assert_success
	assert_regex "$stderr" ", 4096 names, "
	printf '3 1 task op=start pid=9999 name=one-more\n' >>"$BATS_TEST_TMPDIR/4096.trace"
	check -A task-overlap "$BATS_TEST_TMPDIR/4096.trace"
	assert_failure 2
	assert_equal "$stderr" "elect-check: $BATS_TEST_TMPDIR/4096.trace:4098: more than 4096 names in the trace"
	run -2 elect-trace stats "$BATS_TEST_TMPDIR/4096.trace"
	assert_output --partial "4096.trace:4098: more than 4096 names"
}

@test "stats: each name's elections apart, and one row per leadership" {
	run -0 elect-trace stats two.trace
	assert_line --index 1 --regexp '^1 +0\.000000 +0\.080613 +lease +state:1 +3 +3 +3  Request=2 Ok=1 name=backup$'
	assert_line --index 2 --regexp '^1 +0\.000000 +0\.080613 +lease +state:1 +2 +3 +3  Request=2 Ok=1 name=report$'
	assert_line --regexp '^lease +1 +1 +0\.080613 +0\.080613 +3 +3 name=backup$'
	assert_line --regexp '^leadership +leaders +time led +tasks$'
	assert_line --regexp '^- +0 +0\.000000 +0$'
	assert_line --regexp '^backup +1 +0\.219386 +1$'
	assert_line --regexp '^report +1 +0\.219386 +1$'
	run -0 elect-trace stats --json two.trace
	assert_line --index 0 --partial '{"election":1,"name":"backup","start":0,"done":true,"duration":0.080613373,"algo":"lease"'
	assert_line '{"leadership":"backup","leaders":1,"led":0.219386627,"tasks":1}'
	# a trace without names: no such table
	sed 's/ name=[^ ]*//' two.trace | grep -v '^#' >"$BATS_TEST_TMPDIR/unnamed.trace"
	run -0 elect-trace stats "$BATS_TEST_TMPDIR/unnamed.trace"
	refute_output --partial "leadership"
	refute_output --partial "name="
}

@test "timeline: a lane or row per name shows the node that holds it" {
	run -0 elect-trace timeline two.trace
	assert_line --index 2 "# a lane per name after the nodes': the node that holds it by a lease"
	assert_line --index 3 --regexp '^ +time 1 +2 +3 +backup +report$'
	# before the first lead line nobody holds either; then 3 and 2 do
	assert_line --index 4 '  0.000000 boot'
	assert_line --regexp '^  0\.080613 \.  +\.  +LEAD +3$'
	assert_line --regexp '^  0\.080613 \.  +LEAD +\.  +3 +2$'
	assert_line --regexp '^  0\.290000 \.  +\.  +task- +3 +2$'
	run -0 elect-trace timeline --format svg two.trace
	assert_line --partial '<rect class="held" x="375.8" y="160.0" width="794.2" height="10"><title>backup: node 3</title></rect>'
	assert_line --partial '<rect class="held" x="375.8" y="182.0" width="794.2" height="10"><title>report: node 2</title></rect>'
	# a node's lane stays its default leadership's: no leader bar
	refute_output --partial 'class="leader"'
	# a trace without names: no such lanes
	grep -v -e '^#' -e 'name=report' two.trace | sed 's/ name=backup//' >"$BATS_TEST_TMPDIR/run.trace"
	run -0 elect-trace timeline "$BATS_TEST_TMPDIR/run.trace"
	refute_output --partial "backup"
	assert_line --index 2 --regexp '^ +time 1 +2 +3$'
	run -0 elect-trace timeline --format svg "$BATS_TEST_TMPDIR/run.trace"
	refute_output --partial 'class="held"'
	assert_output --partial 'class="leader"'
}

@test "timeline: a holder's crash ends its names; more than 4096 names are refused" {
	printf '%s\n' '0 1 boot inc=1 algo=lease nodes=1' \
	    '1 1 lead until=10 clock=1 name=a' '2 1 crash' \
	    '3 1 boot inc=2 algo=lease nodes=1' >"$BATS_TEST_TMPDIR/crash.trace"
	run -0 elect-trace timeline "$BATS_TEST_TMPDIR/crash.trace"
	assert_line --index 5 --regexp '^  1\.000000 LEAD +1$'
	assert_line --index 6 '  2.000000 CRASH'
	assert_line --index 7 '  3.000000 boot'
	awk 'BEGIN { print "1 1 boot inc=1 algo=lease nodes=1"
	    for (i = 1; i <= 4097; i++) printf "2 1 task op=start pid=%d name=n%d\n", i, i }' >"$BATS_TEST_TMPDIR/4097.trace"
	run -2 elect-trace timeline --format svg "$BATS_TEST_TMPDIR/4097.trace"
	assert_output --partial "4097.trace:4098: more than 4096 names"
	# the text diagram: at most 100 lanes of nodes and names
	head -n 100 "$BATS_TEST_TMPDIR/4097.trace" >"$BATS_TEST_TMPDIR/100.trace"
	run -0 elect-trace timeline "$BATS_TEST_TMPDIR/100.trace"
	head -n 101 "$BATS_TEST_TMPDIR/4097.trace" >"$BATS_TEST_TMPDIR/101.trace"
	run -2 elect-trace timeline "$BATS_TEST_TMPDIR/101.trace"
	assert_output "elect-trace: --format text draws at most 100 nodes and names, and there are 101 to draw: choose some with --nodes, or --format svg"
}

@test "a renew and an edict belong to their name alone" {
	# 1 leads a and b until 10; its compact renew of a moves a to 15:
	# 2 leads b at 12 alone, and a at 13 beside 1
	printf '%s\n' '0 1 boot inc=1 algo=lease nodes=2' \
	    '0 2 boot inc=1 algo=lease nodes=2' \
	    '1 1 lead until=10 clock=1 name=a' \
	    '1 1 lead until=10 clock=1 name=b' \
	    '5 1 renew d=5000000000 name=a' '12 1 clock c=12' \
	    '12 2 lead until=20 clock=12 name=b' \
	    '13 2 lead until=20 clock=13 name=a' '14 1 clock c=14' \
	    '16 1 clock c=16' >"$BATS_TEST_TMPDIR/renew.trace"
	check -A uniqueness "$BATS_TEST_TMPDIR/renew.trace"
	assert_failure 1
	assert_output "$BATS_TEST_TMPDIR/renew.trace:8: uniqueness: name=a: nodes 1 and 2 both lead: 1 from 1 until 15, 2 from 13 until 20"
	# the renewal of another name moves neither
	sed -i '5s/ name=a$/ name=c/' "$BATS_TEST_TMPDIR/renew.trace"
	grep -q 'renew d=5000000000 name=c' "$BATS_TEST_TMPDIR/renew.trace"
	check -A uniqueness "$BATS_TEST_TMPDIR/renew.trace"
	assert_success
	# an edict of a name its node does not lead, nor the default
	printf '%s\n' '0 1 boot inc=1 algo=lease nodes=1' \
	    '1 1 lead until=10 clock=1 name=a' \
	    '2 1 edict seq=1 qt=1:1 clock=2 name=a' \
	    '3 1 edict seq=2 qt=1:1 clock=3 name=b' \
	    '4 1 edict seq=3 qt=1:1 clock=4' >"$BATS_TEST_TMPDIR/edict.trace"
	check -A edict-validity "$BATS_TEST_TMPDIR/edict.trace"
	assert_failure 1
	reports "$BATS_TEST_TMPDIR/edict.trace:4: edict-validity" \
	    "$BATS_TEST_TMPDIR/edict.trace:5: edict-validity"
	assert_line --index 0 "$BATS_TEST_TMPDIR/edict.trace:4: edict-validity: name=b: node 1 created edict 2 at clock 3 but never led"
	assert_line --index 1 "$BATS_TEST_TMPDIR/edict.trace:5: edict-validity: node 1 created edict 3 at clock 4 but never led"
}

@test "a round's renew name=* renews every name at once: certified" {
	check renew.trace
	assert_success
	assert_output ""
	assert_regex "$stderr" "116 events, 3 nodes, 2 names, .*checked as lease"
	assert_regex "$stderr" "holds: trace uniqueness lease-quorum "
	check --skew 0.005 renew.trace
	assert_success
	# without the grantors' rounds each leadership outlives its grants
	grep -v ' renew name=\* to=' renew.trace >"$BATS_TEST_TMPDIR/once.trace"
	check -A lease-quorum "$BATS_TEST_TMPDIR/once.trace"
	assert_failure 1
	reports "$BATS_TEST_TMPDIR/once.trace:41: lease-quorum" \
	    "$BATS_TEST_TMPDIR/once.trace:42: lease-quorum"
	assert_line --index 0 --partial "lease-quorum: name=A: node 3 leads at 0.2 while"
	assert_line --index 1 --partial "lease-quorum: name=B: node 2 leads at 0.201 while"
}

@test "renew name=* to=P moves the grants to P alone: one grantor's gone, one name lacks a quorum" {
	# 1 grants A to 3 and B to 2; without its rounds A keeps only 3's
	# grant, B keeps 2's and 3's
	grep -v '^[0-9.]* 1 renew ' renew.trace >"$BATS_TEST_TMPDIR/one.trace"
	check "$BATS_TEST_TMPDIR/one.trace"
	assert_failure 1
	assert_output "$BATS_TEST_TMPDIR/one.trace:58: lease-quorum: name=A: node 3 leads at 0.201 while at most 1 of 3 nodes grant it a lease, 2 needed"
	# the rounds to 3 move no grant to 2: without those to 2, B lacks
	grep -v 'renew name=\* to=2 ' renew.trace >"$BATS_TEST_TMPDIR/to2.trace"
	check "$BATS_TEST_TMPDIR/to2.trace"
	assert_failure 1
	assert_output "$BATS_TEST_TMPDIR/to2.trace:53: lease-quorum: name=B: node 2 leads at 0.201 while at most 1 of 3 nodes grant it a lease, 2 needed"
}

@test "a holder's renew name=* moves each name it leads, never the default leadership" {
	# 1 leads a, b and the default until 10; its round at 5 moves a and
	# b to 15: 2 leads b at 12 and a at 13 beside 1, the default alone
	printf '%s\n' '0 1 boot inc=1 algo=lease nodes=2' \
	    '0 2 boot inc=1 algo=lease nodes=2' \
	    '1 1 lead until=10 clock=1 name=a' \
	    '1 1 lead until=10 clock=1 name=b' \
	    '1 1 lead until=10 clock=1' \
	    '5 1 renew name=* d=5000000000' '12 1 clock c=12' \
	    '12 2 lead until=20 clock=12 name=b' \
	    '12 2 lead until=20 clock=12' \
	    '13 2 lead until=20 clock=13 name=a' '14 1 clock c=14' \
	    '16 1 clock c=16' >"$BATS_TEST_TMPDIR/all.trace"
	check -A uniqueness "$BATS_TEST_TMPDIR/all.trace"
	assert_failure 1
	reports "$BATS_TEST_TMPDIR/all.trace:8: uniqueness" \
	    "$BATS_TEST_TMPDIR/all.trace:10: uniqueness"
	assert_line --index 0 "$BATS_TEST_TMPDIR/all.trace:8: uniqueness: name=b: nodes 1 and 2 both lead: 1 from 1 until 15, 2 from 12 until 20"
	assert_line --index 1 "$BATS_TEST_TMPDIR/all.trace:10: uniqueness: name=a: nodes 1 and 2 both lead: 1 from 1 until 15, 2 from 13 until 20"
	# a grantor's round (to=) moves no leadership
	sed -i 's/renew name=\* d=/renew name=* to=2 d=/' "$BATS_TEST_TMPDIR/all.trace"
	check -A uniqueness "$BATS_TEST_TMPDIR/all.trace"
	assert_success
}

@test "name=* goes on renew lines only; a grantor's to= is a node id" {
	printf '1 1 boot inc=1 algo=lease nodes=3\n2 1 lead until=3 clock=2 name=*\n' >"$BATS_TEST_TMPDIR/lead.trace"
	check "$BATS_TEST_TMPDIR/lead.trace"
	assert_failure 2
	assert_equal "$stderr" "elect-check: $BATS_TEST_TMPDIR/lead.trace:2: lead: name=* only goes with renew"
	run -2 elect-trace stats "$BATS_TEST_TMPDIR/lead.trace"
	assert_output --partial "lead.trace:2: lead: name=* only goes with renew"
	printf '1 1 boot inc=1 algo=lease nodes=3\n2 1 clock c=2 name=*\n' >"$BATS_TEST_TMPDIR/clock.trace"
	check "$BATS_TEST_TMPDIR/clock.trace"
	assert_failure 2
	assert_regex "$stderr" "clock.trace:2: clock: name= only goes with the lines of a leadership"
	for to in 0 - x 65536; do
		printf '1 1 boot inc=1 algo=lease nodes=3\n2 1 renew name=* to=%s d=5\n' "$to" >"$BATS_TEST_TMPDIR/to.trace"
		check "$BATS_TEST_TMPDIR/to.trace"
		assert_failure 2
		assert_equal "$stderr" "elect-check: $BATS_TEST_TMPDIR/to.trace:2: bad value for to: \"$to\""
	done
	# to= on another renew is a key readers do not know, as before
	printf '1 1 boot inc=1 algo=lease nodes=3\n2 1 renew d=5 to=x\n3 1 renew d=5 to=x name=a\n4 1 renew name=* to=1 d=5\n' >"$BATS_TEST_TMPDIR/ok.trace"
	check -A uniqueness "$BATS_TEST_TMPDIR/ok.trace"
	assert_success
}

@test "epochs: a wedged node's round of grants (to=) renews a lease, its round of leaderships does not" {
	printf '%s\n' '0 1 boot inc=1 algo=lease nodes=1' \
	    '1 1 epoch op=wedge epoch=0 clock=1' '2 1 renew name=* d=5' \
	    '3 1 renew name=* to=1 d=5' >"$BATS_TEST_TMPDIR/wedged.trace"
	check -A epochs "$BATS_TEST_TMPDIR/wedged.trace"
	assert_failure 1
	assert_output "$BATS_TEST_TMPDIR/wedged.trace:4: epochs: node 1 renews a lease in epoch 0 after it wedged"
}

@test "elect-trace: a holder's renew name=* extends each name it holds; merge takes the lines" {
	run -0 elect-trace stats renew.trace
	# the leaderships of 0.102 run out at 0.38, as the rounds moved them
	assert_line --regexp '^2 +0\.380000 +- +lease +expire:3 +- +3 +0  name=A$'
	assert_line --regexp '^2 +0\.380000 +- +lease +expire:2 +- +3 +0  name=B$'
	assert_line --regexp '^A +1 +0\.278000 +0$'
	assert_line --regexp '^B +1 +0\.278000 +0$'
	assert_line --regexp '^- +0 +0\.000000 +0$'
	run -0 elect-trace timeline renew.trace
	assert_line --regexp '^  0\.302000 \.  +renew +\.  +3 +2$'
	run -0 elect-trace timeline --format svg renew.trace
	assert_line --partial '<rect class="held" x="441.5" y="160.0" width="728.5" height="10"><title>A: node 3</title></rect>'
	assert_line --partial '<rect class="held" x="441.5" y="182.0" width="728.5" height="10"><title>B: node 2</title></rect>'
	# each node's lines in a file of their own, merged back
	for n in 1 2 3; do
		grep "^[0-9.]* $n " renew.trace >"$BATS_TEST_TMPDIR/$n.trace"
	done
	run -0 elect-trace merge -o "$BATS_TEST_TMPDIR/merged.trace" \
	    "$BATS_TEST_TMPDIR/1.trace" "$BATS_TEST_TMPDIR/2.trace" \
	    "$BATS_TEST_TMPDIR/3.trace"
	assert_equal "$(sort "$BATS_TEST_TMPDIR/merged.trace")" \
	    "$(grep -v '^#' renew.trace | sort)"
	check "$BATS_TEST_TMPDIR/merged.trace"
	assert_success
}

@test "a name first met in mid-trace knows what the hosts' lines said before it: a veto" {
	check vetoed-late.trace
	assert_success
	assert_output ""
	assert_regex "$stderr" "holds: trace uniqueness lease-quorum edict-validity edict-order stability election epochs task-overlap task-lease task-token"
}

@test "the compact level writes a named leadership's lines whole" {
	tcompact two.trace >"$BATS_TEST_TMPDIR/c.trace"
	# the hosts' clock samples thinned, every named line kept
	assert_equal "$(grep -c ' clock ' "$BATS_TEST_TMPDIR/c.trace")" 3
	assert_equal "$(grep -c ' name=' "$BATS_TEST_TMPDIR/c.trace")" \
	    "$(grep -c ' name=' two.trace)"
	check "$BATS_TEST_TMPDIR/c.trace"
	assert_success
}
