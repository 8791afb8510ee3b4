#!/usr/bin/env bats
# The failure-detector core (lib/fd) on a simulated clock, through fd-sim:
# exact times, no sockets.  Node 1 runs the core; interval 50 ms, timeout
# 200 ms unless a test says otherwise.  fd-sim completes the handshake
# before time 0 (t/tools/fd-sim.c): each peer has had seq 1 and 2 already.

load helper

sim() {
	run fd-sim "$@"
	assert_success
}

@test "a node silent since start is reported exactly one timeout later" {
	sim <<-EOF
	0 cmd start 2
	600 end
	EOF
	assert_line '0 send 2 monitor 50000 3000 seq=3'
	assert_line '200 down 2'
	[ "$(grep -c down <<< "$output")" = 1 ]
}

@test "heartbeats push the report back; it comes a timeout after the last" {
	sim <<-EOF
	0 cmd start 2
	120 from 2 alive
	170 from 2 alive
	600 end
	EOF
	assert_output - <<-EOF
	0 send 2 monitor 50000 3000 seq=3
	100 send 2 monitor 50000 3000 seq=4
	270 send 2 monitor 50000 3000 seq=5
	320 send 2 monitor 50000 3000 seq=6
	370 send 2 monitor 50000 3000 seq=7
	370 down 2
	420 send 2 monitor 50000 3000 seq=8
	470 send 2 monitor 50000 3000 seq=9
	520 send 2 monitor 50000 3000 seq=10
	570 send 2 monitor 50000 3000 seq=11
	EOF
}

@test "a heard node is asked again only once a second" {
	script=$(for t in $(seq 0 50 1500); do echo "$t from 2 alive"; done)
	sim <<-EOF
	0 cmd start 2
	$script
	EOF
	assert_output - <<-EOF
	0 send 2 monitor 50000 3000 seq=3
	1000 send 2 monitor 50000 3000 seq=4
	EOF
}

@test "start resets the silence; stop ends monitoring and says so" {
	sim <<-EOF
	0 cmd start 2
	0 cmd start 1
	10 from 2 alive
	100 cmd start 2
	250 cmd stop 2
	600 end
	EOF
	assert_output - <<-EOF
	0 send 2 monitor 50000 3000 seq=3
	100 send 2 monitor 50000 3000 seq=4
	200 send 2 monitor 50000 3000 seq=5
	250 send 2 monitor 50000 3000 seq=6
	250 send 2 unmonitor seq=7
	EOF
}

@test "start of a node reported and silent since reports it one interval later" {
	sim <<-EOF
	0 cmd start 2
	1000 cmd start 2
	1000 cmd start 2
	1500 end
	EOF
	# It is asked again for heartbeats all the same.
	assert_line --regexp '^1000 send 2 monitor 50000 3000 seq=[0-9]+$'
	run grep -v 'send 2 monitor' <<< "$output"
	assert_output - <<-EOF
	200 down 2
	1050 down 2
	EOF
}

# It may have come back just before the start, unheard yet: a report is
# owed only if it is down after the start.
@test "a node reported, then heard within an interval of the start, is not reported again at once" {
	for ev in 'from 2 alive' 'from 2 hello' 'cmd alive 2'; do
		sim <<-EOF
		0 cmd start 2
		1000 cmd start 2
		1040 $ev
		1500 end
		EOF
		run grep down <<< "$output"
		assert_output - <<-EOF
		200 down 2
		1240 down 2
		EOF
	done
}

# A process that stood still (paused, starved, a host that froze) learns
# nothing from its peers' silence meanwhile: on a frozen host theirs stood
# still too.  Silence counts only while the detector runs, and each peer
# gets at least two intervals after the late tick to be heard.
@test "after a stall of the detector itself, the stall does not count as silence" {
	sim <<-EOF
	0 cmd start 2
	20 from 2 alive
	70 from 2 alive
	120 from 2 alive
	1000 stall
	1500 end
	EOF
	run grep down <<< "$output"
	assert_output '1200 down 2'
	# Its silence while the detector ran counts: with a 1 s time-out,
	# heard at 20, last ticked at 370, still until 900: 350 ms before the
	# stall and 650 after.
	sim -T 1000 <<-EOF
	0 cmd start 2
	20 from 2 alive
	400 end
	900 stall
	3000 end
	EOF
	run grep down <<< "$output"
	assert_output '1550 down 2'
	# Stalled near the end of its time-out, it still gets two intervals.
	sim <<-EOF
	0 cmd start 2
	20 from 2 alive
	200 end
	400 stall
	600 end
	EOF
	run grep down <<< "$output"
	assert_output '500 down 2'
	# Late by less than three intervals: nothing is pushed back.
	sim <<-EOF
	0 cmd start 2
	20 from 2 alive
	170 stall
	600 end
	EOF
	run grep down <<< "$output"
	assert_output '220 down 2'
}

@test "one down per start; after heard, hello, alive or stop, start re-arms it" {
	for ev in 'from 2 alive' 'from 2 hello' 'cmd alive 2' 'cmd stop 2'; do
		sim <<-EOF
		0 cmd start 2
		300 $ev
		1000 cmd start 2
		1500 end
		EOF
		run grep down <<< "$output"
		assert_output - <<-EOF
		200 down 2
		1200 down 2
		EOF
	done
}

@test "hello from a monitored node asks it for heartbeats at once" {
	sim <<-EOF
	0 cmd start 2
	230 from 2 hello
	240 end
	EOF
	run tail -n 2 <<< "$output"
	assert_output - <<-EOF
	200 down 2
	230 send 2 monitor 50000 3000 seq=7
	EOF
	sim -m ping <<-EOF
	0 cmd start 2
	30 from 2 hello
	40 end
	EOF
	assert_output - <<-EOF
	0 send 2 ping seq=3
	30 send 2 ping seq=4
	EOF
}

@test "alive from the client starts the silence again, but never a report" {
	sim <<-EOF
	0 cmd start 2
	150 cmd alive 2
	150 cmd alive 3
	600 end
	EOF
	run grep down <<< "$output"
	assert_output '350 down 2'
	# No report for an unmonitored node, alive or not.
	sim <<-EOF
	0 cmd alive 2
	600 end
	EOF
	assert_output ''
}

@test "without report-up a returning node is silent; with it, up re-arms" {
	script='0 cmd start 2
	300 from 2 alive
	310 replay
	320 from 2 alive
	600 end'
	sim <<< "$script"
	run grep -v send <<< "$output"
	assert_output - <<-EOF
	200 down 2
	310 drop 2 replay
	EOF
	sim -u <<< "$script"
	run grep -v send <<< "$output"
	assert_output - <<-EOF
	200 down 2
	300 up 2
	310 drop 2 replay
	520 down 2
	EOF
}

@test "ping mode: pings every interval, only answers to them count" {
	sim -m ping <<-EOF
	0 cmd start 2
	10 from 2 pong 3
	30 from 2 pong 3
	60 from 2 pong 4
	90 from 2 pong 99
	260 end
	270 cmd stop 2
	600 end
	EOF
	assert_output - <<-EOF
	0 send 2 ping seq=3
	50 send 2 ping seq=4
	90 send 2 ping seq=5
	140 send 2 ping seq=6
	190 send 2 ping seq=7
	240 send 2 ping seq=8
	260 down 2
	EOF
}

@test "ping mode: a pong to a ping from before the latest start is stale" {
	sim -m ping <<-EOF
	0 cmd start 2
	100 cmd start 2
	110 from 2 pong 3
	400 end
	EOF
	assert_line '300 down 2'
}

@test "the core answers pings and serves subscriptions; playdead stops both" {
	sim <<-EOF
	0 from 2 monitor 50000 3000
	10 from 3 ping
	60 cmd playdead 2 3
	70 from 3 ping
	200 cmd playalive 2
	230 from 2 unmonitor
	400 end
	EOF
	assert_output - <<-EOF
	0 send 2 alive seq=3
	10 send 3 pong seq=3
	50 send 2 alive seq=4
	200 send 2 alive seq=5
	EOF
}

@test "a subscription runs out with its lease" {
	sim <<-EOF
	0 from 2 monitor 100000 250
	1000 end
	EOF
	assert_output - <<-EOF
	0 send 2 alive seq=3
	100 send 2 alive seq=4
	200 send 2 alive seq=5
	EOF
}

@test "malformed payloads and unknown nodes are refused" {
	sim <<-EOF
	0 from 3 monitor 0 3000
	0 from 3 monitor 50000 10
	0 from 3 monitor 50000 4000000
	0 cmd start 4
	0 cmd playdead 2 4
	300 end
	EOF
	assert_output - <<-EOF
	0 drop 3 bad-payload
	0 drop 3 bad-payload
	0 drop 3 bad-payload
	0 refused unknown node
	0 refused unknown node
	EOF
}

@test "phi accrual: the limit follows the inter-arrival times" {
	sim -p 8 <<-EOF
	0 cmd start 2
	0 limit 2
	50 from 2 alive
	100 from 2 alive
	150 from 2 alive
	200 from 2 alive
	250 from 2 alive
	250 limit 2
	260 from 2 alive
	400 from 2 alive
	400 limit 2
	1000 end
	EOF
	# No samples yet: mean 50, deviation 25 (half an interval), and
	# phi = 8 at 5.612 deviations.  Then 50, 50, 50, 50, 10, 140.
	assert_line '0 limit 190.300'
	assert_line '250 limit 190.300'
	assert_line '400 limit 300.149'
	assert_line '700.149 down 2'
}

@test "phi accrual: the silence of an outage is not an interval" {
	sim -p 8 -u <<-EOF
	0 cmd start 2
	50 from 2 alive
	100 from 2 alive
	5000 from 2 alive
	5000 limit 2
	5050 from 2 alive
	5050 limit 2
	EOF
	assert_line '290.3 down 2'
	assert_line '5000 up 2'
	assert_line '5000 limit 190.300'
	assert_line '5050 limit 190.300'
}
