/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  isqos.c - libra-sim's ISQoS market (--policy isqos; Kavanagh & Djemame
 *  2014, doc/design.md decision 51): N providers, the machine's CPUs split
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
 *  queued: the re-priced variant, only those not started), resched=on|off
 *  (off; on: Algorithm 1, a job inserted at the earliest place in the
 *  queue where the jobs after it, moved later, still meet their due
 *  dates; the jobs are settled on their final plans at the end).
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "isqos.h"
#include "outcome.h"
#include "sim.h"

/* A job a provider holds: its CPUs and plan (resched may move it). */
typedef struct {
	int procs;
	double est, run;	/* RE, and what it runs: min(R, RE) */
	double limit;		/* the latest completion it may be moved to:
				 * its due date or its offered completion */
	double start, done;	/* planned start and completion */
	double paid;		/* its price, at most the budget */
	int *cpu;		/* the CPUs it holds */
} _pj_t;

/*
 * One provider.  free: each CPU's planned free time after every job it
 * holds; base: after the started ones only (resched replays the queue on
 * it); act: the jobs not yet billed; queue: those not started, in
 * schedule order (their starts never decrease).
 */
typedef struct {
	int cpus;
	double *free, *base;
	double last_start;	/* the start of the queue's last job */
	size_t *act, nact;
	size_t *queue, nq;
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

/* One of two words: *out true for yes, false for no. */
static int _pick(const char *key, const char *v, const char *yes,
		 const char *no, bool *out, char *err, size_t errlen)
{
	if (strcmp(v, yes) && strcmp(v, no)) {
		snprintf(err, errlen, "--isqos: %s='%s' is not %s or %s", key,
			 v, yes, no);
		return -1;
	}
	*out = !strcmp(v, yes);
	return 0;
}

extern int sim_isqos_parse(const char *spec, sim_isqos_cfg_t *c, char *err,
			   size_t errlen)
{
	size_t len = strlen(spec) + 1;
	char *s = memcpy(sim_xmalloc(len), spec, len), *save = NULL, *kv;
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
		} else if (!strcmp(kv, "resched")) {
			rc = _pick(kv, v, "on", "off", &c->resched, err,
				   errlen);
		} else if (!strcmp(kv, "price")) {
			rc = _pick(kv, v, "queued", "count", &c->queued, err,
				   errlen);
		} else {
			snprintf(err, errlen, "--isqos: unknown key '%s' "
				 "(providers, filter, history, deviation, "
				 "min-rate, slope, price, resched)", kv);
			rc = -1;
		}
	}
	free(s);
	return rc;
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

/*
 * Round Robin: a job of procs CPUs for est seconds on the CPUs of free[]
 * that free first, never before now nor *last; free[] and *last updated,
 * its CPUs into cpu (NULL: not wanted).  Returns its start.
 */
static double _rr(double *free, int cpus, double *last, int procs,
		  double est, double now, _slot_t *slot, int *cpu)
{
	double start;
	int k;

	for (k = 0; k < cpus; k++)
		slot[k] = (_slot_t) { .t = free[k], .k = k };
	qsort(slot, cpus, sizeof(*slot), _cmp_slot);
	start = fmax(fmax(now, *last), slot[procs - 1].t);
	for (k = 0; k < procs; k++) {
		free[slot[k].k] = start + est;
		if (cpu)
			cpu[k] = slot[k].k;
	}
	*last = start;
	return start;
}

/* The jobs planned to start by now have started: off the queue, their
 * CPUs into base; the jobs billed by now off act.  Returns the actions
 * left: the CPUs of the jobs held (queued: of those not started). */
static double _advance(_prov_t *p, const _pj_t *pj, double now, bool queued)
{
	double a = 0.0;
	size_t i, k = 0;
	int c;

	while (k < p->nq && pj[p->queue[k]].start <= now) {
		const _pj_t *j = &pj[p->queue[k++]];

		for (c = 0; c < j->procs; c++)
			p->base[j->cpu[c]] = j->done;
	}
	memmove(p->queue, p->queue + k, (p->nq - k) * sizeof(*p->queue));
	p->nq -= k;
	for (i = 0, k = 0; i < p->nact; i++) {
		const _pj_t *j = &pj[p->act[i]];

		if (j->start + j->run <= now)
			continue;
		p->act[k++] = p->act[i];
		if (!queued || j->start > now)
			a += j->procs;
	}
	p->nact = k;
	return a;
}

/*
 * Resched (Algorithm 1): the earliest place q in p's queue where a job
 * of procs CPUs for est seconds goes in with every later job of the queue,
 * moved later, still done by its limit; the job's start there into
 * *start.  Without resched, the queue's end.  trial, state: room for the
 * CPUs' free times.
 */
static size_t _insert_at(const _prov_t *p, const _pj_t *pj, bool resched,
			 int procs, double est, double now, _slot_t *slot,
			 double *state, double *trial, double *start)
{
	size_t q, r;
	double last = now, tl;

	if (!resched) {
		memcpy(trial, p->free, p->cpus * sizeof(*trial));
		tl = p->last_start;
		*start = _rr(trial, p->cpus, &tl, procs, est, now, slot, NULL);
		return p->nq;
	}
	memcpy(state, p->base, p->cpus * sizeof(*state));
	for (q = 0; q <= p->nq; q++) {
		bool ok = true;

		memcpy(trial, state, p->cpus * sizeof(*trial));
		tl = last;
		*start = _rr(trial, p->cpus, &tl, procs, est, now, slot, NULL);
		for (r = q; r < p->nq && ok; r++) {
			const _pj_t *j = &pj[p->queue[r]];

			ok = _rr(trial, p->cpus, &tl, j->procs, j->est, now,
				 slot, NULL) + j->est <= j->limit;
		}
		if (ok)
			return q;
		_rr(state, p->cpus, &last, pj[p->queue[q]].procs,
		    pj[p->queue[q]].est, now, slot, NULL);
	}
	return p->nq;	/* not reached: the end always fits */
}

/* Commit job i into p's queue at q (from _insert_at()): the queue
 * replayed from base with it (without resched: placed at the end). */
static void _commit(_prov_t *p, _pj_t *pj, size_t i, size_t q, bool resched,
		    double now, _slot_t *slot)
{
	size_t r;

	p->queue = sim_xrealloc(p->queue, (p->nq + 1) * sizeof(*p->queue));
	p->act = sim_xrealloc(p->act, (p->nact + 1) * sizeof(*p->act));
	memmove(p->queue + q + 1, p->queue + q,
		(p->nq - q) * sizeof(*p->queue));
	p->queue[q] = i;
	p->nq++;
	p->act[p->nact++] = i;
	if (!resched) {
		pj[i].start = _rr(p->free, p->cpus, &p->last_start, pj[i].procs,
				  pj[i].est, now, slot, pj[i].cpu);
		pj[i].done = pj[i].start + pj[i].est;
		return;
	}
	memcpy(p->free, p->base, p->cpus * sizeof(*p->free));
	p->last_start = now;
	for (r = 0; r < p->nq; r++) {
		_pj_t *j = &pj[p->queue[r]];

		j->start = _rr(p->free, p->cpus, &p->last_start, j->procs,
			       j->est, now, slot, j->cpu);
		j->done = j->start + j->est;
	}
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

/* The accepted jobs settled on their final plans. */
static void _settle_all(const sim_workload_t *w, sim_model_t model,
			const _pj_t *pj, sim_outcome_t *out)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		if (!pj[i].cpu)
			continue;
		memset(&out[i], 0, sizeof(out[i]));
		sim_settle(&w->jobs[i], model, pj[i].paid, pj[i].start,
			   pj[i].start + pj[i].run, &out[i]);
	}
}

extern int sim_run_isqos(const sim_config_t *cfg, const sim_workload_t *w,
			 sim_model_t model, sim_outcome_t *out,
			 sim_isqos_stats_t *st, char *err, size_t errlen)
{
	const sim_isqos_cfg_t *c = &cfg->isqos;
	int np = c->providers, k, widest = 0;
	_prov_t *pv;
	_pj_t *pj;
	libra_isqos_offer_t *offers;
	libra_going_t going;
	double base = libra_price_base_per_sec(&cfg->params);
	double *state, *trial, *rates;
	_slot_t *slot;
	size_t i, nrates = 0, *qat;

	if (cfg->bag_frac > 0.0 || cfg->reserve_frac > 0.0) {
		snprintf(err, errlen, "--bag-frac and --reserve-frac are not "
			 "modelled by the ISQoS market");
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
		pv[k].base = sim_xcalloc(pv[k].cpus, sizeof(double));
		widest = pv[k].cpus > widest ? pv[k].cpus : widest;
	}
	pj = sim_xcalloc(w->n + 1, sizeof(*pj));
	rates = sim_xcalloc(w->n + 1, sizeof(*rates));
	slot = sim_xcalloc(widest, sizeof(*slot));
	state = sim_xcalloc(widest, sizeof(*state));
	trial = sim_xcalloc(widest, sizeof(*trial));
	offers = sim_xcalloc(np, sizeof(*offers));
	qat = sim_xcalloc(np, sizeof(*qat));
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
			double a = _advance(&pv[k], pj, now, c->queued), start;

			if (j->procs > pv[k].cpus)
				continue;
			qat[k] = _insert_at(&pv[k], pj, c->resched, j->procs,
					    j->estimate, now, slot, state,
					    trial, &start);
			o->provider = k;
			o->now = now;
			o->cost = libra_isqos_rate(base, a, pv[k].cpus,
						   c->slope) *
				  j->procs * j->estimate;
			o->price = (1.0 + m) * o->cost;
			o->completion = start + j->estimate;
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
			_pj_t *q = &pj[i];

			q->procs = j->procs;
			q->est = j->estimate;
			q->run = fmin(j->runtime, j->estimate);
			q->limit = fmax(j->due_date > 0.0 ? j->due_date :
					j->deadline, o->completion);
			q->paid = o->price;
			if (libra_sla_has_budget(&sla))
				q->paid = fmin(q->paid, sla.budget);
			q->cpu = sim_xcalloc(j->procs, sizeof(*q->cpu));
			_commit(&pv[o->provider], pj, i, qat[o->provider],
				c->resched, now, slot);
			libra_going_add(&going, o->profit_rate,
					c->broker.history);
			st->accepted++;
			st->budget_slack += o->budget_slack / kk;
			st->profit += o->profit / kk;
			st->resilience += o->resilience / kk;
			st->profit_rate += o->profit_rate / kk;
		}
	}
	_settle_all(w, model, pj, out);
	st->going = libra_going_rate(&going);
	_stats(w, out, rates, nrates, st);
	for (k = 0; k < np; k++) {
		free(pv[k].free);
		free(pv[k].base);
		free(pv[k].act);
		free(pv[k].queue);
	}
	for (i = 0; i < w->n; i++)
		free(pj[i].cpu);
	free(pv);
	free(pj);
	free(slot);
	free(state);
	free(trial);
	free(offers);
	free(qat);
	free(rates);
	return 0;
}
