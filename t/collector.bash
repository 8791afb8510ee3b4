# Loaded by the bats files that run elect-trace collect: a temporary
# directory $dir, a socket path $sock, $pids killed in teardown, and
# start_collector/stop_collector.  A file with more to set up and tear
# down calls collector_setup and collector_teardown from its own.

collector_setup() {
	dir=$(mktemp -d "${BATS_TMPDIR:-/tmp}/collect.XXXXXX")
	sock=$dir/c.sock
	pids=()
}

collector_teardown() {
	local p
	kill_own TERM "${pids[@]}"
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$dir"
}

setup() {
	collector_setup
}

teardown() {
	collector_teardown
}

# start_collector [ARGS...]: a collector on $sock writing $dir/out.trace,
# its diagnostics in $dir/err; $collector is its pid.
start_collector() {
	elect-trace collect -l "unix:$sock" -o "$dir/out.trace" "$@" \
	    2>> "$dir/err" &
	collector=$!
	pids+=("$collector")
	# until it answers (a stale socket may be there before)
	wait_for 5 sh -c ": | trawsend 'unix:$sock' 2>/dev/null"
}

# start_tcp_collector [ARGS...]: the same on tcp:127.0.0.1:$port, a free
# port.
start_tcp_collector() {
	port=$(freeport)
	elect-trace collect -l "tcp:127.0.0.1:$port" -o "$dir/out.trace" "$@" \
	    2>> "$dir/err" &
	collector=$!
	pids+=("$collector")
	wait_for 5 sh -c "echo | trawsend tcp:127.0.0.1:$port 2>/dev/null"
}

# stop_collector [SIGNAL]: fails if the collector does not exit 0 on
# SIGTERM.
stop_collector() {
	kill -"${1:-TERM}" "$collector"
	if [ "${1:-TERM}" = TERM ]; then
		wait "$collector"
	else
		wait "$collector" || true
	fi
}
