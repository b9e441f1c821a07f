/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  bench-history.c - the predictor's history file over many job ends,
 *  compacted and not (issue 38; doc/design.md decision 23).
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

int main(int argc, char **argv)
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
	long jobs = 100000, users = 200, groups = 20;
	uint64_t seed = 1, largest = 0, quarter = 0, bound, size;
	size_t longest = 0;
	char dir[4096] = "", full_path[4200], path[4200], line[160];
	const char *tmpdir = getenv("TMPDIR");
	bool keep = false, made = false, ok;
	libra_history_t *full;
	libra_predictor_t *from_full[METHODS], *from_compacted[METHODS];
	int (*usual)[3], *nusual;
	bool *seen_class, *seen_user, *seen_group;
	long classes = 0, nusers = 0, ngroups = 0, same = 0, keys = 0;
	double t0, end = 1.7e9, seconds;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			jobs = atol(optarg);
			break;
		case 'u':
			users = atol(optarg);
			break;
		case 'g':
			groups = atol(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'd':
			snprintf(dir, sizeof(dir), "%s", optarg);
			break;
		case 'k':
			keep = true;
			break;
		default:
			_usage();
		}
	}
	if (optind < argc || jobs < 1 || users < 1 || groups < 1 || !seed)
		_usage();
	state = seed;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/bench-history-XXXXXX",
			 tmpdir && tmpdir[0] ? tmpdir : "/tmp");
		if (!mkdtemp(dir)) {
			perror("bench-history: mkdtemp");
			return 1;
		}
		made = true;
	}
	snprintf(path, sizeof(path), "%s/libra_history", dir);
	snprintf(full_path, sizeof(full_path), "%s/libra_history.full", dir);
	unlink(path);
	unlink(full_path);

	usual = calloc((size_t) users, sizeof(*usual));
	nusual = calloc((size_t) users, sizeof(*nusual));
	seen_class = calloc((size_t) users * LIMITS, sizeof(*seen_class));
	seen_user = calloc((size_t) users, sizeof(*seen_user));
	seen_group = calloc((size_t) groups, sizeof(*seen_group));
	history = libra_history_create(path, 0);
	full = libra_history_create(full_path, 0);
	if (!usual || !nusual || !seen_class || !seen_user || !seen_group ||
	    !history || !full) {
		fprintf(stderr, "bench-history: out of memory\n");
		return 1;
	}
	for (long u = 0; u < users; u++) {
		nusual[u] = 1 + (int) (_rand() % 3);
		for (int k = 0; k < nusual[u]; k++)
			usual[u][k] = (int) (_rand() % LIMITS);
	}

	printf("bench-history: %ld jobs of %ld users in %ld groups, seed %" PRIu64 ", in %s\n",
	       jobs, users, groups, seed, dir);
	printf("%10s %14s %14s %14s %6s\n", "jobs", "full [bytes]",
	       "compacted: max", "after last", "keys");
	t0 = _now();
	for (long j = 1; j <= jobs; j++) {
		double x = _uniform();
		long u = (long) (users * x * x), g = u % groups;
		int l = _rand() % 50 ? usual[u][_rand() % nusual[u]] :
				       (int) (_rand() % LIMITS);
		double limit = limits[l];
		double run = limit * (0.02 + 0.98 * _uniform());
		int n, rc;

		end += 1 + _rand() % 60;
		n = libra_predict_format_line(line, sizeof(line), u, g, run,
					      limit, end);
		if (n < 0)
			return 1;
		rc = libra_history_append(history, line, (size_t) n);
		if (rc > 0) {
			_join();
			if (pthread_create(&compact_tid, NULL, _compact, NULL))
				return 1;
			compact_started = true;
		}
		if (rc < 0 || libra_history_append(full, line, (size_t) n) < 0) {
			perror("bench-history: append");
			return 1;
		}
		if ((size_t) n > longest)
			longest = (size_t) n;
		classes += !seen_class[u * LIMITS + l];
		seen_class[u * LIMITS + l] = true;
		nusers += !seen_user[u];
		seen_user[u] = true;
		ngroups += !seen_group[g];
		seen_group[g] = true;
		if ((size = _size(path)) > quarter)
			quarter = size;
		if (j % (jobs / 4 ? jobs / 4 : 1) == 0 || j == jobs) {
			pthread_mutex_lock(&last_mutex);
			printf("%10ld %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %6ld\n",
			       j, _size(full_path), quarter, last.after,
			       classes + nusers + ngroups);
			pthread_mutex_unlock(&last_mutex);
			if (quarter > largest)
				largest = quarter;
			quarter = 0;
		}
	}
	_join();
	seconds = _now() - t0;

	printf("compacted file: %" PRIu64 " bytes at the end, %" PRIu64 " at most; full file: %" PRIu64 " bytes (%.1f times)\n",
	       _size(path), largest, _size(full_path),
	       (double) _size(full_path) / (double) _size(path));
	printf("compactions: %d (%d failed), %.3f s in all; the last kept %" PRIu64 " of %" PRIu64 " lines; %ld jobs appended twice in %.2f s\n",
	       compactions, failed, compact_seconds, last.kept, last.lines,
	       jobs, seconds);
	printf("keys: %ld (%ld of user and time limit, %ld users, %ld groups)\n",
	       classes + nusers + ngroups, classes, nusers, ngroups);
	/*
	 * A compaction keeps at most DEPTH lines a key (K keys of lines of
	 * at most L bytes) and the A bytes appended while it ran; the next
	 * is due past twice that plus the slack, after one more line, and
	 * A more bytes come while it runs: 2 (DEPTH K L + A) + slack + L + A.
	 */
	bound = 2 * ((uint64_t) LIBRA_PREDICT_DEPTH *
		     (uint64_t) (classes + nusers + ngroups) * longest +
		     most_appended) + LIBRA_HISTORY_SLACK + longest +
		most_appended;
	printf("bound: 2 (%d lines x %ld keys x %zu bytes + %" PRIu64 " appended during a compaction) + %d + %zu + %" PRIu64 " = %" PRIu64 " bytes; the compacted file's largest, %" PRIu64 ", is %s\n",
	       LIBRA_PREDICT_DEPTH, classes + nusers + ngroups, longest,
	       most_appended, LIBRA_HISTORY_SLACK, longest, most_appended,
	       bound, largest, largest <= bound ? "within" : "OVER");

	/* every key asked of the predictors read from each file */
	_predictors(from_full, full_path);
	_predictors(from_compacted, path);
	for (long u = 0; u < users + groups; u++) {
		/* a user's keys, or (u >= users) a group's: a user without
		 * a history in it */
		long g = u < users ? u % groups : u - users;
		bool known = u < users ? seen_user[u] : seen_group[g];

		for (int l = 0; known && l <= LIMITS; l++) {
			/* l == LIMITS: a limit never used, the user's key */
			double limit = l < LIMITS ? limits[l] : 100;

			if (l < LIMITS &&
			    (u >= users || !seen_class[u * LIMITS + l]))
				continue;
			keys++;
			same += _alike(from_full, from_compacted, u, g, limit);
		}
	}
	printf("same predictions: %ld of %ld keys (last2, ratio and runtime, from the compacted file and from the full file)\n",
	       same, keys);
	ok = same == keys && !failed && largest <= bound;

	for (int m = 0; m < METHODS; m++) {
		libra_predictor_destroy(from_full[m]);
		libra_predictor_destroy(from_compacted[m]);
	}
	libra_history_destroy(history);
	libra_history_destroy(full);
	if (!keep) {
		unlink(path);
		unlink(full_path);
		if (made)
			rmdir(dir);
	}
	free(usual);
	free(nusual);
	free(seen_class);
	free(seen_user);
	free(seen_group);
	return ok ? 0 : 1;
}
