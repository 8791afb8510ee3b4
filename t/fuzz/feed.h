/*
 * The fuzzer's input read as a stream of choices: each byte picks the
 * next input, peer or delay, and an exhausted input reads as zeros.
 */
#ifndef ELECT_T_FEED_H
#define ELECT_T_FEED_H

#include <stddef.h>
#include <stdint.h>

struct feed {
	const uint8_t	*p;
	size_t		 n;
};

static inline uint8_t
byte(struct feed *f)
{
	if (f->n == 0)
		return 0;
	f->n--;
	return *f->p++;
}

#endif
