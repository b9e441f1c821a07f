/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  bench-admit.c - what one admission decision of the policy core costs.
 *
 *  Builds a synthetic ledger (libra_ledger_add_node, libra_ledger_commit)
 *  of N nodes with J committed jobs, then times, one call at a time with
 *  clock_gettime(CLOCK_MONOTONIC):
 *
 *    admit     libra_admit() of a probe request (never committed, so every
 *              decision sees the same ledger), per policy;
 *    offer     libra_counter_offer_within() of a refused probe: what
 *              job_submit/qos runs, under slurmctld's read locks, for every
 *              refusal, with its time limit (--offer-limit; the "cut"
 *              column: how often the search stopped there);
 *    slot      libra_next_slot_within() of the same probe (the next free
 *              slot job_submit/qos looks for after the offer), same limit;
 *    progress  one share-update pass: libra_ledger_progress_node() over
 *              every node (what a node-side job control loop does);
 *    expire    libra_ledger_expire() over the whole ledger (what sched/libra
 *              does in every pass).
 *
 *  The ledger.  Every node has --cpus CPUs (default 32).  Each job goes to
 *  a node drawn at random and takes 1, 2, 4 or 8 of its CPUs.  A node's jobs
 *  together commit U_j of its CPUs, U_j uniform in [0.5, 0.98] (a loaded
 *  Libra cluster: admission stops near capacity); a job's share is
 *  proportional to a random weight, clamped to [share_min, 1] as the ledger
 *  clamps it, so a sparse ledger (few jobs per node) commits less.  Jobs
 *  were committed up to half their deadline ago; deadlines are log-uniform
 *  in [1h, 48h].  So at 100,000 jobs on 128 nodes a node holds ~780 jobs
 *  with shares of ~0.01-0.05, at 1,000 jobs on 10,000 nodes most nodes are
 *  empty.
 *
 *  The probes.  A cycle of 256 requests: CPUs from {1,1,2,4,8,16,32,64}
 *  (64 spans nodes), share log-uniform in [0.05, 0.5], deadline log-uniform
 *  in [1h, 24h], budget 1.0-2.5 times the CPU time at the base price (so
 *  some Libra+$ quotes exceed it and are refused for budget).  Counter-offer
 *  probes are the same requests with a budget of half the base price: no
 *  deadline can ever fit it (every policy charges at least the base price),
 *  so the search runs to its 30-day horizon, the most it can cost; the
 *  "libra+$ found" row instead gives 1.3 times the base price, which a
 *  later deadline meets.
 *
 *  Output: one tab-separated line per measurement (header first); times in
 *  microseconds.  For each cell, R repeats of K timed calls; the line has
 *  the median and p99 of every repeat as min/median/max over the repeats.
 *  Everything is seeded: the same options give the same ledgers and probes.
 *
 *  Samples: each repeat makes about --target-ms worth of calls (at least
 *  100 decisions, 30 counter-offers or 30 passes, at most --max-samples),
 *  but stops after --cap-ms once it has MIN_CAPPED calls, so that a cell
 *  whose calls take seconds does not take the whole run; the "samples"
 *  column is the fewest calls of any repeat (p99 of fewer than 100 calls
 *  is close to their maximum).
 *
 *  Usage: bench-admit [--nodes 128,1000,10000] [--jobs 1000,10000,100000]
 *         [--policies LIST] [--repeats 3] [--cpus 32] [--target-ms 250]
 *         [--cap-ms 2000] [--max-samples 2000] [--seed 1] [--no-offer]
 *         [--no-update] [--admit-only] [--offer-only] [--calls N]
 *         [--no-found] (no "libra+$ found" counter-offer cell)
 *         [--no-slot] (no next-slot cells)
 *         [--offer-limit MS] (the searches' time limit; default
 *                     job_submit/qos's LIBRA_SEARCH_SECONDS, 0: none)
 *         [--cpu-clock] (time with the thread's CPU clock, not
 *                     CLOCK_MONOTONIC: on a machine other work loads,
 *                     the time a call was preempted does not count)
 *         [--digest] (no timing: one line per cell with a hash of all
 *                     256 decisions, to check that a faster core decides
 *                     exactly as before; the searches without a limit)
 *
 *  --calls N makes exactly N timed calls per repeat and no estimate: the
 *  same calls every run, for callgrind (run-bench's profiles).
\*****************************************************************************/

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "admit.h"
#include "ledger.h"
#include "params.h"
#include "sla.h"

#define NPROBES 256
#define HORIZON (30.0 * 86400.0)	/* job_submit/qos's OFFER_HORIZON */
#define NOW0 1.0e9			/* an arbitrary "now" */
#define MIN_CAPPED 5			/* fewest calls of a capped repeat */

/* ------------------------------------------------------------ options */

static int nodes_list[16] = { 128, 1000, 10000 }, n_nodes = 3;
static int jobs_list[16] = { 1000, 10000, 100000 }, n_jobs = 3;
static int repeats = 3, node_cpus = 32, max_samples = 2000;
static double target_ms = 250.0, cap_ms = 2000.0;
static uint64_t seed = 1;
static int do_admit = 1, do_offer = 1, do_update = 1, do_found = 1;
static int do_slot = 1;
/* the searches' time limit [s]: job_submit/qos's, where the core has one */
#ifdef LIBRA_SEARCH_SECONDS
static double offer_limit = LIBRA_SEARCH_SECONDS;
#else
static double offer_limit;
#endif
static int exact_calls;		/* --calls N: exactly N per repeat (profiling) */
static int do_digest;		/* --digest: print a hash of every decision */

/* The policy variants measured (name as printed). */
typedef struct {
	const char *name;
	libra_policy_t policy;
	libra_resfree_t resfree;
	double risk_mu, risk_sigma;	/* <0: default */
	int offer;			/* measure counter-offers too */
} variant_t;

static const variant_t all_variants[] = {
	{ "libra",		  LIBRA_POLICY_LIBRA, LIBRA_RESFREE_WINDOW, -1, -1, 1 },
	{ "libra+$",		  LIBRA_POLICY_LIBRA_PRICE, LIBRA_RESFREE_WINDOW, -1, -1, 1 },
	{ "libra+$thesis",	  LIBRA_POLICY_LIBRA_PRICE, LIBRA_RESFREE_THESIS, -1, -1, 1 },
	{ "librasla",		  LIBRA_POLICY_SLA, LIBRA_RESFREE_WINDOW, -1, -1, 0 },
	{ "librariskd",		  LIBRA_POLICY_RISKD, LIBRA_RESFREE_WINDOW, -1, -1, 1 },
	{ "librariskd-mu1.2",	  LIBRA_POLICY_RISKD, LIBRA_RESFREE_WINDOW, 1.2, 0.05, 0 },
};
#define NVARIANTS ((int) (sizeof(all_variants) / sizeof(all_variants[0])))
static int variant_on[NVARIANTS];

/* ------------------------------------------------------------- random */

static uint64_t rng_state;

static uint64_t _rand64(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double _uniform(double lo, double hi)
{
	return lo + (hi - lo) * ((_rand64() >> 11) * (1.0 / 9007199254740992.0));
}

static double _log_uniform(double lo, double hi)
{
	return exp(_uniform(log(lo), log(hi)));
}

/* ------------------------------------------------------------- timing */

static clockid_t bench_clock = CLOCK_MONOTONIC;	/* --cpu-clock: the thread's */

static double _now_us(void)
{
	struct timespec ts;

	clock_gettime(bench_clock, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int _cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v[0..n). */
static double _pct(const double *v, int n, double q)
{
	int k = (int) ceil(q * n) - 1;

	if (k < 0)
		k = 0;
	if (k >= n)
		k = n - 1;
	return v[k];
}

/* min / median / max of r values (sorted in place). */
static void _spread(double *v, int r, double out[3])
{
	qsort(v, (size_t) r, sizeof(*v), _cmp_double);
	out[0] = v[0];
	out[1] = (r % 2) ? v[r / 2] : 0.5 * (v[r / 2 - 1] + v[r / 2]);
	out[2] = v[r - 1];
}

/* ------------------------------------------------------------- ledger */

typedef struct {
	libra_ledger_t *l;
	double committed_frac;	/* sum of node shares / (nodes * cpus) */
	double jobs_per_busy_node;
	double build_ms;
} world_t;

static void _build(world_t *w, int nodes, int jobs, double share_min)
{
	static const int cpus_choice[] = { 1, 1, 1, 2, 2, 4, 8 };
	int *node_of = malloc(sizeof(int) * (size_t) jobs);
	int *job_cpus = malloc(sizeof(int) * (size_t) jobs);
	double *weight = malloc(sizeof(double) * (size_t) jobs);
	double *wsum = calloc((size_t) nodes, sizeof(double));
	double *util = malloc(sizeof(double) * (size_t) nodes);
	int *count = calloc((size_t) nodes, sizeof(int));
	double t0 = _now_us(), share_sum = 0.0;
	char name[32];
	int busy = 0;

	rng_state = seed * 1000003ULL + (uint64_t) nodes * 7919ULL +
		    (uint64_t) jobs;
	w->l = libra_ledger_create(share_min);
	for (int n = 0; n < nodes; n++) {
		snprintf(name, sizeof(name), "n%05d", n + 1);
		if (libra_ledger_add_node(w->l, name, node_cpus) != n) {
			fprintf(stderr, "bench-admit: add_node failed\n");
			exit(1);
		}
		util[n] = _uniform(0.5, 0.98);
	}
	for (int j = 0; j < jobs; j++) {
		int c = cpus_choice[_rand64() % (sizeof(cpus_choice) /
						 sizeof(cpus_choice[0]))];

		node_of[j] = (int) (_rand64() % (uint64_t) nodes);
		job_cpus[j] = c < node_cpus ? c : node_cpus;
		weight[j] = _uniform(0.5, 1.5);
		wsum[node_of[j]] += job_cpus[j] * weight[j];
		count[node_of[j]]++;
	}
	for (int j = 0; j < jobs; j++) {
		int n = node_of[j];
		double s = util[n] * node_cpus * weight[j] / wsum[n];
		double d = _log_uniform(3600.0, 48.0 * 3600.0);
		double age = _uniform(0.0, 0.5) * d;
		double commit = NOW0 - age;
		libra_sla_t sla;
		libra_place_t place = { .node = n, .cpus = job_cpus[j] };

		if (s > 1.0)
			s = 1.0;
		if (s < share_min)
			s = share_min;
		memset(&sla, 0, sizeof(sla));
		sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE |
			  LIBRA_SLA_BUDGET;
		sla.submit = commit;
		sla.deadline = commit + d;
		sla.runtime = s * d;
		sla.budget = job_cpus[j] * sla.runtime / 3600.0 *
			     _uniform(1.0, 3.0);
		sla.type = (_rand64() % 4) ? LIBRA_DEADLINE_HARD :
					     LIBRA_DEADLINE_SOFT;
		sla.penalty_rate = _uniform(0.0, 1.0);
		if (libra_ledger_commit(w->l, (uint32_t) j + 1, &sla, &place,
					1, commit)) {
			fprintf(stderr, "bench-admit: commit failed\n");
			exit(1);
		}
	}
	for (int n = 0; n < nodes; n++) {
		share_sum += libra_ledger_node_share(w->l, n);
		if (count[n])
			busy++;
	}
	w->committed_frac = share_sum / ((double) nodes * node_cpus);
	w->jobs_per_busy_node = busy ? (double) jobs / busy : 0.0;
	w->build_ms = (_now_us() - t0) / 1e3;
	free(node_of);
	free(job_cpus);
	free(weight);
	free(wsum);
	free(util);
	free(count);
}

/* ------------------------------------------------------------- probes */

typedef struct {
	libra_sla_t sla;
	libra_request_t req;
} probe_t;

static probe_t probes[NPROBES];

static void _make_probes(int nodes, int jobs)
{
	static const int cpus_choice[] = { 1, 1, 2, 4, 8, 16, 32, 64 };

	rng_state = seed * 7777777ULL + (uint64_t) nodes * 31ULL +
		    (uint64_t) jobs * 17ULL + 99;
	for (int i = 0; i < NPROBES; i++) {
		probe_t *p = &probes[i];
		double s = _log_uniform(0.05, 0.5);
		double d = _log_uniform(3600.0, 24.0 * 3600.0);

		memset(p, 0, sizeof(*p));
		p->req.cpus = cpus_choice[i % 8];
		p->sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE |
			     LIBRA_SLA_BUDGET;
		p->sla.submit = NOW0;
		p->sla.deadline = NOW0 + d;
		p->sla.runtime = s * d;
		p->sla.budget = p->req.cpus * p->sla.runtime / 3600.0 *
				_uniform(1.0, 2.5);
		p->sla.penalty_rate = _uniform(0.0, 1.0);
		p->sla.type = (i % 3) ? LIBRA_DEADLINE_HARD :
					LIBRA_DEADLINE_SOFT;
	}
}

/* --------------------------------------------------------------- cells */

/*
 * The searches as job_submit/qos makes them, within "limit" seconds (0:
 * none); a core without limits (an older one, for compare-patch) searches
 * to the end.  Returns whether the search stopped at the limit.
 */
static bool _offer(const libra_ledger_t *l, const libra_params_t *p,
		   const probe_t *pr, double limit, libra_offer_t *o)
{
#ifdef LIBRA_SEARCH_SECONDS
	libra_counter_offer_within(l, p, &pr->sla, &pr->req, NOW0, HORIZON,
				   limit, o);
	return o->cut;
#else
	(void) limit;
	libra_counter_offer(l, p, &pr->sla, &pr->req, NOW0, HORIZON, o);
	return false;
#endif
}

static bool _slot(const libra_ledger_t *l, const libra_params_t *p,
		  const probe_t *pr, double limit, libra_slot_t *slot,
		  bool *found)
{
#ifdef LIBRA_SEARCH_SECONDS
	*found = libra_next_slot_within(l, p, &pr->sla, &pr->req, NOW0,
					HORIZON, limit, slot);
	return slot->cut;
#else
	(void) limit;
	*found = libra_next_slot(l, p, &pr->sla, &pr->req, NOW0, HORIZON,
				 slot);
	return false;
#endif
}

static void _params(const variant_t *v, libra_params_t *p)
{
	libra_params_default(p);
	p->policy = v->policy;
	p->resfree = v->resfree;
	if (v->risk_mu >= 0.0)
		p->risk_mu = v->risk_mu;
	if (v->risk_sigma >= 0.0)
		p->risk_sigma = v->risk_sigma;
}

/* Median and p99 of k timings (sorts t). */
static void _median_p99(double *t, int k, double *med, double *p99)
{
	qsort(t, (size_t) k, sizeof(*t), _cmp_double);
	*med = _pct(t, k, 0.5);
	*p99 = _pct(t, k, 0.99);
}

/* How many timed calls per repeat: about target_ms, within bounds. */
static int _samples(double est_us, int min)
{
	double k = target_ms * 1e3 / (est_us > 0.1 ? est_us : 0.1);

	if (k > max_samples)
		k = max_samples;
	if (k < min)
		k = min;
	return (int) k;
}

/* cut < 0: no "cut" column (not a search) */
static void _print(const char *kind, const char *policy, int nodes, int jobs,
		   int samples, double med[3], double p99[3], double extra,
		   const char *extra_name, double cut)
{
	printf("%s\t%s\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s=%.3f",
	       kind, policy, nodes, jobs, samples, repeats, med[0], med[1],
	       med[2], p99[0], p99[1], p99[2], extra_name, extra);
	if (cut >= 0.0)
		printf("\tcut=%.3f", cut);
	printf("\n");
	fflush(stdout);
}

typedef enum { OFFER_NEVER, OFFER_FOUND, OFFER_SLOT } offer_kind_t;

/* A probe's budget for a search: "never" half the base price, "found"
 * 1.3 times it; a next-slot search is for the "never" probe. */
static void _search_budget(probe_t *pr, offer_kind_t okind)
{
	pr->sla.budget = pr->req.cpus * pr->sla.runtime / 3600.0 *
			 (okind == OFFER_FOUND ? 1.3 : 0.5);
}

/* One search of probe pr: *hit whether it found something; returns whether
 * it stopped at the limit; the digest of what it found in *h. */
static bool _search(const world_t *w, const libra_params_t *p,
		    const probe_t *pr, offer_kind_t okind, double limit,
		    bool *hit, uint64_t *h);

/* FNV-1a over the bytes of a value: the decisions' digest (--digest), so
 * that an optimised core can be shown to decide exactly as before. */
static uint64_t _fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t _quote_digest(uint64_t h, const libra_quote_t *q)
{
	h = _fnv(h, &q->verdict, sizeof(q->verdict));
	h = _fnv(h, &q->price, sizeof(q->price));
	h = _fnv(h, &q->least_price, sizeof(q->least_price));
	h = _fnv(h, &q->nplace, sizeof(q->nplace));
	/* field by field: a place's padding is no decision, and the memory
	 * and GPUs count only when held, so that digests of decisions without
	 * them compare with those from before the ledger knew them */
	for (int i = 0; i < q->nplace; i++) {
		h = _fnv(h, &q->place[i].node, sizeof(q->place[i].node));
		h = _fnv(h, &q->place[i].cpus, sizeof(q->place[i].cpus));
		if (q->place[i].mem_mb || q->place[i].gpus) {
			h = _fnv(h, &q->place[i].mem_mb,
				 sizeof(q->place[i].mem_mb));
			h = _fnv(h, &q->place[i].gpus,
				 sizeof(q->place[i].gpus));
		}
	}
	return h;
}

static uint64_t _slot_digest(uint64_t h, bool found, const libra_slot_t *s)
{
	h = _fnv(h, &found, sizeof(found));
	if (found) {
		h = _fnv(h, &s->begin, sizeof(s->begin));
		h = _fnv(h, &s->deadline, sizeof(s->deadline));
		h = _fnv(h, &s->price, sizeof(s->price));
	}
	return h;
}

static uint64_t _offer_digest(uint64_t h, const libra_offer_t *o)
{
	h = _fnv(h, &o->has_deadline, sizeof(o->has_deadline));
	h = _fnv(h, &o->has_budget, sizeof(o->has_budget));
	if (o->has_deadline) {
		h = _fnv(h, &o->deadline, sizeof(o->deadline));
		h = _fnv(h, &o->deadline_price, sizeof(o->deadline_price));
	}
	if (o->has_budget)
		h = _fnv(h, &o->budget, sizeof(o->budget));
	return h;
}

static const char *_kind_name(offer_kind_t okind)
{
	return okind == OFFER_NEVER ? "offer" :
	       okind == OFFER_FOUND ? "offer-found" : "slot";
}

static bool _search(const world_t *w, const libra_params_t *p,
		    const probe_t *probe, offer_kind_t okind, double limit,
		    bool *hit, uint64_t *h)
{
	probe_t pr = *probe;
	bool cut;

	_search_budget(&pr, okind);
	if (okind == OFFER_SLOT) {
		libra_slot_t slot;

		cut = _slot(w->l, p, &pr, limit, &slot, hit);
		*h = _slot_digest(*h, *hit, &slot);
	} else {
		libra_offer_t o;

		cut = _offer(w->l, p, &pr, limit, &o);
		*hit = o.has_deadline;
		*h = _offer_digest(*h, &o);
	}
	return cut;
}

/* A cell's --digest line: every probe once, untimed: the decisions
 * themselves. */
static void _digest_cell(const world_t *w, const variant_t *v,
			 const libra_params_t *p, int nodes, int jobs,
			 int offer, offer_kind_t okind, libra_quote_t *q)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (int i = 0; i < NPROBES; i++) {
		probe_t pr = probes[i];

		if (offer) {
			bool hit;

			_search(w, p, &pr, okind, 0.0, &hit, &h);
		} else {
			libra_admit(w->l, p, &pr.sla, &pr.req, NOW0, q);
			h = _quote_digest(h, q);
		}
	}
	printf("digest\t%s\t%s\t%d\t%d\t%016llx\n",
	       offer ? _kind_name(okind) : "admit", v->name, nodes, jobs,
	       (unsigned long long) h);
}

/* What one call of a cell costs [us], from a few calls not counted as
 * samples (they also warm the caches); a slow one stops after 200 ms. */
static double _estimate(const world_t *w, const libra_params_t *p,
			int offer, offer_kind_t okind, libra_quote_t *q)
{
	double est = _now_us();

	for (int i = 0; i < 4; i++) {
		if (i && _now_us() - est > 200e3)
			return (_now_us() - est) / i;
		probe_t pr = probes[i];

		if (offer) {
			bool hit;
			uint64_t h = 0;

			_search(w, p, &pr, okind, offer_limit, &hit, &h);
		} else {
			libra_admit(w->l, p, &pr.sla, &pr.req, NOW0, q);
		}
	}
	return (_now_us() - est) / 4.0;
}

/* What a cell's calls found (searches) or accepted (admissions). */
typedef struct {
	long hits, total, cuts;
} tally_t;

/* One timed call of probe pr: its time [us]; what it found or accepted
 * (and whether a search stopped at its limit) counted in c. */
static double _timed_call(const world_t *w, const libra_params_t *p,
			  int offer, offer_kind_t okind, const probe_t *pr,
			  libra_quote_t *q, tally_t *c)
{
	double a, b;

	if (offer) {
		bool hit;
		uint64_t h = 0;

		a = _now_us();
		c->cuts += _search(w, p, pr, okind, offer_limit, &hit, &h);
		b = _now_us();
		c->hits += hit;
	} else {
		a = _now_us();
		libra_admit(w->l, p, &pr->sla, &pr->req, NOW0, q);
		b = _now_us();
		c->hits += q->verdict == LIBRA_ACCEPT;
	}
	c->total++;
	return b - a;
}

/* One repeat of up to k timed calls, their times in t; returns how many
 * it made. */
static int _repeat(const world_t *w, const libra_params_t *p, int offer,
		   offer_kind_t okind, libra_quote_t *q, int k, double *t,
		   tally_t *c)
{
	double start = _now_us();
	int got = 0;

	for (int i = 0; i < k; i++) {
		probe_t pr = probes[i % NPROBES];

		/* a slow cell stops early (at least MIN_CAPPED calls) */
		if (!exact_calls && i >= MIN_CAPPED &&
		    _now_us() - start > cap_ms * 1e3)
			break;

		t[i] = _timed_call(w, p, offer, okind, &pr, q, c);
		got++;
	}
	return got;
}

/* One admission (or search) cell: R repeats of K decisions. */
static void _cell(const world_t *w, const variant_t *v, int nodes, int jobs,
		  int offer, offer_kind_t okind)
{
	libra_params_t p;
	libra_quote_t *q = malloc(sizeof(*q));
	double *t, meds[16], p99s[16], med[3], p99[3];
	tally_t c = { 0, 0, 0 };
	int k;

	_params(v, &p);
	if (do_digest) {
		_digest_cell(w, v, &p, nodes, jobs, offer, okind, q);
		free(q);
		return;
	}
	/* --calls: exactly so many, and no estimate (the same calls every
	 * run) */
	if (exact_calls)
		k = exact_calls;
	else
		k = _samples(_estimate(w, &p, offer, okind, q),
			     offer ? 30 : 100);
	t = malloc(sizeof(double) * (size_t) k);
	for (int r = 0; r < repeats; r++) {
		int got = _repeat(w, &p, offer, okind, q, k, t, &c);

		_median_p99(t, got, &meds[r], &p99s[r]);
		if (got < k)
			k = got;	/* report the fewest */
	}
	_spread(meds, repeats, med);
	_spread(p99s, repeats, p99);
	if (offer)
		_print(_kind_name(okind), v->name, nodes, jobs, k, med, p99,
		       (double) c.hits / c.total, "found",
		       (double) c.cuts / c.total);
	else
		_print("admit", v->name, nodes, jobs, k, med, p99,
		       (double) c.hits / c.total, "accepted", -1.0);
	free(t);
	free(q);
}

/* Share-update passes over the whole ledger. */
static void _update_cells(const world_t *w, int nodes, int jobs)
{
	libra_ledger_t *l = w->l;
	int total = 0;
	double *done, *t, meds[16], p99s[16], med[3], p99[3], est;
	int k;

	for (int n = 0; n < nodes; n++) {
		const libra_entry_t *e;

		total += libra_ledger_node_entries(l, n, &e);
	}
	done = malloc(sizeof(double) * (size_t) (total ? total : 1));

	/* progress at exactly the committed share, one second per pass */
	est = 0.0;
	for (int pass = -1; pass < 0; pass++) {
		double a = _now_us();

		for (int n = 0, off = 0; n < nodes; n++) {
			const libra_entry_t *e;
			int m = libra_ledger_node_entries(l, n, &e);

			for (int i = 0; i < m; i++)
				done[off + i] = e[i].runtime -
					libra_entry_work_at(&e[i], NOW0);
			libra_ledger_progress_node(l, n, done + off, m, NOW0);
			off += m;
		}
		est = _now_us() - a;
	}
	k = _samples(est, 30);
	t = malloc(sizeof(double) * (size_t) k);
	for (int r = 0; r < repeats; r++) {
		for (int i = 0; i < k; i++) {
			double now = NOW0 + 1.0 + i, a, b;

			/* the CPU time each job has had: not timed */
			for (int n = 0, off = 0; n < nodes; n++) {
				const libra_entry_t *e;
				int m = libra_ledger_node_entries(l, n, &e);

				for (int j = 0; j < m; j++)
					done[off + j] = e[j].runtime -
						libra_entry_work_at(&e[j], now);
				off += m;
			}
			a = _now_us();
			for (int n = 0, off = 0; n < nodes; n++) {
				const libra_entry_t *e;
				int m = libra_ledger_node_entries(l, n, &e);

				libra_ledger_progress_node(l, n, done + off, m,
							   now);
				off += m;
			}
			b = _now_us();
			t[i] = b - a;
		}
		_median_p99(t, k, &meds[r], &p99s[r]);
	}
	_spread(meds, repeats, med);
	_spread(p99s, repeats, p99);
	_print("progress", "-", nodes, jobs, k, med, p99, (double) total,
	       "entries", -1.0);
	free(t);

	/* libra_ledger_expire: the scan every sched/libra pass makes */
	est = _now_us();
	libra_ledger_expire(l, NOW0);
	est = _now_us() - est;
	k = _samples(est, 100);
	t = malloc(sizeof(double) * (size_t) k);
	for (int r = 0; r < repeats; r++) {
		for (int i = 0; i < k; i++) {
			double a = _now_us(), b;

			libra_ledger_expire(l, NOW0);
			b = _now_us();
			t[i] = b - a;
		}
		_median_p99(t, k, &meds[r], &p99s[r]);
	}
	_spread(meds, repeats, med);
	_spread(p99s, repeats, p99);
	_print("expire", "-", nodes, jobs, k, med, p99, (double) total,
	       "entries", -1.0);
	free(t);
	free(done);
}

/* ------------------------------------------------------------- main */

static int _parse_list(const char *s, int *out, int max)
{
	int n = 0;
	char *copy = strdup(s), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok && n < max;
	     tok = strtok_r(NULL, ",", &save))
		out[n++] = atoi(tok);
	free(copy);
	return n;
}

static void _usage(void)
{
	fprintf(stderr,
		"usage: bench-admit [--nodes 128,1000,10000] [--jobs 1000,10000,100000]\n"
		"       [--policies libra,libra+$,libra+$thesis,librasla,librariskd,librariskd-mu1.2]\n"
		"       [--repeats 3] [--cpus 32] [--target-ms 250] [--cap-ms 2000]\n"
		"       [--max-samples 2000]\n"
		"       [--seed 1] [--no-offer] [--no-update] [--admit-only] [--offer-only]\n"
		"       [--calls N] [--no-found] [--no-slot] [--offer-limit MS]\n"
		"       [--cpu-clock] [--digest]\n");
	exit(2);
}

/* --policies LIST: only those measured. */
static void _parse_policies(const char *val)
{
	char *copy = strdup(val), *tok, *save = NULL;

	memset(variant_on, 0, sizeof(variant_on));
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int v;

		for (v = 0; v < NVARIANTS; v++)
			if (!strcmp(tok, all_variants[v].name))
				break;
		if (v == NVARIANTS) {
			fprintf(stderr, "bench-admit: unknown policy %s\n",
				tok);
			_usage();
		}
		variant_on[v] = 1;
	}
	free(copy);
}

/* An option without a value: returns whether a is one. */
static bool _parse_flag(const char *a)
{
	if (!strcmp(a, "--admit-only")) {
		do_offer = do_update = 0;
	} else if (!strcmp(a, "--offer-only")) {
		do_admit = do_update = 0;
	} else if (!strcmp(a, "--digest")) {
		do_digest = 1;
		do_update = 0;
	} else if (!strcmp(a, "--no-found")) {
		do_found = 0;
	} else if (!strcmp(a, "--cpu-clock")) {
		bench_clock = CLOCK_THREAD_CPUTIME_ID;
	} else if (!strcmp(a, "--no-slot")) {
		do_slot = 0;
	} else if (!strcmp(a, "--no-offer")) {
		do_offer = 0;
	} else if (!strcmp(a, "--no-update")) {
		do_update = 0;
	} else {
		return false;
	}
	return true;
}

/* An option with value val; exits with the usage on an unknown one. */
static void _parse_option(const char *a, const char *val)
{
	if (!strcmp(a, "--nodes"))
		n_nodes = _parse_list(val, nodes_list, 16);
	else if (!strcmp(a, "--jobs"))
		n_jobs = _parse_list(val, jobs_list, 16);
	else if (!strcmp(a, "--repeats"))
		repeats = atoi(val);
	else if (!strcmp(a, "--cpus"))
		node_cpus = atoi(val);
	else if (!strcmp(a, "--target-ms"))
		target_ms = atof(val);
	else if (!strcmp(a, "--calls"))
		exact_calls = atoi(val);
	else if (!strcmp(a, "--offer-limit"))
		offer_limit = atof(val) / 1e3;
	else if (!strcmp(a, "--cap-ms"))
		cap_ms = atof(val);
	else if (!strcmp(a, "--max-samples"))
		max_samples = atoi(val);
	else if (!strcmp(a, "--seed"))
		seed = strtoull(val, NULL, 10);
	else if (!strcmp(a, "--policies"))
		_parse_policies(val);
	else
		_usage();
}

static void _parse_args(int argc, char **argv)
{
	for (int v = 0; v < NVARIANTS; v++)
		variant_on[v] = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (_parse_flag(a))
			continue;
		if (!val)
			_usage();
		i++;
		_parse_option(a, val);
	}
	if (repeats < 1 || repeats > 16 || node_cpus < 1 || !n_nodes ||
	    !n_jobs)
		_usage();
}

/* Every cell of one ledger size: admissions, searches, share updates. */
static void _ledger_cells(int nodes, int jobs, double share_min)
{
	world_t w;

	_build(&w, nodes, jobs, share_min);
	printf("# ledger %d nodes, %d jobs: built in %.1f ms, committed %.3f of all CPUs, %.1f jobs per busy node\n",
	       nodes, jobs, w.build_ms, w.committed_frac,
	       w.jobs_per_busy_node);
	_make_probes(nodes, jobs);
	for (int v = 0; do_admit && v < NVARIANTS; v++)
		if (variant_on[v])
			_cell(&w, &all_variants[v], nodes, jobs, 0,
			      OFFER_NEVER);
	for (int v = 0; do_offer && v < NVARIANTS; v++) {
		if (!variant_on[v] || !all_variants[v].offer)
			continue;
		_cell(&w, &all_variants[v], nodes, jobs, 1, OFFER_NEVER);
		if (do_found &&
		    all_variants[v].policy == LIBRA_POLICY_LIBRA_PRICE &&
		    all_variants[v].resfree == LIBRA_RESFREE_WINDOW)
			_cell(&w, &all_variants[v], nodes, jobs, 1,
			      OFFER_FOUND);
	}
	for (int v = 0; do_offer && do_slot && v < NVARIANTS; v++)
		if (variant_on[v] && all_variants[v].offer)
			_cell(&w, &all_variants[v], nodes, jobs, 1,
			      OFFER_SLOT);
	if (do_update)
		_update_cells(&w, nodes, jobs);
	libra_ledger_destroy(w.l);
}

int main(int argc, char **argv)
{
	libra_params_t dp;

	_parse_args(argc, argv);
	libra_params_default(&dp);
	printf("# bench-admit: %ld cores online, %d CPUs per node, seed %llu, %d repeats%s\n",
	       sysconf(_SC_NPROCESSORS_ONLN), node_cpus,
	       (unsigned long long) seed, repeats,
	       bench_clock == CLOCK_MONOTONIC ? "" :
	       ", timed by the thread's CPU clock");
	printf("kind\tpolicy\tnodes\tjobs\tsamples\trepeats\tmed_min\tmed_med\tmed_max\tp99_min\tp99_med\tp99_max\textra\n");
	for (int a = 0; a < n_nodes; a++)
		for (int b = 0; b < n_jobs; b++)
			_ledger_cells(nodes_list[a], jobs_list[b],
				      dp.share_min);
	return 0;
}
