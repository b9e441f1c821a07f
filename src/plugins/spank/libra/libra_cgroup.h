/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_cgroup.h - node-side enforcement of deadline shares with cgroup
 *  CPU weights (slurmstepd side of the libra SPANK plugin).
\*****************************************************************************/

#ifndef _LIBRA_CGROUP_H
#define _LIBRA_CGROUP_H

#include <slurm/spank.h>

/* Parse the plugstack arguments; remote (slurmstepd) context only. */
extern int libra_cgroup_init(spank_t sp, int ac, char **av);

/* A task was forked: put it in the job's weighted cgroup. */
extern int libra_cgroup_task(spank_t sp);

/* The step ends: stop the updater, remove what we created. */
extern int libra_cgroup_exit(spank_t sp);

#endif /* _LIBRA_CGROUP_H */
