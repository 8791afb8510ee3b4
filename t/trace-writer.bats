#!/usr/bin/env bats
# The shared trace writer's socket side (what elect-node -t and elect-fd -t
# use): it waits for a collector, survives its restarts, and accounts for
# every line it could not deliver.

load helper
load collector

seqs() {
	awk '$3 == "send" { sub(/.*elid=/, ""); print }' "$dir/out.trace"
}

lost_in_trace() {
	awk '$3 == "lost" { sub(/n=/, "", $4); s += $4 } END { print s + 0 }' \
	    "$dir/out.trace"
}

# A writer of 600 lines in a second, and its collector stopped with SIGNAL
# after the first hundred, and started again after an outage.
restart_under_writer() {
	start_collector
	twrite -c 600 -r 600 -n 3 "unix:$sock" > "$dir/lost" &
	writer=$!
	pids+=("$writer")
	wait_for 5 sh -c "[ \$(wc -l < '$dir/out.trace') -ge 100 ]"
	stop_collector "$1"
	sleep 0.3	# an outage: the writer queues and retries meanwhile
	start_collector
	wait "$writer"
	wait_for 5 grep -q ' 3 exit' "$dir/out.trace"
	stop_collector
}

@test "writer: a collector that restarts cleanly loses nothing" {
	restart_under_writer TERM
	assert_equal "$(cat "$dir/lost")" 0
	run seqs
	assert_output "$(seq 1 600)"
	assert_equal "$(lost_in_trace)" 0
	run grep -c ' crash$' "$dir/out.trace"
	assert_output 0
}

@test "writer: a collector killed outright: what is missing is counted lost" {
	restart_under_writer KILL
	# no line twice, every line there or counted, and said in the trace
	run sh -c "awk '\$3 == \"send\"' '$dir/out.trace' | sort | uniq -d"
	assert_output ""
	missing=$((600 - $(seqs | wc -l)))
	lost=$(lost_in_trace)
	[ "$missing" -le "$lost" ]
	assert_equal "$(cat "$dir/lost")" "$lost"
}

@test "writer: started before the collector, it waits and delivers" {
	twrite -c 200 -r 1000 -n 2 "unix:$sock" > "$dir/lost" &
	writer=$!
	pids+=("$writer")
	sleep 0.3
	start_collector
	wait "$writer"
	wait_for 5 grep -q ' 2 exit' "$dir/out.trace"
	assert_equal "$(cat "$dir/lost")" 0
	run seqs
	assert_output "$(seq 1 200)"
}

@test "writer: no collector: lines queue up to a bound, the rest are counted" {
	run twrite -c 20 -r 1000 -n 2 -w 0 "unix:$sock"
	assert_success
	# the queue holds them: nothing is lost until it is full
	assert_output 0
	run twrite -c 10000 -r 1000000 -n 2 -w 0 "unix:$sock"
	assert_success
	[ "$output" -gt 0 ]
}

@test "writer: a new trace file is 0600, 0640 in a set-group-id directory" {
	(umask 022; twrite -c 1 -r 1000 -n 5 "$dir/t1" >/dev/null)
	run stat -c %a "$dir/t1"
	assert_output 600
	mkdir "$dir/shared"
	chmod 2750 "$dir/shared"
	(umask 022; twrite -c 1 -r 1000 -n 5 "$dir/shared/t2" >/dev/null)
	run stat -c %a "$dir/shared/t2"
	assert_output 640
	# One that exists keeps its mode: the operator chose it.
	chmod 644 "$dir/t1"
	twrite -c 1 -r 1000 -n 5 "$dir/t1" >/dev/null
	run stat -c %a "$dir/t1"
	assert_output 644
}

@test "writer: a file, and bad destinations" {
	run twrite -c 3 -r 1000 -n 5 "$dir/file.trace"
	assert_output 0
	run awk '{ print $2, $3 }' "$dir/file.trace"
	assert_output "$(printf '5 send\n5 send\n5 send\n5 exit')"
	for d in unix: tcp:nowhere tcp::80 "tcp:[::1]:" \
	    "unix:$(printf 'x%.0s' $(seq 1 200))"; do
		run twrite -c 1 "$d"
		assert_failure 2
	done
}
