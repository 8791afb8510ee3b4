#!/bin/sh
# elect-check's lease and fd assertions on a long trace of a Nerio
# cluster (t/tools/leasegen: five nodes, a new leader every 20 to 40 s,
# edicts, failure detectors), side by side with wc -l and awk over the
# same file: seconds, lines per second, peak memory.
#
#   LINES=5000000 (default) sets the length of the trace.
set -eu

: "${ELECT_BUILD:?}"
LINES=${LINES:-5000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
trace=$dir/lease.trace

"$ELECT_BUILD/t/leasegen" -l "$LINES" >"$trace"

# run NAME CMD...: NAME, CPU seconds, lines per second, peak memory.
run() {
	name=$1
	shift
	"$ELECT_BUILD/t/peakrss" "$@" 2>&1 >/dev/null | tail -n 1 |
	    awk -v name="$name" -v lines="$LINES" '{
		printf "%-24s %6.2f s %10.0f lines/s %7.1f MB  exit %d\n",
		    name, $1, ($1 > 0 ? lines / $1 : 0), $2 / 1024, $3 }'
}

echo "$LINES lines, $(($(wc -c <"$trace") / 1048576)) MB"
run "wc -l" wc -l "$trace"
run "awk '{n[\$3]++}'" awk '{n[$3]++}' "$trace"
run "elect-check -s lease" "$ELECT_BUILD/bin/elect-check" -s lease "$trace"
run "elect-check -s fd" "$ELECT_BUILD/bin/elect-check" -s fd \
    --fd-latency 1 "$trace"
run "elect-check (algo=)" "$ELECT_BUILD/bin/elect-check" "$trace"
