/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_slurm_eligible.c - the nodes a job may be admitted to, for the
 *  slurmctld plugins (see libra_slurm.h): its partition, -w and -x, less
 *  those held by jobs that do not share or stuck completing one; its
 *  reservation, the others', node features and --exclusive; why nodes were
 *  left out; the names of a placement's nodes.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/parse_time.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/reservation.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm.h"

/*
 * A pending job admitted to whole nodes (--exclusive, decision 29): its
 * admitted nodes into *held (allocated when NULL), as a running job that
 * does not share would be, so that no other job is admitted there before
 * it starts.
 */
static void _whole_admitted(job_record_t *job_ptr, bitstr_t **held,
			    double *free_at)
{
	libra_ledger_t *l = libra_hub_ledger();
	libra_record_t rec;

	if (!job_ptr->details ||
	    !(job_ptr->details->whole_node & WHOLE_NODE_REQUIRED) ||
	    !libra_slurm_job_record(job_ptr, &rec))
		return;
	for (int i = 0; i < rec.nplace; i++) {
		int n = libra_ledger_find_node(l, rec.place[i].node);

		if (n < 0 || n >= node_record_count)
			continue;
		if (!*held)
			*held = bit_alloc(node_record_count);
		bit_set(*held, n);
		if (free_at)
			free_at[n] = INFINITY;
	}
	libra_record_free(&rec);
}

/*
 * When a running job that does not share frees its nodes at the latest
 * (decision 39): past its time limit (end_time) and OverTimeLimit,
 * slurmctld's check of time limits, every PERIODIC_TIMEOUT seconds,
 * signals it, and KillWait later kills it.  INFINITY when nothing bounds
 * it: no time limit, or suspended (its end moves by the time it stays
 * suspended).
 */
static double _end_bound(job_record_t *job_ptr)
{
	double over = 0.0;

	if (IS_JOB_SUSPENDED(job_ptr) || job_ptr->time_limit == INFINITE ||
	    job_ptr->time_limit == NO_VAL || !job_ptr->end_time)
		return INFINITY;
	if (slurm_conf.over_time_limit == INFINITE16)
		return INFINITY;
	over = slurm_conf.over_time_limit * 60.0;
	return (double) job_ptr->end_time + over + PERIODIC_TIMEOUT +
	       slurm_conf.kill_wait;
}

/*
 * Would Slurm preempt the running job for a job of partition "by" (design.md
 * decision 41)?  preempt/partition_prio's rule: the job's partition is of
 * a lower PriorityTier and its PreemptMode (its own, else the global one)
 * requeues or cancels it.  SUSPEND is not counted (it keeps the job's
 * memory, and under partition_prio needs GANG, which admission refuses);
 * neither is preempt/qos (the SLA job's QOS is chosen after job_submit).
 */
static bool _preempted_for(job_record_t *job_ptr, part_record_t *by)
{
	part_record_t *p = job_ptr->part_ptr;
	uint16_t mode = slurm_conf.preempt_mode;

	if (!by || !p || (mode & PREEMPT_MODE_GANG) ||
	    mode == PREEMPT_MODE_OFF || !slurm_conf.preempt_type ||
	    !xstrcasestr(slurm_conf.preempt_type, "partition_prio") ||
	    p->priority_tier >= by->priority_tier)
		return false;
	if (p->preempt_mode != NO_VAL16)
		mode = p->preempt_mode;
	return (mode & (PREEMPT_MODE_REQUEUE | PREEMPT_MODE_CANCEL)) &&
	       !(mode & PREEMPT_MODE_SUSPEND);
}

/*
 * When a job Slurm preempts for the admitted job frees its nodes at the
 * latest: its partition's GraceTime, then KillWait, from the admitted
 * job's first try (at once, or at sched/libra's next pass).
 */
static double _preempt_bound(job_record_t *job_ptr)
{
	return (double) time(NULL) + job_ptr->part_ptr->grace_time +
	       slurm_conf.kill_wait + libra_hub_params()->interval;
}

/* Each node of "nodes" frees no earlier than t. */
static void _frees_at(double *free_at, bitstr_t *nodes, double t)
{
	for (int i = 0; i < node_record_count; i++)
		if (bit_test(nodes, i) && !(free_at[i] >= t))
			free_at[i] = t;
}

/*
 * Nodes admission leaves out, from slurmctld's jobs (not from the ledger:
 * jobs that Slurm's own scheduler starts reach the ledger only at
 * sched/libra's next pass), in one walk of the job list per admission
 * (tens of microseconds at 10,000 jobs):
 *  - *unshared (when not NULL): where a running job does not share its
 *    CPUs: one of a partition not OverSubscribe=FORCE that did not ask
 *    --oversubscribe (a job without an SLA: job_submit/qos drops the
 *    request).  Slurm's select/cons_tres then puts no job that shares on
 *    any CPU of such a node (it is in "one row" use: job_test.c,
 *    _get_job_node_req()), so an admitted job could not start there until
 *    it ends (decision 27);
 *  - *stuck: where a job ended more than MessageTimeout ago and its node
 *    has not yet reported the end done (node_bitmap_cg).  select_nodes()
 *    takes no node completing a job; most complete within a second of
 *    the end, and a job admitted there starts at the next pass, but one
 *    still completing after a message timeout waits for something that
 *    went wrong (a slurmd killed in the job's end: 54 s in rel_faults),
 *    for as long as that takes (decision 29).
 * A pending job admitted to whole nodes (--exclusive) counts in *unshared
 * as a running one that does not share (decision 29), if "whole".
 * Each NULL when empty.  free_at (when not NULL, one per node, zeroed):
 * when each node of *unshared frees (_end_bound(); _preempt_bound() for
 * a job Slurm would preempt for a job of partition "by"; INFINITY for an
 * admitted --exclusive job's).
 */
static void _held_nodes(bitstr_t **unshared, bitstr_t **stuck, bool whole,
			double *free_at, part_record_t *by)
{
	time_t old = time(NULL) - (time_t) slurm_conf.msg_timeout;
	libra_list_itr_t iter;
	job_record_t *job_ptr;

	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	if (unshared)
		*unshared = NULL;
	*stuck = NULL;
	iter = list_iterator_create(job_list);
	while ((job_ptr = list_next(iter))) {
		part_record_t *p = job_ptr->part_ptr;

		if (IS_JOB_COMPLETING(job_ptr) && job_ptr->node_bitmap_cg &&
		    job_ptr->end_time && job_ptr->end_time < old) {
			if (!*stuck)
				*stuck = bit_alloc(node_record_count);
			bit_or(*stuck, job_ptr->node_bitmap_cg);
		}
		if (unshared && whole && IS_JOB_PENDING(job_ptr) && p &&
		    !(p->max_share & SHARED_FORCE))
			_whole_admitted(job_ptr, unshared, free_at);
		if (!unshared ||
		    (!IS_JOB_RUNNING(job_ptr) && !IS_JOB_SUSPENDED(job_ptr)) ||
		    !job_ptr->node_bitmap || !p ||
		    (p->max_share & SHARED_FORCE))
			continue;
		if (p->max_share > 1 && job_ptr->details &&
		    job_ptr->details->share_res == 1)
			continue;	/* it shares */
		if (!*unshared)
			*unshared = bit_alloc(node_record_count);
		bit_or(*unshared, job_ptr->node_bitmap);
		if (free_at)
			_frees_at(free_at, job_ptr->node_bitmap,
				  _preempted_for(job_ptr, by) ?
				  fmin(_preempt_bound(job_ptr),
				       _end_bound(job_ptr)) :
				  _end_bound(job_ptr));
	}
	list_iterator_destroy(iter);
}

extern bitstr_t *libra_slurm_blocked_nodes(void)
{
	bitstr_t *blocked = NULL, *stuck = NULL;

	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	_held_nodes(&blocked, &stuck, false, NULL, NULL);
	if (!stuck)
		return blocked;
	for (int i = 0; i < node_record_count; i++)
		if (bit_test(stuck, i) && (!node_record_table_ptr[i] ||
		    !IS_NODE_COMPLETING(node_record_table_ptr[i])))
			bit_clear(stuck, i);
	if (!blocked)
		blocked = stuck;
	else {
		bit_or(blocked, stuck);
		FREE_NULL_BITMAP(stuck);
	}
	if (bit_ffs(blocked) < 0)
		FREE_NULL_BITMAP(blocked);
	return blocked;
}

extern bool *libra_slurm_eligible(part_record_t *part_ptr,
				  const char *req_nodes,
				  const char *exc_nodes,
				  libra_slurm_left_out_t *out,
				  char **err_msg)
{
	bitstr_t *req = NULL, *exc = NULL, *held = NULL, *stuck = NULL;
	libra_slurm_left_out_t none;
	bool *mask;

	if (!out)
		out = &none;
	memset(out, 0, sizeof(*out));

	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	LIBRA_LOCKED(PART_LOCK, READ_LOCK);
	if (req_nodes && libra_node_name2bitmap((char *) req_nodes, &req)) {
		xstrfmtcat(*err_msg, "libra: invalid node list '%s'",
			   req_nodes);
		FREE_NULL_BITMAP(req);
		return NULL;
	}
	if (exc_nodes && libra_node_name2bitmap((char *) exc_nodes, &exc)) {
		xstrfmtcat(*err_msg, "libra: invalid excluded node list '%s'",
			   exc_nodes);
		FREE_NULL_BITMAP(req);
		FREE_NULL_BITMAP(exc);
		return NULL;
	}
	if (out != &none && part_ptr && !(part_ptr->max_share & SHARED_FORCE))
		out->free_at = xcalloc(node_record_count ? node_record_count :
				       1, sizeof(double));
	_held_nodes(part_ptr && !(part_ptr->max_share & SHARED_FORCE) ?
		    &held : NULL, &stuck, true, out->free_at, part_ptr);
	mask = xcalloc(node_record_count ? node_record_count : 1,
		       sizeof(*mask));
	for (int i = 0; i < node_record_count; i++) {
		if (!node_record_table_ptr[i])
			continue;
		if (part_ptr && part_ptr->node_bitmap &&
		    !bit_test(part_ptr->node_bitmap, i))
			continue;
		if (req && !bit_test(req, i))
			continue;
		if (exc && bit_test(exc, i))
			continue;
		if (stuck && bit_test(stuck, i) &&
		    IS_NODE_COMPLETING(node_record_table_ptr[i])) {
			out->completing++;
			continue;
		}
		if (held && bit_test(held, i)) {
			out->unshared++;
			if (!out->free_at)
				continue;	/* else kept, with when it frees */
		}
		mask[i] = true;
	}
	FREE_NULL_BITMAP(req);
	FREE_NULL_BITMAP(exc);
	FREE_NULL_BITMAP(held);
	FREE_NULL_BITMAP(stuck);
	return mask;
}

/* Does the node satisfy the feature expression (its active features,
 * else its configured ones: demand.h)? */
static bool _node_features(node_record_t *node_ptr, const char *expr)
{
	return libra_features_match(expr, node_ptr->features_act ?
					  node_ptr->features_act :
					  node_ptr->features);
}

/* Can admission read this feature expression?  Else why not in err_msg. */
static int _features_ok(const char *expr, char **err_msg)
{
	if (libra_features_valid(expr))
		return SLURM_SUCCESS;
	xstrfmtcat(*err_msg, "libra: rejected: --constraint=%s: an SLA job may ask node features joined by & and | only (no brackets, counts, parentheses or !)",
		   expr);
	return ESLURM_INVALID_FEATURE;
}

/* A reservation's node_bitmap over the job's window; NULL when it reserves
 * no nodes or does not overlap [start, end]. */
static bitstr_t *_resv_nodes(slurmctld_resv_t *resv, time_t start,
			     time_t end)
{
	if (!resv->node_bitmap || resv->start_time >= end ||
	    (resv->end_time && resv->end_time <= start))
		return NULL;
	return resv->node_bitmap;
}

extern bool libra_slurm_booking_resv(const char *names)
{
	const char *p = names;

	while (p && *p) {
		if (!strncmp(p, LIBRA_RESV_PREFIX, strlen(LIBRA_RESV_PREFIX)))
			return true;
		if ((p = strchr(p, ',')))
			p++;
	}
	return false;
}

/* Its own reservation: its nodes only, the window inside its time. */
static int _own_resv(bool *mask, const libra_slurm_window_t *w,
		     char **err_msg)
{
	slurmctld_resv_t *resv = find_resv_name((char *) w->resv_name);

	if (!resv) {
		xstrfmtcat(*err_msg, "libra: rejected: --reservation=%s: no such reservation",
			   w->resv_name);
		return ESLURM_RESERVATION_INVALID;
	}
	if (resv->start_time > w->start ||
	    (resv->end_time && resv->end_time < w->end)) {
		char s[32], e[32];

		slurm_make_time_str(&resv->start_time, s, sizeof(s));
		slurm_make_time_str(&resv->end_time, e, sizeof(e));
		xstrfmtcat(*err_msg, "libra: rejected: --reservation=%s runs from %s to %s, and the job's window (from its start to its deadline) is not inside it: admission places a job in its reservation only when the whole window is",
			   w->resv_name, s, e);
		/* it begins later, long enough for the window (to the
		 * second: the deadline is rounded up): book it there
		 * (decision 21: its times then count from its begin) */
		if (resv->start_time > w->start &&
		    (!resv->end_time ||
		     resv->end_time - resv->start_time + 1 >= w->end - w->start))
			xstrfmtcat(*err_msg, "; to book it there, submit it with --begin=%s (its times then count from its begin)",
				   s);
		return ESLURM_RESERVATION_NOT_USABLE;
	}
	/* one that reserves no nodes (licenses only) leaves the nodes be */
	for (int i = 0; resv->node_bitmap && i < node_record_count; i++)
		if (!bit_test(resv->node_bitmap, i))
			mask[i] = false;
	return SLURM_SUCCESS;
}

/* The nodes of the reservations, other than its own, in its window. */
static bitstr_t *_reserved(const libra_slurm_window_t *w,
			   libra_slurm_left_out_t *out)
{
	bitstr_t *reserved = NULL, *b;
	libra_list_itr_t iter;
	slurmctld_resv_t *resv;

	if (!resv_list)
		return NULL;
	iter = list_iterator_create(resv_list);
	while ((resv = list_next(iter))) {
		if (w->resv_name && !xstrcmp(resv->name, w->resv_name))
			continue;
		/* a booking's (decision 42): the ledger counts it */
		if (libra_slurm_booking_resv(resv->name))
			continue;
		if (!(b = _resv_nodes(resv, w->start, w->end)))
			continue;
		if (!reserved)
			reserved = bit_alloc(node_record_count);
		bit_or(reserved, b);
		if (!out->resv[0]) {
			snprintf(out->resv, sizeof(out->resv), "%s",
				 resv->name);
			out->resv_start = resv->start_time;
		}
	}
	list_iterator_destroy(iter);
	return reserved;
}

/* Whole nodes: those where no job runs (slurmctld's), none is admitted
 * (the ledger's). */
static bool _node_idle(int i, bitstr_t *running)
{
	libra_ledger_t *l = libra_hub_ledger();

	if (running && bit_test(running, i))
		return false;
	return i >= libra_ledger_node_count(l) ||
	       (!libra_ledger_node_job_cpus(l, i) &&
		libra_ledger_node_share(l, i) <= 0.0);
}

static bitstr_t *_running_nodes(void)
{
	bitstr_t *running = NULL;
	libra_list_itr_t iter;
	job_record_t *job_ptr;

	iter = list_iterator_create(job_list);
	while ((job_ptr = list_next(iter))) {
		if ((!IS_JOB_RUNNING(job_ptr) && !IS_JOB_SUSPENDED(job_ptr)) ||
		    !job_ptr->node_bitmap)
			continue;
		if (!running)
			running = bit_alloc(node_record_count);
		bit_or(running, job_ptr->node_bitmap);
	}
	list_iterator_destroy(iter);
	return running;
}

/*
 * The waiting job without an SLA that admission must not delay (decision
 * 40), as EASY backfilling keeps the start of the queue's head: of the
 * pending jobs without an admission that Slurm's backfill planned
 * (start_time, sched_nodes) in a partition sharing nodes with mask, the
 * one of highest priority; NULL when none.  Its planned nodes into
 * *nodes.  One walk of the job list; only the head's node list is read.
 */
static job_record_t *_top_planned(const bool *mask, bitstr_t **nodes)
{
	job_record_t *job_ptr, *top = NULL;
	bitstr_t *m = bit_alloc(node_record_count);
	libra_list_itr_t iter;

	*nodes = NULL;
	for (int i = 0; i < node_record_count; i++)
		if (mask[i])
			bit_set(m, i);
	iter = list_iterator_create(job_list);
	while ((job_ptr = list_next(iter))) {
		if (!IS_JOB_PENDING(job_ptr) || !job_ptr->sched_nodes ||
		    !job_ptr->start_time || !job_ptr->priority ||
		    (top && job_ptr->priority <= top->priority) ||
		    !job_ptr->part_ptr || !job_ptr->part_ptr->node_bitmap ||
		    !bit_overlap_any(job_ptr->part_ptr->node_bitmap, m) ||
		    libra_slurm_is_admitted(job_ptr))
			continue;
		top = job_ptr;
	}
	list_iterator_destroy(iter);
	FREE_NULL_BITMAP(m);
	if (top && libra_node_name2bitmap(top->sched_nodes, nodes)) {
		FREE_NULL_BITMAP(*nodes);
		top = NULL;
	}
	return top;
}

/*
 * Leave out of mask the nodes Slurm's backfill planned for the waiting
 * job without an SLA at the head of the queue (_top_planned()) when the
 * job's window, as Slurm sees it (its end time is its deadline and
 * LIBRA_END_GRACE), reaches past that job's planned start: as backfill
 * lets a lower job use them only if it ends before (decision 40).
 */
static void _keep_planned(bool *mask, const libra_slurm_window_t *w,
			  libra_slurm_left_out_t *out)
{
	bitstr_t *nodes;
	job_record_t *top = _top_planned(mask, &nodes);

	if (!top)
		return;
	if (top->start_time < w->end + LIBRA_END_GRACE) {
		for (int i = 0; i < node_record_count; i++) {
			if (!mask[i] || !bit_test(nodes, i))
				continue;
			mask[i] = false;
			out->planned++;
		}
		out->planned_job = top->job_id;
		out->planned_start = top->start_time;
	}
	FREE_NULL_BITMAP(nodes);
}

extern int libra_slurm_restrict(bool *mask, const libra_slurm_window_t *w,
				libra_slurm_left_out_t *out, char **err_msg)
{
	bitstr_t *reserved, *running = NULL;
	int rc;

	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	if (w->features && (rc = _features_ok(w->features, err_msg)))
		return rc;
	/* sched/libra put the job in a booking's reservation (decision 42):
	 * one that lets it use any node */
	if (w->resv_name && !libra_slurm_booking_resv(w->resv_name) &&
	    (rc = _own_resv(mask, w, err_msg)))
		return rc;
	reserved = _reserved(w, out);
	if (w->whole)
		running = _running_nodes();
	for (int i = 0; i < node_record_count; i++) {
		if (!mask[i])
			continue;
		if (reserved && bit_test(reserved, i)) {
			out->reserved++;
			mask[i] = false;
		} else if (w->features &&
			   !_node_features(node_record_table_ptr[i],
					   w->features)) {
			out->features++;
			mask[i] = false;
		} else if (w->whole && !_node_idle(i, running)) {
			out->busy++;
			mask[i] = false;
		} else if (w->tmp_mb &&
			   node_record_table_ptr[i]->tmp_disk < w->tmp_mb) {
			/* Slurm never starts it there (scratch disk is held
			 * whole, as memory; not priced yet) */
			out->tmp++;
			out->tmp_mb = w->tmp_mb;
			mask[i] = false;
		}
	}
	FREE_NULL_BITMAP(reserved);
	FREE_NULL_BITMAP(running);
	_keep_planned(mask, w, out);
	return SLURM_SUCCESS;
}

extern void libra_slurm_left_out_msg(const libra_slurm_left_out_t *out,
				     char **msg)
{
	if (out->unshared && out->slot_follows)
		xstrfmtcat(*msg, "; %d of the nodes it may use run jobs without an SLA, which do not share their CPUs (or are admitted to an --exclusive job not started yet), and the others cannot take it",
			   out->unshared);
	else if (out->unshared)
		xstrfmtcat(*msg, "; %d of the nodes it may use run jobs without an SLA, which do not share their CPUs (or are admitted to an --exclusive job not started yet), and the others cannot take it: submit it again when those end",
			   out->unshared);
	if (out->planned) {
		char t[32];

		slurm_make_time_str((time_t *) &out->planned_start, t,
				    sizeof(t));
		xstrfmtcat(*msg, "; %d of the nodes it may use are planned by Slurm's backfill for JobId=%u, the waiting job without an SLA of highest priority, from %s, and its window reaches past that",
			   out->planned, out->planned_job, t);
	}
	if (out->completing)
		xstrfmtcat(*msg, "; %d of the nodes it may use have been completing a job for longer than MessageTimeout, and Slurm starts nothing there until they finish: submit it again then",
			   out->completing);
	if (out->reserved) {
		char t[32];

		slurm_make_time_str((time_t *) &out->resv_start, t, sizeof(t));
		xstrfmtcat(*msg, "; %d of the nodes it may use are in reservation %s (from %s) or another, inside the job's window, which the job is not in",
			   out->reserved, out->resv, t);
	}
	if (out->features)
		xstrfmtcat(*msg, "; %d of the nodes it may use lack the features it asks (--constraint)",
			   out->features);
	if (out->busy)
		xstrfmtcat(*msg, "; %d of the nodes it may use run or are admitted jobs, and --exclusive takes whole idle nodes",
			   out->busy);
	if (out->tmp)
		xstrfmtcat(*msg, "; %d of the nodes it may use have less scratch disk (TmpDisk) than the %u MB it asks (--tmp)",
			   out->tmp, out->tmp_mb);
}

extern char *libra_slurm_place_names(const libra_record_t *rec)
{
	char *names = NULL;

	for (int i = 0; i < rec->nplace; i++)
		xstrfmtcat(names, "%s%s", i ? "," : "", rec->place[i].node);
	return names;
}

extern char *libra_slurm_place_nodes(const libra_place_t *place, int n)
{
	libra_ledger_t *l = libra_hub_ledger();
	libra_hostlist_t hl = hostlist_create(NULL);
	char *out;

	for (int i = 0; i < n; i++)
		hostlist_push_host(hl, libra_ledger_node_name(l,
							     place[i].node));
	hostlist_sort(hl);
	out = hostlist_ranged_string_xmalloc(hl);
	hostlist_destroy(hl);
	return out;
}
