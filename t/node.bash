# Helpers for the elect-node tests: cluster files on free ports, and the
# bats helper users get (share/elect/elect.bash), so it is exercised by
# every run.
load "$BATS_TEST_DIRNAME/../share/elect/elect.bash"

STUB=$FIXTURES/node

# mkcluster N [FILE]: a cluster of N nodes on 127.0.0.1, ids 1..N, on free
# ports (each node's fd port is its port + 1); prints the file's name.
mkcluster() {
	local n=$1 f=${2:-$BATS_TEST_TMPDIR/cluster.conf} p i
	p=$(freeport -n 1 -w $((2 * n)))
	: >"$f"
	for ((i = 1; i <= n; i++)); do
		echo "node $i 127.0.0.1:$((p + 2 * (i - 1)))" >>"$f"
	done
	echo "$f"
}

# port ID [FILE]: the protocol port of node ID.
port() {
	awk -v id="$1" '$1 == "node" && $2 == id {
		n = split($3, hp, ":"); print hp[n] }' \
	    "${2:-$BATS_TEST_TMPDIR/cluster.conf}"
}

# trace_has FILE PATTERN: FILE has a line matching the extended regex.
trace_has() {
	grep -Eq -- "$2" "$1"
}
