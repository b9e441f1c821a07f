/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_cgroup_int.h - internal to the SPANK plugin's cgroup code
 *  (libra_cgroup.c, libra_cgroup_weight.c, libra_cgroup_args.c), not part
 *  of libra_cgroup.h: the step's state (cg and the top directory's name,
 *  defined in libra_cgroup.c) and the steps the files share, each
 *  described where it is defined, in the file named above its
 *  declaration.  Hidden from the plugin's exported symbols.
\*****************************************************************************/

#ifndef _LIBRA_CGROUP_INT_H
#define _LIBRA_CGROUP_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/*
 * The plugin's state in slurmstepd: its configuration (the plugstack
 * arguments, libra_cgroup_args.c) and this step's: its cgroups, the job's
 * SLA and weight, the updater thread.  cg.mutex guards what the thread
 * and the hooks share once the thread runs.
 */
typedef struct {
	/* configuration */
	bool enforce;
	bool pin;
	unsigned top_weight;		/* weight of the top directory, 0: leave */
	double interval;
	double share_min;
	char root[1024];
	char v2root[1024];		/* cgroup_v2_root=, or "" */
	char v2mount[PATH_MAX];		/* the v2 hierarchy in use */

	/*
	 * v2 on a plain directory tree, not a cgroup2 filesystem (a
	 * cgroup_v2_root= made to test the v2 path where the cpu controller
	 * is bound to v1): the files the kernel would provide are created
	 * as they are written, and a job's directory keeps them after it
	 * ends, for the test to read.
	 */
	bool plain;

	/* this step */
	bool active;
	int version;			/* 1 or 2 */
	uint32_t job_id;
	char node[64];
	char cpu_job[PATH_MAX];		/* weight lives here */
	char acct_job[PATH_MAX];	/* CPU time is read here */
	char cpuset_node[PATH_MAX];	/* v1 pinning, or "" */
	int cpus;			/* the job's CPUs on this node */
	bool has_sla, best_effort;
	bool slurms;			/* no record: Slurm's job, left alone */
	double runtime, deadline, target;	/* runtime: this node's
					 * seconds (RE / speed) */
	double speed;			/* this node's, as admission planned
					 * (decision 43); 1 without one */
	double begin;			/* its share counts from then, 0: from
					 * its admission (the record's begin) */
	double from;			/* its share was committed then: its
					 * weight claims no more (0: no cap) */
	double predicted;		/* admitted on a prediction: its plan
					 * (decision 34), else 0 */
	double reported;		/* the plan last reported reached */
	bool reload;			/* read the record again (re-planned?) */
	unsigned last_weight;
	bool weight_failed;		/* its failure logged once */
	bool slurm_owned;		/* cpu_job is Slurm's cgroup/v2 job
					 * cgroup, not ours (_adopt_slurm) */

	pthread_t thread;
	bool thread_started, stop;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
} libra_cgroup_state_t;

/* The top directory's name ("cgroup_prefix=") and its size. */
#define LIBRA_DIR_LEN 64

/* libra_cgroup.c */
extern libra_cgroup_state_t cg;
extern char libra_dir[LIBRA_DIR_LEN];
extern int libra_cgroup_write_file(const char *dir, const char *file,
				   const char *val);
extern int libra_cgroup_read_file(const char *dir, const char *file,
				  char *buf, size_t len);

/* libra_cgroup_weight.c */
extern bool libra_cgroup_load_sla(void);
extern void libra_cgroup_update_weight(void);
extern void *libra_cgroup_updater(void *arg);

/* libra_cgroup_args.c */
extern int libra_cgroup_parse_args(int ac, char **av);

#pragma GCC visibility pop

#endif /* _LIBRA_CGROUP_INT_H */
