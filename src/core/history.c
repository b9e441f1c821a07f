/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  history.c - the history file of finished jobs: appends, compaction,
 *  reading (see history.h; doc/design.md decision 23).
 *
 *  Compaction reads the file twice up to the length noted at its start:
 *  once into a scratch predictor, once more asking it which lines are
 *  needed (libra_predictor_needs_line()), written to "<path>.new".  The
 *  file's own descriptor is kept open throughout, so the lines appended
 *  meanwhile are copied from the very file that was read, and the rename
 *  is refused if the path names another file by then.
\*****************************************************************************/

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "history.h"
#include "statefile.h"

struct libra_history {
	char *path;
	char *tmp;		/* "<path>.new" */
	uint64_t slack;
	pthread_mutex_t mutex;	/* appends; the ends of a compaction */
	uint64_t compacted;	/* the length after the last compaction */
	bool due;		/* an append answered 1 */
	bool running;		/* a compaction is under way */
};

extern libra_history_t *libra_history_create(const char *path, size_t slack)
{
	libra_history_t *h = calloc(1, sizeof(*h));
	size_t n = strlen(path);

	if (!h)
		return NULL;
	pthread_mutex_init(&h->mutex, NULL);
	h->path = strdup(path);
	h->tmp = malloc(n + sizeof(".new"));
	if (!h->path || !h->tmp) {
		libra_history_destroy(h);
		return NULL;
	}
	memcpy(h->tmp, path, n);
	memcpy(h->tmp + n, ".new", sizeof(".new"));
	h->slack = slack ? slack : LIBRA_HISTORY_SLACK;
	return h;
}

extern void libra_history_destroy(libra_history_t *h)
{
	if (!h)
		return;
	pthread_mutex_destroy(&h->mutex);
	free(h->path);
	free(h->tmp);
	free(h);
}

extern const char *libra_history_path(const libra_history_t *h)
{
	return h->path;
}

extern int libra_history_append(libra_history_t *h, const char *line,
				size_t len)
{
	struct iovec iov[2] = {
		{ .iov_base = "\n", .iov_len = 1 },
		{ .iov_base = (void *) line, .iov_len = len },
	};
	struct stat sb;
	char last = '\n';
	ssize_t n;
	int fd, skip, rc = -1, err = 0;

	pthread_mutex_lock(&h->mutex);
	fd = open(h->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0 || fstat(fd, &sb) ||
	    (sb.st_size > 0 && pread(fd, &last, 1, sb.st_size - 1) != 1)) {
		err = errno;
		goto out;
	}
	/* a line a crash tore gets its newline in the same write */
	skip = last == '\n';
	n = writev(fd, iov + skip, 2 - skip);
	if (n != (ssize_t) (len + !skip)) {
		err = n < 0 ? errno : EIO;
		goto out;
	}
	rc = 0;
	if (!h->due && !h->running &&
	    (uint64_t) sb.st_size + n > 2 * h->compacted + h->slack) {
		h->due = true;
		rc = 1;
	}
out:
	if (fd >= 0)
		close(fd);
	pthread_mutex_unlock(&h->mutex);
	if (rc < 0)
		errno = err;
	return rc;
}

/*
 * The next line of f that starts before byte "end" (at: where it starts,
 * moved past it), with its newline if it has one, cut at "end" if it runs
 * past it; its length, or -1 after the last.
 */
static ssize_t _next_line(FILE *f, off_t end, off_t *at, char **line,
			  size_t *cap)
{
	ssize_t n;

	if (*at >= end || (n = getline(line, cap, f)) < 0)
		return -1;
	if (n > end - *at) {
		n = end - *at;
		(*line)[n] = '\0';
	}
	*at += n;
	return n;
}

/*
 * Copy what fd holds from byte "from" to its end to out (an unbuffered
 * descriptor); "open_end": the lines before "from" end without a newline,
 * so the newline an append put first to end them is not copied (out's
 * lines all end with one).  Adds the bytes to *copied.
 */
static int _copy_appended(int fd, off_t from, int out, bool open_end,
			  uint64_t *copied)
{
	char buf[65536];
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), from)) != 0) {
		const char *p = buf;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		from += n;
		if (open_end && *p == '\n') {
			p++;
			n--;
		}
		open_end = false;
		if (libra_write_all(out, p, (size_t) n))
			return -1;
		*copied += (uint64_t) n;
	}
	return 0;
}

/* Flush the directory holding path, so that a rename in it is on disk. */
static void _sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t) (slash - path + 1)) :
			    strdup(".");
	int fd;

	if (!dir)
		return;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void) fsync(fd);
		close(fd);
	}
	free(dir);
}

/*
 * Write to out the lines of in (read up to byte "end") that the predictor
 * needs, each with its newline: two passes, the first filling a scratch
 * predictor.  *open_end: the last line read had no newline (a line a
 * crash tore, which the next append ended with one).
 */
static int _write_needed(FILE *in, off_t end, FILE *out, bool *open_end,
			 libra_history_stats_t *st)
{
	libra_predictor_t *pred;
	char *line = NULL;
	size_t cap = 0;
	off_t at = 0;
	ssize_t n;
	int rc = -1;

	/* any method: only the keys' rings matter */
	if (!(pred = libra_predictor_create(LIBRA_PREDICT_RUNTIME, 1))) {
		errno = ENOMEM;
		return -1;
	}
	while (_next_line(in, end, &at, &line, &cap) >= 0) {
		st->lines++;
		if (libra_predictor_record_line(pred, line))
			st->skipped++;
	}
	if (ferror(in) || fseeko(in, 0, SEEK_SET))
		goto out;
	at = 0;
	*open_end = false;
	while ((n = _next_line(in, end, &at, &line, &cap)) >= 0) {
		*open_end = line[n - 1] != '\n';
		if (!libra_predictor_needs_line(pred, line))
			continue;
		if (fputs(line, out) == EOF ||
		    (*open_end && putc('\n', out) == EOF))
			goto out;
		st->kept++;
	}
	if (!ferror(in))
		rc = 0;
out:
	if (rc && !errno)
		errno = EIO;
	free(line);
	libra_predictor_destroy(pred);
	return rc;
}

extern int libra_history_compact(libra_history_t *h,
				 libra_history_stats_t *st)
{
	struct stat sb, now;
	FILE *in = NULL, *out = NULL;
	bool open_end = false, renamed = false;
	int fd = -1, ofd = -1, err = 0;
	off_t end = 0;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&h->mutex);
	if (h->running) {
		pthread_mutex_unlock(&h->mutex);
		errno = EBUSY;
		return -1;
	}
	h->running = true;
	/* the length between two appends: the lines this compaction reads */
	if ((fd = open(h->path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &sb))
		err = errno;
	else
		end = sb.st_size;
	pthread_mutex_unlock(&h->mutex);
	if (err)
		goto out;
	st->before = (uint64_t) end;

	/* outside the mutex: the bulk of the work */
	errno = 0;
	if (!(in = fdopen(fd, "r")) ||
	    (ofd = open(h->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			0600)) < 0 ||
	    !(out = fdopen(ofd, "w")) ||
	    _write_needed(in, end, out, &open_end, st) || fflush(out) ||
	    fsync(ofd)) {
		err = errno ? errno : EIO;
		goto out;
	}

	/* the lines appended meanwhile, then the rename, between appends */
	pthread_mutex_lock(&h->mutex);
	if (stat(h->path, &now))
		err = errno;
	else if (now.st_ino != sb.st_ino || now.st_dev != sb.st_dev)
		err = ESTALE;
	else if (_copy_appended(fd, end, ofd, open_end, &st->appended) ||
		 fsync(ofd) || rename(h->tmp, h->path))
		err = errno;
	else
		renamed = true;
	if (renamed) {
		st->after = (uint64_t) lseek(ofd, 0, SEEK_END);
		h->compacted = st->after;
	}
	pthread_mutex_unlock(&h->mutex);
	if (renamed)
		_sync_dir(h->path);
out:
	if (in)
		fclose(in);
	else if (fd >= 0)
		close(fd);
	if (out)
		fclose(out);
	else if (ofd >= 0)
		close(ofd);
	if (!renamed && ofd >= 0)
		(void) unlink(h->tmp);
	if (err == ENOENT && fd < 0)
		err = 0;	/* no file: nothing to compact */
	pthread_mutex_lock(&h->mutex);
	/* after a failure, try again once the file has doubled, not at
	 * every append */
	if (err && (uint64_t) end > h->compacted)
		h->compacted = (uint64_t) end;
	h->running = false;
	h->due = false;
	pthread_mutex_unlock(&h->mutex);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

extern int libra_history_load(const char *path, libra_predictor_t *pred,
			      uint64_t *read, uint64_t *skipped)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int rc = 0;

	*read = *skipped = 0;
	if (!(f = fopen(path, "r")))
		return -1;
	while (getline(&line, &cap, f) >= 0) {
		if (libra_predictor_record_line(pred, line))
			(*skipped)++;
		else
			(*read)++;
	}
	if (ferror(f)) {
		errno = EIO;
		rc = -1;
	}
	free(line);
	fclose(f);
	return rc;
}
