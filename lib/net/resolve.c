/*
 * A narrow resolver: numeric addresses, /etc/hosts, DNS (see resolve.h for
 * why not getaddrinfo(3)).  DNS goes through the resolver(3) of libresolv,
 * which reads resolv.conf(5) and needs no NSS module.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <netinet/in.h>

#include <netdb.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/resolve.h"

#define HOSTS_FILE	"/etc/hosts"
#define HOSTS_LINE	1024	/* longer lines of the hosts file are skipped */
#define DNS_ANSWER	4096

struct found {
	int		 family;	/* wanted: AF_UNSPEC, AF_INET, AF_INET6 */
	size_t		 n;
	int		 fam[RESOLVE_MAX];
	union {
		struct in_addr	 v4;
		struct in6_addr	 v6;
	}		 addr[RESOLVE_MAX];
};

static void
add(struct found *f, int family, const void *addr)
{
	if (f->n == RESOLVE_MAX ||
	    (f->family != AF_UNSPEC && f->family != family))
		return;
	f->fam[f->n] = family;
	memcpy(&f->addr[f->n], addr, family == AF_INET ?
	    sizeof(struct in_addr) : sizeof(struct in6_addr));
	f->n++;
}

/*
 * An IPv4 address in any form inet_aton(3) takes ("127.1" too, as
 * getaddrinfo(3) does) or an IPv6 address: 1, else 0.
 */
static int
numeric(struct found *f, const char *s)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (inet_aton(s, &a4) == 1)
		add(f, AF_INET, &a4);
	else if (inet_pton(AF_INET6, s, &a6) == 1)
		add(f, AF_INET6, &a6);
	else
		return 0;
	return 1;
}

/* Every line of the hosts file that names HOST, in order. */
static void
from_hosts(struct found *f, const char *host)
{
	FILE *fp;
	char line[HOSTS_LINE], *addr, *name, *last;
	int whole = 1, was;

	if ((fp = fopen(HOSTS_FILE, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		was = whole;
		whole = strchr(line, '\n') != NULL || feof(fp);
		if (!was || !whole)
			continue;
		line[strcspn(line, "#")] = '\0';
		if ((addr = strtok_r(line, " \t\n", &last)) == NULL)
			continue;
		while ((name = strtok_r(NULL, " \t\n", &last)) != NULL) {
			if (strcasecmp(name, host) == 0) {
				numeric(f, addr);
				break;
			}
		}
	}
	fclose(fp);
}

/* The records of TYPE (A or AAAA) for HOST: 0, or an EAI_* code. */
static int
query(struct found *f, res_state rs, const char *host, ns_type type)
{
	unsigned char ans[DNS_ANSWER];
	ns_msg msg;
	ns_rr rr;
	int len, i;

	len = res_nsearch(rs, host, ns_c_in, type, ans, sizeof(ans));
	if (len < 0)
		return rs->res_h_errno == TRY_AGAIN ? EAI_AGAIN : EAI_NONAME;
	if (len > (int)sizeof(ans))
		len = sizeof(ans);	/* truncated: what fits */
	if (ns_initparse(ans, len, &msg) == -1)
		return EAI_FAIL;
	for (i = 0; i < ns_msg_count(msg, ns_s_an); i++) {
		if (ns_parserr(&msg, ns_s_an, i, &rr) == -1)
			break;
		if (ns_rr_class(rr) != ns_c_in || ns_rr_type(rr) != type)
			continue;
		if (type == ns_t_a && ns_rr_rdlen(rr) == 4)
			add(f, AF_INET, ns_rr_rdata(rr));
		else if (type == ns_t_aaaa && ns_rr_rdlen(rr) == 16)
			add(f, AF_INET6, ns_rr_rdata(rr));
	}
	return 0;
}

static int
from_dns(struct found *f, const char *host)
{
	struct __res_state rs;
	int e = EAI_NONAME, e6 = EAI_NONAME;

	memset(&rs, 0, sizeof(rs));
	if (res_ninit(&rs) == -1)
		return EAI_FAIL;
	if (f->family != AF_INET6)
		e = query(f, &rs, host, ns_t_a);
	if (f->family != AF_INET)
		e6 = query(f, &rs, host, ns_t_aaaa);
	res_nclose(&rs);
	if (f->n > 0)
		return 0;
	return e == EAI_AGAIN || e6 == EAI_AGAIN ? EAI_AGAIN :
	    e != EAI_NONAME ? e : e6;
}

/* One answer: the addrinfo and its address in one allocation. */
struct node {
	struct addrinfo		 ai;
	struct sockaddr_storage	 ss;
};

static int
build(const struct found *f, unsigned port, const struct addrinfo *hints,
    struct addrinfo **res)
{
	struct addrinfo **tail = res;
	struct node *n;
	struct sockaddr_in *s4;
	struct sockaddr_in6 *s6;
	size_t i;

	*res = NULL;
	for (i = 0; i < f->n; i++) {
		if ((n = calloc(1, sizeof(*n))) == NULL) {
			net_freeaddrinfo(*res);
			*res = NULL;
			return EAI_MEMORY;
		}
		n->ai.ai_family = f->fam[i];
		n->ai.ai_socktype = hints->ai_socktype;
		n->ai.ai_protocol = hints->ai_protocol;
		n->ai.ai_addr = (struct sockaddr *)&n->ss;
		if (f->fam[i] == AF_INET) {
			s4 = (struct sockaddr_in *)&n->ss;
			s4->sin_family = AF_INET;
			s4->sin_port = htons(port);
			s4->sin_addr = f->addr[i].v4;
			n->ai.ai_addrlen = sizeof(*s4);
		} else {
			s6 = (struct sockaddr_in6 *)&n->ss;
			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons(port);
			s6->sin6_addr = f->addr[i].v6;
			n->ai.ai_addrlen = sizeof(*s6);
		}
		*tail = &n->ai;
		tail = &n->ai.ai_next;
	}
	return 0;
}

int
net_getaddrinfo(const char *host, const char *port,
    const struct addrinfo *hints, struct addrinfo **res)
{
	struct found f = { .family = hints->ai_family };
	long long p = 0;
	const char *why = NULL;
	int e = 0;

	*res = NULL;
	if (f.family != AF_UNSPEC && f.family != AF_INET &&
	    f.family != AF_INET6)
		return EAI_FAMILY;
	if (port != NULL && (p = strtonum(port, 0, 65535, &why), why != NULL))
		return EAI_SERVICE;
	if (host[0] == '\0')
		return EAI_NONAME;
	if (!numeric(&f, host)) {
		if (hints->ai_flags & AI_NUMERICHOST)
			return EAI_NONAME;
		from_hosts(&f, host);
		if (f.n == 0)
			e = from_dns(&f, host);
	}
	if (e != 0)
		return e;
	if (f.n == 0)
		return EAI_ADDRFAMILY;	/* numeric, of another family */
	return build(&f, (unsigned)p, hints, res);
}

void
net_freeaddrinfo(struct addrinfo *ai)
{
	struct addrinfo *next;

	for (; ai != NULL; ai = next) {
		next = ai->ai_next;
		free(ai);	/* the first member of its struct node */
	}
}
