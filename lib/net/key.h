/*
 * The cluster key: a file of exactly KEY_BYTES random bytes, shared by
 * every node, that authenticates every datagram.  Make one with
 *
 *	head -c 32 /dev/urandom > cluster.key; chmod 600 cluster.key
 *
 * and copy it to each host over a channel you trust.
 */
#ifndef ELECT_KEY_H
#define ELECT_KEY_H

#include <stddef.h>
#include <stdint.h>

#define KEY_BYTES	32

/*
 * Reads the key in PATH into KEY.  Returns -1 with "PATH: why" in MSG when
 * the file cannot be read or is not exactly KEY_BYTES long; 1 when the key
 * was read but MSG holds a warning (group or others may use the file);
 * 0 when all is well.
 */
int	 key_load(const char *path, uint8_t key[KEY_BYTES], char *msg,
	    size_t msglen);

#endif
