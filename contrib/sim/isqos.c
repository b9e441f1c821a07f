/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  isqos.c - libra-sim's ISQoS market (--policy isqos; Kavanagh & Djemame
 *  2014, doc/design.md decision 46): N providers, the machine's CPUs split
 *  evenly among them, each pricing by the actions in its schedule and
 *  scheduling Round Robin; a broker that asks every provider for an offer,
 *  ranks the offers by profit and takes the first its filter passes (the
 *  core's isqos.c).
 *
 *  A provider's schedule: each CPU's planned free time.  A job of P CPUs
 *  goes on the P CPUs that free first, never before the start of the job
 *  placed before it (Round Robin keeps every reservation), for its
 *  estimate; Slurm's time limit stops it there.  Nothing moves once
 *  placed, so jobs are decided in the order they arrive.
 *
 *  --isqos KEY=VALUE,...: providers=N (2), filter=hybrid|going|profit|top
 *  (hybrid), history=N (10), deviation=F (0.1), min-rate=R (0), slope=K
 *  (1), price=count|queued (count: every job placed and not yet billed;
 *  queued: the re-priced variant, only those not started).
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "isqos.h"
#include "outcome.h"
#include "sim.h"

/* One provider: its CPUs' planned free times and the jobs it holds. */
typedef struct {
	int cpus;
	double *free;		/* each CPU's planned free time */
	double last_start;	/* the start of the job placed last */
	size_t n;		/* jobs not yet billed: */
	double *start, *end;	/* planned start, billing (actual end) */
	int *procs;
} _prov_t;

extern void sim_isqos_defaults(sim_isqos_cfg_t *c)
{
	memset(c, 0, sizeof(*c));
	c->providers = 2;		/* the paper's section 6.1 */
	c->broker.filter = LIBRA_ISQOS_HYBRID;
	c->broker.history = 10;
	c->broker.deviation = 0.1;
	c->slope = 1.0;
}

static int _num(const char *key, const char *v, double lo, double hi,
		double *out, char *err, size_t errlen)
{
	char *end;
	double x = strtod(v, &end);

	if (end == v || *end || !isfinite(x) || x < lo || x > hi) {
		snprintf(err, errlen, "--isqos: %s='%s' is not a number in "
			 "[%g, %g]", key, v, lo, hi);
		return -1;
	}
	*out = x;
	return 0;
}

extern int sim_isqos_parse(const char *spec, sim_isqos_cfg_t *c, char *err,
			   size_t errlen)
{
	char *s = strdup(spec), *save = NULL, *kv;
	int rc = 0;
	double x;

	for (kv = strtok_r(s, ",", &save); kv && !rc;
	     kv = strtok_r(NULL, ",", &save)) {
		char *v = strchr(kv, '=');

		if (!v) {
			snprintf(err, errlen, "--isqos: '%s' is not KEY=VALUE",
				 kv);
			rc = -1;
			break;
		}
		*v++ = '\0';
		if (!strcmp(kv, "providers")) {
			rc = _num(kv, v, 1, 1024, &x, err, errlen);
			c->providers = (int) x;
			if (!rc && x != c->providers) {
				snprintf(err, errlen, "--isqos: providers='%s'"
					 " is not a whole number", v);
				rc = -1;
			}
		} else if (!strcmp(kv, "filter")) {
			if (!libra_isqos_filter_from_name(v,
							  &c->broker.filter)) {
				snprintf(err, errlen, "--isqos: filter='%s' is "
					 "not hybrid, going, profit or top", v);
				rc = -1;
			}
		} else if (!strcmp(kv, "history")) {
			rc = _num(kv, v, 1, LIBRA_GOING_MAX, &x, err, errlen);
			c->broker.history = (int) x;
		} else if (!strcmp(kv, "deviation")) {
			rc = _num(kv, v, 0, 1, &c->broker.deviation, err,
				  errlen);
		} else if (!strcmp(kv, "min-rate")) {
			rc = _num(kv, v, 0, 1e12, &c->broker.min_rate, err,
				  errlen);
		} else if (!strcmp(kv, "slope")) {
			rc = _num(kv, v, 0, 1e6, &c->slope, err, errlen);
		} else if (!strcmp(kv, "price")) {
			if (!strcmp(v, "count") || !strcmp(v, "queued")) {
				c->queued = !strcmp(v, "queued");
			} else {
				snprintf(err, errlen, "--isqos: price='%s' is "
					 "not count or queued", v);
				rc = -1;
			}
		} else {
			snprintf(err, errlen, "--isqos: unknown key '%s' "
				 "(providers, filter, history, deviation, "
				 "min-rate, slope, price)", kv);
			rc = -1;
		}
	}
	free(s);
	return rc;
}

/* Drop the jobs billed by now; the actions of those left (queued: of those
 * not started). */
static double _actions(_prov_t *p, double now, bool queued)
{
	double a = 0.0;
	size_t i, k = 0;

	for (i = 0; i < p->n; i++) {
		if (p->end[i] <= now)
			continue;
		p->start[k] = p->start[i];
		p->end[k] = p->end[i];
		p->procs[k] = p->procs[i];
		if (!queued || p->start[k] > now)
			a += p->procs[k];
		k++;
	}
	p->n = k;
	return a;
}

static int _cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

/* A CPU and its planned free time. */
typedef struct {
	double t;
	int k;
} _slot_t;

static int _cmp_slot(const void *a, const void *b)
{
	const _slot_t *x = a, *y = b;

	if (x->t != y->t)
		return (x->t > y->t) - (x->t < y->t);
	return (x->k > y->k) - (x->k < y->k);
}

/* The Round Robin start of a job of procs CPUs at now; slot: the
 * provider's CPUs, the first free first. */
static double _start(const _prov_t *p, int procs, double now, _slot_t *slot)
{
	int k;

	for (k = 0; k < p->cpus; k++)
		slot[k] = (_slot_t) { .t = p->free[k], .k = k };
	qsort(slot, p->cpus, sizeof(*slot), _cmp_slot);
	return fmax(fmax(now, p->last_start), slot[procs - 1].t);
}

/* Place a job on the procs CPUs that free first (slot, from _start()),
 * from start to until; billed at end. */
static void _place(_prov_t *p, const _slot_t *slot, int procs, double start,
		   double until, double end)
{
	int k;

	for (k = 0; k < procs; k++)
		p->free[slot[k].k] = until;
	p->last_start = start;
	p->start = sim_xrealloc(p->start, (p->n + 1) * sizeof(*p->start));
	p->end = sim_xrealloc(p->end, (p->n + 1) * sizeof(*p->end));
	p->procs = sim_xrealloc(p->procs, (p->n + 1) * sizeof(*p->procs));
	p->start[p->n] = start;
	p->end[p->n] = end;
	p->procs[p->n] = procs;
	p->n++;
}

/* Mean and standard deviation of v[0..n-1]. */
static void _moments(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0.0, ss = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	*mean = n ? s / n : 0.0;
	for (i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*sd = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
}

/* The summary's measures of the run (sim.h). */
static void _stats(const sim_workload_t *w, const sim_outcome_t *out,
		   const double *rates, size_t nrates, sim_isqos_stats_t *st)
{
	double *ends = sim_xcalloc(w->n + 1, sizeof(*ends));
	size_t i, n = 0;

	_moments(rates, nrates, &st->rate_mean, &st->rate_sd);
	for (i = 0; i < w->n; i++)
		if (out[i].accepted)
			ends[n++] = out[i].end;
	qsort(ends, n, sizeof(*ends), _cmp_double);
	for (i = 1; i < n; i++)
		ends[i - 1] = ends[i] - ends[i - 1];
	_moments(ends, n ? n - 1 : 0, &st->bill_gap, &st->bill_gap_sd);
	free(ends);
	if (st->accepted) {
		st->budget_slack /= st->accepted;
		st->profit /= st->accepted;
		st->resilience /= st->accepted;
		st->profit_rate /= st->accepted;
	}
}

extern int sim_run_isqos(const sim_config_t *cfg, const sim_workload_t *w,
			 sim_model_t model, sim_outcome_t *out,
			 sim_isqos_stats_t *st, char *err, size_t errlen)
{
	const sim_isqos_cfg_t *c = &cfg->isqos;
	int np = c->providers, k, widest = 0;
	_prov_t *pv;
	libra_isqos_offer_t *offers;
	libra_going_t going;
	double base = libra_price_base_per_sec(&cfg->params);
	_slot_t *slot;
	double *rates = sim_xcalloc(w->n + 1, sizeof(*rates));
	size_t i, nrates = 0;

	if (cfg->bag_frac > 0.0 || cfg->reserve_frac > 0.0) {
		snprintf(err, errlen, "--bag-frac and --reserve-frac are not "
			 "modelled by the ISQoS market");
		free(rates);
		return -1;
	}
	if (np > w->procs)
		np = w->procs;
	memset(st, 0, sizeof(*st));
	st->providers = np;
	pv = sim_xcalloc(np, sizeof(*pv));
	for (k = 0; k < np; k++) {
		pv[k].cpus = w->procs / np + (k < w->procs % np);
		pv[k].free = sim_xcalloc(pv[k].cpus, sizeof(double));
		widest = pv[k].cpus > widest ? pv[k].cpus : widest;
	}
	slot = sim_xcalloc(widest, sizeof(*slot));
	offers = sim_xcalloc(np, sizeof(*offers));
	libra_going_init(&going);

	for (i = 0; i < w->n; i++) {
		const sim_job_t *j = &w->jobs[i];
		double now = j->submit, kk = sim_job_scale(j, model), m;
		libra_sla_t sla;
		int n = 0, pick;

		sim_job_sla(j, model, &sla);
		m = libra_params_markup(&cfg->params, j->tier);
		for (k = 0; k < np; k++) {
			libra_isqos_offer_t *o = &offers[n];
			double a = _actions(&pv[k], now, c->queued);

			if (j->procs > pv[k].cpus)
				continue;
			o->provider = k;
			o->now = now;
			o->cost = libra_isqos_rate(base, a, pv[k].cpus,
						   c->slope) *
				  j->procs * j->estimate;
			o->price = (1.0 + m) * o->cost;
			o->completion = _start(&pv[k], j->procs, now,
					       slot) + j->estimate;
			libra_offer_measure(&sla, o);
			n++;
		}
		if (!n) {
			sim_reject(&out[i], "resources");
			continue;
		}
		st->offers += n;
		libra_offers_rank(offers, n);
		/* the market's price: the top offer's per CPU-hour */
		rates[nrates++] = 3600.0 * offers[0].cost /
				  (j->procs * j->estimate);
		pick = libra_offer_select(&c->broker, &going, offers, n);
		if (pick < 0) {
			sim_reject(&out[i], libra_offer_refusal(&offers[0]));
			continue;
		} else {
			const libra_isqos_offer_t *o = &offers[pick];
			_prov_t *p = &pv[o->provider];
			double start = o->completion - j->estimate;
			double end = start + fmin(j->runtime, j->estimate);
			double paid = o->price;

			if (libra_sla_has_budget(&sla))
				paid = fmin(paid, sla.budget);
			_start(p, j->procs, now, slot);
			_place(p, slot, j->procs, start, o->completion, end);
			memset(&out[i], 0, sizeof(out[i]));
			sim_settle(j, model, paid, start, end, &out[i]);
			libra_going_add(&going, o->profit_rate,
					c->broker.history);
			st->accepted++;
			st->budget_slack += o->budget_slack / kk;
			st->profit += o->profit / kk;
			st->resilience += o->resilience / kk;
			st->profit_rate += o->profit_rate / kk;
		}
	}
	st->going = libra_going_rate(&going);
	_stats(w, out, rates, nrates, st);
	for (k = 0; k < np; k++) {
		free(pv[k].free);
		free(pv[k].start);
		free(pv[k].end);
		free(pv[k].procs);
	}
	free(pv);
	free(slot);
	free(offers);
	free(rates);
	return 0;
}
