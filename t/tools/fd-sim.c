/*
 * fd-sim: drives the detector core (lib/fd) through a script, on a clock
 * of its own: no sockets, no waiting, the same output every run.
 *
 *	fd-sim [-m push|ping] [-p phi] [-u] [-i interval_ms] [-T timeout_ms]
 *
 * Node 1 runs the core in a cluster of nodes 1, 2 and 3.  Script lines on
 * stdin, in time order:
 *	MS cmd LINE		a command line on the core's stdin
 *	MS from ID alive|ping|unmonitor|hello
 *	MS from ID monitor INTERVAL_US LEASE_MS
 *	MS from ID pong SEQ	a datagram from node ID (good, insecure)
 *	MS replay		the last datagram again
 *	MS limit ID		print the silence after which ID is reported
 *	MS stall		the process stood still until MS: the clock
 *				jumps there, and the core is ticked late
 *	MS end			run the clock to MS
 * Before each line the clock runs to MS, ticking the core at each of its
 * deadlines.  Output, one line per action: "MS send ID TYPE [SEQ]",
 * "MS down ID", "MS up ID", "MS drop ID WHY".
 *
 * The driver is t/tools/drive/fd.c, which datadriven runs too, on the
 * transcripts under t/testdata/fd/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive/drive.h"

int
main(int argc, char *argv[])
{
	fd_drive_start(argc, argv);
	drive_stdin(fd_drive_line);
	fd_drive_end();
	return 0;
}
