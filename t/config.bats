#!/usr/bin/env bats
# Configuration files (elect.conf(5)): -c FILE, keys named like the long
# flags, flags override them, the cluster file's shared "set" lines, and
# strict parsing with FILE:LINE and exit 2.

load helper
load node

setup() {
	elect_setup
	cd "$BATS_TEST_TMPDIR"
	C=$(mkcluster 1 "$BATS_TEST_TMPDIR/one.conf")
	: >empty.conf
	NODE=
}

teardown() {
	[ -z "$NODE" ] || kill "$NODE" 2>/dev/null || true
}

# started ARGS...: starts a node with ARGS, waits for its start line,
# prints it and stops the node.
started() {
	local err
	# A file of its own: the redirection of a background job may come
	# after the wait below has begun reading, and an earlier node's
	# detector may still hold its file.
	err=$(mktemp -p "$BATS_TEST_TMPDIR" node.err.XXXXXX)
	elect-node "$@" 2>"$err" 3>&- &
	NODE=$!
	wait_for 10 grep -q 'start node=' "$err" || { cat "$err"; return 1; }
	grep 'start node=' "$err"
	kill "$NODE"
	wait "$NODE" || true
	NODE=
}

@test "config: settings apply, flags override them" {
	cat >e.conf <<-EOF
	# a comment line
	cluster $C
	id 1
	insecure yes      # no key
	state $BATS_TEST_TMPDIR/st
	algo bully-fd
	lease 2s
	fd-timeout 300ms
	quiet no
	EOF
	run started -c e.conf
	assert_success
	assert_output --regexp "start node=1 .* algo=bully-fd cluster=$C .* key=insecure state=$BATS_TEST_TMPDIR/st .* fd-timeout=300ms .* lease=2000ms "
	run started -c e.conf -a invitation --lease 3s -s st2
	assert_success
	assert_output --regexp " algo=invitation .* state=st2 .* fd-timeout=300ms .* lease=3000ms "
	# A flag overrides its rival's setting too.
	printf 'quiet yes\nkey %s/nokey\n' "$BATS_TEST_TMPDIR" >r.conf
	run started -c r.conf -f "$C" -i 1 -v --insecure -s st4
	assert_success
	# quiet yes: no start line at all, and the node runs.
	echo "quiet yes" >q.conf
	elect-node -c q.conf -f "$C" -i 1 --insecure -s st3 2>q.err 3>&- &
	NODE=$!
	wait_for 10 test -S st3/control
	kill "$NODE"
	wait "$NODE"
	NODE=
	! grep -q 'start node=' q.err
}

@test "config: the cluster file's shared settings, under the file's and the flags'" {
	{ echo "set algo bully-fd"; echo "set lease 4s"; echo "set renew 300ms"
	  cat "$C"; } >shared.conf
	run started -c empty.conf -f shared.conf -i 1 --insecure -s st
	assert_success
	assert_output --regexp " algo=bully-fd .* lease=4000ms renew=300ms "
	echo "lease 6s" >l.conf
	run started -c l.conf -f shared.conf -i 1 --insecure -s st --renew 100ms
	assert_success
	assert_output --regexp " algo=bully-fd .* lease=6000ms renew=100ms "
	# The detector reads the same cluster file and skips the settings.
	run timeout 5 elect-fd -f shared.conf -i 1 --insecure -q </dev/null
	assert_success
	echo "set id 1" >>shared.conf
	run elect-node -c empty.conf -f shared.conf -i 1 --insecure
	assert_failure 2
	assert_output "elect-node: shared.conf:5: id: not a shared setting (algo, drift and the timings are)"
}

@test "config: a client reads the same file, ignoring the daemon's settings" {
	cat >e.conf <<-EOF
	cluster $C
	id 1
	insecure yes
	state $BATS_TEST_TMPDIR/st
	lease 2s
	EOF
	elect-node -c e.conf 2>node.err 3>&- &
	NODE=$!
	wait_for 10 test -S st/control
	wait_for 10 elect-node -c e.conf --status
	run elect-node -c e.conf --status
	assert_success
	assert_output --partial "leader=1"
	# On the command line the same flag is refused in this mode.
	run elect-node -c e.conf --status --lease 2s
	assert_failure 2
}

# bad LINE... -- MESSAGE: a file of these lines is refused with MESSAGE.
bad() {
	local lines=()
	while [ "$1" != -- ]; do lines+=("$1"); shift; done
	printf '%s\n' "${lines[@]}" >bad.conf
	run elect-node -c bad.conf -f "$C" -i 1 --insecure -s st
	assert_failure 2
	assert_output "elect-node: $2"
	[ ! -e st ]
}

@test "config: strict parsing, FILE:LINE and exit 2" {
	bad "bogus 1" -- 'bad.conf:1: unknown key "bogus"'
	bad "" "# c" "algo lease" "algo bully" -- \
	    "bad.conf:4: algo already set on line 3"
	bad "lease 2x" -- \
	    'bad.conf:1: --lease: "2x" is not a duration (a number, then ns, us, ms, s, m or h; milliseconds if none)'
	bad "algo nope" -- \
	    'bad.conf:1: -a: unknown algorithm "nope" (see --help)'
	# Checked even when a flag overrides it.
	bad "id 70000" -- "bad.conf:1: -i: \"70000\" is too large (1 to 65535)"
	bad "lease 2s 3s" -- 'bad.conf:1: lease takes one value, not "2s 3s"'
	bad "lease" -- "bad.conf:1: lease: missing value"
	bad "  lease   # 5s" -- "bad.conf:1: lease: missing value"
	bad "Lease 5s" -- \
	    "bad.conf:1: \"Lease\" is not a key (lower-case letters, digits and '-', at most 32)"
	bad "--lease 5s" -- \
	    "bad.conf:1: \"--lease\" is not a key (lower-case letters, digits and '-', at most 32)"
	bad "lease=5s" -- \
	    "bad.conf:1: \"lease=5s\" is not a key (lower-case letters, digits and '-', at most 32)"
	bad "insecure maybe" -- 'bad.conf:1: insecure: "maybe" is not yes or no'
	bad "status yes" -- 'bad.conf:1: unknown key "status"'
	bad "config other.conf" -- 'bad.conf:1: unknown key "config"'
	bad "run-if-leader yes" -- 'bad.conf:1: unknown key "run-if-leader"'
	bad "E 3" -- "bad.conf:1: \"E\" is not a key (lower-case letters, digits and '-', at most 32)"
	bad "lease 5s"$'\r' -- \
	    "bad.conf:1: carriage return (use Unix line endings)"
	bad "lease 5s"$'\x01' -- "bad.conf:1: control character"
	bad "trace $(head -c 1100 /dev/zero | tr '\0' x)" -- \
	    "bad.conf:1: line longer than 1024 bytes"
	printf 'lease 5s\nrenew 1\0s\n' >bad.conf
	run elect-node -c bad.conf -f "$C" -i 1 --insecure
	assert_failure 2
	assert_output "elect-node: bad.conf:2: NUL byte"
	run elect-node -c nothere.conf -f "$C" -i 1 --insecure
	assert_failure 2
	assert_output "elect-node: nothere.conf: No such file or directory"
	run elect-node -c . -f "$C" -i 1 --insecure
	assert_failure 2
	assert_output "elect-node: .: not a regular file"
	head -c 70000 /dev/zero | tr '\0' '\n' >bad.conf
	run elect-node -c bad.conf -f "$C" -i 1 --insecure
	assert_failure 2
	assert_output "elect-node: bad.conf: larger than 65536 bytes"
	# The same checks for the cluster file's settings.
	{ echo "set"; cat "$C"; } >shared.conf
	run elect-node -c empty.conf -f shared.conf -i 1 --insecure
	assert_failure 2
	assert_output "elect-node: shared.conf:1: set: missing KEY VALUE"
	{ cat "$C"; echo "set lease 1s"; echo "set lease 2s"; } >shared.conf
	run elect-node -c empty.conf -f shared.conf -i 1 --insecure
	assert_failure 2
	assert_output "elect-node: shared.conf:3: lease already set on line 2"
}
