/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  price.h - what a job costs: Libra's static price, Libra+$'s supply and
 *  demand price, fixed and peak/off-peak rates.
 *
 *  Libra+$ (Yeo thesis Eq. 3.3-3.6, Yeo & Buyya eq. 3-6) prices a unit of
 *  processor time of job i on node j as
 *
 *	P_ij     = alpha * PBase_j + beta * PUtil_ij			(3.3)
 *	PUtil_ij = RESMax_j / RESFree_ij * PBase_j			(3.4)
 *	RESFree_ij = RESMax_j - committed_j - RES_i			(3.5/3.6)
 *
 *  over the window [now, TD_i]: RESMax_j = N_j * (TD_i - now) CPU-seconds
 *  for a node of N_j CPUs, RES_i = c_ij * RE_i for the c_ij CPUs the job
 *  would use there, and committed_j is either the remaining committed work
 *  inside the window (LIBRA_RESFREE_WINDOW, the default: ISQoS found that
 *  pricing on completed work makes prices jump when jobs end) or the full
 *  runtime estimates of the jobs running there (LIBRA_RESFREE_THESIS, Eq.
 *  3.6 as written).  RESFree <= 0 means the node cannot take the job: it is
 *  never priced (the paper checks resources before pricing).
 *
 *  Worked example (thesis section 3.4.1): 10 units needed, PBase 1, 100
 *  free units per hour, 90 committed.  Deadline 2 h: 200 / (200-90-10) = 2;
 *  deadline 5 h: 500 / (500-90-10) = 1.25.
 *
 *  Since RESFree <= RESMax, PUtil >= PBase and P >= (alpha + beta) PBase.
 *
 *  Libra's own price (thesis section 3.5.2) is static:
 *	C_i = gamma * RE_i + delta * RE_i / D_i
 *  with gamma = delta = 1 in the thesis, where RE is in seconds and prices
 *  are $1 per CPU-second.  We scale it by PBase per CPU-second so that it is
 *  in the same currency as the other policies: C = PBase_s (gamma RE +
 *  delta RE/D); with PBase = $3600 per CPU-hour it is the thesis' formula.
 *
 *  Memory, GPUs and scratch disk (doc/design.md decision 17; thesis
 *  section 3.4.1: "the overall pricing rate ... can be computed as the sum
 *  of each P_ij", the disk priced per GB) are space-shared: a job holds r
 *  units (MB, GPUs, MB of TmpDisk) of node j from its admission until it
 *  ends, at the latest TD_i at its share.  Eq. 3.3-3.5 are read for such a
 *  resource over the same window [now, TD_i]:
 *
 *	RESMax_j    = R_j * (TD_i - now)	R_j: the node's memory, GPUs
 *						or TmpDisk
 *	committed_j = what the node's jobs hold inside the window
 *	PUtil_j     = RESMax_j / (RESMax_j - committed_j) * PBase
 *	P_j         = alpha * PBase + beta * PUtil_j
 *
 *  and the job pays r * (TD_i - now) * P_j for it.  Unlike Eq. 3.5 the
 *  job's own r is not subtracted from RESFree: a space-shared resource may
 *  rightly be taken whole (--mem=0, a node's last GPU), which Eq. 3.5
 *  would price at infinity; the fit test, not the price, decides what
 *  fits.  So the rate per unit is the node's utilisation before the job,
 *  the same for every job on the node, and a job asking more pays more
 *  in proportion.  Example: a node of 4 GPUs, 2 held through the whole
 *  window, alpha = 1, beta = 0.1, PBase = 2 per GPU-hour: PUtil = 4/2 * 2
 *  = 4, P = 2 + 0.4 = 2.4 per GPU-hour; 1 GPU for a 3 h window pays 7.2.
 *  Static policies (libra, fixed, peak, librariskd, librasla without a
 *  budget) charge the base price, r * (TD_i - now) * PBase.
 *
 *  Price damping (ISQoS, Kavanagh & Djemame 2014 section 6.3.3: "an
 *  incremental step change from the previous price", yet responsive at
 *  the end of a peak; doc/design.md decision 19).  Off by default
 *  (libra_price_damping = 0: every price as above, byte for byte).  With
 *  a time constant tau > 0 the CPU price of Libra+$ and Libra+$Auto sees
 *  the node's demand smoothed over time instead of the demand at the
 *  instant of the quote.  Each node keeps an exponentially weighted
 *  average of its load S_j = committed share / CPUs, brought forward at
 *  every admission decision (libra_price_feedback()):
 *
 *	avg_j(now) = S_j(now) + (avg_j(t) - S_j(now)) exp(-(now - t) / tau)
 *
 *  and Eq. 3.5's demand term is moved by the part of the load that the
 *  average has not caught up with yet:
 *
 *	RESFree~_ij = RESFree_ij + RESMax_j (S_j(now) - avg_j(now))
 *
 *  bounded to [min(RESFree_ij, RES_i), RESMax_j - RES_i]: no busier than
 *  a node the job just fills (where the load has fallen the average is
 *  above it, and Eq. 3.4 would otherwise price a node the job fits at
 *  infinity), no emptier than an idle node.  A rise of demand so reaches
 *  the price over about tau, and so does a fall: after a time tau the
 *  price has made 63% of a step.  The damped RESFree enters Eq. 3.4 only:
 *  which nodes can take the job and the best-fit order use the raw
 *  RESFree, so admission and placement are the same; the budget test sees
 *  the damped price.  Memory and GPU rates are not damped.
 *
 *  Rates are per CPU-second, per MB-second (memory, scratch disk) and per
 *  GPU-second.
\*****************************************************************************/

#ifndef LIBRA_PRICE_H
#define LIBRA_PRICE_H

#include "ledger.h"
#include "params.h"

/* The generic Eq. 3.4 utilisation price; res_free <= 0 returns +inf. */
extern double libra_putil(double res_max, double res_free, double price_base);

/*
 * RESFree_ij of job i (c CPUs on node, estimate runtime, deadline TD) at
 * time now under p->resfree.  May be <= 0 (node infeasible).
 */
extern double libra_res_free(const libra_ledger_t *l, const libra_params_t *p,
			     int node, int cpus, double runtime, double now,
			     double deadline);

/* RESMax_j over [now, deadline]. */
extern double libra_res_max(const libra_ledger_t *l, int node, double now,
			    double deadline);

/* The node's smoothed load at now (see above); S_j itself when damping is
 * off or the node has no average yet. */
extern double libra_load_smoothed(const libra_ledger_t *l,
				  const libra_params_t *p, int node,
				  double now);

/*
 * The RESFree that Eq. 3.4 prices (see above): res_free itself when
 * damping is off or res_free <= 0 (the node cannot take the job).
 * res_max is RESMax_j over the job's window, res_i = c * RE its own work.
 */
extern double libra_res_free_priced(const libra_ledger_t *l,
				    const libra_params_t *p, int node,
				    double now, double res_max,
				    double res_free, double res_i);

/*
 * Bring every node's smoothed load forward to now (see above).  Called
 * after each admission decision, accepted or not, next to
 * libra_auto_feedback(); nothing when damping is off.
 */
extern void libra_price_feedback(libra_ledger_t *l, const libra_params_t *p,
				 double now);

/*
 * PBase per CPU-second for a job that runs over [from, to).  With
 * libra_tariff_price (decision 24) it follows the power tariff: PBase x
 * (the tariff's mean rate over the window) / (its mean over a day), so
 * that work planned in cheaper hours is quoted cheaper; otherwise, and
 * with no tariff, libra_price_base_per_sec().  Libra+$ and Libra+$Auto
 * use it for both terms of Eq. 3.3.
 */
extern double libra_price_base_window(const libra_params_t *p, double from,
				      double to);

/*
 * Libra+$ rate P_ij per CPU-second with the given beta (Libra+$Auto passes
 * its per-node beta).  +inf when the node cannot take the job.
 */
extern double libra_rate(const libra_ledger_t *l, const libra_params_t *p,
			 double beta, int node, int cpus, double runtime,
			 double now, double deadline);

/*
 * Libra+$ rates of memory (per MB-second), GPUs (per GPU-second) and
 * scratch disk (per MB-second) on the node for a job with deadline TD
 * admitted at now (see above; beta as for libra_rate()).  0 where that
 * price is 0 (the defaults); +inf when the node's resource is all held
 * through the window (nothing left to take).  A node whose memory or
 * scratch disk is not tracked has no utilisation of it: alpha * PBase.
 */
extern void libra_held_rates(const libra_ledger_t *l, const libra_params_t *p,
			     double beta, int node, double now,
			     double deadline, double *mem_rate,
			     double *gpu_rate, double *tmp_rate);

/* Libra's static price for one CPU: PBase_s (gamma RE + delta RE / D). */
extern double libra_static_price(const libra_params_t *p, double runtime,
				 double period);

/* Fixed or peak/off-peak rate per CPU-second at time "when": the hour is
 * read on the tariff's clock, when + p->tariff.offset (tariff.h). */
extern double libra_time_rate(const libra_params_t *p, double when);

/*
 * What one CPU used throughout [from, to) costs at the fixed or
 * peak/off-peak rate: each hour at its own rate (thesis section 7.2.4,
 * FixedTime charges "at all times of resource usage"), the integral of
 * libra_time_rate().  0 when to <= from.  Example: peak 12-24 at 3, else
 * 1 per CPU-hour, [11:00, 13:00) costs 1 + 3 = 4.
 */
extern double libra_time_cost(const libra_params_t *p, double from,
			      double to);

#endif /* LIBRA_PRICE_H */
