/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  backfill.c - FCFS-BF, SJF-BF and EDF-BF: EASY backfilling on P
 *  processors, space-shared, with the Yeo thesis' "generous" admission.
 *
 *  The baselines of the thesis (section 3.5.2, 5.3.2, 6.4.2; Mu'alem and
 *  Feitelson 2001 for EASY): one queue ordered by submission (FCFS), by
 *  runtime estimate (SJF) or by deadline (EDF); a job runs on dedicated
 *  processors from start to end.
 *
 *  A scheduling pass runs after every batch of simultaneous events
 *  (arrivals, completions):
 *
 *  1. Generous admission: every waiting job that can no longer meet its
 *     deadline, i.e. now + RE > TD (which includes a deadline already
 *     passed), is removed and counted as rejected ("deadline").
 *  2. Jobs start from the head of the queue while they fit.
 *  3. The head job that does not fit gets a reservation at the shadow time:
 *     the earliest time at which, by the running jobs' estimated ends
 *     (start + RE, or now for a job past its estimate), enough processors
 *     are free for it.  "extra" is what is then free beyond its need.
 *  4. Backfilling: every other waiting job, in queue order, starts now if
 *     it fits in the free processors and either ends by estimate before
 *     the shadow time or uses no more than the extra processors (which it
 *     then consumes).
 *
 *  Jobs run their actual run time R, even past their estimate (nothing is
 *  preempted or killed; thesis 6.4.2).  Commodity market: the charge is
 *  C = RE * PBase per CPU (sim_base_charge), earned only if the deadline is
 *  met, and a job whose C exceeds its budget is refused at submission
 *  ("budget": the provider sets the price and the budget caps it, thesis
 *  6.4.1).  Bid-based: the job earns U = B - DY * PR.
 *
 *  An advance reservation (--reserve-frac) is not eligible before its
 *  begin, as Slurm holds a job with --begin: it enters the queue then, and
 *  FCFS orders it by its begin.
 *
 *  A bag's tasks (--bag-frac; bags.c) are ordinary jobs here; a throttled
 *  bag's are submitted k at a time (bags.h): the next when one ends or is
 *  refused.
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

typedef struct {
	double est_end;		/* start + RE */
	int idx;
} run_t;

typedef struct {
	const sim_config_t *cfg;
	const sim_workload_t *w;
	sim_policy_t policy;
	sim_model_t model;
	sim_outcome_t *out;

	unsigned char *live;	/* waiting in the queue */
	unsigned char *state;
	double *latest;		/* TD - RE: the latest start that meets TD */
	sim_squeue_t queue;
	sim_pq_t expiry;	/* (latest start, job) of waiting jobs */
	sim_pq_t done;		/* (actual end, job) of running jobs */
	run_t *run;		/* running jobs by estimated end */
	size_t nrun, caprun;
	int free;
	sim_gate_t gate;	/* a throttled bag's tasks */
} bf_t;

static int _run_less(const run_t *x, double est_end, int idx)
{
	return x->est_end < est_end ||
	       (x->est_end == est_end && x->idx < idx);
}

static size_t _run_find(const bf_t *b, double est_end, int idx)
{
	size_t lo = 0, hi = b->nrun;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (_run_less(&b->run[mid], est_end, idx))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void _start(bf_t *b, int i, double now)
{
	const sim_job_t *j = &b->w->jobs[i];
	double est_end = now + j->estimate;
	size_t pos;

	sim_squeue_remove(&b->queue, b->live, i);
	b->state[i] = ST_RUNNING;
	b->free -= j->procs;
	b->out[i].start = now;
	sim_pq_push(&b->done, now + j->runtime, i);

	if (b->nrun == b->caprun) {
		b->caprun = b->caprun ? b->caprun * 2 : 64;
		b->run = sim_xrealloc(b->run, b->caprun * sizeof(*b->run));
	}
	pos = _run_find(b, est_end, i);
	memmove(&b->run[pos + 1], &b->run[pos],
		(b->nrun - pos) * sizeof(*b->run));
	b->run[pos].est_end = est_end;
	b->run[pos].idx = i;
	b->nrun++;
}

static void _arrive(bf_t *b, int i);

/* Job i ended or was refused: a task its bag held back comes now. */
static void _release(bf_t *b, int i)
{
	int k = sim_gate_release(&b->gate, (size_t) i);

	if (k >= 0)
		_arrive(b, k);
}

static void _complete(bf_t *b, int i, double now)
{
	const sim_job_t *j = &b->w->jobs[i];
	double start = b->out[i].start;
	size_t pos = _run_find(b, start + j->estimate, i);

	memmove(&b->run[pos], &b->run[pos + 1],
		(b->nrun - pos - 1) * sizeof(*b->run));
	b->nrun--;
	b->free += j->procs;
	b->state[i] = ST_DONE;
	sim_settle(j, b->model, sim_base_charge(b->cfg, j), start, now,
		   &b->out[i]);
	_release(b, i);
}

static void _reject(bf_t *b, int i, const char *why)
{
	if (b->live[i])
		sim_squeue_remove(&b->queue, b->live, i);
	b->state[i] = ST_REJECTED;
	sim_reject(&b->out[i], why);
	_release(b, i);
}

static void _arrive(bf_t *b, int i)
{
	const sim_job_t *j = &b->w->jobs[i];
	double a;

	if (b->model == SIM_MODEL_COMMODITY &&
	    sim_base_charge(b->cfg, j) >
	    j->budget * sim_job_scale(j, b->model)) {
		_reject(b, i, "budget");
		return;
	}
	switch (b->policy) {
	case SIM_SJF_BF:
		a = j->estimate;
		break;
	case SIM_EDF_BF:
		a = j->deadline;
		break;
	case SIM_FCFS_BF:
	default:
		a = j->begin;
		break;
	}
	b->state[i] = ST_QUEUED;
	b->live[i] = 1;
	sim_squeue_insert(&b->queue, a, j->begin, i);
	sim_pq_push(&b->expiry, b->latest[i], i);
}

static void _pass(bf_t *b, double now)
{
	const sim_job_t *jobs = b->w->jobs;
	sim_squeue_t *q = &b->queue;
	double shadow = now;
	int head, avail, extra = 0;
	size_t k;

	/* 1. generous admission: now + RE > TD  <=>  now > TD - RE */
	while (b->expiry.n && b->expiry.a[0].t < now) {
		int i = sim_pq_pop(&b->expiry).idx;

		if (b->state[i] == ST_QUEUED)
			_reject(b, i, "deadline");
	}

	/* 2. start from the head while jobs fit */
	while ((head = sim_squeue_head(q, b->live)) >= 0 &&
	       jobs[head].procs <= b->free)
		_start(b, head, now);
	if (head < 0 || b->free == 0) {
		sim_squeue_tidy(q, b->live);
		return;
	}

	/* 3. the head's reservation */
	avail = b->free;
	for (k = 0; k < b->nrun; k++) {
		const run_t *r = &b->run[k];

		avail += jobs[r->idx].procs;
		if (avail >= jobs[head].procs) {
			shadow = r->est_end > now ? r->est_end : now;
			extra = avail - jobs[head].procs;
			break;
		}
	}

	/* 4. backfill the rest in queue order */
	for (k = q->head + 1; k < q->len && b->free > 0; k++) {
		int i = q->k[k].idx;
		const sim_job_t *j = &jobs[i];

		if (!b->live[i] || j->procs > b->free)
			continue;
		if (now + j->estimate <= shadow) {
			_start(b, i, now);
		} else if (j->procs <= extra) {
			extra -= j->procs;
			_start(b, i, now);
		}
	}
	sim_squeue_tidy(q, b->live);
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

static void _on_pass(void *e, double now)
{
	_pass(e, now);
}

extern int sim_run_backfill(const sim_config_t *cfg, const sim_workload_t *w,
			    sim_policy_t policy, sim_model_t model,
			    sim_outcome_t *out, char *err, size_t errlen)
{
	bf_t b;
	size_t n = w->n, i;

	memset(&b, 0, sizeof(b));
	b.cfg = cfg;
	b.w = w;
	b.policy = policy;
	b.model = model;
	b.out = out;
	b.free = w->procs;
	b.live = sim_xcalloc(n + 1, 1);
	b.state = sim_xcalloc(n + 1, 1);
	b.latest = sim_xcalloc(n + 1, sizeof(double));
	for (i = 0; i < n; i++)
		b.latest[i] = w->jobs[i].deadline - w->jobs[i].estimate;
	sim_gate_init(&b.gate, w);

	sim_spaced_events(w, &(sim_spaced_t) {
		.engine = &b, .complete = _on_complete, .arrive = _on_arrive,
		.pass = _on_pass, .done = &b.done, .gate = &b.gate,
	});
	/* Nothing can still wait: with no job running every waiting job
	 * fits, so the last pass started or rejected all of them. */
	for (i = 0; i < n; i++) {
		if (b.state[i] == ST_QUEUED || b.state[i] == ST_RUNNING ||
		    b.state[i] == ST_NEW) {
			snprintf(err, errlen, "internal error: job %ld left "
				 "in state %d", w->jobs[i].id, b.state[i]);
			break;
		}
	}

	sim_squeue_free(&b.queue);
	sim_pq_free(&b.expiry);
	sim_pq_free(&b.done);
	free(b.run);
	free(b.live);
	free(b.state);
	free(b.latest);
	sim_gate_free(&b.gate);
	return i < n ? -1 : 0;
}
