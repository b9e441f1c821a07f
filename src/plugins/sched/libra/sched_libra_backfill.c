/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra_backfill.c - Slurm's own sched/backfill, run inside
 *  sched/libra for the jobs without an SLA (design.md decision 27).
 *
 *  slurmctld loads one scheduler plugin.  With libra_no_sla=slurm the jobs
 *  without an SLA are scheduled exactly as under SchedulerType=
 *  sched/backfill: slurmctld's main scheduler runs as configured, and the
 *  backfill plugin of the very Slurm release that runs (the one installed
 *  in the plugin directory, never a copy) is loaded here and started
 *  through its own init(), so that its thread, its SchedulerParameters
 *  (bf_*), its sdiag counters and its squeue --start estimates are
 *  Slurm's.  Its three entry points are the same on 22.05, 24.11 and
 *  26.05.
\*****************************************************************************/

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "sched_libra.h"

#define BACKFILL_SO "sched_backfill.so"

static void *bf_handle;
static int (*bf_init)(void);
static void (*bf_fini)(void);
static int (*bf_reconfig)(void);

/* Open sched_backfill.so in one directory of PluginDir; NULL: not there,
 * or not the backfill plugin of this release (logged). */
static void *_open(const char *dir)
{
	char *path = NULL;
	const char *type;
	const uint32_t *version;
	void *h;

	xstrfmtcat(path, "%s/%s", dir, BACKFILL_SO);
	if (access(path, R_OK)) {
		xfree(path);
		return NULL;
	}
	/* local: its init() and fini() must not stand in for ours */
	if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
		error("%s: cannot load %s: %s", plugin_type, path, dlerror());
		xfree(path);
		return NULL;
	}
	type = dlsym(h, "plugin_type");
	version = dlsym(h, "plugin_version");
	if (!type || xstrcmp(type, "sched/backfill") || !version ||
	    *version != SLURM_VERSION_NUMBER) {
		error("%s: %s is not sched/backfill of Slurm %d.%d.%d (this slurmctld's); skipping it",
		      plugin_type, path, SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
		      SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
		      SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
		dlclose(h);
		xfree(path);
		return NULL;
	}
	info("%s: running Slurm's backfill scheduler from %s for the jobs without an SLA",
		plugin_type, path);
	xfree(path);
	return h;
}

extern int libra_backfill_start(void)
{
	char *dirs = xstrdup(slurm_conf.plugindir), *dir, *save = NULL;

	for (dir = strtok_r(dirs, ":", &save); dir && !bf_handle;
	     dir = strtok_r(NULL, ":", &save))
		bf_handle = _open(dir);
	xfree(dirs);
	if (!bf_handle) {
		error("%s: libra_no_sla=slurm needs Slurm's %s in PluginDir (%s); not found",
		      plugin_type, BACKFILL_SO, slurm_conf.plugindir);
		return SLURM_ERROR;
	}
	bf_init = (int (*)(void)) dlsym(bf_handle, "init");
	bf_fini = (void (*)(void)) dlsym(bf_handle, "fini");
	bf_reconfig = (int (*)(void)) dlsym(bf_handle, "sched_p_reconfig");
	if (!bf_init || !bf_fini || !bf_reconfig) {
		error("%s: %s lacks init(), fini() or sched_p_reconfig()",
		      plugin_type, BACKFILL_SO);
		dlclose(bf_handle);
		bf_handle = NULL;
		return SLURM_ERROR;
	}
	if (bf_init() != SLURM_SUCCESS) {
		error("%s: Slurm's backfill scheduler did not start",
		      plugin_type);
		dlclose(bf_handle);
		bf_handle = NULL;
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

extern bool libra_backfill_running(void)
{
	return bf_handle != NULL;
}

extern void libra_backfill_reconfig(void)
{
	if (bf_handle)
		(void) bf_reconfig();
}

extern void libra_backfill_stop(void)
{
	if (!bf_handle)
		return;
	bf_fini();	/* stops and joins its thread */
	dlclose(bf_handle);
	bf_handle = NULL;
}
