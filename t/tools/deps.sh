#!/bin/sh
# Installs the Debian packages the build and the tests need, or says how.
# Usage: deps.sh [-q] PKG...
quiet=0
[ "$1" = -q ] && { quiet=1; shift; }
command -v dpkg-query >/dev/null 2>&1 || {
	[ $quiet = 1 ] || echo "deps: not a Debian system; make sure these are installed: $*" >&2
	exit 0
}
missing=
for p in "$@"; do
	s=$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null)
	[ "$s" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "deps: installing:$missing" >&2
	apt-get update -q >&2 || exit 1
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >&2 || exit 1
	exit 0
fi
echo "deps: missing packages:$missing" >&2
echo "deps: as root, run:" >&2
echo "apt-get update && apt-get install -y$missing" >&2
exit 1
