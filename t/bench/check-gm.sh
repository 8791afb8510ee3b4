#!/bin/sh
# gm2 and gm4 on a large cluster: 300 Bully nodes (t/tools/bullygen),
# 800000 lines, against awk '{n[$3]++}' on the same file.  Every state
# line of a stable system looks again for two nodes that disagree; that
# must stay linear in the nodes, not go through every pair.
# Target: elect-check -A gm2,gm4 within 6 times awk's CPU time (going
# through every pair, it took 70 times).
set -eu
: "${ELECT_BUILD:?set ELECT_BUILD to a build directory}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
PATH="$ELECT_BUILD/bin:$ELECT_BUILD/t:$PATH"

bullygen -n 300 -l "${LINES_BENCH:-800000}" > "$tmp/trace"
lines=$(wc -l < "$tmp/trace")
# cpu CMD...: the least user + system time of three runs, in seconds.
cpu() {
	for i in 1 2 3; do
		runstat -o "$tmp/out" "$@" 2>> "$tmp/t" || true
	done
	awk 'NR == 1 || $2 + $3 < c { c = $2 + $3 } END { print c }' "$tmp/t"
	rm -f "$tmp/t"
}
check=$(cpu elect-check -A gm2,gm4 "$tmp/trace")
awk=$(cpu awk '{n[$3]++}' "$tmp/trace")
echo "trace: $lines lines, 300 nodes"
echo "elect-check -A gm2,gm4: $check s cpu; awk: $awk s cpu"
echo "$check $awk" | awk '{ printf "elect-check / awk: %.2f cpu (target: below 6)\n",
    ($2 > 0 ? $1 / $2 : 0); exit !($1 < 6 * $2) }' ||
    { echo "FAIL: gm2 and gm4 slower than 6 times awk"; exit 1; }
