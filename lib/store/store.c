/* Stable storage in a state directory; see store.h. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"

#define INC_DIGITS	20

/* mkdir -p with mode 0700 for every directory it makes. */
static int
make_dirs(const char *dir)
{
	char path[PATH_MAX], *s;

	if (strlcpy(path, dir, sizeof(path)) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (s = path + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(path, 0700) == -1 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(path, 0700) == -1 && errno != EEXIST)
		return -1;
	return 0;
}

int
store_open(const char *dir)
{
	struct stat st;
	int fd;

	if (make_dirs(dir) == -1)
		return -1;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	/* Another user's directory, into which its owner could put links
	 * to files of ours (as OpenSSH's StrictModes): refused. */
	if (fstat(fd, &st) == 0 && st.st_uid != geteuid()) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	if (fstat(fd, &st) == -1 ||
	    ((st.st_mode & 077) != 0 && fchmod(fd, st.st_mode & 0700) == -1)) {
		close(fd);
		return -1;
	}
	return fd;
}

int
store_read(int dirfd, const char *name, void *buf, size_t max, size_t *len)
{
	char *p = buf;
	ssize_t n;
	int fd, saved;

	*len = 0;
	if ((fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) ==
	    -1)
		return errno == ENOENT ? 1 : -1;
	for (;;) {
		if (*len == max) {
			char c;

			/* Full: one more byte means the file is too big. */
			if ((n = read(fd, &c, 1)) > 0) {
				errno = EFBIG;
				n = -1;
			}
		} else
			n = read(fd, p + *len, max - *len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	saved = errno;
	close(fd);
	errno = saved;
	return n == -1 ? -1 : 0;
}

static int
write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * A record within one sector, over an old one of the same length: written
 * in place, which the device does all or nothing, and made durable with
 * one fdatasync that commits no metadata (size and blocks stay).  This is
 * the lease's K on the way to a new leader's first Ok: a rename and two
 * fsyncs cost several milliseconds on a busy disk, this one flush less.
 * 1 when NAME is not such a file, so the caller replaces it instead.
 */
static int
overwrite(int dirfd, const char *name, const void *buf, size_t len)
{
	struct stat st;
	ssize_t n;
	int fd, saved;

	if (len == 0 || len > STORE_SECTOR)
		return 1;
	if ((fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return 1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size != (off_t)len) {
		close(fd);
		return 1;
	}
	do
		n = pwrite(fd, buf, len, 0);
	while (n == -1 && errno == EINTR);
	if (n != (ssize_t)len || fdatasync(fd) == -1) {
		saved = n == -1 || n == (ssize_t)len ? errno : EIO;
		close(fd);
		errno = saved;
		return -1;
	}
	return close(fd);
}

int
store_write(int dirfd, const char *name, const void *buf, size_t len)
{
	char tmp[NAME_MAX + 1];
	int fd, saved, rc;

	if ((rc = overwrite(dirfd, name, buf, len)) != 1)
		return rc;

	if ((size_t)snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >=
	    sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (fd == -1)
		return -1;
	if (write_all(fd, buf, len) == -1 || fsync(fd) == -1) {
		saved = errno;
		close(fd);
		unlinkat(dirfd, tmp, 0);
		errno = saved;
		return -1;
	}
	if (close(fd) == -1 || renameat(dirfd, tmp, dirfd, name) == -1)
		return -1;
	return fsync(dirfd);
}

int
store_bump(int dirfd, const char *name, uint64_t *inc)
{
	char buf[INC_DIGITS + 2];
	const char *errstr;
	size_t len;
	int rc, n;

	rc = store_read(dirfd, name, buf, sizeof(buf) - 1, &len);
	if (rc == -1)
		return -1;
	*inc = 0;
	if (rc == 0) {
		buf[len] = '\0';
		if (len < 2 || buf[len - 1] != '\n' || buf[0] == '0' ||
		    strspn(buf, "0123456789") != len - 1) {
			errno = EINVAL;
			return -1;
		}
		buf[len - 1] = '\0';
		*inc = (uint64_t)strtonum(buf, 1, LLONG_MAX - 1, &errstr);
		if (errstr != NULL) {
			errno = EINVAL;
			return -1;
		}
	}
	(*inc)++;
	n = snprintf(buf, sizeof(buf), "%" PRIu64 "\n", *inc);
	return store_write(dirfd, name, buf, (size_t)n);
}
