/*
 * Stable storage: small files in a state directory, each replaced so that
 * a crash at any instant leaves either the old or the new contents (write
 * a temporary file, fsync it, rename it over the old one, fsync the
 * directory; a record of one sector over one of the same length is
 * written in place, which the device does all or nothing, and
 * fdatasync'd).
 */
#ifndef ELECT_STORE_H
#define ELECT_STORE_H

#include <stddef.h>
#include <stdint.h>

#define STORE_FILE_MAX	(64 * 1024)	/* largest file read back */
#define STORE_SECTOR	512		/* written by a device at once */

/*
 * Opens directory DIR, creating it (and missing parents) with mode 0700,
 * and takes group and other permissions away from it.  Returns a
 * directory descriptor, or -1 with errno set.
 */
int	store_open(const char *dir);

/*
 * Reads NAME into BUF (at most MAX bytes) and sets *LEN: 0 on success, 1
 * when NAME does not exist, -1 on error (errno; EFBIG when too large).
 */
int	store_read(int dirfd, const char *name, void *buf, size_t max,
	    size_t *len);

/* Replaces NAME by BUF atomically and durably: 0, or -1 with errno. */
int	store_write(int dirfd, const char *name, const void *buf, size_t len);

/*
 * Increments the incarnation number kept in NAME (absent: 0) and stores
 * it before returning it in *INC: 0; -1 with errno (EINVAL: NAME does not
 * hold a number).
 */
int	store_bump(int dirfd, const char *name, uint64_t *inc);

#endif
