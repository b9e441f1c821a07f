/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit.c - admission control and placement (see admit.h).
 *
 *  Every policy follows the same steps: validate the request, check that
 *  the cluster could hold it at all (resources), build the list of
 *  candidate nodes with how many of the job's CPUs each can take and a sort
 *  key, sort, take CPUs in order (admit_fill), then price.  The policies
 *  differ in the candidate test, the sort key and the price.  Memory, GPUs
 *  (decision 17) and scratch disk enter in two places common to all: the
 *  CPUs a node may give before any policy test (_held_room, inside
 *  admit_takeable and admit_room), and admit_fill, which records what each
 *  place holds and spreads a job's GPUs; the price adds what they cost
 *  (admit_price_held).  A refusal for capacity is then explained
 *  (_refusal_cause): slots, memory, GPUs or disk when the share alone
 *  would have fitted.
 *
 *  This file holds those common steps and the driver (validation, the
 *  resources test, the policy's quote, the refusal's cause).  Each policy
 *  family's candidate test, sort key and price is in a file of its own:
 *  admit_price.c (Libra, fixed, peak, Libra+$, Libra+$Auto), admit_sla.c
 *  (LibraSLA), admit_riskd.c (LibraRiskD).  Around every policy, ISQoS's
 *  mark-up and due date, libra_admit() itself, are in admit_isqos.c; the
 *  counter-offers and next free slots in admit_offers.c.  What these
 *  files share is declared in admit_int.h.
 *
 *  Cost: one pass over the nodes, each O(1) for the share test and O(jobs
 *  on the node) for the window work of Libra+$ and the projections of
 *  LibraSLA and LibraRiskD, plus one sort.
\*****************************************************************************/

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "admit_int.h"
#include "number.h"
#include "price.h"

static const libra_name_t verdict_names[] = {
	{ LIBRA_ACCEPT,			"accepted" },
	{ LIBRA_REJECT_RESOURCES,	"resources" },
	{ LIBRA_REJECT_DEADLINE,	"deadline" },
	{ LIBRA_REJECT_BUDGET,		"budget" },
	{ LIBRA_REJECT_RETURN,		"return" },
	{ LIBRA_REJECT_RISK,		"risk" },
	{ LIBRA_REJECT_INVALID,		"invalid" },
	{ LIBRA_REJECT_SLOTS,		"slots" },
	{ LIBRA_REJECT_MEMORY,		"memory" },
	{ LIBRA_REJECT_GPUS,		"gpus" },
	{ LIBRA_REJECT_DUEDATE,		"duedate" },
	{ LIBRA_REJECT_DISK,		"disk" },
	{ LIBRA_REJECT_PROFIT,		"profit" },
	{ 0, NULL }
};

extern const char *libra_verdict_name(libra_verdict_t v)
{
	return libra_name_of(verdict_names, (int) v);
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
	case LIBRA_REJECT_DISK:
		return "not enough free scratch disk (TmpDisk) on the nodes where the CPU share fits";
	case LIBRA_REJECT_PROFIT:
		return "the price would earn the provider less than its going rate (libra_min_profit_rate)";
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

extern int admit_min_nodes(const libra_request_t *req)
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

/* Candidates found by one scan for the least before admit_fill makes a heap of
 * the rest: most requests take one or two nodes, and a scan of the
 * candidates costs less than making a heap of them. */
#define _FILL_SCANS 3

static inline bool _cand_less(const cand_t *x, const cand_t *y)
{
	return _key_less(x->key, x->node, y->key, y->node);
}

/*
 * The first few (_FILL_SCANS) of the candidates, the least in order, into
 * first[]; returns how many.  None when a key is NaN.
 */
static int _fill_first(const cand_t *c, int n, int first[_FILL_SCANS])
{
	int nfirst = 0;

	for (int i = 0; i < n; i++) {
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
	return nfirst;
}

/*
 * The candidates not among the nfirst in first[]: a heap of references to
 * them, *nleft of them; NULL when out of memory.
 */
static cref_t *_fill_heap(const cand_t *c, int n, const int *first,
			  int nfirst, int *nleft)
{
	/* the rest: a heap of references */
	cref_t *h = malloc((size_t) (n ? n : 1) * sizeof(*h));
	int hleft = 0;

	if (!h)
		return NULL;
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
	*nleft = hleft;
	return h;
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
extern int admit_fill(cand_t *c, int n, const libra_request_t *req,
		      libra_quote_t *q, bool sorted)
{
	int need = req->cpus, min_nodes = admit_min_nodes(req);
	int max_nodes = _max_nodes(req);
	int unit = req->cpus_per_task > 1 ? req->cpus_per_task : 1;
	int next = 0, left = n, gpus_left = req->demand.gpus;
	int first[_FILL_SCANS], nfirst = 0, taken = 0, hleft = 0;
	cref_t *h = NULL;
	bool heap = false;

	q->nplace = 0;
	if (!sorted)
		nfirst = _fill_first(c, n, first);
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
				h = _fill_heap(c, n, first, nfirst, &hleft);
				if (!h) {
					q->nplace = 0;
					return 0;
				}
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
		q->place[q->nplace].tmp_mb = top.tmp_tracked ?
					     req->demand.tmp_mb : 0;
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

/*
 * The most CPUs of the job the node's memory, GPUs and scratch disk let it
 * take (decision 17): none where its GPUs per node, a GPU of GPUs spread
 * over the job, its scratch disk, its memory per node or the whole node's
 * memory (--mem=0: nothing else held) are not free; with memory per CPU,
 * as many CPUs as the free memory holds; INT_MAX when nothing limits.
 * "idle": of the node's whole memory, GPUs and scratch disk, for the
 * resources test.  A node whose memory or scratch disk is not tracked has
 * no limit of it.
 */
static int _held_room(const libra_ledger_t *l, const libra_request_t *req,
		      int node, bool idle)
{
	const libra_demand_t *d = &req->demand;
	uint64_t total, mem;
	int gpus;

	if (!admit_asks_held(req))
		return INT_MAX;
	total = libra_ledger_node_mem(l, node);
	gpus = idle ? libra_ledger_node_gpus(l, node) :
		      libra_ledger_node_gpus_free(l, node);
	if (gpus < d->gpus_per_node || (d->gpus > 0 && gpus < 1))
		return 0;
	if (d->tmp_mb && libra_ledger_node_tmp(l, node) &&
	    d->tmp_mb > (idle ? libra_ledger_node_tmp(l, node) :
				libra_ledger_node_tmp_free(l, node)))
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
extern int admit_takeable(const libra_ledger_t *l, const libra_request_t *req,
			  int node)
{
	int k = libra_ledger_node_cpus(l, node);

	if (!admit_eligible(l, req, node))
		return 0;
	if (k > req->cpus)
		k = req->cpus;
	if (k > _slots_free(l, req, node))
		k = _slots_free(l, req, node);
	if (k > _held_room(l, req, node, false))
		k = _held_room(l, req, node, false);
	return k;
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
 * NULL).  s is the reference CPU's share: the node's is s / its speed
 * (decision 43). */
extern int admit_room(const libra_ledger_t *l, const libra_params_t *p,
		      const libra_request_t *req, int node, double s,
		      double now, double until, double *free_out)
{
	int cpus = libra_ledger_node_cpus(l, node), held;
	double free_share = p->capacity * cpus -
			    _load(l, req, node, now, until);
	double k;

	if (free_out)
		*free_out = free_share;

	if (!(s > 0.0))
		return 0;
	s /= libra_ledger_node_speed(l, node);
	k = floor((free_share + p->tolerance) / s);
	/* no room by share (most nodes of a loaded cluster) before the
	 * eligibility test: either refuses the node */
	if (!(k > 0.0) || !admit_eligible(l, req, node))
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
extern bool admit_resources_ok(const libra_ledger_t *l,
			       const libra_request_t *req)
{
	int n = libra_ledger_node_count(l), up = 0;
	int max_nodes = _max_nodes(req), min_nodes = admit_min_nodes(req);
	long total = 0;
	int *cpus;

	if (req->demand.gpus > 0) {
		/* GPUs spread over the job: the eligible nodes' GPUs in all
		 * (whatever the node limit: a GPU refusal then says why) */
		long gpus = 0;

		for (int i = 0; i < n; i++)
			if (admit_eligible(l, req, i))
				gpus += libra_ledger_node_gpus(l, i);
		if (gpus < req->demand.gpus)
			return false;
	}
	for (int i = 0; i < n; i++) {
		if (!admit_eligible(l, req, i))
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
		if (admit_eligible(l, req, i))
			cpus[up++] = _res_take(l, req, i);
	qsort(cpus, (size_t) up, sizeof(int), _cmp_int_desc);
	total = 0;
	for (int i = 0; i < up && i < max_nodes; i++)
		total += cpus[i];
	free(cpus);
	return up >= min_nodes && total >= req->cpus;
}

/* Price of a static-price policy; q->rate_max is the CPU-second rate. */
extern void admit_static_price(const libra_ledger_t *l,
			       const libra_params_t *p,
			       const libra_sla_t *sla,
			       const libra_request_t *req, double now,
			       libra_quote_t *q)
{
	double per_cpu, rate, cpus = 0.0, most = 0.0;

	/* PBase_j (decision 43): each CPU at its node's factor; the CPUs
	 * summed first, so that at factors of 1 the price is per_cpu x
	 * cpus to the bit */
	for (int i = 0; i < q->nplace; i++) {
		double f = libra_ledger_node_price_factor(l,
							  q->place[i].node);

		cpus += q->place[i].cpus * f;
		most = fmax(most, f);
	}
	if (p->policy == LIBRA_POLICY_PEAK) {
		/* each hour of the planned use at its own rate: the share
		 * over [now, now + RE / share] (doc/design.md decision 3) */
		double end = q->share > 0.0 ? now + sla->runtime / q->share :
					      sla->deadline;

		rate = end > now ? libra_time_cost(p, now, end) / (end - now) :
				   libra_time_rate(p, now);
		per_cpu = sla->runtime * rate;
	} else if (p->policy == LIBRA_POLICY_FIXED) {
		rate = libra_time_rate(p, now);
		per_cpu = sla->runtime * rate;
	} else {
		per_cpu = libra_static_price(p, sla->runtime,
					     sla->deadline - sla->submit);
		rate = per_cpu / sla->runtime;
	}
	q->rate_max = rate * most;
	q->price = per_cpu * cpus;	/* every CPU pays (decision 3) */
	admit_price_held(l, p, sla, now, false, q);
	q->price += q->price_mem + q->price_gpus + q->price_disk;
}

/*
 * The tail of every static-price policy: place the job on the n candidates
 * ("sorted": c is in order already), refused with "refusal" when they
 * cannot take it all; price it, and test the price against the budget
 * (refused with least_price when over).
 */
extern void admit_place_static(const libra_ledger_t *l,
			       const libra_params_t *p,
			       const libra_sla_t *sla,
			       const libra_request_t *req, double now,
			       cand_t *c, int n, bool sorted,
			       libra_verdict_t refusal, libra_quote_t *q)
{
	if (admit_fill(c, n, req, q, sorted) < req->cpus) {
		q->verdict = refusal;
		q->nplace = 0;
		return;
	}
	admit_static_price(l, p, sla, req, now, q);
	if (admit_over_budget(p, sla, q->price)) {
		q->verdict = LIBRA_REJECT_BUDGET;
		q->least_price = q->price;
		q->nplace = 0;
	} else {
		q->verdict = LIBRA_ACCEPT;
	}
}

/* ------------------------------------------------------------- driver */

/* No more than this [MB] per CPU or node (an exbibyte): beyond it a request
 * is a mistake, and products of it with CPU counts stay in a uint64_t. */
#define LIBRA_MEM_MAX ((uint64_t) 1 << 40)

extern bool admit_demand_ok(const libra_request_t *req)
{
	const libra_demand_t *d = &req->demand;
	int mem_forms = (d->mem_per_cpu > 0) + (d->mem_per_node > 0) +
			d->mem_whole_node;

	return d->gpus >= 0 && d->gpus_per_node >= 0 &&
	       !(d->gpus > 0 && d->gpus_per_node > 0) && mem_forms <= 1 &&
	       d->mem_per_cpu <= LIBRA_MEM_MAX &&
	       d->mem_per_node <= LIBRA_MEM_MAX && d->tmp_mb <= LIBRA_MEM_MAX;
}

/* The largest and the most free of a resource counted in MB, over the
 * nodes that track it (total not 0). */
static void _mb_figures(uint64_t total, uint64_t free, uint64_t *largest,
			uint64_t *most_free)
{
	if (!total)
		return;
	if (total > *largest)
		*largest = total;
	if (free > *most_free)
		*most_free = free;
}

/* The figures of a memory, GPU or disk refusal (admit.h, libra_quote_t). */
static void _held_figures(const libra_ledger_t *l,
			  const libra_request_t *req, libra_quote_t *q)
{
	const libra_demand_t *d = &req->demand;
	int nodes = libra_ledger_node_count(l);

	for (int j = 0; j < nodes; j++) {
		int gpus = libra_ledger_node_gpus(l, j);
		int gpus_free = libra_ledger_node_gpus_free(l, j);

		if (!admit_eligible(l, req, j))
			continue;
		_mb_figures(libra_ledger_node_mem(l, j),
			    libra_ledger_node_mem_free(l, j),
			    &q->largest.mem_mb, &q->most_free.mem_mb);
		_mb_figures(libra_ledger_node_tmp(l, j),
			    libra_ledger_node_tmp_free(l, j),
			    &q->largest.tmp_mb, &q->most_free.tmp_mb);
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
	q->asked.tmp_mb = d->tmp_mb;
}

static void _dispatch(const libra_ledger_t *l, const libra_params_t *p,
		      const libra_sla_t *sla, const libra_request_t *req,
		      double now, cand_t *c, libra_quote_t *q)
{
	q->price_mem = 0.0;
	q->price_gpus = 0.0;
	q->price_disk = 0.0;
	switch (p->policy) {
	case LIBRA_POLICY_LIBRA_PRICE:
	case LIBRA_POLICY_AUTO:
		admit_market(l, p, sla, req, now, c, q);
		break;
	case LIBRA_POLICY_SLA:
		admit_sla(l, p, sla, req, now, c, q);
		break;
	case LIBRA_POLICY_RISKD:
		admit_riskd(l, p, sla, req, now, c, q);
		break;
	default:
		admit_libra(l, p, sla, req, now, c, q);
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
 * within the free job slots, memory, GPUs and scratch disk beside what is
 * held?  The nodes that can take the most first.  Admission at any
 * deadline needs this.
 */
extern bool admit_holds_now(const libra_ledger_t *l, const libra_request_t *req,
			    cand_t *c, libra_quote_t *q)
{
	int n = 0, nodes = libra_ledger_node_count(l);

	for (int j = 0; j < nodes; j++) {
		int k = admit_takeable(l, req, j);

		if (k > 0)
			admit_cand_init(l, &c[n++], j, k, -(double) k);
	}
	return admit_fill(c, n, req, q, false) == req->cpus;
}

const libra_verdict_t admit_limits[ADMIT_NLIMITS] = {
	LIBRA_REJECT_MEMORY, LIBRA_REJECT_GPUS, LIBRA_REJECT_DISK,
	LIBRA_REJECT_SLOTS
};

/*
 * A request refused for capacity (not budget): if the share would fit
 * without the job slots, memory, GPUs and scratch disk the nodes' jobs
 * hold, name the one that stands in the way: the one whose limit alone,
 * lifted, admits it (admit_limits: memory, then GPUs, then disk, then
 * slots); when only together, the first of memory, GPUs and disk asked.
 * Otherwise the share itself: the verdict stays.  Without memory, GPUs or
 * disk asked this is the slots test as before (decision 15).  Quotes
 * again into q: only its verdict is meaningful afterwards.
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
	if (!admit_asks_held(req))
		return LIBRA_REJECT_SLOTS;
	for (int k = 0; k < ADMIT_NLIMITS; k++) {
		if (!admit_asks_limit(req, admit_limits[k]))
			continue;
		r = admit_lifted(req, admit_limits[k]);
		if (_fits(l, p, sla, &r, now, c, q))
			return admit_limits[k];
	}
	return admit_first_limit(req);
}

/*
 * Is the memory, GPUs or disk that _refusal_cause() named free now, with
 * the job slots, on eligible nodes enough to hold the request?  Then
 * lifting them only let the request onto other nodes, and what it lacks
 * is CPU share on the nodes that have them (the GPU node busy with
 * admitted jobs while a node without GPUs has share to spare):
 * q->held_node names the first such node.  Quotes into q's places.
 */
static bool _held_free(const libra_ledger_t *l, const libra_request_t *req,
		       libra_verdict_t cause, cand_t *c, libra_quote_t *q)
{
	if (!admit_held_verdict(cause) ||
	    !admit_holds_now(l, req, c, q) || !q->nplace)
		return false;
	q->held_node = q->place[0].node;
	return true;
}

/* The policy's own quote, in resource cost: no mark-up, no due date. */
extern void admit_policy(const libra_ledger_t *l, const libra_params_t *p,
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
	q->price_disk = 0.0;
	q->rate_max = 0.0;
	q->least_price = 0.0;
	memset(&q->asked, 0, sizeof(q->asked));
	memset(&q->most_free, 0, sizeof(q->most_free));
	memset(&q->largest, 0, sizeof(q->largest));
	q->nplace = 0;
	q->held_node = -1;

	if (req->cpus < 1 || admit_min_nodes(req) > req->cpus ||
	    (req->max_nodes > 0 && req->max_nodes < admit_min_nodes(req)) ||
	    req->cpus_per_task < 0 || req->cpus_per_node < 0 ||
	    (req->cpus_per_task > 1 && req->cpus % req->cpus_per_task) ||
	    (req->cpus_per_node > 0 && req->cpus % req->cpus_per_node) ||
	    !admit_demand_ok(req) ||
	    !(sla->runtime > 0.0) || !(sla->deadline > now))
		return;
	q->share = sla->runtime / (sla->deadline - now);
	if (admit_asks_held(req))
		_held_figures(l, req, q);

	if (!admit_resources_ok(l, req)) {
		q->verdict = LIBRA_REJECT_RESOURCES;
		return;
	}
	if (q->share / libra_ledger_max_speed(l) > 1.0 + p->tolerance &&
	    !(p->policy == LIBRA_POLICY_RISKD && p->risk_thesis)) {
		/* not even a whole CPU of the fastest node finishes it in
		 * time (the thesis' LibraRiskD tries it: decision 49) */
		q->verdict = LIBRA_REJECT_DEADLINE;
		return;
	}
	c = malloc((size_t) (nodes ? nodes : 1) * sizeof(*c));
	if (!c) {
		q->verdict = LIBRA_REJECT_RESOURCES;
		return;
	}
	_dispatch(l, p, sla, req, now, c, q);
	if ((req->slots_per_cpu > 0 || admit_asks_held(req)) &&
	    q->verdict != LIBRA_ACCEPT && q->verdict != LIBRA_REJECT_BUDGET) {
		libra_verdict_t share = q->verdict;

		q->verdict = _refusal_cause(l, p, sla, req, now, c, q);
		if (_held_free(l, req, q->verdict, c, q))
			q->verdict = share;
		q->nplace = 0;
	}
	free(c);
}
