/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  metrics.c - service metrics and risk analysis (see metrics.h).
\*****************************************************************************/

#include <math.h>
#include <string.h>

#include "metrics.h"

extern void libra_metrics_init(libra_metrics_t *m)
{
	memset(m, 0, sizeof(*m));
}

extern void libra_metrics_add(libra_metrics_t *m, const libra_job_result_t *r)
{
	bool qos;

	m->submitted++;
	m->budget_all += r->budget;
	if (!r->accepted)
		return;
	m->accepted++;
	m->budget_accepted += r->budget;
	m->charge_accepted += r->charge;
	if (!r->deadline_met) {
		m->deadline_missed++;
		return;
	}
	m->sla_met++;
	m->wait_sum += r->start - r->submit;
	if (r->runtime > 0.0)
		m->slowdown_sum += (r->end - r->submit) / r->runtime;
	/* QoS: deadline met and the charge within the budget */
	qos = r->budget <= 0.0 ||
	      r->charge <= r->budget + 1e-9 * fmax(1.0, r->budget);
	if (qos) {
		m->qos_met++;
		m->charge_qos += r->charge;
	}
}

static double _ratio(double a, double b)
{
	return b > 0.0 ? a / b : 0.0;
}

extern void libra_metrics_finish(libra_metrics_t *m)
{
	m->qos_satisfaction = _ratio((double) m->qos_met,
				     (double) m->submitted);
	m->profitability = _ratio(m->charge_qos, m->budget_all);
	m->profitability_slides = _ratio(m->charge_accepted,
					 m->budget_accepted);
	m->sla_pct = 100.0 * _ratio((double) m->sla_met,
				    (double) m->submitted);
	m->reliability_pct = 100.0 * _ratio((double) m->sla_met,
					    (double) m->accepted);
	m->profit_pct = 100.0 * _ratio(m->charge_accepted, m->budget_all);
	m->mean_wait = _ratio(m->wait_sum, (double) m->sla_met);
	m->mean_slowdown = _ratio(m->slowdown_sum, (double) m->sla_met);
	m->utility = m->charge_accepted;
}

extern double libra_normalise(double x, double lo, double hi, bool inverted)
{
	double v;

	if (!(hi > lo))
		return 1.0;
	v = (x - lo) / (hi - lo);
	v = fmin(fmax(v, 0.0), 1.0);
	return inverted ? 1.0 - v : v;
}

extern void libra_risk_separate(const double *x, int r, double *mu,
				double *sigma)
{
	double sum = 0.0, sq = 0.0;

	if (r < 1) {
		*mu = *sigma = 0.0;
		return;
	}
	for (int i = 0; i < r; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	*mu = sum / r;					/* Eq. 6.5 */
	*sigma = sqrt(fmax(sq / r - *mu * *mu, 0.0));	/* Eq. 6.6 */
}

extern int libra_risk_integrated(const double *mu, const double *sigma,
				 const double *w, int o, double *mu_int,
				 double *sigma_int)
{
	double wsum = 0.0;

	*mu_int = *sigma_int = 0.0;
	if (o < 1)
		return -1;
	for (int i = 0; i < o; i++) {
		if (!(w[i] >= 0.0 && w[i] <= 1.0))
			return -1;
		wsum += w[i];
	}
	if (fabs(wsum - 1.0) > 0.011)	/* 3 x 0.33 is "equal weights" */
		return -1;
	for (int i = 0; i < o; i++) {
		*mu_int += w[i] * mu[i];		/* Eq. 6.7 */
		*sigma_int += w[i] * sigma[i];		/* Eq. 6.8 */
	}
	return 0;
}
