/*
 * Daemon logging: one line per event, on stderr (where journald or the
 * terminal takes it) or to syslog.  Errors and warnings are always shown;
 * -q hides the info lines, -v adds the debug ones.  Under journald
 * (JOURNAL_STREAM set) each line carries its syslog priority as a "<N>"
 * prefix, so that `journalctl -p warning` filters them; elsewhere each
 * starts with the time, UTC to the millisecond, as journald would add it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "util/util.h"

static const char	*log_tag = "elect";
static int		 log_syslog;
static int		 log_verbosity;
static int		 log_journal;

void
log_init(const char *tag, int use_syslog, int verbosity)
{
	log_tag = tag;
	log_syslog = use_syslog;
	log_verbosity = verbosity;
	log_journal = getenv("JOURNAL_STREAM") != NULL;
	if (use_syslog)
		openlog(tag, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

static void
log_v(int prio, const char *fmt, va_list ap)
{
	char	 line[1024];

	/* A long line is cut, never split: one event, one line. */
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	if (log_syslog)
		syslog(prio, "%s", line);
	else if (log_journal)
		fprintf(stderr, "<%d>%s\n", prio, line);
	else {
		struct timespec ts;
		struct tm tm;
		char when[32];

		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(stderr, "%s.%03ldZ %s: %s\n", when,
		    ts.tv_nsec / 1000000, log_tag, line);
	}
}

void
log_warnx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_v(LOG_WARNING, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	 ap;

	if (log_verbosity < 0)
		return;
	va_start(ap, fmt);
	log_v(LOG_NOTICE, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	 ap;

	if (log_verbosity < 1)
		return;
	va_start(ap, fmt);
	log_v(LOG_DEBUG, fmt, ap);
	va_end(ap);
}

void
log_drops_add(struct log_drops *d, const char *why, int64_t now)
{
	size_t i;

	if (d->start == 0)
		d->start = now != 0 ? now : 1;
	d->n++;
	for (i = 0; i < d->nwhy; i++)
		if (strcmp(d->why[i].why, why) == 0)
			break;
	if (i == d->nwhy) {
		if (d->nwhy == LOG_DROPS_WHYS)
			i = LOG_DROPS_WHYS - 1;	/* the last counts the rest */
		else {
			d->why[i].why = why;
			d->why[i].n = 0;
			d->nwhy++;
		}
	}
	d->why[i].n++;
}

int64_t
log_drops_tick(struct log_drops *d, unsigned node, int64_t now)
{
	char whys[512];
	size_t i, off = 0;

	if (d->start == 0)
		return -1;
	if (now - d->start < LOG_DROPS_WINDOW)
		return d->start + LOG_DROPS_WINDOW - now;
	if (d->n >= LOG_DROPS_MIN) {
		whys[0] = '\0';
		for (i = 0; i < d->nwhy && off < sizeof(whys); i++)
			off += (size_t)snprintf(whys + off, sizeof(whys) - off,
			    "%s%s:%llu", i == 0 ? "" : ",",
			    i == LOG_DROPS_WHYS - 1 && d->nwhy ==
			    LOG_DROPS_WHYS ? "other" : d->why[i].why,
			    (unsigned long long)d->why[i].n);
		log_warnx("drops node=%u count=%llu window=%llds why=%s", node,
		    (unsigned long long)d->n,
		    (long long)(LOG_DROPS_WINDOW / 1000000000LL), whys);
	}
	memset(d, 0, sizeof(*d));
	return -1;
}
