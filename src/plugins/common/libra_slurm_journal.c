/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_slurm_journal.c - the journal of ended jobs in StateSaveLocation
 *  (written at each end, replayed when slurmctld comes back) and the
 *  plugins' state files there, written atomically (see libra_slurm.h).
\*****************************************************************************/

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slurm/slurm.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm_int.h"
#include "statefile.h"

/* ------------------------------------------------------------------------
 * The journal of ended jobs (libra_slurm.h)
 * ------------------------------------------------------------------------ */
#define JOURNAL "libra_ended.log"
#define JOURNAL_MAX (16 * 1024 * 1024)

static char *_journal_path(const char *suffix)
{
	char *path = NULL;

	xstrfmtcat(path, "%s/%s%s", slurm_conf.state_save_location, JOURNAL,
		   suffix);
	return path;
}

extern void libra_slurm_journal_end(job_record_t *job_ptr,
				    const libra_record_t *rec)
{
	char *path = _journal_path(""), *json, *line = NULL;
	struct stat st;
	int fd;

	if (!(json = libra_record_to_json(rec))) {
		xfree(path);
		return;
	}
	if (!stat(path, &st) && st.st_size > JOURNAL_MAX) {
		char *old = _journal_path(".old");

		if (rename(path, old))
			error("%s: cannot rotate %s: %m", plugin_type, path);
		xfree(old);
	}
	/*
	 * One write() of the whole line to an O_APPEND file: it survives a
	 * killed slurmctld (the page cache has it) and lines never mix.
	 */
	xstrfmtcat(line, "%u %u %u %s\n", job_ptr->job_id,
		   job_ptr->job_state & JOB_STATE_BASE, job_ptr->exit_code,
		   json);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t) strlen(line))
		error("%s: cannot append to %s: %m", plugin_type, path);
	if (fd >= 0)
		close(fd);
	xfree(line);
	xfree(path);
	free(json);
}

/* One journal line: end its job as it ended, if it came back running. */
static int _journal_line(char *line)
{
	libra_record_t cur, end;
	job_record_t *job_ptr;
	unsigned long id, state, code;
	char *p = line, *e, err[128];
	int done = 0;

	id = strtoul(p, &e, 10);
	if (e == p || *e != ' ')
		return 0;
	state = strtoul(p = e + 1, &e, 10);
	if (e == p || *e != ' ')
		return 0;
	code = strtoul(p = e + 1, &e, 10);
	if (e == p || *e != ' ')
		return 0;
	p = e + 1;
	p[strcspn(p, "\n")] = '\0';

	job_ptr = find_job_record((uint32_t) id);
	if (!job_ptr || !(IS_JOB_RUNNING(job_ptr) ||
			  IS_JOB_SUSPENDED(job_ptr)))
		return 0;
	if (!libra_slurm_job_record(job_ptr, &cur))
		return 0;
	if (libra_record_from_json(p, &end, err, sizeof(err))) {
		libra_record_free(&cur);
		return 0;
	}
	/* the same admission (not a later job given the same id), unsettled */
	if (!cur.settled && end.settled && cur.token == end.token &&
	    cur.admitted == end.admitted) {
		libra_slurm_store_record(job_ptr, &end);
		info("%s: %pJ ended (%s) before slurmctld was restarted and came back running; ending it as it ended (%s)",
		     plugin_type, job_ptr, job_state_string((uint32_t) state),
		     libra_end_name(end.final.how));
		if (state == JOB_COMPLETE || state == JOB_FAILED) {
			/*
			 * It ended within its time limit, which may have
			 * passed while slurmctld was down: _job_complete()
			 * takes a completion after the limit for a TIMEOUT.
			 */
			time_t now = time(NULL);

			if (job_ptr->end_time < now)
				job_ptr->end_time = now;
			libra_job_complete(job_ptr, 0, false, false,
					   (uint32_t) code);
		} else {
			job_signal(job_ptr, SIGKILL, 0, 0, false);
		}
		done = 1;
	}
	libra_record_free(&cur);
	libra_record_free(&end);
	return done;
}

extern int libra_slurm_journal_recover(void)
{
	const char *suffixes[] = { ".old", "" };
	int n = 0;

	for (int i = 0; i < 2; i++) {
		char *path = _journal_path(suffixes[i]), *line = NULL;
		size_t cap = 0;
		FILE *f = fopen(path, "r");

		if (!f) {
			if (errno != ENOENT)
				error("%s: cannot read %s: %m", plugin_type, path);
			xfree(path);
			continue;
		}
		while (getline(&line, &cap, f) > 0)
			n += _journal_line(line);
		free(line);
		fclose(f);
		xfree(path);
	}
	return n;
}

extern int libra_slurm_write_state(const char *name, const char *text)
{
	char *dir = slurm_conf.state_save_location, *tmp = NULL, *path = NULL;
	int fd, rc = -1;

	xstrfmtcat(path, "%s/%s", dir, name);
	xstrfmtcat(tmp, "%s.new", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0 && !libra_write_all(fd, text, strlen(text)) &&
	    !fsync(fd) && !close(fd)) {
		fd = -1;
		rc = rename(tmp, path);
	}
	if (rc) {
		error("%s: cannot write %s: %m", plugin_type, path);
		if (fd >= 0)
			close(fd);
		(void) unlink(tmp);
	} else if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
		   fsync(fd)) {
		/* the new file is in place, if not yet surely on disk */
		error("%s: cannot sync the directory %s: %m", plugin_type, dir);
	}
	if (!rc && fd >= 0)
		close(fd);
	xfree(tmp);
	xfree(path);
	return rc;
}

extern void libra_slurm_copy_state(const char *from, const char *to)
{
	char *src = NULL, *dst = NULL, buf[65536];
	int in, out = -1;
	ssize_t n = 0;

	xstrfmtcat(src, "%s/%s", slurm_conf.state_save_location, from);
	xstrfmtcat(dst, "%s/%s", slurm_conf.state_save_location, to);
	if ((in = open(src, O_RDONLY | O_CLOEXEC)) >= 0)
		out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			   0600);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t) n) != n) {
			n = -1;
			break;
		}
	if (in < 0 || out < 0 || n < 0)
		error("%s: cannot copy %s to %s: %m", plugin_type, src, dst);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	xfree(src);
	xfree(dst);
}
