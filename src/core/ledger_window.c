/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ledger_window.c - what a node's entries commit over time (see ledger.h):
 *  the window work and the peak share, read from the entries' compact
 *  mirror; the memory, GPUs and scratch disk held, the deadlines to test
 *  at, the bookings; the prefetches of a node's entries; and the progress
 *  reports and expiries that bring the shares up to date.  The nodes, the
 *  jobs and their entries are kept in ledger.c.
\*****************************************************************************/

#include <math.h>
#include <string.h>

#include "ledger.h"
#include "ledger_int.h"
#include "share.h"
#include "vec.h"

extern void libra_ledger_node_held_window(const libra_ledger_t *l, int node,
					  double now, double t_end,
					  double *mem_mb_s, double *gpu_s,
					  double *tmp_mb_s)
{
	const ledger_node_t *n = ledger_node(l, node);

	*mem_mb_s = 0.0;
	*gpu_s = 0.0;
	*tmp_mb_s = 0.0;
	if (!n || t_end <= now)
		return;
	for (int i = 0; i < n->nentries; i++) {
		const libra_entry_t *e = &n->entries[i];
		double until = t_end;

		if (!e->mem_mb && !e->gpus && !e->tmp_mb)
			continue;
		/* an SLA job runs at its share until its deadline */
		if (!e->best_effort && e->deadline > now && e->deadline < t_end)
			until = e->deadline;
		*mem_mb_s += (double) e->mem_mb * (until - now);
		*gpu_s += (double) e->gpus * (until - now);
		*tmp_mb_s += (double) e->tmp_mb * (until - now);
	}
}

extern double libra_entry_work_at(const libra_entry_t *e, double now)
{
	double w;

	if (now <= e->since)
		return e->work;	/* a booked job has not begun */
	w = e->work - e->share * (now - e->since);

	return w > 0.0 ? w : 0.0;
}

extern double libra_ledger_node_window_work(const libra_ledger_t *l, int node,
					    double now, double t_end)
{
	const ledger_node_t *n = ledger_node(l, node);
	const libra_v2_t vnow = libra_v2_set(now), vend = libra_v2_set(t_end);
	const libra_v2_t zero = libra_v2_set(0.0);
	double sum = 0.0;

	if (!n || t_end <= now)
		return 0.0;
	for (int p = 0; p < (n->nentries + 1) / 2; p++) {
		const ledger_wpair_t *w = &n->win[p];
		libra_m2_t inside = (w->deadline > vnow) &
				    (w->deadline < vend);
		libra_v2_t from = libra_v2_pick(w->start > vnow, w->start,
						vnow);
		libra_v2_t until = libra_v2_pick(inside, w->deadline, vend);
		libra_v2_t cs = libra_v2_pick(w->deadline <= vnow, w->cs_late,
					      w->cs);
		libra_v2_t term = libra_v2_pick(until > from,
						cs * (until - from), zero);

		/*
		 * At its share a job does share * (min(T, TD) - now) by T.
		 * A job already past its deadline runs on at share_min (the
		 * model of libra_ledger_expire(), whether or not it was
		 * applied yet).  A booked job works only from its begin
		 * (decision 21).  (Selects, not branches: the deadlines
		 * are in no order; an empty term, and the padding's, adds
		 * +0 and changes no sum, as skipping it did; a deadline at
		 * or before now is never inside.  Finding B.)
		 */
		sum += term[0];
		sum += term[1];
	}
	return sum;
}

extern int libra_ledger_node_targets(const libra_ledger_t *l, int node,
				     double after, double until, double *t,
				     int m, int max)
{
	const ledger_node_t *n = ledger_node(l, node);

	if (!n || max < 1)
		return m;
	for (int i = 0; i < n->nentries; i++) {
		double at = ceil(WIN(n, i, deadline));
		int pos;

		if (!(at > after) || at > until || n->entries[i].best_effort)
			continue;
		if (m == max && at >= t[m - 1])
			continue;
		for (pos = m; pos > 0 && t[pos - 1] > at; pos--)
			;
		if (pos > 0 && t[pos - 1] == at)
			continue;	/* distinct times only */
		if (m < max)
			m++;
		memmove(&t[pos + 1], &t[pos],
			(size_t) (m - 1 - pos) * sizeof(*t));
		t[pos] = at;
	}
	return m;
}

/* Prefetch the cache lines of [p, p + bytes), at most "max" of them. */
static inline void _prefetch_bytes(const void *p, size_t bytes, size_t max)
{
	const char *c = p;

	for (size_t off = 0; off < bytes && off < max * 64; off += 64)
		__builtin_prefetch(c + off);
}

extern void libra_ledger_prefetch_node(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n;

	if (node < 0 || node >= l->nnodes)
		return;
	n = &l->nodes[node];
	/* the first four cache lines: eight entries */
	_prefetch_bytes(n->win, (size_t) (n->nentries + 1) / 2 *
			sizeof(*n->win), 4);
}

extern void libra_ledger_prefetch_entries(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n;
	const libra_node_memo_t *m;

	if (node < 0 || node >= l->nnodes)
		return;
	n = &l->nodes[node];
	m = &l->memos[node];
	_prefetch_bytes(n->entries, (size_t) n->nentries * sizeof(*n->entries),
			32);
	if (m->ret0)
		_prefetch_bytes(m->ret0, (size_t) m->nret0 * sizeof(*m->ret0),
				4);
	if (m->bid)
		_prefetch_bytes(m->bid, (size_t) m->nret0 * sizeof(*m->bid), 4);
}

extern int libra_ledger_node_booked(const libra_ledger_t *l, int node,
				    double t)
{
	const ledger_node_t *n = ledger_node(l, node);
	int count = 0;

	if (!n || !n->nbooked)
		return 0;
	for (int i = 0; i < n->nentries; i++)
		count += n->entries[i].start > t;
	return count;
}

/*
 * What entry e commits at time t >= now (ledger.h): nothing before its
 * start; its share until its target; its tail after.  A job already past
 * its target at now keeps its share: when it ends is not known.
 */
static double _entry_share_at(const ledger_node_t *n, int i, double now,
			      double t)
{
	double deadline = WIN(n, i, deadline);

	if (t < WIN(n, i, start))
		return 0.0;
	if (t < deadline || deadline <= now)
		return WIN(n, i, cs);
	return WIN(n, i, cs_late);	/* cs when best effort */
}

extern double libra_ledger_node_peak_share(const libra_ledger_t *l, int node,
					   double now, double from,
					   double until)
{
	const ledger_node_t *n = ledger_node(l, node);
	double peak = 0.0;

	if (!n)
		return 0.0;
	if (!n->nbooked && from <= now)
		return n->share_sum;
	/*
	 * The sum only falls between the times booked entries begin (a
	 * target turns a share into its smaller tail), so its most in the
	 * window is at "from" or at one of those begins.  (The entries'
	 * compact mirror has all it needs.)
	 */
	if (from < now)
		from = now;
	for (int b = -1; b < n->nentries; b++) {
		double t = b < 0 ? from : WIN(n, b, start), sum = 0.0;

		if (b >= 0 && !(t > from && t < until))
			continue;
		for (int i = 0; i < n->nentries; i++)
			sum += _entry_share_at(n, i, now, t);
		if (sum > peak)
			peak = sum;
	}
	return peak;
}

static void _progress_entry(libra_ledger_t *l, ledger_node_t *n,
			    uint32_t job_id, double cpu_done, double now)
{
	libra_entry_t *e = ledger_entry_find(n, job_id);
	double old;

	if (!e || e->best_effort || now < e->start)
		return;		/* a booked job's share holds until its begin */
	old = e->share;
	e->work = (e->runtime - cpu_done) / e->speed;
	if (e->work < 0.0)
		e->work = 0.0;
	e->since = now;
	e->share = libra_share_remaining(e->work, e->deadline - now,
					 l->share_min);
	ledger_win_sync(l, n, (int) (e - n->entries));
	n->share_sum += e->cpus * (e->share - old);
	if (n->share_sum < 0.0)
		n->share_sum = 0.0;
}

extern int libra_ledger_progress(libra_ledger_t *l, uint32_t job_id, int node,
				 double cpu_done, double now)
{
	ledger_job_t *j = ledger_job_find(l, job_id);
	bool found = false;

	if (!j)
		return -1;
	if (node >= 0) {
		/* one node: its entry directly, not a scan of the places */
		if (node >= l->nnodes ||
		    !ledger_entry_find(&l->nodes[node], job_id))
			return -1;
		_progress_entry(l, &l->nodes[node], job_id, cpu_done, now);
		return 0;
	}
	for (int i = 0; i < j->nplace; i++) {
		_progress_entry(l, &l->nodes[j->place[i].node], job_id,
				cpu_done, now);
		found = true;
	}
	return found ? 0 : -1;
}

extern void libra_ledger_expire(libra_ledger_t *l, double now)
{
	for (int n = 0; n < l->nnodes; n++) {
		ledger_node_t *node = &l->nodes[n];
		bool changed = false;

		for (int i = 0; i < node->nentries; i++) {
			libra_entry_t *e = &node->entries[i];

			if (e->best_effort || e->deadline > now ||
			    e->share <= l->share_min)
				continue;
			e->work = 0.0;
			e->since = now;
			e->share = l->share_min;
			ledger_win_sync(l, node, i);
			changed = true;
		}
		if (changed)
			ledger_node_resum(node);
	}
}

extern int libra_ledger_progress_node(libra_ledger_t *l, int node,
				      const double *cpu_done, int n,
				      double now)
{
	ledger_node_t *nd;
	double share = 0.0;

	if (node < 0 || node >= l->nnodes || n != l->nodes[node].nentries)
		return -1;
	nd = &l->nodes[node];
	for (int i = 0; i < n; i++) {
		libra_entry_t *e = &nd->entries[i];

		if (!(e->best_effort || now < e->start)) {
			e->work = (e->runtime - cpu_done[i]) / e->speed;
			if (e->work < 0.0)
				e->work = 0.0;
			e->since = now;
			e->share = libra_share_clamp(e->work, e->deadline - now,
						     l->share_min);
			ledger_win_share(l, nd, i);
		}
		share += e->cpus * e->share;
	}
	/*
	 * The node's share summed in entry order, as ledger_node_resum()
	 * sums it; its other totals are integers, or thesis_work, which only
	 * an added entry leaves a running sum of (then all of it, as before).
	 */
	if (nd->added)
		ledger_node_resum(nd);
	else
		nd->share_sum = share;
	return 0;
}
