/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_spank.c - the libra SPANK plugin: SLA options for sbatch, salloc
 *  and srun, and (in slurmstepd) the CPU weights that enforce each job's
 *  deadline share (libra_cgroup.c).
 *
 *  Options: --runtime, --budget, --penalty, --penalty-cap, --deadline-type,
 *  --duedate, --tier.  Slurm hands their values to slurmctld in the job's SPANK
 *  environment as _SLURM_SPANK_OPTION_libra_<option>, where job_submit/qos
 *  reads and checks them exactly as it checks --comment fields; here they
 *  are only checked for being non-empty printable text, so that a typo is
 *  reported by sbatch before anything is sent.
\*****************************************************************************/

#include <stdio.h>
#include <string.h>

#include <slurm/spank.h>

#include "libra_cgroup.h"

SPANK_PLUGIN(libra, 1);

static int _check(int val, const char *optarg, int remote);

static struct spank_option libra_options[] = {
	{ "runtime", "DURATION",
	  "slurm-libra: CPU time per CPU the job needs at full speed "
	  "(e.g. 30m, 2h)", 1, 0, _check },
	{ "budget", "AMOUNT",
	  "slurm-libra: the most you will pay for the job", 1, 1, _check },
	{ "penalty", "RATE",
	  "slurm-libra: paid back to you per hour past the deadline",
	  1, 2, _check },
	{ "penalty-cap", "AMOUNT",
	  "slurm-libra: bound on the total penalty", 1, 3, _check },
	{ "deadline-type", "hard|soft",
	  "slurm-libra: hard (end the job at the deadline) or soft (run "
	  "late, penalty accrues)", 1, 4, _check },
	{ "duedate", "WHEN",
	  "slurm-libra: soft target before the deadline: full price by "
	  "then, less up to the deadline", 1, 5, _check },
	{ "tier", "value|standard|premium",
	  "slurm-libra: mark-up tier of the price", 1, 6, _check },
	{ "optimize", "cost|time",
	  "slurm-libra: the cheapest finish by the deadline (cost, the "
	  "default) or the earliest (time, priced higher)", 1, 7, _check },
	SPANK_OPTIONS_TABLE_END
};

static int _check(int val, const char *optarg, int remote)
{
	const char *name = libra_options[val].name;

	if (!optarg || !*optarg) {
		slurm_error("libra: --%s needs a value", name);
		return -1;
	}
	for (const char *c = optarg; *c; c++) {
		if (*c < 0x20 || *c > 0x7e) {
			slurm_error("libra: --%s: value has a byte that is not printable ASCII",
				    name);
			return -1;
		}
	}
	if (strlen(optarg) > 256) {
		slurm_error("libra: --%s: value longer than 256 bytes", name);
		return -1;
	}
	if (val == 4 && strcmp(optarg, "hard") && strcmp(optarg, "soft")) {
		slurm_error("libra: --deadline-type: '%s' is not hard or soft",
			    optarg);
		return -1;
	}
	if (val == 7 && strcmp(optarg, "cost") && strcmp(optarg, "time")) {
		slurm_error("libra: --optimize: '%s' is not cost or time",
			    optarg);
		return -1;
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	for (int i = 0; libra_options[i].name; i++) {
		if (spank_option_register(sp, &libra_options[i]) !=
		    ESPANK_SUCCESS) {
			slurm_error("libra: cannot register --%s",
				    libra_options[i].name);
			return -1;
		}
	}
	if (spank_remote(sp))
		return libra_cgroup_init(sp, ac, av);
	return 0;
}

int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	return libra_cgroup_task(sp);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	if (spank_remote(sp))
		libra_cgroup_exit(sp);
	return 0;
}
