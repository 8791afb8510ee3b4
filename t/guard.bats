#!/usr/bin/env bats
# The guard of --run-if-leader (lib/guard), driven without processes or
# clocks by guard-drive.  Under the daemon's default lease timings (lease
# 80 ms, renew 20, rtt 5, drift 0.001) the margin is 20 ms and the guard
# asks every 5 ms; with the default grace of 20 ms, a grant that ends at
# 300 means SIGTERM at 260 and SIGKILL at 280.

load helper

@test "guard: starts under a grant, asks every poll, and stops the command by its deadline" {
	run guard-drive <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	5 tick
	7 reply leader=yes token=7 until=320
	10 tick
	12 noreply
	280 tick
	300 tick
	301 exited
	302 reaped signal=9
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	wake at=5
	> 5 tick
	ask
	wake at=10
	> 7 reply leader=yes token=7 until=320
	> 10 tick
	ask
	wake at=15
	> 12 noreply
	> 280 tick
	term why=deadline
	wake at=300
	> 300 tick
	kill why=deadline
	wake none
	> 301 exited
	kill why=exited
	wake at=302
	> 302 reaped signal=9
	exit status=137 why=done
	wake none
	EOF
}

@test "guard: a reply just before the deadline extends it" {
	run guard-drive <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	255 tick
	259.999999 reply leader=yes token=7 until=400
	260 tick
	360 tick
	380 tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	wake at=5
	> 255 tick
	ask
	wake at=260
	> 259.999999 reply leader=yes token=7 until=400
	> 260 tick
	ask
	wake at=265
	> 360 tick
	cancel
	term why=deadline
	wake at=380
	> 380 tick
	kill why=deadline
	wake none
	EOF
}

@test "guard: a reply at the deadline is too late: the stop begins first and is not taken back" {
	run guard-drive <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	255 tick
	260 reply leader=yes token=7 until=400
	279.999999 tick
	280 tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	wake at=5
	> 255 tick
	ask
	wake at=260
	> 260 reply leader=yes token=7 until=400
	term why=deadline
	wake at=280
	> 279.999999 tick
	> 280 tick
	kill why=deadline
	wake none
	EOF
}

@test "guard: a reply that comes past SIGKILL's time finds the group killed" {
	run guard-drive <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	255 tick
	280 reply leader=yes token=7 until=400
	281 exited
	281 reaped signal=9
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	wake at=5
	> 255 tick
	ask
	wake at=260
	> 280 reply leader=yes token=7 until=400
	kill why=deadline
	wake none
	> 281 exited
	kill why=exited
	wake at=282
	> 281 reaped signal=9
	exit status=137 why=done
	wake none
	EOF
}

@test "guard: a daemon that hangs up or does not answer only stops the deadline from moving" {
	run guard-drive -q <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	5 tick
	6 hangup
	10 tick
	10 refused
	15 tick
	20 refused
	260 tick
	270 stop
	280 tick
	282 exited
	283 reaped signal=9
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	> 5 tick
	ask
	> 6 hangup
	> 10 tick
	cancel
	ask
	> 10 refused
	> 15 tick
	ask
	> 20 refused
	ask
	> 260 tick
	cancel
	term why=deadline
	> 270 stop
	> 280 tick
	kill why=deadline
	> 282 exited
	kill why=exited
	> 283 reaped signal=9
	exit status=137 why=done
	EOF
}

# A hang-up alone proves nothing (guard.h); the end of the daemon's
# process does: the command stops at once, and once its group is killed,
# and only then, the lease is released on the daemon's behalf.
@test "guard: a daemon whose process ended has its command stopped at once and its lease released once the group is killed" {
	run guard-drive -q -g 10 <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	5 tick
	6 hangup
	7 dead
	12 tick
	17 tick
	18 exited
	19 reaped signal=9
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	> 5 tick
	ask
	> 6 hangup
	> 7 dead
	cancel
	term why=dead
	> 12 tick
	> 17 tick
	kill why=grace
	release why=dead
	> 18 exited
	kill why=exited
	> 19 reaped signal=9
	exit status=137 why=done
	EOF

	# A command that exits of itself during the grace: its group is
	# killed, then the lease goes.  Past the deadline, the lease has gone
	# by itself and nothing is sent.
	run guard-drive -q -g 10 <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	7 dead
	9 exited
	10 reaped exit=0
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	> 7 dead
	term why=dead
	> 9 exited
	kill why=exited
	release why=dead
	> 10 reaped exit=0
	exit status=0 why=done
	EOF
	run guard-drive -q -g 10 <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	400 dead
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	> 400 dead
	kill why=deadline
	EOF

	# Without a lease there is nothing to release.
	run guard-drive -q -g 10 <<-EOF
	0 reply algo=bully leader=yes
	0 reply algo=bully leader=yes
	7 dead
	17 tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply algo=bully leader=yes
	register
	> 0 reply algo=bully leader=yes
	start token=0
	> 7 dead
	term why=dead
	> 17 tick
	kill why=grace
	EOF
}

@test "guard: a silent daemon is asked again every poll, and the deadline holds" {
	run guard-drive <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	5 tick
	10 tick
	15 tick
	260 tick
	280 tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	wake at=5
	> 5 tick
	ask
	wake at=10
	> 10 tick
	cancel
	ask
	wake at=15
	> 15 tick
	cancel
	ask
	wake at=20
	> 260 tick
	cancel
	term why=deadline
	wake at=280
	> 280 tick
	kill why=deadline
	wake none
	EOF
}

@test "guard: a command that ignores SIGTERM is killed after the grace when the node stops leading" {
	run guard-drive <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	100 tick
	101 reply leader=no token=7 until=300
	120.999999 tick
	121 tick
	121.5 exited
	122 reaped signal=9
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	wake at=5
	> 100 tick
	ask
	wake at=105
	> 101 reply leader=no token=7 until=300
	term why=notleader
	wake at=121
	> 120.999999 tick
	> 121 tick
	kill why=grace
	wake none
	> 121.5 exited
	kill why=exited
	wake at=122.5
	> 122 reaped signal=9
	exit status=137 why=done
	wake none
	EOF
}

@test "guard: a new token, or the node leaving, stops the command at once" {
	run guard-drive -q <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	50 tick
	51 reply leader=yes token=8 until=400
	52 stop
	71 tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	> 50 tick
	ask
	> 51 reply leader=yes token=8 until=400
	term why=newleader
	> 52 stop
	> 71 tick
	kill why=grace
	EOF
	run guard-drive -q <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	50 stop
	70 tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	> 50 stop
	term why=leaving
	> 70 tick
	kill why=grace
	EOF
}

@test "guard: a grant cut short leaves less than the grace: SIGKILL comes by the deadline" {
	run guard-drive <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	95 tick
	100 reply leader=yes token=7 until=130
	110 tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	wake at=5
	> 95 tick
	ask
	wake at=100
	> 100 reply leader=yes token=7 until=130
	term why=deadline
	wake at=110
	> 110 tick
	kill why=deadline
	wake none
	EOF
}

@test "guard: a clock that jumps past the deadline kills at once, without SIGTERM" {
	run guard-drive <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	100 tick
	1000 tick
	999 tick
	1001 exited
	1001 reaped exit=0
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	wake at=5
	> 100 tick
	ask
	wake at=105
	> 1000 tick
	cancel
	kill why=deadline
	wake none
	> 999 tick
	> 1001 exited
	kill why=exited
	wake at=1002
	> 1001 reaped exit=0
	exit status=0 why=done
	wake none
	EOF
}

@test "guard: a clock that jumps back extends nothing and takes nothing back" {
	run guard-drive <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	250 tick
	100 tick
	265 tick
	10 tick
	279 tick
	280 tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	wake at=5
	> 250 tick
	ask
	wake at=255
	> 100 tick
	> 265 tick
	cancel
	term why=deadline
	wake at=280
	> 10 tick
	> 279 tick
	> 280 tick
	kill why=deadline
	wake none
	EOF
	# Before the start: the grant is judged on the latest time seen.
	run guard-drive -q <<-EOF
	0 reply leader=yes token=7 until=300
	270 tick
	0 reply leader=yes token=7 until=300
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 270 tick
	> 0 reply leader=yes token=7 until=300
	unregister
	exit status=1 why=notleader
	EOF
}

@test "guard: a grace that does not fit the lease is refused before anything starts" {
	run guard-drive -g 29 <<<"0 reply leader=no token=7 until=300"
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=no token=7 until=300
	register
	EOF
	run guard-drive -g 30 <<<"0 reply leader=no token=7 until=300"
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=no token=7 until=300
	exit status=2 why=badgrace room=29.919999
	EOF
	run guard-drive -g 30 -t lease=200 <<<"0 reply leader=no token=7 until=300"
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=no token=7 until=300
	register
	EOF
	# A daemon restarted with a shorter lease during the wait.
	run guard-drive -w -g 30 -t lease=200 <<-EOF
	0 reply leader=no token=7 until=300
	5 reply leader=yes token=8 until=400 lease=80
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=no token=7 until=300
	register
	> 5 reply leader=yes token=8 until=400 lease=80
	exit status=2 why=badgrace room=29.919999
	EOF
}

@test "guard: no start without a grant that outlasts the grace; -E and --wait" {
	run guard-drive -E 0 <<-EOF
	0 reply leader=no token=6 until=300
	0 reply leader=no token=6 until=300
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=no token=6 until=300
	register
	> 0 reply leader=no token=6 until=300
	unregister
	exit status=0 why=notleader
	EOF
	run guard-drive -w <<-EOF
	0 reply leader=no token=6 until=300
	0 reply leader=yes token=0 until=300
	0 reply leader=yes token=7 until=40
	1 reply leader=yes token=7 until=41.000001
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=no token=6 until=300
	register
	> 0 reply leader=yes token=0 until=300
	unregister
	register
	> 0 reply leader=yes token=7 until=40
	unregister
	register
	> 1 reply leader=yes token=7 until=41.000001
	start token=7
	wake at=1.000001
	EOF
}

@test "guard: a node that leaves during the registration ends the wait with 3, or answers no" {
	run guard-drive -w <<-EOF
	0 reply leader=no token=6 until=300
	1 leaving
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=no token=6 until=300
	register
	> 1 leaving
	unregister
	exit status=3 why=left
	EOF
	run guard-drive <<-EOF
	0 reply leader=no token=6 until=300
	1 leaving
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=no token=6 until=300
	register
	> 1 leaving
	unregister
	exit status=1 why=notleader
	EOF
}

@test "guard: a command that exits has its group killed, and its status is the guard's" {
	run guard-drive <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	3 exited
	3 tick
	4 stop
	5 reaped exit=3
	6 tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	wake at=5
	> 3 exited
	kill why=exited
	wake at=4
	> 3 tick
	> 4 stop
	wake at=5
	> 5 reaped exit=3
	exit status=3 why=done
	wake none
	> 6 tick
	error refused
	EOF
}

@test "guard: inputs that cannot come now are refused and change nothing" {
	run guard-drive -q <<-EOF
	0 noreply
	0 reply leader=yes token=7 until=300
	0 stop
	0 reply leader=yes token=7 until=300
	1 reply leader=yes token=7 until=900
	1 leaving
	1 reaped exit=0
	260 tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 noreply
	error refused
	> 0 reply leader=yes token=7 until=300
	register
	> 0 stop
	error refused
	> 0 reply leader=yes token=7 until=300
	start token=7
	> 1 reply leader=yes token=7 until=900
	error refused
	> 1 leaving
	error refused
	> 1 reaped exit=0
	error refused
	> 260 tick
	term why=deadline
	EOF
}

@test "guard: without a lease, the command stops when the daemon says no or does not answer" {
	run guard-drive <<-EOF
	0 reply leader=yes algo=bully
	0 reply leader=yes algo=bully
	20 tick
	21 reply leader=yes algo=bully
	40 tick
	40 refused
	60 tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes algo=bully
	register
	> 0 reply leader=yes algo=bully
	start token=0
	wake at=20
	> 20 tick
	ask
	wake at=40
	> 21 reply leader=yes algo=bully
	> 40 tick
	ask
	wake at=60
	> 40 refused
	term why=silent
	> 60 tick
	kill why=grace
	wake none
	EOF
	run guard-drive -q <<-EOF
	0 reply leader=yes algo=bully
	0 reply leader=yes algo=bully
	20 tick
	40 tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes algo=bully
	register
	> 0 reply leader=yes algo=bully
	start token=0
	> 20 tick
	ask
	> 40 tick
	cancel
	term why=silent
	EOF
	run guard-drive -q <<-EOF
	0 reply leader=yes algo=bully
	0 reply leader=yes algo=bully
	20 tick
	21 noreply
	40 tick
	45 reply leader=no algo=bully
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes algo=bully
	register
	> 0 reply leader=yes algo=bully
	start token=0
	> 20 tick
	ask
	> 21 noreply
	> 40 tick
	ask
	> 45 reply leader=no algo=bully
	term why=notleader
	EOF
}

@test "guard: a daemon restarted under another algorithm leads, if at all, in a new leadership" {
	run guard-drive -q <<-EOF
	0 reply leader=yes token=7 until=300
	0 reply leader=yes token=7 until=300
	5 tick
	6 reply leader=yes algo=bully
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=300
	register
	> 0 reply leader=yes token=7 until=300
	start token=7
	> 5 tick
	ask
	> 6 reply leader=yes algo=bully
	term why=newleader
	EOF
	run guard-drive -q <<-EOF
	0 reply leader=yes algo=bully
	0 reply leader=yes algo=bully
	20 tick
	21 reply leader=yes token=3 until=500
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes algo=bully
	register
	> 0 reply leader=yes algo=bully
	start token=0
	> 20 tick
	ask
	> 21 reply leader=yes token=3 until=500
	term why=newleader
	EOF
}

# elect-node's defaults (lease 40 ms, renew 10, rtt 5) leave 12.46 ms of
# room (39.96 - 10 - 5 - 2.5 poll - 10 margin): without -g the grace is
# half of it, so SIGTERM comes at 100 - 10 - 6.23; a -g that does not fit
# is still refused.
@test "guard: the default grace shrinks to half of what a short lease leaves" {
	run guard-drive -t lease=40 -t renew=10 <<-EOF
	0 reply leader=yes token=7 until=100
	0 reply leader=yes token=7 until=100
	83.77 tick
	83.770001 tick
	EOF
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=100
	register
	> 0 reply leader=yes token=7 until=100
	start token=7
	wake at=2.5
	> 83.77 tick
	ask
	wake at=83.770001
	> 83.770001 tick
	cancel
	term why=deadline
	wake at=90
	EOF
	run guard-drive -g 13 -t lease=40 -t renew=10 <<<"0 reply leader=yes token=7 until=100"
	assert_success
	assert_output - <<-EOF
	> 0 reply leader=yes token=7 until=100
	exit status=2 why=badgrace room=12.459999
	EOF
}
