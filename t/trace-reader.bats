#!/usr/bin/env bats
# The shared trace reader, through elect-check's parsing.

load helper

@test "a well-formed trace parses" {
	run elect-check -A trace - <<-EOF
	1.5 1 boot inc=1 algo=bully
	2 - net a=1 b=2 link=down
	EOF
	assert_success
}
