#!/usr/bin/env bats
# The fencing recipes of share/elect/fence (elect-fencing(7)) and
# elect-fence(1), against the case fencing exists for: a leader's write
# already on its way when its daemon dies and its job is killed, which
# arrives after the next leader has written.  Each store is run with the
# token check and, as a control, without it: the stale write must be
# refused with it, and land without it, or the test proves nothing.

bats_require_minimum_version 1.5.0

load helper
load node

FENCE=$BATS_TEST_DIRNAME/../share/elect/fence

setup() {
	jobs_setup
	T=$BATS_TEST_TMPDIR
	PGPID=
	PGROOT=
	# The server's directory and socket (pg_start).
	PG=$T/pg
	export T FENCE PG
	mkfifo "$T/gate"
}

teardown() {
	local fd
	# A delayed writer still waiting at the gate is let go, unwritten:
	# the gate opened for reading and writing does not block.
	exec {fd}<>"$T/gate"
	echo quit >&$fd
	exec {fd}>&-
	jobs_teardown
	if [ -n "$PGPID" ]; then
		kill_own INT "$PGPID"
		wait "$PGPID" 2>/dev/null
	fi
	[ -z "$PGROOT" ] || rm -rf "$PGROOT"
}

# The guarded job: t/tools/fence-job.sh.
FJOB=$BATS_TEST_DIRNAME/tools/fence-job.sh

# fguard ID DELAY: node ID runs FJOB when it leads.
fguard() {
	DELAY=$2 setsid elect-node -s "$ELECT_DIR/$1/state" --run-if-leader \
	    --wait --grace $GRACE -t "$ELECT_DIR/$1/task.trace" -- \
	    bash "$FJOB" </dev/null >>"$ELECT_DIR/$1/job.out" \
	    2>>"$ELECT_DIR/$1/job.err" 3>&- &
	GUARDS+=($!)
	disown $!
}

# pg_start: a PostgreSQL cluster of the test's own, run by the user
# postgres with its socket in $PG, holding the recipe and a table
# data (k, v).
pg_start() {
	local bin
	[ "$(id -u)" = 0 ] ||
	    skip "a PostgreSQL cluster of the test's own needs root (initdb and postgres run as the user postgres)"
	bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[ -x "$bin/initdb" ] && id postgres >/dev/null ||
	    fail "no PostgreSQL server (Debian's postgresql, in the Makefile's PKGS)"
	# The user postgres must reach its directory: one of the test's own
	# that others may pass through, not bats's.
	PGROOT=$(mktemp -d "${TMPDIR:-/tmp}/elect-pg.XXXXXX")
	chmod 711 "$PGROOT"
	PG=$PGROOT/pg
	mkdir "$PG"
	chown postgres "$PG"
	setpriv --reuid=postgres --regid=postgres --init-groups -- \
	    "$bin/initdb" -D "$PG/data" -A trust -U postgres --no-sync \
	    -E UTF8 --locale=C >"$T/initdb.log" 2>&1 ||
	    fail "initdb: $(tail -n 5 "$T/initdb.log")"
	setpriv --reuid=postgres --regid=postgres --init-groups -- \
	    "$bin/postgres" -D "$PG/data" -k "$PG" -c listen_addresses= \
	    -c fsync=off </dev/null >"$T/pg.log" 2>&1 3>&- &
	PGPID=$!
	wait_for 30 pg_isready -q -h "$PG" ||
	    fail "postgres does not answer: $(tail -n 5 "$T/pg.log")"
	PSQL=(psql -X -q -v ON_ERROR_STOP=1 -U postgres -h "$PG" postgres)
	"${PSQL[@]}" -f "$FENCE/postgres.sql" 2>/dev/null
	"${PSQL[@]}" -c "CREATE TABLE data (k text PRIMARY KEY, v text)"
}

# The proxy that holds node 3's write: "port P" in $T/proxy.log.
proxy_start() {
	python3 "$BATS_TEST_DIRNAME/tools/pg-hold.py" "$PG/.s.PGSQL.5432" \
	    "$T/proxy.log" 3>&- &
	PROXY=$!
	PIDS+=($PROXY)
	wait_for 10 grep -qs '^port ' "$T/proxy.log"
}

# report: the value of "report" in the store.
report() {
	case $STORE in
	pg) "${PSQL[@]}" -At -c "SELECT v FROM data WHERE k = 'report'" ;;
	sqlite) sqlite3 "$T/store.db" "SELECT v FROM data WHERE k = 'report'" ;;
	file) cat "$T/out/report" ;;
	esac
}

# stale STORE CHECK: node 3 leads and its job's write is delayed; its
# daemon is SIGKILLed, the guard kills the job, node 2 leads and its job
# writes; then node 3's write arrives.  Leaves the tokens in T3 and T2.
stale() {
	export STORE=$1 CHECK=$2
	case $STORE in
	pg) pg_start; proxy_start ;;
	sqlite)
		sqlite3 "$T/store.db" <"$FENCE/sqlite.sql"
		sqlite3 "$T/store.db" "CREATE TABLE data (k TEXT PRIMARY KEY, v TEXT)" ;;
	file) mkdir "$T/out" ;;
	esac
	C=$(mkcluster 3)
	elect_start_cluster -k "$(mkkey "$BATS_TEST_TMPDIR/key")" "${TIMING[@]}" "$C"
	assert_equal "$(elect_wait_leader 20)" 3
	fguard 3 1
	fguard 2 0
	# Node 3's write is on its way.
	if [ "$STORE" = pg ]; then
		wait_for 20 grep -q '^held ' "$T/proxy.log"
	else
		wait_for 20 grep -q '^3 [0-9]* waits$' "$LOG"
	fi
	T3=$(sed -n 's/.* task op=start .*token=\([0-9]*\).*/\1/p' \
	    "$ELECT_DIR/3/task.trace")
	elect_kill 3
	# The guard stopped node 3's job, SIGKILLed its group and released
	# the lease: node 2 leads and writes with its own token.
	wait_for 20 grep -q 'lease released on its behalf' "$ELECT_DIR/3/job.err"
	wait_for 20 grep -q '^2 [0-9]* wrote rc=0$' "$LOG"
	T2=$(awk '$1 == 2 { print $2; exit }' "$LOG")
	[ "$T2" -gt "$T3" ]
	assert_equal "$(report)" "node 2 token $T2"
	# Node 3's job is dead, its write never answered; it arrives now.
	run grep "^3 " "$LOG"
	if [ "$STORE" = pg ]; then refute_output; else assert_output "3 $T3 waits"; fi
	if [ "$STORE" = pg ]; then
		kill_own USR1 "$PROXY"
		wait_for 20 grep -q '^closed$' "$T/proxy.log"
		cat "$T/proxy.log"
	else
		echo go >"$T/gate"
		wait_for 20 grep -q '^rc=' "$T/stale.out"
		cat "$T/stale.out"
	fi
}

@test "fence: PostgreSQL refuses a killed leader's write that arrives after the next leader's" {
	stale pg 1
	run cat "$T/proxy.log"
	assert_line "server error elect_fence: stale token $T3 refused: leadership \"-\" has accepted $T2"
	refute_line --partial "server done"
	assert_equal "$(report)" "node 2 token $T2"
	run "${PSQL[@]}" -At -c "SELECT name, token FROM elect_fence"
	assert_output "-|$T2"
}

@test "fence: PostgreSQL control: without the check the late write lands over the next leader's" {
	stale pg 0
	run cat "$T/proxy.log"
	assert_line "server done INSERT 0 1"
	refute_line --partial "server error"
	assert_equal "$(report)" "node 3 token $T3"
}

@test "fence: SQLite refuses a killed leader's write that arrives after the next leader's" {
	stale sqlite 1
	run cat "$T/stale.out"
	assert_line --partial "elect_fence: stale token refused"
	assert_line rc=1
	assert_equal "$(report)" "node 2 token $T2"
	assert_equal "$(sqlite3 "$T/store.db" "SELECT name, token FROM elect_fence")" "-|$T2"
}

@test "fence: SQLite control: without the check the late write lands over the next leader's" {
	stale sqlite 0
	run cat "$T/stale.out"
	assert_output rc=0
	assert_equal "$(report)" "node 3 token $T3"
}

@test "fence: elect-fence refuses a killed leader's file that arrives after the next leader's" {
	stale file 1
	run cat "$T/stale.out"
	assert_line "elect-fence: report: token $T3 refused: $T/out has accepted $T2 for leadership -"
	assert_line rc=1
	assert_equal "$(report)" "node 2 token $T2"
	run elect-fence -d "$T/out" -q
	assert_output "$T2"
	# Nothing of the refused write is left in the directory.
	run ls -A "$T/out"
	assert_output $'.elect-fence\n.elect-fence.lock\nreport'
}

@test "fence: files control: without the check the late file lands over the next leader's" {
	stale file 0
	run cat "$T/stale.out"
	assert_output rc=0
	assert_equal "$(report)" "node 3 token $T3"
}

@test "elect-fence: appends and replaces for a token no older than the last; each name fences alone" {
	D=$T/d
	mkdir "$D"
	run elect-fence -d "$D" -q
	assert_equal "$output" -
	echo a | elect-fence -d "$D" -t 5 log
	echo b | ELECT_TOKEN=5 elect-fence -d "$D" log
	run -1 elect-fence -d "$D" -t 4 log <<<c
	assert_output "elect-fence: log: token 4 refused: $D has accepted 5 for leadership -"
	echo d | elect-fence -d "$D" -t 6 -r snap
	run -1 elect-fence -d "$D" -t 5 -r snap <<<e
	assert_equal "$(cat "$D/log")" $'a\nb'
	assert_equal "$(cat "$D/snap")" d
	# Another leadership's name has a fence of its own; no file: the
	# fence alone is taken.
	elect-fence -d "$D" -n backup -t 2
	run -1 elect-fence -d "$D" -n backup -t 1
	run elect-fence -d "$D" -n backup -q
	assert_output 2
	assert_equal "$(cat "$D/.elect-fence")" $'- 6\nbackup 2'
	run ls -A "$D"
	assert_output $'.elect-fence\n.elect-fence.lock\nlog\nsnap'
}

@test "elect-fence: no symbolic link followed, no fence file it cannot read trusted, bad usage refused" {
	D=$T/d
	mkdir "$D"
	echo secret >"$T/victim"
	ln -s "$T/victim" "$D/link"
	run -3 elect-fence -d "$D" -t 1 link <<<x
	assert_output --partial "$D/link: Too many levels of symbolic links"
	assert_equal "$(cat "$T/victim")" secret
	# Nor raised its fence for a write it did not make.
	run elect-fence -d "$D" -q
	assert_equal "$output" -
	ln -s "$D" "$T/dlink"
	run -3 elect-fence -d "$T/dlink" -t 1 f <<<x
	ln -s "$T/victim" "$D/.elect-fence"
	run -3 elect-fence -d "$D" -t 1 f <<<x
	rm "$D/.elect-fence"
	printf -- '- 7\n- 9\n' >"$D/.elect-fence"
	run -3 elect-fence -d "$D" -t 8 f <<<x
	assert_output --partial "not a fence file"
	[ ! -e "$D/f" ]
	rm "$D/.elect-fence"
	run -2 elect-fence -d "$D" f </dev/null
	assert_output --partial "no token"
	run -2 elect-fence -d "$D" -t 1x f </dev/null
	run -2 elect-fence -d "$D" -t 1 ../f </dev/null
	run -2 elect-fence -d "$D" -t 1 .elect-fence </dev/null
	run -2 elect-fence -d "$D" -t 1 -n 'a b'
	run -2 elect-fence -t 1 f
	run -0 elect-fence --help
	assert_output --partial "usage: elect-fence"
	run -0 elect-fence --version
	assert_output --regexp '^elect-fence [0-9.]+$'
}

@test "elect-fence: writers at once with tokens in any order: what it took never goes back" {
	local i pids=()
	D=$T/d
	mkdir "$D"
	for ((i = 0; i < 40; i++)); do
		echo "$(( (i * 7919) % 23 ))" | elect-fence -d "$D" -t $(( (i * 7919) % 23 )) log \
		    2>/dev/null 3>&- &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || true; done
	# The tokens appended never decrease, and the highest is the fence.
	run awk 'NR > 1 && $1 < p { print "down at line " NR } { p = $1 }' "$D/log"
	refute_output
	assert_equal "$(elect-fence -d "$D" -q)" 22
	[ "$(tail -n 1 "$D/log")" = 22 ]
}

@test "fence: SQLite and PostgreSQL: each leadership's name fences its own row; no token, no write" {
	local take=$FENCE/sqlite-take.sql db=$T/s.db
	sqlite3 "$db" <"$FENCE/sqlite.sql"
	sqlite3 "$db" <"$FENCE/sqlite.sql"
	sqlite3 "$db" "CREATE TABLE w (v TEXT)"
	sqlite3 "$db" ".parameter set :token 5" ".read $take" "INSERT INTO w VALUES ('a5')" COMMIT
	sqlite3 "$db" ".parameter set :token 3" ".parameter set :name backup" ".read $take" "INSERT INTO w VALUES ('b3')" COMMIT
	run -1 sqlite3 "$db" ".parameter set :token 4" ".read $take" "INSERT INTO w VALUES ('a4')" COMMIT
	assert_output --partial "elect_fence: stale token refused"
	run -1 sqlite3 "$db" ".read $take" "INSERT INTO w VALUES ('none')" COMMIT
	run -1 sqlite3 "$db" ".parameter set :token x5" ".read $take" "INSERT INTO w VALUES ('x5')" COMMIT
	sqlite3 "$db" ".parameter set :token 3" ".parameter set :name backup" ".read $take" "INSERT INTO w VALUES ('b3 again')" COMMIT
	assert_equal "$(sqlite3 "$db" "SELECT v FROM w" | paste -sd,)" "a5,b3,b3 again"
	assert_equal "$(sqlite3 "$db" "SELECT name, token FROM elect_fence ORDER BY name" | paste -sd,)" "-|5,backup|3"

	pg_start
	"${PSQL[@]}" -f "$FENCE/postgres.sql" 2>/dev/null
	"${PSQL[@]}" -c "CREATE TABLE w (v text)"
	printf '%s\n' "SELECT elect_fence(:'token');" "INSERT INTO w VALUES (:'v');" >"$T/job.sql"
	"${PSQL[@]}" -v token=5 -v v=a5 -1 -f "$T/job.sql" >/dev/null
	printf '%s\n' "SELECT elect_fence(:'token', 'backup');" "INSERT INTO w VALUES (:'v');" >"$T/named.sql"
	"${PSQL[@]}" -v token=3 -v v=b3 -1 -f "$T/named.sql" >/dev/null
	run -3 "${PSQL[@]}" -v token=4 -v v=a4 -1 -f "$T/job.sql"
	assert_output --partial 'elect_fence: stale token 4 refused: leadership "-" has accepted 5'
	run -3 "${PSQL[@]}" -v token= -v v=none -1 -f "$T/job.sql"
	run -3 "${PSQL[@]}" -v v=none -1 -f "$T/job.sql"
	run -1 "${PSQL[@]}" -c "SELECT elect_fence(NULL)"
	assert_output --partial "elect_fence: no token"
	assert_equal "$("${PSQL[@]}" -At -c "SELECT string_agg(v, ',') FROM w")" "a5,b3"
	assert_equal "$("${PSQL[@]}" -At -c "SELECT string_agg(name || '|' || token, ',' ORDER BY name) FROM elect_fence")" "-|5,backup|3"
	# ON_ERROR_STOP: the refused fence ends the session there.
	run "${PSQL[@]}" -At -c "SELECT 1" -c "SELECT elect_fence(4)" -c "SELECT 2"
	assert_failure
	assert_line --index 0 1
	assert_line --partial 'elect_fence: stale token 4 refused'
	refute_line 2
}
