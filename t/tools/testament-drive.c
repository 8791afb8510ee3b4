/*
 * testament-drive: reads a daemon's testament (guard/testament.h) on
 * stdin and prints what the parser makes of it, for edge-case tests:
 *
 *	node=ID pid=PID inc=INC from=HOST:PORT peers=N
 *	to ID HOST:PORT BYTES		one per peer
 *
 * or "error: WHY" (exit 1).  The driver is t/tools/drive/testament.c,
 * which datadriven runs too, on the files of t/testdata/testament/.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "guard/testament.h"
#include "drive/drive.h"

int
main(void)
{
	char *buf;
	size_t len = 0;
	ssize_t n;
	int rc;

	if ((buf = malloc(TESTAMENT_FILE_MAX + 2)) == NULL)
		err(1, NULL);
	while (len <= TESTAMENT_FILE_MAX && (n = read(0, buf + len,
	    TESTAMENT_FILE_MAX + 2 - len)) > 0)
		len += (size_t)n;
	rc = testament_drive(buf, len, stdout);
	free(buf);
	return rc;
}
