/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit_fixture.h - what the admission tests (test_admit*.c) share: the
 *  quote they look at, SLAs, parameters, ledgers of equal nodes,
 *  commitments (and what a job holds besides CPUs), a quote's CPUs on a
 *  node, and Libra+$'s three priced nodes.  Each is described where it is
 *  defined, in admit_fixture.c.
 *
 *  Unless a case says otherwise: now = 0, price_base = 3600 per CPU-hour
 *  (PBase = 1 per CPU-second), capacity 1, the default tolerance.
\*****************************************************************************/

#ifndef LIBRA_ADMIT_FIXTURE_H
#define LIBRA_ADMIT_FIXTURE_H

#include <stdint.h>

#include "admit.h"
#include "params.h"
#include "testutil.h"

#define NO_BUDGET -1.0

extern libra_quote_t q;

extern libra_sla_t _sla(double re, double submit, double td, double budget);
extern libra_params_t _params(libra_policy_t policy);
extern libra_ledger_t *_nodes(int n, int cpus);
extern void _commit(libra_ledger_t *l, uint32_t job, double re, double td,
		    int node, int cpus, double now);
extern void _admit(const libra_ledger_t *l, const libra_params_t *p,
		   const libra_sla_t *sla, int cpus, int min_nodes,
		   int max_nodes, double now);
extern int _on(int node);
extern void _admit_req(const libra_ledger_t *l, const libra_params_t *p,
		       const libra_sla_t *sla, const libra_request_t *req);
extern void _hold_place(libra_ledger_t *l, uint32_t job,
			const libra_place_t *pl, bool best_effort);

#define ck_assert_verdict(want)						\
	ck_assert_msg(q.verdict == (want), "verdict %s (%d), want %s",	\
		      libra_verdict_name(q.verdict), q.verdict,		\
		      libra_verdict_name(want))

/* ---------------------------------------------------------------- */
/* Libra+$ (thesis Fig. 3.2)                                          */
/* ---------------------------------------------------------------- */

/*
 * Three 1-CPU nodes at now 0, PBase 1/s, alpha 1, beta 1, window RESFree;
 * the job: RE 10, TD 100 on each CPU (RES_i = 10, RESMax = 100).
 *   node 0: job RE 60, TD 100 (share 0.6, window work 60)
 *	RESFree 100 - 60 - 10 = 30, P = 1 + 100/30 = 4.3333, RE * P = 43.333
 *   node 1: job RE 30, TD 100 (share 0.3, window work 30)
 *	RESFree 60, P = 1 + 100/60 = 2.6667, RE * P = 26.667
 *   node 2: idle
 *	RESFree 90, P = 1 + 100/90 = 2.1111, RE * P = 21.111
 * Best fit (RESFree ascending) orders them 0, 1, 2.
 */
#define C0 (10.0 * (1.0 + 100.0 / 30.0))
#define C1 (10.0 * (1.0 + 100.0 / 60.0))
#define C2 (10.0 * (1.0 + 100.0 / 90.0))

extern libra_ledger_t *_priced_nodes(void);
extern libra_params_t _market(libra_charge_t charge);

#endif /* LIBRA_ADMIT_FIXTURE_H */
