/*
 * Strict parsing of control lines.  Fields are separated by runs of spaces
 * or tabs; control characters are refused anywhere, so that nothing a
 * client sends can forge a second line in a reply or a trace.
 */
#include <string.h>

#include "ctl/ctl.h"

#define VERSION_DIGITS	3

static int
blank(char c)
{
	return c == ' ' || c == '\t';
}

static const char *
check_bytes(const char *line, size_t len)
{
	size_t i;

	if (len >= CTL_LINE_MAX)
		return "line too long";
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return "control character in line";
	}
	return NULL;
}

struct ctl_str
ctl_next_field(const char *line, size_t len, size_t *pos)
{
	struct ctl_str s;
	size_t i = *pos;

	while (i < len && blank(line[i]))
		i++;
	s.p = line + i;
	while (i < len && !blank(line[i]))
		i++;
	s.n = (size_t)(line + i - s.p);
	*pos = i;
	return s;
}

static struct ctl_str
rest_of(const char *line, size_t len, size_t pos)
{
	struct ctl_str s;

	while (pos < len && blank(line[pos]))
		pos++;
	while (len > pos && blank(line[len - 1]))
		len--;
	s.p = line + pos;
	s.n = len - pos;
	return s;
}

int
ctl_str_eq(struct ctl_str s, const char *w)
{
	return strlen(w) == s.n && memcmp(s.p, w, s.n) == 0;
}

static int
parse_version(struct ctl_str s, unsigned *v)
{
	size_t i;

	if (s.n == 0 || s.n > VERSION_DIGITS || s.p[0] == '0')
		return -1;
	*v = 0;
	for (i = 0; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return -1;
		*v = *v * 10 + (unsigned)(s.p[i] - '0');
	}
	return 0;
}

static int
command_word(struct ctl_str s)
{
	size_t i;

	if (s.n == 0 || s.n > CTL_CMD_MAX || s.p[0] < 'a' || s.p[0] > 'z')
		return 0;
	for (i = 1; i < s.n; i++) {
		char c = s.p[i];

		if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') &&
		    c != '-')
			return 0;
	}
	return 1;
}

const char *
ctl_parse_req(const char *line, size_t len, struct ctl_req *req)
{
	struct ctl_str s;
	const char *why;
	size_t pos = 0;

	memset(req, 0, sizeof(*req));
	if ((why = check_bytes(line, len)) != NULL)
		return why;
	if (!ctl_str_eq(ctl_next_field(line, len, &pos), "elect"))
		return "not an elect control line";
	if (parse_version(ctl_next_field(line, len, &pos), &req->version) == -1)
		return "bad version";
	req->cmd = ctl_next_field(line, len, &pos);
	if (req->cmd.n == 0)
		return "missing command";
	if (!command_word(req->cmd))
		return "bad command word";
	req->rest = rest_of(line, len, pos);
	while ((s = ctl_next_field(line, len, &pos)).n > 0) {
		if (req->argc == CTL_ARGS_MAX)
			return "too many arguments";
		req->argv[req->argc++] = s;
	}
	return NULL;
}

const char *
ctl_parse_reply(const char *line, size_t len, int *ok, struct ctl_str *rest)
{
	struct ctl_str w, f;
	const char *why;
	size_t pos = 0, p;

	if ((why = check_bytes(line, len)) != NULL)
		return why;
	w = ctl_next_field(line, len, &pos);
	*rest = rest_of(line, len, pos);
	if (ctl_str_eq(w, "err")) {
		*ok = 0;
		return rest->n > 0 ? NULL : "err without a reason";
	}
	if (!ctl_str_eq(w, "ok"))
		return "neither ok nor err";
	*ok = 1;
	p = pos;
	while ((f = ctl_next_field(line, len, &p)).n > 0) {
		const char *eq = memchr(f.p, '=', f.n);

		if (eq == NULL || eq == f.p)
			return "field without KEY=";
	}
	return NULL;
}

int
ctl_field(struct ctl_str fields, const char *key, struct ctl_str *val)
{
	struct ctl_str f;
	size_t pos = 0, klen = strlen(key);

	while ((f = ctl_next_field(fields.p, fields.n, &pos)).n > 0) {
		if (f.n > klen && f.p[klen] == '=' &&
		    memcmp(f.p, key, klen) == 0) {
			val->p = f.p + klen + 1;
			val->n = f.n - klen - 1;
			return 1;
		}
	}
	return 0;
}
