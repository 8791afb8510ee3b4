#!/usr/bin/env bats
# elect-node's control socket: the line protocol and its edge cases.

load helper
load node

setup() {
	elect_setup
	C=$(mkcluster 2)
	elect_start_cluster --insecure -a bully-fd --fd-cmd "$STUB/fd-stub" "$C" -- 1
	SOCK=$ELECT_DIR/1/state/control
	PIDS=()
}

teardown() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	elect_teardown
}

HELP="ok version=1 commands=help,status,names,wait-leader,lease,edict,follow-edicts,task,killed,reconfigure-part,reconfigure"

ask() {
	printf "$@" | ctl-send "$SOCK"
}

@test "status answers ok and the fields --status prints" {
	run ask 'elect 1 status\n'
	assert_success
	assert_output --regexp "^ok id=1 algo=bully-fd status=[A-Za-z0-9]+ leader="
	status_line=$(elect_status 1 || true)
	[ "${output#ok }" != "$output" ]
	[[ "$status_line" == "id=1 algo=bully-fd "* ]]
}

@test "help lists the version and the commands" {
	run ask 'elect 1 help\n'
	assert_output "$HELP"
}

@test "several requests on one connection are answered in order" {
	run ask 'elect 1 help\nelect 1 status\nelect 1 nope\nelect 1 help\n'
	assert_equal "${#lines[@]}" 4
	assert_equal "${lines[0]}" "$HELP"
	[[ "${lines[1]}" == "ok id=1 "* ]]
	assert_equal "${lines[2]}" "err unknown command nope"
	assert_equal "${lines[3]}" "$HELP"
}

@test "killed: only from a guarded command's own connection" {
	run ask 'elect 1 killed grace\n'
	assert_output "err killed is for a guarded command's connection"
}

@test "blanks: runs of spaces and tabs separate fields" {
	run ask '  elect \t 1   help \t \n'
	assert_output "$HELP"
}

@test "bad lines get err with the reason, and the connection goes on" {
	run ask 'elect 2 status\nelect 01 status\nelect x status\nhello 1 status\nelect 1\nelect 1 Status\nelect 1 status now\n\nelect 1 help\nelect 1 status name=a/b\nelect 1 lease now\nelect 1 status name=x now\n'
	assert_equal "${lines[0]}" "err version 2 not spoken, only 1"
	assert_equal "${lines[1]}" "err bad version"
	assert_equal "${lines[2]}" "err bad version"
	assert_equal "${lines[3]}" "err not an elect control line"
	assert_equal "${lines[4]}" "err missing command"
	assert_equal "${lines[5]}" "err bad command word"
	assert_equal "${lines[6]}" "err status takes no argument but name=NAME"
	assert_equal "${lines[7]}" "err not an elect control line"
	assert_equal "${lines[8]}" "$HELP"
	assert_equal "${lines[9]%%:*}" "err bad name"
	assert_equal "${lines[10]}" "err lease takes no argument but name=NAME"
	assert_equal "${lines[11]}" "err status takes 1 argument"
}

@test "control characters are refused" {
	run ask 'elect 1 status\r\nelect 1 he\001lp\nelect 1 help\x7f\n'
	assert_equal "${lines[0]}" "err control character in line"
	assert_equal "${lines[1]}" "err control character in line"
	assert_equal "${lines[2]}" "err control character in line"
}

@test "a NUL byte is refused" {
	run ask 'elect 1 he\000lp\n'
	assert_output "err control character in line"
}

@test "too many arguments are refused" {
	run ask 'elect 1 status a b c d e f g h i j k l m n o p q\n'
	assert_output "err too many arguments"
}

@test "a line without its newline is answered at end of input" {
	run ask 'elect 1 help'
	assert_output "err line without a newline"
}

@test "an overlong line ends the connection; the node goes on" {
	long=$(head -c 2000 /dev/zero | tr '\0' a)
	run ask "elect 1 help $long\n"
	assert_output "err line too long"
	run ask 'elect 1 help\n'
	assert_output "$HELP"
	run ask "elect 1 help $(head -c 1010 /dev/zero | tr '\0' a)\n"
	assert_output "err help takes 0 arguments"
}

@test "binary garbage never crashes the node" {
	for i in 1 2 3 4 5; do
		head -c 3000 /dev/urandom | ctl-send "$SOCK" >/dev/null
	done
	run ask 'elect 1 help\n'
	assert_output "$HELP"
}

@test "a client that does not read its replies is let go" {
	# 20000 requests and no reading: the node must not block or grow.
	yes 'elect 1 status' | head -n 20000 >"$ELECT_DIR/flood"
	python3 - "$SOCK" "$ELECT_DIR/flood" <<-'EOF' &
	import socket, sys, time
	s = socket.socket(socket.AF_UNIX)
	s.connect(sys.argv[1])
	s.setblocking(False)
	data = open(sys.argv[2], 'rb').read()
	try:
	    s.sendall(data)
	except BlockingIOError:
	    pass
	time.sleep(3)
	EOF
	flood=$!
	sleep 0.5
	run ask 'elect 1 help\n'
	assert_output "$HELP"
	kill "$flood" 2>/dev/null || true
	wait "$flood" || true
}

IDLE=$BATS_TEST_DIRNAME/tools/ctl-idle.py

# idle MODE N: ctl-idle.py's clients in the background, until all are
# open; their report goes to $BATS_TEST_TMPDIR/idle.out.
idle() {
	rm -f "$BATS_TEST_TMPDIR/ready"
	python3 "$IDLE" "$SOCK" "$1" "$2" "$BATS_TEST_TMPDIR/ready" \
	    >"$BATS_TEST_TMPDIR/idle.out" 3>&- &
	IDLE_PID=$!
	wait_for 60 test -e "$BATS_TEST_TMPDIR/ready"
}

idle_done() {
	wait "$IDLE_PID"
}

# A status must come back, not "no daemon answers" (3), nor a SIGPIPE.
status_answers() {
	run timeout 10 elect-node -s "$ELECT_DIR/1/state" --status
	[[ "$output" == "id=1 "* ]] || fail "no status: $status $output"
}

@test "more clients than slots: the extra one hears busy, idle ones are dropped" {
	# Sixteen slots and one per name: the eighteenth finds none.
	elect_teardown
	elect_setup
	elect_start_cluster --insecure -a bully-fd --fd-cmd "$STUB/fd-stub" \
	    --names-max 1 "$C" -- 1
	run python3 -c 'import socket, sys
ss = []
for i in range(18):
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); ss.append(s)
ss[17].settimeout(5)
print(ss[17].recv(100).decode().strip())
ss[0].settimeout(5)
print(repr(ss[0].recv(100)))' "$SOCK"
	assert_line --index 0 "err busy"
	# The first, idle, is let go within a second or so.
	assert_line --index 1 "b''"
	run ask 'elect 1 help\n'
	assert_output "$HELP"
}

@test "1000 idle connections: each is let go, and --status still answers" {
	idle idle 1000
	status_answers
	status_answers
	idle_done
	run grep -c '^closed ' "$BATS_TEST_TMPDIR/idle.out"
	assert_output 1000
	# Those that had a slot held it for about CONTROL_IDLE_MS, no more.
	run awk '$1 == "closed" && $2 > 10 { n++ } END { print n + 0 }' \
	    "$BATS_TEST_TMPDIR/idle.out"
	assert_output 0
}

@test "a slow-loris client, a byte a second, is let go before its line ends" {
	idle loris 12
	status_answers
	idle_done
	run grep -c '^closed ' "$BATS_TEST_TMPDIR/idle.out"
	assert_output 12
	# Dropped after a byte or three of its fifteen, never answered.
	run awk '$1 == "closed" && ($3 > 4 || $4 != "-") { n++ }
	    END { print n + 0 }' "$BATS_TEST_TMPDIR/idle.out"
	assert_output 0
}

@test "clients that wait on purpose stay, but leave slots for --status" {
	CTL_IDLE_HOLD=3 idle wait 14
	status_answers
	run ask 'elect 1 wait-leader\n'
	assert_output "err busy (12 clients wait)"
	idle_done
	# Twelve still wait after 3 s; two were told busy.
	run grep -c '^open$' "$BATS_TEST_TMPDIR/idle.out"
	assert_output 12
	run grep -c ' err busy (12 clients wait)$' "$BATS_TEST_TMPDIR/idle.out"
	assert_output 2
}

@test "--status never dies of SIGPIPE: a daemon that hangs up gives 3" {
	local d=$BATS_TEST_TMPDIR/fake i st
	mkdir -p "$d"
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(64)
while True:
    c, _ = s.accept(); c.close()' "$d/control" 3>&- &
	PIDS+=($!)
	wait_for 10 test -S "$d/control"
	for i in $(seq 100); do
		st=0
		elect-node -s "$d" --status 2>/dev/null || st=$?
		[ "$st" = 3 ] || fail "status $st at try $i"
	done
}

@test "wait-leader: err timeout when the node does not come to lead" {
	run ask 'elect 1 wait-leader 300\nelect 1 help\n'
	assert_equal "${lines[0]}" "err timeout"
	assert_equal "${lines[1]}" "$HELP"
}

@test "wait-leader: a bad wait is refused" {
	run ask 'elect 1 wait-leader 0\nelect 1 wait-leader x\nelect 1 wait-leader 1 2\n'
	assert_equal "${lines[0]}" "err wait is too small (1 to 86400000 ms)"
	assert_equal "${lines[1]}" "err wait is invalid (1 to 86400000 ms)"
	assert_equal "${lines[2]}" "err wait-leader takes 1 argument"
}

@test "wait-leader: answered with the status once the node leads" {
	elect_teardown
	elect_setup
	export FD_STUB_DOWN=2 FD_STUB_DELAY=1
	elect_start_cluster --insecure -a bully-fd --fd-cmd "$STUB/fd-stub" "$C" -- 1
	run ask 'elect 1 wait-leader\nelect 1 status\n'
	[[ "${lines[0]}" == "ok id=1 "*" role=leader "* ]]
	[[ "${lines[1]}" == "ok id=1 "*" role=leader "* ]]
	run ask 'elect 1 wait-leader 10\n'
	[[ "$output" == "ok id=1 "*" role=leader "* ]]
}

@test "--status: root's own flood of 40 reconnecting clients on busy cores; every answer is the role's, never no daemon nor busy" {
	local flood=$BATS_TEST_DIRNAME/tools/ctl-flood.py i rc t0 t1 ms
	local worst=0 role want
	elect_teardown
	elect_setup "$BATS_TEST_TMPDIR/lease"
	SOCK=$ELECT_DIR/1/state/control
	C=$(mkcluster 1 "$BATS_TEST_TMPDIR/lease.conf")
	elect_start_cluster --insecure --lease 1s --renew 200 --rtt 50 \
	    --fd-interval 50 --fd-timeout 1000 "$C"
	assert_equal "$(elect_wait_leader 20)" 1
	# Both cores busy, as a loaded host's are.
	sh -c 'while :; do :; done' 3>&- &
	PIDS+=($!)
	sh -c 'while :; do :; done' 3>&- &
	PIDS+=($!)
	python3 "$flood" "$SOCK" 40 60 "$BATS_TEST_TMPDIR/ready" mix \
	    >"$BATS_TEST_TMPDIR/flood" 3>&- &
	PIDS+=($!)
	wait_for 20 test -e "$BATS_TEST_TMPDIR/ready"
	for i in $(seq 20); do
		rc=0
		t0=$EPOCHREALTIME
		elect-node -s "$ELECT_DIR/1/state" --status \
		    >"$BATS_TEST_TMPDIR/st" 2>&1 || rc=$?
		t1=$EPOCHREALTIME
		ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
		[ "$ms" -le "$worst" ] || worst=$ms
		# The client waits two seconds for its answer (elect-node(1)):
		# a process that ran longer was stuck before it asked.
		[ "$ms" -lt 3000 ] || fail "try $i: ${ms} ms: $(cat "$BATS_TEST_TMPDIR/st")"
		role=$(grep -o ' role=[a-z]*' "$BATS_TEST_TMPDIR/st") ||
		    fail "try $i: exit $rc, no status: $(cat "$BATS_TEST_TMPDIR/st")"
		case $role in
		" role=leader") want=0 ;;
		" role=follower") want=1 ;;
		*) want=4 ;;
		esac
		[ "$rc" = "$want" ] || fail "try $i: exit $rc for$role"
	done
	echo "# --status under the flood: worst ${worst} ms of 20" >&3
}

# fake_busy DIR REPLY: a daemon on DIR/control that answers every
# request with REPLY, as one with no slot for it does.
fake_busy() {
	mkdir -p "$1"
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(64)
end = time.monotonic() + 30
while time.monotonic() < end:
    s.settimeout(end - time.monotonic())
    try:
        c = s.accept()[0]
    except OSError:
        break
    c.settimeout(1)
    try:
        c.recv(1000); c.send(sys.argv[2].encode() + b"\n")
    except OSError:
        pass
    c.close()' "$1/control" "$2" 3>&- &
	PIDS+=($!)
	wait_for 10 test -S "$1/control"
}

@test "--edict, --follow-edicts, --reconfigure: a daemon that says busy is busy (6), not gone" {
	local d=$BATS_TEST_TMPDIR/fake w=$BATS_TEST_TMPDIR/waiters
	local f=$BATS_TEST_TMPDIR/next.conf
	fake_busy "$d" "err busy"
	fake_busy "$w" "err busy (12 clients wait)"
	printf 'epoch 2\nnode 1 127.0.0.1:7000\nnode 2 127.0.0.1:7002\n' >"$f"
	run elect-node -s "$d" --edict hello
	assert_failure 6
	assert_output --partial "busy: every slot"
	run elect-node -s "$d" --follow-edicts
	assert_failure 6
	assert_output --partial "$d/control: busy"
	run elect-node -s "$w" --follow-edicts
	assert_failure 6
	assert_output --partial "$w/control: busy (12 clients wait)"
	run elect-node -s "$d" --reconfigure "$f"
	assert_failure 6
	assert_output --partial "$d/control: busy"
}

@test "--status: a daemon that said busy and then holds the last try past its time is busy (6), not gone" {
	local d=$BATS_TEST_TMPDIR/fake rc=0
	mkdir -p "$d"
	# The first connection hears busy; the next ones are held unanswered.
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(64)
c, _ = s.accept(); c.send(b"err busy\n"); c.close()
held = []
end = time.monotonic() + 10
while time.monotonic() < end:
    s.settimeout(end - time.monotonic())
    try:
        held.append(s.accept()[0])
    except OSError:
        break' "$d/control" 3>&- &
	PIDS+=($!)
	wait_for 10 test -S "$d/control"
	elect-node -s "$d" --status >"$BATS_TEST_TMPDIR/st" 2>&1 || rc=$?
	run cat "$BATS_TEST_TMPDIR/st"
	assert_output --partial "busy"
	assert_equal "$rc" 6
}
