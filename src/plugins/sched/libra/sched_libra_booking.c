/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra_booking.c - a Slurm advance reservation for each booking
 *  (design.md decision 42).
 *
 *  A booked job (an admitted job submitted with --begin later, decision 21)
 *  is not independent before its begin, so Slurm's backfill does not plan
 *  it and its main scheduler does not see it: without more, they start
 *  jobs without an SLA on its nodes that run into its window.  Slurm keeps
 *  a reservation's nodes over the reservation's time from every job not in
 *  it, in all its schedulers and in job_allocate() (job_test_resv()).  So
 *  the pass that first sees a booking makes one, named "libra_<job id>",
 *  on the booked nodes from the begin to the end of the job's window
 *  (libra_booking_hold()), and puts the job in it.
 *
 *  Its flags: FLEX, so a job in it may use nodes outside it and start
 *  before it; OVERLAP, so it may be made over other reservations (two
 *  bookings on one node), and a job in it may use the nodes of other
 *  reservations (MAINT ones excepted); IGNORE_JOBS, for the admitted jobs
 *  that share the booked nodes (decision 21); NO_HOLD_JOBS_AFTER_END, so
 *  a pending job in it is not held when it ends.  Its users: the owners of
 *  the jobs put in it.
 *
 *  An admitted job that time-shares a booked node (the ledger counts the
 *  booking and admitted it beside) is kept off that node by the same
 *  reservation, so before its start it is put in the booking's
 *  reservation too (libra_booking_cross()): one is enough, its FLEX and
 *  OVERLAP let the job past the others.  No other job may name a
 *  reservation of ours (job_submit/qos refuses it).
 *
 *  A reservation whose booked job has ended is deleted when nothing else
 *  is in it (libra_booking_tidy()), and ends at the end of the job's
 *  window in any case.
 *
 *  All under the pass's locks {config read, job write, node write,
 *  partition read}, which cover create_resv()'s (its RPC's: config read,
 *  job read, node write, partition read).
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/parse_time.h"
#include "src/common/uid.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm.h"
#include "sched_libra.h"

#define BOOK_FLAGS (RESERVE_FLAG_FLEX | RESERVE_FLAG_OVERLAP |		\
		    RESERVE_FLAG_IGN_JOBS | RESERVE_FLAG_NO_HOLD_JOBS)

/* The last booking whose reservation could not be made: logged once, and
 * not tried again in every pass under the locks. */
static uint32_t failed_job;

/* The end of a job's window as Slurm sees it (decision 40). */
static time_t _window_end(const libra_record_t *rec)
{
	return (time_t) ceil(rec->sla.deadline) + LIBRA_END_GRACE;
}

/* Is uid among the reservation's users? */
static bool _has_user(slurmctld_resv_t *resv, uid_t uid)
{
	for (int i = 0; i < resv->user_cnt; i++)
		if (resv->user_list[i] == uid)
			return true;
	return false;
}

/*
 * Put the job in the reservation, its owner added to the reservation's
 * users first.  Returns Slurm's code.
 */
static int _enter(job_record_t *job_ptr, slurmctld_resv_t *resv)
{
	int rc;

	if (!_has_user(resv, job_ptr->user_id)) {
		resv_desc_msg_t desc;
		char *err = NULL;

		slurm_init_resv_desc_msg(&desc);
		desc.name = xstrdup(resv->name);
		xstrfmtcat(desc.users, "+%s",
			   uid_to_string_cached(job_ptr->user_id));
		rc = libra_resv_call(update_resv, &desc, &err);
		xfree(desc.name);
		xfree(desc.users);
		if (rc != SLURM_SUCCESS) {
			error("sched/libra: %pJ: cannot add its owner to reservation %s: %s%s%s",
			      job_ptr, resv->name, slurm_strerror(rc),
			      err ? ": " : "", err ? err : "");
			xfree(err);
			return rc;
		}
	}
	job_ptr->resv_name = xstrdup(resv->name);
	if ((rc = validate_job_resv(job_ptr)) != SLURM_SUCCESS) {
		error("sched/libra: %pJ: cannot enter reservation %s: %s",
		      job_ptr, resv->name, slurm_strerror(rc));
		xfree(job_ptr->resv_name);
		job_ptr->resv_ptr = NULL;
		job_ptr->resv_id = 0;
	}
	return rc;
}

extern void libra_booking_hold(job_record_t *job_ptr, time_t now)
{
	libra_record_t rec;
	resv_desc_msg_t desc;
	slurmctld_resv_t *resv;
	char name[32], *err = NULL;
	time_t begin;
	int rc;

	if (job_ptr->resv_name || job_ptr->job_id == failed_job ||
	    !job_ptr->details ||
	    (begin = job_ptr->details->begin_time) <= now ||
	    !libra_slurm_is_admitted(job_ptr) ||
	    !libra_slurm_job_record(job_ptr, &rec))
		return;
	snprintf(name, sizeof(name), LIBRA_RESV_PREFIX "%u", job_ptr->job_id);
	if ((resv = find_resv_name(name))) {	/* ours, the job left it */
		(void) _enter(job_ptr, resv);
		libra_record_free(&rec);
		return;
	}
	slurm_init_resv_desc_msg(&desc);
	desc.name = xstrdup(name);
	desc.node_list = libra_slurm_place_names(&rec);
	desc.start_time = begin;
	desc.end_time = MAX(_window_end(&rec), begin + 1);
	desc.flags = BOOK_FLAGS;
	desc.users = xstrdup(uid_to_string_cached(job_ptr->user_id));
	libra_record_free(&rec);
	if (!desc.node_list)
		rc = ESLURM_INVALID_NODE_NAME;
	else
		rc = libra_resv_call(create_resv, &desc, &err);
	if (rc == SLURM_SUCCESS && (resv = find_resv_name(name)) &&
	    _enter(job_ptr, resv) == SLURM_SUCCESS) {
		char s[32];

		slurm_make_time_str(&begin, s, sizeof(s));
		info("sched/libra: %pJ booked from %s: reservation %s on %s",
		     job_ptr, s, name, desc.node_list);
	} else if (rc != SLURM_SUCCESS) {
		failed_job = job_ptr->job_id;
		error("sched/libra: %pJ: cannot reserve its booked nodes %s: %s%s%s; jobs without an SLA may run into its window",
		      job_ptr, desc.node_list ? desc.node_list : "(none)",
		      slurm_strerror(rc), err ? ": " : "", err ? err : "");
	}
	xfree(err);
	xfree(desc.name);
	xfree(desc.node_list);
	xfree(desc.users);
}

/*
 * Does the reservation, one of ours, hold any of the job's nodes (named by
 * "nodes", made a bitmap in *b on first need) during [start, end)?
 */
static bool _resv_crosses(slurmctld_resv_t *resv, const char *nodes,
			  bitstr_t **b, time_t start, time_t end)
{
	if (!libra_slurm_booking_resv(resv->name) || !resv->node_bitmap ||
	    resv->start_time >= end || resv->end_time <= start)
		return false;
	if (!*b && libra_node_name2bitmap((char *) nodes, b)) {
		FREE_NULL_BITMAP(*b);
		*b = bit_alloc(node_record_count);	/* none: crosses none */
	}
	return bit_overlap_any(resv->node_bitmap, *b);
}

/*
 * (A job whose booking's reservation Slurm deleted is in none again: Slurm
 * clears the resv_name of its jobs, _clear_job_resv(), so it crosses
 * another here if it must.)
 */
extern void libra_booking_cross(job_record_t *job_ptr, const char *nodes,
				time_t now)
{
	bitstr_t *b = NULL;
	slurmctld_resv_t *resv;
	libra_list_itr_t iter;
	time_t end;

	if (job_ptr->resv_name || !resv_list)
		return;
	/* the job's time as job_test_resv() counts it */
	if (job_ptr->time_limit == INFINITE || job_ptr->time_limit == NO_VAL)
		end = now + YEAR_SECONDS;
	else
		end = now + (time_t) job_ptr->time_limit * 60;
	iter = list_iterator_create(resv_list);
	while ((resv = list_next(iter)))
		if (_resv_crosses(resv, nodes, &b, now, end))
			break;
	list_iterator_destroy(iter);
	FREE_NULL_BITMAP(b);
	if (resv && _enter(job_ptr, resv) == SLURM_SUCCESS)
		verbose("sched/libra: %pJ shares booked nodes: in reservation %s",
			job_ptr, resv->name);
}

extern void libra_booking_tidy(time_t now)
{
	slurmctld_resv_t *resv;
	libra_list_itr_t iter;
	char **gone = NULL;
	int ngone = 0;

	if (!resv_list)
		return;
	iter = list_iterator_create(resv_list);
	while ((resv = list_next(iter))) {
		job_record_t *job_ptr;

		if (!libra_slurm_booking_resv(resv->name) ||
		    resv->end_time <= now)	/* Slurm ends it */
			continue;
		job_ptr = find_job_record((uint32_t) strtoul(
			resv->name + strlen(LIBRA_RESV_PREFIX), NULL, 10));
		if (job_ptr && !IS_JOB_FINISHED(job_ptr) &&
		    job_ptr->resv_ptr == resv)
			continue;
		xrecalloc(gone, ngone + 1, sizeof(*gone));
		gone[ngone++] = xstrdup(resv->name);
	}
	list_iterator_destroy(iter);
	for (int i = 0; i < ngone; i++) {
		reservation_name_msg_t msg = { .name = gone[i] };
		int rc = delete_resv(&msg);

		if (rc == SLURM_SUCCESS)
			info("sched/libra: reservation %s deleted: its booked job has ended",
			     gone[i]);
		else if (rc != ESLURM_RESERVATION_BUSY)
			error("sched/libra: cannot delete reservation %s: %s",
			      gone[i], slurm_strerror(rc));
		xfree(gone[i]);
	}
	xfree(gone);
}
