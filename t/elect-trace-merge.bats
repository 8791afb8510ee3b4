#!/usr/bin/env bats
# elect-trace merge: per-node traces into one, by time, stable.

load helper

setup() {
	dir=$(mktemp -d "${BATS_TMPDIR:-/tmp}/merge.XXXXXX")
}

teardown() {
	rm -rf "$dir"
}

@test "merge: interleaves by time" {
	printf '1 1 boot inc=1\n3 1 exit why=a\n5 1 boot inc=2\n' > "$dir/a"
	printf '2 2 boot inc=1\n4 2 exit why=b\n' > "$dir/b"
	run elect-trace merge "$dir/a" "$dir/b"
	assert_success
	assert_output "$(printf '%s\n' '1 1 boot inc=1' '2 2 boot inc=1' \
	    '3 1 exit why=a' '4 2 exit why=b' '5 1 boot inc=2')"
}

@test "merge: equal times keep the order of the files, then of the lines" {
	printf '1 1 boot inc=1\n2 1 pause\n2 1 resume\n3 1 exit why=x\n' > "$dir/a"
	printf '2 2 boot inc=1\n2 2 pause\n' > "$dir/b"
	printf '2.0 3 boot inc=1\n' > "$dir/c"
	run elect-trace merge "$dir/c" "$dir/a" "$dir/b"
	assert_success
	assert_output "$(printf '%s\n' '1 1 boot inc=1' '2.0 3 boot inc=1' \
	    '2 1 pause' '2 1 resume' '2 2 boot inc=1' '2 2 pause' \
	    '3 1 exit why=x')"
}

@test "merge: an input out of order is named, with its line" {
	printf '1 1 boot inc=1\n# a comment\n\n3 1 pause\n2.5 1 resume\n' > "$dir/a"
	printf '1 2 boot inc=1\n' > "$dir/b"
	run elect-trace merge "$dir/b" "$dir/a"
	assert_failure 2
	assert_output --partial "$dir/a:5: out of order: time 2.5 after 3"
}

@test "merge: same as sort -m -s -k1,1n on many inputs, and in passes" {
	for f in $(seq 1 60); do
		awk -v f="$f" 'BEGIN { for (i = 0; i < 20; i++)
		    printf "%d.%03d %d clock c=%d\n", i, (f * 7) % 1000, f, i }' \
		    > "$dir/n$f"
	done
	LC_ALL=C sort -m -s -k1,1n "$dir"/n* > "$dir/want"
	run elect-trace merge "$dir"/n*
	assert_success
	assert_output "$(cat "$dir/want")"
	# with room for few open files, it merges in passes through
	# temporary files: the same answer
	run sh -c "ulimit -n 24 && TMPDIR='$dir' elect-trace merge '$dir'/n* > '$dir/got'"
	assert_success
	cmp "$dir/want" "$dir/got"
	[ -z "$(ls "$dir" | grep elect-merge)" ]
}

@test "merge: an error in the first pass is still named" {
	for f in $(seq 1 40); do
		printf '%d %d boot inc=1\n' "$f" "$f" > "$dir/n$f"
	done
	printf '1 1 bogus\n' > "$dir/n7"
	run sh -c "ulimit -n 24 && elect-trace merge '$dir'/n*"
	assert_failure 2
	assert_output --partial "$dir/n7:1: unknown event"
}

@test "merge: stdin, -o, and empty input" {
	printf '2 2 boot inc=1\n' > "$dir/b"
	run sh -c "printf '1 1 boot inc=1\n3 1 pause\n' |
	    elect-trace merge -o '$dir/out' - '$dir/b'"
	assert_success
	assert_output ""
	assert_equal "$(cat "$dir/out")" "$(printf '1 1 boot inc=1\n2 2 boot inc=1\n3 1 pause')"
	run elect-trace merge < /dev/null
	assert_success
	assert_output ""
	: > "$dir/empty"
	run elect-trace merge "$dir/empty" "$dir/b"
	assert_output "2 2 boot inc=1"
}

@test "merge: malformed input: the file and line, exit 2" {
	printf '1 1 boot inc=1\n' > "$dir/ok"
	bad() {
		printf "$1" > "$dir/bad"
		run elect-trace merge "$dir/ok" "$dir/bad"
		assert_failure 2
		assert_output --partial "$dir/bad:$2: $3"
	}
	bad '1 1 boot inc=1\n2 1 state' 2 "last line has no newline"
	bad 'x 1 boot\n' 1 "bad time"
	bad '1 0 boot inc=1\n' 1 "bad node id"
	bad '1 1 reboot\n' 1 "unknown event"
	bad '1 1 boot =1\n' 1 "expected KEY=VALUE"
	bad '1 1 boot inc\n' 1 "expected KEY=VALUE"
	bad '1 1\n' 1 "expected TIME NODE EVENT"
	bad '1 1 boot inc=1\r\n' 1 "carriage return in line"
	bad '1 1 boot inc=1\0\n' 1 "NUL byte in line"
	printf '1 1 boot pad=%05000d\n' 0 > "$dir/bad"
	run elect-trace merge "$dir/bad"
	assert_failure 2
	assert_output --partial "$dir/bad:1: line too long"
	run elect-trace merge "$dir/missing"
	assert_failure 2
	assert_output --partial "$dir/missing: No such file or directory"
}

@test "merge: usage" {
	run elect-trace merge -q
	assert_failure 2
	assert_output --partial "usage: elect-trace merge"
	run elect-trace merge --help
	assert_success
	assert_output --partial "usage: elect-trace merge"
}

@test "merge: a node's file that goes on with a boot gets the crash, at its last line's time" {
	printf '1 1 boot inc=1\n2.5 1 clock c=2.5\n5 1 boot inc=2\n6 1 exit why=x\n' > "$dir/a"
	printf '1 2 boot inc=1\n3 2 clock c=3\n' > "$dir/b"
	run elect-trace merge "$dir/a" "$dir/b"
	assert_success
	assert_output "$(printf '%s\n' '1 1 boot inc=1' '1 2 boot inc=1' \
	    '2.5 1 clock c=2.5' '2.5 1 crash by=merge' '3 2 clock c=3' \
	    '5 1 boot inc=2' '6 1 exit why=x')"
	# after an exit, a boot needs nothing
	printf '1 1 boot inc=1\n2 1 exit why=x\n5 1 boot inc=2\n' > "$dir/c"
	run elect-trace merge "$dir/c"
	refute_output --partial crash
	# the old incarnation's last line in another file: nothing is
	# inferred, and elect-check says what is missing
	printf '1 1 boot inc=1\n2 1 clock c=2\n' > "$dir/d"
	printf '5 1 boot inc=2\n' > "$dir/e"
	run elect-trace merge "$dir/d" "$dir/e"
	refute_output --partial crash
	run sh -c "elect-trace merge '$dir/d' '$dir/e' | elect-check -A trace -"
	assert_failure 1
	assert_output --partial "node 1 boots while up"
}
