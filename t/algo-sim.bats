#!/usr/bin/env bats
# algo-sim, the deterministic simulator the core tests stand on.

load helper
load algo-sim

@test "algo-sim: the same seed gives the same trace, byte for byte" {
	for a in bully bully-fd async-bully; do
		algo-sim -a $a -n 6 -s 42 -d 10 -r 5 -k crash,pause,partition \
		    -m 0.1:4 >"$BATS_TEST_TMPDIR/a"
		algo-sim -a $a -n 6 -s 42 -d 10 -r 5 -k crash,pause,partition \
		    -m 0.1:4 >"$BATS_TEST_TMPDIR/b"
		algo-sim -a $a -n 6 -s 43 -d 10 -r 5 -k crash,pause,partition \
		    -m 0.1:4 >"$BATS_TEST_TMPDIR/c"
		cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
		! cmp -s "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/c"
	done
}

@test "algo-sim: every node boots with its incarnation, algorithm and cluster size" {
	run algo-sim -a async-bully -c 2,7,9 -d 2 -e '0.5 crash 7' -e '1 boot 7'
	assert_success
	assert_line --index 0 "0 2 boot inc=1 algo=async-bully nodes=3"
	assert_line "0 7 boot inc=1 algo=async-bully nodes=3"
	assert_line "0 9 boot inc=1 algo=async-bully nodes=3"
	assert_line "0.5 7 crash"
	assert_line "1 7 boot inc=2 algo=async-bully nodes=3"
}

# Without crashes or cuts nothing is lost: what a node receives from a
# peer is what the peer sent it, in the order it was sent.
@test "algo-sim: messages between two nodes arrive in the order they were sent" {
	algo-sim -a async-bully -n 5 -s 7 -d 8 -r 4 -k pause -m 0.1:20 \
	    >"$BATS_TEST_TMPDIR/t"
	run awk '
	$3 == "send" { sub(/^to=/, "", $4); q[$2 " " $4] = q[$2 " " $4] " " $5 $6; n++ }
	$3 == "recv" { sub(/^from=/, "", $4); k = $4 " " $2
		if (index(q[k], " " $5 $6) != 1) { print "out of order: " $0; exit 1 }
		q[k] = substr(q[k], length($5 $6) + 2); r++ }
	END { if (r < 100 || n - r > 50) { print n " sent, " r " received"; exit 1 } }
	' "$BATS_TEST_TMPDIR/t"
	assert_success
}

# The trace ends at -d, with a clock sample of each running node, so that
# elect-check judges the last stable period too, not only up to the last
# message.
@test "algo-sim: the trace ends at -d with a clock sample of every running node" {
	run algo-sim -a modified-bully -n 3 -s 5 -d 4 -e '1 crash 3' \
	    -e '1.045 boot 3' -e '2 crash 1' -e '3 pause 2'
	assert_success
	assert_equal "${lines[-1]}" "4 3 clock c=4"
	refute_line --regexp '^4 [12] '
	run algo-sim -a lease -n 2 -d 3 -D 0.01 -s 1
	assert_line --regexp '^3 1 clock c=[0-9.]+$'
	assert_line --regexp '^3 2 clock c=[0-9.]+$'
}

@test "algo-sim: a paused node handles nothing until it resumes, then all that queued up" {
	algo-sim -a bully-fd -n 4 -d 3 -e '1 pause 2' -e '2 resume 2' \
	    >"$BATS_TEST_TMPDIR/t"
	run awk '$2 == 2 && $1 >= 1 && $1 < 2' "$BATS_TEST_TMPDIR/t"
	assert_output "1 2 pause"
	run awk '$2 == 2 && $1 == 2 && $3 == "recv"' "$BATS_TEST_TMPDIR/t"
	assert_line --index 0 --regexp '^2 2 recv from=4 msg=Norm\? elid=4\.1\.'
	run grep -c ' fd op=down peer=2$' "$BATS_TEST_TMPDIR/t"
	assert_output 1
}

@test "algo-sim: a partition cuts every link across, and heal mends them" {
	run algo-sim -a async-bully -n 3 -d 2 -e '1 partition 1/2,3' -e '1.5 heal'
	assert_success
	assert_line "1 - net a=1 b=2 link=down"
	assert_line "1 - net a=1 b=3 link=down"
	refute_line "1 - net a=2 b=3 link=down"
	assert_line "1.5 - net a=1 b=2 link=up"
}

# Loss makes every link flaky, and the trace says so from the start (a
# mended cut is flaky again, not up), so that elect-check does not judge
# liveness over links that lose datagrams.
@test "algo-sim: lossy links are traced flaky" {
	run algo-sim -a invitation -n 3 -d 2 -x 3 -e '1 cut 1 2' -e '1.5 mend 1 2'
	assert_success
	assert_line --index 0 "0 - net a=1 b=2 link=flaky"
	assert_line --index 1 "0 - net a=1 b=3 link=flaky"
	assert_line --index 2 "0 - net a=2 b=3 link=flaky"
	assert_line "1 - net a=1 b=2 link=down"
	assert_line "1.5 - net a=1 b=2 link=flaky"
	run algo-sim -a invitation -n 3 -d 2
	refute_line --partial "link=flaky"
}

# Partitions beyond 64 nodes (a byte per node, not a 64-bit mask), up to
# ALGO_NODES_MAX nodes.
@test "algo-sim: clusters of up to 1024 nodes, partitions across any of them" {
	run algo-sim -a bully-fd -n 100 -d 1.2 -e '1 partition 70,100/1'
	assert_success
	run grep -c '^1 - net a=[0-9]* b=[0-9]* link=down$' <<<"$output"
	assert_output $((2 * 98))
	run algo-sim -a async-bully -n 80 -s 3 -d 5 -r 1 -k partition
	assert_success
	assert_line --regexp '^[0-9.]+ - net a=[0-9]+ b=(6[5-9]|7[0-9]|80) link=down$'
	run algo-sim -a bully-fd -n 1024 -d 0.01
	assert_success
	run algo-sim -a bully-fd -n 1025 -d 0.01
	assert_failure 2
}

@test "algo-sim: bad usage is refused with exit 2" {
	run algo-sim -a nonesuch -n 3
	assert_failure 2
	assert_output --partial "unknown algorithm nonesuch"
	run algo-sim -a bully -n 3 -e '1 explode 2'
	assert_failure 2
	assert_output --partial "unknown event explode"
	run algo-sim -a bully -n 3 -e '1 crash 9'
	assert_failure 2
	assert_output --partial "node 9 is not in the cluster"
	run algo-sim -a bully -n 3 -t nonesuch=5
	assert_failure 2
	run algo-sim -a bully -n 3 -m 5:1
	assert_failure 2
	run algo-sim -a bully
	assert_failure 2
}

# t/bench/campaign.sh in small: 40 seeded faulted runs per algorithm
# (N 3-17, each model's faults, reordering and loss for the asynchronous
# ones) through elect-check; the full campaign runs 10,000 per algorithm.
@test "algo-sim: 280 seeded faulted runs of the seven algorithms find no violation" {
	need_check
	# The same code as the seeded sweeps of each algo-*.bats, at length.
	[ -z "${ELECT_SHORT:-}" ] || skip "in the plain pass only (ELECT_SHORT)"
	run sh "$BATS_TEST_DIRNAME/bench/campaign.sh" -j 1 -d 8 40
	assert_success
	assert_line --regexp '^lease +40 +0\.1 +0  none$'
	assert_line --regexp '^invitation +40 +0\.1 +0  none$'
}
