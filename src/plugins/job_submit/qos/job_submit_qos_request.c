/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  job_submit_qos_request.c - the job as admission reads it, and what an
 *  admission writes back into it.
 *
 *  Read: the CPUs, nodes and tasks the job asks, the partition it is tried
 *  in (-p a,b: each in turn), and what would keep Slurm from starting it
 *  there, named as stock Slurm names it (design.md decision 29): the
 *  partition's state, node and time limits, --contiguous, --exclusive
 *  (whole nodes), QOS and association limits, the nodes it may use, and
 *  when the ones held by jobs without an SLA free (decision 39).
 *
 *  Written back once admitted: the time limit that lets a time-shared job
 *  run to its deadline (decision 12), its admitted nodes under
 *  libra_no_sla=slurm (decisions 27 and 38), and its record in AdminComment,
 *  beside the administrator's text (decision 29).
 *
 *  Under slurmctld's locks (job_submit()'s) and the hub lock.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "job_submit_qos.h"

static void _request(job_desc_msg_t *job_desc, libra_request_t *req)
{
	uint32_t cpus = 1, tasks_cpus;

	memset(req, 0, sizeof(*req));
	if (job_desc->min_cpus != NO_VAL && job_desc->min_cpus)
		cpus = job_desc->min_cpus;
	if (job_desc->num_tasks != NO_VAL && job_desc->num_tasks) {
		tasks_cpus = job_desc->num_tasks;
		if (job_desc->cpus_per_task != NO_VAL16 &&
		    job_desc->cpus_per_task)
			tasks_cpus *= job_desc->cpus_per_task;
		cpus = MAX(cpus, tasks_cpus);
	}
	req->cpus = (int) MIN(cpus, (uint32_t) INT32_MAX);
	if (job_desc->min_nodes != NO_VAL)
		req->min_nodes = (int) job_desc->min_nodes;
	if (job_desc->max_nodes != NO_VAL)
		req->max_nodes = (int) job_desc->max_nodes;
	/* a task's CPUs are on one node; --ntasks-per-node fixes the count */
	if (job_desc->cpus_per_task != NO_VAL16 && job_desc->cpus_per_task > 1)
		req->cpus_per_task = job_desc->cpus_per_task;
	if (job_desc->ntasks_per_node != NO_VAL16 &&
	    job_desc->ntasks_per_node > 0)
		req->cpus_per_node = job_desc->ntasks_per_node *
				     (req->cpus_per_task ? req->cpus_per_task : 1);
}

/*
 * The k-th partition the job names (-p a,b: admission tries each in turn,
 * design.md decision 29), the default one for k = 0 when it names none;
 * NULL past the last.  *name: its name as the job gave it (xfree() it).
 */
extern part_record_t *libra_qos_partition(job_desc_msg_t *job_desc, int k,
					  char **name)
{
	char *list, *tok, *save = NULL;
	part_record_t *part_ptr = NULL;

	*name = NULL;
	if (!job_desc->partition) {
		if (k)
			return NULL;
		*name = xstrdup("(default)");
		return default_part_loc;
	}
	list = xstrdup(job_desc->partition);
	for (tok = strtok_r(list, ",", &save); tok && k;
	     tok = strtok_r(NULL, ",", &save))
		k--;
	if (tok) {
		*name = xstrdup(tok);
		if (!(part_ptr = find_part_record(tok)))
			part_ptr = (part_record_t *) -1;	/* no such */
	}
	xfree(list);
	return part_ptr;
}

/*
 * What keeps a partition from starting the job at all (decision 29): its
 * state, and its node count limits, named as stock Slurm's pending
 * reasons name them.  0, or an errno with the reason in err_msg; the
 * request's node count kept to MaxNodes.
 */
static int _partition_ok(part_record_t *part_ptr, libra_request_t *req,
			 char **err_msg)
{
	const char *state = NULL;

	if (!(part_ptr->state_up & PARTITION_SUBMIT))
		state = (part_ptr->state_up & PARTITION_SCHED) ?
			"DRAIN" : "INACTIVE";
	else if (!(part_ptr->state_up & PARTITION_SCHED))
		state = "DOWN";
	if (state) {
		xstrfmtcat(*err_msg, "libra: rejected: partition %s is %s (PartitionDown/PartitionInactive: Slurm would start no job there)",
			   part_ptr->name, state);
		return (part_ptr->state_up & PARTITION_SUBMIT) ?
		       ESLURM_PARTITION_DOWN : ESLURM_PARTITION_NOT_AVAIL;
	}
	if ((part_ptr->max_nodes != INFINITE &&
	     req->min_nodes > (int) part_ptr->max_nodes) ||
	    (req->max_nodes && part_ptr->min_nodes > 1 &&
	     req->max_nodes < (int) part_ptr->min_nodes)) {
		xstrfmtcat(*err_msg, "libra: rejected: partition %s takes jobs of %u to %s nodes (PartitionNodeLimit)",
			   part_ptr->name, part_ptr->min_nodes,
			   part_ptr->max_nodes == INFINITE ? "any number of" :
			   "MaxNodes");
		return ESLURM_INVALID_NODE_COUNT;
	}
	if (part_ptr->max_nodes != INFINITE &&
	    (!req->max_nodes || req->max_nodes > (int) part_ptr->max_nodes))
		req->max_nodes = (int) part_ptr->max_nodes;
	return 0;
}

/*
 * --contiguous (decision 29): a single node is contiguous, so the job is
 * placed on one; one that needs more nodes is refused, as admission places
 * by CPU share and not in the nodes' order, and select_nodes() would not
 * start it on the nodes chosen.
 */
static int _contiguous(job_desc_msg_t *job_desc, libra_request_t *req,
		       char **err_msg)
{
	if (job_desc->contiguous != 1)
		return 0;
	if (req->min_nodes > 1) {
		xstrfmtcat(*err_msg, "libra: rejected: --contiguous over %d nodes: admission places a job by CPU share, not in the nodes' order, so Slurm could not start it where it was admitted; ask for one node, or submit it without --contiguous",
			   req->min_nodes);
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	req->max_nodes = 1;
	return 0;
}

/* Minutes from now to t, at least one. */
static uint32_t _minutes_until(double t, double now)
{
	double m = ceil((t - now) / 60.0);

	if (m < 1.0)
		return 1;
	if (m >= (double) INFINITE)
		return INFINITE - 1;
	return (uint32_t) m;
}

/*
 * The time limit of an admitted job: time-shared, it runs longer than its
 * CPU time, so it runs to the end the core gives it (libra_end_limit()),
 * or to the partition's limit.  Slurm counts it from the job's start; one
 * past part_ptr's MaxTime would hold the job (PartitionTimeLimit), so it
 * is kept to MaxTime.
 */
extern void libra_qos_set_time_limit(job_desc_msg_t *job_desc,
				     const libra_sla_t *sla, double now,
				     const part_record_t *part_ptr)
{
	double end = libra_end_limit(sla);

	if (end > 0.0)
		job_desc->time_limit = _minutes_until(end, now);
	else
		job_desc->time_limit = NO_VAL;	/* partition's limit */
	if (part_ptr && part_ptr->max_time != INFINITE &&
	    (job_desc->time_limit == NO_VAL ||
	     job_desc->time_limit > part_ptr->max_time))
		job_desc->time_limit = part_ptr->max_time;
}

/*
 * An admitted job under libra_no_sla=slurm (decision 27): slurmctld's own
 * scheduler and backfill may start it too, so it asks for its admitted
 * nodes ("n1,n2") and to time-share their CPUs with other admitted jobs
 * (OverSubscribe=YES:N; jobs without an SLA never share).  It comes first
 * wherever Slurm starts jobs (LIBRA_PRIORITY, decision 38), unless it is
 * held (--hold) or an operator gave it a priority of their own.
 */
extern void libra_qos_pin(job_desc_msg_t *job_desc, const char *nodes)
{
	if (libra_hub_params()->no_sla != LIBRA_NOSLA_SLURM || !nodes)
		return;
	xfree(job_desc->req_nodes);
	job_desc->req_nodes = xstrdup(nodes);
	if (job_desc->shared != JOB_SHARED_NONE)	/* --exclusive stays */
		job_desc->shared = JOB_SHARED_OK;
	if (job_desc->priority == NO_VAL)
		job_desc->priority = LIBRA_PRIORITY;
}

/* The record into AdminComment, the administrator's --admin-comment kept
 * beside it (decision 29). */
extern int libra_qos_store(job_desc_msg_t *job_desc, const libra_record_t *rec,
			   char **err_msg)
{
	char *text = libra_slurm_record_text(rec, job_desc->admin_comment);

	if (!text) {
		xstrfmtcat(*err_msg, "libra: internal error: cannot encode the job record");
		return SLURM_ERROR;
	}
	xfree(job_desc->admin_comment);
	job_desc->admin_comment = text;
	return SLURM_SUCCESS;
}

/*
 * The job's request (CPUs, nodes, memory, GPUs) and its partition, also
 * into the refusal record; 0, or an errno with the reason in err_msg.
 */
extern int libra_qos_read_request(job_desc_msg_t *job_desc, int k,
				  libra_request_t *req,
				  part_record_t **part_ptr,
				  libra_refusal_t *ref, char **err_msg)
{
	char *name;
	int rc;

	_request(job_desc, req);
	ref->cpus = req->cpus;
	ref->min_nodes = req->min_nodes;
	ref->max_nodes = req->max_nodes;
	*part_ptr = libra_qos_partition(job_desc, k, &name);
	if (!*part_ptr || *part_ptr == (part_record_t *) -1) {
		xstrfmtcat(*err_msg, "libra: rejected: no such partition '%s'",
			   name ? name : "(default)");
		xfree(name);
		return ESLURM_INVALID_PARTITION_NAME;
	}
	xfree(name);
	if ((rc = _partition_ok(*part_ptr, req, err_msg)))
		return rc;
	if ((rc = libra_slurm_demand(job_desc, *part_ptr, &req->demand,
				     err_msg)))
		return rc;
	ref->demand = req->demand;
	return 0;
}

/*
 * The record of an admitted job (an admission, or a binding quote taken),
 * what both have in common: its policy, ledger token, SLA, when and at
 * what prices.  The caller adds the rest.
 */
extern void libra_qos_record_init(libra_record_t *rec, libra_policy_t policy,
				  uint32_t token, const libra_sla_t *sla,
				  double now, double price, double price_mem,
				  double price_gpus)
{
	memset(rec, 0, sizeof(*rec));
	rec->policy = policy;
	rec->token = token;
	rec->sla = *sla;
	rec->admitted = now;
	rec->price = price;
	rec->price_mem = price_mem;
	rec->price_gpus = price_gpus;
}

/*
 * The partition's MaxTime against the SLA's runtime: a job that cannot
 * finish within it is refused (PartitionTimeLimit, decision 29).
 */
static int _time_fits(part_record_t *part_ptr, double runtime,
		      char **err_msg)
{
	if (part_ptr->max_time == INFINITE ||
	    runtime <= part_ptr->max_time * 60.0)
		return 0;
	xstrfmtcat(*err_msg, "libra: rejected: runtime %.0f s is longer than partition %s's MaxTime of %u min (PartitionTimeLimit)",
		   runtime, part_ptr->name, part_ptr->max_time);
	return ESLURM_INVALID_TIME_LIMIT;
}

/*
 * --exclusive (decision 29): whole nodes, priced as whole nodes.  The
 * request takes every CPU of each node it uses: as many of the largest
 * eligible nodes as its CPUs need (at least its minimum node count);
 * smaller nodes are left out, since the core places a fixed count per
 * node.
 */
static void _whole_nodes(libra_request_t *req)
{
	libra_ledger_t *l = libra_hub_ledger();
	bool *e = (bool *) req->eligible;
	int cpn = 0, nodes;

	for (int i = 0; i < libra_ledger_node_count(l); i++)
		if (e[i])
			cpn = MAX(cpn, libra_ledger_node_cpus(l, i));
	if (!cpn)
		return;
	for (int i = 0; i < libra_ledger_node_count(l); i++)
		if (e[i] && libra_ledger_node_cpus(l, i) != cpn)
			e[i] = false;
	nodes = MAX((req->cpus + cpn - 1) / cpn, MAX(req->min_nodes, 1));
	req->cpus = nodes * cpn;
	req->cpus_per_node = cpn;
	req->cpus_per_task = 0;
	req->min_nodes = nodes;
	req->max_nodes = nodes;
}

/*
 * The nodes where jobs without an SLA that do not share run until their
 * time limits (decision 39): kept in c->all, usable from when they free,
 * and left out of mask where that is after the admission's start (c->at:
 * now, a booking's begin, a binding quote's hold end).
 */
static void _free_now(admit_ctx_t *c, bool *mask)
{
	const double *free_at = c->left_out.free_at;

	xfree(c->all);
	if (!free_at)
		return;
	c->all = xcalloc(node_record_count + 1, sizeof(bool));
	for (int i = 0; i < node_record_count; i++) {
		c->all[i] = mask[i];
		if (free_at[i] > c->at)
			mask[i] = false;
	}
}

/*
 * What admission needs of a job with an SLA, in c->k's partition: its
 * request (refused, with the reason, when unreadable), whether the user may
 * hold another quote, and the nodes it may run on (c->left_out: why the
 * others were left out).  A booking (c->begin > 0) is marked booked, and
 * c->begin_txt says when it begins.
 */
extern int libra_qos_admit_request(admit_ctx_t *c)
{
	job_desc_msg_t *job_desc = c->job_desc;
	const libra_sla_t *sla = c->sla;
	libra_request_t *req = &c->req;
	libra_refusal_t *ref = c->ref;
	part_record_t **part_ptr = &c->part_ptr;
	char **err_msg = c->err_msg;
	libra_slurm_window_t w = { 0 };
	char *why = NULL;
	int rc;

	if (c->hold && (rc = libra_qos_quote_allowed(c->p, c->uid, c->now,
						     err_msg))) {
		info("%s: %s", plugin_type, *err_msg);
		return rc;
	}
	if ((rc = libra_qos_read_request(job_desc, c->k, req, part_ptr,
					 ref, err_msg)) ||
	    (rc = _contiguous(job_desc, req, err_msg)) ||
	    (rc = libra_qos_array_request(job_desc, c->bag, req, err_msg)) ||
	    /* a bag's tasks each run W-th of its work, under their limit */
	    (rc = _time_fits(*part_ptr, sla->runtime /
			     (c->bag->tasks > 0 ? c->bag->waves : 1),
			     err_msg))) {
		info("%s: %s", plugin_type, *err_msg);
		return rc;
	}
	ref->cpus = req->cpus;		/* a bag's lanes (decision 36) */
	ref->max_nodes = req->max_nodes;
	/* a request the core decides on: libra-replay decides it again */
	ref->has_sla = true;
	ref->sla = *sla;
	req->slots_per_cpu = libra_slurm_slots_per_cpu(*part_ptr);
	if (libra_slurm_preemptable(*part_ptr, &why)) {
		/* no promise Slurm may break at will (decision 30) */
		xstrfmtcat(*err_msg, "libra: rejected: %s: an SLA cannot be kept there (the site's configuration; libra-check(8) names the fix)",
			   why);
		xfree(why);
		info("%s: %s", plugin_type, *err_msg);
		snprintf(ref->verdict, sizeof(ref->verdict), "resources");
		return ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE;
	}
	if (c->begin > 0.0) {
		char t[32];

		req->booked = c->now;
		libra_qos_clock(c->begin, t, sizeof(t));
		snprintf(c->begin_txt, sizeof(c->begin_txt), " (booked to begin at %s; times from then)",
			 t);
	}
	req->eligible = libra_slurm_eligible(*part_ptr, job_desc->req_nodes,
					     job_desc->exc_nodes, &c->left_out,
					     err_msg);
	if (!req->eligible)
		return ESLURM_INVALID_NODE_NAME;
	w.features = job_desc->features;
	w.resv_name = job_desc->reservation;
	w.start = (time_t) (c->begin > 0.0 ? c->begin : c->now);
	w.end = (time_t) ceil(sla->deadline);
	w.whole = (job_desc->shared == JOB_SHARED_NONE);
	if (job_desc->pn_min_tmp_disk != NO_VAL)
		w.tmp_mb = job_desc->pn_min_tmp_disk;
	if ((rc = libra_slurm_restrict((bool *) req->eligible, &w, &c->left_out,
				       err_msg))) {
		info("%s: %s", plugin_type, *err_msg);
		return rc;
	}
	if (w.whole)
		_whole_nodes(req);
	_free_now(c, (bool *) req->eligible);
	return SLURM_SUCCESS;
}

/*
 * QOS and association limits (design.md decision 29): a job Slurm would
 * hold for a limit is refused naming it, never admitted to wait.  Asked
 * as the job would run: its CPUs, its nodes (at least one), the time
 * limit libra_qos_set_time_limit() gives it.
 */
extern int libra_qos_limits(job_desc_msg_t *job_desc, part_record_t *part_ptr,
			    const libra_sla_t *sla, const libra_request_t *req,
			    double from, libra_refusal_t *ref, char **err_msg)
{
	double end = libra_end_limit(sla);
	int rc;

	rc = libra_slurm_limits(job_desc, part_ptr, req->cpus,
				MAX(req->min_nodes, 1), &req->demand,
				end > 0.0 ? _minutes_until(end, from) : NO_VAL,
				err_msg);
	if (rc) {
		snprintf(ref->verdict, sizeof(ref->verdict), "limits");
		info("%s: %s", plugin_type, *err_msg);
	}
	return rc;
}
