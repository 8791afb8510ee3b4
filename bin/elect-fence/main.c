/*
 * elect-fence: writes a file of a directory only for a fencing token no
 * older than the newest the directory has accepted.  See elect-fence(1).
 *
 * The directory holds its fence in .elect-fence, one "NAME TOKEN" line
 * per leadership, replaced whole under an exclusive flock of
 * .elect-fence.lock.  Standard input is copied into a temporary file of
 * the directory first, without the lock; then, under it, the token is
 * compared with the fence, the fence raised (and made durable) and only
 * then the data put in place: a crash between the two leaves a fence
 * ahead of the data, which refuses no newer writer.  Every name is opened
 * relative to the directory, never following a symbolic link.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fence/fence.h"
#include "util/util.h"

#define EXIT_FAIL	3		/* a write or a read failed */
#define FENCE		".elect-fence"
#define FENCE_NEW	".elect-fence.new"
#define FENCE_LOCK	".elect-fence.lock"

/* The temporary file of the data, removed at any exit until it is put
 * in place. */
static int tmp_dfd = -1;
static char tmp[FENCE_NAME_MAX + 32];

static void
tmp_remove(void)
{
	if (tmp_dfd != -1 && tmp[0] != '\0')
		unlinkat(tmp_dfd, tmp, 0);
}

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code == 0 ? stdout : stderr;

	fprintf(fp, "usage: %s -d dir [-n name] [-t token] [-a | -r] [file]\n"
	    "       %s -d dir [-n name] -q\n", getprogname(), getprogname());
	if (code == 0)
		printf("  -a  append standard input to file (the default)\n"
		    "  -r  replace file with standard input\n"
		    "  -q  print the newest token dir has accepted for name\n"
		    "  the token: -t, or $ELECT_TOKEN; the name: -n, or "
		    "\"-\"\n"
		    "  exit 0 written, 1 refused (an older token), 2 bad "
		    "usage, 3 failed\n");
	exit(code);
}

/* A file of the directory: no slash, not . nor .., not the fence's. */
static int
file_ok(const char *s)
{
	return s[0] != '\0' && strchr(s, '/') == NULL && strcmp(s, ".") != 0 &&
	    strcmp(s, "..") != 0 && strncmp(s, FENCE, strlen(FENCE)) != 0;
}

static void
write_all(int fd, const char *p, size_t n, const char *what)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			err(EXIT_FAIL, "%s", what);
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Copies FROM (from where it stands) to TO until its end. */
static void
copy(int from, int to, const char *rwhat, const char *wwhat)
{
	char buf[65536];
	ssize_t r;

	for (;;) {
		if ((r = read(from, buf, sizeof(buf))) == -1) {
			if (errno == EINTR)
				continue;
			err(EXIT_FAIL, "%s", rwhat);
		}
		if (r == 0)
			return;
		write_all(to, buf, (size_t)r, wwhat);
	}
}

/* A new file of DFD, "PREFIX.XXXXXXXX", opened to write and read; its
 * name in NAME. */
static int
tmp_open(int dfd, const char *prefix, char *name, size_t len)
{
	int fd, i;

	for (i = 0; i < 100; i++) {
		snprintf(name, len, "%s.%08x", prefix, arc4random());
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd != -1 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

/*
 * The fence file, read strictly: "NAME TOKEN" lines, each name once.
 * Returns its text (to free) and its length in *LEN, or NULL when there
 * is none yet; *TOKEN is NAME's token, or -1.
 */
static char *
fence_read(int dfd, const char *dir, const char *name, size_t *len,
    long long *token)
{
	char *buf;
	struct stat st;
	ssize_t r;
	size_t n = 0;
	int fd;

	*token = -1;
	*len = 0;
	if ((fd = openat(dfd, FENCE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) ==
	    -1) {
		if (errno == ENOENT)
			return NULL;
		err(EXIT_FAIL, "%s/%s", dir, FENCE);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode))
		errx(EXIT_FAIL, "%s/%s: not a regular file", dir, FENCE);
	if ((buf = malloc(FENCE_TEXT_MAX + 1)) == NULL)
		err(EXIT_FAIL, NULL);
	while (n <= FENCE_TEXT_MAX &&
	    (r = read(fd, buf + n, FENCE_TEXT_MAX + 1 - n)) != 0) {
		if (r == -1) {
			if (errno == EINTR)
				continue;
			err(EXIT_FAIL, "%s/%s", dir, FENCE);
		}
		n += (size_t)r;
	}
	close(fd);
	if (n > FENCE_TEXT_MAX)
		errx(EXIT_FAIL, "%s/%s: larger than %d bytes", dir, FENCE,
		    FENCE_TEXT_MAX);
	buf[n] = '\0';
	if (fence_parse(buf, n, name, token) == -1)
		errx(EXIT_FAIL, "%s/%s: not a fence file (a line is not \"NAME "
		    "TOKEN\", or a name is there twice); nothing written", dir,
		    FENCE);
	*len = n;
	return buf;
}

/* The fence file again, NAME's line set to TOKEN, made durable. */
static void
fence_write(int dfd, const char *dir, const char *old, size_t len,
    const char *name, long long token)
{
	const char *p = old, *end = old + len, *nl;
	size_t nlen = strlen(name);
	char line[FENCE_NAME_MAX + 32];
	int fd, n;

	if ((fd = openat(dfd, FENCE_NEW, O_WRONLY | O_CREAT | O_TRUNC |
	    O_NOFOLLOW | O_CLOEXEC, 0644)) == -1)
		err(EXIT_FAIL, "%s/%s", dir, FENCE_NEW);
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)(nl - p) > nlen && memcmp(p, name, nlen) == 0 &&
		    p[nlen] == ' ')
			continue;
		write_all(fd, p, (size_t)(nl + 1 - p), FENCE_NEW);
	}
	n = snprintf(line, sizeof(line), "%s %lld\n", name, token);
	write_all(fd, line, (size_t)n, FENCE_NEW);
	if (fsync(fd) == -1 || close(fd) == -1)
		err(EXIT_FAIL, "%s/%s", dir, FENCE_NEW);
	if (renameat(dfd, FENCE_NEW, dfd, FENCE) == -1)
		err(EXIT_FAIL, "%s/%s", dir, FENCE);
	if (fsync(dfd) == -1)
		err(EXIT_FAIL, "%s", dir);
}

int
main(int argc, char *argv[])
{
	enum { O_HELP = 256, O_VERSION };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	const char *dir = NULL, *name = "-", *tokarg = NULL, *file = NULL;
	long long token = -1, have;
	int ch, replace = 0, query = 0, dfd, lfd, tfd = -1, fd = -1;
	struct stat st;
	size_t flen;
	char *fence;

	while ((ch = getopt_long(argc, argv, "ad:hn:qrt:", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'a':
			replace = 0;
			break;
		case 'r':
			replace = 1;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		case 'q':
			query = 1;
			break;
		case 't':
			tokarg = optarg;
			break;
		case 'h':
		case O_HELP:
			usage(0);
		case O_VERSION:
			print_version();
		default:
			usage(EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (dir == NULL || argc > 1 || (query && argc > 0))
		usage(EXIT_USAGE);
	if (argc == 1 && !file_ok(file = argv[0]))
		errx(EXIT_USAGE, "%s: not a file of the directory (a name "
		    "without /, not %s*)", file, FENCE);
	if (!fence_name_ok(name))
		errx(EXIT_USAGE, "-n: \"%s\" is not a leadership's name (1 to "
		    "%d of A-Z a-z 0-9 . _ : @ -)", name, FENCE_NAME_MAX);
	if (!query) {
		if (tokarg == NULL && (tokarg = getenv("ELECT_TOKEN")) == NULL)
			errx(EXIT_USAGE, "no token: -t, or ELECT_TOKEN (set by "
			    "elect-node --run-if-leader under lease)");
		token = arg_num(tokarg, 0, LLONG_MAX, "token");
	}

	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		err(EXIT_FAIL, "%s", dir);

	/* The data first, outside the lock: a slow writer holds up no one. */
	if (file != NULL) {
		if ((tfd = tmp_open(dfd, FENCE ".tmp", tmp, sizeof(tmp))) ==
		    -1)
			err(EXIT_FAIL, "%s", dir);
		tmp_dfd = dfd;
		atexit(tmp_remove);
		copy(STDIN_FILENO, tfd, "standard input", tmp);
		if (fsync(tfd) == -1)
			err(EXIT_FAIL, "%s/%s", dir, tmp);
	}

	if ((lfd = openat(dfd, FENCE_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1 || fstat(lfd, &st) == -1)
		err(EXIT_FAIL, "%s/%s", dir, FENCE_LOCK);
	if (!S_ISREG(st.st_mode))
		errx(EXIT_FAIL, "%s/%s: not a regular file", dir, FENCE_LOCK);
	while (flock(lfd, LOCK_EX) == -1)
		if (errno != EINTR)
			err(EXIT_FAIL, "%s/%s", dir, FENCE_LOCK);

	fence = fence_read(dfd, dir, name, &flen, &have);
	if (query) {
		free(fence);
		if (have == -1)
			printf("-\n");
		else
			printf("%lld\n", have);
		return fflush(stdout) == 0 ? 0 : EXIT_FAIL;
	}
	if (token < have) {
		free(fence);
		errx(EXIT_NO, "%s: token %lld refused: %s has accepted %lld "
		    "for leadership %s", file != NULL ? file : "fence", token,
		    dir, have, name);
	}
	/* The file to append to is opened before the fence moves, so that
	 * one that cannot be written (a symbolic link) raises nothing. */
	if (file != NULL && !replace) {
		if ((fd = openat(dfd, file, O_WRONLY | O_APPEND | O_CREAT |
		    O_NOFOLLOW | O_CLOEXEC, 0666)) == -1 ||
		    fstat(fd, &st) == -1) {
			free(fence);
			err(EXIT_FAIL, "%s/%s", dir, file);
		}
		if (!S_ISREG(st.st_mode)) {
			free(fence);
			errx(EXIT_FAIL, "%s/%s: not a regular file", dir, file);
		}
	}
	if (token > have)
		fence_write(dfd, dir, fence, flen, name, token);
	free(fence);

	if (file != NULL && replace) {
		if (close(tfd) == -1 || renameat(dfd, tmp, dfd, file) == -1)
			err(EXIT_FAIL, "%s/%s", dir, file);
		tmp[0] = '\0';
		if (fsync(dfd) == -1)
			err(EXIT_FAIL, "%s", dir);
	} else if (file != NULL) {
		if (lseek(tfd, 0, SEEK_SET) == -1)
			err(EXIT_FAIL, "%s/%s", dir, tmp);
		copy(tfd, fd, tmp, file);
		if (fsync(fd) == -1 || close(fd) == -1)
			err(EXIT_FAIL, "%s/%s", dir, file);
	}
	/* The lock goes with the process. */
	return 0;
}
