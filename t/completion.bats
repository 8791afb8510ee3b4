#!/usr/bin/env bats
# share/elect/elect.completion: each flag's value is completed as what it
# takes (ids, formats, assertions, groups), never file names where a
# file cannot go.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	# Files that must not be offered where no file goes.
	touch 1x ab-file text-file task-file
	printf 'node 1 127.0.0.1:7000\nnode 2 127.0.0.1:7002\nnode 13 127.0.0.1:7004\n' \
	    >cluster.conf
	# No state directories of this machine's in the answers.
	export HOME=$BATS_TEST_TMPDIR XDG_STATE_HOME=$BATS_TEST_TMPDIR/state
	. "$BATS_TEST_DIRNAME/../share/elect/elect.completion"
}

# complete WORDS...: what completion offers for the last word, sorted,
# on one line.
complete_() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_elect
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

@test "completion: -i offers the cluster file's ids and state directories', no files" {
	run complete_ elect-node -f cluster.conf -i ''
	assert_output "1 13 2"
	run complete_ elect-node -f cluster.conf -i 1
	assert_output "1 13"
	mkdir -p state/elect/7
	run complete_ elect-node -i ''
	assert_output "7"
}

@test "completion: timeline --format, elect-check -A and -s offer their words" {
	run complete_ elect-trace timeline --format ''
	assert_output "mermaid svg text"
	run complete_ elect-check -A task-
	assert_output "task-lease task-overlap task-token"
	run complete_ elect-check -A gm1,gm4
	assert_output "gm1,gm4 gm1,gm4s"
	run complete_ elect-check -s l
	assert_output "lease"
	run complete_ elect-check -c ''
	assert_output ""
}

@test "completion: durations and numbers get nothing, files still get files" {
	for f in --wait-for --grace -E --lease --fd-timeout --edict; do
		run complete_ elect-node "$f" ''
		assert_output ""
	done
	run complete_ elect-node -k ab
	assert_output "ab-file"
	run complete_ elect-node --gen-key ab
	assert_output "ab-file"
	run complete_ elect-node --socket-group roo
	assert_output "root"
	run complete_ elect-node --sys
	assert_output "--syslog"
}
