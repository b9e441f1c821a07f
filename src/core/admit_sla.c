/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  admit_sla.c - LibraSLA's admission (thesis Fig. 4.2/4.3, see admit.h):
 *  a node is a candidate where the job lowers its return by nothing and
 *  delays no hard-deadline job, its own included; highest new return
 *  first; the price is the bid.  A node's figures without the new job come from its memo
 *  (ledger.h), and a shortfall's returns are summed two entries at a time
 *  (vec.h), to the bit as one at a time.  The steps common to every policy
 *  are in admit.c.
 *
 *  What the fast path guarantees equals the plain algorithm (test_admit_sla's
 *  reference, test_librasla_matches_reference_on_random_ledgers):
 *  - A node's jobs are its entries with an SLA, in ledger order, then the
 *    new job (k CPUs at share RE / (TD - now)), and its return is Fig.
 *    4.3's with line 11 read as total share <= capacity x N + tolerance
 *    (nobody late).  The best job is the first with the highest undelayed
 *    return; in a shortfall it and the hard jobs keep their shares (cut
 *    alike by cap / kept when they alone exceed the node), the others get
 *    max(cap - kept, 0) / (total - kept) of theirs, and a cut job's delay
 *    is its work left at its cut share (at least share_min).  Returns are
 *    Eq. 4.1/4.5 of the bid (the budget, else Libra's static price), the
 *    penalty bounded by the SLA's cap (INFINITY without one).
 *  - The memo's sums are the node's without the new job, each summed in
 *    entry order as the plain loop sums it, and _short_pairs() adds in
 *    entry order: the returns are the plain loop's to the bit.  A memo
 *    serves only while the node's stamp (its shape, for the returns) and
 *    the static price's parameters are those it was made with.
 *  - A node passes with k = min(N, the job's CPUs, what it can take) CPUs,
 *    else with 1, when its new return >= its return as it is - tolerance x
 *    max(1, |return|), a hard new job is late by no more than
 *    LIBRA_DEADLINE_GRACE, and no admitted hard job is delayed.  The last
 *    is read off the sums (an admitted hard job, and kept share > cap +
 *    tolerance), not projected: the same while every hard job's share is
 *    what it needs.  A share floored at share_min needs less; there the
 *    fast path refuses nodes the projection passes, and names "return"
 *    where it would name "deadline" (conservative).
 *  - Ablation (simulator-only, doc/design.md decision 50): sla_bestfit
 *    orders the candidates by Libra's best fit instead; sla_unprotected
 *    drops the test of admitted hard jobs (the thesis' Fig. 4.2);
 *    sla_return_utility makes a job's return its utility U, not Eq.
 *    4.5's (U / RE) / D.
 *  - Candidates by new return, highest first, then node index; too few:
 *    refused for the deadline when a node failed for the new job's own
 *    delay alone, else for the return.
\*****************************************************************************/

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "admit_int.h"
#include "price.h"
#include "settle.h"
#include "vec.h"

/* The bid of an entry: its budget, or Libra's static price without one. */
static double _bid(const libra_params_t *p, const libra_entry_t *e)
{
	if (e->budget >= 0.0)
		return e->budget;
	return libra_static_price(p, e->runtime, e->deadline - e->submit);
}

/*
 * Eq. 4.5: return_ij = (U_ij / RE_i) / D_i, with U_ij = B_i - PR_i DY_ij
 * (Eq. 4.1) and the penalty bounded by the SLA's cap as the settlement
 * bounds it (libra_penalty(); ISQoS; design.md decision 35): without a
 * cap (INFINITY) the penalty is Eq. 4.1's to the bit.
 */
static double _return_of(const libra_params_t *p, const libra_entry_t *e,
			 double delay)
{
	double pen = delay / 3600.0 * e->penalty_rate;
	double u, d = e->deadline - e->submit;

	if (pen > e->penalty_cap)
		pen = e->penalty_cap;
	u = _bid(p, e) - pen;
	if (p->sla_return_utility)	/* the ablation's (decision 50) */
		return u;
	return (u / e->runtime) / (d > 0.0 ? d : 1.0);
}

/* Projected delay of e at effective share s (per CPU). */
static double _delay_at(const libra_params_t *p, const libra_entry_t *e,
			double s, double now)
{
	double work = libra_entry_work_at(e, now), finish;

	if (s < p->share_min)
		s = p->share_min;
	finish = now + work / s;
	return finish > e->deadline ? finish - e->deadline : 0.0;
}

/*
 * Return of a node with an optional extra job (thesis Fig. 4.3, with the
 * inequality of line 11 read as the prose says: spare capacity first).
 * *dy_extra gets the extra job's projected delay.  m is the node's memo
 * (_sla_memo() below), NULL when it has none; extra_ret is extra's
 * undelayed return, _return_of(p, extra, 0.0), the same on every node.
 */
/*
 * The node's figures without a new job that do not depend on "now" (the
 * node memo, ledger.h): its entries' cpus * share and undelayed returns,
 * each summed in entry order as the loops below sum them, the highest
 * return and its entry, whether one is hard, and the share a shortfall
 * keeps (the hard jobs', with the best job's or without).  Made again when an entry changed or the
 * static price's parameters did (a bid without a budget is that price).
 * NULL: no memo (a bad node).
 */
static void _sla_memo_key(const libra_params_t *p, double key[4])
{
	key[0] = libra_price_base_per_sec(p);
	key[1] = p->gamma;
	key[2] = p->delta;
	key[3] = p->sla_return_utility ? 1.0 : 0.0;
}

static const libra_node_memo_t *_sla_memo(const libra_ledger_t *l,
					  const libra_params_t *p,
					  const double key[4], int node)
{
	libra_node_memo_t *m = libra_ledger_node_memo(l, node);
	uint64_t stamp = libra_ledger_node_stamp(l, node);
	uint64_t shape = libra_ledger_node_shape(l, node);
	const libra_entry_t *ent;
	int n;

	if (!m)
		return NULL;
	if (m->stamp == stamp && !memcmp(m->params, key, sizeof(m->params)))
		return m;
	n = libra_ledger_node_entries(l, node, &ent);
	if (m->shape == shape && !memcmp(m->params, key, sizeof(m->params))) {
		/* only shares changed (progress): the returns, the best
		 * and any_hard stand; the share sums again, in order */
		double share = 0.0, hard_sum = 0.0, best_sum = 0.0;

		for (int i = 0; i < n; i++) {
			const libra_entry_t *e = &ent[i];
			bool hard = e->type == LIBRA_DEADLINE_HARD;
			double cs = e->cpus * e->share;

			if (e->best_effort)
				continue;
			share += cs;
			if (hard)
				hard_sum += cs;
			if (i == m->best || hard)
				best_sum += cs;
		}
		m->share = share;
		m->prot_hard = hard_sum;
		m->prot_best = best_sum;
		m->stamp = stamp;
		return m;
	}
	m->nret0 = 0;
	if (n > m->ret0_cap) {
		/* the returns, then the bids */
		double *r = realloc(m->ret0, (size_t) n * 2 * sizeof(*r));

		if (r) {
			m->ret0 = r;
			m->bid = r + n;
			m->ret0_cap = n;
		}
	}
	m->share = 0.0;
	m->ret = 0.0;
	m->best_ret = -INFINITY;
	m->best = -1;
	m->any_hard = false;
	m->prot_hard = 0.0;
	m->prot_best = 0.0;
	for (int i = 0; i < n; i++) {
		const libra_entry_t *e = &ent[i];
		double r;

		if (n <= m->ret0_cap)
			m->ret0[i] = m->bid[i] = 0.0;
		if (e->best_effort)
			continue;
		m->share += e->cpus * e->share;
		r = _return_of(p, e, 0.0);
		if (n <= m->ret0_cap) {
			m->ret0[i] = r;
			m->bid[i] = _bid(p, e);
		}
		m->ret += r;
		if (r > m->best_ret) {
			m->best_ret = r;
			m->best = i;
		}
		if (e->type == LIBRA_DEADLINE_HARD) {
			m->any_hard = true;
			m->prot_hard += e->cpus * e->share;
		}
	}
	/* the kept share when the best entry stays the best */
	for (int i = 0; i < n; i++)
		if (!ent[i].best_effort &&
		    (i == m->best || ent[i].type == LIBRA_DEADLINE_HARD))
			m->prot_best += ent[i].cpus * ent[i].share;
	if (n <= m->ret0_cap)
		m->nret0 = n;
	memcpy(m->params, key, sizeof(m->params));
	m->stamp = stamp;
	m->shape = shape;
	return m;
}

/* The node's cpus * share with extra, summed as the loops below sum it. */
static double _sum_with(const libra_node_memo_t *m, const libra_entry_t *extra)
{
	double sum = m->share;

	if (extra && !extra->best_effort)
		sum += extra->cpus * extra->share;
	return sum;
}

/*
 * In a shortfall the best job and the hard jobs keep their shares: their
 * cpus * share with extra (at index n), summed in entry order as the loops
 * below sum it, from the memo; *best the best job's index.  extra_ret:
 * extra's undelayed return.
 */
static double _memo_kept(const libra_node_memo_t *m,
			 const libra_entry_t *extra, double extra_ret, int n,
			 int *best)
{
	bool in = extra && !extra->best_effort;
	double cs = in ? extra->cpus * extra->share : 0.0;

	if (in && extra_ret > m->best_ret) {
		*best = n;		/* extra is the best: the hard ones */
		return m->prot_hard + cs;
	}
	*best = m->best;
	if (in && extra->type == LIBRA_DEADLINE_HARD)
		return m->prot_best + cs;
	return m->prot_best;
}

/*
 * The shortfall's sum over entries [0, n) of a node (n even; the loop in
 * _node_return() below), two at a time (vec.h): each lane computes what
 * _delay_at() and _return_of() compute for its entry, with the memo's bid
 * and undelayed return, and the returns are added one by one in entry
 * order, so the sum is the same to the bit.  The kept entries (the best
 * and the hard ones) run at kept_scale, the others at f.  Finding E: its
 * four divisions an entry, two entries at once.
 */
static double _short_pairs(const libra_params_t *p,
			   const libra_node_memo_t *m,
			   const libra_entry_t *ent, int n, int best,
			   double kept_scale, double f, double now)
{
	const libra_v2_t vnow = libra_v2_set(now), zero = libra_v2_set(0.0);
	const libra_v2_t one = libra_v2_set(1.0), hour = libra_v2_set(3600.0);
	const libra_v2_t smin = libra_v2_set(p->share_min);
	const libra_v2_t vkept = libra_v2_set(kept_scale), vf = libra_v2_set(f);
	const libra_v2_t plain = libra_v2_set(p->sla_return_utility);
	double ret = 0.0;

	for (int i = 0; i < n; i += 2) {
		const libra_entry_t *a = &ent[i], *b = &ent[i + 1];
		libra_v2_t is_kept = {
			i == best || a->type == LIBRA_DEADLINE_HARD,
			i + 1 == best || b->type == LIBRA_DEADLINE_HARD
		};
		libra_v2_t share = { a->share, b->share };
		libra_v2_t work = { a->work, b->work };
		libra_v2_t since = { a->since, b->since };
		libra_v2_t deadline = { a->deadline, b->deadline };
		libra_v2_t submit = { a->submit, b->submit };
		libra_v2_t runtime = { a->runtime, b->runtime };
		libra_v2_t rate = { a->penalty_rate, b->penalty_rate };
		libra_v2_t pcap = { a->penalty_cap, b->penalty_cap };
		libra_v2_t scale = libra_v2_pick(is_kept > zero, vkept, vf);
		libra_v2_t left, s, finish, dy, pen, u, d, r;

		/* _delay_at(p, e, share * scale, now), 0 when scale >= 1 */
		left = work - share * (vnow - since);
		left = libra_v2_pick(left > zero, left, zero);
		left = libra_v2_pick(vnow <= since, work, left);
		s = share * scale;
		s = libra_v2_pick(s < smin, smin, s);
		finish = vnow + left / s;
		dy = libra_v2_pick(finish > deadline, finish - deadline, zero);
		dy = libra_v2_pick(scale >= one, zero, dy);
		/* _return_of(p, e, dy), the memo's when undelayed */
		pen = dy / hour * rate;
		pen = libra_v2_pick(pen > pcap, pcap, pen);
		u = libra_v2_load(&m->bid[i]) - pen;
		d = deadline - submit;
		d = libra_v2_pick(d > zero, d, one);
		r = libra_v2_pick(plain > zero, u, (u / runtime) / d);
		r = libra_v2_pick(dy == zero, libra_v2_load(&m->ret0[i]), r);
		if (!a->best_effort)
			ret += r[0];
		if (!b->best_effort)
			ret += r[1];
	}
	return ret;
}

/*
 * The entries of a node and extra (index n; total: n + 1 with it, n
 * without), best effort left out: the CPU share they hold, the one with
 * the highest undelayed return (the first of equals: -1 for none), and
 * whether a committed one has a hard deadline.
 */
static double _scan(const libra_params_t *p, const libra_entry_t *ent,
		    int n, const libra_entry_t *extra, int total, int *best,
		    bool *any_hard)
{
	double sum = 0.0, best_ret = -INFINITY;

	*best = -1;
	*any_hard = false;
	for (int i = 0; i < total; i++) {
		const libra_entry_t *e = i < n ? &ent[i] : extra;
		double r;

		if (e->best_effort)
			continue;
		sum += e->cpus * e->share;
		r = _return_of(p, e, 0.0);
		if (r > best_ret) {
			best_ret = r;
			*best = i;
		}
		if (i < n && e->type == LIBRA_DEADLINE_HARD)
			*any_hard = true;
	}
	return sum;
}

/*
 * In a shortfall the best job (index best) and the hard-deadline jobs
 * keep their shares: the CPU share they hold, of the node's entries and
 * extra (index n; total as in _scan()).
 */
static double _kept(const libra_entry_t *ent, int n,
		    const libra_entry_t *extra, int total, int best)
{
	double prot = 0.0;

	for (int i = 0; i < total; i++) {
		const libra_entry_t *e = i < n ? &ent[i] : extra;

		if (!e->best_effort &&
		    (i == best || e->type == LIBRA_DEADLINE_HARD))
			prot += e->cpus * e->share;
	}
	return prot;
}

static double _node_return(const libra_ledger_t *l, const libra_params_t *p,
			   int node, const libra_node_memo_t *m,
			   const libra_entry_t *extra, double extra_ret,
			   double now, double *dy_extra)
{
	const libra_entry_t *ent;
	int n = libra_ledger_node_entries(l, node, &ent);
	int total = n + (extra ? 1 : 0), best = -1;
	double cap = p->capacity * libra_ledger_node_cpus(l, node);
	double sum = 0.0, prot = 0.0, other, f, ret = 0.0;
	double kept_scale;
	bool any_hard;
	int from = 0;

	if (dy_extra)
		*dy_extra = 0.0;
	if (m && _sum_with(m, extra) <= cap + p->tolerance) {
		/* enough capacity (below): the memo's sum, and the extra's */
		ret = m->ret;
		if (extra && !extra->best_effort)
			ret += extra_ret;
		return ret;
	}
	if (m) {
		/* a shortfall (below): the sums from the memo */
		sum = _sum_with(m, extra);
		prot = _memo_kept(m, extra, extra_ret, n, &best);
		goto shortfall;
	}
	sum = _scan(p, ent, n, extra, total, &best, &any_hard);
	if (sum <= cap + p->tolerance) {
		/* enough capacity: nobody is delayed, U_i = B_i */
		for (int i = 0; i < total; i++) {
			const libra_entry_t *e = i < n ? &ent[i] : extra;

			if (!e->best_effort)
				ret += _return_of(p, e, 0.0);
		}
		return ret;
	}
	/* shortfall: the best job and hard jobs keep their shares */
	prot = _kept(ent, n, extra, total, best);
shortfall:
	other = sum - prot;
	f = other > 0.0 ? fmax(cap - prot, 0.0) / other : 0.0;
	kept_scale = prot > cap ? cap / prot : 1.0;
	if (m && m->nret0 == n) {
		/* the node's entries two at a time, as the loop below */
		from = n - n % 2;
		ret = _short_pairs(p, m, ent, from, best, kept_scale, f, now);
	}
	for (int i = from; i < total; i++) {
		const libra_entry_t *e = i < n ? &ent[i] : extra;
		bool kept = (i == best || e->type == LIBRA_DEADLINE_HARD);
		double scale = kept ? kept_scale : f, dy;

		if (e->best_effort)
			continue;
		dy = scale >= 1.0 ? 0.0 : _delay_at(p, e, e->share * scale,
						    now);
		if (i == n && dy_extra)
			*dy_extra = dy;
		/* undelayed: the memo's _return_of(p, e, 0.0) */
		if (dy == 0.0 && m && i < m->nret0)
			ret += m->ret0[i];
		else
			ret += _return_of(p, e, dy);
	}
	return ret;
}

/*
 * Would adding extra make an admitted hard-deadline job late?  In a
 * shortfall the best job and the hard jobs keep their shares; if those
 * alone exceed the node, hard jobs are slowed too.  The thesis checks
 * only the new job's own deadline (Fig. 4.2); a hard deadline is a
 * promise, so we check the admitted ones as well.
 */
static bool _delays_hard(const libra_ledger_t *l, const libra_params_t *p,
			 int node, const libra_node_memo_t *m,
			 const libra_entry_t *extra, double extra_ret)
{
	const libra_entry_t *ent;
	int n = libra_ledger_node_entries(l, node, &ent), best = -1;
	double cap = p->capacity * libra_ledger_node_cpus(l, node);
	double sum, prot = 0.0;
	bool any_hard;

	if (m) {
		/* as below, from the memo */
		if (!m->any_hard || _sum_with(m, extra) <= cap + p->tolerance)
			return false;
		prot = _memo_kept(m, extra, extra_ret, n, &best);
		return prot > cap + p->tolerance;
	}

	sum = _scan(p, ent, n, extra, n + 1, &best, &any_hard);
	if (!any_hard || sum <= cap + p->tolerance)
		return false;
	prot = _kept(ent, n, extra, n + 1, best);
	return prot > cap + p->tolerance;
}

/*
 * Libra's best fit (thesis section 4.4.2: the least processor time left
 * after the new job first) as a sort key: the node's free share with the
 * new job where that is >= 0, least first; after them the nodes it would
 * overcommit, the least overcommitted first (Libra takes none of those;
 * LibraSLA may, and piling work on the most overcommitted would starve it).
 */
static double _bestfit_key(const libra_ledger_t *l, const libra_params_t *p,
			   int node, const libra_node_memo_t *m,
			   const libra_entry_t *extra)
{
	const libra_entry_t *ent;
	int n = libra_ledger_node_entries(l, node, &ent), best;
	double cap = p->capacity * libra_ledger_node_cpus(l, node), left;
	bool any_hard;

	if (m)
		left = cap - _sum_with(m, extra);
	else
		left = cap - _scan(p, ent, n, extra, n + 1, &best, &any_hard);
	if (left >= -p->tolerance)
		return fmax(left, 0.0);
	return cap - left;	/* > cap: after every node it fits */
}

static void _extra_entry(const libra_params_t *p, const libra_sla_t *sla,
			 double now, double share, int cpus,
			 libra_entry_t *e)
{
	memset(e, 0, sizeof(*e));
	e->job_id = 0;
	e->cpus = cpus;
	e->share = share;
	e->speed = 1.0;
	e->work = sla->runtime;
	e->since = now;
	e->runtime = sla->runtime;
	e->submit = sla->submit;
	e->deadline = sla->deadline;
	e->budget = libra_sla_has_budget(sla) ? sla->budget : -1.0;
	e->penalty_rate = sla->penalty_rate;
	e->penalty_cap = libra_sla_penalty_cap(sla);
	e->type = sla->type;
}

/*
 * A hint for the node admit_sla() comes to _SLA_AHEAD nodes later: its
 * entries, when its memo says it will be short with the new job, so that
 * _short_pairs() finds them in the cache (at 10,000 nodes they are not:
 * the walk waited about 90 cycles an entry for them, against 27 when they
 * were there).  The memo may be out of date: it only hints.
 */
#define _SLA_AHEAD 4

static void _sla_prefetch(const libra_ledger_t *l, const libra_params_t *p,
			  const libra_request_t *req, double share, int node)
{
	const libra_node_memo_t *m = libra_ledger_node_memo(l, node);
	int cpus = libra_ledger_node_cpus(l, node);

	share /= libra_ledger_node_speed(l, node);	/* decision 43 */
	if (m && m->share + (req->cpus < cpus ? req->cpus : cpus) * share >
		 p->capacity * cpus + p->tolerance)
		libra_ledger_prefetch_entries(l, node);
}

extern void admit_sla(const libra_ledger_t *l, const libra_params_t *p,
		      const libra_sla_t *sla, const libra_request_t *req,
		      double now, cand_t *c, libra_quote_t *q)
{
	int n = 0, nodes = libra_ledger_node_count(l), blocked_by_delay = 0;
	libra_entry_t extra;
	double key[4], extra_ret;

	/* what is the same on every node: the memos' key, the new job but
	 * its CPUs, its undelayed return */
	_sla_memo_key(p, key);
	_extra_entry(p, sla, now, q->share, 0, &extra);
	extra_ret = _return_of(p, &extra, 0.0);
	for (int j = 0; j < nodes; j++) {
		int k = admit_takeable(l, req, j);
		const libra_node_memo_t *m;
		double old_ret;

		if (j + _SLA_AHEAD < nodes)
			_sla_prefetch(l, p, req, q->share, j + _SLA_AHEAD);
		if (k < 1)
			continue;
		/* the new job's share and work in the node's seconds
		 * (decision 43); its return is the reference's */
		extra.speed = libra_ledger_node_speed(l, j);
		extra.share = q->share / extra.speed;
		extra.work = sla->runtime / extra.speed;
		/* one memo for all the node's figures (_sla_memo()) */
		m = _sla_memo(l, p, key, j);
		/* the node's return as it is: the same for both tries */
		old_ret = _node_return(l, p, j, m, NULL, 0.0, now, NULL);
		for (;;) {
			double new_ret, dy;
			bool ok;

			extra.cpus = k;
			/* a hard job delayed refuses the node whatever the
			 * return: then the return is not projected (the
			 * thesis' test without it: decision 50) */
			ok = p->sla_unprotected ||
			     !_delays_hard(l, p, j, m, &extra, extra_ret);
			new_ret = dy = 0.0;
			if (ok) {
				new_ret = _node_return(l, p, j, m, &extra,
						       extra_ret, now, &dy);
				ok = new_ret >= old_ret - p->tolerance *
				     fmax(1.0, fabs(old_ret));
			}
			if (ok && sla->type == LIBRA_DEADLINE_HARD &&
			    dy > LIBRA_DEADLINE_GRACE) {
				ok = false;
				blocked_by_delay++;
			}
			if (ok) {
				/* highest return first, or Libra's best fit
				 * (decision 50) */
				admit_cand_init(l, &c[n], j, k, p->sla_bestfit ?
						_bestfit_key(l, p, j, m,
							     &extra) :
						-new_ret);
				n++;
				break;
			}
			if (k == 1)
				break;
			k = 1;
		}
	}
	if (admit_fill(c, n, req, q, false) < req->cpus) {
		q->verdict = blocked_by_delay ? LIBRA_REJECT_DEADLINE :
						LIBRA_REJECT_RETURN;
		q->nplace = 0;
		return;
	}
	/* bid-based: the user pays the bid (the budget) if on time */
	if (libra_sla_has_budget(sla)) {
		q->price = sla->budget;
		q->rate_max = sla->budget / (sla->runtime * req->cpus);
		q->verdict = LIBRA_ACCEPT;
	} else {
		admit_static_price(l, p, sla, req, now, q);
		q->verdict = LIBRA_ACCEPT;
	}
}
