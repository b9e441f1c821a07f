/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  bench-history.c - the predictor's history file over many job ends,
 *  compacted and not (doc/design.md decision 23).
 *
 *  Simulates N completed jobs (100,000 by default) as jobcomp/libra
 *  records them, through the same calls: each job's line is formatted
 *  (libra_predict_format_line()) and appended to two history files with
 *  libra_history_append().  One is compacted as jobcomp/libra compacts
 *  StateSaveLocation/libra_history: when an append answers that it is
 *  due, a thread of its own runs libra_history_compact() while the
 *  appends go on (the previous one joined first).  The other, "full", is
 *  never compacted: the file of a release without compaction.
 *
 *  The jobs.  --users users (default 200), user u in group u mod
 *  --groups (default 20), drawn with a skew (a few users submit most
 *  jobs: user floor(U x^2), x uniform); each user has one to three usual
 *  time limits out of {5, 10, 30, 60, 120, 240, 1440} minutes and uses
 *  another at random for 2% of its jobs; run times are 2-100% of the
 *  limit.  Seeded (--seed): the same options give the same jobs.
 *
 *  Printed: at each quarter of the run, the full file's size, the
 *  largest the compacted one was in that quarter and its size after its
 *  last compaction, and the keys the predictor holds (user and time
 *  limit, user, group); the bound on the compacted file (a kept line is
 *  one of the last LIBRA_PREDICT_DEPTH of a key, the file is compacted
 *  past twice its compacted length plus the slack, and lines appended
 *  while a compaction runs are kept; this loop appends far faster than
 *  jobs end, so they weigh more here than in slurmctld); the
 *  compactions and their time; whether a predictor read from the
 *  compacted file predicts as one read from the full file: every key
 *  asked with the methods last2, ratio and runtime, at quantiles 0.5,
 *  0.9, 0.98 and 1, with and without work done, compared bit for bit.
 *  Exit status 0 when every key predicts the same and the compacted file
 *  stayed within its bound.
 *
 *  Usage: bench-history [--jobs N] [--users U] [--groups G] [--seed S]
 *         [--dir DIR] (where the two files go; default a fresh directory
 *         in $TMPDIR or /tmp, removed at the end) [--keep] (keep them)
\*****************************************************************************/

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "history.h"
#include "predict.h"

#define LIMITS 7
static const double limits[LIMITS] = {
	300, 600, 1800, 3600, 7200, 14400, 86400
};

static uint64_t state;		/* xorshift64 */

static uint64_t _rand(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static double _uniform(void)
{
	return (double) (_rand() >> 11) / 9007199254740992.0;
}

static double _now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t _size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) ? 0 : (uint64_t) sb.st_size;
}

/* The compacted file's compactions, as jobcomp/libra runs them. */
static libra_history_t *history;
static pthread_t compact_tid;
static bool compact_started;
static int compactions, failed;
static double compact_seconds;
static libra_history_stats_t last;	/* of the last compaction */
static uint64_t most_appended;		/* during one compaction [bytes] */
static pthread_mutex_t last_mutex = PTHREAD_MUTEX_INITIALIZER;

static void *_compact(void *arg)
{
	libra_history_stats_t st;
	double t0 = _now();

	if (libra_history_compact(history, &st)) {
		fprintf(stderr, "bench-history: cannot compact %s: %s\n",
			libra_history_path(history), strerror(errno));
		failed++;
		return NULL;
	}
	pthread_mutex_lock(&last_mutex);
	compact_seconds += _now() - t0;
	compactions++;
	last = st;
	if (st.appended > most_appended)
		most_appended = st.appended;
	pthread_mutex_unlock(&last_mutex);
	return NULL;
}

static void _join(void)
{
	if (compact_started)
		pthread_join(compact_tid, NULL);
	compact_started = false;
}

#define METHODS 3
static const libra_predict_method_t methods[METHODS] = {
	LIBRA_PREDICT_LAST2, LIBRA_PREDICT_RATIO, LIBRA_PREDICT_RUNTIME
};

/* Do a[m] and b[m] predict alike for the key (user, group, limit), with
 * each method m, at every quantile asked, with and without work done? */
static bool _alike(libra_predictor_t *const *a, libra_predictor_t *const *b,
		   int64_t user, int64_t group, double limit)
{
	static const double qs[] = { 0.5, 0.9, 0.98, 1.0 };

	for (int m = 0; m < METHODS; m++) {
		for (int q = 0; q < 4; q++) {
			for (int d = 0; d < 2; d++) {
				libra_prediction_t x, y;
				double done = d ? limit / 4 : 0;

				libra_predict(a[m], user, group, limit, limit,
					      qs[q], done, &x);
				libra_predict(b[m], user, group, limit, limit,
					      qs[q], done, &y);
				if (memcmp(&x, &y, sizeof(x)))
					return false;
			}
		}
	}
	return true;
}

/* Predictors of each method, min 8 jobs (the default libra_predict_min),
 * read from the file at path.  Exits on failure. */
static void _predictors(libra_predictor_t **p, const char *path)
{
	uint64_t read, skipped;

	for (int m = 0; m < METHODS; m++) {
		if (!(p[m] = libra_predictor_create(methods[m], 8)) ||
		    libra_history_load(path, p[m], &read, &skipped)) {
			fprintf(stderr, "bench-history: cannot read %s: %s\n",
				path, strerror(errno));
			exit(1);
		}
	}
}

static void _usage(void)
{
	fprintf(stderr,
		"usage: bench-history [--jobs N] [--users U] [--groups G] [--seed S]\n"
		"                     [--dir DIR] [--keep]\n");
	exit(2);
}

/* The run: its options, the users' usual limits, the keys seen. */
typedef struct {
	long jobs, users, groups;
	uint64_t seed;
	char dir[4096];
	bool keep;
	bool made;			/* made here: removed at the end */
	char full_path[4200], path[4200];
	int (*usual)[3], *nusual;	/* each user's usual time limits */
	bool *seen_class, *seen_user, *seen_group;
	long classes, nusers, ngroups;	/* keys seen of each kind */
	size_t longest;			/* the longest line [bytes] */
	uint64_t largest;		/* the compacted file's most [bytes] */
} run_t;

static void _parse_args(int argc, char **argv, run_t *r)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "users", required_argument, NULL, 'u' },
		{ "groups", required_argument, NULL, 'g' },
		{ "seed", required_argument, NULL, 's' },
		{ "dir", required_argument, NULL, 'd' },
		{ "keep", no_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			r->jobs = atol(optarg);
			break;
		case 'u':
			r->users = atol(optarg);
			break;
		case 'g':
			r->groups = atol(optarg);
			break;
		case 's':
			r->seed = strtoull(optarg, NULL, 10);
			break;
		case 'd':
			snprintf(r->dir, sizeof(r->dir), "%s", optarg);
			break;
		case 'k':
			r->keep = true;
			break;
		default:
			_usage();
		}
	}
	if (optind < argc || r->jobs < 1 || r->users < 1 || r->groups < 1 ||
	    !r->seed)
		_usage();
}

/* The directory of the two files (a fresh one unless --dir) and their
 * paths, no file left in it from before.  Returns -1 on failure. */
static int _make_dir(run_t *r)
{
	const char *tmpdir = getenv("TMPDIR");

	if (!r->dir[0]) {
		snprintf(r->dir, sizeof(r->dir), "%s/bench-history-XXXXXX",
			 tmpdir && tmpdir[0] ? tmpdir : "/tmp");
		if (!mkdtemp(r->dir)) {
			perror("bench-history: mkdtemp");
			return -1;
		}
		r->made = true;
	}
	snprintf(r->path, sizeof(r->path), "%s/libra_history", r->dir);
	snprintf(r->full_path, sizeof(r->full_path), "%s/libra_history.full",
		 r->dir);
	unlink(r->path);
	unlink(r->full_path);
	return 0;
}

/* One job's end, drawn and appended to both files, its keys counted.
 * end: the last job's end time, moved on to this one's.  Returns -1 on
 * failure (reported when an append failed). */
static int _append_job(run_t *r, libra_history_t *full, double *end)
{
	char line[160];
	double x = _uniform();
	long u = (long) (r->users * x * x), g = u % r->groups;
	int l = _rand() % 50 ? r->usual[u][_rand() % r->nusual[u]] :
			       (int) (_rand() % LIMITS);
	double limit = limits[l];
	double run = limit * (0.02 + 0.98 * _uniform());
	int n, rc;

	*end += 1 + _rand() % 60;
	n = libra_predict_format_line(line, sizeof(line), u, g, run, limit,
				      *end);
	if (n < 0)
		return -1;
	rc = libra_history_append(history, line, (size_t) n);
	if (rc > 0) {
		_join();
		if (pthread_create(&compact_tid, NULL, _compact, NULL))
			return -1;
		compact_started = true;
	}
	if (rc < 0 || libra_history_append(full, line, (size_t) n) < 0) {
		perror("bench-history: append");
		return -1;
	}
	if ((size_t) n > r->longest)
		r->longest = (size_t) n;
	r->classes += !r->seen_class[u * LIMITS + l];
	r->seen_class[u * LIMITS + l] = true;
	r->nusers += !r->seen_user[u];
	r->seen_user[u] = true;
	r->ngroups += !r->seen_group[g];
	r->seen_group[g] = true;
	return 0;
}

/* Every job's end, with a line of figures at each quarter of the run.
 * Returns -1 on failure. */
static int _append_jobs(run_t *r, libra_history_t *full)
{
	uint64_t quarter = 0, size;
	double end = 1.7e9;

	for (long j = 1; j <= r->jobs; j++) {
		if (_append_job(r, full, &end))
			return -1;
		if ((size = _size(r->path)) > quarter)
			quarter = size;
		if (j % (r->jobs / 4 ? r->jobs / 4 : 1) == 0 || j == r->jobs) {
			pthread_mutex_lock(&last_mutex);
			printf("%10ld %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %6ld\n",
			       j, _size(r->full_path), quarter, last.after,
			       r->classes + r->nusers + r->ngroups);
			pthread_mutex_unlock(&last_mutex);
			if (quarter > r->largest)
				r->largest = quarter;
			quarter = 0;
		}
	}
	return 0;
}

/* The files' sizes, the compactions and the keys; returns the bound on
 * the compacted file (printed). */
static uint64_t _print_sizes(const run_t *r, double seconds)
{
	uint64_t bound;

	printf("compacted file: %" PRIu64 " bytes at the end, %" PRIu64 " at most; full file: %" PRIu64 " bytes (%.1f times)\n",
	       _size(r->path), r->largest, _size(r->full_path),
	       (double) _size(r->full_path) / (double) _size(r->path));
	printf("compactions: %d (%d failed), %.3f s in all; the last kept %" PRIu64 " of %" PRIu64 " lines; %ld jobs appended twice in %.2f s\n",
	       compactions, failed, compact_seconds, last.kept, last.lines,
	       r->jobs, seconds);
	printf("keys: %ld (%ld of user and time limit, %ld users, %ld groups)\n",
	       r->classes + r->nusers + r->ngroups, r->classes, r->nusers,
	       r->ngroups);
	/*
	 * A compaction keeps at most DEPTH lines a key (K keys of lines of
	 * at most L bytes) and the A bytes appended while it ran; the next
	 * is due past twice that plus the slack, after one more line, and
	 * A more bytes come while it runs: 2 (DEPTH K L + A) + slack + L + A.
	 */
	bound = 2 * ((uint64_t) LIBRA_PREDICT_DEPTH *
		     (uint64_t) (r->classes + r->nusers + r->ngroups) *
		     r->longest + most_appended) + LIBRA_HISTORY_SLACK +
		r->longest + most_appended;
	printf("bound: 2 (%d lines x %ld keys x %zu bytes + %" PRIu64 " appended during a compaction) + %d + %zu + %" PRIu64 " = %" PRIu64 " bytes; the compacted file's largest, %" PRIu64 ", is %s\n",
	       LIBRA_PREDICT_DEPTH, r->classes + r->nusers + r->ngroups,
	       r->longest, most_appended, LIBRA_HISTORY_SLACK, r->longest,
	       most_appended, bound, r->largest,
	       r->largest <= bound ? "within" : "OVER");
	return bound;
}

/* Every key asked of the predictors read from each file (printed);
 * returns whether each predicts the same from both. */
static bool _same_predictions(const run_t *r)
{
	libra_predictor_t *from_full[METHODS], *from_compacted[METHODS];
	long same = 0, keys = 0;

	_predictors(from_full, r->full_path);
	_predictors(from_compacted, r->path);
	for (long u = 0; u < r->users + r->groups; u++) {
		/* a user's keys, or (u >= users) a group's: a user without
		 * a history in it */
		long g = u < r->users ? u % r->groups : u - r->users;
		bool known = u < r->users ? r->seen_user[u] : r->seen_group[g];

		for (int l = 0; known && l <= LIMITS; l++) {
			/* l == LIMITS: a limit never used, the user's key */
			double limit = l < LIMITS ? limits[l] : 100;

			if (l < LIMITS &&
			    (u >= r->users || !r->seen_class[u * LIMITS + l]))
				continue;
			keys++;
			same += _alike(from_full, from_compacted, u, g, limit);
		}
	}
	printf("same predictions: %ld of %ld keys (last2, ratio and runtime, from the compacted file and from the full file)\n",
	       same, keys);
	for (int m = 0; m < METHODS; m++) {
		libra_predictor_destroy(from_full[m]);
		libra_predictor_destroy(from_compacted[m]);
	}
	return same == keys;
}

int main(int argc, char **argv)
{
	run_t r = { .jobs = 100000, .users = 200, .groups = 20, .seed = 1 };
	uint64_t bound;
	libra_history_t *full;
	double t0, seconds;
	bool ok;

	_parse_args(argc, argv, &r);
	state = r.seed;
	if (_make_dir(&r))
		return 1;

	r.usual = calloc((size_t) r.users, sizeof(*r.usual));
	r.nusual = calloc((size_t) r.users, sizeof(*r.nusual));
	r.seen_class = calloc((size_t) r.users * LIMITS,
			      sizeof(*r.seen_class));
	r.seen_user = calloc((size_t) r.users, sizeof(*r.seen_user));
	r.seen_group = calloc((size_t) r.groups, sizeof(*r.seen_group));
	history = libra_history_create(r.path, 0);
	full = libra_history_create(r.full_path, 0);
	if (!r.usual || !r.nusual || !r.seen_class || !r.seen_user ||
	    !r.seen_group || !history || !full) {
		fprintf(stderr, "bench-history: out of memory\n");
		return 1;
	}
	for (long u = 0; u < r.users; u++) {
		r.nusual[u] = 1 + (int) (_rand() % 3);
		for (int k = 0; k < r.nusual[u]; k++)
			r.usual[u][k] = (int) (_rand() % LIMITS);
	}

	printf("bench-history: %ld jobs of %ld users in %ld groups, seed %" PRIu64 ", in %s\n",
	       r.jobs, r.users, r.groups, r.seed, r.dir);
	printf("%10s %14s %14s %14s %6s\n", "jobs", "full [bytes]",
	       "compacted: max", "after last", "keys");
	t0 = _now();
	if (_append_jobs(&r, full))
		return 1;
	_join();
	seconds = _now() - t0;

	bound = _print_sizes(&r, seconds);
	ok = _same_predictions(&r) && !failed && r.largest <= bound;

	libra_history_destroy(history);
	libra_history_destroy(full);
	if (!r.keep) {
		unlink(r.path);
		unlink(r.full_path);
		if (r.made)
			rmdir(r.dir);
	}
	free(r.usual);
	free(r.nusual);
	free(r.seen_class);
	free(r.seen_user);
	free(r.seen_group);
	return ok ? 0 : 1;
}
