#!/bin/bash
# elect-sim's speed: simulated seconds per second and runs per second, for
# every algorithm at N = 5, 50 and 500, each run 12 simulated seconds
# under 4 faults of the algorithm's admissible set; first the
# simulation alone (a process per run, the trace written to /dev/null),
# then checked in process
# (--campaign: elect-check's assertions and lease's oracle on every
# line).  Per second of wall-clock time, and per second of CPU time,
# which a shared host changes less.
#
#	sim.sh [N ...]		(default 5 50 500)
#
# SIM_ALGOS names the rows (default: all).
set -eu
: "${ELECT_BUILD:?set ELECT_BUILD to a build directory}"
PATH="$ELECT_BUILD/bin:$PATH"
ns=${*:-5 50 500}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
TIMEFORMAT='%R %U %S'

# runs N: how many runs make a figure at N without taking minutes.
runs() {
	if [ "$1" -le 10 ]; then echo 200
	elif [ "$1" -le 100 ]; then echo 20
	else echo 1
	fi
}

alone() {
	local s
	for ((s = 1; s <= $3; s++)); do
		elect-sim -a "$1" -n "$2" -s $s -d 12 -r 4 >/dev/null
	done
}

printf '%-15s %4s %5s | %-34s | %-34s\n' "" "" "" \
    "simulation alone, per second of" "checked in process, per second of"
printf '%-15s %4s %5s | %16s %17s | %16s %17s\n' "" "" "" "wall time" \
    "CPU time" "wall time" "CPU time"
printf '%-15s %4s %5s | %9s %6s %10s %6s | %9s %6s %10s %6s\n' algorithm N \
    runs sim-s runs sim-s runs sim-s runs sim-s runs
for a in ${SIM_ALGOS:-bully bully-fd modified-bully enhanced-bully \
    async-bully invitation lease}; do
	for n in $ns; do
		k=$(runs "$n")
		{ time alone "$a" "$n" "$k"; } 2>"$tmp/alone"
		{ time elect-sim -a "$a" -n "$n" -d 12 -r 4 --campaign "$k" \
		    >"$tmp/out"; } 2>"$tmp/checked" || true
		f=$(awk 'NR == 2 { print $4 }' "$tmp/out")
		awk -v a="$a" -v n="$n" -v k="$k" -v f="$f" '
		NR == 1 { w1 = $1; c1 = $2 + $3 }
		NR == 2 { w2 = $1; c2 = $2 + $3 }
		END {
			printf "%-15s %4d %5d | %9.0f %6.1f %10.0f %6.1f | %9.0f %6.1f %10.0f %6.1f%s\n",
			    a, n, k, 12 * k / w1, k / w1, 12 * k / c1, k / c1,
			    12 * k / w2, k / w2, 12 * k / c2, k / c2,
			    (f > 0 ? "  (" f " failed)" : "")
		}' "$tmp/alone" "$tmp/checked"
	done
done
