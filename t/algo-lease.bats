#!/usr/bin/env bats
# The lease core (Nerio: van Renesse, Schneider and Gehrke), driven
# without sockets by algo-drive, and run in elect-sim over many seeds with
# the simulator's own real-time oracle (-O) and elect-check -s lease.
# The algo-drive scripts pin lease 150 ms and renew 50 ms (rtt 5 ms and
# drift 1e-3 are the defaults), so a boot's quiet period is 150.15 ms and
# a grant holds 150.15 ms; the simulated runs use the defaults.

load helper
load elect-sim

# Every Ok carries the grantor's clock and incarnation; the leader echoes
# them with its remaining leadership, so the grantor verifies it (10.5):
# 0.16 + 0.1 (1 - 1e-3) = 0.2599.
@test "lease: a grantor refuses while quiet, grants, refuses another node naming its grantee, raises K before its Ok" {
	run algo-drive -t lease=150 -t renew=50 -a lease -i 1 -n 3 <<-EOF
	0 boot inc=1
	10 recv from=3 msg=Request elid=3.1.1 delta=0.15 start=7 token=0 echo=0 einc=0 rem=0
	150.15 timer quiet
	160 recv from=3 msg=Request elid=3.1.2 delta=0.15 start=7.1 token=0 echo=0 einc=0 rem=0
	161 recv from=2 msg=Request elid=2.4.9 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0
	162 recv from=3 msg=Request elid=3.1.3 delta=0.15 start=7.2 token=4 echo=0.16 einc=1 rem=0.1
	162 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	timer set quiet at=150.15
	fd start 2
	state status=Wait ldr=- grp=-
	> 10 recv from=3 msg=Request elid=3.1.1 delta=0.15 start=7 token=0 echo=0 einc=0 rem=0
	send to=3 msg=Refuse elid=3.1.1 why=quiet ldr=0 left=0.14015 k=0
	> 150.15 timer quiet
	> 160 recv from=3 msg=Request elid=3.1.2 delta=0.15 start=7.1 token=0 echo=0 einc=0 rem=0
	persist 0100000000000000000000000008f0d180
	trace lease op=grant to=3 until=0.31015 clock=0.16
	timer set grant at=310.15
	send to=3 msg=Ok elid=3.1.2 t=0.16 inc=1 k=0
	state status=Norm ldr=3 grp=-
	> 161 recv from=2 msg=Request elid=2.4.9 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0
	send to=2 msg=Refuse elid=2.4.9 why=busy ldr=3 left=0.14915 k=0
	> 162 recv from=3 msg=Request elid=3.1.3 delta=0.15 start=7.2 token=4 echo=0.16 einc=1 rem=0.1
	persist 0100000000000004040000000008f0d180
	trace lease op=grant to=3 until=0.31215 clock=0.162
	timer set grant at=312.15
	send to=3 msg=Ok elid=3.1.3 t=0.162 inc=1 k=4
	> 162 query
	status status=Norm ldr=3 grp=- leader=no since=160 grants_to=3 grant_until=0.31215 verified_until=0.2599
	EOF
}

@test "lease: releases revoke only what was granted before them, and late messages are refused (FIFO)" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 1 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.2 delta=0.15 start=7 token=0 echo=0 einc=0 rem=0
	170 recv from=3 msg=Request elid=3.1.4 delta=0.15 start=7.1 token=0 echo=0 einc=0 rem=0
	171 recv from=3 msg=Release elid=3.1.3 why=abort
	172 recv from=3 msg=Request elid=3.1.3 delta=0.15 start=7 token=0 echo=0 einc=0 rem=0
	180 recv from=3 msg=Release elid=3.1.4 why=resign
	181 recv from=3 msg=Request elid=3.1.4 delta=0.15 start=7.1 token=0 echo=0 einc=0 rem=0
	181 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 2
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.1.2 delta=0.15 start=7 token=0 echo=0 einc=0 rem=0
	persist 0100000000000000000000000008f0d180
	trace lease op=grant to=3 until=0.31015 clock=0.16
	send to=3 msg=Ok elid=3.1.2 t=0.16 inc=1 k=0
	state status=Norm ldr=3 grp=-
	> 170 recv from=3 msg=Request elid=3.1.4 delta=0.15 start=7.1 token=0 echo=0 einc=0 rem=0
	trace lease op=grant to=3 until=0.32015 clock=0.17
	send to=3 msg=Ok elid=3.1.4 t=0.17 inc=1 k=0
	> 171 recv from=3 msg=Release elid=3.1.3 why=abort
	error refused
	> 172 recv from=3 msg=Request elid=3.1.3 delta=0.15 start=7 token=0 echo=0 einc=0 rem=0
	error refused
	> 180 recv from=3 msg=Release elid=3.1.4 why=resign
	trace lease op=release to=3 clock=0.18
	state status=Wait ldr=- grp=-
	> 181 recv from=3 msg=Request elid=3.1.4 delta=0.15 start=7.1 token=0 echo=0 einc=0 rem=0
	error refused
	> 181 query
	status status=Wait ldr=- grp=- leader=no since=180
	EOF
}

# OQwBD: E = Start + (1 - rho) delta = 0.15015 + 0.14985 = 0.3; the
# token is handed out only once a majority has seen it.
@test "lease: a bid that wins a majority leads, then proposes 1 + the largest K and establishes it with a second round" {
	run algo-drive -t lease=150 -t renew=50 -a lease -i 3 -n 3 <<-EOF
	0 boot inc=2
	150.15 timer quiet
	151 recv from=1 msg=Refuse elid=3.2.1 why=busy ldr=2 left=0.02 k=7
	152 recv from=2 msg=Ok elid=3.2.1 t=5 inc=4 k=7
	153 recv from=1 msg=Ok elid=3.2.2 t=9 inc=1 k=8
	153 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=2
	trace clock c=0
	timer set quiet at=150.15
	state status=Wait ldr=- grp=-
	> 150.15 timer quiet
	trace clock c=0.15015
	send to=1 msg=Request elid=3.2.1 delta=0.15 start=0.15015 token=0 echo=0 einc=0 rem=0 kseen=0
	send to=2 msg=Request elid=3.2.1 delta=0.15 start=0.15015 token=0 echo=0 einc=0 rem=0 kseen=0
	persist 0100000000000000000000000008f0d180
	trace lease op=grant to=3 until=0.3003 clock=0.15015
	timer set grant at=300.3
	timer set abort at=300
	state status=Elec ldr=- grp=-
	> 151 recv from=1 msg=Refuse elid=3.2.1 why=busy ldr=2 left=0.02 k=7
	> 152 recv from=2 msg=Ok elid=3.2.1 t=5 inc=4 k=7
	timer cancel abort
	trace lead until=0.3 clock=0.152 qt=2:5,3:0.15015
	timer set lead at=300
	state status=Norm ldr=3 grp=-
	trace clock c=0.152
	send to=1 msg=Request elid=3.2.2 delta=0.15 start=0.152 token=8 echo=0 einc=0 rem=0.147852147 kseen=8
	send to=2 msg=Request elid=3.2.2 delta=0.15 start=0.152 token=8 echo=5 einc=4 rem=0.147852147 kseen=8
	persist 0100000000000004080000000008f0d180
	trace lease op=grant to=3 until=0.30215 clock=0.152
	timer set grant at=302.15
	timer set abort at=301.85
	timer set try at=202
	> 153 recv from=1 msg=Ok elid=3.2.2 t=9 inc=1 k=8
	timer cancel abort
	trace lead until=0.30185 clock=0.153 qt=1:9,3:0.152 token=8
	timer set lead at=301.85
	> 153 query
	status status=Norm ldr=3 grp=- leader=yes since=152 lease_until=0.30185 token=8
	EOF
}

@test "lease: a leader renews every renew, makes edicts only with its token, and steps down on release" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 3 -n 3 <<-EOF
	0 boot inc=2
	150.15 timer quiet
	152 recv from=2 msg=Ok elid=3.2.1 t=5 inc=4 k=7
	152 cmd edict too-early
	153 recv from=1 msg=Ok elid=3.2.2 t=9 inc=1 k=8
	160 cmd edict hello
	202 timer try
	203 recv from=2 msg=Ok elid=3.2.3 t=5.05 inc=4 k=8
	210 cmd edict world
	211 cmd release
	211 query
	212 cmd edict late
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=2
	trace clock c=0
	state status=Wait ldr=- grp=-
	> 150.15 timer quiet
	trace clock c=0.15015
	send to=1 msg=Request elid=3.2.1 delta=0.15 start=0.15015 token=0 echo=0 einc=0 rem=0 kseen=0
	send to=2 msg=Request elid=3.2.1 delta=0.15 start=0.15015 token=0 echo=0 einc=0 rem=0 kseen=0
	persist 0100000000000000000000000008f0d180
	trace lease op=grant to=3 until=0.3003 clock=0.15015
	state status=Elec ldr=- grp=-
	> 152 recv from=2 msg=Ok elid=3.2.1 t=5 inc=4 k=7
	trace lead until=0.3 clock=0.152 qt=2:5,3:0.15015
	state status=Norm ldr=3 grp=-
	trace clock c=0.152
	send to=1 msg=Request elid=3.2.2 delta=0.15 start=0.152 token=8 echo=0 einc=0 rem=0.147852147 kseen=8
	send to=2 msg=Request elid=3.2.2 delta=0.15 start=0.152 token=8 echo=5 einc=4 rem=0.147852147 kseen=8
	persist 0100000000000004080000000008f0d180
	trace lease op=grant to=3 until=0.30215 clock=0.152
	> 152 cmd edict too-early
	error not leader
	> 153 recv from=1 msg=Ok elid=3.2.2 t=9 inc=1 k=8
	trace lead until=0.30185 clock=0.153 qt=1:9,3:0.152 token=8
	> 160 cmd edict hello
	trace edict seq=1 qt=1:9,3:0.152 clock=0.16
	trace deliver from=3 seq=1 qt=1:9,3:0.152
	edict from=3 token=8 seq=1 delivered=yes text=hello
	send to=1 msg=Edict elid=- token=8 seq=1 len=43
	send to=2 msg=Edict elid=- token=8 seq=1 len=43
	> 202 timer try
	trace clock c=0.202
	send to=1 msg=Request elid=3.2.3 delta=0.15 start=0.202 token=8 echo=9 einc=1 rem=0.099750249 kseen=8
	send to=2 msg=Request elid=3.2.3 delta=0.15 start=0.202 token=8 echo=5 einc=4 rem=0.099750249 kseen=8
	trace lease op=grant to=3 until=0.35215 clock=0.202
	> 203 recv from=2 msg=Ok elid=3.2.3 t=5.05 inc=4 k=8
	trace lead until=0.35185 clock=0.203 qt=2:5.05,3:0.202 token=8
	> 210 cmd edict world
	trace edict seq=2 qt=2:5.05,3:0.202 clock=0.21
	trace deliver from=3 seq=2 qt=2:5.05,3:0.202
	edict from=3 token=8 seq=2 delivered=yes text=world
	send to=1 msg=Edict elid=- token=8 seq=2 len=43
	send to=2 msg=Edict elid=- token=8 seq=2 len=43
	> 211 cmd release
	trace lead until=0.211 clock=0.211
	trace lease op=release to=3 clock=0.211
	send to=1 msg=Release elid=3.2.3 why=resign
	send to=2 msg=Release elid=3.2.3 why=resign
	state status=Wait ldr=- grp=-
	> 211 query
	status status=Wait ldr=- grp=- leader=no since=211
	> 212 cmd edict late
	error not leader
	EOF
}

# The common status: a node leads until E from the run that makes it
# leader, with no token until a second run establishes one (leader=no
# meanwhile); then with its token; at E, without the lead timer, neither.
# A refusal naming a grantee gives a node that leads nobody a hint.
@test "lease: the leadership in the common status: deadline, token once established, hint" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 3 -n 3 <<-EOF
	0 boot inc=2
	0 leadership
	150.15 timer quiet
	152 recv from=2 msg=Ok elid=3.2.1 t=5 inc=4 k=7
	152 leadership
	153 recv from=1 msg=Ok elid=3.2.2 t=9 inc=1 k=8
	153 leadership
	301.84 leadership
	301.85 leadership
	EOF
	assert_success
	run grep '^leadership' <<<"$output"
	assert_output - <<-EOF
	leadership leader=no until=- token=0 hint=-
	leadership leader=no until=300 token=0 hint=-
	leadership leader=yes until=301.85 token=8 hint=-
	leadership leader=yes until=301.85 token=8 hint=-
	leadership leader=no until=- token=0 hint=-
	EOF
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 1 -n 3 <<-EOF
	0 boot inc=1
	1 recv from=2 msg=Refuse elid=1.1.1 why=busy ldr=3 left=0.1 k=4
	1 leadership
	EOF
	assert_success
	assert_line "leadership leader=no until=- token=0 hint=3"
}

@test "lease: edicts are delivered in (token, seq) order; a late, older one is refused and reported; malformed ones are dropped" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 1 -n 3 <<-EOF
	0 boot inc=1
	10 recv from=3 msg=Edict token=8 seq=2 qt=2:5.05,3:0.202 text=world
	11 recv from=3 msg=Edict token=8 seq=1 qt=1:9,3:0.152 text=hello
	12 recv from=2 msg=Edict token=9 seq=1 qt=1:0.4,2:6 text=next
	13 recv from=2 msg=Edict token=9 seq=1 qt=1:0.4,2:6 text=again
	14 recv from=2 msg=Edict token=9 seq=2 qt=1:0.4,4:6 text=bad-qt
	15 recv from=2 msg=Edict token=9 seq=2 qt=1:0.4,2:6
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 2
	state status=Wait ldr=- grp=-
	> 10 recv from=3 msg=Edict token=8 seq=2 qt=2:5.05,3:0.202 text=world
	trace deliver from=3 seq=2 qt=2:5.05,3:0.202
	edict from=3 token=8 seq=2 delivered=yes text=world
	> 11 recv from=3 msg=Edict token=8 seq=1 qt=1:9,3:0.152 text=hello
	trace drop from=3 why=edict-order
	edict from=3 token=8 seq=1 delivered=no text=hello
	> 12 recv from=2 msg=Edict token=9 seq=1 qt=1:0.4,2:6 text=next
	trace deliver from=2 seq=1 qt=1:0.4,2:6
	edict from=2 token=9 seq=1 delivered=yes text=next
	> 13 recv from=2 msg=Edict token=9 seq=1 qt=1:0.4,2:6 text=again
	trace drop from=2 why=edict-order
	edict from=2 token=9 seq=1 delivered=no text=again
	> 14 recv from=2 msg=Edict token=9 seq=2 qt=1:0.4,4:6 text=bad-qt
	error refused
	> 15 recv from=2 msg=Edict token=9 seq=2 qt=1:0.4,2:6
	error refused
	EOF
}

# A quorum timestamp too large for a datagram comes as its digest (pairs
# 0, then 8 bytes): delivered and traced as qd=, in the same (token, seq)
# order; a digest with no text after it is malformed.
@test "lease: an edict carrying its quorum timestamp's digest is delivered and traced by it, in (token, seq) order" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 1 -n 3 <<-EOF
	0 boot inc=1
	10 recv from=3 msg=Edict token=8 seq=2 qd=0123456789abcdef text=world
	11 recv from=3 msg=Edict token=8 seq=1 qd=0123456789abcdef text=hello
	12 recv from=2 msg=Edict token=9 seq=1 qt=1:0.4,2:6 text=next
	13 recv from=3 msg=Edict token=9 seq=2 qd=fedcba9876543210 text=after
	14 recv from=2 msg=Edict token=9 seq=3 qd=fedcba9876543210
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 2
	state status=Wait ldr=- grp=-
	> 10 recv from=3 msg=Edict token=8 seq=2 qd=0123456789abcdef text=world
	trace deliver from=3 seq=2 qd=0123456789abcdef
	edict from=3 token=8 seq=2 delivered=yes text=world
	> 11 recv from=3 msg=Edict token=8 seq=1 qd=0123456789abcdef text=hello
	trace drop from=3 why=edict-order
	edict from=3 token=8 seq=1 delivered=no text=hello
	> 12 recv from=2 msg=Edict token=9 seq=1 qt=1:0.4,2:6 text=next
	trace deliver from=2 seq=1 qt=1:0.4,2:6
	edict from=2 token=9 seq=1 delivered=yes text=next
	> 13 recv from=3 msg=Edict token=9 seq=2 qd=fedcba9876543210 text=after
	trace deliver from=3 seq=2 qd=fedcba9876543210
	edict from=3 token=9 seq=2 delivered=yes text=after
	> 14 recv from=2 msg=Edict token=9 seq=3 qd=fedcba9876543210
	error refused
	EOF
}

# Section 9, mirrored: node 2 watches node 3.  A DownSig alone does not
# make it bid while it still grants node 3 a lease; the grant's expiry
# does.  When node 3 comes back, node 2 watches it again but stays leader.
@test "lease: the weak leader bids only once its grant to the leader lapses, then keeps its leadership when the higher node returns" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 2 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	200 down 3
	310.15 timer grant
	311 recv from=1 msg=Ok elid=2.1.1 t=4 inc=1 k=3
	312 recv from=3 msg=Request elid=3.2.1 delta=0.15 start=8 token=0 echo=0 einc=0 rem=0
	312 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 3
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	persist 0100000000000004030000000008f0d180
	trace lease op=grant to=3 until=0.31015 clock=0.16
	send to=3 msg=Ok elid=3.1.5 t=0.16 inc=1 k=3
	state status=Norm ldr=3 grp=-
	> 200 down 3
	fd stop 3
	> 310.15 timer grant
	trace clock c=0.31015
	state status=Wait ldr=- grp=-
	trace clock c=0.31015
	send to=1 msg=Request elid=2.1.1 delta=0.15 start=0.31015 token=0 echo=0 einc=0 rem=0 kseen=3
	send to=3 msg=Request elid=2.1.1 delta=0.15 start=0.31015 token=0 echo=0 einc=0 rem=0 kseen=3
	trace lease op=grant to=2 until=0.4603 clock=0.31015
	state status=Elec ldr=- grp=-
	> 311 recv from=1 msg=Ok elid=2.1.1 t=4 inc=1 k=3
	trace lead until=0.46 clock=0.311 qt=1:4,2:0.31015
	state status=Norm ldr=2 grp=-
	trace clock c=0.311
	send to=1 msg=Request elid=2.1.2 delta=0.15 start=0.311 token=4 echo=4 einc=1 rem=0.148851148 kseen=4
	send to=3 msg=Request elid=2.1.2 delta=0.15 start=0.311 token=4 echo=0 einc=0 rem=0.148851148 kseen=4
	trace lease op=grant to=2 until=0.46115 clock=0.311
	> 312 recv from=3 msg=Request elid=3.2.1 delta=0.15 start=8 token=0 echo=0 einc=0 rem=0
	fd start 3
	send to=3 msg=Refuse elid=3.2.1 why=busy ldr=2 left=0.14915 k=4
	> 312 query
	status status=Norm ldr=2 grp=- leader=no since=311 lease_until=0.46 token=-
	EOF
}

# No detector report: a grant that lapses without a renewal is one.  The
# node below the leader bids at the lapse; a grantor whose own grant has
# not lapsed yet refuses for the little it has left, and the bid comes
# back then.  The lowest node takes the leader for failed too, and keeps
# watching the node above it.
@test "lease: a grant that lapses unrenewed takes its grantee for failed: the next node bids at once, unless the lapse is seen late" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 2 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	260 recv from=3 msg=Request elid=3.1.6 delta=0.15 start=8 token=3 echo=0 einc=0 rem=0
	410.15 timer grant
	411 recv from=1 msg=Refuse elid=2.1.1 why=busy ldr=3 left=0.002 k=3
	413.5 timer try
	414 recv from=1 msg=Ok elid=2.1.2 t=4 inc=1 k=3
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 3
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	persist 0100000000000004030000000008f0d180
	trace lease op=grant to=3 until=0.31015 clock=0.16
	send to=3 msg=Ok elid=3.1.5 t=0.16 inc=1 k=3
	state status=Norm ldr=3 grp=-
	> 260 recv from=3 msg=Request elid=3.1.6 delta=0.15 start=8 token=3 echo=0 einc=0 rem=0
	trace lease op=grant to=3 until=0.41015 clock=0.26
	send to=3 msg=Ok elid=3.1.6 t=0.26 inc=1 k=3
	> 410.15 timer grant
	trace clock c=0.41015
	fd stop 3
	trace clock c=0.41015
	send to=1 msg=Request elid=2.1.1 delta=0.15 start=0.41015 token=0 echo=0 einc=0 rem=0 kseen=3
	send to=3 msg=Request elid=2.1.1 delta=0.15 start=0.41015 token=0 echo=0 einc=0 rem=0 kseen=3
	trace lease op=grant to=2 until=0.5603 clock=0.41015
	state status=Elec ldr=- grp=-
	> 411 recv from=1 msg=Refuse elid=2.1.1 why=busy ldr=3 left=0.002 k=3
	trace lease op=release to=2 clock=0.411
	send to=3 msg=Release elid=2.1.1 why=abort
	state status=Wait ldr=- grp=-
	> 413.5 timer try
	trace clock c=0.4135
	send to=1 msg=Request elid=2.1.2 delta=0.15 start=0.4135 token=0 echo=0 einc=0 rem=0 kseen=3
	send to=3 msg=Request elid=2.1.2 delta=0.15 start=0.4135 token=0 echo=0 einc=0 rem=0 kseen=3
	trace lease op=grant to=2 until=0.56365 clock=0.4135
	state status=Elec ldr=- grp=-
	> 414 recv from=1 msg=Ok elid=2.1.2 t=4 inc=1 k=3
	trace lead until=0.56335 clock=0.414 qt=1:4,2:0.4135
	state status=Norm ldr=2 grp=-
	trace clock c=0.414
	send to=1 msg=Request elid=2.1.3 delta=0.15 start=0.414 token=4 echo=4 einc=1 rem=0.149200799 kseen=4
	send to=3 msg=Request elid=2.1.3 delta=0.15 start=0.414 token=4 echo=0 einc=0 rem=0.149200799 kseen=4
	trace lease op=grant to=2 until=0.56415 clock=0.414
	EOF
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 1 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	310.15 timer grant
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 2
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	persist 0100000000000004030000000008f0d180
	trace lease op=grant to=3 until=0.31015 clock=0.16
	send to=3 msg=Ok elid=3.1.5 t=0.16 inc=1 k=3
	state status=Norm ldr=3 grp=-
	> 310.15 timer grant
	trace clock c=0.31015
	state status=Wait ldr=- grp=-
	EOF
	# Fired more than a round trip (5 ms) late: this node stalled, and
	# the leader's renewal may be waiting; no bid, the detector decides.
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 2 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	315.16 timer grant
	315.17 recv from=3 msg=Request elid=3.1.6 delta=0.15 start=8 token=3 echo=0 einc=0 rem=0
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 3
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	persist 0100000000000004030000000008f0d180
	trace lease op=grant to=3 until=0.31015 clock=0.16
	send to=3 msg=Ok elid=3.1.5 t=0.16 inc=1 k=3
	state status=Norm ldr=3 grp=-
	> 315.16 timer grant
	trace clock c=0.31516
	state status=Wait ldr=- grp=-
	> 315.17 recv from=3 msg=Request elid=3.1.6 delta=0.15 start=8 token=3 echo=0 einc=0 rem=0
	trace lease op=grant to=3 until=0.46532 clock=0.31517
	send to=3 msg=Ok elid=3.1.6 t=0.31517 inc=1 k=3
	state status=Norm ldr=3 grp=-
	EOF
}

# The lapse counts before any input that comes ahead of the grant timer
# (a lower node's bid, say): this node bids, and refuses the lower one.
@test "lease: a lapse not yet reported by the timer counts before the next input" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 2 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	310.5 recv from=1 msg=Request elid=1.1.1 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 3
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	persist 0100000000000004030000000008f0d180
	trace lease op=grant to=3 until=0.31015 clock=0.16
	send to=3 msg=Ok elid=3.1.5 t=0.16 inc=1 k=3
	state status=Norm ldr=3 grp=-
	> 310.5 recv from=1 msg=Request elid=1.1.1 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0
	fd stop 3
	trace clock c=0.3105
	send to=1 msg=Request elid=2.1.1 delta=0.15 start=0.3105 token=0 echo=0 einc=0 rem=0 kseen=3
	send to=3 msg=Request elid=2.1.1 delta=0.15 start=0.3105 token=0 echo=0 einc=0 rem=0 kseen=3
	trace lease op=grant to=2 until=0.46065 clock=0.3105
	state status=Elec ldr=- grp=-
	send to=1 msg=Refuse elid=1.1.1 why=busy ldr=2 left=0.15015 k=3
	EOF
}

# Leaving, it persists K itself as its bound (8, not 8 + 1024), after its
# Releases: restarted, it reports 8, and the next token need not cross
# the other grantors' bounds (share/elect/lease.md, Fencing token).
@test "lease: a leader that leaves gives up its leadership and its grants at once, then hears nothing; its bound is K itself" {
	run algo-drive -t lease=150 -t renew=50 -a lease -i 3 -n 3 <<-EOF
	0 boot inc=2
	150.15 timer quiet
	152 recv from=2 msg=Ok elid=3.2.1 t=5 inc=4 k=7
	153 recv from=1 msg=Ok elid=3.2.2 t=9 inc=1 k=8
	160 cmd leave
	161 recv from=1 msg=Request elid=1.1.1 delta=0.15 start=1 token=0 echo=0 einc=0 rem=0
	161 query
	170 boot inc=3
	171 recv from=2 msg=Request elid=2.4.1 delta=0.15 start=1 token=0 echo=0 einc=0 rem=0
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=2
	trace clock c=0
	timer set quiet at=150.15
	state status=Wait ldr=- grp=-
	> 150.15 timer quiet
	trace clock c=0.15015
	send to=1 msg=Request elid=3.2.1 delta=0.15 start=0.15015 token=0 echo=0 einc=0 rem=0 kseen=0
	send to=2 msg=Request elid=3.2.1 delta=0.15 start=0.15015 token=0 echo=0 einc=0 rem=0 kseen=0
	persist 0100000000000000000000000008f0d180
	trace lease op=grant to=3 until=0.3003 clock=0.15015
	timer set grant at=300.3
	timer set abort at=300
	state status=Elec ldr=- grp=-
	> 152 recv from=2 msg=Ok elid=3.2.1 t=5 inc=4 k=7
	timer cancel abort
	trace lead until=0.3 clock=0.152 qt=2:5,3:0.15015
	timer set lead at=300
	state status=Norm ldr=3 grp=-
	trace clock c=0.152
	send to=1 msg=Request elid=3.2.2 delta=0.15 start=0.152 token=8 echo=0 einc=0 rem=0.147852147 kseen=8
	send to=2 msg=Request elid=3.2.2 delta=0.15 start=0.152 token=8 echo=5 einc=4 rem=0.147852147 kseen=8
	persist 0100000000000004080000000008f0d180
	trace lease op=grant to=3 until=0.30215 clock=0.152
	timer set grant at=302.15
	timer set abort at=301.85
	timer set try at=202
	> 153 recv from=1 msg=Ok elid=3.2.2 t=9 inc=1 k=8
	timer cancel abort
	trace lead until=0.30185 clock=0.153 qt=1:9,3:0.152 token=8
	timer set lead at=301.85
	> 160 cmd leave
	trace lead until=0.16 clock=0.16
	timer cancel lead
	trace lease op=release to=3 clock=0.16
	timer cancel grant
	send to=1 msg=Release elid=3.2.2 why=leave
	send to=2 msg=Release elid=3.2.2 why=leave
	persist 0100000000000000080000000008f0d180
	timer cancel try
	timer cancel abort
	timer cancel lead
	timer cancel grant
	timer cancel quiet
	state status=Down ldr=- grp=-
	> 161 recv from=1 msg=Request elid=1.1.1 delta=0.15 start=1 token=0 echo=0 einc=0 rem=0
	> 161 query
	status status=Down ldr=- grp=- leader=no since=160
	> 170 boot inc=3
	trace clock c=0.17
	timer set quiet at=320.15
	state status=Wait ldr=- grp=-
	> 171 recv from=2 msg=Request elid=2.4.1 delta=0.15 start=1 token=0 echo=0 einc=0 rem=0
	send to=2 msg=Refuse elid=2.4.1 why=quiet ldr=0 left=0.14915 k=8
	EOF
}

@test "lease: a departing leader's Release lets the next node bid at once; a grantor that has not seen it yet costs one short retry" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 2 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	170 recv from=3 msg=Release elid=3.1.5 why=leave
	171 recv from=1 msg=Refuse elid=2.1.1 why=busy ldr=3 left=0.139 k=3
	173.9 timer try
	174 recv from=1 msg=Ok elid=2.1.2 t=4 inc=1 k=3
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 3
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	persist 0100000000000004030000000008f0d180
	trace lease op=grant to=3 until=0.31015 clock=0.16
	send to=3 msg=Ok elid=3.1.5 t=0.16 inc=1 k=3
	state status=Norm ldr=3 grp=-
	> 170 recv from=3 msg=Release elid=3.1.5 why=leave
	trace lease op=release to=3 clock=0.17
	fd stop 3
	trace clock c=0.17
	send to=1 msg=Request elid=2.1.1 delta=0.15 start=0.17 token=0 echo=0 einc=0 rem=0 kseen=3
	send to=3 msg=Request elid=2.1.1 delta=0.15 start=0.17 token=0 echo=0 einc=0 rem=0 kseen=3
	trace lease op=grant to=2 until=0.32015 clock=0.17
	state status=Elec ldr=- grp=-
	> 171 recv from=1 msg=Refuse elid=2.1.1 why=busy ldr=3 left=0.139 k=3
	trace lease op=release to=2 clock=0.171
	send to=3 msg=Release elid=2.1.1 why=abort
	state status=Wait ldr=- grp=-
	> 173.9 timer try
	trace clock c=0.1739
	send to=1 msg=Request elid=2.1.2 delta=0.15 start=0.1739 token=0 echo=0 einc=0 rem=0 kseen=3
	send to=3 msg=Request elid=2.1.2 delta=0.15 start=0.1739 token=0 echo=0 einc=0 rem=0 kseen=3
	trace lease op=grant to=2 until=0.32405 clock=0.1739
	state status=Elec ldr=- grp=-
	> 174 recv from=1 msg=Ok elid=2.1.2 t=4 inc=1 k=3
	trace lead until=0.32375 clock=0.174 qt=1:4,2:0.1739
	state status=Norm ldr=2 grp=-
	trace clock c=0.174
	send to=1 msg=Request elid=2.1.3 delta=0.15 start=0.174 token=4 echo=4 einc=1 rem=0.149600399 kseen=4
	send to=3 msg=Request elid=2.1.3 delta=0.15 start=0.174 token=4 echo=0 einc=0 rem=0.149600399 kseen=4
	trace lease op=grant to=2 until=0.32415 clock=0.174
	EOF
}

# A dead leader's guard sends Dead on its behalf (elect-node(1),
# --run-if-leader): the grant to that incarnation ends at once, the next
# node bids, and what the dead incarnation sent before still in flight is
# refused.  A Dead names one incarnation: it ends nothing of a later one.
@test "lease: a dead incarnation's Dead ends its grant at once and the next node bids; its late Request is refused; a later life is untouched" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 2 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	170 recv from=3 msg=Dead elid=3.1.0
	171 recv from=3 msg=Request elid=3.1.6 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	172 recv from=3 msg=Dead elid=3.1.5
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 3
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	persist 0100000000000004030000000008f0d180
	trace lease op=grant to=3 until=0.31015 clock=0.16
	send to=3 msg=Ok elid=3.1.5 t=0.16 inc=1 k=3
	state status=Norm ldr=3 grp=-
	> 170 recv from=3 msg=Dead elid=3.1.0
	trace lease op=release to=3 clock=0.17
	fd stop 3
	trace clock c=0.17
	send to=1 msg=Request elid=2.1.1 delta=0.15 start=0.17 token=0 echo=0 einc=0 rem=0 kseen=3
	send to=3 msg=Request elid=2.1.1 delta=0.15 start=0.17 token=0 echo=0 einc=0 rem=0 kseen=3
	trace lease op=grant to=2 until=0.32015 clock=0.17
	state status=Elec ldr=- grp=-
	> 171 recv from=3 msg=Request elid=3.1.6 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	error refused
	> 172 recv from=3 msg=Dead elid=3.1.5
	error refused
	EOF

	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 1 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.2.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	170 recv from=3 msg=Dead elid=3.1.0
	171 recv from=3 msg=Dead elid=3.2.0
	172 recv from=3 msg=Dead elid=3.2.0
	173 recv from=3 msg=Request elid=3.3.1 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	173 query
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 2
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.2.5 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	persist 0100000000000004030000000008f0d180
	trace lease op=grant to=3 until=0.31015 clock=0.16
	send to=3 msg=Ok elid=3.2.5 t=0.16 inc=1 k=3
	state status=Norm ldr=3 grp=-
	> 170 recv from=3 msg=Dead elid=3.1.0
	> 171 recv from=3 msg=Dead elid=3.2.0
	trace lease op=release to=3 clock=0.171
	state status=Wait ldr=- grp=-
	> 172 recv from=3 msg=Dead elid=3.2.0
	> 173 recv from=3 msg=Request elid=3.3.1 delta=0.15 start=7 token=3 echo=0 einc=0 rem=0
	trace lease op=grant to=3 until=0.32315 clock=0.173
	send to=3 msg=Ok elid=3.3.1 t=0.173 inc=1 k=3
	state status=Norm ldr=3 grp=-
	> 173 query
	status status=Norm ldr=3 grp=- leader=no since=173 grants_to=3 grant_until=0.32315
	EOF
}

# The first life granted delta = 0.4 s: the second waits 0.4 (1 + 1e-3)
# from its boot at 0.17, until 0.5704.  A token below the highest seen is
# refused as stale; after the restart the node reports the bound on K it
# persisted (1024 above), yet takes the leadership still running.
@test "lease: after a restart a node grants nothing until the longest lease it ever granted has lapsed; K survives as a bound; stale tokens are refused" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 1 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.5 delta=0.4 start=7 token=6 echo=0 einc=0 rem=0
	161 recv from=3 msg=Request elid=3.1.6 delta=0.4 start=7 token=5 echo=0 einc=0 rem=0
	170 boot inc=2
	170 query
	570 recv from=3 msg=Request elid=3.2.1 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0
	571 recv from=3 msg=Request elid=3.2.1 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0
	571 recv from=3 msg=Request elid=3.2.2 delta=0.15 start=9 token=6 echo=0 einc=0 rem=0
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	fd start 2
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.1.5 delta=0.4 start=7 token=6 echo=0 einc=0 rem=0
	persist 0100000000000004060000000017d78400
	trace lease op=grant to=3 until=0.5604 clock=0.16
	send to=3 msg=Ok elid=3.1.5 t=0.16 inc=1 k=6
	state status=Norm ldr=3 grp=-
	> 161 recv from=3 msg=Request elid=3.1.6 delta=0.4 start=7 token=5 echo=0 einc=0 rem=0
	send to=3 msg=Refuse elid=3.1.6 why=stale ldr=0 left=0 k=6
	> 170 boot inc=2
	trace clock c=0.17
	fd start 2
	state status=Wait ldr=- grp=-
	> 170 query
	status status=Wait ldr=- grp=- leader=no since=170 quiet_until=0.5704
	> 570 recv from=3 msg=Request elid=3.2.1 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0
	send to=3 msg=Refuse elid=3.2.1 why=quiet ldr=0 left=0.0004 k=1030
	> 571 recv from=3 msg=Request elid=3.2.1 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0
	error refused
	> 571 recv from=3 msg=Request elid=3.2.2 delta=0.15 start=9 token=6 echo=0 einc=0 rem=0
	trace lease op=grant to=3 until=0.72115 clock=0.571
	send to=3 msg=Ok elid=3.2.2 t=0.571 inc=2 k=1030
	state status=Norm ldr=3 grp=-
	EOF
}

# Fencing token: node 1 restarts with the bound it persisted (1030) and
# reports it as K; the leader's next renewal carries it as the K it has
# seen, and node 1 persists a bound above the next token (1031 + 1024 =
# 2055) after its Ok.  The leader leaves; node 2's bid and the run that
# establishes its token 1031 are answered without a write to disk.  A
# 48-byte Request (no K seen) is still read; a K seen with no room for a
# next token in the epoch is malformed.
@test "lease: a renewal carrying the K its leader has seen moves the grantor's persist off the next handover" {
	run algo-drive -t lease=150 -t renew=50 -a lease -i 1 -n 3 <<-EOF
	0 boot inc=1
	160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=6 echo=0 einc=0 rem=0
	170 boot inc=2
	330 recv from=3 msg=Request elid=3.1.9 delta=0.15 start=7.2 token=6 echo=0 einc=0 rem=0.1 kseen=6
	340 recv from=3 msg=Request elid=3.1.10 delta=0.15 start=7.21 token=6 echo=0.33 einc=2 rem=0.1 kseen=1099511627775
	350 recv from=3 msg=Request elid=3.1.11 delta=0.15 start=7.22 token=6 echo=0.33 einc=2 rem=0.1 kseen=1030
	360 recv from=3 msg=Release elid=3.1.11 why=leave
	361 recv from=2 msg=Request elid=2.1.1 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0 kseen=1030
	362 recv from=2 msg=Request elid=2.1.2 delta=0.15 start=9.001 token=1031 echo=0.361 einc=2 rem=0.149 kseen=1031
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 boot inc=1
	trace clock c=0
	timer set quiet at=150.15
	fd start 2
	state status=Wait ldr=- grp=-
	> 160 recv from=3 msg=Request elid=3.1.5 delta=0.15 start=7 token=6 echo=0 einc=0 rem=0
	persist 0100000000000004060000000008f0d180
	trace lease op=grant to=3 until=0.31015 clock=0.16
	timer set grant at=310.15
	send to=3 msg=Ok elid=3.1.5 t=0.16 inc=1 k=6
	state status=Norm ldr=3 grp=-
	> 170 boot inc=2
	trace clock c=0.17
	timer set quiet at=320.15
	fd start 2
	state status=Wait ldr=- grp=-
	> 330 recv from=3 msg=Request elid=3.1.9 delta=0.15 start=7.2 token=6 echo=0 einc=0 rem=0.1 kseen=6
	trace lease op=grant to=3 until=0.48015 clock=0.33
	timer set grant at=480.15
	send to=3 msg=Ok elid=3.1.9 t=0.33 inc=2 k=1030
	state status=Norm ldr=3 grp=-
	> 340 recv from=3 msg=Request elid=3.1.10 delta=0.15 start=7.21 token=6 echo=0.33 einc=2 rem=0.1 kseen=1099511627775
	error refused
	> 350 recv from=3 msg=Request elid=3.1.11 delta=0.15 start=7.22 token=6 echo=0.33 einc=2 rem=0.1 kseen=1030
	trace lease op=grant to=3 until=0.50015 clock=0.35
	timer set grant at=500.15
	send to=3 msg=Ok elid=3.1.11 t=0.35 inc=2 k=1030
	persist 0100000000000008070000000008f0d180
	> 360 recv from=3 msg=Release elid=3.1.11 why=leave
	trace lease op=release to=3 clock=0.36
	timer cancel grant
	state status=Wait ldr=- grp=-
	> 361 recv from=2 msg=Request elid=2.1.1 delta=0.15 start=9 token=0 echo=0 einc=0 rem=0 kseen=1030
	trace lease op=grant to=2 until=0.51115 clock=0.361
	timer set grant at=511.15
	send to=2 msg=Ok elid=2.1.1 t=0.361 inc=2 k=1030
	state status=Norm ldr=2 grp=-
	> 362 recv from=2 msg=Request elid=2.1.2 delta=0.15 start=9.001 token=1031 echo=0.361 einc=2 rem=0.149 kseen=1031
	trace lease op=grant to=2 until=0.51215 clock=0.362
	timer set grant at=512.15
	send to=2 msg=Ok elid=2.1.2 t=0.362 inc=2 k=1031
	EOF
}

# The leader's side: K = 1032 in a restarted node's Refuse (quiet) goes
# out in the next renewal's Requests, and the leader's own grantor
# persists its bound above the next token (1033 + 1024 = 2057) after
# sending them.
@test "lease: a leader carries the highest K it heard in its Requests and raises its own bound after sending them" {
	run algo-drive -q -t lease=150 -t renew=50 -a lease -i 3 -n 3 <<-EOF
	0 boot inc=2
	150.15 timer quiet
	152 recv from=2 msg=Ok elid=3.2.1 t=5 inc=4 k=7
	153 recv from=1 msg=Ok elid=3.2.2 t=9 inc=1 k=8
	202 timer try
	203 recv from=1 msg=Refuse elid=3.2.3 why=quiet ldr=0 left=0.1 k=1032
	204 recv from=2 msg=Ok elid=3.2.3 t=5.05 inc=4 k=8
	252 timer try
	EOF
	assert_success
	# From the renewal that hears it on (the bid and the token are as above).
	run sed -n '/^> 203 /,$p' <<<"$output"
	assert_output - <<-EOF
	> 203 recv from=1 msg=Refuse elid=3.2.3 why=quiet ldr=0 left=0.1 k=1032
	> 204 recv from=2 msg=Ok elid=3.2.3 t=5.05 inc=4 k=8
	trace lead until=0.35185 clock=0.204 qt=2:5.05,3:0.202 token=8
	> 252 timer try
	trace clock c=0.252
	send to=1 msg=Request elid=3.2.4 delta=0.15 start=0.252 token=8 echo=9 einc=1 rem=0.099750249 kseen=1032
	send to=2 msg=Request elid=3.2.4 delta=0.15 start=0.252 token=8 echo=5.05 einc=4 rem=0.099750249 kseen=1032
	trace lease op=grant to=3 until=0.40215 clock=0.252
	persist 0100000000000008090000000008f0d180
	EOF
}

# lease_sweep SEEDS ARGS...: clusters of 3 to 7 nodes; the simulator's
# oracle (-O: at most one leader at any real instant, tokens growing from
# one leadership to the next, edicts delivered in the order they were
# made) and elect-check -s lease must both pass every run.
lease_sweep() {
	local seeds=$1 s n
	shift
	for s in $(seq 1 "$seeds"); do
		n=$((3 + s % 5))
		elect-sim -a lease -n $n -s $s -O -e "3.3 edict $n a" \
		    -e "3.31 edict $n b" -e "6 edict 2 c" -e "6 edict 3 d" \
		    "$@" >"$BATS_TEST_TMPDIR/trace" 2>"$BATS_TEST_TMPDIR/err" ||
		    fail "elect-sim -n $n -s $s $*: $(cat "$BATS_TEST_TMPDIR/err")"
		run elect-check -s lease "$BATS_TEST_TMPDIR/trace"
		[ "$status" -eq 0 ] || fail "elect-sim -n $n -s $s $*: $output"
	done
}

@test "lease: simulated crashes, pauses and partitions never give two leaders, stale tokens or misordered edicts" {
	lease_sweep 40 -d 12 -r 6 -k crash,recovery,pause,partition
}

@test "lease: so do clocks drifting within the bound, message loss and reordering" {
	lease_sweep 40 -d 12 -r 6 -k crash,recovery,pause,partition -D 0.001 \
	    -o 3000 -x 3 -R -m 0.1:3
}

@test "lease: OQwBS keeps the promises under a skew bound" {
	lease_sweep 20 -d 12 -r 6 -k crash,recovery,pause,partition -t skew=5 -o 5
}

# The oracle and the checker must be able to fail: clocks that drift 9%
# under a core told they drift not at all break Lemma 3.1.
@test "lease: the oracle and elect-check both catch clocks drifting beyond the bound" {
	local s caught=0
	for s in $(seq 1 20); do
		elect-sim -a lease -n 3 -s $s -d 12 -r 8 -k crash,recovery,pause,partition \
		    -D 0.09 -t drift=0 -O >"$BATS_TEST_TMPDIR/trace" \
		    2>"$BATS_TEST_TMPDIR/err" && continue
		grep -q 'leaders, among them' "$BATS_TEST_TMPDIR/err" ||
		    fail "$(cat "$BATS_TEST_TMPDIR/err")"
		run elect-check -s lease "$BATS_TEST_TMPDIR/trace"
		[ "$status" -eq 1 ] && caught=$((caught + 1))
	done
	[ "$caught" -ge 2 ] || fail "caught $caught times"
}

# Node 3 leads, crashes; node 2 leads, crashes; node 3 comes back with the
# bound on K it persisted (1025) and must still go above node 2's token,
# which it learns from node 1's Ok.  Then every node of five restarts in turn,
# twice, and the leader with it whenever it is hit: a crashed node reports
# its bound, which the renewals then carry, so each restart moves every
# bound (and the next token) about a stride up.
@test "lease: fencing tokens grow across every change of leader and every restart" {
	local t=1 i r ev=()
	run elect-sim -a lease -n 3 -s 1 -d 4 -O -e '1 crash 3' -e '2 crash 2' \
	    -e '3 boot 3'
	assert_success
	run awk '$3 == "lead" && /token=/ { t = $NF; sub(/token=/, "", t)
		if (t != last) printf "%s:%s ", $2, t; last = t }' <<<"$output"
	assert_output "3:1 2:2 3:1026 "
	for r in 1 2; do
		for i in 5 4 3 2 1; do
			ev+=(-e "$t.0 crash $i" -e "$t.4 boot $i")
			t=$((t + 1))
		done
	done
	run elect-sim -a lease -n 5 -s 1 -d 12 -O "${ev[@]}"
	assert_success
	run awk '$3 == "lead" && /token=/ { t = $NF; sub(/token=/, "", t)
		if (t != last) printf "%s:%s ", $2, t; last = t }' <<<"$output"
	assert_output "5:1 4:2 5:1026 4:4101 5:6151 "
	# The same with nodes that leave (SIGTERM): each persisted K itself,
	# so tokens grow by one a leadership.
	ev=()
	t=1
	for r in 1 2; do
		for i in 5 4 3 2 1; do
			ev+=(-e "$t.0 leave $i" -e "$t.4 boot $i")
			t=$((t + 1))
		done
	done
	run elect-sim -a lease -n 5 -s 1 -d 12 -O "${ev[@]}"
	assert_success
	run awk '$3 == "lead" && /token=/ { t = $NF; sub(/token=/, "", t)
		if (t != last) printf "%s:%s ", $2, t; last = t }' <<<"$output"
	assert_output "5:1 4:2 5:3 4:4 5:5 "
}

# Failover: the grants to a crashed leader run out within the lease
# (150 ms, renewed every 50); a departing leader releases them at once.
@test "lease: a crashed leader is replaced within the lease, a departing one within milliseconds" {
	local s ms
	for s in $(seq 1 20); do
		ms=$(elect-sim -a lease -n 5 -s $s -d 3 -S -O \
		    -e "2.0$((s % 50)) crash 5" 2>&1 >/dev/null |
		    sed -n 's/.*after crash.*(+\([0-9]*\)\..*/\1/p')
		[[ -n $ms && $ms -le 160 ]] || fail "seed $s: crash, $ms ms"
		ms=$(elect-sim -a lease -n 5 -s $s -d 3 -S -O \
		    -e "2.0$((s % 50)) leave 5" 2>&1 >/dev/null |
		    sed -n 's/.*after leave.*(+\([0-9]*\)\..*/\1/p')
		[[ -n $ms && $ms -lt 10 ]] || fail "seed $s: leave, $ms ms"
	done
}

@test "lease: a leader paused past its lease is replaced, and does not lead again when it resumes" {
	elect-sim -a lease -n 5 -s 3 -d 4 -O -e '1 pause 5' -e '2 resume 5' \
	    >"$BATS_TEST_TMPDIR/trace"
	run awk '$3 == "lead" && $1 > 1 && $1 < 2 { print $2 }' \
	    "$BATS_TEST_TMPDIR/trace"
	assert_line 4
	refute_line 5
	run awk '$3 == "lead" && $1 >= 2 { print $2 }' "$BATS_TEST_TMPDIR/trace"
	assert_line 4
	refute_line 5
	run elect-check -s lease "$BATS_TEST_TMPDIR/trace"
	assert_success
}

@test "lease: a leader cut off in a minority stops leading; the majority elects another" {
	elect-sim -a lease -n 5 -s 2 -d 4 -O -e '1 partition 4,5/1,2,3' \
	    -e '3 heal' >"$BATS_TEST_TMPDIR/trace"
	run awk '$3 == "lead" && $1 > 1.2 && $1 < 3 { print $2 }' \
	    "$BATS_TEST_TMPDIR/trace"
	assert_line 3
	refute_line 5
	refute_line 4
	run elect-check -s lease "$BATS_TEST_TMPDIR/trace"
	assert_success
}

# Edicts 1 ms apart over links that delay by up to 30 ms and reorder:
# every node delivers in the order of making and refuses the late ones.
@test "lease: edicts arrive in order despite reordering; late ones are refused" {
	local i ev=()
	for i in $(seq 0 9); do
		ev+=(-e "2.00$i edict 5 e$i")
	done
	elect-sim -a lease -n 5 -s 4 -d 3 -R -m 0.1:30 -t lease=400 \
	    -t renew=100 -t rtt=60 -O "${ev[@]}" >"$BATS_TEST_TMPDIR/trace"
	run grep -c ' edict seq=' "$BATS_TEST_TMPDIR/trace"
	assert_output 10
	run grep -c 'why=edict-order' "$BATS_TEST_TMPDIR/trace"
	[ "$output" -ge 1 ] || fail "no edict arrived late"
	run awk '$3 == "deliver" { split($5, a, "="); if (a[2] + 0 <= last[$2])
		print "out of order: " $0; last[$2] = a[2] + 0; n++ }
		END { print n " deliveries" }' "$BATS_TEST_TMPDIR/trace"
	refute_output --partial "out of order"
	run elect-check -s lease "$BATS_TEST_TMPDIR/trace"
	assert_success
}

@test "lease: the timing must leave a lease room for two renewals" {
	run elect-sim -a lease -n 3 -t renew=100
	assert_failure
	assert_output --partial "timing lease must be at least 2 renew + rtt"
	run elect-sim -a lease -n 3 -t rtt=60
	assert_failure
	assert_output --partial "timing rtt must not exceed renew"
	run elect-sim -a lease -n 3 -t drift=0.2
	assert_failure
	assert_output --partial "timing drift out of range"
}

@test "lease: the same seed gives the same trace, with drifting clocks too" {
	elect-sim -a lease -n 5 -s 9 -d 6 -r 3 -k crash,recovery,pause,partition \
	    -D 0.001 -o 100 -x 5 -R >"$BATS_TEST_TMPDIR/a"
	elect-sim -a lease -n 5 -s 9 -d 6 -r 3 -k crash,recovery,pause,partition \
	    -D 0.001 -o 100 -x 5 -R >"$BATS_TEST_TMPDIR/b"
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
}
