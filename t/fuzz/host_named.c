/*
 * Named leaderships (lib/host/named.h) on 3 to 5 hosts whose clocks
 * drift within the bound and start anywhere, over a network that loses,
 * copies, delays and reorders, with hosts killed (with or without their
 * guard's Dead) and restarted, names asked for and released at random:
 * no name is ever led by two hosts at the same real time, and a name's
 * tokens grow from one holder to the next.  The core asserts its own
 * invariants at every step; garbage datagrams must be dropped, never
 * acted on.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/named.h"
#include "feed.h"

#define HOSTS	5
#define NAMES	4
#define QUEUE	256
#define US	INT64_C(1000)
#define MS	INT64_C(1000000)

struct msg {
	unsigned	 from, to;
	uint64_t	 inc;
	size_t		 len;
	uint8_t		 p[WIRE_PAYLOAD_MAX];
};

static const char *const names[NAMES] = { "a", "backup", "job-1", "q" };

static struct hnl h[HOSTS];
static struct hnl_out out;
static int up[HOSTS];
static int pending;		/* hosts boot pending (an epoch's core) */
static uint64_t inc[HOSTS], floor_[HOSTS];	/* lives; floors written */
static int64_t offset[HOSTS], ppm[HOSTS];
static struct msg *q;
static size_t nq, n;
static int64_t t;		/* real time */
/* Per name: its last leader and token, and the highest token led. */
static unsigned holder[NAMES];
static uint64_t top[NAMES], cur[NAMES];

/* Host I's clock at real time T: within the drift bound (1000 ppm). */
static int64_t
clock_of(size_t i)
{
	return offset[i] + t + t / 1000000 * ppm[i];
}

static void
carry(size_t i)
{
	size_t k;

	for (k = 0; k < out.n; k++) {
		const struct hnl_action *a = &out.v[k];

		if (a->type == HNL_SAVE)
			floor_[i] = a->floor;	/* its state directory */
		if (a->type != HNL_SEND || nq == QUEUE)
			continue;
		if (a->id < 1 || a->id > n || a->len > WIRE_PAYLOAD_MAX)
			abort();
		q[nq].from = (unsigned)i + 1;
		q[nq].to = a->id;
		q[nq].inc = inc[i];
		q[nq].len = a->len;
		memcpy(q[nq].p, a->payload, a->len);
		nq++;
	}
}

static void
step(size_t i, struct hnl_input *in)
{
	in->now = clock_of(i);
	hnl_step(&h[i], in, &out);
	carry(i);
}

static void
boot(size_t i)
{
	struct hnl_conf c;
	unsigned ids[HOSTS];
	size_t j;

	for (j = 0; j < n; j++)
		ids[j] = (unsigned)j + 1;
	memset(&c, 0, sizeof(c));
	c.self = (unsigned)i + 1;
	c.inc = ++inc[i];
	c.ids = ids;
	c.nids = n;
	algo_timing_default(&c.timing);
	c.names.max = NAMES;
	c.names.idle = 2000 * MS;
	c.names.linger = 200 * MS;
	c.names.learn = 0;
	c.names.delay = 5 * MS;
	c.names.spread = 10;
	c.names.floor = floor_[i];
	c.pending = pending;
	if (hnl_init(&h[i], &c, clock_of(i)) == -1)
		abort();
	up[i] = 1;
}

/* The safety of every name, at this real time. */
static void
judge(void)
{
	struct hnl_status st;
	size_t i, k, leaders;
	unsigned who;

	for (k = 0; k < NAMES; k++) {
		leaders = 0;
		who = 0;
		for (i = 0; i < n; i++) {
			if (!up[i])
				continue;
			hnl_query(&h[i], names[k], strlen(names[k]),
			    clock_of(i), &st);
			if (!st.leader)
				continue;
			leaders++;
			who = (unsigned)i + 1;
			if (st.token != cur[k] || who != holder[k]) {
				/* A new leadership: a token above every
				 * token led before. */
				if (st.token <= top[k])
					abort();
				top[k] = st.token;
				cur[k] = st.token;
				holder[k] = who;
			}
		}
		if (leaders > 1)
			abort();
		if (leaders == 0)
			holder[k] = 0, cur[k] = 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f = { data, size };
	struct hnl_input in;
	size_t i, k, steps;
	int forged = 0;
	uint8_t b;

	if (q == NULL && (q = calloc(QUEUE, sizeof(*q))) == NULL)
		abort();
	b = byte(&f);
	n = 3 + b % 3;
	pending = (b & 8) != 0;
	nq = 0;
	t = 0;
	memset(inc, 0, sizeof(inc));
	memset(floor_, 0, sizeof(floor_));
	memset(holder, 0, sizeof(holder));
	memset(top, 0, sizeof(top));
	memset(cur, 0, sizeof(cur));
	for (i = 0; i < n; i++) {
		offset[i] = (int64_t)byte(&f) * 7 * MS;
		ppm[i] = (int64_t)(byte(&f) % 201) * 10 - 1000;
		boot(i);
	}
	if (out.v == NULL && hnl_out_init(&out, &h[0]) == -1)
		abort();
	for (steps = 0; steps < 4000 && f.n > 0; steps++) {
		b = byte(&f);
		i = byte(&f) % n;
		memset(&in, 0, sizeof(in));
		switch (b % 16) {
		case 0:
		case 1:
		case 2:
		case 3:
			/* Time passes, and every host up ticks. */
			t += (int64_t)(byte(&f) + 1) * 250 * US;
			for (k = 0; k < n; k++)
				if (up[k]) {
					in.type = HNL_IN_TICK;
					step(k, &in);
				}
			break;
		case 4:
		case 5:
		case 6:
		case 7:
		case 8:
			/* A datagram delivered, any of those in flight. */
			if (nq == 0)
				break;
			k = byte(&f) % nq;
			if (up[q[k].to - 1] && q[k].inc == inc[q[k].from - 1]) {
				in.type = HNL_IN_RECV;
				in.id = q[k].from;
				in.inc = q[k].inc;
				in.p = q[k].p;
				in.len = q[k].len;
				step(q[k].to - 1, &in);
			}
			/* ... and kept once in a while: copied. */
			if (byte(&f) % 8 != 0)
				q[k] = q[--nq];
			break;
		case 9:
			if (nq > 0) {
				k = byte(&f) % nq;	/* lost */
				q[k] = q[--nq];
			}
			break;
		case 10:
		case 11:
			if (!up[i])
				break;
			in.type = b % 2 ? HNL_IN_REGISTER : HNL_IN_RELEASE;
			in.name = names[byte(&f) % NAMES];
			in.nlen = strlen(in.name);
			step(i, &in);
			break;
		case 12:
			/* A host dies; its guard's Dead reaches some. */
			if (!up[i])
				break;
			hnl_free(&h[i]);
			up[i] = 0;
			b = byte(&f);
			for (k = 0; k < n; k++)
				if (up[k] && (b >> k & 1)) {
					in.type = HNL_IN_DEAD;
					in.id = (unsigned)i + 1;
					in.inc = inc[i] + 1;
					step(k, &in);
				}
			break;
		case 13:
			/* A host boots, or learns that the epoch before
			 * ended (it asks and leads from then on). */
			if (!up[i])
				boot(i);
			else {
				in.type = HNL_IN_LEARN;
				step(i, &in);
			}
			break;
		case 14:
			/* A datagram's bytes changed in flight: the MAC
			 * stops that on the wire, so the run is no longer
			 * judged, but the core must refuse or bear it. */
			if (nq == 0)
				break;
			k = byte(&f) % nq;
			q[k].p[byte(&f) % q[k].len] ^= (uint8_t)(byte(&f) | 1);
			forged = 1;
			break;
		case 15:
			if (!up[i])
				break;
			in.type = HNL_IN_MEMBERS;
			{
				unsigned ids[HOSTS];
				size_t m = 0;

				for (k = 0; k < n; k++)
					if (up[k] || (b & 16))
						ids[m++] = (unsigned)k + 1;
				in.ids = ids;
				in.nids = m;
				step(i, &in);
			}
			break;
		}
		if (!forged)
			judge();
	}
	for (i = 0; i < n; i++)
		if (up[i]) {
			hnl_free(&h[i]);
			up[i] = 0;
		}
	return 0;
}
