/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  metrics.h - how well a policy served users and the provider.
 *
 *  Per-job results are folded into totals, from which:
 *
 *  Job QoS Satisfaction  = n_QoS / n				(thesis Eq. 3.7)
 *	n_QoS: admitted jobs that finished by the deadline with charge <= B.
 *  Cluster Profitability = sum_{QoS} C_i / sum_{all} B_i	(paper eq. 8)
 *		   slides = sum_{accepted} C_i / sum_{accepted} B_i
 *  SLA		= n_SLA / m * 100				(Eq. 6.2)
 *  reliability	= n_SLA / n_accepted * 100			(Eq. 6.3)
 *  profit (Ch.6) = sum_{accepted} U_i / sum_{all} B_i * 100	(Eq. 6.4)
 *  wait	= mean over SLA-fulfilled jobs of start - submit	(Eq. 6.1)
 *  slowdown	= mean over deadline-fulfilled jobs of
 *		  (end - submit) / actual runtime		(Ch. 5)
 *
 *  and the risk analysis of thesis section 6.3: per objective the mean and
 *  standard deviation of results normalised to [0, 1] (Eq. 6.5/6.6), and
 *  their weighted sums across objectives (Eq. 6.7/6.8).
\*****************************************************************************/

#ifndef LIBRA_METRICS_H
#define LIBRA_METRICS_H

#include <stdbool.h>

typedef struct libra_job_result {
	bool accepted;
	bool deadline_met;	/* finished by its deadline */
	double budget;		/* B; 0 when the job had none (no limit) */
	double charge;		/* C: what the user paid (U in bid models) */
	double submit, start, end;
	double runtime;		/* actual run time at full speed, for slowdown */
} libra_job_result_t;

typedef struct libra_metrics {
	long submitted, accepted, qos_met, sla_met, deadline_missed;
	double budget_all, budget_accepted;
	double charge_qos, charge_accepted;
	double wait_sum, slowdown_sum;
	/* computed by libra_metrics_finish() */
	double qos_satisfaction;	/* fraction */
	double profitability;		/* fraction, paper */
	double profitability_slides;	/* fraction */
	double sla_pct, reliability_pct, profit_pct;
	double mean_wait, mean_slowdown;
	double utility;			/* sum of charges of accepted jobs */
} libra_metrics_t;

extern void libra_metrics_init(libra_metrics_t *m);
extern void libra_metrics_add(libra_metrics_t *m, const libra_job_result_t *r);
extern void libra_metrics_finish(libra_metrics_t *m);

/* Normalise x to [0,1] over [lo, hi]; inverted (1 = lo) for "lower is
 * better" objectives such as wait.  hi == lo gives 1. */
extern double libra_normalise(double x, double lo, double hi, bool inverted);

/* Separate risk analysis (Eq. 6.5/6.6) of r normalised results. */
extern void libra_risk_separate(const double *x, int r, double *mu,
				double *sigma);

/* Integrated risk analysis (Eq. 6.7/6.8) over o objectives with weights w
 * (non-negative, summing to 1).  Returns -1 on bad weights. */
extern int libra_risk_integrated(const double *mu, const double *sigma,
				 const double *w, int o, double *mu_int,
				 double *sigma_int);

#endif /* LIBRA_METRICS_H */
