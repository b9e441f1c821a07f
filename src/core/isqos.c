/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  isqos.c - the ISQoS provider and broker (Kavanagh & Djemame 2014,
 *  doc/design.md decision 51; see isqos.h).
\*****************************************************************************/

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isqos.h"
#include "settle.h"

const libra_name_t libra_isqos_filter_names[] = {
	{ LIBRA_ISQOS_HYBRID,	"hybrid" },
	{ LIBRA_ISQOS_GOING,	"going" },
	{ LIBRA_ISQOS_PROFIT,	"profit" },
	{ LIBRA_ISQOS_TOP,	"top" },
	{ 0, NULL }
};

extern const char *libra_isqos_filter_name(libra_isqos_filter_t f)
{
	return libra_name_of(libra_isqos_filter_names, (int) f);
}

extern bool libra_isqos_filter_from_name(const char *name,
					 libra_isqos_filter_t *f)
{
	int v;

	if (!libra_value_of(libra_isqos_filter_names, name, &v))
		return false;
	*f = (libra_isqos_filter_t) v;
	return true;
}

extern double libra_isqos_rate(double base, double actions, int cpus,
			       double slope)
{
	if (cpus <= 0 || !(actions > 0.0))
		return base;
	return base * (1.0 + slope * actions / cpus);
}

extern double libra_isqos_breakeven(const libra_sla_t *sla, double price,
				    double cost)
{
	double lo = 0.0, hi, window;
	int k;

	if (!libra_sla_has_due_window(sla))
		return sla->deadline;
	window = sla->deadline - sla->due_date;
	if (price - libra_due_penalty(sla, price, window) >= cost)
		return sla->deadline;
	if (price <= cost)
		return sla->due_date;
	/* the z-curve falls monotonically: bisect to a millisecond */
	hi = window;
	for (k = 0; k < 64 && hi - lo > 1e-3; k++) {
		double mid = 0.5 * (lo + hi);

		if (price - libra_due_penalty(sla, price, mid) >= cost)
			lo = mid;
		else
			hi = mid;
	}
	return sla->due_date + lo;
}

extern void libra_offer_measure(const libra_sla_t *sla, libra_isqos_offer_t *o)
{
	bool budget = libra_sla_has_budget(sla);
	bool due = libra_sla_has_due_window(sla);
	double c = o->completion, hours = (c - o->now) / 3600.0;

	o->charge = o->price;
	if (due)
		o->charge -= libra_due_penalty(sla, o->price,
					       c - sla->due_date);
	if (budget)
		o->charge = fmin(o->charge, sla->budget);
	o->profit = o->charge - o->cost;
	o->profit_rate = hours > 0.0 ? o->profit / hours : 0.0;
	o->budget_slack = budget ? sla->budget - o->price : INFINITY;
	o->resilience = budget ? sla->budget - o->cost : INFINITY;
	o->due_slack = (due ? sla->due_date : sla->deadline) - c;
	o->breakeven_slack = libra_isqos_breakeven(sla, o->price, o->cost) - c;
	o->deadline_slack = sla->deadline - c;
	o->over_budget = budget && o->price > sla->budget;
	o->late = o->breakeven_slack < 0.0;
	o->on_time = o->due_slack >= 0.0 && !o->over_budget;
}

extern int libra_offer_rank_cmp(const void *a, const void *b)
{
	const libra_isqos_offer_t *x = a, *y = b;

	if (x->profit != y->profit)
		return x->profit > y->profit ? -1 : 1;
	if (x->completion != y->completion)
		return x->completion < y->completion ? -1 : 1;
	return (x->provider > y->provider) - (x->provider < y->provider);
}

extern void libra_offers_rank(libra_isqos_offer_t *offers, int n)
{
	if (n > 1)
		qsort(offers, n, sizeof(*offers), libra_offer_rank_cmp);
}

extern void libra_going_init(libra_going_t *g)
{
	memset(g, 0, sizeof(*g));
}

extern void libra_going_add(libra_going_t *g, double rate, int size)
{
	if (size > LIBRA_GOING_MAX)
		size = LIBRA_GOING_MAX;
	if (size <= 0)
		return;
	if (g->next >= size)
		g->next = 0;
	g->rate[g->next] = rate;
	g->next = (g->next + 1) % size;
	if (g->n < size)
		g->n++;
}

extern double libra_going_rate(const libra_going_t *g)
{
	double sum = 0.0;
	int k;

	for (k = 0; k < g->n; k++)
		sum += g->rate[k];
	return g->n ? sum / g->n : 0.0;
}

extern bool libra_offer_passes(const libra_isqos_t *f, const libra_going_t *g,
			       const libra_isqos_offer_t *o)
{
	double going;

	if (o->deadline_slack < 0.0)
		return false;
	if (f->filter == LIBRA_ISQOS_TOP)
		return true;
	if (!(o->profit > 0.0) || o->profit_rate < f->min_rate)
		return false;
	if (f->filter == LIBRA_ISQOS_PROFIT)
		return true;
	/* hybrid: an offer on time at once; else (and going) the going
	 * rate decides */
	if (f->filter == LIBRA_ISQOS_HYBRID && o->on_time)
		return true;
	going = libra_going_rate(g);
	return o->profit_rate >= going * (1.0 - f->deviation);
}

extern int libra_offer_select(const libra_isqos_t *f, const libra_going_t *g,
			      const libra_isqos_offer_t *offers, int n)
{
	int k;

	for (k = 0; k < n; k++)
		if (libra_offer_passes(f, g, &offers[k]))
			return k;
	return -1;
}

extern const char *libra_offer_refusal(const libra_isqos_offer_t *top)
{
	if (top->over_budget)
		return "budget";
	if (top->deadline_slack < 0.0)
		return "deadline";
	if (top->late)
		return "duedate";
	return "profit";
}
