#!/usr/bin/env bats
# The Debian packages (make deb, into build/deb): the daemon's package
# for production hosts, the simulator and fault injector apart in
# elect-tools, a first installation that leaves a key and a cluster file,
# and lintian clean.  Skipped until make deb has built them.

load helper

setup() {
	D=$BATS_TEST_DIRNAME/../build/deb
	ls "$D"/elect_*.deb "$D"/elect-tools_*.deb >/dev/null 2>&1 ||
	    skip "no packages in build/deb: run make deb first"
	command -v dpkg-deb >/dev/null || skip "no dpkg-deb"
}

@test "deb: elect-sim and elect-chaos are in elect-tools, not in elect" {
	run dpkg-deb -c "$D"/elect_*.deb
	assert_success
	assert_output --partial "./usr/bin/elect-node"
	refute_output --partial "./usr/bin/elect-sim"
	refute_output --partial "./usr/bin/elect-chaos"
	refute_output --partial "./usr/share/man/man1/elect-sim"
	run dpkg-deb -c "$D"/elect-tools_*.deb
	assert_output --partial "./usr/bin/elect-sim"
	assert_output --partial "./usr/bin/elect-chaos"
	refute_output --partial "./usr/bin/elect-node"
	run dpkg-deb -f "$D"/elect-tools_*.deb Depends
	assert_output --regexp "^elect \(= [0-9.]+\)"
}

@test "deb: installed into a fresh root, with a key and a cluster file; lintian clean" {
	command -v lintian >/dev/null || skip "no lintian"
	local d=$BATS_TEST_TMPDIR/deb
	mkdir "$d"
	cp "$D"/elect_*.deb "$D"/elect-tools_*.deb "$d"
	run sh "$BATS_TEST_DIRNAME/tools/deb-check.sh" "$d"
	assert_success
	assert_output --regexp "lintian: 0 errors"
	[ "$(stat -c '%a %s' "$d/root/etc/elect/key")" = "600 32" ]
	grep -q '^node 1 ' "$d/root/etc/elect/cluster"
}
