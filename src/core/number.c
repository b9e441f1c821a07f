/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  number.c - the strict decimal grammar, and the names of enum values
 *  (number.h).
\*****************************************************************************/

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"

/* Skip the digits at s[*i..len); how many there were. */
static size_t _digits(const char *s, size_t len, size_t *i)
{
	size_t n = 0;

	while (*i < len && isdigit((unsigned char) s[*i])) {
		(*i)++;
		n++;
	}
	return n;
}

extern bool libra_is_decimal(const char *s, size_t len)
{
	size_t i = 0, digits = _digits(s, len, &i);

	if (i < len && s[i] == '.') {
		i++;
		digits += _digits(s, len, &i);
	}
	if (!digits)
		return false;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		if (!_digits(s, len, &i))
			return false;
	}
	return i == len;
}

extern bool libra_decimal_value(const char *s, size_t len, double *out)
{
	char buf[64];
	char *end;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	return *end == '\0' && errno != ERANGE;
}

static int _fail(char *err, size_t errlen, const char *key, const char *val,
		 const char *why)
{
	if (err && errlen)
		snprintf(err, errlen, "%s=%.40s: %s", key, val, why);
	return -1;
}

extern int libra_parse_number(const char *what, const char *val,
			      const libra_range_t *r, double *out,
			      char *err, size_t errlen)
{
	char msg[160];
	double v;

	/* 1e15: libra_parse_money()'s bound, which this parser used to be */
	if (!val || !libra_is_decimal(val, strlen(val)) ||
	    !libra_decimal_value(val, strlen(val), &v) || !isfinite(v) ||
	    v > 1e15)
		return _fail(err, errlen, what, val ? val : "",
			     "not a non-negative number");
	if ((r->min_open ? v <= r->min : v < r->min) || v > r->max ||
	    (r->whole && v != floor(v))) {
		snprintf(msg, sizeof(msg), "must be %sin %c%g, %g]",
			 r->whole ? "a whole number " : "",
			 r->min_open ? '(' : '[', r->min, r->max);
		return _fail(err, errlen, what, val, msg);
	}
	*out = v;
	return 0;
}

extern const char *libra_name_of(const libra_name_t *t, int value)
{
	for (; t->name; t++)
		if (t->value == value)
			return t->name;
	return "unknown";
}

extern bool libra_value_of(const libra_name_t *t, const char *name,
			   int *value)
{
	for (; name && t->name; t++) {
		if (!strcmp(name, t->name)) {
			*value = t->value;
			return true;
		}
	}
	return false;
}

/* Is t's entry e an alias (a value named before it)? */
static bool _alias(const libra_name_t *t, const libra_name_t *e)
{
	for (; t < e; t++)
		if (t->value == e->value)
			return true;
	return false;
}

extern const char *libra_names_list(const libra_name_t *t, char *buf,
				    size_t len)
{
	size_t used = 0, n = 0, i = 0;

	for (const libra_name_t *e = t; e->name; e++)
		n += !_alias(t, e);
	buf[0] = '\0';
	for (const libra_name_t *e = t; e->name && used < len; e++) {
		if (_alias(t, e))
			continue;
		used += (size_t) snprintf(buf + used, len - used, "%s%s",
					  !i ? "" : i + 1 < n ? ", " : " or ",
					  e->name);
		i++;
	}
	return buf;
}

extern const char *libra_format_number(char *buf, size_t len, double v)
{
	if (v == 0.0)	/* "-0" would come back as the integer 0 */
		v = 0.0;
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (!isfinite(v) || strtod(buf, NULL) == v)
			break;
	}
	return buf;
}
