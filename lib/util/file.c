/*
 * A small file read whole: configuration and cluster files.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

char *
file_read(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	ssize_t r;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto fail;
	}
	if ((buf = malloc(max + 1)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	while (n <= max && (r = read(fd, buf + n, max + 1 - n)) != 0) {
		if (r == -1) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		n += (size_t)r;
	}
	if (n > max) {
		snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
		goto fail;
	}
	close(fd);
	*len = n;
	return buf;
fail:
	free(buf);
	close(fd);
	return NULL;
}
