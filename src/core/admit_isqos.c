/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit_isqos.c - ISQoS around every policy (Kavanagh & Djemame 2014,
 *  doc/design.md decision 18; see libra_admit() in admit.h): the policy's
 *  resource cost quote (admit_policy(), admit.c) marked up to the service
 *  price, and with a due date the earliest target the free share allows;
 *  libra_admit() and libra_sla_accept().
\*****************************************************************************/

#include <math.h>

#include "admit.h"
#include "admit_int.h"
#include "settle.h"

/* The resource cost quote at one target, marked up to service price. */
static void _admit_target(const libra_ledger_t *l, const libra_params_t *p,
			  const libra_sla_t *sla, const libra_request_t *req,
			  double now, double target, double markup,
			  libra_quote_t *q)
{
	libra_sla_t s = *sla;
	double up = 1.0 + markup;

	s.deadline = target;
	if (libra_sla_has_budget(sla))
		s.budget = sla->budget / up;	/* ISQoS section 4.3 */
	admit_policy(l, p, &s, req, now, q);
	q->price *= up;
	q->price_mem *= up;
	q->price_gpus *= up;
	q->rate_max *= up;
	q->least_price *= up;
	q->markup = markup;
	q->target = target;
	q->charge_target = q->price - libra_due_penalty(sla, q->price,
							target - sla->due_date);
}

extern void libra_admit(const libra_ledger_t *l, const libra_params_t *p,
			const libra_sla_t *sla, const libra_request_t *req,
			double now, libra_quote_t *q)
{
	double m = libra_params_markup(p, sla->tier);
	double due = sla->due_date, lo, hi, step;

	if (!libra_sla_has_due_window(sla) || !(sla->deadline > now)) {
		_admit_target(l, p, sla, req, now, sla->deadline, m, q);
		return;
	}
	/* the due date if the free share allows it */
	if (due > now) {
		_admit_target(l, p, sla, req, now, due, m, q);
		if (q->verdict == LIBRA_ACCEPT)
			return;
	}
	/* else the deadline itself must be possible */
	_admit_target(l, p, sla, req, now, sla->deadline, m, q);
	if (q->verdict != LIBRA_ACCEPT)
		return;
	/* the earliest target in (due, deadline] */
	lo = fmax(due, now);
	hi = sla->deadline;
	step = fmax(1.0, 0.01 * (sla->deadline - due));
	while (hi - lo > step) {
		double mid = 0.5 * (lo + hi);

		_admit_target(l, p, sla, req, now, mid, m, q);
		if (q->verdict == LIBRA_ACCEPT)
			hi = mid;
		else
			lo = mid;
	}
	_admit_target(l, p, sla, req, now, hi, m, q);
	/* sold at a loss past the break-even point: charge < R */
	if (q->verdict == LIBRA_ACCEPT &&
	    q->charge_target < q->price / (1.0 + m) - p->tolerance) {
		q->verdict = LIBRA_REJECT_DUEDATE;
		q->nplace = 0;
	}
}

extern void libra_sla_accept(libra_sla_t *sla, const libra_quote_t *q)
{
	if (q->verdict != LIBRA_ACCEPT)
		return;
	if (q->target < sla->deadline) {
		sla->target = q->target;
		sla->set |= LIBRA_SLA_TARGET;
	} else {
		sla->target = 0.0;
		sla->set &= ~LIBRA_SLA_TARGET;
	}
}
