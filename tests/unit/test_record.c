/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_record.c - the job's Libra record as JSON (record.h).
 *
 *  Round trips are bit for bit; the decoder is strict and leaves nothing
 *  behind on error.  Leaks are checked by "make check-valgrind".
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "testutil.h"

static char err[256];

/* The example of record.h, on one line. */
static const char example[] =
	"{\"libra\":1,\"policy\":\"libra+$\","
	"\"sla\":{\"runtime\":3600,\"submit\":1795000000,"
	"\"deadline\":1795007200,\"budget\":100,\"penalty\":2.5,"
	"\"type\":\"hard\"},"
	"\"admit\":{\"time\":1795000000,\"price\":96.1,\"rate\":0.0267,"
	"\"place\":[{\"node\":\"n1\",\"cpus\":1}]},"
	"\"start\":1795000001,"
	"\"final\":{\"how\":\"COMPLETED\",\"end\":1795006000,\"delay\":0,"
	"\"met\":true,\"penalty\":0,\"charge\":96.1}}";

/*
 * The example as the decoder takes it: record.h's example does not list
 * "given" (which fields the user set), the decoder requires it.  The strict
 * tests edit this one, so that each edit is refused for its own reason.
 */
static const char valid[] =
	"{\"libra\":1,\"policy\":\"libra+$\","
	"\"sla\":{\"runtime\":3600,\"submit\":1795000000,"
	"\"deadline\":1795007200,\"budget\":100,\"penalty\":2.5,"
	"\"type\":\"hard\","
	"\"given\":[\"runtime\",\"deadline\",\"budget\",\"penalty\",\"type\"]},"
	"\"admit\":{\"time\":1795000000,\"price\":96.1,\"rate\":0.0267,"
	"\"place\":[{\"node\":\"n1\",\"cpus\":1}]},"
	"\"start\":1795000001,"
	"\"final\":{\"how\":\"COMPLETED\",\"end\":1795006000,\"delay\":0,"
	"\"met\":true,\"penalty\":0,\"charge\":96.1}}";

/* Doubles equal bit for bit. */
#define ck_assert_same_bits(a, b)					\
	do {								\
		double _a = (a), _b = (b);				\
		ck_assert_msg(memcmp(&_a, &_b, sizeof(_a)) == 0,	\
			      "%s = %.17g, %s = %.17g", #a, _a, #b, _b);\
	} while (0)

static void _assert_same_sla(const libra_sla_t *a, const libra_sla_t *b)
{
	ck_assert_uint_eq(a->set, b->set);
	ck_assert_same_bits(a->runtime, b->runtime);
	ck_assert_same_bits(a->submit, b->submit);
	ck_assert_same_bits(a->deadline, b->deadline);
	if (a->set & LIBRA_SLA_BUDGET)
		ck_assert_same_bits(a->budget, b->budget);
	if (a->set & LIBRA_SLA_PENALTY)
		ck_assert_same_bits(a->penalty_rate, b->penalty_rate);
	if (a->set & LIBRA_SLA_PENALTY_CAP)
		ck_assert_same_bits(a->penalty_cap, b->penalty_cap);
	if (a->set & LIBRA_SLA_DUEDATE)
		ck_assert_same_bits(a->due_date, b->due_date);
	if (a->set & LIBRA_SLA_TARGET)
		ck_assert_same_bits(a->target, b->target);
	ck_assert_int_eq(a->tier, b->tier);
	ck_assert_int_eq(a->type, b->type);
}

static void _assert_same(const libra_record_t *a, const libra_record_t *b)
{
	ck_assert_int_eq(a->policy, b->policy);
	ck_assert_uint_eq(a->token, b->token);
	ck_assert_int_eq(a->best_effort, b->best_effort);
	if (!a->best_effort)
		_assert_same_sla(&a->sla, &b->sla);
	ck_assert_same_bits(a->admitted, b->admitted);
	ck_assert_same_bits(a->price, b->price);
	ck_assert_same_bits(a->price_mem, b->price_mem);
	ck_assert_same_bits(a->price_gpus, b->price_gpus);
	ck_assert_same_bits(a->price_disk, b->price_disk);
	ck_assert_same_bits(a->rate, b->rate);
	ck_assert(!memcmp(&a->demand, &b->demand, sizeof(a->demand)));
	ck_assert_int_eq(a->quote_id, b->quote_id);
	ck_assert_same_bits(a->quote_until, b->quote_until);
	ck_assert_same_bits(a->begin, b->begin);
	ck_assert_same_bits(a->penalty_max, b->penalty_max);
	ck_assert_same_bits(a->owner, b->owner);
	ck_assert_same_bits(a->owner_since, b->owner_since);
	ck_assert_same_bits(a->declared, b->declared);
	ck_assert_same_bits(a->predicted, b->predicted);
	ck_assert_same_bits(a->replanned, b->replanned);
	ck_assert_same_bits(a->replan_done, b->replan_done);
	ck_assert_int_eq(a->replans, b->replans);
	ck_assert_same_bits(a->plan, b->plan);
	ck_assert_same_bits(a->plan_end, b->plan_end);
	ck_assert_int_eq(a->nplace, b->nplace);
	for (int i = 0; i < a->nplace; i++) {
		ck_assert_str_eq(a->place[i].node, b->place[i].node);
		ck_assert_int_eq(a->place[i].cpus, b->place[i].cpus);
		ck_assert_uint_eq(a->place[i].mem_mb, b->place[i].mem_mb);
		ck_assert_int_eq(a->place[i].gpus, b->place[i].gpus);
		ck_assert_uint_eq(a->place[i].tmp_mb, b->place[i].tmp_mb);
		/* a speed of 0 (not set) or 1 is not written: read as 1 */
		ck_assert_same_bits(a->place[i].speed > 0.0 ?
				    a->place[i].speed : 1.0,
				    b->place[i].speed);
	}
	ck_assert_same_bits(a->started, b->started);
	ck_assert_int_eq(a->settled, b->settled);
	if (a->settled) {
		ck_assert_int_eq(a->final.how, b->final.how);
		ck_assert_same_bits(a->final.end, b->final.end);
		ck_assert_same_bits(a->final.delay, b->final.delay);
		ck_assert_int_eq(a->final.deadline_met, b->final.deadline_met);
		ck_assert_same_bits(a->final.penalty, b->final.penalty);
		ck_assert_same_bits(a->final.charge, b->final.charge);
	}
}

/* A record full of awkward values. */
static libra_record_t _awkward(libra_record_place_t *place)
{
	libra_record_t r;

	memset(&r, 0, sizeof(r));
	memset(place, 0, 2 * sizeof(*place));
	r.policy = LIBRA_POLICY_LIBRA_PRICE;
	r.token = 0xF0000005u;
	r.sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE | LIBRA_SLA_BUDGET |
		    LIBRA_SLA_PENALTY | LIBRA_SLA_TYPE | LIBRA_SLA_DUEDATE |
		    LIBRA_SLA_PENALTY_CAP;
	r.sla.runtime = 123456789.123456789;
	r.sla.submit = 1795000000.123;
	r.sla.deadline = 1795000000.123 + 3e8 + 0.1;
	r.sla.budget = 0.1;
	r.sla.penalty_rate = 1e-300;
	r.sla.penalty_cap = 1e15;
	r.sla.due_date = 1795000000.123 + 1.0 / 3.0;
	r.sla.type = LIBRA_DEADLINE_SOFT;
	r.admitted = 1795000000.2500001;
	r.price = 96.1;
	r.rate = 0.026700000000000001;
	r.nplace = 2;
	r.place = place;
	snprintf(place[0].node, sizeof(place[0].node), "n1");
	place[0].cpus = 1;
	snprintf(place[1].node, sizeof(place[1].node), "%s",
		 "compute-node-with-a-long-name-0042");
	place[1].cpus = 64;
	place[1].speed = 1.0 / 3.0;	/* decision 43 */
	r.penalty_max = 96.1 * 1.5;
	r.owner = 1.0 / 7.0;
	r.owner_since = 1795000100.5;
	r.started = 253402300000.25;	/* late in the year 9999 */
	r.settled = true;
	r.final.how = LIBRA_END_COMPLETED;
	r.final.end = 4102444800.000001;
	r.final.delay = 2.0 / 3.0;
	r.final.deadline_met = false;
	r.final.penalty = 1e-5;
	r.final.charge = -12345.678901234567;
	return r;
}

/* Encode, decode, compare; and encoding the decoded record again gives
 * the same text. */
static void _round_trip(const libra_record_t *r)
{
	libra_record_t back;
	char *text, *again;

	text = libra_record_to_json(r);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(libra_record_from_json(text, &back, err, sizeof(err))
		      == 0, "%.300s: %s", text, err);
	_assert_same(r, &back);
	again = libra_record_to_json(&back);
	ck_assert_ptr_nonnull(again);
	ck_assert_str_eq(text, again);
	free(again);
	free(text);
	libra_record_free(&back);
}

/* The decoder must refuse text, with a message naming "why" (if not NULL),
 * and leave r empty. */
static void _refused_why(const char *text, const char *why)
{
	libra_record_t r;

	memset(&r, 0x5a, sizeof(r));
	err[0] = '\0';
	ck_assert_msg(libra_record_from_json(text, &r, err, sizeof(err)) == -1,
		      "accepted: %.200s", text);
	ck_assert_msg(err[0] != '\0', "no message for: %.200s", text);
	if (why)
		ck_assert_msg(strstr(err, why) != NULL,
			      "refused for \"%s\", not \"%s\": %.300s", err, why,
			      text);
	ck_assert_int_eq(r.nplace, 0);
	ck_assert_ptr_null(r.place);
	ck_assert(!r.settled);
	libra_record_free(&r);
}

static void _refused(const char *text)
{
	_refused_why(text, NULL);
}

/* valid with "from" replaced by "to" (which must occur once). */
static char *_edit(const char *from, const char *to)
{
	const char *at = strstr(valid, from);
	size_t n = strlen(valid) - strlen(from) + strlen(to) + 1;
	char *s = malloc(n);

	ck_assert_ptr_nonnull(at);
	ck_assert_ptr_null(strstr(at + 1, from));
	snprintf(s, n, "%.*s%s%s", (int) (at - valid), valid, to,
		 at + strlen(from));
	return s;
}

/* The edit is refused with a message naming why. */
static void _refused_edit(const char *from, const char *to, const char *why)
{
	char *s = _edit(from, to);

	_refused_why(s, why);
	free(s);
}

/* ---------------------------------------------------------------- */

START_TEST(test_example_decodes)
{
	libra_record_t r;

	ck_assert_msg(libra_record_from_json(example, &r, err, sizeof(err)) ==
		      0, "%s", err);
	ck_assert_int_eq(r.policy, LIBRA_POLICY_LIBRA_PRICE);
	ck_assert(!r.best_effort);
	ck_assert_double_eq_tol(r.sla.runtime, 3600, TOL);
	ck_assert_double_eq_tol(r.sla.submit, 1795000000, TOL);
	ck_assert_double_eq_tol(r.sla.deadline, 1795007200, TOL);
	ck_assert(libra_sla_has_budget(&r.sla));
	ck_assert_double_eq_tol(r.sla.budget, 100, TOL);
	ck_assert_double_eq_tol(r.sla.penalty_rate, 2.5, TOL);
	ck_assert_int_eq(r.sla.type, LIBRA_DEADLINE_HARD);
	ck_assert_double_eq_tol(r.admitted, 1795000000, TOL);
	ck_assert_double_eq_tol(r.price, 96.1, TOL);
	ck_assert_double_eq_tol(r.rate, 0.0267, TOL);
	ck_assert_int_eq(r.nplace, 1);
	ck_assert_str_eq(r.place[0].node, "n1");
	ck_assert_int_eq(r.place[0].cpus, 1);
	ck_assert_double_eq(r.place[0].speed, 1.0);	/* none written */
	ck_assert_double_eq(libra_record_speed(&r), 1.0);
	ck_assert_double_eq_tol(r.started, 1795000001, TOL);
	ck_assert(r.settled);
	ck_assert_int_eq(r.final.how, LIBRA_END_COMPLETED);
	ck_assert_double_eq_tol(r.final.end, 1795006000, TOL);
	ck_assert(r.final.deadline_met);
	ck_assert_double_eq_tol(r.final.charge, 96.1, TOL);
	libra_record_free(&r);
}
END_TEST

START_TEST(test_base_of_strict_tests_decodes)
{
	libra_record_t r;

	ck_assert_msg(libra_record_from_json(valid, &r, err, sizeof(err)) ==
		      0, "%s", err);
	ck_assert_double_eq_tol(r.sla.runtime, 3600, TOL);
	ck_assert_int_eq(r.nplace, 1);
	_round_trip(&r);
	libra_record_free(&r);
}
END_TEST

START_TEST(test_example_round_trips)
{
	libra_record_t r;

	ck_assert_int_eq(libra_record_from_json(example, &r, err, sizeof(err)),
			 0);
	_round_trip(&r);
	libra_record_free(&r);
}
END_TEST

START_TEST(test_awkward_values_round_trip_bit_for_bit)
{
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place);

	_round_trip(&r);
}
END_TEST

START_TEST(test_slowest_place_paces_the_job)
{
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place);

	/* n1 without a speed (1), the other at 1/3 */
	ck_assert_double_eq(libra_record_speed(&r), 1.0 / 3.0);
	place[1].speed = 2.0;
	ck_assert_double_eq(libra_record_speed(&r), 1.0);
	r.nplace = 0;
	ck_assert_double_eq(libra_record_speed(&r), 1.0);
}
END_TEST

/*
 * Found by fuzz_record: "-0" decodes as the integer 0, so a negative zero
 * written as "-0" came back positive, and the record changed on its way
 * through AdminComment.  A zero carries no sign in a record.
 */
START_TEST(test_negative_zero_is_zero)
{
	static const char *const zeros[] = { "-0", "-0.0", "-00e-05", "-0e300" };
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place), back;
	char *text, *s, to[40];

	for (size_t i = 0; i < sizeof(zeros) / sizeof(zeros[0]); i++) {
		snprintf(to, sizeof(to), "\"penalty\":%s,", zeros[i]);
		s = _edit("\"penalty\":0,", to);
		ck_assert_msg(libra_record_from_json(s, &back, err,
						     sizeof(err)) == 0,
			      "%s: %s", err, s);
		ck_assert_msg(!signbit(back.final.penalty), "%s", s);
		_round_trip(&back);
		libra_record_free(&back);
		free(s);
	}
	/* a negative zero computed in memory is written as a plain zero */
	r.final.penalty = -0.0;
	r.final.delay = -0.0;
	text = libra_record_to_json(&r);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "\"delay\":0,") &&
		      strstr(text, "\"penalty\":0,"), "%s", text);
	ck_assert_int_eq(libra_record_from_json(text, &back, err, sizeof(err)),
			 0);
	ck_assert(!signbit(back.final.penalty) && !signbit(back.final.delay));
	libra_record_free(&back);
	free(text);
}
END_TEST

START_TEST(test_every_end_kind_round_trips)
{
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place);

	for (int h = LIBRA_END_COMPLETED; h <= LIBRA_END_PREEMPTED; h++) {
		r.final.how = (libra_end_t) h;
		_round_trip(&r);
	}
}
END_TEST

START_TEST(test_every_policy_round_trips)
{
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place);

	for (int p = 0; p < LIBRA_POLICY_COUNT; p++) {
		r.policy = (libra_policy_t) p;
		_round_trip(&r);
	}
}
END_TEST

START_TEST(test_record_without_token_round_trips)
{
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place);

	r.token = 0;
	_round_trip(&r);
	r.token = 0xFFFFFFFFu;
	_round_trip(&r);
}
END_TEST

START_TEST(test_unsettled_unstarted_record_round_trips)
{
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place);

	r.settled = false;
	memset(&r.final, 0, sizeof(r.final));
	r.started = 0;
	_round_trip(&r);
}
END_TEST

START_TEST(test_minimal_sla_round_trips_without_optional_fields)
{
	/* no budget, penalty, cap, due date: has_budget stays false */
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place), back;
	char *text;

	r.sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE;
	r.sla.budget = r.sla.penalty_rate = r.sla.penalty_cap = 0;
	r.sla.due_date = 0;
	r.sla.type = LIBRA_DEADLINE_HARD;
	_round_trip(&r);
	text = libra_record_to_json(&r);
	ck_assert_int_eq(libra_record_from_json(text, &back, err, sizeof(err)),
			 0);
	ck_assert(!libra_sla_has_budget(&back.sla));
	free(text);
	libra_record_free(&back);
}
END_TEST

START_TEST(test_best_effort_record_has_no_sla)
{
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place), back;
	char *text;

	r.best_effort = true;
	memset(&r.sla, 0, sizeof(r.sla));
	text = libra_record_to_json(&r);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_null(strstr(text, "\"sla\""));
	ck_assert_int_eq(libra_record_from_json(text, &back, err, sizeof(err)),
			 0);
	ck_assert(back.best_effort);
	_assert_same(&r, &back);
	free(text);
	libra_record_free(&back);
}
END_TEST

START_TEST(test_admin_text_beside_the_record)
{
	/* an administrator's AdminComment is kept in the record's "admin"
	 * member; decoding takes the record as before (design.md decision
	 * 29) */
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place), back;
	char *json = libra_record_to_json(&r), *with, *admin, *without;

	ck_assert_ptr_nonnull(json);
	ck_assert_ptr_null(libra_record_admin_text(json));
	with = libra_record_json_with_admin(json, "disk \"quota\" ticket 7");
	ck_assert_ptr_nonnull(with);
	ck_assert(libra_record_text_is_record(with));
	ck_assert_int_eq(libra_record_from_json(with, &back, err, sizeof(err)),
			 0);
	_assert_same(&r, &back);
	libra_record_free(&back);
	admin = libra_record_admin_text(with);
	ck_assert_str_eq(admin, "disk \"quota\" ticket 7");
	free(admin);
	/* text that is no record is the administrator's as a whole */
	admin = libra_record_admin_text("ticket 7");
	ck_assert_str_eq(admin, "ticket 7");
	free(admin);
	ck_assert_ptr_null(libra_record_admin_text(""));
	ck_assert_ptr_null(libra_record_admin_text(NULL));
	/* replaced, and removed by an empty text */
	without = libra_record_json_with_admin(with, "");
	ck_assert_str_eq(without, json);
	free(without);
	without = libra_record_json_with_admin(with, "other");
	admin = libra_record_admin_text(without);
	ck_assert_str_eq(admin, "other");
	free(admin);
	free(without);
	ck_assert_ptr_null(libra_record_json_with_admin("no json", "x"));
	ck_assert_ptr_null(libra_record_json_with_admin("[1]", "x"));
	free(with);
	free(json);
	/* an "admin" that is no string is refused */
	_refused_edit("\"start\":", "\"admin\":7,\"start\":", "admin");
}
END_TEST

START_TEST(test_node_names_are_escaped)
{
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place);

	snprintf(place[0].node, sizeof(place[0].node), "a\"b\\c/d");
	_round_trip(&r);
}
END_TEST

START_TEST(test_record_without_places_round_trips)
{
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place);

	r.nplace = 0;
	r.place = NULL;
	_round_trip(&r);
}
END_TEST

START_TEST(test_many_places_round_trip)
{
	libra_record_place_t *place = calloc(300, sizeof(*place));
	libra_record_place_t two[2];
	libra_record_t r = _awkward(two);

	for (int i = 0; i < 300; i++) {
		snprintf(place[i].node, sizeof(place[i].node), "n%04d", i);
		place[i].cpus = 1 + i % 8;
	}
	r.place = place;
	r.nplace = 300;
	_round_trip(&r);
	free(place);
}
END_TEST

START_TEST(test_free_of_empty_record_is_safe)
{
	libra_record_t r;

	memset(&r, 0, sizeof(r));
	libra_record_free(&r);
	ck_assert_ptr_null(r.place);
}
END_TEST

/* ---------------------------------------------------------------- */

START_TEST(test_unknown_top_level_field_is_refused)
{
	_refused_edit("\"start\":", "\"colour\":\"red\",\"start\":",
		      "colour");
}
END_TEST

START_TEST(test_unknown_nested_fields_are_refused)
{
	_refused_edit("\"type\":\"hard\",", "\"type\":\"hard\",\"x\":1,",
		      "sla: unknown field");
	_refused_edit("\"rate\":0.0267,", "\"rate\":0.0267,\"x\":1,",
		      "admit: unknown field");
	_refused_edit("\"cpus\":1}", "\"cpus\":1,\"x\":1}", "unknown field");
	_refused_edit("\"charge\":96.1}", "\"charge\":96.1,\"x\":1}",
		      "final: unknown field");
}
END_TEST

START_TEST(test_wrong_types_are_refused)
{
	_refused_edit("\"runtime\":3600,", "\"runtime\":\"3600\",", "runtime");
	_refused_edit("\"met\":true", "\"met\":\"yes\"", "met");
	_refused_edit("\"met\":true", "\"met\":1", "met");
	_refused_edit("\"cpus\":1", "\"cpus\":\"1\"", "cpus");
	_refused_edit("\"cpus\":1", "\"cpus\":1.5", "cpus");
	_refused_edit("\"cpus\":1}", "\"cpus\":1,\"speed\":0}", "speed");
	_refused_edit("\"cpus\":1}", "\"cpus\":1,\"speed\":65}", "speed");
	_refused_edit("\"cpus\":1}", "\"cpus\":1,\"speed\":\"2\"}", "speed");
	_refused_edit("\"node\":\"n1\"", "\"node\":7", "node");
	_refused_edit("\"place\":[{\"node\":\"n1\",\"cpus\":1}]",
		      "\"place\":{\"node\":\"n1\",\"cpus\":1}", "place");
	_refused_edit("\"sla\":{", "\"sla\":[{", NULL);
	_refused_edit("\"policy\":\"libra+$\"", "\"policy\":3", "policy");
	_refused_edit("\"start\":1795000001", "\"start\":null", "start");
	_refused_edit("\"price\":96.1", "\"price\":true", "price");
}
END_TEST

START_TEST(test_negative_budget_is_refused)
{
	_refused_edit("\"budget\":100", "\"budget\":-1", "budget");
}
END_TEST

START_TEST(test_out_of_range_values_are_refused)
{
	_refused_edit("\"runtime\":3600,", "\"runtime\":-3600,", "runtime");
	_refused_edit("\"runtime\":3600,", "\"runtime\":0,", "runtime");
	_refused_edit("\"penalty\":2.5", "\"penalty\":-2.5", "penalty");
	_refused_edit("\"cpus\":1", "\"cpus\":0", "cpus");
	_refused_edit("\"cpus\":1", "\"cpus\":-4", "cpus");
	_refused_edit("\"price\":96.1", "\"price\":1e400", NULL);
	_refused_edit("\"price\":96.1", "\"price\":NaN", NULL);
	_refused_edit("\"price\":96.1", "\"price\":Infinity", NULL);
	_refused_edit("\"budget\":100", "\"budget\":1e400", NULL);
}
END_TEST

START_TEST(test_bad_names_are_refused)
{
	_refused_edit("\"policy\":\"libra+$\"", "\"policy\":\"roundrobin\"",
		      "policy");
	_refused_edit("\"type\":\"hard\"", "\"type\":\"medium\"", "type");
	_refused_edit("\"how\":\"COMPLETED\"", "\"how\":\"EXPLODED\"", "how");
}
END_TEST

START_TEST(test_wrong_version_is_refused)
{
	_refused_edit("\"libra\":1,", "\"libra\":2,", "libra");
	_refused_edit("\"libra\":1,", "", "libra");
}
END_TEST

START_TEST(test_missing_sla_is_refused)
{
	/* only a best-effort record (best_effort: true) has no "sla" */
	char *cut = _edit("\"sla\":{", "\"x\":{");
	char *x = strstr(cut, "\"x\":{"), *end = strchr(x, '}');

	/* drop "x":{...}, */
	memmove(x, end + 2, strlen(end + 2) + 1);
	ck_assert_ptr_null(strstr(cut, "\"sla\""));
	_refused_why(cut, "sla");
	free(cut);
}
END_TEST

START_TEST(test_best_effort_record_with_sla_is_refused)
{
	_refused_edit("\"libra\":1,", "\"libra\":1,\"best_effort\":true,",
		      "sla");
}
END_TEST

START_TEST(test_time_beyond_year_9999_is_refused)
{
	/* 2^53 s is some 285 million years away */
	_refused_edit("\"start\":1795000001", "\"start\":9007199254740992",
		      "start");
}
END_TEST

START_TEST(test_sla_without_runtime_or_deadline_is_refused)
{
	_refused_edit("\"runtime\":3600,", "", "runtime");
	_refused_edit("\"deadline\":1795007200,", "", "deadline");
}
END_TEST

START_TEST(test_node_name_too_long_is_refused)
{
	char name[LIBRA_NODE_NAME_MAX + 40];
	char to[sizeof(name) + 16];

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(to, sizeof(to), "\"node\":\"%s\"", name);
	_refused_edit("\"node\":\"n1\"", to, "node");
	_refused_edit("\"node\":\"n1\"", "\"node\":\"\"", "node");
}
END_TEST

START_TEST(test_garbage_is_refused)
{
	_refused("");
	_refused("not json");
	_refused("null");
	_refused("42");
	_refused("[]");
	_refused("{}");
	_refused("\"libra\"");
	_refused("{\"libra\":1}}");
}
END_TEST

START_TEST(test_trailing_garbage_is_refused)
{
	char *s = malloc(strlen(valid) + 8);

	sprintf(s, "%s junk", valid);
	_refused(s);
	sprintf(s, "%s{}", valid);
	_refused(s);
	free(s);
}
END_TEST

START_TEST(test_truncated_json_is_refused_at_every_length)
{
	char buf[sizeof(valid)];

	for (size_t n = 0; n + 1 < sizeof(valid); n++) {
		memcpy(buf, valid, n);
		buf[n] = '\0';
		_refused(buf);
	}
}
END_TEST

START_TEST(test_deeply_nested_junk_is_refused)
{
	size_t depth = 100000;
	char *s = malloc(2 * depth + 64);
	char *p = s;

	p += sprintf(p, "{\"libra\":1,\"x\":");
	for (size_t i = 0; i < depth; i++)
		*p++ = '[';
	for (size_t i = 0; i < depth; i++)
		*p++ = ']';
	*p++ = '}';
	*p = '\0';
	_refused(s);

	p = s;
	for (size_t i = 0; i < depth / 8; i++)
		p += sprintf(p, "{\"a\":");
	*p = '\0';
	_refused(s);
	free(s);
}
END_TEST

START_TEST(test_small_err_buffer_is_terminated)
{
	libra_record_t r;
	char small[6];

	memset(small, 'x', sizeof(small));
	ck_assert_int_eq(libra_record_from_json("nonsense", &r, small,
						sizeof(small)), -1);
	ck_assert(memchr(small, '\0', sizeof(small)) != NULL);
	libra_record_free(&r);
}
END_TEST

/* ---------------------------------------------------------------- */

START_TEST(test_sla_json_round_trips)
{
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place);
	libra_sla_t back;
	char *text = libra_sla_to_json(&r.sla);

	ck_assert_ptr_nonnull(text);
	ck_assert_msg(libra_sla_from_json(text, &back, err, sizeof(err)) == 0,
		      "%.300s: %s", text, err);
	_assert_same_sla(&r.sla, &back);
	free(text);
}
END_TEST

START_TEST(test_sla_json_garbage_is_refused)
{
	libra_sla_t sla;

	ck_assert_int_eq(libra_sla_from_json("{\"runtime\":", &sla, err,
					     sizeof(err)), -1);
	ck_assert_int_eq(libra_sla_from_json("{\"runtime\":1,\"deadline\":5,"
					     "\"bogus\":1}", &sla, err,
					     sizeof(err)), -1);
	ck_assert_int_eq(libra_sla_from_json("[1,2]", &sla, err, sizeof(err)),
			 -1);
}
END_TEST

START_TEST(test_text_is_record_reads_the_version_prefix)
{
	ck_assert(libra_record_text_is_record("{\"libra\":1,\"policy\":\"libra\"}"));
	ck_assert(!libra_record_text_is_record("{\"other\":1}"));
	ck_assert(!libra_record_text_is_record("free text"));
	ck_assert(!libra_record_text_is_record(NULL));
}
END_TEST

START_TEST(test_text_is_best_effort_of_encoded_records)
{
	libra_record_t r;
	char *json, *with;

	memset(&r, 0, sizeof(r));
	r.best_effort = true;
	json = libra_record_to_json(&r);
	ck_assert_ptr_nonnull(json);
	ck_assert(libra_record_text_is_best_effort(json));
	free(json);

	r.best_effort = false;
	r.sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE;
	r.sla.runtime = 60.0;
	r.sla.deadline = 600.0;
	json = libra_record_to_json(&r);
	ck_assert_ptr_nonnull(json);
	ck_assert(libra_record_text_is_record(json));
	ck_assert(!libra_record_text_is_best_effort(json));
	/* nor does an administrator's text that says it (decision 29) */
	with = libra_record_json_with_admin(json, ",\"best_effort\":true");
	ck_assert_ptr_nonnull(with);
	ck_assert(!libra_record_text_is_best_effort(with));
	free(with);
	free(json);
}
END_TEST

/* A record of a job that asked memory and GPUs (record.h's example). */
static const char held[] =
	"{\"libra\":1,\"policy\":\"libra+$\","
	"\"sla\":{\"runtime\":3600,\"submit\":1795000000,"
	"\"deadline\":1795007200,\"budget\":200,\"type\":\"hard\","
	"\"given\":[\"runtime\",\"deadline\",\"budget\"]},"
	"\"admit\":{\"time\":1795000000,\"price\":120.5,\"rate\":0.0267,"
	"\"demand\":{\"mem_per_node\":4096,\"gpus_per_node\":1},"
	"\"price_mem\":16.4,\"price_gpus\":8,"
	"\"place\":[{\"node\":\"g1\",\"cpus\":2,\"mem\":4096,\"gpus\":1}]}}";

/* held with "from" replaced by "to", refused naming why */
static void _refused_held_edit(const char *from, const char *to,
			       const char *why)
{
	const char *at = strstr(held, from);
	char buf[1024];

	ck_assert_ptr_nonnull(at);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int) (at - held), held, to,
		 at + strlen(from));
	_refused_why(buf, why);
}

START_TEST(test_memory_and_gpus_round_trip)
{
	libra_record_t r;

	ck_assert_msg(libra_record_from_json(held, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(r.demand.mem_per_node, 4096);
	ck_assert_int_eq(r.demand.gpus_per_node, 1);
	ck_assert_uint_eq(r.demand.mem_per_cpu, 0);
	ck_assert(!r.demand.mem_whole_node);
	ck_assert_double_eq_tol(r.price_mem, 16.4, TOL);
	ck_assert_double_eq_tol(r.price_gpus, 8, TOL);
	ck_assert_uint_eq(r.place[0].mem_mb, 4096);
	ck_assert_int_eq(r.place[0].gpus, 1);
	_round_trip(&r);
	/* the encoder writes what the decoder read, in the same order */
	{
		char *text = libra_record_to_json(&r);

		ck_assert_str_eq(text, held);
		free(text);
	}
	libra_record_free(&r);
}
END_TEST

START_TEST(test_every_memory_and_gpu_form_round_trips)
{
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place);
	libra_demand_t forms[] = {
		{ .mem_per_cpu = 1 },
		{ .mem_per_node = (uint64_t) 1 << 40 },
		{ .mem_whole_node = true, .gpus = 1000000 },
		{ .gpus_per_node = 8 },
	};

	r.nplace = 1;
	place[0].mem_mb = (uint64_t) 1 << 53;
	place[0].gpus = 1000000;
	r.price_gpus = 1e-300;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		r.demand = forms[i];
		_round_trip(&r);
	}
}
END_TEST

START_TEST(test_record_without_memory_or_gpus_is_as_before)
{
	/* nothing asked: no new field is written, and a record written
	 * before memory was known reads as asking none */
	libra_record_t r;
	char *text;

	ck_assert_int_eq(libra_record_from_json(valid, &r, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(r.demand.mem_per_cpu + r.demand.mem_per_node, 0);
	ck_assert_int_eq(r.demand.gpus + r.demand.gpus_per_node, 0);
	ck_assert_uint_eq(r.place[0].mem_mb, 0);
	ck_assert_int_eq(r.place[0].gpus, 0);
	ck_assert_double_eq(r.price_mem, 0.0);
	text = libra_record_to_json(&r);
	ck_assert_ptr_null(strstr(text, "demand"));
	ck_assert_ptr_null(strstr(text, "mem"));
	ck_assert_ptr_null(strstr(text, "gpus"));
	ck_assert_ptr_null(strstr(text, "tmp"));
	ck_assert_ptr_null(strstr(text, "price_"));
	free(text);
	libra_record_free(&r);
}
END_TEST

/* A record of a job that asked scratch disk (--tmp) beside memory. */
static const char disk[] =
	"{\"libra\":1,\"policy\":\"libra\","
	"\"sla\":{\"runtime\":3600,\"submit\":1795000000,"
	"\"deadline\":1795007200,\"type\":\"hard\","
	"\"given\":[\"runtime\",\"deadline\"]},"
	"\"admit\":{\"time\":1795000000,\"price\":8.5,\"rate\":0.0011,"
	"\"demand\":{\"mem_per_node\":1024,\"tmp_mb\":20480},"
	"\"price_disk\":1.25,"
	"\"place\":[{\"node\":\"n1\",\"cpus\":2,\"mem\":1024,"
	"\"tmp\":20480},{\"node\":\"n2\",\"cpus\":1}]}}";

START_TEST(test_scratch_disk_round_trips)
{
	libra_record_t r;
	char *text;

	ck_assert_msg(libra_record_from_json(disk, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(r.demand.tmp_mb, 20480);
	ck_assert_uint_eq(r.demand.mem_per_node, 1024);
	ck_assert_double_eq_tol(r.price_disk, 1.25, TOL);
	ck_assert_double_eq(r.price_mem, 0.0);
	ck_assert_uint_eq(r.place[0].tmp_mb, 20480);
	ck_assert_uint_eq(r.place[1].tmp_mb, 0);
	_round_trip(&r);
	/* the encoder writes what the decoder read, in the same order */
	text = libra_record_to_json(&r);
	ck_assert_str_eq(text, disk);
	free(text);
	libra_record_free(&r);
}
END_TEST

START_TEST(test_bad_scratch_disk_fields_are_refused)
{
	static const struct {
		const char *from, *to, *why;
	} bad[] = {
		{ "\"tmp\":20480", "\"tmp\":0", "tmp" },
		{ "\"tmp\":20480", "\"tmp\":1.5", "tmp" },
		{ "\"tmp\":20480", "\"tmp\":\"1\"", "tmp" },
		{ "\"tmp\":20480", "\"tmp\":18014398509481984", "tmp" },
		{ "\"tmp_mb\":20480", "\"tmp_mb\":0", "tmp_mb" },
		{ "\"tmp_mb\":20480", "\"tmp_mb\":1099511627777",
		  "tmp_mb" },
		{ "\"tmp_mb\":20480", "\"tmp_mb\":-1", "tmp_mb" },
		{ "\"price_disk\":1.25", "\"price_disk\":-1",
		  "price_disk" },
		{ "\"price_disk\":1.25", "\"price_disk\":true",
		  "price_disk" },
		{ "\"price_disk\":1.25", "\"price_tmp\":1.25",
		  "unknown field" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *at = strstr(disk, bad[i].from);
		char buf[1024];

		ck_assert_ptr_nonnull(at);
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int) (at - disk), disk,
			 bad[i].to, at + strlen(bad[i].from));
		_refused_why(buf, bad[i].why);
	}
}
END_TEST

START_TEST(test_bad_memory_and_gpu_fields_are_refused)
{
	_refused_held_edit("\"mem\":4096", "\"mem\":0", "mem");
	_refused_held_edit("\"mem\":4096", "\"mem\":1.5", "mem");
	_refused_held_edit("\"gpus\":1}", "\"gpus\":-1}", "gpus");
	_refused_held_edit("\"gpus\":1}", "\"gpus\":\"1\"}", "gpus");
	_refused_held_edit("\"mem_per_node\":4096",
			   "\"mem_per_node\":1099511627777", "mem_per_node");
	_refused_held_edit("\"mem_per_node\":4096",
			   "\"mem_per_node\":4096,\"mem_per_cpu\":1",
			   "more than one");
	_refused_held_edit("\"mem_per_node\":4096",
			   "\"mem_whole_node\":false", "mem_whole_node");
	_refused_held_edit("\"gpus_per_node\":1",
			   "\"gpus_per_node\":1,\"gpus\":2", "both");
	_refused_held_edit("\"gpus_per_node\":1", "\"colour\":1",
			   "unknown field");
	_refused_held_edit("\"demand\":{\"mem_per_node\":4096,"
			   "\"gpus_per_node\":1}", "\"demand\":1", "demand");
	_refused_held_edit("\"price_mem\":16.4", "\"price_mem\":-1",
			   "price_mem");
}
END_TEST

START_TEST(test_refusal_carries_the_memory_and_gpus_asked)
{
	libra_refusal_t r, back;
	char *text;

	memset(&r, 0, sizeof(r));
	r.time = 1795000000;
	snprintf(r.verdict, sizeof(r.verdict), "memory");
	r.cpus = 4;
	r.demand.mem_per_cpu = 2048;
	r.demand.gpus = 2;
	snprintf(r.reason, sizeof(r.reason), "libra: rejected: memory");
	text = libra_refusal_to_json(&r);
	ck_assert_ptr_nonnull(strstr(text,
		"\"demand\":{\"mem_per_cpu\":2048,\"gpus\":2}"));
	ck_assert_msg(libra_refusal_from_json(text, &back, err,
					      sizeof(err)) == 0, "%s", err);
	ck_assert(!memcmp(&back.demand, &r.demand, sizeof(r.demand)));
	ck_assert_str_eq(back.verdict, "memory");
	free(text);
	/* none asked: no "demand", as before */
	memset(&r.demand, 0, sizeof(r.demand));
	text = libra_refusal_to_json(&r);
	ck_assert_ptr_null(strstr(text, "demand"));
	free(text);
	/* a bad one is refused */
	ck_assert_int_eq(libra_refusal_from_json(
		"{\"time\":1,\"demand\":{\"gpus\":0}}", &back, err,
		sizeof(err)), -1);
	ck_assert_names(err, "gpus");
}
END_TEST

START_TEST(test_set_place_names_the_quoted_nodes)
{
	libra_ledger_t *l = libra_ledger_create(0.01);
	libra_place_t place[2] = { PLACE(1, 2), PLACE(0, 1) };
	libra_record_t r;

	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(libra_ledger_add_node(l, "a", 4), 0);
	ck_assert_int_eq(libra_ledger_add_node(l, "b", 2), 1);
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(libra_record_set_place(&r, l, place, 1), 0);
	/* a second placement replaces the first */
	ck_assert_int_eq(libra_record_set_place(&r, l, place, 2), 0);
	ck_assert_int_eq(r.nplace, 2);
	ck_assert_str_eq(r.place[0].node, "b");
	ck_assert_int_eq(r.place[0].cpus, 2);
	ck_assert_str_eq(r.place[1].node, "a");
	ck_assert_int_eq(r.place[1].cpus, 1);
	ck_assert_uint_eq(r.place[1].mem_mb, 0);
	libra_record_free(&r);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_set_place_keeps_memory_and_gpus)
{
	libra_ledger_t *l = libra_ledger_create(0.01);
	libra_place_t place = { .node = 0, .cpus = 2, .mem_mb = 4096,
				.gpus = 1, .tmp_mb = 2048 };
	libra_record_t r;

	ck_assert_int_eq(libra_ledger_add_node(l, "g1", 4), 0);
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(libra_record_set_place(&r, l, &place, 1), 0);
	ck_assert_uint_eq(r.place[0].mem_mb, 4096);
	ck_assert_int_eq(r.place[0].gpus, 1);
	ck_assert_uint_eq(r.place[0].tmp_mb, 2048);
	libra_record_free(&r);
	libra_ledger_destroy(l);
}
END_TEST

/* ISQoS (decision 18): the tier the user picked and the target admission
 * set travel with the record; a target outside (submit, deadline) or a
 * tier that is not one is refused. */
START_TEST(test_tier_and_target_round_trip)
{
	static const char text[] =
		"{\"libra\":1,\"policy\":\"libra+$\","
		"\"sla\":{\"runtime\":3600,\"submit\":1795000000,"
		"\"deadline\":1795007200,\"duedate\":1795004000,"
		"\"tier\":\"premium\",\"target\":1795004500,"
		"\"type\":\"hard\","
		"\"given\":[\"runtime\",\"deadline\",\"duedate\",\"tier\"]},"
		"\"admit\":{\"time\":1795000000,\"price\":96.1,\"rate\":0.0267,"
		"\"place\":[{\"node\":\"n1\",\"cpus\":1}]}}";
	libra_record_t r;

	ck_assert_msg(libra_record_from_json(text, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_int_eq(r.sla.tier, LIBRA_TIER_PREMIUM);
	ck_assert(r.sla.set & LIBRA_SLA_TIER);
	ck_assert(r.sla.set & LIBRA_SLA_TARGET);
	ck_assert_double_eq_tol(libra_sla_target(&r.sla), 1795004500, TOL);
	_round_trip(&r);
	libra_record_free(&r);
}
END_TEST

START_TEST(test_booked_begin_round_trips)
{
	static const char text[] =
		"{\"libra\":1,\"policy\":\"libra+$\","
		"\"sla\":{\"runtime\":3600,\"submit\":1795000600,"
		"\"deadline\":1795007800,\"type\":\"hard\","
		"\"given\":[\"runtime\",\"deadline\"]},"
		"\"admit\":{\"time\":1795000000,\"price\":96.1,\"rate\":0.0267,"
		"\"begin\":1795000600.25,"
		"\"place\":[{\"node\":\"n1\",\"cpus\":1}]}}";
	libra_record_t r;

	ck_assert_msg(libra_record_from_json(text, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_double_eq_tol(r.begin, 1795000600.25, TOL);
	/* the ledger commits it when it was admitted, from its begin */
	ck_assert_double_eq_tol(libra_record_commit_time(&r), 1795000000, TOL);
	_round_trip(&r);
	libra_record_free(&r);
}
END_TEST

START_TEST(test_prediction_round_trips)
{
	static const char text[] =
		"{\"libra\":1,\"policy\":\"libra+$\","
		"\"sla\":{\"runtime\":12.5,\"submit\":1795000000,"
		"\"deadline\":1795000060,\"type\":\"hard\","
		"\"given\":[\"runtime\",\"deadline\"]},"
		"\"admit\":{\"time\":1795000000,\"price\":1,\"rate\":0.01,"
		"\"declared\":40,\"predicted\":10,"
		"\"place\":[{\"node\":\"n1\",\"cpus\":1}]}}";
	libra_record_t r;

	ck_assert_msg(libra_record_from_json(text, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_double_eq_tol(r.declared, 40, TOL);
	ck_assert_double_eq_tol(r.predicted, 10, TOL);
	_round_trip(&r);
	libra_record_free(&r);
	/* both or neither */
	_refused_why("{\"libra\":1,\"policy\":\"libra+$\","
		     "\"sla\":{\"runtime\":3600,\"submit\":1795000000,"
		     "\"deadline\":1795007200,\"type\":\"hard\","
		     "\"given\":[\"runtime\",\"deadline\"]},"
		     "\"admit\":{\"time\":1795000000,\"price\":1,\"rate\":1,"
		     "\"declared\":40,\"place\":[]}}", "admit.predicted");
}
END_TEST

/* decision 34: a re-planned job commits from its re-planning */
START_TEST(test_replan_round_trips)
{
	static const char head[] =
		"{\"libra\":1,\"policy\":\"libra+$\","
		"\"sla\":{\"runtime\":30,\"submit\":1795000000,"
		"\"deadline\":1795000100,\"type\":\"hard\","
		"\"target\":1795000090,"
		"\"given\":[\"runtime\",\"deadline\"]},"
		"\"admit\":{\"time\":1795000000,\"price\":1,\"rate\":0.01,";
	static const char *const bad[][2] = {
		{ "\"declared\":40,\"predicted\":30,\"replanned\":1795000040,"
		  "\"replans\":1,\"plan\":35,\"plan_end\":1795000080",
		  "admit.done" },
		{ "\"replanned\":1795000040,\"done\":1,\"replans\":1,"
		  "\"plan\":35,\"plan_end\":1795000080", "admit.replanned" },
		{ "\"declared\":40,\"predicted\":30,\"replanned\":1795000040,"
		  "\"done\":1,\"replans\":1.5,\"plan\":35,"
		  "\"plan_end\":1795000080", "admit.replans" },
		{ "\"declared\":40,\"predicted\":30,\"replanned\":1795000040,"
		  "\"done\":1,\"replans\":1,\"plan_end\":1795000080",
		  "admit.plan" },
	};
	char text[1024];
	libra_record_t r;
	libra_sla_t sla;

	snprintf(text, sizeof(text), "%s%s", head,
		 "\"declared\":40,\"predicted\":30,\"replanned\":1795000040,"
		 "\"done\":10.5,\"replans\":2,\"plan\":35,"
		 "\"plan_end\":1795000080,"
		 "\"place\":[{\"node\":\"n1\",\"cpus\":1}]}}");
	ck_assert_msg(libra_record_from_json(text, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_double_eq_tol(r.replanned, 1795000040, TOL);
	ck_assert_double_eq_tol(r.replan_done, 10.5, TOL);
	ck_assert_int_eq(r.replans, 2);
	ck_assert_double_eq_tol(libra_record_commit_time(&r), 1795000040, TOL);
	/* the SLA as admitted; the ledger commits the plan, aimed at its
	 * paced end */
	ck_assert_double_eq_tol(r.sla.runtime, 30, TOL);
	libra_record_committed_sla(&r, &sla);
	ck_assert_double_eq_tol(sla.runtime, 35, TOL);
	ck_assert_double_eq_tol(libra_sla_target(&sla), 1795000080, TOL);
	/* an end at the deadline: the deadline */
	r.plan_end = 1795000100;
	libra_record_committed_sla(&r, &sla);
	ck_assert(!(sla.set & LIBRA_SLA_TARGET));
	r.plan_end = 1795000080;
	_round_trip(&r);
	libra_record_free(&r);
	/* all of them, on a predicted job, a whole count */
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		snprintf(text, sizeof(text), "%s%s,\"place\":[]}}", head,
			 bad[k][0]);
		_refused_why(text, bad[k][1]);
	}
}
END_TEST

START_TEST(test_bag_round_trips)
{
	static const char head[] =
		"{\"libra\":1,\"policy\":\"libra+$\","
		"\"sla\":{\"runtime\":50,\"submit\":1795000000,"
		"\"deadline\":1795000240,\"type\":\"hard\","
		"\"given\":[\"runtime\",\"deadline\"]},"
		"\"admit\":{\"time\":1795000000,\"price\":1,\"rate\":0.01,"
		"\"place\":[{\"node\":\"n1\",\"cpus\":4}]},\"bag\":";
	static const char *const bad[][2] = {
		{ "{\"tasks\":20,\"lanes\":4,\"runtime\":10}", "bag:" },
		{ "{\"tasks\":20,\"lanes\":4,\"waves\":4,\"runtime\":10}",
		  "bag.waves" },
		{ "{\"tasks\":4,\"lanes\":5,\"waves\":1,\"runtime\":10}",
		  "bag.waves" },
		{ "{\"tasks\":2,\"lanes\":2,\"waves\":1,\"runtime\":10,"
		  "\"ended\":3,\"late\":0,\"failed\":0,\"last_end\":5}",
		  "bag.ended" },
		{ "{\"tasks\":3,\"lanes\":3,\"waves\":1,\"runtime\":10,"
		  "\"ended\":1,\"late\":2,\"failed\":0,\"last_end\":5}",
		  "bag.ended" },
		{ "{\"tasks\":3,\"lanes\":3,\"waves\":1,\"runtime\":10,"
		  "\"ended\":1}", "bag.ended" },
		{ "{\"tasks\":3,\"lanes\":3,\"waves\":1,\"runtime\":10,"
		  "\"lane\":1}", "bag" },
		{ "{\"tasks\":2.5,\"lanes\":1,\"waves\":3,\"runtime\":10}",
		  "bag.tasks" },
	};
	char text[1024];
	libra_record_t r;

	snprintf(text, sizeof(text), "%s%s}", head,
		 "{\"tasks\":20,\"lanes\":4,\"waves\":5,\"runtime\":10,"
		 "\"target\":1795000048,\"ended\":7,\"late\":1,"
		 "\"failed\":2,\"last_end\":1795000090}");
	ck_assert_msg(libra_record_from_json(text, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_int_eq(r.bag.tasks, 20);
	ck_assert_int_eq(r.bag.lanes, 4);
	ck_assert_int_eq(r.bag.waves, 5);
	ck_assert_double_eq_tol(r.bag.runtime, 10, TOL);
	ck_assert_double_eq_tol(r.bag.target, 1795000048, TOL);
	ck_assert_int_eq(r.bag.ended, 7);
	ck_assert_int_eq(r.bag.late, 1);
	ck_assert_int_eq(r.bag.failed, 2);
	ck_assert_double_eq_tol(r.bag.last_end, 1795000090, TOL);
	_round_trip(&r);
	/* the array's record before any task started or ended */
	r.bag.target = 0;
	r.bag.ended = r.bag.late = r.bag.failed = 0;
	r.bag.last_end = 0;
	_round_trip(&r);
	libra_record_free(&r);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		snprintf(text, sizeof(text), "%s%s}", head, bad[k][0]);
		_refused_why(text, bad[k][1]);
	}
}
END_TEST

START_TEST(test_bad_begin_is_refused)
{
	_refused_why("{\"libra\":1,\"policy\":\"libra+$\","
		     "\"sla\":{\"runtime\":3600,\"submit\":1795000000,"
		     "\"deadline\":1795007200,\"type\":\"hard\","
		     "\"given\":[\"runtime\",\"deadline\"]},"
		     "\"admit\":{\"time\":1795000000,\"price\":1,\"rate\":1,"
		     "\"begin\":\"soon\",\"place\":[]}}", "admit.begin");
	_refused_why("{\"libra\":1,\"policy\":\"libra+$\","
		     "\"sla\":{\"runtime\":3600,\"submit\":1795000000,"
		     "\"deadline\":1795007200,\"type\":\"hard\","
		     "\"given\":[\"runtime\",\"deadline\"]},"
		     "\"admit\":{\"time\":1795000000,\"price\":1,\"rate\":1,"
		     "\"begin\":-5,\"place\":[]}}", "admit.begin");
}
END_TEST

START_TEST(test_bad_tier_or_target_is_refused)
{
	_refused_why("{\"libra\":1,\"policy\":\"libra+$\","
		     "\"sla\":{\"runtime\":3600,\"submit\":1795000000,"
		     "\"deadline\":1795007200,\"tier\":\"gold\","
		     "\"type\":\"hard\",\"given\":[\"runtime\",\"deadline\","
		     "\"tier\"]}}", "sla.tier");
	_refused_why("{\"libra\":1,\"policy\":\"libra+$\","
		     "\"sla\":{\"runtime\":3600,\"submit\":1795000000,"
		     "\"deadline\":1795007200,\"target\":1795007200,"
		     "\"type\":\"hard\",\"given\":[\"runtime\",\"deadline\"]}}",
		     "sla.target");
	/* given says tier, no tier present */
	_refused_why("{\"libra\":1,\"policy\":\"libra+$\","
		     "\"sla\":{\"runtime\":3600,\"submit\":1795000000,"
		     "\"deadline\":1795007200,"
		     "\"type\":\"hard\",\"given\":[\"runtime\",\"deadline\","
		     "\"tier\"]}}", "sla.given");
}
END_TEST

START_TEST(test_owner_time_and_site_cap_in_the_settlement)
{
	/* held by its owner from 100 to 400, started at 700 (planned at its
	 * admission, 0.5), a soft job an hour late at 2.5/h: 300 s of its
	 * start are the owner's (held 100 until release, counted until the
	 * start: 600 s), the rest, 99.5 s, the provider's */
	libra_record_place_t place[2];
	libra_record_t r = _awkward(place);
	libra_params_t p;
	libra_settlement_t s;

	libra_params_default(&p);
	memset(&r.sla, 0, sizeof(r.sla));
	r.sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE | LIBRA_SLA_PENALTY;
	r.sla.runtime = 1000;
	r.sla.deadline = 4000;
	r.sla.penalty_rate = 3600;	/* 1 per second of delay */
	r.sla.type = LIBRA_DEADLINE_SOFT;
	r.admitted = 0.5;
	r.price = 1000;
	r.penalty_max = 0;
	r.owner = 0;
	r.owner_since = 0;
	libra_record_owner_stop(&r, 100);
	libra_record_owner_stop(&r, 400);	/* stopped once */
	ck_assert_double_eq_tol(r.owner_since, 100, TOL);
	libra_record_owner_end(&r, 700);
	ck_assert_double_eq_tol(r.owner, 600, TOL);
	ck_assert_double_eq_tol(r.owner_since, 0, TOL);
	libra_record_settle(&r, &p, 700, 7600, LIBRA_END_COMPLETED, &s);
	ck_assert_double_eq_tol(s.penalty, 99.5, TOL);
	/* the site's cap, fixed at admission */
	r.penalty_max = 50;
	libra_record_settle(&r, &p, 700, 7600, LIBRA_END_COMPLETED, &s);
	ck_assert_double_eq_tol(s.penalty, 50, TOL);
	ck_assert_double_eq_tol(s.charge, 950, TOL);
	/* the papers' rules: the whole hour, still capped */
	p.settle_paper = true;
	r.penalty_max = 0;
	libra_record_settle(&r, &p, 700, 7600, LIBRA_END_COMPLETED, &s);
	ck_assert_double_eq_tol(s.penalty, 3600, TOL);
	/* stopped and never started again: its owner's until the end */
	p.settle_paper = false;
	r.owner = 0;
	libra_record_owner_stop(&r, 100);
	libra_record_settle(&r, &p, 0, 4000, LIBRA_END_UNSTARTED, &s);
	ck_assert_int_eq(s.how, LIBRA_END_WITHDRAWN);
	ck_assert_double_eq_tol(s.penalty, 0, TOL);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("record");
	TCase *tc;

	tc = tcase_create("round_trip");
	T(tc, test_example_decodes);
	T(tc, test_example_round_trips);
	T(tc, test_base_of_strict_tests_decodes);
	T(tc, test_awkward_values_round_trip_bit_for_bit);
	T(tc, test_slowest_place_paces_the_job);
	T(tc, test_negative_zero_is_zero);
	T(tc, test_every_end_kind_round_trips);
	T(tc, test_every_policy_round_trips);
	T(tc, test_record_without_token_round_trips);
	T(tc, test_unsettled_unstarted_record_round_trips);
	T(tc, test_minimal_sla_round_trips_without_optional_fields);
	T(tc, test_best_effort_record_has_no_sla);
	T(tc, test_admin_text_beside_the_record);
	T(tc, test_node_names_are_escaped);
	T(tc, test_record_without_places_round_trips);
	T(tc, test_many_places_round_trip);
	T(tc, test_owner_time_and_site_cap_in_the_settlement);
	T(tc, test_free_of_empty_record_is_safe);
	T(tc, test_sla_json_round_trips);
	T(tc, test_text_is_record_reads_the_version_prefix);
	T(tc, test_text_is_best_effort_of_encoded_records);
	T(tc, test_set_place_names_the_quoted_nodes);
	T(tc, test_booked_begin_round_trips);
	T(tc, test_bad_begin_is_refused);
	T(tc, test_prediction_round_trips);
	T(tc, test_replan_round_trips);
	T(tc, test_bag_round_trips);
	T(tc, test_set_place_keeps_memory_and_gpus);
	T(tc, test_memory_and_gpus_round_trip);
	T(tc, test_every_memory_and_gpu_form_round_trips);
	T(tc, test_record_without_memory_or_gpus_is_as_before);
	T(tc, test_refusal_carries_the_memory_and_gpus_asked);
	suite_add_tcase(s, tc);

	tc = tcase_create("strict");
	tcase_set_timeout(tc, 60);
	T(tc, test_unknown_top_level_field_is_refused);
	T(tc, test_unknown_nested_fields_are_refused);
	T(tc, test_wrong_types_are_refused);
	T(tc, test_negative_budget_is_refused);
	T(tc, test_out_of_range_values_are_refused);
	T(tc, test_bad_names_are_refused);
	T(tc, test_wrong_version_is_refused);
	T(tc, test_missing_sla_is_refused);
	T(tc, test_best_effort_record_with_sla_is_refused);
	T(tc, test_time_beyond_year_9999_is_refused);
	T(tc, test_sla_without_runtime_or_deadline_is_refused);
	T(tc, test_node_name_too_long_is_refused);
	T(tc, test_garbage_is_refused);
	T(tc, test_trailing_garbage_is_refused);
	T(tc, test_truncated_json_is_refused_at_every_length);
	T(tc, test_deeply_nested_junk_is_refused);
	T(tc, test_small_err_buffer_is_terminated);
	T(tc, test_sla_json_garbage_is_refused);
	T(tc, test_bad_memory_and_gpu_fields_are_refused);
	T(tc, test_scratch_disk_round_trips);
	T(tc, test_bad_scratch_disk_fields_are_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("isqos");
	T(tc, test_tier_and_target_round_trip);
	T(tc, test_bad_tier_or_target_is_refused);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
