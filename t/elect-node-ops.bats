#!/usr/bin/env bats
# elect-node for operators: --wait-for, --socket-group and the callers'
# credentials, --status --json and its exit codes, metrics, and a control
# socket that idle or slow clients cannot lock up.

bats_require_minimum_version 1.5.0

load helper
load node

FD=(--fd-interval 50 --fd-timeout 1000)
TIMING=(--lease 1s --renew 200 --rtt 50 "${FD[@]}")

setup() {
	elect_setup
	PIDS=()
	export LOG=$BATS_TEST_TMPDIR/job.log
	: >"$LOG"
}

teardown() {
	local p
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	elect_teardown
	rmusers
}

@test "--wait-for: strict durations, only with --run-if-leader" {
	run -2 elect-node -i 3 --run-if-leader --wait-for x -- true
	assert_output --partial '--wait-for: "x" is not a duration'
	run -2 elect-node -i 3 --run-if-leader --wait-for 5m -- true
	assert_output --partial '--wait-for: "5m" is not a duration'
	run -2 elect-node -i 3 --run-if-leader --wait-for -1s -- true
	run -2 elect-node -i 3 --run-if-leader --wait-for 3601s -- true
	assert_output --partial '--wait-for: "3601" is too large (0 to 3600)'
	run -2 elect-node -i 3 --status --wait-for 1s
	assert_output --partial "--wait-for goes with --run-if-leader"
	run -2 elect-node -i 3 --run-if-leader --wait-for '' -- true
}

@test "--wait-for: a follower gives up with 124, the leader runs at once" {
	local t0 t1
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	t0=$EPOCHREALTIME
	run -124 elect-node -s "$ELECT_DIR/1/state" --run-if-leader \
	    --wait-for 700ms -- sh -c 'echo ran >>"$LOG"'
	t1=$EPOCHREALTIME
	assert_output --partial "did not come to lead within --wait-for"
	# It waited, and not much longer than asked.
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 0.7 && b - a < 5) }'
	run cat "$LOG"
	assert_output ""
	# Nothing stays registered with the daemon.
	run elect_status 1
	assert_output --partial " waiting=0"
	# -E does not change it: the wait ran out, the node did not say no.
	run -124 elect-node -s "$ELECT_DIR/1/state" --run-if-leader -E 9 \
	    --wait-for 1ms -- true
	run elect-node -s "$ELECT_DIR/3/state" --run-if-leader --wait \
	    --wait-for 10s -- sh -c 'echo "$ELECT_TOKEN"'
	assert_success
	assert_output --regexp "^[0-9]+$"
}

@test "--socket-group: strict, the daemon's only, and the group must exist" {
	run -2 elect-node -f /dev/null -i 1 --insecure --socket-group ''
	assert_output --partial '--socket-group: "" is not a group name'
	run -2 elect-node -f /dev/null -i 1 --insecure --socket-group nosuchgroup-x
	assert_output --partial '--socket-group: no group "nosuchgroup-x"'
	run -2 elect-node -f /dev/null -i 1 --insecure --socket-group 4294967295
	assert_output --partial "is too large"
	run -2 elect-node -f /dev/null -i 1 --insecure --socket-group ' 0'
	run -2 elect-node -i 1 --status --socket-group root
	assert_output --partial "--status does not use --socket-group"
}

# As other users: made here when root (and removed), else skipped.
mkusers() {
	[ "$(id -u)" = 0 ] || skip "--socket-group: needs root to make users"
	command -v useradd >/dev/null && command -v runuser >/dev/null ||
	    skip "--socket-group: no useradd or runuser"
	G=elg$$ U1=elm$$ U2=elo$$
	groupadd "$G"
	useradd -M -N -g nogroup -G "$G" -s /bin/sh "$U1"
	useradd -M -N -g nogroup -s /bin/sh "$U2"
	USERS_MADE=1
}

rmusers() {
	[ -n "${USERS_MADE:-}" ] || return 0
	userdel "$U1" 2>/dev/null; userdel "$U2" 2>/dev/null
	groupdel "$G" 2>/dev/null
	rm -rf "$OPEN_DIR"
}

as() {
	local u=$1
	shift
	runuser -u "$u" -- "$@"
}

@test "--socket-group: its members ask and act, others cannot; SO_PEERCRED decides" {
	mkusers
	OPEN_DIR=$(mktemp -d /tmp/elect-ops.XXXXXX)
	chmod 755 "$OPEN_DIR"
	elect_setup "$OPEN_DIR/elect"
	chmod 755 "$OPEN_DIR/elect"
	C=$(mkcluster 2)
	elect_start_cluster --insecure -a bully-fd --fd-cmd "$STUB/fd-stub" \
	    --socket-group "$G" "$C" -- 1
	local d=$ELECT_DIR/1/state
	chmod 755 "$ELECT_DIR/1"
	run stat -c '%a %G' "$d" "$d/control"
	assert_line --index 0 "710 $G"
	assert_line --index 1 "660 $G"
	# A member asks, and may act: the edict reaches the algorithm.
	run as "$U1" elect-node -s "$d" --status
	[[ "$output" == "id=1 "* ]] || fail "member: $output"
	run as "$U1" elect-node -s "$d" --edict hello
	assert_output --partial "edicts need -a lease"
	# Another user cannot even connect.
	run -3 as "$U2" elect-node -s "$d" --status
	assert_output --partial "Permission denied"
	# The socket opened to all by hand: SO_PEERCRED still refuses the
	# edict and a guarded command, and the daemon logs who asked.
	chmod 666 "$d/control"
	chmod 711 "$d"
	run as "$U2" elect-node -s "$d" --status
	[[ "$output" == "id=1 "* ]] || fail "asking: $output"
	run -2 as "$U2" elect-node -s "$d" --edict hello
	assert_output --partial "edict: not allowed to uid $(id -u "$U2")"
	run -3 as "$U2" elect-node -s "$d" --run-if-leader -- true
	assert_output --partial "task: not allowed to uid $(id -u "$U2")"
	run cat "$ELECT_DIR/1/stderr"
	assert_output --partial "control: edict from uid $(id -u "$U1") pid "
	assert_output --partial "control: edict refused to uid $(id -u "$U2") pid "
	assert_output --partial "not in group $G"
	elect_teardown
	rmusers
}
