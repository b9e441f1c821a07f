/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  job_submit_qos_modify.c - job_modify(): what may change in a job once
 *  it is admitted.
 *
 *  An admitted job's SLA, size, partition, time limit and whatever could
 *  keep it from starting in time (start time, dependencies, memory,
 *  features, GRES, licenses, reservation) can be changed by operators only
 *  (design.md decision 14), and so can whatever is not on the list of
 *  harmless changes (qos_update.c, decision 37).  A refusal is logged with
 *  its reason; Slurm 24.11 and later also return it to the user (22.05
 *  gives this hook no message, see LIBRA_JOB_MODIFY in libra_compat.h).
 *  Also here: the nodes' progress reports (decision 34), an owner's hold
 *  (decision 37), an array's throttle (decision 36), an operator's
 *  AdminComment beside the record (decision 29), a best-effort job's
 *  updates (decision 11), a booking's reservation (decision 42).
 *
 *  Job write lock held (the update RPC's).
\*****************************************************************************/

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "job_submit_qos.h"
#include "qos_update.h"

/* Fields whose change by a user would alter an admitted SLA or price. */
static const char *_tampered(job_desc_msg_t *d)
{
	if (d->comment)
		return "the comment (SLA)";
	if (d->admin_comment)
		return "the AdminComment (record)";
	if (d->deadline)
		return "the deadline";
	if (d->time_limit != NO_VAL)
		return "the time limit";
	if (d->time_min != NO_VAL)
		return "the minimum time limit";
	if (d->min_cpus != NO_VAL || d->max_cpus != NO_VAL ||
	    d->num_tasks != NO_VAL || d->cpus_per_task != NO_VAL16 ||
	    d->pn_min_cpus != NO_VAL16 || d->ntasks_per_node != NO_VAL16)
		return "the CPU count";
	if (d->min_nodes != NO_VAL || d->max_nodes != NO_VAL)
		return "the node count";
	if (d->partition)
		return "the partition";
	if (d->req_nodes || d->exc_nodes)
		return "the node list";
	if (d->qos)
		return "the QOS";
	if (d->spank_job_env_size)
		return "the SLA options";
	/* an array's lanes are its throttle (decision 36) */
	if (d->array_inx)
		return "the array's throttle";
	/* what could keep it from starting on its admitted nodes in time */
	if (d->begin_time)
		return "the start time";
	if (d->dependency)
		return "the dependencies";
	if (d->pn_min_memory != NO_VAL64 || d->mem_per_tres)
		return "the memory";
	if (d->features || d->cluster_features)
		return "the node features";
	if (d->tres_per_job || d->tres_per_node || d->tres_per_socket ||
	    d->tres_per_task)
		return "the generic resources";
	if (d->licenses)
		return "the licenses";
	if (d->reservation)
		return "the reservation";
	if (d->contiguous != NO_VAL16 || d->core_spec != NO_VAL16)
		return "the node layout";
	/* a hold (0) or a release (INFINITE) only: its place in the
	 * queue is its admission's (decision 38) */
	if (d->priority != NO_VAL && d->priority != 0 &&
	    d->priority != INFINITE)
		return "the priority";
	return NULL;
}

/*
 * A best-effort job (no SLA, design.md decision 11) is updated as under
 * stock Slurm: it holds no admitted share and has no price to protect.
 * Refused only: what would turn it into an SLA job without admission, and
 * its record.
 */
static const char *_tampered_best_effort(job_desc_msg_t *d)
{
	if (d->comment && libra_sla_text_is_sla(d->comment))
		return "the comment into an SLA (submit a new job for one)";
	if (d->admin_comment)
		return "the AdminComment (record)";
	if (d->spank_job_env_size)
		return "the SLA options";
	return NULL;
}

/*
 * An administrator's AdminComment on a job with a record goes beside the
 * record, which stays (decision 29): the record with its "admin" member
 * set to the new text (removed by an empty one).  A text that is a record
 * itself is an operator editing the record, taken as it is.
 */
static void _admin_beside_record(job_desc_msg_t *job_desc,
				 job_record_t *job_ptr)
{
	char *text;

	if (!job_desc->admin_comment ||
	    libra_slurm_is_record(job_desc->admin_comment))
		return;
	text = libra_record_json_with_admin(job_ptr->admin_comment,
					    job_desc->admin_comment);
	if (!text) {
		error("%s: %pJ: its record is unreadable; AdminComment replaced by the operator's text",
		      plugin_type, job_ptr);
		return;
	}
	xfree(job_desc->admin_comment);
	job_desc->admin_comment = xstrdup(text);
	free(text);
}

/*
 * A node's report of a job's progress (decision 34): an AdminComment
 * update from slurmstepd (root) reading LIBRA_PROGRESS_PREFIX and the
 * CPU-seconds per CPU done.  It re-plans the job and is never stored.
 */
static int _progress(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		     uint32_t submit_uid, char **err_msg)
{
	const char *v = job_desc->admin_comment + strlen(LIBRA_PROGRESS_PREFIX);
	char *end = NULL;
	double done = strtod(v, &end);

	if (!validate_operator(submit_uid)) {
		error("%s: refused a progress report on %pJ from uid %u: reports come from the nodes",
		      plugin_type, job_ptr, submit_uid);
		if (err_msg)
			xstrfmtcat(*err_msg, "libra: refused: progress reports come from the nodes (slurmstepd)");
		return ESLURM_ACCESS_DENIED;
	}
	if (end == v || *end || !isfinite(done) || done < 0.0) {
		error("%s: %pJ: progress report '%s' does not read as CPU-seconds done; ignored",
		      plugin_type, job_ptr, job_desc->admin_comment);
	} else {
		libra_slurm_replan(job_ptr, done, libra_qos_now());
	}
	xfree(job_desc->admin_comment);	/* AdminComment keeps the record */
	return SLURM_SUCCESS;
}

/*
 * The owner holds an admitted job that has not started (scontrol hold,
 * uhold: priority 0): the time from now until it starts is the owner's,
 * not the provider's (libra_record_owner_stop(), decision 37).
 */
static void _owner_hold(job_desc_msg_t *job_desc, job_record_t *job_ptr,
			uint32_t submit_uid)
{
	libra_record_t rec;

	if (job_desc->priority != 0 || submit_uid != job_ptr->user_id ||
	    !IS_JOB_PENDING(job_ptr) || !libra_slurm_job_record(job_ptr, &rec))
		return;
	if (!rec.best_effort && !rec.settled && rec.owner_since <= 0.0) {
		libra_record_owner_stop(&rec, libra_qos_now());
		libra_slurm_store_record(job_ptr, &rec);
		info("%s: %pJ held by its owner (uid %u): the time until it starts is the owner's, not the provider's",
		     plugin_type, job_ptr, submit_uid);
	}
	libra_record_free(&rec);
}

/*
 * What else an update of an admitted job changes that is not known to be
 * harmless (qos_update.c, the allow-list; decision 37), or NULL.
 */
static const char *_unknown_change(job_desc_msg_t *job_desc,
				   job_record_t *job_ptr, uint32_t submit_uid)
{
	size_t off;

	if (!libra_update_unknown(job_desc, &off))
		return NULL;
	if (!validate_operator(submit_uid))
		error("%s: update of admitted %pJ by uid %u changes job_desc_msg_t at byte %zu, not on the list of harmless changes",
		      plugin_type, job_ptr, submit_uid, off);
	return "what is not on the list of harmless changes (job_submit_qos(8))";
}

/*
 * An array's throttle is its admitted lanes (decision 36), but Slurm's
 * _update_job() sets it (array_recs->max_run_tasks) before it calls this
 * hook, in every release, so a refusal would leave it changed: put the
 * lanes back.  Job write lock held (the update RPC's).
 */
static void _keep_lanes(job_record_t *job_ptr)
{
	libra_record_t rec;

	if (!job_ptr->array_recs || !libra_slurm_job_record(job_ptr, &rec))
		return;
	if (rec.bag.lanes > 0 &&
	    job_ptr->array_recs->max_run_tasks != (uint32_t) rec.bag.lanes) {
		info("%s: %pJ: its throttle stays %d, the lanes it was admitted with (not %u)",
		     plugin_type, job_ptr, rec.bag.lanes,
		     job_ptr->array_recs->max_run_tasks);
		job_ptr->array_recs->max_run_tasks = rec.bag.lanes;
	}
	libra_record_free(&rec);
}

static int _job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		       uint32_t submit_uid, char **err_msg)
{
	const char *what;
	int rc;

	if (job_desc->admin_comment &&
	    !strncmp(job_desc->admin_comment, LIBRA_PROGRESS_PREFIX,
		     strlen(LIBRA_PROGRESS_PREFIX)))
		return _progress(job_desc, job_ptr, submit_uid, err_msg);
	if ((rc = libra_qos_booking_resv_refused(job_desc, submit_uid,
						 err_msg)))
		return rc;
	if (!libra_slurm_is_record(job_ptr->admin_comment))
		return SLURM_SUCCESS;
	if (libra_record_text_is_best_effort(job_ptr->admin_comment))
		what = _tampered_best_effort(job_desc);
	else if (!(what = _tampered(job_desc)))
		what = _unknown_change(job_desc, job_ptr, submit_uid);
	if (!what) {
		_owner_hold(job_desc, job_ptr, submit_uid);
		/* a release: sched/libra starts it at once (decision 38) */
		if (job_desc->priority == INFINITE)
			libra_hub_wake();
		return SLURM_SUCCESS;
	}
	if (validate_operator(submit_uid)) {
		info("%s: operator uid %u changes %s of admitted %pJ",
		     plugin_type, submit_uid, what, job_ptr);
		_admin_beside_record(job_desc, job_ptr);
		return SLURM_SUCCESS;
	}
	if (job_desc->array_inx)
		_keep_lanes(job_ptr);
	error("%s: refused update of admitted %pJ by uid %u: changing %s would alter its SLA or price; ask an operator",
	      plugin_type, job_ptr, submit_uid, what);
	/* no err_msg on Slurm 22.05 (LIBRA_JOB_MODIFY) */
	if (err_msg)
		xstrfmtcat(*err_msg, "libra: refused: changing %s would alter the job's SLA or price; ask an operator",
			   what);
	return ESLURM_ACCESS_DENIED;
}

/* job_modify(), with or without err_msg as the release has it */
LIBRA_JOB_MODIFY(_job_modify)
