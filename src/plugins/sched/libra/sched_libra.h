/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra.h - sched/libra's scheduler thread (sched_libra_agent.c;
 *  its pass in sched_libra.c and sched_libra_pending.c), started and
 *  stopped by the plugin glue (sched_libra_wrapper.c).
\*****************************************************************************/

#ifndef _SCHED_LIBRA_H
#define _SCHED_LIBRA_H

#include <stdbool.h>
#include <time.h>

extern const char plugin_type[];

#include "params.h"

/* What the thread does with jobs without an SLA: set by init() before
 * libra_sched_start(), for the life of the plugin (decision 27). */
extern void libra_sched_set_mode(libra_nosla_t mode);

/* Start the scheduler thread. */
extern int libra_sched_start(void);

/* Stop it and wait for it to end. */
extern void libra_sched_stop(void);

/* sched_libra_power.c: the power plan (decision 24).  libra_power_pass()
 * runs at the end of each pass, under its locks; libra_power_flush()
 * after them writes the power states noted to StateSaveLocation/libra_power;
 * libra_power_fini() frees its tables. */
extern void libra_power_pass(time_t now);
extern void libra_power_flush(void);
extern void libra_power_fini(void);

/* sched_libra_backfill.c: Slurm's own sched/backfill for the jobs without
 * an SLA (libra_no_sla=slurm, decision 27), loaded from PluginDir and run
 * through its own init(), sched_p_reconfig() and fini(). */
extern int libra_backfill_start(void);
extern bool libra_backfill_running(void);
extern void libra_backfill_reconfig(void);
extern void libra_backfill_stop(void);

struct job_record;

/* sched_libra_booking.c: a Slurm reservation per booking (decision 42),
 * under the pass's locks.  libra_booking_hold() makes a pending booked
 * job's (begin later, admitted, in no reservation) and puts it in;
 * libra_booking_cross() puts an admitted job about to start on "nodes" in
 * a booking's reservation that holds one of them in its time;
 * libra_booking_tidy() deletes the ones whose booked job has ended. */
extern void libra_booking_hold(struct job_record *job_ptr, time_t now);
extern void libra_booking_cross(struct job_record *job_ptr,
				const char *nodes, time_t now);
extern void libra_booking_tidy(time_t now);

/* sched_libra_starts.c: the journal of starts (decision 26).
 * libra_starts_add() notes a job just started and libra_starts_prune()
 * forgets the ones that no longer run, both under the pass's job write
 * lock; libra_starts_write() appends the jobs noted to
 * StateSaveLocation/libra_starts, no lock held, before they are launched.
 * libra_starts_restore(), at the agent's start under its locks, runs
 * "restart" (select_nodes() on the nodes given, no launch) for each job
 * the file says was started and the recovered state has pending; returns
 * how many it took as running again. */
extern void libra_starts_add(struct job_record *job_ptr);
extern void libra_starts_prune(void);
extern void libra_starts_write(void);
extern int libra_starts_restore(int (*restart)(struct job_record *job_ptr,
					       const char *nodes));
extern void libra_starts_fini(void);

#endif /* _SCHED_LIBRA_H */
