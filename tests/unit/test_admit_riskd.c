/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_admit_riskd.c - LibraRiskD's admission (admit_riskd.c; thesis
 *  Fig. 5.1): DDY (the thesis' examples), the mean and deviation of the
 *  deadline delays on a hand-projected node, nodes in index order; the
 *  thesis' algorithm, its projection by bisection, checked against the
 *  fast path on random ledgers (its random nodes and jobs, and its
 *  tally: admit_reference.h); the same with risk_thesis, Fig. 5.1 as
 *  written (decision 49).
 *
 *  The fixture, and what holds unless a case says otherwise:
 *  admit_fixture.h.
\*****************************************************************************/

#include <math.h>
#include <string.h>

#include "admit.h"
#include "admit_fixture.h"
#include "admit_reference.h"
#include "ledger.h"
#include "params.h"
#include "share.h"
#include "testutil.h"

/* ---------------------------------------------------------------- */
/* LibraRiskD                                                         */
/* ---------------------------------------------------------------- */

START_TEST(test_ddy_thesis_example_remain_five)
{
	/* thesis 5.2.1: DY 20 s, remainD 5 s: (20 + 5) / 5 = 5 */
	ck_assert_double_eq_tol(libra_ddy(20, 5), 5.0, TOL);
}
END_TEST

START_TEST(test_ddy_thesis_example_remain_ten)
{
	/* DY 20 s, remainD 10 s: (20 + 10) / 10 = 3 */
	ck_assert_double_eq_tol(libra_ddy(20, 10), 3.0, TOL);
}
END_TEST

START_TEST(test_ddy_without_delay_is_one)
{
	/* (0 + 300) / 300 = 1, the best value */
	ck_assert_double_eq_tol(libra_ddy(0, 300), 1.0, TOL);
}
END_TEST

START_TEST(test_ddy_without_time_left_is_one)
{
	/* remainD <= 0: undefined, documented as 1 */
	ck_assert_double_eq_tol(libra_ddy(20, 0), 1.0, TOL);
	ck_assert_double_eq_tol(libra_ddy(20, -5), 1.0, TOL);
}
END_TEST

START_TEST(test_riskd_idle_node_accepts_at_static_price)
{
	/* idle: every DDY = 1, sigma 0, mu 1; price as Libra: 100.25 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_RISKD);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, 100.25, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_riskd_uniform_overload_is_refused_by_mean)
{
	/* A: RE 10, TD 10 (share 1); new B: RE 10, TD 10 (share 1).
	 * Weighted sharing 1:1: both finish at 20, DY = 10, remainD = 10,
	 * DDY = (10 + 10) / 10 = 2 for both: sigma = 0 (the thesis' test
	 * alone would pass) but mu = 2 > risk_mu 1 -> risk. */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_RISKD);
	libra_sla_t sla = _sla(10, 0, 10, NO_BUDGET);

	_commit(l, 1, 10, 10, 0, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_RISK);
	libra_ledger_destroy(l);
}
END_TEST

/*
 * A hand-projected overload on one CPU at now 0:
 *   A: remaining 10, TD 10 -> share 1;  B (new): RE 5, TD 5 -> share 1.
 *   Weighted sharing 1:1: each runs at 0.5; B completes its 5 at t = 10,
 *   A has done 5; A alone at rate 1 completes at t = 15.
 *   B: DY = 10 - 5 = 5,  remainD 5:  DDY = (5 + 5) / 5  = 2
 *   A: DY = 15 - 10 = 5, remainD 10: DDY = (5 + 10) / 10 = 1.5
 *   mu = 1.75; mean of squares (4 + 2.25) / 2 = 3.125;
 *   sigma = sqrt(3.125 - 1.75^2) = sqrt(0.0625) = 0.25   (Eq. 5.3/5.4)
 */
static void _riskd_case(double risk_sigma, double risk_mu,
			libra_verdict_t want)
{
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_RISKD);
	libra_sla_t sla = _sla(5, 0, 5, NO_BUDGET);

	p.risk_sigma = risk_sigma;
	p.risk_mu = risk_mu;
	_commit(l, 1, 10, 10, 0, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(want);
	libra_ledger_destroy(l);
}

START_TEST(test_riskd_accepts_within_sigma_and_mu_limits)
{
	/* sigma 0.25 <= 0.3, mu 1.75 <= 1.8 */
	_riskd_case(0.3, 1.8, LIBRA_ACCEPT);
}
END_TEST

START_TEST(test_riskd_refuses_when_sigma_too_high)
{
	/* sigma 0.25 > 0.2 */
	_riskd_case(0.2, 1.8, LIBRA_REJECT_RISK);
}
END_TEST

START_TEST(test_riskd_refuses_when_mean_too_high)
{
	/* mu 1.75 > 1.7 */
	_riskd_case(0.3, 1.7, LIBRA_REJECT_RISK);
}
END_TEST

START_TEST(test_riskd_takes_nodes_in_index_order)
{
	/* node 1 fuller (0.5), node 0 idle; new 0.1 fits both without risk:
	 * LibraRiskD has no best fit -> node 0 (Libra would take node 1) */
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t p = _params(LIBRA_POLICY_RISKD);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);

	_commit(l, 1, 50, 100, 1, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 0);
	p.policy = LIBRA_POLICY_LIBRA;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_int_eq(q.place[0].node, 1);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_riskd_skips_risky_node_for_safe_one)
{
	/* node 0 full (share 1 until 10), node 1 idle: new RE 5, TD 5 goes
	 * to node 1 */
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t p = _params(LIBRA_POLICY_RISKD);
	libra_sla_t sla = _sla(5, 0, 5, NO_BUDGET);

	_commit(l, 1, 10, 10, 0, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 1);
	libra_ledger_destroy(l);
}
END_TEST

/* ---------------------------------------------------------------- */
/* risk_thesis: Fig. 5.1 as written (decision 49)                      */
/* ---------------------------------------------------------------- */

START_TEST(test_riskd_thesis_admits_late_job_alone_on_a_node)
{
	/* RE 20, TD 10 (share 2): refused for its deadline by default; as
	 * written, alone on the idle node: one DDY, sigma 0 -> admitted,
	 * committed at share 1 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_RISKD);
	libra_sla_t sla = _sla(20, 0, 10, NO_BUDGET);
	const libra_entry_t *ent;

	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	p.risk_thesis = true;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 0);
	ck_assert_int_eq(libra_ledger_commit(l, 1, &sla, q.place, q.nplace,
					     0), 0);
	ck_assert_int_eq(libra_ledger_node_entries(l, 0, &ent), 1);
	ck_assert_double_eq_tol(ent[0].share, 1.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_riskd_thesis_late_job_skips_node_with_on_time_job)
{
	/* node 0: A RE 2, TD 10 (share 0.2); new RE 20, TD 10 beside it:
	 * both at their CPUs' rate 1 would need 22 s; weighted 0.2:1, A is
	 * on time (DDY 1), the new one late (DDY > 1): sigma > 0.  Node 1
	 * idle takes it */
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t p = _params(LIBRA_POLICY_RISKD);
	libra_sla_t sla = _sla(20, 0, 10, NO_BUDGET);

	p.risk_thesis = true;
	_commit(l, 1, 2, 10, 0, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 1);
	_commit(l, 2, 2, 10, 1, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_RISK);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_riskd_thesis_tests_sigma_alone)
{
	/* the uniform overload (A and new B: RE 10, TD 10): DDY 2 for both,
	 * sigma 0, mu 2: refused by the mean by default, admitted as
	 * written; the hand-projected case (sigma 0.25, mu 1.75): the
	 * deviation still refuses it, the mean no longer does */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_RISKD);
	libra_sla_t sla = _sla(10, 0, 10, NO_BUDGET);

	p.risk_thesis = true;
	_commit(l, 1, 10, 10, 0, 1, 0);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	sla = _sla(5, 0, 5, NO_BUDGET);
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_RISK);
	p.risk_sigma = 0.3;	/* mu 1.75 > risk_mu 1: not tested */
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_riskd_thesis_places_parallel_late_job_on_idle_nodes)
{
	/* 2 CPUs of RE 30, TD 10: node 0 busy (share 0.5), nodes 1 and 2
	 * idle take one CPU each */
	libra_ledger_t *l = _nodes(3, 1);
	libra_params_t p = _params(LIBRA_POLICY_RISKD);
	libra_sla_t sla = _sla(30, 0, 10, NO_BUDGET);

	p.risk_thesis = true;
	_commit(l, 1, 5, 10, 0, 1, 0);
	_admit(l, &p, &sla, 2, 0, 0, 0);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 2);
	ck_assert_int_eq(q.place[0].node, 1);
	ck_assert_int_eq(q.place[1].node, 2);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_riskd_thesis_leaves_other_policies_alone)
{
	/* risk_thesis is LibraRiskD's: Libra still refuses share 2 */
	libra_ledger_t *l = _nodes(1, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(20, 0, 10, NO_BUDGET);

	p.risk_thesis = true;
	_admit(l, &p, &sla, 1, 0, 0, 0);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	libra_ledger_destroy(l);
}
END_TEST

/* ---------------------------------------------------------------- */
/* LibraRiskD's admission, plainly, from the thesis (section 5.2,     */
/* Eq. 5.1-5.6, Fig. 5.1; Yeo & Buyya, ICPP 2006): the reference the  */
/* fast path (admit_riskd.c) is checked against                       */
/* ---------------------------------------------------------------- */

/*
 * lambda such that the running jobs' rates min(c_i, lambda w_i) fill the
 * capacity cap, found by bisection; when they cannot (all of their CPUs
 * are no more than cap) one at which every job runs at its CPUs.
 */
static double _ref_level(int n, const double *c, const double *w,
			 const bool *done, double cap)
{
	double all = 0.0, lo = 0.0, hi = 0.0;

	for (int i = 0; i < n; i++) {
		if (done[i])
			continue;
		all += c[i];
		hi = fmax(hi, c[i] / w[i]);
	}
	if (all <= cap)
		return hi;
	for (int it = 0; it < 200; it++) {
		double mid = 0.5 * (lo + hi), fill = 0.0;

		for (int i = 0; i < n; i++)
			if (!done[i])
				fill += fmin(c[i], mid * w[i]);
		if (fill > cap)
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/*
 * Fig. 5.1 line 4's DY_i needs each job's finish; the thesis does not say
 * how to project it (notes 4.3).  The model admit.h names: weighted
 * processor sharing, job i of c_i CPUs and weight w_i = c_i share_i
 * running at min(c_i, lambda w_i) (_ref_level()) until the next job ends,
 * then the rates found again.  work[] (CPU-seconds) is used up; finish[]
 * gets when each job ends.
 */
static void _ref_ps(int n, const double *c, const double *w, double *work,
		    double cap, double now, double *finish)
{
	bool done[REF_JOBS + 1];
	double t = now;
	int left = n;

	for (int i = 0; i < n; i++) {
		done[i] = !(work[i] > 0.0);
		finish[i] = now;
		left -= done[i];
	}
	while (left > 0) {
		double r[REF_JOBS + 1], dt = INFINITY;
		double lambda = _ref_level(n, c, w, done, cap);

		for (int i = 0; i < n; i++) {
			if (done[i])
				continue;
			r[i] = fmin(c[i], lambda * w[i]);
			dt = fmin(dt, work[i] / r[i]);
		}
		t += dt;
		for (int i = 0; i < n; i++) {
			if (done[i])
				continue;
			if (work[i] / r[i] <= dt * (1.0 + 1e-12)) {
				done[i] = true;
				finish[i] = t;
				left--;
			} else {
				work[i] -= r[i] * dt;
			}
		}
	}
}

/*
 * Fig. 5.1 lines 2-7 on node nd with k CPUs of the new job nj at now: each
 * job's finish projected (line 4, _ref_ps()), its DY_i (Eq. 5.1) and
 * DDY_i = (DY_i + remainD_i) / remainD_i (Eq. 5.2), their mean mu_j (Eq.
 * 5.3) and the risk sigma_j (Eq. 5.4, as the mean squared deviation from
 * mu_j: the same, without its cancellation).  Line 8's sigma_j = 0 read
 * as admit.h has it: sigma_j <= risk_sigma and mu_j <= risk_mu, each
 * within 1e-6.  *edge: sigma_j or mu_j within 5e-7 of its limit.
 */
static bool _ref_riskd_node(const libra_params_t *p,
			    const ref_sla_node_t *nd, const ref_job_t *nj,
			    int k, double now, bool *edge)
{
	ref_job_t list[REF_JOBS + 1];
	double c[REF_JOBS + 1], w[REF_JOBS + 1], work[REF_JOBS + 1];
	double tf[REF_JOBS + 1], ddy[REF_JOBS + 1], mu = 0.0, var = 0.0;
	double sigma_max = p->risk_sigma + 1e-6, mu_max = p->risk_mu + 1e-6;
	int n = 0;

	for (int i = 0; i < nd->njobs; i++)	/* best effort: no DY */
		if (!nd->job[i].best_effort)
			list[n++] = nd->job[i];
	list[n] = *nj;				/* line 2 */
	list[n++].cpus = k;
	for (int i = 0; i < n; i++) {
		c[i] = list[i].cpus;
		w[i] = c[i] * list[i].share;
		work[i] = c[i] * fmax(list[i].re - list[i].share *
				      (now - list[i].submit), 0.0);
	}
	if (p->risk_thesis)	/* the share the ledger commits (<= 1) */
		w[n - 1] = c[n - 1] * fmin(nj->share, 1.0);
	_ref_ps(n, c, w, work, p->capacity * nd->cpus, now, tf);
	for (int i = 0; i < n; i++) {		/* lines 3-5 */
		double remain = list[i].td - now;
		double dy = fmax(tf[i] - list[i].td, 0.0);

		ddy[i] = (dy + remain) / remain;
		mu += ddy[i] / n;
	}
	for (int i = 0; i < n; i++)		/* line 6 */
		var += (ddy[i] - mu) * (ddy[i] - mu) / n;
	if (fabs(sqrt(var) - sigma_max) <= 5e-7 ||
	    fabs(mu - mu_max) <= 5e-7)
		*edge = true;
	/* line 8; as written (risk_thesis), sigma_j alone */
	return sqrt(var) <= sigma_max && (p->risk_thesis || mu <= mu_max);
}

/*
 * LibraRiskD's admission (Fig. 5.1) of cpus CPUs of job nj on nodes[0..n)
 * at now, into take[] and *price.  The up nodes in index order (no best
 * fit), each with all its CPUs up to the job's if they pass, else one,
 * take the job (lines 12-15) until it is placed (the nodes after cannot
 * change that); too few: refused for the risk (line 17).  Priced as Libra,
 * C_i = PBase (gamma RE + delta RE / D) for each CPU; over the budget:
 * refused for it, at that price.
 */
static libra_verdict_t _ref_riskd(const ref_sla_node_t *nodes, int n,
				  const libra_params_t *p,
				  const ref_job_t *nj, int cpus, double now,
				  int *take, double *price, bool *edge)
{
	ref_job_t static_price;
	int need = cpus;
	libra_verdict_t v;

	memset(take, 0, (size_t) n * sizeof(*take));
	/* as written (risk_thesis), a share over 1 is tried too */
	if (_ref_refused_first(nodes, n, p, nj, cpus, &v) &&
	    !(p->risk_thesis && v == LIBRA_REJECT_DEADLINE))
		return v;
	for (int j = 0; j < n && need > 0; j++) {	/* lines 1-11 */
		int k = nodes[j].cpus < cpus ? nodes[j].cpus : cpus;

		if (!nodes[j].up)
			continue;
		if (!_ref_riskd_node(p, &nodes[j], nj, k, now, edge)) {
			if (k == 1 ||
			    !_ref_riskd_node(p, &nodes[j], nj, 1, now, edge))
				continue;
			k = 1;
		}
		take[j] = k < need ? k : need;
		need -= take[j];
	}
	if (need > 0) {					/* line 17 */
		memset(take, 0, (size_t) n * sizeof(*take));
		return LIBRA_REJECT_RISK;
	}
	static_price = *nj;	/* its bid without a budget */
	static_price.budget = NO_BUDGET;
	*price = cpus * _ref_bid(p, &static_price);
	if (nj->budget >= 0.0 &&
	    *price > nj->budget + p->tolerance * fmax(1.0, nj->budget))
		return LIBRA_REJECT_BUDGET;
	return LIBRA_ACCEPT;
}

/*
 * 2000 random ledgers and jobs, the fast path against the reference;
 * "thesis": with risk_thesis, a third of the new jobs longer than their
 * window (RE = D + 8).
 */
static void _riskd_random(uint64_t st, bool thesis)
{
	static const double sigmas[] = { 0.0, 0.05, 0.25, 1.0 };
	static const double mus[] = { 1.0, 1.1, 1.5, 3.0 };
	ref_tally_t t = { 0 };

	for (int trial = 0; trial < 2000; trial++) {
		int n = 1 + (int) (_unit(&st) * 6), take[64];
		int cpus = 1 + (int) (_unit(&st) * 4);
		ref_sla_node_t nodes[64];
		libra_ledger_t *l = libra_ledger_create(LIBRA_SHARE_MIN_DEFAULT);
		libra_params_t p = _params(LIBRA_POLICY_RISKD);
		double now = 1000.0, price = 0.0;
		bool near = false;
		ref_job_t nj;
		libra_sla_t sla;
		libra_verdict_t want;

		p.capacity = _unit(&st) < 0.5 ? 1.0 : 0.875;
		p.risk_sigma = sigmas[(int) (_unit(&st) * 4)];
		p.risk_mu = mus[(int) (_unit(&st) * 4)];
		p.risk_thesis = thesis;
		_random_sla_nodes(&st, l, nodes, n, now);
		_random_ref_job(&st, &nj, now, true);
		if (thesis && _unit(&st) < 1.0 / 3.0) {
			nj.re = nj.td - now + 8.0;
			nj.share = nj.re / (nj.td - now);
		}
		if (nj.budget >= 0.0)	/* for each CPU: fewer over it */
			nj.budget *= 1.5 * cpus;
		sla = _ref_sla_of(&nj);
		want = _ref_riskd(nodes, n, &p, &nj, cpus, now, take, &price,
				  &near);
		_admit(l, &p, &sla, cpus, 0, 0, now);
		libra_ledger_destroy(l);
		_ref_count(&t, trial, near, want, take, n, price);
	}
	_ref_report(thesis ? "librariskd (thesis)" : "librariskd", &t, 2000,
		    (libra_verdict_t[3]) { LIBRA_ACCEPT, LIBRA_REJECT_RISK,
					   LIBRA_REJECT_BUDGET });
}

START_TEST(test_riskd_matches_reference_on_random_ledgers)
{
	_riskd_random(0xda3e39cb94b95bdbULL, false);
}
END_TEST

START_TEST(test_riskd_thesis_matches_reference_on_random_ledgers)
{
	_riskd_random(0x5bd1e995c2b2ae35ULL, true);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("admit_riskd");
	TCase *tc = tcase_create("librariskd");

	T(tc, test_ddy_thesis_example_remain_five);
	T(tc, test_ddy_thesis_example_remain_ten);
	T(tc, test_ddy_without_delay_is_one);
	T(tc, test_ddy_without_time_left_is_one);
	T(tc, test_riskd_idle_node_accepts_at_static_price);
	T(tc, test_riskd_uniform_overload_is_refused_by_mean);
	T(tc, test_riskd_accepts_within_sigma_and_mu_limits);
	T(tc, test_riskd_refuses_when_sigma_too_high);
	T(tc, test_riskd_refuses_when_mean_too_high);
	T(tc, test_riskd_takes_nodes_in_index_order);
	T(tc, test_riskd_skips_risky_node_for_safe_one);
	T(tc, test_riskd_matches_reference_on_random_ledgers);
	T(tc, test_riskd_thesis_admits_late_job_alone_on_a_node);
	T(tc, test_riskd_thesis_late_job_skips_node_with_on_time_job);
	T(tc, test_riskd_thesis_tests_sigma_alone);
	T(tc, test_riskd_thesis_places_parallel_late_job_on_idle_nodes);
	T(tc, test_riskd_thesis_leaves_other_policies_alone);
	T(tc, test_riskd_thesis_matches_reference_on_random_ledgers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
