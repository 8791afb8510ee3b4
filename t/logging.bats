#!/usr/bin/env bats
# The daemons' log (elect-node(1), elect-fd(1): LOGGING): one line per
# event, a word and key=value pairs with the node's id, on stderr or to
# syslog; -q keeps the warnings only.

load helper
load node

# Timings a loaded host keeps (see t/elect-node-lease.bats).
TIMING=(--lease 1s --renew 200 --rtt 50 --fd-interval 100 --fd-timeout 1s)

setup() {
	elect_setup
	C=$(mkcluster 3)
	LISTENER=
	PIDS=()
}

teardown() {
	local p
	elect_teardown
	for p in "${PIDS[@]}" $LISTENER; do
		kill "$p" 2>/dev/null || true
	done
	[ -z "${FULL:-}" ] || umount "$FULL" 2>/dev/null ||
	    umount -l "$FULL" 2>/dev/null || true
}

# untimed: the log lines of standard input without their time.
untimed() {
	sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z //'
}

# logged ID REGEX: node ID's standard error has a line matching REGEX,
# its time left out.
logged() {
	untimed <"$ELECT_DIR/$1/stderr" | grep -Eq -- "$2"
}

# others LEADER: the node ids other than LEADER, one a line.
others() {
	local id
	for id in 1 2 3; do
		[ "$id" = "$1" ] || echo "$id"
	done
}

@test "logging: a failover, as the survivors log it" {
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	old=$(elect_wait_leader 30)
	wait_for 10 logged "$old" "^elect-node: became-leader node=$old token=[0-9]+ "
	elect_kill "$old"
	new=$(elect_wait_leader 30)
	[ "$new" != "$old" ]
	wait_for 10 logged "$new" \
	    "^elect-node: became-leader node=$new token=[0-9]+ prev=$old why=(leader-down|leader-dead|lease-expired) epoch=0$"
	# The new token exceeds the old leader's.
	t0=$(sed -nE "s/.*became-leader node=$old token=([0-9]+).*/\1/p" \
	    "$ELECT_DIR/$old/stderr" | tail -n 1)
	t1=$(sed -nE "s/.*became-leader node=$new token=([0-9]+).*/\1/p" \
	    "$ELECT_DIR/$new/stderr" | tail -n 1)
	[ "$t1" -gt "$t0" ]
	# The survivor that watched the old leader (lease: the next below)
	# saw it go down; every survivor saw the leader change.
	# A peer-down line is the detector's report: the lease's lapse may
	# elect the next leader first and stop the watch (elect-node(1),
	# LOGGING), so it is not waited for.
	for id in $(others "$old"); do
		wait_for 10 logged "$id" "leader-changed node=$id leader=$new "
	done
	elect_stop_all
	for id in $(others "$old"); do
		logged "$id" "^elect-node: start node=$id version=[^ ]+ algo=lease cluster=$C nodes=3 .* lease=1000ms "
		logged "$id" "^elect-node: stop node=$id why=sigterm released=yes$"
	done
	logged "$new" "^elect-node: stopped-leading node=$new token=$t1 why=leaving leader=- held=[0-9.]+s$"
	# One line per event: the detector's info lines would repeat them.
	! cat "$ELECT_DIR"/*/stderr | untimed | grep -q '^elect-fd: \(start\|peer-\)'
	{
		echo "# failover: node $old killed, node $new leads"
		grep -h -v ': start \|insecure' "$ELECT_DIR/$new/stderr" \
		    "$ELECT_DIR"/$(others "$old" | grep -vx "$new")/stderr
	} >&3
}

@test "logging: a planned handover is said to be one, not a crash" {
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	old=$(elect_wait_leader 30)
	wait_for 10 logged "$old" "^elect-node: became-leader node=$old "
	elect_stop "$old"
	new=$(elect_wait_leader 30 $(others "$old"))
	wait_for 10 logged "$new" \
	    "^elect-node: became-leader node=$new token=[0-9]+ prev=$old why=handover epoch=0$"
}

@test "logging: each line on stderr carries its time, but under journald" {
	local t0 t1 stamp
	t0=$(date -u +%s)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	old=$(elect_wait_leader 30)
	wait_for 10 logged "$old" "^elect-node: became-leader node=$old "
	t1=$(date -u +%s)
	# UTC to the millisecond, first on the line, and of this run.
	stamp=$(sed -nE "s/^([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})\.[0-9]{3}Z elect-node: became-leader node=$old .*/\1/p" \
	    "$ELECT_DIR/$old/stderr" | head -n 1)
	[ -n "$stamp" ]
	stamp=$(date -u -d "$stamp" +%s)
	[ "$stamp" -ge "$t0" ]
	[ "$stamp" -le "$t1" ]
	# journald stamps the lines itself: a priority, no time.
	mkcluster 1 "$BATS_TEST_TMPDIR/one.conf" >/dev/null
	JOURNAL_STREAM=8:1 timeout -s INT 2 elect-node \
	    -f "$BATS_TEST_TMPDIR/one.conf" -i 1 --insecure \
	    -s "$BATS_TEST_TMPDIR/one" 2>"$BATS_TEST_TMPDIR/j.err" 3>&- || true
	grep -Eq "^<5>start node=1 " "$BATS_TEST_TMPDIR/j.err"
}

# A leader stopped past its lease led until the lease's end, not until
# it was continued: held= counts the leadership.
@test "logging: a leader stopped past its lease held it until the lease's end" {
	local old new secs held line
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	old=$(elect_wait_leader 30)
	wait_for 10 logged "$old" "^elect-node: became-leader node=$old "
	line=$(elect_status "$old")
	secs=${line##* secs=}
	secs=${secs%% *}
	elect_pause "$old"
	new=$(elect_wait_leader 30 $(others "$old"))
	# Stopped for at least 6 s more, by the new leader's time in Norm.
	wait_for 30 eval '[[ "$(elect_status '"$new"')" =~ \ secs=([6-9]|[1-9][0-9]+)\. ]]'
	elect_resume "$old"
	wait_for 10 logged "$old" "stopped-leading node=$old .*why=lease-expired"
	held=$(sed -nE "s/.*stopped-leading node=$old .*held=([0-9.]+)s$/\1/p" \
	    "$ELECT_DIR/$old/stderr")
	# The lease is 1 s; what it led before the pause is about SECS.
	awk -v h="$held" -v s="$secs" 'BEGIN { exit !(h > s - 0.5 && h < s + 4) }'
}

@test "logging: -q keeps the warnings only, -v adds the detector's lines" {
	elect_start_cluster --insecure -q "${TIMING[@]}" "$C" -- 1 2
	elect_start 3 -v
	leader=$(elect_wait_leader 30)
	wait_for 10 logged 3 "^elect-fd: start node=3 "
	wait_for 10 logged "$leader" "became-leader node=$leader "
	elect_stop_all
	for id in 1 2; do
		! logged "$id" "became-leader|leader-changed|start node=|stop node="
		# The warnings stay.
		logged "$id" "^elect-node: warning: --insecure"
	done
	logged 3 "^elect-node: stop node=3 why=sigterm"
	logged 3 "^elect-fd: stop node=3 "
}

@test "logging: a drop rate past the threshold is one summary line" {
	elect_start_cluster --insecure "${TIMING[@]}" "$C" -- 1
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(200):
    s.sendto(b"not a datagram of ours", ("127.0.0.1", int(sys.argv[1])))
' "$(port 1)"
	# The window is 10 s: one line at its end, not 200.
	wait_for 20 logged 1 "^elect-node: drops node=1 count=200 window=10s why=[a-z-]+:200$"
	[ "$(grep -c 'drops node=' "$ELECT_DIR/1/stderr")" = 1 ]
	! logged 1 "drop from="
}

@test "logging: elect-fd alone logs start, peers and stop" {
	run timeout 20 bash -c '
	    { echo "start 2"; sleep 3; } |
	    elect-fd -f "$1" -i 1 --insecure --interval 50 --timeout 200' \
	    _ "$C"
	assert_success
	assert_output --partial "down 2"
	run untimed <<<"$output"
	assert_line --regexp "^elect-fd: start node=1 version=[^ ]+ cluster=$C nodes=3 inc=[0-9]+ key=insecure mode=push interval=50ms timeout=200ms$"
	assert_line "elect-fd: peer-down node=1 peer=2"
	assert_line --regexp "^elect-fd: stop node=1 why=[a-z-]+ sent=[0-9]+ "
}

@test "logging: --syslog sends the lines to syslog, not stderr" {
	if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
		skip "needs root and mount namespaces for a /dev/log of its own"
	fi
	local t=$BATS_TEST_TMPDIR sock=$BATS_TEST_TMPDIR/log.sock
	: >"$t/syslog"
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a") as log:
    while True:
        log.write(s.recv(4096).decode() + "\n")
        log.flush()
' "$sock" "$t/syslog" 3>&- &
	LISTENER=$!
	wait_for 10 test -S "$sock"
	mkcluster 1 "$t/one.conf" >/dev/null
	mkdir -p "$t/dev"
	# A /dev of its own in a mount namespace, its log our socket.
	unshare -m sh -c '
	    set -e
	    mount --make-rprivate /
	    mount -t tmpfs tmpfs "$1/dev"
	    for n in null zero urandom random; do
		touch "$1/dev/$n"; mount --bind "/dev/$n" "$1/dev/$n"
	    done
	    touch "$1/dev/log"; mount --bind "$2" "$1/dev/log"
	    mount --move "$1/dev" /dev
	    shift 2
	    exec "$@"' _ "$t" "$sock" \
	    "$ELECT_BUILD/bin/elect-node" -f "$t/one.conf" -i 1 --insecure \
	    --syslog -s "$t/state" 2>"$t/stderr" 3>&- &
	PIDS+=($!)
	wait_for 20 grep -Eq "elect-node\[[0-9]+\]: became-leader node=1 token=[0-9]+ " "$t/syslog"
	grep -Eq "elect-node\[[0-9]+\]: start node=1 " "$t/syslog"
	kill "${PIDS[0]}"
	wait_for 10 grep -Eq "elect-node\[[0-9]+\]: stop node=1 why=sigterm" "$t/syslog"
	! grep -q "became-leader\|start node=" "$t/stderr"
}

@test "logging: elect-trace collect logs a node's crash, -v its connections" {
	local t=$BATS_TEST_TMPDIR
	elect-trace collect -l "unix:$t/col.sock" -o "$t/out" -v \
	    2>"$t/col.err" 3>&- &
	PIDS+=($!)
	wait_for 10 test -S "$t/col.sock"
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"1700000000.5 4 boot inc=1 algo=lease nodes=3\n")
s.close()
' "$t/col.sock"
	wait_for 10 grep -q " 4 crash$" "$t/out"
	kill "${PIDS[0]}"
	wait_for 10 grep -q " elect-trace: stop " "$t/col.err"
	run untimed <"$t/col.err"
	assert_line "elect-trace: start listen=unix:$t/col.sock out=$t/out delay=0.000s"
	assert_line --regexp "^elect-trace: stream-open peer=pid:[0-9]+$"
	assert_line --regexp "^elect-trace: crash node=4 peer=pid:[0-9]+$"
	assert_line --regexp "^elect-trace: stream-end peer=pid:[0-9]+ lines=1 bad=0$"
}

@test "logging: a guarded command killed past its grace is logged and counted" {
	elect_start_cluster --insecure "${TIMING[@]}" "$C" -- 1 2
	elect_start 3 --metrics-file "$ELECT_DIR/m3.prom"
	assert_equal "$(elect_wait_leader 20)" 3
	# The command ignores SIGTERM, and so do its children.
	setsid elect-node -s "$ELECT_DIR/3/state" --run-if-leader --grace 50 \
	    -- sh -c 'trap "" TERM; : >"$0"; while :; do sleep 0.05; done' \
	    "$ELECT_DIR/started" 2>"$ELECT_DIR/guard.err" 3>&- &
	PIDS+=($!)
	wait_for 10 test -e "$ELECT_DIR/started"
	elect_stop 3
	run cat "$ELECT_DIR/guard.err"
	assert_output --partial "the node is leaving; stopping sh"
	logged 3 "^elect-node: task-stop node=3 why=leaving tasks=1$"
	logged 3 "^elect-node: task-killed node=3 why=grace$"
	run awk '$1 == "elect_tasks_killed_total" { print $2 }' \
	    "$ELECT_DIR/m3.prom"
	assert_output 1
	run awk '$1 == "elect_tasks_ended_total" { print $2 }' \
	    "$ELECT_DIR/m3.prom"
	assert_output 1
}

# Issue: with its collector gone, a node's status showed lost=14553 and
# nothing was logged or counted.  The trace here is a file on a full file
# system of the test's own (a trace is never opened through a link), which
# takes nothing until room is made and the node told by SIGHUP.
@test "logging: trace lines lost are logged when it begins and ends, with the count, and counted in the metrics; SIGHUP logs the trace reopened" {
	local n t
	[ "$(id -u)" = 0 ] || skip "needs root: a full file system of its own"
	FULL=$ELECT_DIR/full
	mkdir "$FULL"
	mount -t tmpfs -o size=64k tmpfs "$FULL"
	head -c 1M /dev/zero >"$FULL/fill" 2>/dev/null || true
	t=$FULL/trace
	elect_start_cluster --insecure "${TIMING[@]}" \
	    -t "$t" --metrics-file "$ELECT_DIR/m.prom" "$C" -- 1
	wait_for 10 logged 1 "^elect-node: trace-lost node=1 trace=$t$"
	wait_for 10 grep -Eq '^elect_trace_lost_total [1-9]' "$ELECT_DIR/m.prom"
	refute logged 1 "trace-resumed"
	rm "$FULL/fill"
	mount -o remount,size=16m "$FULL"
	kill -HUP "${ELECT_PID[1]}"
	wait_for 10 logged 1 "^elect-node: trace-reopened node=1 trace=$t$"
	wait_for 10 logged 1 "^elect-node: trace-resumed node=1 trace=$t lost=[1-9][0-9]*$"
	cp "$t" "$ELECT_DIR/trace.file"
	# the count logged is the one the trace says
	wait_for 10 eval 'cp "$t" "$ELECT_DIR/trace.file" && grep -q " 1 lost n=" "$ELECT_DIR/trace.file"'
	n=$(sed -nE 's/.*trace-resumed .* lost=([0-9]+)$/\1/p' \
	    "$ELECT_DIR/1/stderr")
	run awk '$3 == "lost" { sub(/n=/, "", $4); s += $4 } END { print s }' \
	    "$ELECT_DIR/trace.file"
	assert_output "$n"
	elect_stop_all
	run grep -c "trace-lost" "$ELECT_DIR/1/stderr"
	assert_output 1
	umount "$FULL"
	FULL=
}

# Issue: the shipped logrotate file signalled only systemd's units, so a
# node started otherwise wrote to ID.trace.1 until SIGHUP.  Its postrotate
# script runs here as logrotate runs it, on a directory of the test's.
@test "logging: the shipped logrotate file makes a node that systemd does not run reopen its trace, and it logs so" {
	local log=$ELECT_DIR/log n
	mkdir "$log"
	elect_start_cluster --insecure "${TIMING[@]}" -t "$log/1.trace" "$C" -- 1
	wait_for 10 test -s "$log/1.trace"
	awk '/postrotate/ { on = 1; next } /endscript/ { on = 0 } on' \
	    "$BATS_TEST_DIRNAME/../share/elect/elect.logrotate" |
	    sed "s|/var/log/elect|$log|g" > "$ELECT_DIR/postrotate"
	mv "$log/1.trace" "$log/1.trace.1"
	sh "$ELECT_DIR/postrotate"
	wait_for 10 logged 1 "^elect-node: trace-reopened node=1 trace=$log/1.trace$"
	wait_for 10 test -s "$log/1.trace"
	# nothing more goes to the old file once the new one has lines
	n=$(wc -c < "$log/1.trace.1")
	wait_for 10 sh -c "[ \$(wc -l < '$log/1.trace') -ge 5 ]"
	assert_equal "$(wc -c < "$log/1.trace.1")" "$n"
	elect_stop_all
}
