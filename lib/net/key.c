/* Reading the cluster key file. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "net/key.h"

int
key_load(const char *path, uint8_t key[KEY_BYTES], char *msg, size_t msglen)
{
	uint8_t buf[KEY_BYTES + 1];
	struct stat st;
	size_t n = 0;
	ssize_t r;
	int fd, rc = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(msg, msglen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(msg, msglen, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	/* One byte more than a key, to see a file that is too long. */
	while (n < sizeof(buf) && (r = read(fd, buf + n, sizeof(buf) - n)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			snprintf(msg, msglen, "%s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		n += (size_t)r;
	}
	close(fd);
	if (n != KEY_BYTES) {
		snprintf(msg, msglen, "%s: a key is exactly %d bytes, this file "
		    "has %s%zu (make one with: head -c %d /dev/urandom > %s)",
		    path, KEY_BYTES, n > KEY_BYTES ? "more than " : "",
		    n > KEY_BYTES ? (size_t)KEY_BYTES : n, KEY_BYTES, path);
		sodium_memzero(buf, sizeof(buf));
		return -1;
	}
	memcpy(key, buf, KEY_BYTES);
	sodium_memzero(buf, sizeof(buf));
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(msg, msglen, "%s: mode %03o lets group or others at "
		    "the key (chmod 600 %s)", path,
		    (unsigned)(st.st_mode & 0777), path);
		rc = 1;
	}
	return rc;
}
