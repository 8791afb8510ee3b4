#!/bin/bash
# make demo: three nodes on 127.0.0.1 under the default algorithm, lease,
# each with the same guarded job (elect-node --run-if-leader --wait), of
# which only the leader's copy runs; the leader is killed, the job goes
# on at the next leader with a greater fencing token, never two at once;
# and the run is checked against the papers.
# Usage: demo.sh BINDIR
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
set -u

bindir=$(cd "${1:?usage: demo.sh bindir}" && pwd) || exit 2
PATH=$bindir:$PATH
here=$(cd "$(dirname "$0")" && pwd)
. "$here/elect.bash"

n=3
jobs=()
dir=$(mktemp -d "${TMPDIR:-/tmp}/elect-demo.XXXXXX") || exit 1

cleanup() {
	local p
	trap - EXIT INT TERM
	for p in "${jobs[@]}"; do
		kill "$p" 2>/dev/null
	done
	elect_teardown
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'echo; echo "interrupted; cleaning up"; exit 130' INT TERM

say() { printf '\n== %s\n' "$*"; }

# Free ports: the test tool if the build has it, else a range of our own.
ports() {
	if [ -x "$bindir/../t/freeport" ]; then
		"$bindir/../t/freeport" -n 1 -w $((2 * n))
	else
		echo $((20000 + RANDOM % 20000))
	fi
}

show() {
	local id
	for id in "${ELECT_IDS[@]}"; do
		if [ "${ELECT_STATE[$id]}" = down ]; then
			printf '  node %s: down\n' "$id"
		else
			printf '  node %s: %s\n' "$id" "$(elect_status "$id")"
		fi
	done
}

# job ID: node ID's copy of the guarded job, waiting until its node
# leads; the job writes a line a tenth of a second with its token.
job() {
	elect-node -s "$ELECT_DIR/$1/state" --run-if-leader --wait -- \
	    sh -c 'while :; do
		echo "$(date +%T.%N | cut -c1-12) node $ELECT_NODE token $ELECT_TOKEN: working"
		sleep 0.1
	    done' >>"$dir/job.log" 2>/dev/null &
	jobs[$1]=$!
}

# The lines of the job log, until one of node ID's comes.
until_job() {
	local i
	for ((i = 0; i < 100; i++)); do
		grep -q " node $1 token" "$dir/job.log" && return 0
		sleep 0.1
	done
	return 1
}

elect_setup "$dir/run"
elect-node --gen-key "$dir/cluster.key" >/dev/null || exit 1
: >"$dir/job.log"
base=$(ports)
for ((i = 1; i <= n; i++)); do
	echo "node $i 127.0.0.1:$((base + 2 * (i - 1)))"
done >"$dir/cluster.conf"

say "a cluster of $n nodes (the default algorithm, lease), authenticated with a key of elect-node --gen-key"
cat "$dir/cluster.conf"
elect_start_cluster -k "$dir/cluster.key" "$dir/cluster.conf" || exit 1
leader=$(elect_wait_leader 10) || exit 1
say "node $leader leads"
show

say "on every node: elect-node --run-if-leader --wait -- JOB; only the leader's runs"
for id in "${ELECT_IDS[@]}"; do
	job "$id"
done
until_job "$leader" || exit 1
sleep 0.5
tail -n 3 "$dir/job.log"

say "SIGKILL to the leader's daemon, node $leader: its job's guard stops the job and releases the lease"
t0=$(date +%s%N)
elect_kill "$leader"
new=$(elect_wait_leader 10) || exit 1
t1=$(date +%s%N)
say "node $new leads, $(((t1 - t0) / 1000000)) ms after the kill"
show
until_job "$new" || exit 1
sleep 0.5
say "the job goes on at node $new, with a greater token (the log's last lines of each)"
for id in "$leader" "$new"; do
	grep " node $id token" "$dir/job.log" | tail -n 2
done
say "every token, in the order the job wrote them: never back, never two at once"
awk '{ sub(":", "", $5); print "node " $3 ", token " $5 }' "$dir/job.log" |
    uniq -c | awk '{ printf "  %s lines: %s %s %s %s\n", $1, $2, $3, $4, $5 }'

say "node $leader comes back, and follows: a lease leader keeps its lease"
elect_start "$leader" || exit 1
back=$(elect_wait_leader 10) || exit 1
say "node $back leads"
show

say "every node leaves (SIGTERM); the jobs stop first"
for p in "${jobs[@]}"; do
	kill "$p" 2>/dev/null
done
elect_stop_all
if command -v elect-trace >/dev/null 2>&1; then
	elect_merge "$dir/merged.trace"
	say "elect-trace stats"
	elect-trace stats "$dir/merged.trace"
fi
say "elect-check on the merged trace ($(elect_merge | wc -l) lines)"
elect_check
rc=$?
case $rc in
0) say "verdict: every assertion holds" ;;
1) say "verdict: violations found (above)" ;;
*) say "verdict: elect-check could not read the trace" ;;
esac
exit $rc
