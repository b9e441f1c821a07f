/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sung-lp.c - a lower bound on any policy's cost for one realized period
 *  of Sung's model, solved with GLPK (doc/design.md decision 46).
 *
 *  Hindsight relaxation: with every arrival time and service time known,
 *  choose per slot s a (fractional) number of servers q_s >= pmin, billed
 *  at the slot's cost, the work w_s <= min(q_s, pmax) x dt done in the slot,
 *  and per job the fraction z_j of its service done by the deadline.  Work
 *  done by the end of slot s is at most that of the jobs arrived by then,
 *  all work done is sum z_j S_j, and a job not done costs (1 - z_j) P.  Any
 *  policy's run fits: q_s is its mean number of servers in use over the
 *  slot (deploying and removing ones billed too), z_j what it served of
 *  job j, so the optimum is at most its cost plus P per missed job.
\*****************************************************************************/

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>

#include "sung-lp.h"

#ifdef HAVE_GLPK
#include <glpk.h>

extern bool sung_lp_available(void)
{
	return true;
}

extern double sung_lp_bound(const sung_cfg_t *c, double penalty,
			    const double *arr, const double *size, int n)
{
	int d = c->d, rows = 2 * d + 1, cols = 2 * d + n;
	size_t cap = (size_t) 2 * d + (size_t) d * (d + 1) / 2 +
		(size_t) d * n + d + n + 1;
	int *ia = malloc((cap + 1) * sizeof(int));
	int *ja = malloc((cap + 1) * sizeof(int));
	double *ar = malloc((cap + 1) * sizeof(double));
	double v = NAN;
	glp_prob *lp;
	glp_smcp parm;
	size_t k = 0;

	if (!ia || !ja || !ar) {
		free(ia);
		free(ja);
		free(ar);
		return NAN;
	}
	lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MIN);
	glp_add_rows(lp, rows);
	glp_add_cols(lp, cols);
	/* columns: q_s (1 .. d), w_s (d + 1 .. 2d), z_j (2d + 1 ..) */
	for (int s = 0; s < d; s++) {
		glp_set_col_bnds(lp, 1 + s, GLP_LO, c->pmin, 0);
		glp_set_obj_coef(lp, 1 + s, sung_cost(c, s * c->dt,
						      (s + 1) * c->dt));
		glp_set_col_bnds(lp, 1 + d + s, GLP_DB, 0, c->pmax * c->dt);
	}
	for (int j = 0; j < n; j++) {
		glp_set_col_bnds(lp, 1 + 2 * d + j, GLP_DB, 0, 1);
		glp_set_obj_coef(lp, 1 + 2 * d + j, -penalty);
	}
	glp_set_obj_coef(lp, 0, penalty * n);
	/* rows 1 .. d: w_s - dt q_s <= 0 */
	for (int s = 0; s < d; s++) {
		glp_set_row_bnds(lp, 1 + s, GLP_UP, 0, 0);
		k++, ia[k] = 1 + s, ja[k] = 1 + d + s, ar[k] = 1;
		k++, ia[k] = 1 + s, ja[k] = 1 + s, ar[k] = -c->dt;
	}
	/* rows d + 1 .. 2d: work to the end of s <= work arrived by then */
	for (int s = 0; s < d; s++) {
		int r = 1 + d + s;

		glp_set_row_bnds(lp, r, GLP_UP, 0, 0);
		for (int i = 0; i <= s; i++)
			k++, ia[k] = r, ja[k] = 1 + d + i, ar[k] = 1;
		for (int j = 0; j < n; j++)
			if (arr[j] < (s + 1) * c->dt)
				k++, ia[k] = r, ja[k] = 1 + 2 * d + j,
					ar[k] = -size[j];
	}
	/* row 2d + 1: all work done = sum z_j S_j */
	glp_set_row_bnds(lp, rows, GLP_FX, 0, 0);
	for (int s = 0; s < d; s++)
		k++, ia[k] = rows, ja[k] = 1 + d + s, ar[k] = 1;
	for (int j = 0; j < n; j++)
		k++, ia[k] = rows, ja[k] = 1 + 2 * d + j, ar[k] = -size[j];
	glp_load_matrix(lp, (int) k, ia, ja, ar);
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	parm.presolve = GLP_ON;
	if (!glp_simplex(lp, &parm) && glp_get_status(lp) == GLP_OPT)
		v = glp_get_obj_val(lp);
	glp_delete_prob(lp);
	free(ia);
	free(ja);
	free(ar);
	return v;
}

#else /* !HAVE_GLPK */

extern bool sung_lp_available(void)
{
	return false;
}

extern double sung_lp_bound(const sung_cfg_t *c, double penalty,
			    const double *arr, const double *size, int n)
{
	(void) c;
	(void) penalty;
	(void) arr;
	(void) size;
	(void) n;
	return NAN;
}

#endif
