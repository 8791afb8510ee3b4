#!/usr/bin/env bash
# How lease's cost grows with the number of nodes, in the simulator and on
# a real cluster of 100 nodes on this host.
#
# Simulated (elect-sim, N = 3 to 1,024, the cores on the papers' network:
# with elect-node's edge every host booting at once handshakes with every
# other, N^2 handshakes the simulator runs in turn): the messages of the
# election after the leader's crash, the messages per simulated second
# of steady state (a leader renewing with every peer: 2 (N - 1) per
# --renew), the simulated seconds run per wall-clock second, and the
# simulator's CPU and peak memory.
#
# Real (root: a network namespace of the run's own, node I on 127.0.0.I):
# SCALE_NODES elect-node daemons under lease, each with a guarded command
# (elect-node --run-if-leader --wait), each tracing to a file of its own,
# merged at the end with elect-trace merge.  The cluster first runs alone for SCALE_MINUTES (leader changes
# then are unprovoked; CPU and memory of every daemon and detector, and
# the datagrams per second, are taken over that time); then SCALE_KILLS
# failovers, by turns the leader's daemon SIGKILLed (its --run-if-leader
# releases the lease) and the leader's whole node (daemon, detector,
# --run-if-leader and command at once: the lease runs out), each timed
# from the SIGKILL to the next guarded command's start on another node;
# then the 40% of the nodes that hold the leader cut away from the rest
# (nft), timed the same way.  Checks: no two guarded commands overlap by
# the task lines, and elect-check certifies the merged trace; its time
# and memory beside awk '{n[$3]++}' on the same file.
#
#	scale-lease.sh
#
# SCALE_SIM_NODES (default "3 10 50 100 255 1024"), SCALE_NODES (100),
# SCALE_MINUTES (10; 1 for a try), SCALE_KILLS (20), SCALE_REAL=0 skips
# the real cluster, SCALE_KEEP=1 keeps its directory (it is always kept
# when a check fails), SCALE_FLAGS gives elect-node flags (the timings;
# default the large-cluster profile below; empty: elect-node's defaults).
set -u
: "${ELECT_BUILD:?set ELECT_BUILD to a build directory}"
PATH="$ELECT_BUILD/bin:$ELECT_BUILD/t:$PATH"
HERE=$(cd "$(dirname "$0")" && pwd)
CHAOS=$HERE/../../share/elect/elect-chaos

simn=${SCALE_SIM_NODES:-3 10 50 100 255 1024}
nodes=${SCALE_NODES:-100}
minutes=${SCALE_MINUTES:-10}
kills=${SCALE_KILLS:-20}
# The large-cluster profile of elect-node(1), Cluster size: at the
# defaults, a leader whose host stalls for some 50 ms loses its lease, and
# a 2-core host that runs other work does (17 changes in 10 minutes).
read -ra FLAGS <<<"${SCALE_FLAGS---lease 200ms --renew 50ms --rtt 10ms}"

# ---- the simulator ----

# sim N D: "MSGS_ELECTION TOTAL WALL_S CPU_S PEAK_KB FAILOVER_MS" of a
# run of D seconds whose leader crashes at 1.5 s.
sim() {
	local t0 t1 err
	err=$(mktemp)
	t0=$EPOCHREALTIME
	peakrss elect-sim -a lease -n "$1" -d "$2" -S -e "1.5 crash $1" \
	    --papers-net \
	    2>"$err" >/dev/null
	t1=$EPOCHREALTIME
	awk -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '
	    /after crash/ { for (i = 1; i <= NF; i++) {
		if ($i ~ /^msgs=/) e = substr($i, 6)
		if ($i ~ /^\(\+/) f = substr($i, 3) } }
	    /^total/ { t = substr($2, 6) }
	    NF == 3 && $1 ~ /^[0-9.]+$/ { c = $1; k = $2 }
	    END { print e, t, w, c, k, f }' "$err"
	rm -f "$err"
}

# cut N: milliseconds from a cut of the 40% highest nodes (the leader's
# side) away from the rest until a node of the rest leads.
cut() {
	local n=$1 c=$(($1 * 2 / 5))
	elect-sim -a lease -n "$n" -d 30 --papers-net -e "1.5 partition $(seq -s, $((n - c + 1)) "$n")/$(seq -s, 1 $((n - c)))" 2>/dev/null |
	    awk -v m=$((n - c)) '$1 > 1.5 && $3 == "lead" && $2 <= m {
		printf "%.0fms\n", ($1 - 1.5) * 1000; f = 1; exit }
		END { if (!f) print "-" }'
}

# One table: the simulated sizes, then the real cluster's row.  msgs/s
# is steady state (simulated: per simulated second; real: datagrams
# received, detectors' included); CPU% is the simulator's per simulated
# second, or the real leader's daemon; speed is simulated seconds per
# wall-clock second; memory the simulator's peak, or a real daemon's
# (median); failover the simulated crash's, or the median of the real
# kills; cut40% the failover after the cut of cut().
row() {
	printf '%-4s %5s %9s %9s %11s %8s %8s %8s %9s %8s\n' "$@"
}
simrows=$(for n in $simn; do
	read -r e2 t2 w2 c2 k2 f2 <<<"$(sim "$n" 2)"
	read -r e12 t12 w12 c12 k12 f12 <<<"$(sim "$n" 12)"
	row $(awk -v n="$n" -v e="$e12" -v a="$t2" -v b="$t12" -v c2="$c2" \
	    -v c12="$c12" -v k="$k12" -v f="$f12" -v w2="$w2" -v w12="$w12" 'BEGIN {
		s = (b - a) / 10; x = w12 - w2
		printf "sim %d %d %.0f %.1f %.2f %.0f %.1f %.0fms\n", n, e, s, s / n,
		    100 * (c12 - c2) / 10, 10 / (x > 0.001 ? x : 0.001), k / 1024, f }') \
	    "$(cut "$n")"
done)
# table [REAL_ROW]
table() {
	row where N msgs/elec msgs/s msgs/node/s CPU% speed peak_MB failover cut40%
	printf '%s\n' "$simrows"
	[ $# = 0 ] || row "$@"
}

# ---- the real cluster ----

[ "${SCALE_REAL:-1}" = 0 ] && { table; exit 0; }
if [ "$(id -u)" != 0 ]; then
	table
	echo "real cluster: skipped (needs root for its network namespace)"
	exit 0
fi
for c in ip nft ss setsid; do
	command -v $c >/dev/null || { table; echo "real cluster: skipped (no $c)"; exit 0; }
done

out=$(mktemp -d "${TMPDIR:-/tmp}/scale.XXXXXX")
NS=scale$$
declare -A DPID=() FDPID=() WPID=()
failed=1

# The process group of node ID's guarded command, if it still runs (its
# pid may have been taken by another process since).
jobpg() {
	local p
	p=$(cat "$out/$1/job.pid" 2>/dev/null) || return 0
	[ -n "$p" ] && [ "$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")" = "sleep 86400 " ] &&
	    awk '{ print $5 }' "/proc/$p/stat" 2>/dev/null
}

cleanup() {
	local p i
	trap - EXIT INT TERM
	for p in "${WPID[@]}" "${DPID[@]}"; do
		kill -KILL -- "-$p" 2>/dev/null
	done
	for ((i = 1; i <= nodes; i++)); do
		p=$(jobpg $i)
		[ -n "$p" ] && kill -KILL -- "-$p" 2>/dev/null
	done
	ip netns del "$NS" 2>/dev/null
	if [ "${SCALE_KEEP:-0}" = 1 ] || [ $failed != 0 ]; then
		echo "real cluster: kept in $out"
	else
		rm -rf "$out"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# In the run's namespace.  A process started in the background is
# started by ip itself, not through this function, so that $! is its pid.
inns() { ip netns exec "$NS" "$@"; }
hlog() { printf '%s %s\n' "$EPOCHREALTIME" "$*" >>"$out/harness.trace"; }
mkfifo "$out/fifo" && exec 7<>"$out/fifo"
sleepms() { read -r -t "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))" -u 7; }
alive() {
	local st=
	read -r _ _ st _ 2>/dev/null <"/proc/$1/stat"
	[ -n "$st" ] && [ "$st" != Z ]
}

ip netns add "$NS" && inns ip link set lo up || exit 1
inns nft -f - <<-EOF || exit 1
	table inet scale {
		set a { type ipv4_addr; }
		set b { type ipv4_addr; }
		chain in {
			type filter hook input priority 0; policy accept;
			meta l4proto udp counter
			meta l4proto udp ip saddr @a ip daddr @b drop
			meta l4proto udp ip saddr @b ip daddr @a drop
		}
	}
EOF
head -c 32 /dev/urandom >"$out/cluster.key" && chmod 600 "$out/cluster.key"
for ((i = 1; i <= nodes; i++)); do
	echo "node $i 127.0.0.$i:7000"
	mkdir -p "$out/$i"
done >"$out/cluster.conf"
: >"$out/harness.trace"
: >"$out/task.trace"

start() {
	local id=$1
	ip netns exec "$NS" setsid elect-node -a lease -f "$out/cluster.conf" -i "$id" \
	    -k "$out/cluster.key" -s "$out/$id/state" -t "$out/$id/trace" \
	    "${FLAGS[@]}" </dev/null >>"$out/$id/stderr" 2>&1 &
	DPID[$id]=$!
	disown $!
}
# Waits until node ID answers, and notes its detector.
ready() {
	local id=$1 i rc
	for ((i = 0; i < 3000; i++)); do
		rc=3
		[ -S "$out/$id/state/control" ] && {
			rc=0
			elect-node -s "$out/$id/state" --status >/dev/null 2>&1 ||
			    rc=$?
		}
		if [ $rc -le 1 ]; then
			FDPID[$id]=
			read -r "FDPID[$id]" _ 2>/dev/null \
			    <"/proc/${DPID[$id]}/task/${DPID[$id]}/children"
			return 0
		fi
		alive "${DPID[$id]}" || { echo "node $id did not start:"; tail -n 3 "$out/$id/stderr"; exit 1; }
		sleepms 20
	done
	echo "node $id does not answer"
	exit 1
}
# The guarded command of node ID, again and again: it notes its process
# group (so that a whole-node kill takes it too) and runs until stopped.
worker() {
	local id=$1
	ip netns exec "$NS" setsid bash -c '
		trap "exit 0" TERM
		while :; do
			elect-node -s "$1/state" --run-if-leader --wait \
			    -t "$2" -- sh -c "echo \$\$ >$1/job.pid; exec sleep 86400"
			read -r -t 0.1 <>"$3"
		done' worker "$out/$id" "$out/task.trace" "$out/fifo" \
	    </dev/null >>"$out/$id/worker.err" 2>&1 &
	WPID[$id]=$!
	disown $!
}

for ((i = 1; i <= nodes; i++)); do start $i; done
for ((i = 1; i <= nodes; i++)); do ready $i; done
for ((i = 1; i <= nodes; i++)); do worker $i; done

# The guarded command running now, as "NODE START_TIME", from the task
# lines: the last start with no stop of its pid after it.
running() {
	awk '$3 == "task" { split($5, p, "=")
		if ($4 == "op=start") { run[p[2]] = $2 " " $1 }
		else delete run[p[2]] }
	    END { for (k in run) print run[k] }' "$out/task.trace" | sort -k2,2n | tail -n 1
}
# Waits (at most SECS) for a guarded command that started after T on a
# node other than NOT; prints "NODE START_TIME".
next_start() {
	local t=$1 not=$2 secs=$3 i r
	for ((i = 0; i < secs * 50; i++)); do
		r=$(awk -v t="$t" -v not="$not" '$3 == "task" && $4 == "op=start" &&
		    $1 > t && $2 != not { print $2, $1; exit }' "$out/task.trace")
		[ -n "$r" ] && { echo "$r"; return 0; }
		sleepms 20
	done
	return 1
}
# Waits until a guarded command runs (a minute at most).
settled() {
	local i
	for ((i = 0; i < 3000; i++)); do
		[ -n "$(running)" ] && return 0
		sleepms 20
	done
	return 1
}
settled || { echo "real cluster: no guarded command ever started"; exit 1; }

# ---- steady state: unprovoked changes, CPU, memory, datagrams ----
ticks=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
pkts() { inns nft list chain inet scale in | awk '/counter/ { for (i = 1; i < NF; i++) if ($i == "packets") { print $(i + 1); exit } }'; }
declare -A C0=() F0=()
for ((i = 1; i <= nodes; i++)); do
	C0[$i]=$(cpu "${DPID[$i]}")
	F0[$i]=$(cpu "${FDPID[$i]}")
done
p0=$(pkts)
q0=$EPOCHREALTIME
sleep "$(awk -v m="$minutes" 'BEGIN { print m * 60 }')"
q1=$EPOCHREALTIME
p1=$(pkts)
for ((i = 1; i <= nodes; i++)); do
	d=$(($(cpu "${DPID[$i]}") - C0[$i]))
	f=$(($(cpu "${FDPID[$i]}") - F0[$i]))
	r=$(awk '/^VmHWM/ { print $2 }' "/proc/${DPID[$i]}/status")
	fr=$(awk '/^VmHWM/ { print $2 }' "/proc/${FDPID[$i]}/status")
	echo "$i $d $f $r $fr"
done >"$out/steady"
leader=$(running)
leader=${leader%% *}

# ---- failovers ----
RT=()
chrt -f 3 true 2>/dev/null && RT=(chrt -f 3)
: >"$out/failover"
kill_one() {
	local how=$1 id t k pg= tpid= r g
	id=$(running)
	id=${id%% *}
	[ -n "$id" ] || return 1
	g=(-"${DPID[$id]}")
	if [ "$how" = node ]; then
		# The whole host: its guard first, which would otherwise
		# release the lease on the daemon's behalf.
		pg=$(jobpg "$id")
		tpid=$(awk -v id="$id" '$2 == id && $3 == "task" {
		    split($5, p, "="); if ($4 == "op=start") r = p[2]
		    else if (p[2] == r) r = "" } END { print r }' "$out/task.trace")
		g=(-"${WPID[$id]}" ${pg:+"-$pg"} "${g[@]}")
	fi
	# The time of the kill is taken next to it, at a real-time priority
	# above the nodes': this shell may wait long for a CPU.
	read -r t k <<<"$("${RT[@]}" bash -c 't=$EPOCHREALTIME
	    kill -KILL -- "$@"; echo $t $EPOCHREALTIME' kill "${g[@]}" 2>/dev/null)"
	# What the node's host cannot write, as its crash line: its command
	# ran no instruction after the SIGKILL.
	[ -n "$tpid" ] && hlog "$id task op=stop pid=$tpid status=137 killed=$k"
	"${RT[@]}" bash "$CHAOS" --signal KILL "${DPID[$id]}" "$id" \
	    "$out/harness.trace" "$out/fifo" 0 0 "${FDPID[$id]}"
	r=$(next_start "$t" "$id" 30) || r="- -"
	set -- $r
	echo "$how $id $t $1 $2" >>"$out/failover"
	start "$id"
	ready "$id"
	[ "$how" = node ] && worker "$id"
	# The node takes its leadership back once its quiet period is over.
	sleepms 3000
	settled
}
for ((k = 0; k < kills; k++)); do
	if [ $((k % 2)) = 0 ]; then kill_one daemon; else kill_one node; fi
done

# The 40% that hold the leader (the highest ids) cut away from the rest.
cut=$((nodes * 2 / 5))
id=$(running)
id=${id%% *}
for ((a = nodes - cut + 1; a <= nodes; a++)); do
	for ((b = 1; b <= nodes - cut; b++)); do
		hlog "- net a=$b b=$a link=down"
	done
done
A=$(seq -s, -f '127.0.0.%g' $((nodes - cut + 1)) "$nodes")
B=$(seq -s, -f '127.0.0.%g' 1 $((nodes - cut)))
t=$EPOCHREALTIME
inns nft add element inet scale a "{ $A }"
inns nft add element inet scale b "{ $B }"
r=$(next_start "$t" "$id" 30) || r="- -"
set -- $r
echo "partition $id $t $1 $2" >>"$out/failover"
sleepms 5000
inns nft flush set inet scale a
inns nft flush set inet scale b
for ((a = nodes - cut + 1; a <= nodes; a++)); do
	for ((b = 1; b <= nodes - cut; b++)); do
		hlog "- net a=$b b=$a link=up"
	done
done
sleepms 3000
settled

# ---- the end: workers and daemons leave ----
for ((i = 1; i <= nodes; i++)); do kill -TERM -- "-${WPID[$i]}" 2>/dev/null; done
for ((i = 1; i <= nodes; i++)); do kill -TERM "${DPID[$i]}" 2>/dev/null; done
for ((i = 1; i <= nodes; i++)); do
	for ((k = 0; k < 500; k++)); do alive "${DPID[$i]}" || break; sleepms 20; done
done
stop=$EPOCHREALTIME

# ---- the checks ----
runstat -o "$out/merge.out" elect-trace merge -o "$out/merged.trace" \
    "$out"/*/trace "$out/harness.trace" "$out/task.trace" 2>"$out/merge.stat"
# Overlaps by the task lines: each command from its start to its stop, or
# to its node's crash (a whole-node kill took it), or to the end.
overlaps=$(awk -v end="$stop" '
	$3 == "task" { split($5, p, "="); k = p[2]
		if ($4 == "op=start") { cur[k] = ++n; s[n] = $1; e[n] = end }
		else if (k in cur) {
			t = $1
			for (i = 6; i <= NF; i++) if ($i ~ /^killed=/) t = substr($i, 8)
			e[cur[k]] = t; delete cur[k]
		} }
	END { for (i = 1; i <= n; i++) print s[i], e[i] }' "$out/merged.trace" |
    sort -n | awk 'NR > 1 && $1 < maxe { o++ } NR == 1 || $2 > maxe { maxe = $2 }
	END { print o + 0 }')
# Messages are judged against the profile's round trip (--msg-bound).
bound=0.005
for ((i = 0; i < ${#FLAGS[@]}; i++)); do
	[ "${FLAGS[i]}" = --rtt ] && bound=$(awk -v d="${FLAGS[i + 1]}" 'BEGIN {
		v = d + 0; if (d ~ /ms$/ || d ~ /^[0-9.]+$/) v /= 1000; print v }')
done
# Each three times on the warm file, as t/bench/check.sh does: the least
# wall-clock and CPU time (user + system), the most memory.
best() {
	local name=$1 i
	shift
	: >"$out/$name.stat"
	for i in 1 2 3; do
		runstat -o "$out/$name.out" "$@" 2>>"$out/$name.stat"
	done
	awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 + $3 < c { c = $2 + $3 }
	    $4 > m { m = $4 } END { print w, c, m }' "$out/$name.stat"
}
elect-check --msg-bound "$bound" "$out/merged.trace" >"$out/check.out" 2>&1
check_rc=$?
read -r cw cc ck <<<"$(best check elect-check --msg-bound "$bound" "$out/merged.trace")"
read -r aw ac ak <<<"$(best awk awk '{n[$3]++}' "$out/merged.trace")"
lines=$(wc -l <"$out/merged.trace")
mb=$(($(wc -c <"$out/merged.trace") / 1048576))
# Unprovoked changes: the leaderships (node, token) of the quiet time but
# the one it began with; every renewal's lead line names its token.
changes=$(awk -v a="$q0" -v b="$q1" '$3 == "lead" && $1 >= a && $1 < b {
	for (i = 4; i <= NF; i++) if ($i ~ /^token=/ && !seen[$2 " " $i]++) c++ }
	END { print (c > 0 ? c - 1 : 0) }' "$out/merged.trace")

# The real row: messages sent from each kill to the next command's
# start (median), datagrams, the leader's CPU, the median daemon's
# memory, the median failover of the kills and the partition's.
read -r qs dps lcpu mrss <<<"$(awk -v q="$(awk -v a="$q0" -v b="$q1" 'BEGIN { print b - a }')" \
    -v tk="$ticks" -v l="$leader" -v pk="$((p1 - p0))" '
	{ r[++n] = $4; if ($1 == l) ld = 100 * $2 / tk / q }
	END { for (i = 2; i <= n; i++) for (j = i; j > 1 && r[j] < r[j-1]; j--) { t = r[j]; r[j] = r[j-1]; r[j-1] = t }
		printf "%.0f %.0f %.2f %.1f\n", q, pk / q, ld, r[int((n + 1) / 2)] / 1024 }' "$out/steady")"
read -r fo pfo <<<"$(awk '$1 != "partition" && $4 != "-" { v[++n] = 1000 * ($5 - $3) }
	$1 == "partition" && $4 != "-" { p = sprintf("%.0fms", 1000 * ($5 - $3)) }
	END { for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j] < v[j-1]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
		printf "%s %s\n", n ? sprintf("%.0fms", v[int((n + 1) / 2)]) : "-", p ? p : "-" }' "$out/failover")"
melec=$(awk '$1 != "partition" && $4 != "-" { print $3, $5 }' "$out/failover" | sort -n |
    awk 'FNR == NR { a[++n] = $1; b[n] = $2; next }
	$3 == "send" { while (i < n && $1 > b[i + 1]) i++
		if (i < n && $1 >= a[i + 1] && $1 <= b[i + 1]) c[i + 1]++ }
	END { for (k = 1; k <= n; k++) v[k] = c[k] + 0
		for (x = 2; x <= n; x++) for (y = x; y > 1 && v[y] < v[y-1]; y--) { t = v[y]; v[y] = v[y-1]; v[y-1] = t }
		print n ? v[int((n + 1) / 2)] : "-" }' - "$out/merged.trace")
table real "$nodes" "$melec" "$dps" "$(awk -v d="$dps" -v n="$nodes" 'BEGIN { printf "%.1f", d / n }')" \
    "$lcpu" - "$mrss" "$fo" "$pfo"
echo
echo "lease, $nodes real nodes on 127.0.0.0/8, one network namespace, $(nproc) cores"
echo "flags: ${FLAGS[*]}"
awk -v q="$(awk -v a="$q0" -v b="$q1" 'BEGIN { print b - a }')" \
    -v tk="$ticks" -v l="$leader" -v pk="$((p1 - p0))" -v ch="$changes" '
	{ d[NR] = 100 * $2 / tk / q; f[NR] = 100 * $3 / tk / q; r[NR] = $4; fr[NR] = $5
	  if ($1 == l) { ld = d[NR]; lr = $4 } n = NR }
	function med(a,   i, j, t, b) { for (i = 1; i <= n; i++) b[i] = a[i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && b[j] < b[j-1]; j--) { t = b[j]; b[j] = b[j-1]; b[j-1] = t }
		return b[int((n + 1) / 2)] }
	function max(a,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
	END {
		printf "steady state:        %.0f s, %d unprovoked leader changes\n", q, ch
		printf "datagrams/s:         %.0f (all nodes, received)\n", pk / q
		printf "daemon CPU:          leader %.2f%%, median %.2f%%, max %.2f%%\n", ld, med(d), max(d)
		printf "detector CPU:        median %.2f%%, max %.2f%%\n", med(f), max(f)
		printf "daemon peak RSS:     leader %.1f MB, median %.1f MB, max %.1f MB\n", lr / 1024, med(r) / 1024, max(r) / 1024
		printf "detector peak RSS:   median %.1f MB, max %.1f MB\n", med(fr) / 1024, max(fr) / 1024
	}' "$out/steady"
awk '{ ms = ($4 == "-") ? -1 : 1000 * ($5 - $3); print $1, ms }' "$out/failover" |
    sort -k2,2n | awk '
	{ all[++n] = $2; k[$1]++; v[$1, k[$1]] = $2; if ($2 < 0) miss++ }
	function row(name, c, a,   i, m) {
		if (c == 0) return
		printf "failover %-11s %3d: median %6.0f ms, p99 %6.0f ms, max %6.0f ms\n", name, c,
		    a[int((c + 1) / 2)], a[int(c * 0.99 + 0.999)], a[c] }
	END {
		for (i = 1; i <= k["daemon"]; i++) d[i] = v["daemon", i]
		for (i = 1; i <= k["node"]; i++) h[i] = v["node", i]
		for (i = 1; i <= k["partition"]; i++) p[i] = v["partition", i]
		row("(daemon)", k["daemon"], d); row("(node)", k["node"], h)
		row("(partition)", k["partition"], p); row("(all)", n, all)
		if (miss) printf "failover: %d with no new leader within 30 s\n", miss
	}'
echo "overlaps:            $overlaps (task lines)"
grep -E '^elect-check: (holds|violated|undecided|not judged)' "$out/check.out" |
    sed 's/^elect-check: /elect-check:         /' 
read -r mw mu ms mk <"$out/merge.stat"
awk -v cw="$cw" -v aw="$aw" -v cc="$cc" -v ac="$ac" -v ck="$ck" -v ak="$ak" \
    -v mw="$mw" -v mk="$mk" -v l="$lines" -v mb="$mb" -v f="$nodes" 'BEGIN {
	printf "trace:               %d lines, %d MB, merged from %d files in %.1f s, %.0f MB peak\n",
	    l, mb, f + 2, mw, mk / 1024
	printf "elect-check:         %.2f s (CPU %.2f s), %.0f MB peak\n", cw, cc, ck / 1024
	printf "awk \047{n[$3]++}\047:     %.2f s (CPU %.2f s), %.0f MB peak\n", aw, ac, ak / 1024
	printf "elect-check / awk:   %.2f wall, %.2f CPU\n", cw / aw, cc / ac }'
[ "$check_rc" = 0 ] && [ "$overlaps" = 0 ] && failed=0
exit $failed
