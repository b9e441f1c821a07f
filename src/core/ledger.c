/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ledger.c - the per-node book of committed shares (see ledger.h).
 *
 *  Layout: an array of nodes, each with an array of entries (one per job
 *  part on that node) and its running totals; an open-addressing hash table
 *  from job id to the job (its SLA and placement); a second one from node
 *  name to index.  Entries are removed by swapping with the last one, so a
 *  node's entries are in no particular order.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "share.h"
#include "vec.h"

typedef struct ledger_job {
	uint32_t id;
	bool used;
	bool best_effort;
	double committed;
	libra_sla_t sla;
	int nplace;
	libra_place_t *place;
} ledger_job_t;

/*
 * What the window work reads of the entries, kept beside them in the same
 * order: entry i is lane i % 2 of pair i / 2, so two entries fill one
 * 64-byte line and the sum over a node's entries, which Libra+$ makes for
 * every node at every decision, forms two terms with each operation
 * (finding B).  The terms are the same products as from the entries, and
 * are added one by one in entry order, so the sum is the same to the bit.
 * The lane after an odd last entry is padding whose term is +0.
 */
typedef struct ledger_wpair {
	libra_v2_t deadline;	/* TD (0: best effort) */
	libra_v2_t cs;		/* cpus * share */
	libra_v2_t cs_late;	/* cpus * min(share, share_min): what a job
				 * past TD commits (cs when best effort) */
	libra_v2_t start;	/* a booking's begin, -INFINITY: now */
} ledger_wpair_t;

typedef struct ledger_node {
	char *name;
	int cpus;
	bool up;
	double beta;
	double load_avg;	/* smoothed share_sum / cpus (NaN: unset) */
	double load_t;		/* when load_avg was last brought forward */
	double share_sum;	/* sum of cpus * share */
	int job_cpus;		/* sum of cpus, best effort included */
	double thesis_work;	/* sum of cpus * RE */
	uint64_t mem_mb;	/* the node's memory; 0: not tracked */
	int gpus;		/* the node's GPUs */
	uint64_t mem_used;	/* sum of the entries' memory */
	int gpus_used;		/* sum of the entries' GPUs */
	int nbooked;		/* entries with a begin time (start finite) */
	bool added;		/* an entry was added since the last
				 * _node_resum(): thesis_work is a running
				 * sum, not the entries' sum in order */
	int nentries, capacity;
	libra_entry_t *entries;
	ledger_wpair_t *win;	/* mirror of entries, capacity / 2 pairs */
	uint64_t stamp;		/* changes with any entry (node_stamp) */
	uint64_t shape;		/* changes with any entry but by its
				 * progress (node_shape) */
} ledger_node_t;

struct libra_ledger {
	double share_min;
	int nnodes, nodes_cap;
	ledger_node_t *nodes;
	libra_node_memo_t *memos;	/* one per node, beside them (not in
					 * the node: loops over the nodes read
					 * less) */
	int *name_slots;	/* hash of node names -> index, -1 empty */
	int name_slots_cap;
	ledger_job_t *jobs;	/* hash of job ids, linear probing */
	int jobs_cap, njobs;
	uint64_t beta_changes;	/* libra_ledger_betas_changes() */
};

static uint32_t _hash_u32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

static uint32_t _hash_str(const char *s)
{
	uint32_t h = 2166136261U;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char) *s++) * 16777619U;
	return h;
}

extern libra_ledger_t *libra_ledger_create(double share_min)
{
	libra_ledger_t *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->share_min = share_min;
	l->jobs_cap = 64;
	l->jobs = calloc((size_t) l->jobs_cap, sizeof(*l->jobs));
	if (!l->jobs) {
		free(l);
		return NULL;
	}
	return l;
}

static void _free_jobs(libra_ledger_t *l)
{
	for (int i = 0; i < l->jobs_cap; i++)
		if (l->jobs[i].used)
			free(l->jobs[i].place);
	memset(l->jobs, 0, (size_t) l->jobs_cap * sizeof(*l->jobs));
	l->njobs = 0;
}

extern void libra_ledger_destroy(libra_ledger_t *l)
{
	if (!l)
		return;
	_free_jobs(l);
	free(l->jobs);
	for (int i = 0; i < l->nnodes; i++) {
		free(l->nodes[i].name);
		free(l->nodes[i].entries);
		free(l->nodes[i].win);
		free(l->memos[i].ret0);
	}
	free(l->nodes);
	free(l->memos);
	free(l->name_slots);
	free(l);
}

extern void libra_ledger_clear_jobs(libra_ledger_t *l)
{
	_free_jobs(l);
	for (int i = 0; i < l->nnodes; i++) {
		l->nodes[i].nentries = 0;
		l->nodes[i].stamp++;
		l->nodes[i].shape++;
		l->nodes[i].job_cpus = 0;
		l->nodes[i].share_sum = 0.0;
		l->nodes[i].thesis_work = 0.0;
		l->nodes[i].mem_used = 0;
		l->nodes[i].gpus_used = 0;
		l->nodes[i].nbooked = 0;
		l->nodes[i].added = false;
	}
}

static void _win_sync(const libra_ledger_t *l, ledger_node_t *n, int i);

extern void libra_ledger_set_share_min(libra_ledger_t *l, double share_min)
{
	l->share_min = share_min;
	/* the mirror's tails are of share_min */
	for (int k = 0; k < l->nnodes; k++)
		for (int i = 0; i < l->nodes[k].nentries; i++)
			_win_sync(l, &l->nodes[k], i);
}

/* ---------------------------------------------------------------- nodes */

static int _name_lookup(const libra_ledger_t *l, const char *name)
{
	uint32_t mask, i;

	if (!l->name_slots_cap)
		return -1;
	mask = (uint32_t) l->name_slots_cap - 1;
	for (i = _hash_str(name) & mask; l->name_slots[i] >= 0;
	     i = (i + 1) & mask) {
		if (!strcmp(l->nodes[l->name_slots[i]].name, name))
			return l->name_slots[i];
	}
	return -1;
}

static int _name_rehash(libra_ledger_t *l, int cap)
{
	int *slots = malloc((size_t) cap * sizeof(int));
	uint32_t mask = (uint32_t) cap - 1;

	if (!slots)
		return -1;
	for (int i = 0; i < cap; i++)
		slots[i] = -1;
	for (int n = 0; n < l->nnodes; n++) {
		uint32_t i = _hash_str(l->nodes[n].name) & mask;

		while (slots[i] >= 0)
			i = (i + 1) & mask;
		slots[i] = n;
	}
	free(l->name_slots);
	l->name_slots = slots;
	l->name_slots_cap = cap;
	return 0;
}

extern int libra_ledger_add_node(libra_ledger_t *l, const char *name,
				 int cpus)
{
	ledger_node_t *n;

	if (!name || !*name || cpus < 1 || _name_lookup(l, name) >= 0)
		return -1;
	if (l->nnodes == l->nodes_cap) {
		int cap = l->nodes_cap ? l->nodes_cap * 2 : 16;
		ledger_node_t *nodes = realloc(l->nodes,
					       (size_t) cap * sizeof(*nodes));
		libra_node_memo_t *memos;

		if (!nodes)
			return -1;
		l->nodes = nodes;
		memos = realloc(l->memos, (size_t) cap * sizeof(*memos));
		if (!memos)
			return -1;
		l->memos = memos;
		l->nodes_cap = cap;
	}
	n = &l->nodes[l->nnodes];
	memset(n, 0, sizeof(*n));
	memset(&l->memos[l->nnodes], 0, sizeof(*l->memos));
	if (!(n->name = strdup(name)))
		return -1;
	n->cpus = cpus;
	n->stamp = 1;		/* a memo of stamp 0 is empty */
	n->shape = 1;		/* and of shape 0 */
	n->up = true;
	n->beta = NAN;
	n->load_avg = NAN;
	l->nnodes++;
	/* keep the name table at most half full */
	if (l->nnodes * 2 > l->name_slots_cap) {
		int cap = l->name_slots_cap ? l->name_slots_cap * 2 : 32;

		while (l->nnodes * 2 > cap)
			cap *= 2;
		if (_name_rehash(l, cap)) {
			free(n->name);
			l->nnodes--;
			return -1;
		}
	} else {
		uint32_t mask = (uint32_t) l->name_slots_cap - 1;
		uint32_t i = _hash_str(name) & mask;

		while (l->name_slots[i] >= 0)
			i = (i + 1) & mask;
		l->name_slots[i] = l->nnodes - 1;
	}
	return l->nnodes - 1;
}

extern int libra_ledger_node_count(const libra_ledger_t *l)
{
	return l->nnodes;
}

extern int libra_ledger_find_node(const libra_ledger_t *l, const char *name)
{
	return name ? _name_lookup(l, name) : -1;
}

static const ledger_node_t *_node(const libra_ledger_t *l, int node)
{
	if (node < 0 || node >= l->nnodes)
		return NULL;
	return &l->nodes[node];
}

extern const char *libra_ledger_node_name(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	return n ? n->name : NULL;
}

extern int libra_ledger_node_cpus(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	return n ? n->cpus : 0;
}

extern void libra_ledger_set_node_up(libra_ledger_t *l, int node, bool up)
{
	if (_node(l, node))
		l->nodes[node].up = up;
}

extern bool libra_ledger_node_up(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	return n && n->up;
}

extern int libra_ledger_set_node_resources(libra_ledger_t *l, int node,
					   uint64_t mem_mb, int gpus)
{
	if (!_node(l, node) || gpus < 0)
		return -1;
	l->nodes[node].mem_mb = mem_mb;
	l->nodes[node].gpus = gpus;
	return 0;
}

extern uint64_t libra_ledger_node_mem(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	return n ? n->mem_mb : 0;
}

extern int libra_ledger_node_gpus(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	return n ? n->gpus : 0;
}

extern uint64_t libra_ledger_node_mem_used(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	return n ? n->mem_used : 0;
}

extern int libra_ledger_node_gpus_used(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	return n ? n->gpus_used : 0;
}

extern uint64_t libra_ledger_node_mem_free(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	if (!n)
		return 0;
	if (!n->mem_mb)
		return LIBRA_MEM_UNTRACKED;
	return n->mem_used < n->mem_mb ? n->mem_mb - n->mem_used : 0;
}

extern int libra_ledger_node_gpus_free(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	if (!n)
		return 0;
	return n->gpus_used < n->gpus ? n->gpus - n->gpus_used : 0;
}

extern void libra_ledger_node_held_window(const libra_ledger_t *l, int node,
					  double now, double t_end,
					  double *mem_mb_s, double *gpu_s)
{
	const ledger_node_t *n = _node(l, node);

	*mem_mb_s = 0.0;
	*gpu_s = 0.0;
	if (!n || t_end <= now)
		return;
	for (int i = 0; i < n->nentries; i++) {
		const libra_entry_t *e = &n->entries[i];
		double until = t_end;

		if (!e->mem_mb && !e->gpus)
			continue;
		/* an SLA job runs at its share until its deadline */
		if (!e->best_effort && e->deadline > now && e->deadline < t_end)
			until = e->deadline;
		*mem_mb_s += (double) e->mem_mb * (until - now);
		*gpu_s += (double) e->gpus * (until - now);
	}
}

extern double libra_ledger_node_beta(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	return n ? n->beta : NAN;
}

extern void libra_ledger_set_node_beta(libra_ledger_t *l, int node,
				       double beta)
{
	if (_node(l, node) && l->nodes[node].beta != beta) {
		l->nodes[node].beta = beta;
		l->beta_changes++;
	}
}

extern uint64_t libra_ledger_betas_changes(const libra_ledger_t *l)
{
	return l->beta_changes;
}

extern char *libra_ledger_betas_format(const libra_ledger_t *l)
{
	size_t len = 64, pos;
	char *buf;

	for (int i = 0; i < l->nnodes; i++)
		len += strlen(l->nodes[i].name) + 32;
	if (!(buf = malloc(len)))
		return NULL;
	pos = (size_t) snprintf(buf, len, "%s %d\n", LIBRA_BETAS_MAGIC,
				LIBRA_BETAS_VERSION);
	for (int i = 0; i < l->nnodes; i++) {
		if (isnan(l->nodes[i].beta))
			continue;	/* never set: libra_beta */
		pos += (size_t) snprintf(buf + pos, len - pos, "beta %s %.17g\n",
					 l->nodes[i].name, l->nodes[i].beta);
	}
	return buf;
}

/* One "beta <node> <beta>" line. */
static int _beta_line(void *arg, char *line, char *why, size_t len)
{
	libra_ledger_t *l = arg;
	char name[256], tail;
	double beta;
	int node;

	if (sscanf(line, "beta %255s %lf %c", name, &beta, &tail) != 2) {
		snprintf(why, len, "not \"beta <node> <number>\"");
		return -1;
	}
	if (!(beta >= 0.0) || !isfinite(beta)) {
		snprintf(why, len, "node %.60s: beta %g is not a finite number >= 0",
			 name, beta);
		return -1;
	}
	if ((node = libra_ledger_find_node(l, name)) < 0) {
		snprintf(why, len, "node %.60s is not in the configuration",
			 name);
		return -1;
	}
	libra_ledger_set_node_beta(l, node, beta);
	return 0;
}

extern int libra_ledger_betas_parse(libra_ledger_t *l, const char *text,
				    const char *name, libra_report_fn *report,
				    void *arg)
{
	return libra_statefile_read(text, name, LIBRA_BETAS_MAGIC,
				    LIBRA_BETAS_VERSION, _beta_line, l, report,
				    arg);
}

extern double libra_ledger_node_load_avg(const libra_ledger_t *l, int node,
					 double *when)
{
	const ledger_node_t *n = _node(l, node);

	if (when)
		*when = n ? n->load_t : 0.0;
	return n ? n->load_avg : NAN;
}

extern void libra_ledger_set_node_load_avg(libra_ledger_t *l, int node,
					   double load, double when)
{
	if (_node(l, node)) {
		l->nodes[node].load_avg = load;
		l->nodes[node].load_t = when;
	}
}

extern double libra_ledger_node_share(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	return n ? n->share_sum : 0.0;
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
	const ledger_node_t *n = _node(l, node);
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

/* The mirror's field f of entry i. */
#define WIN(n, i, f) ((n)->win[(unsigned) (i) / 2].f[(unsigned) (i) % 2])

extern int libra_ledger_node_targets(const libra_ledger_t *l, int node,
				     double after, double until, double *t,
				     int m, int max)
{
	const ledger_node_t *n = _node(l, node);

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

extern uint64_t libra_ledger_node_stamp(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	return n ? n->stamp : 0;
}

extern uint64_t libra_ledger_node_shape(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	return n ? n->shape : 0;
}

extern libra_node_memo_t *libra_ledger_node_memo(const libra_ledger_t *l,
						 int node)
{
	if (node < 0 || node >= l->nnodes)
		return NULL;
	/* the memo is no part of the ledger's state (ledger.h) */
	return &((libra_ledger_t *) l)->memos[node];
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

extern int libra_ledger_node_job_cpus(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	return n ? n->job_cpus : 0;
}

extern double libra_ledger_node_thesis_work(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = _node(l, node);

	return n ? n->thesis_work : 0.0;
}

extern int libra_ledger_node_entries(const libra_ledger_t *l, int node,
				     const libra_entry_t **entries)
{
	const ledger_node_t *n = _node(l, node);

	if (!n) {
		*entries = NULL;
		return 0;
	}
	*entries = n->entries;
	return n->nentries;
}

/* Recompute a node's totals from its entries (no drift). */
static void _node_resum(ledger_node_t *n)
{
	double share = 0.0, work = 0.0;

	for (int i = 0; i < n->nentries; i++) {
		share += n->entries[i].cpus * n->entries[i].share;
		if (!n->entries[i].best_effort)
			work += n->entries[i].cpus * n->entries[i].runtime;
	}
	n->share_sum = share;
	n->thesis_work = work;
	n->added = false;
	n->job_cpus = 0;
	n->mem_used = 0;
	n->gpus_used = 0;
	n->nbooked = 0;
	for (int i = 0; i < n->nentries; i++) {
		n->nbooked += isfinite(n->entries[i].start);
		n->job_cpus += n->entries[i].cpus;
		n->mem_used += n->entries[i].mem_mb;
		n->gpus_used += n->entries[i].gpus;
	}
}

/* ----------------------------------------------------------------- jobs */

static ledger_job_t *_job_slot(const libra_ledger_t *l, uint32_t id)
{
	uint32_t mask = (uint32_t) l->jobs_cap - 1;

	for (uint32_t i = _hash_u32(id) & mask;; i = (i + 1) & mask) {
		ledger_job_t *j = &l->jobs[i];

		if (!j->used || j->id == id)
			return j;
	}
}

static ledger_job_t *_job_find(const libra_ledger_t *l, uint32_t id)
{
	ledger_job_t *j = _job_slot(l, id);

	return j->used ? j : NULL;
}

static int _jobs_grow(libra_ledger_t *l)
{
	ledger_job_t *old = l->jobs;
	int old_cap = l->jobs_cap;

	l->jobs_cap *= 2;
	l->jobs = calloc((size_t) l->jobs_cap, sizeof(*l->jobs));
	if (!l->jobs) {
		l->jobs = old;
		l->jobs_cap = old_cap;
		return -1;
	}
	for (int i = 0; i < old_cap; i++)
		if (old[i].used)
			*_job_slot(l, old[i].id) = old[i];
	free(old);
	return 0;
}

/* Delete a slot and shift the following cluster back (no tombstones). */
static void _job_delete(libra_ledger_t *l, ledger_job_t *j)
{
	uint32_t mask = (uint32_t) l->jobs_cap - 1;
	uint32_t i = (uint32_t) (j - l->jobs), k;

	free(j->place);
	memset(j, 0, sizeof(*j));
	l->njobs--;
	for (k = (i + 1) & mask; l->jobs[k].used; k = (k + 1) & mask) {
		uint32_t home = _hash_u32(l->jobs[k].id) & mask;

		/* move k into the hole at i unless home lies in (i, k] */
		if ((k > i && (home <= i || home > k)) ||
		    (k < i && (home <= i && home > k))) {
			l->jobs[i] = l->jobs[k];
			memset(&l->jobs[k], 0, sizeof(l->jobs[k]));
			i = k;
		}
	}
}

/* The mirror of entry i after its share changed. */
static inline void _win_share(const libra_ledger_t *l, ledger_node_t *n,
			      int i)
{
	const libra_entry_t *e = &n->entries[i];
	double low = e->share < l->share_min ? e->share : l->share_min;

	n->stamp++;
	WIN(n, i, cs) = e->cpus * e->share;
	WIN(n, i, cs_late) = e->best_effort ? e->cpus * e->share :
					      e->cpus * low;
}

/* Bring the mirror of entry i up to date (after any change to it). */
static void _win_sync(const libra_ledger_t *l, ledger_node_t *n, int i)
{
	WIN(n, i, deadline) = n->entries[i].deadline;
	WIN(n, i, start) = n->entries[i].start;
	_win_share(l, n, i);
}

/* Lane i of the mirror as padding: its term in the window work is +0. */
static void _win_pad(ledger_node_t *n, int i)
{
	WIN(n, i, deadline) = 0.0;
	WIN(n, i, cs) = 0.0;
	WIN(n, i, cs_late) = 0.0;
	WIN(n, i, start) = INFINITY;
}

static int _entry_add(const libra_ledger_t *l, ledger_node_t *n,
		      const libra_entry_t *e)
{
	if (n->nentries == n->capacity) {
		int cap = n->capacity ? n->capacity * 2 : 4;
		libra_entry_t *ent = realloc(n->entries,
					     (size_t) cap * sizeof(*ent));
		ledger_wpair_t *win;

		if (!ent)
			return -1;
		n->entries = ent;
		/* a pair to a cache line */
		win = aligned_alloc(64, (size_t) cap / 2 * sizeof(*win));
		if (!win)
			return -1;
		if (n->win)
			memcpy(win, n->win,
			       (size_t) n->capacity / 2 * sizeof(*win));
		free(n->win);
		n->win = win;
		n->capacity = cap;
	}
	n->entries[n->nentries] = *e;
	n->shape++;
	_win_sync(l, n, n->nentries);
	if (n->nentries % 2 == 0)
		_win_pad(n, n->nentries + 1);
	n->nentries++;
	n->share_sum += e->cpus * e->share;
	n->job_cpus += e->cpus;
	n->mem_used += e->mem_mb;
	n->gpus_used += e->gpus;
	n->nbooked += isfinite(e->start);
	if (!e->best_effort)
		n->thesis_work += e->cpus * e->runtime;
	n->added = true;
	return 0;
}

static libra_entry_t *_entry_find(ledger_node_t *n, uint32_t id)
{
	for (int i = 0; i < n->nentries; i++)
		if (n->entries[i].job_id == id)
			return &n->entries[i];
	return NULL;
}

static void _entry_remove(const libra_ledger_t *l, ledger_node_t *n,
			  uint32_t id)
{
	libra_entry_t *e = _entry_find(n, id);
	int i = e ? (int) (e - n->entries) : -1, last;

	if (!e)
		return;
	last = --n->nentries;
	*e = n->entries[last];
	_win_sync(l, n, i);	/* the entry moved into the hole */
	_win_pad(n, last);
	n->stamp++;
	n->shape++;
	_node_resum(n);
}

/*
 * Commit at now; the share counts from "start" (-INFINITY: at once) and the
 * job progresses from "since" (now, or its begin).
 */
static int _commit(libra_ledger_t *l, uint32_t job_id, const libra_sla_t *sla,
		   const libra_place_t *place, int nplace, double now,
		   double since, double start)
{
	libra_entry_t e;
	ledger_job_t *j;
	int added = 0;

	if (nplace < 1 || _job_find(l, job_id))
		return -1;
	for (int i = 0; i < nplace; i++) {
		const ledger_node_t *n = _node(l, place[i].node);

		if (!n || place[i].cpus < 1 || place[i].cpus > n->cpus ||
		    place[i].gpus < 0)
			return -1;
		for (int k = 0; k < i; k++)
			if (place[k].node == place[i].node)
				return -1;
	}
	if ((l->njobs + 1) * 2 > l->jobs_cap && _jobs_grow(l))
		return -1;

	j = _job_slot(l, job_id);
	memset(j, 0, sizeof(*j));
	j->place = malloc((size_t) nplace * sizeof(*place));
	if (!j->place)
		return -1;
	memcpy(j->place, place, (size_t) nplace * sizeof(*place));
	j->nplace = nplace;
	j->id = job_id;
	j->used = true;
	j->best_effort = (sla == NULL);
	j->committed = now;
	if (sla)
		j->sla = *sla;
	l->njobs++;

	memset(&e, 0, sizeof(e));
	e.job_id = job_id;
	e.since = since;
	e.start = start;
	e.best_effort = j->best_effort;
	e.budget = -1.0;
	if (sla) {
		e.runtime = sla->runtime;
		e.submit = sla->submit;
		/* the share aims at the target an admission agreed (a due
		 * date, admit.h), else at the deadline */
		e.deadline = libra_sla_target(sla);
		if (libra_sla_has_budget(sla))
			e.budget = sla->budget;
		e.penalty_rate = sla->penalty_rate;
		e.type = sla->type;
		e.work = sla->runtime;
		e.share = libra_share_remaining(e.work, e.deadline - since,
						l->share_min);
	}
	for (int i = 0; i < nplace; i++) {
		e.cpus = place[i].cpus;
		e.mem_mb = place[i].mem_mb;
		e.gpus = place[i].gpus;
		if (_entry_add(l, &l->nodes[place[i].node], &e))
			break;
		added++;
	}
	if (added < nplace) {
		libra_ledger_release(l, job_id);
		return -1;
	}
	return 0;
}

extern int libra_ledger_commit(libra_ledger_t *l, uint32_t job_id,
			       const libra_sla_t *sla,
			       const libra_place_t *place, int nplace,
			       double now)
{
	return _commit(l, job_id, sla, place, nplace, now, now, -INFINITY);
}

extern int libra_ledger_commit_booked(libra_ledger_t *l, uint32_t job_id,
				      const libra_sla_t *sla,
				      const libra_place_t *place, int nplace,
				      double now, double begin)
{
	if (!sla || !(begin > now))
		return libra_ledger_commit(l, job_id, sla, place, nplace, now);
	return _commit(l, job_id, sla, place, nplace, now, begin, begin);
}

extern int libra_ledger_node_booked(const libra_ledger_t *l, int node,
				    double t)
{
	const ledger_node_t *n = _node(l, node);
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
	const ledger_node_t *n = _node(l, node);
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

extern int libra_ledger_release(libra_ledger_t *l, uint32_t job_id)
{
	ledger_job_t *j = _job_find(l, job_id);

	if (!j)
		return -1;
	for (int i = 0; i < j->nplace; i++)
		_entry_remove(l, &l->nodes[j->place[i].node], job_id);
	_job_delete(l, j);
	return 0;
}

extern int libra_ledger_release_node(libra_ledger_t *l, uint32_t job_id,
				     int node)
{
	ledger_job_t *j = _job_find(l, job_id);
	int i;

	if (!j)
		return -1;
	for (i = 0; i < j->nplace; i++)
		if (j->place[i].node == node)
			break;
	if (i == j->nplace)
		return -1;
	_entry_remove(l, &l->nodes[node], job_id);
	j->place[i] = j->place[--j->nplace];
	if (!j->nplace)
		_job_delete(l, j);
	return 0;
}

static void _progress_entry(libra_ledger_t *l, ledger_node_t *n,
			    uint32_t job_id, double cpu_done, double now)
{
	libra_entry_t *e = _entry_find(n, job_id);
	double old;

	if (!e || e->best_effort || now < e->start)
		return;		/* a booked job's share holds until its begin */
	old = e->share;
	e->work = e->runtime - cpu_done;
	if (e->work < 0.0)
		e->work = 0.0;
	e->since = now;
	e->share = libra_share_remaining(e->work, e->deadline - now,
					 l->share_min);
	_win_sync(l, n, (int) (e - n->entries));
	n->share_sum += e->cpus * (e->share - old);
	if (n->share_sum < 0.0)
		n->share_sum = 0.0;
}

extern int libra_ledger_progress(libra_ledger_t *l, uint32_t job_id, int node,
				 double cpu_done, double now)
{
	ledger_job_t *j = _job_find(l, job_id);
	bool found = false;

	if (!j)
		return -1;
	if (node >= 0) {
		/* one node: its entry directly, not a scan of the places */
		if (node >= l->nnodes || !_entry_find(&l->nodes[node], job_id))
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
			_win_sync(l, node, i);
			changed = true;
		}
		if (changed)
			_node_resum(node);
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
			e->work = e->runtime - cpu_done[i];
			if (e->work < 0.0)
				e->work = 0.0;
			e->since = now;
			e->share = libra_share_clamp(e->work, e->deadline - now,
						     l->share_min);
			_win_share(l, nd, i);
		}
		share += e->cpus * e->share;
	}
	/*
	 * The node's share summed in entry order, as _node_resum() sums it;
	 * its other totals are integers, or thesis_work, which only an added
	 * entry leaves a running sum of (then all of it, as before).
	 */
	if (nd->added)
		_node_resum(nd);
	else
		nd->share_sum = share;
	return 0;
}

extern bool libra_ledger_has_job(const libra_ledger_t *l, uint32_t job_id)
{
	return _job_find(l, job_id) != NULL;
}

extern const libra_sla_t *libra_ledger_job_sla(const libra_ledger_t *l,
					       uint32_t job_id)
{
	ledger_job_t *j = _job_find(l, job_id);

	return j ? &j->sla : NULL;
}

extern double libra_ledger_job_committed(const libra_ledger_t *l,
					 uint32_t job_id)
{
	ledger_job_t *j = _job_find(l, job_id);

	return j ? j->committed : NAN;
}

extern int libra_ledger_rekey(libra_ledger_t *l, uint32_t old_id,
			      uint32_t new_id)
{
	ledger_job_t *j = _job_find(l, old_id), copy;

	if (!j || _job_find(l, new_id))
		return -1;
	copy = *j;
	for (int i = 0; i < copy.nplace; i++) {
		libra_entry_t *e = _entry_find(&l->nodes[copy.place[i].node],
					       old_id);
		if (e) {
			e->job_id = new_id;
			l->nodes[copy.place[i].node].stamp++;
			l->nodes[copy.place[i].node].shape++;
		}
	}
	/* unlink without freeing the placement, which moves with it */
	j->place = NULL;
	_job_delete(l, j);
	copy.id = new_id;
	*_job_slot(l, new_id) = copy;
	l->njobs++;
	return 0;
}

extern int libra_ledger_jobs(const libra_ledger_t *l, uint32_t *ids, int max)
{
	int n = 0;

	for (int i = 0; i < l->jobs_cap; i++) {
		if (!l->jobs[i].used)
			continue;
		if (n < max)
			ids[n] = l->jobs[i].id;
		n++;
	}
	return n;
}

extern int libra_ledger_job_count(const libra_ledger_t *l)
{
	return l->njobs;
}

extern int libra_ledger_job_places(const libra_ledger_t *l, uint32_t job_id,
				   const libra_place_t **place)
{
	ledger_job_t *j = _job_find(l, job_id);

	if (!j) {
		*place = NULL;
		return 0;
	}
	*place = j->place;
	return j->nplace;
}
