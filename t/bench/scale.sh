#!/bin/sh
# Messages per election and failover time against N, for every algorithm,
# beside the papers' analyses: the leader (the highest id) crashes once in
# a stable cluster, and elect-sim -S counts what is sent from the crash
# until every node agrees, and how long that takes (detection included:
# 20-50 ms, or as the scenario says).  Scenarios are the papers' own:
# the lowest id detecting first (-L) where they count that case, with
# detections 20 ms apart per rank where they count one detector.
# Murshed and Allen's --announce is off, as the papers have no such
# messages.
#
#	scale.sh [N ...]	(default 5 10 20 50 100 500 1000)
#
# SCALE_ALGOS names the rows to print (default: all).
set -eu
: "${ELECT_BUILD:?set ELECT_BUILD to a build directory}"
PATH="$ELECT_BUILD/bin:$PATH"
ns=${*:-5 10 20 50 100 500 1000}

# one ALGO N ARGS...: "MSGS MS" of the election after the crash.
one() {
	a=$1 n=$2
	shift 2
	case $a in
	modified-bully|enhanced-bully) set -- -t announce=0 "$@" ;;
	esac
	elect-sim -a "$a" -n "$n" -S "$@" 2>&1 >/dev/null |
	    sed -n 's/^agreed .* after crash .*(+\([0-9.]*\) ms) msgs=\([0-9]*\).*/\2 \1/p' |
	    head -1
}

# paper ALGO N: the papers' count.
paper() {
	awk -v a="$1" -v n="$2" 'BEGIN {
		c = int((n + 1) / 2)
		if (a == "bully") v = 9 * n - 17
		else if (a == "bully-fd") v = 3 * (n - 2)
		else if (a == "async-bully") v = sprintf("~%d", n * n / 2)
		else if (a == "async-bully-worst") v = sprintf("%d+O(N)", n * n)
		else if (a == "invitation") v = sprintf("%d..%d", n * n, 2 * n * n)
		else if (a == "modified-bully") v = 3 * n - 4
		else if (a == "enhanced-bully") v = sprintf("<=%d", 2 * n - 1)
		else if (a == "lease") v = sprintf("~%d", 3 * n)
		print v }'
}

printf '%-18s %5s %9s %12s %10s\n' algorithm N msgs paper failover
for a in ${SCALE_ALGOS:-bully bully-fd modified-bully enhanced-bully \
    async-bully async-bully-worst invitation lease}; do
	for n in $ns; do
		case $a in
		bully) r=$(one bully $n -d $((2 + n / 20)) -e "1.05 crash $n") ;;
		bully-fd) r=$(one bully-fd $n -d 3 -L -e "1.05 crash $n") ;;
		modified-bully) r=$(one modified-bully $n -d $((2 + n / 50)) -L \
		    -l 20:$((20 * n)) -e "1 crash $n") ;;
		enhanced-bully) r=$(one enhanced-bully $n -d $((2 + n / 50)) -L \
		    -l 20:$((20 * n)) -e "1 crash $n") ;;
		async-bully) r=$(one async-bully $n -d $((3 + n / 200)) \
		    -e "1.05 crash $n") ;;
		async-bully-worst) r=$(one async-bully $n -d $((3 + n / 50)) -L \
		    -l 20:$((20 * n)) -e "1.05 crash $n") ;;
		invitation) r=$(one invitation $n -d 3 -L -e "2 crash $n") ;;
		lease) r=$(one lease $n -d $((3 + n / 100)) -e "2 crash $n") ;;
		esac
		set -- $r
		printf '%-18s %5s %9s %12s %8s ms\n' $a $n "${1:--}" \
		    "$(paper $a $n)" "${2:--}"
	done
done
