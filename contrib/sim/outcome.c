/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  outcome.c - settle or reject a simulated job; see outcome.h.
\*****************************************************************************/

#include <string.h>

#include "admit.h"
#include "outcome.h"
#include "settle.h"

extern double sim_base_charge(const sim_config_t *cfg, const sim_job_t *j)
{
	double c = j->estimate * libra_price_base_per_sec(&cfg->params);

	return c * j->procs;
}

extern void sim_settle(const sim_job_t *j, sim_model_t model, double price,
		       double start, double end, sim_outcome_t *o)
{
	libra_sla_t sla;
	libra_settlement_t s;
	double k = sim_job_scale(j, model), p;

	/* the core's money, and the job's (divided by k: workload.c) */
	sim_job_sla(j, model, &sla);
	p = model == SIM_MODEL_BID ? sla.budget : price;
	libra_settle(&sla, p, start, end, LIBRA_END_COMPLETED, &s);
	o->accepted = true;
	if (!o->verdict)
		o->verdict = libra_verdict_name(LIBRA_ACCEPT);
	o->start = start;
	o->end = end;
	o->price = p / k;
	o->met = s.deadline_met;
	if (model == SIM_MODEL_BID)
		o->charge = s.charge / k;
	else if (!s.deadline_met)
		o->charge = 0.0;
	else	/* the z-curve's charge with a due date, else the price */
		o->charge = s.charge / k;
}

extern void sim_reject(sim_outcome_t *o, const char *verdict)
{
	memset(o, 0, sizeof(*o));
	o->verdict = verdict;
}

extern void sim_result(const sim_job_t *j, const sim_outcome_t *o,
		       libra_job_result_t *r)
{
	*r = (libra_job_result_t) {
		.accepted = o->accepted,
		.deadline_met = o->accepted && o->met,
		.budget = j->budget,
		.charge = o->accepted ? o->charge : 0.0,
		/* a reservation waits from its begin, the time it asked
		 * to start (Slurm's eligible time) */
		.submit = j->begin,
		.start = o->start,
		.end = o->end,
		.runtime = j->runtime,
	};
}
