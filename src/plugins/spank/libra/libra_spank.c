/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_spank.c - the libra SPANK plugin: SLA options for sbatch, salloc
 *  and srun, and (in slurmstepd) the CPU weights that enforce each job's
 *  deadline share (libra_cgroup.c).
 *
 *  Options: one for each key of the core's table of SLA keys that names
 *  one (libra_sla_key_at(), sla.c), with its argument and help from there.
 *  Slurm hands their values to slurmctld in the job's SPANK environment as
 *  _SLURM_SPANK_OPTION_libra_<option>, where job_submit/qos reads and
 *  checks them exactly as it checks --comment fields; here they are only
 *  checked for being non-empty printable text, and those the table marks
 *  (sbatch_checks: --deadline-type, --optimize) by the core's parser, so
 *  that a typo is reported by sbatch before anything is sent.
\*****************************************************************************/

#include <stdio.h>
#include <string.h>

#include <slurm/spank.h>

#include "libra_cgroup.h"
#include "sla.h"

SPANK_PLUGIN(libra, 1);

static int _check(int val, const char *optarg, int remote);

/* Filled from the core's table by _options(); val: the key's index. */
static struct spank_option libra_options[LIBRA_SLA_NKEYS + 1];

static void _options(void)
{
	const libra_sla_key_t *k;
	int n = 0;

	for (size_t i = 0; (k = libra_sla_key_at(i)); i++) {
		if (!k->option)
			continue;
		libra_options[n++] = (struct spank_option) {
			.name = (char *) k->option,
			.arginfo = (char *) k->arginfo,
			.usage = (char *) k->help,
			.has_arg = 1,
			.val = (int) i,
			.cb = _check,
		};
	}
	libra_options[n] = (struct spank_option) SPANK_OPTIONS_TABLE_END;
}

static int _check(int val, const char *optarg, int remote)
{
	const libra_sla_key_t *k = libra_sla_key_at((size_t) val);
	const char *name = k->option, *why;
	libra_sla_t sla = { 0 };
	char err[256];

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
	if (k->sbatch_checks &&
	    libra_sla_parse_field(k->key, optarg, 0.0, &sla, err, sizeof(err))) {
		libra_sla_err_field(err, &why);
		slurm_error("libra: --%s: %s", name, why);
		return -1;
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	_options();
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
