/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit_isqos.c - ISQoS around every policy (Kavanagh & Djemame 2014,
 *  doc/design.md decision 18; see libra_admit() in admit.h): the policy's
 *  resource cost quote (admit_policy(), admit.c) marked up to the service
 *  price, and with a due date the earliest target the free share allows
 *  (with opt=time, decision 33, the earliest finish);
 *  libra_admit() and libra_sla_accept().
\*****************************************************************************/

#include <math.h>

#include "admit.h"
#include "admit_int.h"
#include "isqos.h"
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
	q->price_disk *= up;
	q->rate_max *= up;
	q->least_price *= up;
	q->markup = markup;
	q->target = target;
	q->charge_target = q->price - libra_due_penalty(sla, q->price,
							target - sla->due_date);
}

/*
 * The earliest target in [aim, deadline] at which the job is admitted, to
 * a step of 1% of (deadline - aim): aim itself if the free share allows
 * it, else the deadline must be possible, then bisection (admission grows
 * easier as the target moves later).  q: the quote at the target found,
 * or the deadline's refusal.
 */
static void _earliest_target(const libra_ledger_t *l, const libra_params_t *p,
			     const libra_sla_t *sla,
			     const libra_request_t *req, double now,
			     double aim, double m, libra_quote_t *q)
{
	double lo, hi, step;

	if (aim > now) {
		_admit_target(l, p, sla, req, now, aim, m, q);
		if (q->verdict == LIBRA_ACCEPT)
			return;
	}
	_admit_target(l, p, sla, req, now, sla->deadline, m, q);
	if (q->verdict != LIBRA_ACCEPT)
		return;
	lo = fmax(aim, now);
	hi = sla->deadline;
	step = fmax(1.0, 0.01 * (sla->deadline - aim));
	while (hi - lo > step) {
		double mid = 0.5 * (lo + hi);

		_admit_target(l, p, sla, req, now, mid, m, q);
		if (q->verdict == LIBRA_ACCEPT)
			hi = mid;
		else
			lo = mid;
	}
	_admit_target(l, p, sla, req, now, hi, m, q);
}

static void _admit(const libra_ledger_t *l, const libra_params_t *p,
		   const libra_sla_t *sla, const libra_request_t *req,
		   double now, libra_quote_t *q)
{
	double m = libra_params_markup(p, sla->tier);

	if (!(sla->deadline > now)) {
		_admit_target(l, p, sla, req, now, sla->deadline, m, q);
		return;
	}
	if (!libra_sla_has_due_window(sla)) {
		/* opt=time: the earliest finish, from a whole CPU's share
		 * of the fastest node (RE / (speed (target - now)) = 1,
		 * decision 43) on */
		if (sla->opt == LIBRA_OPT_TIME)
			_earliest_target(l, p, sla, req, now,
					 now + sla->runtime /
					 libra_ledger_max_speed(l), m, q);
		else
			_admit_target(l, p, sla, req, now, sla->deadline, m,
				      q);
		return;
	}
	/* the due date if the free share allows it, else the earliest
	 * target in (due, deadline] */
	_earliest_target(l, p, sla, req, now, sla->due_date, m, q);
	if (q->verdict != LIBRA_ACCEPT)
		return;
	/* sold at a loss past the break-even point: charge < R */
	if (q->verdict == LIBRA_ACCEPT &&
	    q->charge_target < q->price / (1.0 + m) - p->tolerance) {
		q->verdict = LIBRA_REJECT_DUEDATE;
		q->nplace = 0;
	}
}

/*
 * The going-rate floor (decision 51): an admitted job whose charge at its
 * target earns less per hour to the target than libra_min_profit_rate
 * over its resource cost is declined.
 */
extern void libra_admit(const libra_ledger_t *l, const libra_params_t *p,
			const libra_sla_t *sla, const libra_request_t *req,
			double now, libra_quote_t *q)
{
	libra_isqos_offer_t o = { 0 };

	_admit(l, p, sla, req, now, q);
	if (q->verdict != LIBRA_ACCEPT || !(p->min_profit_rate > 0.0))
		return;
	o.now = now;
	o.price = q->price;
	o.cost = q->price / (1.0 + q->markup);
	o.completion = q->target;
	libra_offer_measure(sla, &o);
	if (o.profit_rate < p->min_profit_rate) {
		q->verdict = LIBRA_REJECT_PROFIT;
		q->nplace = 0;
	}
}

extern libra_tier_t libra_tier_offer(const libra_ledger_t *l,
				     const libra_params_t *p,
				     const libra_sla_t *sla,
				     const libra_request_t *req, double now,
				     libra_quote_t *q)
{
	libra_sla_t s = *sla;
	int t = (sla->set & LIBRA_SLA_TIER) ? (int) sla->tier : 0;

	for (t++; t < LIBRA_TIER_COUNT; t++) {
		s.tier = (libra_tier_t) t;
		s.set |= LIBRA_SLA_TIER;
		libra_admit(l, p, &s, req, now, q);
		if (q->verdict == LIBRA_ACCEPT)
			return s.tier;
	}
	return LIBRA_TIER_NONE;
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
