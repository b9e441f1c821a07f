/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra.c - the scheduler thread of sched/libra.
 *
 *  Admission is job_submit/qos's; this thread keeps the promise.  Each pass
 *  (soon after an admission or a job's end, see GATHER_MIN; otherwise every
 *  libra_interval seconds, at the next hard deadline and at the next begin
 *  time of a booked job) it
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
 *  Locks: slurmctld {config read, job write, node write, partition read,
 *  federation read}, then the hub; released in reverse order.  The pass
 *  does no I/O; new jobs are started by the pass after slurmctld's job
 *  state has been written (outside the locks, see _save_state()), and
 *  batch jobs launched, the locks taken again, once the journal of starts
 *  has them (sched_libra_starts.c, _launch()).  The
 *  hub lock is taken around each use of the ledger, never across a call
 *  into slurmctld: starting or ending a job can end another one and so
 *  call jobcomp/libra, which takes the hub lock itself.  Under the job
 *  write lock no job_submit() or jobcomp call runs, so these short holds
 *  (one per pending job, a second only to re-place a job whose nodes
 *  failed or to book a best-effort job's slots) are never contended by
 *  them.  The slurmctld locks each function relies on are asserted
 *  (LIBRA_LOCKED) in debug builds.
\*****************************************************************************/

#define _GNU_SOURCE	/* RUSAGE_THREAD, pthread_setname_np() */

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/parse_time.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/slurmctld.h"

#include "admit.h"
#include "bag.h"
#include "libra_slurm.h"
#include "sched_libra.h"
#include "settle.h"

/* A growing list of job ids.  Agent thread only. */
typedef struct {
	uint32_t *id;
	int n, cap;
} id_list_t;

static void _ids_add(id_list_t *l, uint32_t job_id)
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

/*
 * Held jobs (priority 0) in the ledger, looked up once (finding F.3): a
 * pending job's SLA in the ledger changes only when it is placed again,
 * which a held job is not, so its hard deadline (0: none) is the one its
 * first look found.  Direct-mapped by job id; an entry is this job's only
 * with the same record pointer, id and submission time.
 */
#define HELD_MEMO 4096

typedef struct {
	job_record_t *job_ptr;
	uint32_t job_id;
	time_t submit;
	double deadline;
} held_memo_t;

/*
 * The plugin's state, in one place.  All of it is the agent thread's,
 * except no_sla_mode (set at init(), before the agent starts) and
 * agent_tid (init() and fini()).
 */
static struct {
	pthread_t agent_tid;
	/* libra_no_sla at init(): LIBRA_NOSLA_SLURM leaves jobs without an
	 * SLA to Slurm's schedulers (decision 27). */
	libra_nosla_t no_sla_mode;
	/*
	 * The batch jobs a pass started, to be launched (their script sent
	 * to their first node) once the journal of starts holds them, by
	 * _launch() after the pass's libra_starts_write().
	 */
	id_list_t launches;
	/*
	 * For tests only (tests/integration/test_sched_launch.sh): seconds
	 * to wait, in the environment variable LIBRA_TEST_LAUNCH_DELAY of
	 * slurmctld, between the journal of starts' write after a pass that
	 * started jobs and their launch, so that a test can kill slurmctld
	 * in between.  0: none.
	 */
	unsigned int test_launch_delay;
	/*
	 * For tests only (tests/integration/test_sched_launch.sh,
	 * tests/reliability/rel_faults.sh), with LIBRA_TEST_STALE_STATE=1 in
	 * slurmctld's environment: each write of the job state before new jobs
	 * start is copied to StateSaveLocation/job_state.libra-test, and each
	 * launch logged, so that a test can kill slurmctld after a launch and
	 * put that copy in place of the job state: what a write of slurmctld's
	 * state save thread packed before the start and completed after
	 * sched/libra's own leaves (sched_libra_starts.c).  Never set in
	 * production.
	 */
	bool test_stale_state;
	/*
	 * slurmctld writes its job state file at most every 5 s
	 * (state_save.c).  A job started before it is written, then lost with a
	 * SIGKILLed slurmctld, would run on unknown to the restarted one, which
	 * would give its id to another job (and slurmd would drain the node:
	 * "Duplicate jobid").  So the agent writes the state itself (decision
	 * 26) after each pass that has new jobs to start, and starts a job only
	 * once it is written.  The jobs a pass started are appended to the
	 * journal of starts before any is launched (sched_libra_starts.c): a
	 * restarted slurmctld whose state has such a job pending (the state
	 * save thread's write, packed before the start, came last) takes it as
	 * running on its nodes again, and the orphan check finds out whether
	 * its launch got there; one that has it running without its batch step
	 * is such an orphan too.  Ends are not written here (a burst of ends
	 * would be a burst of writes, each holding the job read lock while it
	 * packs every job): jobcomp/libra journals them and the agent replays
	 * the journal when it starts, before the journal of starts
	 * (libra_slurm_journal_recover()).  Written: every job submitted before
	 * second saved_sec, and those of that second up to job id
	 * saved_upto.  Agent thread only.
	 */
	time_t saved_sec;
	uint32_t saved_upto;
	/*
	 * Batch jobs that slurmctld, just started, knows as running without
	 * their batch step: _launch() had not launched them when it was killed,
	 * or had and the state was not written again before the kill.  Their
	 * first node's registration, which a restarted slurmctld asks every
	 * node for within seconds, tells which (_check_orphans()).  Agent
	 * thread only.
	 */
	id_list_t orphans;
	time_t adopt_since;
	/*
	 * What an incremental pass (decision 25) carries from the last: the ids
	 * of the pending jobs it tried and did not start, in the order tried
	 * (admitted first), and the earliest deadline among the jobs it does
	 * not look at (running jobs' hard deadlines, held jobs'), at which a
	 * pass walks the whole job list again.  Agent thread.
	 */
	id_list_t carry;
	time_t carry_next;
	time_t last_full;
	held_memo_t held_memo[HELD_MEMO];
	/* _long_pass(): when it last logged, the longest pass, the most CPU
	 * time a pass took */
	double last_log, longest, most_cpu;
} st = { .no_sla_mode = LIBRA_NOSLA_SLURM };

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
 * submission RPC then waits for (issue 23).
 */
#define GATHER_MIN 0.005
#define GATHER_MAX 0.1

/*
 * A pass stops trying pending jobs once it has run PASS_BUDGET seconds and
 * carries the rest to a pass right after (the locks released between
 * them, so that RPCs get in): starting a job costs about a millisecond,
 * and a burst's gathered jobs started in one pass held the write locks for
 * a third of a second (rel_load).
 */
#define PASS_BUDGET 0.02

/*
 * A pass longer than LONG_PASS seconds (issue 23's budget) is logged with
 * where its time went and how much of it was this thread's CPU (the rest
 * is waiting: for the hub lock, or for a CPU on a loaded host), at most
 * once every LONG_PASS_LOG seconds unless it is the longest yet.
 */
#define LONG_PASS 0.05
#define LONG_PASS_LOG 10.0


static bool _state_saved(job_record_t *job_ptr)
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

static void _set_reason(job_record_t *job_ptr, uint32_t reason,
			const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void _set_reason(job_record_t *job_ptr, uint32_t reason,
			const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (job_ptr->state_reason == reason && !xstrcmp(job_ptr->state_desc,
							 buf))
		return;
	job_ptr->state_reason = reason;
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = xstrdup(buf);
	last_job_update = time(NULL);
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
 * select_nodes() for a pending job, on "nodes" when given (its admitted
 * placement), never on the nodes in "exc" (with those the job itself
 * excludes).  Nothing is launched.  Returns select_nodes()'s code.
 */
static int _select(job_record_t *job_ptr, const char *nodes, bitstr_t *exc)
{
	bitstr_t *saved = job_ptr->details->req_node_bitmap, *req = NULL;
	bitstr_t *saved_exc = job_ptr->details->exc_node_bitmap;
	int rc;

	LIBRA_LOCKED(JOB_LOCK, WRITE_LOCK);	/* select_nodes() */
	LIBRA_LOCKED(NODE_LOCK, WRITE_LOCK);
	if (nodes) {
		if (libra_node_name2bitmap((char *) nodes, &req)) {
			FREE_NULL_BITMAP(req);
			return ESLURM_INVALID_NODE_NAME;
		}
		job_ptr->details->req_node_bitmap = req;
	}
	if (exc) {
		/* select_nodes() reads exc_node_bitmap, never replaces it */
		if (saved_exc)
			bit_or(exc, saved_exc);
		job_ptr->details->exc_node_bitmap = exc;
	}
	rc = libra_select_nodes(job_ptr, SLURMDB_JOB_FLAG_SCHED);
	/* select_nodes() may have replaced the bitmap: free what is there */
	if (nodes && job_ptr->details) {
		FREE_NULL_BITMAP(job_ptr->details->req_node_bitmap);
		job_ptr->details->req_node_bitmap = saved;
	}
	if (exc && job_ptr->details)
		job_ptr->details->exc_node_bitmap = saved_exc;
	if (rc != SLURM_SUCCESS)
		return rc;
	last_job_update = time(NULL);
	if (job_ptr->part_ptr_list)
		rebuild_job_part_list(job_ptr);
	return SLURM_SUCCESS;
}

/*
 * Start a pending job (_select()), noted in the journal of starts.
 * Returns select_nodes()'s code.
 */
static int _start_job(job_record_t *job_ptr, const char *nodes,
		      bitstr_t *exc)
{
	int rc = _select(job_ptr, nodes, exc);

	if (rc != SLURM_SUCCESS)
		return rc;
	libra_starts_add(job_ptr);
	/*
	 * A batch job is launched after the journal of starts has it
	 * (_launch()); a configuring one by slurmctld once its nodes are
	 * ready, as after its own scheduler's starts.  srun and salloc are
	 * told at once: they wait for their allocation without end, and one
	 * told by a slurmctld that restarts before its nodes register finds
	 * them busy for its first step and waits for a step to end.
	 */
	if (job_ptr->batch_flag == 0)
		srun_allocate(job_ptr);
	else if (!IS_JOB_CONFIGURING(job_ptr))
		_ids_add(&st.launches, job_ptr->job_id);
	return SLURM_SUCCESS;
}

/*
 * Pin a pending admitted job to its nodes ("n1,n2"), as job_submit/qos
 * did at submission (libra_no_sla=slurm): slurmctld's own scheduler may
 * start it too, and must start it there.
 */
static void _pin(job_record_t *job_ptr, const char *names)
{
	bitstr_t *req = NULL;

	if (libra_node_name2bitmap((char *) names, &req)) {
		FREE_NULL_BITMAP(req);
		return;
	}
	FREE_NULL_BITMAP(job_ptr->details->req_node_bitmap);
	job_ptr->details->req_node_bitmap = req;
	xfree(job_ptr->details->req_nodes);
	job_ptr->details->req_nodes = xstrdup(names);
}

/*
 * What else select_nodes() would check of the new nodes (design.md
 * decision 29): the job's reservation and the others over [now, its
 * deadline], its features, a whole-node request.  False: it cannot be
 * placed again (logged).
 */
static bool _window_restrict(job_record_t *job_ptr, libra_record_t *rec,
			     time_t now, bool *eligible)
{
	libra_slurm_window_t w = { 0 };
	libra_slurm_left_out_t out = { 0 };
	char *err = NULL;

	if (!eligible)
		return false;
	w.features = job_ptr->details ? job_ptr->details->features : NULL;
	w.resv_name = job_ptr->resv_name;
	w.start = now;
	w.end = (time_t) ceil(rec->sla.deadline);
	w.whole = job_ptr->details &&
		  (job_ptr->details->whole_node & WHOLE_NODE_REQUIRED);
	if (libra_slurm_restrict(eligible, &w, &out, &err)) {
		info("sched/libra: %pJ: cannot be placed again: %s", job_ptr,
		     err);
		xfree(err);
		return false;
	}
	return true;
}

/*
 * The admitted nodes of a pending job went down, or run jobs that do not
 * share (Slurm started them while the job was held or waited for a
 * dependency, decision 38): admit it again elsewhere, for what is left
 * of its window, at the price it was quoted.  "keep": its commitment
 * stays until a new placement is found (its nodes may free in time).
 * Returns true when it has a new placement.  Hub lock held.
 */
static bool _replace(job_record_t *job_ptr, libra_record_t *rec, time_t now,
		     bool keep)
{
	libra_ledger_t *l = libra_hub_ledger();
	libra_params_t *p = libra_hub_params();
	libra_quote_t *q = xmalloc(sizeof(*q));
	libra_request_t req = { 0 };
	libra_sla_t sla = rec->sla;
	char *names;
	bool ok = false;

	for (int i = 0; i < rec->nplace; i++)
		req.cpus += rec->place[i].cpus;
	req.demand = rec->demand;	/* its memory and GPUs, as admitted */
	req.slots_per_cpu = libra_slurm_slots_per_cpu(job_ptr->part_ptr);
	req.eligible = libra_slurm_eligible(job_ptr->part_ptr, NULL, NULL,
					    NULL, NULL);
	if (!_window_restrict(job_ptr, rec, now, (bool *) req.eligible))
		goto out;
	if (!keep)
		libra_ledger_release(l, job_ptr->job_id);
	libra_admit(l, p, &sla, &req, (double) now, q);
	if (q->verdict != LIBRA_ACCEPT)
		goto out;
	libra_sla_accept(&sla, q);		/* the new target, if any */
	if (keep)
		libra_ledger_release(l, job_ptr->job_id);
	if (!libra_ledger_commit(l, job_ptr->job_id, &sla, q->place,
				 q->nplace, (double) now)) {
		rec->sla = sla;
		if (libra_record_set_place(rec, l, q->place, q->nplace))
			goto out;
		libra_slurm_store_record(job_ptr, rec);
		names = libra_slurm_place_names(rec);
		info("sched/libra: %pJ: its admitted nodes %s; admitted again on %s",
		     job_ptr, keep ? "run jobs that do not share" : "failed",
		     names);
		if (st.no_sla_mode == LIBRA_NOSLA_SLURM)
			_pin(job_ptr, names);
		xfree(names);
		ok = true;
	}
out:
	xfree(req.eligible);
	xfree(q);
	return ok;
}

/*
 * Does a job that does not share its CPUs run on one of the record's
 * nodes (Slurm would not start the admitted job there until it ends)?
 * Job read lock, hub lock held.
 */
static bool _placement_taken(const libra_record_t *rec)
{
	libra_ledger_t *l = libra_hub_ledger();
	bitstr_t *unshared;
	bool taken = false;

	if (st.no_sla_mode != LIBRA_NOSLA_SLURM ||
	    !(unshared = libra_slurm_unshared_nodes()))
		return false;
	for (int i = 0; i < rec->nplace && !taken; i++) {
		int node = libra_ledger_find_node(l, rec->place[i].node);

		taken = node >= 0 && node < bit_size(unshared) &&
			bit_test(unshared, node);
	}
	FREE_NULL_BITMAP(unshared);
	return taken;
}

/*
 * After a failed start: are the record's nodes taken by jobs that do not
 * share?  1: yes, and the job was placed again; -1: yes, and no other
 * nodes can meet its deadline; 0: no.
 */
static int _taken_replaced(job_record_t *job_ptr, libra_record_t *rec,
			   time_t now)
{
	int taken = 0;

	libra_hub_lock();
	if (_placement_taken(rec))
		taken = _replace(job_ptr, rec, now, true) ? 1 : -1;
	libra_hub_unlock();
	return taken;
}

/* Are the admitted nodes of the record all up in the ledger?  Hub lock held. */
static bool _placement_up(const libra_record_t *rec)
{
	libra_ledger_t *l = libra_hub_ledger();

	for (int i = 0; i < rec->nplace; i++) {
		int node = libra_ledger_find_node(l, rec->place[i].node);

		if (node < 0 || !libra_ledger_node_up(l, node))
			return false;
	}
	return true;
}

/* Slurm's hold of a job whose batch launch failed (job_mgr.c) */
#define LAUNCH_FAILED_HOLD "launch failed requeued held"

/*
 * Did the job's owner keep it pending: a user hold (not Slurm's hold after
 * a failed launch), a requeue other than after a node failure (those are
 * counted in the record), or a dependency?  A booked job's --begin is
 * before its deadline (admission, decision 21), and job_modify() refuses a
 * later start or a new dependency from anyone but an operator, so these
 * come from the owner.  So does any pending time after the owner held it
 * once (the record's "owner_since", decision 37): a held job the owner
 * changed and released may be unable to start.
 */
static bool _owner_delayed(job_record_t *job_ptr, const libra_record_t *rec,
			   time_t now)
{
	if (rec->owner_since > 0.0 || (rec->started <= 0.0 && rec->owner > 0.0))
		return true;
	if (job_ptr->priority == 0)
		return job_ptr->state_reason == WAIT_HELD_USER &&
		       xstrcmp(job_ptr->state_desc, LAUNCH_FAILED_HOLD);
	if (job_ptr->restart_cnt > rec->requeues)
		return true;
	if (job_ptr->details && job_ptr->details->begin_time > now)
		return false;	/* Slurm's wait after a node failure */
	return job_ptr->state_reason == WAIT_DEPENDENCY ||
	       job_ptr->state_reason == WAIT_DEP_INVALID;
}

/*
 * An admitted job still pending at its hard deadline, whatever it waits
 * for: settle it and cancel it.  If the cluster kept it from starting (its
 * nodes failed and no others could take it, an operator held it) the
 * promise is broken (UNSTARTED, a penalty); if its owner did, it is
 * WITHDRAWN (no penalty).
 */
static void _end_unstarted(job_record_t *job_ptr, libra_record_t *rec,
			   time_t now)
{
	bool owner = _owner_delayed(job_ptr, rec, now);

	(void) libra_slurm_settle(job_ptr, rec, rec->started, (double) now,
				  libra_end_of(owner ? LIBRA_END_WITHDRAWN :
					       LIBRA_END_UNSTARTED,
					       rec->started > 0.0,
					       rec->requeues));
	libra_slurm_store_record(job_ptr, rec);
	if (owner)
		info("sched/libra: %pJ was kept from starting by its owner (%s) until its hard deadline; cancelling it (no penalty, charge %.2f)",
		     job_ptr, libra_job_reason_string(job_ptr->state_reason),
		     rec->final.charge);
	else	/* an outcome, not a fault of the plugin: not error() */
		info("sched/libra: %pJ could not start before its hard deadline (%s); cancelling it (SLA violation, penalty %.2f)",
		     job_ptr, libra_job_reason_string(job_ptr->state_reason),
		     rec->final.penalty);
	job_ptr->state_reason = FAIL_DEADLINE;
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = xstrdup(owner ?
		"libra: hard deadline passed while the owner kept the job from starting" :
		"libra: hard deadline passed before the job could start");
	job_signal(job_ptr, SIGKILL, 0, 0, false);
	last_job_update = now;
}

/* A pending job's hard deadline, from the ledger (its admission); 0: none. */
static double _hard_deadline(job_record_t *job_ptr)
{
	const libra_sla_t *sla;
	double dl = 0.0;

	libra_hub_lock();
	sla = libra_ledger_job_sla(libra_hub_ledger(), job_ptr->job_id);
	if (sla && sla->type == LIBRA_DEADLINE_HARD)
		dl = sla->deadline;
	libra_hub_unlock();
	return dl;
}

/*
 * Whatever a pending admitted job waits for, it ends at its hard deadline.
 * The deadline comes from the ledger: a held or waiting job's record is
 * parsed only when it is due.  Returns false when the job was ended here;
 * else *next is lowered to its hard deadline, if it has one.
 */
static bool _before_deadline(job_record_t *job_ptr, time_t now, time_t *next,
			     double dl)
{
	libra_record_t rec;

	if (dl <= 0.0)
		return true;
	if (job_ptr->priority && job_ptr->details)
		(void) job_independent(job_ptr);	/* current reason */
	if (dl <= (double) now) {
		if (libra_slurm_job_record(job_ptr, &rec)) {
			if (!rec.best_effort && !rec.settled)
				_end_unstarted(job_ptr, &rec, now);
			libra_record_free(&rec);
		}
		return false;
	}
	if (!*next || (time_t) ceil(dl) < *next)
		*next = (time_t) ceil(dl);
	return true;
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
 * A held job: nothing to start, but it ends at its hard deadline like any
 * admitted job (_before_deadline()).
 */
static void _held(job_record_t *job_ptr, time_t now, time_t *next)
{
	int k = job_ptr->job_id % HELD_MEMO;
	time_t submit = job_ptr->details->submit_time;
	double dl;

	if (st.held_memo[k].job_ptr == job_ptr &&
	    st.held_memo[k].job_id == job_ptr->job_id &&
	    st.held_memo[k].submit == submit) {
		dl = st.held_memo[k].deadline;
	} else {
		const libra_sla_t *sla;
		bool known;

		libra_hub_lock();
		sla = libra_ledger_job_sla(libra_hub_ledger(),
					   job_ptr->job_id);
		known = sla != NULL;
		dl = sla && sla->type == LIBRA_DEADLINE_HARD ?
		     sla->deadline : 0.0;
		libra_hub_unlock();
		/* not yet in the ledger (its admission not re-keyed): look
		 * again next pass */
		if (known) {
			st.held_memo[k].job_ptr = job_ptr;
			st.held_memo[k].job_id = job_ptr->job_id;
			st.held_memo[k].submit = submit;
			st.held_memo[k].deadline = dl;
		}
	}
	(void) _before_deadline(job_ptr, now, next, dl);
}

/*
 * A job just started: a best-effort one books its job slots in the ledger;
 * an admitted one gets the end time its deadline allows; the record says
 * when it started, to the microsecond like its admission.
 */
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

static void _note_started(job_record_t *job_ptr, libra_record_t *rec,
			  bool has_rec)
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

	rc = _select(job_ptr, nodes, NULL);

	job_ptr->bit_flags &= ~BACKFILL_TEST;
	bit_or(cg_node_bitmap, completing);
	bit_and_not(avail_node_bitmap, unheard);
	FREE_NULL_BITMAP(completing);
	FREE_NULL_BITMAP(unheard);
	FREE_NULL_BITMAP(req);
	if (rc != SLURM_SUCCESS)
		return rc;
	has_rec = libra_slurm_job_record(job_ptr, &rec);
	_note_started(job_ptr, &rec, has_rec);
	if (has_rec)
		libra_record_free(&rec);
	return SLURM_SUCCESS;
}

/*
 * Admitted jobs that slurmctld's own scheduler started (libra_no_sla=slurm:
 * pinned to their admitted nodes, any scheduler may start them) get what
 * _note_started() gives the ones this thread starts: the end time their
 * deadline allows and their start in the record.  Running jobs started
 * at or after "since" are looked at (the records of earlier ones were
 * noted by an earlier pass).
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
 * Try to start one pending job; returns true if it started.  *next: the
 * earliest hard deadline of an admitted job still ahead; *unsaved: the
 * highest id of a job that would start but is not in the state file yet.
 */
static bool _try_pending(job_record_t *job_ptr, time_t now, time_t *next,
			 uint32_t *unsaved)
{
	libra_record_t rec;
	libra_demand_t demand;
	bitstr_t *held = NULL;
	char *nodes = NULL;
	bool has_rec, admitted;
	int rc, nheld = 0, taken = 0;

	if (!_before_deadline(job_ptr, now, next, _hard_deadline(job_ptr)))
		return false;
	if (!job_independent(job_ptr)) {	/* reason set by Slurm */
		/* booked (decision 21): a pass at its begin starts it; its
		 * nodes are kept for it meanwhile (decision 42) */
		time_t begin = job_ptr->details->begin_time;

		if (begin > now && (!*next || begin < *next))
			*next = begin;
		libra_booking_hold(job_ptr, now);
		return false;
	}
	if (!_state_saved(job_ptr)) {
		/* started in a moment, once the state file has it */
		if (job_ptr->job_id > *unsaved)
			*unsaved = job_ptr->job_id;
		return false;
	}
	has_rec = libra_slurm_job_record(job_ptr, &rec);
	admitted = has_rec && !rec.best_effort;

	if (admitted) {
		/* the ledger's nodes, then a new place */
		libra_hub_lock();
		if (!_placement_up(&rec) && !_replace(job_ptr, &rec, now,
						      false))
			_set_reason(job_ptr, WAIT_NODE_NOT_AVAIL,
				    "libra: admitted nodes are down and no others can meet the deadline");
		libra_hub_unlock();
		nodes = libra_slurm_place_names(&rec);
		if (nodes)	/* where a booking's window is (decision 42) */
			libra_booking_cross(job_ptr, nodes, now);
	} else if (libra_slurm_job_demand(job_ptr, &demand)) {
		/* not where admitted jobs, started or not, hold memory or
		 * GPUs it would need (decision 17) */
		libra_hub_lock();
		held = libra_slurm_held_excluded(job_ptr, &demand, &nheld);
		libra_hub_unlock();
	}
	rc = _start_job(job_ptr, nodes, held);
	/* its admitted nodes taken meanwhile (decision 38): placed again
	 * and tried once more; the job list is walked only after a failed
	 * start, not on every start.  Not before a planned start (decision
	 * 39): it was admitted for when those jobs end */
	if (rc != SLURM_SUCCESS && admitted && !(rec.begin > now) &&
	    (taken = _taken_replaced(job_ptr, &rec, now)) > 0) {
		xfree(nodes);
		nodes = libra_slurm_place_names(&rec);
		libra_booking_cross(job_ptr, nodes, now);
		rc = _start_job(job_ptr, nodes, held);
	}
	FREE_NULL_BITMAP(held);
	if (rc == SLURM_SUCCESS) {
		/* test_sched_workload.sh and test_sched_deadlines.sh read it */
		info("sched/libra: started %pJ on %s%s", job_ptr,
		     job_ptr->nodes, admitted ? "" : " (best effort)");
		_note_started(job_ptr, &rec, has_rec);
	} else if (taken < 0) {
		_set_reason(job_ptr, WAIT_RESOURCES,
			    "libra: its admitted nodes run jobs that do not share, and no others can meet the deadline");
	} else if (nodes && rec.begin > now) {
		time_t begin = (time_t) rec.begin;
		char t[32];

		slurm_make_time_str(&begin, t, sizeof(t));
		_set_reason(job_ptr, WAIT_RESOURCES,
			    "libra: admitted on %s, planned to start at %s (sooner if its nodes free sooner)",
			    nodes, t);
	} else if (nodes) {
		_set_reason(job_ptr, WAIT_RESOURCES,
			    "libra: admitted on %s: %s", nodes,
			    slurm_strerror(rc));
	} else if (nheld) {
		_set_reason(job_ptr, WAIT_RESOURCES,
			    "libra: best effort: memory or GPUs held for admitted jobs on %d node(s): %s",
			    nheld, slurm_strerror(rc));
	} else {
		_set_reason(job_ptr, WAIT_RESOURCES, "libra: best effort: %s",
			    slurm_strerror(rc));
	}
	xfree(nodes);
	if (has_rec)
		libra_record_free(&rec);
	return rc == SLURM_SUCCESS;
}

/*
 * Try an admitted pending job: a bag's tasks (decision 36) as many as its
 * lanes and Slurm's throttle let start now (job_array_start_test(), as
 * Slurm's scheduler asks it; select_nodes() splits each off the array),
 * the array's pending rest carried to the next pass.  Returns how many
 * jobs started.
 */
static uint32_t _try_admitted(job_record_t *job_ptr, time_t now,
			      time_t *next, uint32_t *unsaved)
{
	uint32_t array_id = job_ptr->array_job_id, n = 0;

	if (!job_ptr->array_recs && job_ptr->array_task_id == NO_VAL)
		return _try_pending(job_ptr, now, next, unsaved);
	while (job_ptr && IS_JOB_PENDING(job_ptr) &&
	       job_array_start_test(job_ptr) &&
	       _try_pending(job_ptr, now, next, unsaved)) {
		n++;
		if (!array_id || job_ptr->job_id == array_id)
			return n;	/* the last task, or no array */
		job_ptr = find_job_record(array_id);
	}
	if (n && job_ptr && IS_JOB_PENDING(job_ptr) && job_ptr->priority)
		_ids_add(&st.carry, job_ptr->job_id);
	return n;
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
	(void) libra_slurm_settle(job_ptr, rec, rec->started, (double) now,
				  LIBRA_END_SUSPENDED);
	libra_slurm_store_record(job_ptr, rec);
	info("sched/libra: %pJ is still suspended at its end limit; ending it (the provider's breach)",
	     job_ptr);
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
	 * the job its time */
	(void) libra_slurm_settle(job_ptr, &rec, rec.started ? rec.started :
				  (double) job_ptr->start_time, (double) now,
				  libra_end_suspended(
					  libra_end_of(LIBRA_END_DEADLINE,
						       true, rec.requeues),
					  suspended));
	libra_slurm_store_record(job_ptr, &rec);
	info("sched/libra: %pJ reached its hard deadline%s; ending it",
	     job_ptr, suspended ? " after an operator's suspend" : "");
	job_signal(job_ptr, SIGKILL, 0, 0, false);
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = xstrdup(suspended ?
		"libra: hard deadline reached after an operator's suspend (the provider's breach)" :
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
 * it to _check_orphans().
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
		_ids_add(&st.orphans, job_ptr->job_id);
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
static bool _check_orphans(void)
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

static double _monotonic(void)
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
	c->t[0] = _monotonic();
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
			_ids_add(&st.carry, job_ptr->job_id);
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
	 * no more than their deadline (_held()).
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

			_held(job_ptr, now, &t);
			_lower(skipped_next, t);
			/* looked at by the next passes: its release is
			 * started at once (decision 38) */
			if (libra_slurm_is_admitted(job_ptr))
				_ids_add(&st.carry, job_ptr->job_id);
			continue;
		}
		if (!libra_slurm_is_admitted(job_ptr)) {
			jobs[nbest++] = job_ptr;
			continue;
		}
		_keep_priority(job_ptr, now);
		if (!(*more = *more || _monotonic() - t0 > PASS_BUDGET))
			n += _try_admitted(job_ptr, now, next, unsaved);
		_carry_started(job_ptr, now, skipped_next);
	}
	for (int i = 0; i < nbest; i++) {
		job_ptr = jobs[i];
		if (!IS_JOB_PENDING(job_ptr) || !job_ptr->details ||
		    IS_JOB_COMPLETING(job_ptr))
			continue;	/* ended by the first loop */
		if (!(*more = *more || _monotonic() - t0 > PASS_BUDGET) &&
		    _try_pending(job_ptr, now, next, unsaved))
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
static time_t _pass(bool *waiting, uint32_t *unsaved, uint32_t *nstarted,
		    bool *more)
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
	clk.t[1] = _monotonic();
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
	clk.t[2] = _monotonic();
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
	if (st.orphans.n && _check_orphans())
		_lower(&skipped_next, now + 1);
	clk.t[3] = _monotonic();
	started = _try_jobs(jobs, njobs, now, clk.t[0], &next, &skipped_next,
			   unsaved, more, &pending, &examined);
	xfree(jobs);
	st.carry_next = skipped_next;
	_lower(&next, skipped_next);
	clk.t[4] = _monotonic();
	libra_power_pass(now);

	clk.t[5] = _monotonic();
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

/*
 * Launch the batch jobs the last pass started (launches), now that the
 * journal of starts holds them; none leaves slurmctld before (decision 26,
 * DURABILITY in sched_libra(8)).  A slurmctld killed from here on comes
 * back with them running (the state save thread's write, or the journal:
 * libra_starts_restore()), and _find_orphans() and _check_orphans() find
 * out whether each reached its node.  Takes the pass's locks again.
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
		double t0 = _monotonic(), t_locks, t_saved;
		bool more = false;

		lock_slurmctld(locks);
		*next_deadline = _pass(waiting, &unsaved, &started, &more);
		if (started)
			libra_starts_prune();
		unlock_slurmctld(locks);
		t_locks = _monotonic();
		held += t_locks - t0;
		/* the new jobs before they start (ends:
		 * libra_slurm_journal_end()) */
		if (unsaved)
			_save_state(unsaved);
		t_saved = _monotonic();
		/* the started ones before they are launched */
		if (started)
			libra_starts_write();
		/* their cost (doc/benchmarks.md, bench-starts) */
		if (slurm_conf.debug_flags & DEBUG_FLAG_BACKFILL)
			_durable_log(unsaved, started, t_saved - t_locks,
				     _monotonic() - t_saved);
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
		double t_wait = _monotonic();
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
			gather = _monotonic() - t_wait < GATHER_MIN ?
				 fmin(2.0 * gather, GATHER_MAX) : GATHER_MIN;
			_pause(fmin(GATHER_MAX, fmax(gather, 2.0 * last_pass)));
		}
		last_pass = _run_passes(locks, &waiting, &next_deadline);
		/* quotes forgotten, betas moved: written outside the locks */
		libra_state_save();
	}
	/* what passes carry from one to the next */
	_ids_free(&st.carry);
	_ids_free(&st.launches);
	_ids_free(&st.orphans);
	libra_starts_fini();
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
	/* every pass reads the records of the pending jobs (finding F.4) */
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
