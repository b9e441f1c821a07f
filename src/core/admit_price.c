/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit_price.c - admission of the priced policies (see admit.h): Libra,
 *  fixed and peak (the share test, best fit, a static price), Libra+$ and
 *  Libra+$Auto (thesis Fig. 3.2: RESFree best fit, each node's rate P_ij,
 *  every CPU within its part of the budget), what a placement's memory,
 *  GPUs and scratch disk cost, and Libra+$Auto's feedback to the nodes'
 *  betas.  The steps common to every policy are in admit.c.
\*****************************************************************************/

#include <math.h>
#include <stdlib.h>

#include "admit.h"
#include "admit_int.h"
#include "price.h"

/* ------------------------------------------------- Libra, fixed, peak */

extern void admit_libra(const libra_ledger_t *l, const libra_params_t *p,
			const libra_sla_t *sla, const libra_request_t *req,
			double now, cand_t *c, libra_quote_t *q)
{
	int n = 0, nodes = libra_ledger_node_count(l);
	/* a booking's load walks the entries (_load, admit.c), else it
	 * is a sum */
	bool walks = req->booked > 0.0 && req->booked < now;

	for (int j = 0; j < nodes; j++) {
		double free_share;
		int room;

		if (walks && j + 4 < nodes)
			libra_ledger_prefetch_node(l, j + 4);
		room = admit_room(l, p, req, j, q->share, now, sla->deadline,
				  &free_share);
		if (room < 1)
			continue;
		/* best fit: least free share first */
		admit_cand_init(l, &c[n], j, room, free_share);
		n++;
	}
	admit_place_static(l, p, sla, req, now, c, n, false,
			   LIBRA_REJECT_DEADLINE, q);
}

/* ------------------------------------------------ Libra+$, Libra+$Auto */

static double _node_beta(const libra_ledger_t *l, const libra_params_t *p,
			 int node)
{
	double beta;

	if (p->policy != LIBRA_POLICY_AUTO)
		return p->beta;
	beta = libra_ledger_node_beta(l, node);
	return isnan(beta) ? p->beta : beta;
}

/*
 * Price the placement in q: its charge and its highest rate.  Per CPU
 * (decision 3): C = sum over the placed CPUs of RE * P_ij.  Thesis: every
 * CPU at the dearest one's rate, C = c * RE * max_j P_ij (Fig. 3.2 lines
 * 22-23 in the one currency of decision 3: for one CPU it is RE * max P).
 */
static void _price_placement(const libra_ledger_t *l, const libra_params_t *p,
			     const libra_sla_t *sla, const libra_request_t *req,
			     double now, libra_quote_t *q)
{
	double sum = 0.0, max = 0.0;

	for (int i = 0; i < q->nplace; i++) {
		int node = q->place[i].node, k = q->place[i].cpus;
		/* RESFree in the node's seconds (decision 43) */
		double rate = libra_rate(l, p, _node_beta(l, p, node), node, k,
					 sla->runtime /
					 libra_ledger_node_speed(l, node),
					 now, sla->deadline);

		sum += k * sla->runtime * rate;
		if (rate > max)
			max = rate;
	}
	q->rate_max = max;
	if (p->charge == LIBRA_CHARGE_THESIS)
		q->price = req->cpus * sla->runtime * max;
	else
		q->price = sum;
	admit_price_held(l, p, sla, now, true, q);
	q->price += q->price_mem + q->price_gpus + q->price_disk;
}

/* Is any of memory, GPUs and scratch disk priced? */
static bool _held_priced(const libra_params_t *p)
{
	return libra_price_mem_per_sec(p) != 0.0 ||
	       libra_price_gpu_per_sec(p) != 0.0 ||
	       libra_price_disk_per_sec(p) != 0.0;
}

/*
 * What the placement's memory, GPUs and scratch disk cost over [now, TD]
 * (decision 17, price.h): at each node's Libra+$ rates ("market"), else
 * at the base prices.  Nothing unless libra_price_mem, libra_price_gpu or
 * libra_price_disk is set.
 */
extern void admit_price_held(const libra_ledger_t *l, const libra_params_t *p,
			     const libra_sla_t *sla, double now, bool market,
			     libra_quote_t *q)
{
	double window = sla->deadline - now;

	q->price_mem = 0.0;
	q->price_gpus = 0.0;
	q->price_disk = 0.0;
	if (!_held_priced(p))
		return;
	for (int i = 0; i < q->nplace; i++) {
		const libra_place_t *pl = &q->place[i];
		double mem_rate = libra_price_mem_per_sec(p);
		double gpu_rate = libra_price_gpu_per_sec(p);
		double tmp_rate = libra_price_disk_per_sec(p);

		if (!pl->mem_mb && !pl->gpus && !pl->tmp_mb)
			continue;
		if (market)
			libra_held_rates(l, p, _node_beta(l, p, pl->node),
					 pl->node, now, sla->deadline,
					 &mem_rate, &gpu_rate, &tmp_rate);
		if (pl->mem_mb)
			q->price_mem += (double) pl->mem_mb * window * mem_rate;
		if (pl->gpus)
			q->price_gpus += pl->gpus * window * gpu_rate;
		if (pl->tmp_mb)
			q->price_disk += (double) pl->tmp_mb * window *
					 tmp_rate;
	}
}

/*
 * Is every CPU of the placement within its part of the budget,
 * RE * P_ij <= B / c?  That is the thesis' test of a node (Fig. 3.2 line
 * 20, RE * P_ij <= B) with the budget of one CPU; for a 1-CPU job it is
 * the budget test itself.  Under the thesis charge it is the budget test.
 * Memory, GPUs and scratch disk add what they cost (decision 17): the
 * budget pays for the summed price, so c * RE * max P_ij + memory + GPUs
 * + disk <= B.
 */
static double _cpu_budget_needed(const libra_sla_t *sla,
				 const libra_request_t *req,
				 const libra_quote_t *q)
{
	return req->cpus * sla->runtime * q->rate_max + q->price_mem +
	       q->price_gpus + q->price_disk;
}

static bool _within_cpu_budget(const libra_params_t *p,
			       const libra_sla_t *sla,
			       const libra_request_t *req,
			       const libra_quote_t *q)
{
	return !admit_over_budget(p, sla, _cpu_budget_needed(sla, req, q));
}

/*
 * The memory, GPUs and scratch disk a job holds in all at the least (its
 * fewest nodes: --ntasks-per-node's count, else min_nodes), node's memory
 * for --mem=0.
 */
static void _job_held(const libra_ledger_t *l, const libra_request_t *req,
		      int node, double *mem_mb, double *gpus, double *tmp_mb)
{
	const libra_demand_t *d = &req->demand;
	int nodes = req->cpus_per_node > 0 ? req->cpus / req->cpus_per_node :
					     admit_min_nodes(req);

	if (!libra_ledger_node_mem(l, node))
		*mem_mb = 0.0;	/* not tracked there: not priced */
	else if (d->mem_whole_node)
		*mem_mb = (double) libra_ledger_node_mem(l, node) * nodes;
	else if (d->mem_per_node)
		*mem_mb = (double) d->mem_per_node * nodes;
	else
		*mem_mb = (double) d->mem_per_cpu * req->cpus;
	*gpus = d->gpus ? d->gpus : (double) d->gpus_per_node * nodes;
	/* not tracked there: not priced */
	*tmp_mb = libra_ledger_node_tmp(l, node) ?
		  (double) d->tmp_mb * nodes : 0.0;
}

/*
 * Libra+$: the job's memory, GPUs and scratch disk as if all were at the
 * node's rates (its part of the budget test of a node, like c * RE * P_ij
 * for CPUs).
 */
static double _held_at(const libra_ledger_t *l, const libra_params_t *p,
		       const libra_sla_t *sla, const libra_request_t *req,
		       double now, int node)
{
	double mem_rate, gpu_rate, tmp_rate, mem, gpus, tmp, held = 0.0;

	if (!admit_asks_held(req) || !_held_priced(p))
		return 0.0;
	libra_held_rates(l, p, _node_beta(l, p, node), node, now,
			 sla->deadline, &mem_rate, &gpu_rate, &tmp_rate);
	_job_held(l, req, node, &mem, &gpus, &tmp);
	if (mem > 0.0)
		held += mem * mem_rate;
	if (gpus > 0.0)
		held += gpus * gpu_rate;
	if (tmp > 0.0)
		held += tmp * tmp_rate;
	return held * (sla->deadline - now);
}

/*
 * Fig. 3.2 lines 9-17: the nodes that can finish the job by TD, each with
 * how many of its CPUs it can take, its RESFree (the best-fit key) and its
 * rate P_ij for one CPU.  Returns their number.
 */
static int _market_candidates(const libra_ledger_t *l, const libra_params_t *p,
			      const libra_sla_t *sla,
			      const libra_request_t *req, double now,
			      double share, cand_t *c)
{
	int n = 0, nodes = libra_ledger_node_count(l);
	double base = libra_price_base_window(p, now, sla->deadline);
	/* the window RESFree and a booking's load walk the entries */
	bool walks = p->resfree != LIBRA_RESFREE_THESIS ||
		     (req->booked > 0.0 && req->booked < now);

	for (int j = 0; j < nodes; j++) {
		int room = admit_room(l, p, req, j, share, now, sla->deadline,
				      NULL);
		double res_free, res_max, putil, work, base_j;

		if (walks && j + 4 < nodes)
			libra_ledger_prefetch_node(l, j + 4);
		if (room < 1)
			continue;
		/* libra_res_free() for one CPU, with RESMax kept for P_ij;
		 * the job's work in the node's seconds (decision 43) */
		work = sla->runtime / libra_ledger_node_speed(l, j);
		base_j = base * libra_ledger_node_price_factor(l, j);
		res_max = libra_res_max(l, j, now, sla->deadline);
		res_free = res_max - (p->resfree == LIBRA_RESFREE_THESIS ?
				      libra_ledger_node_thesis_work(l, j) :
				      libra_ledger_node_window_work(
					      l, j, now, sla->deadline)) -
			   work;
		if (!(res_free > 0.0))
			continue;
		/* line 17: RESFree ascending */
		admit_cand_init(l, &c[n], j, room, res_free);
		/* P_ij from this RESFree (libra_rate would walk the node's
		 * entries again for the same number) */
		putil = libra_putil(res_max, !(p->price_damping > 0.0) ?
				    res_free : libra_res_free_priced(
					    l, p, j, now, res_max, res_free,
					    work), base_j);
		c[n].rate = isfinite(putil) ? p->alpha * base_j +
			    _node_beta(l, p, j) * putil : INFINITY;
		c[n].held = _held_at(l, p, sla, req, now, j);
		n++;
	}
	return n;
}

/*
 * Libra+$ (Fig. 3.2), the same steps under both charges (decision 3):
 *  1. best fit over every candidate, taken if every CPU is within its part
 *     of the budget (RE * P_ij <= B / c);
 *  2. lines 18-29: drop the nodes whose CPU costs more than B / c, best
 *     fit among the rest;
 *  3. the cheapest nodes, taken on the same test.  Step 2 finds them
 *     affordable too, so this admits only where the node limits of the
 *     request kept step 2 from using them.
 * A refused job's least price is the least budget that passes the test,
 * c * RE * max P_ij over the better of steps 1 and 3; under the per-CPU
 * charge the job then pays the sum of its CPUs' own prices, which can be
 * less.
 *
 * Why not the whole budget B against the sum of the CPUs' prices?  Only
 * the cheapest (emptiest) nodes can make a sum fit that no best fit fits,
 * so such a job spreads the load by worst fit and later jobs find no
 * lightly loaded CPU.  Measured on KTH-SP2 and CTC-SP2 (doc/results.md,
 * "One economy", 72 cells, seeds 1-3): accepting the sum at the cheapest
 * nodes lost up to 12.1 points of QoS, and a best fit under the whole
 * budget up to 12.8; with the per-CPU test both charges admit the same
 * jobs.
 */
extern void admit_market(const libra_ledger_t *l, const libra_params_t *p,
			 const libra_sla_t *sla, const libra_request_t *req,
			 double now, cand_t *c, libra_quote_t *q)
{
	int n, m = 0;
	double least;
	cand_t *h;

	n = _market_candidates(l, p, sla, req, now, q->share, c);
	/* admit_fill leaves c as built */
	if (admit_fill(c, n, req, q, false) < req->cpus) {
		q->verdict = LIBRA_REJECT_DEADLINE;
		q->nplace = 0;
		return;
	}
	_price_placement(l, p, sla, req, now, q);
	if (!libra_sla_has_budget(sla) || _within_cpu_budget(p, sla, req, q)) {
		q->verdict = LIBRA_ACCEPT;
		return;
	}
	least = _cpu_budget_needed(sla, req, q);
	h = malloc((size_t) (n ? n : 1) * sizeof(*h));
	if (!h) {
		q->verdict = LIBRA_REJECT_RESOURCES;
		q->nplace = 0;
		return;
	}

	/* 2. lines 18-29 with the budget of one CPU */
	for (int i = 0; i < n; i++)
		if (!admit_over_budget(p, sla,
				       req->cpus * sla->runtime * c[i].rate +
				       c[i].held))
			h[m++] = c[i];
	if (admit_fill(h, m, req, q, false) == req->cpus) {
		_price_placement(l, p, sla, req, now, q);
		if (_within_cpu_budget(p, sla, req, q)) {
			q->verdict = LIBRA_ACCEPT;
			free(h);
			return;
		}
	}
	free(h);

	/* 3. the cheapest nodes: the least budget that could pass by TD */
	for (int i = 0; i < n; i++)
		c[i].key = c[i].rate + c[i].held / (req->cpus * sla->runtime);
	admit_fill(c, n, req, q, false);
	_price_placement(l, p, sla, req, now, q);
	if (_within_cpu_budget(p, sla, req, q)) {
		q->verdict = LIBRA_ACCEPT;
		return;
	}
	q->verdict = LIBRA_REJECT_BUDGET;
	q->least_price = fmin(least, _cpu_budget_needed(sla, req, q));
	q->nplace = 0;
}

/* ----------------------------------------------------- Libra+$Auto */

extern void libra_auto_feedback(libra_ledger_t *l, const libra_params_t *p,
				const libra_quote_t *q, double now)
{
	int nodes = libra_ledger_node_count(l), counted = 0;
	double beta_prev = 0.0, floor_frac;
	bool met;

	if (p->policy != LIBRA_POLICY_AUTO || !nodes)
		return;
	if (q->verdict == LIBRA_ACCEPT)
		met = true;
	else if (q->verdict == LIBRA_REJECT_BUDGET)
		met = false;
	else
		return;		/* refused for other reasons: no price signal */

	/* betaPrev: average beta of the nodes the request went to */
	if (q->nplace) {
		for (int i = 0; i < q->nplace; i++)
			beta_prev += _node_beta(l, p, q->place[i].node);
		beta_prev /= q->nplace;
	} else {
		for (int j = 0; j < nodes; j++) {
			if (!libra_ledger_node_up(l, j))
				continue;
			beta_prev += _node_beta(l, p, j);
			counted++;
		}
		beta_prev = counted ? beta_prev / counted : p->beta;
	}
	/* one node's worth of a cluster: "at least one node free" */
	floor_frac = 1.0 / nodes;
	for (int j = 0; j < nodes; j++) {
		int cpus = libra_ledger_node_cpus(l, j);
		double free_frac = (p->capacity * cpus -
				    libra_ledger_node_share(l, j)) / cpus;
		double used_frac = 1.0 - free_frac, beta;

		free_frac = fmax(free_frac, floor_frac);
		used_frac = fmax(used_frac, floor_frac);
		if (met)
			beta = beta_prev / free_frac;	/* ratioFree */
		else
			beta = beta_prev * used_frac;	/* ratioReserved */
		beta = fmin(fmax(beta, p->beta_min), p->beta_max);
		libra_ledger_set_node_beta(l, j, beta);
	}
	(void) now;
}

/* ------------------------------------------- a node's reference price */

extern double libra_reference_price(const libra_ledger_t *l,
				    const libra_params_t *p, int node,
				    double now, libra_quote_t *q)
{
	libra_sla_t sla = { 0 };
	libra_request_t req = { .cpus = 1 };

	sla.runtime = LIBRA_REFERENCE_RUNTIME;
	sla.submit = now;
	sla.deadline = now + LIBRA_REFERENCE_PERIOD;
	q->nplace = 1;
	q->place[0].node = node;
	q->place[0].cpus = 1;
	q->share = sla.runtime / (sla.deadline - now);
	q->price_mem = q->price_gpus = q->price_disk = 0.0;
	if (p->policy == LIBRA_POLICY_LIBRA_PRICE ||
	    p->policy == LIBRA_POLICY_AUTO) {
		/* what admit_market() charges it there: +inf where the
		 * node's free CPU time in the window is used up */
		_price_placement(l, p, &sla, &req, now, q);
		if (!isfinite(q->price))
			q->price = NAN;
	} else {
		admit_static_price(l, p, &sla, &req, now, q);
	}
	return q->price;
}
