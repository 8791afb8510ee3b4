#!/usr/bin/env bats
# elect-trace timeline: text against expected files, SVG well formed with
# a lane per node and an arrow per message, Mermaid.

load helper

setup() {
	dir=$(mktemp -d "${BATS_TMPDIR:-/tmp}/timeline.XXXXXX")
	T=$FIXTURES/trace
}

teardown() {
	rm -rf "$dir"
}

@test "timeline: text, as expected" {
	run elect-trace timeline "$T/bully3.trace"
	assert_success
	assert_output "$(cat "$T/bully3.txt")"
	run elect-trace timeline --format text "$T/lease3.trace"
	assert_output "$(cat "$T/lease3.txt")"
}

@test "timeline: text of a window and some nodes" {
	run elect-trace timeline --from +2 --to +2.6 --nodes 1,2 "$T/bully3.trace"
	assert_success
	assert_output "$(cat "$T/bully3-window.txt")"
	# the same window in trace time, and the nodes as a range
	run elect-trace timeline --from 3 --to 3.6 --nodes 1-2 "$T/bully3.trace"
	assert_output "$(cat "$T/bully3-window.txt")"
}

@test "timeline: text fits in 80 columns up to 17 nodes" {
	bullygen -n 17 -l 3000 > "$dir/t"
	run sh -c "elect-trace timeline '$dir/t' | awk 'length > 80'"
	assert_success
	assert_output ""
	run sh -c "elect-trace timeline '$dir/t' | sed -n 3p"
	assert_output --regexp '^ +time 1 +2 +3 .* 16  17$'
}

@test "timeline: mermaid, as expected" {
	run elect-trace timeline --format mermaid "$T/bully3.trace"
	assert_success
	assert_output "$(cat "$T/bully3.mmd")"
}

@test "timeline: SVG is well formed, a lane per node, an arrow per message" {
	for f in bully3 lease3 best5; do
		elect-trace timeline --format svg "$T/$f.trace" > "$dir/$f.svg"
		xmllint --noout "$dir/$f.svg"
		nodes=$(awk '!/^#/ { print $2 }' "$T/$f.trace" | grep -v -- - |
		    sort -u | wc -l)
		assert_equal "$(grep -c '<g class="lane"' "$dir/$f.svg")" "$nodes"
		sends=$(grep -c ' send ' "$T/$f.trace" || true)
		assert_equal "$(grep -c '<line class="msg' "$dir/$f.svg")" "$sends"
	done
	# a message never received is drawn as such
	assert_equal "$(grep -c 'class="msg lost"' "$dir/bully3.svg")" 1
	# crashes, pauses, leases, partitions and leadership are marked
	grep -q 'class="crash"' "$dir/bully3.svg"
	grep -q 'class="leader"' "$dir/bully3.svg"
	grep -q 'class="paused"' "$dir/lease3.svg"
	grep -q 'class="grant"' "$dir/lease3.svg"
	grep -q 'class="net down"' "$dir/lease3.svg"
}

@test "timeline: SVG of a large trace, and of hostile values" {
	bullygen -n 10 -l 10000 > "$dir/t"
	elect-trace timeline --format svg "$dir/t" > "$dir/t.svg"
	xmllint --noout "$dir/t.svg"
	assert_equal "$(grep -c '<line class="msg' "$dir/t.svg")" \
	    "$(grep -c ' send ' "$dir/t")"
	printf '%s\n' '1 1 boot inc=1' \
	    '2 1 send to=2 msg=<a&b>"'"'"'</svg> elid=]]>' \
	    "$(printf '3 1 exit why=\001\377\303')" > "$dir/h"
	elect-trace timeline --format svg "$dir/h" > "$dir/h.svg"
	xmllint --noout "$dir/h.svg"
	run elect-trace timeline --format mermaid "$dir/h"
	assert_output --partial 'Note over n1: sends #60;a#38;b#62;#34;'
}

@test "timeline: malformed input, bad options" {
	printf '1 1 boot inc=1\n2 1 state status=Norm\n' > "$dir/bad"
	run elect-trace timeline "$dir/bad"
	assert_failure 2
	assert_output --partial "$dir/bad:2: state: missing key ldr="
	run elect-trace timeline --format png "$T/bully3.trace"
	assert_failure 2
	assert_output --partial '"png" is not text, svg or mermaid'
	run elect-trace timeline --nodes 3-1 "$T/bully3.trace"
	assert_failure 2
	run elect-trace timeline --nodes 0 "$T/bully3.trace"
	assert_failure 2
	run elect-trace timeline --from 5 --to 4 "$T/bully3.trace"
	assert_failure 2
	assert_output --partial "--to is before --from"
	run elect-trace timeline --from yesterday "$T/bully3.trace"
	assert_failure 2
	run elect-trace timeline --help
	assert_success
	assert_output --partial "usage: elect-trace timeline"
}

@test "elect-trace: help, version, unknown subcommand" {
	run elect-trace --help
	assert_success
	assert_line --index 0 --partial "usage: elect-trace collect"
	assert_output --partial "elect-trace timeline"
	run elect-trace --version
	assert_success
	assert_output --regexp '^elect-trace [0-9]+\.[0-9]+\.[0-9]+$'
	run elect-trace frobnicate
	assert_failure 2
	assert_output --partial "unknown subcommand: frobnicate"
	run elect-trace
	assert_failure 2
}
