/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sung-lp.h - the hindsight LP lower bound of one period of Sung's model
 *  (sung-lp.c; doc/design.md decision 46).  Needs GLPK (configure finds
 *  glpk.h and libglpk); without it the bound is NaN.
\*****************************************************************************/

#ifndef LIBRA_SIM_SUNG_LP_H
#define LIBRA_SIM_SUNG_LP_H

#include <stdbool.h>

#include "sung.h"

/* Whether this build has GLPK. */
extern bool sung_lp_available(void);

/*
 * The least cost (servers billed per slot at the cost function, plus
 * penalty per job not done by d x dt) of serving n jobs arriving at arr[j]
 * with service times size[j], seconds, relaxed to fractional servers and
 * work: no policy does better on that period.  NaN without GLPK or when
 * the solver fails.
 */
extern double sung_lp_bound(const sung_cfg_t *c, double penalty,
			    const double *arr, const double *size, int n);

#endif /* LIBRA_SIM_SUNG_LP_H */
