/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_slurm_watch.c - what a provider watches, counted where slurmctld
 *  decides it (doc/design.md decision 44; the counters: watch.h in the
 *  hub): a submission refused, an admitted job made (the job slurmctld
 *  created for an admission: not a --test-only probe, which job_submit
 *  cannot tell from a submission), a job settled.
 *
 *  Labels are what accounting shows for the job: its partition (the
 *  cluster's default when the submission named none) and its account (the
 *  user's default account when it named none, as Slurm gives the job and
 *  libra-report attributes a refusal), so that the counters add up to
 *  libra-report's and sacct's figures.
\*****************************************************************************/

#include <string.h>

#include "slurm/slurm.h"

#include "src/common/assoc_mgr.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm_int.h"

/* The account a submission is counted under (xfree() it): the one it
 * named, else its user's default (assoc_mgr's own locks taken), else
 * NULL. */
static char *_account(const job_desc_msg_t *job_desc, uint32_t uid)
{
	slurmdb_user_rec_t user;

	if (job_desc->account && job_desc->account[0])
		return xstrdup(job_desc->account);
	memset(&user, 0, sizeof(user));
	user.uid = uid;
	if (assoc_mgr_fill_in_user(acct_db_conn, &user, accounting_enforce,
				   NULL, false) == SLURM_SUCCESS)
		return xstrdup(user.default_acct);
	return NULL;
}

extern void libra_slurm_watch_refused(const job_desc_msg_t *job_desc,
				      uint32_t uid, const char *verdict)
{
	char *account = _account(job_desc, uid);
	const char *partition = job_desc->partition && job_desc->partition[0] ?
				job_desc->partition : default_part_name;
	int rc;

	libra_hub_lock();
	rc = libra_watch_refused(libra_hub_watch(), partition, account,
				 verdict);
	libra_hub_unlock();
	if (rc)
		error("%s: out of memory counting a refusal", plugin_type);
	xfree(account);
}

extern void libra_slurm_watch_admitted(job_record_t *job_ptr)
{
	if (libra_watch_admitted(libra_hub_watch(), job_ptr->partition,
				 job_ptr->account))
		error("%s: out of memory counting %pJ's admission",
		      plugin_type, job_ptr);
}

extern void libra_slurm_watch_settled(job_record_t *job_ptr,
				      const libra_record_t *rec)
{
	libra_watch_outcome_t outcome =
		rec->best_effort ? LIBRA_WATCH_BEST_EFFORT :
		rec->final.deadline_met ? LIBRA_WATCH_MET :
		LIBRA_WATCH_MISSED;
	int rc;

	libra_hub_lock();
	rc = libra_watch_settled(libra_hub_watch(), job_ptr->partition,
				 job_ptr->account, outcome, rec->final.charge,
				 rec->final.penalty);
	libra_hub_unlock();
	if (rc)
		error("%s: out of memory counting %pJ's settlement",
		      plugin_type, job_ptr);
}
