/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  fuzz_sla.c - fuzz target: the SLA comment parser (sla.h).
 *
 *  Feeds the input to libra_sla_parse() and, when it parses, to
 *  libra_sla_finish(); also to the single-field, duration and money parsers.
 *  Checks the contract, not just the absence of crashes:
 *  - on error the record is zeroed and the message is a terminated string;
 *  - on success every field given is finite and within its limits;
 *  - a finished SLA has 0 < runtime and deadline > submit + runtime, and a
 *    due date, if any, between submission and deadline;
 *  - merging a record with itself never conflicts.
\*****************************************************************************/

#include <math.h>

#include "fuzz.h"
#include "sla.h"

#define NOW 1800000000.0

static void _assert_zeroed(const libra_sla_t *s, const char *text)
{
	FUZZ_ASSERT(s->set == 0 && s->runtime == 0 && s->submit == 0 &&
		    s->deadline == 0 && s->budget == 0 &&
		    s->penalty_rate == 0 && s->penalty_cap == 0 &&
		    s->due_date == 0 && s->type == LIBRA_DEADLINE_HARD &&
		    s->quote == 0,
		    "half-parsed record escaped for \"%s\"", text);
}

static void _assert_parsed(const libra_sla_t *s, const char *text)
{
	const uint32_t all = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE |
			     LIBRA_SLA_BUDGET | LIBRA_SLA_PENALTY |
			     LIBRA_SLA_TYPE | LIBRA_SLA_DUEDATE |
			     LIBRA_SLA_PENALTY_CAP | LIBRA_SLA_TIER |
			     LIBRA_SLA_QUOTE;

	FUZZ_ASSERT((s->set & ~all) == 0, "unknown bits for \"%s\"", text);
	/* a quote taken carries the SLA, one given back makes no job:
	 * nothing else beside either; its number within the ids, the
	 * release bit aside (quote=release:ID) */
	if ((s->set & LIBRA_SLA_QUOTE) && s->quote)
		FUZZ_ASSERT(s->set == LIBRA_SLA_QUOTE &&
			    libra_sla_quote_id(s) >= 1 &&
			    libra_sla_quote_id(s) <= LIBRA_SLA_QUOTE_MAX_ID,
			    "quote %u with other fields for \"%s\"", s->quote,
			    text);
	if (s->set & LIBRA_SLA_RUNTIME)
		FUZZ_ASSERT(isfinite(s->runtime) && s->runtime >= 0 &&
			    s->runtime <= LIBRA_SLA_MAX_DURATION,
			    "runtime %g for \"%s\"", s->runtime, text);
	if (s->set & LIBRA_SLA_DEADLINE)
		FUZZ_ASSERT(isfinite(s->deadline), "deadline %g for \"%s\"",
			    s->deadline, text);
	if (s->set & LIBRA_SLA_DUEDATE)
		FUZZ_ASSERT(isfinite(s->due_date), "due date %g for \"%s\"",
			    s->due_date, text);
	if (s->set & LIBRA_SLA_BUDGET)
		FUZZ_ASSERT(isfinite(s->budget) && s->budget >= 0 &&
			    s->budget <= LIBRA_SLA_MAX_MONEY,
			    "budget %g for \"%s\"", s->budget, text);
	if (s->set & LIBRA_SLA_PENALTY)
		FUZZ_ASSERT(isfinite(s->penalty_rate) &&
			    s->penalty_rate >= 0 &&
			    s->penalty_rate <= LIBRA_SLA_MAX_MONEY,
			    "penalty %g for \"%s\"", s->penalty_rate, text);
	if (s->set & LIBRA_SLA_PENALTY_CAP)
		FUZZ_ASSERT(isfinite(s->penalty_cap) && s->penalty_cap >= 0 &&
			    s->penalty_cap <= LIBRA_SLA_MAX_MONEY,
			    "cap %g for \"%s\"", s->penalty_cap, text);
	FUZZ_ASSERT(s->type == LIBRA_DEADLINE_HARD ||
		    s->type == LIBRA_DEADLINE_SOFT, "type for \"%s\"", text);
	FUZZ_ASSERT(fuzz_same(s->submit, NOW), "submit for \"%s\"", text);
}

static void _finish(const libra_sla_t *parsed, double time_limit,
		    double slurm_deadline, const char *text)
{
	libra_sla_t s = *parsed, later = *parsed;
	char err[256];
	libra_sla_err_t rc, rc_later;

	/* finished with the runtime's comparison left for later, then that
	 * comparison: the same verdict as finishing at once */
	err[0] = '\0';
	rc_later = libra_sla_finish(&later, time_limit, slurm_deadline,
				    LIBRA_SLA_RUNTIME_LATER, err,
				    sizeof(err));
	fuzz_check_err(err, sizeof(err));
	if (rc_later == LIBRA_SLA_OK) {
		rc_later = libra_sla_check_runtime(&later, err, sizeof(err));
		fuzz_check_err(err, sizeof(err));
	}
	err[0] = '\0';
	rc = libra_sla_finish(&s, time_limit, slurm_deadline, 0, err,
			      sizeof(err));
	fuzz_check_err(err, sizeof(err));
	FUZZ_ASSERT((rc == LIBRA_SLA_OK) == (rc_later == LIBRA_SLA_OK),
		    "finish %d, finish later and check %d for \"%s\"", rc,
		    rc_later, text);
	if (rc != LIBRA_SLA_OK) {
		FUZZ_ASSERT(err[0] != '\0', "no message for \"%s\"", text);
		return;
	}
	FUZZ_ASSERT(isfinite(s.runtime) && s.runtime > 0,
		    "finished runtime %g for \"%s\"", s.runtime, text);
	FUZZ_ASSERT(isfinite(s.deadline) && s.deadline > s.submit + s.runtime,
		    "finished deadline %.17g (submit %.17g, RE %g) for \"%s\"",
		    s.deadline, s.submit, s.runtime, text);
	if (s.set & LIBRA_SLA_DUEDATE)
		FUZZ_ASSERT(s.due_date >= s.submit &&
			    s.due_date <= s.deadline,
			    "due date %.17g outside [%.17g, %.17g] for \"%s\"",
			    s.due_date, s.submit, s.deadline, text);
	FUZZ_ASSERT(s.type == LIBRA_DEADLINE_HARD ||
		    s.type == LIBRA_DEADLINE_SOFT, "type for \"%s\"", text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, err[256], small[8];
	libra_sla_t sla, copy;
	libra_sla_err_t rc;
	double v;
	char *eq;

	if (size > 4 * LIBRA_SLA_MAX_TEXT)
		return 0;
	text = fuzz_text(data, size);

	(void) libra_sla_text_is_sla(text);

	memset(&sla, 0xa5, sizeof(sla));
	err[0] = '\0';
	rc = libra_sla_parse(text, NOW, &sla, err, sizeof(err));
	fuzz_check_err(err, sizeof(err));
	if (rc != LIBRA_SLA_OK) {
		FUZZ_ASSERT(err[0] != '\0', "no message for \"%s\"", text);
		FUZZ_ASSERT(rc <= LIBRA_SLA_ETOOLONG, "class %d", rc);
		FUZZ_ASSERT(libra_sla_strerror(rc) != NULL, "no class name");
		_assert_zeroed(&sla, text);
	} else {
		_assert_parsed(&sla, text);
		_finish(&sla, 0, 0, text);
		_finish(&sla, 3600, 0, text);
		_finish(&sla, 3600, NOW + 7200, text);
		copy = sla;
		rc = libra_sla_merge(&copy, "a", &sla, "b", err, sizeof(err));
		FUZZ_ASSERT(rc == LIBRA_SLA_OK,
			    "self-merge conflicts for \"%s\": %s", text, err);
	}

	/* a tiny message buffer is still terminated */
	memset(small, 'x', sizeof(small));
	if (libra_sla_parse(text, NOW, &sla, small, sizeof(small)) !=
	    LIBRA_SLA_OK)
		fuzz_check_err(small, sizeof(small));

	/* the whole input as one value */
	if (libra_parse_duration("x", text, &v, err, sizeof(err)) ==
	    LIBRA_SLA_OK) {
		char buf[64];

		FUZZ_ASSERT(isfinite(v) && v > 0 &&
			    v <= LIBRA_SLA_MAX_DURATION,
			    "duration %g for \"%s\"", v, text);
		libra_format_duration(v, buf, sizeof(buf));
		fuzz_check_err(buf, sizeof(buf));
		libra_format_duration(v, small, sizeof(small));
		fuzz_check_err(small, sizeof(small));
	}
	fuzz_check_err(err, sizeof(err));
	if (libra_parse_money("x", text, &v, err, sizeof(err)) ==
	    LIBRA_SLA_OK)
		FUZZ_ASSERT(isfinite(v) && v >= 0 && v <= LIBRA_SLA_MAX_MONEY,
			    "money %g for \"%s\"", v, text);
	fuzz_check_err(err, sizeof(err));

	/* key=value as one SPANK option */
	if ((eq = strchr(text, '='))) {
		*eq = '\0';
		memset(&sla, 0, sizeof(sla));
		sla.submit = NOW;
		rc = libra_sla_parse_field(text, eq + 1, NOW, &sla, err,
					   sizeof(err));
		fuzz_check_err(err, sizeof(err));
		if (rc == LIBRA_SLA_OK)
			_assert_parsed(&sla, eq + 1);
	}
	free(text);
	return 0;
}
