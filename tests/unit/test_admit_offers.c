/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_admit_offers.c - what a refused request is offered
 *  (admit_offers.c): counter-offers (the least budget at the requested
 *  deadline, the earliest later deadline within the budget), their floor
 *  and time limit, and the next free slot, over bookings too.  Memory's
 *  and GPUs' part in them: test_admit_held.c.
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
/* Counter-offers                                                     */
/* ---------------------------------------------------------------- */

/*
 * Idle 1-CPU node, PBase 1 per CPU-hour, alpha 1, beta 1, RE 3600:
 * C(D) = 1 + D / (D - 3600).  At D = 7200: 3.  With budget 2.5:
 * D / (D - 3600) <= 1.5  <=>  D >= 10800.
 */
START_TEST(test_counter_offer_budget_at_requested_deadline)
{
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(3600, 0, 7200, 2.5);
	libra_offer_t o;

	p.price_base = 1.0;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_BUDGET);
	ck_assert_double_eq_tol(q.least_price, 3.0, TOL);

	memset(&o, 0, sizeof(o));
	libra_counter_offer(l, &p, &sla, &(libra_request_t){ .cpus = 1 }, 0,
			    86400, &o);
	ck_assert(o.has_budget);
	ck_assert(o.budget >= 3.0 - TOL);
	ck_assert(o.budget <= 3.01);

	/* resubmitted with the offered budget: admitted */
	sla.budget = o.budget;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_counter_offer_budget_admits_a_parallel_job)
{
	/* 2 CPUs, budget 50 on the priced nodes: the cheapest nodes' sum
	 * (47.78) fits, no placement within 25 a CPU does; the budget offered
	 * is the one that admits it (2 x 26.67), and it does */
	libra_ledger_t *l = _priced_nodes();
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(10, 0, 100, 50);
	libra_request_t req = { .cpus = 2 };
	libra_offer_t o;

	libra_counter_offer(l, &p, &sla, &req, 0, 1000, &o);
	ck_assert(o.has_budget);
	ck_assert_double_eq_tol(o.budget, 2.0 * C1, TOL);
	sla.budget = o.budget;
	_admit(l, &p, &sla, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_counter_offer_later_deadline_within_budget)
{
	/* earliest D with C(D) <= 2.5 is 10800; resolution max(1% of 86400,
	 * 60) = 864 s */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(3600, 0, 7200, 2.5);
	libra_offer_t o;

	p.price_base = 1.0;
	memset(&o, 0, sizeof(o));
	libra_counter_offer(l, &p, &sla, &(libra_request_t){ .cpus = 1 }, 0,
			    86400, &o);
	ck_assert(o.has_deadline);
	ck_assert(o.deadline >= 10800.0 - TOL);
	ck_assert(o.deadline <= 10800.0 + 864.0 + 1.0);
	ck_assert(o.deadline_price <= 2.5 + TOL);
	/* C at the offered deadline: 1 + D/(D-3600) */
	ck_assert_double_eq_tol(o.deadline_price,
				1.0 + o.deadline / (o.deadline - 3600.0),
				1e-6);

	/* resubmitted with the offered deadline: admitted at that price */
	sla.deadline = o.deadline;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert(q.price <= 2.5 + TOL);
	ck_assert_double_eq_tol(q.price, o.deadline_price, 1e-6);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_counter_offer_no_deadline_below_least_possible_price)
{
	/* C(D) > alpha + beta = 2 for every D: budget 1.5 has no deadline */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(3600, 0, 7200, 1.5);
	libra_offer_t o;

	p.price_base = 1.0;
	memset(&o, 0, sizeof(o));
	libra_counter_offer(l, &p, &sla, &(libra_request_t){ .cpus = 1 }, 0,
			    86400, &o);
	ck_assert(!o.has_deadline);
	ck_assert(o.has_budget);
	ck_assert(o.budget >= 3.0 - TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_counter_offer_for_deadline_refusal)
{
	/* committed 0.9 until TD 1000; new RE 50: fits when 0.9 + 50/D <= 1
	 * i.e. D >= 500.  Budget is not the reason: no budget offer.
	 * Resolution max(1% of 1000, 60) = 60 s. */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(50, 0, 100, NO_BUDGET);
	libra_offer_t o;

	_commit(l, 1, 900, 1000, 0, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	memset(&o, 0, sizeof(o));
	libra_counter_offer(l, &p, &sla, &(libra_request_t){ .cpus = 1 }, 0,
			    1000, &o);
	ck_assert(!o.has_budget);
	ck_assert(o.has_deadline);
	ck_assert(o.deadline >= 500.0 - TOL);
	ck_assert(o.deadline <= 500.0 + 60.0 + 1.0);
	sla.deadline = o.deadline;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_counter_offer_never_earlier_than_requested)
{
	/* The request is admissible: any offered deadline is not before
	 * the requested one. */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(3600, 0, 7200, 2.5);
	libra_offer_t o;

	p.price_base = 1.0;
	libra_counter_offer(l, &p, &sla, &(libra_request_t){ .cpus = 1 }, 0,
			    86400, &o);
	ck_assert(!o.has_deadline || o.deadline >= sla.deadline);
	libra_ledger_destroy(l);
}
END_TEST

/* A counter-offer for 1 CPU at time 0 with a 1-day horizon; limit as
 * libra_counter_offer_within() takes it (0: none). */
static void _offer1(const libra_ledger_t *l, const libra_params_t *p,
		    const libra_sla_t *sla, double limit, libra_offer_t *o)
{
	libra_counter_offer_within(l, p, sla, &(libra_request_t){ .cpus = 1 },
				   0, 86400, limit, o);
}

START_TEST(test_counter_offer_floor_is_the_least_price)
{
	/* a budget below the least price at any deadline is answered
	 * without a search (and nothing is found), one just above it is
	 * met by a late deadline; idle 1-CPU node, PBase 1 per CPU-second:
	 * Libra and LibraRiskD charge RE (1 + 1/D), least at the horizon
	 * D = 86400: 100.00116 for RE 100; Libra+$ no less than
	 * (alpha + beta) PBase = 1.1 per CPU-second */
	static const struct {
		libra_policy_t policy;
		double td, below, above;
	} c[] = {
		{ LIBRA_POLICY_LIBRA, 200, 100.001, 100.002 },
		{ LIBRA_POLICY_RISKD, 200, 100.001, 100.002 },
		{ LIBRA_POLICY_LIBRA_PRICE, 101, 109.99, 111.0 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		libra_ledger_t *l = _nodes(1, 1);
		libra_params_t p = _params(c[i].policy);
		libra_sla_t sla = _sla(100, 0, c[i].td, c[i].below);
		libra_offer_t o;

		_offer1(l, &p, &sla, 0.0, &o);
		ck_assert(!o.has_deadline);
		ck_assert(!o.cut);
		sla.budget = c[i].above;
		_offer1(l, &p, &sla, 0.0, &o);
		ck_assert(o.has_deadline);
		ck_assert(o.deadline <= 86400);
		libra_ledger_destroy(l);
	}
}
END_TEST

START_TEST(test_counter_offer_within_stops_at_its_limit)
{
	/* found without a limit (the same as libra_counter_offer()), cut at
	 * a limit no admission fits in */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 200, 100.5);
	libra_offer_t o, o0;

	libra_counter_offer(l, &p, &sla, &(libra_request_t){ .cpus = 1 }, 0,
			    86400, &o0);
	ck_assert(o0.has_deadline);
	ck_assert(!o0.cut);
	_offer1(l, &p, &sla, 0.0, &o);
	ck_assert(!memcmp(&o, &o0, sizeof(o)));
	_offer1(l, &p, &sla, 1e-12, &o);
	ck_assert(o.cut);
	ck_assert(!o.has_deadline);
	libra_ledger_destroy(l);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Next free slots                                                    */
/* ---------------------------------------------------------------- */

START_TEST(test_next_slot_begins_when_a_share_falls)
{
	/* 1 CPU at time 1000: job 2 holds 0.9 until 1600; 0.5 for 400 s
	 * fits from 1600 (times are positive: 0 is "not booked") */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(200, 1000, 1400, NO_BUDGET);
	libra_request_t req = { .cpus = 1 };
	libra_slot_t slot;

	_commit(l, 2, 540, 1600, 0, 1, 1000);
	_admit(l, &p, &sla, 1, 0, 0, 1000);
	ck_assert_int_eq(q.verdict, LIBRA_REJECT_DEADLINE);
	ck_assert(libra_next_slot(l, &p, &sla, &req, 1000, 86400, &slot));
	ck_assert_double_eq_tol(slot.begin, 1600, TOL);
	ck_assert_double_eq_tol(slot.deadline, 2000, TOL);
	ck_assert(slot.price > 0.0);
	ck_assert(!slot.cut);
	/* not within 500 s */
	ck_assert(!libra_next_slot(l, &p, &sla, &req, 1000, 500, &slot));
	/* within a time limit: none, the same; one no try fits in: cut */
	ck_assert(libra_next_slot_within(l, &p, &sla, &req, 1000, 86400, 0.0,
					 &slot));
	ck_assert_double_eq_tol(slot.begin, 1600, TOL);
	ck_assert(!libra_next_slot_within(l, &p, &sla, &req, 1000, 86400,
					  1e-12, &slot));
	ck_assert(slot.cut);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_next_slot_steps_over_a_booking)
{
	/* as above, and a booking of 0.8 on [1600, 2000): the slot is at
	 * 2000, where the booking ends */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(200, 1000, 1400, NO_BUDGET);
	libra_sla_t booked = _sla(320, 1000, 2000, NO_BUDGET);
	libra_place_t pl = PLACE(0, 1);
	libra_request_t req = { .cpus = 1 };
	libra_slot_t slot;

	_commit(l, 2, 540, 1600, 0, 1, 1000);
	ck_assert_int_eq(libra_ledger_commit_booked(l, 3, &booked, &pl, 1,
						    1000, 1600), 0);
	ck_assert(libra_next_slot(l, &p, &sla, &req, 1000, 86400, &slot));
	ck_assert_double_eq_tol(slot.begin, 2000, TOL);
	ck_assert_double_eq_tol(slot.deadline, 2400, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_next_slot_tries_distinct_times_earliest_first)
{
	/* 1 CPU at 1000, full: ten jobs of 0.09 end at 1100 (the same
	 * second: one try for all ten), one of 0.1 at 1500.  From 1100 the
	 * ten leave their tails (0.1), so 0.1 + 0.1 + 0.5 fits there */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(200, 1000, 1400, NO_BUDGET);
	libra_request_t req = { .cpus = 1 };
	libra_slot_t slot;

	for (uint32_t j = 1; j <= 10; j++)
		_commit(l, j, 9, 1100, 0, 1, 1000);
	_commit(l, 11, 50, 1500, 0, 1, 1000);	/* 0.1 */
	/* at 1100: 10 tails (0.1) + 0.1 + 0.5 fits */
	ck_assert(libra_next_slot(l, &p, &sla, &req, 1000, 86400, &slot));
	ck_assert_double_eq_tol(slot.begin, 1100, TOL);
	libra_ledger_destroy(l);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("admit_offers");
	TCase *tc = tcase_create("offer");

	T(tc, test_counter_offer_budget_at_requested_deadline);
	T(tc, test_counter_offer_budget_admits_a_parallel_job);
	T(tc, test_counter_offer_later_deadline_within_budget);
	T(tc, test_counter_offer_no_deadline_below_least_possible_price);
	T(tc, test_counter_offer_for_deadline_refusal);
	T(tc, test_counter_offer_never_earlier_than_requested);
	T(tc, test_counter_offer_floor_is_the_least_price);
	T(tc, test_counter_offer_within_stops_at_its_limit);
	suite_add_tcase(s, tc);

	tc = tcase_create("slot");
	T(tc, test_next_slot_begins_when_a_share_falls);
	T(tc, test_next_slot_steps_over_a_booking);
	T(tc, test_next_slot_tries_distinct_times_earliest_first);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
