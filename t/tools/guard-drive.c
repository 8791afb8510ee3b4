/*
 * guard-drive: runs the guard of --run-if-leader (lib/guard) through a
 * script of inputs read from stdin and prints every action it takes, one
 * per line, so that tests can assert when a command starts and when it is
 * signalled without processes or clocks.
 *
 *	guard-drive [-q] [-w] [-E code] [-g grace] [-t NAME=MS ...] < script
 *
 * -g is the grace in milliseconds (default 20), -w is --wait, -E the
 * status when the node does not lead; -t lease=, renew=, rtt=, drift=
 * are the daemon's timings its lease replies carry (defaults 80, 20, 5,
 * 0.001).  Script lines are "TIME INPUT ARGS", TIME in milliseconds; time
 * may go back, as a broken clock would:
 *
 *	0 reply leader=yes token=7 until=300	the daemon's answer, under
 *						lease (until in ms), or with
 *						algo=NAME under an algorithm
 *						whose leadership has no
 *						deadline
 *	1 leaving				the registration: err leaving
 *	1 refused				an ask found no daemon
 *	1 noreply				an ask closed without a reply
 *	1 stop					the registration: ok stop
 *	1 hangup				the daemon closed it
 *	1 dead					the daemon's process ended
 *	1 exited				the command's process died
 *	1 reaped exit=N | signal=N		its group is gone
 *	1 tick
 *
 * Each input is echoed as "> LINE", then its actions and the next wake:
 *
 *	register | unregister | start token=T | ask | cancel
 *	term why=W | kill why=W | exit status=N why=W [room=MS]
 *	release why=W
 *	wake at=MS | wake none			when it changed (-q: never)
 *	error refused				the input cannot come now
 *
 * The driver is t/tools/drive/guard.c, which datadriven runs too, on the
 * transcripts under t/testdata/guard/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "drive/drive.h"

int
main(int argc, char *argv[])
{
	if (argc == 2 && strcmp(argv[1], "-h") == 0) {
		printf("usage: %s [-qw] [-E code] [-g grace] [-t NAME=MS ...] "
		    "< script\n", getprogname());
		return 0;
	}
	drive_echo = 1;
	guard_drive_start(argc, argv);
	drive_stdin(guard_drive_line);
	return 0;
}
