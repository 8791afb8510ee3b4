# Loaded by every t/*.bats file: bats-support, bats-assert, the binaries
# under test (ELECT_BUILD, set by make: build/plain or build/asan) first in
# PATH, and small helpers.
bats_load_library bats-support 2>/dev/null || load /usr/lib/bats/bats-support/load
bats_load_library bats-assert 2>/dev/null || load /usr/lib/bats/bats-assert/load

: "${ELECT_BUILD:=$BATS_TEST_DIRNAME/../build/plain}"
ELECT_BUILD=$(cd "$ELECT_BUILD" && pwd)
export ELECT_BUILD
PATH="$ELECT_BUILD/bin:$ELECT_BUILD/t:$PATH"
FIXTURES="$BATS_TEST_DIRNAME/fixtures"

# kill_own SIG PID...: sends SIG to each PID that is still a child of
# this shell, and to nothing else: once a process has ended and been
# reaped its PID may be another's (PIDs wrap around on a busy host, and
# a stray SIGKILL can end a test running beside this one).  -PID names
# the process group that PID leads.
kill_own() {
	local sig=$1 p
	shift
	for p in "$@"; do
		own "${p#-}" && kill "-$sig" -- "$p" 2>/dev/null
	done
	return 0
}

# own PID: PID is a child of this shell, not yet reaped.
own() {
	local st ppid
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	read -r _ ppid _ <<<"${st##*) }"
	[ "$ppid" = "$BASHPID" ]
}

# wait_for SECONDS COMMAND...: polls COMMAND every 20 ms until it succeeds;
# fails after SECONDS.
wait_for() {
	local limit=$1 i=0
	shift
	while ! "$@"; do
		i=$((i + 1))
		[ "$i" -lt $((limit * 50)) ] || return 1
		sleep 0.02
	done
}
