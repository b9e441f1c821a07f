/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit_riskd.c - LibraRiskD's admission (thesis Fig. 5.1, see admit.h):
 *  each node projected as weighted processor sharing with the new job, a
 *  candidate where the mean and deviation of the deadline delays (DDY)
 *  stay within risk_mu and risk_sigma; nodes in index order, priced as
 *  Libra.  The steps common to every policy are in admit.c.
 *
 *  What the fast path guarantees equals the plain algorithm (test_admit_riskd's
 *  reference, test_riskd_matches_reference_on_random_ledgers):
 *  - A node passes with k = min(N, the job's CPUs, what it can take) CPUs,
 *    else with 1, when the DDY (Eq. 5.2) of its SLA jobs and the new one
 *    whose deadlines are ahead have a mean (Eq. 5.3) <= risk_mu + 1e-6 and
 *    a deviation (Eq. 5.4) <= risk_sigma + 1e-6.  Finishes are projected
 *    by _project_ps(): job i at min(c_i, lambda w_i), w_i = c_i share_i,
 *    lambda filling the node (water filling: removing saturated jobs until
 *    none is left finds the lambda any other search finds), the capacity
 *    handed back as each job completes.
 *  - Shortcut: node share + k s <= capacity x N + tolerance passes without
 *    a projection.  Exact: every job then runs at least at its share
 *    (w_i <= c_i), none is late, every DDY is 1.
 *  - Shortcut: above it, with risk_mu <= 1 + tolerance, the node fails
 *    without a projection.  Every job runs below its share until the first
 *    completes, and that one is late, so the mean is over 1: exact while
 *    every share is what its job needs (work left = share x (TD - now)).
 *    A share floored at share_min, or work already done, needs less: the
 *    first to complete may be on time, and the projection may pass a node
 *    this refuses (conservative, as Libra's share test).
 *  - Nodes in index order; the walk stops once the candidates fill the
 *    request (admit_fill() takes them in order: later nodes cannot change
 *    the placement).
 *  - risk_thesis (decision 49): Fig. 5.1 line 8 as written, the deviation
 *    alone (no mean test), and a share over 1 (estimate beyond the
 *    deadline) projected rather than refused (admit_policy() lets it
 *    through), at the share the ledger commits, 1 (decision 4).  Alone
 *    on a node such a job has a deviation of 0 and passes; beside an
 *    on-time job it does not.  The first shortcut holds only for a share
 *    of at most 1; the second is not taken (no mean to exceed).
\*****************************************************************************/

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "admit_int.h"

typedef struct {
	double work;	/* CPU-seconds left on the node */
	double weight;	/* cpus * share */
	double max_rate;	/* cpus */
	double deadline;
	double finish;
	bool done;
} ps_job_t;

/*
 * Project the node as weighted processor sharing: capacity cap is divided
 * in proportion to the weights, no job above its CPU count (water
 * filling), and a finished job's capacity goes to the others.
 */
static void _project_ps(ps_job_t *jobs, int n, double cap, double now)
{
	double *rate = calloc((size_t) n, sizeof(double));
	bool *sat = calloc((size_t) n, sizeof(bool));
	double t = now;
	int left = 0;

	for (int i = 0; i < n; i++)
		if (!jobs[i].done)
			left++;
	while (left > 0 && rate && sat) {
		double rates_cap = cap, dt = INFINITY;
		bool changed = true;

		memset(sat, 0, (size_t) n * sizeof(bool));
		while (changed) {
			double wsum = 0.0;

			changed = false;
			for (int i = 0; i < n; i++)
				if (!jobs[i].done && !sat[i])
					wsum += jobs[i].weight;
			for (int i = 0; i < n; i++) {
				if (jobs[i].done || sat[i])
					continue;
				rate[i] = wsum > 0.0 ? rates_cap *
					  jobs[i].weight / wsum : 0.0;
				if (rate[i] > jobs[i].max_rate) {
					rate[i] = jobs[i].max_rate;
					sat[i] = true;
					rates_cap -= rate[i];
					changed = true;
				}
			}
		}
		for (int i = 0; i < n; i++)
			if (!jobs[i].done && rate[i] > 0.0 &&
			    jobs[i].work / rate[i] < dt)
				dt = jobs[i].work / rate[i];
		if (!isfinite(dt))
			break;
		t += dt;
		for (int i = 0; i < n; i++) {
			if (jobs[i].done)
				continue;
			jobs[i].work -= rate[i] * dt;
			if (jobs[i].work <= 1e-9 * fmax(1.0, dt)) {
				jobs[i].done = true;
				jobs[i].finish = t;
				left--;
			}
		}
	}
	for (int i = 0; i < n; i++)
		if (!jobs[i].done)
			jobs[i].finish = INFINITY;	/* starved */
	free(rate);
	free(sat);
}

/* Risk test of node j with k CPUs of the new job (Fig. 5.1). */
static bool _risk_ok(const libra_ledger_t *l, const libra_params_t *p,
		     int node, const libra_sla_t *sla, double share, int k,
		     double now)
{
	const libra_entry_t *ent;
	int n = libra_ledger_node_entries(l, node, &ent), m = 0;
	double cap = p->capacity * libra_ledger_node_cpus(l, node);
	/* the reference CPU's share and work in the node's (decision 43) */
	double speed = libra_ledger_node_speed(l, node);
	double s = share / speed;
	double sum = libra_ledger_node_share(l, node) + k * s;
	double ddy_sum = 0.0, ddy_sq = 0.0, mu, sigma;
	ps_job_t *jobs;
	int counted = 0;

	if (sum <= cap + p->tolerance &&
	    (!p->risk_thesis || s <= 1.0 + p->tolerance))
		return true;	/* nobody delayed: every DDY is 1 */
	/*
	 * Overloaded.  Under processor sharing the job with the earliest
	 * deadline is then always late (its virtual time runs slower than
	 * real time until some job ends, and it ends first), so mean DDY > 1:
	 * with risk_mu = 1 there is nothing to project.  The thesis' test
	 * has no mean (decision 49): projected.
	 */
	if (!p->risk_thesis && p->risk_mu <= 1.0 + p->tolerance)
		return false;
	jobs = calloc((size_t) n + 1, sizeof(*jobs));
	if (!jobs)
		return false;
	for (int i = 0; i < n; i++) {
		if (ent[i].best_effort)
			continue;
		jobs[m].work = ent[i].cpus * libra_entry_work_at(&ent[i], now);
		jobs[m].weight = ent[i].cpus * ent[i].share;
		jobs[m].max_rate = ent[i].cpus;
		jobs[m].deadline = ent[i].deadline;
		m++;
	}
	jobs[m].work = k * (sla->runtime / speed);
	/* thesis: the share the ledger commits, at most 1 (decision 4) */
	jobs[m].weight = k * (p->risk_thesis ? fmin(s, 1.0) : s);
	jobs[m].max_rate = k;
	jobs[m].deadline = sla->deadline;
	m++;
	for (int i = 0; i < m; i++)
		if (jobs[i].work <= 0.0) {
			jobs[i].done = true;
			jobs[i].finish = now;
		}
	_project_ps(jobs, m, cap, now);
	for (int i = 0; i < m; i++) {
		double remain = jobs[i].deadline - now, dy, ddy;

		if (!(remain > 0.0))
			continue;	/* already late: no DDY defined */
		dy = jobs[i].finish > jobs[i].deadline ?
		     jobs[i].finish - jobs[i].deadline : 0.0;
		ddy = isfinite(dy) ? libra_ddy(dy, remain) : 1e12;
		ddy_sum += ddy;
		ddy_sq += ddy * ddy;
		counted++;
	}
	free(jobs);
	if (!counted)
		return true;
	mu = ddy_sum / counted;				/* Eq. 5.3 */
	sigma = sqrt(fmax(ddy_sq / counted - mu * mu, 0.0));	/* Eq. 5.4 */
	/* Fig. 5.1 line 8 tests sigma alone (decision 49) */
	return sigma <= p->risk_sigma + 1e-6 &&
	       (p->risk_thesis || mu <= p->risk_mu + 1e-6);
}

extern void admit_riskd(const libra_ledger_t *l, const libra_params_t *p,
			const libra_sla_t *sla, const libra_request_t *req,
			double now, cand_t *c, libra_quote_t *q)
{
	int n = 0, nodes = libra_ledger_node_count(l);
	int have = 0, tried = 0;

	for (int j = 0; j < nodes; j++) {
		int k = admit_takeable(l, req, j);

		if (k < 1)
			continue;
		if (!_risk_ok(l, p, j, sla, q->share, k, now)) {
			if (k == 1)
				continue;
			k = 1;
			if (!_risk_ok(l, p, j, sla, q->share, k, now))
				continue;
		}
		/* no best fit: node order */
		admit_cand_init(l, &c[n], j, k, (double) j);
		n++;
		have += k;
		/*
		 * The placement takes the candidates in node order, so once
		 * those found so far fill the request, the nodes after them
		 * cannot change it: their (projected, costly) risk tests are
		 * skipped.  Tried again only when the candidates have doubled,
		 * so the tries cost O(nodes) in all.
		 */
		if (have >= req->cpus && n >= 2 * tried) {
			tried = n;
			if (admit_fill(c, n, req, q, true) == req->cpus)
				break;
		}
	}
	admit_place_static(l, p, sla, req, now, c, n, true, LIBRA_REJECT_RISK,
			   q);
}
