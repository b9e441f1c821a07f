/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_slurm_limits.c - what Slurm's configuration allows an SLA job,
 *  for the slurmctld plugins (see libra_slurm.h): a partition's job slots
 *  per CPU and preemption, licenses, QOS and association limits
 *  (decision 29).
\*****************************************************************************/

#include <math.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/assoc_mgr.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/macros.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/acct_policy.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm.h"

extern int libra_slurm_slots_per_cpu(part_record_t *part_ptr)
{
	uint16_t share;

	if (!part_ptr)
		return 0;
	share = part_ptr->max_share & ~SHARED_FORCE;
	/* OverSubscribe=NO or EXCLUSIVE: one job per CPU */
	return share > 1 ? share : 1;
}

extern bool libra_slurm_preemptable(part_record_t *part_ptr, char **why)
{
	uint16_t mode = slurm_conf.preempt_mode;
	part_record_t *p, *top = NULL;
	libra_list_itr_t iter;

	LIBRA_LOCKED(PART_LOCK, READ_LOCK);
	if (mode & PREEMPT_MODE_GANG) {
		xstrfmtcat(*why, "PreemptMode=%s: Slurm's gang scheduling suspends jobs that share CPUs in turns, as admitted jobs do",
			   preempt_mode_string(mode));
		return true;
	}
	/* preempt/none; or PreemptMode=OFF, which disables preemption */
	if (!part_ptr || mode == PREEMPT_MODE_OFF ||
	    !xstrcasestr(slurm_conf.preempt_type, "partition_prio"))
		return false;
	if (part_ptr->preempt_mode != NO_VAL16)
		mode = part_ptr->preempt_mode;
	if (mode == PREEMPT_MODE_OFF)
		return false;
	/* preempt/partition_prio's rule: a higher tier sharing nodes */
	iter = list_iterator_create(part_list);
	while ((p = list_next(iter))) {
		if (p->priority_tier > part_ptr->priority_tier &&
		    p->node_bitmap && part_ptr->node_bitmap &&
		    bit_overlap_any(p->node_bitmap, part_ptr->node_bitmap) &&
		    (!top || p->priority_tier > top->priority_tier))
			top = p;
	}
	list_iterator_destroy(iter);
	if (!top)
		return false;
	xstrfmtcat(*why, "jobs of partition %s (PriorityTier %u, PreemptMode=%s) can be preempted by jobs of partition %s (PriorityTier %u) on the same nodes",
		   part_ptr->name, part_ptr->priority_tier,
		   preempt_mode_string(mode), top->name, top->priority_tier);
	return true;
}

/* ---- licenses (design.md decision 29) ------------------------------------ */

/* Holds of one license, grown as the job table is walked. */
typedef struct {
	const char *name;
	libra_license_hold_t *h;
	int n, cap;
} _lic_holds_t;

/* Add what lic holds of holds->name until "until" (lic unreadable: nothing,
 * Slurm read it when the job was submitted, or it is an "or" of 26.05). */
static void _lic_hold(_lic_holds_t *holds, const char *lic, double until)
{
	libra_license_ask_t a[LIBRA_LICENSES_MAX];
	int i, n = libra_license_parse(lic, a, LIBRA_LICENSES_MAX);

	for (i = 0; i < n; i++) {
		if (strcmp(a[i].name, holds->name))
			continue;
		if (holds->n == holds->cap) {
			holds->cap = holds->cap ? 2 * holds->cap : 16;
			xrecalloc(holds->h, holds->cap, sizeof(*holds->h));
		}
		holds->h[holds->n].count = a[i].count;
		holds->h[holds->n].until = until;
		holds->n++;
	}
}

/* When a job that has started gives its licenses back: its end (now at
 * the earliest: a completing job holds them until its epilog is done). */
static double _lic_until(job_record_t *job_ptr, double now)
{
	if (IS_JOB_RUNNING(job_ptr) && job_ptr->time_limit == INFINITE)
		return INFINITY;
	return MAX((double) job_ptr->end_time, now + 1.0);
}

/* The holds of holds->name: the job table's and extra's (those whose job
 * is not in the table yet). */
static void _lic_holds(_lic_holds_t *holds, double now,
		       const libra_slurm_lic_hold_t *extra, int nextra)
{
	uint32_t *seen = NULL;
	int i, j, nseen = 0;
	libra_list_itr_t iter;
	job_record_t *job_ptr;
	libra_record_t rec;

	iter = list_iterator_create(job_list);
	while ((job_ptr = list_next(iter))) {
		bool started = IS_JOB_RUNNING(job_ptr) ||
			       IS_JOB_SUSPENDED(job_ptr) ||
			       IS_JOB_COMPLETING(job_ptr);

		if (!job_ptr->licenses ||
		    (!started && !IS_JOB_PENDING(job_ptr)))
			continue;
		if (started)
			_lic_hold(holds, job_ptr->licenses,
				  _lic_until(job_ptr, now));
		if (!libra_slurm_job_record(job_ptr, &rec))
			continue;
		if (!started && !rec.best_effort)
			_lic_hold(holds, job_ptr->licenses, rec.sla.deadline);
		/* its admission's token, if the sync has not re-keyed it */
		xrecalloc(seen, nseen + 1, sizeof(*seen));
		seen[nseen++] = rec.token;
		libra_record_free(&rec);
	}
	list_iterator_destroy(iter);
	for (i = 0; i < nextra; i++) {
		for (j = 0; j < nseen && seen[j] != extra[i].token; j++)
			;
		if (j == nseen)
			_lic_hold(holds, extra[i].licenses, extra[i].until);
	}
	xfree(seen);
}

extern int libra_slurm_licenses(const char *lic, double from, double now,
				const libra_slurm_lic_hold_t *extra,
				int nextra, char **err_msg)
{
	libra_license_ask_t a[LIBRA_LICENSES_MAX];
	int i, n, rc = SLURM_SUCCESS;
	uint32_t total, free_now;
	_lic_holds_t holds;
	double when;
	char span[32];

	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	if ((n = libra_license_parse(lic, a, LIBRA_LICENSES_MAX)) < 0) {
		xstrfmtcat(*err_msg, "libra: rejected: licenses: '%s' cannot be counted by admission (an SLA job asks licenses as name[:count], separated by commas, at most %d names, no '|')",
			   lic, LIBRA_LICENSES_MAX);
		return ESLURM_INVALID_LICENSES;
	}
	for (i = 0; i < n && !rc; i++) {
		if (!a[i].count)
			continue;
		total = get_total_license_cnt(a[i].name);
		if (a[i].count > total) {
			xstrfmtcat(*err_msg, "libra: rejected: licenses: %s: %u asked, %u configured",
				   a[i].name, a[i].count, total);
			return ESLURM_INVALID_LICENSES;
		}
		memset(&holds, 0, sizeof(holds));
		holds.name = a[i].name;
		_lic_holds(&holds, now, extra, nextra);
		free_now = libra_license_free(total, holds.h, holds.n, from);
		if (free_now < a[i].count) {
			when = libra_license_free_when(total, holds.h, holds.n,
						       a[i].count, from);
			xstrfmtcat(*err_msg, "libra: rejected: licenses: %s: %u asked, %u free",
				   a[i].name, a[i].count, free_now);
			if (isinf(when)) {
				xstrfmtcat(*err_msg, ", held by jobs without a time limit");
			} else {
				libra_format_duration(when - now, span,
						      sizeof(span));
				xstrfmtcat(*err_msg, " until %s from now, when jobs holding them end",
					   span);
			}
			rc = LIBRA_ESLURM_LICENSES_HELD;
		}
		xfree(holds.h);
	}
	return rc;
}

/* ---- QOS and association limits (design.md decision 29) ------------------ */

/*
 * The TRES a pending job of this request counts against limits, as
 * slurmctld sets a new job's tres_req_cnt (_job_create()): CPUs, nodes,
 * memory from Slurm's own job_get_tres_mem() (per CPU times the CPUs, per
 * node times the nodes; all of a node's, --mem=0, counts 0 until
 * allocated, as for any pending job), GPUs on gres/gpu when it is a TRES,
 * and billing from the partition's TRESBillingWeights.  assoc_mgr's TRES
 * lock held.
 */
static void _tres_asked(uint64_t *tres, part_record_t *part_ptr, int cpus,
			int nodes, const libra_demand_t *d)
{
	slurmdb_tres_rec_t gpu = { .type = "gres", .name = "gpu" };
	uint64_t pn_mem = 0;
	int pos, gpus;

	tres[TRES_ARRAY_CPU] = (uint64_t) cpus;
	tres[TRES_ARRAY_NODE] = (uint64_t) nodes;
	if (d->mem_per_cpu)
		pn_mem = d->mem_per_cpu | MEM_PER_CPU;
	else if (d->mem_per_node && !d->mem_whole_node)
		pn_mem = d->mem_per_node;
	if (pn_mem)
		tres[TRES_ARRAY_MEM] = job_get_tres_mem(NULL, pn_mem, cpus,
							 nodes, part_ptr, NULL,
							 true, NO_VAL16,
							 NO_VAL);
	gpus = d->gpus ? d->gpus : d->gpus_per_node * nodes;
	if (gpus > 0 && (pos = assoc_mgr_find_tres_pos(&gpu, true)) >= 0)
		tres[pos] = (uint64_t) gpus;
	tres[TRES_ARRAY_BILLING] =
		(uint64_t) assoc_mgr_tres_weighted(tres,
						   part_ptr->billing_weights,
						   slurm_conf.priority_flags,
						   true);
}

/* Slurm's verdict on a job record made for the question; false: held,
 * with the reason in job_ptr->state_reason.  assoc_mgr locks held. */
static bool _limits_runnable(job_record_t *job_ptr, int cpus, int nodes,
			     const libra_demand_t *d)
{
	uint64_t *tres = xcalloc(slurmctld_tres_cnt, sizeof(*tres));
	bool ok;

	_tres_asked(tres, job_ptr->part_ptr, cpus, nodes, d);
	ok = acct_policy_job_runnable_pre_select(job_ptr, true) &&
	     acct_policy_job_runnable_post_select(job_ptr, tres, true);
	xfree(tres);
	return ok;
}

extern int libra_slurm_limits(job_desc_msg_t *job_desc,
			      part_record_t *part_ptr, int cpus, int nodes,
			      const libra_demand_t *d, uint32_t time_limit,
			      char **err_msg)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK,
				   .qos = LIBRA_ACCT_POLICY_QOS_LOCK,
				   .tres = READ_LOCK, .user = READ_LOCK };
	slurmdb_assoc_rec_t assoc_rec, *assoc_ptr = NULL;
	slurmdb_qos_rec_t qos_rec, *qos_ptr = NULL;
	libra_job_details_t details;
	job_record_t job;
	bool ok = true;

	if (!(accounting_enforce & ACCOUNTING_ENFORCE_LIMITS) || !part_ptr)
		return SLURM_SUCCESS;
	memset(&assoc_rec, 0, sizeof(assoc_rec));
	assoc_rec.acct = job_desc->account;
	assoc_rec.partition = part_ptr->name;
	assoc_rec.uid = job_desc->user_id;
	memset(&qos_rec, 0, sizeof(qos_rec));
	qos_rec.name = job_desc->qos;
	memset(&job, 0, sizeof(job));
	memset(&details, 0, sizeof(details));

	assoc_mgr_lock(&locks);
	if (assoc_mgr_fill_in_assoc(acct_db_conn, &assoc_rec,
				    accounting_enforce, &assoc_ptr, true) ||
	    !assoc_ptr)
		goto unlock;
	assoc_mgr_get_default_qos_info(assoc_ptr, &qos_rec);
	if (assoc_mgr_fill_in_qos(acct_db_conn, &qos_rec, accounting_enforce,
				  &qos_ptr, true))
		goto unlock;
	job.magic = JOB_MAGIC;
	job.job_state = JOB_PENDING;
	job.user_id = job_desc->user_id;
	job.assoc_id = assoc_ptr->id;
	job.assoc_ptr = assoc_ptr;
	job.account = assoc_ptr->acct;
	job.partition = part_ptr->name;
	job.part_ptr = part_ptr;
	job.qos_ptr = qos_ptr;
	job.qos_id = qos_ptr ? qos_ptr->id : 0;
	job.time_limit = time_limit;
	details.min_cpus = (uint32_t) cpus;
	details.min_nodes = (uint32_t) nodes;
	job.details = &details;
	job.limit_set.tres = xcalloc(slurmctld_tres_cnt,
				     sizeof(*job.limit_set.tres));
	ok = _limits_runnable(&job, cpus, nodes, d);
unlock:
	assoc_mgr_unlock(&locks);
	if (!ok) {
		xstrfmtcat(*err_msg, "libra: rejected: limits: Slurm would hold the job with reason %s (account %s, QOS %s), so it cannot be admitted to meet a deadline; submit it once the limit allows",
			   libra_job_reason_string(job.state_reason),
			   assoc_ptr->acct ? assoc_ptr->acct : "?",
			   qos_ptr ? qos_ptr->name : "none");
	}
	xfree(job.state_desc);
	xfree(job.limit_set.tres);
	return ok ? SLURM_SUCCESS : ESLURM_ACCOUNTING_POLICY;
}
