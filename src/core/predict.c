/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  predict.c - runtime prediction from finished jobs (see predict.h for
 *  the methods, the quantile and the edges; doc/design.md decision 22).
 *
 *  Each key (a user, a group) owns a ring of its last LIBRA_PREDICT_DEPTH
 *  finished jobs.  Keys live in two open-addressing hash tables (linear
 *  probing, grown at half load), so recording and predicting cost
 *  O(DEPTH log DEPTH) whatever the number of users.
 *
 *  Every prediction reads a ring as a set of jobs, but for LAST2's last
 *  two, so two rings with the same jobs in the same order, whatever the
 *  position of the oldest, predict alike.  Hence compaction
 *  (libra_predictor_needs_line()): a ring also counts the jobs it ever
 *  recorded, and replaying the lines from the first, each key counts
 *  its jobs down; a line is needed while one of its keys is down to its
 *  last LIBRA_PREDICT_DEPTH.  Replayed alone, the needed lines give each
 *  key exactly its last LIBRA_PREDICT_DEPTH jobs (or all, if fewer), in
 *  order: the older lines kept for another key are pushed out of it.
\*****************************************************************************/

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "predict.h"

typedef struct {
	int64_t key;		/* -1: empty slot */
	int n;			/* jobs held, at most DEPTH */
	int next;		/* ring position of the next record */
	uint64_t total;		/* jobs ever recorded; counted down by
				 * libra_predictor_needs_line() */
	double run[LIBRA_PREDICT_DEPTH];	/* R_k */
	double est[LIBRA_PREDICT_DEPTH];	/* RE_k */
} hist_t;

typedef struct {
	hist_t *slot;
	size_t cap;		/* a power of two */
	size_t used;
} table_t;

struct libra_predictor {
	libra_predict_method_t method;
	int min_samples;
	table_t cls, user, group;
};

/* In the order sched_libra(8) lists them. */
const libra_name_t libra_predict_method_names[] = {
	{ LIBRA_PREDICT_NONE,		"none" },
	{ LIBRA_PREDICT_RATIO,		"ratio" },
	{ LIBRA_PREDICT_LAST2,		"last2" },
	{ LIBRA_PREDICT_RUNTIME,	"runtime" },
	{ 0, NULL }
};

extern const char *libra_predict_method_name(libra_predict_method_t m)
{
	return libra_name_of(libra_predict_method_names, (int) m);
}

extern bool libra_predict_method_from_name(const char *name,
					   libra_predict_method_t *m)
{
	int v;

	if (!libra_value_of(libra_predict_method_names, name, &v))
		return false;
	*m = (libra_predict_method_t) v;
	return true;
}

/* ---- hash tables of histories -------------------------------------------- */

static size_t _hash(int64_t key)
{
	uint64_t x = (uint64_t) key;	/* splitmix64's finaliser */

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return (size_t) x;
}

static int _table_init(table_t *t, size_t cap)
{
	t->slot = malloc(cap * sizeof(*t->slot));
	if (!t->slot)
		return -1;
	for (size_t i = 0; i < cap; i++)
		t->slot[i].key = -1;
	t->cap = cap;
	t->used = 0;
	return 0;
}

static hist_t *_find(const table_t *t, int64_t key)
{
	size_t i = _hash(key) & (t->cap - 1);

	if (key < 0)
		return NULL;
	while (t->slot[i].key >= 0) {
		if (t->slot[i].key == key)
			return &t->slot[i];
		i = (i + 1) & (t->cap - 1);
	}
	return NULL;
}

/* The key's history, created empty if absent; NULL out of memory. */
static hist_t *_get(table_t *t, int64_t key)
{
	size_t i;

	if (2 * (t->used + 1) > t->cap) {
		table_t big;

		if (_table_init(&big, 2 * t->cap))
			return NULL;
		for (size_t k = 0; k < t->cap; k++) {
			size_t j;

			if (t->slot[k].key < 0)
				continue;
			j = _hash(t->slot[k].key) & (big.cap - 1);
			while (big.slot[j].key >= 0)
				j = (j + 1) & (big.cap - 1);
			big.slot[j] = t->slot[k];
			big.used++;
		}
		free(t->slot);
		*t = big;
	}
	i = _hash(key) & (t->cap - 1);
	while (t->slot[i].key >= 0 && t->slot[i].key != key)
		i = (i + 1) & (t->cap - 1);
	if (t->slot[i].key < 0) {
		memset(&t->slot[i], 0, sizeof(t->slot[i]));
		t->slot[i].key = key;
		t->used++;
	}
	return &t->slot[i];
}

/* A user's job class: the user and the estimate declared, to the second
 * (users resubmit one job with one time limit). */
static int64_t _class_key(int64_t user, double estimate)
{
	double e = fmin(fmax(round(estimate), 0.0), 4294967295.0);

	return (int64_t) (((uint64_t) user << 32) | (uint64_t) e);
}

static void _push(hist_t *h, double run, double est)
{
	h->run[h->next] = run;
	h->est[h->next] = est;
	h->next = (h->next + 1) % LIBRA_PREDICT_DEPTH;
	if (h->n < LIBRA_PREDICT_DEPTH)
		h->n++;
	h->total++;
}

extern libra_predictor_t *libra_predictor_create(libra_predict_method_t m,
						 int min_samples)
{
	libra_predictor_t *p;

	if ((unsigned) m > LIBRA_PREDICT_RUNTIME || min_samples < 1 ||
	    min_samples > LIBRA_PREDICT_DEPTH)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->method = m;
	p->min_samples = m == LIBRA_PREDICT_LAST2 && min_samples < 2 ?
			 2 : min_samples;
	if (_table_init(&p->cls, 64) || _table_init(&p->user, 64) ||
	    _table_init(&p->group, 16)) {
		libra_predictor_destroy(p);
		return NULL;
	}
	return p;
}

extern void libra_predictor_destroy(libra_predictor_t *p)
{
	if (!p)
		return;
	free(p->cls.slot);
	free(p->user.slot);
	free(p->group.slot);
	free(p);
}

extern int libra_predictor_record(libra_predictor_t *p, int64_t user,
				  int64_t group, double runtime,
				  double estimate)
{
	hist_t *h;

	if (!p || !(runtime > 0) || !(estimate > 0) || !isfinite(runtime) ||
	    !isfinite(estimate))
		return -1;
	if (user >= 0) {
		if (!(h = _get(&p->cls, _class_key(user, estimate))))
			return -1;
		_push(h, runtime, estimate);
		if (!(h = _get(&p->user, user)))
			return -1;
		_push(h, runtime, estimate);
	}
	if (group >= 0) {
		if (!(h = _get(&p->group, group)))
			return -1;
		_push(h, runtime, estimate);
	}
	return 0;
}

extern libra_predict_method_t libra_predictor_method(const libra_predictor_t *p)
{
	return p ? p->method : LIBRA_PREDICT_NONE;
}

extern int libra_predictor_min_samples(const libra_predictor_t *p)
{
	return p ? p->min_samples : 0;
}

extern int libra_predict_format_line(char *buf, size_t len, int64_t user,
				     int64_t group, double runtime,
				     double estimate, double end)
{
	int n;

	/* nothing the reader would skip (libra_predictor_record()): a job
	 * that ended in the second it started has no run time to learn */
	if (!(runtime > 0) || !(estimate > 0) || !isfinite(runtime) ||
	    !isfinite(estimate) || !isfinite(end))
		return -1;
	n = snprintf(buf, len, "%lld %lld %.6f %.6f %.6f\n", (long long) user,
		     (long long) group, runtime, estimate, end);
	return n < 0 || (size_t) n >= len ? -1 : n;
}

/* A history line's fields: 0, or -1 when it does not read so (five
 * numbers, nothing after them but white space). */
static int _read_line(const char *line, long long *user, long long *group,
		      double *runtime, double *estimate)
{
	double end;
	char rest;

	if (sscanf(line, "%lld %lld %lf %lf %lf %c", user, group, runtime,
		   estimate, &end, &rest) != 5)
		return -1;
	return 0;
}

extern int libra_predictor_record_line(libra_predictor_t *p,
				       const char *line)
{
	long long user, group;
	double runtime, estimate;

	if (_read_line(line, &user, &group, &runtime, &estimate))
		return -1;
	return libra_predictor_record(p, user, group, runtime, estimate);
}

/*
 * One more of the key's jobs counted off, from the oldest: true while it
 * is one of the last LIBRA_PREDICT_DEPTH, which its ring holds.  A key
 * the predictor never recorded (it ran out of memory) keeps the line.
 */
static bool _count_off(const table_t *t, int64_t key)
{
	hist_t *h = _find(t, key);

	if (!h || !h->total)
		return true;
	return h->total-- <= LIBRA_PREDICT_DEPTH;
}

extern int libra_predictor_needs_line(libra_predictor_t *p,
				      const char *line)
{
	long long user, group;
	double runtime, estimate;
	bool need = false;

	/* what libra_predictor_record() leaves out, no ring holds */
	if (!p || _read_line(line, &user, &group, &runtime, &estimate) ||
	    !(runtime > 0) || !(estimate > 0) || !isfinite(runtime) ||
	    !isfinite(estimate))
		return 0;
	/* every key counted off, whichever needs the line */
	if (user >= 0) {
		need |= _count_off(&p->cls, _class_key(user, estimate));
		need |= _count_off(&p->user, user);
	}
	if (group >= 0)
		need |= _count_off(&p->group, group);
	return need;
}

extern int libra_predictor_user_samples(const libra_predictor_t *p,
					int64_t user)
{
	const hist_t *h = p ? _find(&p->user, user) : NULL;

	return h ? h->n : 0;
}

/* ---- prediction ----------------------------------------------------------- */

static int _cmp(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Conservative order statistic: v_(k), k = ceil(q (n + 1)) in [1, n]. */
static double _quantile(const double *v, int n, double q)
{
	int k = (int) ceil(q * (n + 1) - 1e-9);

	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

/* The run time of the history's last job and the one before (LAST2). */
static double _last2(const hist_t *h)
{
	int a = (h->next + LIBRA_PREDICT_DEPTH - 1) % LIBRA_PREDICT_DEPTH;
	int b = (h->next + LIBRA_PREDICT_DEPTH - 2) % LIBRA_PREDICT_DEPTH;

	return (h->run[a] + h->run[b]) / 2.0;
}

extern void libra_predict(const libra_predictor_t *p, int64_t user,
			  int64_t group, double estimate, double cap,
			  double q, double done, libra_prediction_t *out)
{
	const hist_t *h = NULL;
	double cand[LIBRA_PREDICT_DEPTH], v;
	int n = 0;

	memset(out, 0, sizeof(*out));
	out->runtime = out->quantile = estimate;
	if (!p || p->method == LIBRA_PREDICT_NONE || !(estimate > 0))
		return;
	if (!(cap >= estimate))
		cap = estimate;	/* NaN too */
	if (!(q >= 0.5))
		q = 0.5;
	if (q > 1.0)
		q = 1.0;
	if (user >= 0 && (h = _find(&p->cls, _class_key(user, estimate))) &&
	    h->n >= p->min_samples) {
		out->source = LIBRA_PREDICT_FROM_CLASS;
	} else if ((h = _find(&p->user, user)) && h->n >= p->min_samples) {
		out->source = LIBRA_PREDICT_FROM_USER;
	} else if ((h = _find(&p->group, group)) &&
		   h->n >= p->min_samples) {
		out->source = LIBRA_PREDICT_FROM_GROUP;
	} else {
		return;		/* no history: the declared estimate */
	}
	out->samples = h->n;

	if (p->method == LIBRA_PREDICT_LAST2) {
		v = _last2(h);
		out->quantile = v;
		/* past its prediction: the estimate (Tsafrir et al. 3.2) */
		if (v > done)
			out->runtime = fmin(fmax(v, LIBRA_PREDICT_FLOOR),
					    cap);
		return;
	}
	/* the candidate run times of this job, conditioned on done */
	for (int k = 0; k < h->n; k++) {
		double c = p->method == LIBRA_PREDICT_RATIO ?
			   estimate * (h->run[k] / h->est[k]) : h->run[k];

		if (c > done)
			cand[n++] = c;
	}
	if (!n)
		return;		/* past every one: the estimate RE */
	qsort(cand, (size_t) n, sizeof(*cand), _cmp);
	v = _quantile(cand, n, q);
	out->quantile = v;
	out->runtime = fmin(fmax(v, LIBRA_PREDICT_FLOOR), cap);
	out->spread = fmax(0.0, fmin(v, cap) -
			   fmin(_quantile(cand, n, 0.5), cap));
}

extern bool libra_replan(const libra_predictor_t *p, const libra_replan_t *r,
			 double now, libra_prediction_t *pr, double *end)
{
	libra_predict(p, r->user, r->group, r->estimate, r->cap, r->quantile,
		      r->done, pr);
	if (!(pr->runtime > r->plan + LIBRA_REPLAN_EPS) && !r->hard &&
	    r->done >= r->estimate - LIBRA_REPLAN_EPS)
		pr->runtime = fmax(r->done, r->plan) *
			      (1.0 + LIBRA_REPLAN_SOFT_GROWTH) +
			      LIBRA_REPLAN_SOFT_MIN;
	if (!(pr->runtime > r->plan + LIBRA_REPLAN_EPS))
		return false;
	*end = r->deadline;
	if (r->pace < 1.0 && r->deadline > now)
		*end = now + r->pace * (r->deadline - now);
	return true;
}
