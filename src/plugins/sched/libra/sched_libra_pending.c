/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra_pending.c - sched/libra's pass (sched_libra.c): a pending
 *  job tried.
 *
 *  An admitted job is started on the nodes its admission counted on
 *  (time-shared with other admitted jobs); when they are down, or run
 *  jobs that do not share (decision 38), it is admitted again elsewhere
 *  for what is left of its window, at the price it was quoted and by the
 *  rules select_nodes() would apply (decision 29), and pinned there with
 *  libra_no_sla=slurm (decision 27).  A booked job waits for its begin,
 *  its nodes kept in its reservation (decisions 21, 42); a job admitted
 *  for a planned start starts as soon as its nodes free, and says when it
 *  is planned meanwhile (decision 39); a bag starts as many tasks as its
 *  lanes allow (decision 36).  With libra_no_sla=best_effort a job
 *  without an SLA starts where it fits, never where admitted jobs hold the
 *  memory or GPUs it would need (decision 17).  Whatever a pending
 *  admitted job waits for, held or not, it is ended at its hard deadline:
 *  withdrawn when its owner kept it from starting (decision 37), else
 *  unstarted.  A start is noted in the journal of starts, and a batch job
 *  launched only once the journal is written (decision 26,
 *  sched_libra_agent.c).  A job that does not start says why in its
 *  reason.
 *
 *  Under the pass's locks (sched_libra.c); the hub lock only around each
 *  use of the ledger, never across a call into slurmctld.
\*****************************************************************************/

#include <math.h>
#include <signal.h>
#include <stdarg.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/parse_time.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/slurmctld.h"

#include "admit.h"
#include "libra_slurm.h"
#include "sched_libra.h"
#include "sched_libra_int.h"
#include "settle.h"

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

/*
 * select_nodes() for a pending job, on "nodes" when given (its admitted
 * placement), never on the nodes in "exc" (with those the job itself
 * excludes).  Nothing is launched.  Returns select_nodes()'s code.
 */
extern int libra_sched_select(job_record_t *job_ptr, const char *nodes,
			      bitstr_t *exc)
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
 * Start a pending job (libra_sched_select()), noted in the journal of
 * starts.  Returns select_nodes()'s code.
 */
static int _start_job(job_record_t *job_ptr, const char *nodes,
		      bitstr_t *exc)
{
	int rc = libra_sched_select(job_ptr, nodes, exc);

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
		libra_sched_ids_add(&st.launches, job_ptr->job_id);
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
 * dependency, decision 38), or are stuck completing a job (decision 29):
 * admit it again elsewhere, for what is left
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
		     job_ptr, keep ? "are taken (jobs that do not share, or a job's end not done)" :
		     "failed", names);
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
 * Will Slurm start nothing on one of the record's nodes now: a job that
 * does not share its CPUs runs there (until it ends), or the node has
 * been completing an ended job for longer than MessageTimeout (until it
 * reports the end done: a slurmd killed in the job's epilog waits for
 * Slurm's next TERMINATE_JOB, a minute or more)?  Job and node read
 * locks, hub lock held.
 */
static bool _placement_taken(const libra_record_t *rec)
{
	libra_ledger_t *l = libra_hub_ledger();
	bitstr_t *blocked;
	bool taken = false;

	if (!(blocked = libra_slurm_blocked_nodes()))
		return false;
	for (int i = 0; i < rec->nplace && !taken; i++) {
		int node = libra_ledger_find_node(l, rec->place[i].node);

		taken = node >= 0 && node < bit_size(blocked) &&
			bit_test(blocked, node);
	}
	FREE_NULL_BITMAP(blocked);
	return taken;
}

/*
 * After a failed start: are the record's nodes taken (by jobs that do not
 * share, or stuck completing one)?  1: yes, and the job was placed again;
 * -1: yes, and no other nodes can meet its deadline; 0: no.
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
 * A held job: nothing to start, but it ends at its hard deadline like any
 * admitted job (_before_deadline()).
 */
extern void libra_sched_held(job_record_t *job_ptr, time_t now,
			     time_t *next)
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
 * Try to start one pending job; returns true if it started.  *next: the
 * earliest hard deadline of an admitted job still ahead; *unsaved: the
 * highest id of a job that would start but is not in the state file yet.
 */
extern bool libra_sched_try_pending(job_record_t *job_ptr, time_t now,
				    time_t *next, uint32_t *unsaved)
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
	if (!libra_sched_state_saved(job_ptr)) {
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
		libra_sched_note_started(job_ptr, &rec, has_rec);
	} else if (taken < 0) {
		_set_reason(job_ptr, WAIT_RESOURCES,
			    "libra: its admitted nodes run jobs that do not share or are completing one, and no others can meet the deadline");
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
extern uint32_t libra_sched_try_admitted(job_record_t *job_ptr, time_t now,
					 time_t *next, uint32_t *unsaved)
{
	uint32_t array_id = job_ptr->array_job_id, n = 0;

	if (!job_ptr->array_recs && job_ptr->array_task_id == NO_VAL)
		return libra_sched_try_pending(job_ptr, now, next, unsaved);
	while (job_ptr && IS_JOB_PENDING(job_ptr) &&
	       job_array_start_test(job_ptr) &&
	       libra_sched_try_pending(job_ptr, now, next, unsaved)) {
		n++;
		if (!array_id || job_ptr->job_id == array_id)
			return n;	/* the last task, or no array */
		job_ptr = find_job_record(array_id);
	}
	if (n && job_ptr && IS_JOB_PENDING(job_ptr) && job_ptr->priority)
		libra_sched_ids_add(&st.carry, job_ptr->job_id);
	return n;
}
