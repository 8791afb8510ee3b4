/*
 * udpmix [-H] [-b slots] [-d ms] [-r k] [-s seed] [-t seconds] [-w ms]
 *     lport:dport[/sport][+] ...
 *
 * A UDP relay on 127.0.0.1 that delays and reorders what it forwards.
 * Every route lport:dport listens on 127.0.0.1:lport and sends what it
 * receives, from that same port, to 127.0.0.1:dport.  Tests put it
 * between elect-node daemons by giving each daemon a cluster file of its
 * own, in which a peer's address is the relay port of that directed pair.
 * With /sport, it sends from the port of another route, sport: the relay
 * port of the reverse pair, which is where the receiver's cluster file
 * says the sender is (elect-node checks the source of every datagram).
 * A route that ends in + is not held: its datagrams go at once (the way
 * back of a held route, which must send from this process's sockets).
 *
 *	-r k	hold the datagrams of a route until k of them wait, then send
 *		them in the reverse order of their arrival; a batch that is
 *		not full after -w ms (default 50) goes as it is, reversed
 *	-d ms	then hold each datagram for a random 0 .. ms milliseconds
 *	-s seed	the seed of those random delays (default: a random one)
 *	-H	never hold the handshake's HELLOs (wire type 255): the
 *		nodes know each other, their messages are late
 *	-b n	hold at most n datagrams (default 256); past that, and past
 *		2048 bytes, datagrams are dropped
 *	-t s	exit after s seconds (default 60), or on SIGTERM, SIGINT or
 *		SIGHUP; datagrams still held are not sent
 *
 * SIGUSR1 lets every batch go at once, as if it were full: with a large
 * -r and -w, a test holds a link's datagrams until the moment it chooses.
 * --help prints the usage, --version the version.
 *
 * On exit it prints "seed=N", then one line per route: "lport:dport
 * received=N sent=N late=N dropped=N left=N", where late counts the
 * datagrams sent after one that arrived later on the same route.  Exit
 * status: 0, 1 on a system error (a port taken), 2 on bad usage.
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "algo/algo.h"
#include "net/wire.h"
#include "util/util.h"

#define ROUTES_MAX	64
#define SLOTS_MAX	1024
#define DGRAM_MAX	2048	/* elect's datagrams are at most 1232 bytes */
#define RECV_BURST	64
#define MS		1000000LL
#define HELD		INT64_MAX	/* due time of a datagram in a batch */

struct route {
	int		 fd;
	uint16_t	 lport, dport, sport;
	int		 sfd;		/* sends from: fd, or sport's */
	int		 pass;		/* +: never held */
	uint64_t	 serial;	/* arrivals so far */
	uint64_t	 top;		/* 1 + the highest serial sent */
	size_t		 nbatch;	/* datagrams held for the batch */
	int64_t		 since;		/* arrival of the batch's first */
	uint64_t	 received, sent, late, dropped;
};

struct slot {
	struct route	*r;		/* NULL: free */
	uint64_t	 serial;
	int64_t		 due;		/* HELD while in a batch */
	uint64_t	 ticket;	/* order among equal due times */
	size_t		 len;
	uint8_t		 data[DGRAM_MAX];
};

struct mix {
	struct route	 routes[ROUTES_MAX];
	size_t		 nroutes;
	struct slot	*slots;
	size_t		 nslots;
	size_t		 batch;		/* -r */
	int64_t		 wait;		/* -w, ns */
	int64_t		 delay;		/* -d, ns */
	uint64_t	 seed, rng;
	uint64_t	 tickets;
	int		 sigfd;		/* SIGTERM, SIGINT, SIGHUP, SIGUSR1 */
	int		 flush;		/* SIGUSR1 came */
	int		 hellos;	/* -H */
};

static void __attribute__((noreturn))
usage(FILE *f, int code)
{
	fprintf(f, "usage: udpmix [-H] [-b slots] [-d ms] [-r k] [-s seed] "
	    "[-t seconds] [-w ms]\n"
	    "              lport:dport[/sport][+] ...\n");
	exit(code);
}

static void
add_route(struct mix *m, const char *arg)
{
	char buf[24], *colon, *slash;
	struct route *r;
	size_t i;

	if (m->nroutes == ROUTES_MAX)
		errx(EXIT_USAGE, "more than %d routes", ROUTES_MAX);
	if (strlcpy(buf, arg, sizeof(buf)) >= sizeof(buf) ||
	    (colon = strchr(buf, ':')) == NULL)
		errx(EXIT_USAGE, "%s: expected lport:dport", arg);
	*colon = '\0';
	r = &m->routes[m->nroutes];
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if ((slash = strchr(colon + 1, '+')) != NULL && slash[1] == '\0') {
		*slash = '\0';
		r->pass = 1;
	}
	if ((slash = strchr(colon + 1, '/')) != NULL) {
		*slash = '\0';
		r->sport = (uint16_t)arg_num(slash + 1, 1, 65535, arg);
	}
	r->lport = (uint16_t)arg_num(buf, 1, 65535, arg);
	r->dport = (uint16_t)arg_num(colon + 1, 1, 65535, arg);
	for (i = 0; i < m->nroutes; i++)
		if (m->routes[i].lport == r->lport)
			errx(EXIT_USAGE, "%s: port %u listens twice", arg,
			    r->lport);
	m->nroutes++;
}

static struct sockaddr_in
loopback(uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	return sin;
}

static void
open_routes(struct mix *m)
{
	struct sockaddr_in sin;
	struct route *r;
	size_t i, j;

	for (i = 0; i < m->nroutes; i++) {
		r = &m->routes[i];
		sin = loopback(r->lport);
		r->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (r->fd == -1)
			err(1, "socket");
		if (bind(r->fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
			err(1, "127.0.0.1:%u", r->lport);
	}
	for (i = 0; i < m->nroutes; i++) {
		r = &m->routes[i];
		r->sfd = r->fd;
		for (j = 0; r->sport != 0 && j < m->nroutes; j++)
			if (m->routes[j].lport == r->sport)
				r->sfd = m->routes[j].fd;
		if (r->sport != 0 && r->sfd == r->fd)
			errx(EXIT_USAGE, "%u:%u/%u: no route listens on %u",
			    r->lport, r->dport, r->sport, r->sport);
	}
}

static int64_t
draw_delay(struct mix *m)
{
	uint64_t us = (uint64_t)(m->delay / 1000);

	/* The modulo's bias is below 2^-40 for any -d: none a test sees. */
	return us == 0 ? 0 : (int64_t)(algo_splitmix(&m->rng) % (us + 1)) *
	    1000;
}

/* Sends R's batch, newest first: each gets its delay from NOW. */
static void
release_batch(struct mix *m, struct route *r, int64_t now)
{
	struct slot *s, *newest;
	size_t i;

	for (; r->nbatch > 0; r->nbatch--) {
		newest = NULL;
		for (i = 0; i < m->nslots; i++) {
			s = &m->slots[i];
			if (s->r == r && s->due == HELD &&
			    (newest == NULL || s->serial > newest->serial))
				newest = s;
		}
		newest->due = now + draw_delay(m);
		newest->ticket = m->tickets++;
	}
}

static struct slot *
free_slot(struct mix *m)
{
	size_t i;

	for (i = 0; i < m->nslots; i++)
		if (m->slots[i].r == NULL)
			return &m->slots[i];
	return NULL;
}

/* Reads what waits on R, at most a burst, into free slots. */
static void
receive(struct mix *m, struct route *r, int64_t now)
{
	uint8_t scratch[DGRAM_MAX];
	struct slot *s;
	ssize_t n;
	int i;

	for (i = 0; i < RECV_BURST; i++) {
		s = free_slot(m);
		n = recv(r->fd, s != NULL ? s->data : scratch, DGRAM_MAX,
		    MSG_TRUNC);
		if (n == -1) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNREFUSED)
				warn("127.0.0.1:%u", r->lport);
			return;
		}
		r->received++;
		if (s == NULL || n > DGRAM_MAX) {
			r->dropped++;
			continue;
		}
		s->r = r;
		s->serial = r->serial++;
		s->len = (size_t)n;
		s->due = HELD;
		if (r->pass || (m->hellos && n > 5 &&
		    s->data[5] == WIRE_TYPE_HELLO)) {
			s->due = now;
			s->ticket = m->tickets++;
			continue;
		}
		if (r->nbatch++ == 0)
			r->since = now;
		if (r->nbatch == m->batch)
			release_batch(m, r, now);
	}
}

/* The datagram to send next: due first, then in the order released. */
static struct slot *
next_due(struct mix *m)
{
	struct slot *s, *best = NULL;
	size_t i;

	/* A scan: at most -b slots, and a test's traffic is small. */
	for (i = 0; i < m->nslots; i++) {
		s = &m->slots[i];
		if (s->r == NULL || s->due == HELD)
			continue;
		if (best == NULL || s->due < best->due ||
		    (s->due == best->due && s->ticket < best->ticket))
			best = s;
	}
	return best;
}

static void
send_due(struct mix *m, int64_t now)
{
	struct sockaddr_in to;
	struct slot *s;
	struct route *r;

	while ((s = next_due(m)) != NULL && s->due <= now) {
		r = s->r;
		to = loopback(r->dport);
		if (sendto(r->sfd, s->data, s->len, 0, (struct sockaddr *)&to,
		    sizeof(to)) == -1)
			r->dropped++;
		else {
			r->sent++;
			if (s->serial + 1 < r->top)
				r->late++;
			else
				r->top = s->serial + 1;
		}
		s->r = NULL;
	}
}

/* Releases the batches that waited long enough, or all after SIGUSR1. */
static void
expire_batches(struct mix *m, int64_t now)
{
	size_t i;

	for (i = 0; i < m->nroutes; i++)
		if (m->routes[i].nbatch > 0 &&
		    (m->flush || now - m->routes[i].since >= m->wait))
			release_batch(m, &m->routes[i], now);
	m->flush = 0;
}

/* The next moment something happens, END at the latest. */
static int64_t
next_event(struct mix *m, int64_t end)
{
	struct slot *s;
	int64_t t = end;
	size_t i;

	if ((s = next_due(m)) != NULL && s->due < t)
		t = s->due;
	for (i = 0; i < m->nroutes; i++)
		if (m->routes[i].nbatch > 0 &&
		    m->routes[i].since + m->wait < t)
			t = m->routes[i].since + m->wait;
	return t;
}

static void
run(struct mix *m, int64_t end)
{
	struct pollfd pfd[ROUTES_MAX + 1];
	struct timespec ts;
	int64_t now, dt;
	size_t i;
	int n, sig, quit = 0;

	for (i = 0; i < m->nroutes; i++) {
		pfd[i].fd = m->routes[i].fd;
		pfd[i].events = POLLIN;
	}
	pfd[m->nroutes].fd = m->sigfd;
	pfd[m->nroutes].events = POLLIN;
	while (!quit && (now = mono_now()) < end) {
		dt = next_event(m, end) - now;
		if (dt < 0)
			dt = 0;
		ts.tv_sec = dt / TRACE_NS;
		ts.tv_nsec = dt % TRACE_NS;
		n = ppoll(pfd, m->nroutes + 1, &ts, NULL);
		if (n == -1 && errno != EINTR)
			err(1, "ppoll");
		while (n > 0 && pfd[m->nroutes].revents != 0 &&
		    (sig = signals_next(m->sigfd)) != 0) {
			if (sig == SIGUSR1)
				m->flush = 1;
			else
				quit = 1;
		}
		now = mono_now();
		for (i = 0; n > 0 && i < m->nroutes; i++)
			if (pfd[i].revents & (POLLIN | POLLERR))
				receive(m, &m->routes[i], now);
		expire_batches(m, now);
		send_due(m, now);
	}
}

static void
report(const struct mix *m)
{
	const struct route *r;
	size_t i, j, left;

	printf("seed=%llu\n", (unsigned long long)m->seed);
	for (i = 0; i < m->nroutes; i++) {
		r = &m->routes[i];
		for (left = 0, j = 0; j < m->nslots; j++)
			left += m->slots[j].r == r;
		printf("%u:%u received=%llu sent=%llu late=%llu dropped=%llu "
		    "left=%zu\n", r->lport, r->dport,
		    (unsigned long long)r->received,
		    (unsigned long long)r->sent, (unsigned long long)r->late,
		    (unsigned long long)r->dropped, left);
	}
	if (fflush(stdout) == EOF)
		err(1, "stdout");
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help",	no_argument,	NULL,	'h' },
		{ "version",	no_argument,	NULL,	'V' },
		{ NULL,		0,		NULL,	0 }
	};
	struct mix m;
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1 };
	int64_t life = 60 * TRACE_NS;
	int ch, seeded = 0;
	size_t i;

	memset(&m, 0, sizeof(m));
	m.batch = 1;
	m.wait = 50 * MS;
	m.nslots = 256;
	while ((ch = getopt_long(argc, argv, "b:d:Hhr:s:t:w:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'b':
			m.nslots = (size_t)arg_num(optarg, 1, SLOTS_MAX, "-b");
			break;
		case 'd':
			m.delay = arg_num(optarg, 0, 60000, "-d") * MS;
			break;
		case 'H':
			m.hellos = 1;
			break;
		case 'h':
			usage(stdout, 0);
		case 'r':
			m.batch = (size_t)arg_num(optarg, 1, SLOTS_MAX, "-r");
			break;
		case 's':
			m.seed = (uint64_t)arg_num(optarg, 0, LLONG_MAX, "-s");
			seeded = 1;
			break;
		case 't':
			life = arg_num(optarg, 1, 3600, "-t") * TRACE_NS;
			break;
		case 'w':
			m.wait = arg_num(optarg, 1, 60000, "-w") * MS;
			break;
		case 'V':
			print_version();
		default:
			usage(stderr, EXIT_USAGE);
		}
	}
	if (optind == argc)
		usage(stderr, EXIT_USAGE);
	for (i = optind; i < (size_t)argc; i++)
		add_route(&m, argv[i]);
	if (m.batch > m.nslots)
		errx(EXIT_USAGE, "-r %zu: more than the %zu slots of -b",
		    m.batch, m.nslots);
	if (!seeded)
		arc4random_buf(&m.seed, sizeof(m.seed));
	m.seed &= INT64_MAX;	/* so that -s takes it back */
	m.rng = m.seed;
	if ((m.slots = calloc(m.nslots, sizeof(*m.slots))) == NULL)
		err(1, NULL);
	/* SIGTERM, SIGINT and SIGHUP end the run, SIGUSR1 flushes. */
	m.sigfd = signals_open(sigs, nitems(sigs));
	open_routes(&m);
	run(&m, mono_now() + life);
	report(&m);
	for (i = 0; i < m.nroutes; i++)
		close(m.routes[i].fd);
	close(m.sigfd);
	free(m.slots);
	return 0;
}
