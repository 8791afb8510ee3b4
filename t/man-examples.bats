#!/usr/bin/env bats
# The EXAMPLES of every manual page, run as written, so that none can rot.
#
# An example is a .Dl line or a .Bd ... .Ed block of a page's EXAMPLES
# section.  Its commands: the .Dl line, or each line of the block with a
# prompt ($ or #), and the lines its trailing \e continues; a block's
# other lines are output or a file's text.  The roff comment right before
# an example says how it is run:
#
#	.\" example: exit N		it exits N (without a comment: 0)
#	.\" example: not run: WHY	not run; WHY is printed with the test
#
# An example that needs a cluster, root, the network or a running node is
# marked not run; an example with no command and no such comment fails.
# The commands of one example run in one bash (errexit, pipefail), in a
# directory of their own holding the files the examples name: run.trace
# (a simulated bully run in which node 5 crashes), node1.trace ...
# node5.trace (its lines by node) and theorem2.trace (elect-check's
# fixture).  A campaign of more than 20 runs runs 20, the same command
# otherwise: the runs beyond are the same code under other seeds, and
# minutes of them would not fit the suite.

load helper

CAMPAIGN_MAX=20

# extract PAGE DIR: each example of PAGE as DIR/N.sh (its commands) and
# DIR/N.meta (PAGE:LINE, a tab, the comment's word or "").
extract() {
	awk -v page="$1" -v dir="$2" -v n0="$(find "$2" -name '*.meta' | wc -l)" '
	function unroff(s) {
		gsub(/\\e/, "\001", s); gsub(/\\&/, "", s)
		gsub(/\\\(mi/, "-", s); gsub(/\\-/, "-", s)
		gsub(/\001/, "\\", s)
		return s
	}
	function prompt(s) { return s ~ /^[$#] / }
	function emit(line, cmds) {
		n++
		printf "%s", cmds > (dir "/" n0 + n ".sh")
		printf "%s:%d\t%s\n", page, line, mark > (dir "/" n0 + n ".meta")
		close(dir "/" n0 + n ".sh"); close(dir "/" n0 + n ".meta")
		mark = ""
	}
	/^\.Sh / { ex = ($0 == ".Sh EXAMPLES"); next }
	!ex { next }
	/^\.\\" example: / { mark = substr($0, length(".\\\" example: ") + 1); next }
	inblock && /^\.Ed/ { inblock = 0; emit(start, cmds); next }
	inblock {
		s = unroff($0)
		if (cont) { cmds = cmds s "\n"; cont = s ~ /\\$/; next }
		if (prompt(s)) { cmds = cmds substr(s, 3) "\n"; cont = s ~ /\\$/ }
		next
	}
	/^\.Bd / { inblock = 1; start = NR; cmds = ""; cont = 0; next }
	/^\.Dl / {
		s = unroff(substr($0, 5))
		if (prompt(s))
			s = substr(s, 3)
		emit(NR, s "\n")
	}
	' "$1"
}

setup_file() {
	local top=$BATS_TEST_DIRNAME/.. f
	files=$BATS_FILE_TMPDIR/files
	mkdir -p "$files" "$BATS_FILE_TMPDIR/ex"
	elect-sim -a bully -n 5 -s 1 -d 4 -e '1 crash 5' >"$files/run.trace"
	awk '$2 ~ /^[0-9]+$/ { print > (dir "/node" $2 ".trace") }' \
	    dir="$files" "$files/run.trace"
	cp "$FIXTURES/check/theorem2.trace" "$files"
	cd "$top"
	for f in share/man/man*/*.[0-9]; do
		extract "$f" "$BATS_FILE_TMPDIR/ex"
	done
}

@test "man pages: the extractor finds each page's examples, their commands and comments" {
	local d=$BATS_FILE_TMPDIR/ex
	# elect-sim(1): seven examples, each one command, all run
	run grep -l '^share/man/man1/elect-sim.1:' "$d"/*.meta
	assert_equal "${#lines[@]}" 7
	run grep -h 'elect-sim.1:' "$d"/*.meta
	assert_line --regexp $'elect-sim.1:[0-9]+\texit 1$'
	# a block: its prompted lines, joined where \e continues them
	run cat "$(grep -l 'elect-trace.1:' "$d"/*.meta | sed 's/meta$/sh/' |
	    xargs grep -l 'timeline --format svg')"
	assert_output - <<-'EOF'
	t=$(awk '$2 == 5 && $3 == "crash" { print $1; exit }' run.trace)
	elect-trace timeline --format svg --from $t \
	    --to $(awk -v t=$t 'BEGIN { printf "%.6f", t + 1 }') run.trace > crash.svg
	EOF
	# the block's output is not a command
	run cat "$(grep -l $'elect-check.1:[0-9]*\texit 1' "$d"/*.meta | sed 's/meta$/sh/')"
	assert_output "elect-check theorem2.trace"
	# every page's examples are found: 11 pages, 36 examples
	run bash -c "cut -d: -f1 '$d'/*.meta | sort -u | wc -l"
	assert_output 11
	run bash -c "ls '$d'/*.meta | wc -l"
	assert_output 36
}

@test "man pages: every example that can run without a cluster runs, and exits as it says" {
	local d=$BATS_FILE_TMPDIR/ex meta where mark want sh n=0 skipped=0 rc
	for meta in "$d"/*.meta; do
		IFS=$'\t' read -r where mark <"$meta"
		sh=${meta%.meta}.sh
		case $mark in
		"not run: "?*)
			echo "# $where: ${mark}" >&3
			skipped=$((skipped + 1))
			continue ;;
		"exit "[0-9]*) want=${mark#exit } ;;
		"") want=0 ;;
		*) fail "$where: unknown comment \"example: $mark\"" ;;
		esac
		[ -s "$sh" ] && grep -q '[^[:space:]]' "$sh" ||
		    fail "$where: an example with no command, not marked \"not run\""
		perl -pi -e 's/--campaign (\d+)/"--campaign " .
		    ($1 > '$CAMPAIGN_MAX' ? '$CAMPAIGN_MAX' : $1)/ge' "$sh"
		mkdir "$d/run.$n"
		cp "$BATS_FILE_TMPDIR"/files/* "$d/run.$n"
		rc=0
		(cd "$d/run.$n" && timeout 120 bash -e -o pipefail "$sh") \
		    >"$d/run.$n.out" 2>&1 || rc=$?
		[ "$rc" = "$want" ] ||
		    fail "$where: exit $rc, not $want: $(cat "$sh")
$(tail -n 20 "$d/run.$n.out")"
		n=$((n + 1))
	done
	# the examples this suite can run: elect-sim's 7, elect-check's 4,
	# elect-trace's 3, elect-fence's 1
	assert_equal "$n" 15
	assert_equal "$skipped" 21
}
