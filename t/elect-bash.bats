#!/usr/bin/env bats
# share/elect/elect.bash itself: its failures are clear, it cleans up, and
# its two ways of merging agree.  (Every elect-node test uses it too.)

load helper
load node

setup() {
	elect_setup
	C=$(mkcluster 3)
}

teardown() {
	elect_teardown
}

@test "a node that cannot start is named, with its error" {
	run elect_start_cluster --insecure -a nope "$C"
	assert_failure
	assert_output --partial "node 1 did not start"
	assert_output --partial 'unknown algorithm "nope"'
}

@test "a cluster file that is not there" {
	run elect_start_cluster --insecure "$ELECT_DIR/none"
	assert_failure
	assert_output --partial "none: not readable"
}

@test "no leader in time: the statuses are shown" {
	elect_start_cluster --insecure --fd-cmd "$STUB/fd-stub" "$C" -- 1
	run elect_wait_leader 1
	assert_failure
	assert_output --partial "no agreed leader among 1 after 1 s"
	assert_output --partial "1: id=1 "
}

@test "misuse is refused: unknown node states, partitions without --netns" {
	elect_start_cluster --insecure --fd-cmd "$STUB/fd-stub" "$C" -- 1
	run elect_kill 2
	assert_failure
	assert_output --partial "node 2 is not running"
	run elect_resume 1
	assert_failure
	assert_output --partial "node 1 is not paused"
	run elect_start 1
	assert_failure
	assert_output --partial "node 1 is already running"
	run elect_partition "1" "2 3"
	assert_failure
	assert_output --partial "needs elect_start_cluster --netns"
}

@test "kill, pause and resume are written to the harness trace" {
	elect_start_cluster --insecure --fd-cmd "$STUB/fd-stub" "$C" -- 1 2
	elect_pause 1
	[ "$(awk '{ print $3 }' "/proc/${ELECT_PID[1]}/stat")" = T ]
	elect_resume 1
	elect_kill 2
	run awk '{ print $2, $3 }' "$ELECT_DIR/harness.trace"
	assert_output "1 pause
1 resume
2 crash"
	run elect-check -A trace "$ELECT_DIR/harness.trace"
	assert_success
}

# The crash line must precede whatever the next leader writes, on a busy
# host too: it is stamped while the node is frozen, before it dies.
@test "elect_kill stamps the crash while the node is frozen, before it dies" {
	elect_start_cluster --insecure --fd-cmd "$STUB/fd-stub" "$C" -- 1 2
	eval "_orig$(declare -f _elect_log)"
	_elect_log() {
		if [ "$2" = crash ]; then
			ps -e -o pgid= -o stat= | awk -v g="${ELECT_PID[$1]}" \
			    '$1 == g { print $2 }' >"$BATS_TEST_TMPDIR/at-crash"
		fi
		_orig_elect_log "$@"
	}
	elect_kill 2
	# The node and its detector, both stopped.
	run cat "$BATS_TEST_TMPDIR/at-crash"
	assert_equal "${#lines[@]}" 2
	refute_output --regexp '(^|[[:space:]])[^T[:space:]]'
	run kill -0 "${ELECT_PID[2]}"
	assert_failure
	# A paused node is killed where it stands.
	elect_pause 1
	elect_kill 1
	run awk '{ print $2, $3 }' "$ELECT_DIR/harness.trace"
	assert_output "2 crash
1 pause
1 crash"
}

@test "teardown leaves nothing running, paused nodes included" {
	elect_start_cluster --insecure --fd-cmd "$STUB/fd-stub" "$C"
	pids=("${ELECT_PID[@]}")
	fds=()
	for p in "${pids[@]}"; do
		fds+=($(cat "/proc/$p/task/$p/children"))
	done
	[ ${#fds[@]} -eq 3 ]
	elect_pause 2
	elect_teardown
	for p in "${pids[@]}" "${fds[@]}"; do
		wait_for 5 eval '! _elect_alive '"$p"
	done
}

@test "merging without elect-trace gives what elect-trace merge gives" {
	command -v elect-trace >/dev/null || skip "no elect-trace in this build"
	elect_start_cluster --insecure --fd-cmd "$STUB/fd-stub" "$C"
	elect_kill 3
	elect_stop_all
	elect_merge "$ELECT_DIR/a"
	mkdir "$ELECT_DIR/bin"
	for p in elect-node elect-check; do
		ln -s "$(command -v $p)" "$ELECT_DIR/bin/$p"
	done
	PATH=$ELECT_DIR/bin:/usr/bin:/bin elect_merge "$ELECT_DIR/b"
	cmp "$ELECT_DIR/a" "$ELECT_DIR/b"
	[ "$(wc -l <"$ELECT_DIR/a")" -gt 10 ]
}
