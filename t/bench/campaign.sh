#!/bin/sh
# A randomized campaign: algo-sim runs of every algorithm under the faults
# its model admits, each piped into elect-check with the algorithm's
# assertion set, and a table of runs, simulated hours and violations by
# assertion.
#
#	campaign.sh [-j JOBS] [-k] [RUNS [ALGO ...]]
#
# RUNS seeded runs per algorithm (default 1000), 12 simulated seconds each,
# N from 3 to 17, 2 to 12 faults; the synchronous algorithms get crashes
# and recoveries (their model admits no more), the asynchronous ones
# crashes, pauses and partitions, with reordering (-R) and 2-3% loss (-x)
# on three runs in four; lease as the asynchronous ones, with drift and the
# -O oracle too.  Each failing run is listed with the command that replays
# it.  -k keeps going after a run whose simulator fails.  Exit 1 on any
# violation.
set -eu
: "${ELECT_BUILD:?set ELECT_BUILD to a build directory}"
PATH="$ELECT_BUILD/bin:$ELECT_BUILD/t:$PATH"
jobs=2
while getopts j: o; do
	case $o in
	j) jobs=$OPTARG ;;
	*) echo "usage: campaign.sh [-j JOBS] [RUNS [ALGO ...]]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
runs=${1:-1000}
[ $# -gt 0 ] && shift
algos=${*:-bully bully-fd modified-bully enhanced-bully async-bully invitation lease}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# run ALGO SEED: one line, "ALGO SEED SECONDS VERDICT ARGS", where VERDICT
# is ok or the violated assertions joined by commas.
cat > "$tmp/run" <<'RUN'
#!/bin/sh
a=$1 s=$2 d=12
n=$((3 + s % 15)) r=$((2 + s % 11))
case $a in
bully|bully-fd) set=sync; set -- -k crash -m 0.1:5 ;;
modified-bully|enhanced-bully) set=sync; set -- -k crash -m 0.1:5 -t t_tx=5 ;;
async-bully|invitation) set=async; set -- -k crash,pause,partition -m 0.1:10 ;;
lease) set=lease; set -- -O -k crash,pause,partition -m 0.1:3 \
    -e "3.3 edict $n a" -e "6 edict 2 c" ;;
esac
if [ $set != sync ]; then
	case $((s % 4)) in
	1) set -- "$@" -R ;;
	2) set -- "$@" -x 2 ;;
	3) set -- "$@" -R -x 3 ;;
	esac
fi
[ $a = lease ] && [ $((s % 3)) = 0 ] && set -- "$@" -D 0.001 -o 3000
[ $((s % 5)) = 0 ] && set -- "$@" -b 50
set -- -a $a -n $n -s $s -d $d -r $r "$@"
f=$(mktemp)
if algo-sim "$@" >"$f" 2>"$f.err"; then
	v=ok
elif grep -q 'oracle' "$f.err"; then
	v=oracle
else
	v=sim-failed
fi
c="-c 1.5"
[ $set = lease ] && c=
# shellcheck disable=SC2086
if ! out=$(elect-check -s $set $c "$f" 2>&1); then
	w=$(echo "$out" | sed -n 's/^elect-check: violated: //p' |
	    sed 's/ ([0-9]*)//g; s/ /,/g')
	if [ $v = ok ]; then v=${w:-check-failed}; else v="$v,${w:-check-failed}"; fi
fi
rm -f "$f" "$f.err"
printf '%s %s %s %s algo-sim' "$a" "$s" "$d" "$v"
for x in "$@"; do
	case $x in *' '*) printf " '%s'" "$x" ;; *) printf ' %s' "$x" ;; esac
done
echo
RUN
chmod +x "$tmp/run"

for a in $algos; do
	i=1
	while [ $i -le "$runs" ]; do
		echo "$a $i"
		i=$((i + 1))
	done
done | nice -n 10 xargs -P "$jobs" -L 1 "$tmp/run" > "$tmp/results"

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
