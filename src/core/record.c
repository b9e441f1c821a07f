/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  record.c - the job record as JSON, with json-c (see record.h): the
 *  decoder, and the record's helpers (tests of its text, its admin
 *  comment, its settlement).  The encoders, and the placement set from
 *  the ledger, are in record_encode.c.
 *
 *  The decoder walks a table of allowed fields per object and refuses
 *  anything else.
\*****************************************************************************/

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"
#include "record.h"
#include "record_int.h"

/* ------------------------------------------------------------ decode */

static int _dfail(dec_t *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int _dfail(dec_t *d, const char *fmt, ...)
{
	va_list ap;

	if (!d->failed && d->err && d->errlen) {
		va_start(ap, fmt);
		vsnprintf(d->err, d->errlen, fmt, ap);
		va_end(ap);
	}
	d->failed = 1;
	return -1;
}

/* Refuse keys not in the allowed list. */
static int _only_keys(dec_t *d, json_object *o, const char *where,
		      const char *const *allowed)
{
	json_object_object_foreach(o, key, val) {
		bool known = false;

		if (!val)
			return _dfail(d, "%s.%.40s: null is not a value", where,
				      key);
		for (int i = 0; allowed[i]; i++)
			if (!strcmp(key, allowed[i]))
				known = true;
		if (!known)
			return _dfail(d, "%s: unknown field '%.40s'", where,
				      key);
	}
	return 0;
}

static json_object *_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

/* A number in [min, max]; absent is an error when required. */
static int _get_num(dec_t *d, json_object *o, const char *where,
		    const char *key, bool required, double min, double max,
		    double *out)
{
	json_object *v = _get(o, key);
	double x;

	if (!v) {
		if (required)
			return _dfail(d, "%s.%s: missing", where, key);
		return 0;
	}
	if (!json_object_is_type(v, json_type_double) &&
	    !json_object_is_type(v, json_type_int))
		return _dfail(d, "%s.%s: not a number", where, key);
	x = json_object_get_double(v);
	if (!isfinite(x) || x < min || x > max)
		return _dfail(d, "%s.%s: %g out of range [%g, %g]", where, key,
			      x, min, max);
	/* a negative zero ("-0.0", "-0e5") means 0: no sign to carry */
	*out = x == 0.0 ? 0.0 : x;
	return 0;
}

static const char *_get_str(dec_t *d, json_object *o, const char *where,
			    const char *key, bool required)
{
	json_object *v = _get(o, key);

	if (!v) {
		if (required)
			_dfail(d, "%s.%s: missing", where, key);
		return NULL;
	}
	if (!json_object_is_type(v, json_type_string)) {
		_dfail(d, "%s.%s: not a string", where, key);
		return NULL;
	}
	return json_object_get_string(v);
}

#define TIME_MAX 253402300799.0		/* 9999-12-31 */
#define MONEY_MAX 1e15
#define MEM_MAX 1099511627776.0		/* MB per CPU or node: 2^40 */
#define PLACE_MEM_MAX 9007199254740992.0	/* MB on one node: 2^53 */
#define GPUS_MAX 1e6

/* An optional whole number in [min, max]; absent leaves *out alone. */
static int _get_whole(dec_t *d, json_object *o, const char *where,
		      const char *key, double min, double max, double *out)
{
	double v = *out;

	if (_get_num(d, o, where, key, false, min, max, &v))
		return -1;
	if (v != floor(v))
		return _dfail(d, "%s.%s: not whole", where, key);
	*out = v;
	return 0;
}

/* A "demand" object (_demand_object()): at most one memory and one GPU
 * form, and the scratch disk, each present only when set, as
 * libra_admit() takes them. */
static int _dec_demand(dec_t *d, json_object *o, const char *where,
		       libra_demand_t *dm)
{
	static const char *const allowed[] = {
		"mem_per_cpu", "mem_per_node", "mem_whole_node",
		"gpus_per_node", "gpus", "tmp_mb", NULL
	};
	double mem_cpu = 0, mem_node = 0, gpus_node = 0, gpus = 0, tmp = 0;
	json_object *whole;

	if (!json_object_is_type(o, json_type_object))
		return _dfail(d, "%s: not an object", where);
	if (_only_keys(d, o, where, allowed) ||
	    _get_whole(d, o, where, "mem_per_cpu", 1, MEM_MAX, &mem_cpu) ||
	    _get_whole(d, o, where, "mem_per_node", 1, MEM_MAX, &mem_node) ||
	    _get_whole(d, o, where, "gpus_per_node", 1, GPUS_MAX,
		       &gpus_node) ||
	    _get_whole(d, o, where, "gpus", 1, GPUS_MAX, &gpus) ||
	    _get_whole(d, o, where, "tmp_mb", 1, MEM_MAX, &tmp))
		return -1;
	if ((whole = _get(o, "mem_whole_node")) &&
	    (!json_object_is_type(whole, json_type_boolean) ||
	     !json_object_get_boolean(whole)))
		return _dfail(d, "%s.mem_whole_node: not true", where);
	if ((mem_cpu > 0) + (mem_node > 0) + (whole != NULL) > 1)
		return _dfail(d, "%s: more than one of mem_per_cpu, mem_per_node, mem_whole_node",
			      where);
	if (gpus_node > 0 && gpus > 0)
		return _dfail(d, "%s: both gpus_per_node and gpus", where);
	dm->mem_per_cpu = (uint64_t) mem_cpu;
	dm->mem_per_node = (uint64_t) mem_node;
	dm->mem_whole_node = whole != NULL;
	dm->gpus_per_node = (int) gpus_node;
	dm->gpus = (int) gpus;
	dm->tmp_mb = (uint64_t) tmp;
	return 0;
}

/*
 * sla.given: which SLA terms the user gave (libra_sla_term_bit()), to be
 * matched by the optional values present; absent (a record written by
 * hand), every field present counts as given.
 */
static int _dec_given(dec_t *d, json_object *o, json_object *given,
		      libra_sla_t *sla)
{
	if (!given) {
		/* written by hand: every field present was given */
		sla->set |= LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE |
			   LIBRA_SLA_TYPE;
		if (_get(o, "budget"))
			sla->set |= LIBRA_SLA_BUDGET;
		if (_get(o, "penalty"))
			sla->set |= LIBRA_SLA_PENALTY;
		if (_get(o, "penalty_cap"))
			sla->set |= LIBRA_SLA_PENALTY_CAP;
		if (_get(o, "duedate"))
			sla->set |= LIBRA_SLA_DUEDATE;
		if (_get(o, "tier"))
			sla->set |= LIBRA_SLA_TIER;
		return 0;
	}
	if (!json_object_is_type(given, json_type_array))
		return _dfail(d, "sla.given: not an array");
	for (size_t i = 0; i < json_object_array_length(given); i++) {
		json_object *g = json_object_array_get_idx(given, i);
		const char *name;
		uint32_t bit;

		if (!json_object_is_type(g, json_type_string))
			return _dfail(d, "sla.given: not a list of names");
		name = json_object_get_string(g);
		if (!(bit = libra_sla_term_bit(name)))
			return _dfail(d, "sla.given: unknown field '%.20s'",
				      name);
		if (sla->set & bit)
			return _dfail(d, "sla.given: '%s' twice", name);
		sla->set |= bit;
	}
	/* the optional values are there exactly when the user gave them */
	if (!(sla->set & LIBRA_SLA_BUDGET) != !_get(o, "budget") ||
	    !(sla->set & LIBRA_SLA_PENALTY) != !_get(o, "penalty") ||
	    !(sla->set & LIBRA_SLA_PENALTY_CAP) != !_get(o, "penalty_cap") ||
	    !(sla->set & LIBRA_SLA_DUEDATE) != !_get(o, "duedate") ||
	    !(sla->set & LIBRA_SLA_TIER) != !_get(o, "tier"))
		return _dfail(d, "sla.given: does not match the fields present");
	return 0;
}

static int _dec_sla(dec_t *d, json_object *o, libra_sla_t *sla)
{
	static const char *const allowed[] = {
		"runtime", "submit", "deadline", "budget", "penalty",
		"penalty_cap", "duedate", "tier", "target", "type", "given",
		NULL
	};
	const char *type, *tier;
	char list[LIBRA_NAMES_MAX];
	int v;

	memset(sla, 0, sizeof(*sla));
	if (!json_object_is_type(o, json_type_object))
		return _dfail(d, "sla: not an object");
	if (_only_keys(d, o, "sla", allowed) ||
	    _get_num(d, o, "sla", "runtime", true, 1e-9,
		     LIBRA_SLA_MAX_DURATION, &sla->runtime) ||
	    _get_num(d, o, "sla", "submit", true, 0, TIME_MAX,
		     &sla->submit) ||
	    _get_num(d, o, "sla", "deadline", true, 0, TIME_MAX,
		     &sla->deadline) ||
	    _get_num(d, o, "sla", "budget", false, 0, MONEY_MAX,
		     &sla->budget) ||
	    _get_num(d, o, "sla", "penalty", false, 0, MONEY_MAX,
		     &sla->penalty_rate) ||
	    _get_num(d, o, "sla", "penalty_cap", false, 0, MONEY_MAX,
		     &sla->penalty_cap) ||
	    _get_num(d, o, "sla", "duedate", false, 0, TIME_MAX,
		     &sla->due_date) ||
	    _get_num(d, o, "sla", "target", false, 0, TIME_MAX,
		     &sla->target))
		return -1;
	if (!(sla->deadline > sla->submit))
		return _dfail(d, "sla.deadline: not after sla.submit");
	if (_get(o, "target")) {
		/* set by admission, never given: a time in (submit, TD) */
		if (!(sla->target > sla->submit) ||
		    !(sla->target < sla->deadline))
			return _dfail(d, "sla.target: not between sla.submit and sla.deadline");
		sla->set |= LIBRA_SLA_TARGET;
	}
	if (_get(o, "tier")) {
		tier = _get_str(d, o, "sla", "tier", true);
		if (!tier)
			return -1;
		/* a tier a job picks: "none" is none */
		if (!libra_value_of(libra_tier_names + 1, tier, &v))
			return _dfail(d, "sla.tier: '%.20s' is not %s", tier,
				      libra_names_list(libra_tier_names + 1,
						       list, sizeof(list)));
		sla->tier = (libra_tier_t) v;
	}
	type = _get_str(d, o, "sla", "type", true);
	if (!type)
		return -1;
	if (!libra_value_of(libra_deadline_type_names, type, &v))
		return _dfail(d, "sla.type: '%.20s' is not %s", type,
			      libra_names_list(libra_deadline_type_names, list,
					       sizeof(list)));
	sla->type = (libra_deadline_type_t) v;

	return _dec_given(d, o, _get(o, "given"), sla);
}

static int _dec_place(dec_t *d, json_object *arr, libra_record_t *r)
{
	static const char *const allowed[] = {
		"node", "cpus", "mem", "gpus", "tmp", "speed", NULL
	};
	size_t n;

	if (!json_object_is_type(arr, json_type_array))
		return _dfail(d, "admit.place: not an array");
	n = json_object_array_length(arr);
	if (n > 65536)
		return _dfail(d, "admit.place: %zu places is too many", n);
	if (!n)
		return 0;
	r->place = calloc(n, sizeof(*r->place));
	if (!r->place)
		return _dfail(d, "admit.place: out of memory");
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(arr, i);
		const char *node;
		double cpus, mem = 0, gpus = 0, tmp = 0, speed = 1.0;

		if (!json_object_is_type(p, json_type_object))
			return _dfail(d, "admit.place[%zu]: not an object", i);
		if (_only_keys(d, p, "admit.place", allowed))
			return -1;
		node = _get_str(d, p, "admit.place", "node", true);
		if (!node)
			return -1;
		if (!*node || strlen(node) >= LIBRA_NODE_NAME_MAX)
			return _dfail(d, "admit.place[%zu].node: bad length",
				      i);
		for (const char *c = node; *c; c++)
			if (*c <= ' ' || *c > '~' || *c == ',')
				return _dfail(d, "admit.place[%zu].node: bad character",
					      i);
		if (_get_num(d, p, "admit.place", "cpus", true, 1, 1e6, &cpus))
			return -1;
		if (cpus != floor(cpus))
			return _dfail(d, "admit.place[%zu].cpus: not whole", i);
		if (_get_whole(d, p, "admit.place", "mem", 1, PLACE_MEM_MAX,
			       &mem) ||
		    _get_whole(d, p, "admit.place", "gpus", 1, GPUS_MAX, &gpus) ||
		    _get_whole(d, p, "admit.place", "tmp", 1, PLACE_MEM_MAX,
			       &tmp) ||
		    _get_num(d, p, "admit.place", "speed", false, 1e-9, 64,
			     &speed))
			return -1;
		snprintf(r->place[i].node, sizeof(r->place[i].node), "%s",
			 node);
		r->place[i].speed = speed;
		r->place[i].cpus = (int) cpus;
		r->place[i].mem_mb = (uint64_t) mem;
		r->place[i].gpus = (int) gpus;
		r->place[i].tmp_mb = (uint64_t) tmp;
		r->nplace = (int) i + 1;
	}
	return 0;
}

static int _dec_final(dec_t *d, json_object *o, libra_record_t *r)
{
	static const char *const allowed[] = {
		"how", "end", "delay", "met", "penalty", "charge", NULL
	};
	const char *how;
	json_object *met;

	if (!json_object_is_type(o, json_type_object))
		return _dfail(d, "final: not an object");
	if (_only_keys(d, o, "final", allowed))
		return -1;
	if (!(how = _get_str(d, o, "final", "how", true)))
		return -1;
	if (!libra_end_from_name(how, &r->final.how))
		return _dfail(d, "final.how: unknown '%.20s'", how);
	if (_get_num(d, o, "final", "end", true, 0, TIME_MAX,
		     &r->final.end) ||
	    _get_num(d, o, "final", "delay", true, 0, TIME_MAX,
		     &r->final.delay) ||
	    _get_num(d, o, "final", "penalty", true, 0, MONEY_MAX,
		     &r->final.penalty) ||
	    _get_num(d, o, "final", "charge", true, -MONEY_MAX, MONEY_MAX,
		     &r->final.charge))
		return -1;
	met = _get(o, "met");
	if (!met || !json_object_is_type(met, json_type_boolean))
		return _dfail(d, "final.met: missing or not true/false");
	r->final.deadline_met = json_object_get_boolean(met);
	r->settled = true;
	return 0;
}

/* A record's "admit" object: the admission's time, prices, demand, quote,
 * begin, runtimes and placement. */
static int _dec_admit(dec_t *d, json_object *admit, libra_record_t *r)
{
	static const char *const allowed[] = {
		"time", "price", "rate", "demand", "price_mem", "price_gpus",
		"price_disk", "quote", "hold_end", "begin", "declared", "predicted",
		"penalty_max",
		"replanned", "done", "replans", "plan", "plan_end", "place",
		NULL
	};
	json_object *v;

	if (!json_object_is_type(admit, json_type_object))
		return _dfail(d, "admit: not an object");
	if (_only_keys(d, admit, "admit", allowed) ||
	    _get_num(d, admit, "admit", "time", true, 0, TIME_MAX,
		     &r->admitted) ||
	    _get_num(d, admit, "admit", "price", true, 0, MONEY_MAX,
		     &r->price) ||
	    _get_num(d, admit, "admit", "rate", true, 0, MONEY_MAX,
		     &r->rate) ||
	    _get_num(d, admit, "admit", "price_mem", false, 0, MONEY_MAX,
		     &r->price_mem) ||
	    _get_num(d, admit, "admit", "price_gpus", false, 0, MONEY_MAX,
		     &r->price_gpus) ||
	    _get_num(d, admit, "admit", "price_disk", false, 0, MONEY_MAX,
		     &r->price_disk))
		return -1;
	if ((v = _get(admit, "demand")) &&
	    _dec_demand(d, v, "admit.demand", &r->demand))
		return -1;
	if (_get(admit, "quote") || _get(admit, "hold_end")) {
		double id;

		/* either one needs the other */
		if (_get_num(d, admit, "admit", "quote", true, 1,
			     LIBRA_SLA_QUOTE_MAX_ID, &id) ||
		    _get_num(d, admit, "admit", "hold_end", true, 0, TIME_MAX,
			     &r->quote_until))
			return -1;
		if (id != floor(id))
			return _dfail(d, "admit.quote: not whole");
		r->quote_id = (uint32_t) id;
	}
	if (_get_num(d, admit, "admit", "penalty_max", false, 1e-300,
		     LIBRA_SLA_MAX_MONEY * 1e6, &r->penalty_max))
		return -1;
	if (_get_num(d, admit, "admit", "begin", false, 1e-9, TIME_MAX,
		     &r->begin))
		return -1;
	if ((_get(admit, "declared") || _get(admit, "predicted")) &&
	    (_get_num(d, admit, "admit", "declared", true, 1e-9, TIME_MAX,
		      &r->declared) ||
	     _get_num(d, admit, "admit", "predicted", true, 1e-9, TIME_MAX,
		      &r->predicted)))
		return -1;
	if (_get(admit, "replanned") || _get(admit, "done") ||
	    _get(admit, "replans") || _get(admit, "plan") ||
	    _get(admit, "plan_end")) {
		double n;

		/* all of them, on a job admitted on a prediction */
		if (_get_num(d, admit, "admit", "replanned", true, 1e-9,
			     TIME_MAX, &r->replanned) ||
		    _get_num(d, admit, "admit", "done", true, 0, TIME_MAX,
			     &r->replan_done) ||
		    _get_num(d, admit, "admit", "replans", true, 1, 1e6, &n) ||
		    _get_num(d, admit, "admit", "plan", true, 1e-9, TIME_MAX,
			     &r->plan) ||
		    _get_num(d, admit, "admit", "plan_end", true, 1e-9,
			     TIME_MAX, &r->plan_end))
			return -1;
		if (n != floor(n))
			return _dfail(d, "admit.replans: not whole");
		if (!(r->declared > 0.0))
			return _dfail(d, "admit.replanned: the job was not admitted on a prediction (no admit.declared)");
		r->replans = (int) n;
	}
	if (!(v = _get(admit, "place")))
		return _dfail(d, "admit.place: missing");
	return _dec_place(d, v, r);
}

/* "bag" (record.h): the shape whole and consistent, the tally within it. */
static int _dec_bag(dec_t *d, json_object *o, libra_record_t *r)
{
	static const char *const allowed[] = {
		"tasks", "lanes", "waves", "runtime", "target", "ended",
		"late", "failed", "last_end", NULL
	};
	libra_record_bag_t *b = &r->bag;
	double tasks = 0, lanes = 0, waves = 0, ended = 0, late = 0;
	double failed = 0;

	if (r->best_effort)
		return _dfail(d, "record.bag: a best-effort job has no SLA");
	if (!json_object_is_type(o, json_type_object))
		return _dfail(d, "bag: not an object");
	if (_only_keys(d, o, "bag", allowed) ||
	    _get_whole(d, o, "bag", "tasks", 1, 1e6, &tasks) ||
	    _get_whole(d, o, "bag", "lanes", 1, 1e6, &lanes) ||
	    _get_whole(d, o, "bag", "waves", 1, 1e6, &waves) ||
	    _get_num(d, o, "bag", "runtime", true, 1e-9,
		     LIBRA_SLA_MAX_DURATION, &b->runtime) ||
	    _get_num(d, o, "bag", "target", false, 1e-9, TIME_MAX,
		     &b->target) ||
	    _get_whole(d, o, "bag", "ended", 1, 1e6, &ended) ||
	    _get_whole(d, o, "bag", "late", 0, 1e6, &late) ||
	    _get_whole(d, o, "bag", "failed", 0, 1e6, &failed) ||
	    _get_num(d, o, "bag", "last_end", false, 1e-9, TIME_MAX,
		     &b->last_end))
		return -1;
	if (!tasks || !lanes || !waves)
		return _dfail(d, "bag: tasks, lanes and waves are all needed");
	if (lanes > tasks || waves != ceil(tasks / lanes))
		return _dfail(d, "bag.waves: not ceil(tasks / lanes) with lanes at most tasks");
	if (ended > tasks || late > ended || failed > ended ||
	    (ended > 0) != (b->last_end > 0.0))
		return _dfail(d, "bag.ended: the tally does not fit the bag (ended at most tasks, late and failed at most ended, last_end with it)");
	b->tasks = (int) tasks;
	b->lanes = (int) lanes;
	b->waves = (int) waves;
	b->ended = (int) ended;
	b->late = (int) late;
	b->failed = (int) failed;
	return 0;
}

static int _dec_record(dec_t *d, json_object *o, libra_record_t *r)
{
	static const char *const allowed[] = {
		"libra", "policy", "token", "best_effort", "sla", "admit",
		"start", "requeues", "owner", "owner_since", "bag", "final",
		LIBRA_RECORD_ADMIN_KEY,
		NULL
	};
	json_object *v, *admit;
	const char *policy;
	double version, n;

	if (!json_object_is_type(o, json_type_object))
		return _dfail(d, "record: not a JSON object");
	if (_only_keys(d, o, "record", allowed))
		return -1;
	if (_get_num(d, o, "record", "libra", true, 1, 1e6, &version))
		return -1;
	if (version != LIBRA_RECORD_VERSION)
		return _dfail(d, "record.libra: version %g not understood",
			      version);
	if (!(policy = _get_str(d, o, "record", "policy", true)))
		return -1;
	if (!libra_policy_from_name(policy, &r->policy))
		return _dfail(d, "record.policy: unknown '%.20s'", policy);
	n = 0;
	if (_get_whole(d, o, "record", "token", 1, 4294967295.0, &n))
		return -1;
	r->token = (uint32_t) n;
	if ((v = _get(o, "best_effort"))) {
		if (!json_object_is_type(v, json_type_boolean))
			return _dfail(d, "record.best_effort: not true/false");
		r->best_effort = json_object_get_boolean(v);
	}
	v = _get(o, "sla");
	if (r->best_effort && v)
		return _dfail(d, "record.sla: a best-effort job has no SLA");
	if (!r->best_effort) {
		if (!v)
			return _dfail(d, "record.sla: missing");
		if (_dec_sla(d, v, &r->sla))
			return -1;
	}
	if ((v = _get(o, LIBRA_RECORD_ADMIN_KEY)) &&
	    !json_object_is_type(v, json_type_string))
		return _dfail(d, "record.admin: not a string");
	if (!(admit = _get(o, "admit")))
		return _dfail(d, "record.admit: missing");
	if (_dec_admit(d, admit, r))
		return -1;
	if (_get_num(d, o, "record", "start", false, 1e-9, TIME_MAX,
		     &r->started))
		return -1;
	n = 0;
	if (_get_whole(d, o, "record", "requeues", 1, 1e6, &n))
		return -1;
	r->requeues = (int) n;
	if (_get_num(d, o, "record", "owner", false, 1e-300, TIME_MAX,
		     &r->owner) ||
	    _get_num(d, o, "record", "owner_since", false, 1e-9, TIME_MAX,
		     &r->owner_since))
		return -1;
	if ((v = _get(o, "bag")) && _dec_bag(d, v, r))
		return -1;
	if ((v = _get(o, "final")) && _dec_final(d, v, r))
		return -1;
	return 0;
}

extern json_object *record_parse(dec_t *d, const char *text)
{
	struct json_tokener *tok;
	json_object *o;
	size_t len;

	if (!text)
		return _dfail(d, "record: empty"), NULL;
	len = strlen(text);
	if (len > 1024 * 1024)
		return _dfail(d, "record: longer than 1 MiB"), NULL;
	if (!(tok = json_tokener_new_ex(16)))
		return _dfail(d, "record: out of memory"), NULL;
	o = json_tokener_parse_ex(tok, text, (int) len);
	if (!o) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		if (e == json_tokener_continue)
			_dfail(d, "record: truncated JSON");
		else
			_dfail(d, "record: bad JSON at byte %zu: %s",
			       json_tokener_get_parse_end(tok),
			       json_tokener_error_desc(e));
	} else if (json_tokener_get_parse_end(tok) != len) {
		_dfail(d, "record: trailing bytes after the JSON object");
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

extern int libra_record_from_json(const char *text, libra_record_t *r,
				  char *err, size_t errlen)
{
	dec_t d = { err, errlen, 0 };
	json_object *o;

	memset(r, 0, sizeof(*r));
	if (!(o = record_parse(&d, text)))
		return -1;
	if (_dec_record(&d, o, r)) {
		libra_record_free(r);
		memset(r, 0, sizeof(*r));
	}
	json_object_put(o);
	return d.failed ? -1 : 0;
}

extern int libra_sla_from_json(const char *text, libra_sla_t *sla,
			       char *err, size_t errlen)
{
	dec_t d = { err, errlen, 0 };
	json_object *o;

	memset(sla, 0, sizeof(*sla));
	if (!(o = record_parse(&d, text)))
		return -1;
	if (_dec_sla(&d, o, sla))
		memset(sla, 0, sizeof(*sla));
	json_object_put(o);
	return d.failed ? -1 : 0;
}

/* Copy a string field into a fixed buffer; absent is "". */
static int _get_fixed(dec_t *d, json_object *o, const char *key, char *buf,
		      size_t len)
{
	const char *s = _get_str(d, o, "refusal", key, false);

	if (d->failed)
		return -1;
	snprintf(buf, len, "%s", s ? s : "");
	return 0;
}

extern int libra_refusal_from_json(const char *text, libra_refusal_t *r,
				   char *err, size_t errlen)
{
	static const char *const allowed[] = {
		"time", "uid", "account", "partition", "verdict", "cpus",
		"min_nodes", "max_nodes", "budget", "sla", "demand", "reason",
		NULL
	};
	dec_t d = { err, errlen, 0 };
	double uid = 0, cpus = 0, min_nodes = 0, max_nodes = 0;
	json_object *sla, *demand;
	json_object *o;

	memset(r, 0, sizeof(*r));
	if (!(o = record_parse(&d, text)))
		return -1;
	if (!json_object_is_type(o, json_type_object)) {
		_dfail(&d, "refusal: not a JSON object");
	} else if (!_only_keys(&d, o, "refusal", allowed) &&
		   !_get_num(&d, o, "refusal", "time", true, 0, TIME_MAX,
			     &r->time) &&
		   !_get_num(&d, o, "refusal", "uid", false, 0, 4294967295.0,
			     &uid) &&
		   !_get_num(&d, o, "refusal", "cpus", false, 0, 1e9, &cpus) &&
		   !_get_num(&d, o, "refusal", "min_nodes", false, 0, 1e9,
			     &min_nodes) &&
		   !_get_num(&d, o, "refusal", "max_nodes", false, 0, 1e9,
			     &max_nodes) &&
		   !_get_fixed(&d, o, "account", r->account,
			       sizeof(r->account)) &&
		   !_get_fixed(&d, o, "partition", r->partition,
			       sizeof(r->partition)) &&
		   !_get_fixed(&d, o, "verdict", r->verdict,
			       sizeof(r->verdict)) &&
		   !_get_fixed(&d, o, "reason", r->reason, sizeof(r->reason))) {
		r->uid = (unsigned) uid;
		r->cpus = (int) cpus;
		r->min_nodes = (int) min_nodes;
		r->max_nodes = (int) max_nodes;
		if ((sla = _get(o, "sla")) && !_dec_sla(&d, sla, &r->sla))
			r->has_sla = true;
		if (_get(o, "budget") &&
		    !_get_num(&d, o, "refusal", "budget", true, 0, MONEY_MAX,
			      &r->budget))
			r->has_budget = true;
		if ((demand = _get(o, "demand")))
			_dec_demand(&d, demand, "refusal.demand", &r->demand);
	}
	json_object_put(o);
	if (d.failed)
		memset(r, 0, sizeof(*r));
	return d.failed ? -1 : 0;
}

extern void libra_record_committed_sla(const libra_record_t *r,
				       libra_sla_t *out)
{
	if (r->replanned > 0.0)
		libra_sla_replanned(&r->sla, r->plan, r->plan_end, out);
	else
		*out = r->sla;
}

extern double libra_record_speed(const libra_record_t *r)
{
	double speed = 0.0;

	for (int i = 0; i < r->nplace; i++) {
		double s = r->place[i].speed > 0.0 ? r->place[i].speed : 1.0;

		if (!(speed > 0.0) || s < speed)
			speed = s;
	}
	return speed > 0.0 ? speed : 1.0;
}

extern double libra_record_commit_time(const libra_record_t *r)
{
	if (r->replanned > 0.0)
		return r->replanned;
	return r->quote_id ? r->quote_until : r->admitted;
}

extern void libra_record_free(libra_record_t *r)
{
	if (!r)
		return;
	free(r->place);
	r->place = NULL;
	r->nplace = 0;
}

extern void libra_record_settle(const libra_record_t *r,
				const libra_params_t *p, double start,
				double end, libra_end_t how,
				libra_settlement_t *out)
{
	libra_settle_site_t site = {
		.held = r->admitted,
		/* the provider planned its start at admission, a booking's
		 * begin or a binding quote's hold end */
		.planned = fmax(r->admitted, fmax(r->begin, r->quote_until)),
		.owner = r->owner,
		.cap = r->penalty_max > 0.0 ? r->penalty_max : INFINITY,
		.paper = p->settle_paper,
	};

	if (r->owner_since > 0.0 && end > r->owner_since)
		site.owner += end - r->owner_since;
	libra_settle_at_site(&r->sla, r->price, start, end, how, &site, out);
}

extern void libra_record_owner_stop(libra_record_t *r, double now)
{
	if (r->owner_since <= 0.0)
		r->owner_since = now;
}

extern void libra_record_owner_end(libra_record_t *r, double now)
{
	if (r->owner_since <= 0.0)
		return;
	if (now > r->owner_since)
		r->owner += now - r->owner_since;
	r->owner_since = 0.0;
}

#define RECORD_PREFIX "{\"libra\":"

extern bool libra_record_text_is_record(const char *text)
{
	return text && !strncmp(text, RECORD_PREFIX, strlen(RECORD_PREFIX));
}

extern char *libra_record_admin_text(const char *text)
{
	char err[8];
	dec_t d = { err, sizeof(err), 0 };
	json_object *o, *v;
	char *admin = NULL;

	if (!libra_record_text_is_record(text))
		return (text && *text) ? strdup(text) : NULL;
	if (!(o = record_parse(&d, text)))
		return NULL;
	if ((v = _get(o, LIBRA_RECORD_ADMIN_KEY)) &&
	    json_object_is_type(v, json_type_string) &&
	    *json_object_get_string(v))
		admin = strdup(json_object_get_string(v));
	json_object_put(o);
	return admin;
}

extern bool libra_record_text_is_best_effort(const char *text)
{
	return libra_record_text_is_record(text) &&
	       strstr(text, "\"best_effort\":true");
}
