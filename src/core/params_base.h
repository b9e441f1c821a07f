/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  params_base.h - the policy parameters (libra_params_t), their defaults,
 *  and the parameters read without the modules whose own parameters they
 *  embed.
 *
 *  libra_params_t embeds the predictor's, the power plan's and the
 *  tariff's parameters (libra_predict, libra_power, libra_tariff), whose
 *  values those modules read (predict.c, power.c, tariff.c: params.h's
 *  libra_params_set()).  What is here needs none of them linked in:
 *  the SPANK plugin, which slurmstepd loads on every node, reads its
 *  interval and share_min with libra_params_set_base() and compiles in
 *  params_base.c alone, not the ledger, the tariff or the power plan.
 *  params.h builds on this header: every other caller includes that.
\*****************************************************************************/

#ifndef LIBRA_PARAMS_BASE_H
#define LIBRA_PARAMS_BASE_H

#include <stdbool.h>
#include <stddef.h>

#include "number.h"
#include "power.h"
#include "predict.h"
#include "nodemap.h"
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

/* The longest path a parameter takes, with its NUL. */
#define LIBRA_PATH_LEN 256

typedef struct libra_params {
	libra_policy_t policy;
	double alpha;		/* weight of the static price component */
	double beta;		/* weight of the utilisation component */
	double price_base;	/* PBase per CPU-hour */
	double price_mem;	/* PBase of memory per GB-hour (decision 17) */
	double price_gpu;	/* PBase of a GPU per GPU-hour (decision 17) */
	double price_disk;	/* PBase of scratch disk (--tmp) per GB-hour */
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
	bool risk_thesis;	/* LibraRiskD admits as Fig. 5.1 (decision 49):
				 * simulator only, no libra.conf key */
	double beta_min;	/* Libra+$Auto: bounds on the adapted beta */
	double beta_max;
	libra_nosla_t no_sla;
	double interval;	/* sched/libra: seconds between passes */
	double weight_interval;	/* node side: seconds between weight updates */
	bool enforce;		/* node side: cgroup CPU weights on/off */
	double tolerance;	/* floating-point slack for capacity tests */
	double markup;		/* ISQoS mark-up of jobs without a tier */
	double markup_tier[4];	/* by libra_tier_t (sla.h); [0] unused */
	double min_profit_rate;	/* ISQoS going-rate floor: the least profit
				 * per hour to completion a job must earn
				 * (decision 51); 0: off */
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
	double power_warm;	/* nodes kept powered and idle (Sung's p_min;
				 * whole) */
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
	/* nodes of different speeds and prices (decision 43; nodemap.h) */
	libra_node_map_t node_speed;	/* n == 0: every node at 1 */
	libra_node_map_t node_price;	/* factors of PBase per node */
	/* what a provider watches (decision 44; watch.h) */
	char metrics_file[LIBRA_PATH_LEN]; /* "": none written */
	double metrics_interval; /* at most one write in this [s] */
	/* LibraSLA's ablation (decision 50): simulator-only, no key */
	bool sla_bestfit;	/* Libra's best fit, not Eq. 4.5's return
				 * order */
	bool sla_unprotected;	/* the thesis' test: admitted hard jobs may
				 * be delayed */
	bool sla_return_utility; /* a job's return is U, not Eq. 4.5's
				  * (U / RE) / D */
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
 * Set one parameter from its key and its text, as libra_params_set()
 * (params.h) does, for every key but libra_predict, libra_power and
 * libra_tariff, whose values their modules read: those are refused here.
 * The key's kind and range come from the one table in params_base.c.
 * Returns 0, or -1 with "key=value: why" in err (and *p unchanged).
 */
extern int libra_params_set_base(libra_params_t *p, const char *key,
				 const char *val, char *err, size_t errlen);

#endif /* LIBRA_PARAMS_BASE_H */
