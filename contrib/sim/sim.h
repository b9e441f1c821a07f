/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sim.h - libra-sim: the trace-driven simulator's shared types.
 *
 *  The simulator runs the policy core of src/core (the very code the
 *  Slurm plugins run) on a real workload trace, next to the classic
 *  space-shared baselines of the Yeo thesis, and reports the thesis'
 *  metrics.  Its pieces:
 *
 *	main.c		options, the run loop, output
 *	policy.c	the policies' names and economic models
 *	workload.c	SWF trace -> jobs with synthesized QoS (thesis 3.5.1)
 *	timeshare.c	the Libra family, fixed, peak: time-shared, through
 *			the core
 *	backfill.c	FCFS-BF, SJF-BF, EDF-BF (EASY backfilling)
 *	firstreward.c	FirstReward (Irwin, Grit, Chase 2004; thesis 6.4.2)
 *	isqos.c		the ISQoS market: providers, offers, broker
 *	outcome.c	settle or reject a job (outcome.h)
 *	bags.c		bags of tasks (--bag-frac): their tasks on the
 *			space-shared engines, and what became of them
 *	squeue.c, pq.h	the space-shared engines' wait queue and event heap
 *	energy.c	power provisioning: node power states, the tariff's
 *			clock, the energy bill (--power; decision 24)
 *	alloc.c		allocate or exit (alloc.h)
 *	rng.c		the deterministic random numbers
 *
 *  main.c calls the engines; the engines call outcome.c, alloc.c and the
 *  core, never main.c.
 *
 *  Times inside the simulator are seconds since the submission of the
 *  first job of the simulated window (after the arrival delay factor), so
 *  that they stay small and precise in doubles.
\*****************************************************************************/

#ifndef LIBRA_SIM_H
#define LIBRA_SIM_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "bag.h"
#include "isqos.h"
#include "metrics.h"
#include "params.h"
#include "power.h"
#include "predict.h"
#include "sla.h"
#include "tariff.h"

typedef enum {
	SIM_FCFS_BF = 0,
	SIM_SJF_BF,
	SIM_EDF_BF,
	SIM_LIBRA,
	SIM_LIBRA_PRICE,
	SIM_LIBRA_SLA,
	SIM_LIBRA_RISKD,
	SIM_LIBRA_AUTO,
	SIM_FIRST_REWARD,
	SIM_FIXED,		/* thesis 7.2.4 Fixed, Libra's admission */
	SIM_PEAK,		/* FixedTime: peak/off-peak, each hour at its
				 * rate (design.md decision 3) */
	SIM_ISQOS,		/* the ISQoS market (decision 51) */
	SIM_POLICY_COUNT
} sim_policy_t;

/* --policy all runs the policies before this one (fixed and peak only by
 * name, so that its output is the one of earlier releases). */
#define SIM_POLICY_ALL SIM_FIXED

typedef enum {
	SIM_MODEL_DEFAULT = -1,	/* the policy's own (see sim_policy_model) */
	SIM_MODEL_COMMODITY = 0,
	SIM_MODEL_BID,
} sim_model_t;

typedef enum {
	SIM_EST_ACCURATE = 0,	/* RE = R */
	SIM_EST_TRACE,		/* RE = R + pct/100 (requested - R) */
	SIM_EST_UNDER,		/* RE = R (1 - pct/100) */
} sim_est_t;

/*
 * Whose money a job's budget and penalty rate are (--economy):
 * the site's, where both scale with the job's width, or the thesis', where
 * they are the job's own (workload.c).
 */
typedef enum {
	SIM_ECONOMY_SITE = 0,	/* B, PR x procs (design.md decision 3) */
	SIM_ECONOMY_THESIS,	/* per job, without the width (thesis 3.5.1) */
} sim_economy_t;

/* Memory per processor from the SWF (--memory; design.md decision 17). */
typedef enum {
	SIM_MEM_NONE = 0,	/* not read: no job asks memory */
	SIM_MEM_REQUESTED,	/* field 10, requested memory */
	SIM_MEM_USED,		/* field 7, used memory */
	SIM_MEM_EITHER,		/* requested where given, else used */
} sim_mem_t;

/* --synthetic exp:N:IA:RUN[:PROCS]: N jobs of PROCS processors, their
 * inter-arrival and run times exponential with means IA and RUN seconds
 * (workload.c) */
typedef struct sim_synthetic {
	long n;			/* 0: none, the trace's jobs */
	double mean_ia, mean_run;
	int procs;
} sim_synthetic_t;

/* --slots: chapter 7's advance reservations (slots.c) */
typedef enum {
	SIM_SLOTS_NONE = 0,
	SIM_SLOTS_SEQUENTIAL,	/* one node, the cheapest slot */
	SIM_SLOTS_PARALLEL,	/* all nodes at one start, the earliest */
} sim_slots_t;

/* --policy isqos, --isqos (isqos.c; doc/design.md decision 51): the
 * providers the machine is split among, the broker's filter, the price's
 * slope k, queued: the re-priced variant (only jobs not started count),
 * resched: Algorithm 1's Round Robin Rescheduling */
typedef struct sim_isqos_cfg {
	int providers;
	libra_isqos_t broker;
	double slope;
	bool queued;
	bool resched;
} sim_isqos_cfg_t;

typedef struct sim_config {
	const char *trace;
	sim_synthetic_t synthetic;	/* instead of the trace */
	sim_slots_t slots;		/* --slots; none: the engines below */
	bool slot_requested;		/* --slot-accept requested */
	double slot_cancel;		/* --slot-cancel F */
	int procs;		/* 0: from the trace header */
	long first, last;	/* window; 0: whole trace */
	bool all;		/* --policy all */
	sim_policy_t policy;
	sim_model_t model;

	/* workload synthesis (thesis Table 3.1, 4.1, 6.6) */
	double adf;		/* arrival delay factor */
	double high_pct;	/* % high urgency */
	double hard_pct;	/* % hard deadlines; < 0: the high-urgency jobs */
	double d_ratio, d_low;	/* deadline factor D/R: high:low, low mean */
	double b_ratio, b_low;	/* budget factor B/f(R) */
	double p_ratio, p_low;	/* penalty factor PR/g */
	double cv;		/* sd / mean of every factor */
	sim_economy_t economy;	/* whose money B and PR are */
	double bias_d, bias_b, bias_p;
	sim_est_t est;
	double est_pct;
	uint64_t seed;
	/* ISQoS due dates (doc/design.md decision 18): due = TSU + due_frac
	 * (TD - TSU), 0: none; due_rate: the z-curve falls at the job's
	 * penalty rate, else (the paper's) to 0 at the deadline */
	double due_frac;
	bool due_rate;
	/* ISQoS's penalty cap (doc/design.md decision 35): every job's
	 * penalty is at most penalty_cap x its budget; < 0: no cap */
	double penalty_cap;
	/* mark-up tier of every job (LIBRA_TIER_NONE: libra_markup), or
	 * tier_by_urgency: premium for high-urgency jobs, value for others */
	libra_tier_t tier;
	bool tier_by_urgency;
	/* memory: which SWF field a job's memory per processor comes from,
	 * and each (1-CPU) node's memory [MB]; time-shared policies only */
	sim_mem_t mem;
	uint64_t node_mem_mb;
	/* advance reservations (doc/design.md decision 21): each job books a
	 * start reserve_lead seconds after its submission with probability
	 * reserve_frac (0: none) */
	double reserve_frac;
	double reserve_lead;
	/* bags of tasks (doc/design.md decision 36): each job, with
	 * probability bag_frac (0: none), becomes a bag of bag.tasks tasks,
	 * at most bag.throttle at once (0: none), each task the job as the
	 * trace has it; bag_each: its tasks are submitted one by one, each
	 * with its own SLA (the bag's deadline, an N-th of its money) */
	double bag_frac;
	libra_bag_t bag;
	bool bag_each;
	/* runtime predictions (doc/design.md decision 22): the
	 * Libra family admits on predict_method's run time at quantile
	 * 1 - predict_risk of the users' finished jobs (NONE: on RE);
	 * predict_min finished jobs make a history; predict_hard_declared:
	 * hard-deadline jobs keep RE; the trace's jobs before the window
	 * seed the histories */
	libra_predict_method_t predict;
	double predict_risk;
	int predict_min;
	bool predict_hard_declared;
	bool predict_protect_off;	/* no protection of on-plan jobs */
	bool predict_soft_uncapped;	/* soft jobs' P up to their period */
	double predict_pace;	/* plan predicted work to end at this
				 * fraction of the deadline period */

	/* power provisioning (Sung 2006; doc/design.md decision
	 * 24): power_on: --power given (other than none); power: the core's
	 * heuristic, unless power_slurm (the simulator's own baseline,
	 * Slurm's SuspendTime: down after suspend_time idle, up on demand);
	 * the tariff, its clock at simulated time 0 (tariff_start, seconds
	 * of the tariff's day; < 0: from the trace header), and the
	 * controller's times [s] */
	bool power_on;
	bool power_slurm;
	libra_power_t power;
	libra_tariff_t tariff;
	char tariff_spec[LIBRA_TARIFF_PATH_MAX];
	long tariff_start;
	double power_interval, boot, shutdown, suspend_time;
	bool power_pace;	/* a deferred job's share aimed at the end
				 * of the tariff's stretch it begins in */
	int power_warm;		/* nodes kept powered and idle after each
				 * decision point (libra_power_warm; 0:
				 * none) */

	/* node speeds (--speeds; doc/design.md decision 43), time-shared
	 * policies only: node k's CPU runs speeds[k % nspeeds] times the
	 * reference CPU that run times and estimates are given in (NULL:
	 * every node at 1); speed_blind: the ledger is not told them
	 * (admission believes every node is the reference CPU), while the
	 * jobs still run at the nodes' speeds */
	double *speeds;
	int nspeeds;
	bool speed_blind;

	sim_isqos_cfg_t isqos;	/* --policy isqos */

	/* the core's parameters (alpha, beta, price_base, ...) */
	libra_params_t params;

	/* FirstReward */
	double fr_alpha, fr_discount, fr_slack;

	/* output */
	bool json;
	const char *csv;
	bool self_check;	/* cross-check the ledger (slow; for tests) */
	/* price probe (time-shared policies): every probe_every seconds
	 * while jobs arrive, quote probe_cpus CPUs x probe_runtime with a
	 * deadline probe_period later and no budget, commit nothing, and
	 * write a row to probe (NULL: no probe) */
	const char *probe_csv;
	FILE *probe;
	double probe_every, probe_runtime, probe_period;
	int probe_cpus;
} sim_config_t;

/* One job of the simulated window, with its synthesized QoS. */
typedef struct sim_job {
	long id;		/* SWF job number */
	double submit;		/* TSU [s since the window's first job] */
	double begin;		/* when it may start: TSU, or the booked
				 * begin of an advance reservation */
	bool reserved;		/* an advance reservation: begin > TSU */
	int procs;
	double runtime;		/* R: actual run time from the trace */
	double estimate;	/* RE */
	double deadline;	/* TD, absolute (a reservation's moves with
				 * its begin) */
	double budget;		/* B */
	double penalty_rate;	/* PR per hour */
	bool per_job;		/* --economy thesis: B and PR are the job's,
				 * not x procs (sim_job_scale()) */
	double due_date;	/* ISQoS due date, absolute; 0: none */
	bool due_rate;		/* the z-curve falls at PR (else to 0 at TD) */
	double penalty_cap;	/* the most its penalty can be; < 0: none */
	libra_tier_t tier;	/* mark-up tier */
	uint64_t mem_mb;	/* memory per processor [MB]; 0: none */
	bool high;		/* high urgency */
	bool hard;		/* hard deadline */
	int64_t user, group;	/* SWF fields 12 and 13; -1: unknown */
	/*
	 * --bag-frac: bag.tasks > 0 for a bag and for each of its tasks.  A
	 * bag (task -1) is the one job it is admitted as, of L = bag.lanes
	 * lanes x task_procs CPUs and W x the task's R and RE (procs,
	 * runtime, estimate above; libra_bag_sla()); its tasks are each
	 * task_procs CPUs, task_runtime, task_estimate.  A task (task 0 ..
	 * N - 1) is one job, its bag's tasks consecutive; gate: at most
	 * that many of its bag's tasks at once on the space-shared engines
	 * (Slurm's throttle), 0: none.
	 */
	libra_bag_t bag;
	int task;
	int gate;
	int task_procs;
	double task_runtime, task_estimate;
} sim_job_t;

/* A job of the trace before the window: the predictor's history. */
typedef struct sim_hist {
	int64_t user, group;
	double runtime, estimate;
} sim_hist_t;

typedef struct sim_workload {
	sim_job_t *jobs;
	size_t n;
	int procs;
	double t0;		/* trace time of the first job of the window */
	long skipped;		/* all skipped jobs of the trace */
	long skipped_runtime;	/* run time <= 0 */
	long skipped_procs;	/* no processor count */
	long skipped_wide;	/* wider than the machine */
	sim_hist_t *hist;	/* the usable jobs before the window, in
				 * submission order (R, and RE as
				 * --estimates makes it) */
	size_t nhist;
} sim_workload_t;

/* What became of one job under one policy. */
typedef struct sim_outcome {
	bool accepted;
	const char *verdict;	/* "accept", "deadline", "budget", ... */
	double start, end;	/* 0 when not run */
	double price;		/* quoted charge (commodity) or the bid */
	double charge;		/* earned: C if met (commodity), U (bid) */
	bool met;		/* deadline met */
	double predicted;	/* --predict: the run time it was quoted on
				 * (0: the policy does not predict) */
	int tasks_run;		/* a bag refused on a space-shared engine:
				 * how many of its tasks ran all the same */
} sim_outcome_t;

/* What powering the nodes cost in one run (--power). */
typedef struct sim_energy {
	const char *power;	/* the provisioning applied: "static" for
				 * the engines without a power model */
	long offset;		/* tariff.offset used */
	double span;		/* the bill covers [0, span]: the run's
				 * last event (a job's end or arrival) */
	double cost;		/* sum over nodes of the tariff over the
				 * time each was not off */
	double node_sec;	/* powered node-seconds */
	long ups, downs;	/* boots and shutdowns begun */
	long deferred;		/* jobs started later, in cheaper hours */
	long boot_waits;	/* jobs admitted to begin after a boot */
	long late_begins;	/* booked begins whose node was not up */
} sim_energy_t;

/* policy.c: the policies' names and economic models */
extern const char *sim_policy_name(sim_policy_t p);
extern bool sim_policy_from_name(const char *name, sim_policy_t *p);
extern sim_model_t sim_policy_model(sim_policy_t p);
/* Run by the time-shared engine through the core (the Libra family,
 * fixed, peak)? */
extern bool sim_policy_timeshared(sim_policy_t p);
extern const char *sim_model_name(sim_model_t m);

/* workload.c: returns 0, -1 (the trace cannot be read) or -2 (a usage
 * error: no processor count, a factor that cannot be drawn). */
extern int sim_workload_load(const sim_config_t *cfg, sim_workload_t *w,
			     char *err, size_t errlen);
extern void sim_workload_free(sim_workload_t *w);
/* --synthetic's value: 0, or -1 with a message. */
extern int sim_synthetic_parse(const char *s, sim_synthetic_t *syn,
			       char *err, size_t errlen);
/* What the core is given for each unit of the job's money under model
 * (workload.c): 1, or procs under --economy thesis and a commodity price. */
extern double sim_job_scale(const sim_job_t *j, sim_model_t model);
/* The SLA the core is given for j under model. */
extern void sim_job_sla(const sim_job_t *j, sim_model_t model,
			libra_sla_t *sla);
/* The job indices in the order they may start: by (begin, index); the
 * caller frees it.  Without reservations it is 0..n-1. */
extern size_t *sim_jobs_by_begin(const sim_workload_t *w);

/* bags.c: is j a bag (not one of its tasks)? */
extern bool sim_job_is_bag(const sim_job_t *j);
/* The CPU-seconds j runs (a bag: all its tasks'). */
extern double sim_job_work(const sim_job_t *j);
/* w's jobs with every bag replaced by its tasks, each an N-th of its money
 * (its deadline, due date and urgency as the bag's); gated: each task
 * carries the bag's throttle.  of[t]: the index in w of tw's job t (NULL:
 * not wanted).  tw->hist is NULL. */
extern void sim_bag_tasks(const sim_workload_t *w, bool gated,
			  sim_workload_t *tw, size_t **of);

/* What became of the bags of a run (the summary's bag fields). */
typedef struct sim_bag_stats {
	long bags;		/* bags submitted */
	long met;		/* every task ended by the deadline */
	long partial;		/* some of its tasks ran, others were refused */
	long tasks;		/* their tasks */
	long refused;		/* tasks that never ran */
	double profit;		/* the bags' (or their tasks') Cluster
				 * Profitability (metrics.h) */
} sim_bag_stats_t;
extern void sim_bag_stats(const sim_workload_t *w, const sim_outcome_t *out,
			  sim_bag_stats_t *st);

/* The ISQoS market's offer-quality measures (isqos.c): per accepted job
 * the means of the chosen offer's budget slack, profit, resilience and
 * profit rate (per hour), in the job's money; the top offer's price per
 * CPU-hour over the arrivals; the gaps between billings (ends). */
typedef struct sim_isqos_stats {
	int providers;
	long offers, accepted;
	double budget_slack, profit, resilience, profit_rate, going;
	double rate_mean, rate_sd, bill_gap, bill_gap_sd;
} sim_isqos_stats_t;
extern void sim_isqos_defaults(sim_isqos_cfg_t *c);
/* --isqos KEY=VALUE,...: 0, or -1 with a message */
extern int sim_isqos_parse(const char *spec, sim_isqos_cfg_t *c, char *err,
			   size_t errlen);
extern int sim_run_isqos(const sim_config_t *cfg, const sim_workload_t *w,
			 sim_model_t model, sim_outcome_t *out,
			 sim_isqos_stats_t *st, char *err, size_t errlen);

/* The engines; each fills out[0..n-1].  Return 0 or -1 with a message. */
extern int sim_run_timeshare(const sim_config_t *cfg,
			     const sim_workload_t *w, sim_policy_t policy,
			     sim_model_t model, sim_outcome_t *out,
			     sim_energy_t *en, char *err, size_t errlen);
extern int sim_run_backfill(const sim_config_t *cfg, const sim_workload_t *w,
			    sim_policy_t policy, sim_model_t model,
			    sim_outcome_t *out, char *err, size_t errlen);
extern int sim_run_firstreward(const sim_config_t *cfg,
			       const sim_workload_t *w, sim_model_t model,
			       sim_outcome_t *out, char *err, size_t errlen);
/* --slots: chapter 7's reservation service (fixed, peak, libra+$,
 * libra+$auto). */
extern int sim_run_slots(const sim_config_t *cfg, const sim_workload_t *w,
			 sim_policy_t policy, sim_outcome_t *out, char *err,
			 size_t errlen);
/* A space-shared engine (backfilling or FirstReward) on w: with bags (not
 * --bag-mode each), on their tasks, at most the throttle of a bag's at
 * once, each bag then settled once (bags.c). */
extern int sim_run_spaced(const sim_config_t *cfg, const sim_workload_t *w,
			  sim_policy_t policy, sim_model_t model,
			  sim_outcome_t *out, char *err, size_t errlen);

#endif /* LIBRA_SIM_H */
