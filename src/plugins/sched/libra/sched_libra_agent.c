/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra_agent.c - sched/libra's scheduler thread: its loop, its
 *  start and stop, and durable starts.
 *
 *  The thread waits for work (a wake-up after an admission or a job's
 *  end, libra_interval, the next hard deadline), gathers a burst's
 *  wake-ups into one pass (GATHER_MIN) and runs passes
 *  (sched_libra.c) until one leaves nothing to do; then the book of
 *  quotes and the betas are written, outside slurmctld's locks.  Once
 *  slurmctld shuts down or hands control to another controller it runs
 *  no more passes, and it starts as at slurmctld's start whenever this
 *  one takes control (decision 28).
 *
 *  Durable starts (decision 26, DURABILITY in sched_libra(8)): the job
 *  state is written before new jobs start (_save_state()), and the jobs
 *  a pass started are in the journal of starts (sched_libra_starts.c)
 *  before their batch jobs are launched (_launch()).  When the thread
 *  starts, what a killed slurmctld left is taken back (_recover(): the
 *  journals of ended jobs and of starts), and the batch jobs it may not
 *  have launched are found (_find_orphans()) and launched once their
 *  first node registers without them (libra_sched_check_orphans()).
\*****************************************************************************/

#define _GNU_SOURCE	/* pthread_setname_np(), libra_thread_create() */

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm.h"
#include "sched_libra.h"
#include "sched_libra_int.h"

/* Add a job id to the end of a list (id_list_t, sched_libra_int.h). */
extern void libra_sched_ids_add(id_list_t *l, uint32_t job_id)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		xrecalloc(l->id, l->cap, sizeof(*l->id));
	}
	l->id[l->n++] = job_id;
}

static void _ids_free(id_list_t *l)
{
	xfree(l->id);
	l->n = l->cap = 0;
}

extern void libra_sched_set_mode(libra_nosla_t mode)
{
	st.no_sla_mode = mode;
}

/*
 * After a wake-up the agent pauses before its pass: at least GATHER_MIN
 * (job_submit runs before slurmctld creates the job record, so a pass at
 * once would not find the job yet) and at least twice its last pass, at
 * most GATHER_MAX.  In a burst one pass then serves every submission of
 * the pause, and passes hold the job write lock at most a third of the
 * time; on a quiet cluster a job starts GATHER_MIN after its submission.
 * While wake-ups come faster than GATHER_MIN after a pass (a burst) the
 * pause doubles, up to GATHER_MAX, and is GATHER_MIN again after a wait
 * that long: each pass takes slurmctld's write locks, which every
 * submission RPC then waits for.
 */
#define GATHER_MIN 0.005
#define GATHER_MAX 0.1

/* Does the job state last written (_save_state()) hold the job? */
extern bool libra_sched_state_saved(job_record_t *job_ptr)
{
	time_t t = job_ptr->details->submit_time;

	return t < st.saved_sec ||
	       (t == st.saved_sec && job_ptr->job_id <= st.saved_upto);
}

/* Write the job state; every job up to id "upto" exists already. */
static void _save_state(uint32_t upto)
{
	time_t t = time(NULL);

	/* takes slurmctld's job read lock itself */
	if (dump_all_job_state() != SLURM_SUCCESS)
		error("sched/libra: could not write the job state; starting the new jobs anyway");
	if (st.test_stale_state)
		libra_slurm_copy_state("job_state", "job_state.libra-test");
	if (t == st.saved_sec && upto < st.saved_upto)
		upto = st.saved_upto;
	st.saved_sec = t;
	st.saved_upto = upto;
}

/*
 * A job the journal of starts says was started on "nodes" and the state
 * recovered has pending: running there again, not launched (for
 * libra_starts_restore(); a batch job is an orphan then, _find_orphans()).
 */
static int _restart(job_record_t *job_ptr, const char *nodes)
{
	libra_record_t rec;
	bitstr_t *req = NULL, *unheard = NULL, *completing = NULL;
	bool has_rec;
	int rc;

	if (libra_node_name2bitmap((char *) nodes, &req)) {
		FREE_NULL_BITMAP(req);
		return ESLURM_INVALID_NODE_NAME;
	}
	/*
	 * The job runs there already, or may: what keeps select_nodes()
	 * from starting a new job on those nodes does not apply to it.
	 *  - Nodes not heard from since the restart (no node state file
	 *    yet, or not responding when it was written) are not available
	 *    until they register, and their registration would abort the
	 *    job as one they run while slurmctld has it pending: they count
	 *    as available, as for the jobs the state brought back running.
	 *    Not drained, down or powered down ones.
	 *  - Nodes with a completing job (one the journal of ended jobs has
	 *    just ended) take no new job until it is done; cons_tres skips
	 *    that test for a job marked BACKFILL_TEST, as in Slurm's
	 *    backfill.
	 */
	unheard = bit_copy(req);
	bit_and_not(unheard, avail_node_bitmap);
	for (int i = 0; i < node_record_count; i++) {
		node_record_t *node_ptr = node_record_table_ptr[i];

		if (bit_test(unheard, i) &&
		    (IS_NODE_DOWN(node_ptr) || IS_NODE_DRAIN(node_ptr) ||
		     IS_NODE_FAIL(node_ptr) || IS_NODE_POWERED_DOWN(node_ptr)))
			bit_clear(unheard, i);
	}
	bit_or(avail_node_bitmap, unheard);
	completing = bit_copy(req);
	bit_and(completing, cg_node_bitmap);
	bit_and_not(cg_node_bitmap, completing);
	job_ptr->bit_flags |= BACKFILL_TEST;

	rc = libra_sched_select(job_ptr, nodes, NULL);

	job_ptr->bit_flags &= ~BACKFILL_TEST;
	bit_or(cg_node_bitmap, completing);
	bit_and_not(avail_node_bitmap, unheard);
	FREE_NULL_BITMAP(completing);
	FREE_NULL_BITMAP(unheard);
	FREE_NULL_BITMAP(req);
	if (rc != SLURM_SUCCESS)
		return rc;
	has_rec = libra_slurm_job_record(job_ptr, &rec);
	libra_sched_note_started(job_ptr, &rec, has_rec);
	if (has_rec)
		libra_record_free(&rec);
	return SLURM_SUCCESS;
}

static step_record_t *_batch_step(job_record_t *job_ptr)
{
	slurm_step_id_t batch = {
		.job_id = job_ptr->job_id,
		.step_id = SLURM_BATCH_SCRIPT,
		.step_het_comp = NO_VAL };

	return find_step_record(job_ptr, &batch);
}

/*
 * Is the job a batch job that runs and was not launched: started, and no
 * launch_job() since (it makes the batch step's record)?  A configuring
 * job is launched by slurmctld once its nodes are ready.
 */
static bool _unlaunched(job_record_t *job_ptr)
{
	return job_ptr->batch_flag && IS_JOB_RUNNING(job_ptr) &&
	       !IS_JOB_CONFIGURING(job_ptr) && !_batch_step(job_ptr);
}

/*
 * An orphan's time_last_active until its node registers: Slurm sets the
 * registration's time when the node lists the job.  In the future, so
 * that Slurm's own check for batch jobs missing from their node (at a
 * registration, for a job inactive longer than BatchStartTimeout) leaves
 * it to libra_sched_check_orphans().
 */
#define ORPHAN_MARK ((time_t) INFINITE)

/*
 * When the agent starts, before slurmctld takes RPCs (it does once its
 * start-up is done; 22.05 starts its RPC thread a few milliseconds before
 * the plugins): give each orphan its batch step record, so that the end
 * of a job that ran is not ignored (Slurm drops a batch completion for a
 * job without one), and put ORPHAN_MARK in place of the mark Slurm sets
 * when the job's first node lists it.  Job write and node read locks.
 */
static void _find_orphans(void)
{
	libra_list_itr_t iter = list_iterator_create(job_list);
	job_record_t *job_ptr;

	while ((job_ptr = list_next(iter))) {
		int first;

		if (job_ptr->het_job_id || !_unlaunched(job_ptr) ||
		    !job_ptr->node_bitmap ||
		    (first = bit_ffs(job_ptr->node_bitmap)) < 0 ||
		    pick_batch_host(job_ptr) != SLURM_SUCCESS ||
		    !build_batch_step(job_ptr))
			continue;
		job_ptr->time_last_active = ORPHAN_MARK;
		libra_sched_ids_add(&st.orphans, job_ptr->job_id);
		info("sched/libra: %pJ was started before slurmctld was restarted, and may not have been launched: waiting for %s to register",
		     job_ptr, node_record_table_ptr[first]->name);
	}
	list_iterator_destroy(iter);
}

/*
 * Settle the orphans whose first node has registered since slurmctld
 * started (slurmd_start_time: not in the node state file, set by the
 * registration): one the node listed runs, and has its batch step; one
 * it did not list is launched (its batch step record replaced by
 * launch_job()'s own).  A job whose batch host may be another node
 * (--batch) is taken to run: Slurm requeues a batch job its batch host
 * does not have after BatchStartTimeout, as it does an orphan started
 * more than that before the registration.  Returns true while some wait.
 */
extern bool libra_sched_check_orphans(void)
{
	int n = 0;

	for (int i = 0; i < st.orphans.n; i++) {
		job_record_t *job_ptr = find_job_record(st.orphans.id[i]);
		step_record_t *step_ptr;
		node_record_t *node_ptr;

		if (!job_ptr)
			continue;
		/* ended (its completion came) or requeued meanwhile */
		if (!IS_JOB_RUNNING(job_ptr) ||
		    !(step_ptr = _batch_step(job_ptr))) {
			if (job_ptr->time_last_active == ORPHAN_MARK)
				job_ptr->time_last_active = time(NULL);
			continue;
		}
		node_ptr = node_record_table_ptr[bit_ffs(job_ptr->node_bitmap)];
		if (!node_ptr->slurmd_start_time) {
			st.orphans.id[n++] = st.orphans.id[i];
			continue;
		}
		if (job_ptr->time_last_active != ORPHAN_MARK) {
			info("sched/libra: %pJ: %s lists it: it runs",
			     job_ptr, node_ptr->name);
			continue;
		}
		job_ptr->time_last_active = time(NULL);
		if (job_ptr->batch_features) {
			info("sched/libra: %pJ: taken to run on its batch host %s",
			     job_ptr, job_ptr->batch_host);
			continue;
		}
		info("sched/libra: %pJ: %s does not list it: launching it",
		     job_ptr, node_ptr->name);
		delete_step_record(job_ptr, step_ptr);
		launch_job(job_ptr);
		last_job_update = job_ptr->time_last_active;
	}
	st.orphans.n = n;
	return n > 0;
}

/*
 * Launch the batch jobs the last pass started (launches), now that the
 * journal of starts holds them; none leaves slurmctld before (decision 26,
 * DURABILITY in sched_libra(8)).  A slurmctld killed from here on comes
 * back with them running (the state save thread's write, or the journal:
 * libra_starts_restore()), and _find_orphans() and
 * libra_sched_check_orphans() find out whether each reached its node.
 * Takes the pass's locks again.
 */
static void _launch(slurmctld_lock_t locks)
{
	if (st.test_launch_delay) {
		info("sched/libra: LIBRA_TEST_LAUNCH_DELAY: launching %d job(s) in %u s",
		     st.launches.n, st.test_launch_delay);
		sleep(st.test_launch_delay);
	}
	lock_slurmctld(locks);
	for (int i = 0; i < st.launches.n; i++) {
		job_record_t *job_ptr = find_job_record(st.launches.id[i]);

		/* ended or requeued since the pass: nothing to launch */
		if (job_ptr && _unlaunched(job_ptr)) {
			launch_job(job_ptr);
			if (st.test_stale_state)
				info("sched/libra: LIBRA_TEST_STALE_STATE: launched %pJ",
				     job_ptr);
		}
	}
	last_job_update = time(NULL);
	unlock_slurmctld(locks);
	st.launches.n = 0;
}

/*
 * With DebugFlags=Backfill: what making new jobs and starts durable cost
 * after a pass (contrib/bench/bench-starts reads these lines).
 */
static void _durable_log(uint32_t unsaved, uint32_t started, double save,
			 double journal)
{
	if (unsaved)
		info("sched/libra: durable starts: job state written in %.3f ms",
		     1e3 * save);
	if (started)
		info("sched/libra: durable starts: %u start(s) journaled in %.3f ms",
		     started, 1e3 * journal);
}

static void _pause(double secs)
{
	struct timespec ts = {
		.tv_sec = (time_t) secs,
		.tv_nsec = (long) ((secs - floor(secs)) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * What a killed slurmctld left (decision 26), when the agent starts, under
 * its locks: the jobs that ended first, so that the nodes the journal of
 * starts names have the room their jobs left, then the jobs the journal of
 * starts runs again, then those of them that had ended meanwhile.
 */
static void _recover(void)
{
	int n;

	/* their completion ends them again: no hub lock held */
	if ((n = libra_slurm_journal_recover()))
		info("sched/libra: %d job(s) ended as the journal of ended jobs says",
		     n);
	if ((n = libra_starts_restore(_restart))) {
		info("sched/libra: %d job(s) running again as the journal of starts says",
		     n);
		/* and those of them that had ended meanwhile, as they ended */
		if ((n = libra_slurm_journal_recover()))
			info("sched/libra: %d of them ended as the journal of ended jobs says",
			     n);
	}
}

/*
 * The agent's wait for work: libra_interval at most, less while a pass
 * waits for a job record to appear or when a hard deadline comes first.
 * Returns true when the plugin stops; *woken says whether a wake-up ended
 * the wait.
 */
static bool _wait_for_work(bool waiting, double *retry,
			   time_t next_deadline, bool *woken)
{
	double wait;
	bool stop;

	*woken = false;
	libra_hub_lock();
	wait = libra_hub_params()->interval;
	/*
	 * job_submit admits a job before slurmctld creates its record, so
	 * the pass it wakes may not see the job yet: look again soon,
	 * backing off (a --test-only quote never gets a job).
	 */
	if (waiting) {
		/* 20 ms doubling to half a second, so that a quote's
		 * capacity is freed soon after its 3 s hold */
		*retry = *retry > 0.0 ? fmin(*retry * 2.0, 0.5) : 0.02;
		if (*retry < wait)
			wait = *retry;
	} else {
		*retry = 0.0;
	}
	if (next_deadline) {
		double until = difftime(next_deadline, time(NULL));

		if (until < wait)
			wait = until > 0.0 ? until : 0.0;
	}
	if (wait > 0.0)
		*woken = libra_hub_wait(wait);
	stop = libra_hub_stopping();
	libra_hub_unlock();
	return stop;
}

/*
 * Passes until one leaves nothing unsaved and nothing over its budget:
 * each under slurmctld's locks, then the new jobs' state and the journal
 * of starts written, then the launches.  Returns the time the passes held
 * the locks.
 */
static double _run_passes(slurmctld_lock_t locks, bool *waiting,
			  time_t *next_deadline)
{
	double held = 0.0;

	for (;;) {
		uint32_t unsaved = 0, started = 0;
		double t0 = libra_sched_monotonic(), t_locks, t_saved;
		bool more = false;

		lock_slurmctld(locks);
		*next_deadline = libra_sched_pass(waiting, &unsaved, &started,
						  &more);
		if (started)
			libra_starts_prune();
		unlock_slurmctld(locks);
		t_locks = libra_sched_monotonic();
		held += t_locks - t0;
		/* the new jobs before they start (ends:
		 * libra_slurm_journal_end()) */
		if (unsaved)
			_save_state(unsaved);
		t_saved = libra_sched_monotonic();
		/* the started ones before they are launched */
		if (started)
			libra_starts_write();
		/* their cost (doc/benchmarks.md, bench-starts) */
		if (slurm_conf.debug_flags & DEBUG_FLAG_BACKFILL)
			_durable_log(unsaved, started, t_saved - t_locks,
				     libra_sched_monotonic() - t_saved);
		if (st.launches.n)
			_launch(locks);
		libra_power_flush();
		if (more)	/* what the budget left: soon */
			_pause(0.001);
		else if (!unsaved)
			break;
	}
	return held;
}

static void *_agent(void *arg)
{
	slurmctld_lock_t locks = {
		.conf = READ_LOCK, .job = WRITE_LOCK, .node = WRITE_LOCK,
		.part = READ_LOCK, .fed = READ_LOCK };
	time_t next_deadline = 0;
	double retry = 0.0, last_pass = 0.0, gather = GATHER_MIN;
	bool waiting = false;

	/*
	 * First of all (slurmctld loads its job state before the agent gets
	 * the locks, and takes RPCs once its start-up is done), the jobs
	 * a killed slurmctld started but may not have launched.
	 */
	lock_slurmctld(locks);
	_recover();
	_find_orphans();
	unlock_slurmctld(locks);
	while (true) {
		double t_wait = libra_sched_monotonic();
		bool woken;

		if (_wait_for_work(waiting, &retry, next_deadline, &woken))
			break;
		if (slurmctld_config.shutdown_time) {
			/*
			 * slurmctld stops, or hands control to another
			 * controller (decision 28), which reads the state
			 * saved now: a job started after that save would be
			 * started again there.  Nothing more until fini().
			 */
			next_deadline = 0;
			waiting = false;
			continue;
		}
		if (woken) {
			gather = libra_sched_monotonic() - t_wait < GATHER_MIN ?
				 fmin(2.0 * gather, GATHER_MAX) : GATHER_MIN;
			_pause(fmin(GATHER_MAX, fmax(gather, 2.0 * last_pass)));
		}
		last_pass = _run_passes(locks, &waiting, &next_deadline);
		/* quotes forgotten, betas moved: written outside the locks */
		libra_state_save();
		libra_sched_metrics();
	}
	/* what passes carry from one to the next */
	_ids_free(&st.carry);
	_ids_free(&st.launches);
	_ids_free(&st.orphans);
	libra_starts_fini();
	libra_sched_metrics_fini();
	return NULL;
}

/*
 * The agent starts as at slurmctld's start whenever slurmctld takes control
 * (decision 28): the journals of ended jobs and of starts read again and
 * the orphans looked for again (_agent()), no state write taken for done.  Slurm unloads the plugin when
 * a backup hands control back, but need not load a fresh copy of it when
 * the backup takes over again.
 */
static void _agent_reset(void)
{
	st.saved_sec = 0;
	st.saved_upto = 0;
	st.adopt_since = 0;
	st.last_full = 0;
	st.carry_next = 0;
}

extern int libra_sched_start(void)
{
	const char *delay = getenv("LIBRA_TEST_LAUNCH_DELAY");

	_agent_reset();
	st.test_launch_delay = delay ? (unsigned int) atoi(delay) : 0;
	st.test_stale_state = getenv("LIBRA_TEST_STALE_STATE") != NULL;
	/* every pass reads the records of the pending jobs: cached by job id
	 * (contrib/bench/findings.md, F) */
	libra_slurm_record_cache(true);
	/* named for ps -L and top -H, as sched/backfill's "bckfl" */
	libra_thread_create(&st.agent_tid, "sched_libra", _agent, NULL);
	return SLURM_SUCCESS;
}

extern void libra_sched_stop(void)
{
	if (!st.agent_tid)
		return;
	libra_hub_shutdown();
	libra_thread_join(st.agent_tid);
	libra_power_fini();
}
