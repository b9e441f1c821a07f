/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  timeshare.c - the Libra family on a time-shared cluster, through the
 *  policy core (src/core): Libra, Libra+$, LibraSLA, LibraRiskD,
 *  Libra+$Auto, and Libra's admission at a fixed or peak/off-peak price
 *  (thesis 7.2.4's Fixed and FixedTime; the core prices FixedTime's
 *  window hour by hour, on the trace's clock: doc/design.md decision 3).
 *
 *  The machine is P ledger nodes of one CPU each (an SP2 node is one
 *  processor, thesis 3.5.1).  A job on k processors has one part on each
 *  of k nodes.  A part's actual work is the trace run time R (on a node
 *  of speed 1: see "Node speeds" below); the ledger knows only the
 *  estimate RE.
 *
 *  CPU sharing on a node (thesis 6.4.2, "remaining free processor time is
 *  distributed among all jobs ... according to the computed processor time
 *  share of each job"): the running parts share the CPU in proportion to
 *  their weights, work-conserving,
 *
 *	rate_k = w_k / sum_m w_m,
 *
 *  where w_k is the part's current ledger share (Fig. 3.3, clamped by the
 *  core to [share_min, 1]: share_min for a part past its estimate or its
 *  deadline).  With sum(share) <= 1 on the CPU, as admission ensures,
 *  every part runs at least at its share, so with accurate estimates every
 *  admitted deadline is met.  LibraSLA, which admits soft-deadline work
 *  beyond a CPU's capacity, divides the CPU as its admission projects it
 *  (thesis Fig. 4.3; see _sla_weights()).
 *
 *  Events are arrivals (in submission order) and part completions (in time
 *  order, ties by node index).  At an arrival, every node is advanced to
 *  now and every part's CPU done is reported to the ledger with
 *  libra_ledger_progress() (the thesis' Job Control reading clockCPU);
 *  shares, hence weights, change only then.  Then libra_admit() quotes the
 *  job; an accepted quote is committed at its placement and the job starts
 *  at once (there is no queue).  Libra+$Auto adapts its betas after every
 *  request (libra_auto_feedback()).  When a part ends, the ledger releases
 *  its node; when the last part ends, the job is settled (libra_settle(),
 *  LIBRA_END_COMPLETED: nothing is ever killed at its deadline here).
 *
 *  Advance reservations (--reserve-frac; doc/design.md decision 21): a
 *  job that booked a later begin is quoted at its submission with the
 *  admission's "now" at its begin (req.booked the real now) and committed
 *  with libra_ledger_commit_booked().  Its parts sit on their nodes,
 *  pending, with no weight, until a begin event starts them (begins are
 *  in submission order, the lead being the same for every job); until
 *  then their ledger entries get no progress report, since a report
 *  would recompute the booked share as RE / (TD - now) from before the
 *  begin.  At equal times: completions, begins, probes, arrivals.
 *
 *  Runtime predictions (--predict; doc/design.md decision 22):
 *  a job is admitted, priced and committed on its predicted run time P
 *  (src/core/predict.c, the quantile 1 - --predict-risk of its user's or
 *  group's finished jobs, never above RE) instead of its declared RE;
 *  every job that ends feeds the predictor.  At each arrival, a running
 *  job whose CPU done has reached its plan is re-planned before the
 *  progress report: predicted again, conditioned on what it has done
 *  (at most RE, the hard cap), and committed again on its nodes with the
 *  new plan (libra_ledger_release() + libra_ledger_commit(), then the
 *  report gives it (P' - done) / (TD - now)).  Such an "extended" job is
 *  no longer protected: on its nodes the jobs still on plan keep their
 *  shares as weights, and the extended ones divide what those leave,
 *  1 - sum(on-plan shares), in proportion to their shares (never less
 *  than SLA_SOFT_FLOOR of them), plus, as every job, the leftover of a
 *  work-conserving CPU (--predict-protect off: plain shares).  So a
 *  prediction that proves short costs its own job, never the jobs
 *  admitted beside it, and new admissions see the re-planned share.
 *
 *  Bags of tasks (--bag-frac; doc/design.md decision 36): a bag is
 *  admitted with libra_admit() on libra_bag_sla()'s SLA for its L lanes x
 *  the task's CPUs, committed as one ledger entry per CPU, and settled
 *  once, when its last lane ends (met when that is by the deadline: every
 *  task was).  Each lane is one part whose actual work is its tasks' run
 *  times added up (W or W - 1 tasks, libra_bag_lane_tasks()).  That is
 *  the lane's tasks run one after another on its CPUs, with no gap (a
 *  task starts as its predecessor ends), at the rate of the bag's entry:
 *  the CPU is divided by the ledger's shares, the entry's share on a CPU
 *  is (W RE - the lane's CPU done) / (TD - now), and a task paced by
 *  libra_bag_task_target() (an m-th of the lane's time left for its RE,
 *  m tasks left) asks that very share when the tasks before it ran their
 *  estimates; when they ran less, the entry keeps what they left unused
 *  for the lane's later tasks, as the one ledger entry holds the bag's
 *  capacity until its deadline.  Splitting a lane into tasks would change
 *  no rate in this model, only add events.  --bag-mode each submits the
 *  tasks as jobs of their own.
 *
 *  Node speeds (--speeds; doc/design.md decision 43): node j's CPU runs
 *  speed_j times the reference CPU that R and RE are given in, so a part
 *  there has R / speed_j of the node's CPU-seconds of actual work, and its
 *  done is counted in them (the CPU sharing above is in the node's
 *  seconds, as the ledger's shares are: RE / (speed_j (TD - now))).  The
 *  ledger is told each node's speed and takes progress in reference
 *  seconds, the node's CPU-seconds x its speed; the plans (--predict)
 *  are reference seconds too.  --speed-blind tells the ledger nothing:
 *  every node is of speed 1 to the core, which is then reported the
 *  node's CPU-seconds as they are, as a speed-unaware cluster would
 *  report them, while the parts still run at their nodes' speeds.  A
 *  node's "ledger speed" (lspeed) converts between the two; with every
 *  speed 1 each conversion is exact, so the results are those without
 *  speeds, bit for bit.
 *
 *  Cost: each node keeps the time its next part ends, recomputed only when
 *  its set of parts or their weights change, in an indexed min-heap; an
 *  arrival touches every running part once (progress), which it must.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "alloc.h"
#include "energy.h"
#include "ledger.h"
#include "outcome.h"
#include "predict.h"
#include "price.h"
#include "settle.h"
#include "share.h"
#include "sim.h"

/* CPU-seconds of work below which a part counts as finished (times up to
 * ~1e8 s leave ~1e-8 s of rounding in a time difference). */
#define WORK_EPS 1e-6

typedef struct {
	int job;		/* job index */
	double work;		/* actual CPU-seconds it needs: R / the
				 * node's speed (its CPU-seconds) */
	double done;		/* actual CPU-seconds done (the node's) */
	double share;		/* the ledger's share */
	double w;		/* CPU weight: the share (see _sla_weights);
				 * 0 while pending */
	bool pending;		/* booked, not yet begun: it does not run */
	bool extended;		/* re-planned past its prediction */
} part_t;

typedef struct {
	part_t *p;
	int n, cap;
	double t;		/* the parts' done is as of this time */
	double sw;		/* sum of the parts' weights */
	double next;		/* when the next part ends; INFINITY if idle */
	int argmin;		/* which part ends then */
	int npending;		/* pending parts (advance reservations) */
	int nextended;		/* extended parts (--predict) */
	bool lazy;		/* the parts' share and w are the ledger
				 * entries' shares, in order, not copied
				 * yet (_progress_all(); _weights()) */
	double speed;		/* the CPU's speed against the reference
				 * (--speeds; 1) */
	double lspeed;		/* the speed the ledger knows: speed, or 1
				 * under --speed-blind; the node's CPU-
				 * seconds x lspeed are what it is told */
} tnode_t;

typedef struct {
	const sim_config_t *cfg;
	const sim_workload_t *w;
	sim_policy_t policy;
	sim_model_t model;
	sim_outcome_t *out;
	libra_params_t p;
	libra_ledger_t *l;
	libra_quote_t *q;
	tnode_t *nodes;
	int nnodes;
	int *heap;		/* node indices, min-heap on (next, node) */
	int *pos;		/* node -> heap position */
	int *left;		/* parts still running, per job */
	double *price;		/* quoted price, per job */
	double *target;		/* when its share finishes RE (a due date) */
	double *ret;		/* LibraSLA: return (B / RE) / D, per job */
	double *done;		/* scratch: CPU done of a node's parts */
	int ndone_cap;
	/* --predict: the predictor, its quantile, each job's plan (the
	 * run time its ledger entries carry) and accepted SLA */
	libra_predictor_t *pred;
	double pred_q;
	double *plan;
	libra_sla_t *sla_of;
	int *replan;		/* scratch: jobs to re-plan */
	unsigned *stamp;	/* per job: the arrival that listed it */
	unsigned nstamp;
	/* when each job begins: its own begin (an advance reservation's),
	 * or one the scheduler booked for it (--power: after a boot, or in
	 * cheaper hours); booked: committed to begin later than its
	 * admission, its parts pending until then */
	double *begin;
	bool *booked;
	int *bheap;		/* booked jobs not begun: min-heap on
				 * (begin, job) */
	int nb;
	/* --power: the nodes' power (NULL: every node always on, no bill) */
	sim_power_t *pw;
	sim_energy_t *en;
	bool *elig;		/* scratch: nodes a quote may use */
	double tw;		/* the power's next event (pw_dirty: stale) */
	bool pw_dirty;
	double last;		/* the last arrival, begin or completion */
	double horizon;		/* the next arrival: every node is brought
				 * up to it then, so a node's next end
				 * after it need not be known exactly */
	char *err;
	size_t errlen;
} ts_t;

static libra_policy_t _core_policy(sim_policy_t p)
{
	switch (p) {
	case SIM_LIBRA_PRICE:
		return LIBRA_POLICY_LIBRA_PRICE;
	case SIM_LIBRA_SLA:
		return LIBRA_POLICY_SLA;
	case SIM_LIBRA_RISKD:
		return LIBRA_POLICY_RISKD;
	case SIM_LIBRA_AUTO:
		return LIBRA_POLICY_AUTO;
	case SIM_FIXED:
		return LIBRA_POLICY_FIXED;
	case SIM_PEAK:
		return LIBRA_POLICY_PEAK;
	case SIM_LIBRA:
	default:
		return LIBRA_POLICY_LIBRA;
	}
}

/* ---- indexed heap of nodes by next completion --------------------------- */

static int _hless(const ts_t *s, int a, int b)
{
	double x = s->nodes[a].next, y = s->nodes[b].next;

	return x < y || (x == y && a < b);
}

static void _hswap(ts_t *s, int i, int j)
{
	int a = s->heap[i], b = s->heap[j];

	s->heap[i] = b;
	s->heap[j] = a;
	s->pos[b] = i;
	s->pos[a] = j;
}

static void _hdown(ts_t *s, int i)
{
	int n = s->nnodes;

	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && _hless(s, s->heap[l], s->heap[m]))
			m = l;
		if (r < n && _hless(s, s->heap[r], s->heap[m]))
			m = r;
		if (m == i)
			return;
		_hswap(s, i, m);
		i = m;
	}
}

static void _hup(ts_t *s, int i)
{
	while (i > 0) {
		int up = (i - 1) / 2;

		if (!_hless(s, s->heap[i], s->heap[up]))
			return;
		_hswap(s, i, up);
		i = up;
	}
}

static void _hfix(ts_t *s, int node)
{
	_hup(s, s->pos[node]);
	_hdown(s, s->pos[node]);
}

/* ---- booked begins: a min-heap of jobs on (begin, job) ------------------- */

static bool _bless(const ts_t *s, int a, int b)
{
	return s->begin[a] < s->begin[b] ||
	       (s->begin[a] == s->begin[b] && a < b);
}

static void _bpush(ts_t *s, int i)
{
	int k = s->nb++;

	s->bheap[k] = i;
	while (k > 0) {
		int up = (k - 1) / 2, t;

		if (!_bless(s, s->bheap[k], s->bheap[up]))
			break;
		t = s->bheap[k];
		s->bheap[k] = s->bheap[up];
		s->bheap[up] = t;
		k = up;
	}
}

static int _bpop(ts_t *s)
{
	int top = s->bheap[0], k = 0;

	s->bheap[0] = s->bheap[--s->nb];
	for (;;) {
		int l = 2 * k + 1, r = l + 1, m = k, t;

		if (l < s->nb && _bless(s, s->bheap[l], s->bheap[m]))
			m = l;
		if (r < s->nb && _bless(s, s->bheap[r], s->bheap[m]))
			m = r;
		if (m == k)
			return top;
		t = s->bheap[k];
		s->bheap[k] = s->bheap[m];
		s->bheap[m] = t;
		k = m;
	}
}

/* ---- nodes ---------------------------------------------------------------- */

/* A lazy node's weights and shares from the ledger's entries (what
 * _sync() would set: the entries are as _progress_all() left them). */
static void _weights(ts_t *s, int node)
{
	tnode_t *nd = &s->nodes[node];
	const libra_entry_t *e;

	if (!nd->lazy)
		return;
	libra_ledger_node_entries(s->l, node, &e);
	for (int k = 0; k < nd->n; k++)
		nd->p[k].share = nd->p[k].w = e[k].share;
	nd->lazy = false;
}

/* Run the node's parts from nd->t to t at their weighted rates
 * rate_k = w_k / sum(w). */
static void _advance(tnode_t *nd, double t)
{
	double dt = t - nd->t;
	int k;

	/* sw is 0 when every part is pending (or none runs) */
	if (dt > 0 && nd->sw > 0) {
		double f = dt / nd->sw;

		for (k = 0; k < nd->n; k++)
			nd->p[k].done += nd->p[k].w * f;
	}
	nd->t = t;
}

/*
 * A node whose parts all run: does none end by the horizon?  Then its next
 * end need not be computed (_recompute()): it is brought up to the
 * horizon's arrival, and its ends computed again, first.  No part runs
 * faster than a whole CPU (w_k <= sum(w)), so none ends before its work
 * left does: the node's next end, t + min(left_k / w_k) * sum(w) as
 * rounded, is at least t + min(left_k) * (1 - 1e-12), its rounding
 * errors (a few 1e-16 of it) included.  Returns true when that bound is
 * after the horizon; the node's next is then INFINITY (no event of its
 * own before the horizon's arrival; unchanged, its heap place stays) and
 * no part is its argmin.
 */
static bool _ends_after(const ts_t *s, tnode_t *nd, double minleft)
{
	if (!(minleft > 0.0) ||
	    !(nd->t + minleft * (1.0 - 1e-12) > s->horizon))
		return false;
	nd->next = INFINITY;
	nd->argmin = -1;
	return true;
}

/* The part that ends first (the least left_k / w_k, ties: the lowest job
 * index) and when, from the cached sum of weights nd->sw. */
static void _first_end(tnode_t *nd)
{
	double best = INFINITY;
	int arg = -1;

	for (int k = 0; k < nd->n; k++) {
		const part_t *pt = &nd->p[k];
		double left = pt->work - pt->done;
		double tk;

		if (pt->pending)
			continue;
		tk = left > 0 ? left / pt->w : 0.0;
		if (tk < best ||
		    (tk == best && arg >= 0 && pt->job < nd->p[arg].job)) {
			best = tk;
			arg = k;
		}
	}
	nd->argmin = arg;
	nd->next = arg >= 0 ? nd->t + best * nd->sw : INFINITY;
}

/*
 * When does the first part end: part k needs left_k / rate_k =
 * left_k * sum(w) / w_k, so the first is the least left_k / w_k (ties:
 * lowest job index).  Also refreshes the cached sum of weights.  Not
 * computed when no part ends by the horizon (_ends_after()).
 */
static void _recompute(const ts_t *s, tnode_t *nd)
{
	double sw = 0.0, minleft = INFINITY;

	for (int k = 0; k < nd->n; k++) {
		const part_t *pt = &nd->p[k];

		if (pt->pending)
			continue;
		sw += pt->w;
		if (pt->work - pt->done < minleft)
			minleft = pt->work - pt->done;
	}
	nd->sw = sw;
	if (_ends_after(s, nd, minleft))
		return;
	_first_end(nd);
}

/*
 * Take the weights from the ledger: after a progress report, commit or
 * release, w_k is the ledger's own share of the part (clamped by the core).
 * The node's parts are kept in the order of the ledger's entries, so that
 * this is one pass; when the ledger has reordered them (it may, on a
 * release), the parts are reordered to match.
 */
static int _sync(ts_t *s, int node)
{
	const libra_entry_t *e;
	tnode_t *nd = &s->nodes[node];
	int ne = libra_ledger_node_entries(s->l, node, &e), k, m;

	nd->lazy = false;	/* every part's weight is set below */
	if (ne != nd->n) {
		snprintf(s->err, s->errlen, "core: node %d has %d ledger "
			 "entries but %d parts are running on it", node, ne,
			 nd->n);
		return -1;
	}
	for (k = 0; k < ne; k++) {
		if (e[k].job_id == (uint32_t) nd->p[k].job) {
			nd->p[k].share = nd->p[k].w = e[k].share;
			if (nd->p[k].pending)
				nd->p[k].w = 0.0;
			continue;
		}
		for (m = k + 1; m < nd->n; m++)
			if (e[k].job_id == (uint32_t) nd->p[m].job)
				break;
		if (m == nd->n) {
			snprintf(s->err, s->errlen, "core: ledger entry of "
				 "job %u on node %d has no running part",
				 e[k].job_id, node);
			return -1;
		}
		{
			part_t tmp = nd->p[k];

			nd->p[k] = nd->p[m];
			nd->p[m] = tmp;
		}
		nd->p[k].share = nd->p[k].w = e[k].share;
		if (nd->p[k].pending)
			nd->p[k].w = 0.0;
	}
	for (k = 0; k < ne; k++) {
		if (nd->p[k].pending)
			continue;
		if (!(nd->p[k].w > 0) || !isfinite(nd->p[k].w)) {
			snprintf(s->err, s->errlen, "core: job %ld has share "
				 "%g on node %d (the clamp promises > 0)",
				 s->w->jobs[nd->p[k].job].id, nd->p[k].w,
				 node);
			return -1;
		}
	}
	return 0;
}

/*
 * LibraSLA divides a CPU as its admission projects (thesis Fig. 4.3, the
 * core's _node_return): with spare capacity (sum of shares S <= 1) every
 * part gets its share and the job of highest return (B / RE) / D gets all
 * that is left; in a shortfall the highest-return job and the hard-deadline
 * jobs keep their shares and the other (soft) jobs share what remains in
 * proportion to their shares (never less than SLA_SOFT_FLOOR of them: no
 * weight is ever zero, design.md decision 4, but a floor as large as share_min
 * would take CPU from the protected jobs).  Weights then sum to 1 (to 1 +
 * a negligible floor) and are the parts' rates.
 */
#define SLA_SOFT_FLOOR 1e-6

static void _sla_weights(ts_t *s, tnode_t *nd)
{
	const sim_job_t *jobs = s->w->jobs;
	double sum = 0.0, prot = 0.0, other, f;
	int k, best = -1;

	for (k = 0; k < nd->n; k++) {
		const part_t *pt = &nd->p[k];

		if (pt->pending)	/* w stays 0 (_sync) */
			continue;
		sum += pt->share;
		if (best < 0 || s->ret[pt->job] > s->ret[nd->p[best].job] ||
		    (s->ret[pt->job] == s->ret[nd->p[best].job] &&
		     pt->job < nd->p[best].job))
			best = k;
	}
	if (best < 0)
		return;
	if (sum <= 1.0) {
		for (k = 0; k < nd->n; k++)
			if (!nd->p[k].pending)
				nd->p[k].w = nd->p[k].share;
		nd->p[best].w += 1.0 - sum;
		return;
	}
	for (k = 0; k < nd->n; k++)
		if (!nd->p[k].pending &&
		    (k == best || jobs[nd->p[k].job].hard))
			prot += nd->p[k].share;
	other = sum - prot;
	f = other > 0.0 ? fmax(1.0 - prot, 0.0) / other : 0.0;
	if (f < SLA_SOFT_FLOOR)
		f = SLA_SOFT_FLOOR;
	for (k = 0; k < nd->n; k++) {
		part_t *pt = &nd->p[k];

		if (pt->pending)
			continue;
		if (k == best || jobs[pt->job].hard)
			pt->w = pt->share;
		else
			pt->w = pt->share * f;
	}
}

/*
 * --predict: the parts still on their plan keep their shares as weights;
 * the extended parts (re-planned past a short prediction) divide what the
 * on-plan parts leave of the CPU, 1 - sum(on-plan shares), in proportion
 * to their shares, each keeping at least SLA_SOFT_FLOOR of its share (no
 * weight is ever zero).  Nothing changes while all shares fit in the CPU.
 */
static void _protect_weights(tnode_t *nd)
{
	double on = 0.0, ext = 0.0, f;
	int k;

	for (k = 0; k < nd->n; k++) {
		const part_t *pt = &nd->p[k];

		if (pt->pending)
			continue;
		if (pt->extended)
			ext += pt->w;
		else
			on += pt->w;
	}
	if (!(ext > 0.0) || on + ext <= 1.0)
		return;
	f = fmax(1.0 - on, 0.0) / ext;
	if (f < SLA_SOFT_FLOOR)
		f = SLA_SOFT_FLOOR;
	for (k = 0; k < nd->n; k++)
		if (!nd->p[k].pending && nd->p[k].extended)
			nd->p[k].w *= f;
}

/* _sync() then _recompute(), in one pass when the orders agree (the
 * common case: this runs for every node at every arrival). */
static int _sync_recompute(ts_t *s, int node)
{
	const libra_entry_t *e;
	tnode_t *nd = &s->nodes[node];
	int ne = libra_ledger_node_entries(s->l, node, &e), k;
	double sw = 0.0, minleft = INFINITY;

	nd->lazy = false;	/* every part's weight is set below */
	if (ne != nd->n || s->policy == SIM_LIBRA_SLA || nd->npending ||
	    nd->nextended)
		goto slow;
	for (k = 0; k < ne; k++) {
		part_t *pt = &nd->p[k];

		if (e[k].job_id != (uint32_t) pt->job || !(e[k].share > 0))
			goto slow;
		pt->share = pt->w = e[k].share;
		sw += pt->w;
		if (pt->work - pt->done < minleft)
			minleft = pt->work - pt->done;
	}
	nd->sw = sw;
	if (_ends_after(s, nd, minleft))
		return 0;
	_first_end(nd);		/* no part pending: the same parts */
	return 0;
slow:
	if (_sync(s, node))
		return -1;
	if (s->policy == SIM_LIBRA_SLA)
		_sla_weights(s, nd);
	else if (nd->nextended && !s->cfg->predict_protect_off)
		_protect_weights(nd);
	_recompute(s, nd);
	return 0;
}

/* --self-check: the ledger's share is the thesis' Fig. 3.3 partition,
 * (RE - cpu_done) / (TD - now), clamped as share.h says; TD is the target
 * its admission aimed the share at (a due date, decision 18).  A pending
 * part keeps the share committed for its begin.  In the node's seconds:
 * RE / its speed, the CPU-seconds done there (decision 43). */
static int _check_part(ts_t *s, int node, int k, double now)
{
	const tnode_t *nd = &s->nodes[node];
	const part_t *pt = &nd->p[k];
	const sim_job_t *j = &s->w->jobs[pt->job];
	double want = libra_share((s->plan ? s->plan[pt->job] : j->estimate) /
				  nd->lspeed,
				  pt->done,
				  pt->pending ? s->begin[pt->job] : now,
				  s->target[pt->job], s->p.share_min);

	if (fabs(want - pt->share) > 1e-9 * (1.0 + fabs(want))) {
		snprintf(s->err, s->errlen, "self-check: job %ld on node %d "
			 "at %.3f: ledger share %.17g, libra_share() %.17g",
			 j->id, node, now, pt->share, want);
		return -1;
	}
	return 0;
}

/* --self-check of every part of a node, right after its progress report */
static int _check_node(ts_t *s, int node, double now)
{
	for (int k = 0; k < s->nodes[node].n; k++)
		if (_check_part(s, node, k, now))
			return -1;
	return 0;
}

/*
 * Progress of a node with pending parts: each part that runs is reported
 * alone, so that the booked entries keep the share committed for their
 * begin (a report would give them RE / (TD - now) from before it).
 */
static int _progress_begun(ts_t *s, int node, double now)
{
	tnode_t *nd = &s->nodes[node];

	for (int k = 0; k < nd->n; k++) {
		const part_t *pt = &nd->p[k];

		if (pt->pending)
			continue;
		/* in reference seconds (decision 43) */
		if (libra_ledger_progress(s->l, (uint32_t) pt->job, node,
					  pt->done * nd->lspeed, now)) {
			snprintf(s->err, s->errlen, "core: libra_ledger_"
				 "progress(job %ld, node %d) failed",
				 s->w->jobs[pt->job].id, node);
			return -1;
		}
	}
	return 0;
}

/* --predict: the most a prediction may be: the declared estimate for a
 * hard deadline (Slurm ends a job at its time limit), the deadline period
 * for a soft one (--predict-soft-cap deadline; its history's ratios above
 * 1 may raise it past RE), else RE as well. */
static double _pred_cap(const ts_t *s, const sim_job_t *j)
{
	if (j->hard || !s->cfg->predict_soft_uncapped)
		return j->estimate;
	return fmax(j->estimate, j->deadline - j->begin);
}

/*
 * --predict: re-plan job i, which has reached its plan on some node:
 * predict it again conditioned on the most CPU any of its parts has done
 * (in reference seconds, a node's CPU-seconds x its speed;
 * libra_predict(), never above RE), and, when that is longer, commit it
 * again on its nodes with the new plan.  Its parts become extended, and
 * the node's parts are put back in the ledger's entry order.
 */
static int _replan(ts_t *s, int i, double now)
{
	const sim_job_t *j = &s->w->jobs[i];
	const libra_place_t *pl;
	libra_place_t place[64], *pp = place;
	libra_prediction_t pr;
	libra_replan_t rp;
	libra_sla_t sla = s->sla_of[i];
	double done = 0.0, end;
	int np = libra_ledger_job_places(s->l, (uint32_t) i, &pl), m, k;

	for (m = 0; m < np; m++) {
		const tnode_t *nd = &s->nodes[pl[m].node];

		for (k = 0; k < nd->n; k++)
			if (nd->p[k].job == i)
				done = fmax(done, nd->p[k].done * nd->lspeed);
	}
	rp.user = j->user;
	rp.group = j->group;
	rp.estimate = j->estimate;
	rp.cap = _pred_cap(s, j);
	rp.quantile = s->pred_q;
	rp.hard = j->hard;
	rp.plan = s->plan[i];
	rp.done = done;
	rp.deadline = j->deadline;
	rp.pace = s->cfg->predict_pace;
	if (!libra_replan(s->pred, &rp, now, &pr, &end))
		return 0;	/* at its cap RE: share_min from now on */
	if (np > (int) (sizeof(place) / sizeof(place[0])))
		pp = sim_xmalloc((size_t) np * sizeof(*pp));
	memcpy(pp, pl, (size_t) np * sizeof(*pp));
	sla.runtime = pr.runtime;
	sla.deadline = end;	/* paced again (libra_replan()) */
	if (libra_ledger_release(s->l, (uint32_t) i) ||
	    libra_ledger_commit(s->l, (uint32_t) i, &sla, pp, np, now)) {
		snprintf(s->err, s->errlen, "core: re-planning job %ld "
			 "failed", j->id);
		if (pp != place)
			free(pp);
		return -1;
	}
	s->plan[i] = pr.runtime;
	s->sla_of[i] = sla;
	s->target[i] = libra_sla_target(&sla);
	for (m = 0; m < np; m++) {
		tnode_t *nd = &s->nodes[pp[m].node];

		for (k = 0; k < nd->n; k++) {
			if (nd->p[k].job == i && !nd->p[k].extended) {
				nd->p[k].extended = true;
				nd->nextended++;
			}
		}
		if (_sync(s, pp[m].node)) {
			if (pp != place)
				free(pp);
			return -1;
		}
	}
	if (pp != place)
		free(pp);
	return 0;
}

/* --predict: bring every node up to now and re-plan the jobs that have
 * reached their plan and still run (in job order, once each). */
static int _replan_all(ts_t *s, double now)
{
	int nr = 0;

	s->nstamp++;
	for (int n = 0; n < s->nnodes; n++) {
		tnode_t *nd = &s->nodes[n];

		_weights(s, n);
		_advance(nd, now);
		for (int k = 0; k < nd->n; k++) {
			const part_t *pt = &nd->p[k];

			/* the plan in the node's seconds */
			if (pt->pending || s->stamp[pt->job] == s->nstamp ||
			    pt->work - pt->done <= WORK_EPS ||
			    pt->done < s->plan[pt->job] / nd->lspeed -
				       WORK_EPS)
				continue;
			s->stamp[pt->job] = s->nstamp;
			s->replan[nr++] = pt->job;
		}
	}
	for (int r = 0; r < nr; r++)
		if (_replan(s, s->replan[r], now))
			return -1;
	return 0;
}

/*
 * Can the node's progress leave its weights in the ledger (_progress_lazy)?
 * Only where they are the plain shares of parts that all run, one CPU
 * each, in the entries' order, and no self-check reads them.
 */
static bool _lazy_ok(const ts_t *s, int node)
{
	const tnode_t *nd = &s->nodes[node];
	const libra_entry_t *e;

	return !nd->npending && !nd->nextended &&
	       s->policy != SIM_LIBRA_SLA && !s->cfg->self_check &&
	       libra_ledger_node_entries(s->l, node, &e) == nd->n;
}

/*
 * A node's progress as _progress_all() makes it, with its parts' weights
 * left in the ledger's entries (nd->lazy): they are the shares the report
 * sets, and read from there by the next advance, so that no pass copies
 * them.  The sum of the weights is the ledger's node share: with one CPU
 * a part, no best-effort entry and the parts in the entries' order it is
 * the same sum, in the same order, from 0.  The next end as _recompute().
 */
static int _progress_lazy(ts_t *s, int node, double now)
{
	tnode_t *nd = &s->nodes[node];
	const libra_entry_t *e;
	double dt = now - nd->t, f = 0.0, minleft = INFINITY;
	bool run = dt > 0 && nd->sw > 0;

	libra_ledger_node_entries(s->l, node, &e);
	if (run)
		f = dt / nd->sw;
	for (int k = 0; k < nd->n; k++) {
		part_t *pt = &nd->p[k];
		double w = nd->lazy ? e[k].share : pt->w;

		if (e[k].job_id != (uint32_t) pt->job || e[k].cpus != 1 ||
		    e[k].best_effort || !(w > 0)) {
			snprintf(s->err, s->errlen, "core: node %d's entry %d "
				 "(job %u, share %g) is not its part %d's "
				 "(job %ld)", node, k, e[k].job_id, w, k,
				 s->w->jobs[pt->job].id);
			return -1;
		}
		if (run)
			pt->done += w * f;
		s->done[k] = pt->done * nd->lspeed;	/* reference s */
		if (pt->work - pt->done < minleft)
			minleft = pt->work - pt->done;
	}
	nd->t = now;
	if (libra_ledger_progress_node(s->l, node, s->done, nd->n, now)) {
		snprintf(s->err, s->errlen, "core: libra_ledger_progress_node"
			 "(node %d) failed", node);
		return -1;
	}
	nd->lazy = true;
	nd->sw = libra_ledger_node_share(s->l, node);
	if (_ends_after(s, nd, minleft))
		return 0;
	_weights(s, node);
	_recompute(s, nd);
	return 0;
}

/*
 * Job Control: bring every node's parts up to now, report their progress
 * to the ledger (libra_ledger_progress_node; in reference seconds, the
 * node's CPU-seconds x its ledger speed), and take the shares it
 * recomputes.
 */
static int _progress_all(ts_t *s, double now)
{
	if (s->pred && _replan_all(s, now))
		return -1;
	for (int n = 0; n < s->nnodes; n++) {
		tnode_t *nd = &s->nodes[n];
		double next = nd->next, dt = now - nd->t;

		if (!nd->n) {
			nd->t = now;
			nd->next = INFINITY;
			if (next != INFINITY)
				_hfix(s, n);
			continue;
		}
		/* parts are kept in the ledger's entry order (_sync) */
		if (nd->n > s->ndone_cap) {
			s->ndone_cap = nd->n * 2;
			s->done = realloc(s->done, (size_t) s->ndone_cap *
					  sizeof(*s->done));
			if (!s->done) {
				snprintf(s->err, s->errlen, "out of memory");
				return -1;
			}
		}
		if (nd->npending) {
			_weights(s, n);
			_advance(nd, now);
			if (_progress_begun(s, n, now))
				return -1;
			goto synced;
		}
		if (_lazy_ok(s, n)) {
			if (_progress_lazy(s, n, now))
				return -1;
			if (nd->next != next)
				_hfix(s, n);
			continue;
		}
		_weights(s, n);
		/* _advance(), and the parts' done for the report */
		if (dt > 0 && nd->sw > 0) {
			double f = dt / nd->sw;

			for (int k = 0; k < nd->n; k++) {
				nd->p[k].done += nd->p[k].w * f;
				s->done[k] = nd->p[k].done * nd->lspeed;
			}
		} else {
			for (int k = 0; k < nd->n; k++)
				s->done[k] = nd->p[k].done * nd->lspeed;
		}
		nd->t = now;
		if (libra_ledger_progress_node(s->l, n, s->done, nd->n,
					       now)) {
			snprintf(s->err, s->errlen,
				 "core: libra_ledger_progress_node(node %d) "
				 "failed", n);
			return -1;
		}
synced:
		if (_sync_recompute(s, n))
			return -1;
		if (nd->next != next)
			_hfix(s, n);
		if (s->cfg->self_check && _check_node(s, n, now))
			return -1;
	}
	return 0;
}

/*
 * The actual work of the part on the k-th CPU of job j's placement, in
 * reference seconds: R, or for a bag (--bag-frac) what its lane runs,
 * CPU k / (the task's CPUs) being on lane k / procs: its tasks' run
 * times, back to back (see the top).  _place() divides it by the node's
 * speed.
 */
static double _part_work(const sim_job_t *j, int k)
{
	if (!sim_job_is_bag(j))
		return j->runtime;
	return libra_bag_lane_tasks(&j->bag, k / j->task_procs) *
	       j->task_runtime;
}

/*
 * An admitted job: commit the quote in the ledger and put one part of the
 * job on each node of its placement (1-CPU nodes); an advance reservation
 * is committed for its begin and its parts wait, pending, until then.
 */
static int _place(ts_t *s, int i, const libra_sla_t *sla, double now)
{
	const sim_job_t *j = &s->w->jobs[i];
	const libra_quote_t *q = s->q;
	int cpus = 0, rc;

	s->target[i] = libra_sla_target(sla);	/* --self-check's */
	if (s->pred) {
		s->plan[i] = sla->runtime;
		s->sla_of[i] = *sla;
	}
	if (s->booked[i])
		rc = libra_ledger_commit_booked(s->l, (uint32_t) i, sla,
						q->place, q->nplace, now,
						s->begin[i]);
	else
		rc = libra_ledger_commit(s->l, (uint32_t) i, sla, q->place,
					 q->nplace, now);
	if (rc) {
		snprintf(s->err, s->errlen, "core: libra_ledger_commit"
			 "(job %ld) refused an accepted quote", j->id);
		return -1;
	}
	for (int k = 0; k < q->nplace; k++) {
		int node = q->place[k].node;
		tnode_t *nd = &s->nodes[node];

		if (q->place[k].cpus != 1) {
			snprintf(s->err, s->errlen, "core: quote puts "
				 "%d CPUs of job %ld on a 1-CPU node",
				 q->place[k].cpus, j->id);
			return -1;
		}
		if (nd->n == nd->cap) {
			nd->cap = nd->cap ? nd->cap * 2 : 8;
			nd->p = sim_xrealloc(nd->p, nd->cap * sizeof(*nd->p));
		}
		nd->p[nd->n].job = i;
		/* the node's CPU-seconds (decision 43) */
		nd->p[nd->n].work = _part_work(j, k) / nd->speed;
		nd->p[nd->n].done = 0.0;
		nd->p[nd->n].share = nd->p[nd->n].w = 0.0;
		nd->p[nd->n].pending = s->booked[i];
		nd->p[nd->n].extended = false;
		nd->npending += s->booked[i];
		nd->n++;
		if (s->pw) {	/* work on it: never idle, up by its begin */
			s->pw->node[node].idle_since = INFINITY;
			if (s->booked[i])
				sim_power_book(s->pw, node, now, s->begin[i]);
			s->pw_dirty = true;
		}
		if (_sync_recompute(s, node))
			return -1;
		_hfix(s, node);
		if (s->cfg->self_check && _check_node(s, node, now))
			return -1;
		cpus += q->place[k].cpus;
	}
	if (cpus != j->procs) {
		snprintf(s->err, s->errlen, "core: quote for job %ld places "
			 "%d of its %d CPUs", j->id, cpus, j->procs);
		return -1;
	}
	s->left[i] = q->nplace;
	s->price[i] = q->price;
	s->out[i].accepted = true;
	s->out[i].verdict = libra_verdict_name(LIBRA_ACCEPT);
	s->out[i].start = s->begin[i];	/* now, unless booked */
	if (s->booked[i])
		_bpush(s, i);
	return 0;
}

/*
 * An advance reservation begins: its parts start running at the share
 * committed for this time (the ledger's, unchanged since the commit).
 */
static int _begin(ts_t *s, int i, double now)
{
	const libra_place_t *pl;
	int np = libra_ledger_job_places(s->l, (uint32_t) i, &pl);

	if (np != s->left[i]) {
		snprintf(s->err, s->errlen, "core: booked job %ld has %d "
			 "places in the ledger, not %d", s->w->jobs[i].id, np,
			 s->left[i]);
		return -1;
	}
	if (s->pw) {
		/* a node that is not up yet (it should be: it boots by its
		 * bookings' begins): the job begins when the last is */
		double ready = now;

		for (int m = 0; m < np; m++) {
			const sim_pnode_t *pn = &s->pw->node[pl[m].node];

			if (pn->state == LIBRA_NODE_ON)
				continue;
			sim_power_book(s->pw, pl[m].node, now, now);
			ready = fmax(ready, pn->state == LIBRA_NODE_BOOTING ?
				     pn->until : pn->until + s->pw->pc.boot);
		}
		if (ready > now) {
			s->begin[i] = ready;
			_bpush(s, i);
			s->en->late_begins++;
			s->pw_dirty = true;
			return 0;
		}
	}
	s->out[i].start = now;
	for (int m = 0; m < np; m++) {
		int node = pl[m].node, k;
		tnode_t *nd = &s->nodes[node];

		_weights(s, node);
		_advance(nd, now);	/* the others ran at their weights */
		for (k = 0; k < nd->n; k++)
			if (nd->p[k].job == i && nd->p[k].pending)
				break;
		if (k == nd->n) {
			snprintf(s->err, s->errlen, "internal error: booked "
				 "job %ld has no pending part on node %d",
				 s->w->jobs[i].id, node);
			return -1;
		}
		nd->p[k].pending = false;
		nd->npending--;
		if (_sync_recompute(s, node))
			return -1;
		/* the others' shares are as of the last report: check the
		 * part that begins only */
		for (k = 0; k < nd->n; k++)
			if (nd->p[k].job == i)
				break;
		if (s->cfg->self_check && _check_part(s, node, k, now))
			return -1;
		_hfix(s, node);
	}
	return 0;
}

/* ---- power (--power) ------------------------------------------------------ */

/*
 * Whatever power work is due now: boots and shutdowns that end, boots
 * that bookings need, Slurm-style suspensions (--power slurm), and at a
 * decision point the core's libra_power_decide() for every node, with
 * what the ledger says of it (libra_power_node_use(), as sched/libra
 * asks: busy, a job on it has begun; next_use, its earliest booked
 * begin), then --power-warm's pool (libra_power_keep_idle(): at least
 * that many nodes left powered and idle).
 */
static void _power_event(ts_t *s, double now)
{
	sim_power_t *pw = s->pw;

	sim_power_transitions(pw, now);
	for (int k = 0; k < s->nnodes; k++)
		if (s->nodes[k].n)
			pw->node[k].idle_since = INFINITY;
	if (pw->slurm) {
		for (int k = 0; k < s->nnodes; k++)
			if (pw->node[k].state == LIBRA_NODE_ON &&
			    !s->nodes[k].n &&
			    pw->node[k].idle_since + pw->suspend <= now)
				sim_power_down(pw, k, now);
	}
	if (now >= pw->next_dp) {
		/* every node's decision first, then the warm pool over them
		 * (sched/libra's libra_power_pass()), then the actions */
		for (int k = 0; k < s->nnodes; k++) {
			sim_pnode_t *pn = &pw->node[k];
			libra_power_node_t *v = &pw->view[k];

			*v = (libra_power_node_t) { .state = pn->state };
			libra_power_node_use(s->l, k, now, &v->busy,
					     &v->next_use);
			pn->idle_points = v->busy ? 0 : pn->idle_points + 1;
			v->idle_points = pn->idle_points;
			pw->act[k] = libra_power_decide(&pw->pc, &pw->tariff, v,
							now);
			if (s->nodes[k].n > s->nodes[k].npending) {
				/* a part runs: never down, and in no pool */
				v->busy = true;
				if (pw->act[k] == LIBRA_POWER_DOWN)
					pw->act[k] = LIBRA_POWER_KEEP;
			}
		}
		if (pw->warm > 0)
			(void) libra_power_keep_idle(pw->view, pw->act,
						     s->nnodes, NULL, pw->warm);
		for (int k = 0; k < s->nnodes; k++) {
			sim_pnode_t *pn = &pw->node[k];

			switch (pw->act[k]) {
			case LIBRA_POWER_UP:
				sim_power_up(pw, k, now);
				break;
			case LIBRA_POWER_DOWN:
				sim_power_down(pw, k, now);
				if (pw->view[k].next_use - pw->pc.boot <
				    pn->wake)
					pn->wake = pw->view[k].next_use -
						   pw->pc.boot;
				break;
			case LIBRA_POWER_KEEP:
			default:
				break;
			}
		}
		while (pw->next_dp <= now)
			pw->next_dp += pw->pc.interval;
	}
	s->pw_dirty = true;
}

typedef struct {
	const ts_t *s;
	double now;
} ready_arg_t;

/* libra_power_ready_fn: the nodes that can be up by "at" (every node is
 * eligible here); how many cannot. */
static int _ready(void *arg, double at, bool *mask)
{
	const ready_arg_t *r = arg;
	const ts_t *s = r->s;
	int out = 0;

	for (int k = 0; k < s->nnodes; k++) {
		mask[k] = sim_power_ready(s->pw, k, r->now, at);
		out += !mask[k];
	}
	return out;
}

/*
 * Admission with power (--power): the core's libra_admit_power(), which
 * job_submit/qos calls too, with this simulator's nodes and their power
 * states.  s->begin[i] says when the job begins, and *sla is what to
 * commit (--power-pace: its deadline the paced one).
 */
static void _admit_power(ts_t *s, int i, libra_sla_t *sla,
			 libra_request_t *req, double now)
{
	ready_arg_t r = { s, now };
	libra_power_plan_t plan = {
		.l = s->l, .p = &s->p, .cfg = &s->pw->pc,
		.tariff = &s->pw->tariff, .pace = s->cfg->power_pace,
		.ready = _ready, .arg = &r, .mask = s->elig,
	};
	libra_power_choice_t c;

	libra_admit_power(&plan, sla, req, now, s->w->jobs[i].begin, s->q,
			  &c);
	if (s->q->verdict != LIBRA_ACCEPT)
		return;
	s->begin[i] = c.begin;
	s->en->deferred += c.deferred;
	s->en->boot_waits += c.boot;
}

/* Job i arrives: progress, then the core's admission, then placement. */
static int _arrive(ts_t *s, int i, double now)
{
	const sim_job_t *j = &s->w->jobs[i];
	libra_request_t req = { .cpus = j->procs };
	libra_sla_t sla;
	double predicted;

	/*
	 * An advance reservation is quoted as if now were its begin, seen
	 * from the real now (admit.h).  booked 0 means "not booked" to the
	 * core, and the window's first job is submitted at time 0: book that
	 * one at the least positive time instead.
	 */
	if (j->reserved)
		req.booked = now > 0.0 ? now : nextafter(0.0, 1.0);
	if (s->cfg->node_mem_mb)	/* else 0: nodes do not track it */
		req.demand.mem_per_cpu = j->mem_mb;
	if (_progress_all(s, now))
		return -1;
	sim_job_sla(j, s->model, &sla);
	/* --predict: admit, price and commit the predicted work; RE stays
	 * the cap that re-planning never passes */
	if (s->pred && !(j->hard && s->cfg->predict_hard_declared)) {
		libra_prediction_t pr;

		libra_predict(s->pred, j->user, j->group, j->estimate,
			      _pred_cap(s, j), s->pred_q, 0.0, &pr);
		sla.runtime = pr.runtime;
		/* pace the prediction (RE without a history: users
		 * under-declare too) to end at --predict-pace of the window,
		 * leaving the rest for a re-plan if it proves short; a
		 * history of jobs that all ran exactly what they declared
		 * (accurate estimates: quantile RE, no spread) needs no
		 * margin.  The settlement keeps the real deadline. */
		if (s->cfg->predict_pace < 1.0 &&
		    (pr.source == LIBRA_PREDICT_FROM_NONE ||
		     pr.spread > 0.0 ||
		     fabs(pr.quantile - j->estimate) >
		     1e-9 * j->estimate))
			sla.deadline = sla.submit + s->cfg->predict_pace *
					(sla.deadline - sla.submit);
	}
	predicted = s->pred ? sla.runtime : 0.0;
	/*
	 * Bid-based model: the user pays the bid (the budget) whatever the
	 * price, so the budget is no admission test (thesis section 6.4.1);
	 * LibraSLA keeps it, as its bid, for the nodes' returns.
	 */
	if (s->model == SIM_MODEL_BID && s->p.policy != LIBRA_POLICY_SLA)
		sla.set &= ~LIBRA_SLA_BUDGET;
	if (s->pw)
		_admit_power(s, i, &sla, &req, now);
	else
		libra_admit(s->l, &s->p, &sla, &req, j->begin, s->q);
	s->booked[i] = s->begin[i] > now;
	if (s->q->verdict == LIBRA_ACCEPT) {
		libra_sla_accept(&sla, s->q);
		if (_place(s, i, &sla, now))
			return -1;
	} else {
		sim_reject(&s->out[i], libra_verdict_name(s->q->verdict));
	}
	s->out[i].predicted = predicted;
	if (s->policy == SIM_LIBRA_AUTO)
		libra_auto_feedback(s->l, &s->p, s->q, now);
	libra_price_feedback(s->l, &s->p, now);
	return 0;
}

/*
 * The price probe: what a fixed request would be quoted now, on the ledger
 * as it stands (no progress report, nothing committed, no Libra+$Auto
 * feedback), so probing does not change the run.  Two quotes: without a
 * budget (the price of the best fit) and with a budget of zero (the
 * refusal names the least budget that would be admitted: the cheapest
 * nodes' price).
 */
static void _probe(ts_t *s, double now)
{
	const sim_config_t *cfg = s->cfg;
	libra_request_t req = { .cpus = cfg->probe_cpus };
	libra_quote_t *q = s->q;
	libra_verdict_t v;
	libra_sla_t sla;
	double price, least;

	memset(&sla, 0, sizeof(sla));
	sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE;
	sla.runtime = cfg->probe_runtime;
	sla.submit = now;
	sla.deadline = now + cfg->probe_period;
	libra_admit(s->l, &s->p, &sla, &req, now, q);
	v = q->verdict;
	price = v == LIBRA_ACCEPT ? q->price : 0.0;
	sla.set |= LIBRA_SLA_BUDGET;
	sla.budget = 0.0;
	libra_admit(s->l, &s->p, &sla, &req, now, q);
	least = q->verdict == LIBRA_REJECT_BUDGET ? q->least_price : price;
	fprintf(cfg->probe, "%s,%s,%s,%.3f,%s,%.6f,%.6f\n",
		sim_policy_name(s->policy),
		s->p.resfree == LIBRA_RESFREE_THESIS ? "thesis" : "window",
		s->p.charge == LIBRA_CHARGE_THESIS ? "thesis" : "cpu", now,
		libra_verdict_name(v), price, least);
}

static int _complete(ts_t *s, int node)
{
	tnode_t *nd = &s->nodes[node];
	const sim_job_t *jobs = s->w->jobs;
	double now = nd->next;
	int k;

	_weights(s, node);
	_advance(nd, now);
	/* the part that defined the event ends now, exactly */
	nd->p[nd->argmin].done = nd->p[nd->argmin].work;
	for (k = 0; k < nd->n;) {
		part_t *pt = &nd->p[k];
		int i = pt->job;

		if (pt->pending || pt->work - pt->done > WORK_EPS) {
			k++;
			continue;
		}
		if (libra_ledger_release_node(s->l, (uint32_t) i, node)) {
			snprintf(s->err, s->errlen, "core: libra_ledger_release"
				 "_node(job %ld, node %d) failed", jobs[i].id,
				 node);
			return -1;
		}
		if (--s->left[i] == 0) {
			sim_settle(&jobs[i], s->model, s->price[i],
				   s->out[i].start, now, &s->out[i]);
			if (s->pred)	/* a job completion record */
				libra_predictor_record(s->pred, jobs[i].user,
						       jobs[i].group,
						       jobs[i].runtime,
						       jobs[i].estimate);
		}
		if (pt->extended)
			nd->nextended--;
		memmove(&nd->p[k], &nd->p[k + 1],
			(nd->n - k - 1) * sizeof(*nd->p));
		nd->n--;
	}
	if (s->pw && !nd->n) {
		s->pw->node[node].idle_since = now;
		s->pw_dirty = true;
	}
	if (_sync_recompute(s, node))
		return -1;
	_hfix(s, node);
	return 0;
}

/*
 * The run's per-node and per-job arrays (_free_state() frees them); each
 * job begins at its own begin until the scheduler books another.
 */
static void _alloc_state(ts_t *s)
{
	const sim_workload_t *w = s->w;
	size_t n = w->n, i;

	s->nnodes = w->procs;
	s->q = sim_xmalloc(sizeof(*s->q));
	s->nodes = sim_xcalloc((size_t) s->nnodes, sizeof(*s->nodes));
	s->heap = sim_xcalloc((size_t) s->nnodes, sizeof(int));
	s->pos = sim_xcalloc((size_t) s->nnodes, sizeof(int));
	s->left = sim_xcalloc(n + 1, sizeof(int));
	s->price = sim_xcalloc(n + 1, sizeof(double));
	s->target = sim_xcalloc(n + 1, sizeof(double));
	s->ret = sim_xcalloc(n + 1, sizeof(double));
	s->begin = sim_xcalloc(n + 1, sizeof(double));
	s->booked = sim_xcalloc(n + 1, sizeof(bool));
	s->bheap = sim_xcalloc(n + 1, sizeof(int));
	for (i = 0; i < n; i++)
		s->begin[i] = w->jobs[i].begin;
}

/* --power: the nodes' power state and the bill, from the tariff's time of
 * day at the first job. */
static int _power_setup(ts_t *s, sim_power_t *pw, sim_energy_t *en)
{
	const sim_config_t *cfg = s->cfg;
	long offset;
	const char *src;

	if (sim_tariff_offset(cfg, s->w, &offset, &src, s->err, s->errlen))
		return -1;
	memset(en, 0, sizeof(*en));
	en->power = cfg->power_slurm ? "slurm" :
		    libra_power_name(cfg->power);
	sim_power_init(pw, cfg, s->nnodes, offset, en);
	s->pw = pw;
	s->en = en;
	s->elig = sim_xcalloc((size_t) s->nnodes, sizeof(bool));
	s->pw_dirty = true;
	return 0;
}

/* --predict: the runtime predictor and the per-job plans. */
static int _predict_setup(ts_t *s)
{
	const sim_config_t *cfg = s->cfg;
	const sim_workload_t *w = s->w;
	size_t n = w->n, i;

	s->pred = libra_predictor_create(cfg->predict, cfg->predict_min);
	if (!s->pred) {
		snprintf(s->err, s->errlen, "core: cannot create the "
			 "runtime predictor");
		return -1;
	}
	s->pred_q = 1.0 - cfg->predict_risk;
	s->plan = sim_xcalloc(n + 1, sizeof(double));
	s->sla_of = sim_xcalloc(n + 1, sizeof(libra_sla_t));
	s->replan = sim_xcalloc(n + 1, sizeof(int));
	s->stamp = sim_xcalloc(n + 1, sizeof(unsigned));
	/* the trace's jobs before the window: the history the
	 * cluster's job completion records hold at its start */
	for (i = 0; i < w->nhist; i++)
		libra_predictor_record(s->pred, w->hist[i].user,
				       w->hist[i].group,
				       w->hist[i].runtime,
				       w->hist[i].estimate);
	return 0;
}

/* One 1-CPU ledger node per processor, node k at index k, each idle, at
 * its --speeds speed, which the ledger is told unless --speed-blind. */
static int _nodes_setup(ts_t *s)
{
	const sim_config_t *cfg = s->cfg;
	int k;

	for (k = 0; k < s->nnodes; k++) {
		char name[32];

		snprintf(name, sizeof(name), "cpu%d", k);
		if (libra_ledger_add_node(s->l, name, 1) != k) {
			snprintf(s->err, s->errlen, "core: libra_ledger_add_"
				 "node(%s) did not return index %d", name, k);
			return -1;
		}
		if (cfg->node_mem_mb &&
		    libra_ledger_set_node_resources(s->l, k, cfg->node_mem_mb,
						    0)) {
			snprintf(s->err, s->errlen, "core: libra_ledger_set_"
				 "node_resources(%s)", name);
			return -1;
		}
		s->nodes[k].speed = cfg->speeds ?
				    cfg->speeds[k % cfg->nspeeds] : 1.0;
		s->nodes[k].next = INFINITY;
		s->heap[k] = k;
		s->pos[k] = k;
	}
	if (cfg->speeds && !cfg->speed_blind) {
		double *v = sim_xmalloc((size_t) s->nnodes * sizeof(*v));
		int rc;

		for (k = 0; k < s->nnodes; k++)
			v[k] = s->nodes[k].speed;
		rc = libra_ledger_set_speeds(s->l, v, s->nnodes);
		free(v);
		if (rc) {
			snprintf(s->err, s->errlen, "core: libra_ledger_set_"
				 "speeds() refused the --speeds");
			return -1;
		}
	}
	for (k = 0; k < s->nnodes; k++)
		s->nodes[k].lspeed = libra_ledger_node_speed(s->l, k);
	return 0;
}

/* The events in time order until none is left, then the power's bill. */
static int _run_events(ts_t *s)
{
	const sim_config_t *cfg = s->cfg;
	const sim_workload_t *w = s->w;
	size_t n = w->n, ai = 0;
	double tp;

	tp = cfg->probe && n ? w->jobs[0].submit : INFINITY;
	for (;;) {
		double ta = ai < n ? w->jobs[ai].submit : INFINITY, tb;
		int top = s->heap[0];
		double tc = s->nodes[top].next;

		if (ai >= n)
			tp = INFINITY;	/* probes only while jobs arrive */
		/* the next admitted booking to begin, by (begin, job) */
		tb = s->nb ? s->begin[s->bheap[0]] : INFINITY;
		if (ta == INFINITY && tc == INFINITY && tb == INFINITY)
			break;
		if (s->pw && s->pw_dirty) {
			s->tw = sim_power_next(s->pw);
			s->pw_dirty = false;
		}
		s->horizon = ta;
		/* completions first: a CPU freed at t is free for a job
		 * arriving at t; then power (a boot that ends at t serves a
		 * booking that begins at t); a reservation begins before the
		 * arrivals at its time; probes after the arrivals at their
		 * time */
		if (tc <= ta && tc <= tp && tc <= tb && tc <= s->tw) {
			if (_complete(s, top))
				return -1;
			s->last = tc;
		} else if (s->tw <= ta && s->tw <= tp && s->tw <= tb) {
			_power_event(s, s->tw);
		} else if (tb <= ta && tb <= tp) {
			if (_begin(s, _bpop(s), tb))
				return -1;
			s->last = tb;
		} else if (tp < ta) {
			_probe(s, tp);
			tp += cfg->probe_every;
		} else {
			s->horizon = ai + 1 < n ? w->jobs[ai + 1].submit :
						  INFINITY;
			if (_arrive(s, (int) ai, ta))
				return -1;
			s->last = ta;
			ai++;
		}
	}
	if (s->pw)
		sim_power_finish(s->pw, s->last);
	return 0;
}

/* Every accepted job ended and left the ledger: anything else is a bug. */
static int _check_end(ts_t *s)
{
	const sim_workload_t *w = s->w;
	size_t i;

	for (i = 0; i < w->n; i++) {
		if (s->out[i].accepted && s->left[i]) {
			snprintf(s->err, s->errlen, "internal error: job %ld "
				 "still has %d parts running", w->jobs[i].id,
				 s->left[i]);
			return -1;
		}
	}
	if (libra_ledger_job_count(s->l) != 0) {
		snprintf(s->err, s->errlen, "core: %d jobs left in the ledger "
			 "after every job ended", libra_ledger_job_count(s->l));
		return -1;
	}
	return 0;
}

static void _free_state(ts_t *s, sim_power_t *pw)
{
	int k;

	for (k = 0; k < s->nnodes; k++)
		free(s->nodes[k].p);
	free(s->nodes);
	free(s->heap);
	free(s->pos);
	free(s->left);
	free(s->price);
	free(s->target);
	free(s->ret);
	free(s->done);
	free(s->q);
	free(s->plan);
	free(s->sla_of);
	free(s->replan);
	free(s->stamp);
	free(s->begin);
	free(s->booked);
	free(s->bheap);
	free(s->elig);
	sim_power_free(pw);
	libra_predictor_destroy(s->pred);
	libra_ledger_destroy(s->l);
}

extern int sim_run_timeshare(const sim_config_t *cfg,
			     const sim_workload_t *w, sim_policy_t policy,
			     sim_model_t model, sim_outcome_t *out,
			     sim_energy_t *en, char *err, size_t errlen)
{
	ts_t s;
	sim_power_t pw;
	size_t i;
	int rc = -1;

	memset(&s, 0, sizeof(s));
	s.cfg = cfg;
	s.w = w;
	s.policy = policy;
	s.model = model;
	s.out = out;
	s.err = err;
	s.errlen = errlen;
	s.p = cfg->params;
	s.p.policy = _core_policy(policy);
	s.l = libra_ledger_create(s.p.share_min);
	if (!s.l) {
		snprintf(err, errlen, "core: cannot create the ledger");
		return -1;
	}
	_alloc_state(&s);
	memset(&pw, 0, sizeof(pw));
	s.tw = INFINITY;
	if (cfg->power_on && _power_setup(&s, &pw, en))
		goto out;
	if (cfg->predict != LIBRA_PREDICT_NONE && _predict_setup(&s))
		goto out;
	for (i = 0; i < w->n; i++) {
		const sim_job_t *j = &w->jobs[i];

		/* the core's budget (sim_job_scale()); --sla-return
		 * utility: the budget itself (decision 50) */
		s.ret[i] = j->budget * sim_job_scale(j, model);
		if (!s.p.sla_return_utility)
			s.ret[i] = s.ret[i] / j->estimate /
				   (j->deadline - j->begin);
	}
	if (_nodes_setup(&s) || _run_events(&s) || _check_end(&s))
		goto out;
	rc = 0;
out:
	_free_state(&s, &pw);
	return rc;
}
