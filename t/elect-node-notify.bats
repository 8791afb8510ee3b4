#!/usr/bin/env bats
# elect-node under a service manager (sd_notify(3)): READY=1 after the
# first election round, STATUS= with who leads, WATCHDOG=1 while the
# loop runs, STOPPING=1 on the way out.  A datagram socket of the test
# stands in for systemd's.

load helper
load node

# Timings a loaded host keeps (see t/elect-node-lease.bats): no false
# suspicion moves the leadership while the test looks.
TIMING=(--lease 1s --renew 200 --rtt 50 --fd-interval 100 --fd-timeout 1s)

setup() {
	elect_setup
	C=$(mkcluster 3)
	LISTENER=
	SOCK=$BATS_TEST_TMPDIR/notify
	LOG=$BATS_TEST_TMPDIR/notify.log
	SENDERS=$BATS_TEST_TMPDIR/senders
	: >"$LOG"
	# The kernel names each datagram's sender (SCM_CREDENTIALS).
	python3 -c '
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.bind(sys.argv[1])
with open(sys.argv[2], "a") as log, open(sys.argv[3], "a") as who:
    while True:
        data, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(12))
        for lvl, typ, d in anc:
            if lvl == socket.SOL_SOCKET and typ == socket.SCM_CREDENTIALS:
                who.write("%d\n" % struct.unpack("iII", d[:12])[0])
        who.flush()
        for line in data.decode().split("\n"):
            log.write(line + "\n")
        log.flush()
' "$SOCK" "$LOG" "$SENDERS" 3>&- &
	LISTENER=$!
	wait_for 10 test -S "$SOCK"
}

teardown() {
	elect_teardown
	[ -z "$LISTENER" ] || kill "$LISTENER" 2>/dev/null || true
}

# told COUNT LINE: the node said LINE at least COUNT times.
told() {
	[ "$(grep -cxF -- "$2" "$LOG")" -ge "$1" ]
}

# start_notified ID: node ID, and it alone, with the service manager's
# socket and a watchdog of WATCHDOG_USEC (default 100 ms).
start_notified() {
	NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=${WATCHDOG_USEC:-100000} \
	    elect_start "$1"
}

@test "notify: ready once a leader is known, its status, the watchdog, stopping" {
	elect_start_cluster --insecure "${TIMING[@]}" "$C" -- 1 2
	export NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=100000
	elect_start 3
	unset NOTIFY_SOCKET WATCHDOG_USEC
	wait_for 20 told 1 "READY=1"
	# Whoever leads, node 3 says so: leader with its token, or follower.
	leader=$(elect_wait_leader 30)
	if [ "$leader" = 3 ]; then
		wait_for 20 grep -q '^STATUS=leader (node 3, token [1-9][0-9]*)$' "$LOG"
	else
		wait_for 20 told 1 "STATUS=follower of node $leader"
	fi
	wait_for 20 told 3 "WATCHDOG=1"
	# With a quorum, ready means a leader is known: the status that
	# comes with READY=1 names one.
	run grep -m1 -A1 -x 'READY=1' "$LOG"
	assert_line --index 1 --regexp '^STATUS=(leader|follower of node [0-9]+)'
	# Only node 3 has the socket: every datagram is its daemon's.
	run sort -u "$SENDERS"
	assert_output "${ELECT_PID[3]}"
	elect_stop 3
	wait_for 10 told 1 "STOPPING=1"
	elect_stop_all
}

@test "notify: a follower says whom it follows, and a node alone is ready all the same" {
	export NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=0
	elect_start_cluster --insecure "${TIMING[@]}" "$C" -- 1
	unset NOTIFY_SOCKET WATCHDOG_USEC
	# Node 1 alone has no quorum: ready once a round could have ended,
	# and says that it knows no leader.
	wait_for 20 told 1 "READY=1"
	run grep -c '^STATUS=no leader known$' "$LOG"
	assert_output 1
	refute grep -qx 'WATCHDOG=1' "$LOG"
	elect_start 2
	elect_start 3
	leader=$(elect_wait_leader 30)
	[ "$leader" != 1 ]
	wait_for 20 told 1 "STATUS=follower of node $leader"
	elect_stop_all
}
