/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sla_int.h - internal to the SLA code (sla.c, sla_value.c,
 *  sla_finish.c), not part of the core's API: the table of the grammar's
 *  keys and the message helper, both defined in sla.c, and the parser of
 *  one key's value, in sla_value.c.  Hidden from libslurm_libra.so's
 *  exported symbols, which stay the core's libra_* functions.
\*****************************************************************************/

#ifndef LIBRA_SLA_INT_H
#define LIBRA_SLA_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sla.h"

#pragma GCC visibility push(hidden)

/* The keys of the grammar (libra_sla_key_t, sla.h), LIBRA_SLA_NKEYS of
 * them; outside the SLA code, libra_sla_key_at(). */
extern const libra_sla_key_t sla_keys[];

extern libra_sla_err_t sla_fail(char *err, size_t errlen, libra_sla_err_t code,
				const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Parse one value of key k (by its kind, k->val) into its field of tmp;
 * "now" for a time given as a duration from now. */
extern libra_sla_err_t sla_parse_value(const libra_sla_key_t *k,
				       const char *val, double now,
				       libra_sla_t *tmp, char *err,
				       size_t errlen);

#pragma GCC visibility pop

#endif
