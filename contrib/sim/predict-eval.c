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
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

static void _eval(const libra_swf_t *swf, const fin_t *fin, size_t nfin,
		  size_t from, libra_predict_method_t m, double q, int min)
{
	libra_predictor_t *p = libra_predictor_create(m, min);
	size_t f = 0, n = 0, hist = 0, cover = 0, below = 0, miss = 0;
	double sp = 0.0, sr = 0.0, short_sum = 0.0;

	if (!p) {
		fprintf(stderr, "predict-eval: cannot create the predictor\n");
		exit(1);
	}
	for (size_t i = 0; i < swf->njobs; i++) {
		const libra_swf_job_t *j = &swf->jobs[i];
		libra_prediction_t pr;

		if (!(j->run > 0) || !(j->req_time > 0))
			continue;
		while (f < nfin && fin[f].t <= j->submit) {
			const libra_swf_job_t *d = &swf->jobs[fin[f].job];

			libra_predictor_record(p, d->user, d->group, d->run,
					       d->req_time);
			f++;
		}
		if (i < from)
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

int main(int argc, char **argv)
{
	static const double qs[] = { 0.5, 0.8, 0.9, 0.95, 0.98, 1.0 };
	libra_swf_t swf;
	char err[512];
	fin_t *fin;
	size_t nfin = 0, from = 0;
	long last = argc > 2 ? atol(argv[2]) : 0;
	int min = argc > 3 ? atoi(argv[3]) : 2;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: predict-eval TRACE [LAST] "
			"[MIN_SAMPLES]\n");
		return 2;
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
