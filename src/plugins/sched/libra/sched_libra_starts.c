/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra_starts.c - the journal of starts (doc/design.md decision 26,
 *  DURABILITY in sched_libra(8)).
 *
 *  slurmctld's state save thread and sched/libra both write the job state
 *  file (dump_all_job_state()), each packing the jobs under the job read
 *  lock and writing the file after it: a state the thread packed just
 *  before a pass started a job can reach the file after the write that has
 *  the job running, and a slurmctld killed before the thread's next write
 *  comes back with the job pending, although it was launched.  Started
 *  again, it would run twice on its node (slurmd refuses the second:
 *  "Duplicate jobid", the node drained).  No lock orders the two writes.
 *
 *  So every job a pass started is appended here, with its nodes and its
 *  restart count, before any of them is launched (srun and salloc are told
 *  at once, as by Slurm's scheduler: they are written right after):
 *  <StateSaveLocation>/libra_starts, one line per start,
 *  "JobId=<id> Restarts=<n> Start=<epoch> Nodes=<names>".  A restarted
 *  slurmctld, first thing, takes each job the file names and the state
 *  brought back pending with the same restart count (not requeued since)
 *  as running on those nodes again (libra_starts_restore()), where the
 *  orphan check of sched_libra_agent.c finds out whether its launch got
 *  there.
 *  Lines of jobs that no longer run are dropped when the file has more
 *  than twice as many lines as running entries (and at least
 *  STARTS_COMPACT): written anew beside it, then renamed over it.
 *
 *  Agent thread only.  libra_starts_add() and libra_starts_prune() run
 *  under the pass's job write lock; libra_starts_write() after it, no lock
 *  held; libra_starts_restore() at the agent's start, under its locks.
\*****************************************************************************/

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm.h"
#include "sched_libra.h"
#include "statefile.h"

#define STARTS_FILE "libra_starts"

/* Compacted only from this many lines on. */
#define STARTS_COMPACT 256

typedef struct {
	uint32_t job_id;
	uint32_t restarts;	/* the job's restart_cnt at its start */
	time_t start;
	char *nodes;
} start_t;

/* The journal's state, in one place. */
static struct {
	start_t *live;		/* the started jobs that may still run */
	int nlive, live_cap;
	char *unwritten;	/* lines not yet appended */
	int file_lines;		/* lines in the file */
} js;

static char *_path(const char *suffix)
{
	return xstrdup_printf("%s/%s%s", slurm_conf.state_save_location,
			      STARTS_FILE, suffix);
}

static void _line(char **buf, const start_t *s)
{
	xstrfmtcat(*buf, "JobId=%u Restarts=%u Start=%ld Nodes=%s\n",
		   s->job_id, s->restarts, (long) s->start, s->nodes);
}

extern void libra_starts_add(job_record_t *job_ptr)
{
	start_t *s;

	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	if (js.nlive == js.live_cap) {
		js.live_cap = js.live_cap ? 2 * js.live_cap : 64;
		xrecalloc(js.live, js.live_cap, sizeof(*js.live));
	}
	s = &js.live[js.nlive++];
	s->job_id = job_ptr->job_id;
	s->restarts = job_ptr->restart_cnt;
	s->start = job_ptr->start_time;
	s->nodes = xstrdup(job_ptr->nodes);
	_line(&js.unwritten, s);
}

extern void libra_starts_prune(void)
{
	int n = 0;

	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	for (int i = 0; i < js.nlive; i++) {
		job_record_t *job_ptr = find_job_record(js.live[i].job_id);

		if (job_ptr && job_ptr->restart_cnt == js.live[i].restarts &&
		    (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)))
			js.live[n++] = js.live[i];
		else
			xfree(js.live[i].nodes);
	}
	js.nlive = n;
}

/* The file anew with the live entries only; false if it could not be. */
static bool _compact(void)
{
	char *buf = NULL;
	bool ok;

	for (int i = 0; i < js.nlive; i++)
		_line(&buf, &js.live[i]);
	ok = !libra_slurm_write_state(STARTS_FILE, buf ? buf : "");
	if (ok)
		js.file_lines = js.nlive;
	xfree(buf);
	return ok;
}

extern void libra_starts_write(void)
{
	char *path;
	int fd, n = 0;

	if (!js.unwritten)
		return;
	for (const char *p = js.unwritten; (p = strchr(p, '\n')); p++)
		n++;
	/* the live entries already hold the new ones */
	if (js.file_lines + n > STARTS_COMPACT &&
	    js.file_lines + n > 2 * js.nlive &&
	    _compact()) {
		xfree(js.unwritten);
		return;
	}
	path = _path("");
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0 || libra_write_all(fd, js.unwritten, strlen(js.unwritten)) ||
	    fdatasync(fd))
		error("sched/libra: cannot append the jobs started to %s: %m; launching them anyway",
		      path);
	else
		js.file_lines += n;
	if (fd >= 0)
		close(fd);
	xfree(path);
	xfree(js.unwritten);
}

/* One line of the file: job id, restart count, start time and nodes. */
static bool _parse(const char *line, start_t *s)
{
	unsigned int id, restarts;
	long start;
	int off = 0;

	if (sscanf(line, "JobId=%u Restarts=%u Start=%ld Nodes=%n", &id,
		   &restarts, &start, &off) != 3 || !off || !line[off] ||
	    line[off] == '\n')
		return false;
	s->job_id = id;
	s->restarts = restarts;
	s->start = (time_t) start;
	s->nodes = xstrndup(line + off, strcspn(line + off, " \n"));
	return true;
}

/* Is the job among the live entries? */
static bool _live(uint32_t job_id)
{
	for (int i = 0; i < js.nlive; i++)
		if (js.live[i].job_id == job_id)
			return true;
	return false;
}

/*
 * A job the file says was started, which the job state written last has
 * pending (packed before the start): running on its nodes again, or held
 * when it cannot be, as it may still run there.
 */
static void _restore(job_record_t *job_ptr, const start_t *s,
		     int (*restart)(job_record_t *job_ptr, const char *nodes),
		     int *restored)
{
	int rc = restart(job_ptr, s->nodes);

	if (rc == SLURM_SUCCESS) {
		info("sched/libra: %pJ was started on %s before slurmctld was restarted, and the job state written last has it pending: running there again",
		     job_ptr, s->nodes);
		(*restored)++;
		return;
	}
	error("sched/libra: %pJ was started on %s before slurmctld was restarted, and the job state written last has it pending; it cannot run there again (%s): held, as it may still run there",
	      job_ptr, s->nodes, slurm_strerror(rc));
	job_ptr->priority = 0;
	job_ptr->state_reason = WAIT_HELD;
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = xstrdup_printf(
		"libra: may still run on %s from before a restart of slurmctld: release it once it does not",
		s->nodes);
	last_job_update = time(NULL);
}

extern int libra_starts_restore(int (*restart)(job_record_t *job_ptr,
					       const char *nodes))
{
	char *path = _path(""), *line = NULL;
	size_t len = 0;
	int lineno = 0, restored = 0;
	FILE *f;

	LIBRA_LOCKED(JOB_LOCK, WRITE_LOCK);
	if (!(f = fopen(path, "r"))) {
		if (errno != ENOENT)
			error("sched/libra: cannot read %s: %m", path);
		xfree(path);
		return 0;
	}
	while (getline(&line, &len, f) >= 0) {
		job_record_t *job_ptr;
		start_t s;

		lineno++;
		if (!_parse(line, &s)) {
			error("sched/libra: %s:%d: not \"JobId=<id> Restarts=<n> Start=<time> Nodes=<names>\": skipped",
			      path, lineno);
			continue;
		}
		js.file_lines++;
		job_ptr = find_job_record(s.job_id);
		if (job_ptr && IS_JOB_PENDING(job_ptr) &&
		    job_ptr->restart_cnt == s.restarts)
			_restore(job_ptr, &s, restart, &restored);
		/* running (again): its line is kept at the next compaction */
		if (job_ptr && job_ptr->restart_cnt == s.restarts &&
		    IS_JOB_RUNNING(job_ptr) && !_live(job_ptr->job_id))
			libra_starts_add(job_ptr);
		xfree(s.nodes);
	}
	free(line);
	fclose(f);
	xfree(path);
	/* the file holds what was restored already */
	xfree(js.unwritten);
	return restored;
}

extern void libra_starts_fini(void)
{
	for (int i = 0; i < js.nlive; i++)
		xfree(js.live[i].nodes);
	xfree(js.live);
	js.nlive = js.live_cap = 0;
	xfree(js.unwritten);
	js.file_lines = 0;		/* a takeover reads the file again */
}
