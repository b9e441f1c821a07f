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
\*****************************************************************************/

#ifndef LIBRA_PARAMS_H
#define LIBRA_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "power.h"
#include "predict.h"
#include "number.h"
#include "tariff.h"

typedef enum {
	LIBRA_POLICY_LIBRA = 0,	/* Libra: share test, best fit, static price */
	LIBRA_POLICY_LIBRA_PRICE,	/* Libra+$: supply/demand price */
	LIBRA_POLICY_SLA,	/* LibraSLA: return-based, hard/soft */
	LIBRA_POLICY_RISKD,	/* LibraRiskD: risk of deadline delay */
	LIBRA_POLICY_AUTO,	/* Libra+$Auto: adaptive beta */
	LIBRA_POLICY_FIXED,	/* Libra admission, fixed price */
	LIBRA_POLICY_PEAK,	/* Libra admission, peak/off-peak price */
	LIBRA_POLICY_COUNT
} libra_policy_t;

/* How RESFree of Libra+$ counts the work already committed on a node. */
typedef enum {
	LIBRA_RESFREE_WINDOW = 0, /* remaining committed CPU-s in [now, TD] */
	LIBRA_RESFREE_THESIS,	  /* full RE_k of running jobs (Eq. 3.6) */
} libra_resfree_t;

/* How a multi-CPU job is charged. */
typedef enum {
	LIBRA_CHARGE_CPU = 0,	/* sum over allocated CPUs of RE * P_ij */
	LIBRA_CHARGE_THESIS,	/* RE * max_j P_ij (thesis Fig. 3.2) */
} libra_charge_t;

/* What happens to a job that carries no SLA (design.md decision 27). */
typedef enum {
	LIBRA_NOSLA_SLURM = 0,	     /* Slurm's own scheduler and backfill
				      * schedule it, as without the plugins */
	LIBRA_NOSLA_BEST_EFFORT,     /* sched/libra runs it on leftover
				      * capacity, time-shared (deprecated) */
	LIBRA_NOSLA_REJECT,	     /* refuse at submission */
} libra_nosla_t;

typedef struct libra_params {
	libra_policy_t policy;
	double alpha;		/* weight of the static price component */
	double beta;		/* weight of the utilisation component */
	double price_base;	/* PBase per CPU-hour */
	double price_mem;	/* PBase of memory per GB-hour (decision 17) */
	double price_gpu;	/* PBase of a GPU per GPU-hour (decision 17) */
	double gamma;		/* Libra static price: per CPU-second of RE */
	double delta;		/* Libra static price: per unit of RE/D */
	double peak_price;	/* per CPU-hour, during peak hours */
	int peak_start;		/* first peak hour (0-23, local time) */
	int peak_end;		/* first off-peak hour after the peak */
	libra_resfree_t resfree;
	libra_charge_t charge;
	double capacity;	/* fraction of each CPU admission may commit */
	double share_min;	/* best-effort share of late/overrun jobs */
	double risk_sigma;	/* LibraRiskD: most std. dev. of DDY */
	double risk_mu;		/* LibraRiskD: most mean DDY (1 = no delay) */
	double beta_min;	/* Libra+$Auto: bounds on the adapted beta */
	double beta_max;
	libra_nosla_t no_sla;
	double interval;	/* sched/libra: seconds between passes */
	double weight_interval;	/* node side: seconds between weight updates */
	bool enforce;		/* node side: cgroup CPU weights on/off */
	double tolerance;	/* floating-point slack for capacity tests */
	double markup;		/* ISQoS mark-up of jobs without a tier */
	double markup_tier[4];	/* by libra_tier_t (sla.h); [0] unused */
	double price_damping;	/* Libra+$: time constant [s] of the smoothed
				 * demand its price sees; 0: off (price.h) */
	double quote_hold;	/* how long a binding quote holds its price
				 * and capacity [s] (quote.h) */
	double quote_max;	/* binding quotes one user may hold at once
				 * (a whole number); 0: none given */
	/* runtime predictions on the cluster (decision 23; predict.h) */
	libra_predict_method_t predict;	/* none: admit on the estimate */
	double predict_risk;	/* admitted on the 1 - risk quantile */
	double predict_min;	/* finished jobs that make a history (whole) */
	double predict_pace;	/* predicted work planned to end at this
				 * fraction of the window */
	/* power provisioning (decision 24; power.h, tariff.h) */
	libra_power_t power;	/* none: Slurm's own power saving */
	double power_interval;	/* between decision points [s] */
	double power_boot;	/* a node's boot, ResumeProgram to usable [s] */
	double power_shutdown;	/* a node's removal [s] */
	libra_tariff_t tariff;	/* per node-hour; n == 0: none */
	bool tariff_price;	/* Libra+$'s PBase follows the tariff */
	/* the site's terms and settlement (decision 37; settle.h) */
	double penalty_cap;	/* no penalty beyond this many times the
				 * job's price; 0: the SLA's cap alone */
	double penalty_rate_max; /* the highest penalty rate admitted, per
				 * hour; 0: any */
	bool settle_paper;	/* the papers' settlement (capped) */
	double runtime_min;	/* the shortest runtime estimate admitted [s] */
	double window_max;	/* the furthest deadline admitted, from
				 * submission [s]; 0: ten years */
	bool power_pace;	/* h3, h5: a deferred job's deadline paced to
				 * the end of the tariff's stretch it begins
				 * in (libra_admit_power()) */
} libra_params_t;

/* The documented defaults (thesis Table 3.1 where it has one). */
extern void libra_params_default(libra_params_t *p);

/* Policy names as used in SchedulerParameters and libra-sim --policy:
 * "libra", "libra+$", "librasla", "librariskd", "libra+$auto", "fixed",
 * "peak". */
extern const char *libra_policy_name(libra_policy_t policy);
extern bool libra_policy_from_name(const char *name, libra_policy_t *policy);

/* libra_no_sla's values: "slurm", "best_effort", "reject". */
extern const char *libra_nosla_name(libra_nosla_t mode);

/* How every yes/no parameter reads: yes, on or 1, or no, off or 0
 * (number.h's libra_name_t; written yes or no). */
extern const libra_name_t libra_yes_no_names[];

/* True for the policies whose price follows supply and demand. */
extern bool libra_policy_is_market(libra_policy_t policy);

/*
 * Set one parameter from its key and its text: libra_params_set(p,
 * "libra_share_min", "0.05", ...).  The key's kind and range come from the
 * one table in params.c, which serves slurm.conf (libra_params_parse()),
 * the simulator's options and the SPANK plugin's plugstack arguments
 * alike.  Returns 0, or -1 with "key=value: why" in err (and *p
 * unchanged).  Relations between keys are libra_params_check()'s.
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

#endif /* LIBRA_PARAMS_H */
