/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_params.c - policy parameters and their SchedulerParameters keys
 *  (params.h): defaults, libra_params_parse(), libra_params_set() over the
 *  one table of keys and ranges, libra_parse_number(), formatting, and
 *  number.h's names of enum values (libra_name_t).
\*****************************************************************************/

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "share.h"
#include "sla.h"
#include "testutil.h"

static char err[256];

static libra_params_t _defaults(void)
{
	libra_params_t p;

	memset(&p, 0xa5, sizeof(p));
	libra_params_default(&p);
	return p;
}

/* Parse s into defaults; it must succeed. */
static libra_params_t _parsed(const char *s)
{
	libra_params_t p = _defaults();

	err[0] = '\0';
	ck_assert_msg(libra_params_parse(&p, s, err, sizeof(err)) == 0,
		      "\"%s\": %s", s, err);
	return p;
}

/* Parse s into defaults; it must fail naming key and leave p unchanged. */
static void _refused(const char *s, const char *key)
{
	libra_params_t p = _defaults(), before = p;

	err[0] = '\0';
	ck_assert_msg(libra_params_parse(&p, s, err, sizeof(err)) == -1,
		      "\"%s\" was accepted", s);
	ck_assert_names(err, key);
	ck_assert_msg(memcmp(&p, &before, sizeof(p)) == 0,
		      "\"%s\" changed the parameters", s);
}

START_TEST(test_default_memory_and_gpu_prices_are_zero)
{
	/* decision 17: a job asking no GPU pays today's CPU-only price */
	libra_params_t p = _defaults();

	ck_assert_double_eq(p.price_mem, 0.0);
	ck_assert_double_eq(p.price_gpu, 0.0);
	ck_assert_double_eq(p.price_disk, 0.0);
}
END_TEST

START_TEST(test_disk_price_per_second)
{
	/* 3.6 per GB-hour of scratch disk = 1e-3 / 1024 per MB-second, as
	 * memory's */
	libra_params_t p = _defaults();

	ck_assert_int_eq(libra_params_parse(&p, "libra_price_disk=3.6", err,
					    sizeof(err)), 0);
	ck_assert_double_eq(p.price_disk, 3.6);
	ck_assert_double_eq_tol(libra_price_disk_per_sec(&p), 1e-3 / 1024.0,
				1e-18);
	ck_assert_double_eq(p.price_mem, 0.0);
}
END_TEST

START_TEST(test_memory_and_gpu_prices_per_second)
{
	/* 3.6 per GB-hour = 1e-3 per GB-second = 1e-3 / 1024 per MB-second;
	 * 7.2 per GPU-hour = 0.002 per GPU-second */
	libra_params_t p = _defaults();

	ck_assert_int_eq(libra_params_parse(&p,
		"libra_price_mem=3.6,libra_price_gpu=7.2", err, sizeof(err)),
		0);
	ck_assert_double_eq_tol(libra_price_mem_per_sec(&p), 1e-3 / 1024.0,
				1e-18);
	ck_assert_double_eq_tol(libra_price_gpu_per_sec(&p), 0.002, 1e-15);
}
END_TEST

/* ---------------------------------------------------------------- */

START_TEST(test_default_alpha_is_one)
{
	/* thesis Table 3.1: alpha = 1.0 */
	libra_params_t p = _defaults();

	ck_assert_double_eq_tol(p.alpha, 1.0, TOL);
}
END_TEST

START_TEST(test_default_beta_is_one_tenth)
{
	/* thesis Table 3.1: beta = 0.1 */
	libra_params_t p = _defaults();

	ck_assert_double_eq_tol(p.beta, 0.1, TOL);
}
END_TEST

START_TEST(test_default_libra_static_price_factors_are_one)
{
	/* thesis section 3.5.2: gamma = delta = 1 */
	libra_params_t p = _defaults();

	ck_assert_double_eq_tol(p.gamma, 1.0, TOL);
	ck_assert_double_eq_tol(p.delta, 1.0, TOL);
}
END_TEST

START_TEST(test_default_modes_are_window_and_cpu)
{
	/* design.md decisions 2 and 3; price.h and admit.h say "default". */
	libra_params_t p = _defaults();

	ck_assert_int_eq(p.resfree, LIBRA_RESFREE_WINDOW);
	ck_assert_int_eq(p.charge, LIBRA_CHARGE_CPU);
}
END_TEST

START_TEST(test_default_share_min_and_capacity)
{
	libra_params_t p = _defaults();

	ck_assert_double_eq_tol(p.share_min, LIBRA_SHARE_MIN_DEFAULT, TOL);
	ck_assert(p.share_min > 0.0);
	ck_assert(p.capacity > 0.0 && p.capacity <= 1.0 + TOL);
	ck_assert(p.tolerance > 0.0);
}
END_TEST

START_TEST(test_default_beta_within_auto_bounds)
{
	libra_params_t p = _defaults();

	ck_assert(p.beta_min > 0.0);
	ck_assert(p.beta_min <= p.beta + TOL);
	ck_assert(p.beta <= p.beta_max + TOL);
}
END_TEST

START_TEST(test_default_risk_mu_is_no_delay)
{
	/* DDY = 1 means no delay (thesis Eq. 5.2). */
	libra_params_t p = _defaults();

	ck_assert_double_eq_tol(p.risk_mu, 1.0, TOL);
	ck_assert(p.risk_sigma >= 0.0);
}
END_TEST

START_TEST(test_price_base_per_sec_divides_by_3600)
{
	/* 7.2 per CPU-hour = 0.002 per CPU-second */
	libra_params_t p = _defaults();

	p.price_base = 7.2;
	ck_assert_double_eq_tol(libra_price_base_per_sec(&p), 0.002, 1e-15);
}
END_TEST

/* ---------------------------------------------------------------- */

START_TEST(test_parse_spec_example)
{
	/* README.md's slurm.conf line. */
	libra_params_t p = _parsed("libra_policy=libra+$,libra_alpha=1.0,"
				   "libra_beta=0.1,libra_price_base=1.0,"
				   "libra_interval=5");

	ck_assert_int_eq(p.policy, LIBRA_POLICY_LIBRA_PRICE);
	ck_assert_double_eq_tol(p.alpha, 1.0, TOL);
	ck_assert_double_eq_tol(p.beta, 0.1, TOL);
	ck_assert_double_eq_tol(p.price_base, 1.0, TOL);
	ck_assert_double_eq_tol(p.interval, 5.0, TOL);
}
END_TEST

START_TEST(test_parse_every_double_key)
{
	libra_params_t p = _parsed(
		"libra_alpha=2.5,libra_beta=0.75,libra_price_base=3,"
		"libra_gamma=4,libra_delta=5,libra_peak_price=6,"
		"libra_capacity=0.9,libra_share_min=0.02,"
		"libra_risk_sigma=0.3,libra_risk_mu=1.5,libra_beta_min=0.2,"
		"libra_beta_max=7,libra_interval=10,"
		"libra_weight_interval=3,libra_tolerance=1e-6");

	ck_assert_double_eq_tol(p.alpha, 2.5, TOL);
	ck_assert_double_eq_tol(p.beta, 0.75, TOL);
	ck_assert_double_eq_tol(p.price_base, 3.0, TOL);
	ck_assert_double_eq_tol(p.gamma, 4.0, TOL);
	ck_assert_double_eq_tol(p.delta, 5.0, TOL);
	ck_assert_double_eq_tol(p.peak_price, 6.0, TOL);
	ck_assert_double_eq_tol(p.capacity, 0.9, TOL);
	ck_assert_double_eq_tol(p.share_min, 0.02, TOL);
	ck_assert_double_eq_tol(p.risk_sigma, 0.3, TOL);
	ck_assert_double_eq_tol(p.risk_mu, 1.5, TOL);
	ck_assert_double_eq_tol(p.beta_min, 0.2, TOL);
	ck_assert_double_eq_tol(p.beta_max, 7.0, TOL);
	ck_assert_double_eq_tol(p.interval, 10.0, TOL);
	ck_assert_double_eq_tol(p.weight_interval, 3.0, TOL);
	ck_assert_double_eq_tol(p.tolerance, 1e-6, 1e-15);
}
END_TEST

START_TEST(test_parse_every_policy_name)
{
	static const struct {
		const char *name;
		libra_policy_t policy;
	} cases[] = {
		{ "libra", LIBRA_POLICY_LIBRA },
		{ "libra+$", LIBRA_POLICY_LIBRA_PRICE },
		{ "librasla", LIBRA_POLICY_SLA },
		{ "librariskd", LIBRA_POLICY_RISKD },
		{ "libra+$auto", LIBRA_POLICY_AUTO },
		{ "fixed", LIBRA_POLICY_FIXED },
		{ "peak", LIBRA_POLICY_PEAK },
	};
	char s[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		libra_params_t p;

		snprintf(s, sizeof(s), "libra_policy=%s", cases[i].name);
		p = _parsed(s);
		ck_assert_int_eq(p.policy, cases[i].policy);
	}
}
END_TEST

START_TEST(test_parse_mode_keys)
{
	libra_params_t p = _parsed("libra_resfree=thesis,libra_charge=thesis,"
				   "libra_no_sla=reject,libra_enforce=no");

	ck_assert_int_eq(p.resfree, LIBRA_RESFREE_THESIS);
	ck_assert_int_eq(p.charge, LIBRA_CHARGE_THESIS);
	ck_assert_int_eq(p.no_sla, LIBRA_NOSLA_REJECT);
	ck_assert(!p.enforce);

	p = _parsed("libra_resfree=window,libra_charge=cpu,"
		    "libra_no_sla=best_effort,libra_enforce=yes");
	ck_assert_int_eq(p.resfree, LIBRA_RESFREE_WINDOW);
	ck_assert_int_eq(p.charge, LIBRA_CHARGE_CPU);
	ck_assert_int_eq(p.no_sla, LIBRA_NOSLA_BEST_EFFORT);
	p = _parsed("libra_no_sla=slurm");
	ck_assert_int_eq(p.no_sla, LIBRA_NOSLA_SLURM);
	ck_assert_str_eq(libra_nosla_name(p.no_sla), "slurm");
	p = _parsed("");
	ck_assert_int_eq(p.no_sla, LIBRA_NOSLA_SLURM);	/* decision 27 */
	ck_assert(p.enforce);
}
END_TEST

START_TEST(test_parse_peak_hours)
{
	/* libra_peak_hours=START-END: 9-17 peak from 09:00 to 17:00. */
	libra_params_t p = _parsed("libra_peak_hours=9-17");

	ck_assert_int_eq(p.peak_start, 9);
	ck_assert_int_eq(p.peak_end, 17);
}
END_TEST

START_TEST(test_non_libra_keys_are_ignored)
{
	/* Slurm's own keys (with and without values) sit next to ours. */
	libra_params_t p = _parsed("sched_interval=-1,defer,bf_window=10,"
				   "libra_beta=0.5,max_rpc_cnt=nonsense");

	ck_assert_double_eq_tol(p.beta, 0.5, TOL);
}
END_TEST

START_TEST(test_empty_and_null_strings_change_nothing)
{
	libra_params_t p = _defaults(), before = p;

	ck_assert_int_eq(libra_params_parse(&p, "", err, sizeof(err)), 0);
	ck_assert_int_eq(libra_params_parse(&p, NULL, err, sizeof(err)), 0);
	ck_assert(memcmp(&p, &before, sizeof(p)) == 0);
}
END_TEST

START_TEST(test_unknown_libra_key_is_refused_naming_it)
{
	_refused("libra_alpha=2,libra_bogus=1", "libra_bogus");
}
END_TEST

START_TEST(test_bad_number_is_refused_naming_key)
{
	_refused("libra_alpha=abc", "libra_alpha");
	_refused("libra_beta=0x10", "libra_beta");
	_refused("libra_beta=nan", "libra_beta");
	_refused("libra_beta=inf", "libra_beta");
	_refused("libra_price_base=", "libra_price_base");
	_refused("libra_alpha", "libra_alpha");
}
END_TEST

START_TEST(test_out_of_range_is_refused_naming_key)
{
	_refused("libra_alpha=-1", "libra_alpha");
	_refused("libra_capacity=1.5", "libra_capacity");
	_refused("libra_capacity=0", "libra_capacity");
	_refused("libra_share_min=0", "libra_share_min");
	_refused("libra_price_base=0", "libra_price_base");
	_refused("libra_risk_mu=0.5", "libra_risk_mu");
	_refused("libra_beta=1e400", "libra_beta");
}
END_TEST

START_TEST(test_bad_enum_value_is_refused_naming_key)
{
	_refused("libra_policy=roundrobin", "libra_policy");
	_refused("libra_resfree=sometimes", "libra_resfree");
	_refused("libra_charge=node", "libra_charge");
	_refused("libra_no_sla=maybe", "libra_no_sla");
	_refused("libra_enforce=perhaps", "libra_enforce");
	_refused("libra_peak_hours=25-3", "libra_peak_hours");
}
END_TEST

START_TEST(test_duplicate_key_is_refused_naming_it)
{
	_refused("libra_alpha=1,libra_beta=0.2,libra_alpha=2", "libra_alpha");
}
END_TEST

START_TEST(test_beta_bounds_must_be_ordered)
{
	libra_params_t p = _defaults(), before = p;

	ck_assert_int_eq(libra_params_parse(&p, "libra_beta_min=5,"
					    "libra_beta_max=2", err,
					    sizeof(err)), -1);
	ck_assert_names(err, "libra_beta");
	ck_assert(memcmp(&p, &before, sizeof(p)) == 0);
}
END_TEST

START_TEST(test_error_after_good_keys_leaves_output_unchanged)
{
	/* A bad "scontrol reconfigure" keeps every running value, including
	 * those of the good keys before the bad one. */
	_refused("libra_alpha=3,libra_beta=0.9,libra_policy=libra,"
		 "libra_capacity=7", "libra_capacity");
}
END_TEST

START_TEST(test_parse_applies_on_top_of_current_values)
{
	/* Keys not named keep their current (not default) values. */
	libra_params_t p = _defaults();

	ck_assert_int_eq(libra_params_parse(&p, "libra_alpha=3", err,
					    sizeof(err)), 0);
	ck_assert_int_eq(libra_params_parse(&p, "libra_beta=0.4", err,
					    sizeof(err)), 0);
	ck_assert_double_eq_tol(p.alpha, 3.0, TOL);
	ck_assert_double_eq_tol(p.beta, 0.4, TOL);
}
END_TEST

START_TEST(test_format_parse_round_trip)
{
	libra_params_t p = _defaults(), q = _defaults();
	char buf[2048];

	p.policy = LIBRA_POLICY_RISKD;
	p.alpha = 2.5;
	p.beta = 0.3;
	p.price_base = 1.75;
	p.gamma = 0.5;
	p.delta = 2.0;
	p.peak_price = 4.5;
	p.peak_start = 22;
	p.peak_end = 6;
	p.resfree = LIBRA_RESFREE_THESIS;
	p.charge = LIBRA_CHARGE_THESIS;
	p.capacity = 0.8;
	p.share_min = 0.05;
	p.risk_sigma = 0.125;
	p.risk_mu = 1.25;
	p.beta_min = 0.05;
	p.beta_max = 6.0;
	p.no_sla = LIBRA_NOSLA_REJECT;
	p.interval = 7.0;
	p.weight_interval = 1.5;
	p.enforce = false;
	p.tolerance = 1e-7;

	libra_params_format(&p, buf, sizeof(buf));
	ck_assert_msg(libra_params_parse(&q, buf, err, sizeof(err)) == 0,
		      "\"%s\": %s", buf, err);
	ck_assert_int_eq(q.policy, p.policy);
	ck_assert_double_eq_tol(q.alpha, p.alpha, TOL);
	ck_assert_double_eq_tol(q.beta, p.beta, TOL);
	ck_assert_double_eq_tol(q.price_base, p.price_base, TOL);
	ck_assert_double_eq_tol(q.gamma, p.gamma, TOL);
	ck_assert_double_eq_tol(q.delta, p.delta, TOL);
	ck_assert_double_eq_tol(q.peak_price, p.peak_price, TOL);
	ck_assert_int_eq(q.peak_start, p.peak_start);
	ck_assert_int_eq(q.peak_end, p.peak_end);
	ck_assert_int_eq(q.resfree, p.resfree);
	ck_assert_int_eq(q.charge, p.charge);
	ck_assert_double_eq_tol(q.capacity, p.capacity, TOL);
	ck_assert_double_eq_tol(q.share_min, p.share_min, TOL);
	ck_assert_double_eq_tol(q.risk_sigma, p.risk_sigma, TOL);
	ck_assert_double_eq_tol(q.risk_mu, p.risk_mu, TOL);
	ck_assert_double_eq_tol(q.beta_min, p.beta_min, TOL);
	ck_assert_double_eq_tol(q.beta_max, p.beta_max, TOL);
	ck_assert_int_eq(q.no_sla, p.no_sla);
	ck_assert_double_eq_tol(q.interval, p.interval, TOL);
	ck_assert_double_eq_tol(q.weight_interval, p.weight_interval, TOL);
	ck_assert_int_eq(q.enforce, p.enforce);
	ck_assert_double_eq_tol(q.tolerance, p.tolerance, 1e-15);
}
END_TEST

START_TEST(test_format_of_defaults_parses_back_to_defaults)
{
	libra_params_t p = _defaults(), q = _defaults();
	char buf[2048];

	libra_params_format(&p, buf, sizeof(buf));
	ck_assert_int_eq(libra_params_parse(&q, buf, err, sizeof(err)), 0);
	ck_assert(memcmp(&p, &q, sizeof(p)) == 0);
}
END_TEST

START_TEST(test_format_names_keys_with_prefix)
{
	libra_params_t p = _defaults();
	char buf[2048];

	libra_params_format(&p, buf, sizeof(buf));
	ck_assert_names(buf, "libra_policy=libra+$");
	ck_assert_names(buf, "libra_alpha=1");
	ck_assert_names(buf, "libra_beta=0.1");
}
END_TEST

START_TEST(test_format_truncates_to_buffer)
{
	libra_params_t p = _defaults();
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	libra_params_format(&p, buf, sizeof(buf));
	ck_assert(memchr(buf, '\0', sizeof(buf)) != NULL);
}
END_TEST

/* ---------------------------------------------------------------- */
/* libra_params_set: one key at a time, from the one table           */

/* Set key=val on defaults; it must succeed. */
static libra_params_t _set(const char *key, const char *val)
{
	libra_params_t p = _defaults();

	err[0] = '\0';
	ck_assert_msg(libra_params_set(&p, key, val, err, sizeof(err)) == 0,
		      "%s=%s: %s", key, val, err);
	return p;
}

/* Set key=val on defaults; it must fail naming what and leave p as it
 * was. */
static void _set_refused(const char *key, const char *val, const char *what)
{
	libra_params_t p = _defaults(), before = p;

	err[0] = '\0';
	ck_assert_msg(libra_params_set(&p, key, val, err, sizeof(err)) == -1,
		      "%s=%s was accepted", key ? key : "(null)",
		      val ? val : "(null)");
	ck_assert_names(err, what);
	ck_assert_msg(memcmp(&p, &before, sizeof(p)) == 0,
		      "%s=%s changed the parameters", key ? key : "(null)",
		      val ? val : "(null)");
}

/*
 * Every number key with its range as sched_libra(8) documents it: the
 * lowest value taken (or, for an open bound, the bound itself, refused),
 * the value just outside, the highest value taken and the value just
 * above it.
 */
static const struct {
	const char *key;
	size_t off;
	const char *lo;		/* at the lower bound */
	bool lo_open;		/* ... which is refused */
	const char *below;	/* just below (closed) or just above (open) */
	const char *hi;		/* the upper bound, taken */
	const char *above;	/* just above it, refused */
} number_keys[] = {
#define K(k, f) k, offsetof(libra_params_t, f)
	{ K("libra_alpha", alpha), "0", false, "-0", "1e6", "1000000.000001" },
	{ K("libra_beta", beta), "0", false, "-0", "1e6", "1000000.000001" },
	{ K("libra_price_base", price_base), "0", true, "1e-9", "1e12",
	  "1000000000000.001" },
	{ K("libra_price_mem", price_mem), "0", false, "-0", "1e12",
	  "1000000000000.001" },
	{ K("libra_price_gpu", price_gpu), "0", false, "-0", "1e12",
	  "1000000000000.001" },
	{ K("libra_price_disk", price_disk), "0", false, "-0", "1e12",
	  "1000000000000.001" },
	{ K("libra_gamma", gamma), "0", false, "-0", "1e6", "1000000.000001" },
	{ K("libra_delta", delta), "0", false, "-0", "1e6", "1000000.000001" },
	{ K("libra_peak_price", peak_price), "0", false, "-0", "1e12",
	  "1000000000000.001" },
	{ K("libra_capacity", capacity), "0", true, "1e-9", "1",
	  "1.000000001" },
	{ K("libra_share_min", share_min), "0", true, "1e-9", "0.5",
	  "0.500000001" },
	{ K("libra_risk_sigma", risk_sigma), "0", false, "-0", "1e6",
	  "1000000.000001" },
	{ K("libra_risk_mu", risk_mu), "1", false, "0.999999999", "1e6",
	  "1000000.000001" },
	{ K("libra_beta_min", beta_min), "0", true, "1e-9", "1e6",
	  "1000000.000001" },
	{ K("libra_beta_max", beta_max), "0", true, "1e-9", "1e6",
	  "1000000.000001" },
	{ K("libra_interval", interval), "0.1", false, "0.099999999", "3600",
	  "3600.000001" },
	{ K("libra_weight_interval", weight_interval), "0.1", false,
	  "0.099999999", "3600", "3600.000001" },
	{ K("libra_tolerance", tolerance), "0", false, "-0", "1e-3",
	  "0.001000001" },
	{ K("libra_markup", markup), "0", false, "-0", "100", "100.000001" },
	{ K("libra_markup_value", markup_tier[LIBRA_TIER_VALUE]), "0", false,
	  "-0", "100", "100.000001" },
	{ K("libra_markup_standard", markup_tier[LIBRA_TIER_STANDARD]), "0",
	  false, "-0", "100", "100.000001" },
	{ K("libra_markup_premium", markup_tier[LIBRA_TIER_PREMIUM]), "0",
	  false, "-0", "100", "100.000001" },
	{ K("libra_min_profit_rate", min_profit_rate), "0", false, "-0",
	  "1e12", "1000000000000.001" },
	{ K("libra_price_damping", price_damping), "0", false, "-0", "1e8",
	  "100000000.000001" },
	{ K("libra_quote_hold", quote_hold), "1", false, "0.999999999",
	  "86400", "86400.000001" },
	{ K("libra_quote_max", quote_max), "0", false, "-0", "1000", "1001" },
	{ K("libra_predict_risk", predict_risk), "0", true, "1e-9", "0.5",
	  "0.500000001" },
	{ K("libra_predict_min", predict_min), "1", false, "0.999999999",
	  "32", "33" },
	{ K("libra_predict_pace", predict_pace), "0", true, "1e-9", "1",
	  "1.000000001" },
	{ K("libra_power_interval", power_interval), "1", false,
	  "0.999999999", "86400", "86400.000001" },
	{ K("libra_power_boot", power_boot), "0", false, "-0", "86400",
	  "86400.000001" },
	{ K("libra_power_shutdown", power_shutdown), "0", false, "-0",
	  "86400", "86400.000001" },
	{ K("libra_power_warm", power_warm), "0", false, "-0", "1000000",
	  "1000001" },
	{ K("libra_penalty_cap", penalty_cap), "0", false, "-0", "1000000",
	  "1000000.000001" },
	{ K("libra_penalty_rate_max", penalty_rate_max), "0", false, "-0",
	  "1e15", "1.000001e15" },
	{ K("libra_runtime_min", runtime_min), "0", false, "-0", "86400",
	  "86400.000001" },
	{ K("libra_window_max", window_max), "0", false, "-0", "315360000",
	  "315360000.000001" },
	{ K("libra_metrics_interval", metrics_interval), "1", false, "0.9",
	  "3600", "3600.000001" },
#undef K
};
#define NNUMBER (sizeof(number_keys) / sizeof(number_keys[0]))

static double _field(const libra_params_t *p, size_t off)
{
	return *(const double *) ((const char *) p + off);
}

START_TEST(test_set_number_key_range_edges)
{
	for (size_t i = 0; i < NNUMBER; i++) {
		const char *key = number_keys[i].key;
		size_t off = number_keys[i].off;
		libra_params_t p;

		/* the upper bound is taken, just above it is not */
		p = _set(key, number_keys[i].hi);
		ck_assert_double_eq_tol(_field(&p, off),
					strtod(number_keys[i].hi, NULL),
					1e-15);
		_set_refused(key, number_keys[i].above, key);
		if (number_keys[i].lo_open) {
			/* (lo, ...: the bound is refused, just above is
			 * taken */
			_set_refused(key, number_keys[i].lo, key);
			p = _set(key, number_keys[i].below);
			ck_assert_double_eq_tol(_field(&p, off),
				strtod(number_keys[i].below, NULL), 1e-18);
		} else {
			/* [lo, ...: the bound is taken, just below is not */
			p = _set(key, number_keys[i].lo);
			ck_assert_double_eq_tol(_field(&p, off),
				strtod(number_keys[i].lo, NULL), 1e-15);
			_set_refused(key, number_keys[i].below, key);
		}
	}
}
END_TEST

START_TEST(test_set_number_key_refuses_bad_numbers)
{
	/* the strict decimal grammar (libra_parse_money): no units, no
	 * blanks, signs, hexadecimal, words or separators */
	static const char *bad[] = {
		"5x", "", "nan", "NaN", "inf", "infinity", "-1", "+1", " 1",
		"1 ", "0x10", "1e", "1,5", ".", "e3", "1e400", "5s",
	};

	for (size_t i = 0; i < NNUMBER; i++)
		for (size_t j = 0; j < sizeof(bad) / sizeof(bad[0]); j++)
			_set_refused(number_keys[i].key, bad[j],
				     number_keys[i].key);
}
END_TEST

START_TEST(test_set_bad_number_message_names_key_and_value)
{
	libra_params_t p = _defaults();

	ck_assert_int_eq(libra_params_set(&p, "libra_interval", "5x", err,
					  sizeof(err)), -1);
	ck_assert_str_eq(err, "libra_interval=5x: not a non-negative number");
	ck_assert_int_eq(libra_params_set(&p, "libra_share_min", "0.7", err,
					  sizeof(err)), -1);
	ck_assert_str_eq(err, "libra_share_min=0.7: must be in (0, 0.5]");
}
END_TEST

START_TEST(test_set_refuses_unknown_keys)
{
	_set_refused("libra_bogus", "1", "libra_bogus");
	_set_refused("alpha", "1", "alpha");	/* no prefix */
	_set_refused("LIBRA_ALPHA", "1", "LIBRA_ALPHA");
	_set_refused("libra_alpha ", "1", "libra_alpha");
	_set_refused("", "1", "unknown");
	_set_refused(NULL, "1", "unknown");
}
END_TEST

START_TEST(test_set_refuses_missing_value)
{
	_set_refused("libra_alpha", NULL, "libra_alpha");
	_set_refused("libra_policy", NULL, "libra_policy");
}
END_TEST

START_TEST(test_set_word_keys)
{
	libra_params_t p;

	p = _set("libra_policy", "librasla");
	ck_assert_int_eq(p.policy, LIBRA_POLICY_SLA);
	p = _set("libra_resfree", "thesis");
	ck_assert_int_eq(p.resfree, LIBRA_RESFREE_THESIS);
	p = _set("libra_charge", "thesis");
	ck_assert_int_eq(p.charge, LIBRA_CHARGE_THESIS);
	p = _set("libra_no_sla", "reject");
	ck_assert_int_eq(p.no_sla, LIBRA_NOSLA_REJECT);
	p = _set("libra_enforce", "off");
	ck_assert(!p.enforce);
	p = _set("libra_peak_hours", "12-24");
	ck_assert_int_eq(p.peak_start, 12);
	ck_assert_int_eq(p.peak_end, 0);
	p = _set("libra_peak_hours", "22-6");
	ck_assert_int_eq(p.peak_start, 22);
	ck_assert_int_eq(p.peak_end, 6);
	p = _set("libra_predict", "ratio");
	ck_assert_int_eq(p.predict, LIBRA_PREDICT_RATIO);
	p = _set("libra_predict", "none");
	ck_assert_int_eq(p.predict, LIBRA_PREDICT_NONE);
}
END_TEST

START_TEST(test_set_word_keys_refuse_bad_values)
{
	static const char *keys[] = {
		"libra_policy", "libra_resfree", "libra_charge",
		"libra_no_sla", "libra_enforce", "libra_peak_hours",
		"libra_predict", "libra_settle_paper",
	};
	static const char *bad[] = { "5x", "", "nan", "maybe" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		for (size_t j = 0; j < sizeof(bad) / sizeof(bad[0]); j++)
			_set_refused(keys[i], bad[j], keys[i]);
	/* peak hours: 0-23 then 0-24, and they differ */
	_set_refused("libra_peak_hours", "24-3", "libra_peak_hours");
	_set_refused("libra_peak_hours", "3-25", "libra_peak_hours");
	_set_refused("libra_peak_hours", "0-0", "libra_peak_hours");
	_set_refused("libra_peak_hours", "12", "libra_peak_hours");
	_set_refused("libra_peak_hours", "0-24", "libra_peak_hours");
	/* the message shows the whole value */
	_set_refused("libra_peak_hours", "9-25", "libra_peak_hours=9-25");
}
END_TEST

START_TEST(test_set_applies_on_top_of_current_values)
{
	/* A key set twice: the last counts; other keys keep their values. */
	libra_params_t p = _defaults();

	ck_assert_int_eq(libra_params_set(&p, "libra_alpha", "3", err,
					  sizeof(err)), 0);
	ck_assert_int_eq(libra_params_set(&p, "libra_beta", "0.4", err,
					  sizeof(err)), 0);
	ck_assert_int_eq(libra_params_set(&p, "libra_alpha", "2", err,
					  sizeof(err)), 0);
	ck_assert_double_eq_tol(p.alpha, 2.0, TOL);
	ck_assert_double_eq_tol(p.beta, 0.4, TOL);
}
END_TEST

START_TEST(test_set_leaves_relations_to_check)
{
	/* beta_min above beta_max: each key is in range, the pair is not */
	libra_params_t p = _defaults();

	ck_assert_int_eq(libra_params_check(&p, err, sizeof(err)), 0);
	ck_assert_int_eq(libra_params_set(&p, "libra_beta_min", "20", err,
					  sizeof(err)), 0);
	ck_assert_int_eq(libra_params_check(&p, err, sizeof(err)), -1);
	ck_assert_names(err, "libra_beta_min");
	ck_assert_names(err, "libra_beta_max");
}
END_TEST

START_TEST(test_parse_and_set_agree)
{
	/* libra_params_parse() takes key=val exactly when libra_params_set()
	 * and then libra_params_check() do, and to the same effect. */
	static const char *vals[] = {
		"0", "0.05", "0.5", "1", "2", "1e-4", "3600", "5x", "-1",
		"nan", "libra", "thesis", "yes", "9-17",
	};

	for (size_t i = 0; i < NNUMBER; i++) {
		for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
			libra_params_t a = _defaults(), b = _defaults();
			char s[128];
			int ra, rb;

			snprintf(s, sizeof(s), "%s=%s", number_keys[i].key,
				 vals[j]);
			ra = libra_params_parse(&a, s, err, sizeof(err));
			rb = libra_params_set(&b, number_keys[i].key, vals[j],
					      err, sizeof(err));
			if (!rb)
				rb = libra_params_check(&b, err, sizeof(err));
			ck_assert_msg(ra == rb, "%s: parse %d, set %d", s, ra,
				      rb);
			ck_assert(ra || memcmp(&a, &b, sizeof(a)) == 0);
		}
	}
}
END_TEST

START_TEST(test_every_formatted_key_can_be_set)
{
	/* the table's every key, as libra_params_format() lists them */
	libra_params_t p = _defaults();
	char buf[2048], *tok, *save = NULL;
	int n = 0;

	libra_params_format(&p, buf, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *val = strchr(tok, '=');

		ck_assert_ptr_nonnull(val);
		*val++ = '\0';
		ck_assert_msg(libra_params_set(&p, tok, val, err,
					       sizeof(err)) == 0,
			      "%s=%s: %s", tok, val, err);
		n++;
	}
	ck_assert_int_eq(n, (int) NNUMBER + 15);
}
END_TEST

/* ---------------------------------------------------------------- */
/* libra_parse_number: the strict number parser for callers' own keys */

START_TEST(test_parse_number_whole_range)
{
	/* the SPANK plugin's top_weight: a whole number in [1, 262144] */
	static const libra_range_t r = { .min = 1, .max = 262144,
					 .whole = true };
	double v = -1;

	ck_assert_int_eq(libra_parse_number("top_weight", "1", &r, &v, err,
					    sizeof(err)), 0);
	ck_assert_double_eq(v, 1);
	ck_assert_int_eq(libra_parse_number("top_weight", "262144", &r, &v,
					    err, sizeof(err)), 0);
	ck_assert_double_eq(v, 262144);
	ck_assert_int_eq(libra_parse_number("top_weight", "1e2", &r, &v,
					    err, sizeof(err)), 0);
	ck_assert_double_eq(v, 100);
	v = -1;
	ck_assert_int_eq(libra_parse_number("top_weight", "0", &r, &v, err,
					    sizeof(err)), -1);
	ck_assert_str_eq(err, "top_weight=0: must be a whole number in "
			 "[1, 262144]");
	ck_assert_int_eq(libra_parse_number("top_weight", "262145", &r, &v,
					    err, sizeof(err)), -1);
	ck_assert_int_eq(libra_parse_number("top_weight", "1.5", &r, &v,
					    err, sizeof(err)), -1);
	ck_assert_int_eq(libra_parse_number("top_weight", "5x", &r, &v, err,
					    sizeof(err)), -1);
	ck_assert_str_eq(err, "top_weight=5x: not a non-negative number");
	ck_assert_int_eq(libra_parse_number("top_weight", NULL, &r, &v, err,
					    sizeof(err)), -1);
	ck_assert_double_eq(v, -1);	/* untouched on error */
}
END_TEST

START_TEST(test_parse_number_open_lower_bound)
{
	static const libra_range_t r = { .min = 0, .max = 0.5,
					 .min_open = true };
	double v = -1;

	ck_assert_int_eq(libra_parse_number("x", "0", &r, &v, err,
					    sizeof(err)), -1);
	ck_assert_str_eq(err, "x=0: must be in (0, 0.5]");
	ck_assert_int_eq(libra_parse_number("x", "0.5", &r, &v, err,
					    sizeof(err)), 0);
	ck_assert_double_eq(v, 0.5);
}
END_TEST

/* ---------------------------------------------------------------- */

START_TEST(test_policy_names_round_trip)
{
	for (int i = 0; i < LIBRA_POLICY_COUNT; i++) {
		libra_policy_t back = LIBRA_POLICY_COUNT;
		const char *name = libra_policy_name((libra_policy_t) i);

		ck_assert_ptr_nonnull(name);
		ck_assert(libra_policy_from_name(name, &back));
		ck_assert_int_eq(back, i);
	}
}
END_TEST

START_TEST(test_policy_names_are_the_documented_ones)
{
	ck_assert_str_eq(libra_policy_name(LIBRA_POLICY_LIBRA), "libra");
	ck_assert_str_eq(libra_policy_name(LIBRA_POLICY_LIBRA_PRICE),
			 "libra+$");
	ck_assert_str_eq(libra_policy_name(LIBRA_POLICY_SLA), "librasla");
	ck_assert_str_eq(libra_policy_name(LIBRA_POLICY_RISKD), "librariskd");
	ck_assert_str_eq(libra_policy_name(LIBRA_POLICY_AUTO), "libra+$auto");
	ck_assert_str_eq(libra_policy_name(LIBRA_POLICY_FIXED), "fixed");
	ck_assert_str_eq(libra_policy_name(LIBRA_POLICY_PEAK), "peak");
}
END_TEST

START_TEST(test_unknown_policy_name_is_refused)
{
	libra_policy_t p = LIBRA_POLICY_PEAK;

	ck_assert(!libra_policy_from_name("fcfs-bf", &p));
	ck_assert(!libra_policy_from_name("", &p));
	ck_assert(!libra_policy_from_name("LIBRA+$", &p) ||
		  p == LIBRA_POLICY_LIBRA_PRICE);
}
END_TEST

START_TEST(test_market_policies_are_libra_price_and_auto)
{
	ck_assert(libra_policy_is_market(LIBRA_POLICY_LIBRA_PRICE));
	ck_assert(libra_policy_is_market(LIBRA_POLICY_AUTO));
	ck_assert(!libra_policy_is_market(LIBRA_POLICY_LIBRA));
	ck_assert(!libra_policy_is_market(LIBRA_POLICY_FIXED));
	ck_assert(!libra_policy_is_market(LIBRA_POLICY_PEAK));
}
END_TEST

/* ---------------------------------------------------------------- */
/* libra_name_t (number.h): the one rule of every enum's names        */
/* ---------------------------------------------------------------- */

static const libra_name_t colours[] = {
	{ 1, "red" }, { 2, "green" }, { 1, "rouge" }, { 3, "blue" },
	{ 0, NULL }
};

START_TEST(test_name_of_is_the_first_entry_of_a_value)
{
	ck_assert_str_eq(libra_name_of(colours, 1), "red");
	ck_assert_str_eq(libra_name_of(colours, 3), "blue");
	ck_assert_str_eq(libra_name_of(colours, 7), "unknown");
}
END_TEST

START_TEST(test_value_of_matches_exactly_aliases_included)
{
	int v = -1;

	ck_assert(libra_value_of(colours, "rouge", &v));
	ck_assert_int_eq(v, 1);
	ck_assert(libra_value_of(colours, "green", &v));
	ck_assert_int_eq(v, 2);
	v = -1;
	ck_assert(!libra_value_of(colours, "Red", &v));
	ck_assert(!libra_value_of(colours, "re", &v));
	ck_assert(!libra_value_of(colours, "", &v));
	ck_assert(!libra_value_of(colours, NULL, &v));
	ck_assert_int_eq(v, -1);
}
END_TEST

START_TEST(test_names_list_leaves_aliases_out)
{
	static const libra_name_t one[] = { { 0, "alone" }, { 0, NULL } };
	static const libra_name_t two[] = { { 0, "a" }, { 1, "b" },
					    { 0, NULL } };
	char list[LIBRA_NAMES_MAX], small[8];

	ck_assert_str_eq(libra_names_list(colours, list, sizeof(list)),
			 "red, green or blue");
	ck_assert_str_eq(libra_names_list(one, list, sizeof(list)), "alone");
	ck_assert_str_eq(libra_names_list(two, list, sizeof(list)), "a or b");
	ck_assert_str_eq(libra_names_list(libra_yes_no_names, list,
					  sizeof(list)), "yes or no");
	ck_assert_str_eq(libra_names_list(colours, small, sizeof(small)),
			 "red, gr");
}
END_TEST

/* The "expected ..." of every word key, from its table. */
START_TEST(test_word_keys_list_their_values)
{
	static const char *const cases[][2] = {
		{ "libra_policy", "expected libra, libra+$, librasla, librariskd, libra+$auto, fixed or peak" },
		{ "libra_resfree", "expected window or thesis" },
		{ "libra_charge", "expected cpu or thesis" },
		{ "libra_no_sla", "expected slurm, best_effort or reject" },
		{ "libra_enforce", "expected yes or no" },
		{ "libra_predict", "expected none, ratio, last2 or runtime" },
		{ "libra_power", "expected none, static, h1, h2, h3 or h5" },
	};
	char want[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		libra_params_t p;

		libra_params_default(&p);
		ck_assert_int_eq(libra_params_set(&p, cases[i][0], "Nope", err,
						  sizeof(err)), -1);
		snprintf(want, sizeof(want), "%s=Nope: %s", cases[i][0],
			 cases[i][1]);
		ck_assert_str_eq(err, want);
	}
}
END_TEST

START_TEST(test_yes_no_reads_every_spelling)
{
	static const char *const yes[] = { "yes", "on", "1" };
	static const char *const no[] = { "no", "off", "0" };
	libra_params_t p;

	libra_params_default(&p);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(libra_params_set(&p, "libra_enforce", no[i],
						  err, sizeof(err)), 0);
		ck_assert(!p.enforce);
		ck_assert_int_eq(libra_params_set(&p, "libra_enforce", yes[i],
						  err, sizeof(err)), 0);
		ck_assert(p.enforce);
	}
	ck_assert_int_eq(libra_params_set(&p, "libra_enforce", "YES", err,
					  sizeof(err)), -1);
}
END_TEST

/* ---------------------------------------------------------------- */
/* libra_node_speed (decision 43; nodemap.h)                            */

START_TEST(test_node_speed_map_reads_hostlists_and_speeds)
{
	libra_params_t p = _defaults();
	char buf[512];

	ck_assert_int_eq(p.node_speed.n, 0);
	ck_assert_int_eq(libra_params_parse(&p,
		"bf_interval=30,libra_node_speed=n[1,3-4]:0.5;gpu7:1.5,libra_capacity=0.9",
		err, sizeof(err)), 0);
	ck_assert_int_eq(p.node_speed.n, 2);
	ck_assert_str_eq(p.node_speed.e[0].nodes, "n[1,3-4]");
	ck_assert_double_eq(p.node_speed.e[0].value, 0.5);
	ck_assert_str_eq(p.node_speed.e[1].nodes, "gpu7");
	ck_assert_double_eq(p.node_speed.e[1].value, 1.5);
	ck_assert_double_eq(p.capacity, 0.9);
	libra_node_map_format(&p.node_speed, buf, sizeof(buf));
	ck_assert_str_eq(buf, "n[1,3-4]:0.5;gpu7:1.5");
	ck_assert_int_eq(libra_params_set(&p, "libra_node_speed", "none", err,
					  sizeof(err)), 0);
	ck_assert_int_eq(p.node_speed.n, 0);
	/* the price factors: the same form, up to 1000 */
	ck_assert_int_eq(libra_params_set(&p, "libra_node_price", "gpu[1-4]:2",
					  err, sizeof(err)), 0);
	ck_assert_double_eq(p.node_price.e[0].value, 2.0);
	ck_assert_int_eq(libra_params_set(&p, "libra_node_price", "n1:1001",
					  err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "libra_node_price: 'n1:1001'"), "%s", err);
}
END_TEST

START_TEST(test_metrics_file_is_an_absolute_path_or_none)
{
	libra_params_t p = _defaults();
	char long_path[300];

	ck_assert_str_eq(p.metrics_file, "");	/* decision 44: opt-in */
	ck_assert_double_eq(p.metrics_interval, 15.0);
	ck_assert_int_eq(libra_params_parse(&p,
		"libra_metrics_file=/var/lib/prometheus/node-exporter/libra.prom,libra_metrics_interval=30",
		err, sizeof(err)), 0);
	ck_assert_str_eq(p.metrics_file,
			 "/var/lib/prometheus/node-exporter/libra.prom");
	ck_assert_double_eq(p.metrics_interval, 30.0);
	/* relative, blank, too long: refused, naming the key, p unchanged */
	ck_assert_int_eq(libra_params_set(&p, "libra_metrics_file",
					  "libra.prom", err, sizeof(err)), -1);
	ck_assert_names(err, "libra_metrics_file=libra.prom: expected an absolute path");
	ck_assert_int_eq(libra_params_set(&p, "libra_metrics_file",
					  "/a b.prom", err, sizeof(err)), -1);
	ck_assert_names(err, "without blanks");
	memset(long_path, 'x', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = '\0';
	ck_assert_int_eq(libra_params_set(&p, "libra_metrics_file", long_path,
					  err, sizeof(err)), -1);
	ck_assert_names(err, "at most 255 characters");
	ck_assert_str_eq(p.metrics_file,
			 "/var/lib/prometheus/node-exporter/libra.prom");
	/* nothing turns it off again */
	ck_assert_int_eq(libra_params_set(&p, "libra_metrics_file", "", err,
					  sizeof(err)), 0);
	ck_assert_str_eq(p.metrics_file, "");
}
END_TEST

START_TEST(test_node_speed_map_errors_name_the_entry)
{
	static const struct {
		const char *spec, *msg;
	} bad[] = {
		{ "n1", "'n1': expected HOSTLIST:VALUE" },
		{ "n1:0", "'n1:0': value=0" },
		{ "n1:65", "'n1:65': value=65" },
		{ "n1:fast", "'n1:fast': value=fast" },
		{ "n1:-1", "'n1:-1'" },
		{ ":1", "not a hostlist" },
		{ "n[1-2:1", "not a hostlist" },
		{ "n]1:1", "not a hostlist" },
		{ "n1:1;", "ends with ';'" },
		{ "n1:1;;n2:1", "an empty entry" },
		{ "n 1:1", "not a hostlist" },
	};
	libra_params_t p = _defaults();

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		libra_params_t before = p;

		ck_assert_int_eq(libra_params_set(&p, "libra_node_speed",
						  bad[i].spec, err,
						  sizeof(err)), -1);
		ck_assert_msg(strstr(err, "libra_node_speed") &&
			      strstr(err, bad[i].msg),
			      "%s: \"%s\", want \"%s\"", bad[i].spec, err,
			      bad[i].msg);
		ck_assert(!memcmp(&before, &p, sizeof(p)));
	}
}
END_TEST

START_TEST(test_commas_in_brackets_stay_in_their_key)
{
	/* Slurm's keys around a bracketed list are still read, and a key
	 * of ours after it too */
	libra_params_t p = _defaults();

	ck_assert_int_eq(libra_params_parse(&p,
		",libra_node_speed=a[1,2]:2,,libra_policy=libra,", err,
		sizeof(err)), 0);
	ck_assert_str_eq(p.node_speed.e[0].nodes, "a[1,2]");
	ck_assert_int_eq(p.policy, LIBRA_POLICY_LIBRA);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("params");
	TCase *tc;

	tc = tcase_create("defaults");
	T(tc, test_default_alpha_is_one);
	T(tc, test_default_beta_is_one_tenth);
	T(tc, test_default_libra_static_price_factors_are_one);
	T(tc, test_default_modes_are_window_and_cpu);
	T(tc, test_default_share_min_and_capacity);
	T(tc, test_default_beta_within_auto_bounds);
	T(tc, test_default_risk_mu_is_no_delay);
	T(tc, test_price_base_per_sec_divides_by_3600);
	T(tc, test_default_memory_and_gpu_prices_are_zero);
	T(tc, test_memory_and_gpu_prices_per_second);
	T(tc, test_disk_price_per_second);
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	T(tc, test_parse_spec_example);
	T(tc, test_parse_every_double_key);
	T(tc, test_parse_every_policy_name);
	T(tc, test_parse_mode_keys);
	T(tc, test_parse_peak_hours);
	T(tc, test_non_libra_keys_are_ignored);
	T(tc, test_empty_and_null_strings_change_nothing);
	T(tc, test_unknown_libra_key_is_refused_naming_it);
	T(tc, test_bad_number_is_refused_naming_key);
	T(tc, test_out_of_range_is_refused_naming_key);
	T(tc, test_bad_enum_value_is_refused_naming_key);
	T(tc, test_duplicate_key_is_refused_naming_it);
	T(tc, test_beta_bounds_must_be_ordered);
	T(tc, test_error_after_good_keys_leaves_output_unchanged);
	T(tc, test_parse_applies_on_top_of_current_values);
	suite_add_tcase(s, tc);

	tc = tcase_create("set");
	T(tc, test_set_number_key_range_edges);
	T(tc, test_set_number_key_refuses_bad_numbers);
	T(tc, test_set_bad_number_message_names_key_and_value);
	T(tc, test_set_refuses_unknown_keys);
	T(tc, test_set_refuses_missing_value);
	T(tc, test_set_word_keys);
	T(tc, test_set_word_keys_refuse_bad_values);
	T(tc, test_set_applies_on_top_of_current_values);
	T(tc, test_set_leaves_relations_to_check);
	T(tc, test_parse_and_set_agree);
	T(tc, test_every_formatted_key_can_be_set);
	T(tc, test_node_speed_map_reads_hostlists_and_speeds);
	T(tc, test_node_speed_map_errors_name_the_entry);
	T(tc, test_metrics_file_is_an_absolute_path_or_none);
	T(tc, test_commas_in_brackets_stay_in_their_key);
	T(tc, test_parse_number_whole_range);
	T(tc, test_parse_number_open_lower_bound);
	suite_add_tcase(s, tc);

	tc = tcase_create("format");
	T(tc, test_format_parse_round_trip);
	T(tc, test_format_of_defaults_parses_back_to_defaults);
	T(tc, test_format_names_keys_with_prefix);
	T(tc, test_format_truncates_to_buffer);
	suite_add_tcase(s, tc);

	tc = tcase_create("policy");
	T(tc, test_policy_names_round_trip);
	T(tc, test_policy_names_are_the_documented_ones);
	T(tc, test_unknown_policy_name_is_refused);
	T(tc, test_market_policies_are_libra_price_and_auto);
	suite_add_tcase(s, tc);

	tc = tcase_create("names");
	T(tc, test_name_of_is_the_first_entry_of_a_value);
	T(tc, test_value_of_matches_exactly_aliases_included);
	T(tc, test_names_list_leaves_aliases_out);
	T(tc, test_word_keys_list_their_values);
	T(tc, test_yes_no_reads_every_spelling);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
