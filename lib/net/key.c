/* Reading the cluster key file. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "net/key.h"

void
key_id(const uint8_t key[KEY_BYTES], char out[KEY_ID_LEN + 1])
{
	static const char text[] = "elect key id";
	uint8_t h[KEY_ID_LEN / 2];

	crypto_generichash(h, sizeof(h), (const uint8_t *)text,
	    sizeof(text) - 1, key, KEY_BYTES);
	sodium_bin2hex(out, KEY_ID_LEN + 1, h, sizeof(h));
}

int
key_generate(const char *path, char id[KEY_ID_LEN + 1], char *msg,
    size_t msglen)
{
	uint8_t k[KEY_BYTES];
	ssize_t w;
	int fd, e;

	if (sodium_init() == -1) {
		snprintf(msg, msglen, "libsodium cannot start");
		return -1;
	}
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1) {
		snprintf(msg, msglen, "%s: %s%s", path, strerror(errno),
		    errno == EEXIST ? " (a key is never overwritten)" : "");
		return -1;
	}
	randombytes_buf(k, sizeof(k));
	key_id(k, id);
	/* The umask may have taken bits from 0600, never added any. */
	if ((w = write(fd, k, sizeof(k))) != (ssize_t)sizeof(k) ||
	    fchmod(fd, 0600) == -1 || fsync(fd) == -1) {
		e = w == -1 || w == (ssize_t)sizeof(k) ? errno : EIO;
		sodium_memzero(k, sizeof(k));
		close(fd);
		unlink(path);
		snprintf(msg, msglen, "%s: %s", path, strerror(e));
		return -1;
	}
	sodium_memzero(k, sizeof(k));
	if (close(fd) == -1) {
		snprintf(msg, msglen, "%s: %s", path, strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

int
key_parse(const uint8_t *buf, size_t len, uint8_t keys[KEY_MAX][KEY_BYTES],
    char *msg, size_t msglen)
{
	size_t i;

	if (len != KEY_BYTES && len != KEY_MAX * KEY_BYTES) {
		snprintf(msg, msglen, "a key is exactly %d bytes (two keys "
		    "during a rotation: %d), this file has %s%zu (make one "
		    "with: elect-node --gen-key FILE)", KEY_BYTES,
		    KEY_MAX * KEY_BYTES, len > KEY_MAX * KEY_BYTES ?
		    "more than " : "", len > KEY_MAX * KEY_BYTES ?
		    (size_t)(KEY_MAX * KEY_BYTES) : len);
		return -1;
	}
	for (i = 0; i < len / KEY_BYTES; i++) {
		memcpy(keys[i], buf + i * KEY_BYTES, KEY_BYTES);
		if (sodium_is_zero(keys[i], KEY_BYTES)) {
			snprintf(msg, msglen, "key %zu is all zeros (make one "
			    "with: head -c %d /dev/urandom)", i + 1,
			    KEY_BYTES);
			sodium_memzero(keys, KEY_MAX * KEY_BYTES);
			return -1;
		}
	}
	if (len == KEY_MAX * KEY_BYTES &&
	    sodium_memcmp(keys[0], keys[1], KEY_BYTES) == 0) {
		snprintf(msg, msglen, "the same key twice");
		sodium_memzero(keys, KEY_MAX * KEY_BYTES);
		return -1;
	}
	return (int)(len / KEY_BYTES);
}

int
key_load(const char *path, uint8_t keys[KEY_MAX][KEY_BYTES], char *msg,
    size_t msglen)
{
	/* One byte more than two keys, to see a file that is too long. */
	uint8_t buf[KEY_MAX * KEY_BYTES + 1];
	char why[200];
	struct stat st;
	size_t n = 0;
	ssize_t r;
	int fd, rc;

	/* Not blocking: a FIFO must not hang the start (it is refused
	 * below as not a regular file). */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK)) == -1) {
		snprintf(msg, msglen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(msg, msglen, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(msg, msglen, "%s: mode %03o lets group or others at "
		    "the key; refused (chmod 600 %s)", path,
		    (unsigned)(st.st_mode & 0777), path);
		close(fd);
		return -1;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(msg, msglen, "%s: owned by uid %u, not by this user "
		    "(uid %u); refused", path, (unsigned)st.st_uid,
		    (unsigned)geteuid());
		close(fd);
		return -1;
	}
	while (n < sizeof(buf) && (r = read(fd, buf + n, sizeof(buf) - n)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			snprintf(msg, msglen, "%s: %s", path, strerror(errno));
			close(fd);
			sodium_memzero(buf, sizeof(buf));
			return -1;
		}
		n += (size_t)r;
	}
	close(fd);
	if ((rc = key_parse(buf, n, keys, why, sizeof(why))) == -1)
		snprintf(msg, msglen, "%s: %s", path, why);
	sodium_memzero(buf, sizeof(buf));
	return rc;
}
