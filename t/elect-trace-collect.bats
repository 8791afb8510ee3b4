#!/usr/bin/env bats
# elect-trace collect: many senders, one trace; bad lines dropped,
# reported and said lost; crash lines for streams that end without exit.

load helper
load collector

lines_of() {
	grep -c "$1" "$dir/out.trace" || true
}

@test "collect: several writers at once, good and bad, line by line" {
	start_collector
	# a stuck sender: half a line, then nothing, all along
	printf '7.1 9 boot inc' | trawsend -h "unix:$sock" > "$dir/stuck" &
	pids+=($!)
	wait_for 5 grep -q holding "$dir/stuck"
	twrite -c 300 -r 3000 -n 1 "unix:$sock" > "$dir/lost1" &
	w1=$!
	twrite -c 300 -r 3000 -n 2 "unix:$sock" > "$dir/lost2" &
	w2=$!
	# stops in the middle of a line
	printf '5 3 boot inc=1\n5.1 3 state status=Norm ldr=3 grp=-\n5.2 3 sta' |
	    trawsend "unix:$sock"
	# garbage around one good line
	printf 'hello\n\001\002\n6 4 boot inc=1\n6.1 4 bogus x=1\n6.2 4 send to=1\n' |
	    trawsend "unix:$sock"
	wait "$w1" "$w2"
	wait_for 5 grep -q '^[0-9.]* 4 crash$' "$dir/out.trace"
	stop_collector

	assert_equal "$(cat "$dir/lost1" "$dir/lost2")" "$(printf '0\n0')"
	# every line of the good writers, once, in their order, and their exit
	for n in 1 2; do
		run sh -c "awk '\$2 == $n && \$3 == \"send\"' '$dir/out.trace' |
		    sed 's/.*elid=//'"
		assert_output "$(seq 1 300)"
		assert_equal "$(lines_of " $n exit why=done$")" 1
	done
	# the cut stream: its whole lines, its cut one said lost, then a
	# crash; the garbage: two lines lost before any node spoke, its one
	# good line, two more lost, then a crash; the stuck sender: nothing yet
	run awk '$2 ~ /^[349-]$/ { sub(/^[^ ]* /, ""); print }' "$dir/out.trace"
	assert_output - <<-EOF
	3 boot inc=1
	3 state status=Norm ldr=3 grp=-
	3 lost n=1
	3 crash
	- lost n=2
	4 boot inc=1
	4 lost n=2
	4 crash
	EOF
	assert_equal "$(lines_of '^6 - lost n=2$')" 1
	assert_equal "$(lines_of ' crash$')" 2
	assert_equal "$(wc -l < "$dir/out.trace")" $((2 * 301 + 8))
	# nothing but valid lines went out
	run awk '{ print $3 }' "$dir/out.trace"
	refute_output --partial bogus
	refute_output --partial hello
	# each bad line named with its peer and line number
	run cat "$dir/err"
	assert_line --regexp "unix peer pid [0-9]+: line 3: connection ended inside a line: \"5.2 3 sta\""
	assert_line --regexp "unix peer pid [0-9]+: line 1: expected TIME NODE EVENT: \"hello\""
	assert_line --regexp "line 2: control character in line: \"\\\\001\\\\002\""
	assert_line --regexp "line 4: unknown event \"bogus\": \"6.1 4 bogus x=1\""
	assert_line --regexp "line 5: send: missing key msg=: \"6.2 4 send to=1\""
}

@test "collect: an exit line means no crash line" {
	start_collector
	printf '1 5 boot inc=1\n2 5 exit why=term\n' | trawsend "unix:$sock"
	printf '1 6 boot inc=1\n2 6 state status=Norm ldr=6 grp=-\n' |
	    trawsend "unix:$sock"
	wait_for 5 grep -q ' 6 crash$' "$dir/out.trace"
	stop_collector
	assert_equal "$(lines_of ' 5 crash$')" 0
	assert_equal "$(lines_of ' 6 crash$')" 1
}

@test "collect: a connection of task lines only (a guarded command's) means no crash line" {
	start_collector
	printf '1 5 boot inc=1\n' | trawsend -h "unix:$sock" > "$dir/node" &
	pids+=($!)
	wait_for 5 grep -q holding "$dir/node"
	printf '2 5 task op=start pid=9 token=1\n3 5 task op=stop pid=9 status=0\n' |
	    trawsend "unix:$sock"
	printf '4 6 task op=start pid=8 token=2\n' | trawsend "unix:$sock"
	wait_for 5 grep -q ' 6 task' "$dir/out.trace"
	assert_equal "$(lines_of ' crash$')" 0
	kill "${pids[-1]}"
	wait_for 5 grep -q ' 5 crash$' "$dir/out.trace"
	stop_collector
	assert_equal "$(lines_of ' 5 crash$')" 1
	assert_equal "$(lines_of ' 6 crash$')" 0
}

@test "collect: the crash line waits for the node's last connection" {
	start_collector
	# a node's daemon and its failure detector, each with a connection
	printf '1 7 boot inc=1\n' | trawsend -h "unix:$sock" > "$dir/fd" &
	fdpid=$!
	pids+=("$fdpid")
	wait_for 5 grep -q holding "$dir/fd"
	# The collector has read it, and knows the connection is node 7's,
	# before the other one comes and goes.
	wait_for 5 grep -q ' 7 boot' "$dir/out.trace"
	printf '1.5 7 state status=Norm ldr=7 grp=-\n' | trawsend "unix:$sock"
	wait_for 5 grep -q ' 7 state' "$dir/out.trace"
	assert_equal "$(lines_of ' 7 crash$')" 0
	kill "$fdpid"
	wait_for 5 grep -q ' 7 crash$' "$dir/out.trace"
	stop_collector
	assert_equal "$(lines_of ' 7 crash$')" 1
	# never earlier than the node's own last line
	run awk '$3 == "crash" { print ($1 >= 1.5) }' "$dir/out.trace"
	assert_output 1
}

@test "collect: a node restarted before its old connection ends: the crash comes before the new boot, at the old one's last line" {
	start_collector
	# the killed incarnation's connection, not yet seen to end
	printf '1 7 boot inc=1\n1.5 7 state status=Norm ldr=7 grp=-\n' |
	    trawsend -h "unix:$sock" > "$dir/old" &
	oldpid=$!
	pids+=("$oldpid")
	wait_for 5 grep -q holding "$dir/old"
	printf '3 7 boot inc=2\n' | trawsend -h "unix:$sock" > "$dir/new" &
	pids+=($!)
	wait_for 5 grep -q ' 7 boot inc=2' "$dir/out.trace"
	kill "$oldpid"
	wait "$oldpid" || true
	# the new incarnation still speaks: the old connection's end says
	# nothing more
	stop_collector
	run cat "$dir/out.trace"
	assert_output "$(printf '1 7 boot inc=1\n1.5 7 state status=Norm ldr=7 grp=-\n1.5 7 crash\n3 7 boot inc=2')"
	run elect-check -A trace "$dir/out.trace"
	assert_success
}

@test "collect: a line too long is dropped, the next one kept" {
	start_collector
	{
		printf '1 2 boot inc=1 pad='
		head -c 5000 /dev/zero | tr '\0' x
		printf '\n2 2 exit why=done\n'
	} | trawsend "unix:$sock"
	wait_for 5 grep -q ' 2 exit' "$dir/out.trace"
	stop_collector
	# no node had spoken: the lost line is the system's, at the next line
	run cat "$dir/out.trace"
	assert_output "$(printf '2 - lost n=1\n2 2 exit why=done')"
	run cat "$dir/err"
	assert_output --partial "line 1: line too long"
}

@test "collect: a flood of bad lines is reported ten times, then counted" {
	start_collector
	seq 1 50 | trawsend "unix:$sock"
	wait_for 5 grep -q "in all" "$dir/err"
	run cat "$dir/err"
	assert_equal "$(grep -c ': line [0-9]*:' "$dir/err")" 10
	assert_output --partial "more bad lines; not reported"
	assert_output --partial ": 50 bad lines in all"
	run cat "$dir/out.trace"
	assert_output --regexp '^[0-9.]+ - lost n=50$'
}

@test "collect: a line dropped from a node is said lost, and the trace is not certified" {
	start_collector
	printf '1 5 boot inc=1\n1.1 5 state status=Norm ldr=5 grp=-\n1.2 5 state status=Norm\n1.3 5 exit why=done\n' |
	    trawsend "unix:$sock"
	wait_for 5 grep -q ' 5 exit' "$dir/out.trace"
	stop_collector
	run cat "$dir/out.trace"
	assert_output "$(printf '1 5 boot inc=1\n1.1 5 state status=Norm ldr=5 grp=-
1.3 5 lost n=1\n1.3 5 exit why=done')"
	run sh -c "elect-check -A trace < '$dir/out.trace'"
	assert_failure 1
	assert_output --partial '-:3: trace: node 5 lost 1 line'
	# without its lost line, the same trace would pass
	run sh -c "grep -v ' lost ' '$dir/out.trace' | elect-check -A trace"
	assert_success
}

@test "collect: every line received is acknowledged" {
	start_collector
	run sh -c "printf '1 3 boot inc=1\nnonsense\n# note\n2 3 exit why=x\n' |
	    trawsend -p 'unix:$sock'"
	assert_success
	assert_output "$(printf 'challenge -\nack 4')"
}

@test "collect: tcp" {
	start_tcp_collector
	run twrite -c 50 -r 1000 -n 4 "tcp:127.0.0.1:$port"
	assert_output 0
	wait_for 5 grep -q ' 4 exit' "$dir/out.trace"
	stop_collector
	assert_equal "$(lines_of ' 4 send ')" 50
	run cat "$dir/err"
	refute_output --partial "line"
}

@test "collect: no escape sequence, control character or invalid UTF-8 reaches the trace" {
	start_tcp_collector
	{
		printf '1 3 boot inc=1\n'
		printf '2 3 exit why=\033]0;owned\007\033[2J\n'
		printf '3 3 state status=Norm ldr=3 grp=- x=\377\376\n'
		printf '4 3 state status=Norm ldr=3 grp=- x=\302\233\n'
		printf '5 3 state status=Norm ldr=3 grp=- x=\355\240\200\n'
		printf '6 3 state status=Norm ldr=3 grp=- x=caf\303\251\n'
		printf '7 3 exit why=done\n'
	} | trawsend "tcp:127.0.0.1:$port"
	wait_for 5 grep -q ' 3 exit why=done' "$dir/out.trace"
	stop_collector
	run cat "$dir/out.trace"
	assert_output "$(printf '1 3 boot inc=1\n6 3 lost n=4
6 3 state status=Norm ldr=3 grp=- x=caf\303\251\n7 3 exit why=done')"
	# nothing outside printable UTF-8 in the file, nor on stderr
	run grep -c -P '[\x00-\x08\x0b-\x1f\x7f]' "$dir/out.trace" "$dir/err"
	assert_output "$(printf '%s:0\n%s:0' "$dir/out.trace" "$dir/err")"
	run cat "$dir/err"
	assert_line --partial 'line 2: control character in line: "2 3 exit why=\033]0;owned\a'
	assert_line --partial 'line 3: invalid UTF-8 in line'
	assert_line --partial 'line 4: control character in line'
	assert_line --partial 'line 5: invalid UTF-8 in line'
}

# prove PORT KEYFILE NODE REPLAY < LINES: a writer in Python that answers
# the challenge (HMAC-SHA-512-256, libsodium's crypto_auth), then sends
# LINES; with REPLAY 1, the proof made for another connection's challenge.
prove() {
	local py
	py=$(cat <<-'PY'
	import hashlib, hmac, socket, sys
	port, keyfile, node, replay = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "1"
	key = open(keyfile, "rb").read()
	def challenge(s):
	    buf = b""
	    while not buf.endswith(b"\n"):
	        buf += s.recv(1)
	    assert buf.startswith(b"challenge ")
	    return bytes.fromhex(buf[10:-1].decode())
	def answer(nonce):
	    n = 0 if node == "-" else int(node)
	    msg = b"elect-trace auth 1 " + nonce + bytes([n >> 8, n & 255])
	    return hmac.new(key, msg, hashlib.sha512).digest()[:32].hex()
	s = socket.create_connection(("127.0.0.1", port))
	nonce = challenge(s)
	if replay:
	    other = socket.create_connection(("127.0.0.1", port))
	    nonce = challenge(other)
	    other.close()
	try:  # a false proof: the collector hangs up
	    s.sendall(("auth %s %s\n" % (node, answer(nonce))).encode())
	    s.sendall(sys.stdin.buffer.read())
	    s.shutdown(socket.SHUT_WR)
	    while s.recv(4096):
	        pass
	except OSError:
	    pass
	PY
	)
	python3 -c "$py" "$@"
}

@test "collect -k: writers prove their nodes; forged, replayed and unproved lines are refused" {
	head -c 32 /dev/urandom > "$dir/key"
	head -c 32 /dev/urandom > "$dir/other"
	chmod 600 "$dir/key" "$dir/other"
	start_tcp_collector -k "$dir/key"
	# the trace writer of the daemons, with the key: every line
	run twrite -k "$dir/key" -c 50 -r 1000 -n 4 "tcp:127.0.0.1:$port"
	assert_output 0
	# no proof at all: nothing, and no crash said for node 3
	printf '1 3 boot inc=1\n2 3 state status=Norm ldr=3 grp=-\n' |
	    trawsend "tcp:127.0.0.1:$port"
	# a proof made for another connection's challenge
	printf '1 3 boot inc=1\n' | prove "$port" "$dir/key" 3 1
	# proved as 5, it writes for 5, not for 3
	printf '1 5 boot inc=1\n2 3 boot inc=1\n3 5 state status=Norm ldr=5 grp=-\n' |
	    prove "$port" "$dir/key" 5 0
	wait_for 5 grep -q ' 5 crash$' "$dir/out.trace"
	# with another key: nothing of node 3.  Last: it tries again for a
	# second, and strangers' lines past the first ten in 10 s are only
	# summed up in the log.
	twrite -k "$dir/other" -c 5 -n 3 -w 1 "tcp:127.0.0.1:$port" || true
	stop_collector
	assert_equal "$(lines_of ' 4 send ')" 50
	assert_equal "$(lines_of ' 3 ')" 0
	run awk '$2 == 5 { sub(/^[^ ]* /, ""); print }' "$dir/out.trace"
	assert_output "$(printf '5 boot inc=1\n5 lost n=1
5 state status=Norm ldr=5 grp=-\n5 crash')"
	assert_equal "$(lines_of ' crash$')" 1
	run cat "$dir/err"
	assert_output --partial 'false proof'
	assert_output --partial 'line 1: node not proved on this connection: "1 3 boot'
	assert_output --partial 'line 2: node not proved on this connection: "2 3 boot'
}

@test "collect: SIGHUP reopens the output file" {
	start_collector
	printf '1 - net a=1 b=2 link=down\n' | trawsend "unix:$sock"
	wait_for 5 test -s "$dir/out.trace"
	mv "$dir/out.trace" "$dir/out.trace.0"
	kill -HUP "$collector"
	wait_for 5 test -e "$dir/out.trace"
	printf '2 - net a=1 b=2 link=up\n' | trawsend "unix:$sock"
	wait_for 5 test -s "$dir/out.trace"
	stop_collector
	assert_equal "$(cat "$dir/out.trace.0")" "1 - net a=1 b=2 link=down"
	assert_equal "$(cat "$dir/out.trace")" "2 - net a=1 b=2 link=up"
}

@test "collect: SIGTERM ends it cleanly, no crash said for those still connected" {
	start_collector
	printf '1 8 boot inc=1\n' | trawsend -h "unix:$sock" > "$dir/h" &
	pids+=($!)
	wait_for 5 grep -q holding "$dir/h"
	wait_for 5 grep -q ' 8 boot' "$dir/out.trace"
	stop_collector
	[ ! -e "$sock" ]
	assert_equal "$(cat "$dir/out.trace")" "1 8 boot inc=1"
}

@test "collect: -d writes in time order what comes within the delay" {
	start_collector -d 1
	# a second ahead: held long enough however slow this machine is
	t=$(($(date +%s) + 1))
	printf '%s.5 1 boot inc=1\n%s.7 1 exit why=done\n' "$t" "$t" |
	    trawsend "unix:$sock"
	printf '%s.2 2 boot inc=1\n%s.6 2 exit why=done\n' "$t" "$t" |
	    trawsend "unix:$sock"
	wait_for 10 grep -q ' 1 exit' "$dir/out.trace"
	stop_collector
	run awk '{ print $2, $3 }' "$dir/out.trace"
	assert_output "$(printf '2 boot\n1 boot\n2 exit\n1 exit')"
}

@test "collect: -d holds what a late source sends the others past, in time order" {
	# the other core busy or not, a source whose lines come 0.3 s late
	start_collector -d 0.1 -w 10
	twrite -c 200 -r 100 -n 2 "unix:$sock" > "$dir/lost2" &
	w2=$!
	for i in 1 2 3 4 5 6 7 8; do
		t=$(date +%s.%N)
		sleep 0.3	# the delay of its path, not a wait for a result
		printf '%s 1 send to=2 msg=Seq elid=%d\n' "$t" "$i"
	done | trawsend "unix:$sock"
	wait "$w2"
	wait_for 10 grep -q ' 1 send .* elid=8$' "$dir/out.trace"
	wait_for 10 grep -q ' 2 exit' "$dir/out.trace"
	stop_collector
	assert_equal "$(cat "$dir/lost2")" 0
	assert_equal "$(lines_of ' 1 send ')" 8
	assert_equal "$(lines_of ' 2 send ')" 200
	assert_equal "$(lines_of ' quiet \| lost ')" 0
	# in time order: merge takes only that
	run elect-trace merge "$dir/out.trace"
	assert_success
	refute_output --partial "back in time"
}

@test "collect: a source silent past -w is said quiet; its lines too late for the order are said lost" {
	start_collector -w 0.5
	mkfifo "$dir/a"
	trawsend -h "unix:$sock" < "$dir/a" > "$dir/ha" &
	pids+=($!)
	exec 7> "$dir/a"
	printf '10 1 boot inc=1\n' >&7
	wait_for 5 grep -q ' 1 boot' "$dir/out.trace"
	# held while node 1 is behind, written once it has been silent 0.5 s
	printf '11 2 boot inc=1\n12 2 state status=Norm ldr=2 grp=-\n' |
	    trawsend -h "unix:$sock" > "$dir/hb" &
	pids+=($!)
	wait_for 10 grep -q ' 2 state' "$dir/out.trace"
	# 11.5 comes after 12 was written: dropped, and said lost
	printf '11.5 1 state status=Norm ldr=2 grp=-\n13 1 exit why=done\n' >&7
	exec 7>&-
	wait_for 5 grep -q ' 1 exit' "$dir/out.trace"
	stop_collector
	run awk '{ sub(/ for=[0-9.]*$/, ""); print }' "$dir/out.trace"
	assert_output - <<-EOF
	10 1 boot inc=1
	11 1 quiet since=10
	11 2 boot inc=1
	12 2 state status=Norm ldr=2 grp=-
	13 2 quiet since=12
	13 1 lost n=1
	13 1 exit why=done
	EOF
	run cat "$dir/err"
	assert_output --partial "silent"
	assert_output --partial 'line 2: earlier than lines already written: "11.5 1'
	run sh -c "elect-check -A trace < '$dir/out.trace'"
	assert_failure 1
	assert_output --partial 'node 1 lost 1 line'
}

@test "collect: a source whose nodes have all exited is not waited for, nor said quiet" {
	start_collector -w 60
	# node 1's writer waits, connected, for its acknowledgements
	printf '10 1 boot inc=1\n11 1 exit why=sigterm\n' |
	    trawsend -h "unix:$sock" > "$dir/ha" &
	pids+=($!)
	wait_for 5 grep -q holding "$dir/ha"
	printf '12 2 boot inc=1\n13 2 exit why=done\n' | trawsend "unix:$sock"
	wait_for 10 grep -q ' 2 exit' "$dir/out.trace"
	stop_collector
	run cat "$dir/out.trace"
	assert_output - <<-EOF
	10 1 boot inc=1
	11 1 exit why=sigterm
	12 2 boot inc=1
	13 2 exit why=done
	EOF
}

@test "collect: a stale socket is taken over, a live one is refused" {
	start_collector
	run elect-trace collect -l "unix:$sock"
	assert_failure 1
	assert_output --partial "a collector is already listening"
	stop_collector KILL
	[ -S "$sock" ]
	start_collector
	printf '1 1 boot inc=1\n' | trawsend "unix:$sock"
	wait_for 5 test -s "$dir/out.trace"
	# never in place of something else
	echo precious > "$dir/file"
	run elect-trace collect -l "unix:$dir/file"
	assert_failure 1
	assert_output --partial "exists and is not a socket"
	assert_equal "$(cat "$dir/file")" precious
}

@test "collect: bad usage" {
	run elect-trace collect
	assert_failure 2
	assert_output --partial "usage: elect-trace collect"
	run elect-trace collect -l "udp:1.2.3.4:5"
	assert_failure 2
	assert_output --partial "expected unix:PATH or tcp:HOST:PORT"
	run elect-trace collect -l "tcp:127.0.0.1"
	assert_failure 2
	# writers are not authenticated: the network only when said so
	run elect-trace collect -l "tcp:0.0.0.0:$(freeport)"
	assert_failure 2
	assert_output --partial "not a loopback address"
	assert_output --partial "--insecure"
	run elect-trace collect -l "unix:$sock" -d soon
	assert_failure 2
	assert_output --partial '"soon" is not a number of seconds'
	run elect-trace collect -l "unix:$sock" -w soon
	assert_failure 2
	run elect-trace collect -l "unix:$sock" extra
	assert_failure 2
	run elect-trace collect --help
	assert_success
	assert_output --partial "usage: elect-trace collect"
}

# Issue: a stranger without the key opened thousands of connections,
# garbage and idle, and each garbage one wrote "- lost n=21" (no run could
# be certified), ten reports on standard error, and idle ones kept a node
# out.  Strangers come here from 127.0.0.2 and up, the node from 127.0.0.1.
@test "collect -k: a stranger's flood of garbage and idle connections marks nothing lost, stays bounded, and a node's stream goes through" {
	local flood pfd t0 t1 w
	head -c 32 /dev/urandom > "$dir/key"
	chmod 600 "$dir/key"
	t0=$EPOCHREALTIME
	start_tcp_collector -k "$dir/key" -d 0.1
	"$BATS_TEST_DIRNAME/tools/collect-flood.py" 127.0.0.1 "$port" 16 64 \
	    "$dir/stop" "$dir/ready" > "$dir/flood" 2>&1 &
	flood=$!
	pids+=("$flood")
	wait_for 60 test -s "$dir/ready"
	# a node that starts during the attack, and writes past the 5 s in
	# which strangers must prove a node: every line, none lost
	run twrite -k "$dir/key" -n 4 -c 700 -r 100 -w 10 \
	    "tcp:127.0.0.1:$port"
	assert_output 0
	# strangers hold a bounded number of the collector's descriptors
	pfd=$(ls "/proc/$collector/fd" | wc -l)
	[ "$pfd" -le $((256 + 64)) ]
	touch "$dir/stop"
	wait "$flood"
	cat "$dir/flood"
	stop_collector
	t1=$EPOCHREALTIME
	assert_equal "$(lines_of ' 4 send ')" 700
	assert_equal "$(lines_of ' 4 exit ')" 1
	assert_equal "$(lines_of ' lost ')" 0
	assert_equal "$(lines_of ' quiet ')" 0
	assert_equal "$(wc -l < "$dir/out.trace")" 701
	# standard error: ten strangers' lines at most per 10 s, then one
	# line to sum up the rest, in each window the collector lived
	# through (the last cut short by its exit); nothing else
	w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print int((b - a) / 10) + 2 }')
	run cat "$dir/err"
	[ "$(grep -c '^elect-trace: tcp peer 127\.0\.0\.[2-9][0-9]*:[0-9]*: line ' \
	    "$dir/err")" -le $((10 * w)) ]
	[ "$(grep -c ' strangers lines=' "$dir/err")" -le "$w" ]
	run grep -Ev -e '^elect-trace: tcp peer 127\.0\.0\.[2-9][0-9]*:[0-9]*: line ' \
	    -e ' elect-trace: (strangers|start|stop) ' "$dir/err"
	assert_output ""
	run cat "$dir/err"
	# idle strangers were closed for proving nothing in time
	assert_output --regexp "strangers lines=[0-9]+ refused=[0-9]+ unproved=[1-9]"
}
