#!/usr/bin/env bats
# The Makefile on a machine that lacks a build dependency: every goal that
# compiles checks first, and names the missing package in one line with
# the command that installs it (as root: installs it), before anything
# compiles.  A dependency is hidden by a PATH of our own: a pkg-config
# that knows no libbsd-overlay, a PATH without a command; apt-get and id
# are stand-ins, so that nothing is installed and the root path is run
# by any user.  Each test runs make in a copy of the sources.

load helper

setup() {
	src=$BATS_TEST_TMPDIR/src
	fake=$BATS_TEST_TMPDIR/fake
	mkdir -p "$src/t" "$fake"
	local top=$BATS_TEST_DIRNAME/..
	cp -r "$top/Makefile" "$top/lib" "$top/bin" "$top/share" \
	    "$top/debian" "$src"
	cp -r "$top/t/tools" "$src/t"
	real_pkgconfig=$(command -v pkg-config) || skip "no pkg-config"
	# libbsd-overlay is there once the stand-in apt-get "installed" it,
	# when told to
	cat >"$fake/pkg-config" <<-EOF
	#!/bin/sh
	[ -e "$BATS_TEST_TMPDIR/installed" ] ||
	    case " \$* " in *" libbsd-overlay "*) exit 1 ;; esac
	exec $real_pkgconfig "\$@"
	EOF
	cat >"$fake/apt-get" <<-EOF
	#!/bin/sh
	echo "\$*" >>"$BATS_TEST_TMPDIR/apt-get.log"
	[ ! -e "$BATS_TEST_TMPDIR/apt-get.works" ] ||
	    : >"$BATS_TEST_TMPDIR/installed"
	EOF
	as_user
	chmod +x "$fake"/*
}

# as_user, as_root: what the stand-in id -u says.
as_user() {
	printf '#!/bin/sh\n[ "$1" = -u ] && { echo 1000; exit 0; }\nexec /usr/bin/id "$@"\n' \
	    >"$fake/id"
	chmod +x "$fake/id"
}

as_root() {
	printf '#!/bin/sh\n[ "$1" = -u ] && { echo 0; exit 0; }\nexec /usr/bin/id "$@"\n' \
	    >"$fake/id"
	chmod +x "$fake/id"
}

# hidden ARGS...: make ARGS in the copy, with the fake commands first; not
# as a make under make (make check), and with the default compiler.
hidden() {
	# Bounded, and installing nowhere real, should the check let a goal
	# through.
	run timeout 60 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CC \
	    PATH="$fake:$PATH" make -C "$src" --no-print-directory \
	    PREFIX="$BATS_TEST_TMPDIR/prefix" DESTDIR="$BATS_TEST_TMPDIR/dest" "$@"
}

@test "make: every goal that compiles names a missing library's package in one line, before compiling" {
	local goal line='^Makefile:[0-9]+: \*\*\* missing libbsd-dev \(pkg-config finds no libbsd-overlay\); as root, run: apt-get update && apt-get install -y libbsd-dev\.  Stop\.$'
	for goal in "" -j2 plain "-j2 plain" asan "-j2 plain asan" install test \
	    build/plain/bin/elect-sim fuzz deb; do
		hidden $goal
		[ "$status" -eq 2 ] || fail "make $goal: exit $status: $output"
		[ "${#lines[@]}" -eq 1 ] || fail "make $goal: ${#lines[@]} lines: $output"
		[[ $output =~ $line ]] || fail "make $goal: $output"
		[ ! -e "$src/build" ] || fail "make $goal built: $(ls "$src/build")"
	done
	[ ! -e "$BATS_TEST_TMPDIR/apt-get.log" ]
	# goals that build nothing are not held up
	hidden clean
	assert_success
}

@test "make: as root, the missing package is installed first (apt-get), then make goes on or stops naming it" {
	as_root
	hidden -j2 plain
	assert_failure 2
	assert_line --index 0 "build-deps: installing: libbsd-dev"
	assert_line --index 1 --regexp '^Makefile:[0-9]+: \*\*\* missing libbsd-dev \(pkg-config finds no libbsd-overlay\); '
	[ "${#lines[@]}" -eq 2 ]
	run cat "$BATS_TEST_TMPDIR/apt-get.log"
	assert_output - <<-EOF
	update -q
	install -y -q libbsd-dev
	EOF
	# make -n installs nothing
	rm "$BATS_TEST_TMPDIR/apt-get.log"
	hidden -n plain
	assert_failure 2
	assert_output --regexp '^Makefile:[0-9]+: \*\*\* missing libbsd-dev '
	[ ! -e "$BATS_TEST_TMPDIR/apt-get.log" ]
	[ ! -e "$src/build" ]
	# installed, it is used at once: strtonum() is declared
	: >"$BATS_TEST_TMPDIR/apt-get.works"
	hidden -j2 build/plain/obj/lib/util/args.o
	assert_success
	assert_line --index 0 "build-deps: installing: libbsd-dev"
	assert_line --regexp '^cc -std=c17 .* -DLIBBSD_OVERLAY .* -c -o build/plain/obj/lib/util/args\.o lib/util/args\.c$'
	[ -f "$src/build/plain/obj/lib/util/args.o" ]
}

@test "make: a missing compiler and pkg-config are named with their packages" {
	# a PATH of every command but these two
	local bin=$BATS_TEST_TMPDIR/bin
	mkdir "$bin"
	ln -s /usr/bin/* "$bin"
	rm -f "$bin/pkg-config" "$bin/cc" "$bin/id" "$bin/apt-get"
	ln -s "$fake/id" "$fake/apt-get" "$bin"
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CC PATH="$bin" \
	    make -C "$src" --no-print-directory plain
	assert_failure 2
	assert_output --regexp '^Makefile:[0-9]+: \*\*\* missing gcc \(no command cc\), pkg-config \(no command pkg-config\); as root, run: apt-get update && apt-get install -y gcc pkg-config\.  Stop\.$'
	[ ! -e "$src/build" ]
}

@test "make fuzz: a clang that links no libFuzzer target names the runtime's package" {
	cat >"$fake/clang" <<-EOF
	#!/bin/sh
	case " \$* " in *" -fsanitize=fuzzer "*) exit 1 ;; esac
	exec $(command -v clang || echo false) "\$@"
	EOF
	chmod +x "$fake/clang"
	rm "$fake/pkg-config"
	hidden fuzz
	assert_failure 2
	assert_output --regexp '^Makefile:[0-9]+: \*\*\* missing libclang-rt-14-dev \(clang links no libFuzzer target\); as root, run: apt-get update && apt-get install -y libclang-rt-14-dev\.  Stop\.$'
}

# Nothing hidden: the check lets every goal through (make -n, to compile
# nothing; the copy has no fuzz targets to run), and says nothing.
@test "make: with every dependency there, the check is silent" {
	command -v clang >/dev/null || skip "no clang"
	command -v dpkg-buildpackage >/dev/null || skip "no dpkg-buildpackage"
	rm "$fake/pkg-config"
	local goal
	for goal in plain asan install fuzz deb; do
		hidden -n $goal
		assert_success
		refute_output --regexp '\*\*\*|build-deps'
	done
	[ ! -e "$BATS_TEST_TMPDIR/apt-get.log" ]
}
