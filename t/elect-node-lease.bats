#!/usr/bin/env bats
# elect-node -a lease with real processes on 127.0.0.1: one leader, agreed;
# failover after a crash, handover after SIGTERM; a leader paused past its
# lease or cut off in a minority; fencing tokens; edicts; and
# --run-if-leader, whose guarded commands never overlap.  Every merged
# trace passes elect-check -s lease.

bats_require_minimum_version 1.5.0

load helper
load node

setup() {
	jobs_setup
}

teardown() {
	jobs_teardown
}

# job_runs TOKEN: the job of that token has written to the log.
job_runs() {
	grep -q " $1 tick " "$LOG"
}

# merge: the nodes', the harness's and the guarded commands' traces, into
# $ELECT_DIR/merged.trace; each --run-if-leader writes a file of its own,
# so that no file has two writers whose lines could cross.
merge() {
	elect-trace merge "$ELECT_DIR/harness.trace" "$ELECT_DIR"/*/trace \
	    "$ELECT_DIR"/*/task.trace >"$ELECT_DIR/merged.trace"
}

# tasks FILE: "start|stop TIME" of every task line of the merged trace,
# and they must alternate: one guarded command at a time.
tasks_alternate() {
	# A killed command ran nothing after its SIGKILL (killed=), however
	# late its group was found dead on a busy host.
	awk '$3 == "task" { t = $1
		for (i = 5; i <= NF; i++) if ($i ~ /^killed=/) t = substr($i, 8)
		print t, $2, $4 }' "$1" | sort -s -n -k1,1 |
	awk '{ if ($3 == "op=start") { if (on) { print "two at " $1; bad = 1 }
		on = 1 } else on = 0 }
	END { exit bad }'
}

# certify: every node stopped, the merged trace has one guarded command
# at a time and elect-check certifies it.
certify() {
	elect_stop_all
	merge
	run tasks_alternate "$ELECT_DIR/merged.trace"
	assert_success
	run elect-check -s lease "$ELECT_DIR/merged.trace"
	assert_success
}

@test "lease: three and five nodes agree on one leader, the highest; edicts need it" {
	local n
	for n in 3 5; do
		C=$(mkcluster $n "$BATS_TEST_TMPDIR/c$n.conf")
		elect_setup "$BATS_TEST_TMPDIR/e$n"
		elect_start_cluster --insecure "${TIMING[@]}" "$C"
		run elect_wait_leader 20
		assert_output "$n"
		run elect_status "$n"
		assert_success
		assert_output --regexp " role=leader .* token=[0-9]+"
		run elect_status 1
		assert_failure 1
		assert_output --regexp " leader=$n .* grants_to=$n "
		run elect-node -s "$ELECT_DIR/1/state" --edict "not from here"
		assert_failure 1
		assert_output --partial "not the leader; the leader is node $n"
		run elect-node -s "$ELECT_DIR/$n/state" --edict "from the leader"
		assert_success
		assert_output --regexp "^seq=1 token=[0-9]+$"
		elect_stop_all
		run elect_check -s lease
		assert_success
		elect_teardown
	done
}

@test "lease: a killed leader is replaced once its lease is out; a stopped one hands over at once" {
	local t0 t1 ldr
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	t0=$(date +%s%N)
	elect_kill 3
	assert_equal "$(elect_wait_leader 20 1 2)" 2
	t1=$(date +%s%N)
	# Not before the lease: the grants to node 3 hold until it is out.
	[ $(((t1 - t0) / 1000000)) -ge 300 ] ||
	    fail "a new leader after $(((t1 - t0) / 1000000)) ms"
	elect_start 3
	sleep 1
	assert_equal "$(elect_wait_leader 20)" 2	# leadership is sticky

	# SIGTERM: the leader releases its grants and another takes over in
	# far less than the 10 s lease (half of it: the time measured here
	# includes the old daemon's exit and the polls of elect_wait_leader,
	# seconds on a loaded host under AddressSanitizer).
	elect_stop_all
	elect_setup "$BATS_TEST_TMPDIR/e2"
	elect_start_cluster -k "$(mkkey "$BATS_TEST_TMPDIR/key")" --lease 10s --renew 1s "${FD[@]}" "$C"
	ldr=$(elect_wait_leader 20)
	t0=$(date +%s%N)
	elect_stop "$ldr"
	run elect_wait_leader 20 $(elect_up)
	assert_success
	t1=$(date +%s%N)
	[ $(((t1 - t0) / 1000000)) -lt 5000 ] ||
	    fail "handover took $(((t1 - t0) / 1000000)) ms"
	elect_stop_all
	# A leader comes only after the lease from the boots (a node may have
	# granted one before it): the bound c exceeds it.
	run elect_check -s lease -c 15
	assert_success
}

# The old leader's daemon and detector are frozen; its --run-if-leader is
# not, and kills the job at its deadline, before the lease can end at any
# grantor; only then can the next leader start its own.
@test "lease: a leader paused past its lease is replaced, and its guarded job is dead before the next one starts" {
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	guard 1 2 3
	wait_for 10 grep -q "^3 [0-9]* tick" "$LOG"
	elect_pause 3
	assert_equal "$(elect_wait_leader 20 1 2)" 2
	wait_for 10 grep -q "^2 [0-9]* tick" "$LOG"
	sleep 0.3
	elect_resume 3
	sleep 1
	assert_equal "$(elect_wait_leader 20)" 2
	run no_overlap
	assert_success
	# The old job was stopped (SIGTERM, then SIGKILL after the grace).
	run grep -c "^3 " "$LOG"
	[ "$output" -gt 1 ]
	certify
}

@test "lease: a SIGKILLed leader's job is stopped at once and its lease released on its behalf; a SIGTERMed one's at once; the next leader's runs" {
	C=$(mkcluster 5)
	elect_start_cluster -k "$(mkkey "$BATS_TEST_TMPDIR/key")" "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 5
	guard 1 2 3 4 5
	wait_for 10 grep -q "^5 [0-9]* tick" "$LOG"
	elect_kill 5
	wait_for 10 grep -q "^4 [0-9]* tick" "$LOG"
	elect_stop 4
	wait_for 10 grep -q "^3 [0-9]* tick" "$LOG"
	run no_overlap
	assert_success
	# Both were told to stop (SIGTERM) before any SIGKILL: each guard says
	# why.  The jobs' own end lines are no proof either way: on a loaded
	# host the grace may run out before bash runs its trap.
	run cat "$ELECT_DIR/5/job.err"
	assert_line "elect-node: the node's daemon died; stopping bash"
	assert_line --regexp "^elect-node: the daemon \(pid ${ELECT_PID[5]}\) died; node 5's lease released on its behalf to 4 of 4 peers\$"
	for id in 1 2 3 4; do
		run grep -c " recv from=5 msg=Dead elid=5\.[0-9]*\.0\$" \
		    "$ELECT_DIR/$id/trace"
		assert_output 1
	done
	run cat "$ELECT_DIR/4/job.err"
	assert_output --partial "the node is leaving; stopping bash"
	certify
}

# The leader's daemon dies: its guards stop their commands at once and,
# once the last one's group is SIGKILLed, release the lease on its
# behalf, so that with a 10 s lease the next leader's command runs long
# before the lease would have run out.  A second command on that node,
# deaf to SIGTERM with a grace of 2 s, holds the release back until it
# is killed: no command of the next leader starts before that.
@test "lease: a dead daemon's lease is released by its guards once every guarded command of the node is dead" {
	local deaf='trap "" TERM
echo "$ELECT_NODE deaf $EPOCHREALTIME" >>"$LOG"
while :; do sleep 0.05; done' k s
	C=$(mkcluster 3)
	elect_start_cluster -k "$(mkkey "$BATS_TEST_TMPDIR/key")" --lease 10s --renew 1s "${FD[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	guard 1 2 3
	wait_for 10 grep -q "^3 [0-9]* tick" "$LOG"
	LOG=$LOG setsid elect-node -s "$ELECT_DIR/3/state" --run-if-leader \
	    --grace 2000 -t "$ELECT_DIR/3/deaf.trace" -- bash -c "$deaf" \
	    </dev/null >"$ELECT_DIR/3/deaf.out" 2>"$ELECT_DIR/3/deaf.err" 3>&- &
	GUARDS+=($!)
	disown $!
	wait_for 10 grep -q "^3 deaf" "$LOG"
	elect_kill 3
	# Well inside the 10 s lease (the deaf command's 2 s grace first).
	wait_for 8 grep -q "^2 [0-9]* tick" "$LOG"
	wait_for 10 grep -q "task op=stop" "$ELECT_DIR/3/deaf.trace"
	run cat "$ELECT_DIR/3/deaf.err"
	assert_line "elect-node: the node's daemon died; stopping bash"
	# The deaf command was SIGKILLed after its grace; node 2's command
	# started only after that instant.
	k=$(awk '$3 == "task" && $4 == "op=stop" { for (i = 5; i <= NF; i++)
		if ($i ~ /^killed=/) print substr($i, 8) }' "$ELECT_DIR/3/deaf.trace")
	[ -n "$k" ] || fail "the deaf command was not SIGKILLed"
	s=$(awk '$3 == "task" && $4 == "op=start" { print $1; exit }' \
	    "$ELECT_DIR/2/task.trace")
	[ "$(echo "$s > $k" | bc)" = 1 ] ||
	    fail "node 2's command started at $s, before node 3's was killed at $k"
	run grep -h "lease released on its behalf" "$ELECT_DIR/3/job.err" \
	    "$ELECT_DIR/3/deaf.err"
	assert_output --partial "node 3's lease released on its behalf to 2 of 2 peers"
	for id in 1 2; do
		trace_has "$ELECT_DIR/$id/trace" " recv from=3 msg=Dead elid=3\.[0-9]+\.0\$"
	done
	elect_stop_all
	elect-trace merge "$ELECT_DIR/harness.trace" "$ELECT_DIR"/*/trace \
	    "$ELECT_DIR"/*/task.trace "$ELECT_DIR/3/deaf.trace" \
	    >"$ELECT_DIR/merged.trace"
	# The first leader comes after the boots' quiet period, the lease.
	run elect-check -s lease -c 15 "$ELECT_DIR/merged.trace"
	assert_success
}

# A command deaf to SIGTERM is SIGKILLed by its deadline (its daemon
# paused); its stop line says when (killed=), and the command wrote
# nothing after that instant.
@test "lease: a job deaf to SIGTERM is SIGKILLed by its deadline, and its stop line says when" {
	local JOB='trap "" TERM
echo "$ELECT_NODE $ELECT_TOKEN start $EPOCHREALTIME" >>"$LOG"
while :; do
	echo "$ELECT_NODE $ELECT_TOKEN tick $EPOCHREALTIME" >>"$LOG"
	sleep 0.01
done'
	local k last
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	guard 3
	wait_for 10 grep -q "^3 [0-9]* tick" "$LOG"
	# Paused, not killed: a dead daemon's guard would stop the job at
	# once; a paused one's keeps the deadline.
	elect_pause 3
	wait_for 20 grep -q " task op=stop " "$ELECT_DIR/3/task.trace"
	run cat "$ELECT_DIR/3/job.err"
	assert_output --regexp "(deadline is near|does not answer); stopping bash"
	run awk '$4 == "op=stop" { for (i = 5; i <= NF; i++)
		if ($i ~ /^killed=/) k = substr($i, 8)
		if (k == "" || k + 0 > $1 + 0) exit 1; print k }' \
	    "$ELECT_DIR/3/task.trace"
	assert_success
	k=$output
	last=$(awk '$1 == 3 { t = $4 } END { print t }' "$LOG")
	awk -v a="$last" -v b="$k" 'BEGIN { exit !(a + 0 < b + 0) }' ||
	    fail "the job wrote at $last, after its SIGKILL at $k"
	assert_equal "$(elect_wait_leader 20 1 2)" 2
	elect_resume 3
	certify
}

# A leader that leaves waits for its commands to be dead or SIGKILLed,
# not for the kernel to reap them, which a busy host may delay: here a
# process of the group is held unreaped (its tracer never waits for it),
# and the lease is released all the same.
@test "lease: a leaving leader releases its lease once its job is SIGKILLed, however late the group is reaped" {
	local JOB='trap "" TERM
sleep 600 &
echo $! >"$LOG.held.$ELECT_NODE"
echo "$ELECT_NODE $ELECT_TOKEN start $EPOCHREALTIME" >>"$LOG"
while :; do
	echo "$ELECT_NODE $ELECT_TOKEN tick $EPOCHREALTIME" >>"$LOG"
	sleep 0.01
done'
	local held line
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	guard 3 2
	wait_for 10 grep -q "^3 [0-9]* tick" "$LOG"
	wait_for 10 test -s "$LOG.held.3"
	held=$(cat "$LOG.held.3")
	coproc HOLD { exec ptrace-hold "$held" 2>&1; }
	PIDS+=("$HOLD_PID")
	read -r -t 10 -u "${HOLD[0]}" line || true
	[ "$line" = held ] || skip "cannot trace a process here: $line"
	elect_stop 3
	run cat "$ELECT_DIR/3/stderr"
	assert_output --partial "task-killed node=3 why=grace"
	refute_output --partial "leaving without releasing"
	wait_for 20 grep -q "^2 [0-9]* tick" "$LOG"
	# Node 2's job runs while node 3's is still not reaped.
	run awk '{ print $3 }' "/proc/$held/stat"
	assert_output Z
	kill_own KILL "$HOLD_PID"
	wait_for 20 grep -q " task op=stop .* killed=" "$ELECT_DIR/3/task.trace"
	certify
}

# --run-if-leader itself frozen past the deadline (as a host busy with
# processes of higher priority can leave it): it kills the group the
# moment it runs again, without a grace, and says so.
@test "lease: a guard that runs only after its deadline kills at once and says why" {
	local g
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	elect-node -s "$ELECT_DIR/3/state" --run-if-leader -- sleep 60 \
	    2>"$BATS_TEST_TMPDIR/guard.err" &
	g=$!
	PIDS+=($g)
	wait_for 10 pgrep -P "$g" >/dev/null
	kill -STOP "$g"
	sleep 1.5		# the 1 s lease, and more
	kill -CONT "$g"
	local st=0
	wait "$g" || st=$?
	assert_equal "$st" 137
	run cat "$BATS_TEST_TMPDIR/guard.err"
	assert_output --partial "the leadership's deadline has passed; killing sleep"
	refute_output --partial "stopping sleep"
	elect_stop_all
}

@test "lease: a leader cut off in a minority steps down and its job stops; the majority elects another" {
	[ "$(id -u)" = 0 ] || skip "partitions need root (network namespaces)"
	C=$(mkcluster 5)
	elect_start_cluster --netns --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 5
	# --run-if-leader talks to its daemon over a unix socket: no netns.
	guard 1 2 3 4 5
	wait_for 10 grep -q "^5 [0-9]* tick" "$LOG"
	elect_partition "4 5" "1 2 3"
	wait_for 20 grep -q "^3 [0-9]* tick" "$LOG"
	run elect_status 5
	# Not the leader: 1 if it still follows one, 4 once it knows none.
	[ "$status" = 1 ] || [ "$status" = 4 ]
	elect_heal
	sleep 1
	run no_overlap
	assert_success
	certify
}

# The token seen by a guarded command may stay while its leadership does,
# and may only grow when it changes.
@test "lease: fencing tokens grow across every change of leader and every restart of every node" {
	local id tok last=0 changes=0 ldr
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	# Each round restarts every node, then whoever leads by then: that
	# last restart surely ends a leadership, whoever the others left.
	for id in 3 2 1 leader 3 2 1 leader end; do
		ldr=$(elect_wait_leader 20)
		tok=$(elect-node -s "$ELECT_DIR/$ldr/state" --wait \
		    --run-if-leader -- sh -c 'echo $ELECT_TOKEN')
		[ "$tok" -ge "$last" ] || fail "token $tok after $last"
		[ "$tok" -gt "$last" ] && changes=$((changes + 1))
		last=$tok
		case $id in
		end)	;;
		leader)	elect_restart "$ldr" ;;
		*)	elect_restart "$id" ;;
		esac
	done
	# The first leadership and the two that the leaders' restarts ended.
	[ "$changes" -ge 3 ] || fail "only $changes leaderships"
	elect_stop_all
	run elect_check -s lease
	assert_success
}

# follow ID: node ID's --follow-edicts in the background: the edicts it
# delivers ("FROM TOKEN SEQ TEXT") to $BATS_TEST_TMPDIR/follow.ID, those it
# reports late to refused.ID.
follow() {
	elect-node -s "$ELECT_DIR/$1/state" --follow-edicts \
	    >"$BATS_TEST_TMPDIR/follow.$1" 2>"$BATS_TEST_TMPDIR/refused.$1" &
	PIDS+=($!)
	disown $!
}

# edicts ID TEXT...: node ID makes an edict of each TEXT, in turn.
edicts() {
	local id=$1 t
	shift
	for t; do
		elect-node -s "$ELECT_DIR/$id/state" --edict "$t" >/dev/null
	done
}

# got ID TEXT: node ID delivered the edict TEXT.
got() {
	grep -q "^[0-9]* [0-9]* [0-9]* $2\$" "$BATS_TEST_TMPDIR/follow.$1"
}

# refused ID: how many edicts node ID reported late.
refused() {
	grep -c "older than one delivered" "$BATS_TEST_TMPDIR/refused.$1"
}

# listening ID LEADER: node ID's follower, started in the background, may
# miss the first edicts; the leader makes "hello" edicts until it shows
# one.
listening() {
	local i
	for ((i = 0; i < 20; i++)); do
		edicts "$2" hello || return 1
		wait_for 1 got "$1" hello && return 0
	done
	return 1
}

# accounted ID LAST: node ID delivered or refused, once, every edict from
# the first it saw to the one with seq LAST.
accounted() {
	local f=$BATS_TEST_TMPDIR/seen.$1
	{ cut -d' ' -f3 "$BATS_TEST_TMPDIR/follow.$1"
	  sed -n 's/.*refused edict \([0-9]*\) .*/\1/p' \
	    "$BATS_TEST_TMPDIR/refused.$1"; } | sort -n >"$f"
	seq "$(head -n 1 "$f")" "$2" | diff - "$f"
}

# in_order ID: node ID delivered its edicts in (token, seq) order, each
# after a smaller one.
in_order() {
	awk '{ if (NR > 1 && ($2 + 0 < tok || ($2 + 0 == tok && $3 + 0 <= seq))) {
			print "out of order: " $0; bad = 1 }
		tok = $2 + 0; seq = $3 + 0 }
	END { exit bad }' "$BATS_TEST_TMPDIR/follow.$1"
}

# route I J: the udpmix route of what node I sends to node J.
route() {
	awk -v i="$1" -v j="$2" '$1 == i && $2 == j { sub("/.*", "", $3); print $3 }' \
	    "$BATS_TEST_TMPDIR/routes"
}

# burst ID TEXT...: node ID makes an edict of each TEXT, all on one
# control connection; fails unless every one was made.
burst() {
	local id=$1 t hex n
	shift
	for t; do
		hex=$(printf '%s' "$t" | od -An -tx1 | tr -d ' \n')
		printf 'elect 1 edict %s\n' "$hex"
	done | ctl-send "$ELECT_DIR/$id/state/control" >"$BATS_TEST_TMPDIR/burst"
	n=$(grep -c "^ok seq=" "$BATS_TEST_TMPDIR/burst")
	[ "$n" = $# ] || fail "$n of $# edicts made: $(cat "$BATS_TEST_TMPDIR/burst")"
}

# leaderships: every node's lines of leadership, grants and detector, in
# time order, to say why a leader changed.
leaderships() {
	sort -n "$ELECT_DIR"/*/trace |
	    grep -E ' (boot|fd|lease|lead|state|fit|peer|veto)' | cut -c1-160
}

# stopped PID: the process is stopped (SIGSTOP has taken effect).
stopped() {
	[ "$(awk '{ print $3 }' "/proc/$1/stat")" = T ]
}

# Every datagram between the nodes passes through udpmix, which holds each
# batch of three and sends it in reverse order.  The relay is stopped
# while the leader makes twelve edicts at once (well within its lease,
# which it cannot renew meanwhile), so that they all wait in its
# sockets; let go, it reads each route's queue in one go and forms full
# batches, however slowly the leader made them: edicts overtake one
# another on the way to each follower, whatever the machine's speed.
# Each follower delivers them in the order they were made and refuses,
# and reports, every late one; none is lost.
@test "lease: edicts arrive in order despite reordering and delay" {
	local i ldr f n late texts out=$BATS_TEST_TMPDIR
	mkrelayed 3
	udpmix -r 3 -w 40 -t 60 $(awk '{ print $3 }' "$out/routes") \
	    >"$out/mix" 2>"$out/mix.err" &
	PIDS+=($!)
	elect_start_cluster --insecure --lease 4s --renew 500ms --rtt 200ms \
	    "${FD[@]}" "$out/cluster.conf"
	ldr=$(elect_wait_leader 20)
	# It may make edicts once its token is established.
	wait_for 10 elect_status "$ldr" >/dev/null
	local others=()
	for f in 1 2 3; do
		[ "$f" = "$ldr" ] || others+=("$f")
	done
	for f in "${others[@]}"; do
		follow "$f"
		listening "$f" "$ldr"
	done
	kill -STOP "${PIDS[0]}"
	wait_for 10 stopped "${PIDS[0]}"
	texts=()
	for i in $(seq 1 12); do
		texts+=("edict $i")
	done
	burst "$ldr" "${texts[@]}"
	kill -CONT "${PIDS[0]}"
	for f in "${others[@]}"; do
		wait_for 10 got "$f" "edict 12"
	done
	elect_stop_all
	kill -TERM "${PIDS[0]}"
	wait "${PIDS[0]}"
	for f in "${others[@]}"; do
		run in_order "$f"
		assert_success
		run accounted "$f" "$(awk '$5 == 12 { print $3 }' \
		    "$out/follow.$f")"
		assert_success
		n=$(refused "$f") || fail "node $f: no edict came late"
		assert_equal "$(grep -c why=edict-order "$ELECT_DIR/$f/trace")" "$n"
		# None refused but one the relay let another overtake.
		late=$(awk -v r="$(route "$ldr" "$f")" \
		    '$1 == r { sub("late=", "", $4); print $4 }' "$out/mix")
		[ "$n" -le "$late" ] || fail "node $f refused $n, $late late"
	done
	run elect_check -s lease
	assert_success
}

# Every edict the core delivers goes out to the followers in the step
# that delivered it; no ring of the core's can run past a follower.  More
# edicts than such a ring ever held, back to back, reach every follower,
# the leader's own included, each once and in order.  A lease of 2 s:
# what is tested is how many edicts pass, not how soon a
# leader is replaced, and one leader must make them all on a host as
# loaded as the sanitizer pass leaves it.
@test "lease: followers get every edict, however many come" {
	local i f ldr last
	C=$(mkcluster 3)
	elect_start_cluster --insecure --lease 2s --renew 300ms --rtt 100ms \
	    "${FD[@]}" "$C"
	for f in 1 2 3; do
		follow "$f"
	done
	# Every follower listens to the leader.  One replaced while the
	# cluster settles (the sanitizer pass on a loaded host saw it twice)
	# refuses the "hello" edicts: the leader then is asked.
	for ((i = 0; i < 5; i++)); do
		ldr=$(elect_wait_leader 20) &&
		    wait_for 10 elect_status "$ldr" >/dev/null &&
		    listening 1 "$ldr" && listening 2 "$ldr" &&
		    listening 3 "$ldr" && break
	done
	[ "$i" -lt 5 ] || fail "no leader the followers heard; $(leaderships)"
	for i in $(seq 1 80); do
		last=$(elect-node -s "$ELECT_DIR/$ldr/state" --edict "many $i") ||
		    fail "edict $i refused; $(leaderships)"
	done
	last=${last#seq=}
	last=${last%% *}
	for f in 1 2 3; do
		wait_for 10 got "$f" "many 80"
	done
	elect_stop_all
	for f in 1 2 3; do
		run in_order "$f"
		assert_success
		run accounted "$f" "$last"
		assert_success
		assert_equal "$(grep -c ' many ' "$BATS_TEST_TMPDIR/follow.$f")" 80
		assert_equal "$(refused "$f")" 0
	done
}

# What node 3 sends to node 1 is held (udpmix -r with a batch that never
# fills; its handshake passes, -H) while node 3 leads and makes edicts, leaves, and node 2 takes
# over and makes its own.  Let go, node 3's edicts reach node 1 after
# node 2's: older, by the token of their leadership, and refused.
@test "lease: an old leader's edicts that come after the new leader's are refused" {
	local n out=$BATS_TEST_TMPDIR
	mkrelayed 3
	# The way back, 1 to 3, in the same relay: it sends from the port
	# node 3 has for node 1, which the relay of 3 to 1 listens on.
	udpmix -H -r 1000 -b 1000 -w 60000 -t 60 \
	    "$(awk '$1 == 3 && $2 == 1 { print $3 }' "$out/routes")" \
	    "$(awk '$1 == 1 && $2 == 3 { print $3 "+" }' "$out/routes")" \
	    >"$out/held" 2>&1 &
	PIDS+=($!)
	udpmix -t 60 $(awk '!($1 == 3 && $2 == 1) && !($1 == 1 && $2 == 3) {
	    print $3 }' "$out/routes") >"$out/mix" 2>&1 &
	PIDS+=($!)
	elect_start_cluster --insecure --lease 2s --renew 400ms --rtt 200ms \
	    "${FD[@]}" "$out/cluster.conf"
	# Node 1 hears nothing from node 3: it grants to no one yet.
	elect_wait_leader -l 3 20 2 3 >/dev/null
	wait_for 10 elect_status 3 >/dev/null
	follow 1
	follow 2
	listening 2 3
	edicts 3 "old 1" "old 2" "old 3" "old 4" "old 5"
	wait_for 10 got 2 "old 5"
	elect_stop 3
	elect_wait_leader -l 2 20 1 2 >/dev/null
	wait_for 10 elect_status 2 >/dev/null
	listening 1 2
	edicts 2 "new 1" "new 2" "new 3" "new 4" "new 5"
	wait_for 10 got 1 "new 5"
	kill -USR1 "${PIDS[0]}"
	# Every edict node 3 made, and no other, is refused.
	n=$(grep -c " edict seq=" "$ELECT_DIR/3/trace")
	wait_for 10 test "$(refused 1)" = "$n"
	run grep -c "of node 3 " "$out/refused.1"
	assert_output "$n"
	run in_order 1
	assert_success
	run awk '$1 != 2 || $4 == "new" { print $1, $4, $5 }' "$out/follow.1"
	assert_output "$(printf '2 new %s\n' 1 2 3 4 5)"
	# Node 2's follower writes its own leader's edicts in its own time.
	wait_for 10 got 2 "new 5"
	run in_order 2
	assert_success
	run grep -c " old \| new " "$out/follow.2"
	assert_output 10
	elect_stop_all
	kill -TERM "${PIDS[@]:0:2}"
	wait "${PIDS[@]:0:2}"
	run elect_check -s lease
	assert_success
}

# A lease of 5 s: on a host loaded past its cores (the suite beside other
# work, under the sanitizers), a 1 s lease may change hands between two
# steps, or run out under a command that waits for a CPU.
@test "lease: --run-if-leader runs the command on the leader only, with its token, and passes on its status and signals" {
	C=$(mkcluster 3)
	elect_start_cluster --insecure --lease 5s --renew 1s --rtt 50 \
	    "${FD[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	run elect-node -s "$ELECT_DIR/3/state" --run-if-leader -- \
	    sh -c 'echo "$ELECT_NODE $ELECT_LEADER $ELECT_TOKEN"; exit 7'
	assert_failure 7
	assert_output --regexp "^3 3 [0-9]+$"
	run elect-node -s "$ELECT_DIR/1/state" --run-if-leader -- echo ran
	assert_failure 1
	refute_output --partial ran
	run elect-node -s "$ELECT_DIR/1/state" --run-if-leader -E 0 -- echo ran
	assert_success
	refute_output --partial ran
	# What did not start is not logged as started, nor counted.
	run elect_status 1
	assert_output --regexp ' tasks=0 '
	run grep -c 'task-start node=1 ' "$ELECT_DIR/1/stderr"
	assert_output 0
	# SIGTERM to --run-if-leader reaches the command, whose trap answers.
	elect-node -s "$ELECT_DIR/3/state" --run-if-leader -- sh -c \
	    'trap "echo got-term; exit 3" TERM; touch "$LOG.ready"
	     while :; do sleep 0.01; done' >"$BATS_TEST_TMPDIR/out" &
	local p=$!
	wait_for 10 test -e "$LOG.ready"
	kill -TERM $p
	local st=0
	wait $p || st=$?
	assert_equal "$st" 3
	run cat "$BATS_TEST_TMPDIR/out"
	assert_output got-term
	elect_stop_all
}

@test "lease: when --run-if-leader is killed, its command and the command's children die with it" {
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	setsid elect-node -s "$ELECT_DIR/3/state" --run-if-leader -- sh -c \
	    'sleep 1000 & echo $! >"$LOG.child"; echo $$ >"$LOG.cmd"; wait' &
	local p=$!
	GUARDS+=($p)
	wait_for 10 test -s "$LOG.child"
	wait_for 10 test -s "$LOG.cmd"
	kill -KILL $p
	wait_for 5 sh -c "! kill -0 $(cat "$LOG.cmd") 2>/dev/null"
	wait_for 5 sh -c "! kill -0 $(cat "$LOG.child") 2>/dev/null"
	elect_stop_all
}

@test "lease: clocks drifting within the bound keep one leader (libfaketime)" {
	local lib=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
	[ -r "$lib" ] || skip "no libfaketime"
	# AddressSanitizer must come first among the libraries it watches.
	if ldd "$ELECT_BUILD/bin/elect-node" | grep -q libasan; then
		skip "libfaketime cannot be preloaded ahead of AddressSanitizer"
	fi
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" --drift 0.001 "$C" -- 1
	LD_PRELOAD=$lib FAKETIME="+0 x1.0009" elect_start 2
	LD_PRELOAD=$lib FAKETIME="+0 x0.9991" elect_start 3
	assert_equal "$(elect_wait_leader 20)" 3
	elect_kill 3
	assert_equal "$(elect_wait_leader 20 1 2)" 2
	LD_PRELOAD=$lib FAKETIME="+0 x0.9991" elect_start 3
	sleep 2
	elect_stop_all
	run elect_check -s lease --skew 0.02
	assert_success
}

@test "lease: --run-if-leader refuses bad usage and a missing daemon" {
	run elect-node -s "$BATS_TEST_TMPDIR/none" --run-if-leader -- true
	assert_failure 3
	assert_output --partial "no daemon answers"
	run elect-node -s "$BATS_TEST_TMPDIR/none" --run-if-leader
	assert_failure 2
	assert_output --partial "needs a command"
	run elect-node -s "$BATS_TEST_TMPDIR/none" --run-if-leader --grace x -- true
	assert_failure 2
	assert_output --partial "--grace"
	run elect-node -s "$BATS_TEST_TMPDIR/none" --grace 5 --status
	assert_failure 2
	run elect-node -s "$BATS_TEST_TMPDIR/none" --edict hello
	assert_failure 3
	run elect-node -s "$BATS_TEST_TMPDIR/none" --drift 0.5 --status
	assert_failure 2
	assert_output --partial "above 0.1"
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	run elect-node -s "$ELECT_DIR/3/state" --run-if-leader --grace 5000 -- true
	assert_failure 2
	assert_output --partial "lengthen its --lease"
	run elect-node -s "$ELECT_DIR/3/state" --run-if-leader --grace 5s -- true
	assert_failure 2
	assert_output --partial "lengthen its --lease"
	run elect-node -s "$ELECT_DIR/3/state" --run-if-leader --grace 1xs -- true
	assert_failure 2
	assert_output --partial '--grace: "1xs" is not a duration'
	run -127 elect-node -s "$ELECT_DIR/3/state" --run-if-leader -- /nonexistent
	assert_output --partial "/nonexistent: No such file or directory"
	elect_stop_all
}

# elect-check maps every clock= to its line's time: the lines that one
# input makes (a sample, a grant written after a flush to disk, a lead)
# must bear the time at which that input read its clock, however late
# they are written.
@test "lease: every line of one input bears the time its clock was read" {
	local ldr
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	ldr=$(elect_wait_leader 20)
	guard 1 2 3
	wait_for 10 grep -q "^$ldr [0-9]* tick" "$LOG"
	# Handovers after restarts: new tokens, flushed to disk.
	starts() { [ "$(grep -c " start " "$LOG")" -ge "$1" ]; }
	elect_stop "$ldr"
	elect_start "$ldr"
	guard "$ldr"
	wait_for 10 starts 2
	ldr=$(elect_wait_leader 20)
	elect_stop "$ldr"
	wait_for 10 starts 3
	elect_stop_all
	run awk '{ c = ""
		for (i = 4; i <= NF; i++)
			if ($i ~ /^(clock|c)=/) c = substr($i, index($i, "=") + 1)
		if (c == "") next
		k = FILENAME " " c
		if (k in t && t[k] != $1) { print "clock " c ": " t[k] " and " $1; bad = 1 }
		t[k] = $1; n++ }
	END { if (n < 20) { print "only " n " lines"; bad = 1 }; exit bad }' \
	    "$ELECT_DIR"/*/trace
	assert_success
	# A task line is stamped before its command can have started.
	merge
	run awk '$3 == "task" && $4 == "op=start" { split($6, a, "=")
		t[a[2]] = $1 }
	    END { while ((getline l < ARGV[2]) > 0) { split(l, f, " ")
		if (f[3] == "start" && f[4] < t[f[2]]) { print l; bad = 1 } }
		exit bad }' "$ELECT_DIR/merged.trace" "$LOG"
	assert_success
}

# waiting_on ID: node ID holds a guarded command that waits to start.
waiting_on() {
	elect_status "$1" 2>/dev/null | grep -q ' waiting=1\( \|$\)'
}

@test "lease: --run-if-leader --wait waits in the daemon, and a signal ends the wait" {
	local p st
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	elect-node -s "$ELECT_DIR/1/state" --run-if-leader --wait -- \
	    sh -c 'echo ran >>"$LOG"' 3>&- &
	p=$!
	# Registered as a waiting task, and nothing runs.
	wait_for 10 waiting_on 1
	kill -0 "$p"
	kill -TERM "$p"
	# Not "run wait": run's subshell cannot wait for the shell's child,
	# and knows its status only if it had exited before the fork (a slow
	# exit, as under AddressSanitizer, gives 127 or 255).
	st=0
	wait "$p" || st=$?
	assert_equal "$st" 143
	run cat "$LOG"
	assert_output ""
	# On the leader it starts at once, the token in its environment.
	run elect-node -s "$ELECT_DIR/3/state" --run-if-leader --wait -- \
	    sh -c 'echo "$ELECT_TOKEN"'
	assert_success
	assert_output --regexp "^[0-9]+$"
	# A daemon that leaves ends the wait, and says so: status 3.
	elect-node -s "$ELECT_DIR/1/state" --run-if-leader --wait -- \
	    sh -c 'echo ran >>"$LOG"' 3>&- 2>"$BATS_TEST_TMPDIR/err" &
	p=$!
	wait_for 10 waiting_on 1
	kill -0 "$p"
	elect_stop 1
	st=0
	wait "$p" || st=$?
	assert_equal "$st" 3
	run cat "$BATS_TEST_TMPDIR/err"
	assert_output --partial "control: the node left during the wait"
	run cat "$LOG"
	assert_output ""
	elect_stop_all
}

# The guard, the command and what it leaves behind die at nearly the same
# moment, in every order: --run-if-leader notices each and returns.
@test "lease: --run-if-leader returns once its whole group is dead, however it dies" {
	local i want
	C=$(mkcluster 3)
	elect_start_cluster --insecure "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	# A guard that did not run by its deadline (a host busy with
	# processes of higher priority) kills the group, its relay of the
	# command's status too, and says so.
	# On the node that leads: a loaded host may move the leadership
	# between two runs (-E 99 says so), and the run is made again there.
	local l=3 ok=0
	for i in $(seq 90); do
		[ "$ok" -lt 60 ] || break
		if [ $((ok % 2)) = 0 ]; then
			run --separate-stderr timeout 10 elect-node \
			    -s "$ELECT_DIR/$l/state" --run-if-leader -E 99 -- \
			    sh -c 'sleep 0.01 & sleep 0.01 & exit 3'
			want=3
		else
			run --separate-stderr timeout 10 elect-node \
			    -s "$ELECT_DIR/$l/state" --run-if-leader -E 99 -- \
			    sh -c 'sleep 0.01 & kill -TERM $$; sleep 1'
			want=143
		fi
		if [ "$status" = 99 ]; then
			l=$(elect_wait_leader 20)
			continue
		fi
		[ "$status" = "$want" ] || { [ "$status" = 137 ] &&
		    [[ $stderr == *"deadline has passed; killing sh"* ]]; } ||
		    fail "exit $status: $stderr"
		ok=$((ok + 1))
	done
	[ "$ok" = 60 ] || fail "only $ok runs on a leader"
	elect_stop_all
}
