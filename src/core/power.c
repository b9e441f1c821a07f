/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  power.c - which nodes to keep powered, and when admitted work should
 *  run, under a tariff (power.h; doc/design.md decision 24).
\*****************************************************************************/

#include <math.h>

#include "power.h"

const libra_name_t libra_power_names[] = {
	{ LIBRA_POWER_NONE,	"none" },
	{ LIBRA_POWER_STATIC,	"static" },
	{ LIBRA_POWER_H1,	"h1" },
	{ LIBRA_POWER_H2,	"h2" },
	{ LIBRA_POWER_H3,	"h3" },
	{ LIBRA_POWER_H5,	"h5" },
	{ 0, NULL }
};

const libra_name_t libra_node_power_names[] = {
	{ LIBRA_NODE_ON,	"on" },
	{ LIBRA_NODE_OFF,	"off" },
	{ LIBRA_NODE_BOOTING,	"booting" },
	{ LIBRA_NODE_STOPPING,	"stopping" },
	{ 0, NULL }
};

extern const char *libra_power_name(libra_power_t h)
{
	return libra_name_of(libra_power_names, (int) h);
}

extern bool libra_power_from_name(const char *name, libra_power_t *h)
{
	int v;

	if (!libra_value_of(libra_power_names, name, &v))
		return false;
	*h = (libra_power_t) v;
	return true;
}

extern bool libra_power_defers(libra_power_t h)
{
	return h == LIBRA_POWER_H3 || h == LIBRA_POWER_H5;
}

/*
 * H3's removal test (Sung Eq. 4.13): keeping the node from now until its
 * next use costs the tariff over [now, next); removing it costs the
 * shutdown, then the boot before the next use, both billed.  A node
 * that nothing is booked on is idle for as long as anyone knows: removing
 * it is cheaper.
 */
static bool _cheaper_to_remove(const libra_power_cfg_t *c,
			       const libra_tariff_t *t,
			       const libra_power_node_t *n, double now)
{
	double keep, cycle;

	if (!isfinite(n->next_use))
		return true;	/* idle for as long as anyone knows */
	keep = libra_tariff_cost(t, now, n->next_use);
	cycle = libra_tariff_cost(t, now, now + c->shutdown) +
		libra_tariff_cost(t, n->next_use - c->boot, n->next_use);
	return keep > cycle;
}

extern libra_power_action_t libra_power_decide(const libra_power_cfg_t *c,
					       const libra_tariff_t *t,
					       const libra_power_node_t *n,
					       double now)
{
	/* booked work needs it up before the next decision point could
	 * boot it (kept), or before the next look could (deployed) */
	double lead = c->lead > 0.0 ? c->lead : c->interval;
	bool needed = n->busy ||
		      (n->next_use - c->boot <= now + c->interval);
	bool boot_now = n->busy || (n->next_use - c->boot <= now + lead);

	if (c->heuristic == LIBRA_POWER_NONE)
		return LIBRA_POWER_KEEP;
	if (n->state == LIBRA_NODE_BOOTING || n->state == LIBRA_NODE_STOPPING)
		return LIBRA_POWER_KEEP;
	if (n->state == LIBRA_NODE_OFF)
		return (boot_now || c->heuristic == LIBRA_POWER_STATIC) ?
			LIBRA_POWER_UP : LIBRA_POWER_KEEP;
	/* powered */
	if (needed || n->exempt || c->heuristic == LIBRA_POWER_STATIC)
		return LIBRA_POWER_KEEP;
	switch (c->heuristic) {
	case LIBRA_POWER_H1:
	case LIBRA_POWER_H5:
		return LIBRA_POWER_DOWN;
	case LIBRA_POWER_H2:
		return n->idle_points >= 2 ? LIBRA_POWER_DOWN : LIBRA_POWER_KEEP;
	case LIBRA_POWER_H3:
		if (n->idle_points < 2)
			return LIBRA_POWER_KEEP;
		return _cheaper_to_remove(c, t, n, now) ? LIBRA_POWER_DOWN
							: LIBRA_POWER_KEEP;
	default:
		return LIBRA_POWER_KEEP;
	}
}

/* Powered (or booting) and idle once the actions are taken? */
static bool _warm(const libra_power_node_t *n, libra_power_action_t a)
{
	if (n->busy)
		return false;
	if (n->state == LIBRA_NODE_OFF)
		return a == LIBRA_POWER_UP;
	return (n->state == LIBRA_NODE_ON || n->state == LIBRA_NODE_BOOTING) &&
	       a != LIBRA_POWER_DOWN;
}

extern int libra_power_keep_idle(const libra_power_node_t *nodes,
				 libra_power_action_t *act, int n,
				 const bool *set, int keep)
{
	int have = 0, changed = 0;

	for (int i = 0; i < n; i++)
		if ((!set || set[i]) && _warm(&nodes[i], act[i]))
			have++;
	/* removals cancelled first: no boot, no cost of a cycle */
	for (int i = 0; i < n && have < keep; i++)
		if ((!set || set[i]) && !nodes[i].busy &&
		    nodes[i].state == LIBRA_NODE_ON &&
		    act[i] == LIBRA_POWER_DOWN) {
			act[i] = LIBRA_POWER_KEEP;
			have++;
			changed++;
		}
	for (int i = 0; i < n && have < keep; i++)
		if ((!set || set[i]) && !nodes[i].busy &&
		    nodes[i].state == LIBRA_NODE_OFF &&
		    act[i] != LIBRA_POWER_UP) {
			act[i] = LIBRA_POWER_UP;
			have++;
			changed++;
		}
	return changed;
}

extern void libra_power_node_use(const libra_ledger_t *l, int node,
				 double now, bool *busy, double *next_use)
{
	const libra_entry_t *e;
	int n = libra_ledger_node_entries(l, node, &e);

	*busy = false;
	*next_use = INFINITY;
	for (int i = 0; i < n; i++) {
		if (e[i].start <= now)
			*busy = true;
		else if (e[i].start < *next_use)
			*next_use = e[i].start;
	}
}

typedef struct {
	double start, cost;
} _cand_t;

/* a before b: cheaper by more than rounding, or as cheap and earlier */
static bool _before(const _cand_t *a, const _cand_t *b)
{
	double eps = 1e-9 * fmax(fabs(a->cost), fabs(b->cost));

	if (a->cost < b->cost - eps)
		return true;
	if (a->cost > b->cost + eps)
		return false;
	return a->start < b->start;
}

extern int libra_power_starts(const libra_power_cfg_t *c,
			      const libra_tariff_t *t, double earliest,
			      double latest, double work, double *starts,
			      int max)
{
	_cand_t cand[LIBRA_TARIFF_MAX * 2 + 2];
	int n = 0, out = 0;

	if (max <= 0)
		return 0;
	if (!libra_power_defers(c->heuristic) || !(latest > earliest) ||
	    !t->n) {
		starts[0] = earliest;
		return 1;
	}
	cand[n++] = (_cand_t) { earliest, 0 };
	/* every change of rate in (earliest, latest], within two days (a
	 * later start repeats an earlier day's) */
	for (double s = libra_tariff_next_change(t, earliest);
	     s <= latest && s < earliest + 2 * 86400.0 &&
	     n < (int) (sizeof(cand) / sizeof(cand[0])) - 1;
	     s = libra_tariff_next_change(t, s))
		cand[n++] = (_cand_t) { s, 0 };
	if (cand[n - 1].start < latest)
		cand[n++] = (_cand_t) { latest, 0 };
	for (int i = 0; i < n; i++)
		cand[i].cost = libra_tariff_cost(t, cand[i].start,
						 cand[i].start + work);
	/* insertion sort by cost, then time (n is small) */
	for (int i = 1; i < n; i++) {
		_cand_t x = cand[i];
		int j = i - 1;

		while (j >= 0 && _before(&x, &cand[j])) {
			cand[j + 1] = cand[j];
			j--;
		}
		cand[j + 1] = x;
	}
	for (int i = 0; i < n && out < max; i++)
		starts[out++] = cand[i].start;
	return out;
}
