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
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "outcome.h"
#include "pq.h"
#include "sim.h"
#include "squeue.h"

enum { ST_NEW = 0, ST_QUEUED, ST_RUNNING, ST_DONE, ST_REJECTED };

static double _pv(const sim_config_t *cfg, const sim_job_t *j)
{
	return j->budget / (1.0 + cfg->fr_discount * j->estimate);
}

extern int sim_run_firstreward(const sim_config_t *cfg,
			       const sim_workload_t *w, sim_model_t model,
			       sim_outcome_t *out, char *err, size_t errlen)
{
	size_t n = w->n, ai = 0, i;
	size_t *ord = sim_jobs_by_begin(w);	/* jobs become eligible */
	unsigned char *live = sim_xcalloc(n + 1, 1);
	unsigned char *state = sim_xcalloc(n + 1, 1);
	sim_squeue_t q;
	sim_pq_t done;
	double queued_pr = 0.0;	/* S: sum of PR per second of waiting jobs */
	long nqueued = 0;
	int free_procs = w->procs, head;

	memset(&q, 0, sizeof(q));
	memset(&done, 0, sizeof(done));

	while (ai < n || done.n) {
		double ta = ai < n ? w->jobs[ord[ai]].begin : INFINITY;
		double tc = done.n ? done.a[0].t : INFINITY;
		double now = ta < tc ? ta : tc;

		while (done.n && done.a[0].t <= now) {
			int k = sim_pq_pop(&done).idx;
			const sim_job_t *j = &w->jobs[k];

			free_procs += j->procs;
			state[k] = ST_DONE;
			sim_settle(j, model, sim_base_charge(cfg, j),
				   out[k].start, now, &out[k]);
		}
		while (ai < n && w->jobs[ord[ai]].begin <= now) {
			int k = (int) ord[ai++];
			const sim_job_t *j = &w->jobs[k];
			double rpt = j->estimate;
			double pr = j->penalty_rate / 3600.0;
			double pv = _pv(cfg, j);
			double cost = queued_pr * rpt;
			double slack, key;

			if (pr > 0)
				slack = (pv - cost) / pr;
			else
				slack = pv >= cost ? INFINITY : -INFINITY;
			if (slack < cfg->fr_slack) {
				state[k] = ST_REJECTED;
				sim_reject(&out[k], "slack");
				continue;
			}
			key = cfg->fr_alpha * pv / rpt +
			      (1.0 - cfg->fr_alpha) * pr;
			state[k] = ST_QUEUED;
			live[k] = 1;
			sim_squeue_insert(&q, -key, j->begin, k);
			queued_pr += pr;
			nqueued++;
		}
		while ((head = sim_squeue_head(&q, live)) >= 0 &&
		       w->jobs[head].procs <= free_procs) {
			const sim_job_t *j = &w->jobs[head];

			live[head] = 0;
			sim_squeue_dead(&q);
			state[head] = ST_RUNNING;
			free_procs -= j->procs;
			out[head].start = now;
			sim_pq_push(&done, now + j->runtime, head);
			/* subtracting drifts: recompute when the queue empties */
			if (--nqueued == 0)
				queued_pr = 0.0;
			else
				queued_pr -= j->penalty_rate / 3600.0;
		}
		sim_squeue_tidy(&q, live);
	}

	for (i = 0; i < n; i++)
		if (state[i] != ST_DONE && state[i] != ST_REJECTED)
			break;
	if (i < n)
		snprintf(err, errlen, "internal error: job %ld left in state "
			 "%d", w->jobs[i].id, state[i]);
	sim_squeue_free(&q);
	sim_pq_free(&done);
	free(live);
	free(state);
	free(ord);
	return i < n ? -1 : 0;
}
