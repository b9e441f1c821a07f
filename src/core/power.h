/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  power.h - which nodes to keep powered, and when admitted work should
 *  run, under a tariff (Sung 2006; doc/design.md decision 24).
 *
 *  Sung's controller decides, at decision points an interval apart, how
 *  many servers to keep for the next interval, so that jobs meet one
 *  shared deadline at least cost.  Here every job has its own deadline and
 *  a runtime estimate, admission already guarantees each admitted job its
 *  share (deadlines are hard constraints, never traded for electricity),
 *  and a node cannot be emptied (Slurm does not checkpoint).  What the
 *  controller can still choose is:
 *
 *    - when a node is removed: a node with no committed work that nothing
 *	booked needs before it could boot again;
 *    - when a node is deployed: ahead of the first booked begin on it by
 *	the boot time, or at once when admission places work on it;
 *    - when admitted work runs: a job with slack can be started later, in
 *	cheaper hours (a booking the scheduler makes for the job, decision
 *	21), so that fewer nodes are powered in the dear ones.
 *
 *  The heuristics, as far as they apply to per-job deadlines:
 *
 *    LIBRA_POWER_STATIC  every node always powered (Sung's baseline).
 *    LIBRA_POWER_H1	  threshold-responding (Algorithm 1): the nodes the
 *			  committed work needs, no more: an idle node is
 *			  removed at the first decision point that finds it
 *			  idle.  Slurm's own SuspendTime policy is this with a
 *			  delay.
 *    LIBRA_POWER_H2	  H1 with removal hysteresis (Algorithm 2): removed
 *			  only when idle at two consecutive decision points.
 *    LIBRA_POWER_H3	  cost-aware (Algorithm 3): work is started at its
 *			  cheapest feasible time (libra_power_starts()), and
 *			  a node is removed only when keeping it until it is
 *			  next needed costs more than removing it and
 *			  deploying it again, boot and shutdown billed
 *			  (Eq. 4.13's M*), and, as in H2, only after two idle
 *			  decision points.
 *    LIBRA_POWER_H5	  H3 without the removal cost M* (Algorithm 6):
 *			  removed at the first idle decision point, as H1.
 *
 *  Sung's H4 restricts H3's search to server counts that never fall when
 *  the queue grows; with known work and no search over counts it is H3,
 *  so it has no name of its own here.  Nodes are billed from the start of
 *  deployment to the end of removal (Sung 4.1), which the callers' energy
 *  accounting does.
\*****************************************************************************/

#ifndef LIBRA_POWER_H
#define LIBRA_POWER_H

#include <stdbool.h>
#include <stddef.h>

#include "ledger.h"
#include "number.h"
#include "tariff.h"

typedef enum {
	LIBRA_POWER_NONE = 0,	/* the plugins leave power to Slurm */
	LIBRA_POWER_STATIC,
	LIBRA_POWER_H1,
	LIBRA_POWER_H2,
	LIBRA_POWER_H3,
	LIBRA_POWER_H5,
	LIBRA_POWER_COUNT
} libra_power_t;

/* "none", "static", "h1", "h2", "h3", "h5" (number.h's libra_name_t). */
extern const libra_name_t libra_power_names[];
extern const char *libra_power_name(libra_power_t h);
extern bool libra_power_from_name(const char *name, libra_power_t *h);

/* True for the heuristics that move admitted work to cheaper hours. */
extern bool libra_power_defers(libra_power_t h);

typedef struct libra_power_cfg {
	libra_power_t heuristic;
	double interval;	/* between decision points [s] */
	double boot;		/* deployment time r1 [s] */
	double shutdown;	/* removal time r2 [s] */
	double lead;		/* the caller looks at powered-down nodes at
				 * least this often [s] (0: interval): one
				 * is powered up no earlier than that before
				 * a boot must start */
} libra_power_cfg_t;

typedef enum {
	LIBRA_NODE_ON = 0,	/* powered (usable) */
	LIBRA_NODE_OFF,		/* powered down */
	LIBRA_NODE_BOOTING,	/* being deployed */
	LIBRA_NODE_STOPPING,	/* being removed */
} libra_node_power_t;

/* "on", "off", "booting", "stopping": a node's state as sched/libra's
 * journal of power states writes it and libra-report reads it. */
extern const libra_name_t libra_node_power_names[];

/* One node at a decision point, as the caller sees it. */
typedef struct libra_power_node {
	libra_node_power_t state;
	bool busy;		/* committed work on it now */
	double next_use;	/* earliest begin of work booked on it
				 * (INFINITY: none) */
	int idle_points;	/* consecutive decision points, this one
				 * included, that found it idle (0 if busy) */
	bool exempt;		/* never removed: the site's SuspendExcNodes
				 * or SuspendExcParts */
} libra_power_node_t;

typedef enum {
	LIBRA_POWER_KEEP = 0,
	LIBRA_POWER_DOWN,	/* remove it now */
	LIBRA_POWER_UP,		/* deploy it now */
} libra_power_action_t;

/*
 * What the ledger says of a node at now: busy, some job on it has begun
 * (its start is at or before now); next_use, the earliest start of a job
 * booked on it later (INFINITY: none).
 */
extern void libra_power_node_use(const libra_ledger_t *l, int node,
				 double now, bool *busy, double *next_use);

/*
 * What to do with one node at the decision point "now".  Whatever the
 * heuristic, a busy node is never removed, a powered node that work
 * booked on it will need before the next decision point could boot it is
 * kept, and a powered-down one is deployed when a later look ("lead"
 * from now) would be too late to boot it in time.  Nodes that are
 * booting or stopping are kept as they are.  A caller that looks more
 * often than it decides (sched/libra: every pass) may call it between
 * decision points and act on LIBRA_POWER_UP alone.
 */
extern libra_power_action_t libra_power_decide(const libra_power_cfg_t *c,
					       const libra_tariff_t *t,
					       const libra_power_node_t *n,
					       double now);

/*
 * A warm pool (Sung's p_min; Slurm's SuspendExcNodes=LIST:COUNT): after
 * libra_power_decide() has given each of the n nodes its action act[i],
 * make at least "keep" of the nodes in "set" (NULL: all) powered and idle
 * when the decision point ends: an idle powered (or booting) node kept
 * counts, removals of idle nodes are cancelled in node order, then
 * powered-down nodes deployed in node order, until there are "keep" or
 * none is left to change.  Busy nodes do not count: the pool is what a
 * job arriving now finds without a boot.  Returns how many actions it
 * changed.
 */
extern int libra_power_keep_idle(const libra_power_node_t *nodes,
				 libra_power_action_t *act, int n,
				 const bool *set, int keep);

/*
 * The start times worth trying for a job of "work" seconds of run time
 * that may start in [earliest, latest] (latest = its deadline less the
 * run time at full share, or less), cheapest first: earliest, and every
 * tariff change in (earliest, latest], and latest, ordered by the cost of
 * powering one node over [start, start + work), ties by time.  The
 * caller tries admission at each in turn and takes the first admitted,
 * so that a crowded cheap hour falls back to a dearer one.  Writes at
 * most max starts into starts[]; returns how many.  Heuristics that do
 * not defer get earliest alone.
 */
extern int libra_power_starts(const libra_power_cfg_t *c,
			      const libra_tariff_t *t, double earliest,
			      double latest, double work, double *starts,
			      int max);

#endif /* LIBRA_POWER_H */
