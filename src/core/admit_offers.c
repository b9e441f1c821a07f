/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit_offers.c - what a refused request is offered (see admit.h):
 *  counter-offers (the earliest later deadline within the budget, the
 *  least budget at the user's deadline) and the next free slot, each a
 *  search of libra_admit() quotes, within a time limit of the calling
 *  thread's CPU time; and what the nodes' memory, GPUs, scratch disk or
 *  job slots block whatever the deadline.
\*****************************************************************************/

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admit.h"
#include "admit_int.h"
#include "price.h"

static bool _admits_at(const libra_ledger_t *l, const libra_params_t *p,
		       const libra_sla_t *sla, const libra_request_t *req,
		       double now, double deadline, libra_quote_t *q)
{
	libra_sla_t s = *sla;

	s.deadline = deadline;
	s.due_date += deadline - sla->deadline;	/* 0 stays unset */
	if (!(s.set & LIBRA_SLA_DUEDATE))
		s.due_date = 0.0;
	libra_admit(l, p, &s, req, now, q);
	return q->verdict == LIBRA_ACCEPT;
}

/*
 * What the nodes hold that keeps the request out whatever its deadline
 * (libra_offer_t.blocked_by): memory, GPUs, scratch disk or slots, named
 * as _refusal_cause() (admit.c) names them; LIBRA_ACCEPT when they could
 * hold it.
 */
static libra_verdict_t _blocked_by(const libra_ledger_t *l,
				   const libra_request_t *req,
				   libra_quote_t *q)
{
	int nodes = libra_ledger_node_count(l);
	libra_verdict_t v = LIBRA_ACCEPT;
	libra_request_t r;
	cand_t *c;

	if ((req->slots_per_cpu <= 0 && !admit_asks_held(req)) ||
	    req->cpus < 1 || !admit_demand_ok(req) ||
	    !admit_resources_ok(l, req))
		return LIBRA_ACCEPT;	/* libra_admit() says why */
	c = malloc((size_t) (nodes ? nodes : 1) * sizeof(*c));
	if (!c || admit_holds_now(l, req, c, q))
		goto out;
	v = admit_first_limit(req);
	for (int k = 0; k < ADMIT_NLIMITS; k++) {
		if (!admit_asks_limit(req, admit_limits[k]))
			continue;
		r = admit_lifted(req, admit_limits[k]);
		if (admit_holds_now(l, &r, c, q)) {
			v = admit_limits[k];
			break;
		}
	}
out:
	free(c);
	return v;
}

/*
 * Up to max distinct whole seconds in (after, until] at which a committed
 * share on an eligible node falls to its tail, the earliest ones,
 * ascending; their count.  One pass over the entries keeping the max
 * earliest in a sorted array (a value not below the array's last, once it
 * is full, is dropped at once): O(entries) for a full ledger, no sort of
 * all its times.
 */
static int _slot_times(const libra_ledger_t *l, const libra_request_t *req,
		       double after, double until, double *t, int max)
{
	int nodes = libra_ledger_node_count(l), m = 0;

	for (int j = 0; j < nodes; j++)
		if (admit_eligible(l, req, j))
			m = libra_ledger_node_targets(l, j, after, until, t, m,
						      max);
	return m;
}

extern bool libra_next_slot(const libra_ledger_t *l, const libra_params_t *p,
			    const libra_sla_t *sla, const libra_request_t *req,
			    double now, double max_delay, libra_slot_t *slot)
{
	return libra_next_slot_within(l, p, sla, req, now, max_delay, 0.0,
				      slot);
}

extern bool libra_next_slot_within(const libra_ledger_t *l,
				   const libra_params_t *p,
				   const libra_sla_t *sla,
				   const libra_request_t *req, double now,
				   double max_delay, double max_seconds,
				   libra_slot_t *slot)
{
	double t[LIBRA_SLOT_TRIES];
	libra_request_t r = *req;
	libra_quote_t *q;
	admit_clock_t clk;
	int n;
	bool found = false;

	memset(slot, 0, sizeof(*slot));
	admit_clock_start(&clk, max_seconds);
	if (!(sla->deadline > now))
		return false;
	n = _slot_times(l, req, now, now + max_delay, t, LIBRA_SLOT_TRIES);
	if (!n || !(q = malloc(sizeof(*q))))
		return false;
	if (!(r.booked > 0.0))
		r.booked = now;
	for (int i = 0; i < n && !found; i++) {
		libra_sla_t s = admit_sla_shifted(sla, t[i] - now);

		if (admit_clock_out(&clk, 1)) {
			slot->cut = true;
			break;
		}
		libra_admit(l, p, &s, &r, t[i], q);
		if (q->verdict == LIBRA_ACCEPT) {
			slot->begin = t[i];
			slot->deadline = s.deadline;
			slot->price = q->price;
			found = true;
		}
	}
	free(q);
	return found;
}

/*
 * Can no deadline up to "limit" fit the budget?  Every admission at any
 * deadline (a due date's targets included) would charge at least this,
 * each step rounded as the admission rounds it, so that the test is
 * exact, not within a rounding:
 *  - Libra and LibraRiskD: the static price falls with the period, so it
 *    is least at the limit: libra_static_price(RE, limit - TSU) per CPU;
 *  - fixed: the rate; peak: the lower of its two rates, less a rounding
 *    (a planned use may fall in either, and the admission's mean of the
 *    two may round below the lower one);
 *  - Libra+$ and Libra+$Auto without a tariff price: every CPU's rate is
 *    alpha PBase + beta PUtil with PUtil >= PBase (RESFree <= RESMax), and
 *    the budget test charges c RE times the placement's highest rate, so
 *    c RE (alpha PBase + beta PBase) with the least beta of any node;
 * memory, GPUs and scratch disk add to it, never take off; each at the
 * cheapest node's base price factor.  LibraSLA charges the bid.
 * Tested against the budget as the admission tests it, in resource cost
 * (B / (1 + markup)).  True: the search for a later deadline would find
 * none (findings.md, C).
 */
static bool _budget_below_floor(const libra_ledger_t *l,
				const libra_params_t *p,
				const libra_sla_t *sla,
				const libra_request_t *req, double now,
				double limit)
{
	libra_sla_t s = *sla;
	double least;

	if (!libra_sla_has_budget(sla) || !(sla->runtime > 0.0) ||
	    req->cpus < 1)
		return false;
	s.budget = sla->budget / (1.0 + libra_params_markup(p, sla->tier));
	switch (p->policy) {
	case LIBRA_POLICY_LIBRA:
	case LIBRA_POLICY_RISKD:
		least = libra_static_price(p, sla->runtime,
					   limit - sla->submit) * req->cpus;
		break;
	case LIBRA_POLICY_FIXED:
		least = sla->runtime * libra_time_rate(p, now) * req->cpus;
		break;
	case LIBRA_POLICY_PEAK:
		least = sla->runtime * req->cpus *
			fmin(p->price_base, p->peak_price) / 3600.0 *
			(1.0 - 1e-12);
		break;
	case LIBRA_POLICY_LIBRA_PRICE:
	case LIBRA_POLICY_AUTO: {
		double base = libra_price_base_per_sec(p), beta = p->beta;

		if (p->tariff_price && p->tariff.n)
			return false;	/* PBase follows the window */
		if (p->policy == LIBRA_POLICY_AUTO) {
			int nodes = libra_ledger_node_count(l);

			beta = fmin(beta, p->beta_min);
			for (int j = 0; j < nodes; j++) {
				double b = libra_ledger_node_beta(l, j);

				if (!isnan(b))
					beta = fmin(beta, b);
			}
		}
		if (!(beta >= 0.0) || !(p->alpha >= 0.0) || !(base >= 0.0))
			return false;
		least = req->cpus * sla->runtime *
			(p->alpha * base + beta * base);
		break;
	}
	default:
		return false;
	}
	/* on the cheapest node's base (PBase_j, decision 43), less a
	 * rounding: the admission sums each CPU at its own factor */
	if (libra_ledger_min_price_factor(l) != 1.0)
		least *= libra_ledger_min_price_factor(l) * (1.0 - 1e-12);
	return admit_over_budget(p, &s, least);
}

extern void libra_counter_offer(const libra_ledger_t *l,
				const libra_params_t *p,
				const libra_sla_t *sla,
				const libra_request_t *req, double now,
				double max_period, libra_offer_t *o)
{
	libra_counter_offer_within(l, p, sla, req, now, max_period, 0.0, o);
}

extern void libra_counter_offer_within(const libra_ledger_t *l,
				       const libra_params_t *p,
				       const libra_sla_t *sla,
				       const libra_request_t *req,
				       double now, double max_period,
				       double max_seconds, libra_offer_t *o)
{
	libra_quote_t *q = malloc(sizeof(*q));
	double lo, hi, limit, step;
	admit_clock_t clk;

	memset(o, 0, sizeof(*o));
	admit_clock_start(&clk, max_seconds);
	if (!q)
		return;
	/* memory, GPUs and scratch disk are held until jobs end: no
	 * deadline frees them */
	o->blocked_by = _blocked_by(l, req, q);
	if (admit_held_verdict(o->blocked_by)) {
		free(q);
		return;
	}
	/* (b) the least budget at the user's deadline: what a budget refusal
	 * names, offered only once a quote with it is accepted */
	if (libra_sla_has_budget(sla)) {
		libra_sla_t s = *sla;

		admit_clock_mark(&clk);
		libra_admit(l, p, &s, req, now, q);
		admit_clock_out(&clk, 0);	/* a step: how long one takes */
		if (q->verdict == LIBRA_REJECT_BUDGET) {
			s.budget = q->least_price;
			libra_admit(l, p, &s, req, now, q);
			if (q->verdict == LIBRA_ACCEPT) {
				o->has_budget = true;
				o->budget = s.budget;
			}
		}
	}
	/* (a) the earliest later deadline that fits the budget */
	limit = sla->submit + max_period;
	lo = sla->deadline;
	hi = 0.0;
	if (_budget_below_floor(l, p, sla, req, now, limit)) {
		free(q);	/* no deadline can: nothing to search */
		return;
	}
	admit_clock_mark(&clk);
	for (double period = sla->deadline - now; ; period *= 1.5) {
		double t = now + period;

		if (t > limit)
			t = limit;
		/* this step, and the check of the deadline found */
		if (t > lo && admit_clock_out(&clk, 2)) {
			o->cut = true;
			break;
		}
		if (t > lo && _admits_at(l, p, sla, req, now, t, q)) {
			hi = t;
			break;
		}
		if (t >= limit)
			break;
		lo = t;
	}
	if (hi > 0.0) {
		step = fmax(60.0, 0.01 * (hi - sla->submit));
		while (hi - lo > step) {
			double mid = 0.5 * (lo + hi);

			if (admit_clock_out(&clk, 2)) {
				o->cut = true;	/* hi is admitted: offered */
				break;
			}
			if (_admits_at(l, p, sla, req, now, mid, q))
				hi = mid;
			else
				lo = mid;
		}
		/* round up to a whole minute for people */
		hi = now + ceil((hi - now) / 60.0) * 60.0;
		if (hi > limit)
			hi = limit;
		if (_admits_at(l, p, sla, req, now, hi, q)) {
			o->has_deadline = true;
			o->deadline = hi;
			if (sla->set & LIBRA_SLA_DUEDATE)
				o->due_date = sla->due_date +
					      (hi - sla->deadline);
			o->deadline_price = q->price;
		}
	}
	free(q);
}
