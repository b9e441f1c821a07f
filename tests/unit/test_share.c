/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_share.c - the deadline share and its CPU weights (share.h).
 *
 *  share = (RE - cpu_done) / (TD - now), thesis Fig. 3.3, clamped to
 *  [share_min, 1] (doc/design.md, decision 4).
\*****************************************************************************/

#include <math.h>

#include "share.h"
#include "testutil.h"

#define SMIN 0.01

START_TEST(test_share_at_start_is_runtime_over_deadline)
{
	/* RE 100 s, TD 400 s, now 0: 100 / 400 = 0.25 */
	ck_assert_double_eq_tol(libra_share(100, 0, 0, 400, SMIN), 0.25, TOL);
}
END_TEST

START_TEST(test_share_is_remaining_work_over_remaining_time)
{
	/* RE 100, done 20 by now 100, TD 400: (100-20)/(400-100) = 0.2667 */
	ck_assert_double_eq_tol(libra_share(100, 20, 100, 400, SMIN),
				80.0 / 300.0, TOL);
}
END_TEST

START_TEST(test_share_rises_when_job_falls_behind)
{
	/* RE 100, done 10 by now 200, TD 400: 90 / 200 = 0.45 > 0.25 */
	ck_assert_double_eq_tol(libra_share(100, 10, 200, 400, SMIN), 0.45,
				TOL);
}
END_TEST

START_TEST(test_share_past_estimate_is_share_min)
{
	/* done == RE: remaining work 0 -> share_min */
	ck_assert_double_eq_tol(libra_share(100, 100, 50, 400, SMIN), SMIN,
				TOL);
	/* done > RE: remaining work -50 -> share_min, never negative */
	ck_assert_double_eq_tol(libra_share(100, 150, 50, 400, SMIN), SMIN,
				TOL);
}
END_TEST

START_TEST(test_share_past_deadline_is_share_min)
{
	/* now == TD and now > TD: no time left -> share_min */
	ck_assert_double_eq_tol(libra_share(100, 10, 400, 400, SMIN), SMIN,
				TOL);
	ck_assert_double_eq_tol(libra_share(100, 10, 500, 400, SMIN), SMIN,
				TOL);
}
END_TEST

START_TEST(test_share_below_share_min_is_share_min)
{
	/* RE 1, TD 1000: 0.001 < 0.01 -> 0.01 */
	ck_assert_double_eq_tol(libra_share(1, 0, 0, 1000, SMIN), SMIN, TOL);
}
END_TEST

START_TEST(test_share_above_one_is_one)
{
	/* RE 100, TD 50: 2.0 -> 1 (one CPU per CPU at most) */
	ck_assert_double_eq_tol(libra_share(100, 0, 0, 50, SMIN), 1.0, TOL);
}
END_TEST

START_TEST(test_share_exactly_one_stays_one)
{
	/* RE 50, TD 50: 1.0 */
	ck_assert_double_eq_tol(libra_share(50, 0, 0, 50, SMIN), 1.0, TOL);
}
END_TEST

START_TEST(test_share_min_is_a_parameter)
{
	/* share_min 0.05: past the estimate -> 0.05 */
	ck_assert_double_eq_tol(libra_share(100, 200, 0, 400, 0.05), 0.05,
				TOL);
}
END_TEST

START_TEST(test_share_remaining_matches_share)
{
	/* work 80 over 300 s -> 0.2667; clamps as libra_share */
	ck_assert_double_eq_tol(libra_share_remaining(80, 300, SMIN),
				80.0 / 300.0, TOL);
	ck_assert_double_eq_tol(libra_share_remaining(0, 300, SMIN), SMIN,
				TOL);
	ck_assert_double_eq_tol(libra_share_remaining(-5, 300, SMIN), SMIN,
				TOL);
	ck_assert_double_eq_tol(libra_share_remaining(80, 0, SMIN), SMIN,
				TOL);
	ck_assert_double_eq_tol(libra_share_remaining(80, -10, SMIN), SMIN,
				TOL);
	ck_assert_double_eq_tol(libra_share_remaining(80, 40, SMIN), 1.0,
				TOL);
	ck_assert_double_eq_tol(libra_share_remaining(1, 1000, SMIN), SMIN,
				TOL);
}
END_TEST

START_TEST(test_share_is_never_nan)
{
	/* 0/0 at the deadline with nothing left must still be share_min. */
	double s = libra_share(100, 100, 400, 400, SMIN);

	ck_assert(!isnan(s));
	ck_assert_double_eq_tol(s, SMIN, TOL);
}
END_TEST

START_TEST(test_share_paced_aims_one_lead_early)
{
	/* RE 100, done 20 by now 100, TD 400, lead 2: 80 / (300 - 2) */
	ck_assert_double_eq_tol(libra_share_paced(100, 20, 100, 400, 2, SMIN),
				80.0 / 298.0, TOL);
	/* no lead (or a negative one) is libra_share() */
	ck_assert_double_eq_tol(libra_share_paced(100, 20, 100, 400, 0, SMIN),
				libra_share(100, 20, 100, 400, SMIN), TOL);
	ck_assert_double_eq_tol(libra_share_paced(100, 20, 100, 400, -5, SMIN),
				libra_share(100, 20, 100, 400, SMIN), TOL);
}
END_TEST

START_TEST(test_share_paced_last_interval_is_one)
{
	/* 1.5 s before TD with lead 2 and work left: a whole CPU */
	ck_assert_double_eq_tol(libra_share_paced(100, 99.9, 398.5, 400, 2,
						  SMIN), 1.0, TOL);
	/* exactly one lead before TD: still a whole CPU, never 0/0 */
	ck_assert_double_eq_tol(libra_share_paced(100, 99.9, 398, 400, 2,
						  SMIN), 1.0, TOL);
}
END_TEST

START_TEST(test_share_paced_keeps_the_clamps)
{
	/* past the estimate, past the deadline: share_min */
	ck_assert_double_eq_tol(libra_share_paced(100, 100, 399, 400, 2, SMIN),
				SMIN, TOL);
	ck_assert_double_eq_tol(libra_share_paced(100, 50, 400, 400, 2, SMIN),
				SMIN, TOL);
	ck_assert_double_eq_tol(libra_share_paced(100, 50, 401, 400, 2, SMIN),
				SMIN, TOL);
	/* tiny remaining work far from TD: share_min, not below */
	ck_assert_double_eq_tol(libra_share_paced(100, 99.99, 0, 400, 2, SMIN),
				SMIN, TOL);
	ck_assert(!isnan(libra_share_paced(NAN, 0, 0, 400, 2, SMIN)));
}
END_TEST

START_TEST(test_share_committed_caps_a_job_that_idled)
{
	/* 100 s of work committed at 0 to a target of 402, lead 2: 0.25 */
	double cap = libra_share_committed(100, 0.001, 402, 2, SMIN);

	ck_assert_double_eq_tol(cap, 100 / (402 - 2 - 0.001), TOL);
	/* run at its share, its paced share stays the committed one */
	ck_assert_double_eq_tol(libra_share_paced(100, 50, 200.0005, 402, 2,
						  SMIN), cap, 1e-6);
	/* idle until 300: Libra's formula asks 100 / 100 = 1, four times
	 * what was committed; the cap is what the weight claims */
	ck_assert_double_eq_tol(libra_share_paced(100, 0, 300, 402, 2, SMIN),
				1.0, TOL);
	ck_assert(cap < 0.26);
	/* no commit time: no cap */
	ck_assert_double_eq_tol(libra_share_committed(100, 0, 402, 2, SMIN),
				0.0, TOL);
	ck_assert_double_eq_tol(libra_share_committed(100, NAN, 402, 2, SMIN),
				0.0, TOL);
	/* committed where the window is shorter than the work: a whole CPU */
	ck_assert_double_eq_tol(libra_share_committed(100, 350, 402, 2, SMIN),
				1.0, TOL);
}
END_TEST

START_TEST(test_share_enforced_waits_for_the_begin)
{
	/* counted from a boot at 300: share_min before, paced from then on,
	 * with the work done early counted as done */
	ck_assert_double_eq_tol(libra_share_enforced(100, 0, 100,
						     300, 400, 400, 2,
						     SMIN), SMIN, TOL);
	ck_assert_double_eq_tol(libra_share_enforced(100, 40, 299.9,
						     300, 400, 400, 2,
						     SMIN), SMIN, TOL);
	ck_assert_double_eq_tol(libra_share_enforced(100, 40, 300,
						     300, 400, 400, 2,
						     SMIN),
				libra_share_paced(100, 40, 300, 400, 2, SMIN),
				TOL);
	ck_assert_double_eq_tol(libra_share_enforced(100, 40, 380,
						     300, 400, 400, 2,
						     SMIN), 1.0, TOL);
	ck_assert_double_eq_tol(libra_share_enforced(100, 90, 300,
						     300, 400, 400, 2,
						     SMIN), 10.0 / 98.0, TOL);
	/* a target before the deadline (a due date, opt=time): paced to
	 * it, and past it with work left to the deadline, not share_min */
	ck_assert_double_eq_tol(libra_share_enforced(100, 20, 100,
						     0, 200, 400, 2,
						     SMIN), 80.0 / 98.0, TOL);
	ck_assert_double_eq_tol(libra_share_enforced(100, 20, 250,
						     0, 200, 400, 2,
						     SMIN), 80.0 / 148.0, TOL);
	/* no begin (0): the paced share at once */
	ck_assert_double_eq_tol(libra_share_enforced(100, 20, 100,
						     0, 400, 400, 2,
						     SMIN),
				libra_share_paced(100, 20, 100, 400, 2, SMIN),
				TOL);
}
END_TEST

/* ---------------------------------------------------------------- */

START_TEST(test_weight_v2_full_share_is_10000)
{
	ck_assert_uint_eq(libra_weight_v2(1.0), 10000);
}
END_TEST

START_TEST(test_weight_v2_is_proportional)
{
	/* 0.5 * 10000 = 5000, 0.25 * 10000 = 2500 */
	ck_assert_uint_eq(libra_weight_v2(0.5), 5000);
	ck_assert_uint_eq(libra_weight_v2(0.25), 2500);
}
END_TEST

START_TEST(test_weight_v2_stays_in_range)
{
	/* cpu.weight is 1..10000 */
	ck_assert_uint_eq(libra_weight_v2(0.0), 1);
	ck_assert_uint_eq(libra_weight_v2(1e-9), 1);
	ck_assert_uint_eq(libra_weight_v2(-1.0), 1);
	ck_assert_uint_eq(libra_weight_v2(2.0), 10000);
	ck_assert_uint_eq(libra_weight_v2(1e300), 10000);
}
END_TEST

START_TEST(test_weight_v2_share_min_is_positive)
{
	/* 0.01 * 10000 = 100 */
	ck_assert_uint_eq(libra_weight_v2(LIBRA_SHARE_MIN_DEFAULT), 100);
}
END_TEST

START_TEST(test_weight_v1_full_share_is_10000)
{
	ck_assert_uint_eq(libra_weight_v1(1.0), 10000);
	ck_assert_uint_eq(libra_weight_v1(0.5), 5000);
}
END_TEST

START_TEST(test_weight_v1_stays_in_range)
{
	/* cpu.shares is 2..262144 */
	ck_assert_uint_eq(libra_weight_v1(0.0), 2);
	ck_assert_uint_eq(libra_weight_v1(-3.0), 2);
	ck_assert_uint_le(libra_weight_v1(1e300), 262144);
	ck_assert_uint_ge(libra_weight_v1(1e300), 10000);
}
END_TEST

START_TEST(test_weights_grow_with_share)
{
	unsigned prev1 = 0, prev2 = 0;

	for (double s = 0.01; s <= 1.0; s += 0.01) {
		unsigned w1 = libra_weight_v1(s), w2 = libra_weight_v2(s);

		ck_assert_uint_ge(w1, prev1);
		ck_assert_uint_ge(w2, prev2);
		prev1 = w1;
		prev2 = w2;
	}
}
END_TEST

START_TEST(test_weight_ratio_enforces_share_ratio)
{
	/* Shares 0.2 and 0.6 must get CPU 1:3 (cgroup v2 weights: 2048 vs 1024 gave
	 * 2.00:1). */
	double r = (double) libra_weight_v2(0.6) / libra_weight_v2(0.2);

	ck_assert_double_eq_tol(r, 3.0, 1e-3);
	r = (double) libra_weight_v1(0.6) / libra_weight_v1(0.2);
	ck_assert_double_eq_tol(r, 3.0, 1e-3);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("share");
	TCase *tc;

	tc = tcase_create("share");
	T(tc, test_share_at_start_is_runtime_over_deadline);
	T(tc, test_share_is_remaining_work_over_remaining_time);
	T(tc, test_share_rises_when_job_falls_behind);
	T(tc, test_share_past_estimate_is_share_min);
	T(tc, test_share_past_deadline_is_share_min);
	T(tc, test_share_below_share_min_is_share_min);
	T(tc, test_share_above_one_is_one);
	T(tc, test_share_exactly_one_stays_one);
	T(tc, test_share_min_is_a_parameter);
	T(tc, test_share_remaining_matches_share);
	T(tc, test_share_is_never_nan);
	T(tc, test_share_paced_aims_one_lead_early);
	T(tc, test_share_paced_last_interval_is_one);
	T(tc, test_share_paced_keeps_the_clamps);
	T(tc, test_share_enforced_waits_for_the_begin);
	T(tc, test_share_committed_caps_a_job_that_idled);
	suite_add_tcase(s, tc);

	tc = tcase_create("weight");
	T(tc, test_weight_v2_full_share_is_10000);
	T(tc, test_weight_v2_is_proportional);
	T(tc, test_weight_v2_stays_in_range);
	T(tc, test_weight_v2_share_min_is_positive);
	T(tc, test_weight_v1_full_share_is_10000);
	T(tc, test_weight_v1_stays_in_range);
	T(tc, test_weights_grow_with_share);
	T(tc, test_weight_ratio_enforces_share_ratio);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
