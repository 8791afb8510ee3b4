#!/usr/bin/env bats
# The systemd units and the cron line of share/elect, as `make install`
# writes them: they name the installed binaries, pass systemd-analyze, and
# their ExecStart lines run as the units would run them.  systemd need not
# run here: the lines are run by hand with what the unit gives them (its
# user, capabilities, umask and credentials).

load helper
load node
bats_require_minimum_version 1.5.0

# Installed where another user may run it (the bats directories are
# root's alone).
setup_file() {
	PFX=$(mktemp -d /tmp/elect-prefix.XXXXXX)
	chmod 755 "$PFX"
	export PFX U="$PFX/share/elect"
	make -s -C "$BATS_TEST_DIRNAME/.." install PREFIX="$PFX" >/dev/null
}

teardown_file() {
	rm -rf "$PFX"
}

setup() {
	elect_setup
	DAEMON= UNITDIR=
}

teardown() {
	elect_teardown
	if [ -n "$DAEMON" ]; then
		kill_own KILL "$DAEMON"
		wait "$DAEMON" 2>/dev/null || true
	fi
	[ -z "$UNITDIR" ] || rm -rf "$UNITDIR"
}

# execstart FILE: the unit's ExecStart line, continuations joined.
execstart() {
	awk '/^ExecStart=/ { on = 1; sub(/^ExecStart=/, "") }
	    on { if (sub(/\\$/, "")) { printf "%s", $0; next }
		print; on = 0 }' "$1"
}

@test "make install writes the units and the cron line for the installed binaries" {
	for f in elect-node@.service elect-backup@.service elect-backup.cron; do
		run grep -c "$PFX/bin/elect-node " "$U/$f"
		assert_output 1
		run grep -E '@BINDIR@|/usr/local/bin/elect-node' "$U/$f"
		assert_failure
	done
	# cron's PATH is /usr/bin:/bin: the line names elect-node in full.
	run awk '!/^#/ && NF { print $7 }' "$U/elect-backup.cron"
	assert_output "$PFX/bin/elect-node"
	[ ! -e "$U/elect-node@.service.in" ]
}

@test "every unit passes systemd-analyze verify" {
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	run systemd-analyze verify --man=no "$U/elect-node@.service" \
	    "$U/elect-backup@.service" "$U/elect-backup@.timer"
	assert_success
	assert_output ""
}

@test "the daemon's unit is hardened: exposure below 3, its own user, no trace" {
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	run systemd-analyze security --offline=yes "$U/elect-node@.service"
	assert_success
	score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p' \
	    <<<"$output")
	[ -n "$score" ]
	awk -v s="$score" 'BEGIN { exit !(s < 3) }' ||
	    fail "exposure $score, not below 3"
	grep -qx 'DynamicUser=yes' "$U/elect-node@.service"
	grep -qx 'Type=notify' "$U/elect-node@.service"
	grep -qx 'WatchdogSec=2s' "$U/elect-node@.service"
	grep -qx 'UMask=0077' "$U/elect-node@.service"
	run execstart "$U/elect-node@.service"
	refute_output --partial " -t "
}

# Issue: Restart=on-failure retried a start refused as bad input (exit 2)
# until systemd's start limit.
@test "the node unit does not restart a node that refused its configuration" {
	local prevent
	prevent=$(sed -n 's/^RestartPreventExitStatus=//p' "$U/elect-node@.service")
	echo "node 1 127.0.0.1:1" >"$BATS_TEST_TMPDIR/cluster"
	run -2 elect-node -f "$BATS_TEST_TMPDIR/cluster" -i 2 --insecure \
	    -s "$BATS_TEST_TMPDIR/state"
	[[ " $prevent " == *" $status "* ]] ||
	    fail "exit $status, RestartPreventExitStatus=$prevent"
}

@test "the backup unit: not the leader is a success, the backup's own 1 a failure" {
	C=$(mkcluster 3)
	elect_start_cluster --insecure "$C"
	leader=$(elect_wait_leader 20)
	follower=$((leader == 1 ? 2 : 1))
	ok=$(sed -n 's/^SuccessExitStatus=//p' "$U/elect-backup@.service")
	line=$(execstart "$U/elect-backup@.service")
	# The same line with this test's state directories and a backup
	# that fails with status 1.
	line=${line//\/usr\/local\/bin\/backup.sh/false}
	run -254 eval "${line//-i %i/-s $ELECT_DIR/$follower/state}"
	[[ " $ok " == *" 254 "* ]]
	run -1 eval "${line//-i %i/-s $ELECT_DIR/$leader/state}"
	[[ " $ok " != *" 1 "* ]]
	elect_stop_all
}

@test "the daemon's ExecStart runs as its own user with CAP_SYS_NICE alone" {
	[ "$(id -u)" = 0 ] || skip "needs root to take another user"
	command -v setpriv >/dev/null || skip "no setpriv"
	# Outside the test's own directory, which only root may enter.
	UNITDIR=$(mktemp -d /tmp/elect-unit.XXXXXX)
	d=$UNITDIR
	chmod 755 "$d"
	mkdir -p "$d/creds" "$d/state"
	echo "node 1 127.0.0.1:$(freeport)" >"$d/cluster"
	head -c 32 /dev/urandom >"$d/creds/key"
	# What systemd gives the service: a credential readable by its user
	# alone, a state directory of its own, the unit's umask.
	chown -R nobody "$d/creds" "$d/state"
	chmod 0400 "$d/creds/key"
	chmod 0500 "$d/creds"
	chmod 0700 "$d/state"
	line=$(execstart "$U/elect-node@.service")
	line=${line//%i/1}
	line=${line//\/etc\/elect\/cluster/$d/cluster}
	line=${line//\/var\/lib\/elect/$d/state}
	caps=$(sed -n 's/^AmbientCapabilities=CAP_//p' "$U/elect-node@.service" |
	    tr 'A-Z' 'a-z')
	[ "$caps" = sys_nice ]
	CREDENTIALS_DIRECTORY=$d/creds bash -c "umask 0077; exec setpriv \
	    --reuid=nobody --regid=nogroup --clear-groups --no-new-privs \
	    --inh-caps=+$caps --ambient-caps=+$caps $line" \
	    2>"$d/err" </dev/null &
	DAEMON=$!
	wait_for 20 elect-node -s "$d/state/1" --status >/dev/null 2>&1 ||
	    fail "no leader: $(cat "$d/err")"
	run elect-node -s "$d/state/1" --status
	assert_output --partial "role=leader"
	# Its files are its own and nobody else's; it runs real-time.
	run stat -c '%U %a %n' "$d/state/1/incarnation" "$d/state/1/pid"
	assert_output "nobody 600 $d/state/1/incarnation
nobody 600 $d/state/1/pid"
	run chrt -p "$DAEMON"
	assert_output --partial "SCHED_FIFO"
	kill -TERM "$DAEMON"
	wait "$DAEMON"
	DAEMON=
}
