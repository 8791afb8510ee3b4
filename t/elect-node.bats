#!/usr/bin/env bats
# elect-node: flags, bad input, stable storage, the detector child, signals,
# datagrams.  A stub stands in for elect-fd where no failure is detected;
# t/elect-node-cluster.bats runs real clusters.

bats_require_minimum_version 1.5.0

load helper
load node

setup() {
	elect_setup
	C=$(mkcluster 3)
}

teardown() {
	elect_teardown
	# Processes a test started by hand, by pid.
	kill_own KILL "${BG[@]}"
}

BG=()

# A node of $C with the stub detector, started by the bats helper.
start_stub() {
	elect_start_cluster --insecure -a bully-fd --fd-cmd "$STUB/fd-stub" "$@" "$C" -- 1
}

@test "--help prints the usage, the timing defaults and the algorithms" {
	run elect-node --help
	assert_success
	assert_line --partial "usage: elect-node -f cluster -i id"
	assert_line --partial "--fd-timeout"
	assert_output --regexp "algorithms \(-a\):.* bully-fd"
	assert_output --partial "(default)"
}

@test "--version prints the version" {
	run elect-node --version
	assert_success
	assert_output --regexp "^elect-node [0-9]+\.[0-9]+"
}

@test "bad usage: exit 2 and a message naming the flag" {
	run elect-node
	assert_failure 2
	assert_output --partial "-f cluster and -i id are required"
	run elect-node -f "$C" -i 0 --insecure
	assert_failure 2
	assert_output --partial '-i: "0" is too small'
	run elect-node -f "$C" -i 1 --insecure --tau 5xs
	assert_failure 2
	assert_output --partial '--tau: "5xs" is not a duration'
	run elect-node -f "$C" -i 1 --insecure --reply -3
	assert_failure 2
	assert_output --partial '--reply: "-3" is not a duration'
	run elect-node -f "$C" -i 1 --insecure --fd-interval 50 --fd-timeout 50
	assert_failure 2
	assert_output --partial "--fd-timeout must exceed --fd-interval"
	run elect-node -f "$C" -i 1 --insecure -a paxos
	assert_failure 2
	assert_output --partial 'unknown algorithm "paxos"'
	run elect-node -f "$C" -i 1
	assert_failure 2
	assert_output --partial "give -k keyfile, or --insecure"
	run elect-node -f "$C" -i 1 --insecure -k "$C"
	assert_failure 2
	assert_output --partial "exclude each other"
	run elect-node -f "$C" -i 1 --insecure stray
	assert_failure 2
	assert_output --partial 'unexpected argument "stray"'
	run elect-node --no-such-flag
	assert_failure 2
	assert_output --partial "usage:"
	run elect-node --status
	assert_failure 2
	assert_output --partial "--status needs -s statedir or -i id"
}

@test "a timing the core refuses is named" {
	run elect-node -f "$C" -i 1 --insecure -a bully -s "$ELECT_DIR/s" \
	    --fd-cmd "$STUB/fd-stub" --check 0
	assert_failure 2
	assert_output --partial "check"
}

@test "bad cluster files: exit 2 naming the file and line" {
	run elect-node -f "$ELECT_DIR/none.conf" -i 1 --insecure
	assert_failure 2
	assert_output --partial "none.conf"
	printf 'node 1 127.0.0.1:7000\nnode 2 127.0.0.1\n' >"$ELECT_DIR/bad.conf"
	run elect-node -f "$ELECT_DIR/bad.conf" -i 1 --insecure
	assert_failure 2
	assert_output --partial "bad.conf:2:"
	printf 'node 1 127.0.0.1:7000\nnode 1 127.0.0.1:7002\n' \
	    >"$ELECT_DIR/dup.conf"
	run elect-node -f "$ELECT_DIR/dup.conf" -i 1 --insecure
	assert_failure 2
	assert_output --partial "dup.conf:2:"
	printf 'nodes 1 127.0.0.1:7000\n' >"$ELECT_DIR/word.conf"
	run elect-node -f "$ELECT_DIR/word.conf" -i 1 --insecure
	assert_failure 2
	assert_output --partial "word.conf:1:"
}

@test "an id missing from the cluster is refused" {
	run elect-node -f "$C" -i 9 --insecure -s "$ELECT_DIR/s"
	assert_failure 2
	assert_output --partial "no node 9 in this cluster"
	[ ! -e "$ELECT_DIR/s" ]
}

@test "a cluster file of a later epoch needs lease; epoch 0 is as none" {
	{ echo 'epoch 3'; cat "$C"; } >"$ELECT_DIR/e3.conf"
	run elect-node -f "$ELECT_DIR/e3.conf" -i 1 -a bully --insecure -s "$ELECT_DIR/s"
	assert_failure 2
	assert_output --partial "e3.conf:1: epoch 3: only -a lease changes epochs"
	[ ! -e "$ELECT_DIR/s" ]
	{ cat "$C"; echo 'epoch 0'; } >"$ELECT_DIR/e0.conf"
	run elect-node -f "$ELECT_DIR/e0.conf" -i 9 --insecure -s "$ELECT_DIR/s"
	assert_failure 2
	assert_output --partial "no node 9 in this cluster"
}

@test "a port in use is refused, naming the node and address" {
	start_stub
	run elect-node -f "$C" -i 1 --insecure -s "$ELECT_DIR/other" \
	    --fd-cmd "$STUB/fd-stub"
	assert_failure 2
	assert_output --partial "node 1 at 127.0.0.1:$(port 1)"
	assert_output --partial "in use"
}

@test "a detector port in use is refused before the start, with exit 2, naming the port" {
	local fdport=$(($(port 1) + 1))
	# Held by another process for as long as the test needs it.
	timeout 30 python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
open(sys.argv[2], "w").close()
time.sleep(30)' "$fdport" "$ELECT_DIR/held" 3>&- &
	local p=$!
	wait_for 10 test -e "$ELECT_DIR/held" || { kill "$p"; false; }
	run timeout 10 elect-node -f "$C" -i 1 --insecure -s "$ELECT_DIR/fdport"
	kill "$p"
	wait "$p" || true
	assert_failure 2
	assert_output --partial "node 1's detector at 127.0.0.1:$fdport: Address already in use"
	refute_output --partial "start node=1"
}

@test "files: an all-zero key and a FIFO as the key are refused at once; another user's state directory, and a link as the trace, too" {
	head -c 32 /dev/zero >"$ELECT_DIR/zero.key"
	chmod 600 "$ELECT_DIR/zero.key"
	run timeout 10 elect-node -f "$C" -i 1 -k "$ELECT_DIR/zero.key" -s "$ELECT_DIR/s"
	assert_failure 2
	assert_output --partial "zero.key: key 1 is all zeros"
	mkfifo -m 600 "$ELECT_DIR/fifo.key"
	run timeout 10 elect-node -f "$C" -i 1 -k "$ELECT_DIR/fifo.key" -s "$ELECT_DIR/s"
	assert_failure 2
	assert_output --partial "fifo.key: not a regular file"
	# A link as the trace file: not followed, whatever it points at.
	echo keep >"$ELECT_DIR/victim"
	ln -s "$ELECT_DIR/victim" "$ELECT_DIR/trace.link"
	run timeout 10 elect-node -f "$C" -i 1 --insecure -s "$ELECT_DIR/s" \
	    -t "$ELECT_DIR/trace.link"
	assert_failure 2
	assert_equal "$(cat "$ELECT_DIR/victim")" keep
	[ "$(id -u)" = 0 ] || skip "chown needs root"
	mkdir -m 700 "$ELECT_DIR/theirs"
	chown nobody "$ELECT_DIR/theirs"
	run timeout 10 elect-node -f "$C" -i 1 --insecure -s "$ELECT_DIR/theirs"
	assert_failure 2
	assert_output --partial "theirs: Operation not permitted"
	run ls -A "$ELECT_DIR/theirs"
	assert_output ""
}

@test "directories above the state, trace and metrics files: owned by root or the user, writable by no one else" {
	local d=$ELECT_DIR/up
	mkdir -p "$d/g" "$d/o" "$d/sticky"
	chmod 770 "$d/g"
	chmod 707 "$d/o"
	chmod 1777 "$d/sticky"
	run -2 timeout 10 elect-node -f "$C" -i 1 --insecure -s "$d/g/s"
	assert_line "elect-node: -s $d/g/s: $d/g: writable by its group (mode 0770): who may write there may put another file in place of ours"
	[ ! -e "$d/g/s/pid" ] && [ ! -e "$d/g/s/incarnation" ]
	run -2 timeout 10 elect-node -f "$C" -i 1 --insecure -s "$d/o/a/s"
	assert_output --partial "elect-node: -s $d/o/a/s: $d/o: writable by others (mode 0707)"
	run -2 timeout 10 elect-node -f "$C" -i 1 --insecure -s "$d/s" \
	    -t "$d/g/trace"
	assert_output --partial "elect-node: -t $d/g/trace: $d/g: writable by its group"
	run -2 timeout 10 elect-node -f "$C" -i 1 --insecure -s "$d/s" \
	    --metrics-file "$d/o/m.prom"
	assert_output --partial "elect-node: --metrics-file $d/o/m.prom: $d/o: writable by others"
	# a link resolved: the directories the kernel walks are checked
	ln -s "$d/g" "$d/link"
	run -2 timeout 10 elect-node -f "$C" -i 1 --insecure -s "$d/link/s"
	assert_output --partial ": $d/g: writable by its group"
	[ ! -e "$d/g/trace" ] && [ ! -e "$d/o/m.prom" ]
	# A sticky directory of another than root, or another user's: refused.
	[ "$(id -u)" = 0 ] || skip "chown needs root"
	chown nobody "$d/sticky"
	run -2 timeout 10 elect-node -f "$C" -i 1 --insecure -s "$d/sticky/s"
	assert_output --partial "$d/sticky: owned by uid $(id -u nobody), not by root or uid 0"
	chown root "$d/sticky"
	mkdir -m 755 "$d/theirs"
	chown nobody "$d/theirs"
	run -2 timeout 10 elect-node -f "$C" -i 1 --insecure -s "$d/s" \
	    -t "$d/theirs/trace"
	assert_output --partial "elect-node: -t $d/theirs/trace: $d/theirs: owned by uid"
	# root's sticky /tmp, as its own: taken
	elect-node -f "$C" -i 1 --insecure -a bully-fd \
	    --fd-cmd "$STUB/fd-stub" -s "$d/sticky/s" 2>"$d/err" &
	BG+=($!)
	wait_for 10 test -S "$d/sticky/s/control" || fail "$(cat "$d/err")"
	kill_own TERM "${BG[-1]}"
	wait "${BG[-1]}"
}

@test "bad key files: missing, short, long, loose, another user's" {
	run elect-node -f "$C" -i 1 -k "$ELECT_DIR/nokey" -s "$ELECT_DIR/s"
	assert_failure 2
	assert_output --partial "nokey"
	head -c 31 /dev/urandom >"$ELECT_DIR/short.key"
	chmod 600 "$ELECT_DIR/short.key"
	run elect-node -f "$C" -i 1 -k "$ELECT_DIR/short.key" -s "$ELECT_DIR/s"
	assert_failure 2
	assert_output --partial "short.key"
	head -c 33 /dev/urandom >"$ELECT_DIR/long.key"
	chmod 600 "$ELECT_DIR/long.key"
	run elect-node -f "$C" -i 1 -k "$ELECT_DIR/long.key" -s "$ELECT_DIR/s"
	assert_failure 2
	assert_output --partial "long.key"
	head -c 32 /dev/urandom >"$ELECT_DIR/loose.key"
	chmod 640 "$ELECT_DIR/loose.key"
	run elect-node -f "$C" -i 1 -k "$ELECT_DIR/loose.key" -s "$ELECT_DIR/s"
	assert_failure 2
	assert_output --partial "loose.key: mode 640 lets group or others at the key; refused"
	chmod 600 "$ELECT_DIR/loose.key"
	[ "$(id -u)" = 0 ] || skip "chown needs root"
	chown nobody "$ELECT_DIR/loose.key"
	run elect-node -f "$C" -i 1 -k "$ELECT_DIR/loose.key" -s "$ELECT_DIR/s"
	assert_failure 2
	assert_output --partial "loose.key: owned by uid"
}

@test "--insecure says so" {
	start_stub
	run cat "$ELECT_DIR/1/stderr"
	assert_output --partial "warning: --insecure"
}

@test "the state directory: 0700, incarnation up at every start, pid file" {
	start_stub
	d=$ELECT_DIR/1/state
	[ "$(stat -c %a "$d")" = 700 ]
	[ "$(stat -c %a "$d/control")" = 600 ]
	[ "$(cat "$d/incarnation")" = 1 ]
	[ "$(cat "$d/pid")" = "${ELECT_PID[1]}" ]
	elect_restart 1
	[ "$(cat "$d/incarnation")" = 2 ]
	elect_stop 1
	[ ! -e "$d/pid" ]
	[ ! -e "$d/control" ]
	elect_start 1
	[ "$(cat "$d/incarnation")" = 3 ]
	run elect_status 1
	assert_output --partial "incarnation=3"
	run grep -c " boot inc=" "$ELECT_DIR/1/trace"
	assert_output 3
	grep -q " boot inc=3 algo=bully-fd nodes=3" "$ELECT_DIR/1/trace"
}

@test "a loose state directory is tightened to 0700" {
	mkdir -m 755 "$ELECT_DIR/1"
	mkdir -m 755 "$ELECT_DIR/1/state"
	start_stub
	[ "$(stat -c %a "$ELECT_DIR/1/state")" = 700 ]
}

@test "a damaged incarnation file stops the node" {
	mkdir -p "$ELECT_DIR/s"
	echo "seven" >"$ELECT_DIR/s/incarnation"
	run elect-node -f "$C" -i 1 --insecure -s "$ELECT_DIR/s" \
	    --fd-cmd "$STUB/fd-stub"
	assert_failure 2
	assert_output --partial "$ELECT_DIR/s/incarnation"
	printf '0\n' >"$ELECT_DIR/s/incarnation"
	run elect-node -f "$C" -i 1 --insecure -s "$ELECT_DIR/s" \
	    --fd-cmd "$STUB/fd-stub"
	assert_failure 2
	printf '12' >"$ELECT_DIR/s/incarnation"
	run elect-node -f "$C" -i 1 --insecure -s "$ELECT_DIR/s" \
	    --fd-cmd "$STUB/fd-stub"
	assert_failure 2
}

@test "two nodes on one state directory: the second refuses" {
	start_stub
	run elect-node -f "$C" -i 1 --insecure -s "$ELECT_DIR/1/state" \
	    --fd-cmd "$STUB/fd-stub"
	assert_failure 2
	assert_output --partial "already runs here (pid ${ELECT_PID[1]})"
	run elect_status 1
	assert_output --partial "id=1"
}

@test "--status without a daemon: exit 3 and a message" {
	run elect-node -s "$ELECT_DIR/nowhere" --status
	assert_failure 3
	assert_output --partial "$ELECT_DIR/nowhere/control"
	run elect-node -i 65000 --status
	assert_failure 3
	assert_output --partial "65000/control"
}

@test "--status: one line of fields; exit 0 for the leader, 4 with none" {
	start_stub
	# Alone with a detector that reports nothing, node 1 waits for the
	# higher nodes: no leader known.
	run elect_status 1
	assert_failure 4
	assert_output --regexp "^id=1 algo=bully-fd status=[A-Za-z0-9]+ leader=[-0-9]+ group=[^ ]+ incarnation=1 secs=[0-9]+\.[0-9]{3} role=[a-z]+ drops=0 lost=0 tasks=0 waiting=0"
	printf 'node 1 127.0.0.1:%d\n' "$(freeport -w 2)" >"$ELECT_DIR/one.conf"
	elect-node -f "$ELECT_DIR/one.conf" -i 1 --insecure -s "$ELECT_DIR/o" \
	    -a bully-fd --fd-cmd "$STUB/fd-stub" 2>/dev/null 3>&- &
	pid=$!
	BG+=("$pid")
	ok() { elect-node -s "$ELECT_DIR/o" --status; }
	wait_for 5 ok || { kill "$pid"; false; }
	run elect-node -s "$ELECT_DIR/o" --status
	kill "$pid"
	wait "$pid"
	assert_success
	assert_output --partial "status=Norm leader=1"
	assert_output --partial "role=leader"
}

@test "the detector gets the cluster, id, key and timing" {
	export FD_STUB_LOG=$ELECT_DIR/fd.log
	head -c 32 /dev/urandom >"$ELECT_DIR/k"
	chmod 600 "$ELECT_DIR/k"
	elect_start_cluster -k "$ELECT_DIR/k" -a bully-fd --fd-cmd "$STUB/fd-stub" \
	    --fd-interval 7 --fd-timeout 31 "$C" -- 2
	wait_for 5 grep -q "^start 3$" "$FD_STUB_LOG"
	run head -n 1 "$FD_STUB_LOG"
	assert_output --regexp "^args -f $C -i 2 -k $ELECT_DIR/k --interval 7 --timeout 31 --incarnation 1 -q --digest [0-9a-f]{48}$"
	trace_has "$ELECT_DIR/2/trace" " fd op=start peer=3$"
}

@test "elect-fd is looked for next to elect-node" {
	run elect-node -f "$C" -i 1 --insecure -s "$ELECT_DIR/s" --fd-cmd \
	    "$ELECT_DIR/no-such-fd"
	assert_failure 2
	assert_output --partial "no-such-fd"
	mkdir "$ELECT_DIR/bin"
	cp "$(command -v elect-node)" "$ELECT_DIR/bin/"
	run "$ELECT_DIR/bin/elect-node" -f "$C" -i 1 --insecure \
	    -s "$ELECT_DIR/s"
	assert_failure 2
	assert_output --partial "$ELECT_DIR/bin/elect-fd"
}

@test "if the detector dies the node says so and stops: exit 1" {
	run elect-node -f "$C" -i 1 --insecure -s "$ELECT_DIR/s" \
	    -t "$ELECT_DIR/t" --fd-cmd "$STUB/fd-crash"
	assert_failure 1
	assert_output --partial "fd-crash exited with status 3; stopping"
	run tail -n 1 "$ELECT_DIR/t"
	assert_output --regexp " 1 exit why=fd$"
	[ ! -e "$ELECT_DIR/s/pid" ]
}

@test "a detector's odd lines are reported and ignored; down is acted on if monitored" {
	elect_start_cluster --insecure -a bully-fd --fd-cmd "$STUB/fd-chatty" "$C" -- 3
	# Its first command is start 2 (node 3 halts 2 first); 1 is not
	# monitored yet, and a DownSig for it is none (Stop_FD, Start_FD).
	wait_for 5 trace_has "$ELECT_DIR/3/trace" " fd op=down peer=2$"
	run grep -c " fd op=down peer=1$" "$ELECT_DIR/3/trace"
	assert_output 0
	run cat "$ELECT_DIR/3/stderr"
	assert_output --partial 'unexpected line "hello there"'
	assert_output --partial 'unexpected line "down 0"'
	assert_output --partial 'unexpected line "down 99999"'
	run elect_status 3
	assert_output --partial "id=3"
}

@test "SIGTERM: the node leaves, traces exit, and its detector ends" {
	start_stub
	fdpid=$(cat "/proc/${ELECT_PID[1]}/task/${ELECT_PID[1]}/children")
	[ -n "$fdpid" ]
	elect_stop 1
	run tail -n 1 "$ELECT_DIR/1/trace"
	assert_output --regexp " 1 exit why=sigterm$"
	# Its exit ends its up time; no Down status it would seem to stay in.
	run grep -c ' state status=Down ' "$ELECT_DIR/1/trace"
	assert_output 0
	wait_for 5 eval '! kill -0 '"$fdpid"' 2>/dev/null'
}

@test "SIGKILL: the detector follows its node" {
	start_stub
	fdpid=$(cat "/proc/${ELECT_PID[1]}/task/${ELECT_PID[1]}/children")
	[ -n "$fdpid" ]
	kill -KILL "${ELECT_PID[1]}"
	wait_for 5 eval '! kill -0 '"$fdpid"' 2>/dev/null'
}

@test "SIGHUP reopens the trace file" {
	start_stub
	mv "$ELECT_DIR/1/trace" "$ELECT_DIR/1/trace.old"
	kill -HUP "${ELECT_PID[1]}"
	wait_for 5 test -e "$ELECT_DIR/1/trace"
	elect_stop 1
	trace_has "$ELECT_DIR/1/trace" " exit why=sigterm$"
	trace_has "$ELECT_DIR/1/trace.old" " boot inc=1"
}

@test "garbage datagrams are dropped, counted and traced" {
	start_stub
	p=$(port 1)
	printf 'hello' >/dev/udp/127.0.0.1/"$p"
	head -c 200 /dev/zero >/dev/udp/127.0.0.1/"$p"
	head -c 1300 /dev/urandom >/dev/udp/127.0.0.1/"$p"
	# A well-formed envelope of elect-fd's protocol on the node's port.
	printf 'ELFD\001\001\000\000\000\002\000\001' >/dev/udp/127.0.0.1/"$p"
	wait_for 5 eval 'elect_status 1 | grep -q " drops=4 "'
	t=$ELECT_DIR/1/trace
	# Summaries come once a second.
	wait_for 5 trace_has "$t" " drop from=- why=truncated n="
	wait_for 5 trace_has "$t" " drop from=- why=oversized n="
	wait_for 5 eval '[ "$(awk '"'"'$3 == "drop" { sub("n=", "", $6);
	    n += $6 } END { print n }'"'"' "$t")" = 4 ]'
	run grep -c " recv " "$t"
	assert_output 0
}

@test "-t unix:PATH writes to a collector, and exit reaches it" {
	elect-trace collect -l "unix:$ELECT_DIR/c.sock" -o "$ELECT_DIR/all" \
	    2>"$ELECT_DIR/collect.err" 3>&- &
	cpid=$!
	BG+=("$cpid")
	wait_for 5 test -S "$ELECT_DIR/c.sock"
	elect-node -f "$C" -i 1 --insecure -s "$ELECT_DIR/s" -a bully-fd \
	    -t "unix:$ELECT_DIR/c.sock" --fd-cmd "$STUB/fd-stub" 2>/dev/null \
	    3>&- &
	npid=$!
	BG+=("$npid")
	wait_for 5 trace_has "$ELECT_DIR/all" " 1 boot inc=1 algo=bully-fd"
	kill -TERM "$npid"
	wait "$npid"
	wait_for 5 trace_has "$ELECT_DIR/all" " 1 exit why=sigterm$"
	kill -TERM "$cpid"
	wait "$cpid" || true
	run grep -c " crash" "$ELECT_DIR/all"
	assert_output 0
}

@test "Ctrl-C (SIGINT to the node's process group): a clean leave, exit 0" {
	setsid elect-node -f "$C" -i 1 --insecure -s "$ELECT_DIR/s" \
	    -t "$ELECT_DIR/t" 2>"$ELECT_DIR/err" 3>&- &
	pid=$!
	BG+=("$pid")
	wait_for 5 trace_has "$ELECT_DIR/t" " fd op=start "
	kill -INT -- "-$pid"
	rc=0
	wait "$pid" || rc=$?
	assert_equal "$rc" 0
	run tail -n 1 "$ELECT_DIR/t"
	assert_output --regexp " 1 exit why=sigint$"
	run cat "$ELECT_DIR/err"
	refute_output --partial "stopping"
}

@test "a flag the mode does not use is refused, naming it and the mode" {
	run elect-node -i 3 --status -a bully --lease 5s -f /nonexistent
	assert_failure 2
	assert_output "elect-node: --status does not use -a (a flag of the daemon)"
	run elect-node -i 3 --run-if-leader --wait --timeout 2s -- true
	assert_failure 2
	assert_output --partial "--run-if-leader does not use --timeout"
	run elect-node -i 3 --follow-edicts --insecure
	assert_failure 2
	assert_output --partial "--follow-edicts does not use --insecure"
	run elect-node -i 3 --status -t "$BATS_TEST_TMPDIR/t"
	assert_failure 2
	assert_output --partial "--status does not use -t"
	run elect-node -i 3 --status --edict hello
	assert_failure 2
	assert_output --partial "--status and --edict exclude each other"
	run elect-node -f "$C" -i 1 --insecure --wait
	assert_failure 2
	assert_output --partial "--wait goes with --run-if-leader"
	run elect-node -f "$C" -i 1 --insecure -E 4
	assert_failure 2
	assert_output --partial "-E goes with --run-if-leader"
	# Options every mode takes, given twice, are still fine.
	run elect-node -i 3 -i 3 -s "$BATS_TEST_TMPDIR/none" --status
	assert_failure 3
}
