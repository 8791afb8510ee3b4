#!/bin/bash
# nspawn-cluster.sh ROOT DEBDIR WORK: three hosts as three containers
# booted by systemd-nspawn --boot (systemd as PID 1 in each) from ROOT, a
# Debian 12 root made by debootstrap, on a bridge of a network namespace
# of their own.  On each, the packages of DEBDIR are installed with dpkg
# as an operator would, the first host's key copied to the others, the
# cluster file written, and elect-node@ID enabled; then:
#
#   - the three agree on a leader, and a member of group elect asks its
#     node with "elect-node -i ID --status" and nothing else;
#   - elect-backup@ID.timer, made to fire now, runs the guarded job on
#     the leader only: the others' services succeed with 254;
#   - the leader's host is killed (its container, at once): another leads
#     within seconds, and the timer's job runs there, with a greater
#     fencing token.
#
# Each step waits for its condition, polling, up to a bound.  Prints what
# it saw; exits 1 naming the step that failed, 77 when this machine
# cannot boot a container (the reason on stderr).  Everything it made
# (containers, mounts, the namespace) is removed on exit.
set -u
root=${1:?usage: nspawn-cluster.sh ROOT DEBDIR WORK}
debdir=$(cd "${2:?}" && pwd) || exit 2
work=${3:?}
ns=elect-nspawn-$$
net=10.77.$((RANDOM % 200 + 20))
pids=()
mounted=()

say() { printf '%s\n' "$*"; }
fail() { say "nspawn-cluster: $*" >&2; exit 1; }

cleanup() {
	local p m
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	# The containers' init, should nspawn have left it behind.
	for p in "${inits[@]:-}"; do
		[ -n "$p" ] && kill -KILL "$p" 2>/dev/null
	done
	for m in "${mounted[@]}"; do
		umount -l "$m" 2>/dev/null
	done
	ip netns del "$ns" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
inits=()

# poll SECONDS CMD...: runs CMD until it succeeds, up to SECONDS.
poll() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# on ID CMD...: CMD in host ID's namespaces, as its root.
on() {
	local id=$1
	shift
	nsenter -t "${inits[$id]}" -a -- "$@"
}

debs=$(ls "$debdir"/elect_*.deb) || fail "no elect_*.deb in $debdir"
mkdir -p "$work" || exit 1
ip netns add "$ns" || fail "ip netns add"
ip -n "$ns" link add br0 type bridge &&
    ip -n "$ns" link set br0 up || fail "no bridge"

for id in 1 2 3; do
	h=$work/h$id
	mkdir -p "$h/upper" "$h/work" "$h/root"
	mount -t overlay overlay -o \
	    "lowerdir=$root,upperdir=$h/upper,workdir=$h/work" "$h/root" ||
	    { say "overlayfs over $root cannot be mounted here" >&2; exit 77; }
	mounted+=("$h/root")
	r=$h/root
	# A host of its own: name, machine id, address; no first-boot
	# questions; systemd-networkd for the address.
	echo "elect$id" >"$r/etc/hostname"
	od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$r/etc/machine-id"
	echo >>"$r/etc/machine-id"
	ln -sf /dev/null "$r/etc/systemd/system/systemd-firstboot.service"
	mkdir -p "$r/etc/systemd/network"
	printf '[Match]\nName=host0\n[Network]\nAddress=%s.%s/24\n' \
	    "$net" "$id" >"$r/etc/systemd/network/10-host0.network"
	mkdir -p "$r/etc/systemd/system/multi-user.target.wants"
	ln -sf /lib/systemd/system/systemd-networkd.service \
	    "$r/etc/systemd/system/multi-user.target.wants/systemd-networkd.service"
	cp $debs "$r/root/"
	nsenter --net="/run/netns/$ns" systemd-nspawn -q -D "$r" -M "elect$id" \
	    --register=no --keep-unit --console=passive \
	    --network-bridge=br0 --boot >"$work/h$id.console" 2>&1 &
	pids[$id]=$!
done

# The containers' PID 1: nspawn's child that runs systemd.
init_of() {
	local c
	for c in $(pgrep -P "${pids[$1]}"); do
		[ "$(cat "/proc/$c/comm" 2>/dev/null)" = systemd ] &&
		    { echo "$c"; return 0; }
	done
	return 1
}
for id in 1 2 3; do
	if ! poll 30 init_of "$id" >/dev/null; then
		say "host $id: systemd-nspawn --boot did not start systemd:" >&2
		cat "$work/h$id.console" >&2
		exit 77
	fi
	inits[$id]=$(init_of "$id")
done
booted() {
	local s
	s=$(on "$1" systemctl is-system-running 2>/dev/null)
	[ "$s" = running ] || [ "$s" = degraded ]
}
for id in 1 2 3; do
	poll 120 booted "$id" || {
		on "$id" systemctl --failed --no-pager >&2
		fail "host $id did not finish booting"
	}
	say "host $id: systemd $(on "$id" systemctl is-system-running) as PID 1"
done

# Each host's address on the bridge (systemd-networkd).
addressed() {
	on "$1" ip -4 -o addr show dev host0 2>/dev/null | grep -q " $net.$1/"
}
for id in 1 2 3; do
	poll 30 addressed "$id" || {
		on "$id" ip addr >&2
		on "$id" systemctl status systemd-networkd --no-pager >&2
		fail "host $id: no address on the bridge"
	}
done

# The operator's walk-through, on each host as typed.
for id in 1 2 3; do
	on "$id" sh -c 'dpkg -i /root/elect_*.deb' >"$work/dpkg$id.log" 2>&1 ||
	    { cat "$work/dpkg$id.log" >&2; fail "host $id: dpkg -i failed"; }
	on "$id" test -s /etc/elect/key || fail "host $id: no key made"
done
# One key for the cluster: the first host's, copied to the others.
for id in 2 3; do
	on 1 cat /etc/elect/key | on "$id" sh -c \
	    'umask 077; cat >/etc/elect/key.new && mv /etc/elect/key.new /etc/elect/key'
done
for id in 1 2 3; do
	printf 'node %s %s.%s:7000\n' 1 "$net" 1 2 "$net" 2 3 "$net" 3 |
	    on "$id" sh -c 'cat >/etc/elect/cluster'
	on "$id" sh -c "sed -i 's/^#id\t\t1\$/id\t\t$id/' /etc/elect/elect.conf"
	on "$id" systemctl enable --now "elect-node@$id" >/dev/null 2>&1 ||
	    { on "$id" systemctl status "elect-node@$id" --no-pager >&2;
	      on "$id" journalctl -u "elect-node@$id" --no-pager >&2;
	      fail "host $id: elect-node@$id did not start"; }
done

# leader ID: the leader host ID's node knows, or nothing.
leader() {
	on "$1" elect-node -i "$1" --status 2>/dev/null |
	    sed -n 's/.* leader=\([0-9]*\) .*/\1/p'
}
agreed() {
	local a b c
	a=$(leader 1) b=$(leader 2) c=$(leader 3)
	[ -n "$a" ] && [ "$a" = "$b" ] && [ "$b" = "$c" ]
}
poll 30 agreed || {
	for id in 1 2 3; do
		on "$id" journalctl -u "elect-node@$id" --no-pager >&2
	done
	fail "the three hosts did not agree on a leader"
}
old=$(leader 1)
say "hosts 1, 2 and 3 agree: node $old leads"

# A member of group elect asks with -i alone.
on 2 useradd -m -G elect alice || fail "useradd"
out=$(on 2 runuser -u alice -- elect-node -i 2 --status) ||
    [ $? = 1 ] || fail "alice: elect-node -i 2 --status: $out"
case $out in
"id=2 "*) say "host 2: alice (group elect) runs elect-node -i 2 --status: ${out%% group=*}" ;;
*) fail "alice's --status: $out" ;;
esac

# The nightly job, its timer made to fire now.
for id in 1 2 3; do
	on "$id" sh -c 'cat >/usr/local/bin/backup.sh && chmod 755 /usr/local/bin/backup.sh' <<-'EOF'
	#!/bin/sh
	echo "$(hostname) node=$ELECT_NODE token=$ELECT_TOKEN" >>/var/tmp/backup.log
	EOF
	on "$id" mkdir -p "/etc/systemd/system/elect-backup@$id.timer.d"
	printf '[Timer]\nOnCalendar=\nOnActiveSec=1s\n' |
	    on "$id" sh -c "cat >/etc/systemd/system/elect-backup@$id.timer.d/now.conf"
	on "$id" systemctl daemon-reload
	on "$id" systemctl enable --now "elect-backup@$id.timer" >/dev/null 2>&1 ||
	    fail "host $id: elect-backup@$id.timer"
done
# ran ID: host ID's backup service has run once, to its end.
ran() {
	[ "$(on "$1" systemctl show -P ActiveState "elect-backup@$1.service")" = inactive ] &&
	    [ "$(on "$1" systemctl show -P ExecMainExitTimestampMonotonic "elect-backup@$1.service")" != 0 ]
}
for id in 1 2 3; do
	poll 30 ran "$id" || fail "host $id: the timer did not run the job"
	st=$(on "$id" systemctl show -P ExecMainStatus "elect-backup@$id.service")
	res=$(on "$id" systemctl show -P Result "elect-backup@$id.service")
	log=$(on "$id" cat /var/tmp/backup.log 2>/dev/null)
	say "host $id: elect-backup@$id.timer ran the service: status=$st result=$res job: ${log:-(did not run)}"
	[ "$res" = success ] || fail "host $id: the service failed"
	if [ "$id" = "$old" ]; then
		[ "$st" = 0 ] && [ -n "$log" ] || fail "the leader's job did not run"
		t1=${log##*token=}
	else
		[ "$st" = 254 ] && [ -z "$log" ] || fail "host $id: a follower's job ran"
	fi
done

# The leader's host dies at once.
kill -KILL "${inits[$old]}" "${pids[$old]}"
wait "${pids[$old]}" 2>/dev/null
say "host $old killed (its container's PID 1)"
others=()
for id in 1 2 3; do
	[ "$id" = "$old" ] || others+=("$id")
done
moved() {
	local a b
	a=$(leader "${others[0]}") b=$(leader "${others[1]}")
	[ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "$old" ]
}
t0=$SECONDS
poll 30 moved || fail "no other host came to lead"
new=$(leader "${others[0]}")
say "hosts ${others[*]} agree: node $new leads (within $((SECONDS - t0 + 1)) s)"
on "$new" journalctl -u "elect-node@$new" --no-pager -o cat |
    grep -E "became-leader" | tail -n 1

# The job again, by the timer, on the new leader only.
for id in "${others[@]}"; do
	on "$id" systemctl restart "elect-backup@$id.timer"
done
again() {
	[ "$(on "$new" sh -c 'wc -l </var/tmp/backup.log' 2>/dev/null)" = 1 ]
}
poll 30 again || fail "the new leader's timer did not run the job"
log=$(on "$new" cat /var/tmp/backup.log)
t2=${log##*token=}
say "host $new: the timer's job ran: $log"
[ "$t2" -gt "$t1" ] || fail "token $t2 is not above $t1"
say "tokens: $t1 at node $old, then $t2 at node $new"
exit 0
