#!/bin/sh
# deb-check.sh DIR: installs DIR/elect_*.deb, then DIR/elect-tools_*.deb,
# into a fresh root, as dpkg
# would on a new machine (the maintainer scripts run outside the root,
# DPKG_ROOT set, as dpkg --force-script-chrootless runs them), checks
# what it installed, and runs lintian on the package: no error may be
# found.  Exits 1 naming what failed.
set -eu
dir=$1
deb=$(ls "$dir"/elect_*.deb)
tools=$(ls "$dir"/elect-tools_*.deb)
root=$(cd "$dir" && pwd)/root
fail() { echo "deb-check: $*" >&2; exit 1; }

rm -rf "$root"
mkdir -p "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/info" "$root/etc"
: >"$root/var/lib/dpkg/status"
: >"$root/etc/passwd"
: >"$root/etc/group"
dpkg --root="$root" --force-script-chrootless --force-depends \
    --force-not-root --log=/dev/null -i "$deb" >"$dir/install.log" 2>&1 ||
    { cat "$dir/install.log"; fail "dpkg -i failed"; }
# What production hosts get: no simulator, no fault injector.
for f in usr/bin/elect-sim usr/bin/elect-chaos usr/share/elect/elect.bash \
    usr/share/man/man1/elect-sim.1.gz usr/share/man/man1/elect-chaos.1.gz; do
	[ ! -e "$root/$f" ] || fail "$f: in elect, not in elect-tools"
done
# The first installation leaves a key and a cluster file to fill in.
[ "$(stat -c '%a %s' "$root/etc/elect/key")" = "600 32" ] ||
    fail "/etc/elect/key: not a key of mode 0600"
grep -q '^node 1 ' "$root/etc/elect/cluster" ||
    fail "/etc/elect/cluster: no template"
grep -q '^socket-group[[:space:]]*elect$' "$root/etc/elect/elect.conf" ||
    fail "/etc/elect/elect.conf: no socket-group elect"
grep -q '^DynamicUser=no$' \
    "$root/lib/systemd/system/elect-node@.service.d/user.conf" ||
    fail "user.conf: the state directory would be under /var/lib/private"
dpkg --root="$root" --force-script-chrootless --force-depends \
    --force-not-root --log=/dev/null -i "$tools" >>"$dir/install.log" 2>&1 ||
    { cat "$dir/install.log"; fail "dpkg -i elect-tools failed"; }
for f in usr/bin/elect-node usr/bin/elect-fd usr/bin/elect-trace \
    usr/bin/elect-check usr/bin/elect-sim usr/bin/elect-chaos usr/bin/elect-fence \
    usr/share/man/man1/elect-node.1.gz usr/share/man/man7/elect-fencing.7.gz \
    usr/share/man/man1/elect-fence.1.gz \
    usr/share/elect/fence/postgres.sql usr/share/elect/fence/sqlite.sql \
    usr/share/elect/fence/sqlite-take.sql \
    usr/share/man/man1/elect-sim.1.gz \
    usr/share/man/man5/elect.conf.5.gz usr/share/man/man7/elect.bash.7.gz \
    lib/systemd/system/elect-node@.service \
    lib/systemd/system/elect-node@.service.d/user.conf \
    lib/systemd/system/elect-backup@.service \
    lib/systemd/system/elect-backup@.timer etc/logrotate.d/elect \
    etc/elect/elect.conf usr/share/elect/elect.bash \
    usr/share/bash-completion/completions/elect-node \
    usr/share/bash-completion/completions/elect-check; do
	[ -e "$root/$f" ] || fail "$f: not installed"
done
grep -q '^ExecStart=/usr/bin/elect-node ' \
    "$root/lib/systemd/system/elect-node@.service" ||
    fail "elect-node@.service does not run /usr/bin/elect-node"
grep -q '^elect:' "$root/etc/passwd" || fail "no user elect created"
"$root/usr/bin/elect-node" --version | grep -q '^elect-node ' ||
    fail "the installed elect-node does not run"
dpkg --root="$root" -s elect | grep -q '^Status: install ok installed' ||
    fail "dpkg does not have elect installed"
# Bash completion offers the flags of --help.
words=$(bash -c '. "$1/usr/share/bash-completion/completions/elect-node"
    PATH=$1/usr/bin:$PATH
    COMP_WORDS=(elect-node --sys)
    COMP_CWORD=1
    _elect
    echo "${COMPREPLY[*]}"' _ "$root")
[ "$words" = --syslog ] || fail "completion of --sys: \"$words\""
lintian --tag-display-limit 0 "$deb" "$tools" >"$dir/lintian.log" 2>&1 || true
cat "$dir/lintian.log"
! grep -q '^E: ' "$dir/lintian.log" || fail "lintian found errors"
echo "deb-check: $(basename "$deb") and $(basename "$tools") install into a fresh root; lintian: $(grep -c '^E: ' "$dir/lintian.log") errors, $(grep -c '^W: ' "$dir/lintian.log") warnings"
