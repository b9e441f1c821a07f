/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_isqos.c - the ISQoS provider and broker (isqos.h; doc/design.md
 *  decision 51): the action-count rate, an offer's measures, the ranking,
 *  the filters and the going rate.
 *
 *  The SLA of most cases: submitted at 0, due date 1200, deadline 1800
 *  (the z-curve falls to 0 there), budget 150; the offer: R 100, S 120
 *  (20% mark-up), made at 0.
\*****************************************************************************/

#include <math.h>
#include <string.h>

#include "isqos.h"
#include "settle.h"
#include "testutil.h"

static libra_sla_t _sla(void)
{
	libra_sla_t sla;

	memset(&sla, 0, sizeof(sla));
	sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE | LIBRA_SLA_BUDGET |
		  LIBRA_SLA_DUEDATE;
	sla.runtime = 600;
	sla.deadline = 1800;
	sla.due_date = 1200;
	sla.budget = 150;
	return sla;
}

static libra_isqos_offer_t _offer(int provider, double price, double c)
{
	libra_sla_t sla = _sla();
	libra_isqos_offer_t o = { .provider = provider, .now = 0,
				  .cost = price / 1.2, .price = price,
				  .completion = c };

	libra_offer_measure(&sla, &o);
	return o;
}

START_TEST(test_rate_counts_actions_per_cpu)
{
	ck_assert_double_eq_tol(libra_isqos_rate(2.0, 0, 8, 1.0), 2.0, TOL);
	/* a schedule one machine deep doubles it; the slope scales */
	ck_assert_double_eq_tol(libra_isqos_rate(2.0, 8, 8, 1.0), 4.0, TOL);
	ck_assert_double_eq_tol(libra_isqos_rate(2.0, 4, 8, 0.5), 2.5, TOL);
	ck_assert_double_eq_tol(libra_isqos_rate(2.0, 4, 0, 1.0), 2.0, TOL);
}
END_TEST

START_TEST(test_breakeven_is_a_sixth_into_the_window_at_20_percent)
{
	/* the paper's 16.67%: (S - R) / S = 0.2 R / 1.2 R of 600 s */
	libra_sla_t sla = _sla();

	ck_assert_double_eq_tol(libra_isqos_breakeven(&sla, 120, 100),
				1300, 1e-2);
	/* no due window: the deadline */
	sla.set &= ~LIBRA_SLA_DUEDATE;
	ck_assert_double_eq_tol(libra_isqos_breakeven(&sla, 120, 100),
				1800, TOL);
}
END_TEST

START_TEST(test_measures_of_an_offer_on_time)
{
	libra_isqos_offer_t o = _offer(0, 120, 900);

	ck_assert_double_eq_tol(o.charge, 120, TOL);
	ck_assert_double_eq_tol(o.profit, 20, TOL);
	/* 20 over a quarter hour */
	ck_assert_double_eq_tol(o.profit_rate, 80, TOL);
	ck_assert_double_eq_tol(o.budget_slack, 30, TOL);
	ck_assert_double_eq_tol(o.resilience, 50, TOL);
	ck_assert_double_eq_tol(o.due_slack, 300, TOL);
	ck_assert_double_eq_tol(o.deadline_slack, 900, TOL);
	ck_assert_double_eq_tol(o.breakeven_slack, 400, 1e-2);
	ck_assert(o.on_time && !o.over_budget && !o.late);
}
END_TEST

START_TEST(test_measures_past_the_due_date_and_budget)
{
	/* 300 s into the 600 s window: the charge halves, a loss */
	libra_isqos_offer_t o = _offer(0, 120, 1500);

	ck_assert_double_eq_tol(o.charge, 60, TOL);
	ck_assert_double_eq_tol(o.profit, -40, TOL);
	ck_assert(!o.on_time && o.late && !o.over_budget);
	/* over the budget: paid the budget at most */
	o = _offer(0, 180, 900);
	ck_assert_double_eq_tol(o.charge, 150, TOL);
	ck_assert_double_eq_tol(o.profit, 0, TOL);
	ck_assert_double_eq_tol(o.budget_slack, -30, TOL);
	ck_assert(o.over_budget && !o.on_time);
	ck_assert_str_eq(libra_offer_refusal(&o), "budget");
}
END_TEST

START_TEST(test_rank_by_profit_then_earliest)
{
	libra_isqos_offer_t v[3];

	v[0] = _offer(0, 120, 900);	/* profit 20 */
	v[1] = _offer(1, 132, 600);	/* profit 22 */
	v[2] = _offer(2, 132, 300);	/* profit 22, earlier */
	libra_offers_rank(v, 3);
	ck_assert_int_eq(v[0].provider, 2);
	ck_assert_int_eq(v[1].provider, 1);
	ck_assert_int_eq(v[2].provider, 0);
}
END_TEST

START_TEST(test_going_rate_is_the_mean_of_the_last_n)
{
	libra_going_t g;

	libra_going_init(&g);
	ck_assert_double_eq_tol(libra_going_rate(&g), 0, TOL);
	libra_going_add(&g, 10, 2);
	libra_going_add(&g, 20, 2);
	ck_assert_double_eq_tol(libra_going_rate(&g), 15, TOL);
	libra_going_add(&g, 40, 2);	/* 10 falls out */
	ck_assert_double_eq_tol(libra_going_rate(&g), 30, TOL);
}
END_TEST

START_TEST(test_hybrid_takes_on_time_else_the_going_rate)
{
	libra_isqos_t f = { .filter = LIBRA_ISQOS_HYBRID, .history = 4,
			    .deviation = 0.1 };
	libra_going_t g;
	/* on time but slow: 20 over 1200 s, 60 per hour */
	libra_isqos_offer_t slow = _offer(0, 120, 1200);
	/* past the due date, before break-even: 20 - 4 over 1220 s */
	libra_isqos_offer_t late = _offer(1, 120, 1220);
	libra_isqos_offer_t lost = _offer(2, 120, 1500);

	libra_going_init(&g);
	libra_going_add(&g, 100, f.history);
	ck_assert(libra_offer_passes(&f, &g, &slow));
	ck_assert(!libra_offer_passes(&f, &g, &late));
	/* the going filter alone refuses the slow one too */
	f.filter = LIBRA_ISQOS_GOING;
	ck_assert(!libra_offer_passes(&f, &g, &slow));
	/* a cold market: any profitable offer */
	libra_going_init(&g);
	ck_assert(libra_offer_passes(&f, &g, &late));
	ck_assert(!libra_offer_passes(&f, &g, &lost));
	ck_assert_str_eq(libra_offer_refusal(&lost), "duedate");
	/* topmost profitable with a floor; topmost takes a loss */
	f.filter = LIBRA_ISQOS_PROFIT;
	f.min_rate = 61;
	ck_assert(!libra_offer_passes(&f, &g, &slow));
	f.filter = LIBRA_ISQOS_TOP;
	ck_assert(libra_offer_passes(&f, &g, &lost));
	/* nothing past the deadline */
	lost = _offer(2, 120, 1900);
	ck_assert(!libra_offer_passes(&f, &g, &lost));
	ck_assert_str_eq(libra_offer_refusal(&lost), "deadline");
}
END_TEST

START_TEST(test_select_is_the_first_passing)
{
	libra_isqos_t f = { .filter = LIBRA_ISQOS_HYBRID, .history = 4 };
	libra_going_t g;
	libra_isqos_offer_t v[2];

	libra_going_init(&g);
	v[0] = _offer(0, 180, 900);	/* over the budget */
	v[1] = _offer(1, 120, 900);
	ck_assert_int_eq(libra_offer_select(&f, &g, v, 2), 1);
	ck_assert_int_eq(libra_offer_select(&f, &g, v, 1), -1);
	/* ranked, the profitable one comes first */
	libra_offers_rank(v, 2);
	ck_assert_int_eq(v[0].provider, 1);
	ck_assert_int_eq(libra_offer_select(&f, &g, v, 2), 0);
}
END_TEST

START_TEST(test_filter_names)
{
	libra_isqos_filter_t f;

	ck_assert(libra_isqos_filter_from_name("going", &f));
	ck_assert_int_eq(f, LIBRA_ISQOS_GOING);
	ck_assert_str_eq(libra_isqos_filter_name(LIBRA_ISQOS_HYBRID),
			 "hybrid");
	ck_assert(!libra_isqos_filter_from_name("auction", &f));
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("isqos");
	TCase *tc = tcase_create("isqos");

	T(tc, test_rate_counts_actions_per_cpu);
	T(tc, test_breakeven_is_a_sixth_into_the_window_at_20_percent);
	T(tc, test_measures_of_an_offer_on_time);
	T(tc, test_measures_past_the_due_date_and_budget);
	T(tc, test_rank_by_profit_then_earliest);
	T(tc, test_going_rate_is_the_mean_of_the_last_n);
	T(tc, test_hybrid_takes_on_time_else_the_going_rate);
	T(tc, test_select_is_the_first_passing);
	T(tc, test_filter_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
