/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_price.c - Libra+$ and the other prices (price.h).
 *
 *	P_ij     = alpha * PBase_j + beta * PUtil_ij		(thesis 3.3)
 *	PUtil_ij = RESMax_j / RESFree_ij * PBase_j		(3.4)
 *	RESFree_ij = RESMax_j - committed_j - RES_i		(3.5/3.6)
 *
 *  Most cases use price_base = 3600 per CPU-hour, i.e. PBase = 1 per
 *  CPU-second, so that rates read as multiples of PBase.
\*****************************************************************************/

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ledger.h"
#include "params.h"
#include "price.h"
#include "share.h"
#include "testutil.h"

static libra_params_t _params(double alpha, double beta,
			      libra_resfree_t resfree)
{
	libra_params_t p;

	libra_params_default(&p);
	p.policy = LIBRA_POLICY_LIBRA_PRICE;
	p.alpha = alpha;
	p.beta = beta;
	p.price_base = 3600.0;	/* PBase = 1 per CPU-second */
	p.resfree = resfree;
	return p;
}

static void _commit(libra_ledger_t *l, uint32_t job, double re, double td,
		    int node, int cpus, double now)
{
	libra_sla_t sla;
	libra_place_t pl = PLACE(node, cpus);

	memset(&sla, 0, sizeof(sla));
	sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE;
	sla.runtime = re;
	sla.submit = now;
	sla.deadline = td;
	ck_assert_int_eq(libra_ledger_commit(l, job, &sla, &pl, 1, now), 0);
}

static libra_ledger_t *_ledger(int cpus)
{
	libra_ledger_t *l = libra_ledger_create(LIBRA_SHARE_MIN_DEFAULT);

	ck_assert_int_eq(libra_ledger_add_node(l, "n0", cpus), 0);
	return l;
}

/*
 * The thesis' worked example (section 3.4.1) on a 1-CPU node at now 0,
 * one second standing for the example's unit:
 *   committed: job k, RE 90, TD 180 -> share 0.5; inside [0, 200] and
 *	[0, 500] it commits 0.5 * (180 - 0) = 90 (window), and RE_k = 90
 *	(thesis): 90 either way, as in the example.
 *   job i: 1 CPU, RE 10 -> RES_i = 10.
 *   "2 h": TD 200 -> RESMax 200, RESFree 200 - 90 - 10 = 100, PUtil 2.
 *   "5 h": TD 500 -> RESMax 500, RESFree 500 - 90 - 10 = 400, PUtil 1.25.
 */
static libra_ledger_t *_thesis_example(void)
{
	libra_ledger_t *l = _ledger(1);

	_commit(l, 1, 90, 180, 0, 1, 0);
	return l;
}

/* ---------------------------------------------------------------- */

START_TEST(test_putil_short_deadline_is_two)
{
	/* 200 / (200 - 90 - 10) * 1 = 2.00 */
	ck_assert_double_eq_tol(libra_putil(200, 200 - 90 - 10, 1), 2.0, TOL);
}
END_TEST

START_TEST(test_putil_long_deadline_is_one_and_a_quarter)
{
	/* 500 / (500 - 90 - 10) * 1 = 1.25 */
	ck_assert_double_eq_tol(libra_putil(500, 500 - 90 - 10, 1), 1.25, TOL);
}
END_TEST

START_TEST(test_putil_scales_with_price_base)
{
	/* 200 / 100 * 0.5 = 1.0 */
	ck_assert_double_eq_tol(libra_putil(200, 100, 0.5), 1.0, TOL);
}
END_TEST

START_TEST(test_putil_without_free_resource_is_infinite)
{
	ck_assert(isinf(libra_putil(200, 0, 1)));
	ck_assert(libra_putil(200, 0, 1) > 0);
	ck_assert(isinf(libra_putil(200, -5, 1)));
	ck_assert(libra_putil(200, -5, 1) > 0);
}
END_TEST

START_TEST(test_putil_of_idle_resource_is_price_base)
{
	/* RESFree == RESMax: PUtil = PBase */
	ck_assert_double_eq_tol(libra_putil(300, 300, 2), 2.0, TOL);
}
END_TEST

START_TEST(test_res_max_is_cpus_times_window)
{
	/* 4 CPUs over [100, 350]: 4 * 250 = 1000 */
	libra_ledger_t *l = _ledger(4);

	ck_assert_double_eq_tol(libra_res_max(l, 0, 100, 350), 1000.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_res_free_window_short_deadline)
{
	libra_ledger_t *l = _thesis_example();
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);

	ck_assert_double_eq_tol(libra_res_max(l, 0, 0, 200), 200.0, TOL);
	ck_assert_double_eq_tol(libra_res_free(l, &p, 0, 1, 10, 0, 200),
				100.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_res_free_window_long_deadline)
{
	libra_ledger_t *l = _thesis_example();
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);

	ck_assert_double_eq_tol(libra_res_free(l, &p, 0, 1, 10, 0, 500),
				400.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_res_free_thesis_short_and_long_deadline)
{
	/* sum RE_k = 90: 200 - 90 - 10 = 100; 500 - 90 - 10 = 400 */
	libra_ledger_t *l = _thesis_example();
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_THESIS);

	ck_assert_double_eq_tol(libra_res_free(l, &p, 0, 1, 10, 0, 200),
				100.0, TOL);
	ck_assert_double_eq_tol(libra_res_free(l, &p, 0, 1, 10, 0, 500),
				400.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_rate_reproduces_thesis_example)
{
	/* P = alpha * 1 + beta * PUtil, alpha 1, beta 0.1:
	 * 2 h: 1 + 0.1 * 2 = 1.2;   5 h: 1 + 0.1 * 1.25 = 1.125.
	 * The same in both RESFree modes (90 committed either way). */
	for (int mode = 0; mode < 2; mode++) {
		libra_ledger_t *l = _thesis_example();
		libra_params_t p = _params(1, 0.1, (libra_resfree_t) mode);

		ck_assert_double_eq_tol(libra_rate(l, &p, 0.1, 0, 1, 10, 0,
						   200), 1.2, TOL);
		ck_assert_double_eq_tol(libra_rate(l, &p, 0.1, 0, 1, 10, 0,
						   500), 1.125, TOL);
		libra_ledger_destroy(l);
	}
}
END_TEST

START_TEST(test_rate_reproduces_thesis_example_on_two_cpus)
{
	/* 2-CPU node at now 1000; job k on 1 CPU: RE 90, TD 1100 -> share
	 * 0.9, commits 0.9 * 100 = 90 in any window reaching 1100.
	 * Job i: 2 CPUs, RE 5 -> RES_i = 2 * 5 = 10.
	 * TD 1100: RESMax 2 * 100 = 200, RESFree 100, PUtil 2, P (beta 1) 3.
	 * TD 1250: RESMax 2 * 250 = 500, RESFree 400, PUtil 1.25, P 2.25. */
	for (int mode = 0; mode < 2; mode++) {
		libra_ledger_t *l = _ledger(2);
		libra_params_t p = _params(1, 1, (libra_resfree_t) mode);

		_commit(l, 1, 90, 1100, 0, 1, 1000);
		ck_assert_double_eq_tol(libra_res_max(l, 0, 1000, 1100), 200.0,
					TOL);
		ck_assert_double_eq_tol(libra_res_free(l, &p, 0, 2, 5, 1000,
						       1100), 100.0, TOL);
		ck_assert_double_eq_tol(libra_res_free(l, &p, 0, 2, 5, 1000,
						       1250), 400.0, TOL);
		ck_assert_double_eq_tol(libra_rate(l, &p, 1, 0, 2, 5, 1000,
						   1100), 3.0, TOL);
		ck_assert_double_eq_tol(libra_rate(l, &p, 1, 0, 2, 5, 1000,
						   1250), 2.25, TOL);
		libra_ledger_destroy(l);
	}
}
END_TEST

START_TEST(test_res_free_modes_differ_for_long_running_jobs)
{
	/* job k: RE 90, TD 900 -> share 0.1.  Job i: RE 10, TD 200.
	 * window: k commits 0.1 * 200 = 20 -> RESFree 200 - 20 - 10 = 170
	 * thesis: k counts RE_k = 90   -> RESFree 200 - 90 - 10 = 100 */
	libra_ledger_t *l = _ledger(1);
	libra_params_t w = _params(1, 1, LIBRA_RESFREE_WINDOW);
	libra_params_t t = _params(1, 1, LIBRA_RESFREE_THESIS);

	_commit(l, 1, 90, 900, 0, 1, 0);
	ck_assert_double_eq_tol(libra_res_free(l, &w, 0, 1, 10, 0, 200),
				170.0, TOL);
	ck_assert_double_eq_tol(libra_res_free(l, &t, 0, 1, 10, 0, 200),
				100.0, TOL);
	/* P = 1 + 200/170 and 1 + 2 */
	ck_assert_double_eq_tol(libra_rate(l, &w, 1, 0, 1, 10, 0, 200),
				1.0 + 200.0 / 170.0, TOL);
	ck_assert_double_eq_tol(libra_rate(l, &t, 1, 0, 1, 10, 0, 200), 3.0,
				TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_res_free_window_ignores_work_already_done)
{
	/* Decision 2: job k (RE 90, TD 180, share 0.5) committed at 0; priced
	 * at now 100 for job i (RE 10, TD 300):
	 * window: 0.5 * (180 - 100) = 40 -> RESFree 200 - 40 - 10 = 150
	 * thesis: 90                     -> RESFree 200 - 90 - 10 = 100 */
	libra_ledger_t *l = _thesis_example();
	libra_params_t w = _params(1, 1, LIBRA_RESFREE_WINDOW);
	libra_params_t t = _params(1, 1, LIBRA_RESFREE_THESIS);

	ck_assert_double_eq_tol(libra_res_free(l, &w, 0, 1, 10, 100, 300),
				150.0, TOL);
	ck_assert_double_eq_tol(libra_res_free(l, &t, 0, 1, 10, 100, 300),
				100.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_rate_uses_the_beta_given)
{
	/* p->beta 0.1, but Libra+$Auto passes its node's beta 1:
	 * 1 + 1 * 2 = 3 at TD 200. */
	libra_ledger_t *l = _thesis_example();
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);

	ck_assert_double_eq_tol(libra_rate(l, &p, 1.0, 0, 1, 10, 0, 200), 3.0,
				TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_rate_uses_alpha_and_price_base_per_second)
{
	/* price_base 7200 per CPU-hour = 2 per CPU-second; alpha 0.5,
	 * beta 0.25: P = 0.5 * 2 + 0.25 * (2 * 2) = 2.0 at TD 200. */
	libra_ledger_t *l = _thesis_example();
	libra_params_t p = _params(0.5, 0.25, LIBRA_RESFREE_WINDOW);

	p.price_base = 7200.0;
	ck_assert_double_eq_tol(libra_rate(l, &p, 0.25, 0, 1, 10, 0, 200), 2.0,
				TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_rate_is_infinite_when_nothing_is_free)
{
	/* idle 1-CPU node, RE 100, TD 100: RESFree 100 - 0 - 100 = 0 */
	libra_ledger_t *l = _ledger(1);
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);
	double r;

	r = libra_rate(l, &p, 0.1, 0, 1, 100, 0, 100);
	ck_assert(isinf(r) && r > 0);
	/* overloaded: RE 150 over 100 s: RESFree -50 */
	ck_assert(libra_res_free(l, &p, 0, 1, 150, 0, 100) < 0);
	r = libra_rate(l, &p, 0.1, 0, 1, 150, 0, 100);
	ck_assert(isinf(r) && r > 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_rate_is_at_least_alpha_plus_beta_times_base)
{
	/* RESFree <= RESMax, so PUtil >= PBase and P >= (alpha+beta) PBase,
	 * whatever the load; here alpha 1, beta 0.3, PBase 1. */
	for (int mode = 0; mode < 2; mode++) {
		libra_ledger_t *l = _ledger(2);
		libra_params_t p = _params(1, 0.3, (libra_resfree_t) mode);

		for (uint32_t j = 1; j <= 10; j++) {
			double r = libra_rate(l, &p, 0.3, 0, 1, 10, 0, 1000);

			ck_assert(r >= 1.3 - TOL);
			_commit(l, j, 50 * j, 1000 + 10 * j, 0, 1, 0);
		}
		libra_ledger_destroy(l);
	}
}
END_TEST

START_TEST(test_rate_grows_with_load)
{
	libra_ledger_t *l = _ledger(1);
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);
	double before = libra_rate(l, &p, 0.1, 0, 1, 10, 0, 200), after;

	_commit(l, 1, 50, 200, 0, 1, 0);
	after = libra_rate(l, &p, 0.1, 0, 1, 10, 0, 200);
	ck_assert(after > before);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_idle_node_cost_closed_form_d_over_re_two)
{
	/* Idle 1-CPU node, PBase 1 per CPU-hour = 1/3600 per CPU-s,
	 * RE 3600 s, D 7200 s: C = RE * PBase * (alpha + beta * D/(D-RE))
	 * = 3600 * (1/3600) * (1 + 0.1 * 2) = 1.2 = alpha + 2 beta. */
	libra_ledger_t *l = _ledger(1);
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);
	double rate;

	p.price_base = 1.0;
	rate = libra_rate(l, &p, p.beta, 0, 1, 3600, 0, 7200);
	ck_assert_double_eq_tol(rate * 3600, 1.2, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_idle_node_cost_closed_form_d_over_re_eight)
{
	/* D/RE = 8: alpha + beta * 8/7 = 1 + 0.1 * 1.142857 = 1.1142857 */
	libra_ledger_t *l = _ledger(1);
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_THESIS);

	p.price_base = 1.0;
	ck_assert_double_eq_tol(libra_rate(l, &p, p.beta, 0, 1, 3600, 0,
					   28800) * 3600,
				1.0 + 0.1 * 8.0 / 7.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_idle_node_cost_closed_form_multi_cpu)
{
	/* Idle 4-CPU node, job with 2 CPUs, RE 3600, TD 7200:
	 * RESMax 4 * 7200 = 28800, RES_i = 2 * 3600 = 7200,
	 * PUtil = 28800 / 21600 * PBase = 4/3 PBase; alpha 1, beta 0.6:
	 * P = (1 + 0.6 * 4/3) / 3600 = 1.8 / 3600 per CPU-second. */
	libra_ledger_t *l = _ledger(4);
	libra_params_t p = _params(1, 0.6, LIBRA_RESFREE_WINDOW);

	p.price_base = 1.0;
	ck_assert_double_eq_tol(libra_rate(l, &p, 0.6, 0, 2, 3600, 0, 7200) *
				3600, 1.8, TOL);
	libra_ledger_destroy(l);
}
END_TEST

/* ---------------------------------------------------------------- */

START_TEST(test_static_price_thesis_units)
{
	/* PBase 3600 per CPU-hour = $1 per CPU-s, gamma = delta = 1:
	 * C = 1 * (1 * 100 + 1 * 100/400) = 100.25 (thesis section 3.5.2) */
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);

	ck_assert_double_eq_tol(libra_static_price(&p, 100, 400), 100.25, TOL);
}
END_TEST

START_TEST(test_static_price_scales_by_price_base_per_second)
{
	/* PBase 1 per CPU-hour, gamma 2, delta 3, RE 3600, D 7200:
	 * C = (1/3600) * (2 * 3600 + 3 * 0.5) = 7201.5 / 3600 */
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);

	p.price_base = 1.0;
	p.gamma = 2.0;
	p.delta = 3.0;
	ck_assert_double_eq_tol(libra_static_price(&p, 3600, 7200),
				7201.5 / 3600.0, TOL);
}
END_TEST

START_TEST(test_static_price_rewards_longer_deadlines)
{
	/* delta term RE/D shrinks as D grows */
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);

	ck_assert(libra_static_price(&p, 100, 800) <
		  libra_static_price(&p, 100, 200));
	/* 100 + 100/800 = 100.125 */
	ck_assert_double_eq_tol(libra_static_price(&p, 100, 800), 100.125,
				TOL);
}
END_TEST

/* ---------------------------------------------------------------- */

/* Midnight UTC, 2027-01-15. */
#define DAY0 1799971200.0

static void _utc(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
}

START_TEST(test_time_rate_fixed_is_price_base_any_time)
{
	/* fixed, 2 per CPU-hour = 2/3600 per CPU-s at 03:00 and 15:00 */
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);

	_utc();
	p.policy = LIBRA_POLICY_FIXED;
	p.price_base = 2.0;
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 3 * 3600),
				2.0 / 3600, 1e-15);
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 15 * 3600),
				2.0 / 3600, 1e-15);
}
END_TEST

START_TEST(test_time_rate_peak_hours)
{
	/* peak 9-17 at 3 per CPU-hour, else 1: 10:00 peak, 08:59 off, 09:00
	 * peak, 17:00 off (first off-peak hour). */
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);

	_utc();
	p.policy = LIBRA_POLICY_PEAK;
	p.price_base = 1.0;
	p.peak_price = 3.0;
	p.peak_start = 9;
	p.peak_end = 17;
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 10 * 3600),
				3.0 / 3600, 1e-15);
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 9 * 3600 - 60),
				1.0 / 3600, 1e-15);
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 9 * 3600),
				3.0 / 3600, 1e-15);
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 17 * 3600),
				1.0 / 3600, 1e-15);
}
END_TEST

START_TEST(test_time_rate_peak_wraps_midnight)
{
	/* peak 22-6: 23:00 and 03:00 peak, 12:00 off */
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);

	_utc();
	p.policy = LIBRA_POLICY_PEAK;
	p.price_base = 1.0;
	p.peak_price = 3.0;
	p.peak_start = 22;
	p.peak_end = 6;
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 23 * 3600),
				3.0 / 3600, 1e-15);
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 3 * 3600),
				3.0 / 3600, 1e-15);
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 12 * 3600),
				1.0 / 3600, 1e-15);
}
END_TEST

START_TEST(test_time_rate_default_peak_is_afternoon_and_evening)
{
	/* thesis Table 7.2 FixedTimeMax: 12PM-12AM peak (start 12, end 0) */
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);
	libra_params_t d;

	_utc();
	libra_params_default(&d);
	p.policy = LIBRA_POLICY_PEAK;
	p.price_base = 1.0;
	p.peak_price = 3.0;
	p.peak_start = d.peak_start;
	p.peak_end = d.peak_end;
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 13 * 3600),
				3.0 / 3600, 1e-15);
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 23 * 3600 + 1800),
				3.0 / 3600, 1e-15);
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 11 * 3600),
				1.0 / 3600, 1e-15);
}
END_TEST

START_TEST(test_time_rate_follows_local_time)
{
	/* The tariff's clock at UTC+2 (the plugins set the offset from the
	 * zone): 08:00 UTC is 10:00 local, inside peak 9-17. */
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);

	p.tariff.offset = 7200;
	p.policy = LIBRA_POLICY_PEAK;
	p.price_base = 1.0;
	p.peak_price = 3.0;
	p.peak_start = 9;
	p.peak_end = 17;
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 8 * 3600),
				3.0 / 3600, 1e-15);
	/* 06:00 UTC = 08:00 local: off-peak */
	ck_assert_double_eq_tol(libra_time_rate(&p, DAY0 + 6 * 3600),
				1.0 / 3600, 1e-15);
}
END_TEST

START_TEST(test_time_cost_each_hour_at_its_rate)
{
	/* peak 12-24 at 3, else 1 per CPU-hour (Table 7.2, FixedTimeMax):
	 * [11:00, 13:00) costs 1 + 3; a whole day 12 + 36; fixed at 2 per
	 * CPU-hour costs 2 an hour whatever the hour; nothing backwards */
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);

	p.policy = LIBRA_POLICY_PEAK;
	p.price_base = 1.0;
	p.peak_price = 3.0;
	p.peak_start = 12;
	p.peak_end = 0;
	ck_assert_double_eq_tol(libra_time_cost(&p, DAY0 + 11 * 3600,
						DAY0 + 13 * 3600), 4.0, 1e-9);
	ck_assert_double_eq_tol(libra_time_cost(&p, DAY0 + 5 * 3600,
						DAY0 + 29 * 3600), 48.0, 1e-9);
	/* 22:00 local at UTC+2 is 20:00 UTC: [20:00, 22:00) UTC is the
	 * last hour of peak and the first off-peak one */
	p.tariff.offset = 7200;
	ck_assert_double_eq_tol(libra_time_cost(&p, DAY0 + 21 * 3600,
						DAY0 + 23 * 3600), 4.0, 1e-9);
	ck_assert_double_eq(libra_time_cost(&p, DAY0, DAY0), 0.0);
	p.policy = LIBRA_POLICY_FIXED;
	p.price_base = 2.0;
	ck_assert_double_eq_tol(libra_time_cost(&p, DAY0 + 11 * 3600,
						DAY0 + 13 * 3600), 4.0, 1e-9);
}
END_TEST

/* ------------------------------------------------ memory and GPUs */

/* A node of 4 GPUs and 8192 MB; job 1 holds 2 GPUs and 4096 MB until its
 * deadline 10800 (3 h), committed at 0. */
static libra_ledger_t *_held_ledger(void)
{
	libra_ledger_t *l = _ledger(4);
	libra_sla_t sla;
	libra_place_t pl = { .node = 0, .cpus = 1, .mem_mb = 4096,
			     .gpus = 2 };

	ck_assert_int_eq(libra_ledger_set_node_resources(l, 0, 8192, 4), 0);
	memset(&sla, 0, sizeof(sla));
	sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE;
	sla.runtime = 100;
	sla.deadline = 10800;
	ck_assert_int_eq(libra_ledger_commit(l, 1, &sla, &pl, 1, 0), 0);
	return l;
}

START_TEST(test_held_rates_are_zero_without_their_prices)
{
	/* the defaults: memory and GPUs cost nothing, CPU prices as before */
	libra_ledger_t *l = _held_ledger();
	libra_params_t p = _params(1.0, 0.1, LIBRA_RESFREE_WINDOW);
	double mem, gpu, tmp;

	libra_held_rates(l, &p, p.beta, 0, 0, 10800, &mem, &gpu, &tmp);
	ck_assert_double_eq(mem, 0.0);
	ck_assert_double_eq(gpu, 0.0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_held_rates_price_h_example)
{
	/* price.h: 2 of 4 GPUs held through the window, alpha 1, beta 0.1,
	 * PBase 2 per GPU-hour: PUtil = 4/2 * 2 = 4, P = 2 + 0.4 = 2.4 per
	 * GPU-hour.  Memory alike: 8192 MB, 4096 held, 1 per GB-hour: P =
	 * 1 + 0.1 * 2 = 1.2 per GB-hour. */
	libra_ledger_t *l = _held_ledger();
	libra_params_t p = _params(1.0, 0.1, LIBRA_RESFREE_WINDOW);
	double mem, gpu, tmp;

	p.price_gpu = 2.0;
	p.price_mem = 1.0;
	libra_held_rates(l, &p, p.beta, 0, 0, 10800, &mem, &gpu, &tmp);
	ck_assert_double_eq_tol(gpu * 3600.0, 2.4, 1e-12);
	ck_assert_double_eq_tol(mem * 3600.0 * 1024.0, 1.2, 1e-12);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_held_rates_count_only_the_window_held)
{
	/* a window twice as long as job 1's hold: it holds half of it, so
	 * PUtil = 4 / (4 - 2 * 1/2) * 2 = 8/3 per GPU-hour */
	libra_ledger_t *l = _held_ledger();
	libra_params_t p = _params(1.0, 0.1, LIBRA_RESFREE_WINDOW);
	double mem, gpu, tmp;

	p.price_gpu = 2.0;
	libra_held_rates(l, &p, p.beta, 0, 0, 21600, &mem, &gpu, &tmp);
	ck_assert_double_eq_tol(gpu * 3600.0, 2.0 + 0.1 * 8.0 / 3.0, 1e-12);
	ck_assert_double_eq(mem, 0.0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_held_rates_rise_with_what_is_held)
{
	libra_ledger_t *l = _held_ledger();
	libra_params_t p = _params(1.0, 0.1, LIBRA_RESFREE_WINDOW);
	libra_place_t pl = { .node = 0, .cpus = 1, .gpus = 1 };
	double mem, gpu1, gpu2, tmp;

	p.price_gpu = 2.0;
	libra_held_rates(l, &p, p.beta, 0, 0, 10800, &mem, &gpu1, &tmp);
	ck_assert_int_eq(libra_ledger_commit(l, 2, NULL, &pl, 1, 0), 0);
	libra_held_rates(l, &p, p.beta, 0, 0, 10800, &mem, &gpu2, &tmp);
	ck_assert(gpu2 > gpu1);
	/* 3 of 4 held: PUtil = 4 * 2 = 8, P = 2.8 per GPU-hour */
	ck_assert_double_eq_tol(gpu2 * 3600.0, 2.8, 1e-12);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_held_rates_infinite_on_a_node_all_held)
{
	libra_ledger_t *l = _held_ledger();
	libra_params_t p = _params(1.0, 0.1, LIBRA_RESFREE_WINDOW);
	libra_place_t pl = { .node = 0, .cpus = 1, .gpus = 2 };
	double mem, gpu, tmp;

	p.price_gpu = 2.0;
	ck_assert_int_eq(libra_ledger_commit(l, 2, NULL, &pl, 1, 0), 0);
	libra_held_rates(l, &p, p.beta, 0, 0, 10800, &mem, &gpu, &tmp);
	ck_assert(isinf(gpu));
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_held_rate_of_untracked_memory_is_static_part)
{
	/* no memory known: no utilisation, alpha * PBase */
	libra_ledger_t *l = _ledger(4);
	libra_params_t p = _params(1.5, 0.1, LIBRA_RESFREE_WINDOW);
	double mem, gpu, tmp;

	p.price_mem = 3.6 * 1024.0;	/* 1e-3 per MB-second */
	libra_held_rates(l, &p, p.beta, 0, 0, 3600, &mem, &gpu, &tmp);
	ck_assert_double_eq_tol(mem, 1.5e-3, 1e-15);
	ck_assert_double_eq(gpu, 0.0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_held_rates_of_scratch_disk)
{
	/* as memory (price.h): 8192 MB of TmpDisk, 4096 held by job 2 until
	 * 10800, 1 per GB-hour, alpha 1, beta 0.1: P = 1 + 0.1 * 2 = 1.2 per
	 * GB-hour; 0 without its price; untracked, alpha * PBase */
	libra_ledger_t *l = _held_ledger();
	libra_params_t p = _params(1.0, 0.1, LIBRA_RESFREE_WINDOW);
	libra_sla_t sla;
	libra_place_t pl = { .node = 0, .cpus = 1, .tmp_mb = 4096 };
	double mem, gpu, tmp;

	libra_held_rates(l, &p, p.beta, 0, 0, 10800, &mem, &gpu, &tmp);
	ck_assert_double_eq(tmp, 0.0);
	p.price_disk = 1.0;
	libra_held_rates(l, &p, p.beta, 0, 0, 10800, &mem, &gpu, &tmp);
	ck_assert_double_eq_tol(tmp * 3600.0 * 1024.0, 1.0, 1e-12);
	ck_assert_double_eq(mem, 0.0);
	ck_assert_double_eq_tol(libra_price_disk_per_sec(&p) * 3600.0 *
				1024.0, 1.0, 1e-12);
	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 0, 8192), 0);
	memset(&sla, 0, sizeof(sla));
	sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE;
	sla.runtime = 100;
	sla.deadline = 10800;
	ck_assert_int_eq(libra_ledger_commit(l, 2, &sla, &pl, 1, 0), 0);
	libra_held_rates(l, &p, p.beta, 0, 0, 10800, &mem, &gpu, &tmp);
	ck_assert_double_eq_tol(tmp * 3600.0 * 1024.0, 1.2, 1e-12);
	/* the memory's rate does not see the disk */
	p.price_mem = 1.0;
	libra_held_rates(l, &p, p.beta, 0, 0, 10800, &mem, &gpu, &tmp);
	ck_assert_double_eq_tol(mem * 3600.0 * 1024.0, 1.2, 1e-12);
	ck_assert_double_eq_tol(tmp * 3600.0 * 1024.0, 1.2, 1e-12);
	libra_ledger_destroy(l);
}
END_TEST

/* ---- price damping (price.h; design.md decision 19) ---------------------- */

static libra_params_t _damped(double tau)
{
	libra_params_t p = _params(1, 0.1, LIBRA_RESFREE_WINDOW);

	p.price_damping = tau;
	return p;
}

START_TEST(test_damping_is_off_by_default)
{
	libra_params_t p;
	libra_ledger_t *l = _ledger(1);
	double when = -1.0;

	libra_params_default(&p);
	ck_assert(p.price_damping == 0.0);
	_commit(l, 1, 500, 1000, 0, 1, 0);
	libra_price_feedback(l, &p, 0);
	ck_assert(isnan(libra_ledger_node_load_avg(l, 0, &when)));
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_damping_without_an_average_prices_as_before)
{
	/* no feedback yet: no previous price to step from */
	libra_ledger_t *l = _ledger(1);
	libra_params_t raw = _damped(0), p = _damped(600);

	_commit(l, 1, 500, 1000, 0, 1, 0);
	ck_assert_double_eq_tol(libra_rate(l, &p, 0.1, 0, 1, 10, 0, 1000),
				libra_rate(l, &raw, 0.1, 0, 1, 10, 0, 1000),
				TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_damping_a_rise_of_demand_at_once)
{
	/* idle node averaged at t=0, then half of it committed at t=0:
	 * the average has not moved (lag 0.5), RESFree 490 is priced as
	 * 490 + 1000 * 0.5, bounded by RESMax - RES_i = 990 */
	libra_ledger_t *l = _ledger(1);
	libra_params_t raw = _damped(0), p = _damped(600);
	double r;

	libra_price_feedback(l, &p, 0);
	_commit(l, 1, 500, 1000, 0, 1, 0);
	r = libra_rate(l, &p, 0.1, 0, 1, 10, 0, 1000);
	ck_assert_double_eq_tol(r, 1.0 + 0.1 * 1000.0 / 990.0, TOL);
	ck_assert(r < libra_rate(l, &raw, 0.1, 0, 1, 10, 0, 1000));
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_damping_follows_the_time_constant)
{
	/* at t = tau the average has made 1 - 1/e of the step: lag
	 * 0.5/e; window [100, 1000]: RESMax 900, committed 450, RES_i 10 */
	libra_ledger_t *l = _ledger(1);
	libra_params_t p = _damped(100);
	double free = 900.0 - 450.0 - 10.0 + 900.0 * 0.5 * exp(-1.0);

	libra_price_feedback(l, &p, 0);
	_commit(l, 1, 500, 1000, 0, 1, 0);
	ck_assert_double_eq_tol(libra_load_smoothed(l, &p, 0, 100),
				0.5 - 0.5 * exp(-1.0), TOL);
	ck_assert_double_eq_tol(libra_rate(l, &p, 0.1, 0, 1, 10, 100, 1000),
				1.0 + 0.1 * 900.0 / free, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_damping_converges_to_the_raw_price)
{
	libra_ledger_t *l = _ledger(1);
	libra_params_t raw = _damped(0), p = _damped(60);
	double prev = 0.0;

	libra_price_feedback(l, &p, 0);
	_commit(l, 1, 5000, 10000, 0, 1, 0);
	for (double t = 0; t <= 3000; t += 300) {
		double d = libra_rate(l, &p, 0.1, 0, 1, 10, t, 10000);
		double r = libra_rate(l, &raw, 0.1, 0, 1, 10, t, 10000);

		ck_assert(d <= r + TOL);
		ck_assert(d >= prev - TOL);	/* rises steadily */
		prev = d;
		if (t >= 3000)
			ck_assert_double_eq_tol(d, r, 1e-9 * r);
	}
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_damping_a_fall_is_bounded)
{
	/* a node averaged full that is idle now: the lag (-1) would leave
	 * RESFree -10; it is priced as if the job just filled it, RES_i =
	 * 10 free: PUtil = 1000 / 10 = 100, finite */
	libra_ledger_t *l = _ledger(1);
	libra_params_t p = _damped(600);

	libra_ledger_set_node_load_avg(l, 0, 1.0, 0);
	ck_assert_double_eq_tol(libra_rate(l, &p, 0.1, 0, 1, 10, 0, 1000),
				1.0 + 0.1 * 100.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_damping_never_makes_a_full_node_priceable)
{
	libra_ledger_t *l = _ledger(1);
	libra_params_t p = _damped(600);

	libra_price_feedback(l, &p, 0);
	_commit(l, 1, 995, 1000, 0, 1, 0);
	ck_assert(isinf(libra_rate(l, &p, 0.1, 0, 1, 10, 0, 1000)));
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_damping_feedback_stores_the_average)
{
	libra_ledger_t *l = _ledger(2);
	libra_params_t p = _damped(100);
	double when;

	libra_price_feedback(l, &p, 0);
	ck_assert_double_eq_tol(libra_ledger_node_load_avg(l, 0, &when), 0.0,
				TOL);
	_commit(l, 1, 500, 1000, 0, 2, 0);	/* share 0.5 on 2 CPUs */
	libra_price_feedback(l, &p, 50);
	ck_assert_double_eq_tol(libra_ledger_node_load_avg(l, 0, &when),
				0.5 - 0.5 * exp(-0.5), TOL);
	ck_assert_double_eq_tol(when, 50.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("price");
	TCase *tc;

	tc = tcase_create("putil");
	T(tc, test_putil_short_deadline_is_two);
	T(tc, test_putil_long_deadline_is_one_and_a_quarter);
	T(tc, test_putil_scales_with_price_base);
	T(tc, test_putil_without_free_resource_is_infinite);
	T(tc, test_putil_of_idle_resource_is_price_base);
	suite_add_tcase(s, tc);

	tc = tcase_create("resfree");
	T(tc, test_res_max_is_cpus_times_window);
	T(tc, test_res_free_window_short_deadline);
	T(tc, test_res_free_window_long_deadline);
	T(tc, test_res_free_thesis_short_and_long_deadline);
	T(tc, test_res_free_modes_differ_for_long_running_jobs);
	T(tc, test_res_free_window_ignores_work_already_done);
	suite_add_tcase(s, tc);

	tc = tcase_create("rate");
	T(tc, test_rate_reproduces_thesis_example);
	T(tc, test_rate_reproduces_thesis_example_on_two_cpus);
	T(tc, test_rate_uses_the_beta_given);
	T(tc, test_rate_uses_alpha_and_price_base_per_second);
	T(tc, test_rate_is_infinite_when_nothing_is_free);
	T(tc, test_rate_is_at_least_alpha_plus_beta_times_base);
	T(tc, test_rate_grows_with_load);
	T(tc, test_idle_node_cost_closed_form_d_over_re_two);
	T(tc, test_idle_node_cost_closed_form_d_over_re_eight);
	T(tc, test_idle_node_cost_closed_form_multi_cpu);
	suite_add_tcase(s, tc);

	tc = tcase_create("held");
	T(tc, test_held_rates_are_zero_without_their_prices);
	T(tc, test_held_rates_price_h_example);
	T(tc, test_held_rates_count_only_the_window_held);
	T(tc, test_held_rates_rise_with_what_is_held);
	T(tc, test_held_rates_infinite_on_a_node_all_held);
	T(tc, test_held_rate_of_untracked_memory_is_static_part);
	T(tc, test_held_rates_of_scratch_disk);
	suite_add_tcase(s, tc);

	tc = tcase_create("static");
	T(tc, test_static_price_thesis_units);
	T(tc, test_static_price_scales_by_price_base_per_second);
	T(tc, test_static_price_rewards_longer_deadlines);
	suite_add_tcase(s, tc);

	tc = tcase_create("damping");
	T(tc, test_damping_is_off_by_default);
	T(tc, test_damping_without_an_average_prices_as_before);
	T(tc, test_damping_a_rise_of_demand_at_once);
	T(tc, test_damping_follows_the_time_constant);
	T(tc, test_damping_converges_to_the_raw_price);
	T(tc, test_damping_a_fall_is_bounded);
	T(tc, test_damping_never_makes_a_full_node_priceable);
	T(tc, test_damping_feedback_stores_the_average);
	suite_add_tcase(s, tc);

	tc = tcase_create("time");
	T(tc, test_time_rate_fixed_is_price_base_any_time);
	T(tc, test_time_rate_peak_hours);
	T(tc, test_time_rate_peak_wraps_midnight);
	T(tc, test_time_rate_default_peak_is_afternoon_and_evening);
	T(tc, test_time_rate_follows_local_time);
	T(tc, test_time_cost_each_hour_at_its_rate);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
