# Loaded by the algorithm tests: runs algo-sim over many seeds and checks
# every trace with elect-check.

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
