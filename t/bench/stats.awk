# The counting of elect-trace stats in awk, for the benchmark: elections
# from a boot, a crash or DownSig of the leader, or a node leaving Norm or
# following another leader, to all up nodes in Norm following one leader
# (not at the very line that started it); messages by type; then the count
# per algorithm.  (No lease traces.)
function settled(    i, l) {
	if (unsettled > 0 || nup == 0)
		return 0
	l = 0
	for (i in up) {
		if (!up[i])
			continue
		if (ldr[i] == "-" || (l != 0 && ldr[i] != l))
			return 0
		l = ldr[i]
	}
	return (up[l] && norm[l] && ldr[l] == l) ? l : 0
}
function set(n, u, nm) {
	nup -= up[n]; unsettled -= (up[n] && !norm[n])
	up[n] = u; norm[n] = nm
	nup += u; unsettled += (u && !nm)
}
function start(t) {
	if (open)
		return
	open = 1; number++; t0 = t; msgs = 0
	split("", bytype); split("", involved); nodes = 0
	elections[algo]++
}
$1 ~ /^#/ || NF == 0 { next }
{
	t = $1; n = $2; ev = $3; cause = 0
	if (ev == "boot") {
		set(n, 1, 0); ldr[n] = "-"; cause = 1
		for (i = 4; i <= NF; i++)
			if ($i ~ /^algo=/)
				algo = substr($i, 6)
	} else if (ev == "crash" || ev == "exit") {
		set(n, 0, 0); cause = (n == leader)
	} else if (ev == "fd") {
		cause = ($4 == "op=down" && $5 == "peer=" leader)
	} else if (ev == "state") {
		st = substr($4, 8); l = substr($5, 5)
		set(n, 1, st == "Norm"); ldr[n] = l
		cause = (st != "Norm" || l != leader)
	} else if (ev == "send" && open) {
		m = substr($5, 5); bytype[m]++; msgs++
	}
	opened = 0
	if (!open && cause) {
		start(t); opened = 1
	}
	if (!open)
		next
	if (!(n in involved)) {
		involved[n] = 1; nodes++
	}
	if (!opened && (l = settled()) != 0) {
		open = 0; leader = l; done[algo]++
		printf "%d %s %.9f %d %d %d", number, t0, t - t0, l, nodes, msgs
		for (m in bytype)
			printf " %s=%d", m, bytype[m]
		printf "\n"
	}
}
END {
	for (a in elections)
		printf "%s %d %d\n", a, elections[a], done[a]
}
