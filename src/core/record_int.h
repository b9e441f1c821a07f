/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  record_int.h - internal to the job record's code (record.c,
 *  record_encode.c), not part of the core's API: the decoder's state and
 *  its JSON parser, defined in record.c.  Hidden from libslurm_libra.so's
 *  exported symbols, which stay the core's libra_* functions.
\*****************************************************************************/

#ifndef LIBRA_RECORD_INT_H
#define LIBRA_RECORD_INT_H

#include <json-c/json.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

typedef struct {
	char *err;
	size_t errlen;
	int failed;
} dec_t;

extern json_object *record_parse(dec_t *d, const char *text);

#pragma GCC visibility pop

#endif
