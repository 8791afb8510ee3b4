#!/usr/bin/env bats
# The handshake on real three-node clusters: a node whose configuration
# differs (algorithm, timing, membership, key) is named in the others'
# logs and status and not counted, while the two that agree elect as if
# it were down; forged and replayed datagrams take no leadership away.

bats_require_minimum_version 1.5.0

load helper
load node

setup() {
	elect_setup
	C=$(mkcluster 3)
	K=$(mkkey "$ELECT_DIR/key")
	# Every message traced: the tests count the leader's as heard.
	ARGS=(-k "$K" --lease 2s --renew 400ms --rtt 200ms --trace-level full)
}

teardown() {
	elect_teardown
}

# odd_one FLAGS...: nodes 1 and 2 as ARGS say, node 3 with FLAGS after
# them; waits until nodes 1 and 2 agree on node 2.
odd_one() {
	elect_start_cluster "${ARGS[@]}" "$C" -- 1 2
	elect_wait_leader -l 2 20 1 2 >/dev/null
	ELECT_ARGS=("${ARGS[@]}" "$@")
	elect_start 3
}

# misfit ID WHAT: node ID's status names node 3 as differing in WHAT, its
# log says so exactly once, and nodes 1 and 2 still agree on node 2.
misfit() {
	wait_for 10 eval 'elect_status '"$1"' | grep -q " mismatch=3:'"$2"'$"'
	run grep -c "node 3: .*$2" "$ELECT_DIR/$1/stderr"
	assert_output 1
	elect_wait_leader -l 2 20 1 2 >/dev/null
}

@test "another algorithm on one node: named, not counted, the others elect" {
	odd_one -a bully-fd
	misfit 1 algo
	misfit 2 algo
	# and node 3 names both, once their datagrams have reached it
	wait_for 10 eval 'elect_status 3 | grep -q " mismatch=1:algo,2:algo"'
	grep -q "node 3: its algo differs from ours" "$ELECT_DIR/1/stderr"
	# Still so a while later: once per change, never per datagram.
	sleep 2
	run grep -c "node 3: " "$ELECT_DIR/1/stderr"
	assert_output 1
}

@test "another lease timing on one node: named, not counted" {
	odd_one --lease 3s
	misfit 1 timing
	misfit 2 timing
}

# Two memberships in one epoch need not have quorums that meet (nodes
# 1, 2 of {1,2,3} and 4, 5 of {3,4,5}): no lease node leads while a
# peer that disagrees on the membership answers (lib/host/fit.h).
@test "another cluster file on one node: named, and no node leads until it leaves" {
	local p
	p=$(freeport)
	cp "$C" "$ELECT_DIR/c4"
	echo "node 4 127.0.0.1:$p" >>"$ELECT_DIR/c4"
	ELECT_CLUSTER_OF[3]=$ELECT_DIR/c4
	odd_one
	for id in 1 2; do
		wait_for 10 eval 'elect_status '"$id"' | grep -q " veto=mismatch mismatch=3:cluster$"'
		run grep -c "node 3: .*cluster" "$ELECT_DIR/$id/stderr"
		assert_output 1
		run -4 elect_status "$id"
		assert_output --regexp ' role=none '
	done
	run -4 elect_status 3
	assert_output --regexp ' veto=mismatch mismatch=1:cluster,2:cluster$'
	elect_stop 3
	elect_wait_leader -l 2 20 1 2 >/dev/null
}

@test "another key on one node: named, not counted" {
	odd_one -k "$(mkkey "$ELECT_DIR/key2")"
	misfit 1 key
	misfit 2 key
	# and node 3 names both, once their datagrams have reached it
	wait_for 10 eval 'elect_status 3 | grep -q " mismatch=1:key,2:key"'
}

@test "the odd node restarted with the right configuration is counted again" {
	odd_one -a bully-fd
	misfit 1 algo
	elect_stop 3
	ELECT_ARGS=("${ARGS[@]}")
	elect_start 3
	wait_for 10 eval '! elect_status 1 | grep -q " mismatch="'
	grep -q "node 3: configuration agrees again" "$ELECT_DIR/1/stderr"
	# A lease leader is not preempted: node 3 follows it.
	elect_wait_leader -l 2 20 1 2 3 >/dev/null
}

@test "a peer at another address than one host's file says: logged once, counted, not taken" {
	local wrong n
	wrong=$(freeport)
	sed "s/^node 2 .*/node 2 127.0.0.1:$wrong fd=$(($(port 2) + 1))/" "$C" \
	    >"$ELECT_DIR/c1"
	ELECT_CLUSTER_OF[1]=$ELECT_DIR/c1
	elect_start_cluster "${ARGS[@]}" "$C"
	wait_for 20 eval '[ "$(ndrops_all 1 bad-address)" -ge 20 ]'
	run grep -c "node 2: its datagrams come from 127.0.0.1:$(port 2), not 127.0.0.1:$wrong as $ELECT_DIR/c1 says; not counted" \
	    "$ELECT_DIR/1/stderr"
	assert_output 1
	run grep -c "node 2: its datagrams come from" "$ELECT_DIR/3/stderr"
	assert_output 0
}

# leader_heard LDR ID N: node ID keeps counting the leader LDR's messages
# (N: those counted before), and LDR still leads.
leader_heard() {
	wait_for 10 eval '[ "$(grep -c " recv from='"$1"' " \
	    "$ELECT_DIR/'"$2"'/trace")" -gt $(('"$3"' + 10)) ]'
	elect_wait_leader -l "$1" 5 >/dev/null
}

@test "forged incarnations from a wrong address take no leader's traffic away" {
	local n id ldr f hex
	elect_start_cluster "${ARGS[@]}" "$C"
	ldr=$(elect_wait_leader 20)
	f=$((ldr == 1 ? 2 : 1))
	n=$(grep -c " recv from=$ldr " "$ELECT_DIR/$f/trace")
	# Authentic (an insider's key), claiming to be the leader, with an
	# incarnation and a sequence number far ahead, from another port.
	for id in 1 2 3; do
		[ "$id" = "$ldr" ] && continue
		hex=$(net-tool wire -r -p node -k "$K" -t 1 -f "$ldr" -d "$id" \
		    -i 9223372036854775000 -q 9223372036854775000)
		printf "$(sed 's/../\\x&/g' <<<"$hex")" >"$ELECT_DIR/dgram"
		cat "$ELECT_DIR/dgram" >/dev/udp/127.0.0.1/"$(port "$id")"
		cat "$ELECT_DIR/dgram" >/dev/udp/127.0.0.1/"$(port "$id")"
	done
	wait_for 5 grep -q " drop from=$ldr why=bad-address n=" \
	    "$ELECT_DIR/$f/trace"
	leader_heard "$ldr" "$f" "$n"
}

@test "--insecure: refused unless every address is loopback" {
	printf 'node 1 127.0.0.1:%s\nnode 2 192.0.2.1:7000\n' "$(freeport)" \
	    >"$ELECT_DIR/wide"
	run elect-node -f "$ELECT_DIR/wide" -i 1 --insecure -s "$ELECT_DIR/s"
	assert_failure 2
	assert_output --partial "not loopback"
	run elect-fd -f "$ELECT_DIR/wide" -i 1 --insecure </dev/null
	assert_failure 2
	assert_output --partial "not loopback"
}

# Raw IPv4 with our own UDP header: a datagram from 127.0.0.1:SPORT,
# whoever sends it (root only).
spoof() {
	python3 -c 'import socket, struct, sys
sport, dport, data = int(sys.argv[1]), int(sys.argv[2]), bytes.fromhex(sys.argv[3])
udp = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
s.sendto(udp, ("127.0.0.1", 0))' "$@"
}

@test "--insecure: forged incarnations from the leader's own address take nothing away" {
	local n id ldr f hex
	[ "$(id -u)" = 0 ] || skip "raw sockets need root"
	ARGS=(--insecure --lease 2s --renew 400ms --rtt 200ms --trace-level full)
	elect_start_cluster "${ARGS[@]}" "$C"
	ldr=$(elect_wait_leader 20)
	f=$((ldr == 1 ? 2 : 1))
	n=$(grep -c " recv from=$ldr " "$ELECT_DIR/$f/trace")
	# Two datagrams, as the leader's, with incarnation 2^63 - 1.
	for id in 1 2 3; do
		[ "$id" = "$ldr" ] && continue
		hex=$(net-tool wire -r -p node -t 1 -f "$ldr" -d "$id" \
		    -i 9223372036854775807 -q 9223372036854775807)
		spoof "$(port "$ldr")" "$(port "$id")" "$hex"
	done
	wait_for 5 grep -q " drop from=$ldr why=unconfirmed n=" \
	    "$ELECT_DIR/$f/trace"
	# A new handshake with the real leader, and its traffic counts again.
	leader_heard "$ldr" "$f" "$n"
}

# A forger at the leader's own address, sending datagrams under another
# key faster than the leader renews, flips the leader's agreement at
# every few: the follower's log says each state once, then sums up.
@test "bad MACs from the leader's address: logged once, then summed up" {
	local ldr f hex n
	[ "$(id -u)" = 0 ] || skip "raw sockets need root"
	elect_start_cluster "${ARGS[@]}" "$C"
	ldr=$(elect_wait_leader 20)
	f=$((ldr == 1 ? 2 : 1))
	hex=$(net-tool wire -r -p node -k "$(mkkey "$ELECT_DIR/k2")" -t 1 \
	    -f "$ldr" -d "$f")
	python3 -c 'import socket, struct, sys, time
sport, dport, data = int(sys.argv[1]), int(sys.argv[2]), bytes.fromhex(sys.argv[3])
udp = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
for i in range(400):
    s.sendto(udp, ("127.0.0.1", 0))
    time.sleep(0.01)' "$(port "$ldr")" "$(port "$f")" "$hex"
	elect_stop "$f"
	n=$(ndrops_all "$f" bad-mac)
	[ "$n" -ge 300 ] || fail "$n bad-mac drops counted"
	run grep -c "node $ldr: its datagrams fail the MAC" \
	    "$ELECT_DIR/$f/stderr"
	assert_output 1
	run grep -c "node $ldr: configuration agrees again" \
	    "$ELECT_DIR/$f/stderr"
	assert_output 1
	grep -Eq "node $ldr: its agreement changed again n=[1-9][0-9]* in [0-9]+ s .*; now (agrees|fails the MAC)$" \
	    "$ELECT_DIR/$f/stderr"
}

@test "key rotation without a restart: old and new, new and old, new" {
	local n id ldr f
	head -c 32 /dev/urandom >"$ELECT_DIR/new"
	cp "$K" "$ELECT_DIR/old"
	elect_start_cluster "${ARGS[@]}" "$C"
	ldr=$(elect_wait_leader 20)
	f=$((ldr == 1 ? 2 : 1))
	# rotate N FILES...: every node's key file becomes FILES, then
	# SIGHUP, and each says it loaded its Nth file (two signals sent
	# before the first is taken would be one: they do not queue).
	rotate() {
		local k=$1
		shift
		(umask 077; cat "$@" >"$K.tmp")
		mv "$K.tmp" "$K"
		for id in 1 2 3; do
			kill -HUP "${ELECT_PID[$id]}"
		done
		for id in 1 2 3; do
			wait_for 10 eval '[ "$(grep -c "key.* loaded" \
			    "$ELECT_DIR/'"$id"'/stderr")" = '"$k"' ]'
		done
	}
	rotate 1 "$ELECT_DIR/old" "$ELECT_DIR/new"
	grep -q "2 keys loaded" "$ELECT_DIR/3/stderr"
	rotate 2 "$ELECT_DIR/new" "$ELECT_DIR/old"
	rotate 3 "$ELECT_DIR/new"
	# Nothing was lost on the way: the leader never changed, and what it
	# sends now, under the new key alone, counts.
	leader_heard "$ldr" "$f" "$(grep -c " recv from=$ldr " \
	    "$ELECT_DIR/$f/trace")"
	run grep -c " state status=Norm ldr=$ldr " "$ELECT_DIR/$f/trace"
	assert_output 1
	[ "$(ndrops_all "$f" bad-mac)" = 0 ]
	# A node started on the old key alone is named.
	elect_stop "$ldr"
	cp "$ELECT_DIR/old" "$ELECT_DIR/old.only"
	chmod 600 "$ELECT_DIR/old.only"
	ELECT_ARGS=("${ARGS[@]}" -k "$ELECT_DIR/old.only")
	elect_start "$ldr"
	wait_for 10 eval 'elect_status '"$f"' | grep -q " mismatch='"$ldr"':key$"'
}

# ndrops_all ID WHY: node ID's drops for WHY, from anyone.
ndrops_all() {
	awk -v w="why=$2" '$3 == "drop" && $5 == w { sub("n=", "", $6);
	    n += $6 } END { print n + 0 }' "$ELECT_DIR/$1/trace"
}

@test "key rotation host by host with --gen-key: each peer's key logged and in --status, no leadership lost" {
	local id f ldr old new k=$ELECT_DIR
	old=$(elect-node --gen-key "$k/old" | sed -n 's/.* key_id=//p')
	new=$(elect-node --gen-key "$k/new" | sed -n 's/.* key_id=//p')
	[[ "$old" =~ ^[0-9a-f]{8}$ && "$new" =~ ^[0-9a-f]{8}$ ]]
	[ "$old" != "$new" ]
	run stat -c %a "$k/new"
	assert_output 600
	# Never over a key.
	run -2 elect-node --gen-key "$k/new"
	assert_output --partial "a key is never overwritten"
	for id in 1 2 3; do
		cp "$k/old" "$k/key.$id"
	done
	# Each host its own key file, as three hosts have.
	elect_start_cluster "${ARGS[@]:2}" -k "$k/key.1" "$C" -- 1
	elect_start 2 -k "$k/key.2"
	elect_start 3 -k "$k/key.3"
	ldr=$(elect_wait_leader 20)
	f=$((ldr == 1 ? 2 : 1))
	wait_for 10 eval 'elect_status '"$f"' | grep -q " key='"$old"' peer_keys=[0-9]:'"$old"',[0-9]:'"$old"' "'
	# step ID FILES...: host ID's key file becomes FILES, then SIGHUP.
	step() {
		local h=$1
		shift
		(umask 077; cat "$@" >"$k/key.$h.tmp")
		mv "$k/key.$h.tmp" "$k/key.$h"
		kill -HUP "${ELECT_PID[$h]}"
	}
	for id in 1 2 3; do
		step "$id" "$k/old" "$k/new"
		wait_for 5 grep -q "2 keys loaded .* key_id=$old accept=$new$" \
		    "$ELECT_DIR/$id/stderr"
	done
	for id in 1 2 3; do
		step "$id" "$k/new" "$k/old"
		wait_for 5 grep -q "2 keys loaded .* key_id=$new accept=$old$" \
		    "$ELECT_DIR/$id/stderr"
	done
	# The leader saw each host go over to the new key, and each host the
	# leader (followers of a lease send to the leader only).
	for id in 1 2 3; do
		for f in 1 2 3; do
			[ "$f" != "$id" ] && { [ "$f" = "$ldr" ] || [ "$id" = "$ldr" ]; } ||
			    continue
			wait_for 10 grep -q "peer-key node=$f peer=$id key=$new prev=$old$" \
			    "$ELECT_DIR/$f/stderr"
		done
	done
	run elect_status "$ldr"
	assert_output --regexp " key=$new accept=$old peer_keys=[0-9]:$new,[0-9]:$new "
	for id in 1 2 3; do
		step "$id" "$k/new"
		wait_for 5 grep -q "1 key loaded key_id=$new$" "$ELECT_DIR/$id/stderr"
	done
	run elect_status "$ldr"
	assert_output --regexp " key=$new peer_keys=[0-9]:$new,[0-9]:$new "
	run elect-node -s "$ELECT_DIR/$ldr/state" --status --json
	assert_output --partial "\"key\":\"$new\""
	# The leader never changed, and nothing was refused on the way.
	elect_wait_leader -l "$ldr" 5 >/dev/null
	for id in 1 2 3; do
		run grep -c "became-leader" "$ELECT_DIR/$id/stderr"
		assert_output "$([ "$id" = "$ldr" ] && echo 1 || echo 0)"
		refute grep -q "stopped-leading" "$ELECT_DIR/$id/stderr"
		[ "$(ndrops_all "$id" bad-mac)" = 0 ]
	done
}
