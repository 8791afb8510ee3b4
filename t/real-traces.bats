#!/usr/bin/env bats
# Real traces, made the way users make them, that elect-check must
# certify: nothing went wrong in these runs, though the traces show a
# SIGKILL no line records, a partition no net line records, and a node
# paused past its lease.  Nodes run at elect-node's default timings; the
# tests wait for conditions, never for speed.

bats_require_minimum_version 1.5.0

load helper
load node

setup() {
	elect_setup
	NS=() PIDS=() HUB= COLLECTOR=
}

teardown() {
	local p n
	if [ -n "$COLLECTOR" ]; then
		kill -KILL "$COLLECTOR" 2>/dev/null
		wait "$COLLECTOR" 2>/dev/null
	fi
	for p in "${PIDS[@]}"; do
		kill -KILL -- "-$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		_elect_reap "$p" 2>/dev/null
	done
	elect_teardown
	for n in "${NS[@]}" $HUB; do
		ip netns del "$n" 2>/dev/null
	done
	true
}

# certify TRACE [ELECT-CHECK FLAGS...]: elect-check certifies it; the
# verdict is shown on failure.
certify() {
	run --separate-stderr elect-check "${@:2}" "$1"
	if [ "$status" != 0 ]; then
		echo "$output"
		echo "$stderr"
	fi
	assert_success
	assert_output ""
}

@test "per-node files, the leader killed with SIGKILL and started again: merged, certified" {
	local old new others=() id
	C=$(mkcluster 3)
	elect_start_cluster --insecure -a lease "$C"
	old=$(elect_wait_leader 20)
	# SIGKILL, as a user or the OOM killer does: no line says so.
	kill -KILL -- "-${ELECT_PID[$old]}"
	_elect_reap "${ELECT_PID[$old]}"
	ELECT_STATE[$old]=down
	for id in 1 2 3; do
		[ "$id" = "$old" ] || others+=("$id")
	done
	new=$(elect_wait_leader 20 "${others[@]}")
	[ "$new" != "$old" ]
	elect_start "$old"
	elect_wait_leader 20
	elect_stop_all
	run grep -c " boot " "$ELECT_DIR/$old/trace"
	assert_output 2
	refute grep -q " crash" "$ELECT_DIR/$old/trace"
	elect-trace merge "$ELECT_DIR"/[123]/trace >"$ELECT_DIR/merged.trace"
	run grep -c "^[0-9.]* $old crash by=merge\$" "$ELECT_DIR/merged.trace"
	assert_output 1
	certify "$ELECT_DIR/merged.trace"
}

# A hub namespace with a bridge, and NS_ID for each node, on a subnet of
# their own: node I at $NET.I, the collector at $NET.254.
mknet() {
	local n=$1 i tag=$$$RANDOM
	NET=10.$((RANDOM % 200 + 20)).$((RANDOM % 250))
	HUB=eh$tag
	ip netns add "$HUB"
	ip -n "$HUB" link set lo up
	ip -n "$HUB" link add br0 type bridge
	ip -n "$HUB" addr add "$NET.254/24" dev br0
	ip -n "$HUB" link set br0 up
	for ((i = 1; i <= n; i++)); do
		NS[$i]=en$tag-$i
		ip netns add "${NS[$i]}"
		ip -n "${NS[$i]}" link set lo up
		ip -n "$HUB" link add "v$i" type veth peer name eth0 netns "${NS[$i]}"
		ip -n "$HUB" link set "v$i" master br0 up
		ip -n "${NS[$i]}" addr add "$NET.$i/24" dev eth0
		ip -n "${NS[$i]}" link set eth0 up
	done
	C=$BATS_TEST_TMPDIR/cluster.conf
	: >"$C"
	for ((i = 1; i <= n; i++)); do
		echo "node $i $NET.$i:7000" >>"$C"
	done
}

# nsnode ID: node ID in its namespace, traced to the collector over tcp,
# its state directory where elect.bash looks (elect_wait_leader).
nsnode() {
	local id=$1
	mkdir -p "$ELECT_DIR/$id"
	ip netns exec "${NS[$id]}" setsid elect-node -a lease -k "$KEY" \
	    -f "$C" -i "$id" -s "$ELECT_DIR/$id/state" \
	    -t "tcp:$NET.254:$CPORT" </dev/null \
	    >>"$ELECT_DIR/$id/stdout" 2>>"$ELECT_DIR/$id/stderr" 3>&- &
	PIDS[$id]=$!
}

@test "nodes in namespaces of their own, traced over tcp; a partition by nft and a paused node: certified" {
	[ "$(id -u)" = 0 ] || skip "network namespaces and nft need root"
	local ldr cut rest=() id i
	mknet 3
	CPORT=7500	# the hub's own namespace: free
	# Off loopback the nodes need the key, and so does the collector: each
	# node proves its id before its lines count.
	KEY=$ELECT_DIR/key
	(umask 077 && head -c 32 /dev/urandom >"$KEY")
	ip netns exec "$HUB" elect-trace collect -k "$KEY" -d 1 \
	    -l "tcp:$NET.254:$CPORT" \
	    -o "$ELECT_DIR/collected.trace" 2>>"$ELECT_DIR/collect.err" &
	COLLECTOR=$!
	wait_for 10 ip netns exec "${NS[1]}" sh -c \
	    ": | trawsend tcp:$NET.254:$CPORT 2>/dev/null"
	for id in 1 2 3; do
		nsnode "$id"
	done
	ldr=$(elect_wait_leader 20 1 2 3)
	# Liveness is judged from c after the boots: the faults come later
	# (-c 2 below, the time the default lease cluster needs many times
	# over), so that only the trace's own evidence can excuse them.
	sleep 2.5

	# The leader's host drops every datagram, in and out: nothing in the
	# trace says so but the messages themselves.
	ip netns exec "${NS[$ldr]}" nft -f - <<-EOF
	table inet cut {
		chain in { type filter hook input priority 0; policy accept; udp dport 7000-7001 drop; }
		chain out { type filter hook output priority 0; policy accept; udp dport 7000-7001 drop; }
	}
	EOF
	for id in 1 2 3; do
		[ "$id" = "$ldr" ] || rest+=("$id")
	done
	cut=$ldr
	ldr=$(elect_wait_leader 20 "${rest[@]}")
	[ "$ldr" != "$cut" ]
	ip netns exec "${NS[$cut]}" nft delete table inet cut
	ldr=$(elect_wait_leader 20 1 2 3)

	# The leader paused well past its lease (80 ms), then continued.
	kill -STOP -- "-${PIDS[$ldr]}"
	_elect_frozen "${PIDS[$ldr]}"
	rest=()
	for id in 1 2 3; do
		[ "$id" = "$ldr" ] || rest+=("$id")
	done
	elect_wait_leader 20 "${rest[@]}"
	kill -CONT -- "-${PIDS[$ldr]}"
	elect_wait_leader 20 1 2 3

	for id in 1 2 3; do
		kill -TERM "${PIDS[$id]}"
	done
	for id in 1 2 3; do
		_elect_reap "${PIDS[$id]}"
	done
	wait_for 10 sh -c "[ \$(grep -c ' exit ' '$ELECT_DIR/collected.trace') -ge 3 ]"
	kill -TERM "$COLLECTOR"
	wait "$COLLECTOR"
	COLLECTOR=
	# every node wrote from its own address; no net, pause or crash line
	run grep -cE " (net|pause|resume|crash)( |\$)" "$ELECT_DIR/collected.trace"
	assert_output 0
	certify "$ELECT_DIR/collected.trace" -c 2
	assert_regex "$stderr" "messages? not received within 0.005 s"
	# Without the messages as evidence, the leaders' lost leases are
	# failures of the protocol: the evidence is what excuses them.
	run --separate-stderr elect-check -c 2 --msg-bound 1000 \
	    "$ELECT_DIR/collected.trace"
	assert_failure 1
	assert_output --partial "stability: node $cut stopped leading"
}

# --run-if-leader traces its task lines to the cluster's collector, which
# takes only lines proved with the key: with -k it proves them as the
# daemons do; without, they are refused.
@test "a keyed collector takes --run-if-leader's task lines proved with -k; the merged trace is certified" {
	local port ldr K
	K=$(mkkey "$ELECT_DIR/key")
	C=$(mkcluster 3)
	port=$(freeport)
	elect-trace collect -k "$K" -l "tcp:127.0.0.1:$port" \
	    -o "$ELECT_DIR/collected.trace" 2>>"$ELECT_DIR/collect.err" &
	COLLECTOR=$!
	wait_for 10 sh -c ": | trawsend tcp:127.0.0.1:$port 2>/dev/null"
	elect_start_cluster -k "$K" "$C"
	ldr=$(elect_wait_leader 20)
	run elect-node -s "$ELECT_DIR/$ldr/state" --run-if-leader \
	    -t "tcp:127.0.0.1:$port" -k "$K" -- sh -c 'exit 0'
	assert_success
	run elect-node -s "$ELECT_DIR/$ldr/state" --run-if-leader \
	    -t "tcp:127.0.0.1:$port" -- sh -c 'exit 0'
	assert_success
	wait_for 10 grep -q "node not proved" "$ELECT_DIR/collect.err"
	elect_stop_all
	kill -TERM "$COLLECTOR"
	wait "$COLLECTOR"
	COLLECTOR=
	# The proved run's two lines, and nothing of the other.
	run awk '$3 == "task" { print $2, $3, $4 }' "$ELECT_DIR/collected.trace"
	assert_output "$(printf '%s task op=start\n%s task op=stop' "$ldr" "$ldr")"
	elect-trace merge "$ELECT_DIR"/*/trace "$ELECT_DIR/collected.trace" \
	    >"$ELECT_DIR/merged.trace"
	certify "$ELECT_DIR/merged.trace"
}

# elect-trace(1)'s pipeline as documented: a keyed collector in time
# order (-d), the daemons and the guarded commands proving their lines.
# The start line goes out while the command runs (not at its end, too
# late for the order), and a command that runs past the writer's wait for
# a challenge still proves its lines.
@test "a keyed collector in time order takes every task line of --run-if-leader, --wait or not; the collected trace is certified" {
	local port ldr K
	K=$(mkkey "$ELECT_DIR/key")
	C=$(mkcluster 3)
	port=$(freeport)
	elect-trace collect -k "$K" -d 0.1 -l "tcp:127.0.0.1:$port" \
	    -o "$ELECT_DIR/collected.trace" 2>>"$ELECT_DIR/collect.err" &
	COLLECTOR=$!
	wait_for 10 sh -c ": | trawsend tcp:127.0.0.1:$port 2>/dev/null"
	# A lease a loaded host keeps through the 2.5 s command, under the
	# sanitizers too.
	elect_start_cluster -k "$K" --lease 3s --renew 500 --rtt 100 "${FD[@]}" \
	    -t "tcp:127.0.0.1:$port" "$C"
	ldr=$(elect_wait_leader 20)
	run elect-node -s "$ELECT_DIR/$ldr/state" --run-if-leader \
	    -t "tcp:127.0.0.1:$port" -k "$K" -- sleep 0.2
	assert_success
	# longer than the 2 s a writer waits for a collector's challenge
	run elect-node -s "$ELECT_DIR/$ldr/state" --run-if-leader --wait \
	    -t "tcp:127.0.0.1:$port" -k "$K" -- sleep 2.5
	assert_success
	elect_stop_all
	wait_for 10 sh -c "[ \$(grep -c ' exit ' '$ELECT_DIR/collected.trace') -ge 3 ]"
	kill -TERM "$COLLECTOR"
	wait "$COLLECTOR"
	COLLECTOR=
	run cat "$ELECT_DIR/collect.err"
	refute_output --partial "earlier than lines already written"
	refute_output --partial "not proved"
	run awk '$3 == "task" { print $2, $3, $4 }' "$ELECT_DIR/collected.trace"
	assert_output "$(printf '%s task op=start\n%s task op=stop\n' \
	    "$ldr" "$ldr" "$ldr" "$ldr")"
	refute grep -q " lost " "$ELECT_DIR/collected.trace"
	certify "$ELECT_DIR/collected.trace"
}
