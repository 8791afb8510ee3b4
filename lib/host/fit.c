/* Agreement of configurations: see fit.h. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "host/fit.h"
#include "util/util.h"

void
fit_init(struct fit *f, int quorum)
{
	memset(f, 0, sizeof(*f));
	f->quorum = quorum;
	strlcpy(f->odd, "-", sizeof(f->odd));
}

/* Whether a live disagreement of this kind may let a second leader in. */
static int
stops(const struct fit *f, enum sess_misfit m)
{
	return m != SESS_OK && (!f->quorum || m == SESS_CLUSTER);
}

enum sess_misfit
fit_misfit_of(const struct sess *s)
{
	return s->misfit != SESS_OK ? s->misfit :
	    s->badmacs > 0 && !s->confirmed ? SESS_KEY : SESS_OK;
}

int
fit_stranger(struct fit *f, unsigned id, int64_t now)
{
	size_t i, old = 0;

	for (i = 0; i < f->nstrangers; i++)
		if (f->stranger[i].id == id) {
			f->stranger[i].odd_at = now;
			return 0;
		}
	if (f->nstrangers < FIT_STRANGERS)
		old = f->nstrangers++;
	else
		for (i = 1; i < FIT_STRANGERS; i++)
			if (f->stranger[i].odd_at < f->stranger[old].odd_at)
				old = i;
	f->stranger[old].id = id;
	f->stranger[old].misfit = SESS_CLUSTER;
	f->stranger[old].odd_at = now;
	return 1;
}

const char *
fit_line(const struct fit *f, char *buf, size_t len)
{
	snprintf(buf, len, "misfit lead=%s peers=%s", f->vetoed ? "no" : "yes",
	    f->odd);
	return buf;
}

int
fit_step(struct fit *f, const struct fit_peer *p, size_t n, int64_t now,
    int64_t *wake)
{
	char odd[FIT_TEXT_MAX] = "", one[32];
	const struct fit_peer *q;
	unsigned live = 0;
	int vetoed = 0, changed;
	size_t i;

	*wake = INT64_MAX;
	for (i = 0; i < n + f->nstrangers; i++) {
		q = i < n ? &p[i] : &f->stranger[i - n];
		if (q->misfit == SESS_OK || q->odd_at == 0 ||
		    now - q->odd_at >= FIT_LIVE)
			continue;
		live++;
		vetoed |= stops(f, q->misfit);
		if (q->odd_at + FIT_LIVE < *wake)
			*wake = q->odd_at + FIT_LIVE;
		snprintf(one, sizeof(one), "%s%u:%s", odd[0] ? "," : "",
		    q->id, sess_misfit_name(q->misfit));
		/* Cut whole, never half a peer (FIT_TEXT_MAX holds some 25). */
		if (strlen(odd) + strlen(one) < sizeof(odd) - 8)
			strlcat(odd, one, sizeof(odd));
	}
	if (odd[0] == '\0')
		strlcpy(odd, "-", sizeof(odd));
	changed = vetoed != f->vetoed || strcmp(odd, f->odd) != 0;
	f->vetoed = vetoed;
	f->live = live;
	strlcpy(f->odd, odd, sizeof(f->odd));
	/* Established here: a veto only ever rests on a live disagreement. */
	assert(!f->vetoed || f->live > 0);
	return changed;
}
