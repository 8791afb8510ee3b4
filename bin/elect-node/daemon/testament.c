/*
 * The daemon's testament (guard/testament.h): written when the daemon
 * starts, before its control socket answers, and whenever its
 * incarnation or its peers change, so that --run-if-leader can release
 * the lease on its behalf once it is dead.  Only under an algorithm with
 * a Dead message (lease).
 *
 * Not synced: it serves this boot of the host, and the daemon writes it
 * afresh when it starts.  A testament left by an earlier daemon is
 * harmless anyway: its Dead names that daemon's incarnation, which
 * grantors tell from the current one.
 */
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "guard/testament.h"
#include "util/util.h"

#define TMP_NAME	TESTAMENT_NAME ".tmp"

static int
numeric(const struct cluster_node *n, char *host, unsigned *port)
{
	char serv[8];

	if (getnameinfo((const struct sockaddr *)&n->addr, n->addrlen, host,
	    TESTAMENT_HOST_MAX, serv, sizeof(serv),
	    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		return -1;
	*port = (unsigned)strtoul(serv, NULL, 10);
	return 0;
}

/* The text into F: 0, or -1. */
static int
put(struct node *nd, FILE *f)
{
	char host[TESTAMENT_HOST_MAX], line[512];
	uint8_t dgram[WIRE_DGRAM_MAX];
	unsigned port;
	size_t i, len;

	if (numeric(nd->self, host, &port) == -1)
		return -1;
	fprintf(f, "elect-testament %d\nnode %u pid %ld inc %llu\n"
	    "from %s %u\n", TESTAMENT_VERSION, nd->self->id, (long)getpid(),
	    (unsigned long long)nd->inc, host, port);
	for (i = 0; i < nd->net.peers.n; i++) {
		const struct cluster_node *p = &nd->net.peers.nodes[i];

		if (p->id == nd->self->id)
			continue;
		if ((len = testament_seal(&nd->key, &nd->proto,
		    (uint8_t)nd->opts->algo->dead, nd->self->id, p->id,
		    nd->inc, dgram)) == 0 || numeric(p, host, &port) == -1 ||
		    testament_line(p->id, host, port, dgram, len, line,
		    sizeof(line)) == 0)
			return -1;
		fputs(line, f);
	}
	return fflush(f) == EOF || ferror(f) ? -1 : 0;
}

/*
 * tasks.lock: every guarded command locks it, shared, before it may
 * start, and its guard sends the testament only once it gets it
 * exclusively, when no other command runs.  The daemon holds it shared
 * too, for as long as it lives: nobody can then hold it exclusively, so
 * no one blocks a guard's lock while there is a daemon to register with,
 * and the testament goes only once the daemon is dead.  It is made anew
 * when the daemon starts: the guards of a daemon before, which may still
 * send its testament, keep the old file to themselves.
 *
 * Mode 0600, whatever --socket-group: a guard gets it from the daemon,
 * opened anew (a lock of its own) and passed with the first answer to
 * its registration (testament_lock_fd()), never by its path.  A lock
 * anyone could open would let a member who runs no guarded command
 * hold it shared past the daemon's death, and keep every testament
 * waiting until the lease runs out; only a registered guarded command
 * now holds it, which the daemon counts and limits per user, as it must
 * wait for it anyway.
 */
static void
task_lock(struct node *nd)
{
	const char *dir = nd->opts->statedir;
	struct stat st;
	int fd, tries = 0;

	if (nd->tasklock != -1)
		return;
again:
	if (unlinkat(nd->dirfd, TESTAMENT_LOCK, 0) == -1 && errno != ENOENT)
		err(EXIT_USAGE, "%s/%s", dir, TESTAMENT_LOCK);
	if ((fd = openat(nd->dirfd, TESTAMENT_LOCK, O_RDONLY | O_CREAT |
	    O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600)) == -1)
		err(EXIT_USAGE, "%s/%s", dir, TESTAMENT_LOCK);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid())
		errx(EXIT_USAGE, "%s/%s: not a file of uid %u", dir,
		    TESTAMENT_LOCK, (unsigned)geteuid());
	if (fchmod(fd, 0600) == -1)
		err(EXIT_USAGE, "%s/%s", dir, TESTAMENT_LOCK);
	/* Locked by someone in the instant since it was made: a new one. */
	if (flock(fd, LOCK_SH | LOCK_NB) == -1) {
		if ((errno != EWOULDBLOCK && errno != EINTR) || ++tries == 100)
			err(EXIT_USAGE, "%s/%s", dir, TESTAMENT_LOCK);
		close(fd);
		goto again;
	}
	nd->tasklock = fd;
}

/* The daemon's tasks.lock opened anew, for a guard to lock: or -1,
 * without one (not lease) or when it cannot be. */
int
testament_lock_fd(struct node *nd)
{
	struct stat a, b;
	int fd;

	if (nd->tasklock == -1 || (fd = openat(nd->dirfd, TESTAMENT_LOCK,
	    O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) == -1)
		return -1;
	/* The file the daemon holds, not one put in its place. */
	if (fstat(fd, &a) == -1 || fstat(nd->tasklock, &b) == -1 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(fd);
		return -1;
	}
	return fd;
}

void
testament_write(struct node *nd)
{
	const char *dir = nd->opts->statedir;
	FILE *f;
	int fd, rc;

	/* Before the first incarnation, or before the peers: not yet. */
	if (nd->opts->algo->dead == 0 || nd->inc == 0 || nd->net.peers.n == 0)
		return;
	errno = 0;
	task_lock(nd);
	fd = openat(nd->dirfd, TMP_NAME, O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1 || (f = fdopen(fd, "w")) == NULL) {
		rc = -1;
		if (fd != -1)
			close(fd);
	} else {
		rc = put(nd, f);
		if (fclose(f) == EOF)
			rc = -1;
	}
	if (rc == 0 && renameat(nd->dirfd, TMP_NAME, nd->dirfd,
	    TESTAMENT_NAME) == 0)
		return;
	/* Without one, a daemon's crash costs the rest of its lease. */
	log_warnx("%s/%s: %s; if this daemon dies, its lease runs out "
	    "before another node leads", dir, TESTAMENT_NAME,
	    errno != 0 ? strerror(errno) : "cannot write it");
	(void)unlinkat(nd->dirfd, TMP_NAME, 0);
	(void)unlinkat(nd->dirfd, TESTAMENT_NAME, 0);
}
