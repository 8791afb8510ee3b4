# Loaded by the algorithm tests: runs algo-sim over many seeds and checks
# every trace with elect-check; reads what algo-sim says.

# Skips when elect-check cannot check assertion sets yet.
need_check() {
	elect-check --help 2>/dev/null | grep -q '^sets:' ||
	    skip "elect-check has no assertion sets"
}

# sim_sweep SET SEEDS ALGO-SIM-ARGS...: for seeds 1..SEEDS, a cluster of
# 3 to 7 nodes; every trace must satisfy elect-check -s SET.
sim_sweep() {
	local set=$1 seeds=$2 s n
	shift 2
	for s in $(seq 1 "$seeds"); do
		n=$((3 + s % 5))
		algo-sim -n $n -s $s "$@" >"$BATS_TEST_TMPDIR/trace" ||
		    fail "algo-sim -n $n -s $s $* failed"
		run elect-check -s "$set" -c 1.5 "$BATS_TEST_TMPDIR/trace"
		[ "$status" -eq 0 ] || fail "algo-sim -n $n -s $s $*: $output"
	done
}

# after_crash ALGO-SIM-ARGS...: algo-sim's count (-S) of the election
# after a crash.
after_crash() {
	algo-sim "$@" 2>&1 >/dev/null | grep 'after crash'
}

# final_states TRACE: the last state line of each node in TRACE, as
# "NODE STATUS LDR GRP".
final_states() {
	awk '$3 == "state" { s[$2] = $2 " " $4 " " $5 " " $6 }
	    END { for (n in s) print s[n] }' "$1" | sort -n
}

# loss_cost ALGO SEED: "MSGS MAXCTR AGREED" of a faulted run at N = 17
# under 3% loss, then the same without loss, one line each.
loss_cost() {
	local x
	for x in 3 0; do
		algo-sim -a "$1" -n 17 -s "$2" -d 12 -r 6 \
		    -k crash,pause,partition -m 0.1:10 -x $x -S \
		    2>"$BATS_TEST_TMPDIR/st" >"$BATS_TEST_TMPDIR/tr"
		echo "$(tail -1 "$BATS_TEST_TMPDIR/st" | sed 's/.*msgs=\([0-9]*\).*/\1/')" \
		    "$(grep -o 'grp=[0-9]*\.[0-9]*\.[0-9]*' "$BATS_TEST_TMPDIR/tr" |
		    awk -F. '$3 > m { m = $3 } END { print m + 0 }')" \
		    "$(grep -c '^agreed' "$BATS_TEST_TMPDIR/st")"
	done
}
