#!/bin/bash
# Named leaderships (elect-node --run-if-leader -n NAME): what a name
# costs, how names spread over the hosts, and how fast they fail over.
#
# Real daemons on 127.0.0.1 at elect-node's default timings, each with a
# hold-names (t/tools/hold-names.c) that registers every name of the run
# as a guarded command would (`task wait name=job-K'), one connection per
# name, so that every node asks for every name.  hold-names stands for
# the guards without their processes and without their polls of the
# lease: the figures are the daemons' alone.
#
# 1. Cost, for 3 and 5 nodes and 1, 10, 100 and 1,000 names, in steady
#    state (every name held, then NB_SETTLE s), over NB_WINDOW s: datagrams
#    per second per daemon (sent and received on its own port, from
#    elect_datagrams_*_total; the detectors' heartbeats apart), CPU per
#    daemon (utime+stime from /proc, % of one core), mean and worst
#    daemon, and resident memory of the worst: VmRSS, and RssAnon, the
#    daemon's own (VmRSS counts some 3 MB of shared libraries' pages).
#    Targets at 1,000 names: datagrams/s within 2x the one-name figure,
#    CPU under 5% of one core, RSS under 8 MB, for the worst daemon.
# 2. Spread: 3 nodes each asking for 300 names: the largest share a node
#    holds over an even share (target <= 1.2); then one node restarted:
#    the names that come back to it while their holders live (target 0).
# 3. Failover: SIGKILL of the daemon holding the most of the 300 names
#    (its hold-names sends its testament, as its guards would): for each
#    of its names the time until another node's registration is answered
#    start (median, p99; target p99 < 50 ms), and overlaps (a name started
#    elsewhere before the killed daemon's connection closed, or under a
#    token not above its own; target 0).  Then the daemon back, and the
#    whole node of the largest holder killed (daemon, detector and
#    hold-names): the same figures, the wait bounded by the lease.
# 4. etcd, if installed (make bench installs it): the same failover for
#    etcdctl lock, NB_ETCD (100) names held across three clients against
#    a three-member etcd on 127.0.0.1 (said so when etcd is missing).
#
# Environment: ELECT_BUILD, NB_NODES ("3 5"), NB_NAMES ("1 10 100 1000";
# empty: no cost table), NB_WINDOW (10), NB_SETTLE (2), NB_SPREAD (300),
# NB_KEEP=1 keeps the directory (the holders' lines, the daemons' logs).
# Exit 1 when a target is missed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${ELECT_BUILD:=$here/../../build/plain}"
PATH=$ELECT_BUILD/bin:$ELECT_BUILD/t:$PATH
. "$here/../../share/elect/elect.bash"

NODES=${NB_NODES:-3 5}
NAMES=${NB_NAMES-1 10 100 1000}
WINDOW=${NB_WINDOW:-10}
SETTLE=${NB_SETTLE:-2}
SPREAD=${NB_SPREAD:-300}
TICKS=$(getconf CLK_TCK)

top=$(mktemp -d "${TMPDIR:-/tmp}/elect-names.XXXXXX") || exit 1
declare -A HPID=()
ETCDS=()
missed=

stop_holders() {
	local p
	for p in "${HPID[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	HPID=()
}
cleanup() {
	stop_holders
	[ "${#ETCDS[@]}" -eq 0 ] || stop_etcd
	elect_teardown 2>/dev/null
	if [ "${NB_KEEP:-0}" = 1 ]; then
		echo "kept: $top"
	else
		rm -rf "$top"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# up N: N daemons at the defaults, each writing its metrics to a file
# every second (--metrics-file; one that serves them over HTTP, --metrics,
# loads libmicrohttpd and gnutls, some 2.7 MB more resident).
up() {
	local n=$1 p i
	elect_setup "$top/c$n.$RANDOM"
	p=$(freeport -n 1 -w $((2 * n))) || return 1
	for ((i = 1; i <= n; i++)); do
		echo "node $i 127.0.0.1:$((p + 2 * (i - 1)))"
	done >"$ELECT_DIR/cluster"
	ELECT_CLUSTER=$ELECT_DIR/cluster
	# Keyed: a Dead (the testament) counts only when authenticated.
	(umask 077; head -c 32 /dev/urandom >"$ELECT_DIR/key")
	ELECT_ARGS=(-k "$ELECT_DIR/key")
	ELECT_IDS=($(seq "$n"))
	for ((i = 1; i <= n; i++)); do
		_elect_launch "$i" --metrics-file "$ELECT_DIR/m$i.prom" || return 1
	done
	for ((i = 1; i <= n; i++)); do
		_elect_ready "$i" || return 1
	done
}

# hold ID COUNT: node ID's hold-names for job-1 .. job-COUNT.
hold() {
	hold-names -r "$ELECT_DIR/$1/state" job "$2" \
	    >>"$ELECT_DIR/hold.$1" 2>>"$ELECT_DIR/hold.$1.err" &
	HPID[$1]=$!
}

# metric ID NAME: node ID's metric NAME, 0 if absent.
metric() {
	awk -v m="elect_$2" '$1 == m { v = $2 } END { print v + 0 }' \
	    "$ELECT_DIR/m$1.prom" 2>/dev/null || echo 0
}

held_total() {
	local i t=0
	for i in "${ELECT_IDS[@]}"; do
		[ "${ELECT_STATE[$i]}" = up ] || continue
		t=$((t + $(metric "$i" names_held)))
	done
	echo "$t"
}

# settled COUNT [SECONDS]: every name held by some node (at most 60 s).
settled() {
	local i
	for ((i = 0; i < ${2:-600}; i++)); do
		[ "$(held_total)" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# "VMRSS RSSANON" in KiB: all resident pages, and the daemon's own
# (the shared libraries' pages apart).
rss() {
	awk '/^VmRSS/ { r = $2 } /^RssAnon/ { a = $2 } END { print r + 0, a + 0 }' \
	    "/proc/$1/status" 2>/dev/null || echo 0 0
}
# dgrams ID: "COUNT TIME", the datagrams node ID sent and received by
# the time (its file's) it wrote them.
dgrams() {
	local f=$ELECT_DIR/m$1.prom
	awk -v t="$(stat -c %.9Y "$f")" '
	    $1 ~ /^elect_datagrams_(sent|received)_total$/ { n += $2 }
	    END { print n + 0, t }' "$f"
}

# cost N K: "DG_MEAN DG_MAX CPU_MEAN CPU_MAX RSS_MAX_KB ANON_MAX_KB" of
# N nodes holding K names, or nothing if they did not come to hold them.
cost() {
	local n=$1 k=$2 i t0 t1
	local -A c0=() d0=()
	up "$n" || return 1
	for ((i = 1; i <= n; i++)); do
		hold "$i" "$k"
	done
	if ! settled "$k"; then
		echo "cost: $n nodes did not come to hold $k names" >&2
		stop_holders
		elect_stop_all >/dev/null 2>&1
		return 1
	fi
	sleep "$SETTLE"
	t0=$EPOCHREALTIME
	for ((i = 1; i <= n; i++)); do
		c0[$i]=$(cpu "${ELECT_PID[$i]}")
		d0[$i]=$(dgrams "$i")
	done
	sleep "$WINDOW"
	t1=$EPOCHREALTIME
	for ((i = 1; i <= n; i++)); do
		echo "${d0[$i]} $(dgrams "$i") $(($(cpu "${ELECT_PID[$i]}") - \
		    c0[$i])) $(rss "${ELECT_PID[$i]}")"
	done | awk -v s="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
	    -v hz="$TICKS" '
	    { d = ($3 - $1) / ($4 - $2); c = 100 * $5 / hz / s; dm += d; cm += c
	      if (d > dx) dx = d; if (c > cx) cx = c; if ($6 > rx) rx = $6
	      if ($7 > ax) ax = $7 }
	    END { printf "%.0f %.0f %.2f %.2f %.0f %.0f\n", dm / NR, dx,
		cm / NR, cx, rx, ax }'
	stop_holders
	elect_stop_all >/dev/null 2>&1
}

row() {
	printf '%-5s %-6s %9s %9s %8s %8s %8s %8s\n' "$@"
}

# ---- 1. cost ----

[ -n "$NAMES" ] &&
    echo "named leaderships: cost per daemon at the defaults, steady state over ${WINDOW} s"
[ -n "$NAMES" ] && {
	echo "(hold-names registers every name at every node, without guards' polls:"
	echo " the daemons' own cost; dgrams = datagrams sent+received per second)"
	row nodes names dgrams/s max CPU% max RSS_MB anon_MB
}
declare -A R=()
for n in ${NAMES:+$NODES}; do
	for k in $NAMES; do
		r=$(cost "$n" "$k") || r="- - - - - -"
		R[$n.$k]=$r
		set -- $r
		row "$n" "$k" "$1" "$2" "$3" "$4" \
		    "$(awk -v v="$5" 'BEGIN { if (v == "-") print v; else printf "%.1f", v / 1024 }')" \
		    "$(awk -v v="$6" 'BEGIN { if (v == "-") print v; else printf "%.2f", v / 1024 }')"
	done
done
lo=${NAMES%% *}
hi=${NAMES##* }
for n in ${NAMES:+$NODES}; do
	read -r dl dlx cl clx rlx al <<<"${R[$n.$lo]}"
	read -r dh dhx ch chx rhx ah <<<"${R[$n.$hi]}"
	if [ "$dh" = - ] || [ "$dl" = - ]; then
		echo "$n nodes: no ratio ($lo or $hi names did not settle)"
		missed="$missed cost-$n"
		continue
	fi
	awk -v n="$n" -v lo="$lo" -v hi="$hi" -v dl="$dlx" -v dh="$dhx" \
	    -v cl="$clx" -v ch="$chx" -v rl="$rlx" -v rh="$rhx" -v al="$al" \
	    -v ah="$ah" 'BEGIN {
		printf "%d nodes, %d/%d names (worst daemon): datagrams/s %.2fx " \
		    "(target <= 2x), CPU %.2f%% -> %.2f%% (%.1fx; target < 5%%), " \
		    "RSS %.1f -> %.1f MB (%.2fx; target < 8 MB; the daemon'"'"'s " \
		    "own %.2f -> %.2f MB)\n", n, hi, lo,
		    dh / (dl > 0 ? dl : 1), cl, ch, ch / (cl > 0 ? cl : 0.01),
		    rl / 1024, rh / 1024, rh / (rl > 0 ? rl : 1), al / 1024,
		    ah / 1024
		exit !(dh <= 2 * dl && ch < 5 && rh < 8 * 1024) }' ||
	    missed="$missed cost-$n"
done

# failover daemon|node: the node holding the most names loses its daemon
# (SIGKILL; its hold-names sends the testament, as its guards would) or
# dies whole (daemon, detector and hold-names SIGKILLed at once: no
# testament, its grants run out).  For each of its names, the time until
# another node's registration is answered start; an overlap is a name
# started elsewhere before the victim's connection for it closed (a
# daemon's death; a dead node's guards end by their deadlines, which
# elect-check judges in t/elect-node-names.bats), or under a token not
# above the victim's.  Sets v (the victim) and vk (its names).
failover() {
	local kind=$1 t i target
	settled "$SPREAD" 50 || true
	for i in 1 2 3; do
		echo "$i $(metric "$i" names_held)"
	done | sort -k2,2nr >"$top/shares"
	read -r v vk <"$top/shares"
	# Its names: started there, and neither stopped nor closed.
	awk '{ sub(/^name=/, "", $3); sub(/^token=/, "", $4) }
	    $NF == "start" { l[$3] = $3 " " $2 " " $4; next }
	    { delete l[$3] }
	    END { for (n in l) print l[n] }' "$ELECT_DIR/hold.$v" \
	    >"$top/victim"
	t=$EPOCHREALTIME
	if [ "$kind" = node ]; then
		# Stopped first, all of them: killed in turn, the holder
		# would see the daemon go and send its testament.
		{
			kill -STOP -- "-${ELECT_PID[$v]}" "${HPID[$v]}"
			kill -KILL -- "-${ELECT_PID[$v]}" "${HPID[$v]}"
			wait "${HPID[$v]}"
		} 2>/dev/null
		target="(bounded by the lease: 80 ms at the defaults)"
	else
		kill -KILL "${ELECT_PID[$v]}"
		target="(target p99 < 50 ms)"
	fi
	ELECT_STATE[$v]=down
	sleep 3
	{ kill "${HPID[$v]}"; wait "${HPID[$v]}"; } 2>/dev/null
	unset "HPID[$v]"
	# Each of the victim's names: its close, and its next start on
	# another node.
	awk -v t="$t" -v v="$v" -v kind="$kind" '
	    FILENAME == ARGV[1] { own[$1] = $3; next }
	    FILENAME ~ "hold\\." v "$" {
		sub(/^name=/, "", $3)
		if ($NF == "closed" && $2 > t && !($3 in closed))
			closed[$3] = $2
		next }
	    $NF == "start" && $2 > t {
		sub(/^name=/, "", $3); sub(/^token=/, "", $4)
		if (($3 in own) && !($3 in next_)) {
			next_[$3] = $2; tok[$3] = $4 } }
	    END {
		for (n in own) {
			if (!(n in next_)) { lost++; continue }
			print "ms", (next_[n] - t) * 1000
			if ((kind == "daemon" && (!(n in closed) ||
			    next_[n] < closed[n])) || tok[n] + 0 <= own[n] + 0)
				over++
		}
		print "lost", lost + 0
		print "overlaps", over + 0 }' \
	    "$top/victim" "$ELECT_DIR"/hold.[123] >"$top/failover"
	sort -k2,2g "$top/failover" | awk -v v="$v" -v k="$vk" \
	    -v kind="$kind" -v target="$target" '
	    $1 == "ms" { x[++n] = $2 }
	    $1 == "lost" { lost = $2 }
	    $1 == "overlaps" { over = $2 }
	    END {
		if (n == 0) { print "failover: no name ran elsewhere"; exit 1 }
		m = (n % 2) ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
		r = int(0.99 * n); if (r < 0.99 * n) r++
		printf "failover: SIGKILL of %s %d holding %d names: " \
		    "started elsewhere median %.1f ms, p99 %.1f ms %s, " \
		    "%d not within 3 s, %d overlaps (target 0)\n",
		    kind == "node" ? "the whole node" : "the daemon of node",
		    v, k, m, x[r], target, lost, over
		exit !((kind == "node" || x[r] < 50) && over == 0 &&
		    lost == 0) }'
}

# ---- 2. spread and stickiness ----

echo
echo "spread: 3 nodes each asking for $SPREAD names"
if up 3; then
	for i in 1 2 3; do
		hold "$i" "$SPREAD"
	done
	if settled "$SPREAD"; then
		sleep "$SETTLE"
		for i in 1 2 3; do
			echo "$i $(metric "$i" names_held)"
		done >"$top/shares"
		awk -v k="$SPREAD" '{ s = s " node" $1 "=" $2; if ($2 > m) m = $2 }
		    END { printf "held:%s; largest/even %.2f (target <= 1.2)\n",
			s, m / (k / 3); exit !(m / (k / 3) <= 1.2) }' \
		    "$top/shares" || missed="$missed spread"
		# The node that holds the fewest is restarted: its names go to
		# the others, and none comes back while they live.
		r=$(sort -k2,2n "$top/shares" | awk 'NR == 1 { print $1 }')
		elect_stop "$r" >/dev/null 2>&1
		t=$EPOCHREALTIME
		elect_start "$r" --metrics-file "$ELECT_DIR/m$r.prom"
		sleep 3
		back=$(awk -v t="$t" '$NF == "start" && $2 > t' \
		    "$ELECT_DIR/hold.$r" | wc -l)
		echo "restart of node $r: $back names moved back to it while" \
		    "their holders live (target 0)"
		[ "$back" = 0 ] || missed="$missed sticky"

		# ---- 3. failover ----
		failover daemon || missed="$missed failover"
		# The killed daemon back (its names stay where they went),
		# then the whole node of the largest holder.
		elect_start "$v" --metrics-file "$ELECT_DIR/m$v.prom"
		hold "$v" "$SPREAD"
		sleep "$SETTLE"
		failover node || missed="$missed failover-node"
	else
		echo "spread: the names were not all held within 60 s"
		missed="$missed spread"
	fi
	stop_holders
	elect_stop_all >/dev/null 2>&1
else
	missed="$missed spread"
fi

# ---- 4. etcd side by side ----

# etcdctl lock for NB_ETCD names (100) held across three clients against
# a three-member etcd on 127.0.0.1, its members as t/bench/lease.sh runs
# them (heartbeats of 10 ms, the smallest lock TTL etcdctl takes, 1 s):
# every client asks for every name (a loop per name and client, as a
# waiting --run-if-leader --wait would); the client holding the most is
# killed (its loops and its etcdctl processes, SIGKILL), and for each of
# its names the time until another client's command starts.
etcd_names() {
	local k=${NB_ETCD:-100} p i h n eps="" init="" t0 victim
	p=$(freeport -n 1 -w 6) || return 1
	for i in 1 2 3; do
		init="$init${init:+,}m$i=http://127.0.0.1:$((p + 2 * i - 1))"
		eps="$eps${eps:+,}http://127.0.0.1:$((p + 2 * i - 2))"
	done
	for i in 1 2 3; do
		etcd --name m$i --data-dir "$top/etcd$i" \
		    --listen-client-urls http://127.0.0.1:$((p + 2 * i - 2)) \
		    --advertise-client-urls http://127.0.0.1:$((p + 2 * i - 2)) \
		    --listen-peer-urls http://127.0.0.1:$((p + 2 * i - 1)) \
		    --initial-advertise-peer-urls http://127.0.0.1:$((p + 2 * i - 1)) \
		    --initial-cluster "$init" --initial-cluster-state new \
		    --heartbeat-interval 10 --election-timeout 50 \
		    >"$top/etcd$i.log" 2>&1 &
		ETCDS+=($!)
		disown $!	# killed by stop_etcd, said nothing of
	done
	for ((i = 0; i < 200; i++)); do
		ETCDCTL_API=3 etcdctl --endpoints="$eps" endpoint health \
		    >/dev/null 2>&1 && break
		sleep 0.1
	done
	: >"$top/etcdjobs"
	# A process group per client, its loops and their etcdctl in it.
	for h in 1 2 3; do
		setsid bash -c 'for ((n = 1; n <= $4; n++)); do
			while :; do
				ETCDCTL_API=3 etcdctl --endpoints="$1" lock \
				    --ttl 1 "name-$n" -- sh -c "echo $2 $n \$\$ \$(date +%s.%N) >>$3; exec sleep 100000"
			done &
		done
		wait' client "$eps" "$h" "$top/etcdjobs" "$k" \
		    </dev/null >/dev/null 2>&1 &
		ETCDS+=($!)
		eval "CLIENT_$h=$!"
		disown $!
	done
	for ((i = 0; i < 600; i++)); do
		n=$(awk '{ print $2 }' "$top/etcdjobs" | sort -u | wc -l)
		[ "$n" -ge "$k" ] && break
		sleep 0.1
	done
	if [ "$n" -lt "$k" ]; then
		echo "etcd: $n of $k names held within 60 s"
		return 1
	fi
	sleep 1
	victim=$(awk '{ h[$2] = $1 } END { for (n in h) c[h[n]]++
	    for (x in c) if (c[x] > m) { m = c[x]; v = x } print v }' \
	    "$top/etcdjobs")
	awk -v v="$victim" '{ h[$2] = $1 } END { for (n in h) if (h[n] == v)
	    print n }' "$top/etcdjobs" >"$top/etcdvictim"
	n=$(wc -l <"$top/etcdjobs")
	eval "h=\$CLIENT_$victim"
	t0=$EPOCHREALTIME
	kill -KILL -- "-$h" 2>/dev/null
	for ((i = 0; i < 200; i++)); do
		awk -v n0="$n" -v v="$victim" 'FILENAME == ARGV[1] { own[$1]; next }
		    FNR > n0 && $1 != v && ($2 in own) { s[$2] }
		    END { for (x in own) if (!(x in s)) exit 1 }' \
		    "$top/etcdvictim" "$top/etcdjobs" && break
		sleep 0.05
	done
	awk -v n0="$n" -v v="$victim" -v t="$t0" -v k="$k" '
	    FILENAME == ARGV[1] { own[$1]; held++; next }
	    FNR > n0 && $1 != v && ($2 in own) && !($2 in s) { s[$2] = $4 }
	    END {
		for (x in own) if (x in s) d[++m] = (s[x] - t) * 1000
		if (m == 0) { print "etcd: no name ran elsewhere"; exit 1 }
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
			if (d[j] < d[i]) { x = d[i]; d[i] = d[j]; d[j] = x }
		med = (m % 2) ? d[(m + 1) / 2] : (d[m / 2] + d[m / 2 + 1]) / 2
		r = int(0.99 * m); if (r < 0.99 * m) r++
		printf "etcd: etcdctl lock, %d names over 3 clients, TTL 1 s: " \
		    "SIGKILL of the client holding %d: started elsewhere " \
		    "median %.1f ms, p99 %.1f ms, %d not within 10 s\n",
		    k, held, med, d[r], held - m }' \
	    "$top/etcdvictim" "$top/etcdjobs"
}
stop_etcd() {
	local p
	for p in "${ETCDS[@]}"; do
		kill -KILL -- "-$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	# etcdctl leaves its commands running when it dies.
	for p in $(awk '{ print $3 }' "$top/etcdjobs" 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null
	done
	wait 2>/dev/null
	ETCDS=()
}

echo
if [ "${NB_ETCD:-100}" = 0 ]; then
	echo "etcd: NB_ETCD=0, not run"
elif command -v etcd >/dev/null && command -v etcdctl >/dev/null; then
	etcd_names || true
	stop_etcd
else
	echo "etcd: not installed (Debian: etcd-server etcd-client): the" \
	    "etcdctl lock failover side by side was not run"
fi

[ -z "$missed" ] || { echo "names: missed:$missed"; exit 1; }
