#!/usr/bin/env bats
# elect-node --run-if-leader -n NAME and --status -n NAME: named
# leaderships with real processes on 127.0.0.1.  A name is refused before
# anything connects; three names on three nodes each run one command at
# a time, with ELECT_NAME and the name's token; a holder's daemon killed
# (its guards' Dead) or its node stopped (no Dead), its names' commands
# stop and run elsewhere under higher tokens; a change of membership
# keeps them one at a time, under tokens of the new epoch; the merged
# traces pass elect-check.

bats_require_minimum_version 1.5.0

load helper
load node

setup() {
	jobs_setup
}

teardown() {
	jobs_teardown
}

# A named guarded job: appends "NAME NODE TOKEN start|tick|end TIME PID"
# to $LOG every 10 ms while it runs.
NJOB='trap "echo \"\$ELECT_NAME \$ELECT_NODE \$ELECT_TOKEN end \$EPOCHREALTIME \$\$\" >>\"\$LOG\"; exit 0" TERM
echo "$ELECT_NAME $ELECT_NODE $ELECT_TOKEN start $EPOCHREALTIME $$" >>"$LOG"
while :; do
	echo "$ELECT_NAME $ELECT_NODE $ELECT_TOKEN tick $EPOCHREALTIME $$" >>"$LOG"
	sleep 0.01
done'

# nguard NAME IDS...: on each node, --run-if-leader -n NAME --wait runs
# the named job, in a session of its own (killed by teardown).
nguard() {
	local name=$1 id
	shift
	for id; do
		setsid elect-node -s "$ELECT_DIR/$id/state" --run-if-leader \
		    -n "$name" --wait --grace $GRACE \
		    -t "$ELECT_DIR/$id/task.$name.trace" -- bash -c "$NJOB" \
		    </dev/null >>"$ELECT_DIR/$id/job.$name.out" \
		    2>>"$ELECT_DIR/$id/job.$name.err" 3>&- &
		GUARDS+=($!)
		disown $!
	done
}

# names_up: three nodes, each running a guarded job of backup, report
# and queue, until each name's job runs somewhere.
names_up() {
	local name
	C=$(mkcluster 3)
	elect_start_cluster -k "$(mkkey "$BATS_TEST_TMPDIR/key")" \
	    "${TIMING[@]}" "$C"
	for name in backup report queue; do
		nguard "$name" 1 2 3
	done
	for name in backup report queue; do
		wait_for 20 grep -q "^$name [1-3] [0-9]* tick " "$LOG" ||
		    fail "no job of $name ran"
	done
}

# held_by NODE: the names whose job ran last on NODE.
held_by() {
	local name
	for name in backup report queue; do
		if [ "$(holder "$name")" = "$1" ]; then echo "$name"; fi
	done
}

# moved NAME FROM: NAME's job runs on another node than FROM, under a
# token above every one FROM ran it under.
moved() {
	awk -v n="$1" -v h="$2" '$1 == n && $2 == h && $3 > t { t = $3 }
	    $1 == n && $2 != h && $4 == "tick" { if ($3 > u) u = $3 }
	    END { exit !(u > t) }' "$LOG"
}

# certify [NAMES...]: every name (backup, report, queue) one command at
# a time, and the merged trace of the nodes and the guards passes
# elect-check.
certify() {
	local name names=("$@")
	[ $# -gt 0 ] || names=(backup report queue)
	for name in "${names[@]}"; do
		run one_at_a_time "$name"
		assert_success
	done
	elect_stop_all
	elect-trace merge "$ELECT_DIR/harness.trace" "$ELECT_DIR"/*/trace \
	    "$ELECT_DIR"/*/task.*.trace >"$ELECT_DIR/merged.trace"
	run elect-check -s lease "$ELECT_DIR/merged.trace"
	assert_success
}

# holder NAME: the node whose job of NAME wrote the last tick.
holder() {
	awk -v n="$1" '$1 == n && $4 == "tick" { h = $2 } END { print h }' \
	    "$LOG"
}

# one_at_a_time NAME: NAME's jobs, grouped by token, span disjoint
# intervals of time in the order of their tokens, and each token is one
# node's.
one_at_a_time() {
	awk -v n="$1" '$1 == n && NF >= 6 {
		if (!($3 in lo) || $5 < lo[$3]) lo[$3] = $5
		if (!($3 in hi) || $5 > hi[$3]) hi[$3] = $5
		if (($3 in node) && node[$3] != $2) {
			printf "token %s on nodes %s and %s\n", $3, node[$3], $2
			bad = 1
		}
		node[$3] = $2 }
	END { for (t in lo) printf "%s %.6f %.6f\n", t, lo[t], hi[t]
		exit bad }' "$LOG" | sort -n -k1,1 | awk '
	NR > 1 && $2 <= end { printf "token %s from %s, token %s until %s\n",
		$1, $2, tok, end; bad = 1 }
	NF == 3 { tok = $1; end = $3 }
	NF != 3 { print; bad = 1 }
	END { exit bad }'
}

@test "names: a malformed name is refused with its reason and exit 2, before anything connects" {
	local bad
	for bad in "a/b" "" "$(printf 'x%.0s' {1..65})" "a b" "na;me"; do
		# No daemon in that directory: a name checked after connecting
		# would exit 3.
		run -2 elect-node -s "$BATS_TEST_TMPDIR/none" --run-if-leader \
		    -n "$bad" -- true
		assert_output --partial "-n: bad leadership name \"$bad\": "
		[ "${#lines[@]}" = 1 ] || fail "more than one line: $output"
		run -2 elect-node -s "$BATS_TEST_TMPDIR/none" --status \
		    --name "$bad"
		assert_output --partial "--name: bad leadership name \"$bad\": "
	done
	run -2 elect-node -s "$BATS_TEST_TMPDIR/none" --edict hi -n backup
	assert_output --partial "-n goes with --run-if-leader or --status"
	# A good name gets as far as the socket.
	run -3 elect-node -s "$BATS_TEST_TMPDIR/none" --status -n backup.db_1
}

@test "names: a name beyond --names-max is refused with exit 2; --status -n of a name nobody asked for exits 4" {
	C=$(mkcluster 1)
	elect_start_cluster --insecure --names-max 1 "${TIMING[@]}" "$C"
	nguard one 1
	wait_for 20 grep -q "^one 1 [0-9]* tick " "$LOG"
	run -2 elect-node -s "$ELECT_DIR/1/state" --run-if-leader -n two \
	    --wait -- true
	assert_output --regexp "^elect-node: .*/control: name two refused: .+"
	run -4 elect-node -s "$ELECT_DIR/1/state" --status -n three
	assert_output "id=1 name=three leader=- role=none token=- left=- registrations=0"
	run -0 elect-node -s "$ELECT_DIR/1/state" --status -n one
	assert_output --regexp "^id=1 name=one leader=1 role=leader token=[0-9]+ "
}

@test "names: --help shows -n and --names-max" {
	run -0 elect-node --help
	assert_output --partial "--run-if-leader [-n name]"
	assert_output --partial "--status [-n name]"
	assert_output --partial "-n, --name"
	assert_output --partial "--names-max"
}

@test "names: three named jobs on three nodes, one command each at a time; a holder's daemon killed, its names run elsewhere under higher tokens; --status -n answers; elect-check certifies" {
	local name id h held
	names_up
	# Each job saw its own name, and a token.
	run awk '$4 == "start" && ($1 !~ /^(backup|report|queue)$/ ||
	    $3 !~ /^[1-9][0-9]*$/)' "$LOG"
	assert_output ""
	# --status -n: 0 on the holder, 1 on the others (they know it).
	h=$(holder backup)
	wait_for 5 elect-node -s "$ELECT_DIR/$h/state" --status -n backup \
	    >/dev/null
	run -0 elect-node -s "$ELECT_DIR/$h/state" --status -n backup
	assert_output --regexp "^id=$h name=backup leader=$h role=leader token=[0-9]+ left=[0-9.]+ registrations=1\$"
	for id in 1 2 3; do
		[ "$id" = "$h" ] && continue
		wait_for 5 bash -c '"$0" -s "$1" --status -n backup >/dev/null
			[ $? = 1 ]' "$ELECT_NODE" "$ELECT_DIR/$id/state"
		run -1 elect-node -s "$ELECT_DIR/$id/state" --status -n backup
		assert_output --regexp "name=backup leader=$h role=follower"
	done
	# The plain status lists the names, and --json as an array.
	run elect-node -s "$ELECT_DIR/$h/state" --status
	assert_output --regexp " names=[^ ]*backup/$h/[0-9]+/"
	run elect-node -s "$ELECT_DIR/$h/state" --status --json
	assert_output --regexp '"names":\[\{"name":"backup","holder":'"$h"
	# The holder of backup dies: whatever it held runs elsewhere, under a
	# higher token, its guards releasing it at once (their Dead).
	held=$(held_by "$h")
	elect_kill "$h"
	for name in $held; do
		wait_for 20 moved "$name" "$h" ||
		    fail "$name did not run elsewhere after node $h died"
		run cat "$ELECT_DIR/$h/job.$name.err"
		assert_line "elect-node: the node's daemon died; stopping bash"
	done
	sleep 0.5
	certify
}

@test "names: a holder's node stops, its daemon and detector paused (no Dead): its commands stop by their deadlines and its names run elsewhere once the leases run out, under higher tokens; elect-check certifies" {
	local name h held
	names_up
	h=$(holder backup)
	held=$(held_by "$h")
	elect_pause "$h"
	for name in $held; do
		wait_for 20 moved "$name" "$h" ||
		    fail "$name did not run elsewhere after node $h stopped"
		run cat "$ELECT_DIR/$h/job.$name.err"
		assert_line --partial "deadline"
	done
	run grep -h " recv from=$h msg=Dead" "$ELECT_DIR"/*/trace
	assert_output ""
	elect_resume "$h"
	sleep 0.5
	certify
}

@test "names: a cron line on every node without --wait: the name, held by none yet, runs its job on one node; the others run nothing and exit 1" {
	local id n rc pids=()
	C=$(mkcluster 3)
	elect_start_cluster -k "$(mkkey "$BATS_TEST_TMPDIR/key")" \
	    "${TIMING[@]}" "$C"
	# The same one-shot job on every node at once, as cron starts it.
	for id in 1 2 3; do
		elect-node -s "$ELECT_DIR/$id/state" --run-if-leader -n nightly \
		    -- bash -c 'echo "$ELECT_NAME $ELECT_NODE $ELECT_TOKEN" >>"$LOG"
			sleep 1' >"$BATS_TEST_TMPDIR/out.$id" 2>&1 &
		pids+=($!)
	done
	n=0
	for id in 0 1 2; do
		rc=0
		wait "${pids[$id]}" || rc=$?
		# 1: not the holder, ran nothing (EXIT STATUS); the holder's
		# status is its job's, or its stop's if a loaded host lost
		# the name under it.
		[ "$rc" = 1 ] || n=$((n + 1))
	done
	[ "$n" = 1 ] || fail "$n nodes did not exit 1: $(cat "$BATS_TEST_TMPDIR"/out.*)"
	run cat "$LOG"
	assert_output --regexp '^nightly [1-3] [1-9][0-9]*$'
}

# nloop NAME IDS...: as nguard, and again once the command ends (an
# epoch's change stops it).
nloop() {
	local name=$1 id
	shift
	for id; do
		setsid bash -c 'while :; do
			elect-node -s "$1" --run-if-leader -n "$2" --wait \
			    --grace "$3" -t "$4" -- bash -c "$NJOB"
			sleep 0.1
		done' _ "$ELECT_DIR/$id/state" "$name" "$GRACE" \
		    "$ELECT_DIR/$id/task.$name.trace" </dev/null \
		    >>"$ELECT_DIR/$id/job.$name.out" \
		    2>>"$ELECT_DIR/$id/job.$name.err" 3>&- &
		GUARDS+=($!)
		disown $!
	done
}

# ran_in NAME LO HI: a job of NAME whose token is in [LO, HI) ticked.
ran_in() {
	awk -v n="$1" -v lo="$2" -v hi="$3" '$1 == n && $4 == "tick" &&
	    $3 >= lo && $3 < hi { f = 1 } END { exit !f }' "$LOG"
}

T40=1099511627776	# 2^40: the first token of epoch 1 is above it

# knows ID NAME: node ID's --status -n NAME names the node whose job of
# NAME ticked last, and exits 0 if that is ID, 1 if not.
knows() {
	local h rc=0 out
	h=$(holder "$2")
	out=$(elect-node -s "$ELECT_DIR/$1/state" --status -n "$2") || rc=$?
	[[ " $out " == *" leader=$h "* ]] && [ "$rc" = $(($1 != h)) ]
}

# A name's tokens in a later epoch lie above every token of the earlier
# ones (share/elect/lease.md, E4): the daemons rebuild their names' core
# at the change, and the commands the change stopped start again.
@test "names: 3 nodes grow to 5 by --reconfigure; each name's command runs one at a time across the change, its tokens above 2^40 after; elect-check certifies" {
	local name id
	export NJOB
	epochs
	elect_start_cluster -k "$(mkkey "$BATS_TEST_TMPDIR/key")" \
	    "${TIMING[@]}" "$E0"
	for name in backup report; do
		nloop "$name" 1 2 3
	done
	for name in backup report; do
		wait_for 20 ran_in "$name" 1 $T40 || fail "no job of $name ran"
	done
	join "$E1" 4 5
	run elect-node -s "$ELECT_DIR/1/state" --reconfigure "$E1"
	assert_success
	assert_output "epoch=1 members=5 from=0"
	for name in backup report; do
		nloop "$name" 4 5
	done
	for name in backup report; do
		wait_for 30 ran_in "$name" $T40 $((2 * T40)) ||
		    fail "no job of $name ran in epoch 1"
	done
	# Every node knows who holds each name in the new epoch: 0 on the
	# holder, 1 on the others.
	for name in backup report; do
		for id in 1 2 3 4 5; do
			wait_for 10 knows "$id" "$name" ||
			    fail "node $id: $(elect-node -s \
			    "$ELECT_DIR/$id/state" --status -n "$name")"
		done
	done
	certify backup report
}

@test "names: one daemon holds 200 names at once, one registration each; --status and --status --json list them all; its memory stays small" {
	local i rss0 rss1 n
	C=$(mkcluster 3)
	elect_start_cluster -k "$(mkkey "$BATS_TEST_TMPDIR/key")" \
	    "${TIMING[@]}" "$C"
	rss0=$(awk '/^VmRSS/ { print $2 }' "/proc/${ELECT_PID[1]}/status")
	hold-names "$ELECT_DIR/1/state" job 200 >"$BATS_TEST_TMPDIR/held" \
	    2>&1 3>&- &
	PIDS+=($!)
	wait_for 60 bash -c '[ "$(grep -c " start$" "$0")" = 200 ]' \
	    "$BATS_TEST_TMPDIR/held" ||
	    fail "$(grep -c ' start$' "$BATS_TEST_TMPDIR/held") of 200 started"
	# Every one told it may start once, under a token, none refused.
	run awk '$NF != "start" || $4 !~ /^token=[1-9]/' "$BATS_TEST_TMPDIR/held"
	assert_output ""
	run bash -c "awk '{ print \$3 }' '$BATS_TEST_TMPDIR/held' | sort -u | wc -l"
	assert_output 200
	# Listed in full, past what one status line holds.
	run elect-node -s "$ELECT_DIR/1/state" --status
	refute_output --partial "names_cut="
	n=$(tr ' ,' '\n\n' <<<"$output" | grep -c '^\(names=\)\?job-[0-9]*/1/[0-9]*/')
	[ "$n" = 200 ] || fail "--status lists $n of 200 names held by 1"
	run elect-node -s "$ELECT_DIR/1/state" --status --json
	n=$(grep -o '"holder":1,' <<<"$output" | wc -l)
	[ "$n" = 200 ] || fail "--status --json lists $n of 200 names held by 1"
	# A grantor lists them too.
	run elect-node -s "$ELECT_DIR/2/state" --status
	n=$(tr ' ,' '\n\n' <<<"$output" | grep -c '^\(names=\)\?job-[0-9]*/')
	[ "$n" = 200 ] || fail "node 2 lists $n of 200 names"
	# A registration costs the daemon a client and a name's lead, not
	# the 17 KiB of fixed buffers a client had.
	rss1=$(awk '/^VmRSS/ { print $2 }' "/proc/${ELECT_PID[1]}/status")
	[ $((rss1 - rss0)) -lt 2048 ] ||
	    fail "RSS grew by $((rss1 - rss0)) KiB for 200 registrations"
}
