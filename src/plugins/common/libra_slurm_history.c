/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_slurm_history.c - the runtime history of finished jobs in
 *  StateSaveLocation (decision 23) for the slurmctld plugins (see
 *  libra_slurm.h): jobcomp/libra appends to it and a thread compacts it;
 *  the hub's predictor is filled from it when the parameters ask for one.
\*****************************************************************************/

#define _GNU_SOURCE	/* pthread_setname_np(), libra_thread_create() */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>

#include "slurm/slurm.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "history.h"
#include "libra_slurm_int.h"

/* StateSaveLocation's history of finished jobs (decision 23) */
#define HISTORY "libra_history"

/* The history of finished jobs, in StateSaveLocation (decision 23). */
static char *_history_path(void)
{
	char *path = NULL;

	xstrfmtcat(path, "%s/%s", slurm_conf.state_save_location, HISTORY);
	return path;
}

/*
 * The hub's predictor in step with libra_predict and libra_predict_min
 * (hub lock held): dropped for "none"; made anew, and filled from the
 * history file, when the method or the least history changed.  Only then
 * is the file read: at the first use and after a reconfigure that changed
 * them.
 */
extern void glue_predictor_current(const char *who)
{
	libra_params_t *p = libra_hub_params();
	libra_predictor_t *pred = libra_hub_predictor();
	uint64_t read = 0, skipped = 0;
	char *path;

	if (p->predict == LIBRA_PREDICT_NONE) {
		libra_hub_set_predictor(NULL);
		return;
	}
	if (pred && libra_predictor_method(pred) == p->predict &&
	    libra_predictor_min_samples(pred) == (int) p->predict_min)
		return;
	if (!(pred = libra_predictor_create(p->predict,
					    (int) p->predict_min))) {
		error("%s: cannot make the runtime predictor; admitting on the declared runtimes",
		      who);
		libra_hub_set_predictor(NULL);
		return;
	}
	path = _history_path();
	if (libra_history_load(path, pred, &read, &skipped) &&
	    errno != ENOENT)
		error("%s: cannot read %s: %m; predicting from the jobs that end from now on",
		      who, path);
	if (skipped)
		error("%s: %s: %"PRIu64" line(s) that do not read skipped",
		      who, path, skipped);
	info("%s: runtime predictions (%s) from %"PRIu64" finished job(s) in %s",
	     who, libra_predict_method_name(p->predict), read, path);
	xfree(path);
	libra_hub_set_predictor(pred);
}

/*
 * The history file as jobcomp/libra appends to it, and the thread that
 * compacts it (decision 23).  Only jobcomp/libra's copy of this file uses
 * them, from libra_slurm_history_add() (one job end at a time, under the
 * job write lock) and libra_slurm_history_fini().
 */
static libra_history_t *history;
static pthread_t compact_tid;

/* Compact the history: no slurmctld lock, nor the hub's; appends wait
 * only for the copy of the lines they made meanwhile and the rename. */
static void *_history_compact(void *arg)
{
	const char *path = libra_history_path(history);
	libra_history_stats_t st;

	if (libra_history_compact(history, &st)) {
		error("%s: cannot compact %s: %m; it is kept as it is",
		      plugin_type, path);
		return NULL;
	}
	if (st.skipped)
		error("%s: %s: %"PRIu64" line(s) that do not read dropped",
		      plugin_type, path, st.skipped);
	info("%s: %s compacted to the last %d jobs of each key: %"PRIu64" of %"PRIu64" line(s) kept, %"PRIu64" bytes now (%"PRIu64" before)",
	     plugin_type, path, LIBRA_PREDICT_DEPTH, st.kept, st.lines,
	     st.after, st.before);
	return NULL;
}

extern void libra_slurm_history_add(job_record_t *job_ptr, double runtime,
				    double estimate, double end)
{
	char line[160], *path;
	libra_predictor_t *pred;
	int n, rc;

	n = libra_predict_format_line(line, sizeof(line), job_ptr->user_id,
				      job_ptr->group_id, runtime, estimate,
				      end);
	if (n < 0)
		return;
	if (!history) {
		path = _history_path();
		history = libra_history_create(path, 0);
		xfree(path);
		if (!history) {
			error("%s: %pJ: out of memory for the history of finished jobs",
			      __func__, job_ptr);
			return;
		}
	}
	/* one short append: a crash tears at most this line, which the
	 * reader skips */
	if ((rc = libra_history_append(history, line, (size_t) n)) < 0) {
		error("%s: %pJ: cannot append to %s: %m", __func__, job_ptr,
		      libra_history_path(history));
	} else if (rc > 0) {
		/* due: the last compaction has ended, its thread with it */
		if (compact_tid)
			libra_thread_join(compact_tid);
		debug("%s: compacting %s", plugin_type,
		      libra_history_path(history));
		libra_thread_create(&compact_tid, "libra_history",
				    _history_compact, NULL);
	}
	libra_hub_lock();
	if ((pred = libra_hub_predictor()))
		libra_predictor_record(pred, job_ptr->user_id,
				       job_ptr->group_id, runtime, estimate);
	libra_hub_unlock();
}

extern void libra_slurm_history_fini(void)
{
	if (compact_tid)
		libra_thread_join(compact_tid);
	libra_history_destroy(history);
	history = NULL;
}
