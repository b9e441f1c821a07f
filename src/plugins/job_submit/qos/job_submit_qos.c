/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  job_submit_qos.c - admit or refuse jobs at submission by their SLA.
 *
 *  A thin adapter over the policy core (src/core): it reads the SLA the
 *  user wrote (--comment fields, the sbatch options of the libra SPANK
 *  plugin, Slurm's --deadline and --time), asks the configured policy for a
 *  quote over the shared ledger, and then either
 *   - admits the job: the SLA, policy, placement, price and admission time
 *     go into AdminComment as JSON (the job's record), the time limit is set
 *     so that a time-shared job can run to its deadline, the admission is
 *     committed in the ledger and sched/libra is woken to start it; or
 *   - refuses it with one line that says why and what would be admitted
 *     instead (a later deadline at the same budget, or the budget needed at
 *     the same deadline).
 *
 *  Locks: slurmctld holds the config, job, node and partition read locks
 *  while job_submit() runs; we take only the hub lock, after them.  Two
 *  submissions are admitted one at a time under the hub lock, each seeing
 *  the other's commitment, so they never share the same free capacity.
 *
 *  This file: the plugin's init() and fini(), job_submit(), and the SLA
 *  read from the job: the quote it takes or asks for (design.md decision
 *  20), a booking's --begin (decision 21), a job without an SLA (decision
 *  27), a booking's reservation asked by no operator (decision 42).  The
 *  rest of the plugin, by concern, shares job_submit_qos.h:
 *   - job_submit_qos_request.c: the job's request, and what an admission
 *     writes back into the job;
 *   - job_submit_qos_admit.c: the admission of a job with an SLA;
 *   - job_submit_qos_refuse.c: refusals, their counter-offers, their log;
 *   - job_submit_qos_quote.c: binding quotes (quote=hold, quote=N);
 *   - job_submit_qos_array.c: a job array as a bag of tasks;
 *   - job_submit_qos_modify.c: job_modify(), with the allow-list of
 *     qos_update.c.
\*****************************************************************************/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "job_submit_qos.h"
#include "price.h"
#include "qos_update.h"

const char plugin_name[] = "slurm-libra SLA admission (job_submit/qos)";
const char plugin_type[] = "job_submit/qos";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* sbatch options of the libra SPANK plugin, in the job's SPANK
 * environment: the SLA keys they set are the core's table of keys
 * (libra_sla_key_of_env(), sla.h). */
#define SPANK_OPT_PREFIX "_SLURM_SPANK_OPTION_libra_"

extern int init(void)
{
	if (libra_hub_init())
		return SLURM_ERROR;
	libra_hub_lock();
	libra_slurm_params_current(plugin_type);
	libra_hub_unlock();
	libra_update_init();
	verbose("%s: loaded", plugin_type);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	libra_qos_admit_fini();
	libra_update_fini();
	libra_hub_fini();
	return SLURM_SUCCESS;
}

/* The Slurm error code for an SLA that does not parse. */
extern int libra_qos_sla_errno(libra_sla_err_t err, uint32_t field)
{
	if (err == LIBRA_SLA_EDEADLINE)
		return ESLURM_INVALID_TIME_LIMIT;
	if (field & LIBRA_SLA_TIMES)
		return ESLURM_INVALID_TIME_VALUE;
	return LIBRA_E_INVALID;
}

/* The SLA fields given as sbatch/salloc options (SPANK). */
static int _sla_from_options(job_desc_msg_t *job_desc, double now,
			     libra_sla_t *sla, char **err_msg)
{
	char err[256];

	memset(sla, 0, sizeof(*sla));
	sla->submit = now;
	for (uint32_t i = 0; i < job_desc->spank_job_env_size; i++) {
		const char *env = job_desc->spank_job_env[i];
		const char *opt = env ? strstr(env, SPANK_OPT_PREFIX) : NULL;
		const libra_sla_key_t *k;
		const char *eq;
		char name[32];
		size_t len;
		libra_sla_err_t rc;

		if (!opt)
			continue;
		opt += strlen(SPANK_OPT_PREFIX);
		if (!(eq = strchr(opt, '=')) ||
		    (len = (size_t) (eq - opt)) >= sizeof(name))
			continue;
		memcpy(name, opt, len);
		name[len] = '\0';
		if (!(k = libra_sla_key_of_env(name, len))) {
			xstrfmtcat(*err_msg, "libra: rejected: unknown option --%s",
				   name);
			return LIBRA_E_INVALID;
		}
		rc = libra_sla_parse_field(k->key, eq + 1, now, sla, err,
					   sizeof(err));
		if (rc) {
			/* name the option instead of its key */
			const char *why;
			uint32_t field = libra_sla_err_field(err, &why);

			xstrfmtcat(*err_msg, "libra: rejected: --%s: %s",
				   k->option, field == k->bit ? why : err);
			return libra_qos_sla_errno(rc, field);
		}
	}
	return SLURM_SUCCESS;
}

/*
 * Build the job's SLA.  *has_sla is false for a job that carries no Libra
 * field and no --deadline.  Returns SLURM_SUCCESS or an error with err_msg.
 */
static int _build_sla(job_desc_msg_t *job_desc, double now, libra_sla_t *sla,
		      bool *has_sla, char **err_msg)
{
	libra_sla_t opts;
	double time_limit = 0.0, deadline = 0.0;
	char err[256];
	libra_sla_err_t rc;
	int code;

	memset(sla, 0, sizeof(*sla));
	sla->submit = now;
	if (job_desc->comment && libra_sla_text_is_sla(job_desc->comment)) {
		rc = libra_sla_parse(job_desc->comment, now, sla, err,
				     sizeof(err));
		if (rc) {
			xstrfmtcat(*err_msg, "libra: rejected: --comment: %s",
				   err);
			return libra_qos_sla_errno(
				rc, libra_sla_err_field(err, NULL));
		}
	}
	if ((code = _sla_from_options(job_desc, now, &opts, err_msg)))
		return code;
	rc = libra_sla_merge(sla, "--comment", &opts, "the libra options",
			     err, sizeof(err));
	if (rc) {
		xstrfmtcat(*err_msg, "libra: rejected: %s", err);
		return LIBRA_E_INVALID;
	}
	if (job_desc->deadline)
		deadline = (double) job_desc->deadline;
	*has_sla = sla->set || deadline > 0.0;
	if (!*has_sla)
		return SLURM_SUCCESS;
	if (libra_sla_takes_quote(sla) || libra_sla_releases_quote(sla)) {
		/* the quote carries the SLA (decision 20); a release makes
		 * no job */
		if ((rc = libra_sla_check_quote(sla, err, sizeof(err)))) {
			xstrfmtcat(*err_msg, "libra: rejected: %s (the libra options included)",
				   err);
			return LIBRA_E_INVALID;
		}
		if (deadline > 0.0) {
			xstrfmtcat(*err_msg, "libra: rejected: quote: quote %u %s; give no --deadline with it",
				   libra_sla_quote_id(sla),
				   libra_sla_releases_quote(sla) ?
				   "is given back and makes no job" :
				   "carries its own SLA");
			return ESLURM_INVALID_TIME_VALUE;
		}
		return SLURM_SUCCESS;
	}
	if ((job_desc->time_limit != NO_VAL) &&
	    (job_desc->time_limit != INFINITE))
		time_limit = job_desc->time_limit * 60.0;
	rc = libra_sla_finish(sla, time_limit, deadline, LIBRA_SLA_RUNTIME_LATER,
			      err, sizeof(err));
	if (rc) {
		xstrfmtcat(*err_msg, "libra: rejected: %s", err);
		return libra_qos_sla_errno(rc, libra_sla_err_field(err, NULL));
	}
	return SLURM_SUCCESS;
}

/*
 * A job without an SLA: Slurm's, untouched but for --oversubscribe
 * (libra_no_sla=slurm, decision 27); best effort at the base price; or
 * refused.
 */
static int _no_sla(job_desc_msg_t *job_desc, const libra_params_t *p,
		   double now, char **err_msg)
{
	libra_record_t rec;

	if (p->no_sla == LIBRA_NOSLA_REJECT) {
		xstrfmtcat(*err_msg, "libra: rejected: this cluster requires an SLA, e.g. --comment=runtime=30m,deadline=2h,budget=10");
		return LIBRA_E_POLICY;
	}
	if (p->no_sla == LIBRA_NOSLA_SLURM) {
		/*
		 * Its CPUs are its own, as under OverSubscribe=NO: only
		 * admitted jobs time-share (partitions are OverSubscribe=
		 * YES:N, where --oversubscribe would let it share theirs).
		 */
		if (job_desc->shared == JOB_SHARED_OK)
			job_desc->shared = NO_VAL16;
		return SLURM_SUCCESS;
	}
	memset(&rec, 0, sizeof(rec));
	rec.policy = p->policy;
	rec.best_effort = true;
	rec.admitted = now;
	rec.rate = libra_price_base_per_sec(p);
	return libra_qos_store(job_desc, &rec, err_msg);
}

/*
 * What is wrong with booking an SLA to begin at "begin" (decision 21), or
 * NULL.  A quote fixes its own start; a booking is binding already.
 */
static const char *_booking_error(const libra_sla_t *sla, double begin,
				  double now)
{
	if (libra_sla_takes_quote(sla))
		return "a job taking a quote starts when the quote says; submit it without --begin";
	if (sla->set & LIBRA_SLA_QUOTE)
		return "a booked job is priced and held at once: it needs no quote=hold";
	if (begin - now > OFFER_HORIZON)
		return "a job with an SLA is booked at most 30 days ahead";
	return NULL;
}

/*
 * The time of a decision, to the microsecond: several admissions happen in
 * one second, and their records must say in which order (libra-replay).
 */
extern double libra_qos_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A booking's reservation is sched/libra's (design.md decision 42): it lets
 * its jobs use any node, past every other booking, so no one but an
 * operator may ask for it (--reservation at submission, or an update).
 * err_msg may be NULL (job_modify() on 22.05).
 */
extern int libra_qos_booking_resv_refused(job_desc_msg_t *job_desc,
					  uint32_t submit_uid, char **err_msg)
{
	if (!job_desc->reservation ||
	    !libra_slurm_booking_resv(job_desc->reservation) ||
	    validate_operator(submit_uid))
		return SLURM_SUCCESS;
	info("%s: uid %u: refused --reservation=%s: a booking's reservation",
	     plugin_type, submit_uid, job_desc->reservation);
	if (err_msg)
		xstrfmtcat(*err_msg, "libra: rejected: --reservation=%s: reservations named %s<job id> hold a booked job's nodes for it (sched_libra(8)); no other job may ask for one",
			   job_desc->reservation, LIBRA_RESV_PREFIX);
	return ESLURM_RESERVATION_ACCESS;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	libra_refusal_t ref;
	double now = libra_qos_now();
	libra_sla_t sla;
	libra_bag_t bag = { 0 };	/* a job array's (decision 36) */
	bool has_sla = false, quoting, released = false;
	double begin = 0.0;
	const char *err;
	int rc;

	/* Nothing the user sent may pose as our record. */
	if (job_desc->admin_comment &&
	    libra_slurm_is_record(job_desc->admin_comment))
		xfree(job_desc->admin_comment);

	memset(&ref, 0, sizeof(ref));
	ref.time = now;
	snprintf(ref.verdict, sizeof(ref.verdict), "invalid");
	if ((rc = libra_qos_booking_resv_refused(job_desc, submit_uid,
						 err_msg))) {
		libra_qos_log_refusal(&ref, job_desc, submit_uid, *err_msg);
		return rc;
	}
	/* --begin later: an advance reservation (decision 21), whose SLA
	 * counts from its begin as if it were submitted then */
	if (job_desc->begin_time > (time_t) now + 1)
		begin = (double) job_desc->begin_time;
	if ((rc = _build_sla(job_desc, begin > 0.0 ? begin : now, &sla,
			     &has_sla, err_msg))) {
		libra_qos_booked_note(begin, err_msg);
		info("%s: uid %u: %s", plugin_type, submit_uid, *err_msg);
		libra_qos_log_refusal(&ref, job_desc, submit_uid, *err_msg);
		return rc;
	}
	if (libra_sla_has_budget(&sla)) {
		ref.has_budget = true;
		ref.budget = sla.budget;
	}
	if (has_sla && begin > 0.0 && (err = _booking_error(&sla, begin,
							      now))) {
		xstrfmtcat(*err_msg, "libra: rejected: --begin: %s", err);
		libra_qos_log_refusal(&ref, job_desc, submit_uid, *err_msg);
		return ESLURM_INVALID_TIME_VALUE;
	}
	if (has_sla && job_desc->het_job_offset != NO_VAL) {
		xstrfmtcat(*err_msg, "libra: rejected: heterogeneous jobs cannot carry an SLA yet; submit the components one by one");
		libra_qos_log_refusal(&ref, job_desc, submit_uid, *err_msg);
		return ESLURM_NOT_SUPPORTED;
	}
	/* a job array: one bag of tasks under the SLA (decision 36) */
	if (has_sla && job_desc->array_inx &&
	    (rc = libra_qos_array_sla(job_desc, &bag, &sla, err_msg))) {
		info("%s: uid %u: %s", plugin_type, submit_uid, *err_msg);
		libra_qos_log_refusal(&ref, job_desc, submit_uid, *err_msg);
		return rc;
	}

	quoting = has_sla && (sla.set & LIBRA_SLA_QUOTE); /* hold or take */
	libra_hub_lock();
	libra_slurm_params_current(plugin_type);
	/* nodes go down and come back between the scheduler's passes */
	if (libra_slurm_sync_nodes())
		libra_hub_set_synced(false);
	if (!libra_hub_synced()) {
		libra_slurm_sync(time(NULL));
		libra_hub_set_synced(true);
	}
	if (has_sla && libra_sla_releases_quote(&sla)) {
		rc = libra_qos_release_quote(&sla, now, submit_uid, err_msg);
		released = rc == ESLURM_ALREADY_DONE;
	} else if (has_sla && libra_sla_takes_quote(&sla)) {
		rc = libra_qos_take_quote(job_desc, &sla, now, submit_uid,
					  err_msg, &ref);
		if (rc)
			info("%s: uid %u: %s", plugin_type, submit_uid,
			     *err_msg);
	} else if (has_sla) {
		rc = libra_qos_admit(job_desc, &sla, &bag, now, begin,
				     submit_uid, err_msg, &ref);
	} else {
		snprintf(ref.verdict, sizeof(ref.verdict), "no_sla");
		rc = _no_sla(job_desc, libra_hub_params(), now, err_msg);
	}
	libra_hub_unlock();
	/*
	 * A quote given or taken is on disk before the user hears of it
	 * (decision 20): under slurmctld's locks, as job_submit is, but
	 * not the hub's (a write that found the book unchanged is a lock
	 * and a comparison).
	 */
	if (quoting)
		libra_state_save_quotes();
	if (rc == SLURM_SUCCESS || released)	/* capacity came or went */
		libra_hub_wake();
	if (rc != SLURM_SUCCESS && !released)
		libra_qos_log_refusal(&ref, job_desc, submit_uid, *err_msg);
	return rc;
}
