/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  number.h - the strict decimal grammar of every number the project reads,
 *  and the names of every enum's values.
 *
 *  A plain decimal: digits, an optional fraction, an optional exponent
 *  ("12", "0.5", "1e3").  No sign, blank, unit, hexadecimal, "inf", "nan"
 *  or trailing byte: "5x" is refused.  The SLA's money values
 *  (libra_parse_money(), sla.h), the policy parameters
 *  (libra_parse_number() below, params_base.c), the SPANK plugin's
 *  arguments and the tariff's rates (tariff.c) all read numbers here.
 *
 *  The names of an enum's values (policies, tiers, end kinds, verdicts,
 *  ...) are a libra_name_t table each, read and written by the three
 *  functions below and no other code (doc/design.md, "Source layout").
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

/*
 * One value of an enum and its name.  A table ends with { 0, NULL }.  One
 * rule for every table: a name matches exactly, case and all; a value's
 * first entry is its name, a later entry with the same value an alias
 * (read, never written nor listed); a value with no entry is written
 * "unknown".
 */
typedef struct libra_name {
	int value;
	const char *name;
} libra_name_t;

/* The name of value in t, or "unknown". */
extern const char *libra_name_of(const libra_name_t *t, int value);

/* The value named name in t into *value: false (and *value unchanged)
 * when t names nothing so, or name is NULL. */
extern bool libra_value_of(const libra_name_t *t, const char *name,
			   int *value);

/* Room for any table's list (libra_names_list()). */
#define LIBRA_NAMES_MAX 256

/*
 * The names of t as a message lists them, aliases left out: "a", "a or
 * b", "a, b or c", into buf (truncated to len).  Returns buf, for
 * "expected %s" and "'%s' is not %s".
 */
extern const char *libra_names_list(const libra_name_t *t, char *buf,
				    size_t len);

/*
 * v in the fewest significant digits (15 to 17) that read back as v with
 * strtod(), "-0" written "0"; buf of at least LIBRA_NUMBER_LEN.  A
 * non-finite v is written as C's printf writes it ("inf", "nan").
 */
#define LIBRA_NUMBER_LEN 32
extern const char *libra_format_number(char *buf, size_t len, double v);

#endif /* LIBRA_NUMBER_H */
