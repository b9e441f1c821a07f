/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra.c - the scheduler thread of sched/libra: its pass.
 *
 *  Admission is job_submit/qos's; this thread keeps the promise.  Each pass
 *  (soon after an admission or a job's end, see GATHER_MIN in
 *  sched_libra_agent.c; otherwise every libra_interval seconds, at the
 *  next hard deadline and at the next begin time of a booked job) it
 *   1. brings the shared ledger in step with the job and node tables
 *      (the jobs created since the last pass; the whole table every
 *      libra_interval, decision 25);
 *   2. starts every admitted job that is pending, on the nodes its
 *      admission counted on (time-shared with other admitted jobs),
 *      and notes the admitted jobs slurmctld's own scheduler started
 *      there; with libra_no_sla=best_effort (deprecated) also jobs
 *      without an SLA wherever they fit;
 *      a job whose admitted nodes went down is admitted again elsewhere
 *      at its quoted price, if the capacity is there;
 *   3. ends jobs still running at their hard deadline, recording why;
 *   4. says in each pending job's reason what it waits for.
 *
 *  Jobs without an SLA are Slurm's (libra_no_sla=slurm, the default,
 *  design.md decision 27): slurmctld's main scheduler and Slurm's own
 *  backfill plugin, run inside this one (sched_libra_backfill.c), schedule
 *  them exactly as under sched/backfill.  An admitted job is pinned to its
 *  admitted nodes at submission (job_submit/qos), so whichever scheduler
 *  starts it starts it there.  With best_effort or reject, slurmctld's own
 *  scheduler is switched off (sched_interval=-1,defer) and this thread
 *  starts every job.
 *
 *  The thread's files (their shared state and steps in sched_libra_int.h):
 *  this one has the pass: the job list, whole every libra_interval or only
 *  what changed (decision 25); the running jobs, the starts of
 *  slurmctld's own scheduler noted, hard deadlines and an operator's
 *  suspends (decision 30); held jobs, a failed launch's hold released
 *  (decision 32), an admitted job's priority kept (decision 38); the
 *  pass's clock, log and sdiag statistics.  sched_libra_pending.c tries
 *  each pending job; sched_libra_agent.c has the thread's loop, its start
 *  and stop, and what makes a start durable (decision 26).
 *
 *  Locks: slurmctld {config read, job write, node write, partition read,
 *  federation read}, then the hub; released in reverse order.  The pass
 *  does no I/O; new jobs are started by the pass after slurmctld's job
 *  state has been written (outside the locks, see _save_state() in
 *  sched_libra_agent.c), and batch jobs launched, the locks taken again,
 *  once the journal of starts has them (sched_libra_starts.c, _launch()).
 *  The hub lock is taken around each use of the ledger, never across a call
 *  into slurmctld: starting or ending a job can end another one and so
 *  call jobcomp/libra, which takes the hub lock itself.  Under the job
 *  write lock no job_submit() or jobcomp call runs, so these short holds
 *  (one per pending job, a second only to re-place a job whose nodes
 *  failed or to book a best-effort job's slots) are never contended by
 *  them.  The slurmctld locks each function relies on are asserted
 *  (LIBRA_LOCKED) in debug builds.
\*****************************************************************************/

#define _GNU_SOURCE	/* RUSAGE_THREAD */

#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "bag.h"
#include "libra_slurm.h"
#include "sched_libra.h"
#include "sched_libra_int.h"
#include "settle.h"

/* The thread's state (sched_libra_int.h). */
libra_sched_state_t st = { .no_sla_mode = LIBRA_NOSLA_SLURM };

/*
 * A pass stops trying pending jobs once it has run PASS_BUDGET seconds and
 * carries the rest to a pass right after (the locks released between
 * them, so that RPCs get in): starting a job costs about a millisecond,
 * and a burst's gathered jobs started in one pass held the write locks for
 * a third of a second (rel_load).
 */
#define PASS_BUDGET 0.02

/*
 * A pass longer than LONG_PASS seconds (the pass's budget) is logged with
 * where its time went and how much of it was this thread's CPU (the rest
 * is waiting: for the hub lock, or for a CPU on a loaded host), at most
 * once every LONG_PASS_LOG seconds unless it is the longest yet.
 */
#define LONG_PASS 0.05
#define LONG_PASS_LOG 10.0

/* Statistics for sdiag, kept in slurmctld's backfill counters. */
static void _stats(uint32_t usec, uint32_t started, uint32_t examined,
		   uint32_t pending, time_t now)
{
	diag_stats_t *s = &slurmctld_diag_stats;

	/* sdiag's backfill section is Slurm's backfill's when it runs */
	if (libra_backfill_running())
		return;
	s->bf_active = 0;
	s->bf_cycle_counter++;
	s->bf_cycle_last = usec;
	s->bf_cycle_sum += usec;
	if (usec > s->bf_cycle_max)
		s->bf_cycle_max = usec;
	s->backfilled_jobs += started;
	s->last_backfilled_jobs += started;
	s->bf_last_depth = examined;
	s->bf_last_depth_try = examined;
	s->bf_depth_sum += examined;
	s->bf_depth_try_sum += examined;
	s->bf_queue_len = pending;
	s->bf_queue_len_sum += pending;
	s->bf_when_last_cycle = now;
}

/* Slurm's end time: where the core ends the job (libra_end_limit()). */
static void _set_end_time(job_record_t *job_ptr, const libra_record_t *rec)
{
	double end;

	if (rec->best_effort)
		return;
	if ((end = libra_end_limit(&rec->sla)) <= 0.0)
		return;
	job_ptr->end_time = (time_t) ceil(end);
	if (rec->sla.type == LIBRA_DEADLINE_HARD)
		job_ptr->end_time += LIBRA_END_GRACE;
}

/*
 * An admitted job that Slurm requeued held because its batch launch failed
 * (slurmd's _launch_job_fail(): a prolog that failed, or a slurmctld
 * killed before slurmd could confirm the launch) is released, as
 * "scontrol release" would release it, to start again on its admitted
 * nodes: its start is the provider's to make good by its deadline, not
 * its owner's (design.md decision 32).  A job without an SLA stays held,
 * as on stock Slurm, unless SchedulerParameters has nohold_on_prolog_fail.
 * Returns true when the job was released.
 */
static bool _release_launch_failed(job_record_t *job_ptr)
{
	int rc;

	if (job_ptr->state_reason != WAIT_HELD_USER ||
	    xstrcmp(job_ptr->state_desc, LAUNCH_FAILED_HOLD) ||
	    !libra_slurm_is_admitted(job_ptr))
		return false;
	rc = libra_release_job(job_ptr, slurm_conf.slurm_user_id);
	if (rc != SLURM_SUCCESS) {
		error("sched/libra: %pJ: Slurm held it after its launch failed, and releasing it failed: %s",
		      job_ptr, slurm_strerror(rc));
		return false;
	}
	info("sched/libra: %pJ: its launch failed and Slurm held it; released to start again on its admitted nodes (its deadline stands)",
	     job_ptr);
	return job_ptr->priority != 0;
}

/*
 * An admitted job comes first wherever Slurm starts jobs (LIBRA_PRIORITY,
 * decision 38).  A release (_release_job_rec()) hands it back to the
 * priority plugin, as a requeue may: it gets its priority back.  One an
 * operator set (direct_set_prio) stays.
 */
static void _keep_priority(job_record_t *job_ptr, time_t now)
{
	if (st.no_sla_mode != LIBRA_NOSLA_SLURM || !job_ptr->priority ||
	    job_ptr->direct_set_prio || job_ptr->priority == LIBRA_PRIORITY)
		return;
	debug("sched/libra: %pJ: priority %u back to an admitted job's %u",
	      job_ptr, job_ptr->priority, LIBRA_PRIORITY);
	job_ptr->priority = LIBRA_PRIORITY;
	job_ptr->direct_set_prio = 1;
	last_job_update = now;
}

/*
 * A task of a bag just started (decision 36): the end its lane paces it
 * to.  The array's tasks not yet started are in the record under the
 * array's id (Slurm's job_array_split()), or none when this task is the
 * last; of those and this one, a lane runs an L-th, rounded up.
 */
static void _bag_target(job_record_t *job_ptr, libra_record_t *rec,
			double now)
{
	job_record_t *rest = find_job_record(job_ptr->array_job_id);
	int left = 1;

	if (rec->bag.tasks <= 0 || rec->bag.target > 0.0)
		return;
	if (rest && rest != job_ptr && rest->array_recs &&
	    IS_JOB_PENDING(rest))
		left += (int) rest->array_recs->task_cnt;
	left = (left + rec->bag.lanes - 1) / rec->bag.lanes;
	rec->bag.target = libra_bag_task_target(now, rec->sla.deadline, left);
}

/*
 * A job just started: a best-effort one books its job slots in the ledger;
 * an admitted one gets the end time its deadline allows; the record says
 * when it started, to the microsecond like its admission.
 */
extern void libra_sched_note_started(job_record_t *job_ptr,
				     libra_record_t *rec, bool has_rec)
{
	struct timespec ts;

	if (!has_rec || rec->best_effort) {
		/* its job slots are taken from now on */
		libra_hub_lock();
		libra_slurm_commit_unadmitted(job_ptr);
		libra_hub_unlock();
	}
	if (!has_rec)
		return;
	if (!rec->best_effort)
		_set_end_time(job_ptr, rec);
	clock_gettime(CLOCK_REALTIME, &ts);
	rec->started = fmax((double) ts.tv_sec + ts.tv_nsec / 1e9,
			    rec->admitted);
	libra_record_owner_end(rec, rec->started);
	_bag_target(job_ptr, rec, rec->started);
	libra_slurm_store_record(job_ptr, rec);
}

/*
 * Admitted jobs that slurmctld's own scheduler started (libra_no_sla=slurm:
 * pinned to their admitted nodes, any scheduler may start them) get what
 * libra_sched_note_started() gives the ones this thread starts: the end
 * time their deadline allows and their start in the record.  Running jobs
 * started at or after "since" are looked at (the records of earlier ones
 * were noted by an earlier pass).
 */
static void _adopt(job_record_t *job_ptr, time_t since)
{
	libra_record_t rec;

	if (st.no_sla_mode != LIBRA_NOSLA_SLURM || job_ptr->start_time < since ||
	    !libra_slurm_is_admitted(job_ptr) || !libra_slurm_job_record(job_ptr, &rec))
		return;
	/* not noted yet, or started again after its owner requeued it */
	if (!rec.best_effort && !rec.settled &&
	    (rec.started <= 0.0 || rec.owner_since > 0.0)) {
		info("sched/libra: %pJ was started by slurmctld's scheduler on %s, its admitted nodes",
		     job_ptr, job_ptr->nodes);
		_set_end_time(job_ptr, &rec);
		rec.started = fmax((double) job_ptr->start_time, rec.admitted);
		libra_record_owner_end(&rec, rec.started);
		_bag_target(job_ptr, &rec, rec.started);
		libra_slurm_store_record(job_ptr, &rec);
	}
	libra_record_free(&rec);
}

/*
 * An admitted job an operator suspended (design.md decision 30): its
 * deadline stays.  Slurm's resume pushes its end time by the time it was
 * suspended (job_suspend(): the time limit counts running time only); set
 * back to what the deadline allows.  Slurm ends no suspended job at its
 * time limit, so a capped soft job still suspended at its end limit is
 * ended here, as a hard one is at its deadline by _check_deadline().
 * Returns 0 once the job is ended, else the next time to look at it.
 */
static time_t _suspended_end(job_record_t *job_ptr, libra_record_t *rec,
			     time_t now)
{
	double limit = libra_end_limit(&rec->sla);
	bool provider;

	if (IS_JOB_RUNNING(job_ptr)) {
		time_t was = job_ptr->end_time;

		_set_end_time(job_ptr, rec);
		if (job_ptr->end_time != was) {
			info("sched/libra: %pJ was suspended for %ld s; its end time is %ld s earlier than the resume gave it, at what its deadline allows",
			     job_ptr, (long) job_ptr->tot_sus_time,
			     (long) difftime(was, job_ptr->end_time));
			last_job_update = now;
		}
	}
	if (limit <= 0.0)
		return 0;	/* no end of ours: nothing to look at */
	if (rec->sla.type == LIBRA_DEADLINE_HARD || limit > (double) now ||
	    IS_JOB_RUNNING(job_ptr))
		return (time_t) ceil(limit);
	provider = libra_slurm_suspend_by_provider(job_ptr);
	(void) libra_slurm_settle(job_ptr, rec, rec->started, (double) now,
				  libra_end_suspended(LIBRA_END_DEADLINE,
						      provider));
	libra_slurm_store_record(job_ptr, rec);
	info("sched/libra: %pJ is still suspended at its end limit; ending it (%s)",
	     job_ptr, provider ? "the provider's breach" :
	     "a suspend its owner may have made: not the provider's");
	job_signal(job_ptr, SIGKILL, 0, 0, false);
	last_job_update = now;
	return 0;
}

/*
 * End a running job at its hard deadline, with its record settled here so
 * that the reason survives (Slurm itself would only see a cancellation);
 * also a suspended one, and one an operator suspended and resumed
 * (_suspended_end(), design.md decision 30).  Returns the next hard
 * deadline still ahead (a suspended job's end limit), or 0.
 */
static time_t _check_deadline(job_record_t *job_ptr, time_t now)
{
	libra_record_t rec;
	time_t next = 0;
	bool suspended = IS_JOB_SUSPENDED(job_ptr) || job_ptr->tot_sus_time;
	bool provider;

	/*
	 * A running admitted job's end time is its hard deadline plus the
	 * grace (or later, _set_end_time()): until the deadline there is
	 * nothing to check, and no record to parse, which keeps the passes
	 * short when many jobs run.
	 */
	if (!suspended && job_ptr->end_time - LIBRA_END_GRACE > now)
		return job_ptr->end_time - LIBRA_END_GRACE;
	if (!libra_slurm_job_record(job_ptr, &rec))
		return 0;
	if (rec.best_effort || rec.settled)
		goto out;
	if (suspended && !(next = _suspended_end(job_ptr, &rec, now)))
		goto out;
	if (rec.sla.type != LIBRA_DEADLINE_HARD)
		goto out;
	if (rec.sla.deadline > (double) now) {
		next = (time_t) ceil(rec.sla.deadline);
		goto out;
	}
	next = 0;
	/* an overrun, unless a node failure or an operator's suspend cost
	 * the job its time; a suspend its owner may have made is not the
	 * provider's (decision 30) */
	provider = suspended && libra_slurm_suspend_by_provider(job_ptr);
	(void) libra_slurm_settle(job_ptr, &rec, rec.started ? rec.started :
				  (double) job_ptr->start_time, (double) now,
				  libra_end_suspended(
					  libra_end_of(LIBRA_END_DEADLINE,
						       true, rec.requeues),
					  provider));
	libra_slurm_store_record(job_ptr, &rec);
	info("sched/libra: %pJ reached its hard deadline%s; ending it",
	     job_ptr, provider ? " after an operator's suspend" :
	     suspended ? " after a suspend its owner may have made" : "");
	job_signal(job_ptr, SIGKILL, 0, 0, false);
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = xstrdup(provider ?
		"libra: hard deadline reached after an operator's suspend (the provider's breach)" :
		suspended ?
		"libra: hard deadline reached after a suspend its owner may have made (not the provider's)" :
		"libra: hard deadline reached (the job overran its runtime estimate)");
	last_job_update = now;
out:
	libra_record_free(&rec);
	return next;
}

/*
 * The pending, running and suspended jobs, in job_list's order: starting
 * or ending a job must not disturb the iteration.  xfree() the array.
 */
static job_record_t **_snapshot(int *njobs)
{
	job_record_t **jobs, *job_ptr;
	libra_list_itr_t iter;
	int n = 0;

	jobs = xcalloc(list_count(job_list) + 1, sizeof(*jobs));
	iter = list_iterator_create(job_list);
	while ((job_ptr = list_next(iter))) {
		if (IS_JOB_PENDING(job_ptr) || IS_JOB_RUNNING(job_ptr) ||
		    IS_JOB_SUSPENDED(job_ptr))
			jobs[n++] = job_ptr;
	}
	list_iterator_destroy(iter);
	*njobs = n;
	return jobs;
}

/*
 * End the running (and suspended) jobs of the snapshot that reached their
 * hard deadline, and take them out of it, counting them in *nrunning.
 * Returns the next hard deadline ahead, or 0.
 */
static time_t _check_running(job_record_t **jobs, int njobs, time_t now,
			     int *nrunning)
{
	time_t next = 0;

	for (int i = 0; i < njobs; i++) {
		time_t t;

		if (!IS_JOB_RUNNING(jobs[i]) && !IS_JOB_SUSPENDED(jobs[i]))
			continue;
		(*nrunning)++;
		if (IS_JOB_RUNNING(jobs[i]))
			_adopt(jobs[i], st.adopt_since);
		t = _check_deadline(jobs[i], now);
		if (t && (!next || t < next))
			next = t;
		jobs[i] = NULL;
	}
	st.adopt_since = now - 1;
	return next;
}

static double _clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The monotonic clock, in seconds: what the passes and the agent time. */
extern double libra_sched_monotonic(void)
{
	return _clock(CLOCK_MONOTONIC);
}

/* What a pass measures of itself (_long_pass()). */
typedef struct {
	double t[6];		/* wall clock: locks held, ledger lock held,
				 * synced, running jobs seen, pending jobs
				 * tried, done */
	double cpu;		/* the thread's CPU time */
	struct rusage ru;	/* the thread's context switches */
} pass_clock_t;

static void _pass_clock_start(pass_clock_t *c)
{
	c->t[0] = libra_sched_monotonic();
	c->cpu = _clock(CLOCK_THREAD_CPUTIME_ID);
	getrusage(RUSAGE_THREAD, &c->ru);
}

/*
 * Log a long pass (LONG_PASS): its phases' wall times, its CPU time (cpu),
 * and how often the thread was preempted (involuntary context switches:
 * it waited for a CPU) or blocked (voluntary: a lock, a page); and the
 * most CPU time any pass took.
 */
static void _long_pass(pass_clock_t *c, double cpu, bool full,
		       uint32_t pending, uint32_t started, int nrunning)
{
	const double *t = c->t;
	double wall = t[5] - t[0];
	struct rusage ru;

	if (cpu > st.most_cpu)
		st.most_cpu = cpu;
	if (wall <= LONG_PASS ||
	    (wall <= st.longest && t[5] - st.last_log < LONG_PASS_LOG))
		return;
	st.last_log = t[5];
	if (wall > st.longest)
		st.longest = wall;
	getrusage(RUSAGE_THREAD, &ru);
	info("sched/libra: %s pass took %.1f ms, %.1f ms of it on CPU (preempted %ld times, blocked %ld): ledger lock %.1f ms, sync %.1f ms, %d running job(s) %.1f ms, %u pending job(s) %.1f ms (%u started), power %.1f ms; the most CPU of any pass %.1f ms",
	     full ? "full" : "incremental", 1e3 * wall, 1e3 * cpu,
	     ru.ru_nivcsw - c->ru.ru_nivcsw, ru.ru_nvcsw - c->ru.ru_nvcsw,
	     1e3 * (t[1] - t[0]), 1e3 * (t[2] - t[1]), nrunning,
	     1e3 * (t[3] - t[2]), pending, 1e3 * (t[4] - t[3]), started,
	     1e3 * (t[5] - t[4]), 1e3 * st.most_cpu);
}

/*
 * The end of a pass, measured (its clock c stopped): with
 * DebugFlags=Backfill one line for every pass, as sched/backfill logs
 * each of its cycles ("completed testing"), so that a benchmark reads
 * each pass's wall and thread CPU time from the log; long passes as
 * _long_pass() says.  The jobs looked at are the pending jobs the pass
 * tried or checked (with libra_no_sla=slurm those with an SLA only); the
 * pending ones, every pending job it saw; running jobs are checked by
 * full passes only.
 */
static void _pass_log(pass_clock_t *c, bool full, uint32_t pending,
		      uint32_t examined, uint32_t started, int nrunning)
{
	double cpu = _clock(CLOCK_THREAD_CPUTIME_ID) - c->cpu;

	st.passes++;
	st.passes_cpu += cpu;

	if (slurm_conf.debug_flags & DEBUG_FLAG_BACKFILL)
		info("sched/libra: %s pass: %.3f ms, %.3f ms CPU, %u of %u pending job(s) looked at, %u started, %d running job(s) checked",
		     full ? "full" : "incremental", 1e3 * (c->t[5] - c->t[0]),
		     1e3 * cpu, examined, pending, started, nrunning);
	_long_pass(c, cpu, full, pending, started, nrunning);
}

static void _lower(time_t *next, time_t t)
{
	if (t && (!*next || t < *next))
		*next = t;
}

/*
 * The jobs an incremental pass looks at: those the last pass carried that
 * still exist, then the new ones (xfree() the array).
 */
static job_record_t **_increment(job_record_t **new_jobs, int nnew,
				 int *njobs)
{
	job_record_t **jobs = xcalloc(st.carry.n + nnew + 1, sizeof(*jobs));
	int n = 0;

	for (int i = 0; i < st.carry.n; i++) {
		job_record_t *job_ptr = find_job_record(st.carry.id[i]);

		if (job_ptr)
			jobs[n++] = job_ptr;
	}
	for (int i = 0; i < nnew; i++)
		jobs[n++] = new_jobs[i];
	*njobs = n;
	return jobs;
}

/*
 * After a pending job was tried: carried to the next pass if still
 * pending and not held; if it runs now, its hard deadline is among those
 * the incremental passes skip.
 */
static void _carry_started(job_record_t *job_ptr, time_t now, time_t *skipped)
{
	if (IS_JOB_PENDING(job_ptr) && !IS_JOB_COMPLETING(job_ptr)) {
		if (job_ptr->priority)
			libra_sched_ids_add(&st.carry, job_ptr->job_id);
		return;
	}
	if (IS_JOB_RUNNING(job_ptr) &&
	    job_ptr->end_time - LIBRA_END_GRACE > now)
		_lower(skipped, job_ptr->end_time - LIBRA_END_GRACE);
}

/*
 * The pending jobs of a pass, in order: the admitted ones first (jobs
 * without an SLA must not take their slots), then, in the deprecated
 * best_effort mode, those without an SLA; with libra_no_sla=slurm those
 * are Slurm's (decision 27).  Running jobs new to the pass are adopted.
 * Returns how many it started; counts in *pending the pending jobs seen
 * and in *examined those it looked at, and stops trying at PASS_BUDGET
 * after t0 (*more).
 */
static uint32_t _try_jobs(job_record_t **jobs, int njobs, time_t now,
			  double t0, time_t *next, time_t *skipped_next,
			  uint32_t *unsaved, bool *more, uint32_t *pending,
			  uint32_t *examined)
{
	job_record_t *job_ptr;
	uint32_t n = 0;
	int nbest = 0;

	/*
	 * Admitted jobs first: best-effort jobs must not take their slots.
	 * The first loop tries the admitted jobs and sets the others aside,
	 * in order, at the front of the array for the second; held jobs need
	 * no more than their deadline (libra_sched_held()).
	 */
	for (int i = 0; i < njobs; i++) {
		if (!(job_ptr = jobs[i]))
			continue;
		/*
		 * A requeued job stays COMPLETING until its nodes report
		 * their epilogs; a start attempt before that would drop its
		 * node bitmap, and slurmctld would then take the epilog
		 * report for a duplicate and leave the job (and its nodes)
		 * completing for good.
		 */
		if (IS_JOB_RUNNING(job_ptr))	/* new, started by Slurm */
			_adopt(job_ptr, 0);
		if (!IS_JOB_PENDING(job_ptr) || !job_ptr->details ||
		    IS_JOB_COMPLETING(job_ptr))
			continue;
		(*pending)++;
		/* jobs without an SLA are Slurm's (decision 27) */
		if (st.no_sla_mode == LIBRA_NOSLA_SLURM && !libra_slurm_is_admitted(job_ptr))
			continue;
		(*examined)++;
		if (job_ptr->priority == 0 &&
		    !_release_launch_failed(job_ptr)) {
			time_t t = 0;

			libra_sched_held(job_ptr, now, &t);
			_lower(skipped_next, t);
			/* looked at by the next passes: its release is
			 * started at once (decision 38) */
			if (libra_slurm_is_admitted(job_ptr))
				libra_sched_ids_add(&st.carry, job_ptr->job_id);
			continue;
		}
		if (!libra_slurm_is_admitted(job_ptr)) {
			jobs[nbest++] = job_ptr;
			continue;
		}
		_keep_priority(job_ptr, now);
		if (!(*more = *more ||
			      libra_sched_monotonic() - t0 > PASS_BUDGET))
			n += libra_sched_try_admitted(job_ptr, now, next,
						      unsaved);
		_carry_started(job_ptr, now, skipped_next);
	}
	for (int i = 0; i < nbest; i++) {
		job_ptr = jobs[i];
		if (!IS_JOB_PENDING(job_ptr) || !job_ptr->details ||
		    IS_JOB_COMPLETING(job_ptr))
			continue;	/* ended by the first loop */
		if (!(*more = *more ||
			      libra_sched_monotonic() - t0 > PASS_BUDGET) &&
		    libra_sched_try_pending(job_ptr, now, next, unsaved))
			n++;
		_carry_started(job_ptr, now, skipped_next);
	}
	return n;
}

/*
 * One pass; returns the time of the next hard deadline (0: none), in
 * *waiting whether admissions wait for their job record to appear, in
 * *unsaved the highest id of a job to start once the state is written, and
 * in *nstarted how many jobs it started, in *more whether it stopped
 * trying pending jobs at PASS_BUDGET (the rest are carried to the next).
 *
 * A full pass looks at every pending and running job; an incremental one
 * (decision 25) only at the pending jobs the last pass left pending and
 * the jobs created since.  Passes are full every libra_interval, when the
 * sync walked the whole job table, and when a deadline among the jobs an
 * incremental pass skips is due.  An admitted job held is carried too, so
 * that the pass job_modify() wakes at its release starts it (decision 38).
 */
extern time_t libra_sched_pass(bool *waiting, uint32_t *unsaved,
			       uint32_t *nstarted, bool *more)
{
	time_t now = time(NULL), next = 0, skipped_next = 0;
	uint32_t started = 0, examined = 0, pending = 0;
	bool full;
	job_record_t **jobs, **new_jobs;
	int njobs = 0, nnew, nrunning = 0;
	pass_clock_t clk;
	uint32_t usec;

	LIBRA_LOCKED(CONF_LOCK, READ_LOCK);	/* _agent()'s locks */
	LIBRA_LOCKED(JOB_LOCK, WRITE_LOCK);
	LIBRA_LOCKED(NODE_LOCK, WRITE_LOCK);
	LIBRA_LOCKED(PART_LOCK, READ_LOCK);
	_pass_clock_start(&clk);
	libra_hub_lock();
	clk.t[1] = libra_sched_monotonic();
	libra_slurm_params_current(plugin_type);
	/* the whole job table every libra_interval, else only what is new
	 * (decision 25) */
	full = (double) (now - st.last_full) >= libra_hub_params()->interval ||
	       now < st.last_full || (st.carry_next && now >= st.carry_next);
	*waiting = libra_slurm_sync_pass(now, full, &new_jobs, &nnew) > 0;
	libra_hub_set_synced(true);
	libra_hub_unlock();
	if (nnew < 0) {		/* the sync walked the job table */
		full = true;
		st.last_full = now;
	}
	clk.t[2] = libra_sched_monotonic();
	if (full) {
		jobs = _snapshot(&njobs);
		skipped_next = _check_running(jobs, njobs, now, &nrunning);
		libra_booking_tidy(now);
	} else {
		jobs = _increment(new_jobs, nnew, &njobs);
		skipped_next = st.carry_next;
	}
	xfree(new_jobs);
	st.carry.n = 0;
	/* jobs started before a restart, maybe not launched: a pass each
	 * second until their nodes have registered */
	if (st.orphans.n && libra_sched_check_orphans())
		_lower(&skipped_next, now + 1);
	clk.t[3] = libra_sched_monotonic();
	started = _try_jobs(jobs, njobs, now, clk.t[0], &next, &skipped_next,
			   unsaved, more, &pending, &examined);
	xfree(jobs);
	st.carry_next = skipped_next;
	_lower(&next, skipped_next);
	clk.t[4] = libra_sched_monotonic();
	libra_power_pass(now);

	clk.t[5] = libra_sched_monotonic();
	_pass_log(&clk, full, pending, examined, started, nrunning);
	usec = (uint32_t) (1e6 * (clk.t[5] - clk.t[0]));
	*nstarted = started;
	_stats(usec, started, examined, pending, now);
	if (started) {
		debug("sched/libra: pass started %u of %u pending jobs in %u usec",
		      started, pending, usec);
		/* the allocations they kept waiting (decision 38): Slurm's
		 * scheduler at its next look, not at its interval */
		if (st.no_sla_mode == LIBRA_NOSLA_SLURM)
			queue_job_scheduler();
	}
	return next;
}
