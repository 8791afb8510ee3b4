#!/usr/bin/env bats
# elect-check's failure-detector assertions (Stoller, section 2):
# fd-complete and fd-accurate.  Each fixture says in its comment what
# happens and where.

load helper
load checkrun
bats_require_minimum_version 1.5.0

setup() {
	cd "$FIXTURES/check/fd"
}

@test "a detector within its latency, reporting crashes, pauses and playdead" {
	check -s fd --fd-latency 3 holds.trace
	assert_success
	assert_output ""
	assert_regex "$stderr" "holds: trace fd-complete fd-accurate"
}

@test "fd-complete: Stoller's example, one DownSig past the latency" {
	check -A fd-complete --fd-latency 3 late.trace
	assert_failure 1
	assert_output "late.trace:7: fd-complete: node 1 was not told that 2 is down: down for it from 50, monitored since 50, no DownSig by 53"
	check -A fd-complete --fd-latency 3.5 late.trace
	assert_success
}

@test "fd-complete: the latency defaults to 3 seconds" {
	check -A fd-complete late.trace
	assert_failure 1
	reports "late.trace:7: fd-complete"
}

@test "fd-complete: a crashed node and a paused node never reported" {
	check -A fd-complete --fd-latency 3 never.trace
	assert_failure 1
	reports "never.trace:10: fd-complete" "never.trace:12: fd-complete"
}

@test "fd-complete: recovery, stop, a new start, a down client, one report" {
	check -s fd --fd-latency 3 excused.trace
	assert_success
	assert_output ""
}

@test "fd-accurate: DownSigs for nodes up since the latest start" {
	check -A fd-accurate accurate.trace
	assert_failure 1
	reports "accurate.trace:8: fd-accurate" "accurate.trace:12: fd-accurate"
	assert_line "accurate.trace:8: fd-accurate: node 1 got a DownSig for 2, up for it since 1 and monitored since 2"
}

@test "fd-accurate: a guarded command's line after its node's crash is not the node up" {
	check -s fd --fd-latency 5 task-after-crash.trace
	assert_success
	assert_output ""
}

@test "fd-accurate: DownSigs for nodes not monitored" {
	check -A fd-accurate unmonitored.trace
	assert_failure 1
	reports "unmonitored.trace:9: fd-accurate" \
	    "unmonitored.trace:10: fd-accurate" \
	    "unmonitored.trace:14: fd-accurate"
	assert_line "unmonitored.trace:10: fd-accurate: node 1 got a DownSig for 3, which it does not monitor"
}

@test "fd-accurate: paused, playing dead, restarted and cut-off nodes may be reported" {
	check -s fd false-alarms.trace
	assert_success
	assert_output ""
}

@test "fd: a link said up that was never cut excuses no DownSig and leaves the obligation" {
	check -s fd --fd-latency 3 link-up-uncut.trace
	assert_failure 1
	assert_output "link-up-uncut.trace:9: fd-accurate: node 1 got a DownSig for 2, up for it since 1 and monitored since 2
link-up-uncut.trace:11: fd-complete: node 1 was not told that 2 is down: down for it from 10, monitored since 2, no DownSig by 13"
}

@test "fd-complete: a node that plays dead and then pauses or crashes is due from the playdead" {
	check -A fd-complete --fd-latency 3 playdead-then-down.trace
	assert_failure 1
	assert_output "playdead-then-down.trace:12: fd-complete: node 1 was not told that 2 is down: down for it from 10, monitored since 2, no DownSig by 13
playdead-then-down.trace:15: fd-complete: node 1 was not told that 3 is down: down for it from 30, monitored since 2, no DownSig by 33"
	check -A fd-complete --fd-latency 4 playdead-then-down.trace
	assert_success
}

@test "fd-accurate: a crash stamped after the DownSig, within the skew or not" {
	check -A fd-accurate skew.trace
	assert_failure 1
	reports "skew.trace:7: fd-accurate"
	check -A fd-accurate --skew 1 skew.trace
	assert_success
	check -A fd-accurate --skew 0.2 skew.trace
	assert_failure 1
	reports "skew.trace:8: fd-accurate"
}

@test "fd-complete: a DownSig late in every ordering within the skew" {
	check -A fd-complete --fd-latency 3 --skew 0.4 skew-late.trace
	assert_failure 1
	assert_output "skew-late.trace:11: fd-complete: node 1 was not told that 2 is down: down for it from 10, monitored since 2, no DownSig by 13.4"
	check -A fd-complete --fd-latency 3 --skew 0.6 skew-late.trace
	assert_success
	check -A fd-complete --fd-latency 3 skew-late.trace
	assert_failure 1
	reports "skew-late.trace:10: fd-complete"
}

@test "fd-complete: at the end of the trace, a DownSig due before the last line is missing" {
	check -A fd-complete --fd-latency 3 --skew 0.4 end.trace
	assert_failure 1
	assert_output "end.trace:10: fd-complete: node 1 was not told that 2 is down: down for it from 10, monitored since 2, no DownSig by 13.4"
	# A late DownSig, and the trace ends before 2 could no longer have
	# come back in time: nothing can come after the end.
	head -n 10 skew-late.trace > "$BATS_TEST_TMPDIR/cut.trace"
	check -A fd-complete --fd-latency 3 --skew 0.4 "$BATS_TEST_TMPDIR/cut.trace"
	assert_failure 1
	assert_output "$BATS_TEST_TMPDIR/cut.trace:10: fd-complete: node 1 was not told that 2 is down: down for it from 10, monitored since 2, no DownSig by 13.4"
}

@test "fd-complete: at the end of the trace, a DownSig that could still come is not missing" {
	check -A fd-complete --fd-latency 3 --skew 0.5 end.trace
	assert_success
	assert_output ""
	check -A fd-complete --fd-latency 3.5 end.trace
	assert_success
	check -s fd --fd-latency 3 --skew 2 end.trace
	assert_success
}

@test "fd-complete: a DownSig for a node up since the start reports nothing" {
	check -A fd-complete --fd-latency 3 false-then-down.trace
	assert_failure 1
	assert_output "false-then-down.trace:11: fd-complete: node 1 was not told that 2 is down: down for it from 5, monitored since 1, no DownSig by 8"
	check -s fd --fd-latency 3 false-then-down.trace
	assert_failure 1
	reports "false-then-down.trace:8: fd-accurate" \
	    "false-then-down.trace:11: fd-complete"
}

@test "fd-accurate: DownSigs too many to wait on the skew leave it undecided" {
	# A false DownSig for 2, then 1024 for 3, which turn out accurate when
	# 3's crash is stamped within the skew: the first could not wait.
	{
		for i in 1 2 3; do echo "0 $i boot inc=1 algo=bully-fd"; done
		echo "1 1 fd op=start peer=2"
		echo "1 1 fd op=start peer=3"
		echo "1.5 1 fd op=down peer=2"
		for i in $(seq 1024); do echo "1.5 1 fd op=down peer=3"; done
		echo "1.55 3 crash"
		echo "5 1 send to=2 msg=Halt elid=1.1.1"
	} > "$BATS_TEST_TMPDIR/many.trace"
	check -A fd-accurate --skew 0.1 "$BATS_TEST_TMPDIR/many.trace"
	assert_failure 1
	assert_output "$BATS_TEST_TMPDIR/many.trace:1032: fd-accurate: undecided: more than 1024 DownSigs waited on the skew at once"
}

@test "the peers a detector watches are nodes of the trace, bounded as they are" {
	check -s fd - <<-'EOF2'
	0 1 boot inc=1 algo=bully-fd nodes=3
	0 2 boot inc=1 algo=bully-fd nodes=3
	1 1 fd op=start peer=2
	1 1 fd op=start peer=7
	1 1 fd op=start peer=8
	EOF2
	assert_failure 1
	assert_output "-:5: trace: 4 nodes, more than the cluster's size 3"
	{
		echo "0 1 boot inc=1 algo=bully-fd"
		for i in $(seq 2 4097); do echo "1 1 fd op=start peer=$i"; done
	} > "$BATS_TEST_TMPDIR/peers.trace"
	check -s fd "$BATS_TEST_TMPDIR/peers.trace"
	assert_failure 2
	assert_regex "$stderr" "peers.trace:4097: more than 4096 nodes"
}
