#!/usr/bin/env bats
# elect-fd -t unix:PATH: the detector traces to a collector, notices when
# it goes away, connects again on its own, and leaves a trace that is
# complete or says how many lines it lost.

load helper
load collector

setup() {
	collector_setup
	P=$(freeport -w 2)
	echo "node 1 127.0.0.1:$P" > "$dir/c.conf"
	echo "node 2 127.0.0.1:$((P + 2))" >> "$dir/c.conf"
	head -c 32 /dev/urandom > "$dir/k"
	chmod 600 "$dir/k"
	w=
}

teardown() {
	[ -z "$w" ] || exec {w}>&-
	collector_teardown
}

# start_detector: node 1's detector, tracing to the collector, with its
# commands through a fifo held open on $w; $detector is its pid.  Nothing
# makes it trace but the commands it is given.
start_detector() {
	mkfifo "$dir/in"
	elect-fd -f "$dir/c.conf" -i 1 -k "$dir/k" -t "unix:$sock" \
	    < "$dir/in" > "$dir/out" 2> "$dir/fd.err" 3>&- &
	detector=$!
	pids+=("$detector")
	exec {w}> "$dir/in"
}

# cmd LINE: a command line to the detector.
cmd() {
	printf '%s\n' "$*" >&"$w"
}

traced() {
	grep -q "^[0-9.]* 1 $1\$" "$dir/out.trace"
}

# The detector's events in the collected trace, with their first key.
events() {
	awk '$2 == 1 { print $3, $4 }' "$dir/out.trace"
}

gone() {
	! kill -0 "$1" 2>/dev/null
}

# finish: SIGTERM ends the detector; its exit line must reach the
# collector.
finish() {
	kill -TERM "$detector"
	wait_for 5 gone "$detector"
	wait "$detector"
	wait_for 5 grep -q ' 1 exit why=signal ' "$dir/out.trace"
	stop_collector
}

stopped() {
	[ "$(awk '{ print $3 }' "/proc/$1/stat")" = T ]
}

@test "elect-fd -t: a collector restarted cleanly: nothing lost, nothing said lost" {
	start_collector
	start_detector
	cmd playdead 2
	wait_for 5 traced 'fd op=playdead peer=2'
	stop_collector
	start_collector
	# no other event to carry it: the detector connects again by itself
	cmd playalive 2
	wait_for 5 traced 'fd op=playalive peer=2'
	finish
	run events
	assert_output --regexp "^boot inc=[0-9]+
fd op=playdead
fd op=playalive
exit why=signal\$"
	run elect-check -A trace "$dir/out.trace"
	assert_success
}

@test "elect-fd -t: a collector killed with lines unread: the trace says how many" {
	start_collector
	start_detector
	wait_for 5 traced 'boot .*'
	kill -STOP "$collector"
	wait_for 5 stopped "$collector"
	# node 2 is not there: start, then down, both traced before "down 2"
	# is written; sent, never read, never acknowledged
	cmd start 2
	wait_for 5 grep -qx 'down 2' "$dir/out"
	stop_collector KILL
	start_collector
	cmd playdead 2
	wait_for 5 traced 'fd op=playdead peer=2'
	finish
	# The loss is said when the detector finds the collector back; a
	# loaded host may trace the playdead before that.
	run events
	assert_line --index 0 --regexp "^boot inc=[0-9]+\$"
	assert_line --index 3 "exit why=signal"
	run sh -c "sed -n 2,3p | sort" <<<"$output"
	assert_output "fd op=playdead
lost n=2"
	run elect-check -A trace "$dir/out.trace"
	assert_failure 1
	assert_output --partial 'node 1 lost 2 lines'
	# and its log says when it began and how many, once each
	run grep -c " elect-fd: trace-lost node=1 trace=unix:$sock\$" "$dir/fd.err"
	assert_output 1
	run grep -c " elect-fd: trace-resumed node=1 trace=unix:$sock lost=2\$" \
	    "$dir/fd.err"
	assert_output 1
}

@test "elect-fd -t: a malformed collector address is bad usage" {
	for d in unix: tcp:127.0.0.1 tcp::80; do
		run elect-fd -f "$dir/c.conf" -i 1 -k "$dir/k" -t "$d" < /dev/null
		assert_failure 2
		assert_output --partial "-t $d: "
	done
}
