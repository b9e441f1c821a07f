/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  params_int.h - internal to the policy parameters (params_base.c,
 *  params.c), not part of the core's API: the one table of the libra_*
 *  keys and the steps both files take, all defined in params_base.c.
 *  Hidden from libslurm_libra.so's exported symbols, which stay the
 *  core's libra_* functions.
\*****************************************************************************/

#ifndef LIBRA_PARAMS_INT_H
#define LIBRA_PARAMS_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "params_base.h"

#pragma GCC visibility push(hidden)

typedef enum {
	KIND_DOUBLE,
	KIND_NAME,		/* one of names: an enum */
	KIND_BOOL,		/* libra_yes_no_names: a bool */
	KIND_HOURS,
	KIND_PATH,		/* a path, LIBRA_PATH_LEN at most; "": none */
	/* read by params.c, with the modules whose parameters they are */
	KIND_PREDICT,		/* libra_predict_method_names: an enum */
	KIND_POWER,		/* libra_power_names: an enum */
	KIND_TARIFF,
	KIND_NODEMAP,		/* nodemap.h: a number per node in
				 * (0, range.max] */
} kind_t;

typedef struct {
	const char *key;
	kind_t kind;
	size_t off;		/* offset of the field in libra_params_t */
	libra_range_t range;	/* KIND_DOUBLE: the values it may take */
	const libra_name_t *names;	/* KIND_NAME: the values' names */
} param_def_t;

/* The keys, PARAMS_NDEFS of them, in the order libra_params_format()
 * writes them. */
#define PARAMS_NDEFS 53
extern const param_def_t params_defs[];

/* The key's entry, or NULL. */
extern const param_def_t *params_def(const char *key);

/* "key=val: why" in err; returns -1. */
extern int params_fail(char *err, size_t errlen, const char *key,
		       const char *val, const char *why);

/* An enum's value by its name into *field, or -1 with "key=val: expected
 * a, b or c". */
extern int params_name(int *field, const char *key, const libra_name_t *names,
		       const char *val, char *err, size_t errlen);

/* Read one value of a KIND_PREDICT, KIND_POWER, KIND_TARIFF or
 * KIND_NODEMAP key into *p: params.c's. */
typedef int params_reader_t(libra_params_t *p, const param_def_t *d,
			    const char *val, char *err, size_t errlen);

/*
 * Set one key, the value read by its kind, the kinds read by params.c with
 * "embedded" (NULL: those keys are refused).  Returns 0, or -1 with
 * "key=value: why" in err (and *p unchanged).
 */
extern int params_set(libra_params_t *p, const char *key, const char *val,
		      params_reader_t *embedded, char *err, size_t errlen);

#pragma GCC visibility pop

#endif
