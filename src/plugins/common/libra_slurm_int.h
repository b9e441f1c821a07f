/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_slurm_int.h - internal to the Slurm glue the slurmctld plugins
 *  share (libra_slurm_*.c), not part of libra_slurm.h: the log prefix of
 *  the plugin the files are compiled into, and the steps the files share,
 *  each described where it is defined, in the file named above its
 *  declaration.  Hidden from the plugins' exported symbols, which stay
 *  the libra_slurm_* functions (and each plugin's own).
 *
 *  The files, by concern:
 *    libra_slurm_record.c    a job's record in AdminComment, its cache
 *    libra_slurm_params.c    the libra_* SchedulerParameters
 *    libra_slurm_history.c   the history of finished jobs, the predictor
 *    libra_slurm_demand.c    a job's memory and GPUs; a node's power
 *    libra_slurm_sync.c      the ledger in step with the node and job tables
 *    libra_slurm_eligible.c  a job's eligible nodes
 *    libra_slurm_journal.c   the journal of ended jobs, the state files
 *    libra_slurm_limits.c    job slots, preemption, licenses, limits
\*****************************************************************************/

#ifndef LIBRA_SLURM_INT_H
#define LIBRA_SLURM_INT_H

#include <stdbool.h>

#include "libra_slurm.h"

/* The name of the plugin these files are compiled into: its log prefix.
 * Outside the hidden block: each plugin exports it to slurmctld. */
extern const char plugin_type[];

#pragma GCC visibility push(hidden)

/* libra_slurm_record.c */
extern void glue_cache_prune(void);

/* libra_slurm_history.c */
extern void glue_predictor_current(const char *who);

/* libra_slurm_sync.c */
extern bool glue_active(job_record_t *job_ptr);

#pragma GCC visibility pop

#endif /* LIBRA_SLURM_INT_H */
