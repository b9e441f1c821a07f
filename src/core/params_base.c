/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  params_base.c - the policy parameters' defaults, the names of their
 *  values, and the one table of their SchedulerParameters keys.
 *
 *  One table describes every key: its name, where it lives in
 *  libra_params_t, its kind and its range.  Parsing, range checks and
 *  formatting are all driven by that table, so a key added there is parsed,
 *  checked, shown by "scontrol show config" and documented in one place.
 *  Every key's value is read here but those of the predictor's, the power
 *  plan's and the tariff's keys (libra_predict, libra_power,
 *  libra_tariff), which params.c reads with their modules: this file
 *  links none of them, so the SPANK plugin, which needs only
 *  libra_weight_interval and libra_share_min (libra_params_set_base()),
 *  compiles it in without the ledger, the tariff or the power plan.
 *  libra_parse_number() is the strict number parser behind the number
 *  keys, for callers' own numbers too.
\*****************************************************************************/

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params_base.h"
#include "params_int.h"
#include "share.h"
#include "sla.h"

_Static_assert(sizeof(((libra_params_t *) 0)->markup_tier) ==
	       LIBRA_TIER_COUNT * sizeof(double),
	       "one mark-up per libra_tier_t");

static const libra_name_t policy_names[] = {
	{ LIBRA_POLICY_LIBRA,		"libra" },
	{ LIBRA_POLICY_LIBRA_PRICE,	"libra+$" },
	{ LIBRA_POLICY_SLA,		"librasla" },
	{ LIBRA_POLICY_RISKD,		"librariskd" },
	{ LIBRA_POLICY_AUTO,		"libra+$auto" },
	{ LIBRA_POLICY_FIXED,		"fixed" },
	{ LIBRA_POLICY_PEAK,		"peak" },
	{ 0, NULL }
};

static const libra_name_t nosla_names[] = {
	{ LIBRA_NOSLA_SLURM,		"slurm" },
	{ LIBRA_NOSLA_BEST_EFFORT,	"best_effort" },
	{ LIBRA_NOSLA_REJECT,		"reject" },
	{ 0, NULL }
};

static const libra_name_t resfree_names[] = {
	{ LIBRA_RESFREE_WINDOW,	"window" },
	{ LIBRA_RESFREE_THESIS,	"thesis" },
	{ 0, NULL }
};

static const libra_name_t charge_names[] = {
	{ LIBRA_CHARGE_CPU,	"cpu" },
	{ LIBRA_CHARGE_THESIS,	"thesis" },
	{ 0, NULL }
};

const libra_name_t libra_yes_no_names[] = {
	{ true,		"yes" },
	{ false,	"no" },
	{ true,		"on" },
	{ false,	"off" },
	{ true,		"1" },
	{ false,	"0" },
	{ 0, NULL }
};

/* A KIND_NAME, KIND_PREDICT or KIND_POWER parameter is written as an
 * int. */
_Static_assert(sizeof(libra_policy_t) == sizeof(int) &&
	       sizeof(libra_resfree_t) == sizeof(int) &&
	       sizeof(libra_charge_t) == sizeof(int) &&
	       sizeof(libra_nosla_t) == sizeof(int) &&
	       sizeof(libra_predict_method_t) == sizeof(int) &&
	       sizeof(libra_power_t) == sizeof(int), "enums are ints");

extern void libra_params_default(libra_params_t *p)
{
	memset(p, 0, sizeof(*p));
	p->policy = LIBRA_POLICY_LIBRA_PRICE;
	p->alpha = 1.0;			/* thesis Table 3.1 */
	p->beta = 0.1;			/* thesis Table 3.1 */
	p->price_base = 1.0;		/* per CPU-hour */
	p->price_mem = 0.0;		/* per GB-hour: CPU-only prices */
	p->price_gpu = 0.0;		/* per GPU-hour (decision 17) */
	p->price_disk = 0.0;		/* per GB-hour of scratch disk */
	p->gamma = 1.0;			/* thesis section 3.5.2 */
	p->delta = 1.0;
	p->peak_price = 3.0;		/* thesis Table 7.2, FixedTimeMax */
	p->peak_start = 12;		/* 12PM-12AM is peak */
	p->peak_end = 0;
	p->resfree = LIBRA_RESFREE_WINDOW;
	p->charge = LIBRA_CHARGE_CPU;
	p->capacity = 1.0;
	p->share_min = LIBRA_SHARE_MIN_DEFAULT;
	p->risk_sigma = 0.0;
	p->risk_mu = 1.0;
	p->beta_min = 0.01;
	p->beta_max = 10.0;
	p->no_sla = LIBRA_NOSLA_SLURM;
	p->interval = 5.0;
	p->weight_interval = 2.0;
	p->enforce = true;
	p->tolerance = 1e-9;
	/* doc/design.md decision 18: no mark-up unless a job picks a tier */
	p->markup = 0.0;
	p->markup_tier[LIBRA_TIER_VALUE] = 0.1;
	p->markup_tier[LIBRA_TIER_STANDARD] = 0.2;	/* ISQoS section 6.2 */
	p->markup_tier[LIBRA_TIER_PREMIUM] = 0.4;
	p->min_profit_rate = 0.0;	/* decision 51: off */
	p->price_damping = 0.0;		/* decision 19: prices as before */
	p->quote_hold = 300.0;		/* decision 20: minutes, not seconds */
	p->quote_max = 4.0;
	p->predict = LIBRA_PREDICT_NONE;	/* decision 23: opt-in */
	p->predict_risk = 0.02;		/* decision 22: q 0.98 ... */
	p->predict_min = 8.0;		/* ... from 8 finished jobs */
	p->predict_pace = 0.8;
	p->power = LIBRA_POWER_NONE;	/* decision 24: opt-in */
	p->power_interval = 900.0;	/* Sung 5.1.2: 15 minutes */
	p->power_boot = 300.0;
	p->power_shutdown = 60.0;
	p->tariff_price = false;
	p->power_pace = false;
	p->metrics_file[0] = '\0';	/* decision 44: opt-in */
	p->metrics_interval = 15.0;	/* Prometheus' usual scrape */
	p->penalty_cap = 1.0;		/* decision 37: money back at most */
	p->penalty_rate_max = 0.0;
	p->settle_paper = false;
	p->runtime_min = 1.0;
	p->window_max = 30.0 * 86400.0;	/* a counter-offer's horizon too */
}

extern const char *libra_policy_name(libra_policy_t policy)
{
	return libra_name_of(policy_names, (int) policy);
}

extern const char *libra_nosla_name(libra_nosla_t mode)
{
	return libra_name_of(nosla_names, (int) mode);
}

extern bool libra_policy_from_name(const char *name, libra_policy_t *policy)
{
	int v;

	if (!libra_value_of(policy_names, name, &v))
		return false;
	*policy = (libra_policy_t) v;
	return true;
}

extern bool libra_policy_is_market(libra_policy_t policy)
{
	return policy == LIBRA_POLICY_LIBRA_PRICE ||
	       policy == LIBRA_POLICY_AUTO;
}

#define OFF(f) offsetof(libra_params_t, f)
/* A number key: [lo, hi], or (lo, hi] when open. */
#define NUM(k, f, lo, hi, open) \
	{ k, KIND_DOUBLE, OFF(f), { lo, hi, open, false }, NULL }
/* A key that takes yes/no, hours, or what params.c reads. */
#define WORD(k, kind, f) { k, kind, OFF(f), { 0, 0, false, false }, NULL }
/* A key that takes the name of an enum's value. */
#define NAME(k, f, names) \
	{ k, KIND_NAME, OFF(f), { 0, 0, false, false }, names }
const param_def_t params_defs[] = {
	NAME("libra_policy",		policy,		policy_names),
	NUM("libra_alpha",		alpha,		0, 1e6, false),
	NUM("libra_beta",		beta,		0, 1e6, false),
	NUM("libra_price_base",		price_base,	0, 1e12, true),
	NUM("libra_price_mem",		price_mem,	0, 1e12, false),
	NUM("libra_price_gpu",		price_gpu,	0, 1e12, false),
	NUM("libra_price_disk",		price_disk,	0, 1e12, false),
	NUM("libra_gamma",		gamma,		0, 1e6, false),
	NUM("libra_delta",		delta,		0, 1e6, false),
	NUM("libra_peak_price",		peak_price,	0, 1e12, false),
	WORD("libra_peak_hours",	KIND_HOURS,	peak_start),
	NAME("libra_resfree",		resfree,	resfree_names),
	NAME("libra_charge",		charge,		charge_names),
	NUM("libra_capacity",		capacity,	0, 1, true),
	NUM("libra_share_min",		share_min,	0, 0.5, true),
	NUM("libra_risk_sigma",		risk_sigma,	0, 1e6, false),
	NUM("libra_risk_mu",		risk_mu,	1, 1e6, false),
	NUM("libra_beta_min",		beta_min,	0, 1e6, true),
	NUM("libra_beta_max",		beta_max,	0, 1e6, true),
	NAME("libra_no_sla",		no_sla,		nosla_names),
	NUM("libra_interval",		interval,	0.1, 3600, false),
	NUM("libra_weight_interval",	weight_interval, 0.1, 3600, false),
	WORD("libra_enforce",		KIND_BOOL,	enforce),
	NUM("libra_tolerance",		tolerance,	0, 1e-3, false),
	NUM("libra_markup",		markup,		0, 100, false),
	NUM("libra_markup_value",	markup_tier[LIBRA_TIER_VALUE],
	    0, 100, false),
	NUM("libra_markup_standard",	markup_tier[LIBRA_TIER_STANDARD],
	    0, 100, false),
	NUM("libra_markup_premium",	markup_tier[LIBRA_TIER_PREMIUM],
	    0, 100, false),
	NUM("libra_min_profit_rate",	min_profit_rate, 0, 1e12, false),
	NUM("libra_price_damping",	price_damping,	0, 1e8, false),
	NUM("libra_quote_hold",		quote_hold,	1, 86400, false),
	{ "libra_quote_max", KIND_DOUBLE, OFF(quote_max), { 0, 1000, false, true },
	  NULL },
	WORD("libra_predict",		KIND_PREDICT,	predict),
	NUM("libra_predict_risk",	predict_risk,	0, 0.5, true),
	{ "libra_predict_min", KIND_DOUBLE, OFF(predict_min),
	  { 1, LIBRA_PREDICT_DEPTH, false, true }, NULL },
	NUM("libra_predict_pace",	predict_pace,	0, 1, true),
	WORD("libra_power",		KIND_POWER,	power),
	NUM("libra_power_interval",	power_interval,	1, 86400, false),
	NUM("libra_power_boot",		power_boot,	0, 86400, false),
	NUM("libra_power_shutdown",	power_shutdown,	0, 86400, false),
	{ "libra_power_warm", KIND_DOUBLE, OFF(power_warm), { 0, 1e6, false,
	  true }, NULL },
	WORD("libra_tariff",		KIND_TARIFF,	tariff),
	WORD("libra_tariff_price",	KIND_BOOL,	tariff_price),
	WORD("libra_power_pace",	KIND_BOOL,	power_pace),
	NUM("libra_penalty_cap",	penalty_cap,	0, 1e6, false),
	NUM("libra_penalty_rate_max",	penalty_rate_max, 0, 1e15, false),
	WORD("libra_settle_paper",	KIND_BOOL,	settle_paper),
	NUM("libra_runtime_min",	runtime_min,	0, 86400, false),
	NUM("libra_window_max",		window_max,	0, 3650.0 * 86400.0,
	    false),
	/* decision 43: ledger.h's LIBRA_SPEED_MAX, and a price factor */
	{ "libra_node_speed", KIND_NODEMAP, OFF(node_speed), { 0, 64, true,
	  false }, NULL },
	{ "libra_node_price", KIND_NODEMAP, OFF(node_price), { 0, 1000, true,
	  false }, NULL },
	/* decision 44 */
	WORD("libra_metrics_file",	KIND_PATH,	metrics_file),
	NUM("libra_metrics_interval",	metrics_interval, 1, 3600, false),
};
_Static_assert(sizeof(params_defs) / sizeof(params_defs[0]) == PARAMS_NDEFS,
	       "PARAMS_NDEFS (params_int.h) counts the keys");


extern int params_fail(char *err, size_t errlen, const char *key,
		       const char *val, const char *why)
{
	if (err && errlen)
		snprintf(err, errlen, "%s=%.40s: %s", key, val, why);
	return -1;
}

extern const param_def_t *params_def(const char *key)
{
	for (size_t i = 0; key && i < PARAMS_NDEFS; i++)
		if (!strcmp(key, params_defs[i].key))
			return &params_defs[i];
	return NULL;
}

static int _parse_hours(libra_params_t *p, const char *key, const char *val,
			char *err, size_t errlen)
{
	const char *second;
	char *end;
	long a, b;

	a = strtol(val, &end, 10);
	if (end == val || *end != '-')
		return params_fail(err, errlen, key, val,
				   "expected START-END hours, e.g. 12-24");
	second = end + 1;
	b = strtol(second, &end, 10);
	if (end == second || *end || a < 0 || a > 23 || b < 0 || b > 24 ||
	    a == b % 24)
		return params_fail(err, errlen, key, val,
				   "hours must be 0-23 and 0-24 and differ");
	p->peak_start = (int) a;
	p->peak_end = (int) (b % 24);
	return 0;
}

/* "key=val: expected a, b or c" */
static int _expected(char *err, size_t errlen, const char *key,
		     const char *val, const libra_name_t *names)
{
	char list[LIBRA_NAMES_MAX], why[LIBRA_NAMES_MAX + 16];

	snprintf(why, sizeof(why), "expected %s",
		 libra_names_list(names, list, sizeof(list)));
	return params_fail(err, errlen, key, val, why);
}

extern int params_name(int *field, const char *key, const libra_name_t *names,
		       const char *val, char *err, size_t errlen)
{
	int v;

	if (!libra_value_of(names, val, &v))
		return _expected(err, errlen, key, val, names);
	*field = v;
	return 0;
}

/* The value of a key of the kinds read here. */
static int _apply(libra_params_t *p, const param_def_t *d, const char *val,
		  char *err, size_t errlen)
{
	char *field = (char *) p + d->off;
	int v;

	switch (d->kind) {
	case KIND_DOUBLE:
		return libra_parse_number(d->key, val, &d->range,
					  (double *) field, err, errlen);
	case KIND_NAME:
		return params_name((int *) field, d->key, d->names, val, err,
				   errlen);
	case KIND_BOOL:
		if (!libra_value_of(libra_yes_no_names, val, &v))
			return _expected(err, errlen, d->key, val,
					 libra_yes_no_names);
		*(bool *) field = v;
		return 0;
	case KIND_HOURS:
		return _parse_hours(p, d->key, val, err, errlen);
	case KIND_PATH:
		/* "" turns it off; else where slurmctld writes, so absolute
		 * (it runs from / as a daemon) */
		if (*val && *val != '/')
			return params_fail(err, errlen, d->key, val,
					   "expected an absolute path (or nothing: none)");
		if (strlen(val) >= LIBRA_PATH_LEN)
			return params_fail(err, errlen, d->key, val,
					   "a path of at most 255 characters");
		if (strpbrk(val, " \t\n\r"))
			return params_fail(err, errlen, d->key, val,
					   "a path without blanks");
		snprintf(field, LIBRA_PATH_LEN, "%s", val);
		return 0;
	default:
		break;
	}
	return params_fail(err, errlen, d->key, val, "internal error");
}

extern int params_set(libra_params_t *p, const char *key, const char *val,
		      params_reader_t *embedded, char *err, size_t errlen)
{
	const param_def_t *d = params_def(key);
	libra_params_t tmp = *p;
	int rc;

	if (!d)
		return params_fail(err, errlen, key ? key : "",
				   val ? val : "",
				   "unknown libra_ parameter (see sched_libra(8))");
	if (!val)
		return params_fail(err, errlen, key, "", "missing =value");
	if (d->kind < KIND_PREDICT)
		rc = _apply(&tmp, d, val, err, errlen);
	else if (embedded)
		rc = embedded(&tmp, d, val, err, errlen);
	else
		rc = params_fail(err, errlen, key, val,
				 "read by libra_params_set() (params.h) alone");
	if (rc)
		return -1;
	*p = tmp;
	return 0;
}

extern int libra_params_set_base(libra_params_t *p, const char *key,
				 const char *val, char *err, size_t errlen)
{
	return params_set(p, key, val, NULL, err, errlen);
}
