#!/usr/bin/env bats
# elect-sim, the deterministic simulator the core tests stand on, its
# faults, in-process checking, campaigns and shrinking.

load helper
load elect-sim
bats_require_minimum_version 1.5.0

@test "elect-sim: the same seed gives the same trace, byte for byte" {
	for a in bully bully-fd async-bully; do
		elect-sim -a $a -n 6 -s 42 -d 10 -r 5 -k crash,recovery,pause,partition \
		    -m 0.1:4 >"$BATS_TEST_TMPDIR/a"
		elect-sim -a $a -n 6 -s 42 -d 10 -r 5 -k crash,recovery,pause,partition \
		    -m 0.1:4 >"$BATS_TEST_TMPDIR/b"
		elect-sim -a $a -n 6 -s 43 -d 10 -r 5 -k crash,recovery,pause,partition \
		    -m 0.1:4 >"$BATS_TEST_TMPDIR/c"
		cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
		! cmp -s "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/c"
	done
}

@test "elect-sim: every node boots with its incarnation, algorithm and cluster size" {
	run elect-sim -a async-bully -c 2,7,9 -d 2 -e '0.5 crash 7' -e '1 boot 7'
	assert_success
	assert_line --index 0 "0 2 boot inc=1 algo=async-bully nodes=3"
	assert_line "0 7 boot inc=1 algo=async-bully nodes=3"
	assert_line "0 9 boot inc=1 algo=async-bully nodes=3"
	assert_line "0.5 7 crash"
	assert_line "1 7 boot inc=2 algo=async-bully nodes=3"
}

# Without crashes or cuts nothing is lost: what a node receives from a
# peer is what the peer sent it, in the order it was sent.
@test "elect-sim: messages between two nodes arrive in the order they were sent" {
	elect-sim -a async-bully -n 5 -s 7 -d 8 -r 4 -k pause -m 0.1:20 \
	    >"$BATS_TEST_TMPDIR/t"
	run awk '
	$3 == "send" { sub(/^to=/, "", $4); q[$2 " " $4] = q[$2 " " $4] " " $5 $6; n++ }
	$3 == "recv" { sub(/^from=/, "", $4); k = $4 " " $2
		if (index(q[k], " " $5 $6) != 1) { print "out of order: " $0; exit 1 }
		q[k] = substr(q[k], length($5 $6) + 2); r++ }
	END { if (r < 100 || n - r > 50) { print n " sent, " r " received"; exit 1 } }
	' "$BATS_TEST_TMPDIR/t"
	assert_success
}

# The trace ends at -d, with a clock sample of each running node, so that
# elect-check judges the last stable period too, not only up to the last
# message.
@test "elect-sim: the trace ends at -d with a clock sample of every running node" {
	run elect-sim -a modified-bully -n 3 -s 5 -d 4 -e '1 crash 3' \
	    -e '1.045 boot 3' -e '2 crash 1' -e '3 pause 2'
	assert_success
	assert_equal "${lines[-1]}" "4 3 clock c=4"
	refute_line --regexp '^4 [12] '
	run elect-sim -a lease -n 2 -d 3 -D 0.01 -s 1
	assert_line --regexp '^3 1 clock c=[0-9.]+$'
	assert_line --regexp '^3 2 clock c=[0-9.]+$'
}

@test "elect-sim: a paused node handles nothing until it resumes, then all that queued up" {
	elect-sim -a bully-fd -n 4 -d 3 -e '1 pause 2' -e '2 resume 2' \
	    >"$BATS_TEST_TMPDIR/t"
	run awk '$2 == 2 && $1 >= 1 && $1 < 2' "$BATS_TEST_TMPDIR/t"
	assert_output "1 2 pause"
	run awk '$2 == 2 && $1 == 2 && $3 == "recv"' "$BATS_TEST_TMPDIR/t"
	assert_line --index 0 --regexp '^2 2 recv from=4 msg=Norm\? elid=4\.1\.'
	run grep -c ' fd op=down peer=2$' "$BATS_TEST_TMPDIR/t"
	assert_output 1
}

@test "elect-sim: a partition cuts every link across, and heal mends them" {
	run elect-sim -a async-bully -n 3 -d 2 -e '1 partition 1/2,3' -e '1.5 heal'
	assert_success
	assert_line "1 - net a=1 b=2 link=down"
	assert_line "1 - net a=1 b=3 link=down"
	refute_line "1 - net a=2 b=3 link=down"
	assert_line "1.5 - net a=1 b=2 link=up"
}

# Loss makes every link flaky, and the trace says so from the start (a
# mended cut is flaky again, not up), so that elect-check does not judge
# liveness over links that lose datagrams.
@test "elect-sim: lossy links are traced flaky" {
	run elect-sim -a invitation -n 3 -d 2 -x 3 -e '1 cut 1 2' -e '1.5 mend 1 2'
	assert_success
	assert_line --index 0 "0 - net a=1 b=2 link=flaky"
	assert_line --index 1 "0 - net a=1 b=3 link=flaky"
	assert_line --index 2 "0 - net a=2 b=3 link=flaky"
	assert_line "1 - net a=1 b=2 link=down"
	assert_line "1.5 - net a=1 b=2 link=flaky"
	run elect-sim -a invitation -n 3 -d 2
	refute_line --partial "link=flaky"
}

# Partitions beyond 64 nodes (a byte per node, not a 64-bit mask), up to
# ALGO_NODES_MAX nodes.
@test "elect-sim: clusters of up to 1024 nodes, partitions across any of them" {
	run elect-sim -a bully-fd -n 100 -d 1.2 -e '1 partition 70,100/1'
	assert_success
	run grep -c '^1 - net a=[0-9]* b=[0-9]* link=down$' <<<"$output"
	assert_output $((2 * 98))
	run elect-sim -a async-bully -n 80 -s 3 -d 5 -r 1 -k partition
	assert_success
	assert_line --regexp '^[0-9.]+ - net a=[0-9]+ b=(6[5-9]|7[0-9]|80) link=down$'
	# the cores on the papers' network: with elect-node's edge, 1,024
	# hosts booting at once handshake each with every other, a million
	# handshakes the simulator runs one by one (it can: 10 s)
	run elect-sim -a bully-fd -n 1024 -d 0.01 --papers-net
	assert_success
	run elect-sim -a bully-fd -n 1025 -d 0.01
	assert_failure 2
}

# refused MESSAGE ARGS...: elect-sim ARGS exits 2 and says MESSAGE (when
# not empty).
refused() {
	local msg=$1
	shift
	run elect-sim "$@"
	assert_failure 2
	[ -z "$msg" ] || assert_output --partial "$msg"
}

@test "elect-sim: bad usage is refused with exit 2" {
	refused "unknown algorithm nonesuch" -a nonesuch -n 3
	refused "unknown event explode" -a bully -n 3 -e '1 explode 2'
	refused "node 9 is not in the cluster" -a bully -n 3 -e '1 crash 9'
	refused "" -a bully -n 3 -t nonesuch=5
	refused "" -a bully -n 3 -m 5:1
	refused "" -a bully
	refused "elect-sim: --faults: unknown fault meteor (try --help)" -a bully -n 3 --faults crash,meteor
	refused "partition: expected L,.../R,...[/B,...]" -a bully -n 3 -e '1 partition 1,2'
	refused "node 1 named twice" -a bully -n 3 -e '1 partition 1/1'
	refused "" -a bully -n 3 -e '1 partition 1,2,3/'
	refused 'bad time "x"' -a bully -n 3 -e 'x crash 1'
	refused "crash takes 1 argument" -a bully -n 3 -e '1 crash 1 2'
	refused "node 1 named twice" -a bully -c 1,2,1
	refused "elect-sim: unexpected argument extra (try --help)" -a bully -n 3 extra
	refused "at least 4 seconds" -a bully -n 3 --faults crash -d 3
	refused "" -a bully -n 3 -O
	refused "" -a bully --campaign 5 --check
	refused "" -a bully --campaign 0
	refused "--table takes no other option" -n 3 --table messages
	refused "unknown table murshed-allen-4" --table murshed-allen-4
	# One line each, prefixed with the program's name.
	refused "" -a bully -n 0
	assert_equal "${#lines[@]}" 1
	assert_line --index 0 --regexp '^elect-sim: '
}

@test "elect-sim: --help names the algorithms, faults and events; --version" {
	run elect-sim --help
	assert_success
	assert_line --index 0 --regexp '^usage: elect-sim -a ALGO'
	assert_line --regexp '^algorithms \(-a\): bully .*lease'
	assert_line --partial "faults: crash recovery pause partition bridge oneway"
	assert_output --partial "partition L/R[/B]"
	assert_output --partial "reconfigure kill misconf"
	assert_output --partial "misconf ID ok|algo|timing|cluster|key"
	run elect-sim --version
	assert_success
	assert_output --regexp '^elect-sim [0-9]+\.[0-9]+'
}

# The example of the manual, twice: the same trace byte for byte, and one
# that elect-check certifies; another seed gives another trace.
@test "elect-sim: the same arguments give the same trace, byte for byte, which elect-check certifies" {
	need_check
	elect-sim -a async-bully -n 7 --faults crash,pause,partition -s 42 \
	    >"$BATS_TEST_TMPDIR/a"
	elect-sim -a async-bully -n 7 --faults crash,pause,partition -s 42 \
	    >"$BATS_TEST_TMPDIR/b"
	elect-sim -a async-bully -n 7 --faults crash,pause,partition -s 43 \
	    >"$BATS_TEST_TMPDIR/c"
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	! cmp -s "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/c"
	run grep -cE ' (crash|pause|net a=.* link=down)$' "$BATS_TEST_TMPDIR/a"
	[ "$output" -ge 3 ] || fail "only $output faults in the trace"
	run elect-check - <"$BATS_TEST_TMPDIR/a"
	assert_success
	# lease under its whole admissible set.
	elect-sim -a lease -n 5 -s 7 -d 12 -r 8 -O >"$BATS_TEST_TMPDIR/l1"
	elect-sim -a lease -n 5 -s 7 -d 12 -r 8 -O >"$BATS_TEST_TMPDIR/l2"
	cmp "$BATS_TEST_TMPDIR/l1" "$BATS_TEST_TMPDIR/l2"
}

# A majority's quorum timestamp fits an edict beside the longest text
# up to 75 pairs (149 nodes); above, its digest travels instead.
@test "elect-sim: lease runs 1024 nodes; edicts carry the quorum timestamp whole up to 149 nodes, its digest above, and the runs are certified" {
	local t=$BATS_TEST_TMPDIR n qd long
	long=$(printf '%0256d' 0)	# the longest text: 75 pairs still fit
	for n in 149 150 1024; do
		# the cores on the papers' network (their boot's million
		# handshakes at 1,024: see the test above)
		run --separate-stderr elect-sim -a lease -n $n -d 1.5 -s 1 -O \
		    $([ $n -lt 1024 ] || echo --papers-net) \
		    -e "1 edict $n hello" -e "1.2 edict $n $long"
		assert_success
		assert_equal "$stderr" "elect-sim: oracle: 0 violations, 2 edicts, largest token 1"
		printf '%s\n' "$output" >"$t/$n"
		run grep -c " deliver from=$n seq=[12] " "$t/$n"
		assert_output $((2 * n))
		run --separate-stderr elect-check -s lease "$t/$n"
		assert_success
		assert_regex "$stderr" "holds: .*edict-validity edict-order"
	done
	run grep -m1 " 149 edict seq=1 " "$t/149"
	assert_output --regexp ' qt=([0-9]+:[0-9.]+,){74}[0-9]+:[0-9.]+ clock='
	for n in 150 1024; do
		run grep -m1 " $n edict seq=1 " "$t/$n"
		assert_output --regexp "^1 $n edict seq=1 qd=[0-9a-f]{16} clock=1\$"
		qd=$(sed 's/.* qd=\([0-9a-f]*\) .*/\1/' <<<"$output")
		run grep -c " deliver from=$n seq=1 qd=$qd\$" "$t/$n"
		assert_output $n
		run grep -c " qt=" "$t/$n"
		assert_output 0
	done
}

@test "elect-sim: faults by name: one-way and non-transitive partitions, duplicates" {
	run elect-sim -a async-bully -n 3 -d 2 -e '1 oneway 1/2,3' -e '1.5 heal'
	assert_success
	assert_line "1 - net a=1 b=2 link=flaky"
	assert_line "1 - net a=1 b=3 link=flaky"
	assert_line "1.5 - net a=1 b=2 link=up"
	# What 1 sends to 2 is lost, not what 2 sends to 1.
	run awk '$1 > 1 && $1 < 1.5 && $2 == 2 && $3 == "recv" && $4 == "from=1"' <<<"$output"
	assert_output ""
	run elect-sim -a async-bully -n 3 -d 2 -e '1 partition 1/2/3' -e '1.5 heal'
	assert_line "1 - net a=1 b=2 link=down"
	refute_line --regexp '^1 - net a=[0-9] b=3 '
	run elect-sim -a async-bully -n 3 -d 2 --dup 50 -s 1
	assert_line --regexp '^[0-9.]+ [123] drop from=[123] why=replay n=[0-9]+$'
	run elect-sim -a lease -n 4 -d 12 -s 3 --faults crash,recovery,bridge,oneway,drift,offset -r 6 -O --check
	assert_success
	assert_output --partial "every assertion holds"
}

# Nerio's epochs (lease.md, Epochs): the hosts of epoch 0 boot, the
# others when a change takes them in; a host that stays ends its core of
# e once wedged; every run certified, replayed byte for byte.
@test "elect-sim: membership changes: -E, the reconfigure event and fault, in a campaign too" {
	need_check
	local t=$BATS_TEST_TMPDIR s
	elect-sim -a lease -O -n 5 --epoch0 1,2,3 -s 2 -d 4 \
	    -e '1 reconfigure 2,3,4,5' -e '2 reconfigure 5' >"$t/a"
	run grep ' boot ' "$t/a"
	assert_line --index 0 "0 1 boot inc=1 algo=lease nodes=3 epoch=0"
	assert_line --regexp '^1 4 boot inc=1 algo=lease nodes=4 epoch=1$'
	refute_line --regexp '^0 [45] '
	run grep -c ' exit why=epoch$' "$t/a"
	assert_output 3
	run awk '$3 == "lead" && $NF == "epoch=2" { print $2 }' "$t/a"
	assert_line --index 0 5
	run elect-check -s lease "$t/a"
	assert_success
	elect-sim -a lease -O -n 5 -E 1,2,3 -s 2 -d 4 \
	    -e '1 reconfigure 2,3,4,5' -e '2 reconfigure 5' >"$t/b"
	cmp "$t/a" "$t/b"
	# a frozen host changes epochs only once it resumes
	elect-sim -a lease -O -n 4 -s 1 -d 3 -e '0.5 pause 4' \
	    -e '0.6 reconfigure 1,2,3,4' -e '1.5 resume 4' >"$t/p"
	run awk '$2 == 4 && $1 > 0.5 && $1 < 1.5' "$t/p"
	assert_output ""
	run grep -E '^1.5 4 (exit|boot) ' "$t/p"
	assert_line --index 0 "1.5 4 exit why=epoch"
	assert_line --index 1 "1.5 4 boot inc=2 algo=lease nodes=4 epoch=1"
	# random changes among crashes, partitions and late messages: a
	# message of a core of another epoch is dropped (a fresh core is
	# silent until its epoch starts and a wedged one sends nothing, and
	# one delayed across its sender's swap is of an old incarnation; so
	# only one of a peer still in e to a host whose handshake with it
	# was made anew in e+1 is one: rare, as in these two seeds)
	for s in 21 61; do
		run elect-sim -a lease -O -n 5 -s $s -d 8 -r 6 \
		    --faults crash,recovery,partition,reconfigure,delay,reordering \
		    --check
		assert_success
		assert_line --regexp ' drop from=[1-5] why=epoch n=[0-9]+$'
		assert_line --regexp ' boot inc=[0-9]+ algo=lease nodes=[1-5] epoch=[2-9]$'
	done
	run elect-sim -a lease --faults crash,pause,partition,reconfigure -d 8 --campaign 30
	assert_success
	assert_line --index 1 --regexp '^lease +30 .* none$'
	# drift outside lease's bound breaks it: the shrunk run keeps epoch
	# 0's members of the nodes left, and replays
	run elect-sim -a lease -n 6 -E 1,2,3,4 -s 2 -d 8 -D 0.099 -t drift=0 \
	    --faults partition,reconfigure -r 4 -O --shrink
	assert_failure 1
	assert_line --index 0 --partial "lease-quorum: shrunk from 4 faults and 6 nodes"
	assert_line --index 1 --regexp '^elect-sim -a lease -c ([0-9]),([0-9]),([0-9]) .* -E \1,\2,\3 .*--check$'
	local rc=0
	eval "${lines[1]}" >/dev/null 2>"$t/err" || rc=$?
	assert_equal "$rc" 1
	run cat "$t/err"
	assert_line "elect-sim: lease-quorum"
	run elect-sim --help
	assert_output --partial "reconfigure ID,..."
	refused "bully has no epochs" -a bully -n 3 -E 1,2
	refused "bully has no epochs" -a bully -n 3 -e '1 reconfigure 1,2'
	refused "bully has no epochs" -a bully --faults reconfigure --campaign 3
	refused "-E 1,9: node 9 is not in the cluster" -a lease -n 3 -E 1,9
	refused "node 1 named twice" -a lease -n 3 -e '1 reconfigure 1,1'
	refused "expected ID,ID,..." -a lease -n 3 -e '1 reconfigure 2,'
	refused "" -a lease -n 3 -E 1 --campaign 3
}

# A kill (elect-node(1), RUN IF LEADER): the daemon dies, its host runs
# on, and its --run-if-leader guard sends the dead incarnation's Dead to
# every peer, the lease's rtt later.  The grantors end their grants at
# once: the next node leads long before the old lease would have run
# out, which the oracle allows from the Dead on, and elect-check, which
# takes the Dead for the crash it proves, certifies.

# kill_times TRACE: "LEADER EARLY AFTER" for the first leadership after
# 1 s: who, whether it starts before the until= of node 3's last lead
# line before 1 s, whether it starts after the first Dead is received.
kill_times() {
	awk '$1 < 1 && $2 == 3 && $3 == "lead" { u = substr($4, 7) + 0 }
	$1 >= 1 && $3 == "lead" && t == "" { t = $1 + 0; who = $2 }
	$5 == "msg=Dead" && d == "" { d = $1 + 0 }
	END { print who, (t < u ? "early" : "late"), (d != "" && t > d ? "after" : "before") }' "$1"
}

@test "elect-sim: kill: the leader's guard sends its Dead, the next node leads before the old lease ends, certified" {
	need_check
	local t=$BATS_TEST_TMPDIR
	elect-sim -a lease -n 3 -d 2 -e '1 kill 3' -O --check \
	    >"$t/kill" 2>"$t/err"
	run cat "$t/err"
	assert_line "elect-sim: every assertion holds"
	assert_line "elect-sim: oracle: 0 violations, 0 edicts, largest token 2"
	run kill_times "$t/kill"
	assert_output "2 early after"
	# the crash line, nothing else of node 3 (the guard writes no line),
	# and one Dead of incarnation 1 to each peer, the rtt (5 ms) later
	run awk '$1 >= 1 && $2 == 3' "$t/kill"
	assert_output "1 3 crash"
	run awk '$3 == "recv" && $5 == "msg=Dead" {
	    print $2, $4, $6, ($1 >= 1.005 && $1 < 1.01) }' "$t/kill"
	assert_output --regexp '^([12]) from=3 elid=3\.1\.0 1
([12]) from=3 elid=3\.1\.0 1$'
	assert_equal "$(cut -c1 <<<"$output" | sort | paste -sd,)" "1,2"
	run elect-check -s lease "$t/kill"
	assert_success
	# a crash of the host sends nothing: the old lease runs out first
	elect-sim -a lease -n 3 -d 2 -e '1 crash 3' -O >"$t/crash"
	run kill_times "$t/crash"
	assert_output "2 late before"
	run grep -c 'msg=Dead' "$t/crash"
	assert_output 0
}

# The guard outlives its daemon, not its host: a Dead after a reboot,
# none once the host crashed or while it is frozen.  The wire lets a
# Dead's copy through.  Without a Dead in the algorithm, a kill is a
# crash.
@test "elect-sim: kill: a Dead even after a reboot, none from a crashed or paused host; copies reach the core" {
	need_check
	local t=$BATS_TEST_TMPDIR
	elect-sim -a lease -n 3 -d 2 -e '1 kill 3' -e '1.001 boot 3' -O \
	    --check >"$t/t" 2>"$t/err"
	run grep -E ' 3 boot inc=2 |msg=Dead' "$t/t"
	assert_line --index 0 "1.001 3 boot inc=2 algo=lease nodes=3"
	assert_line --index 1 --regexp '^1\.00[5-9][0-9]* [12] recv from=3 msg=Dead elid=3\.1\.0$'
	assert_line --index 2 --regexp '^1\.00[5-9][0-9]* [12] recv from=3 msg=Dead elid=3\.1\.0$'
	assert_equal "${#lines[@]}" 3
	run tail -1 "$t/err"
	assert_output "elect-sim: oracle: 0 violations, 0 edicts, largest token 2"
	run elect-sim -a lease -n 3 -d 2 -e '1 kill 3' -e '1.001 boot 3' \
	    -e '1.002 crash 3' -O
	assert_success
	refute_output --partial "msg=Dead"
	run elect-sim -a lease -n 3 -d 2 -e '1 pause 3' -e '1.001 kill 3' -O
	assert_success
	assert_line "1.001 3 crash"
	refute_output --partial "msg=Dead"
	run elect-sim -a lease -n 3 -d 2 -e '1 kill 3' --dup 100 -O
	assert_success
	run grep -c ' recv from=3 msg=Dead elid=3\.1\.0$' <<<"$output"
	assert_output 4
	elect-sim -a bully -n 3 -d 2 -e '1 kill 3' >"$t/bk"
	elect-sim -a bully -n 3 -d 2 -e '1 crash 3' >"$t/bc"
	cmp "$t/bk" "$t/bc"
	run elect-sim --help
	assert_output --partial "reconfigure kill"
	assert_output --partial "kill ID"
	refused "kill takes 1 argument" -a lease -n 3 -e '1 kill'
	refused "node 9 is not in the cluster" -a lease -n 3 -e '1 kill 9'
}

# Clocks apart far beyond the skew lease was told (-t skew=1 -o 500)
# break it: node 2 leads at once while killed node 3 still led.  Until
# the Dead leaves, that is two leaders, as for a crash; from then on the
# killed node's leadership no longer counts, while a crashed one's runs
# on.  A kill is a fault the shrinker takes out as it does a crash.
@test "elect-sim: kill: the oracle counts the killed leader until its Dead is sent, not after" {
	local t=$BATS_TEST_TMPDIR args dead n late
	args=(-a lease -n 3 -d 2 -O -s 4 -t skew=1 -o 500 -l 0.1:1)
	run --separate-stderr elect-sim "${args[@]}" -e '1 kill 3'
	assert_failure 1
	printf '%s\n' "$output" >"$t/kill"
	printf '%s\n' "$stderr" >"$t/err"
	dead=$(awk '$5 == "msg=Dead" { print $1; exit }' "$t/kill")
	[ -n "$dead" ]
	run awk -v d="$dead" '/2 leaders, among them 2 and 3$/ {
	    n++; t = $3; sub(/:$/, "", t); if (t + 0 >= d + 0) late++ }
	    END { print n + 0, late + 0 }' "$t/err"
	read -r n late <<<"$output"
	[ "$n" -ge 1 ] || fail "no violation before the Dead"
	assert_equal "$late" 0
	run --separate-stderr elect-sim "${args[@]}" -e '1 crash 3'
	assert_failure 1
	run awk -v d="$dead" '/2 leaders, among them 2 and 3$/ {
	    t = $3; sub(/:$/, "", t); if (t + 0 >= d + 0) late++ }
	    END { print late + 0 }' <<<"$stderr"
	[ "$output" -ge 1 ] || fail "a crashed leader's lease ended early"
	run elect-sim "${args[@]}" -e '1 kill 3' -e '1.5 boot 3' --shrink
	assert_failure 1
	assert_output --partial "shrunk from 1 faults and 3 nodes to 0 faults"
}

# Seeded runs with kills among the faults (random schedules draw kill
# where lease admits it); a few seconds of wall time.
@test "elect-sim: --campaign: lease runs with kills among the faults find no violation" {
	local t=$BATS_TEST_TMPDIR
	run elect-sim -a lease --faults kill,recovery,pause,partition,loss,reordering,drift -d 8 --campaign 40
	assert_success
	assert_line --index 1 --regexp '^lease +40 .* none$'
	# the schedules draw kills, and the guards' Deads arrive
	elect-sim -a lease -n 5 -s 3 -d 12 -r 6 --faults kill,recovery -O \
	    --check >"$t/t" 2>"$t/err"
	run grep -c ' crash$' "$t/t"
	[ "$output" -ge 3 ] || fail "only $output kills"
	# only a guard that ran a command (its node led) releases the lease:
	# the killed leaders' Deads, to their four peers each
	run grep -c ' recv from=[1-5] msg=Dead elid=' "$t/t"
	[ "$output" -ge 4 ] || fail "only $output Deads received"
	run tail -2 "$t/err"
	assert_line --index 0 "elect-sim: every assertion holds"
	assert_line --index 1 --regexp '^elect-sim: oracle: 0 violations, '
}

# The split brain a misconfigured host caused on real nodes
# (t/elect-node-mismatch.bats), simulated: a lease cluster's host
# restarted under bully-fd takes its peers for down and its core leads;
# its edge (lib/host/fit, as in elect-node) lets it lead nothing, the
# lease leader leads on, and the oracle sees one leader throughout.
@test "elect-sim: misconf: a host under another algorithm, timing, membership or key leads nothing beside the leader" {
	local t=$BATS_TEST_TMPDIR w
	elect-sim -a lease -n 3 -s 1 -d 6 -e '1.5 misconf 1 algo' \
	    -e '5 misconf 1 ok' -O --check >"$t/t" 2>"$t/err"
	grep -q '^1.5 1 boot inc=2 algo=bully-fd nodes=3$' "$t/t"
	# its core takes itself for leader, its edge stops it
	grep -q ' 1 state status=Norm ldr=1 ' "$t/t"
	grep -q ' 1 misfit lead=no peers=2:algo,3:algo$' "$t/t"
	grep -q ' 3 misfit lead=yes peers=1:algo$' "$t/t"
	# node 1 under lease again: a new incarnation that agrees
	grep -q '^5 1 boot inc=3 algo=lease nodes=3$' "$t/t"
	grep -q '^5\.[0-9]* 3 misfit lead=yes peers=-$' "$t/t"
	run tail -2 "$t/err"
	assert_line --index 0 "elect-sim: every assertion holds"
	assert_line --index 1 --regexp '^elect-sim: oracle: 0 violations, '
	# Under lease a peer of another timing or key grants nothing and
	# stops nothing; one of another membership stops every node.
	for w in timing cluster key; do
		elect-sim -a lease -n 4 -s 2 -d 6 -e "1.5 misconf 4 $w" \
		    -e '5 misconf 4 ok' -O --check >"$t/$w" 2>"$t/$w.err"
		grep -q " 2 misfit lead=$([ $w = cluster ] && echo no ||
		    echo yes) peers=4:$w\$" "$t/$w"
		run tail -2 "$t/$w.err"
		assert_line --index 0 "elect-sim: every assertion holds"
	done
	# drawn by lease campaigns, replayed and shrunk as any fault
	run elect-sim -a lease -d 8 --campaign 60
	assert_success
	assert_line --index 1 --regexp '^lease +60 .* none$'
	run elect-sim -a lease -n 3 -s 5 -d 6 -r 3 --faults misconf -O --check
	assert_success
	assert_output --partial ' misfit lead='
	run elect-sim -a lease -n 3 -d 2 -e '1 misconf 2 tiMing'
	assert_failure 2
	assert_output --partial "misconf: expected ok, algo, timing, cluster, key, addr or stale"
}

# A host whose cluster file has a peer at a wrong address: that peer's
# datagrams come from an address the host does not expect and are refused
# (lib/host/accept, as elect-node refuses them), its own to the peer go
# astray, as over a cut link; the oracle holds throughout.
@test "elect-sim: misconf addr: a peer at a wrong address in a host's file is refused as bad-address, and the oracle holds" {
	local t=$BATS_TEST_TMPDIR
	elect-sim -a lease -n 3 -s 3 -d 7 -e '1 misconf 1 addr' \
	    -e '4 misconf 1 ok' -O --check >"$t/t" 2>"$t/err"
	grep -q '^1 1 boot inc=2 algo=lease nodes=3$' "$t/t"
	# refused at node 1 while its file is wrong, and only then (the
	# daemon's summaries: n= datagrams each, written up to a second on)
	run awk '$3 == "drop" && $5 == "why=bad-address" {
	    split($6, c, "="); n += c[2]
	    if ($2 != 1 || $4 != "from=3" || $1 < 1 || $1 >= 5) bad++ }
	    END { print n + 0, bad + 0 }' "$t/t"
	assert_output --regexp '^[0-9]{2,} 0$'
	# node 3 leads on with node 2's grants, never hearing node 1
	grep -Eq '^[1-3]\.[0-9]+ 2 lease op=grant to=3 ' "$t/t"
	! grep -Eq '^[1-3]\.[0-9]+ 3 recv from=1 ' "$t/t"
	run tail -2 "$t/err"
	assert_line --index 0 "elect-sim: every assertion holds"
	assert_line --index 1 --regexp '^elect-sim: oracle: 0 violations, '
	run elect-sim --help
	assert_output --partial "misconf ID ok|algo|timing|cluster|key|addr"
}

# Every host runs elect-node's edge: a restarted host's core starts once
# its handshakes are done, so its first coordinator is not held for them
# past t_TX (Murshed and Allen's bound on a message, here the longest
# delay): with the core started at once, node 4's coordinator reached
# node 1 13 ms after it was Norm, and both led.  The peers' messages that
# came before the start wait for the core.
@test "elect-sim: a restarted host's core starts after its handshakes, its first messages within t_TX" {
	local t=$BATS_TEST_TMPDIR
	elect-sim -a modified-bully -c 1,4 -s 1 -d 3.1 -m 0.1:5 -t t_tx=5 \
	    -e '2.56719234 crash 4' -e '3.035238429 boot 4' --check \
	    >"$t/t" 2>"$t/err"
	run tail -1 "$t/err"
	assert_output "elect-sim: every assertion holds"
	# up, said, then its core's first coordinator once 1 is confirmed
	run awk '$2 == 4 && $1 >= 3.03 { print $3, $4; exit }' "$t/t"
	assert_output "boot inc=2"
	run awk '$2 == 4 && $1 >= 3.03 && $3 == "send" { print ($1 > 3.0353); exit }' "$t/t"
	assert_output 1
	elect-sim -a enhanced-bully -c 1,4 -s 1 -d 3.1 -m 0.1:5 -t t_tx=5 \
	    -e '2.56719234 crash 4' -e '3.035238429 boot 4' --check \
	    >"$t/t" 2>"$t/err"
	run tail -1 "$t/err"
	assert_output "elect-sim: every assertion holds"
}

# Under misconf every datagram goes through the receiver's acceptance,
# copies too: a copy of a datagram under another key fails its MAC as the
# original does, and the others' copies are the window's replays.
@test "elect-sim: misconf: a copied datagram goes through host_accept, not dropped before it" {
	local t=$BATS_TEST_TMPDIR
	elect-sim -a bully-fd -n 3 -s 3 -d 4 --dup 100 \
	    -e '0 misconf 1 key' >"$t/t"
	# drops summed up as the daemon sums them: n= datagrams a line
	drops() {
		awk -v w="$1" '$3 == "drop" && $4 " " $5 == w {
		    split($6, c, "="); n += c[2] } END { print n + 0 }' "$t/t"
	}
	run drops 'from=1 why=bad-mac'
	[ "$output" -gt 20 ]
	run drops 'from=1 why=replay'
	assert_output 0
	run drops 'from=2 why=replay'
	[ "$output" -gt 0 ]
}

# A run checked in process agrees with elect-check on its trace: here a
# timeout shorter than the messages take, outside what the synchronous
# model promises, breaks Garcia-Molina's assertions.
@test "elect-sim: --check gives elect-check's verdict, in process" {
	need_check
	local t=$BATS_TEST_TMPDIR
	local rc=0
	elect-sim -a bully -n 4 -s 1 -d 4 -m 0.1:5 -t reply=1 --check \
	    2>"$t/verdict" >"$t/t1" || rc=$?
	assert_equal "$rc" 1
	run cat "$t/verdict"
	assert_line --regexp '^-:[0-9]+: gm1: '
	assert_line --index -1 "elect-sim: gm1,gm2,sle1,sle2"
	grep '^-:' "$t/verdict" >"$t/sim"
	elect-sim -a bully -n 4 -s 1 -d 4 -m 0.1:5 -t reply=1 >"$t/t2"
	cmp "$t/t1" "$t/t2"
	run elect-check -s sync -c 1.5 - <"$t/t2"
	assert_failure 1
	assert_output --partial "violated: gm1 "
	assert_output --partial " sle1 "
	grep '^-:' <<<"$output" >"$t/check"
	cmp "$t/sim" "$t/check"
	elect-sim -a bully -n 4 -s 1 -d 4 -m 0.1:5 --check 2>"$t/verdict" >/dev/null
	run cat "$t/verdict"
	assert_output "elect-sim: every assertion holds"
}

# A few thousand seeded runs in all, within make check's seconds: each
# algorithm under its admissible faults, checked in process.
@test "elect-sim: --campaign: 2,800 seeded faulted runs of the seven algorithms find no violation" {
	local a runs
	for a in bully bully-fd modified-bully enhanced-bully async-bully invitation lease; do
		runs=500
		case $a in invitation) runs=200 ;; lease) runs=100 ;; esac
		[ -z "${ELECT_SHORT:-}" ] || runs=$((runs / 10))
		run elect-sim -a $a -d 8 --campaign $runs
		assert_success
		assert_line --index 1 --regexp "^$a +$runs +[0-9.]+ +0 .* none$"
	done
}

# The campaign finds what the assertions catch, and names the command
# that replays each failure; shrinking makes it small.
@test "elect-sim: a failing campaign lists replayable commands, shrunk" {
	run elect-sim -a modified-bully -t t_tx=1 -m 0.1:5 --campaign 4
	assert_failure 1
	assert_line --index 1 --regexp '^modified-bully +4 .* gm1=[1-4] sle1=[1-4]$'
	assert_line --regexp '^failed: seed [0-9]+: gm1,sle1: elect-sim -a modified-bully .* --check$'
	assert_line --regexp '^  shrunk to [01] faults, 2 nodes, '
	cmd=$(sed -n 's/^  shrunk to [^:]*: //p' <<<"$output" | head -1)
	[ -n "$cmd" ]
	eval "run $cmd"
	assert_failure 1
	assert_line "elect-sim: gm1,sle1"
}

# elect-sim(1)'s example: Garcia-Molina's T (reply) of 1 ms, messages of
# up to 5 ms; every run breaks the synchronous model's promise.
@test "elect-sim: a bully reply shorter than the messages take fails every run of a campaign, shrunk" {
	run elect-sim -a bully -t reply=1 -m 0.1:5 --campaign 20
	assert_failure 1
	assert_line --index 1 --regexp '^bully +20 +[0-9.]+ +20 .* gm1=20 gm2=20 sle1=20 sle2=20$'
	assert_line --index 2 'failed: seed 1: gm1,gm2,sle1,sle2: elect-sim -a bully -n 4 -s 1 -d 12 -m 0.1:5 -t reply=1 --dup 2 --faults crash,recovery -r 3 --check'
	assert_line --index 3 --regexp '^  shrunk to 0 faults, 2 nodes, 1.5 s \([0-9]+ runs\): elect-sim -a bully -n 2 -s 1 -d 1.5 -m 0.1:5 -t reply=1 --check$'
	run elect-sim -a bully -n 2 -s 1 -d 1.5 -m 0.1:5 -t reply=1 --check
	assert_failure 1
	assert_line "elect-sim: gm2,sle2"
}

# The trap the example fell into: bully never reads t_tx, and a campaign
# "failing" with it failed nothing.
@test "elect-sim: -t refuses a timing the algorithm does not read, naming those it does" {
	run elect-sim -a bully -t t_tx=1 -m 0.1:5 --campaign 20
	assert_failure 2
	assert_output "elect-sim: -t t_tx: bully does not read it; its timings: reply, check, timeout"
	# after -a as before it, in a single run as in a campaign
	run elect-sim -t t_tx=1 -a bully -n 2
	assert_failure 2
	assert_output "elect-sim: -t t_tx: bully does not read it; its timings: reply, check, timeout"
	run elect-sim -a lease -n 3 -t lease=200 -t reply=5 -t renew=30
	assert_failure 2
	assert_output "elect-sim: -t reply: lease does not read it; its timings: lease, renew, rtt, drift, skew"
	# every timing any algorithm reads, refused by each other one
	run elect-sim --help
	assert_success
	local a names all t
	all=$(awk 'f { gsub(/,/, ""); for (i = 2; i <= NF; i++) print $i }
	    /^timings \(-t\)/ { f = 1 }' <<<"$output" | sort -u | paste -sd' ')
	assert_equal "$all" "accept_wait alpha announce check drift lease merge_wait renew reply rtt skew t_el t_ok t_tx tau timeout"
	for a in bully bully-fd async-bully invitation modified-bully enhanced-bully lease; do
		names=$(elect-sim --help | awk -v a=$a '$1 == a { $1 = ""; print substr($0, 2) }')
		[ -n "$names" ] || fail "--help lists no timings for $a"
		for t in $all; do
			case ", $names, " in *", $t, "*) continue ;; esac
			run elect-sim -a $a -n 2 -d 0.1 -t $t=1
			assert_failure 2
			assert_output "elect-sim: -t $t: $a does not read it; its timings: $names"
		done
	done
}

# The other half: a timing an algorithm lists is one it reads, for each
# changes the trace of one of three runs (faults drawn; an electioneer that
# dies after the oks; the candidates gone at once) at a value of its own,
# the cores' own timings on the papers' network.
@test "elect-sim: every timing an algorithm lists changes its runs" {
	local -A v=([reply]=20 [check]=70 [timeout]=200 [tau]=60 [t_tx]=7
	    [alpha]=3 [t_el]=30 [t_ok]=30 [merge_wait]=40 [accept_wait]=60
	    [announce]=300 [lease]=200 [renew]=30 [rtt]=10 [drift]=0.01
	    [skew]=5)
	local t=$BATS_TEST_TMPDIR a names n k differs
	local runs=("-n 5 -s 1 -d 12 -r 6 --papers-net"
	    "-n 5 -s 1 -d 3 -L -l 20:200 -m 1:1 -e '1 crash 5' -e '1.01 crash 4' -e '1.03 crash 1' --papers-net"
	    "-n 5 -s 1 -d 3 -L -l 20:200 -m 1:1 -e '1 crash 5' -e '1 crash 4' -e '1 crash 3' --papers-net")
	for a in bully bully-fd async-bully invitation modified-bully enhanced-bully lease; do
		for k in 0 1 2; do
			eval "elect-sim -a $a ${runs[k]}" >"$t/$a.$k"
		done
		names=$(elect-sim --help | awk -v a=$a '$1 == a { $1 = ""; gsub(/,/, ""); print }')
		for n in $names; do
			[ -n "${v[$n]:-}" ] || fail "no value to set $n to in this test"
			differs=
			for k in 0 1 2; do
				eval "elect-sim -a $a ${runs[k]} -t $n=${v[$n]}" >"$t/x"
				cmp -s "$t/$a.$k" "$t/x" || differs=1
			done
			[ -n "$differs" ] || fail "$a: -t $n=${v[$n]} changes none of its runs"
		done
	done
}

@test "elect-sim: --shrink reduces a failing run to a small one that still fails" {
	need_check
	local t=$BATS_TEST_TMPDIR
	local rc=0
	elect-sim -a bully -n 9 -s 4 -d 12 -m 0.1:5 -t reply=1 -r 6 \
	    --shrink 2>"$t/err" >"$t/out" || rc=$?
	assert_equal "$rc" 1
	run cat "$t/out"
	assert_output --regexp '^elect-sim -a bully -n 2 -s 4 -d [0-9.]+ .*-t reply=1 --check$'
	cmd=$output
	run cat "$t/err"
	assert_output --regexp '^elect-sim: gm1,.*: shrunk from [0-9]+ faults and 9 nodes to 0 faults, 2 nodes, '
	eval "${cmd% --check}" >"$t/t"
	run elect-check -s sync -c 1.5 "$BATS_TEST_TMPDIR/t"
	assert_failure 1
	# A run that holds has nothing to shrink.
	run elect-sim -a bully -n 3 -s 4 -d 6 -r 2 --shrink
	assert_success
	assert_output --partial "nothing to shrink"
}

# Murshed & Allen's Tables 1-3, as the paper prints them ([2], [9],
# theirs), and what the cores send: the modified and the enhanced bully
# match the paper in the best and worst cases and SEC; NRC as the manual
# says.
@test "elect-sim: --table murshed-allen-1..3 gives the paper's numbers, and the cores send them" {
	local paper=(
	    "1 best 4 4 4 4" "1 worst 1 20 11 9" "1 SEC 1,3 20 18 11" "1 NRC 2 13 5 5"
	    "2 best 9 9 9 9" "2 worst 1 90 26 18" "2 SEC 2,5,7 73 56 26" "2 NRC 3 58 13 9"
	    "3 best 19 19 19 19" "3 worst 1 380 56 38" "3 SEC 4,5,16 275 124 52"
	    "3 NRC 20 19 19 13")
	local row t c keys p2 p9 pt got
	for row in "${paper[@]}"; do
		read -r t c keys p2 p9 pt <<<"$row"
		run elect-sim --table murshed-allen-$t
		assert_success
		got=$(awk -v c="$c" '$1 == c { print $2, $3, $4, $5, $7, $8 }' <<<"$output")
		read -r -a g <<<"$got"
		assert_equal "${g[0]} ${g[1]} ${g[2]} ${g[3]}" "$keys $p2 $p9 $pt"
		case $t.$c in
		[12].NRC)
			assert_equal "${g[4]} ${g[5]}" "$((p9 + 1)) $((pt + 1))" ;;
		3.NRC)
			assert_equal "${g[4]} ${g[5]}" "19 19" ;;
		*)
			assert_equal "${g[4]} ${g[5]}" "$p9 $pt" ;;
		esac
	done
}

# Messages per election against N beside the papers' analyses: the
# counts that are exact in the papers are met exactly.
@test "elect-sim: --table messages: the papers' exact counts, met" {
	run elect-sim --table messages
	assert_success
	run awk '
	$1 == "bully" && $2 <= 50 && $3 != 9 * $2 - 17 { print; bad = 1 }
	$1 == "bully-fd" && $3 != 3 * ($2 - 2) { print; bad = 1 }
	$1 == "modified-bully" && $3 != 3 * $2 - 4 { print; bad = 1 }
	$1 == "enhanced-bully" && $3 > 2 * $2 - 1 { print; bad = 1 }
	$1 ~ /^(bully|bully-fd|modified-bully|enhanced-bully)$/ { rows++ }
	$3 == "-" { print; bad = 1 }
	END { if (rows != 20) { print rows " rows"; bad = 1 }; exit bad }' <<<"$output"
	assert_success
}

@test "elect-sim: --table --svg: the tables drawn, valid SVG, the same numbers" {
	command -v xmllint >/dev/null || skip "no xmllint (Debian: libxml2-utils)"
	elect-sim --table messages --svg >"$BATS_TEST_TMPDIR/m.svg"
	xmllint --noout "$BATS_TEST_TMPDIR/m.svg"
	# a measured and a paper line for each of the eight rows
	assert_equal "$(grep -c 'class="measured"' "$BATS_TEST_TMPDIR/m.svg")" 8
	assert_equal "$(grep -c 'class="paper"' "$BATS_TEST_TMPDIR/m.svg")" 8
	elect-sim --table murshed-allen-1 --svg >"$BATS_TEST_TMPDIR/t1.svg"
	xmllint --noout "$BATS_TEST_TMPDIR/t1.svg"
	# four cases of six bars; the bars' numbers are the text table's
	run sed -n 's/.*<rect class="\(paper\|measured\)".*<title>\([0-9]*\)<.*/\2/p' \
	    "$BATS_TEST_TMPDIR/t1.svg"
	assert_equal "${#lines[@]}" 24
	bars=$(echo "$output" | paste -sd' ')
	text=$(elect-sim --table murshed-allen-1 | awk '$1 ~ /^(best|worst|SEC|NRC)$/ {
	    printf "%s%s %s %s %s %s %s", sep, $3, $4, $5, $6, $7, $8; sep = " " }')
	assert_equal "$bars" "$text"
	run elect-sim --table messages --bogus
	assert_failure 2
	assert_output --partial "--table takes no other option but --svg"
}

@test "elect-sim: misconf ID stale: a host restarted with an older epoch's cluster file refuses to start and stays down" {
	need_check
	local t=$BATS_TEST_TMPDIR
	elect-sim -a lease -O -n 4 -E 1,2,3 -s 3 -d 4 \
	    -e '1 reconfigure 1,2,3,4' -e '2 misconf 2 stale' \
	    -e '2.5 boot 2' >"$t/a" 2>"$t/err"
	assert_regex "$(cat "$t/err")" "oracle: 0 violations"
	# node 2 moved to epoch 1, then crashed and never booted again
	run grep -E '^[0-9.]+ 2 boot .* epoch=1$' "$t/a"
	assert_success
	run awk '$2 == 2 && $1 >= 2 { print $3 }' "$t/a"
	assert_output "crash"
	run elect-check -s lease "$t/a"
	assert_success
	# it is an event of runs with epochs only: elsewhere it changes nothing
	run elect-sim -a lease -n 3 -s 3 -d 2 -e '1 misconf 2 stale'
	assert_success
	refute_output --partial "crash"
	run elect-sim -a lease -n 3 -e '1 misconf 2 stalest'
	assert_failure 2
	assert_output --partial "or stale"
}

@test "elect-sim: --names K: named leaderships spread over the hosts, each name led by one host at a time, through kills and crashes; the trace certified per name" {
	t=$BATS_TEST_TMPDIR/t
	elect-sim -a lease -n 5 -s 7 -d 6 -O --names 12 -k kill,crash,partition \
	    -r 5 >"$t" 2>"$BATS_TEST_TMPDIR/err"
	grep -q 'oracle: 0 violations' "$BATS_TEST_TMPDIR/err"
	# Several hosts lead names, and names change hands under the faults.
	holders=$(awk '$3 == "lead" && /name=/ && /token=/ { print $2 }' "$t" |
	    sort -u | wc -l)
	[ "$holders" -ge 3 ]
	grep -q 'lead name=job-0011 ' "$t"
	grep -Eq 'lead name=job-[0-9]+ .*token=2' "$t"
	grep -q 'renew name=\* d=' "$t"
	run elect-check "$t"
	assert_success
	assert_output --partial "12 names"
	assert_output --partial "holds: trace uniqueness lease-quorum"
}

@test "elect-sim: --names refuses what named leaderships do not run on" {
	run elect-sim -a bully -n 3 --names 2
	assert_failure 2
	assert_output --partial "--names"
	run elect-sim -a lease -n 3 --names 2 --papers-net
	assert_failure 2
	run elect-sim -a lease -n 3 --names 4097
	assert_failure 2
}

# Named leaderships follow epochs as elect-node's do: rebuilt over the
# new members at the swap, asking nothing until the epoch before ended,
# their tokens above 2^40 in epoch 1.
@test "elect-sim: --names with reconfigure: names lead in later epochs under their tokens, checked" {
	local f=$BATS_TEST_TMPDIR/t
	run bash -c 'elect-sim -a lease -n 3 -s 195 -d 12 -m 0.1:3 -b 50 -O \
	    --names 2 -k crash,pause,partition,reconfigure -r 10 --check \
	    2>&1 >"$1"' _ "$f"
	assert_success
	assert_line "elect-sim: every assertion holds"
	assert_line --regexp "^elect-sim: oracle: 0 violations, 0 edicts, largest token [0-9]+$"
	grep -q " epoch op=learn epoch=1" "$f"
	run awk '/ lead name=/ { for (i = 1; i <= NF; i++)
	    if ($i ~ /^token=/ && substr($i, 7) + 0 > 1099511627776) n++ }
	    END { print n + 0 }' "$f"
	[ "$output" -gt 0 ] || fail "no name led in epoch 1"
}
