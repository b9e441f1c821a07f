/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit_int.h - internal to the admission code (admit.c, admit_*.c), not
 *  part of the core's API: the candidate node the policies build, the
 *  small helpers every policy calls for each node (inline, as they were
 *  in admit.c), and the steps the files share, each described where it
 *  is defined, in the file named above its declaration.  Hidden from
 *  libslurm_libra.so's exported symbols, which stay the core's libra_*
 *  functions.
\*****************************************************************************/

#ifndef LIBRA_ADMIT_INT_H
#define LIBRA_ADMIT_INT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "admit.h"

#pragma GCC visibility push(hidden)

typedef struct {
	int node;
	int room;	/* most CPUs of the job the node can take */
	double key;	/* sort key, ascending */
	double rate;	/* per-CPU-second rate for one CPU (priced policies) */
	double held;	/* Libra+$: the job's memory, GPUs and scratch disk
			 * at this node's rates, 0 when not priced */
	uint64_t mem_free;	/* the node's free memory [MB], or
				 * LIBRA_MEM_UNTRACKED */
	int gpus_free;	/* the node's free GPUs */
	bool tmp_tracked;	/* the node's scratch disk is tracked */
} cand_t;

/*
 * Small helpers of admit.c's that the policies call for each node or
 * candidate: here, inline, so that the policies' files call them as
 * cheaply as admit.c did (its compiler inlined them).
 */
static inline bool admit_asks_mem(const libra_request_t *req)
{
	return req->demand.mem_per_cpu || req->demand.mem_per_node ||
	       req->demand.mem_whole_node;
}

static inline bool admit_asks_gpus(const libra_request_t *req)
{
	return req->demand.gpus_per_node > 0 || req->demand.gpus > 0;
}

static inline bool admit_asks_tmp(const libra_request_t *req)
{
	return req->demand.tmp_mb > 0;
}

static inline bool admit_asks_held(const libra_request_t *req)
{
	return admit_asks_mem(req) || admit_asks_gpus(req) ||
	       admit_asks_tmp(req);
}

/*
 * The limits besides the CPU share that a capacity refusal may name, in
 * the order they are tried (admit.c, _refusal_cause(); admit_offers.c,
 * the offer's blocked_by): memory, GPUs, scratch disk, job slots.
 */
#define ADMIT_NLIMITS 4
extern const libra_verdict_t admit_limits[ADMIT_NLIMITS];

/* Does the request ask what the limit v (one of admit_limits) counts? */
static inline bool admit_asks_limit(const libra_request_t *req,
				    libra_verdict_t v)
{
	switch (v) {
	case LIBRA_REJECT_MEMORY:
		return admit_asks_mem(req);
	case LIBRA_REJECT_GPUS:
		return admit_asks_gpus(req);
	case LIBRA_REJECT_DISK:
		return admit_asks_tmp(req);
	case LIBRA_REJECT_SLOTS:
		return req->slots_per_cpu > 0;
	default:
		return false;
	}
}

/* The request with the limit v (one of admit_limits) lifted. */
static inline libra_request_t admit_lifted(const libra_request_t *req,
					   libra_verdict_t v)
{
	libra_request_t r = *req;

	switch (v) {
	case LIBRA_REJECT_MEMORY:
		r.demand.mem_per_cpu = 0;
		r.demand.mem_per_node = 0;
		r.demand.mem_whole_node = false;
		break;
	case LIBRA_REJECT_GPUS:
		r.demand.gpus_per_node = 0;
		r.demand.gpus = 0;
		break;
	case LIBRA_REJECT_DISK:
		r.demand.tmp_mb = 0;
		break;
	case LIBRA_REJECT_SLOTS:
		r.slots_per_cpu = 0;
		break;
	default:
		break;
	}
	return r;
}

/* The first of the limits the request asks (job slots when none): what
 * a refusal names when only lifting several together admits it. */
static inline libra_verdict_t admit_first_limit(const libra_request_t *req)
{
	for (int k = 0; k < ADMIT_NLIMITS; k++)
		if (admit_asks_limit(req, admit_limits[k]))
			return admit_limits[k];
	return LIBRA_REJECT_SLOTS;
}

/* Is v a refusal for what jobs hold until they end (memory, GPUs,
 * scratch disk), which no later deadline frees? */
static inline bool admit_held_verdict(libra_verdict_t v)
{
	return v == LIBRA_REJECT_MEMORY || v == LIBRA_REJECT_GPUS ||
	       v == LIBRA_REJECT_DISK;
}

/* Is the node up and one the job may use (partition, -w, -x)? */
static inline bool admit_eligible(const libra_ledger_t *l,
				  const libra_request_t *req, int node)
{
	return libra_ledger_node_up(l, node) &&
	       (!req->eligible || req->eligible[node]);
}

/* A candidate: node, room, sort key, its free memory and GPUs, and
 * whether it tracks scratch disk. */
static inline void admit_cand_init(const libra_ledger_t *l, cand_t *c,
				   int node, int room, double key)
{
	c->node = node;
	c->room = room;
	c->key = key;
	c->rate = 0.0;
	c->held = 0.0;
	c->mem_free = libra_ledger_node_mem_free(l, node);
	c->gpus_free = libra_ledger_node_gpus_free(l, node);
	c->tmp_tracked = libra_ledger_node_tmp(l, node) != 0;
}

static inline bool admit_over_budget(const libra_params_t *p,
				     const libra_sla_t *sla, double price)
{
	return libra_sla_has_budget(sla) &&
	       price > sla->budget + p->tolerance * fmax(1.0, sla->budget);
}

/* admit.c: the steps common to every policy */
extern int admit_min_nodes(const libra_request_t *req);
extern int admit_fill(cand_t *c, int n, const libra_request_t *req,
		      libra_quote_t *q, bool sorted);
extern int admit_takeable(const libra_ledger_t *l,
			  const libra_request_t *req, int node);
extern int admit_room(const libra_ledger_t *l, const libra_params_t *p,
		      const libra_request_t *req, int node, double s,
		      double now, double until, double *free_out);
extern bool admit_resources_ok(const libra_ledger_t *l,
			       const libra_request_t *req);
extern void admit_static_price(const libra_ledger_t *l,
			       const libra_params_t *p,
			       const libra_sla_t *sla,
			       const libra_request_t *req, double now,
			       libra_quote_t *q);
extern void admit_place_static(const libra_ledger_t *l,
			       const libra_params_t *p,
			       const libra_sla_t *sla,
			       const libra_request_t *req, double now,
			       cand_t *c, int n, bool sorted,
			       libra_verdict_t refusal, libra_quote_t *q);

/* admit.c: the driver */
extern bool admit_demand_ok(const libra_request_t *req);
extern bool admit_holds_now(const libra_ledger_t *l,
			    const libra_request_t *req, cand_t *c,
			    libra_quote_t *q);
extern void admit_policy(const libra_ledger_t *l, const libra_params_t *p,
			 const libra_sla_t *sla, const libra_request_t *req,
			 double now, libra_quote_t *q);

/* One policy's admission over the candidates admit_policy() gathered. */
typedef void admit_fn_t(const libra_ledger_t *l, const libra_params_t *p,
			const libra_sla_t *sla, const libra_request_t *req,
			double now, cand_t *c, libra_quote_t *q);

/* admit_price.c: Libra, fixed, peak (admit_libra); Libra+$, Libra+$Auto
 * (admit_market) */
extern admit_fn_t admit_libra, admit_market;
extern void admit_price_held(const libra_ledger_t *l,
			     const libra_params_t *p, const libra_sla_t *sla,
			     double now, bool market, libra_quote_t *q);

/* admit_sla.c: LibraSLA */
extern admit_fn_t admit_sla;

/* admit_riskd.c: LibraRiskD */
extern admit_fn_t admit_riskd;

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
} admit_clock_t;

static inline double admit_cpu_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline void admit_clock_start(admit_clock_t *c, double limit)
{
	c->limit = limit;
	c->longest = 0.0;
	c->start = c->last = limit > 0.0 ? admit_cpu_now() : 0.0;
}

/* A step begins here (what came before is no step of the search).  The
 * time since the start still counts against the limit. */
static inline void admit_clock_mark(admit_clock_t *c)
{
	if (c->limit > 0.0)
		c->last = admit_cpu_now();
}

/* Before a step: would it, and steps - 1 more, likely end past the limit?
 * The time since the last call is a step. */
static inline bool admit_clock_out(admit_clock_t *c, int steps)
{
	double t;

	if (!(c->limit > 0.0))
		return false;
	t = admit_cpu_now();
	if (t - c->last > c->longest)
		c->longest = t - c->last;
	c->last = t;
	return t - c->start + steps * c->longest > c->limit;
}

/* The same SLA window moved "shift" seconds later: its submission,
 * deadline and due date (when set), as the next free slot offers it. */
static inline libra_sla_t admit_sla_shifted(const libra_sla_t *sla,
					    double shift)
{
	libra_sla_t s = *sla;

	s.submit += shift;
	s.deadline += shift;
	if (s.set & LIBRA_SLA_DUEDATE)
		s.due_date += shift;
	return s;
}

#pragma GCC visibility pop

#endif /* LIBRA_ADMIT_INT_H */
