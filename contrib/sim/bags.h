/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  bags.h - the throttle of a bag's tasks on the space-shared engines
 *  (--bag-frac; doc/design.md decision 36).
 *
 *  Slurm runs at most k tasks of an array "%k" at once; the others wait,
 *  not eligible, and do not hold the queue up.  The space-shared engines
 *  (backfill.c, firstreward.c) model that by submitting a gated bag's
 *  first k tasks at the bag's begin and each next one when one of its
 *  tasks ends or is refused: it then takes its place in the queue by the
 *  bag's keys (the array's submission and deadline), as an array task
 *  keeps its array's priority.  Their one event loop is here too.
\*****************************************************************************/

#ifndef LIBRA_SIM_BAGS_H
#define LIBRA_SIM_BAGS_H

#include <stdbool.h>
#include <stddef.h>

#include "pq.h"
#include "sim.h"

typedef struct sim_gate {
	const sim_workload_t *w;
	int *next;		/* per bag's first task: the number of its
				 * next task to submit; NULL: no gated bag */
} sim_gate_t;

extern void sim_gate_init(sim_gate_t *g, const sim_workload_t *w);

/* Is job i a task that waits for a sibling to end before it is
 * submitted? */
extern bool sim_gate_held(const sim_gate_t *g, size_t i);

/* Job i ended or was refused: the task of its bag to submit now, or -1. */
extern int sim_gate_release(sim_gate_t *g, size_t i);

extern void sim_gate_free(sim_gate_t *g);

/*
 * The space-shared engines' event loop (backfill.c, firstreward.c), in
 * time order: at each time the jobs that end (complete), then the jobs
 * that become eligible, at their begin, but a gated task (arrive), then
 * one scheduling pass (pass); until no job is left to arrive or run
 * (done: the engine's heap of running jobs' ends).
 */
typedef struct sim_spaced {
	void *engine;
	void (*complete)(void *engine, int i, double now);
	void (*arrive)(void *engine, int i);
	void (*pass)(void *engine, double now);
	sim_pq_t *done;
	const sim_gate_t *gate;
} sim_spaced_t;

extern void sim_spaced_events(const sim_workload_t *w, const sim_spaced_t *sp);

#endif /* LIBRA_SIM_BAGS_H */
