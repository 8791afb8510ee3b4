#!/bin/bash
# make demo: five nodes on 127.0.0.1 elect a leader, lose it, elect another,
# take the old one back, and the run is checked against the papers.
# Usage: demo.sh BINDIR
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
set -u

bindir=$(cd "${1:?usage: demo.sh bindir}" && pwd) || exit 2
PATH=$bindir:$PATH
here=$(cd "$(dirname "$0")" && pwd)
. "$here/elect.bash"

algo=bully-fd
n=5
dir=$(mktemp -d "${TMPDIR:-/tmp}/elect-demo.XXXXXX") || exit 1

cleanup() {
	trap - EXIT INT TERM
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

elect_setup "$dir/run"
head -c 32 /dev/urandom >"$dir/cluster.key"
chmod 600 "$dir/cluster.key"
base=$(ports)
for ((i = 1; i <= n; i++)); do
	echo "node $i 127.0.0.1:$((base + 2 * (i - 1)))"
done >"$dir/cluster.conf"

say "a cluster of $n nodes ($algo), authenticated with a fresh key"
cat "$dir/cluster.conf"
elect_start_cluster -a "$algo" -k "$dir/cluster.key" "$dir/cluster.conf" ||
    exit 1
leader=$(elect_wait_leader 10) || exit 1
say "node $leader leads"
show

say "SIGKILL to the leader, node $leader"
t0=$(date +%s%N)
elect_kill "$leader"
new=$(elect_wait_leader 10) || exit 1
t1=$(date +%s%N)
say "node $new leads, $(((t1 - t0) / 1000000)) ms after the kill"
show

say "node $leader comes back"
elect_start "$leader" || exit 1
back=$(elect_wait_leader 10) || exit 1
say "node $back leads"
show

say "every node leaves (SIGTERM)"
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
