/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit.c - admission control and placement (see admit.h).
 *
 *  Every policy follows the same steps: validate the request, check that
 *  the cluster could hold it at all (resources), build the list of
 *  candidate nodes with how many of the job's CPUs each can take and a sort
 *  key, sort, take CPUs in order (_fill), then price.  The policies differ
 *  in the candidate test, the sort key and the price.  Memory and GPUs
 *  (decision 17) enter in two places common to all: the CPUs a node may
 *  give before any policy test (_held_room, inside _takeable and _room),
 *  and _fill, which records what each place holds and spreads a job's
 *  GPUs; the price adds what they cost (_price_held).  A refusal for
 *  capacity is then explained (_refusal_cause): slots, memory or GPUs
 *  when the share alone would have fitted.
 *
 *  Cost: one pass over the nodes, each O(1) for the share test and O(jobs
 *  on the node) for the window work of Libra+$ and the projections of
 *  LibraSLA and LibraRiskD, plus one sort.
\*****************************************************************************/

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admit.h"
#include "price.h"
#include "settle.h"
#include "share.h"
#include "vec.h"

typedef struct {
	int node;
	int room;	/* most CPUs of the job the node can take */
	double key;	/* sort key, ascending */
	double rate;	/* per-CPU-second rate for one CPU (priced policies) */
	double held;	/* Libra+$: the job's memory and GPUs at this node's
			 * rates, 0 when not priced */
	uint64_t mem_free;	/* the node's free memory [MB], or
				 * LIBRA_MEM_UNTRACKED */
	int gpus_free;	/* the node's free GPUs */
} cand_t;

extern const char *libra_verdict_name(libra_verdict_t v)
{
	switch (v) {
	case LIBRA_ACCEPT:		return "accepted";
	case LIBRA_REJECT_RESOURCES:	return "resources";
	case LIBRA_REJECT_DEADLINE:	return "deadline";
	case LIBRA_REJECT_BUDGET:	return "budget";
	case LIBRA_REJECT_RETURN:	return "return";
	case LIBRA_REJECT_RISK:		return "risk";
	case LIBRA_REJECT_INVALID:	return "invalid";
	case LIBRA_REJECT_SLOTS:	return "slots";
	case LIBRA_REJECT_MEMORY:	return "memory";
	case LIBRA_REJECT_GPUS:		return "gpus";
	case LIBRA_REJECT_DUEDATE:	return "duedate";
	}
	return "unknown";
}

extern const char *libra_verdict_reason(libra_verdict_t v)
{
	switch (v) {
	case LIBRA_ACCEPT:
		return "admitted";
	case LIBRA_REJECT_RESOURCES:
		return "the partition does not have the CPUs, nodes, memory or GPUs requested";
	case LIBRA_REJECT_DEADLINE:
		return "not enough free CPU share to meet the deadline";
	case LIBRA_REJECT_BUDGET:
		return "the price exceeds the budget";
	case LIBRA_REJECT_RETURN:
		return "admitting the job would delay jobs already admitted";
	case LIBRA_REJECT_RISK:
		return "admitting the job would risk delaying admitted jobs";
	case LIBRA_REJECT_INVALID:
		return "the request is invalid";
	case LIBRA_REJECT_SLOTS:
		return "the nodes already run as many jobs as the partition lets share a CPU (OverSubscribe)";
	case LIBRA_REJECT_MEMORY:
		return "not enough free memory on the nodes where the CPU share fits";
	case LIBRA_REJECT_GPUS:
		return "not enough free GPUs on the nodes where the CPU share fits";
	case LIBRA_REJECT_DUEDATE:
		return "the deadline can be met, but not the due date, nor soon enough after it for the reduced price to cover the cost";
	}
	return "unknown";
}

extern double libra_ddy(double delay, double remaining)
{
	/* Eq. 5.2; 1 is no delay */
	if (!(remaining > 0.0))
		return 1.0;
	if (delay < 0.0)
		delay = 0.0;
	return (delay + remaining) / remaining;
}

static int _min_nodes(const libra_request_t *req)
{
	return req->min_nodes > 1 ? req->min_nodes : 1;
}

static int _max_nodes(const libra_request_t *req)
{
	int max = req->max_nodes > 0 ? req->max_nodes : LIBRA_QUOTE_MAX_PLACES;

	return max < LIBRA_QUOTE_MAX_PLACES ? max : LIBRA_QUOTE_MAX_PLACES;
}

/*
 * The candidates' order: key ascending, then node index (a total order).
 * A binary min-heap under it (Floyd's construction is O(n),
 * each pop O(log n)), of small references to the candidates: the key and
 * node that order them and where the candidate is.  Moving 16 bytes instead
 * of a whole cand_t.
 */
typedef struct {
	double key;
	int node;
	int idx;	/* index into the candidate array */
} cref_t;

/* (key x, node x) before (key y, node y)? */
static inline bool _key_less(double kx, int nx, double ky, int ny)
{
	if (kx < ky)
		return true;
	if (kx > ky)
		return false;
	return nx < ny;
}

static inline bool _ref_less(const cref_t *x, const cref_t *y)
{
	return _key_less(x->key, x->node, y->key, y->node);
}

static void _sift(cref_t *h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		cref_t t;

		if (l < n && _ref_less(&h[l], &h[m]))
			m = l;
		if (r < n && _ref_less(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static bool _asks_mem(const libra_request_t *req)
{
	return req->demand.mem_per_cpu || req->demand.mem_per_node ||
	       req->demand.mem_whole_node;
}

static bool _asks_gpus(const libra_request_t *req)
{
	return req->demand.gpus_per_node > 0 || req->demand.gpus > 0;
}

static bool _asks_held(const libra_request_t *req)
{
	return _asks_mem(req) || _asks_gpus(req);
}

/* The memory a place of "cpus" CPUs holds on candidate c's node (none
 * where the node's memory is not tracked). */
static uint64_t _place_mem(const libra_request_t *req, const cand_t *c,
			   int cpus)
{
	const libra_demand_t *d = &req->demand;

	if (c->mem_free == LIBRA_MEM_UNTRACKED)
		return 0;
	if (d->mem_whole_node)
		return c->mem_free;	/* the whole node: nothing else held */
	if (d->mem_per_node)
		return d->mem_per_node;
	return d->mem_per_cpu * (uint64_t) cpus;
}

/*
 * Take CPUs from the candidates in their order (_ref_less) into q->place.  Spreads
 * over at least min_nodes nodes; with a node limit, skips nodes too small
 * to let the remaining nodes hold the rest.  Returns the CPUs placed.
 * Each place holds the job's memory there and its GPUs: per node, or of
 * GPUs spread over the job (demand.gpus) as many as the node has free and
 * are still to place; a node short of the rest leaves at least a task to
 * another node (or is skipped, like a node too small, when it cannot);
 * GPUs left over fail the placement.
 *
 * "sorted": c is in order already.  Otherwise the least candidates are
 * taken, the first few (_FILL_SCANS) found by one scan, then from a heap
 * of references to the rest, until the request is filled, instead of c
 * being sorted whole: a 1-64 CPU request takes one or two nodes of
 * thousands (a NaN key, which orders nothing, sends them all to the heap
 * at once, as before).
 * The order is total (key, then node index), so the nodes come out
 * exactly as a sort would put them and the placement is the same.  Leaves
 * c as it is.  Out of memory: nothing placed.
 */
/* Candidates found by one scan for the least before _fill makes a heap of
 * the rest: most requests take one or two nodes, and a scan of the
 * candidates costs less than making a heap of them. */
#define _FILL_SCANS 3

static inline bool _cand_less(const cand_t *x, const cand_t *y)
{
	return _key_less(x->key, x->node, y->key, y->node);
}

static int _fill(cand_t *c, int n, const libra_request_t *req,
		 libra_quote_t *q, bool sorted)
{
	int need = req->cpus, min_nodes = _min_nodes(req);
	int max_nodes = _max_nodes(req);
	int unit = req->cpus_per_task > 1 ? req->cpus_per_task : 1;
	int next = 0, left = n, gpus_left = req->demand.gpus;
	int first[_FILL_SCANS], nfirst = 0, taken = 0, hleft = 0;
	cref_t *h = NULL;
	bool heap = false;

	q->nplace = 0;
	for (int i = 0; !sorted && i < n; i++) {
		int pos;

		if (isnan(c[i].key)) {
			nfirst = 0;	/* no order: the heap of all at once */
			break;
		}
		/* the _FILL_SCANS least, in order */
		if (nfirst == _FILL_SCANS &&
		    !_cand_less(&c[i], &c[first[nfirst - 1]]))
			continue;
		pos = nfirst < _FILL_SCANS ? nfirst++ : _FILL_SCANS - 1;
		for (; pos > 0 && _cand_less(&c[i], &c[first[pos - 1]]); pos--)
			first[pos] = first[pos - 1];
		first[pos] = i;
	}
	while (left > 0 && need > 0 && q->nplace < max_nodes) {
		int nodes_left = max_nodes - q->nplace;
		int still = min_nodes - q->nplace - 1;	/* after this one */
		cand_t top;
		int take, gpus;

		if (sorted) {
			top = c[next++];
			left--;
		} else if (taken < nfirst) {
			top = c[first[taken++]];
			left--;
		} else {
			if (!heap) {
				/* the rest: a heap of references */
				h = malloc((size_t) (n ? n : 1) * sizeof(*h));
				if (!h) {
					q->nplace = 0;
					return 0;
				}
				for (int i = 0; i < n; i++) {
					bool out = false;

					for (int k = 0; k < nfirst; k++)
						out |= first[k] == i;
					if (out)
						continue;
					h[hleft].key = c[i].key;
					h[hleft].node = c[i].node;
					h[hleft].idx = i;
					hleft++;
				}
				for (int i = hleft / 2 - 1; i >= 0; i--)
					_sift(h, hleft, i);
				heap = true;
			}
			top = c[h[0].idx];
			h[0] = h[--hleft];
			_sift(h, hleft, 0);
			left--;
		}
		take = top.room - top.room % unit;
		if (req->cpus_per_node > 0) {
			if (take < req->cpus_per_node)
				continue;
			take = req->cpus_per_node;
		}
		if (take < 1)
			continue;
		if (take < (need + nodes_left - 1) / nodes_left)
			continue;	/* too small for the node limit */
		if (still > 0 && take > need - still * unit)
			take = need - still * unit;
		if (take > need)
			take = need;
		take -= take % unit;
		if (take < 1)
			continue;
		gpus = req->demand.gpus_per_node;
		if (gpus_left > 0) {
			gpus = top.gpus_free < gpus_left ? top.gpus_free :
							   gpus_left;
			/* short of the job's GPUs: leave another node a task */
			if (gpus < gpus_left && take > need - unit) {
				if (q->nplace + 1 == max_nodes ||
				    req->cpus_per_node > 0)
					continue;
				take = need - unit;
				if (take < unit)
					continue;
			}
		}
		q->place[q->nplace].node = top.node;
		q->place[q->nplace].cpus = take;
		q->place[q->nplace].mem_mb = _place_mem(req, &top, take);
		q->place[q->nplace].gpus = gpus;
		q->nplace++;
		need -= take;
		gpus_left -= gpus;
	}
	free(h);
	if (q->nplace < min_nodes || gpus_left > 0)
		need = need > 0 ? need : 1;
	return req->cpus - need;
}

/* Job slots left on a node (OverSubscribe=FORCE:N); INT_MAX: no limit. */
static int _slots_free(const libra_ledger_t *l, const libra_request_t *req,
		       int node)
{
	int total;

	if (req->slots_per_cpu <= 0)
		return INT_MAX;
	total = req->slots_per_cpu * libra_ledger_node_cpus(l, node) -
		libra_ledger_node_job_cpus(l, node);
	return total > 0 ? total : 0;
}

/* Is the node up and one the job may use (partition, -w, -x)? */
static bool _eligible(const libra_ledger_t *l, const libra_request_t *req,
		      int node)
{
	return libra_ledger_node_up(l, node) &&
	       (!req->eligible || req->eligible[node]);
}

/*
 * The most CPUs of the job the node's memory and GPUs let it take (decision
 * 17): none where its GPUs per node, a GPU of GPUs spread over the job, its
 * memory per node or the whole node's memory (--mem=0: nothing else held)
 * are not free; with memory per CPU, as many CPUs as the free memory
 * holds; INT_MAX when nothing limits.  "idle": of the node's whole memory
 * and GPUs, for the resources test.  A node whose memory is not tracked
 * has no memory limit.
 */
static int _held_room(const libra_ledger_t *l, const libra_request_t *req,
		      int node, bool idle)
{
	const libra_demand_t *d = &req->demand;
	uint64_t total, mem;
	int gpus;

	if (!_asks_held(req))
		return INT_MAX;
	total = libra_ledger_node_mem(l, node);
	gpus = idle ? libra_ledger_node_gpus(l, node) :
		      libra_ledger_node_gpus_free(l, node);
	if (gpus < d->gpus_per_node || (d->gpus > 0 && gpus < 1))
		return 0;
	if (!total)
		return INT_MAX;
	mem = idle ? total : libra_ledger_node_mem_free(l, node);
	if ((d->mem_whole_node && mem < total) || d->mem_per_node > mem)
		return 0;
	if (d->mem_per_cpu && mem / d->mem_per_cpu < (uint64_t) INT_MAX)
		return (int) (mem / d->mem_per_cpu);
	return INT_MAX;
}

extern bool libra_admit_held_fits(const libra_ledger_t *l,
				  const libra_demand_t *d, int node, int cpus)
{
	libra_request_t req = { .demand = *d };

	if (node < 0 || node >= libra_ledger_node_count(l))
		return false;
	return _held_room(l, &req, node, false) >= (cpus > 1 ? cpus : 1);
}

/*
 * CPUs of the node a job may take before any policy test: none if it is not
 * eligible, else its CPUs up to the request's, within the free job slots
 * and what its free memory and GPUs allow.
 */
static int _takeable(const libra_ledger_t *l, const libra_request_t *req,
		     int node)
{
	int k = libra_ledger_node_cpus(l, node);

	if (!_eligible(l, req, node))
		return 0;
	if (k > req->cpus)
		k = req->cpus;
	if (k > _slots_free(l, req, node))
		k = _slots_free(l, req, node);
	if (k > _held_room(l, req, node, false))
		k = _held_room(l, req, node, false);
	return k;
}

/* A candidate: node, room, sort key, and its free memory and GPUs. */
static void _cand_init(const libra_ledger_t *l, cand_t *c, int node,
		       int room, double key)
{
	c->node = node;
	c->room = room;
	c->key = key;
	c->rate = 0.0;
	c->held = 0.0;
	c->mem_free = libra_ledger_node_mem_free(l, node);
	c->gpus_free = libra_ledger_node_gpus_free(l, node);
}

/*
 * The node's load for a job that runs on [now, until] (admit.h): the most
 * share committed at any time in that window, seen at the real now (an
 * advance reservation is quoted at its begin).
 */
static double _load(const libra_ledger_t *l, const libra_request_t *req,
		    int node, double now, double until)
{
	double real = req->booked > 0.0 && req->booked < now ? req->booked :
			now;

	return libra_ledger_node_peak_share(l, node, real, now, until);
}

/* Most CPUs of share s the node can still take under the share test, for
 * a job running on [now, until]; its free share in *free_out (when not
 * NULL). */
static int _room(const libra_ledger_t *l, const libra_params_t *p,
		 const libra_request_t *req, int node, double s, double now,
		 double until, double *free_out)
{
	int cpus = libra_ledger_node_cpus(l, node), held;
	double free_share = p->capacity * cpus -
			    _load(l, req, node, now, until);
	double k;

	if (free_out)
		*free_out = free_share;

	if (!(s > 0.0))
		return 0;
	k = floor((free_share + p->tolerance) / s);
	/* no room by share (most nodes of a loaded cluster) before the
	 * eligibility test: either refuses the node */
	if (!(k > 0.0) || !_eligible(l, req, node))
		return 0;
	if (k > cpus)
		k = cpus;
	held = _slots_free(l, req, node);
	if (k > held)
		k = held;
	held = _held_room(l, req, node, false);
	if (k > held)
		k = held;
	return (int) k;
}

static int _cmp_int_desc(const void *a, const void *b)
{
	return *(const int *) b - *(const int *) a;
}

/* Could the request fit at all, on an idle cluster? */
static int _res_take(const libra_ledger_t *l, const libra_request_t *req,
		     int node)
{
	int unit = req->cpus_per_task > 1 ? req->cpus_per_task : 1;
	int cpus = libra_ledger_node_cpus(l, node);
	int k;

	if (cpus > _held_room(l, req, node, true))
		cpus = _held_room(l, req, node, true);
	k = cpus < req->cpus ? cpus : req->cpus;

	k -= k % unit;		/* whole tasks only */
	if (req->cpus_per_node > 0)
		k = cpus >= req->cpus_per_node ? req->cpus_per_node : 0;
	return k;
}

/*
 * Any max_nodes nodes that can hold the request prove that the largest
 * max_nodes can: sum in node order and stop as soon as the request fits
 * (no allocation, no sort; one or two nodes for most requests).  Only
 * when more nodes are eligible than the limit allows and the first ones
 * fall short are the largest ones sorted out.
 */
static bool _resources_ok(const libra_ledger_t *l,
			  const libra_request_t *req)
{
	int n = libra_ledger_node_count(l), up = 0;
	int max_nodes = _max_nodes(req), min_nodes = _min_nodes(req);
	long total = 0;
	int *cpus;

	if (req->demand.gpus > 0) {
		/* GPUs spread over the job: the eligible nodes' GPUs in all
		 * (whatever the node limit: a GPU refusal then says why) */
		long gpus = 0;

		for (int i = 0; i < n; i++)
			if (_eligible(l, req, i))
				gpus += libra_ledger_node_gpus(l, i);
		if (gpus < req->demand.gpus)
			return false;
	}
	for (int i = 0; i < n; i++) {
		if (!_eligible(l, req, i))
			continue;
		up++;
		if (up <= max_nodes)
			total += _res_take(l, req, i);
		if (up >= min_nodes && total >= req->cpus)
			return true;
	}
	if (up <= max_nodes)
		return false;
	cpus = malloc((size_t) up * sizeof(int));
	if (!cpus)
		return false;
	up = 0;
	for (int i = 0; i < n; i++)
		if (_eligible(l, req, i))
			cpus[up++] = _res_take(l, req, i);
	qsort(cpus, (size_t) up, sizeof(int), _cmp_int_desc);
	total = 0;
	for (int i = 0; i < up && i < max_nodes; i++)
		total += cpus[i];
	free(cpus);
	return up >= min_nodes && total >= req->cpus;
}

/*
 * What the placement's memory and GPUs cost over [now, TD] (decision 17,
 * price.h): at each node's Libra+$ rates ("market"), else at the base
 * prices.  Nothing unless libra_price_mem or libra_price_gpu is set.
 */
static void _price_held(const libra_ledger_t *l, const libra_params_t *p,
			const libra_sla_t *sla, double now, bool market,
			libra_quote_t *q);

/* Price of a static-price policy; q->rate_max is the CPU-second rate. */
static void _static_price(const libra_ledger_t *l, const libra_params_t *p,
			  const libra_sla_t *sla, const libra_request_t *req,
			  double now, libra_quote_t *q)
{
	double per_cpu, rate;

	if (p->policy == LIBRA_POLICY_FIXED || p->policy == LIBRA_POLICY_PEAK) {
		rate = libra_time_rate(p, now);
		per_cpu = sla->runtime * rate;
	} else {
		per_cpu = libra_static_price(p, sla->runtime,
					     sla->deadline - sla->submit);
		rate = per_cpu / sla->runtime;
	}
	q->rate_max = rate;
	q->price = per_cpu * req->cpus;	/* every CPU pays (decision 3) */
	_price_held(l, p, sla, now, false, q);
	q->price += q->price_mem + q->price_gpus;
}

static bool _over_budget(const libra_params_t *p, const libra_sla_t *sla,
			 double price)
{
	return libra_sla_has_budget(sla) &&
	       price > sla->budget + p->tolerance * fmax(1.0, sla->budget);
}

/*
 * The tail of every static-price policy: place the job on the n candidates
 * ("sorted": c is in order already), refused with "refusal" when they
 * cannot take it all; price it, and test the price against the budget
 * (refused with least_price when over).
 */
static void _place_static(const libra_ledger_t *l, const libra_params_t *p,
			  const libra_sla_t *sla, const libra_request_t *req,
			  double now, cand_t *c, int n, bool sorted,
			  libra_verdict_t refusal, libra_quote_t *q)
{
	if (_fill(c, n, req, q, sorted) < req->cpus) {
		q->verdict = refusal;
		q->nplace = 0;
		return;
	}
	_static_price(l, p, sla, req, now, q);
	if (_over_budget(p, sla, q->price)) {
		q->verdict = LIBRA_REJECT_BUDGET;
		q->least_price = q->price;
		q->nplace = 0;
	} else {
		q->verdict = LIBRA_ACCEPT;
	}
}

/* ------------------------------------------------- Libra, fixed, peak */

static void _admit_libra(const libra_ledger_t *l, const libra_params_t *p,
			 const libra_sla_t *sla, const libra_request_t *req,
			 double now, cand_t *c, libra_quote_t *q)
{
	int n = 0, nodes = libra_ledger_node_count(l);
	/* a booking's load walks the entries (_load), else it is a sum */
	bool walks = req->booked > 0.0 && req->booked < now;

	for (int j = 0; j < nodes; j++) {
		double free_share;
		int room;

		if (walks && j + 4 < nodes)
			libra_ledger_prefetch_node(l, j + 4);
		room = _room(l, p, req, j, q->share, now, sla->deadline,
			     &free_share);
		if (room < 1)
			continue;
		/* best fit: least free share first */
		_cand_init(l, &c[n], j, room, free_share);
		n++;
	}
	_place_static(l, p, sla, req, now, c, n, false, LIBRA_REJECT_DEADLINE,
		      q);
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
		double rate = libra_rate(l, p, _node_beta(l, p, node), node, k,
					 sla->runtime, now, sla->deadline);

		sum += k * sla->runtime * rate;
		if (rate > max)
			max = rate;
	}
	q->rate_max = max;
	if (p->charge == LIBRA_CHARGE_THESIS)
		q->price = req->cpus * sla->runtime * max;
	else
		q->price = sum;
	_price_held(l, p, sla, now, true, q);
	q->price += q->price_mem + q->price_gpus;
}

static void _price_held(const libra_ledger_t *l, const libra_params_t *p,
			const libra_sla_t *sla, double now, bool market,
			libra_quote_t *q)
{
	double window = sla->deadline - now;

	q->price_mem = 0.0;
	q->price_gpus = 0.0;
	if (libra_price_mem_per_sec(p) == 0.0 &&
	    libra_price_gpu_per_sec(p) == 0.0)
		return;
	for (int i = 0; i < q->nplace; i++) {
		const libra_place_t *pl = &q->place[i];
		double mem_rate = libra_price_mem_per_sec(p);
		double gpu_rate = libra_price_gpu_per_sec(p);

		if (!pl->mem_mb && !pl->gpus)
			continue;
		if (market)
			libra_held_rates(l, p, _node_beta(l, p, pl->node),
					 pl->node, now, sla->deadline,
					 &mem_rate, &gpu_rate);
		if (pl->mem_mb)
			q->price_mem += (double) pl->mem_mb * window * mem_rate;
		if (pl->gpus)
			q->price_gpus += pl->gpus * window * gpu_rate;
	}
}

/*
 * Is every CPU of the placement within its part of the budget,
 * RE * P_ij <= B / c?  That is the thesis' test of a node (Fig. 3.2 line
 * 20, RE * P_ij <= B) with the budget of one CPU; for a 1-CPU job it is
 * the budget test itself.  Under the thesis charge it is the budget test.
 * Memory and GPUs add what they cost (decision 17): the budget pays for
 * the summed price, so c * RE * max P_ij + memory + GPUs <= B.
 */
static double _cpu_budget_needed(const libra_sla_t *sla,
				 const libra_request_t *req,
				 const libra_quote_t *q)
{
	return req->cpus * sla->runtime * q->rate_max + q->price_mem +
	       q->price_gpus;
}

static bool _within_cpu_budget(const libra_params_t *p,
			       const libra_sla_t *sla,
			       const libra_request_t *req,
			       const libra_quote_t *q)
{
	return !_over_budget(p, sla, _cpu_budget_needed(sla, req, q));
}

/*
 * The memory and GPUs a job holds in all at the least (its fewest nodes:
 * --ntasks-per-node's count, else min_nodes), node's memory for --mem=0.
 */
static void _job_held(const libra_ledger_t *l, const libra_request_t *req,
		      int node, double *mem_mb, double *gpus)
{
	const libra_demand_t *d = &req->demand;
	int nodes = req->cpus_per_node > 0 ? req->cpus / req->cpus_per_node :
					     _min_nodes(req);

	if (!libra_ledger_node_mem(l, node))
		*mem_mb = 0.0;	/* not tracked there: not priced */
	else if (d->mem_whole_node)
		*mem_mb = (double) libra_ledger_node_mem(l, node) * nodes;
	else if (d->mem_per_node)
		*mem_mb = (double) d->mem_per_node * nodes;
	else
		*mem_mb = (double) d->mem_per_cpu * req->cpus;
	*gpus = d->gpus ? d->gpus : (double) d->gpus_per_node * nodes;
}

/*
 * Libra+$: the job's memory and GPUs as if all were at the node's rates
 * (its part of the budget test of a node, like c * RE * P_ij for CPUs).
 */
static double _held_at(const libra_ledger_t *l, const libra_params_t *p,
		       const libra_sla_t *sla, const libra_request_t *req,
		       double now, int node)
{
	double mem_rate, gpu_rate, mem, gpus, held = 0.0;

	if (!_asks_held(req) || (libra_price_mem_per_sec(p) == 0.0 &&
				 libra_price_gpu_per_sec(p) == 0.0))
		return 0.0;
	libra_held_rates(l, p, _node_beta(l, p, node), node, now,
			 sla->deadline, &mem_rate, &gpu_rate);
	_job_held(l, req, node, &mem, &gpus);
	if (mem > 0.0)
		held += mem * mem_rate;
	if (gpus > 0.0)
		held += gpus * gpu_rate;
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
		int room = _room(l, p, req, j, share, now, sla->deadline,
				 NULL);
		double res_free, res_max, putil;

		if (walks && j + 4 < nodes)
			libra_ledger_prefetch_node(l, j + 4);
		if (room < 1)
			continue;
		/* libra_res_free() for one CPU, with RESMax kept for P_ij */
		res_max = libra_res_max(l, j, now, sla->deadline);
		res_free = res_max - (p->resfree == LIBRA_RESFREE_THESIS ?
				      libra_ledger_node_thesis_work(l, j) :
				      libra_ledger_node_window_work(
					      l, j, now, sla->deadline)) -
			   1 * sla->runtime;
		if (!(res_free > 0.0))
			continue;
		/* line 17: RESFree ascending */
		_cand_init(l, &c[n], j, room, res_free);
		/* P_ij from this RESFree (libra_rate would walk the node's
		 * entries again for the same number) */
		putil = libra_putil(res_max, !(p->price_damping > 0.0) ?
				    res_free : libra_res_free_priced(
					    l, p, j, now, res_max, res_free,
					    sla->runtime), base);
		c[n].rate = isfinite(putil) ? p->alpha * base +
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
 * "One economy"): accepting the sum there lost up to 12 points of QoS,
 * and a best fit under the whole budget did no better; with the per-CPU
 * test both charges admit the same jobs.
 */
static void _admit_market(const libra_ledger_t *l, const libra_params_t *p,
			  const libra_sla_t *sla, const libra_request_t *req,
			  double now, cand_t *c, libra_quote_t *q)
{
	int n, m = 0;
	double least;
	cand_t *h;

	n = _market_candidates(l, p, sla, req, now, q->share, c);
	/* _fill leaves c as built */
	if (_fill(c, n, req, q, false) < req->cpus) {
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
		if (!_over_budget(p, sla,
				  req->cpus * sla->runtime * c[i].rate +
				  c[i].held))
			h[m++] = c[i];
	if (_fill(h, m, req, q, false) == req->cpus) {
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
	_fill(c, n, req, q, false);
	_price_placement(l, p, sla, req, now, q);
	if (_within_cpu_budget(p, sla, req, q)) {
		q->verdict = LIBRA_ACCEPT;
		return;
	}
	q->verdict = LIBRA_REJECT_BUDGET;
	q->least_price = fmin(least, _cpu_budget_needed(sla, req, q));
	q->nplace = 0;
}

/* ----------------------------------------------------------- LibraSLA */

/* The bid of an entry: its budget, or Libra's static price without one. */
static double _bid(const libra_params_t *p, const libra_entry_t *e)
{
	if (e->budget >= 0.0)
		return e->budget;
	return libra_static_price(p, e->runtime, e->deadline - e->submit);
}

/* Eq. 4.5: return_ij = (U_ij / RE_i) / D_i */
static double _return_of(const libra_params_t *p, const libra_entry_t *e,
			 double delay)
{
	double u = _bid(p, e) - delay / 3600.0 * e->penalty_rate;
	double d = e->deadline - e->submit;

	return (u / e->runtime) / (d > 0.0 ? d : 1.0);
}

/* Projected delay of e at effective share s (per CPU). */
static double _delay_at(const libra_params_t *p, const libra_entry_t *e,
			double s, double now)
{
	double work = libra_entry_work_at(e, now), finish;

	if (s < p->share_min)
		s = p->share_min;
	finish = now + work / s;
	return finish > e->deadline ? finish - e->deadline : 0.0;
}

/*
 * Return of a node with an optional extra job (thesis Fig. 4.3, with the
 * inequality of line 11 read as the prose says: spare capacity first).
 * *dy_extra gets the extra job's projected delay.  m is the node's memo
 * (_sla_memo() below), NULL when it has none; extra_ret is extra's
 * undelayed return, _return_of(p, extra, 0.0), the same on every node.
 */
/*
 * The node's figures without a new job that do not depend on "now" (the
 * node memo, ledger.h): its entries' cpus * share and undelayed returns,
 * each summed in entry order as the loops below sum them, the highest
 * return and its entry, whether one is hard, and the share a shortfall
 * keeps (the hard jobs', with the best job's or without).  Made again when an entry changed or the
 * static price's parameters did (a bid without a budget is that price).
 * NULL: no memo (a bad node).
 */
static void _sla_memo_key(const libra_params_t *p, double key[4])
{
	key[0] = libra_price_base_per_sec(p);
	key[1] = p->gamma;
	key[2] = p->delta;
	key[3] = 0.0;
}

static const libra_node_memo_t *_sla_memo(const libra_ledger_t *l,
					  const libra_params_t *p,
					  const double key[4], int node)
{
	libra_node_memo_t *m = libra_ledger_node_memo(l, node);
	uint64_t stamp = libra_ledger_node_stamp(l, node);
	uint64_t shape = libra_ledger_node_shape(l, node);
	const libra_entry_t *ent;
	int n;

	if (!m)
		return NULL;
	if (m->stamp == stamp && !memcmp(m->params, key, sizeof(m->params)))
		return m;
	n = libra_ledger_node_entries(l, node, &ent);
	if (m->shape == shape && !memcmp(m->params, key, sizeof(m->params))) {
		/* only shares changed (progress): the returns, the best
		 * and any_hard stand; the share sums again, in order */
		double share = 0.0, hard_sum = 0.0, best_sum = 0.0;

		for (int i = 0; i < n; i++) {
			const libra_entry_t *e = &ent[i];
			bool hard = e->type == LIBRA_DEADLINE_HARD;
			double cs = e->cpus * e->share;

			if (e->best_effort)
				continue;
			share += cs;
			if (hard)
				hard_sum += cs;
			if (i == m->best || hard)
				best_sum += cs;
		}
		m->share = share;
		m->prot_hard = hard_sum;
		m->prot_best = best_sum;
		m->stamp = stamp;
		return m;
	}
	m->nret0 = 0;
	if (n > m->ret0_cap) {
		/* the returns, then the bids */
		double *r = realloc(m->ret0, (size_t) n * 2 * sizeof(*r));

		if (r) {
			m->ret0 = r;
			m->bid = r + n;
			m->ret0_cap = n;
		}
	}
	m->share = 0.0;
	m->ret = 0.0;
	m->best_ret = -INFINITY;
	m->best = -1;
	m->any_hard = false;
	m->prot_hard = 0.0;
	m->prot_best = 0.0;
	for (int i = 0; i < n; i++) {
		const libra_entry_t *e = &ent[i];
		double r;

		if (n <= m->ret0_cap)
			m->ret0[i] = m->bid[i] = 0.0;
		if (e->best_effort)
			continue;
		m->share += e->cpus * e->share;
		r = _return_of(p, e, 0.0);
		if (n <= m->ret0_cap) {
			m->ret0[i] = r;
			m->bid[i] = _bid(p, e);
		}
		m->ret += r;
		if (r > m->best_ret) {
			m->best_ret = r;
			m->best = i;
		}
		if (e->type == LIBRA_DEADLINE_HARD) {
			m->any_hard = true;
			m->prot_hard += e->cpus * e->share;
		}
	}
	/* the kept share when the best entry stays the best */
	for (int i = 0; i < n; i++)
		if (!ent[i].best_effort &&
		    (i == m->best || ent[i].type == LIBRA_DEADLINE_HARD))
			m->prot_best += ent[i].cpus * ent[i].share;
	if (n <= m->ret0_cap)
		m->nret0 = n;
	memcpy(m->params, key, sizeof(m->params));
	m->stamp = stamp;
	m->shape = shape;
	return m;
}

/* The node's cpus * share with extra, summed as the loops below sum it. */
static double _sum_with(const libra_node_memo_t *m, const libra_entry_t *extra)
{
	double sum = m->share;

	if (extra && !extra->best_effort)
		sum += extra->cpus * extra->share;
	return sum;
}

/*
 * In a shortfall the best job and the hard jobs keep their shares: their
 * cpus * share with extra (at index n), summed in entry order as the loops
 * below sum it, from the memo; *best the best job's index.  extra_ret:
 * extra's undelayed return.
 */
static double _memo_kept(const libra_node_memo_t *m,
			 const libra_entry_t *extra, double extra_ret, int n,
			 int *best)
{
	bool in = extra && !extra->best_effort;
	double cs = in ? extra->cpus * extra->share : 0.0;

	if (in && extra_ret > m->best_ret) {
		*best = n;		/* extra is the best: the hard ones */
		return m->prot_hard + cs;
	}
	*best = m->best;
	if (in && extra->type == LIBRA_DEADLINE_HARD)
		return m->prot_best + cs;
	return m->prot_best;
}

/*
 * The shortfall's sum over entries [0, n) of a node (n even; the loop in
 * _node_return() below), two at a time (vec.h): each lane computes what
 * _delay_at() and _return_of() compute for its entry, with the memo's bid
 * and undelayed return, and the returns are added one by one in entry
 * order, so the sum is the same to the bit.  The kept entries (the best
 * and the hard ones) run at kept_scale, the others at f.  Finding E: its
 * four divisions an entry, two entries at once.
 */
static double _short_pairs(const libra_params_t *p,
			   const libra_node_memo_t *m,
			   const libra_entry_t *ent, int n, int best,
			   double kept_scale, double f, double now)
{
	const libra_v2_t vnow = libra_v2_set(now), zero = libra_v2_set(0.0);
	const libra_v2_t one = libra_v2_set(1.0), hour = libra_v2_set(3600.0);
	const libra_v2_t smin = libra_v2_set(p->share_min);
	const libra_v2_t vkept = libra_v2_set(kept_scale), vf = libra_v2_set(f);
	double ret = 0.0;

	for (int i = 0; i < n; i += 2) {
		const libra_entry_t *a = &ent[i], *b = &ent[i + 1];
		libra_v2_t is_kept = {
			i == best || a->type == LIBRA_DEADLINE_HARD,
			i + 1 == best || b->type == LIBRA_DEADLINE_HARD
		};
		libra_v2_t share = { a->share, b->share };
		libra_v2_t work = { a->work, b->work };
		libra_v2_t since = { a->since, b->since };
		libra_v2_t deadline = { a->deadline, b->deadline };
		libra_v2_t submit = { a->submit, b->submit };
		libra_v2_t runtime = { a->runtime, b->runtime };
		libra_v2_t rate = { a->penalty_rate, b->penalty_rate };
		libra_v2_t scale = libra_v2_pick(is_kept > zero, vkept, vf);
		libra_v2_t left, s, finish, dy, u, d, r;

		/* _delay_at(p, e, share * scale, now), 0 when scale >= 1 */
		left = work - share * (vnow - since);
		left = libra_v2_pick(left > zero, left, zero);
		left = libra_v2_pick(vnow <= since, work, left);
		s = share * scale;
		s = libra_v2_pick(s < smin, smin, s);
		finish = vnow + left / s;
		dy = libra_v2_pick(finish > deadline, finish - deadline, zero);
		dy = libra_v2_pick(scale >= one, zero, dy);
		/* _return_of(p, e, dy), the memo's when undelayed */
		u = libra_v2_load(&m->bid[i]) - dy / hour * rate;
		d = deadline - submit;
		d = libra_v2_pick(d > zero, d, one);
		r = libra_v2_pick(dy == zero, libra_v2_load(&m->ret0[i]),
				  (u / runtime) / d);
		if (!a->best_effort)
			ret += r[0];
		if (!b->best_effort)
			ret += r[1];
	}
	return ret;
}

static double _node_return(const libra_ledger_t *l, const libra_params_t *p,
			   int node, const libra_node_memo_t *m,
			   const libra_entry_t *extra, double extra_ret,
			   double now, double *dy_extra)
{
	const libra_entry_t *ent;
	int n = libra_ledger_node_entries(l, node, &ent);
	int total = n + (extra ? 1 : 0), best = -1;
	double cap = p->capacity * libra_ledger_node_cpus(l, node);
	double sum = 0.0, prot = 0.0, other, f, best_ret = -INFINITY, ret = 0.0;
	double kept_scale;
	int from = 0;

	if (dy_extra)
		*dy_extra = 0.0;
	if (m && _sum_with(m, extra) <= cap + p->tolerance) {
		/* enough capacity (below): the memo's sum, and the extra's */
		ret = m->ret;
		if (extra && !extra->best_effort)
			ret += extra_ret;
		return ret;
	}
	if (m) {
		/* a shortfall (below): the sums from the memo */
		sum = _sum_with(m, extra);
		prot = _memo_kept(m, extra, extra_ret, n, &best);
		goto shortfall;
	}
	for (int i = 0; i < total; i++) {
		const libra_entry_t *e = i < n ? &ent[i] : extra;
		double r;

		if (e->best_effort)
			continue;
		sum += e->cpus * e->share;
		r = _return_of(p, e, 0.0);
		if (r > best_ret) {
			best_ret = r;
			best = i;
		}
	}
	if (sum <= cap + p->tolerance) {
		/* enough capacity: nobody is delayed, U_i = B_i */
		for (int i = 0; i < total; i++) {
			const libra_entry_t *e = i < n ? &ent[i] : extra;

			if (!e->best_effort)
				ret += _return_of(p, e, 0.0);
		}
		return ret;
	}
	/* shortfall: the best job and hard jobs keep their shares */
	for (int i = 0; i < total; i++) {
		const libra_entry_t *e = i < n ? &ent[i] : extra;

		if (!e->best_effort &&
		    (i == best || e->type == LIBRA_DEADLINE_HARD))
			prot += e->cpus * e->share;
	}
shortfall:
	other = sum - prot;
	f = other > 0.0 ? fmax(cap - prot, 0.0) / other : 0.0;
	kept_scale = prot > cap ? cap / prot : 1.0;
	if (m && m->nret0 == n) {
		/* the node's entries two at a time, as the loop below */
		from = n - n % 2;
		ret = _short_pairs(p, m, ent, from, best, kept_scale, f, now);
	}
	for (int i = from; i < total; i++) {
		const libra_entry_t *e = i < n ? &ent[i] : extra;
		bool kept = (i == best || e->type == LIBRA_DEADLINE_HARD);
		double scale = kept ? kept_scale : f, dy;

		if (e->best_effort)
			continue;
		dy = scale >= 1.0 ? 0.0 : _delay_at(p, e, e->share * scale,
						    now);
		if (i == n && dy_extra)
			*dy_extra = dy;
		/* undelayed: the memo's _return_of(p, e, 0.0) */
		if (dy == 0.0 && m && i < m->nret0)
			ret += m->ret0[i];
		else
			ret += _return_of(p, e, dy);
	}
	return ret;
}

/*
 * Would adding extra make an admitted hard-deadline job late?  In a
 * shortfall the best job and the hard jobs keep their shares; if those
 * alone exceed the node, hard jobs are slowed too.  The thesis checks
 * only the new job's own deadline (Fig. 4.2); a hard deadline is a
 * promise, so we check the admitted ones as well.
 */
static bool _delays_hard(const libra_ledger_t *l, const libra_params_t *p,
			 int node, const libra_node_memo_t *m,
			 const libra_entry_t *extra, double extra_ret)
{
	const libra_entry_t *ent;
	int n = libra_ledger_node_entries(l, node, &ent), best = -1;
	double cap = p->capacity * libra_ledger_node_cpus(l, node);
	double sum = 0.0, prot = 0.0, best_ret = -INFINITY;
	bool any_hard = false;

	if (m) {
		/* as below, from the memo */
		if (!m->any_hard || _sum_with(m, extra) <= cap + p->tolerance)
			return false;
		prot = _memo_kept(m, extra, extra_ret, n, &best);
		return prot > cap + p->tolerance;
	}

	for (int i = 0; i <= n; i++) {
		const libra_entry_t *e = i < n ? &ent[i] : extra;
		double r;

		if (e->best_effort)
			continue;
		sum += e->cpus * e->share;
		r = _return_of(p, e, 0.0);
		if (r > best_ret) {
			best_ret = r;
			best = i;
		}
		if (i < n && e->type == LIBRA_DEADLINE_HARD)
			any_hard = true;
	}
	if (!any_hard || sum <= cap + p->tolerance)
		return false;
	for (int i = 0; i <= n; i++) {
		const libra_entry_t *e = i < n ? &ent[i] : extra;

		if (!e->best_effort &&
		    (i == best || e->type == LIBRA_DEADLINE_HARD))
			prot += e->cpus * e->share;
	}
	return prot > cap + p->tolerance;
}

static void _extra_entry(const libra_params_t *p, const libra_sla_t *sla,
			 double now, double share, int cpus,
			 libra_entry_t *e)
{
	memset(e, 0, sizeof(*e));
	e->job_id = 0;
	e->cpus = cpus;
	e->share = share;
	e->work = sla->runtime;
	e->since = now;
	e->runtime = sla->runtime;
	e->submit = sla->submit;
	e->deadline = sla->deadline;
	e->budget = libra_sla_has_budget(sla) ? sla->budget : -1.0;
	e->penalty_rate = sla->penalty_rate;
	e->type = sla->type;
}

/*
 * A hint for the node _admit_sla() comes to _SLA_AHEAD nodes later: its
 * entries, when its memo says it will be short with the new job, so that
 * _short_pairs() finds them in the cache (at 10,000 nodes they are not:
 * the walk waited about 90 cycles an entry for them, against 27 when they
 * were there).  The memo may be out of date: it only hints.
 */
#define _SLA_AHEAD 4

static void _sla_prefetch(const libra_ledger_t *l, const libra_params_t *p,
			  const libra_request_t *req, double share, int node)
{
	const libra_node_memo_t *m = libra_ledger_node_memo(l, node);
	int cpus = libra_ledger_node_cpus(l, node);

	if (m && m->share + (req->cpus < cpus ? req->cpus : cpus) * share >
		 p->capacity * cpus + p->tolerance)
		libra_ledger_prefetch_entries(l, node);
}

static void _admit_sla(const libra_ledger_t *l, const libra_params_t *p,
		       const libra_sla_t *sla, const libra_request_t *req,
		       double now, cand_t *c, libra_quote_t *q)
{
	int n = 0, nodes = libra_ledger_node_count(l), blocked_by_delay = 0;
	libra_entry_t extra;
	double key[4], extra_ret;

	/* what is the same on every node: the memos' key, the new job but
	 * its CPUs, its undelayed return */
	_sla_memo_key(p, key);
	_extra_entry(p, sla, now, q->share, 0, &extra);
	extra_ret = _return_of(p, &extra, 0.0);
	for (int j = 0; j < nodes; j++) {
		int k = _takeable(l, req, j);
		const libra_node_memo_t *m;
		double old_ret;

		if (j + _SLA_AHEAD < nodes)
			_sla_prefetch(l, p, req, q->share, j + _SLA_AHEAD);
		if (k < 1)
			continue;
		/* one memo for all the node's figures (_sla_memo()) */
		m = _sla_memo(l, p, key, j);
		/* the node's return as it is: the same for both tries */
		old_ret = _node_return(l, p, j, m, NULL, 0.0, now, NULL);
		for (;;) {
			double new_ret, dy;
			bool ok;

			extra.cpus = k;
			/* a hard job delayed refuses the node whatever the
			 * return: then the return is not projected */
			ok = !_delays_hard(l, p, j, m, &extra, extra_ret);
			new_ret = dy = 0.0;
			if (ok) {
				new_ret = _node_return(l, p, j, m, &extra,
						       extra_ret, now, &dy);
				ok = new_ret >= old_ret - p->tolerance *
				     fmax(1.0, fabs(old_ret));
			}
			if (ok && sla->type == LIBRA_DEADLINE_HARD &&
			    dy > LIBRA_DEADLINE_GRACE) {
				ok = false;
				blocked_by_delay++;
			}
			if (ok) {
				/* highest return first */
				_cand_init(l, &c[n], j, k, -new_ret);
				n++;
				break;
			}
			if (k == 1)
				break;
			k = 1;
		}
	}
	if (_fill(c, n, req, q, false) < req->cpus) {
		q->verdict = blocked_by_delay ? LIBRA_REJECT_DEADLINE :
						LIBRA_REJECT_RETURN;
		q->nplace = 0;
		return;
	}
	/* bid-based: the user pays the bid (the budget) if on time */
	if (libra_sla_has_budget(sla)) {
		q->price = sla->budget;
		q->rate_max = sla->budget / (sla->runtime * req->cpus);
		q->verdict = LIBRA_ACCEPT;
	} else {
		_static_price(l, p, sla, req, now, q);
		q->verdict = LIBRA_ACCEPT;
	}
}

/* --------------------------------------------------------- LibraRiskD */

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
	double sum = libra_ledger_node_share(l, node) + k * share;
	double ddy_sum = 0.0, ddy_sq = 0.0, mu, sigma;
	ps_job_t *jobs;
	int counted = 0;

	if (sum <= cap + p->tolerance)
		return true;	/* nobody delayed: every DDY is 1 */
	/*
	 * Overloaded.  Under processor sharing the job with the earliest
	 * deadline is then always late (its virtual time runs slower than
	 * real time until some job ends, and it ends first), so mean DDY > 1:
	 * with risk_mu = 1 there is nothing to project.
	 */
	if (p->risk_mu <= 1.0 + p->tolerance)
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
	jobs[m].work = k * sla->runtime;
	jobs[m].weight = k * share;
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
	return sigma <= p->risk_sigma + 1e-6 &&
	       mu <= p->risk_mu + 1e-6;
}

static void _admit_riskd(const libra_ledger_t *l, const libra_params_t *p,
			 const libra_sla_t *sla, const libra_request_t *req,
			 double now, cand_t *c, libra_quote_t *q)
{
	int n = 0, nodes = libra_ledger_node_count(l);
	int have = 0, tried = 0;

	for (int j = 0; j < nodes; j++) {
		int k = _takeable(l, req, j);

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
		_cand_init(l, &c[n], j, k, (double) j);
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
			if (_fill(c, n, req, q, true) == req->cpus)
				break;
		}
	}
	_place_static(l, p, sla, req, now, c, n, true, LIBRA_REJECT_RISK, q);
}

/* ------------------------------------------------------------- driver */

/* No more than this [MB] per CPU or node (an exbibyte): beyond it a request
 * is a mistake, and products of it with CPU counts stay in a uint64_t. */
#define LIBRA_MEM_MAX ((uint64_t) 1 << 40)

static bool _demand_ok(const libra_request_t *req)
{
	const libra_demand_t *d = &req->demand;
	int mem_forms = (d->mem_per_cpu > 0) + (d->mem_per_node > 0) +
			d->mem_whole_node;

	return d->gpus >= 0 && d->gpus_per_node >= 0 &&
	       !(d->gpus > 0 && d->gpus_per_node > 0) && mem_forms <= 1 &&
	       d->mem_per_cpu <= LIBRA_MEM_MAX &&
	       d->mem_per_node <= LIBRA_MEM_MAX;
}

/* The figures of a memory or GPU refusal (admit.h, libra_quote_t). */
static void _held_figures(const libra_ledger_t *l,
			  const libra_request_t *req, libra_quote_t *q)
{
	const libra_demand_t *d = &req->demand;
	int nodes = libra_ledger_node_count(l);

	for (int j = 0; j < nodes; j++) {
		uint64_t mem = libra_ledger_node_mem(l, j);
		uint64_t mem_free = libra_ledger_node_mem_free(l, j);
		int gpus = libra_ledger_node_gpus(l, j);
		int gpus_free = libra_ledger_node_gpus_free(l, j);

		if (!_eligible(l, req, j))
			continue;
		if (mem && mem > q->largest.mem_mb)
			q->largest.mem_mb = mem;
		if (mem && mem_free > q->most_free.mem_mb)
			q->most_free.mem_mb = mem_free;
		if (gpus > q->largest.gpus)
			q->largest.gpus = gpus;
		if (gpus_free > q->most_free.gpus)
			q->most_free.gpus = gpus_free;
	}
	if (d->mem_whole_node)
		q->asked.mem_mb = q->largest.mem_mb;
	else if (d->mem_per_node)
		q->asked.mem_mb = d->mem_per_node;
	else	/* at most 2^40 MB x 2^31 CPUs: no overflow */
		q->asked.mem_mb = d->mem_per_cpu * (uint64_t)
			(req->cpus_per_node > 0 ? req->cpus_per_node :
						  req->cpus);
	q->asked.gpus = d->gpus_per_node ? d->gpus_per_node : d->gpus;
}

static void _dispatch(const libra_ledger_t *l, const libra_params_t *p,
		      const libra_sla_t *sla, const libra_request_t *req,
		      double now, cand_t *c, libra_quote_t *q)
{
	q->price_mem = 0.0;
	q->price_gpus = 0.0;
	switch (p->policy) {
	case LIBRA_POLICY_LIBRA_PRICE:
	case LIBRA_POLICY_AUTO:
		_admit_market(l, p, sla, req, now, c, q);
		break;
	case LIBRA_POLICY_SLA:
		_admit_sla(l, p, sla, req, now, c, q);
		break;
	case LIBRA_POLICY_RISKD:
		_admit_riskd(l, p, sla, req, now, c, q);
		break;
	default:
		_admit_libra(l, p, sla, req, now, c, q);
		break;
	}
}

/* Is the request admitted, or refused for its budget alone? */
static bool _fits(const libra_ledger_t *l, const libra_params_t *p,
		  const libra_sla_t *sla, const libra_request_t *req,
		  double now, cand_t *c, libra_quote_t *q)
{
	_dispatch(l, p, sla, req, now, c, q);
	return q->verdict == LIBRA_ACCEPT || q->verdict == LIBRA_REJECT_BUDGET;
}

/*
 * Could the eligible nodes hold the request now, its share aside: CPUs
 * within the free job slots, memory and GPUs beside what is held?  The
 * nodes that can take the most first.  Admission at any deadline needs
 * this.
 */
static bool _holds_now(const libra_ledger_t *l, const libra_request_t *req,
		       cand_t *c, libra_quote_t *q)
{
	int n = 0, nodes = libra_ledger_node_count(l);

	for (int j = 0; j < nodes; j++) {
		int k = _takeable(l, req, j);

		if (k > 0)
			_cand_init(l, &c[n++], j, k, -(double) k);
	}
	return _fill(c, n, req, q, false) == req->cpus;
}

/*
 * A request refused for capacity (not budget): if the share would fit
 * without the job slots, memory and GPUs the nodes' jobs hold, name the
 * one that stands in the way: the one whose limit alone, lifted, admits
 * it (memory, then GPUs, then slots); when only together, memory if asked,
 * else GPUs.  Otherwise the share itself: the verdict stays.  Without
 * memory or GPUs asked this is the slots test as before (decision 15).
 * Quotes again into q: only its verdict is meaningful afterwards.
 */
static libra_verdict_t _refusal_cause(const libra_ledger_t *l,
				      const libra_params_t *p,
				      const libra_sla_t *sla,
				      const libra_request_t *req, double now,
				      cand_t *c, libra_quote_t *q)
{
	libra_verdict_t v = q->verdict;
	libra_request_t r = *req;

	r.slots_per_cpu = 0;
	memset(&r.demand, 0, sizeof(r.demand));
	if (!_fits(l, p, sla, &r, now, c, q))
		return v;
	if (!_asks_held(req))
		return LIBRA_REJECT_SLOTS;
	if (_asks_mem(req)) {
		r = *req;
		r.demand.mem_per_cpu = 0;
		r.demand.mem_per_node = 0;
		r.demand.mem_whole_node = false;
		if (_fits(l, p, sla, &r, now, c, q))
			return LIBRA_REJECT_MEMORY;
	}
	if (_asks_gpus(req)) {
		r = *req;
		r.demand.gpus_per_node = 0;
		r.demand.gpus = 0;
		if (_fits(l, p, sla, &r, now, c, q))
			return LIBRA_REJECT_GPUS;
	}
	if (req->slots_per_cpu > 0) {
		r = *req;
		r.slots_per_cpu = 0;
		if (_fits(l, p, sla, &r, now, c, q))
			return LIBRA_REJECT_SLOTS;
	}
	return _asks_mem(req) ? LIBRA_REJECT_MEMORY : LIBRA_REJECT_GPUS;
}

/*
 * Is the memory or GPUs that _refusal_cause() named free now, with the job
 * slots, on eligible nodes enough to hold the request?  Then lifting them
 * only let the request onto other nodes, and what it lacks is CPU share on
 * the nodes that have them (the GPU node busy with admitted jobs while a
 * node without GPUs has share to spare): q->held_node names the first
 * such node.  Quotes into q's places.
 */
static bool _held_free(const libra_ledger_t *l, const libra_request_t *req,
		       libra_verdict_t cause, cand_t *c, libra_quote_t *q)
{
	if ((cause != LIBRA_REJECT_MEMORY && cause != LIBRA_REJECT_GPUS) ||
	    !_holds_now(l, req, c, q) || !q->nplace)
		return false;
	q->held_node = q->place[0].node;
	return true;
}

/* The policy's own quote, in resource cost: no mark-up, no due date. */
static void _admit_policy(const libra_ledger_t *l, const libra_params_t *p,
			  const libra_sla_t *sla, const libra_request_t *req,
			  double now, libra_quote_t *q)
{
	int nodes = libra_ledger_node_count(l);
	cand_t *c;

	q->verdict = LIBRA_REJECT_INVALID;
	q->share = 0.0;
	q->price = 0.0;
	q->price_mem = 0.0;
	q->price_gpus = 0.0;
	q->rate_max = 0.0;
	q->least_price = 0.0;
	memset(&q->asked, 0, sizeof(q->asked));
	memset(&q->most_free, 0, sizeof(q->most_free));
	memset(&q->largest, 0, sizeof(q->largest));
	q->nplace = 0;
	q->held_node = -1;

	if (req->cpus < 1 || _min_nodes(req) > req->cpus ||
	    (req->max_nodes > 0 && req->max_nodes < _min_nodes(req)) ||
	    req->cpus_per_task < 0 || req->cpus_per_node < 0 ||
	    (req->cpus_per_task > 1 && req->cpus % req->cpus_per_task) ||
	    (req->cpus_per_node > 0 && req->cpus % req->cpus_per_node) ||
	    !_demand_ok(req) ||
	    !(sla->runtime > 0.0) || !(sla->deadline > now))
		return;
	q->share = sla->runtime / (sla->deadline - now);
	if (_asks_held(req))
		_held_figures(l, req, q);

	if (!_resources_ok(l, req)) {
		q->verdict = LIBRA_REJECT_RESOURCES;
		return;
	}
	if (q->share > 1.0 + p->tolerance) {
		/* not even a whole CPU finishes it in time */
		q->verdict = LIBRA_REJECT_DEADLINE;
		return;
	}
	c = malloc((size_t) (nodes ? nodes : 1) * sizeof(*c));
	if (!c) {
		q->verdict = LIBRA_REJECT_RESOURCES;
		return;
	}
	_dispatch(l, p, sla, req, now, c, q);
	if ((req->slots_per_cpu > 0 || _asks_held(req)) &&
	    q->verdict != LIBRA_ACCEPT && q->verdict != LIBRA_REJECT_BUDGET) {
		libra_verdict_t share = q->verdict;

		q->verdict = _refusal_cause(l, p, sla, req, now, c, q);
		if (_held_free(l, req, q->verdict, c, q))
			q->verdict = share;
		q->nplace = 0;
	}
	free(c);
}

/* ------------------------------------------ ISQoS: mark-up, due date */

/* The resource cost quote at one target, marked up to service price. */
static void _admit_target(const libra_ledger_t *l, const libra_params_t *p,
			  const libra_sla_t *sla, const libra_request_t *req,
			  double now, double target, double markup,
			  libra_quote_t *q)
{
	libra_sla_t s = *sla;
	double up = 1.0 + markup;

	s.deadline = target;
	if (libra_sla_has_budget(sla))
		s.budget = sla->budget / up;	/* ISQoS section 4.3 */
	_admit_policy(l, p, &s, req, now, q);
	q->price *= up;
	q->price_mem *= up;
	q->price_gpus *= up;
	q->rate_max *= up;
	q->least_price *= up;
	q->markup = markup;
	q->target = target;
	q->charge_target = q->price - libra_due_penalty(sla, q->price,
							target - sla->due_date);
}

extern void libra_admit(const libra_ledger_t *l, const libra_params_t *p,
			const libra_sla_t *sla, const libra_request_t *req,
			double now, libra_quote_t *q)
{
	double m = libra_params_markup(p, sla->tier);
	double due = sla->due_date, lo, hi, step;

	if (!libra_sla_has_due_window(sla) || !(sla->deadline > now)) {
		_admit_target(l, p, sla, req, now, sla->deadline, m, q);
		return;
	}
	/* the due date if the free share allows it */
	if (due > now) {
		_admit_target(l, p, sla, req, now, due, m, q);
		if (q->verdict == LIBRA_ACCEPT)
			return;
	}
	/* else the deadline itself must be possible */
	_admit_target(l, p, sla, req, now, sla->deadline, m, q);
	if (q->verdict != LIBRA_ACCEPT)
		return;
	/* the earliest target in (due, deadline] */
	lo = fmax(due, now);
	hi = sla->deadline;
	step = fmax(1.0, 0.01 * (sla->deadline - due));
	while (hi - lo > step) {
		double mid = 0.5 * (lo + hi);

		_admit_target(l, p, sla, req, now, mid, m, q);
		if (q->verdict == LIBRA_ACCEPT)
			hi = mid;
		else
			lo = mid;
	}
	_admit_target(l, p, sla, req, now, hi, m, q);
	/* sold at a loss past the break-even point: charge < R */
	if (q->verdict == LIBRA_ACCEPT &&
	    q->charge_target < q->price / (1.0 + m) - p->tolerance) {
		q->verdict = LIBRA_REJECT_DUEDATE;
		q->nplace = 0;
	}
}

extern void libra_sla_accept(libra_sla_t *sla, const libra_quote_t *q)
{
	if (q->verdict != LIBRA_ACCEPT)
		return;
	if (q->target < sla->deadline) {
		sla->target = q->target;
		sla->set |= LIBRA_SLA_TARGET;
	} else {
		sla->target = 0.0;
		sla->set &= ~LIBRA_SLA_TARGET;
	}
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

/* ---------------------------------------------------- counter-offers */

static bool _admits_at(const libra_ledger_t *l, const libra_params_t *p,
		       const libra_sla_t *sla, const libra_request_t *req,
		       double now, double deadline, libra_quote_t *q)
{
	libra_sla_t s = *sla;

	s.deadline = deadline;
	s.due_date += deadline - sla->deadline;	/* 0 stays unset */
	if (!(s.set & LIBRA_SLA_DUEDATE))
		s.due_date = 0.0;
	libra_admit(l, p, &s, req, now, q);
	return q->verdict == LIBRA_ACCEPT;
}

/*
 * What the nodes hold that keeps the request out whatever its deadline
 * (libra_offer_t.blocked_by): memory, GPUs or slots, named as
 * _refusal_cause() names them; LIBRA_ACCEPT when they could hold it.
 */
static libra_verdict_t _blocked_by(const libra_ledger_t *l,
				   const libra_request_t *req,
				   libra_quote_t *q)
{
	int nodes = libra_ledger_node_count(l);
	libra_verdict_t v = LIBRA_ACCEPT;
	libra_request_t r = *req;
	cand_t *c;

	if ((req->slots_per_cpu <= 0 && !_asks_held(req)) || req->cpus < 1 ||
	    !_demand_ok(req) || !_resources_ok(l, req))
		return LIBRA_ACCEPT;	/* libra_admit() says why */
	c = malloc((size_t) (nodes ? nodes : 1) * sizeof(*c));
	if (!c || _holds_now(l, req, c, q))
		goto out;
	v = _asks_mem(req) ? LIBRA_REJECT_MEMORY :
	    _asks_gpus(req) ? LIBRA_REJECT_GPUS : LIBRA_REJECT_SLOTS;
	if (_asks_mem(req)) {
		r.demand.mem_per_cpu = 0;
		r.demand.mem_per_node = 0;
		r.demand.mem_whole_node = false;
		if (_holds_now(l, &r, c, q))
			goto out;
		r = *req;
	}
	if (_asks_gpus(req)) {
		r.demand.gpus_per_node = 0;
		r.demand.gpus = 0;
		if (_holds_now(l, &r, c, q)) {
			v = LIBRA_REJECT_GPUS;
			goto out;
		}
		r = *req;
	}
	if (req->slots_per_cpu > 0) {
		r.slots_per_cpu = 0;
		if (_holds_now(l, &r, c, q))
			v = LIBRA_REJECT_SLOTS;
	}
out:
	free(c);
	return v;
}

/*
 * Up to max distinct whole seconds in (after, until] at which a committed
 * share on an eligible node falls to its tail, the earliest ones,
 * ascending; their count.  One pass over the entries keeping the max
 * earliest in a sorted array (a value not below the array's last, once it
 * is full, is dropped at once): O(entries) for a full ledger, no sort of
 * all its times.
 */
static int _slot_times(const libra_ledger_t *l, const libra_request_t *req,
		       double after, double until, double *t, int max)
{
	int nodes = libra_ledger_node_count(l), m = 0;

	for (int j = 0; j < nodes; j++)
		if (_eligible(l, req, j))
			m = libra_ledger_node_targets(l, j, after, until, t, m,
						      max);
	return m;
}

/*
 * A search's time limit (LIBRA_SEARCH_SECONDS, admit.h): the time since
 * it started plus the longest step so far, so that the next step is not
 * begun when it would likely end past the limit.  The calling thread's CPU
 * time, not the wall clock: a thread that a loaded machine preempts is not
 * cut short (the limit bounds the work done under the caller's locks, and
 * a small cluster's search, well under it, always runs to its end).
 * limit <= 0: none, and the clock is never read.
 */
typedef struct {
	double limit, start, last, longest;
} search_clock_t;

static double _cpu_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void _clock_start(search_clock_t *c, double limit)
{
	c->limit = limit;
	c->longest = 0.0;
	c->start = c->last = limit > 0.0 ? _cpu_now() : 0.0;
}

/* A step begins here (what came before is no step of the search).  The
 * time since the start still counts against the limit. */
static void _clock_mark(search_clock_t *c)
{
	if (c->limit > 0.0)
		c->last = _cpu_now();
}

/* Before a step: would it, and steps - 1 more, likely end past the limit?
 * The time since the last call is a step. */
static bool _clock_out(search_clock_t *c, int steps)
{
	double t;

	if (!(c->limit > 0.0))
		return false;
	t = _cpu_now();
	if (t - c->last > c->longest)
		c->longest = t - c->last;
	c->last = t;
	return t - c->start + steps * c->longest > c->limit;
}

extern bool libra_next_slot(const libra_ledger_t *l, const libra_params_t *p,
			    const libra_sla_t *sla, const libra_request_t *req,
			    double now, double max_delay, libra_slot_t *slot)
{
	return libra_next_slot_within(l, p, sla, req, now, max_delay, 0.0,
				      slot);
}

extern bool libra_next_slot_within(const libra_ledger_t *l,
				   const libra_params_t *p,
				   const libra_sla_t *sla,
				   const libra_request_t *req, double now,
				   double max_delay, double max_seconds,
				   libra_slot_t *slot)
{
	double t[LIBRA_SLOT_TRIES];
	libra_request_t r = *req;
	libra_quote_t *q;
	search_clock_t clk;
	int n;
	bool found = false;

	memset(slot, 0, sizeof(*slot));
	_clock_start(&clk, max_seconds);
	if (!(sla->deadline > now))
		return false;
	n = _slot_times(l, req, now, now + max_delay, t, LIBRA_SLOT_TRIES);
	if (!n || !(q = malloc(sizeof(*q))))
		return false;
	if (!(r.booked > 0.0))
		r.booked = now;
	for (int i = 0; i < n && !found; i++) {
		double shift = t[i] - now;
		libra_sla_t s = *sla;

		if (_clock_out(&clk, 1)) {
			slot->cut = true;
			break;
		}
		s.submit += shift;
		s.deadline += shift;
		if (s.set & LIBRA_SLA_DUEDATE)
			s.due_date += shift;
		libra_admit(l, p, &s, &r, t[i], q);
		if (q->verdict == LIBRA_ACCEPT) {
			slot->begin = t[i];
			slot->deadline = s.deadline;
			slot->price = q->price;
			found = true;
		}
	}
	free(q);
	return found;
}

/*
 * Can no deadline up to "limit" fit the budget?  Every admission at any
 * deadline (a due date's targets included) would charge at least this,
 * each step rounded as the admission rounds it, so that the test is
 * exact, not within a rounding:
 *  - Libra and LibraRiskD: the static price falls with the period, so it
 *    is least at the limit: libra_static_price(RE, limit - TSU) per CPU;
 *  - fixed and peak: the rate now, whatever the deadline;
 *  - Libra+$ and Libra+$Auto without a tariff price: every CPU's rate is
 *    alpha PBase + beta PUtil with PUtil >= PBase (RESFree <= RESMax), and
 *    the budget test charges c RE times the placement's highest rate, so
 *    c RE (alpha PBase + beta PBase) with the least beta of any node;
 * memory and GPUs add to it, never take off.  LibraSLA charges the bid.
 * Tested against the budget as the admission tests it, in resource cost
 * (B / (1 + markup)).  True: the search for a later deadline would find
 * none (findings.md, C).
 */
static bool _budget_below_floor(const libra_ledger_t *l,
				const libra_params_t *p,
				const libra_sla_t *sla,
				const libra_request_t *req, double now,
				double limit)
{
	libra_sla_t s = *sla;
	double least;

	if (!libra_sla_has_budget(sla) || !(sla->runtime > 0.0) ||
	    req->cpus < 1)
		return false;
	s.budget = sla->budget / (1.0 + libra_params_markup(p, sla->tier));
	switch (p->policy) {
	case LIBRA_POLICY_LIBRA:
	case LIBRA_POLICY_RISKD:
		least = libra_static_price(p, sla->runtime,
					   limit - sla->submit) * req->cpus;
		break;
	case LIBRA_POLICY_FIXED:
	case LIBRA_POLICY_PEAK:
		least = sla->runtime * libra_time_rate(p, now) * req->cpus;
		break;
	case LIBRA_POLICY_LIBRA_PRICE:
	case LIBRA_POLICY_AUTO: {
		double base = libra_price_base_per_sec(p), beta = p->beta;

		if (p->tariff_price && p->tariff.n)
			return false;	/* PBase follows the window */
		if (p->policy == LIBRA_POLICY_AUTO) {
			int nodes = libra_ledger_node_count(l);

			beta = fmin(beta, p->beta_min);
			for (int j = 0; j < nodes; j++) {
				double b = libra_ledger_node_beta(l, j);

				if (!isnan(b))
					beta = fmin(beta, b);
			}
		}
		if (!(beta >= 0.0) || !(p->alpha >= 0.0) || !(base >= 0.0))
			return false;
		least = req->cpus * sla->runtime *
			(p->alpha * base + beta * base);
		break;
	}
	default:
		return false;
	}
	return _over_budget(p, &s, least);
}

extern void libra_counter_offer(const libra_ledger_t *l,
				const libra_params_t *p,
				const libra_sla_t *sla,
				const libra_request_t *req, double now,
				double max_period, libra_offer_t *o)
{
	libra_counter_offer_within(l, p, sla, req, now, max_period, 0.0, o);
}

extern void libra_counter_offer_within(const libra_ledger_t *l,
				       const libra_params_t *p,
				       const libra_sla_t *sla,
				       const libra_request_t *req,
				       double now, double max_period,
				       double max_seconds, libra_offer_t *o)
{
	libra_quote_t *q = malloc(sizeof(*q));
	double lo, hi, limit, step;
	search_clock_t clk;

	memset(o, 0, sizeof(*o));
	_clock_start(&clk, max_seconds);
	if (!q)
		return;
	/* memory and GPUs are held until jobs end: no deadline frees them */
	o->blocked_by = _blocked_by(l, req, q);
	if (o->blocked_by == LIBRA_REJECT_MEMORY ||
	    o->blocked_by == LIBRA_REJECT_GPUS) {
		free(q);
		return;
	}
	/* (b) the least budget at the user's deadline: what a budget refusal
	 * names, offered only once a quote with it is accepted */
	if (libra_sla_has_budget(sla)) {
		libra_sla_t s = *sla;

		_clock_mark(&clk);
		libra_admit(l, p, &s, req, now, q);
		_clock_out(&clk, 0);	/* a step: how long one takes */
		if (q->verdict == LIBRA_REJECT_BUDGET) {
			s.budget = q->least_price;
			libra_admit(l, p, &s, req, now, q);
			if (q->verdict == LIBRA_ACCEPT) {
				o->has_budget = true;
				o->budget = s.budget;
			}
		}
	}
	/* (a) the earliest later deadline that fits the budget */
	limit = sla->submit + max_period;
	lo = sla->deadline;
	hi = 0.0;
	if (_budget_below_floor(l, p, sla, req, now, limit)) {
		free(q);	/* no deadline can: nothing to search */
		return;
	}
	_clock_mark(&clk);
	for (double period = sla->deadline - now; ; period *= 1.5) {
		double t = now + period;

		if (t > limit)
			t = limit;
		/* this step, and the check of the deadline found */
		if (t > lo && _clock_out(&clk, 2)) {
			o->cut = true;
			break;
		}
		if (t > lo && _admits_at(l, p, sla, req, now, t, q)) {
			hi = t;
			break;
		}
		if (t >= limit)
			break;
		lo = t;
	}
	if (hi > 0.0) {
		step = fmax(60.0, 0.01 * (hi - sla->submit));
		while (hi - lo > step) {
			double mid = 0.5 * (lo + hi);

			if (_clock_out(&clk, 2)) {
				o->cut = true;	/* hi is admitted: offered */
				break;
			}
			if (_admits_at(l, p, sla, req, now, mid, q))
				hi = mid;
			else
				lo = mid;
		}
		/* round up to a whole minute for people */
		hi = now + ceil((hi - now) / 60.0) * 60.0;
		if (hi > limit)
			hi = limit;
		if (_admits_at(l, p, sla, req, now, hi, q)) {
			o->has_deadline = true;
			o->deadline = hi;
			if (sla->set & LIBRA_SLA_DUEDATE)
				o->due_date = sla->due_date +
					      (hi - sla->deadline);
			o->deadline_price = q->price;
		}
	}
	free(q);
}
