#!/bin/sh
# elect-trace benchmarks, printing figures and ratios:
#  - merge of per-node traces, 10 million lines, against sort -m -s -k1,1n;
#  - stats over the merged trace, against awk doing the same counting
#    (t/bench/stats.awk);
#  - timeline of 10,000 lines in each format (target: under a second);
#  - collect under 32 writers at 10,000 lines/s each, through the shared
#    trace writer: lines written, lines lost.
# BENCH_LINES, BENCH_WRITERS, BENCH_RATE, BENCH_SECONDS change the sizes.
set -eu

build=${ELECT_BUILD:?ELECT_BUILD is the build directory}
bin=$build/bin
tools=$build/t
here=$(cd "$(dirname "$0")" && pwd)
lines=${BENCH_LINES:-10000000}
nodes=20
writers=${BENCH_WRITERS:-32}
rate=${BENCH_RATE:-10000}
seconds=${BENCH_SECONDS:-5}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/elect-bench.XXXXXX")
collector=
cleanup() {
	[ -n "$collector" ] && kill "$collector" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

now() { date +%s.%N; }

# best FILE COMMAND...: the best of three runs of COMMAND, in seconds; its
# output goes to FILE.
best() {
	out=$1
	shift
	b=1e9
	for i in 1 2 3; do
		s=$(now)
		"$@" > "$out"
		e=$(now)
		b=$(echo "$s $e $b" | awk '{ d = $2 - $1
		    printf "%.3f", d < $3 ? d : $3 }')
	done
	echo "$b"
}

ratio() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
rate_of() { echo "$1 $2" | awk '{ printf "%.1f", $1 / $2 / 1e6 }'; }

echo "generating $lines lines, $nodes nodes, one file per node"
mkdir "$tmp/nodes"
"$tools/bullygen" -l "$lines" -n "$nodes" -d "$tmp/nodes"
files=$(ls "$tmp"/nodes/*.trace)

# shellcheck disable=SC2086
m=$(best "$tmp/all.trace" "$bin/elect-trace" merge $files)
# shellcheck disable=SC2086
s=$(best "$tmp/sorted" env LC_ALL=C sort -m -s -k1,1n $files)
cmp -s "$tmp/sorted" "$tmp/all.trace" ||
	{ echo "merge and sort -m disagree" >&2; exit 1; }
n=$(wc -l < "$tmp/all.trace")
printf 'merge   %d lines, %d files: elect-trace %ss (%s M lines/s), sort -m %ss: %sx as fast\n' \
    "$n" "$nodes" "$m" "$(rate_of "$n" "$m")" "$s" "$(ratio "$s" "$m")"
rm -f "$tmp/sorted"

m=$(best "$tmp/stats" "$bin/elect-trace" stats "$tmp/all.trace")
s=$(best "$tmp/awk" awk -f "$here/stats.awk" "$tmp/all.trace")
ours=$(awk '$1 == "bully" { print $2 }' "$tmp/stats")
theirs=$(awk '$1 == "bully" { print $2 }' "$tmp/awk")
[ "$ours" = "$theirs" ] ||
	{ echo "stats: $ours elections, awk: $theirs" >&2; exit 1; }
printf 'stats   %d lines, %s elections: elect-trace %ss (%s M lines/s), awk %ss: %sx as fast\n' \
    "$n" "$ours" "$m" "$(rate_of "$n" "$m")" "$s" "$(ratio "$s" "$m")"
rm -rf "$tmp/nodes" "$tmp/all.trace"

"$tools/bullygen" -l 10000 -n 10 > "$tmp/small.trace"
n=$(wc -l < "$tmp/small.trace")
for f in text svg mermaid; do
	m=$(best /dev/null "$bin/elect-trace" timeline --format "$f" \
	    "$tmp/small.trace")
	printf 'timeline %d lines, %s: %ss (target: under 1s)\n' "$n" "$f" "$m"
	if [ "$(echo "$m" | awk '{ print ($1 >= 1) }')" = 1 ]; then
		echo "timeline: too slow" >&2
		exit 1
	fi
done

# collect: WRITERS processes, each RATE lines a second for SECONDS
sock=$tmp/collect.sock
"$bin/elect-trace" collect -l "unix:$sock" -o "$tmp/collected.trace" \
    2> "$tmp/collect.err" &
collector=$!
i=0
while [ ! -S "$sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
count=$((rate * seconds))
s=$(now)
pids=
i=1
while [ $i -le "$writers" ]; do
	"$tools/twrite" -c "$count" -r "$rate" -n "$i" -w 30 "unix:$sock" \
	    > "$tmp/lost.$i" &
	pids="$pids $!"
	i=$((i + 1))
done
# shellcheck disable=SC2086
wait $pids
e=$(now)
cpu=$(awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$collector/stat" \
    2>/dev/null || echo "?")
kill "$collector"
wait "$collector" || true
collector=
lost=$(cat "$tmp"/lost.* | awk '{ s += $1 } END { print s + 0 }')
got=$(grep -c ' send ' "$tmp/collected.trace" || true)
crashes=$(grep -c ' crash$' "$tmp/collected.trace" || true)
want=$((writers * count))
wall=$(echo "$s $e" | awk '{ printf "%.2f", $2 - $1 }')
printf 'collect %d writers x %d lines/s for %ds: %d of %d lines written, %d lost, %d crash lines; writers done in %ss (%s M lines/s); collector CPU %ss\n' \
    "$writers" "$rate" "$seconds" "$got" "$want" "$lost" "$crashes" "$wall" \
    "$(rate_of "$got" "$wall")" "$cpu"
if [ "$got" -ne "$want" ] || [ "$lost" -ne 0 ] || [ "$crashes" -ne 0 ]; then
	echo "collect: lines were lost" >&2
	cat "$tmp/collect.err" >&2
	exit 1
fi
