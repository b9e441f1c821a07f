/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sla_value.c - the values of the SLA grammar's fields (see sla.h):
 *  amounts of money, durations ("90s", "1h30m", Slurm's "D-HH:MM:SS"),
 *  times (absolute, or a duration from now), quote numbers, and a key's
 *  value parsed by the kind its table entry gives (sla_parse_value()).
 *  The grammar, its keys and the parser of a whole record are in sla.c.
\*****************************************************************************/

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "number.h"
#include "sla.h"
#include "sla_int.h"

/*
 * Unsigned decimal integer of at most 9 digits (no sign, no spaces), so
 * that no later arithmetic can overflow.
 */
static bool _parse_uint(const char *s, size_t len, unsigned long *out)
{
	unsigned long v = 0;

	if (len == 0 || len > 9)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char) s[i]))
			return false;
		v = v * 10 + (unsigned long) (s[i] - '0');
	}
	*out = v;
	return true;
}

extern libra_sla_err_t libra_parse_money(const char *what, const char *s,
					 double *val, char *err, size_t errlen)
{
	size_t len = strlen(s);
	double v = INFINITY;

	if (len == 0)
		return sla_fail(err, errlen, LIBRA_SLA_EVALUE,
				"%s: empty value", what);
	if (s[0] == '-')
		return sla_fail(err, errlen, LIBRA_SLA_ERANGE,
				"%s: '%s' is negative", what, s);
	if (!libra_is_decimal(s, len))
		return sla_fail(err, errlen, LIBRA_SLA_EVALUE,
				"%s: '%.40s' is not a decimal number", what, s);
	if (!libra_decimal_value(s, len, &v) && v < 1.0)
		return sla_fail(err, errlen, LIBRA_SLA_ERANGE,
				"%s: '%.40s' is too small to be an amount (0, or at least %g)",
				what, s, DBL_MIN);
	if (!isfinite(v) || v > LIBRA_SLA_MAX_MONEY)
		return sla_fail(err, errlen, LIBRA_SLA_ERANGE,
				"%s: '%.40s' is too large (at most %g)", what, s,
				LIBRA_SLA_MAX_MONEY);
	*val = v;
	return LIBRA_SLA_OK;
}

/*
 * "90s", "2h", "1.5h", "3d", or several such groups in falling units, as
 * libra_format_duration() writes them: "1d19h20m", "1h30m".
 */
static libra_sla_err_t _duration_unit(const char *what, const char *s,
				      size_t len, double *secs,
				      char *err, size_t errlen)
{
	static const char units[] = "dhms";
	static const double mult[] = { 86400.0, 3600.0, 60.0, 1.0 };
	size_t i = 0;
	int last = -1;
	double total = 0.0;

	while (i < len) {
		size_t num = i;
		const char *u;
		double v;

		while (i < len && (isdigit((unsigned char) s[i]) || s[i] == '.'))
			i++;
		if (i == num || i == len)
			goto bad;
		if (!(u = strchr(units, s[i])) || !*u) {
			if (isalpha((unsigned char) s[i]))
				return sla_fail(err, errlen, LIBRA_SLA_EVALUE,
						"%s: '%.40s' has an unknown unit '%c' (use s, m, h, d or [D-]HH:MM:SS)",
						what, s, s[i]);
			goto bad;
		}
		if (u - units <= last)
			goto bad;	/* units must fall: 1h30m, not 30m1h */
		last = (int) (u - units);
		if (!libra_is_decimal(s + num, i - num) ||
		    !libra_decimal_value(s + num, i - num, &v))
			goto bad;
		total += v * mult[last];
		i++;
	}
	*secs = total;
	return LIBRA_SLA_OK;
bad:
	return sla_fail(err, errlen, LIBRA_SLA_EVALUE,
			"%s: '%.40s' is not a duration (e.g. 90s, 45m, 2h, 1h30m, 1-12:00:00)",
			what, s);
}

/*
 * Slurm's time formats (sbatch --time): "minutes", "minutes:seconds",
 * "hours:minutes:seconds", "days-hours", "days-hours:minutes",
 * "days-hours:minutes:seconds".  Trailing fields must be below 60 (24 for
 * hours after days).
 */
static libra_sla_err_t _duration_slurm(const char *what, const char *s,
				       size_t len, double *secs,
				       char *err, size_t errlen)
{
	unsigned long f[3] = { 0, 0, 0 }, days = 0;
	const char *p = s, *end = s + len, *dash;
	int n = 0;

	dash = memchr(s, '-', len);
	if (dash) {
		if (!_parse_uint(s, (size_t) (dash - s), &days))
			goto bad;
		p = dash + 1;
	}
	while (p <= end) {
		const char *colon = memchr(p, ':', (size_t) (end - p));
		const char *stop = colon ? colon : end;

		if (n == 3 || !_parse_uint(p, (size_t) (stop - p), &f[n]))
			goto bad;
		n++;
		p = stop + 1;
		if (!colon)
			break;
	}
	if (dash) {
		/* days-hours[:minutes[:seconds]] */
		if (f[0] >= 24 || (n > 1 && f[1] >= 60) ||
		    (n > 2 && f[2] >= 60))
			goto bad;
		*secs = days * 86400.0 + f[0] * 3600.0 + f[1] * 60.0 + f[2];
	} else if (n == 1) {
		*secs = f[0] * 60.0;			/* minutes */
	} else if (n == 2) {
		if (f[1] >= 60)
			goto bad;
		*secs = f[0] * 60.0 + f[1];		/* minutes:seconds */
	} else {
		if (f[1] >= 60 || f[2] >= 60)
			goto bad;
		*secs = f[0] * 3600.0 + f[1] * 60.0 + f[2];
	}
	return LIBRA_SLA_OK;
bad:
	return sla_fail(err, errlen, LIBRA_SLA_EVALUE,
			"%s: '%.40s' is not a duration (e.g. 90s, 45m, 2h, 1-12:00:00)",
			what, s);
}

extern libra_sla_err_t libra_parse_duration(const char *what, const char *s,
					    double *secs,
					    char *err, size_t errlen)
{
	size_t len = strlen(s);
	libra_sla_err_t rc;
	double v = 0.0;

	if (len == 0)
		return sla_fail(err, errlen, LIBRA_SLA_EVALUE,
				"%s: empty value", what);
	if (s[0] == '-' || s[0] == '+')
		return sla_fail(err, errlen, LIBRA_SLA_ERANGE,
				"%s: '%.40s' must be a positive duration",
				what, s);
	if (isalpha((unsigned char) s[len - 1]))
		rc = _duration_unit(what, s, len, &v, err, errlen);
	else
		rc = _duration_slurm(what, s, len, &v, err, errlen);
	if (rc != LIBRA_SLA_OK)
		return rc;
	if (!isfinite(v) || v > LIBRA_SLA_MAX_DURATION)
		return sla_fail(err, errlen, LIBRA_SLA_ERANGE,
				"%s: '%.40s' is too long (at most 3650 days)",
				what, s);
	if (v <= 0.0)
		return sla_fail(err, errlen, LIBRA_SLA_ERANGE,
				"%s: '%.40s' must be a positive duration",
				what, s);
	*secs = v;
	return LIBRA_SLA_OK;
}

/* "YYYY-MM-DDTHH:MM[:SS][Z]": local time, or UTC with Z. */
static bool _looks_absolute(const char *s)
{
	return strlen(s) >= 16 && isdigit((unsigned char) s[0]) &&
	       s[4] == '-' && (s[10] == 'T' || s[10] == 't');
}

static libra_sla_err_t _parse_absolute(const char *what, const char *s,
				       double *when, char *err, size_t errlen)
{
	unsigned long year, mon, day, hour, min, sec = 0;
	size_t len = strlen(s);
	bool utc = false;
	struct tm tm;
	time_t t;

	if (s[len - 1] == 'Z' || s[len - 1] == 'z') {
		utc = true;
		len--;
	}
	if ((len != 16 && len != 19) || s[7] != '-' || s[13] != ':' ||
	    (len == 19 && s[16] != ':') ||
	    !_parse_uint(s, 4, &year) || !_parse_uint(s + 5, 2, &mon) ||
	    !_parse_uint(s + 8, 2, &day) || !_parse_uint(s + 11, 2, &hour) ||
	    !_parse_uint(s + 14, 2, &min) ||
	    (len == 19 && !_parse_uint(s + 17, 2, &sec)))
		goto bad;
	if (year < 1970 || year > 9999 || mon < 1 || mon > 12 || day < 1 ||
	    day > 31 || hour > 23 || min > 59 || sec > 59)
		goto bad;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = (int) year - 1900;
	tm.tm_mon = (int) mon - 1;
	tm.tm_mday = (int) day;
	tm.tm_hour = (int) hour;
	tm.tm_min = (int) min;
	tm.tm_sec = (int) sec;
	tm.tm_isdst = -1;
	t = utc ? timegm(&tm) : mktime(&tm);
	/* mktime normalises Feb 30 into March: refuse what moved. */
	if (t == (time_t) -1 || tm.tm_mday != (int) day ||
	    tm.tm_mon != (int) mon - 1)
		goto bad;
	*when = (double) t;
	return LIBRA_SLA_OK;
	/* (how far ahead is checked by the caller, which knows "now") */
bad:
	return sla_fail(err, errlen, LIBRA_SLA_EVALUE,
			"%s: '%.40s' is not a time (use YYYY-MM-DDTHH:MM[:SS][Z] or a duration such as 3h)",
			what, s);
}

/* A deadline or due date: absolute time, or a duration from now. */
static libra_sla_err_t _parse_when(const char *what, const char *s,
				   double now, double *when,
				   char *err, size_t errlen)
{
	libra_sla_err_t rc;
	double d;

	if (_looks_absolute(s)) {
		rc = _parse_absolute(what, s, when, err, errlen);
		if (rc == LIBRA_SLA_OK && *when - now > LIBRA_SLA_MAX_DURATION)
			rc = sla_fail(err, errlen, LIBRA_SLA_ERANGE,
				      "%s: '%.40s' is more than 3650 days ahead",
				      what, s);
		return rc;
	}
	rc = libra_parse_duration(what, s, &d, err, errlen);
	if (rc == LIBRA_SLA_OK)
		*when = now + d;
	return rc;
}

/* "hold" (0), or the number of a quote to take. */
static libra_sla_err_t _parse_quote(const char *key, const char *val,
				    uint32_t *quote, char *err, size_t errlen)
{
	unsigned long id;

	const char *given = val;
	uint32_t release = 0;

	if (!strcmp(val, "hold")) {
		*quote = 0;
		return LIBRA_SLA_OK;
	}
	if (!strncmp(val, "release:", 8)) {	/* give a quote back */
		release = LIBRA_SLA_QUOTE_RELEASE;
		val += 8;
	}
	if (!_parse_uint(val, strlen(val), &id) || !id ||
	    id > LIBRA_SLA_QUOTE_MAX_ID)
		return sla_fail(err, errlen, LIBRA_SLA_EVALUE,
				"%s: '%.40s' is not hold, a quote number (1-%u) or release:NUMBER",
				key, given, LIBRA_SLA_QUOTE_MAX_ID);
	*quote = (uint32_t) id | release;
	return LIBRA_SLA_OK;
}

/* Parse one value of key k into its field of tmp (sla_int.h). */
extern libra_sla_err_t sla_parse_value(const libra_sla_key_t *k,
				       const char *val, double now,
				       libra_sla_t *tmp, char *err,
				       size_t errlen)
{
	void *field = (char *) tmp + k->off;
	char list[LIBRA_NAMES_MAX];
	int v;

	switch (k->val) {
	case LIBRA_SLA_VAL_DURATION:
		return libra_parse_duration(k->key, val, field, err, errlen);
	case LIBRA_SLA_VAL_WHEN:
		return _parse_when(k->key, val, now, field, err, errlen);
	case LIBRA_SLA_VAL_MONEY:
		return libra_parse_money(k->key, val, field, err, errlen);
	case LIBRA_SLA_VAL_WORD:
		if (!libra_value_of(k->words, val, &v))
			return sla_fail(err, errlen, LIBRA_SLA_EVALUE,
					"%s: '%.40s' is not %s", k->key, val,
					libra_names_list(k->words, list,
							 sizeof(list)));
		*(int *) field = v;
		return LIBRA_SLA_OK;
	case LIBRA_SLA_VAL_QUOTE:
		return _parse_quote(k->key, val, field, err, errlen);
	}
	return sla_fail(err, errlen, LIBRA_SLA_EKEY, "%s: unknown key", k->key);
}
