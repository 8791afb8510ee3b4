/*
 * Writers that prove themselves to a collector with the cluster key.  On
 * connecting, the collector sends "challenge NONCE" (32 random bytes in
 * hex); the writer answers, for each node it writes for, "auth NODE MAC":
 * NODE an id or "-" (lines about the system), MAC in hex the HMAC-SHA-
 * 512-256 (libsodium's crypto_auth) under the key of the bytes
 * "elect-trace auth 1 ", the nonce, and the node as two bytes, big-endian
 * (0 for "-").  A fresh nonce per connection: a proof cannot be replayed
 * on another connection.
 */
#ifndef ELECT_COLLECT_AUTH_H
#define ELECT_COLLECT_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define AUTH_KEY	32
#define AUTH_NONCE	32
#define AUTH_MAC	32
#define AUTH_LINE_MAX	96	/* longest line of the handshake, newline too */

/* "challenge HEX\n" into BUF (AUTH_LINE_MAX), "challenge -\n" if NONCE
 * is NULL; its length. */
size_t	 auth_challenge(const uint8_t *nonce, char *buf);
/* The nonce of a challenge line (no newline): 0; 1 for "challenge -" (a
 * collector without a key: no proof wanted); -1 if it is not one. */
int	 auth_parse_challenge(const char *line, size_t len,
	    uint8_t nonce[AUTH_NONCE]);
/* "auth NODE HEX\n" proving NODE (0: "-") into BUF (AUTH_LINE_MAX). */
size_t	 auth_answer(const uint8_t key[AUTH_KEY],
	    const uint8_t nonce[AUTH_NONCE], unsigned node, char *buf);
/* NODE and MAC of an auth line (no newline); -1 if it is not one. */
int	 auth_parse_answer(const char *line, size_t len, unsigned *node,
	    uint8_t mac[AUTH_MAC]);
/* Whether MAC proves NODE under KEY for NONCE (in constant time). */
int	 auth_check(const uint8_t key[AUTH_KEY],
	    const uint8_t nonce[AUTH_NONCE], unsigned node,
	    const uint8_t mac[AUTH_MAC]);

#endif
