/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  main.c - libra-sim: options, the run loop, and the output.
 *
 *  One run = one trace window with one synthesized workload, simulated
 *  under one policy (or every policy, --policy all, on the same workload),
 *  one summary line per policy on stdout (key=value, or JSON with --json),
 *  and optionally one CSV row per job and policy.
 *
 *  Exit status: 0 ok, 1 runtime error (trace unreadable, core failure,
 *  output file), 2 usage (bad option or value; the message names it).
 *
 *  Output is a function of the arguments alone: no clocks, no addresses,
 *  no hash orders; numbers are printed with fixed precision.
\*****************************************************************************/

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "alloc.h"
#include "energy.h"
#include "ledger.h"
#include "metrics.h"
#include "outcome.h"
#include "params.h"
#include "sim.h"

#define PROG "libra-sim"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/* ---- options -------------------------------------------------------------- */

enum {
	OPT_TRACE = 256, OPT_PROCS, OPT_LAST, OPT_FIRST, OPT_POLICY,
	OPT_ALPHA, OPT_BETA, OPT_PRICE_BASE, OPT_RESFREE, OPT_CHARGE,
	OPT_ADF, OPT_HIGH, OPT_D_RATIO, OPT_D_LOW, OPT_B_RATIO, OPT_B_LOW,
	OPT_P_RATIO, OPT_P_LOW, OPT_CV, OPT_EST, OPT_SEED, OPT_JSON,
	OPT_CSV, OPT_HARD, OPT_BIAS_D, OPT_BIAS_B, OPT_BIAS_P, OPT_MODEL,
	OPT_RISK_SIGMA, OPT_RISK_MU, OPT_CAPACITY, OPT_SHARE_MIN, OPT_GAMMA,
	OPT_DELTA, OPT_BETA_MIN, OPT_BETA_MAX, OPT_FR_ALPHA, OPT_FR_DISCOUNT,
	OPT_FR_SLACK, OPT_SELF_CHECK, OPT_PROBE_CSV, OPT_PROBE_EVERY,
	OPT_PROBE_CPUS, OPT_PROBE_RUNTIME, OPT_PROBE_DEADLINE, OPT_DUE_FRAC,
	OPT_DUE_RATE, OPT_MARKUP, OPT_TIER, OPT_PRICE_DAMPING, OPT_MEMORY,
	OPT_NODE_MEMORY, OPT_RESERVE_FRAC, OPT_RESERVE_LEAD, OPT_PREDICT,
	OPT_PREDICT_RISK, OPT_PREDICT_MIN, OPT_PREDICT_HARD, OPT_PREDICT_PROTECT,
	OPT_PREDICT_PACE, OPT_PREDICT_SOFT_CAP, OPT_POWER, OPT_TARIFF,
	OPT_TARIFF_START, OPT_POWER_INTERVAL, OPT_BOOT, OPT_SHUTDOWN,
	OPT_SUSPEND_TIME, OPT_POWER_PACE, OPT_POWER_WARM, OPT_ECONOMY,
	OPT_PENALTY_CAP, OPT_PEAK_PRICE, OPT_PEAK_HOURS, OPT_BAG_FRAC,
	OPT_BAG_TASKS, OPT_BAG_THROTTLE, OPT_BAG_MODE, OPT_SPEEDS,
	OPT_SPEED_BLIND, OPT_ISQOS, OPT_MIN_PROFIT_RATE,
	OPT_SYNTHETIC,
	OPT_SLOTS, OPT_SLOT_ACCEPT, OPT_SLOT_CANCEL,
	OPT_RISKD_ADMIT,
	OPT_SLA_ORDER, OPT_SLA_PROTECT, OPT_SLA_RETURN,
	OPT_HELP,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "synthetic", required_argument, NULL, OPT_SYNTHETIC },
	{ "slots", required_argument, NULL, OPT_SLOTS },
	{ "slot-accept", required_argument, NULL, OPT_SLOT_ACCEPT },
	{ "slot-cancel", required_argument, NULL, OPT_SLOT_CANCEL },
	{ "procs", required_argument, NULL, OPT_PROCS },
	{ "last", required_argument, NULL, OPT_LAST },
	{ "first", required_argument, NULL, OPT_FIRST },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "beta", required_argument, NULL, OPT_BETA },
	{ "price-base", required_argument, NULL, OPT_PRICE_BASE },
	{ "resfree", required_argument, NULL, OPT_RESFREE },
	{ "charge", required_argument, NULL, OPT_CHARGE },
	{ "adf", required_argument, NULL, OPT_ADF },
	{ "high-urgency", required_argument, NULL, OPT_HIGH },
	{ "deadline-ratio", required_argument, NULL, OPT_D_RATIO },
	{ "deadline-low-mean", required_argument, NULL, OPT_D_LOW },
	{ "budget-ratio", required_argument, NULL, OPT_B_RATIO },
	{ "budget-low-mean", required_argument, NULL, OPT_B_LOW },
	{ "penalty-ratio", required_argument, NULL, OPT_P_RATIO },
	{ "penalty-low-mean", required_argument, NULL, OPT_P_LOW },
	{ "cv", required_argument, NULL, OPT_CV },
	{ "estimates", required_argument, NULL, OPT_EST },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "jobs-csv", required_argument, NULL, OPT_CSV },
	{ "hard", required_argument, NULL, OPT_HARD },
	{ "bias-deadline", required_argument, NULL, OPT_BIAS_D },
	{ "bias-budget", required_argument, NULL, OPT_BIAS_B },
	{ "bias-penalty", required_argument, NULL, OPT_BIAS_P },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "economy", required_argument, NULL, OPT_ECONOMY },
	{ "risk-sigma", required_argument, NULL, OPT_RISK_SIGMA },
	{ "risk-mu", required_argument, NULL, OPT_RISK_MU },
	{ "riskd-admit", required_argument, NULL, OPT_RISKD_ADMIT },
	{ "capacity", required_argument, NULL, OPT_CAPACITY },
	{ "share-min", required_argument, NULL, OPT_SHARE_MIN },
	{ "gamma", required_argument, NULL, OPT_GAMMA },
	{ "delta", required_argument, NULL, OPT_DELTA },
	{ "beta-min", required_argument, NULL, OPT_BETA_MIN },
	{ "beta-max", required_argument, NULL, OPT_BETA_MAX },
	{ "fr-alpha", required_argument, NULL, OPT_FR_ALPHA },
	{ "fr-discount", required_argument, NULL, OPT_FR_DISCOUNT },
	{ "fr-slack", required_argument, NULL, OPT_FR_SLACK },
	{ "self-check", no_argument, NULL, OPT_SELF_CHECK },
	{ "probe-csv", required_argument, NULL, OPT_PROBE_CSV },
	{ "probe-every", required_argument, NULL, OPT_PROBE_EVERY },
	{ "probe-cpus", required_argument, NULL, OPT_PROBE_CPUS },
	{ "probe-runtime", required_argument, NULL, OPT_PROBE_RUNTIME },
	{ "probe-deadline", required_argument, NULL, OPT_PROBE_DEADLINE },
	{ "due-frac", required_argument, NULL, OPT_DUE_FRAC },
	{ "due-rate", no_argument, NULL, OPT_DUE_RATE },
	{ "penalty-cap", required_argument, NULL, OPT_PENALTY_CAP },
	{ "markup", required_argument, NULL, OPT_MARKUP },
	{ "tier", required_argument, NULL, OPT_TIER },
	{ "price-damping", required_argument, NULL, OPT_PRICE_DAMPING },
	{ "peak-price", required_argument, NULL, OPT_PEAK_PRICE },
	{ "peak-hours", required_argument, NULL, OPT_PEAK_HOURS },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "node-memory", required_argument, NULL, OPT_NODE_MEMORY },
	{ "reserve-frac", required_argument, NULL, OPT_RESERVE_FRAC },
	{ "reserve-lead", required_argument, NULL, OPT_RESERVE_LEAD },
	{ "bag-frac", required_argument, NULL, OPT_BAG_FRAC },
	{ "bag-tasks", required_argument, NULL, OPT_BAG_TASKS },
	{ "bag-throttle", required_argument, NULL, OPT_BAG_THROTTLE },
	{ "bag-mode", required_argument, NULL, OPT_BAG_MODE },
	{ "speeds", required_argument, NULL, OPT_SPEEDS },
	{ "speed-blind", no_argument, NULL, OPT_SPEED_BLIND },
	{ "sla-order", required_argument, NULL, OPT_SLA_ORDER },
	{ "sla-protect", required_argument, NULL, OPT_SLA_PROTECT },
	{ "sla-return", required_argument, NULL, OPT_SLA_RETURN },
	{ "isqos", required_argument, NULL, OPT_ISQOS },
	{ "min-profit-rate", required_argument, NULL, OPT_MIN_PROFIT_RATE },
	{ "predict", required_argument, NULL, OPT_PREDICT },
	{ "predict-risk", required_argument, NULL, OPT_PREDICT_RISK },
	{ "predict-min", required_argument, NULL, OPT_PREDICT_MIN },
	{ "predict-hard", required_argument, NULL, OPT_PREDICT_HARD },
	{ "predict-protect", required_argument, NULL, OPT_PREDICT_PROTECT },
	{ "predict-pace", required_argument, NULL, OPT_PREDICT_PACE },
	{ "predict-soft-cap", required_argument, NULL, OPT_PREDICT_SOFT_CAP },
	{ "power", required_argument, NULL, OPT_POWER },
	{ "tariff", required_argument, NULL, OPT_TARIFF },
	{ "tariff-start", required_argument, NULL, OPT_TARIFF_START },
	{ "power-interval", required_argument, NULL, OPT_POWER_INTERVAL },
	{ "boot", required_argument, NULL, OPT_BOOT },
	{ "shutdown", required_argument, NULL, OPT_SHUTDOWN },
	{ "suspend-time", required_argument, NULL, OPT_SUSPEND_TIME },
	{ "power-pace", required_argument, NULL, OPT_POWER_PACE },
	{ "power-warm", required_argument, NULL, OPT_POWER_WARM },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static void _usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " --trace FILE.swf[.gz] --policy POLICY [options]\n"
"\n"
"Simulate a utility-driven cluster on a Standard Workload Format trace.\n"
"\n"
"Workload:\n"
"  --trace FILE            SWF trace, gzip or plain (required)\n"
"  --procs N               processors (default: MaxProcs, else MaxNodes)\n"
"  --synthetic exp:N:IA:RUN[:PROCS]  instead of a trace: N jobs of PROCS\n"
"                          CPUs (1), exponential inter-arrival and run\n"
"                          times of means IA and RUN seconds, drawn from\n"
"                          --seed (needs --procs)\n"
"  --first N | --last N    simulate the first/last N usable jobs\n"
"  --adf F                 arrival delay factor (0.5)\n"
"  --high-urgency PCT      %% of high-urgency jobs (20)\n"
"  --hard PCT              %% of hard deadlines (default: the urgent jobs)\n"
"  --deadline-ratio R      deadline high:low ratio (4)\n"
"  --deadline-low-mean M   deadline low mean, D/R of urgent jobs (2)\n"
"  --budget-ratio R        budget high:low ratio (4)\n"
"  --budget-low-mean M     budget low mean, B/f(R) (2)\n"
"  --penalty-ratio R       penalty rate high:low ratio (4)\n"
"  --penalty-low-mean M    penalty rate low mean (4)\n"
"  --cv C                  sd/mean of every factor (0.25)\n"
"  --bias-deadline B, --bias-budget B, --bias-penalty B   (1)\n"
"  --estimates E           accurate | trace[:PCT] | under:PCT (accurate)\n"
"  --seed S                random seed (1)\n"
"  --due-frac F            due date at F of the deadline period (none)\n"
"  --due-rate              z-curve at the job's penalty rate (to 0 at TD)\n"
"  --penalty-cap C         penalties capped at C x the budget (none)\n"
"  --tier T                value | standard | premium | urgency (none)\n"
"  --memory M              requested | used | either: each job's memory\n"
"                          per processor from SWF field 10, 7, or 10 else 7\n"
"                          (none; needs --node-memory)\n"
"  --node-memory MB        memory of each 1-CPU node (time-shared policies)\n"
"  --speeds LIST           node speeds against the reference CPU of the\n"
"                          run times, S or SxN (N nodes) between commas,\n"
"                          cycled over the nodes: 0.5,1.5 or 0.5x50,1.5x50\n"
"                          (all 1; time-shared policies)\n"
"  --speed-blind           admission believes every node is of speed 1;\n"
"                          the jobs still run at the --speeds\n"
"  --reserve-frac F        fraction of jobs that book a later start (0)\n"
"  --reserve-lead S        a booked start, seconds after submission (3600)\n"
"  --slots M               sequential | parallel: chapter 7's advance\n"
"                          reservations of fixed, peak, libra+$, libra+$auto\n"
"                          (none)\n"
"  --slot-accept A         proposed | requested: a later slot taken (proposed)\n"
"  --slot-cancel F         fraction of reservations cancelled, unrefunded (0)\n"
"  --bag-frac F            fraction of jobs made bags of tasks (0)\n"
"  --bag-tasks N           tasks of a bag, each the job as traced (10)\n"
"  --bag-throttle K        at most K of a bag's tasks at once (none)\n"
"  --bag-mode M            one | each: a bag under one SLA, or its tasks\n"
"                          submitted one by one, each with its own (one)\n"
"  --predict M             Libra family: admit on predicted run times,\n"
"                          none | last2 | ratio | runtime (none)\n"
"  --predict-risk R        admit on the 1-R quantile of the history (0.05)\n"
"  --predict-min N         finished jobs that make a history (2)\n"
"  --predict-hard H        declared | predicted: hard jobs' work (predicted)\n"
"  --predict-protect P     on | off: overrunning jobs yield (on)\n"
"  --predict-pace F        predicted work ends at F of the window (1)\n"
"  --predict-soft-cap C    estimate | deadline: soft jobs' most P (estimate)\n"
"\n"
"Power (time-shared policies; the others are billed as static):\n"
"  --power H               none | static | h1 | h2 | h3 | h5 | slurm (none)\n"
"  --tariff SPEC           rate per node-hour by time of day, e.g.\n"
"                          '00:00=0.6;07:00=1.0;23:00=0.6' (flat 1)\n"
"  --tariff-start T        the tariff's time of day at the first job:\n"
"                          HH:MM or trace (trace: from the SWF header)\n"
"  --power-interval S      between decision points (900)\n"
"  --boot S, --shutdown S  a node's boot and shutdown (300, 60)\n"
"  --suspend-time S        --power slurm: idle time before power down (600)\n"
"  --power-pace P          on | off: h3, h5 aim a deferred job's share at\n"
"                          the end of the tariff's stretch it begins in (off)\n"
"  --power-warm N          h1, h2, h3, h5: keep at least N nodes powered and\n"
"                          idle after each decision point (0)\n"
"\n"
"Policy:\n"
"  --policy P              fcfs-bf sjf-bf edf-bf libra libra+$ librasla\n"
"                          librariskd libra+$auto firstreward fixed peak\n"
"                          isqos | all (all but fixed, peak and isqos)\n"
"  --isqos K=V,...         the ISQoS market: providers=N, filter=hybrid|\n"
"                          going|profit|top, history=N, deviation=F,\n"
"                          min-rate=R, slope=K, price=count|queued,\n"
"                          resched=on|off\n"
"  --model M               commodity | bid (per policy by default)\n"
"  --economy E             site | thesis: budgets and penalty rates x procs,\n"
"                          or per job as the thesis' (site)\n"
"  --alpha A, --beta B     Libra+$ price weights (1, 0.1)\n"
"  --price-base P          base price per CPU-hour\n"
"  --resfree window|thesis, --charge cpu|thesis\n"
"  --gamma G, --delta D    Libra's static price\n"
"  --capacity C, --share-min S, --risk-sigma S, --risk-mu M\n"
"  --riskd-admit site|thesis  LibraRiskD: decision 8's test, or Fig. 5.1's\n"
"                          (sigma alone, RE > D tried) (site)\n"
"  --beta-min B, --beta-max B   Libra+$Auto bounds\n"
"  --markup M              mark-up of jobs without a tier (0)\n"
"  --price-damping S       Libra+$ demand smoothing time constant (0: off)\n"
"  --min-profit-rate R     the Libra family declines a job earning less\n"
"                          profit per hour to its target (0: off)\n"
"  --peak-price P          peak: price per CPU-hour in peak hours (3)\n"
"  --peak-hours A-B        peak: the peak hours on the trace's clock (12-24)\n"
"  --fr-alpha A, --fr-discount D, --fr-slack S   FirstReward (1, 0.01, 25)\n"
"  --sla-order O           librasla: return | bestfit: node order (return)\n"
"  --sla-protect P         librasla: on | off: no admitted hard job delayed\n"
"                          (on)\n"
"  --sla-return R          librasla: eq45 | utility: a job's return (eq45)\n"
"\n"
"Output:\n"
"  --json                  one JSON object per line instead of key=value\n"
"  --jobs-csv FILE         one CSV row per job and policy\n"
"  --self-check            cross-check the simulator against the ledger\n"
"  --probe-csv FILE        quote a fixed request while jobs arrive, one row\n"
"                          per quote (time-shared policies)\n"
"  --probe-every S, --probe-cpus N, --probe-runtime S, --probe-deadline S\n"
"                          the probe: every 3600 s, 1 CPU x 3600 s, deadline\n"
"                          14400 s after the quote\n"
"  --help, --version\n"
"\n"
"See libra-sim(1).\n");
}

static void _usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
	exit(2);
}

/*
 * An option that is a SchedulerParameters key under another name (--boot
 * is libra_power_boot): read by the key's entry of params_base.c's one
 * table, so that the simulator takes exactly what slurm.conf takes.  off:
 * the key's double in libra_params_t.
 */
static double _keyed(const char *opt, const char *key, const char *s,
		     size_t off)
{
	libra_params_t scratch;
	char err[256];

	libra_params_default(&scratch);
	if (libra_params_set(&scratch, key, s, err, sizeof(err)))
		_usage_error("--%s: %s", opt, err);
	return *(const double *) ((const char *) &scratch + off);
}
#define KEYED(opt, key, field, s) \
	_keyed(opt, key, s, offsetof(libra_params_t, field))

/* A finite number in [lo, hi] (lo_open/hi_open: exclusive). */
static double _num(const char *opt, const char *s, double lo, bool lo_open,
		   double hi, bool hi_open)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno == ERANGE || !isfinite(v) ||
	    !strncasecmp(s, "0x", 2) || !strncasecmp(s, "-0x", 3) ||
	    !strncasecmp(s, "+0x", 3))
		_usage_error("--%s: '%s' is not a number", opt, s);
	if ((lo_open ? v <= lo : v < lo) || (hi_open ? v >= hi : v > hi)) {
		char lo_s[32] = "", hi_s[32] = "";

		if (isfinite(lo))
			snprintf(lo_s, sizeof(lo_s), "%s %g",
				 lo_open ? ">" : ">=", lo);
		if (isfinite(hi))
			snprintf(hi_s, sizeof(hi_s), "%s%s %g",
				 *lo_s ? " and " : "", hi_open ? "<" : "<=",
				 hi);
		_usage_error("--%s: %s is out of range (must be %s%s)", opt,
			     s, lo_s, hi_s);
	}
	return v;
}

static long _int(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno == ERANGE)
		_usage_error("--%s: '%s' is not an integer", opt, s);
	if (v < lo || v > hi)
		_usage_error("--%s: %s is out of range (must be %ld..%ld)",
			     opt, s, lo, hi);
	return v;
}

static void _estimates(sim_config_t *cfg, const char *s)
{
	const char *colon = strchr(s, ':');
	size_t klen = colon ? (size_t) (colon - s) : strlen(s);

	if (!colon && !strcmp(s, "accurate")) {
		cfg->est = SIM_EST_ACCURATE;
		cfg->est_pct = 0;
	} else if (!colon && !strcmp(s, "trace")) {
		cfg->est = SIM_EST_TRACE;
		cfg->est_pct = 100;
	} else if (colon && klen == 5 && !strncmp(s, "trace", 5)) {
		cfg->est = SIM_EST_TRACE;
		cfg->est_pct = _num("estimates", colon + 1, 0, false, 100,
				    false);
	} else if (colon && klen == 5 && !strncmp(s, "under", 5)) {
		cfg->est = SIM_EST_UNDER;
		cfg->est_pct = _num("estimates", colon + 1, 0, false, 100,
				    true);
	} else {
		_usage_error("--estimates: '%s' is not accurate, trace, "
			     "trace:PCT or under:PCT", s);
	}
}

/*
 * The options that set the policy core's parameters, and their keys: the
 * core's one table (params_base.c) parses and checks them, so an option
 * takes exactly what its libra_* key takes in slurm.conf (sched_libra(8)).
 */
static const struct {
	int opt;
	const char *key;
} param_opts[] = {
	{ OPT_ALPHA, "libra_alpha" },
	{ OPT_BETA, "libra_beta" },
	{ OPT_PRICE_BASE, "libra_price_base" },
	{ OPT_RESFREE, "libra_resfree" },
	{ OPT_CHARGE, "libra_charge" },
	{ OPT_GAMMA, "libra_gamma" },
	{ OPT_DELTA, "libra_delta" },
	{ OPT_CAPACITY, "libra_capacity" },
	{ OPT_SHARE_MIN, "libra_share_min" },
	{ OPT_RISK_SIGMA, "libra_risk_sigma" },
	{ OPT_RISK_MU, "libra_risk_mu" },
	{ OPT_BETA_MIN, "libra_beta_min" },
	{ OPT_BETA_MAX, "libra_beta_max" },
	{ OPT_MARKUP, "libra_markup" },
	{ OPT_PRICE_DAMPING, "libra_price_damping" },
	{ OPT_MIN_PROFIT_RATE, "libra_min_profit_rate" },
	{ OPT_PEAK_PRICE, "libra_peak_price" },
	{ OPT_PEAK_HOURS, "libra_peak_hours" },
};

static const char *_param_key(int opt)
{
	size_t k;

	for (k = 0; k < sizeof(param_opts) / sizeof(param_opts[0]); k++)
		if (param_opts[k].opt == opt)
			return param_opts[k].key;
	return NULL;
}

/*
 * The options that set a number of the configuration and nothing else:
 * the field and its range (_num(): lo_open/hi_open exclusive).
 */
static const struct {
	int opt;
	size_t off;		/* a double of sim_config_t */
	double lo, hi;
	bool lo_open, hi_open;
} num_opts[] = {
	{ OPT_ADF, offsetof(sim_config_t, adf), 0, INFINITY, true, false },
	{ OPT_HIGH, offsetof(sim_config_t, high_pct), 0, 100, false, false },
	{ OPT_HARD, offsetof(sim_config_t, hard_pct), 0, 100, false, false },
	{ OPT_D_RATIO, offsetof(sim_config_t, d_ratio), 0, INFINITY, true, false },
	{ OPT_D_LOW, offsetof(sim_config_t, d_low), 0, INFINITY, true, false },
	{ OPT_B_RATIO, offsetof(sim_config_t, b_ratio), 0, INFINITY, true, false },
	{ OPT_B_LOW, offsetof(sim_config_t, b_low), 0, INFINITY, true, false },
	{ OPT_P_RATIO, offsetof(sim_config_t, p_ratio), 0, INFINITY, true, false },
	{ OPT_P_LOW, offsetof(sim_config_t, p_low), 0, INFINITY, true, false },
	{ OPT_CV, offsetof(sim_config_t, cv), 0, 10, false, false },
	{ OPT_BIAS_D, offsetof(sim_config_t, bias_d), 0, INFINITY, true, false },
	{ OPT_BIAS_B, offsetof(sim_config_t, bias_b), 0, INFINITY, true, false },
	{ OPT_BIAS_P, offsetof(sim_config_t, bias_p), 0, INFINITY, true, false },
	{ OPT_DUE_FRAC, offsetof(sim_config_t, due_frac), 0, 1, true, false },
	{ OPT_PENALTY_CAP, offsetof(sim_config_t, penalty_cap), 0, 1e6, false, false },
	{ OPT_RESERVE_FRAC, offsetof(sim_config_t, reserve_frac), 0, 1, false, false },
	{ OPT_SLOT_CANCEL, offsetof(sim_config_t, slot_cancel), 0, 1, false, false },
	{ OPT_RESERVE_LEAD, offsetof(sim_config_t, reserve_lead), 0, 1e8, true, false },
	{ OPT_BAG_FRAC, offsetof(sim_config_t, bag_frac), 0, 1, false, false },
	{ OPT_FR_ALPHA, offsetof(sim_config_t, fr_alpha), 0, 1, false, false },
	{ OPT_FR_DISCOUNT, offsetof(sim_config_t, fr_discount), 0, INFINITY, false, false },
	{ OPT_FR_SLACK, offsetof(sim_config_t, fr_slack), -INFINITY, INFINITY, false, false },
	{ OPT_PROBE_EVERY, offsetof(sim_config_t, probe_every), 1, INFINITY, false, false },
	{ OPT_PROBE_RUNTIME, offsetof(sim_config_t, probe_runtime), 0, INFINITY, true, false },
	{ OPT_PROBE_DEADLINE, offsetof(sim_config_t, probe_period), 0, INFINITY, true, false },
};

/* Option c, if it only sets a number: its value from a, checked. */
static bool _num_opt(sim_config_t *cfg, int c, const char *name,
		     const char *a)
{
	size_t k;

	for (k = 0; k < sizeof(num_opts) / sizeof(num_opts[0]); k++) {
		if (num_opts[k].opt != c)
			continue;
		*(double *) ((char *) cfg + num_opts[k].off) =
			_num(name, a, num_opts[k].lo, num_opts[k].lo_open,
			     num_opts[k].hi, num_opts[k].hi_open);
		return true;
	}
	return false;
}

/* One of the words of a two-valued option: true for yes, false for no. */
static bool _word(const char *opt, const char *a, const char *yes,
		  const char *no)
{
	if (!strcmp(a, yes))
		return true;
	if (strcmp(a, no))
		_usage_error("--%s: '%s' is not %s or %s", opt, a, yes, no);
	return false;
}

static void _defaults(sim_config_t *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	libra_params_default(&cfg->params);
	/* thesis Table 3.1 */
	cfg->params.alpha = 1.0;
	cfg->params.beta = 0.1;
	cfg->adf = 0.5;
	cfg->high_pct = 20.0;
	cfg->hard_pct = -1.0;
	cfg->d_ratio = 4.0;
	cfg->d_low = 2.0;
	cfg->b_ratio = 4.0;
	cfg->b_low = 2.0;
	/* thesis Table 4.1 */
	cfg->p_ratio = 4.0;
	cfg->p_low = 4.0;
	cfg->cv = 0.25;
	cfg->bias_d = cfg->bias_b = cfg->bias_p = 1.0;
	cfg->est = SIM_EST_ACCURATE;
	cfg->seed = 1;
	cfg->model = SIM_MODEL_DEFAULT;
	cfg->economy = SIM_ECONOMY_SITE;
	/* thesis 6.4.2 */
	cfg->fr_alpha = 1.0;
	sim_isqos_defaults(&cfg->isqos);
	cfg->fr_discount = 0.01;
	cfg->fr_slack = 25.0;
	cfg->probe_every = 3600.0;
	cfg->probe_cpus = 1;
	cfg->probe_runtime = 3600.0;
	cfg->probe_period = 14400.0;
	cfg->reserve_lead = 3600.0;
	cfg->penalty_cap = -1.0;
	cfg->predict = LIBRA_PREDICT_NONE;
	cfg->predict_risk = 0.05;
	cfg->predict_min = 2;
	cfg->predict_pace = 1.0;
	cfg->power = LIBRA_POWER_NONE;
	cfg->tariff_start = -1;
	cfg->power_interval = 900.0;
	cfg->boot = 300.0;
	cfg->shutdown = 60.0;
	cfg->suspend_time = 600.0;
}

/* --tariff-start HH:MM[:SS] -> seconds of the day; -1: trace */
static long _time_of_day(const char *s)
{
	int h, m, sec = 0, len = 0;

	if (!strcmp(s, "trace"))
		return -1;
	if ((sscanf(s, "%2d:%2d:%2d%n", &h, &m, &sec, &len) == 3 ||
	     sscanf(s, "%2d:%2d%n", &h, &m, &len) == 2) &&
	    !s[len] && h >= 0 && h <= 23 && m >= 0 && m <= 59 &&
	    sec >= 0 && sec <= 59 && isdigit((unsigned char) s[0]))
		return h * 3600L + m * 60L + sec;
	_usage_error("--tariff-start: '%s' is not HH:MM, HH:MM:SS or trace",
		     s);
	return -1;
}

/* A file name option's value: not empty. */
static const char *_file(const char *opt, const char *a)
{
	if (!*a)
		_usage_error("--%s: empty file name", opt);
	return a;
}

/* --seed: an unsigned 64-bit integer, digits only. */
static uint64_t _seed(const char *a)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(a, &end, 10);
	if (!*a || *end || errno || *a == '-' || *a == '+' || *a == ' ')
		_usage_error("--seed: '%s' is not an unsigned 64-bit integer",
			     a);
	return (uint64_t) v;
}

/* --memory: which memory of the SWF a job asks. */
static sim_mem_t _memory(const char *a)
{
	if (!strcmp(a, "requested"))
		return SIM_MEM_REQUESTED;
	if (!strcmp(a, "used"))
		return SIM_MEM_USED;
	if (strcmp(a, "either"))
		_usage_error("--memory: '%s' is not requested, used or either",
			     a);
	return SIM_MEM_EITHER;
}

/* --node-memory: whole MB, at least 1. */
static uint64_t _node_memory(const char *opt, const char *a)
{
	uint64_t mb = (uint64_t) _num(opt, a, 0, true, 1e12, false);

	if (!mb)
		_usage_error("--node-memory: '%s' is less than 1 MB", a);
	return mb;
}

/* The most processors --procs takes, hence the longest --speeds list. */
#define SIM_PROCS_MAX 1000000

/*
 * --speeds LIST (doc/design.md decision 43): entries S or SxN between
 * commas, S a node's speed against the reference CPU, in (0,
 * LIBRA_SPEED_MAX], N how many nodes in a row have it (1..SIM_PROCS_MAX,
 * default 1); node k gets the (k mod length)-th speed of the list so
 * written out.  Every error names the entry.
 */
static void _speeds(sim_config_t *cfg, const char *a)
{
	char *copy = sim_xmalloc(strlen(a) + 1), *p, *end;
	double *v = NULL;
	long n = 0;

	strcpy(copy, a);
	p = copy;
	for (;;) {
		char *comma = strchr(p, ','), *x;
		double speed;
		long count = 1;

		if (comma)
			*comma = '\0';
		if (!*p)
			_usage_error("--speeds: an empty entry in '%s' (write "
				     "speeds as 0.5,1.5 or 0.5x50,1.5x50)", a);
		x = strchr(p, 'x');
		if (x) {
			*x = '\0';
			errno = 0;
			count = strtol(x + 1, &end, 10);
			if (!isdigit((unsigned char) x[1]) || *end ||
			    errno == ERANGE || count < 1 ||
			    count > SIM_PROCS_MAX)
				_usage_error("--speeds: '%s' in entry "
					     "'%sx%s' is not a number of "
					     "nodes (1..%d)", x + 1, p, x + 1,
					     SIM_PROCS_MAX);
		}
		if (!*p)
			_usage_error("--speeds: entry 'x%s' has no speed",
				     x + 1);
		speed = _num("speeds", p, 0, true, LIBRA_SPEED_MAX, false);
		if (n + count > SIM_PROCS_MAX)
			_usage_error("--speeds: '%s' gives more than %d nodes",
				     a, SIM_PROCS_MAX);
		v = sim_xrealloc(v, (size_t) (n + count) * sizeof(*v));
		while (count--)
			v[n++] = speed;
		if (!comma)
			break;
		p = comma + 1;
	}
	free(copy);
	free(cfg->speeds);	/* given twice: the last counts */
	cfg->speeds = v;
	cfg->nspeeds = (int) n;
}

/* --tier: a tier for every job, or each job's from its urgency. */
static void _tier(sim_config_t *cfg, const char *a)
{
	cfg->tier_by_urgency = !strcmp(a, "urgency");
	if (!cfg->tier_by_urgency &&
	    (!libra_tier_from_name(a, &cfg->tier) ||
	     cfg->tier == LIBRA_TIER_NONE))
		_usage_error("--tier: '%s' is not value, standard, premium "
			     "or urgency", a);
}

/* The economic options (--model, --economy): option c, if it is one,
 * taken into cfg. */
static bool _money_opt(sim_config_t *cfg, int c, const char *name,
		       const char *a)
{
	switch (c) {
	case OPT_MODEL:
		cfg->model = _word(name, a, "commodity", "bid") ?
			     SIM_MODEL_COMMODITY : SIM_MODEL_BID;
		return true;
	case OPT_ECONOMY:
		cfg->economy = _word(name, a, "thesis", "site") ?
			       SIM_ECONOMY_THESIS : SIM_ECONOMY_SITE;
		return true;
	default:
		return false;
	}
}

/* LibraSLA's ablation (--sla-order, --sla-protect, --sla-return;
 * doc/design.md decision 50): option c, if it is one, taken into cfg. */
static bool _sla_opt(sim_config_t *cfg, int c, const char *name,
		     const char *a)
{
	switch (c) {
	case OPT_SLA_ORDER:
		cfg->params.sla_bestfit = _word(name, a, "bestfit", "return");
		return true;
	case OPT_SLA_PROTECT:
		cfg->params.sla_unprotected = !_word(name, a, "on", "off");
		return true;
	case OPT_SLA_RETURN:
		cfg->params.sla_return_utility =
			_word(name, a, "utility", "eq45");
		return true;
	default:
		return false;
	}
}

/* The runtime predictor's options (--predict and --predict-*): option c,
 * if it is one, taken into cfg. */
static bool _predict_opt(sim_config_t *cfg, int c, const char *name,
			 const char *a)
{
	switch (c) {
	case OPT_PREDICT:
		if (!libra_predict_method_from_name(a, &cfg->predict))
			_usage_error("--predict: '%s' is not none, "
				     "last2, ratio or runtime", a);
		return true;
	case OPT_PREDICT_RISK:
		cfg->predict_risk = KEYED(name, "libra_predict_risk",
					  predict_risk, a);
		return true;
	case OPT_PREDICT_MIN:
		cfg->predict_min = (int) KEYED(name,
					       "libra_predict_min",
					       predict_min, a);
		return true;
	case OPT_PREDICT_HARD:
		cfg->predict_hard_declared =
			_word(name, a, "declared", "predicted");
		return true;
	case OPT_PREDICT_SOFT_CAP:
		cfg->predict_soft_uncapped =
			!_word(name, a, "estimate", "deadline");
		return true;
	case OPT_PREDICT_PACE:
		cfg->predict_pace = KEYED(name, "libra_predict_pace",
					  predict_pace, a);
		return true;
	case OPT_PREDICT_PROTECT:
		cfg->predict_protect_off = !_word(name, a, "on", "off");
		return true;
	default:
		return false;
	}
}

/*
 * The power options (--power and what needs it): option c, if it is one,
 * taken into cfg; *power_opts notes which kinds were given (1 --power, 2
 * what needs --power, 4 what needs --power slurm, 8 --power-pace, 16
 * --tariff-start, which peak's clock also takes, 32 --power-warm) for
 * _parse_check().
 */
static bool _power_opt(sim_config_t *cfg, int c, const char *name,
		       const char *a, int *power_opts)
{
	char err[256];

	switch (c) {
	case OPT_POWER:
		cfg->power_slurm = !strcmp(a, "slurm");
		if (!cfg->power_slurm &&
		    !libra_power_from_name(a, &cfg->power))
			_usage_error("--power: '%s' is not none, static, "
				     "h1, h2, h3, h5 or slurm", a);
		cfg->power_on = cfg->power_slurm ||
				cfg->power != LIBRA_POWER_NONE;
		if (cfg->power_slurm)
			cfg->power = LIBRA_POWER_H1;
		*power_opts |= 1;
		return true;
	case OPT_TARIFF:
		if (libra_tariff_parse(&cfg->tariff, a, err, sizeof(err)))
			_usage_error("--tariff: %s", err);
		libra_tariff_format(&cfg->tariff, cfg->tariff_spec,
				    sizeof(cfg->tariff_spec));
		break;
	case OPT_TARIFF_START:
		cfg->tariff_start = _time_of_day(a);
		*power_opts |= 16;	/* --power, or peak's clock */
		return true;
	case OPT_POWER_INTERVAL:
		cfg->power_interval = KEYED(name, "libra_power_interval",
					    power_interval, a);
		break;
	case OPT_BOOT:
		cfg->boot = KEYED(name, "libra_power_boot", power_boot, a);
		break;
	case OPT_SHUTDOWN:
		cfg->shutdown = KEYED(name, "libra_power_shutdown",
				      power_shutdown, a);
		break;
	case OPT_POWER_PACE:
		cfg->power_pace = _word(name, a, "on", "off");
		*power_opts |= 8;
		return true;
	case OPT_SUSPEND_TIME:
		cfg->suspend_time = _num(name, a, 0, false, 1e8, false);
		*power_opts |= 4;
		return true;
	case OPT_POWER_WARM:
		/* libra_power_warm's range: a whole number of nodes */
		cfg->power_warm = (int) KEYED(name, "libra_power_warm",
					      power_warm, a);
		*power_opts |= 32;
		return true;
	default:
		return false;
	}
	*power_opts |= 2;
	return true;
}

/*
 * The bag options (--bag-*; doc/design.md decision 36): option c, if it
 * is one, taken into *tasks, *throttle (0: none) and cfg; *bag_opts notes
 * which were given (1 --bag-frac, 2 the others) for _bag_check().
 */
static bool _bag_opt(sim_config_t *cfg, int c, const char *name,
		     const char *a, int *tasks, int *throttle, int *bag_opts)
{
	switch (c) {
	case OPT_BAG_FRAC:
		*bag_opts |= 1;
		return false;	/* a number: num_opts */
	case OPT_BAG_TASKS:
		*tasks = (int) _int(name, a, 1, LIBRA_BAG_MAX_SIZE);
		break;
	case OPT_BAG_THROTTLE:
		*throttle = strcmp(a, "none") ?
			    (int) _int(name, a, 1, INT_MAX) : 0;
		break;
	case OPT_BAG_MODE:
		cfg->bag_each = _word(name, a, "each", "one");
		break;
	default:
		return false;
	}
	*bag_opts |= 2;
	return true;
}

/* The bag of --bag-tasks and --bag-throttle, as the core reads the array
 * "0-(N-1)%K" that sbatch would be given. */
static void _bag_check(sim_config_t *cfg, int tasks, int throttle,
		       int bag_opts)
{
	char inx[64], err[256];

	if ((bag_opts & 2) && !(cfg->bag_frac > 0.0))
		_usage_error("--bag-tasks, --bag-throttle and --bag-mode need "
			     "--bag-frac above 0");
	if (!(cfg->bag_frac > 0.0))
		return;
	if (cfg->predict != LIBRA_PREDICT_NONE)
		_usage_error("--bag-frac and --predict exclude each other (a "
			     "bag's run time is its tasks', not a job's of "
			     "its user's history)");
	if (cfg->economy == SIM_ECONOMY_THESIS)
		_usage_error("--bag-frac needs --economy site (a bag's money "
			     "is split among its tasks, which adds up only "
			     "when money scales with the CPUs)");
	if (throttle)
		snprintf(inx, sizeof(inx), "0-%d%%%d", tasks - 1, throttle);
	else
		snprintf(inx, sizeof(inx), "0-%d", tasks - 1);
	if (libra_bag_parse(inx, LIBRA_BAG_MAX_SIZE, &cfg->bag, err,
			    sizeof(err)))
		_usage_error("--bag-tasks, --bag-throttle: %s", err);
}

/* What the options say together: what is required, what excludes or
 * needs what. */
static void _parse_check(sim_config_t *cfg, const char *policy,
			 int power_opts)
{
	char err[256];

	if (!cfg->trace && !cfg->synthetic.n)
		_usage_error("--trace is required");
	if (cfg->trace && cfg->synthetic.n)
		_usage_error("--trace and --synthetic exclude each other");
	if (cfg->synthetic.n && !cfg->procs)
		_usage_error("--synthetic needs --procs");
	if (!policy)
		_usage_error("--policy is required");
	if (!strcmp(policy, "all"))
		cfg->all = true;
	else if (!sim_policy_from_name(policy, &cfg->policy))
		_usage_error("--policy: unknown policy '%s' (fcfs-bf, sjf-bf, "
			     "edf-bf, libra, libra+$, librasla, librariskd, "
			     "libra+$auto, firstreward, fixed, peak, isqos, "
			     "all)",
			     policy);
	if (cfg->first && cfg->last)
		_usage_error("--first and --last exclude each other");
	if (cfg->due_rate && !(cfg->due_frac > 0.0))
		_usage_error("--due-rate needs --due-frac");
	if ((cfg->mem != SIM_MEM_NONE) != (cfg->node_mem_mb > 0))
		_usage_error("--memory and --node-memory go together");
	if (libra_params_check(&cfg->params, err, sizeof(err)))
		_usage_error("--beta-min, --beta-max: %s", err);
	if ((power_opts & 2) && !cfg->power_on)
		_usage_error("--tariff, --tariff-start, --power-interval, --boot "
			     "and --shutdown need --power");
	if ((power_opts & 16) && !cfg->power_on &&
	    (cfg->all || cfg->policy != SIM_PEAK))
		_usage_error("--tariff-start needs --power or --policy peak");
	if ((power_opts & 4) && !cfg->power_slurm)
		_usage_error("--suspend-time needs --power slurm");
	if ((power_opts & 8) && !libra_power_defers(cfg->power))
		_usage_error("--power-pace needs --power h3 or h5");
	if ((power_opts & 32) && (!cfg->power_on || cfg->power_slurm ||
				  cfg->power == LIBRA_POWER_STATIC))
		_usage_error("--power-warm needs --power h1, h2, h3 or h5");
	if (cfg->speed_blind && !cfg->speeds)
		_usage_error("--speed-blind needs --speeds");
	if (cfg->speeds && cfg->all)
		_usage_error("--speeds: --policy all runs the space-shared "
			     "policies, which model no node speeds; name a "
			     "time-shared policy (libra, libra+$, librasla, "
			     "librariskd, libra+$auto, fixed, peak)");
	if (cfg->speeds && !sim_policy_timeshared(cfg->policy))
		_usage_error("--speeds: %s is space-shared and models no node "
			     "speeds; --speeds is for the time-shared policies "
			     "(libra, libra+$, librasla, librariskd, "
			     "libra+$auto, fixed, peak)",
			     sim_policy_name(cfg->policy));
}

/* The options of what is modelled: estimates, due dates' rates, memory,
 * tiers, node speeds.  True when c was one of them. */
static bool _model_opt(sim_config_t *cfg, int c, const char *name,
		       const char *a)
{
	switch (c) {
	case OPT_EST:
		_estimates(cfg, a);
		return true;
	case OPT_DUE_RATE:
		cfg->due_rate = true;
		return true;
	case OPT_MEMORY:
		cfg->mem = _memory(a);
		return true;
	case OPT_NODE_MEMORY:
		cfg->node_mem_mb = _node_memory(name, a);
		return true;
	case OPT_TIER:
		_tier(cfg, a);
		return true;
	case OPT_SPEEDS:
		_speeds(cfg, a);
		return true;
	case OPT_SPEED_BLIND:
		cfg->speed_blind = true;
		return true;
	default:
		return false;
	}
}

static void _parse(int argc, char **argv, sim_config_t *cfg)
{
	libra_params_t *p = &cfg->params;
	const char *policy = NULL;
	char err[256];
	int c, power_opts = 0, bag_opts = 0, tasks = 10, throttle = 0;
	bool slot_opts = false;

	_defaults(cfg);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		const char *a = optarg;
		const char *name = NULL;
		const char *key = _param_key(c);
		int k;

		for (k = 0; long_opts[k].name; k++)
			if (long_opts[k].val == c)
				name = long_opts[k].name;
		if (key) {
			if (libra_params_set(p, key, a, err, sizeof(err)))
				_usage_error("--%s: %s", name, err);
			continue;
		}
		if (_bag_opt(cfg, c, name, a, &tasks, &throttle, &bag_opts) ||
		    _num_opt(cfg, c, name, a) ||
		    _predict_opt(cfg, c, name, a) ||
		    _power_opt(cfg, c, name, a, &power_opts) ||
		    _money_opt(cfg, c, name, a) ||
		    _sla_opt(cfg, c, name, a) ||
		    _model_opt(cfg, c, name, a))
			continue;
		switch (c) {
		case OPT_TRACE:
			cfg->trace = _file(name, a);
			break;
		case OPT_PROCS:
			cfg->procs = (int) _int(name, a, 1, SIM_PROCS_MAX);
			break;
		case OPT_SLOTS:
			if (!strcmp(a, "sequential"))
				cfg->slots = SIM_SLOTS_SEQUENTIAL;
			else if (!strcmp(a, "parallel"))
				cfg->slots = SIM_SLOTS_PARALLEL;
			else
				_usage_error("--slots: '%s' is not sequential "
					     "or parallel", a);
			break;
		case OPT_SLOT_ACCEPT:
			if (strcmp(a, "proposed") && strcmp(a, "requested"))
				_usage_error("--slot-accept: '%s' is not "
					     "proposed or requested", a);
			cfg->slot_requested = !strcmp(a, "requested");
			slot_opts = true;
			break;
		case OPT_SYNTHETIC:
			if (sim_synthetic_parse(a, &cfg->synthetic, err,
						sizeof(err)))
				_usage_error("--synthetic: %s", err);
			break;
		case OPT_LAST:
			cfg->last = _int(name, a, 1, LONG_MAX);
			break;
		case OPT_FIRST:
			cfg->first = _int(name, a, 1, LONG_MAX);
			break;
		case OPT_POLICY:
			policy = a;
			break;
		case OPT_RISKD_ADMIT:	/* decision 49: no libra.conf key */
			p->risk_thesis = _word(name, a, "thesis", "site");
			break;
		case OPT_SEED:
			cfg->seed = _seed(a);
			break;
		case OPT_JSON:
			cfg->json = true;
			break;
		case OPT_CSV:
			cfg->csv = _file(name, a);
			break;
		case OPT_SELF_CHECK:
			cfg->self_check = true;
			break;
		case OPT_PROBE_CSV:
			cfg->probe_csv = _file(name, a);
			break;
		case OPT_PROBE_CPUS:
			cfg->probe_cpus = (int) _int(name, a, 1, INT_MAX);
			break;
		case OPT_ISQOS:
			if (sim_isqos_parse(a, &cfg->isqos, err, sizeof(err)))
				_usage_error("%s", err);
			break;
		case OPT_HELP:
			_usage(stdout);
			exit(0);
		case OPT_VERSION:
			printf(PROG " (slurm-libra) %s\n", PACKAGE_VERSION);
			exit(0);
		case ':':
			_usage_error("option '%s' needs a value",
				     argv[optind - 1]);
			break;
		case '?':
		default:
			_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		_usage_error("unexpected argument '%s'", argv[optind]);
	_parse_check(cfg, policy, power_opts);
	if (cfg->slots && (cfg->all || (cfg->policy != SIM_FIXED &&
	    cfg->policy != SIM_PEAK && cfg->policy != SIM_LIBRA_PRICE &&
	    cfg->policy != SIM_LIBRA_AUTO)))
		_usage_error("--slots: only for fixed, peak, libra+$ and "
			     "libra+$auto");
	if (!cfg->slots && (slot_opts || cfg->slot_cancel > 0.0))
		_usage_error("--slot-accept and --slot-cancel need --slots");
	_bag_check(cfg, tasks, throttle, bag_opts);
}

/* ---- output --------------------------------------------------------------- */

typedef struct {
	const char *key;
	enum { F_STR, F_INT, F_UINT, F_NUM } kind;
	const char *s;
	long long i;
	uint64_t u;
	double d;
	int prec;
} field_t;

#define NFIELDS 54

static void _emit(const sim_config_t *cfg, const field_t *f, int n)
{
	int k;

	if (cfg->json) {
		json_object *o = json_object_new_object();

		for (k = 0; k < n; k++) {
			json_object *v;
			char buf[64];

			switch (f[k].kind) {
			case F_STR:
				v = json_object_new_string(f[k].s);
				break;
			case F_INT:
				v = json_object_new_int64(f[k].i);
				break;
			case F_UINT:
				v = json_object_new_uint64(f[k].u);
				break;
			case F_NUM:
			default:
				if (!isfinite(f[k].d)) {
					v = NULL;	/* null */
					break;
				}
				snprintf(buf, sizeof(buf), "%.*f", f[k].prec,
					 f[k].d);
				v = json_object_new_double_s(f[k].d, buf);
				break;
			}
			json_object_object_add(o, f[k].key, v);
		}
		printf("%s\n", json_object_to_json_string_ext(o,
						JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		return;
	}
	for (k = 0; k < n; k++) {
		printf("%s%s=", k ? " " : "", f[k].key);
		switch (f[k].kind) {
		case F_STR:
			printf("%s", f[k].s);
			break;
		case F_INT:
			printf("%lld", f[k].i);
			break;
		case F_UINT:
			printf("%" PRIu64, f[k].u);
			break;
		case F_NUM:
		default:
			if (isfinite(f[k].d))
				printf("%.*f", f[k].prec, f[k].d);
			else
				printf("nan");
			break;
		}
	}
	printf("\n");
}

static void _summary(const sim_config_t *cfg, const sim_workload_t *w,
		     sim_policy_t policy, sim_model_t model,
		     const libra_metrics_t *m, const sim_energy_t *en,
		     const sim_outcome_t *out, const sim_isqos_stats_t *iq)
{
	field_t f[NFIELDS];
	double work = 0.0;
	size_t i;
	int n = 0;

#define S(k, v) f[n++] = (field_t) { .key = k, .kind = F_STR, .s = v }
#define I(k, v) f[n++] = (field_t) { .key = k, .kind = F_INT, .i = (v) }
#define D(k, v, p) f[n++] = (field_t) { .key = k, .kind = F_NUM, .d = (v), \
					 .prec = p }
	S("policy", sim_policy_name(policy));
	S("model", sim_model_name(model));
	/* only with --economy thesis, so that the line is otherwise
	 * unchanged */
	if (cfg->economy == SIM_ECONOMY_THESIS)
		S("economy", "thesis");
	if (cfg->params.risk_thesis && policy == SIM_LIBRA_RISKD)
		S("riskd_admit", "thesis");	/* likewise */
	/* only with --predict, so that the line is otherwise unchanged,
	 * and only for the Libra family, the policies that predict */
	if (cfg->predict != LIBRA_PREDICT_NONE && sim_policy_timeshared(policy))
		S("predict", libra_predict_method_name(cfg->predict));
	I("procs", w->procs);
	I("jobs", (long long) w->n);
	I("skipped", w->skipped);
	I("accepted", m->accepted);
	I("qos_met", m->qos_met);
	D("qos", m->qos_satisfaction, 6);
	D("profit", m->profitability, 6);
	D("profit_slides", m->profitability_slides, 6);
	D("sla_pct", m->sla_pct, 4);
	D("reliability_pct", m->reliability_pct, 4);
	D("profit_pct", m->profit_pct, 4);
	D("wait", m->mean_wait, 2);
	D("slowdown", m->mean_slowdown, 4);
	I("missed", m->deadline_missed);
	D("utility", m->utility, 4);
	f[n++] = (field_t) { .key = "seed", .kind = F_UINT, .u = cfg->seed };
	/* only with --bag-frac: the bags, each counted once (bags.c) */
	if (cfg->bag_frac > 0.0) {
		sim_bag_stats_t b;

		sim_bag_stats(w, out, &b);
		S("bag_mode", cfg->bag_each ? "each" : "one");
		I("bags", b.bags);
		I("bags_met", b.met);
		I("bags_partial", b.partial);
		I("bag_tasks", b.tasks);
		I("bag_tasks_refused", b.refused);
		D("bag_profit", b.profit, 6);
	}
	/* only with --power: the bill (energy.h) */
	if (cfg->power_on) {
		S("power", en->power);
		S("tariff", cfg->tariff.n ? cfg->tariff_spec : "flat");
		I("tariff_offset", en->offset);
		D("energy", en->cost, 6);
		D("node_hours", en->node_sec / 3600.0, 4);
		/* the CPU-hours of the admitted jobs (R x procs): what the
		 * powered hours served */
		for (i = 0; i < w->n; i++)
			if (out[i].accepted)
				work += sim_job_work(&w->jobs[i]);
		D("work_hours", work / 3600.0, 4);
		D("span", en->span, 3);
		I("power_ups", en->ups);
		I("power_downs", en->downs);
		I("deferred", en->deferred);
		I("boot_waits", en->boot_waits);
		I("late_begins", en->late_begins);
	}
	/* only with --policy isqos: the offers' measures (isqos.c) */
	if (policy == SIM_ISQOS) {
		I("providers", iq->providers);
		I("offers", iq->offers);
		D("budget_slack", iq->budget_slack, 6);
		D("offer_profit", iq->profit, 6);
		D("resilience", iq->resilience, 6);
		D("profit_rate", iq->profit_rate, 6);
		D("going_rate", iq->going, 6);
		D("rate_mean", iq->rate_mean, 6);
		D("rate_sd", iq->rate_sd, 6);
		D("bill_gap", iq->bill_gap, 3);
		D("bill_gap_sd", iq->bill_gap_sd, 3);
	}
#undef S
#undef I
#undef D
	_emit(cfg, f, n);
}

/* With --reserve-frac a last column, begin (empty: no reservation), with
 * --predict predicted, with --bag-frac bag_tasks and task; the columns are
 * those of earlier releases without them. */
static void _csv_header(FILE *f, const sim_config_t *cfg)
{
	fprintf(f, "id,submit,procs,runtime,estimate,deadline,budget,"
		"penalty_rate,type,urgency,accepted,verdict,start,end,price,"
		"charge,deadline_met,policy%s%s%s\n",
		cfg->reserve_frac > 0.0 ? ",begin" : "",
		cfg->predict != LIBRA_PREDICT_NONE ? ",predicted" : "",
		cfg->bag_frac > 0.0 ? ",bag_tasks,task" : "");
}

/* --bag-frac: a bag's tasks (N, empty), a task's (N, its number 0 ..
 * N - 1; --bag-mode each), or empty for a job. */
static void _csv_bag(FILE *f, const sim_job_t *j)
{
	if (!j->bag.tasks)
		fprintf(f, ",,");
	else if (sim_job_is_bag(j))
		fprintf(f, ",%d,", j->bag.tasks);
	else
		fprintf(f, ",%d,%d", j->bag.tasks, j->task);
}

static void _csv_rows(FILE *f, const sim_config_t *cfg,
		      const sim_workload_t *w, sim_policy_t policy,
		      const sim_outcome_t *out)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		const sim_job_t *j = &w->jobs[i];
		const sim_outcome_t *o = &out[i];

		fprintf(f, "%ld,%.3f,%d,%.3f,%.3f,%.3f,%.6f,%.6f,%s,%s,%d,%s,",
			j->id, j->submit, j->procs, j->runtime, j->estimate,
			j->deadline, j->budget, j->penalty_rate,
			j->hard ? "hard" : "soft", j->high ? "high" : "low",
			o->accepted ? 1 : 0, o->verdict ? o->verdict : "");
		if (o->accepted)
			fprintf(f, "%.3f,%.3f,%.6f,%.6f,%d,", o->start,
				o->end, o->price, o->charge, o->met ? 1 : 0);
		else
			fprintf(f, ",,,%.6f,0,", 0.0);
		fprintf(f, "%s", sim_policy_name(policy));
		if (cfg->reserve_frac > 0.0 && j->reserved)
			fprintf(f, ",%.3f", j->begin);
		else if (cfg->reserve_frac > 0.0)
			fprintf(f, ",");
		/* with --predict: the run time the Libra family quoted it
		 * on; empty for the policies that do not predict */
		if (cfg->predict != LIBRA_PREDICT_NONE && o->predicted > 0)
			fprintf(f, ",%.3f", o->predicted);
		else if (cfg->predict != LIBRA_PREDICT_NONE)
			fprintf(f, ",");
		if (cfg->bag_frac > 0.0)
			_csv_bag(f, j);
		fprintf(f, "\n");
	}
}

/* ---- the run loop --------------------------------------------------------- */

static int _run(const sim_config_t *cfg, const sim_workload_t *w,
		sim_policy_t policy, FILE *csv)
{
	sim_model_t model = cfg->model == SIM_MODEL_DEFAULT ?
			    sim_policy_model(policy) : cfg->model;
	sim_outcome_t *out = sim_xcalloc(w->n + 1, sizeof(*out));
	sim_energy_t en = { 0 };
	sim_isqos_stats_t iq = { 0 };
	libra_metrics_t m;
	char err[512] = "";
	size_t i;
	int rc;

	switch (cfg->slots ? SIM_POLICY_COUNT : policy) {
	case SIM_POLICY_COUNT:	/* --slots: chapter 7's reservations */
		rc = sim_run_slots(cfg, w, policy, out, err, sizeof(err));
		break;
	case SIM_FCFS_BF:
	case SIM_SJF_BF:
	case SIM_EDF_BF:
	case SIM_FIRST_REWARD:
		rc = sim_run_spaced(cfg, w, policy, model, out, err,
				    sizeof(err));
		break;
	case SIM_ISQOS:
		rc = sim_run_isqos(cfg, w, model, out, &iq, err, sizeof(err));
		break;
	default:
		rc = sim_run_timeshare(cfg, w, policy, model, out, &en, err,
				       sizeof(err));
		break;
	}
	if (rc) {
		fprintf(stderr, PROG ": %s: %s\n", sim_policy_name(policy),
			err);
		free(out);
		return -1;
	}

	libra_metrics_init(&m);
	for (i = 0; i < w->n; i++) {
		libra_job_result_t r;

		sim_result(&w->jobs[i], &out[i], &r);
		libra_metrics_add(&m, &r);
	}
	libra_metrics_finish(&m);
	if (cfg->power_on && !sim_policy_timeshared(policy)) {
		/* no power model: every node powered until the last event */
		double span = 0.0;

		for (i = 0; i < w->n; i++) {
			span = fmax(span, w->jobs[i].submit);
			if (out[i].accepted)
				span = fmax(span, out[i].end);
		}
		sim_energy_static(cfg, w->procs, cfg->tariff_start, span, &en);
	}
	_summary(cfg, w, policy, model, &m, &en, out, &iq);
	if (csv)
		_csv_rows(csv, cfg, w, policy, out);
	free(out);
	return 0;
}

int main(int argc, char **argv)
{
	sim_config_t cfg;
	sim_workload_t w;
	char err[1024];
	FILE *csv = NULL;
	int rc, p;

	_parse(argc, argv, &cfg);

	rc = sim_workload_load(&cfg, &w, err, sizeof(err));
	if (rc) {
		fprintf(stderr, PROG ": %s\n", err);
		return rc == -2 ? 2 : 1;
	}
	if (cfg.speeds && cfg.nspeeds > w.procs) {
		fprintf(stderr, PROG ": --speeds: %d speeds for a machine of %d "
			"nodes\nTry '" PROG " --help' for more information.\n",
			cfg.nspeeds, w.procs);
		sim_workload_free(&w);
		return 2;
	}
	/* the tariff's clock, once for every policy; peak reads its hours
	 * on it (doc/design.md decision 3) */
	if (cfg.power_on || (!cfg.all && cfg.policy == SIM_PEAK)) {
		long offset;
		const char *src;

		if (sim_tariff_offset(&cfg, &w, &offset, &src, err,
				      sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			sim_workload_free(&w);
			return 1;
		}
		cfg.tariff_start = offset;
		if (!cfg.all && cfg.policy == SIM_PEAK)
			cfg.params.tariff.offset = offset;
	}
	if (cfg.csv) {
		csv = fopen(cfg.csv, "w");
		if (!csv) {
			fprintf(stderr, PROG ": --jobs-csv: %s: %s\n", cfg.csv,
				strerror(errno));
			sim_workload_free(&w);
			return 1;
		}
		_csv_header(csv, &cfg);
	}

	if (cfg.probe_csv) {
		cfg.probe = fopen(cfg.probe_csv, "w");
		if (!cfg.probe) {
			fprintf(stderr, PROG ": --probe-csv: %s: %s\n",
				cfg.probe_csv, strerror(errno));
			if (csv)
				fclose(csv);
			sim_workload_free(&w);
			return 1;
		}
		fprintf(cfg.probe, "policy,resfree,charge,time,verdict,"
			"price,least\n");
	}

	rc = 0;
	for (p = 0; p < SIM_POLICY_COUNT && !rc; p++) {
		if (cfg.all ? p >= SIM_POLICY_ALL : p != (int) cfg.policy)
			continue;
		if (_run(&cfg, &w, (sim_policy_t) p, csv))
			rc = 1;
		fflush(stdout);
	}

	if (csv && (fclose(csv) || rc)) {
		if (!rc)
			fprintf(stderr, PROG ": --jobs-csv: %s: %s\n", cfg.csv,
				strerror(errno));
		rc = 1;
	}
	if (cfg.probe && (fclose(cfg.probe) || rc)) {
		if (!rc)
			fprintf(stderr, PROG ": --probe-csv: %s: %s\n",
				cfg.probe_csv, strerror(errno));
		rc = 1;
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, PROG ": cannot write the output\n");
		rc = 1;
	}
	sim_workload_free(&w);
	free(cfg.speeds);
	return rc;
}
