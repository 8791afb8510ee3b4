/*
 * store-tool DIR bump NAME | write NAME | read NAME: drives lib/store from
 * the shell for t/store.bats.  write takes the contents on stdin; read
 * prints them on stdout.  Exit 1 and a message on failure, 3 for a file
 * that is not there.
 */
#include <err.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"

int
main(int argc, char *argv[])
{
	static char buf[STORE_FILE_MAX + 2];
	uint64_t inc;
	size_t len;
	int dirfd, rc;

	if (argc != 4) {
		fprintf(stderr, "usage: store-tool dir bump|write|read name\n");
		return 2;
	}
	if ((dirfd = store_open(argv[1])) == -1)
		err(1, "%s", argv[1]);
	if (strcmp(argv[2], "bump") == 0) {
		if (store_bump(dirfd, argv[3], &inc) == -1)
			err(1, "%s", argv[3]);
		printf("%" PRIu64 "\n", inc);
	} else if (strcmp(argv[2], "write") == 0) {
		len = fread(buf, 1, sizeof(buf), stdin);
		if (store_write(dirfd, argv[3], buf, len) == -1)
			err(1, "%s", argv[3]);
	} else if (strcmp(argv[2], "read") == 0) {
		rc = store_read(dirfd, argv[3], buf, STORE_FILE_MAX, &len);
		if (rc == 1)
			return 3;
		if (rc == -1)
			err(1, "%s", argv[3]);
		fwrite(buf, 1, len, stdout);
	} else
		errx(2, "%s: not bump, write or read", argv[2]);
	return 0;
}
