#!/usr/bin/env bats
# elect-check: options, the choice of assertions, output and exit codes.

load helper
bats_require_minimum_version 1.5.0

setup() {
	cd "$FIXTURES/check"
}

@test "--help prints usage on stdout and exits 0" {
	run --separate-stderr elect-check --help
	assert_success
	assert_line --index 0 --partial 'usage: elect-check [-s set] [-A name,...] [-c seconds]'
	assert_output --partial 'sets: sync async fd lease'
	run elect-check -h
	assert_success
}

@test "--version" {
	run elect-check --version
	assert_success
	assert_output --regexp '^elect-check [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "bad usage exits 2 with the usage on stderr" {
	run --separate-stderr elect-check --frobnicate sync-ok.trace
	assert_failure 2
	assert_output ''
	[[ $stderr == *"usage: elect-check"* ]]
	run --separate-stderr elect-check -s nosuch sync-ok.trace
	assert_failure 2
	assert_equal "$stderr" 'elect-check: unknown set: nosuch (try --help)'
	run --separate-stderr elect-check -A sle1,nosuch sync-ok.trace
	assert_failure 2
	assert_equal "$stderr" 'elect-check: unknown assertion: nosuch (try --help)'
	run --separate-stderr elect-check -c x sync-ok.trace
	assert_failure 2
	assert_equal "$stderr" 'elect-check: -c: "x" is not a number of seconds'
	run --separate-stderr elect-check -c 0 sync-ok.trace
	assert_failure 2
	run --separate-stderr elect-check --skew -1 sync-ok.trace
	assert_failure 2
	run --separate-stderr elect-check --fd-latency 2000000 sync-ok.trace
	assert_failure 2
	run --separate-stderr elect-check --nodes 0 sync-ok.trace
	assert_failure 2
}

@test "the set follows from algo= of the boot lines" {
	run --separate-stderr elect-check sync-ok.trace
	[[ $stderr == *"checked as sync"* ]]
	run --separate-stderr elect-check async-ok.trace
	[[ $stderr == *"checked as async"* ]]
	run --separate-stderr elect-check six.trace
	[[ $stderr == *"checked as async"* ]]
	run --separate-stderr elect-check crashed-leader.trace
	[[ $stderr == *"checked as sync"* ]]
	run --separate-stderr elect-check - <<-'EOF'
	1 1 boot inc=1 algo=lease
	EOF
	assert_success
	[[ $stderr == *"checked as lease"* ]]
	[[ $stderr == *"holds: trace uniqueness lease-quorum edict-validity edict-order stability election"* ]]
}

@test "without algo=, or an unknown one, it asks for -s" {
	run --separate-stderr elect-check - <<< '1 1 boot inc=1'
	assert_failure 2
	assert_equal "$stderr" 'elect-check: -: no boot line names its algorithm (algo=): pass -s or -A to choose the assertions'
	run --separate-stderr elect-check - <<< '1 1 boot inc=1 algo=raft'
	assert_failure 2
	assert_equal "$stderr" 'elect-check: -:1: unknown algorithm "raft": pass -s to choose the assertions'
	# a mix is judged by the first: the other's node by trace and task-*
	run --separate-stderr elect-check - <<-'EOF'
	1 1 boot inc=1 algo=bully
	1 2 boot inc=1 algo=invitation
	EOF
	assert_success
	[[ $stderr == *"checked as sync"* ]]
	[[ $stderr == *"-:2: node 2 booted as invitation, not a sync algorithm"* ]]
	run elect-check -s sync - <<-'EOF'
	1 1 boot inc=1 algo=bully
	1 2 boot inc=1 algo=invitation
	EOF
	assert_success
}

@test "reports made before the set is known come out once it is" {
	run --separate-stderr elect-check - <<-'EOF'
	1 1 boot inc=1
	1 2 boot inc=1
	2 1 state status=Norm ldr=1 grp=a
	2 2 state status=Norm ldr=2 grp=b
	3 3 boot inc=1 algo=bully
	3.1 3 state status=Norm ldr=2 grp=b
	EOF
	assert_failure 1
	assert_output - <<-'EOF'
	-:4: gm1: nodes 1 (Norm, ldr=1) and 2 (Norm, ldr=2) disagree on the coordinator at 2
	-:4: sle1: nodes 1 (Norm, ldr=1) and 2 (Norm, ldr=2) are both Norm but follow different leaders at 2
	EOF
	run --separate-stderr elect-check - <<-'EOF'
	1 1 boot inc=1
	1 2 boot inc=1
	2 1 state status=Norm ldr=1 grp=a
	2 2 state status=Norm ldr=2 grp=b
	3 3 boot inc=1 algo=invitation
	EOF
	assert_success
	assert_output ''
}

@test "-s and -A add up; gm4 is in no set" {
	run --separate-stderr elect-check -s sync -s async,fd -A gm4 crashed-leader.trace
	assert_success
	[[ $stderr == *"holds: trace gm1 gm2 gm3 gm4 gm4s sle1 sle2 ale1 ale2w ale2 fd-complete fd-accurate"* ]]
	run --separate-stderr elect-check -s async -A gm4 appendix-a.trace
	assert_failure 1
	[[ $stderr == *"holds: trace gm3 gm4s ale1 ale2w ale2"* ]]
	[[ $stderr == *"violated: gm4 (1)"* ]]
	run --separate-stderr elect-check -s fd sync-ok.trace
	assert_success
	[[ $stderr == *"holds: trace fd-complete fd-accurate"* ]]
}

@test "--json: one object per violation, the same fields" {
	run --separate-stderr elect-check --json theorem2.trace
	assert_failure 1
	assert_output - <<-'EOF'
	{"file":"theorem2.trace","line":16,"name":"gm1","verdict":"violated","what":"nodes 3 (Norm, ldr=3) and 2 (Reorg, ldr=2) disagree on the coordinator at 22.2"}
	{"file":"theorem2.trace","line":18,"name":"sle1","verdict":"violated","what":"nodes 3 (Norm, ldr=3) and 2 (Norm, ldr=2) are both Norm but follow different leaders at 22.3"}
	EOF
}

@test "--json escapes what it quotes" {
	printf '1 1 boot inc=1 algo=invitation\n2 1 state status=Norm ldr=1 grp=a"\\\001\n2 2 boot inc=1\n2 2 state status=Norm ldr=2 grp=a"\\\001\n' > "$BATS_TEST_TMPDIR/q\"x.trace"
	run --separate-stderr elect-check --json -A ale1 "$BATS_TEST_TMPDIR/q\"x.trace"
	assert_failure 1
	[[ $output == *'q\"x.trace","line":4,"name":"ale1"'* ]]
	[[ $output == *'(group a\"\\\u0001)'* ]]
	python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' <<< "$output"
}

@test "the summary on stderr says what was checked" {
	run --separate-stderr elect-check -c 7.5 --skew 0.01 --fd-latency 2 stuck.trace
	assert_failure 1
	assert_equal "${stderr_lines[0]}" 'elect-check: 10 events, 3 nodes, 11.001 s of trace, checked as sync; c=7.5 fd-latency=2 skew=0.01 msg-bound=0.015'
	assert_equal "${stderr_lines[1]}" 'elect-check: holds: trace gm1 sle1'
	assert_equal "${stderr_lines[2]}" 'elect-check: violated: gm2 (1) sle2 (1)'
}

@test "files are checked as one trace" {
	head -n 10 theorem2.trace > "$BATS_TEST_TMPDIR/a"
	tail -n +11 theorem2.trace > "$BATS_TEST_TMPDIR/b"
	run --separate-stderr elect-check "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	assert_failure 1
	assert_line --index 0 "$BATS_TEST_TMPDIR/b:6: gm1: nodes 3 (Norm, ldr=3) and 2 (Reorg, ldr=2) disagree on the coordinator at 22.2"
}

@test "no progress line when stderr is not a terminal" {
	tracegen -l 300000 > "$BATS_TEST_TMPDIR/t"
	run --separate-stderr elect-check "$BATS_TEST_TMPDIR/t"
	assert_success
	[[ $stderr != *$'\r'* ]]
}
