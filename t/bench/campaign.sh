#!/bin/sh
# A randomized campaign: algo-sim runs of every algorithm under the faults
# its model admits, each piped into elect-check with the algorithm's
# assertion set, and a table of runs, simulated hours and violations by
# assertion.
#
#	campaign.sh [-j JOBS] [-d SECONDS] [-f FIRST] [RUNS [ALGO ...]]
#
# RUNS seeded runs per algorithm (default 300), 12 simulated seconds each
# (-d),
# N from 3 to 17, 2 to 12 faults; the synchronous algorithms get crashes
# and recoveries (their model admits no more), the asynchronous ones
# crashes, pauses and partitions, with reordering (-R) and 2-3% loss (-x)
# on three runs in four; lease as the asynchronous ones, with drift and the
# -O oracle too.  Every seed runs every algorithm before the next seed
# does, so that a campaign stopped early (kill its workers) is still even,
# and -f goes on from seed FIRST.
# Each failing run is listed with the command that replays it.  Exit 1 on
# any violation.
set -eu
: "${ELECT_BUILD:?set ELECT_BUILD to a build directory}"
PATH="$ELECT_BUILD/bin:$ELECT_BUILD/t:$PATH"
jobs=2 dur=12 first=1
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
runs=${1:-300}
[ $# -gt 0 ] && shift
algos=${*:-bully bully-fd modified-bully enhanced-bully async-bully invitation lease}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# run WORKER JOBS ALGO...: the seeds 1..RUNS of each ALGO that fall to this
# worker (seed % JOBS), one line each, "ALGO SEED SECONDS VERDICT ARGS",
# where VERDICT is ok or the violated assertions joined by commas.  One
# shell per worker, and the trace piped straight into elect-check: the
# host is shared, and process start-ups cost more than the runs.
cat > "$tmp/run" <<'RUN'
#!/bin/bash
w=$1 jobs=$2 runs=$3 err=$4 d=$5 first=$6
shift 6
for ((s = first + w; s <= runs; s += jobs)); do
for a in "$@"; do
n=$((3 + s % 15)) r=$((2 + s % 11))
case $a in
bully|bully-fd) set=sync; args=(-k crash -m 0.1:5) ;;
modified-bully|enhanced-bully) set=sync; args=(-k crash -m 0.1:5 -t t_tx=5) ;;
async-bully|invitation) set=async; args=(-k crash,pause,partition -m 0.1:10) ;;
lease) set=lease; args=(-O -k crash,pause,partition -m 0.1:3
    -e "3.3 edict $n a" -e "6 edict 2 c") ;;
esac
if [[ $set != sync ]]; then
	case $((s % 4)) in
	1) args+=(-R) ;;
	2) args+=(-x 2) ;;
	3) args+=(-R -x 3) ;;
	esac
fi
[[ $a == lease && $((s % 3)) == 0 ]] && args+=(-D 0.001 -o 3000)
[[ $((s % 5)) == 0 ]] && args+=(-b 50)
args=(-a $a -n $n -s $s -d $d -r $r "${args[@]}")
c=(-c 1.5)
[[ $set == lease ]] && c=()
out=$(algo-sim "${args[@]}" 2>"$err" | elect-check -s $set "${c[@]}" - 2>&1
    echo "status ${PIPESTATUS[*]}")
read -r _ st0 st1 <<<"${out##*$'\n'}"
st=("$st0" "$st1")
v=ok
if [[ ${st[0]} != 0 ]]; then
	grep -q oracle "$err" && v=oracle || v=sim-failed
fi
if [[ ${st[1]} != 0 ]]; then
	x=$(sed -n 's/^elect-check: violated: //p' <<<"$out" |
	    sed 's/ ([0-9]*)//g; s/ /,/g')
	[[ $v == ok ]] && v=${x:-check-failed} || v="$v,${x:-check-failed}"
fi
line="$a $s $d $v algo-sim"
for x in "${args[@]}"; do
	[[ $x == *' '* ]] && line+=" '$x'" || line+=" $x"
done
echo "$line"
done
done
RUN
chmod +x "$tmp/run"

w=0
while [ $w -lt "$jobs" ]; do
	# shellcheck disable=SC2086
	nice -n 10 "$tmp/run" $w "$jobs" "$runs" "$tmp/err$w" "$dur" "$first" \
	    $algos \
	    > "$tmp/results$w" &
	w=$((w + 1))
done
wait
cat "$tmp"/results[0-9]* > "$tmp/results"

cp "$tmp/results" "${CAMPAIGN_RESULTS:-/dev/null}"
awk '
{ runs[$1]++; secs[$1] += $3
  if ($4 != "ok") { bad[$1]++; n = split($4, v, ",")
	for (i = 1; i <= n; i++) { viol[$1] = viol[$1] " " v[i]; cnt[$1, v[i]]++ }
	fail[++nf] = $0 } }
END {
	printf "%-15s %7s %9s %6s  %s\n", "algorithm", "runs", "sim-hours", "failed", "violations by assertion"
	for (a in runs) {
		s = ""; delete seen
		n = split(viol[a], v, " ")
		for (i = 1; i <= n; i++) if (!(v[i] in seen)) { seen[v[i]] = 1; s = s v[i] "=" cnt[a, v[i]] " " }
		printf "%-15s %7d %9.1f %6d  %s\n", a, runs[a], secs[a] / 3600, bad[a], (s == "" ? "none" : s)
	}
	for (i = 1; i <= nf && i <= 20; i++) print "failed: " fail[i]
	exit nf > 0
}' "$tmp/results"
