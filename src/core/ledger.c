/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ledger.c - the per-node book of committed shares (see ledger.h).
 *
 *  Layout: an array of nodes, each with an array of entries (one per job
 *  part on that node) and its running totals; an open-addressing hash table
 *  from job id to the job (its SLA and placement); a second one from node
 *  name to index.  Entries are removed by swapping with the last one, so a
 *  node's entries are in no particular order.  The types are in
 *  ledger_int.h; what the entries commit over time, and their progress,
 *  are in ledger_window.c; a node's other properties in ledger_node.c.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "ledger_int.h"
#include "share.h"
#include "vec.h"

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
	l->max_speed = 1.0;
	l->min_price_factor = 1.0;
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
		l->nodes[i].tmp_used = 0;
		l->nodes[i].nbooked = 0;
		l->nodes[i].added = false;
	}
}

extern void libra_ledger_set_share_min(libra_ledger_t *l, double share_min)
{
	l->share_min = share_min;
	/* the mirror's tails are of share_min */
	for (int k = 0; k < l->nnodes; k++)
		for (int i = 0; i < l->nodes[k].nentries; i++)
			ledger_win_sync(l, &l->nodes[k], i);
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
	n->speed = 1.0;
	n->price_factor = 1.0;
	n->load_avg = NAN;
	l->max_speed = l->nnodes ? fmax(l->max_speed, 1.0) : 1.0;
	l->min_price_factor = l->nnodes ? fmin(l->min_price_factor, 1.0) :
			      1.0;
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

extern const char *libra_ledger_node_name(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->name : NULL;
}

extern int libra_ledger_node_cpus(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->cpus : 0;
}

extern void libra_ledger_set_node_up(libra_ledger_t *l, int node, bool up)
{
	if (ledger_node(l, node))
		l->nodes[node].up = up;
}

extern bool libra_ledger_node_up(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n && n->up;
}

extern double libra_ledger_node_share(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->share_sum : 0.0;
}

extern uint64_t libra_ledger_node_stamp(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->stamp : 0;
}

extern uint64_t libra_ledger_node_shape(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

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

extern int libra_ledger_node_job_cpus(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->job_cpus : 0;
}

extern double libra_ledger_node_thesis_work(const libra_ledger_t *l, int node)
{
	const ledger_node_t *n = ledger_node(l, node);

	return n ? n->thesis_work : 0.0;
}

extern int libra_ledger_node_entries(const libra_ledger_t *l, int node,
				     const libra_entry_t **entries)
{
	const ledger_node_t *n = ledger_node(l, node);

	if (!n) {
		*entries = NULL;
		return 0;
	}
	*entries = n->entries;
	return n->nentries;
}

/* Recompute a node's totals from its entries (no drift). */
extern void ledger_node_resum(ledger_node_t *n)
{
	double share = 0.0, work = 0.0;

	for (int i = 0; i < n->nentries; i++) {
		share += n->entries[i].cpus * n->entries[i].share;
		if (!n->entries[i].best_effort)
			work += n->entries[i].cpus * (n->entries[i].runtime /
						      n->entries[i].speed);
	}
	n->share_sum = share;
	n->thesis_work = work;
	n->added = false;
	n->job_cpus = 0;
	n->mem_used = 0;
	n->gpus_used = 0;
	n->tmp_used = 0;
	n->nbooked = 0;
	for (int i = 0; i < n->nentries; i++) {
		n->nbooked += isfinite(n->entries[i].start);
		n->job_cpus += n->entries[i].cpus;
		n->mem_used += n->entries[i].mem_mb;
		n->gpus_used += n->entries[i].gpus;
		n->tmp_used += n->entries[i].tmp_mb;
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

extern ledger_job_t *ledger_job_find(const libra_ledger_t *l, uint32_t id)
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
	ledger_win_sync(l, n, n->nentries);
	if (n->nentries % 2 == 0)
		_win_pad(n, n->nentries + 1);
	n->nentries++;
	n->share_sum += e->cpus * e->share;
	n->job_cpus += e->cpus;
	n->mem_used += e->mem_mb;
	n->gpus_used += e->gpus;
	n->tmp_used += e->tmp_mb;
	n->nbooked += isfinite(e->start);
	if (!e->best_effort)
		n->thesis_work += e->cpus * (e->runtime / e->speed);
	n->added = true;
	return 0;
}

static void _entry_remove(const libra_ledger_t *l, ledger_node_t *n,
			  uint32_t id)
{
	libra_entry_t *e = ledger_entry_find(n, id);
	int i = e ? (int) (e - n->entries) : -1, last;

	if (!e)
		return;
	last = --n->nentries;
	*e = n->entries[last];
	ledger_win_sync(l, n, i);	/* the entry moved into the hole */
	_win_pad(n, last);
	n->stamp++;
	n->shape++;
	ledger_node_resum(n);
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

	if (nplace < 1 || ledger_job_find(l, job_id))
		return -1;
	for (int i = 0; i < nplace; i++) {
		const ledger_node_t *n = ledger_node(l, place[i].node);

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
	e.penalty_cap = INFINITY;
	if (sla) {
		e.runtime = sla->runtime;
		e.submit = sla->submit;
		/* the share aims at the target an admission agreed (a due
		 * date, admit.h), else at the deadline */
		e.deadline = libra_sla_target(sla);
		if (libra_sla_has_budget(sla))
			e.budget = sla->budget;
		e.penalty_rate = sla->penalty_rate;
		e.penalty_cap = libra_sla_penalty_cap(sla);
		e.type = sla->type;
	}
	for (int i = 0; i < nplace; i++) {
		/* in the node's seconds (decision 43) */
		e.speed = l->nodes[place[i].node].speed;
		if (sla) {
			e.work = sla->runtime / e.speed;
			e.share = libra_share_remaining(e.work,
							e.deadline - since,
							l->share_min);
		}
		e.cpus = place[i].cpus;
		e.mem_mb = place[i].mem_mb;
		e.gpus = place[i].gpus;
		e.tmp_mb = place[i].tmp_mb;
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

extern int libra_ledger_release(libra_ledger_t *l, uint32_t job_id)
{
	ledger_job_t *j = ledger_job_find(l, job_id);

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
	ledger_job_t *j = ledger_job_find(l, job_id);
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

extern int libra_ledger_recommit(libra_ledger_t *l, uint32_t job_id,
				 const libra_sla_t *sla, double cpu_done,
				 double now)
{
	const libra_place_t *pl;
	libra_place_t *place;
	int np = libra_ledger_job_places(l, job_id, &pl), rc = -1;

	if (np < 1)
		return -1;
	/* the job's own places are freed with it: a copy, made first */
	place = malloc((size_t) np * sizeof(*place));
	if (!place)
		return -1;
	memcpy(place, pl, (size_t) np * sizeof(*place));
	if (!libra_ledger_release(l, job_id) &&
	    !libra_ledger_commit(l, job_id, sla, place, np, now)) {
		if (!libra_ledger_progress(l, job_id, -1, cpu_done, now))
			rc = 0;
		else	/* committed anew but not at its progress: out */
			libra_ledger_release(l, job_id);
	}
	free(place);
	return rc;
}

extern bool libra_ledger_has_job(const libra_ledger_t *l, uint32_t job_id)
{
	return ledger_job_find(l, job_id) != NULL;
}

extern const libra_sla_t *libra_ledger_job_sla(const libra_ledger_t *l,
					       uint32_t job_id)
{
	ledger_job_t *j = ledger_job_find(l, job_id);

	return j ? &j->sla : NULL;
}

extern double libra_ledger_job_committed(const libra_ledger_t *l,
					 uint32_t job_id)
{
	ledger_job_t *j = ledger_job_find(l, job_id);

	return j ? j->committed : NAN;
}

extern int libra_ledger_rekey(libra_ledger_t *l, uint32_t old_id,
			      uint32_t new_id)
{
	ledger_job_t *j = ledger_job_find(l, old_id), copy;

	if (!j || ledger_job_find(l, new_id))
		return -1;
	copy = *j;
	for (int i = 0; i < copy.nplace; i++) {
		libra_entry_t *e =
			ledger_entry_find(&l->nodes[copy.place[i].node],
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
	ledger_job_t *j = ledger_job_find(l, job_id);

	if (!j) {
		*place = NULL;
		return 0;
	}
	*place = j->place;
	return j->nplace;
}
