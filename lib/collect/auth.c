/*
 * The collector's handshake: strict parsers, and the MAC from libsodium.
 */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "collect/auth.h"
#include "trace/trace.h"

#define DOMAIN	"elect-trace auth 1 "

static void
mac_of(const uint8_t key[AUTH_KEY], const uint8_t nonce[AUTH_NONCE],
    unsigned node, uint8_t mac[AUTH_MAC])
{
	uint8_t msg[sizeof(DOMAIN) - 1 + AUTH_NONCE + 2];

	memcpy(msg, DOMAIN, sizeof(DOMAIN) - 1);
	memcpy(msg + sizeof(DOMAIN) - 1, nonce, AUTH_NONCE);
	msg[sizeof(msg) - 2] = (uint8_t)(node >> 8);
	msg[sizeof(msg) - 1] = (uint8_t)node;
	crypto_auth(mac, msg, sizeof(msg), key);
}

/* Exactly 2 N lowercase hex digits into N bytes; -1 otherwise. */
static int
unhex(const char *p, size_t len, uint8_t *out, size_t n)
{
	size_t i;

	if (len != 2 * n)
		return -1;
	for (i = 0; i < len; i++)
		if (!((p[i] >= '0' && p[i] <= '9') ||
		    (p[i] >= 'a' && p[i] <= 'f')))
			return -1;
	return sodium_hex2bin(out, n, p, len, NULL, NULL, NULL) == 0 ? 0 : -1;
}

size_t
auth_challenge(const uint8_t *nonce, char *buf)
{
	char hex[2 * AUTH_NONCE + 1];

	if (nonce == NULL)
		return (size_t)snprintf(buf, AUTH_LINE_MAX, "challenge -\n");
	sodium_bin2hex(hex, sizeof(hex), nonce, AUTH_NONCE);
	return (size_t)snprintf(buf, AUTH_LINE_MAX, "challenge %s\n", hex);
}

int
auth_parse_challenge(const char *line, size_t len, uint8_t nonce[AUTH_NONCE])
{
	if (len < 10 || memcmp(line, "challenge ", 10) != 0)
		return -1;
	if (len == 11 && line[10] == '-')
		return 1;
	return unhex(line + 10, len - 10, nonce, AUTH_NONCE);
}

size_t
auth_answer(const uint8_t key[AUTH_KEY], const uint8_t nonce[AUTH_NONCE],
    unsigned node, char *buf)
{
	uint8_t mac[AUTH_MAC];
	char hex[2 * AUTH_MAC + 1], id[12];

	mac_of(key, nonce, node, mac);
	sodium_bin2hex(hex, sizeof(hex), mac, AUTH_MAC);
	if (node == 0)
		strlcpy(id, "-", sizeof(id));
	else
		snprintf(id, sizeof(id), "%u", node);
	return (size_t)snprintf(buf, AUTH_LINE_MAX, "auth %s %s\n", id, hex);
}

int
auth_parse_answer(const char *line, size_t len, unsigned *node,
    uint8_t mac[AUTH_MAC])
{
	const char *sp;

	if (len < 5 || memcmp(line, "auth ", 5) != 0)
		return -1;
	line += 5;
	len -= 5;
	if ((sp = memchr(line, ' ', len)) == NULL ||
	    trace_parse_id(line, (size_t)(sp - line), node) == -1)
		return -1;
	len -= (size_t)(sp - line) + 1;
	return unhex(sp + 1, len, mac, AUTH_MAC);
}

int
auth_check(const uint8_t key[AUTH_KEY], const uint8_t nonce[AUTH_NONCE],
    unsigned node, const uint8_t mac[AUTH_MAC])
{
	uint8_t want[AUTH_MAC];

	mac_of(key, nonce, node, want);
	return sodium_memcmp(want, mac, AUTH_MAC) == 0;
}
