/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sla_finish.c - what is done with a parsed SLA (see sla.h): merging two
 *  (a quote's terms and a job's), completing one with Slurm's --time and
 *  --deadline and checking the whole, and formatting a duration as the
 *  grammar reads it.  The record's grammar and parser are in sla.c.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sla.h"
#include "sla_int.h"

static bool _same(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

/* The field of key k in s, as a number to compare. */
static double _field(const libra_sla_t *s, const libra_sla_key_t *k)
{
	const char *f = (const char *) s + k->off;

	switch (k->val) {
	case LIBRA_SLA_VAL_WORD:
		return (double) *(const int *) f;
	case LIBRA_SLA_VAL_QUOTE:
		return (double) *(const uint32_t *) f;
	default:
		return *(const double *) f;
	}
}

static void _copy_field(libra_sla_t *dst, const libra_sla_t *src,
			const libra_sla_key_t *k)
{
	size_t size = k->val == LIBRA_SLA_VAL_WORD ? sizeof(int) :
		      k->val == LIBRA_SLA_VAL_QUOTE ? sizeof(uint32_t) :
		      sizeof(double);

	memcpy((char *) dst + k->off, (const char *) src + k->off, size);
	dst->set |= k->bit;
}

extern libra_sla_err_t libra_sla_merge(libra_sla_t *dst, const char *dst_name,
				       const libra_sla_t *src,
				       const char *src_name,
				       char *err, size_t errlen)
{
	libra_sla_t tmp = *dst;

	for (size_t i = 0; i < LIBRA_SLA_NKEYS; i++) {
		const libra_sla_key_t *k = &sla_keys[i];

		if (!(src->set & k->bit))
			continue;
		if ((tmp.set & k->bit) && !_same(_field(&tmp, k), _field(src, k)))
			return sla_fail(err, errlen, LIBRA_SLA_EDUP,
					"%s: %s and %s give different values",
					k->key, dst_name, src_name);
		_copy_field(&tmp, src, k);
	}
	if (!tmp.submit)
		tmp.submit = src->submit;
	*dst = tmp;
	return LIBRA_SLA_OK;
}

extern void libra_format_duration(double secs, char *buf, size_t len)
{
	long s = lround(secs);
	long part[4] = { s / 86400, (s % 86400) / 3600, (s % 3600) / 60,
			 s % 60 };
	static const char unit[] = "dhms";
	size_t used = 0;

	if (s < 0 || !isfinite(secs)) {
		snprintf(buf, len, "?");
		return;
	}
	buf[0] = '\0';
	/* every non-zero part, so that the text parses back exactly */
	for (int i = 0; i < 4 && used < len; i++)
		if (part[i] || (i == 3 && !used))
			used += (size_t) snprintf(buf + used, len - used,
						  "%ld%c", part[i], unit[i]);
}

/*
 * A duration a refusal names, formatted into buf (32 bytes) only when a
 * message needs it: "in the past" when it is not positive.
 */
static const char *_span(double secs, char buf[32])
{
	if (!(secs > 0.0))
		return "in the past";
	libra_format_duration(secs, buf, 32);
	return buf;
}

extern libra_sla_err_t libra_sla_check_runtime(const libra_sla_t *sla,
					       char *err, size_t errlen)
{
	char a_buf[32], b_buf[32];

	if (!(sla->deadline - sla->submit > sla->runtime))
		return sla_fail(err, errlen, LIBRA_SLA_EDEADLINE,
				"deadline: %s from submission is not after the runtime estimate %s",
				_span(sla->deadline - sla->submit, a_buf),
				_span(sla->runtime, b_buf));
	if ((sla->set & LIBRA_SLA_DUEDATE) &&
	    !(sla->due_date - sla->submit >= sla->runtime))
		return sla_fail(err, errlen, LIBRA_SLA_EDEADLINE,
				"duedate: %s from submission is before the runtime estimate %s has run",
				_span(sla->due_date - sla->submit, a_buf),
				_span(sla->runtime, b_buf));
	return LIBRA_SLA_OK;
}

extern libra_sla_err_t libra_sla_check_site(const libra_sla_t *sla,
					    double runtime_min,
					    double window_max,
					    double rate_max, char *err,
					    size_t errlen)
{
	char a_buf[32], b_buf[32];

	if (sla->runtime < runtime_min)
		return sla_fail(err, errlen, LIBRA_SLA_ERANGE,
				"runtime: %g s is shorter than this site admits (libra_runtime_min=%g s)",
				sla->runtime, runtime_min);
	if (window_max > 0.0 && sla->deadline - sla->submit > window_max)
		return sla_fail(err, errlen, LIBRA_SLA_ERANGE,
				"deadline: %s from submission is further ahead than this site admits (libra_window_max=%s)",
				_span(sla->deadline - sla->submit, a_buf),
				_span(window_max, b_buf));
	if (rate_max > 0.0 && (sla->set & LIBRA_SLA_PENALTY) &&
	    sla->penalty_rate > rate_max)
		return sla_fail(err, errlen, LIBRA_SLA_ERANGE,
				"penalty: %g per hour is more than this site admits (libra_penalty_rate_max=%g)",
				sla->penalty_rate, rate_max);
	return LIBRA_SLA_OK;
}

extern libra_sla_err_t libra_sla_finish(libra_sla_t *sla, double time_limit,
					double slurm_deadline, unsigned flags,
					char *err, size_t errlen)
{
	libra_sla_t tmp = *sla;
	char a_buf[32], b_buf[32];
	libra_sla_err_t rc = LIBRA_SLA_OK;

	if (!(tmp.set & LIBRA_SLA_RUNTIME)) {
		if (time_limit > 0.0) {
			tmp.runtime = time_limit;
		} else {
			rc = sla_fail(err, errlen, LIBRA_SLA_EMISSING,
				      "runtime: no runtime estimate (give runtime= in the comment, or --time)");
			goto out;
		}
	}
	if (slurm_deadline > 0.0) {
		if ((tmp.set & LIBRA_SLA_DEADLINE) &&
		    fabs(tmp.deadline - slurm_deadline) > 1.0) {
			rc = sla_fail(err, errlen, LIBRA_SLA_EDUP,
				      "deadline: --deadline and deadline= give different times");
			goto out;
		}
		if (!(tmp.set & LIBRA_SLA_DEADLINE))
			tmp.deadline = slurm_deadline;
	} else if (!(tmp.set & LIBRA_SLA_DEADLINE)) {
		rc = sla_fail(err, errlen, LIBRA_SLA_EMISSING,
			      "deadline: no deadline (give deadline= in the comment, or --deadline)");
		goto out;
	}
	if (!(tmp.runtime > 0.0) || tmp.runtime > LIBRA_SLA_MAX_DURATION) {
		rc = sla_fail(err, errlen, LIBRA_SLA_ERANGE,
			      "runtime: must be positive and at most 3650 days");
		goto out;
	}
	if (!(flags & LIBRA_SLA_RUNTIME_LATER) &&
	    !(tmp.deadline - tmp.submit > tmp.runtime)) {
		rc = libra_sla_check_runtime(&tmp, err, errlen);
		goto out;
	}
	if (tmp.deadline - tmp.submit > LIBRA_SLA_MAX_DURATION) {
		rc = sla_fail(err, errlen, LIBRA_SLA_ERANGE,
			      "deadline: more than 3650 days after submission");
		goto out;
	}
	if ((tmp.set & LIBRA_SLA_DUEDATE) && tmp.opt == LIBRA_OPT_TIME) {
		rc = sla_fail(err, errlen, LIBRA_SLA_EDUP,
			      "opt: time aims at the earliest finish; give no duedate with it");
		goto out;
	}
	if ((tmp.set & LIBRA_SLA_DUEDATE) && tmp.due_date > tmp.deadline) {
		rc = sla_fail(err, errlen, LIBRA_SLA_ERANGE,
			      "duedate: %s from submission is after the deadline %s",
			      _span(tmp.due_date - tmp.submit, a_buf),
			      _span(tmp.deadline - tmp.submit, b_buf));
		goto out;
	}
	if (!(flags & LIBRA_SLA_RUNTIME_LATER) &&
	    (rc = libra_sla_check_runtime(&tmp, err, errlen)))
		goto out;
	if (!(tmp.set & LIBRA_SLA_BUDGET))
		tmp.budget = 0.0;
	if (!(tmp.set & LIBRA_SLA_PENALTY))
		tmp.penalty_rate = 0.0;
	if (!(tmp.set & LIBRA_SLA_TYPE))
		tmp.type = LIBRA_DEADLINE_HARD;
out:
	if (rc == LIBRA_SLA_OK)
		*sla = tmp;
	else
		memset(sla, 0, sizeof(*sla));
	return rc;
}
