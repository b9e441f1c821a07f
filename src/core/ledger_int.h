/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ledger_int.h - internal to the ledger (ledger.c, ledger_node.c,
 *  ledger_window.c), not part of the core's API: the ledger's layout (see
 *  ledger.c), the small helpers the files call for each node or entry
 *  (inline, as they were in ledger.c), and the steps they share, each
 *  described where it is defined, in ledger.c.  Hidden from libslurm_libra.so's exported
 *  symbols, which stay the core's libra_* functions.
\*****************************************************************************/

#ifndef LIBRA_LEDGER_INT_H
#define LIBRA_LEDGER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "ledger.h"
#include "vec.h"

#pragma GCC visibility push(hidden)

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
	double speed;		/* relative to the reference CPU (1: it) */
	double price_factor;	/* of PBase here (the thesis' PBase_j) */
	double load_avg;	/* smoothed share_sum / cpus (NaN: unset) */
	double load_t;		/* when load_avg was last brought forward */
	double share_sum;	/* sum of cpus * share */
	int job_cpus;		/* sum of cpus, best effort included */
	double thesis_work;	/* sum of cpus * RE */
	uint64_t mem_mb;	/* the node's memory; 0: not tracked */
	int gpus;		/* the node's GPUs */
	uint64_t mem_used;	/* sum of the entries' memory */
	int gpus_used;		/* sum of the entries' GPUs */
	uint64_t tmp_mb;	/* the node's scratch disk; 0: not tracked */
	uint64_t tmp_used;	/* sum of the entries' scratch disk */
	int nbooked;		/* entries with a begin time (start finite) */
	bool added;		/* an entry was added since the last
				 * ledger_node_resum(): thesis_work is a
				 * running sum, not the entries' sum in
				 * order */
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
	double max_speed;	/* the fastest node's (1 without nodes) */
	double min_price_factor;	/* the cheapest node's (1 without) */
};

static inline const ledger_node_t *ledger_node(const libra_ledger_t *l,
						int node)
{
	if (node < 0 || node >= l->nnodes)
		return NULL;
	return &l->nodes[node];
}

/* The mirror's field f of entry i. */
#define WIN(n, i, f) ((n)->win[(unsigned) (i) / 2].f[(unsigned) (i) % 2])

/* The mirror of entry i after its share changed. */
static inline void ledger_win_share(const libra_ledger_t *l,
				    ledger_node_t *n, int i)
{
	const libra_entry_t *e = &n->entries[i];
	double low = e->share < l->share_min ? e->share : l->share_min;

	n->stamp++;
	WIN(n, i, cs) = e->cpus * e->share;
	WIN(n, i, cs_late) = e->best_effort ? e->cpus * e->share :
					      e->cpus * low;
}

/* Bring the mirror of entry i up to date (after any change to it). */
static inline void ledger_win_sync(const libra_ledger_t *l,
				   ledger_node_t *n, int i)
{
	WIN(n, i, deadline) = n->entries[i].deadline;
	WIN(n, i, start) = n->entries[i].start;
	ledger_win_share(l, n, i);
}

static inline libra_entry_t *ledger_entry_find(ledger_node_t *n,
						 uint32_t id)
{
	for (int i = 0; i < n->nentries; i++)
		if (n->entries[i].job_id == id)
			return &n->entries[i];
	return NULL;
}

/* ledger.c */
extern void ledger_node_resum(ledger_node_t *n);
extern ledger_job_t *ledger_job_find(const libra_ledger_t *l, uint32_t id);

#pragma GCC visibility pop

#endif
