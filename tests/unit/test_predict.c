/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_predict.c - runtime predictions from finished jobs (predict.h;
 *  doc/design.md decision 22).
 *
 *  LAST2: P = min(RE, (R_1 + R_2) / 2) (Tsafrir, Etsion & Feitelson 2007);
 *  RATIO: P = min(cap, RE * Q_q(R_k / RE_k)); RUNTIME: P = min(cap,
 *  Q_q(R_k)), cap >= RE (RE for a hard deadline); Q_q the order statistic k = ceil(q (n + 1)), at most n;
 *  with done > 0, only the candidates above done count; no history, or
 *  none above done: the declared estimate.
\*****************************************************************************/

#include <math.h>

#include "predict.h"
#include "testutil.h"

/* A predictor of method m with the runs R (estimate RE each) of user 7,
 * group 70. */
static libra_predictor_t *_with(libra_predict_method_t m, int min,
				const double *runs, int n, double re)
{
	libra_predictor_t *p = libra_predictor_create(m, min);

	ck_assert_ptr_nonnull(p);
	for (int k = 0; k < n; k++)
		ck_assert_int_eq(libra_predictor_record(p, 7, 70, runs[k], re),
				 0);
	return p;
}

START_TEST(test_predict_no_history_is_the_declared_estimate)
{
	libra_predictor_t *p = libra_predictor_create(LIBRA_PREDICT_RATIO, 1);
	libra_prediction_t pr;

	libra_predict(p, 7, 70, 3600, 3600, 0.95, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 3600, TOL);
	ck_assert_int_eq(pr.source, LIBRA_PREDICT_FROM_NONE);
	ck_assert_int_eq(pr.samples, 0);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_none_method_is_the_declared_estimate)
{
	double runs[] = { 10, 20, 30 };
	libra_predictor_t *p = _with(LIBRA_PREDICT_NONE, 1, runs, 3, 100);
	libra_prediction_t pr;

	libra_predict(p, 7, 70, 100, 100, 0.5, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 100, TOL);
	libra_predict(NULL, 7, 70, 100, 100, 0.5, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 100, TOL);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_last2_is_mean_of_last_two_runs)
{
	/* the last two runs are 30 and 50: (30 + 50) / 2 = 40 */
	double runs[] = { 1000, 30, 50 };
	libra_predictor_t *p = _with(LIBRA_PREDICT_LAST2, 1, runs, 3, 3600);
	libra_prediction_t pr;

	libra_predict(p, 7, 70, 3600, 3600, 0.95, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 40, TOL);
	ck_assert_int_eq(pr.source, LIBRA_PREDICT_FROM_CLASS);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_last2_is_capped_by_the_estimate)
{
	double runs[] = { 500, 700 };
	libra_predictor_t *p = _with(LIBRA_PREDICT_LAST2, 1, runs, 2, 3600);
	libra_prediction_t pr;

	/* a job of the same user declaring 300 s: min(300, 600) */
	libra_predict(p, 7, 70, 300, 300, 0.95, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 300, TOL);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_last2_needs_two_runs)
{
	double runs[] = { 50 };
	libra_predictor_t *p = _with(LIBRA_PREDICT_LAST2, 1, runs, 1, 3600);
	libra_prediction_t pr;

	libra_predict(p, 7, 70, 3600, 3600, 0.95, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 3600, TOL);
	ck_assert_int_eq(pr.source, LIBRA_PREDICT_FROM_NONE);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_last2_past_prediction_is_the_estimate)
{
	double runs[] = { 30, 50 };
	libra_predictor_t *p = _with(LIBRA_PREDICT_LAST2, 1, runs, 2, 3600);
	libra_prediction_t pr;

	libra_predict(p, 7, 70, 3600, 3600, 0.95, 40, &pr);
	ck_assert_double_eq_tol(pr.runtime, 3600, TOL);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_ratio_scales_the_quantile_by_the_estimate)
{
	/* ratios 0.1 .. 0.9 of RE 1000; a job declaring 2000 s.  n = 9,
	 * q = 0.5: k = ceil(0.5 * 10) = 5 -> ratio 0.5 -> 1000 s */
	double runs[] = { 100, 200, 300, 400, 500, 600, 700, 800, 900 };
	libra_predictor_t *p = _with(LIBRA_PREDICT_RATIO, 2, runs, 9, 1000);
	libra_prediction_t pr;

	libra_predict(p, 7, 70, 2000, 2000, 0.5, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 1000, TOL);
	ck_assert_int_eq(pr.samples, 9);
	ck_assert_int_eq(pr.source, LIBRA_PREDICT_FROM_USER);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_quantile_is_conservative_order_statistic)
{
	double runs[] = { 100, 200, 300, 400, 500, 600, 700, 800, 900 };
	libra_predictor_t *p = _with(LIBRA_PREDICT_RUNTIME, 2, runs, 9, 1000);
	libra_prediction_t pr;

	/* q = 0.8: k = ceil(0.8 * 10) = 8 -> 800 */
	libra_predict(p, 7, 70, 1000, 1000, 0.8, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 800, TOL);
	/* q = 0.95: k = ceil(9.5) = 10 > n -> the largest, 900 */
	libra_predict(p, 7, 70, 1000, 1000, 0.95, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 900, TOL);
	/* spread: Q_0.95 - Q_0.5 = 900 - 500 */
	ck_assert_double_eq_tol(pr.spread, 400, TOL);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_never_exceeds_the_estimate)
{
	/* under-estimated history: R 150 against RE 100 (ratio 1.5) */
	double runs[] = { 150, 150, 150 };
	libra_predictor_t *p = _with(LIBRA_PREDICT_RATIO, 1, runs, 3, 100);
	libra_prediction_t pr;

	libra_predict(p, 7, 70, 100, 100, 0.95, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 100, TOL);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_soft_cap_lets_history_exceed_the_estimate)
{
	/* the user's jobs ran twice what they declared (ratio 2) */
	double runs[] = { 200, 200, 200 };
	libra_predictor_t *p = _with(LIBRA_PREDICT_RATIO, 1, runs, 3, 100);
	libra_prediction_t pr;

	libra_predict(p, 7, 70, 100, INFINITY, 0.95, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 200, TOL);
	/* a cap between: the cap; the quantile before it is kept */
	libra_predict(p, 7, 70, 100, 150, 0.95, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 150, TOL);
	ck_assert_double_eq_tol(pr.quantile, 200, TOL);
	/* a cap below RE counts as RE */
	libra_predict(p, 7, 70, 100, 50, 0.95, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 100, TOL);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_conditions_on_work_done)
{
	double runs[] = { 100, 200, 300, 400, 500, 600, 700, 800, 900 };
	libra_predictor_t *p = _with(LIBRA_PREDICT_RUNTIME, 2, runs, 9, 1000);
	libra_prediction_t pr;

	/* done 450: candidates 500..900 (n 5), q 0.5: k = 3 -> 700 */
	libra_predict(p, 7, 70, 1000, 1000, 0.5, 450, &pr);
	ck_assert_double_eq_tol(pr.runtime, 700, TOL);
	/* done past every candidate: the declared estimate, the hard cap */
	libra_predict(p, 7, 70, 1000, 1000, 0.5, 950, &pr);
	ck_assert_double_eq_tol(pr.runtime, 1000, TOL);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_falls_back_to_the_group)
{
	double runs[] = { 100, 100, 100 };
	libra_predictor_t *p = _with(LIBRA_PREDICT_RUNTIME, 2, runs, 3, 1000);
	libra_prediction_t pr;

	/* user 8 has no history; user 7's group 70 has */
	libra_predict(p, 8, 70, 1000, 1000, 0.95, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 100, TOL);
	ck_assert_int_eq(pr.source, LIBRA_PREDICT_FROM_GROUP);
	/* neither the user nor the group known */
	libra_predict(p, 8, 80, 1000, 1000, 0.95, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 1000, TOL);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_prefers_the_users_jobs_of_the_same_estimate)
{
	libra_predictor_t *p = libra_predictor_create(LIBRA_PREDICT_RUNTIME,
						      2);
	libra_prediction_t pr;

	/* two jobs declaring 600 s ran 500 s; two declaring 3600 s, 60 s */
	libra_predictor_record(p, 7, 70, 500, 600);
	libra_predictor_record(p, 7, 70, 500, 600);
	libra_predictor_record(p, 7, 70, 60, 3600);
	libra_predictor_record(p, 7, 70, 60, 3600);
	libra_predict(p, 7, 70, 3600, 3600, 0.95, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 60, TOL);
	ck_assert_int_eq(pr.source, LIBRA_PREDICT_FROM_CLASS);
	/* a new estimate: the user's four jobs, largest 500 */
	libra_predict(p, 7, 70, 1800, 1800, 0.95, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 500, TOL);
	ck_assert_int_eq(pr.source, LIBRA_PREDICT_FROM_USER);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_keeps_the_last_depth_jobs)
{
	libra_predictor_t *p = libra_predictor_create(LIBRA_PREDICT_RUNTIME,
						      1);
	libra_prediction_t pr;

	/* one long job, then DEPTH short ones push it out */
	libra_predictor_record(p, 7, -1, 5000, 10000);
	for (int k = 0; k < LIBRA_PREDICT_DEPTH; k++)
		libra_predictor_record(p, 7, -1, 10, 10000);
	ck_assert_int_eq(libra_predictor_user_samples(p, 7),
			 LIBRA_PREDICT_DEPTH);
	libra_predict(p, 7, -1, 10000, 10000, 1.0, 0, &pr);
	ck_assert_double_eq_tol(pr.runtime, 10, TOL);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_refuses_bad_records)
{
	libra_predictor_t *p = libra_predictor_create(LIBRA_PREDICT_RATIO, 1);

	ck_assert_int_eq(libra_predictor_record(p, 7, 70, 0, 100), -1);
	ck_assert_int_eq(libra_predictor_record(p, 7, 70, 10, -1), -1);
	ck_assert_int_eq(libra_predictor_record(p, 7, 70, NAN, 100), -1);
	ck_assert_int_eq(libra_predictor_record(p, 7, 70, 10, INFINITY),
			 -1);
	ck_assert_int_eq(libra_predictor_user_samples(p, 7), 0);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_create_refuses_bad_arguments)
{
	ck_assert_ptr_null(libra_predictor_create(LIBRA_PREDICT_RATIO, 0));
	ck_assert_ptr_null(libra_predictor_create(LIBRA_PREDICT_RATIO,
						  LIBRA_PREDICT_DEPTH + 1));
	ck_assert_ptr_null(libra_predictor_create(
		(libra_predict_method_t) 99, 1));
}
END_TEST

START_TEST(test_predict_many_users_grow_the_table)
{
	libra_predictor_t *p = libra_predictor_create(LIBRA_PREDICT_RUNTIME,
						      1);
	libra_prediction_t pr;

	for (int u = 0; u < 5000; u++)
		ck_assert_int_eq(libra_predictor_record(p, u, u % 7, u + 1,
							 1e6), 0);
	for (int u = 0; u < 5000; u += 499) {
		libra_predict(p, u, -1, 1e6, 1e6, 0.5, 0, &pr);
		ck_assert_double_eq_tol(pr.runtime, u + 1, TOL);
	}
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_predict_method_names_round_trip)
{
	libra_predict_method_t m;

	for (int k = LIBRA_PREDICT_NONE; k <= LIBRA_PREDICT_RUNTIME; k++) {
		ck_assert(libra_predict_method_from_name(
			libra_predict_method_name(k), &m));
		ck_assert_int_eq(m, k);
	}
	ck_assert(!libra_predict_method_from_name("median", &m));
	ck_assert(!libra_predict_method_from_name(NULL, &m));
}
END_TEST

START_TEST(test_history_line_round_trips_into_the_predictor)
{
	libra_predictor_t *p = libra_predictor_create(LIBRA_PREDICT_RATIO, 1);
	char line[128];
	libra_prediction_t out;

	ck_assert_int_gt(libra_predict_format_line(line, sizeof(line), 1000,
						   100, 10.5, 40, 1795000000),
			 0);
	ck_assert_str_eq(line, "1000 100 10.500000 40.000000 1795000000.000000\n");
	ck_assert_int_eq(libra_predictor_record_line(p, line), 0);
	ck_assert_int_eq(libra_predictor_user_samples(p, 1000), 1);
	libra_predict(p, 1000, 100, 40, 40, 0.98, 0, &out);
	ck_assert_double_eq_tol(out.runtime, 10.5, 1e-9);
	libra_predictor_destroy(p);
}
END_TEST

START_TEST(test_history_lines_that_do_not_read_are_skipped)
{
	libra_predictor_t *p = libra_predictor_create(LIBRA_PREDICT_RATIO, 1);
	char small[8];

	ck_assert_int_eq(libra_predictor_record_line(p, "1000 100 10.5 40"), -1);
	ck_assert_int_eq(libra_predictor_record_line(p, "1000 100 10.5 40 1 x"),
			 -1);
	ck_assert_int_eq(libra_predictor_record_line(p, "a b c d e\n"), -1);
	ck_assert_int_eq(libra_predictor_record_line(p, "1 2 -1 40 5\n"), -1);
	ck_assert_int_eq(libra_predictor_record_line(p, ""), -1);
	ck_assert_int_eq(libra_predictor_user_samples(p, 1000), 0);
	ck_assert_int_eq(libra_predict_format_line(small, sizeof(small), 1, 2,
						   3, 4, 5), -1);
	ck_assert_int_eq(libra_predict_format_line(small, sizeof(small), 1, 2,
						   NAN, 4, 5), -1);
	/* what the reader skips is not written: a run of 0 s (a job that
	 * ended in the second it started, a flood of them) */
	{
		char line[160];

		ck_assert_int_eq(libra_predict_format_line(line, sizeof(line),
							   1, 2, 0, 4, 5), -1);
		ck_assert_int_eq(libra_predict_format_line(line, sizeof(line),
							   1, 2, 3, 0, 5), -1);
		ck_assert_int_gt(libra_predict_format_line(line, sizeof(line),
							   1, 2, 3, 4, 5), 0);
		ck_assert_int_eq(libra_predictor_record_line(p, line), 0);
	}
	ck_assert_int_eq(libra_predictor_method(p), LIBRA_PREDICT_RATIO);
	ck_assert_int_eq(libra_predictor_min_samples(p), 1);
	libra_predictor_destroy(p);
}
END_TEST
/* decision 34: the re-planning the simulator and sched/libra share */
START_TEST(test_replan_grows_paces_and_stops_at_the_cap)
{
	libra_predictor_t *p = libra_predictor_create(LIBRA_PREDICT_RUNTIME,
						      1);
	libra_prediction_t pr;
	libra_replan_t r = {
		.user = 7, .group = -1, .estimate = 100, .cap = 100,
		.quantile = 1.0, .hard = true, .plan = 10, .done = 10,
		.deadline = 1000, .pace = 0.8,
	};
	double end = 0;

	/* the user's jobs ran 10, 40 and 60: past 10 done, at quantile
	 * 1 the longest of those left */
	libra_predictor_record(p, 7, -1, 10, 100);
	libra_predictor_record(p, 7, -1, 40, 100);
	libra_predictor_record(p, 7, -1, 60, 100);
	ck_assert(libra_replan(p, &r, 500, &pr, &end));
	ck_assert_double_eq_tol(pr.runtime, 60, TOL);
	/* paced to 0.8 of the time left */
	ck_assert_double_eq_tol(end, 500 + 0.8 * 500, TOL);
	/* past the deadline: the deadline */
	ck_assert(libra_replan(p, &r, 1200, &pr, &end));
	ck_assert_double_eq_tol(end, 1000, TOL);
	/* at its declared runtime, hard: no growth (share_min) */
	r.plan = 100;
	r.done = 100;
	ck_assert(!libra_replan(p, &r, 500, &pr, &end));
	/* soft: half as far again, a minute at least */
	r.hard = false;
	ck_assert(libra_replan(p, &r, 500, &pr, &end));
	ck_assert_double_eq_tol(pr.runtime, 100 * 1.5 + 60, TOL);
	/* no predictor: the declared estimate, so a plan below it grows */
	r.hard = true;
	r.plan = 10;
	r.done = 10;
	ck_assert(libra_replan(NULL, &r, 500, &pr, &end));
	ck_assert_double_eq_tol(pr.runtime, 100, TOL);
	libra_predictor_destroy(p);
}
END_TEST


static Suite *_suite(void)
{
	Suite *s = suite_create("predict");
	TCase *tc = tcase_create("methods");

	T(tc, test_predict_no_history_is_the_declared_estimate);
	T(tc, test_history_line_round_trips_into_the_predictor);
	T(tc, test_history_lines_that_do_not_read_are_skipped);
	T(tc, test_predict_none_method_is_the_declared_estimate);
	T(tc, test_predict_last2_is_mean_of_last_two_runs);
	T(tc, test_predict_last2_is_capped_by_the_estimate);
	T(tc, test_predict_last2_needs_two_runs);
	T(tc, test_predict_last2_past_prediction_is_the_estimate);
	T(tc, test_predict_ratio_scales_the_quantile_by_the_estimate);
	T(tc, test_predict_quantile_is_conservative_order_statistic);
	T(tc, test_predict_never_exceeds_the_estimate);
	T(tc, test_predict_soft_cap_lets_history_exceed_the_estimate);
	T(tc, test_predict_conditions_on_work_done);
	T(tc, test_replan_grows_paces_and_stops_at_the_cap);
	suite_add_tcase(s, tc);

	tc = tcase_create("history");
	T(tc, test_predict_falls_back_to_the_group);
	T(tc, test_predict_prefers_the_users_jobs_of_the_same_estimate);
	T(tc, test_predict_keeps_the_last_depth_jobs);
	T(tc, test_predict_refuses_bad_records);
	T(tc, test_predict_create_refuses_bad_arguments);
	T(tc, test_predict_many_users_grow_the_table);
	T(tc, test_predict_method_names_round_trip);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
