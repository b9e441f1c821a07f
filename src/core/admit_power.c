/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit_power.c - admission under a power plan (see admit.h, design.md
 *  decision 24): which start of a job to take, and on which nodes, when
 *  some nodes are powered down or the tariff makes a later start cheaper.
 *  job_submit/qos and libra-sim both call libra_admit_power(), each
 *  telling it which of its nodes can be up by a given time.
\*****************************************************************************/

#include <math.h>

#include "admit.h"

/* Quote the job to begin at "at" (a booking when later than now) on the
 * nodes that can be up by then; returns how many were left out. */
static int _quote_at(const libra_power_plan_t *plan, const libra_sla_t *sla,
		     libra_request_t *req, double now, double at,
		     libra_quote_t *q)
{
	int off = plan->ready(plan->arg, at, plan->mask);

	req->eligible = plan->mask;
	req->booked = at > now ? (now > 0.0 ? now : nextafter(0.0, 1.0))
			       : 0.0;
	libra_admit(plan->l, plan->p, sla, req, at, q);
	return off;
}

/* The deadline a start deferred to "at" is paced to: the end of the
 * tariff's stretch it begins in, so that it runs there and not on into
 * the next (dearer) one; never later than the job's own deadline. */
static double _paced(const libra_power_plan_t *plan, const libra_sla_t *sla,
		     double at)
{
	return fmin(sla->deadline,
		    fmax(at + sla->runtime,
			 libra_tariff_next_change(plan->tariff, at)));
}

/*
 * Each of the job's candidate starts, cheapest first (libra_power_starts():
 * "earliest" alone unless the heuristic defers work), is quoted on the
 * nodes up by then.  At "earliest" itself, if those refuse it and some
 * node was left out, once more as a booking from the end of a boot, and
 * from the end of a shutdown and a boot, on every node that can be up by
 * then (powered-down nodes are capacity after their boot; with every node
 * up nothing changes).  The first accepted is taken.  Refused: the
 * verdict of the widest quote at "earliest".
 */
extern void libra_admit_power(const libra_power_plan_t *plan,
			      libra_sla_t *sla, libra_request_t *req,
			      double now, double earliest, libra_quote_t *q,
			      libra_power_choice_t *out)
{
	double starts[2 * LIBRA_TARIFF_MAX + 2];
	int max = plan->max_starts, n;
	libra_verdict_t v = LIBRA_REJECT_DEADLINE;

	*out = (libra_power_choice_t) { .begin = earliest };
	if (max <= 0 || max > (int) (sizeof(starts) / sizeof(starts[0])))
		max = (int) (sizeof(starts) / sizeof(starts[0]));
	n = libra_power_starts(plan->cfg, plan->tariff, earliest,
			       sla->deadline - sla->runtime, sla->runtime,
			       starts, max);
	for (int k = 0; k < n; k++) {
		double at = starts[k];
		const libra_sla_t *s = sla;
		libra_sla_t paced;
		int off;

		if (at > earliest && plan->pace &&
		    !(sla->set & LIBRA_SLA_DUEDATE)) {
			paced = *sla;
			paced.deadline = _paced(plan, sla, at);
			s = &paced;
		}
		off = _quote_at(plan, s, req, now, at, q);
		if (q->verdict == LIBRA_ACCEPT) {
			out->begin = at;
			out->deferred = at > earliest;
			if (s != sla)
				*sla = paced;
			return;
		}
		if (at != earliest)
			continue;
		v = q->verdict;
		/* the nodes left out: after a boot (after a shutdown and a
		 * boot, for the ones being removed) */
		for (int w = 0; w < 2 && off; w++) {
			double later = now + plan->cfg->boot +
				       (w ? plan->cfg->shutdown : 0.0);

			if (!(later > earliest))
				continue;
			off = _quote_at(plan, sla, req, now, later, q);
			if (q->verdict == LIBRA_ACCEPT) {
				out->begin = later;
				out->boot = true;
				return;
			}
			v = q->verdict;
		}
	}
	q->verdict = v;
}
