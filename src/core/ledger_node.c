/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ledger_node.c - what a node of the ledger is besides its entries (see
 *  ledger.h): its speed and base price factor (decision 43), its memory
 *  and GPUs (decision 17) and scratch disk, Libra+$Auto's beta and its
 *  saved form (decision 9), the smoothed load of price damping (decision
 *  19).  The nodes themselves, their jobs and entries are in ledger.c.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "ledger_int.h"
#include "statefile.h"

extern int libra_ledger_set_speeds(libra_ledger_t *l, const double *speeds,
				   int n)
{
	if (n != l->nnodes)
		return -1;
	for (int i = 0; i < n; i++)
		if (!(speeds[i] > 0.0) || !(speeds[i] <= LIBRA_SPEED_MAX))
			return -1;
	l->max_speed = n ? 0.0 : 1.0;
	for (int i = 0; i < n; i++) {
		l->nodes[i].speed = speeds[i];
		l->max_speed = fmax(l->max_speed, speeds[i]);
	}
	return 0;
}

extern int libra_ledger_set_price_factors(libra_ledger_t *l,
					 const double *factors, int n)
{
	if (n != l->nnodes)
		return -1;
	for (int i = 0; i < n; i++)
		if (!(factors[i] > 0.0) ||
		    !(factors[i] <= LIBRA_PRICE_FACTOR_MAX))
			return -1;
	l->min_price_factor = n ? INFINITY : 1.0;
	for (int i = 0; i < n; i++) {
		l->nodes[i].price_factor = factors[i];
		l->min_price_factor = fmin(l->min_price_factor, factors[i]);
	}
	return 0;
}

extern double libra_ledger_node_price_factor(const libra_ledger_t *l,
					     int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->price_factor : 1.0;
}

extern double libra_ledger_min_price_factor(const libra_ledger_t *l)
{
	return l->min_price_factor;
}

extern double libra_ledger_node_speed(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->speed : 1.0;
}

extern double libra_ledger_max_speed(const libra_ledger_t *l)
{
	return l->max_speed;
}

extern int libra_ledger_set_node_resources(libra_ledger_t *l, int node,
					   uint64_t mem_mb, int gpus)
{
	if (!ledger_node(l, node) || gpus < 0)
		return -1;
	l->nodes[node].mem_mb = mem_mb;
	l->nodes[node].gpus = gpus;
	return 0;
}

extern uint64_t libra_ledger_node_mem(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->mem_mb : 0;
}

extern int libra_ledger_node_gpus(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->gpus : 0;
}

extern uint64_t libra_ledger_node_mem_used(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->mem_used : 0;
}

extern int libra_ledger_node_gpus_used(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->gpus_used : 0;
}

/* What is left of "total" MB with "used" held: LIBRA_MEM_UNTRACKED when
 * the total is not tracked (0), never below 0. */
static uint64_t _mb_free(uint64_t total, uint64_t used)
{
	if (!total)
		return LIBRA_MEM_UNTRACKED;
	return used < total ? total - used : 0;
}

extern uint64_t libra_ledger_node_mem_free(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? _mb_free(n->mem_mb, n->mem_used) : 0;
}

extern int libra_ledger_node_gpus_free(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	if (!n)
		return 0;
	return n->gpus_used < n->gpus ? n->gpus - n->gpus_used : 0;
}

extern int libra_ledger_set_node_tmp(libra_ledger_t *l, int node,
				     uint64_t tmp_mb)
{
	if (!ledger_node(l, node))
		return -1;
	l->nodes[node].tmp_mb = tmp_mb;
	return 0;
}

extern uint64_t libra_ledger_node_tmp(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->tmp_mb : 0;
}

extern uint64_t libra_ledger_node_tmp_used(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->tmp_used : 0;
}

extern uint64_t libra_ledger_node_tmp_free(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? _mb_free(n->tmp_mb, n->tmp_used) : 0;
}

extern double libra_ledger_node_beta(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->beta : NAN;
}

extern void libra_ledger_set_node_beta(libra_ledger_t *l, int node,
				       double beta)
{
	if (ledger_node(l, node) && l->nodes[node].beta != beta) {
		l->nodes[node].beta = beta;
		l->beta_changes++;
	}
}

extern uint64_t libra_ledger_betas_changes(const libra_ledger_t *l)
{
	return l->beta_changes;
}

extern char *libra_ledger_betas_format(const libra_ledger_t *l)
{
	size_t len = 64, pos;
	char *buf;

	for (int i = 0; i < l->nnodes; i++)
		len += strlen(l->nodes[i].name) + 32;
	if (!(buf = malloc(len)))
		return NULL;
	pos = (size_t) snprintf(buf, len, "%s %d\n", LIBRA_BETAS_MAGIC,
				LIBRA_BETAS_VERSION);
	for (int i = 0; i < l->nnodes; i++) {
		if (isnan(l->nodes[i].beta))
			continue;	/* never set: libra_beta */
		pos += (size_t) snprintf(buf + pos, len - pos, "beta %s %.17g\n",
					 l->nodes[i].name, l->nodes[i].beta);
	}
	return buf;
}

/* One "beta <node> <beta>" line. */
static int _beta_line(void *arg, char *line, char *why, size_t len)
{
	libra_ledger_t *l = arg;
	char name[256], tail;
	double beta;
	int node;

	if (sscanf(line, "beta %255s %lf %c", name, &beta, &tail) != 2) {
		snprintf(why, len, "not \"beta <node> <number>\"");
		return -1;
	}
	if (!(beta >= 0.0) || !isfinite(beta)) {
		snprintf(why, len, "node %.60s: beta %g is not a finite number >= 0",
			 name, beta);
		return -1;
	}
	if ((node = libra_ledger_find_node(l, name)) < 0) {
		snprintf(why, len, "node %.60s is not in the configuration",
			 name);
		return -1;
	}
	libra_ledger_set_node_beta(l, node, beta);
	return 0;
}

extern int libra_ledger_betas_parse(libra_ledger_t *l, const char *text,
				    const char *name, libra_report_fn *report,
				    void *arg)
{
	return libra_statefile_read(text, name, LIBRA_BETAS_MAGIC,
				    LIBRA_BETAS_VERSION, _beta_line, l, report,
				    arg);
}

extern double libra_ledger_node_load_avg(const libra_ledger_t *l, int node,
					 double *when)
{
	const ledger_node_t *n = ledger_node(l, node);

	if (when)
		*when = n ? n->load_t : 0.0;
	return n ? n->load_avg : NAN;
}

extern void libra_ledger_set_node_load_avg(libra_ledger_t *l, int node,
					   double load, double when)
{
	if (ledger_node(l, node)) {
		l->nodes[node].load_avg = load;
		l->nodes[node].load_t = when;
	}
}
