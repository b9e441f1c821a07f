/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  run.c - run a Slurm client command and collect what it prints, without
 *  a shell (arguments such as account lists reach it verbatim).
\*****************************************************************************/

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

typedef struct {
	char *buf;
	size_t len, cap;
} sbuf_t;

static void _append(sbuf_t *b, const char *data, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		while (b->len + n + 1 > b->cap)
			b->cap = b->cap ? 2 * b->cap : 65536;
		b->buf = rpt_xrealloc(b->buf, b->cap);
	}
	memcpy(b->buf + b->len, data, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

extern int rpt_run(char *const argv[], char **out, size_t *outlen,
		   char **errout, int *status)
{
	int po[2], pe[2], st;
	sbuf_t bo = { 0 }, be = { 0 };
	struct pollfd fds[2];
	pid_t pid;

	if (pipe2(po, O_CLOEXEC))
		return -1;
	if (pipe2(pe, O_CLOEXEC)) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	fflush(NULL);
	if ((pid = fork()) < 0) {
		int e = errno;

		close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(po[1], STDOUT_FILENO);
		dup2(pe[1], STDERR_FILENO);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	fds[0] = (struct pollfd) { .fd = po[0], .events = POLLIN };
	fds[1] = (struct pollfd) { .fd = pe[0], .events = POLLIN };
	while (fds[0].fd >= 0 || fds[1].fd >= 0) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			char chunk[65536];
			ssize_t n;

			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			n = read(fds[i].fd, chunk, sizeof(chunk));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				continue;
			}
			_append(i ? &be : &bo, chunk, (size_t) n);
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			st = 127 << 8;
			break;
		}
	if (WIFEXITED(st))
		*status = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		*status = 128 + WTERMSIG(st);
	else
		*status = 127;
	_append(&bo, "", 0);
	_append(&be, "", 0);
	*out = bo.buf;
	if (outlen)
		*outlen = bo.len;
	*errout = be.buf;
	return 0;
}
