/*
 * The cluster key: a file of exactly KEY_BYTES random bytes, shared by
 * every node, that authenticates every datagram.  Make one with
 *
 *	elect-node --gen-key cluster.key
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
#define KEY_ID_LEN	8	/* hex digits of a key's id */

/*
 * A key's id, for logs and status: KEY_ID_LEN hex digits of a MAC the
 * key makes of a fixed text, which tells keys apart and nothing of them.
 */
void	 key_id(const uint8_t key[KEY_BYTES], char out[KEY_ID_LEN + 1]);

/*
 * Makes a new key in PATH, which must not exist: KEY_BYTES from the
 * system's random source, mode 0600, synced.  0, or -1 with why in MSG;
 * the key's id in ID.
 */
int	 key_generate(const char *path, char id[KEY_ID_LEN + 1], char *msg,
	    size_t msglen);

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
