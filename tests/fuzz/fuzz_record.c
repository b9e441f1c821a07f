/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  fuzz_record.c - fuzz target: the JSON record decoder (record.h).
 *
 *  Feeds the input to libra_record_from_json() (and libra_sla_from_json()).
 *  On error the record must be empty and the message terminated.  On
 *  success the record is encoded, decoded again and compared field by
 *  field, bit for bit, and encoding that gives the very same text: what
 *  the decoder accepts, the encoder writes back unchanged.
\*****************************************************************************/

#include <math.h>

#include "fuzz.h"
#include "record.h"

static void _same_sla(const libra_sla_t *a, const libra_sla_t *b,
		      const char *text)
{
	FUZZ_ASSERT(a->set == b->set, "sla.set %x != %x: %s", a->set, b->set,
		    text);
	FUZZ_ASSERT(fuzz_same(a->runtime, b->runtime) &&
		    fuzz_same(a->submit, b->submit) &&
		    fuzz_same(a->deadline, b->deadline) &&
		    fuzz_same(a->budget, b->budget) &&
		    fuzz_same(a->penalty_rate, b->penalty_rate) &&
		    fuzz_same(a->penalty_cap, b->penalty_cap) &&
		    fuzz_same(a->due_date, b->due_date) &&
		    a->type == b->type, "sla differs: %s", text);
}

static void _same(const libra_record_t *a, const libra_record_t *b,
		  const char *text)
{
	FUZZ_ASSERT(a->policy == b->policy && a->token == b->token &&
		    a->best_effort == b->best_effort,
		    "header differs: %s", text);
	_same_sla(&a->sla, &b->sla, text);
	FUZZ_ASSERT(fuzz_same(a->admitted, b->admitted) &&
		    fuzz_same(a->price, b->price) &&
		    fuzz_same(a->price_mem, b->price_mem) &&
		    fuzz_same(a->price_gpus, b->price_gpus) &&
		    fuzz_same(a->price_disk, b->price_disk) &&
		    fuzz_same(a->rate, b->rate) &&
		    fuzz_same(a->started, b->started),
		    "admission differs: %s", text);
	FUZZ_ASSERT(a->demand.mem_per_cpu == b->demand.mem_per_cpu &&
		    a->demand.mem_per_node == b->demand.mem_per_node &&
		    a->demand.mem_whole_node == b->demand.mem_whole_node &&
		    a->demand.gpus_per_node == b->demand.gpus_per_node &&
		    a->demand.gpus == b->demand.gpus &&
		    a->demand.tmp_mb == b->demand.tmp_mb,
		    "demand differs: %s", text);
	FUZZ_ASSERT(a->nplace == b->nplace, "nplace %d != %d: %s", a->nplace,
		    b->nplace, text);
	for (int i = 0; i < a->nplace; i++)
		FUZZ_ASSERT(!strcmp(a->place[i].node, b->place[i].node) &&
			    a->place[i].cpus == b->place[i].cpus &&
			    a->place[i].mem_mb == b->place[i].mem_mb &&
			    a->place[i].gpus == b->place[i].gpus &&
			    a->place[i].tmp_mb == b->place[i].tmp_mb &&
			    fuzz_same(a->place[i].speed, b->place[i].speed),
			    "place %d differs: %s", i, text);
	FUZZ_ASSERT(a->settled == b->settled, "settled differs: %s", text);
	if (a->settled)
		FUZZ_ASSERT(a->final.how == b->final.how &&
			    fuzz_same(a->final.end, b->final.end) &&
			    fuzz_same(a->final.delay, b->final.delay) &&
			    a->final.deadline_met == b->final.deadline_met &&
			    fuzz_same(a->final.penalty, b->final.penalty) &&
			    fuzz_same(a->final.charge, b->final.charge),
			    "final differs: %s", text);
}

static void _record(const char *text)
{
	libra_record_t r, r2;
	char err[256], *t1, *t2;

	memset(&r, 0x5a, sizeof(r));
	err[0] = '\0';
	if (libra_record_from_json(text, &r, err, sizeof(err)) != 0) {
		fuzz_check_err(err, sizeof(err));
		FUZZ_ASSERT(err[0] != '\0', "no message");
		FUZZ_ASSERT(r.nplace == 0 && r.place == NULL && !r.settled,
			    "refused record not left empty");
		libra_record_free(&r);
		return;
	}
	FUZZ_ASSERT(r.nplace >= 0 && (r.nplace == 0 || r.place != NULL),
		    "bad places");
	for (int i = 0; i < r.nplace; i++)
		FUZZ_ASSERT(memchr(r.place[i].node, '\0',
				   LIBRA_NODE_NAME_MAX) != NULL &&
			    r.place[i].cpus > 0, "bad place %d", i);
	FUZZ_ASSERT(isfinite(r.price) && isfinite(r.rate) &&
		    isfinite(r.admitted) && isfinite(r.started),
		    "non-finite admission: %s", text);
	if (!r.best_effort)
		FUZZ_ASSERT(libra_sla_has_budget(&r.sla) ?
			    r.sla.budget >= 0 : 1, "negative budget");

	t1 = libra_record_to_json(&r);
	FUZZ_ASSERT(t1 != NULL, "accepted record not encodable: %s", text);
	memset(&r2, 0x5a, sizeof(r2));
	FUZZ_ASSERT(libra_record_from_json(t1, &r2, err, sizeof(err)) == 0,
		    "own output refused (%s): %s", err, t1);
	_same(&r, &r2, t1);
	t2 = libra_record_to_json(&r2);
	FUZZ_ASSERT(t2 != NULL && !strcmp(t1, t2),
		    "re-encoding differs:\n%s\n%s", t1, t2 ? t2 : "(null)");
	free(t1);
	free(t2);
	libra_record_free(&r);
	libra_record_free(&r2);
}

static void _sla(const char *text)
{
	libra_sla_t s, s2;
	char err[256], *t1, *t2;

	if (libra_sla_from_json(text, &s, err, sizeof(err)) != 0) {
		fuzz_check_err(err, sizeof(err));
		return;
	}
	t1 = libra_sla_to_json(&s);
	FUZZ_ASSERT(t1 != NULL, "accepted SLA not encodable: %s", text);
	FUZZ_ASSERT(libra_sla_from_json(t1, &s2, err, sizeof(err)) == 0,
		    "own SLA output refused (%s): %s", err, t1);
	_same_sla(&s, &s2, t1);
	t2 = libra_sla_to_json(&s2);
	FUZZ_ASSERT(t2 != NULL && !strcmp(t1, t2), "SLA re-encoding differs");
	free(t1);
	free(t2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size > 64 * 1024)
		return 0;
	text = fuzz_text(data, size);
	_record(text);
	_sla(text);
	free(text);
	return 0;
}
