/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_admit_speed.c - nodes of different speeds and base prices
 *  (doc/design.md decision 43; ledger.c, admit.c, admit_price.c, admit_sla.c, admit_riskd.c,
 *  admit_isqos.c): a runtime is in reference-CPU seconds, so on a node of
 *  speed s the job's work is RE / s of the node's seconds and its share
 *  RE / (s x window).  The ledger commits and reports progress that way,
 *  every policy tests each node with its own share, the market prices a
 *  node's utilisation in its own seconds, a node's base price factor
 *  (PBase_j) scales what its CPUs cost, and a ledger whose speeds and
 *  factors are all 1 decides exactly as one that never heard of them.
 *
 *  The fixture, and what holds unless a case says otherwise:
 *  admit_fixture.h.
\*****************************************************************************/

#include <math.h>
#include <string.h>

#include "admit.h"
#include "admit_fixture.h"
#include "ledger.h"
#include "params.h"
#include "testutil.h"

/* n nodes of one CPU, node i of speed speeds[i]. */
static libra_ledger_t *_speed_nodes(int n, const double *speeds)
{
	libra_ledger_t *l = _nodes(n, 1);

	ck_assert_int_eq(libra_ledger_set_speeds(l, speeds, n), 0);
	return l;
}

/* The job's entry on node. */
static const libra_entry_t *_entry(const libra_ledger_t *l, int node,
				   uint32_t job)
{
	const libra_entry_t *ent;
	int n = libra_ledger_node_entries(l, node, &ent);

	for (int i = 0; i < n; i++)
		if (ent[i].job_id == job)
			return &ent[i];
	ck_abort_msg("job %u has no entry on node %d", job, node);
	return NULL;
}

/* ---------------------------------------------------------------- */
/* The ledger                                                         */
/* ---------------------------------------------------------------- */

START_TEST(test_speed_defaults_to_one_and_bad_speeds_are_refused)
{
	libra_ledger_t *l = _nodes(2, 1);
	const double bad[] = { 0.0, -1.0, NAN, INFINITY, LIBRA_SPEED_MAX * 2 };

	ck_assert_double_eq(libra_ledger_node_speed(l, 0), 1.0);
	ck_assert_double_eq(libra_ledger_max_speed(l), 1.0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const double s[] = { bad[i], 1.0 };

		ck_assert_int_eq(libra_ledger_set_speeds(l, s, 2), -1);
	}
	ck_assert_double_eq(libra_ledger_node_speed(l, 5), 1.0);
	ck_assert_double_eq(libra_ledger_node_speed(l, 0), 1.0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_max_speed_follows_the_fastest_node)
{
	libra_ledger_t *l = _nodes(3, 1);
	const double a[] = { 1.0, 2.5, 1.0 }, b[] = { 1.0, 0.5, 1.0 };
	const double c[] = { 0.25, 0.25, 0.25 };

	ck_assert_int_eq(libra_ledger_set_speeds(l, a, 3), 0);
	ck_assert_double_eq(libra_ledger_max_speed(l), 2.5);
	ck_assert_int_eq(libra_ledger_set_speeds(l, b, 3), 0);
	ck_assert_double_eq(libra_ledger_max_speed(l), 1.0);
	ck_assert_int_eq(libra_ledger_set_speeds(l, c, 3), 0);
	ck_assert_double_eq(libra_ledger_max_speed(l), 0.25);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_speeds_set_at_once_all_or_none)
{
	libra_ledger_t *l = _nodes(3, 1);
	const double good[] = { 0.5, 3.0, 1.0 }, bad[] = { 0.5, 0.0, 1.0 };

	ck_assert_int_eq(libra_ledger_set_speeds(l, bad, 3), -1);
	ck_assert_double_eq(libra_ledger_node_speed(l, 0), 1.0);
	ck_assert_int_eq(libra_ledger_set_speeds(l, good, 2), -1);
	ck_assert_int_eq(libra_ledger_set_speeds(l, good, 3), 0);
	ck_assert_double_eq(libra_ledger_node_speed(l, 0), 0.5);
	ck_assert_double_eq(libra_ledger_node_speed(l, 1), 3.0);
	ck_assert_double_eq(libra_ledger_max_speed(l), 3.0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_slow_node_commits_work_and_share_in_its_seconds)
{
	const double speeds[] = { 0.5, 1.0 };
	libra_ledger_t *l = _speed_nodes(2, speeds);
	const libra_entry_t *e;

	/* RE 30 reference seconds by TD 100: 60 s of the slow node's */
	_commit(l, 1, 30, 100, 0, 1, 0);
	_commit(l, 2, 30, 100, 1, 1, 0);
	e = _entry(l, 0, 1);
	ck_assert_double_eq(e->runtime, 30.0);
	ck_assert_double_eq(e->speed, 0.5);
	ck_assert_double_eq_tol(e->work, 60.0, 1e-12);
	ck_assert_double_eq_tol(e->share, 0.6, 1e-12);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.6, 1e-12);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 1), 0.3, 1e-12);
	/* the thesis' RESFree counts the node's seconds too */
	ck_assert_double_eq_tol(libra_ledger_node_thesis_work(l, 0), 60.0,
				1e-12);
	ck_assert_double_eq_tol(libra_ledger_node_thesis_work(l, 1), 30.0,
				1e-12);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_progress_is_reported_in_reference_seconds)
{
	const double speeds[] = { 0.5 };
	libra_ledger_t *l = _speed_nodes(1, speeds);
	const libra_entry_t *e;

	_commit(l, 1, 30, 100, 0, 1, 0);
	/* 10 reference seconds done by 50: 20 left, 40 of the node's */
	ck_assert_int_eq(libra_ledger_progress(l, 1, -1, 10.0, 50.0), 0);
	e = _entry(l, 0, 1);
	ck_assert_double_eq_tol(e->work, 40.0, 1e-12);
	ck_assert_double_eq_tol(e->share, 0.8, 1e-12);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_committed_job_keeps_its_speed_until_committed_again)
{
	const double speeds[] = { 0.5 };
	libra_ledger_t *l = _speed_nodes(1, speeds);
	libra_sla_t sla = _sla(30, 0, 100, NO_BUDGET);
	const double one[] = { 1.0 };

	_commit(l, 1, 30, 100, 0, 1, 0);
	ck_assert_int_eq(libra_ledger_set_speeds(l, one, 1), 0);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, 0.6, 1e-12);
	ck_assert_int_eq(libra_ledger_recommit(l, 1, &sla, 0.0, 0.0), 0);
	ck_assert_double_eq(_entry(l, 0, 1)->speed, 1.0);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, 0.3, 1e-12);
	libra_ledger_destroy(l);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Admission                                                          */
/* ---------------------------------------------------------------- */

static const libra_policy_t every_policy[] = {
	LIBRA_POLICY_LIBRA, LIBRA_POLICY_LIBRA_PRICE, LIBRA_POLICY_AUTO,
	LIBRA_POLICY_SLA, LIBRA_POLICY_RISKD, LIBRA_POLICY_FIXED,
	LIBRA_POLICY_PEAK,
};
#define NPOLICIES (sizeof(every_policy) / sizeof(every_policy[0]))

START_TEST(test_slow_node_needs_twice_the_share)
{
	/* node 0 at half speed holds 0.5; the job's reference share is
	 * 0.3, 0.6 there: only the full-speed node 1 takes it */
	const double speeds[] = { 0.5, 1.0 };
	libra_ledger_t *l = _speed_nodes(2, speeds);
	libra_sla_t sla = _sla(30, 0, 100, NO_BUDGET);

	_commit(l, 1, 25, 100, 0, 1, 0);
	for (size_t i = 0; i < NPOLICIES; i++) {
		libra_params_t p = _params(every_policy[i]);

		_admit(l, &p, &sla, 1, 0, 0, 0);
		ck_assert_msg(q.verdict == LIBRA_ACCEPT && _on(1) == 1,
			      "%s: verdict %s, %d on node 1",
			      libra_policy_name(every_policy[i]),
			      libra_verdict_name(q.verdict), _on(1));
	}
	/* with node 1 full, nothing takes it */
	_commit(l, 2, 80, 100, 1, 1, 0);
	for (size_t i = 0; i < NPOLICIES; i++) {
		libra_params_t p = _params(every_policy[i]);

		if (every_policy[i] == LIBRA_POLICY_SLA ||
		    every_policy[i] == LIBRA_POLICY_RISKD)
			continue;	/* they may delay soft work: tested apart */
		_admit(l, &p, &sla, 1, 0, 0, 0);
		ck_assert_msg(q.verdict != LIBRA_ACCEPT, "%s admitted it",
			      libra_policy_name(every_policy[i]));
	}
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_job_longer_than_its_window_fits_a_fast_node)
{
	/* RE 150 by TD 100: no reference CPU finishes it, a node of speed
	 * 2 does at share 0.75 */
	const double fast[] = { 1.0, 2.0 }, plain[] = { 1.0, 1.0 };
	libra_ledger_t *l = _speed_nodes(2, fast), *m = _speed_nodes(2, plain);
	libra_sla_t sla = _sla(150, 0, 100, NO_BUDGET);

	for (size_t i = 0; i < NPOLICIES; i++) {
		libra_params_t p = _params(every_policy[i]);

		_admit(l, &p, &sla, 1, 0, 0, 0);
		ck_assert_msg(q.verdict == LIBRA_ACCEPT && _on(1) == 1,
			      "%s: verdict %s on the fast node",
			      libra_policy_name(every_policy[i]),
			      libra_verdict_name(q.verdict));
		_admit(m, &p, &sla, 1, 0, 0, 0);
		ck_assert_msg(q.verdict == LIBRA_REJECT_DEADLINE,
			      "%s: verdict %s at reference speed",
			      libra_policy_name(every_policy[i]),
			      libra_verdict_name(q.verdict));
	}
	libra_ledger_destroy(l);
	libra_ledger_destroy(m);
}
END_TEST

START_TEST(test_market_prices_a_nodes_utilisation_in_its_seconds)
{
	/* one idle node, window RESFree: RESMax 100, the job RE 10 is 5 of
	 * a speed-2 node's seconds: RESFree 95, P = 1 + 100/95 per
	 * reference second; at speed 1, RESFree 90 */
	const double fast[] = { 2.0 };
	libra_ledger_t *l = _speed_nodes(1, fast), *m = _nodes(1, 1);
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 10.0 * (1.0 + 100.0 / 95.0), 1e-9);
	_admit(m, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, C2, 1e-9);
	libra_ledger_destroy(l);
	libra_ledger_destroy(m);
}
END_TEST

START_TEST(test_speeds_of_one_decide_as_no_speeds)
{
	/* the same loaded ledger twice, one with every speed set to 1:
	 * every policy's quote is the same to the bit */
	libra_ledger_t *a = _nodes(4, 2), *b = _nodes(4, 2);
	libra_sla_t sla = _sla(40, 0, 100, 500);
	libra_quote_t qa;

	const double ones[] = { 1.0, 1.0, 1.0, 1.0 };

	ck_assert_int_eq(libra_ledger_set_speeds(b, ones, 4), 0);
	ck_assert_int_eq(libra_ledger_set_price_factors(b, ones, 4), 0);
	for (int i = 0; i < 4; i++) {
		_commit(a, (uint32_t) i + 1, 20.0 + 10 * i, 100, i, 1, 0);
		_commit(b, (uint32_t) i + 1, 20.0 + 10 * i, 100, i, 1, 0);
	}
	for (size_t i = 0; i < NPOLICIES; i++) {
		libra_params_t p = _params(every_policy[i]);

		_admit(a, &p, &sla, 3, 0, 0, 0);
		qa = q;
		_admit(b, &p, &sla, 3, 0, 0, 0);
		ck_assert_msg(!memcmp(&qa, &q, sizeof(q)),
			      "%s: quotes differ", libra_policy_name(
				      every_policy[i]));
	}
	libra_ledger_destroy(a);
	libra_ledger_destroy(b);
}
END_TEST

START_TEST(test_opt_time_aims_at_the_fastest_nodes_finish)
{
	/* ISQoS opt=time: the earliest finish is RE / 2 on a speed-2 node */
	const double fast[] = { 2.0 };
	libra_ledger_t *l = _speed_nodes(1, fast);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(40, 0, 100, NO_BUDGET);

	sla.set |= LIBRA_SLA_OPT;
	sla.opt = LIBRA_OPT_TIME;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_msg(q.target < 40.0 && q.target >= 20.0,
		      "target %g, want in [20, 40)", q.target);
	libra_ledger_destroy(l);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Base prices per node (PBase_j)                                     */
/* ---------------------------------------------------------------- */

START_TEST(test_price_factors_set_at_once_all_or_none)
{
	libra_ledger_t *l = _nodes(2, 1);
	const double good[] = { 2.0, 0.5 }, bad[] = { 2.0, -1.0 };

	ck_assert_double_eq(libra_ledger_node_price_factor(l, 0), 1.0);
	ck_assert_double_eq(libra_ledger_min_price_factor(l), 1.0);
	ck_assert_int_eq(libra_ledger_set_price_factors(l, bad, 2), -1);
	ck_assert_double_eq(libra_ledger_node_price_factor(l, 0), 1.0);
	ck_assert_int_eq(libra_ledger_set_price_factors(l, good, 2), 0);
	ck_assert_double_eq(libra_ledger_node_price_factor(l, 0), 2.0);
	ck_assert_double_eq(libra_ledger_min_price_factor(l), 0.5);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_static_price_counts_each_cpu_at_its_nodes_factor)
{
	/* Libra's static price per CPU, twice on node 1: 1 CPU on each
	 * (max 1 CPU a node) costs 3 per-CPU prices; alone on node 0, 1 */
	libra_ledger_t *l = _nodes(2, 1);
	const double f[] = { 1.0, 2.0 };
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);
	double one;

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	one = q.price;
	ck_assert_int_eq(libra_ledger_set_price_factors(l, f, 2), 0);
	_admit(l, &p, &sla, 2, 2, 2, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 3.0 * one, 1e-9);
	_commit(l, 1, 95, 100, 1, 1, 0);	/* node 1 full */
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(_on(0), 1);
	ck_assert_double_eq_tol(q.price, one, 1e-9);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_market_rate_scales_with_the_nodes_base)
{
	/* Eq. 3.3 with PBase_j = 2 PBase: both terms double (C2 at 1) */
	libra_ledger_t *l = _nodes(1, 1);
	const double f[] = { 2.0 };
	libra_params_t p = _market(LIBRA_CHARGE_CPU);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);

	ck_assert_int_eq(libra_ledger_set_price_factors(l, f, 1), 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 2.0 * C2, 1e-9);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_cheap_node_admits_a_budget_below_the_base_price)
{
	/* a budget under Libra's price at factor 1 fits a node at 0.5 */
	libra_ledger_t *l = _nodes(1, 1);
	const double f[] = { 0.5 };
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);
	double full;

	_admit(l, &p, &sla, 1, 0, 0, 0);
	full = q.price;
	sla = _sla(10, 0, 100, full * 0.6);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_BUDGET);
	ck_assert_int_eq(libra_ledger_set_price_factors(l, f, 1), 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, full * 0.5, 1e-9);
	libra_ledger_destroy(l);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("admit_speed");
	TCase *tc = tcase_create("speed");

	T(tc, test_speed_defaults_to_one_and_bad_speeds_are_refused);
	T(tc, test_max_speed_follows_the_fastest_node);
	T(tc, test_speeds_set_at_once_all_or_none);
	T(tc, test_slow_node_commits_work_and_share_in_its_seconds);
	T(tc, test_progress_is_reported_in_reference_seconds);
	T(tc, test_committed_job_keeps_its_speed_until_committed_again);
	T(tc, test_slow_node_needs_twice_the_share);
	T(tc, test_job_longer_than_its_window_fits_a_fast_node);
	T(tc, test_market_prices_a_nodes_utilisation_in_its_seconds);
	T(tc, test_speeds_of_one_decide_as_no_speeds);
	T(tc, test_opt_time_aims_at_the_fastest_nodes_finish);
	T(tc, test_price_factors_set_at_once_all_or_none);
	T(tc, test_static_price_counts_each_cpu_at_its_nodes_factor);
	T(tc, test_market_rate_scales_with_the_nodes_base);
	T(tc, test_cheap_node_admits_a_budget_below_the_base_price);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
