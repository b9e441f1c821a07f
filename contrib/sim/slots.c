/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  slots.c - chapter 7's advance reservations (--slots; doc/design.md
 *  decision 48): the Yeo thesis' Aneka reservation service (section
 *  7.3.3), space-shared, one CPU per node.
 *
 *  Every request asks for its duration d (its runtime estimate RE) from
 *  its begin t, to end by its deadline TD, for a budget B:
 *
 *  - each node proposes the requested slot [t, t + d) if it is free, else
 *    the next free one after t that holds d (the Allocation Service);
 *  - sequential (--slots sequential): one node, the thesis' sequential
 *    application; of the nodes' slots that end by TD the cheapest, then
 *    the earliest (then the lowest node number);
 *  - parallel (--slots parallel): the request's CPUs, all at the same
 *    start and end; the earliest start at which enough nodes are free
 *    for d and that ends by TD, of those nodes the cheapest;
 *  - the price of a slot on node j: fixed and peak, the CPU's cost over
 *    the slot at the fixed or peak/off-peak rate (libra_time_cost());
 *    Libra+$ and Libra+$Auto, P_ij = alpha PBase + beta PUtil_ij with
 *    PUtil_ij = RESMax_j / RESFree_ij PBase over the request's deadline
 *    duration [t, TD] (section 7.2.4): RESMax_j = TD - t, RESFree_ij =
 *    RESMax_j - the time reserved on j inside it - d; times the mark-up;
 *    the request pays the sum over its nodes (section 7.5: "the total sum
 *    of revenue at each of its reserved node"), against its one budget;
 *  - admission: refused ("deadline") when no slot ends by TD, ("budget")
 *    when the chosen slots cost more than B; the user takes a proposed
 *    slot later than the requested one (section 7.4's assumption), or,
 *    with --slot-accept requested, refuses it ("slot");
 *  - payment in full when the reservation is confirmed, no refund; the job
 *    runs min(R, d) from the slot's start and is ended when the
 *    reservation expires, so a job longer than its reservation misses its
 *    deadline and still pays;
 *  - --slot-cancel F: a confirmed reservation is cancelled by its user
 *    with probability F (a stream of its own), before it starts: paid in
 *    full, not run, its slot given back at once (the thesis' Aneka allows
 *    no cancellation; section 7.6 leaves it to future work);
 *  - Libra+$Auto (Fig. 7.1): after each request that was accepted or
 *    refused for its budget, betaPrev is the mean beta of the nodes it
 *    took (all nodes when refused); each node j's beta becomes betaPrev
 *    x maxNodes / freeNodes (the budget was met) or betaPrev x
 *    reservedNodes / maxNodes (it was not), freeNodes the nodes free
 *    throughout the slot that node j proposes for the same request now,
 *    at least 1, reservedNodes = maxNodes - freeNodes, at least 1;
 *    bounded by --beta-min and --beta-max.
 *
 *  The commodity model: the charge is the price, earned whether or not
 *  the job meets its deadline (paid up front).
\*****************************************************************************/

#define _GNU_SOURCE

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "outcome.h"
#include "params.h"
#include "price.h"
#include "rng.h"
#include "sim.h"

/* --slot-cancel's stream (workload.c's streams are below 16) */
#define STREAM_SLOT_CANCEL 101

typedef struct {
	double s, e;
} span_t;

typedef struct {
	span_t *v;		/* disjoint, by start */
	size_t head, n, cap;	/* v[head .. n - 1] still matter */
} node_t;

typedef struct {
	const sim_config_t *cfg;
	libra_params_t p;
	sim_policy_t policy;
	int nn;
	node_t *node;
	double *beta;		/* Libra+$Auto: each node's */
	/* per request, scratch */
	double *slot, *cost;
	int *pick, *order;
	double *starts;
	size_t nstarts, capstarts;
} st_t;

/* Forget the spans that ended before now: no request looks back. */
static void _prune(node_t *nd, double now)
{
	while (nd->head < nd->n && nd->v[nd->head].e <= now)
		nd->head++;
}

/* The first span (index) that ends after t. */
static size_t _first_after(const node_t *nd, double t)
{
	size_t lo = nd->head, hi = nd->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nd->v[mid].e <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The Allocation Service: the earliest start >= t of d free seconds. */
static double _earliest(const node_t *nd, double t, double d)
{
	double s = t;

	for (size_t i = _first_after(nd, t); i < nd->n; i++) {
		if (nd->v[i].s >= s + d)
			break;
		s = fmax(s, nd->v[i].e);
	}
	return s;
}

static bool _free_over(const node_t *nd, double a, double b)
{
	size_t i = _first_after(nd, a);

	return i == nd->n || nd->v[i].s >= b;
}

/* Seconds reserved on the node inside [a, b). */
static double _reserved(const node_t *nd, double a, double b)
{
	double sum = 0.0;

	for (size_t i = _first_after(nd, a); i < nd->n && nd->v[i].s < b;
	     i++)
		sum += fmin(nd->v[i].e, b) - fmax(nd->v[i].s, a);
	return sum;
}

static void _reserve(node_t *nd, double s, double e)
{
	size_t i = _first_after(nd, s);

	if (nd->n == nd->cap) {
		nd->cap = nd->cap ? 2 * nd->cap : 16;
		nd->v = sim_xrealloc(nd->v, nd->cap * sizeof(*nd->v));
	}
	memmove(&nd->v[i + 1], &nd->v[i], (nd->n - i) * sizeof(*nd->v));
	nd->v[i] = (span_t) { s, e };
	nd->n++;
}

static bool _priced(const st_t *x)
{
	return x->policy == SIM_LIBRA_PRICE || x->policy == SIM_LIBRA_AUTO;
}

/* What node j's slot [s, s + d) costs request j of window [t, TD]. */
static double _cost(const st_t *x, const sim_job_t *job, int j, double s,
		    double d)
{
	double up = 1.0 + libra_params_markup(&x->p, job->tier);
	double t = job->begin, td = job->deadline, pb, rmax, rfree, beta;

	if (!_priced(x))
		return libra_time_cost(&x->p, s, s + d) * up;
	pb = libra_price_base_per_sec(&x->p);
	rmax = td - t;
	rfree = rmax - _reserved(&x->node[j], t, td) - d;
	beta = x->beta ? x->beta[j] : x->p.beta;
	return (x->p.alpha * pb + beta * libra_putil(rmax, rfree, pb)) * d *
	       up;
}

static int _by_cost(const void *a, const void *b, void *arg)
{
	const st_t *x = arg;
	int i = *(const int *) a, k = *(const int *) b;

	if (x->cost[i] != x->cost[k])
		return x->cost[i] < x->cost[k] ? -1 : 1;
	if (x->slot[i] != x->slot[k])
		return x->slot[i] < x->slot[k] ? -1 : 1;
	return i - k;
}

/* Sequential: one node, the cheapest slot, then the earliest.  Returns
 * the nodes taken (1), or 0 with *why. */
static int _sequential(st_t *x, const sim_job_t *job, double d,
		       const char **why)
{
	int m = 0;

	for (int j = 0; j < x->nn; j++) {
		x->slot[j] = _earliest(&x->node[j], job->begin, d);
		if (x->slot[j] + d > job->deadline)
			continue;
		if (x->cfg->slot_requested && x->slot[j] > job->begin)
			continue;
		x->cost[j] = _cost(x, job, j, x->slot[j], d);
		x->order[m++] = j;
	}
	if (!m) {
		*why = x->cfg->slot_requested ? "slot" : "deadline";
		return 0;
	}
	qsort_r(x->order, (size_t) m, sizeof(int), _by_cost, x);
	x->pick[0] = x->order[0];
	return 1;
}

static int _cmp_double(const void *a, const void *b)
{
	double u = *(const double *) a, v = *(const double *) b;

	return (u > v) - (u < v);
}

/* Parallel: c nodes at one start, the earliest, then the cheapest nodes
 * free then.  Returns c, or 0 with *why. */
static int _parallel(st_t *x, const sim_job_t *job, int c, double d,
		     const char **why)
{
	double t = job->begin;

	/* the starts worth trying: t and every span's end after it */
	x->nstarts = 0;
	for (int j = 0; j < x->nn; j++) {
		const node_t *nd = &x->node[j];

		for (size_t i = _first_after(nd, t); i <= nd->n; i++) {
			if (x->nstarts == x->capstarts) {
				x->capstarts = x->capstarts ?
					       2 * x->capstarts : 256;
				x->starts = sim_xrealloc(x->starts,
					x->capstarts * sizeof(double));
			}
			x->starts[x->nstarts++] = i < nd->n ? nd->v[i].e : t;
		}
	}
	qsort(x->starts, x->nstarts, sizeof(double), _cmp_double);
	for (size_t k = 0; k < x->nstarts; k++) {
		double s = x->starts[k];
		int m = 0;

		if (k && s == x->starts[k - 1])
			continue;
		if (s + d > job->deadline ||
		    (x->cfg->slot_requested && s > t))
			break;
		for (int j = 0; j < x->nn; j++)
			if (_free_over(&x->node[j], s, s + d)) {
				x->slot[j] = s;
				x->cost[j] = _cost(x, job, j, s, d);
				x->order[m++] = j;
			}
		if (m < c)
			continue;
		qsort_r(x->order, (size_t) m, sizeof(int), _by_cost, x);
		memcpy(x->pick, x->order, (size_t) c * sizeof(int));
		return c;
	}
	*why = x->cfg->slot_requested ? "slot" : "deadline";
	return 0;
}

/* Libra+$Auto's Fig. 7.1 after a request that met its budget or not. */
static void _auto_beta(st_t *x, const sim_job_t *job, double d, int taken,
		       bool met)
{
	double prev = 0.0;
	int n = x->nn;

	for (int k = 0; k < (taken ? taken : n); k++)
		prev += x->beta[taken ? x->pick[k] : k];
	prev /= taken ? taken : n;
	for (int j = 0; j < n; j++)
		x->slot[j] = _earliest(&x->node[j], job->begin, d);
	for (int j = 0; j < n; j++) {
		int free_nodes = 0, reserved;
		double b;

		for (int k = 0; k < n; k++)
			free_nodes += _free_over(&x->node[k], x->slot[j],
						 x->slot[j] + d);
		reserved = n - free_nodes;
		free_nodes = free_nodes ? free_nodes : 1;
		reserved = reserved ? reserved : 1;
		b = met ? prev * n / free_nodes : prev * reserved / n;
		x->beta[j] = fmin(fmax(b, x->p.beta_min), x->p.beta_max);
	}
}

static bool _cancelled(const sim_config_t *cfg, const sim_job_t *job)
{
	sim_rng_t r;

	if (!(cfg->slot_cancel > 0.0))
		return false;
	sim_rng_init(&r, cfg->seed, (uint64_t) job->id, STREAM_SLOT_CANCEL);
	return sim_rng_uniform(&r) < cfg->slot_cancel;
}

static void _decide(st_t *x, const sim_job_t *job, sim_outcome_t *o)
{
	double d = job->estimate, price = 0.0;
	int c = x->cfg->slots == SIM_SLOTS_PARALLEL ? job->procs : 1, got;
	const char *why = NULL;

	for (int j = 0; j < x->nn; j++)
		_prune(&x->node[j], job->begin);
	got = c > x->nn ? 0 : x->cfg->slots == SIM_SLOTS_PARALLEL ?
	      _parallel(x, job, c, d, &why) : _sequential(x, job, d, &why);
	if (c > x->nn)
		why = "resources";
	for (int k = 0; k < got; k++)
		price += x->cost[x->pick[k]];
	if (got && !(price <= job->budget + 1e-9 * fmax(1.0, job->budget))) {
		got = 0;
		why = "budget";
	}
	if (!got) {
		sim_reject(o, why);
		if (x->beta && !strcmp(why, "budget"))
			_auto_beta(x, job, d, 0, false);
		return;
	}
	memset(o, 0, sizeof(*o));
	o->accepted = true;
	o->verdict = "accepted";
	o->price = o->charge = price;
	o->start = x->slot[x->pick[0]];
	if (_cancelled(x->cfg, job)) {
		o->verdict = "cancelled";	/* paid, not run */
		o->end = o->start;
	} else {
		o->end = o->start + fmin(job->runtime, d);
		o->met = job->runtime <= d && o->end <= job->deadline;
		for (int k = 0; k < got; k++)
			_reserve(&x->node[x->pick[k]], o->start, o->start + d);
	}
	if (x->beta)
		_auto_beta(x, job, d, got, true);
}

extern int sim_run_slots(const sim_config_t *cfg, const sim_workload_t *w,
			 sim_policy_t policy, sim_outcome_t *out, char *err,
			 size_t errlen)
{
	size_t *ord = sim_jobs_by_begin(w);
	st_t x = { .cfg = cfg, .p = cfg->params, .policy = policy,
		   .nn = w->procs };

	switch (policy) {
	case SIM_FIXED:
		x.p.policy = LIBRA_POLICY_FIXED;
		break;
	case SIM_PEAK:
		x.p.policy = LIBRA_POLICY_PEAK;
		break;
	case SIM_LIBRA_PRICE:
		x.p.policy = LIBRA_POLICY_LIBRA_PRICE;
		break;
	case SIM_LIBRA_AUTO:
		x.p.policy = LIBRA_POLICY_AUTO;
		break;
	default:
		snprintf(err, errlen, "--slots: not for %s",
			 sim_policy_name(policy));
		free(ord);
		return -1;
	}
	x.node = sim_xcalloc((size_t) x.nn, sizeof(*x.node));
	x.slot = sim_xcalloc((size_t) x.nn, sizeof(double));
	x.cost = sim_xcalloc((size_t) x.nn, sizeof(double));
	x.pick = sim_xcalloc((size_t) x.nn, sizeof(int));
	x.order = sim_xcalloc((size_t) x.nn, sizeof(int));
	if (policy == SIM_LIBRA_AUTO) {
		x.beta = sim_xcalloc((size_t) x.nn, sizeof(double));
		for (int j = 0; j < x.nn; j++)
			x.beta[j] = x.p.beta;
	}
	for (size_t i = 0; i < w->n; i++)
		_decide(&x, &w->jobs[ord[i]], &out[ord[i]]);
	for (int j = 0; j < x.nn; j++)
		free(x.node[j].v);
	free(x.node);
	free(x.slot);
	free(x.cost);
	free(x.pick);
	free(x.order);
	free(x.beta);
	free(x.starts);
	free(ord);
	return 0;
}
