/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_settle.c - what a job finally costs (settle.h).
 *
 *	DY = max(0, TF - TD),  penalty = min(cap, PR * DY / 3600),
 *	U = price - penalty			(thesis Eq. 4.1/4.2)
 *
 *  The SLA of most cases: submitted at 0, RE 1000 s, TD 4000, PR 2.5 per
 *  hour of delay; quoted price 60.
\*****************************************************************************/

#include <math.h>
#include <string.h>

#include "settle.h"
#include "testutil.h"

#define PRICE 60.0

static libra_sla_t _sla(libra_deadline_type_t type)
{
	libra_sla_t sla;

	memset(&sla, 0, sizeof(sla));
	sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE | LIBRA_SLA_BUDGET |
		  LIBRA_SLA_PENALTY | LIBRA_SLA_TYPE;
	sla.runtime = 1000;
	sla.submit = 0;
	sla.deadline = 4000;
	sla.budget = 100;
	sla.penalty_rate = 2.5;
	sla.type = type;
	return sla;
}

static libra_settlement_t _settle(const libra_sla_t *sla, double start,
				  double end, libra_end_t how)
{
	libra_settlement_t s;

	memset(&s, 0x5a, sizeof(s));
	libra_settle(sla, PRICE, start, end, how, &s);
	ck_assert_int_eq(s.how, how);
	ck_assert_double_eq_tol(s.end, end, TOL);
	ck_assert(s.penalty >= 0.0);
	return s;
}

/* ---------------------------------------------------------------- */

START_TEST(test_penalty_is_rate_per_hour_times_delay)
{
	/* 2.5 per hour * 7200 s / 3600 = 5.0 */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);

	ck_assert_double_eq_tol(libra_penalty(&sla, 7200), 5.0, TOL);
	/* 2.5 * 90 / 3600 = 0.0625 */
	ck_assert_double_eq_tol(libra_penalty(&sla, 90), 0.0625, TOL);
}
END_TEST

START_TEST(test_penalty_without_delay_is_zero)
{
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);

	ck_assert_double_eq_tol(libra_penalty(&sla, 0), 0.0, TOL);
}
END_TEST

START_TEST(test_penalty_is_capped)
{
	/* cap 3 < 5 */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);

	sla.set |= LIBRA_SLA_PENALTY_CAP;
	sla.penalty_cap = 3.0;
	ck_assert_double_eq_tol(libra_penalty(&sla, 7200), 3.0, TOL);
	/* below the cap the linear rule holds: 2.5 * 1 = 2.5 */
	ck_assert_double_eq_tol(libra_penalty(&sla, 3600), 2.5, TOL);
}
END_TEST

START_TEST(test_penalty_without_cap_is_unbounded)
{
	/* 2.5 * 1e6 h = 2.5e6, far above price and budget */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);

	ck_assert_double_eq_tol(libra_penalty(&sla, 3600e6), 2.5e6, 1e-3);
}
END_TEST

START_TEST(test_penalty_cap_flag_governs_the_cap)
{
	/* a penalty_cap value without its flag is not a cap */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);

	sla.penalty_cap = 1.0;
	ck_assert_double_eq_tol(libra_penalty(&sla, 7200), 5.0, TOL);
}
END_TEST

START_TEST(test_completed_on_time_pays_price)
{
	/* TF 3000 <= TD 4000 */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_HARD);
	libra_settlement_t s = _settle(&sla, 10, 3000, LIBRA_END_COMPLETED);

	ck_assert(s.deadline_met);
	ck_assert_double_eq_tol(s.delay, 0.0, TOL);
	ck_assert_double_eq_tol(s.penalty, 0.0, TOL);
	ck_assert_double_eq_tol(s.charge, PRICE, TOL);
}
END_TEST

START_TEST(test_completed_exactly_at_deadline_is_on_time)
{
	libra_sla_t sla = _sla(LIBRA_DEADLINE_HARD);
	libra_settlement_t s = _settle(&sla, 10, 4000, LIBRA_END_COMPLETED);

	ck_assert(s.deadline_met);
	ck_assert_double_eq_tol(s.charge, PRICE, TOL);
}
END_TEST

START_TEST(test_completed_within_grace_is_on_time)
{
	/* TF = TD + 0.5 s < TD + LIBRA_DEADLINE_GRACE */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);
	libra_settlement_t s = _settle(&sla, 10, 4000.5, LIBRA_END_COMPLETED);

	ck_assert(s.deadline_met);
	ck_assert_double_eq_tol(s.penalty, 0.0, 1e-3);
}
END_TEST

START_TEST(test_soft_late_pays_price_minus_penalty)
{
	/* TF = TD + 7200: DY 7200, penalty 2.5 * 2 = 5, charge 60 - 5 = 55 */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);
	libra_settlement_t s = _settle(&sla, 10, 11200, LIBRA_END_COMPLETED);

	ck_assert(!s.deadline_met);
	ck_assert_double_eq_tol(s.delay, 7200.0, TOL);
	ck_assert_double_eq_tol(s.penalty, 5.0, TOL);
	ck_assert_double_eq_tol(s.charge, 55.0, TOL);
}
END_TEST

START_TEST(test_soft_late_penalty_is_capped)
{
	/* cap 3: charge 60 - 3 = 57 */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);
	libra_settlement_t s;

	sla.set |= LIBRA_SLA_PENALTY_CAP;
	sla.penalty_cap = 3.0;
	s = _settle(&sla, 10, 11200, LIBRA_END_COMPLETED);
	ck_assert(!s.deadline_met);
	ck_assert_double_eq_tol(s.penalty, 3.0, TOL);
	ck_assert_double_eq_tol(s.charge, 57.0, TOL);
}
END_TEST

START_TEST(test_very_late_job_becomes_compensation)
{
	/* TF = TD + 100 h: penalty 250 > price 60: charge -190 */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);
	libra_settlement_t s = _settle(&sla, 10, 4000 + 360000,
				       LIBRA_END_COMPLETED);

	ck_assert_double_eq_tol(s.penalty, 250.0, TOL);
	ck_assert_double_eq_tol(s.charge, -190.0, TOL);
}
END_TEST

START_TEST(test_failed_job_settles_like_completed)
{
	/* FAILED: ran to its end; 1 h late -> penalty 2.5, charge 57.5 */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);
	libra_settlement_t s = _settle(&sla, 10, 7600, LIBRA_END_FAILED);

	ck_assert(!s.deadline_met);
	ck_assert_double_eq_tol(s.delay, 3600.0, TOL);
	ck_assert_double_eq_tol(s.penalty, 2.5, TOL);
	ck_assert_double_eq_tol(s.charge, 57.5, TOL);
}
END_TEST

START_TEST(test_deadline_end_pays_price_without_penalty)
{
	/* hard job ended at TD: it overran its estimate; price, no penalty,
	 * deadline not met */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_HARD);
	libra_settlement_t s = _settle(&sla, 10, 4000, LIBRA_END_DEADLINE);

	ck_assert(!s.deadline_met);
	ck_assert_double_eq_tol(s.penalty, 0.0, TOL);
	ck_assert_double_eq_tol(s.charge, PRICE, TOL);
}
END_TEST

START_TEST(test_cancelled_before_start_pays_nothing)
{
	libra_sla_t sla = _sla(LIBRA_DEADLINE_HARD);
	libra_settlement_t s = _settle(&sla, 0, 500, LIBRA_END_CANCELLED);

	ck_assert_double_eq_tol(s.charge, 0.0, TOL);
	ck_assert_double_eq_tol(s.penalty, 0.0, TOL);
}
END_TEST

START_TEST(test_cancelled_after_start_pays_used_part_of_window)
{
	/* start 1000, TD 4000, cancelled at 2500: 60 * 1500/3000 = 30 */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_HARD);
	libra_settlement_t s = _settle(&sla, 1000, 2500, LIBRA_END_CANCELLED);

	ck_assert_double_eq_tol(s.charge, 30.0, TOL);
	ck_assert_double_eq_tol(s.penalty, 0.0, TOL);
}
END_TEST

START_TEST(test_cancelled_soft_job_after_deadline_pays_at_most_price)
{
	/* a soft job cancelled after TD has used its whole window:
	 * the charge never exceeds the price */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);
	libra_settlement_t s = _settle(&sla, 1000, 5500, LIBRA_END_CANCELLED);

	ck_assert(s.charge <= PRICE + TOL);
	ck_assert(s.charge >= 0.0 - TOL);
}
END_TEST

START_TEST(test_withdrawn_pays_no_penalty_and_as_cancelled)
{
	/* pending at TD 4000 because its owner held or requeued it: never
	 * started, nothing either way; started at 1000 (then requeued), the
	 * whole reserved window was used: the price, as CANCELLED */
	static const struct { double start, charge; } cases[] = {
		{ 0.0, 0.0 }, { 1000.0, PRICE }, { 2500.0, PRICE },
	};
	libra_sla_t sla = _sla(LIBRA_DEADLINE_HARD);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		libra_settlement_t w = _settle(&sla, cases[i].start, 4000,
					       LIBRA_END_WITHDRAWN);
		libra_settlement_t c = _settle(&sla, cases[i].start, 4000,
					       LIBRA_END_CANCELLED);

		ck_assert(!w.deadline_met);
		ck_assert_str_eq(libra_end_name(w.how), "WITHDRAWN");
		ck_assert_double_eq_tol(w.penalty, 0.0, TOL);
		ck_assert_double_eq_tol(w.charge, cases[i].charge, TOL);
		ck_assert_double_eq_tol(w.charge, c.charge, TOL);
	}
}
END_TEST

START_TEST(test_node_fail_costs_provider_rerun_penalty)
{
	/* no charge, penalty PR * RE = 2.5 * 1000/3600 = 0.69444, paid to
	 * the user: charge = -0.69444 */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_HARD);
	libra_settlement_t s = _settle(&sla, 10, 500, LIBRA_END_NODE_FAIL);

	ck_assert(!s.deadline_met);
	ck_assert_double_eq_tol(s.penalty, 2.5 * 1000.0 / 3600.0, TOL);
	ck_assert_double_eq_tol(s.charge, -s.penalty, TOL);
}
END_TEST

START_TEST(test_node_fail_penalty_is_capped)
{
	/* PR 36 per hour * 1000 s = 10 > cap 4 */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_HARD);
	libra_settlement_t s;

	sla.penalty_rate = 36.0;
	sla.set |= LIBRA_SLA_PENALTY_CAP;
	sla.penalty_cap = 4.0;
	s = _settle(&sla, 10, 500, LIBRA_END_NODE_FAIL);
	ck_assert_double_eq_tol(s.penalty, 4.0, TOL);
	ck_assert_double_eq_tol(s.charge, -4.0, TOL);
}
END_TEST

START_TEST(test_suspended_and_preempted_cost_provider_as_node_fail)
{
	libra_sla_t sla = _sla(LIBRA_DEADLINE_HARD);
	libra_settlement_t n = _settle(&sla, 10, 500, LIBRA_END_NODE_FAIL);

	for (int how = LIBRA_END_SUSPENDED; how <= LIBRA_END_PREEMPTED;
	     how++) {
		libra_settlement_t s = _settle(&sla, 10, 500,
					       (libra_end_t) how);

		ck_assert_int_eq(s.how, how);
		ck_assert(!s.deadline_met);
		ck_assert_double_eq_tol(s.penalty, n.penalty, TOL);
		ck_assert_double_eq_tol(s.charge, -s.penalty, TOL);
		ck_assert(s.penalty > 0.0);
		/* the provider's also when it never started */
		ck_assert_int_eq(libra_end_of((libra_end_t) how, true, 0),
				 how);
	}
	ck_assert_int_eq(libra_end_of(LIBRA_END_PREEMPTED, false, 0),
			 LIBRA_END_PREEMPTED);
}
END_TEST

START_TEST(test_end_suspended_turns_only_deadline_ends)
{
	for (int how = LIBRA_END_COMPLETED; how <= LIBRA_END_PREEMPTED;
	     how++) {
		libra_end_t h = (libra_end_t) how;

		ck_assert_int_eq(libra_end_suspended(h, false), h);
		ck_assert_int_eq(libra_end_suspended(h, true),
				 h == LIBRA_END_DEADLINE ?
				 LIBRA_END_SUSPENDED : h);
	}
}
END_TEST

START_TEST(test_end_names_round_trip)
{
	static const char *names[] = { "COMPLETED", "FAILED", "DEADLINE",
				       "CANCELLED", "NODE_FAIL", "UNSTARTED",
				       "WITHDRAWN", "SUSPENDED", "PREEMPTED" };

	for (int h = LIBRA_END_COMPLETED; h <= LIBRA_END_PREEMPTED; h++) {
		libra_end_t back = LIBRA_END_FAILED;

		ck_assert_str_eq(libra_end_name((libra_end_t) h), names[h]);
		ck_assert(libra_end_from_name(names[h], &back));
		ck_assert_int_eq(back, h);
	}
	{
		libra_end_t back;

		ck_assert(!libra_end_from_name("TIMEOUT", &back));
		ck_assert(!libra_end_from_name("", &back));
	}
}
END_TEST

START_TEST(test_end_of_rerun_at_deadline_is_node_fail)
{
	ck_assert_int_eq(libra_end_of(LIBRA_END_DEADLINE, true, 1),
			 LIBRA_END_NODE_FAIL);
	ck_assert_int_eq(libra_end_of(LIBRA_END_DEADLINE, true, 0),
			 LIBRA_END_DEADLINE);
}
END_TEST

START_TEST(test_end_of_started_job_is_as_reported)
{
	for (int how = LIBRA_END_COMPLETED; how <= LIBRA_END_WITHDRAWN; how++)
		if (how != LIBRA_END_DEADLINE)
			ck_assert_int_eq(libra_end_of((libra_end_t) how, true,
						      2), how);
}
END_TEST

START_TEST(test_end_of_unstarted_job_failed_unless_provider_or_owner)
{
	ck_assert_int_eq(libra_end_of(LIBRA_END_COMPLETED, false, 0),
			 LIBRA_END_FAILED);
	ck_assert_int_eq(libra_end_of(LIBRA_END_DEADLINE, false, 0),
			 LIBRA_END_FAILED);
	ck_assert_int_eq(libra_end_of(LIBRA_END_CANCELLED, false, 0),
			 LIBRA_END_CANCELLED);
	ck_assert_int_eq(libra_end_of(LIBRA_END_NODE_FAIL, false, 0),
			 LIBRA_END_NODE_FAIL);
	ck_assert_int_eq(libra_end_of(LIBRA_END_UNSTARTED, false, 0),
			 LIBRA_END_UNSTARTED);
	ck_assert_int_eq(libra_end_of(LIBRA_END_WITHDRAWN, false, 0),
			 LIBRA_END_WITHDRAWN);
}
END_TEST

START_TEST(test_end_of_unstarted_rerun_at_deadline_is_node_fail)
{
	ck_assert_int_eq(libra_end_of(LIBRA_END_DEADLINE, false, 1),
			 LIBRA_END_NODE_FAIL);
}
END_TEST

START_TEST(test_best_effort_pays_rate_per_cpu_second_held)
{
	libra_settlement_t s;

	libra_settle_best_effort(0.01, 4, 100.0, 400.0, LIBRA_END_COMPLETED,
				 &s);
	ck_assert_int_eq(s.how, LIBRA_END_COMPLETED);
	ck_assert_double_eq_tol(s.end, 400.0, TOL);
	ck_assert_double_eq_tol(s.charge, 0.01 * 4 * 300.0, TOL);
	ck_assert_double_eq_tol(s.penalty, 0.0, TOL);
	ck_assert(s.deadline_met);
}
END_TEST

START_TEST(test_best_effort_never_started_pays_nothing)
{
	libra_settlement_t s;

	libra_settle_best_effort(0.01, 4, 0.0, 400.0, LIBRA_END_CANCELLED,
				 &s);
	ck_assert_int_eq(s.how, LIBRA_END_CANCELLED);
	ck_assert_double_eq_tol(s.charge, 0.0, TOL);
	ck_assert(s.deadline_met);
}
END_TEST

START_TEST(test_end_limit_of_hard_job_is_deadline)
{
	libra_sla_t sla = _sla(LIBRA_DEADLINE_HARD);

	ck_assert_double_eq_tol(libra_end_limit(&sla), 4000.0, TOL);
}
END_TEST

START_TEST(test_end_limit_of_capped_soft_job_is_where_cap_is_reached)
{
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);

	sla.set |= LIBRA_SLA_PENALTY_CAP;
	sla.penalty_cap = 5.0;		/* 2 hours at 2.5 per hour */
	ck_assert_double_eq_tol(libra_end_limit(&sla), 4000.0 + 7200.0, TOL);
}
END_TEST

START_TEST(test_end_limit_of_uncapped_soft_job_is_none)
{
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);

	ck_assert_double_eq_tol(libra_end_limit(&sla), 0.0, TOL);
	sla.set |= LIBRA_SLA_PENALTY_CAP;
	sla.penalty_cap = 5.0;
	sla.penalty_rate = 0.0;
	ck_assert_double_eq_tol(libra_end_limit(&sla), 0.0, TOL);
}
END_TEST

/* ---------------------------------------------------------------- */
/* ISQoS: the z-curve of a due date (doc/design.md decision 18)       */
/* ---------------------------------------------------------------- */

/* Due 2000, deadline 4000, no rate nor cap given: the charge falls from
 * PRICE at 2000 to 0 at 4000. */
static libra_sla_t _sla_due(libra_deadline_type_t type)
{
	libra_sla_t sla = _sla(type);

	sla.set &= ~LIBRA_SLA_PENALTY;
	sla.penalty_rate = 0;
	sla.set |= LIBRA_SLA_DUEDATE;
	sla.due_date = 2000;
	return sla;
}

START_TEST(test_z_curve_full_price_by_the_due_date)
{
	libra_sla_t sla = _sla_due(LIBRA_DEADLINE_HARD);
	libra_settlement_t s = _settle(&sla, 100, 1999, LIBRA_END_COMPLETED);

	ck_assert_double_eq_tol(s.charge, PRICE, TOL);
	ck_assert_double_eq_tol(s.late, 0, TOL);
	ck_assert(s.deadline_met);
}
END_TEST

START_TEST(test_z_curve_falls_linearly_to_the_deadline)
{
	libra_sla_t sla = _sla_due(LIBRA_DEADLINE_HARD);
	libra_settlement_t s = _settle(&sla, 100, 3000, LIBRA_END_COMPLETED);

	/* halfway: 60 - 60 * 1000 / 2000 = 30; the deadline was met */
	ck_assert_double_eq_tol(s.late, 1000, TOL);
	ck_assert_double_eq_tol(s.penalty, 30, TOL);
	ck_assert_double_eq_tol(s.charge, 30, TOL);
	ck_assert(s.deadline_met);
	ck_assert_double_eq_tol(libra_due_penalty(&sla, PRICE, 500), 15, TOL);
}
END_TEST

START_TEST(test_z_curve_stays_at_the_floor_after_the_deadline)
{
	/* soft: runs past TD; the penalty is capped at the price (F = 0) */
	libra_sla_t sla = _sla_due(LIBRA_DEADLINE_SOFT);
	libra_settlement_t s = _settle(&sla, 100, 9000, LIBRA_END_COMPLETED);

	ck_assert_double_eq_tol(s.charge, 0, TOL);
	ck_assert(!s.deadline_met);
	ck_assert_double_eq_tol(s.delay, 5000, TOL);
	/* a cap of 45 floors it at 15 */
	sla.set |= LIBRA_SLA_PENALTY_CAP;
	sla.penalty_cap = 45;
	s = _settle(&sla, 100, 9000, LIBRA_END_COMPLETED);
	ck_assert_double_eq_tol(s.charge, 15, TOL);
	/* and the slope reaches that cap at the deadline: 45 / 2000 per s */
	s = _settle(&sla, 100, 3000, LIBRA_END_COMPLETED);
	ck_assert_double_eq_tol(s.charge, 60 - 22.5, TOL);
}
END_TEST

START_TEST(test_z_curve_with_a_given_rate)
{
	/* 36 per hour past the due date: 1000 s late costs 10 */
	libra_sla_t sla = _sla_due(LIBRA_DEADLINE_HARD);
	libra_settlement_t s;

	sla.set |= LIBRA_SLA_PENALTY;
	sla.penalty_rate = 36;
	s = _settle(&sla, 100, 3000, LIBRA_END_COMPLETED);
	ck_assert_double_eq_tol(s.charge, 50, TOL);
}
END_TEST

START_TEST(test_z_curve_deadline_end_charges_the_agreed_target)
{
	/* admitted for 2500: ran out its estimate, ended at TD: charged
	 * what completing at 2500 costs, 60 - 60 * 500 / 2000 = 45 */
	libra_sla_t sla = _sla_due(LIBRA_DEADLINE_HARD);
	libra_settlement_t s;

	sla.set |= LIBRA_SLA_TARGET;
	sla.target = 2500;
	s = _settle(&sla, 100, 4000, LIBRA_END_DEADLINE);
	ck_assert_double_eq_tol(s.charge, 45, TOL);
	/* admitted for the due date itself: the full price */
	sla.target = 2000;
	s = _settle(&sla, 100, 4000, LIBRA_END_DEADLINE);
	ck_assert_double_eq_tol(s.charge, PRICE, TOL);
}
END_TEST

START_TEST(test_z_curve_node_fail_pays_the_due_date_penalty_for_re)
{
	/* RE 1000 at 60 / 2000 per s: 30 paid back */
	libra_sla_t sla = _sla_due(LIBRA_DEADLINE_HARD);
	libra_settlement_t s = _settle(&sla, 100, 1500, LIBRA_END_NODE_FAIL);

	ck_assert_double_eq_tol(s.penalty, 30, TOL);
	ck_assert_double_eq_tol(s.charge, -30, TOL);
}
END_TEST

START_TEST(test_due_date_at_the_deadline_is_no_z_curve)
{
	/* no window: settled as without a due date */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);
	libra_settlement_t s;

	sla.set |= LIBRA_SLA_DUEDATE;
	sla.due_date = sla.deadline;
	ck_assert(!libra_sla_has_due_window(&sla));
	s = _settle(&sla, 100, 4000 + 7200, LIBRA_END_COMPLETED);
	ck_assert_double_eq_tol(s.penalty, 5.0, TOL);
	ck_assert_double_eq_tol(libra_due_penalty(&sla, PRICE, 100), 0, TOL);
}
END_TEST

/* ---------------------------------------------------------------- */
/* the site's rules (libra_settle_at_site(), decision 37): admitted at 0,
 * planned to start at 0, no owner time, no site cap unless given */

static libra_settle_site_t _site(void)
{
	libra_settle_site_t site = { 0.0, 0.0, 0.0, INFINITY, false };

	return site;
}

static libra_settlement_t _at_site(const libra_sla_t *sla,
				   const libra_settle_site_t *site,
				   double start, double end, libra_end_t how)
{
	libra_settlement_t s;

	memset(&s, 0x5a, sizeof(s));
	libra_settle_at_site(sla, PRICE, start, end, how, site, &s);
	ck_assert(s.penalty >= 0.0);
	ck_assert(s.penalty <= site->cap);
	return s;
}

START_TEST(test_site_cap_bounds_every_penalty)
{
	/* PR 1e15 per hour, an hour late or a node failure: the site's cap
	 * (its price) is all the provider pays */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);
	libra_settle_site_t site = _site();
	libra_settlement_t s;

	sla.penalty_rate = 1e15;
	site.cap = PRICE;
	site.paper = true;
	s = _at_site(&sla, &site, 100, 4000 + 3600, LIBRA_END_COMPLETED);
	ck_assert_double_eq_tol(s.penalty, PRICE, TOL);
	ck_assert_double_eq_tol(s.charge, 0.0, TOL);
	s = _at_site(&sla, &site, 0, 4000, LIBRA_END_UNSTARTED);
	ck_assert_double_eq_tol(s.penalty, PRICE, TOL);
	ck_assert_double_eq_tol(s.charge, -PRICE, TOL);
	/* no site cap: the papers' unbounded penalty */
	site.cap = INFINITY;
	s = _at_site(&sla, &site, 0, 4000, LIBRA_END_UNSTARTED);
	ck_assert(s.penalty > 1e10);
}
END_TEST

START_TEST(test_site_late_soft_job_started_on_time_pays_no_penalty)
{
	/* started when planned and late by an hour: it ran past its own
	 * estimate, as a hard job ended at its deadline */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);
	libra_settle_site_t site = _site();
	libra_settlement_t s;

	s = _at_site(&sla, &site, 1e-3, 4000 + 3600, LIBRA_END_COMPLETED);
	ck_assert(!s.deadline_met);
	ck_assert_double_eq_tol(s.delay, 3600, 1e-2);
	ck_assert_double_eq_tol(s.penalty, 0, 1e-6);
	ck_assert_double_eq_tol(s.charge, PRICE, 1e-6);
	/* the papers': 2.5 per hour */
	site.paper = true;
	s = _at_site(&sla, &site, 1e-3, 4000 + 3600, LIBRA_END_COMPLETED);
	ck_assert_double_eq_tol(s.penalty, 2.5, TOL);
}
END_TEST

START_TEST(test_site_late_start_is_the_providers_delay_less_the_owners)
{
	/* started 1800 s after its plan, of which the owner held it 1080 s:
	 * 720 s of the hour's delay are the provider's, 0.5 at 2.5/h */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);
	libra_settle_site_t site = _site();
	libra_settlement_t s;

	site.owner = 1080;
	s = _at_site(&sla, &site, 1800, 4000 + 3600, LIBRA_END_COMPLETED);
	ck_assert_double_eq_tol(s.penalty, 0.5, TOL);
	ck_assert_double_eq_tol(s.charge, PRICE - 0.5, TOL);
	/* the provider's delay counts no more than the delay itself */
	site.owner = 0;
	s = _at_site(&sla, &site, 3000, 4000 + 360, LIBRA_END_COMPLETED);
	ck_assert_double_eq_tol(s.penalty, 2.5 * 360 / 3600, TOL);
	/* a booking planned at 1000 that started at 1000 */
	site.planned = 1000;
	s = _at_site(&sla, &site, 1000, 4000 + 3600, LIBRA_END_COMPLETED);
	ck_assert_double_eq_tol(s.penalty, 0, TOL);
}
END_TEST

START_TEST(test_site_cancel_after_start_pays_the_time_run)
{
	/* started at 0, RE 1000 s, window 4000 s: cancelled at 500 pays half
	 * its price (the papers' used part of the window: an eighth); after
	 * RE of running, all of it */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_HARD);
	libra_settle_site_t site = _site();
	libra_settlement_t s;

	s = _at_site(&sla, &site, 0.001, 500, LIBRA_END_CANCELLED);
	ck_assert_double_eq_tol(s.charge, PRICE * 0.499999, 1e-3);
	s = _at_site(&sla, &site, 0.001, 1500, LIBRA_END_CANCELLED);
	ck_assert_double_eq_tol(s.charge, PRICE, TOL);
	ck_assert_double_eq_tol(s.penalty, 0, TOL);
	site.paper = true;
	s = _at_site(&sla, &site, 0.001, 500, LIBRA_END_CANCELLED);
	ck_assert_double_eq_tol(s.charge, PRICE * 500 / 4000, 1e-3);
}
END_TEST

START_TEST(test_site_unstarted_cancel_pays_the_window_it_held)
{
	/* admitted at 0, deadline 4000: cancelled pending at 1000 pays a
	 * quarter; withdrawn at its deadline (held all along) the price */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_HARD);
	libra_settle_site_t site = _site();
	libra_settlement_t s;

	s = _at_site(&sla, &site, 0, 1000, LIBRA_END_CANCELLED);
	ck_assert_double_eq_tol(s.charge, PRICE / 4, TOL);
	s = _at_site(&sla, &site, 0, 4000, LIBRA_END_WITHDRAWN);
	ck_assert_double_eq_tol(s.charge, PRICE, TOL);
	ck_assert_double_eq_tol(s.penalty, 0, TOL);
	/* the papers': nothing */
	site.paper = true;
	s = _at_site(&sla, &site, 0, 4000, LIBRA_END_WITHDRAWN);
	ck_assert_double_eq_tol(s.charge, 0, TOL);
}
END_TEST

START_TEST(test_site_unstarted_after_the_owner_stopped_it_is_withdrawn)
{
	/* the owner held it once: not started by its deadline is no broken
	 * promise of the provider's */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_HARD);
	libra_settle_site_t site = _site();
	libra_settlement_t s;

	sla.penalty_rate = 1e15;
	site.owner = 20;
	s = _at_site(&sla, &site, 0, 4000, LIBRA_END_UNSTARTED);
	ck_assert_int_eq(s.how, LIBRA_END_WITHDRAWN);
	ck_assert_double_eq_tol(s.penalty, 0, TOL);
	ck_assert_double_eq_tol(s.charge, PRICE, TOL);
	/* never stopped by its owner: the provider's breach */
	site.owner = 0;
	site.cap = PRICE;
	s = _at_site(&sla, &site, 0, 4000, LIBRA_END_UNSTARTED);
	ck_assert_int_eq(s.how, LIBRA_END_UNSTARTED);
	ck_assert_double_eq_tol(s.charge, -PRICE, TOL);
}
END_TEST

START_TEST(test_site_due_date_job_pays_the_lateness_its_admission_planned)
{
	/* due 2000, deadline 4000, admitted for a completion at 2500 (its
	 * target, the z-curve's price agreed): completed at 3000 after a
	 * start on time, it pays the z-curve for 500 s late, the planned
	 * lateness, not for 1000 (the papers') nor for 0 */
	libra_sla_t sla = _sla(LIBRA_DEADLINE_SOFT);
	libra_settle_site_t site = _site();
	libra_settlement_t s;

	sla.set |= LIBRA_SLA_DUEDATE | LIBRA_SLA_TARGET | LIBRA_SLA_PENALTY_CAP;
	sla.due_date = 2000;
	sla.target = 2500;
	sla.penalty_cap = PRICE;
	sla.set &= ~LIBRA_SLA_PENALTY;
	s = _at_site(&sla, &site, 1e-3, 3000, LIBRA_END_COMPLETED);
	ck_assert_double_eq_tol(s.penalty, libra_due_penalty(&sla, PRICE, 500),
				1e-3);
	ck_assert(s.penalty > 0);
	site.paper = true;
	s = _at_site(&sla, &site, 1e-3, 3000, LIBRA_END_COMPLETED);
	ck_assert_double_eq_tol(s.penalty,
				libra_due_penalty(&sla, PRICE, 1000), 1e-6);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("settle");
	TCase *tc;

	tc = tcase_create("penalty");
	T(tc, test_penalty_is_rate_per_hour_times_delay);
	T(tc, test_penalty_without_delay_is_zero);
	T(tc, test_withdrawn_pays_no_penalty_and_as_cancelled);
	T(tc, test_penalty_is_capped);
	T(tc, test_penalty_without_cap_is_unbounded);
	T(tc, test_penalty_cap_flag_governs_the_cap);
	suite_add_tcase(s, tc);

	tc = tcase_create("settle");
	T(tc, test_completed_on_time_pays_price);
	T(tc, test_completed_exactly_at_deadline_is_on_time);
	T(tc, test_completed_within_grace_is_on_time);
	T(tc, test_soft_late_pays_price_minus_penalty);
	T(tc, test_soft_late_penalty_is_capped);
	T(tc, test_very_late_job_becomes_compensation);
	T(tc, test_failed_job_settles_like_completed);
	T(tc, test_deadline_end_pays_price_without_penalty);
	T(tc, test_cancelled_before_start_pays_nothing);
	T(tc, test_cancelled_after_start_pays_used_part_of_window);
	T(tc, test_cancelled_soft_job_after_deadline_pays_at_most_price);
	T(tc, test_node_fail_costs_provider_rerun_penalty);
	T(tc, test_node_fail_penalty_is_capped);
	T(tc, test_suspended_and_preempted_cost_provider_as_node_fail);
	T(tc, test_end_suspended_turns_only_deadline_ends);
	T(tc, test_end_names_round_trip);
	suite_add_tcase(s, tc);

	tc = tcase_create("end");
	T(tc, test_end_of_rerun_at_deadline_is_node_fail);
	T(tc, test_end_of_started_job_is_as_reported);
	T(tc, test_end_of_unstarted_job_failed_unless_provider_or_owner);
	T(tc, test_end_of_unstarted_rerun_at_deadline_is_node_fail);
	T(tc, test_best_effort_pays_rate_per_cpu_second_held);
	T(tc, test_best_effort_never_started_pays_nothing);
	T(tc, test_end_limit_of_hard_job_is_deadline);
	T(tc, test_end_limit_of_capped_soft_job_is_where_cap_is_reached);
	T(tc, test_end_limit_of_uncapped_soft_job_is_none);
	suite_add_tcase(s, tc);

	tc = tcase_create("zcurve");
	T(tc, test_z_curve_full_price_by_the_due_date);
	T(tc, test_z_curve_falls_linearly_to_the_deadline);
	T(tc, test_z_curve_stays_at_the_floor_after_the_deadline);
	T(tc, test_z_curve_with_a_given_rate);
	T(tc, test_z_curve_deadline_end_charges_the_agreed_target);
	T(tc, test_z_curve_node_fail_pays_the_due_date_penalty_for_re);
	T(tc, test_due_date_at_the_deadline_is_no_z_curve);
	suite_add_tcase(s, tc);

	tc = tcase_create("site");
	T(tc, test_site_cap_bounds_every_penalty);
	T(tc, test_site_late_soft_job_started_on_time_pays_no_penalty);
	T(tc, test_site_late_start_is_the_providers_delay_less_the_owners);
	T(tc, test_site_cancel_after_start_pays_the_time_run);
	T(tc, test_site_unstarted_cancel_pays_the_window_it_held);
	T(tc, test_site_unstarted_after_the_owner_stopped_it_is_withdrawn);
	T(tc, test_site_due_date_job_pays_the_lateness_its_admission_planned);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
