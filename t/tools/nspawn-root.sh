#!/bin/sh
# nspawn-root.sh DIR: a Debian 12 root in DIR for t/units-nspawn.bats,
# made by debootstrap from the Debian archive: systemd to boot, and the
# libraries the package needs (dpkg -i installs elect itself there).
set -eu
dir=${1:?usage: nspawn-root.sh DIR}
[ ! -e "$dir/etc/debian_version" ] || exit 0
command -v debootstrap >/dev/null ||
    { echo "nspawn-root: no debootstrap (apt-get install debootstrap)" >&2; exit 1; }
debootstrap --variant=minbase \
    --include=systemd,dbus,iproute2,libbsd0,libsodium23,libmicrohttpd12,procps \
    bookworm "$dir" http://deb.debian.org/debian
