/*
 * algo-drive: runs one election core through a script of inputs read
 * from stdin and prints every action it takes, one per line, so that
 * tests can assert the exact messages and states without sockets.
 *
 *	algo-drive -a ALGO -i ID (-n N | -c ID,ID,...) [-q] [-s SEED]
 *	    [-t NAME=MS ...] [-e EPOCH [-p] [-F]] < script
 *
 * -e boots the core in an epoch (Nerio 10.6), -p pending: not yet told
 * that the epoch before ended; -F fresh: the first life of that epoch's
 * core (its first boot only: a restart is not fresh).
 *
 * Script lines are "TIME INPUT ARGS", TIME in milliseconds:
 *
 *	0 boot inc=1 [epoch=E]		recovery (again: a restart, given
 *					the state last persisted)
 *	5 recv from=5 msg=Halt elid=5.1.0 [field=value ...]
 *	10 down 5			DownSig
 *	12 timer call			a timer's deadline passed
 *	20 cmd leave			a command (leave, release, edict TEXT,
 *					wedge, terminated)
 *	20 query			print the status
 *	20 leadership			print its deadline, token, hint
 *
 * Each input is echoed as "> LINE", then its actions:
 *
 *	send to=3 msg=Halt elid=5.1.0
 *	fd start 5
 *	timer set call at=60
 *	timer cancel call
 *	state status=Elec1 ldr=- grp=-
 *	persist HEX
 *	trace TEXT
 *	edict from=3 token=8 seq=2 delivered=yes text=TEXT
 *	error WHY			the core refused the input
 *
 * A timer fired before its deadline, or while not set, is an error of the
 * script and stops the run (exit 2).  -q leaves timer lines out.
 *
 * The driver is t/tools/drive/algo.c, which datadriven runs too: the
 * transcripts under t/testdata/algo/ are scripts of this tool, one input
 * a case, without the echo.
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
		printf("usage: %s -a ALGO -i ID (-n N | -c ID,...) [-q] "
		    "[-s SEED] [-t NAME=MS ...] [-e EPOCH [-p] [-F]] "
		    "< script\n", getprogname());
		return 0;
	}
	drive_echo = 1;
	algo_drive_start(argc, argv);
	drive_stdin(algo_drive_line);
	algo_drive_end();
	return 0;
}
