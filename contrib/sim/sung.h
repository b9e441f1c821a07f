/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sung.h - Sung's provisioning model for one batch cluster with a shared
 *  deadline (Sung 2006, chapters 4 and 5; doc/design.md decision 46), as
 *  pure functions: the confidence table g_s(p) behind H1 and H2, the
 *  cost-to-go search behind H3, H4 and H5, and each heuristic's decision.
 *
 *  Time counts in decision intervals (dt seconds, Sung's 900): jobs arrive
 *  in [0, u dt), every job must be done by d dt, decisions are taken at
 *  s = 1 .. d - 1.  Arrivals follow Sung's profile a(x) (Eq. 5.1: the mean
 *  interarrival time ia x a(x) at time x), service times are exponential
 *  with mean svc, every server is identical.
 *
 *  Sung estimates Pr[n_d = 0] and k_s(q, n, m) by simulating the queue;
 *  here the queue is the birth-death chain it is (arrivals Poisson at the
 *  profile's mean rate over each interval, q servers each completing at
 *  1/svc), solved exactly by uniformization, so no table has sampling
 *  error and none takes more than milliseconds.
\*****************************************************************************/

#ifndef LIBRA_SIM_SUNG_H
#define LIBRA_SIM_SUNG_H

#include <stdbool.h>

#include "tariff.h"

#define SUNG_PMAX 64		/* servers at most */
#define SUNG_DMAX 512		/* decision intervals in a period at most */

typedef enum {
	SUNG_STATIC = 0,	/* fixed servers (Sung's baseline) */
	SUNG_H1,		/* threshold-responding (Algorithm 1) */
	SUNG_H2,		/* H1, removal after two (Algorithm 2) */
	SUNG_H3,		/* cost-aware (Algorithm 3) */
	SUNG_H4,		/* H3 from the n - 1 choice (Algorithm 5) */
	SUNG_H5,		/* H3 without M* (Algorithm 6) */
	SUNG_NHEUR
} sung_heur_t;

typedef struct sung_cfg {
	int pmin, pmax;		/* servers kept at least / at most */
	int u, d;		/* submission, completion deadline (slots) */
	double dt;		/* seconds between decision points */
	double ia;		/* mean interarrival before the profile, s */
	double a0, a1, a2;	/* a(x) = a0 + a1 x + a2 x^2 (Eq. 5.1) */
	double svc;		/* mean service time, s */
	double y;		/* confidence required, 0.9999 */
	double r1, r2;		/* deployment and removal periods, s */
	int nmax;		/* jobs the chain counts at most */
	libra_tariff_t cost;	/* c_t per server-hour, time 0 = period 0 */
} sung_cfg_t;

/* What the precomputation gives: the confidence table and, per
 * cost-aware heuristic, its choice l_s for every (s, p, n). */
typedef struct sung_tables {
	int g[SUNG_DMAX + 1][SUNG_PMAX + 1];	/* g_s(p); -1: not even 0 */
	int pstatic;		/* least p with Pr[all done | n_0 = 0] >= y */
	double penalty;		/* P = svc x c_max (Eq. 4.10) */
	/* l[h - SUNG_H3][s][p][n], n = 0 .. nmax */
	unsigned char *l[3];
} sung_tables_t;

/* Sung's settings (section 5.1): u 64, d 92, dt 900, ia 480, Eq. 5.1,
 * svc 1200, pmin 1, pmax 5, y 99.99%, r1 25 s and r2 30 s (his measured
 * Condor times, section 3.3), a flat cost of 1. */
extern void sung_cfg_default(sung_cfg_t *c);

/* One of Sung's cost functions (section 5.3, shapes only): 1 uniform,
 * 2 increasing, 3 decreasing, 4 cheaper in the middle, 5 dearer in the
 * middle, from 0.5 to 1 per server-hour over [0, d dt) in steps of half an
 * hour (the tariff's resolution).  False for another number. */
extern bool sung_cost_shape(sung_cfg_t *c, int shape);

/* a(x) of Eq. 5.1, and the mean arrival rate (jobs/s) over slot s: 0 from
 * the submission deadline on. */
extern double sung_profile(const sung_cfg_t *c, double x);
extern double sung_rate(const sung_cfg_t *c, int s);

/* The cost of one server over [from, to) seconds of the period. */
extern double sung_cost(const sung_cfg_t *c, double from, double to);

/* out[n] = E[f(n_{s+1}) | n_s = n] with q servers over slot s (arrival rate
 * lam), n = 0 .. nmax: the chain's transition k_s(q, n, m) applied to f. */
extern void sung_expect(const sung_cfg_t *c, double lam, int q,
			const double *f, double *out);

/* Fill t: g_s(p), pstatic, P and the three cost-to-go searches.  Returns
 * false when out of memory.  sung_tables_free() releases it. */
extern bool sung_tables(const sung_cfg_t *c, sung_tables_t *t);
extern void sung_tables_free(sung_tables_t *t);

/* v_s of Eq. 4.5, clamped to [pmin, pmax]: the least p with n <= g_s(p). */
extern int sung_v(const sung_cfg_t *c, const sung_tables_t *t, int s,
		  int n);

/* w_s of Eq. 4.7. */
extern int sung_w(const sung_cfg_t *c, int n);

/*
 * The servers heuristic h keeps over [s, s + 1) when p are kept and n jobs
 * are in the system at decision point s.  H2 also needs the v and p of
 * the previous decision point (prev_v < 0: none).
 */
extern int sung_decide(const sung_cfg_t *c, const sung_tables_t *t,
		       sung_heur_t h, int s, int p, int n, int prev_v,
		       int prev_p);

extern const char *sung_heur_name(sung_heur_t h);
extern bool sung_heur_from_name(const char *name, sung_heur_t *h);

#endif /* LIBRA_SIM_SUNG_H */
