/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  job_submit_qos.c - admit or refuse jobs at submission by their SLA.
 *
 *  A thin adapter over the policy core (src/core): it reads the SLA the
 *  user wrote (--comment fields, the sbatch options of the libra SPANK
 *  plugin, Slurm's --deadline and --time), asks the configured policy for a
 *  quote over the shared ledger, and then either
 *   - admits the job: the SLA, policy, placement, price and admission time
 *     go into AdminComment as JSON (the job's record), the time limit is set
 *     so that a time-shared job can run to its deadline, the admission is
 *     committed in the ledger and sched/libra is woken to start it; or
 *   - refuses it with one line that says why and what would be admitted
 *     instead (a later deadline at the same budget, or the budget needed at
 *     the same deadline).
 *
 *  Locks: slurmctld holds the config, job, node and partition read locks
 *  while job_submit() runs; we take only the hub lock, after them.  Two
 *  submissions are admitted one at a time under the hub lock, each seeing
 *  the other's commitment, so they never share the same free capacity.
 *
 *  job_modify(): once admitted, a job's SLA, size, partition, time limit
 *  and whatever could keep it from starting in time (start time,
 *  dependencies, memory, features, GRES, licenses, reservation)
 *  can be changed by operators only.  A refusal is logged with its reason;
 *  Slurm 24.11 and later also return it to the user (22.05 gives this
 *  hook no message, see LIBRA_JOB_MODIFY in libra_compat.h).
\*****************************************************************************/

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "admit.h"
#include "bag.h"
#include "libra_slurm.h"
#include "price.h"
#include "qos_update.h"

const char plugin_name[] = "slurm-libra SLA admission (job_submit/qos)";
const char plugin_type[] = "job_submit/qos";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Refusals leave no job; they are logged here for libra-report. */
#define REFUSAL_LOG "libra_refusals.jsonl"

/* How far ahead a counter-offer may move the deadline. */
#define OFFER_HORIZON (30.0 * 86400.0)

/* sbatch options of the libra SPANK plugin and the SLA keys they set. */
#define SPANK_OPT_PREFIX "_SLURM_SPANK_OPTION_libra_"
static const struct {
	const char *env;	/* as in the environment (SPANK canonical) */
	const char *option;	/* as the user typed it */
	const char *key;	/* the SLA field */
	uint32_t bit;		/* and its LIBRA_SLA_* bit */
} spank_opts[] = {
	{ "runtime",	   "runtime",	    "runtime", LIBRA_SLA_RUNTIME },
	{ "budget",	   "budget",	    "budget", LIBRA_SLA_BUDGET },
	{ "penalty",	   "penalty",	    "penalty", LIBRA_SLA_PENALTY },
	{ "penalty_cap",   "penalty-cap",   "penalty_cap",
	  LIBRA_SLA_PENALTY_CAP },
	{ "deadline_type", "deadline-type", "type", LIBRA_SLA_TYPE },
	{ "duedate",	   "duedate",	    "duedate", LIBRA_SLA_DUEDATE },
	{ "tier",	   "tier",	    "tier", LIBRA_SLA_TIER },
	{ "optimize",	   "optimize",	    "opt", LIBRA_SLA_OPT },
};

/*
 * Licenses of admissions whose job is not in slurmctld's job table yet
 * (job_submit runs under the job read lock; the job is created after it,
 * under the write lock, so a second submission can come in between).
 * Kept while the admission's token is in the ledger: a token re-keyed to
 * its job, or expired, is dropped here.  Hub lock.
 */
static struct {
	libra_slurm_lic_hold_t *hold;
	int n;
} lic;

/* Admissions whose job has not appeared yet, by user (quote.h, "probes"):
 * a --test-only loop is bounded like binding quotes (decision 37). */
static libra_probes_t probes;
/* A token waiting this long [s] for its job is a quote's, not a job's. */
#define PROBE_OLDER LIBRA_TOKEN_LATE

extern int init(void)
{
	if (libra_hub_init())
		return SLURM_ERROR;
	libra_hub_lock();
	libra_slurm_params_current(plugin_type);
	libra_hub_unlock();
	libra_update_init();
	verbose("%s: loaded", plugin_type);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	while (lic.n > 0)
		xfree(lic.hold[--lic.n].licenses);
	xfree(lic.hold);
	libra_update_fini();
	libra_probes_free(&probes);
	libra_hub_fini();
	return SLURM_SUCCESS;
}

/*
 * The error codes of refusals (design.md decision 29, issue 39): sbatch
 * prints slurm_strerror() of the code as a second line under the plugin's
 * message, so each is one whose text is true of the refusal, the same on
 * 22.05, 24.11 and 26.05, and one sbatch does not retry (it retries
 * ESLURM_NODES_BUSY and ESLURM_PORTS_BUSY: a refusal is final).
 *   capacity: "Requested partition configuration not available now";
 *   policy:   "Job violates accounting/QOS policy (...)": the budget, the
 *	       site's rules (an SLA required, binding quotes allowed);
 *   invalid:  "Invalid argument": SLA text, options or a quote number that
 *	       do not hold (times: ESLURM_INVALID_TIME_VALUE, "Invalid time
 *	       specified").
 */
#define LIBRA_E_CAPACITY ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE
#define LIBRA_E_POLICY ESLURM_ACCOUNTING_POLICY
#define LIBRA_E_INVALID EINVAL

/* The Slurm error code for an SLA that does not parse. */
static int _sla_errno(libra_sla_err_t err, uint32_t field)
{
	if (err == LIBRA_SLA_EDEADLINE)
		return ESLURM_INVALID_TIME_LIMIT;
	if (field & LIBRA_SLA_TIMES)
		return ESLURM_INVALID_TIME_VALUE;
	return LIBRA_E_INVALID;
}

/* The SLA fields given as sbatch/salloc options (SPANK). */
static int _sla_from_options(job_desc_msg_t *job_desc, double now,
			     libra_sla_t *sla, char **err_msg)
{
	char err[256];

	memset(sla, 0, sizeof(*sla));
	sla->submit = now;
	for (uint32_t i = 0; i < job_desc->spank_job_env_size; i++) {
		const char *env = job_desc->spank_job_env[i];
		const char *opt = env ? strstr(env, SPANK_OPT_PREFIX) : NULL;
		const char *eq;
		char name[32];
		size_t k, len;
		libra_sla_err_t rc;

		if (!opt)
			continue;
		opt += strlen(SPANK_OPT_PREFIX);
		if (!(eq = strchr(opt, '=')) ||
		    (len = (size_t) (eq - opt)) >= sizeof(name))
			continue;
		memcpy(name, opt, len);
		name[len] = '\0';
		for (k = 0; k < ARRAY_SIZE(spank_opts); k++)
			if (!strcmp(name, spank_opts[k].env))
				break;
		if (k == ARRAY_SIZE(spank_opts)) {
			xstrfmtcat(*err_msg, "libra: rejected: unknown option --%s",
				   name);
			return LIBRA_E_INVALID;
		}
		rc = libra_sla_parse_field(spank_opts[k].key, eq + 1, now, sla,
					   err, sizeof(err));
		if (rc) {
			/* name the option instead of its key */
			const char *why;
			uint32_t field = libra_sla_err_field(err, &why);

			xstrfmtcat(*err_msg, "libra: rejected: --%s: %s",
				   spank_opts[k].option,
				   field == spank_opts[k].bit ? why : err);
			return _sla_errno(rc, field);
		}
	}
	return SLURM_SUCCESS;
}

/*
 * Build the job's SLA.  *has_sla is false for a job that carries no Libra
 * field and no --deadline.  Returns SLURM_SUCCESS or an error with err_msg.
 */
static int _build_sla(job_desc_msg_t *job_desc, double now, libra_sla_t *sla,
		      bool *has_sla, char **err_msg)
{
	libra_sla_t opts;
	double time_limit = 0.0, deadline = 0.0;
	char err[256];
	libra_sla_err_t rc;
	int code;

	memset(sla, 0, sizeof(*sla));
	sla->submit = now;
	if (job_desc->comment && libra_sla_text_is_sla(job_desc->comment)) {
		rc = libra_sla_parse(job_desc->comment, now, sla, err,
				     sizeof(err));
		if (rc) {
			xstrfmtcat(*err_msg, "libra: rejected: --comment: %s",
				   err);
			return _sla_errno(rc, libra_sla_err_field(err, NULL));
		}
	}
	if ((code = _sla_from_options(job_desc, now, &opts, err_msg)))
		return code;
	rc = libra_sla_merge(sla, "--comment", &opts, "the libra options",
			     err, sizeof(err));
	if (rc) {
		xstrfmtcat(*err_msg, "libra: rejected: %s", err);
		return LIBRA_E_INVALID;
	}
	if (job_desc->deadline)
		deadline = (double) job_desc->deadline;
	*has_sla = sla->set || deadline > 0.0;
	if (!*has_sla)
		return SLURM_SUCCESS;
	if (libra_sla_takes_quote(sla)) {
		/* the quote carries the SLA (decision 20) */
		if ((rc = libra_sla_check_quote(sla, err, sizeof(err)))) {
			xstrfmtcat(*err_msg, "libra: rejected: %s (the libra options included)",
				   err);
			return LIBRA_E_INVALID;
		}
		if (deadline > 0.0) {
			xstrfmtcat(*err_msg, "libra: rejected: quote: quote %u carries its own SLA; give no --deadline with it",
				   sla->quote);
			return ESLURM_INVALID_TIME_VALUE;
		}
		return SLURM_SUCCESS;
	}
	if ((job_desc->time_limit != NO_VAL) &&
	    (job_desc->time_limit != INFINITE))
		time_limit = job_desc->time_limit * 60.0;
	rc = libra_sla_finish(sla, time_limit, deadline, LIBRA_SLA_RUNTIME_LATER,
			      err, sizeof(err));
	if (rc) {
		xstrfmtcat(*err_msg, "libra: rejected: %s", err);
		return _sla_errno(rc, libra_sla_err_field(err, NULL));
	}
	return SLURM_SUCCESS;
}

static void _request(job_desc_msg_t *job_desc, libra_request_t *req)
{
	uint32_t cpus = 1, tasks_cpus;

	memset(req, 0, sizeof(*req));
	if (job_desc->min_cpus != NO_VAL && job_desc->min_cpus)
		cpus = job_desc->min_cpus;
	if (job_desc->num_tasks != NO_VAL && job_desc->num_tasks) {
		tasks_cpus = job_desc->num_tasks;
		if (job_desc->cpus_per_task != NO_VAL16 &&
		    job_desc->cpus_per_task)
			tasks_cpus *= job_desc->cpus_per_task;
		cpus = MAX(cpus, tasks_cpus);
	}
	req->cpus = (int) MIN(cpus, (uint32_t) INT32_MAX);
	if (job_desc->min_nodes != NO_VAL)
		req->min_nodes = (int) job_desc->min_nodes;
	if (job_desc->max_nodes != NO_VAL)
		req->max_nodes = (int) job_desc->max_nodes;
	/* a task's CPUs are on one node; --ntasks-per-node fixes the count */
	if (job_desc->cpus_per_task != NO_VAL16 && job_desc->cpus_per_task > 1)
		req->cpus_per_task = job_desc->cpus_per_task;
	if (job_desc->ntasks_per_node != NO_VAL16 &&
	    job_desc->ntasks_per_node > 0)
		req->cpus_per_node = job_desc->ntasks_per_node *
				     (req->cpus_per_task ? req->cpus_per_task : 1);
}

/*
 * The k-th partition the job names (-p a,b: admission tries each in turn,
 * design.md decision 29), the default one for k = 0 when it names none;
 * NULL past the last.  *name: its name as the job gave it (xfree() it).
 */
static part_record_t *_partition(job_desc_msg_t *job_desc, int k,
				 char **name)
{
	char *list, *tok, *save = NULL;
	part_record_t *part_ptr = NULL;

	*name = NULL;
	if (!job_desc->partition) {
		if (k)
			return NULL;
		*name = xstrdup("(default)");
		return default_part_loc;
	}
	list = xstrdup(job_desc->partition);
	for (tok = strtok_r(list, ",", &save); tok && k;
	     tok = strtok_r(NULL, ",", &save))
		k--;
	if (tok) {
		*name = xstrdup(tok);
		if (!(part_ptr = find_part_record(tok)))
			part_ptr = (part_record_t *) -1;	/* no such */
	}
	xfree(list);
	return part_ptr;
}

/*
 * What keeps a partition from starting the job at all (decision 29): its
 * state, and its node count limits, named as stock Slurm's pending
 * reasons name them.  0, or an errno with the reason in err_msg; the
 * request's node count kept to MaxNodes.
 */
static int _partition_ok(part_record_t *part_ptr, libra_request_t *req,
			 char **err_msg)
{
	const char *state = NULL;

	if (!(part_ptr->state_up & PARTITION_SUBMIT))
		state = (part_ptr->state_up & PARTITION_SCHED) ?
			"DRAIN" : "INACTIVE";
	else if (!(part_ptr->state_up & PARTITION_SCHED))
		state = "DOWN";
	if (state) {
		xstrfmtcat(*err_msg, "libra: rejected: partition %s is %s (PartitionDown/PartitionInactive: Slurm would start no job there)",
			   part_ptr->name, state);
		return (part_ptr->state_up & PARTITION_SUBMIT) ?
		       ESLURM_PARTITION_DOWN : ESLURM_PARTITION_NOT_AVAIL;
	}
	if ((part_ptr->max_nodes != INFINITE &&
	     req->min_nodes > (int) part_ptr->max_nodes) ||
	    (req->max_nodes && part_ptr->min_nodes > 1 &&
	     req->max_nodes < (int) part_ptr->min_nodes)) {
		xstrfmtcat(*err_msg, "libra: rejected: partition %s takes jobs of %u to %s nodes (PartitionNodeLimit)",
			   part_ptr->name, part_ptr->min_nodes,
			   part_ptr->max_nodes == INFINITE ? "any number of" :
			   "MaxNodes");
		return ESLURM_INVALID_NODE_COUNT;
	}
	if (part_ptr->max_nodes != INFINITE &&
	    (!req->max_nodes || req->max_nodes > (int) part_ptr->max_nodes))
		req->max_nodes = (int) part_ptr->max_nodes;
	return 0;
}

/*
 * --contiguous (decision 29): a single node is contiguous, so the job is
 * placed on one; one that needs more nodes is refused, as admission places
 * by CPU share and not in the nodes' order, and select_nodes() would not
 * start it on the nodes chosen.
 */
static int _contiguous(job_desc_msg_t *job_desc, libra_request_t *req,
		       char **err_msg)
{
	if (job_desc->contiguous != 1)
		return 0;
	if (req->min_nodes > 1) {
		xstrfmtcat(*err_msg, "libra: rejected: --contiguous over %d nodes: admission places a job by CPU share, not in the nodes' order, so Slurm could not start it where it was admitted; ask for one node, or submit it without --contiguous",
			   req->min_nodes);
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	req->max_nodes = 1;
	return 0;
}

/* "4 CPUs x 1h, deadline 2h" */
static void _describe(const libra_sla_t *sla, int cpus, double now,
		      char *buf, size_t len)
{
	char re[32], d[32], due[32], due_txt[48] = "";

	libra_format_duration(sla->runtime, re, sizeof(re));
	libra_format_duration(sla->deadline - now, d, sizeof(d));
	if (sla->set & LIBRA_SLA_DUEDATE) {
		libra_format_duration(sla->due_date - now, due, sizeof(due));
		snprintf(due_txt, sizeof(due_txt), "due date %s, ", due);
	}
	snprintf(buf, len, "%d CPU%s x %s, %sdeadline %s%s%s%s", cpus,
		 cpus == 1 ? "" : "s", re, due_txt, d,
		 sla->type == LIBRA_DEADLINE_SOFT ? " soft" : "",
		 (sla->set & LIBRA_SLA_TIER) ? ", tier " : "",
		 (sla->set & LIBRA_SLA_TIER) ? libra_tier_name(sla->tier) :
		 "");
}

static int _refusal_errno(libra_verdict_t v)
{
	switch (v) {
	case LIBRA_REJECT_RESOURCES:
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	case LIBRA_REJECT_BUDGET:
		return LIBRA_E_POLICY;
	case LIBRA_REJECT_INVALID:
		return LIBRA_E_INVALID;
	case LIBRA_REJECT_MEMORY:	/* "Memory required by task is not
					 * available" */
		return ESLURM_INVALID_TASK_MEMORY;
	case LIBRA_REJECT_GPUS:		/* held until jobs end: not
					 * ESLURM_INVALID_GRES, the request
					 * is valid */
		return LIBRA_E_CAPACITY;
	default:
		/*
		 * Not ESLURM_NODES_BUSY ("Requested nodes are busy"): sbatch
		 * retries that one, and a refusal is final (the counter-offer
		 * says what would work).
		 */
		return LIBRA_E_CAPACITY;
	}
}

/*
 * Money for people: cents, or three significant digits below one.  Offers
 * are rounded up, so that resubmitting with the number shown is enough.
 */
static const char *_money_fmt(double v, bool up, char *buf, size_t len)
{
	double scale;

	if (v == 0.0 || v >= 0.995) {
		if (up)
			v = ceil(v * 100.0 - 1e-9) / 100.0;
		snprintf(buf, len, "%.2f", v);
		return buf;
	}
	if (up && v > 0.0) {
		scale = pow(10.0, 2.0 - floor(log10(v)));
		v = ceil(v * scale - 1e-9) / scale;
	}
	snprintf(buf, len, "%.3g", v);
	return buf;
}

static const char *_money(double v, char *buf, size_t len)
{
	return _money_fmt(v, false, buf, len);
}

static const char *_money_up(double v, char *buf, size_t len)
{
	return _money_fmt(v, true, buf, len);
}

/* "64000 MB asked per node": what a job asks of a node's memory. */
static void _mem_asked(const libra_request_t *req, const libra_quote_t *q,
		       char *buf, size_t len)
{
	const libra_demand_t *d = &req->demand;

	if (d->mem_whole_node)
		snprintf(buf, len, "all of a node's memory asked (--mem=0, or no default memory set)");
	else if (d->mem_per_cpu)
		snprintf(buf, len, "%" PRIu64 " MB asked per CPU, %" PRIu64 " MB on one node",
			 d->mem_per_cpu, q->asked.mem_mb);
	else
		snprintf(buf, len, "%" PRIu64 " MB asked per node",
			 q->asked.mem_mb);
}

/*
 * The resource that stands in the way, with the quote's figures (admit.h):
 * "memory: 64000 MB asked per node, at most 48000 MB free on any node
 * now".  A "resources" refusal names a memory or GPU request larger than
 * any node ("..., the largest node has 48000 MB"); other refusals nothing.
 */
static void _held_reason(const libra_ledger_t *l, const libra_request_t *req,
			 const libra_quote_t *q, char *buf, size_t len)
{
	const libra_demand_t *d = &req->demand;
	bool resources = q->verdict == LIBRA_REJECT_RESOURCES;
	const char *per = d->gpus ? "in all" : "per node";
	char asked[128];

	buf[0] = '\0';
	if (q->verdict == LIBRA_REJECT_MEMORY) {
		_mem_asked(req, q, asked, sizeof(asked));
		snprintf(buf, len, "memory: %s, at most %" PRIu64 " MB free on any node now",
			 asked, q->most_free.mem_mb);
	} else if (q->verdict == LIBRA_REJECT_GPUS) {
		snprintf(buf, len, "gpus: %d GPU%s asked %s, at most %d free on any node now",
			 q->asked.gpus, q->asked.gpus == 1 ? "" : "s", per,
			 q->most_free.gpus);
	} else if (resources && q->largest.mem_mb && !d->mem_whole_node &&
		   q->asked.mem_mb > q->largest.mem_mb) {
		_mem_asked(req, q, asked, sizeof(asked));
		snprintf(buf, len, "memory: %s, the largest node has %" PRIu64 " MB",
			 asked, q->largest.mem_mb);
	} else if (resources && d->gpus_per_node &&
		   q->asked.gpus > q->largest.gpus) {
		snprintf(buf, len, "gpus: %d GPU%s asked per node, %s",
			 q->asked.gpus, q->asked.gpus == 1 ? "" : "s",
			 q->largest.gpus ? "more than any node has" :
			 "no node of the partition has GPUs");
	} else if (q->held_node >= 0 &&
		   q->held_node < libra_ledger_node_count(l)) {
		/* they are free there: its CPU share is what is short */
		const char *node = libra_ledger_node_name(l, q->held_node);

		if (q->asked.gpus) {
			snprintf(buf, len, "gpus: %d GPU%s asked %s, free on %s, but not the CPU share there",
				 q->asked.gpus, q->asked.gpus == 1 ? "" : "s",
				 per, node);
		} else {
			_mem_asked(req, q, asked, sizeof(asked));
			snprintf(buf, len, "memory: %s, free on %s, but not the CPU share there",
				 asked, node);
		}
	} else if (resources && d->gpus && !q->largest.gpus) {
		snprintf(buf, len, "gpus: %d GPU%s asked, no node of the partition has GPUs",
			 q->asked.gpus, q->asked.gpus == 1 ? "" : "s");
	}
}

/* "2026-11-25T16:05:12", local time, as Slurm prints times */
static void _clock(double t, char *buf, size_t len)
{
	time_t tt = (time_t) t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "%.0f", t);
}

/* The refusal's first sentence: the verdict and what was asked. */
static void _refuse_reason(const libra_ledger_t *l, const libra_sla_t *sla,
			   const libra_request_t *req, const libra_quote_t *q,
			   double now, char **err_msg)
{
	char what[128], d[32], m1[32], m2[32], held[256];

	_describe(sla, req->cpus, now, what, sizeof(what));
	_held_reason(l, req, q, held, sizeof(held));
	if (q->verdict == LIBRA_REJECT_BUDGET) {
		xstrfmtcat(*err_msg, "libra: rejected: price %s exceeds budget %s (%s)",
			   _money(q->least_price, m1, sizeof(m1)),
			   _money(sla->budget, m2, sizeof(m2)), what);
	} else if (q->verdict == LIBRA_REJECT_MEMORY ||
		   q->verdict == LIBRA_REJECT_GPUS) {
		xstrfmtcat(*err_msg, "libra: rejected: %s (%s)", held, what);
	} else if (q->verdict == LIBRA_REJECT_DUEDATE) {
		/* doc/design.md decision 18: past the break-even point */
		libra_format_duration(q->target - now, d, sizeof(d));
		xstrfmtcat(*err_msg, "libra: rejected: the due date cannot be met; the earliest completion, in %s, would be charged %s, below its cost %s (%s)",
			   d, _money(q->charge_target, m1, sizeof(m1)),
			   _money(q->price / (1.0 + q->markup), m2,
				  sizeof(m2)), what);
	} else {
		xstrfmtcat(*err_msg, "libra: rejected: %s (%s)%s%s",
			   libra_verdict_reason(q->verdict), what,
			   held[0] ? "; " : "", held);
	}
}

/* One line: why, and what would be admitted instead. */
static void _refuse_msg(const libra_ledger_t *l, const libra_params_t *p,
			const libra_sla_t *sla, const libra_request_t *req,
			const libra_quote_t *q, double now, char **err_msg)
{
	libra_offer_t offer;
	libra_slot_t slot;
	char d[32], m1[32], m2[32];

	_refuse_reason(l, sla, req, q, now, err_msg);
	if (q->verdict == LIBRA_REJECT_RESOURCES ||
	    q->verdict == LIBRA_REJECT_INVALID)
		return;
	if (q->verdict == LIBRA_REJECT_SLOTS) {
		xstrfmtcat(*err_msg, "; a later deadline does not help: submit again when jobs end");
		return;
	}

	libra_counter_offer_within(l, p, sla, req, now, OFFER_HORIZON,
				   LIBRA_SEARCH_SECONDS, &offer);
	/* memory and GPUs are held until jobs end: no deadline frees them */
	if (offer.blocked_by == LIBRA_REJECT_MEMORY ||
	    offer.blocked_by == LIBRA_REJECT_GPUS) {
		xstrfmtcat(*err_msg, "; a later deadline does not help: %s held by running jobs until they end, submit again then",
			   offer.blocked_by == LIBRA_REJECT_MEMORY ?
			   "the memory is" : "the GPUs are");
		return;
	}
	if (offer.has_deadline) {
		libra_format_duration(offer.deadline - now, d, sizeof(d));
		if (sla->set & LIBRA_SLA_DUEDATE) {
			libra_format_duration(offer.due_date - now, m2,
					      sizeof(m2));
			xstrfmtcat(*err_msg, "; cheapest feasible: due date %s, deadline %s at %s",
				   m2, d, _money_up(offer.deadline_price, m1,
						    sizeof(m1)));
		} else {
			xstrfmtcat(*err_msg, "; cheapest feasible: deadline %s at %s",
				   d, _money_up(offer.deadline_price, m1,
						sizeof(m1)));
		}
		if (offer.has_budget)
			xstrfmtcat(*err_msg, ", or budget %s",
				   _money_up(offer.budget, m2, sizeof(m2)));
	} else if (offer.has_budget) {
		xstrfmtcat(*err_msg, "; feasible with budget %s",
			   _money_up(offer.budget, m1, sizeof(m1)));
	} else if (offer.cut) {
		xstrfmtcat(*err_msg, "; no later deadline computed (the search stopped at its %.0f ms limit)",
			   LIBRA_SEARCH_SECONDS * 1e3);
	} else {
		xstrfmtcat(*err_msg, "; no deadline within 30 days fits%s",
			   libra_sla_has_budget(sla) ? " the budget" : "");
	}
	/* or the same window later, booked (decision 21) */
	if (libra_next_slot_within(l, p, sla, req, now, OFFER_HORIZON,
				   LIBRA_SEARCH_SECONDS, &slot)) {
		_clock(slot.begin, m1, sizeof(m1));
		xstrfmtcat(*err_msg, "; next free slot: --begin=%s at %s",
			   m1, _money_up(slot.price, m2, sizeof(m2)));
	} else if (slot.cut) {
		xstrfmtcat(*err_msg, "; next free slot not computed (the search stopped at its %.0f ms limit)",
			   LIBRA_SEARCH_SECONDS * 1e3);
	}
}

/* Minutes from now to t, at least one. */
static uint32_t _minutes_until(double t, double now)
{
	double m = ceil((t - now) / 60.0);

	if (m < 1.0)
		return 1;
	if (m >= (double) INFINITE)
		return INFINITE - 1;
	return (uint32_t) m;
}

/*
 * The time limit of an admitted job: time-shared, it runs longer than its
 * CPU time, so it runs to the end the core gives it (libra_end_limit()),
 * or to the partition's limit.  Slurm counts it from the job's start; one
 * past part_ptr's MaxTime would hold the job (PartitionTimeLimit), so it
 * is kept to MaxTime.
 */
static void _set_time_limit(job_desc_msg_t *job_desc, const libra_sla_t *sla,
			    double now, const part_record_t *part_ptr)
{
	double end = libra_end_limit(sla);

	if (end > 0.0)
		job_desc->time_limit = _minutes_until(end, now);
	else
		job_desc->time_limit = NO_VAL;	/* partition's limit */
	if (part_ptr && part_ptr->max_time != INFINITE &&
	    (job_desc->time_limit == NO_VAL ||
	     job_desc->time_limit > part_ptr->max_time))
		job_desc->time_limit = part_ptr->max_time;
}

/*
 * An admitted job under libra_no_sla=slurm (decision 27): slurmctld's own
 * scheduler and backfill may start it too, so it asks for its admitted
 * nodes ("n1,n2") and to time-share their CPUs with other admitted jobs
 * (OverSubscribe=YES:N; jobs without an SLA never share).  It comes first
 * wherever Slurm starts jobs (LIBRA_PRIORITY, decision 38), unless it is
 * held (--hold) or an operator gave it a priority of their own.
 */
static void _pin(job_desc_msg_t *job_desc, const char *nodes)
{
	if (libra_hub_params()->no_sla != LIBRA_NOSLA_SLURM || !nodes)
		return;
	xfree(job_desc->req_nodes);
	job_desc->req_nodes = xstrdup(nodes);
	if (job_desc->shared != JOB_SHARED_NONE)	/* --exclusive stays */
		job_desc->shared = JOB_SHARED_OK;
	if (job_desc->priority == NO_VAL)
		job_desc->priority = LIBRA_PRIORITY;
}

/* The record into AdminComment, the administrator's --admin-comment kept
 * beside it (decision 29). */
static int _store(job_desc_msg_t *job_desc, const libra_record_t *rec,
		  char **err_msg)
{
	char *text = libra_slurm_record_text(rec, job_desc->admin_comment);

	if (!text) {
		xstrfmtcat(*err_msg, "libra: internal error: cannot encode the job record");
		return SLURM_ERROR;
	}
	xfree(job_desc->admin_comment);
	job_desc->admin_comment = text;
	return SLURM_SUCCESS;
}

/*
 * A job without an SLA: Slurm's, untouched but for --oversubscribe
 * (libra_no_sla=slurm, decision 27); best effort at the base price; or
 * refused.
 */
static int _no_sla(job_desc_msg_t *job_desc, const libra_params_t *p,
		   double now, char **err_msg)
{
	libra_record_t rec;

	if (p->no_sla == LIBRA_NOSLA_REJECT) {
		xstrfmtcat(*err_msg, "libra: rejected: this cluster requires an SLA, e.g. --comment=runtime=30m,deadline=2h,budget=10");
		return LIBRA_E_POLICY;
	}
	if (p->no_sla == LIBRA_NOSLA_SLURM) {
		/*
		 * Its CPUs are its own, as under OverSubscribe=NO: only
		 * admitted jobs time-share (partitions are OverSubscribe=
		 * YES:N, where --oversubscribe would let it share theirs).
		 */
		if (job_desc->shared == JOB_SHARED_OK)
			job_desc->shared = NO_VAL16;
		return SLURM_SUCCESS;
	}
	memset(&rec, 0, sizeof(rec));
	rec.policy = p->policy;
	rec.best_effort = true;
	rec.admitted = now;
	rec.rate = libra_price_base_per_sec(p);
	return _store(job_desc, &rec, err_msg);
}

/*
 * The job's request (CPUs, nodes, memory, GPUs) and its partition, also
 * into the refusal record; 0, or an errno with the reason in err_msg.
 */
static int _read_request(job_desc_msg_t *job_desc, int k,
			 libra_request_t *req, part_record_t **part_ptr,
			 libra_refusal_t *ref, char **err_msg)
{
	char *name;
	int rc;

	_request(job_desc, req);
	ref->cpus = req->cpus;
	ref->min_nodes = req->min_nodes;
	ref->max_nodes = req->max_nodes;
	*part_ptr = _partition(job_desc, k, &name);
	if (!*part_ptr || *part_ptr == (part_record_t *) -1) {
		xstrfmtcat(*err_msg, "libra: rejected: no such partition '%s'",
			   name ? name : "(default)");
		xfree(name);
		return ESLURM_INVALID_PARTITION_NAME;
	}
	xfree(name);
	if ((rc = _partition_ok(*part_ptr, req, err_msg)))
		return rc;
	if ((rc = libra_slurm_demand(job_desc, *part_ptr, &req->demand,
				     err_msg)))
		return rc;
	ref->demand = req->demand;
	return 0;
}

/* The request as a quote keeps it, to compare a job taking the quote. */
static void _shape(const job_desc_msg_t *job_desc, const libra_request_t *req,
		   libra_quote_shape_t *shape)
{
	memset(shape, 0, sizeof(*shape));
	shape->cpus = req->cpus;
	shape->min_nodes = req->min_nodes;
	shape->max_nodes = req->max_nodes;
	shape->cpus_per_task = req->cpus_per_task;
	shape->cpus_per_node = req->cpus_per_node;
	shape->demand = req->demand;
	snprintf(shape->partition, sizeof(shape->partition), "%s",
		 job_desc->partition ? job_desc->partition : "");
}

/*
 * "quote=hold": may this user hold one more binding quote?  0, or an
 * errno with the reason in err_msg.
 */
static int _quote_allowed(const libra_params_t *p, uint32_t uid, double now,
			  char **err_msg)
{
	int held = libra_quotes_held(libra_hub_quotes(), uid, now);

	if (p->quote_max < 1.0) {
		xstrfmtcat(*err_msg, "libra: rejected: quote=hold: this cluster gives no binding quotes (libra_quote_max=0); submit the job without it");
		return LIBRA_E_POLICY;
	}
	if (held >= (int) p->quote_max) {
		xstrfmtcat(*err_msg, "libra: rejected: quote=hold: you hold %d binding quote%s, the most allowed (libra_quote_max=%d); take one (--comment=quote=N) or let one expire",
			   held, held == 1 ? "" : "s", (int) p->quote_max);
		return LIBRA_E_POLICY;
	}
	return 0;
}

/*
 * A user's quotes without a job (sbatch --test-only) each hold capacity
 * until their token is released: once one has waited PROBE_OLDER for a
 * job that never came, at most libra_quote_max of them (at least one)
 * at once (decision 37).  Operators are not bounded.  Hub lock held.
 */
static int _probes_allowed(const libra_params_t *p, const libra_ledger_t *l,
			   uint32_t uid, double now, char **err_msg)
{
	int max = p->quote_max < 1.0 ? 1 : (int) p->quote_max, n;

	if (!libra_probes_waiting(&probes, l, uid, now, PROBE_OLDER,
				  LIBRA_TOKEN_HOLD + 1.0, &n) || n < max ||
	    validate_operator(uid))
		return 0;
	xstrfmtcat(*err_msg, "libra: rejected: you have %d quote%s without a job holding capacity (sbatch --test-only; each holds it %d s), the most allowed (libra_quote_max=%d); try again in %d s, or ask for a binding quote (quote=hold)",
		   n, n == 1 ? "" : "s", LIBRA_TOKEN_HOLD, max,
		   LIBRA_TOKEN_HOLD);
	return LIBRA_E_POLICY;
}

/*
 * A binding quote for an accepted admission (decision 20): kept in the
 * book; the record (of the job, when the submission was not a test) names
 * it.  Returns its number, 0 when out of memory.
 */
static uint32_t _quote_keep(const job_desc_msg_t *job_desc,
			    const libra_request_t *req,
			    const libra_record_t *rec, const libra_quote_t *q,
			    uint32_t uid, double now, double until)
{
	libra_held_quote_t h;

	memset(&h, 0, sizeof(h));
	h.token = rec->token;
	h.uid = uid;
	h.issued = now;
	h.until = until;
	h.policy = rec->policy;
	h.sla = rec->sla;
	h.price = rec->price;
	h.price_mem = rec->price_mem;
	h.price_gpus = rec->price_gpus;
	h.rate = rec->rate;
	_shape(job_desc, req, &h.shape);
	h.nplace = q->nplace;
	h.place = (libra_place_t *) q->place;
	return libra_quotes_add(libra_hub_quotes(), &h);
}

/*
 * Runtime predictions (decision 23): with libra_predict on and a history
 * for the user (or the user's group), the job is admitted, priced and
 * committed on its predicted run time P, paced: work min(RE, P / pace),
 * so that the prediction ends at libra_predict_pace of the window and a
 * short overrun still meets the deadline.  The SLA's runtime becomes that
 * work; *declared and *predicted (0: no prediction) go into the record,
 * and a note for the user into txt.  The declared runtime stays the hard
 * cap: a prediction is never above it.
 */
static void _predict(const job_desc_msg_t *job_desc, libra_sla_t *sla,
		     const libra_params_t *p, uint32_t uid, double *declared,
		     double *predicted, char *txt, size_t len)
{
	libra_predictor_t *pred = libra_hub_predictor();
	libra_prediction_t pr;
	double work;
	char a[32], b[32];

	if (!pred)
		return;
	libra_predict(pred, uid, job_desc->group_id == NO_VAL ? -1 :
		      (int64_t) job_desc->group_id, sla->runtime, sla->runtime,
		      1.0 - p->predict_risk, 0.0, &pr);
	if (pr.source == LIBRA_PREDICT_FROM_NONE)
		return;
	work = fmin(sla->runtime, pr.runtime / p->predict_pace);
	if (!(work < sla->runtime))
		return;
	*declared = sla->runtime;
	*predicted = pr.runtime;
	libra_format_duration(pr.runtime, a, sizeof(a));
	libra_format_duration(sla->runtime, b, sizeof(b));
	snprintf(txt, len, " (runtime predicted %s from %d finished job%s; declared %s)",
		 a, pr.samples, pr.samples == 1 ? "" : "s", b);
	sla->runtime = work;
}

/* What a refused booking (--begin later, decision 21) adds: when its times
 * count from. */
static void _booked_note(double begin, char **err_msg)
{
	char t[32];

	if (!(begin > 0.0))
		return;
	_clock(begin, t, sizeof(t));
	xstrfmtcat(*err_msg, " (booked by --begin: times count from %s)", t);
}

/*
 * The runtime, predicted or declared, against the deadline and the due
 * date (libra_sla_finish() left it, LIBRA_SLA_RUNTIME_LATER): with
 * libra_predict a job may declare more than its deadline allows and be
 * admitted on what its user's finished jobs predict; its time limit then
 * follows the SLA (_set_time_limit()), so a hard job ends at its deadline.
 */
static int _runtime_fits(const libra_sla_t *sla, const libra_params_t *p,
			 const char *predict_txt, double begin, char **err_msg)
{
	libra_sla_err_t rc;
	char err[256];

	if (!(rc = libra_sla_check_runtime(sla, err, sizeof(err))))
		return SLURM_SUCCESS;
	xstrfmtcat(*err_msg, "libra: rejected: %s", err);
	if (*predict_txt)
		xstrfmtcat(*err_msg, "%s", predict_txt);
	else if (p->predict != LIBRA_PREDICT_NONE)
		xstrfmtcat(*err_msg, " (libra_predict: no history of finished jobs predicts it shorter)");
	_booked_note(begin, err_msg);
	return _sla_errno(rc, libra_sla_err_field(err, NULL));
}

/* The site's bounds on the terms (libra_runtime_min, libra_window_max,
 * libra_penalty_rate_max; decision 37). */
static int _site_terms(const libra_sla_t *sla, const libra_params_t *p,
		       char **err_msg)
{
	libra_sla_err_t rc;
	char err[256];

	if (!(rc = libra_sla_check_site(sla, p->runtime_min, p->window_max,
					p->penalty_rate_max, err,
					sizeof(err))))
		return SLURM_SUCCESS;
	xstrfmtcat(*err_msg, "libra: rejected: %s", err);
	return _sla_errno(rc, libra_sla_err_field(err, NULL));
}

/*
 * What is wrong with booking an SLA to begin at "begin" (decision 21), or
 * NULL.  A quote fixes its own start; a booking is binding already.
 */
static const char *_booking_error(const libra_sla_t *sla, double begin,
				  double now)
{
	if (libra_sla_takes_quote(sla))
		return "a job taking a quote starts when the quote says; submit it without --begin";
	if (sla->set & LIBRA_SLA_QUOTE)
		return "a booked job is priced and held at once: it needs no quote=hold";
	if (begin - now > OFFER_HORIZON)
		return "a job with an SLA is booked at most 30 days ahead";
	return NULL;
}

/* The candidate starts a submission tries at most under a power plan:
 * every start of a tariff that changes up to three times a day, over the
 * two days libra_power_starts() looks at; each is a quote or three under
 * slurmctld's locks. */
#define POWER_STARTS 8

typedef struct {
	const double *up;	/* libra_slurm_power_up() */
	const bool *eligible;	/* the job's nodes, powered or not */
} power_ready_t;

/* libra_power_ready_fn: the job's nodes up by "at"; how many of them are
 * not. */
static int _power_ready(void *arg, double at, bool *mask)
{
	const power_ready_t *r = arg;
	int out = 0;

	for (int i = 0; i < node_record_count; i++) {
		mask[i] = r->up[i] <= at;
		out += r->eligible[i] && !mask[i];
	}
	return out;
}

/*
 * libra_admit() under a power plan (decision 24): without one, at "at";
 * with one, the core's libra_admit_power(), which libra-sim calls too,
 * over the nodes' power states in Slurm's power saving.  Returns the
 * start taken (> now: the job is booked there); *deferred says whether
 * the plan chose a later start (not only a wait for a boot).  When none
 * is admitted the quote is the plain one at now, so that the refusal says
 * why; if that one would admit, only the boot is in the way, and
 * *boot_wait says so.
 */
static double _admit_power(libra_ledger_t *l, const libra_params_t *p,
			   libra_sla_t *sla, libra_request_t *req, double at,
			   double now, bool plain, libra_quote_t *q,
			   bool *deferred, bool *boot_wait)
{
	libra_power_cfg_t cfg = libra_params_power(p);
	const bool *all = req->eligible;
	power_ready_t r = { .eligible = all };
	libra_power_plan_t plan = {
		.l = l, .p = p, .cfg = &cfg, .tariff = &p->tariff,
		.pace = p->power_pace, .max_starts = POWER_STARTS, .ready = _power_ready, .arg = &r,
	};
	libra_power_choice_t c;

	*boot_wait = *deferred = false;
	if (plain || p->power == LIBRA_POWER_NONE) {
		libra_admit(l, p, sla, req, at, q);
		return at;
	}
	r.up = libra_slurm_power_up(all, now, cfg.boot, cfg.shutdown);
	plan.mask = xcalloc(node_record_count + 1, sizeof(bool));
	libra_admit_power(&plan, sla, req, now, now, q, &c);
	req->eligible = all;
	req->booked = 0.0;
	xfree(plan.mask);
	xfree(r.up);
	if (q->verdict == LIBRA_ACCEPT) {
		*deferred = c.deferred;
		return c.begin;
	}
	libra_admit(l, p, sla, req, now, q);
	if (q->verdict == LIBRA_ACCEPT) {
		*boot_wait = true;
		q->verdict = LIBRA_REJECT_DEADLINE;
	}
	return now;
}

/*
 * What a refusal adds after its reason: that powered-down nodes could not
 * boot in time, the booking's begin or the power plan's start, the
 * prediction used, and that a binding quote was priced for its hold's end.
 */
static void _refusal_notes(const libra_params_t *p, bool boot_wait,
			   bool hold, const char *begin_txt,
			   const char *predict_txt, char **err_msg)
{
	char d[32];

	if (boot_wait) {
		libra_format_duration(p->power_boot, d, sizeof(d));
		xstrfmtcat(*err_msg, " (the powered nodes cannot take it, and its deadline cannot wait %s for a powered-down node to boot: libra_power_boot)",
			   d);
	}
	xstrfmtcat(*err_msg, "%s%s", begin_txt, predict_txt);
	if (hold) {
		libra_format_duration(p->quote_hold, d, sizeof(d));
		xstrfmtcat(*err_msg, " (quote=hold: priced for a start as late as the end of its %s hold)",
			   d);
	}
}

/*
 * An admission whose due date (ISQoS) cannot be met: when it is planned
 * to finish instead, and what it is charged then; with opt=time, when it
 * is planned to finish.
 */
static void _due_date_note(const libra_sla_t *agreed, const libra_quote_t *q,
			   double from, char **err_msg)
{
	char t[32], m[32];

	if (!(agreed->set & LIBRA_SLA_TARGET)) {
		return;
	} else if (!(agreed->set & LIBRA_SLA_DUEDATE)) {
		/* opt=time (issue 42): the earliest finish admission found */
		libra_format_duration(agreed->target - from, t, sizeof(t));
		xstrfmtcat(*err_msg, "; opt=time: planned to finish in %s",
			   t);
		return;
	} else if (agreed->target <= agreed->due_date + LIBRA_DEADLINE_GRACE) {
		return;
	}
	libra_format_duration(agreed->target - from, t, sizeof(t));
	xstrfmtcat(*err_msg, "; the due date cannot be met: planned to finish in %s, charged %s then",
		   t, _money(q->charge_target, m, sizeof(m)));
}

/*
 * The record of an admitted job (an admission, or a binding quote taken),
 * what both have in common: its policy, ledger token, SLA, when and at
 * what prices.  The caller adds the rest.
 */
static void _record_init(libra_record_t *rec, libra_policy_t policy,
			 uint32_t token, const libra_sla_t *sla, double now,
			 double price, double price_mem, double price_gpus)
{
	memset(rec, 0, sizeof(*rec));
	rec->policy = policy;
	rec->token = token;
	rec->sla = *sla;
	rec->admitted = now;
	rec->price = price;
	rec->price_mem = price_mem;
	rec->price_gpus = price_gpus;
}

/*
 * The partition's MaxTime against the SLA's runtime: a job that cannot
 * finish within it is refused (PartitionTimeLimit, decision 29).
 */
static int _time_fits(part_record_t *part_ptr, double runtime,
		      char **err_msg)
{
	if (part_ptr->max_time == INFINITE ||
	    runtime <= part_ptr->max_time * 60.0)
		return 0;
	xstrfmtcat(*err_msg, "libra: rejected: runtime %.0f s is longer than partition %s's MaxTime of %u min (PartitionTimeLimit)",
		   runtime, part_ptr->name, part_ptr->max_time);
	return ESLURM_INVALID_TIME_LIMIT;
}

/*
 * --exclusive (decision 29): whole nodes, priced as whole nodes.  The
 * request takes every CPU of each node it uses: as many of the largest
 * eligible nodes as its CPUs need (at least its minimum node count);
 * smaller nodes are left out, since the core places a fixed count per
 * node.
 */
static void _whole_nodes(libra_request_t *req)
{
	libra_ledger_t *l = libra_hub_ledger();
	bool *e = (bool *) req->eligible;
	int cpn = 0, nodes;

	for (int i = 0; i < libra_ledger_node_count(l); i++)
		if (e[i])
			cpn = MAX(cpn, libra_ledger_node_cpus(l, i));
	if (!cpn)
		return;
	for (int i = 0; i < libra_ledger_node_count(l); i++)
		if (e[i] && libra_ledger_node_cpus(l, i) != cpn)
			e[i] = false;
	nodes = MAX((req->cpus + cpn - 1) / cpn, MAX(req->min_nodes, 1));
	req->cpus = nodes * cpn;
	req->cpus_per_node = cpn;
	req->cpus_per_task = 0;
	req->min_nodes = nodes;
	req->max_nodes = nodes;
}

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
static int _array_sla(const job_desc_msg_t *job_desc, libra_bag_t *bag,
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
 * that every task, pinned there (_pin()), can run on any lane: the task's
 * CPUs, memory per node and GPUs times the lanes.  A task must fit one
 * node, and whole-node memory leaves no room for a second lane; licenses,
 * which admission counts per job, are not taken yet.  bag: _array_sla()'s
 * (tasks 0: not an array).  0, or an errno with the reason in err_msg.
 */
static int _array_request(const job_desc_msg_t *job_desc,
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

/* One admission's state, shared by _admit()'s steps. */
typedef struct {
	job_desc_msg_t *job_desc;
	libra_sla_t *sla;
	const libra_bag_t *bag;	/* a job array's (decision 36), or tasks 0 */
	libra_ledger_t *l;
	libra_params_t *p;
	libra_quote_t *q;
	libra_request_t req;
	libra_slurm_left_out_t left_out;
	part_record_t *part_ptr;	/* the partition placed (or last tried) */
	uint32_t uid;
	libra_refusal_t *ref;
	char **err_msg;
	size_t keep;		/* err_msg's length before this admission */
	double now;
	double begin;		/* > 0: a booking's begin (decision 21) */
	double at;		/* when admission counts the job from */
	double from;		/* what the user's times count from */
	double start;		/* the start the power plan chose */
	bool hold;		/* a binding quote (quote=hold) */
	bool deferred, boot_wait;	/* the power plan's (decision 24) */
	bool *all;		/* the nodes it may use once the jobs that do
				 * not share end there (decision 39) */
	libra_planned_t plan;	/* a planned start there, or the next slot */
	double declared, predicted;	/* the runtimes (_predict()) */
	char begin_txt[192], predict_txt[128];
	char *tried;		/* -p a,b: the other partitions' reasons */
	int k;			/* the partition placed (or last tried) */
} admit_ctx_t;

/*
 * The nodes where jobs without an SLA that do not share run until their
 * time limits (decision 39): kept in c->all, usable from when they free,
 * and left out of mask where that is after the admission's start (c->at:
 * now, a booking's begin, a binding quote's hold end).
 */
static void _free_now(admit_ctx_t *c, bool *mask)
{
	const double *free_at = c->left_out.free_at;

	xfree(c->all);
	if (!free_at)
		return;
	c->all = xcalloc(node_record_count + 1, sizeof(bool));
	for (int i = 0; i < node_record_count; i++) {
		c->all[i] = mask[i];
		if (free_at[i] > c->at)
			mask[i] = false;
	}
}

/*
 * What admission needs of a job with an SLA, in c->k's partition: its
 * request (refused, with the reason, when unreadable), whether the user may
 * hold another quote, and the nodes it may run on (c->left_out: why the
 * others were left out).  A booking (c->begin > 0) is marked booked, and
 * c->begin_txt says when it begins.
 */
static int _admit_request(admit_ctx_t *c)
{
	job_desc_msg_t *job_desc = c->job_desc;
	const libra_sla_t *sla = c->sla;
	libra_request_t *req = &c->req;
	libra_refusal_t *ref = c->ref;
	part_record_t **part_ptr = &c->part_ptr;
	char **err_msg = c->err_msg;
	libra_slurm_window_t w = { 0 };
	char *why = NULL;
	int rc;

	if (c->hold && (rc = _quote_allowed(c->p, c->uid, c->now, err_msg))) {
		info("%s: %s", plugin_type, *err_msg);
		return rc;
	}
	if ((rc = _read_request(job_desc, c->k, req, part_ptr, ref, err_msg)) ||
	    (rc = _contiguous(job_desc, req, err_msg)) ||
	    (rc = _array_request(job_desc, c->bag, req, err_msg)) ||
	    /* a bag's tasks each run W-th of its work, under their limit */
	    (rc = _time_fits(*part_ptr, sla->runtime /
			     (c->bag->tasks > 0 ? c->bag->waves : 1),
			     err_msg))) {
		info("%s: %s", plugin_type, *err_msg);
		return rc;
	}
	ref->cpus = req->cpus;		/* a bag's lanes (decision 36) */
	ref->max_nodes = req->max_nodes;
	/* a request the core decides on: libra-replay decides it again */
	ref->has_sla = true;
	ref->sla = *sla;
	req->slots_per_cpu = libra_slurm_slots_per_cpu(*part_ptr);
	if (libra_slurm_preemptable(*part_ptr, &why)) {
		/* no promise Slurm may break at will (decision 30) */
		xstrfmtcat(*err_msg, "libra: rejected: %s: an SLA cannot be kept there (the site's configuration; libra-check(8) names the fix)",
			   why);
		xfree(why);
		info("%s: %s", plugin_type, *err_msg);
		snprintf(ref->verdict, sizeof(ref->verdict), "resources");
		return ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE;
	}
	if (c->begin > 0.0) {
		char t[32];

		req->booked = c->now;
		_clock(c->begin, t, sizeof(t));
		snprintf(c->begin_txt, sizeof(c->begin_txt), " (booked to begin at %s; times from then)",
			 t);
	}
	req->eligible = libra_slurm_eligible(*part_ptr, job_desc->req_nodes,
					     job_desc->exc_nodes, &c->left_out,
					     err_msg);
	if (!req->eligible)
		return ESLURM_INVALID_NODE_NAME;
	w.features = job_desc->features;
	w.resv_name = job_desc->reservation;
	w.start = (time_t) (c->begin > 0.0 ? c->begin : c->now);
	w.end = (time_t) ceil(sla->deadline);
	w.whole = (job_desc->shared == JOB_SHARED_NONE);
	if (job_desc->pn_min_tmp_disk != NO_VAL)
		w.tmp_mb = job_desc->pn_min_tmp_disk;
	if ((rc = libra_slurm_restrict((bool *) req->eligible, &w, &c->left_out,
				       err_msg))) {
		info("%s: %s", plugin_type, *err_msg);
		return rc;
	}
	if (w.whole)
		_whole_nodes(req);
	_free_now(c, (bool *) req->eligible);
	return SLURM_SUCCESS;
}

/*
 * The power plan's start (decision 24), later than now: deferred to
 * cheaper hours (Slurm holds the job until then: its begin time), or
 * counted from the boot of powered-down nodes (started at once; slurmctld
 * powers them up).  begin_txt says which.
 */
static void _power_start(job_desc_msg_t *job_desc, double start,
			 bool deferred, char *begin_txt, size_t len)
{
	char t[32];

	_clock(start, t, sizeof(t));
	if (deferred) {
		job_desc->begin_time = (time_t) ceil(start);
		snprintf(begin_txt, len, " (deferred to %s, when power is cheaper)",
			 t);
	} else {
		snprintf(begin_txt, len, " (on powered-down nodes: counted from their boot, %s)",
			 t);
	}
}

/* A planned start (decision 39): the job waits, pinned at the top
 * priority, and starts when its nodes free, sooner if they free sooner. */
static void _planned_start(double start, char *begin_txt, size_t len)
{
	char t[32];

	_clock(start, t, sizeof(t));
	snprintf(begin_txt, len, " (planned to start at %s, when the jobs without an SLA on its nodes reach their time limits; sooner if they end sooner)",
		 t);
}

/*
 * Make an admission binding: the record's places, its binding quote when
 * held (held_until > 0: kept in the book until then), the record stored
 * in the job and the capacity committed in the ledger, a booking from its
 * begin, a quote from its hold's end.  On a failure nothing is left
 * behind and *err_msg says why.  Frees what rec holds; its token and
 * quote id stay.
 */
static int _commit(job_desc_msg_t *job_desc, libra_ledger_t *l,
		   libra_record_t *rec, const libra_request_t *req,
		   const libra_quote_t *q, uint32_t uid, double now,
		   double held_until, char **err_msg)
{
	libra_sla_t agreed = rec->sla;
	int rc;

	if (libra_record_set_place(rec, l, q->place, q->nplace)) {
		xstrfmtcat(*err_msg, "libra: internal error: out of memory");
		return SLURM_ERROR;
	}
	if (held_until > 0.0) {
		rec->quote_until = held_until;
		if (!(rec->quote_id = _quote_keep(job_desc, req, rec, q, uid,
						  now, held_until))) {
			libra_record_free(rec);
			xstrfmtcat(*err_msg, "libra: internal error: out of memory");
			return SLURM_ERROR;
		}
	}
	rc = _store(job_desc, rec, err_msg);
	libra_record_free(rec);
	if (!rc && libra_ledger_commit_booked(l, rec->token, &agreed, q->place,
					      q->nplace,
					      held_until > 0.0 ? held_until : now,
					      rec->begin)) {
		xstrfmtcat(*err_msg, "libra: internal error: cannot commit the admission");
		rc = SLURM_ERROR;
	}
	if (rc && rec->quote_id)
		libra_quotes_remove(libra_hub_quotes(), rec->quote_id);
	return rc;
}

/* The answer to quote=hold: the binding quote, its price and hold. */
static void _quote_msg(const libra_params_t *p, double price, uint32_t id,
		       double until, const char *what, const char *nodes,
		       char **err_msg)
{
	char t[32], span[32], m[32];

	_clock(until, t, sizeof(t));
	libra_format_duration(p->quote_hold, span, sizeof(span));
	xstrfmtcat(*err_msg, "libra: quote %u: price %s (%s, %s) on %s, held for you until %s (%s); to take it, submit the job with --comment=quote=%u and the same CPUs, nodes, memory, GPUs and partition",
		   id, _money(price, m, sizeof(m)), what,
		   libra_policy_name(p->policy), nodes, t, span, id);
}

static void _lic_recent_prune(const libra_ledger_t *l)
{
	int i, k = 0;

	for (i = 0; i < lic.n; i++) {
		if (libra_ledger_has_job(l, lic.hold[i].token))
			lic.hold[k++] = lic.hold[i];
		else
			xfree(lic.hold[i].licenses);
	}
	lic.n = k;
}

static void _lic_recent_add(uint32_t token, const char *licenses,
			    double until)
{
	xrecalloc(lic.hold, lic.n + 1, sizeof(*lic.hold));
	lic.hold[lic.n].token = token;
	lic.hold[lic.n].licenses = xstrdup(licenses);
	lic.hold[lic.n].until = until;
	lic.n++;
}

/*
 * The licenses the job asks must be free from "at" on (design.md decision
 * 29): never admitted to wait for a license.  SLURM_SUCCESS or the errno,
 * with the refusal in err_msg.
 */
static int _licenses(job_desc_msg_t *job_desc, const libra_ledger_t *l,
		     double at, double now, libra_refusal_t *ref,
		     char **err_msg)
{
	int rc;

	if (!job_desc->licenses || !job_desc->licenses[0])
		return SLURM_SUCCESS;
	_lic_recent_prune(l);
	rc = libra_slurm_licenses(job_desc->licenses, at, now, lic.hold,
				  lic.n, err_msg);
	if (rc) {
		snprintf(ref->verdict, sizeof(ref->verdict), "licenses");
		info("%s: %s", plugin_type, *err_msg);
	}
	return rc;
}

/*
 * QOS and association limits (design.md decision 29): a job Slurm would
 * hold for a limit is refused naming it, never admitted to wait.  Asked
 * as the job would run: its CPUs, its nodes (at least one), the time
 * limit _set_time_limit() gives it.
 */
static int _limits(job_desc_msg_t *job_desc, part_record_t *part_ptr,
		   const libra_sla_t *sla, const libra_request_t *req,
		   double from, libra_refusal_t *ref, char **err_msg)
{
	double end = libra_end_limit(sla);
	int rc;

	rc = libra_slurm_limits(job_desc, part_ptr, req->cpus,
				MAX(req->min_nodes, 1), &req->demand,
				end > 0.0 ? _minutes_until(end, from) : NO_VAL,
				err_msg);
	if (rc) {
		snprintf(ref->verdict, sizeof(ref->verdict), "limits");
		info("%s: %s", plugin_type, *err_msg);
	}
	return rc;
}

/*
 * -p a,b: why partition k refused the job (its request's error, or the
 * verdict's first sentence), added to *tried as "a: <reason>".
 */
static void _partition_refused(job_desc_msg_t *job_desc, int k,
			       const libra_ledger_t *l, const libra_sla_t *sla,
			       const libra_request_t *req,
			       const libra_quote_t *q, double now, int rc,
			       const char *rc_msg, char **tried)
{
	static const char prefix[] = "libra: rejected: ";
	char *why = NULL, *name = NULL;
	const char *w;

	if (rc)
		why = xstrdup(rc_msg && rc_msg[0] ? rc_msg :
			      slurm_strerror(rc));
	else
		_refuse_reason(l, sla, req, q, now, &why);
	w = why;
	if (!strncmp(w, prefix, sizeof(prefix) - 1))
		w += sizeof(prefix) - 1;
	(void) _partition(job_desc, k, &name);
	xstrfmtcat(*tried, "%s%s: %s", *tried ? "; " : "",
		   name ? name : "?", w);
	xfree(name);
	xfree(why);
}

/* The other partitions' reasons after the last one's (partition k). */
static void _partition_tried(job_desc_msg_t *job_desc, int k, char **tried,
			     char **err_msg)
{
	char *name = NULL;

	if (!*tried)
		return;
	(void) _partition(job_desc, k, &name);
	xstrfmtcat(*err_msg, " [in partition %s; the job's other partitions refused it too: %s]",
		   name ? name : "?", *tried);
	xfree(name);
	xfree(*tried);
}

/*
 * Refused where it would start: a planned start when the jobs without an
 * SLA on other nodes it may use reach their time limits (decision 39),
 * the first at which it is admitted, on c->q; else the quote stays the
 * refusal's, and c->plan holds the next free slot, if one was found.
 */
static void _admit_planned(admit_ctx_t *c)
{
	libra_request_t r = c->req;
	libra_quote_t *q;
	bool *mask;

	memset(&c->plan, 0, sizeof(c->plan));
	if (!c->all)
		return;
	q = xmalloc(sizeof(*q));
	mask = xcalloc(node_record_count + 1, sizeof(bool));
	r.eligible = c->all;
	libra_admit_when_free(c->l, c->p, c->sla, &r, c->left_out.free_at,
			      mask, c->now, c->at, LIBRA_SEARCH_SECONDS, q,
			      &c->plan);
	if (c->plan.accepted) {
		libra_quote_t *refused = c->q;

		c->q = q;
		q = refused;
		c->start = c->plan.begin;
		c->req.booked = r.booked;
	}
	xfree(mask);
	xfree(q);
}

/*
 * Every partition the job names, in turn (-p a,b: decision 29): the job is
 * placed in the first that can take it, at once, or with "plan" also for
 * a planned start (decision 39).  Returns the request's error (none: c->q
 * holds the last partition's verdict); refused everywhere, the refusal is
 * the last partition's, the others' reasons in c->tried.
 */
static int _admit_parts(admit_ctx_t *c, bool plan)
{
	char *name;
	int rc;

	memset(&c->req, 0, sizeof(c->req));
	for (c->k = 0; ; c->k++) {
		bool more;

		if (*c->err_msg)
			(*c->err_msg)[c->keep] = '\0';
		xfree(c->req.eligible);
		xfree(c->left_out.free_at);
		memset(&c->left_out, 0, sizeof(c->left_out));
		rc = _admit_request(c);
		if (!rc)
			c->start = _admit_power(c->l, c->p, c->sla, &c->req,
						c->at, c->now,
						c->hold || c->begin > 0.0,
						c->q, &c->deferred,
						&c->boot_wait);
		if (!rc && c->q->verdict != LIBRA_ACCEPT && plan)
			_admit_planned(c);
		if (!rc && c->q->verdict == LIBRA_ACCEPT)
			return rc;
		more = (_partition(c->job_desc, c->k + 1, &name) != NULL);
		xfree(name);
		if (!more)
			return rc;
		_partition_refused(c->job_desc, c->k, c->l, c->sla, &c->req,
				   c->q, c->from, rc,
				   *c->err_msg ? *c->err_msg + c->keep : NULL,
				   &c->tried);
	}
}

/*
 * Place the job: with several partitions (-p a,b), a start now in any of
 * them before a planned start in the first (decision 39), so they are
 * tried twice when none takes it now; the second round's refusals are
 * the ones reported.
 */
static int _admit_place(admit_ctx_t *c)
{
	char *name = NULL;
	bool several = _partition(c->job_desc, 1, &name) != NULL;
	int rc;

	xfree(name);
	rc = _admit_parts(c, !several);
	if (!several || rc || c->q->verdict == LIBRA_ACCEPT)
		return rc;
	xfree(c->tried);
	return _admit_parts(c, true);
}

/*
 * A job array refused (decision 36): what its price, budget and runtime
 * were of, and when its waves cannot fit its deadline the throttle with
 * which they would, on CPUs free enough (libra_capacity of each), as a
 * counter-offer.
 */
static void _array_offer(const libra_bag_t *bag, const libra_sla_t *sla,
			 const libra_params_t *p, double from, char **err_msg)
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

/* The next free slot after the time limits of the jobs without an SLA
 * that hold the nodes (decision 39): the same window from then. */
static void _slot_msg(const libra_planned_t *plan, double from,
		      char **err_msg)
{
	char t[32], d[32], m[32];

	if (plan->cut && !plan->slot_found)
		xstrfmtcat(*err_msg, "; no start after the time limits of the jobs without an SLA on its nodes computed (the search stopped at its %.0f ms limit)",
			   LIBRA_SEARCH_SECONDS * 1e3);
	if (!plan->slot_found)
		return;
	_clock(plan->slot.begin, t, sizeof(t));
	libra_format_duration(plan->slot.deadline - from, d, sizeof(d));
	xstrfmtcat(*err_msg, "; next free slot after the time limits of the jobs without an SLA on its nodes: a start at %s, deadline %s at %s",
		   t, d, _money_up(plan->slot.price, m, sizeof(m)));
}

/* The refusal of a job placed nowhere: the reason, the counter-offer, the
 * notes, the errno. */
static int _admit_refuse(admit_ctx_t *c)
{
	_refuse_msg(c->l, c->p, c->sla, &c->req, c->q, c->from, c->err_msg);
	_array_offer(c->bag, c->sla, c->p, c->from, c->err_msg);
	c->left_out.slot_follows = c->plan.slot_found;
	if (c->q->verdict == LIBRA_REJECT_RESOURCES)
		libra_slurm_left_out_msg(&c->left_out, c->err_msg);
	_slot_msg(&c->plan, c->from, c->err_msg);
	_refusal_notes(c->p, c->boot_wait, c->hold, c->begin_txt,
		       c->predict_txt, c->err_msg);
	_partition_tried(c->job_desc, c->k, &c->tried, c->err_msg);
	snprintf(c->ref->verdict, sizeof(c->ref->verdict), "%s",
		 libra_verdict_name(c->q->verdict));
	info("%s: %s", plugin_type, *c->err_msg);
	return _refusal_errno(c->q->verdict);
}

/*
 * A bag's shape into its record (decision 36), and the words that open
 * its admission, "array of 20 tasks, 4 at a time in 5 waves: ".
 */
static void _array_record(const libra_bag_t *bag, const libra_sla_t *sla,
			  libra_record_t *rec, char *what, size_t len)
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

/* The accepted job: its record committed, its time limit, its nodes, the
 * message (an admission or a binding quote). */
static int _admit_accept(admit_ctx_t *c)
{
	job_desc_msg_t *job_desc = c->job_desc;
	libra_quote_t *q = c->q;
	libra_record_t rec;
	libra_sla_t agreed;
	char what[192] = "", m1[32], *nodes;
	int rc;

	if (c->plan.accepted) {
		_planned_start(c->start, c->begin_txt, sizeof(c->begin_txt));
		c->begin = c->start;
	} else if (!c->hold && c->begin <= 0.0 && c->start > c->now) {
		if (c->deferred)
			c->from = c->start;
		_power_start(job_desc, c->start, c->deferred, c->begin_txt,
			     sizeof(c->begin_txt));
		c->begin = c->start;
	}
	_record_init(&rec, c->p->policy, libra_hub_next_token(), c->sla,
		     c->now, q->price, q->price_mem, q->price_gpus);
	libra_sla_accept(&rec.sla, q);	/* a due-date target, if any */
	/* opt=time is how it was admitted, its target what was agreed */
	rec.sla.set &= ~LIBRA_SLA_OPT;
	rec.sla.opt = LIBRA_OPT_COST;
	agreed = rec.sla;
	rec.rate = q->rate_max;
	/* the most the provider pays for it, fixed now (decision 37); a
	 * free job's is nothing (0 would read as no cap) */
	if (c->p->penalty_cap > 0.0)
		rec.penalty_max = fmax(c->p->penalty_cap * q->price, 1e-300);
	/* submitted held (--hold): its owner's time from now until it
	 * starts (decision 37) */
	if (job_desc->priority == 0)
		libra_record_owner_stop(&rec, c->now);
	rec.demand = c->req.demand;
	rec.begin = c->begin;
	rec.declared = c->declared;
	rec.predicted = c->predicted;
	_array_record(c->bag, c->sla, &rec, what, sizeof(what));
	if ((rc = _commit(job_desc, c->l, &rec, &c->req, q, c->uid, c->now,
			  c->hold ? c->at : 0.0, c->err_msg)))
		return rc;
	if (job_desc->licenses && job_desc->licenses[0])
		_lic_recent_add(rec.token, job_desc->licenses,
				agreed.deadline);
	if (!c->hold && libra_probes_add(&probes, c->uid, rec.token, c->now))
		error("%s: out of memory noting admission %u", plugin_type,
		      rec.token);
	_set_time_limit(job_desc, c->sla, c->from, c->part_ptr);

	_describe(c->sla, c->req.cpus, c->from, what + strlen(what),
		  sizeof(what) - strlen(what));
	nodes = libra_slurm_quote_nodes(q);
	_pin(job_desc, nodes);
	if (c->hold) {
		_quote_msg(c->p, q->price, rec.quote_id, c->at, what, nodes,
			   c->err_msg);
	} else {
		xstrfmtcat(*c->err_msg, "libra: admitted: price %s (%s, %s) on %s%s%s",
			   _money(q->price, m1, sizeof(m1)), what,
			   libra_policy_name(c->p->policy), nodes,
			   c->begin_txt, c->predict_txt);
	}
	_due_date_note(&agreed, q, c->from, c->err_msg);
	info("%s: %s", plugin_type, *c->err_msg);
	xfree(nodes);
	return SLURM_SUCCESS;
}

/*
 * Admit a job, or refuse it with the reason.  begin > 0: an advance
 * reservation (decision 21), quoted and priced at its begin, counted in the
 * ledger from then; its SLA was read with its begin as its submission.
 */
static int _admit(job_desc_msg_t *job_desc, libra_sla_t *sla,
		  const libra_bag_t *bag, double now, double begin,
		  uint32_t uid, char **err_msg, libra_refusal_t *ref)
{
	admit_ctx_t c = {
		.job_desc = job_desc, .sla = sla, .bag = bag, .uid = uid,
		.ref = ref,
		.err_msg = err_msg, .now = now, .begin = begin,
		.l = libra_hub_ledger(), .p = libra_hub_params(),
		.q = xmalloc(sizeof(*c.q)),
		.keep = *err_msg ? strlen(*err_msg) : 0,
		/* a binding quote is admitted as if started at its hold's
		 * end, a booked job at its begin */
		.hold = (sla->set & LIBRA_SLA_QUOTE),
		/* what the user's times count from: the begin of a booking */
		.from = begin > 0.0 ? begin : now,
	};
	int rc;

	if (!c.hold && (rc = _probes_allowed(c.p, c.l, uid, now, err_msg))) {
		info("%s: uid %u: %s", plugin_type, uid, *err_msg);
		goto out;
	}
	c.at = c.hold ? now + c.p->quote_hold : begin > 0.0 ? begin : now;
	c.start = c.at;
	sla->set &= ~LIBRA_SLA_QUOTE;
	/* a bag is admitted on its tasks' declared runtime (decision 36) */
	if (!c.hold && bag->tasks <= 0)
		_predict(job_desc, sla, c.p, uid, &c.declared, &c.predicted,
			 c.predict_txt, sizeof(c.predict_txt));
	if ((rc = _runtime_fits(sla, c.p, c.predict_txt, begin, err_msg))) {
		_array_offer(bag, sla, c.p, c.from, err_msg);
		goto out;
	}
	if ((rc = _site_terms(sla, c.p, err_msg)))
		goto out;
	if ((rc = _admit_place(&c))) {
		_partition_tried(job_desc, c.k, &c.tried, err_msg);
		goto out;
	}
	if ((rc = _licenses(job_desc, c.l, c.at, now, ref, err_msg)) ||
	    (rc = _limits(job_desc, c.part_ptr, sla, &c.req, c.from, ref,
			  err_msg)))
		goto out;
	if (c.q->verdict == LIBRA_ACCEPT && job_desc->partition &&
	    strchr(job_desc->partition, ',')) {
		/* the partition it was admitted in, where its nodes are */
		xfree(job_desc->partition);
		job_desc->partition = xstrdup(c.part_ptr->name);
	}
	libra_auto_feedback(c.l, c.p, c.q, now);
	libra_price_feedback(c.l, c.p, now);
	if (c.q->verdict != LIBRA_ACCEPT)
		rc = _admit_refuse(&c);
	else
		rc = _admit_accept(&c);
out:
	xfree(c.tried);	/* admitted in a later partition, or limits */
	xfree(c.req.eligible);
	xfree(c.left_out.free_at);
	xfree(c.all);
	xfree(c.q);
	return rc;
}

/*
 * Why quote N cannot be taken (st is not LIBRA_QUOTE_OK), in *err_msg; the
 * errno sbatch reports.  h: the quote found, for its hold's end.
 */
static int _quote_unusable(libra_quote_status_t st, uint32_t id,
			   const libra_held_quote_t *h, char **err_msg)
{
	char t[32];

	switch (st) {
	case LIBRA_QUOTE_UNKNOWN:
	case LIBRA_QUOTE_NOT_OWNER:
		/* another user's quote is as unknown to this one: its
		 * number, hold and price are its owner's (decision 37) */
		xstrfmtcat(*err_msg, "libra: rejected: quote %u: no such quote of yours (a quote is kept until an hour after its hold ends); ask for a new one with quote=hold",
			   id);
		break;
	case LIBRA_QUOTE_EXPIRED:
		_clock(h->until, t, sizeof(t));
		xstrfmtcat(*err_msg, "libra: rejected: quote %u expired at %s; ask for a new one with quote=hold",
			   id, t);
		break;
	case LIBRA_QUOTE_TAKEN:
		xstrfmtcat(*err_msg, "libra: rejected: quote %u was already taken by a job",
			   id);
		break;
	case LIBRA_QUOTE_OK:
		break;
	}
	return LIBRA_E_INVALID;
}

/*
 * What quote h held is gone: released by a node table change, or one of
 * its nodes is down (then released now).  The quote is dropped and the
 * reason is in *err_msg; 0 when it still holds everything.
 */
static int _quote_lost(libra_ledger_t *l, libra_quotes_t *b,
		       libra_held_quote_t *h, char **err_msg)
{
	uint32_t id = h->id;

	for (int i = 0; i < h->nplace && libra_ledger_has_job(l, h->token);
	     i++) {
		if (libra_ledger_node_up(l, h->place[i].node))
			continue;
		xstrfmtcat(*err_msg, "libra: rejected: quote %u: its node %s is no longer available; ask for a new quote",
			   id, libra_ledger_node_name(l, h->place[i].node));
		libra_ledger_release(l, h->token);
		libra_quotes_remove(b, id);
		return LIBRA_E_CAPACITY;
	}
	if (!libra_ledger_has_job(l, h->token)) {
		xstrfmtcat(*err_msg, "libra: rejected: quote %u: the capacity it held was released (the node configuration changed); ask for a new quote",
			   id);
		libra_quotes_remove(b, id);
		return LIBRA_E_CAPACITY;
	}
	return 0;
}

/*
 * "quote=N": a job made of binding quote N at its price, with no second
 * admission: the quote's token already holds its share, memory and GPUs
 * (doc/design.md decision 20).  Refused, with the reason, when the quote
 * is unknown, another user's, expired or taken, when the job asks
 * something else than was quoted, or when what it held is gone.
 */
static int _take_quote(job_desc_msg_t *job_desc, const libra_sla_t *sla,
		       double now, uint32_t uid, char **err_msg,
		       libra_refusal_t *ref)
{
	libra_ledger_t *l = libra_hub_ledger();
	libra_quotes_t *b = libra_hub_quotes();
	libra_held_quote_t *h;
	libra_quote_status_t st;
	libra_quote_shape_t shape;
	libra_request_t req;
	libra_record_t rec;
	part_record_t *part_ptr;
	const char *differs;
	char what[128], m1[32], *nodes;
	int rc;

	snprintf(ref->verdict, sizeof(ref->verdict), "quote");
	st = libra_quotes_find(b, sla->quote, uid, now, &h);
	if (st == LIBRA_QUOTE_OK && libra_ledger_has_job(l, h->token)) {
		/*
		 * Its token may already be a job's: one submitted with
		 * quote=hold rather than tested.  The scheduler re-keys it at
		 * its next pass; do it now (rare: once per quote taken).
		 */
		libra_slurm_sync(time(NULL));
		st = libra_quotes_find(b, sla->quote, uid, now, &h);
	}
	if (st != LIBRA_QUOTE_OK)
		return _quote_unusable(st, sla->quote, h, err_msg);

	ref->has_sla = true;
	ref->sla = h->sla;
	if ((rc = _read_request(job_desc, 0, &req, &part_ptr, ref,
				  err_msg)))
		return rc;
	_shape(job_desc, &req, &shape);
	if ((differs = libra_quote_shape_differs(&h->shape, &shape))) {
		xstrfmtcat(*err_msg, "libra: rejected: quote %u: this job asks another %s than was quoted; submit it with the CPUs, nodes, memory, GPUs and partition of the quote",
			   sla->quote, differs + 4 /* past "the " */);
		return LIBRA_E_INVALID;
	}
	if ((rc = _quote_lost(l, b, h, err_msg)))
		return rc;

	_record_init(&rec, h->policy, h->token, &h->sla, now, h->price,
		     h->price_mem, h->price_gpus);
	rec.rate = h->rate;
	rec.demand = h->shape.demand;
	rec.quote_id = h->id;
	rec.quote_until = h->until;
	if (libra_record_set_place(&rec, l, h->place, h->nplace)) {
		xstrfmtcat(*err_msg, "libra: internal error: out of memory");
		return SLURM_ERROR;
	}
	rc = _store(job_desc, &rec, err_msg);
	nodes = rc ? NULL : libra_slurm_place_names(&rec);
	libra_record_free(&rec);
	if (rc)
		return rc;
	libra_quotes_mark_taken(b, h->id);
	_pin(job_desc, nodes);
	_set_time_limit(job_desc, &h->sla, now, part_ptr);
	_describe(&h->sla, h->shape.cpus, now, what, sizeof(what));
	xstrfmtcat(*err_msg, "libra: admitted: quote %u taken: price %s (%s, %s) on %s",
		   h->id, _money(h->price, m1, sizeof(m1)), what,
		   libra_policy_name(h->policy), nodes);
	info("%s: uid %u: %s", plugin_type, uid, *err_msg);
	xfree(nodes);
	return SLURM_SUCCESS;
}

/*
 * Append a refusal to the log in StateSaveLocation (one short write with
 * O_APPEND, so concurrent submissions never interleave a line).
 */
static void _log_refusal(libra_refusal_t *ref, job_desc_msg_t *job_desc,
			 uint32_t submit_uid, const char *msg)
{
	char *path = NULL, *json;
	int fd;

	/* ref->time: set by the caller, the decision's own "now" */
	ref->uid = submit_uid;
	snprintf(ref->account, sizeof(ref->account), "%s",
		 job_desc->account ? job_desc->account : "");
	snprintf(ref->partition, sizeof(ref->partition), "%s",
		 job_desc->partition ? job_desc->partition : "");
	snprintf(ref->reason, sizeof(ref->reason), "%s", msg ? msg : "");
	if (!(json = libra_refusal_to_json(ref)))
		return;
	xstrfmtcat(path, "%s/%s", slurm_conf.state_save_location,
		   REFUSAL_LOG);
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
		       0600)) >= 0) {
		char *line = NULL;

		xstrfmtcat(line, "%s\n", json);
		if (write(fd, line, strlen(line)) < 0)
			debug("%s: cannot write %s: %m", plugin_type, path);
		close(fd);
		xfree(line);
	} else {
		debug("%s: cannot open %s: %m", plugin_type, path);
	}
	xfree(path);
	free(json);
}

/*
 * The time of a decision, to the microsecond: several admissions happen in
 * one second, and their records must say in which order (libra-replay).
 */
static double _now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A booking's reservation is sched/libra's (design.md decision 42): it lets
 * its jobs use any node, past every other booking, so no one but an
 * operator may ask for it (--reservation at submission, or an update).
 * err_msg may be NULL (job_modify() on 22.05).
 */
static int _booking_resv_refused(job_desc_msg_t *job_desc,
				 uint32_t submit_uid, char **err_msg)
{
	if (!job_desc->reservation ||
	    !libra_slurm_booking_resv(job_desc->reservation) ||
	    validate_operator(submit_uid))
		return SLURM_SUCCESS;
	info("%s: uid %u: refused --reservation=%s: a booking's reservation",
	     plugin_type, submit_uid, job_desc->reservation);
	if (err_msg)
		xstrfmtcat(*err_msg, "libra: rejected: --reservation=%s: reservations named %s<job id> hold a booked job's nodes for it (sched_libra(8)); no other job may ask for one",
			   job_desc->reservation, LIBRA_RESV_PREFIX);
	return ESLURM_RESERVATION_ACCESS;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	libra_refusal_t ref;
	double now = _now();
	libra_sla_t sla;
	libra_bag_t bag = { 0 };	/* a job array's (decision 36) */
	bool has_sla = false, quoting;
	double begin = 0.0;
	const char *err;
	int rc;

	/* Nothing the user sent may pose as our record. */
	if (job_desc->admin_comment &&
	    libra_slurm_is_record(job_desc->admin_comment))
		xfree(job_desc->admin_comment);

	memset(&ref, 0, sizeof(ref));
	ref.time = now;
	snprintf(ref.verdict, sizeof(ref.verdict), "invalid");
	if ((rc = _booking_resv_refused(job_desc, submit_uid, err_msg))) {
		_log_refusal(&ref, job_desc, submit_uid, *err_msg);
		return rc;
	}
	/* --begin later: an advance reservation (decision 21), whose SLA
	 * counts from its begin as if it were submitted then */
	if (job_desc->begin_time > (time_t) now + 1)
		begin = (double) job_desc->begin_time;
	if ((rc = _build_sla(job_desc, begin > 0.0 ? begin : now, &sla,
			     &has_sla, err_msg))) {
		_booked_note(begin, err_msg);
		info("%s: uid %u: %s", plugin_type, submit_uid, *err_msg);
		_log_refusal(&ref, job_desc, submit_uid, *err_msg);
		return rc;
	}
	if (libra_sla_has_budget(&sla)) {
		ref.has_budget = true;
		ref.budget = sla.budget;
	}
	if (has_sla && begin > 0.0 && (err = _booking_error(&sla, begin,
							      now))) {
		xstrfmtcat(*err_msg, "libra: rejected: --begin: %s", err);
		_log_refusal(&ref, job_desc, submit_uid, *err_msg);
		return ESLURM_INVALID_TIME_VALUE;
	}
	if (has_sla && job_desc->het_job_offset != NO_VAL) {
		xstrfmtcat(*err_msg, "libra: rejected: heterogeneous jobs cannot carry an SLA yet; submit the components one by one");
		_log_refusal(&ref, job_desc, submit_uid, *err_msg);
		return ESLURM_NOT_SUPPORTED;
	}
	/* a job array: one bag of tasks under the SLA (decision 36) */
	if (has_sla && job_desc->array_inx &&
	    (rc = _array_sla(job_desc, &bag, &sla, err_msg))) {
		info("%s: uid %u: %s", plugin_type, submit_uid, *err_msg);
		_log_refusal(&ref, job_desc, submit_uid, *err_msg);
		return rc;
	}

	quoting = has_sla && (sla.set & LIBRA_SLA_QUOTE); /* hold or take */
	libra_hub_lock();
	libra_slurm_params_current(plugin_type);
	/* nodes go down and come back between the scheduler's passes */
	if (libra_slurm_sync_nodes())
		libra_hub_set_synced(false);
	if (!libra_hub_synced()) {
		libra_slurm_sync(time(NULL));
		libra_hub_set_synced(true);
	}
	if (has_sla && libra_sla_takes_quote(&sla)) {
		rc = _take_quote(job_desc, &sla, now, submit_uid, err_msg,
				 &ref);
		if (rc)
			info("%s: uid %u: %s", plugin_type, submit_uid,
			     *err_msg);
	} else if (has_sla) {
		rc = _admit(job_desc, &sla, &bag, now, begin, submit_uid,
			    err_msg, &ref);
	} else {
		snprintf(ref.verdict, sizeof(ref.verdict), "no_sla");
		rc = _no_sla(job_desc, libra_hub_params(), now, err_msg);
	}
	libra_hub_unlock();
	/*
	 * A quote given or taken is on disk before the user hears of it
	 * (decision 20): under slurmctld's locks, as job_submit is, but
	 * not the hub's (a write that found the book unchanged is a lock
	 * and a comparison).
	 */
	if (quoting)
		libra_state_save_quotes();
	if (rc == SLURM_SUCCESS)
		libra_hub_wake();
	else
		_log_refusal(&ref, job_desc, submit_uid, *err_msg);
	return rc;
}

/* Fields whose change by a user would alter an admitted SLA or price. */
static const char *_tampered(job_desc_msg_t *d)
{
	if (d->comment)
		return "the comment (SLA)";
	if (d->admin_comment)
		return "the AdminComment (record)";
	if (d->deadline)
		return "the deadline";
	if (d->time_limit != NO_VAL)
		return "the time limit";
	if (d->time_min != NO_VAL)
		return "the minimum time limit";
	if (d->min_cpus != NO_VAL || d->max_cpus != NO_VAL ||
	    d->num_tasks != NO_VAL || d->cpus_per_task != NO_VAL16 ||
	    d->pn_min_cpus != NO_VAL16 || d->ntasks_per_node != NO_VAL16)
		return "the CPU count";
	if (d->min_nodes != NO_VAL || d->max_nodes != NO_VAL)
		return "the node count";
	if (d->partition)
		return "the partition";
	if (d->req_nodes || d->exc_nodes)
		return "the node list";
	if (d->qos)
		return "the QOS";
	if (d->spank_job_env_size)
		return "the SLA options";
	/* an array's lanes are its throttle (decision 36) */
	if (d->array_inx)
		return "the array's throttle";
	/* what could keep it from starting on its admitted nodes in time */
	if (d->begin_time)
		return "the start time";
	if (d->dependency)
		return "the dependencies";
	if (d->pn_min_memory != NO_VAL64 || d->mem_per_tres)
		return "the memory";
	if (d->features || d->cluster_features)
		return "the node features";
	if (d->tres_per_job || d->tres_per_node || d->tres_per_socket ||
	    d->tres_per_task)
		return "the generic resources";
	if (d->licenses)
		return "the licenses";
	if (d->reservation)
		return "the reservation";
	if (d->contiguous != NO_VAL16 || d->core_spec != NO_VAL16)
		return "the node layout";
	/* a hold (0) or a release (INFINITE) only: its place in the
	 * queue is its admission's (decision 38) */
	if (d->priority != NO_VAL && d->priority != 0 &&
	    d->priority != INFINITE)
		return "the priority";
	return NULL;
}

/*
 * A best-effort job (no SLA, design.md decision 11) is updated as under
 * stock Slurm: it holds no admitted share and has no price to protect.
 * Refused only: what would turn it into an SLA job without admission, and
 * its record.
 */
static const char *_tampered_best_effort(job_desc_msg_t *d)
{
	if (d->comment && libra_sla_text_is_sla(d->comment))
		return "the comment into an SLA (submit a new job for one)";
	if (d->admin_comment)
		return "the AdminComment (record)";
	if (d->spank_job_env_size)
		return "the SLA options";
	return NULL;
}

/*
 * An administrator's AdminComment on a job with a record goes beside the
 * record, which stays (decision 29): the record with its "admin" member
 * set to the new text (removed by an empty one).  A text that is a record
 * itself is an operator editing the record, taken as it is.
 */
static void _admin_beside_record(job_desc_msg_t *job_desc,
				 job_record_t *job_ptr)
{
	char *text;

	if (!job_desc->admin_comment ||
	    libra_slurm_is_record(job_desc->admin_comment))
		return;
	text = libra_record_json_with_admin(job_ptr->admin_comment,
					    job_desc->admin_comment);
	if (!text) {
		error("%s: %pJ: its record is unreadable; AdminComment replaced by the operator's text",
		      plugin_type, job_ptr);
		return;
	}
	xfree(job_desc->admin_comment);
	job_desc->admin_comment = xstrdup(text);
	free(text);
}

/*
 * A node's report of a job's progress (decision 34): an AdminComment
 * update from slurmstepd (root) reading LIBRA_PROGRESS_PREFIX and the
 * CPU-seconds per CPU done.  It re-plans the job and is never stored.
 */
static int _progress(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		     uint32_t submit_uid, char **err_msg)
{
	const char *v = job_desc->admin_comment + strlen(LIBRA_PROGRESS_PREFIX);
	char *end = NULL;
	double done = strtod(v, &end);

	if (!validate_operator(submit_uid)) {
		error("%s: refused a progress report on %pJ from uid %u: reports come from the nodes",
		      plugin_type, job_ptr, submit_uid);
		if (err_msg)
			xstrfmtcat(*err_msg, "libra: refused: progress reports come from the nodes (slurmstepd)");
		return ESLURM_ACCESS_DENIED;
	}
	if (end == v || *end || !isfinite(done) || done < 0.0) {
		error("%s: %pJ: progress report '%s' does not read as CPU-seconds done; ignored",
		      plugin_type, job_ptr, job_desc->admin_comment);
	} else {
		libra_slurm_replan(job_ptr, done, _now());
	}
	xfree(job_desc->admin_comment);	/* AdminComment keeps the record */
	return SLURM_SUCCESS;
}

/*
 * The owner holds an admitted job that has not started (scontrol hold,
 * uhold: priority 0): the time from now until it starts is the owner's,
 * not the provider's (libra_record_owner_stop(), decision 37).
 */
static void _owner_hold(job_desc_msg_t *job_desc, job_record_t *job_ptr,
			uint32_t submit_uid)
{
	libra_record_t rec;

	if (job_desc->priority != 0 || submit_uid != job_ptr->user_id ||
	    !IS_JOB_PENDING(job_ptr) || !libra_slurm_job_record(job_ptr, &rec))
		return;
	if (!rec.best_effort && !rec.settled && rec.owner_since <= 0.0) {
		libra_record_owner_stop(&rec, _now());
		libra_slurm_store_record(job_ptr, &rec);
		info("%s: %pJ held by its owner (uid %u): the time until it starts is the owner's, not the provider's",
		     plugin_type, job_ptr, submit_uid);
	}
	libra_record_free(&rec);
}

/*
 * What else an update of an admitted job changes that is not known to be
 * harmless (qos_update.c, the allow-list; decision 37), or NULL.
 */
static const char *_unknown_change(job_desc_msg_t *job_desc,
				   job_record_t *job_ptr, uint32_t submit_uid)
{
	size_t off;

	if (!libra_update_unknown(job_desc, &off))
		return NULL;
	if (!validate_operator(submit_uid))
		error("%s: update of admitted %pJ by uid %u changes job_desc_msg_t at byte %zu, not on the list of harmless changes",
		      plugin_type, job_ptr, submit_uid, off);
	return "what is not on the list of harmless changes (job_submit_qos(8))";
}

/*
 * An array's throttle is its admitted lanes (decision 36), but Slurm's
 * _update_job() sets it (array_recs->max_run_tasks) before it calls this
 * hook, in every release, so a refusal would leave it changed: put the
 * lanes back.  Job write lock held (the update RPC's).
 */
static void _keep_lanes(job_record_t *job_ptr)
{
	libra_record_t rec;

	if (!job_ptr->array_recs || !libra_slurm_job_record(job_ptr, &rec))
		return;
	if (rec.bag.lanes > 0 &&
	    job_ptr->array_recs->max_run_tasks != (uint32_t) rec.bag.lanes) {
		info("%s: %pJ: its throttle stays %d, the lanes it was admitted with (not %u)",
		     plugin_type, job_ptr, rec.bag.lanes,
		     job_ptr->array_recs->max_run_tasks);
		job_ptr->array_recs->max_run_tasks = rec.bag.lanes;
	}
	libra_record_free(&rec);
}

static int _job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		       uint32_t submit_uid, char **err_msg)
{
	const char *what;
	int rc;

	if (job_desc->admin_comment &&
	    !strncmp(job_desc->admin_comment, LIBRA_PROGRESS_PREFIX,
		     strlen(LIBRA_PROGRESS_PREFIX)))
		return _progress(job_desc, job_ptr, submit_uid, err_msg);
	if ((rc = _booking_resv_refused(job_desc, submit_uid, err_msg)))
		return rc;
	if (!libra_slurm_is_record(job_ptr->admin_comment))
		return SLURM_SUCCESS;
	if (libra_record_text_is_best_effort(job_ptr->admin_comment))
		what = _tampered_best_effort(job_desc);
	else if (!(what = _tampered(job_desc)))
		what = _unknown_change(job_desc, job_ptr, submit_uid);
	if (!what) {
		_owner_hold(job_desc, job_ptr, submit_uid);
		/* a release: sched/libra starts it at once (decision 38) */
		if (job_desc->priority == INFINITE)
			libra_hub_wake();
		return SLURM_SUCCESS;
	}
	if (validate_operator(submit_uid)) {
		info("%s: operator uid %u changes %s of admitted %pJ",
		     plugin_type, submit_uid, what, job_ptr);
		_admin_beside_record(job_desc, job_ptr);
		return SLURM_SUCCESS;
	}
	if (job_desc->array_inx)
		_keep_lanes(job_ptr);
	error("%s: refused update of admitted %pJ by uid %u: changing %s would alter its SLA or price; ask an operator",
	      plugin_type, job_ptr, submit_uid, what);
	/* no err_msg on Slurm 22.05 (LIBRA_JOB_MODIFY) */
	if (err_msg)
		xstrfmtcat(*err_msg, "libra: refused: changing %s would alter the job's SLA or price; ask an operator",
			   what);
	return ESLURM_ACCESS_DENIED;
}

/* job_modify(), with or without err_msg as the release has it */
LIBRA_JOB_MODIFY(_job_modify)
