#!/usr/bin/env bats
# The packaged units under a real systemd: three containers booted by
# systemd-nspawn --boot from a Debian 12 root, on a bridge, the .deb
# installed with dpkg in each (t/tools/nspawn-cluster.sh says how).
# Needs root, systemd-nspawn (systemd-container), the packages of make
# deb in build/deb, and the root of t/tools/nspawn-root.sh in
# ELECT_NSPAWN_ROOT (default build/nspawn/root); skipped without them, or
# when this machine cannot boot a container (the reason is printed).

bats_require_minimum_version 1.5.0

load helper

setup() {
	TOP=$BATS_TEST_DIRNAME/..
	[ "$(id -u)" = 0 ] || skip "needs root"
	command -v systemd-nspawn >/dev/null ||
	    skip "no systemd-nspawn (Debian: systemd-container)"
	command -v nsenter >/dev/null || skip "no nsenter"
	ls "$TOP"/build/deb/elect_*.deb >/dev/null 2>&1 ||
	    skip "no package in build/deb: run make deb first"
	ROOT=${ELECT_NSPAWN_ROOT:-$TOP/build/nspawn/root}
	[ -e "$ROOT/lib/systemd/systemd" ] ||
	    skip "no Debian root in $ROOT: make one with t/tools/nspawn-root.sh $ROOT"
}

@test "units under systemd as PID 1: three hosts elect, a member asks, the timer's job runs on the leader only, and again after the leader's host dies" {
	run --separate-stderr bash "$TOP/t/tools/nspawn-cluster.sh" "$ROOT" \
	    "$TOP/build/deb" "$BATS_TEST_TMPDIR/nspawn"
	if [ "$status" = 77 ]; then
		skip "this machine cannot boot a container: $stderr"
	fi
	printf '%s\n' "$output" >&3
	[ "$status" = 0 ] || fail "nspawn-cluster.sh exited $status: $stderr"
	assert_line --regexp "^host 1: systemd (running|degraded) as PID 1$"
	assert_line --regexp "^hosts 1, 2 and 3 agree: node [123] leads$"
	assert_line --regexp "^host 2: alice \(group elect\) runs elect-node -i 2 --status: id=2 "
	assert_line --regexp "^host [123] killed"
	assert_line --regexp "^tokens: [0-9]+ at node [123], then [0-9]+ at node [123]$"
}
