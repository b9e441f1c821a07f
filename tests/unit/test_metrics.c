/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_metrics.c - provider and user objectives, risk analysis
 *  (metrics.h, thesis Eq. 3.7/3.8, 6.1-6.8, Yeo & Buyya eq. 7/8).
\*****************************************************************************/

#include <math.h>
#include <string.h>

#include "metrics.h"
#include "testutil.h"

/*
 * Four submitted jobs:
 *  1 accepted, met,    B 10, C 8,  submit 0,  start 0,  end 100, run 50
 *  2 accepted, missed, B 20, C -5, submit 10, start 20, end 300, run 100
 *  3 rejected,         B 30
 *  4 accepted, met,    B 40, C 40, submit 50, start 60, end 250, run 80
 *
 *  n = 4, accepted 3, QoS met (met and C <= B): jobs 1, 4 -> 2
 *  Job QoS Satisfaction = 2/4 = 0.5
 *  Profitability (paper) = (8 + 40) / (10 + 20 + 30 + 40) = 48/100
 *  Profitability (slides) = (8 - 5 + 40) / (10 + 20 + 40) = 43/70
 *  SLA = 2/4 * 100 = 50;  reliability = 2/3 * 100 = 66.667
 *  profit (Ch.6) = (8 - 5 + 40) / 100 * 100 = 43
 *  wait over SLA-met jobs: (0 - 0 + 60 - 50) / 2 = 5
 *  slowdown over deadline-met: ((100-0)/50 + (250-50)/80) / 2
 *	= (2 + 2.5) / 2 = 2.25
 *  deadlines missed by admitted jobs: 1;  utility: 43
 */
static libra_metrics_t _example(void)
{
	static const libra_job_result_t jobs[] = {
		{ true, true, 10, 8, 0, 0, 100, 50 },
		{ true, false, 20, -5, 10, 20, 300, 100 },
		{ false, false, 30, 0, 30, 0, 0, 70 },
		{ true, true, 40, 40, 50, 60, 250, 80 },
	};
	libra_metrics_t m;

	memset(&m, 0x5a, sizeof(m));
	libra_metrics_init(&m);
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++)
		libra_metrics_add(&m, &jobs[i]);
	libra_metrics_finish(&m);
	return m;
}

START_TEST(test_counts)
{
	libra_metrics_t m = _example();

	ck_assert_int_eq(m.submitted, 4);
	ck_assert_int_eq(m.accepted, 3);
	ck_assert_int_eq(m.qos_met, 2);
	ck_assert_int_eq(m.sla_met, 2);
	ck_assert_int_eq(m.deadline_missed, 1);
	ck_assert_double_eq_tol(m.budget_all, 100.0, TOL);
	ck_assert_double_eq_tol(m.budget_accepted, 70.0, TOL);
}
END_TEST

START_TEST(test_qos_satisfaction_is_qos_met_over_submitted)
{
	/* 2 / 4 */
	libra_metrics_t m = _example();

	ck_assert_double_eq_tol(m.qos_satisfaction, 0.5, TOL);
}
END_TEST

START_TEST(test_profitability_paper_definition)
{
	/* sum_QoS C / sum_all B = 48 / 100 */
	libra_metrics_t m = _example();

	ck_assert_double_eq_tol(m.charge_qos, 48.0, TOL);
	ck_assert_double_eq_tol(m.profitability, 0.48, TOL);
}
END_TEST

START_TEST(test_profitability_slides_definition)
{
	/* sum_accepted C / sum_accepted B = 43 / 70 */
	libra_metrics_t m = _example();

	ck_assert_double_eq_tol(m.charge_accepted, 43.0, TOL);
	ck_assert_double_eq_tol(m.profitability_slides, 43.0 / 70.0, TOL);
}
END_TEST

START_TEST(test_sla_percent)
{
	/* Eq. 6.2: 2 / 4 * 100 */
	libra_metrics_t m = _example();

	ck_assert_double_eq_tol(m.sla_pct, 50.0, TOL);
}
END_TEST

START_TEST(test_reliability_percent)
{
	/* Eq. 6.3: 2 / 3 * 100 */
	libra_metrics_t m = _example();

	ck_assert_double_eq_tol(m.reliability_pct, 200.0 / 3.0, TOL);
}
END_TEST

START_TEST(test_profit_percent_counts_penalties)
{
	/* Eq. 6.4: (8 - 5 + 40) / 100 * 100 = 43 */
	libra_metrics_t m = _example();

	ck_assert_double_eq_tol(m.profit_pct, 43.0, TOL);
	ck_assert_double_eq_tol(m.utility, 43.0, TOL);
}
END_TEST

START_TEST(test_mean_wait_over_sla_met_jobs)
{
	/* Eq. 6.1: (0 + 10) / 2 = 5; job 2's wait of 10 is not counted */
	libra_metrics_t m = _example();

	ck_assert_double_eq_tol(m.mean_wait, 5.0, TOL);
}
END_TEST

START_TEST(test_mean_slowdown_over_deadline_met_jobs)
{
	/* (100/50 + 200/80) / 2 = 2.25 */
	libra_metrics_t m = _example();

	ck_assert_double_eq_tol(m.mean_slowdown, 2.25, TOL);
}
END_TEST

START_TEST(test_met_deadline_over_budget_is_not_qos)
{
	/* C 12 > B 10: deadline met but QoS (and the paper's profit) not */
	libra_job_result_t r = { true, true, 10, 12, 0, 0, 100, 100 };
	libra_metrics_t m;

	libra_metrics_init(&m);
	libra_metrics_add(&m, &r);
	libra_metrics_finish(&m);
	ck_assert_int_eq(m.qos_met, 0);
	ck_assert_double_eq_tol(m.qos_satisfaction, 0.0, TOL);
	ck_assert_double_eq_tol(m.profitability, 0.0, TOL);
}
END_TEST

START_TEST(test_job_without_budget_has_no_limit)
{
	/* budget 0 means no limit: charge 5 met on time is QoS */
	libra_job_result_t r = { true, true, 0, 5, 0, 0, 100, 100 };
	libra_metrics_t m;

	libra_metrics_init(&m);
	libra_metrics_add(&m, &r);
	libra_metrics_finish(&m);
	ck_assert_int_eq(m.qos_met, 1);
	ck_assert_double_eq_tol(m.qos_satisfaction, 1.0, TOL);
}
END_TEST

START_TEST(test_empty_metrics_are_zero_not_nan)
{
	libra_metrics_t m;

	libra_metrics_init(&m);
	libra_metrics_finish(&m);
	ck_assert_int_eq(m.submitted, 0);
	ck_assert(!isnan(m.qos_satisfaction));
	ck_assert(!isnan(m.profitability));
	ck_assert(!isnan(m.profitability_slides));
	ck_assert(!isnan(m.sla_pct));
	ck_assert(!isnan(m.reliability_pct));
	ck_assert(!isnan(m.profit_pct));
	ck_assert(!isnan(m.mean_wait));
	ck_assert(!isnan(m.mean_slowdown));
}
END_TEST

START_TEST(test_all_rejected_gives_zero_reliability_not_nan)
{
	libra_job_result_t r = { false, false, 10, 0, 0, 0, 0, 100 };
	libra_metrics_t m;

	libra_metrics_init(&m);
	libra_metrics_add(&m, &r);
	libra_metrics_finish(&m);
	ck_assert(!isnan(m.reliability_pct));
	ck_assert(!isnan(m.profitability_slides));
	ck_assert(!isnan(m.mean_wait));
	ck_assert_double_eq_tol(m.qos_satisfaction, 0.0, TOL);
}
END_TEST

/* ---------------------------------------------------------------- */

START_TEST(test_normalise_plain)
{
	/* (5 - 0) / (10 - 0) = 0.5; (2.5 - 2) / (4 - 2) = 0.25 */
	ck_assert_double_eq_tol(libra_normalise(5, 0, 10, false), 0.5, TOL);
	ck_assert_double_eq_tol(libra_normalise(2.5, 2, 4, false), 0.25, TOL);
}
END_TEST

START_TEST(test_normalise_inverted_for_lower_is_better)
{
	/* wait 2 over [0, 10]: 1 - 0.2 = 0.8; the lowest is 1 */
	ck_assert_double_eq_tol(libra_normalise(2, 0, 10, true), 0.8, TOL);
	ck_assert_double_eq_tol(libra_normalise(0, 0, 10, true), 1.0, TOL);
	ck_assert_double_eq_tol(libra_normalise(10, 0, 10, true), 0.0, TOL);
}
END_TEST

START_TEST(test_normalise_degenerate_range_is_one)
{
	ck_assert_double_eq_tol(libra_normalise(3, 3, 3, false), 1.0, TOL);
	ck_assert_double_eq_tol(libra_normalise(3, 3, 3, true), 1.0, TOL);
}
END_TEST

START_TEST(test_normalise_stays_in_unit_interval)
{
	double a = libra_normalise(15, 0, 10, false);
	double b = libra_normalise(-5, 0, 10, false);

	ck_assert(a >= 0.0 - TOL && a <= 1.0 + TOL);
	ck_assert(b >= 0.0 - TOL && b <= 1.0 + TOL);
}
END_TEST

START_TEST(test_risk_separate_mean_and_sigma)
{
	/* x = 0.2, 0.4, 0.6, 0.8:
	 * mu = 2.0 / 4 = 0.5                                   (Eq. 6.5)
	 * mean(x^2) = (0.04 + 0.16 + 0.36 + 0.64) / 4 = 0.3
	 * sigma = sqrt(0.3 - 0.25) = sqrt(0.05) = 0.2236068    (Eq. 6.6) */
	static const double x[] = { 0.2, 0.4, 0.6, 0.8 };
	double mu, sigma;

	libra_risk_separate(x, 4, &mu, &sigma);
	ck_assert_double_eq_tol(mu, 0.5, TOL);
	ck_assert_double_eq_tol(sigma, sqrt(0.05), TOL);
}
END_TEST

START_TEST(test_risk_separate_six_results)
{
	/* r = 6 as in the thesis: x = 1, 1, 0.5, 0.5, 0, 0:
	 * mu = 3/6 = 0.5; mean(x^2) = 2.5/6; sigma = sqrt(2.5/6 - 0.25)
	 * = sqrt(1/6) = 0.4082483 */
	static const double x[] = { 1, 1, 0.5, 0.5, 0, 0 };
	double mu, sigma;

	libra_risk_separate(x, 6, &mu, &sigma);
	ck_assert_double_eq_tol(mu, 0.5, TOL);
	ck_assert_double_eq_tol(sigma, sqrt(1.0 / 6.0), TOL);
}
END_TEST

START_TEST(test_risk_separate_constant_results_have_no_volatility)
{
	/* x all 0.1: mean(x^2) - mu^2 may round below zero; sigma must be
	 * 0, not NaN */
	static const double x[] = { 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 };
	double mu, sigma;

	libra_risk_separate(x, 7, &mu, &sigma);
	ck_assert_double_eq_tol(mu, 0.1, TOL);
	ck_assert(!isnan(sigma));
	ck_assert_double_eq_tol(sigma, 0.0, 1e-7);
}
END_TEST

START_TEST(test_risk_integrated_weighted_sums)
{
	/* mu = 0.5, 0.8; sigma = 0.2, 0.1; w = 0.25, 0.75:
	 * mu_int = 0.125 + 0.6 = 0.725; sigma_int = 0.05 + 0.075 = 0.125
	 * (Eq. 6.7/6.8) */
	static const double mu[] = { 0.5, 0.8 }, sigma[] = { 0.2, 0.1 };
	static const double w[] = { 0.25, 0.75 };
	double mi, si;

	ck_assert_int_eq(libra_risk_integrated(mu, sigma, w, 2, &mi, &si), 0);
	ck_assert_double_eq_tol(mi, 0.725, TOL);
	ck_assert_double_eq_tol(si, 0.125, TOL);
}
END_TEST

START_TEST(test_risk_integrated_equal_weights_of_four)
{
	/* four objectives, w = 0.25 each (thesis): plain means */
	static const double mu[] = { 1, 0.5, 0.25, 0.25 };
	static const double sigma[] = { 0, 0.1, 0.2, 0.3 };
	static const double w[] = { 0.25, 0.25, 0.25, 0.25 };
	double mi, si;

	ck_assert_int_eq(libra_risk_integrated(mu, sigma, w, 4, &mi, &si), 0);
	ck_assert_double_eq_tol(mi, 0.5, TOL);
	ck_assert_double_eq_tol(si, 0.15, TOL);
}
END_TEST

START_TEST(test_risk_integrated_rejects_weights_not_summing_to_one)
{
	static const double mu[] = { 0.5, 0.8 }, sigma[] = { 0.2, 0.1 };
	static const double w[] = { 0.5, 0.6 };
	double mi, si;

	ck_assert_int_eq(libra_risk_integrated(mu, sigma, w, 2, &mi, &si), -1);
}
END_TEST

START_TEST(test_risk_integrated_rejects_negative_weight)
{
	static const double mu[] = { 0.5, 0.8 }, sigma[] = { 0.2, 0.1 };
	static const double w[] = { 1.5, -0.5 };
	double mi, si;

	ck_assert_int_eq(libra_risk_integrated(mu, sigma, w, 2, &mi, &si), -1);
}
END_TEST

START_TEST(test_risk_integrated_rejects_nan_weight)
{
	static const double mu[] = { 0.5, 0.8 }, sigma[] = { 0.2, 0.1 };
	double w[] = { NAN, 1.0 };
	double mi, si;

	ck_assert_int_eq(libra_risk_integrated(mu, sigma, w, 2, &mi, &si), -1);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc;

	tc = tcase_create("objectives");
	T(tc, test_counts);
	T(tc, test_qos_satisfaction_is_qos_met_over_submitted);
	T(tc, test_profitability_paper_definition);
	T(tc, test_profitability_slides_definition);
	T(tc, test_sla_percent);
	T(tc, test_reliability_percent);
	T(tc, test_profit_percent_counts_penalties);
	T(tc, test_mean_wait_over_sla_met_jobs);
	T(tc, test_mean_slowdown_over_deadline_met_jobs);
	T(tc, test_met_deadline_over_budget_is_not_qos);
	T(tc, test_job_without_budget_has_no_limit);
	T(tc, test_empty_metrics_are_zero_not_nan);
	T(tc, test_all_rejected_gives_zero_reliability_not_nan);
	suite_add_tcase(s, tc);

	tc = tcase_create("risk");
	T(tc, test_normalise_plain);
	T(tc, test_normalise_inverted_for_lower_is_better);
	T(tc, test_normalise_degenerate_range_is_one);
	T(tc, test_normalise_stays_in_unit_interval);
	T(tc, test_risk_separate_mean_and_sigma);
	T(tc, test_risk_separate_six_results);
	T(tc, test_risk_separate_constant_results_have_no_volatility);
	T(tc, test_risk_integrated_weighted_sums);
	T(tc, test_risk_integrated_equal_weights_of_four);
	T(tc, test_risk_integrated_rejects_weights_not_summing_to_one);
	T(tc, test_risk_integrated_rejects_negative_weight);
	T(tc, test_risk_integrated_rejects_nan_weight);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
