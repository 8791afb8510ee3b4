#!/bin/sh
# elect-check against awk and wc -l, side by side, on one valid trace of
# 5 million lines: a five-node cluster with many elections, checked with
# its algorithm's assertions.  By default a Bully cluster (t/tools/tracegen,
# the sync set); BENCH_GEN and BENCH_SET name another generator and its
# set (check-lease.sh); BENCH_FILTER a command the generated trace goes
# through first, more of it made so that LINES remain (check-compact.sh:
# the compact level, t/tools/tcompact); BENCH_TRACE a command that writes
# the whole trace instead (check-scale.sh: elect-sim's hundred nodes).
# Each tool runs three times on the warm file; the best wall-clock time
# and the best CPU time (user + system, which other work on the machine
# disturbs less) count.
# Targets: faster than awk '{n[$3]++}', peak memory under 64 MB.
set -eu
: "${ELECT_BUILD:?set ELECT_BUILD to a build directory}"
LINES=${LINES_BENCH:-5000000}
GEN=${BENCH_GEN:-tracegen}
SET=${BENCH_SET:-sync}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
PATH="$ELECT_BUILD/bin:$ELECT_BUILD/t:$PATH"

if [ -n "${BENCH_TRACE:-}" ]; then
	$BENCH_TRACE > "$tmp/trace"
elif [ -n "${BENCH_FILTER:-}" ]; then
	"$GEN" -l "$((LINES * 3 / 2))" -n 5 | $BENCH_FILTER |
	    head -n "$LINES" > "$tmp/trace"
else
	"$GEN" -l "$LINES" -n 5 > "$tmp/trace"
fi
lines=$(wc -l < "$tmp/trace")
bytes=$(wc -c < "$tmp/trace")

# best NAME CMD...: of three runs, the least wall-clock and CPU time and
# the most memory, as "wall cpu rss_kib".
best() {
	name=$1
	shift
	: > "$tmp/$name"
	for i in 1 2 3; do
		runstat -o "$tmp/out" "$@" 2>> "$tmp/$name" ||
		    { echo "$name failed:"; cat "$tmp/out"; exit 1; }
	done
	awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 + $3 < c { c = $2 + $3 }
	    $4 > m { m = $4 } END { print w, c, m }' "$tmp/$name"
}

check=$(best check elect-check "$tmp/trace")
elect-check "$tmp/trace" 2> "$tmp/summary" > "$tmp/violations" || {
	echo "the benchmark trace does not check:"
	cat "$tmp/violations" "$tmp/summary"
	exit 1
}
awk=$(best awk awk '{n[$3]++}' "$tmp/trace")
awkname=$(readlink -f "$(command -v awk)")
gawk=
command -v gawk > /dev/null && gawk=$(best gawk gawk '{n[$3]++}' "$tmp/trace")
wc=$(best wc wc -l "$tmp/trace")

nodes=$(sed -n 's/^elect-check: [0-9]* events*, \([0-9]*\) nodes*.*/\1/p' "$tmp/summary")
echo "trace: $lines lines, $((bytes / 1048576)) MB, $nodes nodes, $(grep -c ' crash' "$tmp/trace") crashes"
grep 'holds:' "$tmp/summary"
printf '%-28s %9s %9s %12s %10s\n' tool wall_s cpu_s lines/s peak_MB
row() {
	echo "$2" | awk -v n="$1" -v l="$lines" '{
		printf "%-28s %9.3f %9.3f %12.0f %10.1f\n", n, $1, $2,
		    ($1 > 0 ? l / $1 : 0), $3 / 1024 }'
}
row "elect-check ($SET set)" "$check"
row "awk '{n[\$3]++}' ($(basename "$awkname"))" "$awk"
[ -n "$gawk" ] && row "gawk '{n[\$3]++}'" "$gawk"
row "wc -l" "$wc"
# ratio A B: wall-clock and CPU time of A over B's.
ratio() {
	echo "$1 $2" | awk '{ w = $4 > 0 ? $1 / $4 : 0; c = $5 > 0 ? $2 / $5 : 0
	    printf "%.2f wall, %.2f cpu", w, c }'
}
echo "elect-check / awk:   $(ratio "$check" "$awk")  (target: below 1)"
[ -n "$gawk" ] && echo "elect-check / gawk:  $(ratio "$check" "$gawk")"
echo "elect-check / wc -l: $(ratio "$check" "$wc")"
rss=$(echo "$check" | awk '{ print int($3 / 1024) }')
echo "elect-check peak memory: $rss MB (target: below 64)"
fail=0
[ "$(echo "$check $awk" | awk '{ print ($1 < $4 || $2 < $5) }')" = 1 ] ||
    { echo "FAIL: elect-check is not faster than awk"; fail=1; }
[ "$rss" -lt 64 ] || { echo "FAIL: peak memory 64 MB or more"; fail=1; }
exit $fail
