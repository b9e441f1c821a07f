/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_admit_isqos.c - ISQoS around every policy (admit_isqos.c;
 *  doc/design.md decision 18): the tier's mark-up on the price and
 *  against the budget, the due date's share, its break-even and
 *  refusals, opt=time's earliest finish.
 *
 *  The fixture, and what holds unless a case says otherwise:
 *  admit_fixture.h.
\*****************************************************************************/

#include <string.h>

#include "admit.h"
#include "admit_fixture.h"
#include "ledger.h"
#include "params.h"
#include "testutil.h"

/* ---------------------------------------------------------------- */
/* ISQoS: mark-up and due date (doc/design.md decision 18)            */
/* ---------------------------------------------------------------- */

static libra_sla_t _sla_due(double re, double due, double td,
			    libra_tier_t tier)
{
	libra_sla_t sla = _sla(re, 0, td, NO_BUDGET);

	sla.set |= LIBRA_SLA_DUEDATE;
	sla.due_date = due;
	if (tier != LIBRA_TIER_NONE) {
		sla.set |= LIBRA_SLA_TIER;
		sla.tier = tier;
	}
	return sla;
}

/* libra_min_profit_rate (decision 51): the mark-up's profit per hour to
 * the target below the floor is declined; 0 is off. */
START_TEST(test_min_profit_rate_declines_below_the_floor)
{
	/* R 100.25, S 120.3 (20%): 20.05 over 400 s, 180.45 per hour */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);

	sla.set |= LIBRA_SLA_TIER;
	sla.tier = LIBRA_TIER_STANDARD;
	p.min_profit_rate = 180.0;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 120.3, TOL);
	p.min_profit_rate = 181.0;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_PROFIT);
	ck_assert_int_eq(q.nplace, 0);
	ck_assert_str_eq(libra_verdict_name(q.verdict), "profit");
	/* no mark-up, no profit: any floor declines */
	sla.tier = LIBRA_TIER_NONE;
	sla.set &= ~LIBRA_SLA_TIER;
	p.min_profit_rate = 1e-6;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_PROFIT);
	p.min_profit_rate = 0.0;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

/* The going rate's counter-offer (decision 51): the lowest tier above the
 * job's own whose mark-up earns the floor; none when no tier does. */
START_TEST(test_tier_offer_names_the_lowest_tier_that_earns_the_floor)
{
	/* R 100.25 over 400 s: value (10%) earns 90.2 per hour, standard
	 * (20%) 180.45, premium (40%) 360.9 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1 };

	p.min_profit_rate = 100.0;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_PROFIT);
	ck_assert_int_eq(libra_tier_offer(l, &p, &sla, &req, 0, &q),
			 LIBRA_TIER_STANDARD);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 120.3, TOL);
	/* from the standard tier itself: premium is the next */
	sla.set |= LIBRA_SLA_TIER;
	sla.tier = LIBRA_TIER_STANDARD;
	p.min_profit_rate = 200.0;
	ck_assert_int_eq(libra_tier_offer(l, &p, &sla, &req, 0, &q),
			 LIBRA_TIER_PREMIUM);
	/* a floor no tier earns: none, the premium tier's refusal */
	p.min_profit_rate = 400.0;
	ck_assert_int_eq(libra_tier_offer(l, &p, &sla, &req, 0, &q),
			 LIBRA_TIER_NONE);
	ck_assert_verdict(LIBRA_REJECT_PROFIT);
	libra_ledger_destroy(l);
}
END_TEST

/* opt=time (design.md decision 33): the earliest finish capacity and
 * budget allow, priced there; opt=cost the deadline-paced share. */
START_TEST(test_opt_time_aims_at_the_earliest_finish)
{
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(100, 0, 1000, NO_BUDGET);
	double cost_price, time_price;

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.target, 1000, TOL);
	cost_price = q.price;
	/* an idle CPU: (nearly) the whole of it, done about 100 */
	sla.set |= LIBRA_SLA_OPT;
	sla.opt = LIBRA_OPT_TIME;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_msg(q.target >= 100 - TOL && q.target <= 109,
		      "target %g", q.target);	/* 1% of the window: 9 s */
	ck_assert_double_eq_tol(q.share, 100 / q.target, TOL);
	time_price = q.price;
	ck_assert_msg(time_price > cost_price, "opt=time %g, opt=cost %g",
		      time_price, cost_price);
	/* half the CPU committed until 1000: about 200 */
	_commit(l, 1, 500, 1000, 0, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_msg(q.target >= 200 - TOL && q.target <= 218,
		      "target %g", q.target);
	/* a budget below the earliest finish's price: a later one */
	sla.set |= LIBRA_SLA_BUDGET;
	sla.budget = 0.5 * (time_price + cost_price);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert(q.target > 218 && q.price <= sla.budget + TOL);
	/* no finish by the deadline: refused as opt=cost is */
	sla = _sla(600, 0, 1000, NO_BUDGET);
	sla.opt = LIBRA_OPT_TIME;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_markup_of_the_tier_scales_the_price)
{
	/* R = 100 + 100/400 = 100.25; standard tier 20%: S = 120.3 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_double_eq_tol(q.price, 100.25, TOL);
	ck_assert_double_eq_tol(q.markup, 0.0, TOL);
	sla.set |= LIBRA_SLA_TIER;
	sla.tier = LIBRA_TIER_STANDARD;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.markup, 0.2, TOL);
	ck_assert_double_eq_tol(q.price, 120.3, TOL);
	ck_assert_double_eq_tol(q.charge_target, 120.3, TOL);
	ck_assert_double_eq_tol(q.target, 400, TOL);
	/* libra_markup for jobs without a tier */
	p.markup = 0.5;
	sla.set &= ~LIBRA_SLA_TIER;
	sla.tier = LIBRA_TIER_NONE;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_double_eq_tol(q.price, 150.375, TOL);
	/* LibraSLA's price is the bid: no mark-up */
	ck_assert_double_eq_tol(libra_params_markup(&p, LIBRA_TIER_PREMIUM),
				0.4, TOL);
	p.policy = LIBRA_POLICY_SLA;
	ck_assert_double_eq_tol(libra_params_markup(&p, LIBRA_TIER_PREMIUM),
				0.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_markup_counts_against_the_budget)
{
	/* R = 100.25 fits a budget of 110, S = 120.3 does not */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, 110);

	sla.set |= LIBRA_SLA_TIER;
	sla.tier = LIBRA_TIER_STANDARD;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_BUDGET);
	ck_assert_double_eq_tol(q.least_price, 120.3, TOL);
	sla.budget = 120.3;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_due_date_share_when_it_fits)
{
	/* due 200: share 100/200 = 0.5, priced at D = 200: 100.5 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla_due(100, 200, 400, LIBRA_TIER_NONE);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.share, 0.5, TOL);
	ck_assert_double_eq_tol(q.target, 200, TOL);
	ck_assert_double_eq_tol(q.price, 100.5, TOL);
	ck_assert_double_eq_tol(q.charge_target, 100.5, TOL);
	libra_sla_accept(&sla, &q);
	ck_assert(sla.set & LIBRA_SLA_TARGET);
	ck_assert_double_eq_tol(libra_sla_target(&sla), 200, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_due_date_missed_before_break_even_is_admitted_later)
{
	/*
	 * A job holds 0.6 of the CPU: due 200 needs 0.5 (refused), the
	 * deadline 0.25.  Earliest target: 100 / t <= 0.4, t = 250.
	 * Premium (40%): break-even (S - R) / S = 0.4/1.4 of the window
	 * [200, 400], at 257.1: admitted at 250..252 (1% steps of 200 s).
	 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla_due(100, 200, 400, LIBRA_TIER_PREMIUM);

	_commit(l, 1, 240, 400, 0, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert(q.target >= 250 - TOL && q.target <= 252 + TOL);
	ck_assert_double_eq_tol(q.share, 100 / q.target, TOL);
	/* charge at target: S (1 - (t - 200) / 200), above R = S / 1.4 */
	ck_assert_double_eq_tol(q.charge_target,
				q.price * (1 - (q.target - 200) / 200), TOL);
	ck_assert(q.charge_target >= q.price / 1.4);
	libra_sla_accept(&sla, &q);
	ck_assert_double_eq_tol(libra_sla_target(&sla), q.target, TOL);
	/* the ledger aims the committed share at the target */
	ck_assert_int_eq(libra_ledger_commit(l, 2, &sla, q.place, q.nplace, 0),
			 0);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0),
				0.6 + 100 / q.target, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_due_date_missed_past_break_even_is_refused)
{
	/* as above, value tier (10%): break-even at 218.2 < 250 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla_due(100, 200, 400, LIBRA_TIER_VALUE);

	_commit(l, 1, 240, 400, 0, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_DUEDATE);
	ck_assert_int_eq(q.nplace, 0);
	ck_assert(q.target >= 250 - TOL && q.target <= 252 + TOL);
	ck_assert(q.charge_target < q.price / 1.1);
	ck_assert_str_eq(libra_verdict_name(q.verdict), "duedate");
	/* no tier, no mark-up: break-even is the due date itself */
	sla.set &= ~LIBRA_SLA_TIER;
	sla.tier = LIBRA_TIER_NONE;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_DUEDATE);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_due_date_job_the_deadline_cannot_take_is_a_deadline_refusal)
{
	/* 0.9 held: even the deadline's 0.25 does not fit; the offer moves
	 * the due date with the deadline */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla_due(100, 200, 400, LIBRA_TIER_PREMIUM);
	libra_request_t req = { .cpus = 1 };
	libra_offer_t o;

	_commit(l, 1, 360, 400, 0, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	libra_counter_offer(l, &p, &sla, &req, 0, 86400, &o);
	ck_assert(o.has_deadline);
	ck_assert(o.deadline > 400);
	ck_assert_double_eq_tol(o.due_date, 200 + (o.deadline - 400), TOL);
	libra_ledger_destroy(l);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("admit_isqos");
	TCase *tc = tcase_create("isqos");

	T(tc, test_markup_of_the_tier_scales_the_price);
	T(tc, test_markup_counts_against_the_budget);
	T(tc, test_min_profit_rate_declines_below_the_floor);
	T(tc, test_tier_offer_names_the_lowest_tier_that_earns_the_floor);
	T(tc, test_opt_time_aims_at_the_earliest_finish);
	T(tc, test_due_date_share_when_it_fits);
	T(tc, test_due_date_missed_before_break_even_is_admitted_later);
	T(tc, test_due_date_missed_past_break_even_is_refused);
	T(tc, test_due_date_job_the_deadline_cannot_take_is_a_deadline_refusal);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
