/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_quote.c - binding quotes (quote.h, doc/design.md decision 20): the
 *  book, the "quote" SLA key, the record's quote fields, the parameters,
 *  and the share a quote holds in the ledger.
 *
 *  The ledger case: one node of one CPU; a quote at t = 0 for RE 100 s,
 *  TD 400, held 200 s, is admitted as if it started at 200: share
 *  100 / (400 - 200) = 0.5, not 100 / 400 = 0.25.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "admit.h"
#include "ledger.h"
#include "params.h"
#include "quote.h"
#include "record.h"
#include "share.h"
#include "sla.h"
#include "testutil.h"

static libra_held_quote_t _held(uint32_t uid, uint32_t token, double until)
{
	static libra_place_t pl[2] = { PLACE(0, 2), PLACE(1, 2) };
	libra_held_quote_t h;

	memset(&h, 0, sizeof(h));
	h.uid = uid;
	h.token = token;
	h.issued = 1000.0;
	h.until = until;
	h.price = 12.5;
	h.shape.cpus = 4;
	h.nplace = 2;
	h.place = pl;
	return h;
}

START_TEST(test_book_numbers_are_distinct_and_from_the_clock)
{
	libra_quotes_t *b = libra_quotes_create(1795000000.0);
	libra_held_quote_t h = _held(1001, 0xF0000001u, 1300.0);
	uint32_t a, c;

	ck_assert_ptr_nonnull(b);
	a = libra_quotes_add(b, &h);
	c = libra_quotes_add(b, &h);
	ck_assert_uint_ge(a, 100000);
	ck_assert_uint_le(a, 999999);
	ck_assert_uint_eq(c, a + 1);
	ck_assert_int_eq(libra_quotes_count(b), 2);
	libra_quotes_destroy(b);
}
END_TEST

START_TEST(test_book_copies_the_placement)
{
	libra_quotes_t *b = libra_quotes_create(0.0);
	libra_place_t pl[1] = { PLACE(3, 1) };
	libra_held_quote_t h = _held(1001, 0xF0000001u, 1300.0), *got;
	uint32_t id;

	h.place = pl;
	h.nplace = 1;
	id = libra_quotes_add(b, &h);
	pl[0].node = 7;		/* the caller's array is its own */
	ck_assert_int_eq(libra_quotes_find(b, id, 1001, 1100.0, &got),
			 LIBRA_QUOTE_OK);
	ck_assert_int_eq(got->nplace, 1);
	ck_assert_int_eq(got->place[0].node, 3);
	ck_assert(!got->taken);
	libra_quotes_destroy(b);
}
END_TEST

START_TEST(test_find_says_why_not)
{
	libra_quotes_t *b = libra_quotes_create(0.0);
	libra_held_quote_t h = _held(1001, 0xF0000001u, 1300.0), *got;
	uint32_t id = libra_quotes_add(b, &h);

	ck_assert_int_eq(libra_quotes_find(b, id + 1, 1001, 1100.0, &got),
			 LIBRA_QUOTE_UNKNOWN);
	ck_assert_ptr_null(got);
	ck_assert_int_eq(libra_quotes_find(b, id, 1002, 1100.0, &got),
			 LIBRA_QUOTE_NOT_OWNER);
	/* the hold ends at 1300: taken at 1300 still, not after */
	ck_assert_int_eq(libra_quotes_find(b, id, 1001, 1300.0, &got),
			 LIBRA_QUOTE_OK);
	ck_assert_int_eq(libra_quotes_find(b, id, 1001, 1300.5, &got),
			 LIBRA_QUOTE_EXPIRED);
	ck_assert_ptr_nonnull(got);
	got->taken = true;
	ck_assert_int_eq(libra_quotes_find(b, id, 1001, 1100.0, &got),
			 LIBRA_QUOTE_TAKEN);
	ck_assert_str_eq(libra_quote_status_name(LIBRA_QUOTE_EXPIRED),
			 "expired");
	libra_quotes_destroy(b);
}
END_TEST

START_TEST(test_held_counts_one_users_live_untaken_quotes)
{
	libra_quotes_t *b = libra_quotes_create(0.0);
	libra_held_quote_t h = _held(1001, 0xF0000001u, 1300.0), *got;
	uint32_t id;

	id = libra_quotes_add(b, &h);
	libra_quotes_add(b, &h);
	h.uid = 1002;
	libra_quotes_add(b, &h);
	ck_assert_int_eq(libra_quotes_held(b, 1001, 1100.0), 2);
	ck_assert_int_eq(libra_quotes_held(b, 1002, 1100.0), 1);
	ck_assert_int_eq(libra_quotes_held(b, 1001, 1301.0), 0);
	libra_quotes_find(b, id, 1001, 1100.0, &got);
	got->taken = true;
	ck_assert_int_eq(libra_quotes_held(b, 1001, 1100.0), 1);
	libra_quotes_destroy(b);
}
END_TEST

START_TEST(test_token_held_until_taken_or_expired)
{
	libra_quotes_t *b = libra_quotes_create(0.0);
	libra_held_quote_t h = _held(1001, 0xF0000009u, 1300.0), *got;
	uint32_t id = libra_quotes_add(b, &h);

	ck_assert(libra_quotes_token_held(b, 0xF0000009u, 1200.0));
	ck_assert(!libra_quotes_token_held(b, 0xF0000008u, 1200.0));
	ck_assert(!libra_quotes_token_held(b, 0xF0000009u, 1300.5));
	libra_quotes_find(b, id, 1001, 1200.0, &got);
	got->taken = true;	/* its job is being created */
	ck_assert(!libra_quotes_token_held(b, 0xF0000009u, 1200.0));
	libra_quotes_destroy(b);
}
END_TEST

START_TEST(test_expire_and_remove)
{
	libra_quotes_t *b = libra_quotes_create(0.0);
	libra_held_quote_t h = _held(1001, 0xF0000001u, 1300.0), *got;
	uint32_t a, c;

	a = libra_quotes_add(b, &h);
	h.until = 2000.0;
	c = libra_quotes_add(b, &h);
	ck_assert_int_eq(libra_quotes_expire(b, 1302.0, 3.0), 0);
	ck_assert_int_eq(libra_quotes_expire(b, 1303.5, 3.0), 1);
	ck_assert_int_eq(libra_quotes_find(b, a, 1001, 1000.0, &got),
			 LIBRA_QUOTE_UNKNOWN);
	ck_assert_int_eq(libra_quotes_find(b, c, 1001, 1000.0, &got),
			 LIBRA_QUOTE_OK);
	libra_quotes_remove(b, c);
	ck_assert_int_eq(libra_quotes_count(b), 0);
	libra_quotes_remove(b, c);	/* absent: nothing happens */
	libra_quotes_destroy(b);
}
END_TEST

START_TEST(test_shape_names_what_differs)
{
	libra_quote_shape_t q, j;

	memset(&q, 0, sizeof(q));
	q.cpus = 4;
	q.max_nodes = 2;
	q.demand.mem_per_cpu = 1024;
	snprintf(q.partition, sizeof(q.partition), "batch");
	j = q;
	ck_assert_ptr_null(libra_quote_shape_differs(&q, &j));
	j.cpus = 2;
	ck_assert_str_eq(libra_quote_shape_differs(&q, &j), "the CPU count");
	j = q;
	j.max_nodes = 1;
	ck_assert_str_eq(libra_quote_shape_differs(&q, &j), "the node count");
	j = q;
	j.demand.gpus_per_node = 1;
	ck_assert_str_eq(libra_quote_shape_differs(&q, &j),
			 "the memory, GPUs or scratch disk");
	j = q;
	j.demand.tmp_mb = 100;		/* --tmp (decision 17) */
	ck_assert_str_eq(libra_quote_shape_differs(&q, &j),
			 "the memory, GPUs or scratch disk");
	j = q;
	j.partition[0] = '\0';
	ck_assert_str_eq(libra_quote_shape_differs(&q, &j), "the partition");
}
END_TEST

/* --- the "quote" key ---------------------------------------------------- */

START_TEST(test_sla_quote_hold_asks_with_the_rest_of_the_sla)
{
	libra_sla_t sla;
	char err[256];

	ck_assert_int_eq(libra_sla_parse("runtime=1m,deadline=10m,quote=hold",
					 100.0, &sla, err, sizeof(err)),
			 LIBRA_SLA_OK);
	ck_assert(sla.set & LIBRA_SLA_QUOTE);
	ck_assert_uint_eq(sla.quote, 0);
	ck_assert(!libra_sla_takes_quote(&sla));
}
END_TEST

START_TEST(test_sla_quote_number_takes_a_quote_alone)
{
	libra_sla_t sla;
	char err[256];

	ck_assert_int_eq(libra_sla_parse("quote=123456", 100.0, &sla, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert(libra_sla_takes_quote(&sla));
	ck_assert_uint_eq(sla.quote, 123456);
	ck_assert_int_eq(libra_sla_parse("quote=123456,deadline=1h", 100.0,
					 &sla, err, sizeof(err)),
			 LIBRA_SLA_EDUP);
	ck_assert_names(err, "quote 123456 carries its own SLA");
	ck_assert_names(err, "deadline");
	ck_assert_uint_eq(sla.set, 0);	/* nothing half-parsed */
}
END_TEST

START_TEST(test_sla_quote_bad_values_name_the_key)
{
	static const char *bad[] = {
		"quote=0", "quote=-1", "quote=abc", "quote=1000000000",
		"quote=12x", "quote=yes",
	};
	libra_sla_t sla;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(libra_sla_parse(bad[i], 0.0, &sla, err,
						 sizeof(err)),
				 LIBRA_SLA_EVALUE);
		ck_assert_names(err, "quote: ");
		ck_assert_names(err, "is not hold, a quote number (1-999999999) or release:NUMBER");
	}
}
END_TEST

START_TEST(test_sla_quote_taken_with_options_is_refused_after_merge)
{
	libra_sla_t sla, opts;
	char err[256];

	ck_assert_int_eq(libra_sla_parse("quote=200000", 0.0, &sla, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert_int_eq(libra_sla_parse("budget=10", 0.0, &opts, err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert_int_eq(libra_sla_merge(&sla, "--comment", &opts,
					 "the libra options", err,
					 sizeof(err)), LIBRA_SLA_OK);
	ck_assert_int_eq(libra_sla_check_quote(&sla, err, sizeof(err)),
			 LIBRA_SLA_EDUP);
	ck_assert_names(err, "budget");
}
END_TEST

/* --- the record --------------------------------------------------------- */

static libra_record_t _record(void)
{
	static libra_record_place_t pl = { .node = "n1", .cpus = 1 };
	libra_record_t r;

	memset(&r, 0, sizeof(r));
	r.policy = LIBRA_POLICY_LIBRA_PRICE;
	r.token = 0xF0000010u;
	r.sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE;
	r.sla.runtime = 100;
	r.sla.submit = 1000;
	r.sla.deadline = 1400;
	r.admitted = 1060;
	r.price = 3;
	r.rate = 0.01;
	r.nplace = 1;
	r.place = &pl;
	return r;
}

START_TEST(test_record_keeps_the_quote_and_its_hold_end)
{
	libra_record_t r = _record(), back;
	char err[256], *json;

	ck_assert_double_eq_tol(libra_record_commit_time(&r), 1060, TOL);
	r.quote_id = 345678;
	r.quote_until = 1300;
	ck_assert_double_eq_tol(libra_record_commit_time(&r), 1300, TOL);
	json = libra_record_to_json(&r);
	ck_assert_ptr_nonnull(json);
	ck_assert_names(json, "\"quote\":345678");
	ck_assert_int_eq(libra_record_from_json(json, &back, err,
						sizeof(err)), 0);
	ck_assert_uint_eq(back.quote_id, 345678);
	ck_assert_double_eq_tol(back.quote_until, 1300, TOL);
	ck_assert_double_eq_tol(libra_record_commit_time(&back), 1300, TOL);
	libra_record_free(&back);
	free(json);
}
END_TEST

START_TEST(test_record_without_quote_writes_none)
{
	libra_record_t r = _record();
	char *json = libra_record_to_json(&r);

	ck_assert_ptr_null(strstr(json, "quote"));
	ck_assert_ptr_null(strstr(json, "hold_end"));
	free(json);
}
END_TEST

START_TEST(test_record_quote_needs_its_hold_end)
{
	libra_record_t back;
	char err[256];
	const char *text =
		"{\"libra\":1,\"policy\":\"libra+$\",\"sla\":{\"runtime\":100,"
		"\"submit\":1000,\"deadline\":1400,\"type\":\"hard\"},"
		"\"admit\":{\"time\":1060,\"price\":3,\"rate\":0.01,"
		"\"quote\":345678,\"place\":[{\"node\":\"n1\",\"cpus\":1}]}}";

	ck_assert_int_eq(libra_record_from_json(text, &back, err,
						sizeof(err)), -1);
	ck_assert_names(err, "hold_end");
}
END_TEST

/* --- parameters --------------------------------------------------------- */

START_TEST(test_params_quote_hold_and_limit)
{
	libra_params_t p;
	char err[256];

	libra_params_default(&p);
	ck_assert_double_eq_tol(p.quote_hold, 300, TOL);
	ck_assert_double_eq_tol(p.quote_max, 4, TOL);
	ck_assert_int_eq(libra_params_parse(&p, "libra_quote_hold=90,libra_quote_max=0",
					    err, sizeof(err)), 0);
	ck_assert_double_eq_tol(p.quote_hold, 90, TOL);
	ck_assert_double_eq_tol(p.quote_max, 0, TOL);
	ck_assert_int_ne(libra_params_parse(&p, "libra_quote_max=2.5", err,
					    sizeof(err)), 0);
	ck_assert_names(err, "libra_quote_max");
	ck_assert_int_ne(libra_params_parse(&p, "libra_quote_hold=0", err,
					    sizeof(err)), 0);
	ck_assert_names(err, "libra_quote_hold");
}
END_TEST

/* --- the share a quote holds -------------------------------------------- */

static libra_quote_t aq;	/* big: off the stack */

START_TEST(test_quote_admitted_at_the_hold_end_commits_that_share)
{
	libra_ledger_t *l = libra_ledger_create(LIBRA_SHARE_MIN_DEFAULT);
	libra_params_t p;
	libra_request_t req = { .cpus = 1 };
	libra_sla_t sla;
	double hold = 200.0;

	libra_params_default(&p);
	p.policy = LIBRA_POLICY_LIBRA;
	ck_assert_int_eq(libra_ledger_add_node(l, "n0", 1), 0);
	memset(&sla, 0, sizeof(sla));
	sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE;
	sla.runtime = 100;
	sla.submit = 0;
	sla.deadline = 400;

	libra_admit(l, &p, &sla, &req, 0.0 + hold, &aq);
	ck_assert_int_eq(aq.verdict, LIBRA_ACCEPT);
	ck_assert_double_eq_tol(aq.share, 0.5, TOL);
	ck_assert_int_eq(libra_ledger_commit(l, 0xF0000001u, &sla, aq.place,
					     aq.nplace, 0.0 + hold), 0);
	ck_assert_double_eq_tol(libra_ledger_node_share(l, 0), 0.5, TOL);
	ck_assert_double_eq_tol(libra_ledger_job_committed(l, 0xF0000001u),
				200, TOL);

	/* at t = 0, a job wanting 0.6 of the CPU no longer fits */
	sla.runtime = 240;
	libra_admit(l, &p, &sla, &req, 0.0, &aq);
	ck_assert_int_eq(aq.verdict, LIBRA_REJECT_DEADLINE);
	/* one wanting 0.5 does */
	sla.runtime = 200;
	libra_admit(l, &p, &sla, &req, 0.0, &aq);
	ck_assert_int_eq(aq.verdict, LIBRA_ACCEPT);

	/* a deadline the hold leaves too little time for is refused */
	sla.runtime = 250;
	libra_admit(l, &p, &sla, &req, 0.0 + hold, &aq);
	ck_assert_int_ne(aq.verdict, LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

/* --- the saved book (decision 20: it survives a restart) ------------------ */

/* Two nodes "n1" and "n2" of 4 CPUs, as a restarted slurmctld has them. */
static libra_ledger_t *_two_nodes(void)
{
	libra_ledger_t *l = libra_ledger_create(0.01);

	ck_assert_int_eq(libra_ledger_add_node(l, "n1", 4), 0);
	ck_assert_int_eq(libra_ledger_add_node(l, "n2", 4), 1);
	return l;
}

/* What a parse reported: the messages, one a line. */
static char reported[4096];
static int nreported;

static void _collect(void *arg, const char *msg)
{
	(void) arg;
	nreported++;
	strncat(reported, msg, sizeof(reported) - strlen(reported) - 2);
	strcat(reported, "\n");
}

static void _reset_reports(void)
{
	reported[0] = '\0';
	nreported = 0;
}

/* A quote with every field set to something of its own. */
static libra_held_quote_t _full(uint32_t token, double until)
{
	static libra_place_t pl[2] = {
		{ .node = 1, .cpus = 2, .mem_mb = 1500, .gpus = 1,
		  .tmp_mb = 600 },
		{ .node = 0, .cpus = 1, .mem_mb = 0, .gpus = 0 },
	};
	libra_held_quote_t h = _held(1001, token, until);

	h.issued = 1000.125;
	h.policy = LIBRA_POLICY_LIBRA_PRICE;
	h.sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE | LIBRA_SLA_BUDGET |
		    LIBRA_SLA_TARGET;
	h.sla.runtime = 240.0;
	h.sla.submit = 999.5;
	h.sla.deadline = 1480.0;
	h.sla.budget = 100.0;
	h.sla.penalty_rate = 0.1 / 3.0;	/* not a short decimal */
	h.sla.penalty_cap = -1.0;
	h.sla.due_date = 1400.0;
	h.sla.type = LIBRA_DEADLINE_HARD;
	h.sla.tier = LIBRA_TIER_NONE;
	h.sla.target = 1450.75;
	h.price = 11.357142857142858;
	h.price_mem = 0.2;
	h.price_gpus = 1.0 / 7.0;
	h.rate = 0.0123;
	h.shape.cpus = 3;
	h.shape.min_nodes = 1;
	h.shape.max_nodes = 2;
	h.shape.cpus_per_task = 1;
	h.shape.demand.mem_per_node = 1500;
	h.shape.demand.gpus_per_node = 1;
	h.shape.demand.tmp_mb = 600;	/* --tmp (decision 17) */
	strcpy(h.shape.partition, "debug");
	h.nplace = 2;
	h.place = pl;
	return h;
}

START_TEST(test_saved_book_reads_back_every_field)
{
	libra_ledger_t *l = _two_nodes();
	libra_quotes_t *b = libra_quotes_create(1000.0), *back;
	libra_held_quote_t h = _full(0xF0000011u, 1300.0), *got;
	uint32_t id, taken;
	char *text;

	id = libra_quotes_add(b, &h);
	h.token = 0xF0000012u;
	taken = libra_quotes_add(b, &h);
	libra_quotes_mark_taken(b, taken);
	ck_assert_ptr_nonnull(text = libra_quotes_format(b, l));
	ck_assert_msg(!strncmp(text, "libra_quotes 2\n", 15), "%s", text);
	ck_assert_ptr_nonnull(strstr(text, " tmp_mb=600 "));
	ck_assert_ptr_nonnull(strstr(text, " place=n2:2:1500:1:600,n1:1:0:0:0\n"));

	back = libra_quotes_create(0.0);
	_reset_reports();
	ck_assert_int_eq(libra_quotes_parse(back, l, text, "libra_quotes",
					    1100.0, LIBRA_QUOTE_FORGET,
					    _collect, NULL), 2);
	ck_assert_msg(!nreported, "%s", reported);
	ck_assert_int_eq(libra_quotes_find(back, id, 1001, 1100.0, &got),
			 LIBRA_QUOTE_OK);
	/* every field, bit for bit */
	h.token = 0xF0000011u;
	h.id = id;
	ck_assert(!memcmp(&got->sla, &h.sla, sizeof(h.sla)));
	ck_assert(!memcmp(&got->shape, &h.shape, sizeof(h.shape)));
	ck_assert_uint_eq(got->token, h.token);
	ck_assert_uint_eq(got->uid, h.uid);
	ck_assert(got->issued == h.issued && got->until == h.until);
	ck_assert_int_eq(got->policy, h.policy);
	ck_assert(got->price == h.price && got->price_mem == h.price_mem &&
		  got->price_gpus == h.price_gpus && got->rate == h.rate);
	ck_assert_int_eq(got->nplace, 2);
	ck_assert(!memcmp(got->place, h.place, 2 * sizeof(*h.place)));
	ck_assert(!got->taken);
	ck_assert_int_eq(libra_quotes_find(back, taken, 1001, 1100.0, &got),
			 LIBRA_QUOTE_TAKEN);
	/* written again, the same text */
	{
		char *again = libra_quotes_format(back, l);

		ck_assert_str_eq(again, text);
		free(again);
	}
	free(text);
	libra_quotes_destroy(b);
	libra_quotes_destroy(back);
	libra_ledger_destroy(l);
}
END_TEST

/* line with the first "from" replaced by "to" (in one of two static
 * buffers, so that one call may take another's result). */
static const char *_subst(const char *line, const char *from, const char *to)
{
	static char bufs[2][4096];
	static int k;
	char *out = bufs[k ^= 1];
	const char *at = strstr(line, from);

	ck_assert_ptr_nonnull(at);
	snprintf(out, sizeof(bufs[0]), "%.*s%s%s", (int) (at - line), line, to,
		 at + strlen(from));
	return out;
}

START_TEST(test_a_version_1_book_is_still_read)
{
	/* a book written before scratch disk was kept (version 1: no
	 * tmp_mb, places node:CPUs:MB:GPUs) reads with no disk held, and
	 * is written again as version 2 */
	libra_ledger_t *l = _two_nodes();
	libra_quotes_t *b = libra_quotes_create(1000.0), *back;
	libra_held_quote_t h = _full(0xF0000021u, 1300.0), *got;
	char *text, *v1, *at;
	uint32_t id;
	libra_place_t pl[2];

	memcpy(pl, h.place, sizeof(pl));	/* _full()'s are static */
	pl[0].tmp_mb = 0;
	h.place = pl;
	h.shape.demand.tmp_mb = 0;
	id = libra_quotes_add(b, &h);
	ck_assert_ptr_nonnull(text = libra_quotes_format(b, l));
	/* the same book as version 1 wrote it */
	v1 = strdup(_subst(_subst(_subst(text, "libra_quotes 2", "libra_quotes 1"),
			   " tmp_mb=0", ""), "n2:2:1500:1:0,n1:1:0:0:0",
			   "n2:2:1500:1,n1:1:0:0"));
	ck_assert_ptr_null(strstr(v1, "tmp_mb"));
	back = libra_quotes_create(0.0);
	_reset_reports();
	ck_assert_int_eq(libra_quotes_parse(back, l, v1, "libra_quotes",
					    1100.0, LIBRA_QUOTE_FORGET,
					    _collect, NULL), 1);
	ck_assert_msg(!nreported, "%s", reported);
	ck_assert_int_eq(libra_quotes_find(back, id, 1001, 1100.0, &got),
			 LIBRA_QUOTE_OK);
	ck_assert(!memcmp(&got->shape, &h.shape, sizeof(h.shape)));
	ck_assert_int_eq(got->nplace, 2);
	ck_assert_uint_eq(got->place[0].tmp_mb, 0);
	ck_assert_int_eq(got->place[0].gpus, 1);
	at = libra_quotes_format(back, l);
	ck_assert_str_eq(at, text);
	free(at);
	free(v1);
	free(text);
	libra_quotes_destroy(b);
	libra_quotes_destroy(back);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_saved_book_skips_bad_lines_and_keeps_the_rest)
{
	libra_ledger_t *l = _two_nodes();
	libra_quotes_t *b = libra_quotes_create(1000.0), *back;
	libra_held_quote_t h = _full(0xF0000021u, 1300.0);
	char *text, line[4096], id[32], id2[32], bad[16384];
	uint32_t qid;
	size_t n;

	qid = libra_quotes_add(b, &h);
	text = libra_quotes_format(b, l);
	/* the quote's line, without its newline */
	snprintf(line, sizeof(line), "%s", strstr(text, "quote "));
	line[strcspn(line, "\n")] = '\0';
	snprintf(id, sizeof(id), "id=%u ", qid);
	snprintf(id2, sizeof(id2), "id=%u ", qid + 7);
	n = (size_t) snprintf(bad, sizeof(bad), "%s", text); /* lines 1-3 */
	n += (size_t) snprintf(bad + n, sizeof(bad) - n,
		"%s\n"				/* 4: the same again */
		"quote id=5\n"			/* 5: the rest missing */
		"%s place=n1:1:0:0\n"		/* 6: place twice */
		"frobnicate 1\n"		/* 7 */
		"# a comment, then a blank line\n\n",
		line, _subst(line, id, id2));
	n += (size_t) snprintf(bad + n, sizeof(bad) - n, "%s\n",
		_subst(_subst(_subst(line, id, id2), "token=4026531873",
			      "token=4026531874"),
		       "place=n2", "place=n9"));	/* 10 */
	n += (size_t) snprintf(bad + n, sizeof(bad) - n, "%s\n",
		_subst(_subst(line, id, id2), "price=", "price=cheap"));	/* 11 */
	n += (size_t) snprintf(bad + n, sizeof(bad) - n, "%s\n",
		_subst(_subst(line, id, id2), "token=", "token=1"));	/* 12 */
	ck_assert_uint_lt(n, sizeof(bad));

	back = libra_quotes_create(0.0);
	_reset_reports();
	ck_assert_int_eq(libra_quotes_parse(back, l, bad, "/state/libra_quotes",
					    1100.0, LIBRA_QUOTE_FORGET,
					    _collect, NULL), 1);
	ck_assert_int_eq(libra_quotes_count(back), 1);
	ck_assert_msg(nreported == 7, "%s", reported);
	ck_assert_names(reported, "/state/libra_quotes:4: quote ");
	ck_assert_names(reported, "/state/libra_quotes:5: token missing; line skipped\n");
	ck_assert_names(reported, "/state/libra_quotes:6: place given twice; line skipped\n");
	ck_assert_names(reported, "/state/libra_quotes:7: neither \"quote ...\" nor \"next N\"");
	ck_assert_names(reported, "/state/libra_quotes:10: place: node n9 is not in the configuration");
	ck_assert_names(reported, "/state/libra_quotes:11: price: \"cheap");
	ck_assert_names(reported, "/state/libra_quotes:12: token: ");
	libra_quotes_destroy(back);

	/* a file of another version is not read at all */
	back = libra_quotes_create(0.0);
	_reset_reports();
	ck_assert_int_eq(libra_quotes_parse(back, l, "libra_quotes 3\nnext 5\n",
					    "f", 1100.0, 0.0, _collect, NULL),
			 -1);
	ck_assert_names(reported, "f:1: not \"libra_quotes 2\"");
	free(text);
	libra_quotes_destroy(b);
	libra_quotes_destroy(back);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_saved_book_drops_forgotten_quotes_keeps_expired_ones)
{
	libra_ledger_t *l = _two_nodes();
	libra_quotes_t *b = libra_quotes_create(1000.0), *back;
	libra_held_quote_t h = _full(0xF0000031u, 1300.0), *got;
	uint32_t live, expired, forgotten;
	char *text;

	live = libra_quotes_add(b, &h);
	h.token++;
	h.until = 1100.0;
	expired = libra_quotes_add(b, &h);
	h.token++;
	h.until = 1200.0 - LIBRA_QUOTE_FORGET - 1.0;
	h.issued = h.until - 300.0;
	forgotten = libra_quotes_add(b, &h);
	text = libra_quotes_format(b, l);
	back = libra_quotes_create(0.0);
	_reset_reports();
	ck_assert_int_eq(libra_quotes_parse(back, l, text, "q", 1200.0,
					    LIBRA_QUOTE_FORGET, _collect, NULL),
			 2);
	ck_assert_int_eq(nreported, 0);
	ck_assert_int_eq(libra_quotes_find(back, live, 1001, 1200.0, &got),
			 LIBRA_QUOTE_OK);
	/* past its hold: refused as expired, as before the restart */
	ck_assert_int_eq(libra_quotes_find(back, expired, 1001, 1200.0, &got),
			 LIBRA_QUOTE_EXPIRED);
	ck_assert_int_eq(libra_quotes_find(back, forgotten, 1001, 1200.0, &got),
			 LIBRA_QUOTE_UNKNOWN);
	free(text);
	libra_quotes_destroy(b);
	libra_quotes_destroy(back);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_saved_book_numbers_are_not_given_again)
{
	libra_ledger_t *l = _two_nodes();
	libra_quotes_t *b = libra_quotes_create(1000.0), *back;
	libra_held_quote_t h = _full(0xF0000041u, 1300.0), *got;
	uint32_t ids[3], next;
	char *text;

	for (int i = 0; i < 3; i++) {
		h.token++;
		ids[i] = libra_quotes_add(b, &h);
	}
	/* the last one forgotten by the time the book is read back */
	libra_quotes_remove(b, ids[2]);
	text = libra_quotes_format(b, l);
	/* a book made later would start its numbers lower: 100000 + 0 */
	back = libra_quotes_create(900000.0);
	ck_assert_int_eq(libra_quotes_parse(back, l, text, "q", 1100.0,
					    LIBRA_QUOTE_FORGET, _collect, NULL),
			 2);
	h.token++;
	next = libra_quotes_add(back, &h);
	ck_assert_uint_gt(next, ids[2]);
	ck_assert_int_eq(libra_quotes_find(back, ids[0], 1001, 1100.0, &got),
			 LIBRA_QUOTE_OK);
	free(text);
	libra_quotes_destroy(b);
	libra_quotes_destroy(back);

	/* after a wrap, a number still in the book is skipped */
	b = libra_quotes_create(0.0);
	ck_assert_uint_eq(libra_quotes_add(b, &h), 100000u);
	text = libra_quotes_format(b, l);
	back = libra_quotes_create(0.0);
	ck_assert_int_eq(libra_quotes_parse(back, l,
					    _subst(text, "next 100001",
						   "next 999999999"),
					    "q", 1100.0, 0.0, _collect, NULL),
			 1);
	h.token++;
	ck_assert_uint_eq(libra_quotes_add(back, &h), 999999999u);
	h.token++;
	ck_assert_uint_eq(libra_quotes_add(back, &h), 100001u);
	free(text);
	libra_quotes_destroy(b);
	libra_quotes_destroy(back);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_probes_bound_one_users_quotes_without_a_job)
{
	/* three admissions of user 1001 under tokens, one of 1002's: those
	 * a second old and still under their token count; one tied to its
	 * job (re-keyed) or released, or past the keep, does not */
	libra_ledger_t *l = _two_nodes();
	libra_probes_t p = { 0 };
	libra_sla_t sla;
	libra_place_t pl = { .node = 0, .cpus = 1 };
	uint32_t tok[4] = { 0xF0000001u, 0xF0000002u, 0xF0000003u,
			    0xF0000004u };
	int all = -1;

	memset(&sla, 0, sizeof(sla));
	sla.runtime = 10;
	sla.submit = 100;
	sla.deadline = 1000;
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(libra_ledger_commit(l, tok[i], &sla, &pl, 1,
						     100), 0);
		ck_assert_int_eq(libra_probes_add(&p, i == 3 ? 1002 : 1001,
						  tok[i], 100 + i * 0.5), 0);
	}
	/* at 101.2: 1001's first two are 1.2 and 0.7 s old */
	ck_assert_int_eq(libra_probes_waiting(&p, l, 1001, 101.2, 1.0, 4.0, NULL), 1);
	ck_assert_int_eq(libra_probes_waiting(&p, l, 1001, 102.0, 1.0, 4.0, NULL), 3);
	ck_assert_int_eq(libra_probes_waiting(&p, l, 1002, 102.0, 1.0, 4.0, NULL), 0);
	ck_assert_int_eq(libra_probes_waiting(&p, l, 1001, 100.9, 1.0, 4.0, &all), 0);
	ck_assert_int_eq(all, 3);
	/* the first becomes a job, the second is released */
	ck_assert_int_eq(libra_ledger_rekey(l, tok[0], 7), 0);
	ck_assert_int_eq(libra_ledger_release(l, tok[1]), 0);
	ck_assert_int_eq(libra_probes_waiting(&p, l, 1001, 102.0, 1.0, 4.0, NULL), 1);
	ck_assert_int_eq(p.n, 2);
	/* past the keep: forgotten */
	ck_assert_int_eq(libra_probes_waiting(&p, l, 1002, 106.0, 1.0, 4.0, NULL), 0);
	ck_assert_int_eq(p.n, 0);
	libra_probes_free(&p);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_book_changes_count_every_change)
{
	libra_quotes_t *b = libra_quotes_create(0.0);
	libra_held_quote_t h = _held(1001, 0xF0000051u, 1300.0);
	uint64_t c = libra_quotes_changes(b);
	uint32_t id = libra_quotes_add(b, &h);

	ck_assert_uint_gt(libra_quotes_changes(b), c);
	c = libra_quotes_changes(b);
	libra_quotes_mark_taken(b, id);
	ck_assert_uint_gt(libra_quotes_changes(b), c);
	c = libra_quotes_changes(b);
	libra_quotes_mark_taken(b, id);		/* again: no change */
	ck_assert_uint_eq(libra_quotes_changes(b), c);
	ck_assert_int_eq(libra_quotes_expire(b, 1300.0 + 10.0, 5.0), 1);
	ck_assert_uint_gt(libra_quotes_changes(b), c);
	libra_quotes_set_saved(b, libra_quotes_changes(b));
	ck_assert_uint_eq(libra_quotes_saved(b), libra_quotes_changes(b));
	libra_quotes_destroy(b);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("quote");
	TCase *tc;

	tc = tcase_create("book");
	T(tc, test_book_numbers_are_distinct_and_from_the_clock);
	T(tc, test_book_copies_the_placement);
	T(tc, test_find_says_why_not);
	T(tc, test_held_counts_one_users_live_untaken_quotes);
	T(tc, test_token_held_until_taken_or_expired);
	T(tc, test_probes_bound_one_users_quotes_without_a_job);
	T(tc, test_expire_and_remove);
	T(tc, test_shape_names_what_differs);
	suite_add_tcase(s, tc);

	tc = tcase_create("saved");
	T(tc, test_saved_book_reads_back_every_field);
	T(tc, test_a_version_1_book_is_still_read);
	T(tc, test_saved_book_skips_bad_lines_and_keeps_the_rest);
	T(tc, test_saved_book_drops_forgotten_quotes_keeps_expired_ones);
	T(tc, test_saved_book_numbers_are_not_given_again);
	T(tc, test_book_changes_count_every_change);
	suite_add_tcase(s, tc);

	tc = tcase_create("sla");
	T(tc, test_sla_quote_hold_asks_with_the_rest_of_the_sla);
	T(tc, test_sla_quote_number_takes_a_quote_alone);
	T(tc, test_sla_quote_bad_values_name_the_key);
	T(tc, test_sla_quote_taken_with_options_is_refused_after_merge);
	suite_add_tcase(s, tc);

	tc = tcase_create("record");
	T(tc, test_record_keeps_the_quote_and_its_hold_end);
	T(tc, test_record_without_quote_writes_none);
	T(tc, test_record_quote_needs_its_hold_end);
	suite_add_tcase(s, tc);

	tc = tcase_create("params");
	T(tc, test_params_quote_hold_and_limit);
	suite_add_tcase(s, tc);

	tc = tcase_create("ledger");
	T(tc, test_quote_admitted_at_the_hold_end_commits_that_share);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
