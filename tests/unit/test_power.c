/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_power.c - the tariff (tariff.h) and the power heuristics
 *  (power.h; doc/design.md decision 24), and the admissions at a later
 *  start (admit_power.c: decisions 24 and 39).
 *
 *  The day/night tariff of the cases: 0.5 per node-hour from 23:00 to
 *  07:00, 1.0 from 07:00 to 23:00: a day costs 8 x 0.5 + 16 x 1 = 20.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "admit.h"
#include "ledger.h"
#include "params.h"
#include "power.h"
#include "price.h"
#include "tariff.h"
#include "testutil.h"

#define H 3600.0
#define DAYNIGHT "00:00=0.5;07:00=1.0;23:00=0.5"

static libra_tariff_t _tariff(const char *spec)
{
	libra_tariff_t t;
	char err[256] = "";

	memset(&t, 0, sizeof(t));
	ck_assert_msg(libra_tariff_parse(&t, spec, err, sizeof(err)) == 0,
		      "%s: %s", spec, err);
	return t;
}

START_TEST(test_tariff_rates_by_time_of_day)
{
	libra_tariff_t t = _tariff(DAYNIGHT);

	ck_assert_int_eq(t.n, 3);
	ck_assert_double_eq_tol(libra_tariff_rate(&t, 0), 0.5, TOL);
	ck_assert_double_eq_tol(libra_tariff_rate(&t, 7 * H - 1), 0.5, TOL);
	ck_assert_double_eq_tol(libra_tariff_rate(&t, 7 * H), 1.0, TOL);
	ck_assert_double_eq_tol(libra_tariff_rate(&t, 23 * H), 0.5, TOL);
	/* the next day, and before the Epoch */
	ck_assert_double_eq_tol(libra_tariff_rate(&t, 86400 + 12 * H), 1.0,
				TOL);
	ck_assert_double_eq_tol(libra_tariff_rate(&t, -H), 0.5, TOL);
	ck_assert_double_eq_tol(libra_tariff_mean(&t), 20.0 / 24, TOL);
}
END_TEST

START_TEST(test_tariff_offset_moves_the_day)
{
	libra_tariff_t t = _tariff(DAYNIGHT);

	t.offset = 2 * 3600;	/* UTC+2: 05:00 UTC is 07:00 local */
	ck_assert_double_eq_tol(libra_tariff_rate(&t, 4 * H), 0.5, TOL);
	ck_assert_double_eq_tol(libra_tariff_rate(&t, 5 * H), 1.0, TOL);
	ck_assert_double_eq_tol(libra_tariff_next_change(&t, 0), 5 * H, TOL);
}
END_TEST

START_TEST(test_tariff_first_rate_not_at_midnight_wraps)
{
	libra_tariff_t t = _tariff("07:00=1.0;23:00=0.5");

	/* 00:00-07:00 is the day before's last rate */
	ck_assert_double_eq_tol(libra_tariff_rate(&t, 3 * H), 0.5, TOL);
	ck_assert_double_eq_tol(libra_tariff_cost(&t, 0, 86400), 20.0, TOL);
}
END_TEST

START_TEST(test_tariff_cost_integrates_the_rate)
{
	libra_tariff_t t = _tariff(DAYNIGHT);

	ck_assert_double_eq_tol(libra_tariff_cost(&t, 6 * H, 8 * H), 1.5,
				TOL);
	ck_assert_double_eq_tol(libra_tariff_cost(&t, 0, 86400), 20.0, TOL);
	/* three days and a half hour */
	ck_assert_double_eq_tol(libra_tariff_cost(&t, 6.5 * H,
						  3 * 86400 + 7 * H),
				60.25, 1e-9);
	ck_assert_double_eq_tol(libra_tariff_cost(&t, 5 * H, 5 * H), 0, TOL);
	ck_assert_double_eq_tol(libra_tariff_cost(&t, 5 * H, 4 * H), 0, TOL);
}
END_TEST

START_TEST(test_tariff_none_is_node_hours)
{
	libra_tariff_t t = _tariff("none");

	ck_assert_int_eq(t.n, 0);
	ck_assert_double_eq_tol(libra_tariff_rate(&t, 123), 1.0, TOL);
	ck_assert_double_eq_tol(libra_tariff_cost(&t, 0, 2 * H), 2.0, TOL);
	t = _tariff("");
	ck_assert_int_eq(t.n, 0);
}
END_TEST

START_TEST(test_tariff_format_round_trips)
{
	libra_tariff_t t = _tariff(DAYNIGHT), u;
	char buf[256];

	libra_tariff_format(&t, buf, sizeof(buf));
	ck_assert_str_eq(buf, "00:00=0.5;07:00=1;23:00=0.5");
	u = _tariff(buf);
	ck_assert_mem_eq(u.sod, t.sod, sizeof(t.sod));
	t = _tariff("none");
	libra_tariff_format(&t, buf, sizeof(buf));
	ck_assert_str_eq(buf, "none");
}
END_TEST

START_TEST(test_tariff_bad_specs_are_named_and_change_nothing)
{
	static const struct {
		const char *spec, *names;
	} bad[] = {
		{ "7:00=1", "'7:00=1'" },
		{ "24:00=1", "'24:00=1'" },
		{ "07:60=1", "HH:MM" },
		{ "07:00", "want HH:MM=RATE" },
		{ "07:00=-1", "rate" },
		{ "07:00=1x", "rate" },
		{ "07:00=", "rate" },
		{ "07:00=1;06:00=2", "ascend" },
		{ "07:00=1;07:00=2", "ascend" },
		{ "07:00=1;;08:00=2", "empty" },
		{ "relative/file", "HH:MM" },
	};
	libra_tariff_t t = _tariff(DAYNIGHT);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[256] = "";

		ck_assert_msg(libra_tariff_parse(&t, bad[i].spec, err,
						 sizeof(err)) == -1,
			      "%s accepted", bad[i].spec);
		ck_assert_names(err, "libra_tariff");
		ck_assert_names(err, bad[i].names);
		ck_assert_int_eq(t.n, 3);
	}
}
END_TEST

START_TEST(test_tariff_file_is_read_with_comments)
{
	char path[] = "/tmp/libra-tariff-XXXXXX", err[512] = "";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	libra_tariff_t t;

	memset(&t, 0, sizeof(t));
	fputs("# night and day\n00:00 0.5\n\n07:00\t1.0  # day\n23:00 0.5\n",
	      f);
	fclose(f);
	ck_assert_msg(libra_tariff_parse(&t, path, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_int_eq(t.n, 3);
	ck_assert_str_eq(t.path, path);
	ck_assert_double_eq_tol(libra_tariff_cost(&t, 0, 86400), 20, TOL);

	f = fopen(path, "w");
	fputs("00:00 0.5\n07:00 day\n", f);
	fclose(f);
	ck_assert_int_eq(libra_tariff_parse(&t, path, err, sizeof(err)), -1);
	ck_assert_names(err, "line 2");
	ck_assert_int_eq(t.n, 3);	/* unchanged */

	f = fopen(path, "w");
	fputs("# nothing\n", f);
	fclose(f);
	ck_assert_int_eq(libra_tariff_parse(&t, path, err, sizeof(err)), -1);
	ck_assert_names(err, "no rate");
	unlink(path);
	ck_assert_int_eq(libra_tariff_parse(&t, path, err, sizeof(err)), -1);
	ck_assert_names(err, "cannot read");
}
END_TEST

static libra_power_cfg_t _cfg(libra_power_t h)
{
	libra_power_cfg_t c = { h, 900, 300, 60, 0 };

	return c;
}

static libra_power_node_t _node(libra_node_power_t st, bool busy,
				double next, int idle)
{
	libra_power_node_t n = { .state = st, .busy = busy, .next_use = next,
				 .idle_points = idle };

	return n;
}

START_TEST(test_power_names)
{
	libra_power_t h;

	for (int i = 0; i < LIBRA_POWER_COUNT; i++) {
		ck_assert(libra_power_from_name(
			libra_power_name((libra_power_t) i), &h));
		ck_assert_int_eq(h, i);
	}
	ck_assert(!libra_power_from_name("H3", &h));	/* names match exactly */
	ck_assert(!libra_power_from_name("h4", &h));
	ck_assert(libra_power_defers(LIBRA_POWER_H3));
	ck_assert(libra_power_defers(LIBRA_POWER_H5));
	ck_assert(!libra_power_defers(LIBRA_POWER_H1));
}
END_TEST

START_TEST(test_power_busy_node_is_never_removed)
{
	libra_tariff_t t = _tariff(DAYNIGHT);

	for (int h = LIBRA_POWER_NONE; h < LIBRA_POWER_COUNT; h++) {
		libra_power_cfg_t c = _cfg((libra_power_t) h);
		libra_power_node_t n = _node(LIBRA_NODE_ON, true, 0, 0);

		ck_assert_int_eq(libra_power_decide(&c, &t, &n, 12 * H),
				 LIBRA_POWER_KEEP);
	}
}
END_TEST

START_TEST(test_power_h1_removes_idle_at_once_h2_after_two)
{
	libra_tariff_t t = _tariff(DAYNIGHT);
	libra_power_cfg_t h1 = _cfg(LIBRA_POWER_H1), h2 = _cfg(LIBRA_POWER_H2);
	libra_power_node_t n = _node(LIBRA_NODE_ON, false, INFINITY, 1);

	ck_assert_int_eq(libra_power_decide(&h1, &t, &n, 0), LIBRA_POWER_DOWN);
	ck_assert_int_eq(libra_power_decide(&h2, &t, &n, 0), LIBRA_POWER_KEEP);
	n.idle_points = 2;
	ck_assert_int_eq(libra_power_decide(&h2, &t, &n, 0), LIBRA_POWER_DOWN);
}
END_TEST

START_TEST(test_power_static_keeps_and_deploys_everything)
{
	libra_tariff_t t = _tariff(DAYNIGHT);
	libra_power_cfg_t c = _cfg(LIBRA_POWER_STATIC);
	libra_power_node_t on = _node(LIBRA_NODE_ON, false, INFINITY, 9);
	libra_power_node_t off = _node(LIBRA_NODE_OFF, false, INFINITY, 9);

	ck_assert_int_eq(libra_power_decide(&c, &t, &on, 0), LIBRA_POWER_KEEP);
	ck_assert_int_eq(libra_power_decide(&c, &t, &off, 0), LIBRA_POWER_UP);
}
END_TEST

START_TEST(test_power_booked_work_deploys_a_node_in_time)
{
	libra_tariff_t t = _tariff(DAYNIGHT);
	libra_power_cfg_t c = _cfg(LIBRA_POWER_H1);
	/* booked at 2100: booting at 1800 is after the next point (900),
	 * so the point at 0 leaves it; the one at 900 deploys it (2100 -
	 * 300 <= 900 + 900) */
	libra_power_node_t n = _node(LIBRA_NODE_OFF, false, 2100, 0);

	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 0), LIBRA_POWER_KEEP);
	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 900), LIBRA_POWER_UP);
	/* and a powered node it will need is kept */
	n.state = LIBRA_NODE_ON;
	n.idle_points = 5;
	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 900), LIBRA_POWER_KEEP);
	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 0), LIBRA_POWER_DOWN);
	/* a caller that looks every 10 s boots it no earlier than needed */
	n.state = LIBRA_NODE_OFF;
	c.lead = 10;
	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 900), LIBRA_POWER_KEEP);
	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 1789), LIBRA_POWER_KEEP);
	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 1790), LIBRA_POWER_UP);
	/* while a powered one is kept from the decision point before */
	n.state = LIBRA_NODE_ON;
	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 900), LIBRA_POWER_KEEP);
}
END_TEST

START_TEST(test_power_h3_removes_only_when_cheaper_than_cycling)
{
	libra_tariff_t t = _tariff(DAYNIGHT);
	libra_power_cfg_t c = _cfg(LIBRA_POWER_H3);
	/* next use in 500 s: keeping costs 500 s, cycling 60 + 300 s */
	libra_power_node_t n = _node(LIBRA_NODE_ON, false, 12 * H + 2000, 2);

	c.interval = 600;	/* 2000 - 300 > 600 + 600 */
	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 12 * H),
			 LIBRA_POWER_DOWN);
	n.next_use = 12 * H + 800;	/* needed: boot at 500 <= 600 */
	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 12 * H),
			 LIBRA_POWER_KEEP);
	/* a long shutdown makes cycling dearer than 2000 s of keeping */
	c.shutdown = 1800;
	n.next_use = 12 * H + 2000;
	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 12 * H),
			 LIBRA_POWER_KEEP);
	/* one idle point is not enough */
	c.shutdown = 60;
	n.idle_points = 1;
	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 12 * H),
			 LIBRA_POWER_KEEP);
}
END_TEST

START_TEST(test_power_transitions_are_left_alone)
{
	libra_tariff_t t = _tariff(DAYNIGHT);
	libra_power_cfg_t c = _cfg(LIBRA_POWER_H1);
	libra_power_node_t b = _node(LIBRA_NODE_BOOTING, false, INFINITY, 3);
	libra_power_node_t s = _node(LIBRA_NODE_STOPPING, false, 100, 0);

	ck_assert_int_eq(libra_power_decide(&c, &t, &b, 0), LIBRA_POWER_KEEP);
	ck_assert_int_eq(libra_power_decide(&c, &t, &s, 0), LIBRA_POWER_KEEP);
}
END_TEST

START_TEST(test_power_starts_cheapest_first)
{
	libra_tariff_t t = _tariff(DAYNIGHT);
	libra_power_cfg_t c = _cfg(LIBRA_POWER_H3);
	double s[16];
	int n;

	/* at 20:00, 2 h of work that may start until 06:00; the candidates
	 * are 20:00 (cost 2), 23:00 (1: all night; 00:00 is no change of
	 * rate) and the latest, 06:00 (1.5: an hour of each) */
	n = libra_power_starts(&c, &t, 20 * H, 30 * H, 2 * H, s, 16);
	ck_assert_int_eq(n, 3);
	ck_assert_double_eq_tol(s[0], 23 * H, TOL);
	ck_assert_double_eq_tol(s[1], 30 * H, TOL);
	ck_assert_double_eq_tol(s[2], 20 * H, TOL);
	/* flat hours: now first */
	n = libra_power_starts(&c, &t, 8 * H, 12 * H, H, s, 16);
	ck_assert_int_eq(n, 2);
	ck_assert_double_eq_tol(s[0], 8 * H, TOL);
	/* heuristics that do not defer, and no slack */
	c.heuristic = LIBRA_POWER_H1;
	ck_assert_int_eq(libra_power_starts(&c, &t, 20 * H, 30 * H, 2 * H,
					    s, 16), 1);
	ck_assert_double_eq_tol(s[0], 20 * H, TOL);
	c.heuristic = LIBRA_POWER_H5;
	ck_assert_int_eq(libra_power_starts(&c, &t, 20 * H, 20 * H, 2 * H,
					    s, 16), 1);
	ck_assert_int_eq(libra_power_starts(&c, &t, 20 * H, 30 * H, 2 * H,
					    s, 1), 1);
	ck_assert_double_eq_tol(s[0], 23 * H, TOL);
}
END_TEST

/* libra_power_ready_fn of the cases: node k is up from up[k]. */
static int _up_by(void *arg, double at, bool *mask)
{
	const double *up = arg;
	int out = 0;

	for (int k = 0; k < 2; k++) {
		mask[k] = up[k] <= at;
		out += !mask[k];
	}
	return out;
}

static libra_sla_t _sla(double runtime, double deadline)
{
	libra_sla_t sla;

	memset(&sla, 0, sizeof(sla));
	sla.runtime = runtime;
	sla.deadline = deadline;
	sla.set = LIBRA_SLA_DEADLINE;
	return sla;
}

/* The one admission under a power plan (admit_power.c) that job_submit/qos
 * and libra-sim call: a boot's end when only a powered-down node can take
 * the job, the cheapest start under h3, its paced deadline, a refusal. */
START_TEST(test_power_admission_boots_defers_and_paces)
{
	libra_ledger_t *l = libra_ledger_create(0.01);
	libra_tariff_t t = _tariff(DAYNIGHT);
	libra_power_cfg_t c = _cfg(LIBRA_POWER_H2);
	libra_params_t p;
	double up[2] = { 0.0, INFINITY };
	bool mask[2];
	libra_power_plan_t plan = { .l = l, .p = &p, .cfg = &c, .tariff = &t,
				    .ready = _up_by, .arg = up,
				    .mask = mask };
	libra_request_t req = { .cpus = 1 };
	libra_power_choice_t ch;
	libra_quote_t q;
	libra_sla_t busy = _sla(10 * H, 12 * H), sla;
	libra_place_t pl = PLACE(0, 1);

	libra_params_default(&p);
	libra_ledger_add_node(l, "n1", 1);
	libra_ledger_add_node(l, "n2", 1);
	/* n1 on and full until 12:00, n2 off: a boot's end on n2 */
	ck_assert_int_eq(libra_ledger_commit(l, 1, &busy, &pl, 1, 2 * H), 0);
	up[1] = 8 * H + c.boot;
	sla = _sla(H, 11 * H);
	libra_admit_power(&plan, &sla, &req, 8 * H, 8 * H, &q, &ch);
	ck_assert_int_eq(q.verdict, LIBRA_ACCEPT);
	ck_assert_double_eq_tol(ch.begin, 8 * H + c.boot, TOL);
	ck_assert(ch.boot && !ch.deferred);
	ck_assert_int_eq(q.place[0].node, 1);
	/* a deadline no boot can wait for: the widest quote's verdict */
	sla = _sla(H, 9 * H + 60);
	libra_admit_power(&plan, &sla, &req, 8 * H, 8 * H, &q, &ch);
	ck_assert_int_eq(q.verdict, LIBRA_REJECT_DEADLINE);
	/* h3 at 20:00, both up: the night start at 23:00 (see
	 * test_power_starts_cheapest_first); paced, its deadline is the
	 * morning's 07:00 */
	up[1] = 0.0;
	c.heuristic = LIBRA_POWER_H3;
	sla = _sla(2 * H, 32 * H);
	libra_admit_power(&plan, &sla, &req, 20 * H, 20 * H, &q, &ch);
	ck_assert_int_eq(q.verdict, LIBRA_ACCEPT);
	ck_assert_double_eq_tol(ch.begin, 23 * H, TOL);
	ck_assert(ch.deferred && !ch.boot);
	ck_assert_double_eq_tol(sla.deadline, 32 * H, TOL);
	plan.pace = true;
	libra_admit_power(&plan, &sla, &req, 20 * H, 20 * H, &q, &ch);
	ck_assert_double_eq_tol(ch.begin, 23 * H, TOL);
	ck_assert_double_eq_tol(sla.deadline, 31 * H, TOL);
	/* at most one start: the cheapest */
	plan.pace = false;
	plan.max_starts = 1;
	sla = _sla(2 * H, 32 * H);
	libra_admit_power(&plan, &sla, &req, 20 * H, 20 * H, &q, &ch);
	ck_assert_double_eq_tol(ch.begin, 23 * H, TOL);
	libra_ledger_destroy(l);
}
END_TEST

/*
 * A planned start at a busy site (admit_power.c, design.md decision 39):
 * nodes taken by jobs without an SLA until their time limits are tried as
 * bookings from when they free, earliest first; a deadline none of them
 * meets gets the same window from the first free time that takes it.
 */
START_TEST(test_admission_planned_when_nodes_free)
{
	const double T0 = 1000.0;
	libra_ledger_t *l = libra_ledger_create(0.01);
	double free_at[4] = { T0 + 100, T0 + 200, INFINITY, T0 + 50 };
	bool eligible[4] = { true, true, true, false }, mask[4];
	libra_request_t req = { .cpus = 1, .eligible = eligible };
	libra_sla_t busy = _sla(300, T0 + 400), sla;
	libra_place_t pl = PLACE(0, 1);
	libra_planned_t out;
	libra_params_t p;
	libra_quote_t q;

	libra_params_default(&p);
	libra_ledger_add_node(l, "n1", 1);
	libra_ledger_add_node(l, "n2", 1);
	libra_ledger_add_node(l, "n3", 1);
	libra_ledger_add_node(l, "n4", 1);
	/* the first to free, n1 at +100: a booking from then */
	sla = _sla(50, T0 + 200);
	libra_admit_when_free(l, &p, &sla, &req, free_at, mask, T0, T0, 0.0, &q,
			      &out);
	ck_assert(out.accepted);
	ck_assert_int_eq(q.verdict, LIBRA_ACCEPT);
	ck_assert_double_eq_tol(out.begin, T0 + 100, TOL);
	ck_assert_int_eq(q.nplace, 1);
	ck_assert_int_eq(q.place[0].node, 0);
	ck_assert_double_eq_tol(q.share, 50.0 / 100, TOL);
	ck_assert(req.eligible == mask && req.booked == T0);
	ck_assert(mask[0] && !mask[1] && !mask[2] && !mask[3]);
	/* two CPUs: n1 and n2 are both free only from +200 (n4, free at
	 * +50, is not the job's; n3 never frees) */
	req = (libra_request_t) { .cpus = 2, .eligible = eligible };
	sla = _sla(100, T0 + 400);
	libra_admit_when_free(l, &p, &sla, &req, free_at, mask, T0, T0, 0.0, &q,
			      &out);
	ck_assert(out.accepted);
	ck_assert_double_eq_tol(out.begin, T0 + 200, TOL);
	ck_assert_int_eq(q.nplace, 2);
	/* n1's share is committed until +400: the next time, on n2 */
	ck_assert_int_eq(libra_ledger_commit(l, 1, &busy, &pl, 1, T0), 0);
	req = (libra_request_t) { .cpus = 1, .eligible = eligible };
	sla = _sla(50, T0 + 300);
	libra_admit_when_free(l, &p, &sla, &req, free_at, mask, T0, T0, 0.0, &q,
			      &out);
	ck_assert(out.accepted);
	ck_assert_double_eq_tol(out.begin, T0 + 200, TOL);
	ck_assert_int_eq(q.place[0].node, 1);
	/* a deadline no free time meets: refused, req as it came, and the
	 * next free slot the same 220 s window from n1's +100 (a share of
	 * 50 / 220 fits beside the committed 0.75) */
	req = (libra_request_t) { .cpus = 1, .eligible = eligible,
				  .booked = 0.0 };
	sla = _sla(50, T0 + 220);
	libra_admit_when_free(l, &p, &sla, &req, free_at, mask, T0, T0, 0.0, &q,
			      &out);
	ck_assert(!out.accepted);
	ck_assert(req.eligible == eligible && req.booked == 0.0);
	ck_assert(out.slot_found);
	ck_assert_double_eq_tol(out.slot.begin, T0 + 100, TOL);
	ck_assert_double_eq_tol(out.slot.deadline, T0 + 320, TOL);
	/* only times after "earliest" are tried: from +250 none is left */
	libra_admit_when_free(l, &p, &sla, &req, free_at, mask, T0, T0 + 250,
			      0.0, &q, &out);
	ck_assert(!out.accepted && !out.slot_found);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_power_node_use_from_the_ledger)
{
	libra_ledger_t *l = libra_ledger_create(0.01);
	libra_place_t pl = PLACE(0, 1);
	libra_sla_t sla;
	bool busy;
	double next;

	libra_ledger_add_node(l, "n1", 1);
	libra_power_node_use(l, 0, 100, &busy, &next);
	ck_assert(!busy);
	ck_assert(isinf(next));
	memset(&sla, 0, sizeof(sla));
	sla.runtime = 100;
	sla.deadline = 2000;
	ck_assert_int_eq(libra_ledger_commit_booked(l, 7, &sla, &pl, 1, 100,
						    1000), 0);
	libra_power_node_use(l, 0, 100, &busy, &next);
	ck_assert(!busy);
	ck_assert_double_eq_tol(next, 1000, TOL);
	libra_power_node_use(l, 0, 1000, &busy, &next);
	ck_assert(busy);
	ck_assert(isinf(next));
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_params_power_keys)
{
	libra_params_t p;
	char err[256] = "", shown[4096];

	libra_params_default(&p);
	ck_assert_int_eq(p.power, LIBRA_POWER_NONE);
	ck_assert_int_eq(libra_params_parse(&p, "defer,libra_power=h3,"
					    "libra_power_interval=60,"
					    "libra_power_boot=5,"
					    "libra_tariff=" DAYNIGHT ","
					    "libra_tariff_price=yes,"
					    "libra_power_pace=yes",
					    err, sizeof(err)), 0);
	ck_assert_int_eq(p.power, LIBRA_POWER_H3);
	ck_assert_double_eq_tol(p.power_interval, 60, TOL);
	ck_assert_double_eq_tol(p.power_boot, 5, TOL);
	ck_assert_double_eq_tol(p.power_shutdown, 60, TOL);
	ck_assert_int_eq(p.tariff.n, 3);
	ck_assert(p.tariff_price);
	ck_assert(p.power_pace);
	libra_params_format(&p, shown, sizeof(shown));
	ck_assert_names(shown, "libra_power=h3");
	ck_assert_names(shown, "libra_tariff=00:00=0.5;07:00=1;23:00=0.5");
	/* refused, and nothing changes */
	ck_assert_int_eq(libra_params_parse(&p, "libra_power=h4", err,
					    sizeof(err)), -1);
	ck_assert_names(err, "libra_power=h4");
	ck_assert_int_eq(libra_params_parse(&p, "libra_tariff=07:00=x", err,
					    sizeof(err)), -1);
	ck_assert_names(err, "libra_tariff");
	ck_assert_int_eq(libra_params_parse(&p, "libra_power_interval=0", err,
					    sizeof(err)), -1);
	ck_assert_int_eq(p.power, LIBRA_POWER_H3);
	ck_assert_int_eq(p.tariff.n, 3);
}
END_TEST

START_TEST(test_price_base_follows_the_tariff)
{
	libra_params_t p;

	libra_params_default(&p);
	p.tariff = _tariff(DAYNIGHT);
	/* off: PBase whatever the hour */
	ck_assert_double_eq_tol(libra_price_base_window(&p, 0, H),
				1.0 / 3600, TOL);
	p.tariff_price = true;
	/* night 0.5 against a mean of 20/24: PBase x 0.6 */
	ck_assert_double_eq_tol(libra_price_base_window(&p, 0, H) * 3600,
				0.6, 1e-12);
	ck_assert_double_eq_tol(libra_price_base_window(&p, 8 * H, 9 * H) *
				3600, 1.2, 1e-12);
	/* a whole day: PBase */
	ck_assert_double_eq_tol(libra_price_base_window(&p, 0, 86400) * 3600,
				1.0, 1e-12);
}
END_TEST

/* A decision point's nodes and actions for the warm pool's tests. */
#define NWARM 6

START_TEST(test_power_exempt_node_is_never_removed)
{
	libra_tariff_t t = _tariff(DAYNIGHT);
	libra_power_cfg_t c = _cfg(LIBRA_POWER_H1);
	libra_power_node_t n = _node(LIBRA_NODE_ON, false, INFINITY, 5);

	n.exempt = true;
	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 0), LIBRA_POWER_KEEP);
	/* powered down already: booted only when work needs it */
	n.state = LIBRA_NODE_OFF;
	ck_assert_int_eq(libra_power_decide(&c, &t, &n, 0), LIBRA_POWER_KEEP);
}
END_TEST

START_TEST(test_warm_pool_cancels_removals_before_booting)
{
	/* nodes: 0 busy, 1-3 idle and to be removed, 4-5 off */
	libra_power_node_t n[NWARM];
	libra_power_action_t a[NWARM];

	for (int i = 0; i < NWARM; i++) {
		n[i] = _node(i < 4 ? LIBRA_NODE_ON : LIBRA_NODE_OFF, i == 0,
			     INFINITY, 2);
		a[i] = i >= 1 && i <= 3 ? LIBRA_POWER_DOWN : LIBRA_POWER_KEEP;
	}
	ck_assert_int_eq(libra_power_keep_idle(n, a, NWARM, NULL, 2), 2);
	ck_assert_int_eq(a[1], LIBRA_POWER_KEEP);
	ck_assert_int_eq(a[2], LIBRA_POWER_KEEP);
	ck_assert_int_eq(a[3], LIBRA_POWER_DOWN);
	ck_assert_int_eq(a[4], LIBRA_POWER_KEEP);
	/* more than the idle powered nodes: the others kept, then booted */
	ck_assert_int_eq(libra_power_keep_idle(n, a, NWARM, NULL, 5), 3);
	ck_assert_int_eq(a[3], LIBRA_POWER_KEEP);
	ck_assert_int_eq(a[4], LIBRA_POWER_UP);
	ck_assert_int_eq(a[5], LIBRA_POWER_UP);
	/* nothing left to change: the busy node does not count */
	ck_assert_int_eq(libra_power_keep_idle(n, a, NWARM, NULL, 6), 0);
}
END_TEST

START_TEST(test_warm_pool_counts_kept_and_booting_nodes)
{
	libra_power_node_t n[NWARM];
	libra_power_action_t a[NWARM];

	for (int i = 0; i < NWARM; i++) {
		n[i] = _node(LIBRA_NODE_OFF, false, INFINITY, 0);
		a[i] = LIBRA_POWER_KEEP;
	}
	n[0].state = LIBRA_NODE_ON;	/* idle, kept */
	n[1].state = LIBRA_NODE_BOOTING;
	n[2].state = LIBRA_NODE_STOPPING;	/* leaving: not warm */
	ck_assert_int_eq(libra_power_keep_idle(n, a, NWARM, NULL, 2), 0);
	ck_assert_int_eq(libra_power_keep_idle(n, a, NWARM, NULL, 3), 1);
	ck_assert_int_eq(a[2], LIBRA_POWER_KEEP);	/* not booted */
	ck_assert_int_eq(a[3], LIBRA_POWER_UP);
}
END_TEST

START_TEST(test_warm_pool_of_a_set_like_suspend_exc_nodes_count)
{
	/* SuspendExcNodes=n[3-5]:1: one of nodes 3-5 stays warm, the rest
	 * go as decided */
	libra_power_node_t n[NWARM];
	libra_power_action_t a[NWARM];
	const bool set[NWARM] = { false, false, false, true, true, true };

	for (int i = 0; i < NWARM; i++) {
		n[i] = _node(LIBRA_NODE_ON, false, INFINITY, 2);
		a[i] = LIBRA_POWER_DOWN;
	}
	ck_assert_int_eq(libra_power_keep_idle(n, a, NWARM, set, 1), 1);
	for (int i = 0; i < NWARM; i++)
		ck_assert_int_eq(a[i], i == 3 ? LIBRA_POWER_KEEP :
					   LIBRA_POWER_DOWN);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("power");
	TCase *tc = tcase_create("tariff");

	T(tc, test_tariff_rates_by_time_of_day);
	T(tc, test_tariff_offset_moves_the_day);
	T(tc, test_tariff_first_rate_not_at_midnight_wraps);
	T(tc, test_tariff_cost_integrates_the_rate);
	T(tc, test_tariff_none_is_node_hours);
	T(tc, test_tariff_format_round_trips);
	T(tc, test_tariff_bad_specs_are_named_and_change_nothing);
	T(tc, test_tariff_file_is_read_with_comments);
	suite_add_tcase(s, tc);

	tc = tcase_create("power");
	T(tc, test_power_names);
	T(tc, test_power_busy_node_is_never_removed);
	T(tc, test_power_exempt_node_is_never_removed);
	T(tc, test_warm_pool_cancels_removals_before_booting);
	T(tc, test_warm_pool_counts_kept_and_booting_nodes);
	T(tc, test_warm_pool_of_a_set_like_suspend_exc_nodes_count);
	T(tc, test_power_h1_removes_idle_at_once_h2_after_two);
	T(tc, test_power_static_keeps_and_deploys_everything);
	T(tc, test_power_booked_work_deploys_a_node_in_time);
	T(tc, test_power_h3_removes_only_when_cheaper_than_cycling);
	T(tc, test_power_transitions_are_left_alone);
	T(tc, test_power_starts_cheapest_first);
	T(tc, test_power_admission_boots_defers_and_paces);
	T(tc, test_admission_planned_when_nodes_free);
	T(tc, test_power_node_use_from_the_ledger);
	T(tc, test_params_power_keys);
	T(tc, test_price_base_follows_the_tariff);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
