#!/usr/bin/env bats
# A lease daemon's testament (lib/guard/testament.h): what it writes into
# its state directory for --run-if-leader, and the strict parser that
# reads it back.

bats_require_minimum_version 1.5.0

load helper
load node

teardown() {
	elect_teardown
}

@test "testament: a lease daemon writes its testament, owner only, and its task lock; other algorithms write neither" {
	local id st
	C=$(mkcluster 3)
	elect_start_cluster -k "$(mkkey "$BATS_TEST_TMPDIR/key")" --lease 1s --renew 200 "$C"
	elect_wait_leader 20 >/dev/null
	for id in 1 2 3; do
		st=$ELECT_DIR/$id/state
		run stat -c %a "$st/testament" "$st/tasks.lock"
		assert_output $'600\n600'
		# The daemon holds it shared: nobody holds it exclusively.
		run flock -x -n "$st/tasks.lock" true
		assert_failure
		run testament-drive <"$st/testament"
		assert_success
		assert_line --index 0 --regexp "^node=$id pid=${ELECT_PID[$id]} inc=[1-9][0-9]* from=127\.0\.0\.1:$(port "$id" "$C") peers=2\$"
		# One Dead of 80 bytes (a header and a MAC) to each peer.
		assert_equal "$(grep -c '^to [123] 127\.0\.0\.1:[0-9]* 80$' <<<"$output")" 2
		refute_output --partial "to $id "
	done
	# Node 3's Dead for node 1, sent by hand: taken from node 3's host on
	# any port (a guard cannot use the daemon's, which a restarted daemon
	# may hold), dropped from another host.
	local hex
	hex=$(awk '$1 == "to" && $2 == 1 { print $5 }' "$ELECT_DIR/3/state/testament")
	send_from() {
		python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 0))
s.sendto(bytes.fromhex(sys.argv[2]), ("127.0.0.1", int(sys.argv[3])))' \
		    "$1" "$hex" "$(port 1 "$C")"
	}
	send_from 127.0.0.2
	wait_for 10 trace_has "$ELECT_DIR/1/trace" " drop from=3 why=bad-address"
	send_from 127.0.0.1
	wait_for 10 trace_has "$ELECT_DIR/1/trace" " recv from=3 msg=Dead elid=3\.[0-9]+\.0\$"
	wait_for 10 grep -q "peer-dead node=1 peer=3 inc=" "$ELECT_DIR/1/stderr"
	elect_stop_all

	elect_setup "$BATS_TEST_TMPDIR/e2"
	elect_start_cluster --insecure -a bully "$C"
	elect_wait_leader 20 >/dev/null
	[ ! -e "$ELECT_DIR/1/state/testament" ]
	[ ! -e "$ELECT_DIR/1/state/tasks.lock" ]
}

@test "testament: under --insecure no Dead counts: a forged one from the host, on any port, releases nothing" {
	local hex
	C=$(mkcluster 3)
	elect_start_cluster --insecure --lease 1s --renew 200 "$C"
	elect_wait_leader 20 >/dev/null
	hex=$(awk '$1 == "to" && $2 == 1 { print $5 }' "$ELECT_DIR/3/state/testament")
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
s.sendto(bytes.fromhex(sys.argv[1]), ("127.0.0.1", int(sys.argv[2])))' \
	    "$hex" "$(port 1 "$C")"
	wait_for 10 trace_has "$ELECT_DIR/1/trace" " drop from=3 why=dead-insecure"
	run trace_has "$ELECT_DIR/1/trace" " recv from=3 msg=Dead"
	assert_failure
	run grep -c "peer-dead" "$ELECT_DIR/1/stderr"
	assert_output 0
}
