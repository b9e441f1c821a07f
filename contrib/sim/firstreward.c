/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  firstreward.c - FirstReward (Irwin, Grit and Chase, HPDC 2004), as the
 *  Yeo thesis extends it to parallel jobs (section 6.4.2).
 *
 *  For a job i with estimated remaining processing time RPT_i (its RE while
 *  it waits), budget B_i and penalty rate PR_i:
 *
 *	PV_i     = B_i / (1 + discount * RPT_i)		present value
 *	cost_i   = sum_{j != i} PR_j * RPT_i			opportunity cost
 *	reward_i = (alpha PV_i - (1 - alpha) cost_i) / RPT_i
 *	slack_i  = (PV_i - cost_i) / PR_i
 *
 *  A job is refused at submission ("slack") if slack_i < threshold;
 *  otherwise it waits in a queue ordered by reward (highest first) and
 *  starts when the head of that queue fits in the free processors.  There
 *  is no backfilling (the thesis says so), and a started job runs to its
 *  end however late (non-preemptive, unbounded penalty).
 *
 *  Decisions where the thesis is silent:
 *  - The "other accepted jobs" of cost_i are the accepted jobs still
 *    waiting: running i delays them by RPT_i (Irwin et al.'s opportunity
 *    cost); running jobs are not delayed by i.
 *  - Units are those of the thesis' GridSim runs: time in seconds, PR per
 *    second (PR per hour / 3600), the discount rate per second of RPT and
 *    the slack in seconds; alpha 1, discount 1% and threshold 25 are the
 *    thesis' settings (--fr-alpha, --fr-discount, --fr-slack).
 *  - With alpha fixed, reward_i = alpha PV_i/RPT_i - (1-alpha)(S - PR_i)
 *    where S is the penalty rate of the whole queue, so the order of the
 *    queue is that of alpha PV_i/RPT_i + (1-alpha) PR_i, a constant of the
 *    job: the queue stays sorted without recomputing rewards.
 *  - A job with PR = 0 has infinite slack (accepted) unless PV < cost.
 *  - An advance reservation (--reserve-frac) is submitted to the queue at
 *    its begin: it is not eligible before, and refusing it earlier on
 *    the queue of then would weigh waiting jobs it cannot delay.
 *  - A bag's tasks (--bag-frac; bags.c) are ordinary jobs here, a
 *    throttled bag's submitted k at a time (bags.h).
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bags.h"
#include "outcome.h"
#include "pq.h"
#include "sim.h"
#include "squeue.h"

enum { ST_NEW = 0, ST_QUEUED, ST_RUNNING, ST_DONE, ST_REJECTED };

static double _pv(const sim_config_t *cfg, const sim_job_t *j)
{
	return j->budget / (1.0 + cfg->fr_discount * j->estimate);
}

typedef struct {
	const sim_config_t *cfg;
	const sim_workload_t *w;
	sim_model_t model;
	sim_outcome_t *out;
	unsigned char *live, *state;
	sim_squeue_t q;
	sim_pq_t done;
	double queued_pr;	/* S: sum of PR per second of waiting jobs */
	long nqueued;
	int free_procs;
	sim_gate_t gate;	/* a throttled bag's tasks (bags.h) */
} fr_t;

/* Job k is submitted: refused on its slack, or queued by its reward; a
 * refused task of a throttled bag lets the next one come. */
static void _arrive(fr_t *f, int k)
{
	const sim_config_t *cfg = f->cfg;

	while (k >= 0) {
		const sim_job_t *j = &f->w->jobs[k];
		double rpt = j->estimate;
		double pr = j->penalty_rate / 3600.0;
		double pv = _pv(cfg, j);
		double cost = f->queued_pr * rpt;
		double slack, key;

		if (pr > 0)
			slack = (pv - cost) / pr;
		else
			slack = pv >= cost ? INFINITY : -INFINITY;
		if (slack < cfg->fr_slack) {
			f->state[k] = ST_REJECTED;
			sim_reject(&f->out[k], "slack");
			k = sim_gate_release(&f->gate, (size_t) k);
			continue;
		}
		key = cfg->fr_alpha * pv / rpt + (1.0 - cfg->fr_alpha) * pr;
		f->state[k] = ST_QUEUED;
		f->live[k] = 1;
		sim_squeue_insert(&f->q, -key, j->begin, k);
		f->queued_pr += pr;
		f->nqueued++;
		return;
	}
}

/* Job k ends at now: settled; a task its bag held back comes. */
static void _complete(fr_t *f, int k, double now)
{
	const sim_job_t *j = &f->w->jobs[k];

	f->free_procs += j->procs;
	f->state[k] = ST_DONE;
	sim_settle(j, f->model, sim_base_charge(f->cfg, j), f->out[k].start,
		   now, &f->out[k]);
	_arrive(f, sim_gate_release(&f->gate, (size_t) k));
}

/* Start jobs from the head of the reward queue while they fit (the event
 * loop's pass). */
static void _start(void *e, double now)
{
	fr_t *f = e;
	int head;

	while ((head = sim_squeue_head(&f->q, f->live)) >= 0 &&
	       f->w->jobs[head].procs <= f->free_procs) {
		const sim_job_t *j = &f->w->jobs[head];

		sim_squeue_remove(&f->q, f->live, head);
		f->state[head] = ST_RUNNING;
		f->free_procs -= j->procs;
		f->out[head].start = now;
		sim_pq_push(&f->done, now + j->runtime, head);
		/* subtracting drifts: recompute when the queue empties */
		if (--f->nqueued == 0)
			f->queued_pr = 0.0;
		else
			f->queued_pr -= j->penalty_rate / 3600.0;
	}
	sim_squeue_tidy(&f->q, f->live);
}

/* the event loop's calls (sim_spaced_events()) */
static void _on_complete(void *e, int i, double now)
{
	_complete(e, i, now);
}

static void _on_arrive(void *e, int i)
{
	_arrive(e, i);
}

extern int sim_run_firstreward(const sim_config_t *cfg,
			       const sim_workload_t *w, sim_model_t model,
			       sim_outcome_t *out, char *err, size_t errlen)
{
	size_t n = w->n, i;
	fr_t f;

	memset(&f, 0, sizeof(f));
	f.cfg = cfg;
	f.w = w;
	f.model = model;
	f.out = out;
	f.live = sim_xcalloc(n + 1, 1);
	f.state = sim_xcalloc(n + 1, 1);
	f.free_procs = w->procs;
	sim_gate_init(&f.gate, w);

	sim_spaced_events(w, &(sim_spaced_t) {
		.engine = &f, .complete = _on_complete, .arrive = _on_arrive,
		.pass = _start, .done = &f.done, .gate = &f.gate,
	});

	for (i = 0; i < n; i++)
		if (f.state[i] != ST_DONE && f.state[i] != ST_REJECTED)
			break;
	if (i < n)
		snprintf(err, errlen, "internal error: job %ld left in state "
			 "%d", w->jobs[i].id, f.state[i]);
	sim_squeue_free(&f.q);
	sim_pq_free(&f.done);
	sim_gate_free(&f.gate);
	free(f.live);
	free(f.state);
	return i < n ? -1 : 0;
}
