/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  number.h - the strict decimal grammar of every number the project reads.
 *
 *  A plain decimal: digits, an optional fraction, an optional exponent
 *  ("12", "0.5", "1e3").  No sign, blank, unit, hexadecimal, "inf", "nan"
 *  or trailing byte: "5x" is refused.  The SLA's money values
 *  (libra_parse_money(), sla.h), the policy parameters
 *  (libra_parse_number() below, params.c), the SPANK plugin's arguments
 *  and the tariff's rates (tariff.c) all read numbers here.
 *
 *  The bottom of the core: it includes no other header of it.
\*****************************************************************************/

#ifndef LIBRA_NUMBER_H
#define LIBRA_NUMBER_H

#include <stdbool.h>
#include <stddef.h>

/* s[0..len) in the grammar above? */
extern bool libra_is_decimal(const char *s, size_t len);

/* s[0..len), in the grammar, as a double: false when strtod() does not
 * take all of it or it overflows. */
extern bool libra_decimal_value(const char *s, size_t len, double *out);

/* The values a number parameter may take: [min, max], or (min, max] when
 * min_open; whole: integers only. */
typedef struct libra_range {
	double min, max;
	bool min_open;
	bool whole;
} libra_range_t;

/*
 * The strict number parser of every parameter: a plain decimal within *r.
 * Returns 0 with *out set, or -1 with "what=val: why" in err.
 */
extern int libra_parse_number(const char *what, const char *val,
			      const libra_range_t *r, double *out,
			      char *err, size_t errlen);

#endif /* LIBRA_NUMBER_H */
