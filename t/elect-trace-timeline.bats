#!/usr/bin/env bats
# elect-trace timeline: text against expected files, SVG well formed with
# a lane per node and an arrow per message, Mermaid.

bats_require_minimum_version 1.5.0

load helper

setup() {
	dir=$(mktemp -d "${BATS_TMPDIR:-/tmp}/timeline.XXXXXX")
	T=$FIXTURES/trace
}

teardown() {
	rm -rf "$dir"
}

# sent SVG: the messages its traffic bands count
sent() {
	grep -o 'data-sent="[0-9]*"' "$1" | tr -dc '0-9\n' |
	    awk '{ n += $1 } END { print n + 0 }'
}

# chatter N: a trace of 3 nodes; 1 sends 2 N messages in a second, each
# a Ping received but every tenth, a Probe never received; 3 sends one
# Elect to 2.
chatter() {
	awk -v n="$1" 'BEGIN {
		print "1 1 boot inc=1"; print "1 2 boot inc=1"
		print "1 3 boot inc=1"
		for (i = 0; i < n; i++) {
			t = 2 + i / n
			if (i % 10 == 9) {
				printf "%.6f 1 send to=2 msg=Probe\n", t
				continue
			}
			printf "%.6f 1 send to=2 msg=Ping\n", t
			printf "%.6f 2 recv from=1 msg=Ping\n", t + 0.0001
			if (i == int(n / 2)) {
				printf "%.6f 3 send to=2 msg=Elect\n", t + 0.0002
				printf "%.6f 2 recv from=3 msg=Elect\n", t + 0.0003
			}
		}
		print "3.5 1 exit why=done"
	}'
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

@test "timeline: text of more than 100 nodes refused, its output bounded by its input" {
	awk 'BEGIN { for (i = 1; i <= 101; i++)
		printf "1.000 %d boot inc=1 algo=bully nodes=101\n", i
	    for (i = 1; i <= 101; i++)
		printf "1.%03d %d state status=Elec ldr=- grp=-\n", i, i }' \
	    >"$dir/wide"
	run -2 elect-trace timeline "$dir/wide"
	assert_output "elect-trace: --format text draws at most 100 nodes, and there are 101 to draw: choose some with --nodes, or --format svg"
	run -0 elect-trace timeline --nodes 2-101 "$dir/wide"
	assert_line --regexp '^ +time 2 +3 +.* 100 101$'
	# every row at most 5 bytes a lane
	run -0 awk 'length > 11 + 5 * 100' <<<"$output"
	assert_output ""
	elect-trace timeline --format svg "$dir/wide" >"$dir/wide.svg"
	assert_equal "$(grep -c '<g class="lane"' "$dir/wide.svg")" 101
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
	# too many for arrows: every send counted in its node's band
	assert_equal "$(grep -c '<line class="msg' "$dir/t.svg")" 0
	assert_equal "$(sent "$dir/t.svg")" "$(grep -c ' send ' "$dir/t")"
	printf '%s\n' '1 1 boot inc=1' \
	    '2 1 send to=2 msg=<a&b>"'"'"'</svg> elid=]]>' \
	    "$(printf '3 1 exit why=\001\377\303')" > "$dir/h"
	elect-trace timeline --format svg "$dir/h" > "$dir/h.svg"
	xmllint --noout "$dir/h.svg"
	run elect-trace timeline --format mermaid "$dir/h"
	assert_output --partial 'Note over n1: sends #60;a#38;b#62;#34;'
}

@test "timeline: SVG past a density: a band per node, marks kept, legend whole" {
	chatter 1000 > "$dir/c"
	elect-trace timeline --format svg "$dir/c" > "$dir/c.svg"
	xmllint --noout "$dir/c.svg"
	assert_equal "$(grep -c '<g class="traffic"' "$dir/c.svg")" 3
	assert_equal "$(grep -c '<line class="msg' "$dir/c.svg")" 0
	assert_equal "$(sent "$dir/c.svg")" 1001
	run grep -o '<g class="traffic" data-node="1" data-sent="1000" data-lost="100"' "$dir/c.svg"
	assert_success
	grep -q 'class="unrecv"' "$dir/c.svg"
	grep -q 'class="exit"' "$dir/c.svg"
	for k in "messages sent" "never received" task edict boot crash; do
		grep -q ">$k</text>" "$dir/c.svg"
	done
	# below the density, arrows again: a tenth of a second
	elect-trace timeline --format svg --from 2 --to 2.1 "$dir/c" > "$dir/w.svg"
	xmllint --noout "$dir/w.svg"
	assert_equal "$(grep -c '<g class="traffic"' "$dir/w.svg")" 0
	assert_equal "$(grep -c '<line class="msg lost"' "$dir/w.svg")" 10
	refute_output --partial "messages sent"
	run grep -c '>messages sent</text>' "$dir/w.svg"
	assert_output 0
}

@test "timeline: -x leaves message types out" {
	chatter 1000 > "$dir/c"
	elect-trace timeline --format svg -x Ping,Probe "$dir/c" > "$dir/x.svg"
	xmllint --noout "$dir/x.svg"
	assert_equal "$(grep -c '<line class="msg' "$dir/x.svg")" 1
	elect-trace timeline --format svg -x Ping,Elect "$dir/c" > "$dir/y.svg"
	assert_equal "$(grep -c '<line class="msg lost' "$dir/y.svg")" 100
	grep -q 'Elect' "$dir/x.svg"
	run grep -c 'Ping' "$dir/x.svg"
	assert_output 0
	run elect-trace timeline --exclude Ping -x Elect "$dir/c"
	assert_success
	refute_output --partial Ping
	refute_output --partial Elect
	assert_output --partial Probe
	run elect-trace timeline -x , "$dir/c"
	assert_failure 2
	assert_output --partial "empty message type"
}

@test "timeline: a message to a node that restarts is lost, not received by its next incarnation" {
	printf '%s\n' '1 1 boot inc=1' '1 2 boot inc=1' \
	    '2 1 send to=2 msg=Ping' '2.5 2 crash' '5 2 boot inc=2' \
	    '6 2 recv from=1 msg=Ping' '7 1 send to=2 msg=Ping' \
	    '7.001 2 recv from=1 msg=Ping' > "$dir/r"
	elect-trace timeline --format svg "$dir/r" > "$dir/r.svg"
	xmllint --noout "$dir/r.svg"
	assert_equal "$(grep -c '<line class="msg lost"' "$dir/r.svg")" 1
	assert_equal "$(grep -c '<line class="msg"' "$dir/r.svg")" 1
	run grep -c 'sends Ping to 2 at 1.000000, never received' "$dir/r.svg"
	assert_output 1
}

@test "timeline: no lane to draw, and an empty reason" {
	# a line of no node only, and a node --nodes leaves out: no lanes
	printf '1 - net a=1 b=2 link=down\n' > "$dir/e"
	printf '1 1 boot inc=1\n2 1 exit why=\n' > "$dir/w"
	for f in text svg mermaid; do
		run elect-trace timeline --format "$f" "$dir/e"
		assert_success
		run elect-trace timeline --format "$f" --nodes 2 "$dir/w"
		assert_success
	done
	run elect-trace timeline "$dir/e"
	assert_line --regexp '^ +0\.000000 +~ link 1-2 down$'
	run elect-trace timeline --format svg "$dir/e"
	assert_output --partial '<title>elect trace: 0 nodes, 1 events</title>'
	run elect-trace timeline "$dir/w"
	assert_success
	assert_line --regexp '^ +1\.000000 exit$'
}

@test "timeline: leases and a window that end past the reader's bound (9000000000 s)" {
	# a grant and leases that end past the last time a trace holds,
	# one of them once renewed by the longest d=
	printf '%s\n' '1 1 boot inc=1 algo=lease nodes=2' \
	    '9000000000 2 lease op=grant to=1 until=9000000000 clock=1' \
	    '9000000000 1 lead until=223000001 clock=1' \
	    '9000000000 1 renew d=1000000000000000' \
	    '9000000000 2 lead until=9000000000 clock=1' > "$dir/far"
	for f in text svg mermaid; do
		run elect-trace timeline --format "$f" "$dir/far"
		assert_success
	done
	run elect-trace timeline "$dir/far"
	assert_line --regexp '^8999999999\.000000 +LEAD$'
	# --to as far after a trace that begins at the bound
	printf '9000000000 1 boot inc=1\n' > "$dir/late"
	run elect-trace timeline --to +9000000000 "$dir/late"
	assert_success
	assert_line --regexp '^ +0\.000000 boot$'
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
