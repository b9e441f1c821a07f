/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  demand.h - a job's memory, GPUs and scratch disk, from the terms of
 *  Slurm's request.
 *
 *  Admission weighs what a job holds besides CPUs (libra_demand_t,
 *  ledger.h; doc/design.md decision 17).  Slurm's job description says it
 *  in its own terms: a memory figure that is per node or per CPU (--mem,
 *  --mem-per-cpu; --mem=0 for all of each node), the partition's and the
 *  cluster's defaults when the user gave none, and TRES strings for GPUs:
 *  "gres:gpu:2" (Slurm 22.05), "gres/gpu:2" (23.02 and later), with or
 *  without a type ("gres/gpu:a100:2"), several comma-separated.  This file
 *  turns those into a libra_demand_t, with no Slurm header: the plugins
 *  read the job description and the configuration, and pass plain values
 *  here, so that job_submit/qos and sched/libra make one translation and
 *  the unit tests check it without slurmctld.
 *
 *  What is translated (design.md decision 17, "the plugin part"):
 *   - memory, only when the cluster tracks it (SelectTypeParameters with
 *     memory): the user's --mem / --mem-per-cpu, else the partition's
 *     DefMemPerNode / DefMemPerCPU, else the cluster's, else all of each
 *     node (Slurm's own default when memory is tracked and no default is
 *     set: the job gets the node's whole memory);
 *   - --mem-per-gpu with GPUs per node: that many MB per GPU per node;
 *   - GPUs per node (--gres=gpu:N, --gpus-per-node) and of the job in all
 *     (--gpus), counted whole, their types ignored (the ledger knows a
 *     node's GPUs, not their models);
 *   - scratch disk (--tmp), MB per node, as given: whether it counts on a
 *     node is the ledger's (a node's TmpDisk, 0: not tracked).
 *  What is refused, with the option named: a malformed count; GPUs per
 *  socket or per task; --mem-per-gpu without GPUs per node; --gpus with
 *  --gpus-per-node; a GRES other than gpu (the ledger does not track it,
 *  so an admitted job could wait for it).  TRES that are not GRES (cpu=,
 *  license/..., which Slurm 24.11 puts beside GPUs in tres_per_task) are
 *  not GPUs and pass.
\*****************************************************************************/

#ifndef LIBRA_DEMAND_H
#define LIBRA_DEMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ledger.h"

/* One memory figure as Slurm states it. */
typedef struct libra_mem_spec {
	bool set;		/* given (the user's) or configured (defaults) */
	bool per_cpu;		/* MB per CPU, else per node */
	uint64_t mb;		/* 0 per node: all of each node (--mem=0) */
} libra_mem_spec_t;

/* A job's request in Slurm's terms; NULL strings: not given. */
typedef struct libra_job_ask {
	bool mem_tracked;	/* the cluster tracks memory (CR_*_Memory) */
	libra_mem_spec_t mem;	/* --mem, --mem-per-cpu */
	libra_mem_spec_t part_default;	/* DefMemPerNode, DefMemPerCPU */
	libra_mem_spec_t cluster_default;
	const char *mem_per_tres;	/* --mem-per-gpu ("gres:gpu:4096") */
	const char *tres_per_node;	/* --gres, --gpus-per-node */
	const char *tres_per_job;	/* --gpus */
	const char *tres_per_socket;	/* --gpus-per-socket */
	const char *tres_per_task;	/* --gpus-per-task (24.11: and cpu=) */
	uint64_t tmp_mb;	/* --tmp: scratch disk per node [MB]; 0: none
				 * (Slurm's NO_VAL is the caller's to map) */
} libra_job_ask_t;

/* What a refused translation was about (the plugins' errno follows it). */
typedef enum {
	LIBRA_DEMAND_OK = 0,
	LIBRA_DEMAND_EGPUS,	/* the GPUs or another GRES */
	LIBRA_DEMAND_EMEM,	/* the memory */
} libra_demand_err_t;

/*
 * Translate; returns LIBRA_DEMAND_OK, or what was wrong with a message for
 * the user that names the option ("--gpus-per-task: ..."), d then zeroed.
 * A job asking nothing, or memory on a cluster that does not track it,
 * gets a zero demand.
 */
extern libra_demand_err_t libra_demand_from_job(const libra_job_ask_t *a, libra_demand_t *d,
				 char *err, size_t errlen);

/*
 * The GPUs (GRES gpu) a TRES string asks, summed over its elements:
 * "gres:gpu:2", "gres/gpu:a100:2", "gres/gpu=2", "gres:gpu" (one), a zero
 * count ignored, non-GRES elements ignored.  Returns 0 and *gpus, or -1
 * with a message naming "option" (a bad element, or a GRES other than
 * gpu).  NULL or "" asks none.
 */
extern int libra_tres_gpus(const char *tres, const char *option, int *gpus,
			   char *err, size_t errlen);

/*
 * One count in a TRES string, for a GRES of the given name ("gpu"): like
 * libra_tres_gpus(), for --mem-per-gpu's MB per GPU.  Returns 0 and *value
 * (0 when the name is absent), or -1 with a message.
 */
extern int libra_tres_count(const char *tres, const char *name,
			    const char *option, uint64_t *value,
			    char *err, size_t errlen);

/*
 * Node features (-C/--constraint, design.md decision 29).  An expression
 * admission reads is feature names joined by '&' (or ',') for AND and '|'
 * for OR, evaluated left to right as Slurm's job_features does without
 * parentheses: "a|b&c" is (a or b) and c.
 *
 * libra_features_valid(): can admission read expr?  Brackets, counts
 * ('*'), parentheses, '!' and ':' are not read (false), nor an empty name.
 *
 * libra_features_match(): does a node whose features are node_features
 * (comma separated, as slurm.conf's Features=; NULL: none) satisfy a
 * valid expr?
 */
extern bool libra_features_valid(const char *expr);
extern bool libra_features_match(const char *expr, const char *node_features);

/* Largest GPU count read; more is a mistake (the record's own bound). */
#define LIBRA_TRES_GPUS_MAX 1000000

/*
 * Licenses (Slurm's Licenses=, a job's -L) are counted cluster-wide like
 * GPUs are per node (design.md decision 29): a job holds its licenses
 * from its start, or for an admitted job from its admission, to its end,
 * and an SLA job is admitted only when what it asks is free at the start
 * of its window.  What holds a license: a running job of any kind, until
 * its end (INFINITY: no time limit), and an admitted SLA job not yet
 * started, until its deadline.  Holds only end, so what is free at the
 * start of a window is free throughout it.
 */
typedef struct libra_license_hold {
	uint32_t count;		/* licenses held */
	double until;		/* when they are given back; INFINITY: no
				 * known end */
} libra_license_hold_t;

/* Licenses of a pool of total free at time t: those held beyond t taken
 * off, never below 0. */
extern uint32_t libra_license_free(uint32_t total,
				   const libra_license_hold_t *h, int n,
				   double t);

/*
 * The earliest time at or after t at which "asked" of the pool are free:
 * t when they are now, the end of the hold that frees the last one
 * needed, INFINITY when that is never known (more asked than the pool
 * has, or holds without an end).
 */
extern double libra_license_free_when(uint32_t total,
				      const libra_license_hold_t *h, int n,
				      uint32_t asked, double t);

/*
 * The licenses a job asks, as Slurm reads -L (22.05 _build_license_list()):
 * "name[:count]" elements separated by ',' or ';', a missing count one,
 * repeated names summed.  Fills at most max elements of a; returns how
 * many names, or -1 for a string Slurm refuses too (a space, a bad or
 * negative count, an empty or too long name), more than max names, or an
 * "or" of licenses ('|', 26.05: the job takes one of them, which
 * admission cannot know).  NULL or "" asks none (0).
 */
#define LIBRA_LICENSE_NAME_MAX 64
#define LIBRA_LICENSES_MAX 16	/* names in one request */
typedef struct libra_license_ask {
	char name[LIBRA_LICENSE_NAME_MAX];
	uint32_t count;
} libra_license_ask_t;

extern int libra_license_parse(const char *lic, libra_license_ask_t *a,
			       int max);

#endif /* LIBRA_DEMAND_H */
