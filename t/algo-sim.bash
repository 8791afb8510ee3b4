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
