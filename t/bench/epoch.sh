#!/bin/sh
# Membership changes (Nerio 10.6) in the simulator, default timings: 100
# changes a second apart among six hosts (grow 3 to 5, shrink, replace one,
# replace a majority one at a time, all at once), checked with the oracle
# and elect-check.  Prints, from each change to the first leader of the new
# epoch with its token established, the median and the 99th percentile;
# and for the changes whose leader's host stays leader, how long no node
# led (what a guarded job of that host loses, besides its own stop).
set -eu
B=${ELECT_BUILD:?ELECT_BUILD must name a build}
T=$(mktemp)
trap 'rm -f "$T" "$T.err"' EXIT
set -- 1,2,3,4,5 3,4,5 3,4,6 1,4,6 1,2,6 4,5,6 1,2,3
args= i=0
while [ $i -lt 100 ]; do
	eval m=\${$((i % 7 + 1))}
	args="$args -e '$((i + 1)) reconfigure $m'"
	i=$((i + 1))
done
eval "\"$B/bin/elect-sim\" -a lease -O -n 6 -E 1,2,3 -s 17 -d 102 $args" \
    >"$T" 2>"$T.err" || { cat "$T.err"; exit 1; }
"$B/bin/elect-check" -s lease "$T" >/dev/null 2>"$T.err" ||
    { cat "$T.err"; exit 1; }
awk '
# lead lines: the epoch is the last key when it is there
$3 == "lead" {
	e = 0
	if ($NF ~ /^epoch=/) { e = $NF; sub(/epoch=/, "", e) }
	leads = $0 ~ /token=/
	u = $4; c = $5; sub(/until=/, "", u); sub(/clock=/, "", c)
	if (u + 0 <= c + 0) {		# gave up: the last leader ends now
		if (last[e] == $2) ended[e] = $1
		next
	}
	last[e] = $2
	if (leads && !(e in first)) { first[e] = $1; who[e] = $2 }
}
END {
	for (e = 1; e in first; e++) {
		print "d", (first[e] - e) * 1000
		if (who[e] == last[e - 1] && (e - 1) in ended)
			print "g", (first[e] - ended[e - 1]) * 1000
	}
}' "$T" | sort -k1,1 -k2,2n | awk '
{ v[$1, n[$1]++] = $2 }
END {
	printf "epoch: %d changes, to the first leader of the new epoch: " \
	    "median %.1f ms, p99 %.1f ms\n", n["d"], v["d", int(n["d"] / 2)],
	    v["d", int(n["d"] * 0.99)]
	if (n["g"] > 0)
		printf "epoch: leader host stays (%d changes): no leader for " \
		    "median %.1f ms, max %.1f ms\n", n["g"],
		    v["g", int(n["g"] / 2)], v["g", n["g"] - 1]
}'

# More random seeds than make check runs: changes mixed with crashes,
# pauses and partitions, each run checked by the oracle and elect-check.
N=${EPOCH_SEEDS:-5000}
fails=$(seq 1001 $((1000 + N)) | xargs -P "$(nproc)" -n 100 bash -c '
	set -o pipefail
	for s; do
		n=$((3 + s % 4))
		"$0/bin/elect-sim" -a lease -O -n $n -s $s -d 5 -r 4 \
		    --faults crash,recovery,pause,partition,reconfigure \
		    -e "1.5 edict $n a" -e "2.5 edict 2 b" 2>/dev/null |
		    "$0/bin/elect-check" -s lease - >/dev/null 2>&1 ||
		    echo "seed $s"
	done' "$B")
[ -z "$fails" ] || { echo "epoch: failed: $fails"; exit 1; }
echo "epoch: $N random seeds with changes, crashes, pauses and partitions: all certified"
