/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  predict.h - runtime prediction from the users' finished jobs
 *  (doc/design.md decision 22).
 *
 *  Users over-estimate: in the last 5000 jobs of the four shared traces
 *  the median of R / RE is 0.34 (HPC2N), 0.38 (CTC-SP2), 0.49 (KTH-SP2)
 *  and 0.80 (LANL-CM5), so a share RE / D built on the
 *  declared estimate RE commits capacity that is never used and refuses
 *  every job whose RE exceeds its deadline period even when its real run
 *  time R would fit.  The predictor turns a user's (or, failing that, the
 *  user's group's) finished jobs into a predicted run time and an
 *  uncertainty; admission then commits the predicted work instead of the
 *  declared one, and the declared estimate stays the hard cap.
 *
 *  History: per key (a user; a group), the last LIBRA_PREDICT_DEPTH
 *  finished jobs, each as the pair (R, RE).  A job with a history of at
 *  least min_samples jobs is predicted from it, else from its group's,
 *  else it gets its declared estimate (source LIBRA_PREDICT_FROM_NONE).
 *
 *  Methods (measured on the traces in doc/results.md, "Runtime
 *  predictions"):
 *
 *    LIBRA_PREDICT_LAST2	Tsafrir, Etsion & Feitelson (2007, IEEE TPDS
 *				18(6), section 3): the mean of the user's last
 *				two run times, capped by the estimate,
 *				P = min(RE, (R_1 + R_2) / 2).  No quantile.
 *    LIBRA_PREDICT_RATIO	the q-quantile of the user's accuracy
 *				ratios scaled by this job's estimate,
 *				P = min(RE, RE * Q_q(R_k / RE_k))
 *				(Tsafrir et al. section 2's ratio R / RE;
 *				a quantile rather than the mean, so that the
 *				risk of R > P is about 1 - q).
 *    LIBRA_PREDICT_RUNTIME	the q-quantile of the user's run times
 *				themselves, P = min(RE, Q_q(R_k)).
 *
 *  Quantiles are conservative order statistics: Q_q of n values sorted
 *  v_(1) <= ... <= v_(n) is v_(k) with k = ceil(q (n + 1)), at most n, so
 *  with few values it is their maximum; a fresh R above the n values of
 *  the same distribution has probability 1 / (n + 1), so k = n covers
 *  q <= n / (n + 1).
 *
 *  Conditioning on progress: a running job that has done "done" CPU-
 *  seconds is no longer any job of its history; libra_predict() with
 *  done > 0 takes the quantile of the candidate run times (R_k, or
 *  RE * R_k / RE_k) above done only.  When none is above, or the job has
 *  passed its prediction under LAST2, the prediction is the declared
 *  estimate: the hard cap.  So a job that overruns its prediction is
 *  re-planned to the next plausible run time, never beyond RE.
 *
 *  Uncertainty: "spread" is Q_q - Q_0.5 of the same candidates (0 for the
 *  declared estimate and for LAST2), in seconds; "samples" is how many
 *  finished jobs the prediction rests on.
 *
 *  The cap: a prediction is never above "cap", which is at least RE.
 *  Slurm ends a job at its time limit, so for a hard deadline the
 *  declared estimate is the hard cap (cap = RE); a soft-deadline job may
 *  run on past it, and users under-declare too (LANL-CM5: 35% of the
 *  last 5000 jobs ran longer than they asked, 412 of them more than
 *  twice), so for it the caller may let the history's ratios above 1
 *  raise P beyond RE (cap > RE).  No history, or none above done: RE.
 *
 *  Edges: R <= 0 or RE <= 0 or non-finite are not recorded; q is clamped
 *  to [0.5, 1]; the prediction is never above the cap and never below a
 *  millisecond (a positive runtime keeps every share finite).
 *
 *  No locking: the owner serialises access, as with the ledger.
\*****************************************************************************/

#ifndef LIBRA_PREDICT_H
#define LIBRA_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "number.h"

/* Finished jobs kept per user and per group. */
#define LIBRA_PREDICT_DEPTH 32

/* The least predicted run time [s]. */
#define LIBRA_PREDICT_FLOOR 1e-3

typedef enum {
	LIBRA_PREDICT_NONE = 0,	/* the declared estimate, always */
	LIBRA_PREDICT_LAST2,
	LIBRA_PREDICT_RATIO,
	LIBRA_PREDICT_RUNTIME,
} libra_predict_method_t;

typedef enum {
	LIBRA_PREDICT_FROM_NONE = 0,	/* no history: the declared estimate */
	LIBRA_PREDICT_FROM_CLASS,	/* the user's jobs of the same RE */
	LIBRA_PREDICT_FROM_USER,
	LIBRA_PREDICT_FROM_GROUP,
} libra_predict_source_t;

typedef struct libra_prediction {
	double runtime;		/* predicted run time P, 0 < P <= cap */
	double spread;		/* Q_q - Q_0.5 [s]; 0 without a quantile */
	double quantile;	/* Q_q before the cap (LAST2: the mean of
				 * the last two); RE without a history */
	int samples;		/* finished jobs it rests on */
	libra_predict_source_t source;
} libra_prediction_t;

typedef struct libra_predictor libra_predictor_t;

/*
 * A predictor of the given method that predicts from a key's history once
 * it holds at least min_samples jobs (1 .. LIBRA_PREDICT_DEPTH; LAST2
 * needs 2 whatever it is).  NULL on a bad argument or out of memory.
 */
extern libra_predictor_t *libra_predictor_create(libra_predict_method_t m,
						 int min_samples);
extern void libra_predictor_destroy(libra_predictor_t *p);

/* The methods by name ("none", "ratio", "last2", "runtime"; number.h's
 * libra_name_t), one method's name, and back (false: no such name). */
extern const libra_name_t libra_predict_method_names[];
extern const char *libra_predict_method_name(libra_predict_method_t m);
extern bool libra_predict_method_from_name(const char *name,
					   libra_predict_method_t *m);

/*
 * A job finished: it ran R seconds (per CPU, at full speed) against a
 * declared estimate RE.  Recorded under its user and its group (a
 * negative id: not recorded under that key).  Returns 0, or -1 when R or
 * RE is not a positive finite number (nothing recorded).
 */
extern int libra_predictor_record(libra_predictor_t *p, int64_t user,
				  int64_t group, double runtime,
				  double estimate);

/*
 * Predict the run time of a job of user and group declaring RE, at most
 * cap (below RE: RE), at quantile q, having done "done" CPU-seconds so far
 * (0 at submission).  Fills *out; a NULL predictor or method NONE gives
 * RE.
 */
extern void libra_predict(const libra_predictor_t *p, int64_t user,
			  int64_t group, double estimate, double cap,
			  double q, double done, libra_prediction_t *out);

/* The method and least history a predictor was made with. */
extern libra_predict_method_t libra_predictor_method(const libra_predictor_t *p);
extern int libra_predictor_min_samples(const libra_predictor_t *p);

/*
 * The history file the plugins keep (doc/design.md decision 23): one
 * finished job a line, "user group runtime estimate end", in decimal,
 * times in seconds.  libra_predict_format_line() writes one (with its
 * newline) into buf and returns its length, or -1 when it does not fit, a
 * number is not finite or the run time or estimate is not positive (what
 * the reader skips is never written); libra_predictor_record_line() reads
 * one into the
 * predictor: 0 recorded, -1 skipped (a line that does not read so, e.g.
 * one a crash tore, or a run time or estimate that is not positive).
 */
extern int libra_predict_format_line(char *buf, size_t len, int64_t user,
				     int64_t group, double runtime,
				     double estimate, double end);
extern int libra_predictor_record_line(libra_predictor_t *p,
				       const char *line);

/*
 * Compaction of the history file (doc/design.md decision 23): a line
 * matters to the predictor only while it is one of the last
 * LIBRA_PREDICT_DEPTH jobs of one of its keys (its user and estimate,
 * its user, its group).  Fill a fresh predictor with every line of a
 * history (libra_predictor_record_line()), then give it the same lines
 * again, in the same order, one call each: 1 for a line that some key
 * still holds, 0 for one that none does and for one the reader skips
 * (it does not read, its run time or estimate is not positive, or it
 * has neither a user nor a group).  The lines answered 1, in their
 * order, are the fewest that fill a predictor holding the same jobs
 * per key, so it predicts as the one filled from every line, and so do
 * the two after the same jobs are added to each.  The calls count each
 * key's jobs down: the predictor still predicts, but answers this only
 * once per line.
 */
extern int libra_predictor_needs_line(libra_predictor_t *p,
				      const char *line);

/* Finished jobs held for a user (for the tests and reports). */
extern int libra_predictor_user_samples(const libra_predictor_t *p,
					int64_t user);

/*
 * Re-planning a job that has reached its plan (doc/design.md decision 34;
 * the simulator's --predict and sched/libra call this one function): its
 * run time is predicted again conditioned on the CPU it has done
 * (libra_predict(), never above the cap).  Past its declared estimate a
 * hard-deadline job stays at the cap (Slurm ends it at its time limit), a
 * soft one is planned LIBRA_REPLAN_SOFT_GROWTH times further, at least
 * LIBRA_REPLAN_SOFT_MIN seconds, each time it passes its plan.  The new
 * plan is paced again: it ends at pace of the time left (*end), so that a
 * plan short again still has time.
 */
#define LIBRA_REPLAN_EPS	 1e-6	/* CPU-seconds of rounding */
#define LIBRA_REPLAN_SOFT_GROWTH 0.5
#define LIBRA_REPLAN_SOFT_MIN	 60.0

typedef struct libra_replan {
	int64_t user, group;	/* the predictor's keys (negative: none) */
	double estimate;	/* RE the user declared */
	double cap;		/* the most a prediction may be */
	double quantile;	/* 1 - libra_predict_risk */
	bool hard;		/* a hard deadline */
	double plan;		/* the plan it has reached [s] */
	double done;		/* CPU-seconds per CPU it has done */
	double deadline;	/* TD [s] */
	double pace;		/* libra_predict_pace, (0, 1] */
} libra_replan_t;

/*
 * True when the plan grows: *pr holds the new prediction (its runtime the
 * new plan) and *end when that plan is paced to finish (the deadline when
 * pace is 1 or the deadline has passed).  False: at its cap, the job runs
 * on at share_min.
 */
extern bool libra_replan(const libra_predictor_t *p, const libra_replan_t *r,
			 double now, libra_prediction_t *pr, double *end);

#endif /* LIBRA_PREDICT_H */
