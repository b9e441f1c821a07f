/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  energy.h - libra-sim's power provisioning (--power; decision 24): each
 *  1-CPU node's power state, the energy bill under the tariff, and the
 *  tariff's clock read from the trace.  The engines decide what to power
 *  (timeshare.c asks the core's libra_power_decide()); this file keeps the
 *  states and bills them.
\*****************************************************************************/

#ifndef LIBRA_SIM_ENERGY_H
#define LIBRA_SIM_ENERGY_H

#include <stdbool.h>

#include "power.h"
#include "sim.h"
#include "tariff.h"

typedef struct sim_pnode {
	libra_node_power_t state;
	double until;		/* BOOTING, STOPPING: when that ends */
	double since;		/* powered since (the start of its boot) */
	double wake;		/* work booked on it while not up: it must
				 * begin to boot by then (INFINITY: none) */
	double idle_since;	/* --power slurm: nothing on it since then
				 * (INFINITY: work on it) */
	int idle_points;	/* decision points in a row that found it
				 * idle, the last included */
} sim_pnode_t;

typedef struct sim_power {
	libra_power_cfg_t pc;	/* the core's settings (heuristic, times) */
	libra_tariff_t tariff;	/* offset set from the trace or option */
	bool slurm;		/* --power slurm */
	double suspend;		/* its SuspendTime */
	int n;
	sim_pnode_t *node;
	double next_dp;		/* next decision point; INFINITY: none */
	int warm;		/* --power-warm: nodes kept powered and idle */
	libra_power_node_t *view;	/* a decision point's view of each
					 * node, and the action for it */
	libra_power_action_t *act;
	sim_energy_t *en;
} sim_power_t;

/*
 * The tariff's clock: the second of the tariff's day at simulated time 0.
 * --tariff-start when given; else the trace's local time of day at the
 * window's first job: UnixStartTime plus that job's submit time, in the
 * header's TimeZoneString when the C library knows the zone (daylight
 * saving time as of that moment), else its TimeZone (seconds east of
 * UTC), else UTC; 0 without UnixStartTime.  *src says which.  Returns 0,
 * or -1 with a message (the trace cannot be read).
 */
extern int sim_tariff_offset(const sim_config_t *cfg,
			     const sim_workload_t *w, long *offset,
			     const char **src, char *err, size_t errlen);

/* Every node on since 0; decision points from the first multiple of the
 * interval on the tariff's clock (none for static and slurm). */
extern void sim_power_init(sim_power_t *pw, const sim_config_t *cfg, int n,
			   long offset, sim_energy_t *en);
extern void sim_power_free(sim_power_t *pw);

/* Can the node be up by time "at", seen at now (if asked to boot at the
 * latest possible moment)? */
extern bool sim_power_ready(const sim_power_t *pw, int node, double now,
			    double at);

/* Work booked on the node from "begin": have it up by then (boot now if
 * that is already due). */
extern void sim_power_book(sim_power_t *pw, int node, double now,
			   double begin);

/* Deploy (OFF -> BOOTING) or remove (ON -> STOPPING) the node now;
 * anything else is left as it is. */
extern void sim_power_up(sim_power_t *pw, int node, double now);
extern void sim_power_down(sim_power_t *pw, int node, double now);

/* The next time something is due: a boot or shutdown ends, a node must
 * boot for its bookings, a decision point, a slurm suspension. */
extern double sim_power_next(const sim_power_t *pw);

/* Boots and shutdowns that end by now, and the boots now due. */
extern void sim_power_transitions(sim_power_t *pw, double now);

/* Bill every node still powered up to "end", the run's span. */
extern void sim_power_finish(sim_power_t *pw, double end);

/* What powering every node over [0, end] costs (static provisioning):
 * the engines without a power model. */
extern void sim_energy_static(const sim_config_t *cfg, int nodes, long offset,
			      double end, sim_energy_t *en);

#endif /* LIBRA_SIM_ENERGY_H */
