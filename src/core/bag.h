/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  bag.h - a job array admitted as one: a bag of tasks under one SLA
 *  (doc/design.md decision 36; ISQoS's bag-of-tasks
 *  jobs).
 *
 *  The user asks for N tasks, each the SLA's runtime RE on the same CPUs,
 *  all done by one deadline, at most k of them running at once (Slurm's
 *  throttle, "--array=1-100%10").  The bag is admitted, priced and
 *  committed as one job of L = min(N, k) lanes: each lane runs W =
 *  ceil(N / L) tasks one after another, so the bag is a job of L times the
 *  task's CPUs and W x RE of work per CPU by the deadline.  The lane with
 *  the most tasks sets the pace; a bag whose last wave is partial is
 *  priced for whole waves (the capacity it holds until the deadline).
 *
 *  A task started on a lane with "left" tasks still to run there (itself
 *  included) aims at libra_bag_task_target(): an equal part of the time
 *  the lane has left, so that the lane ends by the deadline.
\*****************************************************************************/

#ifndef LIBRA_BAG_H
#define LIBRA_BAG_H

#include <stddef.h>

#include "record.h"
#include "settle.h"
#include "sla.h"

/* Slurm's default MaxArraySize: task ids are below it. */
#define LIBRA_BAG_MAX_SIZE 1001

typedef struct libra_bag {
	int tasks;		/* N: task ids in the array expression */
	int throttle;		/* k, 0: none */
	int lanes;		/* L = min(N, k), N without a throttle */
	int waves;		/* W = ceil(N / L) */
} libra_bag_t;

/*
 * Read a job array expression as sbatch --array takes it: comma-separated
 * ids "7" and ranges "1-100" or "0-15:4" (a step), then "%k" (at most k
 * at once); each id below max_size (MaxArraySize), ids given twice count
 * once.  Returns 0, or -1 with a message naming what is wrong in err.
 */
extern int libra_bag_parse(const char *inx, int max_size, libra_bag_t *b,
			   char *err, size_t errlen);

/*
 * The SLA the bag is admitted with as one job (of lanes times the task's
 * CPUs): the task's SLA with W x RE as its runtime.  The budget, the
 * penalty and the deadline are the bag's, as the user gave them.
 */
extern void libra_bag_sla(const libra_bag_t *b, const libra_sla_t *task,
			  libra_sla_t *bag);

/*
 * When a task started at now on a lane with "left" tasks to run there
 * (itself included, at least 1) is paced to finish: now + (deadline -
 * now) / left; the deadline when it has passed.
 */
extern double libra_bag_task_target(double now, double deadline, int left);

/* The tasks lane "lane" (0 .. L - 1) runs: W, or fewer on the last lanes
 * when N is not a multiple of L. */
extern int libra_bag_lane_tasks(const libra_bag_t *b, int lane);

/*
 * Settling a bag once (decision 36).  Every task is settled as it ends
 * against the bag's SLA; each but the last to end is charged nothing and
 * owes no penalty (libra_bag_task_settle()), and its outcome is counted
 * into the tally of the records still pending or running
 * (libra_bag_count(): n tasks of one outcome, the array's pending rest
 * ending at once counting as all the tasks it holds).  The last to end
 * settles the bag (libra_bag_settle()): its price, ending at the latest
 * end of all its tasks, FAILED if one of them did not complete, so met
 * only when every task met the deadline.  A bag its owner ended (or that
 * failed) pays at least for the tasks that completed, price x completed /
 * N, whatever the last to end did (decision 37).
 */
extern void libra_bag_task_settle(const libra_sla_t *sla, double start,
				  double end, libra_end_t how,
				  libra_settlement_t *out);
extern void libra_bag_count(libra_record_bag_t *b,
			    const libra_settlement_t *task, int n);
extern void libra_bag_settle(const libra_sla_t *sla,
			     const libra_record_bag_t *b, double price,
			     double start, double end, libra_end_t how,
			     libra_settlement_t *out);

#endif /* LIBRA_BAG_H */
