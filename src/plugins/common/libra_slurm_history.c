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
#include <string.h>

#include "slurm/slurm.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "history.h"
#include "predict.h"
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

/*
 * The new plan of a job its node reports at its plan, by the core's
 * libra_replan(), the simulator's own; hub lock held.  False: not
 * re-planned (*why says why).
 */
static bool _new_plan(job_record_t *job_ptr, const libra_record_t *rec,
		      double done, double now, libra_sla_t *sla,
		      double *plan_end, libra_prediction_t *pr,
		      const char **why)
{
	const libra_params_t *p = libra_hub_params();
	libra_predictor_t *pred = libra_hub_predictor();
	libra_replan_t rp = {
		.user = job_ptr->user_id,
		.group = job_ptr->group_id,
		.estimate = rec->declared,
		.cap = rec->declared,
		.quantile = 1.0 - p->predict_risk,
		.hard = rec->sla.type == LIBRA_DEADLINE_HARD,
		.plan = rec->replanned > 0.0 ? rec->plan : rec->predicted,
		.done = done,
		.deadline = rec->sla.deadline,
		.pace = p->predict_pace,
	};
	double end;

	if (!pred) {
		*why = "runtime predictions are off (libra_predict=none)";
		return false;
	}
	if (!libra_ledger_has_job(libra_hub_ledger(), job_ptr->job_id)) {
		*why = "it holds no share in the ledger";
		return false;
	}
	if (!libra_replan(pred, &rp, now, pr, &end)) {
		*why = "its plan is at its declared runtime: it runs on at share_min";
		return false;
	}
	/* paced again: the share aims at end, past it at the deadline
	 * (libra_share_enforced()) */
	*plan_end = end;
	libra_sla_replanned(&rec->sla, pr->runtime, end, sla);
	/* committed again on its places: from now, its SLA the new plan,
	 * with "done" done (decision 34) */
	if (libra_ledger_recommit(libra_hub_ledger(), job_ptr->job_id, sla,
				  done, now)) {
		*why = "the ledger refused to commit it again";
		return false;
	}
	return true;
}

/* Where a new plan came from, for the log. */
static const char *_plan_source(const libra_prediction_t *pr,
				double declared, char *buf, size_t len)
{
	if (pr->runtime > declared + LIBRA_REPLAN_EPS)
		return "past its declared runtime: a soft deadline";
	if (pr->runtime > declared - LIBRA_REPLAN_EPS)
		return "its declared runtime, the most a prediction may be";
	snprintf(buf, len, "predicted from %d finished job%s",
		 pr->samples, pr->samples == 1 ? "" : "s");
	return buf;
}

extern bool libra_slurm_replan(job_record_t *job_ptr, double done,
			       double now)
{
	libra_record_t rec;
	libra_prediction_t pr;
	libra_sla_t sla;
	double plan, plan_end = 0.0;
	const char *why = NULL;
	char a[32], b[32], c[32], d[64];
	bool ok = false;

	LIBRA_LOCKED(JOB_LOCK, WRITE_LOCK);
	if (!libra_slurm_job_record(job_ptr, &rec))
		return false;
	if (rec.best_effort || !(rec.declared > 0.0))
		why = "it was not admitted on a prediction";
	else if (!IS_JOB_RUNNING(job_ptr))
		why = "it is not running";
	plan = rec.replanned > 0.0 ? rec.plan : rec.predicted;
	if (!why && done < plan - LIBRA_REPLAN_EPS)
		why = "it has not reached its plan";
	if (!why) {
		libra_hub_lock();
		ok = _new_plan(job_ptr, &rec, done, now, &sla, &plan_end, &pr,
			       &why);
		libra_hub_unlock();
	}
	libra_format_duration(done, a, sizeof(a));
	libra_format_duration(plan, b, sizeof(b));
	if (!ok) {
		info("%s: %pJ reported %s done of its plan %s: not re-planned: %s",
		     plugin_type, job_ptr, a, b, why);
		libra_record_free(&rec);
		return false;
	}
	rec.plan = pr.runtime;
	rec.plan_end = plan_end;
	rec.replanned = now;
	rec.replan_done = done;
	rec.replans++;
	libra_slurm_store_record(job_ptr, &rec);
	libra_format_duration(pr.runtime, c, sizeof(c));
	info("%s: %pJ re-planned (%d): %s done of its plan %s, now %s (%s)%s",
	     plugin_type, job_ptr, rec.replans, a, b, c,
	     _plan_source(&pr, rec.declared, d, sizeof(d)),
	     (sla.set & LIBRA_SLA_TARGET) ? ", paced to its target" : "");
	libra_record_free(&rec);
	return true;
}
