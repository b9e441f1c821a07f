/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  jobcomp_libra.c - settle a job's SLA when it ends.
 *
 *  slurmctld calls the jobcomp plugin for every job that ends (_job_end(),
 *  through the entry point of its release, libra_compat.h), under the
 *  job write lock and just before the job's record goes to the accounting
 *  database, so what we write into AdminComment here is what sacct shows:
 *  the end, the delay past the deadline, whether it was met, the penalty
 *  and the final charge (rules in src/core/settle.h).  The job's share is
 *  released from the ledger at the same moment and the scheduler woken
 *  (sched/libra's passes do not look for ended jobs: decision 25).
 *
 *  A record already settled (a hard-deadline job ended by sched/libra) is
 *  kept as it is, so nothing is ever charged twice.
\*****************************************************************************/

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm.h"
#include "price.h"
#include "settle.h"

const char plugin_name[] = "slurm-libra SLA settlement (jobcomp/libra)";
const char plugin_type[] = "jobcomp/libra";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void)
{
	if (libra_hub_init())
		return SLURM_ERROR;
	verbose("%s: loaded", plugin_type);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	libra_slurm_history_fini();
	libra_hub_fini();
	return SLURM_SUCCESS;
}

/* How Slurm saw the job end, in the terms of settle.h. */
static libra_end_t _how(job_record_t *job_ptr)
{
	switch (job_ptr->job_state & JOB_STATE_BASE) {
	case JOB_COMPLETE:
		return LIBRA_END_COMPLETED;
	case JOB_CANCELLED:
		return LIBRA_END_CANCELLED;
	case JOB_NODE_FAIL:
		return LIBRA_END_NODE_FAIL;
	case JOB_TIMEOUT:
	case JOB_DEADLINE:
		return LIBRA_END_DEADLINE;
	case JOB_PREEMPTED:	/* design.md decision 30 */
		return LIBRA_END_PREEMPTED;
	default:	/* FAILED, OOM, BOOT_FAIL */
		return LIBRA_END_FAILED;
	}
}

/*
 * Is the job being requeued rather than ended?  slurmctld logs a run that
 * a node failure cut short as NODE_FAIL and then requeues the job; it sets
 * JOB_COMPLETING only when the job really ends (job_mgr.c, 22.05).  A
 * user's or operator's requeue arrives as JOB_REQUEUE (base PENDING).
 */
static bool _requeued(job_record_t *job_ptr)
{
	uint32_t base = job_ptr->job_state & JOB_STATE_BASE;

	if (base == JOB_PENDING || base == JOB_RUNNING ||
	    base == JOB_SUSPENDED)
		return true;
	return base == JOB_NODE_FAIL &&
	       !(job_ptr->job_state & JOB_COMPLETING) &&
	       job_ptr->details && job_ptr->details->requeue &&
	       job_ptr->batch_flag;
}

/*
 * The admission of an ended job leaves the ledger: under its job id, or
 * its array's once a bag's last task ended (decision 36), or under its
 * token if it ended before the scheduler tied the admission to it.
 */
static void _release(job_record_t *job_ptr, const libra_record_t *rec)
{
	libra_hub_lock();
	libra_ledger_release(libra_hub_ledger(),
			     libra_slurm_ledger_id(job_ptr, rec));
	if (rec->token &&
	    libra_ledger_job_committed(libra_hub_ledger(), rec->token) ==
	    rec->admitted) {
		/* its admission, never tied to it, is counted now */
		libra_slurm_watch_admitted(job_ptr);
		libra_ledger_release(libra_hub_ledger(), rec->token);
	}
	libra_hub_unlock();
}

/*
 * A job with a record sent back to pending: the same SLA runs again, so
 * nothing is settled yet.  After a node failure the rerun is counted and
 * its start cleared (the provider's); after a requeue by its owner (or an
 * operator) its run so far and its wait to run again are the owner's time,
 * not the provider's delay (decision 37), and its start stays, so that a
 * cancel pays for the run it threw away.  A bag's task takes its lane's
 * target again at its next start (decision 36).
 */
static void _job_requeued(job_record_t *job_ptr, libra_record_t *rec,
			  uint32_t base)
{
	if (rec->settled)
		return;
	rec->bag.target = 0.0;
	if (base == JOB_NODE_FAIL) {
		rec->requeues++;
		rec->started = 0.0;
		info("%s: %pJ lost its node and is requeued; its SLA stands",
		     plugin_type, job_ptr);
	} else {
		libra_record_owner_stop(rec, rec->started > 0.0 ?
					     rec->started :
					     (double) time(NULL));
		info("%s: %pJ is requeued; the time it ran and waits to run again is not the provider's delay",
		     plugin_type, job_ptr);
	}
	libra_slurm_store_record(job_ptr, rec);
}

/*
 * An ended job's SLA is settled once: run again, it would run free, or
 * hold its admitted capacity unpaid.  Slurm lets a batch job's owner
 * requeue it after it ended ("scontrol requeue" of a completed, failed or
 * cancelled job, while slurmctld keeps it: MinJobAge), unless its Requeue
 * flag is off, a flag the owner may set while the job runs.  So the flag
 * goes off when the job ends with a record: Slurm refuses the requeue
 * (ESLURM_DISABLED, "Requested operation is presently disabled"), an
 * operator's too, and refuses to change an ended job's flag
 * (ESLURM_JOB_FINISHED).  Jobs without a record are Slurm's.  (design.md
 * decision 37)
 */
static void _no_rerun(job_record_t *job_ptr)
{
	if (!job_ptr->details || !job_ptr->details->requeue)
		return;
	job_ptr->details->requeue = 0;
	debug("%s: %pJ has ended and its SLA is settled: it may not be requeued",
	      plugin_type, job_ptr);
}

/* A job ended (the jobcomp entry points: LIBRA_JOBCOMP_OPS, below). */
static int _job_end(job_record_t *job_ptr)
{
	libra_record_t rec;
	double start, end;
	bool settled_here, release = true;
	uint32_t base = job_ptr->job_state & JOB_STATE_BASE;
	libra_end_t how;

	/* slurmctld ends jobs under its job write lock: the record is ours */
	LIBRA_LOCKED(JOB_LOCK, WRITE_LOCK);
	if (!libra_slurm_job_record(job_ptr, &rec)) {
		/* a running job without a record holds job slots in the
		 * ledger: released here, not by sched/libra's next full sync
		 * (decision 25) */
		if (!_requeued(job_ptr)) {
			libra_hub_lock();
			libra_ledger_release(libra_hub_ledger(),
					     job_ptr->job_id);
			libra_hub_unlock();
		}
		return SLURM_SUCCESS;
	}
	if (_requeued(job_ptr)) {
		_job_requeued(job_ptr, &rec, base);
		libra_record_free(&rec);
		return SLURM_SUCCESS;
	}
	_no_rerun(job_ptr);

	/*
	 * sched/libra records when it starts a job, and when it finds one
	 * that Slurm's own scheduler started (decision 27), at its next
	 * pass.  One that Slurm started and that ended before that pass
	 * got resources (job_resrcs) and a start time; one that never ran
	 * (e.g. Slurm refused it after admission for memory it can never
	 * have, or it was cancelled pending) got none, whatever start time
	 * Slurm gave it.
	 */
	start = rec.started;
	if (start <= 0.0 && job_ptr->job_resrcs && job_ptr->start_time &&
	    !rec.best_effort)
		start = (double) job_ptr->start_time;
	end = job_ptr->end_time ? (double) job_ptr->end_time :
				  (double) time(NULL);
	if (end < start)	/* Slurm's end is in whole seconds */
		end = start;

	settled_here = !rec.settled;
	if (settled_here) {
		how = _how(job_ptr);
		if (rec.best_effort)
			libra_settle_best_effort(rec.rate, job_ptr->total_cpus,
						 start, end, how, &rec.final);
		else
			release = libra_slurm_settle(
				job_ptr, &rec, start, end,
				libra_end_suspended(
					libra_end_of(how, start > 0.0,
						     rec.requeues),
					job_ptr->tot_sus_time > 0 &&
					libra_slurm_suspend_by_provider(
						job_ptr)));
		rec.settled = true;
		libra_slurm_store_record(job_ptr, &rec);
	} else {
		release = libra_slurm_bag_done(job_ptr, &rec);
	}
	/* for sched/libra, should slurmctld be killed before it saves this */
	libra_slurm_journal_end(job_ptr, &rec);
	/* what the job really took, for runtime predictions (decision 23):
	 * a job that completed, not one ended at its deadline; once (a job
	 * ended again from the journal of ended jobs after a restart comes
	 * here settled: its line is in the history already), in reference
	 * seconds: its wall time times its slowest node's speed (decision
	 * 43) */
	if (settled_here && !rec.best_effort && start > 0.0 &&
	    rec.final.how == LIBRA_END_COMPLETED)
		libra_slurm_history_add(job_ptr,
					(end - start) * libra_record_speed(&rec),
					rec.declared > 0.0 ? rec.declared :
					rec.bag.tasks > 0 ? rec.bag.runtime :
					rec.sla.runtime, end);
	info("%s: %pJ %s: deadline %s, delay %.0fs, penalty %.2f, charge %.2f",
	     plugin_type, job_ptr, libra_end_name(rec.final.how),
	     rec.final.deadline_met ? "met" : "missed", rec.final.delay,
	     rec.final.penalty, rec.final.charge);

	if (release) {	/* a bag: its last task */
		libra_slurm_watch_settled(job_ptr, &rec);
		_release(job_ptr, &rec);
	}
	libra_record_free(&rec);
	libra_hub_wake();
	return SLURM_SUCCESS;
}

/*
 * The entry points this release's jobcomp loader looks up: the job's end
 * goes to _job_end(); JobCompLoc, job starts (26.05) and listing jobs
 * (sacct -c) are not ours (libra_compat.h).
 */
LIBRA_JOBCOMP_OPS(_job_end)
