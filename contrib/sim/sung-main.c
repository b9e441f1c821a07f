/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sung-main.c - libra-sung: Sung's own experiment (Sung 2006, chapter 5):
 *  one batch cluster, jobs arriving by the profile a(x) until the
 *  submission deadline, all of them due at one shared deadline, and the
 *  number of servers decided every interval by his heuristics H1-H5 or
 *  kept static; each period's hindsight LP lower bound beside them
 *  (libra-sung(1); doc/design.md decision 46).
\*****************************************************************************/

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "sung.h"
#include "sung-lp.h"

#define PROG "libra-sung"
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define STREAM_ARRIVAL 1
#define STREAM_SERVICE 2
#define MAXSRV (2 * SUNG_PMAX)

typedef struct {
	double ready;		/* end of the deployment period */
	double bill;		/* billed from */
	int job;		/* -1: idle */
	double end;		/* the job's completion */
} srv_t;

/* One period's jobs. */
typedef struct {
	int n;
	double *arr, *size;
} period_t;

/* One heuristic's totals over the runs. */
typedef struct {
	double cost, cost2, pen, missed, missruns, deploys, added, abovelp;
	double *p, *n;
} acc_t;

/* Over all the periods: arrivals, the LP bound, the bound's violations. */
typedef struct {
	int runs, shape, bad;
	unsigned long long seed;
	double lpsum, na, na2, ia, ia2;
} totals_t;

/* What the command line asks. */
typedef struct {
	sung_cfg_t c;
	bool use[SUNG_NHEUR];	/* the heuristics to run */
	bool lp, check, tables;
	int runs, shape;
	unsigned long long seed;
	const char *csv;
} args_t;

/* One run's outcome. */
typedef struct {
	double cost;
	int missed, deploys, added;
} out_t;

static double _exp(sim_rng_t *r, double mean)
{
	return -mean * log(1.0 - sim_rng_uniform(r));
}

/* Sung's generation algorithm (section 5.1.1) and exponential sizes. */
static void _period(const sung_cfg_t *c, uint64_t seed, int run,
		    period_t *w)
{
	sim_rng_t ra, rs;
	double x = 0, end = c->u * c->dt;
	int cap = 64;

	sim_rng_init(&ra, seed, (uint64_t) run, STREAM_ARRIVAL);
	sim_rng_init(&rs, seed, (uint64_t) run, STREAM_SERVICE);
	w->n = 0;
	w->arr = malloc(cap * sizeof(double));
	w->size = malloc(cap * sizeof(double));
	for (;;) {
		x += _exp(&ra, c->ia) * sung_profile(c, x);
		if (x > end)
			break;
		if (w->n == cap) {
			cap *= 2;
			w->arr = realloc(w->arr, cap * sizeof(double));
			w->size = realloc(w->size, cap * sizeof(double));
		}
		w->arr[w->n] = x;
		w->size[w->n] = _exp(&rs, c->svc);
		w->n++;
	}
}

/*
 * Remove servers down to q at time now: idle ones first, then those with
 * the most work left, whose job goes back to the queue with what it still
 * needs (rem[]; pre[] kept by descending index, FCFS).  Returns the cost
 * of the removed servers, billed to the end of their removal period.
 */
static double _shrink(const sung_cfg_t *c, srv_t *sv, int *nsv, int q,
		      double *rem, int *pre, int *npre, double now,
		      double end)
{
	double cost = 0;

	while (*nsv > q) {
		int k = -1;

		for (int i = 0; i < *nsv; i++)
			if (k < 0 || (sv[k].job >= 0 &&
				      (sv[i].job < 0 || sv[i].end > sv[k].end)))
				k = i;
		if (sv[k].job >= 0) {
			int j = sv[k].job, a = *npre;

			rem[j] = sv[k].end - now;
			while (a > 0 && pre[a - 1] < j) {
				pre[a] = pre[a - 1];
				a--;
			}
			pre[a] = j;
			(*npre)++;
		}
		cost += sung_cost(c, sv[k].bill, fmin(now + c->r2, end));
		sv[k] = sv[--*nsv];
	}
	return cost;
}

/*
 * One period under heuristic h: FCFS on the servers, a removed busy
 * server's job checkpointed back to the queue (Sung section 4.1), servers
 * billed from the decision to deploy to the end of their removal, up to
 * the deadline (Eq. 4.1).  p[s], n[s]: servers after the decision and jobs
 * at decision point s.
 */
static void _run(const sung_cfg_t *c, const sung_tables_t *t,
		 sung_heur_t h, const period_t *w, out_t *o, double *ps,
		 double *ns)
{
	srv_t sv[MAXSRV];
	double *rem = malloc((w->n + 1) * sizeof(double));
	int *pre = malloc((w->n + 1) * sizeof(int));
	int nsv = 0, npre = 0, head = 0, next = 0, done = 0, s = 1;
	int prev_v = -1, prev_p = -1;
	double now = 0, end = c->d * c->dt;

	memset(o, 0, sizeof(*o));
	for (int j = 0; j < w->n; j++)
		rem[j] = w->size[j];
	nsv = h == SUNG_STATIC ? t->pstatic : c->pmin;
	for (int i = 0; i < nsv; i++)
		sv[i] = (srv_t) { 0, 0, -1, 0 };
	ps[0] = nsv;
	ns[0] = 0;
	for (;;) {
		double tc = INFINITY, tr = INFINITY, ta = INFINITY;
		double td = s < c->d ? s * c->dt : INFINITY;
		int ic = -1;

		/* start what can start: checkpointed jobs first (FCFS) */
		for (int i = 0; i < nsv; i++) {
			int j;

			if (sv[i].job >= 0 || sv[i].ready > now)
				continue;
			if (npre)
				j = pre[--npre];
			else if (head < next)
				j = head++;
			else
				break;
			sv[i].job = j;
			sv[i].end = now + rem[j];
		}
		for (int i = 0; i < nsv; i++) {
			if (sv[i].job >= 0 && sv[i].end < tc)
				tc = sv[i].end, ic = i;
			if (sv[i].ready > now && sv[i].ready < tr)
				tr = sv[i].ready;
		}
		if (next < w->n)
			ta = w->arr[next];
		now = fmin(fmin(tc, tr), fmin(ta, td));
		if (now >= end)
			break;
		if (now == tc) {
			sv[ic].job = -1;
			done++;
		} else if (now == tr) {
			continue;
		} else if (now == ta) {
			next++;
		} else {
			int n = next - done, p = nsv, q, v;

			v = sung_v(c, t, s, n);
			q = sung_decide(c, t, h, s, p, n, prev_v, prev_p);
			prev_v = v;
			prev_p = p;
			if (q > p) {
				o->deploys++;
				o->added += q - p;
				for (int i = p; i < q; i++)
					sv[nsv++] = (srv_t) { now + c->r1, now,
							      -1, 0 };
			}
			o->cost += _shrink(c, sv, &nsv, q, rem, pre, &npre,
					   now, end);
			ps[s] = nsv;
			ns[s] = n;
			s++;
		}
	}
	for (int i = 0; i < nsv; i++)
		o->cost += sung_cost(c, sv[i].bill, end);
	o->missed = w->n - done;
	free(rem);
	free(pre);
}

static void _usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [options]\n"
"Sung's shared-deadline provisioning experiment (libra-sung(1)).\n"
"  --runs N          periods simulated (default 1000)\n"
"  --seed N          random seed (default 1)\n"
"  --cost K          cost function 1-5 (uniform, increasing, decreasing,\n"
"                    cheaper in the middle, dearer in the middle; 1)\n"
"  --tariff SPEC     cost per server-hour as libra_tariff (HH:MM=RATE;...)\n"
"  --heur LIST       heuristics (static,h1,h2,h3,h4,h5: all)\n"
"  --pmin N, --pmax N  servers at least / at most (1, 5)\n"
"  --interarrival S  mean interarrival before a(x), s (480)\n"
"  --r1 S, --r2 S    deployment and removal periods, s (25, 30)\n"
"  --confidence Y    Pr[all jobs done] required, 0 < Y < 1 (0.9999)\n"
"  --no-lp           no LP lower bound\n"
"  --check-lp        exit 1 if the bound exceeds a run's cost\n"
"  --csv FILE        one row per run and heuristic\n"
"  --tables          print g_s(p) and exit\n"
"  --help, --version\n");
}

static void _series(const char *key, const double *v, int n, int runs)
{
	printf("\"%s\": [", key);
	for (int i = 0; i < n; i++) {
		double x = v[i] / runs;

		if (isfinite(x))
			printf("%s%.4f", i ? ", " : "", x);
		else
			printf("%snull", i ? ", " : "");
	}
	printf("]");
}

/*
 * --OPT ARG as a number in [lo, hi] (whole if asked), into *v; else says
 * what is wrong, naming the option, and returns false.
 */
static bool _num(const char *opt, const char *arg, double lo, double hi,
		 bool whole, double *v)
{
	char *end;
	double x = strtod(arg, &end);

	if (end == arg || *end || !isfinite(x) || x < lo || x > hi ||
	    (whole && x != floor(x))) {
		fprintf(stderr, PROG ": --%s: '%s' is not a%s number in "
			"[%g, %g]\n", opt, arg, whole ? " whole" : "", lo, hi);
		return false;
	}
	*v = x;
	return true;
}

/* The run's summary as JSON on stdout (libra-sung(1), OUTPUT). */
static void _print_json(const sung_cfg_t *c, const sung_tables_t *t,
			const totals_t *tt, const acc_t *acc, const bool *use)
{
	int runs = tt->runs;
	double na = tt->na / runs, ia = tt->ia / runs;

	printf("{\"version\": \"%s\", \"seed\": %llu, \"runs\": %d, "
	       "\"cost\": %d, \"pmin\": %d, \"pmax\": %d, \"u\": %d, "
	       "\"d\": %d, \"dt\": %g, \"interarrival\": %g, \"svc\": %g, "
	       "\"y\": %g, \"r1\": %g, \"r2\": %g, \"pstatic\": %d, "
	       "\"penalty\": %.6f,\n", PACKAGE_VERSION, tt->seed, runs,
	       tt->shape, c->pmin, c->pmax, c->u, c->d, c->dt, c->ia, c->svc,
	       c->y, c->r1, c->r2, t->pstatic, t->penalty);
	printf("\"arrivals\": {\"mean\": %.3f, \"sd\": %.3f, "
	       "\"interarrival_mean\": %.3f, \"interarrival_sd\": %.3f},\n",
	       na, sqrt(fmax(0, tt->na2 / runs - na * na)),
	       ia, sqrt(fmax(0, tt->ia2 / runs - ia * ia)));
	printf("\"gmax\": [");
	for (int s = 0; s <= c->d; s++)
		printf("%s%d", s ? ", " : "", t->g[s][c->pmax]);
	printf("],\n\"lp\": ");
	if (isfinite(tt->lpsum))
		printf("%.6f", tt->lpsum / runs);
	else
		printf("null");
	printf(", \"lp_violations\": %d,\n\"heuristics\": {", tt->bad);
	for (int h = 0, first = 1; h < SUNG_NHEUR; h++) {
		const acc_t *a = &acc[h];
		double m = a->cost / runs;

		if (!use[h])
			continue;
		printf("%s\n\"%s\": {\"cost\": %.6f, \"cost_sd\": %.6f, "
		       "\"cost_penalized\": %.6f, \"missed_jobs\": %.6f, "
		       "\"missed_runs_pct\": %.4f, \"deployments\": %.4f, "
		       "\"servers_added\": %.4f, \"above_lp\": %.0f,\n",
		       first ? "" : ",", sung_heur_name(h), m,
		       sqrt(fmax(0, a->cost2 / runs - m * m)), a->pen / runs,
		       a->missed / runs, 100.0 * a->missruns / runs,
		       a->deploys / runs, a->added / runs, a->abovelp);
		_series("p", a->p, c->d, runs);
		printf(",\n");
		_series("n", a->n, c->d, runs);
		printf("}");
		first = 0;
	}
	printf("\n}}\n");
}

/* --tables: g_s(p) for every decision point and p, and static's p. */
static void _print_tables(const sung_cfg_t *c, const sung_tables_t *t)
{
	printf("s");
	for (int p = c->pmin; p <= c->pmax; p++)
		printf(" g(%d)", p);
	printf("\n");
	for (int s = 0; s <= c->d; s++) {
		printf("%d", s);
		for (int p = c->pmin; p <= c->pmax; p++)
			printf(" %d", t->g[s][p]);
		printf("\n");
	}
	printf("static %d\n", t->pstatic);
}

/* --heur LIST into use[]; false (said on stderr) for an unknown name. */
static bool _heuristics(const char *list, bool *use)
{
	char *dup = strdup(list), *save, *tok;
	bool ok = true;

	for (int h = 0; h < SUNG_NHEUR; h++)
		use[h] = false;
	for (tok = strtok_r(dup, ",", &save); tok && ok;
	     tok = strtok_r(NULL, ",", &save)) {
		sung_heur_t h;

		if ((ok = sung_heur_from_name(tok, &h)))
			use[h] = true;
		else
			fprintf(stderr, PROG ": no heuristic %s\n", tok);
	}
	free(dup);
	return ok;
}

/* What the options together must satisfy: -1, else the exit status. */
static int _consistent(const args_t *a)
{
	if (a->c.pmax < a->c.pmin) {
		fprintf(stderr, PROG ": --pmax %d is below --pmin %d\n",
			a->c.pmax, a->c.pmin);
		return 2;
	}
	if (a->c.r1 >= a->c.dt) {
		fprintf(stderr, PROG ": --r1 %g is not below the decision "
			"interval (%g s)\n", a->c.r1, a->c.dt);
		return 2;
	}
	if (a->check && !sung_lp_available()) {
		fprintf(stderr, PROG ": --check-lp: built without GLPK\n");
		return 77;
	}
	return -1;
}

/* One option (getopt_long()'s o, its argument) into *a: -1 when the
 * parse goes on, else the exit status. */
static int _option(int o, const char *arg, args_t *a)
{
	char err[256];
	double x;

	switch (o) {
	case 'n':
		if (!_num("runs", arg, 1, 1e7, true, &x))
			return 2;
		a->runs = (int) x;
		break;
	case 's':
		if (!_num("seed", arg, 0, 9007199254740992.0,
			  true, &x))
			return 2;
		a->seed = (unsigned long long) x;
		break;
	case 'c':
		if (!_num("cost", arg, 1, 5, true, &x))
			return 2;
		a->shape = (int) x;
		if (!sung_cost_shape(&a->c, a->shape)) {
			fprintf(stderr, PROG ": --cost 1-5\n");
			return 2;
		}
		break;
	case 't':
		if (libra_tariff_parse(&a->c.cost, arg, err,
				       sizeof(err))) {
			fprintf(stderr, PROG ": --tariff: %s\n", err);
			return 2;
		}
		a->shape = 0;
		break;
	case 'H':
		if (!_heuristics(arg, a->use))
			return 2;
		break;
	case 'm':
		if (!_num("pmin", arg, 1, SUNG_PMAX, true, &x))
			return 2;
		a->c.pmin = (int) x;
		break;
	case 'M':
		if (!_num("pmax", arg, 1, SUNG_PMAX, true, &x))
			return 2;
		a->c.pmax = (int) x;
		break;
	case 'i':
		if (!_num("interarrival", arg, 1e-3, 1e9, false,
			  &a->c.ia))
			return 2;
		break;
	case 'y':
		if (!_num("confidence", arg, 0, 1, false, &a->c.y))
			return 2;
		if (!(a->c.y > 0 && a->c.y < 1)) {
			fprintf(stderr, PROG ": --confidence: '%s' is "
				"not strictly between 0 and 1\n",
				arg);
			return 2;
		}
		break;
	case '1':
		if (!_num("r1", arg, 0, 1e9, false, &a->c.r1))
			return 2;
		break;
	case '2':
		if (!_num("r2", arg, 0, 1e9, false, &a->c.r2))
			return 2;
		break;
	case 'L':
		a->lp = false;
		break;
	case 'C':
		a->check = true;
		break;
	case 'o':
		a->csv = arg;
		break;
	case 'T':
		a->tables = true;
		break;
	case 'h':
		_usage(stdout);
		return 0;
	case 'V':
		printf(PROG " (slurm-libra) %s\n", PACKAGE_VERSION);
		return 0;
	default:
		_usage(stderr);
		return 2;
	}
	return -1;
}

/* The command line into *a; -1 when the run goes on, else the exit
 * status (after --help, --version or a bad argument, said on stderr). */
static int _parse(int argc, char **argv, args_t *a)
{
	static const struct option opts[] = {
		{ "runs", 1, 0, 'n' }, { "seed", 1, 0, 's' },
		{ "cost", 1, 0, 'c' }, { "tariff", 1, 0, 't' },
		{ "heur", 1, 0, 'H' }, { "pmin", 1, 0, 'm' },
		{ "pmax", 1, 0, 'M' }, { "interarrival", 1, 0, 'i' },
		{ "r1", 1, 0, '1' }, { "r2", 1, 0, '2' },
		{ "confidence", 1, 0, 'y' },
		{ "no-lp", 0, 0, 'L' }, { "check-lp", 0, 0, 'C' },
		{ "csv", 1, 0, 'o' }, { "tables", 0, 0, 'T' },
		{ "help", 0, 0, 'h' }, { "version", 0, 0, 'V' },
		{ 0, 0, 0, 0 }
	};
	int o, rc;

	memset(a, 0, sizeof(*a));
	a->lp = sung_lp_available();
	a->runs = 1000;
	a->shape = 1;
	a->seed = 1;
	sung_cfg_default(&a->c);
	for (int h = 0; h < SUNG_NHEUR; h++)
		a->use[h] = true;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if ((rc = _option(o, optarg, a)) >= 0)
			return rc;
	}
	return _consistent(a);
}

/* A period's arrivals into the totals (their count, mean interarrival). */
static void _count_arrivals(totals_t *tot, const period_t *w)
{
	tot->na += w->n;
	tot->na2 += (double) w->n * w->n;
	if (w->n > 1) {
		double m = w->arr[w->n - 1] / w->n;

		tot->ia += m;
		tot->ia2 += m * m;
	}
}

/*
 * One run of a heuristic into its totals, with its servers p[s] and jobs
 * n[s] at the d decision points; returns its cost with the penalty of
 * its missed jobs.
 */
static double _tally(acc_t *a, const out_t *out, double penalty,
		     const double *ps, const double *ns, int d)
{
	double pc = out->cost + out->missed * penalty;

	a->cost += out->cost;
	a->cost2 += out->cost * out->cost;
	a->pen += pc;
	a->missed += out->missed;
	a->missruns += out->missed > 0;
	a->deploys += out->deploys;
	a->added += out->added;
	for (int s = 0; s < d; s++) {
		a->p[s] += ps[s];
		a->n[s] += ns[s];
	}
	return pc;
}

int main(int argc, char **argv)
{
	args_t arg;
	sung_cfg_t c;
	sung_tables_t t;
	FILE *fc = NULL;
	acc_t acc[SUNG_NHEUR];
	double *ps, *ns;
	totals_t tot = { 0 };
	int rc = _parse(argc, argv, &arg);
	const bool *use = arg.use;

	if (rc >= 0)
		return rc;
	c = arg.c;
	c.nmax = (int) ceil(c.pmax * c.d * c.dt / c.svc);
	if (!sung_tables(&c, &t)) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	if (arg.tables) {
		_print_tables(&c, &t);
		sung_tables_free(&t);
		return 0;
	}
	if (arg.csv && !(fc = fopen(arg.csv, "w"))) {
		perror(arg.csv);
		return 1;
	}
	if (fc)
		fprintf(fc, "run,heuristic,cost,missed,deployments,added,"
			"lp\n");
	ps = malloc(c.d * sizeof(double));
	ns = malloc(c.d * sizeof(double));
	memset(acc, 0, sizeof(acc));
	for (int h = 0; h < SUNG_NHEUR; h++) {
		acc[h].p = calloc(c.d, sizeof(double));
		acc[h].n = calloc(c.d, sizeof(double));
	}
	for (int r = 0; r < arg.runs; r++) {
		period_t w;
		double bound = NAN;

		_period(&c, arg.seed, r, &w);
		_count_arrivals(&tot, &w);
		if (arg.lp)
			bound = sung_lp_bound(&c, t.penalty, w.arr, w.size,
					      w.n);
		tot.lpsum += bound;
		for (int h = 0; h < SUNG_NHEUR; h++) {
			out_t out;
			acc_t *a = &acc[h];
			double pc;

			if (!use[h])
				continue;
			_run(&c, &t, (sung_heur_t) h, &w, &out, ps, ns);
			pc = _tally(a, &out, t.penalty, ps, ns, c.d);
			if (bound > pc + 1e-6 * (1 + pc)) {
				a->abovelp++;
				tot.bad++;
				if (arg.check)
					fprintf(stderr, PROG ": run %d %s: "
						"bound %.6f above cost %.6f\n",
						r, sung_heur_name(h), bound,
						pc);
			}
			if (fc)
				fprintf(fc, "%d,%s,%.6f,%d,%d,%d,%.6f\n", r,
					sung_heur_name(h), out.cost,
					out.missed, out.deploys, out.added,
					bound);
		}
		free(w.arr);
		free(w.size);
	}
	tot.runs = arg.runs;
	tot.seed = arg.seed;
	tot.shape = arg.shape;
	_print_json(&c, &t, &tot, acc, use);
	if (fc)
		fclose(fc);
	for (int h = 0; h < SUNG_NHEUR; h++) {
		free(acc[h].p);
		free(acc[h].n);
	}
	free(ps);
	free(ns);
	sung_tables_free(&t);
	return arg.check && tot.bad ? 1 : 0;
}
