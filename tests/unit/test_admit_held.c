/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  test_admit_held.c - memory and GPUs in admission (doc/design.md
 *  decision 17; admit.c, admit_price.c, admit_offers.c): the fit under
 *  every policy, per CPU and per node, spread GPUs, the "memory" and
 *  "gpus" refusals and their figures, "resources" when no node could
 *  ever hold them, summed prices and budgets, counter-offers that offer
 *  no deadline for memory.
 *
 *  The fixture, and what holds unless a case says otherwise:
 *  admit_fixture.h.
\*****************************************************************************/

#include <string.h>

#include "admit.h"
#include "admit_fixture.h"
#include "ledger.h"
#include "params.h"
#include "testutil.h"

/* ---------------------------------------------------------------- */
/* Memory and GPUs (decision 17)                                      */
/* ---------------------------------------------------------------- */

/* n nodes of "cpus" CPUs, each with mem_mb of memory and "gpus" GPUs. */
static libra_ledger_t *_held_nodes(int n, int cpus, uint64_t mem_mb,
				   int gpus)
{
	libra_ledger_t *l = _nodes(n, cpus);

	for (int i = 0; i < n; i++)
		ck_assert_int_eq(libra_ledger_set_node_resources(l, i, mem_mb,
								 gpus), 0);
	return l;
}

/* Job "job" holds mem_mb and gpus on one CPU of node; with an SLA of share
 * 0.01 (RE 10, TD 1000), or best effort (no share). */
static void _hold(libra_ledger_t *l, uint32_t job, int node,
		  uint64_t mem_mb, int gpus, bool best_effort)
{
	libra_place_t pl = { .node = node, .cpus = 1, .mem_mb = mem_mb,
			     .gpus = gpus };

	_hold_place(l, job, &pl, best_effort);
}

START_TEST(test_memory_per_node_fits_only_where_free)
{
	/* 2 x 4 CPUs x 8000 MB; node 0 holds 6000 MB and is the fuller
	 * (best fit), but 4000 MB fit only on node 1; 2000 MB on node 0 */
	libra_ledger_t *l = _held_nodes(2, 4, 8000, 0);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1,
				.demand.mem_per_node = 4000 };

	_hold(l, 1, 0, 6000, 0, false);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 1);
	ck_assert_int_eq(q.place[0].node, 1);
	ck_assert_uint_eq(q.place[0].mem_mb, 4000);
	ck_assert_int_eq(q.place[0].gpus, 0);
	req.demand.mem_per_node = 2000;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 0);
	ck_assert_uint_eq(q.place[0].mem_mb, 2000);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_memory_per_cpu_limits_the_cpus_of_each_node)
{
	/* 2 x 8 CPUs x 8000 MB, 2000 MB per CPU: at most 4 CPUs a node, so
	 * 6 CPUs are 4 + 2, each place holding its CPUs' memory */
	libra_ledger_t *l = _held_nodes(2, 8, 8000, 0);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 6, .demand.mem_per_cpu = 2000 };

	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 2);
	ck_assert_int_eq(_on(0), 4);
	ck_assert_int_eq(_on(1), 2);
	for (int i = 0; i < q.nplace; i++)
		ck_assert_uint_eq(q.place[i].mem_mb,
				  2000u * (unsigned) q.place[i].cpus);
	/* one node only: 6 x 2000 MB fit on none */
	req.max_nodes = 1;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_RESOURCES);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_gpu_job_lands_only_on_gpu_nodes)
{
	/* node 0 (no GPU) is the fuller; node 1 has 2 GPUs: a GPU job goes
	 * to node 1, a CPU job still to node 0 */
	libra_ledger_t *l = _held_nodes(2, 4, 0, 0);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.gpus_per_node = 1 };

	ck_assert_int_eq(libra_ledger_set_node_resources(l, 1, 0, 2), 0);
	_hold(l, 1, 0, 0, 0, false);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 1);
	ck_assert_int_eq(q.place[0].gpus, 1);
	req.demand.gpus_per_node = 0;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 0);
	ck_assert_int_eq(q.place[0].gpus, 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_gpus_of_the_job_spread_over_its_nodes)
{
	/* 3 x 2 CPUs x 2 GPUs; node 0, the fuller, has 1 GPU free.  4 CPUs
	 * with 3 GPUs in all: node 0 takes 2 CPUs and its 1 GPU, node 1 the
	 * other 2 CPUs and 2 GPUs */
	libra_ledger_t *l = _held_nodes(3, 2, 0, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);
	libra_request_t req = { .cpus = 4, .demand.gpus = 3 };

	_hold(l, 1, 0, 0, 1, false);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 2);
	ck_assert_int_eq(q.place[0].node, 0);
	ck_assert_int_eq(q.place[0].cpus, 2);
	ck_assert_int_eq(q.place[0].gpus, 1);
	ck_assert_int_eq(q.place[1].node, 1);
	ck_assert_int_eq(q.place[1].cpus, 2);
	ck_assert_int_eq(q.place[1].gpus, 2);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_last_node_short_of_the_jobs_gpus_is_skipped)
{
	/* 1 CPU with 2 GPUs: node 0, the fuller, has 1 GPU free and would
	 * end the placement with a GPU left over: node 1 */
	libra_ledger_t *l = _held_nodes(2, 2, 0, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.gpus = 2 };

	_hold(l, 1, 0, 0, 1, false);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 1);
	ck_assert_int_eq(q.place[0].node, 1);
	ck_assert_int_eq(q.place[0].gpus, 2);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_memory_and_gpus_must_both_fit)
{
	/* node 0: memory, no GPU; node 1: GPUs, little memory; node 2: both.
	 * Nodes 0 and 1 are fuller, yet only node 2 holds the job. */
	libra_ledger_t *l = _held_nodes(3, 4, 8000, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1,
				.demand = { .mem_per_node = 4000,
					    .gpus_per_node = 1 } };

	ck_assert_int_eq(libra_ledger_set_node_resources(l, 0, 8000, 0), 0);
	ck_assert_int_eq(libra_ledger_set_node_resources(l, 1, 1000, 2), 0);
	_hold(l, 1, 0, 0, 0, false);
	_hold(l, 2, 1, 0, 0, false);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 2);
	ck_assert_uint_eq(q.place[0].mem_mb, 4000);
	ck_assert_int_eq(q.place[0].gpus, 1);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_release_frees_memory_for_the_next_job)
{
	libra_ledger_t *l = _held_nodes(1, 4, 8000, 0);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.mem_per_node = 6000 };

	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(libra_ledger_commit(l, 1, &sla, q.place, q.nplace,
					     0), 0);
	ck_assert_uint_eq(libra_ledger_node_mem_free(l, 0), 2000);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_MEMORY);
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_best_effort_jobs_hold_memory_and_gpus)
{
	/* a running best-effort job commits no share, but its 7000 MB and
	 * its GPU are taken */
	libra_ledger_t *l = _held_nodes(1, 4, 8000, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.mem_per_node = 2000 };

	_hold(l, 1, 0, 7000, 1, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_MEMORY);
	req.demand.mem_per_node = 1000;
	req.demand.gpus_per_node = 1;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_GPUS);
	req.demand.gpus_per_node = 0;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_held_fits_counts_admitted_jobs_not_started)
{
	/* node 0: an admitted job (not started: its commitment is all the
	 * ledger knows) holds 6000 MB and the GPU; node 1: 3 GPUs, 8000 MB
	 * free; node 2 tracks neither */
	libra_ledger_t *l = _held_nodes(3, 4, 8000, 1);
	libra_demand_t mem = { .mem_per_node = 4000 };
	libra_demand_t per_cpu = { .mem_per_cpu = 3000 };
	libra_demand_t whole = { .mem_whole_node = true };
	libra_demand_t gpu = { .gpus_per_node = 1 };
	libra_demand_t spread = { .gpus = 2 };
	libra_demand_t none = { 0 };

	ck_assert_int_eq(libra_ledger_set_node_resources(l, 1, 8000, 3), 0);
	ck_assert_int_eq(libra_ledger_set_node_resources(l, 2, 0, 0), 0);
	_hold(l, 1, 0, 6000, 1, false);

	ck_assert(!libra_admit_held_fits(l, &mem, 0, 1));
	ck_assert(libra_admit_held_fits(l, &mem, 1, 4));
	ck_assert(libra_admit_held_fits(l, &mem, 2, 4));
	/* 3000 MB per CPU: 2 CPUs in 8000 MB, none in 2000 */
	ck_assert(libra_admit_held_fits(l, &per_cpu, 1, 2));
	ck_assert(!libra_admit_held_fits(l, &per_cpu, 1, 3));
	ck_assert(!libra_admit_held_fits(l, &per_cpu, 0, 1));
	ck_assert(!libra_admit_held_fits(l, &whole, 0, 1));
	ck_assert(libra_admit_held_fits(l, &whole, 1, 1));
	ck_assert(!libra_admit_held_fits(l, &gpu, 0, 1));
	ck_assert(libra_admit_held_fits(l, &gpu, 1, 1));
	ck_assert(!libra_admit_held_fits(l, &gpu, 2, 1));
	/* GPUs spread over the job: each node needs one free */
	ck_assert(!libra_admit_held_fits(l, &spread, 0, 1));
	ck_assert(libra_admit_held_fits(l, &spread, 1, 1));
	/* nothing asked fits anywhere, 0 CPUs count as 1 */
	ck_assert(libra_admit_held_fits(l, &none, 0, 0));
	ck_assert(!libra_admit_held_fits(l, &none, 3, 1));
	ck_assert(!libra_admit_held_fits(l, &none, -1, 1));
	/* released: the memory and GPU are free again */
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	ck_assert(libra_admit_held_fits(l, &mem, 0, 1));
	ck_assert(libra_admit_held_fits(l, &gpu, 0, 1));
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_memory_refusal_gives_the_figures)
{
	/* nodes of 8000 and 6000 MB with 4000 and 3000 free: 5000 MB asked,
	 * at most 4000 free on any node, the largest has 8000 */
	libra_ledger_t *l = _held_nodes(2, 4, 8000, 0);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.mem_per_node = 5000 };

	ck_assert_int_eq(libra_ledger_set_node_resources(l, 1, 6000, 0), 0);
	_hold(l, 1, 0, 4000, 0, true);
	_hold(l, 2, 1, 3000, 0, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_MEMORY);
	ck_assert_int_eq(q.nplace, 0);
	ck_assert_uint_eq(q.asked.mem_mb, 5000);
	ck_assert_uint_eq(q.most_free.mem_mb, 4000);
	ck_assert_uint_eq(q.largest.mem_mb, 8000);
	/* per CPU: 3 CPUs x 1500 MB asked of one node, 4500 */
	req.cpus = 3;
	req.demand.mem_per_node = 0;
	req.demand.mem_per_cpu = 1500;
	req.max_nodes = 1;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_MEMORY);
	ck_assert_uint_eq(q.asked.mem_mb, 4500);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_gpu_refusal_gives_the_figures)
{
	/* 2 nodes of 4 GPUs, 3 held on each: 2 GPUs a node asked, at most 1
	 * free on any node, the largest has 4 */
	libra_ledger_t *l = _held_nodes(2, 4, 0, 4);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 2, .min_nodes = 2,
				.demand.gpus_per_node = 2 };

	_hold(l, 1, 0, 0, 3, false);
	_hold(l, 2, 1, 0, 3, false);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_GPUS);
	ck_assert_int_eq(q.asked.gpus, 2);
	ck_assert_int_eq(q.most_free.gpus, 1);
	ck_assert_int_eq(q.largest.gpus, 4);
	ck_assert_uint_eq(q.asked.mem_mb, 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_gpu_free_where_the_share_is_short_names_the_share)
{
	/* design.md decision 29 (run-demo step 5): node 0 has no GPU and
	 * CPU share to spare; node 1 has its GPU free, but admitted jobs
	 * take its CPU share.  Without the GPU the job would fit on node 0,
	 * yet the GPU is not what is short: the verdict is the share's,
	 * naming node 1 */
	libra_ledger_t *l = _nodes(2, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.gpus_per_node = 1 };
	libra_offer_t o;

	ck_assert_int_eq(libra_ledger_set_node_resources(l, 1, 0, 1), 0);
	_commit(l, 1, 390, 400, 1, 1, 0);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	ck_assert_int_eq(q.held_node, 1);
	ck_assert_int_eq(q.asked.gpus, 1);
	ck_assert_int_eq(q.most_free.gpus, 1);
	/* a later deadline does help: the GPU is not held */
	libra_counter_offer(l, &p, &sla, &req, 0, 86400, &o);
	ck_assert_int_eq(o.blocked_by, LIBRA_ACCEPT);
	ck_assert(o.has_deadline);
	/* the GPU held by a best-effort job instead: the GPU is the cause */
	ck_assert_int_eq(libra_ledger_release(l, 1), 0);
	_hold(l, 2, 1, 0, 1, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_GPUS);
	ck_assert_int_eq(q.held_node, -1);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_more_than_any_node_has_is_resources)
{
	/* never fits, however empty the cluster: "resources", as for CPUs */
	libra_ledger_t *l = _held_nodes(2, 4, 8000, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.mem_per_node = 9000 };

	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_RESOURCES);
	ck_assert_uint_eq(q.largest.mem_mb, 8000);
	req.demand.mem_per_node = 0;
	req.demand.gpus_per_node = 3;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_RESOURCES);
	req.demand.gpus_per_node = 0;
	req.demand.gpus = 5;		/* 4 in the whole cluster */
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_RESOURCES);
	/* 4 GPUs need both nodes: the first leaves the second a CPU */
	req.demand.gpus = 4;
	req.cpus = 2;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.nplace, 2);
	ck_assert_int_eq(q.place[0].cpus, 1);
	ck_assert_int_eq(q.place[0].gpus, 2);
	ck_assert_int_eq(q.place[1].cpus, 1);
	ck_assert_int_eq(q.place[1].gpus, 2);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_every_policy_tests_memory_and_gpus)
{
	/* node 0: its memory and GPU held by a best-effort job; node 1 free.
	 * Every policy places the job on node 1, and with node 1 down
	 * refuses it for memory, or GPUs. */
	for (int pol = 0; pol < LIBRA_POLICY_COUNT; pol++) {
		libra_ledger_t *l = _held_nodes(2, 4, 8000, 1);
		libra_params_t p = _params((libra_policy_t) pol);
		libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
		libra_request_t req = { .cpus = 1,
					.demand = { .mem_per_cpu = 1000,
						    .gpus_per_node = 1 } };

		_hold(l, 1, 0, 7500, 1, true);
		_admit_req(l, &p, &sla, &req);
		ck_assert_msg(q.verdict == LIBRA_ACCEPT &&
			      q.place[0].node == 1,
			      "%s: %s on node %d", libra_policy_name(pol),
			      libra_verdict_name(q.verdict), q.place[0].node);
		libra_ledger_set_node_up(l, 1, false);
		_admit_req(l, &p, &sla, &req);
		ck_assert_msg(q.verdict == LIBRA_REJECT_MEMORY, "%s: %s",
			      libra_policy_name(pol),
			      libra_verdict_name(q.verdict));
		req.demand.mem_per_cpu = 0;
		_admit_req(l, &p, &sla, &req);
		ck_assert_msg(q.verdict == LIBRA_REJECT_GPUS, "%s: %s",
			      libra_policy_name(pol),
			      libra_verdict_name(q.verdict));
		libra_ledger_destroy(l);
	}
}
END_TEST

START_TEST(test_job_asking_no_memory_ignores_memory_held)
{
	/* decisions without memory or GPUs asked are as before: the node's
	 * memory and GPUs, all held, do not matter, and no figures */
	libra_ledger_t *l = _held_nodes(1, 4, 8000, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1 };

	_hold(l, 1, 0, 8000, 1, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_uint_eq(q.place[0].mem_mb, 0);
	ck_assert_int_eq(q.place[0].gpus, 0);
	ck_assert_uint_eq(q.largest.mem_mb, 0);
	ck_assert_double_eq(q.price_mem, 0.0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_untracked_memory_does_not_limit)
{
	/* a node whose memory is not tracked holds any request, and the
	 * place records none (the ledger cannot count it) */
	libra_ledger_t *l = _nodes(1, 4);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 2, .demand.mem_per_cpu = 1000000 };

	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_uint_eq(q.place[0].mem_mb, 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_whole_node_memory_needs_a_node_with_none_held)
{
	/* --mem=0: node 0 (8000 MB, the fuller) holds 100 MB; node 1 (16000)
	 * none: node 1, holding all 16000 */
	libra_ledger_t *l = _held_nodes(2, 4, 8000, 0);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.mem_whole_node = true };

	ck_assert_int_eq(libra_ledger_set_node_resources(l, 1, 16000, 0), 0);
	_hold(l, 1, 0, 100, 0, false);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 1);
	ck_assert_uint_eq(q.place[0].mem_mb, 16000);
	ck_assert_uint_eq(q.asked.mem_mb, 16000);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_invalid_memory_or_gpu_requests)
{
	libra_ledger_t *l = _held_nodes(1, 4, 8000, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_demand_t bad[] = {
		{ .mem_per_cpu = 1, .mem_per_node = 1 },
		{ .mem_per_node = 1, .mem_whole_node = true },
		{ .gpus = 1, .gpus_per_node = 1 },
		{ .gpus = -1 },
		{ .gpus_per_node = -1 },
		{ .mem_per_node = ((uint64_t) 1 << 40) + 1 },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		libra_request_t req = { .cpus = 1, .demand = bad[i] };

		_admit_req(l, &p, &sla, &req);
		ck_assert_verdict(LIBRA_REJECT_INVALID);
	}
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_slots_refusal_stays_slots_with_memory_asked)
{
	/* FORCE:1, the only CPU run by a best-effort job holding no memory:
	 * the slot stands in the way, not the memory */
	libra_ledger_t *l = _held_nodes(1, 1, 8000, 0);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(10, 0, 100, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .slots_per_cpu = 1,
				.demand.mem_per_node = 1000 };

	_hold(l, 1, 0, 0, 0, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_SLOTS);
	libra_ledger_destroy(l);
}
END_TEST

/*
 * Prices: price_base 3600 per CPU-hour (1 per CPU-second), price_mem
 * 3686.4 per GB-hour (1e-3 per MB-second), price_gpu 3.6 per GPU-hour
 * (1e-3 per GPU-second); RE 100, TD 400, now 0: the window is 400 s.
 */
#define MEM_PRICE (3.6 * 1024.0)
#define GPU_PRICE 3.6

START_TEST(test_static_price_sums_cpus_memory_and_gpus)
{
	/* Libra: CPU 1 * (100 + 100/400) = 100.25; memory 1000 MB * 400 s *
	 * 1e-3 = 400; 2 GPUs * 400 s * 1e-3 = 0.8; in all 501.05 */
	libra_ledger_t *l = _held_nodes(1, 4, 8000, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1,
				.demand = { .mem_per_node = 1000,
					    .gpus_per_node = 2 } };

	p.price_mem = MEM_PRICE;
	p.price_gpu = GPU_PRICE;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price_mem, 400.0, 1e-9);
	ck_assert_double_eq_tol(q.price_gpus, 0.8, 1e-12);
	ck_assert_double_eq_tol(q.price, 501.05, 1e-9);
	/* with the default prices, the CPU price alone */
	p.price_mem = 0.0;
	p.price_gpu = 0.0;
	_admit_req(l, &p, &sla, &req);
	ck_assert_double_eq_tol(q.price, 100.25, 1e-9);
	ck_assert_double_eq(q.price_mem, 0.0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_market_price_sums_cpus_memory_and_gpus_at_node_rates)
{
	/* Libra+$ (alpha 1, beta 0.1) on one node of 4 CPUs, 8192 MB and 4
	 * GPUs, 2 GPUs held by a best-effort job (no share):
	 *   CPU: RESFree = 1600 - 100 = 1500, P = 1 + 0.1 * 16/15, 100 P;
	 *   memory, none held: P = (1 + 0.1) 1e-3, 1024 MB * 400 s: 450.56;
	 *   GPUs, 2 of 4 held: P = 1e-3 + 0.1 * 2e-3 = 1.2e-3, 1 * 400 s:
	 *   0.48. */
	libra_ledger_t *l = _held_nodes(1, 4, 8192, 4);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(100, 0, 400, NO_BUDGET);
	libra_request_t req = { .cpus = 1,
				.demand = { .mem_per_node = 1024,
					    .gpus_per_node = 1 } };
	double cpu = 100.0 * (1.0 + 0.1 * 16.0 / 15.0);

	_hold(l, 1, 0, 0, 2, true);
	p.price_mem = MEM_PRICE;
	p.price_gpu = GPU_PRICE;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price_mem, 450.56, 1e-9);
	ck_assert_double_eq_tol(q.price_gpus, 0.48, 1e-12);
	ck_assert_double_eq_tol(q.price, cpu + 450.56 + 0.48, 1e-9);
	/* the CPU rate is the CPUs' alone */
	ck_assert_double_eq_tol(q.rate_max, 1.0 + 0.1 * 16.0 / 15.0, 1e-12);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_budget_refusal_counts_the_gpu_price)
{
	/* Libra, 2 GPUs at 360 per GPU-hour (0.1 per GPU-second): 2 * 400 *
	 * 0.1 = 80 on top of the CPU's 100.25.  Budget 150 pays the CPU
	 * alone, not the sum: a budget refusal naming 180.25, and an offer
	 * of that budget, which admits */
	libra_ledger_t *l = _held_nodes(1, 4, 0, 2);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(100, 0, 400, 150);
	libra_request_t req = { .cpus = 1, .demand.gpus_per_node = 2 };
	libra_offer_t o;

	p.price_gpu = 360.0;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_BUDGET);
	ck_assert_double_eq_tol(q.least_price, 180.25, 1e-9);
	libra_counter_offer(l, &p, &sla, &req, 0, 4000, &o);
	ck_assert(o.has_budget);
	ck_assert_double_eq_tol(o.budget, 180.25, 1e-9);
	ck_assert_int_eq(o.blocked_by, LIBRA_ACCEPT);
	sla.budget = o.budget;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	/* without the GPUs, 150 is enough */
	sla.budget = 150;
	req.demand.gpus_per_node = 0;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_market_budget_counts_the_memory_price)
{
	/* Libra+$ on the idle node above: CPU 100 P, memory 450.56; a budget
	 * of the CPU price and a little more is refused, the least price is
	 * the sum, and it admits */
	libra_ledger_t *l = _held_nodes(1, 4, 8192, 4);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	double cpu = 100.0 * (1.0 + 0.1 * 16.0 / 15.0);
	libra_sla_t sla = _sla(100, 0, 400, cpu + 100.0);
	libra_request_t req = { .cpus = 1, .demand.mem_per_node = 1024 };

	p.price_mem = MEM_PRICE;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_BUDGET);
	ck_assert_double_eq_tol(q.least_price, cpu + 450.56, 1e-9);
	sla.budget = cpu + 450.56;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_double_eq_tol(q.price, cpu + 450.56, 1e-9);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_counter_offer_no_later_deadline_for_memory)
{
	/* the only node's memory is held by a best-effort job: no deadline
	 * and no budget frees it, and none is offered; the offer says so */
	libra_ledger_t *l = _held_nodes(1, 4, 8000, 1);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);
	libra_sla_t sla = _sla(100, 0, 400, 1000);
	libra_request_t req = { .cpus = 1, .demand.mem_per_node = 2000 };
	libra_offer_t o;

	_hold(l, 1, 0, 7000, 1, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_MEMORY);
	libra_counter_offer(l, &p, &sla, &req, 0, 86400, &o);
	ck_assert_int_eq(o.blocked_by, LIBRA_REJECT_MEMORY);
	ck_assert(!o.has_deadline);
	ck_assert(!o.has_budget);
	/* GPUs alike */
	req.demand.mem_per_node = 0;
	req.demand.gpus_per_node = 1;
	libra_counter_offer(l, &p, &sla, &req, 0, 86400, &o);
	ck_assert_int_eq(o.blocked_by, LIBRA_REJECT_GPUS);
	ck_assert(!o.has_deadline);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_counter_offer_later_deadline_where_memory_is_free)
{
	/* 2 x 1 CPU x 8000 MB.  Node 0 has its memory but 0.9 of its CPU
	 * committed until 1000; node 1 has its CPU but its memory is held.
	 * RE 50, TD 100 (share 0.5): refused for CPU share on node 0, where
	 * the memory is free (design.md decision 29: not "memory", which
	 * node 0 has; node 1 would take the share only without it).  With a
	 * deadline of 500 or later its share fits there: that deadline is
	 * offered. */
	libra_ledger_t *l = _held_nodes(2, 1, 8000, 0);
	libra_params_t p = _params(LIBRA_POLICY_LIBRA);
	libra_sla_t sla = _sla(50, 0, 100, NO_BUDGET);
	libra_request_t req = { .cpus = 1, .demand.mem_per_node = 1000 };
	libra_offer_t o;

	_commit(l, 1, 900, 1000, 0, 1, 0);
	_hold(l, 2, 1, 8000, 0, true);
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_REJECT_DEADLINE);
	ck_assert_int_eq(q.held_node, 0);
	libra_counter_offer(l, &p, &sla, &req, 0, 1000, &o);
	ck_assert_int_eq(o.blocked_by, LIBRA_ACCEPT);
	ck_assert(o.has_deadline);
	ck_assert(o.deadline >= 500.0 - TOL);
	ck_assert(o.deadline <= 500.0 + 60.0 + 1.0);
	sla.deadline = o.deadline;
	_admit_req(l, &p, &sla, &req);
	ck_assert_verdict(LIBRA_ACCEPT);
	ck_assert_int_eq(q.place[0].node, 0);
	libra_ledger_destroy(l);
}
END_TEST

START_TEST(test_memory_and_gpu_verdict_names_and_reasons)
{
	ck_assert_str_eq(libra_verdict_name(LIBRA_REJECT_MEMORY), "memory");
	ck_assert_str_eq(libra_verdict_name(LIBRA_REJECT_GPUS), "gpus");
	ck_assert_names(libra_verdict_reason(LIBRA_REJECT_MEMORY), "memory");
	ck_assert_names(libra_verdict_reason(LIBRA_REJECT_GPUS), "GPUs");
	ck_assert_names(libra_verdict_reason(LIBRA_REJECT_RESOURCES),
			"memory or GPUs");
}
END_TEST
static Suite *_suite(void)
{
	Suite *s = suite_create("admit_held");
	TCase *tc = tcase_create("held");

	T(tc, test_memory_per_node_fits_only_where_free);
	T(tc, test_memory_per_cpu_limits_the_cpus_of_each_node);
	T(tc, test_gpu_job_lands_only_on_gpu_nodes);
	T(tc, test_gpus_of_the_job_spread_over_its_nodes);
	T(tc, test_last_node_short_of_the_jobs_gpus_is_skipped);
	T(tc, test_memory_and_gpus_must_both_fit);
	T(tc, test_release_frees_memory_for_the_next_job);
	T(tc, test_best_effort_jobs_hold_memory_and_gpus);
	T(tc, test_held_fits_counts_admitted_jobs_not_started);
	T(tc, test_memory_refusal_gives_the_figures);
	T(tc, test_gpu_refusal_gives_the_figures);
	T(tc, test_gpu_free_where_the_share_is_short_names_the_share);
	T(tc, test_more_than_any_node_has_is_resources);
	T(tc, test_every_policy_tests_memory_and_gpus);
	T(tc, test_job_asking_no_memory_ignores_memory_held);
	T(tc, test_untracked_memory_does_not_limit);
	T(tc, test_whole_node_memory_needs_a_node_with_none_held);
	T(tc, test_invalid_memory_or_gpu_requests);
	T(tc, test_slots_refusal_stays_slots_with_memory_asked);
	T(tc, test_static_price_sums_cpus_memory_and_gpus);
	T(tc, test_market_price_sums_cpus_memory_and_gpus_at_node_rates);
	T(tc, test_budget_refusal_counts_the_gpu_price);
	T(tc, test_market_budget_counts_the_memory_price);
	T(tc, test_counter_offer_no_later_deadline_for_memory);
	T(tc, test_counter_offer_later_deadline_where_memory_is_free);
	T(tc, test_memory_and_gpu_verdict_names_and_reasons);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return libra_run_suite(_suite());
}
