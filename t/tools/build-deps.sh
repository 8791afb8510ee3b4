#!/bin/sh
# Checks what a build needs before anything compiles, and installs what
# is missing when run as root on Debian (apt-get), as make check does.
# Prints nothing when all is there; otherwise one line on stdout, naming
# each missing package and the command that installs it, and exits 1.
# What it installs, apt-get's output, goes to stderr.
#
# Usage: build-deps.sh [-n] NEED...
#   -n			report only, install nothing (make -n)
#   cmd:NAME:PKG	the command NAME, from the Debian package PKG
#   pc:MODULE:PKG	pkg-config's MODULE (pkg-config itself is a cmd: need)
#   fuzzer:CC:PKG	CC links a libFuzzer target (-fsanitize=fuzzer)
#   control:FILE:-	FILE's Build-Depends (dpkg-checkbuilddeps)
noinstall=0
[ "$1" = -n ] && { noinstall=1; shift; }

has() { command -v "$1" >/dev/null 2>&1; }

# installed PKG: dpkg says PKG is installed.
installed() {
	has dpkg-query &&
	    [ "$(dpkg-query -W -f '${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

links_fuzzer() {
	d=$(mktemp -d "${TMPDIR:-/tmp}/build-deps.XXXXXX") || return 1
	printf '%s\n' 'int LLVMFuzzerTestOneInput(const unsigned char *p,' \
	    'unsigned long n);' \
	    'int LLVMFuzzerTestOneInput(const unsigned char *p,' \
	    'unsigned long n) { return p == 0 && n > 0; }' >"$d/f.c"
	"$1" -fsanitize=fuzzer -o "$d/f" "$d/f.c" >/dev/null 2>&1
	r=$?
	rm -rf "$d"
	return $r
}

# check: sets pkgs and whys to what is missing, a package and a reason
# per need (a package once).
check() {
	pkgs= whys=
	for need in "$@"; do
		kind=${need%%:*} rest=${need#*:}
		what=${rest%%:*} pkg=${rest#*:}
		why=
		case $kind in
		cmd)	has "$what" || why="no command $what" ;;
		pc)	if has pkg-config; then
				pkg-config --exists "$what" ||
				    why="pkg-config finds no $what"
			else
				installed "$pkg" || why="no $what"
			fi ;;
		fuzzer)	has "$what" && ! links_fuzzer "$what" &&
			    why="$what links no libFuzzer target" ;;
		control)
			has dpkg-checkbuilddeps || continue
			for p in $(dpkg-checkbuilddeps "$what" 2>&1 |
			    sed -n 's/.*Unmet build dependencies: //p' |
			    sed 's/([^)]*)//g; s/|[^ ]*//g; s/:any//g'); do
				case " $pkgs " in *" $p "*) continue ;; esac
				pkgs="$pkgs $p" whys="$whys, $p (Build-Depends of $what)"
			done
			continue ;;
		*)	echo "build-deps: bad need $need" >&2; exit 2 ;;
		esac
		[ -n "$why" ] || continue
		case " $pkgs " in *" $pkg "*) continue ;; esac
		pkgs="$pkgs $pkg" whys="$whys, $pkg ($why)"
	done
}

check "$@"
[ -z "$pkgs" ] && exit 0
if [ $noinstall = 0 ] && [ "$(id -u)" = 0 ] && has apt-get; then
	echo "build-deps: installing:$pkgs" >&2
	tried=$pkgs
	apt-get update -q >&2 &&
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkgs >&2
	check "$@"
	# Build-Depends can be read once dpkg-dev is there: a second round
	# for what the first could not see.
	more=
	for p in $pkgs; do
		case " $tried " in *" $p "*) ;; *) more="$more $p" ;; esac
	done
	if [ -n "$more" ]; then
		echo "build-deps: installing:$more" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $more >&2
		check "$@"
	fi
	[ -z "$pkgs" ] && exit 0
fi
if has apt-get; then
	how="as root, run: apt-get update && apt-get install -y$pkgs"
else
	how="install them (Debian package names)"
fi
echo "missing ${whys#, }; $how"
exit 1
