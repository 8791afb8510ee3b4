#!/usr/bin/env bats
# lib/net: the cluster file, the key file, the datagram envelope and the
# replay window, through net-tool.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	head -c 32 /dev/urandom > k1
	head -c 32 /dev/urandom > k2
	chmod 600 k1 k2
}

cluster() {
	printf '%s\n' "$@" > c.conf
	run net-tool cluster c.conf
}

@test "cluster: nodes, comments, blank lines, default and given fd ports" {
	printf '# a cluster\n\n  node 3 10.0.0.3:7000   # third\n' > c.conf
	printf 'node\t1 host-a.example:7000 fd=9000\nnode 2 [::1]:7000\n' >> c.conf
	printf 'node 65535 [fe80::1%%eth0]:65534' >> c.conf	# no final newline
	run net-tool cluster c.conf
	assert_success
	assert_output - <<-EOF
	1 host-a.example 7000 fd=9000 line=4
	2 ::1 7000 fd=7001 line=5
	3 10.0.0.3 7000 fd=7001 line=3
	65535 fe80::1%eth0 65534 fd=65535 line=6
	EOF
}

@test "cluster: every kind of bad line names the file, the line and why" {
	cluster 'node 1 a:1' 'nodes 2 b:1'
	assert_failure 2
	assert_output --partial 'c.conf:2: unknown keyword "nodes"'
	cluster 'node 0 a:1'
	assert_output --partial 'c.conf:1: node id "0" is not 1 to 65535'
	cluster 'node 65536 a:1'
	assert_output --partial 'node id "65536" is not 1 to 65535'
	cluster 'node +1 a:1'
	assert_output --partial 'node id "+1"'
	cluster 'node 1'
	assert_output --partial 'c.conf:1: node 1: missing HOST:PORT'
	cluster 'node'
	assert_output --partial 'c.conf:1: node: missing ID'
	cluster 'node 1 a'
	assert_output --partial '"a": expected HOST:PORT'
	cluster 'node 1 a:0'
	assert_output --partial 'port "0" is not a port (1 to 65535)'
	cluster 'node 1 a:65536'
	assert_output --partial 'port "65536" is not a port'
	cluster 'node 1 a:7x'
	assert_output --partial 'port "7x"'
	cluster 'node 1 ::1:7000'
	assert_output --partial 'an IPv6 address goes in brackets'
	cluster 'node 1 [zz::1]:7000'
	assert_output --partial '"zz::1" is not a numeric IPv6 address'
	cluster 'node 1 [::1]7000'
	assert_output --partial 'expected [IPV6]:PORT'
	cluster 'node 1 bad_host!:7000'
	assert_output --partial '"bad_host!" is not a host name or address'
	cluster 'node 1 -a:7000'
	assert_output --partial 'is not a host name'
	cluster 'node 1 a..b:7000'
	assert_output --partial 'is not a host name'
	cluster 'node 1 a:7000 fd=0'
	assert_output --partial 'fd port "0" is not a port'
	cluster 'node 1 a:7000 fd=7001 fd=7002'
	assert_output --partial 'c.conf:1: fd= given twice'
	cluster 'node 1 a:7000 prio=3'
	assert_output --partial 'c.conf:1: unknown keyword "prio=3"'
	cluster 'node 1 a:7000 fd=7000'
	assert_output --partial 'fd port 7000 is the node'"'"'s own port'
	cluster 'node 1 a:65535'
	assert_output --partial 'port 65535 leaves no port for the failure detector'
	cluster '# nothing'
	assert_output --partial 'c.conf: no nodes'
}

@test "cluster: an epoch line, once; a file without one is of epoch 0" {
	cluster 'epoch 7  # the seventh' 'node 1 a:7000'
	assert_success
	assert_output - <<-EOF
	1 a 7000 fd=7001 line=2
	epoch 7 line=1
	EOF
	cluster 'node 1 a:7000' 'epoch 16777215'
	assert_success
	assert_line 'epoch 16777215 line=2'
	cluster 'node 1 a:7000'
	assert_success
	refute_output --partial epoch
	cluster 'epoch 1' 'node 1 a:7000' 'epoch 2'
	assert_failure 2
	assert_output --partial 'c.conf:3: epoch already given on line 1'
	cluster 'epoch 16777216' 'node 1 a:7000'
	assert_output --partial 'c.conf:1: epoch "16777216" is not 0 to 16777215'
	cluster 'epoch -1' 'node 1 a:7000'
	assert_output --partial 'epoch "-1" is not 0 to'
	cluster 'epoch' 'node 1 a:7000'
	assert_output --partial 'c.conf:1: epoch: missing N'
	cluster 'epoch 3 4' 'node 1 a:7000'
	assert_output --partial 'c.conf:1: epoch 3: unexpected "4"'
	cluster 'epoch 3'
	assert_output --partial 'c.conf: no nodes'
}

@test "cluster: duplicate ids and endpoints are refused" {
	cluster 'node 1 a:7000' 'node 1 b:7000'
	assert_failure 2
	assert_output --partial 'c.conf:2: node 1 already defined on line 1'
	cluster 'node 1 a:7000' 'node 2 A:7000'
	assert_output --partial 'c.conf:2: A:7000 already used by node 1 (line 1)'
	cluster 'node 1 a:7000' 'node 2 a:7001'
	assert_output --partial 'c.conf:2: a:7001 already used by node 1 (line 1)'
	cluster 'node 1 a:7000' 'node 2 a:6999'
	assert_output --partial 'c.conf:2: fd port a:7000 already used by node 1'
	cluster 'node 1 a:7000 fd=8000' 'node 2 b:7000 fd=8000'
	assert_success
}

@test "cluster: long lines, NUL bytes, carriage returns, too many nodes" {
	{ printf 'node 1 '; head -c 600 /dev/zero | tr '\0' a; printf ':1\n'; } > c.conf
	run net-tool cluster c.conf
	assert_failure 2
	assert_output --partial 'c.conf:1: line longer than 512 bytes'
	printf 'node 1 a:7000\nnode 2 b\0:7000\n' > c.conf
	run net-tool cluster c.conf
	assert_output --partial 'c.conf:2: NUL byte'
	printf 'node 1 a:7000\r\n' > c.conf
	run net-tool cluster c.conf
	assert_output --partial 'c.conf:1: carriage return'
	for i in $(seq 1 1025); do echo "node $i h$i:7000"; done > c.conf
	run net-tool cluster c.conf
	assert_output --partial 'c.conf:1025: more than 1024 nodes'
	head -n 1024 c.conf > c2.conf
	run net-tool cluster c2.conf
	assert_success
	assert_equal "${#lines[@]}" 1024
}

@test "cluster: the loader resolves names and numbers, and sees aliases" {
	cluster 'node 1 127.0.0.1:7000' 'node 2 localhost:7010 fd=7020' \
	    'node 3 [::1]:7000'
	run net-tool resolve c.conf
	assert_success
	assert_line '1 127.0.0.1:7000 fd=127.0.0.1:7001'
	assert_line --regexp '^2 (127\.0\.0\.1|\[::1\]):7010 fd=.*:7020$'
	assert_line '3 [::1]:7000 fd=[::1]:7001'
	cluster 'node 1 127.0.0.1:7000' 'node 2 127.000.0.1:7000'
	run net-tool resolve c.conf
	assert_failure 2
	assert_output --partial 'c.conf:2: node 2 shares an address and port with node 1 (line 1)'
	# Numeric, so that no name server is asked.
	cluster 'node 1 127.0.0.1:7000' 'node 2 [1:2:3:4:5:6:7:8:9]:7000'
	run net-tool resolve c.conf
	assert_failure 2
	assert_output --partial 'c.conf:2: 1:2:3:4:5:6:7:8:9: '
	run net-tool resolve missing.conf
	assert_failure 2
	assert_output --partial 'missing.conf: No such file or directory'
}

@test "key: 32 bytes, or two keys during a rotation; nothing else" {
	run net-tool key k1
	assert_success
	assert_output ok
	(umask 077
	head -c 31 /dev/urandom > short
	head -c 33 /dev/urandom > long
	head -c 65 /dev/urandom > longer
	head -c 64 /dev/urandom > two
	cat k1 k1 > same
	: > empty)
	run net-tool key short
	assert_failure 2
	assert_output --partial 'short: a key is exactly 32 bytes (two keys during a rotation: 64), this file has 31'
	run net-tool key long
	assert_failure 2
	assert_output --partial 'this file has 33'
	run net-tool key longer
	assert_output --partial 'this file has more than 64'
	run net-tool key empty
	assert_output --partial 'this file has 0'
	run net-tool key two
	assert_success
	assert_output 'ok 2 keys'
	run net-tool key same
	assert_failure 2
	assert_output --partial 'same: the same key twice'
	run net-tool key nothere
	assert_output --partial 'nothere: No such file or directory'
	run net-tool key .
	assert_output --partial '.: not a regular file'
}

@test "key: refused when group or others may use it, or another user owns it" {
	chmod 640 k2
	run net-tool key k2
	assert_failure 2
	assert_output --partial 'k2: mode 640 lets group or others at the key; refused (chmod 600 k2)'
	chmod 604 k2
	run net-tool key k2
	assert_failure 2
	chmod 600 k2
	run net-tool key k2
	assert_success
	[ "$(id -u)" = 0 ] || skip "chown needs root"
	chown nobody k2
	run net-tool key k2
	assert_failure 2
	assert_output --partial "k2: owned by uid $(id -u nobody), not by this user (uid 0); refused"
	# A symbolic link is not followed: the file itself is judged.
	ln -s k1 link
	run net-tool key link
	assert_failure 2
}

@test "wire: a datagram round-trips, keyed and insecure, up to the payload bound" {
	run net-tool wire -k k1 -n 1152
	assert_success
	assert_output 'ok type=1 from=2 to=1 inc=1 seq=1 grp=2.7.3 len=1152 bytes=1232'
	run net-tool wire -i 9223372036854775807 -q 9223372036854775807 -n 7
	assert_success
	assert_output 'ok type=1 from=2 to=1 inc=9223372036854775807 seq=9223372036854775807 grp=2.7.3 len=7 bytes=87'
}

@test "wire: the header layout is the documented one" {
	run net-tool wire -r -t 3 -f 258 -d 4 -i 5 -q 6 -n 2
	assert_success
	# magic ELFD, version 2, type 3, length 2, from 0x0102, to 4,
	# grp.node 2, zero, inc 5, seq 6, grp.inc 7, grp.ctr 3, payload 00 01,
	# and a MAC of zeros (insecure).
	assert_output "454c4644""02""03""0002""0102""0004""0002""0000"\
"0000000000000005""0000000000000006""0000000000000007""0000000000000003"\
"0001""$(printf '0%.0s' $(seq 64))"
}

@test "wire: every rejection has its reason" {
	run net-tool wire -k k1 -x 60			# a flipped MAC byte
	assert_output 'bad-mac from=2'
	run net-tool wire -k k1 -x 20			# a flipped header byte
	assert_output 'bad-mac from=2'
	run net-tool wire -k k1 -K k2			# another cluster's key
	assert_output 'bad-mac from=2'
	run net-tool wire -K k1				# insecure to keyed
	assert_output 'bad-mac from=2'
	run net-tool wire -k k1 -K -			# keyed to insecure
	assert_output 'bad-mac from=2'
	run net-tool wire -k k1 -P node			# fd datagram at a node port
	assert_output 'bad-magic from=2'
	run net-tool wire -x 4				# version 0
	assert_output 'bad-version from=2'
	run net-tool wire -c 79
	assert_output 'truncated from=2'
	run net-tool wire -c 9
	assert_output 'truncated from=0'
	run net-tool wire -c 0
	assert_output 'truncated from=0'
	run net-tool wire -n 10 -c 85
	assert_output 'truncated from=2'
	run net-tool wire -a 1
	assert_output 'bad-length from=2'
	run net-tool wire -n 1152 -a 1
	assert_output 'oversized from=2'
	run net-tool wire -n 1152 -x 6			# length 0x0580
	assert_output 'oversized from=2'
	run net-tool wire -t 7				# type past fd's maxtype (HELLO, 6)
	assert_output 'bad-type from=2'
	run net-tool wire -x 14				# reserved (no MAC to stop it)
	assert_output 'bad-header from=2'
	run net-tool wire -s 3				# meant for node 1
	assert_output 'misdirected from=2'
	run net-tool wire -s 2				# from itself
	assert_output 'bad-sender from=2'
	run net-tool wire -t 0
	assert_output 'encode refused'
	run net-tool wire -q 0
	assert_output 'encode refused'
	run net-tool wire -n 1153
	assert_output 'encode refused'
}

@test "wire: the replay window, as IPsec's" {
	run net-tool window <<-EOF
	1 5
	1 5
	1 3
	1 3
	1 70
	1 6
	1 7
	1 7
	1 71
	1 69
	2 1
	1 200
	2 1
	2 2
	EOF
	assert_success
	assert_output - <<-EOF
	ok
	replay
	ok
	replay
	ok
	replay
	ok
	replay
	ok
	ok
	ok
	old-incarnation
	replay
	ok
	EOF
}

@test "session: a peer counts once it answers; a late answer does not reopen its window" {
	run net-tool session <<-EOF
	data 1 1
	hello 1 2 none
	hello 1 3 other
	hello 1 4 answer
	data 1 5
	data 1 6
	hello 1 8 answer confirmed
	data 1 9
	data 1 10
	hello 1 7 answer
	data 1 9
	data 1 6
	data 1 11
	hello 1 4 answer
	data 1 2000000
	hello 1 12 answer
	data 1 13
	data 2 1
	hello 2 2 answer
	data 2 1
	data 2 3
	data 1 14
	EOF
	assert_success
	assert_output - <<-EOF
	unconfirmed confirmed=0
	hello confirmed=0
	hello confirmed=0
	hello confirmed=1
	ok confirmed=1
	ok confirmed=1
	hello confirmed=1
	ok confirmed=1
	ok confirmed=1
	hello confirmed=1
	replay confirmed=1
	replay confirmed=1
	ok confirmed=1
	replay confirmed=1
	seq-jump confirmed=0
	hello confirmed=1
	ok confirmed=1
	unconfirmed confirmed=0
	hello confirmed=1
	ok confirmed=1
	ok confirmed=1
	old-incarnation confirmed=1
	EOF
}

@test "session: nodes of two epochs confirm each other whatever their memberships; of one, only with the same" {
	run net-tool session <<-EOF
	epoch 0
	hello 1 1 answer c=x
	hello 1 2 answer e=1 c=x
	data 1 3
	epoch 1
	hello 2 1 answer e=1 c=x
	hello 2 2 answer e=1
	data 2 3
	epoch 2
	hello 3 1 answer e=1 c=y
	hello 4 1 answer e=0 c=z
	EOF
	assert_success
	assert_output - <<-EOF
	mismatch confirmed=0 epoch=0
	hello confirmed=1 epoch=1
	ok confirmed=1 epoch=1
	mismatch confirmed=0 epoch=1
	hello confirmed=1 epoch=1
	ok confirmed=1 epoch=1
	hello confirmed=1 epoch=1
	hello confirmed=1 epoch=0
	EOF
}

@test "epoch record: a cluster file in canonical form, read back the same" {
	printf 'node 2 [::1]:7000\nepoch 5\nnode 1 host-a:7000 fd=9000 # a\n' > c.conf
	run net-tool format c.conf
	assert_success
	assert_output - <<-EOF
	epoch 5
	node 1 host-a:7000 fd=9000
	node 2 [::1]:7000 fd=7001
	EOF
	net-tool format c.conf > f.conf
	run net-tool format f.conf
	assert_output "$(cat f.conf)"
	printf 'node 1 a:7000\n' > c.conf
	run net-tool format c.conf
	assert_line --index 0 'epoch 0'
	net-tool record "$BATS_TEST_TMPDIR/s" c.conf
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/s/epoch")" = 600 ]
	run cat "$BATS_TEST_TMPDIR/s/epoch"
	assert_output - <<-EOF
	epoch 0
	node 1 a:7000 fd=7001
	EOF
}

@test "epoch record: where a starting node goes, given its file and record" {
	S=$BATS_TEST_TMPDIR/s
	printf 'node 1 a:7000\nnode 2 b:7000\nnode 3 c:7000\n' > e0.conf
	{ echo 'epoch 1'; cat e0.conf; } > e1.conf
	{ echo 'epoch 1'; cat e0.conf; echo 'node 4 d:7000'; } > e1x.conf
	printf 'epoch 2\nnode 2 b:7000\nnode 4 d:7000\nnode 5 e:7000\n' > e2.conf
	# No record: epoch 0 as always; a later epoch is joined, fresh.
	run net-tool plan 1 e0.conf
	assert_output run
	run net-tool plan 4 e2.conf
	assert_output join
	run net-tool plan 1 e2.conf
	assert_failure 2
	assert_output --partial 'e2.conf: no node 1 in epoch 2'
	# A record of epoch 1 {1,2,3}.
	net-tool record "$S" e1.conf
	run net-tool plan 1 e1.conf "$S"
	assert_output run
	# An older file: refused, naming a file of the record's epoch.
	run net-tool plan 1 e0.conf "$S"
	assert_failure 2
	assert_output "net-tool: e0.conf: epoch 0, older than the state directory's epoch 1: start with the cluster file of epoch 1, such as the state directory's record $S/epoch"
	run net-tool plan 2 e2.conf "$S"	# in both epochs
	assert_output change
	run net-tool plan 1 e2.conf "$S"	# not in the next one
	assert_output left
	run net-tool plan 1 e1x.conf "$S"
	assert_failure 2
	assert_output --partial "e1x.conf: epoch 1, whose members in the state directory differ"
	run net-tool plan 4 e2.conf "$S"
	assert_failure 2
	assert_output --partial "the state directory's epoch 1 has no node 4"
	# A damaged record is refused, naming its line.
	printf 'epoch 1\nnode 1 a:7000\nnode x\n' > "$S/epoch"
	run net-tool plan 1 e1.conf "$S"
	assert_failure 2
	assert_output --partial 'epoch:3: node id "x"'
}

@test "wire: the epoch types pass only a protocol with epochs" {
	for t in 252 253 254; do
		run net-tool wire -p node -t "$t"
		assert_output 'bad-type from=2'
		run net-tool wire -p epochs -t "$t"
		assert_output --partial 'ok type='"$t"
	done
	run net-tool wire -p epochs -t 251
	assert_output 'bad-type from=2'
	run net-tool wire -p fd -t 254
	assert_output 'bad-type from=2'
}

@test "epoch messages: wedge, wedged and change, strictly" {
	d=0102030405060708
	run net-tool epoch-msg 254 "00000003$d"
	assert_success
	assert_output "epoch=3 digest=$d"
	run net-tool epoch-msg 253 "000000030005$d"
	assert_output "epoch=3 members=5 digest=$d"
	run net-tool epoch-msg 252 "000000040000004000000030${d}6e6f6465"
	assert_output "epoch=4 total=64 off=48 len=4 digest=$d"
	# Lengths, ranges and types the parser refuses.
	for bad in "254 00000003${d}00" "254 00000003" "253 000000030000$d" \
	    "253 000000030401$d" "254 01000000$d" \
	    "252 000000040000004000000030$d" \
	    "252 000000000000004000000030${d}6e6f6465" \
	    "252 000000040000004000000040${d}6e6f6465" \
	    "252 00000004000000400000003e${d}6e6f6465" \
	    "252 000000040010000100000000${d}6e6f6465" \
	    "251 00000003$d" "255 00000003$d"; do
		run net-tool epoch-msg $bad
		assert_failure 1
		assert_output bad-payload
	done
}

@test "epoch record: epoch 0 follows its file; a file two epochs ahead is joined" {
	S=$BATS_TEST_TMPDIR/s
	printf 'node 1 a:7000\nnode 2 b:7000\n' > e0.conf
	printf 'node 1 a:7000\nnode 2 b:7000\nnode 3 c:7000\n' > e0b.conf
	printf 'epoch 2\nnode 1 a:7000\nnode 4 d:7000\n' > e2.conf
	printf 'epoch 2\nnode 4 d:7000\nnode 5 e:7000\n' > e2x.conf
	net-tool record "$S" e0.conf
	# Epoch 0 never changed: another membership is the old way of
	# changing a cluster (every node restarted with a new file).
	run net-tool plan 1 e0b.conf "$S"
	assert_output run
	run net-tool plan 1 e2.conf "$S"
	assert_output join
	run net-tool plan 1 e2x.conf "$S"
	assert_output left
}

# change NEXT PREV [DEAD]: a change's text in change.txt.
change() {
	{ echo "$1"; echo "$2"; [ -z "${3:-}" ] || echo "dead $3"; } |
	    tr '|' '\n' >change.txt
}

@test "epoch change: its text, strictly, and who takes it" {
	A='node 1 a:7000|node 2 b:7000|node 3 c:7000'
	change "epoch 1|$A|node 4 d:7000" "epoch 0|$A"
	run net-tool change change.txt
	assert_success
	assert_output - <<-EOF
	epoch 1
	node 1 a:7000 fd=7001
	node 2 b:7000 fd=7001
	node 3 c:7000 fd=7001
	node 4 d:7000 fd=7001
	epoch 0
	node 1 a:7000 fd=7001
	node 2 b:7000 fd=7001
	node 3 c:7000 fd=7001
	EOF
	net-tool change change.txt > back.txt
	run net-tool change back.txt
	assert_output "$(cat back.txt)"
	# Rules: the next epoch, kept ids keep their endpoints, one member
	# kept, the dead distinct members of the epoch that ends.
	change "epoch 2|$A" "epoch 0|$A"
	run net-tool change change.txt
	assert_failure 2
	assert_output --partial "epoch 2: the epoch after 0 is 1"
	change "epoch 1|node 1 a:7001|node 4 d:7000" "epoch 0|$A"
	run net-tool change change.txt
	assert_output --partial "node 1 moves (a node kept keeps its endpoints"
	change "epoch 1|node 4 d:7000|node 5 e:7000" "epoch 0|$A"
	run net-tool change change.txt
	assert_output --partial "epoch 1 keeps no member of epoch 0"
	for d in 4 2,2 1,2,3 2, x ,2 2,,3; do
		change "epoch 1|$A" "epoch 0|$A" "$d"
		run net-tool change change.txt
		assert_failure 2
	done
	change "epoch 1|$A" "epoch 0|$A" "2,3"
	run net-tool change change.txt
	assert_success
	assert_line "dead 2,3"
	change "epoch 1|$A" "epoch 0|$A|node 9 z:7000" "2"
	run net-tool change change.txt
	assert_success
	printf 'epoch 1\n%s\n' "$A" | tr '|' '\n' >only.txt
	run net-tool change only.txt
	assert_failure 2
	assert_output --partial "not two epochs' members"
	# Who takes it: a member of the running epoch with that membership,
	# not pending, not wedged, holding no change, not declared dead.
	change "epoch 1|$A|node 4 d:7000" "epoch 0|$A" "3"
	printf '%s\n' "$A" | tr '|' '\n' >run0.conf
	run net-tool change change.txt run0.conf 1 0 0 0
	assert_success
	assert_line role=old
	assert_line taken
	run net-tool change change.txt run0.conf 1 1 0 0
	assert_line --partial "refused: epoch 0 is pending"
	run net-tool change change.txt run0.conf 1 0 1 0
	assert_line "refused: epoch 0 has ended here (wedged)"
	run net-tool change change.txt run0.conf 1 0 0 1
	assert_line "refused: a change to epoch 1 is pending"
	run net-tool change change.txt run0.conf 3 0 0 0
	assert_line "refused: node 3, asked, is not dead"
	printf 'node 1 a:7000\nnode 2 b:7000\n' >other.conf
	run net-tool change change.txt other.conf 1 0 0 0
	assert_line role=none
	assert_line "refused: the members of epoch 0 differ from this node's"
	printf 'epoch 1\n%s\nnode 4 d:7000\n' "$A" | tr '|' '\n' >run1.conf
	run net-tool change change.txt run1.conf
	assert_line role=new
}

@test "epoch change: a majority of the epoch that ends, each member once, the dead counted; WEDGE answered for this change only" {
	A='node 1 a:7000|node 2 b:7000|node 3 c:7000|node 4 d:7000|node 5 e:7000'
	change "epoch 3|node 1 a:7000|node 6 f:7000" "epoch 2|$A" "5"
	run net-tool votes change.txt <<-EOF
	wedged 1 2 5
	wedged 1 2 5
	wedged 6 2 5
	wedged 2 1 5
	wedged 2 2 4
	wedged 2 2 5 bad
	wedged 2 2 5
	wedged 3 2 5
	wedge 2
	wedge 2 bad
	wedge 3
	EOF
	assert_output - <<-EOF
	need=3 wedged=1
	0 done=0
	0 done=0
	-1 not-a-member done=0
	-1 other-epoch done=0
	-1 other-members done=0
	-1 other-members done=0
	1 done=1
	0 done=1
	answer
	other-change
	other-epoch
	EOF
}

@test "epoch change: a member of the ending epoch wedges only once its guarded commands are dead, or two leases late" {
	run net-tool wedge-when 0 0 5 0
	assert_output now
	run net-tool wedge-when 2 0 5 0
	assert_output stop
	run net-tool wedge-when 1 1 5 9
	assert_output wait
	run net-tool wedge-when 1 1 9 9
	assert_output late
	run net-tool wedge-when 0 1 5 9
	assert_output now
}
