/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  job_submit_qos_array.c - a job array with an SLA is a bag of tasks
 *  (design.md decision 36).
 *
 *  Its --array expression, read as sbatch reads it, makes the bag: its
 *  tasks run in lanes side by side on one node, wave after wave, under one
 *  SLA, price and budget for the whole array.  Here: the bag's SLA, its
 *  request (a task's times the lanes), the throttle offered when its waves
 *  do not fit the deadline, and its shape in the record.  job_modify()
 *  keeps its throttle (job_submit_qos_modify.c).
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "job_submit_qos.h"

/*
 * A job array with an SLA is a bag of tasks (design.md decision 36): its
 * expression read as sbatch reads it, below MaxArraySize.  0, or an errno
 * with the reason in err_msg.
 */
static int _array_bag(const job_desc_msg_t *job_desc, libra_bag_t *bag,
		      char **err_msg)
{
	char err[160];

	if (libra_bag_parse(job_desc->array_inx, (int) slurm_conf.max_array_sz,
			    bag, err, sizeof(err))) {
		xstrfmtcat(*err_msg, "libra: rejected: --array=%s: %s",
			   job_desc->array_inx, err);
		return ESLURM_INVALID_ARRAY;
	}
	return 0;
}

/*
 * The SLA a job array is admitted with: its expression read once into
 * *bag, which admission uses from then on, and its tasks' SLA made the
 * bag's (libra_bag_sla()).  A bag takes no quote yet.  0, or an errno with
 * the reason in err_msg.
 */
extern int libra_qos_array_sla(const job_desc_msg_t *job_desc, libra_bag_t *bag,
			       libra_sla_t *sla, char **err_msg)
{
	libra_sla_t task = *sla;
	int rc;

	if ((rc = _array_bag(job_desc, bag, err_msg)))
		return rc;
	if (sla->set & LIBRA_SLA_QUOTE) {
		xstrfmtcat(*err_msg, "libra: rejected: a job array cannot ask for or take a quote yet; submit it with its SLA");
		return ESLURM_NOT_SUPPORTED;
	}
	libra_bag_sla(bag, &task, sla);
	return 0;
}

/*
 * A bag's request (decision 36): its lanes side by side on one node, so
 * that every task, pinned there (libra_qos_pin()), can run on any lane:
 * the task's CPUs, memory per node and GPUs times the lanes.  A task must
 * fit one node, and whole-node memory leaves no room for a second lane;
 * licenses, which admission counts per job, are not taken yet.  bag:
 * libra_qos_array_sla()'s (tasks 0: not an array).  0, or an errno with
 * the reason in err_msg.
 */
extern int libra_qos_array_request(const job_desc_msg_t *job_desc,
				   const libra_bag_t *bag, libra_request_t *req,
				   char **err_msg)
{
	if (bag->tasks <= 0)
		return 0;
	if (job_desc->licenses && job_desc->licenses[0]) {
		xstrfmtcat(*err_msg, "libra: rejected: a job array under an SLA cannot ask licenses yet (its %d lanes would each hold them); submit the tasks one by one",
			   bag->lanes);
		return ESLURM_NOT_SUPPORTED;
	}
	if (req->min_nodes > 1 ||
	    (bag->lanes > 1 && req->demand.mem_whole_node)) {
		xstrfmtcat(*err_msg, "libra: rejected: a job array under an SLA runs its %d lane%s side by side on one node, so each task must fit a node with room for the others (asked %s); ask one node per task, or submit the tasks one by one",
			   bag->lanes, bag->lanes == 1 ? "" : "s",
			   req->min_nodes > 1 ? "more than one node" :
			   "the whole node's memory");
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	req->max_nodes = 1;
	req->cpus *= bag->lanes;
	req->demand.mem_per_node *= (uint64_t) bag->lanes;
	req->demand.gpus_per_node *= bag->lanes;
	req->demand.gpus *= bag->lanes;
	return 0;
}

/*
 * A job array refused (decision 36): what its price, budget and runtime
 * were of, and when its waves cannot fit its deadline the throttle with
 * which they would, on CPUs free enough (libra_capacity of each), as a
 * counter-offer.
 */
extern void libra_qos_array_offer(const libra_bag_t *bag,
				  const libra_sla_t *sla,
				  const libra_params_t *p, double from,
				  char **err_msg)
{
	double re, fit;
	int k;

	if (bag->tasks <= 0)
		return;
	re = sla->runtime / bag->waves;
	fit = floor((sla->deadline - from) * p->capacity / re);
	xstrfmtcat(*err_msg, " (a job array of %d tasks: %d wave%s of %.0f s, %d at a time; its price and budget are the whole array's",
		   bag->tasks, bag->waves, bag->waves == 1 ? "" : "s", re,
		   bag->lanes);
	if (fit >= 1.0 && (k = (int) ceil(bag->tasks / fit)) > bag->lanes)
		xstrfmtcat(*err_msg, "; offer: %d at a time (--array=...%%%d) fits the deadline",
			   k, k);
	xstrfmtcat(*err_msg, ")");
}

/*
 * A bag's shape into its record (decision 36), and the words that open
 * its admission, "array of 20 tasks, 4 at a time in 5 waves: ".
 */
extern void libra_qos_array_record(const libra_bag_t *bag,
				   const libra_sla_t *sla, libra_record_t *rec,
				   char *what, size_t len)
{
	if (bag->tasks <= 0)
		return;
	rec->bag.tasks = bag->tasks;
	rec->bag.lanes = bag->lanes;
	rec->bag.waves = bag->waves;
	rec->bag.runtime = sla->runtime / bag->waves;
	snprintf(what, len, "array of %d task%s, %d at a time in %d wave%s: ",
		 bag->tasks, bag->tasks == 1 ? "" : "s", bag->lanes,
		 bag->waves, bag->waves == 1 ? "" : "s");
}
