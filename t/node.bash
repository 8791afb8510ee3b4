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

# mkkey FILE: a new cluster key in FILE, mode 0600; prints FILE.
mkkey() {
	(umask 077; head -c 32 /dev/urandom >"$1")
	echo "$1"
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

# mkrelayed N: a cluster of N nodes in $BATS_TEST_TMPDIR/cluster.conf, as
# mkcluster makes it, and for each node ID a file of its own, cluster.conf.ID
# (in ELECT_CLUSTER_OF, so call it after elect_setup), in which every peer
# is at a relay port of its own: what node I sends to node J's protocol
# port goes through 127.0.0.1:RELAY (their detectors talk directly).
# $BATS_TEST_TMPDIR/routes gets "I J RELAY:PORT/BACK" for each pair, the
# last field a route for udpmix: it sends from BACK, the relay of J to I,
# which is where node J's file has node I (the source address it checks).
mkrelayed() {
	local n=$1 f=$BATS_TEST_TMPDIR/cluster.conf p r i j
	p=$(freeport -n 1 -w $((2 * n + n * (n - 1))))
	r=$((p + 2 * n))
	# relay I J: the relay port of what I sends to J.
	relay() {
		echo $((p + 2 * n + ($1 - 1) * (n - 1) + ($2 < $1 ? $2 - 1 : $2 - 2)))
	}
	: >"$BATS_TEST_TMPDIR/routes"
	for ((i = 1; i <= n; i++)); do
		echo "node $i 127.0.0.1:$((p + 2 * (i - 1)))"
	done >"$f"
	for ((i = 1; i <= n; i++)); do
		for ((j = 1; j <= n; j++)); do
			if [ "$i" = "$j" ]; then
				echo "node $i 127.0.0.1:$((p + 2 * (i - 1)))"
				continue
			fi
			echo "node $j 127.0.0.1:$r fd=$((p + 2 * (j - 1) + 1))"
			[ "$r" = "$(relay "$i" "$j")" ]
			echo "$i $j $r:$((p + 2 * (j - 1)))/$(relay "$j" "$i")" \
			    >>"$BATS_TEST_TMPDIR/routes"
			r=$((r + 1))
		done >"$f.$i"
		ELECT_CLUSTER_OF[$i]=$f.$i
	done
}
