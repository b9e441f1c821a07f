/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  bags.c - bags of tasks (--bag-frac; doc/design.md decision 36): a job
 *  array of N tasks under one SLA, at most k at once.
 *
 *  The time-shared engine (timeshare.c) admits a bag as the one job the
 *  core makes of it (libra_bag_sla(): L lanes x the task's CPUs, W x its
 *  RE) and settles it once.  The space-shared engines have no SLA to
 *  admit a bag by: there, as Slurm runs an array, a bag is its N tasks,
 *  each an ordinary job with the bag's deadline and an N-th of its money,
 *  at most k of them queued at once (bags.h), and the bag is then settled
 *  once from its tasks' outcomes (sim_run_spaced()): met when every task
 *  ended by the deadline, charged what its tasks' prices add up to,
 *  settled on its last task's end; refused when any task was refused
 *  (its other tasks may have run: the bag is left half done).
 *
 *  --bag-mode each replaces every bag by its tasks in the workload itself
 *  (workload.c), so that every engine runs them as N jobs, each with an
 *  SLA of its own; sim_bag_stats() then counts a bag met when all its
 *  tasks were.
\*****************************************************************************/

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bags.h"
#include "outcome.h"
#include "sim.h"

extern bool sim_job_is_bag(const sim_job_t *j)
{
	return j->bag.tasks > 0 && j->task < 0;
}

extern double sim_job_work(const sim_job_t *j)
{
	if (sim_job_is_bag(j))
		return j->task_runtime * j->task_procs * j->bag.tasks;
	return j->runtime * j->procs;
}

/* Task t of bag b: the trace's job with the bag's deadline and urgency,
 * an N-th of its budget, penalty rate and penalty cap. */
static void _task(const sim_job_t *b, int t, bool gated, sim_job_t *j)
{
	double n = b->bag.tasks;

	*j = *b;
	j->task = t;
	j->gate = gated ? b->bag.lanes : 0;
	j->procs = b->task_procs;
	j->runtime = b->task_runtime;
	j->estimate = b->task_estimate;
	j->budget = b->budget / n;
	j->penalty_rate = b->penalty_rate / n;
	if (b->penalty_cap >= 0.0)
		j->penalty_cap = b->penalty_cap / n;
}

extern void sim_bag_tasks(const sim_workload_t *w, bool gated,
			  sim_workload_t *tw, size_t **of)
{
	size_t n = 0, i, t = 0;

	for (i = 0; i < w->n; i++)
		n += sim_job_is_bag(&w->jobs[i]) ? (size_t) w->jobs[i].bag.tasks
						 : 1;
	*tw = *w;
	tw->hist = NULL;
	tw->nhist = 0;
	tw->n = n;
	tw->jobs = sim_xcalloc(n ? n : 1, sizeof(*tw->jobs));
	if (of)
		*of = sim_xcalloc(n ? n : 1, sizeof(**of));
	for (i = 0; i < w->n; i++) {
		const sim_job_t *j = &w->jobs[i];
		int k, span = sim_job_is_bag(j) ? j->bag.tasks : 1;

		for (k = 0; k < span; k++, t++) {
			if (sim_job_is_bag(j))
				_task(j, k, gated, &tw->jobs[t]);
			else
				tw->jobs[t] = *j;
			if (of)
				(*of)[t] = i;
		}
	}
}

/* ---- the throttle on the space-shared engines (bags.h) ------------------- */

extern void sim_gate_init(sim_gate_t *g, const sim_workload_t *w)
{
	g->w = w;
	g->next = NULL;
	for (size_t i = 0; i < w->n; i++) {
		const sim_job_t *j = &w->jobs[i];

		if (!j->gate || j->task)
			continue;
		if (!g->next)
			g->next = sim_xcalloc(w->n, sizeof(*g->next));
		g->next[i] = j->gate;
	}
}

extern bool sim_gate_held(const sim_gate_t *g, size_t i)
{
	const sim_job_t *j = &g->w->jobs[i];

	return g->next && j->gate && j->task >= j->gate;
}

extern int sim_gate_release(sim_gate_t *g, size_t i)
{
	const sim_job_t *j = &g->w->jobs[i];
	size_t first;

	if (!g->next || !j->gate)
		return -1;
	first = i - (size_t) j->task;
	if (g->next[first] >= j->bag.tasks)
		return -1;
	return (int) first + g->next[first]++;
}

extern void sim_gate_free(sim_gate_t *g)
{
	free(g->next);
	g->next = NULL;
}

extern void sim_spaced_events(const sim_workload_t *w, const sim_spaced_t *sp)
{
	size_t n = w->n, ai = 0;
	size_t *ord = sim_jobs_by_begin(w);	/* jobs become eligible */
	sim_pq_t *done = sp->done;

	while (ai < n || done->n) {
		double ta = ai < n ? w->jobs[ord[ai]].begin : INFINITY;
		double tc = done->n ? done->a[0].t : INFINITY;
		double now = ta < tc ? ta : tc;

		while (done->n && done->a[0].t <= now)
			sp->complete(sp->engine, sim_pq_pop(done).idx, now);
		for (; ai < n && w->jobs[ord[ai]].begin <= now; ai++)
			if (!sim_gate_held(sp->gate, ord[ai]))
				sp->arrive(sp->engine, (int) ord[ai]);
		sp->pass(sp->engine, now);
	}
	free(ord);
}

/* ---- a bag from its tasks ------------------------------------------------- */

/*
 * Bag b from its tasks' outcomes to[0 .. N - 1] (tasks tj): settled once
 * when every task ran, at what their prices add up to (in the core's
 * money), from its first task's start to its last task's end; else
 * refused with the first refusal's verdict, noting how many tasks ran.
 */
static void _fold(const sim_job_t *b, sim_model_t model, const sim_job_t *tj,
		  const sim_outcome_t *to, sim_outcome_t *o)
{
	const char *why = NULL;
	double price = 0.0, start = INFINITY, end = 0.0;
	int run = 0;

	for (int t = 0; t < b->bag.tasks; t++) {
		if (!to[t].accepted) {
			if (!why)
				why = to[t].verdict;
			continue;
		}
		run++;
		price += to[t].price * sim_job_scale(&tj[t], model);
		start = fmin(start, to[t].start);
		end = fmax(end, to[t].end);
	}
	if (run < b->bag.tasks) {
		sim_reject(o, why);
		o->tasks_run = run;
		return;
	}
	sim_settle(b, model, price, start, end, o);
}

static int _engine(const sim_config_t *cfg, const sim_workload_t *w,
		   sim_policy_t policy, sim_model_t model, sim_outcome_t *out,
		   char *err, size_t errlen)
{
	if (policy == SIM_FIRST_REWARD)
		return sim_run_firstreward(cfg, w, model, out, err, errlen);
	return sim_run_backfill(cfg, w, policy, model, out, err, errlen);
}

extern int sim_run_spaced(const sim_config_t *cfg, const sim_workload_t *w,
			  sim_policy_t policy, sim_model_t model,
			  sim_outcome_t *out, char *err, size_t errlen)
{
	sim_workload_t tw;
	sim_outcome_t *to;
	size_t *of, t;
	int rc;

	if (!(cfg->bag_frac > 0.0) || cfg->bag_each)
		return _engine(cfg, w, policy, model, out, err, errlen);
	sim_bag_tasks(w, true, &tw, &of);
	to = sim_xcalloc(tw.n + 1, sizeof(*to));
	rc = _engine(cfg, &tw, policy, model, to, err, errlen);
	for (t = 0; !rc && t < tw.n;) {
		const sim_job_t *j = &w->jobs[of[t]];

		if (sim_job_is_bag(j)) {
			_fold(j, model, &tw.jobs[t], &to[t], &out[of[t]]);
			t += (size_t) j->bag.tasks;
		} else {
			out[of[t]] = to[t];
			t++;
		}
	}
	free(to);
	free(of);
	free(tw.jobs);
	return rc;
}

/* ---- the summary's bag fields --------------------------------------------- */

extern void sim_bag_stats(const sim_workload_t *w, const sim_outcome_t *out,
			  sim_bag_stats_t *st)
{
	libra_metrics_t m;
	size_t i = 0;

	memset(st, 0, sizeof(*st));
	libra_metrics_init(&m);
	while (i < w->n) {
		const sim_job_t *j = &w->jobs[i];
		int n = j->bag.tasks, run = 0, met = 0;
		/* a bag, or its N tasks one by one (--bag-mode each) */
		int span = sim_job_is_bag(j) ? 1 : n;

		if (!n) {
			i++;
			continue;
		}
		for (int k = 0; k < span; k++) {
			const sim_outcome_t *o = &out[i + k];
			libra_job_result_t r;

			sim_result(&w->jobs[i + k], o, &r);
			libra_metrics_add(&m, &r);
			if (span == 1) {
				run = o->accepted ? n : o->tasks_run;
				met = o->accepted && o->met ? n : 0;
			} else {
				run += o->accepted;
				met += o->accepted && o->met;
			}
		}
		st->bags++;
		st->tasks += n;
		st->refused += n - run;
		st->met += met == n;
		st->partial += run > 0 && run < n;
		i += (size_t) span;
	}
	libra_metrics_finish(&m);
	st->profit = m.profitability;
}
