/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_bag.c - a job array admitted as one (bag.h; design.md decision 36).
\*****************************************************************************/

#include <stdio.h>
#include <string.h>

#include "bag.h"
#include "record.h"
#include "testutil.h"

static char err[256];

static libra_bag_t _parsed(const char *inx)
{
	libra_bag_t b;

	ck_assert_msg(libra_bag_parse(inx, LIBRA_BAG_MAX_SIZE, &b, err,
				      sizeof(err)) == 0, "%s: %s", inx, err);
	return b;
}

START_TEST(test_bag_counts_ids_ranges_steps_once)
{
	libra_bag_t b = _parsed("1-100%10");

	ck_assert_int_eq(b.tasks, 100);
	ck_assert_int_eq(b.throttle, 10);
	ck_assert_int_eq(b.lanes, 10);
	ck_assert_int_eq(b.waves, 10);
	b = _parsed("0-15:4");		/* 0 4 8 12 */
	ck_assert_int_eq(b.tasks, 4);
	ck_assert_int_eq(b.lanes, 4);
	ck_assert_int_eq(b.waves, 1);
	b = _parsed("1,3,5-7,6");	/* 1 3 5 6 7 */
	ck_assert_int_eq(b.tasks, 5);
	b = _parsed("7");
	ck_assert_int_eq(b.tasks, 1);
	/* a throttle above the tasks: every task at once */
	b = _parsed("1-3%8");
	ck_assert_int_eq(b.lanes, 3);
	ck_assert_int_eq(b.waves, 1);
}
END_TEST

START_TEST(test_bag_bad_expressions_are_named)
{
	static const char *const bad[][2] = {
		{ "", "empty" },
		{ "a-3", "'a-3' is not an id" },
		{ "1-", "'1-' is not an id" },
		{ "1-9:0", "'1-9:0'" },
		{ "5-2", "range '5-2' ends before it starts" },
		{ "1-5,", "ends with ','" },
		{ ",1", "'' is not an id" },
		{ "1-2000", "id 2000 is not below MaxArraySize (1001)" },
		{ "%4", "no ids before '%'" },
		{ "1-4%0", "throttle" },
		{ "1-4%x", "throttle" },
		{ "1-4%2%3", "throttle" },
		{ "-1", "'-1' is not an id" },
	};
	libra_bag_t b;

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		b.tasks = 99;
		ck_assert_msg(libra_bag_parse(bad[k][0], LIBRA_BAG_MAX_SIZE,
					      &b, err, sizeof(err)) == -1,
			      "'%s' was taken", bad[k][0]);
		ck_assert_names(err, bad[k][1]);
		ck_assert_int_eq(b.tasks, 0);	/* nothing half-parsed */
	}
}
END_TEST

START_TEST(test_bag_is_lanes_of_whole_waves)
{
	libra_sla_t task = { .runtime = 600, .submit = 1000,
			     .deadline = 1000 + 4 * 3600, .budget = 500 };
	libra_sla_t bag;
	libra_bag_t b = _parsed("1-25%10");	/* 3 waves, the last of 5 */

	libra_bag_sla(&b, &task, &bag);
	ck_assert_double_eq_tol(bag.runtime, 3 * 600, TOL);
	ck_assert_double_eq_tol(bag.deadline, task.deadline, TOL);
	ck_assert_double_eq_tol(bag.budget, 500, TOL);
	ck_assert_int_eq(libra_bag_lane_tasks(&b, 0), 3);
	ck_assert_int_eq(libra_bag_lane_tasks(&b, 4), 3);
	ck_assert_int_eq(libra_bag_lane_tasks(&b, 5), 2);
	ck_assert_int_eq(libra_bag_lane_tasks(&b, 9), 2);
	ck_assert_int_eq(libra_bag_lane_tasks(&b, 10), 0);
	/* every task counted once over the lanes */
	int sum = 0;

	for (int l = 0; l < b.lanes; l++)
		sum += libra_bag_lane_tasks(&b, l);
	ck_assert_int_eq(sum, 25);
}
END_TEST

START_TEST(test_bag_task_paced_to_its_part_of_the_lane)
{
	/* three tasks left on the lane, an hour to go: 20 minutes each */
	ck_assert_double_eq_tol(libra_bag_task_target(0, 3600, 3), 1200, TOL);
	ck_assert_double_eq_tol(libra_bag_task_target(1200, 3600, 2), 2400,
				TOL);
	ck_assert_double_eq_tol(libra_bag_task_target(2400, 3600, 1), 3600,
				TOL);
	/* past the deadline: the deadline */
	ck_assert_double_eq_tol(libra_bag_task_target(4000, 3600, 2), 3600,
				TOL);
}
END_TEST

/* A bag's SLA: 4 lanes x 5 waves of 10 s by 240 s, price 100, 1/h late. */
static libra_sla_t _bag_sla(void)
{
	libra_sla_t sla = { 0 };

	sla.runtime = 50;
	sla.submit = 1000;
	sla.deadline = 1240;
	sla.type = LIBRA_DEADLINE_SOFT;
	sla.penalty_rate = 3600;
	sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE | LIBRA_SLA_TYPE |
		  LIBRA_SLA_PENALTY;
	return sla;
}

START_TEST(test_bag_settled_once_by_its_last_task)
{
	libra_sla_t sla = _bag_sla();
	libra_record_bag_t b = { .tasks = 3, .lanes = 3, .waves = 1,
				 .runtime = 50 };
	libra_settlement_t t, s;

	/* a task not the last: met or not, no charge and no penalty */
	libra_bag_task_settle(&sla, 1000, 1100, LIBRA_END_COMPLETED, &t);
	ck_assert(t.deadline_met);
	ck_assert_double_eq_tol(t.charge, 0, TOL);
	libra_bag_count(&b, &t, 1);
	libra_bag_task_settle(&sla, 1000, 1300, LIBRA_END_COMPLETED, &t);
	ck_assert(!t.deadline_met);
	ck_assert_double_eq_tol(t.charge, 0, TOL);
	ck_assert_double_eq_tol(t.penalty, 0, TOL);
	libra_bag_count(&b, &t, 1);
	ck_assert_int_eq(b.ended, 2);
	ck_assert_int_eq(b.late, 1);
	ck_assert_int_eq(b.failed, 0);
	ck_assert_double_eq_tol(b.last_end, 1300, TOL);
	/* the last ends in time, but one was late: the bag missed, its
	 * delay the latest end's (60 s at 1/s: 60 of penalty) */
	libra_bag_settle(&sla, &b, 100, 1000, 1200, LIBRA_END_COMPLETED, &s);
	ck_assert(!s.deadline_met);
	ck_assert_double_eq_tol(s.delay, 60, TOL);
	ck_assert_double_eq_tol(s.end, 1300, TOL);
	ck_assert_double_eq_tol(s.penalty, 60, TOL);
	ck_assert_double_eq_tol(s.charge, 40, TOL);
}
END_TEST

START_TEST(test_bag_met_when_every_task_met)
{
	libra_sla_t sla = _bag_sla();
	libra_record_bag_t b = { .tasks = 2, .lanes = 1, .waves = 2,
				 .runtime = 25 };
	libra_settlement_t t, s;

	libra_bag_task_settle(&sla, 1000, 1100, LIBRA_END_FAILED, &t);
	libra_bag_count(&b, &t, 1);
	ck_assert_int_eq(b.failed, 1);
	libra_bag_settle(&sla, &b, 100, 1100, 1200, LIBRA_END_COMPLETED, &s);
	/* a task that failed is the user's: charged, in time, FAILED */
	ck_assert(s.deadline_met);
	ck_assert_int_eq(s.how, LIBRA_END_FAILED);
	ck_assert_double_eq_tol(s.charge, 100, TOL);
	b.failed = 0;
	libra_bag_settle(&sla, &b, 100, 1100, 1200, LIBRA_END_COMPLETED, &s);
	ck_assert(s.deadline_met);
	ck_assert_int_eq(s.how, LIBRA_END_COMPLETED);
}
END_TEST

START_TEST(test_bag_pending_rest_counts_its_tasks)
{
	libra_sla_t sla = _bag_sla();
	libra_record_bag_t b = { .tasks = 10, .lanes = 2, .waves = 5,
				 .runtime = 10 };
	libra_settlement_t t;

	libra_bag_task_settle(&sla, 1000, 1100, LIBRA_END_COMPLETED, &t);
	libra_bag_count(&b, &t, 1);
	libra_bag_count(&b, &t, 1);
	/* the array's pending rest, 7 tasks, cancelled at the hard deadline
	 * unstarted: 7 tasks late and not completed */
	libra_bag_task_settle(&sla, 0, 1240, LIBRA_END_UNSTARTED, &t);
	libra_bag_count(&b, &t, 7);
	ck_assert_int_eq(b.ended, 9);
	ck_assert_int_eq(b.late, 7);
	ck_assert_int_eq(b.failed, 7);
	/* never past the bag: 9 ended, 5 more counted as 1 */
	libra_bag_count(&b, &t, 5);
	ck_assert_int_eq(b.ended, 10);
	ck_assert_int_eq(b.failed, 8);
	libra_bag_count(&b, &t, 0);
	ck_assert_int_eq(b.ended, 10);
}
END_TEST

START_TEST(test_bag_pays_for_the_tasks_that_completed)
{
	/* 4 tasks: 3 completed, the pending rest (1) cancelled by its owner
	 * never started: the bag pays for its 3 completed tasks, not the
	 * nothing a cancel before the start would pay */
	libra_sla_t sla = _bag_sla();
	libra_record_bag_t b = { .tasks = 4, .lanes = 1, .waves = 4,
				 .runtime = 10 };
	libra_settlement_t t, s;

	libra_bag_task_settle(&sla, 1000, 1010, LIBRA_END_COMPLETED, &t);
	libra_bag_count(&b, &t, 3);
	libra_bag_task_settle(&sla, 0, 1020, LIBRA_END_CANCELLED, &t);
	libra_bag_count(&b, &t, 1);
	libra_bag_settle(&sla, &b, 100, 0, 1020, LIBRA_END_CANCELLED, &s);
	ck_assert_double_eq_tol(s.charge, 75, TOL);
	ck_assert_double_eq_tol(s.penalty, 0, TOL);
	/* none completed: nothing more than a cancel pays */
	b.failed = b.ended;
	libra_bag_settle(&sla, &b, 100, 0, 1020, LIBRA_END_CANCELLED, &s);
	ck_assert_double_eq_tol(s.charge, 0, TOL);
}
END_TEST

START_TEST(test_bag_settling_record_found)
{
	libra_record_t r;

	memset(&r, 0, sizeof(r));
	r.settled = true;
	ck_assert(libra_record_settles_job(&r));	/* not a bag */
	r.bag.tasks = 5;
	r.bag.ended = 3;	/* a task that ended beside a live one */
	ck_assert(!libra_record_settles_job(&r));
	r.bag.ended = 5;	/* the last: every task counted */
	ck_assert(libra_record_settles_job(&r));
	r.bag.ended = 4;	/* the last, as counted before */
	ck_assert(libra_record_settles_job(&r));
	r.settled = false;
	ck_assert(!libra_record_settles_job(&r));
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("bag");
	TCase *tc = tcase_create("bag");

	T(tc, test_bag_counts_ids_ranges_steps_once);
	T(tc, test_bag_bad_expressions_are_named);
	T(tc, test_bag_is_lanes_of_whole_waves);
	T(tc, test_bag_task_paced_to_its_part_of_the_lane);
	T(tc, test_bag_settled_once_by_its_last_task);
	T(tc, test_bag_met_when_every_task_met);
	T(tc, test_bag_pending_rest_counts_its_tasks);
	T(tc, test_bag_pays_for_the_tasks_that_completed);
	T(tc, test_bag_settling_record_found);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
