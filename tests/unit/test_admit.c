/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_admit.c - the admission every policy goes through (admit.h,
 *  admit.c), shown with Libra's share test and best fit: every verdict's
 *  name, the request's validation, the resources test, the share test
 *  with its tolerance and capacity, best fit, multi-CPU placement, node
 *  counts, eligibility masks, job slots, bookings; Libra's admission from
 *  the thesis (Fig. 3.3) checked against the fast path.
 *
 *  The policies' own tests are in test_admit_price.c, test_admit_sla.c
 *  and test_admit_riskd.c; what a refusal is offered in
 *  test_admit_offers.c, memory and GPUs in test_admit_held.c, ISQoS in
 *  test_admit_isqos.c.  The fixture, and what holds unless a case says
 *  otherwise: admit_fixture.h.
\*****************************************************************************/

#include <stdio.h>
#include <string.h>

#include "admit.h"
#include "admit_fixture.h"
#include "admit_reference.h"
#include "ledger.h"
#include "params.h"
#include "share.h"
#include "testutil.h"

/* CPUs of the quote's placement on all its nodes. */
static int _placed_cpus(void)
{
	int c = 0;

	for (int i = 0; i < q.nplace; i++)
		c += q.place[i].cpus;
	return c;
}

/* ---------------------------------------------------------------- */
/* Libra: the share test and best fit                                 */
/* ---------------------------------------------------------------- */

START_TEST(test_idle_node_accepts_with_deadline_share)
{
	/* RE 100, TD 400: share 0.25 on the only CPU. */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.share, 0.25, TOL);
	ck_assert_int_eq(q.nplace, 1);
	ck_assert_int_eq(q.place[0].node, 0);
	ck_assert_int_eq(q.place[0].cpus, 1);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_quote_share_counts_from_now_not_submit)
{
	/* TSU 0, TD 400, quoted at now 200: 100 / 200 = 0.5 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);

	_admit(l, &p, &sla, 1, 0, 0, 200);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.share, 0.5, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_libra_price_is_static_price)
{
	/* PBase 1/s, gamma = delta = 1: 100 + 100/400 = 100.25 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 100.25, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_reject_resources_when_cluster_too_small)
{
	/* 2 nodes x 2 CPUs = 4 < 5 */
	libra_ledger_t *l = _nodes(2, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);

	_admit(l, &p, &sla, 5, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_RESOURCES);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_reject_resources_when_nodes_down)
{
	/* node 1 down: 2 CPUs up < 3 */
	libra_ledger_t *l = _nodes(2, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);

	libra_ledger_set_node_up(l, 1, false);
	_admit(l, &p, &sla, 3, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_RESOURCES);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_reject_deadline_when_share_does_not_fit)
{
	/* committed 80/100 = 0.8; new 50/100 = 0.5; 1.3 > 1 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(50, 0, 100, NO_BUDGET);

	_commit(l, 1, 80, 100, 0, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_reject_invalid_without_cpus)
{
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(50, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 0, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_INVALID);
	_admit(l, &p, &sla, -1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_INVALID);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_reject_invalid_when_deadline_passed)
{
	/* TD 100 at now 100 and now 150 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(50, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 1, 0, 0, 100);
	ck_assert_verdict(LIBRA_REJECT_INVALID);
	_admit(l, &p, &sla, 1, 0, 0, 150);
	ck_assert_verdict(LIBRA_REJECT_INVALID);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_share_above_one_cpu_is_never_admitted)
{
	/* RE 200 but only 100 s left: share 2 per CPU.  A CPU cannot run a
	 * task faster than itself, even on an idle 4-CPU node where the sum
	 * test 0 + 1 * 2 <= 4 alone would pass. */
	libra_ledger_t *l = _nodes(1, 4);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(200, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_int_ne(q.verdict, LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_best_fit_picks_fullest_node_that_fits)
{
	/* shares 0.2, 0.6, 0.4 on three 1-CPU nodes; new 0.3:
	 * free after: 0.5, 0.1, 0.3 -> node 1 (least free). */
	libra_ledger_t *l = _nodes(3, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(30, 0, 100, NO_BUDGET);

	_commit(l, 1, 20, 100, 0, 1, 0);
	_commit(l, 2, 60, 100, 1, 1, 0);
	_commit(l, 3, 40, 100, 2, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 1);
	ck_assert_int_eq(q.place[0].node, 1);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_best_fit_skips_nodes_that_cannot_fit)
{
	/* same nodes; new 0.5: node 1 would reach 1.1 (no), node 2 0.9,
	 * node 0 0.7 -> node 2. */
	libra_ledger_t *l = _nodes(3, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(50, 0, 100, NO_BUDGET);

	_commit(l, 1, 20, 100, 0, 1, 0);
	_commit(l, 2, 60, 100, 1, 1, 0);
	_commit(l, 3, 40, 100, 2, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 2);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_down_node_is_never_chosen)
{
	/* node 0 fuller (best fit would take it) but down -> node 1 */
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);

	_commit(l, 1, 50, 100, 0, 1, 0);
	libra_ledger_set_node_up(l, 0, false);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 1);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_share_test_allows_rounding_within_tolerance)
{
	/* capacity 0.3 of one CPU; committed 10/100 = 0.1, new 20/100 = 0.2:
	 * 0.1 + 0.2 = 0.30000000000000004 > 0.3 in doubles, within the
	 * tolerance -> accepted. */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(20, 0, 100, NO_BUDGET);

	p.capacity = 0.3;
	_commit(l, 1, 10, 100, 0, 1, 0);
	ck_assert(0.1 + 0.2 > 0.3);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_share_test_refuses_beyond_tolerance)
{
	/* capacity 0.3; 0.1 + 0.21 = 0.31 > 0.3 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(21, 0, 100, NO_BUDGET);

	p.capacity = 0.3;
	_commit(l, 1, 10, 100, 0, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_share_test_uses_capacity_times_cpus)
{
	/* 2-CPU node, capacity 1 -> 2.0; three 1-CPU jobs of 0.5 = 1.5;
	 * new 0.5 -> 2.0 fits; new 0.6 -> 2.1 does not. */
	libra_ledger_t *l = _nodes(1, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t fits = _sla(50, 0, 100, NO_BUDGET);
	libra_sla_t over = _sla(60, 0, 100, NO_BUDGET);

	_commit(l, 1, 50, 100, 0, 1, 0);
	_commit(l, 2, 50, 100, 0, 1, 0);
	_commit(l, 3, 50, 100, 0, 1, 0);
	_admit(l, &p, &fits, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	_admit(l, &p, &over, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_capacity_below_one_reserves_headroom)
{
	/* 2-CPU node, capacity 0.75 -> 1.5; committed 1.0; new 2 CPUs x 0.3
	 * = 0.6 -> 1.6 > 1.5 refused; 2 x 0.25 = 0.5 -> 1.5 accepted. */
	libra_ledger_t *l = _nodes(1, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t over = _sla(30, 0, 100, NO_BUDGET);
	libra_sla_t fits = _sla(25, 0, 100, NO_BUDGET);

	p.capacity = 0.75;
	_commit(l, 1, 100, 100, 0, 1, 0);
	_admit(l, &p, &over, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	_admit(l, &p, &fits, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Multi-CPU placement and node counts                                */
/* ---------------------------------------------------------------- */

/* Two 4-CPU nodes; node 0 holds three 1-CPU jobs of share 1 (3.0). */
static libra_ledger_t *_half_busy(void)
{
	libra_ledger_t *l = _nodes(2, 4);

	_commit(l, 1, 100, 100, 0, 1, 0);
	_commit(l, 2, 100, 100, 0, 1, 0);
	_commit(l, 3, 100, 100, 0, 1, 0);
	return l;
}

START_TEST(test_multi_cpu_job_fills_fullest_node_first)
{
	/* 2 CPUs x 0.5 = 1.0 fits node 0 (3.0 + 1.0 = 4.0): all there */
	libra_ledger_t *l = _half_busy();
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(50, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(_on(0), 2);
	ck_assert_int_eq(_on(1), 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_multi_cpu_job_spills_to_next_node)
{
	/* 3 CPUs x 0.5: node 0 takes k = 2 (3 + 2 * 0.5 = 4), node 1 one */
	libra_ledger_t *l = _half_busy();
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(50, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 3, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(_on(0), 2);
	ck_assert_int_eq(_on(1), 1);
	ck_assert_int_eq(_placed_cpus(), 3);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_job_puts_at_most_node_cpus_on_a_node)
{
	/* two idle 2-CPU nodes, 4 CPUs x 0.1: share alone would fit one node
	 * (0.4 <= 2), but tasks need distinct CPUs: 2 + 2. */
	libra_ledger_t *l = _nodes(2, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 4, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(_on(0), 2);
	ck_assert_int_eq(_on(1), 2);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_max_nodes_one_keeps_job_on_one_node)
{
	/* 3 CPUs x 0.5 with max_nodes 1: node 0 fits only 2, node 1 all 3 */
	libra_ledger_t *l = _half_busy();
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(50, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 3, 0, 1, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 1);
	ck_assert_int_eq(_on(1), 3);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_max_nodes_too_small_for_cpus_is_resources)
{
	/* 4 CPUs on one node of 2 CPUs: impossible even when idle */
	libra_ledger_t *l = _nodes(2, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 4, 0, 1, 0);
	ck_assert_verdict(LIBRA_REJECT_RESOURCES);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_max_nodes_with_busy_nodes_is_deadline)
{
	/* 4 CPUs x 0.5 with max_nodes 1 on _half_busy(): node 1 takes all 4
	 * (2.0 <= 4); with node 1 holding 2.5 more it fits nowhere. */
	libra_ledger_t *l = _half_busy();
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(50, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 4, 0, 1, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(_on(1), 4);
	_commit(l, 4, 100, 100, 1, 2, 0);
	_commit(l, 5, 50, 100, 1, 1, 0);
	_admit(l, &p, &sla, 4, 0, 1, 0);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_min_nodes_spreads_the_job)
{
	/* 2 CPUs on idle 4-CPU nodes, min_nodes 2: one CPU on each */
	libra_ledger_t *l = _nodes(2, 4);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 2, 2, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 2);
	ck_assert_int_eq(_on(0), 1);
	ck_assert_int_eq(_on(1), 1);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_min_nodes_more_than_cluster_is_refused)
{
	libra_ledger_t *l = _nodes(2, 4);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 4, 3, 0, 0);
	ck_assert_int_ne(q.verdict, LIBRA_ACCEPT);
	/* more nodes than CPUs cannot be honoured either */
	_admit(l, &p, &sla, 1, 2, 0, 0);
	ck_assert_int_ne(q.verdict, LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_full_job_slots_move_the_job_to_another_node)
{
	/* OverSubscribe=FORCE:2 on 1-CPU nodes: node 0 already runs two jobs
	 * (shares 0.1 each) and is the fuller (best fit), but has no slot
	 * left; node 1 takes the job. */
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .slots_per_cpu = 2 };

	_commit(l, 1, 10, 100, 0, 1, 0);
	_commit(l, 2, 10, 100, 0, 1, 0);
	ck_assert_int_eq(libra_ledger_node_job_cpus(l, 0), 2);
	libra_admit(l, &p, &sla, &req, 0, &q);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 1);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_no_job_slot_anywhere_is_a_slots_refusal)
{
	/* FORCE:1 on one node already running a best-effort job (no share):
	 * the share would fit, the slot does not: "slots", not "deadline". */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .slots_per_cpu = 1 };
	libra_place_t pl = PLACE(0, 1);

	ck_assert_int_eq(libra_ledger_commit(l, 7, NULL, &pl, 1, 0), 0);
	libra_admit(l, &p, &sla, &req, 0, &q);
	ck_assert_verdict(LIBRA_REJECT_SLOTS);
	ck_assert_int_eq(q.nplace, 0);
	req.slots_per_cpu = 2;
	libra_admit(l, &p, &sla, &req, 0, &q);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_ineligible_node_is_never_chosen)
{
	/* node 0 fuller (best fit) but not eligible (partition, --exclude):
	 * node 1 */
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);
	bool eligible[2] = { false, true };
	libra_request_t req = { .cpus = 1, .eligible = eligible };

	_commit(l, 1, 50, 100, 0, 1, 0);
	libra_admit(l, &p, &sla, &req, 0, &q);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 1);
	ck_assert_int_eq(q.place[0].node, 1);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_too_few_eligible_cpus_is_resources)
{
	/* 2 nodes x 2 CPUs, only node 0 eligible: 3 CPUs impossible */
	libra_ledger_t *l = _nodes(2, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);
	bool eligible[2] = { true, false };
	libra_request_t req = { .cpus = 3, .eligible = eligible };

	libra_admit(l, &p, &sla, &req, 0, &q);
	ck_assert_verdict(LIBRA_REJECT_RESOURCES);
	req.cpus = 2;
	libra_admit(l, &p, &sla, &req, 0, &q);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(_on(0), 2);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_admit_never_changes_the_ledger)
{
	libra_ledger_t *l = _half_busy();
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(50, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 3, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(libra_ledger_job_count(l), 3);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 3.0, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 1), 0.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_committing_a_quote_uses_the_capacity)
{
	/* Two 0.6 jobs on one 1-CPU node: the first is admitted and
	 * committed, the second is then refused. */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(60, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(libra_ledger_commit(l, 1, &sla, q.place, q.nplace,
					     0), 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	libra_ledger_destroy(l);
}
END_TEST

/* ------------------------------------------ advance reservations (21) */

/* 1 node, 1 CPU; job 1 booked at 600 with share 0.5 until 1000 */
static libra_ledger_t *_booked_node(void)
{
	libra_ledger_t *l = _nodes(1, 1);
	libra_sla_t sla = _sla(200, 0, 1000, NO_BUDGET);
	libra_place_t pl = PLACE(0, 1);

	ck_assert_int_eq(libra_ledger_commit_booked(l, 1, &sla, &pl, 1, 0,
						    600), 0);
	return l;
}

START_TEST(test_job_ending_before_a_booking_takes_the_whole_cpu)
{
	libra_ledger_t *l = _booked_node();
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(540, 0, 600, NO_BUDGET);	/* share 0.9 */

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_int_eq(q.verdict, LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_job_overlapping_a_booking_is_refused_where_both_do_not_fit)
{
	libra_ledger_t *l = _booked_node();
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t fits = _sla(320, 0, 800, NO_BUDGET);	/* 0.4 */
	libra_sla_t breaks = _sla(480, 0, 800, NO_BUDGET);	/* 0.6 */

	_admit(l, &p, &fits, 1, 0, 0, 0);
	ck_assert_int_eq(q.verdict, LIBRA_ACCEPT);
	_admit(l, &p, &breaks, 1, 0, 0, 0);
	ck_assert_int_eq(q.verdict, LIBRA_REJECT_DEADLINE);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_booking_is_admitted_beside_a_job_that_ends_before_it)
{
	/* 1 CPU, a job at 0.9 until 600; a booking [600, 1000) at 0.75 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(300, 0, 1000, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .booked = 1.0 };

	_commit(l, 2, 540, 600, 0, 1, 0);
	memset(&q, 0x5a, sizeof(q));
	libra_admit(l, &p, &sla, &req, 600, &q);
	ck_assert_int_eq(q.verdict, LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.share, 0.75, TOL);
	/* seen at 700 instead, job 2 is past its deadline: its end is
	 * unknown and it keeps its share (0.9 + 0.5 > 1) */
	sla = _sla(300, 0, 1400, NO_BUDGET);
	req.booked = 700;
	libra_admit(l, &p, &sla, &req, 800, &q);
	ck_assert_int_eq(q.verdict, LIBRA_REJECT_DEADLINE);
	req.booked = 1.0;
	libra_admit(l, &p, &sla, &req, 800, &q);
	ck_assert_int_eq(q.verdict, LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_booking_is_refused_where_it_meets_another_booking)
{
	libra_ledger_t *l = _booked_node();	/* 0.5 on [600, 1000) */
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_request_t req = { .cpus = 1, .booked = 1.0 };
	libra_sla_t late = _sla(300, 0, 1300, NO_BUDGET);	/* 0.6 */
	libra_sla_t after = _sla(300, 0, 1500, NO_BUDGET);

	memset(&q, 0x5a, sizeof(q));
	libra_admit(l, &p, &late, &req, 800, &q);
	ck_assert_int_eq(q.verdict, LIBRA_REJECT_DEADLINE);
	/* from 1000 on, job 1 leaves its tail only */
	libra_admit(l, &p, &after, &req, 1000, &q);
	ck_assert_int_eq(q.verdict, LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_booking_is_priced_for_its_own_window)
{
	/* Libra+$: an idle node prices a booking as a job admitted at its
	 * begin with the same window */
	libra_ledger_t *l = _nodes(1, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(300, 0, 1600, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .booked = 1.0 };
	double price;

	memset(&q, 0x5a, sizeof(q));
	libra_admit(l, &p, &sla, &req, 600, &q);
	ck_assert_int_eq(q.verdict, LIBRA_ACCEPT);
	price = q.price;
	sla = _sla(300, 0, 1000, NO_BUDGET);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_double_eq_tol(q.price, price, 1e-9 * price);
	libra_ledger_destroy(l);
}
END_TEST

/* ---------------------------------------------------------------- */

START_TEST(test_verdict_names)
{
	ck_assert_str_eq(libra_verdict_name(LIBRA_REJECT_RESOURCES),
			 "resources");
	ck_assert_str_eq(libra_verdict_name(LIBRA_REJECT_DEADLINE),
			 "deadline");
	ck_assert_str_eq(libra_verdict_name(LIBRA_REJECT_BUDGET), "budget");
	for (int v = LIBRA_ACCEPT; v <= LIBRA_REJECT_GPUS; v++) {
		ck_assert_ptr_nonnull(libra_verdict_name(v));
		ck_assert_ptr_nonnull(libra_verdict_reason(v));
		ck_assert_uint_gt(strlen(libra_verdict_reason(v)), 0);
		for (int w = LIBRA_ACCEPT; w < v; w++)
			ck_assert_str_ne(libra_verdict_name(v),
					 libra_verdict_name(w));
	}
}
END_TEST

/* ---------------------------------------------------------------- */
/* Libra's admission, plainly, from the thesis (section 3.4.2, Fig.   */
/* 3.3): the reference the fast path is checked against              */
/* ---------------------------------------------------------------- */

/*
 * The job needs share s = RE / (TD - now) of each of its CPUs.  A node of
 * N CPUs whose jobs hold share L can take k more of them if
 * L + k s <= capacity x N.  Refuse (resources) when the up nodes have too
 * few CPUs at all; else visit the nodes fullest first (least free share,
 * then the lower index), taking from each as many CPUs as fit, at most N
 * and at most what is still needed; refuse (deadline) when they run out.
 * No memory, GPUs, slots, bookings or node limits: the plain thesis model.
 */
static libra_verdict_t _ref_libra(const ref_node_t *nodes, int n,
				  double capacity, double tolerance,
				  int cpus, double re, double td, double now,
				  int *take)
{
	double s = re / (td - now);
	int order[64], up_cpus = 0, need = cpus;

	for (int i = 0; i < n; i++) {
		take[i] = 0;
		order[i] = i;
		if (nodes[i].up)
			up_cpus += nodes[i].cpus;
	}
	if (up_cpus < cpus)
		return LIBRA_REJECT_RESOURCES;
	/* insertion sort by (free share, index): n is small */
	for (int i = 1; i < n; i++) {
		for (int j = i; j > 0; j--) {
			const ref_node_t *a = &nodes[order[j - 1]];
			const ref_node_t *b = &nodes[order[j]];
			double fa = capacity * a->cpus - a->load;
			double fb = capacity * b->cpus - b->load;

			if (fa < fb || (fa == fb && order[j - 1] < order[j]))
				break;
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	}
	for (int i = 0; i < n && need > 0; i++) {
		const ref_node_t *nd = &nodes[order[i]];
		int k = 0;

		if (!nd->up)
			continue;
		while (k < nd->cpus && k < need &&
		       nd->load + (k + 1) * s <= capacity * nd->cpus +
						  tolerance)
			k++;
		take[order[i]] = k;
		need -= k;
	}
	if (need > 0) {
		for (int i = 0; i < n; i++)
			take[i] = 0;
		return LIBRA_REJECT_DEADLINE;
	}
	return LIBRA_ACCEPT;
}

START_TEST(test_libra_matches_reference_on_random_ledgers)
{
	uint64_t st = 0x9e3779b97f4a7c15ULL;
	int agree = 0, accepted = 0;

	for (int trial = 0; trial < 2000; trial++) {
		int n = 1 + (int) (_unit(&st) * 8), take[64];
		ref_node_t nodes[64];
		libra_ledger_t *l = libra_ledger_create(LIBRA_SHARE_MIN_DEFAULT);
		libra_params_t p = _params(LIBRA_POLICY_LIBRA);
		double now = 1000.0;

		p.capacity = _unit(&st) < 0.5 ? 1.0 : 0.875;
		_random_nodes(&st, l, nodes, NULL, n, now);
		{
			int cpus = 1 + (int) (_unit(&st) * 10);
			double re = 5.0 + (double) (int) (_unit(&st) * 60);
			double td = now + 128.0;
			libra_sla_t sla = _sla(re, now, td, NO_BUDGET);
			libra_verdict_t want;

			want = _ref_libra(nodes, n, p.capacity, p.tolerance,
					  cpus, re, td, now, take);
			_admit(l, &p, &sla, cpus, 0, 0, now);
			ck_assert_msg(q.verdict == want,
				      "trial %d: %d CPUs of share %.2f on %d nodes: fast path %s, reference %s",
				      trial, cpus, re / 128.0, n,
				      libra_verdict_name(q.verdict),
				      libra_verdict_name(want));
			for (int i = 0; i < n; i++)
				ck_assert_msg(_on(i) == take[i],
					      "trial %d: node %d: fast path %d CPUs, reference %d",
					      trial, i, _on(i), take[i]);
			agree++;
			accepted += want == LIBRA_ACCEPT;
		}
		libra_ledger_destroy(l);
	}
	/* both verdicts well represented */
	ck_assert_int_eq(agree, 2000);
	ck_assert_msg(accepted > 200 && accepted < 1800,
		      "%d of 2000 accepted: the cases do not test both sides",
		      accepted);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("admit");
	TCase *tc = tcase_create("libra");

	T(tc, test_idle_node_accepts_with_deadline_share);
	T(tc, test_quote_share_counts_from_now_not_submit);
	T(tc, test_libra_price_is_static_price);
	T(tc, test_reject_resources_when_cluster_too_small);
	T(tc, test_reject_resources_when_nodes_down);
	T(tc, test_reject_deadline_when_share_does_not_fit);
	T(tc, test_reject_invalid_without_cpus);
	T(tc, test_reject_invalid_when_deadline_passed);
	T(tc, test_share_above_one_cpu_is_never_admitted);
	T(tc, test_best_fit_picks_fullest_node_that_fits);
	T(tc, test_best_fit_skips_nodes_that_cannot_fit);
	T(tc, test_down_node_is_never_chosen);
	T(tc, test_share_test_allows_rounding_within_tolerance);
	T(tc, test_share_test_refuses_beyond_tolerance);
	T(tc, test_share_test_uses_capacity_times_cpus);
	T(tc, test_capacity_below_one_reserves_headroom);
	T(tc, test_admit_never_changes_the_ledger);
	T(tc, test_committing_a_quote_uses_the_capacity);
	T(tc, test_libra_matches_reference_on_random_ledgers);
	suite_add_tcase(s, tc);

	tc = tcase_create("placement");
	T(tc, test_multi_cpu_job_fills_fullest_node_first);
	T(tc, test_multi_cpu_job_spills_to_next_node);
	T(tc, test_job_puts_at_most_node_cpus_on_a_node);
	T(tc, test_max_nodes_one_keeps_job_on_one_node);
	T(tc, test_max_nodes_too_small_for_cpus_is_resources);
	T(tc, test_max_nodes_with_busy_nodes_is_deadline);
	T(tc, test_min_nodes_spreads_the_job);
	T(tc, test_min_nodes_more_than_cluster_is_refused);
	T(tc, test_ineligible_node_is_never_chosen);
	T(tc, test_full_job_slots_move_the_job_to_another_node);
	T(tc, test_no_job_slot_anywhere_is_a_slots_refusal);
	T(tc, test_too_few_eligible_cpus_is_resources);
	suite_add_tcase(s, tc);

	tc = tcase_create("booked");
	T(tc, test_job_ending_before_a_booking_takes_the_whole_cpu);
	T(tc, test_job_overlapping_a_booking_is_refused_where_both_do_not_fit);
	T(tc, test_booking_is_admitted_beside_a_job_that_ends_before_it);
	T(tc, test_booking_is_refused_where_it_meets_another_booking);
	T(tc, test_booking_is_priced_for_its_own_window);
	suite_add_tcase(s, tc);

	tc = tcase_create("names");
	T(tc, test_verdict_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
