/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  predict-eval.c - how well the core's runtime predictors (src/core/
 *  predict.c) predict a trace's run times from its own history.
 *
 *	predict-eval TRACE [LAST] [MIN_SAMPLES]
 *
 *  Replays the trace in submission order.  A job enters its user's and
 *  group's history when it ends in the trace (submit + wait + run), as a
 *  job completion record would reach the cluster's predictor; each job is
 *  predicted at its submission from the jobs ended before it, with the
 *  user's requested time as its declared estimate RE (a job without one
 *  is skipped, as is one with no run time).  Only the last LAST jobs
 *  (default all) are scored; the ones before only feed the history.
 *
 *  Prints one line per method and quantile: the jobs scored, the share
 *  predicted from a history (the others get RE), coverage (R <= P, in %),
 *  the jobs whose P < RE, the committed work sum(P) / sum(R) over the
 *  covered jobs, and the mean of P / R over the jobs with R > P (how
 *  short the misses fall).  The declared estimate itself is the first
 *  line.  doc/results.md, "Runtime predictions", is made from it.
 *
 *	predict-eval --overrun TRACE [LAST] [MIN_SAMPLES]
 *
 *  Instead: how well the history foresees the jobs that run past their
 *  declared estimate (R > RE), which Slurm ends at their time limit.  A
 *  job is flagged when its history's ratio quantile, not capped by RE,
 *  predicts more than RE.  One line per quantile: the jobs that overran,
 *  the jobs flagged, recall and precision of the flag, and the overruns
 *  left among the jobs not flagged: the least share of broken admissions
 *  a policy that refuses every flagged job and admits the others gets.
\*****************************************************************************/

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"
#include "swf.h"

typedef struct {
	double t;		/* when it ends in the trace */
	size_t job;
} fin_t;

static int _cmp_fin(const void *a, const void *b)
{
	const fin_t *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

static libra_predictor_t *_predictor(libra_predict_method_t m, int min)
{
	libra_predictor_t *p = libra_predictor_create(m, min);

	if (!p) {
		fprintf(stderr, "predict-eval: cannot create the predictor\n");
		exit(1);
	}
	return p;
}

/*
 * Job i in submission order: feed the history every job that ended before
 * its submission (*f: the next in fin), and tell whether it is scored (it
 * has a run time and an estimate, and is one of the last ones).
 */
static bool _scored(const libra_swf_t *swf, const fin_t *fin, size_t nfin,
		    size_t from, libra_predictor_t *p, size_t i, size_t *f)
{
	const libra_swf_job_t *j = &swf->jobs[i];

	if (!(j->run > 0) || !(j->req_time > 0))
		return false;
	for (; *f < nfin && fin[*f].t <= j->submit; (*f)++) {
		const libra_swf_job_t *d = &swf->jobs[fin[*f].job];

		libra_predictor_record(p, d->user, d->group, d->run,
				       d->req_time);
	}
	return i >= from;
}

static void _eval(const libra_swf_t *swf, const fin_t *fin, size_t nfin,
		  size_t from, libra_predict_method_t m, double q, int min)
{
	libra_predictor_t *p = _predictor(m, min);
	size_t f = 0, n = 0, hist = 0, cover = 0, below = 0, miss = 0;
	double sp = 0.0, sr = 0.0, short_sum = 0.0;

	for (size_t i = 0; i < swf->njobs; i++) {
		const libra_swf_job_t *j = &swf->jobs[i];
		libra_prediction_t pr;

		if (!_scored(swf, fin, nfin, from, p, i, &f))
			continue;
		libra_predict(p, j->user, j->group, j->req_time, j->req_time,
			      q, 0.0, &pr);
		n++;
		hist += pr.source != LIBRA_PREDICT_FROM_NONE;
		below += pr.runtime < j->req_time;
		if (j->run <= pr.runtime) {
			cover++;
			sp += pr.runtime;
			sr += j->run;
		} else {
			miss++;
			short_sum += pr.runtime / j->run;
		}
	}
	printf("%-8s q=%.3f min=%d jobs=%zu history=%.1f%% coverage=%.2f%% "
	       "below_re=%.1f%% work_ratio=%.3f miss_p_over_r=%.3f\n",
	       libra_predict_method_name(m), q, min, n,
	       n ? 100.0 * hist / n : 0.0, n ? 100.0 * cover / n : 0.0,
	       n ? 100.0 * below / n : 0.0, sr > 0 ? sp / sr : 0.0,
	       miss ? short_sum / miss : 0.0);
	libra_predictor_destroy(p);
}

/* --overrun: the flag "predicted past RE" against R > RE, per quantile. */
static void _overrun(const libra_swf_t *swf, const fin_t *fin, size_t nfin,
		     size_t from, double q, int min)
{
	libra_predictor_t *p = _predictor(LIBRA_PREDICT_RATIO, min);
	size_t f = 0, n = 0, over = 0, flagged = 0, hit = 0;

	for (size_t i = 0; i < swf->njobs; i++) {
		const libra_swf_job_t *j = &swf->jobs[i];
		libra_prediction_t pr;
		bool flag, ran_over;

		if (!_scored(swf, fin, nfin, from, p, i, &f))
			continue;
		/* no cap: the history may say more than RE */
		libra_predict(p, j->user, j->group, j->req_time, INFINITY, q,
			      0.0, &pr);
		n++;
		flag = pr.source != LIBRA_PREDICT_FROM_NONE &&
		       pr.runtime > j->req_time;
		ran_over = j->run > j->req_time;
		over += ran_over;
		flagged += flag;
		hit += flag && ran_over;
	}
	printf("overrun q=%.3f min=%d jobs=%zu overran=%.1f%% flagged=%.1f%% "
	       "recall=%.1f%% precision=%.1f%% left=%.1f%%\n", q, min, n,
	       n ? 100.0 * over / n : 0.0, n ? 100.0 * flagged / n : 0.0,
	       over ? 100.0 * hit / over : 0.0,
	       flagged ? 100.0 * hit / flagged : 0.0,
	       n > flagged ? 100.0 * (over - hit) / (n - flagged) : 0.0);
	libra_predictor_destroy(p);
}

/* A whole number of at least lo (and at most INT_MAX), or an error naming
 * what is wrong. */
static int _count(const char *arg, const char *what, long lo, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > INT_MAX) {
		fprintf(stderr, "predict-eval: %s must be a whole number of at "
			"least %ld (got '%s')\n", what, lo, arg);
		return -1;
	}
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	static const double qs[] = { 0.5, 0.8, 0.9, 0.95, 0.98, 1.0 };
	libra_swf_t swf;
	char err[512];
	fin_t *fin;
	size_t nfin = 0, from = 0;
	bool overrun = argc > 1 && !strcmp(argv[1], "--overrun");
	long last = 0;
	int min = 2;

	argc -= overrun;
	argv += overrun;
	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: predict-eval [--overrun] TRACE [LAST] "
			"[MIN_SAMPLES]\n");
		return 2;
	}
	if (argc > 2 && _count(argv[2], "LAST", 0, &last))
		return 2;
	if (argc > 3) {
		long m;

		if (_count(argv[3], "MIN_SAMPLES", 1, &m))
			return 2;
		min = (int) m;
	}
	if (libra_swf_read(argv[1], &swf, err, sizeof(err))) {
		fprintf(stderr, "predict-eval: %s\n", err);
		return 1;
	}
	fin = malloc((swf.njobs ? swf.njobs : 1) * sizeof(*fin));
	if (!fin)
		return 1;
	for (size_t i = 0; i < swf.njobs; i++) {
		const libra_swf_job_t *j = &swf.jobs[i];

		if (!(j->run > 0) || !(j->req_time > 0))
			continue;
		fin[nfin].t = j->submit + fmax(j->wait, 0.0) + j->run;
		fin[nfin++].job = i;
	}
	qsort(fin, nfin, sizeof(*fin), _cmp_fin);
	if (last > 0) {
		size_t usable = 0;

		for (size_t i = swf.njobs; i-- > 0;) {
			if (swf.jobs[i].run > 0 && swf.jobs[i].req_time > 0 &&
			    ++usable == (size_t) last) {
				from = i;
				break;
			}
		}
	}
	if (overrun) {
		for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++)
			_overrun(&swf, fin, nfin, from, qs[k], min);
		free(fin);
		libra_swf_free(&swf);
		return 0;
	}
	_eval(&swf, fin, nfin, from, LIBRA_PREDICT_NONE, 1.0, min);
	_eval(&swf, fin, nfin, from, LIBRA_PREDICT_LAST2, 1.0, min);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++)
		_eval(&swf, fin, nfin, from, LIBRA_PREDICT_RATIO, qs[k], min);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++)
		_eval(&swf, fin, nfin, from, LIBRA_PREDICT_RUNTIME, qs[k],
		      min);
	free(fin);
	libra_swf_free(&swf);
	return 0;
}
