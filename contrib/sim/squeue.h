/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  squeue.h - the wait queue of the space-shared engines: job indices kept
 *  sorted by a (primary, secondary, index) key.
 *
 *  Jobs leave the queue from anywhere (started by backfilling, rejected
 *  when their deadline can no longer be met), so removal is lazy: the
 *  engine changes the job's state, and entries whose job is no longer
 *  waiting are tombstones, skipped by readers and swept out when they are
 *  more than half of the array.  Insertion is a binary search and one
 *  memmove, which is cheap for the queue lengths the traces produce.
\*****************************************************************************/

#ifndef LIBRA_SIM_SQUEUE_H
#define LIBRA_SIM_SQUEUE_H

#include <stddef.h>

typedef struct sim_qkey {
	double a, b;		/* primary and secondary key, ascending */
	int idx;		/* job index: the final tie-break */
} sim_qkey_t;

typedef struct sim_squeue {
	sim_qkey_t *k;
	size_t len, cap;
	size_t head;		/* entries before head are all tombstones */
	size_t dead;		/* tombstones counted by sim_squeue_dead() */
} sim_squeue_t;

extern void sim_squeue_insert(sim_squeue_t *q, double a, double b, int idx);

/* Note that one entry became a tombstone (never moves entries, so it is
 * safe while scanning the array). */
extern void sim_squeue_dead(sim_squeue_t *q);

/* Job idx, waiting, leaves the queue (it starts or is refused): live[idx]
 * cleared and its entry counted a tombstone. */
extern void sim_squeue_remove(sim_squeue_t *q, unsigned char *live, int idx);

/* Sweep tombstones out when they are more than half the entries (moves
 * entries: call it between scans).  live[i] is non-zero for the jobs
 * still waiting. */
extern void sim_squeue_tidy(sim_squeue_t *q, const unsigned char *live);

/* Skip tombstones at the head; returns the head job or -1 if empty. */
extern int sim_squeue_head(sim_squeue_t *q, const unsigned char *live);

extern void sim_squeue_free(sim_squeue_t *q);

#endif /* LIBRA_SIM_SQUEUE_H */
