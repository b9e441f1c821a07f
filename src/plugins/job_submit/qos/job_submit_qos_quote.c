/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  job_submit_qos_quote.c - binding quotes (design.md decision 20).
 *
 *  quote=hold: an admission made binding for libra_quote_hold, priced for
 *  a start as late as its hold's end, its capacity committed and the quote
 *  kept in the book under a number; a user holds at most libra_quote_max
 *  of them (decision 37).  quote=N: a job made of quote N at its price,
 *  with no second admission, when the quote is the user's, unexpired and
 *  untaken, the job asks what was quoted, and what the quote held is still
 *  there.  Hub lock held.
\*****************************************************************************/

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "job_submit_qos.h"

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
extern int libra_qos_quote_allowed(const libra_params_t *p, uint32_t uid,
				   double now, char **err_msg)
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
 * A binding quote for an accepted admission (decision 20): kept in the
 * book; the record (of the job, when the submission was not a test) names
 * it.  Returns its number, 0 when out of memory.
 */
extern uint32_t libra_qos_quote_keep(const job_desc_msg_t *job_desc,
				     const libra_request_t *req,
				     const libra_record_t *rec,
				     const libra_quote_t *q, uint32_t uid,
				     double now, double until)
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

/* The answer to quote=hold: the binding quote, its price and hold. */
extern void libra_qos_quote_msg(const libra_params_t *p, double price,
				uint32_t id, double until, const char *what,
				const char *nodes, char **err_msg)
{
	char t[32], span[32], m[32];

	libra_qos_clock(until, t, sizeof(t));
	libra_format_duration(p->quote_hold, span, sizeof(span));
	xstrfmtcat(*err_msg, "libra: quote %u: price %s (%s, %s) on %s, held for you until %s (%s); to take it, submit the job with --comment=quote=%u and the same CPUs, nodes, memory, GPUs and partition",
		   id, libra_qos_money(price, m, sizeof(m)), what,
		   libra_policy_name(p->policy), nodes, t, span, id);
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
		libra_qos_clock(h->until, t, sizeof(t));
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
 * Quote id of uid at now, as libra_quotes_find() says.  Its token may
 * already be a job's: one submitted with quote=hold rather than tested,
 * which the scheduler ties to it at its next pass; that is done now (rare:
 * once per quote taken or given back), so that such a quote reads as
 * taken.
 */
static libra_quote_status_t _quote_find(uint32_t id, uint32_t uid,
					double now, libra_held_quote_t **h)
{
	libra_quotes_t *b = libra_hub_quotes();
	libra_quote_status_t st = libra_quotes_find(b, id, uid, now, h);

	if (st == LIBRA_QUOTE_OK &&
	    libra_ledger_has_job(libra_hub_ledger(), (*h)->token)) {
		libra_slurm_sync(time(NULL));
		st = libra_quotes_find(b, id, uid, now, h);
	}
	return st;
}

/*
 * "quote=release:N": binding quote N given back by its owner before its
 * hold ends (design.md decision 20): its capacity is free at once, and the
 * book forgets it.  Never a job: the submission is answered with
 * ESLURM_ALREADY_DONE and the message (sbatch --test-only is the way to
 * send it).  A quote a job was already made of is the job's: refused, as
 * one unknown, expired or another user's.
 */
extern int libra_qos_release_quote(const libra_sla_t *sla, double now,
				   uint32_t uid, char **err_msg)
{
	uint32_t id = libra_sla_quote_id(sla);
	libra_quotes_t *b = libra_hub_quotes();
	libra_held_quote_t *h;
	libra_quote_status_t st = _quote_find(id, uid, now, &h);
	char *nodes;

	if (st != LIBRA_QUOTE_OK)
		return _quote_unusable(st, id, h, err_msg);
	nodes = libra_slurm_place_nodes(h->place, h->nplace);
	libra_ledger_release(libra_hub_ledger(), h->token);
	libra_quotes_remove(b, id);
	xstrfmtcat(*err_msg, "libra: quote %u released: the capacity it held on %s is free again; no job was submitted",
		   id, nodes);
	info("%s: uid %u: %s", plugin_type, uid, *err_msg);
	xfree(nodes);
	return ESLURM_ALREADY_DONE;
}

/*
 * "quote=N": a job made of binding quote N at its price, with no second
 * admission: the quote's token already holds its share, memory and GPUs
 * (doc/design.md decision 20).  Refused, with the reason, when the quote
 * is unknown, another user's, expired or taken, when the job asks
 * something else than was quoted, or when what it held is gone.
 */
extern int libra_qos_take_quote(job_desc_msg_t *job_desc,
				const libra_sla_t *sla, double now,
				uint32_t uid, char **err_msg,
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
	st = _quote_find(sla->quote, uid, now, &h);
	if (st != LIBRA_QUOTE_OK)
		return _quote_unusable(st, sla->quote, h, err_msg);

	ref->has_sla = true;
	ref->sla = h->sla;
	if ((rc = libra_qos_read_request(job_desc, 0, &req, &part_ptr, ref,
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

	libra_qos_record_init(&rec, h->policy, h->token, &h->sla, now, h->price,
			      h->price_mem, h->price_gpus);
	rec.rate = h->rate;
	rec.demand = h->shape.demand;
	rec.quote_id = h->id;
	rec.quote_until = h->until;
	if (libra_record_set_place(&rec, l, h->place, h->nplace)) {
		xstrfmtcat(*err_msg, "libra: internal error: out of memory");
		return SLURM_ERROR;
	}
	rc = libra_qos_store(job_desc, &rec, err_msg);
	nodes = rc ? NULL : libra_slurm_place_names(&rec);
	libra_record_free(&rec);
	if (rc)
		return rc;
	libra_quotes_mark_taken(b, h->id);
	libra_qos_pin(job_desc, nodes);
	libra_qos_set_time_limit(job_desc, &h->sla, now, part_ptr);
	libra_qos_describe(&h->sla, h->shape.cpus, now, what, sizeof(what));
	xstrfmtcat(*err_msg, "libra: admitted: quote %u taken: price %s (%s, %s) on %s",
		   h->id, libra_qos_money(h->price, m1, sizeof(m1)), what,
		   libra_policy_name(h->policy), nodes);
	info("%s: uid %u: %s", plugin_type, uid, *err_msg);
	xfree(nodes);
	return SLURM_SUCCESS;
}
