#!/usr/bin/env bats
# elect-node and epochs (Nerio 10.6, share/elect/lease.md, Epochs): a
# peer of another epoch is confirmed whatever its membership, but its
# core's messages never reach ours; and a running cluster changes its
# membership with --reconfigure, on real processes at 127.0.0.1 to
# 127.0.0.6, a guarded job's runs never overlapping, tokens growing from
# epoch to epoch, every merged trace certified by elect-check -s lease.

bats_require_minimum_version 1.5.0

load helper
load node

# Generous for a loaded machine and AddressSanitizer (as in
# elect-node-lease.bats): a late renewal costs liveness, never safety.
TIMING=(--lease 1s --renew 200 --rtt 50 --fd-interval 50 --fd-timeout 1000)
GRACE=300

setup() {
	jobs_setup
}

teardown() {
	jobs_teardown
}

# The stub detector and node 1 of two under bully-fd, for the handshake.
stub_setup() {
	C=$(mkcluster 2)
	K=$(mkkey "$ELECT_DIR/key")
	export FD_STUB_LOG=$ELECT_DIR/fd.log
	elect_start_cluster -k "$K" -a bully-fd --fd-cmd "$STUB/fd-stub" "$C" -- 1
	T=$ELECT_DIR/1/trace
	wait_for 5 grep -q -- "--digest" "$FD_STUB_LOG"
	DIGEST=$(sed -n 's/.*--digest \([0-9a-f]*\).*/\1/p' "$FD_STUB_LOG")
}

# peer INC EPOCH CLUSTER-DIGEST: plays node 2's incarnation INC from its
# own address: a HELLO of EPOCH (0: none) with the given membership
# digest (hex), the answer to node 1's challenge, then one Halt
# (bully-fd's type 1).
peer() {
	timeout 10 python3 - "$K" "$(port 2)" "$(port 1)" "${DIGEST:0:32}" \
	    "$3" "$2" "$1" <<-'PY'
	import hashlib, os, socket, struct, sys
	key = open(sys.argv[1], "rb").read()
	mine, node = int(sys.argv[2]), int(sys.argv[3])
	conf = bytes.fromhex(sys.argv[4] + sys.argv[5])
	epoch, inc = int(sys.argv[6]), int(sys.argv[7])
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	s.bind(("127.0.0.1", mine))
	seq = 0
	def send(t, payload, grp=0):
	    global seq
	    seq += 1
	    h = struct.pack(">IBBHHHHHQQQQ", 0x454c4e44, 2, t, len(payload),
	        2, 1, grp, 0, inc, seq, inc if grp else 0, 1 if grp else 0)
	    mac = hashlib.blake2b(h + payload, key=key, digest_size=32)
	    s.sendto(h + payload + mac.digest(), ("127.0.0.1", node))
	def hello(echo, flags):
	    p = nonce + echo + conf
	    if epoch:
	        p += bytes([flags | 2]) + struct.pack(">I", epoch)
	    else:
	        p += bytes([flags])
	    send(255, p)
	nonce = os.urandom(16)
	hello(bytes(16), 0)
	while True:
	    d, _ = s.recvfrom(2048)
	    if d[5] == 255:
	        break
	hello(d[48:64], 1)
	send(1, b"", 2)		# Halt, with node 2's elid
	PY
}

@test "a peer of another epoch is confirmed whatever its members; its core's messages are dropped" {
	stub_setup
	other=0123456789abcdef
	peer 1 1 "$other"
	wait_for 5 grep -q "drop from=2 why=epoch n=1" "$T"
	run grep -c " recv from=2" "$T"
	assert_output 0
	# Of our epoch with another membership: not confirmed, as before.
	peer 2 0 "$other"
	wait_for 5 grep -q "drop from=2 why=mismatch" "$T"
	run grep -c " recv from=2" "$T"
	assert_output 0
	# Of our epoch and membership: its message counts.
	peer 3 0 "${DIGEST:32:16}"
	wait_for 5 grep -q " recv from=2 msg=" "$T"
}

# guard IDS...: on each host, --run-if-leader --wait runs the job, and
# again once it ends (a change stops it), in a session of its own.
guard() {
	local id
	for id; do
		setsid bash -c 'while :; do
			elect-node -s "$1" --run-if-leader --wait --grace "$2" \
			    -t "$3" -- bash -c "$JOB"
			sleep 0.1
		done' _ "$ELECT_DIR/$id/state" "$GRACE" \
		    "$ELECT_DIR/$id/task.trace" </dev/null \
		    >>"$ELECT_DIR/$id/job.out" 2>>"$ELECT_DIR/$id/job.err" 3>&- &
		GUARDS+=($!)
		disown $!
	done
}

# job_in LO HI: a job whose token is in [LO, HI) has ticked.
job_in() {
	awk -v lo="$1" -v hi="$2" '$3 == "tick" && $2 >= lo && $2 < hi {
		f = 1 } END { exit !f }' "$LOG"
}

T40=1099511627776	# 2^40: the first token of epoch 1 is above it

@test "reconfigure: 3 nodes grow to 5, then shrink to 3 without the old leader's host; a guarded job never overlaps" {
	epochs
	K=$(mkkey "$ELECT_DIR/key")
	elect_start_cluster -k "$K" "${TIMING[@]}" "$E0"
	run elect_wait_leader 20
	assert_output 3
	guard 1 2 3
	wait_for 20 job_in 1 $T40
	# Grow: the new members start with the next epoch's file and wait.
	join "$E1" 4 5
	run elect_status 4
	assert_output --partial " epoch=1 pending=yes"
	run elect-node -s "$ELECT_DIR/1/state" --reconfigure "$E1"
	assert_success
	assert_output "epoch=1 members=5 from=0"
	guard 4 5
	run elect_wait_leader 30 1 2 3 4 5
	assert_output 5
	wait_for 20 job_in $T40 $((2 * T40))
	run elect_status 3
	assert_output --partial " epoch=1 change=done"
	# Shrink, asked of the leader that leaves.
	join "$E2" 6
	guard 6
	run elect-node -s "$ELECT_DIR/5/state" --reconfigure "$E2"
	assert_success
	assert_output "epoch=2 members=3 from=1"
	run elect_wait_leader 30 2 4 6
	assert_output 6
	wait_for 20 job_in $((2 * T40)) $((3 * T40))
	# The hosts left behind stay wedged, answering; they lead nothing.
	run elect_status 5
	assert_output --regexp " role=none .* wedged=yes .*change=leaving"
	sed 's/^epoch 2/epoch 3/' "$E2" >"$BATS_TEST_TMPDIR/e3.conf"
	run elect-node -s "$ELECT_DIR/5/state" --reconfigure "$BATS_TEST_TMPDIR/e3.conf"
	assert_failure 1
	assert_output --partial "this node left: epoch 2 runs without it"
	for p in "${GUARDS[@]}"; do
		kill_own TERM "-$p"
	done
	GUARDS=()
	run no_overlap
	assert_success
	# One token per leadership, each epoch above the one before.
	run awk '$3 == "start" { print $2 }' "$LOG"
	[ "${#lines[@]}" -ge 3 ]
	[ "${lines[0]}" -lt $T40 ]
	[ "${lines[-1]}" -ge $((2 * T40)) ]
	elect_stop_all
	run elect_check -s lease
	assert_success
	assert_output --partial " epochs"
	run grep -c "exit why=epoch" "$ELECT_DIR/merged.trace"
	assert_output 5	# 1, 2, 3 into epoch 1; 2, 4 into epoch 2
	# Each epoch's leader says why it stopped.
	grep -Eq "^[0-9T:.-]+Z elect-node: stopped-leading node=3 token=[0-9]+ why=epoch " \
	    "$ELECT_DIR/3/stderr"
	grep -Eq "^[0-9T:.-]+Z elect-node: stopped-leading node=5 token=[0-9]+ why=epoch " \
	    "$ELECT_DIR/5/stderr"
}

@test "reconfigure: bad files, a change while one is pending, a new member with another key, a restart mid-change, and --force" {
	epochs
	K=$(mkkey "$ELECT_DIR/key")
	elect_start_cluster -k "$K" "${TIMING[@]}" "$E0"
	run elect_wait_leader 20
	assert_output 3
	# Files that do not parse, or name no next epoch, or the wrong one.
	printf 'epoch 1\nnode x 127.0.0.1:1\n' >"$BATS_TEST_TMPDIR/bad.conf"
	run elect-node -s "$ELECT_DIR/1/state" --reconfigure "$BATS_TEST_TMPDIR/bad.conf"
	assert_failure 2
	assert_output --partial 'bad.conf:2: node id "x"'
	grep -v epoch "$E1" >"$BATS_TEST_TMPDIR/noepoch.conf"
	run elect-node -s "$ELECT_DIR/1/state" --reconfigure "$BATS_TEST_TMPDIR/noepoch.conf"
	assert_failure 2
	assert_output --partial "no epoch line"
	sed 's/^epoch 2/epoch 3/' "$E2" >"$BATS_TEST_TMPDIR/e3.conf"
	run elect-node -s "$ELECT_DIR/1/state" --reconfigure "$BATS_TEST_TMPDIR/e3.conf"
	assert_failure 1
	assert_output --partial "epoch 3: the epoch after 0 is 1"
	run elect-node -s "$ELECT_DIR/1/state" --reconfigure "$E1" --force
	assert_failure 2
	assert_output --partial "--force goes with --dead"
	# Two of three members dead: the change cannot end epoch 0.
	elect_kill 2
	elect_kill 3
	# A new member with another key: its datagrams fail every MAC.
	K2=$(mkkey "$ELECT_DIR/key2")
	ELECT_CLUSTER_OF[4]=$E1
	ELECT_IDS+=(4)
	elect_start 4 -k "$K2"
	run elect-node -s "$ELECT_DIR/1/state" --reconfigure "$E1"
	assert_success
	assert_output "epoch=1 members=5 from=0"
	wait_for 10 trace_has "$ELECT_DIR/1/trace" " boot inc=2 algo=lease nodes=5 epoch=1( level=compact)?$"
	run elect_status 1
	assert_output --regexp " epoch=1 pending=yes .*change=joining"
	run elect-node -s "$ELECT_DIR/1/state" --reconfigure "$E1"
	assert_failure 1
	assert_output --partial "a change to epoch 1 is pending"
	wait_for 20 eval 'elect_status 1 | grep -q "mismatch=4:key"'
	# Restarted mid-change with epoch 0's file: refused, in one line
	# that names the file of epoch 1 it keeps.  With epoch 1's file:
	# back in epoch 1, asking.
	elect_stop 1
	run -2 timeout 20 elect-node -f "$E0" -i 1 -k "$K" \
	    -s "$ELECT_DIR/1/state" "${TIMING[@]}"
	assert_output "elect-node: $E0: epoch 0, older than the state directory's epoch 1: start with the cluster file of epoch 1, such as the state directory's record $ELECT_DIR/1/state/epoch"
	ELECT_CLUSTER_OF[1]=$E1
	elect_start 1
	run elect_status 1
	assert_output --regexp " incarnation=3 .* epoch=1 pending=yes .*change=joining"
	# The paper's manual intervention: only with the dead named, never
	# this node, and only for the change pending here.
	run elect-node -s "$ELECT_DIR/1/state" --reconfigure "$E1" --force --dead 1,2
	assert_failure 1
	assert_output --partial "node 1, asked, is not dead"
	run elect-node -s "$ELECT_DIR/1/state" --reconfigure "$E2" --force --dead 2
	assert_failure 1
	assert_output --partial "pending: --force applies to it only"
	run elect-node -s "$ELECT_DIR/1/state" --reconfigure "$E1" --force --dead 2,3
	assert_success
	assert_output "epoch=1 members=5 from=0 forced=2"
	wait_for 10 trace_has "$ELECT_DIR/1/trace" " epoch op=learn epoch=1 "
	run elect_status 1
	assert_output --regexp " epoch=1 change=done"
	elect_stop_all
	run elect_check -s lease
	assert_success
}

# metric FILE NAME: the value of NAME in the metrics file FILE.
metric() {
	awk -v n="$2" '$1 == n { print $2 }' "$1"
}

# peers_without ID NODE: node ID's status lists no peer NODE.
peers_without() {
	local line
	line=$(elect_status "$1") || [ $? -le 1 ] || return
	[[ " $line " == *" peers="* ]] || return
	! [[ " $line " =~ [=,]$2/ ]]
}

# counts_peers ID N: node ID's metrics file counts N peers, N up.
counts_peers() {
	local f=$ELECT_DIR/m$1.prom
	[ "$(metric "$f" elect_peers)" = "$2" ] &&
	    [ "$(metric "$f" elect_peers_up)" = "$2" ]
}

@test "reconfigure: a member removed leaves the others' peers, metrics and detector once their part is over, and after a restart" {
	local p i
	p=$(freeport -n 1 -w 8)
	at() { echo "node $1 127.0.0.$1:$((p + 2 * ($1 - 1)))"; }
	for i in 1 2 3 4; do at $i; done >"$BATS_TEST_TMPDIR/s0.conf"
	{ echo "epoch 1"; for i in 1 2 3; do at $i; done; } \
	    >"$BATS_TEST_TMPDIR/s1.conf"
	K=$(mkkey "$ELECT_DIR/key")
	elect_start_cluster -k "$K" "${TIMING[@]}" "$BATS_TEST_TMPDIR/s0.conf" -- 4
	for i in 1 2 3; do
		elect_start $i --metrics-file "$ELECT_DIR/m$i.prom"
	done
	run elect_wait_leader 20
	assert_output 4
	for i in 1 2 3; do
		wait_for 10 counts_peers $i 3
	done
	run elect_status 1
	assert_output --regexp " peers=([^ ]*,)?4/"
	# 4 -> 3: node 4 leaves, its host is stopped once epoch 1 leads.
	run elect-node -s "$ELECT_DIR/1/state" --reconfigure "$BATS_TEST_TMPDIR/s1.conf"
	assert_success
	assert_output "epoch=1 members=3 from=0"
	run elect_wait_leader 30 1 2 3
	assert_output 3
	for i in 1 2 3; do
		wait_for 20 eval "elect_status $i | grep -q ' change=done'"
		# node 4 leaves the peers once this node's part is over,
		# which change=done does not wait for
		wait_for 10 peers_without $i 4
		wait_for 10 counts_peers $i 2
		# Epoch 1's core never watches node 4.
		run awk '$3 == "boot" { on = / epoch=1$/ }
		    on && / fd op=start peer=4$/' "$ELECT_DIR/$i/trace"
		assert_output ""
	done
	elect_stop 4
	# Epoch 0's file is no longer node 1's.
	elect_stop 1
	run -2 timeout 20 elect-node -f "$BATS_TEST_TMPDIR/s0.conf" -i 1 \
	    -k "$K" -s "$ELECT_DIR/1/state" "${TIMING[@]}"
	assert_output --partial "s0.conf: epoch 0, older than the state directory's epoch 1: "
	# Restarted with epoch 1's file: node 4 stays gone.
	elect_stop 2
	for i in 1 2; do
		ELECT_CLUSTER_OF[$i]=$BATS_TEST_TMPDIR/s1.conf
		rm -f "$ELECT_DIR/m$i.prom"
		elect_start $i --metrics-file "$ELECT_DIR/m$i.prom"
	done
	run elect_wait_leader 30 1 2 3
	assert_output 3
	for i in 1 2; do
		run elect_status $i
		assert_output --regexp " epoch=1 change=done"
		run peers_without $i 4
		assert_success
		wait_for 10 counts_peers $i 2
	done
	elect_stop_all
	run elect_check -s lease
	assert_success
}
