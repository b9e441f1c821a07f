/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit.h - admission control and placement for the Libra family.
 *
 *  A job is admitted at submission or refused at once; there is no queue
 *  (Yeo thesis section 3.4.2).  An admitted job starts at once, time-shared,
 *  on the CPUs its admission counted on.  One call evaluates a request
 *  against the ledger and returns a quote: the verdict, the placement, the
 *  price.  It changes nothing; the caller commits the placement with
 *  libra_ledger_commit() when it accepts the quote.
 *
 *  The policies (names as in params.h):
 *
 *  libra, fixed, peak: a node can take k of the job's CPUs if
 *	node_share + k * s <= capacity * N,  s = RE / (TD - now),  k <= N
 *  (Libra's share test).  Nodes are taken best fit: least free share first,
 *  so that every CPU is filled to the brim before another is touched.  The
 *  price is static (libra), fixed or by time of day; a price above the
 *  budget is a budget refusal.
 *
 *  libra+$, libra+$auto: thesis Fig. 3.2.  Resources (enough CPUs up at
 *  all?), deadline (enough CPUs pass the share test?), budget.  Nodes are
 *  sorted by RESFree_ij ascending (best fit); each is priced with P_ij.
 *  A placement is affordable when every CPU's charge is within its part of
 *  the budget, RE * P_ij <= B / c (the thesis' per-node test with the
 *  budget of one CPU): the best fit if it is, else the best fit among the
 *  nodes that are (lines 18-29), else the cheapest nodes if they are, else
 *  a budget refusal.  The charge: LIBRA_CHARGE_CPU (default) sums RE * P_ij
 *  over the CPUs; LIBRA_CHARGE_THESIS charges every CPU the placement's
 *  highest rate, c * RE * max P_ij.  Both admit the same jobs on the same
 *  nodes (design.md decision 3).
 *  libra+$auto prices each node with its own adaptive beta (Fig. 7.1, see
 *  libra_auto_feedback()).
 *
 *  librasla: thesis Fig. 4.2/4.3.  A node is acceptable if its return does
 *  not fall by adding the job, and, for a hard deadline, the job's projected
 *  delay there is zero; and (beyond the thesis, which checks only the new
 *  job) no admitted hard-deadline job there would be delayed.  Nodes are taken by highest new return.  Bid-based:
 *  the price is the budget, reduced by the penalty if the job is late.
 *
 *  librariskd: thesis Fig. 5.1.  A node is acceptable if the risk of
 *  deadline delay sigma_j (std. dev. of DDY_i = (DY_i + remainD_i) /
 *  remainD_i, Eq. 5.2-5.4) stays <= risk_sigma and the mean DDY <= risk_mu.
 *  Delays are projected explicitly (thesis notes section 4.3: scaling every
 *  share alike gives sigma = 0 on an overloaded node): the node is simulated
 *  as weighted processor sharing, shares as weights, capacity handed back
 *  when a job completes, so jobs with later deadlines absorb more of an
 *  overload than jobs with earlier ones.  Nodes in index order (no best
 *  fit).  Price as Libra.  With risk_thesis (libra-sim only, decision 49)
 *  the test is Fig. 5.1's as written: sigma alone, no mean, and a job whose
 *  estimate exceeds its deadline is tried too (alone on a node its sigma
 *  is 0), not refused for its deadline first.
 *
 *  Advance reservations (doc/design.md decision 21): a request booked to
 *  begin later is quoted with "now" at its begin (share RE / (TD - begin),
 *  priced for [begin, TD]) and req->booked the real now.  Every share test
 *  above uses the node's load over the job's window, the most the ledger
 *  commits at any time in it (libra_ledger_node_peak_share()): a booked
 *  job weighs on a node only from its begin, so a job that ends before it
 *  is admitted beside it and one that would overlap it is refused where
 *  the two do not fit; a node's jobs that end before a booked job begins
 *  leave it their capacity.  Without booked jobs the load is the node
 *  share, and every decision is what it was.  LibraSLA's and LibraRiskD's
 *  projections count a booked job as if it ran from now (on the safe
 *  side).
 *
 *  Requests name a CPU count and optionally a node count range; a job puts
 *  at most N_j CPUs on a node (its tasks need distinct CPUs).
 *
 *  Memory and GPUs (doc/design.md decision 17) are space-shared: under
 *  every policy a node is a candidate only where the job's memory and GPUs
 *  fit beside what the jobs in the ledger hold now (admitted and running
 *  ones, best effort included), and with memory per CPU it takes no more
 *  CPUs than its free memory holds.  The job starts at once and holds
 *  them until it ends, so the test is of now, at any deadline.  Each place
 *  of the quote says what it holds there (libra_place_t), and the price
 *  adds what memory and GPUs cost (price.h).  Scratch disk (--tmp) is held
 *  as memory per node is: where a node's TmpDisk is tracked, the job's
 *  tmp_mb must be free there, or the node is no candidate ("disk" when
 *  that alone stands in the way).  A request that asks none
 *  (libra_demand_t all 0) is decided exactly as before memory was known.
\*****************************************************************************/

#ifndef LIBRA_ADMIT_H
#define LIBRA_ADMIT_H

#include <stdbool.h>

#include "ledger.h"
#include "params.h"
#include "sla.h"

typedef struct libra_request {
	int cpus;		/* CPUs in all */
	int min_nodes;		/* 0 or 1: any */
	int max_nodes;		/* 0: any */
	const bool *eligible;	/* per ledger node: may the job use it?
				 * NULL: every node (partition, --nodelist,
				 * --exclude are applied by the caller) */
	int cpus_per_task;	/* 0 or 1: any; a task's CPUs share a node, so
				 * a node takes a multiple of this */
	int cpus_per_node;	/* 0: any; else exactly this many on each node
				 * used (--ntasks-per-node x cpus per task) */
	int slots_per_cpu;	/* 0: any; else at most this many jobs may
				 * share a CPU (OverSubscribe=FORCE:N), so a
				 * node takes at most N * CPUs - CPUs in use */
	libra_demand_t demand;	/* memory and GPUs (ledger.h); all 0: none */
	double booked;		/* an advance reservation (decision 21):
				 * when it is being booked, the real now
				 * (> 0, as every time here), the
				 * admission's "now" being its begin; 0:
				 * the job may start at once */
} libra_request_t;

typedef enum {
	LIBRA_ACCEPT = 0,
	LIBRA_REJECT_RESOURCES,	/* not enough CPUs up, even on an idle cluster */
	LIBRA_REJECT_DEADLINE,	/* not enough free share to meet the deadline */
	LIBRA_REJECT_BUDGET,	/* every feasible placement costs too much */
	LIBRA_REJECT_RETURN,	/* LibraSLA: would lower the nodes' return */
	LIBRA_REJECT_RISK,	/* LibraRiskD: would raise the risk of delay */
	LIBRA_REJECT_INVALID,	/* bad request (no CPUs, deadline passed) */
	LIBRA_REJECT_SLOTS,	/* the share fits, but the nodes already run
				 * as many jobs as OverSubscribe allows */
	LIBRA_REJECT_MEMORY,	/* the share fits, but not beside the memory
				 * the nodes' jobs hold */
	LIBRA_REJECT_GPUS,	/* the share fits, but not beside the GPUs
				 * the nodes' jobs hold */
	LIBRA_REJECT_DUEDATE,	/* the deadline can be met, but the earliest
				 * completion the free share allows is past
				 * the due date's break-even point */
	LIBRA_REJECT_DISK,	/* the share fits, but not beside the scratch
				 * disk (TmpDisk) the nodes' jobs hold */
	LIBRA_REJECT_PROFIT,	/* the price would earn less per hour than
				 * libra_min_profit_rate (decision 51) */
} libra_verdict_t;

#define LIBRA_QUOTE_MAX_PLACES 4096

/* Memory [MB], GPUs and scratch disk [MB]: a figure of each for refusal
 * messages. */
typedef struct libra_amounts {
	uint64_t mem_mb;
	int gpus;
	uint64_t tmp_mb;
} libra_amounts_t;

typedef struct libra_quote {
	libra_verdict_t verdict;
	double share;		/* the job's share per CPU, RE / (TD - now) */
	double price;		/* the charge if the SLA is kept: CPUs, memory,
				 * GPUs and scratch disk together */
	double price_mem;	/* of which for memory */
	double price_gpus;	/* of which for GPUs */
	double price_disk;	/* of which for scratch disk */
	double rate_max;	/* highest per-CPU-second rate of the placement */
	double least_price;	/* budget refusals: the least budget with which
				 * the request is admitted now */
	/*
	 * ISQoS (doc/design.md decision 18).  The money figures above
	 * include the mark-up: price is the service price S = (1 + markup) R
	 * of the resource cost R the policy prices.
	 *   target:	  when the committed share finishes the estimate: the
	 *		  deadline, or with a due date the due date or the
	 *		  earliest time after it the free share allows;
	 *   charge_target: what completing at target costs the user: the
	 *		  price, less the due-date penalty past the due date
	 *		  (the z-curve, settle.h).
	 * Refused with LIBRA_REJECT_DUEDATE: target and charge_target are
	 * those of the earliest completion found, which the provider would
	 * sell at a loss (charge_target < R).
	 */
	double markup;
	double target;
	double charge_target;
	/*
	 * When the request asks memory, GPUs or scratch disk, over the
	 * eligible nodes that are up and track them (0 elsewhere), for
	 * messages such as "memory: 64G asked, at most 48G free on any
	 * eligible node":
	 *   asked:     what the job asks of one node: --mem; --mem-per-cpu
	 *		times the job's CPUs (times cpus_per_node when that is
	 *		set); --mem=0: the largest node's memory; GPUs per
	 *		node, or the job's GPUs in all when spread; --tmp;
	 *   most_free: the most any one node has free now;
	 *   largest:   the most any one node has at all (a "resources"
	 *		refusal: the job asks more than that).
	 */
	libra_amounts_t asked, most_free, largest;
	/*
	 * A capacity refusal of a request that asks memory, GPUs or scratch
	 * disk, when they and the job slots are free now on eligible nodes
	 * enough to hold it: the first such node (its CPU share is what is
	 * short there); else -1.
	 */
	int held_node;
	int nplace;
	libra_place_t place[LIBRA_QUOTE_MAX_PLACES];
} libra_quote_t;

/* "resources", "deadline", "budget", ..., "memory", "gpus", "disk" */
extern const char *libra_verdict_name(libra_verdict_t v);

/* A sentence for users, e.g. "not enough free CPU share to meet the
 * deadline". */
extern const char *libra_verdict_reason(libra_verdict_t v);

/*
 * Quote a request at time now.  sla must be complete (libra_sla_finish()).
 * Never changes the ledger.
 *
 * Around every policy, ISQoS (Kavanagh & Djemame 2014; doc/design.md
 * decision 18): the policy prices the resource cost R within the budget
 * B / (1 + markup) (the most a resource may cost, section 4.3), and the
 * quote's price is S = (1 + markup) R.  A job with a due date before its
 * deadline is quoted first with its share aimed at the due date (share
 * RE / (due - now)); if that is refused, at the earliest later target up
 * to the deadline that is admitted (a bisection to 1% of the due date to
 * deadline window, at least 1 s), and it is admitted there only if the
 * z-curve charge at that target still covers R (before the break-even
 * point); else LIBRA_REJECT_DUEDATE.  A job the deadline itself cannot
 * take is refused as without a due date.
 */
extern void libra_admit(const libra_ledger_t *l, const libra_params_t *p,
			const libra_sla_t *sla, const libra_request_t *req,
			double now, libra_quote_t *q);

/*
 * What the policy charges a reference job on one node now (design.md
 * decision 44, the metrics a provider watches): one CPU,
 * LIBRA_REFERENCE_RUNTIME seconds of reference CPU, deadline
 * LIBRA_REFERENCE_PERIOD after now, no memory, GPUs or disk, before any
 * ISQoS mark-up: under Libra+$ and Libra+$Auto the node's own rate (Eq.
 * 3.3 with its PBase_j, beta and speed), as admit_market() prices a CPU
 * placed there; under every other policy the static price at the node's
 * base price factor (LibraSLA's bid without a budget).  NAN where the
 * node's free CPU time in the window cannot take the job (Eq. 3.5 <= 0).
 * The node's fit is not tested otherwise (its state, its share: the
 * metrics say those).  q is scratch space (its place array is large).
 */
#define LIBRA_REFERENCE_RUNTIME 3600.0
#define LIBRA_REFERENCE_PERIOD	7200.0
extern double libra_reference_price(const libra_ledger_t *l,
				    const libra_params_t *p, int node,
				    double now, libra_quote_t *q);

/*
 * The SLA a caller commits and records once it takes an accepted quote:
 * sla with the quote's target (LIBRA_SLA_TARGET) when that is before the
 * deadline (else without one: a re-admission may aim at the deadline), so
 * that libra_ledger_commit() aims the share at it and libra_settle() knows
 * what was agreed.  A refused quote changes nothing.
 */
extern void libra_sla_accept(libra_sla_t *sla, const libra_quote_t *q);

/*
 * Libra+$Auto (thesis Fig. 7.1, adapted to time sharing): after each
 * request, adjust every node's beta from the average beta of the nodes the
 * request was placed on (all nodes when it was refused), raising it when the
 * request met its budget and lowering it otherwise, more so where a node is
 * fuller (ratioFree = N / free share) or emptier (ratioReserved = used
 * share / N).  Bounded by [beta_min, beta_max].  No-op for other policies.
 */
extern void libra_auto_feedback(libra_ledger_t *l, const libra_params_t *p,
				const libra_quote_t *q, double now);

/*
 * LibraRiskD's deadline-delay metric (Eq. 5.2): DDY = (DY + remainD) /
 * remainD, 1 for no delay (also when remainD <= 0, where it is undefined).
 * DY = 20 s, remainD = 5 s gives 5; remainD = 10 s gives 3.
 */
extern double libra_ddy(double delay, double remaining);

/* Counter-offer for a refused request (ISQoS advisory offers). */
typedef struct libra_offer {
	bool has_deadline;	/* a later deadline that fits the budget */
	double deadline;	/* absolute */
	double due_date;	/* with a due date: the offered one, as far
				 * after the user's as the deadline is */
	double deadline_price;
	bool has_budget;	/* the least budget at the user's deadline */
	double budget;
	libra_verdict_t blocked_by;	/* LIBRA_REJECT_MEMORY, _GPUS or
				 * _DISK: the memory, GPUs or scratch disk
				 * free now cannot hold the job on any of its
				 * nodes, whatever its deadline and share: no
				 * later deadline nor budget helps until jobs
				 * end, and none is offered;
				 * LIBRA_REJECT_SLOTS likewise for job slots
				 * (informative: the search still runs, as
				 * before memory was known); else
				 * LIBRA_ACCEPT */
	bool cut;		/* the search for a later deadline stopped at
				 * its time limit (libra_counter_offer_within):
				 * without has_deadline, a later deadline was
				 * neither found nor ruled out; with it, the
				 * deadline offered is admitted but may not be
				 * the earliest */
} libra_offer_t;

/*
 * Search for (a) the earliest deadline, not before the requested one and
 * within max_period of submission, at which the request is admitted within
 * its budget (a due date moves with it, by as much) (resolution: 1% of the period, at least one minute), and (b)
 * when the request is refused on budget, the least budget with which it is
 * admitted at the requested deadline (checked by a second quote).  Neither
 * when memory, GPUs or scratch disk stand in the way (o->blocked_by): a
 * later deadline lowers the share, never what a job holds.
 */
extern void libra_counter_offer(const libra_ledger_t *l,
				const libra_params_t *p,
				const libra_sla_t *sla,
				const libra_request_t *req, double now,
				double max_period, libra_offer_t *o);

/*
 * Under slurmctld's locks a search must be short: the same
 * search, but a step of it (one libra_admit()) is not begun when the time
 * since the call (the least-budget quotes included) plus the longest step
 * so far, counted twice for the last check of a deadline found, would
 * pass max_seconds of the calling thread's CPU time (so that preemption
 * on a loaded machine does not cut a search short; <= 0: no limit,
 * libra_counter_offer()).  Stopped, it says so (o->cut) and offers what
 * it has.  A budget that no deadline can fit (below the least price the
 * policy charges at any deadline) is answered without a search, as the
 * search would answer it.  LIBRA_SEARCH_SECONDS is job_submit/qos's
 * limit, for this and for libra_next_slot_within(): at 10,000 nodes and
 * 100,000 jobs a Libra+$ admission takes about 1.2 ms, so 4 ms lets most
 * searches that find a later deadline offer it (69% of bench-admit's
 * "found" probes, 6% at 3 ms) at a p99 of 4.5 ms.
 */
#define LIBRA_SEARCH_SECONDS 0.004

extern void libra_counter_offer_within(const libra_ledger_t *l,
				       const libra_params_t *p,
				       const libra_sla_t *sla,
				       const libra_request_t *req,
				       double now, double max_period,
				       double max_seconds, libra_offer_t *o);

/*
 * The counter-offer to a job refused for the going rate
 * (LIBRA_REJECT_PROFIT, libra_min_profit_rate; doc/design.md decision 51):
 * no later deadline or larger budget raises the mark-up's profit, a tier
 * with a higher mark-up does.  The lowest tier above the job's own under
 * which libra_admit() accepts it, its quote in q; LIBRA_TIER_NONE, and q
 * the last tier's refusal, when none does.
 */
extern libra_tier_t libra_tier_offer(const libra_ledger_t *l,
				     const libra_params_t *p,
				     const libra_sla_t *sla,
				     const libra_request_t *req, double now,
				     libra_quote_t *q);

/*
 * The next free slot (thesis chapter 7's reservations; decision 21): for
 * a request refused for its window [now, deadline] ("now" its begin when
 * it is booked, req->booked then the real now), the earliest later begin,
 * within max_delay, at which the same request with a window as long (its
 * deadline and due date moved by as much) is admitted within its budget,
 * as an advance reservation.  The slots tried are the whole seconds at
 * which committed shares on the eligible nodes fall (their jobs' targets),
 * earliest first, at most LIBRA_SLOT_TRIES of them: a free slot that opens
 * elsewhere (between two targets), or later, is not found.  Each try is
 * one libra_admit(), under job_submit's locks in the plugin, so the tries
 * are few.  Returns true with the begin, deadline and price of the slot.
 */
#define LIBRA_SLOT_TRIES 8

typedef struct libra_slot {
	double begin;
	double deadline;
	double price;
	bool cut;	/* libra_next_slot_within() stopped at its time limit
			 * before trying every candidate begin: none found
			 * among those tried, a later one may exist */
} libra_slot_t;

extern bool libra_next_slot(const libra_ledger_t *l, const libra_params_t *p,
			    const libra_sla_t *sla, const libra_request_t *req,
			    double now, double max_delay, libra_slot_t *slot);

/* The same within max_seconds (as libra_counter_offer_within(); <= 0: no
 * limit): a try is not begun when it would likely end past it. */
extern bool libra_next_slot_within(const libra_ledger_t *l,
				   const libra_params_t *p,
				   const libra_sla_t *sla,
				   const libra_request_t *req, double now,
				   double max_delay, double max_seconds,
				   libra_slot_t *slot);

/*
 * Does a job asking demand d fit on the node with "cpus" of its CPUs there,
 * beside the memory, GPUs and scratch disk held now, by running jobs and by
 * admitted jobs not started yet (a hold, a dependency)?  True where the
 * node tracks none of them, or d asks nothing.  For a job without an
 * admission, which Slurm places itself: sched/libra starts it only on
 * nodes where this holds, so that it never takes what an admitted job
 * holds (design.md decision 17).
 */
extern bool libra_admit_held_fits(const libra_ledger_t *l,
				  const libra_demand_t *d, int node, int cpus);

/*
 * Admission under a power plan (design.md decision 24): the one rule that
 * job_submit/qos and libra-sim both follow (admit_power.c).  The caller
 * says which of its nodes can be up by a time; the core chooses the start
 * (the tariff's cheapest feasible one first, a boot's end when only
 * powered-down nodes can take the job) and quotes it there.
 */
typedef int (*libra_power_ready_fn)(void *arg, double at, bool *mask);
				/* fill mask[k]: may the job use node k, up
				 * by "at"?  Returns how many nodes it may
				 * not use for want of power alone */

typedef struct libra_power_plan {
	const libra_ledger_t *l;
	const libra_params_t *p;
	const libra_power_cfg_t *cfg;	/* the heuristic, boot, shutdown */
	const libra_tariff_t *tariff;
	bool pace;		/* a deferred job's deadline is paced to the end
				 * of the tariff's stretch it begins in (not
				 * with a due date) */
	int max_starts;		/* the candidate starts tried at most (the
				 * cheapest first); <= 0: all */
	libra_power_ready_fn ready;
	void *arg;		/* ready()'s */
	bool *mask;		/* one per ledger node, ready() fills it */
} libra_power_plan_t;

typedef struct libra_power_choice {
	double begin;		/* the start taken (accepted), else earliest */
	bool deferred;		/* the plan chose a later, cheaper start */
	bool boot;		/* it waits for a boot (and a shutdown) */
} libra_power_choice_t;

/*
 * Quote the job at each of its candidate starts, from "earliest" (its own
 * begin) on: q holds the accepted quote, made with req->eligible = the
 * plan's mask and req->booked set for a later start, and *sla is what to
 * commit (its deadline paced under plan->pace); refused, q's verdict is
 * that of the widest quote at "earliest".
 */
extern void libra_admit_power(const libra_power_plan_t *plan,
			      libra_sla_t *sla, libra_request_t *req,
			      double now, double earliest, libra_quote_t *q,
			      libra_power_choice_t *out);

/*
 * A planned start at a busy site (design.md decision 39).  Some nodes the
 * job may use are taken until free_at[k] by work the ledger does not
 * hold (in the plugins, jobs without an SLA that do not share their CPUs,
 * until their time limits; 0 or earlier than "earliest": free).  A job
 * the free nodes refused at "earliest" is quoted as a booking (req->booked
 * = now) from each later time an eligible node frees, earliest first, at
 * most LIBRA_SLOT_TRIES of them before its deadline, on the nodes free by
 * then: the first accepted is its planned start, and q, req->eligible (=
 * mask) and req->booked are what it was admitted with.  Refused at every
 * one, the next free slot is the first of those times (any, not only
 * before the deadline) from which the same window, its deadline and due
 * date moved by as much, is admitted; q is then the last quote tried and
 * req is as it came.  mask: one per ledger node, filled here.  Within
 * max_seconds (as libra_counter_offer_within(); <= 0: no limit): a quote
 * is not begun when it would likely end past it, and out->cut says the
 * search stopped there.
 */
typedef struct libra_planned {
	bool accepted;
	double begin;		/* accepted: the planned start */
	bool slot_found;
	libra_slot_t slot;	/* refused: the next free slot */
	bool cut;		/* stopped at max_seconds before trying every
				 * time */
} libra_planned_t;

extern void libra_admit_when_free(const libra_ledger_t *l,
				  const libra_params_t *p,
				  const libra_sla_t *sla, libra_request_t *req,
				  const double *free_at, bool *mask,
				  double now, double earliest,
				  double max_seconds, libra_quote_t *q,
				  libra_planned_t *out);

#endif /* LIBRA_ADMIT_H */
