#!/usr/bin/env bats
# Epochs in the lease core (Nerio 10.6; share/elect/lease.md, Epochs,
# rules E1 to E6), run in elect-sim; in algo-drive's scripts -e boots a
# core in an epoch, -p pending (not yet told that the epoch before ended);
# `cmd wedge' is the paper's grant request of infinite delta, `cmd
# terminated' the news that a majority of the epoch before is wedged.
# Scripts pin lease 150 ms and renew 50 ms, as the lease transcripts do.
# Its transcripts, the core driven input by input, are
# t/testdata/algo/lease-epoch.txt (t/transcripts.bats).

load helper

# epoch_sim ARGS...: elect-sim -a lease with its oracle (-O) and the trace
# certified by elect-check -s lease; the trace is left in $T.
epoch_sim() {
	T=$BATS_TEST_TMPDIR/trace
	elect-sim -a lease -O "$@" >"$T" 2>"$BATS_TEST_TMPDIR/err" ||
	    fail "elect-sim $*: $(cat "$BATS_TEST_TMPDIR/err")"
	run elect-check -s lease "$T"
	[ "$status" -eq 0 ] || fail "elect-sim $*: $output"
}

# The last epoch's leader, and that its token lies in epoch E's range.
new_leader() {
	local e=$1 tok
	tok=$(awk -v e="epoch=$e" '$3 == "lead" && $NF == e && /token=/ {
	    sub(/.*token=/, ""); print $1; exit }' "$T")
	[ -n "$tok" ] || fail "no leader of epoch $e"
	[ "$((tok >> 40))" -eq "$e" ] || fail "epoch $e token $tok"
}

@test "epochs in the simulator: grow 3 to 5, shrink 5 to 3, replace a node, a majority one at a time, all at once; under crashes, pauses and partitions" {
	local s
	for s in 1 2 3; do
		epoch_sim -n 6 -E 1,2,3 -s $s -d 4 -e '0.5 reconfigure 1,2,3,4,5' \
		    -e '1 reconfigure 3,4,5' -e '1.5 reconfigure 3,4,6' \
		    -e '2 reconfigure 1,4,6' -e '2.5 reconfigure 1,2,6' \
		    -e '3 reconfigure 3,4,5'
		new_leader 6
		[ "$(grep -c 'exit why=epoch' "$T")" -ge 10 ]
		# the leader of epoch 0 is the highest id, 3; once it leaves
		# (epoch 4), no line of it comes before it joins again
		epoch_sim -n 6 -E 1,2,3 -s $s -d 5 -e '0.5 reconfigure 1,2,3,4,5' \
		    -e '0.51 crash 5' -e '0.7 boot 5' \
		    -e '1.5 pause 5' -e '1.52 reconfigure 2,3,4' -e '1.7 resume 5' \
		    -e '2.5 partition 1,2/3,4,5,6' -e '2.5 reconfigure 4,5,6' \
		    -e '3 heal' -e '3.5 crash 6' -e '3.5 reconfigure 6' \
		    -e '3.6 boot 6'
		new_leader 4
	done
	# a change waits for the one before: cut off from epoch 0, epoch 1
	# cannot start, and the second change is skipped
	epoch_sim -n 6 -E 1,2,3 -d 4 -S -e '0.9 partition 1,2,3/4,5,6' \
	    -e '1 reconfigure 4,5,6' -e '1.5 reconfigure 4,5' -e '2 heal'
	assert_regex "$(cat "$BATS_TEST_TMPDIR/err")" "reconfigure skipped: epoch 1 has not started"
	new_leader 1
	run grep -c "epoch=2" "$T"
	assert_output 0
}

@test "epochs in the simulator: 1000 random runs (200 under the sanitizers) mixing changes with crashes, pauses and partitions" {
	# Each seed: the simulator with its oracle, piped into elect-check;
	# -S counts the changes after which the new epoch agreed on a leader.
	run_seeds() {
		local s n ev i
		set -o pipefail
		for s; do
			n=$((3 + s % 4))
			ev=()
			for i in $(seq 1 $n); do
				ev+=(-e "1.5 edict $i a$s" -e "2.5 edict $i b$s")
			done
			elect-sim -a lease -O -S -n $n -s $s -d 5 -r 4 \
			    --faults crash,recovery,pause,partition,reconfigure \
			    "${ev[@]}" \
			    2>"$dir/$s.err" | elect-check -s lease - \
			    >"$dir/$s.out" 2>&1 ||
			    { echo "seed $s: $(cat "$dir/$s.err" "$dir/$s.out")"
			    exit 255; }
			grep -c 'after reconfigure' "$dir/$s.err" >>"$dir/changes" ||
			    :
			rm -f "$dir/$s.err" "$dir/$s.out"
		done
	}
	export -f run_seeds
	export dir=$BATS_TEST_TMPDIR
	# The sanitizer pass (ELECT_SHORT) runs the same code on fewer seeds.
	local seeds=1000
	[ -z "${ELECT_SHORT:-}" ] || seeds=200
	run bash -c "seq 1 $seeds | xargs -P $(nproc) -n 50 bash -c 'run_seeds \"\$@\"' _"
	assert_success
	# the schedules did change the cluster, hundreds of times
	[ "$(awk '{ s += $1 } END { print s }' "$dir/changes")" -ge $((seeds / 2)) ]
}
