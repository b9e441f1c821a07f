/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sung-test.c - unit checks of Sung's model's pure functions (sung.c;
 *  doc/design.md decision 46): the chain's expectation, the confidence
 *  table, w_s, v_s, H2's hysteresis and the searches' choices.  Run by
 *  "make check" in contrib/sim.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sung.h"

static int _fails;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		printf("FAIL %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		_fails++;						\
	}								\
} while (0)

/* E[1] = 1; E[n] with no arrivals and one server over an interval falls
 * by at most dt / svc on average (one server's completions). */
static void _expect(const sung_cfg_t *c)
{
	int nn = c->nmax + 1;
	double *one = malloc(nn * sizeof(double));
	double *id = malloc(nn * sizeof(double));
	double *out = malloc(nn * sizeof(double));

	for (int n = 0; n < nn; n++) {
		one[n] = 1;
		id[n] = n;
	}
	sung_expect(c, sung_rate(c, 30), 3, one, out);
	for (int n = 0; n < nn; n++)
		CHECK(fabs(out[n] - 1) < 1e-9, "E[1 | n=%d] = %g", n, out[n]);
	sung_expect(c, 0, 1, id, out);
	CHECK(fabs(out[50] - (50 - c->dt / c->svc)) < 1e-9,
	      "E[n' | 50, one server, no arrivals] = %g", out[50]);
	CHECK(fabs(out[0]) < 1e-12, "E[n' | 0, no arrivals] = %g", out[0]);
	/* one job, one server: done with probability 1 - exp(-dt/svc) */
	for (int n = 0; n < nn; n++)
		id[n] = n == 0;
	sung_expect(c, 0, 1, id, out);
	CHECK(fabs(out[1] - (1 - exp(-c->dt / c->svc))) < 1e-9,
	      "Pr[done | 1 job] = %g", out[1]);
	free(one);
	free(id);
	free(out);
}

int main(void)
{
	sung_cfg_t c;
	sung_tables_t t;

	sung_cfg_default(&c);
	c.nmax = (int) ceil(c.pmax * c.d * c.dt / c.svc);
	CHECK(fabs(sung_profile(&c, 28800) - 0.5) < 1e-3, "a(28800)");
	CHECK(sung_rate(&c, c.u) == 0, "no arrivals after u");
	CHECK(fabs(sung_cost(&c, 0, 3600) - 1) < 1e-12, "uniform cost");
	CHECK(sung_cost_shape(&c, 2) && sung_cost(&c, 0, 1800) <
	      sung_cost(&c, 3600, 5400), "increasing cost");
	CHECK(!sung_cost_shape(&c, 6), "cost 6 refused");
	sung_cost_shape(&c, 1);
	_expect(&c);

	CHECK(sung_w(&c, 0) == 1 && sung_w(&c, 3) == 3 && sung_w(&c, 9) == 5,
	      "w_s = min(pmax, max(pmin, n))");
	if (!sung_tables(&c, &t)) {
		printf("FAIL: sung_tables\n");
		return 1;
	}
	CHECK(t.pstatic == 4, "static %d, Sung's 4", t.pstatic);
	CHECK(fabs(t.penalty - c.svc / 3600.0) < 1e-12, "P = x c_max");
	for (int s = 0; s <= c.d; s++)
		for (int p = c.pmin + 1; p <= c.pmax; p++)
			CHECK(t.g[s][p] >= t.g[s][p - 1], "g_%d(%d)", s, p);
	/* v_s: the least p that covers n */
	CHECK(sung_v(&c, &t, 30, 0) <= sung_v(&c, &t, 30, 40), "v monotone");
	CHECK(sung_v(&c, &t, 30, 10000) == c.pmax, "v capped at pmax");
	CHECK(sung_decide(&c, &t, SUNG_H1, 0, 1, 0, -1, -1) == 4,
	      "H1 at an empty start keeps the static servers");
	/* H2: a removal waits for a second decision */
	{
		int v = sung_v(&c, &t, 70, 0);

		CHECK(v < 5, "v_70(0) = %d", v);
		CHECK(sung_decide(&c, &t, SUNG_H2, 70, 5, 0, 5, 5) == 5,
		      "H2 keeps at the first removal");
		CHECK(sung_decide(&c, &t, SUNG_H2, 70, 5, 0, 3, 5) == v,
		      "H2 removes at the second");
		CHECK(sung_decide(&c, &t, SUNG_H1, 70, 5, 0, 5, 5) == v,
		      "H1 removes at once");
	}
	/* the searches: within [pmin, pmax], at most w_s after u, the forced
	 * maximum when n >= g_s(pmax), and H4 non-decreasing in n */
	for (int h = SUNG_H3; h <= SUNG_H5; h++)
		for (int s = 1; s < c.d; s++)
			for (int p = c.pmin; p <= c.pmax; p++) {
				int last = 0;

				for (int n = 0; n <= c.nmax; n++) {
					int q = sung_decide(&c, &t, h, s, p, n,
							    -1, -1);

					CHECK(q >= c.pmin && q <= c.pmax,
					      "%s q %d", sung_heur_name(h), q);
					if (s >= c.u)
						CHECK(q <= sung_w(&c, n),
						      "q above w_s");
					if (s < c.u && n >= t.g[s][c.pmax])
						CHECK(q == c.pmax, "forced");
					if (h == SUNG_H4)
						CHECK(q >= last, "H4 s %d p %d "
						      "n %d", s, p, n);
					last = q;
				}
			}
	sung_tables_free(&t);
	if (_fails) {
		printf("sung-test: %d failed\n", _fails);
		return 1;
	}
	printf("PASS: sung-test\n");
	return 0;
}
