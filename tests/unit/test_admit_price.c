/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_admit_price.c - admission of the priced policies (admit_price.c):
 *  the prices and budgets of Libra, fixed and peak; Libra+$ (thesis Fig.
 *  3.2: RESFree best fit, the thesis and per-CPU charges within the
 *  budget), checked against the thesis' algorithm on random ledgers;
 *  Libra+$Auto's feedback to the nodes' betas; price damping.
 *
 *  The fixture, with Libra+$'s three priced nodes (C0, C1, C2), and what
 *  holds unless a case says otherwise: admit_fixture.h.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "admit.h"
#include "admit_fixture.h"
#include "admit_reference.h"
#include "ledger.h"
#include "params.h"
#include "price.h"
#include "share.h"
#include "testutil.h"

/* ---------------------------------------------------------------- */
/* Prices and budgets of the non-market policies                       */
/* ---------------------------------------------------------------- */

START_TEST(test_libra_budget_below_static_price_is_budget)
{
	/* price 100.25 > budget 100 -> budget; least price 100.25 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, 100);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_BUDGET);
	ck_assert_double_eq_tol(q.least_price, 100.25, TOL);
	sla.budget = 100.25;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_no_budget_accepts_any_price)
{
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(99, 0, 100, NO_BUDGET);

	/* RESFree 100 - 99 = 1: P = 1 + 1 * 100/1 = 101, C = 99 * 101 = 9999,
	 * accepted without a budget */
	p.beta = 1.0;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 9999.0, 1e-6);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_fixed_price_is_runtime_times_base_per_cpu)
{
	/* fixed, price_base 2 per CPU-hour, RE 3600: 1 CPU -> 2.0;
	 * 2 CPUs, charged per CPU (decision 3) -> 4.0 */
	libra_ledger_t *l = _nodes(1, 2);
	libra_params_t p = _params(LIBRA_POLICY_FIXED);
	libra_sla_t sla = _sla(3600, 0, 7200, NO_BUDGET);

	p.price_base = 2.0;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 2.0, TOL);
	_admit(l, &p, &sla, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 4.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_peak_price_charges_each_hour_of_the_window)
{
	/* peak 12-24 at 3, else 1 per CPU-hour; RE 3600 s by a deadline
	 * 4 h after 10:00 (share 1/4 over [10:00, 14:00)): 2 h off-peak, 2 h
	 * peak, mean 2 per CPU-hour, so 2.0 for 1 CPU, not the 1.0 of the
	 * admission hour's rate (doc/design.md decision 3) */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_PEAK);
	libra_sla_t sla = _sla(3600, 10 * 3600, 14 * 3600, NO_BUDGET);

	p.price_base = 1.0;
	p.peak_price = 3.0;
	p.peak_start = 12;
	p.peak_end = 0;
	_admit(l, &p, &sla, 1, 0, 0, 10 * 3600);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 2.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Libra+$ (thesis Fig. 3.2)                                          */
/* ---------------------------------------------------------------- */

/* The nodes, their prices C0, C1, C2 and _market(): admit_fixture.h. */

START_TEST(test_market_without_budget_takes_best_fit)
{
	/* thesis charge: node 0, C = 43.333, rate 4.3333 */
	libra_ledger_t *l = _priced_nodes();
	libra_params_t p = _market(LIBRA_CHARGE_THESIS);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 0);
	ck_assert_double_eq_tol(q.price, C0, TOL);
	ck_assert_double_eq_tol(q.rate_max, C0 / 10.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_thesis_charge_skips_node_over_budget)
{
	/* budget 30: node 0 (43.33) skipped, node 1 (26.67) taken */
	libra_ledger_t *l = _priced_nodes();
	libra_params_t p = _market(LIBRA_CHARGE_THESIS);
	libra_sla_t sla = _sla(10, 0, 100, 30);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 1);
	ck_assert_int_eq(q.place[0].node, 1);
	ck_assert_double_eq_tol(q.price, C1, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_thesis_charge_is_cpus_times_runtime_times_highest_rate)
{
	/* 2 CPUs, budget 60 (30 a CPU): node 0 (43.33) is over its part, so
	 * nodes 1 and 2; every CPU pays the dearest rate: C = 2 * 26.667 */
	libra_ledger_t *l = _priced_nodes();
	libra_params_t p = _market(LIBRA_CHARGE_THESIS);
	libra_sla_t sla = _sla(10, 0, 100, 60);

	_admit(l, &p, &sla, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(_on(0), 0);
	ck_assert_int_eq(_on(1), 1);
	ck_assert_int_eq(_on(2), 1);
	ck_assert_double_eq_tol(q.price, 2.0 * C1, TOL);
	ck_assert_double_eq_tol(q.rate_max, C1 / 10.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_thesis_charge_too_few_nodes_in_budget_is_budget)
{
	/* 3 CPUs, budget 90 (30 a CPU): only nodes 1 and 2 are within it;
	 * the least budget is 3 CPUs at node 0's rate */
	libra_ledger_t *l = _priced_nodes();
	libra_params_t p = _market(LIBRA_CHARGE_THESIS);
	libra_sla_t sla = _sla(10, 0, 100, 90);

	_admit(l, &p, &sla, 3, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_BUDGET);
	ck_assert_double_eq_tol(q.least_price, 3.0 * C0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_cpu_charge_without_budget_sums_over_cpus)
{
	/* 2 CPUs, best fit nodes 0 and 1: 43.333 + 26.667 = 70 */
	libra_ledger_t *l = _priced_nodes();
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(_on(0), 1);
	ck_assert_int_eq(_on(1), 1);
	ck_assert_double_eq_tol(q.price, C0 + C1, TOL);
	ck_assert_double_eq_tol(q.rate_max, C0 / 10.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_cpu_charge_takes_best_fit_within_each_cpus_budget)
{
	/* 1 CPU, budget 30: best fit node 0 costs 43.33 > 30; node 1 (26.67)
	 * is the best fit among the affordable nodes, not the cheapest (2) */
	libra_ledger_t *l = _priced_nodes();
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(10, 0, 100, 30);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 1);
	ck_assert_double_eq_tol(q.price, C1, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_cpu_charge_best_fit_over_a_cpus_budget_is_not_taken)
{
	/* 2 CPUs, budget 72 (36 a CPU): best fit {0,1} sums to 70 <= 72 but
	 * node 0's CPU costs 43.33 > 36; best fit among the affordable nodes
	 * is {1,2}, charged 26.67 + 21.11 */
	libra_ledger_t *l = _priced_nodes();
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(10, 0, 100, 72);

	_admit(l, &p, &sla, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(_on(0), 0);
	ck_assert_int_eq(_on(1), 1);
	ck_assert_int_eq(_on(2), 1);
	ck_assert_double_eq_tol(q.price, C1 + C2, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_cpu_charge_sum_within_budget_is_not_enough)
{
	/* 2 CPUs, budget 50 (25 a CPU): the cheapest nodes {2,1} sum to
	 * 47.78 <= 50, but node 1's CPU costs 26.67 > 25; no placement keeps
	 * every CPU within its part: refused, and the least budget is 2 CPUs
	 * at node 1's rate */
	libra_ledger_t *l = _priced_nodes();
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(10, 0, 100, 50);

	_admit(l, &p, &sla, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_BUDGET);
	ck_assert_double_eq_tol(q.least_price, 2.0 * C1, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_cpu_charge_least_budget_is_admitted)
{
	/* the least budget a refusal names admits the job, charged the sum
	 * of its CPUs' own prices (at most that budget) */
	libra_ledger_t *l = _priced_nodes();
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(10, 0, 100, 30);

	_admit(l, &p, &sla, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_BUDGET);
	sla.budget = q.least_price;
	_admit(l, &p, &sla, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, C1 + C2, TOL);
	ck_assert(q.price <= sla.budget);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_both_charges_admit_the_same_placement)
{
	/* the rule of decision 3: per CPU and thesis differ in the charge
	 * only, for every budget and size here */
	static const double budgets[] = { 20, 30, 45, 50, 60, 72, 90, 140 };

	for (int cpus = 1; cpus <= 3; cpus++) {
		for (size_t b = 0; b < sizeof(budgets) / sizeof(*budgets);
		     b++) {
			libra_ledger_t *l = _priced_nodes();
			libra_params_t p = _market(LIBRA_CHARGE_CPU);
			libra_sla_t sla = _sla(10, 0, 100, budgets[b]);
			libra_quote_t cpu_q;

			_admit(l, &p, &sla, cpus, 0, 0, 0);
			cpu_q = q;
			p.charge = LIBRA_CHARGE_THESIS;
			_admit(l, &p, &sla, cpus, 0, 0, 0);
			ck_assert_int_eq(cpu_q.verdict, q.verdict);
			ck_assert_int_eq(cpu_q.nplace, q.nplace);
			for (int i = 0; i < q.nplace; i++) {
				ck_assert_int_eq(cpu_q.place[i].node,
						 q.place[i].node);
				ck_assert_int_eq(cpu_q.place[i].cpus,
						 q.place[i].cpus);
			}
			if (q.verdict == LIBRA_ACCEPT)
				ck_assert(cpu_q.price <= q.price + TOL);
			libra_ledger_destroy(l);
		}
	}
}
END_TEST

START_TEST(test_cpu_charge_on_multi_cpu_node)
{
	/* idle 2-CPU node, PBase 1 per CPU-hour, alpha 1, beta 1, job 2 CPUs
	 * RE 3600, TD 7200: RESMax 14400, RES_i 7200, PUtil 2 PBase,
	 * P = 3 PBase; cpu charge 2 * 3600 * 3/3600 = 6; on one node the
	 * thesis charge, every CPU at the highest rate, is the same 6. */
	libra_ledger_t *l = _nodes(1, 2);
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(3600, 0, 7200, NO_BUDGET);

	p.price_base = 1.0;
	_admit(l, &p, &sla, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 6.0, TOL);
	p.charge = LIBRA_CHARGE_THESIS;
	_admit(l, &p, &sla, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 6.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_market_idle_price_matches_closed_form)
{
	/* idle 1-CPU node, PBase 1 per CPU-hour, alpha 1, beta 0.1,
	 * RE 3600, D 7200: C = alpha + 2 beta = 1.2 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(3600, 0, 7200, NO_BUDGET);

	p.price_base = 1.0;
	p.beta = 0.1;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 1.2, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_market_deadline_comes_before_budget)
{
	/* node full (share 0.95) and budget tiny: the reason is deadline */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(10, 0, 100, 0.001);

	_commit(l, 1, 95, 100, 0, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_market_thesis_resfree_prices_full_estimates)
{
	/* thesis RESFree (full RE_k) on _priced_nodes, job RE 10, TD 1000:
	 * node 0: 1000 - 60 - 10 = 930, node 1: 960, node 2: 990; best fit
	 * takes node 0: C = 10 * (1 + 1000/930).  (The window mode would
	 * count only 0.6 * 100 = 60 there too, so the node is the same.) */
	libra_ledger_t *l = _priced_nodes();
	libra_params_t p = _market(LIBRA_CHARGE_THESIS);
	libra_sla_t sla = _sla(10, 0, 1000, NO_BUDGET);

	p.resfree = LIBRA_RESFREE_THESIS;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 0);
	ck_assert_double_eq_tol(q.price, 10.0 * (1.0 + 1000.0 / 930.0), TOL);
	libra_ledger_destroy(l);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Libra+$Auto                                                        */
/* ---------------------------------------------------------------- */

static libra_params_t _auto(void)
{
	libra_params_t p = _params(LIBRA_POLICY_AUTO);

	p.alpha = 1.0;
	p.beta = 0.5;
	p.beta_min = 0.1;
	p.beta_max = 4.0;
	p.price_base = 1.0;
	return p;
}

START_TEST(test_auto_unset_node_beta_prices_with_param_beta)
{
	/* no per-node beta yet (NaN): p->beta 0.5 -> idle C = 1 + 2 * 0.5 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _auto();
	libra_sla_t sla = _sla(3600, 0, 7200, NO_BUDGET);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 2.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_auto_prices_with_node_beta)
{
	/* node beta 0 -> C = alpha = 1; node beta 1.5 -> 1 + 3 = 4 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _auto();
	libra_sla_t sla = _sla(3600, 0, 7200, NO_BUDGET);

	libra_ledger_set_node_beta(l, 0, 0.0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_double_eq_tol(q.price, 1.0, TOL);
	libra_ledger_set_node_beta(l, 0, 1.5);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_double_eq_tol(q.price, 4.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_auto_feedback_raises_beta_after_met_budget)
{
	/* accepted on one of two nodes and committed (share 0.5 there):
	 * every beta rises or stays, the fuller node's more. */
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t p = _auto();
	libra_sla_t sla = _sla(1800, 0, 3600, 1000);
	int used, other;

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	used = q.place[0].node;
	other = 1 - used;
	ck_assert_int_eq(libra_ledger_commit(l, 1, &sla, q.place, q.nplace, 0),
			 0);
	libra_auto_feedback(l, &p, &q, 0);
	ck_assert(libra_ledger_node_beta(l, used) > 0.5 + TOL);
	ck_assert(libra_ledger_node_beta(l, other) >= 0.5 - TOL);
	ck_assert(libra_ledger_node_beta(l, used) >=
		  libra_ledger_node_beta(l, other));
	ck_assert(libra_ledger_node_beta(l, used) <= p.beta_max + TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_auto_feedback_beta_capped_at_beta_max)
{
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t p = _auto();
	libra_sla_t sla = _sla(1800, 0, 3600, 1e9);
	int used;

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	used = q.place[0].node;
	libra_ledger_commit(l, 1, &sla, q.place, q.nplace, 0);
	for (int i = 0; i < 30; i++)
		libra_auto_feedback(l, &p, &q, 0);
	ck_assert_double_eq_tol(libra_ledger_node_beta(l, used), p.beta_max,
				TOL);
	ck_assert(libra_ledger_node_beta(l, 1 - used) <= p.beta_max + TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_auto_feedback_lowers_beta_after_budget_refusal)
{
	/* one node half busy; a request refused for budget lowers every
	 * beta (or keeps it), never below beta_min, and repeated refusals
	 * bring the busy node down to beta_min. */
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t p = _auto();
	libra_sla_t sla = _sla(1800, 0, 3600, 0.001);
	double before[2];

	_commit(l, 1, 1800, 3600, 0, 1, 0);
	libra_ledger_set_node_beta(l, 0, 1.0);
	libra_ledger_set_node_beta(l, 1, 1.0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_BUDGET);
	for (int n = 0; n < 2; n++)
		before[n] = libra_ledger_node_beta(l, n);
	libra_auto_feedback(l, &p, &q, 0);
	for (int n = 0; n < 2; n++) {
		ck_assert(libra_ledger_node_beta(l, n) <= before[n] + TOL);
		ck_assert(libra_ledger_node_beta(l, n) >= p.beta_min - TOL);
	}
	ck_assert(libra_ledger_node_beta(l, 0) < before[0] - TOL);
	for (int i = 0; i < 50; i++)
		libra_auto_feedback(l, &p, &q, 0);
	ck_assert_double_eq_tol(libra_ledger_node_beta(l, 0), p.beta_min, TOL);
	ck_assert(libra_ledger_node_beta(l, 1) >= p.beta_min - TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_auto_feedback_is_noop_for_other_policies)
{
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	libra_auto_feedback(l, &p, &q, 0);
	ck_assert(isnan(libra_ledger_node_beta(l, 0)));
	ck_assert(isnan(libra_ledger_node_beta(l, 1)));
	libra_ledger_destroy(l);
}
END_TEST

/* ---- price damping (decision 19) ------------------------------------------ */

START_TEST(test_damping_keeps_the_placement_and_lowers_a_rising_price)
{
	/* node 0 half committed since the last decision, node 1 idle: best
	 * fit takes node 0 damped or not; the damped price has not yet seen
	 * the rise; off (the default), the feedback changes no price */
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t raw = _params(LIBRA_POLICY_LIBRA_PRICE), p = raw;
	libra_sla_t sla = _sla(10, 0, 1000, NO_BUDGET);
	double price_raw;

	p.price_damping = 3600;
	libra_price_feedback(l, &p, 0);
	_commit(l, 1, 500, 1000, 0, 1, 0);
	_admit(l, &raw, &sla, 1, 0, 0, 0);
	ck_assert_int_eq(q.verdict, LIBRA_ACCEPT);
	ck_assert_int_eq(_on(0), 1);
	price_raw = q.price;
	libra_price_feedback(l, &raw, 0);	/* off: stores nothing */
	_admit(l, &raw, &sla, 1, 0, 0, 0);
	ck_assert(q.price == price_raw);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_int_eq(q.verdict, LIBRA_ACCEPT);
	ck_assert_int_eq(_on(0), 1);
	ck_assert(q.price < price_raw - TOL);
	/* 10 s at 1 + 0.1 * 1000 / 990 per CPU-second */
	ck_assert_double_eq_tol(q.price, 10.0 * (1.0 + 0.1 * 1000.0 / 990.0),
				REL(q.price));
	libra_ledger_destroy(l);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Libra+$'s admission, plainly, from the thesis (section 3.5, Fig.   */
/* 3.2) with RESFree as Eq. 3.6 has it (libra_resfree=thesis): the   */
/* reference the fast path is checked against                        */
/* ---------------------------------------------------------------- */

/*
 * A job of one CPU, work RE by TD.  The nodes that can take it are those
 * where Libra's share test passes (ref_node_t.load + s <= capacity x N)
 * and RESFree_ij = N (TD - now) - sum of the node's c_k RE_k - RE_i > 0
 * (lines 9-17).  Each node's rate is Eq. 3.3 with Eq. 3.4:
 * P_ij = alpha PBase + beta (RESMax_j / RESFree_ij) PBase.  Best fit
 * (line 17: RESFree ascending, then the lower index) takes the first node
 * whose RE P_ij is within the budget (lines 18-29); none: refused for its
 * budget, the least price the cheapest node's RE P_ij; no node can take
 * it: refused for its deadline (for its resources when no node is up).
 * No memory, GPUs or bookings.
 */
static libra_verdict_t _ref_libra_price(const ref_node_t *nodes,
					const double *work, int n,
					const libra_params_t *p, double re,
					double td, double now, double budget,
					int *node, double *price)
{
	double s = re / (td - now), base = p->price_base / 3600.0;
	double rate[64], free_[64], least = INFINITY;
	int cand[64], m = 0, up = 0;

	for (int i = 0; i < n; i++)
		up += nodes[i].up;
	*node = -1;
	if (!up)	/* no CPU at all: its resources (as Libra's) */
		return LIBRA_REJECT_RESOURCES;
	for (int i = 0; i < n; i++) {
		double res_max = nodes[i].cpus * (td - now);

		if (!nodes[i].up ||
		    !(nodes[i].load + s <= p->capacity * nodes[i].cpus +
					   p->tolerance))
			continue;
		free_[i] = res_max - work[i] - re;
		if (!(free_[i] > 0.0))
			continue;
		rate[i] = p->alpha * base +
			  p->beta * (res_max / free_[i] * base);
		/* insertion by (RESFree, index) */
		int k = m++;

		while (k > 0 && free_[cand[k - 1]] > free_[i]) {
			cand[k] = cand[k - 1];
			k--;
		}
		cand[k] = i;
	}
	if (!m)
		return LIBRA_REJECT_DEADLINE;
	for (int k = 0; k < m; k++) {
		int i = cand[k];
		double cost = re * rate[i];

		if (budget < 0.0 ||
		    !(cost > budget + p->tolerance * fmax(1.0, budget))) {
			*node = i;
			*price = cost;
			return LIBRA_ACCEPT;
		}
		least = fmin(least, cost);
	}
	*price = least;
	return LIBRA_REJECT_BUDGET;
}

START_TEST(test_libra_price_matches_reference_on_random_ledgers)
{
	uint64_t st = 0x2545f4914f6cdd1dULL;
	int accepted = 0, budget = 0, deadline = 0;

	for (int trial = 0; trial < 2000; trial++) {
		int n = 1 + (int) (_unit(&st) * 8), want_node = -1;
		ref_node_t nodes[64];
		double work[64], want_price = 0.0;
		libra_ledger_t *l = libra_ledger_create(LIBRA_SHARE_MIN_DEFAULT);
		libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
		double now = 1000.0, td = now + 128.0;

		p.resfree = LIBRA_RESFREE_THESIS;
		p.capacity = _unit(&st) < 0.5 ? 1.0 : 0.875;
		p.beta = _unit(&st) < 0.5 ? 0.1 : 1.0;
		_random_nodes(&st, l, nodes, work, n, now);
		{
			/* up to 124 s of work by 128 s: shares up to 0.97,
			 * so that full nodes refuse for the deadline too */
			double re = 5.0 + (double) (int) (_unit(&st) * 120);
			double b = _unit(&st) < 0.1 ? NO_BUDGET :
				   (double) (int) (_unit(&st) * 3.0 * re);
			libra_sla_t sla = _sla(re, now, td, b);
			libra_verdict_t want;

			want = _ref_libra_price(nodes, work, n, &p, re, td,
						now, b, &want_node,
						&want_price);
			_admit(l, &p, &sla, 1, 0, 0, now);
			ck_assert_msg(q.verdict == want,
				      "trial %d: RE %.0f, budget %.0f on %d nodes: fast path %s, reference %s",
				      trial, re, b, n,
				      libra_verdict_name(q.verdict),
				      libra_verdict_name(want));
			if (want == LIBRA_ACCEPT) {
				ck_assert_msg(_on(want_node) == 1,
					      "trial %d: placed on node %d, the reference on %d",
					      trial, q.nplace ? q.place[0].node : -1,
					      want_node);
				ck_assert_msg(fabs(q.price - want_price) <=
					      1e-9 * want_price,
					      "trial %d: price %.12g, the reference %.12g",
					      trial, q.price, want_price);
				accepted++;
			} else if (want == LIBRA_REJECT_BUDGET) {
				ck_assert_msg(fabs(q.least_price - want_price) <=
					      1e-9 * want_price,
					      "trial %d: least price %.12g, the reference %.12g",
					      trial, q.least_price, want_price);
				budget++;
			} else if (want == LIBRA_REJECT_DEADLINE) {
				deadline++;
			}
		}
		libra_ledger_destroy(l);
	}
	/* every outcome well represented */
	ck_assert_msg(accepted > 200 && budget > 200 && deadline > 20,
		      "accepted %d, refused for budget %d, for deadline %d of 2000: the cases do not test every side",
		      accepted, budget, deadline);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("admit_price");
	TCase *tc = tcase_create("prices");

	T(tc, test_libra_budget_below_static_price_is_budget);
	T(tc, test_no_budget_accepts_any_price);
	T(tc, test_fixed_price_is_runtime_times_base_per_cpu);
	T(tc, test_peak_price_charges_each_hour_of_the_window);
	suite_add_tcase(s, tc);

	tc = tcase_create("market");
	T(tc, test_market_without_budget_takes_best_fit);
	T(tc, test_thesis_charge_skips_node_over_budget);
	T(tc, test_thesis_charge_is_cpus_times_runtime_times_highest_rate);
	T(tc, test_thesis_charge_too_few_nodes_in_budget_is_budget);
	T(tc, test_cpu_charge_without_budget_sums_over_cpus);
	T(tc, test_cpu_charge_takes_best_fit_within_each_cpus_budget);
	T(tc, test_cpu_charge_best_fit_over_a_cpus_budget_is_not_taken);
	T(tc, test_cpu_charge_sum_within_budget_is_not_enough);
	T(tc, test_cpu_charge_least_budget_is_admitted);
	T(tc, test_both_charges_admit_the_same_placement);
	T(tc, test_cpu_charge_on_multi_cpu_node);
	T(tc, test_market_idle_price_matches_closed_form);
	T(tc, test_market_deadline_comes_before_budget);
	T(tc, test_market_thesis_resfree_prices_full_estimates);
	T(tc, test_libra_price_matches_reference_on_random_ledgers);
	suite_add_tcase(s, tc);

	tc = tcase_create("auto");
	T(tc, test_auto_unset_node_beta_prices_with_param_beta);
	T(tc, test_auto_prices_with_node_beta);
	T(tc, test_auto_feedback_raises_beta_after_met_budget);
	T(tc, test_auto_feedback_beta_capped_at_beta_max);
	T(tc, test_auto_feedback_lowers_beta_after_budget_refusal);
	T(tc, test_auto_feedback_is_noop_for_other_policies);
	suite_add_tcase(s, tc);

	tc = tcase_create("damping");
	T(tc, test_damping_keeps_the_placement_and_lowers_a_rising_price);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
