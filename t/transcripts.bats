#!/usr/bin/env bats
# The pure cores' transcripts (t/testdata/CORE/*.txt), run by datadriven:
# inputs and the exact outputs the core gives, kept as data.  To change a
# core's behaviour on purpose: `datadriven -r FILE', then review the
# outputs with `git diff' before committing them.

bats_require_minimum_version 1.5.0

load helper

@test "every transcript under t/testdata gives the outputs written in it" {
	local f files=()
	for f in "$BATS_TEST_DIRNAME"/testdata/*/*.txt; do
		files+=("$f")
	done
	[ ${#files[@]} -gt 0 ]
	run datadriven "${files[@]}"
	assert_success
	assert_output ''
}

# story FILE TOOL: the first story of FILE as TOOL's arguments (args),
# script (script) and output (want), its inputs echoed when ECHO is set.
story() {
	awk -v tool="$2" -v echo="$3" -v d="$BATS_TEST_TMPDIR" '
	    BEGIN { st = 0 }
	    st == 0 && index($0, tool) == 1 { st = 1
		print substr($0, length(tool) + 2) > (d "/args"); next }
	    st == 0 { next }
	    st == 1 && /^----$/ { st = 2; next }
	    st == 2 && $0 == "" { st = 1; next }
	    st == 2 { print > (d "/want"); next }
	    st == 1 && (/^#/ || $0 == "") { next }
	    st == 1 && index($0, tool) == 1 { exit }
	    st == 1 { print > (d "/script")
		if (echo) print "> " $0 > (d "/want") }' "$1"
}

@test "the drive tools print what the transcripts hold, algo-drive and guard-drive each input echoed" {
	local t=$BATS_TEST_DIRNAME/testdata
	story "$t/algo/bully.txt" algo-drive 1
	run algo-drive $(cat "$BATS_TEST_TMPDIR/args") <"$BATS_TEST_TMPDIR/script"
	assert_success
	assert_output "$(cat "$BATS_TEST_TMPDIR/want")"
	[ "$(grep -c '^> ' <<<"$output")" -gt 3 ]
	rm "$BATS_TEST_TMPDIR"/{args,script,want}
	story "$t/guard/guard.txt" guard-drive 1
	run guard-drive $(cat "$BATS_TEST_TMPDIR/args") <"$BATS_TEST_TMPDIR/script"
	assert_success
	assert_output "$(cat "$BATS_TEST_TMPDIR/want")"
	rm "$BATS_TEST_TMPDIR"/{args,script,want}
	story "$t/fd/core.txt" fd-sim ""
	run fd-sim $(cat "$BATS_TEST_TMPDIR/args") <"$BATS_TEST_TMPDIR/script"
	assert_success
	assert_output "$(cat "$BATS_TEST_TMPDIR/want")"
	[ -n "$output" ]
	run testament-drive <<<$'elect-testament 1\nnode 3 pid 77 inc 1\nfrom 127.0.0.1 7003'
	assert_success
	assert_output 'node=3 pid=77 inc=1 from=127.0.0.1:7003 peers=0'
}

@test "datadriven: a line a driver refuses answers its error, and the story goes on" {
	mkdir -p "$BATS_TEST_TMPDIR/algo"
	printf '%s\n' 'algo-drive -a bully -i 1 -n 2 -q' ---- '' \
	    '0 boot inc=1' ---- 'send to=2 msg=AreYouThere elid=1.1.0 seq=1' '' \
	    '1 recv from=2 msg=Nonesuch' ---- 'error: bully has no message Nonesuch' '' \
	    '2 timer call' ---- 'error: timer call fired before its deadline' '' \
	    'algo-drive -a nonesuch -i 1 -n 2' ---- 'error: unknown algorithm nonesuch' '' \
	    '0 boot inc=1' ---- 'error: no algo-drive line before' \
	    >"$BATS_TEST_TMPDIR/algo/a.txt"
	run datadriven "$BATS_TEST_TMPDIR/algo/a.txt"
	assert_success
	assert_output ''
}

@test "datadriven: an output that differs is named with its line; -r writes what came" {
	local f=$BATS_TEST_TMPDIR/host/fit.txt
	mkdir -p "$BATS_TEST_TMPDIR/host"
	sed 's/^changed=yes lead=no live=1 peers=2:algo wake=4000$/changed=yes lead=yes live=0 peers=- wake=-/' \
	    "$BATS_TEST_DIRNAME/testdata/host/fit.txt" >"$f"
	run -1 cmp -s "$f" "$BATS_TEST_DIRNAME/testdata/host/fit.txt"
	run -1 datadriven "$f"
	assert_output --partial "fit.txt:19: expected:"
	assert_output --partial "got:
ok
changed=yes lead=no live=1 peers=2:algo wake=4000"
	run -0 datadriven -r "$f"
	cmp "$f" "$BATS_TEST_DIRNAME/testdata/host/fit.txt"
	run -0 datadriven "$f"
}

@test "datadriven: a bad file is refused with its line" {
	mkdir -p "$BATS_TEST_TMPDIR/host" "$BATS_TEST_TMPDIR/nosuch"
	printf 'step now=1\n' >"$BATS_TEST_TMPDIR/host/a.txt"
	run -2 datadriven "$BATS_TEST_TMPDIR/host/a.txt"
	assert_output --partial "a.txt:2: a command without ---- and its output"
	printf 'step now=1\n----\n' >"$BATS_TEST_TMPDIR/nosuch/a.txt"
	run -2 datadriven "$BATS_TEST_TMPDIR/nosuch/a.txt"
	assert_output --partial "no core named nosuch"
	printf 'step now\n----\n' >"$BATS_TEST_TMPDIR/host/b.txt"
	run -2 datadriven "$BATS_TEST_TMPDIR/host/b.txt"
	assert_output --partial 'b.txt:1: "now" is not KEY=VALUE'
}
