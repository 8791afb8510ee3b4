#!/usr/bin/env bats
# elect-node's datagrams: only an authenticated, fresh, well-formed message
# from a peer's own address, after the handshake, reaches the core; every
# other is dropped, counted and summarised in the trace with its reason.

load helper
load node

setup() {
	elect_setup
	RELAYS=()
	C=$(mkcluster 3)
	K=$(mkkey "$ELECT_DIR/key")
	elect_start_cluster -k "$K" -a bully-fd --fd-cmd "$STUB/fd-stub" "$C" -- 1
	T=$ELECT_DIR/1/trace
}

teardown() {
	kill_own KILL "${RELAYS[@]}"
	elect_teardown
}

# dgram [-S PORT] [net-tool wire flags]: sends one elect-node datagram to
# node 1, from a random port, or from 127.0.0.1:PORT (a peer's own, while
# that peer is not running: as a datagram captured from it and replayed).
dgram() {
	local hex from=0
	if [ "$1" = -S ]; then
		from=$2
		shift 2
	fi
	hex=$(net-tool wire -r -p node "$@" 2>/dev/null)
	[ -n "$hex" ]
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.sendto(bytes.fromhex(sys.argv[2]), ("127.0.0.1", int(sys.argv[3])))' \
	    "$from" "$hex" "${TO_PORT:-$(port 1)}"
}

# good [-S PORT] [flags]: Halt is message type 1 of bully-fd.
good() {
	local from=()
	if [ "$1" = -S ]; then
		from=(-S "$2")
		shift 2
	fi
	dgram "${from[@]}" -k "$K" -t 1 -f 2 -d 1 -i 5 "$@"
}

drops() {
	elect_status 1 | sed 's/.* drops=\([0-9]*\).*/\1/'
}

# ndrops FROM WHY [TRACE]: drops the trace sums up for FROM and WHY.
ndrops() {
	awk -v f="$1" -v w="$2" '$3 == "drop" && $4 == "from=" f &&
	    $5 == "why=" w { sub("n=", "", $6); n += $6 } END { print n + 0 }' \
	    "${3:-$T}"
}

# expect_drop N "from=ID why=WHY" [COUNT]: the node has dropped N
# datagrams, COUNT (default 1) of them from ID for WHY.
expect_drop() {
	local f=${2%% *} w=${2##*why=}
	wait_for 5 eval '[ "$(drops)" -ge '"$1"' ]'
	wait_for 5 eval '[ "$(ndrops '"${f#from=}"' '"$w"')" = '"${3:-1}"' ]'
}

@test "an authentic message from another address than its sender's is dropped" {
	good -q 1
	expect_drop 1 "from=2 why=bad-address"
	good -q 2 -i 4611686018427387904
	expect_drop 2 "from=2 why=bad-address" 2
	run grep -c " recv " "$T"
	assert_output 0
}

@test "captured messages of a peer count for nothing: no answer to our challenge" {
	# Node 2 is not running: its datagrams, kept by an eavesdropper, are
	# sent again from its own address to node 1, which (re)started since.
	good -S "$(port 2)" -q 1
	expect_drop 1 "from=2 why=unconfirmed"
	good -S "$(port 2)" -q 2 -i 6
	good -S "$(port 2)" -q 99 -i 6
	expect_drop 3 "from=2 why=unconfirmed" 3
	run grep -c " recv " "$T"
	assert_output 0
}

# Per-peer FIFO (elect-node(1), Message order): a datagram that arrives
# after a later one of the same sender is dropped as late.  Real nodes,
# with what node 2 sends node 1 through udpmix in pairs, the later first
# (the handshake passes): when node 3 dies, node 2's election messages to
# node 1 overtake one another, whatever the machine's speed.
@test "a datagram overtaken by a later one of its sender is dropped as late" {
	local out=$BATS_TEST_TMPDIR r late n
	elect_stop_all
	mkrelayed 3
	r=$(awk '$1 == 2 && $2 == 1 { print $3 }' "$out/routes")
	udpmix -H -r 2 -w 60000 -t 60 "$r" \
	    "$(awk '$1 == 1 && $2 == 2 { print $3 "+" }' "$out/routes")" \
	    >"$out/held" 2>&1 &
	RELAYS+=($!)
	udpmix -t 60 $(awk '!($1 == 2 && $2 == 1) && !($1 == 1 && $2 == 2) {
	    print $3 }' "$out/routes") >"$out/mix" 2>&1 &
	RELAYS+=($!)
	elect_start_cluster --insecure -a bully-fd --fd-interval 50 \
	    --fd-timeout 500 "$out/cluster.conf"
	assert_equal "$(elect_wait_leader 20)" 3
	elect_kill 3
	wait_for 20 eval '[ "$(ndrops 2 late)" -ge 2 ]'
	kill -TERM "${RELAYS[@]}"
	wait "${RELAYS[@]}"
	elect_stop_all
	# Dropped: only what the relay let another overtake.
	late=$(awk -v r="${r%%/*}" '$1 == r { sub("late=", "", $4); print $4 }' \
	    "$out/held")
	n=$(ndrops 2 late)
	[ "$n" -le "$late" ] || fail "$n dropped as late, $late overtaken"
	# What node 1 took from node 2 came in the order it was sent.
	run awk '$3 == "recv" && $4 == "from=2" { split($6, e, ".")
	    if (e[3] + 0 < last) bad = 1; last = e[3] + 0 }
	    END { exit bad }' "$T"
	assert_success
}

@test "forged, insecure, misdirected and unknown senders are dropped" {
	mkkey "$ELECT_DIR/other" >/dev/null
	dgram -k "$ELECT_DIR/other" -t 1 -f 2 -d 1 -i 5 -q 1
	expect_drop 1 "from=2 why=bad-mac"
	dgram -t 1 -f 2 -d 1 -i 5 -q 2
	expect_drop 2 "from=2 why=bad-mac" 2
	good -q 3 -d 3
	expect_drop 3 "from=2 why=misdirected"
	good -q 4 -f 9
	# Not a node of the cluster: a flood of random ids is one line.
	expect_drop 4 "from=- why=unknown-peer"
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
	# Well-formed and authentic, but not from node 2's address.
	good -q 6 -n 4
	expect_drop 6 "from=2 why=bad-address"
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
	# Summed up, once a second for each sender and reason, exactly.
	wait_for 5 eval '[ "$(awk '"'"'$3 == "drop" { sub("n=", "", $6);
	    n += $6 } END { print n + 0 }'"'"' "$T")" = "$(drops)" ]'
	[ "$(grep -c " drop " "$T")" -lt 60 ]
	run elect-check -A trace "$T"
	assert_success
}
