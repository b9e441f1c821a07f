/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_ledger.c - the per-node book of committed shares (ledger.h).
 *
 *  Invariant checked after every change: node share = sum over the node's
 *  entries of cpus * share.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hub.h"
#include "ledger.h"
#include "share.h"
#include "testutil.h"

#define SMIN LIBRA_SHARE_MIN_DEFAULT

static libra_sla_t _sla(double runtime, double submit, double deadline)
{
	libra_sla_t sla;

	memset(&sla, 0, sizeof(sla));
	sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE;
	sla.runtime = runtime;
	sla.submit = submit;
	sla.deadline = deadline;
	sla.type = LIBRA_DEADLINE_HARD;
	return sla;
}

/* node share == sum cpus * share of its entries */
static void _check_invariant(const libra_ledger_t *l)
{
	for (int n = 0; n < libra_ledger_node_count(l); n++) {
		const libra_entry_t *e;
		int k = libra_ledger_node_entries(l, n, &e);
		double sum = 0;
		uint64_t tmp = 0;

		for (int i = 0; i < k; i++) {
			ck_assert(e[i].share >= 0.0);
			ck_assert(e[i].share <= 1.0 + TOL);
			sum += e[i].cpus * e[i].share;
			tmp += e[i].tmp_mb;
		}
		ck_assert_double_eq_tol(libra_ledger_node_share(l, n), sum,
					1e-12);
		ck_assert_uint_eq(libra_ledger_node_tmp_used(l, n), tmp);
	}
}

static const libra_entry_t *_entry(const libra_ledger_t *l, int node,
				   uint32_t job)
{
	const libra_entry_t *e;
	int k = libra_ledger_node_entries(l, node, &e);

	for (int i = 0; i < k; i++)
		if (e[i].job_id == job)
			return &e[i];
	return NULL;
}

/* Two nodes: "a" with 4 CPUs (index 0), "b" with 2 CPUs (index 1). */
static libra_ledger_t *_two_nodes(void)
{
	libra_ledger_t *l = libra_ledger_create(SMIN);

	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(libra_ledger_add_node(l, "a", 4), 0);
	ck_assert_int_eq(libra_ledger_add_node(l, "b", 2), 1);
	return l;
}

static void _commit(libra_ledger_t *l, uint32_t job, double re, double td,
		    int node, int cpus, double now)
{
	libra_sla_t sla = _sla(re, now, td);
	libra_place_t pl = PLACE(node, cpus);

	ck_assert_int_eq(libra_ledger_commit(l, job, &sla, &pl, 1, now), 0);
}

/* ---------------------------------------------------------------- */

START_TEST(test_nodes_are_indexed_in_order)
{
	libra_ledger_t *l = _two_nodes();

	ck_assert_int_eq(libra_ledger_node_count(l), 2);
	ck_assert_int_eq(libra_ledger_find_node(l, "a"), 0);
	ck_assert_int_eq(libra_ledger_find_node(l, "b"), 1);
	ck_assert_int_eq(libra_ledger_find_node(l, "c"), -1);
	ck_assert_str_eq(libra_ledger_node_name(l, 1), "b");
	ck_assert_int_eq(libra_ledger_node_cpus(l, 0), 4);
	ck_assert_int_eq(libra_ledger_node_cpus(l, 1), 2);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_add_node_refuses_bad_cpus_and_duplicates)
{
	libra_ledger_t *l = _two_nodes();

	ck_assert_int_eq(libra_ledger_add_node(l, "c", 0), -1);
	ck_assert_int_eq(libra_ledger_add_node(l, "c", -2), -1);
	ck_assert_int_eq(libra_ledger_add_node(l, "a", 8), -1);
	ck_assert_int_eq(libra_ledger_node_count(l), 2);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_new_node_is_up_idle_and_without_beta)
{
	libra_ledger_t *l = _two_nodes();

	ck_assert(libra_ledger_node_up(l, 0));
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.0, TOL);
	ck_assert(isnan(libra_ledger_node_beta(l, 0)));
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_node_up_flag_and_beta_are_kept)
{
	libra_ledger_t *l = _two_nodes();

	libra_ledger_set_node_up(l, 1, false);
	ck_assert(!libra_ledger_node_up(l, 1));
	ck_assert(libra_ledger_node_up(l, 0));
	libra_ledger_set_node_up(l, 1, true);
	ck_assert(libra_ledger_node_up(l, 1));
	libra_ledger_set_node_beta(l, 0, 0.7);
	ck_assert_double_eq_tol(libra_ledger_node_beta(l, 0), 0.7, TOL);
	ck_assert(isnan(libra_ledger_node_beta(l, 1)));
	libra_ledger_destroy(l);
}
END_TEST

/* What a beta file's read reported (statefile.h). */
static char beta_reports[1024];

static void _beta_report(void *arg, const char *msg)
{
	(void) arg;
	strncat(beta_reports, msg, sizeof(beta_reports) -
		strlen(beta_reports) - 2);
	strcat(beta_reports, "\n");
}

START_TEST(test_betas_saved_read_back_by_node_name)
{
	libra_ledger_t *l = _two_nodes(), *back;
	uint64_t c = libra_ledger_betas_changes(l);
	char *text, bad[512];

	libra_ledger_set_node_beta(l, 1, 1.0 / 3.0);
	ck_assert_uint_gt(libra_ledger_betas_changes(l), c);
	c = libra_ledger_betas_changes(l);
	libra_ledger_set_node_beta(l, 1, 1.0 / 3.0);	/* the same: none */
	ck_assert_uint_eq(libra_ledger_betas_changes(l), c);
	text = libra_ledger_betas_format(l);
	/* node 0's beta was never set: not written */
	ck_assert_str_eq(text, "libra_beta 1\nbeta b 0.33333333333333331\n");

	/* a restarted slurmctld's ledger, its nodes in another order */
	back = libra_ledger_create(0.01);
	libra_ledger_add_node(back, "b", 2);
	libra_ledger_add_node(back, "a", 4);
	snprintf(bad, sizeof(bad), "%sbeta c 2\nbeta a -1\nbeta a\n", text);
	beta_reports[0] = '\0';
	ck_assert_int_eq(libra_ledger_betas_parse(back, bad, "b", _beta_report,
						  NULL), 1);
	ck_assert(libra_ledger_node_beta(back, 0) == 1.0 / 3.0);
	ck_assert(isnan(libra_ledger_node_beta(back, 1)));
	ck_assert_names(beta_reports, "b:3: node c is not in the configuration; line skipped");
	ck_assert_names(beta_reports, "b:4: node a: beta -1 is not");
	ck_assert_names(beta_reports, "b:5: not \"beta <node> <number>\"");
	free(text);
	libra_ledger_destroy(back);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_commit_share_is_runtime_over_time_left)
{
	/* RE 100, TD 400, now 0, 2 CPUs: share 0.25, node share 0.5 */
	libra_ledger_t *l = _two_nodes();
	const libra_entry_t *e;

	_commit(l, 1, 100, 400, 0, 2, 0);
	e = _entry(l, 0, 1);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->cpus, 2);
	ck_assert_double_eq_tol(e->share, 0.25, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.5, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 1), 0.0, TOL);
	ck_assert(libra_ledger_has_job(l, 1));
	ck_assert_int_eq(libra_ledger_job_count(l), 1);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_commit_later_than_submit_uses_time_left_from_now)
{
	/* TSU 0, TD 400, committed at now 200: 100 / (400-200) = 0.5 */
	libra_ledger_t *l = _two_nodes();
	libra_sla_t sla = _sla(100, 0, 400);
	libra_place_t pl = PLACE(1, 1);

	ck_assert_int_eq(libra_ledger_commit(l, 7, &sla, &pl, 1, 200), 0);
	ck_assert_double_eq_tol(_entry(l, 1, 7)->share, 0.5, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_commit_keeps_the_sla_in_the_entry)
{
	libra_ledger_t *l = _two_nodes();
	libra_sla_t sla = _sla(100, 10, 410);
	libra_place_t pl = PLACE(0, 1);
	const libra_entry_t *e;

	sla.set |= LIBRA_SLA_BUDGET | LIBRA_SLA_PENALTY | LIBRA_SLA_TYPE;
	sla.budget = 42;
	sla.penalty_rate = 2.5;
	sla.type = LIBRA_DEADLINE_SOFT;
	ck_assert_int_eq(libra_ledger_commit(l, 3, &sla, &pl, 1, 10), 0);
	e = _entry(l, 0, 3);
	ck_assert_double_eq_tol(e->runtime, 100, TOL);
	ck_assert_double_eq_tol(e->submit, 10, TOL);
	ck_assert_double_eq_tol(e->deadline, 410, TOL);
	ck_assert_double_eq_tol(e->budget, 42, TOL);
	ck_assert_double_eq_tol(e->penalty_rate, 2.5, TOL);
	ck_assert_int_eq(e->type, LIBRA_DEADLINE_SOFT);
	ck_assert_double_eq_tol(e->work, 100, TOL);
	ck_assert_double_eq_tol(e->since, 10, TOL);
	ck_assert(!e->best_effort);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_commit_without_budget_records_minus_one)
{
	/* ledger.h: budget is -1 without a budget (0 is a real budget) */
	libra_ledger_t *l = _two_nodes();

	_commit(l, 3, 100, 400, 0, 1, 0);
	ck_assert_double_eq_tol(_entry(l, 0, 3)->budget, -1.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_commit_with_zero_budget_records_zero)
{
	libra_ledger_t *l = _two_nodes();
	libra_sla_t sla = _sla(100, 0, 400);
	libra_place_t pl = PLACE(0, 1);

	sla.set |= LIBRA_SLA_BUDGET;
	sla.budget = 0.0;
	ck_assert_int_eq(libra_ledger_commit(l, 3, &sla, &pl, 1, 0), 0);
	ck_assert_double_eq_tol(_entry(l, 0, 3)->budget, 0.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_commit_on_several_nodes)
{
	/* 4 CPUs on a, 2 on b; share 0.5: a 2.0, b 1.0 */
	libra_ledger_t *l = _two_nodes();
	libra_sla_t sla = _sla(200, 0, 400);
	libra_place_t pl[2] = { PLACE(0, 4), PLACE(1, 2) };
	const libra_place_t *got;

	ck_assert_int_eq(libra_ledger_commit(l, 9, &sla, pl, 2, 0), 0);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 2.0, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 1), 1.0, TOL);
	ck_assert_int_eq(libra_ledger_job_places(l, 9, &got), 2);
	ck_assert_int_eq(got[0].node + got[1].node, 1);
	ck_assert_int_eq(got[0].cpus + got[1].cpus, 6);
	ck_assert_int_eq(libra_ledger_job_count(l), 1);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_commit_share_clamped_to_one)
{
	/* RE 1000, TD 100: 10 -> 1; 2 CPUs commit 2.0 */
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 1000, 100, 0, 2, 0);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, 1.0, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 2.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_commit_share_clamped_to_share_min)
{
	/* RE 1, TD 10000: 0.0001 -> 0.01 */
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 1, 10000, 1, 1, 0);
	ck_assert_double_eq_tol(_entry(l, 1, 1)->share, SMIN, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_duplicate_commit_is_refused)
{
	libra_ledger_t *l = _two_nodes();
	libra_sla_t sla = _sla(100, 0, 400);
	libra_place_t pl = PLACE(1, 1);

	_commit(l, 1, 100, 400, 0, 2, 0);
	ck_assert_int_eq(libra_ledger_commit(l, 1, &sla, &pl, 1, 0), -1);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.5, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 1), 0.0, TOL);
	ck_assert_int_eq(libra_ledger_job_count(l), 1);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_commit_on_bad_node_is_refused)
{
	libra_ledger_t *l = _two_nodes();
	libra_sla_t sla = _sla(100, 0, 400);
	libra_place_t bad[] = { PLACE(2, 1), PLACE(-1, 1), PLACE(0, 0),
				PLACE(0, -1), PLACE(1, 3) };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(libra_ledger_commit(l, 5, &sla, &bad[i], 1, 0)
			      == -1, "place {%d,%d} accepted", bad[i].node,
			      bad[i].cpus);
		ck_assert(!libra_ledger_has_job(l, 5));
	}
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.0, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 1), 0.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_commit_with_one_bad_place_commits_nothing)
{
	libra_ledger_t *l = _two_nodes();
	libra_sla_t sla = _sla(100, 0, 400);
	libra_place_t pl[2] = { PLACE(0, 2), PLACE(5, 1) };

	ck_assert_int_eq(libra_ledger_commit(l, 5, &sla, pl, 2, 0), -1);
	ck_assert(!libra_ledger_has_job(l, 5));
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.0, TOL);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_best_effort_commit_adds_no_share)
{
	libra_ledger_t *l = _two_nodes();
	libra_place_t pl = PLACE(0, 2);
	const libra_entry_t *e;

	ck_assert_int_eq(libra_ledger_commit(l, 4, NULL, &pl, 1, 0), 0);
	ck_assert(libra_ledger_has_job(l, 4));
	e = _entry(l, 0, 4);
	ck_assert_ptr_nonnull(e);
	ck_assert(e->best_effort);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.0, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 0, 1000),
				0.0, TOL);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_release_removes_the_share)
{
	/* 0.5 + 1 * 0.5 = 1.0; release job 1 -> 0.5 */
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 2, 0);
	_commit(l, 2, 300, 600, 0, 1, 0);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 1.0, TOL);
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	ck_assert(!libra_ledger_has_job(l, 1));
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.5, TOL);
	ck_assert_int_eq(libra_ledger_job_count(l), 1);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_release_of_absent_job_fails)
{
	libra_ledger_t *l = _two_nodes();

	ck_assert_int_eq(libra_ledger_release(l, 77), -1);
	_commit(l, 1, 100, 400, 0, 2, 0);
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	ck_assert_int_eq(libra_ledger_release(l, 1), -1);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_release_returns_node_share_to_exact_zero_sum)
{
	/* Many commits and releases with awkward shares: the node share is
	 * recomputed from the entries, so no rounding residue remains. */
	libra_ledger_t *l = _two_nodes();

	for (uint32_t j = 1; j <= 30; j++)
		_commit(l, j, 10.0 * j / 3.0, 1000.0 + 7 * j, 0, 1 + j % 4,
			0.1 * j);
	for (uint32_t j = 1; j <= 30; j += 2)
		ck_assert_int_eq(libra_ledger_release(l, j), 0);
	_check_invariant(l);
	for (uint32_t j = 2; j <= 30; j += 2)
		ck_assert_int_eq(libra_ledger_release(l, j), 0);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.0, 1e-15);
	ck_assert_int_eq(libra_ledger_job_count(l), 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_release_node_keeps_job_until_last_node)
{
	libra_ledger_t *l = _two_nodes();
	libra_sla_t sla = _sla(200, 0, 400);
	libra_place_t pl[2] = { PLACE(0, 2), PLACE(1, 1) };
	const libra_place_t *got;

	ck_assert_int_eq(libra_ledger_commit(l, 9, &sla, pl, 2, 0), 0);
	ck_assert_int_eq(libra_ledger_release_node(l, 9, 0), 0);
	ck_assert(libra_ledger_has_job(l, 9));
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.0, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 1), 0.5, TOL);
	ck_assert_int_eq(libra_ledger_job_places(l, 9, &got), 1);
	ck_assert_int_eq(got[0].node, 1);
	ck_assert_int_eq(libra_ledger_release_node(l, 9, 0), -1);
	ck_assert_int_eq(libra_ledger_release_node(l, 9, 1), 0);
	ck_assert(!libra_ledger_has_job(l, 9));
	ck_assert_int_eq(libra_ledger_job_places(l, 9, &got), 0);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_progress_recomputes_share)
{
	/* RE 100, TD 400, 2 CPUs.  By now 100 it did 50 per CPU:
	 * (100-50)/(400-100) = 1/6; node share 2/6. */
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 2, 0);
	ck_assert_int_eq(libra_ledger_progress(l, 1, 0, 50, 100), 0);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, 1.0 / 6.0, TOL);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->work, 50.0, TOL);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->since, 100.0, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 2.0 / 6.0,
				TOL);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_progress_on_all_nodes)
{
	/* node < 0: every node of the job; (200-50)/(400-100) = 0.5 */
	libra_ledger_t *l = _two_nodes();
	libra_sla_t sla = _sla(200, 0, 400);
	libra_place_t pl[2] = { PLACE(0, 2), PLACE(1, 1) };

	ck_assert_int_eq(libra_ledger_commit(l, 9, &sla, pl, 2, 0), 0);
	ck_assert_int_eq(libra_ledger_progress(l, 9, -1, 50, 100), 0);
	ck_assert_double_eq_tol(_entry(l, 0, 9)->share, 0.5, TOL);
	ck_assert_double_eq_tol(_entry(l, 1, 9)->share, 0.5, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 1.0, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 1), 0.5, TOL);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_progress_past_estimate_is_share_min)
{
	/* done 120 > RE 100 -> share_min; node share 2 * 0.01 */
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 2, 0);
	ck_assert_int_eq(libra_ledger_progress(l, 1, 0, 120, 200), 0);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, SMIN, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 2 * SMIN, TOL);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_progress_past_deadline_is_share_min)
{
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 1, 0);
	ck_assert_int_eq(libra_ledger_progress(l, 1, 0, 90, 450), 0);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, SMIN, TOL);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_progress_uses_current_share_min)
{
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 1, 0);
	libra_ledger_set_share_min(l, 0.05);
	ck_assert_int_eq(libra_ledger_progress(l, 1, 0, 100, 100), 0);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, 0.05, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_progress_of_absent_job_fails)
{
	libra_ledger_t *l = _two_nodes();

	ck_assert_int_eq(libra_ledger_progress(l, 3, -1, 10, 10), -1);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_expire_drops_jobs_at_deadline_to_share_min)
{
	/* job 1: TD 400 (share 0.25, 2 CPUs); job 2: TD 600 (share 0.5).
	 * expire at 399: nothing; at 400 ("at or before now") job 1 drops to
	 * share_min: node share 2 * 0.01 + 0.5 = 0.52. */
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 2, 0);
	_commit(l, 2, 300, 600, 0, 1, 0);
	libra_ledger_expire(l, 399);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 1.0, TOL);
	libra_ledger_expire(l, 400);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, SMIN, TOL);
	ck_assert_double_eq_tol(_entry(l, 0, 2)->share, 0.5, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0),
				2 * SMIN + 0.5, TOL);
	/* at its deadline it has done its estimate */
	ck_assert_double_eq_tol(libra_entry_work_at(_entry(l, 0, 1), 400),
				0.0, TOL);
	ck_assert(libra_ledger_has_job(l, 1));
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_expire_leaves_best_effort_jobs_alone)
{
	libra_ledger_t *l = _two_nodes();
	libra_place_t pl = PLACE(1, 1);

	ck_assert_int_eq(libra_ledger_commit(l, 4, NULL, &pl, 1, 0), 0);
	libra_ledger_expire(l, 1e9);
	ck_assert_double_eq_tol(_entry(l, 1, 4)->share, 0.0, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 1), 0.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_entry_work_falls_at_the_share)
{
	/* W(t) = W(since) - share * (t - since): 100 - 0.25 * 100 = 75 */
	libra_ledger_t *l = _two_nodes();
	const libra_entry_t *e;

	_commit(l, 1, 100, 400, 0, 1, 0);
	e = _entry(l, 0, 1);
	ck_assert_double_eq_tol(libra_entry_work_at(e, 0), 100.0, TOL);
	ck_assert_double_eq_tol(libra_entry_work_at(e, 100), 75.0, TOL);
	ck_assert_double_eq_tol(libra_entry_work_at(e, 400), 0.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_window_work_and_stamp_follow_every_change)
{
	/* the window work reads a mirror of the entries: it must follow a
	 * release (the last entry moved into the hole), a progress report
	 * and an expiry; the stamp changes with each */
	libra_ledger_t *l = libra_ledger_create(SMIN);
	libra_sla_t a = _sla(100, 0, 1000), b = _sla(50, 0, 500),
		    c = _sla(300, 0, 600);
	libra_place_t pl = { .node = 0, .cpus = 2 };
	uint64_t st;

	ck_assert_int_eq(libra_ledger_add_node(l, "n", 8), 0);
	st = libra_ledger_node_stamp(l, 0);
	ck_assert(st != 0);
	ck_assert_int_eq(libra_ledger_commit(l, 1, &a, &pl, 1, 0), 0);
	ck_assert_int_eq(libra_ledger_commit(l, 2, &b, &pl, 1, 0), 0);
	ck_assert_int_eq(libra_ledger_commit(l, 3, &c, &pl, 1, 0), 0);
	ck_assert(libra_ledger_node_stamp(l, 0) != st);
	/* 2 * (0.1 * 1000 + 0.1 * 500 + 0.5 * 600) */
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 0, 2000),
				900, 1e-9);
	st = libra_ledger_node_stamp(l, 0);
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	ck_assert(libra_ledger_node_stamp(l, 0) != st);
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 0, 2000),
				700, 1e-9);
	/* job 3 did 200 of 300 by 100: 100 left over 500 s, share 0.2 */
	st = libra_ledger_node_stamp(l, 0);
	ck_assert_int_eq(libra_ledger_progress(l, 3, 0, 200, 100), 0);
	ck_assert(libra_ledger_node_stamp(l, 0) != st);
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 100, 2000),
				2 * (0.1 * 400 + 0.2 * 500), 1e-9);
	/* past job 2's deadline it runs on at share_min */
	st = libra_ledger_node_stamp(l, 0);
	libra_ledger_expire(l, 550);
	ck_assert(libra_ledger_node_stamp(l, 0) != st);
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 550, 650),
				2 * (SMIN * 100 + 0.2 * 50), 1e-9);
	ck_assert_double_eq_tol(libra_ledger_node_peak_share(l, 0, 550, 560,
							     700),
				2 * (SMIN + 0.2), 1e-9);
	/* the memo is the caller's, kept until it is made again */
	libra_ledger_node_memo(l, 0)->ret = 42;
	ck_assert_double_eq(libra_ledger_node_memo(l, 0)->ret, 42);
	ck_assert_ptr_null(libra_ledger_node_memo(l, 1));
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_shape_follows_all_but_progress)
{
	/* the shape changes with a commit, a release or a re-key, never
	 * with a progress report (one job's, a node's) or an expiry */
	libra_ledger_t *l = libra_ledger_create(SMIN);
	libra_sla_t a = _sla(100, 0, 1000), b = _sla(50, 0, 500);
	libra_place_t pl = { .node = 0, .cpus = 1 };
	double done[2] = { 10, 20 };
	uint64_t sh;

	ck_assert_int_eq(libra_ledger_add_node(l, "n", 4), 0);
	sh = libra_ledger_node_shape(l, 0);
	ck_assert(sh != 0);
	ck_assert_int_eq(libra_ledger_commit(l, 1, &a, &pl, 1, 0), 0);
	ck_assert(libra_ledger_node_shape(l, 0) != sh);
	sh = libra_ledger_node_shape(l, 0);
	ck_assert_int_eq(libra_ledger_commit(l, 2, &b, &pl, 1, 0), 0);
	ck_assert(libra_ledger_node_shape(l, 0) != sh);
	sh = libra_ledger_node_shape(l, 0);
	ck_assert_int_eq(libra_ledger_progress(l, 1, 0, 5, 10), 0);
	ck_assert_int_eq(libra_ledger_progress_node(l, 0, done, 2, 20), 0);
	libra_ledger_expire(l, 600);
	ck_assert(libra_ledger_node_shape(l, 0) == sh);
	ck_assert_int_eq(libra_ledger_rekey(l, 2, 7), 0);
	ck_assert(libra_ledger_node_shape(l, 0) != sh);
	sh = libra_ledger_node_shape(l, 0);
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	ck_assert(libra_ledger_node_shape(l, 0) != sh);
	ck_assert(libra_ledger_node_shape(l, 1) == 0);	/* no such node */
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_window_work_inside_deadline)
{
	/* 2 CPUs, share 0.25, TD 400, window [0, 200]:
	 * 2 * 0.25 * (min(200, 400) - 0) = 100 */
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 2, 0);
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 0, 200),
				100.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_window_work_stops_at_job_deadline)
{
	/* window [0, 1000], TD 400: 2 * 0.25 * 400 = 200 = 2 * RE */
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 2, 0);
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 0, 1000),
				200.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_window_work_counts_only_remaining_work)
{
	/* Decision 2: at now 100 the window [100, 1000] holds
	 * 2 * 0.25 * (400 - 100) = 150, not the full 200. */
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 2, 0);
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 100,
							      1000),
				150.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_window_work_sums_jobs)
{
	/* job 1: 2 * 0.25 * (400 - 0) = 200 (TD 400 inside the window)
	 * job 2: 1 * 0.5 * (500 - 0) = 250 (TD 600 beyond it)
	 * window [0, 500]: 450 */
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 2, 0);
	_commit(l, 2, 300, 600, 0, 1, 0);
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 0, 500),
				450.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_window_work_of_late_job_is_at_share_min)
{
	/* A job past its deadline keeps share_min (ledger.h) and runs on:
	 * reported at now 500 > TD 400 with 90 of 100 done, it commits
	 * 2 * 0.01 * (900 - 500) = 8 inside [500, 900]. */
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 2, 0);
	ck_assert_int_eq(libra_ledger_progress(l, 1, 0, 90, 500), 0);
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 500, 900),
				2 * SMIN * 400, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_window_work_of_empty_window_is_zero)
{
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 2, 0);
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 200, 200),
				0.0, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 200, 100),
				0.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_thesis_work_is_sum_of_cpus_times_runtime)
{
	/* Eq. 3.6: 2 * 100 + 1 * 300 = 500, whatever the time */
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 2, 0);
	_commit(l, 2, 300, 600, 0, 1, 0);
	ck_assert_double_eq_tol(libra_ledger_node_thesis_work(l, 0), 500.0,
				TOL);
	ck_assert_double_eq_tol(libra_ledger_node_thesis_work(l, 1), 0.0,
				TOL);
	ck_assert_int_eq(libra_ledger_progress(l, 1, 0, 50, 100), 0);
	ck_assert_double_eq_tol(libra_ledger_node_thesis_work(l, 0), 500.0,
				TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_clear_jobs_keeps_nodes)
{
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 2, 0);
	_commit(l, 2, 300, 600, 1, 1, 0);
	libra_ledger_set_node_up(l, 1, false);
	libra_ledger_clear_jobs(l);
	ck_assert_int_eq(libra_ledger_job_count(l), 0);
	ck_assert(!libra_ledger_has_job(l, 1));
	ck_assert_int_eq(libra_ledger_node_count(l), 2);
	ck_assert_int_eq(libra_ledger_find_node(l, "b"), 1);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.0, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 1), 0.0, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_thesis_work(l, 0), 0.0, TOL);
	/* a cleared job id can be committed again */
	_commit(l, 1, 100, 400, 0, 2, 0);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.5, TOL);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_job_committed_is_commit_time)
{
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 2, 25);
	ck_assert_double_eq_tol(libra_ledger_job_committed(l, 1), 25.0, TOL);
	ck_assert(isnan(libra_ledger_job_committed(l, 2)));
	/* and keeps the SLA it was committed with (its deadline) */
	ck_assert_ptr_nonnull(libra_ledger_job_sla(l, 1));
	ck_assert_double_eq_tol(libra_ledger_job_sla(l, 1)->deadline, 400.0,
				TOL);
	ck_assert_ptr_null(libra_ledger_job_sla(l, 2));
	libra_ledger_release(l, 1);
	ck_assert_ptr_null(libra_ledger_job_sla(l, 1));
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_rekey_moves_job_to_new_id)
{
	/* a provisional token becomes the real job id: same places, share */
	libra_ledger_t *l = _two_nodes();
	libra_sla_t sla = _sla(200, 0, 400);
	libra_place_t pl[2] = { PLACE(0, 2), PLACE(1, 1) };
	const libra_place_t *got;

	ck_assert_int_eq(libra_ledger_commit(l, 0xF0000001u, &sla, pl, 2, 0),
			 0);
	ck_assert_int_eq(libra_ledger_rekey(l, 0xF0000001u, 42), 0);
	ck_assert(!libra_ledger_has_job(l, 0xF0000001u));
	ck_assert(libra_ledger_has_job(l, 42));
	ck_assert_int_eq(libra_ledger_job_places(l, 42, &got), 2);
	ck_assert_ptr_nonnull(_entry(l, 0, 42));
	ck_assert_ptr_nonnull(_entry(l, 1, 42));
	ck_assert_ptr_null(_entry(l, 0, 0xF0000001u));
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 1.0, TOL);
	ck_assert_double_eq_tol(libra_ledger_job_committed(l, 42), 0.0, TOL);
	ck_assert_int_eq(libra_ledger_release(l, 42), 0);
	ck_assert_int_eq(libra_ledger_job_count(l), 0);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_rekey_refuses_absent_or_taken_ids)
{
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 400, 0, 1, 0);
	_commit(l, 2, 100, 400, 1, 1, 0);
	ck_assert_int_eq(libra_ledger_rekey(l, 3, 4), -1);
	ck_assert_int_eq(libra_ledger_rekey(l, 1, 2), -1);
	ck_assert(libra_ledger_has_job(l, 1));
	ck_assert(libra_ledger_has_job(l, 2));
	ck_assert_ptr_nonnull(_entry(l, 0, 1));
	ck_assert_int_eq(libra_ledger_job_count(l), 2);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_jobs_lists_every_job_once)
{
	libra_ledger_t *l = _two_nodes();
	libra_sla_t sla = _sla(200, 0, 400);
	libra_place_t pl[2] = { PLACE(0, 2), PLACE(1, 1) };
	uint32_t ids[8], sum = 0;
	int n;

	_commit(l, 5, 100, 400, 0, 1, 0);
	_commit(l, 7, 100, 400, 1, 1, 0);
	ck_assert_int_eq(libra_ledger_commit(l, 11, &sla, pl, 2, 0), 0);
	n = libra_ledger_jobs(l, ids, 8);
	ck_assert_int_eq(n, 3);
	for (int i = 0; i < n; i++)
		sum += ids[i];
	ck_assert_uint_eq(sum, 5 + 7 + 11);
	/* a short array: still the count, only max copied */
	memset(ids, 0, sizeof(ids));
	ck_assert_int_eq(libra_ledger_jobs(l, ids, 1), 3);
	ck_assert(ids[0] == 5 || ids[0] == 7 || ids[0] == 11);
	ck_assert_uint_eq(ids[1], 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_many_jobs_and_nodes_keep_the_invariant)
{
	/* A pseudo-random walk of commits, progress and releases. */
	libra_ledger_t *l = libra_ledger_create(SMIN);
	unsigned seed = 12345;
	char name[16];

	for (int n = 0; n < 8; n++) {
		snprintf(name, sizeof(name), "n%d", n);
		ck_assert_int_eq(libra_ledger_add_node(l, name, 1 + n % 3), n);
	}
	for (int step = 0; step < 2000; step++) {
		uint32_t job = 1 + (seed = seed * 1103515245u + 12345u) % 50;
		double now = step;
		int op = (seed >> 8) % 3;

		if (op == 0 && !libra_ledger_has_job(l, job)) {
			int node = (seed >> 12) % 8;
			libra_sla_t sla = _sla(1 + (seed >> 4) % 500, now,
					       now + 100 + (seed >> 6) % 900);
			libra_place_t pl = PLACE(node, 1);

			ck_assert_int_eq(libra_ledger_commit(l, job, &sla, &pl,
							     1, now), 0);
		} else if (op == 1 && libra_ledger_has_job(l, job)) {
			ck_assert_int_eq(libra_ledger_progress(
				l, job, -1, (seed >> 5) % 300, now), 0);
		} else if (op == 2 && libra_ledger_has_job(l, job)) {
			ck_assert_int_eq(libra_ledger_release(l, job), 0);
		}
		_check_invariant(l);
	}
	libra_ledger_destroy(l);
}
END_TEST

/*
 * The window work as the entries give it, term by term in entry order
 * (ledger.h): what the ledger's compact mirror must give to the bit.
 */
static double _window_ref(const libra_ledger_t *l, int node, double now,
			  double t_end, double share_min)
{
	const libra_entry_t *e;
	int k = libra_ledger_node_entries(l, node, &e);
	double sum = 0.0;

	if (t_end <= now)
		return 0.0;
	for (int i = 0; i < k; i++) {
		double from = e[i].start > now ? e[i].start : now;
		double until = e[i].deadline > now && e[i].deadline < t_end ?
			       e[i].deadline : t_end;
		double share = e[i].share;

		if (e[i].deadline <= now && !e[i].best_effort)
			share = fmin(share, share_min);
		if (until > from)
			sum += e[i].cpus * share * (until - from);
	}
	return sum;
}

START_TEST(test_window_work_is_the_entries_sum_to_the_bit)
{
	/*
	 * A pseudo-random walk of every kind of change (commits with and
	 * without an SLA, bookings, progress of one job and of a node,
	 * releases, expiry, a new share_min): after each, every node's
	 * window work over a few windows equals the entries' sum exactly,
	 * with odd and even entry counts.
	 */
	libra_ledger_t *l = libra_ledger_create(SMIN);
	double share_min = SMIN, cpu_done[64];
	unsigned seed = 777;
	char name[16];

	for (int n = 0; n < 5; n++) {
		snprintf(name, sizeof(name), "n%d", n);
		ck_assert_int_eq(libra_ledger_add_node(l, name, 4 + n), n);
	}
	for (int step = 0; step < 3000; step++) {
		uint32_t job = 1 + (seed = seed * 1103515245u + 12345u) % 60;
		double now = step;
		int op = (seed >> 8) % 8, node = (seed >> 12) % 5;
		libra_sla_t sla = _sla(1 + (seed >> 4) % 500, now,
				       now + 50 + (seed >> 6) % 900);
		libra_place_t pl = PLACE(node, 1 + (seed >> 16) % 4);
		const libra_entry_t *e;

		if (op <= 1 && !libra_ledger_has_job(l, job)) {
			ck_assert_int_eq(libra_ledger_commit(
				l, job, op ? &sla : NULL, &pl, 1, now), 0);
		} else if (op == 2 && !libra_ledger_has_job(l, job)) {
			ck_assert_int_eq(libra_ledger_commit_booked(
				l, job, &sla, &pl, 1, now,
				now + (seed >> 3) % 40), 0);
		} else if (op == 3 && libra_ledger_has_job(l, job)) {
			ck_assert_int_eq(libra_ledger_progress(
				l, job, -1, (seed >> 5) % 300, now), 0);
		} else if (op == 4) {
			int k = libra_ledger_node_entries(l, node, &e);

			ck_assert_int_lt(k, 64);
			for (int i = 0; i < k; i++)
				cpu_done[i] = (seed >> (i % 9)) % 200;
			ck_assert_int_eq(libra_ledger_progress_node(
				l, node, cpu_done, k, now), 0);
		} else if (op == 5 && libra_ledger_has_job(l, job)) {
			ck_assert_int_eq(libra_ledger_release(l, job), 0);
		} else if (op == 6 && step % 50 == 0) {
			libra_ledger_expire(l, now);
		} else if (op == 7 && step % 100 == 0) {
			share_min = share_min == SMIN ? 0.05 : SMIN;
			libra_ledger_set_share_min(l, share_min);
		}
		for (int n = 0; n < 5; n++)
			for (int w = 0; w < 4; w++) {
				double t_end = now + (w ? 100 * w * w : -1);

				ck_assert(libra_ledger_node_window_work(
						  l, n, now, t_end) ==
					  _window_ref(l, n, now, t_end,
						      share_min));
			}
	}
	libra_ledger_destroy(l);
}
END_TEST

/* ------------------------------------------------ memory and GPUs */

/* Two nodes: n0 with 4 CPUs, 8000 MB and 2 GPUs; n1 with 4 CPUs and
 * neither memory tracked nor GPUs. */
static libra_ledger_t *_held_nodes(void)
{
	libra_ledger_t *l = libra_ledger_create(SMIN);

	ck_assert_int_eq(libra_ledger_add_node(l, "n0", 4), 0);
	ck_assert_int_eq(libra_ledger_add_node(l, "n1", 4), 1);
	ck_assert_int_eq(libra_ledger_set_node_resources(l, 0, 8000, 2), 0);
	return l;
}

static void _commit_held(libra_ledger_t *l, uint32_t job, int node,
			 int cpus, uint64_t mem_mb, int gpus, bool best_effort)
{
	libra_sla_t sla = _sla(100, 0, 1000);
	libra_place_t pl = { .node = node, .cpus = cpus, .mem_mb = mem_mb,
			     .gpus = gpus };

	ck_assert_int_eq(libra_ledger_commit(l, job, best_effort ? NULL : &sla,
					     &pl, 1, 0), 0);
}

START_TEST(test_new_node_tracks_no_memory_and_has_no_gpus)
{
	libra_ledger_t *l = libra_ledger_create(SMIN);

	ck_assert_int_eq(libra_ledger_add_node(l, "n0", 4), 0);
	ck_assert_uint_eq(libra_ledger_node_mem(l, 0), 0);
	ck_assert_int_eq(libra_ledger_node_gpus(l, 0), 0);
	ck_assert(libra_ledger_node_mem_free(l, 0) == LIBRA_MEM_UNTRACKED);
	ck_assert_int_eq(libra_ledger_node_gpus_free(l, 0), 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_set_node_resources_refuses_bad_node_and_gpus)
{
	libra_ledger_t *l = _held_nodes();

	ck_assert_int_eq(libra_ledger_set_node_resources(l, 2, 1, 1), -1);
	ck_assert_int_eq(libra_ledger_set_node_resources(l, -1, 1, 1), -1);
	ck_assert_int_eq(libra_ledger_set_node_resources(l, 0, 1, -1), -1);
	/* unchanged by the refusals */
	ck_assert_uint_eq(libra_ledger_node_mem(l, 0), 8000);
	ck_assert_int_eq(libra_ledger_node_gpus(l, 0), 2);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_commit_holds_memory_and_gpus_of_each_place)
{
	libra_ledger_t *l = _held_nodes();
	libra_sla_t sla = _sla(100, 0, 1000);
	libra_place_t pl[2] = {
		{ .node = 0, .cpus = 2, .mem_mb = 3000, .gpus = 1 },
		{ .node = 1, .cpus = 1, .mem_mb = 500 },
	};

	ck_assert_int_eq(libra_ledger_commit(l, 1, &sla, pl, 2, 0), 0);
	ck_assert_uint_eq(libra_ledger_node_mem_used(l, 0), 3000);
	ck_assert_uint_eq(libra_ledger_node_mem_free(l, 0), 5000);
	ck_assert_int_eq(libra_ledger_node_gpus_used(l, 0), 1);
	ck_assert_int_eq(libra_ledger_node_gpus_free(l, 0), 1);
	ck_assert_uint_eq(_entry(l, 0, 1)->mem_mb, 3000);
	ck_assert_int_eq(_entry(l, 0, 1)->gpus, 1);
	/* the ledger keeps what it is given, tracked or not: n1's memory is
	 * not tracked, so nothing limits it */
	ck_assert_uint_eq(libra_ledger_node_mem_used(l, 1), 500);
	ck_assert(libra_ledger_node_mem_free(l, 1) == LIBRA_MEM_UNTRACKED);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_release_frees_memory_and_gpus)
{
	libra_ledger_t *l = _held_nodes();

	_commit_held(l, 1, 0, 1, 3000, 1, false);
	_commit_held(l, 2, 0, 1, 2000, 1, false);
	ck_assert_uint_eq(libra_ledger_node_mem_free(l, 0), 3000);
	ck_assert_int_eq(libra_ledger_node_gpus_free(l, 0), 0);
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	ck_assert_uint_eq(libra_ledger_node_mem_free(l, 0), 6000);
	ck_assert_int_eq(libra_ledger_node_gpus_free(l, 0), 1);
	ck_assert_int_eq(libra_ledger_release_node(l, 2, 0), 0);
	ck_assert_uint_eq(libra_ledger_node_mem_used(l, 0), 0);
	ck_assert_int_eq(libra_ledger_node_gpus_used(l, 0), 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_best_effort_job_holds_memory_and_gpus)
{
	libra_ledger_t *l = _held_nodes();

	_commit_held(l, 1, 0, 2, 6000, 2, true);
	ck_assert_double_eq(libra_ledger_node_share(l, 0), 0.0);
	ck_assert_uint_eq(libra_ledger_node_mem_free(l, 0), 2000);
	ck_assert_int_eq(libra_ledger_node_gpus_free(l, 0), 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_free_is_never_below_zero)
{
	/* a record restored after the node shrank holds more than it has */
	libra_ledger_t *l = _held_nodes();

	_commit_held(l, 1, 0, 1, 6000, 2, false);
	ck_assert_int_eq(libra_ledger_set_node_resources(l, 0, 4000, 1), 0);
	ck_assert_uint_eq(libra_ledger_node_mem_used(l, 0), 6000);
	ck_assert_uint_eq(libra_ledger_node_mem_free(l, 0), 0);
	ck_assert_int_eq(libra_ledger_node_gpus_free(l, 0), 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_commit_refuses_negative_gpus)
{
	libra_ledger_t *l = _held_nodes();
	libra_sla_t sla = _sla(100, 0, 1000);
	libra_place_t pl = { .node = 0, .cpus = 1, .gpus = -1 };

	ck_assert_int_eq(libra_ledger_commit(l, 1, &sla, &pl, 1, 0), -1);
	ck_assert(!libra_ledger_has_job(l, 1));
	ck_assert_int_eq(libra_ledger_node_gpus_used(l, 0), 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_clear_jobs_frees_memory_and_gpus_keeps_sizes)
{
	libra_ledger_t *l = _held_nodes();

	_commit_held(l, 1, 0, 1, 3000, 2, false);
	libra_ledger_clear_jobs(l);
	ck_assert_uint_eq(libra_ledger_node_mem_free(l, 0), 8000);
	ck_assert_int_eq(libra_ledger_node_gpus_free(l, 0), 2);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_held_window_until_deadline_or_whole_window)
{
	/* job 1 (SLA, TD 1000) holds 1000 MB and 1 GPU until 1000; job 2
	 * (best effort) 500 MB through the whole window [0, 3000] */
	libra_ledger_t *l = _held_nodes();
	double mem, gpu, tmp;

	_commit_held(l, 1, 0, 1, 1000, 1, false);
	_commit_held(l, 2, 0, 1, 500, 0, true);
	libra_ledger_node_held_window(l, 0, 0, 3000, &mem, &gpu, &tmp);
	ck_assert_double_eq_tol(mem, 1000.0 * 1000 + 500.0 * 3000, TOL);
	ck_assert_double_eq_tol(gpu, 1000.0, TOL);
	/* a window ending before the deadline: all of it */
	libra_ledger_node_held_window(l, 0, 0, 400, &mem, &gpu, &tmp);
	ck_assert_double_eq_tol(mem, 1500.0 * 400, TOL);
	ck_assert_double_eq_tol(gpu, 400.0, TOL);
	/* past job 1's deadline it holds on, until it ends */
	libra_ledger_node_held_window(l, 0, 2000, 3000, &mem, &gpu, &tmp);
	ck_assert_double_eq_tol(mem, 1500.0 * 1000, TOL);
	libra_ledger_node_held_window(l, 0, 10, 10, &mem, &gpu, &tmp);
	ck_assert_double_eq(mem, 0.0);
	ck_assert_double_eq(gpu, 0.0);
	ck_assert_double_eq(tmp, 0.0);
	libra_ledger_destroy(l);
}
END_TEST

/* ---- scratch disk (--tmp, a node's TmpDisk) ---------------------------- */

/* Job "job" holds tmp_mb of scratch disk on one CPU of node (RE 100, TD
 * 1000, or best effort). */
static void _commit_tmp(libra_ledger_t *l, uint32_t job, int node,
			uint64_t tmp_mb, bool best_effort)
{
	libra_sla_t sla = _sla(100, 0, 1000);
	libra_place_t pl = { .node = node, .cpus = 1, .tmp_mb = tmp_mb };

	ck_assert_int_eq(libra_ledger_commit(l, job, best_effort ? NULL : &sla,
					     &pl, 1, 0), 0);
}

START_TEST(test_new_node_tracks_no_tmp)
{
	libra_ledger_t *l = _held_nodes();

	ck_assert_uint_eq(libra_ledger_node_tmp(l, 0), 0);
	ck_assert_uint_eq(libra_ledger_node_tmp_used(l, 0), 0);
	ck_assert(libra_ledger_node_tmp_free(l, 0) == LIBRA_MEM_UNTRACKED);
	/* set, and set again (a reconfigured node) */
	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 0, 20000), 0);
	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 0, 10000), 0);
	ck_assert_uint_eq(libra_ledger_node_tmp(l, 0), 10000);
	ck_assert_uint_eq(libra_ledger_node_tmp_free(l, 0), 10000);
	/* bad nodes: refused, and nothing read */
	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 2, 1), -1);
	ck_assert_int_eq(libra_ledger_set_node_tmp(l, -1, 1), -1);
	ck_assert_uint_eq(libra_ledger_node_tmp(l, 2), 0);
	ck_assert_uint_eq(libra_ledger_node_tmp_used(l, -1), 0);
	ck_assert_uint_eq(libra_ledger_node_tmp_free(l, 2), 0);
	/* the memory and GPUs are another matter */
	ck_assert_uint_eq(libra_ledger_node_mem(l, 0), 8000);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_tmp_held_from_commit_to_release)
{
	/* n0 has 10000 MB of TmpDisk, n1 none tracked.  Job 1 holds 3000 MB
	 * on n0 and 500 on n1, best-effort job 2 4000 MB on n0 */
	libra_ledger_t *l = _held_nodes();
	libra_sla_t sla = _sla(100, 0, 1000);
	libra_place_t pl[2] = {
		{ .node = 0, .cpus = 2, .mem_mb = 1000, .tmp_mb = 3000 },
		{ .node = 1, .cpus = 1, .tmp_mb = 500 },
	};

	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 0, 10000), 0);
	ck_assert_int_eq(libra_ledger_commit(l, 1, &sla, pl, 2, 0), 0);
	_commit_tmp(l, 2, 0, 4000, true);
	ck_assert_uint_eq(_entry(l, 0, 1)->tmp_mb, 3000);
	ck_assert_uint_eq(libra_ledger_node_tmp_used(l, 0), 7000);
	ck_assert_uint_eq(libra_ledger_node_tmp_free(l, 0), 3000);
	/* kept, tracked or not: n1's is not tracked, so nothing limits */
	ck_assert_uint_eq(libra_ledger_node_tmp_used(l, 1), 500);
	ck_assert(libra_ledger_node_tmp_free(l, 1) == LIBRA_MEM_UNTRACKED);
	/* memory is counted apart */
	ck_assert_uint_eq(libra_ledger_node_mem_used(l, 0), 1000);
	_check_invariant(l);
	/* job 1's part on n1 ends; then job 1; then job 2 */
	ck_assert_int_eq(libra_ledger_release_node(l, 1, 1), 0);
	ck_assert_uint_eq(libra_ledger_node_tmp_used(l, 1), 0);
	ck_assert_uint_eq(libra_ledger_node_tmp_used(l, 0), 7000);
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	ck_assert_uint_eq(libra_ledger_node_tmp_free(l, 0), 6000);
	ck_assert_int_eq(libra_ledger_release(l, 2), 0);
	ck_assert_uint_eq(libra_ledger_node_tmp_used(l, 0), 0);
	ck_assert_uint_eq(libra_ledger_node_tmp_free(l, 0), 10000);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_tmp_kept_by_rekey_and_recommit)
{
	libra_ledger_t *l = _held_nodes();
	libra_sla_t plan = _sla(300, 0, 1000);
	const libra_place_t *got;

	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 0, 10000), 0);
	_commit_tmp(l, 1, 0, 2500, false);
	_commit_tmp(l, 2, 0, 1000, false);
	ck_assert_int_eq(libra_ledger_rekey(l, 1, 7), 0);
	ck_assert_uint_eq(libra_ledger_node_tmp_used(l, 0), 3500);
	ck_assert_uint_eq(_entry(l, 0, 7)->tmp_mb, 2500);
	/* a re-planning commits it again on the same places, disk too */
	ck_assert_int_eq(libra_ledger_recommit(l, 7, &plan, 100, 200), 0);
	ck_assert_int_eq(libra_ledger_job_places(l, 7, &got), 1);
	ck_assert_uint_eq(got[0].tmp_mb, 2500);
	ck_assert_uint_eq(_entry(l, 0, 7)->tmp_mb, 2500);
	ck_assert_uint_eq(libra_ledger_node_tmp_used(l, 0), 3500);
	_check_invariant(l);
	ck_assert_int_eq(libra_ledger_release(l, 7), 0);
	ck_assert_uint_eq(libra_ledger_node_tmp_used(l, 0), 1000);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_clear_jobs_frees_tmp_keeps_sizes)
{
	libra_ledger_t *l = _held_nodes();

	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 0, 10000), 0);
	_commit_tmp(l, 1, 0, 6000, false);
	_commit_tmp(l, 2, 0, 6000, true);
	/* more held than the node has (a record restored after it shrank):
	 * kept, and nothing free, never below 0 */
	ck_assert_uint_eq(libra_ledger_node_tmp_used(l, 0), 12000);
	ck_assert_uint_eq(libra_ledger_node_tmp_free(l, 0), 0);
	libra_ledger_clear_jobs(l);
	ck_assert_uint_eq(libra_ledger_node_tmp_used(l, 0), 0);
	ck_assert_uint_eq(libra_ledger_node_tmp_free(l, 0), 10000);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_held_window_counts_tmp)
{
	/* job 1 (SLA, TD 1000) holds 2000 MB of disk until 1000, best-effort
	 * job 2 300 MB through the whole window [0, 3000] */
	libra_ledger_t *l = _held_nodes();
	double mem, gpu, tmp;

	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 0, 10000), 0);
	_commit_tmp(l, 1, 0, 2000, false);
	_commit_tmp(l, 2, 0, 300, true);
	libra_ledger_node_held_window(l, 0, 0, 3000, &mem, &gpu, &tmp);
	ck_assert_double_eq_tol(tmp, 2000.0 * 1000 + 300.0 * 3000, TOL);
	ck_assert_double_eq(mem, 0.0);
	ck_assert_double_eq(gpu, 0.0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_rekey_keeps_what_is_held)
{
	libra_ledger_t *l = _held_nodes();

	_commit_held(l, 1, 0, 1, 3000, 1, false);
	ck_assert_int_eq(libra_ledger_rekey(l, 1, 7), 0);
	ck_assert_uint_eq(libra_ledger_node_mem_used(l, 0), 3000);
	ck_assert_int_eq(libra_ledger_release(l, 7), 0);
	ck_assert_uint_eq(libra_ledger_node_mem_used(l, 0), 0);
	ck_assert_int_eq(libra_ledger_node_gpus_used(l, 0), 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_recommit_keeps_places_and_records_progress)
{
	/* job 1, RE 100 by 1000 at 0, on n0 (2 CPUs, 3000 MB, a GPU) and
	 * n1 (1 CPU, 500 MB); job 2 beside it on n0.  Re-planned at 200 to
	 * RE 300 with 100 done: (300-100)/(1000-200) = 0.25 on both nodes,
	 * n0's share 2 * 0.25 + job 2's 0.1 */
	libra_ledger_t *l = _held_nodes();
	libra_sla_t sla = _sla(100, 0, 1000), plan = _sla(300, 0, 1000);
	libra_place_t pl[2] = {
		{ .node = 0, .cpus = 2, .mem_mb = 3000, .gpus = 1 },
		{ .node = 1, .cpus = 1, .mem_mb = 500 },
	};
	const libra_place_t *got;

	ck_assert_int_eq(libra_ledger_commit(l, 1, &sla, pl, 2, 0), 0);
	_commit_held(l, 2, 0, 1, 1000, 0, false);
	ck_assert_int_eq(libra_ledger_recommit(l, 1, &plan, 100, 200), 0);
	ck_assert_int_eq(libra_ledger_job_count(l), 2);
	ck_assert_int_eq(libra_ledger_job_places(l, 1, &got), 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(got[i].node, pl[i].node);
		ck_assert_int_eq(got[i].cpus, pl[i].cpus);
		ck_assert_uint_eq(got[i].mem_mb, pl[i].mem_mb);
		ck_assert_int_eq(got[i].gpus, pl[i].gpus);
	}
	ck_assert_uint_eq(libra_ledger_node_mem_used(l, 0), 4000);
	ck_assert_int_eq(libra_ledger_node_gpus_used(l, 0), 1);
	ck_assert_uint_eq(libra_ledger_node_mem_used(l, 1), 500);
	ck_assert_double_eq_tol(libra_ledger_job_sla(l, 1)->runtime, 300,
				TOL);
	ck_assert_double_eq_tol(libra_ledger_job_committed(l, 1), 200, TOL);
	for (int n = 0; n < 2; n++) {
		const libra_entry_t *e = _entry(l, n, 1);

		ck_assert_ptr_nonnull(e);
		ck_assert_double_eq_tol(e->runtime, 300, TOL);
		ck_assert_double_eq_tol(e->work, 200, TOL);
		ck_assert_double_eq_tol(e->since, 200, TOL);
		ck_assert_double_eq_tol(e->share, 0.25, TOL);
	}
	ck_assert_double_eq_tol(_entry(l, 0, 2)->share, 0.1, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.6, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 1), 0.25, TOL);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_recommit_on_many_nodes)
{
	/* more places than a fixed buffer of 64 would take */
	enum { N = 100 };
	libra_ledger_t *l = libra_ledger_create(SMIN);
	libra_sla_t sla = _sla(100, 0, 1000), plan = _sla(300, 0, 1000);
	libra_place_t pl[N];
	const libra_place_t *got;
	char name[16];

	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		ck_assert_int_eq(libra_ledger_add_node(l, name, 2), i);
		pl[i] = (libra_place_t) PLACE(i, 1 + i % 2);
	}
	ck_assert_int_eq(libra_ledger_commit(l, 7, &sla, pl, N, 0), 0);
	ck_assert_int_eq(libra_ledger_recommit(l, 7, &plan, 100, 200), 0);
	ck_assert_int_eq(libra_ledger_job_places(l, 7, &got), N);
	for (int i = 0; i < N; i++) {
		ck_assert_int_eq(got[i].node, i);
		ck_assert_int_eq(got[i].cpus, 1 + i % 2);
		ck_assert_double_eq_tol(_entry(l, i, 7)->share, 0.25, TOL);
	}
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_recommit_of_absent_job_fails)
{
	/* -1, and nothing changes: job 1 as it was, no job 3 */
	libra_ledger_t *l = _two_nodes();
	libra_sla_t plan = _sla(300, 0, 1000);
	uint64_t stamp;

	_commit(l, 1, 100, 400, 0, 2, 0);
	stamp = libra_ledger_node_stamp(l, 0);
	ck_assert_int_eq(libra_ledger_recommit(l, 3, &plan, 10, 100), -1);
	ck_assert(!libra_ledger_has_job(l, 3));
	ck_assert_int_eq(libra_ledger_job_count(l), 1);
	ck_assert(libra_ledger_node_stamp(l, 0) == stamp);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, 0.25, TOL);
	ck_assert_double_eq_tol(libra_ledger_job_sla(l, 1)->runtime, 100,
				TOL);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST


/* ------------------------------------------ advance reservations (21) */

static void _book(libra_ledger_t *l, uint32_t job, double re, double begin,
		  double td, int node, int cpus, double now)
{
	libra_sla_t sla = _sla(re, now, td);
	libra_place_t pl = PLACE(node, cpus);

	ck_assert_int_eq(libra_ledger_commit_booked(l, job, &sla, &pl, 1, now,
						    begin), 0);
}

START_TEST(test_booked_share_is_runtime_over_window_from_begin)
{
	libra_ledger_t *l = _two_nodes();

	/* RE 100 between begin 600 and TD 1000: share 0.25 */
	_book(l, 1, 100, 600, 1000, 1, 2, 0);
	ck_assert_double_eq_tol(_entry(l, 1, 1)->share, 0.25, TOL);
	ck_assert_double_eq_tol(_entry(l, 1, 1)->start, 600, TOL);
	ck_assert_int_eq(libra_ledger_node_booked(l, 1, 0), 1);
	ck_assert_int_eq(libra_ledger_node_booked(l, 1, 600), 0);
	ck_assert_double_eq_tol(libra_ledger_job_committed(l, 1), 0, TOL);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_booked_job_does_no_work_before_begin)
{
	libra_ledger_t *l = _two_nodes();
	const libra_entry_t *e;

	_book(l, 1, 100, 600, 1000, 0, 1, 0);
	e = _entry(l, 0, 1);
	ck_assert_double_eq_tol(libra_entry_work_at(e, 300), 100, TOL);
	ck_assert_double_eq_tol(libra_entry_work_at(e, 800), 50, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_booking_at_or_before_now_is_a_plain_commit)
{
	libra_ledger_t *l = _two_nodes();

	_book(l, 1, 100, 0, 1000, 0, 1, 0);
	ck_assert(isinf(_entry(l, 0, 1)->start));
	ck_assert_int_eq(libra_ledger_node_booked(l, 0, -1e9), 0);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, 0.1, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_peak_without_booking_is_node_share)
{
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 200, 0, 2, 0);	/* 2 x 0.5 until 200 */
	_commit(l, 2, 100, 1000, 0, 1, 0);	/* 0.1 */
	ck_assert_double_eq_tol(libra_ledger_node_peak_share(l, 0, 0, 0, 5000),
				libra_ledger_node_share(l, 0), 1e-12);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_peak_counts_booking_only_where_windows_overlap)
{
	libra_ledger_t *l = _two_nodes();

	_book(l, 1, 200, 600, 1000, 0, 4, 0);	/* 4 x 0.5 on [600, 1000) */
	_commit(l, 2, 100, 200, 0, 1, 0);	/* 0.5 until 200 */
	/* a job ending by 600 sees only job 2 */
	ck_assert_double_eq_tol(libra_ledger_node_peak_share(l, 0, 0, 0, 600),
				0.5, TOL);
	/* one running into it sees the booking, and job 2's tail */
	ck_assert_double_eq_tol(libra_ledger_node_peak_share(l, 0, 0, 0, 700),
				2.0 + SMIN, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_peak_for_a_later_window_leaves_ended_jobs_their_tail)
{
	libra_ledger_t *l = _two_nodes();

	_commit(l, 1, 100, 200, 0, 2, 0);	/* 2 x 0.5 until 200 */
	/* seen at 0, the window [600, 1000): job 1 overran at most */
	ck_assert_double_eq_tol(
		libra_ledger_node_peak_share(l, 0, 0, 600, 1000), 2 * SMIN,
		TOL);
	/* a job past its target now keeps its share: its end is unknown */
	ck_assert_double_eq_tol(
		libra_ledger_node_peak_share(l, 0, 300, 600, 1000), 1.0, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_window_work_of_booking_starts_at_begin)
{
	libra_ledger_t *l = _two_nodes();

	_book(l, 1, 100, 600, 1000, 0, 1, 0);	/* 0.25 on [600, 1000) */
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 0, 500),
				0, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 0, 800),
				50, TOL);
	ck_assert_double_eq_tol(libra_ledger_node_window_work(l, 0, 0, 5000),
				100, TOL);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_release_of_booking_clears_the_count)
{
	libra_ledger_t *l = _two_nodes();

	_book(l, 1, 100, 600, 1000, 0, 1, 0);
	_commit(l, 2, 100, 1000, 0, 1, 0);
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	ck_assert_int_eq(libra_ledger_node_booked(l, 0, 0), 0);
	ck_assert_double_eq_tol(libra_ledger_node_peak_share(l, 0, 0, 0, 900),
				0.1, TOL);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

/* sched/libra skips its search for tokens when none was in the ledger and
 * none has been given out since: the count must move with every token. */
START_TEST(test_tokens_issued_counts_every_token)
{
	uint32_t before, a, b;

	libra_hub_lock();
	before = libra_hub_tokens_issued();
	a = libra_hub_next_token();
	b = libra_hub_next_token();
	ck_assert(libra_is_token(a) && libra_is_token(b) && a != b);
	ck_assert_uint_eq(libra_hub_tokens_issued(), before + 2);
	libra_hub_unlock();
}
END_TEST

/* The hub's getters are valid under its lock only, and assert it: the
 * lock is this thread's from libra_hub_lock() to libra_hub_unlock(). */
START_TEST(test_hub_held_by_this_thread)
{
	ck_assert(!libra_hub_held());
	libra_hub_lock();
	ck_assert(libra_hub_held());
	libra_hub_unlock();
	ck_assert(!libra_hub_held());
}
END_TEST

/* Decision 28: a slurmctld taking control keeps nothing of the hub's
 * ledger, quotes, predictor or sync from an earlier time in control. */
START_TEST(test_hub_reset_drops_what_an_earlier_control_knew)
{
	libra_held_quote_t q = { .uid = 1000, .until = 2e9 };
	libra_ledger_t *old;

	ck_assert_int_eq(libra_hub_init(), 0);
	libra_hub_lock();
	old = _two_nodes();
	libra_hub_set_ledger(old);
	_commit(old, 7, 100, 1000, 0, 1, 0);
	ck_assert_uint_ne(libra_quotes_add(libra_hub_quotes(), &q), 0);
	libra_hub_set_predictor(libra_predictor_create(LIBRA_PREDICT_RATIO, 1));
	libra_hub_set_synced(true);

	ck_assert_int_eq(libra_hub_reset(), 0);
	ck_assert_ptr_ne(libra_hub_ledger(), old);
	ck_assert_int_eq(libra_ledger_job_count(libra_hub_ledger()), 0);
	ck_assert_int_eq(libra_quotes_count(libra_hub_quotes()), 0);
	ck_assert_ptr_null(libra_hub_predictor());
	ck_assert(!libra_hub_synced());
	libra_hub_unlock();
	libra_hub_fini();
}
END_TEST

START_TEST(test_progress_before_begin_keeps_the_booked_share)
{
	libra_ledger_t *l = _two_nodes();
	double done[1] = { 0.0 };

	_book(l, 1, 100, 600, 1000, 0, 1, 0);	/* 0.25 */
	ck_assert_int_eq(libra_ledger_progress(l, 1, -1, 0, 300), 0);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, 0.25, TOL);
	ck_assert_int_eq(libra_ledger_progress_node(l, 0, done, 1, 300), 0);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, 0.25, TOL);
	/* after its begin, reports count as for any job */
	ck_assert_int_eq(libra_ledger_progress(l, 1, -1, 50, 800), 0);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, 0.25, TOL);
	ck_assert_int_eq(libra_ledger_progress(l, 1, -1, 80, 800), 0);
	ck_assert_double_eq_tol(_entry(l, 0, 1)->share, 0.1, TOL);
	_check_invariant(l);
	libra_ledger_destroy(l);
}
END_TEST

/* The nodes, betas, commits, releases and progress */
static void _add_ledger_cases(Suite *s)
{
	TCase *tc;

	tc = tcase_create("nodes");
	T(tc, test_nodes_are_indexed_in_order);
	T(tc, test_add_node_refuses_bad_cpus_and_duplicates);
	T(tc, test_new_node_is_up_idle_and_without_beta);
	T(tc, test_node_up_flag_and_beta_are_kept);
	suite_add_tcase(s, tc);

	tc = tcase_create("betas");
	T(tc, test_betas_saved_read_back_by_node_name);
	suite_add_tcase(s, tc);

	tc = tcase_create("commit");
	T(tc, test_commit_share_is_runtime_over_time_left);
	T(tc, test_commit_later_than_submit_uses_time_left_from_now);
	T(tc, test_commit_keeps_the_sla_in_the_entry);
	T(tc, test_commit_without_budget_records_minus_one);
	T(tc, test_commit_with_zero_budget_records_zero);
	T(tc, test_commit_on_several_nodes);
	T(tc, test_commit_share_clamped_to_one);
	T(tc, test_commit_share_clamped_to_share_min);
	T(tc, test_duplicate_commit_is_refused);
	T(tc, test_commit_on_bad_node_is_refused);
	T(tc, test_commit_with_one_bad_place_commits_nothing);
	T(tc, test_best_effort_commit_adds_no_share);
	suite_add_tcase(s, tc);

	tc = tcase_create("release");
	T(tc, test_release_removes_the_share);
	T(tc, test_release_of_absent_job_fails);
	T(tc, test_release_returns_node_share_to_exact_zero_sum);
	T(tc, test_release_node_keeps_job_until_last_node);
	T(tc, test_clear_jobs_keeps_nodes);
	suite_add_tcase(s, tc);

	tc = tcase_create("progress");
	T(tc, test_progress_recomputes_share);
	T(tc, test_progress_on_all_nodes);
	T(tc, test_progress_past_estimate_is_share_min);
	T(tc, test_progress_past_deadline_is_share_min);
	T(tc, test_progress_uses_current_share_min);
	T(tc, test_progress_of_absent_job_fails);
	T(tc, test_expire_drops_jobs_at_deadline_to_share_min);
	T(tc, test_expire_leaves_best_effort_jobs_alone);
	T(tc, test_entry_work_falls_at_the_share);
	suite_add_tcase(s, tc);
}

/* Work, ids, held resources, bookings, the invariant */
static void _add_job_cases(Suite *s)
{
	TCase *tc;

	tc = tcase_create("work");
	T(tc, test_window_work_inside_deadline);
	T(tc, test_window_work_stops_at_job_deadline);
	T(tc, test_window_work_counts_only_remaining_work);
	T(tc, test_window_work_sums_jobs);
	T(tc, test_window_work_of_late_job_is_at_share_min);
	T(tc, test_window_work_of_empty_window_is_zero);
	T(tc, test_thesis_work_is_sum_of_cpus_times_runtime);
	suite_add_tcase(s, tc);

	tc = tcase_create("ids");
	T(tc, test_job_committed_is_commit_time);
	T(tc, test_rekey_moves_job_to_new_id);
	T(tc, test_rekey_refuses_absent_or_taken_ids);
	T(tc, test_jobs_lists_every_job_once);
	suite_add_tcase(s, tc);

	tc = tcase_create("held");
	T(tc, test_new_node_tracks_no_memory_and_has_no_gpus);
	T(tc, test_set_node_resources_refuses_bad_node_and_gpus);
	T(tc, test_commit_holds_memory_and_gpus_of_each_place);
	T(tc, test_release_frees_memory_and_gpus);
	T(tc, test_best_effort_job_holds_memory_and_gpus);
	T(tc, test_free_is_never_below_zero);
	T(tc, test_commit_refuses_negative_gpus);
	T(tc, test_clear_jobs_frees_memory_and_gpus_keeps_sizes);
	T(tc, test_held_window_until_deadline_or_whole_window);
	T(tc, test_rekey_keeps_what_is_held);
	T(tc, test_new_node_tracks_no_tmp);
	T(tc, test_tmp_held_from_commit_to_release);
	T(tc, test_tmp_kept_by_rekey_and_recommit);
	T(tc, test_clear_jobs_frees_tmp_keeps_sizes);
	T(tc, test_held_window_counts_tmp);
	suite_add_tcase(s, tc);

	tc = tcase_create("recommit");
	T(tc, test_recommit_keeps_places_and_records_progress);
	T(tc, test_recommit_on_many_nodes);
	T(tc, test_recommit_of_absent_job_fails);
	suite_add_tcase(s, tc);

	tc = tcase_create("booked");
	T(tc, test_booked_share_is_runtime_over_window_from_begin);
	T(tc, test_booked_job_does_no_work_before_begin);
	T(tc, test_booking_at_or_before_now_is_a_plain_commit);
	T(tc, test_peak_without_booking_is_node_share);
	T(tc, test_peak_counts_booking_only_where_windows_overlap);
	T(tc, test_peak_for_a_later_window_leaves_ended_jobs_their_tail);
	T(tc, test_window_work_of_booking_starts_at_begin);
	T(tc, test_release_of_booking_clears_the_count);
	T(tc, test_progress_before_begin_keeps_the_booked_share);
	T(tc, test_tokens_issued_counts_every_token);
	T(tc, test_hub_held_by_this_thread);
	T(tc, test_hub_reset_drops_what_an_earlier_control_knew);
	suite_add_tcase(s, tc);

	tc = tcase_create("invariant");
	T(tc, test_many_jobs_and_nodes_keep_the_invariant);
	T(tc, test_window_work_is_the_entries_sum_to_the_bit);
	T(tc, test_window_work_and_stamp_follow_every_change);
	T(tc, test_shape_follows_all_but_progress);
	suite_add_tcase(s, tc);
}

static Suite *_suite(void)
{
	Suite *s = suite_create("ledger");

	_add_ledger_cases(s);
	_add_job_cases(s);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
