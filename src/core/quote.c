/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  quote.c - the book of binding quotes (see quote.h).
 *
 *  A small array: a user holds at most libra_quote_max quotes, and a quote
 *  leaves the book at the end of its hold, so the book stays short and a
 *  linear search is the simplest correct thing.
\*****************************************************************************/

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"

struct libra_quotes {
	libra_held_quote_t *q;
	int n, cap;
	uint32_t next_id;
};

extern libra_quotes_t *libra_quotes_create(double now)
{
	libra_quotes_t *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	/*
	 * Numbers from the creation time (100000-999999, then on): a book
	 * made after a restart does not soon give again a number a user may
	 * still hold from before it.
	 */
	b->next_id = 100000u + (uint32_t) fmod(fabs(now), 900000.0);
	return b;
}

static void _free_one(libra_held_quote_t *h)
{
	free(h->place);
	h->place = NULL;
}

extern void libra_quotes_destroy(libra_quotes_t *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->n; i++)
		_free_one(&b->q[i]);
	free(b->q);
	free(b);
}

extern int libra_quotes_held(const libra_quotes_t *b, uint32_t uid,
			     double now)
{
	int n = 0;

	for (int i = 0; i < b->n; i++)
		if (b->q[i].uid == uid && !b->q[i].taken &&
		    now <= b->q[i].until)
			n++;
	return n;
}

extern uint32_t libra_quotes_add(libra_quotes_t *b, const libra_held_quote_t *h)
{
	libra_held_quote_t *dst;

	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 8;
		libra_held_quote_t *q = realloc(b->q, (size_t) cap * sizeof(*q));

		if (!q)
			return 0;
		b->q = q;
		b->cap = cap;
	}
	dst = &b->q[b->n];
	*dst = *h;
	dst->place = NULL;
	if (h->nplace > 0) {
		dst->place = malloc((size_t) h->nplace * sizeof(*dst->place));
		if (!dst->place)
			return 0;
		memcpy(dst->place, h->place,
		       (size_t) h->nplace * sizeof(*dst->place));
	}
	if (b->next_id > LIBRA_SLA_QUOTE_MAX_ID)
		b->next_id = 100000u;
	dst->id = b->next_id++;
	dst->taken = false;
	b->n++;
	return dst->id;
}

extern const char *libra_quote_status_name(libra_quote_status_t st)
{
	switch (st) {
	case LIBRA_QUOTE_OK:		return "ok";
	case LIBRA_QUOTE_UNKNOWN:	return "no such quote";
	case LIBRA_QUOTE_NOT_OWNER:	return "another user's quote";
	case LIBRA_QUOTE_EXPIRED:	return "expired";
	case LIBRA_QUOTE_TAKEN:		return "already taken";
	}
	return "?";
}

static libra_held_quote_t *_lookup(const libra_quotes_t *b, uint32_t id)
{
	for (int i = 0; i < b->n; i++)
		if (b->q[i].id == id)
			return &b->q[i];
	return NULL;
}

extern libra_quote_status_t libra_quotes_find(libra_quotes_t *b, uint32_t id,
					      uint32_t uid, double now,
					      libra_held_quote_t **h)
{
	libra_held_quote_t *q = _lookup(b, id);

	*h = q;
	if (!q)
		return LIBRA_QUOTE_UNKNOWN;
	if (q->uid != uid)
		return LIBRA_QUOTE_NOT_OWNER;
	if (q->taken)
		return LIBRA_QUOTE_TAKEN;
	if (now > q->until)
		return LIBRA_QUOTE_EXPIRED;
	return LIBRA_QUOTE_OK;
}

static bool _same_demand(const libra_demand_t *a, const libra_demand_t *b)
{
	return a->mem_per_cpu == b->mem_per_cpu &&
	       a->mem_per_node == b->mem_per_node &&
	       a->mem_whole_node == b->mem_whole_node &&
	       a->gpus_per_node == b->gpus_per_node && a->gpus == b->gpus;
}

extern const char *libra_quote_shape_differs(const libra_quote_shape_t *q,
					     const libra_quote_shape_t *job)
{
	if (q->cpus != job->cpus || q->cpus_per_task != job->cpus_per_task ||
	    q->cpus_per_node != job->cpus_per_node)
		return "the CPU count";
	if (q->min_nodes != job->min_nodes || q->max_nodes != job->max_nodes)
		return "the node count";
	if (!_same_demand(&q->demand, &job->demand))
		return "the memory or GPUs";
	if (strcmp(q->partition, job->partition))
		return "the partition";
	return NULL;
}

extern void libra_quotes_mark_taken(libra_quotes_t *b, uint32_t id)
{
	libra_held_quote_t *q = _lookup(b, id);

	if (q)
		q->taken = true;
}

extern void libra_quotes_remove(libra_quotes_t *b, uint32_t id)
{
	for (int i = 0; i < b->n; i++) {
		if (b->q[i].id != id)
			continue;
		_free_one(&b->q[i]);
		b->q[i] = b->q[--b->n];
		return;
	}
}

extern bool libra_quotes_token_held(const libra_quotes_t *b, uint32_t token,
				    double now)
{
	for (int i = 0; i < b->n; i++)
		if (b->q[i].token == token)
			return !b->q[i].taken && now <= b->q[i].until;
	return false;
}

extern int libra_quotes_expire(libra_quotes_t *b, double now, double grace)
{
	int gone = 0;

	for (int i = 0; i < b->n;) {
		if (now > b->q[i].until + grace) {
			_free_one(&b->q[i]);
			b->q[i] = b->q[--b->n];
			gone++;
		} else {
			i++;
		}
	}
	return gone;
}

extern int libra_quotes_count(const libra_quotes_t *b)
{
	return b->n;
}
