/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_slurm_demand.c - what a job asks besides CPUs, memory and GPUs,
 *  and the nodes that cannot hold it; a node's power state and whether
 *  it is usable, for the slurmctld plugins (see libra_slurm.h).
\*****************************************************************************/

#include <math.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/macros.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm_int.h"

extern bool libra_slurm_mem_tracked(void)
{
	return (slurm_conf.select_type_param & LIBRA_SELECT_MEMORY) != 0;
}

/*
 * The translation both forms of a request share: "a" holds the TRES
 * strings, pn_min_memory is Slurm's encoding (MB, MEM_PER_CPU set for a
 * figure per CPU; NO_VAL64 unset), and the defaults come from part_ptr and
 * slurm_conf.
 */
static libra_demand_err_t _demand(libra_job_ask_t *a, uint64_t pn_min_memory,
				  uint32_t pn_min_tmp_disk,
				  part_record_t *part_ptr, libra_demand_t *d,
				  char *err, size_t errlen)
{
	uint64_t part_def = part_ptr ? part_ptr->def_mem_per_cpu : 0;

	/* --tmp, per node (decision 17) */
	a->tmp_mb = pn_min_tmp_disk != NO_VAL ? pn_min_tmp_disk : 0;
	a->mem_tracked = libra_slurm_mem_tracked();
	if (pn_min_memory != NO_VAL64) {
		a->mem.set = true;
		a->mem.per_cpu = pn_min_memory & MEM_PER_CPU;
		a->mem.mb = pn_min_memory & ~MEM_PER_CPU;
	}
	/* a partition's 0 is "not set"; the cluster's 0 is "no default" */
	if (part_def && part_def != NO_VAL64) {
		a->part_default.set = true;
		a->part_default.per_cpu = part_def & MEM_PER_CPU;
		a->part_default.mb = part_def & ~MEM_PER_CPU;
	}
	if (slurm_conf.def_mem_per_cpu & ~MEM_PER_CPU) {
		a->cluster_default.set = true;
		a->cluster_default.per_cpu = slurm_conf.def_mem_per_cpu &
					     MEM_PER_CPU;
		a->cluster_default.mb = slurm_conf.def_mem_per_cpu &
					~MEM_PER_CPU;
	}
	return libra_demand_from_job(a, d, err, errlen);
}

/* What a job asks per TRES, from job_desc_msg_t and job_record_t alike
 * (the same fields in both). */
#define JOB_ASK(j) {						\
	.mem_per_tres = (j)->mem_per_tres,			\
	.tres_per_node = (j)->tres_per_node,			\
	.tres_per_job = (j)->tres_per_job,			\
	.tres_per_socket = (j)->tres_per_socket,		\
	.tres_per_task = (j)->tres_per_task,			\
}

extern int libra_slurm_demand(job_desc_msg_t *job_desc,
			      part_record_t *part_ptr, libra_demand_t *d,
			      char **err_msg)
{
	libra_job_ask_t a = JOB_ASK(job_desc);
	char err[256];
	libra_demand_err_t rc;

	rc = _demand(&a, job_desc->pn_min_memory, job_desc->pn_min_tmp_disk,
		     part_ptr, d, err, sizeof(err));
	if (rc == LIBRA_DEMAND_OK)
		return SLURM_SUCCESS;
	xstrfmtcat(*err_msg, "libra: rejected: %s", err);
	return rc == LIBRA_DEMAND_EMEM ? ESLURM_INVALID_TASK_MEMORY :
					 ESLURM_INVALID_GRES;
}

extern bool libra_slurm_job_demand(job_record_t *job_ptr, libra_demand_t *d)
{
	libra_job_ask_t a = JOB_ASK(job_ptr);
	char err[256];

	if (!job_ptr->details)
		return false;
	if (_demand(&a, job_ptr->details->pn_min_memory,
		    job_ptr->details->pn_min_tmp_disk, job_ptr->part_ptr, d, err,
		    sizeof(err)) == LIBRA_DEMAND_OK)
		return true;
	debug("%s: %pJ: %s", plugin_type, job_ptr, err);
	return false;
}

extern bitstr_t *libra_slurm_held_excluded(job_record_t *job_ptr,
					   const libra_demand_t *d, int *n)
{
	libra_ledger_t *l = libra_hub_ledger();
	uint32_t cpus = job_ptr->details ? job_ptr->details->min_cpus : 1;
	int nodes = MIN(libra_ledger_node_count(l), node_record_count);
	bitstr_t *exc = NULL;

	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	*n = 0;
	if (!d->mem_per_cpu && !d->mem_per_node && !d->mem_whole_node &&
	    !d->gpus_per_node && !d->gpus)
		return NULL;
	for (int i = 0; i < nodes; i++) {
		int on_node = (int) MIN(cpus, (uint32_t)
					libra_ledger_node_cpus(l, i));

		if (libra_admit_held_fits(l, d, i, on_node))
			continue;
		if (!exc)
			exc = bit_alloc(node_record_count);
		bit_set(exc, i);
		(*n)++;
	}
	return exc;
}

extern libra_node_power_t libra_slurm_node_power(node_record_t *node_ptr)
{
	if (IS_NODE_POWERING_UP(node_ptr))
		return LIBRA_NODE_BOOTING;
	if (IS_NODE_POWERING_DOWN(node_ptr))
		return LIBRA_NODE_STOPPING;
	if (IS_NODE_POWERED_DOWN(node_ptr) || IS_NODE_POWER_DOWN(node_ptr))
		return LIBRA_NODE_OFF;
	return LIBRA_NODE_ON;
}

extern double *libra_slurm_power_up(const bool *eligible, double now,
				    double boot, double shutdown)
{
	double *up = xcalloc(node_record_count + 1, sizeof(*up));

	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	for (int i = 0; i < node_record_count; i++) {
		node_record_t *node_ptr = node_record_table_ptr[i];

		if (!eligible[i] || !node_ptr) {
			up[i] = INFINITY;
			continue;
		}
		switch (libra_slurm_node_power(node_ptr)) {
		case LIBRA_NODE_ON:
			up[i] = now;
			break;
		case LIBRA_NODE_STOPPING:
			up[i] = now + shutdown + boot;
			break;
		default:
			up[i] = now + boot;
			break;
		}
	}
	return up;
}

extern bool libra_slurm_node_usable(node_record_t *node_ptr)
{
	return node_ptr && !IS_NODE_DOWN(node_ptr) &&
	       !IS_NODE_DRAIN(node_ptr) && !IS_NODE_FAIL(node_ptr) &&
	       !IS_NODE_FUTURE(node_ptr) && !IS_NODE_NO_RESPOND(node_ptr);
}
