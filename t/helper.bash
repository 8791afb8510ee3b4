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
