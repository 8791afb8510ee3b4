/*
 * The cluster key: a file of exactly KEY_BYTES random bytes, shared by
 * every node, that authenticates every datagram.  Make one with
 *
 *	(umask 077; head -c 32 /dev/urandom > cluster.key)
 *
 * and copy it to each host over a channel you trust.  During a rotation
 * the file holds two keys, 2 * KEY_BYTES bytes: datagrams are sent under
 * the first, and accepted under either.
 *
 * Like OpenSSH with a private key, a file that group or others may read
 * or write, or that another user owns (root's files aside), is refused.
 */
#ifndef ELECT_KEY_H
#define ELECT_KEY_H

#include <stddef.h>
#include <stdint.h>

#define KEY_BYTES	32
#define KEY_MAX		2	/* keys in one file */

/*
 * Parses the LEN bytes of a key file: one key or two.  Pure.  Returns the
 * number of keys, or -1 with why in MSG.
 */
int	 key_parse(const uint8_t *buf, size_t len,
	    uint8_t keys[KEY_MAX][KEY_BYTES], char *msg, size_t msglen);

/*
 * Reads the keys in PATH.  Returns their number, or -1 with "PATH: why"
 * in MSG when the file cannot be read, is not one or two keys long, lets
 * group or others at it, or belongs to another user.
 */
int	 key_load(const char *path, uint8_t keys[KEY_MAX][KEY_BYTES],
	    char *msg, size_t msglen);

#endif
