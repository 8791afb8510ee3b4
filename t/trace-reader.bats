#!/usr/bin/env bats
# The shared trace reader (lib/trace), through elect-check: what it
# accepts, and the line it names for what it refuses.

load helper
bats_require_minimum_version 1.5.0

ok() {
	run --separate-stderr elect-check -A trace "$@"
	assert_success
}

bad() {
	local want=$1
	shift
	run --separate-stderr elect-check -A trace "$@"
	assert_failure 2
	assert_equal "$stderr" "elect-check: $want"
	assert_output ''
}

@test "every event of the format, with its keys in any order" {
	ok - <<-'EOF'
	# a comment, then a blank line

	  # an indented comment
	1.123456789 1 boot inc=1 algo=lease nodes=3
	1.2 2 boot nodes=3 inc=7
	1.5	3 boot	inc=0
	2 1 state status=Norm ldr=1 grp=1.1.1
	2 2 state grp=- ldr=- status=Elec2
	2 1 send to=2 msg=Halt elid=1.1.1 bytes=64
	2 2 recv from=1 msg=Halt
	2 2 drop from=- why=bad-mac
	2 2 fd op=playdead peer=3
	2 1 lease op=grant to=2 until=105.5 clock=100
	2 1 lease op=release to=2 clock=101
	2 1 lead until=110 clock=100 qt=1:100,2:99.5
	2 1 edict seq=1 qt=1:100,2:99.5 clock=100.1
	2 2 deliver from=1 seq=1 qt=1:100,2:99.5
	2 1 clock c=100.2
	2 - clock c=5
	2 - net a=1 b=2 link=flaky
	2 1 task op=start pid=42 token=7
	2 1 task op=stop pid=42 status=0 future=key
	2 3 pause
	2 3 resume
	2 2 misfit lead=no peers=1:algo,3:key
	2 2 misfit peers=- lead=yes
	3 3 exit why=signal
	3 2 crash
	9000000000.999999999 1 crash
	EOF
}

@test "files are read one after another; - is stdin" {
	printf '1 1 boot inc=1 algo=bully\n' > "$BATS_TEST_TMPDIR/a"
	printf '2 1 lost n=1\n' | {
		run --separate-stderr elect-check -A trace "$BATS_TEST_TMPDIR/a" -
		assert_failure 1
		assert_output '-:1: trace: node 1 lost 1 line'
	}
}

@test "an unknown event: strict refuses, lenient skips" {
	bad '-:2: unknown event "elect"' - <<-'EOF'
	1 1 boot inc=1 algo=bully
	2 1 elect who=me
	EOF
	run --separate-stderr elect-check --lenient -A trace - <<-'EOF'
	1 1 boot inc=1 algo=bully
	2 1 elect who=me
	EOF
	assert_success
	assert_equal "${stderr_lines[2]}" 'elect-check: 1 line with unknown events skipped' 
}

@test "bad numbers" {
	bad '-:1: bad time' - <<< '1.2.3 1 boot inc=1'
	bad '-:1: bad time' - <<< '-1 1 boot inc=1'
	bad '-:1: bad time' - <<< '1.0000000001 1 boot inc=1'
	bad '-:1: bad time' - <<< '99999999999 1 boot inc=1'
	bad '-:1: bad time' - <<< '9000000001 1 boot inc=1'
	bad '-:1: bad time' - <<< '9999999999.5 1 boot inc=1'
	run elect-check -A trace - <<< '9000000000.999999999 1 boot inc=1'
	assert_success
	bad '-:1: bad time' - <<< '1. 1 boot inc=1'
	bad '-:1: bad time' - <<< '.5 1 boot inc=1'
	bad '-:1: bad time' - <<< '1e3 1 boot inc=1'
	bad '-:1: bad node id' - <<< '1 0 boot inc=1'
	bad '-:1: bad node id' - <<< '1 65536 boot inc=1'
	bad '-:1: bad node id' - <<< '1 01 boot inc=1'
	bad '-:1: bad value for inc: "x"' - <<< '1 1 boot inc=x'
	bad '-:1: bad value for inc: ""' - <<< '1 1 boot inc='
	bad '-:1: bad value for inc: "01"' - <<< '1 1 boot inc=01'
	bad '-:1: bad value for inc: "00000000"' - <<< '1 1 boot inc=00000000'
	bad '-:1: bad value for inc: "1234567x"' - <<< '1 1 boot inc=1234567x'
	bad '-:1: bad value for inc: "x2345678"' - <<< '1 1 boot inc=x2345678'
	bad '-:1: bad value for inc: "18446744073709551616"' - <<< '1 1 boot inc=18446744073709551616'
	bad '-:1: bad value for to: "0"' - <<< '1 1 send to=0 msg=x'
	bad '-:1: bad value for until: "1,5"' - <<< '1 1 lead until=1,5 clock=1'
	bad '-:1: bad value for qt: "1:2,"' - <<< '1 1 edict seq=1 qt=1:2, clock=1'
	bad '-:1: bad value for status: "Normal"' - <<< '1 1 state status=Normal ldr=1 grp=-'
	bad '-:1: bad value for op: "grant"' - <<< '1 1 fd op=grant peer=2'
	bad '-:1: bad value for link: "half"' - <<< '1 - net a=1 b=2 link=half'
}

@test "a time that repeats the line before's, one that differs in any byte; numbers of 8 digits and of 9" {
	run --separate-stderr elect-check -A trace - <<-EOF
	1700000000.26 1 boot inc=12345678
	1700000000.26 1 crash
	1700000000.25 1 boot inc=12345679
	1600000000.25 1 crash
	1600000000.25 1 boot inc=12345677
	1600000000.25 1 crash
	1600000000.26 1 boot inc=123456789
	1600000000.26 1 crash
	1600000000.26 1 boot inc=123456788
	EOF
	assert_failure 1
	assert_line -n 0 --partial '-:3: trace: line out of time order: 1700000000.25 after a line of 1700000000.26;'
	assert_line -n 1 '-:3: trace: time goes backwards at node 1: 1700000000.25 after 1700000000.26'
	assert_line -n 2 '-:4: trace: time goes backwards at node 1: 1600000000.25 after 1700000000.25'
	assert_line -n 3 '-:5: trace: node 1 boots with inc=12345677, not above its last incarnation 12345679'
	assert_line -n 4 '-:9: trace: node 1 boots with inc=123456788, not above its last incarnation 123456789'
	assert_equal "${#lines[@]}" 5
}

@test "quorum timestamps: ids, times and commas as the format has them" {
	bad '-:1: bad value for qt: ""' - <<< '1 1 edict seq=1 qt= clock=1'
	bad '-:1: bad value for qt: ",1:2"' - <<< '1 1 edict seq=1 qt=,1:2 clock=1'
	bad '-:1: bad value for qt: "1:2,,3:4"' - <<< '1 1 edict seq=1 qt=1:2,,3:4 clock=1'
	bad '-:1: bad value for qt: "0:2"' - <<< '1 1 edict seq=1 qt=0:2 clock=1'
	bad '-:1: bad value for qt: "01:2"' - <<< '1 1 edict seq=1 qt=01:2 clock=1'
	bad '-:1: bad value for qt: "65536:2"' - <<< '1 1 edict seq=1 qt=65536:2 clock=1'
	bad '-:1: bad value for qt: "-:2"' - <<< '1 1 edict seq=1 qt=-:2 clock=1'
	bad '-:1: bad value for qt: "1:"' - <<< '1 1 edict seq=1 qt=1: clock=1'
	bad '-:1: bad value for qt: "1:2."' - <<< '1 1 edict seq=1 qt=1:2. clock=1'
	bad '-:1: bad value for qt: "1:.5"' - <<< '1 1 edict seq=1 qt=1:.5 clock=1'
	bad '-:1: bad value for qt: "1:2.1234567890"' - <<< '1 1 edict seq=1 qt=1:2.1234567890 clock=1'
	bad '-:1: bad value for qt: "1:9000000001"' - <<< '1 1 edict seq=1 qt=1:9000000001 clock=1'
	bad '-:1: bad value for qt: "1:2:3"' - <<< '1 1 edict seq=1 qt=1:2:3 clock=1'
	bad '-:1: bad value for qt: "1:2.5.5"' - <<< '1 1 edict seq=1 qt=1:2.5.5 clock=1'
	bad '-:1: bad value for qt: "1:2;3:4"' - <<< '1 1 edict seq=1 qt=1:2;3:4 clock=1'
	# A quorum timestamp like the one before, or the same one again.
	bad '-:4: bad value for qt: "1:2,3:x"' - <<-'EOF'
	1 1 boot inc=1
	2 1 edict seq=1 qt=1:2,3:4 clock=1
	3 1 edict seq=2 qt=1:2,3:4 clock=1
	4 1 edict seq=3 qt=1:2,3:x clock=1
	EOF
	bad '-:3: bad value for qt: "1:2,3:4,"' - <<-'EOF'
	1 1 boot inc=1
	2 1 edict seq=1 qt=1:2,3:4 clock=1
	3 1 edict seq=2 qt=1:2,3:4, clock=1
	EOF
	# The largest id and time, and 256 pairs but not 257.
	run elect-check -A trace - <<< '1 1 edict seq=1 qt=65535:9000000000.999999999,1:0000000000.5 clock=1'
	refute_output --partial 'bad value'
	qt=$(seq 1 256 | sed 's/$/:1.5/' | paste -sd, -)
	run elect-check -A trace - <<< "1 1 edict seq=1 qt=$qt clock=1"
	refute_output --partial 'bad value'
	bad "-:1: bad value for qt: \"${qt:0:40}\"" - <<< "1 1 edict seq=1 qt=$qt,257:1 clock=1"
}

@test "quorum timestamp digests: 16 lowercase hex digits, instead of qt= and never beside it" {
	run elect-check -A trace - <<-'EOF'
	1 1 boot inc=1
	1 2 boot inc=1
	2 1 lead until=3 clock=2 qd=0123456789abcdef token=1
	2 1 edict seq=1 qd=0123456789abcdef clock=2
	2 2 deliver from=1 seq=1 qd=ffffffffffffffff
	2 2 deliver from=1 seq=2 qd=0000000000000000
	EOF
	assert_success
	assert_line --index 1 'elect-check: holds: trace'
	bad '-:1: bad value for qd: "0123456789abcde"' - <<< '1 1 edict seq=1 qd=0123456789abcde clock=1'
	bad '-:1: bad value for qd: "0123456789abcdef0"' - <<< '1 1 edict seq=1 qd=0123456789abcdef0 clock=1'
	bad '-:1: bad value for qd: "0123456789ABCDEF"' - <<< '1 1 edict seq=1 qd=0123456789ABCDEF clock=1'
	bad '-:1: bad value for qd: "0x23456789abcdef"' - <<< '1 1 lead until=3 clock=2 qd=0x23456789abcdef'
	bad '-:1: bad value for qd: ""' - <<< '1 1 deliver from=2 seq=1 qd='
	bad '-:1: edict: qt= and qd= together' - <<< '1 1 edict seq=1 qt=1:2 qd=0123456789abcdef clock=1'
	bad '-:1: lead: qt= and qd= together' - <<< '1 1 lead until=3 clock=2 qd=0123456789abcdef qt=1:2'
	bad '-:1: edict: missing key qt= (or qd=)' - <<< '1 1 edict seq=1 clock=1'
	bad '-:1: deliver: missing key qt= (or qd=)' - <<< '1 1 deliver from=2 seq=1'
	# Other events may have a key of that name: it is theirs.
	run elect-check -A trace - <<< '1 1 boot inc=1 qd=x'
	refute_output --partial 'bad value'
}

@test "missing keys and malformed fields" {
	bad '-:1: boot: missing key inc=' - <<< '1 1 boot algo=bully'
	bad '-:1: state: missing key grp=' - <<< '1 1 state status=Norm ldr=1'
	bad '-:1: lease: missing key until= for op=grant' - <<< '1 1 lease op=grant to=2 clock=3'
	bad '-:1: expected TIME NODE EVENT' - <<< '1 1'
	bad '-:1: expected KEY=VALUE' - <<< '1 1 boot inc'
	bad '-:1: expected KEY=VALUE' - <<< '1 1 boot =1'
	bad '-:1: key inc given twice' - <<< '1 1 boot inc=1 inc=2'
	bad '-:1: key x given twice' - <<< '1 1 boot inc=1 x=1 x=2'
	bad '-:1: node "-" only goes with net, clock, lost or quiet' - <<< '1 - boot inc=1'
	bad '-:1: net lines belong to node "-"' - <<< '1 1 net a=1 b=2 link=up'
	bad '-:1: net: a and b are the same node' - <<< '1 - net a=2 b=2 link=up'
	bad '-:1: misfit: missing key lead=' - <<< '1 1 misfit peers=-'
	bad '-:1: misfit: missing key peers=' - <<< '1 1 misfit lead=no'
	bad '-:1: misfit: lead= must be yes or no' - <<< '1 1 misfit lead=maybe peers=-'
	bad '-:1: node "-" only goes with net, clock, lost or quiet' - <<< '1 - misfit lead=no peers=-'
}

@test "overlong lines, NUL bytes, carriage returns, a truncated last line" {
	{ printf '1 1 boot inc=1 x='; head -c 5000 /dev/zero | tr '\0' a; echo; } |
	    bad '-:1: line too long' -
	{ printf '1 1 boot inc=1\n'; printf '2 1 boot inc=2 x=a'; head -c 5000 /dev/zero | tr '\0' a; } |
	    bad '-:2: line too long' -
	printf '1 1 boot inc=1\n2 1 lost\0 n=1\n' | bad '-:2: NUL byte in line' -
	printf '1 1 boot inc=1\n# a \0 in a comment\n' | bad '-:2: NUL byte in line' -
	printf '1 1 boot inc=1\r\n' | bad '-:1: carriage return in line' -
	printf '1 1 boot inc=1\n2 1 crash' | bad '-:2: last line has no newline (truncated?)' -
	{ for i in $(seq 40); do printf 'k%d=1 ' "$i"; done; echo; } |
	    sed 's/^/1 1 boot inc=1 /' | bad '-:1: too many fields' -
}

@test "empty input, and a trace of comments only" {
	bad '-: no events in the trace' - < /dev/null
	printf '# nothing\n\n' | bad '-: no events in the trace' -
	printf '' > "$BATS_TEST_TMPDIR/empty"
	bad "$BATS_TEST_TMPDIR/empty: no events in the trace" "$BATS_TEST_TMPDIR/empty"
}

@test "a file that cannot be read" {
	bad "$BATS_TEST_TMPDIR/none: No such file or directory" "$BATS_TEST_TMPDIR/none"
	bad "$BATS_TEST_TMPDIR: Is a directory" "$BATS_TEST_TMPDIR"
}

@test "a long trace streams through in bounded memory" {
	tracegen -l 200000 > "$BATS_TEST_TMPDIR/long.trace"
	run --separate-stderr elect-check "$BATS_TEST_TMPDIR/long.trace"
	assert_success
	[[ $stderr == *" events, 5 nodes"* ]]
	[[ $stderr == *"holds: trace gm1 gm2 sle1 sle2"* ]]
}
