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
		kill_own KILL "$p"
		wait "$p" 2>/dev/null
	done
	elect_teardown
	rmusers
}

@test "--wait-for: strict durations, only with --run-if-leader" {
	run -2 elect-node -i 3 --run-if-leader --wait-for x -- true
	assert_output --partial '--wait-for: "x" is not a duration (a number, then ns, us, ms, s, m or h; seconds if none)'
	run -2 elect-node -i 3 --run-if-leader --wait-for 5x -- true
	assert_output --partial '--wait-for: "5x" is not a duration'
	run -2 elect-node -i 3 --run-if-leader --wait-for -1s -- true
	run -2 elect-node -i 3 --run-if-leader --wait-for 1. -- true
	run -2 elect-node -i 3 --run-if-leader --wait-for .5 -- true
	run -2 elect-node -i 3 --run-if-leader --wait-for 1.5.1 -- true
	run -2 elect-node -i 3 --run-if-leader --wait-for 1.0123456789 -- true
	run -2 elect-node -i 3 --run-if-leader --wait-for 721h -- true
	assert_output --partial '--wait-for: "721h" is too long (at most 2592000s)'
	# Seconds, fractions and units as flock -w and timeout(1) read them:
	# past the parsing, the missing daemon answers (3).
	for d in 10 1.5 1.5s 2m 1h 720h 250ms; do
		run -3 elect-node -s "$BATS_TEST_TMPDIR/none" --run-if-leader \
		    --wait-for "$d" -- true
	done
	run -2 elect-node -i 3 --status --wait-for 1s
	assert_output --partial "--wait-for goes with --run-if-leader"
	run -2 elect-node -i 3 --run-if-leader --wait-for '' -- true
	# The timings keep milliseconds without a unit, and take fractions.
	run -2 elect-node -f /dev/null -i 1 --insecure --lease 1.5x
	assert_output --partial "milliseconds if none"
}

@test "--wait-for: a follower gives up with 124, the leader runs at once" {
	local t0 t1
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	# A bare number is seconds, as flock -w 1.5 reads it.
	t0=$EPOCHREALTIME
	run -124 elect-node -s "$ELECT_DIR/1/state" --run-if-leader \
	    --wait-for 1.5 -- sh -c 'echo ran >>"$LOG"'
	t1=$EPOCHREALTIME
	assert_output --partial "did not come to lead within --wait-for"
	# It waited, and not much longer than asked.
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 1.5 && b - a < 6) }'
	run cat "$LOG"
	assert_output ""
	# Nothing stays registered with the daemon.
	run elect_status 1
	assert_output --partial " waiting=0"
	# -E gives the code, as flock -E does for a conflict.
	run -9 elect-node -s "$ELECT_DIR/1/state" --run-if-leader -E 9 \
	    --wait-for 1ms -- true
	assert_output --partial "did not come to lead within --wait-for"
	run elect-node -s "$ELECT_DIR/3/state" --run-if-leader --wait \
	    --wait-for 10 -- sh -c 'echo "$ELECT_TOKEN"'
	assert_success
	assert_output --regexp "^[0-9]+$"
}

@test "--wait without --run-if-leader names what is missing" {
	run -2 elect-node -i 1 --wait -- true
	assert_output "elect-node: --wait goes with --run-if-leader"
	run -2 elect-node -i 1 --wait-for 10 true
	assert_output "elect-node: --wait-for goes with --run-if-leader"
	run -2 elect-node -i 1 --status true
	assert_output --partial 'unexpected argument "true" (a command to run goes after --run-if-leader --)'
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

# The users, and a cluster directory the users may pass through (the
# test's own temporary directory is root's only).
open_setup() {
	mkusers
	OPEN_DIR=$(mktemp -d /tmp/elect-ops.XXXXXX)
	chmod 755 "$OPEN_DIR"
	elect_setup "$OPEN_DIR/elect"
	chmod 755 "$OPEN_DIR/elect"
}

# The packaged layout, /var/lib/elect/ID, in a mount namespace of the
# test's own: a member types -i ID and nothing else.
@test "--socket-group: a member's --status -i ID reaches the packaged daemon" {
	mkusers
	unshare -m true 2>/dev/null || skip "no mount namespaces"
	C=$(mkcluster 1)
	local out=$BATS_TEST_TMPDIR/out
	unshare -m sh -c '
	    set -u
	    mount --make-rprivate / && mount -t tmpfs tmpfs /var/lib ||
		exit 9
	    mkdir -m 700 /var/lib/elect
	    "$1" -f "$2" -i 1 --insecure -s /var/lib/elect/1 \
		--socket-group "$3" 2>"$6/daemon.err" 3>&- &
	    pid=$!
	    trap "kill $pid 2>/dev/null" EXIT
	    i=0
	    until "$1" -s /var/lib/elect/1 --status >/dev/null 2>&1 ||
		[ $i -gt 400 ]; do
		i=$((i + 1))
		sleep 0.02
	    done
	    as() { u=$1; shift; env -u XDG_STATE_HOME HOME=/nonexistent \
		setpriv --reuid="$u" --regid=nogroup --init-groups -- "$@"; }
	    as "$4" "$1" -i 1 --status; echo "closed rc=$?"
	    chmod 755 /var/lib/elect
	    as "$4" "$1" -i 1 --status; echo "member rc=$?"
	    as "$5" "$1" -i 1 --status; echo "other rc=$?"
	    kill $pid; wait $pid' _ "$ELECT_BUILD/bin/elect-node" "$C" "$G" \
	    "$U1" "$U2" "$BATS_TEST_TMPDIR" >"$out" 2>&1
	cat "$out" "$BATS_TEST_TMPDIR/daemon.err" >&3
	run cat "$out"
	# /var/lib/elect made 0700: the daemon says so, the member is told
	# it may not pass (5), not that no daemon runs (3).
	assert_line "elect-node: /var/lib/elect/1/control: permission denied (root and the daemon's --socket-group may connect)"
	assert_line "closed rc=5"
	grep -Eq "socket-group node=1 group=$G cannot reach /var/lib/elect/1/control: /var/lib/elect is mode 0700" \
	    "$BATS_TEST_TMPDIR/daemon.err"
	assert_line --regexp "^id=1 "
	assert_line "member rc=0"
	assert_line "other rc=5"
}

@test "--socket-group: its members ask and act, others cannot; SO_PEERCRED decides" {
	open_setup
	C=$(mkcluster 2)
	elect_start_cluster --insecure -a bully-fd --fd-cmd "$STUB/fd-stub" \
	    --socket-group "$G" "$C" -- 1
	local d=$ELECT_DIR/1/state
	chmod 755 "$ELECT_DIR/1"
	run stat -c '%a %G' "$d" "$d/control"
	assert_line --index 0 "710 $G"
	assert_line --index 1 "660 $G"
	# A member asks, and may run guarded commands, but not edict: that
	# is root's, the daemon user's and --operator-group's.
	run as "$U1" elect-node -s "$d" --status
	[[ "$output" == "id=1 "* ]] || fail "member: $output"
	run -2 as "$U1" elect-node -s "$d" --edict hello
	assert_output --partial "edict: not allowed to uid $(id -u "$U1")"
	{ echo "epoch 1"; cat "$C"; } >"$OPEN_DIR/next.conf"
	chmod 644 "$OPEN_DIR/next.conf"
	run -1 as "$U1" elect-node -s "$d" --reconfigure "$OPEN_DIR/next.conf"
	assert_output --partial "not allowed to uid $(id -u "$U1")"
	run elect-node -s "$d" --edict hello
	assert_output --partial "edicts need -a lease"
	# Another user cannot even connect.
	run -5 as "$U2" elect-node -s "$d" --status
	assert_output --partial "permission denied (root and the daemon's --socket-group may connect)"
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
	assert_output --partial "control: edict refused to uid $(id -u "$U1") pid "
	assert_output --partial "not in group (no --operator-group)"
	assert_output --partial "control: edict refused to uid $(id -u "$U2") pid "
	assert_output --partial "control: task refused to uid $(id -u "$U2") pid "
	assert_output --partial "not in group $G"
	elect_teardown
	rmusers
}

@test "--operator-group: its members may edict, a mere socket-group member may not" {
	open_setup
	C=$(mkcluster 2)
	elect_start_cluster --insecure -a bully-fd --fd-cmd "$STUB/fd-stub" \
	    --socket-group "$G" --operator-group "$G" "$C" -- 1
	local d=$ELECT_DIR/1/state
	chmod 755 "$ELECT_DIR/1"
	run as "$U1" elect-node -s "$d" --edict hello
	assert_output --partial "edicts need -a lease"
	run cat "$ELECT_DIR/1/stderr"
	assert_output --partial "control: edict from uid $(id -u "$U1") pid "
	run -2 elect-node -i 1 --status --operator-group "$G"
	assert_output --partial "--status does not use --operator-group"
	run -2 elect-node -f /dev/null -i 1 --insecure --operator-group nosuchgroup-x
	assert_output --partial '--operator-group: no group "nosuchgroup-x"'
}

# Under lease a guarded command locks the node's tasks.lock, which the
# daemon passes a member's guard with its registration's answer: the
# member may not open it (it could hold it past the daemon's death and
# keep every testament waiting, issue 28); the testament stays the
# daemon's user's, so a member's guard cannot release a dead daemon's
# lease and says so.
@test "--socket-group: a member runs a guarded command under lease; the testament is not its to read" {
	open_setup
	C=$(mkcluster 3)
	local um
	um=$(umask)
	umask 077
	elect_start_cluster --insecure "${TIMING[@]}" --socket-group "$G" "$C"
	umask "$um"
	assert_equal "$(elect_wait_leader 20)" 3
	local d=$ELECT_DIR/3/state
	chmod 755 "$ELECT_DIR/3"
	run stat -c '%a %G' "$d/tasks.lock" "$d/testament"
	assert_output $'600 root\n600 root'
	run as "$U1" flock -s -n "$d/tasks.lock" true
	assert_failure
	assert_output --partial "Permission denied"
	run as "$U1" elect-node -s "$d" --run-if-leader -- sh -c 'echo ran'
	assert_success
	assert_output "ran"
	# Killed under the member's command, the daemon's lease runs out.
	as "$U1" elect-node -s "$d" --run-if-leader -- sleep 30 \
	    >"$OPEN_DIR/member.out" 2>&1 &
	PIDS+=($!)
	wait_for 10 pgrep -u "$U1" -x sleep
	elect_kill 3
	wait_for 20 grep -q "lease runs out" "$OPEN_DIR/member.out"
	run cat "$OPEN_DIR/member.out"
	assert_line "elect-node: the node's daemon died; stopping sleep"
	assert_line --partial "testament: Permission denied"
	elect_teardown
	rmusers
}

# The control socket under a flood (issue 28): 40 clients that keep every
# slot they get and connect again at once.  The leader's guard asks for
# its lease on its registration, so its deadline moves throughout;
# --status tells busy (5) from no daemon (3); a member's flood leaves
# root its slots; a member may not edict; and a leader killed during the
# flood fails over at once.
leads() {
	elect_status "$1" >/dev/null 2>&1
}

# gone ID: no daemon answers on node ID's socket (3), not merely one that
# no longer leads (1, 4).
gone() {
	local rc=0
	elect_status "$1" >/dev/null 2>&1 || rc=$?
	[ "$rc" = 3 ]
}

@test "control: a flood of clients stops no guarded command; --status answers through root's; a member's flood leaves root its slots, and no edict" {
	open_setup
	local d flood=$BATS_TEST_DIRNAME/tools/ctl-flood.py g t0 t1 fp
	C=$(mkcluster 3)
	# One name at most: the clients a daemon takes are 16 and one per
	# name, and the floods below are to take them all.
	elect_start_cluster -k "$(mkkey "$OPEN_DIR/key")" "${TIMING[@]}" \
	    --socket-group "$G" --names-max 1 "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	d=$ELECT_DIR/3/state
	chmod 755 "$ELECT_DIR/3"
	elect-node -s "$d" --run-if-leader -- sh -c \
	    'while :; do echo "3 tick" >>"$LOG"; sleep 0.05; done' \
	    2>"$BATS_TEST_TMPDIR/job.err" &
	g=$!
	PIDS+=("$g")
	wait_for 10 grep -q "^3 tick" "$LOG"

	# Root's own flood takes every slot: the job runs on through three
	# leases, and --status is answered at the door all the same.
	python3 "$flood" "$d/control" 40 6 "$BATS_TEST_TMPDIR/ready1" \
	    >"$BATS_TEST_TMPDIR/flood1" &
	fp=$!
	PIDS+=("$fp")
	wait_for 10 test -s "$BATS_TEST_TMPDIR/ready1"
	local i
	for i in 1 2 3 4 5; do
		run -0 elect-node -s "$d" --status
		assert_output --partial " role=leader "
	done
	wait "$fp"
	run cat "$BATS_TEST_TMPDIR/flood1"
	assert_output --regexp "^busy [1-9][0-9]* answered [1-9][0-9]*$"
	kill -0 "$g"
	run cat "$BATS_TEST_TMPDIR/job.err"
	refute_output --partial "stopping"

	# A member's flood: it gets its share, root's --status still
	# answers within a second, and the job runs on.
	run -2 as "$U1" elect-node -s "$d" --edict hello
	assert_output --partial "edict: not allowed to uid $(id -u "$U1")"
	: >"$LOG"
	: >"$OPEN_DIR/ready2"
	chown "$U1" "$OPEN_DIR/ready2"
	as "$U1" python3 "$flood" "$d/control" 40 3 "$OPEN_DIR/ready2" \
	    >"$BATS_TEST_TMPDIR/flood2" &
	fp=$!
	PIDS+=("$fp")
	wait_for 10 test -s "$OPEN_DIR/ready2"
	# (How long it takes is the benchmark's to say, not a test's.)
	run -0 timeout 10 elect-node -s "$d" --status
	# Killed during the flood, the leader fails over within a lease.
	t0=$EPOCHREALTIME
	elect_kill 3
	wait_for 10 leads 2
	t1=$EPOCHREALTIME
	echo "# failover during a member's flood: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s" >&3
	wait "$fp" || true
	run cat "$BATS_TEST_TMPDIR/job.err"
	refute_output --partial "deadline"
	assert_line --partial "died; node 3's lease released on its behalf"
}

# A registration that a member keeps open on the leader without a
# command to stop (issue 28) holds a SIGTERM handover up for two leases
# at most, as elect-node(1) says; then the node leaves without releasing.
@test "a task registration left open delays a leaving leader by two leases at most" {
	local t0 t1 reg=$BATS_TEST_TMPDIR/reg
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"elect 1 task\n")
got = b""
while b"\n" not in got:
    got += s.recv(4096)
open(sys.argv[2], "w").write(got.decode())
time.sleep(60)' "$ELECT_DIR/3/state/control" "$reg" &
	PIDS+=($!)
	wait_for 10 grep -q "leader=yes" "$reg"
	t0=$EPOCHREALTIME
	kill -TERM "${ELECT_PID[3]}"
	wait_for 10 gone 3
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 2.5) }' ||
	    fail "left after $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s"
	run cat "$ELECT_DIR/3/stderr"
	assert_output --partial "task-stop-late node=3 tasks=1"
}

# --- status: ages, JSON, exit codes ---

@test "status pieces: deadlines as seconds left, fields as JSON, strictly" {
	run metrics-tool <<-'EOF'
	extra 1500000000 lease_until=2 token=5 hint=3
	extra 3000000000 grant_until=2.5 verified_until=x quiet_until=4.0000001
	extra 0 token=- x_until=
	json a=1 b=-1 c=- d=01 e=1.5 f=1. g="x\ peers=2/0.5/up/-,3/-/-/algo
	json peers=-
	json a
	json =1
	json peers=x/1/2/3
	json peers=2/1/2
	json peers=2/1/2/3/4
	json peers=2/1/2/3,
	EOF
	assert_line --index 0 "lease_left=0.500 hint=3"
	assert_line --index 1 "grant_left=0.000 verified_until=x quiet_left=1.000"
	assert_line --index 2 "x_until="
	assert_line --index 3 '{"a":1,"b":"-1","c":null,"d":"01","e":1.5,"f":"1.","g":"\"x\\","peers":[{"id":2,"heard_ago":0.5,"detector":"up","mismatch":null},{"id":3,"heard_ago":null,"detector":null,"mismatch":"algo"}]}'
	assert_line --index 4 '{"peers":[]}'
	for i in 5 6 7 8 9 10; do
		assert_line --index "$i" "error"
	done
	# Every rendering is JSON.
	python3 -c 'import json, sys; [json.loads(l) for l in sys.stdin]' \
	    <<<"$(sed -n '4,5p' <<<"$output")"
}

@test "--status --json: one object; exit 0 leader, 1 follower, 4 no leader" {
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	run -0 elect-node -s "$ELECT_DIR/3/state" --status --json
	python3 -c 'import json, sys
o = json.loads(sys.argv[1])
assert o["id"] == 3 and o["role"] == "leader" and o["leader"] == 3, o
assert isinstance(o["token"], int) and o["token"] > 0, o
assert o["lease_left"] <= 1.0, o
assert [p["id"] for p in o["peers"]] == [1, 2], o
for p in o["peers"]:
    assert p["heard_ago"] < 5 and p["mismatch"] is None, p
' "$output"
	run -1 elect-node -s "$ELECT_DIR/1/state" --status --json
	python3 -c 'import json, sys
o = json.loads(sys.argv[1])
assert o["role"] == "follower" and o["leader"] == 3 and o["token"] is None, o
assert "grant_left" in o and not any(k.endswith("_until") for k in o), o
' "$output"
	# The plain line: the same fields, no monotonic clock readings.
	run -1 elect_status 1
	assert_output --regexp " token=- peers=2/[-0-9.]+/[-a-z]+/-,3/[0-9.]+/[-a-z]+/- "
	refute_output --partial "_until="
	# Alone, node 2 has no quorum: 4.
	elect_kill 3
	elect_kill 1
	wait_for 20 bash -c '"$0" -s "$1" --status >/dev/null; [ $? = 4 ]' \
	    "$ELECT_NODE" "$ELECT_DIR/2/state"
	run -4 elect-node -s "$ELECT_DIR/2/state" --status --json
	python3 -c 'import json, sys
o = json.loads(sys.argv[1]); assert o["role"] == "none" and o["leader"] is None, o
' "$output"
	run -2 elect-node -s "$ELECT_DIR/2/state" --json
	assert_output --partial "--json goes with --status"
}

# --- metrics ---

@test "metrics: failovers of milliseconds fill buckets of their own" {
	# A leader lost at 3 s, the next known 20 ms later, as under the
	# default timings.
	run metrics-tool <<-'EOF'
	status 1000000000 1 7 0 9
	status 3000000000 0 0 1 0
	status 3020000000 0 3 0 0
	render 4000000000
	EOF
	assert_line 'elect_failover_seconds_bucket{le="0.001"} 0'
	assert_line 'elect_failover_seconds_bucket{le="0.01"} 0'
	assert_line 'elect_failover_seconds_bucket{le="0.025"} 1'
	assert_line 'elect_failover_seconds_bucket{le="0.1"} 1'
	assert_line "elect_failover_seconds_count 1"
}

@test "metrics_render: a pure function of the counters; promtool takes it" {
	command -v promtool >/dev/null || skip "no promtool (Debian: prometheus)"
	# 0.5 s leaderless, leads 2 s from t=1, loses it at 3; node 3 leads
	# from 3.25; drops of two reasons; three renewals.
	run metrics-tool <<-'EOF'
	status 0 0 0 1 0
	status 500000000 0 7 0 0
	status 1000000000 1 7 0 9
	status 3000000000 0 0 1 0
	status 3250000000 0 3 0 0
	drop bad-mac
	drop bad-mac
	drop replay
	rtt 400000
	rtt 3000000
	rtt 2000000000
	render 4000000000
	render 4000000000 100
	EOF
	assert_line 'elect_node_info{id="7",algo="lease"} 1'
	assert_line "elect_leader 0"
	assert_line "elect_known_leader 3"
	assert_line "elect_fencing_token 9"
	assert_line "elect_leaderships_total 1"
	assert_line "elect_leader_seconds_total 2.000000000"
	assert_line "elect_elections_total 1"
	assert_line "elect_leader_changes_total 1"
	assert_line "elect_failovers_total 1"
	assert_line 'elect_failover_seconds_bucket{le="0.25"} 1'
	assert_line 'elect_failover_seconds_bucket{le="0.1"} 0'
	assert_line 'elect_failover_seconds_bucket{le="0.001"} 0'
	assert_line "elect_failover_seconds_sum 0.250000000"
	assert_line 'elect_drops_total{reason="bad-mac"} 2'
	assert_line 'elect_drops_total{reason="replay"} 1'
	assert_line 'elect_drops_total{reason="other"} 0'
	assert_line "elect_peers_up 1"
	assert_line 'elect_lease_renew_rtt_seconds_bucket{le="0.0005"} 1'
	assert_line 'elect_lease_renew_rtt_seconds_bucket{le="0.005"} 2'
	assert_line 'elect_lease_renew_rtt_seconds_bucket{le="1"} 2'
	assert_line 'elect_lease_renew_rtt_seconds_bucket{le="+Inf"} 3'
	assert_line "elect_lease_renew_rtt_seconds_count 3"
	# Too small a buffer says so, never a cut text.
	assert_equal "${lines[-1]}" "error"
	# The same counters, the same text.
	sed '$d' <<<"$output" >"$BATS_TEST_TMPDIR/a.prom"
	run promtool check metrics <"$BATS_TEST_TMPDIR/a.prom"
	assert_success
	assert_output ""
}

@test "--metrics: strict ADDR:PORT, daemon only" {
	run metrics-tool <<-'EOF'
	addr 127.0.0.1:9100
	addr [::1]:9100
	addr 0.0.0.0:65535
	addr localhost:9100
	addr 127.0.0.1:0
	addr 127.0.0.1:65536
	addr 127.0.0.1:09100
	addr 127.0.0.1:
	addr :9100
	addr 01.2.3.4:1
	addr [::1]9100
	addr ::1:9100
	addr 1.2.3.4:+80
	addr 1.2.3.4: 80
	EOF
	assert_line --index 0 "inet 127.0.0.1 9100"
	assert_line --index 1 "inet6 ::1 9100"
	assert_line --index 2 "inet 0.0.0.0 65535"
	for i in $(seq 3 13); do
		[[ "${lines[$i]}" == "refused: "* ]] || fail "line $i: ${lines[$i]}"
	done
	run -2 elect-node -f /dev/null -i 1 --insecure --metrics localhost:9100
	assert_output --partial '--metrics: "localhost:9100": not an IPv4 address'
	run -2 elect-node -i 1 --status --metrics 127.0.0.1:9100
	assert_output --partial "--status does not use --metrics"
	run -2 elect-node -f /dev/null -i 1 --insecure --metrics-file ''
	assert_output --partial "--metrics-file: an empty path"
}

# metric FILE NAME: the value of NAME (no labels) in FILE.
metric() {
	awk -v n="$2" '$1 == n { print $2 }' "$1"
}

# Node 2 counts a failover past $1 and leads.
failed_over() {
	local f=$ELECT_DIR/m2.prom
	[ "$(metric "$f" elect_failovers_total)" -gt "$1" ] 2>/dev/null &&
	    [ "$(metric "$f" elect_leader)" = 1 ]
}

@test "metrics: served over HTTP and written to a file; a failover counted" {
	command -v promtool >/dev/null || skip "no promtool (Debian: prometheus)"
	local port
	C=$(mkcluster 3)
	port=$(freeport)
	elect_start_cluster --insecure "${TIMING[@]}" "$C" -- 1
	elect_start 2 --metrics-file "$ELECT_DIR/m2.prom"
	elect_start 3 --metrics "127.0.0.1:$port"
	assert_equal "$(elect_wait_leader 20)" 3
	run python3 -c 'import sys, urllib.request
r = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=10)
print(r.headers["Content-Type"]); sys.stdout.write(r.read().decode())' "$port"
	assert_success
	assert_line --index 0 "text/plain; version=0.0.4; charset=utf-8"
	assert_line "elect_leader 1"
	assert_line "elect_peers 2"
	assert_line --regexp '^elect_lease_renew_rtt_seconds_count [1-9][0-9]*$'
	# The leader renews with its peers: datagrams both ways.
	assert_line --regexp '^elect_datagrams_sent_total [1-9][0-9]*$'
	assert_line --regexp '^elect_datagrams_received_total [1-9][0-9]*$'
	sed 1d <<<"$output" | promtool check metrics
	run python3 -c 'import sys, urllib.error, urllib.request
try:
    urllib.request.urlopen("http://127.0.0.1:%s/nope" % sys.argv[1], timeout=10)
except urllib.error.HTTPError as e:
    print(e.code)' "$port"
	assert_output 404
	# The file: whole, valid, and renewed.
	wait_for 10 test -s "$ELECT_DIR/m2.prom"
	promtool check metrics <"$ELECT_DIR/m2.prom"
	# written each second: the leader shows once node 2 knows it
	wait_for 10 eval \
	    '[ "$(metric "$ELECT_DIR/m2.prom" elect_known_leader)" = 3 ]'
	# Counted from here: on a loaded host node 2 may have led before
	# node 3 came up.
	local f0 l0 f1 l1 n0
	f0=$(metric "$ELECT_DIR/m2.prom" elect_failover_seconds_count)
	l0=$(metric "$ELECT_DIR/m2.prom" elect_leaderships_total)
	n0=$(metric "$ELECT_DIR/m2.prom" elect_failovers_total)
	elect_kill 3
	wait_for 30 failed_over "$n0"
	promtool check metrics <"$ELECT_DIR/m2.prom"
	f1=$(metric "$ELECT_DIR/m2.prom" elect_failover_seconds_count)
	l1=$(metric "$ELECT_DIR/m2.prom" elect_leaderships_total)
	[ "$f1" -gt "$f0" ] && [ "$l1" -gt "$l0" ] ||
	    fail "failovers $f0 -> $f1, leaderships $l0 -> $l1"
	[ ! -e "$ELECT_DIR/m2.prom.tmp" ]
}

# maps ID: the files node ID has mapped.
maps() {
	awk '{ print $6 }' "/proc/${ELECT_PID[$1]}/maps"
}

# libmicrohttpd brings gnutls and its kin, megabytes resident: a node
# loads it for --metrics alone, and one that cannot says why and exits 1.
@test "metrics: libmicrohttpd is loaded for --metrics only; a node that cannot load it exits 1 with the reason" {
	local port lib
	C=$(mkcluster 2)
	port=$(freeport)
	elect_start_cluster --insecure "${TIMING[@]}" "$C" -- 1
	elect_start 2 --metrics "127.0.0.1:$port"
	run maps 1
	refute_output --partial libmicrohttpd
	refute_output --partial libgnutls
	run maps 2
	assert_output --partial libmicrohttpd.so.12
	elect_stop_all
	[ "$(id -u)" = 0 ] || skip "hiding the library needs root"
	command -v unshare >/dev/null || skip "no unshare"
	lib=$(readlink -f "$(ldconfig -p |
	    awk '/libmicrohttpd\.so\.12 / { print $NF; exit }')")
	[ -f "$lib" ] || fail "libmicrohttpd.so.12 not found: $lib"
	run -1 unshare -m sh -c 'mount --bind /dev/null "$1" && shift &&
	    exec "$@"' sh "$lib" elect-node -f "$C" -i 2 --insecure \
	    -s "$BATS_TEST_TMPDIR/s2" --metrics "127.0.0.1:$port"
	assert_output --partial "elect-node: --metrics 127.0.0.1:$port: "
	assert_output --partial "libmicrohttpd.so.12"
}

@test "metrics: a scrape is answered while 20 slow clients hold connections" {
	local port ready=$ELECT_DIR/slow.ready slow
	C=$(mkcluster 1)
	port=$(freeport)
	elect_start_cluster --insecure "${TIMING[@]}" \
	    --metrics "127.0.0.1:$port" "$C"
	wait_for 20 python3 -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$port"
	"$BATS_TEST_DIRNAME/tools/http-slow.py" "127.0.0.1:$port" 20 60 \
	    "$ready" >"$ELECT_DIR/slow.out" 2>&1 &
	slow=$!
	PIDS+=("$slow")
	wait_for 30 test -s "$ready"
	# Each slow client keeps its connection busy, one byte every 0.3 s:
	# an idle timeout alone would never close it.
	run python3 -c 'import sys, urllib.request
for i in range(3):
    r = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=10)
    sys.stdout.write(r.read().decode())' "$port"
	kill_own TERM "$slow"
	assert_success
	assert_line --partial 'elect_node_info{id="1",'
	[ "$(grep -c '^elect_node_info' <<<"$output")" = 3 ]
}
