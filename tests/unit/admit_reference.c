/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit_reference.c - what the plain references of the admission tests
 *  share (admit_reference.h).
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "admit_fixture.h"
#include "admit_reference.h"
#include "ledger.h"
#include "share.h"

/* The next number of the stream st (xorshift64), in [0, 1). */
extern double _unit(uint64_t *st)
{
	*st ^= *st << 13;
	*st ^= *st >> 7;
	*st ^= *st << 17;
	return (double) (*st >> 11) / 9007199254740992.0;
}

/*
 * n random nodes of 1-4 CPUs, each up with probability 0.9, with up to 3
 * jobs of 1 CPU to all of the node's, work 5-44 s by now + 128 s, committed
 * in l and summed in nodes[] (load) and work[] (sum of c RE; NULL: not
 * kept).  Shares of k/128, capacities 1 and 7/8: every sum is exact in
 * binary, so that the fast path and a reference see the same ties.
 */
extern void _random_nodes(uint64_t *st, libra_ledger_t *l, ref_node_t *nodes,
			  double *work, int n, double now)
{
	uint32_t job = 1;

	for (int i = 0; i < n; i++) {
		char name[16];
		int jobs = (int) (_unit(st) * 4);

		snprintf(name, sizeof(name), "n%d", i);
		nodes[i].cpus = 1 + (int) (_unit(st) * 4);
		nodes[i].up = _unit(st) > 0.1;
		nodes[i].load = 0.0;
		if (work)
			work[i] = 0.0;
		ck_assert_int_eq(libra_ledger_add_node(l, name, nodes[i].cpus),
				 i);
		libra_ledger_set_node_up(l, i, nodes[i].up);
		for (int j = 0; j < jobs && nodes[i].up; j++) {
			double re = 5.0 + (double) (int) (_unit(st) * 40);
			int c = 1 + (int) (_unit(st) * nodes[i].cpus);

			if (nodes[i].load + c * re / 128.0 > nodes[i].cpus)
				continue;
			_commit(l, job++, re, now + 128.0, i, c, now);
			nodes[i].load += c * re / 128.0;
			if (work)
				work[i] += c * re;
		}
	}
}

/* B_i, or without one Libra's static price C_i = PBase (gamma RE_i +
 * delta RE_i / D_i) (section 3.5.2): what the job pays if it is on time */
extern double _ref_bid(const libra_params_t *p, const ref_job_t *j)
{
	if (j->budget >= 0.0)
		return j->budget;
	return p->price_base / 3600.0 *
	       (p->gamma * j->re + p->delta * j->re / (j->td - j->submit));
}

/*
 * Refused before any policy (admit.h): for its resources when the up
 * nodes have too few CPUs at all, for its deadline when its share is more
 * than a whole CPU.
 */
extern bool _ref_refused_first(const ref_sla_node_t *nodes, int n,
			       const libra_params_t *p, const ref_job_t *nj,
			       int cpus, libra_verdict_t *v)
{
	int up = 0;

	for (int i = 0; i < n; i++)
		up += nodes[i].up ? nodes[i].cpus : 0;
	*v = up < cpus ? LIBRA_REJECT_RESOURCES : LIBRA_REJECT_DEADLINE;
	return up < cpus || nj->share > 1.0 + p->tolerance;
}

/*
 * A random job submitted at "submit": a window D of 64, 128 or 256 s, RE
 * 4 s to D (a share k/256: exact sums) or, in one in fifty new jobs
 * ("fresh"), 8 s more than D; a budget of 1 to 3 x RE in seven of ten, a
 * penalty rate of about 0, 36, 3,600 or 360,000 per hour capped at 0 to
 * 2 x RE in four of ten, a hard deadline in three of ten.  No share is floored at share_min: a floored share is
 * more than its job needs, where the fast paths refuse nodes the plain
 * projections pass (admit_sla.c and admit_riskd.c say so).
 */
extern void _random_ref_job(uint64_t *st, ref_job_t *j, double submit,
			    bool fresh)
{
	static const double rates[] = { 0.0, 36.0, 3600.0, 360000.0 };
	double w = 64.0 * (1 << (int) (_unit(st) * 3));

	memset(j, 0, sizeof(*j));
	j->cpus = 1;
	j->submit = submit;
	j->td = submit + w;
	j->re = 4.0 + (double) (int) (_unit(st) * (w - 3.0));
	if (fresh && _unit(st) < 0.02)
		j->re = w + 8.0;
	j->share = j->re / w;
	j->budget = _unit(st) < 0.3 ? NO_BUDGET :
		    1.0 + (double) (int) (_unit(st) * 2.0 * j->re);
	j->pr = rates[(int) (_unit(st) * 4)] * (0.5 + _unit(st));
	j->hard = _unit(st) < 0.3;
	j->cap = _unit(st) < 0.4 ? (double) (int) (_unit(st) * 2.0 * j->re) :
				   INFINITY;
}

/* The SLA of a reference's job, for the ledger and the fast path. */
extern libra_sla_t _ref_sla_of(const ref_job_t *j)
{
	libra_sla_t sla = _sla(j->re, j->submit, j->td, j->budget);

	sla.set |= LIBRA_SLA_PENALTY | LIBRA_SLA_TYPE;
	sla.penalty_rate = j->pr;
	sla.type = j->hard ? LIBRA_DEADLINE_HARD : LIBRA_DEADLINE_SOFT;
	if (isfinite(j->cap)) {
		sla.set |= LIBRA_SLA_PENALTY_CAP;
		sla.penalty_cap = j->cap;
	}
	return sla;
}

/*
 * n random nodes of 1-4 CPUs, each up with probability 0.9, with up to
 * REF_JOBS jobs (_random_ref_job()) of 1 CPU to all of the node's, one in
 * ten best effort, committed at now - 0..55 s, so that every deadline is
 * still ahead at now + 8; up to 1.5 x the node's CPUs in all (LibraSLA
 * lets soft jobs overload a node).  Committed in l and kept in nodes[].
 */
extern void _random_sla_nodes(uint64_t *st, libra_ledger_t *l,
			      ref_sla_node_t *nodes, int n, double now)
{
	uint32_t id = 1;

	for (int i = 0; i < n; i++) {
		ref_sla_node_t *nd = &nodes[i];
		int jobs = (int) (_unit(st) * (REF_JOBS + 1));
		double load = 0.0;
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		nd->cpus = 1 + (int) (_unit(st) * 4);
		nd->up = _unit(st) > 0.1;
		nd->njobs = 0;
		ck_assert_int_eq(libra_ledger_add_node(l, name, nd->cpus), i);
		libra_ledger_set_node_up(l, i, nd->up);
		for (int k = 0; k < jobs && nd->up; k++) {
			ref_job_t *j = &nd->job[nd->njobs];
			double t0 = now - (double) (int) (_unit(st) * 56);
			libra_place_t pl = PLACE(i, 1);
			libra_sla_t sla;

			_random_ref_job(st, j, t0, false);
			j->cpus = pl.cpus = 1 + (int) (_unit(st) * nd->cpus);
			j->best_effort = _unit(st) < 0.1;
			if (!j->best_effort &&
			    load + j->cpus * j->share > 1.5 * nd->cpus)
				continue;
			sla = _ref_sla_of(j);
			ck_assert_int_eq(libra_ledger_commit(l, id++,
					 j->best_effort ? NULL : &sla, &pl, 1,
					 t0), 0);
			load += j->best_effort ? 0.0 : j->cpus * j->share;
			nd->njobs++;
		}
	}
}

/*
 * The quote against a reference's verdict, CPUs per node (take[], for an
 * admission) and price (an admission's; a budget refusal's least price).
 */
static void _ck_reference(int trial, libra_verdict_t want, const int *take,
			  int n, double price)
{
	ck_assert_msg(q.verdict == want, "trial %d: fast path %s, reference %s",
		      trial, libra_verdict_name(q.verdict),
		      libra_verdict_name(want));
	if (want == LIBRA_ACCEPT) {
		for (int i = 0; i < n; i++)
			ck_assert_msg(_on(i) == take[i],
				      "trial %d: node %d: fast path %d CPUs, reference %d",
				      trial, i, _on(i), take[i]);
		ck_assert_msg(fabs(q.price - price) <= 1e-9 * fabs(price),
			      "trial %d: price %.12g, the reference %.12g",
			      trial, q.price, price);
	} else if (want == LIBRA_REJECT_BUDGET) {
		ck_assert_msg(fabs(q.least_price - price) <= 1e-9 * price,
			      "trial %d: least price %.12g, the reference %.12g",
			      trial, q.least_price, price);
	}
}

/* Does the quote say what the reference does (as _ck_reference())? */
static bool _quote_is(libra_verdict_t want, const int *take, int n,
		      double price)
{
	if (q.verdict != want)
		return false;
	for (int i = 0; want == LIBRA_ACCEPT && i < n; i++)
		if (_on(i) != take[i])
			return false;
	if (want == LIBRA_ACCEPT)
		return fabs(q.price - price) <= 1e-9 * fabs(price);
	return want != LIBRA_REJECT_BUDGET ||
	       fabs(q.least_price - price) <= 1e-9 * price;
}

/* Count a quote (q) against a reference's verdict: asserted to agree,
 * unless "near" (a boundary case), then only counted. */
extern void _ref_count(ref_tally_t *t, int trial, bool near,
		       libra_verdict_t want, const int *take, int n,
		       double price)
{
	if (near) {
		t->edge++;
		t->edge_same += _quote_is(want, take, n, price);
		return;
	}
	_ck_reference(trial, want, take, n, price);
	t->agree++;
	t->seen[want]++;
}

/*
 * Print the tally (in the test's log): every quote agreed or was a
 * boundary case, at most 1% were, and each verdict of must[0..3) was
 * seen in at least 2% of them (the cases test every side).
 */
extern void _ref_report(const char *name, const ref_tally_t *t, int quotes,
			const libra_verdict_t must[3])
{
	const int *v = t->seen;

	printf("%s reference: %d of %d quotes agreed, %d skipped as boundary cases (%d of them the same all the same); %d accepted, refused: %d return, %d risk, %d deadline, %d budget, %d resources\n",
	       name, t->agree, quotes, t->edge, t->edge_same,
	       v[LIBRA_ACCEPT], v[LIBRA_REJECT_RETURN], v[LIBRA_REJECT_RISK],
	       v[LIBRA_REJECT_DEADLINE], v[LIBRA_REJECT_BUDGET],
	       v[LIBRA_REJECT_RESOURCES]);
	ck_assert_int_eq(t->agree + t->edge, quotes);
	ck_assert_int_le(t->edge, quotes / 100);
	for (int i = 0; i < 3; i++)
		ck_assert_msg(v[must[i]] >= quotes / 50,
			      "%s: %d of %d quotes %s: the cases do not test every side",
			      name, v[must[i]], quotes,
			      libra_verdict_name(must[i]));
}
