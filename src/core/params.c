/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  params.c - the policy parameters as a whole: one key set, the
 *  relations between keys, a SchedulerParameters string read and written.
 *
 *  The keys are params_base.c's one table (params_int.h).  The values of
 *  the predictor's, the power plan's and the tariff's keys (libra_predict,
 *  libra_power, libra_tariff) are read and written here, with those
 *  modules; every other key's through params_base.c.
 *  libra_params_set() is the one way in: slurm.conf's SchedulerParameters
 *  (libra_params_parse()), libra-sim's policy options (--alpha is
 *  libra_alpha, ...) and, through libra_params_set_base(), the SPANK
 *  plugin's interval and share_min (libra_weight_interval,
 *  libra_share_min) all set parameters with the same table, so they
 *  accept the same values.
\*****************************************************************************/

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "params_int.h"
#include "predict.h"
#include "sla.h"
#include "tariff.h"

extern double libra_params_markup(const libra_params_t *p, int tier)
{
	if (p->policy == LIBRA_POLICY_SLA)
		return 0.0;
	if (tier > LIBRA_TIER_NONE && tier < LIBRA_TIER_COUNT)
		return p->markup_tier[tier];
	return p->markup;
}

/* The names of a KIND_NAME, KIND_PREDICT or KIND_POWER key's values. */
static const libra_name_t *_names(const param_def_t *d)
{
	switch (d->kind) {
	case KIND_PREDICT:
		return libra_predict_method_names;
	case KIND_POWER:
		return libra_power_names;
	default:
		return d->names;
	}
}

/* The value of a key of the kinds params_base.c leaves to this file. */
static int _read(libra_params_t *p, const param_def_t *d, const char *val,
		 char *err, size_t errlen)
{
	char *field = (char *) p + d->off;

	if (d->kind == KIND_TARIFF)
		/* the message names libra_tariff and the entry or line */
		return libra_tariff_parse((libra_tariff_t *) field, val, err,
					  errlen);
	if (d->kind == KIND_NODEMAP)
		return libra_node_map_parse((libra_node_map_t *) field, d->key,
					    d->range.max, val, err, errlen);
	return params_name((int *) field, d->key, _names(d), val, err, errlen);
}

extern int libra_params_set(libra_params_t *p, const char *key,
			    const char *val, char *err, size_t errlen)
{
	return params_set(p, key, val, _read, err, errlen);
}

extern int libra_params_check(const libra_params_t *p, char *err,
			      size_t errlen)
{
	char val[32];

	if (p->beta_min > p->beta_max) {
		snprintf(val, sizeof(val), "%g", p->beta_min);
		return params_fail(err, errlen, "libra_beta_min", val,
				   "must not exceed libra_beta_max");
	}
	/* tiers are an order of priority (ISQoS section 4.1) */
	if (p->markup_tier[LIBRA_TIER_VALUE] >
	    p->markup_tier[LIBRA_TIER_STANDARD]) {
		snprintf(val, sizeof(val), "%g",
			 p->markup_tier[LIBRA_TIER_VALUE]);
		return params_fail(err, errlen, "libra_markup_value", val,
				   "must not exceed libra_markup_standard");
	}
	if (p->markup_tier[LIBRA_TIER_STANDARD] >
	    p->markup_tier[LIBRA_TIER_PREMIUM]) {
		snprintf(val, sizeof(val), "%g",
			 p->markup_tier[LIBRA_TIER_STANDARD]);
		return params_fail(err, errlen, "libra_markup_standard", val,
				   "must not exceed libra_markup_premium");
	}
	return 0;
}

extern int libra_params_parse(libra_params_t *p, const char *sched_params,
			      char *err, size_t errlen)
{
	bool seen[PARAMS_NDEFS] = { false };
	libra_params_t tmp = *p;
	char *buf, *tok, *save = NULL;
	int rc = 0;

	if (!sched_params)
		return 0;
	if (!(buf = strdup(sched_params)))
		return params_fail(err, errlen, "SchedulerParameters", "",
				   "out of memory");
	/* a hostlist such as n[1,3] (libra_node_speed) stays in one key, as
	 * Slurm's own keys are found by their names, not split */
	for (tok = libra_hostlist_next(buf, &save); tok;
	     tok = libra_hostlist_next(NULL, &save)) {
		char *val = strchr(tok, '=');
		const param_def_t *d;

		while (*tok == ' ')
			tok++;
		if (strncmp(tok, "libra_", 6))
			continue;	/* Slurm's or another plugin's key */
		if (!val) {
			rc = params_fail(err, errlen, tok, "",
					 "missing =value");
			break;
		}
		*val++ = '\0';
		d = params_def(tok);
		if (d && seen[d - params_defs]) {
			rc = params_fail(err, errlen, tok, val, "given twice");
			break;
		}
		if ((rc = libra_params_set(&tmp, tok, val, err, errlen)))
			break;
		seen[d - params_defs] = true;
	}
	free(buf);
	if (!rc)
		rc = libra_params_check(&tmp, err, errlen);
	if (!rc)
		*p = tmp;
	return rc;
}

extern void libra_params_format(const libra_params_t *p, char *buf,
				size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < PARAMS_NDEFS && used < len; i++) {
		const param_def_t *d = &params_defs[i];
		const char *field = (const char *) p + d->off;
		char val[1024];

		switch (d->kind) {
		case KIND_DOUBLE:
			snprintf(val, sizeof(val), "%.15g",
				 *(const double *) field);
			break;
		case KIND_NAME:
		case KIND_PREDICT:
		case KIND_POWER:
			snprintf(val, sizeof(val), "%s",
				 libra_name_of(_names(d),
					       *(const int *) field));
			break;
		case KIND_BOOL:
			snprintf(val, sizeof(val), "%s",
				 libra_name_of(libra_yes_no_names,
					       *(const bool *) field));
			break;
		case KIND_HOURS:
			snprintf(val, sizeof(val), "%d-%d", p->peak_start,
				 p->peak_end ? p->peak_end : 24);
			break;
		case KIND_PATH:
			snprintf(val, sizeof(val), "%s", field);
			break;
		case KIND_TARIFF:
			libra_tariff_format((const libra_tariff_t *) field,
					    val, sizeof(val));
			break;
		case KIND_NODEMAP:
			libra_node_map_format((const libra_node_map_t *)
					       field, val, sizeof(val));
			break;
		}
		used += (size_t) snprintf(buf + used, len - used, "%s%s=%s",
					  i ? "," : "", d->key, val);
	}
}
