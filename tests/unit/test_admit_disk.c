/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_admit_disk.c - scratch disk (Slurm's --tmp, a node's TmpDisk) in
 *  admission, held whole per node as memory per node is (doc/design.md
 *  decision 17; ledger.h, admit.c, admit_price.c, admit_offers.c): the
 *  fit under every policy, what admitted and best-effort jobs hold and
 *  release, untracked nodes, the "disk" refusal, its figures and its place
 *  among the causes (memory, GPUs, disk, slots), "resources" when no node
 *  has that much TmpDisk, counter-offers that offer no later deadline,
 *  the price per GB-hour (static and Libra+$, marked up, in the budget),
 *  and the record of an admission with disk read back.
 *
 *  The fixture, and what holds unless a case says otherwise:
 *  admit_fixture.h.
\*****************************************************************************/

#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "admit_fixture.h"
#include "ledger.h"
#include "params.h"
#include "record.h"
#include "testutil.h"

/* n nodes of "cpus" CPUs, each with tmp_mb of TmpDisk. */
static libra_ledger_t *_disk_nodes(int n, int cpus, uint64_t tmp_mb)
{
	libra_ledger_t *l = _nodes(n, cpus);

	for (int i = 0; i < n; i++)
		ck_assert_int_eq(libra_ledger_set_node_tmp(l, i, tmp_mb), 0);
	return l;
}

/* Job "job" holds tmp_mb of scratch disk (and mem_mb, gpus) on one CPU of
 * node; with an SLA of share 0.01 (RE 10, TD 1000), or best effort. */
static void _hold(libra_ledger_t *l, uint32_t job, int node, uint64_t tmp_mb,
		  uint64_t mem_mb, int gpus, bool best_effort)
{
	libra_place_t pl = { .node = node, .cpus = 1, .mem_mb = mem_mb,
			     .gpus = gpus, .tmp_mb = tmp_mb };

	_hold_place(l, job, &pl, best_effort);
}

/* ---------------------------------------------------------------- */
/* The fit                                                            */
/* ---------------------------------------------------------------- */

START_TEST(test_disk_fits_only_where_free)
{
	/* 2 x 4 CPUs x 10000 MB of TmpDisk; node 0 holds 7000 and is the
	 * fuller (best fit), but 4000 MB fit only on node 1; 2000 on node 0 */
	libra_ledger_t *l = _disk_nodes(2, 4, 10000);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.tmp_mb = 4000 };

	_hold(l, 1, 0, 7000, 0, 0, false);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 1);
	ck_assert_int_eq(q.place[0].node, 1);
	ck_assert_uint_eq(q.place[0].tmp_mb, 4000);
	ck_assert_uint_eq(q.place[0].mem_mb, 0);
	req.demand.tmp_mb = 3000;	/* exactly what node 0 has free */
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 0);
	ck_assert_uint_eq(q.place[0].tmp_mb, 3000);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_disk_is_per_node_not_per_cpu)
{
	/* 3 x 2 CPUs x 5000 MB: 4 CPUs on at least 2 nodes, 5000 MB each:
	 * every place holds 5000 MB, whatever its CPUs */
	libra_ledger_t *l = _disk_nodes(3, 2, 5000);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 4, .min_nodes = 2,
				.demand.tmp_mb = 5000 };

	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 2);
	for (int i = 0; i < q.nplace; i++)
		ck_assert_uint_eq(q.place[i].tmp_mb, 5000);
	/* committed: each node holds all of its disk */
	ck_assert_int_eq(libra_ledger_commit(l, 1, &sla, q.place, q.nplace,
					     0), 0);
	for (int i = 0; i < q.nplace; i++)
		ck_assert_uint_eq(libra_ledger_node_tmp_free(l,
							     q.place[i].node),
				  0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_admitted_and_best_effort_jobs_hold_disk)
{
	/* one node of 10000 MB: an admitted job takes 6000, then 4000 more
	 * do not fit beside 1000 held by a best-effort job; released, they
	 * do */
	libra_ledger_t *l = _disk_nodes(1, 4, 10000);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.tmp_mb = 6000 };

	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(libra_ledger_commit(l, 1, &sla, q.place, q.nplace,
					     0), 0);
	ck_assert_uint_eq(libra_ledger_node_tmp_used(l, 0), 6000);
	_hold(l, 2, 0, 1000, 0, 0, true);
	ck_assert_uint_eq(libra_ledger_node_tmp_free(l, 0), 3000);
	req.demand.tmp_mb = 4000;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_DISK);
	/* the best-effort job ends: 4000 free, enough */
	ck_assert_int_eq(libra_ledger_release(l, 2), 0);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	/* a best-effort job of 5000 instead: 11000 held, nothing free;
	 * the admitted one ends: 5000 free */
	_hold(l, 2, 0, 5000, 0, 0, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_DISK);
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_held_fits_counts_disk)
{
	/* sched/libra's test for a best-effort start: node 0 has 2000 of
	 * its 8000 MB free, node 1 all, node 2 tracks none */
	libra_ledger_t *l = _disk_nodes(3, 4, 8000);
	libra_demand_t disk = { .tmp_mb = 4000 };

	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 2, 0), 0);
	_hold(l, 1, 0, 6000, 0, 0, false);
	ck_assert(!libra_admit_held_fits(l, &disk, 0, 1));
	ck_assert(libra_admit_held_fits(l, &disk, 1, 4));
	ck_assert(libra_admit_held_fits(l, &disk, 2, 4));
	disk.tmp_mb = 2000;
	ck_assert(libra_admit_held_fits(l, &disk, 0, 4));
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	disk.tmp_mb = 8000;
	ck_assert(libra_admit_held_fits(l, &disk, 0, 1));
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_untracked_disk_does_not_limit)
{
	/* nodes whose TmpDisk is not tracked hold any request, and the
	 * place records none (the ledger cannot count it); a cluster of
	 * both: the tracked node, full, is passed over */
	libra_ledger_t *l = _nodes(2, 4);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 2, .demand.tmp_mb = 1000000 };

	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_uint_eq(q.place[0].tmp_mb, 0);
	ck_assert_uint_eq(q.largest.tmp_mb, 0);
	ck_assert_uint_eq(q.asked.tmp_mb, 1000000);
	/* node 0 (the fuller) tracks 2000 MB, all held; node 1 none */
	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 0, 2000), 0);
	_hold(l, 1, 0, 2000, 0, 0, true);
	_commit(l, 2, 100, 400, 0, 1, 0);
	req.demand.tmp_mb = 1000;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 1);
	ck_assert_int_eq(q.place[0].node, 1);
	ck_assert_uint_eq(q.place[0].tmp_mb, 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_job_asking_no_disk_ignores_disk_held)
{
	/* a request without --tmp is decided as before: all the node's
	 * disk held does not matter, no figures, no price */
	libra_ledger_t *l = _disk_nodes(1, 4, 8000);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1 };

	p.price_disk = 3.6;
	_hold(l, 1, 0, 8000, 0, 0, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_uint_eq(q.place[0].tmp_mb, 0);
	ck_assert_uint_eq(q.largest.tmp_mb, 0);
	ck_assert_uint_eq(q.asked.tmp_mb, 0);
	ck_assert_double_eq(q.price_disk, 0.0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_every_policy_tests_disk)
{
	/* node 0: its disk held by a best-effort job; node 1 free.  Every
	 * policy places the job on node 1, holding its disk there, and with
	 * node 1 down refuses it for disk */
	for (int pol = 0; pol < LIBRA_POLICY_COUNT; pol++) {
		libra_ledger_t *l = _disk_nodes(2, 4, 8000);
		libra_params_t p = _params((libra_policy_t) pol);
		libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
		libra_request_t req = { .cpus = 1, .demand.tmp_mb = 1000 };

		_hold(l, 1, 0, 7500, 0, 0, true);
		_admit_req(l, &p, &sla, &req);
		ck_assert_msg(q.verdict == LIBRA_ACCEPT &&
			      q.place[0].node == 1 &&
			      q.place[0].tmp_mb == 1000,
			      "%s: %s on node %d", libra_policy_name(pol),
			      libra_verdict_name(q.verdict), q.place[0].node);
		libra_ledger_set_node_up(l, 1, false);
		_admit_req(l, &p, &sla, &req);
		ck_assert_msg(q.verdict == LIBRA_REJECT_DISK, "%s: %s",
			      libra_policy_name(pol),
			      libra_verdict_name(q.verdict));
		ck_assert_int_eq(q.nplace, 0);
		libra_ledger_destroy(l);
	}
}
END_TEST

START_TEST(test_invalid_disk_request)
{
	/* more than 2^40 MB is a mistake, as for memory */
	libra_ledger_t *l = _disk_nodes(1, 4, 8000);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1,
				.demand.tmp_mb = ((uint64_t) 1 << 40) + 1 };

	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_INVALID);
	libra_ledger_destroy(l);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Refusals                                                           */
/* ---------------------------------------------------------------- */

START_TEST(test_disk_refusal_gives_the_figures)
{
	/* nodes of 10000 and 6000 MB with 4000 and 3000 free: 5000 MB asked,
	 * at most 4000 free on any node, the largest has 10000 */
	libra_ledger_t *l = _disk_nodes(2, 4, 10000);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.tmp_mb = 5000 };

	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 1, 6000), 0);
	_hold(l, 1, 0, 6000, 0, 0, true);
	_hold(l, 2, 1, 3000, 0, 0, false);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_DISK);
	ck_assert_int_eq(q.nplace, 0);
	ck_assert_int_eq(q.held_node, -1);
	ck_assert_uint_eq(q.asked.tmp_mb, 5000);
	ck_assert_uint_eq(q.most_free.tmp_mb, 4000);
	ck_assert_uint_eq(q.largest.tmp_mb, 10000);
	/* memory's figures are memory's alone */
	ck_assert_uint_eq(q.asked.mem_mb, 0);
	ck_assert_uint_eq(q.largest.mem_mb, 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_more_disk_than_any_node_has_is_resources)
{
	/* never fits, however empty the cluster: "resources", as for
	 * memory; a node that does not track its disk could hold it */
	libra_ledger_t *l = _disk_nodes(2, 4, 10000);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.tmp_mb = 20000 };

	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_RESOURCES);
	ck_assert_uint_eq(q.largest.tmp_mb, 10000);
	ck_assert_uint_eq(q.asked.tmp_mb, 20000);
	/* one node large enough, all held: disk, not resources */
	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 1, 20000), 0);
	_hold(l, 1, 1, 1, 0, 0, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_DISK);
	ck_assert_uint_eq(q.largest.tmp_mb, 20000);
	ck_assert_uint_eq(q.most_free.tmp_mb, 19999);
	/* a node down does not count */
	libra_ledger_set_node_up(l, 1, false);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_RESOURCES);
	ck_assert_uint_eq(q.largest.tmp_mb, 10000);
	/* untracked, node 0 holds it */
	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 0, 0), 0);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_refusal_causes_in_order_memory_gpus_disk_slots)
{
	/* one node of 4 CPUs, 8000 MB of memory and of disk, 1 GPU, its
	 * memory, GPU and disk held by best-effort jobs as each case says */
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1,
				.demand = { .mem_per_node = 1000,
					    .gpus_per_node = 1,
					    .tmp_mb = 1000 } };
	libra_ledger_t *l;

	/* the disk alone short: disk */
	l = _disk_nodes(1, 4, 8000);
	ck_assert_int_eq(libra_ledger_set_node_resources(l, 0, 8000, 1), 0);
	_hold(l, 1, 0, 7500, 0, 0, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_DISK);
	/* memory short too, each alone lifted still short: memory first */
	_hold(l, 2, 0, 0, 7500, 0, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_MEMORY);
	/* without memory asked, GPU and disk short: GPUs before disk */
	ck_assert_int_eq(libra_ledger_release(l, 2), 0);
	_hold(l, 2, 0, 0, 0, 1, true);
	req.demand.mem_per_node = 0;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_GPUS);
	/* the GPU free again: disk */
	ck_assert_int_eq(libra_ledger_release(l, 2), 0);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_DISK);
	libra_ledger_destroy(l);

	/* FORCE:1, the only CPU run by a best-effort job holding no disk:
	 * the slot stands in the way, not the disk */
	l = _disk_nodes(1, 1, 8000);
	req = (libra_request_t) { .cpus = 1, .slots_per_cpu = 1,
				  .demand.tmp_mb = 1000 };
	_hold(l, 1, 0, 0, 0, 0, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_SLOTS);
	/* that job holds the disk as well: only lifting both admits, and
	 * the disk is named */
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	_hold(l, 1, 0, 7500, 0, 0, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_DISK);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_disk_free_where_the_share_is_short_names_the_share)
{
	/* node 0 tracks no disk and has CPU share to spare; node 1 has its
	 * disk free, but admitted jobs take its CPU share: the verdict is
	 * the share's, naming node 1, and a later deadline is offered */
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.tmp_mb = 1000 };
	libra_offer_t o;

	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 0, 500), 0);
	ck_assert_int_eq(libra_ledger_set_node_tmp(l, 1, 2000), 0);
	_commit(l, 1, 390, 400, 1, 1, 0);
	/* node 0 could hold the share, but its TmpDisk is too small; the
	 * largest is node 1's */
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	ck_assert_int_eq(q.held_node, 1);
	ck_assert_uint_eq(q.asked.tmp_mb, 1000);
	ck_assert_uint_eq(q.most_free.tmp_mb, 2000);
	libra_counter_offer(l, &p, &sla, &req, 0, 86400, &o);
	ck_assert_int_eq(o.blocked_by, LIBRA_ACCEPT);
	ck_assert(o.has_deadline);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_counter_offer_no_later_deadline_for_disk)
{
	/* the only node's disk is held by a best-effort job: no deadline and
	 * no budget frees it, none is offered, and the offer says why */
	libra_ledger_t *l = _disk_nodes(1, 4, 8000);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(100, 0, 400, 1000);
	libra_request_t req = { .cpus = 1, .demand.tmp_mb = 2000 };
	libra_offer_t o;

	_hold(l, 1, 0, 7000, 0, 0, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_DISK);
	libra_counter_offer(l, &p, &sla, &req, 0, 86400, &o);
	ck_assert_int_eq(o.blocked_by, LIBRA_REJECT_DISK);
	ck_assert(!o.has_deadline);
	ck_assert(!o.has_budget);
	/* within a time limit alike */
	libra_counter_offer_within(l, &p, &sla, &req, 0, 86400,
				   LIBRA_SEARCH_SECONDS, &o);
	ck_assert_int_eq(o.blocked_by, LIBRA_REJECT_DISK);
	ck_assert(!o.has_deadline);
	/* released: nothing blocks, and it is admitted */
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	libra_counter_offer(l, &p, &sla, &req, 0, 86400, &o);
	ck_assert_int_eq(o.blocked_by, LIBRA_ACCEPT);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_disk_verdict_name_and_reason)
{
	/* appended: the verdicts before it keep their numbers */
	ck_assert_int_eq(LIBRA_REJECT_DUEDATE, 10);
	ck_assert_int_eq(LIBRA_REJECT_DISK, 11);
	ck_assert_str_eq(libra_verdict_name(LIBRA_REJECT_DISK), "disk");
	ck_assert_str_eq(libra_verdict_reason(LIBRA_REJECT_DISK),
			 "not enough free scratch disk (TmpDisk) on the nodes where the CPU share fits");
	ck_assert_str_eq(libra_verdict_name(LIBRA_REJECT_DUEDATE),
			 "duedate");
}
END_TEST

/* ---------------------------------------------------------------- */
/* Prices (thesis section 3.4.1: disk per GB)                         */
/* ---------------------------------------------------------------- */

/*
 * price_base 3600 per CPU-hour (1 per CPU-second), price_disk 3686.4 per
 * GB-hour (1e-3 per MB-second); RE 100, TD 400, now 0: the window is
 * 400 s.
 */
#define DISK_PRICE (3.6 * 1024.0)

START_TEST(test_static_price_adds_the_disk_per_gb_hour)
{
	/* Libra: CPU 1 * (100 + 100/400) = 100.25; disk 1000 MB * 400 s *
	 * 1e-3 = 400; in all 500.25.  Per GB-hour: 1 GB held 2 hours at 3
	 * per GB-hour costs 6 */
	libra_ledger_t *l = _disk_nodes(1, 4, 8000);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.tmp_mb = 1000 };

	p.price_disk = DISK_PRICE;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price_disk, 400.0, 1e-9);
	ck_assert_double_eq(q.price_mem, 0.0);
	ck_assert_double_eq(q.price_gpus, 0.0);
	ck_assert_double_eq_tol(q.price, 500.25, 1e-9);
	ck_assert_double_eq_tol(q.rate_max, 100.25 / 100.0, 1e-12);
	p.price_disk = 3.0;
	req.demand.tmp_mb = 1024;
	sla = _sla(100, 0, 7200, NO_BUDGET);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price_disk, 6.0, 1e-12);
	/* the default price: the CPU's alone, as before */
	p.price_disk = 0.0;
	sla = _sla(100, 0, 400, NO_BUDGET);
	_admit_req(l, &p, &sla, &req);
	ck_assert_double_eq_tol(q.price, 100.25, 1e-9);
	ck_assert_double_eq(q.price_disk, 0.0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_untracked_disk_is_not_priced)
{
	/* no TmpDisk known: the place holds none, and pays none */
	libra_ledger_t *l = _nodes(1, 4);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.tmp_mb = 1000 };

	p.price_disk = DISK_PRICE;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq(q.price_disk, 0.0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_market_price_adds_the_disk_at_the_node_rate)
{
	/* Libra+$ (alpha 1, beta 0.1) on one node of 4 CPUs and 8192 MB of
	 * TmpDisk, 2048 held by a best-effort job (no share):
	 *   CPU: RESFree = 1600 - 100 = 1500, P = 1 + 0.1 * 16/15, 100 P;
	 *   disk, 2048 of 8192 held through the window: PUtil = 4/3 PBase,
	 *   P = (1 + 0.1 * 4/3) 1e-3, 1024 MB * 400 s: 409.6 (1 + 0.4/3) */
	libra_ledger_t *l = _disk_nodes(1, 4, 8192);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.tmp_mb = 1024 };
	double cpu = 100.0 * (1.0 + 0.1 * 16.0 / 15.0);
	double disk = 409.6 * (1.0 + 0.4 / 3.0);

	_hold(l, 1, 0, 2048, 0, 0, true);
	p.price_disk = DISK_PRICE;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price_disk, disk, 1e-9);
	ck_assert_double_eq_tol(q.price, cpu + disk, 1e-9);
	/* the CPU rate is the CPUs' alone */
	ck_assert_double_eq_tol(q.rate_max, 1.0 + 0.1 * 16.0 / 15.0, 1e-12);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_budget_counts_the_disk_price)
{
	/* Libra: 100.25 for the CPU, 400 for the disk.  A budget of 150 is
	 * refused naming 500.25, offered that budget, which admits; without
	 * the disk 150 is enough.  Libra+$ alike (the per-node test) */
	libra_ledger_t *l = _disk_nodes(1, 4, 8000);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, 150);
	libra_request_t req = { .cpus = 1, .demand.tmp_mb = 1000 };
	libra_offer_t o;
	double cpu = 100.0 * (1.0 + 0.1 * 16.0 / 15.0);

	p.price_disk = DISK_PRICE;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_BUDGET);
	ck_assert_double_eq_tol(q.least_price, 500.25, 1e-9);
	libra_counter_offer(l, &p, &sla, &req, 0, 4000, &o);
	ck_assert(o.has_budget);
	ck_assert_double_eq_tol(o.budget, 500.25, 1e-9);
	ck_assert_int_eq(o.blocked_by, LIBRA_ACCEPT);
	sla.budget = o.budget;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	sla.budget = 150;
	req.demand.tmp_mb = 0;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	/* Libra+$: the idle node's disk at (1 + 0.1) 1e-3 per MB-second */
	p = _params(LIBRA_POLICY_LIBRA_PRICE);
	p.price_disk = DISK_PRICE;
	req.demand.tmp_mb = 1000;
	sla.budget = cpu + 100.0;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_BUDGET);
	ck_assert_double_eq_tol(q.least_price, cpu + 440.0, 1e-9);
	sla.budget = cpu + 440.0;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price_disk, 440.0, 1e-9);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_markup_applies_to_the_disk_price)
{
	/* ISQoS: the service price is (1 + markup) times every part */
	libra_ledger_t *l = _disk_nodes(1, 4, 8000);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.tmp_mb = 1000 };

	p.price_disk = DISK_PRICE;
	p.markup = 0.5;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price_disk, 600.0, 1e-9);
	ck_assert_double_eq_tol(q.price, 1.5 * 500.25, 1e-9);
	libra_ledger_destroy(l);
}
END_TEST

/* ---------------------------------------------------------------- */
/* The record                                                         */
/* ---------------------------------------------------------------- */

START_TEST(test_record_of_an_admission_with_disk_round_trips)
{
	/* admitted on 2 nodes with 3000 MB of disk each, priced: the record
	 * says what it asked, what each place holds and what the disk cost,
	 * reads back bit for bit, and commits the same disk again (as the
	 * plugins rebuild the ledger from the records) */
	const double t0 = 1795000000.0;
	libra_ledger_t *l = _disk_nodes(2, 2, 8000), *again;
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, t0, t0 + 400, NO_BUDGET);
	libra_request_t req = { .cpus = 4, .min_nodes = 2,
				.demand.tmp_mb = 3000 };
	libra_record_t r, back;
	libra_place_t pl[2];
	char *json, err[256];

	p.price_disk = DISK_PRICE;
	memset(&q, 0x5a, sizeof(q));
	libra_admit(l, &p, &sla, &req, t0, &q);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 2);
	ck_assert_double_eq_tol(q.price_disk, 2 * 3000 * 400 * 1e-3, 1e-9);

	memset(&r, 0, sizeof(r));
	r.policy = p.policy;
	r.sla = sla;
	r.admitted = t0;
	r.price = q.price;
	r.price_disk = q.price_disk;
	r.rate = q.rate_max;
	r.demand = req.demand;
	ck_assert_int_eq(libra_record_set_place(&r, l, q.place, q.nplace), 0);
	ck_assert_uint_eq(r.place[0].tmp_mb, 3000);
	json = libra_record_to_json(&r);
	ck_assert_ptr_nonnull(json);
	ck_assert_ptr_nonnull(strstr(json, "\"demand\":{\"tmp_mb\":3000}"));
	ck_assert_ptr_nonnull(strstr(json, "\"price_disk\":"));
	ck_assert_ptr_nonnull(strstr(json, "\"tmp\":3000"));
	ck_assert_ptr_null(strstr(json, "price_mem"));
	ck_assert_msg(libra_record_from_json(json, &back, err,
					     sizeof(err)) == 0, "%s", err);
	ck_assert(back.price_disk == r.price_disk);
	ck_assert(back.price == r.price);
	ck_assert(!memcmp(&back.demand, &r.demand, sizeof(r.demand)));
	ck_assert_int_eq(back.nplace, 2);

	again = _disk_nodes(2, 2, 8000);
	for (int i = 0; i < back.nplace; i++) {
		ck_assert_uint_eq(back.place[i].tmp_mb, 3000);
		pl[i] = (libra_place_t) {
			.node = libra_ledger_find_node(again,
						       back.place[i].node),
			.cpus = back.place[i].cpus,
			.tmp_mb = back.place[i].tmp_mb };
	}
	ck_assert_int_eq(libra_ledger_commit(again, 1, &back.sla, pl,
					     back.nplace, t0), 0);
	for (int j = 0; j < 2; j++)
		ck_assert_uint_eq(libra_ledger_node_tmp_free(again, j), 5000);
	free(json);
	libra_record_free(&r);
	libra_record_free(&back);
	libra_ledger_destroy(again);
	libra_ledger_destroy(l);
}
END_TEST

static Suite *_suite(void)
{
	Suite *s = suite_create("admit_disk");
	TCase *tc = tcase_create("fit");

	T(tc, test_disk_fits_only_where_free);
	T(tc, test_disk_is_per_node_not_per_cpu);
	T(tc, test_admitted_and_best_effort_jobs_hold_disk);
	T(tc, test_held_fits_counts_disk);
	T(tc, test_untracked_disk_does_not_limit);
	T(tc, test_job_asking_no_disk_ignores_disk_held);
	T(tc, test_every_policy_tests_disk);
	T(tc, test_invalid_disk_request);
	suite_add_tcase(s, tc);

	tc = tcase_create("refusals");
	T(tc, test_disk_refusal_gives_the_figures);
	T(tc, test_more_disk_than_any_node_has_is_resources);
	T(tc, test_refusal_causes_in_order_memory_gpus_disk_slots);
	T(tc, test_disk_free_where_the_share_is_short_names_the_share);
	T(tc, test_counter_offer_no_later_deadline_for_disk);
	T(tc, test_disk_verdict_name_and_reason);
	suite_add_tcase(s, tc);

	tc = tcase_create("prices");
	T(tc, test_static_price_adds_the_disk_per_gb_hour);
	T(tc, test_untracked_disk_is_not_priced);
	T(tc, test_market_price_adds_the_disk_at_the_node_rate);
	T(tc, test_budget_counts_the_disk_price);
	T(tc, test_markup_applies_to_the_disk_price);
	suite_add_tcase(s, tc);

	tc = tcase_create("record");
	T(tc, test_record_of_an_admission_with_disk_round_trips);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
