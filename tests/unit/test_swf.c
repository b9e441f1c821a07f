/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_swf.c - the Standard Workload Format reader (swf.h), plain and gzip.
\*****************************************************************************/

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "swf.h"
#include "testutil.h"

static char err[512];
static char path[64];

static const char trace[] =
	"; Version: 2.2\n"
	"; Computer: test machine\n"
	"; MaxNodes: 64\n"
	"; MaxProcs: 128\n"
	";\n"
	"1 0 10 3600 16 -1 -1 16 7200 -1 1 3 1 -1 1 -1 -1 -1\n"
	"2 60 0 120.5 1 100 2048 1 300 -1 1 4 2 7 1 1 1 0\n"
	"\n"
	"; a comment in the middle\n"
	"  3   90\t5   0  4 -1 -1 4 600 -1 5 3 1 -1 1 -1 -1 -1  \n";

/* Write text to a fresh temporary file, gzip'd or not. */
static const char *_write(const char *text, bool gz)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/libra-swf-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	if (gz) {
		gzFile g = gzdopen(fd, "wb");

		ck_assert_ptr_nonnull(g);
		ck_assert_int_eq(gzwrite(g, text, (unsigned) strlen(text)),
				 (int) strlen(text));
		ck_assert_int_eq(gzclose(g), Z_OK);
	} else {
		ck_assert_int_eq(write(fd, text, strlen(text)),
				 (ssize_t) strlen(text));
		close(fd);
	}
	return path;
}

static void _check_trace(const libra_swf_t *swf)
{
	ck_assert_uint_eq(swf->njobs, 3);
	ck_assert_int_eq(swf->max_procs, 128);
	ck_assert_int_eq(swf->max_nodes, 64);

	ck_assert_int_eq(swf->jobs[0].id, 1);
	ck_assert_double_eq_tol(swf->jobs[0].submit, 0, TOL);
	ck_assert_double_eq_tol(swf->jobs[0].wait, 10, TOL);
	ck_assert_double_eq_tol(swf->jobs[0].run, 3600, TOL);
	ck_assert_int_eq(swf->jobs[0].procs, 16);
	ck_assert_double_eq_tol(swf->jobs[0].avg_cpu, -1, TOL);
	ck_assert_int_eq(swf->jobs[0].req_procs, 16);
	ck_assert_double_eq_tol(swf->jobs[0].req_time, 7200, TOL);
	ck_assert_int_eq(swf->jobs[0].status, 1);
	ck_assert_int_eq(swf->jobs[0].user, 3);
	ck_assert_int_eq(swf->jobs[0].preceding, -1);

	ck_assert_int_eq(swf->jobs[1].id, 2);
	ck_assert_double_eq_tol(swf->jobs[1].submit, 60, TOL);
	ck_assert_double_eq_tol(swf->jobs[1].run, 120.5, TOL);
	ck_assert_double_eq_tol(swf->jobs[1].avg_cpu, 100, TOL);
	ck_assert_double_eq_tol(swf->jobs[1].used_mem, 2048, TOL);
	ck_assert_double_eq_tol(swf->jobs[1].req_time, 300, TOL);
	ck_assert_int_eq(swf->jobs[1].user, 4);
	ck_assert_int_eq(swf->jobs[1].group, 2);
	ck_assert_int_eq(swf->jobs[1].app, 7);
	ck_assert_int_eq(swf->jobs[1].queue, 1);
	ck_assert_int_eq(swf->jobs[1].partition, 1);
	ck_assert_int_eq(swf->jobs[1].preceding, 1);
	ck_assert_double_eq_tol(swf->jobs[1].think, 0, TOL);

	ck_assert_int_eq(swf->jobs[2].id, 3);
	ck_assert_double_eq_tol(swf->jobs[2].submit, 90, TOL);
	ck_assert_double_eq_tol(swf->jobs[2].run, 0, TOL);
	ck_assert_int_eq(swf->jobs[2].procs, 4);
	ck_assert_int_eq(swf->jobs[2].status, 5);
}

START_TEST(test_plain_trace_is_read)
{
	libra_swf_t swf;

	ck_assert_msg(libra_swf_read(_write(trace, false), &swf, err,
				     sizeof(err)) == 0, "%s", err);
	_check_trace(&swf);
	libra_swf_free(&swf);
	unlink(path);
}
END_TEST

START_TEST(test_gzip_trace_is_read)
{
	libra_swf_t swf;

	ck_assert_msg(libra_swf_read(_write(trace, true), &swf, err,
				     sizeof(err)) == 0, "%s", err);
	_check_trace(&swf);
	libra_swf_free(&swf);
	unlink(path);
}
END_TEST

START_TEST(test_header_without_maxprocs_gives_zero)
{
	libra_swf_t swf;

	ck_assert_int_eq(libra_swf_read(_write(
		"1 0 10 3600 16 -1 -1 16 7200 -1 1 3 1 -1 1 -1 -1 -1\n",
		false), &swf, err, sizeof(err)), 0);
	ck_assert_uint_eq(swf.njobs, 1);
	ck_assert_int_eq(swf.max_procs, 0);
	ck_assert_int_eq(swf.max_nodes, 0);
	libra_swf_free(&swf);
	unlink(path);
}
END_TEST

START_TEST(test_empty_trace_has_no_jobs)
{
	libra_swf_t swf;

	ck_assert_int_eq(libra_swf_read(_write("; MaxProcs: 8\n", false), &swf,
					err, sizeof(err)), 0);
	ck_assert_uint_eq(swf.njobs, 0);
	ck_assert_int_eq(swf.max_procs, 8);
	libra_swf_free(&swf);
	unlink(path);
}
END_TEST

START_TEST(test_last_line_without_newline_is_read)
{
	libra_swf_t swf;

	ck_assert_int_eq(libra_swf_read(_write(
		"1 0 10 3600 16 -1 -1 16 7200 -1 1 3 1 -1 1 -1 -1 -1", false),
		&swf, err, sizeof(err)), 0);
	ck_assert_uint_eq(swf.njobs, 1);
	libra_swf_free(&swf);
	unlink(path);
}
END_TEST

START_TEST(test_many_jobs_are_read)
{
	/* 5000 lines, the size of the thesis' trace */
	size_t n = 5000;
	char *text = malloc(n * 64);
	char *p = text;
	libra_swf_t swf;

	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%zu %zu 0 60 1 -1 -1 1 60 -1 1 1 1 -1 1 -1 -1 "
			     "-1\n", i + 1, i * 10);
	ck_assert_int_eq(libra_swf_read(_write(text, true), &swf, err,
					sizeof(err)), 0);
	ck_assert_uint_eq(swf.njobs, n);
	ck_assert_int_eq(swf.jobs[n - 1].id, (long) n);
	ck_assert_double_eq_tol(swf.jobs[n - 1].submit, (n - 1) * 10.0, TOL);
	libra_swf_free(&swf);
	unlink(path);
	free(text);
}
END_TEST

static void _malformed(const char *text, bool gz, const char *line)
{
	libra_swf_t swf;
	const char *file = _write(text, gz);

	err[0] = '\0';
	ck_assert_int_eq(libra_swf_read(file, &swf, err, sizeof(err)), -1);
	ck_assert_names(err, file);
	ck_assert_names(err, line);
	unlink(path);
}

START_TEST(test_short_line_is_reported_with_line_number)
{
	/* line 4 has 17 fields */
	_malformed("; MaxProcs: 4\n"
		   "1 0 10 3600 1 -1 -1 1 7200 -1 1 3 1 -1 1 -1 -1 -1\n"
		   "2 0 10 3600 1 -1 -1 1 7200 -1 1 3 1 -1 1 -1 -1 -1\n"
		   "3 0 10 3600 1 -1 -1 1 7200 -1 1 3 1 -1 1 -1 -1\n",
		   false, ":4");
}
END_TEST

START_TEST(test_long_line_is_reported_with_line_number)
{
	/* line 2 has 19 fields */
	_malformed("1 0 10 3600 1 -1 -1 1 7200 -1 1 3 1 -1 1 -1 -1 -1\n"
		   "2 0 10 3600 1 -1 -1 1 7200 -1 1 3 1 -1 1 -1 -1 -1 9\n",
		   true, ":2");
}
END_TEST

START_TEST(test_non_numeric_field_is_reported_with_line_number)
{
	/* line 3: "abc" for the run time */
	_malformed("; header\n"
		   "1 0 10 3600 1 -1 -1 1 7200 -1 1 3 1 -1 1 -1 -1 -1\n"
		   "2 0 10 abc 1 -1 -1 1 7200 -1 1 3 1 -1 1 -1 -1 -1\n",
		   false, ":3");
	_malformed("1 0 10 36x0 1 -1 -1 1 7200 -1 1 3 1 -1 1 -1 -1 -1\n",
		   true, ":1");
}
END_TEST

START_TEST(test_missing_file_is_reported)
{
	libra_swf_t swf;

	ck_assert_int_eq(libra_swf_read("/nonexistent/trace.swf.gz", &swf, err,
					sizeof(err)), -1);
	ck_assert_names(err, "/nonexistent/trace.swf.gz");
}
END_TEST

START_TEST(test_corrupt_gzip_is_reported)
{
	/* a gzip header followed by garbage */
	libra_swf_t swf;
	static const char bad[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
				  "garbage garbage garbage";
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/libra-swf-XXXXXX");
	close(mkstemp(path));
	f = fopen(path, "wb");
	fwrite(bad, 1, sizeof(bad) - 1, f);
	fclose(f);
	ck_assert_int_eq(libra_swf_read(path, &swf, err, sizeof(err)), -1);
	ck_assert_names(err, path);
	unlink(path);
}
END_TEST

START_TEST(test_free_of_failed_read_is_safe)
{
	libra_swf_t swf;

	memset(&swf, 0, sizeof(swf));
	ck_assert_int_eq(libra_swf_read("/nonexistent", &swf, err,
					sizeof(err)), -1);
	libra_swf_free(&swf);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("swf");
	TCase *tc;

	tc = tcase_create("read");
	T(tc, test_plain_trace_is_read);
	T(tc, test_gzip_trace_is_read);
	T(tc, test_header_without_maxprocs_gives_zero);
	T(tc, test_empty_trace_has_no_jobs);
	T(tc, test_last_line_without_newline_is_read);
	T(tc, test_many_jobs_are_read);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	T(tc, test_short_line_is_reported_with_line_number);
	T(tc, test_long_line_is_reported_with_line_number);
	T(tc, test_non_numeric_field_is_reported_with_line_number);
	T(tc, test_missing_file_is_reported);
	T(tc, test_corrupt_gzip_is_reported);
	T(tc, test_free_of_failed_read_is_safe);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
