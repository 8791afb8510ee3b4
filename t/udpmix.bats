#!/usr/bin/env bats
# udpmix, the relay the elect-node tests put between daemons to delay and
# reorder their datagrams: what it sends and in which order, its bounds,
# its report, and its refusal of bad flags.

bats_require_minimum_version 1.5.0

load helper

setup() {
	PIDS=()
	P=$(freeport -w 3)
	L=$P D=$((P + 1))
}

teardown() {
	local p
	kill_own KILL "${PIDS[@]}"
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	return 0
}

# udp_send PORT TEXT...: one datagram per TEXT to 127.0.0.1:PORT, at once.
udp_send() {
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for t in sys.argv[2:]:
    s.sendto(t.encode(), ("127.0.0.1", int(sys.argv[1])))' "$@"
}

# udp_recv PORT COUNT: prints the first COUNT datagrams to 127.0.0.1:PORT
# on one line, waiting 10 s at most; started in the background, it is
# ready once $BATS_TEST_TMPDIR/recv.ready exists.
udp_recv() {
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
open(sys.argv[3], "w").close()
s.settimeout(10)
got = []
try:
    while len(got) < int(sys.argv[2]):
        got.append(s.recv(65536).decode(errors="replace")[:40])
finally:
    print(" ".join(got))' "$1" "$2" "$BATS_TEST_TMPDIR/recv.ready"
}

# mix FLAGS...: udpmix in the background from $L to $D, its report in
# $BATS_TEST_TMPDIR/mix; waits until it listens.
mix() {
	udpmix "$@" $L:$D >"$BATS_TEST_TMPDIR/mix" 2>&1 &
	PIDS+=($!)
	MIX=$!
	wait_for 10 sh -c "ss -Hnlu 'sport = :$L' | grep -q ."
}

# drained: the relay has read every datagram sent to it.
drained() {
	[ "$(ss -Hnlu "sport = :$L" | awk '{ print $2 }')" = 0 ]
}

# relay COUNT TEXT...: sends TEXT through the relay, prints what arrived.
relay() {
	local n=$1
	shift
	udp_recv $D "$n" >"$BATS_TEST_TMPDIR/recv" &
	PIDS+=($!)
	local r=$!
	wait_for 10 test -e "$BATS_TEST_TMPDIR/recv.ready"
	udp_send $L "$@"
	wait $r
	cat "$BATS_TEST_TMPDIR/recv"
}

# stop: SIGTERM to the relay, which must exit 0; its report goes to
# $output.
stop() {
	kill -TERM $MIX
	wait $MIX
	run cat "$BATS_TEST_TMPDIR/mix"
}

@test "udpmix: batches go in reverse order, and the report counts the late" {
	mix -r 4 -w 5000 -s 5
	run relay 8 a b c d e f g h
	assert_output "d c b a h g f e"
	stop
	assert_output "seed=5
$L:$D received=8 sent=8 late=6 dropped=0 left=0"
}

@test "udpmix: a batch that does not fill goes after -w, still reversed" {
	mix -r 4 -w 100
	run relay 2 first second
	assert_output "second first"
	stop
	assert_line "$L:$D received=2 sent=2 late=1 dropped=0 left=0"
}

@test "udpmix: SIGUSR1 lets every batch go at once" {
	mix -r 100 -w 60000
	udp_recv $D 3 >"$BATS_TEST_TMPDIR/recv" &
	PIDS+=($!)
	local r=$!
	wait_for 10 test -e "$BATS_TEST_TMPDIR/recv.ready"
	udp_send $L a b c
	wait_for 10 drained
	kill -USR1 $MIX
	wait $r
	run cat "$BATS_TEST_TMPDIR/recv"
	assert_output "c b a"
	stop
	assert_line "$L:$D received=3 sent=3 late=2 dropped=0 left=0"
}

# Seed 968 draws 196, 492, 33 and 337 ms: far enough apart that the
# order does not depend on when each datagram came.
@test "udpmix: random delays replay from their seed" {
	mix -d 500 -s 968
	run relay 4 1 2 3 4
	assert_output "3 1 4 2"
	stop
	assert_line "$L:$D received=4 sent=4 late=2 dropped=0 left=0"
}

# Seed 8 draws delays above 1.5 s for the first four datagrams.
@test "udpmix: it holds at most -b datagrams and drops those too long" {
	mix -b 2 -d 5000 -s 8
	udp_send $L 1 2 3 "$(printf '%2049s' x)"
	wait_for 10 drained
	stop
	assert_line "$L:$D received=4 sent=0 late=0 dropped=2 left=2"
}

@test "udpmix: it ends by itself after -t seconds, and on SIGINT and SIGHUP" {
	local sig st
	run timeout 20 udpmix -t 1 -s 3 $L:$D
	assert_success
	assert_output "seed=3
$L:$D received=0 sent=0 late=0 dropped=0 left=0"
	for sig in INT HUP; do
		mix -t 60
		kill -$sig $MIX
		st=0
		wait $MIX || st=$?
		assert_equal "$st" 0
		run cat "$BATS_TEST_TMPDIR/mix"
		assert_line --index 0 --regexp "^seed=[0-9]+$"
	done
}

@test "udpmix: a port already taken is named" {
	mix
	run udpmix -t 1 $L:$((P + 2))
	assert_failure 1
	assert_output --partial "127.0.0.1:$L"
}

@test "udpmix: bad flags and routes are refused with exit 2" {
	local bad
	run udpmix --help
	assert_success
	assert_output --partial "usage: udpmix"
	run udpmix --version
	assert_success
	run udpmix -t 1
	assert_failure 2
	assert_output --partial "usage: udpmix"
	for bad in "-r 0" "-r x" "-d -1" "-d 60001" "-b 0" "-b 1025" \
	    "-t 0" "-t 3601" "-w 0" "-s -1" "-s 1x" "-q"; do
		run udpmix $bad $L:$D
		assert_failure 2
	done
	run udpmix -b 2 -r 3 $L:$D
	assert_failure 2
	assert_output --partial "-r 3: more than the 2 slots of -b"
	for bad in "" x 1 : 1: :2 0:5 5:0 70000:1 1:2:3 1:x \
	    123456789012345:1; do
		run udpmix -t 1 "$bad"
		assert_failure 2
		assert_output --partial "$bad"
	done
	run udpmix -t 1 $L:$D $L:$((P + 2))
	assert_failure 2
	assert_output --partial "port $L listens twice"
	run udpmix -t 1 $(seq -f "%g:1" 1000 1064)
	assert_failure 2
	assert_output --partial "more than 64 routes"
}
