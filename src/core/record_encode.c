/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  record_encode.c - the job record, the SLA and the refusal written as
 *  JSON, with json-c (see record.h), a record's JSON with its admin
 *  comment set, and a record's placement from a quote's ledger nodes.  The
 *  decoder is in record.c.
 *
 *  Numbers are written with the fewest significant digits (15 to 17) that
 *  read back as the same double, so records are short for people and exact
 *  for programs.
\*****************************************************************************/

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"
#include "record.h"
#include "record_int.h"

/* ------------------------------------------------------------ encode */

static json_object *_num(double v)
{
	char buf[LIBRA_NUMBER_LEN];

	if (!isfinite(v))
		return NULL;
	if (v == 0.0)
		v = 0.0;
	return json_object_new_double_s(v, libra_format_number(buf, sizeof(buf),
							       v));
}

/* Add a number; a non-finite value poisons the whole encoding. */
static void _add_num(json_object *o, const char *key, double v, bool *ok)
{
	json_object *n = _num(v);

	if (!n)
		*ok = false;
	else
		json_object_object_add(o, key, n);
}

static json_object *_sla_object(const libra_sla_t *sla, bool *ok)
{
	json_object *o = json_object_new_object();
	json_object *given = json_object_new_array();
	const char *name;
	uint32_t bit;

	_add_num(o, "runtime", sla->runtime, ok);
	_add_num(o, "submit", sla->submit, ok);
	_add_num(o, "deadline", sla->deadline, ok);
	if (sla->set & LIBRA_SLA_BUDGET)
		_add_num(o, "budget", sla->budget, ok);
	if (sla->set & LIBRA_SLA_PENALTY)
		_add_num(o, "penalty", sla->penalty_rate, ok);
	if (sla->set & LIBRA_SLA_PENALTY_CAP)
		_add_num(o, "penalty_cap", sla->penalty_cap, ok);
	if (sla->set & LIBRA_SLA_DUEDATE)
		_add_num(o, "duedate", sla->due_date, ok);
	if (sla->set & LIBRA_SLA_TIER)
		json_object_object_add(o, "tier", json_object_new_string(
			libra_tier_name(sla->tier)));
	if (sla->set & LIBRA_SLA_TARGET)
		_add_num(o, "target", sla->target, ok);
	json_object_object_add(o, "type", json_object_new_string(
		libra_name_of(libra_deadline_type_names, (int) sla->type)));
	/* the terms the user gave, by sla.c's one table of keys */
	for (size_t i = 0; (name = libra_sla_term(i, &bit)); i++)
		if (sla->set & bit)
			json_object_array_add(given,
					      json_object_new_string(name));
	json_object_object_add(o, "given", given);
	return o;
}

/* The memory, GPUs and scratch disk a job asked; NULL when it asked
 * none. */
static json_object *_demand_object(const libra_demand_t *d)
{
	json_object *o;

	if (!d->mem_per_cpu && !d->mem_per_node && !d->mem_whole_node &&
	    !d->gpus_per_node && !d->gpus && !d->tmp_mb)
		return NULL;
	o = json_object_new_object();
	if (d->mem_per_cpu)
		json_object_object_add(o, "mem_per_cpu", json_object_new_int64(
					       (int64_t) d->mem_per_cpu));
	if (d->mem_per_node)
		json_object_object_add(o, "mem_per_node", json_object_new_int64(
					       (int64_t) d->mem_per_node));
	if (d->mem_whole_node)
		json_object_object_add(o, "mem_whole_node",
				       json_object_new_boolean(1));
	if (d->gpus_per_node)
		json_object_object_add(o, "gpus_per_node",
				       json_object_new_int(d->gpus_per_node));
	if (d->gpus)
		json_object_object_add(o, "gpus", json_object_new_int(d->gpus));
	if (d->tmp_mb)
		json_object_object_add(o, "tmp_mb", json_object_new_int64(
					       (int64_t) d->tmp_mb));
	return o;
}

static char *_to_string(json_object *o, bool ok)
{
	char *s = NULL;

	if (ok)
		s = strdup(json_object_to_json_string_ext(
			o, JSON_C_TO_STRING_PLAIN |
			   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

extern char *libra_sla_to_json(const libra_sla_t *sla)
{
	bool ok = true;
	json_object *o = _sla_object(sla, &ok);

	return _to_string(o, ok);
}

/* A job array's bag (record.h): its shape, a task's target, the tally. */
static void _add_bag(json_object *o, const libra_record_bag_t *b, bool *ok)
{
	const char *const keys[] = { "tasks", "lanes", "waves", "ended",
				     "late", "failed" };
	const int v[] = { b->tasks, b->lanes, b->waves, b->ended, b->late,
			  b->failed };
	json_object *bag = json_object_new_object();

	/* the tally only once a task has ended */
	for (int i = 0; i < (b->ended > 0 ? 6 : 3); i++)
		json_object_object_add(bag, keys[i], json_object_new_int(v[i]));
	_add_num(bag, "runtime", b->runtime, ok);
	if (b->target > 0.0)
		_add_num(bag, "target", b->target, ok);
	if (b->ended > 0)
		_add_num(bag, "last_end", b->last_end, ok);
	json_object_object_add(o, "bag", bag);
}

extern char *libra_record_to_json(const libra_record_t *r)
{
	json_object *o = json_object_new_object(), *admit, *place, *demand;
	bool ok = true;

	json_object_object_add(o, "libra",
			       json_object_new_int(LIBRA_RECORD_VERSION));
	json_object_object_add(o, "policy", json_object_new_string(
				       libra_policy_name(r->policy)));
	if (r->token)
		json_object_object_add(o, "token",
				       json_object_new_int64(r->token));
	if (r->best_effort)
		json_object_object_add(o, "best_effort",
				       json_object_new_boolean(1));
	else
		json_object_object_add(o, "sla", _sla_object(&r->sla, &ok));

	admit = json_object_new_object();
	_add_num(admit, "time", r->admitted, &ok);
	_add_num(admit, "price", r->price, &ok);
	_add_num(admit, "rate", r->rate, &ok);
	if ((demand = _demand_object(&r->demand)))
		json_object_object_add(admit, "demand", demand);
	if (r->price_mem != 0.0)
		_add_num(admit, "price_mem", r->price_mem, &ok);
	if (r->price_gpus != 0.0)
		_add_num(admit, "price_gpus", r->price_gpus, &ok);
	if (r->price_disk != 0.0)
		_add_num(admit, "price_disk", r->price_disk, &ok);
	if (r->quote_id) {
		json_object_object_add(admit, "quote",
				       json_object_new_int64(r->quote_id));
		_add_num(admit, "hold_end", r->quote_until, &ok);
	}
	if (r->penalty_max > 0.0)
		_add_num(admit, "penalty_max", r->penalty_max, &ok);
	if (r->begin > 0.0)
		_add_num(admit, "begin", r->begin, &ok);
	if (r->declared > 0.0) {
		_add_num(admit, "declared", r->declared, &ok);
		_add_num(admit, "predicted", r->predicted, &ok);
	}
	if (r->replanned > 0.0) {
		_add_num(admit, "replanned", r->replanned, &ok);
		_add_num(admit, "done", r->replan_done, &ok);
		json_object_object_add(admit, "replans",
				       json_object_new_int(r->replans));
		_add_num(admit, "plan", r->plan, &ok);
		_add_num(admit, "plan_end", r->plan_end, &ok);
	}
	place = json_object_new_array();
	for (int i = 0; i < r->nplace; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "node", json_object_new_string(
					       r->place[i].node));
		json_object_object_add(p, "cpus",
				       json_object_new_int(r->place[i].cpus));
		if (r->place[i].mem_mb)
			json_object_object_add(p, "mem", json_object_new_int64(
				(int64_t) r->place[i].mem_mb));
		if (r->place[i].gpus)
			json_object_object_add(p, "gpus", json_object_new_int(
						       r->place[i].gpus));
		if (r->place[i].tmp_mb)
			json_object_object_add(p, "tmp", json_object_new_int64(
				(int64_t) r->place[i].tmp_mb));
		if (r->place[i].speed > 0.0 && r->place[i].speed != 1.0)
			_add_num(p, "speed", r->place[i].speed, &ok);
		json_object_array_add(place, p);
	}
	json_object_object_add(admit, "place", place);
	json_object_object_add(o, "admit", admit);

	if (r->started > 0.0)
		_add_num(o, "start", r->started, &ok);
	if (r->requeues > 0)
		json_object_object_add(o, "requeues",
				       json_object_new_int(r->requeues));
	if (r->owner > 0.0)
		_add_num(o, "owner", r->owner, &ok);
	if (r->owner_since > 0.0)
		_add_num(o, "owner_since", r->owner_since, &ok);
	if (r->bag.tasks > 0)
		_add_bag(o, &r->bag, &ok);
	if (r->settled) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, "how", json_object_new_string(
					       libra_end_name(r->final.how)));
		_add_num(f, "end", r->final.end, &ok);
		_add_num(f, "delay", r->final.delay, &ok);
		json_object_object_add(f, "met", json_object_new_boolean(
					       r->final.deadline_met));
		_add_num(f, "penalty", r->final.penalty, &ok);
		_add_num(f, "charge", r->final.charge, &ok);
		json_object_object_add(o, "final", f);
	}
	return _to_string(o, ok);
}

extern char *libra_refusal_to_json(const libra_refusal_t *r)
{
	json_object *o = json_object_new_object(), *demand;
	bool ok = true;

	_add_num(o, "time", r->time, &ok);
	json_object_object_add(o, "uid", json_object_new_int64(r->uid));
	json_object_object_add(o, "account",
			       json_object_new_string(r->account));
	json_object_object_add(o, "partition",
			       json_object_new_string(r->partition));
	json_object_object_add(o, "verdict",
			       json_object_new_string(r->verdict));
	json_object_object_add(o, "cpus", json_object_new_int(r->cpus));
	if (r->min_nodes > 0)
		json_object_object_add(o, "min_nodes",
				       json_object_new_int(r->min_nodes));
	if (r->max_nodes > 0)
		json_object_object_add(o, "max_nodes",
				       json_object_new_int(r->max_nodes));
	if (r->has_budget)
		_add_num(o, "budget", r->budget, &ok);
	if (r->has_sla)
		json_object_object_add(o, "sla", _sla_object(&r->sla, &ok));
	if ((demand = _demand_object(&r->demand)))
		json_object_object_add(o, "demand", demand);
	json_object_object_add(o, "reason", json_object_new_string(r->reason));
	return _to_string(o, ok);
}

extern char *libra_record_json_with_admin(const char *json,
					  const char *admin)
{
	char err[8];
	dec_t d = { err, sizeof(err), 0 };
	json_object *o;

	if (!(o = record_parse(&d, json)) ||
	    !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return NULL;
	}
	json_object_object_del(o, LIBRA_RECORD_ADMIN_KEY);
	if (admin && *admin)
		json_object_object_add(o, LIBRA_RECORD_ADMIN_KEY,
				       json_object_new_string(admin));
	return _to_string(o, true);
}

/* ---------------------------------------------------------- placement */

/* Here, not in record.c, so that record.c, which the SPANK plugin
 * compiles in, names nothing of the ledger. */
extern int libra_record_set_place(libra_record_t *r, const libra_ledger_t *l,
				  const libra_place_t *place, int nplace)
{
	/* malloc()ed, as every record's placement (libra_record_free()) */
	free(r->place);
	r->nplace = 0;
	r->place = nplace > 0 ? calloc((size_t) nplace, sizeof(*r->place))
			      : NULL;
	if (nplace > 0 && !r->place)
		return -1;
	for (int i = 0; i < nplace; i++) {
		snprintf(r->place[i].node, sizeof(r->place[i].node), "%s",
			 libra_ledger_node_name(l, place[i].node));
		r->place[i].cpus = place[i].cpus;
		r->place[i].mem_mb = place[i].mem_mb;
		r->place[i].gpus = place[i].gpus;
		r->place[i].tmp_mb = place[i].tmp_mb;
		r->place[i].speed = libra_ledger_node_speed(l, place[i].node);
	}
	r->nplace = nplace;
	return 0;
}
