/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  job_submit_qos_admit.c - the admission of a job with an SLA.
 *
 *  libra_qos_admit() checks the SLA's runtime, predicted (design.md
 *  decision 23) or declared, against its window and the site's bounds
 *  (decision 37); places the job in the first of its partitions that can
 *  take it (decision 29): at once, at a booking's begin (decision 21), at
 *  the start a power plan chooses (decision 24), or at a planned start when
 *  the jobs without an SLA on its nodes reach their time limits (decision
 *  39); checks its licenses and its QOS and association limits (decision
 *  29); and then refuses it (job_submit_qos_refuse.c) or commits it: its
 *  record stored, its capacity committed in the ledger, a binding quote
 *  kept when it asked for one (decision 20).
 *
 *  Kept here, under the hub lock, for the admissions whose job has not
 *  appeared yet: their licenses, and how many each user has (sbatch
 *  --test-only, decision 37).
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
#include "price.h"

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

/* The plugin's fini(): what is kept of the admissions whose job has not
 * appeared yet. */
extern void libra_qos_admit_fini(void)
{
	while (lic.n > 0)
		xfree(lic.hold[--lic.n].licenses);
	xfree(lic.hold);
	libra_probes_free(&probes);
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

/*
 * The runtime, predicted or declared, against the deadline and the due
 * date (libra_sla_finish() left it, LIBRA_SLA_RUNTIME_LATER): with
 * libra_predict a job may declare more than its deadline allows and be
 * admitted on what its user's finished jobs predict; its time limit then
 * follows the SLA (libra_qos_set_time_limit()), so a hard job ends at its
 * deadline.
 */
static int _runtime_fits(const libra_sla_t *sla, const libra_params_t *p,
			 const char *predict_txt, double begin, char **err_msg)
{
	/* on the fastest node, a reference runtime takes RE / its speed
	 * (decision 43) */
	double speed = libra_ledger_max_speed(libra_hub_ledger());
	libra_sla_t fastest = *sla;
	libra_sla_err_t rc;
	char err[256];

	fastest.runtime = sla->runtime / speed;
	if (!(rc = libra_sla_check_runtime(&fastest, err, sizeof(err))))
		return SLURM_SUCCESS;
	xstrfmtcat(*err_msg, "libra: rejected: %s", err);
	if (speed != 1.0)
		xstrfmtcat(*err_msg, " (the runtime on the fastest node, of speed %g: libra_node_speed)",
			   speed);
	if (*predict_txt)
		xstrfmtcat(*err_msg, "%s", predict_txt);
	else if (p->predict != LIBRA_PREDICT_NONE)
		xstrfmtcat(*err_msg, " (libra_predict: no history of finished jobs predicts it shorter)");
	libra_qos_booked_note(begin, err_msg);
	return libra_qos_sla_errno(rc, libra_sla_err_field(err, NULL));
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
	return libra_qos_sla_errno(rc, libra_sla_err_field(err, NULL));
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
		/* opt=time (decision 33): the earliest finish admission found */
		libra_format_duration(agreed->target - from, t, sizeof(t));
		xstrfmtcat(*err_msg, "; opt=time: planned to finish in %s",
			   t);
		return;
	} else if (agreed->target <= agreed->due_date + LIBRA_DEADLINE_GRACE) {
		return;
	}
	libra_format_duration(agreed->target - from, t, sizeof(t));
	xstrfmtcat(*err_msg, "; the due date cannot be met: planned to finish in %s, charged %s then",
		   t, libra_qos_money(q->charge_target, m, sizeof(m)));
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

	libra_qos_clock(start, t, sizeof(t));
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

	libra_qos_clock(start, t, sizeof(t));
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
		if (!(rec->quote_id = libra_qos_quote_keep(job_desc, req, rec,
							   q, uid, now,
							   held_until))) {
			libra_record_free(rec);
			xstrfmtcat(*err_msg, "libra: internal error: out of memory");
			return SLURM_ERROR;
		}
	}
	rc = libra_qos_store(job_desc, rec, err_msg);
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
		rc = libra_qos_admit_request(c);
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
		more = (libra_qos_partition(c->job_desc, c->k + 1,
					    &name) != NULL);
		xfree(name);
		if (!more)
			return rc;
		libra_qos_partition_refused(c->job_desc, c->k, c->l, c->sla,
					    &c->req, c->q, c->from, rc,
					    *c->err_msg ?
					    *c->err_msg + c->keep : NULL,
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
	bool several = libra_qos_partition(c->job_desc, 1, &name) != NULL;
	int rc;

	xfree(name);
	rc = _admit_parts(c, !several);
	if (!several || rc || c->q->verdict == LIBRA_ACCEPT)
		return rc;
	xfree(c->tried);
	return _admit_parts(c, true);
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
	libra_qos_record_init(&rec, c->p->policy, libra_hub_next_token(),
			      c->sla, c->now, q->price, q->price_mem,
			      q->price_gpus);
	rec.price_disk = q->price_disk;	/* scratch disk's (decision 17) */
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
	libra_qos_array_record(c->bag, c->sla, &rec, what, sizeof(what));
	if ((rc = _commit(job_desc, c->l, &rec, &c->req, q, c->uid, c->now,
			  c->hold ? c->at : 0.0, c->err_msg)))
		return rc;
	if (job_desc->licenses && job_desc->licenses[0])
		_lic_recent_add(rec.token, job_desc->licenses,
				agreed.deadline);
	if (!c->hold && libra_probes_add(&probes, c->uid, rec.token, c->now))
		error("%s: out of memory noting admission %u", plugin_type,
		      rec.token);
	libra_qos_set_time_limit(job_desc, c->sla, c->from, c->part_ptr);

	libra_qos_describe(c->sla, c->req.cpus, c->from, what + strlen(what),
			   sizeof(what) - strlen(what));
	nodes = libra_slurm_place_nodes(q->place, q->nplace);
	libra_qos_pin(job_desc, nodes);
	if (c->hold) {
		libra_qos_quote_msg(c->p, q->price, rec.quote_id, c->at,
				    what, nodes, c->err_msg);
	} else {
		xstrfmtcat(*c->err_msg, "libra: admitted: price %s (%s, %s) on %s%s%s",
			   libra_qos_money(q->price, m1, sizeof(m1)), what,
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
extern int libra_qos_admit(job_desc_msg_t *job_desc, libra_sla_t *sla,
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
		libra_qos_array_offer(bag, sla, c.p, c.from, err_msg);
		goto out;
	}
	if ((rc = _site_terms(sla, c.p, err_msg)))
		goto out;
	if ((rc = _admit_place(&c))) {
		libra_qos_partition_tried(job_desc, c.k, &c.tried, err_msg);
		goto out;
	}
	if ((rc = _licenses(job_desc, c.l, c.at, now, ref, err_msg)) ||
	    (rc = libra_qos_limits(job_desc, c.part_ptr, sla, &c.req,
				   c.from, ref, err_msg)))
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
		rc = libra_qos_admit_refuse(&c);
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
