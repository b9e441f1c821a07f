/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  outcome.h - what becomes of a job under a simulated policy: settled
 *  after it ran, or rejected.
 *
 *  Every engine (timeshare.c, backfill.c, firstreward.c) ends each job
 *  through these, so that the two economic models (thesis Table 6.5) are
 *  applied in one place:
 *
 *  - commodity market: the provider earns the quoted price if the deadline
 *    is met, nothing otherwise (thesis 3.5.2, 6.4.1); with a due date
 *    (--due-frac) what the z-curve charges for the completion time
 *    (ISQoS; libra_settle(), doc/design.md decision 18);
 *  - bid-based: the price is the user's bid B and the provider earns
 *    U = B - DY * PR (Eq. 4.1), computed by the core's libra_settle()
 *    (negative U is compensation).
 *
 *  Prices come in the core's money and outcomes go out in the job's: they
 *  differ by sim_job_scale() under --economy thesis (workload.c).
\*****************************************************************************/

#ifndef LIBRA_SIM_OUTCOME_H
#define LIBRA_SIM_OUTCOME_H

#include "sim.h"

/* Settle a job that ran from start to end at the quoted price, in the
 * core's money (ignored under the bid model, which charges the budget):
 * fills *o, in the job's money. */
extern void sim_settle(const sim_job_t *j, sim_model_t model, double price,
		       double start, double end, sim_outcome_t *o);

/* A job that never ran: *o zeroed, with the verdict ("deadline", ...). */
extern void sim_reject(sim_outcome_t *o, const char *verdict);

/* The commodity-market charge of the space-shared baselines, in the
 * core's money: C = RE * PBase per CPU, times procs. */
extern double sim_base_charge(const sim_config_t *cfg, const sim_job_t *j);

/* What the metrics (metrics.h) are given of job j and its outcome o. */
extern void sim_result(const sim_job_t *j, const sim_outcome_t *o,
		       libra_job_result_t *r);

#endif /* LIBRA_SIM_OUTCOME_H */
