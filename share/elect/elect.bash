# elect.bash: start, break and check local elect clusters from bats tests.
# See elect.bash(7).  Load it from a bats file:
#
#	load /usr/local/share/elect/elect.bash
#	setup()    { elect_setup; }
#	teardown() { elect_teardown; }
#	@test "a new leader after the old one dies" {
#		elect_start_cluster --insecure -a bully-fd cluster.conf
#		old=$(elect_wait_leader 5)
#		elect_kill "$old"
#		new=$(elect_wait_leader 5)
#		[ "$new" != "$old" ]
#		elect_stop_all
#		elect_check
#	}
#
# Every node runs in its own process group (with its elect-fd), with its
# own state directory and trace file under $ELECT_DIR/ID/.  Processes are
# signalled by process id only.  What the helper does to the nodes (kill,
# pause, resume, partition) it writes to $ELECT_DIR/harness.trace, so that
# the merged trace tells elect-check what happened.

: "${ELECT_NODE:=elect-node}"
: "${ELECT_CHECK:=elect-check}"
ELECT_DIR=
ELECT_CLUSTER=
ELECT_NETNS=
ELECT_IDS=()
ELECT_ARGS=()
declare -gA ELECT_PID=() ELECT_STATE=() ELECT_PORTS=() ELECT_CLUSTER_OF=()
ELECT_CUTS=0

# elect_setup [DIR]: a fresh directory for the cluster (default: under the
# test's temporary directory).
elect_setup() {
	ELECT_DIR=${1:-${BATS_TEST_TMPDIR:-$(mktemp -d)}/elect}
	mkdir -p "$ELECT_DIR"
	: >"$ELECT_DIR/harness.trace"
	ELECT_IDS=() ELECT_ARGS=() ELECT_NETNS= ELECT_CUTS=0
	ELECT_PID=() ELECT_STATE=() ELECT_PORTS=() ELECT_CLUSTER_OF=()
}

_elect_now() { date +%s.%N; }

# _elect_log NODE EVENT [KEY=VALUE ...]: a harness line of the trace.
_elect_log() {
	local node=$1
	shift
	printf '%s %s %s\n' "$(_elect_now)" "$node" "$*" \
	    >>"$ELECT_DIR/harness.trace"
}

_elect_fail() {
	echo "elect.bash: $*" >&2
	return 1
}

# The ids and ports of the cluster file: "ID PORT FDPORT" lines.  Only
# what the helper needs (ids, and ports for partitions); elect-node
# itself checks the file strictly.
_elect_nodes() {
	sed 's/#.*//' "$1" | awk '$1 == "node" {
		n = split($3, hp, ":"); port = hp[n]; fd = port + 1
		for (i = 4; i <= NF; i++)
			if ($i ~ /^fd=/) fd = substr($i, 4)
		print $2, port, fd
	}'
}

# elect_start_cluster [--netns] [ELECT-NODE FLAGS...] CLUSTER [-- IDS...]:
# starts the nodes of CLUSTER (or only IDS), each with the flags given
# (e.g. -a bully-fd --insecure).  --netns runs the cluster in a network
# namespace of its own (root only), which elect_partition needs.  A node
# whose id has an entry in ELECT_CLUSTER_OF reads that file instead: the
# same nodes, its peers perhaps at other addresses (a relay's).
elect_start_cluster() {
	local args=() ids=() id port fd
	[ -n "$ELECT_DIR" ] || elect_setup
	if [ "${1:-}" = --netns ]; then
		shift
		[ "$(id -u)" = 0 ] || _elect_fail "--netns needs root" ||
		    return
		ELECT_NETNS=elect-$$-$RANDOM
		ip netns add "$ELECT_NETNS" &&
		    ip -n "$ELECT_NETNS" link set lo up || return
	fi
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift && ids=("$@")
	[ ${#args[@]} -gt 0 ] || _elect_fail "no cluster file" || return
	ELECT_CLUSTER=${args[-1]}
	unset 'args[-1]'
	ELECT_ARGS=("${args[@]}")
	[ -r "$ELECT_CLUSTER" ] || _elect_fail "$ELECT_CLUSTER: not readable" ||
	    return
	ELECT_IDS=()
	while read -r id port fd; do
		ELECT_IDS+=("$id")
		ELECT_PORTS[$id]="$port $fd"
	done < <(_elect_nodes "$ELECT_CLUSTER")
	[ ${#ids[@]} -gt 0 ] || ids=("${ELECT_IDS[@]}")
	# All at once, as a cluster boots; then wait for each.
	for id in "${ids[@]}"; do
		_elect_launch "$id" || return
	done
	for id in "${ids[@]}"; do
		_elect_ready "$id" || return
	done
}

# elect_start ID [EXTRA FLAGS...]: starts (or restarts) node ID.
elect_start() {
	_elect_launch "$@" && _elect_ready "$1"
}

# Starts node ID in the background.
_elect_launch() {
	local id=$1 dir pid ns=()
	shift
	dir=$ELECT_DIR/$id
	mkdir -p "$dir"
	[ "${ELECT_STATE[$id]:-down}" = down ] ||
	    _elect_fail "node $id is already running" || return
	[ -n "$ELECT_NETNS" ] && ns=(ip netns exec "$ELECT_NETNS")
	# setsid: a process group of its own, shared with its elect-fd, so a
	# pause stops both; 3>&-: bats must not wait for the node.
	"${ns[@]}" setsid "$ELECT_NODE" \
	    -f "${ELECT_CLUSTER_OF[$id]:-$ELECT_CLUSTER}" -i "$id" \
	    -s "$dir/state" -t "$dir/trace" "${ELECT_ARGS[@]}" "$@" \
	    </dev/null >>"$dir/stdout" 2>>"$dir/stderr" 3>&- &
	pid=$!
	# Ours to signal and watch, not the shell's to report.
	disown "$pid"
	ELECT_PID[$id]=$pid
	ELECT_STATE[$id]=up
}

# Waits until node ID answers on its control socket (at most 10 s); fails
# with the end of its standard error if it exited.
_elect_ready() {
	local id=$1 dir=$ELECT_DIR/$1 i rc
	for ((i = 0; i < 500; i++)); do
		rc=3
		if [ -S "$dir/state/control" ]; then
			rc=0
			elect_status "$id" >/dev/null 2>&1 || rc=$?
		fi
		[ "$rc" -le 1 ] || [ "$rc" = 4 ] && return 0
		if ! _elect_alive "${ELECT_PID[$id]}"; then
			ELECT_STATE[$id]=down
			_elect_fail "node $id did not start: $(tail -n 3 \
			    "$dir/stderr")"
			return
		fi
		sleep 0.02
	done
	_elect_fail "node $id did not answer within 10 seconds"
}

# Whether process PID runs (a zombie does not).
_elect_alive() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ "$st" != Z ]
}

# Waits (at most 10 s) until process PID is gone.
_elect_reap() {
	local pid=$1 i
	for ((i = 0; i < 500; i++)); do
		_elect_alive "$pid" || return 0
		sleep 0.02
	done
	_elect_fail "process $pid does not go away"
}

_elect_running() {
	[ "${ELECT_STATE[$1]:-down}" != down ] ||
	    _elect_fail "node $1 is not running"
}

# _elect_frozen PGID: every process of the group is stopped (SIGSTOP
# delivered, not only sent), waiting up to 5 s.
_elect_frozen() {
	local pgid=$1 i
	for ((i = 0; i < 250; i++)); do
		ps -e -o pgid= -o stat= |
		    awk -v g="$pgid" '$1 == g && $2 !~ /^T/ { busy = 1 }
			END { exit busy }' && return 0
		sleep 0.02
	done
	_elect_fail "process group $pgid does not stop"
}

# elect_kill ID: SIGKILL node ID and its detector (a crash).  The crash
# line must come before anything the next leader writes: the node is
# frozen first, so that it writes nothing after the line, then the line
# is stamped, then the node is killed.
elect_kill() {
	local id=$1
	_elect_running "$id" || return
	if [ "${ELECT_STATE[$id]}" != paused ]; then
		kill -STOP -- "-${ELECT_PID[$id]}" 2>/dev/null
		_elect_frozen "${ELECT_PID[$id]}"
	fi
	_elect_log "$id" crash
	kill -KILL -- "-${ELECT_PID[$id]}" 2>/dev/null
	_elect_reap "${ELECT_PID[$id]}"
	ELECT_STATE[$id]=down
}

# elect_stop ID: SIGTERM, the node leaves on purpose.
elect_stop() {
	local id=$1
	_elect_running "$id" || return
	if [ "${ELECT_STATE[$id]}" = paused ]; then
		elect_resume "$id"
	fi
	kill -TERM "${ELECT_PID[$id]}" 2>/dev/null
	if ! _elect_reap "${ELECT_PID[$id]}"; then
		elect_kill "$id"
		return 1
	fi
	ELECT_STATE[$id]=down
}

# elect_pause ID / elect_resume ID: SIGSTOP / SIGCONT the node and its
# detector, as if the host froze.
elect_pause() {
	local id=$1
	_elect_running "$id" || return
	kill -STOP -- "-${ELECT_PID[$id]}"
	_elect_frozen "${ELECT_PID[$id]}"
	ELECT_STATE[$id]=paused
	_elect_log "$id" pause
}

elect_resume() {
	local id=$1
	[ "${ELECT_STATE[$id]:-}" = paused ] ||
	    _elect_fail "node $id is not paused" || return
	_elect_log "$id" resume
	kill -CONT -- "-${ELECT_PID[$id]}"
	ELECT_STATE[$id]=up
}

# elect_restart ID: a crash and a recovery.
elect_restart() {
	elect_kill "$1" && elect_start "$@"
}

# elect_status ID: the node's status line; exit 0 if it leads, 1 if it
# follows a leader, 4 if it knows none, 3 if it does not answer.
elect_status() {
	"$ELECT_NODE" -s "$ELECT_DIR/$1/state" --status
}

# elect_up: the ids of the nodes running and not paused.
elect_up() {
	local id out=()
	for id in "${ELECT_IDS[@]}"; do
		[ "${ELECT_STATE[$id]:-down}" = up ] && out+=("$id")
	done
	echo "${out[@]}"
}

# _elect_agree IDS...: prints the leader when every node of IDS is Norm
# and follows the same leader, which is one of IDS.
_elect_agree() {
	local id line ldr= l
	for id; do
		line=$(elect_status "$id" 2>/dev/null)
		[[ " $line " == *" status=Norm "* ]] || return 1
		l=${line##* leader=}
		l=${l%% *}
		[ -z "$ldr" ] && ldr=$l
		[ "$l" = "$ldr" ] || return 1
	done
	[[ " $* " == *" $ldr "* ]] || return 1
	echo "$ldr"
}

# elect_wait_leader [-l LEADER] [SECONDS [IDS...]]: waits until the nodes
# IDS (by default every node running and not paused) agree on a leader
# among them (on LEADER, with -l); prints it.  Fails after SECONDS
# (default 10) with their statuses.
elect_wait_leader() {
	local want= secs ids i ldr
	if [ "${1:-}" = -l ]; then
		want=$2
		shift 2
	fi
	secs=${1:-10}
	[ $# -gt 0 ] && shift
	for ((i = 0; i < secs * 20; i++)); do
		if [ $# -gt 0 ]; then ids=("$@"); else read -ra ids <<<"$(elect_up)"; fi
		if [ ${#ids[@]} -gt 0 ] && ldr=$(_elect_agree "${ids[@]}") &&
		    { [ -z "$want" ] || [ "$ldr" = "$want" ]; }; then
			echo "$ldr"
			return 0
		fi
		sleep 0.05
	done
	echo "elect.bash: no agreed leader${want:+ $want} among ${ids[*]} after $secs s:" >&2
	for i in "${ids[@]}"; do
		echo "  $i: $(elect_status "$i" 2>&1)" >&2
	done
	return 1
}

# elect_partition "IDS" "IDS" ...: cuts every link between nodes of
# different groups (needs --netns); elect_heal joins them again.
elect_partition() {
	local a b i j x y
	[ -n "$ELECT_NETNS" ] ||
	    _elect_fail "elect_partition needs elect_start_cluster --netns" ||
	    return
	_elect_nft add table inet elect
	_elect_nft add chain inet elect out \
	    '{ type filter hook output priority 0; policy accept; }'
	local groups=("$@")
	for ((i = 0; i < ${#groups[@]}; i++)); do
		for ((j = 0; j < ${#groups[@]}; j++)); do
			[ $i = $j ] && continue
			for x in ${groups[i]}; do
				for y in ${groups[j]}; do
					_elect_cut "$x" "$y" || return
					[ $i -lt $j ] &&
					    _elect_log - net "a=$x b=$y link=down"
				done
			done
		done
	done
}

_elect_nft() {
	ip netns exec "$ELECT_NETNS" nft "$@"
}

# Drops every datagram from node X's ports to node Y's ports.
_elect_cut() {
	local px py
	px=$(echo "${ELECT_PORTS[$1]}" | tr ' ' ',')
	py=$(echo "${ELECT_PORTS[$2]}" | tr ' ' ',')
	_elect_nft add rule inet elect out udp sport "{ $px }" \
	    udp dport "{ $py }" drop
	ELECT_CUTS=1
}

elect_heal() {
	local x y
	[ "$ELECT_CUTS" = 1 ] || return 0
	_elect_nft delete table inet elect
	ELECT_CUTS=0
	for x in "${ELECT_IDS[@]}"; do
		for y in "${ELECT_IDS[@]}"; do
			[ "$x" -lt "$y" ] && _elect_log - net "a=$x b=$y link=up"
		done
	done
	return 0
}

# elect_stop_all: every running node leaves with SIGTERM, all at once.
elect_stop_all() {
	local id rc=0 ids=()
	for id in "${ELECT_IDS[@]}"; do
		case ${ELECT_STATE[$id]:-down} in
		down) continue ;;
		paused) elect_resume "$id" ;;
		esac
		kill -TERM "${ELECT_PID[$id]}" 2>/dev/null
		ids+=("$id")
	done
	for id in "${ids[@]}"; do
		if _elect_reap "${ELECT_PID[$id]}"; then
			ELECT_STATE[$id]=down
		else
			elect_kill "$id"
			rc=1
		fi
	done
	return $rc
}

# elect_merge [OUT]: the nodes' traces and the harness's, merged by time,
# to OUT or stdout.  With elect-trace, `elect-trace merge'; without it, a
# stable numeric sort on the time field, which is the same for these
# files.
elect_merge() {
	local files=("$ELECT_DIR/harness.trace") id
	for id in "${ELECT_IDS[@]}"; do
		[ -f "$ELECT_DIR/$id/trace" ] && files+=("$ELECT_DIR/$id/trace")
	done
	if command -v elect-trace >/dev/null &&
	    elect-trace merge /dev/null >/dev/null 2>&1; then
		elect-trace merge "${files[@]}" >"${1:-/dev/stdout}"
	else
		sort -s -n -k1,1 "${files[@]}" >"${1:-/dev/stdout}"
	fi
}

# elect_check [ELECT-CHECK FLAGS...]: merges the traces into
# $ELECT_DIR/merged.trace and runs elect-check on it; prints its verdict,
# returns its status.
elect_check() {
	elect_merge "$ELECT_DIR/merged.trace" || return 2
	"$ELECT_CHECK" "$@" "$ELECT_DIR/merged.trace" 2>&1
}

# elect_teardown: kills whatever still runs, removes the namespace.
elect_teardown() {
	local id
	for id in "${!ELECT_PID[@]}"; do
		[ "${ELECT_STATE[$id]:-down}" = down ] && continue
		kill -KILL -- "-${ELECT_PID[$id]}" 2>/dev/null
		_elect_reap "${ELECT_PID[$id]}"
		ELECT_STATE[$id]=down
	done
	if [ -n "$ELECT_NETNS" ]; then
		ip netns del "$ELECT_NETNS" 2>/dev/null
		ELECT_NETNS=
	fi
	return 0
}
