/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit_reference.h - what the plain references of the admission tests
 *  share.  Each policy's admission as the thesis has it is in
 *  its test file, checked there against the fast path on random ledgers:
 *  Libra's in test_admit.c, Libra+$'s in test_admit_price.c, LibraSLA's
 *  in test_admit_sla.c, LibraRiskD's in test_admit_riskd.c.  Here: the
 *  random numbers, nodes and jobs they are given, the parts of the
 *  SLA-based model LibraSLA's and LibraRiskD's have in common, and the
 *  tally of what those two saw.  Each function is described where it is
 *  defined, in admit_reference.c.
\*****************************************************************************/

#ifndef LIBRA_ADMIT_REFERENCE_H
#define LIBRA_ADMIT_REFERENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "admit.h"
#include "params.h"

/* A node as the references of Libra and Libra+$ see it. */
typedef struct {
	int cpus;
	bool up;
	double load;		/* sum of cpus x share of its jobs */
} ref_node_t;

extern double _unit(uint64_t *st);
extern void _random_nodes(uint64_t *st, libra_ledger_t *l, ref_node_t *nodes,
			  double *work, int n, double now);

/*
 * A job as the references see it (the SLA of section 4.2): its CPUs on
 * the node, RE_i, its submission TSU_i (when it was committed: its share
 * counts from then), its deadline TD_i = TSU_i + D_i, its share RE_i / D_i
 * (Eq. 4.3), its budget B_i (< 0: none, its bid is then Libra's static
 * price), its penalty rate PR_i per hour of delay and its deadline type.
 * A best-effort job has no SLA: no share, no return, no deadline.
 */
typedef struct {
	int cpus;
	double re, submit, td, share, budget, pr;
	double cap;	/* the penalty's cap (ISQoS), INFINITY: none */
	bool hard, best_effort;
} ref_job_t;

#define REF_JOBS 4

typedef struct {
	int cpus;
	bool up;
	int njobs;
	ref_job_t job[REF_JOBS];
} ref_sla_node_t;

/*
 * What a reference check saw: the quotes that agreed, the boundary cases
 * (a test of the reference's within rounding of its threshold: compared,
 * not asserted) and how many of those agreed all the same, the verdicts.
 */
typedef struct {
	int agree, edge, edge_same;
	int seen[LIBRA_REJECT_DUEDATE + 1];
} ref_tally_t;

extern double _ref_bid(const libra_params_t *p, const ref_job_t *j);
extern bool _ref_refused_first(const ref_sla_node_t *nodes, int n,
			       const libra_params_t *p, const ref_job_t *nj,
			       int cpus, libra_verdict_t *v);
extern void _random_ref_job(uint64_t *st, ref_job_t *j, double submit,
			    bool fresh);
extern libra_sla_t _ref_sla_of(const ref_job_t *j);
extern void _random_sla_nodes(uint64_t *st, libra_ledger_t *l,
			      ref_sla_node_t *nodes, int n, double now);
extern void _ref_count(ref_tally_t *t, int trial, bool near,
		       libra_verdict_t want, const int *take, int n,
		       double price);
extern void _ref_report(const char *name, const ref_tally_t *t, int quotes,
			const libra_verdict_t must[3]);

#endif /* LIBRA_ADMIT_REFERENCE_H */
