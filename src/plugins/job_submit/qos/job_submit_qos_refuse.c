/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  job_submit_qos_refuse.c - what a refused job is told, and the log of
 *  refusals.
 *
 *  A refusal is one line: why (the verdict, what was asked, the resource
 *  that stands in the way; a due date past its break-even point, design.md
 *  decision 18), and what would be admitted instead: the cheapest later
 *  deadline or the budget needed (the counter-offer), the same window
 *  later (the next free slot, decision 21), a start after the time limits
 *  of the jobs without an SLA on its nodes (decision 39), and the other
 *  partitions' reasons (-p a,b, decision 29).  Its errno is one sbatch
 *  does not retry (decisions 13 and 29).  The money, times and jobs of all
 *  the plugin's messages are written here.
 *
 *  Refusals leave no job: each is appended to libra_refusals.jsonl in
 *  StateSaveLocation, for libra-report and libra-replay.
\*****************************************************************************/

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "job_submit_qos.h"

/* Refusals leave no job; they are logged here for libra-report. */
#define REFUSAL_LOG "libra_refusals.jsonl"

/* "4 CPUs x 1h, deadline 2h" */
extern void libra_qos_describe(const libra_sla_t *sla, int cpus, double now,
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
	case LIBRA_REJECT_PROFIT:	/* the site's going rate: a policy */
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
	case LIBRA_REJECT_DISK:		/* held until jobs end; Slurm has
					 * no errno of scratch disk */
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

extern const char *libra_qos_money(double v, char *buf, size_t len)
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
 * now".  A "resources" refusal names a memory, GPU or scratch disk request
 * larger than any node ("..., the largest node has 48000 MB"); other
 * refusals nothing.
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
	} else if (q->verdict == LIBRA_REJECT_DISK) {
		snprintf(buf, len, "disk: %" PRIu64 " MB of scratch disk asked per node (--tmp), at most %" PRIu64 " MB free on any node now",
			 q->asked.tmp_mb, q->most_free.tmp_mb);
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
	} else if (resources && q->largest.tmp_mb &&
		   q->asked.tmp_mb > q->largest.tmp_mb) {
		snprintf(buf, len, "disk: %" PRIu64 " MB of scratch disk asked per node (--tmp), the largest TmpDisk is %" PRIu64 " MB",
			 q->asked.tmp_mb, q->largest.tmp_mb);
	} else if (q->held_node >= 0 &&
		   q->held_node < libra_ledger_node_count(l)) {
		/* they are free there: its CPU share is what is short */
		const char *node = libra_ledger_node_name(l, q->held_node);

		if (q->asked.gpus) {
			snprintf(buf, len, "gpus: %d GPU%s asked %s, free on %s, but not the CPU share there",
				 q->asked.gpus, q->asked.gpus == 1 ? "" : "s",
				 per, node);
		} else if (q->asked.tmp_mb && !q->asked.mem_mb) {
			snprintf(buf, len, "disk: %" PRIu64 " MB of scratch disk asked per node (--tmp), free on %s, but not the CPU share there",
				 q->asked.tmp_mb, node);
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
extern void libra_qos_clock(double t, char *buf, size_t len)
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

	libra_qos_describe(sla, req->cpus, now, what, sizeof(what));
	_held_reason(l, req, q, held, sizeof(held));
	if (q->verdict == LIBRA_REJECT_BUDGET) {
		xstrfmtcat(*err_msg, "libra: rejected: price %s exceeds budget %s (%s)",
			   libra_qos_money(q->least_price, m1, sizeof(m1)),
			   libra_qos_money(sla->budget, m2, sizeof(m2)), what);
	} else if (q->verdict == LIBRA_REJECT_MEMORY ||
		   q->verdict == LIBRA_REJECT_GPUS ||
		   q->verdict == LIBRA_REJECT_DISK) {
		xstrfmtcat(*err_msg, "libra: rejected: %s (%s)", held, what);
	} else if (q->verdict == LIBRA_REJECT_DUEDATE) {
		/* doc/design.md decision 18: past the break-even point */
		libra_format_duration(q->target - now, d, sizeof(d));
		xstrfmtcat(*err_msg, "libra: rejected: the due date cannot be met; the earliest completion, in %s, would be charged %s, below its cost %s (%s)",
			   d, libra_qos_money(q->charge_target, m1, sizeof(m1)),
			   libra_qos_money(q->price / (1.0 + q->markup), m2,
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
	if (q->verdict == LIBRA_REJECT_PROFIT) {
		/* no deadline or budget raises the mark-up's share of the
		 * price: a tier with a higher mark-up does (decision 51) */
		libra_quote_t tq;
		libra_tier_t t = libra_tier_offer(l, p, sla, req, now, &tq);

		xstrfmtcat(*err_msg, "; the going rate is %s per hour of profit",
			   libra_qos_money(p->min_profit_rate, m1, sizeof(m1)));
		if (t != LIBRA_TIER_NONE)
			xstrfmtcat(*err_msg, "; cheapest feasible: tier=%s at %s",
				   libra_tier_name(t),
				   _money_up(tq.price, m2, sizeof(m2)));
		else
			xstrfmtcat(*err_msg, ": no tier's mark-up earns it");
		return;
	}
	if (q->verdict == LIBRA_REJECT_SLOTS) {
		xstrfmtcat(*err_msg, "; a later deadline does not help: submit again when jobs end");
		return;
	}

	libra_counter_offer_within(l, p, sla, req, now, OFFER_HORIZON,
				   LIBRA_SEARCH_SECONDS, &offer);
	/* memory, GPUs and scratch disk are held until jobs end: no
	 * deadline frees them */
	if (offer.blocked_by == LIBRA_REJECT_MEMORY ||
	    offer.blocked_by == LIBRA_REJECT_GPUS ||
	    offer.blocked_by == LIBRA_REJECT_DISK) {
		xstrfmtcat(*err_msg, "; a later deadline does not help: %s held by running jobs until they end, submit again then",
			   offer.blocked_by == LIBRA_REJECT_MEMORY ?
			   "the memory is" :
			   offer.blocked_by == LIBRA_REJECT_GPUS ?
			   "the GPUs are" : "the scratch disk is");
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
		libra_qos_clock(slot.begin, m1, sizeof(m1));
		xstrfmtcat(*err_msg, "; next free slot: --begin=%s at %s",
			   m1, _money_up(slot.price, m2, sizeof(m2)));
	} else if (slot.cut) {
		xstrfmtcat(*err_msg, "; next free slot not computed (the search stopped at its %.0f ms limit)",
			   LIBRA_SEARCH_SECONDS * 1e3);
	}
}

/* What a refused booking (--begin later, decision 21) adds: when its times
 * count from. */
extern void libra_qos_booked_note(double begin, char **err_msg)
{
	char t[32];

	if (!(begin > 0.0))
		return;
	libra_qos_clock(begin, t, sizeof(t));
	xstrfmtcat(*err_msg, " (booked by --begin: times count from %s)", t);
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
 * -p a,b: why partition k refused the job (its request's error, or the
 * verdict's first sentence), added to *tried as "a: <reason>".
 */
extern void libra_qos_partition_refused(job_desc_msg_t *job_desc, int k,
					const libra_ledger_t *l,
					const libra_sla_t *sla,
					const libra_request_t *req,
					const libra_quote_t *q, double now,
					int rc, const char *rc_msg,
					char **tried)
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
	(void) libra_qos_partition(job_desc, k, &name);
	xstrfmtcat(*tried, "%s%s: %s", *tried ? "; " : "",
		   name ? name : "?", w);
	xfree(name);
	xfree(why);
}

/* The other partitions' reasons after the last one's (partition k). */
extern void libra_qos_partition_tried(job_desc_msg_t *job_desc, int k,
				      char **tried, char **err_msg)
{
	char *name = NULL;

	if (!*tried)
		return;
	(void) libra_qos_partition(job_desc, k, &name);
	xstrfmtcat(*err_msg, " [in partition %s; the job's other partitions refused it too: %s]",
		   name ? name : "?", *tried);
	xfree(name);
	xfree(*tried);
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
	libra_qos_clock(plan->slot.begin, t, sizeof(t));
	libra_format_duration(plan->slot.deadline - from, d, sizeof(d));
	xstrfmtcat(*err_msg, "; next free slot after the time limits of the jobs without an SLA on its nodes: a start at %s, deadline %s at %s",
		   t, d, _money_up(plan->slot.price, m, sizeof(m)));
}

/* The refusal of a job placed nowhere: the reason, the counter-offer, the
 * notes, the errno. */
extern int libra_qos_admit_refuse(admit_ctx_t *c)
{
	_refuse_msg(c->l, c->p, c->sla, &c->req, c->q, c->from, c->err_msg);
	libra_qos_array_offer(c->bag, c->sla, c->p, c->from, c->err_msg);
	c->left_out.slot_follows = c->plan.slot_found;
	if (c->q->verdict == LIBRA_REJECT_RESOURCES)
		libra_slurm_left_out_msg(&c->left_out, c->err_msg);
	_slot_msg(&c->plan, c->from, c->err_msg);
	_refusal_notes(c->p, c->boot_wait, c->hold, c->begin_txt,
		       c->predict_txt, c->err_msg);
	libra_qos_partition_tried(c->job_desc, c->k, &c->tried, c->err_msg);
	snprintf(c->ref->verdict, sizeof(c->ref->verdict), "%s",
		 libra_verdict_name(c->q->verdict));
	info("%s: %s", plugin_type, *c->err_msg);
	return _refusal_errno(c->q->verdict);
}

/*
 * Append a refusal to the log in StateSaveLocation (one short write with
 * O_APPEND, so concurrent submissions never interleave a line).
 */
extern void libra_qos_log_refusal(libra_refusal_t *ref,
				  job_desc_msg_t *job_desc, uint32_t submit_uid,
				  const char *msg)
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
	libra_slurm_watch_refused(job_desc, submit_uid, ref->verdict);
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
