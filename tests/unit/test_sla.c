/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_sla.c - the SLA comment grammar and its rules (sla.h).
 *
 *  Every error path is checked for its error class, for a message that
 *  names the key, and for an output record left zeroed.  The table of keys
 *  is checked against the SPANK plugin's man page, doc/man/libra_spank.8.
\*****************************************************************************/

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sla.h"
#include "testutil.h"

/* Submission time of every test: 2027-01-15T08:00:00Z. */
#define NOW 1800000000.0

static char err[256];

/* Fill a record with garbage so that "left zeroed" is really checked. */
static void _scribble(libra_sla_t *sla)
{
	memset(sla, 0xa5, sizeof(*sla));
}

static void _assert_zeroed(const libra_sla_t *sla)
{
	ck_assert_uint_eq(sla->set, 0);
	ck_assert_double_eq_tol(sla->runtime, 0.0, TOL);
	ck_assert_double_eq_tol(sla->submit, 0.0, TOL);
	ck_assert_double_eq_tol(sla->deadline, 0.0, TOL);
	ck_assert_double_eq_tol(sla->budget, 0.0, TOL);
	ck_assert_double_eq_tol(sla->penalty_rate, 0.0, TOL);
	ck_assert_double_eq_tol(sla->penalty_cap, 0.0, TOL);
	ck_assert_double_eq_tol(sla->due_date, 0.0, TOL);
	ck_assert_int_eq(sla->type, LIBRA_DEADLINE_HARD);
}

/* Parse text that must be refused with class cls and a message naming key. */
static void _expect_parse_error(const char *text, libra_sla_err_t cls,
				const char *key)
{
	libra_sla_t sla;
	libra_sla_err_t rc;

	_scribble(&sla);
	err[0] = '\0';
	rc = libra_sla_parse(text, NOW, &sla, err, sizeof(err));
	ck_assert_msg(rc == cls, "\"%s\": got %d (%s: %s), want %d (%s)",
		      text, rc, libra_sla_strerror(rc), err, cls,
		      libra_sla_strerror(cls));
	if (key)
		ck_assert_names(err, key);
	_assert_zeroed(&sla);
}

/* Parse and finish; returns the first error. */
static libra_sla_err_t _parse_finish(const char *text, double time_limit,
				     double slurm_deadline, libra_sla_t *sla)
{
	libra_sla_err_t rc;

	err[0] = '\0';
	rc = libra_sla_parse(text, NOW, sla, err, sizeof(err));
	if (rc != LIBRA_SLA_OK)
		return rc;
	return libra_sla_finish(sla, time_limit, slurm_deadline, 0, err,
				sizeof(err));
}

static double _duration(const char *s)
{
	double secs = -1;
	libra_sla_err_t rc;

	rc = libra_parse_duration("runtime", s, &secs, err, sizeof(err));
	ck_assert_msg(rc == LIBRA_SLA_OK, "\"%s\": %s", s, err);
	return secs;
}

/* ---------------------------------------------------------------- */
/* The happy path                                                     */
/* ---------------------------------------------------------------- */

START_TEST(test_parse_spec_example_sets_every_field)
{
	/* sla.h's example: runtime=30m,deadline=3h,budget=40,type=soft,
	 * penalty=0.1 -> RE 1800 s, TD = now + 10800, B 40, PR 0.1. */
	libra_sla_t sla;

	ck_assert_int_eq(libra_sla_parse(
		"runtime=30m,deadline=3h,budget=40,type=soft,penalty=0.1",
		NOW, &sla, err, sizeof(err)), LIBRA_SLA_OK);
	ck_assert_uint_eq(sla.set, LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE |
			  LIBRA_SLA_BUDGET | LIBRA_SLA_TYPE |
			  LIBRA_SLA_PENALTY);
	ck_assert_double_eq_tol(sla.runtime, 1800.0, TOL);
	ck_assert_double_eq_tol(sla.submit, NOW, TOL);
	ck_assert_double_eq_tol(sla.deadline, NOW + 10800.0, TOL);
	ck_assert_double_eq_tol(sla.budget, 40.0, TOL);
	ck_assert_double_eq_tol(sla.penalty_rate, 0.1, TOL);
	ck_assert_int_eq(sla.type, LIBRA_DEADLINE_SOFT);
	ck_assert(libra_sla_has_budget(&sla));
}
END_TEST

START_TEST(test_parse_sets_only_given_fields)
{
	libra_sla_t sla;

	ck_assert_int_eq(libra_sla_parse("budget=900,penalty=2.5", NOW, &sla,
					 err, sizeof(err)), LIBRA_SLA_OK);
	ck_assert_uint_eq(sla.set, LIBRA_SLA_BUDGET | LIBRA_SLA_PENALTY);
	ck_assert_double_eq_tol(sla.budget, 900.0, TOL);
	ck_assert_double_eq_tol(sla.penalty_rate, 2.5, TOL);
}
END_TEST

START_TEST(test_parse_penalty_cap_and_duedate)
{
	/* duedate=1h -> now + 3600; penalty_cap=7.5. */
	libra_sla_t sla;

	ck_assert_int_eq(libra_sla_parse(
		"runtime=10m,deadline=2h,duedate=1h,penalty_cap=7.5", NOW,
		&sla, err, sizeof(err)), LIBRA_SLA_OK);
	ck_assert(sla.set & LIBRA_SLA_DUEDATE);
	ck_assert(sla.set & LIBRA_SLA_PENALTY_CAP);
	ck_assert_double_eq_tol(sla.due_date, NOW + 3600.0, TOL);
	ck_assert_double_eq_tol(sla.penalty_cap, 7.5, TOL);
}
END_TEST

START_TEST(test_parse_type_hard)
{
	libra_sla_t sla;

	ck_assert_int_eq(libra_sla_parse("type=hard", NOW, &sla, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert(sla.set & LIBRA_SLA_TYPE);
	ck_assert_int_eq(sla.type, LIBRA_DEADLINE_HARD);
}
END_TEST

START_TEST(test_parse_empty_text_sets_nothing)
{
	/* sla.h does not say whether "" is an SLA with no fields or one
	 * empty pair (ESYNTAX); either way nothing is set. */
	libra_sla_t sla;
	libra_sla_err_t rc;

	_scribble(&sla);
	rc = libra_sla_parse("", NOW, &sla, err, sizeof(err));
	ck_assert(rc == LIBRA_SLA_OK || rc == LIBRA_SLA_ESYNTAX);
	ck_assert_uint_eq(sla.set, 0);
}
END_TEST

START_TEST(test_parse_text_of_max_length_is_accepted)
{
	/* Exactly LIBRA_SLA_MAX_TEXT bytes: "budget=1" padded with spaces
	 * (allowed around pairs). */
	char text[LIBRA_SLA_MAX_TEXT + 1];
	libra_sla_t sla;

	memset(text, ' ', LIBRA_SLA_MAX_TEXT);
	memcpy(text, "budget=1", 8);
	text[LIBRA_SLA_MAX_TEXT] = '\0';
	ck_assert_msg(libra_sla_parse(text, NOW, &sla, err, sizeof(err)) ==
		      LIBRA_SLA_OK, "%s", err);
	ck_assert_double_eq_tol(sla.budget, 1.0, TOL);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Durations (sla.h: "90s", "45m", "2h", "1.5h", "3d", [D-]HH:MM:SS,  */
/* MM:SS, D-HH, D-HH:MM, bare number = minutes)                       */
/* ---------------------------------------------------------------- */

START_TEST(test_duration_seconds_suffix)
{
	ck_assert_double_eq_tol(_duration("90s"), 90.0, TOL);
}
END_TEST

START_TEST(test_duration_minutes_suffix)
{
	/* 45 * 60 = 2700 */
	ck_assert_double_eq_tol(_duration("45m"), 2700.0, TOL);
}
END_TEST

START_TEST(test_duration_hours_suffix)
{
	/* 2 * 3600 = 7200 */
	ck_assert_double_eq_tol(_duration("2h"), 7200.0, TOL);
}
END_TEST

START_TEST(test_duration_fractional_hours)
{
	/* 1.5 * 3600 = 5400 */
	ck_assert_double_eq_tol(_duration("1.5h"), 5400.0, TOL);
}
END_TEST

START_TEST(test_duration_days_suffix)
{
	/* 3 * 86400 = 259200 */
	ck_assert_double_eq_tol(_duration("3d"), 259200.0, TOL);
}
END_TEST

START_TEST(test_duration_slurm_days_hours_minutes_seconds)
{
	/* 1-12:00:00 = 86400 + 12 * 3600 = 129600 */
	ck_assert_double_eq_tol(_duration("1-12:00:00"), 129600.0, TOL);
}
END_TEST

START_TEST(test_duration_slurm_hours_minutes_seconds)
{
	/* 1:02:03 = 3600 + 120 + 3 = 3723 */
	ck_assert_double_eq_tol(_duration("1:02:03"), 3723.0, TOL);
}
END_TEST

START_TEST(test_duration_two_fields_are_minutes_seconds)
{
	/* 12:30 = MM:SS (as Slurm's --time) = 12 * 60 + 30 = 750 */
	ck_assert_double_eq_tol(_duration("12:30"), 750.0, TOL);
}
END_TEST

START_TEST(test_duration_days_hours)
{
	/* 2-6 = D-HH = 2 * 86400 + 6 * 3600 = 194400 */
	ck_assert_double_eq_tol(_duration("2-6"), 194400.0, TOL);
}
END_TEST

START_TEST(test_duration_days_hours_minutes)
{
	/* 1-2:30 = D-HH:MM = 86400 + 2 * 3600 + 30 * 60 = 95400 */
	ck_assert_double_eq_tol(_duration("1-2:30"), 95400.0, TOL);
}
END_TEST

START_TEST(test_duration_bare_number_is_minutes)
{
	/* 30 = 30 minutes (as --time) = 1800 */
	ck_assert_double_eq_tol(_duration("30"), 1800.0, TOL);
}
END_TEST

START_TEST(test_duration_ten_years_is_the_limit)
{
	/* 3650d = LIBRA_SLA_MAX_DURATION is accepted, 3651d is not. */
	double secs;

	ck_assert_double_eq_tol(_duration("3650d"), LIBRA_SLA_MAX_DURATION,
				TOL);
	ck_assert_int_eq(libra_parse_duration("runtime", "3651d", &secs, err,
					      sizeof(err)), LIBRA_SLA_ERANGE);
	ck_assert_names(err, "runtime");
}
END_TEST

START_TEST(test_duration_bad_unit_is_evalue_naming_what)
{
	double secs;

	ck_assert_int_eq(libra_parse_duration("deadline", "90x", &secs, err,
					      sizeof(err)), LIBRA_SLA_EVALUE);
	ck_assert_names(err, "deadline");
}
END_TEST

START_TEST(test_duration_garbage_forms_are_refused)
{
	static const char *bad[] = {
		"", "h", "1:2:3:4", "1--2", "1-", "-", ":", "1::2", "1h2",
		"abc", "0x10m", "1e", "2 h", "nanh", "infm", "1.5.2h",
	};
	double secs;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		libra_sla_err_t rc = libra_parse_duration("runtime", bad[i],
							  &secs, err,
							  sizeof(err));
		ck_assert_msg(rc == LIBRA_SLA_EVALUE || rc == LIBRA_SLA_ERANGE,
			      "\"%s\" gave %d", bad[i], rc);
		ck_assert_names(err, "runtime");
	}
}
END_TEST

START_TEST(test_runtime_key_uses_duration_grammar)
{
	/* runtime=1-12:00:00 -> 129600 s */
	libra_sla_t sla;

	ck_assert_int_eq(libra_sla_parse("runtime=1-12:00:00", NOW, &sla, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.runtime, 129600.0, TOL);
}
END_TEST

START_TEST(test_relative_deadline_counts_from_now)
{
	/* deadline=90 (minutes) -> now + 5400 */
	libra_sla_t sla;

	ck_assert_int_eq(libra_sla_parse("deadline=90", NOW, &sla, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.deadline, NOW + 5400.0, TOL);
}
END_TEST

START_TEST(test_format_duration_examples)
{
	/* The examples of sla.h: 7200 -> "2h", 5400 -> "1h30m", 45 -> "45s",
	 * 3 * 86400 + 4 * 3600 = 273600 -> "3d4h". */
	char buf[64];

	libra_format_duration(7200, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2h");
	libra_format_duration(5400, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1h30m");
	libra_format_duration(45, buf, sizeof(buf));
	ck_assert_str_eq(buf, "45s");
	libra_format_duration(273600, buf, sizeof(buf));
	ck_assert_str_eq(buf, "3d4h");
}
END_TEST

START_TEST(test_format_duration_truncates_to_buffer)
{
	char buf[3];

	memset(buf, 'x', sizeof(buf));
	libra_format_duration(273600, buf, sizeof(buf));
	ck_assert(memchr(buf, '\0', sizeof(buf)) != NULL);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Absolute deadlines                                                 */
/* ---------------------------------------------------------------- */

/* The local zone of these tests is two hours east of UTC. */
static void _set_tz(void)
{
	setenv("TZ", "LIB-2", 1);
	tzset();
}

/* 2030-01-02T03:04:05 in UTC, by timegm. */
static double _utc(int sec)
{
	struct tm tm = { 0 };

	tm.tm_year = 2030 - 1900;
	tm.tm_mon = 0;
	tm.tm_mday = 2;
	tm.tm_hour = 3;
	tm.tm_min = 4;
	tm.tm_sec = sec;
	return (double) timegm(&tm);
}

START_TEST(test_absolute_deadline_local_time)
{
	/* 2030-01-02T03:04 local = 01:04 UTC in zone UTC+2. */
	libra_sla_t sla;

	_set_tz();
	ck_assert_int_eq(libra_sla_parse("deadline=2030-01-02T03:04", NOW,
					 &sla, err, sizeof(err)),
			 LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.deadline, _utc(0) - 7200.0, TOL);
}
END_TEST

START_TEST(test_absolute_deadline_local_time_with_seconds)
{
	libra_sla_t sla;

	_set_tz();
	ck_assert_int_eq(libra_sla_parse("deadline=2030-01-02T03:04:05", NOW,
					 &sla, err, sizeof(err)),
			 LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.deadline, _utc(5) - 7200.0, TOL);
}
END_TEST

START_TEST(test_absolute_deadline_utc)
{
	/* A trailing Z: 2030-01-02T03:04:05Z, independent of TZ. */
	libra_sla_t sla;

	_set_tz();
	ck_assert_int_eq(libra_sla_parse("deadline=2030-01-02T03:04:05Z", NOW,
					 &sla, err, sizeof(err)),
			 LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.deadline, _utc(5), TOL);
}
END_TEST

START_TEST(test_absolute_duedate_utc)
{
	libra_sla_t sla;

	ck_assert_int_eq(libra_sla_parse("duedate=2030-01-02T03:04Z", NOW,
					 &sla, err, sizeof(err)),
			 LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.due_date, _utc(0), TOL);
}
END_TEST

START_TEST(test_absolute_deadline_malformed_is_evalue)
{
	_expect_parse_error("deadline=2030-13-02T03:04", LIBRA_SLA_EVALUE,
			    "deadline");
	_expect_parse_error("deadline=2030-01-02T25:04", LIBRA_SLA_EVALUE,
			    "deadline");
	_expect_parse_error("deadline=2030-01-02T03:04Q", LIBRA_SLA_EVALUE,
			    "deadline");
	_expect_parse_error("deadline=2030-01-02", LIBRA_SLA_EVALUE,
			    "deadline");
}
END_TEST

START_TEST(test_absolute_deadline_in_the_past_fails_finish)
{
	/* TD = 2020-01-01 is before now + runtime: EDEADLINE. */
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=2020-01-01T00:00Z",
				       0, 0, &sla), LIBRA_SLA_EDEADLINE);
	ck_assert_names(err, "deadline");
}
END_TEST

/* ---------------------------------------------------------------- */
/* Every error path of the parser                                     */
/* ---------------------------------------------------------------- */

START_TEST(test_unknown_key_is_ekey_naming_it)
{
	_expect_parse_error("runtime=1h,colour=blue", LIBRA_SLA_EKEY,
			    "colour");
}
END_TEST

START_TEST(test_key_match_is_exact)
{
	/* A prefix or an extension of a key is not the key. */
	_expect_parse_error("run=1h", LIBRA_SLA_EKEY, "run");
	_expect_parse_error("runtimes=1h", LIBRA_SLA_EKEY, "runtimes");
}
END_TEST

START_TEST(test_duplicate_key_is_edup_naming_it)
{
	_expect_parse_error("budget=1,runtime=1h,budget=2", LIBRA_SLA_EDUP,
			    "budget");
}
END_TEST

START_TEST(test_duplicate_key_with_same_value_is_still_edup)
{
	_expect_parse_error("budget=1,budget=1", LIBRA_SLA_EDUP, "budget");
}
END_TEST

START_TEST(test_empty_value_is_refused_naming_key)
{
	/* sla.h leaves the class of "budget=" open between ESYNTAX ("empty
	 * pair") and EVALUE ("does not parse"); either, naming the key. */
	static const char *texts[] = { "budget=", "runtime=1h,deadline=" };
	static const char *keys[] = { "budget", "deadline" };

	for (int i = 0; i < 2; i++) {
		libra_sla_t sla;
		libra_sla_err_t rc;

		_scribble(&sla);
		rc = libra_sla_parse(texts[i], NOW, &sla, err, sizeof(err));
		ck_assert_msg(rc == LIBRA_SLA_ESYNTAX || rc == LIBRA_SLA_EVALUE,
			      "\"%s\" gave %d", texts[i], rc);
		ck_assert_names(err, keys[i]);
		_assert_zeroed(&sla);
	}
}
END_TEST

START_TEST(test_missing_equals_is_esyntax_naming_key)
{
	_expect_parse_error("runtime=1h,budget", LIBRA_SLA_ESYNTAX, "budget");
}
END_TEST

START_TEST(test_empty_key_is_refused)
{
	libra_sla_t sla;
	libra_sla_err_t rc;

	_scribble(&sla);
	rc = libra_sla_parse("=5", NOW, &sla, err, sizeof(err));
	ck_assert(rc == LIBRA_SLA_ESYNTAX || rc == LIBRA_SLA_EKEY);
	_assert_zeroed(&sla);
}
END_TEST

START_TEST(test_empty_pair_in_the_middle_is_esyntax)
{
	/* sla.h: ESYNTAX covers "empty pair". */
	_expect_parse_error("runtime=1h,,budget=2", LIBRA_SLA_ESYNTAX, NULL);
}
END_TEST

START_TEST(test_trailing_comma_is_esyntax)
{
	/* A trailing comma leaves an empty pair. */
	_expect_parse_error("runtime=1h,budget=2,", LIBRA_SLA_ESYNTAX, NULL);
}
END_TEST

START_TEST(test_leading_comma_is_esyntax)
{
	_expect_parse_error(",runtime=1h", LIBRA_SLA_ESYNTAX, NULL);
}
END_TEST

START_TEST(test_spaces_around_pairs_are_allowed)
{
	/* "runtime=30m, budget=40" is what people type after a comma. */
	libra_sla_t sla;

	ck_assert_int_eq(libra_sla_parse(" runtime=30m, budget=40 ", NOW,
					 &sla, err, sizeof(err)),
			 LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.runtime, 1800.0, TOL);
	ck_assert_double_eq_tol(sla.budget, 40.0, TOL);
}
END_TEST

START_TEST(test_space_inside_value_is_refused)
{
	libra_sla_t sla;
	libra_sla_err_t rc;

	_scribble(&sla);
	rc = libra_sla_parse("budget=4 0", NOW, &sla, err, sizeof(err));
	ck_assert_int_ne(rc, LIBRA_SLA_OK);
	ck_assert_names(err, "budget");
	_assert_zeroed(&sla);
}
END_TEST

START_TEST(test_bad_unit_is_evalue_naming_key)
{
	_expect_parse_error("runtime=90x", LIBRA_SLA_EVALUE, "runtime");
	_expect_parse_error("deadline=3y", LIBRA_SLA_EVALUE, "deadline");
}
END_TEST

START_TEST(test_non_numeric_money_is_evalue_naming_key)
{
	_expect_parse_error("budget=12x", LIBRA_SLA_EVALUE, "budget");
	_expect_parse_error("penalty=cheap", LIBRA_SLA_EVALUE, "penalty");
}
END_TEST

START_TEST(test_negative_money_is_erange_naming_key)
{
	/* sla.h: ERANGE is "negative, not finite, zero, too large". */
	_expect_parse_error("budget=-1", LIBRA_SLA_ERANGE, "budget");
	_expect_parse_error("penalty=-0.5", LIBRA_SLA_ERANGE, "penalty");
	_expect_parse_error("penalty_cap=-3", LIBRA_SLA_ERANGE,
			    "penalty_cap");
}
END_TEST

START_TEST(test_negative_duration_is_erange_naming_key)
{
	_expect_parse_error("runtime=-5m", LIBRA_SLA_ERANGE, "runtime");
}
END_TEST

START_TEST(test_nan_and_inf_are_refused_naming_key)
{
	/* sla.h: the words "nan"/"inf" are refused (libra_parse_money); the
	 * class is EVALUE (not a decimal number) or ERANGE (not finite). */
	static const char *texts[] = { "budget=nan", "budget=inf",
				       "penalty=infinity", "budget=NaN",
				       "penalty_cap=-inf" };
	static const char *keys[] = { "budget", "budget", "penalty", "budget",
				      "penalty_cap" };

	for (int i = 0; i < 5; i++) {
		libra_sla_t sla;
		libra_sla_err_t rc;

		_scribble(&sla);
		rc = libra_sla_parse(texts[i], NOW, &sla, err, sizeof(err));
		ck_assert_msg(rc == LIBRA_SLA_EVALUE || rc == LIBRA_SLA_ERANGE,
			      "\"%s\" gave %d", texts[i], rc);
		ck_assert_names(err, keys[i]);
		_assert_zeroed(&sla);
	}
}
END_TEST

START_TEST(test_hex_is_evalue_naming_key)
{
	_expect_parse_error("budget=0x10", LIBRA_SLA_EVALUE, "budget");
	_expect_parse_error("runtime=0x10m", LIBRA_SLA_EVALUE, "runtime");
}
END_TEST

START_TEST(test_overflowing_number_is_erange_naming_key)
{
	/* 1e400 overflows a double; 1e16 > LIBRA_SLA_MAX_MONEY (1e15). */
	_expect_parse_error("budget=1e400", LIBRA_SLA_ERANGE, "budget");
	_expect_parse_error("budget=1e16", LIBRA_SLA_ERANGE, "budget");
	_expect_parse_error("penalty=1e400", LIBRA_SLA_ERANGE, "penalty");
}
END_TEST

START_TEST(test_absurdly_long_numbers_are_refused_naming_key)
{
	/* 10^20 minutes, a 100-digit number of hours, a 70-digit budget:
	 * refused as out of range or as unparsable, never overflowing. */
	static const char *texts[] = {
		"runtime=100000000000000000000",
		"runtime=999999999999999999999999999999999999999999999999999"
		"9999999999999999999999999999999999999999999999999h",
		"budget=9999999999999999999999999999999999999999999999999999"
		"999999999999999",
	};
	static const char *keys[] = { "runtime", "runtime", "budget" };

	for (int i = 0; i < 3; i++) {
		libra_sla_t sla;
		libra_sla_err_t rc;

		_scribble(&sla);
		rc = libra_sla_parse(texts[i], NOW, &sla, err, sizeof(err));
		ck_assert_msg(rc == LIBRA_SLA_EVALUE || rc == LIBRA_SLA_ERANGE,
			      "\"%s\" gave %d", texts[i], rc);
		ck_assert_names(err, keys[i]);
		_assert_zeroed(&sla);
	}
}
END_TEST

START_TEST(test_money_limit_itself_is_accepted)
{
	libra_sla_t sla;

	ck_assert_int_eq(libra_sla_parse("budget=1e15", NOW, &sla, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.budget, LIBRA_SLA_MAX_MONEY, 1.0);
}
END_TEST

START_TEST(test_duration_over_ten_years_is_erange_naming_key)
{
	/* 3651d > 3650 * 86400; 87601h > 10 y; 5256001 min = 3650.0007 d;
	 * 5000-00:00:00 = 5000 d */
	_expect_parse_error("runtime=3651d", LIBRA_SLA_ERANGE, "runtime");
	_expect_parse_error("deadline=87601h", LIBRA_SLA_ERANGE, "deadline");
	_expect_parse_error("duedate=5256001", LIBRA_SLA_ERANGE, "duedate");
	_expect_parse_error("runtime=5000-00:00:00", LIBRA_SLA_ERANGE,
			    "runtime");
}
END_TEST

START_TEST(test_absolute_deadline_over_ten_years_is_refused)
{
	/* 9999-01-01 is more than ten years after now. */
	libra_sla_t sla;
	libra_sla_err_t rc;

	_scribble(&sla);
	rc = libra_sla_parse("deadline=9999-01-01T00:00Z", NOW, &sla, err,
			     sizeof(err));
	ck_assert_msg(rc == LIBRA_SLA_ERANGE || rc == LIBRA_SLA_EVALUE,
		      "got %d", rc);
	ck_assert_names(err, "deadline");
	_assert_zeroed(&sla);
}
END_TEST

START_TEST(test_zero_runtime_is_erange_naming_runtime)
{
	/* sla.h: runtime > 0 (ERANGE "zero"), whether parse or finish
	 * catches it. */
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=0,deadline=1h", 0, 0, &sla),
			 LIBRA_SLA_ERANGE);
	ck_assert_names(err, "runtime");
	ck_assert_int_eq(_parse_finish("runtime=0s,deadline=1h", 0, 0, &sla),
			 LIBRA_SLA_ERANGE);
	ck_assert_names(err, "runtime");
}
END_TEST

START_TEST(test_deadline_before_runtime_is_edeadline)
{
	/* RE 2 h, D 1 h: TD = now + 3600 < now + 7200. */
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=2h,deadline=1h", 0, 0, &sla),
			 LIBRA_SLA_EDEADLINE);
	ck_assert_names(err, "deadline");
}
END_TEST

START_TEST(test_deadline_equal_to_runtime_is_edeadline)
{
	/* sla.h: the deadline must *exceed* the runtime estimate. */
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=1h", 0, 0, &sla),
			 LIBRA_SLA_EDEADLINE);
}
END_TEST

START_TEST(test_bad_type_is_evalue_naming_type)
{
	_expect_parse_error("type=medium", LIBRA_SLA_EVALUE, "type");
}
END_TEST

START_TEST(test_non_printable_byte_in_value_is_esyntax_naming_key)
{
	_expect_parse_error("budget=1\x01", LIBRA_SLA_ESYNTAX, "budget");
	_expect_parse_error("runtime=1h\t", LIBRA_SLA_ESYNTAX, "runtime");
}
END_TEST

START_TEST(test_non_ascii_byte_is_esyntax)
{
	_expect_parse_error("budget=1\xc3\xa9", LIBRA_SLA_ESYNTAX, NULL);
	_expect_parse_error("r\xffuntime=1h", LIBRA_SLA_ESYNTAX, NULL);
	_expect_parse_error("runtime=1h\n,budget=1", LIBRA_SLA_ESYNTAX, NULL);
}
END_TEST

START_TEST(test_text_longer_than_limit_is_etoolong)
{
	/* LIBRA_SLA_MAX_TEXT + 1 bytes. */
	char text[LIBRA_SLA_MAX_TEXT + 2];
	size_t n = strlen("budget=");

	memcpy(text, "budget=", n);
	memset(text + n, '0', LIBRA_SLA_MAX_TEXT + 1 - n - 1);
	text[LIBRA_SLA_MAX_TEXT] = '1';
	text[LIBRA_SLA_MAX_TEXT + 1] = '\0';
	ck_assert_uint_eq(strlen(text), LIBRA_SLA_MAX_TEXT + 1);
	_expect_parse_error(text, LIBRA_SLA_ETOOLONG, NULL);
}
END_TEST

START_TEST(test_error_after_valid_pairs_leaves_output_zeroed)
{
	/* Nothing half-parsed escapes: the good pairs before the bad one are
	 * not in the output. */
	_expect_parse_error("runtime=1h,deadline=2h,budget=10,colour=red",
			    LIBRA_SLA_EKEY, "colour");
}
END_TEST

START_TEST(test_null_err_buffer_is_allowed)
{
	libra_sla_t sla;

	ck_assert_int_eq(libra_sla_parse("colour=red", NOW, &sla, NULL, 0),
			 LIBRA_SLA_EKEY);
	_assert_zeroed(&sla);
}
END_TEST

START_TEST(test_small_err_buffer_is_terminated)
{
	char small[8];
	libra_sla_t sla;

	memset(small, 'x', sizeof(small));
	ck_assert_int_eq(libra_sla_parse("colour=red", NOW, &sla, small,
					 sizeof(small)), LIBRA_SLA_EKEY);
	ck_assert(memchr(small, '\0', sizeof(small)) != NULL);
}
END_TEST

START_TEST(test_strerror_names_every_class)
{
	for (int e = LIBRA_SLA_OK; e <= LIBRA_SLA_ETOOLONG; e++) {
		const char *s = libra_sla_strerror((libra_sla_err_t) e);

		ck_assert_ptr_nonnull(s);
		ck_assert_uint_gt(strlen(s), 0);
		for (int f = LIBRA_SLA_OK; f < e; f++)
			ck_assert_str_ne(s, libra_sla_strerror(
						(libra_sla_err_t) f));
	}
}
END_TEST

/* ---------------------------------------------------------------- */
/* libra_parse_money                                                  */
/* ---------------------------------------------------------------- */

START_TEST(test_money_accepts_decimal_forms)
{
	double v;

	ck_assert_int_eq(libra_parse_money("budget", "12", &v, err,
					   sizeof(err)), LIBRA_SLA_OK);
	ck_assert_double_eq_tol(v, 12.0, TOL);
	ck_assert_int_eq(libra_parse_money("budget", "0.5", &v, err,
					   sizeof(err)), LIBRA_SLA_OK);
	ck_assert_double_eq_tol(v, 0.5, TOL);
	ck_assert_int_eq(libra_parse_money("budget", "1e3", &v, err,
					   sizeof(err)), LIBRA_SLA_OK);
	ck_assert_double_eq_tol(v, 1000.0, TOL);
	ck_assert_int_eq(libra_parse_money("budget", "0", &v, err,
					   sizeof(err)), LIBRA_SLA_OK);
	ck_assert_double_eq_tol(v, 0.0, TOL);
}
END_TEST

START_TEST(test_money_refuses_signs_hex_inf_nan_garbage)
{
	static const char *bad[] = {
		"+1", "-1", "0x10", "inf", "nan", "12abc", "", " 1", "1 ",
		"1,5", "--1", "1e", ".",
	};
	double v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		libra_sla_err_t rc = libra_parse_money("budget", bad[i], &v,
						       err, sizeof(err));
		ck_assert_msg(rc == LIBRA_SLA_EVALUE || rc == LIBRA_SLA_ERANGE,
			      "\"%s\" gave %d", bad[i], rc);
		ck_assert_names(err, "budget");
	}
}
END_TEST

START_TEST(test_money_refuses_a_unit_after_the_number)
{
	/* the SPANK plugin's plugstack numbers: "interval=5x" */
	double v;

	ck_assert_int_eq(libra_parse_money("interval=5x", "5x", &v, err,
					   sizeof(err)), LIBRA_SLA_EVALUE);
	ck_assert_names(err, "interval=5x");
	ck_assert_int_eq(libra_parse_money("interval=5s", "5s", &v, err,
					   sizeof(err)), LIBRA_SLA_EVALUE);
}
END_TEST

/* ---------------------------------------------------------------- */
/* libra_sla_parse_field (the SPANK options)                          */
/* ---------------------------------------------------------------- */

START_TEST(test_parse_field_sets_one_field)
{
	libra_sla_t sla;

	memset(&sla, 0, sizeof(sla));
	ck_assert_int_eq(libra_sla_parse_field("deadline", "2h", NOW, &sla,
					       err, sizeof(err)),
			 LIBRA_SLA_OK);
	ck_assert(sla.set & LIBRA_SLA_DEADLINE);
	ck_assert_double_eq_tol(sla.deadline, NOW + 7200.0, TOL);
	ck_assert_int_eq(libra_sla_parse_field("budget", "5", NOW, &sla,
					       err, sizeof(err)),
			 LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.budget, 5.0, TOL);
	ck_assert(sla.set & LIBRA_SLA_DEADLINE);
}
END_TEST

START_TEST(test_parse_field_same_rules_as_parse)
{
	libra_sla_t sla;

	memset(&sla, 0, sizeof(sla));
	ck_assert_int_eq(libra_sla_parse_field("colour", "red", NOW, &sla,
					       err, sizeof(err)),
			 LIBRA_SLA_EKEY);
	ck_assert_names(err, "colour");
	ck_assert_int_eq(libra_sla_parse_field("budget", "-1", NOW, &sla, err,
					       sizeof(err)), LIBRA_SLA_ERANGE);
	ck_assert_names(err, "budget");
	ck_assert_int_eq(libra_sla_parse_field("runtime", "90x", NOW, &sla,
					       err, sizeof(err)),
			 LIBRA_SLA_EVALUE);
	ck_assert_names(err, "runtime");
}
END_TEST

/* ---------------------------------------------------------------- */
/* libra_sla_merge                                                    */
/* ---------------------------------------------------------------- */

START_TEST(test_merge_copies_fields_only_in_src)
{
	libra_sla_t dst, src;

	ck_assert_int_eq(libra_sla_parse("runtime=1h", NOW, &dst, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert_int_eq(libra_sla_parse("budget=9,type=soft", NOW, &src, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert_int_eq(libra_sla_merge(&dst, "--comment", &src, "--budget",
					 err, sizeof(err)), LIBRA_SLA_OK);
	ck_assert_uint_eq(dst.set, LIBRA_SLA_RUNTIME | LIBRA_SLA_BUDGET |
			  LIBRA_SLA_TYPE);
	ck_assert_double_eq_tol(dst.runtime, 3600.0, TOL);
	ck_assert_double_eq_tol(dst.budget, 9.0, TOL);
	ck_assert_int_eq(dst.type, LIBRA_DEADLINE_SOFT);
}
END_TEST

START_TEST(test_merge_same_value_in_both_is_fine)
{
	libra_sla_t dst, src;

	libra_sla_parse("budget=9,runtime=1h", NOW, &dst, err, sizeof(err));
	libra_sla_parse("budget=9", NOW, &src, err, sizeof(err));
	ck_assert_int_eq(libra_sla_merge(&dst, "--comment", &src, "--budget",
					 err, sizeof(err)), LIBRA_SLA_OK);
	ck_assert_double_eq_tol(dst.budget, 9.0, TOL);
}
END_TEST

START_TEST(test_merge_conflict_is_edup_naming_key_and_sources)
{
	libra_sla_t dst, src;

	libra_sla_parse("budget=9", NOW, &dst, err, sizeof(err));
	libra_sla_parse("budget=10", NOW, &src, err, sizeof(err));
	ck_assert_int_eq(libra_sla_merge(&dst, "--comment", &src,
					 "--libra-budget", err, sizeof(err)),
			 LIBRA_SLA_EDUP);
	ck_assert_names(err, "budget");
	ck_assert_names(err, "--comment");
	ck_assert_names(err, "--libra-budget");
}
END_TEST

START_TEST(test_merge_conflicting_type_and_deadline)
{
	libra_sla_t dst, src;

	libra_sla_parse("type=hard", NOW, &dst, err, sizeof(err));
	libra_sla_parse("type=soft", NOW, &src, err, sizeof(err));
	ck_assert_int_eq(libra_sla_merge(&dst, "a", &src, "b", err,
					 sizeof(err)), LIBRA_SLA_EDUP);
	ck_assert_names(err, "type");

	libra_sla_parse("deadline=2h", NOW, &dst, err, sizeof(err));
	libra_sla_parse("deadline=3h", NOW, &src, err, sizeof(err));
	ck_assert_int_eq(libra_sla_merge(&dst, "a", &src, "b", err,
					 sizeof(err)), LIBRA_SLA_EDUP);
	ck_assert_names(err, "deadline");
}
END_TEST

/* ---------------------------------------------------------------- */
/* libra_sla_finish                                                   */
/* ---------------------------------------------------------------- */

START_TEST(test_finish_applies_defaults)
{
	/* Unset budget = no limit, unset penalty = 0, unset type = hard. */
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=2h", 0, 0, &sla),
			 LIBRA_SLA_OK);
	ck_assert(!libra_sla_has_budget(&sla));
	ck_assert_double_eq_tol(sla.penalty_rate, 0.0, TOL);
	ck_assert_int_eq(sla.type, LIBRA_DEADLINE_HARD);
	ck_assert_double_eq_tol(sla.runtime, 3600.0, TOL);
	ck_assert_double_eq_tol(sla.deadline, NOW + 7200.0, TOL);
}
END_TEST

START_TEST(test_finish_takes_runtime_from_time_limit)
{
	/* No runtime=: RE = --time = 5400 s. */
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("deadline=3h", 5400, 0, &sla),
			 LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.runtime, 5400.0, TOL);
}
END_TEST

START_TEST(test_finish_runtime_key_wins_over_time_limit)
{
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=30m,deadline=3h", 7200, 0,
				       &sla), LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.runtime, 1800.0, TOL);
}
END_TEST

START_TEST(test_finish_takes_deadline_from_slurm_deadline)
{
	/* No deadline=: TD = --deadline = now + 6 h. */
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=1h", 0, NOW + 21600.0, &sla),
			 LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.deadline, NOW + 21600.0, TOL);
}
END_TEST

START_TEST(test_finish_slurm_deadline_and_key_agreeing_is_fine)
{
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=6h", 0,
				       NOW + 21600.0, &sla), LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.deadline, NOW + 21600.0, TOL);
}
END_TEST

START_TEST(test_finish_slurm_deadline_conflict_is_edup)
{
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=3h", 0,
				       NOW + 21600.0, &sla), LIBRA_SLA_EDUP);
	ck_assert_names(err, "deadline");
}
END_TEST

START_TEST(test_finish_time_limit_and_slurm_deadline_alone_suffice)
{
	/* sbatch --time=2:00:00 --deadline=now+6hours with only a budget. */
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("budget=900,penalty=2.5", 7200,
				       NOW + 21600.0, &sla), LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.runtime, 7200.0, TOL);
	ck_assert_double_eq_tol(sla.deadline, NOW + 21600.0, TOL);
	ck_assert(libra_sla_has_budget(&sla));
}
END_TEST

START_TEST(test_finish_missing_runtime_is_emissing)
{
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("deadline=3h", 0, 0, &sla),
			 LIBRA_SLA_EMISSING);
	ck_assert_names(err, "runtime");
}
END_TEST

START_TEST(test_finish_missing_deadline_is_emissing)
{
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=1h", 0, 0, &sla),
			 LIBRA_SLA_EMISSING);
	ck_assert_names(err, "deadline");
}
END_TEST

START_TEST(test_finish_time_limit_shorter_than_deadline_rule)
{
	/* --time 4 h, deadline=3h: TD = now + 10800 < now + 14400. */
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("deadline=3h", 14400, 0, &sla),
			 LIBRA_SLA_EDEADLINE);
}
END_TEST

START_TEST(test_finish_duedate_after_deadline_is_refused)
{
	libra_sla_t sla;

	ck_assert_int_ne(_parse_finish("runtime=1h,deadline=2h,duedate=3h", 0,
				       0, &sla), LIBRA_SLA_OK);
	ck_assert_names(err, "duedate");
}
END_TEST

/* The refusals of libra_sla_finish() name the durations in question. */
START_TEST(test_finish_messages_name_the_durations)
{
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=2h,deadline=1h30m", 0, 0,
				       &sla), LIBRA_SLA_EDEADLINE);
	ck_assert_str_eq(err, "deadline: 1h30m from submission is not after the runtime estimate 2h");
	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=2020-01-01T00:00Z",
				       0, 0, &sla), LIBRA_SLA_EDEADLINE);
	ck_assert_str_eq(err, "deadline: in the past from submission is not after the runtime estimate 1h");
	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=2h,duedate=3h", 0,
				       0, &sla), LIBRA_SLA_ERANGE);
	ck_assert_str_eq(err, "duedate: 3h from submission is after the deadline 2h");
	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=3h,duedate=45m",
				       0, 0, &sla), LIBRA_SLA_EDEADLINE);
	ck_assert_str_eq(err, "duedate: 45m from submission is before the runtime estimate 1h has run");
}
END_TEST

/* With a predictor (decision 23) the runtime is held against the deadline
 * after the prediction: finish leaves it, libra_sla_check_runtime() says
 * the same as finish would have. */
START_TEST(test_finish_runtime_later_leaves_the_comparison)
{
	const char *text[] = { "runtime=2h,deadline=1h30m",
			       "runtime=1h,deadline=3h,duedate=45m" };
	const char *said[] = {
		"deadline: 1h30m from submission is not after the runtime estimate 2h",
		"duedate: 45m from submission is before the runtime estimate 1h has run" };
	libra_sla_t sla;

	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(libra_sla_parse(text[i], NOW, &sla, err,
						 sizeof(err)), LIBRA_SLA_OK);
		ck_assert_int_eq(libra_sla_finish(&sla, 0, 0,
						  LIBRA_SLA_RUNTIME_LATER, err,
						  sizeof(err)), LIBRA_SLA_OK);
		ck_assert_int_eq(libra_sla_check_runtime(&sla, err,
							 sizeof(err)),
				 LIBRA_SLA_EDEADLINE);
		ck_assert_str_eq(err, said[i]);
		/* a prediction of 40 minutes fits both */
		sla.runtime = 2400.0;
		ck_assert_int_eq(libra_sla_check_runtime(&sla, err,
							 sizeof(err)),
				 LIBRA_SLA_OK);
	}
	/* opt: time or cost; time takes no due date */
	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=3h,opt=time", 0, 0,
				       &sla), LIBRA_SLA_OK);
	ck_assert_int_eq(sla.opt, LIBRA_OPT_TIME);
	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=3h,opt=fast", 0, 0,
				       &sla), LIBRA_SLA_EVALUE);
	ck_assert_str_eq(err, "opt: 'fast' is not cost or time");
	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=3h,due=2h,opt=time",
				       0, 0, &sla), LIBRA_SLA_EDUP);
	ck_assert_str_eq(err, "opt: time aims at the earliest finish; give no duedate with it");
	/* the other rules still hold */
	ck_assert_int_eq(libra_sla_parse("runtime=1h,deadline=2h,duedate=3h",
					 NOW, &sla, err, sizeof(err)),
			 LIBRA_SLA_OK);
	ck_assert_int_eq(libra_sla_finish(&sla, 0, 0, LIBRA_SLA_RUNTIME_LATER,
					  err, sizeof(err)), LIBRA_SLA_ERANGE);
}
END_TEST

START_TEST(test_finish_duedate_inside_window_is_accepted)
{
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=3h,duedate=2h", 0,
				       0, &sla), LIBRA_SLA_OK);
	ck_assert_double_eq_tol(sla.due_date, NOW + 7200.0, TOL);
}
END_TEST

/* ---------------------------------------------------------------- */
/* libra_sla_text_is_sla                                              */
/* ---------------------------------------------------------------- */

/* Each of texts (NULL-terminated) is an SLA, or none is. */
static void _assert_is_sla(const char *const *texts, bool want)
{
	for (int i = 0; texts[i]; i++)
		ck_assert_msg(libra_sla_text_is_sla(texts[i]) == want,
			      "\"%s\": is_sla %d, want %d", texts[i], !want,
			      want);
}

START_TEST(test_text_with_an_sla_key_is_sla)
{
	static const char *const texts[] = {
		"runtime=1h", " deadline = 2h ", "run=42,budget=5",
		"quote=hold", "quote=12", "type=soft", "due=30m",
		/* bad values of a long key still read as an SLA (refused) */
		"budget=12x", "runtime=1m deadline=5m",
		/* a key alone first */
		"budget", "runtime:5s", "runtime,deadline",
		/* a near miss of a long key */
		"dedline=2h", "budjet=5", "Runtime=5m", "job=x, runtiem=5m",
		NULL
	};

	_assert_is_sla(texts, true);
}
END_TEST

START_TEST(test_other_comments_are_not_sla)
{
	/* users' and workflow tools' comments pass unchanged (design.md
	 * decision 29) */
	static const char *const texts[] = {
		"my test job", "", "rerun of 1234", "deadline soon",
		"run=42", "colour=red", "workflow:step3",
		"step=3,user=bob,run=7", "see https://x/y?a=1&b=2", "a=b=c",
		"=5", "x=runtime=5s",
		/* short keys are common words: only with a value they take */
		"type=analysis", "tier=gold", "quote=see wiki", "due=friday",
		/* a near miss of a short key alone is not an SLA either */
		"tpye=hard", "quota=5",
		NULL
	};

	ck_assert(!libra_sla_text_is_sla(NULL));
	_assert_is_sla(texts, false);
}
END_TEST

START_TEST(test_key_suggestion)
{
	const char *k;

	ck_assert_str_eq(libra_sla_key_suggest("dedline", 7), "deadline");
	ck_assert_str_eq(libra_sla_key_suggest("budjet", 6), "budget");
	ck_assert_str_eq(libra_sla_key_suggest("budgett", 7), "budget");
	ck_assert_str_eq(libra_sla_key_suggest("Budget", 6), "budget");
	ck_assert_str_eq(libra_sla_key_suggest("runtiem", 7), "runtime");
	ck_assert_str_eq(libra_sla_key_suggest("runtimes", 8), "runtime");
	ck_assert_str_eq(libra_sla_key_suggest("penaltycap", 10),
			 "penalty_cap");
	ck_assert_str_eq(libra_sla_key_suggest("tpye", 4), "type");
	ck_assert_str_eq(libra_sla_key_suggest("quota", 5), "quote");
	/* the length given, not the NUL, ends the key */
	ck_assert_str_eq(libra_sla_key_suggest("dedline=2h", 7), "deadline");
	/* a key, or too far from every key: none */
	ck_assert_ptr_null(libra_sla_key_suggest("deadline", 8));
	ck_assert_ptr_null(libra_sla_key_suggest("run", 3));
	ck_assert_ptr_null(libra_sla_key_suggest("colour", 6));
	ck_assert_ptr_null(libra_sla_key_suggest("dline", 5));
	ck_assert_ptr_null(libra_sla_key_suggest("", 0));
	k = libra_sla_key_suggest("abcdefghijklmnopqrstuvwxyz", 26);
	ck_assert_ptr_null(k);
}
END_TEST

START_TEST(test_near_miss_is_refused_with_the_suggestion)
{
	_expect_parse_error("runtime=5m,dedline=2h", LIBRA_SLA_EKEY,
			    "dedline");
	ck_assert_str_eq(err, "dedline: unknown key, did you mean deadline?");
	_expect_parse_error("budjet=5", LIBRA_SLA_EKEY, "budjet");
	ck_assert_str_eq(err, "budjet: unknown key, did you mean budget?");
	/* not a near miss: the list of keys, as before */
	_expect_parse_error("runtime=5m,colour=red", LIBRA_SLA_EKEY, "colour");
	ck_assert(strstr(err, "(known: runtime, deadline"));
	ck_assert_uint_eq(libra_sla_err_field(err, NULL), 0);
}
END_TEST

START_TEST(test_err_field_is_the_key_the_message_names)
{
	libra_sla_t sla;
	const char *why;

	ck_assert_int_ne(libra_sla_parse("runtime=30m,budget=ten", NOW, &sla,
					 err, sizeof(err)), LIBRA_SLA_OK);
	ck_assert_uint_eq(libra_sla_err_field(err, &why), LIBRA_SLA_BUDGET);
	ck_assert(strncmp(why, "budget", 6) != 0);
	ck_assert_ptr_eq(why, err + strlen("budget: "));
}
END_TEST

START_TEST(test_err_field_of_time_keys_is_a_time)
{
	libra_sla_t sla;

	ck_assert_int_ne(libra_sla_parse("deadline=soon", NOW, &sla, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert(libra_sla_err_field(err, NULL) & LIBRA_SLA_TIMES);
	memset(&sla, 0, sizeof(sla));
	sla.submit = NOW;
	ck_assert_int_ne(libra_sla_finish(&sla, 0.0, 0.0, 0, err,
					  sizeof(err)), LIBRA_SLA_OK);
	ck_assert_uint_eq(libra_sla_err_field(err, NULL), LIBRA_SLA_RUNTIME);
}
END_TEST

START_TEST(test_err_field_of_whole_text_is_none)
{
	libra_sla_t sla;
	const char *why;

	ck_assert_int_ne(libra_sla_parse("runtime=30m,,budget=1", NOW, &sla,
					 err, sizeof(err)), LIBRA_SLA_OK);
	ck_assert_uint_eq(libra_sla_err_field(err, &why), 0);
	ck_assert_ptr_eq(why, err);
	ck_assert_uint_eq(libra_sla_err_field("runtimes: unknown key", NULL),
			  0);
}
END_TEST

/* ---------------------------------------------------------------- */
/* ISQoS: due (alias of duedate), tier                                */
/* ---------------------------------------------------------------- */

START_TEST(test_due_is_duedate)
{
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=3h,due=2h", 0, 0,
				       &sla), LIBRA_SLA_OK);
	ck_assert(sla.set & LIBRA_SLA_DUEDATE);
	ck_assert_double_eq_tol(sla.due_date, NOW + 7200.0, TOL);
	/* one field under two names: given twice */
	_expect_parse_error("due=1h,duedate=2h", LIBRA_SLA_EDUP, "duedate");
}
END_TEST

START_TEST(test_tier_parses_the_three_names)
{
	static const char *names[] = { "value", "standard", "premium" };
	libra_sla_t sla;
	char text[64];

	for (int i = 0; i < 3; i++) {
		snprintf(text, sizeof(text), "tier=%s", names[i]);
		ck_assert_int_eq(libra_sla_parse(text, NOW, &sla, err,
						 sizeof(err)), LIBRA_SLA_OK);
		ck_assert(sla.set & LIBRA_SLA_TIER);
		ck_assert_int_eq(sla.tier, LIBRA_TIER_VALUE + i);
		ck_assert_str_eq(libra_tier_name(sla.tier), names[i]);
	}
	_expect_parse_error("tier=gold", LIBRA_SLA_EVALUE, "tier");
	_expect_parse_error("tier=none", LIBRA_SLA_EVALUE, "tier");
	_expect_parse_error("tier=value,tier=premium", LIBRA_SLA_EDUP, "tier");
	ck_assert(libra_sla_text_is_sla("tier=premium"));
}
END_TEST

START_TEST(test_finish_duedate_before_the_runtime_has_run_is_refused)
{
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=3h,due=30m", 0, 0,
				       &sla), LIBRA_SLA_EDEADLINE);
	ck_assert_names(err, "duedate");
	ck_assert_ptr_nonnull(strstr(err, "30m"));
	ck_assert_ptr_nonnull(strstr(err, "1h"));
	/* exactly the estimate is possible (share 1) */
	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=3h,due=1h", 0, 0,
				       &sla), LIBRA_SLA_OK);
}
END_TEST

START_TEST(test_merge_copies_tier_and_refuses_a_different_one)
{
	libra_sla_t a, b;

	ck_assert_int_eq(libra_sla_parse("runtime=1h", NOW, &a, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert_int_eq(libra_sla_parse("tier=premium", NOW, &b, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert_int_eq(libra_sla_merge(&a, "comment", &b, "option", err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert_int_eq(a.tier, LIBRA_TIER_PREMIUM);
	ck_assert_int_eq(libra_sla_parse("tier=value", NOW, &b, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert_int_eq(libra_sla_merge(&a, "comment", &b, "option", err,
					 sizeof(err)), LIBRA_SLA_EDUP);
	ck_assert_names(err, "tier");
}
END_TEST

START_TEST(test_money_too_small_to_be_an_amount_says_so)
{
	/* 1e-400 is no amount a double holds: too small, not too large */
	_expect_parse_error("runtime=1h,deadline=2h,budget=1e-400",
			    LIBRA_SLA_ERANGE, "budget");
	ck_assert_ptr_nonnull(strstr(err, "too small"));
	ck_assert_ptr_null(strstr(err, "too large"));
	_expect_parse_error("runtime=1h,deadline=2h,budget=1e400",
			    LIBRA_SLA_ERANGE, "budget");
	ck_assert_ptr_nonnull(strstr(err, "too large"));
}
END_TEST

START_TEST(test_a_quote_number_however_wrong_makes_an_sla)
{
	/* "quote=0", "quote=-1" are quote numbers, refused as such, not
	 * free text that runs without an SLA */
	ck_assert(libra_sla_text_is_sla("quote=0"));
	ck_assert(libra_sla_text_is_sla("quote=-1"));
	ck_assert(libra_sla_text_is_sla("quote=+7"));
	_expect_parse_error("quote=0", LIBRA_SLA_EVALUE, "quote");
	_expect_parse_error("quote=-1", LIBRA_SLA_EVALUE, "quote");
	/* a word that is not a quote stays free text */
	ck_assert(!libra_sla_text_is_sla("quote=of the day"));
}
END_TEST

START_TEST(test_a_quote_is_given_back_with_release)
{
	/* "quote=release:N" names quote N to give back: neither a hold nor
	 * a quote taken, and alone (it makes no job) */
	libra_sla_t sla;

	ck_assert_int_eq(libra_sla_parse("quote=release:481272", NOW, &sla,
					 err, sizeof(err)), LIBRA_SLA_OK);
	ck_assert(libra_sla_releases_quote(&sla));
	ck_assert(!libra_sla_takes_quote(&sla));
	ck_assert_uint_eq(libra_sla_quote_id(&sla), 481272);
	ck_assert(libra_sla_text_is_sla("quote=release:5"));
	/* taking and holding are not releases */
	ck_assert_int_eq(libra_sla_parse("quote=481272", NOW, &sla, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert(libra_sla_takes_quote(&sla) &&
		  !libra_sla_releases_quote(&sla));
	ck_assert_uint_eq(libra_sla_quote_id(&sla), 481272);
	ck_assert_int_eq(libra_sla_parse("quote=hold,runtime=1m,deadline=2m",
					 NOW, &sla, err, sizeof(err)),
			 LIBRA_SLA_OK);
	ck_assert(!libra_sla_releases_quote(&sla));
	/* with anything else, or without a number */
	_expect_parse_error("quote=release:7,runtime=1m", LIBRA_SLA_EDUP,
			    "quote");
	ck_assert_names(err, "release:7 gives a quote back and makes no job; give no runtime with it");
	_expect_parse_error("quote=release:0", LIBRA_SLA_EVALUE, "quote");
	_expect_parse_error("quote=release:", LIBRA_SLA_EVALUE, "quote");
	_expect_parse_error("quote=release:x", LIBRA_SLA_EVALUE, "quote");
	ck_assert_names(err, "'release:x' is not hold, a quote number (1-999999999) or release:NUMBER");
}
END_TEST

START_TEST(test_site_bounds_the_terms)
{
	/* libra_runtime_min, libra_window_max, libra_penalty_rate_max */
	libra_sla_t sla;

	ck_assert_int_eq(_parse_finish("runtime=1h,deadline=2h,penalty=100",
				       0, 0, &sla), LIBRA_SLA_OK);
	ck_assert_int_eq(libra_sla_check_site(&sla, 1, 86400, 100, err,
					      sizeof(err)), LIBRA_SLA_OK);
	ck_assert_int_eq(libra_sla_check_site(&sla, 7200, 0, 0, err,
					      sizeof(err)), LIBRA_SLA_ERANGE);
	ck_assert_names(err, "runtime");
	ck_assert_names(err, "libra_runtime_min");
	ck_assert_int_eq(libra_sla_check_site(&sla, 1, 3600, 0, err,
					      sizeof(err)), LIBRA_SLA_ERANGE);
	ck_assert_names(err, "deadline");
	ck_assert_names(err, "libra_window_max");
	ck_assert_int_eq(libra_sla_check_site(&sla, 1, 0, 99.5, err,
					      sizeof(err)), LIBRA_SLA_ERANGE);
	ck_assert_names(err, "penalty");
	ck_assert_names(err, "libra_penalty_rate_max");
	/* 0: no bound */
	ck_assert_int_eq(libra_sla_check_site(&sla, 0, 0, 0, err,
					      sizeof(err)), LIBRA_SLA_OK);
}
END_TEST

/* The reading cases: parse, durations, absolute times, errors. */
static void _add_reading_cases(Suite *s)
{
	TCase *tc;

	tc = tcase_create("parse");
	T(tc, test_parse_spec_example_sets_every_field);
	T(tc, test_parse_sets_only_given_fields);
	T(tc, test_parse_penalty_cap_and_duedate);
	T(tc, test_parse_type_hard);
	T(tc, test_parse_empty_text_sets_nothing);
	T(tc, test_parse_text_of_max_length_is_accepted);
	T(tc, test_spaces_around_pairs_are_allowed);
	T(tc, test_runtime_key_uses_duration_grammar);
	T(tc, test_relative_deadline_counts_from_now);
	suite_add_tcase(s, tc);

	tc = tcase_create("duration");
	T(tc, test_duration_seconds_suffix);
	T(tc, test_duration_minutes_suffix);
	T(tc, test_duration_hours_suffix);
	T(tc, test_duration_fractional_hours);
	T(tc, test_duration_days_suffix);
	T(tc, test_duration_slurm_days_hours_minutes_seconds);
	T(tc, test_duration_slurm_hours_minutes_seconds);
	T(tc, test_duration_two_fields_are_minutes_seconds);
	T(tc, test_duration_days_hours);
	T(tc, test_duration_days_hours_minutes);
	T(tc, test_duration_bare_number_is_minutes);
	T(tc, test_duration_ten_years_is_the_limit);
	T(tc, test_duration_bad_unit_is_evalue_naming_what);
	T(tc, test_duration_garbage_forms_are_refused);
	T(tc, test_format_duration_examples);
	T(tc, test_format_duration_truncates_to_buffer);
	suite_add_tcase(s, tc);

	tc = tcase_create("absolute");
	T(tc, test_absolute_deadline_local_time);
	T(tc, test_absolute_deadline_local_time_with_seconds);
	T(tc, test_absolute_deadline_utc);
	T(tc, test_absolute_duedate_utc);
	T(tc, test_absolute_deadline_malformed_is_evalue);
	T(tc, test_absolute_deadline_in_the_past_fails_finish);
	T(tc, test_absolute_deadline_over_ten_years_is_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	T(tc, test_unknown_key_is_ekey_naming_it);
	T(tc, test_key_match_is_exact);
	T(tc, test_duplicate_key_is_edup_naming_it);
	T(tc, test_duplicate_key_with_same_value_is_still_edup);
	T(tc, test_empty_value_is_refused_naming_key);
	T(tc, test_missing_equals_is_esyntax_naming_key);
	T(tc, test_empty_key_is_refused);
	T(tc, test_empty_pair_in_the_middle_is_esyntax);
	T(tc, test_trailing_comma_is_esyntax);
	T(tc, test_leading_comma_is_esyntax);
	T(tc, test_space_inside_value_is_refused);
	T(tc, test_bad_unit_is_evalue_naming_key);
	T(tc, test_non_numeric_money_is_evalue_naming_key);
	T(tc, test_negative_money_is_erange_naming_key);
	T(tc, test_negative_duration_is_erange_naming_key);
	T(tc, test_nan_and_inf_are_refused_naming_key);
	T(tc, test_hex_is_evalue_naming_key);
	T(tc, test_overflowing_number_is_erange_naming_key);
	T(tc, test_absurdly_long_numbers_are_refused_naming_key);
	T(tc, test_money_limit_itself_is_accepted);
	T(tc, test_duration_over_ten_years_is_erange_naming_key);
	T(tc, test_zero_runtime_is_erange_naming_runtime);
	T(tc, test_deadline_before_runtime_is_edeadline);
	T(tc, test_deadline_equal_to_runtime_is_edeadline);
	T(tc, test_err_field_is_the_key_the_message_names);
	T(tc, test_err_field_of_time_keys_is_a_time);
	T(tc, test_err_field_of_whole_text_is_none);
	T(tc, test_bad_type_is_evalue_naming_type);
	T(tc, test_non_printable_byte_in_value_is_esyntax_naming_key);
	T(tc, test_non_ascii_byte_is_esyntax);
	T(tc, test_text_longer_than_limit_is_etoolong);
	T(tc, test_error_after_valid_pairs_leaves_output_zeroed);
	T(tc, test_null_err_buffer_is_allowed);
	T(tc, test_small_err_buffer_is_terminated);
	T(tc, test_strerror_names_every_class);
	suite_add_tcase(s, tc);
}

/* What is done with a parsed SLA: money, merging, finishing, ISQoS. */
static void _add_finishing_cases(Suite *s)
{
	TCase *tc;

	tc = tcase_create("money");
	T(tc, test_money_accepts_decimal_forms);
	T(tc, test_money_refuses_signs_hex_inf_nan_garbage);
	T(tc, test_money_refuses_a_unit_after_the_number);
	T(tc, test_money_too_small_to_be_an_amount_says_so);
	T(tc, test_a_quote_number_however_wrong_makes_an_sla);
	T(tc, test_a_quote_is_given_back_with_release);
	T(tc, test_site_bounds_the_terms);
	suite_add_tcase(s, tc);

	tc = tcase_create("field_merge");
	T(tc, test_parse_field_sets_one_field);
	T(tc, test_parse_field_same_rules_as_parse);
	T(tc, test_merge_copies_fields_only_in_src);
	T(tc, test_merge_same_value_in_both_is_fine);
	T(tc, test_merge_conflict_is_edup_naming_key_and_sources);
	T(tc, test_merge_conflicting_type_and_deadline);
	suite_add_tcase(s, tc);

	tc = tcase_create("finish");
	T(tc, test_finish_applies_defaults);
	T(tc, test_finish_takes_runtime_from_time_limit);
	T(tc, test_finish_runtime_key_wins_over_time_limit);
	T(tc, test_finish_takes_deadline_from_slurm_deadline);
	T(tc, test_finish_slurm_deadline_and_key_agreeing_is_fine);
	T(tc, test_finish_slurm_deadline_conflict_is_edup);
	T(tc, test_finish_time_limit_and_slurm_deadline_alone_suffice);
	T(tc, test_finish_missing_runtime_is_emissing);
	T(tc, test_finish_missing_deadline_is_emissing);
	T(tc, test_finish_time_limit_shorter_than_deadline_rule);
	T(tc, test_finish_duedate_after_deadline_is_refused);
	T(tc, test_finish_messages_name_the_durations);
	T(tc, test_finish_runtime_later_leaves_the_comparison);
	T(tc, test_finish_duedate_inside_window_is_accepted);
	suite_add_tcase(s, tc);

	tc = tcase_create("is_sla");
	T(tc, test_text_with_an_sla_key_is_sla);
	T(tc, test_other_comments_are_not_sla);
	T(tc, test_key_suggestion);
	T(tc, test_near_miss_is_refused_with_the_suggestion);
	suite_add_tcase(s, tc);

	tc = tcase_create("isqos");
	T(tc, test_due_is_duedate);
	T(tc, test_tier_parses_the_three_names);
	T(tc, test_finish_duedate_before_the_runtime_has_run_is_refused);
	T(tc, test_merge_copies_tier_and_refuses_a_different_one);
	suite_add_tcase(s, tc);
}

/* ---------------------------------------------------------------- */
/* the one table of keys, and the SPANK options made from it          */
/* ---------------------------------------------------------------- */

START_TEST(test_key_table_is_consistent)
{
	const libra_sla_key_t *k, *prev = NULL;
	char env[32];
	size_t i;

	for (i = 0; (k = libra_sla_key_at(i)); prev = k, i++) {
		bool alias = prev && prev->bit == k->bit;

		for (size_t j = 0; j < i; j++) {
			ck_assert_str_ne(libra_sla_key_at(j)->key, k->key);
			/* an alias right after its key, nowhere else */
			ck_assert(alias || libra_sla_key_at(j)->bit != k->bit);
		}
		ck_assert(!alias || !k->term);
		ck_assert((k->val == LIBRA_SLA_VAL_WORD) == (k->words != NULL));
		ck_assert(!k->sbatch_checks || k->option);
		if (!k->option)
			continue;
		ck_assert_ptr_nonnull(k->arginfo);
		ck_assert_msg(!strncmp(k->help, "slurm-libra: ", 13),
			      "--%s: help \"%s\"", k->option, k->help);
		/* as Slurm writes it in the job's SPANK environment */
		snprintf(env, sizeof(env), "%s", k->option);
		for (char *c = env; *c; c++)
			if (*c == '-')
				*c = '_';
		ck_assert_ptr_eq(libra_sla_key_of_env(env, strlen(env)), k);
	}
	ck_assert_uint_eq(i, LIBRA_SLA_NKEYS);
	ck_assert_ptr_null(libra_sla_key_of_env("deadline-type", 13));
	ck_assert_ptr_null(libra_sla_key_of_env("deadline", 8));
	ck_assert_str_eq(libra_sla_key_of_env("deadline_type", 13)->key,
			 "type");
	ck_assert_str_eq(libra_sla_key_of_env("optimize", 8)->key, "opt");
}
END_TEST

START_TEST(test_messages_list_keys_and_values_from_the_tables)
{
	libra_sla_t sla;

	ck_assert_int_eq(libra_sla_parse("runtime=1h,colour=red", NOW, &sla,
					 err, sizeof(err)), LIBRA_SLA_EKEY);
	ck_assert_str_eq(err, "colour: unknown key (known: runtime, deadline, budget, penalty, penalty_cap, type, duedate (due), tier, quote, opt)");
	ck_assert_int_eq(libra_sla_parse("type=Soft", NOW, &sla, err,
					 sizeof(err)), LIBRA_SLA_EVALUE);
	ck_assert_str_eq(err, "type: 'Soft' is not hard or soft");
	ck_assert_int_eq(libra_sla_parse("tier=none", NOW, &sla, err,
					 sizeof(err)), LIBRA_SLA_EVALUE);
	ck_assert_str_eq(err, "tier: 'none' is not value, standard or premium");
	/* one field: the same steps */
	memset(&sla, 0, sizeof(sla));
	ck_assert_int_eq(libra_sla_parse_field("type", "", NOW, &sla, err,
					       sizeof(err)), LIBRA_SLA_EVALUE);
	ck_assert_str_eq(err, "type: empty value");
	ck_assert_int_eq(libra_sla_parse_field("dedline", "2h", NOW, &sla,
					       err, sizeof(err)),
			 LIBRA_SLA_EKEY);
	ck_assert_str_eq(err, "dedline: unknown key, did you mean deadline?");
}
END_TEST

/* "\-" of roff as "-" */
static void _unroff(char *s)
{
	char *o = s;

	for (; *s; s++)
		if (!(s[0] == '\\' && s[1] == '-'))
			*o++ = *s;
	*o = '\0';
}

/*
 * libra_spank(8)'s OPTIONS FOR USERS are the table's SPANK options, in its
 * order, each ".B \-\-OPTION=ARG" (an ARG in capitals in italics) and its
 * sbatch --help text as a sentence: the page cannot drift from sbatch.
 */
START_TEST(test_spank_man_page_is_the_key_table)
{
	const char *path = LIBRA_TOP_SRCDIR "/doc/man/libra_spank.8";
	FILE *f = fopen(path, "r");
	char line[512], want[512], text[1024] = "";
	const libra_sla_key_t *k = NULL;
	size_t next = 0;
	bool in = false;

	ck_assert_msg(f != NULL, "cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, ".SH OPTIONS FOR USERS")) {
			in = true;
			continue;
		}
		if (!in)
			continue;
		if (!strcmp(line, ".TP") || !strncmp(line, ".PP", 3) ||
		    !strncmp(line, ".SH", 3)) {
			if (k) {	/* the entry before: its text */
				snprintf(want, sizeof(want), "%s",
					 k->help + 13);
				want[0] = (char) toupper(
					(unsigned char) want[0]);
				strcat(want, ".");
				_unroff(text);
				ck_assert_str_eq(text + 1, want);
			}
			k = NULL;
			if (strcmp(line, ".TP"))
				break;
			while ((k = libra_sla_key_at(next++)) && !k->option)
				;
			ck_assert_msg(k != NULL, "%s: an option not in the table",
				      path);
			ck_assert(fgets(line, sizeof(line), f));
			line[strcspn(line, "\n")] = '\0';
			snprintf(want, sizeof(want),
				 strpbrk(k->arginfo, "abcdefghijklmnopqrstuvwxyz") ?
				 ".B --%s=%s" : ".B --%s=\\fI%s\\fP",
				 k->option, k->arginfo);
			_unroff(line);
			ck_assert_str_eq(line, want);
			text[0] = '\0';
			continue;
		}
		if (k)
			snprintf(text + strlen(text),
				 sizeof(text) - strlen(text), " %s", line);
	}
	fclose(f);
	ck_assert_msg(in, "%s: no OPTIONS FOR USERS", path);
	/* every option of the table is on the page */
	while ((k = libra_sla_key_at(next++)))
		ck_assert_msg(!k->option, "%s: no --%s", path, k->option);
}
END_TEST

static void _add_table_cases(Suite *s)
{
	TCase *tc = tcase_create("table");

	T(tc, test_key_table_is_consistent);
	T(tc, test_messages_list_keys_and_values_from_the_tables);
	T(tc, test_spank_man_page_is_the_key_table);
	suite_add_tcase(s, tc);
}

static Suite *_suite(void)
{
	Suite *s = suite_create("sla");

	_add_reading_cases(s);
	_add_finishing_cases(s);
	_add_table_cases(s);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
