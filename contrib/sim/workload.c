/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  workload.c - a trace window with synthesized QoS.
 *
 *  Traces record what jobs did, not what their users wanted, so deadline,
 *  budget and penalty rate are synthesized as in the Yeo thesis (section
 *  3.5.1, 4.4.1, 6.4.3, after Irwin et al. 2004), relative to the real run
 *  time R of each job:
 *
 *  - each job is high urgency with probability high_pct / 100;
 *  - deadline factor D/R ~ N(m, cv m), m = d_low for high-urgency jobs and
 *    d_low * d_ratio for low-urgency ones (urgent = short deadline),
 *    redrawn until > 1 (a deadline after the run time);
 *  - budget factor B/f(R) ~ N(m, cv m), m = b_low for low-urgency jobs and
 *    b_low * b_ratio for high-urgency ones (urgent = pays more), redrawn
 *    until > 0; f(R) = R * PBase_s * procs: a factor of 1 is the base
 *    price of the job on all its CPUs;
 *  - penalty factor ~ N(m, cv m) as for budgets with p_low and p_ratio,
 *    PR = factor * PBase per CPU-hour * procs (per hour of delay);
 *  - one economy: the money is the same for every policy, charge and
 *    model, so their profits compare (design.md decision 3);
 *  - --economy thesis: the thesis' own economy, per job and
 *    independent of its width: f(R) = R * PBase_s and g(R) = PBase per
 *    CPU-hour, without procs (B = factor * f(R), PR = factor * g(R), as
 *    the thesis draws them against the job's run time alone, 3.5.1); the
 *    job costs what one of its CPUs costs (sim_job_scale() below);
 *  - bias (thesis 6.4.3): a job longer than the window's mean run time has
 *    its factor divided by the bias, a shorter one multiplied by it;
 *  - hard deadlines: the high-urgency jobs (thesis Table 4.1), or each job
 *    with probability hard_pct / 100 when --hard is given;
 *  - due dates (ISQoS, --due-frac F; none by default): the same fraction F
 *    of every job's deadline period, due = TSU + F (TD - TSU), so urgent
 *    jobs, whose deadlines are short, get short due dates too; never
 *    before TSU + RE, the earliest due date sbatch takes (sla.h).  The
 *    paper's experiments put the due date at 0.75-0.86 of the deadline
 *    period (due 12-24 min, deadline 4 min later) and let the price fall
 *    to 0 at the deadline: the SLA then carries no penalty rate, which
 *    the core reads as that curve (settle.h); --due-rate keeps the job's
 *    own rate instead.  No random draw: the other factors are unchanged.
 *  - a penalty cap (ISQoS, --penalty-cap C; none by default; design.md
 *    decision 35): every job's penalty is at most C x its budget (in
 *    the economy's money, so C = 1 lets a late job cost its whole bid
 *    and never more).  No random draw.
 *  - advance reservations (--reserve-frac F, --reserve-lead S; none by
 *    default; design.md decision 21): a job books a start S seconds after
 *    its submission with probability F, from a stream of its own.  Its
 *    deadline and due date move with its begin (the same window from its
 *    begin as it would have had from its submission), so its share and
 *    its SLA's period are the same; what changes is that it is admitted
 *    at its submission against the window it booked.
 *  - bags of tasks (--bag-frac F, --bag-tasks N, --bag-throttle K; none by
 *    default; design.md decision 36): a job becomes, with probability F
 *    from a stream of its own, a bag of N tasks, each the job as the
 *    trace has it (its CPUs, R and RE), at most K at once.  The bag is
 *    the one job the core admits it as (libra_bag_sla()): L = min(N, K)
 *    lanes x the task's CPUs, W = ceil(N / L) times its R and RE, and its
 *    deadline, budget and penalty rate are drawn as for that job, with
 *    the job's own draws: D = factor x W R from its begin, so that the
 *    deadline can be met by lanes run back to back, B = factor x W R x
 *    PBase x L x procs (the whole waves the bag holds until its deadline,
 *    as the core prices it), PR x L x procs.  A job whose L lanes would
 *    be wider than the machine stays a job (the core would refuse the
 *    bag; its user would throttle it).  --bag-mode each submits its N
 *    tasks one by one instead, each with the bag's deadline and an N-th
 *    of its budget and penalty rate (sim_bag_tasks()): money that adds
 *    up only in the site's economy, which --bag-frac needs.
 *
 *  - a synthetic workload (--synthetic exp:N:IA:RUN[:PROCS]; none by
 *    default) instead of a trace: N jobs of PROCS processors whose
 *    inter-arrival and run times are exponential with means IA and RUN
 *    seconds (the Yeo-Buyya slides' experiment: 200 jobs every 0.5 h on
 *    average, 10 h on average, on 13 nodes), each drawn from a stream of
 *    its own keyed by the seed and the job's number, so that a job's run
 *    time does not depend on N or the mean inter-arrival time.  The jobs
 *    are then what a trace's would be: their estimate is their run time
 *    (--estimates under:PCT shortens it), their QoS drawn as above, and
 *    --adf scales their arrivals too (give --adf 1 to keep IA).  A run
 *    time is at least 1 s.
 *
 *  The thesis never states the standard deviations; cv (default 0.25) is
 *  ours.  Every quantity is drawn from its own random stream keyed by the
 *  seed and the SWF job number (rng.h), so a job's QoS does not depend on
 *  the window, the policy or the other options.
\*****************************************************************************/

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "rng.h"
#include "settle.h"
#include "sim.h"
#include "swf.h"

/* Streams of the synthesis (never reorder: it would change every run). */
enum {
	STREAM_URGENCY = 1,
	STREAM_HARD,
	STREAM_DEADLINE,
	STREAM_BUDGET,
	STREAM_PENALTY,
	STREAM_RESERVE,
	STREAM_BAG,
	STREAM_SYN_ARRIVAL,
	STREAM_SYN_RUN,
};


/*
 * A job's memory per processor in MB (SWF fields 7 and 10 are KB per
 * processor, -1 when unknown), as --memory says; 0: none.
 */
static uint64_t _mem_mb(const sim_config_t *cfg, const libra_swf_job_t *s)
{
	double kb = -1;

	switch (cfg->mem) {
	case SIM_MEM_NONE:
		return 0;
	case SIM_MEM_REQUESTED:
		kb = s->req_mem;
		break;
	case SIM_MEM_USED:
		kb = s->used_mem;
		break;
	case SIM_MEM_EITHER:
		kb = s->req_mem > 0 ? s->req_mem : s->used_mem;
		break;
	}
	return kb > 0 ? (uint64_t) ceil(kb / 1024.0) : 0;
}

/* A factor that will not come out above "floor" after this many draws is
 * a configuration error (e.g. --deadline-low-mean 0.5 --cv 0). */
#define MAX_DRAWS 100000

typedef struct {
	size_t trace_index;
	const libra_swf_job_t *s;
	int procs;
} cand_t;

static int _cand_cmp(const void *a, const void *b)
{
	const cand_t *x = a, *y = b;

	if (x->s->submit != y->s->submit)
		return x->s->submit < y->s->submit ? -1 : 1;
	return x->trace_index < y->trace_index ? -1 :
	       x->trace_index > y->trace_index;
}

static int _draw(const sim_config_t *cfg, long id, int stream, double mean,
		 double floor, double *out, const char *what, char *err,
		 size_t errlen)
{
	sim_rng_t r;
	int i;

	sim_rng_init(&r, cfg->seed, (uint64_t) id, (uint64_t) stream);
	for (i = 0; i < MAX_DRAWS; i++) {
		double v = sim_rng_normal(&r, mean, cfg->cv * mean);

		if (v > floor) {
			*out = v;
			return 0;
		}
	}
	snprintf(err, errlen,
		 "cannot draw a %s factor above %g from N(%g, %g): raise "
		 "--%s-low-mean or --cv", what, floor, mean, cfg->cv * mean,
		 what);
	return -1;
}

static double _bias(double factor, double bias, double runtime,
		    double mean_runtime)
{
	if (runtime > mean_runtime)
		return factor / bias;
	if (runtime < mean_runtime)
		return factor * bias;
	return factor;
}

static double _estimate(const sim_config_t *cfg, const libra_swf_job_t *s)
{
	double r = s->run, req = s->req_time;

	switch (cfg->est) {
	case SIM_EST_TRACE:
		/* Ch.5/6: 0% = accurate, 100% = the user's estimate. */
		if (req <= 0)
			return r;
		return r + cfg->est_pct / 100.0 * (req - r);
	case SIM_EST_UNDER:
		/* Ch.3: under-estimate by pct of the real run time. */
		return r * (1.0 - cfg->est_pct / 100.0);
	case SIM_EST_ACCURATE:
	default:
		return r;
	}
}

/* The ISQoS terms of a job: due date and mark-up tier (see above). */
static void _due(const sim_config_t *cfg, sim_job_t *j)
{
	if (cfg->due_frac > 0.0) {
		j->due_date = j->begin + cfg->due_frac *
					 (j->deadline - j->begin);
		if (j->due_date < j->begin + j->estimate)
			j->due_date = j->begin + j->estimate;
		j->due_rate = cfg->due_rate;
	}
	if (cfg->tier_by_urgency)
		j->tier = j->high ? LIBRA_TIER_PREMIUM : LIBRA_TIER_VALUE;
	else
		j->tier = cfg->tier;
}

/* What the QoS synthesis of a job needs of its window (see the top). */
typedef struct {
	const sim_config_t *cfg;
	double mean_r;		/* the window's mean run time: the bias */
	double pb_s;		/* base price per CPU-second: f(R) */
	double pb_h;		/* base price per CPU-hour: PR */
	char *err;
	size_t errlen;
} synth_t;

/*
 * The trace's usable jobs (a run time, some processors, no wider than the
 * cluster), counting the others in w->skipped*, in submission order.
 */
static cand_t *_candidates(const libra_swf_t *swf, sim_workload_t *w,
			   size_t *ncp)
{
	cand_t *c = sim_xcalloc(swf->njobs ? swf->njobs : 1, sizeof(*c));
	size_t nc = 0, i;

	for (i = 0; i < swf->njobs; i++) {
		const libra_swf_job_t *s = &swf->jobs[i];
		int procs = s->procs > 0 ? s->procs : s->req_procs;

		if (!(s->run > 0)) {
			w->skipped_runtime++;
			continue;
		}
		if (procs <= 0) {
			w->skipped_procs++;
			continue;
		}
		if (procs > w->procs) {
			w->skipped_wide++;
			continue;
		}
		c[nc].trace_index = i;
		c[nc].s = s;
		c[nc].procs = procs;
		nc++;
	}
	w->skipped = w->skipped_runtime + w->skipped_procs + w->skipped_wide;
	qsort(c, nc, sizeof(*c), _cand_cmp);
	*ncp = nc;
	return c;
}

/* the jobs before the window: the runtime predictor's history */
static void _history(const sim_config_t *cfg, sim_workload_t *w,
		     const cand_t *c, size_t from)
{
	size_t i;

	w->nhist = from;
	w->hist = sim_xcalloc(from ? from : 1, sizeof(*w->hist));
	for (i = 0; i < from; i++) {
		w->hist[i].user = c[i].s->user >= 0 ? c[i].s->user : -1;
		w->hist[i].group = c[i].s->group >= 0 ? c[i].s->group : -1;
		w->hist[i].runtime = c[i].s->run;
		w->hist[i].estimate = _estimate(cfg, c[i].s);
		if (!(w->hist[i].estimate > 0))
			w->hist[i].estimate = c[i].s->run;
	}
}

/* A job as the trace has it, its urgency, hardness and reservation. */
static void _job_base(const sim_config_t *cfg, const cand_t *cd, double t0,
		      sim_job_t *j)
{
	const libra_swf_job_t *s = cd->s;
	sim_rng_t r;

	j->id = s->id;
	j->procs = cd->procs;
	j->runtime = s->run;
	j->submit = (s->submit - t0) * cfg->adf;
	j->estimate = _estimate(cfg, s);
	if (!(j->estimate > 0))
		j->estimate = j->runtime;
	j->mem_mb = _mem_mb(cfg, s);
	j->user = s->user >= 0 ? s->user : -1;
	j->group = s->group >= 0 ? s->group : -1;

	sim_rng_init(&r, cfg->seed, (uint64_t) s->id, STREAM_URGENCY);
	j->high = sim_rng_uniform(&r) < cfg->high_pct / 100.0;
	if (cfg->hard_pct < 0) {
		j->hard = j->high;
	} else {
		sim_rng_init(&r, cfg->seed, (uint64_t) s->id, STREAM_HARD);
		j->hard = sim_rng_uniform(&r) < cfg->hard_pct / 100.0;
	}

	/* an advance reservation: it begins reserve_lead later */
	j->begin = j->submit;
	if (cfg->reserve_frac > 0.0) {
		sim_rng_init(&r, cfg->seed, (uint64_t) s->id, STREAM_RESERVE);
		if (sim_rng_uniform(&r) < cfg->reserve_frac) {
			j->reserved = true;
			j->begin = j->submit + cfg->reserve_lead;
		}
	}
}

/* --bag-frac: job j becomes, drawn from its own stream, a bag of the
 * configuration's tasks if its lanes fit in the machine (see the top). */
static void _job_bag(const sim_config_t *cfg, int machine, sim_job_t *j)
{
	const libra_bag_t *b = &cfg->bag;
	sim_rng_t r;

	if (!(cfg->bag_frac > 0.0))
		return;
	sim_rng_init(&r, cfg->seed, (uint64_t) j->id, STREAM_BAG);
	if (!(sim_rng_uniform(&r) < cfg->bag_frac) ||
	    (long) b->lanes * j->procs > machine)
		return;
	j->bag = *b;
	j->task = -1;
	j->task_procs = j->procs;
	j->task_runtime = j->runtime;
	j->task_estimate = j->estimate;
	j->procs = b->lanes * j->procs;
	j->runtime = b->waves * j->runtime;
	j->estimate = b->waves * j->estimate;
}

/* A job's deadline, budget, penalty rate and ISQoS terms; -1: a factor
 * cannot be drawn (y->err says which). */
static int _job_qos(const synth_t *y, const libra_swf_job_t *s,
		    sim_job_t *j)
{
	const sim_config_t *cfg = y->cfg;
	double high_mean, low_mean, df, bf, pf, f, width;

	/* deadline: urgent = short; from the begin */
	high_mean = cfg->d_low;
	low_mean = cfg->d_low * cfg->d_ratio;
	if (_draw(cfg, s->id, STREAM_DEADLINE,
		  j->high ? high_mean : low_mean, 1.0, &df,
		  "deadline", y->err, y->errlen))
		return -1;
	df = _bias(df, cfg->bias_d, j->runtime, y->mean_r);
	j->deadline = j->begin + df * j->runtime;

	/* budget: urgent = pays more */
	low_mean = cfg->b_low;
	high_mean = cfg->b_low * cfg->b_ratio;
	if (_draw(cfg, s->id, STREAM_BUDGET,
		  j->high ? high_mean : low_mean, 0.0, &bf,
		  "budget", y->err, y->errlen))
		return -1;
	bf = _bias(bf, cfg->bias_b, j->runtime, y->mean_r);
	j->per_job = cfg->economy == SIM_ECONOMY_THESIS;
	width = j->per_job ? 1.0 : j->procs;
	f = j->runtime * y->pb_s * width;
	j->budget = bf * f;

	/* penalty rate: urgent = higher */
	low_mean = cfg->p_low;
	high_mean = cfg->p_low * cfg->p_ratio;
	if (_draw(cfg, s->id, STREAM_PENALTY,
		  j->high ? high_mean : low_mean, 0.0, &pf,
		  "penalty", y->err, y->errlen))
		return -1;
	pf = _bias(pf, cfg->bias_p, j->runtime, y->mean_r);
	j->penalty_rate = pf * y->pb_h * width;
	j->penalty_cap = cfg->penalty_cap >= 0.0 ?
			 cfg->penalty_cap * j->budget : -1.0;

	_due(cfg, j);
	return 0;
}

/* --bag-mode each: every bag's tasks, one by one, in its place. */
static void _each(sim_workload_t *w)
{
	sim_workload_t tw;

	sim_bag_tasks(w, false, &tw, NULL);
	tw.hist = w->hist;
	tw.nhist = w->nhist;
	free(w->jobs);
	*w = tw;
}

extern int sim_synthetic_parse(const char *s, sim_synthetic_t *syn,
			       char *err, size_t errlen)
{
	char *end;
	double v[4] = { 0, 0, 0, 1 };
	int n = 0;

	if (strncmp(s, "exp:", 4)) {
		snprintf(err, errlen, "'%s' is not exp:N:IA:RUN[:PROCS]", s);
		return -1;
	}
	s += 4;
	for (;;) {
		errno = 0;
		v[n] = strtod(s, &end);
		if (end == s || errno || !isfinite(v[n]) || !(v[n] > 0) ||
		    (*end && *end != ':')) {
			n = 0;		/* not a number > 0 */
			break;
		}
		n++;
		if (!*end || n == 4)
			break;
		s = end + 1;
	}
	if ((n != 3 && n != 4) || *end || v[0] != floor(v[0]) ||
	    v[0] > 1e8 || v[3] != floor(v[3]) || v[3] > 1e6) {
		snprintf(err, errlen, "not exp:N:IA:RUN[:PROCS] with N and "
			 "PROCS whole numbers and IA, RUN seconds, all > 0");
		return -1;
	}
	syn->n = (long) v[0];
	syn->mean_ia = v[1];
	syn->mean_run = v[2];
	syn->procs = (int) v[3];
	return 0;
}

/* An exponential draw of the given mean, from the job's stream. */
static double _exp_draw(const sim_config_t *cfg, long id, int stream,
			double mean)
{
	sim_rng_t r;

	sim_rng_init(&r, cfg->seed, (uint64_t) id, stream);
	return -mean * log(1.0 - sim_rng_uniform(&r));
}

/* --synthetic: the jobs as an SWF trace would have them. */
static void _synthetic(const sim_config_t *cfg, libra_swf_t *swf)
{
	const sim_synthetic_t *y = &cfg->synthetic;
	double t = 0.0;

	memset(swf, 0, sizeof(*swf));
	swf->jobs = sim_xcalloc((size_t) y->n, sizeof(*swf->jobs));
	swf->njobs = (size_t) y->n;
	swf->max_procs = cfg->procs;
	for (long i = 0; i < y->n; i++) {
		libra_swf_job_t *s = &swf->jobs[i];

		s->id = i + 1;
		t += _exp_draw(cfg, s->id, STREAM_SYN_ARRIVAL, y->mean_ia);
		s->submit = t;
		s->run = fmax(1.0, _exp_draw(cfg, s->id, STREAM_SYN_RUN,
					     y->mean_run));
		s->procs = s->req_procs = y->procs;
		s->req_time = s->run;
		s->status = 1;
		s->avg_cpu = s->used_mem = s->req_mem = -1;
		s->user = s->group = s->app = s->queue = s->partition = -1;
		s->preceding = -1;
		s->think = -1;
	}
}

extern int sim_workload_load(const sim_config_t *cfg, sim_workload_t *w,
			     char *err, size_t errlen)
{
	libra_swf_t swf;
	cand_t *c = NULL;
	size_t nc = 0, i, from, to;
	synth_t y = {
		.cfg = cfg,
		.pb_s = libra_price_base_per_sec(&cfg->params),
		.pb_h = cfg->params.price_base,
		.err = err,
		.errlen = errlen,
	};
	double mean_r = 0.0, t0;

	memset(w, 0, sizeof(*w));
	if (cfg->synthetic.n)
		_synthetic(cfg, &swf);
	else if (libra_swf_read(cfg->trace, &swf, err, errlen))
		return -1;

	w->procs = cfg->procs;
	if (!w->procs)
		w->procs = swf.max_procs ? swf.max_procs : swf.max_nodes;
	if (w->procs <= 0) {
		snprintf(err, errlen,
			 "%s: no MaxProcs or MaxNodes in the header: give "
			 "--procs", cfg->trace);
		libra_swf_free(&swf);
		return -2;
	}

	c = _candidates(&swf, w, &nc);

	from = 0;
	to = nc;
	if (cfg->first > 0 && (size_t) cfg->first < nc)
		to = (size_t) cfg->first;
	if (cfg->last > 0 && (size_t) cfg->last < nc)
		from = nc - (size_t) cfg->last;

	w->n = to - from;
	w->jobs = sim_xcalloc(w->n ? w->n : 1, sizeof(*w->jobs));
	t0 = w->n ? c[from].s->submit : 0.0;
	w->t0 = t0;
	_history(cfg, w, c, from);
	for (i = from; i < to; i++)
		mean_r += c[i].s->run;
	if (w->n)
		mean_r /= (double) w->n;
	y.mean_r = mean_r;

	for (i = from; i < to; i++) {
		sim_job_t *j = &w->jobs[i - from];

		_job_base(cfg, &c[i], t0, j);
		_job_bag(cfg, w->procs, j);
		if (_job_qos(&y, c[i].s, j))
			goto fail;
	}
	free(c);
	libra_swf_free(&swf);
	if (cfg->bag_frac > 0.0 && cfg->bag_each)
		_each(w);
	return 0;

fail:
	/* only a factor that cannot be drawn gets here: a usage error */
	free(c);
	libra_swf_free(&swf);
	sim_workload_free(w);
	return -2;
}

extern void sim_workload_free(sim_workload_t *w)
{
	free(w->jobs);
	free(w->hist);
	memset(w, 0, sizeof(*w));
}

typedef struct {
	double begin;
	size_t idx;
} begin_key_t;

static int _by_begin(const void *a, const void *b)
{
	const begin_key_t *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

extern size_t *sim_jobs_by_begin(const sim_workload_t *w)
{
	size_t *ord = sim_xcalloc(w->n ? w->n : 1, sizeof(*ord));
	bool sorted = true;
	begin_key_t *k;
	size_t i;

	for (i = 0; i < w->n; i++) {
		ord[i] = i;
		if (i && w->jobs[i].begin < w->jobs[i - 1].begin)
			sorted = false;
	}
	/* jobs are in submission order: only reservations reorder them */
	if (sorted)
		return ord;
	k = sim_xcalloc(w->n, sizeof(*k));
	for (i = 0; i < w->n; i++) {
		k[i].begin = w->jobs[i].begin;
		k[i].idx = i;
	}
	qsort(k, w->n, sizeof(*k), _by_begin);
	for (i = 0; i < w->n; i++)
		ord[i] = k[i].idx;
	free(k);
	return ord;
}

/*
 * The core tests every CPU of a Libra+$ placement against B / c and
 * charges c * RE * max P_ij under --charge thesis (design.md decision 3):
 * its money is the job's on all its CPUs.  A job of the thesis economy
 * under a commodity price is given to it as c * B and c * PR, which makes
 * the core's test the thesis' test of each node, RE * P_ij <= B (Fig. 3.2
 * line 20), and its prices and charges, divided by c (outcome.c), the
 * thesis' cost of the job, C = RE * max P_ij (lines 22-24); Libra's static
 * price and the baselines' base charge come to the job's one CPU alike
 * (gamma RE + delta RE / D, RE * PBase).  Under the bid model the money is
 * the job's own bid, U = B - DY * PR (Eq. 4.1), and LibraSLA's returns
 * weigh it per job as the thesis' do (Eq. 4.5): 1.
 */
extern double sim_job_scale(const sim_job_t *j, sim_model_t model)
{
	if (!j->per_job || model == SIM_MODEL_BID)
		return 1.0;
	return j->procs;
}

extern void sim_job_sla(const sim_job_t *j, sim_model_t model,
			libra_sla_t *sla)
{
	double k = sim_job_scale(j, model);

	memset(sla, 0, sizeof(*sla));
	sla->set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE | LIBRA_SLA_BUDGET |
		   LIBRA_SLA_PENALTY | LIBRA_SLA_TYPE;
	sla->runtime = j->estimate;
	/* a reservation's SLA is that of the job submitted at its begin:
	 * the same period D = TD - begin, so the same price, return and due
	 * date; it is quoted and committed at its submission */
	sla->submit = j->begin;
	sla->deadline = j->deadline;
	sla->budget = j->budget * k;
	sla->penalty_rate = j->penalty_rate * k;
	sla->type = j->hard ? LIBRA_DEADLINE_HARD : LIBRA_DEADLINE_SOFT;
	sla->due_date = j->due_date;
	if (j->due_date > 0.0)
		sla->set |= LIBRA_SLA_DUEDATE;
	/* the paper's z-curve falls to 0 at the deadline: no rate of the
	 * job's own; a due date at the deadline (F = 1) has no z-curve and
	 * keeps it */
	if (libra_sla_has_due_window(sla) && !j->due_rate) {
		sla->set &= ~LIBRA_SLA_PENALTY;
		sla->penalty_rate = 0.0;
	}
	if (j->penalty_cap >= 0.0) {
		sla->set |= LIBRA_SLA_PENALTY_CAP;
		sla->penalty_cap = j->penalty_cap * k;
	}
	if (j->tier != LIBRA_TIER_NONE) {
		sla->set |= LIBRA_SLA_TIER;
		sla->tier = j->tier;
	}
	/* a bag: its task's SLA made the bag's by the core (W x RE) */
	if (sim_job_is_bag(j)) {
		libra_sla_t task = *sla;

		task.runtime = j->task_estimate;
		libra_bag_sla(&j->bag, &task, sla);
	}
}
