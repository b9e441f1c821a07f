/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra_wrapper.c - plugin glue of sched/libra: load, unload,
 *  reconfigure.  The algorithm is in sched_libra.c (with
 *  sched_libra_pending.c and sched_libra_agent.c) and src/core.
\*****************************************************************************/

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm.h"
#include "sched_libra.h"

const char plugin_name[] = "slurm-libra deadline scheduler (sched/libra)";
const char plugin_type[] = "sched/libra";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Is the key present in the comma-separated SchedulerParameters? */
static bool _has_param(const char *params, const char *key)
{
	char *copy = xstrdup(params), *tok, *save = NULL;
	bool found = false;

	for (tok = strtok_r(copy, ",", &save); tok && !found;
	     tok = strtok_r(NULL, ",", &save))
		found = !xstrcmp(tok, key);
	xfree(copy);
	return found;
}

extern int init(void)
{
	const char *params = slurm_conf.sched_params;
	libra_nosla_t mode;

	if (libra_hub_init())
		return SLURM_ERROR;
	libra_hub_lock();
	/* loaded when slurmctld takes control, and only then */
	libra_slurm_take_control(plugin_type);
	mode = libra_hub_params()->no_sla;
	libra_hub_unlock();
	libra_sched_set_mode(mode);
	if (mode == LIBRA_NOSLA_SLURM) {
		/*
		 * Jobs without an SLA are Slurm's (decision 27): its main
		 * scheduler as configured, and its backfill plugin here.
		 */
		if (params && _has_param(params, "sched_interval=-1"))
			info("%s: SchedulerParameters has sched_interval=-1: slurmctld's main scheduler is off, so jobs without an SLA start only in backfill cycles (bf_interval)",
				plugin_type);
		if (libra_backfill_start())
			return SLURM_ERROR;
	} else if (!params || !_has_param(params, "defer") ||
		   !_has_param(params, "sched_interval=-1")) {
		/* sched/libra starts every job itself: nothing else may */
		error("%s: with libra_no_sla=%s SchedulerParameters must contain sched_interval=-1,defer so that slurmctld's own scheduler starts no jobs (found \"%s\"); refusing to run",
		      plugin_type, libra_nosla_name(mode), params ? params : "");
		return SLURM_ERROR;
	}
	/*
	 * slurmctld loads this plugin when it becomes the primary, at start
	 * and after a takeover, its node table read: the binding quotes and
	 * betas saved before (decisions 9 and 20).
	 */
	libra_state_load();
	verbose("%s: scheduler loaded (jobs without an SLA: %s)", plugin_type,
		libra_nosla_name(mode));
	return libra_sched_start();
}

extern void fini(void)
{
	libra_backfill_stop();
	libra_sched_stop();
	libra_hub_fini();
	verbose("%s: scheduler unloaded", plugin_type);
}

extern int sched_p_reconfig(void)
{
	/*
	 * Always re-read: slurm.conf's time stamp has whole seconds, so two
	 * reconfigurations in one second look alike to
	 * libra_slurm_params_current().
	 */
	libra_nosla_t mode;

	libra_hub_lock();
	libra_slurm_load_params(plugin_type);
	mode = libra_hub_params()->no_sla;
	libra_hub_unlock();
	if ((mode == LIBRA_NOSLA_SLURM) != libra_backfill_running())
		error("%s: libra_no_sla=%s takes effect when slurmctld restarts; until then jobs without an SLA are scheduled as before",
		      plugin_type, libra_nosla_name(mode));
	libra_backfill_reconfig();
	libra_hub_wake();
	return SLURM_SUCCESS;
}
