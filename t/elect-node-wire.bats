#!/usr/bin/env bats
# elect-node's datagrams: only an authenticated, fresh, well-formed message
# from a peer reaches the core; every other is dropped, counted and traced
# with its reason.

load helper
load node

setup() {
	elect_setup
	C=$(mkcluster 3)
	K=$ELECT_DIR/key
	head -c 32 /dev/urandom >"$K"
	chmod 600 "$K"
	elect_start_cluster -k "$K" -a bully-fd --fd-cmd "$STUB/fd-stub" "$C" -- 1
	T=$ELECT_DIR/1/trace
}

teardown() {
	elect_teardown
}

# dgram [net-tool wire flags]: sends one elect-node datagram to node 1.
dgram() {
	local hex
	hex=$(net-tool wire -r -p node "$@" 2>/dev/null)
	[ -n "$hex" ]
	# printf may write a newline byte apart; cat sends the file in one go.
	printf "$(sed 's/../\\x&/g' <<<"$hex")" >"$ELECT_DIR/dgram"
	cat "$ELECT_DIR/dgram" >/dev/udp/127.0.0.1/"$(port 1)"
}

# Halt is message type 1 of bully-fd.
good() {
	dgram -k "$K" -t 1 -f 2 -d 1 -i 5 "$@"
}

drops() {
	elect_status 1 | sed 's/.* drops=\([0-9]*\).*/\1/'
}

# expect_drop N WHY: the node's N-th drop, traced with WHY.
expect_drop() {
	wait_for 5 eval '[ "$(drops)" -ge '"$1"' ]'
	run awk '$3 == "drop" { n++; if (n == '"$1"') print $4, $5 }' "$T"
	assert_output "$2"
}

@test "a good message is taken, its replay is not" {
	good -q 1
	wait_for 5 trace_has "$T" " recv from=2 msg=Halt "
	good -q 1
	expect_drop 1 "from=2 why=replay"
	good -q 2
	wait_for 5 eval '[ "$(grep -c " recv from=2 " "$T")" = 2 ]'
	good -q 1 -i 4
	expect_drop 2 "from=2 why=old-incarnation"
	run grep -c " recv " "$T"
	assert_output 2
}

# Per-peer FIFO (elect-node(1), Message order): a datagram that arrives
# after a later one of the same sender is dropped as lost.
@test "a datagram overtaken by a later one of its sender is dropped as late" {
	good -q 3
	wait_for 5 trace_has "$T" " recv from=2 msg=Halt "
	good -q 2
	expect_drop 1 "from=2 why=late"
	good -q 4
	wait_for 5 eval '[ "$(grep -c " recv from=2 " "$T")" = 2 ]'
	good -q 1 -i 6
	wait_for 5 eval '[ "$(grep -c " recv from=2 " "$T")" = 3 ]'
}

@test "forged, insecure, misdirected and unknown senders are dropped" {
	head -c 32 /dev/urandom >"$ELECT_DIR/other"
	chmod 600 "$ELECT_DIR/other"
	dgram -k "$ELECT_DIR/other" -t 1 -f 2 -d 1 -i 5 -q 1
	expect_drop 1 "from=2 why=bad-mac"
	dgram -t 1 -f 2 -d 1 -i 5 -q 2
	expect_drop 2 "from=2 why=bad-mac"
	good -q 3 -d 3
	expect_drop 3 "from=2 why=misdirected"
	good -q 4 -f 9
	expect_drop 4 "from=9 why=unknown-peer"
	good -q 5 -f 1
	expect_drop 5 "from=1 why=bad-sender"
	run grep -c " recv " "$T"
	assert_output 0
}

@test "types the algorithm has not, and damaged datagrams, are dropped" {
	good -q 1 -t 200
	expect_drop 1 "from=2 why=bad-type"
	good -q 2 -c 20
	expect_drop 2 "from=2 why=truncated"
	good -q 3 -x 0
	expect_drop 3 "from=2 why=bad-magic"
	good -q 4 -x 50
	expect_drop 4 "from=2 why=bad-mac"
	good -q 5 -a 3
	expect_drop 5 "from=2 why=bad-length"
	# Well-formed and authentic, but bully-fd's messages have no payload.
	good -q 6 -n 4
	expect_drop 6 "from=2 why=bad-payload"
	run grep -c " recv " "$T"
	assert_output 0
	run elect_status 1
	assert_output --partial " drops=6 "
}

@test "a flood of garbage: every datagram counted, the node still answers" {
	for i in $(seq 200); do
		head -c $((RANDOM % 1300 + 1)) /dev/urandom \
		    >/dev/udp/127.0.0.1/"$(port 1)"
	done
	wait_for 10 eval '[ "$(drops)" -ge 190 ]'
	run grep -c " recv " "$T"
	assert_output 0
	run elect-check -A trace "$T"
	assert_success
}
