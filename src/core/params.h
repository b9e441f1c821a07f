/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  params.h - policy parameters, and the SchedulerParameters keys that set
 *  them.
 *
 *  Both slurmctld plugins and the simulator configure the policy core with
 *  one libra_params_t.  In slurm.conf the keys live in SchedulerParameters,
 *  next to Slurm's own keys, all prefixed "libra_":
 *
 *	SchedulerParameters=sched_interval=-1,defer,libra_policy=libra+$,
 *		libra_alpha=1.0,libra_beta=0.1,libra_price_base=1.0
 *
 *  The parser ignores keys without the prefix (they belong to Slurm), and
 *  refuses unknown libra_ keys, duplicates, bad numbers and out-of-range
 *  values with a message that names the key.  On error the output is left
 *  untouched, so a bad "scontrol reconfigure" keeps the running values.
 *
 *  Prices are configured per CPU-hour (doc/design.md, decision 3), memory
 *  per GB-hour and GPUs per GPU-hour (decision 17); the core works per
 *  second internally (libra_price_base_per_sec(), ..._mem_..., ..._gpu_...).
 *
 *  libra_params_t, its defaults and the names of its values are
 *  params_base.h's (params_base.c), which the SPANK plugin uses alone;
 *  here are the whole set's operations, which also read the predictor's,
 *  the power plan's and the tariff's parameters (params.c).
\*****************************************************************************/

#ifndef LIBRA_PARAMS_H
#define LIBRA_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "params_base.h"
#include "power.h"

/*
 * Set one parameter from its key and its text: libra_params_set(p,
 * "libra_share_min", "0.05", ...).  The key's kind and range come from the
 * one table in params_base.c, which serves slurm.conf
 * (libra_params_parse()), the simulator's options and the SPANK plugin's
 * plugstack arguments (libra_params_set_base()) alike.  Returns 0, or -1
 * with "key=value: why" in err (and *p unchanged).  Relations between
 * keys are libra_params_check()'s.
 */
extern int libra_params_set(libra_params_t *p, const char *key,
			    const char *val, char *err, size_t errlen);

/* The relations between keys that no single key can check: libra_beta_min
 * must not exceed libra_beta_max.  Returns 0, or -1 with a message. */
extern int libra_params_check(const libra_params_t *p, char *err,
			      size_t errlen);

/*
 * Apply the libra_* keys of a SchedulerParameters string to *p, each with
 * libra_params_set(), then libra_params_check().  Keys of other plugins
 * are ignored; a libra_ key given twice is refused.  Returns 0, or -1 with
 * a message in err naming the key (and *p unchanged).
 */
extern int libra_params_parse(libra_params_t *p, const char *sched_params,
			      char *err, size_t errlen);

/* Write the parameters as "libra_policy=...,libra_alpha=..." for logs and
 * "scontrol show config". */
extern void libra_params_format(const libra_params_t *p, char *buf,
				size_t len);

/* The mark-up a job's price carries (ISQoS section 4.1): its tier's, else
 * libra_markup.  LibraSLA, whose price is the user's bid, has none. */
extern double libra_params_markup(const libra_params_t *p, int tier);

/* PBase per CPU-second, the unit the pricing formulas use. */
static inline double libra_price_base_per_sec(const libra_params_t *p)
{
	return p->price_base / 3600.0;
}

/* The power heuristic's settings out of the parameters. */
static inline libra_power_cfg_t libra_params_power(const libra_params_t *p)
{
	libra_power_cfg_t c = { p->power, p->power_interval, p->power_boot,
				p->power_shutdown, 0.0 };

	return c;
}

/* Memory's PBase per MB-second (a GB is 1024 MB, as in Slurm). */
static inline double libra_price_mem_per_sec(const libra_params_t *p)
{
	return p->price_mem / (1024.0 * 3600.0);
}

/* A GPU's PBase per GPU-second. */
static inline double libra_price_gpu_per_sec(const libra_params_t *p)
{
	return p->price_gpu / 3600.0;
}

/* Scratch disk's PBase per MB-second (a GB is 1024 MB, as for memory). */
static inline double libra_price_disk_per_sec(const libra_params_t *p)
{
	return p->price_disk / (1024.0 * 3600.0);
}

#endif /* LIBRA_PARAMS_H */
