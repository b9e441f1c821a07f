/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit_power.c - admission under a power plan (see admit.h, design.md
 *  decision 24): which start of a job to take, and on which nodes, when
 *  some nodes are powered down or the tariff makes a later start cheaper.
 *  job_submit/qos and libra-sim both call libra_admit_power(), each
 *  telling it which of its nodes can be up by a given time.
\*****************************************************************************/

#include <math.h>
#include <string.h>

#include "admit.h"
#include "admit_int.h"

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

/* Up to max distinct times in (after, before) at which an eligible node
 * frees (free_at), ascending; their count.  Insertion into a short
 * sorted array: O(nodes x max). */
static int _free_times(int nodes, const bool *eligible, const double *free_at,
		       double after, double before, double *t, int max)
{
	int m = 0;

	for (int k = 0; k < nodes; k++) {
		double f = free_at[k];
		int i;

		if ((eligible && !eligible[k]) || !(f > after) ||
		    !(f < before) || !isfinite(f))
			continue;
		for (i = m; i > 0 && t[i - 1] > f; i--)
			;
		if ((i > 0 && t[i - 1] == f) || i >= max)
			continue;
		if (m < max)
			m++;
		memmove(t + i + 1, t + i, (m - 1 - i) * sizeof(*t));
		t[i] = f;
	}
	return m;
}

/* The nodes the job may use at "at": eligible, and free by then. */
static void _free_by(int nodes, const bool *eligible, const double *free_at,
		     double at, bool *mask)
{
	for (int k = 0; k < nodes; k++)
		mask[k] = (!eligible || eligible[k]) && free_at[k] <= at;
}

/*
 * Each time an eligible node frees, earliest first, as a booking from
 * then: the first accepted is the planned start.  Refused at every one:
 * the same window from each of them (the deadline moved by as much) for
 * the next free slot.  See admit.h.
 */
extern void libra_admit_when_free(const libra_ledger_t *l,
				  const libra_params_t *p,
				  const libra_sla_t *sla, libra_request_t *req,
				  const double *free_at, bool *mask,
				  double now, double earliest,
				  double max_seconds, libra_quote_t *q,
				  libra_planned_t *out)
{
	int nodes = libra_ledger_node_count(l), n;
	const bool *eligible = req->eligible;
	double booked = req->booked, t[LIBRA_SLOT_TRIES];
	admit_clock_t clk;

	memset(out, 0, sizeof(*out));
	admit_clock_start(&clk, max_seconds);
	n = _free_times(nodes, eligible, free_at, earliest, sla->deadline, t,
			LIBRA_SLOT_TRIES);
	req->eligible = mask;
	req->booked = now > 0.0 ? now : nextafter(0.0, 1.0);
	for (int i = 0; i < n && !out->accepted; i++) {
		if ((out->cut = admit_clock_out(&clk, 1)))
			break;
		_free_by(nodes, eligible, free_at, t[i], mask);
		libra_admit(l, p, sla, req, t[i], q);
		if (q->verdict == LIBRA_ACCEPT) {
			out->accepted = true;
			out->begin = t[i];
		}
	}
	if (out->accepted)
		return;		/* req->eligible is the mask it took */
	/* the next free slot: the window as long, from a later free time */
	n = out->cut ? 0 : _free_times(nodes, eligible, free_at, earliest,
				       INFINITY, t, LIBRA_SLOT_TRIES);
	for (int i = 0; i < n && !out->slot_found; i++) {
		libra_sla_t s = admit_sla_shifted(sla, t[i] - earliest);

		if ((out->cut = admit_clock_out(&clk, 1)))
			break;
		_free_by(nodes, eligible, free_at, t[i], mask);
		libra_admit(l, p, &s, req, t[i], q);
		if (q->verdict == LIBRA_ACCEPT) {
			out->slot_found = true;
			out->slot.begin = t[i];
			out->slot.deadline = s.deadline;
			out->slot.price = q->price;
		}
	}
	req->eligible = eligible;
	req->booked = booked;
}
