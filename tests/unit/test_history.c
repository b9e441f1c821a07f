/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_history.c - the history file of finished jobs and its compaction
 *  (history.h, libra_predictor_needs_line() in predict.h; doc/design.md
 *  decision 23).
 *
 *  The contract checked: a predictor filled from the compacted lines
 *  predicts exactly (bit for bit) as one filled from every line, for every
 *  key, method, quantile, cap and work done, and goes on doing so as the
 *  same jobs are added to both; compaction drops only lines no key holds
 *  and lines the reader skips; the file is replaced only by a complete
 *  new one, and lines appended during a compaction are kept.
\*****************************************************************************/

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "history.h"
#include "predict.h"
#include "testutil.h"

#define USERS 30
#define GROUPS 5

static const double estimates[] = { 60, 600, 3600, 7200 };

/* xorshift64: the same histories on every machine */
static uint64_t _rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double _uniform(uint64_t *s)
{
	return (double) (_rand(s) >> 11) / 9007199254740992.0;
}

/*
 * Line i of a history drawn from seed s: USERS users, mostly in their own
 * group, some in another, a few with no user or no group; a user's
 * estimates mostly its first; run times from 5% to 130% of the
 * estimate.  With "bad", also lines the reader skips: torn (no newline),
 * non-positive run times, neither user nor group.
 */
static void _line(uint64_t *s, int i, bool bad, char *buf, size_t len)
{
	int64_t user = (int64_t) (_rand(s) % USERS);
	int64_t group = user % GROUPS;
	double est = estimates[(user + (_rand(s) % 6 ? 0 : _rand(s))) % 4];
	double run = est * (0.05 + 1.25 * _uniform(s));
	unsigned r = (unsigned) (_rand(s) % 100);

	if (r < 10)
		group = (group + 1) % GROUPS;
	else if (r < 13)
		user = -1;
	else if (r < 16)
		group = -1;
	ck_assert_int_gt(libra_predict_format_line(buf, len, user, group,
						   run, est, 1e9 + i), 0);
	if (!bad || (r = (unsigned) (_rand(s) % 100)) >= 6)
		return;
	if (r < 3)	/* torn: a prefix, without its newline */
		buf[_rand(s) % (strlen(buf) - 1)] = '\0';
	else if (r < 4)
		snprintf(buf, len, "%d %d 0 60 %d\n", (int) user, 1, i);
	else if (r < 5)
		snprintf(buf, len, "3 1 -5 60 %d\n", i);
	else
		snprintf(buf, len, "-1 -1 5 60 %d\n", i);
}

/* n lines of seed's history (malloc'd, each of 128 bytes). */
static char (*_lines(uint64_t seed, int n, bool bad))[128]
{
	char (*l)[128] = malloc((size_t) n * sizeof(*l));

	ck_assert_ptr_nonnull(l);
	for (int i = 0; i < n; i++)
		_line(&seed, i, bad, l[i], sizeof(l[i]));
	return l;
}

/* Which of the n lines the predictor needs (malloc'd); *kept: how many. */
static bool *_needed(char (*l)[128], int n, int *kept)
{
	libra_predictor_t *scratch = libra_predictor_create(
		LIBRA_PREDICT_RATIO, 1);
	bool *need = calloc((size_t) n, sizeof(*need));

	ck_assert_ptr_nonnull(need);
	for (int i = 0; i < n; i++)
		libra_predictor_record_line(scratch, l[i]);
	*kept = 0;
	for (int i = 0; i < n; i++)
		*kept += need[i] = libra_predictor_needs_line(scratch, l[i]);
	libra_predictor_destroy(scratch);
	return need;
}

/* A predictor filled with the lines of l that need[] says (all: NULL). */
static libra_predictor_t *_fill(libra_predict_method_t m, int min,
				char (*l)[128], int n, const bool *need)
{
	libra_predictor_t *p = libra_predictor_create(m, min);

	ck_assert_ptr_nonnull(p);
	for (int i = 0; i < n; i++)
		if (!need || need[i])
			libra_predictor_record_line(p, l[i]);
	return p;
}

/*
 * Every key's predictions compared bit for bit: users -1 .. USERS with
 * their group, another and none, each estimate and one never declared,
 * at several quantiles, caps and amounts of work done.  Returns the
 * number of (user, group) keys that predict alike in all; asserts all do.
 */
static int _same(const libra_predictor_t *a, const libra_predictor_t *b)
{
	static const double qs[] = { 0.5, 0.9, 0.98, 1.0 }, dones[] = { 0, 45 };
	int keys = 0, same = 0;

	for (int64_t u = -1; u <= USERS; u++) {
		int64_t gs[] = { u < 0 ? 0 : u % GROUPS,
				 u < 0 ? 1 : (u + 1) % GROUPS, -1 };

		for (int g = 0; g < 3; g++) {
			bool alike = true;

			for (int e = 0; e <= 4; e++) {
				double est = e < 4 ? estimates[e] : 999;

				for (int q = 0; q < 4; q++)
				for (int d = 0; d < 2; d++)
				for (int c = 1; c <= 2; c++) {
					libra_prediction_t x, y;

					libra_predict(a, u, gs[g], est, c * est,
						      qs[q], dones[d], &x);
					libra_predict(b, u, gs[g], est, c * est,
						      qs[q], dones[d], &y);
					alike &= !memcmp(&x, &y, sizeof(x));
				}
			}
			keys++;
			same += alike;
		}
	}
	ck_assert_int_eq(same, keys);
	return same;
}

START_TEST(test_compacted_lines_predict_as_every_line)
{
	static const libra_predict_method_t ms[] = {
		LIBRA_PREDICT_LAST2, LIBRA_PREDICT_RATIO, LIBRA_PREDICT_RUNTIME
	};
	/* 3000 lines over 30 users, 5 groups, up to 120 classes: most keys
	 * have more than 32 jobs, some fewer */
	const int n = 3000;

	for (uint64_t seed = 1; seed <= 5; seed++) {
		char (*l)[128] = _lines(seed, n, true);
		char (*more)[128] = _lines(seed + 100, 200, false);
		int kept;
		bool *need = _needed(l, n, &kept);

		ck_assert_int_lt(kept, n / 2);
		for (int m = 0; m < 3; m++)
		for (int min = 1; min <= 8; min += 7) {
			libra_predictor_t *all = _fill(ms[m], min, l, n, NULL);
			libra_predictor_t *some = _fill(ms[m], min, l, n, need);

			_same(all, some);
			/* and after the same jobs are added to both */
			for (int i = 0; i < 200; i++) {
				libra_predictor_record_line(all, more[i]);
				libra_predictor_record_line(some, more[i]);
				if (i % 100 == 99)
					_same(all, some);
			}
			libra_predictor_destroy(all);
			libra_predictor_destroy(some);
		}
		free(need);
		free(more);
		free(l);
	}
}
END_TEST

START_TEST(test_compaction_keeps_the_last_depth_jobs_of_a_key)
{
	/* one user, one group, one estimate: the last 32 of 100 */
	char l[100][128];
	int kept;
	bool *need;

	for (int i = 0; i < 100; i++)
		libra_predict_format_line(l[i], sizeof(l[i]), 1, 10, i + 1, 600,
					  i);
	need = _needed(l, 100, &kept);
	ck_assert_int_eq(kept, LIBRA_PREDICT_DEPTH);
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(need[i], i >= 100 - LIBRA_PREDICT_DEPTH);
	free(need);
}
END_TEST

START_TEST(test_compaction_keeps_a_line_another_key_still_holds)
{
	/* user 1 declared 120 s once, then 60 s forty times: its user key
	 * holds the last 32 only, but its 120 s class holds the first line,
	 * which stays; lines 1..8 (the first 8 of the 60 s class) go */
	char l[41][128];
	int kept;
	bool *need;

	libra_predict_format_line(l[0], sizeof(l[0]), 1, 10, 100, 120, 0);
	for (int i = 1; i <= 40; i++)
		libra_predict_format_line(l[i], sizeof(l[i]), 1, 10, i, 60, i);
	need = _needed(l, 41, &kept);
	ck_assert_int_eq(kept, 33);
	ck_assert(need[0]);
	for (int i = 1; i <= 40; i++)
		ck_assert_int_eq(need[i], i > 8);
	free(need);
}
END_TEST

START_TEST(test_compaction_drops_what_the_reader_skips)
{
	const int n = 3000;
	char (*l)[128] = _lines(7, n, true);
	libra_predictor_t *p = libra_predictor_create(LIBRA_PREDICT_RATIO, 1);
	int kept, skipped = 0;
	bool *need = _needed(l, n, &kept);

	/* whatever the reader skips, compaction drops */
	for (int i = 0; i < n; i++) {
		if (libra_predictor_record_line(p, l[i])) {
			ck_assert(!need[i]);
			skipped++;
		}
	}
	ck_assert_int_gt(skipped, 50);
	ck_assert_int_eq(libra_predictor_needs_line(p, "-1 -1 5 60 1\n"), 0);
	ck_assert_int_eq(libra_predictor_needs_line(p, "1 10 0 60 1\n"), 0);
	ck_assert_int_eq(libra_predictor_needs_line(p, "1 10 5 60\n"), 0);
	ck_assert_int_eq(libra_predictor_needs_line(p, ""), 0);
	ck_assert_int_eq(libra_predictor_needs_line(NULL, "1 10 5 60 1\n"), 0);
	/* a key it never recorded keeps the line */
	ck_assert_int_eq(libra_predictor_needs_line(p, "99 99 5 60 1\n"), 1);
	libra_predictor_destroy(p);
	free(need);
	free(l);
}
END_TEST

/* ---- the file ------------------------------------------------------------ */

static char dir[64], path[96], tmp[112];

/* A line of 33 bytes. */
static const char LINE[] = "1 10 5.000000 60.000000 1.000000\n";
#define LINE_LEN (sizeof(LINE) - 1)

static void _setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/libra-history-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/libra_history", dir);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
}

static void _teardown(void)
{
	unlink(path);
	rmdir(tmp);
	unlink(tmp);
	rmdir(dir);
}

/* The file's length. */
static off_t _size(const char *p)
{
	struct stat sb;

	return stat(p, &sb) ? -1 : sb.st_size;
}

/* A predictor filled from the file; *skipped: its lines that do not read. */
static libra_predictor_t *_load(libra_predict_method_t m, uint64_t *read,
				uint64_t *skipped)
{
	libra_predictor_t *p = libra_predictor_create(m, 1);

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(libra_history_load(path, p, read, skipped), 0);
	return p;
}

/* The file reads as that many lines recorded and skipped. */
static void _reads_as(uint64_t read, uint64_t skipped)
{
	uint64_t r, k;
	libra_predictor_t *p = _load(LIBRA_PREDICT_RATIO, &r, &k);

	ck_assert_int_eq(r, read);
	ck_assert_int_eq(k, skipped);
	libra_predictor_destroy(p);
}

static void _write_raw(const char *text)
{
	FILE *f = fopen(path, "a");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_append_creates_the_file)
{
	libra_history_t *h = libra_history_create(path, 0);
	libra_predictor_t *p = libra_predictor_create(LIBRA_PREDICT_RATIO, 1);
	struct stat sb;
	uint64_t read, skipped;

	ck_assert_str_eq(libra_history_path(h), path);
	ck_assert_int_eq(libra_history_append(h, LINE, LINE_LEN), 0);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	_reads_as(1, 0);
	errno = 0;
	ck_assert_int_eq(libra_history_load(tmp, p, &read, &skipped), -1);
	ck_assert_int_eq(errno, ENOENT);
	libra_predictor_destroy(p);
	libra_history_destroy(h);
}
END_TEST

START_TEST(test_append_ends_a_torn_line_first)
{
	/* a crash tore the last line: the next append ends it, so only the
	 * torn line is skipped, not the one appended after it */
	libra_history_t *h = libra_history_create(path, 0);

	_write_raw(LINE);
	_write_raw("2 10 7.0");
	ck_assert_int_eq(libra_history_append(h, LINE, LINE_LEN), 0);
	ck_assert_int_eq(_size(path), LINE_LEN + 8 + 1 + LINE_LEN);
	_reads_as(2, 1);
	libra_history_destroy(h);
}
END_TEST

START_TEST(test_append_answers_due_past_twice_the_compacted_length)
{
	/* slack 1000 bytes, nothing compacted yet: due past 1000 bytes;
	 * 33-byte lines: the 31st (1023 bytes) */
	libra_history_t *h = libra_history_create(path, 1000);
	libra_history_stats_t st;
	int i, rc;

	for (i = 1; (rc = libra_history_append(h, LINE, LINE_LEN)) == 0; i++)
		;
	ck_assert_int_eq(rc, 1);
	ck_assert_int_eq(i, 31);
	/* not again until it is compacted */
	for (int k = 0; k < 100; k++)
		ck_assert_int_eq(libra_history_append(h, LINE, LINE_LEN), 0);
	ck_assert_int_eq(libra_history_compact(h, &st), 0);
	/* one key: 32 lines of 33 bytes; due again past 2 * 1056 + 1000 */
	ck_assert_int_eq(st.lines, 131);
	ck_assert_int_eq(st.kept, 32);
	ck_assert_int_eq(st.before, 131 * 33);
	ck_assert_int_eq(st.after, 32 * 33);
	ck_assert_int_eq(_size(path), 32 * 33);
	for (i = 33; (rc = libra_history_append(h, LINE, LINE_LEN)) == 0; i++)
		;
	ck_assert_int_eq(i, (2 * 1056 + 1000) / 33 + 1);
	libra_history_destroy(h);
}
END_TEST

START_TEST(test_compacted_file_predicts_as_the_full_file)
{
	const int n = 5000;
	char (*l)[128] = _lines(3, n, true);
	libra_history_t *h = libra_history_create(path, 0);
	libra_predictor_t *all, *some;
	libra_history_stats_t st;
	uint64_t read, skipped;
	off_t full;

	for (int i = 0; i < n; i++) {
		/* a torn line as a crash leaves it, then ended by the
		 * next append */
		if (!strchr(l[i], '\n')) {
			_write_raw(l[i]);
		} else {
			ck_assert_int_ge(libra_history_append(h, l[i],
							      strlen(l[i])),
					 0);
		}
	}
	full = _size(path);
	all = _load(LIBRA_PREDICT_RATIO, &read, &skipped);
	ck_assert_int_gt(skipped, 0);

	ck_assert_int_eq(libra_history_compact(h, &st), 0);
	/* torn lines one after the other, or last, are one line */
	ck_assert_int_eq(st.lines, read + skipped);
	ck_assert_int_eq(st.skipped, skipped);
	ck_assert_int_eq(st.before, full);
	ck_assert_int_eq(st.after, _size(path));
	ck_assert_int_lt(st.after, full / 2);
	ck_assert_int_eq(st.appended, 0);
	some = _load(LIBRA_PREDICT_RATIO, &read, &skipped);
	ck_assert_int_eq(read, st.kept);
	ck_assert_int_eq(skipped, 0);
	_same(all, some);
	libra_predictor_destroy(some);

	/* compacting it again keeps every line */
	ck_assert_int_eq(libra_history_compact(h, &st), 0);
	ck_assert_int_eq(st.kept, st.lines);
	ck_assert_int_eq(st.after, st.before);
	some = _load(LIBRA_PREDICT_RATIO, &read, &skipped);
	_same(all, some);
	libra_predictor_destroy(some);
	libra_predictor_destroy(all);
	libra_history_destroy(h);
	free(l);
}
END_TEST

START_TEST(test_compaction_without_a_file_does_nothing)
{
	libra_history_t *h = libra_history_create(path, 0);
	libra_history_stats_t st;

	ck_assert_int_eq(libra_history_compact(h, &st), 0);
	ck_assert_int_eq(st.lines, 0);
	ck_assert_int_eq(_size(path), -1);
	libra_history_destroy(h);
}
END_TEST

START_TEST(test_failed_compaction_leaves_the_file)
{
	/* the new file cannot be made (its name is a directory): the file
	 * stays byte for byte; a stale new file of a crash is replaced */
	libra_history_t *h = libra_history_create(path, 0);
	libra_history_stats_t st;
	FILE *f;

	for (int i = 0; i < 100; i++)
		libra_history_append(h, LINE, LINE_LEN);
	ck_assert_int_eq(mkdir(tmp, 0700), 0);
	errno = 0;
	ck_assert_int_eq(libra_history_compact(h, &st), -1);
	ck_assert_int_eq(errno, EISDIR);
	ck_assert_int_eq(_size(path), 100 * 33);
	ck_assert_int_eq(rmdir(tmp), 0);

	ck_assert_ptr_nonnull(f = fopen(tmp, "w"));
	fputs("stale, from a crash\n", f);
	fclose(f);
	ck_assert_int_eq(libra_history_compact(h, &st), 0);
	ck_assert_int_eq(_size(path), 32 * 33);
	ck_assert_int_eq(_size(tmp), -1);
	libra_history_destroy(h);
}
END_TEST

typedef struct {
	libra_history_t *h;
	char (*l)[128];
	int n;
	int failed;		/* appends that failed */
	volatile bool done;
} writer_t;

static void *_writer(void *arg)
{
	writer_t *w = arg;

	for (int i = 0; i < w->n; i++)
		w->failed += libra_history_append(w->h, w->l[i],
						  strlen(w->l[i])) < 0;
	w->done = true;
	return NULL;
}

START_TEST(test_lines_appended_during_a_compaction_are_kept)
{
	/* compactions one after the other while a thread appends */
	writer_t w = { .n = 20000 };
	libra_predictor_t *all, *some;
	libra_history_stats_t st;
	uint64_t read, skipped;
	pthread_t tid;

	w.h = libra_history_create(path, 0);
	w.l = _lines(11, w.n, false);
	all = _fill(LIBRA_PREDICT_RUNTIME, 1, w.l, w.n, NULL);
	ck_assert_int_eq(pthread_create(&tid, NULL, _writer, &w), 0);
	while (!w.done)
		ck_assert_int_eq(libra_history_compact(w.h, &st), 0);
	pthread_join(tid, NULL);
	ck_assert_int_eq(w.failed, 0);
	ck_assert_int_eq(libra_history_compact(w.h, &st), 0);
	some = _load(LIBRA_PREDICT_RUNTIME, &read, &skipped);
	ck_assert_int_eq(skipped, 0);
	_same(all, some);
	libra_predictor_destroy(some);
	libra_predictor_destroy(all);
	libra_history_destroy(w.h);
	free(w.l);
}
END_TEST

typedef struct {
	libra_history_t *h;
	libra_history_stats_t st;
	int rc;
} compactor_t;

static void *_compactor(void *arg)
{
	compactor_t *c = arg;

	c->rc = libra_history_compact(c->h, &c->st);
	return NULL;
}

START_TEST(test_torn_last_line_then_an_append_during_a_compaction)
{
	/* the file ends with a torn line when a compaction begins; a line
	 * appended meanwhile starts with the newline that ends it, which
	 * the new file, whose lines all end with one, does not repeat */
	const int n = 40000;
	char (*l)[128] = _lines(5, n, false);
	const char *line = "2 10 5.000000 60.000000 1.000000\n";
	compactor_t c = { .h = libra_history_create(path, 0) };
	libra_predictor_t *all, *some;
	uint64_t read, skipped;
	struct timespec nap = { 0, 100000 };
	pthread_t tid;
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < n; i++)
		fputs(l[i], f);
	fputs("3 10 7.0", f);
	fclose(f);
	all = _fill(LIBRA_PREDICT_RUNTIME, 1, l, n, NULL);
	libra_predictor_record_line(all, line);

	ck_assert_int_eq(pthread_create(&tid, NULL, _compactor, &c), 0);
	/* its new file exists: it has noted the length it reads */
	for (int k = 0; _size(tmp) < 0 && k < 100000; k++)
		nanosleep(&nap, NULL);
	ck_assert_int_eq(libra_history_append(c.h, line, strlen(line)), 0);
	pthread_join(tid, NULL);
	ck_assert_int_eq(c.rc, 0);
	ck_assert_int_eq(c.st.appended, strlen(line));
	ck_assert_int_eq(c.st.skipped, 1);
	some = _load(LIBRA_PREDICT_RUNTIME, &read, &skipped);
	ck_assert_int_eq(read, c.st.kept + 1);
	ck_assert_int_eq(skipped, 0);
	_same(all, some);
	libra_predictor_destroy(some);
	libra_predictor_destroy(all);
	libra_history_destroy(c.h);
	free(l);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("history");
	TCase *tc = tcase_create("compaction");

	T(tc, test_compacted_lines_predict_as_every_line);
	T(tc, test_compaction_keeps_the_last_depth_jobs_of_a_key);
	T(tc, test_compaction_keeps_a_line_another_key_still_holds);
	T(tc, test_compaction_drops_what_the_reader_skips);
	suite_add_tcase(s, tc);

	tc = tcase_create("file");
	tcase_add_checked_fixture(tc, _setup, _teardown);
	T(tc, test_append_creates_the_file);
	T(tc, test_append_ends_a_torn_line_first);
	T(tc, test_append_answers_due_past_twice_the_compacted_length);
	T(tc, test_compacted_file_predicts_as_the_full_file);
	T(tc, test_compaction_without_a_file_does_nothing);
	T(tc, test_failed_compaction_leaves_the_file);
	T(tc, test_lines_appended_during_a_compaction_are_kept);
	T(tc, test_torn_last_line_then_an_append_during_a_compaction);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
