/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit_fixture.c - what the admission tests share (admit_fixture.h).
\*****************************************************************************/

#include <stdio.h>
#include <string.h>

#include "admit_fixture.h"
#include "ledger.h"
#include "share.h"

/* The quote the cases look at, where _admit() writes it. */
libra_quote_t q;		/* big: keep it off the stack */

/* A hard deadline: RE by TD, submitted at TSU; a budget unless NO_BUDGET. */
extern libra_sla_t _sla(double re, double submit, double td, double budget)
{
	libra_sla_t sla;

	memset(&sla, 0, sizeof(sla));
	sla.set = LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE;
	sla.runtime = re;
	sla.submit = submit;
	sla.deadline = td;
	sla.type = LIBRA_DEADLINE_HARD;
	if (budget >= 0) {
		sla.set |= LIBRA_SLA_BUDGET;
		sla.budget = budget;
	}
	return sla;
}

/* The policy's defaults, price_base 3600 per CPU-hour. */
extern libra_params_t _params(libra_policy_t policy)
{
	libra_params_t p;

	libra_params_default(&p);
	p.policy = policy;
	p.price_base = 3600.0;
	return p;
}

/* n up nodes n0, n1, ... of "cpus" CPUs each. */
extern libra_ledger_t *_nodes(int n, int cpus)
{
	libra_ledger_t *l = libra_ledger_create(LIBRA_SHARE_MIN_DEFAULT);
	char name[16];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		ck_assert_int_eq(libra_ledger_add_node(l, name, cpus), i);
	}
	return l;
}

/* Job "job": RE re by TD td from now, committed on cpus CPUs of node. */
extern void _commit(libra_ledger_t *l, uint32_t job, double re, double td,
		    int node, int cpus, double now)
{
	libra_sla_t sla = _sla(re, now, td, NO_BUDGET);
	libra_place_t pl = PLACE(node, cpus);

	ck_assert_int_eq(libra_ledger_commit(l, job, &sla, &pl, 1, now), 0);
}

/* Quote cpus CPUs on min_nodes..max_nodes nodes (0: any) at now, into q. */
extern void _admit(const libra_ledger_t *l, const libra_params_t *p,
		   const libra_sla_t *sla, int cpus, int min_nodes,
		   int max_nodes, double now)
{
	libra_request_t req = { .cpus = cpus, .min_nodes = min_nodes,
				.max_nodes = max_nodes };

	memset(&q, 0x5a, sizeof(q));
	libra_admit(l, p, sla, &req, now, &q);
}

/* Quote the request at now 0, into q. */
extern void _admit_req(const libra_ledger_t *l, const libra_params_t *p,
		       const libra_sla_t *sla, const libra_request_t *req)
{
	memset(&q, 0x5a, sizeof(q));
	libra_admit(l, p, sla, req, 0, &q);
}

/* Job "job" holds the place's memory, GPUs and scratch disk on its CPUs;
 * with an SLA of share 0.01 per CPU (RE 10, TD 1000, at 0), or best
 * effort (no share). */
extern void _hold_place(libra_ledger_t *l, uint32_t job,
			const libra_place_t *pl, bool best_effort)
{
	libra_sla_t sla = _sla(10, 0, 1000, NO_BUDGET);

	ck_assert_int_eq(libra_ledger_commit(l, job, best_effort ? NULL : &sla,
					     pl, 1, 0), 0);
}

/* CPUs of the quote's placement on a node (0 if not used). */
extern int _on(int node)
{
	int c = 0;

	for (int i = 0; i < q.nplace; i++)
		if (q.place[i].node == node)
			c += q.place[i].cpus;
	return c;
}

/* The three nodes of admit_fixture.h's comment, which C0, C1, C2 price. */
extern libra_ledger_t *_priced_nodes(void)
{
	libra_ledger_t *l = _nodes(3, 1);

	_commit(l, 1, 60, 100, 0, 1, 0);
	_commit(l, 2, 30, 100, 1, 1, 0);
	return l;
}

/* Libra+$ with alpha 1, beta 1, window RESFree and the given charge. */
extern libra_params_t _market(libra_charge_t charge)
{
	libra_params_t p = _params(LIBRA_POLICY_LIBRA_PRICE);

	p.alpha = 1.0;
	p.beta = 1.0;
	p.resfree = LIBRA_RESFREE_WINDOW;
	p.charge = charge;
	return p;
}
