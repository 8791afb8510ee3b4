/*
 * metrics-tool: the pure pieces of elect-node's status and metrics, for
 * the tests.  Reads commands from stdin, one a line:
 *
 *	status NOW LEADER LDR STATUS TOKEN	metrics_status()
 *	drop REASON				metrics_drop()
 *	rtt NS					a lease renewal round trip
 *	render NOW [LEN]			metrics_render() into LEN bytes
 *	extra NOW TEXT				ctl_status_extra()
 *	json TEXT				ctl_status_json()
 *	addr TEXT				metrics_parse_addr()
 *
 * and prints what each gives, or "error" (render, extra, json) or the
 * reason (addr).  Times are nanoseconds.
 */
#include <arpa/inet.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl.h"
#include "metrics/metrics.h"
#include "trace/trace.h"

static void
addr(const char *s)
{
	struct sockaddr_storage ss;
	char host[INET6_ADDRSTRLEN];
	const char *why;

	if ((why = metrics_parse_addr(s, &ss)) != NULL) {
		printf("refused: %s\n", why);
		return;
	}
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		printf("inet %s %u\n", host, ntohs(in->sin_port));
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		printf("inet6 %s %u\n", host, ntohs(in6->sin6_port));
	}
}

int
main(void)
{
	static struct metrics m;
	static char out[2 * METRICS_TEXT_MAX];
	char line[2048], word[32], text[1536];
	struct algo_status st;
	struct ctl_str f;
	long long now, a, b, tok;
	size_t len;
	int n, s;

	metrics_init(&m, 7, "lease");
	while (fgets(line, sizeof(line), stdin) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		text[0] = '\0';
		if (sscanf(line, "%31s", word) != 1)
			continue;
		if (strcmp(word, "status") == 0 && sscanf(line,
		    "status %lld %lld %lld %d %lld", &now, &a, &b, &s,
		    &tok) == 5) {
			memset(&st, 0, sizeof(st));
			st.leader = (int)a;
			st.state.ldr = (unsigned)b;
			st.state.status = (enum trace_status)s;
			st.token = (uint64_t)tok;
			metrics_status(&m, &st, now);
		} else if (strcmp(word, "drop") == 0 &&
		    sscanf(line, "drop %1535s", text) == 1)
			metrics_drop(&m, text);
		else if (strcmp(word, "rtt") == 0 &&
		    sscanf(line, "rtt %lld", &a) == 1)
			metrics_hist_add(&m.rtt, metrics_rtt_le, a);
		else if (strcmp(word, "render") == 0 &&
		    (n = sscanf(line, "render %lld %zu", &now, &len)) >= 1) {
			if (n == 1 || len > sizeof(out))
				len = sizeof(out);
			m.peers = 2;
			m.peers_up = 1;
			if (metrics_render(&m, now, out, len) < 0)
				printf("error\n");
			else
				fputs(out, stdout);
		} else if (strcmp(word, "extra") == 0 &&
		    sscanf(line, "extra %lld %n", &now, &n) == 1) {
			if (ctl_status_extra(line + n, now, text,
			    sizeof(text)) == -1)
				printf("error\n");
			else
				printf("%s\n", text);
		} else if (strcmp(word, "json") == 0 && strlen(line) >= 5) {
			f.p = line + 5;
			f.n = strlen(f.p);
			if (ctl_status_json(f, out, sizeof(out)) == -1)
				printf("error\n");
			else
				printf("%s\n", out);
		} else if (strcmp(word, "addr") == 0)
			addr(strlen(line) >= 5 ? line + 5 : "");
		else
			errx(2, "bad line: %s", line);
		fflush(stdout);
	}
	return 0;
}
