/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_slurm_params.c - the libra_* SchedulerParameters for the slurmctld
 *  plugins (see libra_slurm.h): read over the defaults, kept when a
 *  reconfigure brings a bad value (decision 28), read again when
 *  slurm.conf changed.
\*****************************************************************************/

#include <stdlib.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm_int.h"

/* Parameters read from text over the defaults: 0, or -1 with err. */
static int _parse_params(libra_params_t *fresh, const char *text, char *err,
			 size_t len)
{
	libra_params_default(fresh);
	/* the tariff's clock is local time (tariff.h) */
	fresh->tariff.offset = libra_tariff_local_offset();
	return libra_params_parse(fresh, text, err, len);
}

/*
 * A bad value in a slurmctld that has read none yet: one re-executed by a
 * reconfigure (23.11 and later) keeps the parameters of before, as saved
 * in StateSaveLocation (decision 28); else the defaults.  0: *fresh set
 * from the saved ones.
 */
static int _params_before(const char *who, const char *err,
			  libra_params_t *fresh)
{
	char *saved = NULL, *path = NULL, why[256];
	int rc = -1;

	if (getenv("SLURMCTLD_RECONF") &&
	    (saved = libra_state_load_params(&path)) &&
	    !(rc = _parse_params(fresh, saved, why, sizeof(why))))
		error("%s: SchedulerParameters: %s; keeping the previous settings (saved in %s before the reconfigure)",
		      who, err, path);
	else
		error("%s: SchedulerParameters: %s; using the defaults", who,
		      err);
	xfree(saved);
	xfree(path);
	return rc;
}

extern int libra_slurm_load_params(const char *who)
{
	static bool loaded;
	libra_params_t *p = libra_hub_params();
	libra_params_t fresh;
	char err[256], shown[2048];

	if (_parse_params(&fresh, slurm_conf.sched_params, err, sizeof(err))) {
		if (loaded) {
			error("%s: SchedulerParameters: %s; keeping the previous settings",
			      who, err);
			return SLURM_ERROR;
		}
		loaded = true;
		if (_params_before(who, err, &fresh))
			return SLURM_ERROR;
	} else {
		loaded = true;
		libra_state_save_params(slurm_conf.sched_params);
	}
	*p = fresh;
	libra_ledger_set_share_min(libra_hub_ledger(), p->share_min);
	libra_params_format(p, shown, sizeof(shown));
	verbose("%s: %s", who, shown);
	glue_predictor_current(who);
	return SLURM_SUCCESS;
}

extern void libra_slurm_params_current(const char *who)
{
	static time_t loaded;

	if (loaded == slurm_conf.last_update)
		return;
	loaded = slurm_conf.last_update;
	libra_slurm_load_params(who);
}
