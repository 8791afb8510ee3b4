#!/bin/sh
# elect-sim's speed: simulated seconds per wall-clock second and runs per
# second, for every algorithm at N = 5, 50 and 500 (lease: 250, its
# largest cluster is 255), each run 12 simulated seconds under 4 faults of
# the algorithm's admissible set; first the simulation alone (the trace
# written to /dev/null), then checked in process (--campaign, elect-check's
# assertions and lease's oracle on every line).
#
#	sim.sh [N ...]		(default 5 50 500)
#
# SIM_ALGOS names the rows (default: all).
set -eu
: "${ELECT_BUILD:?set ELECT_BUILD to a build directory}"
PATH="$ELECT_BUILD/bin:$PATH"
ns=${*:-5 50 500}

now() { date +%s.%N; }

# runs N: how many runs make a figure at N without taking minutes.
runs() {
	if [ "$1" -le 10 ]; then echo 200
	elif [ "$1" -le 100 ]; then echo 20
	else echo 1
	fi
}

printf '%-15s %4s %5s %14s %9s %14s %9s\n' algorithm N runs \
    "sim-s/wall-s" "runs/s" "checked sim-s" "runs/s"
for a in ${SIM_ALGOS:-bully bully-fd modified-bully enhanced-bully \
    async-bully invitation lease}; do
	for n in $ns; do
		[ "$a" = lease ] && [ "$n" -gt 255 ] && n=250
		k=$(runs "$n")
		t0=$(now)
		s=1
		while [ $s -le "$k" ]; do
			elect-sim -a "$a" -n "$n" -s $s -d 12 -r 4 >/dev/null
			s=$((s + 1))
		done
		t1=$(now)
		line=$(elect-sim -a "$a" -n "$n" -d 12 -r 4 --campaign "$k" |
		    sed -n 2p)
		set -- $line
		awk -v a="$a" -v n="$n" -v k="$k" -v t0="$t0" -v t1="$t1" \
		    -v cs="$7" -v cr="$6" -v f="$4" 'BEGIN {
			w = t1 - t0
			printf "%-15s %4d %5d %14.0f %9.1f %14.0f %9.1f%s\n", a,
			    n, k, 12 * k / w, k / w, cs, cr,
			    (f > 0 ? "  (" f " failed)" : "")
		}'
	done
done
