#!/bin/sh
# A randomized campaign: elect-sim --campaign for every algorithm, each
# seeded run under the faults its model admits and checked in process by
# elect-check's assertions (and lease's oracle); a table of runs,
# simulated hours, violations by assertion, and runs per second.
#
#	campaign.sh [-j JOBS] [-d SECONDS] [-f FIRST] [RUNS [ALGO ...]]
#
# RUNS seeded runs per algorithm (default 100000, make bench's figure:
# an hour or more on two cores; CAMPAIGN_RUNS) from seed FIRST (default
# 1), 12 simulated seconds each (-d), split among JOBS processes (default
# 2), niced.  elect-sim(1), CAMPAIGNS, says how each run is drawn.  Each
# failing run is listed with the command that replays it and, for the
# first ones, a shrunk one.  Exit 1 on any violation.
set -eu
: "${ELECT_BUILD:?set ELECT_BUILD to a build directory}"
PATH="$ELECT_BUILD/bin:$PATH"
jobs=2 dur= first=1
while getopts d:f:j: o; do
	case $o in
	d) dur=$OPTARG ;;
	f) first=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) echo "usage: campaign.sh [-j JOBS] [-d SECONDS] [-f FIRST]" \
	       "[RUNS [ALGO ...]]" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
runs=${1:-${CAMPAIGN_RUNS:-100000}}
[ $# -gt 0 ] && shift
algos=${*:-bully bully-fd modified-bully enhanced-bully async-bully invitation lease}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

fail=0
printf '%-15s %8s %9s %6s %8s %8s %12s  %s\n' algorithm runs sim-hours \
    failed wall-s runs/s sim-s/wall-s "violations by assertion (runs)"
for a in $algos; do
	w=0 start=$(date +%s.%N)
	while [ $w -lt "$jobs" ]; do
		# Worker W takes an even share of the seeds, in one range.
		lo=$((first + runs * w / jobs))
		hi=$((first + runs * (w + 1) / jobs))
		if [ $hi -gt $lo ]; then
			nice -n 10 elect-sim -a "$a" ${dur:+-d "$dur"} \
			    --campaign $((hi - lo)) --first $lo \
			    >"$tmp/$a.$w" 2>&1 &
		else
			: >"$tmp/$a.$w"
		fi
		w=$((w + 1))
	done
	wait || true
	end=$(date +%s.%N)
	cat "$tmp/$a".* | awk -v a="$a" -v t0="$start" -v t1="$end" '
	$1 == a && $2 ~ /^[0-9]+$/ { runs += $2; h += $3; bad += $4
		for (i = 8; i <= NF; i++) if ($i != "none") {
			split($i, kv, "="); v[kv[1]] += kv[2]; if (!(kv[1] in seen)) { seen[kv[1]] = 1; order[++nv] = kv[1] } } }
	/^failed:|^  shrunk/ { f[++nf] = $0 }
	END { wall = t1 - t0
		s = ""; for (i = 1; i <= nv; i++) s = s (i > 1 ? " " : "") order[i] "=" v[order[i]]
		printf "%-15s %8d %9.2f %6d %8.1f %8.0f %12.0f  %s\n", a, runs, h, bad, wall, runs / wall, h * 3600 / wall, s == "" ? "none" : s
		for (i = 1; i <= nf && i <= 20; i++) print f[i]
		exit bad > 0 }' || fail=1
done
exit $fail
