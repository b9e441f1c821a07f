/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sung.c - Sung's provisioning model: confidence table, cost-to-go search
 *  and the heuristics' decisions (sung.h; doc/design.md decision 46).
\*****************************************************************************/

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sung.h"

static const char *_names[SUNG_NHEUR] = {
	"static", "h1", "h2", "h3", "h4", "h5"
};

extern const char *sung_heur_name(sung_heur_t h)
{
	return (h >= 0 && h < SUNG_NHEUR) ? _names[h] : "?";
}

extern bool sung_heur_from_name(const char *name, sung_heur_t *h)
{
	for (int i = 0; i < SUNG_NHEUR; i++)
		if (!strcmp(name, _names[i])) {
			*h = (sung_heur_t) i;
			return true;
		}
	return false;
}

extern void sung_cfg_default(sung_cfg_t *c)
{
	memset(c, 0, sizeof(*c));
	c->pmin = 1;
	c->pmax = 5;
	c->u = 64;
	c->d = 92;
	c->dt = 900;
	c->ia = 480;
	c->a0 = 2.0;
	c->a1 = -1.04167e-4;
	c->a2 = 1.80845e-9;
	c->svc = 1200;
	c->y = 0.9999;
	c->r1 = 25;
	c->r2 = 30;
	c->nmax = 0;		/* Eq. 4.6's gamma, set by sung_tables() */
	sung_cost_shape(c, 1);
}

extern bool sung_cost_shape(sung_cfg_t *c, int shape)
{
	double len = c->d * c->dt, half = 1800;
	int n = (int) ceil(len / half);

	if (shape < 1 || shape > 5)
		return false;
	if (n > LIBRA_TARIFF_MAX)
		n = LIBRA_TARIFF_MAX;
	memset(&c->cost, 0, sizeof(c->cost));
	c->cost.n = n;
	for (int i = 0; i < n; i++) {
		/* the shape at the middle of the half hour, x in [0, 1] */
		double x = ((i + 0.5) * half) / len, m = (x - 0.5) / 0.5;
		double r = 1.0;

		if (x > 1)
			x = 1;
		switch (shape) {
		case 2:
			r = 0.5 + 0.5 * x;
			break;
		case 3:
			r = 1.0 - 0.5 * x;
			break;
		case 4:
			r = 0.5 + 0.5 * m * m;
			break;
		case 5:
			r = 1.0 - 0.5 * m * m;
			break;
		}
		c->cost.sod[i] = (int) (i * half);
		c->cost.rate[i] = r;
	}
	return true;
}

extern double sung_profile(const sung_cfg_t *c, double x)
{
	return c->a0 + c->a1 * x + c->a2 * x * x;
}

extern double sung_rate(const sung_cfg_t *c, int s)
{
	/* the mean of 1 / (ia a(x)) over the slot (midpoint rule, 30 parts) */
	double sum = 0, from = s * c->dt, end = c->u * c->dt;
	const int parts = 30;

	if (s >= c->u)
		return 0;
	for (int i = 0; i < parts; i++) {
		double x = from + (i + 0.5) * c->dt / parts;

		if (x < end)
			sum += 1.0 / (c->ia * sung_profile(c, x));
	}
	return sum / parts;
}

extern double sung_cost(const sung_cfg_t *c, double from, double to)
{
	return libra_tariff_cost(&c->cost, from, to);
}

extern void sung_expect(const sung_cfg_t *c, double lam, int q,
			const double *f, double *out)
{
	int nm = c->nmax;
	double big = lam + (q > 0 ? q / c->svc : 0), x = big * c->dt;
	double *v, *w, wk, cum;

	memcpy(out, f, (nm + 1) * sizeof(double));
	if (!(big > 0))
		return;
	v = malloc(2 * (nm + 1) * sizeof(double));
	if (!v)
		return;
	w = v + nm + 1;
	memcpy(v, f, (nm + 1) * sizeof(double));
	/* uniformization: sum_k Poisson(k; x) P^k f */
	wk = exp(-x);
	cum = wk;
	for (int n = 0; n <= nm; n++)
		out[n] = wk * f[n];
	for (int k = 1; cum < 1 - 1e-13 && k < 100000; k++) {
		for (int n = 0; n <= nm; n++) {
			double b = (n < q ? n : q) / c->svc / big;
			double r = v[n];

			if (n < nm)
				r += lam / big * (v[n + 1] - v[n]);
			if (n > 0)
				r += b * (v[n - 1] - v[n]);
			w[n] = r;
		}
		memcpy(v, w, (nm + 1) * sizeof(double));
		wk *= x / k;
		cum += wk;
		for (int n = 0; n <= nm; n++)
			out[n] += wk * v[n];
	}
	free(v);
}

extern int sung_w(const sung_cfg_t *c, int n)
{
	int w = n > c->pmin ? n : c->pmin;

	return w < c->pmax ? w : c->pmax;
}

extern int sung_v(const sung_cfg_t *c, const sung_tables_t *t, int s,
		  int n)
{
	for (int p = c->pmin; p <= c->pmax; p++)
		if (n <= t->g[s][p])
			return p;
	return c->pmax;
}

/* Eq. 4.9's alpha, capped by w_{d-1}. */
static int _last(const sung_cfg_t *c, const sung_tables_t *t, int n)
{
	int a = sung_v(c, t, c->d - 1, n), w = sung_w(c, n);

	return a < w ? a : w;
}

static size_t _li(const sung_cfg_t *c, int s, int p, int n)
{
	return ((size_t) s * (c->pmax + 1) + p) * (c->nmax + 1) + n;
}

/*
 * One cost-to-go search (Algorithm 4 and its H4, H5 forms): L_d(p, n) =
 * n P, then backwards L_s(p, n) = M_s(p, q, n) with q the forced or the
 * cheapest choice of Eqs. 4.14/4.15 (4.18/4.19, 4.23/4.24).
 */
static bool _search(const sung_cfg_t *c, sung_tables_t *t, sung_heur_t h,
		    unsigned char *l)
{
	int np = c->pmax + 1, nn = c->nmax + 1;
	double *cur = calloc((size_t) np * nn, sizeof(double));
	double *nxt = calloc((size_t) np * nn, sizeof(double));
	double *e = calloc((size_t) np * nn, sizeof(double));

	if (!cur || !nxt || !e) {
		free(cur);
		free(nxt);
		free(e);
		return false;
	}
	for (int p = 0; p < np; p++)
		for (int n = 0; n < nn; n++)
			nxt[p * nn + n] = n * t->penalty;
	for (int s = c->d - 1; s >= 1; s--) {
		double lam = sung_rate(c, s);
		double cs = sung_cost(c, s * c->dt, (s + 1) * c->dt);
		double rm = sung_cost(c, s * c->dt, s * c->dt + c->r2);

		for (int q = c->pmin; q <= c->pmax; q++)
			sung_expect(c, lam, q, nxt + q * nn, e + q * nn);
		for (int p = c->pmin; p <= c->pmax; p++) {
			int beta = c->pmin;

			for (int n = 0; n < nn; n++) {
				int cap = s < c->u ? c->pmax : sung_w(c, n);
				int lo = h == SUNG_H4 ? beta : c->pmin;
				int best = -1;
				double bm = 0;

				if (s == c->d - 1)
					lo = cap = _last(c, t, n);
				else if (n >= t->g[s][c->pmax])
					lo = cap;
				if (lo > cap)
					lo = cap;
				for (int q = lo; q <= cap; q++) {
					double m = q * cs + e[q * nn + n];

					if (h != SUNG_H5 && q < p)
						m += (p - q) * rm;
					if (best < 0 || m < bm - 1e-12) {
						best = q;
						bm = m;
					}
				}
				cur[p * nn + n] = bm;
				l[_li(c, s, p, n)] = (unsigned char) best;
				beta = best;
			}
		}
		memcpy(nxt, cur, (size_t) np * nn * sizeof(double));
	}
	free(cur);
	free(nxt);
	free(e);
	return true;
}

extern bool sung_tables(const sung_cfg_t *c0, sung_tables_t *t)
{
	sung_cfg_t cc = *c0, *c = &cc;
	double cmax = 0, *hv, *tmp;
	int nn;

	memset(t, 0, sizeof(*t));
	if (c->nmax <= 0)	/* Eq. 4.6 */
		c->nmax = (int) ceil(c->pmax * c->d * c->dt / c->svc);
	nn = c->nmax + 1;
	hv = malloc(2 * nn * sizeof(double));
	if (!hv)
		return false;
	tmp = hv + nn;
	t->pstatic = c->pmax;
	for (int p = c->pmax; p >= c->pmin; p--) {
		memset(hv, 0, nn * sizeof(double));
		hv[0] = 1;
		t->g[c->d][p] = 0;
		for (int s = c->d - 1; s >= 0; s--) {
			int g = -1;

			sung_expect(c, sung_rate(c, s), p, hv, tmp);
			memcpy(hv, tmp, nn * sizeof(double));
			while (g + 1 < nn && hv[g + 1] >= c->y)
				g++;
			t->g[s][p] = g;
		}
		if (hv[0] >= c->y)
			t->pstatic = p;
	}
	free(hv);
	for (int s = 0; s < c->d; s++) {
		double r = libra_tariff_rate(&c->cost, s * c->dt);

		cmax = r > cmax ? r : cmax;
	}
	t->penalty = c->svc / 3600.0 * cmax;
	for (int i = 0; i < 3; i++) {
		t->l[i] = calloc((size_t) (c->d + 1) * (c->pmax + 1) * nn, 1);
		if (!t->l[i] || !_search(c, t, SUNG_H3 + i, t->l[i])) {
			sung_tables_free(t);
			return false;
		}
	}
	return true;
}

extern void sung_tables_free(sung_tables_t *t)
{
	for (int i = 0; i < 3; i++) {
		free(t->l[i]);
		t->l[i] = NULL;
	}
}

extern int sung_decide(const sung_cfg_t *c0, const sung_tables_t *t,
		       sung_heur_t h, int s, int p, int n, int prev_v,
		       int prev_p)
{
	sung_cfg_t cc = *c0, *c = &cc;
	int v;

	if (c->nmax <= 0)
		c->nmax = (int) ceil(c->pmax * c->d * c->dt / c->svc);
	if (n > c->nmax)
		n = c->nmax;
	if (p < c->pmin)
		p = c->pmin;
	if (p > c->pmax)
		p = c->pmax;
	switch (h) {
	case SUNG_STATIC:
		return t->pstatic;
	case SUNG_H1:
		return sung_v(c, t, s, n);
	case SUNG_H2:
		v = sung_v(c, t, s, n);
		if (v >= p || (prev_v >= 0 && prev_v < prev_p))
			return v;
		return p;
	case SUNG_H3:
	case SUNG_H4:
	case SUNG_H5:
		if (s < 1 || s >= c->d)
			return p;
		return t->l[h - SUNG_H3][_li(c, s, p, n)];
	default:
		return p;
	}
}
