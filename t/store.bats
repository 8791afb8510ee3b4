#!/usr/bin/env bats
# lib/store: elect-node's stable storage (incarnation, the core's blob).

load helper

setup() {
	D=$BATS_TEST_TMPDIR/state
}

@test "the directory is made 0700, parents too" {
	run store-tool "$D/a/b" bump incarnation
	assert_success
	[ "$(stat -c %a "$D/a")" = 700 ]
	[ "$(stat -c %a "$D/a/b")" = 700 ]
}

@test "bump counts from 1 and keeps a newline-terminated number" {
	run store-tool "$D" bump inc
	assert_output 1
	run store-tool "$D" bump inc
	assert_output 2
	[ "$(cat "$D/inc")" = 2 ]
	[ "$(stat -c %a "$D/inc")" = 600 ]
	printf '18446744073709551614\n' >"$D/big"
	run store-tool "$D" bump big
	assert_failure
	assert_output --partial "Invalid argument"
}

@test "bump refuses what is not its number" {
	mkdir -p "$D"
	for bad in '\n' 'x\n' '07\n' '-1\n' '3' '3\n\n' '1 2\n' ' 4\n' \
	    '0\n' '123456789012345678901\n'; do
		printf -- "$bad" >"$D/inc"
		run store-tool "$D" bump inc
		assert_failure
		# Nothing was lost: the file is as it was.
		[ "$(od -c <"$D/inc")" = "$(printf -- "$bad" | od -c)" ]
	done
}

@test "write replaces the file whole; read gives it back" {
	printf 'first' | store-tool "$D" write blob
	printf 'second, longer' | store-tool "$D" write blob
	run store-tool "$D" read blob
	assert_output "second, longer"
	printf '' | store-tool "$D" write blob
	run store-tool "$D" read blob
	assert_output ""
	run store-tool "$D" read none
	assert_failure 3
}

# A record of the same length, within a sector, is written in place (one
# fdatasync, no rename): the file keeps its inode; another length, or a
# record over a sector, replaces the file.
@test "a record of the same length is overwritten in place, any other replaces the file" {
	printf 'K=0001' | store-tool "$D" write k
	ino=$(stat -c %i "$D/k")
	printf 'K=0002' | store-tool "$D" write k
	run store-tool "$D" read k
	assert_output "K=0002"
	assert_equal "$(stat -c %i "$D/k")" "$ino"
	printf 'K=00003' | store-tool "$D" write k
	run store-tool "$D" read k
	assert_output "K=00003"
	[ "$(stat -c %i "$D/k")" != "$ino" ]
	head -c 600 /dev/zero | tr '\0' a | store-tool "$D" write big
	ino=$(stat -c %i "$D/big")
	head -c 600 /dev/zero | tr '\0' b | store-tool "$D" write big
	[ "$(stat -c %i "$D/big")" != "$ino" ]
	run store-tool "$D" read big
	assert_output "$(head -c 600 /dev/zero | tr '\0' b)"
}

@test "a temporary file left by a crash does not matter" {
	printf 'good' | store-tool "$D" write blob
	printf 'half-writ' >"$D/.blob.tmp"
	run store-tool "$D" read blob
	assert_output "good"
	printf 'new' | store-tool "$D" write blob
	run store-tool "$D" read blob
	assert_output "new"
	[ ! -e "$D/.blob.tmp" ]
}

@test "a file too large to be ours is refused" {
	mkdir -p "$D"
	head -c 70000 /dev/zero >"$D/blob"
	run store-tool "$D" read blob
	assert_failure 1
	assert_output --partial "too large"
}
