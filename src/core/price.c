/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  price.c - prices (see price.h for the formulas and the worked example).
\*****************************************************************************/

#include <math.h>
#include <string.h>

#include "price.h"

extern double libra_putil(double res_max, double res_free, double price_base)
{
	/* Eq. 3.4; a node without free resource is never priced. */
	if (!(res_free > 0.0))
		return INFINITY;
	return res_max / res_free * price_base;
}

extern double libra_res_max(const libra_ledger_t *l, int node, double now,
			    double deadline)
{
	double window = deadline - now;

	return window > 0.0 ? libra_ledger_node_cpus(l, node) * window : 0.0;
}

extern double libra_res_free(const libra_ledger_t *l, const libra_params_t *p,
			     int node, int cpus, double runtime, double now,
			     double deadline)
{
	double committed;

	if (p->resfree == LIBRA_RESFREE_THESIS)
		committed = libra_ledger_node_thesis_work(l, node);
	else
		committed = libra_ledger_node_window_work(l, node, now,
							  deadline);
	/* Eq. 3.5/3.6: RESMax_j - committed_j - RES_i */
	return libra_res_max(l, node, now, deadline) - committed -
	       cpus * runtime;
}

/* S_j: the committed share per CPU of the node now. */
static double _load(const libra_ledger_t *l, int node)
{
	int cpus = libra_ledger_node_cpus(l, node);

	return cpus > 0 ? libra_ledger_node_share(l, node) / cpus : 0.0;
}

extern double libra_load_smoothed(const libra_ledger_t *l,
				  const libra_params_t *p, int node,
				  double now)
{
	double load = _load(l, node), when;
	double avg = libra_ledger_node_load_avg(l, node, &when);

	if (!(p->price_damping > 0.0) || isnan(avg))
		return load;
	return load + (avg - load) *
		      exp(-fmax(now - when, 0.0) / p->price_damping);
}

extern double libra_res_free_priced(const libra_ledger_t *l,
				    const libra_params_t *p, int node,
				    double now, double res_max,
				    double res_free, double res_i)
{
	double lag, damped;

	if (!(p->price_damping > 0.0) || !(res_free > 0.0))
		return res_free;
	lag = _load(l, node) - libra_load_smoothed(l, p, node, now);
	damped = res_free + res_max * lag;
	damped = fmin(damped, res_max - res_i);	/* no emptier than idle */
	return fmax(damped, fmin(res_free, res_i)); /* nor fuller than full */
}

extern void libra_price_feedback(libra_ledger_t *l, const libra_params_t *p,
				 double now)
{
	int nodes = libra_ledger_node_count(l);

	if (!(p->price_damping > 0.0))
		return;
	for (int j = 0; j < nodes; j++)
		libra_ledger_set_node_load_avg(
			l, j, libra_load_smoothed(l, p, j, now), now);
}

extern double libra_price_base_window(const libra_params_t *p, double from,
				      double to)
{
	double base = libra_price_base_per_sec(p);
	double mean = libra_tariff_mean(&p->tariff);

	if (!p->tariff_price || !p->tariff.n || !(to > from) || !(mean > 0.0))
		return base;
	/* the window's mean rate against the day's */
	return base * (libra_tariff_cost(&p->tariff, from, to) * 3600.0 /
		       (to - from)) / mean;
}

extern double libra_rate(const libra_ledger_t *l, const libra_params_t *p,
			 double beta, int node, int cpus, double runtime,
			 double now, double deadline)
{
	/* PBase_j (decision 43) */
	double base = libra_price_base_window(p, now, deadline) *
		      libra_ledger_node_price_factor(l, node);
	double res_max = libra_res_max(l, node, now, deadline);
	double res_free = libra_res_free(l, p, node, cpus, runtime, now,
					 deadline);
	double putil = libra_putil(res_max, libra_res_free_priced(
					   l, p, node, now, res_max, res_free,
					   cpus * runtime), base);

	if (!isfinite(putil))
		return INFINITY;
	/* Eq. 3.3 */
	return p->alpha * base + beta * putil;
}

/* Eq. 3.3/3.4 for a space-shared resource of "total" units (price.h). */
static double _held_rate(const libra_params_t *p, double beta, double base,
			 double total, double held, double window)
{
	double res_max = total * window;

	if (base == 0.0)
		return 0.0;
	if (!(res_max > 0.0))
		return p->alpha * base;	/* not tracked: no utilisation */
	return p->alpha * base + beta * libra_putil(res_max, res_max - held,
						    base);
}

extern void libra_held_rates(const libra_ledger_t *l, const libra_params_t *p,
			     double beta, int node, double now,
			     double deadline, double *mem_rate,
			     double *gpu_rate, double *tmp_rate)
{
	double window = deadline - now, mem_held = 0.0, gpu_held = 0.0;
	double tmp_held = 0.0;

	if (libra_price_mem_per_sec(p) != 0.0 ||
	    libra_price_gpu_per_sec(p) != 0.0 ||
	    libra_price_disk_per_sec(p) != 0.0)
		libra_ledger_node_held_window(l, node, now, deadline,
					      &mem_held, &gpu_held, &tmp_held);
	*mem_rate = _held_rate(p, beta, libra_price_mem_per_sec(p),
			       (double) libra_ledger_node_mem(l, node),
			       mem_held, window);
	*gpu_rate = _held_rate(p, beta, libra_price_gpu_per_sec(p),
			       (double) libra_ledger_node_gpus(l, node),
			       gpu_held, window);
	*tmp_rate = _held_rate(p, beta, libra_price_disk_per_sec(p),
			       (double) libra_ledger_node_tmp(l, node),
			       tmp_held, window);
}

extern double libra_static_price(const libra_params_t *p, double runtime,
				 double period)
{
	if (!(period > 0.0))
		return INFINITY;
	return libra_price_base_per_sec(p) *
	       (p->gamma * runtime + p->delta * runtime / period);
}

/*
 * The peak/off-peak rates as a daily table of two rates per CPU-hour on
 * the tariff's clock (p->tariff.offset: local time in the plugins, the
 * trace's in the simulator; doc/design.md decision 3), so that the
 * tariff's integral prices a stretch of use hour by hour.
 */
static void _peak_table(const libra_params_t *p, libra_tariff_t *t)
{
	int on = p->peak_start * 3600, off = p->peak_end * 3600;

	memset(t, 0, sizeof(*t));
	t->offset = p->tariff.offset;
	if (on == off) {		/* peak all day */
		t->n = 1;
		t->rate[0] = p->peak_price;
		return;
	}
	t->n = 2;
	t->sod[0] = on < off ? on : off;
	t->sod[1] = on < off ? off : on;
	t->rate[0] = on < off ? p->peak_price : p->price_base;
	t->rate[1] = on < off ? p->price_base : p->peak_price;
}

extern double libra_time_rate(const libra_params_t *p, double when)
{
	libra_tariff_t t;

	if (p->policy != LIBRA_POLICY_PEAK)
		return libra_price_base_per_sec(p);
	_peak_table(p, &t);
	return libra_tariff_rate(&t, when) / 3600.0;
}

extern double libra_time_cost(const libra_params_t *p, double from,
			      double to)
{
	libra_tariff_t t;

	if (!(to > from))
		return 0.0;
	if (p->policy != LIBRA_POLICY_PEAK)
		return libra_price_base_per_sec(p) * (to - from);
	_peak_table(p, &t);
	return libra_tariff_cost(&t, from, to);
}
