#!/bin/bash
# fence-job.sh: the guarded job of t/fence.bats.  It writes "report" =
# "node N token T" to the store $STORE (pg, sqlite or file, in $T) and
# says how it went in $LOG ("N T wrote rc=RC"), then runs until it is
# stopped.  With DELAY=1 its write is one on its way: for PostgreSQL, a
# whole transaction in one message, held by the proxy in front of the
# server (t/tools/pg-hold.py, its port in $T/proxy.log); for SQLite and
# files, a writer that has its data and its token but waits at the gate
# $T/gate, in a session of its own, where the guard does not reach (as a
# process of a frozen host that is let go); that one says "N T waits" in
# $LOG and its outcome in $T/stale.out.  With CHECK=0 the write is made
# without the token check of the recipe.
v="node $ELECT_NODE token $ELECT_TOKEN"
case $STORE in
pg)
	export PGSSLMODE=disable PGGSSENCMODE=disable
	where=(-h "$PG")
	[ "$DELAY" = 1 ] &&
	    where=(-h 127.0.0.1 -p "$(sed -n 's/^port //p' "$T/proxy.log")")
	sql="INSERT INTO data VALUES ('report', :'v')
	    ON CONFLICT (k) DO UPDATE SET v = excluded.v;"
	# psql sends a file's statements one at a time (a transaction cut
	# off midway is rolled back); \; makes them one message, a whole
	# transaction that can arrive late.
	[ "$CHECK" = 1 ] && sql="SELECT elect_fence(:'token') \\; $sql"
	rc=0
	printf '%s\n' "$sql" | psql -X -q -v ON_ERROR_STOP=1 -U postgres \
	    "${where[@]}" -v token="$ELECT_TOKEN" -v v="$v" postgres \
	    >/dev/null || rc=$?
	echo "$ELECT_NODE $ELECT_TOKEN wrote rc=$rc" >>"$LOG" ;;
sqlite)
	ins="INSERT INTO data VALUES ('report', '$v')
	    ON CONFLICT (k) DO UPDATE SET v = excluded.v"
	if [ "$CHECK" = 1 ]; then
		w=(sqlite3 "$T/store.db" ".parameter set :token $ELECT_TOKEN"
		    ".read $FENCE/sqlite-take.sql" "$ins" COMMIT)
	else
		w=(sqlite3 "$T/store.db" "$ins")
	fi ;;
file)
	if [ "$CHECK" = 1 ]; then
		w=(elect-fence -d "$T/out" -r report)
	else
		w=(sh -c 'cat >"$1/report"' - "$T/out")
	fi ;;
esac
if [ "$STORE" != pg ] && [ "$DELAY" = 1 ]; then
	# The gate opened for reading and writing, which does not block,
	# and waited at for 120 s at most, whatever becomes of the test.
	V=$v setsid bash -c 'exec 3<>"$T/gate"
	read -r -t 120 go <&3 || exit 0
	[ "$go" = go ] || exit 0
	rc=0
	printf "%s\n" "$V" | "$@" >>"$T/stale.out" 2>&1 || rc=$?
	echo "rc=$rc" >>"$T/stale.out"' _ "${w[@]}" </dev/null >/dev/null 2>&1 &
	echo "$ELECT_NODE $ELECT_TOKEN waits" >>"$LOG"
elif [ "$STORE" != pg ]; then
	rc=0
	printf '%s\n' "$v" | "${w[@]}" || rc=$?
	echo "$ELECT_NODE $ELECT_TOKEN wrote rc=$rc" >>"$LOG"
fi
while :; do sleep 0.05; done
