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
