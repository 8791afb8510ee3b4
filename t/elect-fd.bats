#!/usr/bin/env bats
# elect-fd with real processes on 127.0.0.1: Stoller's failure detector,
# its line protocol, its datagrams, and its traces.

load helper

# A heartbeat late by more than the time-out is a false report, and
# elect-check's fd-accurate says so: with both cores busy and the suite
# in parallel, a detector may wait half a second for a processor.
INTERVAL=100	# ms
TIMEOUT=1000	# ms
# Seconds of scheduling delay allowed: a detector on a host whose cores
# are busy with other work (make check runs tests in parallel) may get
# the processor half a second late, or more.
SLACK=2

setup() {
	cd "$BATS_TEST_TMPDIR"
	P=$(freeport -w 6)
	cat > c.conf <<-EOF
	node 1 127.0.0.1:$P
	node 2 127.0.0.1:$((P + 2))
	node 3 127.0.0.1:$((P + 4))
	EOF
	head -c 32 /dev/urandom > k
	chmod 600 k
	PIDS=()
	WFDS=()
	FDARGS=(-k k --interval $INTERVAL --timeout $TIMEOUT)
}

teardown() {
	local pid i
	kill_own CONT "${PIDS[@]}"
	kill_own TERM "${PIDS[@]}"
	for pid in "${PIDS[@]}"; do
		for i in $(seq 100); do
			own "$pid" || break
			sleep 0.02
		done
		kill_own KILL "$pid"
	done
}

# start_fd ID [ARGS...]: node ID's detector, with commands through the fifo
# in.ID (held open by this shell), signals in out.ID, diagnostics in err.ID
# and its trace in trace.ID; FDARGS gives the key, interval and timeout.
# It returns once the detector is up (its boot line written after its
# socket and signal handlers are ready).
start_fd() {
	local id=$1 w f
	shift
	mkfifo "in.$id"
	(
		for f in "${WFDS[@]}"; do eval "exec $f>&-"; done
		exec elect-fd -f c.conf -i "$id" -t "trace.$id" \
		    "${FDARGS[@]}" "$@" \
		    < "in.$id" > "out.$id" 2> "err.$id" 3>&-
	) &
	eval "PID_$id=$!"
	PIDS+=($!)
	exec {w}> "in.$id"
	eval "W_$id=$w"
	WFDS+=("$w")
	wait_for 5 grep -qs ' boot ' "trace.$id"
}

# cmd ID LINE: a command line to node ID's detector.
cmd() {
	local id=$1 w
	shift
	eval "w=\$W_$id"
	printf '%s\n' "$*" >&"$w"
}

pid_of() {
	eval "echo \$PID_$1"
}

# crash ID: SIGKILL node ID's detector; the harness traces the crash.
crash() {
	local pid
	pid=$(pid_of "$1")
	echo "$(date +%s.%N) $1 crash" >> harness
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
}

# pause_fd ID, resume_fd ID: SIGSTOP and SIGCONT, traced by the harness.
pause_fd() {
	echo "$(date +%s.%N) $1 pause" >> harness
	kill -STOP "$(pid_of "$1")"
}

resume_fd() {
	echo "$(date +%s.%N) $1 resume" >> harness
	kill -CONT "$(pid_of "$1")"
}

gone() {
	! kill -0 "$1" 2>/dev/null
}

# exited PID: our child PID ends within 2 seconds, with status 0.
exited() {
	local st=0
	wait_for 2 gone "$1"
	wait "$1" || st=$?
	assert_equal "$st" 0
}

# received ID N: node ID's detector has accepted N datagrams or more
# (it prints its counters on SIGUSR1).
# ndrops FROM WHY: datagrams node 1 dropped, as its trace sums them up.
ndrops() {
	awk -v f="$1" -v w="$2" '$3 == "drop" && $4 == "from=" f &&
	    $5 == "why=" w { n += $6 ~ /^n=/ ? substr($6, 3) : 1 }
	    END { print n + 0 }' \
	    trace.1
}

received() {
	local n
	kill -USR1 "$(pid_of "$1")"
	n=$(sed -n 's/.* recv=\([0-9]*\) .*/\1/p' "err.$1" | tail -n 1)
	[ "${n:-0}" -ge "$2" ]
}

# reported ID LINE [COUNT]: out.ID has LINE COUNT times (default once).
reported() {
	[ "$(grep -cx "$2" "out.$1")" -ge "${3:-1}" ]
}

merged() {
	LC_ALL=C sort -s -k1,1n trace.* $(ls harness 2>/dev/null)
}

# The time between the harness's crash line for ID and node MON's report.
latency() {
	local crash down
	crash=$(awk -v id="$2" '$2 == id && $3 == "crash" { print $1 }' harness)
	down=$(awk -v id="$2" '$3 == "fd" && $4 == "op=down" &&
	    $5 == "peer=" id { print $1; exit }' "trace.$1")
	awk -v a="$crash" -v b="$down" 'BEGIN { printf "%.9f\n", b - a }'
}

# within X Y: X <= Y, as decimal numbers.
within() {
	awk -v x="$1" -v y="$2" 'BEGIN { exit !(x + 0 <= y + 0) }'
}

# The latency elect-check is told: the timeout and the slack.
LATENCY=$(awk -v t=$TIMEOUT -v s=$SLACK 'BEGIN { print t / 1000 + s }')
# Two timeouts, in seconds: long enough for a report that was due.
TWICE=$(awk -v t=$TIMEOUT 'BEGIN { print 2 * t / 1000 }')

# check_fd LATENCY: the merged trace passes elect-check -s fd.
check_fd() {
	echo '1 1 boot inc=1' > probe
	if ! elect-check -s fd --fd-latency 1 probe >/dev/null 2>&1; then
		skip "elect-check -s fd is not available in this build"
	fi
	merged > merged.trace
	run elect-check -s fd --fd-latency "$1" merged.trace
	assert_success
}

@test "a peer killed with SIGKILL is reported within the latency" {
	start_fd 2
	start_fd 1
	cmd 1 start 2
	wait_for 5 received 1 3
	crash 2
	wait_for 5 reported 1 'down 2'
	assert_equal "$(cat out.1)" 'down 2'
	within "$(latency 1 2)" "$LATENCY"
	grep -q ' 1 fd op=start peer=2$' trace.1
	grep -q ' 1 fd op=down peer=2$' trace.1
	check_fd "$LATENCY"
}

# The plain build links elect-fd statically, with a resolver of its own
# (lib/net/resolve.c): names in the cluster file must still resolve.
@test "host names in the cluster file resolve, from /etc/hosts" {
	sed -i '1s/127\.0\.0\.1/localhost/; 2s/127\.0\.0\.1/LocalHost/' c.conf
	start_fd 2
	start_fd 3
	start_fd 1 --watch 2,3
	wait_for 5 received 1 6
	crash 3
	wait_for 5 reported 1 'down 3'
	assert_equal "$(cat out.1)" 'down 3'
}

@test "ping mode and phi accrual detect a kill too" {
	start_fd 2
	start_fd 3
	start_fd 1 --mode ping
	cmd 1 start 2
	cmd 1 start 3
	wait_for 5 received 1 6
	crash 2
	wait_for 5 reported 1 'down 2'
	within "$(latency 1 2)" "$LATENCY"
	# No false report of the live one.
	[ "$(cat out.1)" = 'down 2' ]
	check_fd "$LATENCY"
}

@test "phi accrual: a kill is reported, a live peer is not" {
	start_fd 2
	start_fd 3
	FDARGS=(-k k --interval $INTERVAL --phi 8)
	start_fd 1 --watch 2,3
	wait_for 5 received 1 20
	crash 2
	wait_for 5 reported 1 'down 2'
	# phi 8 with the deviation floored at half an interval: 3.8 intervals.
	phi=$(awk -v i=$INTERVAL -v s=$SLACK 'BEGIN { print 4 * i / 1000 + s }')
	within "$(latency 1 2)" "$phi"
	[ "$(cat out.1)" = 'down 2' ]
	check_fd "$phi"
}

@test "SIGSTOP is reported, and SIGCONT brings up with --report-up" {
	start_fd 2
	start_fd 1 --report-up
	cmd 1 start 2
	wait_for 5 received 1 3
	pause_fd 2
	wait_for 5 reported 1 'down 2'
	resume_fd 2
	wait_for 5 reported 1 'up 2'
	# up re-arms the report: a second pause is reported again.
	pause_fd 2
	wait_for 5 reported 1 'down 2' 2
	resume_fd 2
	wait_for 5 reported 1 'up 2' 2
	run cat out.1
	assert_output - <<-EOF
	down 2
	up 2
	down 2
	up 2
	EOF
	check_fd "$LATENCY"
}

@test "without --report-up a node comes back silently, and start re-arms" {
	start_fd 2
	start_fd 1
	cmd 1 start 2
	wait_for 5 received 1 3
	pause_fd 2
	wait_for 5 reported 1 'down 2'
	resume_fd 2
	n=$(received 1 0; sed -n 's/.* recv=\([0-9]*\) .*/\1/p' err.1 | tail -n 1)
	wait_for 5 received 1 $((n + 3))
	pause_fd 2
	sleep "$TWICE"	# a second report would be here by now
	[ "$(cat out.1)" = 'down 2' ]
	cmd 1 start 2
	wait_for 5 reported 1 'down 2' 2
	resume_fd 2
	check_fd "$LATENCY"
}

@test "start after a report re-arms it for a node that stays down" {
	start_fd 2
	start_fd 1
	cmd 1 start 2
	wait_for 5 received 1 3
	crash 2
	wait_for 5 reported 1 'down 2'
	cmd 1 start 2
	wait_for 5 reported 1 'down 2' 2
	cmd 1 start 2
	wait_for 5 reported 1 'down 2' 3
	[ "$(grep -c ' 1 fd op=start peer=2$' trace.1)" = 3 ]
	[ "$(grep -c ' 1 fd op=down peer=2$' trace.1)" = 3 ]
	check_fd "$LATENCY"
}

# gap ID PEER K: seconds from node ID's K-th start of PEER to the report
# that follows it.
gap() {
	awk -v p="peer=$2" -v k="$3" '$3 == "fd" && $5 == p &&
	    $4 == "op=start" && ++n == k { t = $1 }
	    t && $3 == "fd" && $5 == p && $4 == "op=down" && $1 >= t {
		printf "%.9f\n", $1 - t; exit }' "trace.$1"
}

# restart_fd ID: node ID's detector comes back as a new process (its old
# trace set aside, so that start_fd waits for the new boot line).
restart_fd() {
	mv "trace.$1" "trace.$1.old"
	rm -f "in.$1"
	start_fd "$1"
}

# nreceived ID: what node ID's detector has accepted so far.
nreceived() {
	received "$1" 0
	sed -n 's/.* recv=\([0-9]*\) .*/\1/p' "err.$1" | tail -n 1
}

# watched_down HOW: node 1 watches node 2, which HOW (crash or pause_fd)
# makes silent; returns once node 1 has reported it.
watched_down() {
	start_fd 2
	start_fd 1
	cmd 1 start 2
	wait_for 5 received 1 3
	"$1" 2
	wait_for 5 reported 1 'down 2'
}

@test "start of a peer reported and silent since reports it at once" {
	watched_down crash
	cmd 1 start 2
	wait_for 5 reported 1 'down 2' 2
	# Not a second timeout: within one command, however loaded the host.
	within "$(gap 1 2 2)" "$(awk -v t=$TIMEOUT 'BEGIN { print t / 2000 }')"
	check_fd "$LATENCY"
}

@test "a restarted peer is not reported at once, though it knows no subscriber" {
	watched_down crash
	n=$(nreceived 1)
	# Its hello reaches node 1 before its boot line is written.
	restart_fd 2
	cmd 1 start 2
	wait_for 5 received 1 $((n + 4))
	sleep "$TWICE"	# a false report would be here by now
	assert_equal "$(cat out.1)" 'down 2'
	check_fd "$LATENCY"
}

@test "alive from the client: the silence starts again, a report only after it" {
	watched_down pause_fd
	# The client heard from 2 (say, a protocol message) and restarts it.
	cmd 1 alive 2
	cmd 1 start 2
	wait_for 5 reported 1 'down 2' 2
	# A whole timeout after the start: 2 is still paused, so it is due.
	within "$(awk -v t=$TIMEOUT 'BEGIN { print t / 1000 }')" "$(gap 1 2 2)"
	# alive is not traced: it only ever delays a report.
	run grep -c 'op=alive' trace.1
	assert_output 0
	resume_fd 2
	check_fd "$LATENCY"
}

@test "a paused peer heard again after it resumes is not reported at once" {
	watched_down pause_fd
	n=$(nreceived 1)
	resume_fd 2
	wait_for 5 received 1 $((n + 2))
	cmd 1 start 2
	sleep "$TWICE"
	assert_equal "$(cat out.1)" 'down 2'
	check_fd "$LATENCY"
}

@test "a node never heard after start is reported; an unmonitored one never" {
	start_fd 1
	cmd 1 start 3
	wait_for 5 reported 1 'down 3'
	sleep "$TWICE"
	run cat out.1
	assert_output 'down 3'	# not 2: nobody asked about it
	check_fd "$LATENCY"
}

@test "stop silences a monitored node" {
	start_fd 2
	start_fd 3
	start_fd 1
	cmd 1 start 2
	cmd 1 start 3
	wait_for 5 received 1 6
	cmd 1 stop 2
	crash 2
	crash 3
	wait_for 5 reported 1 'down 3'
	sleep "$TWICE"
	run cat out.1
	assert_output 'down 3'
	grep -q ' 1 fd op=stop peer=2$' trace.1
	check_fd "$LATENCY"
}

@test "playdead and playalive are seen from the other side only" {
	start_fd 2 --report-up
	start_fd 1 --report-up
	start_fd 3 --report-up
	cmd 1 start 2
	cmd 3 start 2
	cmd 2 start 1
	wait_for 5 received 1 3
	wait_for 5 received 3 3
	cmd 2 playdead 1
	wait_for 5 reported 1 'down 2'
	cmd 2 playalive 1
	wait_for 5 reported 1 'up 2'
	cmd 2 playdead 1 3
	wait_for 5 reported 1 'down 2' 2
	wait_for 5 reported 3 'down 2'
	cmd 2 playalive 3 1
	wait_for 5 reported 3 'up 2'
	wait_for 5 reported 1 'up 2' 2
	# Node 2 went on monitoring node 1 throughout.
	[ ! -s out.2 ]
	grep -q ' 2 fd op=playdead peer=1$' trace.2
	grep -q ' 2 fd op=playalive peer=3$' trace.2
	check_fd "$LATENCY"
}

@test "playdead stops ping replies too" {
	start_fd 2 --mode ping
	start_fd 1 --mode ping --report-up
	cmd 1 start 2
	wait_for 5 received 1 3
	cmd 2 playdead 1
	wait_for 5 reported 1 'down 2'
	cmd 2 playalive 1
	wait_for 5 reported 1 'up 2'
	check_fd "$LATENCY"
}

@test "forged, damaged and stray datagrams are dropped and counted" {
	head -c 32 /dev/urandom > other.key
	chmod 600 other.key
	start_fd 2
	start_fd 1
	cmd 1 start 2
	wait_for 5 received 1 3
	fd-forge -f c.conf -k k -d 1 -i 2 -I 99999999999999999 forged
	fd-forge -f c.conf -k other.key -d 1 -i 2 alive
	fd-forge -f c.conf -d 1 -i 2 alive		# insecure
	fd-forge -f c.conf -k k -d 1 -i 2 truncated
	fd-forge -f c.conf -k k -d 1 -i 2 oversized
	fd-forge -f c.conf -k k -d 1 -i 2 bad-magic
	fd-forge -f c.conf -k k -d 1 -i 2 bad-version
	fd-forge -f c.conf -k k -d 1 -i 2 bad-type
	fd-forge -f c.conf -k k -d 1 -i 3 bad-payload
	fd-forge -f c.conf -k k -d 1 -i 2 misdirected
	fd-forge -f c.conf -k k -d 1 -i 9 alive
	fd-forge -f c.conf -k k -d 1 garbage
	fd-forge -f c.conf -k k -d 1 -i 1 alive
	wait_for 5 grep -q 'drop from=1 why=bad-sender' trace.1
	for why in truncated oversized bad-magic bad-version bad-type \
	    misdirected; do
		[ "$(ndrops 2 "$why")" = 1 ]
	done
	[ "$(ndrops 2 bad-mac)" = 3 ]
	# Authentic, but not from node 3's address.
	[ "$(ndrops 3 bad-address)" = 1 ]
	[ "$(ndrops - unknown-peer)" = 1 ]
	grep -q ' 1 drop from=[-0-9]* why=' trace.1
	kill -USR1 "$(pid_of 1)"
	wait_for 5 grep -q 'dropped=13 ' err.1
	grep -q ' bad-mac=3 ' err.1
	# Monitoring went on: no false report, and a real crash is seen.
	[ ! -s out.1 ]
	crash 2
	wait_for 5 reported 1 'down 2'
	check_fd "$LATENCY"
}

@test "replayed heartbeats do not bring a dead node back" {
	start_fd 1 --report-up
	cmd 1 start 3
	# Node 3's heartbeats, captured and replayed from its own address
	# (node 3 is dead): authentic, but no answer to node 1's challenge.
	fd-forge -S -f c.conf -k k -d 1 -i 3 -I 7 -q 1 -n 5 -g 10 alive
	fd-forge -S -f c.conf -k k -d 1 -i 3 -I 7 -q 900 alive
	wait_for 5 reported 1 'down 3'
	wait_for 5 eval '[ "$(ndrops 3 unconfirmed)" = 6 ]'
	# From another address, the same datagram is not node 3's at all.
	fd-forge -f c.conf -k k -d 1 -i 3 -I 8 -q 1 alive
	wait_for 5 eval '[ "$(ndrops 3 bad-address)" = 1 ]'
	nreceived 1
	run cat out.1
	assert_output 'down 3'
	check_fd "$LATENCY"
}

@test "a restarted detector takes no captured heartbeat of a dead peer" {
	local inc
	start_fd 3
	wait_for 5 grep -q ' 3 boot ' trace.3
	inc=$(sed -n 's/.* boot inc=\([0-9]*\) .*/\1/p' trace.3)
	crash 3
	# Node 1 starts afresh, remembering nothing, and is sent what node 3
	# sent before it died, as an eavesdropper kept it: its incarnation
	# and sequence numbers, its key, its address.
	start_fd 1 --report-up
	cmd 1 start 3
	fd-forge -S -f c.conf -k k -d 1 -i 3 -I "$inc" -q 5 -n 20 -g 10 alive
	wait_for 5 reported 1 'down 3'
	wait_for 5 eval '[ "$(ndrops 3 unconfirmed)" -ge 20 ]'
	run cat out.1
	assert_output 'down 3'
}

@test "end of file on stdin ends elect-fd at once" {
	start_fd 1
	cmd 1 start 2
	eval "exec $W_1>&-"
	exited "$PID_1"
	grep -q ' 1 exit why=eof ' trace.1
	# A closed stdin is no client at all (and is not taken by the socket).
	# Not through run: its command substitution would hand fd 0 its pipe.
	st=0
	elect-fd -f c.conf -i 2 -k k -t trace.2 <&- > out.2 2>&1 || st=$?
	assert_equal "$st" 0
	grep -q ' 2 exit why=eof ' trace.2
}

@test "the death of its parent ends elect-fd, even with stdin open" {
	mkfifo in.1
	bash -c 'elect-fd -f c.conf -i 1 -k k -t trace.1 --watch 2 \
	    < in.1 > out.1 2> err.1 & echo $! > child; wait' 3>&- &
	parent=$!
	PIDS+=("$parent")
	exec {w}> in.1
	wait_for 5 test -s child
	PIDS+=("$(cat child)")
	wait_for 5 grep -q ' boot ' trace.1
	kill -KILL "$parent"
	wait_for 2 gone "$(cat child)"
	grep -q ' 1 exit why=signal ' trace.1
	exec {w}>&-
}

@test "SIGTERM ends elect-fd cleanly; SIGUSR1 prints its counters" {
	start_fd 1
	kill -USR1 "$PID_1"
	# Sent: the handshake's HELLOs to nodes 2 and 3, again every 200 ms
	# while they do not answer.
	wait_for 5 grep -Eq '^elect-fd: sent=([2-9]|[1-9][0-9]+) recv=0 dropped=0 down=0 up=0 send-errors=0$' err.1
	kill -TERM "$PID_1"
	exited "$PID_1"
	grep -Eq ' 1 exit why=signal sent=[0-9]+ recv=0 dropped=0$' trace.1
}

@test "bad command lines get one line on stderr and are ignored" {
	start_fd 1 -q
	cmd 1 'hello 2'
	cmd 1 'start'
	cmd 1 'start 2 3'
	cmd 1 'start 0'
	cmd 1 'start 65536'
	cmd 1 'start two'
	cmd 1 'start 9'
	cmd 1 'playdead 2 x'
	printf 'start 2\r\n' >&"$W_1"
	printf 'stop\0 2\n' >&"$W_1"
	head -c 9000 /dev/zero | tr '\0' 2 >&"$W_1"
	printf '\n' >&"$W_1"
	cmd 1 ''
	cmd 1 '   '
	cmd 1 'START 2'
	cmd 1 '  start   2  '
	wait_for 5 grep -q ' 1 fd op=start peer=2$' trace.1
	run cat err.1
	assert_output - <<-EOF
	elect-fd: stdin:1: unknown command (start, stop, playdead, playalive, alive)
	elect-fd: stdin:2: missing node id
	elect-fd: stdin:3: one node id only
	elect-fd: stdin:4: not a node id (1 to 65535)
	elect-fd: stdin:5: not a node id (1 to 65535)
	elect-fd: stdin:6: not a node id (1 to 65535)
	elect-fd: stdin:7: node 9 is not in c.conf
	elect-fd: stdin:8: not a node id (1 to 65535)
	elect-fd: stdin:9: control character
	elect-fd: stdin:10: control character
	elect-fd: stdin:11: line too long
	elect-fd: stdin:14: unknown command (start, stop, playdead, playalive, alive)
	EOF
	# Empty lists and the node's own id are fine.
	cmd 1 'playdead'
	cmd 1 'start 1'
	cmd 1 'playalive 1 2 3'
	wait_for 5 grep -q ' 1 fd op=playalive peer=3$' trace.1
	[ "$(wc -l < err.1)" = 12 ]
	kill -0 "$PID_1"
}

@test "bad flags, cluster files and key files stop with exit 2" {
	run elect-fd -f c.conf -i 1 < /dev/null
	assert_failure 2
	assert_output 'elect-fd: give exactly one of -k KEYFILE and --insecure'
	run elect-fd -f c.conf -i 1 -k k --insecure < /dev/null
	assert_failure 2
	run elect-fd -i 1 -k k < /dev/null
	assert_output 'elect-fd: -f CLUSTER and -i ID are required'
	run elect-fd -f c.conf -i 0 -k k < /dev/null
	assert_output --partial '-i: "0" is too small'
	run elect-fd -f c.conf -i 4 -k k < /dev/null
	assert_failure 2
	assert_output 'elect-fd: -i 4: no node 4 in c.conf'
	run elect-fd -f c.conf -i 1 -k k --interval 0 < /dev/null
	assert_output --partial '--interval: "0" is too small'
	run elect-fd -f c.conf -i 1 -k k --interval ' 10' < /dev/null
	assert_failure 2
	assert_output 'elect-fd: --interval: " 10" is not a whole number (1 to 60000)'
	run elect-fd -f c.conf -i +1 -k k < /dev/null
	assert_failure 2
	run elect-fd -f c.conf -i 1 -k k --interval 100 --timeout 100 < /dev/null
	assert_output 'elect-fd: --timeout 100 must exceed --interval 100'
	run elect-fd -f c.conf -i 1 -k k --timeout 300 --phi 8 < /dev/null
	assert_output 'elect-fd: --timeout and --phi exclude each other'
	run elect-fd -f c.conf -i 1 -k k --phi 0.5 < /dev/null
	assert_output 'elect-fd: --phi: "0.5" is not a threshold (1 to 30)'
	run elect-fd -f c.conf -i 1 -k k --phi 8x < /dev/null
	assert_failure 2
	run elect-fd -f c.conf -i 1 -k k --mode shout < /dev/null
	assert_output 'elect-fd: --mode: "shout" is not push or ping'
	run elect-fd -f c.conf -i 1 -k k --watch 2,7 < /dev/null
	assert_output 'elect-fd: --watch: node 7 is not in c.conf'
	run elect-fd -f c.conf -i 1 -k k --watch 2, < /dev/null
	assert_failure 2
	run elect-fd -f c.conf -i 1 -k k extra < /dev/null
	assert_output 'elect-fd: unexpected argument "extra"'
	run elect-fd -f c.conf -i 1 -k k --bogus < /dev/null
	assert_failure 2
	echo 'node 1 127.0.0.1:7000 weight=3' > bad.conf
	run elect-fd -f bad.conf -i 1 -k k < /dev/null
	assert_failure 2
	assert_output 'elect-fd: bad.conf:1: unknown keyword "weight=3"'
	run elect-fd -f nothere.conf -i 1 -k k < /dev/null
	assert_output 'elect-fd: nothere.conf: No such file or directory'
	head -c 16 /dev/urandom > short.key
	chmod 600 short.key
	run elect-fd -f c.conf -i 1 -k short.key < /dev/null
	assert_failure 2
	assert_output --partial 'short.key: a key is exactly 32 bytes'
	assert_output --partial 'this file has 16'
	run elect-fd -f c.conf -i 1 -k k -t /nonexistent/dir/t < /dev/null
	assert_failure 2
	assert_output --partial '-t /nonexistent/dir/t'
}

@test "a port in use, a readable key (refused) and --insecure are said clearly" {
	start_fd 1
	run elect-fd -f c.conf -i 1 -k k < /dev/null
	assert_failure 1
	assert_output "elect-fd: bind 127.0.0.1:$((P + 1)): Address already in use"
	chmod 644 k
	run elect-fd -f c.conf -i 2 -k k < /dev/null
	assert_failure 2
	assert_output --partial 'elect-fd: k: mode 644 lets group or others at the key; refused'
	chmod 600 k
	run elect-fd -f c.conf -i 2 --insecure -q < /dev/null
	assert_success
	assert_output 'elect-fd: --insecure: datagrams are not authenticated'
}

@test "insecure detectors work together, and not with keyed ones" {
	FDARGS=(--insecure --interval $INTERVAL)
	start_fd 2
	start_fd 1 --watch 2,3
	wait_for 5 reported 1 'down 3'
	wait_for 5 received 1 5
	[ "$(cat out.1)" = 'down 3' ]
	grep -q 'elect-fd: --insecure: datagrams are not authenticated' err.1
	fd-forge -f c.conf -k k -d 1 -i 2 alive
	wait_for 5 grep -q ' 1 drop from=2 why=bad-mac n=' trace.1
}

@test "--help, --version" {
	run elect-fd --help
	assert_success
	assert_output --partial 'usage: elect-fd -f cluster -i id'
	run elect-fd --version
	assert_success
	assert_output --regexp '^elect-fd [0-9]+\.[0-9]+\.[0-9]+$'
}
