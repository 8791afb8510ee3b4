/*
 * A small file read whole: configuration and cluster files; the
 * directories above a path the daemon writes, checked.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

int
file_parents_strict(const char *path, uid_t uid, char *err, size_t errlen)
{
	char dir[PATH_MAX], real[PATH_MAX], *slash;
	struct stat st;

	if (strlcpy(dir, path, sizeof(dir)) >= sizeof(dir)) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENAMETOOLONG));
		return -1;
	}
	if ((slash = strrchr(dir, '/')) == NULL)
		strlcpy(dir, ".", sizeof(dir));
	else
		slash[slash == dir] = '\0';
	/* Each link in it resolved: the directories the kernel walks. */
	if (realpath(dir, real) == NULL) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	for (;;) {
		if (stat(real, &st) == -1) {
			snprintf(err, errlen, "%s: %s", real, strerror(errno));
			return -1;
		}
		if (st.st_uid != 0 && st.st_uid != uid) {
			snprintf(err, errlen, "%s: owned by uid %u, not by root "
			    "or uid %u", real, (unsigned)st.st_uid,
			    (unsigned)uid);
			return -1;
		}
		if ((st.st_mode & 022) != 0 &&
		    !((st.st_mode & S_ISVTX) && st.st_uid == 0)) {
			snprintf(err, errlen, "%s: writable by %s (mode %04o): "
			    "who may write there may put another file in "
			    "place of ours", real, (st.st_mode & 002) ?
			    "others" : "its group", (unsigned)(st.st_mode &
			    07777));
			return -1;
		}
		if (strcmp(real, "/") == 0)
			return 0;
		slash = strrchr(real, '/');
		slash[slash == real] = '\0';
	}
}
