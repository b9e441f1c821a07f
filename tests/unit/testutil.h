/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  testutil.h - small helpers shared by the Check unit tests.
 *
 *  Every floating-point comparison goes through a tolerance (doc/design.md,
 *  decision 5): TOL for quantities computed exactly by hand, REL() for
 *  quantities whose magnitude makes an absolute tolerance meaningless.
\*****************************************************************************/

#ifndef LIBRA_TESTUTIL_H
#define LIBRA_TESTUTIL_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* Absolute tolerance for hand-computed values of order 1..1e4. */
#define TOL 1e-9

/* A tolerance relative to the magnitude of the expected value. */
#define REL(x) (1e-12 * ((x) < 0 ? -(x) : (x)) + 1e-12)

/* Assert that a message names something (a key, a file, a line). */
#define ck_assert_names(msg, what)					\
	ck_assert_msg(strstr((msg), (what)) != NULL,			\
		      "message \"%s\" does not name \"%s\"", (msg), (what))

/* Run one suite; the exit status is what automake's harness expects. */
static inline int libra_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A libra_place_t of CPUs alone: libra_place_t pl = PLACE(0, 2); */
#define PLACE(n, c) { .node = (n), .cpus = (c) }

/* Add a test to a case: T(tc, test_name). */
#define T(tc, fn) tcase_add_test((tc), (fn))

#endif /* LIBRA_TESTUTIL_H */
