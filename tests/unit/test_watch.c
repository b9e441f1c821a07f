/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_watch.c - what a provider watches (watch.h, doc/design.md decision
 *  44): the counters per partition and account, the nodes at a look (the
 *  reference price is what admission would charge the reference job on
 *  that node alone), and the page in Prometheus' text format.
 *
 *  The fixture: admit_fixture.h (now = 0, PBase 1 per CPU-second).
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "admit_fixture.h"
#include "ledger.h"
#include "watch.h"
#include "testutil.h"

/* Is line (a whole line) on the page? */
static void _has_line(const char *page, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = page; (p = strstr(p, line)); p++)
		if ((p == page || p[-1] == '\n') && p[n] == '\n')
			return;
	ck_abort_msg("no line \"%s\" in:\n%.2000s", line, page);
}

static void _no_text(const char *page, const char *text)
{
	ck_assert_msg(!strstr(page, text), "\"%s\" should not be in:\n%s",
		      text, page);
}

/*
 * Every line is a comment (# HELP name text, # TYPE name type) or a sample
 * name{labels} value, each family's HELP and TYPE once and before its
 * samples, names libra_[a-z_]+, values numbers: what a scrape accepts.
 */
static void _well_formed(const char *page)
{
	char *copy = strdup(page), *save = NULL, *line;
	char typed[64][80];
	int ntyped = 0;

	ck_assert_ptr_nonnull(copy);
	ck_assert_msg(page[strlen(page) - 1] == '\n', "the page ends a line");
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[80], *end;
		const char *v;
		size_t k;

		if (!strncmp(line, "# HELP ", 7))
			continue;
		if (!strncmp(line, "# TYPE ", 7)) {
			ck_assert_int_eq(sscanf(line + 7, "%79s", name), 1);
			for (int i = 0; i < ntyped; i++)
				ck_assert_msg(strcmp(typed[i], name),
					      "%s typed twice", name);
			ck_assert_int_lt(ntyped, 64);
			strcpy(typed[ntyped++], name);
			ck_assert_msg(strstr(line, " counter") ||
				      strstr(line, " gauge"), "%s", line);
			if (strstr(line, " counter"))
				ck_assert_msg(strstr(name, "_total"),
					      "counter %s without _total",
					      name);
			continue;
		}
		k = strspn(line, "abcdefghijklmnopqrstuvwxyz_");
		ck_assert_msg(k > 6 && !strncmp(line, "libra_", 6),
			      "bad name in \"%s\"", line);
		ck_assert_msg(ntyped > 0 && !strncmp(line, typed[ntyped - 1],
						     k) &&
			      strlen(typed[ntyped - 1]) == k,
			      "\"%s\" is not of the family typed last", line);
		v = strrchr(line, ' ');
		ck_assert_ptr_nonnull(v);
		strtod(v + 1, &end);
		ck_assert_msg(*end == '\0' && end != v + 1,
			      "no number at the end of \"%s\"", line);
	}
	free(copy);
}

START_TEST(test_counters_by_partition_and_account)
{
	libra_watch_t *w = libra_watch_create(1795000000.0);
	char *page;

	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(libra_watch_admitted(w, "batch", "phys"), 0);
	ck_assert_int_eq(libra_watch_admitted(w, "batch", "phys"), 0);
	ck_assert_int_eq(libra_watch_admitted(w, "batch", "chem"), 0);
	ck_assert_int_eq(libra_watch_refused(w, "batch", "phys", "budget"), 0);
	ck_assert_int_eq(libra_watch_refused(w, "batch", "phys", "budget"), 0);
	ck_assert_int_eq(libra_watch_refused(w, "batch", "phys", "deadline"),
			 0);
	ck_assert_int_eq(libra_watch_refused(w, NULL, "", "invalid"), 0);
	/* met: 12.5 charged; missed: 3 charged after a 2 penalty */
	ck_assert_int_eq(libra_watch_settled(w, "batch", "phys",
					     LIBRA_WATCH_MET, 12.5, 0.0), 0);
	ck_assert_int_eq(libra_watch_settled(w, "batch", "phys",
					     LIBRA_WATCH_MISSED, 3.0, 2.0), 0);
	/* a best-effort job's charge: revenue, no deadline */
	ck_assert_int_eq(libra_watch_settled(w, "batch", "chem",
					     LIBRA_WATCH_BEST_EFFORT, 0.25,
					     0.0), 0);
	page = libra_watch_text(w, NULL, 0, NULL);
	ck_assert_ptr_nonnull(page);
	_well_formed(page);
	_has_line(page, "libra_start_time_seconds 1795000000");
	_has_line(page, "# TYPE libra_admissions_total counter");
	_has_line(page, "libra_admissions_total{partition=\"batch\",account=\"phys\"} 2");
	_has_line(page, "libra_admissions_total{partition=\"batch\",account=\"chem\"} 1");
	_has_line(page, "libra_admissions_total{partition=\"(none)\",account=\"(none)\"} 0");
	_has_line(page, "libra_refusals_total{partition=\"batch\",account=\"phys\",reason=\"budget\"} 2");
	_has_line(page, "libra_refusals_total{partition=\"batch\",account=\"phys\",reason=\"deadline\"} 1");
	_has_line(page, "libra_refusals_total{partition=\"(none)\",account=\"(none)\",reason=\"invalid\"} 1");
	_has_line(page, "libra_deadlines_met_total{partition=\"batch\",account=\"phys\"} 1");
	_has_line(page, "libra_deadlines_missed_total{partition=\"batch\",account=\"phys\"} 1");
	_has_line(page, "libra_deadlines_met_total{partition=\"batch\",account=\"chem\"} 0");
	/* revenue = charge + penalty: 12.5 + 5; penalties 2 */
	_has_line(page, "libra_revenue_total{partition=\"batch\",account=\"phys\"} 17.5");
	_has_line(page, "libra_penalties_total{partition=\"batch\",account=\"phys\"} 2");
	_has_line(page, "libra_revenue_total{partition=\"batch\",account=\"chem\"} 0.25");
	free(page);
	libra_watch_destroy(w);
}
END_TEST

START_TEST(test_money_reads_back_exactly)
{
	libra_watch_t *w = libra_watch_create(0.0);
	char *page, *p;

	libra_watch_settled(w, "p", "a", LIBRA_WATCH_MET, 0.1, 0.0);
	libra_watch_settled(w, "p", "a", LIBRA_WATCH_MET, 0.2, 0.0);
	page = libra_watch_text(w, NULL, 0, NULL);
	p = strstr(page, "libra_revenue_total{partition=\"p\",account=\"a\"} ");
	ck_assert_ptr_nonnull(p);
	/* 0.1 + 0.2 is 0.30000000000000004: every digit it needs */
	ck_assert_double_eq(strtod(strchr(p, '}') + 2, NULL), 0.1 + 0.2);
	free(page);
	libra_watch_destroy(w);
}
END_TEST

START_TEST(test_label_values_are_escaped)
{
	libra_watch_t *w = libra_watch_create(0.0);
	char *page;

	libra_watch_admitted(w, "a\"b", "c\\d\ne");
	page = libra_watch_text(w, NULL, 0, NULL);
	_has_line(page, "libra_admissions_total{partition=\"a\\\"b\",account=\"c\\\\d\\ne\"} 1");
	_well_formed(page);
	free(page);
	libra_watch_destroy(w);
}
END_TEST

START_TEST(test_rows_are_bounded)
{
	libra_watch_t *w = libra_watch_create(0.0);
	char acct[32], *page;
	int lines = 0;

	/* 2000 accounts in one partition, then one in a new partition */
	for (int i = 0; i < 2000; i++) {
		snprintf(acct, sizeof(acct), "a%d", i);
		ck_assert_int_eq(libra_watch_admitted(w, "batch", acct), 0);
	}
	ck_assert_int_eq(libra_watch_admitted(w, "debug", "x"), 0);
	page = libra_watch_text(w, NULL, 0, NULL);
	for (const char *p = page; (p = strstr(p, "\nlibra_admissions_total{"));
	     p++)
		lines++;
	ck_assert_int_le(lines, LIBRA_WATCH_ROWS);
	/* what was not told apart is counted, not lost: 2000 - 1022 in
	 * batch's "(other)" (1022 rows before the last two), the new
	 * partition's in "(other)" twice */
	_has_line(page, "libra_admissions_total{partition=\"batch\",account=\"(other)\"} 978");
	_has_line(page, "libra_admissions_total{partition=\"(other)\",account=\"(other)\"} 1");
	free(page);
	libra_watch_destroy(w);
}
END_TEST

START_TEST(test_a_copy_reads_the_same)
{
	libra_watch_t *w = libra_watch_create(5.0), *c;
	char *a, *b;

	libra_watch_admitted(w, "p", "a");
	libra_watch_refused(w, "p", "b", "deadline");
	libra_watch_settled(w, "q", "a", LIBRA_WATCH_MISSED, 1.0, 0.5);
	c = libra_watch_copy(w);
	ck_assert_ptr_nonnull(c);
	a = libra_watch_text(w, NULL, 0, NULL);
	b = libra_watch_text(c, NULL, 0, NULL);
	ck_assert_str_eq(a, b);
	free(b);
	libra_watch_admitted(w, "p", "a");	/* the copy stays as it was */
	b = libra_watch_text(c, NULL, 0, NULL);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	libra_watch_destroy(c);
	libra_watch_destroy(w);
}
END_TEST

/* What libra_admit() charges the reference job on node alone. */
static double _admitted_price(const libra_ledger_t *l,
			      const libra_params_t *p, int node, double now)
{
	libra_sla_t sla = _sla(LIBRA_REFERENCE_RUNTIME, now,
			       now + LIBRA_REFERENCE_PERIOD, NO_BUDGET);
	bool mask[8] = { false };
	libra_request_t req = { .cpus = 1, .eligible = mask };

	mask[node] = true;
	libra_admit(l, p, &sla, &req, now, &q);
	return q.verdict == LIBRA_ACCEPT ? q.price : NAN;
}

START_TEST(test_reference_price_is_what_admission_charges)
{
	const libra_policy_t policies[] = { LIBRA_POLICY_LIBRA,
					    LIBRA_POLICY_LIBRA_PRICE,
					    LIBRA_POLICY_AUTO,
					    LIBRA_POLICY_FIXED };
	const double speeds[] = { 1.0, 0.5, 2.0 }, factors[] = { 1.0, 2.0, 1.0 };
	libra_ledger_t *l = _nodes(3, 2);
	libra_quote_t *scratch = malloc(sizeof(*scratch));

	ck_assert_int_eq(libra_ledger_set_speeds(l, speeds, 3), 0);
	ck_assert_int_eq(libra_ledger_set_price_factors(l, factors, 3), 0);
	/* node 0 half busy over the window, node 2 a little */
	_commit(l, 1, 3600.0, 7200.0, 0, 2, 0.0);
	_commit(l, 2, 600.0, 7200.0, 2, 1, 0.0);
	for (size_t i = 0; i < sizeof(policies) / sizeof(*policies); i++) {
		libra_params_t p = _params(policies[i]);

		for (int j = 0; j < 3; j++) {
			double want = _admitted_price(l, &p, j, 0.0);
			double got = libra_reference_price(l, &p, j, 0.0,
							   scratch);

			ck_assert_msg(fabs(got - want) <= REL(want),
				      "policy %d node %d: %.17g, admission %.17g",
				      (int) policies[i], j, got, want);
		}
	}
	free(scratch);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_nodes_at_a_look)
{
	const double speeds[] = { 1.0, 0.5 };
	libra_ledger_t *l = _nodes(2, 4);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_quote_t *scratch = malloc(sizeof(*scratch));
	libra_watch_node_t nodes[2];
	libra_watch_sched_t s = { .passes = 7, .pass_cpu_seconds = 0.125,
				  .jobs = 2, .quotes = 1 };
	char *page;

	ck_assert_int_eq(libra_ledger_set_speeds(l, speeds, 2), 0);
	/* node 0: 2 CPUs at share 0.5 (RE 50 by 100) and 1 at 0.25 */
	_commit(l, 1, 50.0, 100.0, 0, 2, 0.0);
	_commit(l, 2, 25.0, 100.0, 0, 1, 0.0);
	libra_ledger_set_node_up(l, 1, false);
	ck_assert_int_eq(libra_watch_nodes(l, &p, 0.0, nodes, scratch), 2);
	ck_assert_str_eq(nodes[0].name, "n0");
	ck_assert_int_eq(nodes[0].cpus, 4);
	ck_assert_double_eq_tol(nodes[0].committed, 1.25, TOL);
	ck_assert_int_eq(nodes[0].jobs, 2);
	ck_assert(nodes[0].up && !nodes[1].up);
	ck_assert_double_eq(nodes[1].speed, 0.5);
	nodes[1].power = "booting";
	page = libra_watch_text(NULL, nodes, 2, &s);
	_well_formed(page);
	_has_line(page, "libra_node_cpus{node=\"n0\"} 4");
	_has_line(page, "libra_node_committed_cpus{node=\"n0\"} 1.25");
	_has_line(page, "libra_node_jobs{node=\"n0\"} 2");
	_has_line(page, "libra_node_jobs{node=\"n1\"} 0");
	_has_line(page, "libra_node_up{node=\"n1\"} 0");
	_has_line(page, "libra_node_speed_ratio{node=\"n1\"} 0.5");
	_has_line(page, "libra_node_power_state{node=\"n1\",state=\"booting\"} 1");
	_has_line(page, "libra_node_power_state{node=\"n1\",state=\"on\"} 0");
	_no_text(page, "libra_node_power_state{node=\"n0\"");
	_has_line(page, "libra_admitted_jobs 2");
	_has_line(page, "libra_quotes_held 1");
	_has_line(page, "libra_scheduler_passes_total 7");
	_has_line(page, "libra_scheduler_pass_cpu_seconds_total 0.125");
	_no_text(page, "libra_admissions_total");
	free(page);
	free(scratch);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_a_node_that_cannot_take_the_reference_job_has_no_price)
{
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_quote_t *scratch = malloc(sizeof(*scratch));
	libra_watch_node_t nodes[2];
	char *page;

	/* node 0 full through the reference window */
	_commit(l, 1, 7200.0, 7200.0, 0, 1, 0.0);
	libra_watch_nodes(l, &p, 0.0, nodes, scratch);
	ck_assert(isnan(nodes[0].reference_price));
	ck_assert(isfinite(nodes[1].reference_price));
	page = libra_watch_text(NULL, nodes, 2, NULL);
	_well_formed(page);
	_no_text(page, "libra_node_reference_price{node=\"n0\"}");
	_no_text(page, "nan");
	_no_text(page, "libra_node_power_state");	/* no power saving */
	free(page);
	free(scratch);
	libra_ledger_destroy(l);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("watch");
	TCase *tc = tcase_create("counters");

	T(tc, test_counters_by_partition_and_account);
	T(tc, test_money_reads_back_exactly);
	T(tc, test_label_values_are_escaped);
	T(tc, test_rows_are_bounded);
	T(tc, test_a_copy_reads_the_same);
	suite_add_tcase(s, tc);
	tc = tcase_create("nodes");
	T(tc, test_reference_price_is_what_admission_charges);
	T(tc, test_nodes_at_a_look);
	T(tc, test_a_node_that_cannot_take_the_reference_job_has_no_price);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
